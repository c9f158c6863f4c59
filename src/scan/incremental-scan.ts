// Incremental batch scans, as Java Paimon 1.4.2 plans them (`AbstractDataTableScan
// .createIncrementalStartingScanner`, `IncrementalDeltaStartingScanner`,
// `IncrementalDiffStartingScanner`, `SnapshotReaderImpl.readIncrementalDiff`):
// - delta / changelog: the files the delta (or changelog) manifests of the snapshots after the
//   start up to the end added, grouped by partition-bucket into streaming splits (read unmerged,
//   with row kinds); delta mode skips COMPACT and OVERWRITE snapshots, changelog mode OVERWRITE;
// - diff: per partition-bucket, the files only the start snapshot has and those only the end
//   snapshot has (with each snapshot's deletion vectors); the read emits the changed rows.
// Data-evolution tables: deltas of full-row files are read as Java reads them; a column-update file
// in a delta and diff scans are UNSUPPORTED (Java reads the former alone, its diff fails).
// Imported by `TableScan` only for a table with incremental options (a lazily loaded chunk).
// Its run-time imports of the query bundle's modules come from table-scan.ts (`IncrementalScanDeps`),
// so bundlers split no shared module out of the query bundle for this lazily loaded chunk.
import type { PaimonError as PaimonErrorClass } from "../error.js";
import type { fromBinaryRow } from "../spec/binary-row.js";
import type { groupByPartitionBucket, ManifestEntry, ManifestFileMeta, partitionBucketKey } from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { earlierOrEqualTimeMillis, type Incremental } from "../table/time-travel.js";
import type { DeletionFile } from "../read/kv-file-reader.js";
import type { deletionFilesOf } from "./merge-tree-splits.js";
import type { primaryKeyConfig } from "../table/primary-key.js";

/** The query bundle's modules this chunk uses, passed in by table-scan.ts. */
export interface IncrementalScanDeps {
  readonly PaimonError: typeof PaimonErrorClass;
  readonly fromBinaryRow: typeof fromBinaryRow;
  readonly deletionFilesOf: typeof deletionFilesOf;
  readonly primaryKeyConfig: typeof primaryKeyConfig;
  readonly groupByPartitionBucket: typeof groupByPartitionBucket;
  readonly partitionBucketKey: typeof partitionBucketKey;
}

let D: IncrementalScanDeps;
import type { DataSplit, Plan } from "./split.js";

/** What the scan keeps: manifests by partition statistics, entries by partition / bucket (and file statistics for append tables). */
export interface IncrementalFilters {
  readonly keepManifest: (m: ManifestFileMeta) => boolean;
  readonly keepEntry: (e: ManifestEntry) => boolean;
}

type Mode = "delta" | "changelog";

const EMPTY: Plan = Object.freeze({ snapshotId: null, splits: [] }) as Plan;

/** Plans the incremental scan `inc` of `table` (Java's messages; INVALID_ARGUMENT / NOT_FOUND). */
export async function planIncremental(table: FileStoreTable, inc: Incremental, scanFilters: IncrementalFilters, deps: IncrementalScanDeps): Promise<Plan> {
  D = deps;
  // Java's batch scans of deletion-vector and first-row tables skip level 0 (`batchScanSkipLevel0`), incremental ones too
  const config = table.schema.primaryKeys.length > 0 ? D.primaryKeyConfig(table.coreOptions) : null;
  const skipLevel0 = config !== null && (config.deletionVectors || config.mergeEngine === "first-row");
  const filters: IncrementalFilters = skipLevel0 ? { keepManifest: scanFilters.keepManifest, keepEntry: (e) => e.file.level > 0 && scanFilters.keepEntry(e) } : scanFilters;
  const snapshots = table.snapshotManager;
  const name = table.identifier;
  const fail = (code: "INVALID_ARGUMENT" | "NOT_FOUND", text: string) => new D.PaimonError(code, `incremental scan of table ${name}: ${text}`);
  const autoMode = (): Mode => (inc.scanMode === "delta" ? "delta" : inc.scanMode === "changelog" ? "changelog" : (table.coreOptions.get("changelog-producer") ?? "none").toLowerCase() === "none" ? "delta" : "changelog");
  if (inc.between !== null) {
    const [left, right] = inc.between;
    const [startTag, endTag] = [await tagOf(table, left), await tagOf(table, right)];
    if (startTag !== null && endTag !== null) {
      if (inc.tagToSnapshot) return planDelta(table, startTag.id, endTag.id, autoMode(), filters, fail);
      if (endTag.id < startTag.id) throw fail("INVALID_ARGUMENT", `Tag end ${right} with snapshot id ${endTag.id} should be >= tag start ${left} with snapshot id ${startTag.id}`);
      if (startTag.id === endTag.id) return EMPTY;
      return planDiff(table, startTag, endTag, filters);
    }
    const startId = javaLong(left);
    const endId = javaLong(right);
    if (startId === null || endId === null) {
      throw fail("INVALID_ARGUMENT", `Didn't find two tags for start '${left}' and end '${right}', and they are not two snapshot Ids. Please set two tags or two snapshot Ids.`);
    }
    if (endId < startId) throw fail("INVALID_ARGUMENT", `Ending snapshotId should >= starting snapshotId (start ${startId}, end ${endId}).`);
    if ((await snapshots.earliestSnapshotId()) === null || startId === endId) return EMPTY;
    if (inc.scanMode === "diff") return planDiff(table, await snapshotOf(table, startId), await snapshotOf(table, endId), filters);
    return planDelta(table, startId, endId, autoMode(), filters, fail);
  }
  const [startMillis, endMillis] = inc.timestamps!;
  const earliestId = await snapshots.earliestSnapshotId();
  const latest = await snapshots.latestSnapshot();
  if (earliestId === null || latest === null) return EMPTY;
  const earliest = await snapshotOf(table, earliestId);
  if (endMillis < startMillis) throw fail("INVALID_ARGUMENT", `Ending timestamp ${endMillis} should be >= starting timestamp ${startMillis}.`);
  if (startMillis === endMillis || startMillis > latest.timeMillis || endMillis < earliest.timeMillis) return EMPTY;
  const startSnapshot = await earlierOrEqualTimeMillis(snapshots, startMillis);
  const endSnapshot = (await earlierOrEqualTimeMillis(snapshots, endMillis)) ?? latest;
  if (inc.scanMode === "diff") return planDiff(table, startSnapshot ?? earliest, endSnapshot, filters);
  // the earliest snapshot is included when it is newer than the start
  const startId = startSnapshot === null || earliest.timeMillis > startMillis ? earliest.id - 1 : startSnapshot.id;
  return planDelta(table, startId, endSnapshot.id, autoMode(), filters, fail, false);
}

/** Tag `name`'s snapshot, null without such a tag (a name that cannot be a tag file is none). */
async function tagOf(table: FileStoreTable, name: string): Promise<Snapshot | null> {
  try {
    table.paths.tag(name, "incremental-between");
  } catch {
    return null;
  }
  return table.snapshotManager.tryGetTag(name);
}

async function snapshotOf(table: FileStoreTable, id: number): Promise<Snapshot> {
  const s = await table.snapshotManager.tryGetSnapshot(id);
  if (s === null) throw new D.PaimonError("NOT_FOUND", `incremental scan of table ${table.identifier}: snapshot ${id} does not exist or has expired (${await table.snapshotManager.describeRetained()})`);
  return s;
}

/** Java `Long.parseLong` within the safe integers, null otherwise. */
function javaLong(text: string): number | null {
  if (!/^[+-]?\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** Java `IncrementalDeltaStartingScanner` over snapshots (start, end]. */
async function planDelta(table: FileStoreTable, startId: number, endId: number, mode: Mode, filters: IncrementalFilters, fail: (code: "INVALID_ARGUMENT" | "NOT_FOUND", text: string) => Error, checkRange = true): Promise<Plan> {
  const snapshots = table.snapshotManager;
  if (checkRange) {
    const earliest = (await snapshots.earliestSnapshotId()) ?? 0;
    const latest = (await snapshots.latestSnapshotId()) ?? 0;
    // the start is exclusive: it may be the snapshot before the earliest
    if (startId < earliest - 1 || endId > latest) {
      throw fail("NOT_FOUND", `The specified scan snapshotId range [${startId}, ${endId}] is out of available snapshotId range [${earliest}, ${latest}].`);
    }
  }
  const manifests: ManifestFileMeta[] = [];
  for (let id = startId + 1; id <= endId; id++) {
    const s = await snapshotOf(table, id);
    if (mode === "delta" ? s.commitKind !== "APPEND" : s.commitKind === "OVERWRITE") continue; // Java ignores these
    const list = mode === "delta" ? s.deltaManifestList : s.changelogManifestList;
    if (list !== null) manifests.push(...(await table.manifestStore.readManifestList(list)).filter(filters.keepManifest));
  }
  const contents = await Promise.all(manifests.map((m) => table.manifestStore.readManifest(m.fileName)));
  const entries: ManifestEntry[] = [];
  for (const list of contents) {
    for (const e of list) {
      if (e.kind !== 0) throw fail("INVALID_ARGUMENT", `Delta or changelog should only have ADD files (${e.file.fileName} is a DELETE entry).`);
      if (filters.keepEntry(e)) entries.push(e);
    }
  }
  return { snapshotId: endId, splits: streamingSplits(table, entries, endId, D) };
}

/**
 * The files of `entries` grouped by partition-bucket into streaming splits of snapshot
 * `snapshotId` (Java `DataSplit.isStreaming`: read unmerged, with row kinds); also the stream
 * scan's (src/scan/stream-scan.ts) delta and changelog plans.
 */
export function streamingSplits(table: FileStoreTable, entries: readonly ManifestEntry[], snapshotId: number, deps: IncrementalScanDeps): DataSplit[] {
  D = deps;
  // Data-evolution tables: a full-row file is read alone, as Java's; a column file (writeColumns,
  // MERGE INTO) Java reads alone too, as rows of those columns only (or fails on a NOT NULL column)
  const columnFile = dataEvolution(table) ? entries.find((e) => e.file.writeCols !== null) : undefined;
  if (columnFile) {
    const f = columnFile.file;
    throw new D.PaimonError("UNSUPPORTED", `table ${table.identifier}: data file ${f.fileName} updates columns ${f.writeCols!.join(", ")} of the rows from row id ${f.firstRowId} of a data-evolution table; incremental and streaming reads of column updates are not supported (Java 1.4.2 reads such a file alone, without the rows' other columns)`);
  }
  const splits: DataSplit[] = [];
  for (const group of D.groupByPartitionBucket(entries).values()) {
    const e = group[0];
    splits.push({ ...placeOf(table, e), snapshotId, totalBuckets: e.totalBuckets, files: group.map((x) => x.file), rawConvertible: false, streaming: true });
  }
  return splits;
}

/** Java `SnapshotReaderImpl.readIncrementalDiff`: per partition-bucket, the files only `start` has and those only `end` has. */
async function planDiff(table: FileStoreTable, start: Snapshot, end: Snapshot, filters: IncrementalFilters): Promise<Plan> {
  // (a diff of data-evolution tables would need their merge by row id; Java 1.4.2's fails with a ClassCastException)
  if (dataEvolution(table)) throw new D.PaimonError("UNSUPPORTED", `incremental scan of table ${table.identifier}: incremental-between-scan-mode=diff of a data-evolution table is not supported`);
  const store = table.manifestStore;
  const [before, after] = await Promise.all([store.liveEntries(start, filters.keepManifest, filters.keepEntry), store.liveEntries(end, filters.keepManifest, filters.keepEntry)]);
  const [beforeDvs, afterDvs] = await Promise.all([start, end].map(async (s) => (s.indexManifest ? D.deletionFilesOf(table, await store.indexEntries(s)) : null)));
  // (Java compares whole entries: a file moved to another level is in both lists)
  const id = (e: ManifestEntry) => `${e.partition.join(",")}|${e.bucket}|${e.file.fileName}|${e.file.level}`;
  const afterIds = new Set(after.map(id));
  const beforeIds = new Set(before.map(id));
  const groups = new Map<string, { before: ManifestEntry[]; after: ManifestEntry[] }>();
  const groupOf = (e: ManifestEntry) => {
    const key = D.partitionBucketKey(e.partition, e.bucket);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { before: [], after: [] }));
    return g;
  };
  for (const e of before) if (!afterIds.has(id(e))) groupOf(e).before.push(e);
  for (const e of after) if (!beforeIds.has(id(e))) groupOf(e).after.push(e);
  const dvsOf = (dvs: Map<string, Map<string, DeletionFile>> | null, entries: readonly ManifestEntry[]) => {
    if (dvs === null || entries.length === 0) return undefined;
    const m = dvs.get(D.partitionBucketKey(entries[0].partition, entries[0].bucket));
    return entries.map((e) => m?.get(e.file.fileName) ?? null);
  };
  const splits: DataSplit[] = [];
  for (const g of groups.values()) {
    const e = g.after[0] ?? g.before[0];
    const split: DataSplit = {
      ...placeOf(table, e),
      snapshotId: end.id,
      totalBuckets: e.totalBuckets,
      files: g.after.map((x) => x.file),
      rawConvertible: false,
      deletionFiles: dvsOf(afterDvs, g.after),
      diffBefore: { files: g.before.map((x) => x.file), deletionFiles: dvsOf(beforeDvs, g.before) },
    };
    splits.push(split);
  }
  return { snapshotId: end.id, splits };
}

function dataEvolution(table: FileStoreTable): boolean {
  return table.schema.options["data-evolution.enabled"]?.trim().toLowerCase() === "true";
}

function placeOf(table: FileStoreTable, e: ManifestEntry) {
  const fields = table.partitionFields;
  const values = D.fromBinaryRow(e.partition.subarray(4), fields.map((f) => f.type));
  return {
    kind: "data" as const,
    partition: Object.fromEntries(fields.map((f, i) => [f.name, values[i]])),
    partitionRow: e.partition,
    bucket: e.bucket,
    bucketPath: table.paths.bucketDirOf(e.partition, e.bucket, values),
  };
}
