// Which columns of a Parquet file to write without dictionary encoding (write side only).
//
// parquet-rs (like parquet-mr) dictionary-encodes a column chunk until its dictionary outgrows the
// dictionary page limit (1 MiB), then writes the rest of the chunk PLAIN. For a column whose values
// are (nearly) all distinct — ids, timestamps, measurements, unique strings — that is wasted work:
// every value is hashed into a dictionary that is then abandoned, and the first pages are encoded
// twice. Counting distinct values of the first row group's prefix tells which columns would fall
// back for certain; those are written PLAIN from the start (a valid encoding every reader takes).

import * as arrow from "apache-arrow";
import { keepShape } from "../kernel/shapes.js";

/** parquet-rs's default dictionary page size limit (bytes of the PLAIN-encoded dictionary). */
const DICTIONARY_PAGE_LIMIT = 1024 * 1024;
/** Rows looked at before giving up on a column whose dictionary grows slowly (it keeps its dictionary). */
const PROBE_ROWS = 65536;
/** Fraction of distinct values among PROBE_ROWS rows below which the probe stops early. */
const LOW_CARDINALITY = 0.25;

/**
 * Names of the flat top-level columns of `batches` (schema order, file layout) whose dictionary
 * would outgrow parquet-rs's limit within the first row group (`rowGroupRows` rows): the distinct
 * values seen, in their PLAIN dictionary size, pass the limit. Hash collisions only undercount,
 * so a column is never chosen that would have kept its dictionary.
 *
 * With `unpaying` (the flat encoder, which also applies parquet-mr's `isCompressionSatisfying`:
 * a chunk keeps its dictionary only when dictionary page + bit-packed indices are smaller than
 * its PLAIN values), also the columns of a file of one row group whose dictionary cannot pay:
 * the probe saw every row, and even its lower bounds (distinct values undercounted by hash
 * collisions, so the dictionary bytes and the index bit width too) make the dictionary-encoded
 * chunk no smaller than PLAIN. The encoder would build that dictionary and drop it (all-distinct
 * columns of files under ~130 k rows: keys, sequence numbers, event times, measurements); the
 * file's bytes are the same either way.
 */
export function overflowingDictionaryColumns(schema: arrow.Schema, batches: readonly arrow.RecordBatch[], rowGroupRows: number, options?: { unpaying?: boolean }): string[] {
  const out: string[] = [];
  let seen: KeySet | undefined;
  let total = 0;
  for (const batch of batches) total += batch.numRows;
  // one row group: the probe's rows are the whole chunk
  const wholeChunk = options?.unpaying === true && total <= rowGroupRows;
  schema.fields.forEach((field, i) => {
    const width = fixedWidth(field.type);
    if (width === 0 && !isVarBinary(field.type)) return;
    if (width > 0 && ascendingPastLimit(batches, i, width, rowGroupRows, wholeChunk)) {
      out.push(field.name);
      return;
    }
    const set = (seen = seen ? seen.clear() : new KeySet());
    let dictBytes = 0;
    let rows = 0;
    for (const batch of batches) {
      const data = batch.data.children[i]!;
      const n = Math.min(data.length, rowGroupRows - rows);
      const bm = data.nullCount > 0 ? data.nullBitmap : undefined;
      const words = width > 0 ? wordsOf(data, width) : undefined;
      if (width > 0 && !words) return;
      for (let from = 0; from < n; from += BLOCK) {
        const to = Math.min(n, from + BLOCK);
        dictBytes += words ? probeFixed(set, words, width, bm, data.offset, from, to) : probeBytes(set, data.valueOffsets as Int32Array, data.values as Uint8Array, bm, data.offset, from, to);
        if (dictBytes > DICTIONARY_PAGE_LIMIT) break;
        if (rows + to >= PROBE_ROWS && set.size < (rows + to) * LOW_CARDINALITY) return; // keeps its dictionary
      }
      rows += n;
      if (dictBytes > DICTIONARY_PAGE_LIMIT || rows >= rowGroupRows) break;
    }
    if (dictBytes > DICTIONARY_PAGE_LIMIT || (wholeChunk && !dictionaryCanPay(batches, i, width, set.size, dictBytes))) out.push(field.name);
  });
  return out;
}

/**
 * Whether a dictionary of at least `distinct` entries and `dictBytes` bytes over every row of
 * column `c` could make the chunk smaller than PLAIN (`dictionaryBeatsPlain` bounded from below).
 */
function dictionaryCanPay(batches: readonly arrow.RecordBatch[], c: number, width: number, distinct: number, dictBytes: number): boolean {
  let values = 0;
  for (const batch of batches) values += batch.numRows - batch.data.children[c]!.nullCount;
  const bitWidth = distinct <= 1 ? 0 : 32 - Math.clz32(distinct - 1);
  return dictionaryBeatsPlain(dictBytes, values, bitWidth, plainChunkBytes(batches, c, width, values, 0, Infinity));
}

/**
 * parquet-mr's `isCompressionSatisfying`, which Java Paimon's files follow: a chunk keeps its
 * dictionary only when the PLAIN dictionary page plus the bit-packed indices of its `values`
 * non-null values are smaller than the values PLAIN.
 */
export function dictionaryBeatsPlain(dictBytes: number, values: number, bitWidth: number, plainBytes: number): boolean {
  return dictBytes + Math.ceil((values * bitWidth) / 8) < plainBytes;
}

/**
 * Bytes of `values` non-null values of column `c` (rows `from` to `to` of `batches`) written
 * PLAIN: `width` bytes each, or for BYTE_ARRAY (`width` 0) a 4-byte length each plus their bytes.
 */
export function plainChunkBytes(batches: readonly arrow.RecordBatch[], c: number, width: number, values: number, from: number, to: number): number {
  if (width > 0) return values * width;
  let plain = values * 4;
  let base = 0;
  for (const batch of batches) {
    const end = base + batch.numRows;
    if (end > from && base < to) {
      const o = batch.data.children[c]!.valueOffsets as Int32Array; // sliced to the Data's rows
      plain += o[Math.min(to, end) - base]! - o[Math.max(from, base) - base]!;
    }
    base = end;
    if (base >= to) break;
  }
  return plain;
}

/**
 * Whether the first non-null values of fixed-width column `c` within `rowGroupRows` rows ascend
 * strictly (as signed integers of `width` bytes) for more values than fit the dictionary limit:
 * then they are all distinct and the dictionary overflows, without hashing them. Ids, sequence
 * numbers and event times usually do; any other column is probed by hashing. With `wholeChunk`
 * (the rows are one whole chunk whose dictionary must also pay), also when all of them ascend.
 */
function ascendingPastLimit(batches: readonly arrow.RecordBatch[], c: number, width: number, rowGroupRows: number, wholeChunk: boolean): boolean {
  const need = Math.floor(DICTIONARY_PAGE_LIMIT / width) + 1;
  let count = 0;
  let rows = 0;
  let prevHi = 0;
  let prevLo = 0;
  for (const batch of batches) {
    const data = batch.data.children[c]!;
    const words = wordsOf(data, width);
    if (!words) return false;
    const bm = data.nullCount > 0 ? data.nullBitmap : undefined;
    const n = Math.min(data.length, rowGroupRows - rows);
    for (let j = 0; j < n; j++) {
      if (bm && (bm[(data.offset + j) >> 3]! & (1 << ((data.offset + j) & 7))) === 0) continue;
      const hi = width === 4 ? words[j]! : words[2 * j + 1]!;
      const lo = width === 4 ? 0 : words[2 * j]! >>> 0;
      if (count > 0 && (hi < prevHi || (hi === prevHi && lo <= prevLo))) return false;
      prevHi = hi;
      prevLo = lo;
      if (++count >= need) return true;
    }
    rows += n;
    if (rows >= rowGroupRows) break;
  }
  // every value of the chunk distinct: its dictionary holds them all, never smaller than PLAIN
  return wholeChunk;
}

/** Rows probed between checks of the limit and of the cardinality. */
const BLOCK = 4096;

// Arrow JS slices a Data's values (fixed width) or value offsets (variable width) to its rows, but
// not its validity bitmap: row j is value j and validity bit `bitOffset + j` (bitOffset = data.offset).

/** Dictionary bytes the new distinct values among rows [from, to) add (fixed-width values as 32-bit words). */
function probeFixed(set: KeySet, words: Int32Array, width: number, bm: Uint8Array | undefined, bitOffset: number, from: number, to: number): number {
  let added = 0;
  for (let j = from; j < to; j++) {
    if (bm && (bm[(bitOffset + j) >> 3]! & (1 << ((bitOffset + j) & 7))) === 0) continue;
    const key = width === 4 ? words[j]! : Math.imul(words[2 * j + 1]!, 0x9e3779b1) ^ words[2 * j]!;
    if (set.add(key)) added += width;
  }
  return added;
}

/** Dictionary bytes (4-byte length + bytes) the new distinct values among rows [from, to) add. */
function probeBytes(set: KeySet, offsets: Int32Array, values: Uint8Array, bm: Uint8Array | undefined, bitOffset: number, from: number, to: number): number {
  let added = 0;
  for (let j = from; j < to; j++) {
    if (bm && (bm[(bitOffset + j) >> 3]! & (1 << ((bitOffset + j) & 7))) === 0) continue;
    const s = offsets[j]!;
    const e = offsets[j + 1]!;
    let h = 0x811c9dc5 ^ (e - s);
    for (let k = s; k < e; k++) h = Math.imul(h ^ values[k]!, 0x01000193);
    if (set.add(h)) added += 4 + e - s;
  }
  return added;
}

/** Slots of the probe's hash set: more than the most distinct values that fit the limit (4 bytes each) twice over. */
const SLOTS = 1 << 19;

/** A set of 32-bit hash keys (open addressing; 0 is stored as 1, a collision that only undercounts). */
class KeySet {
  private readonly slots: Int32Array;
  size = 0;

  /** `slots`: SLOTS, or 0 for the shape exemplar below (never probed). */
  constructor(slots = SLOTS) {
    this.slots = new Int32Array(slots);
  }

  clear(): this {
    this.slots.fill(0);
    this.size = 0;
    return this;
  }

  /** Adds `key`; false when it was present. */
  add(key: number): boolean {
    const k = key | 0 || 1;
    let at = Math.imul(k, 0x9e3779b1) >>> 13; // top 19 bits
    for (;;) {
      const v = this.slots[at]!;
      if (v === k) return false;
      if (v === 0) {
        this.slots[at] = k;
        this.size++;
        return true;
      }
      at = (at + 1) & (SLOTS - 1);
    }
  }
}
keepShape(new KeySet(0));

/** Bytes per value of a dictionary entry for the fixed-width types probed (0 = not probed). */
function fixedWidth(type: arrow.DataType): number {
  switch (type.typeId) {
    case arrow.Type.Int:
      // TINYINT/SMALLINT: at most 65536 distinct INT32 entries, never past the limit
      return (type as arrow.Int).bitWidth === 64 ? 8 : (type as arrow.Int).bitWidth === 32 ? 4 : 0;
    case arrow.Type.Float:
      return (type as arrow.Float).precision === arrow.Precision.DOUBLE ? 8 : (type as arrow.Float).precision === arrow.Precision.SINGLE ? 4 : 0;
    case arrow.Type.Date:
      return (type as arrow.Date_).unit === arrow.DateUnit.DAY ? 4 : 0;
    case arrow.Type.Time:
      return (type as arrow.Time).bitWidth === 64 ? 8 : 4;
    case arrow.Type.Timestamp:
      return 8;
    default:
      return 0;
  }
}

function isVarBinary(type: arrow.DataType): boolean {
  return type.typeId === arrow.Type.Utf8 || type.typeId === arrow.Type.Binary;
}

/** The values of a fixed-width column as 32-bit words (two per 8-byte value, low word first). */
function wordsOf(data: arrow.Data, width: number): Int32Array | undefined {
  const v = data.values as unknown as ArrayBufferView | undefined;
  if (!v || !ArrayBuffer.isView(v) || (v as Int32Array).BYTES_PER_ELEMENT !== width) return undefined;
  return new Int32Array(v.buffer, v.byteOffset, v.byteLength >> 2);
}
