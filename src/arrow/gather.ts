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
    else if (w === 2 && out.byteOffset % 8 === 0 && sources.every((v) => v.byteOffset % 8 === 0)) {
      // as takeLongs: one 64-bit word per row
      gatherLongs(
        sources.map((v) => new BigInt64Array(v.buffer, v.byteOffset, v.byteLength >> 3)),
        part,
        row,
        new BigInt64Array(out.buffer, out.byteOffset, out.byteLength >> 3),
      );
    } else if (w === 2) {
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

/** Rows of 8-byte values from several sources (its own function: a monomorphic loop). */
function gatherLongs(src: readonly BigInt64Array[], part: Uint32Array, row: Uint32Array, dst: BigInt64Array): void {
  for (let i = 0; i < part.length; i++) dst[i] = src[part[i]][row[i]];
}

/**
 * Copies the string/binary values of rows `part[i]`/`row[i]` to `out` at `outOffsets[i]` (the
 * offsets computed before). Values of up to 8 bytes go as two 32-bit words where both the source
 * and `out` have 8 bytes left: the bytes written past a value are overwritten by the next one.
 */
function gatherValues(offs: readonly Int32Array[], vals: readonly Uint8Array[], part: Uint32Array, row: Uint32Array, outOffsets: Int32Array, out: Uint8Array): void {
  const views = vals.map((v) => new DataView(v.buffer, v.byteOffset, v.byteLength));
  const dst = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const wordsEnd = out.length - 8;
  for (let i = 0; i < part.length; i++) {
    const p = part[i];
    const o = offs[p];
    const r = row[i];
    let k = o[r];
    const end = o[r + 1];
    const len = end - k;
    let to = outOffsets[i];
    const src = vals[p];
    if (len <= 8 && to <= wordsEnd && k + 8 <= src.length) {
      const view = views[p];
      dst.setInt32(to, view.getInt32(k, true), true);
      dst.setInt32(to + 4, view.getInt32(k + 4, true), true);
    } else if (len > 32) out.set(src.subarray(k, end), to);
    else {
      const view = views[p];
      for (; k + 4 <= end; k += 4, to += 4) dst.setInt32(to, view.getInt32(k, true), true);
      while (k < end) out[to++] = src[k++];
    }
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

/** Bits `offset + rows[i]` of `bits`, packed; `unset` counts the clear ones. */
function takeBits(bits: Uint8Array, offset: number, rows: Uint32Array): { out: Uint8Array; unset: number } {
  const n = rows.length;
  const out = new Uint8Array((n + 7) >> 3);
  let unset = 0;
  for (let i = 0; i < n; i++) {
    const bit = offset + rows[i];
    if (bits[bit >> 3] & (1 << (bit & 7))) out[i >> 3] |= 1 << (i & 7);
    else unset++;
  }
  return { out, unset };
}

/** Validity of rows `rows` of one column (undefined when none is null). */
function takeBitmap(data: arrow.Data, rows: Uint32Array): { bitmap: Uint8Array | undefined; nulls: number } {
  const bm = data.nullBitmap;
  if (data.nullCount === 0 || !bm || bm.length === 0) return { bitmap: undefined, nulls: 0 };
  const { out, unset } = takeBits(bm, data.offset, rows);
  return { bitmap: unset > 0 ? out : undefined, nulls: unset };
}

// Word loops of `takeFlat`, one per row width, each monomorphic (Int32Array in and out).
function takeWords1(src: Int32Array, rows: Uint32Array, dst: Int32Array): void {
  for (let i = 0; i < rows.length; i++) dst[i] = src[rows[i]];
}

function takeWords2(src: Int32Array, rows: Uint32Array, dst: Int32Array): void {
  for (let i = 0, j = 0; i < rows.length; i++, j += 2) {
    const f = rows[i] * 2;
    dst[j] = src[f];
    dst[j + 1] = src[f + 1];
  }
}

/**
 * 8-byte rows as BigInt64 elements: optimised code copies them as raw 64-bit words (half the
 * accesses of int32 pairs, and bit-exact unlike a Float64Array copy, which engines that
 * NaN-box may canonicalise).
 */
function takeLongs(src: BigInt64Array, rows: Uint32Array, dst: BigInt64Array): void {
  for (let i = 0; i < rows.length; i++) dst[i] = src[rows[i]];
}

function takeWordsN(src: Int32Array, rows: Uint32Array, dst: Int32Array, w: number): void {
  for (let i = 0, j = 0; i < rows.length; i++) {
    const f = rows[i] * w;
    for (let k = 0; k < w; k++) dst[j++] = src[f + k];
  }
}

function takeBytes(src: Uint8Array, rows: Uint32Array, dst: Uint8Array, w: number): void {
  for (let i = 0, j = 0; i < rows.length; i++) {
    const f = rows[i] * w;
    for (let k = 0; k < w; k++) dst[j++] = src[f + k];
  }
}

/**
 * Copies the values of rows `rows` into `out` (capacity `out.length`) and their end offsets into
 * `outOffsets[1..]`; returns the bytes written, or -1 when they would not fit.
 */
function copyValues(offsets: Int32Array, bytes: Uint8Array, rows: Uint32Array, out: Uint8Array, outOffsets: Int32Array): number {
  // Short values (the common case) are copied four bytes at a time through DataViews.
  const src = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dst = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const capacity = out.length;
  let to = 0;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    let k = offsets[r];
    const end = offsets[r + 1];
    if (to + (end - k) > capacity) return -1;
    if (end - k > 32) {
      out.set(bytes.subarray(k, end), to);
      to += end - k;
    } else {
      for (; k + 4 <= end; k += 4, to += 4) dst.setInt32(to, src.getInt32(k, true), true);
      while (k < end) out[to++] = bytes[k++];
    }
    outOffsets[i + 1] = to;
  }
  return to;
}

/** Offsets and bytes of rows `rows` of a string/binary column of `sourceRows` rows (its own function: monomorphic loops). */
function takeVariable(offsets: Int32Array, bytes: Uint8Array, rows: Uint32Array, sourceRows: number): [Int32Array, Uint8Array] {
  const n = rows.length;
  const outOffsets = new Int32Array(n + 1);
  if (n === sourceRows) {
    // Usually a permutation (sorting a batch): the source's byte count fits exactly, so one pass
    // copies values and offsets together. Repeated long rows may not fit: then two passes.
    const capacity = offsets[n] - offsets[0];
    const out = new Uint8Array(capacity);
    const written = copyValues(offsets, bytes, rows, out, outOffsets);
    if (written === capacity) return [outOffsets, out];
    if (written >= 0) return [outOffsets, out.slice(0, written)];
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    total += offsets[r + 1] - offsets[r];
  }
  const out = new Uint8Array(total);
  copyValues(offsets, bytes, rows, out, outOffsets);
  return [outOffsets, out];
}

/**
 * Rows `rows` of one flat column (fixed width, boolean, string, binary) with loops specialised
 * per row width and buffers assembled directly (no makeData visitor); null for other types.
 * The single-source case of `gatherData` (sorting a batch by a permutation, filtering it).
 */
function takeFlat(data: arrow.Data, rows: Uint32Array): arrow.Data | null {
  const type = data.type as arrow.DataType;
  const n = rows.length;
  if (isFixedWidth(type)) {
    const values = data.values as unknown as ArrayBufferView & { constructor: new (n: number) => ArrayBufferView; BYTES_PER_ELEMENT: number };
    const rowBytes = values.BYTES_PER_ELEMENT * data.stride;
    const { bitmap, nulls } = takeBitmap(data, rows);
    const out = new values.constructor(n * data.stride);
    if (rowBytes === 8 && values.byteOffset % 8 === 0) {
      takeLongs(new BigInt64Array(values.buffer, values.byteOffset, values.byteLength >> 3), rows, new BigInt64Array(out.buffer, 0, n));
    } else if (rowBytes % 4 === 0 && values.byteOffset % 4 === 0) {
      const w = rowBytes >> 2;
      const src = new Int32Array(values.buffer, values.byteOffset, values.byteLength >> 2);
      const dst = new Int32Array(out.buffer, 0, n * w);
      if (w === 1) takeWords1(src, rows, dst);
      else if (w === 2) takeWords2(src, rows, dst);
      else takeWordsN(src, rows, dst, w);
    } else {
      takeBytes(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), rows, new Uint8Array(out.buffer, 0, n * rowBytes), rowBytes);
    }
    return new arrow.Data(type, 0, n, nulls, [undefined, out, bitmap] as never);
  }
  const T = arrow.Type;
  if (type.typeId === T.Utf8 || type.typeId === T.Binary) {
    const { bitmap, nulls } = takeBitmap(data, rows);
    const [outOffsets, out] = takeVariable(data.valueOffsets as Int32Array, data.values as Uint8Array, rows, data.length);
    return new arrow.Data(type, 0, n, nulls, [outOffsets, out, bitmap] as never);
  }
  if (type.typeId === T.Bool) {
    const { bitmap, nulls } = takeBitmap(data, rows);
    return new arrow.Data(type, 0, n, nulls, [undefined, takeBits(data.values as Uint8Array, data.offset, rows).out, bitmap] as never);
  }
  return null;
}

/** Rows `rows` of one column, in that order: `gatherData` of one source, without its per-row source array where the column is flat. */
export function takeColumn(data: arrow.Data, rows: Uint32Array): arrow.Data {
  return takeFlat(data, rows) ?? gatherData([data], new Uint32Array(rows.length), rows);
}

/** Rows of several same-typed columns: output row i = `sources[part[i]]` row `row[i]`. */
export function gatherData(sources: readonly arrow.Data[], part: Uint32Array, row: Uint32Array): arrow.Data {
  if (sources.length === 1) {
    const flat = takeFlat(sources[0], row);
    if (flat !== null) return flat;
  }
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
      gatherValues(offs, vals, part, row, outOffsets, out);
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
