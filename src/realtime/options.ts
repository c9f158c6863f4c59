// Real-time table options (seed "Configuration") with their defaults and validation.
import { PaimonError } from "../error.js";
import { checkDeduplicateTable } from "../table/dedup-check.js";
import type { FileStoreTable } from "../table/file-store-table.js";

export const RealtimeOptionKeys = {
  ENABLED: "realtime.enabled",
  SPILL_ENABLED: "realtime.spill-enabled",
  READ_VIEW_TTL: "realtime.read-view-ttl",
  STATS_MODE: "realtime.store.stats-mode",
  DEDUPLICATE_KEY_FIELDS: "realtime.deduplicate-key-fields",
  SPILL_COMPRESSION: "spill-compression",
  SPILL_COMPRESSION_ZSTD_LEVEL: "spill-compression.zstd-level",
  READ_BATCH_SIZE: "read.batch-size",
} as const;

export type RealtimeStatsMode = "none" | "full";
export type RealtimeStoreMode = "APPEND_ONLY" | "PRIMARY_KEY" | "DEDUPLICATE";

export interface RealtimeOptions {
  enabled: boolean;
  spillEnabled: boolean;
  readViewTtlMs: number;
  statsMode: RealtimeStatsMode;
  /** "zstd" or "none". */
  spillCompression: "zstd" | "none";
  spillZstdLevel: number;
  readBatchSize: number;
}

/** Parses and validates the real-time options of a table (INVALID_ARGUMENT on bad values). */
export function realtimeOptions(table: FileStoreTable): RealtimeOptions {
  const o = table.coreOptions;
  const ttl = o.duration(RealtimeOptionKeys.READ_VIEW_TTL, "5 min");
  if (!(ttl > 0)) throw new PaimonError("INVALID_ARGUMENT", `option ${RealtimeOptionKeys.READ_VIEW_TTL} of ${table.identifier} must be positive, got '${o.get(RealtimeOptionKeys.READ_VIEW_TTL)}'`);
  const stats = (o.get(RealtimeOptionKeys.STATS_MODE) ?? "none").trim().toLowerCase();
  if (stats !== "none" && stats !== "full") throw new PaimonError("INVALID_ARGUMENT", `option ${RealtimeOptionKeys.STATS_MODE} of ${table.identifier} must be none or full, got '${stats}'`);
  const compression = (o.get(RealtimeOptionKeys.SPILL_COMPRESSION) ?? "zstd").trim().toLowerCase();
  let spillCompression: "zstd" | "none";
  if (compression === "zstd") spillCompression = "zstd";
  else if (compression === "none" || compression === "uncompressed") spillCompression = "none";
  else throw new PaimonError("UNSUPPORTED", `option ${RealtimeOptionKeys.SPILL_COMPRESSION} of ${table.identifier}: '${compression}' is not supported (zstd, none)`);
  const level = o.int(RealtimeOptionKeys.SPILL_COMPRESSION_ZSTD_LEVEL, 1);
  if (level < 1 || level > 22) throw new PaimonError("INVALID_ARGUMENT", `option ${RealtimeOptionKeys.SPILL_COMPRESSION_ZSTD_LEVEL} of ${table.identifier} must be in 1..22, got ${level}`);
  const batchSize = o.readBatchSize;
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new PaimonError("INVALID_ARGUMENT", `option read.batch-size of ${table.identifier} must be positive, got ${batchSize}`);
  return {
    enabled: o.bool(RealtimeOptionKeys.ENABLED, false),
    spillEnabled: o.bool(RealtimeOptionKeys.SPILL_ENABLED, false),
    readViewTtlMs: ttl,
    statsMode: stats,
    spillCompression,
    spillZstdLevel: level,
    readBatchSize: batchSize,
  };
}

/** REALTIME_NOT_ENABLED unless `realtime.enabled=true`. */
export function requireRealtimeEnabled(table: FileStoreTable, what: string): RealtimeOptions {
  const opts = realtimeOptions(table);
  if (!opts.enabled) throw new PaimonError("REALTIME_NOT_ENABLED", `${what} on table ${table.identifier} requires realtime.enabled=true`);
  return opts;
}

/**
 * The real-time mode a table selects (seed "Modes and Capabilities"): APPEND_ONLY, PRIMARY_KEY
 * (merge-on-read, or deletion-vector mode with `deletion-vectors.enabled`) and DEDUPLICATE
 * (an append table with `realtime.deduplicate-key-fields`).
 */
export function realtimeModeOf(table: FileStoreTable): RealtimeStoreMode {
  const schema = table.schema;
  if (schema.primaryKeys.length > 0) return "PRIMARY_KEY";
  if ((table.coreOptions.get(RealtimeOptionKeys.DEDUPLICATE_KEY_FIELDS) ?? "").trim() !== "") return "DEDUPLICATE";
  return "APPEND_ONLY";
}

/** Options that change how deletes or merges behave: real-time PK mode keeps Paimon's defaults (seed "Current Limits"). */
const PK_REFUSED_OPTIONS: ReadonlyArray<[string, string]> = [
  ["sequence.field", "a custom sequence.field (the framework's sequence number resolves versions)"],
  ["sequence.field.sort-order", "a custom sequence order (ascending sequence order only)"],
  ["ignore-delete", "ignore-delete (default delete handling only)"],
  ["deduplicate.ignore-delete", "deduplicate.ignore-delete (default delete handling only)"],
  ["ignore-update-before", "ignore-update-before (default delete handling only)"],
  ["partial-update.remove-record-on-delete", "partial-update delete settings"],
  ["partial-update.remove-record-on-sequence-group", "partial-update delete settings"],
  ["changelog-producer.row-deduplicate", "changelog-producer.row-deduplicate (changelog-producer=none only)"],
  ["global-index.enabled", "primary-key global indexes"],
];

/** UNSUPPORTED naming the option unless the PK table fits the limits of seed 000 ("Current Limits"). */
function checkRealtimePrimaryKeyTable(table: FileStoreTable, what: string): void {
  const o = table.coreOptions;
  const refuse = (option: string, detail: string) => new PaimonError("UNSUPPORTED", `${what}: real-time primary-key mode does not support ${detail}; option ${option} of table ${table.identifier}`);
  const engine = (o.get("merge-engine") ?? "deduplicate").trim().toLowerCase();
  if (engine !== "deduplicate") throw refuse("merge-engine", `merge-engine=${engine} (deduplicate only)`);
  const changelog = (o.get("changelog-producer") ?? "none").trim().toLowerCase();
  if (changelog !== "none") throw refuse("changelog-producer", `changelog-producer=${changelog} (none only)`);
  for (const [key, detail] of PK_REFUSED_OPTIONS) {
    const v = o.get(key);
    if (v === undefined || v.trim() === "") continue;
    // a boolean option set to its default (false) changes nothing
    if (v.trim().toLowerCase() === "false" && key !== "sequence.field" && key !== "sequence.field.sort-order") continue;
    if (key === "sequence.field.sort-order" && v.trim().toLowerCase() === "ascending") continue;
    throw refuse(key, detail);
  }
  if (o.bool("force-lookup", false) && !o.bool("deletion-vectors.enabled", false)) throw refuse("force-lookup", "lookup without deletion vectors");
  for (const name of table.schema.primaryKeys) {
    const f = table.schema.fields.find((x) => x.name === name)!;
    if (f.type.kind === "FLOAT" || f.type.kind === "DOUBLE") throw refuse("primary-key", `the floating-point key column ${name} (${f.type.kind})`);
  }
}

/**
 * Tables that passed validateRealtimeTable, with its result: a table object's schema and options
 * never change, and every real-time write, plan and read validates again (several times a query).
 */
const validated = new WeakMap<FileStoreTable, { readonly mode: RealtimeStoreMode; readonly options: Readonly<RealtimeOptions> }>();

/** Checks everything a real-time write/scan/read needs from the table; returns its mode and options. */
export function validateRealtimeTable(table: FileStoreTable, what: string): { readonly mode: RealtimeStoreMode; readonly options: Readonly<RealtimeOptions> } {
  const known = validated.get(table);
  if (known !== undefined) return known;
  const options = requireRealtimeEnabled(table, what);
  const mode = realtimeModeOf(table);
  // The deduplicate table's setup (key, offset column, index, DVs, bucket key) is checked as the schema is loaded; again here for tables built around the catalog.
  if (mode === "DEDUPLICATE") checkDeduplicateTable(table.schema, table.identifier);
  const bucket = table.coreOptions.bucket;
  if (!(bucket > 0)) throw new PaimonError("UNSUPPORTED", `${what}: real-time mode requires fixed bucket mode (bucket > 0); table ${table.identifier} has bucket = ${bucket}`);
  if (table.coreOptions.bool("data-evolution.enabled", false)) throw new PaimonError("UNSUPPORTED", `${what}: real-time mode does not support data-evolution.enabled (table ${table.identifier})`);
  if (mode === "APPEND_ONLY" && table.coreOptions.bool("deletion-vectors.enabled", false)) throw new PaimonError("UNSUPPORTED", `${what}: real-time append mode does not support deletion vectors (table ${table.identifier})`);
  if (mode === "PRIMARY_KEY") checkRealtimePrimaryKeyTable(table, what);
  const result = Object.freeze({ mode, options: Object.freeze(options) });
  validated.set(table, result);
  return result;
}
