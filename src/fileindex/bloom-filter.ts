// The bloom-filter file index (Java `BloomFilterFileIndex` over `utils/BloomFilter64`,
// hashes from `FastHash`; format reference §9.2). Payload: int32 BE numHashFunctions, then
// the bit set bytes (bit i = byte[i >>> 3] & (1 << (i & 7))).
//
// Hashes: strings / binary → XXH64 (seed 0) of the UTF-8 / raw bytes; TINYINT … BIGINT,
// DATE, TIME → Thomas Wang's 64-bit hash of the value widened to long; FLOAT / DOUBLE →
// of `floatToIntBits` / `doubleToLongBits`; TIMESTAMP(_LTZ) → of millis (p <= 3) or micros.
import { PaimonError } from "../error.js";
import { isNull, type KeyColumn } from "../kernel/columns.js";
import { wangHash64Values, xxh64Values } from "../kernel/hash.js";
import { xxh64 } from "../kernel/reference.js";
import type { Timestamp } from "../spec/binary-row.js";
import { javaDoubleToInt } from "../spec/java-numbers.js";
import type { DataType } from "../spec/types.js";
import { ByteReader, ByteWriter } from "../spec/data-stream.js";
import { doubleToLongBits, floatToIntBits, timestampLiteralKeys, type IndexedChunk } from "./columns.js";

export const BLOOM_FILTER = "bloom-filter";
export const BLOOM_DEFAULT_ITEMS = 1_000_000;
export const BLOOM_DEFAULT_FPP = 0.1;

/** Column types Java's `FastHash` can hash. */
export const BLOOM_FILTER_TYPES: ReadonlySet<DataType["kind"]> = new Set([
  "TINYINT",
  "SMALLINT",
  "INT",
  "BIGINT",
  "FLOAT",
  "DOUBLE",
  "DATE",
  "TIME",
  "TIMESTAMP",
  "TIMESTAMP_LTZ",
  "CHAR",
  "VARCHAR",
  "BINARY",
  "VARBINARY",
]);

/** Java `BloomFilter64`: `numHashFunctions` probes per 64-bit hash into `numBits` bits. */
export class BloomFilter64 {
  readonly numBits: number;

  private constructor(
    readonly numHashFunctions: number,
    readonly bits: Uint8Array,
  ) {
    this.numBits = bits.length * 8;
  }

  /** Sized as Java does for `items` expected values at false-positive rate `fpp`. */
  static forItems(items: number, fpp: number): BloomFilter64 {
    const estimate = javaDoubleToInt((-items * Math.log(fpp)) / (Math.log(2) * Math.log(2)));
    // Java rounds up to whole bytes by always adding 8 - estimate % 8 (1..8) bits
    const numBits = estimate + (8 - (estimate % 8));
    const numHashFunctions = Math.max(1, Math.floor((numBits / items) * Math.log(2) + 0.5));
    return new BloomFilter64(numHashFunctions, new Uint8Array(numBits / 8));
  }

  /** Reads a bloom-filter index payload. */
  static deserialize(payload: Uint8Array): BloomFilter64 {
    const r = new ByteReader(payload, "bloom-filter file index");
    const numHashFunctions = r.i32();
    if (numHashFunctions <= 0 || payload.length <= 4) throw r.corrupt(`invalid header (${numHashFunctions} hash functions, ${payload.length} bytes)`);
    return new BloomFilter64(numHashFunctions, payload.subarray(4));
  }

  serialize(): Uint8Array {
    return new ByteWriter().i32(this.numHashFunctions).bytes(this.bits).toBytes();
  }

  /** Adds the hash whose low / high 32 bits are `lo` / `hi`. */
  addHash(lo: number, hi: number): void {
    const { bits, numBits, numHashFunctions } = this;
    for (let i = 1; i <= numHashFunctions; i++) {
      let combined = (lo + Math.imul(i, hi)) | 0;
      if (combined < 0) combined = ~combined;
      const pos = combined % numBits;
      bits[pos >>> 3]! |= 1 << (pos & 7);
    }
  }

  /** Adds the non-null rows of a column, given one hash per row as (lo, hi) int32 pairs. */
  addHashes(hashes: Int32Array, column: KeyColumn): void {
    const rows = column.length;
    if (!column.validity) {
      for (let r = 0; r < rows; r++) this.addHash(hashes[2 * r]!, hashes[2 * r + 1]!);
      return;
    }
    for (let r = 0; r < rows; r++) if (!isNull(column, r)) this.addHash(hashes[2 * r]!, hashes[2 * r + 1]!);
  }

  testHash(hash: bigint): boolean {
    const lo = Number(BigInt.asIntN(32, hash));
    const hi = Number(BigInt.asIntN(32, hash >> 32n));
    const { bits, numBits, numHashFunctions } = this;
    for (let i = 1; i <= numHashFunctions; i++) {
      let combined = (lo + Math.imul(i, hi)) | 0;
      if (combined < 0) combined = ~combined;
      const pos = combined % numBits;
      if ((bits[pos >>> 3]! & (1 << (pos & 7))) === 0) return false;
    }
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// FastHash
// ---------------------------------------------------------------------------------------------

/** Thomas Wang's 64-bit integer hash (Java `FastHash.getLongHash`), the plain-TS reference of the kernel. */
export function wangHash64(value: bigint): bigint {
  let key = BigInt.asIntN(64, value);
  key = BigInt.asIntN(64, ~key + (key << 21n));
  key = key ^ (key >> 24n);
  key = BigInt.asIntN(64, key + (key << 3n) + (key << 8n));
  key = key ^ (key >> 14n);
  key = BigInt.asIntN(64, key + (key << 2n) + (key << 4n));
  key = key ^ (key >> 28n);
  return BigInt.asIntN(64, key + (key << 31n));
}

const UTF8 = new TextEncoder();

/**
 * The FastHash values (signed, like Java longs) a canonical literal of `type` may have been inserted under (two for
 * ±0.0, which Java hashes apart but the predicate order treats as equal).
 */
export function literalHashes(type: DataType, value: unknown): bigint[] {
  switch (type.kind) {
    case "CHAR":
    case "VARCHAR":
      return [BigInt.asIntN(64, xxh64(UTF8.encode(value as string)))];
    case "BINARY":
    case "VARBINARY":
      return [BigInt.asIntN(64, xxh64(value as Uint8Array))];
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return [wangHash64(BigInt(value as number))];
    case "BIGINT":
      return [wangHash64(value as bigint)];
    case "FLOAT":
      return [wangHash64(BigInt(floatToIntBits(value as number)))]; // -0.0 and 0.0 differ, as in Double.compare
    case "DOUBLE":
      return [wangHash64(doubleToLongBits(value as number))];
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return timestampLiteralKeys(value as Timestamp, type).map(wangHash64);
    default:
      throw new PaimonError("UNSUPPORTED", `bloom-filter index does not support ${type.kind}`);
  }
}

/** FastHash of every row of a chunk (nulls get a meaningless hash), as (lo, hi) int32 pairs. */
export function chunkHashes(chunk: IndexedChunk, type: DataType): Int32Array {
  const { column } = chunk;
  const rows = column.length;
  let hashes: BigUint64Array | BigInt64Array;
  switch (column.type) {
    case "bytes":
      hashes = xxh64Values(column.offsets!, column.data!);
      break;
    case "int8":
    case "int16":
    case "int32":
      hashes = wangHash64Values(column.values as Int8Array | Int16Array | Int32Array);
      break;
    case "int64":
    case "timestamp_micros":
    case "timestamp_nanos":
      hashes = wangHash64Values(column.values as BigInt64Array, chunk.mul, chunk.div);
      break;
    case "float32": {
      const floats = column.values as Float32Array;
      const bits = new Int32Array(rows);
      for (let i = 0; i < rows; i++) bits[i] = floatToIntBits(floats[i]!);
      hashes = wangHash64Values(bits);
      break;
    }
    case "float64": {
      const doubles = column.values as Float64Array;
      const bits = new BigInt64Array(Float64Array.from(doubles).buffer);
      for (let i = 0; i < rows; i++) if (doubles[i] !== doubles[i]) bits[i] = 0x7ff8000000000000n;
      hashes = wangHash64Values(bits);
      break;
    }
    default:
      throw new PaimonError("UNSUPPORTED", `bloom-filter index does not support ${type.kind}`);
  }
  return new Int32Array(hashes.buffer, hashes.byteOffset, rows * 2);
}
