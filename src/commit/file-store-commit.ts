// The commit protocol (format reference §10): turn file changes into manifests and a new
// snapshot, publish it atomically, retry when another writer took the snapshot id, and
// never commit a (commitUser, commitIdentifier) twice.
import { PaimonError } from "../error.js";
import { type FileIO, randomId } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import {
  type DataFileMeta,
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
  type IndexFileMeta,
  type IndexManifestEntry,
  type ManifestEntry,
} from "../spec/manifest.js";
import type { CommitMessageData } from "../spec/commit-message.js";
import type { TableSchema } from "../spec/schema.js";
import { BATCH_COMMIT_IDENTIFIER, type CommitKind, makeSnapshot, type Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { ManifestStore } from "../table/manifests.js";
import { TableOptions } from "../table/options.js";
import { TablePaths } from "../table/paths.js";
import { SchemaManager } from "../table/schema-manager.js";
import { SnapshotManager } from "../table/snapshot-manager.js";
import { checkIndexConflicts, checkLsmConflicts } from "./pk-conflicts.js";

export interface CommitOptions {
  watermark?: bigint | null;
  /**
   * Snapshot properties to set; the latest snapshot's properties are carried forward. A function
   * is called on every attempt with the snapshot the attempt builds on (real-time progress hook).
   */
  properties?: Record<string, string> | ((latest: Snapshot | null) => Promise<Record<string, string>>);
  /** Create a snapshot even when there are no file changes (progress-only commits). */
  force?: boolean;
  /** Check appended files against the latest state (recovery paths), as Java's filterAndCommit. */
  checkAppendConflicts?: boolean;
}

/** Partitions to replace in an overwrite: a predicate over partition values (by key name). */
export type PartitionFilter = (partition: Record<string, unknown>) => boolean;

interface PreparedCommit {
  kind: CommitKind;
  entries: ManifestEntry[];
  indexChanges: IndexManifestEntry[];
  overwrite?: PartitionFilter;
  conflictCheck: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FileStoreCommit {
  readonly snapshots: SnapshotManager;
  readonly schemas: SchemaManager;
  readonly manifests: ManifestStore;
  readonly options: TableOptions;
  private readonly partitionFields: DataField[];

  constructor(
    readonly io: FileIO,
    readonly root: string,
    readonly schema: TableSchema,
    readonly commitUser: string,
  ) {
    this.options = new TableOptions(schema.options);
    this.snapshots = new SnapshotManager(io, root);
    this.schemas = new SchemaManager(io, root);
    this.partitionFields = schema.partitionKeys.map((k) => schema.fields.find((f) => f.name === k)!);
    this.manifests = new ManifestStore(io, new TablePaths(root, this.options.externalPaths), this.partitionFields, this.options.manifestCompression);
  }

  /** Partition values (by key name) of a serialized partition row. */
  partitionValues(partition: Uint8Array): Record<string, unknown> {
    const values = fromBinaryRow(
      partition.subarray(4),
      this.partitionFields.map((f) => f.type),
    );
    return Object.fromEntries(this.partitionFields.map((f, i) => [f.name, values[i]]));
  }

  /**
   * The snapshot that already holds `identifier` of this commit user, if any: Java's
   * recovery filter (`identifier <= latest identifier of the user` is committed). Undefined
   * when the identifier is new; null when it was committed but is not the user's latest.
   */
  async alreadyCommitted(identifier: bigint): Promise<Snapshot | null | undefined> {
    // Batch commits (no identifier given) are one-shot: nothing to deduplicate against.
    if (identifier === BATCH_COMMIT_IDENTIFIER) return undefined;
    const latest = await this.snapshots.latestSnapshotOfUser(this.commitUser);
    if (latest === null || latest.commitIdentifier < identifier) return undefined;
    return latest.commitIdentifier === identifier ? latest : null;
  }

  /**
   * Commits changes: an APPEND (or OVERWRITE when files are deleted) snapshot for new
   * files, then a COMPACT snapshot for compaction results. Returns the last snapshot id,
   * or null when nothing was committed (no changes, or the identifier was committed before
   * without a snapshot to name).
   */
  async commit(changes: readonly CommitMessageData[], identifier: bigint, options: CommitOptions = {}): Promise<number | null> {
    const done = await this.alreadyCommitted(identifier);
    if (done !== undefined) return done?.id ?? null;
    const { append, compact } = this.prepare(changes, options);
    let id: number | null = null;
    if (append.entries.length > 0 || append.indexChanges.length > 0 || (options.force && compact.entries.length === 0)) {
      id = await this.tryCommit(append, identifier, options);
    }
    if (compact.entries.length > 0 || compact.indexChanges.length > 0) {
      id = await this.tryCommit(compact, identifier, { ...options, watermark: null });
    }
    return id;
  }

  /**
   * Replaces the live files of the partitions `filter` accepts (all partitions when it is
   * null) with the new files of `changes`, as one OVERWRITE snapshot.
   */
  async overwrite(changes: readonly CommitMessageData[], filter: PartitionFilter | null, identifier: bigint, options: CommitOptions = {}): Promise<number | null> {
    const done = await this.alreadyCommitted(identifier);
    if (done !== undefined) return done?.id ?? null;
    const { append } = this.prepare(changes, options);
    return this.tryCommit({ ...append, kind: "OVERWRITE", overwrite: filter ?? (() => true), conflictCheck: true }, identifier, options);
  }

  private prepare(changes: readonly CommitMessageData[], options: CommitOptions): { append: PreparedCommit; compact: PreparedCommit } {
    const entry = (kind: 0 | 1, c: CommitMessageData, file: DataFileMeta): ManifestEntry => ({
      kind,
      partition: c.partition,
      bucket: c.bucket,
      totalBuckets: c.totalBuckets ?? this.options.bucket,
      file,
    });
    const index = (kind: 0 | 1, c: CommitMessageData, indexFile: IndexFileMeta): IndexManifestEntry => ({ kind, partition: c.partition, bucket: c.bucket, indexFile });
    const append: PreparedCommit = { kind: "APPEND", entries: [], indexChanges: [], conflictCheck: options.checkAppendConflicts ?? false };
    const compact: PreparedCommit = { kind: "COMPACT", entries: [], indexChanges: [], conflictCheck: true };
    for (const c of changes) {
      const d = c.dataIncrement;
      const k = c.compactIncrement;
      append.entries.push(...d.newFiles.map((f) => entry(FILE_KIND_ADD, c, f)), ...d.deletedFiles.map((f) => entry(FILE_KIND_DELETE, c, f)));
      append.indexChanges.push(...d.newIndexFiles.map((f) => index(FILE_KIND_ADD, c, f)), ...d.deletedIndexFiles.map((f) => index(FILE_KIND_DELETE, c, f)));
      compact.entries.push(...k.compactBefore.map((f) => entry(FILE_KIND_DELETE, c, f)), ...k.compactAfter.map((f) => entry(FILE_KIND_ADD, c, f)));
      compact.indexChanges.push(...k.newIndexFiles.map((f) => index(FILE_KIND_ADD, c, f)), ...k.deletedIndexFiles.map((f) => index(FILE_KIND_DELETE, c, f)));
    }
    // Deletes or index changes make an "append" an OVERWRITE that must be checked (Java ConflictDetection).
    if (append.entries.some((e) => e.kind === FILE_KIND_DELETE) || append.indexChanges.length > 0) {
      append.kind = "OVERWRITE";
      append.conflictCheck = true;
    }
    return { append, compact };
  }

  private async tryCommit(prepared: PreparedCommit, identifier: bigint, options: CommitOptions): Promise<number> {
    const maxRetries = this.options.commitMaxRetries;
    let lastFailure = "";
    for (let attempt = 0; ; attempt++) {
      const latest = await this.snapshots.latestSnapshot();
      const written: string[] = [];
      try {
        const entries = [...prepared.entries];
        if (prepared.overwrite && latest) entries.unshift(...(await this.overwriteDeletes(latest, prepared.overwrite)));
        if (prepared.conflictCheck && latest) await this.checkConflicts(latest, entries);
        if (prepared.conflictCheck && latest && prepared.indexChanges.length > 0) await checkIndexConflicts(this.manifests, latest, prepared.indexChanges);
        const snapshot = await this.writeSnapshot(latest, entries, prepared, identifier, options, written);
        if (await this.snapshots.tryPublish(snapshot)) return snapshot.id;
        lastFailure = `snapshot ${snapshot.id} was taken by another writer`;
      } catch (e) {
        await this.manifests.deleteQuietly(written);
        throw e;
      }
      await this.manifests.deleteQuietly(written);
      if (attempt >= maxRetries) break;
      const wait = Math.min(this.options.commitMaxRetryWait, this.options.commitMinRetryWait * 2 ** attempt);
      await sleep(wait / 2 + Math.random() * (wait / 2));
    }
    throw new PaimonError("COMMIT_CONFLICT", `commit of ${this.root} by ${this.commitUser} (identifier ${identifier}) failed after ${maxRetries + 1} attempts: ${lastFailure}`);
  }

  /** DELETE entries for every live file in the partitions being overwritten. */
  private async overwriteDeletes(latest: Snapshot, filter: PartitionFilter): Promise<ManifestEntry[]> {
    const live = await this.manifests.liveEntries(latest);
    return live.filter((e) => filter(this.partitionValues(e.partition))).map((e) => ({ ...e, kind: FILE_KIND_DELETE }));
  }

  /** Java ConflictDetection: deleting a file that is gone, or adding one already present, conflicts. */
  private async checkConflicts(latest: Snapshot, delta: readonly ManifestEntry[]): Promise<void> {
    const partitions = new Set(delta.map((e) => e.partition.join(",")));
    const base = await this.manifests.liveEntries(latest, undefined, (e) => partitions.has(e.partition.join(",")));
    const live = new Map(base.map((e) => [JSON.stringify([e.partition.join(","), e.bucket, e.file.level, e.file.fileName]), e]));
    for (const e of delta) {
      const id = JSON.stringify([e.partition.join(","), e.bucket, e.file.level, e.file.fileName]);
      if (e.kind === FILE_KIND_ADD && live.has(id)) {
        throw new PaimonError("COMMIT_CONFLICT", `file ${e.file.fileName} of bucket ${e.bucket} is already in snapshot ${latest.id}; give up committing`);
      }
      if (e.kind === FILE_KIND_DELETE && !live.delete(id)) {
        throw new PaimonError("COMMIT_CONFLICT", `file ${e.file.fileName} of bucket ${e.bucket} was already removed by snapshot ${latest.id} (concurrent compaction or overwrite); give up committing`);
      }
      if (e.kind === FILE_KIND_ADD) live.set(id, e);
    }
    checkLsmConflicts(this.schema, live.values(), latest); // primary-key tables only
  }

  private async writeSnapshot(
    latest: Snapshot | null,
    entries: readonly ManifestEntry[],
    prepared: PreparedCommit,
    identifier: bigint,
    options: CommitOptions,
    written: string[],
  ): Promise<Snapshot> {
    const schemaId = (await this.schemas.latest())?.id ?? this.schema.id;
    const baseMetas = latest ? await this.manifests.dataManifests(latest) : [];
    const base = await this.manifests.writeManifestList(baseMetas);
    written.push(base.name);
    const deltaMetas = [];
    if (entries.length > 0) {
      const meta = await this.manifests.writeManifest(entries, schemaId);
      written.push(meta.fileName);
      deltaMetas.push(meta);
    }
    const delta = await this.manifests.writeManifestList(deltaMetas);
    written.push(delta.name);
    let indexManifest = latest?.indexManifest ?? null;
    if (prepared.indexChanges.length > 0) {
      const previous = await this.manifests.indexEntries(latest);
      indexManifest = await this.manifests.writeIndexManifest(combineIndexEntries(previous, prepared.indexChanges));
      written.push(indexManifest);
    }
    let deltaRecords = 0n;
    for (const e of entries) deltaRecords += e.kind === FILE_KIND_ADD ? e.file.rowCount : -e.file.rowCount;
    const watermark =
      options.watermark === undefined || options.watermark === null
        ? (latest?.watermark ?? null)
        : latest?.watermark !== null && latest?.watermark !== undefined && latest.watermark > options.watermark
          ? latest.watermark
          : options.watermark;
    const extra = typeof options.properties === "function" ? await options.properties(latest) : options.properties;
    const properties = { ...(latest?.properties ?? {}), ...(extra ?? {}) };
    return makeSnapshot({
      uuid: randomId(),
      id: latest ? latest.id + 1 : 1,
      schemaId,
      baseManifestList: base.name,
      baseManifestListSize: base.size,
      deltaManifestList: delta.name,
      deltaManifestListSize: delta.size,
      indexManifest,
      commitUser: this.commitUser,
      writerVersion: "paimon-rt 0.1.0",
      commitIdentifier: identifier,
      commitKind: prepared.kind,
      timeMillis: Date.now(),
      totalRecordCount: (latest?.totalRecordCount ?? 0n) + deltaRecords,
      deltaRecordCount: deltaRecords,
      watermark,
      properties: Object.keys(properties).length > 0 ? properties : null,
      nextRowId: latest?.nextRowId ?? 0n,
    });
  }
}

/**
 * The full index listing after `changes` (§4.6): DELETE removes the named file; an ADD of
 * a per-bucket index type (DELETION_VECTORS, HASH) in a bucketed table replaces nothing by
 * itself — the writer sends the DELETE of the old file with it.
 */
export function combineIndexEntries(previous: readonly IndexManifestEntry[], changes: readonly IndexManifestEntry[]): IndexManifestEntry[] {
  const key = (e: IndexManifestEntry) => `${e.partition.join(",")}|${e.bucket}|${e.indexFile.indexType}|${e.indexFile.fileName}`;
  const out = new Map(previous.map((e) => [key(e), e]));
  for (const c of changes) {
    if (c.kind === FILE_KIND_DELETE) out.delete(key({ ...c, kind: FILE_KIND_ADD }));
    else out.set(key(c), c);
  }
  return [...out.values()];
}

