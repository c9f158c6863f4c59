import type { DataFileMeta } from "../spec/manifest.js";
import type { DeletionFile } from "../read/kv-file-reader.js";

/** Committed data files of one partition-bucket to read together (Java `DataSplit`). */
export interface DataSplit {
  readonly kind: "data";
  readonly snapshotId: number;
  /** Partition values by key name (internal values: DATE as epoch day, TIMESTAMP as {millis, nanoOfMillisecond}). */
  readonly partition: Record<string, unknown>;
  /** Serialized partition BinaryRow. */
  readonly partitionRow: Uint8Array;
  readonly bucket: number;
  /** Directory holding the files (`<table>/<partition dirs>bucket-<b>`). */
  readonly bucketPath: string;
  readonly totalBuckets: number;
  readonly files: readonly DataFileMeta[];
  /** True when the files can be read without merging (append tables, or one run without deletes). */
  readonly rawConvertible: boolean;
  /** Deletion-vector tables: where each file's deletion vector is (aligned with `files`; null = none). */
  readonly deletionFiles?: ReadonlyArray<DeletionFile | null>;
  /**
   * Incremental delta / changelog splits (Java `DataSplit.isStreaming`): the files' records are
   * read one after another, unmerged, with their row kinds (retract rows too), no deletion vectors.
   */
  readonly streaming?: boolean;
  /**
   * Incremental diff splits (Java `IncrementalSplit`): the partition-bucket's files only the start
   * snapshot has; `files` are the ones only the end snapshot has. A primary-key read emits the
   * end's merged rows whose key is new or whose row changed; an append read reads `files`.
   */
  /**
   * Data-evolution tables (`data-evolution.enabled`): the files' rows are merged by row id, each
   * column from the newest file of the row range holding it (src/read/data-evolution.ts).
   */
  readonly dataEvolution?: boolean;
  readonly diffBefore?: { readonly files: readonly DataFileMeta[]; readonly deletionFiles?: ReadonlyArray<DeletionFile | null> };
  /**
   * Files of another branch of the table (`scan.fallback-branch` / `scan.primary-branch`,
   * src/read/branch-fallback.ts): that branch's name; its schemas and merge options read them.
   */
  readonly branch?: string;
}

/** A unit of reading work produced by a scan. */
export type Split = DataSplit;

/** What `TableScan.plan()` returns. */
export interface Plan {
  /** The snapshot planned from; null for a table without snapshots. */
  readonly snapshotId: number | null;
  readonly splits: Split[];
}
