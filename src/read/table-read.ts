// Reading splits into Arrow record batches: projection, schema evolution by field id,
// optional exact residual filtering, and `read.batch-size` chunking.
import { checkDataFileFormat, isWholeDataFile, readWholeDataFile, timestampLtzLegacy } from "../format/file-formats.js";
import * as arrow from "apache-arrow";
import { takeRows } from "../arrow/take.js";
import { concatData } from "../arrow/concat.js";
import { DeletionVectorLoader, keptPositions } from "./kv-file-reader.js";
import { fileIndexMayMatchFile, indexColumnsMatch } from "./file-index-filter.js";
import { PaimonError } from "../error.js";
import { readArrowField, readArrowSchema } from "../format/arrow-types.js";
import { readParquetBatches } from "../format/parquet-reader.js";
import { initKernels } from "../kernel/wasm.js";
import type { RoaringBitmap32 } from "../kernel/bitmap.js";
import { fileIOSource, toByteSource } from "../format/source.js";
import { readSelective } from "./selective-read.js";
import { bindPredicate, type Predicate, referencedFields } from "../predicate/predicate.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import type { DataField } from "../spec/types.js";
import type { Split } from "../scan/split.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { RealtimeContext } from "../realtime/context.js";
import { isRealtimeRead, realtimeHooks } from "../realtime/hooks.js";
import { readPrimaryKeySplits, ROW_KIND_FIELD_NAME } from "./merge-read.js";
import { applyProjection, planProjection, type ProjectionPlan } from "./projection.js";
import { recordBatch } from "../arrow/record-batch.js";
import { crc32 } from "../spec/avro.js";
import type { BatchReader } from "./batch-reader.js";

/** Options of `Table.newRead` (API.md). */
export interface ReadOptions {
  /** Columns to return, in this order (default all): top-level names or dotted paths into ROW columns ("addr.city"). */
  projection?: string[];
  filter?: Predicate;
  /** Apply `filter` exactly to every row (otherwise it only prunes). */
  predicateFilter?: boolean;
  /** Maximum rows per batch (default `read.batch-size`). */
  batchSize?: number;
  withRowKind?: boolean;
  /** Internal: keep the retract rows that win a primary-key merge (Java `forceKeepDelete`, `$audit_log`). */
  keepDeletes?: boolean;
  /** Real-time context: read the memory tails of real-time splits too (src/realtime/read.ts). */
  realtime?: RealtimeContext;
}

export type { BatchReader };

/**
 * Loads the kernel module before a read starts, so hosts that load it asynchronously (browsers
 * fetch it by URL) are ready before the synchronous kernel calls. parquet-wasm is loaded by the
 * Parquet reader when a column chunk needs it (the flat decoder takes the common flat columns
 * without it); a host that cannot load it gets UNSUPPORTED from that read.
 */
function loadWasm(): Promise<void> {
  return initKernels();
}

export class TableRead {
  private readonly projection: ProjectionPlan;
  /** Top-level columns read (nested projections are cut from them). */
  readonly fields: DataField[];
  /** Schema of the batches read, before nested projection. */
  private readonly schema: arrow.Schema;
  /** Schema of the batches returned. */
  private readonly output: arrow.Schema;
  /** The exact filter, bound (null: none). */
  readonly filter: Predicate | null;
  readonly batchSize: number;

  constructor(
    readonly table: FileStoreTable,
    private readonly options: ReadOptions = {},
  ) {
    const all = table.schema.fields;
    if (options.realtime !== undefined) realtimeHooks("newRead").checkRealtimeRead(table, options); // real-time hook
    this.projection = planProjection(all, options.projection, table.identifier);
    this.fields = this.projection.topLevel;
    const rowKind = options.withRowKind ? [new arrow.Field(ROW_KIND_FIELD_NAME, new arrow.Int8(), false)] : [];
    // all columns without row kinds (the usual read): the table schema's cached Arrow schema
    this.schema = options.projection === undefined && rowKind.length === 0 ? readArrowSchema(all) : new arrow.Schema([...rowKind, ...this.fields.map((f) => readArrowField(f))]);
    this.output = this.projection.nested ? new arrow.Schema([...rowKind, ...this.projection.nested.map((c) => c.field)]) : this.schema;
    this.filter = options.filter && options.predicateFilter ? bindPredicate(options.filter, all) : null;
    this.batchSize = options.batchSize ?? table.coreOptions.readBatchSize;
    if (!Number.isInteger(this.batchSize) || this.batchSize <= 0) throw new PaimonError("INVALID_ARGUMENT", `batchSize must be a positive integer, got ${this.batchSize}`);
  }

  /** The Arrow schema of every batch this read returns. */
  get outputSchema(): arrow.Schema {
    return this.output;
  }

  async createReader(splits: readonly Split[]): Promise<BatchReader> {
    const inner = await this.innerReader(splits);
    if (!this.projection.nested) return inner;
    const skip = this.options.withRowKind ? 1 : 0;
    const iterator = inner[Symbol.asyncIterator]();
    const projected = (async function* (plan: ProjectionPlan, schema: arrow.Schema) {
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) yield applyProjection(r.value, plan, schema, skip);
    })(this.projection, this.output);
    return { [Symbol.asyncIterator]: () => projected, close: () => inner.close() };
  }

  private async innerReader(splits: readonly Split[]): Promise<BatchReader> {
    await loadWasm();
    if (isRealtimeRead(this.options, splits)) {
      // real-time hook: the memory reader reads the top-level columns of the projection (every
      // column without one), with the filter this read bound
      // (a literal, not a spread of the options: a spread costs several hundred bytes a read)
      const o = this.options;
      const options = { realtime: o.realtime, projection: o.projection === undefined ? undefined : this.fields.map((f) => f.name), filter: o.filter, predicateFilter: o.predicateFilter, withRowKind: o.withRowKind, boundFilter: this.filter };
      return realtimeHooks("createReader").createRealtimeReader(this.table, options, this.schema, this.batchSize, splits, (s, hidden) => this.batches(s, hidden, true));
    }
    const generator = this.batches(splits);
    return {
      [Symbol.asyncIterator]: () => generator,
      close: async () => {
        await generator.return(undefined);
      },
    };
  }

  /** Reads every split into one Arrow Table. */
  async toArrow(splits: readonly Split[]): Promise<arrow.Table> {
    const batches: arrow.RecordBatch[] = [];
    const reader = await this.createReader(splits);
    try {
      for await (const b of reader) batches.push(b);
    } finally {
      await reader.close();
    }
    return new arrow.Table(this.output, batches);
  }

  /**
   * `hidden`: more deleted row positions by data file name (real-time deduplicate reads; borrowed
   * and read-only: the caller releases them after the read).
   * `cached`: filtered reads keep decoded column chunks in the table's chunk cache (real-time
   * reads: continuous queries come back to the same files).
   */
  private async *batches(splits: readonly Split[], hidden?: ReadonlyMap<string, { readonly hits: RoaringBitmap32 }>, cached = false): AsyncGenerator<arrow.RecordBatch, void, undefined> {
    if (this.table.schema.primaryKeys.length > 0) {
      // Primary-key tables: merge-on-read / deletion vectors (read/merge-read.ts).
      yield* readPrimaryKeySplits(this.table, splits, { fields: this.fields, schema: this.schema, filter: this.filter, batchSize: this.batchSize, withRowKind: this.options.withRowKind ?? false, keepDeletes: this.options.keepDeletes });
      return;
    }
    if (!this.options.withRowKind) {
      yield* this.appendBatches(splits, this.schema, hidden, cached);
      return;
    }
    // an append table's rows are all inserts (+I, kind 0), as Java returns them
    for await (const b of this.appendBatches(splits, new arrow.Schema(this.schema.fields.slice(1)), hidden, cached)) {
      yield recordBatch(this.schema, [arrow.makeData({ type: new arrow.Int8(), length: b.numRows, data: new Int8Array(b.numRows) }), ...b.data.children], b.numRows);
    }
  }

  /** An append table's batches, of `schema` (the read's without the row kind). */
  private async *appendBatches(splits: readonly Split[], schema: arrow.Schema, hidden?: ReadonlyMap<string, { readonly hits: RoaringBitmap32 }>, cached = false): AsyncGenerator<arrow.RecordBatch, void, undefined> {
    // Filter columns that are not projected are read too, then dropped.
    const referenced = new Set(this.filter ? referencedFields(this.filter) : []);
    const filterFields = this.table.schema.fields.filter((f) => referenced.has(f.name) && !this.fields.includes(f));
    const readFields = [...this.fields, ...filterFields];
    // Fields of the schema each file was written with (for files without Parquet field ids).
    const fileSchemas = new Map<number, Promise<readonly DataField[]>>([[this.table.schema.id, Promise.resolve(this.table.schema.fields)]]);
    const fileFieldsOf = (schemaId: number): Promise<readonly DataField[]> => {
      let f = fileSchemas.get(schemaId);
      if (!f) fileSchemas.set(schemaId, (f = this.table.schemaManager.schema(schemaId).then((s) => s.fields)));
      return f;
    };
    const deletionVectors = new DeletionVectorLoader(this.table.fileIO);
    // Files whose index rules the filter out are skipped (the index names columns as the file's
    // schema did: used when the filter's columns are unchanged since).
    const indexFilter = this.options.filter && this.table.coreOptions.fileIndexReadEnabled ? this.options.filter : null;
    for (const split of splits) {
      if (split.kind !== "data") throw new PaimonError("INVALID_ARGUMENT", `unknown split kind ${(split as { kind: string }).kind}`);
      if (split.dataEvolution) {
        // data-evolution tables: rows merged by row id (a lazy chunk)
        yield* (await import("./data-evolution.js")).readDataEvolution(this, split, readFields, schema, [PaimonError, concatData, recordBatch, filterBatchIndices, takeRows, arrow.makeData, crc32]);
        continue;
      }
      for (const [index, file] of split.files.entries()) {
        const path = this.table.paths.dataFile(split.bucketPath, file);
        const fileFields = await fileFieldsOf(Number(file.schemaId));
        if (indexFilter && indexColumnsMatch(indexFilter, this.table.schema.fields, fileFields) && !(await fileIndexMayMatchFile(this.table.fileIO, path, file, indexFilter, fileFields))) continue;
        checkDataFileFormat(path); // formats paimon-rt does not read: UNSUPPORTED, not CORRUPT_FILE
        const avro = isWholeDataFile(path);
        const source = avro ? null : await fileIOSource(this.table.fileIO, path, Number(file.fileSize));
        const deletionFile = split.deletionFiles?.[index] ?? null;
        let deleted = deletionFile ? await deletionVectors.load(deletionFile) : null;
        const more = hidden?.get(file.fileName)?.hits;
        // without a committed deletion vector the hidden positions are used as they are (not owned)
        const borrowed = more !== undefined && deleted === null;
        if (more !== undefined) deleted = deleted === null ? more : deleted.orInPlace(more);
        let position = 0;
        try {
          const footer = source && (await this.table.footers.get(source, path));
          if (this.filter && source && footer) {
            // exact filter: prune row groups and pages, decode the other columns only where rows match
            const selective = readSelective(toByteSource(source, path), { fields: readFields, tableFields: this.table.schema.fields, fileFields, filter: this.filter, deleted, batchSize: this.batchSize, footer, chunkCache: cached ? this.table.chunkCache : null });
            for await (const batch of selective) yield filterFields.length > 0 ? project(batch, schema, this.fields.length) : batch;
            continue;
          }
          // (Avro files: read whole and filtered row by row below)
          const batches = source && footer ? readParquetBatches(source, { fields: readFields, mapBy: "id", fileFields, batchSize: this.batchSize, fileName: path, footer }) : readWholeDataFile(this.table.fileIO.readFile(path), { fields: readFields, fileFields, batchSize: this.batchSize, fileName: path, timestampLtzLegacy: timestampLtzLegacy(this.table.schema.options), filter: this.filter, onSkip: (rows) => (position += rows) });
          for await (const raw of batches) {
            let batch = raw;
            if (deleted) {
              const kept = keptPositions(deleted, position, batch.numRows);
              position += raw.numRows;
              if (kept.length === 0) continue;
              if (kept.length < batch.numRows) batch = takeRows(batch, kept);
            }
            if (this.filter) {
              const rows = filterBatchIndices(this.filter, batch);
              if (rows.length === 0) continue;
              if (rows.length < batch.numRows) batch = takeRows(batch, rows);
            }
            if (filterFields.length > 0) batch = project(batch, schema, this.fields.length);
            if (batch.numRows > 0) yield batch;
          }
        } finally {
          if (!borrowed) deleted?.dispose();
        }
      }
    }
  }
}

/** The first `count` columns of a batch under `schema`. */
function project(batch: arrow.RecordBatch, schema: arrow.Schema, count: number): arrow.RecordBatch {
  const children = batch.data.children.slice(0, count);
  return recordBatch(schema, children, batch.numRows);
}
