// Planning a batch read: the live files of a snapshot, pruned by partition, bucket and
// statistics, packed into splits.
import { PaimonError } from "../error.js";
import { prefetchDecoders } from "../format/parquet-reader.js";
import { bindPredicate, type Predicate, splitPredicateByFields } from "../predicate/predicate.js";
import { evaluatePartitionRow } from "../predicate/evaluate.js";
import { bytesEqual, fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { groupByPartitionBucket, partitionBucketKey, type ManifestEntry, type ManifestFileMeta } from "../spec/manifest.js";
import { boundMayMatch, mayMatch, partitionStatsOf, valueStatsOf } from "../predicate/stats.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { DataSplit, Plan } from "./split.js";
import type { RealtimeContext } from "../realtime/context.js";
import { realtimeHooks } from "../realtime/hooks.js";
import { deletionFilesOf, planPrimaryKeySplits, type PrimaryKeyPlanMode } from "./merge-tree-splits.js";
import type { DeletionFile } from "../read/kv-file-reader.js";
import { embeddedIndexMayMatch } from "../read/file-index-filter.js";
import type { TimeTravel, TravelSnapshot } from "../table/time-travel.js";
import { primaryKeyConfig } from "../table/primary-key.js";

/** Options of `Table.newScan` (API.md). */
export interface ScanOptions {
  filter?: Predicate;
  partitions?: Array<Record<string, unknown>>;
  buckets?: number[];
  /** Time travel to this snapshot; without it, the table's `scan.*` time-travel options (else the latest snapshot). */
  snapshotId?: number;
  /** Real-time context: plan a union of committed files and the context's memory (src/realtime/scan.ts). */
  realtime?: RealtimeContext;
  /** Internal: only files of this LSM level (`$ro` of primary-key tables, Java `withLevel`). */
  level?: number;
  /** Internal: only files of this LSM level or above (a stream scan's first plan of a lookup-changelog table). */
  minLevel?: number;
  /** Internal: a stream scan's full plan (deletion-vector and first-row tables keep level 0, as Java's stream scan). */
  streaming?: boolean;
}

const REALTIME_UNION: PrimaryKeyPlanMode = Object.freeze({ realtimeUnion: true });
const PLAIN: PrimaryKeyPlanMode = Object.freeze({});
const STREAMING: PrimaryKeyPlanMode = Object.freeze({ keepLevel0: true });
/** Compressions whose chunks the flat decoder takes whole (others make parquet-wasm likely). */
const FLAT_COMPRESSIONS: ReadonlySet<string> = new Set(["zstd", "snappy", "none"]);

export class TableScan {
  private readonly partitionFields: DataField[];
  /** The filter bound to the table's fields (null without one). */
  private readonly boundFilter: Predicate | null;
  /** The table options' time travel (`FileStoreTable.timeTravel`, pending on a fresh `Table.copy`); null with an explicit snapshot id or none. */
  private readonly travel: TimeTravel | Promise<TimeTravel | PaimonError | null> | null;

  constructor(
    private readonly table: FileStoreTable,
    private readonly options: ScanOptions = {},
  ) {
    this.partitionFields = table.partitionFields;
    this.boundFilter = options.filter ? bindPredicate(options.filter, table.schema.fields) : null; // validates columns and literals
    const travel = options.snapshotId === undefined ? table.timeTravel : null;
    if (travel instanceof PaimonError) throw travel;
    this.travel = travel;
    if (options.realtime !== undefined) realtimeHooks("newScan").checkRealtimeScan(table, options); // real-time hook
  }

  async plan(): Promise<Plan> {
    // a read follows: load its decoders while the metadata is read (parquet-wasm only for columns
    // outside the flat decoder's scope and for codecs whose whole chunks it leaves to parquet-wasm;
    // primary-key system columns and the pages of selective reads are flat)
    const t = this.table;
    prefetchDecoders(t.schema.fields, !FLAT_COMPRESSIONS.has(t.coreOptions.fileCompression));
    if (this.options.realtime !== undefined) return realtimeHooks("newScan").planRealtimeScan(this.table, this.options, this); // real-time hook
    return this.planFiles(this.options.streaming ? STREAMING : PLAIN);
  }

  /**
   * Internal: the committed side of a real-time union plan (src/realtime/scan.ts), planned by
   * this scan (its bound filter) as `REALTIME_UNION`, not by a second scan made per plan.
   */
  planCommitted(): Promise<Plan> {
    return this.planFiles(REALTIME_UNION);
  }

  private async planFiles(primaryKeyMode: PrimaryKeyPlanMode): Promise<Plan> {
    const snapshots = this.table.snapshotManager;
    const travel = await this.travel; // (pending on a fresh Table.copy)
    if (travel instanceof PaimonError) throw travel;
    // data-evolution tables: files pruned by row-id group, not one by one (data-evolution-scan.ts)
    const dataEvolution = this.table.schema.options[DATA_EVOLUTION] === "true";
    if (travel?.kind === "incremental" && primaryKeyMode.realtimeUnion !== true) {
      const { keepManifest, keepEntry, keepFile } = this.filters();
      const { planIncremental } = await import("./incremental-scan.js");
      // (primary-key and data-evolution files are pruned by partition and bucket only: Java filters their keys, not values, and no data-evolution delta)
      return planIncremental(this.table, travel, { keepManifest, keepEntry: this.table.schema.primaryKeys.length > 0 || dataEvolution ? keepEntry : keepFile }, { PaimonError, fromBinaryRow, deletionFilesOf, primaryKeyConfig, groupByPartitionBucket, partitionBucketKey });
    }
    const snapshot: TravelSnapshot | null =
      this.options.snapshotId !== undefined
        ? await snapshots.snapshot(this.options.snapshotId)
        : travel !== null
          ? await import("../table/time-travel.js").then((m) => m.resolveTimeTravel(snapshots, this.table.identifier, travel, primaryKeyMode.realtimeUnion === true))
          : await snapshots.latestSnapshot();
    if (snapshot === null) return { snapshotId: null, splits: [] };
    const { keepManifest, keepEntry, keepFile: fileStats } = this.filters();
    const keepStats = dataEvolution ? keepEntry : fileStats;
    // (creation-time scans of the latest snapshot keep the files created since a time)
    const kept = snapshot.kept;
    const keepFile = kept ? (e: ManifestEntry) => keepStats(e) && kept(e) : keepStats;
    // A real-time union plan (a continuous query) filters the snapshot's live files kept from its
    // previous plan of the same snapshot; keepFile also applies the partition pruning keepManifest does.
    const entries = primaryKeyMode.realtimeUnion ? (await this.table.manifestStore.allLiveEntries(snapshot)).filter(keepFile) : await this.table.manifestStore.liveEntries(snapshot, keepManifest, keepFile);
    if (this.table.schema.primaryKeys.length > 0) return { snapshotId: snapshot.id, splits: await planPrimaryKeySplits(this.table, snapshot, entries, this.boundFilter ?? undefined, primaryKeyMode) };
    // Append tables with deletion vectors (written by Java's DELETE on append tables).
    const deletionFiles = snapshot.indexManifest ? deletionFilesOf(this.table, await this.table.manifestStore.indexEntries(snapshot)) : null;
    if (dataEvolution) {
      // files grouped by row-id range, pruned by group, packed by size (a lazy chunk)
      const splits: DataSplit[] = [];
      for (const bin of await (await import("./data-evolution-scan.js")).planDataEvolutionBins(this.table, entries, this.boundFilter, [PaimonError, boundMayMatch, valueStatsOf, groupByPartitionBucket])) this.packGroup(splits, snapshot.id, bin, deletionFiles);
      return { snapshotId: snapshot.id, splits };
    }
    return { snapshotId: snapshot.id, splits: this.packSplits(snapshot.id, entries, deletionFiles) };
  }

  /**
   * Internal (also stream scans, rescale): the scan's pruning: manifests by partition statistics,
   * entries by partition and bucket, files by statistics too; postpone-bucket files only with `withPostpone`.
   */
  filters(withPostpone = false) {
    const partitionFilter = this.options.filter && this.partitionFields.length > 0 ? splitPredicateByFields(this.options.filter, this.partitionFields.map((f) => f.name)).picked : null;
    const wanted = this.options.partitions?.map((p) => {
      const unknown = Object.keys(p).filter((k) => !this.table.schema.partitionKeys.includes(k));
      if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `unknown partition column(s) ${unknown.join(", ")} in scan of ${this.table.identifier}`);
      const types = this.partitionFields.map((f) => f.type);
      return serializeBinaryRow(toBinaryRow(this.partitionFields.map((f) => p[f.name] ?? null), types), types.length).join(",");
    });
    const buckets = this.options.buckets ? new Set(this.options.buckets) : null;
    const { level, minLevel = 0 } = this.options;
    const keepEntry = (e: ManifestEntry): boolean => {
      if (e.bucket === -2 && !withPostpone) return false; // postpone bucket: invisible to batch reads
      if (buckets && !buckets.has(e.bucket)) return false;
      if ((level !== undefined && e.file.level !== level) || e.file.level < minLevel) return false;
      if (wanted && !wanted.includes(e.partition.join(","))) return false;
      if (partitionFilter && !evaluatePartitionRow(partitionFilter, e.partition, this.partitionFields)) return false;
      return true;
    };
    // Statistics pruning: manifests by partition stats, files by value stats and embedded file
    // indexes (files written under another schema are kept: their stats columns are that schema's).
    const schema = this.table.schema;
    const keepManifest = (m: ManifestFileMeta): boolean => !partitionFilter || mayMatch(partitionFilter, partitionStatsOf(m, this.partitionFields), this.partitionFields);
    // (data-evolution tables: batch plans prune by row-id group instead, incremental ones not at all; stream deltas, of full-row files, file by file as Java's groups)
    const valueFilter = this.options.filter && schema.primaryKeys.length === 0 ? this.options.filter : null;
    const boundValueFilter = valueFilter ? this.boundFilter : null;
    const useIndex = this.table.coreOptions.fileIndexReadEnabled;
    const keepFile = (e: ManifestEntry): boolean =>
      keepEntry(e) &&
      (!valueFilter || e.file.schemaId !== schema.id || (boundMayMatch(boundValueFilter!, valueStatsOf(e.file, schema.fields)) && (!useIndex || embeddedIndexMayMatch(e.file, valueFilter, schema.fields))));
    return { keepManifest, keepEntry, keepFile };
  }

  /** Groups files by partition-bucket and packs each group into splits by size (append tables). */
  private packSplits(snapshotId: number, entries: readonly ManifestEntry[], deletionFiles: Map<string, Map<string, DeletionFile>> | null): DataSplit[] {
    const splits: DataSplit[] = [];
    if (entries.length === 0) return splits;
    // (one partition-bucket, the usual real-time key lookup: no keys joined, no map)
    const e0 = entries[0];
    let single = true;
    for (const e of entries) {
      if (e.bucket !== e0.bucket || !bytesEqual(e.partition, e0.partition)) {
        single = false;
        break;
      }
    }
    if (single) {
      this.packGroup(splits, snapshotId, entries, deletionFiles);
      return splits;
    }
    for (const group of groupByPartitionBucket(entries).values()) this.packGroup(splits, snapshotId, group, deletionFiles);
    return splits;
  }

  /** Packs the files of one partition-bucket into splits by size, appended to `splits`. */
  private packGroup(splits: DataSplit[], snapshotId: number, group: readonly ManifestEntry[], deletionFiles: Map<string, Map<string, DeletionFile>> | null): void {
    const opts = this.table.coreOptions;
    // data-evolution tables: a bin of data-evolution-scan.ts in one split, merged by row id (src/read/data-evolution.ts)
    const dataEvolution = this.table.schema.options[DATA_EVOLUTION] === "true";
    const target = dataEvolution ? Infinity : opts.splitTargetSize;
    const openCost = opts.splitOpenFileCost;
    const first = group[0];
    const place = this.placeOf(first);
    const partition = { ...place.partition };
    const bucketPath = place.bucketPath;
    const dvs = deletionFiles?.get(partitionBucketKey(first.partition, first.bucket));
    const files = group.length === 1 ? [first.file] : group.map((e) => e.file).sort((a, b) => (a.minSequenceNumber < b.minSequenceNumber ? -1 : a.minSequenceNumber > b.minSequenceNumber ? 1 : 0));
    // Bin packing in sequence order (Java AppendOnlySplitGenerator / BinPacking.packForOrdered).
    let bin: typeof files = [];
    let weight = 0;
    for (let i = 0; i <= files.length; i++) {
      const f = i < files.length ? files[i] : null;
      const w = f === null ? 0 : Math.max(Number(f.fileSize), openCost);
      if (bin.length > 0 && (f === null || weight + w > target)) {
        const split: DataSplit = { kind: "data", snapshotId, partition, partitionRow: first.partition, bucket: first.bucket, bucketPath, totalBuckets: first.totalBuckets, files: bin, rawConvertible: true };
        if (dvs) (split as { deletionFiles?: Array<DeletionFile | null> }).deletionFiles = bin.map((file) => dvs.get(file.fileName) ?? null);
        if (dataEvolution) (split as { dataEvolution?: boolean }).dataEvolution = true;
        splits.push(split);
        bin = [];
        weight = 0;
      }
      if (f === null) break;
      bin.push(f);
      weight += w;
    }
  }

  /**
   * The partition values (by name) and bucket directory of an entry's partition-bucket, kept per
   * partition bytes object (a real-time plan packs the same cached live entries again and again).
   */
  private placeOf(e: ManifestEntry): Place {
    const known = places.get(e.partition);
    if (known !== undefined && known.table === this.table && known.bucket === e.bucket) return known;
    const values = fromBinaryRow(e.partition.subarray(4), this.partitionFields.map((f) => f.type));
    const partition = Object.fromEntries(this.partitionFields.map((f, i) => [f.name, values[i]]));
    const bucketPath = this.table.paths.bucketDirOf(e.partition, e.bucket, values);
    const place: Place = { table: this.table, bucket: e.bucket, partition, bucketPath };
    places.set(e.partition, place);
    return place;
  }
}

/** Where a partition-bucket's splits point (TableScan.placeOf); `partition` is copied into each plan. */
interface Place {
  readonly table: FileStoreTable;
  readonly bucket: number;
  readonly partition: Readonly<Record<string, unknown>>;
  readonly bucketPath: string;
}

const places = new WeakMap<Uint8Array, Place>();

const DATA_EVOLUTION = "data-evolution.enabled";
