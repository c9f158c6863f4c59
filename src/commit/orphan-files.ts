// Orphan file removal (Java `OrphanFilesClean` / `remove_orphan_files`): files under the table
// directory that no snapshot, tag or changelog references — left by killed writers, commits that
// gave up, expirations cut short or interrupted atomic writes — are deleted once they are older
// than an age guard, so files of commits still in progress are never touched.
import { PaimonError } from "../error.js";
import { type FileIO, type FileStatus, deleteFiles, joinPath } from "../fs/file-io.js";
import { REALTIME_OFFSETS_PROPERTY, parseSnapshotJson, type Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { ManifestStore } from "../table/manifests.js";
import type { TableOptions } from "../table/options.js";
import { branchRoot, isInsideDirectory, TablePaths } from "../table/paths.js";
import { MAIN_BRANCH } from "../table/option-validation.js";
import { listBranches } from "../table/branch-manager.js";
import { SchemaManager } from "../table/schema-manager.js";
import { listTags } from "../table/tags.js";
import { SnapshotManager } from "../table/snapshot-manager.js";
import { TEMP_FILE_NAME } from "../spec/file-names.js";
import { PROGRESS_ANCHOR_NAME } from "../realtime/offsets.js";
import { missingAsEmpty } from "./expire.js";

/** Java's default `older_than`: one day. */
export const DEFAULT_ORPHAN_AGE_MS = 24 * 60 * 60 * 1000;

export interface RemoveOrphanFilesOptions {
  /**
   * Only files last modified more than this many milliseconds ago are deleted (default one day,
   * as Java). Files of a commit in progress are younger than this; 0 deletes every orphan and is
   * only safe when no writer is active.
   */
  olderThanMs?: number;
  /** List what would be deleted without deleting anything. */
  dryRun?: boolean;
}

export interface RemoveOrphanFilesResult {
  /** Deleted (or, in a dry run, deletable) files, relative to the table directory, sorted. */
  deleted: string[];
  /** Their total size in bytes. */
  bytes: number;
}

const SNAPSHOT_FILE = /^snapshot-\d+$/;
const CHANGELOG_FILE = /^changelog-\d+$/;
const TAG_FILE = /^tag-.+$/;
const SCHEMA_FILE = /^schema-\d+$/;
const HINTS = new Set(["EARLIEST", "LATEST"]);
const OFFSETS_SUFFIX = ".offsets";

/** Everything the table's snapshots, tags and changelogs reference, by directory. */
interface ReferencedFiles {
  /** Manifest, manifest-list and index-manifest names (`manifest/`). */
  manifests: Set<string>;
  /** Index file names (`index/`). */
  indexFiles: Set<string>;
  /** Statistics file names (`statistics/`). */
  statistics: Set<string>;
  /** Data file and extra file names (bucket directories). */
  dataFiles: Set<string>;
  /** Offsets file names (`metadata/`); null when the files holding the committed progress cannot be told apart. */
  offsetsFiles: Set<string> | null;
  /** Ids of the present snapshots and of the tagged ones: their progress anchors are live. */
  anchoredSnapshots: Set<number>;
}

/**
 * Deletes (or with `dryRun` lists) the orphan files of the table at `root`: in `manifest/`,
 * `index/`, `statistics/`, the partition / bucket directories (under `data-file.path-directory`
 * when set), `*.offsets` files and progress anchors of snapshots that neither exist nor are
 * tagged in `metadata/`,
 * and temporary leftovers of atomic writes in `snapshot/`, `schema/`, `changelog/`, `tag/` (of
 * every branch: what any branch's snapshots, changelogs and tags use is referenced).
 * Only files found by listing under `root` are candidates; symbolic links and unknown
 * directories are never followed, external data paths never touched.
 */
export async function removeOrphanFiles(
  io: FileIO,
  root: string,
  partitionFields: readonly DataField[],
  tableOptions: TableOptions,
  options: RemoveOrphanFilesOptions = {},
  now = Date.now(),
): Promise<RemoveOrphanFilesResult> {
  const olderThanMs = options.olderThanMs ?? DEFAULT_ORPHAN_AGE_MS;
  if (typeof olderThanMs !== "number" || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new PaimonError("INVALID_ARGUMENT", `removeOrphanFiles: olderThanMs must be a non-negative number of milliseconds, got ${String(options.olderThanMs)}`);
  }
  const dryRun = options.dryRun ?? false;
  if (!dryRun && io.readOnly) throw new PaimonError("READ_ONLY", `removeOrphanFiles cannot delete files of ${root}: the file system is read-only`);
  // Java `OrphanFilesClean.validBranches`: every branch's references count, and a branch
  // without schema (half created or damaged) stops the run
  const branches = [MAIN_BRANCH, ...(await listBranches(io, root))];
  for (const b of branches) {
    if ((await new SchemaManager(io, root, b).listSchemaIds()).length === 0) throw new PaimonError("CORRUPT_FILE", `removeOrphanFiles: branch '${b}' of ${root} has no schemas; nothing was deleted (check it manually)`);
  }
  // Candidates are listed before the references are read: a commit published in between then
  // has its files in the references; one still in progress has files younger than the guard.
  const candidates = await listCandidates(io, root, tableOptions.dataFilePathDirectory, partitionFields.length, branches);
  const referenced = await referencedFiles(io, root, partitionFields, tableOptions, branches);
  const cutoff = now - olderThanMs;
  const orphans = candidates.filter(({ status, kind }) => {
    // Unknown modification times (0) count as new: age cannot be proven.
    if (!(status.modificationTime > 0 && status.modificationTime < cutoff) && olderThanMs > 0) return false;
    if (kind === "temp") return true;
    if (kind === "manifest") return !referenced.manifests.has(status.name);
    if (kind === "index") return !referenced.indexFiles.has(status.name);
    if (kind === "statistics") return !referenced.statistics.has(status.name);
    // index-file-in-data-file-dir puts index files in the bucket directories
    if (kind === "data") return !referenced.dataFiles.has(status.name) && !referenced.indexFiles.has(status.name);
    if (kind === "anchor") return !referenced.anchoredSnapshots.has(Number(PROGRESS_ANCHOR_NAME.exec(status.name)![1]));
    return referenced.offsetsFiles !== null && !referenced.offsetsFiles.has(status.name);
  });
  const deleted: string[] = [];
  let bytes = 0;
  // Listings only yield paths under the table; a file system that answers otherwise is not trusted.
  const outside = orphans.find(({ status }) => !isInsideDirectory(status.path, root));
  if (outside) throw new PaimonError("IO_ERROR", `removeOrphanFiles: listing ${root} returned ${outside.status.path}, which is outside it; nothing was deleted`);
  // one batch (S3: DeleteObjects, 1000 keys a request); a file gone meanwhile is no failure
  if (!dryRun) await deleteFiles(io, orphans.map(({ status }) => status.path));
  for (const { status } of orphans) {
    deleted.push(status.path.slice(root.replace(/\/+$/, "").length + 1));
    bytes += Math.max(0, status.size);
  }
  return { deleted: deleted.sort(), bytes };
}

type CandidateKind = "temp" | "manifest" | "index" | "statistics" | "data" | "offsets" | "anchor";

interface Candidate {
  status: FileStatus;
  kind: CandidateKind;
}

/** Plain files (no symbolic links) directly in `dir`. */
async function filesIn(io: FileIO, dir: string): Promise<FileStatus[]> {
  return (await io.listStatus(dir)).filter((e) => !e.isDir && !e.isSymlink);
}

async function listCandidates(io: FileIO, root: string, dataDirectory: string | null, partitionDepth: number, branches: readonly string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  // Only real directories of the table are listed: a symbolic link (even one named `manifest`)
  // may lead outside it.
  const dirsOf = async (dir: string) => new Map((await io.listStatus(dir)).map((e) => [e.name, e]));
  const top = await dirsOf(root);
  const filesOf = async (name: string, dirs = top): Promise<FileStatus[]> => {
    const dir = dirs.get(name);
    return dir !== undefined && dir.isDir && !dir.isSymlink ? filesIn(io, dir.path) : [];
  };
  const temps = (files: FileStatus[], keep: (name: string) => boolean) => {
    for (const f of files) if (!keep(f.name) && TEMP_FILE_NAME.test(f.name)) out.push({ status: f, kind: "temp" });
  };
  // each branch's metadata directories (Java `cleanBranchSnapshotDir`)
  for (const branch of branches) {
    const dirs = branch === MAIN_BRANCH ? top : await dirsOf(branchRoot(root, branch));
    temps(await filesOf("snapshot", dirs), (n) => SNAPSHOT_FILE.test(n) || HINTS.has(n));
    temps(await filesOf("changelog", dirs), (n) => CHANGELOG_FILE.test(n) || HINTS.has(n));
    temps(await filesOf("tag", dirs), (n) => TAG_FILE.test(n) && !TEMP_FILE_NAME.test(n));
    temps(await filesOf("schema", dirs), (n) => SCHEMA_FILE.test(n));
  }
  for (const [dir, kind] of [
    ["manifest", "manifest"],
    ["index", "index"],
    ["statistics", "statistics"],
  ] as const) {
    for (const f of await filesOf(dir)) out.push({ status: f, kind: TEMP_FILE_NAME.test(f.name) ? "temp" : kind });
  }
  for (const f of await filesOf("metadata")) {
    if (f.name.endsWith(OFFSETS_SUFFIX)) out.push({ status: f, kind: "offsets" });
    else if (PROGRESS_ANCHOR_NAME.test(f.name)) out.push({ status: f, kind: "anchor" });
    else if (TEMP_FILE_NAME.test(f.name)) out.push({ status: f, kind: "temp" });
  }
  // Partition and bucket directories start at data-file.path-directory (Java `dataFilePath()`), reached through real directories only.
  let dataRoot: string | null = root;
  for (const segment of dataDirectory?.split("/") ?? []) {
    const dir: FileStatus | undefined = dataRoot === null ? undefined : (await io.listStatus(dataRoot)).find((e) => e.name === segment);
    dataRoot = dir !== undefined && dir.isDir && !dir.isSymlink ? dir.path : null;
  }
  for (const dir of dataRoot === null ? [] : await bucketDirs(io, dataRoot, partitionDepth)) {
    for (const f of await filesIn(io, dir)) out.push({ status: f, kind: TEMP_FILE_NAME.test(f.name) ? "temp" : "data" });
  }
  return out;
}

/** `bucket-*` directories under `partitionDepth` levels of `key=value` directories (Java `listFileDirs`). */
async function bucketDirs(io: FileIO, dir: string, partitionDepth: number): Promise<string[]> {
  const dirs = (await io.listStatus(dir)).filter((e) => e.isDir && !e.isSymlink);
  if (partitionDepth === 0) return dirs.filter((e) => e.name.startsWith("bucket-")).map((e) => e.path);
  const out: string[] = [];
  for (const d of dirs) if (d.name.includes("=")) out.push(...(await bucketDirs(io, d.path, partitionDepth - 1)));
  return out;
}

/** Names of every data, extra and index file a snapshot, tag or changelog of the table references. */
export async function referencedFileNames(io: FileIO, root: string, partitionFields: readonly DataField[], tableOptions: TableOptions): Promise<Set<string>> {
  const refs = await referencedFiles(io, root, partitionFields, tableOptions, [MAIN_BRANCH, ...(await listBranches(io, root))]);
  return new Set([...refs.dataFiles, ...refs.indexFiles]);
}

/** The last path segment of a file reference (offsets properties hold full paths). */
const baseName = (ref: string) => ref.slice(Math.max(ref.lastIndexOf("/"), ref.lastIndexOf("\\")) + 1);

async function referencedFiles(io: FileIO, root: string, partitionFields: readonly DataField[], tableOptions: TableOptions, branches: readonly string[]): Promise<ReferencedFiles> {
  const manifests = new ManifestStore(io, new TablePaths(root, tableOptions, partitionFields), partitionFields, tableOptions.manifestCompression);
  const refs: ReferencedFiles = { manifests: new Set(), indexFiles: new Set(), statistics: new Set(), dataFiles: new Set(), offsetsFiles: new Set(), anchoredSnapshots: new Set() };
  const snapshots = await metadataSnapshots(io, root, "snapshot", SNAPSHOT_FILE);
  const tagged = (await listTags(new SnapshotManager(io, root))).map((t) => t.snapshot);
  const changelogs = await metadataSnapshots(io, root, "changelog", CHANGELOG_FILE);
  const others = [...changelogs, ...tagged];
  // an anchor is read only as the base of a walk that reaches its snapshot (see effectiveOffsets)
  for (const s of [...snapshots, ...tagged]) refs.anchoredSnapshots.add(s.id);
  // the other branches' snapshots, changelogs and tags reference files of the same directories
  for (const branch of branches) {
    if (branch === MAIN_BRANCH) continue;
    const dir = branchRoot(root, branch);
    const branchChangelogs = await metadataSnapshots(io, dir, "changelog", CHANGELOG_FILE);
    changelogs.push(...branchChangelogs);
    others.push(...(await metadataSnapshots(io, dir, "snapshot", SNAPSHOT_FILE)), ...branchChangelogs);
    others.push(...(await listTags(new SnapshotManager(io, root, branch))).map((t) => t.snapshot));
  }
  // A file that cannot be read makes the whole run fail: guessing would delete live data. Only a
  // changelog's manifest lists may be gone: with a changelog producer the snapshot expiry that
  // wrote the changelog deleted its base and delta ones (Java SnapshotDeletion; its orphan cleanup
  // reads missing lists as empty).
  const changelogSet = new Set(changelogs);
  for (const s of [...snapshots, ...others]) {
    for (const list of [s.baseManifestList, s.deltaManifestList, s.changelogManifestList]) {
      if (!list || refs.manifests.has(list)) continue;
      refs.manifests.add(list);
      const read = manifests.readManifestList(list);
      for (const meta of await (changelogSet.has(s) ? read.catch(missingAsEmpty) : read)) {
        if (refs.manifests.has(meta.fileName)) continue;
        refs.manifests.add(meta.fileName);
        for (const e of await manifests.readManifest(meta.fileName)) {
          refs.dataFiles.add(e.file.fileName);
          for (const extra of e.file.extraFiles) refs.dataFiles.add(extra);
        }
      }
    }
    if (s.indexManifest && !refs.manifests.has(s.indexManifest)) {
      refs.manifests.add(s.indexManifest);
      for (const e of await manifests.readIndexManifest(s.indexManifest)) refs.indexFiles.add(e.indexFile.fileName);
    }
    if (s.statistics) refs.statistics.add(s.statistics);
  }
  // Real-time progress: the newest snapshot carrying the offsets property names the file that
  // holds it. When no present snapshot carries it (the one that did was expired), which file
  // holds the progress cannot be told: every offsets file is kept.
  const carrying = [...snapshots, ...others].filter((s) => s.properties?.[REALTIME_OFFSETS_PROPERTY]);
  if (!snapshots.some((s) => s.properties?.[REALTIME_OFFSETS_PROPERTY])) refs.offsetsFiles = null;
  else for (const s of carrying) refs.offsetsFiles!.add(baseName(s.properties![REALTIME_OFFSETS_PROPERTY]));
  return refs;
}

/** The snapshots in `dir` (`snapshot/` or `changelog/`: changelogs are snapshot JSON with extra fields). */
async function metadataSnapshots(io: FileIO, root: string, dir: string, pattern: RegExp): Promise<Snapshot[]> {
  const out: Snapshot[] = [];
  for (const f of await filesIn(io, joinPath(root, dir))) {
    if (!pattern.test(f.name) || TEMP_FILE_NAME.test(f.name)) continue;
    let bytes: Uint8Array;
    try {
      bytes = await io.readFile(f.path);
    } catch (e) {
      if (e instanceof PaimonError && e.code === "NOT_FOUND") continue; // expired meanwhile
      throw e;
    }
    out.push(parseSnapshotJson(bytes, f.path));
  }
  return out;
}

/**
 * Parses an age such as `1d`, `2h`, `30m`, `45s`, `500ms` or `0` (CLI `--older-than`) into
 * milliseconds; INVALID_ARGUMENT for anything else.
 */
export function parseAge(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m || (m[2] === undefined && Number(m[1]) !== 0)) {
    throw new PaimonError("INVALID_ARGUMENT", `age '${text}' is not a duration like 1d, 2h, 30m, 45s, 500ms or 0`);
  }
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const unit = units[m[2] ?? "ms"];
  return Number(m[1]) * unit;
}
