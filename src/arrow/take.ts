// Row selection over Arrow data (Arrow JS has no compute kernels): gathers rows by index
// with typed-array loops for flat types and a builder fallback for nested ones.
import * as arrow from "apache-arrow";

function gatherBitmap(data: arrow.Data, indices: Uint32Array): { bitmap: Uint8Array | undefined; nulls: number } {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return { bitmap: undefined, nulls: 0 };
  const src = data.nullBitmap;
  const out = new Uint8Array((indices.length + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < indices.length; i++) {
    const bit = data.offset + indices[i];
    if (src[bit >> 3] & (1 << (bit & 7))) out[i >> 3] |= 1 << (i & 7);
    else nulls++;
  }
  return { bitmap: nulls > 0 ? out : undefined, nulls };
}

/** Rows `indices` of one column (a single Data chunk), in that order. */
export function takeData<T extends arrow.DataType>(data: arrow.Data<T>, indices: Uint32Array): arrow.Data<T> {
  const type = data.type as arrow.DataType;
  const n = indices.length;
  const { bitmap, nulls } = gatherBitmap(data, indices);
  const T = arrow.Type;
  switch (type.typeId) {
    case T.Int:
    case T.Float:
    case T.Date:
    case T.Time:
    case T.Timestamp:
    case T.Decimal:
    case T.FixedSizeBinary: {
      const values = data.values as unknown as { length: number; constructor: new (n: number) => Int32Array } & Int32Array;
      // Values per row: 1 for plain numbers, more for 64-bit-as-pairs, decimals and fixed binary.
      const stride = Math.max(1, Math.round(values.length / Math.max(1, data.length)));
      const width = type.typeId === T.Decimal ? 4 : type.typeId === T.FixedSizeBinary ? (type as arrow.FixedSizeBinary).byteWidth : stride;
      const out = new values.constructor(n * width);
      for (let i = 0; i < n; i++) {
        const from = indices[i] * width;
        for (let w = 0; w < width; w++) out[i * width + w] = values[from + w];
      }
      return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, data: out } as never) as arrow.Data<T>;
    }
    case T.Bool: {
      const values = data.values as Uint8Array;
      const out = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) {
        const bit = data.offset + indices[i];
        if (values[bit >> 3] & (1 << (bit & 7))) out[i >> 3] |= 1 << (i & 7);
      }
      return arrow.makeData({ type: type as arrow.Bool, length: n, nullCount: nulls, nullBitmap: bitmap, data: out }) as unknown as arrow.Data<T>;
    }
    case T.Utf8:
    case T.Binary: {
      const offsets = data.valueOffsets as Int32Array;
      const values = data.values as Uint8Array;
      const outOffsets = new Int32Array(n + 1);
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        bytes += offsets[indices[i] + 1] - offsets[indices[i]];
        outOffsets[i + 1] = bytes;
      }
      const out = new Uint8Array(bytes);
      for (let i = 0; i < n; i++) out.set(values.subarray(offsets[indices[i]], offsets[indices[i] + 1]), outOffsets[i]);
      return arrow.makeData({ type: type as arrow.Utf8, length: n, nullCount: nulls, nullBitmap: bitmap, valueOffsets: outOffsets, data: out }) as unknown as arrow.Data<T>;
    }
    case T.Null:
      return arrow.makeData({ type: type as arrow.Null, length: n }) as unknown as arrow.Data<T>;
    default: {
      // Nested types: rebuild through a builder (rare on hot paths).
      const vector = new arrow.Vector([data]);
      const builder = arrow.makeBuilder({ type, nullValues: [null, undefined] });
      for (let i = 0; i < n; i++) builder.append(vector.get(indices[i]));
      return builder.finish().flush() as arrow.Data<T>;
    }
  }
}

/** Rows `indices` of a batch, in that order. */
export function takeRows(batch: arrow.RecordBatch, indices: Uint32Array): arrow.RecordBatch {
  const children = batch.schema.fields.map((_, i) => takeData(batch.data.children[i], indices));
  const struct = arrow.makeData({ type: new arrow.Struct(batch.schema.fields), length: indices.length, nullCount: 0, children });
  return new arrow.RecordBatch(batch.schema, struct);
}

/** Indices of the set entries of a selection mask. */
export function maskToIndices(mask: Uint8Array): Uint32Array {
  let count = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) count++;
  const out = new Uint32Array(count);
  for (let i = 0, j = 0; i < mask.length; i++) if (mask[i]) out[j++] = i;
  return out;
}

/** A dictionary-encoded column as plain values of the dictionary's type. */
export function decodeDictionary(data: arrow.Data): arrow.Data {
  const dictionary = (data as arrow.Data<arrow.Dictionary>).dictionary;
  if (!dictionary) return data;
  const dict = dictionary.data.length === 1 ? dictionary.data[0] : arrow.makeVector(dictionary.toArray()).data[0];
  const codes = data.values as unknown as ArrayLike<number | bigint>;
  const indices = new Uint32Array(data.length);
  for (let i = 0; i < data.length; i++) indices[i] = Number(codes[i]);
  const values = takeData(dict, indices);
  if (data.nullCount === 0) return values;
  // Null codes: keep the index column's validity.
  const { bitmap, nulls } = gatherBitmap(data, Uint32Array.from({ length: data.length }, (_, i) => i));
  return values.clone(values.type, 0, values.length, nulls, [values.valueOffsets, values.values, bitmap] as never);
}
