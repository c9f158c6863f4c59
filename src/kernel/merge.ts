// K-way merge of sorted runs under the deduplicate merge engine, in the kernel.
import { requireArgument } from "../error.js";
import { ColumnsLayout, type KeyColumn, validateKeyColumns } from "./columns.js";
import { KernelFrame } from "./wasm.js";

/** One sorted run: key columns, sequence numbers and (optionally) row kinds, row-aligned. */
export interface SortedRun {
  readonly keys: readonly KeyColumn[];
  readonly sequence: BigInt64Array;
  /** Paimon row kinds (0 +I, 1 -U, 2 +U, 3 -D); absent means all +I. */
  readonly rowKinds?: Int8Array | Uint8Array;
}

export interface MergeOptions {
  /** Drop keys whose winner is a DELETE or UPDATE_BEFORE (what a reader wants). */
  readonly dropDeletes?: boolean;
}

/** The winning row of each key, in key order: `run[i]` and `row[i]` (within its run). */
export interface MergeResult {
  readonly run: Uint32Array;
  readonly row: Uint32Array;
}

export function validateRuns(runs: readonly SortedRun[]): number {
  requireArgument(runs.length > 0, "merge needs at least one run");
  let rows = 0;
  runs.forEach((r, i) => {
    validateKeyColumns(r.keys, r.sequence.length);
    requireArgument(!r.rowKinds || r.rowKinds.length === r.sequence.length, `run ${i} has ${r.rowKinds?.length} row kinds for ${r.sequence.length} rows`);
    rows += r.sequence.length;
  });
  requireArgument(rows < 2 ** 32, "merge input exceeds 2^32 rows");
  return rows;
}

/**
 * Merges runs, each sorted by (key, sequence), oldest run first. For every key the
 * winner is the highest sequence number; equal sequence numbers go to the later
 * run, then the later row (the last version written wins, as in Paimon).
 */
export function mergeDeduplicate(runs: readonly SortedRun[], options: MergeOptions = {}): MergeResult {
  const rows = validateRuns(runs);
  if (rows === 0) return { run: new Uint32Array(0), row: new Uint32Array(0) };
  const frame = new KernelFrame();
  const layout = new ColumnsLayout(
    frame,
    runs.map((r) => r.keys),
  );
  const boundsAt = frame.reserve((runs.length + 1) * 4);
  const seqAt = frame.reserve(rows * 8);
  const withKinds = runs.some((r) => r.rowKinds);
  const kindsAt = withKinds ? frame.reserve(rows) : -1;
  const outRunAt = frame.reserve(rows * 4);
  const outRowAt = frame.reserve(rows * 4);
  frame.open();
  const columns = layout.write();
  const bounds = new Uint32Array(runs.length + 1);
  let at = 0;
  runs.forEach((r, i) => {
    frame.write(seqAt + at * 8, r.sequence);
    if (withKinds) {
      const kinds = frame.u8(kindsAt + at, r.sequence.length);
      if (r.rowKinds) kinds.set(new Uint8Array(r.rowKinds.buffer, r.rowKinds.byteOffset, r.rowKinds.length));
      else kinds.fill(0);
    }
    at += r.sequence.length;
    bounds[i + 1] = at;
  });
  frame.write(boundsAt, bounds);
  const count = frame.k.pr_merge_deduplicate(
    columns,
    layout.columnCount,
    frame.ptr(boundsAt),
    runs.length,
    frame.ptr(seqAt),
    withKinds ? frame.ptr(kindsAt) : 0,
    options.dropDeletes ? 1 : 0,
    frame.ptr(outRunAt),
    frame.ptr(outRowAt),
  );
  return { run: frame.u32(outRunAt, count).slice(), row: frame.u32(outRowAt, count).slice() };
}
