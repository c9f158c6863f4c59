// Sort permutation of a primary-key batch by (key, sequence number), in the kernel.
import { requireArgument } from "../error.js";
import { ColumnsLayout, type KeyColumn, validateKeyColumns } from "./columns.js";
import { KernelFrame } from "./wasm.js";

/**
 * Returns the stable permutation that orders rows by primary key (Paimon order:
 * nulls first, bytes unsigned, floats like `Double.compare`), then by `sequence`.
 */
export function sortPermutation(keys: readonly KeyColumn[], sequence: BigInt64Array): Uint32Array {
  const rows = sequence.length;
  validateKeyColumns(keys, rows);
  if (rows === 0) return new Uint32Array(0);
  const frame = new KernelFrame();
  const layout = new ColumnsLayout(frame, [keys]);
  const seqAt = frame.reserve(rows * 8);
  const outAt = frame.reserve(rows * 4);
  frame.open();
  const columns = layout.write();
  frame.write(seqAt, sequence);
  frame.k.pr_sort_permutation(columns, layout.columnCount, rows, frame.ptr(seqAt), frame.ptr(outAt));
  return frame.u32(outAt, rows).slice();
}

/** 0, 1, 2, … shared by sorts of batches up to this many rows (larger ones build their own). */
const SHARED_ASCENDING_ROWS = 1 << 16;
let ascending: BigInt64Array | null = null;

function ascendingFrom0(rows: number): BigInt64Array {
  if (rows > SHARED_ASCENDING_ROWS) return BigInt64Array.from({ length: rows }, (_, i) => BigInt(i));
  ascending ??= BigInt64Array.from({ length: SHARED_ASCENDING_ROWS }, (_, i) => BigInt(i));
  return ascending.subarray(0, rows);
}

/**
 * `sortPermutation` of rows whose sequence numbers ascend in row order (a writer numbering a
 * batch): row order stands in for them, so no sequence column needs building.
 */
export function sortPermutationInRowOrder(keys: readonly KeyColumn[], rows: number): Uint32Array {
  return sortPermutation(keys, ascendingFrom0(rows));
}

/** Checks that a permutation covers `0..rows` once (for callers accepting external permutations). */
export function isPermutation(perm: Uint32Array, rows: number): boolean {
  requireArgument(perm.length === rows, `permutation has ${perm.length} entries for ${rows} rows`);
  const seen = new Uint8Array(rows);
  for (const p of perm) {
    if (p >= rows || seen[p]) return false;
    seen[p] = 1;
  }
  return true;
}
