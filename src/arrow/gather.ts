// Row gathering from several Arrow sources at once: the output row i is row `row[i]` of
// source `part[i]`. Used by primary-key merging, where the winners of a k-way merge come
// from many sorted runs (batches) and must be assembled in key order.
import * as arrow from "apache-arrow";
import { recordBatch } from "./record-batch.js";

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
    if (src.length === 1 && w <= 2) {
      // one source (a permutation, e.g. sorting a batch): no per-row source lookup
      const s = src[0];
      if (w === 1) for (let i = 0; i < n; i++) dst[i] = s[row[i]];
      else {
        for (let i = 0; i < n; i++) {
          const f = row[i] * 2;
          dst[i * 2] = s[f];
          dst[i * 2 + 1] = s[f + 1];
        }
      }
      return;
    }
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

/** Types whose rows are `stride` fixed-size elements of `values` (sliced data: from its first row). */
export function isFixedWidth(type: arrow.DataType): boolean {
  switch (type.typeId) {
    case arrow.Type.Int:
    case arrow.Type.Float:
    case arrow.Type.Date:
    case arrow.Type.Time:
    case arrow.Type.Timestamp:
    case arrow.Type.Decimal:
    case arrow.Type.FixedSizeBinary:
      return true;
    default:
      return false;
  }
}

/** Rows of several same-typed columns: output row i = `sources[part[i]]` row `row[i]`. */
export function gatherData(sources: readonly arrow.Data[], part: Uint32Array, row: Uint32Array): arrow.Data {
  const n = part.length;
  const type = sources[0].type as arrow.DataType;
  const T = arrow.Type;
  if (isFixedWidth(type)) {
    const { bitmap, nulls } = gatherBitmap(sources, part, row);
    const first = sources[0];
    const values0 = first.values as unknown as ArrayBufferView & { constructor: new (n: number) => ArrayBufferView; BYTES_PER_ELEMENT: number };
    // bytes per row from the type's layout (values may be empty or longer than the data)
    const rowBytes = values0.BYTES_PER_ELEMENT * first.stride;
    const out = new values0.constructor(n * first.stride);
    copyRows(sources.map((d) => d.values as unknown as ArrayBufferView), part, row, rowBytes, out);
    return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, data: out } as never);
  }
  switch (type.typeId) {
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
    case T.Struct: {
      // Children of (sliced) struct data are sliced along: child row = row.
      const { bitmap, nulls } = gatherBitmap(sources, part, row);
      const children = type.children.map((_, c) =>
        gatherData(
          sources.map((d) => d.children[c]),
          part,
          row,
        ),
      );
      return arrow.makeData({ type: type as arrow.Struct, length: n, nullCount: nulls, nullBitmap: bitmap, children });
    }
    case T.List:
    case T.Map: {
      // Offsets of (sliced) list data start at its first row; the child is not sliced.
      const { bitmap, nulls } = gatherBitmap(sources, part, row);
      const offs = sources.map((d) => d.valueOffsets as Int32Array);
      const outOffsets = new Int32Array(n + 1);
      let total = 0;
      for (let i = 0; i < n; i++) {
        const o = offs[part[i]];
        total += o[row[i] + 1] - o[row[i]];
        outOffsets[i + 1] = total;
      }
      const childPart = new Uint32Array(total);
      const childRow = new Uint32Array(total);
      for (let i = 0, at = 0; i < n; i++) {
        const o = offs[part[i]];
        for (let k = o[row[i]]; k < o[row[i] + 1]; k++, at++) {
          childPart[at] = part[i];
          childRow[at] = k;
        }
      }
      const child = gatherData(
        sources.map((d) => d.children[0]),
        childPart,
        childRow,
      );
      return arrow.makeData({ type: type as arrow.List, length: n, nullCount: nulls, nullBitmap: bitmap, valueOffsets: outOffsets, child } as never);
    }
    default:
      throw new Error(`gatherData: unsupported Arrow type ${String(type)}`);
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
  return recordBatch(schema, children, part.length);
}

/** Whether int64 `values` strictly ascend (compared as signed 32-bit word pairs: no BigInt per value). */
export function strictlyAscendingInt64(values: BigInt64Array): boolean {
  const w = new Int32Array(values.buffer, values.byteOffset, 2 * values.length);
  for (let i = 1; i < values.length; i++) {
    const h = w[2 * i + 1];
    const ph = w[2 * i - 1];
    if (h < ph || (h === ph && w[2 * i] >>> 0 <= w[2 * i - 2] >>> 0)) return false;
  }
  return true;
}
