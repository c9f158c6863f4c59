// A Paimon table: its location, latest schema and options, and the entry points to
// write, commit, scan and read it (API.md `Table`).
import type { Snapshot } from "../spec/snapshot.js";
import type { TimeTravel } from "./time-travel.js";
import { checkOptionChange, parseDuration } from "./options.js";
import type { RemoveOrphanFilesOptions, RemoveOrphanFilesResult } from "../commit/orphan-files.js";
import { checkFileFormatOptions, checkManifestFormatOption } from "../format/file-formats.js";
import { PaimonError } from "../error.js";
import { resolveWarehouse, type WarehouseOptions } from "../fs/resolve.js";
import { TableCommit } from "../commit/table-commit.js";
import { TableRead, type ReadOptions } from "../read/table-read.js";
import { prefetchFlatDecoder } from "../format/parquet-reader.js";
import { prefetchKernels } from "../kernel/wasm.js";
import { TableScan, type ScanOptions } from "../scan/table-scan.js";
import type { TableWrite, TableWriteOptions } from "../write/table-write.js";
import type { StreamReadOptions, StreamScanOptions, StreamTableScan } from "../scan/stream-scan.js";
import type { RescaleOptions } from "../commit/rescale.js";
import { andOrNull, col, type Predicate } from "../predicate/predicate.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { groupByPartitionBucket, partitionBucketKey } from "../spec/manifest.js";
import { deletionFilesOf } from "../scan/merge-tree-splits.js";
import { primaryKeyConfig } from "./primary-key.js";
import type { RecordBatch } from "apache-arrow";
import { checkDeduplicateTableOnLoad, SchemaManager } from "./schema-manager.js";
import { FileStoreTable } from "./file-store-table.js";
import { branchRoot } from "./paths.js";
import { checkBranchName, checkReadOptions, MAIN_BRANCH } from "./option-validation.js";
import { fieldToString } from "../spec/types.js";
import { recordBatch } from "../arrow/record-batch.js";

// Modules loaded on first use, one import site each (bundlers add a preload list to every site).
const tagManagerModule = () => import("./tag-manager.js");
const branchManagerModule = () => import("./branch-manager.js");
const rollbackModule = () => import("./rollback.js");
const streamScanModule = () => import("../scan/stream-scan.js");

// Writing, committing, maintenance and the real-time writer are imported when first used, so
// that a query-only bundle (paimon-rt/edge in a browser) leaves their code in chunks it never loads.

/**
 * Starts loading, without waiting, the modules a table's first read needs on this runtime: the
 * flat Parquet decoder with its zstd module (Node, Deno, Bun) and the kernel module where it is a
 * local file. Opening a table calls it once the schema read is under way, so compiling the wasm
 * (off the main thread) and loading the modules overlap opening the table and planning its first
 * scan instead of following them. Failures are left to the read, which reports them (or falls back).
 */
export function prefetchTableModules(): void {
  void prefetchFlatDecoder();
  prefetchKernels();
}

/** The filter selecting the partitions a spec (values of some or all partition keys) names; exact, as partition pruning is. */
function partitionFilter(spec: Record<string, unknown> | undefined): Predicate | undefined {
  return (spec && andOrNull(Object.entries(spec).map(([k, v]) => (v === null || v === undefined ? col(k).isNull() : col(k).eq(v))))) ?? undefined;
}

/** Options that may make a batch scan read another snapshot than the latest (src/table/time-travel.ts). */
const TIME_TRAVEL_KEY = /^(log\.scan|scan\.(mode|timestamp|snapshot-id|tag-name|watermark|version|file-creation-time-millis|creation-time-millis)|incremental-)/;

/**
 * `table`, its `scan.*` time-travel options parsed (the module that does it is imported only for
 * a table that has such options); a refusal is kept for `newScan` to throw. With
 * `scan.fallback-branch` / `scan.primary-branch` its batch scans and reads (and those of its
 * copies) take partitions from both branches (src/read/branch-fallback.ts, loaded for such tables only).
 */
export async function loadTimeTravel(table: Table): Promise<Table> {
  const parsed = parseTimeTravel(table);
  if (parsed !== null) table.timeTravel = await parsed;
  const o = table.schema.options;
  if (o["scan.fallback-branch"] || o["scan.primary-branch"]) await import("../read/branch-fallback.js").then((m) => m.addBranchFallback(table, { fieldToString, recordBatch }));
  return table;
}

/** The time travel of `table`'s options (or its refusal), null without time-travel options. */
function parseTimeTravel(table: Table): Promise<TimeTravel | PaimonError | null> | null {
  if (!Object.keys(table.schema.options).some((k) => TIME_TRAVEL_KEY.test(k))) return null;
  return import("./time-travel.js").then(({ timeTravelOf }) => {
    try {
      return timeTravelOf(table);
    } catch (e) {
      if (!(e instanceof PaimonError)) throw e;
      return e;
    }
  });
}

export class Table extends FileStoreTable {
  /**
   * Opens the table stored at `location` (a table directory: local path, `file://`,
   * `memory://` or `http(s)://`), without going through a catalog.
   */
  static async open(location: string | URL, options: WarehouseOptions = {}): Promise<Table> {
    const { fileIO, root } = await resolveWarehouse(location, options);
    const latest = new SchemaManager(fileIO, root).latest();
    prefetchTableModules(); // while the schema is read
    const schema = await latest;
    if (schema === null) throw new PaimonError("NOT_FOUND", `no Paimon table at ${root} (no schema files)`);
    const parts = root.split("/").filter((p) => p !== "");
    const table = parts[parts.length - 1] ?? root;
    const db = parts[parts.length - 2]?.replace(/\.db$/, "") ?? "default";
    await checkDeduplicateTableOnLoad(schema, `${db}.${table}`); // the mode's setup is checked at load too (seed 000)
    return loadTimeTravel(new Table(fileIO, `${db}.${table}`, root, schema));
  }

  newWrite(options: TableWriteOptions): Promise<TableWrite> {
    try {
      this.checkWritable("write");
      // The getter refuses a data-file.prefix (from a schema written elsewhere) that would lead
      // out of the bucket directory: checked before any writer or real-time binding exists.
      void this.coreOptions.dataFilePrefix;
      checkFileFormatOptions(this.schema.options, this.identifier); // e.g. a Java table with file.format=orc
    } catch (e) {
      return Promise.reject(e);
    }
    if (options?.realtime !== undefined) {
      // A real-time writer continues the table's buckets and offsets; it cannot start them empty.
      if (options.overwrite) return Promise.reject(new PaimonError("UNSUPPORTED", `newWrite of ${this.identifier}: a real-time writer cannot be an overwrite writer`));
      if (this.coreOptions.branch !== MAIN_BRANCH) return Promise.reject(new PaimonError("UNSUPPORTED", `newWrite of ${this.identifier}: a real-time writer writes the main branch only (branch ${this.coreOptions.branch})`));
      return import("../realtime/writer.js").then(({ newRealtimeWrite }) => newRealtimeWrite(this, options)); // real-time hook (src/realtime)
    }
    return import("../write/table-write.js").then(({ TableWrite }) => new TableWrite(this, options));
  }

  newCommit(options: { commitUser: string }): TableCommit {
    this.checkWritable("commit to");
    return new TableCommit(this, options.commitUser);
  }

  /**
   * Java's `remove_orphan_files`: deletes the files under the table directory that no snapshot,
   * tag or changelog of any branch references (data, manifest and index files, `*.offsets` files, temporary
   * leftovers of interrupted writes) and that were last modified more than `olderThanMs` ago
   * (default one day, so the files of commits in progress are kept). `dryRun` only lists them.
   * Returns the files (relative to the table directory) and their total size.
   */
  removeOrphanFiles(options: RemoveOrphanFilesOptions = {}): Promise<RemoveOrphanFilesResult> {
    try {
      // a dry run only lists, which a read-only file system allows (orphan-files.ts checks too)
      if (options.dryRun === true) this.checkNotTimeTravelView();
      else this.checkWritable("remove orphan files of");
    } catch (e) {
      return Promise.reject(e);
    }
    return import("../commit/orphan-files.js").then(({ removeOrphanFiles }) => removeOrphanFiles(this.fileIO, this.location, this.partitionFields, this.coreOptions, options));
  }

  /** Plans a scan (of the view's snapshot on a time-travel view). */
  newScan(options?: ScanOptions): TableScan {
    checkManifestFormatOption(this.schema.options, this.identifier);
    checkReadOptions(this.schema.options, this.identifier);
    if (this.pinnedSnapshotId === null) return new TableScan(this, options);
    if (options?.snapshotId !== undefined && options.snapshotId !== this.pinnedSnapshotId) {
      throw new PaimonError("INVALID_ARGUMENT", `table ${this.identifier} at snapshot ${this.pinnedSnapshotId} is a time-travel view of that snapshot; use atSnapshot(${options.snapshotId}) for snapshot ${options.snapshotId}`);
    }
    return new TableScan(this, { ...options, snapshotId: this.pinnedSnapshotId });
  }

  /**
   * A streaming scan, as Java Paimon's `newStreamScan` (README "Streaming reads"): its first
   * `plan()` follows `scan.mode` (default latest-full: the latest snapshot's rows; `latest`,
   * `from-snapshot`, `from-snapshot-full`, `from-timestamp`, `compacted-full`), each later one the
   * changes of the next snapshot that has any (the delta files of APPEND snapshots, or the changelog
   * files with a changelog producer), empty while there is none. Options come from the table (use
   * `copy({ "scan.mode": "latest", "consumer-id": "job-1" })`); with `consumer-id` the progress is
   * saved by `notifyCheckpointComplete` and a new stream scan with the same id continues from it.
   */
  newStreamScan(options?: StreamScanOptions): Promise<StreamTableScan> {
    // (the query bundle's modules it uses are passed in: see stream-scan.ts)
    return streamScanModule().then(({ StreamTableScan }) =>
      StreamTableScan.open(this, options, { PaimonError, TableScan, fromBinaryRow, deletionFilesOf, primaryKeyConfig, groupByPartitionBucket, partitionBucketKey, parseDuration, checkManifestFormatOption, checkReadOptions }),
    );
  }

  /**
   * Streams the table's rows: the batches of each plan of a stream scan (`newStreamScan`), read with
   * row kinds (`read.withRowKind` defaults to true), polling every `pollIntervalMs` (default 1000)
   * while there is no new snapshot, until `signal` aborts (or `scan.bounded.watermark` ends the
   * stream). With `consumer-id` the progress is saved after each plan's batches were consumed.
   */
  async *streamRead(options: StreamReadOptions = {}): AsyncGenerator<RecordBatch, void, undefined> {
    yield* (await streamScanModule()).streamBatches(await this.newStreamScan(options), (o) => this.newRead(o), options);
  }

  /**
   * The table as of snapshot `id`, the way Java Paimon and pypaimon time travel: with that
   * snapshot's schema (columns added later are absent, dropped ones present, renamed ones under
   * their old names, widened ones in their old type), scanning that snapshot by default.
   * Read-only: writes and commits go through the table itself.
   */
  async atSnapshot(id: number): Promise<Table> {
    const snapshot = await this.snapshot(id);
    let schema = snapshot.schemaId === this.schema.id ? this.schema : await this.schemaManager.schema(snapshot.schemaId);
    if (schema !== this.schema && this.options.branch !== undefined) schema = { ...schema, options: { ...schema.options, branch: this.options.branch } }; // stays on its branch
    return new Table(this.fileIO, this.identifier, this.location, schema, id);
  }

  /**
   * A handle of the same table with `dynamicOptions` laid over its options for its scans, reads
   * and writes, as Java Paimon's `Table.copy(Map)` (Flink / Spark `OPTIONS` hints): e.g.
   * `{ "incremental-between": "3,7" }` reads the changes after snapshot 3 up to 7 (with
   * `incremental-between-scan-mode` auto / delta / changelog / diff, tag names, or
   * `incremental-between-timestamp`), `{ "scan.snapshot-id": 5 }` or `{ "scan.tag-name": "t" }`
   * time travel. The schema files are not changed.
   *
   * As Java (`SchemaManager.checkAlterTableOption`), an option whose value changes is refused
   * with UNSUPPORTED when it cannot change after creation (`bucket` to or from -1, `primary-key`,
   * `partition`, `merge-engine`, `sequence.field`, the deletion-vector mode, …) here; bad values
   * are INVALID_ARGUMENT naming the option where they are read (e.g. `read.batch-size` at
   * `newRead`; time-travel and incremental options when a scan of the copy plans: `plan()`
   * rejects, with UNSUPPORTED for `incremental-to-auto-tag`, `scan.version`, … which paimon-rt
   * does not read).
   *
   * A copy with time-travel or incremental options (`scan.*`, `incremental-*`) is read-only:
   * writes, commits and maintenance go through the table itself (UNSUPPORTED); other copies
   * write with their options (e.g. `target-file-size`).
   */
  copy(dynamicOptions: Readonly<Record<string, string | number | boolean>>): Table {
    const options: Record<string, string> = { ...this.schema.options };
    for (const [key, value] of Object.entries(dynamicOptions)) {
      const text = String(value);
      // another branch has its own schemas: switchToBranch loads them (Java's copy ignores the key)
      if (key === "branch" && (text.trim() === "" ? MAIN_BRANCH : text) !== this.coreOptions.branch) throw new PaimonError("UNSUPPORTED", `copy of ${this.identifier}: option branch=${text} switches branches, which loads the branch's schema; use switchToBranch(${JSON.stringify(text)})`);
      if (options[key] !== text) checkOptionChange(this.schema.options, key, text);
      options[key] = text;
    }
    const copy = new Table(this.fileIO, this.identifier, this.location, { ...this.schema, options }, this.pinnedSnapshotId);
    copy.readsOnly = this.readsOnly || Object.keys(dynamicOptions).some((k) => TIME_TRAVEL_KEY.test(k));
    const parsed = parseTimeTravel(copy);
    parsed?.catch(() => undefined); // (a failed import rejects the plan that awaits it, not the process)
    copy.timeTravel = parsed;
    return copy;
  }

  /** A copy with time-travel or incremental dynamic options: read-only. */
  private readsOnly = false;

  /**
   * Refuses a change before any work is done: on a time-travel view (UNSUPPORTED) and on a
   * read-only file system such as HTTP (READ_ONLY), so rows are never buffered or encoded, and an
   * empty commit is not silently accepted, only to fail (or not) at the first file write.
   */
  protected checkWritable(op: string): void {
    if (this.fileIO.readOnly) {
      throw new PaimonError("READ_ONLY", `cannot ${op} table ${this.identifier}: its file system (${this.fileIO.scheme}) is read-only (${this.location})`);
    }
    this.checkNotTimeTravelView();
  }

  private checkNotTimeTravelView(): void {
    if (this.readsOnly || this.pinnedSnapshotId !== null) {
      throw new PaimonError("UNSUPPORTED", `table ${this.identifier} ${this.readsOnly ? "copy" : `at snapshot ${this.pinnedSnapshotId}`} is a read-only time-travel view; write through the table itself`);
    }
  }

  /**
   * Deletes every row, as Java Paimon's `truncateTable`: one OVERWRITE snapshot without files.
   * Real-time progress (seed 000): the snapshot records an empty offsets map, so
   * `RealtimeSnapshotOffsets.readOffset` reports -1 for every partition-bucket; a real-time
   * context that held committed data is invalidated on its next refresh to this snapshot (recreate
   * it and reset the upstream position). Returns the snapshot id.
   */
  async truncate(options: { commitUser: string }): Promise<number> {
    return this.newCommit(options).truncate();
  }

  /**
   * Computes and commits the table's statistics, as Flink's / Spark's `ANALYZE TABLE … COMPUTE
   * STATISTICS FOR ALL COLUMNS`: of the latest snapshot, the merged record count and size and, per
   * column (`columns`, default every scalar column), the exact distinct and null counts, min / max
   * (numbers, booleans, dates, times, timestamps) or average / maximum byte length (strings,
   * binaries). One ANALYZE snapshot names the statistics file; `$statistics` shows it and later
   * commits keep it until the schema changes. Returns the snapshot id; null for a table without
   * snapshots (nothing committed).
   */
  async analyze(options: { commitUser: string; columns?: readonly string[] }): Promise<number | null> {
    this.checkWritable("analyze");
    const { analyzeTable } = await import("../commit/analyze.js");
    return analyzeTable(this, options, async (id, projection) => {
      const pinned = await this.atSnapshot(id);
      return pinned.newRead({ projection }).createReader((await pinned.newScan().plan()).splits);
    });
  }

  /**
   * Java Paimon's rescale procedure (Flink `RescaleAction`, `CALL sys.rescale`): the rows of
   * `partition` (values of some or all partition keys; default the whole table), read at the latest
   * snapshot, are written again into `bucketNum` buckets (required for postpone-bucket tables,
   * `bucket = -2`; default the table's `bucket`) and replace the partition's files in one OVERWRITE
   * snapshot, committed with `commit.strict-mode.last-safe-snapshot` set to the snapshot read:
   * another user's COMPACT / OVERWRITE, or APPEND to real buckets, in between fails it with
   * COMMIT_CONFLICT and nothing committed. The schema is not changed: for a fixed-bucket table,
   * set `bucket` with `alterTable` first (Java's guide), or ordinary writes to the partition are
   * refused afterwards. INVALID_ARGUMENT with Java's messages for a table without snapshots, a
   * postpone table without `bucketNum`, an empty partition; also (beyond Java, which would delete
   * them) for a partition with files still in the postpone bucket: compact first. Returns the
   * snapshot id.
   */
  async rescale(options: RescaleOptions): Promise<number | null> {
    this.checkWritable("rescale");
    const { rescaleTable } = await import("../commit/rescale.js");
    return rescaleTable(this, options, {
      PaimonError,
      primaryKeyConfig,
      entries: async (id, partition) => {
        const { keepManifest, keepEntry } = (await this.atSnapshot(id)).newScan({ filter: partitionFilter(partition) }).filters(true);
        return this.manifestStore.liveEntries(await this.snapshot(id), keepManifest, keepEntry);
      },
      rows: async (id, partition) => {
        const pinned = await this.atSnapshot(id);
        return pinned.newRead().createReader((await pinned.newScan({ filter: partitionFilter(partition) }).plan()).splits);
      },
      withOptions: (options) => new FileStoreTable(this.fileIO, this.identifier, this.location, { ...this.schema, options }),
      newWrite: async (table, commitUser) => new (await import("../write/table-write.js")).TableWrite(table, { commitUser, overwrite: true }),
      newCommit: (table, commitUser) => new TableCommit(table, commitUser),
    });
  }

  /**
   * Drops partitions, as Java Paimon's `dropPartitions`: each spec gives values of some or all
   * partition keys (`{ dt: "2024-01-01" }`); one OVERWRITE snapshot deletes the files of every
   * matching partition. Real-time progress (seed 000): exactly the dropped partitions'
   * partition-buckets are reset (readOffset -1); a context is invalidated on refresh only when it
   * held data of a dropped partition-bucket. Returns the snapshot id.
   */
  async dropPartitions(partitions: Array<Record<string, unknown>>, options: { commitUser: string }): Promise<number | null> {
    return this.newCommit(options).dropPartitions(partitions);
  }

  /**
   * Makes snapshot `snapshotId` the latest again, as Java Paimon's `rollbackTo`: the newer
   * snapshots are deleted, the LATEST hint names the target, and the files only the deleted
   * snapshots referenced (data files added after the target, their manifests, index and offsets
   * files) are removed. A snapshot that expired but a tag holds is restored from the tag (as
   * `rollbackToTag`). NOT_FOUND, with nothing changed, when the target does not exist or has
   * expired and no tag holds it.
   * Real-time progress (seed 000): the target's committed progress is the table's again; live
   * contexts are not coordinated — a context that refreshed past the target, or whose progress
   * is now ahead, fails (refresh, scan, commit) until it is recreated from the restored offsets.
   */
  async rollbackTo(snapshotId: number): Promise<void> {
    this.checkWritable("roll back");
    const { rollbackTo } = await rollbackModule();
    await rollbackTo(this.tableParts(), snapshotId);
  }

  /**
   * Makes the snapshot of tag `name` the latest again, as Java Paimon's `rollbackTo(tagName)`
   * (an extension beyond API.md): as `rollbackTo(snapshotId)`, and when the tagged snapshot has
   * expired, it is restored from the tag as the table's only snapshot (newer snapshots and tags
   * and the files only they used go). NOT_FOUND when the tag does not exist.
   */
  async rollbackToTag(name: string): Promise<void> {
    this.checkWritable("roll back");
    const { rollbackToTag } = await rollbackModule();
    await rollbackToTag(this.tableParts(), name);
  }

  /**
   * Creates tag `name` of snapshot `snapshotId` (default: the latest), as Java Paimon's
   * `Table.createTag` (an extension beyond API.md): `tag/tag-<name>` holds the snapshot's JSON,
   * plus `tagCreateTime` / `tagTimeRetained` when `timeRetainedMs` (or the table's
   * `tag.default-time-retained`) is set. The tag keeps the snapshot readable (`scan.tag-name`)
   * after it expires. With Iceberg compatibility metadata (`metadata.iceberg.storage`) the latest
   * metadata gets the tag's ref at once, as Java's tag callback; `replaceTag` moves it and
   * `deleteTag` removes it alike. ALREADY_EXISTS when the tag exists, NOT_FOUND when the snapshot
   * does not, INVALID_ARGUMENT for a bad name; nothing changes on error. Returns the tagged snapshot.
   */
  async createTag(name: string, snapshotId?: number, options: { timeRetainedMs?: number } = {}): Promise<Snapshot> {
    this.checkWritable("create a tag of");
    const { createTag } = await tagManagerModule();
    return createTag(this.tableParts(), name, snapshotId, options.timeRetainedMs);
  }

  /**
   * Renames tag `name` to `newName`, as Java Paimon's `Table.renameTag` (an extension beyond
   * API.md): the tag file moves unchanged (snapshot, creation time and retention). NOT_FOUND when
   * `name` does not exist, ALREADY_EXISTS when `newName` does, INVALID_ARGUMENT for a bad name;
   * nothing changes on error.
   */
  async renameTag(name: string, newName: string): Promise<void> {
    this.checkWritable("rename a tag of");
    const { renameTag } = await tagManagerModule();
    await renameTag(this.tableParts(), name, newName);
  }

  /**
   * Points existing tag `name` at snapshot `snapshotId` (default: the latest), as Java Paimon's
   * `Table.replaceTag` (an extension beyond API.md): the tag file is rewritten, with
   * `tagCreateTime` / `tagTimeRetained` only when `timeRetainedMs` is given (as Java, the table's
   * `tag.default-time-retained` does not apply). NOT_FOUND when the tag or the snapshot does not
   * exist, INVALID_ARGUMENT for a bad name or retention; nothing changes on error. Returns the
   * tagged snapshot.
   */
  async replaceTag(name: string, snapshotId?: number, options: { timeRetainedMs?: number } = {}): Promise<Snapshot> {
    this.checkWritable("replace a tag of");
    const { replaceTag } = await tagManagerModule();
    return replaceTag(this.tableParts(), name, snapshotId, options.timeRetainedMs);
  }

  /**
   * Deletes tag `name`, as Java Paimon's `Table.deleteTag` (an extension beyond API.md): when its
   * snapshot has expired and no other tag holds it, the data files, manifests and index files
   * only it kept alive are deleted too. NOT_FOUND when the tag does not exist.
   */
  async deleteTag(name: string): Promise<void> {
    this.checkWritable("delete a tag of");
    const { deleteTag } = await tagManagerModule();
    await deleteTag(this.tableParts(), name);
  }

  /**
   * The table on branch `name`, as Java Paimon's `switchToBranch` (`t$branch_<name>` through the
   * catalog; an extension beyond API.md): the branch's latest schema with option `branch` set, so
   * its snapshots, schemas and tags (`<table>/branch/branch-<name>/…`) are read, written,
   * committed, expired, time-travelled and listed by system tables; `main` (or blank) is the
   * table's own. NOT_FOUND when the branch does not exist, INVALID_ARGUMENT for a bad name.
   */
  async switchToBranch(name: string): Promise<Table> {
    const branch = typeof name === "string" && name.trim() === "" ? MAIN_BRANCH : name;
    if (branch === this.coreOptions.branch) return this;
    if (branch !== MAIN_BRANCH) checkBranchName(branch, `switchToBranch of ${this.identifier}`);
    const schema = await new SchemaManager(this.fileIO, this.location, branch).latest();
    if (schema === null) throw new PaimonError("NOT_FOUND", `switchToBranch of ${this.identifier}: branch '${branch}' does not exist (${branchRoot(this.location, branch)})`);
    const options: Record<string, string> = { ...schema.options };
    if (branch === MAIN_BRANCH) delete options.branch;
    else options.branch = branch;
    return loadTimeTravel(new Table(this.fileIO, this.identifier, this.location, { ...schema, options }));
  }

  /**
   * Creates branch `name` (an extension beyond API.md), as Java Paimon's `createBranch`: without
   * `fromTag` an empty branch with this branch's schemas, with it a branch starting at the tag's
   * snapshot (its tag, snapshot and schemas copied; the data files are shared, not copied).
   * INVALID_ARGUMENT for a bad name (`main`, blank, only digits, `$`, path characters),
   * ALREADY_EXISTS when it exists, NOT_FOUND when the tag does not; nothing changes on error.
   */
  async createBranch(name: string, fromTag?: string): Promise<void> {
    this.checkWritable("create a branch of");
    const { createBranch } = await branchManagerModule();
    await createBranch(this.branchParts(), name, fromTag);
  }

  /**
   * Drops branch `name` (an extension beyond API.md), as Java Paimon's `deleteBranch`: its
   * directory goes; data files only it used are left to `removeOrphanFiles`. NOT_FOUND when it
   * does not exist, INVALID_ARGUMENT for a bad name or the handle's own branch.
   */
  async dropBranch(name: string): Promise<void> {
    this.checkWritable("drop a branch of");
    const { dropBranch } = await branchManagerModule();
    await dropBranch(this.branchParts(), name);
  }

  /**
   * Makes this branch (usually `main`) take branch `name`'s snapshots, schemas and tags, as Java
   * Paimon's `fastForward` (an extension beyond API.md): this branch's snapshots from the
   * branch's earliest one on, their schemas and tags are replaced. NOT_FOUND when the branch does
   * not exist or has no snapshot, INVALID_ARGUMENT for a bad name or this branch; nothing changes
   * on error. Handles opened before on this branch see the new history after their next refresh.
   */
  async fastForward(name: string): Promise<void> {
    this.checkWritable("fast-forward");
    const { fastForward } = await branchManagerModule();
    await fastForward(this.branchParts(), name);
  }

  /** The table's branches other than `main`, sorted (an extension beyond API.md; Java `branchManager().branches()`). */
  async listBranches(): Promise<string[]> {
    const { listBranches } = await branchManagerModule();
    return listBranches(this.fileIO, this.location);
  }

  private branchParts() {
    return { io: this.fileIO, name: this.identifier, root: this.location, snapshots: this.snapshotManager, schemas: this.schemaManager };
  }

  /** The table's tags, name → tagged snapshot id, by snapshot id then name (an extension beyond API.md). */
  async listTags(): Promise<Map<string, number>> {
    const { listTags } = await import("./tags.js");
    return new Map((await listTags(this.snapshotManager)).map((t) => [t.name, t.snapshot.id]));
  }

  private tableParts() {
    return { io: this.fileIO, name: this.identifier, snapshots: this.snapshotManager, manifests: this.manifestStore, partitionFields: this.partitionFields, options: this.coreOptions };
  }

  newRead(options?: ReadOptions): TableRead {
    return new TableRead(this, options);
  }

  /**
   * System table `name` of this table (`snapshots`, `files`, `ro`, … as Java Paimon's
   * `<table>$<name>`, README "System tables"): read-only, scanned and read as a data table.
   * NOT_FOUND for a name Java Paimon does not know, UNSUPPORTED for one this library does not read.
   */
  async systemTable(name: string): Promise<Table> {
    const { loadSystemTable } = await import("../catalog/system-tables.js"); // query bundles load it on first use
    return loadSystemTable(this, name);
  }

}
