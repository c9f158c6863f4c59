// A focused Parquet encoder for flat columns (write side only; the twin of parquet-flat.ts):
// top-level REQUIRED/OPTIONAL leaves of BOOLEAN, INT32 (plain, INT_8, INT_16, DATE), INT64 (plain, TIMESTAMP
// millis/micros), FLOAT, DOUBLE and BYTE_ARRAY (STRING or binary), values PLAIN or, for the
// columns asked for (not BOOLEAN), dictionary-encoded per chunk as parquet-rs does (a PLAIN
// dictionary page, data pages of RLE_DICTIONARY indices; PLAIN when the chunk's dictionary passes
// 1 MiB), data pages v1 with RLE/bit-packed definition levels, SNAPPY, ZSTD or no compression. Values go from the
// Arrow buffers into the page bodies (a fixed-width REQUIRED column without nulls is compressed
// straight from its Arrow buffer): no Arrow IPC copy, no wasm Parquet writer.
//
// It writes what parquet-wasm (parquet-rs) plus the post-write pass (parquet-finish.ts) write for
// the same columns, as far as readers care: the same schema elements (field ids, converted and
// logical types), pages of at most 20,000 rows and `pageSize` bytes with their CRC, chunk
// statistics (deprecated min/max too for signed orders), column and offset indexes after the row
// groups, column orders, `ARROW:schema` and the caller's key/value metadata. The writer
// (parquet-writer.ts) uses it when every column is in scope.

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { crc32 } from "../kernel/deletion-vector.js";
import { snappyCompress } from "../kernel/snappy.js";
import { loadZstd } from "../spec/zstd.js";
import { fieldIdOf } from "./arrow-types.js";
import { compareBytes, prefixWord } from "./column-stats.js";
import { buildDictionary, type ChunkDictionary, DictionaryScratch, encodedIndicesBound, encodeIndices, varint } from "./parquet-dictionary-encode.js";
import { PARQUET_MAGIC } from "./parquet-pages.js";
import { dictionaryBeatsPlain, plainChunkBytes } from "./dictionary-choice.js";
import { recordBatch } from "../arrow/record-batch.js";
import { T_BINARY, T_BYTE, T_I16, T_I32, T_I64, T_LIST, T_STRUCT, T_TRUE, type TField, type TStruct, type TValue, serializeStruct } from "./thrift.js";
import { PAIMON_RT_VERSION } from "../spec/version.js";
import { keepShape } from "../kernel/shapes.js";
import { isValidAt } from "../arrow/values.js";

export type FlatCodec = "zstd" | "snappy" | "none";

export interface FlatEncodeOptions {
  codec: FlatCodec;
  /** zstd level (Paimon `file.compression.zstd-level`, default 1). */
  zstdLevel?: number;
  /** Maximum rows per row group. */
  rowGroupRows: number;
  /** Maximum (Arrow) bytes per row group. */
  rowGroupBytes: number;
  /** Data page size limit in bytes (default 1 MiB). */
  pageSize?: number;
  /** Data page row limit (default 20,000, parquet-rs's and parquet-mr's). */
  pageRows?: number;
  /** Footer key/value metadata (`ARROW:schema` included by the caller). */
  keyValueMetadata: ReadonlyMap<string, string>;
  /** Leaves whose min/max must not be written (chunk statistics and column index). */
  unboundedLeaves?: ReadonlySet<number>;
  /** Leaves whose chunks are dictionary-encoded while their dictionary stays within 1 MiB (BOOLEAN leaves never are). */
  dictionaryLeaves?: ReadonlySet<number>;
  /**
   * Filled (one entry per leaf) with each leaf's statistics over the whole file, from the page
   * statistics the encoder computes anyway: the caller's file statistics need no second pass.
   */
  leafStats?: FlatLeafStats[];
}

/** A leaf's statistics over a file: bounds as PLAIN bytes (undefined when no non-null, non-NaN value). */
export interface FlatLeafStats {
  nulls: number;
  min?: Uint8Array;
  max?: Uint8Array;
  /** Whether a non-null value is NaN (FLOAT / DOUBLE; NaN is never a bound). */
  nan: boolean;
}

// parquet.thrift enums: physical types, then encodings
const { BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY } = { BOOLEAN: 0, INT32: 1, INT64: 2, FLOAT: 4, DOUBLE: 5, BYTE_ARRAY: 6 };
const PLAIN = 0;
const RLE = 3;
const RLE_DICTIONARY = 8;
const CODEC = { none: 0, snappy: 1, zstd: 6 } as const;
const CREATED_BY = `paimon-rt version ${PAIMON_RT_VERSION}`;
/** parquet-rs's column index / statistics truncation length: longer bounds are left out here. */
const MAX_BOUND_BYTES = 64;

/** How a leaf is encoded. */
interface Leaf {
  name: string;
  physical: number;
  /** Bytes per PLAIN value (0: BYTE_ARRAY, 1/8: BOOLEAN bits are packed). */
  width: number;
  optional: boolean;
  element: TStruct;
  /** Signed sort order: the deprecated min/max statistics fields are written too (as parquet-rs does). */
  signed: boolean;
  kind: "bool" | "i32" | "i64" | "f32" | "f64" | "bytes";
}

const f = (id: number, type: number, value: TValue): TField => ({ id, type, value });
const struct = (...fields: TField[]): TStruct => ({ fields });
const list = (elemType: number, items: TValue[]): TValue => ({ elemType, items });
const utf8 = new TextEncoder();

/** The leaf for an Arrow field of the Parquet file layout, or undefined when out of scope. */
function leafOf(field: arrow.Field): Leaf | undefined {
  const t = field.type;
  const id = fieldIdOf(field);
  const element = (physical: number, converted?: number, logical?: TStruct): TStruct => {
    const fields = [f(1, T_I32, physical), f(3, T_I32, field.nullable ? 1 : 0), f(4, T_BINARY, utf8.encode(field.name))];
    if (converted !== undefined) fields.push(f(6, T_I32, converted));
    if (id !== undefined) fields.push(f(9, T_I32, id));
    if (logical) fields.push(f(10, T_STRUCT, logical));
    return struct(...fields);
  };
  const leaf = (kind: Leaf["kind"], physical: number, width: number, signed: boolean, el: TStruct): Leaf => ({ name: field.name, physical, width, optional: field.nullable, element: el, signed, kind });
  if (arrow.DataType.isBool(t)) return leaf("bool", BOOLEAN, 0, false, element(BOOLEAN));
  if (arrow.DataType.isInt(t) && t.isSigned && t.bitWidth === 32) return leaf("i32", INT32, 4, true, element(INT32));
  // TINYINT / SMALLINT: INT32 with INT_8 / INT_16 (values widened by widenSmallInts)
  if (arrow.DataType.isInt(t) && t.isSigned && (t.bitWidth === 8 || t.bitWidth === 16)) {
    return leaf("i32", INT32, 4, true, element(INT32, t.bitWidth === 8 ? 15 : 16, struct(f(10, T_STRUCT, struct(f(1, T_BYTE, t.bitWidth), f(2, T_TRUE, true))))));
  }
  if (arrow.DataType.isInt(t) && t.isSigned && t.bitWidth === 64) return leaf("i64", INT64, 8, true, element(INT64));
  if (arrow.DataType.isDate(t) && t.unit === arrow.DateUnit.DAY) return leaf("i32", INT32, 4, true, element(INT32, 6, struct(f(6, T_STRUCT, struct()))));
  if (arrow.DataType.isTimestamp(t) && (t.unit === arrow.TimeUnit.MILLISECOND || t.unit === arrow.TimeUnit.MICROSECOND)) {
    const millis = t.unit === arrow.TimeUnit.MILLISECOND;
    const unit = struct(f(millis ? 1 : 2, T_STRUCT, struct()));
    const logical = struct(f(8, T_STRUCT, struct(f(1, T_TRUE, t.timezone != null), f(2, T_STRUCT, unit))));
    return leaf("i64", INT64, 8, true, element(INT64, millis ? 9 : 10, logical));
  }
  if (arrow.DataType.isFloat(t) && t.precision === arrow.Precision.SINGLE) return leaf("f32", FLOAT, 4, true, element(FLOAT));
  if (arrow.DataType.isFloat(t) && t.precision === arrow.Precision.DOUBLE) return leaf("f64", DOUBLE, 8, true, element(DOUBLE));
  if (t.typeId === arrow.Type.Utf8) return leaf("bytes", BYTE_ARRAY, 0, false, element(BYTE_ARRAY, 0, struct(f(1, T_STRUCT, struct()))));
  if (t.typeId === arrow.Type.Binary) return leaf("bytes", BYTE_ARRAY, 0, false, element(BYTE_ARRAY));
  return undefined;
}

/** Whether every column of `schema` (the Parquet file layout) is in this encoder's scope. */
export function flatEncodable(schema: arrow.Schema): boolean {
  return schema.fields.length > 0 && schema.fields.every((field) => leafOf(field) !== undefined);
}

type Compress = (body: Uint8Array) => Uint8Array;

/** How page bodies are compressed: here, or (where `offload` takes a body) on another thread, to the same bytes. */
export interface PageCompression {
  compress: Compress;
  /**
   * The compressed body by another thread (which gets a copy), or undefined to compress it here.
   * `remaining`: about how many bytes this thread still has to encode after this page (the file's
   * Arrow bytes not yet encoded), so that near the end of the file it keeps the pages the other
   * thread could not finish before it.
   */
  offload?(body: Uint8Array, remaining: number): Promise<Uint8Array> | undefined;
}

/** The page compressor for `codec`, or null when it cannot be loaded here (the caller falls back to parquet-wasm). */
export async function flatCompressor(codec: FlatCodec, zstdLevel = 1): Promise<Compress | null> {
  if (codec === "none") return (b) => b;
  if (codec === "snappy") return snappyCompress;
  const z = await loadZstd();
  return z ? (b) => z.compress(b, zstdLevel) : null;
}

/** A growable byte buffer reused between pages. */
class Scratch {
  buf = new Uint8Array(1 << 16);
  reserve(n: number): Uint8Array {
    if (this.buf.length < n) this.buf = new Uint8Array(Math.max(n, this.buf.length * 2));
    return this.buf;
  }
}
keepShape(new Scratch());

/** Rows [from, to) of one Arrow Data (indexes without data.offset). */
interface Piece {
  data: arrow.Data;
  from: number;
  to: number;
}

/** Page statistics: bounds as PLAIN bytes (undefined when no non-null, non-NaN value). */
interface PageStats {
  nulls: number;
  /** Non-null values. */
  values: number;
  min?: Uint8Array;
  max?: Uint8Array;
  /** Whether a non-null value is NaN (left out of the bounds). */
  nan?: boolean;
}

/** A page encoded and compressed (or being compressed), not yet written. */
interface EncodedPage {
  /** DATA_PAGE (0) or DICTIONARY_PAGE (2). */
  type: 0 | 2;
  bodyLength: number;
  compressed: Uint8Array | Promise<Uint8Array>;
  /** The page header's DataPageHeader (5) or DictionaryPageHeader (7) field. */
  header: TField;
  /** First row (of the file). */
  first: number;
}

/** A row group being written. */
interface GroupState {
  g0: number;
  g1: number;
  ordinal: number;
  chunks: TStruct[];
  start: number;
  uncompressed: number;
  compressed: number;
}

/** A column chunk whose pages are encoded, not yet written. */
interface EncodedChunk {
  leaf: Leaf;
  c: number;
  group: GroupState;
  dict?: { count: number };
  pages: EncodedPage[];
  pageStats: PageStats[];
  nulls: number;
  valueEncoding: number;
}

/** Writes the Parquet file for `batches` (columns in `schema` order, the Parquet file layout). */
export async function encodeFlatParquet(schema: arrow.Schema, input: readonly arrow.RecordBatch[], compression: PageCompression, options: FlatEncodeOptions): Promise<Uint8Array> {
  const leaves = schema.fields.map((field) => {
    const leaf = leafOf(field);
    if (!leaf) throw new PaimonError("UNSUPPORTED", `column '${field.name}' (${String(field.type)}) is not a flat Parquet column`);
    return leaf;
  });
  const batches = widenSmallInts(schema, input);
  const rows = batches.reduce((n, b) => n + b.numRows, 0);
  const arrowBytes = batches.reduce((n, b) => n + b.data.children.reduce((m, c) => m + c.byteLength, 0), 0);
  const perRow = rows > 0 ? arrowBytes / rows : 1;
  const groupRows = Math.max(1, Math.min(options.rowGroupRows, Math.floor(options.rowGroupBytes / Math.max(perRow, 1e-9))));
  const pageRows = options.pageRows ?? 20_000;
  const pageSize = options.pageSize ?? 1024 * 1024;
  const unbounded = options.unboundedLeaves ?? new Set<number>();
  const dictionaryLeaves = options.dictionaryLeaves ?? new Set<number>();
  const codec = CODEC[options.codec];

  // The file is collected as parts until the first row group is complete; then one buffer sized
  // for the whole file at that group's bytes per row takes the parts and every later page (grown
  // if the estimate falls short), so the file is not held twice (parts and their join) at the end.
  let parts: Uint8Array[] | undefined = [];
  let out: Uint8Array = new Uint8Array(0);
  let at = 0;
  const emit = (b: Uint8Array): void => {
    if (parts) parts.push(b);
    else {
      if (at + b.length > out.length) out = grow(out, at, Math.max(at + b.length, Math.ceil(out.length * 1.25)));
      out.set(b, at);
    }
    at += b.length;
  };
  const settle = (rowsDone: number): void => {
    if (!parts) return;
    out = new Uint8Array(Math.ceil((at / Math.max(rowsDone, 1)) * rows * 1.02) + 65536);
    let p = 0;
    for (const part of parts) {
      out.set(part, p);
      p += part.length;
    }
    parts = undefined;
  };
  emit(u32le(PARQUET_MAGIC));
  const scratch = { values: new Scratch(), levels: new Scratch(), body: new Scratch(), dict: new DictionaryScratch() };
  const rowGroups: TStruct[] = [];
  /** Per chunk (row group major): its column index (or undefined) and offset index, written after the row groups. */
  const indexes: Array<{ chunk: TStruct; column?: TStruct; offset: TStruct }> = [];

  // Each column chunk is encoded first (page bodies compressed inline or handed to
  // `compression.offload`), and written once the next chunk is encoded: by then the pages the
  // other thread took are compressed, so waiting for them rarely leaves this thread idle. Only
  // the written bytes decide offsets, so the file is the same whichever thread compressed a page.
  let previous: EncodedChunk | undefined;
  const write = async (chunk: EncodedChunk): Promise<void> => {
    const { leaf, c, dict, group } = chunk;
    const start = at;
    let uncompressed = 0;
    let dataStart = at;
    const locations: TStruct[] = [];
    for (const page of chunk.pages) {
      const compressed = page.compressed instanceof Uint8Array ? page.compressed : await page.compressed;
      const header = serializeStruct(struct(f(1, T_I32, page.type), f(2, T_I32, page.bodyLength), f(3, T_I32, compressed.length), f(4, T_I32, crc32(compressed) | 0), page.header));
      if (page.type === 0) locations.push(struct(f(1, T_I64, BigInt(at)), f(2, T_I32, header.length + compressed.length), f(3, T_I64, BigInt(page.first - group.g0))));
      emit(header);
      emit(compressed);
      uncompressed += header.length + page.bodyLength;
      if (page.type === 2) dataStart = at;
    }
    const compressedSize = at - start;
    const { pageStats, nulls, valueEncoding } = chunk;
    // bounds only when every page with values has them (not NaN-only) and none is longer than parquet-rs would write in full
    const bounded = !unbounded.has(c) && pageStats.every((s) => (s.values === 0 || (s.min && s.max)) && (s.min?.length ?? 0) <= MAX_BOUND_BYTES && (s.max?.length ?? 0) <= MAX_BOUND_BYTES);
    const statistics = chunkStatistics(leaf, pageStats, nulls, bounded);
    const meta = struct(
      f(1, T_I32, leaf.physical),
      f(2, T_LIST, list(T_I32, dict ? [PLAIN, RLE, RLE_DICTIONARY] : leaf.optional ? [PLAIN, RLE] : [PLAIN])),
      f(3, T_LIST, list(T_BINARY, [utf8.encode(leaf.name)])),
      f(4, T_I32, codec),
      f(5, T_I64, BigInt(group.g1 - group.g0)),
      f(6, T_I64, BigInt(uncompressed)),
      f(7, T_I64, BigInt(compressedSize)),
      f(9, T_I64, BigInt(dataStart)),
      ...(dict ? [f(11, T_I64, BigInt(start))] : []),
      f(12, T_STRUCT, statistics),
      f(
        13,
        T_LIST,
        list(T_STRUCT, [
          struct(f(1, T_I32, 0), f(2, T_I32, valueEncoding), f(3, T_I32, locations.length)),
          ...(dict ? [struct(f(1, T_I32, 2), f(2, T_I32, PLAIN), f(3, T_I32, 1))] : []),
        ]),
      ),
    );
    const chunkMeta = struct(f(2, T_I64, BigInt(start)), f(3, T_STRUCT, meta));
    group.chunks.push(chunkMeta);
    indexes.push({ chunk: chunkMeta, column: bounded ? columnIndex(leaf, pageStats) : undefined, offset: struct(f(1, T_LIST, list(T_STRUCT, locations))) });
    if (group.start < 0) group.start = start;
    group.uncompressed += uncompressed;
    group.compressed += compressedSize;
    if (group.chunks.length === leaves.length) {
      rowGroups.push(
        struct(
          f(1, T_LIST, list(T_STRUCT, group.chunks)),
          f(2, T_I64, BigInt(group.uncompressed)),
          f(3, T_I64, BigInt(group.g1 - group.g0)),
          f(5, T_I64, BigInt(group.start)),
          f(6, T_I64, BigInt(group.compressed)),
          f(7, T_I16, group.ordinal),
        ),
      );
      settle(group.g1);
    }
  };
  /** Arrow bytes per row of each leaf, and the file's Arrow bytes not yet encoded (the `remaining` of PageCompression.offload). */
  const leafBytesPerRow = leaves.map((_, c) => batches.reduce((n, b) => n + b.data.children[c]!.byteLength, 0) / Math.max(rows, 1));
  let remaining = arrowBytes;
  /** The body compressed here, or by the other thread when it takes it. */
  const compressPage = (body: Uint8Array): Uint8Array | Promise<Uint8Array> => {
    if (codec === 0) return body.slice();
    return compression.offload?.(body, remaining) ?? compression.compress(body);
  };

  for (let g0 = 0, ordinal = 0; g0 < rows; g0 += groupRows, ordinal++) {
    const group: GroupState = { g0, g1: Math.min(rows, g0 + groupRows), ordinal, chunks: [], start: -1, uncompressed: 0, compressed: 0 };
    const { g1 } = group;
    for (let c = 0; c < leaves.length; c++) {
      const leaf = leaves[c]!;
      const pages: EncodedPage[] = [];
      const built = dictionaryLeaves.has(c) && leaf.kind !== "bool" ? buildDictionary(batches, c, g0, g1, leaf.width, scratch.dict) : undefined;
      const dict = built && dictionaryPays(built, batches, c, g0, g1, leaf.width) ? built : undefined;
      if (dict) {
        const header = f(7, T_STRUCT, struct(f(1, T_I32, dict.count), f(2, T_I32, PLAIN), f(3, T_TRUE, false)));
        pages.push({ type: 2, bodyLength: dict.plain.length, compressed: compressPage(dict.plain), header, first: g0 });
      }
      const valueEncoding = dict ? RLE_DICTIONARY : PLAIN;
      const pageStats: PageStats[] = [];
      let nulls = 0;
      let k = 0; // next dictionary index
      // dictionary pages are sized by their indices (parquet-rs's estimate: bytes of bit-packed indices)
      const sizing = dict ? { kind: "i32" as const, width: Math.max(1, (dict.bitWidth + 7) >> 3) } : leaf;
      for (const page of pagesOf(batches, c, g0, g1, sizing, pageRows, pageSize)) {
        const { body, stats, values } = encodePage(leaf, page.pieces, page.rows, scratch, dict && { dict, from: k });
        k += values;
        remaining -= leafBytesPerRow[c]! * page.rows;
        const header = f(5, T_STRUCT, struct(f(1, T_I32, page.rows), f(2, T_I32, valueEncoding), f(3, T_I32, RLE), f(4, T_I32, RLE)));
        pages.push({ type: 0, bodyLength: body.length, compressed: compressPage(body), header, first: page.first });
        pageStats.push(stats);
        nulls += page.rows - values;
      }
      if (options.leafStats) addLeafStats((options.leafStats[c] ??= { nulls: 0, nan: false }), leaf.kind, pageStats, nulls);
      const chunk: EncodedChunk = { leaf, c, group, dict: dict && { count: dict.count }, pages, pageStats, nulls, valueEncoding };
      if (previous) await write(previous);
      previous = chunk;
    }
  }
  if (previous) await write(previous);

  // Column indexes, then offset indexes (parquet-rs's order), referenced from their chunks.
  for (const ix of indexes) {
    if (!ix.column) continue;
    const bytes = serializeStruct(ix.column);
    insertField(ix.chunk, f(6, T_I64, BigInt(at)));
    insertField(ix.chunk, f(7, T_I32, bytes.length));
    emit(bytes);
  }
  for (const ix of indexes) {
    const bytes = serializeStruct(ix.offset);
    insertField(ix.chunk, f(4, T_I64, BigInt(at)));
    insertField(ix.chunk, f(5, T_I32, bytes.length));
    emit(bytes);
  }

  const kv = [...options.keyValueMetadata].map(([k, v]) => struct(f(1, T_BINARY, utf8.encode(k)), f(2, T_BINARY, utf8.encode(v))));
  const footer = serializeStruct(
    struct(
      f(1, T_I32, 1),
      f(2, T_LIST, list(T_STRUCT, [struct(f(4, T_BINARY, utf8.encode("arrow_schema")), f(5, T_I32, leaves.length)), ...leaves.map((l) => l.element)])),
      f(3, T_I64, BigInt(rows)),
      f(4, T_LIST, list(T_STRUCT, rowGroups)),
      ...(kv.length > 0 ? [f(5, T_LIST, list(T_STRUCT, kv))] : []),
      f(6, T_BINARY, utf8.encode(CREATED_BY)),
      f(7, T_LIST, list(T_STRUCT, leaves.map(() => struct(f(1, T_STRUCT, struct()))))),
    ),
  );
  emit(footer);
  emit(u32le(footer.length));
  emit(u32le(PARQUET_MAGIC));
  settle(rows);
  return at === out.length ? out : out.subarray(0, at);
}

/**
 * Whether dictionary encoding makes the chunk smaller than PLAIN (parquet-mr's rule, as Java
 * Paimon's files): columns of (nearly) unique values — keys, sequence numbers, measurements — are
 * written PLAIN even when their dictionary fits the 1 MiB page (parquet-rs would keep it), so
 * readers do not gather every value through a dictionary of the same size.
 */
function dictionaryPays(dict: ChunkDictionary, batches: readonly arrow.RecordBatch[], c: number, from: number, to: number, width: number): boolean {
  return dictionaryBeatsPlain(dict.plain.length, dict.values, dict.bitWidth, plainChunkBytes(batches, c, width, dict.values, from, to));
}

/** `batches` with their TINYINT / SMALLINT columns as Int32 (offset 0), the other columns as they are. */
function widenSmallInts(schema: arrow.Schema, batches: readonly arrow.RecordBatch[]): readonly arrow.RecordBatch[] {
  const small = schema.fields.map((field) => arrow.DataType.isInt(field.type) && field.type.bitWidth < 32);
  if (!small.includes(true)) return batches;
  const wide = new arrow.Schema(schema.fields.map((field, i) => (small[i] ? new arrow.Field(field.name, new arrow.Int32(), field.nullable, field.metadata) : field)));
  return batches.map((batch) =>
    recordBatch(
      wide,
      batch.data.children.map((data, i) => {
        if (!small[i]) return data;
        // Arrow slices the values to the Data's rows, not its validity bitmap (bit data.offset + j)
        const values = Int32Array.from((data.values as Int8Array | Int16Array).subarray(0, data.length));
        let nullBitmap: Uint8Array | undefined;
        if (data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0) {
          const bm = data.nullBitmap;
          nullBitmap = new Uint8Array((data.length + 7) >> 3);
          for (let j = 0; j < data.length; j++) {
            const b = data.offset + j;
            if ((bm[b >> 3]! >> (b & 7)) & 1) nullBitmap[j >> 3]! |= 1 << (j & 7);
          }
        }
        return arrow.makeData({ type: new arrow.Int32(), length: data.length, nullCount: data.nullCount, nullBitmap, data: values });
      }),
      batch.numRows,
    ),
  );
}

/** A larger buffer holding the first `used` bytes of `buf`. */
function grow(buf: Uint8Array, used: number, size: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(size);
  next.set(buf.subarray(0, used));
  return next;
}

/** Adds `field` keeping ascending id order. */
function insertField(s: TStruct, field: TField): void {
  const i = s.fields.findIndex((x) => x.id > field.id);
  if (i < 0) s.fields.push(field);
  else s.fields.splice(i, 0, field);
}

function u32le(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

/**
 * The pages of column `c` over rows [g0, g1): at most `pageRows` rows and about `pageSize` PLAIN
 * bytes each (at least one row), as pieces of the batches' Data.
 */
function* pagesOf(batches: readonly arrow.RecordBatch[], c: number, g0: number, g1: number, leaf: Pick<Leaf, "kind" | "width">, pageRows: number, pageSize: number): Generator<{ pieces: Piece[]; rows: number; first: number }> {
  let pieces: Piece[] = [];
  let rows = 0;
  let bytes = 0;
  let first = g0;
  let base = 0; // first row of the current batch
  for (const batch of batches) {
    const end = base + batch.numRows;
    if (end > g0 && base < g1) {
      const data = batch.data.children[c]!;
      let from = Math.max(g0, base) - base;
      const to = Math.min(g1, end) - base;
      while (from < to) {
        const wanted = Math.min(to - from, pageRows - rows);
        let take = wanted;
        if (leaf.kind === "bytes") {
          const offsets = data.valueOffsets as Int32Array; // sliced to the Data's rows, like values
          const o = from;
          let n = 0;
          for (; n < wanted; n++) {
            const size = 4 + offsets[o + n + 1]! - offsets[o + n]!;
            if (bytes + size > pageSize && rows + n > 0) break;
            bytes += size;
          }
          take = n;
        } else if (leaf.width > 0) {
          take = Math.min(wanted, Math.max(rows === 0 ? 1 : 0, Math.floor((pageSize - bytes) / leaf.width)));
          bytes += take * leaf.width;
        }
        if (take > 0) {
          pieces.push({ data, from, to: from + take });
          rows += take;
          from += take;
        }
        if (take < wanted || rows >= pageRows) {
          yield { pieces, rows, first };
          first += rows;
          pieces = [];
          rows = 0;
          bytes = 0;
        }
      }
    }
    base = end;
    if (base >= g1) break;
  }
  if (rows > 0) yield { pieces, rows, first };
}

/** Set bits of each byte value. */
const POPCOUNT = Uint8Array.from({ length: 256 }, (_, x) => {
  let n = 0;
  for (let v = x; v; v &= v - 1) n++;
  return n;
});


/**
 * One page body (definition levels, then PLAIN values, or with `dict` the indices of its values
 * from `dict.from` on) and its statistics; `values` is the number of non-null values. The body
 * may be a view of the input or of a scratch buffer.
 */
function encodePage(
  leaf: Leaf,
  pieces: readonly Piece[],
  rows: number,
  scratch: { values: Scratch; levels: Scratch; body: Scratch; dict: DictionaryScratch },
  dict?: { dict: ChunkDictionary; from: number },
): { body: Uint8Array; stats: PageStats; values: number } {
  // validity of the page's rows, LSB first (only when some piece has nulls)
  let nulls = 0;
  let bits: Uint8Array | undefined;
  if (leaf.optional && pieces.some((p) => p.data.nullCount > 0)) {
    bits = scratch.levels.reserve(((rows + 7) >> 3) + 16).fill(0, 0, ((rows + 7) >> 3) + 16);
    let r = 0;
    for (const p of pieces) {
      const bm = p.data.nullBitmap;
      const all = p.data.nullCount === 0 || !bm || bm.length === 0;
      let j = p.data.offset + p.from;
      const end = p.data.offset + p.to;
      if (!all && (j & 7) === 0 && (r & 7) === 0) {
        // byte-aligned on both sides: whole bitmap bytes, nulls counted by bytes
        const whole = (end - j) >> 3;
        const src = j >> 3;
        const dst = r >> 3;
        for (let b = 0; b < whole; b++) {
          const x = bm[src + b]!;
          bits[dst + b] = x;
          nulls += 8 - POPCOUNT[x]!;
        }
        j += whole << 3;
        r += whole << 3;
      }
      for (; j < end; j++, r++) {
        if (all || (bm[j >> 3]! >> (j & 7)) & 1) bits[r >> 3]! |= 1 << (r & 7);
        else nulls++;
      }
    }
  }
  const values = rows - nulls;
  const { bytes: plain, stats } = dict ? dictionaryValues(leaf, dict.dict, dict.from, values, scratch.values, scratch.dict) : plainValues(leaf, pieces, values, nulls > 0, scratch.values);
  stats.nulls = nulls;
  stats.values = values;
  if (!leaf.optional) return { body: plain, stats, values };
  // definition levels: one RLE run when the page has no nulls (or only nulls), else bit-packed
  const levels = scratch.body.reserve(4 + 10 + ((rows + 7) >> 3) + plain.length);
  let p = 4;
  if (nulls === 0 || nulls === rows) {
    p = varint(levels, p, rows << 1);
    levels[p++] = nulls === 0 ? 1 : 0;
  } else {
    const groups = (rows + 7) >> 3;
    p = varint(levels, p, (groups << 1) | 1);
    levels.set(bits!.subarray(0, groups), p);
    p += groups;
  }
  new DataView(levels.buffer, levels.byteOffset).setUint32(0, p - 4, true);
  levels.set(plain, p);
  return { body: levels.subarray(0, p + plain.length), stats, values };
}

/** The PLAIN values of the non-null rows of `pieces` and their bounds. */
function plainValues(leaf: Leaf, pieces: readonly Piece[], count: number, hasNulls: boolean, scratch: Scratch): { bytes: Uint8Array; stats: PageStats } {
  if (leaf.kind === "bool") return plainBooleans(pieces, count, scratch);
  if (leaf.kind === "bytes") return plainBinary(pieces, count, scratch);
  const width = leaf.width;
  let bytes: Uint8Array;
  const only = pieces.length === 1 ? pieces[0]! : undefined;
  if (only && !hasNulls && (only.data.nullCount === 0 || !leaf.optional)) {
    // straight from the Arrow buffer
    const v = only.data.values as ArrayBufferView;
    bytes = new Uint8Array(v.buffer, v.byteOffset + only.from * width, (only.to - only.from) * width);
  } else {
    bytes = scratch.reserve(count * width + 8).subarray(0, count * width);
    const words = width >> 2;
    const out = new Int32Array(bytes.buffer, bytes.byteOffset, count * words);
    let k = 0;
    for (const p of pieces) {
      const v = p.data.values as ArrayBufferView;
      const src = new Int32Array(v.buffer, v.byteOffset, p.to * words);
      const bm = p.data.nullBitmap;
      const allValid = p.data.nullCount === 0 || !bm || bm.length === 0;
      const bit = p.data.offset; // values are sliced to the Data's rows, its validity bitmap is not
      for (let j = p.from; j < p.to; j++) {
        if (!allValid) {
          // a whole validity byte at once where it is all valid or all null
          if (((j + bit) & 7) === 0 && j + 8 <= p.to) {
            const byte = bm[(j + bit) >> 3]!;
            if (byte === 0) {
              j += 7;
              continue;
            }
            if (byte === 0xff) {
              const s = j * words;
              const n = 8 * words;
              for (let w = 0; w < n; w++) out[k++] = src[s + w]!;
              j += 7;
              continue;
            }
          }
          if (((bm[(j + bit) >> 3]! >> ((j + bit) & 7)) & 1) === 0) continue;
        }
        const s = j * words;
        out[k++] = src[s]!;
        if (words === 2) out[k++] = src[s + 1]!;
      }
    }
  }
  return { bytes, stats: fixedBounds(leaf.kind, bytes, count) };
}

/** The encoded indices of the page's `count` values from dictionary index `from` on, and their bounds. */
function dictionaryValues(leaf: Leaf, d: ChunkDictionary, from: number, count: number, scratch: Scratch, ds: DictionaryScratch): { bytes: Uint8Array; stats: PageStats } {
  const out = scratch.reserve(encodedIndicesBound(count, d.bitWidth));
  const end = encodeIndices(out, 0, d.indices, from, from + count, d.bitWidth);
  return { bytes: out.subarray(0, end), stats: dictionaryBounds(leaf, d, from, from + count, ds) };
}

/** Min/max of the dictionary entries indices[from, to) refer to (each distinct entry compared once). */
function dictionaryBounds(leaf: Leaf, d: ChunkDictionary, from: number, to: number, ds: DictionaryScratch): PageStats {
  if (ds.stamps.length < d.count) {
    ds.stamps = new Int32Array(Math.max(d.count, ds.stamps.length * 2));
    ds.stamp = 0;
  }
  const stamp = ++ds.stamp;
  const stamps = ds.stamps;
  const idx = d.indices;
  if (leaf.kind === "bytes") {
    const starts = d.starts!;
    const ends = d.ends!;
    let lo = -1;
    let hi = -1;
    for (let i = from; i < to; i++) {
      const e = idx[i]!;
      if (stamps[e] === stamp) continue;
      stamps[e] = stamp;
      if (lo < 0) lo = hi = e;
      else if (compareBytes(d.plain, starts[e]!, ends[e]!, d.plain, starts[lo]!, ends[lo]!) < 0) lo = e;
      else if (compareBytes(d.plain, starts[e]!, ends[e]!, d.plain, starts[hi]!, ends[hi]!) > 0) hi = e;
    }
    const stats: PageStats = { nulls: 0, values: 0 };
    if (lo >= 0) {
      stats.min = d.plain.slice(starts[lo]!, ends[lo]!);
      stats.max = d.plain.slice(starts[hi]!, ends[hi]!);
    }
    return stats;
  }
  // the distinct entries' PLAIN bytes, then the fixed-width bounds over them
  const width = leaf.width;
  const words = width >> 2;
  if (ds.distinct.length < d.count * width) ds.distinct = new Uint8Array(Math.max(d.count * width, ds.distinct.length * 2));
  const dst = new Int32Array(ds.distinct.buffer, 0, ds.distinct.length >> 2);
  const src = new Int32Array(d.plain.buffer, d.plain.byteOffset, d.plain.length >> 2);
  let n = 0;
  for (let i = from; i < to; i++) {
    const e = idx[i]!;
    if (stamps[e] === stamp) continue;
    stamps[e] = stamp;
    dst[n * words] = src[e * words]!;
    if (words === 2) dst[n * 2 + 1] = src[e * 2 + 1]!;
    n++;
  }
  return fixedBounds(leaf.kind, ds.distinct, n);
}

/** Min/max of `count` PLAIN fixed-width values (signed ints; floats without NaN, zeros as parquet-rs writes them). */
function fixedBounds(kind: Leaf["kind"], bytes: Uint8Array, count: number): PageStats {
  if (count === 0) return { nulls: 0, values: 0 };
  let lo = -1;
  let hi = -1;
  if (kind === "i32") {
    const v = new Int32Array(bytes.buffer, bytes.byteOffset, count);
    lo = hi = 0;
    for (let i = 1; i < count; i++) {
      const x = v[i]!;
      if (x < v[lo]!) lo = i;
      if (x > v[hi]!) hi = i;
    }
  } else if (kind === "i64") {
    const v = new Int32Array(bytes.buffer, bytes.byteOffset, count * 2);
    let loHi = v[1]!;
    let loLo = v[0]! >>> 0;
    let hiHi = loHi;
    let hiLo = loLo;
    lo = hi = 0;
    for (let i = 1; i < count; i++) {
      const h = v[2 * i + 1]!;
      const l = v[2 * i]! >>> 0;
      if (h < loHi || (h === loHi && l < loLo)) {
        lo = i;
        loHi = h;
        loLo = l;
      }
      if (h > hiHi || (h === hiHi && l > hiLo)) {
        hi = i;
        hiHi = h;
        hiLo = l;
      }
    }
  } else {
    const v = kind === "f32" ? new Float32Array(bytes.buffer, bytes.byteOffset, count) : new Float64Array(bytes.buffer, bytes.byteOffset, count);
    let min = Infinity;
    let max = -Infinity;
    let any = false;
    let nan = false;
    for (let i = 0; i < count; i++) {
      const x = v[i]!;
      if (x !== x) {
        nan = true;
        continue;
      }
      any = true;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    if (!any) return { nulls: 0, values: 0, nan };
    // -0.0 as the lower bound and +0.0 as the upper bound when a bound is zero (Parquet spec)
    if (min === 0) min = -0;
    if (max === 0) max = 0;
    const enc = (x: number): Uint8Array => (kind === "f32" ? new Uint8Array(new Float32Array([x]).buffer) : new Uint8Array(new Float64Array([x]).buffer));
    return { nulls: 0, values: 0, min: enc(min), max: enc(max), nan };
  }
  const w = kind === "i32" ? 4 : 8;
  return { nulls: 0, values: 0, min: bytes.slice(lo * w, lo * w + w), max: bytes.slice(hi * w, hi * w + w) };
}

function plainBooleans(pieces: readonly Piece[], count: number, scratch: Scratch): { bytes: Uint8Array; stats: PageStats } {
  const n = (count + 7) >> 3;
  const out = scratch.reserve(n + 8).fill(0, 0, n);
  let k = 0;
  let trues = 0;
  for (const p of pieces) {
    const v = p.data.values as Uint8Array;
    const allValid = p.data.nullCount === 0;
    for (let i = p.from; i < p.to; i++) {
      if (!allValid && !isValidAt(p.data, i)) continue;
      const j = p.data.offset + i;
      if ((v[j >> 3]! >> (j & 7)) & 1) {
        out[k >> 3]! |= 1 << (k & 7);
        trues++;
      }
      k++;
    }
  }
  const stats: PageStats = { nulls: 0, values: 0 };
  if (count > 0) {
    stats.min = Uint8Array.of(trues === count ? 1 : 0);
    stats.max = Uint8Array.of(trues > 0 ? 1 : 0);
  }
  return { bytes: out.subarray(0, n), stats };
}

function plainBinary(pieces: readonly Piece[], count: number, scratch: Scratch): { bytes: Uint8Array; stats: PageStats } {
  let size = count * 4;
  for (const p of pieces) {
    const o = p.data.valueOffsets as Int32Array;
    size += o[p.to]! - o[p.from]!; // null slots hold no bytes in valid Arrow data, but are not counted below
  }
  let out = scratch.reserve(size + 8);
  let outView = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let at = 0;
  // The current bounds, and their first 8 bytes as big-endian words, zero-padded: a value whose
  // padded prefix lies strictly between them is neither bound, without a full comparison.
  let minV: Uint8Array | undefined;
  let minS = 0;
  let minE = 0;
  let maxV: Uint8Array | undefined;
  let maxS = 0;
  let maxE = 0;
  let minHi = 0;
  let minLo = 0;
  let maxHi = 0;
  let maxLo = 0;
  for (const p of pieces) {
    const o = p.data.valueOffsets as Int32Array;
    const v = p.data.values as Uint8Array;
    const bm = p.data.nullBitmap;
    const allValid = p.data.nullCount === 0 || !bm || bm.length === 0;
    const bit = p.data.offset; // offsets are sliced to the Data's rows, its validity bitmap is not
    const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
    for (let j = p.from; j < p.to; j++) {
      if (!allValid && ((bm[(j + bit) >> 3]! >> ((j + bit) & 7)) & 1) === 0) continue;
      const s = o[j]!;
      const e = o[j + 1]!;
      const len = e - s;
      if (at + 4 + len > out.length) {
        out = growScratch(scratch, at, at + 4 + len);
        outView = new DataView(out.buffer, out.byteOffset, out.byteLength);
      }
      outView.setInt32(at, len, true);
      at += 4;
      // short values word by word (unaligned DataView words: several times faster than bytes or a subarray per value)
      if (len < 64) {
        let b = s;
        for (; b + 4 <= e; b += 4, at += 4) outView.setInt32(at, view.getInt32(b, true), true);
        for (; b < e; b++) out[at++] = v[b]!;
      } else {
        out.set(v.subarray(s, e), at);
        at += len;
      }
      const hi = prefixWord(v, s, e);
      const lo = prefixWord(v, s + 4, e);
      if (!minV || !maxV) {
        minV = maxV = v;
        minS = maxS = s;
        minE = maxE = e;
        minHi = maxHi = hi;
        minLo = maxLo = lo;
        continue;
      }
      if ((hi > minHi || (hi === minHi && lo > minLo)) && (hi < maxHi || (hi === maxHi && lo < maxLo))) continue;
      if (compareBytes(v, s, e, minV, minS, minE) < 0) {
        minV = v;
        minS = s;
        minE = e;
        minHi = hi;
        minLo = lo;
      } else if (compareBytes(v, s, e, maxV, maxS, maxE) > 0) {
        maxV = v;
        maxS = s;
        maxE = e;
        maxHi = hi;
        maxLo = lo;
      }
    }
  }
  const stats: PageStats = { nulls: 0, values: 0 };
  if (minV && maxV) {
    stats.min = minV.slice(minS, minE);
    stats.max = maxV.slice(maxS, maxE);
  }
  return { bytes: out.subarray(0, at), stats };
}

function growScratch(scratch: Scratch, keep: number, need: number): Uint8Array {
  scratch.buf = grow(scratch.buf, keep, Math.max(need, scratch.buf.length * 2));
  return scratch.buf;
}

/** Compares two PLAIN-encoded bounds in the leaf's sort order. */
function compareBound(kind: Leaf["kind"], a: Uint8Array, b: Uint8Array): number {
  switch (kind) {
    case "i32":
      return new DataView(a.buffer, a.byteOffset).getInt32(0, true) - new DataView(b.buffer, b.byteOffset).getInt32(0, true);
    case "i64": {
      const x = new DataView(a.buffer, a.byteOffset).getBigInt64(0, true);
      const y = new DataView(b.buffer, b.byteOffset).getBigInt64(0, true);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case "f32":
      return new DataView(a.buffer, a.byteOffset).getFloat32(0, true) - new DataView(b.buffer, b.byteOffset).getFloat32(0, true);
    case "f64":
      return new DataView(a.buffer, a.byteOffset).getFloat64(0, true) - new DataView(b.buffer, b.byteOffset).getFloat64(0, true);
    default:
      return compareBytes(a, 0, a.length, b, 0, b.length);
  }
}

/** Adds a chunk's pages to a leaf's file statistics. */
function addLeafStats(to: FlatLeafStats, kind: Leaf["kind"], pages: readonly PageStats[], nulls: number): void {
  to.nulls += nulls;
  for (const p of pages) {
    if (p.nan) to.nan = true;
    if (p.min && (!to.min || compareBound(kind, p.min, to.min) < 0)) to.min = p.min;
    if (p.max && (!to.max || compareBound(kind, p.max, to.max) > 0)) to.max = p.max;
  }
}

/** The chunk's Statistics: null count, and min/max over its pages when `bounded`. */
function chunkStatistics(leaf: Leaf, pages: readonly PageStats[], nulls: number, bounded: boolean): TStruct {
  let min: Uint8Array | undefined;
  let max: Uint8Array | undefined;
  if (bounded) {
    for (const p of pages) {
      if (p.min && (!min || compareBound(leaf.kind, p.min, min) < 0)) min = p.min;
      if (p.max && (!max || compareBound(leaf.kind, p.max, max) > 0)) max = p.max;
    }
  }
  const fields: TField[] = [];
  if (min && max && leaf.signed) fields.push(f(1, T_BINARY, max), f(2, T_BINARY, min));
  fields.push(f(3, T_I64, BigInt(nulls)));
  if (min && max) fields.push(f(5, T_BINARY, max), f(6, T_BINARY, min), f(7, T_TRUE, true), f(8, T_TRUE, true));
  return struct(...fields);
}

/** The column index of a chunk whose every page bound is written in full. */
function columnIndex(leaf: Leaf, pages: readonly PageStats[]): TStruct {
  const empty = new Uint8Array(0);
  const withBounds = pages.filter((p) => p.min && p.max);
  let ascending = true;
  let descending = true;
  for (let i = 1; i < withBounds.length; i++) {
    const a = withBounds[i - 1]!;
    const b = withBounds[i]!;
    const dMin = compareBound(leaf.kind, a.min!, b.min!);
    const dMax = compareBound(leaf.kind, a.max!, b.max!);
    if (dMin > 0 || dMax > 0) ascending = false;
    if (dMin < 0 || dMax < 0) descending = false;
  }
  const order = withBounds.length === 0 ? 0 : ascending ? 1 : descending ? 2 : 0;
  return struct(
    f(1, T_LIST, list(T_TRUE, pages.map((p) => !p.min))),
    f(2, T_LIST, list(T_BINARY, pages.map((p) => p.min ?? empty))),
    f(3, T_LIST, list(T_BINARY, pages.map((p) => p.max ?? empty))),
    f(4, T_I32, order),
    f(5, T_LIST, list(T_I64, pages.map((p) => BigInt(p.nulls)))),
  );
}
