// What differs between the real-time modes on the write side (seed "Implementation by Mode"):
// the stored layout, how validated input becomes stored batches, and how prepared segments
// become table files. The lifecycle around them (offsets, seal, spill, prepare, refresh,
// close) is shared in writer.ts.
import { columnValues } from "../arrow/values.js";
import * as arrow from "apache-arrow";
import { recordBatch } from "../arrow/record-batch.js";
import { takeData, takeRows } from "../arrow/take.js";
import { PaimonError } from "../error.js";
import { readArrowField } from "../format/arrow-types.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
import type { CompactIncrement, DataIncrement } from "../spec/commit-message.js";
import type { DataField } from "../spec/types.js";
import { keyFieldsOf, primaryKeyConfig, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD } from "../table/primary-key.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { AppendBucketWriter } from "../write/append-writer.js";
import { MergeTreeBucketWriter } from "../write/merge-tree-writer.js";
import { checkRowKinds } from "../write/pk-write.js";
import { RowKind } from "../write/table-write.js";
import type { StoreEntry } from "./context.js";
import { dedupFieldsOf } from "./dedup.js";
import { keyIdentities, survivingRows, type DedupKeyIndex, type FrozenDeletedOffsets } from "./dedup-key-index.js";
import { dedupLookupOptions, type DedupLookupCache } from "./dedup-lookup.js";
import type { RealtimeStoreMode } from "./options.js";
import { numberedPrimaryKeyBatch, sortPrimaryKeyBatch } from "./pk-batch.js";
import { REALTIME_OFFSET_FIELD } from "./types.js";

/** Field id of the hidden offset column (Paimon special field `INT32_MAX - 10002`). */
export const REALTIME_OFFSET_FIELD_ID = 2147483647 - 10002;

export const REALTIME_OFFSET_DATA_FIELD: DataField = {
  id: REALTIME_OFFSET_FIELD_ID,
  name: REALTIME_OFFSET_FIELD,
  type: { kind: "BIGINT", nullable: false },
} as DataField;

/** Files a prepare produced for one partition-bucket. */
export interface PreparedFiles {
  dataIncrement: Partial<DataIncrement>;
  compactIncrement?: Partial<CompactIncrement>;
}

/** The mode-specific half of the real-time writer. */
export interface RealtimeWriteMode {
  readonly storeMode: RealtimeStoreMode;
  /** Layout of stored batches (see RealtimeWriteBatch). */
  readonly storeSchema: arrow.Schema;
  readonly storeFields: DataField[];
  readonly keyColumnIndexes: number[];
  /** Layout of input batches: `[_REALTIME_OFFSET, table fields…]`, or the table fields (DEDUPLICATE: the offset is a table column). */
  readonly inputFields: DataField[];
  /** Index of the offset column in `inputFields`. */
  readonly inputOffsetColumn: number;
  /** Throws (changing nothing) unless the row kinds fit the mode; `kinds` covers all `rows` rows of one write. */
  checkRowKinds(kinds: ArrayLike<number> | undefined, rows: number): void;
  /**
   * Stored batches for validated input batches in `inputFields` layout; `kinds[kindOffsets[b] + i]`
   * (or INSERT) is the row kind of row i of batch b.
   */
  toStored(entry: StoreEntry, batches: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): Promise<arrow.RecordBatch[]>;
  /**
   * DEDUPLICATE: `toStored` done at once, without a promise, when nothing it needs has to be
   * loaded; undefined (nothing changed) when it would wait.
   */
  toStoredNow?(entry: StoreEntry, batches: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): arrow.RecordBatch[] | undefined;
  /**
   * Writes a partition-bucket's sealed segments (stored batches, in order) as table files;
   * DEDUPLICATE leaves out the rows whose offsets `deleted` holds (superseded before the prepare).
   */
  prepare(entry: StoreEntry, segments: AsyncIterable<arrow.RecordBatch>, deleted: FrozenDeletedOffsets | null): Promise<PreparedFiles>;
}

function bucketDirOf(table: FileStoreTable, entry: StoreEntry): string {
  return table.paths.bucketDirOf(entry.partitionRow, entry.bucket, entry.internalValues);
}

/** Append mode: batches stored as given; prepare appends them through the ordinary append writer. */
export class AppendWriteMode implements RealtimeWriteMode {
  readonly storeMode: RealtimeStoreMode = "APPEND_ONLY";
  readonly storeSchema: arrow.Schema;
  readonly storeFields: DataField[];
  readonly keyColumnIndexes: number[] = [];
  readonly inputFields: DataField[];
  readonly inputOffsetColumn: number = 0;
  private readonly tableSchema: arrow.Schema;
  private readonly fileWriters = new Map<string, AppendBucketWriter>();
  /** Columns the data files store without dictionary encoding (DEDUPLICATE: key and offset). */
  protected plainColumns: readonly string[] = [];
  /** DEDUPLICATE: the key and offset fields of each file's `.offset` sidecar. */
  protected offsetSidecar: { keyField: DataField; offsetField: DataField } | undefined = undefined;

  constructor(protected readonly table: FileStoreTable) {
    const fields = table.schema.fields.map((f) => readArrowField(f));
    this.tableSchema = new arrow.Schema(fields);
    this.storeSchema = new arrow.Schema([readArrowField(REALTIME_OFFSET_DATA_FIELD), ...fields]);
    this.storeFields = [REALTIME_OFFSET_DATA_FIELD, ...table.schema.fields];
    this.inputFields = this.storeFields;
  }

  checkRowKinds(kinds: ArrayLike<number> | undefined, _rows: number): void {
    if (!kinds) return;
    for (let i = 0; i < kinds.length; i++) {
      if (kinds[i] !== RowKind.INSERT) throw new PaimonError("UNSUPPORTED", `real-time append table ${this.table.identifier} accepts INSERT rows only (row ${i} has kind ${kinds[i]})`);
    }
  }

  async toStored(_entry: StoreEntry, batches: readonly arrow.RecordBatch[], _kinds: ArrayLike<number> | undefined, _kindOffsets: readonly number[]): Promise<arrow.RecordBatch[]> {
    return [...batches];
  }

  private fileWriter(entry: StoreEntry, nextSequence: bigint): AppendBucketWriter {
    let w = this.fileWriters.get(entry.key);
    if (!w) {
      const opts = this.table.coreOptions;
      w = new AppendBucketWriter(
        {
          io: this.table.fileIO,
          schema: this.table.schema,
          bucketDir: bucketDirOf(this.table, entry),
          fileCompression: opts.fileCompression,
          targetFileSize: opts.targetFileSize(false),
          dataFilePrefix: opts.dataFilePrefix,
          statsMode: opts.get("metadata.stats-mode"),
          plainColumns: this.plainColumns,
          offsetSidecar: this.offsetSidecar,
        },
        nextSequence,
      );
      this.fileWriters.set(entry.key, w);
    }
    return w;
  }

  async prepare(entry: StoreEntry, segments: AsyncIterable<arrow.RecordBatch>, _deleted: FrozenDeletedOffsets | null = null): Promise<PreparedFiles> {
    const writer = this.fileWriters.get(entry.key) ?? this.fileWriter(entry, (await this.table.maxSequenceNumber(entry.partitionRow, entry.bucket)) + 1n);
    for await (const b of segments) {
      if (b.numRows === 0) continue;
      await writer.write(recordBatch(this.tableSchema, b.data.children.slice(1), b.numRows));
    }
    return { dataIncrement: { newFiles: await writer.prepareCommit() } };
  }
}

/**
 * PK MOR / PK DV: the framework numbers rows (continuing the bucket's committed maximum
 * sequence number); each stored batch is sorted by primary key, then sequence, with the wasm
 * sort kernel (pk-batch.ts: by the store when it first needs the batch, or here for a store
 * that does not sort); `_SEQUENCE_NUMBER` and `_VALUE_KIND` follow the table fields. Prepare hands the
 * rows, with those sequence numbers, to the ordinary merge-tree writer in write-only mode.
 */
export class PrimaryKeyWriteMode implements RealtimeWriteMode {
  readonly storeMode = "PRIMARY_KEY" as const;
  readonly storeSchema: arrow.Schema;
  readonly storeFields: DataField[];
  readonly keyColumnIndexes: number[];
  readonly inputFields: DataField[];
  readonly inputOffsetColumn = 0;
  private readonly width: number;
  private readonly tableSchema: arrow.Schema;

  constructor(private readonly table: FileStoreTable) {
    const fields = table.schema.fields.map((f) => readArrowField(f));
    this.width = fields.length;
    this.tableSchema = new arrow.Schema(fields);
    this.inputFields = [REALTIME_OFFSET_DATA_FIELD, ...table.schema.fields];
    this.storeFields = [REALTIME_OFFSET_DATA_FIELD, ...table.schema.fields, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD];
    this.storeSchema = new arrow.Schema(this.storeFields.map((f) => readArrowField(f)));
    this.keyColumnIndexes = keyFieldsOf(table.schema).map((k) => table.schema.fields.indexOf(k) + 1);
  }

  checkRowKinds(kinds: ArrayLike<number> | undefined, rows: number): void {
    checkRowKinds(this.table.identifier, kinds, rows);
  }

  /**
   * Numbers the rows (input order, so sequence order); sorts them only for a store that does not
   * sort its batches itself (`sortsPrimaryKeyBatches`): the Arrow store sorts each batch once,
   * when it is first needed.
   */
  async toStored(entry: StoreEntry, batches: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): Promise<arrow.RecordBatch[]> {
    entry.nextSequence ??= (await this.table.maxSequenceNumber(entry.partitionRow, entry.bucket)) + 1n;
    const sortHere = entry.store.sortsPrimaryKeyBatches !== true;
    const out: arrow.RecordBatch[] = [];
    let next = entry.nextSequence;
    for (let b = 0; b < batches.length; b++) {
      const numbered = numberedPrimaryKeyBatch(this.storeSchema, batches[b], next, kinds, kindOffsets[b]);
      next += BigInt(numbered.numRows);
      out.push(sortHere ? sortPrimaryKeyBatch(numbered, this.keyColumnIndexes) : numbered);
    }
    entry.nextSequence = next;
    return out;
  }

  async prepare(entry: StoreEntry, segments: AsyncIterable<arrow.RecordBatch>): Promise<PreparedFiles> {
    const writer = await MergeTreeBucketWriter.create({
      table: this.table,
      partitionRow: entry.partitionRow,
      bucket: entry.bucket,
      bucketDir: bucketDirOf(this.table, entry),
      config: primaryKeyConfig(this.table.coreOptions),
      writeOnly: true,
    });
    try {
      const w = this.width;
      for await (const b of segments) {
        if (b.numRows === 0) continue;
        const c = b.data.children;
        await writer.writeSequenced({
          batch: recordBatch(this.tableSchema, c.slice(1, w + 1), b.numRows),
          sequence: columnValues<BigInt64Array>(c[w + 1]),
          kinds: columnValues<Int8Array>(c[w + 2]),
        });
      }
      const increment = await writer.prepareIncrement();
      return { dataIncrement: increment.dataIncrement, compactIncrement: increment.compactIncrement };
    } finally {
      writer.close();
    }
  }
}

/**
 * Append deduplicate: batches arrive in the table's own layout (`_REALTIME_OFFSET` is a table
 * column, at its declared position) and are stored as in append mode, `[_REALTIME_OFFSET, table
 * fields…]` (the prefix is the same column data, not a copy). Each write looks its keys up in the
 * partition-bucket's key index (committed files + memory): an add row supersedes the key's live
 * row, marking that offset deleted; a retract (DELETE / UPDATE_BEFORE) marks it deleted and
 * stores nothing but its offset range. Prepare writes the surviving rows with their offsets
 * through the ordinary append writer (which writes the exact offset file index).
 */
export class DedupWriteMode extends AppendWriteMode {
  override readonly storeMode: RealtimeStoreMode = "DEDUPLICATE";
  override readonly inputFields: DataField[];
  override readonly inputOffsetColumn: number;
  private readonly keyColumn: number;

  /** `lookupCache`: the context's committed-key lookup cache (its options are checked here). */
  constructor(
    table: FileStoreTable,
    private readonly lookupCache: () => DedupLookupCache,
  ) {
    super(table);
    dedupLookupOptions(table.coreOptions);
    const { keyField, offsetField } = dedupFieldsOf(table);
    this.inputFields = table.schema.fields;
    this.inputOffsetColumn = table.schema.fields.indexOf(offsetField);
    this.keyColumn = table.schema.fields.indexOf(keyField);
    // One live row per key and offset in a file: a dictionary of either only slows key lookups.
    this.plainColumns = [keyField.name, offsetField.name];
    this.offsetSidecar = { keyField, offsetField };
  }

  override checkRowKinds(kinds: ArrayLike<number> | undefined, rows: number): void {
    checkRowKinds(this.table.identifier, kinds, rows);
  }

  /**
   * Call with `entry.dedup.lock` held: the key index changes belong to these stored batches. Keys
   * the index does not hold are looked up among committed files first, for every batch, so that
   * a failed lookup changes nothing.
   */
  override async toStored(entry: StoreEntry, batches: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): Promise<arrow.RecordBatch[]> {
    const dedup = entry.dedup!;
    const { index, committed } = dedup.keysAt(entry.baseSnapshotId) ?? (await dedup.keys(this.table, entry.partitionRow, entry.bucket, entry.baseSnapshotId, entry.baseEnd, this.lookupCache()));
    const keys = batches.map((b) => keyColumnFromArrow(b.data.children[this.keyColumn]));
    const identities = keys.map(keyIdentities);
    // Every row's key is looked up among committed files (apply uses the answer only for keys the
    // index does not hold): per-file key ranges and filters answer most rows without a table
    // probe, and apply then finds each key in the index once.
    const found: Array<BigInt64Array | null> = [];
    for (let b = 0; b < batches.length; b++) found.push(await committed.lookup(identities[b], keys[b]));
    return this.applyKeys(index, batches, identities, found, kinds, kindOffsets);
  }

  /**
   * `toStored` without a promise when the key index is at the entry's base snapshot and every
   * committed lookup is answered from the lookup cache (CommittedKeys.lookupNow): the usual small
   * write. Undefined, with nothing changed, when either would have to load.
   */
  toStoredNow(entry: StoreEntry, batches: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): arrow.RecordBatch[] | undefined {
    const current = entry.dedup!.keysAt(entry.baseSnapshotId);
    if (current === null) return undefined;
    const identities = batches.map((b) => keyIdentities(keyColumnFromArrow(b.data.children[this.keyColumn])));
    const found: Array<BigInt64Array | null> = [];
    for (let b = 0; b < batches.length; b++) {
      const f = current.committed.lookupNow(identities[b]);
      if (f === undefined) return undefined;
      found.push(f);
    }
    return this.applyKeys(current.index, batches, identities, found, kinds, kindOffsets);
  }

  /** The key index changes of the batches (`found`: their keys' committed offsets) and the stored batches: their add rows. */
  private applyKeys(index: DedupKeyIndex, batches: readonly arrow.RecordBatch[], identities: readonly BigUint64Array[], found: ReadonlyArray<BigInt64Array | null>, kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): arrow.RecordBatch[] {
    const out: arrow.RecordBatch[] = [];
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b];
      const n = batch.numRows;
      const c = batch.data.children;
      const offsets = columnValues<BigInt64Array>(c[this.inputOffsetColumn]);
      const { addRows } = index.apply(identities[b], offsets, kinds, kindOffsets[b], found[b]);
      const columns = addRows === null ? c : c.map((d) => takeData(d, addRows));
      out.push(recordBatch(this.storeSchema, [columns[this.inputOffsetColumn], ...columns], addRows === null ? n : addRows.length));
    }
    return out;
  }

  override async prepare(entry: StoreEntry, segments: AsyncIterable<arrow.RecordBatch>, deleted: FrozenDeletedOffsets | null): Promise<PreparedFiles> {
    return super.prepare(entry, deleted === null ? segments : survivors(segments, deleted));
  }
}

/** Stored batches without the rows whose offsets (column 0) `deleted` holds. */
async function* survivors(segments: AsyncIterable<arrow.RecordBatch>, deleted: FrozenDeletedOffsets): AsyncGenerator<arrow.RecordBatch> {
  for await (const b of segments) {
    const n = b.numRows;
    if (n === 0) continue;
    const o = b.data.children[0];
    const keep = survivingRows(columnValues<BigInt64Array>(o), deleted);
    if (keep === null) yield b;
    else if (keep.length > 0) yield takeRows(b, keep);
  }
}

/** The write mode of a validated real-time table. */
export function realtimeWriteMode(table: FileStoreTable, mode: RealtimeStoreMode, lookupCache: () => DedupLookupCache): RealtimeWriteMode {
  if (mode === "DEDUPLICATE") return new DedupWriteMode(table, lookupCache);
  if (mode === "PRIMARY_KEY") return new PrimaryKeyWriteMode(table);
  if (mode === "APPEND_ONLY") return new AppendWriteMode(table);
  throw new PaimonError("UNSUPPORTED", `real-time ${mode} mode is not supported (table ${table.identifier})`);
}
