// Concatenation of same-typed Arrow data into one contiguous chunk: whole value ranges copied
// with `set` (no per-row indexing), offsets rebased, validity bits re-packed. Nested types go
// through `gatherData`.
import * as arrow from "apache-arrow";
import { gatherData, isFixedWidth } from "./gather.js";
import { recordBatch } from "./record-batch.js";

/** Validity of the concatenation (undefined when nothing is null) and its null count. */
function concatValidity(sources: readonly arrow.Data[], length: number): { bitmap: Uint8Array | undefined; nulls: number } {
  let nulls = 0;
  for (const d of sources) nulls += d.nullCount;
  if (nulls === 0) return { bitmap: undefined, nulls };
  const out = new Uint8Array((length + 7) >> 3);
  let at = 0;
  for (const d of sources) {
    const bitmap = d.nullCount > 0 ? d.nullBitmap : undefined;
    for (let i = 0; i < d.length; i++, at++) {
      if (bitmap) {
        const bit = d.offset + i;
        if ((bitmap[bit >> 3] & (1 << (bit & 7))) === 0) continue;
      }
      out[at >> 3] |= 1 << (at & 7);
    }
  }
  return { bitmap: out, nulls };
}

/** Bytes of `data`'s rows, as a view (values of sliced fixed-width data start at its first row). */
function rowBytes(data: arrow.Data, bytesPerRow: number): Uint8Array {
  const v = data.values as unknown as ArrayBufferView;
  return new Uint8Array(v.buffer, v.byteOffset, data.length * bytesPerRow);
}

/** The rows of `sources`, one after the other, as one Data of their (common) type. */
export function concatData(sources: readonly arrow.Data[]): arrow.Data {
  if (sources.length === 1) return sources[0];
  const type = sources[0].type as arrow.DataType;
  let length = 0;
  for (const d of sources) length += d.length;
  const T = arrow.Type;
  if (isFixedWidth(type)) {
    const { bitmap, nulls } = concatValidity(sources, length);
    const first = sources[0].values as unknown as ArrayBufferView & { BYTES_PER_ELEMENT: number; constructor: new (n: number) => ArrayBufferView };
    const bytesPerRow = first.BYTES_PER_ELEMENT * sources[0].stride;
    const out = new first.constructor(length * sources[0].stride);
    const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    let at = 0;
    for (const d of sources) {
      bytes.set(rowBytes(d, bytesPerRow), at);
      at += d.length * bytesPerRow;
    }
    return arrow.makeData({ type, length, nullCount: nulls, nullBitmap: bitmap, data: out } as never);
  }
  switch (type.typeId) {
    case T.Utf8:
    case T.Binary: {
      const { bitmap, nulls } = concatValidity(sources, length);
      let byteCount = 0;
      for (const d of sources) {
        const o = d.valueOffsets as Int32Array;
        byteCount += o[d.length] - o[0];
      }
      const offsets = new Int32Array(length + 1);
      const values = new Uint8Array(byteCount);
      let row = 0;
      let pos = 0;
      for (const d of sources) {
        const o = d.valueOffsets as Int32Array;
        const base = o[0];
        for (let i = 1; i <= d.length; i++) offsets[row + i] = pos + o[i] - base;
        values.set((d.values as Uint8Array).subarray(base, o[d.length]), pos);
        pos += o[d.length] - base;
        row += d.length;
      }
      return arrow.makeData({ type: type as arrow.Utf8, length, nullCount: nulls, nullBitmap: bitmap, valueOffsets: offsets, data: values });
    }
    case T.Bool: {
      const { bitmap, nulls } = concatValidity(sources, length);
      const out = new Uint8Array((length + 7) >> 3);
      let at = 0;
      for (const d of sources) {
        const v = d.values as Uint8Array;
        for (let i = 0; i < d.length; i++, at++) {
          const bit = d.offset + i;
          if (v[bit >> 3] & (1 << (bit & 7))) out[at >> 3] |= 1 << (at & 7);
        }
      }
      return arrow.makeData({ type: type as arrow.Bool, length, nullCount: nulls, nullBitmap: bitmap, data: out });
    }
    case T.Null:
      return arrow.makeData({ type: type as arrow.Null, length });
    default: {
      const part = new Uint32Array(length);
      const row = new Uint32Array(length);
      for (let k = 0, at = 0; k < sources.length; k++) {
        for (let r = 0; r < sources[k].length; r++, at++) {
          part[at] = k;
          row[at] = r;
        }
      }
      return gatherData(sources, part, row);
    }
  }
}

/** The values of `parts`, one after the other, in a new array of their kind (`make(length)`). */
export function concatTyped<T extends BigInt64Array | Int8Array | Int32Array | Uint32Array>(parts: readonly T[], make: (length: number) => T): T {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = make(length);
  let at = 0;
  for (const p of parts) {
    (out as BigInt64Array).set(p as BigInt64Array, at);
    at += p.length;
  }
  return out;
}

/** The rows of `batches` (same schema), one after the other, as one batch of the first's schema. */
export function concatBatches(batches: readonly arrow.RecordBatch[]): arrow.RecordBatch {
  if (batches.length === 1) return batches[0];
  const schema = batches[0].schema;
  let length = 0;
  for (const b of batches) length += b.numRows;
  return recordBatch(
    schema,
    schema.fields.map((_, c) => concatData(batches.map((b) => b.data.children[c]))),
    length,
  );
}
