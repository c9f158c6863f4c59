// The `.offset` sidecar of append-deduplicate data files (seed 000 "Append Deduplicate / Offset
// DV": "key -> logical offset(s) ... .offset sidecars"), in paimon-cpp's layout
// (`realtime_key_offset_index.cpp`, experimental there): one file `<data file>.offset` listed in
// the data file's extra files, holding, big-endian, int64 magic "PAIMOFFS", int32 version 1,
// int64 entry count, then per entry int32 key length, the key bytes and the int64 offset. Entries
// are ordered by key bytes (unsigned, shorter first, as a C++ std::map<std::string>); a file maps
// each key to at most one offset. Key bytes: 0x00 for null, else 0x01 and the key as paimon-cpp's
// KeySerializer writes it (fixed-width integers little-endian, as its MemorySliceOutput does on
// every supported platform; strings as UTF-8; decimals and timestamps as described below).
import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { OffsetSet64 } from "../kernel/bitmap.js";
import type { Timestamp } from "../spec/binary-row.js";
import { type DataType, typeToString } from "../spec/types.js";
import { internalValue } from "../arrow/row-values.js";
import { doubleToLongBits, floatToIntBits } from "./columns.js";
import { sortPermutation } from "../kernel/sort.js";

export const OFFSET_SIDECAR_SUFFIX = ".offset";
export const OFFSET_SIDECAR_MAGIC = 0x5041494d4f464653n;
export const OFFSET_SIDECAR_VERSION = 1;

const UTF8 = new TextEncoder();
const COMPACT_DECIMAL_PRECISION = 18;
const COMPACT_TIMESTAMP_PRECISION = 3;

function fixed(bytes: number, write: (view: DataView) => void): Uint8Array {
  const out = new Uint8Array(1 + bytes);
  out[0] = 1;
  write(new DataView(out.buffer, 1));
  return out;
}

/** Java `BigInteger.toByteArray`: minimal big-endian two's complement. */
function bigEndianTwosComplement(v: bigint): Uint8Array {
  const bytes: number[] = [];
  let x = v;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, x));
    bytes.unshift(byte);
    x >>= 8n;
    if ((x === 0n && (byte & 0x80) === 0) || (x === -1n && (byte & 0x80) !== 0)) break;
  }
  return Uint8Array.from(bytes);
}

/** Unsigned LEB128 of a non-negative int (paimon's VarLengthIntUtils). */
function varInt(v: number): number[] {
  const out: number[] = [];
  let x = v;
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
  return out;
}

/** Key types paimon-cpp's KeySerializer accepts. */
export function sidecarKeySupported(type: DataType): boolean {
  return ["BOOLEAN", "TINYINT", "SMALLINT", "INT", "DATE", "BIGINT", "FLOAT", "DOUBLE", "CHAR", "VARCHAR", "TIMESTAMP", "TIMESTAMP_LTZ", "DECIMAL"].includes(type.kind);
}

/** The sidecar bytes of one key value (internal representation, null allowed) of `type`. */
export function encodeSidecarKey(type: DataType, value: unknown): Uint8Array {
  if (value === null || value === undefined) return Uint8Array.of(0);
  switch (type.kind) {
    case "BOOLEAN":
      return fixed(1, (v) => v.setInt8(0, value ? 1 : 0));
    case "TINYINT":
      return fixed(1, (v) => v.setInt8(0, value as number));
    case "SMALLINT":
      return fixed(2, (v) => v.setInt16(0, value as number, true));
    case "INT":
    case "DATE":
      return fixed(4, (v) => v.setInt32(0, value as number, true));
    case "BIGINT":
      return fixed(8, (v) => v.setBigInt64(0, BigInt(value as bigint), true));
    case "FLOAT":
      return fixed(4, (v) => v.setInt32(0, floatToIntBits(value as number), true));
    case "DOUBLE":
      return fixed(8, (v) => v.setBigInt64(0, doubleToLongBits(value as number), true));
    case "CHAR":
    case "VARCHAR": {
      const s = UTF8.encode(value as string);
      const out = new Uint8Array(1 + s.length);
      out[0] = 1;
      out.set(s, 1);
      return out;
    }
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const ts = value as Timestamp;
      if (type.precision <= COMPACT_TIMESTAMP_PRECISION) return fixed(8, (v) => v.setBigInt64(0, ts.millis, true));
      const nanos = varInt(ts.nanoOfMillisecond);
      const out = fixed(8 + nanos.length, (v) => v.setBigInt64(0, ts.millis, true));
      out.set(nanos, 9);
      return out;
    }
    case "DECIMAL": {
      const unscaled = value as bigint;
      if (type.precision <= COMPACT_DECIMAL_PRECISION) return fixed(8, (v) => v.setBigInt64(0, unscaled, true));
      const b = bigEndianTwosComplement(unscaled);
      const out = new Uint8Array(1 + b.length);
      out[0] = 1;
      out.set(b, 1);
      return out;
    }
    default:
      throw new PaimonError("UNSUPPORTED", `a .offset sidecar cannot hold keys of type ${typeToString(type)}`);
  }
}

/** Key bytes as a map key: one char per byte, so string order is unsigned byte order. */
function keyString(bytes: Uint8Array): string {
  let s = "";
  if (bytes.length <= 32) {
    for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return s;
  }
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
}

/** Byte widths of the integer key types whose sidecar bytes are their little-endian column bytes. */
const RAW_LITTLE_ENDIAN_WIDTH: Partial<Record<DataType["kind"], number>> = { TINYINT: 1, SMALLINT: 2, INT: 4, DATE: 4, BIGINT: 8 };
const LITTLE_ENDIAN_PLATFORM = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * The sidecar key strings of every row of a key column. Integer columns without nulls are
 * encoded straight from their buffers (typed arrays are little-endian on every platform that
 * runs this; checked), other columns value by value.
 */
function keyStrings(keys: arrow.Data, type: DataType): string[] {
  const out = new Array<string>(keys.length);
  const width = RAW_LITTLE_ENDIAN_WIDTH[type.kind];
  if (width !== undefined && keys.nullCount === 0 && LITTLE_ENDIAN_PLATFORM) {
    const values = keys.values as ArrayLike<number> & { buffer: ArrayBuffer; byteOffset: number };
    // Arrow slices value buffers with the data (as `internalValue` reads them): row 0 is at the view start.
    const bytes = new Uint8Array(values.buffer, values.byteOffset, keys.length * width);
    const prefix = String.fromCharCode(1);
    for (let row = 0, at = 0; row < keys.length; row++, at += width) {
      out[row] =
        width === 8
          ? prefix + String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3], bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7])
          : prefix + String.fromCharCode(...bytes.subarray(at, at + width));
    }
    return out;
  }
  for (let row = 0; row < keys.length; row++) out[row] = keyString(encodeSidecarKey(type, internalValue(keys, row, type)));
  return out;
}

/**
 * Integer keys without nulls, kept as typed arrays: per row a 64-bit sort key (the sidecar key
 * bytes read big-endian, left-aligned, sign bit flipped: signed order = unsigned byte order) and
 * its offset. Sorted once by the sort kernel when serialized; a repeated key is found there.
 */
class IntegerKeys {
  private readonly sortKeys: BigInt64Array[] = [];
  private readonly offsets: BigInt64Array[] = [];
  size = 0;

  constructor(private readonly width: number) {}

  add(keys: arrow.Data, offsets: BigInt64Array): void {
    const n = keys.length;
    const w = this.width;
    const values = keys.values as ArrayLike<number> & { buffer: ArrayBuffer; byteOffset: number };
    const input = new Uint8Array(values.buffer, values.byteOffset, n * w);
    const sortKeys = new BigInt64Array(n);
    const out = new Uint8Array(sortKeys.buffer);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < w; j++) out[8 * i + 7 - j] = input[w * i + j];
      out[8 * i + 7] ^= 0x80;
    }
    this.sortKeys.push(sortKeys);
    this.offsets.push(offsets.slice());
    this.size += n;
  }

  serialize(): Uint8Array {
    const n = this.size;
    const w = this.width;
    const keys = new BigInt64Array(n);
    const offsets = new BigInt64Array(n);
    for (let p = 0, at = 0; p < this.sortKeys.length; at += this.sortKeys[p].length, p++) {
      keys.set(this.sortKeys[p], at);
      offsets.set(this.offsets[p], at);
    }
    const order = sortPermutation([{ type: "int64", length: n, values: keys }], new BigInt64Array(n));
    const out = new Uint8Array(20 + n * (4 + 1 + w + 8));
    const view = new DataView(out.buffer);
    writeHeader(view, n);
    const keyBytes = new Uint8Array(keys.buffer);
    let at = 20;
    for (let i = 0; i < n; i++) {
      const r = order[i];
      if (i > 0 && keys[r] === keys[order[i - 1]]) throw new PaimonError("INVALID_ARGUMENT", DUPLICATE_KEY);
      view.setInt32(at, 1 + w, false);
      out[at + 4] = 1;
      out[at + 5] = keyBytes[8 * r + 7] ^ 0x80;
      for (let j = 1; j < w; j++) out[at + 5 + j] = keyBytes[8 * r + 7 - j];
      view.setBigInt64(at + 5 + w, offsets[r], false);
      at += 4 + 1 + w + 8;
    }
    return out;
  }
}

const DUPLICATE_KEY = "deduplicate data file contains more than one offset for a key";

function writeHeader(view: DataView, count: number): void {
  view.setBigInt64(0, OFFSET_SIDECAR_MAGIC, false);
  view.setInt32(8, OFFSET_SIDECAR_VERSION, false);
  view.setBigInt64(12, BigInt(count), false);
}

/**
 * Builds the sidecar of one data file from its key column and offsets. A key repeated in the
 * file is refused (INVALID_ARGUMENT) by `add` or, for integer keys, by `serialize`; a refused
 * writer must not be used further.
 */
export class KeyOffsetSidecarWriter {
  private readonly offsets = new Map<string, bigint>();
  /** Integer keys while every batch was null-free (null after the first batch with nulls: then `offsets` holds all). */
  private integers: IntegerKeys | null;

  constructor(private readonly keyType: DataType) {
    if (!sidecarKeySupported(keyType)) throw new PaimonError("UNSUPPORTED", `a .offset sidecar cannot hold keys of type ${typeToString(keyType)}`);
    const width = RAW_LITTLE_ENDIAN_WIDTH[keyType.kind];
    this.integers = width !== undefined && LITTLE_ENDIAN_PLATFORM ? new IntegerKeys(width) : null;
  }

  get size(): number {
    return this.integers ? this.integers.size : this.offsets.size;
  }

  /** Adds a batch: key column (canonical Arrow layout of the key type) and its rows' offsets. */
  add(keys: arrow.Data, offsets: BigInt64Array): void {
    if (keys.length !== offsets.length) throw new PaimonError("INVALID_ARGUMENT", `.offset sidecar input: ${keys.length} keys but ${offsets.length} offsets`);
    for (let row = 0; row < offsets.length; row++) {
      if (offsets[row] < 0n) throw new PaimonError("INVALID_ARGUMENT", `real-time offset ${offsets[row]} must not be negative`);
    }
    if (this.integers && keys.nullCount === 0) {
      this.integers.add(keys, offsets);
      return;
    }
    if (this.integers) {
      // a batch with null keys: the rows so far move to the map (in sidecar order, with the duplicate check)
      const before = KeyOffsetSidecar.parse(this.integers.size > 0 ? this.integers.serialize() : emptySidecar(), this.keyType, "(sidecar)");
      this.integers = null;
      for (const [k, o] of before.entries()) this.offsets.set(k, o);
    }
    const encoded = keyStrings(keys, this.keyType);
    const added: string[] = [];
    for (let row = 0; row < offsets.length; row++) {
      const key = encoded[row];
      if (this.offsets.has(key)) {
        for (const k of added) this.offsets.delete(k); // a refused batch adds nothing
        throw new PaimonError("INVALID_ARGUMENT", DUPLICATE_KEY);
      }
      this.offsets.set(key, offsets[row]);
      added.push(key);
    }
  }

  /** The sidecar bytes (INVALID_ARGUMENT when empty, as paimon-cpp refuses an empty sidecar). */
  serialize(): Uint8Array {
    if (this.size === 0) throw new PaimonError("INVALID_ARGUMENT", "cannot finish an empty .offset sidecar");
    if (this.integers) return this.integers.serialize();
    const keys = [...this.offsets.keys()].sort(); // code-unit order = unsigned byte order (one char per byte)
    let size = 8 + 4 + 8;
    for (const k of keys) size += 4 + k.length + 8;
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    writeHeader(view, keys.length);
    let at = 20;
    for (const k of keys) {
      view.setInt32(at, k.length, false);
      for (let i = 0; i < k.length; i++) out[at + 4 + i] = k.charCodeAt(i);
      at += 4 + k.length;
      view.setBigInt64(at, this.offsets.get(k)!, false);
      at += 8;
    }
    return out;
  }
}

function emptySidecar(): Uint8Array {
  const out = new Uint8Array(20);
  writeHeader(new DataView(out.buffer), 0);
  return out;
}

/** A parsed sidecar: key bytes → offset. */
export class KeyOffsetSidecar {
  private constructor(
    private readonly keyType: DataType,
    private readonly offsets: ReadonlyMap<string, bigint>,
  ) {}

  /** Number of keys. */
  get size(): number {
    return this.offsets.size;
  }

  /** Parses sidecar bytes; CORRUPT_FILE naming `fileName` on any deviation from the layout. */
  static parse(bytes: Uint8Array, keyType: DataType, fileName: string): KeyOffsetSidecar {
    const corrupt = (what: string) => new PaimonError("CORRUPT_FILE", `${fileName}: ${what}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const need = (at: number, n: number) => {
      if (at + n > bytes.length) throw corrupt("truncated .offset sidecar");
    };
    need(0, 20);
    if (view.getBigInt64(0, false) !== OFFSET_SIDECAR_MAGIC || view.getInt32(8, false) !== OFFSET_SIDECAR_VERSION) throw corrupt("unsupported .offset sidecar format");
    const count = view.getBigInt64(12, false);
    if (count < 0n) throw corrupt("negative entry count in .offset sidecar");
    const offsets = new Map<string, bigint>();
    let at = 20;
    for (let i = 0n; i < count; i++) {
      need(at, 4);
      const length = view.getInt32(at, false);
      if (length <= 0) throw corrupt(`invalid key size ${length} in .offset sidecar`);
      need(at + 4, length + 8);
      const key = keyString(bytes.subarray(at + 4, at + 4 + length));
      at += 4 + length;
      const offset = view.getBigInt64(at, false);
      at += 8;
      if (offset < 0n) throw corrupt(`negative offset ${offset} in .offset sidecar`);
      if (offsets.has(key)) throw corrupt("duplicate key in .offset sidecar");
      offsets.set(key, offset);
    }
    if (at !== bytes.length) throw corrupt("trailing bytes in .offset sidecar");
    return new KeyOffsetSidecar(keyType, offsets);
  }

  /** Key strings (one char per key byte) and offsets. */
  entries(): IterableIterator<[string, bigint]> {
    return this.offsets.entries();
  }

  /** The offset of one key (internal value), or undefined. */
  offsetOf(value: unknown): bigint | undefined {
    return this.offsets.get(keyString(encodeSidecarKey(this.keyType, value)));
  }

  /** The offsets of the keys of a key column present in this file. The caller owns the set. */
  lookup(keys: arrow.Data): OffsetSet64 {
    const found: bigint[] = [];
    for (const key of keyStrings(keys, this.keyType)) {
      const offset = this.offsets.get(key);
      if (offset !== undefined) found.push(offset);
    }
    return new OffsetSet64(found);
  }
}

/** The `.offset` sidecar among a data file's extra files; INVALID_ARGUMENT naming the file when there are several. */
export function offsetSidecarOf(dataFileName: string, extraFiles: readonly string[]): string | undefined {
  const found = extraFiles.filter((f) => f.endsWith(OFFSET_SIDECAR_SUFFIX));
  if (found.length > 1) throw new PaimonError("CORRUPT_FILE", `data file ${dataFileName} lists ${found.length} .offset sidecars`);
  return found[0];
}
