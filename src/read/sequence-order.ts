// `sequence.field` (Java `UserDefinedSeqComparator`, `CodeGenUtils.newRecordComparator`): the
// records of a key are ordered by the sequence fields of their value row, field by field (nulls
// first in either sort order, `descending` reverses the non-null comparison), then by
// `_SEQUENCE_NUMBER`. The merges (kernel k-way merge, folds, the writer's flush and compaction)
// order by a 64-bit sequence; this module turns the user order into one: every row's rank in
// the global order of (sequence fields, `_SEQUENCE_NUMBER`, chunk, row), computed with the wasm
// sort kernel; used only for tables that set `sequence.field` (the others merge on
// `_SEQUENCE_NUMBER` itself, unchanged). A NaN in a FLOAT / DOUBLE field orders above every
// number (the kernel's Double.compare), where Java's generated comparator (`<` / `>`) finds NaN
// and anything equal and falls back to the sequence number (not a total order).
import { concatData } from "../arrow/concat.js";
import { isNull, type KeyColumn, keyColumnFromArrow } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import { keyComparator } from "../kernel/reference.js";
import type { KvBatch } from "./merge-functions.js";

/**
 * `chunks` with `sequence` replaced by ranks (0 .. rows-1 over all chunks) ordered as Java
 * orders the records of one key: by the columns `columns` of each batch (the sequence fields;
 * non-null values reversed when `sortOrder`, the `sequence.field.sort-order` option, is
 * `descending` in any case), then by the stored sequence number; equal ones by chunk, then row
 * (later wins, as the merge's tie rule). Batches and row kinds are the same objects; keep the
 * originals for the stored sequence numbers.
 */
export function rankBySequenceFields(chunks: readonly KvBatch[], columns: readonly number[], sortOrder: string | undefined): KvBatch[] {
  if (chunks.length === 0) return [];
  const fields: KeyColumn[] = columns.map((c) => {
    const col = comparable(keyColumnFromArrow(concatData(chunks.map((x) => x.batch.data.children[c]))));
    return sortOrder?.toLowerCase() === "descending" ? descendingRanks(col) : col;
  });
  const total = fields[0].length;
  const sequence = new BigInt64Array(total);
  let at = 0;
  for (const c of chunks) {
    sequence.set(c.sequence, at);
    at += c.sequence.length;
  }
  // stable: equal (fields, sequence) keep chunk then row order
  const perm = sortPermutation(fields, sequence);
  const words = new Int32Array(total * 2); // ranks as little-endian int64 words (high words 0: total < 2^31)
  for (let i = 0; i < total; i++) words[perm[i] * 2] = i;
  const ranks = new BigInt64Array(words.buffer);
  at = 0;
  return chunks.map((c) => ({ ...c, sequence: ranks.subarray(at, (at += c.sequence.length)) }));
}

/** Java's generated comparator compares floats with `<` / `>`: -0.0 equals 0.0 (in the kernel's Double.compare order it would not). */
function comparable(col: KeyColumn): KeyColumn {
  if (col.type !== "float32" && col.type !== "float64") return col;
  const values = (col.values as Float64Array).slice(0, col.length);
  for (let i = 0; i < values.length; i++) if (values[i] === 0) values[i] = 0; // -0.0 -> 0.0
  return { ...col, values };
}

/**
 * An int32 column ordering rows as `col` in descending order with nulls first (Java's
 * `nullIsLast = false` in both orders): nulls 0, the largest value 1, the next one 2, …
 */
function descendingRanks(col: KeyColumn): KeyColumn {
  const n = col.length;
  const perm = sortPermutation([col], new BigInt64Array(n)); // ascending, nulls first
  const ranks = new Int32Array(n);
  const cmp = keyComparator([col]);
  // from the largest value down to the nulls (which keep 0)
  for (let i = n - 1, rank = 0; i >= 0 && !isNull(col, perm[i]); i--) {
    if (i === n - 1 || cmp(perm[i + 1], perm[i]) !== 0) rank++;
    ranks[perm[i]] = rank;
  }
  return { type: "int32", length: n, values: ranks };
}
