// Table.analyze(): what Flink's / Spark's ANALYZE TABLE ... COMPUTE STATISTICS [FOR ALL COLUMNS]
// commits (Java `Statistics`, `StatsFile`, `FileStoreCommit.commitStatistics`): a statistics file
// of the latest snapshot and an ANALYZE snapshot naming it. Computed exactly in one merged read
// (Spark estimates distinct counts with HyperLogLog++; here they are exact).
import { PaimonError } from "../error.js";
import { joinPath, randomId } from "../fs/file-io.js";
import { internalValue } from "../arrow/row-values.js";
import { formatTimestamp, javaDoubleString } from "../format/type-casts.js";
import { decimalToString } from "../spec/binary-row.js";
import { utf8Length } from "../spec/file-names.js";
import { BATCH_COMMIT_IDENTIFIER } from "../spec/snapshot.js";
import { type ColStats, STATISTICS_DIR, STATISTICS_PREFIX, statisticsToJson } from "../spec/statistics.js";
import type { DataField, DataType } from "../spec/types.js";
import type { BatchReader } from "../read/batch-reader.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { FileStoreCommit } from "./file-store-commit.js";
import { icebergRawFiles } from "./iceberg-compat.js";

/** Options of {@link analyzeTable}. */
export interface AnalyzeOptions {
  commitUser: string;
  /** Columns whose statistics are computed: every scalar column by default (Spark `FOR ALL COLUMNS`); `[]`: the table-level counts only. */
  columns?: readonly string[];
}

/** Types with a column min / max (Spark `PaimonStatsUtils.hasMinMax`; strings and binaries have lengths instead). */
const MIN_MAX = new Set(["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"]);
/** Types with an average / maximum length in bytes. */
const LENGTHS = new Set(["CHAR", "VARCHAR", "BINARY", "VARBINARY"]);

/** Per-column accumulation of one analyze. */
interface ColumnAcc {
  readonly field: DataField;
  readonly distinct: Set<unknown>;
  nulls: bigint;
  min: unknown;
  max: unknown;
  lengthSum: bigint;
  maxLen: number;
}

/** A distinct-set key and an order of an internal value (null: no order, lengths only). */
function keyOf(v: unknown, type: DataType): unknown {
  switch (type.kind) {
    case "VARBINARY":
    case "BINARY":
      return Array.from(v as Uint8Array, (b) => String.fromCharCode(b)).join("");
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const t = v as { millis: bigint; nanoOfMillisecond: number };
      return t.millis * 1_000_000n + BigInt(t.nanoOfMillisecond);
    }
    default:
      return v; // numbers, bigints (BIGINT, DECIMAL unscaled), booleans, strings
  }
}

/** Java's `Serializer.serializeToString` of the column type for a min / max. */
function serializeToString(v: unknown, type: DataType): string {
  switch (type.kind) {
    case "FLOAT":
    case "DOUBLE":
      return javaDoubleString(v as number, type.kind === "FLOAT");
    case "DECIMAL":
      return decimalToString(v as bigint, (type as { scale: number }).scale);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const t = v as { millis: bigint; nanoOfMillisecond: number };
      return formatTimestamp({ millis: t.millis, nanoOfMilli: t.nanoOfMillisecond }, (type as { precision: number }).precision);
    }
    default:
      return String(v); // integers (DATE: epoch day, TIME: millis of day), booleans
  }
}

/** Whether a < b for keys of one type (NaN is never a min / max, as Spark's). */
function less(a: unknown, b: unknown): boolean {
  if (typeof a === "boolean") return !a && (b as boolean);
  return (a as number) < (b as number);
}

/** The merged rows of snapshot `snapshotId`, projected (the table's `atSnapshot(id)` read). */
export type SnapshotReader = (snapshotId: number, projection: string[]) => Promise<BatchReader>;

/**
 * Computes the statistics of the latest snapshot of `table` and commits them (an ANALYZE
 * snapshot). Returns its id, or null when the table has no snapshot (nothing is committed).
 */
export async function analyzeTable(table: FileStoreTable, options: AnalyzeOptions, readSnapshot: SnapshotReader): Promise<number | null> {
  const snapshot = await table.latestSnapshot();
  if (snapshot === null) return null;
  const fields = table.schema.fields;
  let analyzed: DataField[];
  if (options.columns === undefined) analyzed = fields.filter((f) => MIN_MAX.has(f.type.kind) || LENGTHS.has(f.type.kind));
  else {
    analyzed = options.columns.map((c) => {
      const f = fields.find((x) => x.name === c);
      if (f === undefined) throw new PaimonError("INVALID_ARGUMENT", `analyze ${table.identifier}: column ${JSON.stringify(c)} not found (columns: ${fields.map((x) => x.name).join(", ")})`);
      if (!MIN_MAX.has(f.type.kind) && !LENGTHS.has(f.type.kind)) throw new PaimonError("UNSUPPORTED", `analyze ${table.identifier}: column ${c} of type ${f.type.kind} has no column statistics (as Spark: analyzing complex types is not supported)`);
      return f;
    });
  }
  const accs: ColumnAcc[] = analyzed.map((field) => ({ field, distinct: new Set(), nulls: 0n, min: undefined, max: undefined, lengthSum: 0n, maxLen: 0 }));
  // the merged rows of that snapshot (a key column is read when no column is analyzed)
  const projection = analyzed.length > 0 ? analyzed.map((f) => f.name) : [(table.schema.primaryKeys[0] ?? fields[0].name)];
  const reader = await readSnapshot(snapshot.id, projection);
  let merged = 0n;
  try {
    for await (const batch of reader) {
      merged += BigInt(batch.numRows);
      for (const [c, acc] of accs.entries()) {
        const data = batch.data.children[c];
        const type = acc.field.type;
        const ordered = MIN_MAX.has(type.kind);
        for (let r = 0; r < batch.numRows; r++) {
          const v = internalValue(data, r, type);
          if (v === null) {
            acc.nulls++;
            continue;
          }
          const k = keyOf(v, type);
          acc.distinct.add(k);
          if (ordered) {
            if (typeof k === "number" && Number.isNaN(k)) continue;
            if (acc.min === undefined || less(k, keyOf(acc.min, type))) acc.min = v;
            if (acc.max === undefined || less(keyOf(acc.max, type), k)) acc.max = v;
          } else {
            const len = typeof v === "string" ? utf8Length(v) : (v as Uint8Array).length;
            acc.lengthSum += BigInt(len);
            if (len > acc.maxLen) acc.maxLen = len;
          }
        }
      }
    }
  } finally {
    await reader.close();
  }
  const colStats = new Map<string, ColStats>();
  for (const acc of accs) {
    const type = acc.field.type;
    const values = merged - acc.nulls;
    const lengths = LENGTHS.has(type.kind);
    colStats.set(acc.field.name, {
      colId: acc.field.id,
      distinctCount: BigInt(acc.distinct.size),
      min: acc.min === undefined ? null : serializeToString(acc.min, type),
      max: acc.max === undefined ? null : serializeToString(acc.max, type),
      nullCount: acc.nulls,
      avgLen: lengths ? (values > 0n ? acc.lengthSum / values : 0n) : null,
      maxLen: lengths ? BigInt(acc.maxLen) : null,
    });
  }
  // the live files' bytes scaled to the merged share of the records (Spark: totalSize * merged / total)
  let totalSize = 0n;
  for (const e of await table.manifestStore.liveEntries(snapshot)) totalSize += e.file.fileSize;
  const total = snapshot.totalRecordCount;
  const mergedRecordSize = total > 0n ? (totalSize * merged) / total : 0n;
  const name = `${STATISTICS_PREFIX}${randomId()}-0`;
  // schemaId: the schema the columns were read and named with (the latest; Spark takes the
  // snapshot's, which Java cannot read back when a column was added since)
  const text = statisticsToJson({ snapshotId: BigInt(snapshot.id), schemaId: BigInt(table.schema.id), mergedRecordCount: merged, mergedRecordSize, colStats });
  const path = joinPath(table.paths.root, STATISTICS_DIR, name);
  await table.fileIO.writeFile(path, text);
  try {
    return await new FileStoreCommit(table.fileIO, table.location, table.schema, options.commitUser, icebergRawFiles(table)).commitStatistics(name, BATCH_COMMIT_IDENTIFIER);
  } catch (e) {
    await table.fileIO.delete(path).catch(() => false);
    throw e;
  }
}
