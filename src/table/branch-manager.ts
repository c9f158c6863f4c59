// Branches, as Java's `FileSystemBranchManager`: branch `b` of a table is the directory
// `<table>/branch/branch-b` holding its own `snapshot/`, `schema/` and `tag/` (plus `changelog/`
// and `consumer/`); data files, manifests and index files of every branch stay in the table
// directory. A table handle reads and commits to the branch its `branch` option names
// (`Table.switchToBranch`, `t$branch_b`). Loaded by the Table facade on first use only.
import { PaimonError } from "../error.js";
import { type FileIO, joinPath, readTextFileIfExists } from "../fs/file-io.js";
import { TEMP_FILE_NAME } from "../spec/file-names.js";
import { snapshotToJson, type Snapshot } from "../spec/snapshot.js";
import { branchRoot } from "./paths.js";
import { checkBranchName, MAIN_BRANCH } from "./option-validation.js";
import { SchemaManager } from "./schema-manager.js";
import { SnapshotManager } from "./snapshot-manager.js";
import { listTags } from "./tags.js";

const BRANCH_PREFIX = "branch-";

/** The managers of the branch a table handle is on (a `Table`'s parts). */
export interface BranchTarget {
  readonly io: FileIO;
  /** "database.table", for messages. */
  readonly name: string;
  /** The table directory. */
  readonly root: string;
  readonly snapshots: SnapshotManager;
  readonly schemas: SchemaManager;
}

/**
 * The table's branches other than `main`, sorted (Java `FileSystemBranchManager.branches()`: the
 * directories `branch/branch-<name>`; symbolic links and names that are no branch skipped).
 */
export async function listBranches(io: FileIO, root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await io.listStatus(joinPath(root, "branch"))) {
    if (!e.isDir || e.isSymlink || !e.name.startsWith(BRANCH_PREFIX)) continue;
    const name = e.name.slice(BRANCH_PREFIX.length);
    if (name !== "" && !/^\d+$/.test(name) && !name.includes("$")) out.push(name);
  }
  return out.sort();
}

async function branchExists(io: FileIO, root: string, branch: string): Promise<boolean> {
  return io.exists(branchRoot(root, branch));
}

/** Copies `from` to `to` unless `to` exists (false then); NOT_FOUND when `from` is missing. */
async function copyNoReplace(io: FileIO, from: string, to: string): Promise<boolean> {
  return io.writeFileAtomicNoReplace(to, await io.readFile(from));
}

/**
 * Java `copySchemasToBranch`: schemas 0..`schemaId` of the current branch that exist, into the new
 * branch's `schema/`. False when the first one already exists there (another creator won).
 */
async function copySchemas(t: BranchTarget, branch: string, schemaId: number): Promise<boolean> {
  const target = new SchemaManager(t.io, t.root, branch);
  const present = new Set(await t.schemas.listSchemaIds());
  let first = true;
  for (let id = 0; id <= schemaId; id++) {
    if (!present.has(id)) continue;
    if (!(await copyNoReplace(t.io, t.schemas.paths.schema(id), target.paths.schema(id))) && first) return false;
    first = false;
  }
  return true;
}

/**
 * Creates branch `name` as Java's `createBranch`: without `fromTag`, an empty branch (no
 * snapshot) with the current branch's schemas up to the latest; with it, the tag's file, its
 * snapshot (as `snapshot-<id>`: the current branch's snapshot file, or the tag's snapshot fields
 * when it has expired, as Java's `trimToSnapshot`) and the schemas up to the snapshot's. The
 * branch's snapshots then continue from the tagged one and share its files. INVALID_ARGUMENT for a
 * bad name, ALREADY_EXISTS when the branch exists, NOT_FOUND when the tag does not; nothing is
 * written then.
 */
export async function createBranch(t: BranchTarget, name: string, fromTag?: string): Promise<void> {
  const what = `createBranch of ${t.name}`;
  checkBranchName(name, what);
  const dir = branchRoot(t.root, name);
  if (await branchExists(t.io, t.root, name)) throw new PaimonError("ALREADY_EXISTS", `${what}: branch '${name}' already exists (${dir})`);
  let tag: Snapshot | null = null;
  let schemaId: number;
  if (fromTag !== undefined) {
    const tagPath = t.snapshots.paths.tag(fromTag, what);
    tag = await t.snapshots.tryGetTag(fromTag);
    if (tag === null) throw new PaimonError("NOT_FOUND", `${what}: tag '${fromTag}' does not exist (${tagPath})`);
    schemaId = tag.schemaId;
  } else {
    const ids = await t.schemas.listSchemaIds();
    if (ids.length === 0) throw new PaimonError("NOT_FOUND", `${what}: table ${t.name} has no schema`);
    schemaId = ids[ids.length - 1]!;
  }
  const branch = new SnapshotManager(t.io, t.root, name);
  try {
    if (tag !== null) {
      if (!(await copyNoReplace(t.io, t.snapshots.paths.tag(fromTag!), branch.paths.tag(fromTag!)))) throw new PaimonError("ALREADY_EXISTS", `${what}: branch '${name}' already exists (${dir})`);
      const own = await readTextFileIfExists(t.io, t.snapshots.paths.snapshot(tag.id));
      await t.io.writeFileAtomicNoReplace(branch.paths.snapshot(tag.id), own ?? snapshotToJson(tag));
    }
    if (!(await copySchemas(t, name, schemaId)) && tag === null) throw new PaimonError("ALREADY_EXISTS", `${what}: branch '${name}' already exists (${dir})`);
  } catch (e) {
    // a concurrent creator's branch stays; a half-written one of ours goes
    if (!(e instanceof PaimonError && e.code === "ALREADY_EXISTS")) await t.io.deleteDirectory(dir).catch(() => false);
    throw e;
  }
}

/**
 * Drops branch `name` as Java's `dropBranch`: its directory (snapshots, schemas, tags) goes; the
 * data files only it used stay for `removeOrphanFiles`, as in Java. NOT_FOUND when it does not
 * exist, INVALID_ARGUMENT for `main` or a bad name.
 */
export async function dropBranch(t: BranchTarget, name: string): Promise<void> {
  const what = `dropBranch of ${t.name}`;
  checkBranchName(name, what);
  if (name === t.snapshots.paths.branch) throw new PaimonError("INVALID_ARGUMENT", `${what}: cannot drop branch '${name}' through a handle on it; drop it from another branch`);
  const dir = branchRoot(t.root, name);
  if (!(await branchExists(t.io, t.root, name))) throw new PaimonError("NOT_FOUND", `${what}: branch '${name}' does not exist (${dir})`);
  await t.io.deleteDirectory(dir);
}

/**
 * Java's `fastForward(branch)`: the current branch (usually `main`) takes branch `name`'s
 * history. Its snapshots from the branch's earliest snapshot on, its schemas from that
 * snapshot's schema on and its tags of those snapshots are deleted (with the LATEST hint), then
 * the branch's `snapshot/`, `schema/` and `tag/` files are copied over. Files only the deleted
 * snapshots used are left to `removeOrphanFiles`, as in Java. INVALID_ARGUMENT for `main`, a bad
 * name or the current branch, NOT_FOUND when the branch does not exist or has no snapshot;
 * nothing changes then.
 */
export async function fastForward(t: BranchTarget, name: string): Promise<void> {
  const what = `fastForward of ${t.name}`;
  checkBranchName(name, what);
  if (name === t.snapshots.paths.branch) throw new PaimonError("INVALID_ARGUMENT", `${what}: fast-forward from the current branch '${name}' is not allowed`);
  if (!(await branchExists(t.io, t.root, name))) throw new PaimonError("NOT_FOUND", `${what}: branch '${name}' does not exist (${branchRoot(t.root, name)})`);
  const branch = new SnapshotManager(t.io, t.root, name);
  const earliestId = await branch.earliestSnapshotId();
  const earliest = earliestId === null ? null : await branch.tryGetSnapshot(earliestId);
  if (earliest === null) throw new PaimonError("NOT_FOUND", `${what}: cannot fast forward branch '${name}', because it does not have snapshot`);
  const io = t.io;
  const own = t.snapshots;
  const doomed: string[] = [];
  for (const id of await own.listSnapshotIds()) if (id >= earliest.id) doomed.push(own.paths.snapshot(id));
  for (const id of await t.schemas.listSchemaIds()) if (id >= earliest.schemaId) doomed.push(t.schemas.paths.schema(id));
  for (const tag of await listTags(own)) if (tag.snapshot.id >= earliest.id) doomed.push(tag.path);
  // as Java: the hint first, so no reader trusts it while snapshots change under it
  await io.delete(joinPath(own.paths.snapshotDir, "LATEST")).catch(() => false);
  for (const p of doomed) await io.delete(p).catch(() => false);
  for (const [from, to] of [
    [branch.paths.snapshotDir, own.paths.snapshotDir],
    [new SchemaManager(io, t.root, name).paths.schemaDir, t.schemas.paths.schemaDir],
    [branch.paths.tagDir, own.paths.tagDir],
  ] as const) {
    for (const f of await io.listStatus(from)) {
      if (f.isDir || f.isSymlink || TEMP_FILE_NAME.test(f.name)) continue;
      await io.writeFile(joinPath(to, f.name), await io.readFile(f.path));
    }
  }
  own.forgetCachedLatest();
}

/**
 * The snapshots whose files expiry, tag deletion and rollback on branch `current` must keep
 * for the table's other branches (main included), which share data files and manifests with it
 * (a branch created from a tag starts at the tagged snapshot): each branch's earliest snapshot
 * and its tags — a file a branch inherited from main and still uses is in its earliest snapshot,
 * since its history only adds files after the tagged one — and, seen from a branch, every
 * snapshot and tag of main (a file main added after its earliest snapshot may be in the tag a
 * branch started from). Java keeps them only through the tag a branch was created from (on both
 * sides); this keeps them also after that tag is deleted. Empty without branches (one listing).
 */
export async function otherBranchesPinned(io: FileIO, root: string, current: string): Promise<Snapshot[]> {
  const branches = await listBranches(io, root);
  if (branches.length === 0) return [];
  const out: Snapshot[] = [];
  for (const branch of [MAIN_BRANCH, ...branches]) {
    if (branch === current) continue;
    const snapshots = new SnapshotManager(io, root, branch);
    if (branch === MAIN_BRANCH) {
      out.push(...(await snapshots.listSnapshots()));
    } else {
      const earliest = await snapshots.earliestSnapshotId();
      const s = earliest === null ? null : await snapshots.tryGetSnapshot(earliest);
      if (s !== null) out.push(s);
    }
    for (const t of await listTags(snapshots)) out.push(t.snapshot);
  }
  return out;
}
