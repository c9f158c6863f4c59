// Paimon deletion-vector framing (paimon-format §8): the 32-bit `BitmapDeletionVector`
// and the 64-bit, Iceberg-compatible `Bitmap64DeletionVector`, as stored in
// DELETION_VECTORS index files.
//
// 32-bit: int32 BE size (= 4 + bitmap bytes), int32 BE magic 1581511376, portable
//         RoaringBitmap (run-optimized), int32 BE CRC32 over magic + bitmap.
//         The index manifest's length (f2) is `size`.
// 64-bit: int32 BE bitmapDataLength (= 4 + bitmap bytes), int32 LE magic 1681511377,
//         u64 LE bucket count, then per key 0..max a u32 LE key + portable bitmap,
//         int32 BE CRC32 over magic + bitmap. The index manifest's length is the total.
import { PaimonError } from "../error.js";
import { OffsetSet64, RoaringBitmap32 } from "./bitmap.js";

export const DELETION_VECTOR_MAGIC_32 = 1581511376;
export const DELETION_VECTOR_MAGIC_64 = 1681511377;
/** First byte of a DELETION_VECTORS index file. */
export const DELETION_VECTOR_INDEX_VERSION = 1;
/** Largest position a 32-bit deletion vector can hold (Java int). */
export const MAX_POSITION_32 = 0x7fffffff;

export type DeletionVector =
  | { readonly format: "bitmap32"; readonly bitmap: RoaringBitmap32 }
  | { readonly format: "bitmap64"; readonly bitmap: OffsetSet64 };

let crcTables: Int32Array | undefined;

type Crc32Fn = (data: Uint8Array, value?: number) => number;
/**
 * Node's native zlib crc32 (Node >= 20.15, Bun, Deno), found without a static import so bundles
 * for browsers and workerd stay free of `node:` modules; 5-10x the JS loop below.
 */
const nativeCrc32: Crc32Fn | undefined = (() => {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const zlib = proc?.getBuiltinModule?.("node:zlib") as { crc32?: Crc32Fn } | undefined;
    return typeof zlib?.crc32 === "function" ? zlib.crc32 : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * CRC-32 (IEEE, as java.util.zip.CRC32) of `bytes`, continuing from `crc`. Native where the host
 * has it, else slicing-by-8 (eight bytes a step): Parquet page checksums cover every page written
 * and read.
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (nativeCrc32) return nativeCrc32(bytes, crc) >>> 0;
  return crc32Js(bytes, crc);
}

/** The portable implementation of `crc32` (exported for tests). */
export function crc32Js(bytes: Uint8Array, crc = 0): number {
  // Int32Array tables: V8 keeps the XORs in int32 registers (Uint32 values above 2^31 become doubles).
  const t = (crcTables ??= makeCrcTables());
  let c = ~crc;
  let i = 0;
  const n = bytes.length;
  for (const end8 = n - 7; i < end8; i += 8) {
    const lo = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    c =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^
      t[512 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** Table k (k = 0..7, 256 entries each): CRC of a byte followed by k zero bytes. */
function makeCrcTables(): Int32Array {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let k = 1; k < 8; k++) for (let n = 0; n < 256; n++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!;
  return t;
}

function frame(magicLE: boolean, magic: number, bitmap: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + 4 + bitmap.length + 4);
  const view = new DataView(out.buffer);
  view.setInt32(0, 4 + bitmap.length, false);
  view.setUint32(4, magic, magicLE);
  out.set(bitmap, 8);
  view.setUint32(8 + bitmap.length, crc32(out.subarray(4, 8 + bitmap.length)), false);
  return out;
}

/**
 * The bytes of a 32-bit deletion vector (§8.2). Run-optimizes `bitmap` in place first,
 * as Java does. Positions must not exceed 2^31 - 1.
 */
export function serializeDeletionVector32(bitmap: RoaringBitmap32): Uint8Array {
  const max = bitmap.maximum();
  if (max !== undefined && max > MAX_POSITION_32) {
    throw new PaimonError("INVALID_ARGUMENT", `32-bit deletion vector position ${max} exceeds ${MAX_POSITION_32}`);
  }
  bitmap.runOptimize("java");
  return frame(false, DELETION_VECTOR_MAGIC_32, bitmap.serializePortable());
}

/**
 * The bytes of a 64-bit deletion vector (§8.3, Iceberg `deletion-vector-v1` layout).
 * Run-optimizes `positions` in place first. Positions must be below 2^63.
 */
export function serializeDeletionVector64(positions: OffsetSet64): Uint8Array {
  const max = positions.maximum();
  if (max !== undefined && max >= 1n << 63n) {
    throw new PaimonError("INVALID_ARGUMENT", `64-bit deletion vector position ${max} exceeds 2^63 - 1`);
  }
  positions.runOptimize("java");
  return frame(true, DELETION_VECTOR_MAGIC_64, positions.serializeIcebergLayout());
}

/** `length` as the index manifest records it (f2) for these serialized bytes. */
export function deletionVectorLength(serialized: Uint8Array): number {
  const view = new DataView(serialized.buffer, serialized.byteOffset, serialized.byteLength);
  return isMagic64(view) ? serialized.length : view.getInt32(0, false);
}

function isMagic64(view: DataView): boolean {
  return view.byteLength >= 8 && view.getUint32(4, true) === DELETION_VECTOR_MAGIC_64;
}

function isMagic32(view: DataView): boolean {
  return view.byteLength >= 8 && view.getUint32(4, false) === DELETION_VECTOR_MAGIC_32;
}

export interface DeserializeDeletionVectorOptions {
  /** Check the trailing CRC32 (Java does not); default true. */
  readonly verifyCrc?: boolean;
}

/**
 * Reads one serialized deletion vector (exactly the bytes `serializeDeletionVector32/64`
 * produce), telling the format by its magic. CORRUPT_FILE on a bad magic, length, CRC or bitmap.
 */
export function deserializeDeletionVector(bytes: Uint8Array, options: DeserializeDeletionVectorOptions = {}): DeletionVector {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12) throw new PaimonError("CORRUPT_FILE", `deletion vector of ${bytes.length} bytes is too short`);
  const is64 = isMagic64(view);
  if (!is64 && !isMagic32(view)) {
    throw new PaimonError("CORRUPT_FILE", `deletion vector has an unknown magic number ${view.getUint32(4, false)}`);
  }
  const size = view.getInt32(0, false);
  if (size < 4 || size + 8 !== bytes.length) {
    throw new PaimonError("CORRUPT_FILE", `deletion vector size field ${size} does not match its ${bytes.length} bytes`);
  }
  if (options.verifyCrc ?? true) {
    const stored = view.getUint32(4 + size, false);
    const actual = crc32(bytes.subarray(4, 4 + size));
    if (stored !== actual) {
      throw new PaimonError("CORRUPT_FILE", `deletion vector CRC32 mismatch (stored ${stored}, computed ${actual})`);
    }
  }
  const body = bytes.subarray(8, 4 + size);
  return is64
    ? { format: "bitmap64", bitmap: OffsetSet64.deserializePortable(body) }
    : { format: "bitmap32", bitmap: RoaringBitmap32.deserializePortable(body) };
}

/**
 * Reads the deletion vector at `offset` of a DELETION_VECTORS index file, with `length`
 * as recorded in the index manifest (f2), checking it against the stored size as Java does.
 */
export function readDeletionVector(
  file: Uint8Array,
  offset: number,
  length: number,
  options: DeserializeDeletionVectorOptions = {},
): DeletionVector {
  if (!Number.isInteger(offset) || offset < 0 || offset + 8 > file.length) {
    throw new PaimonError("CORRUPT_FILE", `deletion vector offset ${offset} is outside the ${file.length}-byte index file`);
  }
  const view = new DataView(file.buffer, file.byteOffset + offset, 8);
  const size = view.getInt32(0, false);
  const total = isMagic64(view) ? length : length + 8;
  const expected = isMagic64(view) ? length - 8 : length;
  if (size !== expected) {
    throw new PaimonError("CORRUPT_FILE", `deletion vector at ${offset}: stored size ${size}, index says ${expected}`);
  }
  if (offset + total > file.length) {
    throw new PaimonError("CORRUPT_FILE", `deletion vector at ${offset} runs past the end of the index file`);
  }
  return deserializeDeletionVector(file.subarray(offset, offset + total), options);
}
