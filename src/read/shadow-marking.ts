// Which rows of an older (higher-level) file are shadowed by the keys of newer sorted runs: the
// lookup of deletion-vector tables (the keys a compaction just wrote), and merge reads of lookup
// tables (a key's record at a lower positive level already holds the merge of those below). Both sides are sorted with unique keys, so one linear walk
// per lookup run finds them (binary search to where the run starts in the target). Keys are
// compared in the merge kernel's order and equality (Double.compare for floats, unsigned bytes
// for strings, nulls first), 64-bit keys as two int32 words, strings from the prefix all
// keys share: no per-row JavaScript values.
import type { KeyColumn } from "../kernel/columns.js";
import { keyComparator } from "../kernel/reference.js";

type RowComparator = (targetRow: number, lookupRow: number) => number;

/** 64-bit integer keys without nulls compared as (signed high word, unsigned low word). */
function int64Comparator(x: KeyColumn, y: KeyColumn): RowComparator | null {
  if (x.validity || y.validity) return null;
  if (x.type !== "int64" && x.type !== "timestamp_micros" && x.type !== "timestamp_nanos") return null;
  const xv = x.values as BigInt64Array;
  const yv = y.values as BigInt64Array;
  const xw = new Int32Array(xv.buffer, xv.byteOffset, xv.length * 2);
  const yw = new Int32Array(yv.buffer, yv.byteOffset, yv.length * 2);
  return (a, b) => {
    const ha = xw[2 * a + 1]!;
    const hb = yw[2 * b + 1]!;
    if (ha !== hb) return ha < hb ? -1 : 1;
    const la = xw[2 * a]! >>> 0;
    const lb = yw[2 * b]! >>> 0;
    return la === lb ? 0 : la < lb ? -1 : 1;
  };
}

/** Length of the common prefix of value `a` of `x` and value `b` of `y` (bytes columns). */
function commonPrefix(x: KeyColumn, a: number, y: KeyColumn, b: number): number {
  const xo = x.offsets!;
  const yo = y.offsets!;
  const n = Math.min(xo[a + 1]! - xo[a]!, yo[b + 1]! - yo[b]!);
  let k = 0;
  while (k < n && x.data![xo[a]! + k] === y.data![yo[b]! + k]) k++;
  return k;
}

/**
 * Byte-string keys without nulls compared after the prefix every key of both sorted columns
 * shares (e.g. "key-0000"): in sorted data, the common prefix of the first and last values of
 * each side and of the two first values is common to all.
 */
function bytesComparator(x: KeyColumn, y: KeyColumn): RowComparator | null {
  if (x.validity || y.validity || x.type !== "bytes") return null;
  const shared = Math.min(commonPrefix(x, 0, x, x.length - 1), commonPrefix(y, 0, y, y.length - 1), commonPrefix(x, 0, y, 0));
  const xo = x.offsets!;
  const yo = y.offsets!;
  const xd = x.data!;
  const yd = y.data!;
  return (a, b) => {
    let p = xo[a]! + shared;
    let q = yo[b]! + shared;
    const pe = xo[a + 1]!;
    const qe = yo[b + 1]!;
    for (; p < pe && q < qe; p++, q++) {
      const d = xd[p]! - yd[q]!;
      if (d !== 0) return d;
    }
    return pe - p - (qe - q);
  };
}

/**
 * Rows of `target` (key columns of a file: sorted, one row per key) whose key occurs in any
 * of `lookup` (key columns of sorted runs, e.g. consecutive chunks of a compaction output),
 * ascending.
 */
export function shadowedRows(target: readonly KeyColumn[], lookup: readonly (readonly KeyColumn[])[]): Uint32Array {
  const rows = target[0]?.length ?? 0;
  if (rows === 0) return new Uint32Array(0);
  const shadowed = new Uint8Array(rows);
  let count = 0;
  for (const keys of lookup) {
    const m = keys[0]?.length ?? 0;
    if (m === 0) continue;
    const cmp: RowComparator = (target.length === 1 ? (int64Comparator(target[0]!, keys[0]!) ?? bytesComparator(target[0]!, keys[0]!)) : null) ?? keyComparator(target, keys);
    // first target row not below the run's first key
    let lo = 0;
    let hi = rows;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(mid, 0) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo, j = 0; i < rows && j < m; ) {
      const c = cmp(i, j);
      if (c < 0) i++;
      else if (c > 0) j++;
      else {
        count += shadowed[i]! ^ 1;
        shadowed[i++] = 1;
      }
    }
  }
  const out = new Uint32Array(count);
  for (let i = 0, j = 0; i < rows; i++) if (shadowed[i] === 1) out[j++] = i;
  return out;
}
