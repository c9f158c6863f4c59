// Per-column statistics (min, max, null count) computed over Arrow data in TypeScript while a
// data file is written — the values Paimon stores in DataFileMeta `_VALUE_STATS` (format
// reference §4.4). Typed-array loops only; no per-row objects.
//
// Semantics (Java `ParquetSimpleStatsExtractor` + `SimpleColStatsCollector`):
// * Values are in the representation `spec/binary-row.ts` `toBinaryRow` accepts: TINYINT,
//   SMALLINT, INT, DATE, TIME -> number; BIGINT -> bigint; FLOAT/DOUBLE -> number; BOOLEAN ->
//   boolean; CHAR/VARCHAR -> string; DECIMAL -> bigint (unscaled); TIMESTAMP(_LTZ) ->
//   { millis: bigint, nanoOfMillisecond }.
// * BINARY/VARBINARY/BLOB and complex types (ARRAY, MAP, MULTISET, ROW): min/max null (Java's
//   Parquet stats extractor reports none), null count of the top-level value.
// * FLOAT/DOUBLE: a NaN anywhere makes min/max null (parquet-mr drops NaN stats); a zero min is
//   reported as -0.0 and a zero max as +0.0 (Parquet spec rule), so bounds stay valid either way.
// * Modes: "none" (all null), "counts" (null count only), "full", "truncate(n)" (default 16):
//   strings truncated to n code points; max rounded up by incrementing the last code point that
//   can be incremented; when none can, min and max are both null.

import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import type { DataType } from "../spec/types.js";
import { utf8Decoder } from "../spec/utf8.js";

export type StatsMode = { kind: "none" } | { kind: "counts" } | { kind: "full" } | { kind: "truncate"; length: number };

export interface ColumnStats {
  min: unknown;
  max: unknown;
  /** Null count; null = unknown. */
  nullCount: number | null;
}

export const DEFAULT_STATS_MODE: StatsMode = { kind: "truncate", length: 16 };

/** Parses Paimon's `metadata.stats-mode` value: none | counts | full | truncate(n). */
export function parseStatsMode(mode: string | StatsMode | undefined): StatsMode {
  if (mode === undefined) return DEFAULT_STATS_MODE;
  if (typeof mode !== "string") return mode;
  const s = mode.trim().toLowerCase();
  if (s === "none") return { kind: "none" };
  if (s === "counts") return { kind: "counts" };
  if (s === "full") return { kind: "full" };
  const m = /^truncate\((\d+)\)$/.exec(s);
  if (m && Number(m[1]) > 0) return { kind: "truncate", length: Number(m[1]) };
  throw new PaimonError("INVALID_ARGUMENT", `Invalid stats mode '${mode}' (expected none, counts, full or truncate(n))`);
}

function isValid(bm: Uint8Array | null | undefined, offset: number, i: number): boolean {
  if (!bm || bm.length === 0) return true;
  const j = offset + i;
  return (bm[j >> 3]! & (1 << (j & 7))) !== 0;
}

/** Unsigned lexicographic comparison of a[as, ae) and b[bs, be) (Parquet's order for binary bounds). */
export function compareBytes(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): number {
  const la = ae - as;
  const lb = be - bs;
  const n = la < lb ? la : lb;
  for (let k = 0; k < n; k++) {
    const d = a[as + k]! - b[bs + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

/**
 * Bytes [s, s + 4) of bytes[.., e) as a big-endian unsigned word, zero-padded past `e`: the first
 * and second words of two values compare as the values' first 8 bytes do, which settles most
 * comparisons of a min/max scan without `compareBytes`.
 */
export function prefixWord(bytes: Uint8Array, s: number, e: number): number {
  if (e - s >= 4) return ((bytes[s]! << 24) | (bytes[s + 1]! << 16) | (bytes[s + 2]! << 8) | bytes[s + 3]!) >>> 0;
  let w = 0;
  for (let k = 0; k < 4; k++) w = (w << 8) | (s + k < e ? bytes[s + k]! : 0);
  return w >>> 0;
}

type Kind = "int" | "long" | "float" | "bool" | "string" | "decimal" | "timestamp" | "none";

function kindOf(type: DataType): Kind {
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return "int";
    case "BIGINT":
      return "long";
    case "FLOAT":
    case "DOUBLE":
      return "float";
    case "BOOLEAN":
      return "bool";
    case "CHAR":
    case "VARCHAR":
      return "string";
    case "DECIMAL":
      return "decimal";
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return "timestamp";
    default:
      return "none";
  }
}

/** Accumulates stats of one top-level column over several Arrow Data chunks. */
export class ColumnStatsCollector {
  readonly kind: Kind;
  nullCount = 0;
  private hasValue = false;
  private minN = 0;
  private maxN = 0;
  private minB = 0n;
  private maxB = 0n;
  private minBytes: Uint8Array | null = null;
  private maxBytes: Uint8Array | null = null;
  private hasNaN = false;
  private seenTrue = false;
  private seenFalse = false;
  /** Timestamp unit factor to nanoseconds of the data (set from the Arrow type). */
  private tsUnitNanos = 1000n;

  constructor(readonly type: DataType) {
    this.kind = kindOf(type);
  }

  update(data: arrow.Data): void {
    const n = data.length;
    const nulls = data.nullCount;
    this.nullCount += nulls;
    if (nulls === n) return;
    const bm = nulls > 0 ? data.nullBitmap : undefined;
    const off = data.offset;
    switch (this.kind) {
      case "int":
        return this.updateInt(data.values as unknown as Int32Array, n, bm, off);
      case "long":
        return this.updateLong(data.values as unknown as BigInt64Array, n, bm, off);
      case "timestamp": {
        this.tsUnitNanos = unitNanos(data.type as arrow.Timestamp);
        return this.updateLong(data.values as unknown as BigInt64Array, n, bm, off);
      }
      case "float":
        return this.updateFloat(data.values as unknown as Float64Array, n, bm, off);
      case "bool":
        return this.updateBool(data, n, bm, off);
      case "string":
        return this.updateBytes(data.valueOffsets as Int32Array, data.values as Uint8Array, n, bm, off);
      case "decimal":
        return this.updateDecimal(data.values as unknown as Uint32Array, n, bm, off);
      default:
        return;
    }
  }

  /**
   * Adds a column's statistics computed elsewhere over its non-null values (the flat Parquet
   * encoder's, parquet-encode.ts): `nulls` null values, bounds as PLAIN Parquet bytes of the
   * column's physical type (`arrowType` the written Arrow type: FLOAT or DOUBLE width, timestamp
   * unit), absent when no non-null, non-NaN value; `nan` when a non-null value is NaN. The same
   * result as `update` over the same data, without a pass over the values.
   */
  addPlainBounds(arrowType: arrow.DataType, nulls: number, min: Uint8Array | undefined, max: Uint8Array | undefined, nan: boolean): void {
    this.nullCount += nulls;
    if (nan) this.hasNaN = true;
    if (!min || !max) return;
    const view = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
    switch (this.kind) {
      case "int": {
        const lo = view(min).getInt32(0, true);
        const hi = view(max).getInt32(0, true);
        if (!this.hasValue || lo < this.minN) this.minN = lo;
        if (!this.hasValue || hi > this.maxN) this.maxN = hi;
        break;
      }
      case "timestamp":
      case "long": {
        if (this.kind === "timestamp") this.tsUnitNanos = unitNanos(arrowType as arrow.Timestamp);
        const lo = view(min).getBigInt64(0, true);
        const hi = view(max).getBigInt64(0, true);
        if (!this.hasValue || lo < this.minB) this.minB = lo;
        if (!this.hasValue || hi > this.maxB) this.maxB = hi;
        break;
      }
      case "float": {
        const lo = min.length === 4 ? view(min).getFloat32(0, true) : view(min).getFloat64(0, true);
        const hi = max.length === 4 ? view(max).getFloat32(0, true) : view(max).getFloat64(0, true);
        if (!this.hasValue || lo < this.minN) this.minN = lo;
        if (!this.hasValue || hi > this.maxN) this.maxN = hi;
        break;
      }
      case "bool":
        // min true: every value is true; max false: every value is false
        if (min[0] === 0) this.seenFalse = true;
        if (max[0] === 1) this.seenTrue = true;
        break;
      case "string":
        if (!this.minBytes || compareBytes(min, 0, min.length, this.minBytes, 0, this.minBytes.length) < 0) this.minBytes = min;
        if (!this.maxBytes || compareBytes(max, 0, max.length, this.maxBytes, 0, this.maxBytes.length) > 0) this.maxBytes = max;
        break;
      default:
        return;
    }
    this.hasValue = true;
  }

  private updateInt(v: ArrayLike<number>, n: number, bm: Uint8Array | undefined, off: number): void {
    let min = this.hasValue ? this.minN : Infinity;
    let max = this.hasValue ? this.maxN : -Infinity;
    if (!bm) {
      for (let i = 0; i < n; i++) {
        const x = v[i]!;
        if (x < min) min = x;
        if (x > max) max = x;
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (!isValid(bm, off, i)) continue;
        const x = v[i]!;
        if (x < min) min = x;
        if (x > max) max = x;
      }
    }
    this.minN = min;
    this.maxN = max;
    this.hasValue = true;
  }

  private updateLong(v: BigInt64Array, n: number, bm: Uint8Array | undefined, off: number): void {
    // Compare (high int32, low uint32) word pairs: reading BigInt64Array elements would
    // allocate a BigInt per row. Little-endian: the low word comes first.
    const words = new Int32Array(v.buffer, v.byteOffset, n * 2);
    let minIdx = -1;
    let maxIdx = -1;
    let minHi = 0;
    let minLo = 0;
    let maxHi = 0;
    let maxLo = 0;
    for (let i = 0; i < n; i++) {
      if (bm && !isValid(bm, off, i)) continue;
      const hi = words[2 * i + 1]!;
      const lo = words[2 * i]! >>> 0;
      if (minIdx < 0) {
        minIdx = maxIdx = i;
        minHi = maxHi = hi;
        minLo = maxLo = lo;
        continue;
      }
      if (hi < minHi || (hi === minHi && lo < minLo)) {
        minIdx = i;
        minHi = hi;
        minLo = lo;
      } else if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
        maxIdx = i;
        maxHi = hi;
        maxLo = lo;
      }
    }
    if (minIdx < 0) return;
    const min = v[minIdx]!;
    const max = v[maxIdx]!;
    if (!this.hasValue || min < this.minB) this.minB = min;
    if (!this.hasValue || max > this.maxB) this.maxB = max;
    this.hasValue = true;
  }

  private updateFloat(v: Float64Array | Float32Array, n: number, bm: Uint8Array | undefined, off: number): void {
    let min = this.hasValue ? this.minN : Infinity;
    let max = this.hasValue ? this.maxN : -Infinity;
    let nan = false;
    let any = this.hasValue;
    for (let i = 0; i < n; i++) {
      if (bm && !isValid(bm, off, i)) continue;
      const x = v[i]!;
      if (x !== x) {
        nan = true;
        continue;
      }
      any = true;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    if (nan) this.hasNaN = true;
    if (any) {
      this.minN = min;
      this.maxN = max;
      this.hasValue = true;
    }
  }

  private updateBool(data: arrow.Data, n: number, bm: Uint8Array | undefined, off: number): void {
    const bits = data.values as Uint8Array;
    for (let i = 0; i < n && !(this.seenTrue && this.seenFalse); i++) {
      if (bm && !isValid(bm, off, i)) continue;
      const j = off + i;
      if (bits[j >> 3]! & (1 << (j & 7))) this.seenTrue = true;
      else this.seenFalse = true;
    }
    this.hasValue = this.seenTrue || this.seenFalse;
  }

  private updateBytes(offsets: Int32Array, bytes: Uint8Array, n: number, bm: Uint8Array | undefined, off: number): void {
    let minI = -1;
    let maxI = -1;
    // The first 8 bytes of the current extremes as big-endian words, zero-padded: a value whose
    // padded prefix lies strictly between them is neither, without a full comparison (a
    // greater padded prefix means a greater string, a smaller one a smaller string).
    let minHi = 0;
    let minLo = 0;
    let maxHi = 0;
    let maxLo = 0;
    for (let i = 0; i < n; i++) {
      if (bm && !isValid(bm, off, i)) continue;
      const s = offsets[i]!;
      const e = offsets[i + 1]!;
      const hi = prefixWord(bytes, s, e);
      const lo = prefixWord(bytes, s + 4, e);
      if (minI < 0) {
        minI = maxI = i;
        minHi = maxHi = hi;
        minLo = maxLo = lo;
        continue;
      }
      if ((hi > minHi || (hi === minHi && lo > minLo)) && (hi < maxHi || (hi === maxHi && lo < maxLo))) continue;
      if (compareBytes(bytes, s, e, bytes, offsets[minI]!, offsets[minI + 1]!) < 0) {
        minI = i;
        minHi = hi;
        minLo = lo;
      } else if (compareBytes(bytes, s, e, bytes, offsets[maxI]!, offsets[maxI + 1]!) > 0) {
        maxI = i;
        maxHi = hi;
        maxLo = lo;
      }
    }
    if (minI < 0) return;
    const ms = offsets[minI]!;
    const me = offsets[minI + 1]!;
    if (!this.minBytes || compareBytes(bytes, ms, me, this.minBytes, 0, this.minBytes.length) < 0) this.minBytes = bytes.slice(ms, me);
    const xs = offsets[maxI]!;
    const xe = offsets[maxI + 1]!;
    if (!this.maxBytes || compareBytes(bytes, xs, xe, this.maxBytes, 0, this.maxBytes.length) > 0) this.maxBytes = bytes.slice(xs, xe);
    this.hasValue = true;
  }

  /**
   * DECIMAL(p <= 9) is written as Parquet INT32, the unscaled value's low 32 bits (Java's
   * `(int) unscaledLong`; an aggregation sum may exceed p digits): its bounds are those ints.
   */
  private updateInt32Decimal(words: Int32Array, n: number, bm: Uint8Array | undefined, off: number): void {
    let min = 0;
    let max = 0;
    let any = false;
    for (let i = 0; i < n; i++) {
      if (bm && !isValid(bm, off, i)) continue;
      const v = words[i * 4]!;
      if (!any) {
        min = max = v;
        any = true;
      } else if (v < min) min = v;
      else if (v > max) max = v;
    }
    if (!any) return;
    if (!this.hasValue || BigInt(min) < this.minB) this.minB = BigInt(min);
    if (!this.hasValue || BigInt(max) > this.maxB) this.maxB = BigInt(max);
    this.hasValue = true;
  }

  private updateDecimal(words: Uint32Array, n: number, bm: Uint8Array | undefined, off: number): void {
    const hi = new Int32Array(words.buffer, words.byteOffset, words.length);
    if (this.type.kind === "DECIMAL" && this.type.precision <= 9) return this.updateInt32Decimal(hi, n, bm, off);
    const cmp = (a: number, b: number): number => {
      const ha = hi[a * 4 + 3]!;
      const hb = hi[b * 4 + 3]!;
      if (ha !== hb) return ha < hb ? -1 : 1;
      for (let k = 2; k >= 0; k--) {
        const wa = words[a * 4 + k]!;
        const wb = words[b * 4 + k]!;
        if (wa !== wb) return wa < wb ? -1 : 1;
      }
      return 0;
    };
    let minI = -1;
    let maxI = -1;
    for (let i = 0; i < n; i++) {
      if (bm && !isValid(bm, off, i)) continue;
      if (minI < 0) {
        minI = maxI = i;
        continue;
      }
      if (cmp(i, minI) < 0) minI = i;
      else if (cmp(i, maxI) > 0) maxI = i;
    }
    if (minI < 0) return;
    const toBig = (i: number): bigint => {
      let v = 0n;
      for (let k = 3; k >= 0; k--) v = (v << 32n) | BigInt(words[i * 4 + k]!);
      return BigInt.asIntN(128, v);
    };
    const min = toBig(minI);
    const max = toBig(maxI);
    if (!this.hasValue || min < this.minB) this.minB = min;
    if (!this.hasValue || max > this.maxB) this.maxB = max;
    this.hasValue = true;
  }

  /** The column's statistics under `mode`. */
  result(mode: StatsMode = DEFAULT_STATS_MODE): ColumnStats {
    if (mode.kind === "none") return { min: null, max: null, nullCount: null };
    const nullCount = this.nullCount;
    if (mode.kind === "counts" || !this.hasValue) return { min: null, max: null, nullCount };
    switch (this.kind) {
      case "int":
        return { min: this.minN, max: this.maxN, nullCount };
      case "long":
        return { min: this.minB, max: this.maxB, nullCount };
      case "timestamp":
        return { min: toTimestamp(this.minB, this.tsUnitNanos), max: toTimestamp(this.maxB, this.tsUnitNanos), nullCount };
      case "float": {
        if (this.hasNaN) return { min: null, max: null, nullCount };
        const min = this.minN === 0 ? -0 : this.minN;
        const max = this.maxN === 0 ? 0 : this.maxN;
        return { min, max, nullCount };
      }
      case "bool":
        return { min: !this.seenFalse, max: this.seenTrue, nullCount };
      case "decimal":
        return { min: this.minB, max: this.maxB, nullCount };
      case "string": {
        const min = utf8Decoder.decode(this.minBytes!);
        const max = utf8Decoder.decode(this.maxBytes!);
        if (mode.kind === "full") return { min, max, nullCount };
        const tMax = truncateMax(max, mode.length);
        if (tMax === null) return { min: null, max: null, nullCount };
        return { min: truncateMin(min, mode.length), max: tMax, nullCount };
      }
      default:
        return { min: null, max: null, nullCount };
    }
  }
}

/** Nanoseconds per unit of an Arrow timestamp type. */
function unitNanos(type: arrow.Timestamp): bigint {
  const unit = type.unit;
  return unit === 0 ? 1000000000n : unit === 1 ? 1000000n : unit === 2 ? 1000n : 1n;
}

function toTimestamp(v: bigint, unitNanos: bigint): { millis: bigint; nanoOfMillisecond: number } {
  const nanos = v * unitNanos; // exact in bigint
  let millis = nanos / 1000000n;
  let rem = nanos % 1000000n;
  if (rem < 0n) {
    millis -= 1n;
    rem += 1000000n;
  }
  return { millis, nanoOfMillisecond: Number(rem) };
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/** Java `BinaryString.substring(0, n)`: the first `n` code points. */
export function truncateMin(s: string, n: number): string {
  const cps = codePoints(s);
  return cps.length <= n ? s : String.fromCodePoint(...cps.slice(0, n));
}

/**
 * Iceberg/Paimon `truncateMax`: the first `n` code points with the last incrementable code point
 * incremented (an upper bound of every string with that prefix); null when none can be.
 * Increments that would land on a surrogate skip to U+E000 so the bound stays encodable.
 */
export function truncateMax(s: string, n: number): string | null {
  const cps = codePoints(s);
  if (cps.length <= n) return s;
  for (let i = n - 1; i >= 0; i--) {
    let next = cps[i]! + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return String.fromCodePoint(...cps.slice(0, i), next);
  }
  return null;
}
