// The bitmap file index (Java `BitmapFileIndex`, `BitmapFileIndexMeta` (V1) and
// `BitmapFileIndexMetaV2`; format reference §9.3, spec `fileindex.mdx`). A dictionary from
// each distinct non-null value to the RoaringBitmap of its row positions, plus a null bitmap.
// A value (or null) found in exactly one row stores `offset = -1 - row` instead of a bitmap.
//
//   V1: u8 version=1 | i32 rowCount | i32 valueCount | bool hasNull | [i32 nullOffset]
//       | per value (Java HashMap order): value, i32 offset | bitmaps
//   V2: u8 version=2 | i32 rowCount | i32 valueCount | bool hasNull | [i32 nullOffset, i32 nullLength]
//       | i32 blockCount | per block: first value, i32 blockOffset | i32 bitmapsOffset
//       | blocks (sorted by value, ≤ index-block-size bytes each): i32 n, n × (value, i32 offset, i32 length)
//       | bitmaps
//
// Bitmaps are RoaringBitmap portable serializations after `runOptimize()`, written null
// bitmap first, then in the iteration order of Java's `HashMap<value, bitmap>`, which the
// writer replays (java-order.ts) so that its bytes equal Java's.
import { PaimonError } from "../error.js";
import { RoaringBitmap32 } from "../kernel/bitmap.js";
import type { Timestamp } from "../spec/binary-row.js";
import { compareUtf8 } from "../predicate/predicate.js";
import type { DataType } from "../spec/types.js";
import { ByteReader, ByteWriter } from "../spec/data-stream.js";
import { utf8Decoder } from "../spec/utf8.js";
import { doubleToLongBits, floatToIntBits, timestampLiteralKeys } from "./columns.js";
import { binaryStringHash, javaBooleanHash, javaLongHash, sortableDoubleBits, sortableFloatBits } from "./java-hash.js";

export const BITMAP = "bitmap";
export const BITMAP_VERSION_1 = 1;
export const BITMAP_VERSION_2 = 2;
/** What Java 1.4.2 writes unless `file-index.bitmap.<col>.version` says otherwise. */
export const BITMAP_DEFAULT_VERSION = BITMAP_VERSION_2;
export const BITMAP_DEFAULT_INDEX_BLOCK_SIZE = 16 * 1024;

/** A dictionary key: the Java boxed value as a JS primitive (FLOAT/DOUBLE as their bit patterns). */
export type BitmapKey = string | number | bigint | boolean;

/** The Java value class a type's keys belong to (`BitmapFileIndexMeta.DataTypeVisitorAdapter`). */
type KeyFamily = "string" | "byte" | "short" | "int" | "long" | "float" | "double" | "boolean";

export const FAMILY: Partial<Record<DataType["kind"], KeyFamily>> = {
  CHAR: "string",
  VARCHAR: "string",
  BOOLEAN: "boolean",
  TINYINT: "byte",
  SMALLINT: "short",
  INT: "int",
  DATE: "int",
  TIME: "int",
  BIGINT: "long",
  TIMESTAMP: "long",
  TIMESTAMP_LTZ: "long",
  FLOAT: "float",
  DOUBLE: "double",
};

/** Column types Java's bitmap index supports. */
export const BITMAP_TYPES: ReadonlySet<DataType["kind"]> = new Set(Object.keys(FAMILY) as DataType["kind"][]);

const UTF8 = new TextEncoder();

/** Per key family: Java's hashCode, comparator, serialized size and value encoding. */
export interface KeyCodec {
  hash(key: BitmapKey): number;
  compare(a: BitmapKey, b: BitmapKey): number;
  size(key: BitmapKey): number;
  write(out: ByteWriter, key: BitmapKey): void;
  read(r: ByteReader): BitmapKey;
}

const numberOrder = (a: BitmapKey, b: BitmapKey): number => (a as number) - (b as number);
const bigintOrder = (a: BitmapKey, b: BitmapKey): number => (a === b ? 0 : (a as bigint) < (b as bigint) ? -1 : 1);

const CODECS: Record<KeyFamily, KeyCodec> = {
  string: {
    hash: (k) => binaryStringHash(UTF8.encode(k as string)),
    compare: (a, b) => compareUtf8(a as string, b as string),
    size: (k) => 4 + UTF8.encode(k as string).length,
    write: (out, k) => {
      const bytes = UTF8.encode(k as string);
      out.i32(bytes.length).bytes(bytes);
    },
    read: (r) => {
      const n = r.i32();
      if (n < 0) throw r.corrupt(`negative string length ${n}`);
      return utf8Decoder.decode(r.bytesOf(n));
    },
  },
  byte: { hash: (k) => k as number, compare: numberOrder, size: () => 1, write: (out, k) => out.u8(k as number), read: (r) => r.i8() },
  short: { hash: (k) => k as number, compare: numberOrder, size: () => 2, write: (out, k) => out.i16(k as number), read: (r) => r.i16() },
  int: { hash: (k) => k as number, compare: numberOrder, size: () => 4, write: (out, k) => out.i32(k as number), read: (r) => r.i32() },
  long: { hash: (k) => javaLongHash(k as bigint), compare: bigintOrder, size: () => 8, write: (out, k) => out.i64(k as bigint), read: (r) => r.i64() },
  float: {
    hash: (k) => k as number,
    compare: (a, b) => sortableFloatBits(a as number) - sortableFloatBits(b as number),
    size: () => 4,
    write: (out, k) => out.i32(k as number),
    read: (r) => canonicalFloatBits(r.i32()),
  },
  double: {
    hash: (k) => javaLongHash(k as bigint),
    compare: (a, b) => bigintOrder(sortableDoubleBits(a as bigint), sortableDoubleBits(b as bigint)),
    size: () => 8,
    write: (out, k) => out.i64(k as bigint),
    read: (r) => canonicalDoubleBits(r.i64()),
  },
  boolean: {
    hash: (k) => javaBooleanHash(k as boolean),
    compare: (a, b) => Number(a) - Number(b),
    size: () => 1,
    write: (out, k) => out.u8(k ? 1 : 0),
    read: (r) => r.u8() !== 0,
  },
};

function canonicalFloatBits(bits: number): number {
  return (bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0 ? 0x7fc00000 : bits;
}

function canonicalDoubleBits(bits: bigint): bigint {
  const exponent = (bits >> 52n) & 0x7ffn;
  return exponent === 0x7ffn && (bits & 0xfffffffffffffn) !== 0n ? 0x7ff8000000000000n : bits;
}

export function codecOf(type: DataType): KeyCodec {
  const family = FAMILY[type.kind];
  if (family === undefined) throw new PaimonError("UNSUPPORTED", `bitmap index does not support ${type.kind}`);
  return CODECS[family];
}

/**
 * The dictionary keys a canonical predicate literal of `type` matches. FLOAT/DOUBLE: the exact
 * bit pattern (-0.0 and 0.0 are different keys, as Java's boxed keys and `Double.compare`).
 */
export function literalKeys(type: DataType, value: unknown): BitmapKey[] {
  switch (type.kind) {
    case "FLOAT":
      return [floatToIntBits(value as number)];
    case "DOUBLE":
      return [doubleToLongBits(value as number)];
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return timestampLiteralKeys(value as Timestamp, type);
    default:
      return [value as BitmapKey];
  }
}

// ---------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------

/** Header fields of a bitmap index and where its bitmaps start. */
interface BitmapIndexLayout {
  version: number;
  rowCount: number;
  valueCount: number;
  hasNull: boolean;
  nullOffset: number;
  /** Start of the bitmaps in the payload (dictionary offsets are relative to it). */
  bodyStart: number;
}

/** How parseBitmapIndex reads the dictionary. */
interface DictionaryVisitor {
  /** Called once the header's value count is validated, before any entry. */
  start?(valueCount: number): void;
  /** Called per dictionary entry with `r` at its key: reads the key and its i32 offset. */
  entry(r: ByteReader): void;
  /** Reads past one key (the V2 block index). */
  skipKey(r: ByteReader): void;
}

/** Parses a bitmap index payload (V1 or V2), visiting each dictionary entry. CORRUPT_FILE when malformed. */
export function parseBitmapIndex(payload: Uint8Array, { start, entry, skipKey }: DictionaryVisitor): BitmapIndexLayout {
  const r = new ByteReader(payload, "bitmap file index");
  const version = r.u8();
  if (version !== BITMAP_VERSION_1 && version !== BITMAP_VERSION_2) throw r.corrupt(`unsupported version ${version}`);
  const rowCount = r.i32();
  const valueCount = r.i32();
  if (rowCount < 0 || valueCount < 0 || valueCount > rowCount) throw r.corrupt(`invalid counts (${rowCount} rows, ${valueCount} values)`);
  const hasNull = r.u8() !== 0;
  const nullOffset = hasNull ? r.i32() : 0;
  start?.(valueCount);
  let bodyStart: number;
  if (version === BITMAP_VERSION_1) {
    for (let i = 0; i < valueCount; i++) entry(r);
    bodyStart = r.pos;
  } else {
    if (hasNull) r.i32(); // null bitmap length
    const blockCount = r.i32();
    if (blockCount < 0) throw r.corrupt(`negative block count ${blockCount}`);
    const blockOffsets: number[] = [];
    for (let i = 0; i < blockCount; i++) {
      skipKey(r);
      blockOffsets.push(r.i32());
    }
    const bitmapsOffset = r.i32();
    const blocksStart = r.pos;
    bodyStart = blocksStart + bitmapsOffset;
    let entries = 0;
    for (const blockOffset of blockOffsets) {
      const block = new ByteReader(payload, "bitmap file index block", blocksStart + blockOffset);
      const n = block.i32();
      if (n < 0) throw block.corrupt(`negative entry count ${n}`);
      for (let i = 0; i < n; i++) {
        entry(block);
        block.i32(); // length
      }
      entries += n;
    }
    if (entries !== valueCount) throw r.corrupt(`${entries} dictionary entries, header says ${valueCount}`);
  }
  if (bodyStart > payload.length) throw r.corrupt("bitmaps start past the end");
  return { version, rowCount, valueCount, hasNull, nullOffset, bodyStart };
}

/** Row positions of the bitmap at `offset` (relative to `bodyStart`), or the single row `-1 - offset`. */
export function bitmapRows(payload: Uint8Array, bodyStart: number, offset: number): Uint32Array {
  if (offset < 0) return Uint32Array.of(-1 - offset);
  const start = bodyStart + offset;
  if (start >= payload.length) throw new PaimonError("CORRUPT_FILE", "bitmap file index: bitmap offset past the end");
  const { bitmap } = RoaringBitmap32.deserializePrefix(payload.subarray(start));
  try {
    return bitmap.toArray();
  } finally {
    bitmap.dispose();
  }
}

/** A parsed bitmap index (V1 or V2): the dictionary and where each bitmap lies. */
export class BitmapIndexReader {
  readonly version: number;
  readonly rowCount: number;
  readonly hasNull: boolean;
  /** Value → offset (relative to the bitmaps) or `-1 - row` for a single-row value. */
  private readonly offsets = new Map<BitmapKey, number>();
  private readonly nullOffset: number;
  private readonly bodyStart: number;

  constructor(
    private readonly payload: Uint8Array,
    type: DataType,
  ) {
    const codec = codecOf(type);
    const layout = parseBitmapIndex(payload, { entry: (r) => this.offsets.set(codec.read(r), r.i32()), skipKey: (r) => codec.read(r) });
    if (this.offsets.size !== layout.valueCount) throw new PaimonError("CORRUPT_FILE", `bitmap file index: ${this.offsets.size} distinct dictionary values, header says ${layout.valueCount}`);
    ({ version: this.version, rowCount: this.rowCount, hasNull: this.hasNull, nullOffset: this.nullOffset, bodyStart: this.bodyStart } = layout);
  }

  /** Number of distinct non-null values. */
  get valueCount(): number {
    return this.offsets.size;
  }

  has(key: BitmapKey): boolean {
    return this.offsets.has(key);
  }

  /** Every dictionary value. */
  keys(): IterableIterator<BitmapKey> {
    return this.offsets.keys();
  }

  /** Row positions holding `key` (null: the null rows). */
  rows(key: BitmapKey | null): Uint32Array {
    if (key === null) return this.hasNull ? bitmapRows(this.payload, this.bodyStart, this.nullOffset) : new Uint32Array(0);
    const offset = this.offsets.get(key);
    return offset === undefined ? new Uint32Array(0) : bitmapRows(this.payload, this.bodyStart, offset);
  }
}
