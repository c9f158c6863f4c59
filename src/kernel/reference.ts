// Plain-TypeScript reference implementations of every kernel. Tests use them as
// the oracle for the wasm kernels on random inputs; benchmarks measure the kernels
// against them. They favour obviousness over speed, but avoid needless waste.
import { BinaryRowWriter } from "../spec/binary-row.js";
import { bucketOfHash, hashBytesByWords } from "../spec/murmur.js";
import { isNull, type KeyColumn, keyValue, VALUE_WIDTH } from "./columns.js";
import type { MergeOptions, MergeResult, SortedRun } from "./merge.js";
import { validateRuns } from "./merge.js";

type Cmp = (a: number, b: number) => number;

/** Java `Double.compare`: NaN above +Infinity and equal to itself, -0.0 below 0.0. */
function compareDouble(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) {
    if (x !== 0) return 0;
    const nx = Object.is(x, -0);
    const ny = Object.is(y, -0);
    return nx === ny ? 0 : nx ? -1 : 1;
  }
  const nanX = Number.isNaN(x);
  const nanY = Number.isNaN(y);
  return nanX === nanY ? 0 : nanX ? 1 : -1;
}

function compareBytes(a: Uint8Array, ao: number, ae: number, b: Uint8Array, bo: number, be: number): number {
  const n = Math.min(ae - ao, be - bo);
  for (let i = 0; i < n; i++) {
    const d = a[ao + i] - b[bo + i];
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  const la = ae - ao;
  const lb = be - bo;
  return la === lb ? 0 : la < lb ? -1 : 1;
}

/** Compares row `a` of column `x` with row `b` of column `y` (same type) in Paimon key order. */
function valueComparator(x: KeyColumn, y: KeyColumn): Cmp {
  let cmp: Cmp;
  switch (x.type) {
    case "bytes": {
      const xo = x.offsets!;
      const yo = y.offsets!;
      const xd = x.data!;
      const yd = y.data!;
      cmp = (a, b) => compareBytes(xd, xo[a], xo[a + 1], yd, yo[b], yo[b + 1]);
      break;
    }
    case "float32":
    case "float64": {
      const xv = x.values as Float64Array;
      const yv = y.values as Float64Array;
      cmp = (a, b) => compareDouble(xv[a], yv[b]);
      break;
    }
    case "int64":
    case "timestamp_micros":
    case "timestamp_nanos": {
      const xv = x.values as BigInt64Array;
      const yv = y.values as BigInt64Array;
      cmp = (a, b) => {
        const p = xv[a];
        const q = yv[b];
        return p < q ? -1 : p > q ? 1 : 0;
      };
      break;
    }
    case "decimal128": {
      const xv = x.values as Uint32Array;
      const yv = y.values as Uint32Array;
      cmp = (a, b) => {
        const hi = (xv[a * 4 + 3] | 0) - (yv[b * 4 + 3] | 0);
        if (hi !== 0) return hi < 0 ? -1 : 1;
        for (let w = 2; w >= 0; w--) {
          const d = xv[a * 4 + w] - yv[b * 4 + w];
          if (d !== 0) return d < 0 ? -1 : 1;
        }
        return 0;
      };
      break;
    }
    default: {
      const xv = x.values as Int32Array;
      const yv = y.values as Int32Array;
      cmp = (a, b) => xv[a] - yv[b];
    }
  }
  if (!x.validity && !y.validity) return cmp;
  return (a, b) => {
    const na = isNull(x, a);
    const nb = isNull(y, b);
    if (na || nb) return na === nb ? 0 : na ? -1 : 1;
    return cmp(a, b);
  };
}

/** Compares row `a` of `xs` with row `b` of `ys` over all key columns. */
export function keyComparator(xs: readonly KeyColumn[], ys: readonly KeyColumn[] = xs): Cmp {
  const cmps = xs.map((x, c) => valueComparator(x, ys[c]));
  if (cmps.length === 1) return cmps[0];
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** Reference for `sortPermutation`. */
export function sortPermutationReference(keys: readonly KeyColumn[], sequence: BigInt64Array): Uint32Array {
  const cmp = keyComparator(keys);
  const order = Array.from({ length: sequence.length }, (_, i) => i);
  order.sort((a, b) => cmp(a, b) || (sequence[a] < sequence[b] ? -1 : sequence[a] > sequence[b] ? 1 : a - b));
  return Uint32Array.from(order);
}

/** Reference for `mergeDeduplicate`: a binary heap of run cursors. */
export function mergeDeduplicateReference(runs: readonly SortedRun[], options: MergeOptions = {}): MergeResult {
  const total = validateRuns(runs);
  const cmp: Cmp[][] = runs.map((x) => runs.map((y) => keyComparator(x.keys, y.keys)));
  const cursor = runs.map(() => 0);
  const less = (p: number, q: number): boolean => {
    const a = cursor[p];
    const b = cursor[q];
    const c = cmp[p][q](a, b);
    if (c !== 0) return c < 0;
    const sa = runs[p].sequence[a];
    const sb = runs[q].sequence[b];
    return sa !== sb ? sa < sb : p < q;
  };
  const heap: number[] = [];
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const child = l + 1 < heap.length && less(heap[l + 1], heap[l]) ? l + 1 : l;
      if (!less(heap[child], heap[i])) return;
      [heap[child], heap[i]] = [heap[i], heap[child]];
      i = child;
    }
  };
  runs.forEach((r, i) => r.sequence.length > 0 && heap.push(i));
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  const outRun = new Uint32Array(total);
  const outRow = new Uint32Array(total);
  let count = 0;
  const emit = (run: number, row: number): void => {
    const kind = runs[run].rowKinds?.[row] ?? 0;
    if (options.dropDeletes && (kind === 1 || kind === 3)) return;
    outRun[count] = run;
    outRow[count] = row;
    count++;
  };
  let lastRun = -1;
  let lastRow = -1;
  while (heap.length > 0) {
    const run = heap[0];
    const row = cursor[run];
    if (lastRun >= 0 && cmp[lastRun][run](lastRow, row) !== 0) emit(lastRun, lastRow);
    lastRun = run;
    lastRow = row;
    cursor[run]++;
    if (cursor[run] === runs[run].sequence.length) {
      const tail = heap.pop()!;
      if (heap.length > 0) heap[0] = tail;
    }
    if (heap.length > 0) siftDown(0);
  }
  if (lastRun >= 0) emit(lastRun, lastRow);
  return { run: outRun.slice(0, count), row: outRow.slice(0, count) };
}

const MASK64 = (1n << 64n) - 1n;
const P1 = 11400714785074694791n;
const P2 = 14029467366897019727n;
const P3 = 1609587929392839161n;
const P4 = 9650029242287828579n;
const P5 = 2870177450012600261n;

const rotl64 = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK64;
const mul64 = (a: bigint, b: bigint): bigint => (a * b) & MASK64;
const add64 = (a: bigint, b: bigint): bigint => (a + b) & MASK64;
const xxRound = (acc: bigint, input: bigint): bigint => mul64(rotl64(add64(acc, mul64(input, P2)), 31n), P1);

/** XXH64 (reference algorithm) with BigInt arithmetic. */
export function xxh64(input: Uint8Array, seed: bigint = 0n): bigint {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const len = input.length;
  const u64 = (i: number): bigint => view.getBigUint64(i, true);
  let i = 0;
  let h: bigint;
  seed = BigInt.asUintN(64, seed);
  if (len >= 32) {
    let v1 = add64(add64(seed, P1), P2);
    let v2 = add64(seed, P2);
    let v3 = seed;
    let v4 = (seed - P1) & MASK64;
    for (; i + 32 <= len; i += 32) {
      v1 = xxRound(v1, u64(i));
      v2 = xxRound(v2, u64(i + 8));
      v3 = xxRound(v3, u64(i + 16));
      v4 = xxRound(v4, u64(i + 24));
    }
    h = add64(add64(rotl64(v1, 1n), rotl64(v2, 7n)), add64(rotl64(v3, 12n), rotl64(v4, 18n)));
    for (const v of [v1, v2, v3, v4]) h = add64(mul64(h ^ xxRound(0n, v), P1), P4);
  } else {
    h = add64(seed, P5);
  }
  h = add64(h, BigInt(len));
  for (; i + 8 <= len; i += 8) h = add64(mul64(rotl64(h ^ xxRound(0n, u64(i)), 27n), P1), P4);
  if (i + 4 <= len) {
    h = add64(mul64(rotl64(h ^ mul64(BigInt(view.getUint32(i, true)), P1), 23n), P2), P3);
    i += 4;
  }
  for (; i < len; i++) h = mul64(rotl64(h ^ mul64(BigInt(input[i]), P5), 11n), P1);
  h ^= h >> 33n;
  h = mul64(h, P2);
  h ^= h >> 29n;
  h = mul64(h, P3);
  return h ^ (h >> 32n);
}

/** Reference for `fingerprintKeys`. */
export function fingerprintKeysReference(keys: readonly KeyColumn[], seed: bigint = 0n): BigUint64Array {
  const rows = keys[0]?.length ?? 0;
  const out = new BigUint64Array(rows);
  let buf = new Uint8Array(64);
  for (let r = 0; r < rows; r++) {
    let n = 0;
    const reserve = (k: number): void => {
      if (n + k <= buf.length) return;
      const next = new Uint8Array(Math.max(buf.length * 2, n + k));
      next.set(buf);
      buf = next;
    };
    for (const col of keys) {
      reserve(1);
      if (isNull(col, r)) {
        buf[n++] = 0;
        continue;
      }
      buf[n++] = 1;
      if (col.type === "bytes") {
        const v = keyValue(col, r) as Uint8Array;
        reserve(4 + v.length);
        new DataView(buf.buffer).setUint32(n, v.length, true);
        buf.set(v, n + 4);
        n += 4 + v.length;
      } else {
        const w = VALUE_WIDTH[col.type];
        reserve(w);
        const v = col.values!;
        const bytes = new Uint8Array(v.buffer, v.byteOffset + r * w, w);
        if (col.type === "bool") buf[n] = bytes[0] !== 0 ? 1 : 0;
        else buf.set(bytes, n);
        n += w;
      }
    }
    out[r] = xxh64(buf.subarray(0, n), seed);
  }
  return out;
}

/** Writes row `r` of `keys` as a BinaryRow (the bucket key row Java would build). */
export function writeKeyRow(writer: BinaryRowWriter, keys: readonly KeyColumn[], r: number): Uint8Array {
  writer.reset();
  keys.forEach((col, pos) => {
    const v = keyValue(col, r);
    switch (col.type) {
      case "timestamp_micros":
      case "timestamp_nanos": {
        const perMilli = col.type === "timestamp_micros" ? 1000n : 1000000n;
        if (v === null) return writer.writeTimestamp(pos, null, 9);
        const x = v as bigint;
        const millis = x / perMilli - (x % perMilli < 0n ? 1n : 0n);
        const rem = x - millis * perMilli;
        writer.writeTimestamp(pos, { millis, nanoOfMillisecond: Number(rem * (1000000n / perMilli)) }, 9);
        return;
      }
      case "decimal128":
        writer.writeDecimal(pos, v as bigint | null, 38);
        return;
    }
    if (v === null) return writer.setNullAt(pos);
    switch (col.type) {
      case "bool":
        return writer.writeBoolean(pos, v as boolean);
      case "int8":
        return writer.writeByte(pos, v as number);
      case "int16":
        return writer.writeShort(pos, v as number);
      case "int32":
        return writer.writeInt(pos, v as number);
      case "int64":
        return writer.writeLong(pos, v as bigint);
      case "float32":
        return writer.writeFloat(pos, v as number);
      case "float64":
        return writer.writeDouble(pos, v as number);
      case "bytes":
        return writer.writeBinary(pos, v as Uint8Array);
    }
  });
  return writer.bytes();
}

/** Reference for `assignBuckets`. */
export function assignBucketsReference(keys: readonly KeyColumn[], buckets: number): Int32Array {
  const rows = keys[0]?.length ?? 0;
  const out = new Int32Array(rows);
  const writer = new BinaryRowWriter(keys.length);
  for (let r = 0; r < rows; r++) {
    const h = hashBytesByWords(writeKeyRow(writer, keys, r));
    out[r] = buckets === 0 ? h : bucketOfHash(h, buckets);
  }
  return out;
}
