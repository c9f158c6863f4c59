// System tables (`db.t$snapshots`, `$files`, `$ro`, …), as Java Paimon 1.4.2's
// `org.apache.paimon.table.system.*` define them: the same columns (names, types, order) and
// values, read through the same `newScan().plan()` / `newRead().toArrow()` as a data table.
// Metadata tables are computed from the table's snapshots, schemas, tags, consumers and manifests
// in one split; `$ro` and `$audit_log` are data reads through the data table's own scan and read.
// Imported on demand (Catalog.getTable of a `$` name, Table.systemTable): query bundles keep it
// in a chunk of its own.
import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { readArrowSchema } from "../format/arrow-types.js";
import { takeRows } from "../arrow/take.js";
import { recordBatch, selectColumns } from "../arrow/record-batch.js";
import { bindPredicate, compareBytes, compareUtf8, type Predicate, referencedFields, splitAnd } from "../predicate/predicate.js";
import { concatData } from "../arrow/concat.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import { planProjection } from "../read/projection.js";
import { TableRead, type ReadOptions } from "../read/table-read.js";
import { DeletionVectorLoader, keptPositions } from "../read/kv-file-reader.js";
import { TableScan, type ScanOptions } from "../scan/table-scan.js";
import type { Plan, Split } from "../scan/split.js";
import type { BatchReader } from "../read/batch-reader.js";
import { crc32 } from "../spec/avro.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { localWallMillis } from "../spec/civil-time.js";
import type { ManifestEntry } from "../spec/manifest.js";
import { fieldToJson, fieldToString, parseDataType, typeToString, type DataField, type DataType } from "../spec/types.js";
import type { Snapshot } from "../spec/snapshot.js";
import { colStatsToJson } from "../spec/statistics.js";
import type { TableSchema } from "../spec/schema.js";
import { valueStatsOf } from "../predicate/stats.js";
import { joinPath, readTextFileIfExists } from "../fs/file-io.js";
import { javaOptionKeyOrder } from "../fileindex/java-order.js";
import { listConsumers } from "../table/consumers.js";
import { partitionValueString } from "../table/paths.js";
import { primaryKeyConfig } from "../table/primary-key.js";
import { otherBranchOf, planBranches } from "../read/branch-fallback.js";
import { withRowTrackingFields } from "../commit/row-tracking.js";
import { listTags } from "../table/tags.js";
import { Table } from "../table/table.js";

/** A column of a system table: name and Paimon type (as Java declares it). */
type Column = readonly [name: string, type: string];

/** Rows of a metadata table, one array of internal values per row, in column order. */
type Rows = unknown[][];

/** The metadata tables: their columns, and how their rows are computed from the data table. */
interface MetadataTable {
  readonly columns: readonly Column[];
  readonly primaryKeys: readonly string[];
  rows(t: Table, filter: Predicate | null): Promise<Rows>;
}

const STRING = "STRING";
const BIGINT = "BIGINT";
const TS3 = "TIMESTAMP(3)";
/** The leading columns of `$files` and `$file_key_ranges` (Java's FilesTable / FileKeyRangesTable). */
const FILE_COLUMNS: readonly Column[] = [
  ["partition", STRING],
  ["bucket", "INT NOT NULL"],
  ["file_path", "STRING NOT NULL"],
  ["file_format", "STRING NOT NULL"],
  ["schema_id", "BIGINT NOT NULL"],
  ["level", "INT NOT NULL"],
  ["record_count", "BIGINT NOT NULL"],
  ["file_size_in_bytes", "BIGINT NOT NULL"],
  ["min_key", STRING],
  ["max_key", STRING],
];

/** The snapshot a metadata table of `t` describes: its time travel's (`scan.*` options), else the latest. */
async function snapshotOf(t: Table): Promise<Snapshot | null> {
  if (t.pinnedSnapshotId !== null) return t.snapshot(t.pinnedSnapshotId); // a time-travel view (atSnapshot)
  const travel = await t.timeTravel; // (pending while a Table.copy's options are parsed)
  if (travel instanceof PaimonError) throw travel;
  if (travel === null || travel.kind === "incremental") return t.latestSnapshot(); // (incremental options choose changes, not a snapshot)
  const { resolveTimeTravel } = await import("../table/time-travel.js");
  return resolveTimeTravel(t.snapshotManager, t.identifier, travel, false);
}

/**
 * The live files of that snapshot (every level, as Java's `withLevelFilter(level -> true)`),
 * postpone buckets excluded as Java's table scans exclude them, unless `withPostpone` (Java's
 * `$buckets` reads the snapshot's bucket entries, the postpone bucket too).
 */
async function liveFiles(t: Table, keep: (e: ManifestEntry) => boolean = () => true, withPostpone = false): Promise<ManifestEntry[]> {
  const snapshot = await snapshotOf(t);
  if (snapshot === null) return [];
  const entries = await t.manifestStore.liveEntries(snapshot, undefined, (e) => (withPostpone || e.bucket !== -2) && keep(e));
  return entries.sort((a, b) => compareBytes(a.partition, b.partition) || a.bucket - b.bucket);
}

const BRANCH_FALLBACK_DEPS = { fieldToString, recordBatch };

/**
 * The other branch of a table with `scan.fallback-branch` / `scan.primary-branch` (its batch scans
 * read both), as the system tables Java builds on the table's fallback scan see it: `$partitions`
 * (`listPartitionEntries`) and `$files` / `$file_key_ranges` (a scan per partition). Null without
 * one; the snapshot-based tables (`$buckets`, `$statistics`, …) describe the table's own branch.
 */
async function otherBranch(t: Table): Promise<{ table: Table; ownFirst: boolean } | null> {
  const other = await otherBranchOf(t, BRANCH_FALLBACK_DEPS);
  return other === null ? null : { table: other.table as Table, ownFirst: other.ownFirst };
}

/** Java `CastExecutors.resolveToString(partitionType)` of a serialized partition row (a file's, a manifest's min/max): `{v1, v2}`. */
function partitionRowString(t: Table, partition: Uint8Array): string {
  const fields = t.partitionFields;
  const values = fromBinaryRow(partition.subarray(4), fields.map((f) => f.type));
  return `{${values.map((v, i) => partitionValueString(v, fields[i].type, false) ?? "null").join(", ")}}`;
}

/** Java `Object.toString()` of an internal value (`$files` statistics and keys); null as "null". */
function internalString(v: unknown, type: DataType): string {
  if (v === null || v === undefined) return "null";
  if (v instanceof Uint8Array) return `[${Array.from(v, (b) => (b << 24) >> 24).join(", ")}]`; // Arrays.toString of byte[] is not Java's (identity hash): the bytes
  if (type.kind === "FLOAT") return javaFloat32String(v as number);
  return partitionValueString(v, type, true) ?? "null";
}

/** Java `Float.toString`: the shortest decimal that reads back as the same float, in Java's layout. */
function javaFloat32String(v: number): string {
  if (!Number.isFinite(v) || v === 0) return partitionValueString(v, { kind: "DOUBLE", nullable: true }, true)!;
  let digits = "";
  for (let p = 1; p <= 9; p++) {
    digits = v.toPrecision(p);
    if (Math.fround(Number(digits)) === v) break;
  }
  return partitionValueString(Number(digits), { kind: "DOUBLE", nullable: true }, true)!;
}

/** A Java `TreeMap<String, ?>.toString()`: `{a=1, b=x}`, keys in String order. */
function treeMapString(entries: Array<[string, string]>): string {
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${k}=${v}`).join(", ")}}`;
}

/** Java `Duration.toString()` of a number of seconds (`tagTimeRetained`): `PT1H30M`, `PT0.5S`. */
function durationString(seconds: number): string {
  if (seconds === 0) return "PT0S";
  const hours = Math.trunc(seconds / 3600);
  const minutes = Math.trunc((seconds % 3600) / 60);
  const secs = Math.round((seconds % 60) * 1e9) / 1e9;
  let out = "PT";
  if (hours !== 0) out += `${hours}H`;
  if (minutes !== 0) out += `${minutes}M`;
  if (secs !== 0) out += `${secs}S`;
  return out;
}

/** Java `JsonSerdeUtil.toFlatJson` of a string list or map (Jackson, no spaces). */
const flatJson = (value: unknown): string => JSON.stringify(value);

/** Table options in the order Java iterates them: `SchemaSerializer` reads them into a `HashMap`. */
function javaOptionOrder(options: Readonly<Record<string, string>>): Array<[string, string]> {
  return javaOptionKeyOrder(Object.keys(options)).map((k) => [k, options[k]]);
}

/**
 * The ids `filter` keeps of an integer column pushed down as Java does (`$snapshots`, `$schemas`
 * by id): equality and range leaves of a conjunction bound the ids; null when it does not.
 */
function idRange(filter: Predicate | null, column: string): { min: number; max: number } | null {
  if (filter === null) return null;
  let min = -Infinity;
  let max = Infinity;
  for (const p of splitAnd(filter)) {
    if (p.kind !== "leaf" || p.field !== column || p.literals.length !== 1) continue;
    const v = Number(p.literals[0]);
    if (!Number.isFinite(v)) continue;
    if (p.op === "eq") [min, max] = [Math.max(min, v), Math.min(max, v)];
    else if (p.op === "gt") min = Math.max(min, Math.floor(v) + 1);
    else if (p.op === "ge") min = Math.max(min, Math.ceil(v));
    else if (p.op === "lt") max = Math.min(max, Math.ceil(v) - 1);
    else if (p.op === "le") max = Math.min(max, Math.floor(v));
  }
  return min === -Infinity && max === Infinity ? null : { min, max };
}

const METADATA_TABLES: Readonly<Record<string, MetadataTable>> = {
  snapshots: {
    columns: [
      ["snapshot_id", "BIGINT NOT NULL"],
      ["schema_id", "BIGINT NOT NULL"],
      ["commit_user", "STRING NOT NULL"],
      ["commit_identifier", "BIGINT NOT NULL"],
      ["commit_kind", "STRING NOT NULL"],
      ["commit_time", "TIMESTAMP(3) NOT NULL"],
      ["base_manifest_list", "STRING NOT NULL"],
      ["delta_manifest_list", "STRING NOT NULL"],
      ["changelog_manifest_list", STRING],
      ["total_record_count", BIGINT],
      ["delta_record_count", BIGINT],
      ["changelog_record_count", BIGINT],
      ["watermark", BIGINT],
      ["next_row_id", BIGINT],
    ],
    primaryKeys: ["snapshot_id"],
    async rows(t, filter) {
      const range = idRange(filter, "snapshot_id");
      const snapshots = range === null ? await t.listSnapshots() : await snapshotsIn(t, range);
      return snapshots.map((s) => [BigInt(s.id), BigInt(s.schemaId), s.commitUser, s.commitIdentifier, s.commitKind, localWallMillis(s.timeMillis), s.baseManifestList, s.deltaManifestList, s.changelogManifestList, s.totalRecordCount, s.deltaRecordCount, s.changelogRecordCount, s.watermark, s.nextRowId]);
    },
  },
  schemas: {
    columns: [
      ["schema_id", "BIGINT NOT NULL"],
      ["fields", "STRING NOT NULL"],
      ["partition_keys", "STRING NOT NULL"],
      ["primary_keys", "STRING NOT NULL"],
      ["options", "STRING NOT NULL"],
      ["comment", STRING],
      ["update_time", "TIMESTAMP(3) NOT NULL"],
    ],
    primaryKeys: ["schema_id"],
    async rows(t, filter) {
      const range = idRange(filter, "schema_id");
      const ids = (await t.schemaManager.listSchemaIds()).filter((id) => range === null || (id >= range.min && id <= range.max));
      const schemas = await Promise.all(ids.map((id) => t.schemaManager.schema(id)));
      return schemas.map((s) => [BigInt(s.id), flatJson(s.fields.map((f) => fieldToJson(f))), flatJson(s.partitionKeys), flatJson(s.primaryKeys), flatJson(Object.fromEntries(javaOptionOrder(s.options))), s.comment, localWallMillis(s.timeMillis)]);
    },
  },
  options: {
    columns: [
      ["key", "STRING NOT NULL"],
      ["value", "STRING NOT NULL"],
    ],
    primaryKeys: ["key"],
    async rows(t) {
      return javaOptionOrder(t.schema.options);
    },
  },
  tags: {
    columns: [
      ["tag_name", "STRING NOT NULL"],
      ["snapshot_id", "BIGINT NOT NULL"],
      ["schema_id", "BIGINT NOT NULL"],
      ["commit_time", "TIMESTAMP(3) NOT NULL"],
      ["record_count", BIGINT],
      ["create_time", TS3],
      ["time_retained", STRING],
    ],
    primaryKeys: ["tag_name"],
    async rows(t) {
      const { tagCreateTimeOf } = await import("../table/tag-auto.js");
      // Java lists tags by name (a TreeMap of the tag names)
      const tags = (await listTags(t.snapshotManager)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const rows: Rows = [];
      for (const tag of tags) {
        const text = await readTextFileIfExists(t.fileIO, tag.path);
        if (text === null) continue; // deleted meanwhile
        const extra = JSON.parse(text) as { tagCreateTime?: unknown; tagTimeRetained?: unknown };
        const created = tagCreateTimeOf(extra.tagCreateTime);
        const s = tag.snapshot;
        // commit_time: Java `DateTimeUtils.toLocalDateTime(millis)` is UTC (unlike $snapshots' local time)
        rows.push([tag.name, BigInt(s.id), BigInt(s.schemaId), s.timeMillis, s.totalRecordCount, created === null ? null : Math.floor(created), typeof extra.tagTimeRetained === "number" ? durationString(extra.tagTimeRetained) : null]);
      }
      return rows;
    },
  },
  consumers: {
    columns: [
      ["consumer_id", "STRING NOT NULL"],
      ["next_snapshot_id", "BIGINT NOT NULL"],
    ],
    primaryKeys: ["consumer_id"],
    async rows(t) {
      const rows: Rows = [];
      const consumers = (await listConsumers(t.fileIO, t.paths.metaRoot)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      for (const c of consumers) {
        const text = await readTextFileIfExists(t.fileIO, c.path);
        if (text === null) continue;
        const next = (JSON.parse(text) as { nextSnapshot?: unknown }).nextSnapshot;
        if (typeof next !== "number" || !Number.isSafeInteger(next)) throw new PaimonError("CORRUPT_FILE", `consumer file ${c.path} has no integer nextSnapshot`);
        rows.push([c.path.slice(c.path.lastIndexOf("/consumer-") + "/consumer-".length), BigInt(next)]);
      }
      return rows;
    },
  },
  manifests: {
    columns: [
      ["file_name", "STRING NOT NULL"],
      ["file_size", "BIGINT NOT NULL"],
      ["num_added_files", "BIGINT NOT NULL"],
      ["num_deleted_files", "BIGINT NOT NULL"],
      ["schema_id", "BIGINT NOT NULL"],
      ["min_partition_stats", STRING],
      ["max_partition_stats", STRING],
      ["min_row_id", BIGINT],
      ["max_row_id", BIGINT],
    ],
    primaryKeys: ["file_name"],
    async rows(t) {
      const snapshot = await snapshotOf(t);
      if (snapshot === null) return [];
      return (await t.manifestStore.dataManifests(snapshot)).map((m) => [m.fileName, m.fileSize, m.numAddedFiles, m.numDeletedFiles, BigInt(m.schemaId), partitionRowString(t, m.partitionStats.minValues), partitionRowString(t, m.partitionStats.maxValues), m.minRowId, m.maxRowId]);
    },
  },
  files: {
    columns: [
      ...FILE_COLUMNS,
      ["null_value_counts", "STRING NOT NULL"],
      ["min_value_stats", "STRING NOT NULL"],
      ["max_value_stats", "STRING NOT NULL"],
      ["min_sequence_number", "BIGINT NOT NULL"],
      ["max_sequence_number", "BIGINT NOT NULL"],
      ["creation_time", TS3],
      ["deleteRowCount", BIGINT],
      ["file_source", STRING],
      ["first_row_id", BIGINT],
      ["write_cols", "ARRAY<STRING>"],
    ],
    primaryKeys: ["file_path"],
    async rows(t, filter) {
      // Java pushes bucket and level equalities into the scan (FilesScan); here every leaf on them prunes
      const bucket = idRange(filter, "bucket");
      const level = idRange(filter, "level");
      const keep = (e: ManifestEntry) => (bucket === null || (e.bucket >= bucket.min && e.bucket <= bucket.max)) && (level === null || (e.file.level >= level.min && e.file.level <= level.max));
      let entries = await liveFiles(t, keep);
      // Java FilesScan: the table's own partitions, each planned by the fallback scan, which
      // takes a partition from the primary branch (`scan.primary-branch`) when that has it
      const other = await otherBranch(t);
      const fromOther = new Set<ManifestEntry>();
      if (other !== null && !other.ownFirst) {
        const otherFiles = await liveFiles(other.table);
        const ownPartitions = new Set((await liveFiles(t)).map((e) => e.partition.join(",")));
        const inOther = new Set(otherFiles.map((e) => e.partition.join(",")));
        for (const e of otherFiles) if (ownPartitions.has(e.partition.join(",")) && keep(e)) fromOther.add(e);
        entries = [...entries.filter((e) => !inOther.has(e.partition.join(","))), ...fromOther].sort((a, b) => compareBytes(a.partition, b.partition) || a.bucket - b.bucket);
      }
      const tableFields = t.schema.fields;
      // (the other branch's files under that branch's schemas: Java reads them under the table's
      // own schema of the same id, which misreads their keys when the branch's schema differs)
      const schemas = new Map<string, Promise<TableSchema>>();
      const schemaOf = (id: number, of: Table) => {
        const key = `${of === t ? "" : "other:"}${id}`;
        let s = schemas.get(key);
        if (s === undefined) schemas.set(key, (s = id === of.schema.id ? Promise.resolve(of.schema) : of.schemaManager.schema(id)));
        return s;
      };
      const rows: Rows = [];
      for (const e of entries) {
        const f = e.file;
        const fileSchema = await schemaOf(f.schemaId, fromOther.has(e) ? other!.table : t);
        // keys: the file schema's trimmed primary key (all columns of an append table, whose key is empty)
        const keyFields = fileSchema.primaryKeys.length > 0 ? trimmedKeyFields(fileSchema) : fileSchema.fields;
        const key = (row: Uint8Array): string | null => {
          if (row.length < 4 || new DataView(row.buffer, row.byteOffset).getInt32(0) <= 0) return null;
          const values = fromBinaryRow(row.subarray(4), keyFields.map((k) => k.type));
          return `[${values.map((v, i) => internalString(v, keyFields[i].type)).join(", ")}]`;
        };
        // value statistics of the file's schema, evolved to the table's fields by id (Java SimpleStatsEvolution)
        const stats = valueStatsOf(f, fileSchema.fields).columns;
        const byId = new Map(fileSchema.fields.map((ff) => [ff.id, ff.name]));
        const nulls: Array<[string, string]> = [];
        const mins: Array<[string, string]> = [];
        const maxs: Array<[string, string]> = [];
        for (const field of tableFields) {
          const name = byId.get(field.id);
          const s = name === undefined ? undefined : stats[name];
          const nullCount = name === undefined ? f.rowCount : (s?.nullCount ?? null);
          nulls.push([field.name, nullCount === null ? "null" : String(nullCount)]);
          mins.push([field.name, internalString(s?.min ?? null, field.type)]);
          maxs.push([field.name, internalString(s?.max ?? null, field.type)]);
        }
        const bucketPath = t.paths.bucketDirOf(e.partition, e.bucket);
        const dot = f.fileName.lastIndexOf(".");
        rows.push([
          partitionRowString(t, e.partition),
          e.bucket,
          t.paths.dataFile(bucketPath, f),
          dot < 0 ? "" : f.fileName.slice(dot + 1),
          BigInt(f.schemaId),
          f.level,
          f.rowCount,
          f.fileSize,
          key(f.minKey),
          key(f.maxKey),
          treeMapString(nulls),
          treeMapString(mins),
          treeMapString(maxs),
          f.minSequenceNumber,
          f.maxSequenceNumber,
          f.creationTime,
          f.deleteRowCount,
          f.fileSource === null ? null : f.fileSource === 0 ? "APPEND" : "COMPACT",
          f.firstRowId,
          f.writeCols,
        ]);
      }
      return rows;
    },
  },
  file_key_ranges: {
    // Java FileKeyRangesTable: $files' columns without the statistics, times and sources
    columns: [
      ...FILE_COLUMNS,
      ["first_row_id", BIGINT],
    ],
    primaryKeys: ["file_path"],
    async rows(t, filter) {
      return (await METADATA_TABLES.files.rows(t, filter)).map((r) => [...r.slice(0, 10), r[18]]);
    },
  },
  table_indexes: {
    columns: [
      ["partition", STRING],
      ["bucket", "INT NOT NULL"],
      ["index_type", "STRING NOT NULL"],
      ["file_name", "STRING NOT NULL"],
      ["file_size", "BIGINT NOT NULL"],
      ["row_count", "BIGINT NOT NULL"],
      ["dv_ranges", "ARRAY<ROW<f0 STRING NOT NULL, f1 INT NOT NULL, f2 INT NOT NULL, _CARDINALITY BIGINT>>"],
    ],
    primaryKeys: [],
    async rows(t) {
      // Java TableIndexesTable: the index manifest of the snapshot read (deletion vectors, hash
      // indexes), each deletion-vector file with the ranges of its data files
      const snapshot = await snapshotOf(t);
      return (await t.manifestStore.indexEntries(snapshot)).map((e) => {
        const f = e.indexFile;
        const ranges = f.dvRanges === null ? null : f.dvRanges.map((d) => ({ f0: d.dataFileName, f1: d.offset, f2: d.length, _CARDINALITY: d.cardinality }));
        return [partitionRowString(t, e.partition), e.bucket, f.indexType, f.fileName, f.fileSize, f.rowCount, ranges];
      });
    },
  },
  partitions: {
    columns: [
      ["partition", STRING],
      ["record_count", "BIGINT NOT NULL"],
      ["file_size_in_bytes", "BIGINT NOT NULL"],
      ["file_count", "BIGINT NOT NULL"],
      ["last_update_time", TS3],
      ["created_at", TS3],
      ["created_by", STRING],
      ["updated_by", STRING],
      ["options", STRING],
    ],
    primaryKeys: ["partition"],
    async rows(t) {
      const fields = t.partitionFields;
      const defaultName = t.coreOptions.get("partition.default-name") ?? "__DEFAULT_PARTITION__"; // Java CoreOptions.PARTITION_DEFAULT_NAME
      const nameOf = (e: ManifestEntry) => {
        const values = fromBinaryRow(e.partition.subarray(4), fields.map((f) => f.type));
        return fields.map((f, i) => `${f.name}=${partitionValueString(values[i], f.type, false) ?? defaultName}`).join("/");
      };
      let groups = aggregate(await liveFiles(t), nameOf);
      // Java's fallback scan (listPartitionEntries): the first branch's partitions, then the second's it lacks
      const other = await otherBranch(t);
      if (other !== null) {
        const otherGroups = aggregate(await liveFiles(other.table), nameOf);
        const [first, second] = other.ownFirst ? [groups, otherGroups] : [otherGroups, groups];
        groups = new Map(first);
        for (const [name, g] of second) if (!groups.has(name)) groups.set(name, g);
      }
      return [...groups].sort(([a], [b]) => compareUtf8(a, b)).map(([name, g]) => [name, g.records, g.bytes, g.files, g.lastCreation, null, null, null, null]);
    },
  },
  buckets: {
    columns: [
      ["partition", STRING],
      ["bucket", "INT NOT NULL"],
      ["record_count", "BIGINT NOT NULL"],
      ["file_size_in_bytes", "BIGINT NOT NULL"],
      ["file_count", "BIGINT NOT NULL"],
      ["last_update_time", "TIMESTAMP(3) NOT NULL"],
    ],
    primaryKeys: ["partition", "bucket"],
    async rows(t) {
      const rows: Rows = [];
      const groups = aggregate(await liveFiles(t, undefined, true), (e) => `${e.partition.join(",")}|${e.bucket}`);
      for (const g of groups.values()) rows.push([partitionRowString(t, g.first.partition), g.first.bucket, g.records, g.bytes, g.files, g.lastCreation ?? 0]);
      return rows.sort((a, b) => compareUtf8(a[0] as string, b[0] as string) || (a[1] as number) - (b[1] as number));
    },
  },
  branches: {
    columns: [
      ["branch_name", "STRING NOT NULL"],
      ["create_time", "TIMESTAMP(3) NOT NULL"],
    ],
    primaryKeys: ["branch_name"],
    async rows(t) {
      // Java FileSystemBranchManager.branches(): the directories `branch/branch-<name>`; the
      // creation time is the directory's modification time as a UTC wall clock
      // (DateTimeUtils.toLocalDateTime).
      const rows: Rows = [];
      for (const e of await t.fileIO.listStatus(joinPath(t.location, "branch"))) {
        if (!e.isDir || e.isSymlink || !e.name.startsWith("branch-") || e.name.length === "branch-".length) continue;
        rows.push([e.name.slice("branch-".length), e.modificationTime]);
      }
      return rows;
    },
  },
  statistics: {
    columns: [
      ["snapshot_id", "BIGINT NOT NULL"],
      ["schema_id", "BIGINT NOT NULL"],
      ["mergedRecordCount", BIGINT],
      ["mergedRecordSize", BIGINT],
      ["colstat", STRING],
    ],
    primaryKeys: ["snapshot_id"],
    async rows(t) {
      // Java StatisticTable: the statistics file of the snapshot read (an ANALYZE's, inherited
      // by later commits), one row; none without one
      const snapshot = await snapshotOf(t);
      if (snapshot === null || snapshot.statistics === null) return [];
      const { readStatistics } = await import("../table/statistics.js");
      const s = await readStatistics(t, snapshot.statistics);
      return [[s.snapshotId, s.schemaId, s.mergedRecordCount, s.mergedRecordSize, colStatsToJson(s.colStats)]];
    },
  },
  aggregation_fields: {
    columns: [
      ["field_name", "STRING NOT NULL"],
      ["field_type", "STRING NOT NULL"],
      ["function", "STRING NOT NULL"],
      ["function_options", "STRING NOT NULL"],
      ["comment", STRING],
    ],
    primaryKeys: ["field_name"],
    async rows(t) {
      // Java AggregationFieldsTable: per field, the values and the keys of the options
      // `fields.<field>.<…>` (every such option: aggregate function, its options, sequence groups),
      // each list as a Java List.toString
      const values = new Map<string, string[]>();
      const keys = new Map<string, string[]>();
      for (const [k, v] of javaOptionOrder(t.schema.options)) {
        const parts = k.split(".");
        if (parts.length <= 2 || parts[0] !== "fields") continue;
        (values.get(parts[1]) ?? values.set(parts[1], []).get(parts[1])!).push(v);
        (keys.get(parts[1]) ?? keys.set(parts[1], []).get(parts[1])!).push(k);
      }
      const list = (items: string[] | undefined) => `[${(items ?? []).join(", ")}]`;
      return t.schema.fields.map((f) => [f.name, typeToString(f.type), list(values.get(f.name)), list(keys.get(f.name)), f.description ?? null]);
    },
  },
};

/** Java `PartitionEntry` / `BucketEntry` merging of live files: sums and the newest creation time. */
function aggregate(entries: readonly ManifestEntry[], keyOf: (e: ManifestEntry) => string) {
  const groups = new Map<string, { first: ManifestEntry; records: bigint; bytes: bigint; files: bigint; lastCreation: number | null }>();
  for (const e of entries) {
    const k = keyOf(e);
    let g = groups.get(k);
    if (g === undefined) groups.set(k, (g = { first: e, records: 0n, bytes: 0n, files: 0n, lastCreation: null }));
    g.records += e.file.rowCount;
    g.bytes += e.file.fileSize;
    g.files += 1n;
    const c = e.file.creationTime;
    if (c !== null && (g.lastCreation === null || c > g.lastCreation)) g.lastCreation = c;
  }
  return groups;
}

function trimmedKeyFields(schema: TableSchema): DataField[] {
  const keys = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  const names = keys.length > 0 ? keys : schema.primaryKeys;
  return names.map((n) => schema.fields.find((f) => f.name === n)!);
}

async function snapshotsIn(t: Table, range: { min: number; max: number }): Promise<Snapshot[]> {
  const out: Snapshot[] = [];
  for (const id of await t.snapshotManager.listSnapshotIds()) {
    if (id < range.min || id > range.max) continue;
    const s = await t.snapshotManager.tryGetSnapshot(id);
    if (s !== null) out.push(s);
  }
  return out;
}

/** The system tables this library reads (Java `SystemTableLoader` names it serves). */
export const SYSTEM_TABLES: readonly string[] = [...Object.keys(METADATA_TABLES), "audit_log", "binlog", "ro", "row_tracking"];

/** A split of a metadata table: the one unit of its read (Java's `SingletonSplit`s). */
interface SystemSplit {
  readonly kind: "system";
  readonly table: string;
}

/**
 * A read-only table computed from metadata (system tables, `sys` tables): its `schema`,
 * `newScan().plan()` and `newRead(...).toArrow()` / `createReader` as a data table's. Writes,
 * commits and table operations fail with READ_ONLY; it has no system tables and no time travel.
 */
abstract class ReadOnlyTable extends Table {
  protected override checkWritable(op: string): void {
    throw new PaimonError("READ_ONLY", `cannot ${op} ${this.identifier}: system tables are read-only`);
  }

  override removeOrphanFiles(): never {
    this.checkWritable("remove orphan files of");
    throw new Error("unreachable");
  }

  override switchToBranch(): Promise<Table> {
    return Promise.reject(new PaimonError("UNSUPPORTED", `${this.identifier}: a system table has no branches (take the system table of the branch: db.t$branch_<name>$<system table>)`));
  }

  override systemTable(): Promise<Table> {
    return Promise.reject(new PaimonError("UNSUPPORTED", `${this.identifier}: a system table has no system tables (take them of the data table)`));
  }

  override atSnapshot(): Promise<Table> {
    return Promise.reject(new PaimonError("UNSUPPORTED", `${this.identifier}: time travel of a system table is not supported (time travel the data table with scan.* options)`));
  }

  /** The rows of the table's one split (`filter`: the read's, for pushing down; rows are filtered exactly after). */
  abstract metadataRows(filter: Predicate | null): Promise<Rows>;

  override newScan(options?: ScanOptions): TableScan {
    if (options?.realtime !== undefined) throw new PaimonError("UNSUPPORTED", `${this.identifier}: a system table has no real-time scan`);
    return new SystemTableScan(this, options);
  }

  override newRead(options?: ReadOptions): TableRead {
    if (options?.realtime !== undefined) throw new PaimonError("UNSUPPORTED", `${this.identifier}: a system table has no real-time read`);
    return new MetadataRead(this, options);
  }
}

/** A system table of a data table (`db.t$snapshots`). */
export class SystemTable extends ReadOnlyTable {
  constructor(
    /** The data table it describes. */
    readonly dataTable: Table,
    /** Its name after `$` (`snapshots`, `ro`, …). */
    readonly systemName: string,
    schema: TableSchema,
  ) {
    super(dataTable.fileIO, `${dataTable.identifier}$${systemName}`, dataTable.location, schema);
  }

  override metadataRows(filter: Predicate | null): Promise<Rows> {
    return METADATA_TABLES[this.systemName].rows(this.dataTable, filter);
  }

  override newScan(options?: ScanOptions): TableScan {
    if (this.systemName === "ro" || this.systemName === "audit_log" || this.systemName === "binlog" || this.systemName === "row_tracking") {
      if (options?.realtime !== undefined) throw new PaimonError("UNSUPPORTED", `${this.identifier}: a system table has no real-time scan`);
      // $row_tracking: no pruning by a filter (it may name _ROW_ID / _SEQUENCE_NUMBER; the read applies it)
      if (this.systemName !== "ro") return this.dataTable.newScan(this.systemName === "row_tracking" ? { ...options, filter: undefined } : options);
      const dataTable = this.dataTable;
      const scan = dataTable.newScan(readOptimized(dataTable, options));
      // with a fallback or primary branch, each branch at its own highest level (Java: the fallback scan of `$ro` scans)
      const plan = scan.plan.bind(scan);
      scan.plan = async () => (await planBranches(dataTable, (t) => readOptimized(t, options), BRANCH_FALLBACK_DEPS)) ?? plan();
      return scan;
    }
    return super.newScan(options);
  }

  override newRead(options?: ReadOptions): TableRead {
    if (options?.realtime !== undefined) throw new PaimonError("UNSUPPORTED", `${this.identifier}: a system table has no real-time read`);
    if (this.systemName === "ro") return this.dataTable.newRead(options);
    if (this.systemName === "audit_log" || this.systemName === "binlog") return new AuditLogRead(this, options);
    if (this.systemName === "row_tracking") return new RowTrackingRead(this, options);
    return super.newRead(options);
  }
}

/** What the `sys` tables read of a catalog. */
export interface CatalogView {
  readonly fileIO: Table["fileIO"];
  readonly warehouse: string;
  listDatabases(): Promise<string[]>;
  listTables(database: string): Promise<string[]>;
  getTable(identifier: string): Promise<Table>;
}

/** The name of Java's system database (`Catalog.SYSTEM_DATABASE_NAME`), whose tables describe the whole catalog. */
export const SYSTEM_DATABASE = "sys";

/** Every table of the catalog, by database then name (Java `CatalogUtils.listAllTables`). */
async function allTables(catalog: CatalogView): Promise<Table[]> {
  const out: Table[] = [];
  for (const db of (await catalog.listDatabases()).sort()) {
    for (const name of (await catalog.listTables(db)).sort()) out.push(await catalog.getTable(`${db}.${name}`));
  }
  return out;
}

/** `db.t` of a table's identifier. */
const splitIdentifier = (t: Table): [string, string] => {
  const dot = t.identifier.indexOf(".");
  return [t.identifier.slice(0, dot), t.identifier.slice(dot + 1)];
};

/** Java `creationTimeEpochMillis`: the instant of a local wall-clock time (files record creation times as local wall clocks). */
function wallToEpochMillis(wall: number): number {
  const guess = wall - (localWallMillis(wall) - wall);
  return wall - (localWallMillis(guess) - guess);
}

/** The global system tables of the `sys` database (Java `CatalogUtils.createGlobalSystemTable`). */
const GLOBAL_TABLES: Readonly<Record<string, { readonly columns: readonly Column[]; rows(catalog: CatalogView): Promise<Rows> }>> = {
  all_table_options: {
    columns: [
      ["database_name", STRING],
      ["table_name", STRING],
      ["key", STRING],
      ["value", STRING],
    ],
    async rows(catalog) {
      // Java `table.options()`: the schema's options and the table's `path`
      const rows: Rows = [];
      for (const t of await allTables(catalog)) {
        const [db, name] = splitIdentifier(t);
        for (const [k, v] of javaOptionOrder({ ...t.schema.options, path: t.location })) rows.push([db, name, k, v]);
      }
      return rows;
    },
  },
  catalog_options: {
    columns: [
      ["key", "STRING NOT NULL"],
      ["value", "STRING NOT NULL"],
    ],
    async rows(catalog) {
      return [["warehouse", catalog.warehouse]]; // (a paimon-rt catalog has no other Paimon catalog options)
    },
  },
  tables: {
    columns: [
      ["database_name", STRING],
      ["table_name", STRING],
      ["table_type", STRING],
      ["partitioned", "BOOLEAN"],
      ["primary_key", "BOOLEAN"],
      ["owner", STRING],
      ["created_at", BIGINT],
      ["created_by", STRING],
      ["updated_at", BIGINT],
      ["updated_by", STRING],
      ["record_count", BIGINT],
      ["file_size_in_bytes", BIGINT],
      ["file_count", BIGINT],
      ["last_file_creation_time", BIGINT],
    ],
    async rows(catalog) {
      // Java AllTablesTable: audit fields from the options (a REST catalog's); a file-system catalog
      // keeps no table snapshot summary, so the counts are null
      const long = (t: Table, key: string) => {
        const v = t.schema.options[key];
        if (v === undefined) return null;
        if (!/^[+-]?\d+$/.test(v)) throw new PaimonError("INVALID_ARGUMENT", `table ${t.identifier}: option ${key}=${JSON.stringify(v)} is not a long`);
        return BigInt(v);
      };
      return (await allTables(catalog)).map((t) => {
        const o = t.schema.options;
        return [...splitIdentifier(t), o.type ?? "table", t.schema.partitionKeys.length > 0, t.schema.primaryKeys.length > 0, o.owner ?? null, long(t, "createdAt"), o.createdBy ?? null, long(t, "updatedAt"), o.updatedBy ?? null, null, null, null, null];
      });
    },
  },
  partitions: {
    columns: [
      ["database_name", STRING],
      ["table_name", STRING],
      ["partition_name", STRING],
      ["record_count", BIGINT],
      ["file_size_in_bytes", BIGINT],
      ["file_count", BIGINT],
      ["last_file_creation_time", BIGINT],
      ["done", "BOOLEAN"],
    ],
    async rows(catalog) {
      // Java AllPartitionsTable: the partitions of every partitioned table, as `$partitions` lists them
      const rows: Rows = [];
      for (const t of await allTables(catalog)) {
        if (t.schema.partitionKeys.length === 0) continue;
        const [db, name] = splitIdentifier(t);
        for (const p of await METADATA_TABLES.partitions.rows(t, null)) {
          const created = p[4] as number | null;
          rows.push([db, name, p[0], p[1], p[2], p[3], created === null ? null : BigInt(wallToEpochMillis(created)), false]);
        }
      }
      return rows;
    },
  },
};

/** A table of the `sys` database (`sys.all_table_options`, `sys.tables`, …), describing the whole catalog. */
export class GlobalSystemTable extends ReadOnlyTable {
  constructor(
    readonly catalog: CatalogView,
    /** Its name in `sys`. */
    readonly systemName: string,
    schema: TableSchema,
  ) {
    super(catalog.fileIO, `${SYSTEM_DATABASE}.${systemName}`, catalog.warehouse, schema);
  }

  override metadataRows(): Promise<Rows> {
    return GLOBAL_TABLES[this.systemName].rows(this.catalog);
  }
}

/** The tables of the `sys` database (Java `SystemTableLoader.loadGlobalTableNames`). */
export function globalSystemTableNames(): string[] {
  return Object.keys(GLOBAL_TABLES);
}

/** Whether `name` is a table of Java's `sys` database (case-insensitive). */
export function isGlobalSystemTableName(name: string): boolean {
  return Object.hasOwn(GLOBAL_TABLES, name.toLowerCase());
}

/** The table `sys.<name>` (Java: `TableNotExistException` for another name, NOT_FOUND here). */
export function loadGlobalSystemTable(catalog: CatalogView, name: string): GlobalSystemTable {
  const lower = name.toLowerCase();
  if (!isGlobalSystemTableName(lower)) throw new PaimonError("NOT_FOUND", `table ${SYSTEM_DATABASE}.${name} does not exist: the ${SYSTEM_DATABASE} database holds ${Object.keys(GLOBAL_TABLES).join(", ")}`);
  return new GlobalSystemTable(catalog, lower, metadataSchema(columnFields(GLOBAL_TABLES[lower].columns), [], 0));
}

/** `$ro` of a primary-key table: only the files of the highest level (Java `ReadOptimizedTable`: `withLevel(numLevels - 1)`). */
function readOptimized(t: Pick<Table, "schema" | "coreOptions">, options: ScanOptions = {}): ScanOptions {
  if (t.schema.primaryKeys.length === 0) return options;
  return { ...options, level: primaryKeyConfig(t.coreOptions).maxLevel };
}

class SystemTableScan extends TableScan {
  constructor(
    private readonly system: ReadOnlyTable,
    options: ScanOptions = {},
  ) {
    super(system, options); // binds the filter to the system table's columns (unknown columns: INVALID_ARGUMENT)
  }

  override async plan(): Promise<Plan> {
    const split: SystemSplit = { kind: "system", table: this.system.identifier };
    // (the filter is applied by the read: metadata tables are read whole, then filtered)
    return { snapshotId: null, splits: [split as unknown as Split] };
  }
}

/** Reads a metadata table's one split: its rows, filtered exactly and projected. */
class MetadataRead extends TableRead {
  private readonly columns: readonly string[];
  private readonly boundFilter: Predicate | null;

  constructor(
    private readonly system: ReadOnlyTable,
    private readonly readOptions: ReadOptions = {},
  ) {
    if (readOptions.withRowKind) throw new PaimonError("UNSUPPORTED", `${system.identifier}: withRowKind is available for primary-key data tables only`);
    super(system, readOptions);
    this.columns = planProjection(system.schema.fields, readOptions.projection, system.identifier).topLevel.map((f) => f.name);
    this.boundFilter = readOptions.filter ? bindPredicate(readOptions.filter, system.schema.fields) : null;
  }

  override async createReader(splits: readonly Split[]): Promise<BatchReader> {
    for (const s of splits as readonly unknown[]) {
      const split = s as Partial<SystemSplit>;
      if (split.kind !== "system" || split.table !== this.system.identifier) throw new PaimonError("INVALID_ARGUMENT", `${this.system.identifier}: not a split of this system table`);
    }
    const system = this.system;
    const schema = readArrowSchema(system.schema.fields);
    const batches: arrow.RecordBatch[] = [];
    for (let i = 0; i < splits.length; i++) {
      const rows = await system.metadataRows(this.readOptions.filter ?? null);
      let batch = rowsToBatch(schema, system.schema.fields, rows);
      if (this.boundFilter !== null && batch.numRows > 0) {
        const kept = filterBatchIndices(this.boundFilter, batch);
        if (kept.length < batch.numRows) batch = takeRows(batch, kept);
      }
      const indexes = this.columns.map((c) => schema.fields.findIndex((f) => f.name === c));
      if (batch.numRows > 0) batches.push(selectColumns(batch, this.outputSchema, indexes));
    }
    const iterator = batches[Symbol.iterator]();
    return {
      [Symbol.asyncIterator]: () => ({ next: async () => iterator.next() }) as AsyncIterator<arrow.RecordBatch>,
      close: async () => undefined,
    } as unknown as BatchReader;
  }
}

/**
 * `$audit_log`: the data rows with a leading `rowkind` STRING (`+I`, `-U`, `+U`, `-D`), as Java's
 * `AuditLogTable` batch read. `$binlog` (Java `BinlogTable`, a batch read): the same rows, each
 * data column an ARRAY of its one value (Java packs -U/+U pairs into two-element arrays only in
 * streaming reads).
 */
class AuditLogRead extends TableRead {
  private readonly data: TableRead;
  private readonly withKind: boolean;
  private readonly dataColumns: number;
  private readonly binlog: boolean;
  private readonly dataOptions: ReadOptions;

  constructor(
    private readonly system: SystemTable,
    readOptions: ReadOptions = {},
  ) {
    super(system, readOptions);
    const names = readOptions.projection ?? system.schema.fields.map((f) => f.name);
    this.withKind = names.includes("rowkind");
    this.binlog = system.systemName === "binlog";
    const dataNames = names.filter((n) => n !== "rowkind");
    if (this.withKind && names[0] !== "rowkind") throw new PaimonError("UNSUPPORTED", `${system.identifier}: rowkind is read as the first column of a projection`);
    this.dataOptions = { ...readOptions, projection: dataNames, keepDeletes: true };
    this.data = system.dataTable.newRead({ ...this.dataOptions, withRowKind: system.dataTable.schema.primaryKeys.length > 0 && this.withKind });
    this.dataColumns = dataNames.length;
  }

  override async createReader(splits: readonly Split[]): Promise<BatchReader> {
    const ownPk = this.system.dataTable.schema.primaryKeys.length > 0;
    // the splits of a fallback or primary branch (Java's fallback read): read by that branch with
    // its own row kinds when only one of the two branches has a primary key
    const other = splits.some((s) => s.branch !== undefined) ? await otherBranch(this.system.dataTable) : null;
    const otherPk = other !== null && other.table.schema.primaryKeys.length > 0;
    if (other === null || otherPk === ownPk) return this.withRowKinds(await this.data.createReader(splits), ownPk); // (the fallback read reads both)
    const otherRead = other.table.newRead({ ...this.dataOptions, withRowKind: otherPk && this.withKind });
    const runs: Array<{ other: boolean; splits: Split[] }> = [];
    for (const s of splits) {
      const isOther = s.branch !== undefined;
      const last = runs[runs.length - 1];
      if (last !== undefined && last.other === isOther) last.splits.push(s);
      else runs.push({ other: isOther, splits: [s] });
    }
    const self = this;
    const batches = async function* (): AsyncGenerator<arrow.RecordBatch, void, undefined> {
      for (const run of runs) {
        const reader = await self.withRowKinds(await (run.other ? otherRead : self.data).createReader(run.splits), run.other ? otherPk : ownPk, run.other);
        try {
          yield* reader;
        } finally {
          await reader.close();
        }
      }
    };
    const generator = batches();
    return { [Symbol.asyncIterator]: () => generator, close: async () => void (await generator.return(undefined)) } as unknown as BatchReader;
  }

  /**
   * The rows of a data read (of a primary-key branch: `withRowKind`) under the system table's
   * columns; `conform`: rebuilt under them also when the columns are the data's (another branch's
   * nullability).
   */
  private async withRowKinds(inner: BatchReader, pk: boolean, conform = false): Promise<BatchReader> {
    if (!this.withKind && !this.binlog && !conform) return inner;
    const schema = this.outputSchema;
    const it = inner[Symbol.asyncIterator]();
    const kinds = ["+I", "-U", "+U", "-D"];
    const { dataColumns, withKind, binlog } = this;
    const first = withKind ? 1 : 0; // output columns before the data columns
    const next = async (): Promise<IteratorResult<arrow.RecordBatch>> => {
      const r = await it.next();
      if (r.done) return r;
      const b = r.value;
      const children = b.data.children;
      const out: arrow.Data[] = [];
      if (withKind) {
        let text: string[];
        if (pk) {
          const values = children[0].values as Int8Array;
          text = Array.from(values.subarray(children[0].offset, children[0].offset + b.numRows), (k) => kinds[k]);
        } else text = new Array<string>(b.numRows).fill("+I");
        out.push(arrow.vectorFromArray(text, new arrow.Utf8()).data[0]);
      }
      const rest = children.slice(pk && withKind ? 1 : 0, (pk && withKind ? 1 : 0) + dataColumns);
      for (const [i, d] of rest.entries()) out.push(binlog ? singletonLists(d, schema.fields[first + i].type as arrow.List) : d);
      return { done: false, value: recordBatch(schema, out, b.numRows) };
    };
    return { [Symbol.asyncIterator]: () => ({ next }) as AsyncIterator<arrow.RecordBatch>, close: () => inner.close() } as unknown as BatchReader;
  }
}

/** `$row_tracking` (Java `RowTrackingTable`): read by row-tracking-read.ts, a lazily loaded chunk. */
class RowTrackingRead extends TableRead {
  constructor(
    private readonly system: SystemTable,
    private readonly readOptions: ReadOptions = {},
  ) {
    super(system, readOptions);
  }

  override async createReader(splits: readonly Split[]): Promise<BatchReader> {
    const { readRowTracking } = await import("../read/row-tracking-read.js");
    const { dataTable, systemName, schema, identifier } = this.system;
    const other = splits.find((s) => s.branch !== undefined);
    if (other !== undefined) throw new PaimonError("UNSUPPORTED", `${identifier}: reading the rows of branch '${other.branch}' (the table's scan.fallback-branch / scan.primary-branch) with row tracking is not supported; read the branch's own ${systemName} table`);
    // the files are read with nullable _ROW_ID / _SEQUENCE_NUMBER: files without them (not compacted) give nulls
    const inner = new SystemTable(dataTable, systemName, { ...schema, fields: withRowTrackingFields(dataTable.schema.fields, true) });
    const o = this.readOptions;
    const out = this.outputSchema;
    const deps = { PaimonError, TableRead, makeData: arrow.makeData, RecordBatch: arrow.RecordBatch, Struct: arrow.Struct, bindPredicate, filterBatchIndices, takeRows, DeletionVectorLoader, keptPositions, referencedFields, concatData, recordBatch, crc32, loadDataEvolution: () => import("../read/data-evolution.js") };
    return readRowTracking(deps, inner, identifier, splits, out, out.fields.map((f) => f.name), o.predicateFilter && o.filter ? o.filter : null, o.batchSize);
  }
}

/** A LIST column whose row i is the one-element list `[values[i]]` (a null value stays an element: `[null]`). */
function singletonLists(values: arrow.Data, type: arrow.List): arrow.Data {
  const offsets = new Int32Array(values.length + 1);
  for (let i = 0; i <= values.length; i++) offsets[i] = i;
  return arrow.makeData({ type, length: values.length, nullCount: 0, valueOffsets: offsets, child: values });
}

/** Arrow columns of a metadata table's rows (internal values: BIGINT bigint, TIMESTAMP(3) wall millis, ARRAY a string list). */
function rowsToBatch(schema: arrow.Schema, fields: readonly DataField[], rows: Rows): arrow.RecordBatch {
  const children = fields.map((f, c) => {
    const type = schema.fields[c].type;
    const values = rows.map((r) => r[c] ?? null);
    if (f.type.kind === "TIMESTAMP") return arrow.makeData({ type, length: rows.length, nullCount: values.filter((v) => v === null).length, nullBitmap: bitmap(values), data: BigInt64Array.from(values, (v) => BigInt((v as number | null) ?? 0)) } as never) as arrow.Data;
    return arrow.vectorFromArray(values, type).data[0];
  });
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, children, nullCount: 0 }));
}

function bitmap(values: readonly unknown[]): Uint8Array {
  const out = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null) out[i >> 3] |= 1 << (i & 7);
  });
  return out;
}

/**
 * The system table `name` of `dataTable` (a `SystemTable`), as Java's `SystemTableLoader.load`:
 * NOT_FOUND for a name Java does not know.
 */
export function loadSystemTable(dataTable: Table, name: string): SystemTable {
  const lower = name.toLowerCase();
  const columns = METADATA_TABLES[lower]?.columns;
  let fields: DataField[];
  let primaryKeys: string[];
  if (columns !== undefined) {
    fields = columnFields(columns);
    primaryKeys = [...METADATA_TABLES[lower].primaryKeys];
  } else if (lower === "ro") {
    return new SystemTable(dataTable, lower, { ...dataTable.schema, options: { ...dataTable.schema.options } });
  } else if ((lower === "audit_log" || lower === "binlog") && dataTable.schema.primaryKeys.length > 0 && dataTable.coreOptions.bool("table-read.sequence-number.enabled", false)) {
    // (Java then adds a _SEQUENCE_NUMBER column after rowkind; paimon-rt reads no sequence numbers out)
    throw new PaimonError("UNSUPPORTED", `${dataTable.identifier}$${name}: table-read.sequence-number.enabled=true (a _SEQUENCE_NUMBER column) is not supported`);
  } else if (lower === "row_tracking") {
    if (!dataTable.coreOptions.bool("row-tracking.enabled", false)) {
      throw new PaimonError("INVALID_ARGUMENT", `Table ${dataTable.identifier} does not support row tracking, please enable 'row-tracking.enabled' option to use 'with_metadata' table.`);
    }
    return new SystemTable(dataTable, lower, { ...dataTable.schema, fields: withRowTrackingFields(dataTable.schema.fields, false), primaryKeys: [], options: { ...dataTable.schema.options } });
  } else if (lower === "audit_log") {
    fields = [{ id: -1, name: "rowkind", type: parseDataType("STRING NOT NULL") }, ...dataTable.schema.fields];
    primaryKeys = [];
  } else if (lower === "binlog") {
    // Java BinlogTable: every data column an ARRAY of the column's type made nullable
    const rowkind: DataField = { id: -1, name: "rowkind", type: parseDataType("STRING NOT NULL") };
    fields = [rowkind, ...dataTable.schema.fields.map((f) => ({ ...f, type: { kind: "ARRAY", nullable: true, element: { ...f.type, nullable: true } } as DataType }))];
    primaryKeys = [];
  } else {
    throw new PaimonError("NOT_FOUND", `table ${dataTable.identifier}$${name} does not exist: ${JSON.stringify(name)} is no system table (system tables: ${SYSTEM_TABLES.join(", ")})`);
  }
  return new SystemTable(dataTable, lower, metadataSchema(fields, primaryKeys, dataTable.schema.timeMillis));
}

/** The schema of a system table of these fields. */
function metadataSchema(fields: DataField[], primaryKeys: string[], timeMillis: number): TableSchema {
  return { version: 3, id: 0, fields, highestFieldId: fields.length - 1, partitionKeys: [], primaryKeys, options: {}, comment: null, timeMillis };
}

/** Fields of declared columns, numbered from 0. */
const columnFields = (columns: readonly Column[]): DataField[] => columns.map(([n, type], id) => ({ id, name: n, type: parseDataType(type) }));

/** Whether Java's `SystemTableLoader` knows the system table `name` (case-insensitive): this library reads them all. */
export function isSystemTableName(name: string): boolean {
  return SYSTEM_TABLES.includes(name.toLowerCase());
}
