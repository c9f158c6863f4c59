// Checks of option values that Java reads as integers or turns into file names, run when a
// table is created or altered (and, for file names, again when the option is used): a bad
// value is refused with INVALID_ARGUMENT naming the option instead of surfacing later as a
// wrong number or a file written outside the table.
import { PaimonError } from "../error.js";
import { fileNameProblem, fileNamePrefixProblem } from "../spec/file-names.js";

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Java `Integer.parseInt`: an optional sign and decimal digits, nothing else, within int32; null otherwise. */
export function parseJavaInt(text: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(text)) return null;
  const n = Number(text);
  if (n < INT32_MIN || n > INT32_MAX) return null;
  return n === 0 ? 0 : n; // "-0" is 0
}

/** INVALID_ARGUMENT naming `key` unless `text` parses as a Java int. */
export function requireIntOption(key: string, text: string): number {
  const n = parseJavaInt(text);
  if (n === null) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: '${text}' is not an integer (-2147483648..2147483647)`);
  return n;
}

/** The integer-typed options of Java's `CoreOptions` (1.4.2, `intType()`): Java parses them with `Integer.parseInt`. */
export const INT_OPTIONS: ReadonlySet<string> = new Set([
  "bucket",
  "file.compression.zstd-level",
  "variant.shredding.maxSchemaWidth",
  "variant.shredding.maxSchemaDepth",
  "variant.shredding.maxInferBufferRow",
  "variant.shredding.adaptive.maxInferBufferRow",
  "manifest.merge-min-count",
  "snapshot.num-retained.min",
  "snapshot.num-retained.max",
  "changelog.num-retained.min",
  "changelog.num-retained.max",
  "snapshot.expire.limit",
  "scan.max-splits-per-task",
  "scan.bucket",
  "sort-spill-threshold",
  "spill-compression.zstd-level",
  "write-max-writers-to-spill",
  "local-sort.max-num-file-handles",
  "num-sorted-run.compaction-trigger",
  "num-sorted-run.stop-trigger",
  "num-levels",
  "commit.max-retries",
  "compaction.max-size-amplification-percent",
  "compaction.size-ratio",
  "compaction.offpeak.start.hour",
  "compaction.offpeak.end.hour",
  "compaction.offpeak-ratio",
  "compaction.min.file-num",
  "compaction.file-num-limit",
  "scan.manifest.parallelism",
  "format-table.scan.list-parallelism",
  "partition.expiration-max-num",
  "partition.expiration-batch-size",
  "lookup.remote-file.level-threshold",
  "read.batch-size",
  "write.batch-size",
  "full-compaction.delta-commits",
  "dynamic-bucket.initial-buckets",
  "dynamic-bucket.max-buckets",
  "dynamic-bucket.assigner-parallelism",
  "metadata.stats-keep-first-n-columns",
  "tag.num-retained-max",
  "parquet.enable.dictionary",
  "cross-partition-upsert.bootstrap-parallelism",
  "zorder.var-length-contribution",
  "sort-compaction.local-sample.magnification",
  "lookup-compact.max-interval",
  "file-operation.thread-num",
  "clustering.history-partition.limit",
  "lookup.merge-records-threshold",
  "postpone.batch-write-fixed-bucket.max-parallelism",
  "postpone.batch-write-fixed-bucket.rescale-load-factor",
  "postpone.default-bucket-num",
  "global-index.build.max-shard",
  "global-index.build.max-parallelism",
  "global-index.thread-num",
  "vector-search.lateral-join.batch-size",
  // An older Java name paimon-rt's append compaction still reads.
  "compaction.max.file-num",
]);

/** Options whose value starts every data / changelog file name the writers generate. */
export const FILE_NAME_PREFIX_OPTIONS: readonly string[] = ["data-file.prefix", "changelog-file.prefix"];

/** Bytes a writer appends to a prefix: `<uuid>-<counter>[.<compression>].<format>` (36 + 1 + 10 + 17). */
const GENERATED_FILE_NAME_BYTES = 64;

/** INVALID_ARGUMENT naming `key` unless `prefix` can start a file name in the bucket directory. */
export function requireFileNamePrefix(key: string, prefix: string): string {
  const problem = fileNamePrefixProblem(prefix, GENERATED_FILE_NAME_BYTES);
  if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: ${JSON.stringify(prefix)} ${problem}; it must be part of a file name`);
  return prefix;
}

/**
 * `data-file.path-directory` (Java: the directory under the table that holds the partition and
 * bucket directories): a relative path of plain segments, so it cannot lead out of the table
 * directory. Returned as Java's `Path` normalizes it (no empty segments: `data/` is `data`).
 */
export function requireRelativeDirectory(key: string, dir: string): string {
  const segments = dir.split("/").filter((s) => s !== "");
  // A colon before the first slash is a URI scheme to Java's Path (`s3:x`, `c:x`).
  const bad = segments.length === 0 || dir.includes("\\") || dir.includes("\u0000") || dir.startsWith("/") || segments[0].includes(":") || segments.some((s) => s === "." || s === "..");
  if (bad) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: ${JSON.stringify(dir)} must be a relative directory without '.' or '..' segments`);
  return segments.join("/");
}

/**
 * Checks the option values of a table being created or altered: integer options parse as
 * Java ints, file-name prefixes and the data directory stay inside the table.
 */
export function validateOptionValues(options: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(options)) {
    if (INT_OPTIONS.has(key)) requireIntOption(key, value);
    if (FILE_NAME_PREFIX_OPTIONS.includes(key)) requireFileNamePrefix(key, value);
    if (key === "data-file.path-directory") requireRelativeDirectory(key, value);
  }
}

/** The first of `keys` set in `o` to anything but false. */
/** A boolean option as Java's `Boolean.parseBoolean` reads it: "true" (any case) is true, anything else false. */
export const isTrueOption = (v: string | undefined): boolean => v !== undefined && v.trim().toLowerCase() === "true";

export const firstOn = (o: Readonly<Record<string, string>>, keys: readonly string[]) => keys.find((k) => o[k] !== undefined && o[k].trim().toLowerCase() !== "false");

/**
 * Refuses (UNSUPPORTED, naming the option) a table whose Java batch read differs from a plain
 * read of its files: chain tables. (Data-evolution tables are planned by
 * src/scan/data-evolution-scan.ts and read by src/read/data-evolution.ts; stream and incremental
 * scans refuse their deltas' column updates, incremental-scan.ts.)
 */
export function checkReadOptions(o: Readonly<Record<string, string>>, table: string): void {
  const key = firstOn(o, ["chain-table.enabled"]);
  if (key) throw new PaimonError("UNSUPPORTED", `table ${table}: ${key}=${o[key]} is not supported`);
}

/** Java's `DEFAULT_MAIN_BRANCH`. */
export const MAIN_BRANCH = "main";

/**
 * Why `name` cannot name a branch to create, or null, as Java's `BranchManager.validateBranch`
 * (not `main`, not blank, not only digits) plus what keeps `branch/branch-<name>` one directory
 * of the table (one plain file name: no `/`, `\`, NUL, control characters, not `.`/`..`) and
 * addressable as `t$branch_<name>` (no `$`).
 */
export function branchNameProblem(name: unknown): string | null {
  if (typeof name !== "string") return "is not a string";
  if (name === MAIN_BRANCH) return `is the default branch '${MAIN_BRANCH}'`;
  if (name.trim() === "") return "is blank";
  if (/^\d+$/.test(name)) return "is a pure numeric string";
  if (name.includes("$")) return "contains '$' (Paimon's separator of branches and system tables)";
  if (/[\u0000-\u001f]/.test(name)) return "contains a control character";
  return fileNameProblem(`branch-${name}`);
}

/** INVALID_ARGUMENT naming `what` unless `name` may name a branch ({@link branchNameProblem}). */
export function checkBranchName(name: unknown, what: string): string {
  const problem = branchNameProblem(name);
  if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `${what}: branch name ${JSON.stringify(name)} ${problem}`);
  return name as string;
}
