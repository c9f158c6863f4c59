// Writes ORC data files (`file.format=orc`, levels named orc in `file.format.per.level`) that
// Java Paimon reads: the type tree of Java's OrcTypeUtil (field ids in "paimon.id" attributes),
// stripes cut at `stripeSize` buffered column bytes or `stripeRowCount` rows (each encoded once
// full), a row index per stripe (ROW_INDEX streams: per row group of `rowIndexStride` rows each
// stream's start — runs end at group starts, so no value of a run precedes it — and the group's
// statistics, as orc-core's readers seek and prune), DIRECT_V2 encodings (integer RLE v2 direct
// runs, byte RLE literals, direct strings) and DICTIONARY_V2 strings by orc-core's rule (distinct
// / values ≤ 0.8, per stripe), PRESENT streams where a stripe's column has nulls, ORC's chunked
// compression (zstd, zlib, snappy; lz4 chunks stored uncompressed), row group, stripe and file
// statistics as orc-core 1.9 writes and merges them (value counts, hasNull; min/max/sum of
// integers, dates, floats, strings with its 1024-byte truncated bounds, binary byte sums; not
// yet: boolean counts, decimal and timestamp min/max), writer zone UTC, bloom filters per row
// group of the columns `orc.bloom.filter.columns` names, bit for bit as orc-core writes them
// (orc-bloom.ts). Write-only (not in query bundles).

import * as arrow from "apache-arrow";
import { makeData } from "apache-arrow";
import { PaimonError } from "../error.js";
import { type DataField, type DataType, toArrowType, typeToString } from "../spec/types.js";
import { loadFflate, loadedFflate } from "../spec/fflate.js";
import { loadZstd } from "../spec/zstd.js";
import snappy from "snappyjs";
import { convertData } from "./arrow-types.js";
import { ColumnStatsCollector, parseStatsMode, type StatsMode } from "./column-stats.js";
import type { ParquetColumnStats, ParquetWriteResult } from "./parquet-writer.js";
import { Kind } from "./orc-rle.js";
import { OrcBloomFilter } from "./orc-bloom.js";
import { toArrowSchema } from "../spec/types.js";

// ---------------------------------------------------------------------------------------------
// Byte sinks and protobuf
// ---------------------------------------------------------------------------------------------

export class Bytes {
  buf = new Uint8Array(256);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  uvar(v: number): void {
    while (v >= 128) {
      this.byte((v % 128) | 128);
      v = Math.floor(v / 128);
    }
    this.byte(v);
  }
  uvarBig(v: bigint): void {
    while (v >= 128n) {
      this.byte(Number(v & 127n) | 128);
      v >>= 7n;
    }
    this.byte(Number(v));
  }
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** A protobuf message: fields appended in order. */
class Message extends Bytes {
  varint(field: number, v: number): this {
    this.uvar(field * 8);
    this.uvar(v);
    return this;
  }
  message(field: number, m: Uint8Array): this {
    this.uvar(field * 8 + 2);
    this.uvar(m.length);
    this.bytes(m);
    return this;
  }
  string(field: number, s: string): this {
    return this.message(field, new TextEncoder().encode(s));
  }
  /** A sint64/sint32 (zigzag varint). */
  sint(field: number, v: bigint): this {
    this.uvar(field * 8);
    this.uvarBig(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
    return this;
  }
  double(field: number, v: number): this {
    this.uvar(field * 8 + 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    this.bytes(b);
    return this;
  }
}

// ---------------------------------------------------------------------------------------------
// Run-length encoders
// ---------------------------------------------------------------------------------------------

/**
 * Splits values [0, total) into runs of at most `max` values of which none crosses a row group
 * start (`starts`: value indices, ascending): `atStart` is called as each start is reached (before
 * the run beginning there), so a row index position is a run's first byte with no value consumed.
 */
function splitRuns(total: number, starts: readonly number[], max: number, run: (i: number, n: number) => void, atStart: () => void): void {
  let s = 0;
  for (let i = 0; i < total; ) {
    for (; s < starts.length && starts[s]! <= i; s++) atStart();
    const limit = s < starts.length ? Math.min(starts[s]!, total) : total;
    const n = Math.min(max, limit - i);
    run(i, n);
    i += n;
  }
  for (; s < starts.length; s++) atStart();
}

/** Byte RLE as literal groups of up to 128 bytes; per start in `starts` the offset of its group. */
export function byteRle(values: Uint8Array, out: Bytes, starts: readonly number[] = []): number[] {
  const offsets: number[] = [];
  splitRuns(
    values.length,
    starts,
    128,
    (i, n) => {
      out.byte(256 - n);
      out.bytes(values.subarray(i, i + n));
    },
    () => offsets.push(out.length),
  );
  return offsets;
}

/**
 * Boolean RLE: bits most significant first, then byte RLE; per start in `starts` (bit indices)
 * its position: the byte group holding it and the bits of that byte before it.
 */
export function boolRle(bits: Uint8Array, n: number, out: Bytes, starts: readonly number[] = []): Array<[number, number]> {
  const packed = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (bits[i]) packed[i >> 3]! |= 0x80 >> (i & 7);
  const offsets = byteRle(packed, out, starts.map((v) => v >> 3));
  return offsets.map((o, k) => [o, starts[k]! & 7]);
}

const DIRECT_WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64];

/** |values| up to which integers are kept as numbers: their zigzag (≤ 2^53 − 1) stays exact. */
const SAFE = 2 ** 52 - 1;

/**
 * Integers to encode: numbers in a growable Float64Array while every value is within ±SAFE
 * (no BigInt per value), bigints from the first value beyond.
 */
export class IntList {
  nums = new Float64Array(256);
  length = 0;
  big: bigint[] | null = null;
  push(v: number): void {
    if (this.big) this.big.push(BigInt(v));
    else if (v > SAFE || v < -SAFE) this.toBig().push(BigInt(v));
    else {
      if (this.length === this.nums.length) {
        const next = new Float64Array(this.length * 2);
        next.set(this.nums);
        this.nums = next;
      }
      this.nums[this.length++] = v;
    }
  }
  pushBig(v: bigint): void {
    if (!this.big && v <= SAFE_BIG && v >= -SAFE_BIG) this.push(Number(v));
    else this.toBig().push(v);
  }
  /** The values held. */
  get size(): number {
    return this.big ? this.big.length : this.length;
  }
  private toBig(): bigint[] {
    if (!this.big) this.big = Array.from(this.nums.subarray(0, this.length), (v) => BigInt(v));
    return this.big;
  }
  /** min, max and (when it fits a long, as orc-core keeps it) sum of values [from, to); null when empty. */
  stats(from = 0, to = this.size): IntStats | null {
    if (to <= from) return null;
    if (this.big) {
      let min = this.big[from]!;
      let max = min;
      let sum: bigint | null = 0n;
      for (let i = from; i < to; i++) {
        const v = this.big[i]!;
        if (v < min) min = v;
        if (v > max) max = v;
        // (orc-core: once the running sum overflows a long it stays unknown)
        if (sum !== null && (sum += v) !== BigInt.asIntN(64, sum)) sum = null;
      }
      return { min, max, sum };
    }
    const nums = this.nums;
    let min = nums[from]!;
    let max = min;
    // (a number sum while exact, then bigints)
    let sum = 0;
    let bigSum: bigint | null = null;
    let overflow = false;
    for (let i = from; i < to; i++) {
      const v = nums[i]!;
      if (v < min) min = v;
      if (v > max) max = v;
      if (overflow) continue;
      if (bigSum !== null) overflow = (bigSum += BigInt(v)) !== BigInt.asIntN(64, bigSum);
      else if ((sum += v) > SAFE || sum < -SAFE) bigSum = BigInt(sum);
    }
    return { min: BigInt(min), max: BigInt(max), sum: overflow ? null : (bigSum ?? BigInt(sum)) };
  }
}

/** IntegerStatistics: min, max, sum (null once it overflowed a long). */
interface IntStats {
  min: bigint;
  max: bigint;
  sum: bigint | null;
}

const SAFE_BIG = BigInt(SAFE);
const POW2 = Array.from({ length: 54 }, (_, i) => 2 ** i);

/**
 * Integer RLE v2 as DIRECT runs of up to 512 values (zigzag when signed), no run crossing a
 * start of `starts` (value indices); per start the offset of its run.
 */
export function intRleV2(list: IntList, signed: boolean, out: Bytes, starts: readonly number[] = []): number[] {
  const offsets: number[] = [];
  const mark = () => offsets.push(out.length);
  if (list.big) {
    const values = list.big;
    splitRuns(values.length, starts, 512, (i, n) => directRunBig(values, i, n, signed, out), mark);
    return offsets;
  }
  const values = list.nums;
  const run = new Float64Array(512);
  splitRuns(
    list.length,
    starts,
    512,
    (i, n) => {
      let max = 0;
      for (let k = 0; k < n; k++) {
        const v = values[i + k]!;
        const u = signed ? (v >= 0 ? 2 * v : -2 * v - 1) : v;
        run[k] = u;
        if (u > max) max = u;
      }
      let bits = 1;
      while (bits < 53 && max >= POW2[bits]!) bits++;
      const code = DIRECT_WIDTHS.findIndex((w) => w >= bits);
      const width = DIRECT_WIDTHS[code]!;
      out.byte(0x40 | (code << 1) | ((n - 1) >> 8));
      out.byte((n - 1) & 0xff);
      // bits most significant first; a value of more than 53 bits has zeros above
      let cur = 0;
      let free = 8;
      for (let k = 0; k < n; k++) {
        const u = run[k]!;
        let rem = width;
        while (rem > 0) {
          const take = rem < free ? rem : free;
          rem -= take;
          const chunk = rem >= 53 ? 0 : Math.floor(u / POW2[rem]!) % POW2[take]!;
          cur |= chunk << (free - take);
          free -= take;
          if (free === 0) {
            out.byte(cur);
            cur = 0;
            free = 8;
          }
        }
      }
      if (free < 8) out.byte(cur);
    },
    mark,
  );
  return offsets;
}

/** One DIRECT run of bigints `values[i, i + n)` (values beyond ±2^52). */
function directRunBig(values: readonly bigint[], i: number, n: number, signed: boolean, out: Bytes): void {
  const run: bigint[] = new Array(n);
  let max = 0n;
  for (let k = 0; k < n; k++) {
    const v = values[i + k]!;
    const u = signed ? BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)) : BigInt.asUintN(64, v);
    run[k] = u;
    if (u > max) max = u;
  }
  const bits = max === 0n ? 1 : max.toString(2).length;
  const code = DIRECT_WIDTHS.findIndex((w) => w >= bits);
  const width = DIRECT_WIDTHS[code]!;
  out.byte(0x40 | (code << 1) | ((n - 1) >> 8));
  out.byte((n - 1) & 0xff);
  let acc = 0n;
  let accBits = 0;
  for (const u of run) {
    acc = (acc << BigInt(width)) | u;
    accBits += width;
    while (accBits >= 8) {
      accBits -= 8;
      out.byte(Number((acc >> BigInt(accBits)) & 0xffn));
    }
    acc &= (1n << BigInt(accBits)) - 1n;
  }
  if (accBits > 0) out.byte(Number((acc << BigInt(8 - accBits)) & 0xffn));
}

// ---------------------------------------------------------------------------------------------
// Columns
// ---------------------------------------------------------------------------------------------


/** A column of the ORC type tree: its type message and its streams' encoder. */
interface Column {
  id: number;
  type: DataType;
  kind: number;
  children: Column[];
  /** paimon.id */
  fieldId: number;
  names: string[];
}

function columnsOf(type: DataType, fieldId: number, depth: number, all: Column[], names: string[] = []): Column {
  const c: Column = { id: all.length, type, kind: 0, children: [], fieldId, names };
  all.push(c);
  const ARRAY_ELEMENT = (id: number, d: number) => 536870911 + 4096 * id + d; // SpecialFields.getArrayElementFieldId
  switch (type.kind) {
    case "BOOLEAN":
      c.kind = Kind.BOOLEAN;
      break;
    case "TINYINT":
      c.kind = Kind.BYTE;
      break;
    case "SMALLINT":
      c.kind = Kind.SHORT;
      break;
    case "INT":
    case "TIME":
      c.kind = Kind.INT;
      break;
    case "BIGINT":
      c.kind = Kind.LONG;
      break;
    case "FLOAT":
      c.kind = Kind.FLOAT;
      break;
    case "DOUBLE":
      c.kind = Kind.DOUBLE;
      break;
    case "CHAR":
      c.kind = Kind.CHAR;
      break;
    case "VARCHAR":
      c.kind = type.length === 2147483647 ? Kind.STRING : Kind.VARCHAR;
      break;
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      c.kind = Kind.BINARY;
      break;
    case "DECIMAL":
      c.kind = Kind.DECIMAL;
      break;
    case "DATE":
      c.kind = Kind.DATE;
      break;
    case "TIMESTAMP":
      c.kind = Kind.TIMESTAMP;
      break;
    case "TIMESTAMP_LTZ":
      c.kind = Kind.TIMESTAMP_INSTANT;
      break;
    case "ARRAY":
      c.kind = Kind.LIST;
      c.children.push(columnsOf(type.element, ARRAY_ELEMENT(fieldId, depth + 1), depth + 1, all));
      break;
    case "MAP":
    case "MULTISET": {
      c.kind = Kind.MAP;
      const key = type.kind === "MAP" ? type.key : type.element;
      const value: DataType = type.kind === "MAP" ? type.value : { kind: "INT", nullable: false };
      c.children.push(columnsOf(key, 536870911 + 4096 * fieldId + depth + 1 - 2048, depth + 1, all));
      c.children.push(columnsOf(value, 536870911 + 4096 * fieldId + depth + 1 - 1024, depth + 1, all));
      break;
    }
    case "ROW":
      c.kind = Kind.STRUCT;
      for (const f of type.fields) c.children.push(columnsOf(f.type, f.id, 0, all));
      c.names.push(...type.fields.map((f) => f.name));
      break;
    default:
      throw new PaimonError("UNSUPPORTED", `ORC data files cannot hold ${typeToString(type)}`);
  }
  return c;
}

/**
 * A column's ColumnStatistics as orc-core 1.9 keeps them for a row group, a stripe or the file
 * (value count, hasNull; integer, double and string parts; the byte sum of strings and binary).
 * Stripes merge their row groups' and the file its stripes', as orc-core does (its sums and NaN
 * handling follow from that order).
 */
interface ColStats {
  values: number;
  hasNull: boolean;
  int: IntStats | null;
  /** DoubleStatistics (`dblHas`: a first value seen; later ones compared by < and >, as orc-core). */
  dblHas: boolean;
  dblMin: number;
  dblMax: number;
  dblSum: number;
  /** StringStatistics: the least and greatest value's UTF-8 bytes. */
  strMin: Uint8Array | null;
  strMax: Uint8Array | null;
  /** Total bytes (StringStatistics, BinaryStatistics sum). */
  byteSum: number;
}

function newStats(): ColStats {
  return { values: 0, hasNull: false, int: null, dblHas: false, dblMin: NaN, dblMax: NaN, dblSum: 0, strMin: null, strMax: null, byteSum: 0 };
}

/** Merges `other` into `into` (orc-core's ColumnStatisticsImpl.merge of each part). */
function mergeStats(into: ColStats, other: ColStats): void {
  into.values += other.values;
  into.hasNull ||= other.hasNull;
  if (other.int) {
    if (!into.int) into.int = { ...other.int };
    else {
      if (other.int.min < into.int.min) into.int.min = other.int.min;
      if (other.int.max > into.int.max) into.int.max = other.int.max;
      const sum = into.int.sum === null || other.int.sum === null ? null : into.int.sum + other.int.sum;
      into.int.sum = sum !== null && sum === BigInt.asIntN(64, sum) ? sum : null;
    }
  }
  if (!into.dblHas) {
    if (other.dblHas) [into.dblHas, into.dblMin, into.dblMax] = [true, other.dblMin, other.dblMax];
  } else if (other.dblHas) {
    if (other.dblMin < into.dblMin) into.dblMin = other.dblMin;
    if (other.dblMax > into.dblMax) into.dblMax = other.dblMax;
  }
  into.dblSum += other.dblSum;
  if (other.strMin && (!into.strMin || compareBytes(other.strMin, 0, other.strMin.length, into.strMin) < 0)) into.strMin = other.strMin;
  if (other.strMax && (!into.strMax || compareBytes(other.strMax, 0, other.strMax.length, into.strMax) > 0)) into.strMax = other.strMax;
  into.byteSum += other.byteSum;
}

/** What a column's streams hold so far (over the stripe's rows): encoded when the stripe is. */
interface Acc {
  present: number[];
  /** Nulls in the stripe (a PRESENT stream). */
  hasNull: boolean;
  bools: number[];
  data: Bytes;
  ints: IntList;
  lengths: IntList;
  secondary: IntList;
  /** The open row group's statistics (its integer part is taken from `ints` when it closes). */
  group: ColStats;
  /** Entries of the DICTIONARY_V2 encoding streamsOf chose (-1: none). */
  dictionarySize: number;
  /** The open row group's bloom filter (null: the column has none). */
  bloom: OrcBloomFilter | null;
  /** Per closed row group its BloomFilter message's fields: hash functions and bits. */
  blooms: Array<{ functions: number; bits: Uint8Array }>;
}

function newAcc(): Acc {
  return { present: [], hasNull: false, bools: [], data: new Bytes(), ints: new IntList(), lengths: new IntList(), secondary: new IntList(), group: newStats(), dictionarySize: -1, bloom: null, blooms: [] };
}

/** Where a row group starts in each of a column's lists (value indices; `data`: bytes). */
interface Mark {
  present: number;
  bools: number;
  data: number;
  ints: number;
  lengths: number;
  secondary: number;
}

function markOf(acc: Acc): Mark {
  return { present: acc.present.length, bools: acc.bools.length, data: acc.data.length, ints: acc.ints.size, lengths: acc.lengths.size, secondary: acc.secondary.size };
}

/** Unsigned byte order of `bytes[s, e)` against `other` (orc-core's Text order). */
function compareBytes(bytes: Uint8Array, s: number, e: number, other: Uint8Array): number {
  const n = Math.min(e - s, other.length);
  for (let i = 0; i < n; i++) {
    const d = bytes[s + i]! - other[i]!;
    if (d !== 0) return d;
  }
  return e - s - other.length;
}

/** orc-core's StringStatisticsImpl.MAX_BYTES_RECORDED: longer min/max are kept as truncated bounds. */
const MAX_STRING_STATS = 1024;

/** The longest prefix of `b` of at most `MAX_STRING_STATS` bytes ending at a UTF-8 character boundary. */
function truncatedUtf8(b: Uint8Array): Uint8Array {
  let end = MAX_STRING_STATS;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end);
}

/**
 * A StringStatistics message of `acc` (orc-core 1.9's): minimum/maximum, or for values longer
 * than 1024 bytes lowerBound (a prefix) / upperBound (a prefix with its last character
 * incremented); sum: the total byte length.
 */
function stringStatistics(acc: ColStats): Uint8Array {
  const m = new Message();
  if (acc.strMin && acc.strMax) {
    const decoder = new TextDecoder();
    let upper: string | null = null;
    if (acc.strMax.length > MAX_STRING_STATS) {
      const prefix = Array.from(decoder.decode(truncatedUtf8(acc.strMax)));
      let last = prefix.pop()!.codePointAt(0)! + 1;
      if (last === 0xd800) last = 0xe000;
      upper = last > 0x10ffff ? null : prefix.join("") + String.fromCodePoint(last);
    }
    // (no upper bound exists above U+10FFFF…: then no bounds at all)
    if (acc.strMax.length <= MAX_STRING_STATS || upper !== null) {
      if (acc.strMin.length > MAX_STRING_STATS) m.string(4, decoder.decode(truncatedUtf8(acc.strMin)));
      else m.string(1, decoder.decode(acc.strMin));
      if (upper !== null) m.string(5, upper);
      else m.string(2, decoder.decode(acc.strMax));
    }
  }
  m.sint(3, BigInt(acc.byteSum));
  return m.view();
}

/** The ColumnStatistics message of a column (orc-core 1.9's fields for its kind). */
function columnStatistics(c: Column, acc: ColStats): Uint8Array {
  const m = new Message().varint(1, acc.values);
  switch (c.kind) {
    case Kind.BYTE:
    case Kind.SHORT:
    case Kind.INT:
    case Kind.LONG: {
      const st = acc.int;
      if (st) {
        const sub = new Message().sint(1, st.min).sint(2, st.max);
        // (orc-core leaves the sum out once it overflows a long)
        if (st.sum !== null) sub.sint(3, st.sum);
        m.message(2, sub.view());
      }
      break;
    }
    case Kind.DATE: {
      const st = acc.int;
      if (st) m.message(7, new Message().sint(1, st.min).sint(2, st.max).view());
      break;
    }
    case Kind.FLOAT:
    case Kind.DOUBLE:
      if (acc.dblHas) m.message(3, new Message().double(1, acc.dblMin).double(2, acc.dblMax).double(3, acc.dblSum).view());
      break;
    case Kind.STRING:
    case Kind.VARCHAR:
    case Kind.CHAR:
      m.message(4, stringStatistics(acc));
      break;
    case Kind.BINARY:
      m.message(8, new Message().sint(1, BigInt(acc.byteSum)).view());
      break;
  }
  return m.varint(10, acc.hasNull ? 1 : 0).view();
}

const EPOCH_2015 = 1420070400n;

/**
 * The millis orc-core's TimestampTreeWriter adds to a bloom filter for a timestamp of `millis`
 * (exact) and `nanos` nanoseconds of its second: the seconds of the millis truncated toward zero
 * plus the nanos' millis, a second less when that is negative and nanos ≥ 1 ms (as orc-core; the
 * writer zone is UTC, so its UTC millis are these).
 */
function orcTimestampBloomMillis(millis: bigint, nanos: number): bigint {
  let m = (millis / 1000n) * 1000n + BigInt(Math.trunc(nanos / 1000000));
  if (m < 0n && nanos > 999999) m -= 1000n;
  return m;
}

/** HiveDecimal's string of unscaled `v` at `scale` (orc-core's DecimalTreeWriter adds it to bloom filters): trailing fraction zeros dropped. */
export function hiveDecimalString(v: bigint, scale: number): string {
  while (scale > 0 && v % 10n === 0n) {
    v /= 10n;
    scale--;
  }
  const digits = (v < 0n ? -v : v).toString().padStart(scale + 1, "0");
  const text = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return v < 0n ? `-${text}` : text;
}

/** Adds the values of column `c` at `rows` of `data` (the slots its parent holds values for). */
function writeColumn(c: Column, data: arrow.Data, rows: Int32Array, accs: Acc[]): void {
  const acc = accs[c.id]!;
  const group = acc.group;
  const valid: number[] = [];
  for (let j = 0; j < rows.length; j++) {
    const r = rows[j]!;
    const bit = r + data.offset;
    const isValid = data.nullCount === 0 || !data.nullBitmap || ((data.nullBitmap[bit >> 3]! >> (bit & 7)) & 1) === 1;
    acc.present.push(isValid ? 1 : 0);
    if (isValid) valid.push(r);
    else acc.hasNull = group.hasNull = true;
  }
  group.values += valid.length;
  // (Arrow JS slices value buffers and offsets with the data, not the validity or boolean bits:
  // row r's value is at r, its bits at r + offset; a struct's children are sliced with it, a
  // list's child is indexed by the offsets)
  const values = data.values as ArrayLike<number | bigint>;
  const at = (r: number) => r;
  switch (c.kind) {
    case Kind.BOOLEAN:
      for (const r of valid) acc.bools.push(((data.values as Uint8Array)[(r + data.offset) >> 3]! >> ((r + data.offset) & 7)) & 1);
      return;
    case Kind.BYTE:
      for (const r of valid) {
        const v = Number(values[at(r)]);
        acc.data.byte(v & 0xff);
        acc.ints.push(v); // (statistics only)
        acc.bloom?.addSafeInteger(v);
      }
      return;
    case Kind.SHORT:
    case Kind.INT:
    case Kind.LONG:
    case Kind.DATE:
      if (c.kind === Kind.LONG) {
        // int64 words: a number where the high word keeps the value within ±2^52, else a bigint
        const words = new Int32Array((values as BigInt64Array).buffer, (values as BigInt64Array).byteOffset, values.length * 2);
        for (const r of valid) {
          const hi = words[2 * r + 1]!;
          if (hi >= -0x80000 && hi < 0x80000) acc.ints.push(hi * 4294967296 + (words[2 * r]! >>> 0));
          else acc.ints.pushBig((values as BigInt64Array)[r]!);
          acc.bloom?.addLongWords(hi, words[2 * r]!);
        }
      } else
        for (const r of valid) {
          acc.ints.push(values[at(r)] as number);
          acc.bloom?.addSafeInteger(values[at(r)] as number);
        }
      return;
    case Kind.FLOAT:
    case Kind.DOUBLE: {
      const size = c.kind === Kind.FLOAT ? 4 : 8;
      const out = new Uint8Array(valid.length * size);
      const view = new DataView(out.buffer);
      valid.forEach((r, k) => {
        const v = Number(values[at(r)]);
        if (size === 4) view.setFloat32(k * 4, v, true);
        else view.setFloat64(k * 8, v, true);
        // (orc-core: the first value sets both; later ones by < and >, so NaN only when first)
        if (!group.dblHas) [group.dblHas, group.dblMin, group.dblMax] = [true, v, v];
        else if (v < group.dblMin) group.dblMin = v;
        else if (v > group.dblMax) group.dblMax = v;
        group.dblSum += v;
        // (orc-core: a float widened to double)
        acc.bloom?.addDouble(v);
      });
      acc.data.bytes(out);
      return;
    }
    case Kind.STRING:
    case Kind.VARCHAR:
    case Kind.CHAR:
    case Kind.BINARY: {
      const o = data.valueOffsets as Int32Array;
      const bytes = data.values as Uint8Array;
      for (const r of valid) {
        const s = o[at(r)]!;
        const e = o[at(r) + 1]!;
        acc.data.bytes(bytes.subarray(s, e));
        acc.lengths.push(e - s);
        group.byteSum += e - s;
        acc.bloom?.addBytes(bytes.subarray(s, e));
        if (c.kind === Kind.BINARY) continue;
        if (!group.strMin || compareBytes(bytes, s, e, group.strMin) < 0) group.strMin = bytes.slice(s, e);
        if (!group.strMax || compareBytes(bytes, s, e, group.strMax) > 0) group.strMax = bytes.slice(s, e);
      }
      return;
    }
    case Kind.DECIMAL: {
      const words = data.values as Uint32Array;
      const scale = BigInt((c.type as { scale: number }).scale);
      for (const r of valid) {
        let v = 0n;
        for (let w = 3; w >= 0; w--) v = (v << 32n) | BigInt(words[4 * at(r) + w]!);
        v = BigInt.asIntN(128, v);
        acc.data.uvarBig(v < 0n ? (-v << 1n) - 1n : v << 1n);
        acc.secondary.pushBig(scale);
        acc.bloom?.addBytes(new TextEncoder().encode(hiveDecimalString(v, Number(scale))));
      }
      return;
    }
    case Kind.TIMESTAMP:
    case Kind.TIMESTAMP_INSTANT: {
      const precision = (c.type as { precision: number }).precision;
      const perSecond = precision === 0 ? 1n : precision <= 3 ? 1000n : precision <= 6 ? 1000000n : 1000000000n;
      for (const r of valid) {
        const v = BigInt(values[at(r)]!);
        const floorSeconds = v / perSecond - (v % perSecond < 0n ? 1n : 0n);
        const ns = Number((v - floorSeconds * perSecond) * (1000000000n / perSecond));
        // as Java's ORC writer: the seconds of the millisecond time truncated toward zero
        const millis = floorSeconds * 1000n + BigInt(Math.floor(ns / 1000000));
        acc.ints.pushBig(millis / 1000n - EPOCH_2015);
        acc.bloom?.addLong(orcTimestampBloomMillis(millis, ns));
        let code = 0;
        if (ns !== 0) {
          if (ns % 100 !== 0) code = ns * 8;
          else {
            let m = ns / 100;
            let zeros = 1;
            while (m % 10 === 0 && zeros < 7) {
              m /= 10;
              zeros++;
            }
            code = m * 8 + zeros;
          }
        }
        acc.secondary.push(code);
      }
      return;
    }
    case Kind.LIST:
    case Kind.MAP: {
      const o = data.valueOffsets as Int32Array;
      const childRows: number[] = [];
      for (const r of valid) {
        const s = o[at(r)]!;
        const e = o[at(r) + 1]!;
        acc.lengths.push(e - s);
        acc.bloom?.addSafeInteger(e - s);
        for (let k = s; k < e; k++) childRows.push(k);
      }
      const child = data.children[0]!;
      if (c.kind === Kind.LIST) writeColumn(c.children[0]!, child, Int32Array.from(childRows), accs);
      else {
        // (map entries: a struct without nulls)
        const entries = Int32Array.from(childRows);
        writeColumn(c.children[0]!, child.children[0]!, entries, accs);
        writeColumn(c.children[1]!, child.children[1]!, entries, accs);
      }
      return;
    }
    case Kind.STRUCT: {
      const rowsOf = Int32Array.from(valid);
      c.children.forEach((child, i) => writeColumn(child, data.children[i]!, rowsOf, accs));
      return;
    }
  }
}

/** orc-core's `orc.dictionary.key.threshold` default: dictionary strings when distinct / values ≤ 0.8. */
const DICTIONARY_KEY_THRESHOLD = 0.8;

/**
 * A string column's DICTIONARY_V2 streams when orc-core would pick them (distinct values / values
 * ≤ the threshold; orc-core decides on the stripe's values, as here, one stripe): the distinct
 * values sorted by bytes (orc-core's red-black tree order), their lengths and bytes, per value its
 * entry's index. Null when the column stays DIRECT_V2.
 */
function dictionaryOf(acc: Acc): { size: number; ids: IntList; lengths: IntList; bytes: Uint8Array } | null {
  const n = acc.lengths.length;
  if (n === 0 || acc.lengths.big) return null;
  const data = acc.data.view();
  const lengths = acc.lengths.nums;
  // distinct values by their bytes (latin1 keys: one string per value, no UTF-8 decoding)
  const latin1 = new TextDecoder("latin1");
  const first = new Map<string, number>();
  const entryOf = new Int32Array(n);
  const starts: number[] = [];
  const ends: number[] = [];
  const limit = Math.floor(n * DICTIONARY_KEY_THRESHOLD);
  for (let i = 0, at = 0; i < n; i++) {
    const end = at + lengths[i]!;
    const key = latin1.decode(data.subarray(at, end));
    let e = first.get(key);
    if (e === undefined) {
      if (starts.length >= limit) return null;
      e = starts.length;
      first.set(key, e);
      starts.push(at);
      ends.push(end);
    }
    entryOf[i] = e;
    at = end;
  }
  const order = Array.from(starts.keys()).sort((a, b) => compareBytes(data, starts[a]!, ends[a]!, data.subarray(starts[b]!, ends[b]!)));
  const rank = new Int32Array(order.length);
  const dictLengths = new IntList();
  const bytes = new Bytes();
  order.forEach((e, r) => {
    rank[e] = r;
    dictLengths.push(ends[e]! - starts[e]!);
    bytes.bytes(data.subarray(starts[e]!, ends[e]!));
  });
  const ids = new IntList();
  for (let i = 0; i < n; i++) ids.push(rank[entryOf[i]!]!);
  return { size: order.length, ids, lengths: dictLengths, bytes: bytes.view() };
}

/**
 * A stream of a column: its kind and bytes and, per row group of the row index, where the group
 * starts in it: the uncompressed byte offset (`at`; null: a stream the index does not position,
 * dictionary entries) and the positions after it (`extra`: RLE values consumed, bits of a byte).
 */
interface StreamOut {
  kind: number;
  raw: Uint8Array;
  at: number[] | null;
  extra: number[][];
}

/** The streams of a column in ORC's order (which is also the order of its row index positions), row groups starting at `marks`. */
function streamsOf(c: Column, acc: Acc, marks: readonly Mark[]): StreamOut[] {
  const out: StreamOut[] = [];
  const starts = (k: keyof Mark) => marks.map((m) => m[k]);
  const rle = (kind: number, f: (b: Bytes) => number[]) => {
    const b = new Bytes();
    const at = f(b);
    out.push({ kind, raw: b.view(), at, extra: at.map(() => [0]) });
  };
  const bits = (kind: number, values: number[], from: number[]) => {
    const b = new Bytes();
    const positions = boolRle(Uint8Array.from(values), values.length, b, from);
    out.push({ kind, raw: b.view(), at: positions.map((p) => p[0]), extra: positions.map((p) => [0, p[1]]) });
  };
  const raw = (kind: number, bytes: Uint8Array, at: number[] | null) => out.push({ kind, raw: bytes, at, extra: at ? at.map(() => []) : [] });
  const unpositioned = (kind: number, f: (b: Bytes) => void) => {
    const b = new Bytes();
    f(b);
    raw(kind, b.view(), null);
  };
  if (acc.hasNull) bits(0, acc.present, starts("present"));
  switch (c.kind) {
    case Kind.BOOLEAN:
      bits(1, acc.bools, starts("bools"));
      break;
    case Kind.BYTE:
      rle(1, (b) => byteRle(acc.data.view(), b, starts("data")));
      break;
    case Kind.SHORT:
    case Kind.INT:
    case Kind.LONG:
    case Kind.DATE:
      rle(1, (b) => intRleV2(acc.ints, true, b, starts("ints")));
      break;
    case Kind.FLOAT:
    case Kind.DOUBLE:
      raw(1, acc.data.view(), starts("data"));
      break;
    case Kind.STRING:
    case Kind.VARCHAR:
    case Kind.CHAR: {
      const dict = dictionaryOf(acc);
      if (dict) {
        acc.dictionarySize = dict.size;
        rle(1, (b) => intRleV2(dict.ids, false, b, starts("lengths")));
        unpositioned(2, (b) => intRleV2(dict.lengths, false, b));
        raw(3, dict.bytes, null);
      } else {
        raw(1, acc.data.view(), starts("data"));
        rle(2, (b) => intRleV2(acc.lengths, false, b, starts("lengths")));
      }
      break;
    }
    case Kind.BINARY:
      raw(1, acc.data.view(), starts("data"));
      rle(2, (b) => intRleV2(acc.lengths, false, b, starts("lengths")));
      break;
    case Kind.DECIMAL:
      raw(1, acc.data.view(), starts("data"));
      rle(5, (b) => intRleV2(acc.secondary, true, b, starts("secondary")));
      break;
    case Kind.TIMESTAMP:
    case Kind.TIMESTAMP_INSTANT:
      rle(1, (b) => intRleV2(acc.ints, true, b, starts("ints")));
      rle(5, (b) => intRleV2(acc.secondary, false, b, starts("secondary")));
      break;
    case Kind.LIST:
    case Kind.MAP:
      rle(2, (b) => intRleV2(acc.lengths, false, b, starts("lengths")));
      break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Compression
// ---------------------------------------------------------------------------------------------

/** orc-core's `orc.compress.size` default: bytes per compression chunk. */
const DEFAULT_CHUNK = 256 * 1024;
const CODES: Record<string, number> = { none: 0, zlib: 1, snappy: 2, lz4: 4, zstd: 5 };

/** ORC's compression kind of Paimon's `file.compression` (UNSUPPORTED for others). */
export function orcCompressionOf(compression: string | undefined): string {
  const c = (compression ?? "zstd").trim().toLowerCase();
  const name = c === "uncompressed" ? "none" : c === "gzip" || c === "deflate" ? "zlib" : c;
  if (!(name in CODES)) throw new PaimonError("UNSUPPORTED", `file.compression '${compression}' for ORC data files (zstd, zlib, snappy, lz4, none)`);
  return name;
}

type Compress = (chunk: Uint8Array) => Uint8Array | null;

async function compressorOf(name: string, zstdLevel: number): Promise<Compress | null> {
  switch (name) {
    case "none":
      return null;
    case "zlib":
      await loadFflate();
      return (chunk) => loadedFflate().deflateSync(chunk);
    case "snappy":
      return (chunk) => new Uint8Array(snappy.compress(chunk));
    case "zstd": {
      const z = await loadZstd();
      return (chunk) => (z ? z.compress(chunk, zstdLevel) : null);
    }
    default:
      return () => null; // lz4: chunks stored as they are (valid ORC: the "original" flag)
  }
}

/** A stream as stored: ORC's compression chunks of `chunk` uncompressed bytes, and where each chunk starts in the stored bytes. */
interface Framed {
  bytes: Uint8Array;
  chunkStarts: number[];
}

function frame(data: Uint8Array, compress: Compress | null, chunkSize: number): Framed {
  if (!compress) return { bytes: data, chunkStarts: [] };
  const out = new Bytes();
  const chunkStarts: number[] = [];
  for (let i = 0; i < data.length; i += chunkSize) {
    chunkStarts.push(out.length);
    const chunk = data.subarray(i, Math.min(data.length, i + chunkSize));
    const packed = compress(chunk);
    const original = !packed || packed.length >= chunk.length;
    const body = original ? chunk : packed;
    const header = body.length * 2 + (original ? 1 : 0);
    out.byte(header & 0xff);
    out.byte((header >> 8) & 0xff);
    out.byte((header >> 16) & 0xff);
    out.bytes(body);
  }
  return { bytes: out.view().slice(), chunkStarts };
}

/** A row index position of uncompressed offset `at` of a stream: [offset] uncompressed, else [chunk start, offset in the chunk]. */
function streamPosition(framed: Framed, at: number, compressed: boolean, chunkSize: number): number[] {
  if (!compressed) return [at];
  const chunk = Math.floor(at / chunkSize);
  return [framed.chunkStarts[chunk] ?? framed.bytes.length, at - chunk * chunkSize];
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

export interface OrcDataWriteOptions {
  /** `file.compression` (orcCompressionOf). */
  compression?: string;
  zstdLevel?: number;
  statsMode?: string | StatsMode;
  /** Per column name: a stats mode other than the file's (Java's ORC stats factories take the key columns' modes as Parquet's). */
  fieldStatsModes?: Readonly<Record<string, string | StatsMode>>;
  /** Column bytes buffered (Arrow bytes) at which a stripe is written: Java's `orc.stripe.size` / `file.block-size` (default 64 MiB). */
  stripeSize?: number;
  /** Rows at which a stripe is written: `orc.stripe.row.count` (default: no limit). */
  stripeRowCount?: number;
  /** Rows per row group of the row index: `orc.row.index.stride` (default 10000; 0: no row index, as `orc.create.index=false`). */
  rowIndexStride?: number;
  /** Uncompressed bytes per compression chunk: `orc.compress.size` (default 256 KiB). */
  compressionChunkSize?: number;
  /**
   * `orc.bloom.filter.columns`: comma-separated column names (case-insensitive, `a.b` for a
   * struct's field; a column names its nested columns too; `*` every column) whose row groups get
   * bloom filters, as orc-core resolves them; names of no column are ignored, as orc-core does.
   * None without a row index.
   */
  bloomFilterColumns?: string;
  /** `orc.bloom.filter.fpp`: the bloom filters' false positive probability, in (0, 1) (default 0.01). */
  bloomFilterFpp?: number;
  /** `orc.bloom.filter.write.version`: `utf8` (default: BLOOM_FILTER_UTF8 streams) or `original` (BLOOM_FILTER streams too). */
  bloomFilterVersion?: "utf8" | "original";
}

/** orc-core's `orc.bloom.filter.fpp` default. */
export const DEFAULT_ORC_BLOOM_FILTER_FPP = 0.01;

/**
 * The ORC column ids of `names` (orc-core's OrcUtils.includeColumns over the type tree rooted at
 * `root`, ids in preorder): each name's column and its nested columns; `*` all.
 */
function bloomFilterColumnIds(root: Column, all: readonly Column[], names: string): Set<number> {
  const ids = new Set<number>();
  const lastId = (c: Column): number => (c.children.length === 0 ? c.id : lastId(c.children.at(-1)!));
  if (names === "*") {
    for (const c of all) ids.add(c.id);
    return ids;
  }
  for (const name of names.split(",")) {
    let c: Column | null = root;
    // (orc-core's findColumn: path parts through structs, names case-insensitive; parts past a non-struct are ignored)
    for (const part of name.trim().split(".")) {
      if (c.kind !== Kind.STRUCT) break;
      const i: number = c.names.findIndex((n) => n.toLowerCase() === part.toLowerCase());
      if (i < 0) {
        c = null;
        break;
      }
      c = c.children[i]!;
    }
    if (c) for (let id = c.id; id <= lastId(c); id++) ids.add(id);
  }
  return ids;
}

/** orc-core's `orc.stripe.size` default. */
export const DEFAULT_ORC_STRIPE_SIZE = 64 * 1024 * 1024;
/** orc-core's `orc.row.index.stride` default. */
export const DEFAULT_ORC_ROW_INDEX_STRIDE = 10000;
/** orc-core's least row index stride. */
export const MIN_ORC_ROW_INDEX_STRIDE = 1000;
/** The largest compression chunk ORC's 3-byte chunk header holds. */
export const MAX_ORC_CHUNK = (1 << 23) - 1;

/** Integer kinds and dates: their IntegerStatistics / DateStatistics come from the values list. */
const INT_STATS_KINDS = new Set<number>([Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG, Kind.DATE]);

/** Column data of written batches not yet in a stripe. */
interface Pending {
  columns: arrow.Data[];
  rows: number;
  bytes: number;
}

/**
 * Writes one ORC data file from batches, with statistics, as `AvroFileWriter` does (same
 * interface): rows are buffered until a stripe is full (`stripeSize` column bytes or
 * `stripeRowCount` rows), then encoded into the file's bytes with its row index; `finish()`
 * writes the last stripe and the file's tail.
 */
export class OrcFileWriter {
  readonly schema: arrow.Schema;
  private readonly collectors: ColumnStatsCollector[];
  private readonly modes: StatsMode[];
  private readonly columns: Column[] = [];
  private readonly root: Column;
  private pending: Pending[] = [];
  private pendingRows = 0;
  private pendingBytes = 0;
  private rows = 0;
  private bytes = 0;
  private finished = false;
  private readonly compression: string;
  private readonly stripeSize: number;
  private readonly stripeRowCount: number;
  private readonly stride: number;
  private readonly chunkSize: number;
  /** The compressor once loaded (null: none; undefined: loading). */
  private compress: Compress | null | undefined = undefined;
  private readonly compressorLoaded: Promise<unknown>;
  /** The file so far: magic, stripes. */
  private readonly file = new Bytes();
  private readonly stripes: Uint8Array[] = [];
  private readonly stripeStatistics: Uint8Array[] = [];
  private readonly fileStats: ColStats[];
  /** ORC column ids with bloom filters (none without a row index). */
  private readonly bloomColumns: Set<number>;
  private readonly bloomFpp: number;

  constructor(
    readonly fields: readonly DataField[],
    private readonly options: OrcDataWriteOptions = {},
  ) {
    if (fields.length === 0) throw new PaimonError("INVALID_ARGUMENT", "An ORC data file needs at least one column");
    this.schema = toArrowSchema(fields);
    this.compression = orcCompressionOf(options.compression);
    const positive = (v: number | undefined, fallback: number, what: string, min = 1, max = Number.MAX_SAFE_INTEGER) => {
      if (v === undefined) return fallback;
      if (!Number.isSafeInteger(v) || v < min || v > max) throw new PaimonError("INVALID_ARGUMENT", `ORC ${what} must be an integer in [${min}, ${max}], got ${v}`);
      return v;
    };
    this.stripeSize = positive(options.stripeSize, DEFAULT_ORC_STRIPE_SIZE, "stripe size");
    this.stripeRowCount = positive(options.stripeRowCount, Number.MAX_SAFE_INTEGER, "stripe row count");
    this.stride = positive(options.rowIndexStride, DEFAULT_ORC_ROW_INDEX_STRIDE, "row index stride", 0);
    // (orc-core's WriterImpl: "Row stride must be at least 1000")
    if (this.stride > 0 && this.stride < MIN_ORC_ROW_INDEX_STRIDE) throw new PaimonError("INVALID_ARGUMENT", `ORC row index stride must be 0 (no index) or at least ${MIN_ORC_ROW_INDEX_STRIDE}, as orc-core requires; got ${this.stride}`);
    this.chunkSize = positive(options.compressionChunkSize, DEFAULT_CHUNK, "compression chunk size", 1, MAX_ORC_CHUNK);
    this.collectors = fields.map((f) => new ColumnStatsCollector(f.type));
    const fileMode = parseStatsMode(options.statsMode);
    this.modes = fields.map((f) => {
      const m = options.fieldStatsModes?.[f.name];
      return m === undefined ? fileMode : parseStatsMode(m);
    });
    // (refuses types ORC cannot hold now)
    this.root = columnsOf({ kind: "ROW", nullable: false, fields: [...fields] }, 0, 0, this.columns);
    this.fileStats = this.columns.map(() => newStats());
    const fpp = options.bloomFilterFpp ?? DEFAULT_ORC_BLOOM_FILTER_FPP;
    if (!(fpp > 0 && fpp < 1)) throw new PaimonError("INVALID_ARGUMENT", `ORC bloom filter false positive probability (orc.bloom.filter.fpp) must be > 0.0 and < 1.0, got ${fpp}`);
    if (options.bloomFilterVersion !== undefined && options.bloomFilterVersion !== "utf8" && options.bloomFilterVersion !== "original") throw new PaimonError("INVALID_ARGUMENT", `ORC bloom filter version (orc.bloom.filter.write.version) must be utf8 or original, got '${options.bloomFilterVersion}'`);
    this.bloomFpp = fpp;
    // (orc-core writes bloom filters only with a row index)
    this.bloomColumns = this.stride > 0 && options.bloomFilterColumns ? bloomFilterColumnIds(this.root, this.columns, options.bloomFilterColumns) : new Set();
    this.compressorLoaded = compressorOf(this.compression, options.zstdLevel ?? 1).then((c) => (this.compress = c));
    this.compressorLoaded.catch(() => {}); // (finish() reports a failed load)
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Bytes of the columns written (Arrow bytes; the rolling writers' file size estimate). */
  get bufferedBytes(): number {
    return this.bytes;
  }

  /** Stripes written so far. */
  get stripeCount(): number {
    return this.stripes.length;
  }

  write(data: arrow.RecordBatch): void {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "OrcFileWriter already finished");
    if (data.numRows === 0) return;
    let bytes = 0;
    const columns = this.fields.map((f, i) => {
      const idx = data.schema.fields.findIndex((x) => x.name === f.name);
      if (idx < 0) throw new PaimonError("INVALID_ARGUMENT", `Input data has no column '${f.name}'`);
      let col = convertData(data.data.children[idx]!, toArrowType(f.type), f.name);
      // Java's ORC writer pads CHAR(n) values with spaces (its statistics hold them padded)
      if (f.type.kind === "CHAR") col = padChars(col, f.type.length);
      if (!f.type.nullable && col.nullCount > 0) throw new PaimonError("INVALID_ARGUMENT", `Column '${f.name}' is NOT NULL but has ${col.nullCount} null values`);
      return col;
    });
    columns.forEach((col, i) => {
      this.collectors[i]!.update(col);
      bytes += col.byteLength;
    });
    this.bytes += bytes;
    this.pending.push({ columns, rows: data.numRows, bytes });
    this.rows += data.numRows;
    this.pendingRows += data.numRows;
    this.pendingBytes += bytes;
    // (stripes are encoded once the compressor has loaded; until then they wait for finish)
    if (this.compress !== undefined) this.writeFullStripes(false);
  }

  /** Encodes the pending rows into stripes while a stripe's worth is pending (all of them when `all`). */
  private writeFullStripes(all: boolean): void {
    while (this.pendingRows > 0 && (all || this.pendingBytes >= this.stripeSize || this.pendingRows >= this.stripeRowCount)) {
      const parts: arrow.Data[][] = [];
      let rows = 0;
      let bytes = 0;
      while (this.pending.length > 0 && rows < this.stripeRowCount && bytes < this.stripeSize) {
        const p = this.pending[0]!;
        const perRow = p.bytes / p.rows;
        let take = Math.min(p.rows, this.stripeRowCount - rows);
        if (perRow > 0) take = Math.max(1, Math.min(take, Math.ceil((this.stripeSize - bytes) / perRow)));
        if (take === p.rows) {
          parts.push(p.columns);
          this.pending.shift();
        } else {
          parts.push(p.columns.map((d) => d.slice(0, take)));
          p.columns = p.columns.map((d) => d.slice(take, d.length - take));
          p.rows -= take;
          p.bytes -= take * perRow;
        }
        rows += take;
        bytes += take * perRow;
      }
      this.pendingRows -= rows;
      this.pendingBytes = this.pending.length === 0 ? 0 : this.pendingBytes - bytes;
      this.writeStripe(parts, rows);
    }
  }

  /** Encodes `rows` rows (`parts`: column data per batch) as the next stripe: row index, data streams, footer. */
  private writeStripe(parts: readonly arrow.Data[][], rows: number): void {
    const all = this.columns;
    const accs = all.map(() => newAcc());
    const indexed = this.stride > 0 && rows > 0;
    if (indexed) for (const id of this.bloomColumns) accs[id]!.bloom = OrcBloomFilter.forEntries(this.stride, this.bloomFpp);
    const groupRows = indexed ? this.stride : Infinity;
    // per column: where each row group starts in its lists, the row groups' statistics
    const marks: Mark[][] = all.map(() => []);
    const groupStats: Uint8Array[][] = all.map(() => []);
    const stripeStats = all.map(() => newStats());
    const openGroup = () => all.forEach((c) => marks[c.id]!.push(markOf(accs[c.id]!)));
    const closeGroup = (n: number) => {
      accs[0]!.group.values = n;
      for (const c of all) {
        const acc = accs[c.id]!;
        const mark = marks[c.id]!.at(-1)!;
        if (INT_STATS_KINDS.has(c.kind)) acc.group.int = acc.ints.stats(mark.ints);
        if (indexed) groupStats[c.id]!.push(columnStatistics(c, acc.group));
        if (acc.bloom) {
          acc.blooms.push({ functions: acc.bloom.numHashFunctions, bits: acc.bloom.utf8Bitset() });
          acc.bloom.reset();
        }
        mergeStats(stripeStats[c.id]!, acc.group);
        acc.group = newStats();
      }
    };
    let inGroup = 0;
    let done = 0;
    if (rows > 0) openGroup();
    for (const columns of parts) {
      const n = columns[0]!.length;
      for (let at = 0; at < n; ) {
        const k = Math.min(n - at, groupRows - inGroup);
        const slots = Int32Array.from({ length: k }, (_, r) => at + r);
        columns.forEach((data, i) => writeColumn(this.root.children[i]!, data, slots, accs));
        at += k;
        inGroup += k;
        done += k;
        if (inGroup === groupRows) {
          closeGroup(inGroup);
          inGroup = 0;
          if (done < rows) openGroup();
        }
      }
    }
    if (inGroup > 0) closeGroup(inGroup);
    const compressed = this.compress !== null;
    const compress = this.compress ?? null;
    const streams = all.map((c) => streamsOf(c, accs[c.id]!, indexed ? marks[c.id]! : []).map((s) => ({ ...s, framed: frame(s.raw, compress, this.chunkSize) })));
    const file = this.file;
    if (file.length === 0) file.bytes(new TextEncoder().encode("ORC"));
    const stripeOffset = file.length;
    const stripeFooter = new Message();
    if (indexed) {
      // ROW_INDEX streams: per row group the start of each stream (as ORC's readers seek) and the group's statistics
      for (const c of all) {
        const index = new Message();
        groupStats[c.id]!.forEach((stats, g) => {
          const positions = new Bytes();
          for (const s of streams[c.id]!) {
            if (!s.at) continue;
            for (const v of streamPosition(s.framed, s.at[g]!, compressed, this.chunkSize)) positions.uvar(v);
            for (const v of s.extra[g]!) positions.uvar(v);
          }
          const entry = new Message();
          if (positions.length > 0) entry.message(1, positions.view());
          index.message(1, entry.message(2, stats).view());
        });
        const bytes = frame(index.view(), compress, this.chunkSize).bytes;
        file.bytes(bytes);
        stripeFooter.message(1, new Message().varint(1, 6).varint(2, c.id).varint(3, bytes.length).view());
        // BLOOM_FILTER (original version only) and BLOOM_FILTER_UTF8 streams: per row group a BloomFilter message
        const blooms = accs[c.id]!.blooms;
        if (blooms.length === 0) continue;
        for (const kind of this.options.bloomFilterVersion === "original" ? [7, 8] : [8]) {
          const bloomIndex = new Message();
          for (const b of blooms) {
            const entry = new Message().varint(1, b.functions);
            if (kind === 8) entry.message(3, b.bits);
            // (repeated fixed64, not packed: orc_proto.proto is proto2)
            else for (let w = 0; w < b.bits.length; w += 8) {
              entry.uvar((2 << 3) | 1);
              entry.bytes(b.bits.subarray(w, w + 8));
            }
            bloomIndex.message(1, entry.view());
          }
          const framed = frame(bloomIndex.view(), compress, this.chunkSize).bytes;
          file.bytes(framed);
          stripeFooter.message(1, new Message().varint(1, kind).varint(2, c.id).varint(3, framed.length).view());
        }
      }
    }
    const indexLength = file.length - stripeOffset;
    for (const c of all) {
      for (const s of streams[c.id]!) {
        file.bytes(s.framed.bytes);
        stripeFooter.message(1, new Message().varint(1, s.kind).varint(2, c.id).varint(3, s.framed.bytes.length).view());
      }
    }
    const dataLength = file.length - stripeOffset - indexLength;
    for (const c of all) {
      const dictionarySize = accs[c.id]!.dictionarySize;
      const encoding = new Message();
      if (dictionarySize >= 0) encoding.varint(1, 3).varint(2, dictionarySize);
      else encoding.varint(1, c.kind === Kind.STRUCT || c.kind === Kind.FLOAT || c.kind === Kind.DOUBLE || c.kind === Kind.BOOLEAN || c.kind === Kind.BYTE ? 0 : 2);
      // (bloomEncoding UTF8_UTC: a column with bloom filters)
      if (accs[c.id]!.bloom) encoding.varint(3, 1);
      stripeFooter.message(2, encoding.view());
    }
    stripeFooter.string(3, "UTC");
    const stripeFooterBytes = frame(stripeFooter.view(), compress, this.chunkSize).bytes;
    file.bytes(stripeFooterBytes);
    this.stripes.push(new Message().varint(1, stripeOffset).varint(2, indexLength).varint(3, dataLength).varint(4, stripeFooterBytes.length).varint(5, rows).view().slice());
    const stats = new Message();
    for (const c of all) {
      stats.message(1, columnStatistics(c, stripeStats[c.id]!));
      mergeStats(this.fileStats[c.id]!, stripeStats[c.id]!);
    }
    this.stripeStatistics.push(stats.view().slice());
  }

  async finish(): Promise<ParquetWriteResult> {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "OrcFileWriter already finished");
    this.finished = true;
    await this.compressorLoaded;
    this.writeFullStripes(true);
    // (a file without rows: one empty stripe, as before)
    if (this.stripes.length === 0) this.writeStripe([], 0);
    const compress = this.compress ?? null;
    const file = this.file;
    const all = this.columns;
    // metadata: per stripe its statistics
    const metadataMessage = new Message();
    for (const s of this.stripeStatistics) metadataMessage.message(1, s);
    const metadata = frame(metadataMessage.view(), compress, this.chunkSize).bytes;
    const contentLength = file.length;
    file.bytes(metadata);
    const footer = new Message().varint(1, 3).varint(2, contentLength);
    for (const s of this.stripes) footer.message(3, s);
    for (const c of all) {
      const t = new Message().varint(1, c.kind);
      if (c.children.length > 0) {
        const sub = new Bytes();
        for (const ch of c.children) sub.uvar(ch.id);
        t.message(2, sub.view());
      }
      for (const name of c.names) t.string(3, name);
      if (c.kind === Kind.VARCHAR || c.kind === Kind.CHAR) t.varint(4, (c.type as { length: number }).length);
      if (c.kind === Kind.DECIMAL) t.varint(5, (c.type as { precision: number }).precision).varint(6, (c.type as { scale: number }).scale);
      if (c.id !== 0) t.message(7, new Message().string(1, "paimon.id").string(2, String(c.fieldId)).view());
      footer.message(4, t.view());
    }
    footer.varint(6, this.rows);
    for (const c of all) footer.message(7, columnStatistics(c, this.fileStats[c.id]!));
    footer.varint(8, this.stride);
    const footerBytes = frame(footer.view(), compress, this.chunkSize).bytes;
    file.bytes(footerBytes);
    const ps = new Message().varint(1, footerBytes.length).varint(2, CODES[this.compression]!).varint(3, this.chunkSize);
    const version = new Bytes();
    version.uvar(0);
    version.uvar(12);
    ps.message(4, version.view()).varint(5, metadata.length).varint(6, 9).string(8000, "ORC");
    file.bytes(ps.view());
    file.byte(ps.length);
    const bytes = file.view().slice();
    const stats: ParquetColumnStats[] = this.fields.map((f, i) => ({ name: f.name, fieldId: f.id, ...this.collectors[i]!.result(this.modes[i]!) }));
    return { bytes, fileSize: bytes.length, rowCount: this.rows, stats };
  }
}

/** A Utf8 column with each value padded with spaces to `length` characters (ORC's CHAR). */
function padChars(data: arrow.Data, length: number): arrow.Data {
  const o = data.valueOffsets as Int32Array;
  const src = data.values as Uint8Array;
  const out = new Bytes();
  const offsets = new Int32Array(data.length + 1);
  for (let i = 0; i < data.length; i++) {
    const s = o[i]!; // (offsets are sliced with the data)
    const e = o[i + 1]!;
    out.bytes(src.subarray(s, e));
    let chars = 0;
    for (let k = s; k < e; k++) if ((src[k]! & 0xc0) !== 0x80) chars++;
    for (; chars < length; chars++) out.byte(0x20);
    offsets[i + 1] = out.length;
  }
  return makeData({ type: data.type as arrow.Utf8, length: data.length, nullCount: data.nullCount, nullBitmap: data.nullBitmap ? copyBitmap(data) : undefined, valueOffsets: offsets, data: out.view().slice() });
}

/** The validity bits of `data` from its offset on. */
function copyBitmap(data: arrow.Data): Uint8Array {
  const bits = new Uint8Array((data.length + 7) >> 3);
  for (let i = 0; i < data.length; i++) {
    const b = data.offset + i;
    if ((data.nullBitmap![b >> 3]! >> (b & 7)) & 1) bits[i >> 3]! |= 1 << (i & 7);
  }
  return bits;
}
