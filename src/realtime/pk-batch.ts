// Stored batches of the real-time primary-key modes (seed "Primary Key MOR"): the framework
// numbers each validated input batch (`_SEQUENCE_NUMBER` continuing the bucket, `_VALUE_KIND`
// from the write's row kinds) and each stored batch is sorted by primary key, then sequence
// number, with the wasm sort kernel: an independent merge input. Numbering is what a write
// costs; the sort is done once, when the batch is first needed (a store that sorts on demand,
// like the Arrow store, calls `sortPrimaryKeyBatch` on a query, commit reader or spill), as
// Java Paimon's merge-tree writer sorts its write buffer when it flushes.
import * as arrow from "apache-arrow";
import { strictlyAscendingInt64 } from "../arrow/gather.js";
import { recordBatch } from "../arrow/record-batch.js";
import { takeData } from "../arrow/take.js";
import { columnValues } from "../arrow/values.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import { sequenceRange } from "../write/merge-tree-writer.js";

const INT64 = new arrow.Int64();
const INT8 = new arrow.Int8();

/**
 * `batch` (`[_REALTIME_OFFSET, table fields…]`, validated) in the PK store layout, rows in input
 * order: `_SEQUENCE_NUMBER` is `firstSequence`, `firstSequence + 1`, …; `_VALUE_KIND` is
 * `kinds[kindsFrom + i]` (INSERT without kinds). The columns of `batch` are shared, not copied.
 */
export function numberedPrimaryKeyBatch(storeSchema: arrow.Schema, batch: arrow.RecordBatch, firstSequence: bigint, kinds: ArrayLike<number> | undefined, kindsFrom: number): arrow.RecordBatch {
  const n = batch.numRows;
  const valueKinds = new Int8Array(n); // all INSERT (0) without kinds
  if (kinds) {
    if (ArrayBuffer.isView(kinds)) valueKinds.set((kinds as unknown as Int8Array).subarray(kindsFrom, kindsFrom + n));
    else for (let i = 0; i < n; i++) valueKinds[i] = kinds[kindsFrom + i];
  }
  const children = [...batch.data.children];
  children.push(new arrow.Data(INT64, 0, n, 0, [undefined, sequenceRange(firstSequence, n)] as never));
  children.push(new arrow.Data(INT8, 0, n, 0, [undefined, valueKinds] as never));
  return recordBatch(storeSchema, children, n);
}

/**
 * A PK store batch (any row order: input order, or several sorted batches concatenated) sorted
 * by the key columns `keyColumnIndexes`, then `_SEQUENCE_NUMBER` (the next-to-last column).
 * Returns `batch` itself when it is in that order already; otherwise a new batch (`batch` is
 * not changed).
 */
export function sortPrimaryKeyBatch(batch: arrow.RecordBatch, keyColumnIndexes: readonly number[]): arrow.RecordBatch {
  const c = batch.data.children;
  const seq = c.length - 2;
  // In order already, without a kernel call: one row (each write of a row-at-a-time stream), or
  // one BIGINT key strictly ascending (a stream of increasing keys, and the concatenations of
  // its coalesced small batches); the sequence numbers cannot reorder distinct keys.
  if (batch.numRows <= 1 || (keyColumnIndexes.length === 1 && strictlyAscendingBigintColumn(c[keyColumnIndexes[0]]))) return batch;
  const keys = keyColumnIndexes.map((i) => keyColumnFromArrow(c[i]));
  const perm = sortPermutation(keys, columnValues<BigInt64Array>(c[seq]));
  let identity = true;
  for (let i = 0; i < perm.length && identity; i++) identity = perm[i] === i;
  if (identity) return batch;
  // Offsets and sequence numbers of a batch in input order are usually consecutive: computed
  // for the permutation, not gathered. Row kinds of an insert-only batch are all equal: shared.
  const children = c.map((d, i) => (i === 0 || i === seq ? permutedInt64(d, perm) : i === seq + 1 && isConstantInt8(d) ? d : takeData(d, perm)));
  return recordBatch(batch.schema, children, batch.numRows);
}

/** A non-null int64 column permuted by `perm`: `first + perm[i]` when its values are consecutive (first, first + 1, …). */
function permutedInt64(column: arrow.Data, perm: Uint32Array): arrow.Data {
  const n = column.length;
  if (column.nullCount > 0) return takeData(column, perm);
  const values = columnValues<BigInt64Array>(column);
  const first = values[0];
  if (values[n - 1] - first !== BigInt(n - 1) || first < 0n) return takeData(column, perm);
  // the same words sequenceRange writes: low word first + i, one carry into the high word
  const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  const lo = words[0];
  const hi = words[1];
  for (let i = 0; i < n; i++) {
    const v = lo + i;
    if (words[i * 2] !== v >>> 0 || words[i * 2 + 1] !== (v > 0xffffffff ? hi + 1 : hi)) return takeData(column, perm);
  }
  return new arrow.Data(INT64, 0, n, 0, [undefined, sequenceRange(first, n, perm)] as never);
}

/** Whether `column` is a non-null signed 64-bit integer column whose values strictly ascend. */
function strictlyAscendingBigintColumn(column: arrow.Data): boolean {
  const t = column.type;
  return arrow.DataType.isInt(t) && t.bitWidth === 64 && t.isSigned && column.nullCount === 0 && strictlyAscendingInt64(columnValues<BigInt64Array>(column));
}

/** Whether every value of a non-null int8 column is the same. */
function isConstantInt8(column: arrow.Data): boolean {
  if (column.nullCount > 0) return false;
  const values = columnValues<Int8Array>(column);
  const v = values[0];
  for (let i = 1; i < values.length; i++) if (values[i] !== v) return false;
  return true;
}
