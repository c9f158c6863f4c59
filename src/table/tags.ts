// Paimon tags (Java `TagManager`): `<table>/tag/tag-<name>` holds the JSON of the tagged
// snapshot (plus `tagCreateTime` / `tagTimeRetained`), written by Java's `createTag`, Flink and
// Spark `create_tag` procedures and auto-tagging. A tag keeps its snapshot readable after the
// snapshot expires: expiry, rollback and orphan cleanup keep the files tags use (listed here), and
// a scan with `scan.tag-name` reads the tag's snapshot (`SnapshotManager.tryGetTag`; the path and
// name check: `TablePaths.tag`). Tags are created and deleted as Java's `Table.createTag` /
// `deleteTag` do (tag-manager.ts; rolling back to one: rollback.ts).
import { joinPath } from "../fs/file-io.js";
import type { Snapshot } from "../spec/snapshot.js";
import { TEMP_FILE_NAME } from "../spec/file-names.js";
import type { SnapshotManager } from "./snapshot-manager.js";

const TAG_PREFIX = "tag-";

export interface Tag {
  readonly name: string;
  readonly path: string;
  /** The tagged snapshot (the tag file's snapshot fields). */
  readonly snapshot: Snapshot;
}

/**
 * Every tag of the table, by tagged snapshot id then name (Java `TagManager.tags()`): files
 * `tag-<name>` of `tag/` (temporary files of atomic writes and directories skipped). A tag
 * deleted while listing is skipped; one that cannot be parsed fails (CORRUPT_FILE): what it
 * keeps alive cannot be told.
 */
export async function listTags(snapshots: SnapshotManager): Promise<Tag[]> {
  const tags: Tag[] = [];
  for (const f of await snapshots.io.listStatus(joinPath(snapshots.paths.root, "tag"))) {
    if (f.isDir || f.isSymlink || !f.name.startsWith(TAG_PREFIX) || TEMP_FILE_NAME.test(f.name)) continue;
    const name = f.name.slice(TAG_PREFIX.length);
    const snapshot = await snapshots.tryGetTag(name);
    if (snapshot !== null) tags.push({ name, path: snapshots.paths.tag(name), snapshot });
  }
  return tags.sort((a, b) => a.snapshot.id - b.snapshot.id || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Snapshot `id`, or when it has expired the one a tag holds (Java `SnapshotManager.findSnapshot` with tags), else null. */
export async function findSnapshot(snapshots: SnapshotManager, id: number): Promise<Snapshot | null> {
  return (await snapshots.tryGetSnapshot(id)) ?? (await listTags(snapshots)).find((t) => t.snapshot.id === id)?.snapshot ?? null;
}

/** The tagged snapshots, one per snapshot id, ascending (Java `TagManager.taggedSnapshots()`). */
export function taggedSnapshots(tags: readonly Tag[]): Snapshot[] {
  const out: Snapshot[] = [];
  for (const t of tags) if (out.length === 0 || out[out.length - 1].id !== t.snapshot.id) out.push(t.snapshot);
  return out;
}

/** The newest tagged snapshot older than snapshot `id` (Java `findPreviousSnapshot`), or undefined. */
export function previousTagged(tagged: readonly Snapshot[], id: number): Snapshot | undefined {
  let found: Snapshot | undefined;
  for (const s of tagged) if (s.id < id) found = s;
  return found;
}
