// Long-lived changelogs (Java ChangelogManager): with decoupled changelog retention
// (`changelog.num-retained.*` / `changelog.time-retained` above the snapshot ones) an expired
// snapshot's JSON moves to `changelog/changelog-<id>` of its branch, and its changelog (or, with
// changelog-producer none, its delta) files stay readable until the changelog expires.
import { type FileIO, joinPath, readTextFileIfExists } from "../fs/file-io.js";
import { parseSnapshotJson, type Snapshot } from "../spec/snapshot.js";

const CHANGELOG_FILE = /^changelog-(\d+)$/;

/** `changelog/` of the branch whose metadata root is `metaRoot`. */
export function changelogDir(metaRoot: string): string {
  return joinPath(metaRoot, "changelog");
}

export function changelogPath(metaRoot: string, id: number): string {
  return joinPath(metaRoot, "changelog", `changelog-${id}`);
}

/** Ids of the long-lived changelog files present, ascending (Java lists too: hints are only hints). */
export async function listChangelogIds(io: FileIO, metaRoot: string): Promise<number[]> {
  const ids: number[] = [];
  for (const f of await io.listStatus(changelogDir(metaRoot))) {
    const m = f.isDir ? null : CHANGELOG_FILE.exec(f.name);
    if (m !== null) ids.push(Number(m[1]));
  }
  return ids.sort((a, b) => a - b);
}

/** Changelog `id` (a snapshot's JSON), null when it does not exist. */
export async function tryGetChangelog(io: FileIO, metaRoot: string, id: number): Promise<Snapshot | null> {
  const path = changelogPath(metaRoot, id);
  const text = await readTextFileIfExists(io, path);
  return text === null ? null : parseSnapshotJson(text, path);
}

/** Overwrites the changelog `LATEST` / `EARLIEST` hint; hints are advisory, so a failure is ignored. */
export async function writeChangelogHint(io: FileIO, metaRoot: string, name: "LATEST" | "EARLIEST", id: number): Promise<void> {
  await io.writeFile(joinPath(changelogDir(metaRoot), name), String(id)).catch(() => undefined);
}
