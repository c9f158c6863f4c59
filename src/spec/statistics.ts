// The table statistics file an ANALYZE commit writes (Java `stats/Statistics`, `ColStats`,
// `StatsFile`): `statistics/stat-<uuid>-0`, named by the snapshot's `statistics` field and
// inherited by later commits while the schema stays. Jackson pretty JSON; `min` / `max` as the
// column type's `Serializer.serializeToString` text, the other numbers as JSON integers.
import { PaimonError } from "../error.js";
import { jsonBigInt, jsonInt, parseJson, toJacksonJson, type JsonValue } from "./json.js";

/** Java `ColStats`: per-column statistics, every part but `colId` optional. */
export interface ColStats {
  colId: number;
  distinctCount: bigint | null;
  /** The minimum as Java's `serializeToString` text of the column type. */
  min: string | null;
  max: string | null;
  nullCount: bigint | null;
  avgLen: bigint | null;
  maxLen: bigint | null;
}

/** Java `Statistics`: the snapshot and schema it was collected from, merged record count and size, column stats by name (file order). */
export interface Statistics {
  snapshotId: bigint;
  schemaId: bigint;
  mergedRecordCount: bigint | null;
  mergedRecordSize: bigint | null;
  /** Null when the file has none (Java then prints `null`). */
  colStats: Map<string, ColStats> | null;
}

/** The directory of statistics files under a table root, and the prefix of their names (Java `FileStorePathFactory.statsFileFactory`). */
export const STATISTICS_DIR = "statistics";
export const STATISTICS_PREFIX = "stat-";

function colStatsJson(c: ColStats): JsonValue {
  // Jackson: creator properties in order, nulls left out (@JsonInclude NON_NULL)
  return {
    colId: c.colId,
    distinctCount: c.distinctCount ?? undefined,
    min: c.min ?? undefined,
    max: c.max ?? undefined,
    nullCount: c.nullCount ?? undefined,
    avgLen: c.avgLen ?? undefined,
    maxLen: c.maxLen ?? undefined,
  };
}

function colStatsMapJson(colStats: ReadonlyMap<string, ColStats> | null): JsonValue {
  return colStats === null ? null : Object.fromEntries([...colStats].map(([name, c]) => [name, colStatsJson(c)]));
}

/** Java `JsonSerdeUtil.toJson(statistics.colStats())`: the `colstat` column of `$statistics`. */
export function colStatsToJson(colStats: ReadonlyMap<string, ColStats> | null): string {
  return toJacksonJson(colStatsMapJson(colStats));
}

/** Java `Statistics.toJson()`: the statistics file's text. */
export function statisticsToJson(s: Statistics): string {
  return toJacksonJson({
    snapshotId: s.snapshotId,
    schemaId: s.schemaId,
    mergedRecordCount: s.mergedRecordCount ?? undefined,
    mergedRecordSize: s.mergedRecordSize ?? undefined,
    colStats: colStatsMapJson(s.colStats),
  });
}

/** Parses a statistics file (unknown properties ignored, as Jackson's `ignoreUnknown`); CORRUPT_FILE naming `what` otherwise. */
export function parseStatistics(text: string, what: string): Statistics {
  const o = parseJson(text, what);
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw new PaimonError("CORRUPT_FILE", `${what} is not a JSON object`);
  const field = (k: string) => `${what}: ${k}`;
  const snapshotId = jsonBigInt(o.snapshotId, field("snapshotId"));
  const schemaId = jsonBigInt(o.schemaId, field("schemaId"));
  if (snapshotId === null || schemaId === null) throw new PaimonError("CORRUPT_FILE", `${what} has no snapshotId / schemaId`);
  let colStats: Map<string, ColStats> | null = null;
  const cs = o.colStats;
  if (cs !== null && cs !== undefined) {
    if (typeof cs !== "object" || Array.isArray(cs)) throw new PaimonError("CORRUPT_FILE", `${field("colStats")} is not a JSON object`);
    colStats = new Map();
    for (const [name, v] of Object.entries(cs)) {
      if (v === null || v === undefined || typeof v !== "object" || Array.isArray(v)) throw new PaimonError("CORRUPT_FILE", `${field(`colStats.${name}`)} is not a JSON object`);
      const at = (k: string) => field(`colStats.${name}.${k}`);
      const text = (k: string): string | null => {
        const x = v[k];
        if (x === null || x === undefined) return null;
        if (typeof x !== "string") throw new PaimonError("CORRUPT_FILE", `${at(k)} is not a string`);
        return x;
      };
      colStats.set(name, {
        colId: jsonInt(v.colId, at("colId")) ?? 0, // (Jackson: a missing int is 0)
        distinctCount: jsonBigInt(v.distinctCount, at("distinctCount")),
        min: text("min"),
        max: text("max"),
        nullCount: jsonBigInt(v.nullCount, at("nullCount")),
        avgLen: jsonBigInt(v.avgLen, at("avgLen")),
        maxLen: jsonBigInt(v.maxLen, at("maxLen")),
      });
    }
  }
  return { snapshotId, schemaId, mergedRecordCount: jsonBigInt(o.mergedRecordCount, field("mergedRecordCount")), mergedRecordSize: jsonBigInt(o.mergedRecordSize, field("mergedRecordSize")), colStats };
}
