// Writes Arrow data as a Parquet data file the way Java Paimon does (format reference §14):
// Paimon field ids on every field (nested ones too), Paimon's type layout, zstd by default,
// and the per-column statistics DataFileMeta needs, computed in TypeScript while writing.

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import type { DataField, DataType, RowType } from "../spec/types.js";
import { base64, convertData, int96Leaves, parquetArrowSchema } from "./arrow-types.js";
import { ColumnStatsCollector, parseStatsMode, type ColumnStats, type StatsMode } from "./column-stats.js";
import { withParquetWasm, type ParquetWasm } from "./wasm.js";
import { finishParquetFile } from "./parquet-finish.js";
import { overflowingDictionaryColumns } from "./dictionary-choice.js";
import { encodeFlatParquet, flatCompressor, flatEncodable, type FlatCodec, type FlatLeafStats, type PageCompression } from "./parquet-encode.js";
import { pageWorkerFor } from "./page-worker-load.js";
import { recordBatch } from "../arrow/record-batch.js";

/**
 * `schema` as the base64 IPC message parquet-rs stores under `ARROW:schema` (here, not in
 * arrow-types.ts: Arrow's IPC writer stays out of the query page).
 */
function arrowSchemaFooterValue(schema: arrow.Schema): string {
  const stream = arrow.tableToIPC(new arrow.Table(schema), "stream");
  return base64(stream.subarray(0, stream.length - 8)); // without the end-of-stream marker
}

type ParquetWasmWriterProperties = ReturnType<InstanceType<ParquetWasm["WriterPropertiesBuilder"]>["build"]>;

/** Compression names as Paimon's `file.compression` spells them (plus parquet aliases). */
export type ParquetCompression = "zstd" | "snappy" | "lz4" | "lz4_raw" | "gzip" | "brotli" | "none" | "uncompressed";

export interface ParquetWriteOptions {
  /** `file.compression`; default "zstd" (parquet-rs level 1, Paimon's default level). "lz4" writes LZ4_RAW. */
  compression?: ParquetCompression | string;
  /** Maximum rows per row group (default 1,048,576). */
  rowGroupRows?: number;
  /** Maximum bytes per row group (`parquet.block.size`, default 128 MiB). */
  rowGroupBytes?: number;
  /** Data page size limit in bytes (`parquet.page.size`, default 1 MiB). */
  pageSize?: number;
  /** Dictionary encoding (`parquet.enable.dictionary`, default true). */
  dictionary?: boolean;
  /**
   * Top-level columns written without dictionary encoding: columns whose values are distinct in
   * a file (a key), where a dictionary saves nothing and makes a lookup of one row decode it.
   */
  plainColumns?: readonly string[];
  /** `metadata.stats-mode` for every column: none | counts | full | truncate(n) (default truncate(16)). */
  statsMode?: string | StatsMode;
  /** Per-column overrides (`fields.<name>.stats-mode`). */
  fieldStatsModes?: Record<string, string | StatsMode>;
  /** Extra footer key/value metadata. */
  keyValueMetadata?: Record<string, string>;
  /** Used in error messages. */
  fileName?: string;
  /**
   * Rows handed to the encoder at a time (0 = all at once). Default: all at once for files up to
   * SLICE_THRESHOLD_BYTES of Arrow data, else slices of about SLICE_BYTES, so that the encoder's
   * memory holds one slice and the row group being encoded rather than a copy of the whole input.
   */
  sliceRows?: number;
  /**
   * Whether files in the flat encoder's scope (parquet-encode.ts) are written by it (default
   * true); false writes every file through parquet-wasm (tests and benchmarks compare the two).
   */
  flatEncoder?: boolean;
  /**
   * Whether zstd and snappy pages of the flat encoder are compressed partly on a second thread (page-worker.ts,
   * where the runtime has node:worker_threads): default true for files of at least
   * WORKER_MIN_FILE_BYTES Arrow bytes; false compresses every page inline; "always" hands every
   * page to the worker, waiting for it to start (tests). The file is the same bytes either way.
   */
  compressionWorker?: boolean | "always";
  /**
   * VARIANT columns written shredded (`parquet.variant.shreddingSchema`,
   * `variant.inferShreddingSchema`; src/write/variant-shredding.ts), decided when the file is
   * finished, from its rows.
   */
  variantShredding?: VariantShreddingPlan;
}

/** Which top-level VARIANT columns of a file are written shredded, and how. */
export interface VariantShreddingPlan {
  /**
   * The columns to shred, by index in `fields`, from the file's rows (`batches`, VARIANT columns
   * in the unshredded layout `Struct<value, metadata>`).
   */
  columns(fields: readonly DataField[], batches: readonly arrow.RecordBatch[]): ReadonlyMap<number, ShreddedVariantColumn>;
}

/** A VARIANT column's shredded Parquet field (Arrow form, with field ids) and its shredding of a column chunk. */
export interface ShreddedVariantColumn {
  readonly field: arrow.Field;
  shred(data: arrow.Data): arrow.Data;
}

export interface ParquetColumnStats extends ColumnStats {
  name: string;
  fieldId: number;
}

export interface ParquetWriteResult {
  /** The complete Parquet file. */
  bytes: Uint8Array;
  fileSize: number;
  rowCount: number;
  /** One entry per top-level field, in schema order. */
  stats: ParquetColumnStats[];
}

const COMPRESSION: Record<string, keyof typeof CODEC_NAMES> = {
  zstd: "ZSTD",
  snappy: "SNAPPY",
  lz4: "LZ4_RAW",
  lz4_raw: "LZ4_RAW",
  gzip: "GZIP",
  brotli: "BROTLI",
  none: "UNCOMPRESSED",
  uncompressed: "UNCOMPRESSED",
};
/** Codecs the flat encoder writes (others go through parquet-wasm). */
const FLAT_CODECS: Record<string, FlatCodec | undefined> = { zstd: "zstd", snappy: "snappy", none: "none", uncompressed: "none" };
const CODEC_NAMES = { ZSTD: 1, SNAPPY: 1, LZ4_RAW: 1, GZIP: 1, BROTLI: 1, UNCOMPRESSED: 1 };

function codecOf(pw: ParquetWasm, name: string | undefined): number {
  const key = COMPRESSION[(name ?? "zstd").toLowerCase()];
  if (!key) throw new PaimonError("INVALID_ARGUMENT", `Unsupported Parquet compression '${name}' (zstd, snappy, lz4, gzip, brotli, none)`);
  return pw.Compression[key];
}

function fieldsOf(schema: readonly DataField[] | RowType): readonly DataField[] {
  return Array.isArray(schema) ? schema : (schema as RowType).fields;
}

function batchesOf(data: arrow.Table | arrow.RecordBatch | readonly arrow.RecordBatch[]): readonly arrow.RecordBatch[] {
  if (data instanceof arrow.Table) return data.batches;
  if (data instanceof arrow.RecordBatch) return [data];
  return data;
}

/**
 * Accumulates batches for one Parquet file: input columns are converted to the Parquet layout
 * (matched by name) and statistics are updated as they arrive; `finish()` encodes the file.
 * `bufferedBytes` (Arrow bytes held) lets a rolling writer decide when to close a file.
 */
export class ParquetFileWriter {
  readonly fields: readonly DataField[];
  readonly schema: arrow.Schema;
  private readonly collectors: ColumnStatsCollector[];
  private readonly modes: StatsMode[];
  private readonly batches: arrow.RecordBatch[] = [];
  /** First Parquet leaf (column chunk) index of each top-level field. */
  private readonly leafStarts: number[];
  /** Leaves (FLOAT/DOUBLE, any nesting) that received a NaN: their footer bounds are dropped (see finish). */
  private readonly nanLeaves = new Set<number>();
  /** Leaves written as INT96 (TIMESTAMP(7-9)). */
  private readonly int96Leaves: Set<number>;
  /** `schema` with TIMESTAMP(7-9) as Timestamp(ns) rather than INT96 bytes: what statistics see. */
  private readonly logicalSchema: arrow.Schema;
  /**
   * Whether the collectors take each batch as it is written. Not for a file the flat encoder is
   * to write: its statistics come from the encoder's page statistics (`encodeFlat`) with no pass
   * over the values here, unless they are asked for earlier or parquet-wasm writes the file after
   * all (`collectBuffered`).
   */
  private collecting: boolean;
  private rows = 0;
  private bytes = 0;
  private finished = false;

  constructor(
    schema: readonly DataField[] | RowType,
    private readonly options: ParquetWriteOptions = {},
  ) {
    this.fields = fieldsOf(schema);
    if (this.fields.length === 0) throw new PaimonError("INVALID_ARGUMENT", "A Parquet file needs at least one column");
    this.schema = parquetArrowSchema(this.fields);
    this.int96Leaves = int96Leaves(this.fields);
    // Same type objects where nothing differs, so write() converts INT96 fields only.
    const hint = parquetArrowSchema(this.fields, "hint");
    this.logicalSchema = new arrow.Schema(this.fields.map((f, i) => (hasInt96Leaf(f.type) ? hint.fields[i]! : this.schema.fields[i]!)));
    this.collectors = this.fields.map((f) => new ColumnStatsCollector(f.type));
    const fileMode = parseStatsMode(options.statsMode);
    this.modes = this.fields.map((f) => {
      const m = options.fieldStatsModes?.[f.name];
      return m === undefined ? fileMode : parseStatsMode(m);
    });
    codecOfName(options.compression);
    this.collecting = !(options.flatEncoder !== false && FLAT_CODECS[(options.compression ?? "zstd").toLowerCase()] !== undefined && this.int96Leaves.size === 0 && flatEncodable(this.schema));
    let leaf = 0;
    this.leafStarts = this.schema.fields.map((f) => {
      const start = leaf;
      leaf += leafCount(f.type);
      return start;
    });
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Bytes of (uncompressed) Arrow data buffered so far: an upper-bound estimate of the file size. */
  get bufferedBytes(): number {
    return this.bytes;
  }

  /** Adds rows; columns are looked up by field name. */
  write(data: arrow.Table | arrow.RecordBatch | readonly arrow.RecordBatch[]): void {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "ParquetFileWriter already finished");
    for (const batch of batchesOf(data)) {
      if (batch.numRows === 0) continue;
      const children = this.fields.map((f, i) => {
        const idx = batch.schema.fields.findIndex((x) => x.name === f.name);
        if (idx < 0) throw new PaimonError("INVALID_ARGUMENT", `Input data has no column '${f.name}'${this.where()}`);
        const col = batch.getChildAt(idx)!;
        const target = this.schema.fields[i]!;
        const logicalType = this.logicalSchema.fields[i]!.type;
        const logical = convertData(col.data[0]!, logicalType, f.name);
        if (!target.nullable && logical.nullCount > 0)
          throw new PaimonError("INVALID_ARGUMENT", `Column '${f.name}' is NOT NULL but has ${logical.nullCount} null values${this.where()}`);
        if (this.collecting) this.collectors[i]!.update(logical);
        collectNaNLeaves(logical, this.leafStarts[i]!, this.nanLeaves);
        const converted = logicalType === target.type ? logical : convertData(logical, target.type, f.name);
        this.bytes += converted.byteLength;
        return converted;
      });
      this.batches.push(recordBatch(this.schema, children, batch.numRows));
      this.rows += batch.numRows;
    }
  }

  /** Statistics of the rows written so far (of the whole file once finished). */
  stats(): ParquetColumnStats[] {
    if (!this.finished) this.collectBuffered();
    return this.fieldStats();
  }

  /** Starts collecting statistics here: over the batches buffered so far, then as batches are written. */
  private collectBuffered(): void {
    if (this.collecting) return;
    this.collecting = true;
    for (const batch of this.batches) batch.data.children.forEach((data, i) => this.collectors[i]!.update(data));
  }

  private fieldStats(): ParquetColumnStats[] {
    return this.fields.map((f, i) => ({ name: f.name, fieldId: f.id, ...this.collectors[i]!.result(this.modes[i]!) }));
  }

  /** Encodes the Parquet file. */
  async finish(): Promise<ParquetWriteResult> {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "ParquetFileWriter already finished");
    this.finished = true;
    const o = this.options;
    const sliceRows = o.sliceRows ?? sliceRowsFor(this.bytes, this.rows);
    let bytes: Uint8Array;
    try {
      const flat = await this.encodeFlat();
      if (flat) return { bytes: flat, fileSize: flat.length, rowCount: this.rows, stats: this.fieldStats() };
      this.collectBuffered();
      const { schema, logicalSchema, int96Leaves, nanLeaves } = this.shredVariants();
      bytes = await withParquetWasm(async (pw) => {
        let builder = new pw.WriterPropertiesBuilder()
          .setCompression(codecOf(pw, o.compression))
          .setMaxRowGroupSize(o.rowGroupRows ?? 1024 * 1024)
          .setMaxRowGroupBytes(o.rowGroupBytes ?? 128 * 1024 * 1024)
          .setDictionaryEnabled(o.dictionary ?? true)
          // page-level statistics: the column index lets selective reads skip pages
          .setStatisticsEnabled(pw.EnabledStatistics.Page);
        if (o.pageSize !== undefined) builder = builder.setDataPageSizeLimit(o.pageSize);
        // Columns whose dictionary would overflow anyway are written PLAIN from the start.
        const plain = new Set(o.plainColumns ?? []);
        if (o.dictionary ?? true) for (const name of overflowingDictionaryColumns(schema, this.batches, o.rowGroupRows ?? 1024 * 1024)) plain.add(name);
        for (const column of plain) builder = builder.setColumnDictionaryEnabled(column, false);
        if (o.keyValueMetadata) builder = builder.setKeyValueMetadata(new Map(Object.entries(o.keyValueMetadata)));
        const props = builder.build();
        const written = sliceRows > 0 && this.rows > sliceRows ? await encodeSliced(pw, schema, this.batches, props, sliceRows) : encodeWhole(pw, schema, this.batches, props);
        // One pass over the written file: page checksums, INT96 leaves, and no bounds on float
        // leaves holding NaN — parquet-rs leaves NaN out of the bounds, as the Parquet spec asks,
        // but parquet-mr (Java Paimon) orders NaN above every number and trusts them: a chunk
        // whose footer says max = 1.0 would be skipped for `v = NaN`, `v >= NaN` or `v > 1.0`.
        return finishParquetFile(written, {
          int96Leaves,
          unboundedLeaves: nanLeaves,
          arrowSchema: int96Leaves.size > 0 ? arrowSchemaFooterValue(logicalSchema) : undefined,
          fileName: o.fileName,
          rowCount: this.rows,
        });
      });
    } catch (e) {
      if (e instanceof PaimonError) throw e;
      throw new PaimonError("IO_ERROR", `Writing Parquet${this.where()} failed: ${String((e as Error)?.message ?? e)}`, { cause: e });
    } finally {
      this.batches.length = 0;
    }
    return { bytes, fileSize: bytes.length, rowCount: this.rows, stats: this.fieldStats() };
  }

  /**
   * Replaces the buffered VARIANT columns that `variantShredding` shreds by their shredded groups:
   * the file's schema, and the INT96 and NaN leaf indices renumbered past the new leaves (NaN
   * leaves of the typed columns added).
   */
  private shredVariants(): { schema: arrow.Schema; logicalSchema: arrow.Schema; int96Leaves: Set<number>; nanLeaves: Set<number> } {
    const columns = this.options.variantShredding?.columns(this.fields, this.batches);
    if (!columns || columns.size === 0) return { schema: this.schema, logicalSchema: this.logicalSchema, int96Leaves: this.int96Leaves, nanLeaves: this.nanLeaves };
    const fields = this.schema.fields.map((f, i) => columns.get(i)?.field ?? f);
    const schema = new arrow.Schema(fields, this.schema.metadata);
    const logicalSchema = new arrow.Schema(this.logicalSchema.fields.map((f, i) => columns.get(i)?.field ?? f), this.logicalSchema.metadata);
    // new leaf index of each old leaf (shredded columns' own leaves are not INT96, their NaNs are found below)
    const starts: number[] = [];
    const shift: number[] = [];
    let leaf = 0;
    fields.forEach((f, i) => {
      starts.push(leaf);
      const count = leafCount(f.type);
      for (let k = 0; k < leafCount(this.schema.fields[i]!.type); k++) shift.push(columns.has(i) ? -1 : leaf + k);
      leaf += count;
    });
    const renumber = (leaves: Set<number>) => new Set([...leaves].map((l) => shift[l]!).filter((l) => l >= 0));
    const nanLeaves = renumber(this.nanLeaves);
    for (let b = 0; b < this.batches.length; b++) {
      const batch = this.batches[b]!;
      const children = batch.data.children.map((data, i) => {
        const column = columns.get(i);
        if (!column) return data;
        const shredded = column.shred(data);
        collectNaNLeaves(shredded, starts[i]!, nanLeaves);
        return shredded;
      });
      this.batches[b] = recordBatch(schema, children, batch.numRows);
    }
    return { schema, logicalSchema, int96Leaves: renumber(this.int96Leaves), nanLeaves };
  }

  /**
   * The file by the flat encoder (parquet-encode.ts) when it applies: every column flat and in its
   * scope, no INT96 leaf, a codec it has; else undefined.
   */
  private async encodeFlat(): Promise<Uint8Array | undefined> {
    const o = this.options;
    const codec = FLAT_CODECS[(o.compression ?? "zstd").toLowerCase()];
    if (o.flatEncoder === false || !codec || this.rows === 0 || this.int96Leaves.size > 0 || !flatEncodable(this.schema)) return undefined;
    const rowGroupRows = o.rowGroupRows ?? 1024 * 1024;
    // Columns whose dictionary would overflow, or (one row group) could not pay, are written PLAIN
    // without building it; the others get one, kept where it pays (parquet-encode.ts).
    const dictionaryLeaves = new Set<number>();
    if (o.dictionary ?? true) {
      const plain = new Set([...(o.plainColumns ?? []), ...overflowingDictionaryColumns(this.schema, this.batches, rowGroupRows, { unpaying: true })]);
      this.fields.forEach((f, i) => {
        if (!plain.has(f.name)) dictionaryLeaves.add(i);
      });
    }
    const zstdLevel = 1; // parquet-rs's and Paimon's default level
    const compress = await flatCompressor(codec, zstdLevel);
    if (!compress) return undefined;
    const compression: PageCompression = { compress };
    if (codec !== "none") {
      const worker = await pageWorkerFor(o.compressionWorker ?? compressionWorkerDefault, this.bytes, WORKER_MIN_FILE_BYTES, WORKER_WAIT_FILE_BYTES);
      const always = o.compressionWorker === "always";
      if (worker && (codec === "zstd" || worker.snappy)) compression.offload = (body, remaining) => worker.offload(body, codec, zstdLevel, always, remaining);
    }
    const kv = new Map(Object.entries(o.keyValueMetadata ?? {}));
    kv.set("ARROW:schema", arrowSchemaFooterValue(this.schema));
    const leafStats: FlatLeafStats[] = [];
    try {
      const bytes = await encodeFlatParquet(this.schema, this.batches, compression, {
        codec,
        rowGroupRows,
        rowGroupBytes: o.rowGroupBytes ?? 128 * 1024 * 1024,
        pageSize: o.pageSize,
        keyValueMetadata: kv,
        unboundedLeaves: this.nanLeaves,
        dictionaryLeaves,
        leafStats: this.collecting ? undefined : leafStats,
      });
      // flat columns: leaf i is field i
      if (!this.collecting) {
        this.collecting = true;
        leafStats.forEach((s, i) => this.collectors[i]!.addPlainBounds(this.schema.fields[i]!.type, s.nulls, s.min, s.max, s.nan));
      }
      return bytes;
    } finally {
      this.batches.length = 0;
    }
  }

  private where(): string {
    return this.options.fileName ? ` (file ${this.options.fileName})` : "";
  }
}

/** Files with less Arrow data than this compress every page inline (the default of ParquetWriteOptions.compressionWorker). */
const WORKER_MIN_FILE_BYTES = 1024 * 1024;
/** ParquetWriteOptions.compressionWorker when a write does not say (setCompressionWorker). */
let compressionWorkerDefault: boolean | "always" = true;

/**
 * The default of ParquetWriteOptions.compressionWorker for this thread's writes (true): compaction
 * worker threads (write/compact-workers.ts) set false, since they are the parallelism.
 */
export function setCompressionWorker(use: boolean | "always"): void {
  compressionWorkerDefault = use;
}
/** Files with at least this much Arrow data wait for the worker to start (the first such file of a process). */
const WORKER_WAIT_FILE_BYTES = 8 * 1024 * 1024;
/** Files with more Arrow data than this are encoded in slices (ParquetWriteOptions.sliceRows). */
const SLICE_THRESHOLD_BYTES = 24 * 1024 * 1024;
/** About this much Arrow data per slice. */
const SLICE_BYTES = 4 * 1024 * 1024;

/** The default slice (rows, a multiple of parquet-rs's 1024-row write batch) for a file of `bytes` Arrow bytes in `rows` rows. */
function sliceRowsFor(bytes: number, rows: number): number {
  if (bytes <= SLICE_THRESHOLD_BYTES || rows === 0) return 0;
  return Math.max(1024, Math.floor((SLICE_BYTES / (bytes / rows)) / 1024) * 1024);
}

/** The whole input through Arrow IPC into one `writeParquet` call. */
function encodeWhole(pw: ParquetWasm, schema: arrow.Schema, batches: readonly arrow.RecordBatch[], props: ParquetWasmWriterProperties): Uint8Array {
  const wasmTable = pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(schema, batches as arrow.RecordBatch[]), "stream"));
  try {
    return pw.writeParquet(wasmTable, props);
  } finally {
    try {
      wasmTable.free();
    } catch {
      // already consumed
    }
  }
}

/**
 * The input in slices of `sliceRows` rows through parquet-wasm's streaming writer (the same
 * parquet-rs ArrowWriter and properties as `writeParquet`): each slice crosses into wasm only when
 * the writer asks for it, and the writer emits each row group when it is complete. The streaming
 * writer drops write errors, so a file whose footer does not count every row is refused later
 * (finishParquetFile `rowCount`).
 */
async function encodeSliced(pw: ParquetWasm, schema: arrow.Schema, batches: readonly arrow.RecordBatch[], props: ParquetWasmWriterProperties, sliceRows: number): Promise<Uint8Array[]> {
  const slices = slicesOf(batches, sliceRows);
  const source = new ReadableStream<unknown>(
    {
      pull(controller) {
        const next = slices.next();
        if (next.done) {
          controller.close();
          return;
        }
        const table = pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(schema, next.value), "stream"));
        try {
          for (const batch of table.recordBatches()) controller.enqueue(batch);
        } finally {
          table.free();
        }
      },
    },
    { highWaterMark: 1 },
  );
  const reader = ((await pw.transformParquetStream(source, props)) as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks;
}

/** `batches` regrouped into runs of `sliceRows` rows (the last may be shorter); batches are cut without copying. */
function* slicesOf(batches: readonly arrow.RecordBatch[], sliceRows: number): Generator<arrow.RecordBatch[]> {
  let group: arrow.RecordBatch[] = [];
  let rows = 0;
  for (const batch of batches) {
    for (let offset = 0; offset < batch.numRows; ) {
      const take = Math.min(batch.numRows - offset, sliceRows - rows);
      group.push(offset === 0 && take === batch.numRows ? batch : batch.slice(offset, offset + take));
      rows += take;
      offset += take;
      if (rows === sliceRows) {
        yield group;
        group = [];
        rows = 0;
      }
    }
  }
  if (rows > 0) yield group;
}

function hasInt96Leaf(type: DataType): boolean {
  return int96Leaves([{ id: 0, name: "", type }]).size > 0;
}

/** Parquet leaf columns of an Arrow type: one per primitive, nested types recurse (lists, maps, structs). */
function leafCount(type: arrow.DataType): number {
  const children = type.children ?? [];
  return children.length === 0 ? 1 : children.reduce((n, c) => n + leafCount(c.type), 0);
}

/**
 * Adds to `out` the leaf index (counted from `firstLeaf`, depth-first as Parquet numbers leaves)
 * of every floating-point leaf of `data` that holds a NaN; returns the next leaf index. Null slots
 * are scanned too: a stray NaN there only costs pruning, never correctness.
 */
function collectNaNLeaves(data: arrow.Data, firstLeaf: number, out: Set<number>): number {
  const children = data.children ?? [];
  if (children.length === 0) {
    if (!out.has(firstLeaf) && arrow.DataType.isFloat(data.type)) {
      // Paimon FLOAT/DOUBLE only: Float32Array / Float64Array (no half floats).
      // Arrow slices the values to the Data's rows (only validity bitmaps keep data.offset).
      const values = data.values as Float32Array | Float64Array;
      const end = Math.min(values.length, data.length);
      for (let i = 0; i < end; i++) {
        const x = values[i]!;
        if (x !== x) {
          out.add(firstLeaf);
          break;
        }
      }
    }
    return firstLeaf + 1;
  }
  let leaf = firstLeaf;
  for (const child of children) leaf = collectNaNLeaves(child, leaf, out);
  return leaf;
}

function codecOfName(name: string | undefined): void {
  if (!COMPRESSION[(name ?? "zstd").toLowerCase()])
    throw new PaimonError("INVALID_ARGUMENT", `Unsupported Parquet compression '${name}' (zstd, snappy, lz4, gzip, brotli, none)`);
}

/** Writes `data` (columns matched to `schema` by name) as one Parquet file. */
export async function writeParquet(
  schema: readonly DataField[] | RowType,
  data: arrow.Table | arrow.RecordBatch | readonly arrow.RecordBatch[],
  options: ParquetWriteOptions = {},
): Promise<ParquetWriteResult> {
  const writer = new ParquetFileWriter(schema, options);
  writer.write(data);
  return writer.finish();
}
