// Snapshots published through a catalog instead of written by the committer, as Java's
// `CatalogSnapshotCommit` does for catalogs that manage versions (`supportsVersionManagement`: the
// REST catalog's `commit` endpoint). A catalog registers its publisher for the tables it loads, by
// their FileIO and directory; every commit of such a table (writes, compactions, overwrites, by any
// component holding that FileIO) then goes through it.
import type { FileIO } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { FILE_KIND_DELETE, type ManifestEntry } from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { partitionValueString } from "../table/paths.js";

/**
 * Publishes snapshot `snapshot` of a branch: true when published, false when another writer
 * already took its id (the commit then retries on the new latest snapshot). `entries` are the
 * file changes the snapshot lists (for the catalog's partition statistics).
 */
export type SnapshotCommit = (snapshot: Snapshot, branch: string, entries: readonly ManifestEntry[]) => Promise<boolean>;

const catalogCommits = new WeakMap<FileIO, Map<string, SnapshotCommit>>();

/** Routes the snapshots of the table at `root` (on `io`) through `commit`. */
export function registerCatalogSnapshotCommit(io: FileIO, root: string, commit: SnapshotCommit): void {
  let tables = catalogCommits.get(io);
  if (tables === undefined) catalogCommits.set(io, (tables = new Map()));
  tables.set(root, commit);
}

/** The catalog publisher of the table at `root` on `io`, or undefined: the committer writes the snapshot file. */
export function catalogSnapshotCommitOf(io: FileIO, root: string): SnapshotCommit | undefined {
  return catalogCommits.get(io)?.get(root);
}

/** Java's `PartitionStatistics` of one partition: what a commit changed there (REST `commit` requests carry them). */
export interface PartitionStatistics {
  /** Partition values as strings by key, as Java's partition computer renders them (`partition.default-name` for null). */
  spec: Record<string, string>;
  recordCount: bigint;
  fileSizeInBytes: bigint;
  fileCount: bigint;
  lastFileCreationTime: number;
  totalBuckets: number;
}

/**
 * The statistics of a commit's file changes per partition, as Java's `PartitionEntry.merge`:
 * added files count up, deleted ones down.
 */
export function partitionStatistics(entries: readonly ManifestEntry[], partitionFields: readonly DataField[], layout: { partitionDefaultName: string; partitionLegacyName: boolean }): PartitionStatistics[] {
  const byPartition = new Map<string, PartitionStatistics>();
  const types = partitionFields.map((f) => f.type);
  for (const e of entries) {
    const key = e.partition.join(",");
    let stats = byPartition.get(key);
    if (stats === undefined) {
      const values = fromBinaryRow(e.partition.subarray(4), types);
      const spec: Record<string, string> = {};
      partitionFields.forEach((f, i) => {
        const text = partitionValueString(values[i], f.type, layout.partitionLegacyName);
        spec[f.name] = text === null || text.trim() === "" ? layout.partitionDefaultName : text;
      });
      stats = { spec, recordCount: 0n, fileSizeInBytes: 0n, fileCount: 0n, lastFileCreationTime: 0, totalBuckets: e.totalBuckets };
      byPartition.set(key, stats);
    }
    const sign = e.kind === FILE_KIND_DELETE ? -1n : 1n;
    stats.recordCount += sign * e.file.rowCount;
    stats.fileSizeInBytes += sign * e.file.fileSize;
    stats.fileCount += sign;
    stats.lastFileCreationTime = Math.max(stats.lastFileCreationTime, e.file.creationTime ?? 0);
    stats.totalBuckets = e.totalBuckets;
  }
  return [...byPartition.values()];
}
