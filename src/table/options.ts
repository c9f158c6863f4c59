// Table options (Paimon CoreOptions) that paimon-rt reads, with Java's defaults and
// parsers for Paimon's memory-size and duration syntax ("128 mb", "5 min").
import { PaimonError } from "../error.js";
import { checkBranchName, isTrueOption as isTrue, MAIN_BRANCH, requireFileNamePrefix, requireIntOption, requireRelativeDirectory } from "./option-validation.js";

/** Option keys used by the library. Values are strings, as in schema files. */
export const Options = {
  BUCKET: "bucket",
  BUCKET_KEY: "bucket-key",
  FILE_FORMAT: "file.format",
  FILE_COMPRESSION: "file.compression",
  FILE_COMPRESSION_ZSTD_LEVEL: "file.compression.zstd-level",
  TARGET_FILE_SIZE: "target-file-size",
  MANIFEST_COMPRESSION: "manifest.compression",
  MANIFEST_TARGET_FILE_SIZE: "manifest.target-file-size",
  PARTITION_DEFAULT_NAME: "partition.default-name",
  PARTITION_LEGACY_NAME: "partition.legacy-name",
  DATA_FILE_PREFIX: "data-file.prefix",
  DATA_FILE_EXTERNAL_PATHS: "data-file.external-paths",
  GLOBAL_INDEX_EXTERNAL_PATH: "global-index.external-path",
  COMMIT_MAX_RETRIES: "commit.max-retries",
  COMMIT_MIN_RETRY_WAIT: "commit.min-retry-wait",
  COMMIT_MAX_RETRY_WAIT: "commit.max-retry-wait",
  SNAPSHOT_NUM_RETAINED_MIN: "snapshot.num-retained.min",
  SNAPSHOT_NUM_RETAINED_MAX: "snapshot.num-retained.max",
  SNAPSHOT_TIME_RETAINED: "snapshot.time-retained",
  SNAPSHOT_EXPIRE_LIMIT: "snapshot.expire.limit",
  CONSUMER_EXPIRATION_TIME: "consumer.expiration-time",
  CONSUMER_CHANGELOG_ONLY: "consumer.changelog-only",
  READ_BATCH_SIZE: "read.batch-size",
  READ_CHUNK_CACHE_MAX_MEMORY: "read.chunk-cache.max-memory",
  COMPACTION_WORKERS: "compaction.workers",
  FILE_INDEX_READ_ENABLED: "file-index.read.enabled",
  SPLIT_TARGET_SIZE: "source.split.target-size",
  SPLIT_OPEN_FILE_COST: "source.split.open-file-cost",
  DYNAMIC_PARTITION_OVERWRITE: "dynamic-partition-overwrite",
  PARQUET_ROW_GROUP_SIZE: "parquet.block.size",
  MERGE_ENGINE: "merge-engine",
  DELETION_VECTORS_ENABLED: "deletion-vectors.enabled",
  LOOKUP_CACHE_MAX_MEMORY_SIZE: "lookup.cache-max-memory-size",
} as const;

/**
 * Options an alter may not change: Java 1.4.2's `@Immutable` ones (`CoreOptions.IMMUTABLE_OPTIONS`;
 * changing `data-file.path-directory` or `index-file-in-data-file-dir` would leave every existing
 * file where no reader looks), plus `sequence.field`, `path`.
 */
export const IMMUTABLE_OPTIONS = new Set([
  "type",
  "primary-key",
  "primary-key.nullable",
  "partition",
  "bucket-key",
  "bucket-function.type",
  "data-file.path-directory",
  "index-file-in-data-file-dir",
  "merge-engine",
  "sequence.field",
  "sequence.snapshot-ordering",
  "aggregation.remove-record-on-delete",
  "partial-update.remove-record-on-delete",
  "partial-update.remove-record-on-sequence-group",
  "rowkind.field",
  "dynamic-bucket.initial-buckets",
  "force-lookup",
  "data-evolution.enabled",
  "row-tracking.enabled",
  "blob-field",
  "blob-descriptor-field",
  "blob-view-field",
  "pk-clustering-override",
  "path",
]);

/**
 * Java 1.4.2's `SchemaManager.checkAlterTableOption` (an alter, and `Table.copy` for each option
 * it changes): immutable options are refused, a bucket count can only be rescaled between fixed
 * counts, and the options whose change would change what the existing files mean: the
 * deletion-vector mode (rows hidden or brought back without a full compaction) unless
 * `deletion-vectors.modifiable`, `ignore-delete` / `ignore-update-before` from true to false.
 * `next` undefined: the option is removed.
 */
export function checkOptionChange(options: Readonly<Record<string, string>>, key: string, next: string | undefined): void {
  if (IMMUTABLE_OPTIONS.has(key)) throw new PaimonError("UNSUPPORTED", `option ${key} cannot be changed after table creation`);
  if (key === "bucket") {
    const from = Number(options["bucket"] ?? "-1");
    if (next === undefined) throw new PaimonError("UNSUPPORTED", `option bucket cannot be reset (it is ${from})`);
    const to = Number(next);
    if ((from > 0) !== (to > 0)) throw new PaimonError("UNSUPPORTED", `cannot change bucket from ${from} to ${to}`);
  }
  const [from, to] = [isTrue(options[key]), isTrue(next)];
  const dv = key === "deletion-vectors.enabled";
  if (dv ? !isTrue(options["deletion-vectors.modifiable"]) && from !== to : (key === "ignore-delete" || key === "ignore-update-before") && next !== undefined && from && !to) {
    throw new PaimonError("UNSUPPORTED", `cannot change ${key} from ${from} to ${to}${dv ? " without deletion-vectors.modifiable=true" : ""}`);
  }
}

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  byte: 1,
  bytes: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  kibibytes: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  mebibytes: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  gibibytes: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/** Parses Paimon's MemorySize syntax ("128 mb", "8mb", "1024"): bytes. */
export function parseMemorySize(text: string, key = "memory size"): number {
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: cannot parse memory size '${text}'`);
  return Number(m[1]) * unit;
}

const DURATION_UNITS: Record<string, number> = {
  "": 1,
  ms: 1,
  milli: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  m: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** Parses Paimon's duration syntax ("5 min", "10 s", "100ms", "1h"): milliseconds. */
export function parseDuration(text: string, key = "duration"): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m ? DURATION_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: cannot parse duration '${text}'`);
  return Math.round(Number(m[1]) * unit);
}

/** Typed read access to a table's options with Java's defaults. */
export class TableOptions {
  /** Memory sizes parsed, by their text. */
  private readonly parsedSizes = new Map<string, number>();

  constructor(readonly raw: Readonly<Record<string, string>>) {}

  get(key: string): string | undefined {
    return this.raw[key];
  }

  int(key: string, fallback: number): number {
    const v = this.raw[key];
    return v === undefined ? fallback : requireIntOption(key, v);
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.raw[key];
    if (v === undefined) return fallback;
    const s = v.trim().toLowerCase();
    if (s !== "true" && s !== "false") throw new PaimonError("INVALID_ARGUMENT", `option ${key}: '${v}' is not a boolean`);
    return s === "true";
  }

  /**
   * partial-update's `fields.<s1,s2>.sequence-group = <f1,f2>` options, in option order: sequence
   * fields and the fields they protect, split at "," and not trimmed (as Java).
   */
  get sequenceGroups(): ReadonlyArray<{ key: string; sequenceFields: string[]; fields: string[] }> {
    const out: Array<{ key: string; sequenceFields: string[]; fields: string[] }> = [];
    for (const [key, v] of Object.entries(this.raw)) {
      const m = /^fields\.(.+)\.sequence-group$/.exec(key);
      if (m) out.push({ key, sequenceFields: m[1].split(","), fields: v.split(",") });
    }
    return out;
  }

  /** Java's `ignore-delete`: the key itself when set, else its fallback keys in Java's order (whatever the merge engine). */
  get ignoreDelete(): boolean {
    const key = ["ignore-delete", "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"].find((k) => this.raw[k] !== undefined);
    return key !== undefined && this.bool(key, false);
  }

  memory(key: string, fallback: string): number {
    // by text: split sizes are read on every plan (parsing allocated a match per read)
    const text = this.raw[key] ?? fallback;
    let bytes = this.parsedSizes.get(text);
    if (bytes === undefined) this.parsedSizes.set(text, (bytes = parseMemorySize(text, key)));
    return bytes;
  }

  duration(key: string, fallback: string): number {
    return parseDuration(this.raw[key] ?? fallback, key);
  }

  /** `bucket`: -1 (unaware / dynamic) unless set. */
  get bucket(): number {
    return this.int(Options.BUCKET, -1);
  }

  get fileFormat(): string {
    return (this.raw[Options.FILE_FORMAT] ?? "parquet").toLowerCase();
  }

  get fileCompression(): string {
    return (this.raw[Options.FILE_COMPRESSION] ?? "zstd").toLowerCase();
  }

  /** Java: 128 MB for primary-key tables, 256 MB for append tables. */
  targetFileSize(primaryKeyTable: boolean): number {
    return this.memory(Options.TARGET_FILE_SIZE, primaryKeyTable ? "128 mb" : "256 mb");
  }

  /** Bound of lookup caches (Java default 256 MB); real-time deduplicate reads cache decoded offset indexes within it. */
  get lookupCacheMaxMemorySize(): number {
    return this.memory(Options.LOOKUP_CACHE_MAX_MEMORY_SIZE, "256 mb");
  }

  get manifestCompression(): string {
    return (this.raw[Options.MANIFEST_COMPRESSION] ?? "zstd").toLowerCase();
  }

  get manifestTargetFileSize(): number {
    return this.memory(Options.MANIFEST_TARGET_FILE_SIZE, "8 mb");
  }

  get partitionDefaultName(): string {
    return this.raw[Options.PARTITION_DEFAULT_NAME] ?? "__DEFAULT_PARTITION__";
  }

  get partitionLegacyName(): boolean {
    return this.bool(Options.PARTITION_LEGACY_NAME, true);
  }

  /**
   * Java's `branch` (`CoreOptions.BRANCH`, `main` by default, blank is `main` as Java's
   * `normalizeBranch`): the branch a table handle reads and commits to, set by
   * `Table.switchToBranch` and `t$branch_<name>`; INVALID_ARGUMENT for a name that is no branch
   * directory of the table.
   */
  get branch(): string {
    const v = this.raw.branch;
    if (v === undefined || v.trim() === "" || v === MAIN_BRANCH) return MAIN_BRANCH;
    return checkBranchName(v, "option branch");
  }

  /** Checked on use too: a table created elsewhere may carry a prefix that would leave the bucket directory. */
  get dataFilePrefix(): string {
    return requireFileNamePrefix(Options.DATA_FILE_PREFIX, this.raw[Options.DATA_FILE_PREFIX] ?? "data-");
  }

  /**
   * Directories outside the table that may hold its files: `data-file.external-paths`
   * (comma-separated) and `global-index.external-path`.
   */
  get externalPaths(): string[] {
    const declared = [...(this.raw[Options.DATA_FILE_EXTERNAL_PATHS] ?? "").split(","), this.raw[Options.GLOBAL_INDEX_EXTERNAL_PATH] ?? ""];
    return declared.map((p) => p.trim()).filter((p) => p !== "");
  }

  /** `data-file.path-directory` (checked: a relative directory inside the table), or null. */
  get dataFilePathDirectory(): string | null {
    const key = "data-file.path-directory";
    return this.raw[key] === undefined ? null : requireRelativeDirectory(key, this.raw[key]);
  }

  /** `index-file-in-data-file-dir`: table-index files live in their bucket directory. */
  get indexFileInDataFileDir(): boolean {
    return this.bool("index-file-in-data-file-dir", false);
  }

  get commitMaxRetries(): number {
    return this.int(Options.COMMIT_MAX_RETRIES, 10);
  }

  get commitMinRetryWait(): number {
    return this.duration(Options.COMMIT_MIN_RETRY_WAIT, "10 ms");
  }

  get commitMaxRetryWait(): number {
    return this.duration(Options.COMMIT_MAX_RETRY_WAIT, "10 s");
  }

  get readBatchSize(): number {
    return this.int(Options.READ_BATCH_SIZE, 1024);
  }

  /**
   * `read.chunk-cache.max-memory` (paimon-rt only, default "64 mb", "0" turns it off): memory for
   * decoded column chunks of data files kept by the table's primary-key key lookups and real-time
   * union reads, so repeated queries over the same committed files do not decode them again
   * (a chunk is kept from its second read on). Per table object and process.
   */
  get readChunkCacheMaxMemory(): number {
    return this.memory(Options.READ_CHUNK_CACHE_MAX_MEMORY, "64 mb");
  }

  /** Whether reads skip data files by their file indexes (`file-index.*`). */
  get fileIndexReadEnabled(): boolean {
    return this.bool(Options.FILE_INDEX_READ_ENABLED, true);
  }

  get splitTargetSize(): number {
    return this.memory(Options.SPLIT_TARGET_SIZE, "128 mb");
  }

  get splitOpenFileCost(): number {
    return this.memory(Options.SPLIT_OPEN_FILE_COST, "4 mb");
  }

  get dynamicPartitionOverwrite(): boolean {
    return this.bool(Options.DYNAMIC_PARTITION_OVERWRITE, true);
  }

  get snapshotNumRetainedMin(): number {
    return this.int(Options.SNAPSHOT_NUM_RETAINED_MIN, 10);
  }

  get snapshotNumRetainedMax(): number {
    return this.int(Options.SNAPSHOT_NUM_RETAINED_MAX, 2147483647);
  }

  get snapshotTimeRetained(): number {
    return this.duration(Options.SNAPSHOT_TIME_RETAINED, "1 h");
  }

  /** How many snapshots one expiry removes at most (Java default 50). */
  get snapshotExpireLimit(): number {
    return this.int(Options.SNAPSHOT_EXPIRE_LIMIT, 50);
  }

  /** Consumers idle for longer than this (ms) are dropped before snapshots expire; null: kept forever (Java's default). */
  get consumerExpirationTime(): number | null {
    return this.raw[Options.CONSUMER_EXPIRATION_TIME] === undefined ? null : this.duration(Options.CONSUMER_EXPIRATION_TIME, "0 ms");
  }

  /** `consumer.changelog-only`: consumers protect only changelog files, not snapshots. */
  get consumerChangelogOnly(): boolean {
    return this.bool(Options.CONSUMER_CHANGELOG_ONLY, false);
  }
}
