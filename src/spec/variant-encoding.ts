// The binary VARIANT encoding of Spark / Parquet (a `value` byte string and a `metadata` key
// dictionary) as Java Paimon 1.4.2 builds and walks it (paimon-common data/variant
// GenericVariantBuilder, GenericVariantUtil): the builder and the readers of headers, objects,
// arrays and scalars. No runtime imports — the lazily loaded shredded-column reader
// (format/variant-shredded.ts) uses it too — so errors are VariantEncodingError, which
// spec/variant.ts (the public helpers) turns into PaimonError.
//
// value header byte: basic type in bits 0-1 (0 primitive, 1 short string, 2 object, 3 array),
// type info in bits 2-7. metadata: header (version 1, offset size - 1 in bits 6-7), key count,
// key offsets, key bytes — keys in first-seen order, not sorted (Java's builder).

/** A malformed or unsupported VARIANT encoding, or input that cannot be encoded (code as PaimonError's). */
export class VariantEncodingError extends Error {
  constructor(
    readonly code: "CORRUPT_FILE" | "INVALID_ARGUMENT" | "UNSUPPORTED",
    message: string,
  ) {
    super(message);
  }
}

const keyDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A VARIANT value as stored: the encoded `value` and its key dictionary `metadata`. */
export interface Variant {
  readonly value: Uint8Array;
  readonly metadata: Uint8Array;
}

const PRIMITIVE = 0;
const SHORT_STR = 1;
export const OBJECT = 2;
export const ARRAY = 3;

const NULL = 0;
const TRUE = 1;
const FALSE = 2;
const INT1 = 3;
const INT2 = 4;
const INT4 = 5;
const INT8 = 6;
const DOUBLE = 7;
const DECIMAL4 = 8;
const DECIMAL8 = 9;
const DECIMAL16 = 10;
const DATE = 11;
const TIMESTAMP = 12;
const TIMESTAMP_NTZ = 13;
const FLOAT = 14;
const BINARY = 15;
const LONG_STR = 16;
const UUID = 20;

const MAX_SHORT_STR_SIZE = 0x3f;
const SIZE_LIMIT = 128 * 1024 * 1024;
const MAX_DECIMAL4_PRECISION = 9;
const MAX_DECIMAL8_PRECISION = 18;
export const MAX_DECIMAL16_PRECISION = 38;
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const malformed = (detail: string) => new VariantEncodingError("CORRUPT_FILE", `Malformed VARIANT value: ${detail}`);
/** An error for input that cannot be encoded. */
export const invalidVariant = (detail: string) => new VariantEncodingError("INVALID_ARGUMENT", `Invalid VARIANT input: ${detail}`);
const unsupportedType = (info: number) => new VariantEncodingError("UNSUPPORTED", `VARIANT primitive type ${info} is not supported`);

/** Smallest unsigned byte width (1-4) holding `value` (Java's getIntegerSize). */
function integerSize(value: number): number {
  if (value <= 0xff) return 1;
  if (value <= 0xffff) return 2;
  if (value <= 0xffffff) return 3;
  return 4;
}

/** UTF-8 bytes as Java's `String.getBytes(UTF_8)`: a lone surrogate becomes '?'. */
function javaUtf8(text: string): Uint8Array {
  const wellFormed = text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "?");
  return new TextEncoder().encode(wellFormed);
}

/** An object field being written: its key, dictionary id and offset from the object's start. */
export interface VariantFieldEntry {
  key: string;
  id: number;
  offset: number;
}

/**
 * Java's GenericVariantBuilder (duplicate keys refused): appends values to a growing buffer;
 * objects and arrays are finished after their children, by shifting the children to make room
 * for the header. `result()` makes the metadata from the keys in first-added order.
 * @internal
 */
export class VariantBuilder {
  private buf = new Uint8Array(128);
  private pos = 0;
  private readonly ids = new Map<string, number>();
  private readonly keys: Uint8Array[] = [];

  get writePos(): number {
    return this.pos;
  }

  private reserve(additional: number): void {
    const required = this.pos + additional;
    if (required <= this.buf.length) return;
    if (required > SIZE_LIMIT) throw invalidVariant(`value larger than ${SIZE_LIMIT} bytes`);
    let capacity = this.buf.length;
    while (capacity < required) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  private writeLE(at: number, value: number | bigint, bytes: number): void {
    let v = BigInt.asUintN(bytes * 8, BigInt(value));
    for (let i = 0; i < bytes; i++) {
      this.buf[at + i] = Number(v & 0xffn);
      v >>= 8n;
    }
  }

  private header(type: number): void {
    this.buf[this.pos++] = (type << 2) | PRIMITIVE;
  }

  appendNull(): void {
    this.reserve(1);
    this.header(NULL);
  }

  appendBoolean(b: boolean): void {
    this.reserve(1);
    this.header(b ? TRUE : FALSE);
  }

  /** A 64-bit integer in the smallest of INT1 / INT2 / INT4 / INT8 that holds it. */
  appendLong(value: bigint): void {
    this.reserve(9);
    const n = Number(value);
    const [type, bytes] = n >= -128 && n <= 127 ? [INT1, 1] : n >= -32768 && n <= 32767 ? [INT2, 2] : n >= -(2 ** 31) && n < 2 ** 31 ? [INT4, 4] : [INT8, 8];
    this.header(type);
    this.writeLE(this.pos, value, bytes);
    this.pos += bytes;
  }

  appendDouble(d: number): void {
    this.reserve(9);
    this.header(DOUBLE);
    new DataView(this.buf.buffer).setFloat64(this.pos, d, true);
    this.pos += 8;
  }

  appendFloat(f: number): void {
    this.reserve(5);
    this.header(FLOAT);
    new DataView(this.buf.buffer).setFloat32(this.pos, f, true);
    this.pos += 4;
  }

  /** A decimal of `unscaled` × 10^-scale (precision and scale at most 38). */
  appendDecimal(unscaled: bigint, scale: number): void {
    const precision = (unscaled < 0n ? -unscaled : unscaled).toString().length;
    const [type, bytes] = scale <= MAX_DECIMAL4_PRECISION && precision <= MAX_DECIMAL4_PRECISION ? [DECIMAL4, 4] : scale <= MAX_DECIMAL8_PRECISION && precision <= MAX_DECIMAL8_PRECISION ? [DECIMAL8, 8] : [DECIMAL16, 16];
    this.reserve(2 + bytes);
    this.header(type);
    this.buf[this.pos++] = scale;
    this.writeLE(this.pos, unscaled, bytes);
    this.pos += bytes;
  }

  private appendFixed(type: number, value: bigint | number, bytes: number): void {
    this.reserve(1 + bytes);
    this.header(type);
    this.writeLE(this.pos, value, bytes);
    this.pos += bytes;
  }

  appendDate(epochDay: number): void {
    this.appendFixed(DATE, epochDay, 4);
  }

  /** TIMESTAMP (with local time zone semantics): microseconds since the epoch. */
  appendTimestamp(micros: bigint): void {
    this.appendFixed(TIMESTAMP, micros, 8);
  }

  appendTimestampNtz(micros: bigint): void {
    this.appendFixed(TIMESTAMP_NTZ, micros, 8);
  }

  appendString(text: string): void {
    this.appendUtf8(javaUtf8(text));
  }

  appendUtf8(bytes: Uint8Array): void {
    const long = bytes.length > MAX_SHORT_STR_SIZE;
    this.reserve((long ? 5 : 1) + bytes.length);
    if (long) {
      this.header(LONG_STR);
      this.writeLE(this.pos, bytes.length, 4);
      this.pos += 4;
    } else {
      this.buf[this.pos++] = (bytes.length << 2) | SHORT_STR;
    }
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  appendBinary(bytes: Uint8Array): void {
    this.reserve(5 + bytes.length);
    this.header(BINARY);
    this.writeLE(this.pos, bytes.length, 4);
    this.pos += 4;
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** The dictionary id of `key`, added if new. */
  addKey(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.ids.set(key, id);
      this.keys.push(javaUtf8(key));
    }
    return id;
  }

  /** Finishes an object whose field values were appended since `start` (`fields`: in append order). */
  finishObject(start: number, fields: VariantFieldEntry[]): void {
    fields.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const size = fields.length;
    let maxId = size === 0 ? 0 : fields[0]!.id;
    for (let i = 1; i < size; i++) {
      maxId = Math.max(maxId, fields[i]!.id);
      if (fields[i]!.key === fields[i - 1]!.key) throw invalidVariant(`duplicate object key ${JSON.stringify(fields[i]!.key)}`);
    }
    const dataSize = this.pos - start;
    const large = size > 0xff;
    const sizeBytes = large ? 4 : 1;
    const idSize = integerSize(maxId);
    const offsetSize = integerSize(dataSize);
    const headerSize = 1 + sizeBytes + size * idSize + (size + 1) * offsetSize;
    this.reserve(headerSize);
    this.buf.copyWithin(start + headerSize, start, start + dataSize);
    this.pos += headerSize;
    this.buf[start] = ((large ? 1 : 0) << 6) | ((idSize - 1) << 4) | ((offsetSize - 1) << 2) | OBJECT;
    this.writeLE(start + 1, size, sizeBytes);
    const idStart = start + 1 + sizeBytes;
    const offsetStart = idStart + size * idSize;
    fields.forEach((f, i) => {
      this.writeLE(idStart + i * idSize, f.id, idSize);
      this.writeLE(offsetStart + i * offsetSize, f.offset, offsetSize);
    });
    this.writeLE(offsetStart + size * offsetSize, dataSize, offsetSize);
  }

  /** Finishes an array whose elements were appended since `start` (`offsets`: each element's offset from `start`). */
  finishArray(start: number, offsets: readonly number[]): void {
    const dataSize = this.pos - start;
    const size = offsets.length;
    const large = size > 0xff;
    const sizeBytes = large ? 4 : 1;
    const offsetSize = integerSize(dataSize);
    const headerSize = 1 + sizeBytes + (size + 1) * offsetSize;
    this.reserve(headerSize);
    this.buf.copyWithin(start + headerSize, start, start + dataSize);
    this.pos += headerSize;
    this.buf[start] = ((large ? 1 : 0) << 4) | ((offsetSize - 1) << 2) | ARRAY;
    this.writeLE(start + 1, size, sizeBytes);
    const offsetStart = start + 1 + sizeBytes;
    offsets.forEach((o, i) => this.writeLE(offsetStart + i * offsetSize, o, offsetSize));
    this.writeLE(offsetStart + size * offsetSize, dataSize, offsetSize);
  }

  /** Appends the value at `pos` of another variant, re-keying its objects into this builder's dictionary (Java's appendVariant). */
  appendVariant(v: Variant, pos = 0): void {
    const { value } = v;
    const basic = byteAt(value, pos) & 3;
    if (basic === OBJECT) {
      const start = this.pos;
      const fields: VariantFieldEntry[] = [];
      for (const f of variantObjectFields(v, pos)!) {
        fields.push({ key: f.key, id: this.addKey(f.key), offset: this.pos - start });
        this.appendVariant(v, f.pos);
      }
      this.finishObject(start, fields);
    } else if (basic === ARRAY) {
      const a = arrayLayout(value, pos);
      const start = this.pos;
      const offsets: number[] = [];
      for (let i = 0; i < a.size; i++) {
        offsets.push(this.pos - start);
        this.appendVariant(v, a.dataStart + readUnsigned(value, a.offsetStart + a.offsetSize * i, a.offsetSize));
      }
      this.finishArray(start, offsets);
    } else {
      const size = valueSize(value, pos);
      if (pos + size > value.length) throw malformed("value truncated");
      this.reserve(size);
      this.buf.set(value.subarray(pos, pos + size), this.pos);
      this.pos += size;
    }
  }

  /**
   * Appends the value at `pos` of `value` byte for byte, its object keys left as they are (Java's
   * shallowAppendVariant: the ids must stay those of the value's own metadata).
   */
  appendRaw(value: Uint8Array, pos: number): void {
    const size = valueSize(value, pos);
    if (pos + size > value.length) throw malformed("value truncated");
    this.reserve(size);
    this.buf.set(value.subarray(pos, pos + size), this.pos);
    this.pos += size;
  }

  /** The value bytes written so far, without a metadata dictionary (Java's valueWithoutMetadata). */
  valueBytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** The built variant: the value bytes and a metadata dictionary of every added key. */
  result(): Variant {
    const stringSize = this.keys.reduce((n, k) => n + k.length, 0);
    const offsetSize = integerSize(Math.max(stringSize, this.keys.length));
    const stringStart = 1 + offsetSize + (this.keys.length + 1) * offsetSize;
    const metadata = new Uint8Array(stringStart + stringSize);
    const put = (at: number, v: number) => {
      for (let i = 0; i < offsetSize; i++) metadata[at + i] = (v >>> (8 * i)) & 0xff;
    };
    metadata[0] = 1 | ((offsetSize - 1) << 6);
    put(1, this.keys.length);
    let offset = 0;
    this.keys.forEach((k, i) => {
      put(1 + offsetSize + i * offsetSize, offset);
      metadata.set(k, stringStart + offset);
      offset += k.length;
    });
    put(1 + offsetSize + this.keys.length * offsetSize, offset);
    return { value: this.buf.slice(0, this.pos), metadata };
  }
}

// ---- reading ----

export function byteAt(bytes: Uint8Array, pos: number): number {
  if (pos < 0 || pos >= bytes.length) throw malformed(`offset ${pos} outside ${bytes.length} bytes`);
  return bytes[pos]!;
}

export function readUnsigned(bytes: Uint8Array, pos: number, n: number): number {
  if (pos + n > bytes.length) throw malformed(`offset ${pos + n} outside ${bytes.length} bytes`);
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + bytes[pos + i]!;
  return v;
}

function readSigned(bytes: Uint8Array, pos: number, n: number): bigint {
  if (pos + n > bytes.length) throw malformed(`offset ${pos + n} outside ${bytes.length} bytes`);
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[pos + i]!);
  return BigInt.asIntN(n * 8, v);
}

export interface ObjectLayout {
  size: number;
  idSize: number;
  offsetSize: number;
  idStart: number;
  offsetStart: number;
  dataStart: number;
}

/** @internal */
export function objectLayout(value: Uint8Array, pos: number): ObjectLayout {
  const h = byteAt(value, pos) >> 2;
  const sizeBytes = (h >> 4) & 1 ? 4 : 1;
  const idSize = ((h >> 2) & 3) + 1;
  const offsetSize = (h & 3) + 1;
  const size = readUnsigned(value, pos + 1, sizeBytes);
  const idStart = pos + 1 + sizeBytes;
  const offsetStart = idStart + size * idSize;
  return { size, idSize, offsetSize, idStart, offsetStart, dataStart: offsetStart + (size + 1) * offsetSize };
}

export function arrayLayout(value: Uint8Array, pos: number): { size: number; offsetSize: number; offsetStart: number; dataStart: number } {
  const h = byteAt(value, pos) >> 2;
  const sizeBytes = (h >> 2) & 1 ? 4 : 1;
  const offsetSize = (h & 3) + 1;
  const size = readUnsigned(value, pos + 1, sizeBytes);
  const offsetStart = pos + 1 + sizeBytes;
  return { size, offsetSize, offsetStart, dataStart: offsetStart + (size + 1) * offsetSize };
}

/** The key of dictionary id `id` (Java's getMetadataKey). @internal */
export function metadataKey(metadata: Uint8Array, id: number): string {
  const h = byteAt(metadata, 0);
  if ((h & 0x0f) !== 1) throw malformed(`metadata version ${h & 0x0f}`);
  const offsetSize = ((h >> 6) & 3) + 1;
  const dictSize = readUnsigned(metadata, 1, offsetSize);
  if (id >= dictSize) throw malformed(`key id ${id} outside a dictionary of ${dictSize}`);
  const stringStart = 1 + (dictSize + 2) * offsetSize;
  const from = readUnsigned(metadata, 1 + (id + 1) * offsetSize, offsetSize);
  const to = readUnsigned(metadata, 1 + (id + 2) * offsetSize, offsetSize);
  if (from > to || stringStart + to > metadata.length) throw malformed("key offsets");
  return keyDecoder.decode(metadata.subarray(stringStart + from, stringStart + to));
}

/**
 * The fields of the object at `pos` of `v` (stored order: sorted by key), each key with its
 * value's position; null when the value there is not an object.
 * @internal
 */
export function variantObjectFields(v: Variant, pos = 0): Array<{ key: string; pos: number }> | null {
  if ((byteAt(v.value, pos) & 3) !== OBJECT) return null;
  const o = objectLayout(v.value, pos);
  const fields: Array<{ key: string; pos: number }> = [];
  for (let i = 0; i < o.size; i++) {
    fields.push({ key: metadataKey(v.metadata, readUnsigned(v.value, o.idStart + o.idSize * i, o.idSize)), pos: o.dataStart + readUnsigned(v.value, o.offsetStart + o.offsetSize * i, o.offsetSize) });
  }
  return fields;
}

/** Byte size of the value at `pos` (Java's valueSize). @internal */
export function valueSize(value: Uint8Array, pos: number): number {
  const b = byteAt(value, pos);
  const basic = b & 3;
  const info = b >> 2;
  if (basic === SHORT_STR) return 1 + info;
  if (basic === OBJECT) {
    const o = objectLayout(value, pos);
    return o.dataStart - pos + readUnsigned(value, o.offsetStart + o.size * o.offsetSize, o.offsetSize);
  }
  if (basic === ARRAY) {
    const a = arrayLayout(value, pos);
    return a.dataStart - pos + readUnsigned(value, a.offsetStart + a.size * a.offsetSize, a.offsetSize);
  }
  switch (info) {
    case NULL:
    case TRUE:
    case FALSE:
      return 1;
    case INT1:
      return 2;
    case INT2:
      return 3;
    case INT4:
    case DATE:
    case FLOAT:
      return 5;
    case INT8:
    case DOUBLE:
    case TIMESTAMP:
    case TIMESTAMP_NTZ:
      return 9;
    case DECIMAL4:
      return 6;
    case DECIMAL8:
      return 10;
    case DECIMAL16:
      return 18;
    case BINARY:
    case LONG_STR:
      return 5 + readUnsigned(value, pos + 1, 4);
    case UUID:
      return 17;
    default:
      throw unsupportedType(info);
  }
}

function uuidString(value: Uint8Array, pos: number): string {
  if (pos + 16 > value.length) throw malformed("uuid truncated");
  const hex = Array.from(value.subarray(pos, pos + 16), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A primitive VARIANT value, decoded. */
export type Scalar = { kind: "null" } | { kind: "boolean"; v: boolean } | { kind: "long"; v: bigint } | { kind: "double" | "float"; v: number } | { kind: "decimal"; unscaled: bigint; scale: number } | { kind: "date"; v: number } | { kind: "timestamp" | "timestamp_ntz"; v: bigint } | { kind: "string"; v: string } | { kind: "binary"; v: Uint8Array } | { kind: "uuid"; v: string };

/** The primitive (or short string) at `pos`. */
export function scalarAt(value: Uint8Array, pos: number): Scalar {
  const b = byteAt(value, pos);
  if ((b & 3) === SHORT_STR) {
    const n = b >> 2;
    if (pos + 1 + n > value.length) throw malformed("string truncated");
    return { kind: "string", v: keyDecoder.decode(value.subarray(pos + 1, pos + 1 + n)) };
  }
  const info = b >> 2;
  const dv = () => new DataView(value.buffer, value.byteOffset, value.byteLength);
  const need = (n: number) => {
    if (pos + n > value.length) throw malformed("value truncated");
  };
  switch (info) {
    case NULL:
      return { kind: "null" };
    case TRUE:
    case FALSE:
      return { kind: "boolean", v: info === TRUE };
    case INT1:
      return { kind: "long", v: readSigned(value, pos + 1, 1) };
    case INT2:
      return { kind: "long", v: readSigned(value, pos + 1, 2) };
    case INT4:
      return { kind: "long", v: readSigned(value, pos + 1, 4) };
    case INT8:
      return { kind: "long", v: readSigned(value, pos + 1, 8) };
    case DOUBLE:
      need(9);
      return { kind: "double", v: dv().getFloat64(pos + 1, true) };
    case FLOAT:
      need(5);
      return { kind: "float", v: dv().getFloat32(pos + 1, true) };
    case DECIMAL4:
    case DECIMAL8:
    case DECIMAL16: {
      const bytes = info === DECIMAL4 ? 4 : info === DECIMAL8 ? 8 : 16;
      const scale = byteAt(value, pos + 1);
      if (scale > MAX_DECIMAL16_PRECISION) throw malformed(`decimal scale ${scale}`);
      return { kind: "decimal", unscaled: readSigned(value, pos + 2, bytes), scale };
    }
    case DATE:
      return { kind: "date", v: Number(readSigned(value, pos + 1, 4)) };
    case TIMESTAMP:
    case TIMESTAMP_NTZ:
      return { kind: info === TIMESTAMP ? "timestamp" : "timestamp_ntz", v: readSigned(value, pos + 1, 8) };
    case BINARY:
    case LONG_STR: {
      const n = readUnsigned(value, pos + 1, 4);
      need(5 + n);
      const bytes = value.subarray(pos + 5, pos + 5 + n);
      return info === BINARY ? { kind: "binary", v: bytes.slice() } : { kind: "string", v: keyDecoder.decode(bytes) };
    }
    case UUID:
      return { kind: "uuid", v: uuidString(value, pos + 1) };
    default:
      throw unsupportedType(info);
  }
}
