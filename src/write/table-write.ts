// TableWrite for append tables: validates and normalises incoming Arrow data, routes rows
// to (partition, bucket) writers — the Java bucket function when the caller gives no
// bucket — and turns what was written into CommitMessages.
import * as arrow from "apache-arrow";
import { decodeDictionary, takeRows } from "../arrow/take.js";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import { convertData, readArrowField } from "../format/arrow-types.js";
import { type KeyColumn, keyColumnFromArrow } from "../kernel/columns.js";
import { assignBuckets } from "../kernel/hash.js";
import { type BucketFunction, bucketFunction, bucketFunctionTypeOf } from "./bucket-function.js";
import { recordLevelExpireOf } from "./record-level-expire.js";
import { firstOn, isTrueOption } from "../table/option-validation.js";
import { Options, type TableOptions } from "../table/options.js";
import { decimalToString, fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { isValidAt } from "../arrow/values.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import { BATCH_COMMIT_IDENTIFIER } from "../spec/snapshot.js";
import type { TableSchema } from "../spec/schema.js";
import { bucketKeys } from "../spec/schema.js";
import { type DataField, typeToString } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { writablePartitionPath } from "../table/paths.js";
import { AppendBucketWriter, type AppendWriterConfig } from "./append-writer.js";
import { BlobBucketWriter, blobLayout, checkBlobArrowTypes, checkBlobWritable, checkDescriptorColumns } from "./blob-write.js";
import { internalValue } from "../arrow/row-values.js";
import type { RealtimeContext } from "../realtime/context.js";
import type { RealtimeCommitProgress } from "../realtime/types.js";
import { checkPrimaryKeyWritable, isCrossPartitionUpsert, keyFieldsOf, primaryKeyConfig, type PrimaryKeyConfig } from "../table/primary-key.js";
import { CrossPartitionIndex, type CrossPartitionRoute } from "./cross-partition.js";
import { takeColumn } from "../arrow/gather.js";
import { checkMergeFunctionOptions, mergeFold, retractRefusal } from "../read/merge-functions.js";
import { MergeTreeBucketWriter, rowKindFilter } from "./merge-tree-writer.js";
import { DynamicBucketIndex, dynamicBucketOptions } from "./dynamic-bucket.js";
import { randomId } from "../fs/file-io.js";
import { attachRowKinds, checkRowKinds, checkSequenceFields, compactTargets, groupByBucket, partitionMatcher } from "./pk-write.js";
import { compactPostponeBuckets, POSTPONE_BUCKET, PostponeBucketWriter, postponeFilePrefix } from "./postpone.js";
import { compactAppendBuckets } from "./append-compact.js";
import { columnsToUpdate, fileStartingAt, writeColumnFile } from "./data-evolution-write.js";
import { inputBatches } from "../arrow/input.js";
import { isDeduplicateTable } from "../table/dedup-table.js";
import { recordBatch } from "../arrow/record-batch.js";

import { RowKind } from "../spec/row-kind.js";

export { RowKind };

/** Where a batch goes (API.md). */
export interface WriteTarget {
  /** Partition values of every row in the batch; computed from the rows when absent. */
  partition?: Record<string, unknown>;
  /**
   * Bucket of every row (fixed-bucket tables); computed with the Java bucket function when absent.
   * Dynamic-bucket tables (`bucket = -1` with a primary key) assign buckets themselves and refuse it.
   */
  bucket?: number;
  /** Row kinds; default all INSERT. */
  rowKinds?: ArrayLike<RowKind>;
}

export interface TableWriteOptions {
  commitUser: string;
  streaming?: boolean;
  tempDirectory?: string;
  /** Real-time context: `Table.newWrite` then returns the real-time writer (src/realtime/writer.ts). */
  realtime?: RealtimeContext;
  /**
   * An overwrite writer (Java `BatchWriteBuilder.withOverwrite()`, `withIgnorePreviousFiles(true)`):
   * every bucket starts empty, with none of the table's data files or deletion vectors restored
   * and sequence numbers from 0, so its messages hold only the new rows. Commit them with
   * `TableCommit.overwrite`: a plain commit would add them next to the rows they replace.
   */
  overwrite?: boolean;
}

interface BucketState {
  partition: Record<string, unknown>;
  partitionRow: Uint8Array;
  bucket: number;
  writer: AppendBucketWriter | BlobBucketWriter | MergeTreeBucketWriter | PostponeBucketWriter;
}

// Loaded through a computed specifier (as the page worker is, format/page-worker-load.ts): bundles
// for browsers and edge runtimes never follow it into node:worker_threads.
const COMPACT_WORKERS_MODULE = ["./compact", "workers.js"].join("-");

/**
 * Refuses DECIMAL input values with more than the column's precision digits (Java's
 * Decimal.fromBigDecimal has no such value). Only written data is checked: an aggregation sum
 * past the precision is a value Java keeps and paimon-rt writes and reads as is.
 */
export function checkDecimalInput(data: arrow.Data, field: DataField, identifier: string): void {
  if (field.type.kind !== "DECIMAL" || data.nullCount === data.length) return;
  const { precision, scale } = field.type;
  const words = data.values as unknown as Uint32Array;
  const signed = new Int32Array(words.buffer, words.byteOffset, data.length * 4);
  const unscaled = (i: number) => {
    let v = 0n;
    for (let k = 3; k >= 0; k--) v = (v << 32n) | BigInt(words[i * 4 + k]!);
    return BigInt.asIntN(128, v);
  };
  // up to 15 digits in plain numbers: a value past 2^53 is out of range however it rounds
  const numberLimit = precision <= 15 ? 10 ** precision : 0;
  const bigLimit = 10n ** BigInt(precision);
  for (let i = 0; i < data.length; i++) {
    if (!isValidAt(data, i)) continue;
    let fits: boolean;
    if (numberLimit > 0) {
      const high = signed[i * 4 + 1]!;
      const sign = high < 0 ? -1 : 0;
      fits = signed[i * 4 + 2] === sign && signed[i * 4 + 3] === sign && Math.abs(high * 4294967296 + words[i * 4]!) < numberLimit;
    } else {
      const v = unscaled(i);
      fits = v < bigLimit && v > -bigLimit;
    }
    if (!fits) throw invalid(`column ${field.name} of table ${identifier}: value ${decimalToString(unscaled(i), scale)} (row ${i}) does not fit DECIMAL(${precision}, ${scale})`);
  }
}

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

/**
 * Java's checks of write options at newWrite (record-level expiry's time field, with
 * RecordLevelExpire's messages), and UNSUPPORTED for record-level expiry where paimon-rt's
 * compaction reads without it (lookup compaction: deletion vectors, changelog-producer=lookup,
 * first-row, force-lookup). Row tracking is written (ids assigned at commit,
 * src/commit/row-tracking.ts); only its compaction is refused (see `compact`).
 */
export function checkWriteOptions(schema: TableSchema, table: string, options: TableOptions): void {
  if (recordLevelExpireOf(schema, options) === null) return;
  const config = primaryKeyConfig(options);
  if (config.needLookup) {
    throw new PaimonError("UNSUPPORTED", `table ${table}: record-level.expire-time with lookup compaction (deletion vectors, changelog-producer=lookup, first-row or force-lookup) is not supported`);
  }
}

/** RowKind short strings by kind value (Java's `RowKind.shortString`) and enum names. */
const ROW_KIND_SHORT_STRINGS = ["+I", "-U", "+U", "-D"];
const ROW_KIND_NAMES = ["INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"];

/** `rowkind.field` with Java's RowKindGenerator checks: a column of the table, of a character string type. */
function rowKindFieldOf(schema: TableSchema, table: string): string | null {
  const name = schema.options["rowkind.field"];
  if (name === undefined) return null;
  const field = schema.fields.find((f) => f.name === name);
  if (!field) throw invalid(`table ${table}: Can not find rowkind ${name} in table schema`);
  if (field.type.kind !== "CHAR" && field.type.kind !== "VARCHAR") throw invalid(`only support string type for rowkind, but ${name} is ${typeToString(field.type)}`);
  return name;
}

export class TableWrite {
  private readonly schema: TableSchema;
  private readonly partitionFields: DataField[];
  private readonly bucketKeyIndexes: number[];
  /** `rowkind.field`: the string column the row kinds are read from (null: `target.rowKinds`). */
  private readonly rowKindField: string | null;
  /** Fixed-bucket tables: Java's `bucket-function.type` (default: the kernel's BinaryRow hash). */
  private readonly bucketFunction: BucketFunction;
  private readonly numBuckets: number;
  private readonly writers = new Map<string, BucketState>();
  private readonly canonical: arrow.Field[];
  private closed = false;
  /**
   * `full-compaction.delta-commits` of a primary-key table (null: not scheduled), and the writer
   * keys written or compacted since the last scheduled full compaction (Java's Flink
   * `GlobalFullCompactionSinkWrite`).
   */
  private readonly deltaCommits: number | null;
  private readonly deltaCommitBuckets = new Set<string>();
  /** Primary-key tables: their write config (null for append tables). */
  private readonly pk: PrimaryKeyConfig | null;
  /** Deletion-vector aggregation tables: the error of retract rows when an aggregator cannot retract. */
  private readonly retractRefused: PaimonError | null;
  /** Append tables: compaction results waiting for the next prepareCommit. */
  private readonly pendingCompactions: CommitMessage[] = [];
  /** Data-evolution tables: column files (`writeColumns`) by first row id, until the next prepareCommit. */
  private readonly pendingColumnFiles = new Map<bigint, CommitMessage>();
  /** Primary-key partition-buckets (writer keys) compacted by workers, until the next prepareCommit. */
  private readonly compactedElsewhere = new Set<string>();
  /** Partitions (serialized rows) whose files were checked to have this table's bucket count. */
  private readonly bucketCountChecked = new Set<string>();
  /** Dynamic bucket mode (`bucket = -1` primary-key tables): the bucket assigner and hash indexes; null otherwise. */
  private readonly dynamic: DynamicBucketIndex | null;
  /** Cross-partition upsert mode (Java KEY_DYNAMIC): the key index, bootstrapped at the first write; null in other modes. */
  private cross: Promise<CrossPartitionIndex> | null = null;
  private readonly crossPartition: boolean;
  /** Cross-partition upsert: `cross-partition-upsert.index-ttl` in milliseconds (null: none). */
  private readonly crossIndexTtl: number | null = null;
  /** Cross-partition upsert: why the key index no longer matches the rows written (a write failed after routing), refusing further writes. */
  private crossBroken: Error | null = null;
  /** Cross-partition upsert: `dynamic-bucket.target-row-num`. */
  private readonly crossTargetRowNum: number = 0;
  /** Dynamic bucket mode: the trimmed primary-key columns, whose BinaryRow hash codes are the key hashes; cross-partition upsert: the primary-key columns. */
  private readonly keyIndexes: number[];
  /** Postpone bucket mode (`bucket = -2` primary-key tables): the data-file prefix of this writer's files; null otherwise. */
  private readonly postponePrefix: string | null;
  /** `partition.timestamp-format.strict`'s check of a partition a writer is created for (loaded on first use; null: none). */
  private partitionTimestampCheck: ((values: readonly unknown[]) => void) | null | undefined;

  constructor(
    private readonly table: FileStoreTable,
    readonly options: TableWriteOptions,
  ) {
    if (!options || typeof options.commitUser !== "string" || options.commitUser === "") throw invalid("newWrite needs a non-empty commitUser");
    if (options.overwrite !== undefined && typeof options.overwrite !== "boolean") throw invalid(`newWrite option overwrite must be a boolean, got ${JSON.stringify(options.overwrite)}`);
    checkWriteOptions(table.schema, table.identifier, table.coreOptions);
    this.schema = table.schema;
    this.rowKindField = rowKindFieldOf(this.schema, table.identifier);
    this.pk = this.schema.primaryKeys.length > 0 ? checkPrimaryKeyWritable(table.identifier, this.schema, table.coreOptions) : null;
    // (Java: a value below 1 means every commit; write-only writers never compact)
    const deltaCommits = table.coreOptions.get("full-compaction.delta-commits");
    this.deltaCommits = this.pk && deltaCommits !== undefined && !table.coreOptions.bool("write-only", false) ? Math.max(1, table.coreOptions.int("full-compaction.delta-commits", 1)) : null;
    if (this.pk && (this.pk.mergeEngine === "partial-update" || this.pk.mergeEngine === "aggregation")) {
      checkMergeFunctionOptions(table.identifier, this.pk.mergeEngine, this.schema.fields, this.schema.primaryKeys, table.coreOptions);
    }
    if (this.pk) checkSequenceFields(table.identifier, this.schema, this.pk, table.coreOptions.get("sequence.field.sort-order"));
    // lookup tables (deletion vectors, changelog-producer=lookup, force-lookup): the merge function
    // sees every record at commit (Java's lookup compaction), so such a retract row would fail the
    // commit's compaction: refused at write
    const lookupAggregation = this.pk?.needLookup === true && this.pk.mergeEngine === "aggregation";
    this.retractRefused = lookupAggregation ? retractRefusal(mergeFold(table.identifier, "aggregation", this.schema.fields, this.schema.primaryKeys, table.coreOptions)) : null;
    this.partitionFields = this.schema.partitionKeys.map((k) => this.schema.fields.find((f) => f.name === k)!);
    this.numBuckets = table.coreOptions.bucket;
    // postpone bucket mode: file names carry the commit user and a write id (Java's PostponeBucketFileStoreWrite)
    this.postponePrefix = this.pk && this.numBuckets === POSTPONE_BUCKET ? postponeFilePrefix(table.coreOptions.dataFilePrefix, options.commitUser, Math.floor(Math.random() * 0x7fffffff), table.identifier) : null;
    this.bucketKeyIndexes = this.numBuckets > 0 ? bucketKeys(this.schema).map((k) => this.schema.fields.findIndex((f) => f.name === k)) : [];
    this.bucketFunction = this.numBuckets > 0 ? bucketFunction(bucketFunctionTypeOf(this.schema.options), this.bucketKeyIndexes.map((i) => this.schema.fields[i]!)) : assignBuckets;
    this.canonical = this.schema.fields.map((f) => readArrowField(f));
    this.crossPartition = isCrossPartitionUpsert(this.schema, this.numBuckets);
    if (this.crossPartition && options.overwrite) {
      // Java's overwrite commit refuses the retractions its global index sends to other partitions
      throw new PaimonError("UNSUPPORTED", `overwrite writer of cross-partition upsert table ${table.identifier} (bucket = -1, primary key without partition field(s) ${this.schema.partitionKeys.filter((k) => !this.schema.primaryKeys.includes(k)).join(", ")}) is not supported`);
    }
    const ttl = table.coreOptions.get("cross-partition-upsert.index-ttl");
    if (this.crossPartition && ttl !== undefined) this.crossIndexTtl = table.coreOptions.duration("cross-partition-upsert.index-ttl", ttl);
    const dynamic = this.pk !== null && this.numBuckets === -1;
    const dynamicOptions = dynamic ? dynamicBucketOptions(table.coreOptions, table.identifier) : null;
    if (this.crossPartition) this.crossTargetRowNum = dynamicOptions!.targetRowNum;
    this.dynamic = dynamic && !this.crossPartition ? new DynamicBucketIndex(table, dynamicOptions!, options.overwrite === true, randomId()) : null;
    // (cross-partition upsert: the whole primary key, Java's RowPartitionAllPrimaryKeyExtractor)
    const keyFields = this.crossPartition ? this.schema.primaryKeys.map((k) => this.schema.fields.find((f) => f.name === k)!) : dynamic ? keyFieldsOf(this.schema) : [];
    this.keyIndexes = keyFields.map((f) => this.schema.fields.indexOf(f));
  }

  /**
   * Buffers `data` for the next `prepareCommit`. The batch must hold every table column
   * (by name, in any order) with a compatible type; nothing is buffered if it is invalid.
   */
  async write(data: arrow.RecordBatch | arrow.Table, target: WriteTarget = {}): Promise<void> {
    this.checkOpen();
    if (isDeduplicateTable(this.schema.options)) {
      // Rows must go through the real-time deduplicate writer, which marks superseded keys deleted;
      // an ordinary writer may still compact the table (seed 000 "Common Options").
      throw new PaimonError("UNSUPPORTED", `ordinary row writes into append deduplicate table ${this.table.identifier} are not supported; write through a real-time writer (newWrite with a realtime context)`);
    }
    const blobs = blobLayout(this.schema);
    if (blobs !== null) checkBlobWritable(this.table.identifier, this.schema, "write");
    let batches = inputBatches(data, "write");
    if (this.rowKindField !== null) [batches, target] = this.rowKindsFromField(batches, target);
    if (this.pk) checkRowKinds(this.table.identifier, target.rowKinds, batches.reduce((n, b) => n + b.numRows, 0));
    else if (target.rowKinds) {
      for (let i = 0; i < target.rowKinds.length; i++) {
        if (target.rowKinds[i] !== RowKind.INSERT) throw new PaimonError("UNSUPPORTED", `append table ${this.table.identifier} accepts INSERT rows only (row ${i} has kind ${target.rowKinds[i]})`);
      }
    }
    if (this.retractRefused && target.rowKinds) {
      const kept = rowKindFilter(this.pk!); // (rows ignore-delete drops never reach the aggregators)
      for (let i = 0; i < target.rowKinds.length; i++) {
        const k = target.rowKinds[i];
        if ((k === RowKind.UPDATE_BEFORE || k === RowKind.DELETE) && (!kept || kept(k))) throw this.retractRefused;
      }
    }
    // Validate and route everything first so a bad batch changes nothing.
    let rowOffset = 0;
    const normalized = batches.map((batch) => {
      if (blobs !== null) checkBlobArrowTypes(this.table.identifier, blobs, batch);
      let normal = this.normalize(batch);
      if (blobs !== null) normal = checkDescriptorColumns(this.table.identifier, blobs, this.schema.fields, normal);
      if (this.pk) normal = attachRowKinds(normal, target.rowKinds, rowOffset); // kinds travel with their rows
      rowOffset += batch.numRows;
      return normal;
    });
    const routed: Routed[] = [];
    for (const normal of normalized) routed.push(...(await this.route(normal, target)));
    const kept = this.dynamic && rowKindFilter(this.pk!);
    for (const [state, part, hashes, unfiltered] of routed) {
      try {
        await (unfiltered ? (state.writer as MergeTreeBucketWriter).write(part, true) : state.writer.write(part));
      } catch (e) {
        if (this.crossPartition) this.crossBroken = e as Error; // routed rows the index counts were not written
        throw e;
      }
      // Java's maintainer sees every record that reaches the bucket writer (deletes too, not those ignore-delete drops)
      if (hashes) this.dynamic!.record(state.partitionRow, state.bucket, kept ? keptHashes(part, hashes, kept) : hashes);
    }
  }

  /**
   * `rowkind.field` (Java's RowKindGenerator): each row's kind is its string column's short
   * string (+I, -U, +U, -D, any case), replacing `target.rowKinds`. Append tables (Java's append
   * writer) drop what `ignore-delete` / `ignore-update-before` filter and take +I and +U rows only.
   */
  private rowKindsFromField(batches: arrow.RecordBatch[], target: WriteTarget): [arrow.RecordBatch[], WriteTarget] {
    const name = this.rowKindField!;
    const kinds: number[] = [];
    for (const batch of batches) {
      const column = batch.getChild(name);
      if (!column) throw invalid(`batch lacks column ${name} of table ${this.table.identifier}`);
      for (let i = 0; i < batch.numRows; i++) {
        const v: unknown = column.get(i);
        if (v === null || v === undefined) throw invalid(`writing ${this.table.identifier}: Row kind cannot be null.`);
        const kind = ROW_KIND_SHORT_STRINGS.indexOf(String(v).toUpperCase());
        if (kind < 0) throw invalid(`writing ${this.table.identifier}: Unsupported short string '${String(v)}' for row kind.`);
        kinds.push(kind);
      }
    }
    if (this.pk) return [batches, { ...target, rowKinds: kinds }];
    const opts = this.table.coreOptions;
    const kept = rowKindFilter({ ignoreDelete: opts.ignoreDelete, ignoreUpdateBefore: opts.bool("ignore-update-before", false) });
    let offset = 0;
    const out = batches.map((batch) => {
      const picked: number[] = [];
      for (let i = 0; i < batch.numRows; i++) {
        const kind = kinds[offset + i]!;
        if (kept && !kept(kind)) continue;
        if (kind !== RowKind.INSERT && kind !== RowKind.UPDATE_AFTER) throw invalid(`writing ${this.table.identifier}: Append only writer can not accept row with RowKind ${ROW_KIND_NAMES[kind]}`);
        picked.push(i);
      }
      offset += batch.numRows;
      return picked.length === batch.numRows ? batch : takeRows(batch, Uint32Array.from(picked));
    });
    return [out, { ...target, rowKinds: undefined }];
  }

  /**
   * Data-evolution tables (`data-evolution.enabled`): new values of some columns for the rows of
   * one committed data file, as Java's MERGE INTO on such tables writes them (a write with
   * `withWriteType`, the file's first row id assigned). `data` holds those columns (by name, in
   * any order; no partition column) with one row per row of the live data file whose rows start
   * at row id `firstRowId` (`_FIRST_ROW_ID`, see `$files` or `$row_tracking`), in row-id order:
   * the rows not to change carry their current values. The column file is written now and
   * returned by the next `prepareCommit`; once committed, reads take these columns of the range's
   * rows from it (the newest file of a row range wins each column it holds). INVALID_ARGUMENT,
   * with nothing written, for a table without data evolution, unknown / repeated / partition
   * columns, values the columns cannot hold, a first row id no live data file starts at, another
   * row count, or a second update of the same range before `prepareCommit`.
   */
  async writeColumns(firstRowId: bigint, data: arrow.RecordBatch | arrow.Table): Promise<void> {
    this.checkOpen();
    const batches = inputBatches(data, "writeColumns");
    const fields = columnsToUpdate(this.table, (batches[0]?.schema ?? (data as arrow.Table).schema).fields.map((f) => f.name));
    const blobs = blobLayout(this.schema);
    if (blobs !== null && fields.some((f) => f.type.kind === "BLOB")) checkBlobWritable(this.table.identifier, this.schema, "writeColumns");
    if (blobs !== null) refuseBlobFileColumns(this.table.identifier, blobs.blobFileFields.filter((f) => fields.includes(f)));
    if (this.pendingColumnFiles.has(firstRowId)) throw invalid(`writeColumns: the rows starting at row id ${firstRowId} were already updated by this writer; call prepareCommit first`);
    if (blobs !== null) for (const b of batches) checkBlobArrowTypes(this.table.identifier, blobs, b);
    const normal = batches.map((b) => this.normalize(b, fields)).map((b) => (blobs === null ? b : checkDescriptorColumns(this.table.identifier, blobs, fields, b)));
    const rows = normal.reduce((n, b) => n + b.numRows, 0);
    const entry = await fileStartingAt(this.table, firstRowId, rows);
    this.pendingColumnFiles.set(firstRowId, await writeColumnFile(this.table, entry, fields, normal));
  }

  /** The batch with exactly `fields` (default the table's columns), in table order, in the canonical Arrow layout. */
  private normalize(batch: arrow.RecordBatch, fields: readonly DataField[] = this.schema.fields): arrow.RecordBatch {
    const names = batch.schema.fields.map((f) => f.name);
    const extra = names.filter((n) => !fields.some((f) => f.name === n));
    if (extra.length > 0) throw invalid(`batch has columns that table ${this.table.identifier} does not: ${extra.join(", ")}`);
    const canonical = fields === this.schema.fields ? this.canonical : fields.map((f) => this.canonical[this.schema.fields.indexOf(f)]);
    const children = fields.map((field, i) => {
      const idx = names.indexOf(field.name);
      if (idx < 0) throw invalid(`batch lacks column ${field.name} of table ${this.table.identifier}`);
      let converted: arrow.Data;
      try {
        const column = batch.data.children[idx];
        // Nested struct children are matched by name: field ids in caller-built batches need not be the table's.
        converted = convertData(column.type.typeId === arrow.Type.Dictionary ? decodeDictionary(column) : column, canonical[i].type, field.name, "name");
      } catch (e) {
        throw invalid(`column ${field.name} of table ${this.table.identifier}: ${(e as Error).message}`);
      }
      if (!field.type.nullable && converted.nullCount > 0) {
        throw invalid(`column ${field.name} of table ${this.table.identifier} is NOT NULL but the batch has ${converted.nullCount} null value(s)`);
      }
      checkDecimalInput(converted, field, this.table.identifier);
      return converted;
    });
    return recordBatch(new arrow.Schema(canonical), children, batch.numRows);
  }

  private async route(batch: arrow.RecordBatch, target: WriteTarget): Promise<Routed[]> {
    if (batch.numRows === 0) return [];
    if (this.crossPartition) return this.routeCrossPartition(batch, target);
    if (this.dynamic) return this.routeDynamic(batch, target);
    const out: Routed[] = [];
    for (const [partitionValues, rows] of this.splitByPartition(batch, target)) {
      const part = rows === null ? batch : takeRows(batch, rows);
      for (const [bucket, bucketRows] of this.splitByBucket(part, target)) {
        const state = await this.writerFor(partitionValues, bucket);
        out.push([state, bucketRows === null ? part : takeRows(part, bucketRows), null]);
      }
    }
    return out;
  }

  /** Dynamic bucket mode: rows to the buckets the assigner gives their key hashes, in row order. */
  private async routeDynamic(batch: arrow.RecordBatch, target: WriteTarget): Promise<Routed[]> {
    if (target.bucket !== undefined) throw invalid(`table ${this.table.identifier} is in dynamic bucket mode (bucket = -1) and assigns buckets itself; got bucket ${target.bucket}`);
    const partitions = this.splitByPartition(batch, target);
    const groups = new Int32Array(batch.numRows);
    partitions.forEach(([, rows], g) => rows?.forEach((r) => (groups[r] = g)));
    const hashes = assignBuckets(this.keyIndexes.map((i) => keyColumnFromArrow(batch.data.children[i])), 0);
    const buckets = await this.dynamic!.assign(partitions.map(([values]) => this.partitionRowOf(values)), groups, hashes);
    const out: Routed[] = [];
    for (const [values, partRows] of partitions) {
      const part = partRows === null ? batch : takeRows(batch, partRows);
      const partHashes = partRows === null ? hashes : Int32Array.from(partRows, (r) => hashes[r]!);
      const partBuckets = partRows === null ? buckets : Int32Array.from(partRows, (r) => buckets[r]!);
      for (const [bucket, rows] of groupByBucket(partBuckets)) {
        const state = await this.writerFor(values, bucket);
        out.push(rows === null ? [state, part, partHashes] : [state, takeRows(part, rows), Int32Array.from(rows, (r) => partHashes[r]!)]);
      }
    }
    return out;
  }

  /** The cross-partition key index, bootstrapped from the latest snapshot at the first write. */
  crossPartitionIndex(): Promise<CrossPartitionIndex> {
    if (this.cross === null) {
      this.cross = CrossPartitionIndex.bootstrap(this.table, this.pk!.mergeEngine, this.crossTargetRowNum, this.crossIndexTtl);
      this.cross.catch(() => (this.cross = null)); // a failed bootstrap is tried again by the next write
    }
    return this.cross;
  }

  /**
   * Cross-partition upsert mode: rows to the partition-buckets the key index routes them to
   * (CrossPartitionIndex.route), retractions and rows moved to a key's old partition included;
   * each output row takes its partition columns from its target partition.
   */
  private async routeCrossPartition(batch: arrow.RecordBatch, target: WriteTarget): Promise<Routed[]> {
    if (target.bucket !== undefined) throw invalid(`table ${this.table.identifier} is in cross-partition upsert mode (bucket = -1) and assigns buckets itself; got bucket ${target.bucket}`);
    if (this.crossBroken) throw new PaimonError("INVALID_ARGUMENT", `this TableWrite of cross-partition upsert table ${this.table.identifier} failed a write after routing it (${this.crossBroken.message}): its key index no longer matches the rows written; commit or drop what it prepared and write with a new writer`);
    const index = await this.crossPartitionIndex();
    const partitionIndexes = this.partitionFields.map((f) => this.schema.fields.indexOf(f));
    const rowPartition = new Int32Array(batch.numRows);
    const partitions = this.splitByPartition(batch, target);
    // (the check a bucket writer's creation makes, before the index changes: a bad partition changes nothing)
    for (const [values] of partitions) await this.checkPartitionTimestamp(values);
    for (const [values, rows] of partitions) {
      const first = Uint32Array.of(rows === null ? 0 : rows[0]!);
      const id = index.partitionId(this.partitionRowOf(values), values, () => partitionIndexes.map((i) => takeColumn(batch.data.children[i]!, first)));
      if (rows === null) rowPartition.fill(id);
      else for (let k = 0; k < rows.length; k++) rowPartition[rows[k]!] = id;
    }
    const kinds = batch.data.children[batch.numCols - 1]!.values as Int8Array;
    const keys = this.keyIndexes.map((i) => keyColumnFromArrow(batch.data.children[i]!));
    const route = index.route(keys, rowPartition, kinds, rowKindFilter(this.pk!));
    try {
      return await this.crossPartitionParts(batch, index, route, partitionIndexes);
    } catch (e) {
      this.crossBroken = e as Error;
      throw e;
    }
  }

  /** The routed parts of a cross-partition route: one per run of a partition-bucket's output rows. */
  private async crossPartitionParts(batch: arrow.RecordBatch, index: CrossPartitionIndex, route: CrossPartitionRoute, partitionIndexes: readonly number[]): Promise<Routed[]> {
    // group the output rows by (partition, bucket), in row order within each, and cut each group
    // into runs of retractions and other rows (a bucket writer numbers its rows in write order)
    const groups = new Map<number, number[]>();
    for (let o = 0; o < route.count; o++) {
      const key = route.partition[o]! * 0x200000 + route.bucket[o]!; // (buckets stay far below 2^21)
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(o);
    }
    const runs: number[][] = [];
    for (const g of groups.values()) {
      let run: number[] = [];
      for (const o of g) {
        if (run.length > 0 && route.retraction[run[0]!] !== route.retraction[o]) {
          runs.push(run);
          run = [];
        }
        run.push(o);
      }
      runs.push(run);
    }
    const out: Routed[] = [];
    for (const outputs of runs) {
      const partition = route.partition[outputs[0]!]!;
      const bucket = route.bucket[outputs[0]!]!;
      const rows = Uint32Array.from(outputs, (o) => route.source[o]!);
      const partColumns = index.partitionColumns(partition);
      const repeat = new Uint32Array(rows.length);
      const children = this.schema.fields.map((_, i) => {
        const p = partitionIndexes.indexOf(i);
        return p >= 0 ? takeColumn(partColumns[p]!, repeat) : takeColumn(batch.data.children[i]!, rows);
      });
      children.push(arrow.makeData({ type: new arrow.Int8(), length: rows.length, data: Int8Array.from(outputs, (o) => route.kind[o]!) }));
      const state = await this.writerFor(index.partitionValues(partition), bucket);
      out.push([state, recordBatch(batch.schema, children, rows.length), null, route.retraction[outputs[0]!] === 1]);
    }
    return out;
  }

  /** Groups rows by partition: [internal values, row indices (null = all rows)]. */
  private splitByPartition(batch: arrow.RecordBatch, target: WriteTarget): Array<[unknown[], Uint32Array | null]> {
    const fields = this.partitionFields;
    if (fields.length === 0) {
      if (target.partition && Object.keys(target.partition).length > 0) throw invalid(`table ${this.table.identifier} is not partitioned, but the write names partition ${JSON.stringify(Object.keys(target.partition))}`);
      return [[[], null]];
    }
    if (target.partition) {
      const unknown = Object.keys(target.partition).filter((k) => !this.schema.partitionKeys.includes(k));
      if (unknown.length > 0) throw invalid(`unknown partition column(s) ${unknown.join(", ")} for table ${this.table.identifier} (partition keys: ${this.schema.partitionKeys.join(", ")})`);
      const missing = this.schema.partitionKeys.filter((k) => !(k in target.partition!));
      if (missing.length > 0) throw invalid(`partition value(s) missing for ${missing.join(", ")} of table ${this.table.identifier}`);
      const row = toBinaryRow(
        fields.map((f) => target.partition![f.name]),
        fields.map((f) => f.type),
      );
      return [[fromBinaryRow(row, fields.map((f) => f.type)), null]];
    }
    const columns = fields.map((f) => batch.data.children[this.schema.fields.indexOf(f)]);
    const groups = new Map<string, { values: unknown[]; rows: number[] }>();
    for (let r = 0; r < batch.numRows; r++) {
      const values = fields.map((f, i) => internalValue(columns[i], r, f.type));
      const key = JSON.stringify(values, (_k, v) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v));
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { values, rows: [] }));
      g.rows.push(r);
    }
    if (groups.size === 1) return [[[...groups.values()][0].values, null]];
    return [...groups.values()].map((g) => [g.values, Uint32Array.from(g.rows)]);
  }

  /** Groups rows by bucket: [bucket, row indices (null = all rows)]. */
  private splitByBucket(batch: arrow.RecordBatch, target: WriteTarget): Array<[number, Uint32Array | null]> {
    if (this.numBuckets <= 0) {
      // unaware-bucket tables write bucket 0; postpone-bucket ones bucket -2 (the seeds' write guide: an omitted bucket resolves to it)
      const only = this.postponePrefix !== null ? POSTPONE_BUCKET : 0;
      if (target.bucket !== undefined && target.bucket !== only) throw invalid(`table ${this.table.identifier} has no fixed buckets (bucket = ${this.numBuckets}); got bucket ${target.bucket}`);
      return [[only, null]];
    }
    if (target.bucket !== undefined) {
      if (!Number.isInteger(target.bucket) || target.bucket < 0 || target.bucket >= this.numBuckets) {
        throw invalid(`bucket ${target.bucket} is out of range for table ${this.table.identifier} (bucket = ${this.numBuckets})`);
      }
      return [[target.bucket, null]];
    }
    const keys: KeyColumn[] = this.bucketKeyIndexes.map((i) => keyColumnFromArrow(batch.data.children[i]));
    return groupByBucket(this.bucketFunction(keys, this.numBuckets));
  }

  /**
   * Java's `checkNumBuckets` on restore: after `bucket` was changed, a partition written with the
   * old count is written again only by an overwrite (which rescales it); an ordinary write would
   * put keys in two buckets. Checked once per partition per writer.
   */
  private async checkBucketCount(partitionRow: Uint8Array, values: unknown[]): Promise<void> {
    const key = partitionRow.join(",");
    if (this.bucketCountChecked.has(key)) return;
    const latest = await this.table.latestSnapshot();
    if (latest !== null) {
      const entries = await this.table.manifestStore.liveEntries(latest, undefined, (e) => e.partition.join(",") === key);
      const previous = entries.find((e) => e.totalBuckets > 0 && e.totalBuckets !== this.numBuckets);
      if (previous !== undefined) {
        const where = this.partitionFields.length > 0 ? `partition ${this.partitionFields.map((f, i) => `${f.name}=${String(values[i])}`).join("/")}` : "the table";
        throw new PaimonError(
          "UNSUPPORTED",
          `table ${this.table.identifier}: cannot write ${where} with the new bucket count ${this.numBuckets}: its files have bucket count ${previous.totalBuckets}; rescale it first: Table.rescale, or an overwrite (newWrite({ overwrite: true }) and TableCommit.overwrite; Java: INSERT OVERWRITE or the rescale procedure)`,
        );
      }
    }
    this.bucketCountChecked.add(key);
  }

  /** Java creates a partition-bucket writer only after its partition passes `partition.timestamp-format.strict`. */
  protected async checkPartitionTimestamp(values: readonly unknown[]): Promise<void> {
    (await this.partitionTimestampCheckOf())?.(values);
  }

  private async partitionTimestampCheckOf(): Promise<((values: readonly unknown[]) => void) | null> {
    if (this.partitionTimestampCheck === undefined) {
      const strict = this.table.coreOptions.raw["partition.timestamp-format.strict"];
      this.partitionTimestampCheck = strict === undefined ? null : (await import("../commit/partition-expire.js")).partitionTimestampValidator(this.table);
    }
    return this.partitionTimestampCheck;
  }

  private partitionRowOf(values: unknown[]): Uint8Array {
    const types = this.partitionFields.map((f) => f.type);
    return serializeBinaryRow(toBinaryRow(values, types), types.length);
  }

  private async writerFor(values: unknown[], bucket: number): Promise<BucketState> {
    const partitionRow = this.partitionRowOf(values);
    const key = `${partitionRow.join(",")}|${bucket}`;
    if (this.deltaCommits !== null) this.deltaCommitBuckets.add(key);
    let state = this.writers.get(key);
    if (state) return state;
    if (this.compactedElsewhere.has(key)) throw new PaimonError("UNSUPPORTED", `bucket ${bucket} of table ${this.table.identifier} was compacted by compaction workers; call prepareCommit before writing or compacting it again with this writer`);
    await this.checkPartitionTimestamp(values);
    const opts = this.table.coreOptions;
    const dir = this.table.paths.bucketDir(writablePartitionPath(this.partitionFields, values, opts.partitionDefaultName, opts.partitionLegacyName), bucket);
    if (this.numBuckets > 0 && !this.options.overwrite) await this.checkBucketCount(partitionRow, values);
    // Bucketed writers continue the bucket's sequence numbers; unaware-bucket and overwrite ones
    // (which restore no files) start at 0, as Java.
    const nextSequence = this.numBuckets > 0 && !this.options.overwrite ? (await this.table.maxSequenceNumber(partitionRow, bucket)) + 1n : 0n;
    state = {
      partition: Object.fromEntries(this.partitionFields.map((f, i) => [f.name, values[i]])),
      partitionRow,
      bucket,
      writer: this.postponePrefix !== null ? new PostponeBucketWriter(this.table, this.pk!, dir, this.postponePrefix) : this.pk ? await MergeTreeBucketWriter.create({ table: this.table, partitionRow, bucket, bucketDir: dir, config: this.pk, writeOnly: opts.bool("write-only", false), ignorePreviousFiles: this.options.overwrite === true }) : this.appendWriter(dir, nextSequence),
    };
    this.writers.set(key, state);
    return state;
  }

  /** The writer of an append table's partition-bucket directory `dir` (BLOB columns: normal and blob files). */
  private appendWriter(dir: string, nextSequence: bigint): AppendBucketWriter | BlobBucketWriter {
    const opts = this.table.coreOptions;
    const config: AppendWriterConfig = {
      io: this.table.fileIO,
      schema: this.schema,
      bucketDir: dir,
      fileCompression: opts.fileCompression,
      targetFileSize: opts.targetFileSize(false),
      dataFilePrefix: opts.dataFilePrefix,
      statsMode: opts.get("metadata.stats-mode"),
      // (Java's data-evolution writers count each file's sequence numbers from 0)
      sequencePerFile: isTrueOption(this.schema.options["data-evolution.enabled"]),
    };
    const blobs = blobLayout(this.schema);
    if (blobs !== null) return new BlobBucketWriter(config, blobs, opts.memory("blob.target-file-size", String(config.targetFileSize)));
    return new AppendBucketWriter(config, nextSequence);
  }

  /** Writes buffered data to files and returns one CommitMessage per partition-bucket written. */
  async prepareCommit(commitIdentifier?: bigint | number): Promise<CommitMessage[]> {
    this.checkOpen();
    if (this.deltaCommits !== null && this.deltaCommitBuckets.size > 0) {
      // Java's FullCompactedStartingScanner.isFullCompactedIdentifier: a multiple of
      // full-compaction.delta-commits, or the batch identifier (no identifier: every commit)
      const id = BigInt(commitIdentifier ?? BATCH_COMMIT_IDENTIFIER);
      if (id === BATCH_COMMIT_IDENTIFIER || id % BigInt(this.deltaCommits) === 0n) {
        for (const key of this.deltaCommitBuckets) {
          const writer = this.writers.get(key)?.writer;
          if (writer instanceof MergeTreeBucketWriter) await writer.compact(true);
        }
        this.deltaCommitBuckets.clear();
      }
    }
    const out: CommitMessage[] = [];
    for (const state of this.writers.values()) {
      if (state.writer instanceof MergeTreeBucketWriter) {
        const inc = await state.writer.prepareIncrement();
        // dynamic bucket mode: the bucket's hash index, when keys were added, with the new files (Java AbstractFileStoreWrite)
        const hashIndex = await this.dynamic?.prepareCommit(state.partitionRow, state.bucket);
        if (hashIndex) inc.dataIncrement.newIndexFiles = [hashIndex];
        const empty = (hashIndex ? 1 : 0) + inc.dataIncrement.newFiles!.length + inc.dataIncrement.changelogFiles!.length + inc.compactIncrement.changelogFiles!.length + inc.compactIncrement.compactBefore!.length + inc.compactIncrement.compactAfter!.length + inc.compactIncrement.newIndexFiles!.length + inc.compactIncrement.deletedIndexFiles!.length === 0;
        if (!empty) out.push(new CommitMessage(makeCommitMessage({ partition: state.partitionRow, bucket: state.bucket, totalBuckets: this.numBuckets, ...inc }), state.partition));
        continue;
      }
      const files = await state.writer.prepareCommit();
      if (files.length === 0) continue;
      const data = makeCommitMessage({
        partition: state.partitionRow,
        bucket: state.bucket,
        totalBuckets: this.numBuckets > 0 || state.bucket === POSTPONE_BUCKET ? this.numBuckets : null,
        dataIncrement: { newFiles: files },
      });
      out.push(new CommitMessage(data, state.partition));
    }
    if (this.cross !== null) {
      // the commit checks other writers' commits since the key index was loaded
      const base = (await this.cross).commitBase;
      for (const m of out) m.crossPartitionBase = base;
    }
    out.push(...this.pendingColumnFiles.values()); // data-evolution column files (writeColumns())
    this.pendingColumnFiles.clear();
    out.push(...this.pendingCompactions.splice(0)); // append-table and worker compactions (compact())
    this.compactedElsewhere.clear();
    return out;
  }

  /**
   * Compacts primary-key buckets (all, or those of `partition` / `bucket`): `full` (default true)
   * rewrites each into one sorted run at the max level, otherwise universal compaction runs when
   * its triggers are met. The result is committed by the next prepareCommit (COMPACT snapshot).
   * On a postpone-bucket table (`bucket = -2`) without `bucket`, it first moves the committed
   * postponed rows (of `partition`) into their partitions' buckets as Java's compact procedure
   * does, making them visible to reads; `full` then also rewrites each bucket it wrote.
   */
  async compact(options: { partition?: Record<string, unknown>; bucket?: number; full?: boolean; workers?: number } = {}): Promise<void> {
    this.checkOpen();
    if (this.postponePrefix !== null && options.bucket === undefined) {
      // Java's compact procedure on a postpone table: pending rows into their buckets (postpone.ts)
      const match = partitionMatcher(this.table, options.partition);
      const check = await this.partitionTimestampCheckOf();
      const types = this.partitionFields.map((f) => f.type);
      const matches = check === null ? match : (row: Uint8Array) => match(row) && (check(fromBinaryRow(row.subarray(4), types)), true);
      this.pendingCompactions.push(...(await compactPostponeBuckets(this.table, this.pk!, matches, options.full ?? true)));
      return;
    }
    if (!this.pk && isTrueOption(this.schema.options["data-evolution.enabled"])) {
      // files merged per row-id range as Java's DataEvolutionCompactCoordinator plans (`full` and `workers` change nothing)
      if (this.options.overwrite) throw new PaimonError("UNSUPPORTED", `compact on an overwrite writer of data-evolution table ${this.table.identifier}: it would rewrite the files the overwrite replaces`);
      this.pendingCompactions.push(...(await (await import("./data-evolution-compact.js")).compactDataEvolution(this.table, options)));
      return;
    }
    if (await this.compactInWorkers(options)) return;
    if (!this.pk) {
      // Append compaction rewrites the table's committed files, which an overwrite replaces.
      if (this.options.overwrite) throw new PaimonError("UNSUPPORTED", `compact on an overwrite writer of append table ${this.table.identifier}: it would rewrite the files the overwrite replaces`);
      // Java's TableWrite.compact compacts with a writer of each bucket (checked as a write's)
      const check = await this.partitionTimestampCheckOf();
      if (check !== null) for (const t of await compactTargets(this.table, options, [])) check(t.values);
      this.pendingCompactions.push(...(await compactAppendBuckets(this.table, options)));
      return;
    }
    const pending = [...this.writers.values()];
    for (const t of await compactTargets(this.table, options, pending)) {
      const state = await this.writerFor(t.values, t.bucket);
      await (state.writer as MergeTreeBucketWriter).compact(options.full ?? true);
    }
  }

  /**
   * `compact` on the calling thread and `workers - 1` worker threads (compact-workers.ts) when
   * `workers` (default the table's `compaction.workers`) is above 1, the writer holds no buckets of its own (their buffered rows
   * and restored state live in this thread), there are several partition-buckets and workers can
   * start here: whether it did. The results wait for the next prepareCommit, as append compactions
   * do; a primary-key bucket compacted so cannot be written or compacted again by this writer
   * before then (its state is in the messages, not in a bucket writer here).
   */
  private async compactInWorkers(options: { partition?: Record<string, unknown>; bucket?: number; full?: boolean; workers?: number }): Promise<boolean> {
    const workers = options.workers ?? compactionWorkers(this.table.coreOptions);
    if (!Number.isInteger(workers) || workers < 1) throw invalid(`compact: workers must be a positive integer, got ${String(options.workers)}`);
    if (workers === 1 || this.writers.size > 0 || this.options.overwrite || !this.table.fileIO.sharedOptions?.()) return false;
    const targets = await compactTargets(this.table, options, []);
    if (targets.length < 2) return false;
    // each worker's bucket is one Java would compact with a writer of it (checked as a write's)
    const check = await this.partitionTimestampCheckOf();
    if (check !== null) for (const t of targets) check(t.values);
    const types = this.partitionFields.map((f) => f.type);
    const tasks = targets.map((t) => ({ partitionRow: serializeBinaryRow(toBinaryRow(t.values, types), types.length), bucket: t.bucket }));
    const mod = await import(/* @vite-ignore */ COMPACT_WORKERS_MODULE).catch(() => null) as typeof import("./compact-workers.js") | null;
    const messages = await mod?.compactInWorkers(this.table, tasks, { threads: workers, full: options.full, commitUser: this.options.commitUser });
    if (!messages) return false;
    this.pendingCompactions.push(...messages);
    if (this.pk) for (const t of tasks) this.compactedElsewhere.add(`${t.partitionRow.join(",")}|${t.bucket}`);
    return true;
  }

  // Real-time hooks: implemented by the real-time writer (src/realtime/writer.ts), which
  // `Table.newWrite({ realtime })` returns; an ordinary writer has no real-time context.
  async seal(): Promise<void> {
    throw new PaimonError("REALTIME_NOT_ENABLED", `seal on ${this.table.identifier} requires a real-time writer (newWrite with a realtime context on a realtime.enabled=true table)`);
  }

  async prepareCommitWithProgress(_commitIdentifier: bigint | number): Promise<RealtimeCommitProgress[]> {
    throw new PaimonError("REALTIME_NOT_ENABLED", `prepareCommitWithProgress on ${this.table.identifier} is only supported by a real-time writer (newWrite with a realtime context)`);
  }

  async refreshCommittedSnapshot(_snapshotId: number): Promise<void> {
    throw new PaimonError("REALTIME_NOT_ENABLED", `refreshCommittedSnapshot on ${this.table.identifier} requires a real-time writer (newWrite with a realtime context)`);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const state of this.writers.values()) if (state.writer instanceof MergeTreeBucketWriter) state.writer.close();
    this.writers.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new PaimonError("INVALID_ARGUMENT", `this TableWrite of ${this.table.identifier} is closed`);
  }
}

/** One routed part of a write: its bucket writer, its rows, (dynamic bucket mode) their key hashes, and (cross-partition retractions) whether ignore-delete must keep them. */
type Routed = [BucketState, arrow.RecordBatch, Int32Array | null, boolean?];

/** The hashes of the rows of `part` whose row kind (trailing int8 column) `kept` accepts. */
function keptHashes(part: arrow.RecordBatch, hashes: Int32Array, kept: (kind: number) => boolean): Int32Array {
  const kinds = part.data.children[part.numCols - 1]!.values as Int8Array;
  const out: number[] = [];
  for (let r = 0; r < hashes.length; r++) if (kept(kinds[r]!)) out.push(hashes[r]!);
  return Int32Array.from(out);
}

/**
 * `compaction.workers` (paimon-rt only, default 1): how many partition-buckets an explicit
 * compaction (`TableWrite.compact`, `paimon-rt compact`) rewrites at a time, by the calling thread
 * and N - 1 worker threads (write/compact-workers.ts); 1 compacts in the calling thread only.
 * Only for tables on a file system a worker can open itself (local, S3). Read here, on the write
 * path, so the query bundle does not carry it.
 */
function compactionWorkers(options: TableOptions): number {
  const n = options.int(Options.COMPACTION_WORKERS, 1);
  if (n < 1) throw new PaimonError("INVALID_ARGUMENT", `option ${Options.COMPACTION_WORKERS}: '${options.get(Options.COMPACTION_WORKERS)}' must be at least 1`);
  return n;
}

/**
 * `writeColumns` of BLOB columns stored in `.blob` files: UNSUPPORTED (Java 1.4.2 writes a column
 * update of them as a normal file of the other updated columns plus blob files; paimon-rt updates
 * normal and descriptor columns only).
 */
function refuseBlobFileColumns(table: string, blobFileFields: readonly DataField[]): void {
  if (blobFileFields.length === 0) return;
  throw new PaimonError("UNSUPPORTED", `writeColumns on table ${table}: updating BLOB columns stored in .blob files (${blobFileFields.map((f) => f.name).join(", ")}) is not supported; paimon-rt updates other columns and 'blob-descriptor-field' columns`);
}
