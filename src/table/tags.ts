// Paimon tags (Java `TagManager`): `<table>/tag/tag-<name>` holds the JSON of the tagged
// snapshot (plus `tagCreateTime` / `tagTimeRetained`), written by Java's `createTag`, Flink and
// Spark `create_tag` procedures and auto-tagging. A tag keeps its snapshot readable after the
// snapshot expires: expiry, rollback and orphan cleanup keep the files tags use, and a scan
// with `scan.tag-name` reads the tag's snapshot. The one reader of `tag/` for all of them.
import { PaimonError } from "../error.js";
import { type FileIO, joinPath, readTextFileIfExists } from "../fs/file-io.js";
import { fileNameProblem, TEMP_FILE_NAME } from "../spec/file-names.js";
import { parseSnapshotJson, type Snapshot } from "../spec/snapshot.js";

const TAG_PREFIX = "tag-";

export interface Tag {
  readonly name: string;
  readonly path: string;
  /** The tagged snapshot (the tag file's snapshot fields). */
  readonly snapshot: Snapshot;
}

/**
 * `name` when it is a tag name that stays one file inside `tag/` (no `/`, `\`, NUL, not empty,
 * blank, `.` or `..`, at most 255 bytes with the `tag-` prefix); INVALID_ARGUMENT naming `what` otherwise.
 */
export function checkTagName(name: string, what: string): string {
  const problem = name.trim() === "" ? "is blank" : (fileNameProblem(name) ?? fileNameProblem(TAG_PREFIX + name));
  if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `${what}: tag name '${name}' ${problem}`);
  return name;
}

/** The file of tag `name` of the table at `root` (the name checked first). */
export function tagPath(root: string, name: string): string {
  return joinPath(root, "tag", TAG_PREFIX + checkTagName(name, `tag of ${root}`));
}

/** The snapshot tag `name` of the table at `root` holds; NOT_FOUND when there is no such tag. */
export async function readTag(io: FileIO, root: string, name: string): Promise<Snapshot> {
  const path = tagPath(root, name);
  const text = await readTextFileIfExists(io, path);
  if (text === null) throw new PaimonError("NOT_FOUND", `tag '${name}' of ${root} does not exist (${path})`);
  return parseSnapshotJson(text, path);
}

/**
 * Every tag of the table at `root`, by tagged snapshot id then name (Java `TagManager.tags()`):
 * files `tag-<name>` of `tag/` (temporary files of atomic writes and directories skipped). A
 * tag deleted while listing is skipped; one that cannot be parsed fails (CORRUPT_FILE): what
 * it keeps alive cannot be told.
 */
export async function listTags(io: FileIO, root: string): Promise<Tag[]> {
  const tags: Tag[] = [];
  for (const f of await io.listStatus(joinPath(root, "tag"))) {
    if (f.isDir || f.isSymlink || !f.name.startsWith(TAG_PREFIX) || TEMP_FILE_NAME.test(f.name)) continue;
    const name = f.name.slice(TAG_PREFIX.length);
    const path = tagPath(root, name);
    const text = await readTextFileIfExists(io, path);
    if (text !== null) tags.push({ name, path, snapshot: parseSnapshotJson(text, path) });
  }
  return tags.sort((a, b) => a.snapshot.id - b.snapshot.id || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
