// Reads Parquet data files (ours, Java Paimon's parquet-mr files, pypaimon's pyarrow files) into
// Arrow record batches, with projection, row-group selection, batch size and mapping of columns
// by Parquet field id for files written under older schema versions.
//
// Flow: the footer is read and validated in TypeScript (typed thrift parse), the
// byte ranges of only the requested columns of a row group are fetched from the source, an
// in-memory Parquet file with just those column chunks is assembled (footer rewritten), and
// parquet-wasm's synchronous reader decodes it. Any decoder failure — including a Rust panic,
// after which the wasm instance is replaced — becomes a CORRUPT_FILE error naming the file.

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { type DataField, needsValueCast } from "../spec/types.js";
import type { ColumnCast } from "./type-casts.js";
import { convertData, fieldIdOf, makeNullData, readArrowField } from "./arrow-types.js";
import { buildPrunedFile, chunkWhere, readFooter, readLeafChunks, type ParquetFooter } from "./footer.js";
import { checkPageCrc, readPageHeader } from "./parquet-pages.js";
import { getValue } from "./thrift.js";
import { loadZstd } from "../spec/zstd.js";
import { corrupt, toByteSource, type ByteSource, type ParquetSource } from "./source.js";
import { isServerRuntime, isWasmTrap, prefetchParquetWasm, withParquetWasm } from "./wasm.js";
import { pageWorkerFor, zstdHeapView } from "./page-worker-load.js";
import { recordBatch, sliceBatch } from "../arrow/record-batch.js";
import { concatData } from "../arrow/concat.js";
import { ChunkCache, dataBytes } from "./chunk-cache.js";
import { initKernels, loadedKernelFrame } from "../kernel/wasm.js";
import { snappyView } from "../kernel/snappy-decompress.js";

export interface ParquetReadOptions {
  /**
   * Read schema: the Paimon fields to return, in this order, as their Arrow types
   * (spec/types.ts `toArrowType`). File columns are matched by field id (`mapBy: "id"`, the
   * default; falls back to names when the file carries no field ids) or by name. Requested
   * fields missing from the file come back as all-null columns.
   */
  fields?: readonly DataField[];
  /** With `fields`: how to match file columns. Default "id". */
  mapBy?: "id" | "name";
  /**
   * With `fields`: the Paimon fields of the schema the file was written with (its `_SCHEMA_ID`).
   * When columns are matched by name (the file carries no field ids, as pypaimon writes them),
   * a requested field is looked up under its name in that schema, found by field id — as Java
   * does — so renamed columns are found and a dropped-then-re-added name is not mistaken.
   */
  fileFields?: readonly DataField[];
  /** Without `fields`: top-level file column names to return (default all), as stored. */
  columns?: readonly string[];
  /** Row group indices to read (default all). */
  rowGroups?: readonly number[];
  /** Maximum rows per returned batch (default 64Ki). */
  batchSize?: number;
  /** File name for error messages (default: the source's name). */
  fileName?: string;
  /** A footer already read with `readParquetFooter` for this source (skips re-reading it). */
  footer?: ParquetFooter;
}

const DEFAULT_BATCH_SIZE = 65536;

export interface Plan {
  src: ByteSource;
  footer: ParquetFooter;
  /** Top-level file column indices to decode. */
  fileColumns: number[];
  /** Output schema. */
  schema: arrow.Schema;
  /** Per output field: index into the decoded table's columns, or -1 (missing -> nulls). */
  sourceIndex: number[];
  /** Per output field: the cast of a column whose type changed since the file was written (`fileFields`), or null. */
  casts: (ColumnCast | null)[];
  rowGroups: number[];
  batchSize: number;
}

/** Resolves the file columns, output schema and row groups of a read (exported for selective reads). */
export async function plan(source: ParquetSource, options: ParquetReadOptions): Promise<Plan> {
  const src = toByteSource(source, options.fileName);
  const footer = options.footer ?? (await readFooter(src));
  const rowGroups = options.rowGroups ? [...options.rowGroups] : footer.rowGroups.map((_, i) => i);
  for (const r of rowGroups) {
    if (!Number.isInteger(r) || r < 0 || r >= footer.rowGroups.length)
      throw new PaimonError("INVALID_ARGUMENT", `Row group ${r} does not exist in ${src.name} (${footer.rowGroups.length} row groups)`);
  }
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new PaimonError("INVALID_ARGUMENT", `batchSize must be a positive integer, got ${batchSize}`);

  let fileIdx: number[]; // per output field: file top-level column index or -1
  let outFields: arrow.Field[] | undefined;
  if (options.fields) {
    const byId = (options.mapBy ?? "id") === "id" && footer.columns.some((c) => c.fieldId !== undefined);
    fileIdx = options.fields.map((f) => {
      if (byId) return footer.columns.findIndex((c) => c.fieldId === f.id);
      const name = options.fileFields ? options.fileFields.find((ff) => ff.id === f.id)?.name : f.name;
      return name === undefined ? -1 : footer.columns.findIndex((c) => c.name === name);
    });
    outFields = options.fields.map((f) => readArrowField(f));
  } else if (options.columns) {
    fileIdx = options.columns.map((name) => {
      const i = footer.columns.findIndex((c) => c.name === name);
      if (i < 0) throw new PaimonError("INVALID_ARGUMENT", `Column '${name}' does not exist in ${src.name}`);
      return i;
    });
  } else {
    fileIdx = footer.columns.map((_, i) => i);
  }
  const fileColumns = [...new Set(fileIdx.filter((i) => i >= 0))].sort((a, b) => a - b);
  const sourceIndex = fileIdx.map((i) => (i < 0 ? -1 : fileColumns.indexOf(i)));
  // Without a read schema the output schema is the decoded one (known after the first decode).
  const schema = new arrow.Schema(outFields ?? []);
  const casts = await columnCasts(options.fields ?? [], options.fileFields);
  // a VARIANT column written shredded (more leaves than value and metadata) is rebuilt as Java's reader does
  const shredded = (options.fields ?? []).flatMap((f, i) => {
    const c = footer.columns[fileIdx[i]!];
    return f.type.kind === "VARIANT" && c && c.leafEnd - c.leafStart !== 2 ? [i] : [];
  });
  if (shredded.length > 0) {
    const { shreddedVariantCast } = await import("./variant-shredded.js");
    const deps = { makeData: arrow.makeData, PaimonError, corrupt: (what: string, detail: string) => corrupt(src.name, `${what}: ${detail}`) };
    for (const i of shredded) casts[i] = shreddedVariantCast(deps, outFields![i]!.type as arrow.Struct);
  }
  return { src, footer, fileColumns, schema, sourceIndex, casts, rowGroups, batchSize };
}

/**
 * Per read field: the cast of its file column when its type changed since the file was written,
 * else null. The cast code (type-casts.ts) loads only for such a file, so a query-only bundle
 * carries it in a lazy chunk.
 */
export async function columnCasts(fields: readonly DataField[], fileFields: readonly DataField[] | undefined): Promise<(ColumnCast | null)[]> {
  const fileFieldOf = (f: DataField) => fileFields?.find((ff) => ff.id === f.id);
  if (!fields.some((f) => { const ff = fileFieldOf(f); return ff !== undefined && needsValueCast(ff.type, f.type); })) return fields.map(() => null);
  const { columnCast } = await import("./type-casts.js");
  return fields.map((f) => columnCast(fileFieldOf(f), f));
}

/** A decoded file column as the read wants it: cast as Java casts it when its type changed (`cast`), else converted by Arrow layout. */
export function readAs(data: arrow.Data, type: arrow.DataType, cast: ColumnCast | null, what: string): arrow.Data {
  return cast ? cast.apply(cast.raw ? data : convertData(data, cast.fileType, what), what) : convertData(data, type, what);
}

let flatDecoding = true;
let byteArrayKernel = true;
type FlatDecoder = Awaited<ReturnType<typeof import("./parquet-flat.js").bindFlatDecoder>>;
type FlatDeps = import("./parquet-flat.js").FlatDeps;
type PageDecompressor = import("./parquet-flat.js").PageDecompressor;
let flatModule: Promise<FlatDecoder | null> | undefined;

/**
 * Whether reads with a read schema decode flat columns of the common types with the focused
 * decoder (parquet-flat.ts, the default) or every column with parquet-wasm (tests compare both).
 */
export function setFlatDecoding(on: boolean): void {
  flatDecoding = on;
}

/**
 * Whether the flat decoder splits PLAIN byte-array pages with the kernel module when it is loaded
 * (the default) or always with its own loop (tests compare both).
 */
export function setByteArrayKernel(on: boolean): void {
  byteArrayKernel = on;
}

let decompressionWorker: boolean | "always" = true;
/** Row groups with fewer zstd page bytes (uncompressed) than this decompress every page inline. */
const WORKER_MIN_READ_BYTES = 4 * 1024 * 1024;
/** Row groups with at least this many wait for the page worker to start (the first such read of a process). */
const WORKER_WAIT_READ_BYTES = 16 * 1024 * 1024;

/**
 * Whether the flat decoder decompresses zstd pages of large row groups partly on the page worker
 * (page-worker.ts; the default, where the runtime has node:worker_threads), never (false), or
 * hands it every page it can, waiting for it to start ("always", tests). Same rows either way.
 */
export function setDecompressionWorker(use: boolean | "always"): void {
  decompressionWorker = use;
}

/** The page worker's decompressor for a row group of `work` zstd and snappy page bytes, if the worker is to be used and ready. */
async function pageDecompressor(work: number): Promise<PageDecompressor | undefined> {
  const use = decompressionWorker;
  const worker = await pageWorkerFor(use, work, WORKER_MIN_READ_BYTES, WORKER_WAIT_READ_BYTES);
  return worker && ((data, size, codec, crc) => worker.decompress(data, size, codec === 1 ? "snappy" : "zstd", use === "always", crc));
}

/** Loads the flat decoder (a lazy chunk) and its zstd module, once. */
export function prefetchFlatDecoder(): Promise<FlatDecoder | null> {
  if (flatModule) return flatModule;
  // zstd and its heap decompressor (the page worker module) start loading now (server runtimes,
  // where the decoder uses them) rather than once the chunk is imported or the first page is read
  if (isServerRuntime()) {
    void loadZstd();
    void zstdHeapView();
  }
  const deps: FlatDeps = [
    [arrow.makeData, arrow.Schema, arrow.Field, arrow.Table, arrow.Bool, arrow.Int8, arrow.Int16, arrow.Int32, arrow.Int64, arrow.DateDay, arrow.Timestamp, arrow.Float32, arrow.Float64, arrow.Utf8, arrow.Binary],
    readLeafChunks, readPageHeader, loadZstd, recordBatch, sliceBatch, concatData, corrupt, getValue, isServerRuntime, () => initKernels().then(snappyView), pageDecompressor, zstdHeapView,
    () => (byteArrayKernel ? loadedKernelFrame() : undefined),
    checkPageCrc,
    chunkWhere,
  ];
  return (flatModule = import("./parquet-flat.js").then((m) => m.bindFlatDecoder(deps)).catch(() => null));
}

/** Paimon type kinds whose columns the flat decoder takes (parquet-flat.ts `flatArrowType`). */
const FLAT_KINDS = new Set(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "CHAR", "VARCHAR", "VARBINARY", "TIMESTAMP", "TIMESTAMP_LTZ"]);

/**
 * Starts loading the decoders a read of `fields` will use, without waiting (a scan calls it, so
 * loading overlaps reading the table's metadata): the flat decoder and its zstd module, and
 * parquet-wasm only where a chunk will need it: a column outside the flat decoder's scope, or
 * `wasmLikely` (the caller expects chunks it does not take, e.g. SNAPPY or GZIP files, or the
 * pages of a selective read). Reads load parquet-wasm themselves when a chunk needs it.
 */
export function prefetchDecoders(fields: readonly DataField[], wasmLikely: boolean): void {
  void prefetchFlatDecoder();
  if (wasmLikely || fields.some((f) => !FLAT_KINDS.has(f.type.kind) || ("precision" in f.type && f.type.precision > 6))) prefetchParquetWasm();
}

/** The flat decoder, or null when it is switched off (`setFlatDecoding`) or cannot load. */
export function flatDecoder(): Promise<FlatDecoder | null> {
  return flatDecoding ? prefetchFlatDecoder() : Promise.resolve(null);
}

async function decode(p: Plan, rowGroup: number): Promise<arrow.Table | undefined> {
  if (p.fileColumns.length === 0) return undefined;
  // with a read schema (the output schema is known before decoding), flat columns go to parquet-flat.ts
  const flat = p.schema.fields.length > 0 ? await flatDecoder() : null;
  return (await flat?.decodeRowGroup(p, rowGroup, decodeWasm)) ?? decodeWasm(p, p.fileColumns, rowGroup, p.batchSize);
}

/** Decodes `fileColumns` of a row group with parquet-wasm, in batches of `batchSize` rows. */
export async function decodeWasm(p: Plan, fileColumns: readonly number[], rowGroup: number, batchSize: number): Promise<arrow.Table | undefined> {
  const file = await buildPrunedFile(p.src, p.footer, fileColumns, [rowGroup]);
  try {
    const ipc = await withParquetWasm((pw) => {
      const table = pw.readParquet(file, { batchSize });
      return table.intoIPCStream();
    });
    return arrow.tableFromIPC(ipc);
  } catch (e) {
    if (e instanceof PaimonError) throw e;
    const detail = isWasmTrap(e) ? "the Parquet decoder aborted" : String((e as Error)?.message ?? e);
    throw corrupt(p.src.name, `row group ${rowGroup}: ${detail}`, e);
  }
}

function outputBatch(p: Plan, decoded: arrow.RecordBatch | undefined, length: number, schema: arrow.Schema, fromFile: boolean): arrow.RecordBatch {
  const children = schema.fields.map((f, i) => {
    const si = p.sourceIndex[i]!;
    if (si < 0 || !decoded) return makeNullData(f.type, length);
    const data = decoded.data.children[si]!; // not getChildAt: no Vector made per column
    if (fromFile) return data;
    return readAs(data, f.type, p.casts[i]!, `${f.name} of ${p.src.name}`);
  });
  return recordBatch(schema, children, length);
}

/** Streams the file's rows as Arrow record batches (one row group decoded at a time). */
export async function* readParquetBatches(source: ParquetSource, options: ParquetReadOptions = {}): AsyncGenerator<arrow.RecordBatch> {
  const p = await plan(source, options);
  const fromFile = !options.fields;
  for (const r of p.rowGroups) {
    const rows = p.footer.rowGroups[r]!.numRows;
    if (rows === 0) continue;
    const table = await decode(p, r);
    if (!table) {
      // Nothing to decode (no requested column is in the file): null columns / row count only.
      for (let at = 0; at < rows; at += p.batchSize) yield outputBatch(p, undefined, Math.min(p.batchSize, rows - at), p.schema, fromFile);
      continue;
    }
    const schema = fromFile ? fileSchema(table.schema, p.sourceIndex) : p.schema;
    if (table.numRows !== rows) throw corrupt(p.src.name, `row group ${r} decoded ${table.numRows} rows, footer says ${rows}`);
    for (const batch of table.batches) {
      if (batch.numRows > 0) yield outputBatch(p, batch, batch.numRows, schema, fromFile);
    }
  }
}

/**
 * As `readParquetBatches` with a read schema, taking decoded column chunks from `cache` and
 * storing those asked for a second time (data files are immutable): a query repeated over the
 * same committed files decodes only what the cache does not hold. Each row group comes out in
 * `batchSize` slices of one decoded batch.
 */
export async function* readParquetBatchesCached(source: ParquetSource, options: ParquetReadOptions & { fields: readonly DataField[] }, cache: ChunkCache): AsyncGenerator<arrow.RecordBatch> {
  const p = await plan(source, options);
  for (const r of p.rowGroups) {
    const rows = p.footer.rowGroups[r]!.numRows;
    if (rows === 0) continue;
    const children: arrow.Data[] = new Array(p.schema.fields.length);
    const keys: string[] = [];
    const missing: number[] = [];
    p.schema.fields.forEach((f, i) => {
      const si = p.sourceIndex[i]!;
      if (si < 0) {
        children[i] = makeNullData(f.type, rows);
        return;
      }
      keys[i] = ChunkCache.key(p.src.name, p.src.size, r, p.fileColumns[si]!, f.type) + (p.casts[i] ? `|${p.casts[i]!.key}` : "");
      const hit = cache.get(keys[i]!);
      if (hit) children[i] = hit;
      else missing.push(i);
    });
    if (missing.length > 0) {
      // decode only the missing columns, as one batch of the row group
      const fileColumns = [...new Set(missing.map((i) => p.fileColumns[p.sourceIndex[i]!]!))].sort((a, b) => a - b);
      const table = (await decode({ ...p, fileColumns, batchSize: rows }, r))!;
      if (table.numRows !== rows) throw corrupt(p.src.name, `row group ${r} decoded ${table.numRows} rows, footer says ${rows}`);
      for (const i of missing) {
        const f = p.schema.fields[i]!;
        const column = table.getChildAt(fileColumns.indexOf(p.fileColumns[p.sourceIndex[i]!]!))!;
        const decoded = column.data.length === 1 ? column.data[0]! : concatData(column.data);
        const data = readAs(decoded, f.type, p.casts[i]!, `${f.name} of ${p.src.name}`);
        children[i] = data;
        if (cache.admit(keys[i]!, dataBytes(data))) cache.put(keys[i]!, data);
      }
    }
    const batch = recordBatch(p.schema, children, rows);
    for (let at = 0; at < rows; at += p.batchSize) yield at === 0 && rows <= p.batchSize ? batch : sliceBatch(batch, at, Math.min(rows, at + p.batchSize));
  }
}

function fileSchema(decoded: arrow.Schema, sourceIndex: readonly number[]): arrow.Schema {
  return new arrow.Schema(sourceIndex.map((si) => decoded.fields[si]!));
}

/** Reads the whole selection into one Arrow table. */
export async function readParquet(source: ParquetSource, options: ParquetReadOptions = {}): Promise<arrow.Table> {
  const batches: arrow.RecordBatch[] = [];
  for await (const b of readParquetBatches(source, options)) batches.push(b);
  if (batches.length > 0) return new arrow.Table(batches);
  if (options.fields) return new arrow.Table(new arrow.Schema(options.fields.map((f) => readArrowField(f))), []);
  return new arrow.Table(await emptySchema(source, options));
}

async function emptySchema(source: ParquetSource, options: ParquetReadOptions): Promise<arrow.Schema> {
  // Decode the schema through a zero-row-group pruned file.
  const p = await plan(source, options);
  if (p.fileColumns.length === 0) return new arrow.Schema([]);
  const file = await buildPrunedFile(p.src, p.footer, p.fileColumns, []);
  try {
    const ipc = await withParquetWasm((pw) => pw.readParquet(file).intoIPCStream());
    return fileSchema(arrow.tableFromIPC(ipc).schema, p.sourceIndex);
  } catch (e) {
    if (e instanceof PaimonError) throw e; // e.g. UNSUPPORTED: the decoder could not be loaded
    throw corrupt(p.src.name, String((e as Error)?.message ?? e), e);
  }
}

/** Field ids of the file's top-level columns (undefined where the file has none). */
export function fileFieldIds(footer: ParquetFooter): Array<{ name: string; fieldId: number | undefined }> {
  return footer.columns.map((c) => ({ name: c.name, fieldId: c.fieldId }));
}

export { fieldIdOf };
