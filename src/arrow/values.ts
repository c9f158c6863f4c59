// The value buffer of a fixed-width Arrow column as a typed array over exactly its rows. Arrow
// JS slices value buffers together with the Data (row 0 of a sliced Data is index 0 of its
// `values`; only validity bits keep `data.offset`), so indexing `values` by `data.offset` is
// wrong for sliced columns.
import type * as arrow from "apache-arrow";

/**
 * Row `row` of a Binary / Utf8 column (int32 offsets): Arrow JS slices the offsets with the Data
 * and leaves the byte buffer whole, so the row indexes the offsets directly, not `data.offset + row`.
 */
export function binaryAt(data: arrow.Data, row: number): Uint8Array {
  const offsets = data.valueOffsets as Int32Array;
  return (data.values as Uint8Array).subarray(offsets[row]!, offsets[row + 1]!);
}

/** Whether row `row` of `data` is valid (not null): validity bits are indexed from `data.offset`. */
export function isValidAt(data: arrow.Data, row: number): boolean {
  const bm = data.nullBitmap;
  if (data.nullCount === 0 || !bm || bm.length === 0) return true;
  const bit = data.offset + row;
  return (bm[bit >> 3]! & (1 << (bit & 7))) !== 0;
}

/** `data.values` limited to its `data.length` rows (a view, no copy). */
export function columnValues<T extends BigInt64Array | BigUint64Array | Float64Array | Float32Array | Int32Array | Int16Array | Int8Array | Uint8Array | Uint32Array>(data: { values: unknown; length: number }): T {
  return (data.values as T).subarray(0, data.length) as T;
}
