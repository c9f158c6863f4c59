// Snapshot expiration (Java SnapshotDeletion/ExpireSnapshotsImpl, simplified to what a
// single warehouse needs): drop old snapshots and every file only they reference. Tags keep
// their snapshot's files (Java `createDataFileSkipperForTags`, `manifestSkippingSet`). Tables
// whose changelogs outlive snapshots (Java "decoupled changelogs") keep each expired snapshot as
// `changelog/changelog-<id>` with the files reading its changes needs, until the changelog expires
// (Java ExpireSnapshotsImpl with SnapshotDeletion.changelogDecoupled, ExpireChangelogImpl).
import { FILE_KIND_DELETE, FILE_SOURCE_COMPACT } from "../spec/manifest.js";
import { REALTIME_OFFSETS_PROPERTY, type Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { dataFileKey, ManifestStore } from "../table/manifests.js";
import { TableOptions } from "../table/options.js";
import { TablePaths } from "../table/paths.js";
import { MAIN_BRANCH } from "../table/option-validation.js";
import { otherBranchesPinned } from "../table/branch-manager.js";
import { PaimonError } from "../error.js";
import { expireConsumers, minConsumerNextSnapshot } from "../table/consumers.js";
import { SnapshotManager } from "../table/snapshot-manager.js";
import { type FileIO, deleteFiles, joinPath, readTextFileIfExists } from "../fs/file-io.js";
import { listTags, previousTagged, taggedSnapshots } from "../table/tags.js";
import { changelogDecoupled, listChangelogIds, tryGetChangelog } from "../table/changelogs.js";
import { effectiveOffsets, listProgressAnchors, offsetsFileOf, progressAnchorPath, serializeOffsets, type ProgressSource } from "../realtime/offsets.js";

export interface ExpireOptions {
  /** Keep at most this many snapshots (default `snapshot.num-retained.max`). */
  retainMax?: number;
  /** Always keep at least this many (default `snapshot.num-retained.min`). */
  retainMin?: number;
  /** Keep snapshots needed for time travel to this many ms ago, beyond `retainMin` (default `snapshot.time-retained`). */
  olderThanMs?: number;
  /** Expire at most this many snapshots in one call (default `snapshot.expire.limit`, 50). */
  maxDeletes?: number;
}

/** A missing metadata file (already deleted by an earlier, interrupted expiry) references nothing; anything else fails expiry. */
export function missingAsEmpty(error: unknown): never[] {
  if (error instanceof PaimonError && error.code === "NOT_FOUND") return [];
  throw error;
}

/**
 * The id of the first snapshot to keep, as Java's ExpireSnapshotsImpl decides it: snapshots beyond
 * `retainMax` go; of the others, one goes only when the snapshot after it is older than
 * `olderThan` (so a time-travel read to any moment in the retained time still finds the snapshot
 * that was the latest then), never within the newest `retainMin`, never the next snapshot of a
 * consumer (a streaming reader's progress), at most `maxDeletes` at a time.
 */
async function firstRetainedId(snapshots: SnapshotManager, earliest: number, latest: number, limits: RetentionLimits, consumerNext: number | null): Promise<number> {
  const min = Math.max(latest - limits.retainMax + 1, earliest);
  let maxExclusive = latest - limits.retainMin + 1;
  if (consumerNext !== null) maxExclusive = Math.min(maxExclusive, consumerNext);
  maxExclusive = Math.min(maxExclusive, earliest + limits.maxDeletes);
  for (let id = min; id < maxExclusive; id++) {
    const next = await snapshots.tryGetSnapshot(id + 1);
    if (next !== null && limits.olderThan <= next.timeMillis) return Math.max(id, earliest);
  }
  return Math.max(maxExclusive, earliest);
}

interface RetentionLimits {
  retainMin: number;
  retainMax: number;
  maxDeletes: number;
  /** Snapshots whose successor was committed before this time (ms since the epoch) may go. */
  olderThan: number;
}

function retentionLimits(tableOptions: TableOptions, options: ExpireOptions, now: number): RetentionLimits {
  const retainMin = Math.max(1, options.retainMin ?? tableOptions.snapshotNumRetainedMin);
  return {
    retainMin,
    retainMax: Math.max(retainMin, options.retainMax ?? tableOptions.snapshotNumRetainedMax),
    maxDeletes: Math.max(0, options.maxDeletes ?? tableOptions.snapshotExpireLimit),
    olderThan: now - (options.olderThanMs ?? tableOptions.snapshotTimeRetained),
  };
}

/** Per table object: its earliest snapshot id and the commit time of the snapshot after it, as last read. */
const retentionStates = new WeakMap<object, { earliest: number; nextTime: number }>();

/**
 * The expiry Java runs after every commit (`TableCommitImpl.maintain`, unless `write-only`), with
 * the table's retention options; `latest` is the snapshot just committed (undefined: look it up).
 * Deciding that nothing can expire costs no request while the table has at most
 * `snapshot.num-retained.min` snapshots, then one read of the earliest snapshot and its successor
 * per `table` object, kept until something may expire: a commit on object storage pays no extra
 * round trip. Only then do snapshots get listed and consumers read. Returns how many expired.
 */
export async function expireAfterCommit(io: FileIO, root: string, tableOptions: TableOptions, partitionFields: readonly DataField[], table: object, latest: number | null | undefined, now = Date.now()): Promise<number> {
  if (latest === null || tableOptions.bool("write-only", false)) return 0;
  const limits = retentionLimits(tableOptions, {}, now);
  // snapshot ids start at 1: the first retainMin commits of a table expire nothing
  if (latest !== undefined && latest - limits.retainMin + 1 <= 1 && latest - limits.retainMax + 1 <= 1) return 0;
  const snapshots = new SnapshotManager(io, root, tableOptions.branch);
  latest ??= await snapshots.latestSnapshotId();
  if (latest === null) return 0;
  let state = retentionStates.get(table);
  // A commit at or below the cached earliest id follows a rollback that restored an expired
  // snapshot from a tag (the only way the earliest id decreases): re-read it, or snapshots beyond
  // snapshot.num-retained.max would be kept until the table grows past the stale earliest.
  if (state !== undefined && latest <= state.earliest) state = undefined;
  if (state === undefined) {
    const earliest = await snapshots.earliestSnapshotId();
    if (earliest === null) return 0;
    state = { earliest, nextTime: (await snapshots.tryGetSnapshot(earliest + 1))?.timeMillis ?? -Infinity };
    retentionStates.set(table, state);
  }
  // as firstRetainedId's first step: nothing goes while the earliest snapshot is within
  // retainMax and either within retainMin or followed by a snapshot of the retained time
  // (consumers can only hold more back); another process's expiry only makes this look older
  const withinMax = latest - limits.retainMax + 1 <= state.earliest;
  if (withinMax && (latest - limits.retainMin + 1 <= state.earliest || limits.olderThan <= state.nextTime)) return 0;
  retentionStates.delete(table);
  try {
    return await expireSnapshots(io, root, tableOptions, partitionFields, {}, now);
  } catch (e) {
    // a table this library does not expire (long-lived changelogs no longer retained longer than
    // snapshots) stays so for this object:
    // its commits stop trying
    if (e instanceof PaimonError && e.code === "UNSUPPORTED") retentionStates.set(table, { earliest: Infinity, nextTime: Infinity });
    throw e;
  }
}

/** Expires snapshots per `options`; returns how many snapshot files were removed. */
export async function expireSnapshots(
  io: FileIO,
  root: string,
  tableOptions: TableOptions,
  partitionFields: readonly DataField[],
  options: ExpireOptions = {},
  now = Date.now(),
): Promise<number> {
  const paths = new TablePaths(root, tableOptions, partitionFields);
  const snapshots = new SnapshotManager(io, root, paths.branch);
  const manifests = new ManifestStore(io, paths, partitionFields, tableOptions.manifestCompression);
  // (the branch's own consumers and changelogs: `branch/branch-<name>/…` on a branch)
  const meta = paths.metaRoot;
  // as Java's commit maintenance does before expiring snapshots: consumers idle for longer than
  // consumer.expiration-time stop holding snapshots
  const consumerExpiration = tableOptions.consumerExpirationTime;
  if (consumerExpiration !== null) await expireConsumers(io, meta, now - consumerExpiration);
  const ids = await snapshots.listSnapshotIds();
  if (ids.length === 0) return 0;
  const limits = retentionLimits(tableOptions, options, now);
  const changelogLimits = changelogRetention(tableOptions, limits, options.olderThanMs ?? tableOptions.snapshotTimeRetained, now);
  const decoupled = changelogLimits !== null;
  if (!decoupled) await refuseLongLivedChangelogs(snapshots);
  // Java CoreOptions.consumerChangelogOnly: the option counts only with decoupled changelogs
  const consumerNext = tableOptions.consumerChangelogOnly && decoupled ? null : await minConsumerNextSnapshot(io, meta);
  const keepFrom = await firstRetainedId(snapshots, ids[0]!, ids[ids.length - 1]!, limits, consumerNext);
  const end = ids.findIndex((id) => id >= keepFrom);
  if (end <= 0) {
    if (decoupled) await expireChangelogs(io, paths, snapshots, manifests, changelogLimits, root);
    return 0;
  }
  const expired = ids.slice(0, end);
  const retained: Snapshot[] = [];
  for (const id of ids.slice(end)) {
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) retained.push(s);
  }
  const firstRetained = retained[0];
  const tags = await listTags(snapshots);
  const tagged = taggedSnapshots(tags);
  // files the table's other branches still use (they share data files and manifests)
  const pinned = await otherBranchesPinned(io, root, paths.branch);
  const pinnedData = new Set<string>();
  for (const s of pinned) for (const e of await manifests.liveEntries(s)) pinnedData.add(dataFileKey(e.partition, e.bucket, e.file.fileName));

  // Data files deleted by the deltas up to the first retained snapshot are referenced by no
  // retained one; those the newest tag before the delta holds stay (a file it holds and that
  // is deleted later was live in every snapshot between, so older tags need no look).
  // With decoupled changelogs and changelog-producer none the changelog is the delta: the files
  // written as APPEND (or of unknown source) that a compaction deleted stay for the changelog
  // (Java SnapshotDeletion.cleanUnusedDataFiles), only compaction outputs go now.
  const producerNone = (tableOptions.raw["changelog-producer"] ?? "none").trim().toLowerCase() === "none";
  const keepAppended = decoupled && producerNone;
  const dataSkip = new DataFileSkipper(manifests, tagged, pinnedData);
  const dataToDelete: string[] = [];
  for (const id of [...expired.slice(1), firstRetained.id]) {
    const s = id === firstRetained.id ? firstRetained : await snapshots.tryGetSnapshot(id);
    if (s === null) continue;
    dataToDelete.push(...(await deletedByDelta(manifests, paths, s.deltaManifestList, await dataSkip.forId(id), keepAppended)));
  }

  // Metadata files referenced by any retained or tagged snapshot stay.
  const keep = new Set<string>();
  for (const s of [...retained, ...tagged, ...pinned]) await collectMetadataFiles(manifests, paths, s, keep);
  const drop = new Set<string>();
  // Java SnapshotDeletion.cleanUnusedManifests: a decoupled changelog keeps its snapshot's
  // changelog manifest list, and with changelog-producer none its base and delta ones.
  const parts = { data: !decoupled || !producerNone, changelog: !decoupled };
  for (const id of expired) {
    const s = await snapshots.tryGetSnapshot(id);
    if (s === null) continue;
    await collectMetadataFiles(manifests, paths, s, drop, parts);
    // Java ExpireSnapshotsImpl: without decoupled changelogs the changelog files an expired
    // snapshot added go with it
    if (!decoupled) for (const e of await manifests.changelogEntries(s)) if (e.kind !== FILE_KIND_DELETE) dataToDelete.push(...paths.dataFilesOf(e.partition, e.bucket, e.file));
  }

  const metadataToDelete = metadataPathsOnlyIn(paths, drop, keep);
  // Every deletion is checked before the first one: metadata naming a path outside the table
  // (corrupt or hostile) stops expiry with nothing deleted.
  for (const path of [...dataToDelete, ...metadataToDelete]) paths.checkDeletable(path, `a snapshot expired from ${root}`);

  // Real-time progress must survive the snapshot that wrote it: when the first retained snapshot
  // does not carry realtime.offsets (another engine committed after it), its effective progress
  // is written as a progress anchor before anything is deleted.
  const progress: ProgressSource = {
    io,
    location: root,
    partitionFields,
    partitionDefaultName: tableOptions.partitionDefaultName,
    partitionLegacyName: tableOptions.partitionLegacyName,
    snapshots,
    manifests,
  };
  // (real-time progress and its anchors are the main branch's: `metadata/` is shared)
  const onMain = paths.branch === MAIN_BRANCH;
  if (onMain && offsetsFileOf(root, firstRetained) === null) {
    const effective = await effectiveOffsets(progress, firstRetained);
    if (effective.size > 0) await io.writeFile(progressAnchorPath(root, firstRetained.id), serializeOffsets(effective));
  }
  // A tag outlives its snapshot and rollbackToTag makes it the latest again: a tagged snapshot
  // that expires now without progress of its own keeps its effective progress in its own anchor
  // (the snapshots it was resolved from go with this expiry).
  const expiring = new Set(expired);
  for (const t of onMain ? tagged : []) {
    if (!expiring.has(t.id) || offsetsFileOf(root, t) !== null) continue;
    const effective = await effectiveOffsets(progress, t);
    if (effective.size > 0) await io.writeFile(progressAnchorPath(root, t.id), serializeOffsets(effective));
  }

  // Snapshot files go first, oldest first, stopping at the first one that cannot be deleted: the
  // snapshots left stay contiguous and keep every file they reference (a failure midway left a gap
  // before — snapshot 1 kept, 2 and 3 gone — with files snapshot 1 references deleted). Only a
  // complete run deletes the data and metadata files; otherwise they are orphans for
  // removeOrphanFiles (best effort either way).
  // A decoupled table's expired snapshot is first written as its changelog (Java
  // ExpireSnapshotsImpl.commitChangelog before deleteSnapshot), so its changes stay readable.
  let removed = 0;
  for (const id of expired) {
    if (decoupled && !(await keepAsChangelog(io, snapshots, id))) break;
    if (!(await io.delete(snapshots.paths.snapshot(id)).then(() => true, () => false))) break;
    removed++;
  }
  if (removed < expired.length) {
    await snapshots.writeHint("EARLIEST", expired[removed]!);
    return removed;
  }
  await deleteFiles(io, dataToDelete).catch(() => undefined);
  await deleteFiles(io, metadataToDelete).catch(() => undefined);
  await snapshots.writeHint("EARLIEST", firstRetained.id);
  // Anchors of expired snapshots are superseded by the first retained snapshot's own progress or
  // anchor, except those of tagged snapshots (a rollback to the tag restores that progress).
  const taggedIds = new Set(tagged.map((t) => t.id));
  for (const id of onMain ? await listProgressAnchors(io, root) : []) if (id < firstRetained.id && !taggedIds.has(id)) await io.delete(progressAnchorPath(root, id)).catch(() => false);
  // as Java's commit maintenance (AbstractFileStoreTable.newExpireRunnable): changelogs expire
  // after the snapshots
  if (decoupled) await expireChangelogs(io, paths, snapshots, manifests, changelogLimits, root);
  return removed;
}

/** Writes snapshot `id`'s file as changelog-<id> and the changelog LATEST hint; false when it cannot. */
async function keepAsChangelog(io: FileIO, snapshots: SnapshotManager, id: number): Promise<boolean> {
  try {
    const text = await readTextFileIfExists(io, snapshots.paths.snapshot(id));
    if (text === null) return true; // expired meanwhile by another process, which kept it
    await io.writeFile(snapshots.paths.changelog(id), text);
  } catch {
    return false;
  }
  await writeChangelogHint(io, snapshots, "LATEST", id);
  return true;
}

/** Overwrites the changelog `LATEST` / `EARLIEST` hint (Java writes them; listing finds the changelogs); a failure is ignored. */
export async function writeChangelogHint(io: FileIO, snapshots: SnapshotManager, name: "LATEST" | "EARLIEST", id: number): Promise<void> {
  await io.writeFile(joinPath(snapshots.paths.changelogDir, name), String(id)).catch(() => undefined);
}

/**
 * The data files of tagged snapshots and other branches, which expiry keeps (Java
 * `createDataFileSkipperForTags`): a file that the newest tag before a delta holds, and that the
 * delta deletes, was live in every snapshot between, so older tags need no look.
 */
class DataFileSkipper {
  private last: { id: number; files: Set<string> } | null = null;
  constructor(
    private readonly manifests: ManifestStore,
    private readonly tagged: readonly Snapshot[],
    private readonly pinned: ReadonlySet<string>,
  ) {}

  /** For the delta of snapshot or changelog `id`: whether a data file key stays. */
  async forId(id: number): Promise<(key: string) => boolean> {
    const tag = previousTagged(this.tagged, id);
    if (tag === undefined) return (key) => this.pinned.has(key);
    if (this.last?.id !== tag.id) this.last = { id: tag.id, files: new Set((await this.manifests.liveEntries(tag)).map((e) => dataFileKey(e.partition, e.bucket, e.file.fileName))) };
    const files = this.last.files;
    return (key) => files.has(key) || this.pinned.has(key);
  }
}

/**
 * The paths of the data files (with their extra files) the delta manifest list `list` deletes,
 * except those `skip` keeps and, with `keepAppended`, those not written by a compaction (Java
 * FileDeletionBase.getDataFileToDelete: a file the same delta adds again, a compaction that only
 * moved it to another level, is still live).
 */
async function deletedByDelta(manifests: ManifestStore, paths: TablePaths, list: string, skip: (key: string) => boolean, keepAppended: boolean): Promise<string[]> {
  const deleted = new Map<string, string[]>();
  for (const meta of await manifests.readManifestList(list)) {
    for (const e of await manifests.readManifest(meta.fileName)) {
      const [dataPath, ...extra] = paths.dataFilesOf(e.partition, e.bucket, e.file);
      if (e.kind !== FILE_KIND_DELETE) deleted.delete(dataPath!);
      else if (!(keepAppended && e.file.fileSource !== FILE_SOURCE_COMPACT) && !skip(dataFileKey(e.partition, e.bucket, e.file.fileName))) deleted.set(dataPath!, [dataPath!, ...extra]);
    }
  }
  return [...deleted.values()].flat();
}

/**
 * The changelog retention (Java ExpireConfig: `changelog.num-retained.*` and
 * `changelog.time-retained`, defaulting to the snapshot ones; `snapshot.expire.limit` at a time)
 * when it outlives the snapshots' (`isChangelogDecoupled`), else null.
 */
function changelogRetention(o: TableOptions, snapshot: RetentionLimits, snapshotTimeRetained: number, now: number): RetentionLimits | null {
  if (!changelogDecoupled(o, snapshot.retainMin, snapshot.retainMax, snapshotTimeRetained)) return null;
  const retainMin = Math.max(1, o.int("changelog.num-retained.min", snapshot.retainMin));
  const retainMax = o.int("changelog.num-retained.max", snapshot.retainMax);
  const timeRetained = o.raw["changelog.time-retained"] === undefined ? snapshotTimeRetained : o.duration("changelog.time-retained", "0 ms");
  if (retainMax < retainMin) throw new PaimonError("INVALID_ARGUMENT", `changelog.num-retained.max (${retainMax}) must not be less than changelog.num-retained.min (${retainMin})`);
  return { retainMin, retainMax, maxDeletes: snapshot.maxDeletes, olderThan: now - timeRetained };
}

/**
 * Expires long-lived changelogs as Java's ExpireChangelogImpl: changelogs beyond the retained
 * count (counted in snapshot ids from the latest snapshot) go, oldest first, until one younger
 * than the retained time, a consumer's next snapshot or the latest changelog (which Java always
 * keeps); each takes the files only it kept (ChangelogDeletion: its changelog files, or with
 * changelog-producer none the files its delta deleted, and its manifests). Changelog files are
 * deleted first, oldest first, so a failure leaves the kept ones whole (their files orphans at
 * worst). Returns how many changelogs expired.
 */
async function expireChangelogs(io: FileIO, paths: TablePaths, snapshots: SnapshotManager, manifests: ManifestStore, limits: RetentionLimits, root: string): Promise<number> {
  const changelogIds = await listChangelogIds(snapshots);
  const [latest, earliestSnapshot] = [await snapshots.latestSnapshotId(), await snapshots.earliestSnapshotId()];
  if (changelogIds.length === 0 || latest === null || earliestSnapshot === null) return 0;
  const earliest = changelogIds[0]!;
  const min = Math.max(latest - limits.retainMax + 1, earliest);
  let maxExclusive = latest - limits.retainMin + 1;
  const consumerNext = await minConsumerNextSnapshot(io, paths.metaRoot);
  if (consumerNext !== null) maxExclusive = Math.min(maxExclusive, consumerNext);
  maxExclusive = Math.min(maxExclusive, earliest + limits.maxDeletes, changelogIds[changelogIds.length - 1]!);
  let end = maxExclusive;
  for (let id = min; id <= maxExclusive; id++) {
    const c = await tryGetChangelog(snapshots, id);
    if (c !== null && limits.olderThan <= c.timeMillis) {
      end = id;
      break;
    }
  }
  const endChangelog = end > earliest ? await tryGetChangelog(snapshots, end) : null;
  if (endChangelog === null) return 0;
  const expired: Snapshot[] = [];
  for (const id of changelogIds) {
    const c = id < end ? await tryGetChangelog(snapshots, id) : null;
    if (c !== null) expired.push(c);
  }

  const tagged = taggedSnapshots(await listTags(snapshots));
  const pinned = await otherBranchesPinned(io, root, paths.branch);
  const pinnedData = new Set<string>();
  for (const s of pinned) for (const e of await manifests.liveEntries(s)) pinnedData.add(dataFileKey(e.partition, e.bucket, e.file.fileName));
  const dataSkip = new DataFileSkipper(manifests, tagged, pinnedData);
  const keep = new Set<string>();
  const earliestRetained = await snapshots.tryGetSnapshot(earliestSnapshot);
  for (const s of [endChangelog, ...(earliestRetained === null ? [] : [earliestRetained]), ...tagged, ...pinned]) await collectMetadataFiles(manifests, paths, s, keep);
  const drop = new Set<string>();
  const dataToDelete: string[] = [];
  for (const c of expired) {
    if (c.changelogManifestList) {
      for (const e of await manifests.changelogEntries(c).catch(missingAsEmpty)) if (e.kind !== FILE_KIND_DELETE) dataToDelete.push(...paths.dataFilesOf(e.partition, e.bucket, e.file));
      await collectMetadataFiles(manifests, paths, c, drop, { data: false, changelog: true, index: false });
    } else {
      dataToDelete.push(...(await deletedByDelta(manifests, paths, c.deltaManifestList, await dataSkip.forId(c.id), false).catch(missingAsEmpty)));
      await collectMetadataFiles(manifests, paths, c, drop, { data: true, changelog: false, index: false });
    }
  }
  const metadataToDelete = metadataPathsOnlyIn(paths, drop, keep);
  for (const path of [...dataToDelete, ...metadataToDelete]) paths.checkDeletable(path, `a changelog expired from ${root}`);
  let removed = 0;
  for (const c of expired) {
    if (!(await io.delete(snapshots.paths.changelog(c.id)).then(() => true, () => false))) break;
    removed++;
  }
  if (removed < expired.length) {
    await writeChangelogHint(io, snapshots, "EARLIEST", expired[removed]!.id);
    return removed;
  }
  await deleteFiles(io, dataToDelete).catch(() => undefined);
  await deleteFiles(io, metadataToDelete).catch(() => undefined);
  await writeChangelogHint(io, snapshots, "EARLIEST", end);
  return removed;
}

/**
 * UNSUPPORTED when the table has long-lived changelog files but its retention no longer keeps
 * changelogs longer than snapshots: Java's snapshot expiry would then delete the delta files those
 * changelogs read and never expire them; raising a `changelog.num-retained.*` /
 * `changelog.time-retained` again lets them expire.
 */
async function refuseLongLivedChangelogs(snapshots: SnapshotManager): Promise<void> {
  const ids = await listChangelogIds(snapshots);
  if (ids.length > 0) throw new PaimonError("UNSUPPORTED", `expireSnapshots of ${snapshots.paths.metaRoot}: the table has long-lived changelog files (${snapshots.paths.changelog(ids[0]!)}) but its changelog.num-retained.* / changelog.time-retained no longer exceed the snapshot retention; raise one of them so that they expire with their files`);
}

/**
 * Adds the metadata files `snapshot` references to `into`: manifest lists and manifests by name,
 * index manifest by name, index files and its offsets file as `path:<path>`. An offsets property
 * that does not name a file of metadata/ is added as it stands, so the caller's deletability
 * check refuses it (corrupt or hostile metadata stops the operation with nothing deleted).
 */
export async function collectMetadataFiles(manifests: ManifestStore, paths: TablePaths, snapshot: Snapshot, into: Set<string>, parts: { data: boolean; changelog: boolean; index?: boolean } = { data: true, changelog: true }): Promise<void> {
  const lists = [...(parts.data ? [snapshot.baseManifestList, snapshot.deltaManifestList] : []), ...(parts.changelog ? [snapshot.changelogManifestList] : [])];
  for (const list of lists) {
    if (!list) continue;
    into.add(list);
    for (const m of await manifests.readManifestList(list).catch(missingAsEmpty)) into.add(m.fileName);
  }
  // (a changelog's index manifest and offsets went with its snapshot: Java ChangelogDeletion)
  if (parts.index === false) return;
  if (snapshot.indexManifest) {
    into.add(snapshot.indexManifest);
    for (const e of await manifests.readIndexManifest(snapshot.indexManifest).catch(missingAsEmpty)) into.add(`path:${paths.indexFileOf(e.partition, e.bucket, e.indexFile)}`);
  }
  let offsets: string | null;
  try {
    offsets = offsetsFileOf(paths.root, snapshot);
  } catch {
    offsets = snapshot.properties![REALTIME_OFFSETS_PROPERTY];
  }
  if (offsets !== null) into.add(`path:${offsets}`);
}

/** Paths of the files collected in `drop` that are not in `keep`. */
export function metadataPathsOnlyIn(paths: TablePaths, drop: ReadonlySet<string>, keep: ReadonlySet<string>): string[] {
  return [...drop].filter((name) => !keep.has(name)).map((name) => (name.startsWith("path:") ? name.slice(5) : paths.manifest(name)));
}
