// Creating and deleting tags, as Java's `Table.createTag / deleteTag` (`TagManager`,
// `TagDeletion`), renamed and replaced (`renameTag / replaceTag`): listing them and the files
// they keep on expiry are in tags.ts, tags the commit creates and expires in tag-auto.ts. Loaded
// by the Table facade on first use only.
import { collectMetadataFiles, metadataPathsOnlyIn } from "../commit/expire.js";
import { PaimonError } from "../error.js";
import { progressAnchorPath } from "../realtime/offsets.js";
import { type Snapshot, snapshotToJson } from "../spec/snapshot.js";
import { dataFileKey, type ManifestStore } from "./manifests.js";
import type { TableOptions } from "./options.js";
import type { SnapshotManager } from "./snapshot-manager.js";
import { MAIN_BRANCH } from "./option-validation.js";
import { findSnapshot, listTags, taggedSnapshots } from "./tags.js";
import { otherBranchesPinned } from "./branch-manager.js";
import { icebergTagMetadataDir, updateIcebergTagRef } from "../commit/iceberg-compat.js";

const TAG_DEFAULT_TIME_RETAINED = "tag.default-time-retained";

/** Where tags are created and deleted (a `Table`'s parts). */
export interface TagTarget {
  readonly name: string;
  readonly snapshots: SnapshotManager;
  readonly manifests: ManifestStore;
  readonly options: TableOptions;
}

/**
 * Java's tag callbacks (`AbstractFileStore.createTagCallbacks`) this library runs: with Iceberg
 * compatibility metadata, the latest metadata gets the tag's ref (`snapshotId`) or loses it (null).
 * Checked before the tag changes (INVALID_ARGUMENT for a bad `metadata.iceberg.*` value, nothing
 * changed); the returned function runs after it.
 */
function tagCallbacks(table: TagTarget): (tag: string, snapshotId: number | null) => Promise<void> {
  const dir = icebergTagMetadataDir(table.snapshots.paths.root, table.options);
  return async (tag, snapshotId) => {
    if (dir !== null) await updateIcebergTagRef(table.snapshots.io, table.snapshots, dir, tag, snapshotId);
  };
}

/** Java's `Tag.tagCreateTime` as Jackson writes a `LocalDateTime` (JavaTimeModule): `[y, M, d, h, m(, s(, nanos))]`, local time. */
function localDateTimeJson(at: Date): string {
  const parts = [at.getFullYear(), at.getMonth() + 1, at.getDate(), at.getHours(), at.getMinutes()];
  const s = at.getSeconds(), nanos = at.getMilliseconds() * 1_000_000;
  if (s > 0 || nanos > 0) parts.push(s);
  if (nanos > 0) parts.push(nanos);
  return `[ ${parts.join(", ")} ]`;
}

/** Java's `Tag.tagTimeRetained` as Jackson writes a `Duration`: seconds with 9 decimals. */
function durationJson(ms: number): string {
  const total = Math.round(ms);
  return `${Math.floor(total / 1000)}.${String((total % 1000) * 1_000_000).padStart(9, "0")}`;
}

/**
 * The content of a tag file, as Java's `TagManager.createOrReplaceTag`: the snapshot's JSON, plus
 * `tagCreateTime` (`now`, local time) and `tagTimeRetained` when a retention is given — without one,
 * Java writes the plain snapshot so readers ≤0.7 read it.
 */
export function tagFileContent(snapshot: Snapshot, retainedMs: number | null, now: Date): string {
  const json = snapshotToJson(snapshot);
  return retainedMs === null ? json : `${json.replace(/\n}\s*$/, "")},\n  "tagCreateTime" : ${localDateTimeJson(now)},\n  "tagTimeRetained" : ${durationJson(retainedMs)}\n}`;
}

/** The tagged snapshot: the latest when `snapshotId` is undefined, else that one or the one a tag holds (Java `findSnapshot`). */
async function snapshotToTag(snapshots: SnapshotManager, snapshotId: number | undefined, what: string, verb: "create" | "replace", name: string): Promise<Snapshot> {
  if (snapshotId === undefined) {
    const latest = await snapshots.latestSnapshot();
    if (latest === null) throw new PaimonError("NOT_FOUND", `${what}: cannot ${verb} tag '${name}' because the table has no snapshot`);
    return latest;
  }
  if (!Number.isSafeInteger(snapshotId) || snapshotId < 1) throw new PaimonError("INVALID_ARGUMENT", `${what}: snapshot id ${String(snapshotId)} is not a positive integer`);
  const snapshot = await findSnapshot(snapshots, snapshotId);
  if (snapshot === null) throw new PaimonError("NOT_FOUND", `${what}: snapshot ${snapshotId} does not exist (expired or never committed) and no tag holds it`);
  return snapshot;
}

function checkRetained(retained: number | null, what: string): void {
  if (retained !== null && !(Number.isFinite(retained) && retained >= 0)) throw new PaimonError("INVALID_ARGUMENT", `${what}: time retained ${String(retained)} ms is not a non-negative number`);
}

/**
 * Java's `TagManager.validateNoAutoTag`: on a table creating tags by process time or watermark, a
 * tag whose name is an auto-tag name (of `tag.creation-period`) may not go to a snapshot that
 * already has one — the auto-tag series would hold two tags of one snapshot, which Java's
 * `TagAutoCreation` refuses to read. ALREADY_EXISTS naming them.
 */
async function checkNoAutoTag(table: TagTarget, name: string, snapshot: Snapshot, what: string): Promise<void> {
  const mode = table.options.raw["tag.automatic-creation"]?.toLowerCase();
  if (mode !== "process-time" && mode !== "watermark") return;
  const { autoTagsOfSnapshot } = await import("./tag-auto.js");
  const autoTags = await autoTagsOfSnapshot(table, name, snapshot.id);
  if (autoTags !== null && autoTags.length > 0) throw new PaimonError("ALREADY_EXISTS", `${what}: snapshot ${snapshot.id} is already auto-tagged with [${autoTags.join(", ")}]`);
}

/**
 * Creates tag `name` of snapshot `snapshotId` (the latest when omitted), as Java's
 * `Table.createTag` / `TagManager.createTag`: the file holds the snapshot's JSON, plus
 * `tagCreateTime` / `tagTimeRetained` when a retention is given (`timeRetainedMs`, else the table's
 * `tag.default-time-retained`) — without one, Java writes the plain snapshot so readers ≤0.7 read it.
 * A snapshot that expired but is tagged can be tagged again (Java `findSnapshot`). Published
 * atomically without replacing: ALREADY_EXISTS when the tag exists, NOT_FOUND when the snapshot
 * does not, INVALID_ARGUMENT for a name that is not one file of `tag/`; nothing changes on error.
 */
export async function createTag(table: TagTarget, name: string, snapshotId?: number, timeRetainedMs?: number | null, now = new Date()): Promise<Snapshot> {
  const { snapshots } = table;
  const what = `createTag of ${table.name}`;
  const path = snapshots.paths.tag(name, what);
  const snapshot = await snapshotToTag(snapshots, snapshotId, what, "create", name);
  const retained = timeRetainedMs ?? defaultTimeRetained(table.options);
  checkRetained(retained, what);
  await checkNoAutoTag(table, name, snapshot, what);
  const notify = tagCallbacks(table);
  if (!(await snapshots.io.writeFileAtomicNoReplace(path, tagFileContent(snapshot, retained, now)))) throw new PaimonError("ALREADY_EXISTS", `${what}: tag '${name}' already exists (${path})`);
  await notify(name, snapshot.id);
  return snapshot;
}

/**
 * Writes tag `name` of `snapshot` unless a tag of that name exists (then false: Java's `createTag`
 * with `ignoreIfExists`, as the commit's automatic tags use it).
 */
export async function createTagFile(table: TagTarget, name: string, snapshot: Snapshot, retainedMs: number | null, now: Date): Promise<boolean> {
  const notify = tagCallbacks(table);
  const created = await table.snapshots.io.writeFileAtomicNoReplace(table.snapshots.paths.tag(name, `tag of ${table.name}`), tagFileContent(snapshot, retainedMs, now));
  if (created) await notify(name, snapshot.id);
  return created;
}

/** The table's `tag.default-time-retained` in milliseconds, null when unset. */
export function defaultTimeRetained(options: TableOptions): number | null {
  return options.raw[TAG_DEFAULT_TIME_RETAINED] === undefined ? null : options.duration(TAG_DEFAULT_TIME_RETAINED, "0 ms");
}

/**
 * Renames tag `name` to `newName`, as Java's `Table.renameTag` / `TagManager.renameTag`: the file
 * moves unchanged (its snapshot, creation time and retention stay). NOT_FOUND when `name` does not
 * exist, ALREADY_EXISTS when `newName` does (the file system's no-replace rename decides a race),
 * INVALID_ARGUMENT for a name that is not one file of `tag/`; nothing changes on error.
 */
export async function renameTag(table: TagTarget, name: string, newName: string): Promise<void> {
  const { snapshots } = table;
  const what = `renameTag of ${table.name}`;
  const from = snapshots.paths.tag(name, what);
  const to = snapshots.paths.tag(newName, what);
  if (!(await snapshots.io.exists(from))) throw new PaimonError("NOT_FOUND", `${what}: tag '${name}' does not exist (${from})`);
  if (await snapshots.io.exists(to)) throw new PaimonError("ALREADY_EXISTS", `${what}: tag '${newName}' already exists (${to})`);
  if (!(await snapshots.io.rename(from, to))) throw new PaimonError("ALREADY_EXISTS", `${what}: tag '${newName}' already exists (${to})`);
}

/**
 * Points existing tag `name` at snapshot `snapshotId` (the latest when omitted), as Java's
 * `Table.replaceTag` / `TagManager.replaceTag`: the file is rewritten (readers see the old or the
 * new content) with `timeRetainedMs` as its retention — only the one given: as Java, the table's
 * `tag.default-time-retained` does not apply, and without one the file is the plain snapshot.
 * NOT_FOUND when the tag or the snapshot does not exist, INVALID_ARGUMENT for a bad name or
 * retention; nothing changes on error. Returns the tagged snapshot.
 */
export async function replaceTag(table: TagTarget, name: string, snapshotId?: number, timeRetainedMs?: number | null, now = new Date()): Promise<Snapshot> {
  const { snapshots } = table;
  const what = `replaceTag of ${table.name}`;
  const path = snapshots.paths.tag(name, what);
  const retained = timeRetainedMs ?? null;
  checkRetained(retained, what);
  if (!(await snapshots.io.exists(path))) throw new PaimonError("NOT_FOUND", `${what}: tag '${name}' does not exist (${path})`);
  const snapshot = await snapshotToTag(snapshots, snapshotId, what, "replace", name);
  await checkNoAutoTag(table, name, snapshot, what);
  const notify = tagCallbacks(table);
  await snapshots.io.writeFile(path, tagFileContent(snapshot, retained, now));
  await notify(name, snapshot.id); // (Java: the Iceberg callback only)
  return snapshot;
}

/**
 * Deletes tag `name`, as Java's `Table.deleteTag` / `TagManager.deleteTag`: when its snapshot
 * has expired and no other tag holds it, the files only it kept alive go too (Java `doClean`:
 * data files, manifests, manifest lists, index files that neither the neighbouring tags nor the
 * earliest retained snapshot use — a file's users are consecutive snapshots, so no other tag or
 * snapshot can use one those do not). Every path is checked to lie inside the table before the
 * tag file goes. NOT_FOUND when the tag does not exist (Java only logs a warning).
 */
export async function deleteTag(table: TagTarget, name: string): Promise<void> {
  const { snapshots, manifests } = table;
  const what = `deleteTag of ${table.name}`;
  const path = snapshots.paths.tag(name, what);
  const tag = await snapshots.tryGetTag(name);
  if (tag === null) throw new PaimonError("NOT_FOUND", `${what}: tag '${name}' does not exist (${path})`);
  const notify = tagCallbacks(table);
  const tags = await listTags(snapshots);
  const earliest = await snapshots.earliestSnapshotId();
  const kept = earliest === null ? null : await snapshots.tryGetSnapshot(earliest);
  if ((await snapshots.tryGetSnapshot(tag.id)) !== null || tags.some((t) => t.name !== name && t.snapshot.id === tag.id)) {
    await snapshots.io.delete(path);
    await notify(name, null);
    return;
  }
  const tagged = taggedSnapshots(tags);
  const index = tagged.findIndex((s) => s.id === tag.id);
  const neighbours: Snapshot[] = [];
  if (index > 0) neighbours.push(tagged[index - 1]!);
  const rightTag = tagged[index + 1];
  const right = kept === null ? rightTag : rightTag === undefined || kept.id < rightTag.id ? kept : rightTag;
  if (right !== undefined) neighbours.push(right);
  // and what the table's other branches still use (they share data files and manifests)
  neighbours.push(...(await otherBranchesPinned(snapshots.io, snapshots.paths.root, snapshots.paths.branch)));

  const paths = manifests.paths;
  const live = new Set<string>();
  for (const s of neighbours) for (const e of await manifests.liveEntries(s)) live.add(dataFileKey(e.partition, e.bucket, e.file.fileName));
  const dataToDelete: string[] = [];
  for (const e of await manifests.liveEntries(tag)) if (!live.has(dataFileKey(e.partition, e.bucket, e.file.fileName))) dataToDelete.push(...paths.dataFilesOf(e.partition, e.bucket, e.file));
  const keep = new Set<string>();
  for (const s of neighbours) await collectMetadataFiles(manifests, paths, s, keep);
  const drop = new Set<string>();
  await collectMetadataFiles(manifests, paths, tag, drop);
  const metadataToDelete = metadataPathsOnlyIn(paths, drop, keep);
  for (const p of [...dataToDelete, ...metadataToDelete]) paths.checkDeletable(p, `tag '${name}' deleted from ${table.name}`);

  await snapshots.io.delete(path);
  await notify(name, null);
  await Promise.all(dataToDelete.map((p) => snapshots.io.delete(p).catch(() => false)));
  for (const p of metadataToDelete) await snapshots.io.delete(p).catch(() => false);
  // the progress anchor expiry kept for the tag's snapshot (only a tag could restore it)
  if (snapshots.paths.branch === MAIN_BRANCH) await snapshots.io.delete(progressAnchorPath(snapshots.paths.root, tag.id)).catch(() => false);
}
