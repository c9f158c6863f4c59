// Paimon BinaryRow: the binary row layout used for partitions, key/stat rows in
// manifests, bucket hashing and the rows inside CommitMessage bodies. Little-endian,
// 8-byte slots, strings of up to 7 bytes inline, everything else in a variable part
// padded to 8 bytes; nested ROW / ARRAY (BinaryArray) / MAP (BinaryMap) values live in
// the variable part. Layout reference: ../shared/reference/paimon-format.md §5.
//
// Java sources replicated: paimon-common `data/BinaryRow.java`, `BinaryRowWriter.java`,
// `AbstractBinaryWriter.java`, `BinaryArray.java`, `BinaryArrayWriter.java`,
// `BinaryMap.java`, `BinaryWriter.java`, `memory/MemorySegmentUtils.java`.

import { MILLIS_PER_DAY, parseIsoDate, parseIsoDateTime } from "./civil-time.js";
import { PaimonError } from "../error.js";
import { hashBytesByWords } from "./murmur.js";
import type { DataType, RowType } from "./types.js";
import { utf8Decoder } from "./utf8.js";

const TEXT = new TextEncoder();

/** Bytes used by the null bit set (with the 8-bit header) for `arity` fields. */
export function nullBitsSizeInBytes(arity: number): number {
  return Math.floor((arity + 63 + 8) / 64) * 8;
}

/** Whether DECIMAL(precision) is stored compactly as an unscaled int64. */
export function isCompactDecimal(precision: number): boolean {
  return precision <= 18;
}

/** Whether TIMESTAMP(precision) is stored compactly as epoch millis. */
export function isCompactTimestamp(precision: number): boolean {
  return precision <= 3;
}

/** Paimon's internal timestamp: epoch millis plus nano-of-millisecond (0..999 999). */
export interface Timestamp {
  millis: bigint;
  nanoOfMillisecond: number;
}

function roundToWord(n: number): number {
  return (n + 7) & ~7;
}

// ---------------------------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------------------------

/** Shared writer logic (Java's AbstractBinaryWriter): fixed slots + 8-byte padded variable part. */
abstract class AbstractBinaryWriter {
  protected buffer: Uint8Array;
  protected view: DataView;
  protected cursor: number;
  protected readonly fixedSize: number;

  protected constructor(fixedSize: number) {
    this.fixedSize = fixedSize;
    this.buffer = new Uint8Array(Math.max(64, fixedSize));
    this.view = new DataView(this.buffer.buffer);
    this.cursor = fixedSize;
  }

  /** Offset of field/element `pos`'s slot. */
  protected abstract slot(pos: number): number;
  protected abstract setNullBit(pos: number): void;
  /** Marks `pos` null and zeroes its slot. */
  abstract setNullAt(pos: number): this;

  protected ensure(extra: number): void {
    const need = this.cursor + extra;
    if (need <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(need, this.buffer.length * 2));
    next.set(this.buffer);
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  writeBoolean(pos: number, v: boolean): this {
    this.buffer[this.slot(pos)] = v ? 1 : 0;
    return this;
  }

  writeByte(pos: number, v: number): this {
    this.view.setInt8(this.slot(pos), v);
    return this;
  }

  writeShort(pos: number, v: number): this {
    this.view.setInt16(this.slot(pos), v, true);
    return this;
  }

  /** INT, DATE (days since epoch), TIME (millis of day). */
  writeInt(pos: number, v: number): this {
    this.view.setInt32(this.slot(pos), v, true);
    return this;
  }

  /** BIGINT, compact TIMESTAMP (millis), compact DECIMAL (unscaled). */
  writeLong(pos: number, v: bigint): this {
    this.view.setBigInt64(this.slot(pos), v, true);
    return this;
  }

  writeFloat(pos: number, v: number): this {
    this.view.setFloat32(this.slot(pos), v, true);
    return this;
  }

  writeDouble(pos: number, v: number): this {
    this.view.setFloat64(this.slot(pos), v, true);
    return this;
  }

  /** CHAR/VARCHAR/STRING (a JS string is UTF-8 encoded) and BINARY/VARBINARY/BYTES. */
  writeBinary(pos: number, value: Uint8Array | string): this {
    const bytes = typeof value === "string" ? TEXT.encode(value) : value;
    const slot = this.slot(pos);
    if (bytes.length <= 7) {
      this.buffer.set(bytes, slot);
      this.buffer[slot + 7] = 0x80 | bytes.length;
      return this;
    }
    return this.writeVarPart(pos, bytes);
  }

  /** Appends `bytes` to the variable part (zero padded to 8) and stores `(offset << 32) | length`. */
  private writeVarPart(pos: number, bytes: Uint8Array): this {
    const padded = roundToWord(bytes.length);
    this.ensure(padded);
    this.buffer.fill(0, this.cursor, this.cursor + padded);
    this.buffer.set(bytes, this.cursor);
    this.setOffsetAndSize(pos, this.cursor, bytes.length);
    this.cursor += padded;
    return this;
  }

  /** A nested ROW given as raw BinaryRow bytes (not the serialized form). */
  writeRow(pos: number, rowBytes: Uint8Array): this {
    return this.writeVarPart(pos, rowBytes);
  }

  /** An ARRAY / MULTISET-as-array given as BinaryArray bytes. */
  writeArray(pos: number, arrayBytes: Uint8Array): this {
    return this.writeVarPart(pos, arrayBytes);
  }

  /** A MAP (or MULTISET) given as BinaryMap bytes. */
  writeMap(pos: number, mapBytes: Uint8Array): this {
    return this.writeVarPart(pos, mapBytes);
  }

  /**
   * TIMESTAMP / TIMESTAMP_LTZ: compact (p <= 3) as millis in the slot, otherwise
   * millis in the variable part and the nano-of-millisecond in the slot. `null`
   * keeps the 8-byte reservation, as Java does for non-compact timestamps.
   */
  writeTimestamp(pos: number, value: Timestamp | null, precision: number): this {
    if (isCompactTimestamp(precision)) {
      return value === null ? this.setNullAt(pos) : this.writeLong(pos, value.millis);
    }
    this.ensure(8);
    this.buffer.fill(0, this.cursor, this.cursor + 8);
    if (value === null) {
      this.setNullBit(pos);
      this.setOffsetAndSize(pos, this.cursor, 0);
    } else {
      this.view.setBigInt64(this.cursor, value.millis, true);
      this.setOffsetAndSize(pos, this.cursor, value.nanoOfMillisecond);
    }
    this.cursor += 8;
    return this;
  }

  /**
   * DECIMAL(precision): compact as the unscaled int64; otherwise 16 reserved bytes
   * holding `BigInteger.toByteArray()` of the unscaled value (kept when null).
   */
  writeDecimal(pos: number, unscaled: bigint | null, precision: number): this {
    if (isCompactDecimal(precision)) {
      return unscaled === null ? this.setNullAt(pos) : this.writeLong(pos, unscaled);
    }
    this.ensure(16);
    this.buffer.fill(0, this.cursor, this.cursor + 16);
    if (unscaled === null) {
      this.setNullBit(pos);
      this.setOffsetAndSize(pos, this.cursor, 0);
    } else {
      const bytes = bigIntToTwosComplement(unscaled);
      if (bytes.length > 16) throw new RangeError(`decimal unscaled value ${unscaled} needs more than 16 bytes`);
      this.buffer.set(bytes, this.cursor);
      this.setOffsetAndSize(pos, this.cursor, bytes.length);
    }
    this.cursor += 16;
    return this;
  }

  protected setOffsetAndSize(pos: number, offset: number, size: number): void {
    this.view.setBigUint64(this.slot(pos), (BigInt(offset) << 32n) | BigInt(size), true);
  }

  /** Size of the structure written so far. */
  get sizeInBytes(): number {
    return this.cursor;
  }

  /** A view of the bytes (valid until the next write or reset). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.cursor);
  }

  /** A copy of the bytes. */
  toBytes(): Uint8Array {
    return this.buffer.slice(0, this.cursor);
  }
}

/**
 * Writes one BinaryRow field by field, as Java's `BinaryRowWriter` does (zeroed
 * buffer, canonical padding), so equal rows give equal bytes and equal hashes.
 * Reusable: `reset()` starts the next row in the same buffer.
 */
export class BinaryRowWriter extends AbstractBinaryWriter {
  readonly arity: number;
  private readonly nullBytes: number;

  constructor(arity: number) {
    const nullBytes = nullBitsSizeInBytes(arity);
    super(nullBytes + 8 * arity);
    this.arity = arity;
    this.nullBytes = nullBytes;
  }

  /** Clears the row (all fields zero, not null) for reuse. */
  reset(): this {
    this.buffer.fill(0, 0, this.cursor);
    this.cursor = this.fixedSize;
    return this;
  }

  /** Sets the RowKind byte of the header (0 INSERT for partitions, keys and stats). */
  setRowKind(kind: number): this {
    this.buffer[0] = kind;
    return this;
  }

  protected slot(pos: number): number {
    return this.nullBytes + 8 * pos;
  }

  protected setNullBit(pos: number): void {
    const bit = pos + 8;
    this.buffer[bit >> 3]! |= 1 << (bit & 7);
  }

  /** Marks a field null (for non-compact DECIMAL/TIMESTAMP use the typed writers with null). */
  setNullAt(pos: number): this {
    this.setNullBit(pos);
    this.view.setBigUint64(this.slot(pos), 0n, true);
    return this;
  }
}

/** Element slot width in a BinaryArray (Java `BinaryArray.calculateFixLengthPartSize`). */
export function arrayElementSize(type: DataType): number {
  switch (type.kind) {
    case "BOOLEAN":
    case "TINYINT":
      return 1;
    case "SMALLINT":
      return 2;
    case "INT":
    case "FLOAT":
    case "DATE":
    case "TIME":
      return 4;
    default:
      return 8;
  }
}

/** Java's `BinaryArrayWriter`: int32 LE count, null bits (4-byte words), slots padded to 8, variable part. */
export class BinaryArrayWriter extends AbstractBinaryWriter {
  readonly numElements: number;
  readonly elementSize: number;
  private readonly headerInBytes: number;

  constructor(numElements: number, elementSize: number) {
    const header = 4 + Math.floor((numElements + 31) / 32) * 4;
    super(roundToWord(header + elementSize * numElements));
    this.numElements = numElements;
    this.elementSize = elementSize;
    this.headerInBytes = header;
    this.view.setInt32(0, numElements, true);
  }

  protected slot(pos: number): number {
    return this.headerInBytes + pos * this.elementSize;
  }

  protected setNullBit(pos: number): void {
    this.buffer[4 + (pos >> 3)]! |= 1 << (pos & 7);
  }

  /** Marks element `pos` null and zeroes its slot (`elementSize` bytes). */
  setNullAt(pos: number): this {
    this.setNullBit(pos);
    const s = this.slot(pos);
    this.buffer.fill(0, s, s + this.elementSize);
    return this;
  }
}

// ---------------------------------------------------------------------------------------------
// Readers
// ---------------------------------------------------------------------------------------------

abstract class BinarySection {
  readonly bytes: Uint8Array;
  readonly offset: number;
  readonly sizeInBytes: number;
  protected readonly view: DataView;

  protected constructor(bytes: Uint8Array, offset: number, sizeInBytes: number) {
    if (offset < 0 || sizeInBytes < 0 || offset + sizeInBytes > bytes.length)
      throw new PaimonError("CORRUPT_FILE", `Binary section [${offset}, ${offset + sizeInBytes}) out of bounds of ${bytes.length} bytes`);
    this.bytes = bytes;
    this.offset = offset;
    this.sizeInBytes = sizeInBytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Absolute offset (within `bytes`) of slot `pos` holding a value `width` bytes wide. */
  protected abstract at(pos: number, width: number): number;
  abstract isNullAt(pos: number): boolean;

  getBoolean(pos: number): boolean {
    return this.bytes[this.at(pos, 1)] !== 0;
  }
  getByte(pos: number): number {
    return this.view.getInt8(this.at(pos, 1));
  }
  getShort(pos: number): number {
    return this.view.getInt16(this.at(pos, 2), true);
  }
  getInt(pos: number): number {
    return this.view.getInt32(this.at(pos, 4), true);
  }
  getLong(pos: number): bigint {
    return this.view.getBigInt64(this.at(pos, 8), true);
  }
  getFloat(pos: number): number {
    return this.view.getFloat32(this.at(pos, 4), true);
  }
  getDouble(pos: number): number {
    return this.view.getFloat64(this.at(pos, 8), true);
  }

  /** Offset (absolute) and length of a var-length value (inline values point at the slot itself). */
  protected varPart(pos: number): { start: number; length: number } {
    const slot = this.at(pos, 8);
    const v = this.view.getBigUint64(slot, true);
    if ((v & (0x80n << 56n)) !== 0n) {
      return { start: slot, length: Number((v >> 56n) & 0x7fn) };
    }
    const off = Number(v >> 32n);
    const length = Number(v & 0xffffffffn);
    const start = this.offset + off;
    if (start + length > this.offset + this.sizeInBytes)
      throw new PaimonError("CORRUPT_FILE", `Variable-length value at field ${pos} [${off}, ${off + length}) exceeds the ${this.sizeInBytes}-byte structure`);
    return { start, length };
  }

  getBinary(pos: number): Uint8Array {
    const { start, length } = this.varPart(pos);
    return this.bytes.slice(start, start + length);
  }

  getString(pos: number): string {
    const { start, length } = this.varPart(pos);
    return utf8Decoder.decode(this.bytes.subarray(start, start + length));
  }

  /** Unscaled value of DECIMAL(precision, ·). */
  getDecimal(pos: number, precision: number): bigint {
    if (isCompactDecimal(precision)) return this.getLong(pos);
    const slot = this.at(pos, 8);
    const v = this.view.getBigUint64(slot, true);
    const start = this.offset + Number(v >> 32n);
    const length = Number(v & 0xffffffffn);
    return twosComplementToBigInt(this.bytes.subarray(start, start + length));
  }

  getTimestamp(pos: number, precision: number): Timestamp {
    if (isCompactTimestamp(precision)) return { millis: this.getLong(pos), nanoOfMillisecond: 0 };
    const slot = this.at(pos, 8);
    const v = this.view.getBigUint64(slot, true);
    const start = this.offset + Number(v >> 32n);
    return { millis: this.view.getBigInt64(start, true), nanoOfMillisecond: Number(v & 0xffffffffn) };
  }

  getRow(pos: number, numFields: number): BinaryRow {
    const slot = this.at(pos, 8);
    const v = this.view.getBigUint64(slot, true);
    return new BinaryRow(this.bytes, numFields, this.offset + Number(v >> 32n), Number(v & 0xffffffffn));
  }

  getArray(pos: number): BinaryArray {
    const slot = this.at(pos, 8);
    const v = this.view.getBigUint64(slot, true);
    return new BinaryArray(this.bytes, this.offset + Number(v >> 32n), Number(v & 0xffffffffn));
  }

  getMap(pos: number): BinaryMap {
    const slot = this.at(pos, 8);
    const v = this.view.getBigUint64(slot, true);
    return new BinaryMap(this.bytes, this.offset + Number(v >> 32n), Number(v & 0xffffffffn));
  }

  /** A copy of this structure's bytes. */
  toBytes(): Uint8Array {
    return this.bytes.slice(this.offset, this.offset + this.sizeInBytes);
  }
}

/** A read-only view of a BinaryRow (raw bytes, not the serialized form). */
export class BinaryRow extends BinarySection {
  readonly arity: number;
  private readonly nullBytes: number;

  constructor(bytes: Uint8Array, arity: number, offset = 0, sizeInBytes = bytes.length - offset) {
    super(bytes, offset, sizeInBytes);
    this.arity = arity;
    this.nullBytes = nullBitsSizeInBytes(arity);
    if (this.nullBytes + 8 * arity > sizeInBytes)
      throw new PaimonError("CORRUPT_FILE", `BinaryRow of arity ${arity} needs at least ${this.nullBytes + 8 * arity} bytes, got ${sizeInBytes}`);
  }

  /** Reads `SerializationUtils.serializeBinaryRow` output: int32 BE arity + row bytes. */
  static fromSerialized(serialized: Uint8Array): BinaryRow {
    const { arity, row } = deserializeBinaryRow(serialized);
    return new BinaryRow(row, arity);
  }

  get rowKind(): number {
    return this.bytes[this.offset]!;
  }

  protected at(pos: number, _width: number): number {
    if (pos < 0 || pos >= this.arity) throw new PaimonError("INVALID_ARGUMENT", `Field ${pos} out of range for a row of arity ${this.arity}`);
    return this.offset + this.nullBytes + 8 * pos;
  }

  isNullAt(pos: number): boolean {
    const bit = pos + 8;
    return (this.bytes[this.offset + (bit >> 3)]! & (1 << (bit & 7))) !== 0;
  }

  /** `BinaryRow.hashCode()` (murmur3 over the row's words, seed 42). */
  hashCode(): number {
    return hashBytesByWords(this.bytes.subarray(this.offset, this.offset + this.sizeInBytes));
  }

  /** The serialized form (int32 BE arity + row bytes). */
  serialize(): Uint8Array {
    return serializeBinaryRow(this.bytes.subarray(this.offset, this.offset + this.sizeInBytes), this.arity);
  }
}

/** A read-only view of a BinaryArray. */
export class BinaryArray extends BinarySection {
  readonly size: number;
  private readonly headerInBytes: number;

  constructor(bytes: Uint8Array, offset = 0, sizeInBytes = bytes.length - offset) {
    super(bytes, offset, sizeInBytes);
    if (sizeInBytes < 4) throw new PaimonError("CORRUPT_FILE", `BinaryArray needs at least 4 bytes, got ${sizeInBytes}`);
    this.size = this.view.getInt32(offset, true);
    if (this.size < 0) throw new PaimonError("CORRUPT_FILE", `BinaryArray with negative size ${this.size}`);
    this.headerInBytes = 4 + Math.floor((this.size + 31) / 32) * 4;
    if (this.headerInBytes > sizeInBytes) throw new PaimonError("CORRUPT_FILE", `BinaryArray of ${this.size} elements exceeds its ${sizeInBytes} bytes`);
  }

  protected at(pos: number, width: number): number {
    if (pos < 0 || pos >= this.size) throw new PaimonError("INVALID_ARGUMENT", `Element ${pos} out of range for an array of ${this.size}`);
    return this.offset + this.headerInBytes + pos * width;
  }

  isNullAt(pos: number): boolean {
    return (this.bytes[this.offset + 4 + (pos >> 3)]! & (1 << (pos & 7))) !== 0;
  }
}

/** A read-only view of a BinaryMap: int32 LE key-array size, key BinaryArray, value BinaryArray. */
export class BinaryMap {
  readonly keys: BinaryArray;
  readonly values: BinaryArray;
  readonly sizeInBytes: number;

  constructor(bytes: Uint8Array, offset = 0, sizeInBytes = bytes.length - offset) {
    if (sizeInBytes < 4 || offset + sizeInBytes > bytes.length) throw new PaimonError("CORRUPT_FILE", `BinaryMap out of bounds`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const keySize = view.getInt32(offset, true);
    if (keySize < 0 || 4 + keySize > sizeInBytes) throw new PaimonError("CORRUPT_FILE", `BinaryMap key array size ${keySize} exceeds the map's ${sizeInBytes} bytes`);
    this.keys = new BinaryArray(bytes, offset + 4, keySize);
    this.values = new BinaryArray(bytes, offset + 4 + keySize, sizeInBytes - 4 - keySize);
    this.sizeInBytes = sizeInBytes;
    if (this.keys.size !== this.values.size) throw new PaimonError("CORRUPT_FILE", `BinaryMap with ${this.keys.size} keys but ${this.values.size} values`);
  }

  get size(): number {
    return this.keys.size;
  }
}

/** BinaryMap bytes from key and value BinaryArray bytes. */
export function binaryMapBytes(keyArray: Uint8Array, valueArray: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + keyArray.length + valueArray.length);
  new DataView(out.buffer).setInt32(0, keyArray.length, true);
  out.set(keyArray, 4);
  out.set(valueArray, 4 + keyArray.length);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Serialized forms (§5.2)
// ---------------------------------------------------------------------------------------------

/** `SerializationUtils.serializeBinaryRow`: int32 BE arity + raw row bytes. */
export function serializeBinaryRow(row: Uint8Array, arity: number): Uint8Array {
  const out = new Uint8Array(4 + row.length);
  new DataView(out.buffer).setInt32(0, arity, false);
  out.set(row, 4);
  return out;
}

/** Inverse of `serializeBinaryRow` (CORRUPT_FILE if too short or inconsistent). */
export function deserializeBinaryRow(serialized: Uint8Array): { arity: number; row: Uint8Array } {
  if (serialized.length < 4) throw new PaimonError("CORRUPT_FILE", `Serialized BinaryRow of ${serialized.length} bytes is too short`);
  const arity = new DataView(serialized.buffer, serialized.byteOffset, serialized.byteLength).getInt32(0, false);
  const row = serialized.subarray(4);
  if (arity < 0 || nullBitsSizeInBytes(arity) + 8 * arity > row.length)
    throw new PaimonError("CORRUPT_FILE", `Serialized BinaryRow of arity ${arity} has only ${row.length} row bytes`);
  return { arity, row };
}

/** The empty row (arity 0): 8 zero bytes. */
export const EMPTY_ROW: Uint8Array = new Uint8Array(8);
/** `serializeBinaryRow(EMPTY_ROW, 0)`. */
export const EMPTY_ROW_SERIALIZED: Uint8Array = new Uint8Array(12);

/** `BigInteger.toByteArray()`: the shortest big-endian two's-complement encoding. */
export function bigIntToTwosComplement(v: bigint): Uint8Array {
  let bytes = 1;
  while (v < -(1n << BigInt(8 * bytes - 1)) || v >= 1n << BigInt(8 * bytes - 1)) bytes++;
  const out = new Uint8Array(bytes);
  let u = BigInt.asUintN(8 * bytes, v);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

/** `new BigInteger(bytes)`: big-endian two's complement. */
export function twosComplementToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let u = 0n;
  for (const b of bytes) u = (u << 8n) | BigInt(b);
  return BigInt.asIntN(8 * bytes.length, u);
}

// ---------------------------------------------------------------------------------------------
// JS values <-> rows
// ---------------------------------------------------------------------------------------------
//
// JS representation of values by Paimon type (what `fromBinaryRow` returns; `toBinaryRow`
// also accepts the listed alternatives):
//   BOOLEAN boolean · TINYINT/SMALLINT/INT number · BIGINT bigint (or number)
//   FLOAT/DOUBLE number · CHAR/VARCHAR string · BINARY/VARBINARY Uint8Array
//   DECIMAL(p, s) bigint unscaled value (input also: decimal string "12.34" or number 12.34,
//     rounded HALF_UP to the scale like Java's Decimal.fromBigDecimal)
//   DATE number of days since 1970-01-01 (input also Date, "YYYY-MM-DD")
//   TIME number millis of day
//   TIMESTAMP/TIMESTAMP_LTZ Timestamp {millis, nanoOfMillisecond}
//     (input also Date, number/bigint epoch millis, ISO string "YYYY-MM-DD[T ]hh:mm[:ss[.fffffffff]]" read as UTC)
//   ARRAY JS array · MAP JS Map (input also array of [k, v] pairs or plain object)
//   MULTISET Map<element, count> · ROW array of field values (input also object by field name)
//   null / undefined = null

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

function describe(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Uint8Array) return `Uint8Array(${v.length})`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

const POW10: bigint[] = [];
function pow10(n: number): bigint {
  return (POW10[n] ??= 10n ** BigInt(n));
}

/** Unscaled value of a decimal given as bigint (already unscaled), number or string, at `scale`, HALF_UP. */
export function toUnscaledDecimal(v: unknown, precision: number, scale: number): bigint {
  let unscaled: bigint;
  if (typeof v === "bigint") unscaled = v;
  else {
    let s: string;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw invalid(`Cannot convert ${v} to DECIMAL(${precision}, ${scale})`);
      s = String(v);
    } else if (typeof v === "string") s = v.trim();
    else throw invalid(`Cannot convert ${describe(v)} to DECIMAL(${precision}, ${scale})`);
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
    if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw invalid(`Cannot convert ${describe(v)} to DECIMAL(${precision}, ${scale})`);
    const digits = (m[2] ?? "") + (m[3] ?? "");
    const exp = Number(m[4] ?? "0") - (m[3] ?? "").length; // value = digits * 10^exp
    let mag = BigInt(digits === "" ? "0" : digits);
    const shift = exp + scale;
    if (shift >= 0) mag *= pow10(shift);
    else {
      const d = pow10(-shift);
      const q = mag / d;
      const r = mag % d;
      mag = r * 2n >= d ? q + 1n : q; // HALF_UP on the magnitude
    }
    unscaled = m[1] === "-" ? -mag : mag;
  }
  const abs = unscaled < 0n ? -unscaled : unscaled;
  if (abs >= pow10(precision)) throw invalid(`Value ${describe(v)} does not fit DECIMAL(${precision}, ${scale})`);
  return unscaled;
}

/** Formats an unscaled decimal as a plain string (`BigDecimal.toPlainString`). */
export function decimalToString(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  let s = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, "0");
    s = s.slice(0, s.length - scale) + "." + s.slice(s.length - scale);
  }
  return (neg ? "-" : "") + s;
}


function toDays(v: unknown): number {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (v instanceof Date) return Math.floor(v.getTime() / MILLIS_PER_DAY);
  if (typeof v === "string") {
    const day = parseIsoDate(v.trim());
    if (day !== null) return day;
  }
  throw invalid(`Cannot convert ${describe(v)} to DATE`);
}

/** A timestamp from Date, epoch millis, {millis, nanoOfMillisecond} or an ISO string (read as UTC). */
export function toTimestamp(v: unknown): Timestamp {
  if (v instanceof Date) return { millis: BigInt(v.getTime()), nanoOfMillisecond: 0 };
  if (typeof v === "bigint") return { millis: v, nanoOfMillisecond: 0 };
  if (typeof v === "number" && Number.isInteger(v)) return { millis: BigInt(v), nanoOfMillisecond: 0 };
  if (v !== null && typeof v === "object" && "millis" in v) {
    const o = v as { millis: bigint | number; nanoOfMillisecond?: number };
    const nano = o.nanoOfMillisecond ?? 0;
    if (!Number.isInteger(nano) || nano < 0 || nano > 999999) throw invalid(`Invalid nanoOfMillisecond ${nano}`);
    return { millis: BigInt(o.millis), nanoOfMillisecond: nano };
  }
  if (typeof v === "string") {
    const ts = parseIsoDateTime(v.trim());
    if (ts !== null) return ts;
  }
  throw invalid(`Cannot convert ${describe(v)} to TIMESTAMP`);
}

function toInteger(v: unknown, kind: string, min: number, max: number): number {
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) throw invalid(`Cannot convert ${describe(v)} to ${kind}`);
  return n;
}

function toBigInt64(v: unknown): bigint {
  if (typeof v === "bigint") {
    if (v !== BigInt.asIntN(64, v)) throw invalid(`Value ${v}n is out of BIGINT range`);
    return v;
  }
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  throw invalid(`Cannot convert ${describe(v)} to BIGINT`);
}

function mapEntries(v: unknown, what: string): Array<[unknown, unknown]> {
  if (v instanceof Map) return [...v.entries()];
  if (Array.isArray(v)) {
    for (const e of v) if (!Array.isArray(e) || e.length !== 2) throw invalid(`${what} entries must be [key, value] pairs, got ${describe(e)}`);
    return v as Array<[unknown, unknown]>;
  }
  if (v !== null && typeof v === "object") return Object.entries(v);
  throw invalid(`Cannot convert ${describe(v)} to ${what}`);
}

type Writer = AbstractBinaryWriter;

/** Writes `value` of `type` at `pos`, or the type's null form. */
function writeValue(w: Writer, pos: number, value: unknown, type: DataType, inArray: boolean): void {
  if (value === null || value === undefined) {
    if (!inArray && type.kind === "DECIMAL" && !isCompactDecimal(type.precision)) w.writeDecimal(pos, null, type.precision);
    else if (!inArray && (type.kind === "TIMESTAMP" || type.kind === "TIMESTAMP_LTZ") && !isCompactTimestamp(type.precision))
      w.writeTimestamp(pos, null, type.precision);
    else w.setNullAt(pos);
    return;
  }
  switch (type.kind) {
    case "BOOLEAN":
      if (typeof value !== "boolean") throw invalid(`Cannot convert ${describe(value)} to BOOLEAN`);
      w.writeBoolean(pos, value);
      return;
    case "TINYINT":
      w.writeByte(pos, toInteger(value, "TINYINT", -128, 127));
      return;
    case "SMALLINT":
      w.writeShort(pos, toInteger(value, "SMALLINT", -32768, 32767));
      return;
    case "INT":
      w.writeInt(pos, toInteger(value, "INT", -2147483648, 2147483647));
      return;
    case "DATE":
      w.writeInt(pos, toDays(value));
      return;
    case "TIME":
      w.writeInt(pos, toInteger(value, "TIME", 0, MILLIS_PER_DAY - 1));
      return;
    case "BIGINT":
      w.writeLong(pos, toBigInt64(value));
      return;
    case "FLOAT":
      if (typeof value !== "number") throw invalid(`Cannot convert ${describe(value)} to FLOAT`);
      w.writeFloat(pos, value);
      return;
    case "DOUBLE":
      if (typeof value !== "number") throw invalid(`Cannot convert ${describe(value)} to DOUBLE`);
      w.writeDouble(pos, value);
      return;
    case "CHAR":
    case "VARCHAR":
      if (typeof value !== "string") throw invalid(`Cannot convert ${describe(value)} to ${type.kind}`);
      w.writeBinary(pos, value);
      return;
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      if (!(value instanceof Uint8Array)) throw invalid(`Cannot convert ${describe(value)} to ${type.kind}`);
      w.writeBinary(pos, value);
      return;
    case "DECIMAL":
      w.writeDecimal(pos, toUnscaledDecimal(value, type.precision, type.scale), type.precision);
      return;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      w.writeTimestamp(pos, toTimestamp(value), type.precision);
      return;
    case "ARRAY": {
      if (!Array.isArray(value)) throw invalid(`Cannot convert ${describe(value)} to ${type.kind}`);
      w.writeArray(pos, toBinaryArray(value, type.element));
      return;
    }
    case "MAP": {
      const entries = mapEntries(value, "MAP");
      w.writeMap(pos, binaryMapBytes(toBinaryArray(entries.map((e) => e[0]), type.key), toBinaryArray(entries.map((e) => e[1]), type.value)));
      return;
    }
    case "MULTISET": {
      const entries = mapEntries(value, "MULTISET");
      const intType: DataType = { kind: "INT", nullable: false };
      w.writeMap(pos, binaryMapBytes(toBinaryArray(entries.map((e) => e[0]), type.element), toBinaryArray(entries.map((e) => e[1]), intType)));
      return;
    }
    case "ROW": {
      w.writeRow(pos, toBinaryRow(rowValues(value, type), type.fields.map((f) => f.type)));
      return;
    }
    case "VARIANT":
      throw new PaimonError("UNSUPPORTED", "VARIANT values are not supported in BinaryRow conversion");
  }
}

function rowValues(value: unknown, type: RowType): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === "object") return type.fields.map((f) => (value as Record<string, unknown>)[f.name]);
  throw invalid(`Cannot convert ${describe(value)} to ROW`);
}

/** BinaryArray bytes of `values` with element type `elementType`. */
export function toBinaryArray(values: readonly unknown[], elementType: DataType): Uint8Array {
  const w = new BinaryArrayWriter(values.length, arrayElementSize(elementType));
  for (let i = 0; i < values.length; i++) writeValue(w, i, values[i], elementType, true);
  return w.toBytes();
}

/**
 * Raw BinaryRow bytes of `values` (one per type, positional) as Java's BinaryRowWriter
 * writes them; `rowKind` goes into the header byte. Throws INVALID_ARGUMENT on values that
 * do not fit their type.
 */
export function toBinaryRow(values: readonly unknown[], types: readonly DataType[], rowKind = 0): Uint8Array {
  if (values.length !== types.length) throw invalid(`Row has ${values.length} values for ${types.length} types`);
  const w = new BinaryRowWriter(types.length);
  w.setRowKind(rowKind);
  for (let i = 0; i < types.length; i++) writeValue(w, i, values[i], types[i]!, false);
  return w.toBytes();
}

/**
 * `toBinaryRow` for data file statistics: a compact DECIMAL (p <= 18) may hold any unscaled
 * long there, as Java's BinaryRowWriter writes it unchecked (an aggregation sum past p digits
 * is kept in the file, and so in its bounds). Everything else is checked as in toBinaryRow.
 */
export function toStatsBinaryRow(values: readonly unknown[], types: readonly DataType[]): Uint8Array {
  if (values.length !== types.length) throw invalid(`Row has ${values.length} values for ${types.length} types`);
  const w = new BinaryRowWriter(types.length);
  for (let i = 0; i < types.length; i++) {
    const v = values[i];
    const t = types[i]!;
    if (t.kind === "DECIMAL" && isCompactDecimal(t.precision) && typeof v === "bigint" && v === BigInt.asIntN(64, v)) w.writeDecimal(i, v, t.precision);
    else writeValue(w, i, v, t, false);
  }
  return w.toBytes();
}

function readValue(s: BinarySection, pos: number, type: DataType): unknown {
  if (s.isNullAt(pos)) return null;
  switch (type.kind) {
    case "BOOLEAN":
      return s.getBoolean(pos);
    case "TINYINT":
      return s.getByte(pos);
    case "SMALLINT":
      return s.getShort(pos);
    case "INT":
    case "DATE":
    case "TIME":
      return s.getInt(pos);
    case "BIGINT":
      return s.getLong(pos);
    case "FLOAT":
      return s.getFloat(pos);
    case "DOUBLE":
      return s.getDouble(pos);
    case "CHAR":
    case "VARCHAR":
      return s.getString(pos);
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return s.getBinary(pos);
    case "DECIMAL":
      return s.getDecimal(pos, type.precision);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return s.getTimestamp(pos, type.precision);
    case "ARRAY":
      return fromBinaryArray(s.getArray(pos), type.element);
    case "MAP": {
      const m = s.getMap(pos);
      const keys = fromBinaryArray(m.keys, type.key);
      const values = fromBinaryArray(m.values, type.value);
      return new Map(keys.map((k, i) => [k, values[i]]));
    }
    case "MULTISET": {
      const m = s.getMap(pos);
      const keys = fromBinaryArray(m.keys, type.element);
      const counts = fromBinaryArray(m.values, { kind: "INT", nullable: false });
      return new Map(keys.map((k, i) => [k, counts[i]]));
    }
    case "ROW":
      return readRow(s.getRow(pos, type.fields.length), type.fields.map((f) => f.type));
    case "VARIANT":
      throw new PaimonError("UNSUPPORTED", "VARIANT values are not supported in BinaryRow conversion");
  }
}

function readRow(row: BinaryRow, types: readonly DataType[]): unknown[] {
  const out = new Array<unknown>(types.length);
  for (let i = 0; i < types.length; i++) out[i] = readValue(row, i, types[i]!);
  return out;
}

/** JS values of a BinaryArray's elements. */
export function fromBinaryArray(array: BinaryArray | Uint8Array, elementType: DataType): unknown[] {
  const a = array instanceof BinaryArray ? array : new BinaryArray(array);
  const out = new Array<unknown>(a.size);
  for (let i = 0; i < a.size; i++) out[i] = readValue(a, i, elementType);
  return out;
}

/** JS values (one per type) of a raw BinaryRow (or a `BinaryRow` view). */
export function fromBinaryRow(row: Uint8Array | BinaryRow, types: readonly DataType[]): unknown[] {
  const r = row instanceof BinaryRow ? row : new BinaryRow(row, types.length);
  if (r.arity !== types.length) throw invalid(`Row of arity ${r.arity} read with ${types.length} types`);
  return readRow(r, types);
}

/** Byte equality of two rows/sections. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
