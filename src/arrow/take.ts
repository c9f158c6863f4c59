// Row selection over Arrow data (Arrow JS has no compute kernels): one source, rows by
// index — the single-source case of `gatherData`.
import * as arrow from "apache-arrow";
import { concatData } from "./concat.js";
import { takeColumn } from "./gather.js";
import { recordBatch } from "./record-batch.js";

/** Rows `indices` of one column (a single Data chunk), in that order. */
export function takeData<T extends arrow.DataType>(data: arrow.Data<T>, indices: Uint32Array): arrow.Data<T> {
  return takeColumn(data, indices) as arrow.Data<T>;
}

/** Rows `indices` of a batch, in that order. */
export function takeRows(batch: arrow.RecordBatch, indices: Uint32Array): arrow.RecordBatch {
  const children = batch.schema.fields.map((_, i) => takeData(batch.data.children[i], indices));
  return recordBatch(batch.schema, children, indices.length);
}

/** Indices of the set entries of a selection mask. */
export function maskToIndices(mask: Uint8Array): Uint32Array {
  let count = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) count++;
  const out = new Uint32Array(count);
  for (let i = 0, j = 0; i < mask.length; i++) if (mask[i]) out[j++] = i;
  return out;
}

/** A dictionary-encoded column as plain values of the dictionary's type (null codes stay null). */
export function decodeDictionary(data: arrow.Data): arrow.Data {
  const dictionary = (data as arrow.Data<arrow.Dictionary>).dictionary;
  if (!dictionary) return data;
  // several dictionary chunks (deltas) index as one; concatenated as bytes (apache-arrow's `toArray` of strings drops a leading U+FEFF)
  const dict = concatData(dictionary.data);
  const codes = data.values as unknown as ArrayLike<number | bigint>;
  const indices = new Uint32Array(data.length);
  for (let i = 0; i < data.length; i++) indices[i] = Number(codes[i]);
  const values = takeData(dict, indices);
  if (data.nullCount === 0) return values;
  const bitmap = new Uint8Array((data.length + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < data.length; i++) {
    const bit = data.offset + i;
    if (data.nullBitmap![bit >> 3] & (1 << (bit & 7))) bitmap[i >> 3] |= 1 << (i & 7);
    else nulls++;
  }
  return values.clone(values.type, 0, values.length, nulls, [values.valueOffsets, values.values, bitmap] as never);
}
