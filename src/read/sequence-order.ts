// `sequence.field` (Java `UserDefinedSeqComparator`, `CodeGenUtils.newRecordComparator`): the
// records of a key are ordered by the sequence fields of their value row, field by field (nulls
// first in either sort order, `descending` reverses the non-null comparison), then by
// `_SEQUENCE_NUMBER`. The merges (kernel k-way merge, folds, the writer's flush and compaction)
// order by a 64-bit sequence; this module turns the user order into one: every row's rank in
// the global order of (sequence fields, `_SEQUENCE_NUMBER`, chunk, row), computed with the wasm
// sort kernel. Loaded only for tables that set `sequence.field` (the others merge on
// `_SEQUENCE_NUMBER` itself, unchanged).
import { gatherData, gatherInt64 } from "../arrow/gather.js";
import { isNull, type KeyColumn, keyColumnFromArrow } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import { type KvBatch, sameKey } from "./merge-functions.js";

/**
 * `chunks` with `sequence` replaced by ranks (0 .. rows-1 over all chunks) ordered as Java
 * orders the records of one key: by the columns `columns` of each batch (the sequence fields),
 * then by the stored sequence number; equal ones by chunk, then row (later wins, as the merge's
 * tie rule). Batches and row kinds are the same objects; keep the originals for the stored
 * sequence numbers.
 */
export function rankBySequenceFields(chunks: readonly KvBatch[], columns: readonly number[], descending: boolean): KvBatch[] {
  let total = 0;
  for (const c of chunks) total += c.batch.numRows;
  if (total === 0) return [...chunks];
  let part: Uint32Array | null = null;
  let row: Uint32Array | null = null;
  if (chunks.length > 1) {
    part = new Uint32Array(total);
    row = new Uint32Array(total);
    let at = 0;
    chunks.forEach((c, p) => {
      for (let i = 0; i < c.batch.numRows; i++, at++) {
        part![at] = p;
        row![at] = i;
      }
    });
  }
  const fields: KeyColumn[] = columns.map((c) => {
    const data = part ? gatherData(chunks.map((x) => x.batch.data.children[c]), part, row!) : chunks[0].batch.data.children[c];
    const col = comparable(keyColumnFromArrow(data));
    return descending ? descendingRanks(col) : col;
  });
  const sequence = part ? gatherInt64(chunks.map((c) => c.sequence), part, row!) : chunks[0].sequence;
  // stable: equal (fields, sequence) keep chunk then row order
  const perm = sortPermutation(fields, sequence);
  const ranks = new BigInt64Array(total);
  const words = new Int32Array(ranks.buffer); // (little-endian words, high words stay 0: total < 2^31)
  for (let i = 0; i < total; i++) words[perm[i] * 2] = i;
  const out: KvBatch[] = [];
  let at = 0;
  for (const c of chunks) {
    const n = c.batch.numRows;
    out.push({ batch: c.batch, kinds: c.kinds, sequence: ranks.subarray(at, at + n) });
    at += n;
  }
  return out;
}

/** Java's generated comparator compares floats with `<` / `>`: -0.0 equals 0.0 (the kernel's Double.compare order would not). */
function comparable(col: KeyColumn): KeyColumn {
  if (col.type !== "float32" && col.type !== "float64") return col;
  const values = col.values as Float32Array | Float64Array;
  let negativeZero = false;
  for (let i = 0; i < col.length; i++) if (values[i] === 0 && 1 / values[i] < 0) negativeZero = true;
  if (!negativeZero) return col;
  const copy = values.slice(0, col.length);
  for (let i = 0; i < copy.length; i++) if (copy[i] === 0) copy[i] = 0;
  return { ...col, values: copy };
}

/**
 * An int32 column ordering rows as `col` in descending order with nulls first (Java's
 * `nullIsLast = false` in both orders): nulls 0, the largest value 1, the next one 2, …
 */
function descendingRanks(col: KeyColumn): KeyColumn {
  const n = col.length;
  const perm = sortPermutation([col], new BigInt64Array(n)); // ascending, nulls first
  const ranks = new Int32Array(n);
  let distinct = 0;
  let firstValid = -1;
  for (let i = 0; i < n; i++) {
    const r = perm[i];
    if (isNull(col, r)) continue;
    if (firstValid < 0 || !sameKey([col], perm[i - 1], r)) distinct++;
    if (firstValid < 0) firstValid = i;
    ranks[r] = distinct;
  }
  for (let i = firstValid < 0 ? n : firstValid; i < n; i++) ranks[perm[i]] = distinct + 1 - ranks[perm[i]];
  return { type: "int32", length: n, values: ranks };
}
