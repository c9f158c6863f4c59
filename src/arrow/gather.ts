// Row gathering from several Arrow sources at once: the output row i is row `row[i]` of
// source `part[i]`. Used by primary-key merging, where the winners of a k-way merge come
// from many sorted runs (batches) and must be assembled in key order.
import * as arrow from "apache-arrow";

function validBit(data: arrow.Data, row: number): boolean {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return true;
  const bit = data.offset + row;
  return (data.nullBitmap[bit >> 3] & (1 << (bit & 7))) !== 0;
}

function gatherBitmap(sources: readonly arrow.Data[], part: Uint32Array, row: Uint32Array): { bitmap: Uint8Array | undefined; nulls: number } {
  if (!sources.some((d) => d.nullCount !== 0)) return { bitmap: undefined, nulls: 0 };
  const n = part.length;
  const out = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (validBit(sources[part[i]], row[i])) out[i >> 3] |= 1 << (i & 7);
    else nulls++;
  }
  return { bitmap: nulls > 0 ? out : undefined, nulls };
}

/** Copies fixed-width rows word by word (no BigInt or float conversions). */
function copyRows(sources: readonly ArrayBufferView[], part: Uint32Array, row: Uint32Array, rowBytes: number, out: ArrayBufferView): void {
  const n = part.length;
  if (rowBytes % 4 === 0 && out.byteOffset % 4 === 0 && sources.every((v) => v.byteOffset % 4 === 0)) {
    const w = rowBytes / 4;
    const src = sources.map((v) => new Int32Array(v.buffer, v.byteOffset, v.byteLength >> 2));
    const dst = new Int32Array(out.buffer, out.byteOffset, out.byteLength >> 2);
    if (w === 1) for (let i = 0; i < n; i++) dst[i] = src[part[i]][row[i]];
    else if (w === 2) {
      for (let i = 0; i < n; i++) {
        const s = src[part[i]];
        const f = row[i] * 2;
        dst[i * 2] = s[f];
        dst[i * 2 + 1] = s[f + 1];
      }
    } else {
      for (let i = 0; i < n; i++) {
        const s = src[part[i]];
        const f = row[i] * w;
        for (let k = 0; k < w; k++) dst[i * w + k] = s[f + k];
      }
    }
    return;
  }
  const src = sources.map((v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  const dst = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < n; i++) {
    const s = src[part[i]];
    const f = row[i] * rowBytes;
    for (let k = 0; k < rowBytes; k++) dst[i * rowBytes + k] = s[f + k];
  }
}

/** `sequence[part[i]][row[i]]` for all i, copied as raw words. */
export function gatherInt64(sources: readonly BigInt64Array[], part: Uint32Array, row: Uint32Array): BigInt64Array {
  const out = new BigInt64Array(part.length);
  copyRows(sources, part, row, 8, out);
  return out;
}

/** `kinds[part[i]][row[i]]` for all i. */
export function gatherInt8(sources: readonly Int8Array[], part: Uint32Array, row: Uint32Array): Int8Array {
  const out = new Int8Array(part.length);
  for (let i = 0; i < out.length; i++) out[i] = sources[part[i]][row[i]];
  return out;
}

/** Rows of several same-typed columns: output row i = `sources[part[i]]` row `row[i]`. */
export function gatherData(sources: readonly arrow.Data[], part: Uint32Array, row: Uint32Array): arrow.Data {
  const n = part.length;
  const type = sources[0].type as arrow.DataType;
  const T = arrow.Type;
  switch (type.typeId) {
    case T.Int:
    case T.Float:
    case T.Date:
    case T.Time:
    case T.Timestamp:
    case T.Decimal:
    case T.FixedSizeBinary: {
      const { bitmap, nulls } = gatherBitmap(sources, part, row);
      const first = sources[0];
      const values0 = first.values as unknown as ArrayBufferView & { constructor: new (n: number) => ArrayBufferView; length: number };
      // bytes per row, from any non-empty source (all share a layout)
      const probe = sources.find((d) => d.length > 0) ?? first;
      const pv = probe.values as unknown as ArrayBufferView;
      const rowBytes =
        type.typeId === T.FixedSizeBinary ? (type as arrow.FixedSizeBinary).byteWidth : type.typeId === T.Decimal ? 16 : Math.max(1, Math.round(pv.byteLength / Math.max(1, probe.length)));
      const elementBytes = values0.byteLength / Math.max(1, values0.length);
      const out = new values0.constructor((n * rowBytes) / elementBytes);
      copyRows(sources.map((d) => d.values as unknown as ArrayBufferView), part, row, rowBytes, out);
      return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, data: out } as never);
    }
    case T.Bool: {
      const { bitmap, nulls } = gatherBitmap(sources, part, row);
      const out = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) {
        const d = sources[part[i]];
        const bit = d.offset + row[i];
        if ((d.values as Uint8Array)[bit >> 3] & (1 << (bit & 7))) out[i >> 3] |= 1 << (i & 7);
      }
      return arrow.makeData({ type: type as arrow.Bool, length: n, nullCount: nulls, nullBitmap: bitmap, data: out });
    }
    case T.Utf8:
    case T.Binary: {
      const { bitmap, nulls } = gatherBitmap(sources, part, row);
      const offs = sources.map((d) => d.valueOffsets as Int32Array);
      const vals = sources.map((d) => d.values as Uint8Array);
      const outOffsets = new Int32Array(n + 1);
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        const o = offs[part[i]];
        bytes += o[row[i] + 1] - o[row[i]];
        outOffsets[i + 1] = bytes;
      }
      const out = new Uint8Array(bytes);
      for (let i = 0; i < n; i++) {
        const o = offs[part[i]];
        const r = row[i];
        const from = o[r];
        const len = o[r + 1] - from;
        const src = vals[part[i]];
        let to = outOffsets[i];
        if (len > 32) out.set(src.subarray(from, from + len), to);
        else for (let k = 0; k < len; k++) out[to++] = src[from + k];
      }
      return arrow.makeData({ type: type as arrow.Utf8, length: n, nullCount: nulls, nullBitmap: bitmap, valueOffsets: outOffsets, data: out });
    }
    case T.Null:
      return arrow.makeData({ type: type as arrow.Null, length: n });
    default: {
      // Nested types: rebuild through a builder.
      const vectors = sources.map((d) => new arrow.Vector([d]));
      const builder = arrow.makeBuilder({ type, nullValues: [null, undefined] });
      for (let i = 0; i < n; i++) builder.append(vectors[part[i]].get(row[i]));
      return builder.finish().flush();
    }
  }
}

/** Rows of several batches with the same schema (output `schema`, column `columns[j]` of each source). */
export function gatherBatches(
  sources: readonly arrow.RecordBatch[],
  part: Uint32Array,
  row: Uint32Array,
  schema: arrow.Schema,
  columns: readonly number[],
): arrow.RecordBatch {
  const children = columns.map((c) =>
    gatherData(
      sources.map((b) => b.data.children[c]),
      part,
      row,
    ),
  );
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: part.length, nullCount: 0, children }));
}
