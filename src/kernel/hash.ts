// Vectorised key fingerprints (XXH64), Paimon fixed-bucket assignment and the per-value
// hashes of Paimon's bloom-filter file index (`FastHash`), in the kernel.
import { requireArgument } from "../error.js";
import { ColumnsLayout, type KeyColumn, validateKeyColumns } from "./columns.js";
import { KernelFrame } from "./wasm.js";

/**
 * A 64-bit fingerprint per row over the key columns: XXH64 (with `seed`) of the
 * row's canonical encoding (per column a null tag, then the value little-endian,
 * byte strings length-prefixed). Equal keys give equal fingerprints in every
 * batch and runtime; use it for hash maps and dedup filters, not on disk.
 */
export function fingerprintKeys(keys: readonly KeyColumn[], seed: bigint = 0n): BigUint64Array {
  const rows = keys[0]?.length ?? 0;
  validateKeyColumns(keys, rows);
  if (rows === 0) return new BigUint64Array(0);
  const frame = new KernelFrame();
  const layout = new ColumnsLayout(frame, [keys]);
  const outAt = frame.reserve(rows * 8);
  frame.open();
  const columns = layout.write();
  frame.k.pr_fingerprint(columns, layout.columnCount, rows, BigInt.asUintN(64, seed), frame.ptr(outAt));
  return frame.u64(outAt, rows).slice();
}

/**
 * Java Paimon's default fixed bucket per row: `abs(hashBytesByWords(keyRow) % buckets)`
 * where keyRow is the BinaryRow of the bucket-key columns. With `buckets = 0` the
 * raw BinaryRow hash codes are returned instead (dynamic-bucket indexes use them).
 */
export function assignBuckets(keys: readonly KeyColumn[], buckets: number): Int32Array {
  requireArgument(Number.isInteger(buckets) && buckets >= 0 && buckets < 2 ** 31, `bucket count ${buckets} is invalid`);
  const rows = keys[0]?.length ?? 0;
  validateKeyColumns(keys, rows);
  if (rows === 0) return new Int32Array(0);
  const frame = new KernelFrame();
  const layout = new ColumnsLayout(frame, [keys]);
  const outAt = frame.reserve(rows * 4);
  frame.open();
  const columns = layout.write();
  frame.k.pr_bucket(columns, layout.columnCount, rows, buckets, frame.ptr(outAt));
  return frame.i32(outAt, rows).slice();
}

/**
 * XXH64 (with `seed`) of every variable-length value of an Arrow-style column: value `i`
 * is `bytes[offsets[i] .. offsets[i + 1]]` (int32 offsets, need not start at 0). Java
 * Paimon's `FastHash` hashes strings (UTF-8) and binary values this way (seed 0).
 */
export function xxh64Values(offsets: Int32Array, bytes: Uint8Array, seed: bigint = 0n): BigUint64Array {
  const rows = Math.max(0, offsets.length - 1);
  if (rows === 0) return new BigUint64Array(0);
  const first = offsets[0]!;
  const last = offsets[rows]!;
  requireArgument(first >= 0 && last >= first && last <= bytes.length, "xxh64Values: offsets exceed the byte buffer");
  const frame = new KernelFrame();
  const offsetsAt = frame.reserve((rows + 1) * 4);
  const bytesAt = frame.reserve(last - first);
  const outAt = frame.reserve(rows * 8);
  frame.open();
  frame.write(offsetsAt, offsets);
  frame.write(bytesAt, bytes.subarray(first, last));
  frame.k.pr_xxh64_bytes(frame.ptr(offsetsAt), frame.ptr(bytesAt), rows, BigInt.asUintN(64, seed), frame.ptr(outAt));
  return frame.u64(outAt, rows).slice();
}

/**
 * Thomas Wang's 64-bit integer hash (Java Paimon `FastHash.getLongHash`) of
 * `floor(values[i] * mul / div)`: `mul`/`div` convert timestamp units (e.g. seconds to
 * millis, nanos to micros) before hashing. 8/16/32-bit inputs are sign-extended to 64
 * bits, as Java widens `byte`/`short`/`int` to `long`. Signed 64-bit results.
 */
export function wangHash64Values(values: BigInt64Array | Int32Array | Int16Array | Int8Array, mul = 1n, div = 1n): BigInt64Array {
  requireArgument(div > 0n, "wangHash64Values: div must be positive");
  const rows = values.length;
  if (rows === 0) return new BigInt64Array(0);
  const frame = new KernelFrame();
  const valuesAt = frame.reserve(rows * 8);
  const outAt = frame.reserve(rows * 8);
  frame.open();
  if (values instanceof BigInt64Array) frame.write(valuesAt, values);
  else {
    const words = frame.i32(valuesAt, rows * 2);
    for (let i = 0; i < rows; i++) {
      const v = values[i]!;
      words[2 * i] = v;
      words[2 * i + 1] = v >> 31;
    }
  }
  frame.k.pr_wang_hash64(frame.ptr(valuesAt), rows, BigInt.asIntN(64, mul), BigInt.asIntN(64, div), frame.ptr(outAt));
  const out = frame.u64(outAt, rows).slice();
  return new BigInt64Array(out.buffer, out.byteOffset, rows);
}
