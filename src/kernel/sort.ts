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
