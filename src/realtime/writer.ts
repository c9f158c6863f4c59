// The real-time writer (seed "API Lifecycle"): validates `[_REALTIME_OFFSET, table fields…]`
// batches with typed-array loops, publishes them to the context's per-partition-bucket stores
// (visible to the next plan at once), seals (optionally spilling), prepares sealed segments
// into table files with their offset ranges, refreshes committed progress, and refuses to close
// with unprepared data. Mode-specific parts (write-modes.ts: append, primary key) are the
// stored layout and how prepared segments become files.
import { cleanDeadSpillFiles } from "./spill.js";
import * as arrow from "apache-arrow";
import { inputBatches } from "../arrow/input.js";
import { decodeDictionary } from "../arrow/take.js";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import { convertData, readArrowField } from "../format/arrow-types.js";
import { fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import type { DataField } from "../spec/types.js";
import { writablePartitionPath } from "../table/paths.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { checkDecimalInput, checkWriteOptions, TableWrite, type TableWriteOptions, type WriteTarget } from "../write/table-write.js";
import { RealtimeContext, type EntryIdentity, type StoreEntry } from "./context.js";
import { tablePartitionStrings } from "./offsets.js";
import { validateRealtimeTable, type RealtimeOptions } from "./options.js";
import type { RealtimeStoreCreateRequest } from "./store.js";
import { INT64_MAX, partitionBucketKey, REALTIME_OFFSET_FIELD, type OffsetRange, type RealtimeCommitProgress } from "./types.js";
import { recordBatch } from "../arrow/record-batch.js";
import { realtimeWriteMode, type RealtimeWriteMode } from "./write-modes.js";
import { sortPrimaryKeyBatch } from "./pk-batch.js";
import { DedupEntryState } from "./dedup.js";
import type { FrozenDeletedOffsets } from "./dedup-key-index.js";

export { REALTIME_OFFSET_DATA_FIELD, REALTIME_OFFSET_FIELD_ID } from "./write-modes.js";

function offsetError(message: string): PaimonError {
  return new PaimonError("OFFSET_INVALID", message);
}

/**
 * Validates the offset column of one batch against the next allowed offset: non-null, non-negative,
 * strictly increasing, not INT64_MAX. Returns the batch's envelope [first, last + 1).
 */
export function validateOffsets(column: arrow.Data, next: bigint, where: string): OffsetRange {
  const n = column.length;
  if (column.nullCount > 0) throw offsetError(`real-time write offset column contains null (${where})`);
  const values = column.values as unknown as BigInt64Array;
  const first = values[0];
  if (first < 0n) throw offsetError(`real-time write offset ${first} is negative (${where})`);
  if (first < next) throw offsetError(`real-time write offset moved backwards or was duplicated: ${first} < next allowed ${next} (${where})`);
  const words = new Int32Array(values.buffer, values.byteOffset, n * 2);
  let ph = words[1];
  let pl = words[0] >>> 0;
  for (let i = 1; i < n; i++) {
    const h = words[2 * i + 1];
    const l = words[2 * i] >>> 0;
    if (h < ph || (h === ph && l <= pl)) throw offsetError(`real-time write offsets must be strictly increasing: row ${i} has ${values[i]} after ${values[i - 1]} (${where})`);
    ph = h;
    pl = l;
  }
  const last = values[n - 1];
  if (last === INT64_MAX) throw offsetError(`real-time offset range exceeds INT64_MAX (${where})`);
  return { begin: first, end: last + 1n };
}

/** Creates the real-time writer for `Table.newWrite({ realtime })`. */
export async function newRealtimeWrite(table: FileStoreTable, options: TableWriteOptions): Promise<TableWrite> {
  const ctx = options.realtime;
  if (!(ctx instanceof RealtimeContext)) throw new PaimonError("INVALID_ARGUMENT", "newWrite: realtime must be a RealtimeContext (RealtimeContext.create())");
  checkWriteOptions(table.schema, table.identifier, table.coreOptions); // before the mode's own checks: Java writes these tables differently
  const o = table.schema.options;
  const rowKindField = o["rowkind.field"];
  if (rowKindField !== undefined) throw new PaimonError("UNSUPPORTED", `real-time writes to ${table.identifier} with rowkind.field=${rowKindField} are not supported (real-time writers take target.rowKinds; write through an ordinary writer)`);
  if (table.schema.primaryKeys.length > 0 && o["record-level.expire-time"] !== undefined) {
    throw new PaimonError("UNSUPPORTED", `real-time writes to ${table.identifier} with record-level.expire-time=${o["record-level.expire-time"]} are not supported (write through an ordinary writer)`);
  }
  const { mode, options: rt } = validateRealtimeTable(table, "real-time write");
  if (rt.spillEnabled && (typeof options.tempDirectory !== "string" || options.tempDirectory.trim() === "")) {
    throw new PaimonError("INVALID_ARGUMENT", `realtime.spill-enabled requires a non-empty temporary directory (newWrite tempDirectory) for ${table.identifier}`);
  }
  ctx.checkValid();
  ctx.bind(table);
  // Spill files of processes that died on this directory are never read again: remove them.
  if (rt.spillEnabled) await cleanDeadSpillFiles(options.tempDirectory!);
  return new RealtimeTableWrite(table, options, ctx, rt, realtimeWriteMode(table, mode, () => ctx.dedupLookupCache(table)));
}

let dedupWriteFastPath = true;

/** Tests: turn the synchronous deduplicate write path off (false) to compare it with the path under the lock. */
export function setDedupWriteFastPath(enabled: boolean): void {
  dedupWriteFastPath = enabled;
}

/** Tests: how many deduplicate writes took the synchronous path. */
export const dedupWriteCounters = { now: 0 };

const partitionKeyJson = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x instanceof Date ? `D${x.toISOString()}` : x instanceof Uint8Array ? Array.from(x) : x));

/**
 * The real-time writer of every mode: one lifecycle (offsets, publish, seal, spill, prepare with
 * progress, refresh, close) around a mode (write-modes.ts) that decides the stored layout and
 * how prepared segments become files.
 */
export class RealtimeTableWrite extends TableWrite {
  readonly context: RealtimeContext;
  private readonly rt: RealtimeOptions;
  private readonly rtTable: FileStoreTable;
  private readonly rtPartitionFields: DataField[];
  private readonly buckets: number;
  /** Canonical Arrow fields of the input layout (the mode's `inputFields`). */
  private readonly inputArrowFields: arrow.Field[];
  /** Layout of input batches: `[_REALTIME_OFFSET, table fields…]`, or the table fields in DEDUPLICATE mode. */
  private readonly writeSchema: arrow.Schema;
  private readonly touched = new Set<StoreEntry>();
  /** Resolved targets: by bucket (no partition given) or `bucket|partition JSON`. */
  private readonly identities = new Map<string | number, EntryIdentity>();
  private readonly schemaChecks = new WeakMap<arrow.Schema, boolean>();
  private rtClosed = false;

  constructor(
    table: FileStoreTable,
    options: TableWriteOptions,
    ctx: RealtimeContext,
    rt: RealtimeOptions,
    private readonly mode: RealtimeWriteMode,
  ) {
    super(table, options);
    this.rtTable = table;
    this.context = ctx;
    this.rt = rt;
    this.rtPartitionFields = table.partitionFields;
    this.buckets = table.coreOptions.bucket;
    this.inputArrowFields = mode.inputFields.map((f) => readArrowField(f));
    this.writeSchema = new arrow.Schema(this.inputArrowFields);
  }

  private checkUsable(): void {
    if (this.rtClosed) throw new PaimonError("INVALID_ARGUMENT", `this real-time TableWrite of ${this.rtTable.identifier} is closed`);
    this.context.checkValid();
  }

  private identity(target: WriteTarget): EntryIdentity {
    const bucket = target.bucket;
    if (bucket === undefined || bucket === null) throw new PaimonError("INVALID_ARGUMENT", `real-time writes to ${this.rtTable.identifier} need target.bucket (fixed bucket mode, bucket = ${this.buckets})`);
    if (!Number.isInteger(bucket) || bucket < 0 || bucket >= this.buckets) throw new PaimonError("INVALID_ARGUMENT", `bucket ${bucket} is out of range for table ${this.rtTable.identifier} (bucket = ${this.buckets})`);
    // (no partition given, the usual target of an unpartitioned table: no JSON per write)
    const cacheKey = target.partition === undefined ? bucket : `${bucket}|${partitionKeyJson(target.partition)}`;
    const cached = this.identities.get(cacheKey);
    if (cached) return cached;
    const keys = this.rtTable.schema.partitionKeys;
    const given = target.partition ?? {};
    const unknown = Object.keys(given).filter((k) => !keys.includes(k));
    if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `unknown partition column(s) ${unknown.join(", ")} for table ${this.rtTable.identifier} (partition keys: ${keys.join(", ") || "none"})`);
    const missing = keys.filter((k) => !(k in given));
    if (missing.length > 0) throw new PaimonError("INVALID_ARGUMENT", `real-time writes to ${this.rtTable.identifier} need target.partition with ${missing.join(", ")}`);
    const types = this.rtPartitionFields.map((f) => f.type);
    let row: Uint8Array;
    try {
      row = toBinaryRow(this.rtPartitionFields.map((f) => given[f.name]), types);
    } catch (e) {
      throw new PaimonError("INVALID_ARGUMENT", `partition ${partitionKeyJson(given)} of ${this.rtTable.identifier}: ${(e as Error).message}`);
    }
    const internal = fromBinaryRow(row, types);
    const opts = this.rtTable.coreOptions;
    writablePartitionPath(this.rtPartitionFields, internal, opts.partitionDefaultName, opts.partitionLegacyName); // refuses directory names no file system takes
    const partition = tablePartitionStrings(this.rtTable, internal);
    const id: EntryIdentity = {
      key: partitionBucketKey(keys, partition, bucket),
      partition,
      partitionValues: Object.fromEntries(this.rtPartitionFields.map((f, i) => [f.name, internal[i]])),
      internalValues: internal,
      partitionRow: serializeBinaryRow(row, types.length),
      bucket,
    };
    if (this.identities.size > 4096) this.identities.clear();
    this.identities.set(cacheKey, id);
    return id;
  }

  /** The batch in the input layout, under the writer schema, with canonical column types. */
  private rtNormalize(batch: arrow.RecordBatch): arrow.RecordBatch {
    const fields = batch.schema.fields;
    const table = this.rtTable;
    const at = this.mode.inputOffsetColumn;
    const expected = this.mode.inputFields;
    if (fields.length <= at || fields[at].name !== REALTIME_OFFSET_FIELD) {
      const where = at === 0 ? "as its first column" : `as column ${at} (the table's declared position)`;
      throw offsetError(`real-time write batch must contain int64 ${REALTIME_OFFSET_FIELD} ${where} (table ${table.identifier}; got ${fields.map((f) => f.name).join(", ")})`);
    }
    const ot = fields[at].type as arrow.Int;
    if (ot.typeId !== arrow.Type.Int || ot.bitWidth !== 64 || !ot.isSigned) throw offsetError(`real-time write batch must contain int64 ${REALTIME_OFFSET_FIELD}, got ${String(ot)} (table ${table.identifier})`);
    let canonical = this.schemaChecks.get(batch.schema);
    if (canonical === undefined) {
      if (fields.length !== expected.length || expected.some((f, i) => fields[i].name !== f.name)) {
        throw new PaimonError("INVALID_ARGUMENT", `real-time write batch for ${table.identifier} must be laid out [${expected.map((f) => f.name).join(", ")}], got [${fields.map((f) => f.name).join(", ")}]`);
      }
      // Nested columns always take the table's own types: their children carry the field ids
      // files are written and read by, which a caller-built type need not have.
      canonical = expected.every((_, i) => i === at || (fields[i].type.children?.length ?? 0) === 0 && arrow.util.compareTypes(fields[i].type, this.inputArrowFields[i].type));
      this.schemaChecks.set(batch.schema, canonical);
    }
    const children = batch.data.children;
    // Re-wrapped under the writer's schema even when canonical: the store keeps the batch for
    // its lifetime, and the caller's Schema/Field objects need not live that long.
    let out = recordBatch(this.writeSchema, children, batch.numRows);
    if (!canonical) {
      const converted = expected.map((f, i) => {
        const column = children[i];
        if (i === at) return column;
        try {
          return convertData(column.type.typeId === arrow.Type.Dictionary ? decodeDictionary(column) : column, this.inputArrowFields[i].type, f.name, "name");
        } catch (e) {
          throw new PaimonError("INVALID_ARGUMENT", `column ${f.name} of table ${table.identifier}: ${(e as Error).message}`);
        }
      });
      out = recordBatch(this.writeSchema, converted, batch.numRows);
    }
    for (let i = 0; i < expected.length; i++) {
      // offsets get their own check (OFFSET_INVALID)
      if (i !== at && !expected[i].type.nullable && out.data.children[i].nullCount > 0) {
        throw new PaimonError("INVALID_ARGUMENT", `column ${expected[i].name} of table ${table.identifier} is NOT NULL but the batch has ${out.data.children[i].nullCount} null value(s)`);
      }
      if (i !== at) checkDecimalInput(out.data.children[i], expected[i], table.identifier);
    }
    return out;
  }

  private storeRequest(description: string): RealtimeStoreCreateRequest {
    const keys = this.mode.keyColumnIndexes;
    const storeMode = this.mode.storeMode;
    return {
      writeSchema: this.mode.storeSchema,
      writeFields: this.mode.storeFields,
      keyColumnIndexes: keys,
      sortPrimaryKeyBatch: (batch) => {
        if (storeMode !== "PRIMARY_KEY") throw new PaimonError("UNSUPPORTED", `the real-time ${storeMode} store of ${description} has no primary key to sort by`);
        return sortPrimaryKeyBatch(batch, keys);
      },
      options: this.rtTable.options,
      mode: this.mode.storeMode,
      statisticsMode: this.rt.statsMode,
      spillEnabled: this.rt.spillEnabled,
      tempDirectory: this.options.tempDirectory ?? "",
      spillCompression: this.rt.spillCompression,
      spillZstdLevel: this.rt.spillZstdLevel,
      description,
    };
  }

  /**
   * Publishes rows to the partition-bucket's building segment: visible to the next plan at once.
   * Bad input (offsets, layout, row kinds, target) changes nothing.
   */
  override async write(data: arrow.RecordBatch | arrow.Table, target: WriteTarget = {}): Promise<void> {
    this.checkUsable();
    const table = this.rtTable;
    const input = inputBatches(data, "write");
    this.mode.checkRowKinds(target.rowKinds, input.reduce((n, b) => n + b.numRows, 0));
    const normalized: arrow.RecordBatch[] = [];
    /** Row of the whole write each normalized batch starts at (row kinds are per write). */
    const kindOffsets: number[] = [];
    let row = 0;
    for (const b of input) {
      if (b.numRows > 0) {
        normalized.push(this.rtNormalize(b));
        kindOffsets.push(row);
      }
      row += b.numRows;
    }
    const id = this.identity(target);
    if (normalized.length === 0) return;
    let entry = this.context.entry(id.key);
    if (entry === undefined) {
      await this.checkPartitionTimestamp(id.internalValues); // as Java, before a partition-bucket's writer exists
      entry = await this.context.getOrCreateEntry(table, id, (d) => this.storeRequest(d));
    }
    this.checkUsable();
    if (this.mode.storeMode === "DEDUPLICATE") {
      const dedup = (entry.dedup ??= new DedupEntryState());
      // Key-index changes and the store writes they belong to are one step for views and prepares:
      // done at once when no step runs or waits and nothing has to load (the usual small write),
      // else under the lock.
      const now = dedup.lock.idle && dedupWriteFastPath ? this.publishNow(entry, normalized, target.rowKinds, kindOffsets) : undefined;
      if (now === undefined) await dedup.lock.run(() => this.publish(entry, normalized, target.rowKinds, kindOffsets));
      else if (now !== null) await dedup.lock.run(() => now); // (a store that writes asynchronously: the rest under the lock)
    } else await this.publish(entry, normalized, target.rowKinds, kindOffsets);
  }

  /** Validates every batch's offsets (changing nothing on failure): their ranges, and the offset after them. */
  private offsetRanges(entry: StoreEntry, normalized: readonly arrow.RecordBatch[]): { ranges: OffsetRange[]; next: bigint } {
    this.checkUsable();
    let next = entry.nextOffset;
    const ranges: OffsetRange[] = [];
    const at = this.mode.inputOffsetColumn;
    for (const b of normalized) {
      const r = validateOffsets(b.data.children[at], next, entry.description);
      ranges.push(r);
      next = r.end;
    }
    return { ranges, next };
  }

  /** Validates every batch's offsets (changing nothing on failure), then stores the batches. */
  private async publish(entry: StoreEntry, normalized: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): Promise<void> {
    const { ranges, next } = this.offsetRanges(entry, normalized);
    const stored = await this.mode.toStored(entry, normalized, kinds, kindOffsets);
    await this.store(entry, stored, ranges, next);
  }

  /**
   * DEDUPLICATE `publish` at once (the mode's toStoredNow): undefined, with nothing changed, when
   * it would wait; else null when done, or the promise of a store still writing.
   */
  private publishNow(entry: StoreEntry, normalized: readonly arrow.RecordBatch[], kinds: ArrayLike<number> | undefined, kindOffsets: readonly number[]): Promise<void> | null | undefined {
    const { ranges, next } = this.offsetRanges(entry, normalized);
    const stored = this.mode.toStoredNow!(entry, normalized, kinds, kindOffsets);
    if (stored === undefined) return undefined;
    dedupWriteCounters.now++;
    return this.store(entry, stored, ranges, next) ?? null;
  }

  /** Hands validated stored batches to the store; a promise only while a store writes asynchronously. */
  private store(entry: StoreEntry, stored: readonly arrow.RecordBatch[], ranges: readonly OffsetRange[], next: bigint): Promise<void> | undefined {
    entry.nextOffset = next;
    this.touched.add(entry);
    for (let i = 0; i < stored.length; i++) {
      let p: Promise<void> | void;
      try {
        p = entry.store.write({ batch: stored[i], offsetRange: ranges[i] });
      } catch (e) {
        throw this.writeFailed(entry, e);
      }
      if (p !== undefined) return this.storeRest(entry, stored, ranges, i, p);
    }
    return undefined;
  }

  /** `store` from batch `i` on, whose write `pending` is under way. */
  private async storeRest(entry: StoreEntry, stored: readonly arrow.RecordBatch[], ranges: readonly OffsetRange[], i: number, pending: Promise<void>): Promise<void> {
    try {
      await pending;
      for (let j = i + 1; j < stored.length; j++) {
        const p = entry.store.write({ batch: stored[j], offsetRange: ranges[j] });
        if (p !== undefined) await p;
      }
    } catch (e) {
      throw this.writeFailed(entry, e);
    }
  }

  private writeFailed(entry: StoreEntry, e: unknown): PaimonError {
    return this.context.invalidate(`write to ${entry.description} failed: ${(e as Error).message}`, e);
  }

  /** Freezes the building data of this writer's partition-buckets; spills when realtime.spill-enabled. */
  override async seal(): Promise<void> {
    this.checkUsable();
    await this.context.lifecycle.run(async () => {
      this.checkUsable();
      for (const entry of this.touched) {
        let handle;
        try {
          handle = await entry.store.freeze();
        } catch (e) {
          throw this.context.invalidate(`seal of ${entry.description} failed: ${(e as Error).message}`, e);
        }
        if (!handle) continue;
        entry.unprepared.push(handle);
        if (this.rt.spillEnabled && entry.store.spill) {
          try {
            await entry.store.spill(handle);
          } catch (e) {
            throw this.context.invalidate(`spill of ${entry.description} failed (the segment stays in memory): ${(e as Error).message}`, e);
          }
        }
      }
    });
  }

  override async prepareCommit(_commitIdentifier?: bigint | number): Promise<CommitMessage[]> {
    throw new PaimonError("INVALID_ARGUMENT", `real-time writer of ${this.rtTable.identifier} must use prepareCommitWithProgress to preserve offset ranges`);
  }

  /**
   * Freezes the building data (no spill) and writes every sealed segment through the ordinary
   * append writer: one progress entry per partition-bucket with new data. Publishes nothing.
   */
  override async prepareCommitWithProgress(commitIdentifier: bigint | number): Promise<RealtimeCommitProgress[]> {
    this.checkUsable();
    if (typeof commitIdentifier !== "bigint" && !Number.isSafeInteger(commitIdentifier)) throw new PaimonError("INVALID_ARGUMENT", `commit identifier ${String(commitIdentifier)} is not an integer`);
    return this.context.lifecycle.run(async () => {
      this.checkUsable();
      const out: RealtimeCommitProgress[] = [];
      const done: Array<[StoreEntry, bigint, FrozenDeletedOffsets | null]> = [];
      for (const entry of this.touched) {
        try {
          // DEDUPLICATE: the data and the deletions it is written against are frozen together.
          const { value: handle, deleted } = entry.dedup ? await entry.dedup.withFrozenDeletions(() => entry.store.freeze()) : { value: await entry.store.freeze(), deleted: null };
          if (handle) entry.unprepared.push(handle);
          if (entry.unprepared.length === 0) continue;
          const store = entry.store;
          const segs = entry.unprepared;
          const files = await this.mode.prepare(
            entry,
            (async function* () {
              for (const seg of segs) yield* store.createCommitReader(seg);
            })(),
            deleted,
          );
          const begin = entry.preparedEnd !== null && entry.preparedEnd < segs[0].offsetRange.begin ? entry.preparedEnd : segs[0].offsetRange.begin;
          const end = segs[segs.length - 1].offsetRange.end;
          const message = new CommitMessage(
            makeCommitMessage({ partition: entry.partitionRow, bucket: entry.bucket, totalBuckets: this.buckets, dataIncrement: files.dataIncrement, compactIncrement: files.compactIncrement }),
            entry.partitionValues,
          );
          const progress: RealtimeCommitProgress = { commitMessage: message, partition: { ...entry.partition }, bucket: entry.bucket, offsetRange: { begin, end } };
          if (deleted !== null) progress.deletedOffsets = deleted.offsets;
          out.push(progress);
          done.push([entry, end, deleted]);
        } catch (e) {
          throw this.context.invalidate(`prepare of ${entry.description} failed: ${(e as Error).message}`, e);
        }
      }
      for (const [entry, end, deleted] of done) {
        entry.preparedEnd = end;
        entry.unprepared = [];
        if (deleted) entry.dedup!.prepareDone(end, deleted);
      }
      return out;
    });
  }

  override async compact(_options?: { partition?: Record<string, unknown>; bucket?: number; full?: boolean }): Promise<void> {
    throw new PaimonError("UNSUPPORTED", `real-time write of ${this.rtTable.identifier} does not support explicit compaction; use a separate ordinary writer`);
  }

  /** Loads a committed snapshot's progress and reclaims fully covered sealed segments. */
  override async refreshCommittedSnapshot(snapshotId: number): Promise<void> {
    this.checkUsable();
    await this.context.lifecycle.run(() => this.context.refresh(this.rtTable, snapshotId));
  }

  /** Closes the writer; with data not covered by a successful prepare it fails and invalidates the context. */
  override async close(): Promise<void> {
    if (this.rtClosed) return;
    await this.context.lifecycle.run(async () => {
      if (this.rtClosed) return;
      this.rtClosed = true;
      await super.close();
      if (this.context.invalidatedReason !== null) return;
      // Offsets written past the prepared end: rows, or (DEDUPLICATE) deletes that store no row.
      const pending = [...this.touched].filter((e) => e.unprepared.length > 0 || e.store.getDataUsage().buildingRowCount > 0 || e.preparedEnd === null || e.nextOffset > e.preparedEnd);
      if (pending.length > 0) {
        throw this.context.invalidate(`writer closed with data not covered by a successful prepareCommitWithProgress (${pending.map((e) => e.description).join("; ")})`);
      }
    });
  }
}
