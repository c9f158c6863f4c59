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
import { entryIdentifier, ManifestStore, mergeEntries } from "../table/manifests.js";
import { TableOptions } from "../table/options.js";
import { TablePaths } from "../table/paths.js";
import { SchemaManager } from "../table/schema-manager.js";
import { SnapshotManager } from "../table/snapshot-manager.js";
import { readStatisticsFile } from "../table/statistics.js";
import { referencedFileNames } from "./orphan-files.js";
import { assignRowTracking } from "./row-tracking.js";
import { catalogSnapshotCommitOf } from "./catalog-snapshot-commit.js";
import { checkHashIndexConflicts, checkIndexConflicts, checkLsmConflicts } from "./pk-conflicts.js";
import { HASH_INDEX } from "../spec/hash-index.js";
import { checkIcebergCompat, IcebergMetadataWriter } from "./iceberg-compat.js";
import { PAIMON_RT_VERSION } from "../spec/version.js";

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
  /**
   * Index changes computed again on every attempt against the snapshot it builds on (deletion
   * vectors resolved against the latest files, src/commit/append-deletions.ts). They join the
   * first snapshot of the commit, which is then conflict-checked; `files` are the paths the hook
   * wrote, deleted when the attempt does not publish. `live` is the attempt's live files.
   */
  resolveIndexChanges?: (latest: Snapshot | null, live: readonly ManifestEntry[]) => Promise<ResolvedIndexChanges>;
  /**
   * Kind of the snapshot carrying {@link resolveIndexChanges}: OVERWRITE by default, as Java
   * commits deletion vectors of DELETE statements; APPEND for real-time deduplicate commits.
   */
  resolvedCommitKind?: "APPEND" | "OVERWRITE";
  /** Checked on every attempt against the snapshot it builds on, before publishing (cross-partition upsert's concurrent-writer check). */
  checkBeforePublish?: (latest: Snapshot | null) => Promise<void>;
}

/** What {@link CommitOptions.resolveIndexChanges} produced for one attempt. */
export interface ResolvedIndexChanges {
  changes: IndexManifestEntry[];
  /** Paths of the index files written for these changes. */
  files: string[];
}

/** Partitions to replace in an overwrite: a predicate over partition values (by key name). */
export type PartitionFilter = (partition: Record<string, unknown>) => boolean;

interface PreparedCommit {
  kind: CommitKind;
  entries: ManifestEntry[];
  /** Changelog files (ADD entries), listed in the snapshot's changelog manifest list. */
  changelog: ManifestEntry[];
  indexChanges: IndexManifestEntry[];
  overwrite?: PartitionFilter;
  conflictCheck: boolean;
  /** A new statistics file (ANALYZE); otherwise the latest snapshot's is inherited. */
  statistics?: string;
}

/** The live files of one snapshot, kept by a commit to check its next attempt incrementally. */
interface LiveFileCache {
  /** null: the table had no snapshot. */
  snapshot: Snapshot | null;
  live: Map<string, ManifestEntry>;
}

/**
 * Live files by file system and table root: every commit of the process (a new TableCommit per
 * commit is common) brings the same map forward instead of reading all manifests again. Whoever
 * advances an entry takes it out first, so a concurrent commit reads afresh instead of seeing a
 * half-advanced map.
 */
const liveFileCaches = new WeakMap<FileIO, Map<string, LiveFileCache>>();
/** Tables whose live files are kept per file system (least recently committed dropped first). */
const LIVE_FILE_CACHE_TABLES = 16;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Errors of commits whose snapshot write failed in a way that leaves unknown whether it was published. */
const unknownOutcomes = new WeakSet<object>();

/**
 * Whether `e` failed a commit that may nevertheless have published its snapshot (its write failed
 * and reading the snapshot back failed too): the files it wrote must then stay.
 */
export function commitOutcomeUnknown(e: unknown): boolean {
  return typeof e === "object" && e !== null && unknownOutcomes.has(e);
}

export class FileStoreCommit {
  readonly snapshots: SnapshotManager;
  readonly schemas: SchemaManager;
  readonly manifests: ManifestStore;
  readonly options: TableOptions;
  private readonly partitionFields: DataField[];
  /** `metadata.iceberg.storage`: the Iceberg metadata written after each published snapshot (Java's IcebergCommitCallback). */
  private readonly iceberg: IcebergMetadataWriter | null;

  /** The cached live files of this table, shared by the commits of this process (see {@link liveFiles}). */
  private get liveCache(): LiveFileCache | null {
    return liveFileCaches.get(this.io)?.get(this.snapshots.paths.metaRoot) ?? null; // per branch
  }

  private set liveCache(value: LiveFileCache | null) {
    let tables = liveFileCaches.get(this.io);
    if (tables === undefined) liveFileCaches.set(this.io, (tables = new Map()));
    tables.delete(this.snapshots.paths.metaRoot);
    if (value === null) return;
    tables.set(this.snapshots.paths.metaRoot, value);
    if (tables.size > LIVE_FILE_CACHE_TABLES) tables.delete(tables.keys().next().value!);
  }

  constructor(
    readonly io: FileIO,
    readonly root: string,
    readonly schema: TableSchema,
    readonly commitUser: string,
    /** The table's raw-convertible files ({@link icebergRawFiles}): needed by primary-key tables with Iceberg metadata. */
    icebergFiles?: (snapshot: Snapshot) => Promise<readonly ManifestEntry[]>,
  ) {
    this.options = new TableOptions(schema.options);
    this.snapshots = new SnapshotManager(io, root, this.options.branch);
    this.schemas = new SchemaManager(io, root, this.options.branch);
    this.partitionFields = schema.partitionKeys.map((k) => schema.fields.find((f) => f.name === k)!);
    this.manifests = new ManifestStore(io, new TablePaths(root, this.options, this.partitionFields), this.partitionFields, this.options.manifestCompression);
    const iceberg = checkIcebergCompat(root, schema, this.options, icebergFiles !== undefined);
    const manifests = this.manifests;
    this.iceberg =
      iceberg &&
      new IcebergMetadataWriter(
        { io, root, schema, options: this.options, paths: manifests.paths, schemas: this.schemas, snapshots: this.snapshots, partitionFields: this.partitionFields, rawFiles: icebergFiles ?? ((s) => manifests.allLiveEntries(s)) },
        iceberg,
      );
  }

  /** The live data files of the latest snapshot (read through the live-file cache a commit keeps). */
  async liveEntries(): Promise<ManifestEntry[]> {
    return [...(await this.liveFiles(await this.snapshots.latestSnapshot())).values()];
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
   * or null when there were no changes. Like Java's `FileStoreCommit.commit`, the identifier
   * is not checked against earlier commits of this user: {@link filterAndCommit} is the
   * recovery path that does. Adding a file that is already live is a COMMIT_CONFLICT.
   */
  async commit(changes: readonly CommitMessageData[], identifier: bigint, options: CommitOptions = {}): Promise<number | null> {
    const { append, compact } = this.prepare(changes, options);
    let id: number | null = null;
    if (options.resolveIndexChanges) {
      append.kind = append.entries.some((e) => e.kind === FILE_KIND_DELETE) ? "OVERWRITE" : (options.resolvedCommitKind ?? "OVERWRITE");
      append.conflictCheck = true;
    }
    if (append.entries.length > 0 || append.changelog.length > 0 || append.indexChanges.length > 0 || options.resolveIndexChanges || (options.force && compact.entries.length === 0 && compact.changelog.length === 0)) {
      id = await this.tryCommit(append, identifier, options);
    }
    if (compact.entries.length > 0 || compact.changelog.length > 0 || compact.indexChanges.length > 0) {
      id = await this.tryCommit(compact, identifier, { ...options, watermark: null, resolveIndexChanges: undefined, checkBeforePublish: undefined });
    }
    return id;
  }

  /**
   * Java's `commitStatistics`: an ANALYZE snapshot (no file changes) naming the statistics file
   * `name` of `statistics/`, which the caller wrote. Returns its id.
   */
  /**
   * Java's `StrictModeChecker`: with the option `commit.strict-mode.last-safe-snapshot`, a commit
   * fails with COMMIT_CONFLICT when a snapshot after the last safe one, by another commit user, is a COMPACT or OVERWRITE, or an
   * APPEND that added files to real buckets while this commit overwrites. The safe snapshot then
   * moves to the snapshot before this commit's, and to this commit's once it is published.
   */
  private async checkStrictMode(safe: number, newId: number, kind: PreparedCommit["kind"]): Promise<void> {
    const key = "commit.strict-mode.last-safe-snapshot";
    for (let id = safe + 1; id < newId; id++) {
      const s = await this.snapshots.tryGetSnapshot(id);
      if (s === null) throw new PaimonError("COMMIT_CONFLICT", `When trying to commit snapshot ${newId}, commit user ${this.commitUser} cannot read snapshot ${id} (expired?). Giving up committing as ${key} is set.`);
      if (s.commitUser === this.commitUser) continue;
      if (s.commitKind === "COMPACT" || s.commitKind === "OVERWRITE") {
        throw new PaimonError("COMMIT_CONFLICT", `When trying to commit snapshot ${newId}, commit user ${this.commitUser} has found a ${s.commitKind} snapshot (id: ${id}) by another user ${s.commitUser}. Giving up committing as ${key} is set.`);
      }
      if (s.commitKind === "APPEND" && kind === "OVERWRITE") {
        if ((await this.manifests.deltaEntries(s)).some((e) => e.bucket >= 0)) {
          throw new PaimonError(
            "COMMIT_CONFLICT",
            `When trying to commit snapshot ${newId}, commit user ${this.commitUser} has found a APPEND snapshot (id: ${id}) by another user ${s.commitUser} which committed files to fixed bucket. Giving up committing as ${key} is set.`,
          );
        }
      }
    }
  }

  /** The last safe snapshot of strict mode (table option `commit.strict-mode.last-safe-snapshot`), advanced by this committer's commits. */
  private strictModeSafe: number | null | undefined;

  async commitStatistics(name: string, identifier: bigint): Promise<number> {
    return this.tryCommit({ kind: "ANALYZE", entries: [], changelog: [], indexChanges: [], conflictCheck: false, statistics: name }, identifier, {});
  }

  /**
   * Java's `filterAndCommit` (recovery after a failure): commits, in increasing identifier
   * order, only the committables whose identifier is newer than this user's latest committed
   * one, with appended files checked against the latest state. Before committing, every file
   * the remaining committables add must still exist (Java `checkFilesExistence`), otherwise
   * nothing is committed. Returns how many committables were committed.
   */
  async filterAndCommit(committables: ReadonlyMap<bigint, readonly CommitMessageData[]>): Promise<number> {
    const sorted = [...committables.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const latestOfUser = await this.snapshots.latestSnapshotOfUser(this.commitUser);
    const retry = latestOfUser === null ? sorted : sorted.filter(([identifier]) => identifier > latestOfUser.commitIdentifier);
    const missing: string[] = [];
    for (const path of new Set(retry.flatMap(([, changes]) => this.newFilePaths(changes)))) {
      if (!(await this.io.exists(path))) missing.push(path);
    }
    if (missing.length > 0) {
      throw new PaimonError("NOT_FOUND", `cannot recover the commits of ${this.commitUser} to ${this.root}: files to be committed again have been deleted: ${missing.join(", ")}`);
    }
    for (const [identifier, changes] of retry) await this.commit(changes, identifier, { checkAppendConflicts: true });
    return retry.length;
  }

  /**
   * The files `changes` bring into the table, as paths: new, changelog and compaction-result
   * data files with their extra files, and new index files (what Java's `checkFilesExistence`
   * and `abort` cover).
   */
  newFilePaths(changes: readonly CommitMessageData[]): string[] {
    const out: string[] = [];
    for (const c of changes) {
      const d = c.dataIncrement;
      const k = c.compactIncrement;
      for (const f of [...d.newFiles, ...d.changelogFiles, ...k.compactAfter, ...k.changelogFiles]) out.push(...this.manifests.paths.dataFilesOf(c.partition, c.bucket, f));
      for (const f of [...d.newIndexFiles, ...k.newIndexFiles]) out.push(this.manifests.paths.indexFileOf(c.partition, c.bucket, f));
    }
    return out;
  }

  /**
   * Java's `abort`: deletes the files of messages that will not be committed. Files that a
   * snapshot, tag or changelog of the table references are kept (messages that were committed
   * after all, or committed twice), so aborting can never remove live data. Returns the
   * deleted paths.
   */
  async abort(changes: readonly CommitMessageData[]): Promise<string[]> {
    const referenced = await referencedFileNames(this.io, this.root, this.partitionFields, this.options);
    const deleted: string[] = [];
    for (const path of new Set(this.newFilePaths(changes))) {
      if (referenced.has(path.slice(path.lastIndexOf("/") + 1))) continue;
      if (await this.io.delete(path).catch(() => false)) deleted.push(path);
    }
    return deleted;
  }

  /**
   * Replaces the live files of the partitions `filter` accepts (all partitions when it is
   * null) with the new files of `changes`, as one OVERWRITE snapshot. The writers' compaction
   * results follow in a COMPACT snapshot, as Java's `overwritePartition` commits them, when they
   * compacted only files of `changes` (Java's overwrite writers ignore the previous files). A
   * compaction that also rewrote files or deletion vectors of the table is left out, its new
   * files hold replaced rows; in a deletion-vector table, which reads only compacted files, that
   * would lose the new rows, so such an overwrite is refused (UNSUPPORTED) before anything is
   * committed. Returns the last snapshot id.
   */
  async overwrite(changes: readonly CommitMessageData[], filter: PartitionFilter | null, identifier: bigint, options: CommitOptions = {}): Promise<number | null> {
    const { append, compact } = this.prepare(changes, options);
    // Java's overwrite commits no changelog ("Overwrite mode currently does not commit any changelog")
    append.changelog = [];
    compact.changelog = [];
    const compacted = compact.entries.length > 0 || compact.indexChanges.length > 0;
    const ownCompaction = compacted && compactsOnlyOwnFiles(changes);
    if (compacted && !ownCompaction && this.options.bool("deletion-vectors.enabled", false)) {
      throw new PaimonError(
        "UNSUPPORTED",
        `overwrite of deletion-vector table ${this.root}: the messages' compaction rewrote files or deletion vectors the table already had (a writer restored from the table, e.g. keys written again); write them with an overwrite writer, newWrite({ commitUser, overwrite: true }), which starts every bucket empty`,
      );
    }
    let id = await this.tryCommit({ ...append, kind: "OVERWRITE", overwrite: filter ?? (() => true), conflictCheck: true }, identifier, options);
    if (ownCompaction) id = await this.tryCommit(compact, identifier, { ...options, watermark: null, properties: undefined });
    return id;
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
    const append: PreparedCommit = { kind: "APPEND", entries: [], changelog: [], indexChanges: [], conflictCheck: options.checkAppendConflicts ?? false };
    const compact: PreparedCommit = { kind: "COMPACT", entries: [], changelog: [], indexChanges: [], conflictCheck: true };
    for (const c of changes) {
      const d = c.dataIncrement;
      const k = c.compactIncrement;
      append.entries.push(...d.newFiles.map((f) => entry(FILE_KIND_ADD, c, f)), ...d.deletedFiles.map((f) => entry(FILE_KIND_DELETE, c, f)));
      append.indexChanges.push(...d.newIndexFiles.map((f) => index(FILE_KIND_ADD, c, f)), ...d.deletedIndexFiles.map((f) => index(FILE_KIND_DELETE, c, f)));
      compact.entries.push(...k.compactBefore.map((f) => entry(FILE_KIND_DELETE, c, f)), ...k.compactAfter.map((f) => entry(FILE_KIND_ADD, c, f)));
      append.changelog.push(...d.changelogFiles.map((f) => entry(FILE_KIND_ADD, c, f)));
      compact.changelog.push(...k.changelogFiles.map((f) => entry(FILE_KIND_ADD, c, f)));
      compact.indexChanges.push(...k.newIndexFiles.map((f) => index(FILE_KIND_ADD, c, f)), ...k.deletedIndexFiles.map((f) => index(FILE_KIND_DELETE, c, f)));
    }
    // Deletes or deletion-vector changes make an "append" an OVERWRITE that must be checked (Java
    // ConflictDetection.shouldBeOverwriteCommit); a dynamic-bucket HASH index rides an APPEND.
    if (append.entries.some((e) => e.kind === FILE_KIND_DELETE) || append.indexChanges.some((c) => c.indexFile.indexType !== HASH_INDEX)) {
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
      const resolvedFiles: string[] = [];
      let published: { snapshot: Snapshot; entries: readonly ManifestEntry[] } | undefined;
      const cleanUp = async () => {
        await this.manifests.deleteQuietly(written);
        await Promise.all(resolvedFiles.map((p) => this.io.delete(p).catch(() => false)));
      };
      try {
        const live = await this.liveFiles(latest);
        const entries = [...prepared.entries];
        const indexChanges = [...prepared.indexChanges];
        if (prepared.overwrite) {
          entries.unshift(...this.overwriteDeletes(live, prepared.overwrite));
          indexChanges.unshift(...(await this.overwriteIndexDeletes(latest, prepared.overwrite, prepared.indexChanges)));
        }
        if (options.resolveIndexChanges) {
          const resolved = await options.resolveIndexChanges(latest, [...live.values()]);
          resolvedFiles.push(...resolved.files);
          indexChanges.push(...resolved.changes);
        }
        // `live` may have been advanced by another commit while the hook ran: read it afresh.
        const current = options.resolveIndexChanges ? await this.liveFiles(latest) : live;
        if (prepared.conflictCheck) this.checkConflicts(latest, current, entries);
        else checkAddsNotLive(latest, current, entries);
        if (prepared.kind !== "OVERWRITE") this.checkBucketCountKept(current, entries);
        if (prepared.conflictCheck && latest && (indexChanges.length > 0 || entries.some((e) => e.kind === FILE_KIND_DELETE))) {
          await checkIndexConflicts(this.manifests, latest, indexChanges, entries);
        }
        if (indexChanges.length > 0) checkDeletionVectorTargets(latest, current, entries, indexChanges);
        if (latest && indexChanges.some((c) => c.kind === FILE_KIND_ADD && c.indexFile.indexType === HASH_INDEX)) {
          await checkHashIndexConflicts(this.io, this.manifests.paths, await this.manifests.indexEntries(latest), latest.id, indexChanges);
        }
        if (options.checkBeforePublish) await options.checkBeforePublish(latest);
        if (this.strictModeSafe === undefined) {
          const raw = this.options.get("commit.strict-mode.last-safe-snapshot");
          const n = raw === undefined ? null : Number(raw.trim());
          if (n !== null && (!/^[+-]?\d+$/.test(raw!.trim()) || !Number.isSafeInteger(n))) throw new PaimonError("INVALID_ARGUMENT", `option commit.strict-mode.last-safe-snapshot: '${raw}' is not a snapshot id`);
          this.strictModeSafe = n;
        }
        if (this.strictModeSafe !== null && latest) {
          await this.checkStrictMode(this.strictModeSafe, latest.id + 1, prepared.kind);
          this.strictModeSafe = latest.id;
        }
        // Java assigns row ids after the conflict checks, to the entries the snapshot lists
        const tracked = this.options.bool("row-tracking.enabled", false) ? assignRowTracking(latest ? latest.id + 1 : 1, latest?.nextRowId ?? 0n, entries) : { entries, nextRowId: latest?.nextRowId ?? 0n };
        const snapshot = await this.writeSnapshot(latest, tracked.entries, { ...prepared, indexChanges }, identifier, options, written, tracked.nextRowId);
        if (await this.publish(snapshot, tracked.entries)) {
          this.advanceLiveFiles(snapshot, current, tracked.entries);
          if (this.strictModeSafe !== null && this.strictModeSafe !== undefined) this.strictModeSafe = snapshot.id;
          published = { snapshot, entries: tracked.entries };
        } else lastFailure = `snapshot ${snapshot.id} was taken by another writer`;
      } catch (e) {
        // Only this attempt's manifests (and resolved index files) are removed: data files belong
        // to the caller (Java FileStoreCommitImpl cleans up its temporary manifests only; `abort` is separate).
        // A snapshot that may have been published keeps everything it references.
        if (!commitOutcomeUnknown(e)) await cleanUp();
        throw e;
      }
      if (published) {
        // as Java's commit callbacks: after the snapshot is published; a failure reaches the
        // caller (the snapshot stays), and the next commit writes the Iceberg metadata afresh
        await this.iceberg?.afterCommit(published.snapshot, published.entries);
        return published.snapshot.id;
      }
      await cleanUp();
      if (attempt >= maxRetries) break;
      const wait = Math.min(this.options.commitMaxRetryWait, this.options.commitMinRetryWait * 2 ** attempt);
      await sleep(wait / 2 + Math.random() * (wait / 2));
    }
    throw new PaimonError("COMMIT_CONFLICT", `commit of ${this.root} by ${this.commitUser} (identifier ${identifier}) failed after ${maxRetries + 1} attempts: ${lastFailure}`);
  }

  /**
   * `tryPublish`, also when its write fails but landed (a lost response): that snapshot is
   * published, and removing what it references would break the table. When the failure leaves it
   * unknown whether the snapshot landed, the error is marked so (see {@link commitOutcomeUnknown}).
   */
  private async publish(snapshot: Snapshot, entries: readonly ManifestEntry[]): Promise<boolean> {
    try {
      // a table of a catalog that manages versions (REST) commits through it, as Java's CatalogSnapshotCommit
      const viaCatalog = catalogSnapshotCommitOf(this.io, this.root);
      if (viaCatalog !== undefined) return await viaCatalog(snapshot, this.options.branch, entries);
      return await this.snapshots.tryPublish(snapshot);
    } catch (e) {
      let landed: boolean;
      try {
        // (a catalog writes the file itself, in its own JSON layout: the same snapshot is the same manifest lists)
        landed = catalogSnapshotCommitOf(this.io, this.root) !== undefined
          ? (await this.snapshots.tryGetSnapshot(snapshot.id))?.deltaManifestList === snapshot.deltaManifestList
          : await this.snapshots.publishedDespiteFailure(snapshot);
      } catch {
        if (typeof e === "object" && e !== null) unknownOutcomes.add(e);
        throw e;
      }
      if (landed) return true;
      throw e;
    }
  }

  /**
   * The live files of `latest` by {@link entryIdentifier}. The result of the previous call (of
   * any commit of this table in the process) is kept and brought forward by reading only the
   * delta manifests of the snapshots committed since (a retry, the next commit), instead of every
   * base manifest again. The returned map is shared: callers must not change it, and must use it
   * before their next await (a later commit advances it in place).
   */
  private async liveFiles(latest: Snapshot | null): Promise<ReadonlyMap<string, ManifestEntry>> {
    if (latest === null) {
      const empty = new Map<string, ManifestEntry>();
      this.liveCache = { snapshot: null, live: empty };
      return empty;
    }
    const cached = this.liveCache;
    this.liveCache = null; // a failure part-way must not leave a half-advanced cache
    if (cached !== null && (cached.snapshot?.id ?? 0) <= latest.id) {
      const advanced = await this.advanceByDeltas(cached, latest);
      if (advanced !== null) {
        this.liveCache = { snapshot: latest, live: advanced };
        return advanced;
      }
    }
    const { live, unmatchedDeletes } = mergeEntries((await Promise.all((await this.manifests.dataManifests(latest)).map((m) => this.manifests.readManifest(m.fileName)))).flat());
    if (unmatchedDeletes.length === 0) this.liveCache = { snapshot: latest, live };
    return live;
  }

  /** `cached` advanced to `latest` by the deltas in between, or null when that chain cannot be followed. */
  private async advanceByDeltas(cached: LiveFileCache, latest: Snapshot): Promise<Map<string, ManifestEntry> | null> {
    // Snapshot ids are reused after a rollback: the cached snapshot must still be the one on disk.
    const same = (a: Snapshot, b: Snapshot | null) => b !== null && a.id === b.id && a.deltaManifestList === b.deltaManifestList && a.baseManifestList === b.baseManifestList;
    const from = cached.snapshot;
    if (from !== null && !same(from, from.id === latest.id ? latest : await this.snapshots.tryGetSnapshot(from.id))) return null;
    const live = cached.live;
    for (let id = (from?.id ?? 0) + 1; id <= latest.id; id++) {
      const s = id === latest.id ? latest : await this.snapshots.tryGetSnapshot(id);
      if (s === null) return null;
      const delta = await this.manifests.deltaEntries(s);
      if (mergeEntries(delta, live).unmatchedDeletes.length > 0) return null;
    }
    return live;
  }

  /** After publishing `snapshot` (built on `live` plus `entries`), it becomes the cached state. */
  private advanceLiveFiles(snapshot: Snapshot, live: ReadonlyMap<string, ManifestEntry>, entries: readonly ManifestEntry[]): void {
    const cached = this.liveCache;
    this.liveCache = null;
    // Only a cache still describing the snapshot this one was built on can be advanced in place.
    if (cached === null || cached.live !== live || (cached.snapshot?.id ?? 0) !== snapshot.id - 1) return;
    if (mergeEntries(entries, cached.live).unmatchedDeletes.length === 0) this.liveCache = { snapshot, live: cached.live };
  }

  /** DELETE entries for every live file in the partitions being overwritten. */
  private overwriteDeletes(live: ReadonlyMap<string, ManifestEntry>, filter: PartitionFilter): ManifestEntry[] {
    return [...live.values()].filter((e) => filter(this.partitionValues(e.partition))).map((e) => ({ ...e, kind: FILE_KIND_DELETE }));
  }

  /**
   * DELETE entries for every index file (deletion vectors, hash indexes) of the partitions being
   * overwritten, as Java's `OverwriteChangesProvider` emits them: the replaced data files are
   * gone, so their deletion vectors must not survive into the snapshot, where a later writer of
   * the partition-bucket would restore them. Files `changes` already delete are left to them.
   */
  private async overwriteIndexDeletes(latest: Snapshot | null, filter: PartitionFilter, changes: readonly IndexManifestEntry[]): Promise<IndexManifestEntry[]> {
    if (!latest?.indexManifest) return [];
    const key = (e: IndexManifestEntry) => `${e.partition.join(",")}|${e.bucket}|${e.indexFile.fileName}`;
    const deletedByChanges = new Set(changes.filter((c) => c.kind === FILE_KIND_DELETE).map(key));
    return (await this.manifests.indexEntries(latest))
      .filter((e) => filter(this.partitionValues(e.partition)) && !deletedByChanges.has(key(e)))
      .map((e) => ({ ...e, kind: FILE_KIND_DELETE }));
  }

  /**
   * Java ConflictDetection's bucket check: outside an overwrite, every file a partition holds has
   * the same bucket count (`totalBuckets`). Files written after `bucket` was changed, beside files
   * of the old layout, would put a key in two buckets: duplicate rows in a primary-key table.
   */
  private checkBucketCountKept(live: ReadonlyMap<string, ManifestEntry>, delta: readonly ManifestEntry[]): void {
    const added = new Map<string, ManifestEntry>();
    for (const e of delta) {
      if (e.kind !== FILE_KIND_ADD || e.totalBuckets <= 0) continue;
      const key = e.partition.join(",");
      const first = added.get(key);
      if (first === undefined) added.set(key, e);
      else if (first.totalBuckets !== e.totalBuckets) throw this.bucketCountChanged(e, first.totalBuckets);
    }
    if (added.size === 0) return;
    // every commit passes here with all live files: compare counts first, so the common case
    // (one count everywhere) builds no partition key per file
    const counts = new Set([...added.values()].map((e) => e.totalBuckets));
    const only = counts.size === 1 ? [...counts][0] : null;
    for (const e of live.values()) {
      if (e.totalBuckets <= 0 || e.totalBuckets === only) continue;
      const add = added.get(e.partition.join(","));
      if (add !== undefined && add.totalBuckets !== e.totalBuckets) throw this.bucketCountChanged(add, e.totalBuckets);
    }
  }

  private bucketCountChanged(e: ManifestEntry, previous: number): PaimonError {
    const where = this.partitionFields.length > 0 ? `partition ${JSON.stringify(this.partitionValues(e.partition), (_k, v) => (typeof v === "bigint" ? String(v) : v))}` : "table";
    return new PaimonError(
      "COMMIT_CONFLICT",
      `commit to ${this.root}: files for ${where} with a new bucket count ${e.totalBuckets}, but its files have bucket count ${previous}; rescale it with an overwrite first (Java: INSERT OVERWRITE); give up committing`,
    );
  }

  /** Java ConflictDetection: deleting a file that is gone, or adding one already present, conflicts. */
  private checkConflicts(latest: Snapshot | null, liveFiles: ReadonlyMap<string, ManifestEntry>, delta: readonly ManifestEntry[]): void {
    const partitions = new Set(delta.map((e) => e.partition.join(",")));
    const live = new Map([...liveFiles].filter(([, e]) => partitions.has(e.partition.join(","))));
    for (const e of delta) {
      const id = entryIdentifier(e);
      if (e.kind === FILE_KIND_ADD && live.has(id)) throw alreadyAdded(e, latest);
      if (e.kind === FILE_KIND_DELETE && !live.delete(id)) {
        throw new PaimonError("COMMIT_CONFLICT", `file ${e.file.fileName} of bucket ${e.bucket} was already removed by snapshot ${latest?.id} (concurrent compaction or overwrite); give up committing`);
      }
      if (e.kind === FILE_KIND_ADD) live.set(id, e);
    }
    if (latest) checkLsmConflicts(this.schema, live.values(), latest); // primary-key tables only
  }

  private async writeSnapshot(
    latest: Snapshot | null,
    entries: readonly ManifestEntry[],
    prepared: PreparedCommit,
    identifier: bigint,
    options: CommitOptions,
    written: string[],
    nextRowId: bigint,
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
    // Java: a changelog manifest list only when the commit has changelog files
    let changelogList: { name: string; size: bigint | number } | null = null;
    let changelogRecords: bigint | null = null;
    if (prepared.changelog.length > 0) {
      const meta = await this.manifests.writeManifest(prepared.changelog, schemaId);
      written.push(meta.fileName);
      changelogList = await this.manifests.writeManifestList([meta]);
      written.push(changelogList.name);
      changelogRecords = 0n;
      for (const e of prepared.changelog) changelogRecords += e.file.rowCount;
    }
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
      changelogManifestList: changelogList?.name ?? null,
      changelogManifestListSize: changelogList?.size ?? null,
      changelogRecordCount: changelogRecords,
      indexManifest,
      commitUser: this.commitUser,
      writerVersion: `paimon-rt ${PAIMON_RT_VERSION}`,
      commitIdentifier: identifier,
      commitKind: prepared.kind,
      timeMillis: Date.now(),
      totalRecordCount: (latest?.totalRecordCount ?? 0n) + deltaRecords,
      deltaRecordCount: deltaRecords,
      watermark,
      properties: Object.keys(properties).length > 0 ? properties : null,
      nextRowId,
      statistics: prepared.statistics ?? (await inheritedStatistics(this.io, this.root, latest, schemaId)),
    });
  }
}

/**
 * The statistics file a new snapshot keeps: the latest snapshot's (an ANALYZE result), while the
 * schema it was collected under is still the latest (Java FileStoreCommitImpl: "Schema changed,
 * stats will not be inherited").
 */
async function inheritedStatistics(io: FileIO, root: string, latest: Snapshot | null, schemaId: number): Promise<string | null> {
  if (!latest?.statistics) return null;
  const stats = await readStatisticsFile(io, root, latest.statistics);
  return stats.schemaId === BigInt(schemaId) ? latest.statistics : null;
}

/**
 * Java's ConflictDetection "Trying to create deletion vector on file %s which is not previously
 * added": every deletion vector an added index file holds must belong to a data file that is
 * live after the commit (a concurrent compaction or overwrite removed it otherwise).
 */
function checkDeletionVectorTargets(latest: Snapshot | null, live: ReadonlyMap<string, ManifestEntry>, entries: readonly ManifestEntry[], indexChanges: readonly IndexManifestEntry[]): void {
  const deleted = new Set<string>();
  const added = new Set<string>();
  for (const e of entries) (e.kind === FILE_KIND_DELETE ? deleted : added).add(`${e.partition.join(",")}|${e.bucket}|${e.file.fileName}`);
  const liveNames = new Set<string>();
  for (const e of live.values()) liveNames.add(`${e.partition.join(",")}|${e.bucket}|${e.file.fileName}`);
  for (const c of indexChanges) {
    if (c.kind !== FILE_KIND_ADD || !c.indexFile.dvRanges) continue;
    for (const r of c.indexFile.dvRanges) {
      const key = `${c.partition.join(",")}|${c.bucket}|${r.dataFileName}`;
      if (added.has(key) || (liveNames.has(key) && !deleted.has(key))) continue;
      throw new PaimonError(
        "COMMIT_CONFLICT",
        `trying to create deletion vector on file ${r.dataFileName} of bucket ${c.bucket} which is not live in snapshot ${latest?.id ?? "(none)"} (concurrent compaction or overwrite); give up committing`,
      );
    }
  }
}

/**
 * Adding a file that is already live (the same messages committed twice) is refused, as Java's
 * `FileEntry.mergeEntries` does ("Trying to add file ... which is already added"): a second
 * APPEND snapshot would list the file twice and count its rows twice.
 */
function checkAddsNotLive(latest: Snapshot | null, live: ReadonlyMap<string, ManifestEntry>, delta: readonly ManifestEntry[]): void {
  const added = new Set<string>();
  for (const e of delta) {
    if (e.kind !== FILE_KIND_ADD) continue;
    const id = entryIdentifier(e);
    if (live.has(id) || added.has(id)) throw alreadyAdded(e, latest);
    added.add(id);
  }
}

function alreadyAdded(e: ManifestEntry, latest: Snapshot | null): PaimonError {
  const where = latest === null ? "this commit" : `snapshot ${latest.id}`;
  return new PaimonError("COMMIT_CONFLICT", `trying to add file ${e.file.fileName} of bucket ${e.bucket} which is already added (in ${where}); give up committing`);
}

/**
 * True when the compaction in `changes` rewrote only files the same messages add: what Java's
 * overwrite writers (`withIgnorePreviousFiles`) produce, safe to commit after the overwrite.
 */
function compactsOnlyOwnFiles(changes: readonly CommitMessageData[]): boolean {
  const own = new Set<string>();
  const ownIndex = new Set<string>();
  for (const c of changes) {
    for (const f of [...c.dataIncrement.newFiles, ...c.compactIncrement.compactAfter]) own.add(f.fileName);
    for (const f of [...c.dataIncrement.newIndexFiles, ...c.compactIncrement.newIndexFiles]) ownIndex.add(f.fileName);
  }
  return changes.every(
    (c) =>
      c.compactIncrement.compactBefore.every((f) => own.has(f.fileName)) &&
      c.compactIncrement.deletedIndexFiles.every((f) => ownIndex.has(f.fileName)) &&
      c.compactIncrement.newIndexFiles.every((f) => (f.dvRanges ?? []).every((r) => own.has(r.dataFileName))),
  );
}

/**
 * The full index listing after `changes` (§4.6): DELETE removes the named file; an ADD of a
 * HASH index replaces the bucket's previous HASH file (Java's `BucketedCombiner`: dynamic-bucket
 * writers send no DELETE of it); an ADD of a deletion-vector file replaces nothing by itself —
 * the writer sends the DELETE of the old file with it.
 */
export function combineIndexEntries(previous: readonly IndexManifestEntry[], changes: readonly IndexManifestEntry[]): IndexManifestEntry[] {
  const key = (e: IndexManifestEntry) => `${e.partition.join(",")}|${e.bucket}|${e.indexFile.indexType}|${e.indexFile.fileName}`;
  const out = new Map(previous.map((e) => [key(e), e]));
  const bucketOf = (e: IndexManifestEntry) => `${e.partition.join(",")}|${e.bucket}`;
  const hashFiles = new Map<string, string>();
  for (const [k, e] of out) if (e.indexFile.indexType === HASH_INDEX) hashFiles.set(bucketOf(e), k);
  for (const c of changes) {
    if (c.kind === FILE_KIND_DELETE) {
      out.delete(key({ ...c, kind: FILE_KIND_ADD }));
      continue;
    }
    if (c.indexFile.indexType === HASH_INDEX) {
      const old = hashFiles.get(bucketOf(c));
      if (old !== undefined) out.delete(old);
      hashFiles.set(bucketOf(c), key(c));
    }
    out.set(key(c), c);
  }
  return [...out.values()];
}

