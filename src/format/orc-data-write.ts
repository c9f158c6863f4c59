// Writes ORC data files (`file.format=orc`, levels named orc in `file.format.per.level`) that
// Java Paimon reads: the type tree of Java's OrcTypeUtil (field ids in "paimon.id" attributes),
// one stripe per file, DIRECT_V2 encodings (integer RLE v2 direct runs, byte RLE literals, direct
// strings) and DICTIONARY_V2 strings by orc-core's rule (distinct / values ≤ 0.8), PRESENT streams where a column has nulls, ORC's chunked compression (zstd, zlib,
// snappy; lz4 chunks stored uncompressed), file and stripe statistics as orc-core 1.9 writes them
// (value counts, hasNull; min/max/sum of integers, dates, floats, strings with its 1024-byte
// truncated bounds, binary byte sums; not yet: boolean counts, decimal and timestamp min/max),
// writer zone UTC.
// Write-only (not in query bundles).

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
import { toArrowSchema } from "../spec/types.js";

// ---------------------------------------------------------------------------------------------
// Byte sinks and protobuf
// ---------------------------------------------------------------------------------------------

class Bytes {
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

/** Byte RLE as literal groups of up to 128 bytes. */
function byteRle(values: Uint8Array, out: Bytes): void {
  for (let i = 0; i < values.length; i += 128) {
    const n = Math.min(128, values.length - i);
    out.byte(256 - n);
    out.bytes(values.subarray(i, i + n));
  }
}

/** Boolean RLE: bits most significant first, then byte RLE. */
function boolRle(bits: Uint8Array, n: number, out: Bytes): void {
  const packed = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (bits[i]) packed[i >> 3]! |= 0x80 >> (i & 7);
  byteRle(packed, out);
}

const DIRECT_WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64];

/** |values| up to which integers are kept as numbers: their zigzag (≤ 2^53 − 1) stays exact. */
const SAFE = 2 ** 52 - 1;

/**
 * Integers to encode: numbers in a growable Float64Array while every value is within ±SAFE
 * (no BigInt per value), bigints from the first value beyond.
 */
class IntList {
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
  private toBig(): bigint[] {
    if (!this.big) this.big = Array.from(this.nums.subarray(0, this.length), (v) => BigInt(v));
    return this.big;
  }
  /** min, max and (when it fits a long, as orc-core keeps it) sum; null when empty. */
  stats(): { min: bigint; max: bigint; sum: bigint | null } | null {
    if (this.big) {
      if (this.big.length === 0) return null;
      let min = this.big[0]!;
      let max = min;
      let sum: bigint | null = 0n;
      for (const v of this.big) {
        if (v < min) min = v;
        if (v > max) max = v;
        // (orc-core: once the running sum overflows a long it stays unknown)
        if (sum !== null && (sum += v) !== BigInt.asIntN(64, sum)) sum = null;
      }
      return { min, max, sum };
    }
    if (this.length === 0) return null;
    const nums = this.nums;
    let min = nums[0]!;
    let max = min;
    // (a number sum while exact, then bigints)
    let sum = 0;
    let bigSum: bigint | null = null;
    let overflow = false;
    for (let i = 0; i < this.length; i++) {
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

const SAFE_BIG = BigInt(SAFE);
const POW2 = Array.from({ length: 54 }, (_, i) => 2 ** i);

/** Integer RLE v2 as DIRECT runs of up to 512 values (zigzag when signed). */
function intRleV2(list: IntList, signed: boolean, out: Bytes): void {
  if (list.big) return intRleV2Big(list.big, signed, out);
  const values = list.nums;
  const run = new Float64Array(512);
  for (let i = 0; i < list.length; i += 512) {
    const n = Math.min(512, list.length - i);
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
  }
}

/** `intRleV2` of bigints (values beyond ±2^52). */
function intRleV2Big(values: readonly bigint[], signed: boolean, out: Bytes): void {
  for (let i = 0; i < values.length; i += 512) {
    const n = Math.min(512, values.length - i);
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

/** What a column's streams hold so far (over every batch): encoded at finish. */
interface Acc {
  present: number[];
  hasNull: boolean;
  values: number;
  bools: number[];
  data: Bytes;
  ints: IntList;
  lengths: IntList;
  secondary: IntList;
  /** DoubleStatistics (NaN min: none yet, as orc-core compares). */
  dblMin: number;
  dblMax: number;
  dblSum: number;
  /** StringStatistics: the least and greatest value's UTF-8 bytes; `byteSum`: total bytes (StringStatistics, BinaryStatistics sum). */
  strMin: Uint8Array | null;
  strMax: Uint8Array | null;
  byteSum: number;
  /** Entries of the DICTIONARY_V2 encoding streamsOf chose (-1: none). */
  dictionarySize: number;
}

function newAcc(): Acc {
  return { present: [], hasNull: false, values: 0, bools: [], data: new Bytes(), ints: new IntList(), lengths: new IntList(), secondary: new IntList(), dblMin: NaN, dblMax: NaN, dblSum: 0, strMin: null, strMax: null, byteSum: 0, dictionarySize: -1 };
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
function stringStatistics(acc: Acc): Uint8Array {
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
function columnStatistics(c: Column, acc: Acc): Uint8Array {
  const m = new Message().varint(1, acc.values);
  switch (c.kind) {
    case Kind.BYTE:
    case Kind.SHORT:
    case Kind.INT:
    case Kind.LONG: {
      const st = acc.ints.stats();
      if (st) {
        const sub = new Message().sint(1, st.min).sint(2, st.max);
        // (orc-core leaves the sum out once it overflows a long)
        if (st.sum !== null) sub.sint(3, st.sum);
        m.message(2, sub.view());
      }
      break;
    }
    case Kind.DATE: {
      const st = acc.ints.stats();
      if (st) m.message(7, new Message().sint(1, st.min).sint(2, st.max).view());
      break;
    }
    case Kind.FLOAT:
    case Kind.DOUBLE:
      if (acc.values > 0) m.message(3, new Message().double(1, acc.dblMin).double(2, acc.dblMax).double(3, acc.dblSum).view());
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

/** Adds the values of column `c` at `rows` of `data` (the slots its parent holds values for). */
function writeColumn(c: Column, data: arrow.Data, rows: Int32Array, accs: Acc[]): void {
  const acc = accs[c.id]!;
  const valid: number[] = [];
  for (let j = 0; j < rows.length; j++) {
    const r = rows[j]!;
    const bit = r + data.offset;
    const isValid = data.nullCount === 0 || !data.nullBitmap || ((data.nullBitmap[bit >> 3]! >> (bit & 7)) & 1) === 1;
    acc.present.push(isValid ? 1 : 0);
    if (isValid) valid.push(r);
    else acc.hasNull = true;
  }
  acc.values += valid.length;
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
        }
      } else for (const r of valid) acc.ints.push(values[at(r)] as number);
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
        if (acc.values - valid.length + k === 0) acc.dblMin = acc.dblMax = v;
        else if (v < acc.dblMin) acc.dblMin = v;
        else if (v > acc.dblMax) acc.dblMax = v;
        acc.dblSum += v;
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
        acc.byteSum += e - s;
        if (c.kind === Kind.BINARY) continue;
        if (!acc.strMin || compareBytes(bytes, s, e, acc.strMin) < 0) acc.strMin = bytes.slice(s, e);
        if (!acc.strMax || compareBytes(bytes, s, e, acc.strMax) > 0) acc.strMax = bytes.slice(s, e);
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

/** The streams of a column: [kind, bytes] in ORC's order. */
function streamsOf(c: Column, acc: Acc): Array<[number, Uint8Array]> {
  const out: Array<[number, Uint8Array]> = [];
  const enc = (f: (b: Bytes) => void) => {
    const b = new Bytes();
    f(b);
    return b.view();
  };
  if (acc.hasNull) out.push([0, enc((b) => boolRle(Uint8Array.from(acc.present), acc.present.length, b))]);
  switch (c.kind) {
    case Kind.BOOLEAN:
      out.push([1, enc((b) => boolRle(Uint8Array.from(acc.bools), acc.bools.length, b))]);
      break;
    case Kind.BYTE:
      out.push([1, enc((b) => byteRle(acc.data.view(), b))]);
      break;
    case Kind.SHORT:
    case Kind.INT:
    case Kind.LONG:
    case Kind.DATE:
      out.push([1, enc((b) => intRleV2(acc.ints, true, b))]);
      break;
    case Kind.FLOAT:
    case Kind.DOUBLE:
      out.push([1, acc.data.view()]);
      break;
    case Kind.STRING:
    case Kind.VARCHAR:
    case Kind.CHAR: {
      const dict = dictionaryOf(acc);
      if (dict) {
        acc.dictionarySize = dict.size;
        out.push([1, enc((b) => intRleV2(dict.ids, false, b))], [2, enc((b) => intRleV2(dict.lengths, false, b))], [3, dict.bytes]);
      } else out.push([1, acc.data.view()], [2, enc((b) => intRleV2(acc.lengths, false, b))]);
      break;
    }
    case Kind.BINARY:
      out.push([1, acc.data.view()], [2, enc((b) => intRleV2(acc.lengths, false, b))]);
      break;
    case Kind.DECIMAL:
      out.push([1, acc.data.view()], [5, enc((b) => intRleV2(acc.secondary, true, b))]);
      break;
    case Kind.TIMESTAMP:
    case Kind.TIMESTAMP_INSTANT:
      out.push([1, enc((b) => intRleV2(acc.ints, true, b))], [5, enc((b) => intRleV2(acc.secondary, false, b))]);
      break;
    case Kind.LIST:
    case Kind.MAP:
      out.push([2, enc((b) => intRleV2(acc.lengths, false, b))]);
      break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Compression
// ---------------------------------------------------------------------------------------------

const BLOCK = 256 * 1024;
const CODES: Record<string, number> = { none: 0, zlib: 1, snappy: 2, lz4: 4, zstd: 5 };

/** ORC's compression kind of Paimon's `file.compression` (UNSUPPORTED for others). */
export function orcCompressionOf(compression: string | undefined): string {
  const c = (compression ?? "zstd").trim().toLowerCase();
  const name = c === "uncompressed" ? "none" : c === "gzip" || c === "deflate" ? "zlib" : c;
  if (!(name in CODES)) throw new PaimonError("UNSUPPORTED", `file.compression '${compression}' for ORC data files (zstd, zlib, snappy, lz4, none)`);
  return name;
}

type Compress = (chunk: Uint8Array) => Uint8Array | null;

async function compressorOf(name: string, zstdLevel: number): Promise<Compress> {
  switch (name) {
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

function frame(data: Uint8Array, compress: Compress | null): Uint8Array {
  if (!compress) return data;
  const out = new Bytes();
  for (let i = 0; i < data.length; i += BLOCK) {
    const chunk = data.subarray(i, Math.min(data.length, i + BLOCK));
    const packed = compress(chunk);
    const original = !packed || packed.length >= chunk.length;
    const body = original ? chunk : packed;
    const header = body.length * 2 + (original ? 1 : 0);
    out.byte(header & 0xff);
    out.byte((header >> 8) & 0xff);
    out.byte((header >> 16) & 0xff);
    out.bytes(body);
  }
  return out.view().slice();
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
}

/**
 * Accumulates batches for one ORC data file, with statistics, as `AvroFileWriter` does (same
 * interface); `finish()` encodes the file (one stripe).
 */
export class OrcFileWriter {
  readonly schema: arrow.Schema;
  private readonly collectors: ColumnStatsCollector[];
  private readonly modes: StatsMode[];
  private readonly batches: arrow.Data[][] = [];
  private rows = 0;
  private bytes = 0;
  private finished = false;
  private readonly compression: string;

  constructor(
    readonly fields: readonly DataField[],
    private readonly options: OrcDataWriteOptions = {},
  ) {
    if (fields.length === 0) throw new PaimonError("INVALID_ARGUMENT", "An ORC data file needs at least one column");
    this.schema = toArrowSchema(fields);
    this.compression = orcCompressionOf(options.compression);
    this.collectors = fields.map((f) => new ColumnStatsCollector(f.type));
    const fileMode = parseStatsMode(options.statsMode);
    this.modes = fields.map((f) => {
      const m = options.fieldStatsModes?.[f.name];
      return m === undefined ? fileMode : parseStatsMode(m);
    });
    const all: Column[] = [];
    columnsOf({ kind: "ROW", nullable: false, fields: [...fields] }, 0, 0, all); // (refuses types ORC cannot hold now)
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Bytes of the columns buffered (the file is encoded at finish). */
  get bufferedBytes(): number {
    return this.bytes;
  }

  write(data: arrow.RecordBatch): void {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "OrcFileWriter already finished");
    if (data.numRows === 0) return;
    const columns = this.fields.map((f, i) => {
      const idx = data.schema.fields.findIndex((x) => x.name === f.name);
      if (idx < 0) throw new PaimonError("INVALID_ARGUMENT", `Input data has no column '${f.name}'`);
      let col = convertData(data.data.children[idx]!, toArrowType(f.type), f.name);
      // Java's ORC writer pads CHAR(n) values with spaces (its statistics hold them padded)
      if (f.type.kind === "CHAR") col = padChars(col, f.type.length);
      if (!f.type.nullable && col.nullCount > 0) throw new PaimonError("INVALID_ARGUMENT", `Column '${f.name}' is NOT NULL but has ${col.nullCount} null values`);
      this.collectors[i]!.update(col);
      this.bytes += col.byteLength;
      return col;
    });
    this.batches.push(columns);
    this.rows += data.numRows;
  }

  async finish(): Promise<ParquetWriteResult> {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "OrcFileWriter already finished");
    this.finished = true;
    const compress = this.compression === "none" ? null : await compressorOf(this.compression, this.options.zstdLevel ?? 1);
    const all: Column[] = [];
    const root = columnsOf({ kind: "ROW", nullable: false, fields: [...this.fields] }, 0, 0, all);
    const accs = all.map(() => newAcc());
    for (const batch of this.batches) batch.forEach((data, i) => writeColumn(root.children[i]!, data, Int32Array.from({ length: data.length }, (_, r) => r), accs));
    accs[0]!.values = this.rows;
    const file = new Bytes();
    file.bytes(new TextEncoder().encode("ORC"));
    const stripeOffset = file.length;
    const stripeFooter = new Message();
    for (const c of all) {
      for (const [kind, raw] of streamsOf(c, accs[c.id]!)) {
        const bytes = frame(raw, compress);
        file.bytes(bytes);
        stripeFooter.message(1, new Message().varint(1, kind).varint(2, c.id).varint(3, bytes.length).view());
      }
    }
    const dataLength = file.length - stripeOffset;
    for (const c of all) {
      const dictionarySize = accs[c.id]!.dictionarySize;
      if (dictionarySize >= 0) stripeFooter.message(2, new Message().varint(1, 3).varint(2, dictionarySize).view());
      else stripeFooter.message(2, new Message().varint(1, c.kind === Kind.STRUCT || c.kind === Kind.FLOAT || c.kind === Kind.DOUBLE || c.kind === Kind.BOOLEAN || c.kind === Kind.BYTE ? 0 : 2).view());
    }
    stripeFooter.string(3, "UTC");
    const stripeFooterBytes = frame(stripeFooter.view(), compress);
    file.bytes(stripeFooterBytes);
    const statistics = all.map((c) => columnStatistics(c, accs[c.id]!));
    // metadata: the stripe's statistics (the same as the file's: one stripe)
    const stripeStats = new Message();
    for (const s of statistics) stripeStats.message(1, s);
    const metadata = frame(new Message().message(1, stripeStats.view()).view(), compress);
    file.bytes(metadata);
    const footer = new Message().varint(1, 3).varint(2, file.length - metadata.length);
    footer.message(3, new Message().varint(1, stripeOffset).varint(2, 0).varint(3, dataLength).varint(4, stripeFooterBytes.length).varint(5, this.rows).view());
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
    for (const s of statistics) footer.message(7, s);
    footer.varint(8, 0);
    const footerBytes = frame(footer.view(), compress);
    file.bytes(footerBytes);
    const ps = new Message().varint(1, footerBytes.length).varint(2, CODES[this.compression]!).varint(3, BLOCK);
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
