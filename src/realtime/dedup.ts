// The framework state of the real-time append-deduplicate mode (seed 000 "Append Deduplicate /
// Offset DV"): per partition-bucket a key index (key -> latest offset, over committed files and
// memory) and the offsets superseded since the last commit. Reads pin a frozen copy of those
// offsets with their memory view; prepares freeze them with the data they write; commits resolve
// them to row positions of the latest snapshot's files through the exact offset file index on
// every attempt; a refresh forgets what a commit made durable.
import { Mutex } from "./mutex.js";
import type { RealtimeReadView, RealtimeStore } from "./store.js";
import { deletionVectorResolver, type BucketDeletions } from "../commit/append-deletions.js";
import { PaimonError } from "../error.js";
import { OffsetSet64 } from "../kernel/bitmap.js";
import { pendingOffsetPositions, type OffsetFileSource } from "../read/offset-positions.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataField } from "../spec/types.js";
import { checkDeduplicateTable } from "../table/dedup-check.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { CommittedKeys, type DedupLookupCache } from "./dedup-lookup.js";
import { DedupKeyIndex, keyIdentityWidth, type FrozenDeletedOffsets } from "./dedup-key-index.js";

/** The key field and the persisted offset field of a deduplicate table. */
export function dedupFieldsOf(table: FileStoreTable): { keyField: DataField; offsetField: DataField } {
  // checked once per schema (immutable): every deduplicate key lookup's read asks
  let layout = dedupLayouts.get(table.schema) ?? null;
  if (layout !== null) return layout;
  layout = checkDeduplicateTable(table.schema, table.identifier);
  if (!layout) throw new PaimonError("INVALID_ARGUMENT", `table ${table.identifier} is not an append deduplicate table`);
  dedupLayouts.set(table.schema, Object.freeze(layout));
  return layout;
}

const dedupLayouts = new WeakMap<TableSchema, Readonly<{ keyField: DataField; offsetField: DataField }>>();

/** Where one partition-bucket's data files are, and the schema each was written with. */
export function bucketFileSource(table: FileStoreTable, bucketDir: string): OffsetFileSource {
  const schemas = new Map<number, Promise<readonly DataField[]>>();
  return {
    io: table.fileIO,
    pathOf: (file: DataFileMeta) => table.paths.dataFile(bucketDir, file),
    fieldsOf: (schemaId) => {
      const id = Number(schemaId);
      let fields = schemas.get(id);
      if (!fields) schemas.set(id, (fields = id === table.schema.id ? Promise.resolve(table.schema.fields) : table.schemaManager.schema(id).then((s) => s.fields)));
      return fields;
    },
  };
}

/** A prepare's frozen deletions, kept until a refresh shows its range committed. */
interface PreparedDeletions {
  end: bigint;
  deleted: FrozenDeletedOffsets;
}

/** One partition-bucket's deduplicate state (on the context's StoreEntry: writer hand-off keeps it). */
export class DedupEntryState {
  /** Serialises key-index changes with the store writes they belong to, and views with the deletions they pin. */
  readonly lock = new Mutex();
  private index: DedupKeyIndex | null = null;
  /** `index` and `committed` together (null before the first `keys`). */
  private current: { index: DedupKeyIndex; committed: CommittedKeys } | null = null;
  private readonly prepared: PreparedDeletions[] = [];

  /**
   * The key index (keys written since the committed-key lookup's snapshot) and that lookup, at
   * `snapshotId` (the entry's base snapshot, whose committed offset is `committedEnd`). Called
   * with the lock held, at each write: when a refresh moved the base snapshot, the lookup moves
   * to the new snapshot's files and the index forgets the keys those files now hold, in one step.
   */
  async keys(table: FileStoreTable, partitionRow: Uint8Array, bucket: number, snapshotId: number | null, committedEnd: bigint | null, cache: DedupLookupCache): Promise<{ index: DedupKeyIndex; committed: CommittedKeys }> {
    const current = this.keysAt(snapshotId);
    if (current !== null) return current;
    const { keyField, offsetField } = dedupFieldsOf(table);
    let files: DataFileMeta[] = [];
    if (snapshotId !== null) {
      const snapshot = await table.snapshot(snapshotId);
      const key = partitionRow.join(",");
      files = (await table.manifestStore.liveEntries(snapshot, undefined, (e) => e.bucket === bucket && e.partition.join(",") === key)).map((e) => e.file);
    }
    const dir = table.paths.bucketDirOf(partitionRow, bucket);
    const source = { ...bucketFileSource(table, dir), extraPathOf: (file: DataFileMeta, extra: string) => table.paths.extraFile(dir, file, extra) };
    const width = keyIdentityWidth(keyField.type);
    const committed = new CommittedKeys(snapshotId, files, source, keyField, offsetField, width, cache);
    if (!this.index) this.index = new DedupKeyIndex(width);
    else if (committedEnd !== null) this.index.dropCommitted(committedEnd);
    this.current = { index: this.index, committed };
    return this.current;
  }

  /** What `keys` returns when the lookup is at `snapshotId` already (no await: every write asks), else null. */
  keysAt(snapshotId: number | null): { index: DedupKeyIndex; committed: CommittedKeys } | null {
    const current = this.current;
    return current !== null && current.committed.snapshotId === snapshotId ? current : null;
  }

  /** The key index (null before the first write of this context). */
  get loadedKeys(): DedupKeyIndex | null {
    return this.index;
  }

  /** Offsets superseded since the last commit, frozen (none before the first write); `releasable`: see DedupKeyIndex.freezeDeleted. */
  freezeDeleted(releasable = false): FrozenDeletedOffsets | null {
    return this.index ? this.index.freezeDeleted(releasable) : null;
  }

  /**
   * Runs `step` (a store freeze or view acquisition) with no write in between, and freezes the
   * pending deletions at the same point: the data and the deletions that apply to it.
   * `releasable`: the caller releases the deletions when done with them (read views).
   */
  /**
   * `withFrozenDeletions(() => store.acquireReadView(), true)`, answered without a promise when
   * the lock is idle and the store answers at once (the Arrow store: every plan asks).
   */
  viewWithFrozenDeletions(store: RealtimeStore): { value: RealtimeReadView; deleted: FrozenDeletedOffsets | null } | Promise<{ value: RealtimeReadView; deleted: FrozenDeletedOffsets | null }> {
    if (!this.lock.idle) return this.withFrozenDeletions(() => store.acquireReadView(), true);
    const view = store.acquireReadView();
    if (typeof (view as { then?: unknown }).then !== "function") return { value: view as RealtimeReadView, deleted: this.freezeDeleted(true) };
    // (asked while idle: the lock is taken before anything else can run)
    return this.lock.run(async () => ({ value: await view, deleted: this.freezeDeleted(true) }));
  }

  withFrozenDeletions<T>(step: () => T | Promise<T>, releasable = false): Promise<{ value: T; deleted: FrozenDeletedOffsets | null }> {
    return this.lock.run(async () => {
      const value = await step();
      return { value, deleted: this.freezeDeleted(releasable) };
    });
  }

  /** Remembers what a successful prepare of offsets below `end` froze. */
  prepareDone(end: bigint, deleted: FrozenDeletedOffsets): void {
    this.prepared.push({ end, deleted });
  }

  /**
   * Committed progress reached `end`: deletions frozen by prepares up to there are durable in
   * deletion vectors now. Frozen sets only grow between commits, so the last covered one holds
   * every earlier one.
   */
  committedThrough(end: bigint): void {
    let last: PreparedDeletions | null = null;
    while (this.prepared.length > 0 && this.prepared[0].end <= end) last = this.prepared.shift()!;
    if (last && this.index) this.index.committed(last.deleted);
  }

  /**
   * Key-map and pending-deletion bytes (the seed's deduplicate memory accounting): keys written
   * since the lookup's snapshot; the lookup cache is not store memory (DedupLookupCache.memoryBytes).
   */
  get memoryBytes(): number {
    if (!this.index) return 0;
    return this.index.keyMemoryBytes + this.index.deletedMemoryBytes;
  }
}

/** Deleted offsets of one partition-bucket to resolve at commit. */
export interface PendingBucketDeletions {
  partitionRow: Uint8Array;
  bucket: number;
  offsets: OffsetSet64;
  newFiles: readonly DataFileMeta[];
}

/**
 * The commit hook that resolves pending deleted offsets to row positions in the latest
 * snapshot's files plus the commit's new files (exact offset index) and merges them into the
 * buckets' deletion vectors; run again on every attempt, so a concurrent compaction's output
 * receives the deletions of the rows it moved.
 */
export function dedupDeletionResolver(table: FileStoreTable, pending: readonly PendingBucketDeletions[]) {
  const { offsetField } = dedupFieldsOf(table);
  const deletions: BucketDeletions[] = pending.map((p) => {
    const source = bucketFileSource(table, table.paths.bucketDirOf(p.partitionRow, p.bucket));
    return { partition: p.partitionRow, bucket: p.bucket, newFiles: p.newFiles, resolve: (files) => pendingOffsetPositions(source, files, offsetField, p.offsets) };
  });
  return deletionVectorResolver({ io: table.fileIO, paths: table.paths, manifests: table.manifestStore, bitmap64: false, fixedBucket: true }, deletions);
}
