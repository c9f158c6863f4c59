// Java Paimon's rescale procedure (Flink `RescaleAction`, `CALL sys.rescale(table, bucket_num,
// partition)`): the rows of a partition (or of the whole table), read at the latest snapshot, are
// written again into `bucketNum` buckets — the table's own count when none is given — and replace
// the partition's files in one OVERWRITE snapshot, committed in strict mode
// (`commit.strict-mode.last-safe-snapshot` = the snapshot read), so that a COMPACT / OVERWRITE of
// another user, or another user's APPEND to real buckets, in between fails the rescale instead of
// being lost. The table's schema is not changed: the new count lives in the files' total buckets,
// as in Java (postpone-bucket tables then compact into it; for fixed-bucket tables Java's guide
// sets `bucket` with ALTER TABLE first). Loaded on first use.
import type { RecordBatch } from "apache-arrow";
import type { PaimonError as PaimonErrorClass } from "../error.js";
import type { CommitMessage } from "./commit-message.js";
import { commitOutcomeUnknown } from "./file-store-commit.js";
import type { ManifestEntry } from "../spec/manifest.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { primaryKeyConfig } from "../table/primary-key.js";

/** Options of {@link Table.rescale}. */
export interface RescaleOptions {
  /** The commit user of the rescale's snapshot. */
  commitUser: string;
  /** The bucket count to write (required for postpone-bucket tables; default: the table's `bucket`). */
  bucketNum?: number;
  /** Values of the partition keys of the partition to rescale (some or all keys); default: the whole table. */
  partition?: Record<string, unknown>;
}

/** What the rescale needs of the layers above (passed in by table.ts). */
export interface RescaleDeps {
  readonly PaimonError: typeof PaimonErrorClass;
  readonly primaryKeyConfig: typeof primaryKeyConfig;
  /** The live files of snapshot `snapshotId` in `partition` (all of them without one). */
  entries(snapshotId: number, partition: Record<string, unknown> | undefined): Promise<ManifestEntry[]>;
  /** The rows (merged for primary-key tables) of `partition` at snapshot `snapshotId`, batch by batch. */
  rows(snapshotId: number, partition: Record<string, unknown> | undefined): Promise<AsyncIterable<RecordBatch>>;
  /** The same table with its options replaced (the schema files are not changed). */
  withOptions(options: Record<string, string>): FileStoreTable;
  newWrite(table: FileStoreTable, commitUser: string): Promise<{ write(batch: RecordBatch): Promise<void>; prepareCommit(): Promise<CommitMessage[]>; close(): Promise<void> }>;
  newCommit(table: FileStoreTable, commitUser: string): { overwrite(messages: CommitMessage[], partition?: Record<string, unknown>): Promise<number | null>; abort(messages: CommitMessage[]): Promise<void> };
}

const POSTPONE_BUCKET = -2;

/** Rescales `table` (see the file comment); returns the OVERWRITE snapshot's id. */
export async function rescaleTable(table: FileStoreTable, options: RescaleOptions, deps: RescaleDeps): Promise<number | null> {
  const { PaimonError } = deps;
  const invalid = (text: string) => new PaimonError("INVALID_ARGUMENT", `rescale of ${table.identifier}: ${text}`);
  if (options === null || typeof options !== "object") throw invalid("options { commitUser, bucketNum?, partition? } are required");
  const { bucketNum, partition } = options;
  if (bucketNum !== undefined && (!Number.isInteger(bucketNum) || bucketNum < 1 || bucketNum > 0x7fffffff)) throw invalid(`bucketNum must be a positive integer, got ${JSON.stringify(bucketNum)}`);
  if (partition !== undefined && (partition === null || typeof partition !== "object" || Array.isArray(partition))) throw invalid(`partition must be an object of partition key values, got ${JSON.stringify(partition)}`);
  const unknown = Object.keys(partition ?? {}).filter((k) => !table.schema.partitionKeys.includes(k));
  if (unknown.length > 0) throw invalid(`unknown partition column(s) ${unknown.join(", ")} (partition keys: ${table.schema.partitionKeys.join(", ") || "none"})`);
  const bucket = table.coreOptions.bucket;
  if (bucket !== POSTPONE_BUCKET && bucket < 1) {
    throw new PaimonError("UNSUPPORTED", `rescale of ${table.identifier}: bucket = ${bucket} (${table.schema.primaryKeys.length > 0 ? "dynamic" : "unaware"} bucket mode) has no bucket count to rescale; rescale applies to fixed-bucket and postpone-bucket tables`);
  }
  // Real-time progress (seed 000) is kept per partition-bucket of the upstream's layout: a
  // rescale would reset it (as any overwrite) while the rows stay, and the upstream replay
  // after a restart would write them again.
  if (table.coreOptions.bool("realtime.enabled", false)) throw new PaimonError("UNSUPPORTED", `rescale of ${table.identifier}: a real-time table (realtime.enabled=true) keeps its offset progress per partition-bucket; a rescale would reset it while keeping the rows`);
  // Java RescaleAction's checks and messages
  const latest = await table.latestSnapshot();
  if (latest === null) throw invalid(`Table ${table.identifier} has no snapshot. No need to rescale.`);
  if (bucket === POSTPONE_BUCKET && bucketNum === undefined) throw invalid("When rescaling postpone bucket tables, you must provide the resulting bucket number.");
  const entries = await deps.entries(latest.id, partition);
  // Beyond Java, whose batch read skips them and whose overwrite then deletes them: rows still in
  // postpone-bucket files would be lost.
  const postponed = entries.filter((e) => e.bucket === POSTPONE_BUCKET).length;
  if (postponed > 0) throw invalid(`${postponed} file(s) of the ${partition ? "partition" : "table"} are still in the postpone bucket; compact the table first (their rows are not read by a batch read and the rescale would delete them)`);
  if (!entries.some((e) => e.bucket >= 0)) throw invalid("The specified partition does not have any data files. No need to rescale.");
  // Likewise level-0 files of deletion-vector and first-row tables, which their batch reads skip.
  const config = table.schema.primaryKeys.length > 0 ? deps.primaryKeyConfig(table.coreOptions) : null;
  const skipsLevel0 = config !== null && (config.deletionVectors || config.mergeEngine === "first-row");
  const level0 = skipsLevel0 ? entries.filter((e) => e.bucket >= 0 && e.file.level === 0).length : 0;
  if (level0 > 0) throw invalid(`${level0} level-0 file(s) of the ${partition ? "partition" : "table"} are not compacted yet; compact first (a batch read of this table skips them and the rescale would delete them)`);

  const rescaled = deps.withOptions({
    ...table.schema.options,
    ...(bucketNum !== undefined ? { bucket: String(bucketNum) } : {}),
    "commit.strict-mode.last-safe-snapshot": String(latest.id),
  });
  const write = await deps.newWrite(rescaled, options.commitUser);
  let messages: CommitMessage[] = [];
  const commit = deps.newCommit(rescaled, options.commitUser);
  try {
    try {
      for await (const batch of await deps.rows(latest.id, partition)) await write.write(batch);
      messages = await write.prepareCommit();
    } finally {
      await write.close();
    }
    return await commit.overwrite(messages, partition);
  } catch (e) {
    // the files written are not committed: removed (a commit whose outcome is unknown keeps them)
    if (!commitOutcomeUnknown(e)) await commit.abort(messages).catch(() => undefined);
    throw e;
  }
}
