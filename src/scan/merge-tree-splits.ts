// Split planning for primary-key tables (Java `MergeTreeSplitGenerator`, `IntervalPartition`):
// the files of a bucket are grouped into sections of overlapping key ranges, sections are never
// split across splits (a key's versions must be merged together) and are packed by size;
// deletion-vector tables skip level 0 and read files raw with their deletion vectors.
import { bindPredicate, type Predicate, splitPredicateByFields } from "../predicate/predicate.js";
import { boundMayMatch, fileMayMatch, keyStatsOf, type StatsSet } from "../predicate/stats.js";
import { bytesEqual, fromBinaryRow } from "../spec/binary-row.js";
import type { DataFileMeta, IndexManifestEntry, ManifestEntry } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { KeyDecoder, keyFieldsOf, primaryKeyConfig } from "../table/primary-key.js";
import type { DeletionFile } from "../read/kv-file-reader.js";
import type { DataSplit } from "./split.js";

export const DELETION_VECTORS_INDEX = "DELETION_VECTORS";

/**
 * Java `IntervalPartition`: files sorted by (minKey, maxKey) are cut into sections whose key
 * ranges do not overlap each other; each section is divided into sorted runs (files of a run do
 * not overlap), greedily appending a file to the run that ends first.
 */
export function intervalPartition(files: readonly DataFileMeta[], keys: KeyDecoder): DataFileMeta[][][] {
  const sorted = [...files].sort((a, b) => keys.compare(a.minKey, b.minKey) || keys.compare(a.maxKey, b.maxKey));
  const sections: DataFileMeta[][] = [];
  let current: DataFileMeta[] = [];
  let bound: Uint8Array | null = null;
  for (const f of sorted) {
    if (bound !== null && keys.compare(f.minKey, bound) > 0) {
      sections.push(current);
      current = [];
      bound = null;
    }
    current.push(f);
    if (bound === null || keys.compare(f.maxKey, bound) > 0) bound = f.maxKey;
  }
  if (current.length > 0) sections.push(current);
  return sections.map((section) => {
    const runs: DataFileMeta[][] = [];
    for (const f of section) {
      // the run whose last file ends first (Java keeps them in a priority queue)
      let best = -1;
      for (let i = 0; i < runs.length; i++) {
        const last = runs[i][runs[i].length - 1];
        if (best < 0 || keys.compare(last.maxKey, runs[best][runs[best].length - 1].maxKey) < 0) best = i;
      }
      if (best >= 0 && keys.compare(runs[best][runs[best].length - 1].maxKey, f.minKey) < 0) runs[best].push(f);
      else runs.push([f]);
    }
    return runs;
  });
}

/** Deletion files of the data files of one partition-bucket, by data file name. */
export function deletionFilesOf(table: FileStoreTable, entries: readonly IndexManifestEntry[]): Map<string, Map<string, DeletionFile>> {
  const out = new Map<string, Map<string, DeletionFile>>();
  for (const e of entries) {
    if (e.kind !== 0 || e.indexFile.indexType !== DELETION_VECTORS_INDEX || !e.indexFile.dvRanges) continue;
    const key = `${e.partition.join(",")}|${e.bucket}`;
    let m = out.get(key);
    if (!m) out.set(key, (m = new Map()));
    const path = table.paths.indexFileOf(e.partition, e.bucket, e.indexFile);
    for (const r of e.indexFile.dvRanges) m.set(r.dataFileName, { path, offset: r.offset, length: r.length, cardinality: r.cardinality });
  }
  return out;
}

const NO_DELETION_FILES: ReadonlyMap<string, Map<string, DeletionFile>> = new Map();

/** How a real-time union scan plans the committed side of a PK table (seed "Primary Key DV"). */
export interface PrimaryKeyPlanMode {
  /**
   * Keep level 0 of deletion-vector tables (memory is merged with it), and prune level > 0
   * files of DV tables by the full predicate (one live row per key under committed DVs), but
   * level 0 only by key predicates.
   */
  realtimeUnion?: boolean;
  /** Keep level 0 of deletion-vector and first-row tables (a stream scan's full plan, as Java's: only batch scans skip it). */
  keepLevel0?: boolean;
}

/**
 * Per table schema: its key fields, a key decoder and the decoded key statistics of data files.
 * Both decode immutable file metadata (the manifest entries a snapshot's plans share), so
 * repeated plans (continuous real-time queries) decode each file's key bounds once.
 */
const keyPlanning = new WeakMap<TableSchema, { keyFields: DataField[]; keyNames: readonly string[]; keys: KeyDecoder; stats: WeakMap<DataFileMeta, StatsSet> }>();

function keyPlanningOf(schema: TableSchema): { keyFields: DataField[]; keyNames: readonly string[]; keys: KeyDecoder; stats: WeakMap<DataFileMeta, StatsSet> } {
  let p = keyPlanning.get(schema);
  if (p === undefined) {
    const keyFields = keyFieldsOf(schema);
    keyPlanning.set(schema, (p = { keyFields, keyNames: Object.freeze(keyFields.map((f) => f.name)), keys: new KeyDecoder(keyFields), stats: new WeakMap() }));
  }
  return p;
}

/** Splits of a primary-key table's live files (`entries`, already pruned by partition and bucket). */
export async function planPrimaryKeySplits(table: FileStoreTable, snapshot: Snapshot, entries: readonly ManifestEntry[], filter: Predicate | undefined, mode: PrimaryKeyPlanMode = {}): Promise<DataSplit[]> {
  const config = primaryKeyConfig(table.coreOptions);
  const { keyFields, keyNames, keys, stats: keyStats } = keyPlanningOf(table.schema);
  const keyStatsOfFile = (f: DataFileMeta): StatsSet => {
    let st = keyStats.get(f);
    if (st === undefined) keyStats.set(f, (st = keyStatsOf(f, keyFields)));
    return st;
  };
  const keyFilter = filter ? splitPredicateByFields(filter, keyNames).picked : null;
  let boundKeyFilter: Predicate | null = null; // bound at the first file (binding checks the literals)
  const dv = config.deletionVectors;
  const skipLevel0 = ((dv && !config.dvMergeOnRead) || config.mergeEngine === "first-row") && !mode.realtimeUnion && !mode.keepLevel0;
  const highLevelFilter = mode.realtimeUnion && dv && filter ? filter : null;
  const schema = table.schema;
  const deletionFiles = dv ? deletionFilesOf(table, await table.manifestStore.indexEntries(snapshot)) : NO_DELETION_FILES;
  const groups = new Map<string, ManifestEntry[]>();
  // the group key of the previous entry, reused while partition and bucket repeat (the usual run)
  let last: ManifestEntry | null = null;
  let lastGroup: ManifestEntry[] | null = null;
  for (const e of entries) {
    if (skipLevel0 && e.file.level === 0) continue;
    // Only key predicates may prune before merging: value stats describe unmerged rows.
    if (keyFilter && !boundMayMatch((boundKeyFilter ??= bindPredicate(keyFilter, keyFields)), keyStatsOfFile(e.file))) continue;
    if (highLevelFilter && e.file.level > 0 && e.file.schemaId === schema.id && !fileMayMatch(highLevelFilter, e.file, schema.fields)) continue;
    if (last === null || last.bucket !== e.bucket || !bytesEqual(last.partition, e.partition)) {
      const key = `${e.partition.join(",")}|${e.bucket}`;
      lastGroup = groups.get(key) ?? null;
      if (lastGroup === null) groups.set(key, (lastGroup = []));
    }
    last = e;
    lastGroup!.push(e);
  }
  const opts = table.coreOptions;
  const target = opts.splitTargetSize;
  const openCost = opts.splitOpenFileCost;
  const partitionFields = table.partitionFields;
  const types = partitionFields.map((f) => f.type);
  const splits: DataSplit[] = [];
  for (const [groupKey, group] of groups) {
    const first = group[0];
    const values = fromBinaryRow(first.partition.subarray(4), types);
    const partition = Object.fromEntries(partitionFields.map((f, i) => [f.name, values[i]]));
    const bucketPath = table.paths.bucketDirOf(first.partition, first.bucket, values);
    const dvs = deletionFiles.get(groupKey);
    const files = group.map((e) => e.file);
    const make = (bin: DataFileMeta[], raw: boolean): DataSplit => ({
      kind: "data",
      snapshotId: snapshot.id,
      partition,
      partitionRow: first.partition,
      bucket: first.bucket,
      bucketPath,
      totalBuckets: first.totalBuckets,
      files: bin,
      rawConvertible: raw,
      ...(dv ? { deletionFiles: bin.map((f) => dvs?.get(f.fileName) ?? null) } : {}),
    });
    const allAboveZero = files.every((f) => f.level > 0);
    const noDeletes = (f: DataFileMeta) => f.deleteRowCount === null || f.deleteRowCount === 0n;
    // Raw reading: DV tables / first-row (levels >= 1 hold one live row per key), or a single level.
    const raw =
      files.every(noDeletes) &&
      ((allAboveZero && (dv || config.mergeEngine === "first-row")) || (allAboveZero && files.every((f) => f.level === files[0].level)));
    const units: DataFileMeta[][] = raw ? [...files].sort((a, b) => keys.compare(a.minKey, b.minKey)).map((f) => [f]) : intervalPartition(files, keys).map((runs) => runs.flat());
    let bin: DataFileMeta[] = [];
    let weight = 0;
    const flush = () => {
      if (bin.length === 0) return;
      splits.push(make(bin, raw || (bin.length === 1 && bin[0].deleteRowCount === 0n)));
      bin = [];
      weight = 0;
    };
    for (const unit of units) {
      const w = unit.reduce((n, f) => n + Math.max(Number(f.fileSize), openCost), 0);
      if (bin.length > 0 && weight + w > target) flush();
      bin.push(...unit);
      weight += w;
    }
    flush();
  }
  return splits;
}
