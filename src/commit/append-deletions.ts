// Deleting rows of an append deletion-vector table by file position (Java's DELETE on an append
// table: `BaseAppendDeleteFileMaintainer.notifyNewDeletionVector` + `persist`). The positions are
// resolved on every commit attempt against the attempt's latest snapshot and merged into the
// bucket's committed deletion vectors there, so a concurrent commit that rewrote the bucket's
// index (another deletion, a compaction) is built upon instead of undone. Real-time deduplicate
// commits resolve logical offsets the same way (seed 000 "Append Deduplicate / Offset DV").
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { FILE_KIND_ADD, FILE_KIND_DELETE, type DataFileMeta, type ManifestEntry } from "../spec/manifest.js";
import { BATCH_COMMIT_IDENTIFIER, type Snapshot } from "../spec/snapshot.js";
import type { ManifestStore } from "../table/manifests.js";
import type { TablePaths } from "../table/paths.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { BucketDeletionVectors, deletionVectorIndexFiles } from "../write/deletion-vector-index.js";
import { FileStoreCommit, type ResolvedIndexChanges } from "./file-store-commit.js";
import { icebergRawFiles } from "./iceberg-compat.js";

/** Deleted positions by data file name. */
export type FilePositions = ReadonlyMap<string, ArrayLike<number>>;

/** Deletions of one partition-bucket, resolved per commit attempt. */
export interface BucketDeletions {
  /** Serialized partition BinaryRow (as in CommitMessage). */
  partition: Uint8Array;
  bucket: number;
  /**
   * The positions to delete, given the bucket's live files in the attempt's snapshot plus
   * `newFiles`. Must name only those files (COMMIT_CONFLICT otherwise: a concurrent
   * compaction or overwrite removed the file).
   */
  resolve: (files: readonly DataFileMeta[], latest: Snapshot | null) => FilePositions | Promise<FilePositions>;
  /** Files the same commit adds to the bucket, which may receive deletions too. */
  newFiles?: readonly DataFileMeta[];
}

/** Where the table's files are and how its deletion vectors are kept. */
export interface DeletionVectorTable {
  io: FileIO;
  paths: TablePaths;
  manifests: ManifestStore;
  bitmap64: boolean;
  /** Fixed-bucket table: one deletion-vector index file per bucket, rewritten whole. */
  fixedBucket: boolean;
}

/**
 * The per-attempt hook ({@link FileStoreCommit} `resolveIndexChanges`) that merges `deletions`
 * into the latest committed deletion vectors of their buckets. Each bucket's index files are
 * replaced (DELETE old, ADD merged), as Java's maintainers persist them.
 */
export function deletionVectorResolver(table: DeletionVectorTable, deletions: readonly BucketDeletions[]) {
  return async (latest: Snapshot | null, live: readonly ManifestEntry[]): Promise<ResolvedIndexChanges> => {
    const indexEntries = await table.manifests.indexEntries(latest);
    const out: ResolvedIndexChanges = { changes: [], files: [] };
    try {
      for (const d of deletions) {
        const key = d.partition.join(",");
        const files = live.filter((e) => e.bucket === d.bucket && e.partition.join(",") === key).map((e) => e.file);
        files.push(...(d.newFiles ?? []));
        const positions = await d.resolve(files, latest);
        if (positions.size === 0) continue;
        const byName = new Map(files.map((f) => [f.fileName, f]));
        for (const [name, list] of positions) {
          const file = byName.get(name);
          if (!file) {
            throw new PaimonError("COMMIT_CONFLICT", `cannot delete rows of data file ${name} of bucket ${d.bucket}: it is not live in snapshot ${latest?.id ?? "(none)"} (concurrent compaction or overwrite); give up committing`);
          }
          for (let i = 0; i < list.length; i++) {
            const p = list[i];
            if (!Number.isInteger(p) || p < 0 || BigInt(p) >= file.rowCount) {
              throw new PaimonError("INVALID_ARGUMENT", `row position ${p} is outside data file ${name} of ${file.rowCount} rows`);
            }
          }
        }
        const bucketDir = table.paths.bucketDirOf(d.partition, d.bucket);
        const vectors = await BucketDeletionVectors.load(table, bucketDir, deletionVectorIndexFiles(indexEntries, d.partition, d.bucket), table.fixedBucket);
        try {
          for (const [name, list] of positions) vectors.merge(name, list);
          const changes = await vectors.persist();
          for (const f of changes.newIndexFiles) {
            out.files.push(table.paths.indexFile(f, bucketDir));
            out.changes.push({ kind: FILE_KIND_ADD, partition: d.partition, bucket: d.bucket, indexFile: f });
          }
          for (const f of changes.deletedIndexFiles) out.changes.push({ kind: FILE_KIND_DELETE, partition: d.partition, bucket: d.bucket, indexFile: f });
        } finally {
          vectors.dispose();
        }
      }
    } catch (e) {
      await Promise.all(out.files.map((p) => table.io.delete(p).catch(() => false)));
      throw e;
    }
    return out;
  };
}

/** Rows of one data file to delete. */
export interface RowDeletion {
  /** Partition values by key name (omit for unpartitioned tables). */
  partition?: Record<string, unknown>;
  bucket: number;
  fileName: string;
  /** Row positions in the file (0-based). */
  positions: ArrayLike<number>;
}

/**
 * Deletes rows of an append table with `deletion-vectors.enabled=true` by file position, as one
 * snapshot (OVERWRITE, as Java commits DELETE statements, or APPEND). The positions are merged
 * into the latest deletion vectors on every commit attempt; a file that a concurrent commit
 * removed (compaction, overwrite) makes it fail with COMMIT_CONFLICT, leaving nothing behind.
 * Returns the snapshot id.
 */
export async function commitRowDeletions(
  table: FileStoreTable,
  commitUser: string,
  deletions: readonly RowDeletion[],
  options: { commitIdentifier?: bigint; commitKind?: "APPEND" | "OVERWRITE" } = {},
): Promise<number> {
  if (table.schema.primaryKeys.length > 0) {
    throw new PaimonError("UNSUPPORTED", `deleting rows by position needs an append table; ${table.identifier} has a primary key`);
  }
  if (!table.coreOptions.bool("deletion-vectors.enabled", false)) {
    throw new PaimonError("UNSUPPORTED", `deleting rows by position needs deletion-vectors.enabled=true on ${table.identifier}`);
  }
  if (!Array.isArray(deletions) || deletions.length === 0) throw new PaimonError("INVALID_ARGUMENT", `commitRowDeletions of ${table.identifier} needs at least one deletion`);
  const types = table.partitionFields.map((f) => f.type);
  const byBucket = new Map<string, { partition: Uint8Array; bucket: number; positions: Map<string, number[]> }>();
  for (const d of deletions) {
    let partition: Uint8Array;
    try {
      partition = serializeBinaryRow(toBinaryRow(table.partitionFields.map((f) => d.partition?.[f.name]), types), types.length);
    } catch (e) {
      throw new PaimonError("INVALID_ARGUMENT", `partition ${JSON.stringify(d.partition)} of ${table.identifier}: ${(e as Error).message}`);
    }
    const key = `${partition.join(",")}|${d.bucket}`;
    let g = byBucket.get(key);
    if (!g) byBucket.set(key, (g = { partition, bucket: d.bucket, positions: new Map() }));
    let list = g.positions.get(d.fileName);
    if (!list) g.positions.set(d.fileName, (list = []));
    for (let i = 0; i < d.positions.length; i++) list.push(d.positions[i]);
  }
  const commit = new FileStoreCommit(table.fileIO, table.location, table.schema, commitUser, icebergRawFiles(table));
  const resolver = deletionVectorResolver(
    { io: table.fileIO, paths: table.paths, manifests: table.manifestStore, bitmap64: table.coreOptions.bool("deletion-vectors.bitmap64", false), fixedBucket: table.coreOptions.bucket > 0 },
    [...byBucket.values()].map((g) => ({ partition: g.partition, bucket: g.bucket, resolve: () => g.positions })),
  );
  const id = await commit.commit([], options.commitIdentifier ?? BATCH_COMMIT_IDENTIFIER, { resolveIndexChanges: resolver, resolvedCommitKind: options.commitKind });
  return id!;
}

