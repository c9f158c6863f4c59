// Rollback to a retained snapshot (Java's `Table.rollbackTo(snapshotId)` / RollbackHelper): the
// snapshots after it are deleted newest first, so readers never see a gap, the LATEST hint names
// it, then the files only those snapshots referenced are deleted (data files they added that
// the target does not hold, their manifests, index and offsets files) — every path checked to
// lie inside the table before anything changes. Tags of newer snapshots are deleted with them
// (Java 1.4.2 `RollbackHelper.cleanTags`); files a remaining tag uses are kept. Real-time
// progress needs no rewrite: the target's effective progress is the table's again (for a tag of an
// expired snapshot, from the anchor expiry wrote for it); the progress anchors of removed
// snapshots go. Rolling back to a tag (Java `rollbackTo(tagName)`) whose snapshot expired
// restores the snapshot from the tag; the long-lived changelogs (decoupled changelog retention)
// after it go then, with the files only they kept (Java `cleanLongLivedChangelogs` deletes the
// changelog files and leaves their files orphans).
import { collectMetadataFiles, metadataPathsOnlyIn, missingAsEmpty, writeChangelogHint } from "../commit/expire.js";
import { PaimonError } from "../error.js";
import { listProgressAnchors, progressAnchorPath } from "../realtime/offsets.js";
import type { FileIO } from "../fs/file-io.js";
import { FILE_KIND_ADD } from "../spec/manifest.js";
import { type Snapshot, snapshotToJson } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { dataFileKey, type ManifestStore } from "./manifests.js";
import type { TableOptions } from "./options.js";
import type { SnapshotManager } from "./snapshot-manager.js";
import { findSnapshot, listTags, taggedSnapshots } from "./tags.js";
import { otherBranchesPinned } from "./branch-manager.js";
import { MAIN_BRANCH } from "./option-validation.js";
import { listChangelogIds, tryGetChangelog } from "./changelogs.js";

export interface RollbackTarget {
  readonly io: FileIO;
  readonly name: string;
  readonly snapshots: SnapshotManager;
  readonly manifests: ManifestStore;
  readonly partitionFields: readonly DataField[];
  readonly options: TableOptions;
}

/**
 * Makes snapshot `snapshotId` the latest; when it has expired but a tag holds it, rolls back to
 * that tag (Java `rollbackTo(long)`); NOT_FOUND (nothing changed) otherwise.
 */
export async function rollbackTo(table: RollbackTarget, snapshotId: number): Promise<void> {
  const { snapshots } = table;
  if (!Number.isSafeInteger(snapshotId) || snapshotId < 1) throw new PaimonError("INVALID_ARGUMENT", `rollbackTo of ${table.name}: snapshot id ${String(snapshotId)} is not a positive integer`);
  const target = await findSnapshot(snapshots, snapshotId);
  if (target === null) {
    throw new PaimonError("NOT_FOUND", `cannot roll ${table.name} back to snapshot ${snapshotId}: it does not exist or has expired, and no tag holds it (${await snapshots.describeRetained()})`);
  }
  await rollbackToSnapshot(table, target);
}

/**
 * Makes the snapshot of tag `name` the latest, as Java's `rollbackTo(String tagName)`: the
 * newer snapshots and tags go as in `rollbackTo`; when the tagged snapshot has expired, every
 * snapshot is newer, and the tag's snapshot is written back as the table's only snapshot
 * (Java `RollbackHelper.createSnapshotFileIfNeeded`, EARLIEST hint too). NOT_FOUND when the tag
 * does not exist, INVALID_ARGUMENT for a name that is not one file of `tag/`.
 */
export async function rollbackToTag(table: RollbackTarget, name: string): Promise<void> {
  const path = table.snapshots.paths.tag(name, `rollbackTo of ${table.name}`);
  const target = await table.snapshots.tryGetTag(name);
  if (target === null) throw new PaimonError("NOT_FOUND", `cannot roll ${table.name} back to tag '${name}': it does not exist (${path})`);
  await rollbackToSnapshot(table, target);
}

async function rollbackToSnapshot(table: RollbackTarget, target: Snapshot): Promise<void> {
  const { snapshots, manifests } = table;
  const snapshotId = target.id;
  const restore = (await snapshots.tryGetSnapshot(snapshotId)) === null;
  const removed: Snapshot[] = [];
  const ids = await snapshots.listSnapshotIds();
  for (const id of ids.filter((i) => i > snapshotId).sort((a, b) => b - a)) {
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) removed.push(s);
  }

  const tags = await listTags(snapshots);
  const removedTags = tags.filter((t) => t.snapshot.id > snapshotId);
  // what the table's other branches still use stays too (they share data files and manifests)
  const keptTagged = [...taggedSnapshots(tags.filter((t) => t.snapshot.id <= snapshotId)), ...(await otherBranchesPinned(table.io, snapshots.paths.root, snapshots.paths.branch))];

  // Data files added after the target that neither the target nor a remaining tag holds (a
  // level upgrade re-adds a file under its old name, so membership is by partition, bucket and name).
  const paths = manifests.paths;
  const live = new Set<string>();
  for (const s of removed.length === 0 && !restore ? [] : [target, ...keptTagged]) for (const e of await manifests.liveEntries(s)) live.add(dataFileKey(e.partition, e.bucket, e.file.fileName));
  const dataToDelete: string[] = [];
  // restoring an expired snapshot: files added between it and the earliest retained snapshot
  // (live there) and those of removed tags of expired snapshots are no delta's additions
  const restoredOver = restore ? [...removed.slice(-1), ...removedTags.map((t) => t.snapshot).filter((t) => !removed.some((s) => s.id === t.id))] : [];
  const candidates = new Set<string>();
  for (const s of restoredOver) {
    for (const e of await manifests.liveEntries(s)) {
      const key = dataFileKey(e.partition, e.bucket, e.file.fileName);
      if (!live.has(key) && !candidates.has(key)) {
        candidates.add(key);
        dataToDelete.push(...paths.dataFilesOf(e.partition, e.bucket, e.file));
      }
    }
  }
  // Long-lived changelogs after the target (only when restoring an expired snapshot) go too: with
  // changelog-producer none they kept APPEND files compactions deleted
  const changelogIds = (await listChangelogIds(snapshots)).filter((id) => id > snapshotId).reverse();
  const removedChangelogs: Snapshot[] = [];
  for (const id of changelogIds) {
    const c = await tryGetChangelog(snapshots, id);
    if (c !== null) removedChangelogs.push(c);
  }
  // the files their deltas added that the target and the kept tags do not hold
  for (const s of [...removed, ...removedChangelogs]) {
    for (const meta of await manifests.readManifestList(s.deltaManifestList).catch(missingAsEmpty)) {
      for (const e of await manifests.readManifest(meta.fileName).catch(missingAsEmpty)) {
        const key = dataFileKey(e.partition, e.bucket, e.file.fileName);
        if (e.kind === FILE_KIND_ADD && !live.has(key) && !candidates.has(key)) {
          candidates.add(key);
          dataToDelete.push(...paths.dataFilesOf(e.partition, e.bucket, e.file));
        }
      }
    }
  }
  // Changelog files of the removed snapshots and changelogs: only they reference them (tags kept are older)
  for (const s of [...removed, ...removedChangelogs]) for (const e of await manifests.changelogEntries(s).catch(missingAsEmpty)) if (e.kind === FILE_KIND_ADD) dataToDelete.push(...paths.dataFilesOf(e.partition, e.bucket, e.file));
  // Metadata: everything the removed snapshots reference that the target and the remaining
  // tags do not (files created after the target; what older snapshots reference, the target
  // references too).
  const keep = new Set<string>();
  for (const s of [target, ...keptTagged]) await collectMetadataFiles(manifests, paths, s, keep);
  const drop = new Set<string>();
  for (const s of [...removed, ...restoredOver]) await collectMetadataFiles(manifests, paths, s, drop);
  for (const c of removedChangelogs) await collectMetadataFiles(manifests, paths, c, drop, { data: true, changelog: true, index: false });
  const metadataToDelete = metadataPathsOnlyIn(paths, drop, keep);
  // Every deletion is checked before anything changes: metadata naming a path outside the table
  // (corrupt or hostile) stops the rollback with nothing deleted.
  for (const path of [...dataToDelete, ...metadataToDelete]) paths.checkDeletable(path, `a snapshot rolled back from ${table.name}`);

  // the restored snapshot is published first (it is older than every snapshot, so no writer
  // races for its id): readers always find a snapshot
  if (restore && !(await table.io.writeFileAtomicNoReplace(snapshots.paths.snapshot(snapshotId), snapshotToJson(target)))) {
    throw new PaimonError("COMMIT_CONFLICT", `cannot roll ${table.name} back to snapshot ${snapshotId}: another writer created it meanwhile`);
  }
  for (const s of removed) await table.io.delete(snapshots.paths.snapshot(s.id));
  snapshots.forgetCachedLatest();
  await snapshots.writeHint("LATEST", snapshotId);
  if (restore && !ids.some((i) => i < snapshotId)) await snapshots.writeHint("EARLIEST", snapshotId);
  for (const t of removedTags) await table.io.delete(t.path);
  // newest first, as the snapshots: the changelogs left stay contiguous
  for (const id of changelogIds) await table.io.delete(snapshots.paths.changelog(id));
  // (Java: -1 when none is left)
  if (changelogIds.length > 0) await writeChangelogHint(table.io, snapshots, "LATEST", (await listChangelogIds(snapshots)).length === 0 ? -1 : snapshotId);
  // Progress anchors of the removed snapshots and tags describe snapshots that no longer exist;
  // left behind, one would become the base of the walk once a new snapshot reuses its id.
  for (const id of snapshots.paths.branch === MAIN_BRANCH ? await listProgressAnchors(table.io, snapshots.paths.root) : []) if (id > snapshotId) await table.io.delete(progressAnchorPath(snapshots.paths.root, id)).catch(() => false);
  await Promise.all(dataToDelete.map((p) => table.io.delete(p).catch(() => false)));
  for (const path of metadataToDelete) await table.io.delete(path).catch(() => false);
}
