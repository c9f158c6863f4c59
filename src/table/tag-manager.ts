// Creating and deleting tags, as Java's `Table.createTag / deleteTag` (`TagManager`,
// `TagDeletion`): listing them and the files they keep on expiry are in tags.ts. Loaded by the
// Table facade on first use only.
import { collectMetadataFiles, metadataPathsOnlyIn } from "../commit/expire.js";
import { PaimonError } from "../error.js";
import { progressAnchorPath } from "../realtime/offsets.js";
import { type Snapshot, snapshotToJson } from "../spec/snapshot.js";
import { dataFileKey, type ManifestStore } from "./manifests.js";
import type { TableOptions } from "./options.js";
import type { SnapshotManager } from "./snapshot-manager.js";
import { findSnapshot, listTags, taggedSnapshots } from "./tags.js";

const TAG_DEFAULT_TIME_RETAINED = "tag.default-time-retained";

/** Where tags are created and deleted (a `Table`'s parts). */
export interface TagTarget {
  readonly name: string;
  readonly snapshots: SnapshotManager;
  readonly manifests: ManifestStore;
  readonly options: TableOptions;
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
  let snapshot: Snapshot | null;
  if (snapshotId === undefined) {
    snapshot = await snapshots.latestSnapshot();
    if (snapshot === null) throw new PaimonError("NOT_FOUND", `${what}: cannot create tag '${name}' because the table has no snapshot`);
  } else {
    if (!Number.isSafeInteger(snapshotId) || snapshotId < 1) throw new PaimonError("INVALID_ARGUMENT", `${what}: snapshot id ${String(snapshotId)} is not a positive integer`);
    snapshot = await findSnapshot(snapshots, snapshotId);
    if (snapshot === null) throw new PaimonError("NOT_FOUND", `${what}: snapshot ${snapshotId} does not exist (expired or never committed) and no tag holds it`);
  }
  const retained = timeRetainedMs ?? (table.options.raw[TAG_DEFAULT_TIME_RETAINED] === undefined ? null : table.options.duration(TAG_DEFAULT_TIME_RETAINED, "0 ms"));
  if (retained !== null && !(Number.isFinite(retained) && retained >= 0)) throw new PaimonError("INVALID_ARGUMENT", `${what}: time retained ${String(retained)} ms is not a non-negative number`);
  const json = snapshotToJson(snapshot);
  const content = retained === null ? json : `${json.replace(/\n}\s*$/, "")},\n  "tagCreateTime" : ${localDateTimeJson(now)},\n  "tagTimeRetained" : ${durationJson(retained)}\n}`;
  if (!(await snapshots.io.writeFileAtomicNoReplace(path, content))) throw new PaimonError("ALREADY_EXISTS", `${what}: tag '${name}' already exists (${path})`);
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
  const tags = await listTags(snapshots);
  const earliest = await snapshots.earliestSnapshotId();
  const kept = earliest === null ? null : await snapshots.tryGetSnapshot(earliest);
  if ((await snapshots.tryGetSnapshot(tag.id)) !== null || tags.some((t) => t.name !== name && t.snapshot.id === tag.id)) {
    await snapshots.io.delete(path);
    return;
  }
  const tagged = taggedSnapshots(tags);
  const index = tagged.findIndex((s) => s.id === tag.id);
  const neighbours: Snapshot[] = [];
  if (index > 0) neighbours.push(tagged[index - 1]!);
  const rightTag = tagged[index + 1];
  const right = kept === null ? rightTag : rightTag === undefined || kept.id < rightTag.id ? kept : rightTag;
  if (right !== undefined) neighbours.push(right);

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
  await Promise.all(dataToDelete.map((p) => snapshots.io.delete(p).catch(() => false)));
  for (const p of metadataToDelete) await snapshots.io.delete(p).catch(() => false);
  // the progress anchor expiry kept for the tag's snapshot (only a tag could restore it)
  await snapshots.io.delete(progressAnchorPath(snapshots.paths.root, tag.id)).catch(() => false);
}
