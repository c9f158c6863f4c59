// Vectorised key fingerprints (XXH64) and Paimon fixed-bucket assignment, in the kernel.
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
