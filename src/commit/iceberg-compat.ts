// Iceberg compatibility metadata (`metadata.iceberg.storage`), as Java Paimon 1.4.2's
// IcebergCommitCallback writes it after every snapshot: `metadata/v<id>.metadata.json`,
// `version-hint.text`, manifest lists `snap-<n>-<uuid>.avro` and manifests `<uuid>-m<n>.avro`
// (Avro with Iceberg's schemas and field ids), so that Iceberg readers read the table's data files.
// Append tables (no deletion vectors) with storage `table-location` or `hadoop-catalog`; the rest
// is refused before anything is written (checkIcebergCompat).
import { PaimonError } from "../error.js";
import { arrayElementFieldId, mapKeyFieldId, mapValueFieldId } from "../format/arrow-types.js";
import { joinPath, type FileIO } from "../fs/file-io.js";
import { valueStatsOf } from "../predicate/stats.js";
import { compileSchema, decodeContainer, type AvroType } from "../spec/avro.js";
import { avroCodecOf, writeContainer, writeRollingContainers } from "../spec/avro-write.js";
import { bigIntToTwosComplement, fromBinaryRow, type Timestamp } from "../spec/binary-row.js";
import { FILE_KIND_ADD, FILE_KIND_DELETE, type ManifestEntry } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField, DataType } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { TableOptions } from "../table/options.js";
import { primaryKeyConfig } from "../table/primary-key.js";
import { planPrimaryKeySplits } from "../scan/merge-tree-splits.js";
import type { TablePaths } from "../table/paths.js";
import type { SchemaManager } from "../table/schema-manager.js";
import type { SnapshotManager } from "../table/snapshot-manager.js";
import { listTags } from "../table/tags.js";

const STORAGE = "metadata.iceberg.storage";
const STORAGE_LOCATION = "metadata.iceberg.storage-location";
const FORMAT_VERSION = "metadata.iceberg.format-version";
const VERSION_HINT = "version-hint.text";
/** Java `IcebergPartitionField.FIRST_FIELD_ID`. */
const FIRST_PARTITION_FIELD_ID = 1000;
const TEXT = new TextEncoder();

/** Where Iceberg metadata goes, or null when the table keeps none (`metadata.iceberg.storage` unset or `disabled`). */
export interface IcebergCompat {
  /** The `metadata` directory Iceberg readers open (`<table>/metadata`, or `<warehouse>/iceberg/<db>/<table>/metadata`). */
  readonly metadataDir: string;
  readonly formatVersion: 2 | 3;
}

/**
 * Validates the table's `metadata.iceberg.*` options against what this library writes, before a
 * commit changes anything: null when Iceberg metadata is off; UNSUPPORTED for `hive-catalog`,
 * `rest-catalog`, primary-key tables, deletion vectors, branches and column types Java cannot
 * convert; INVALID_ARGUMENT for unknown values (as Java's option parsing).
 */
export function checkIcebergCompat(root: string, schema: TableSchema, options: TableOptions, canPlanRawFiles = true): IcebergCompat | null {
  const storage = (options.get(STORAGE) ?? "disabled").trim().toLowerCase();
  if (storage === "disabled") return null;
  const where = `${STORAGE}=${storage} on ${root}`;
  if (storage === "hive-catalog" || storage === "rest-catalog") throw new PaimonError("UNSUPPORTED", `${where}: Iceberg metadata in a Hive or REST catalog needs that catalog's client; only table-location and hadoop-catalog are written`);
  if (storage !== "table-location" && storage !== "hadoop-catalog") throw new PaimonError("INVALID_ARGUMENT", `${where}: unknown value (disabled, table-location, hadoop-catalog, hive-catalog, rest-catalog)`);
  const versionText = options.get(FORMAT_VERSION) ?? "2";
  const formatVersion = Number(versionText.trim());
  if (formatVersion !== 2 && formatVersion !== 3) throw new PaimonError("INVALID_ARGUMENT", `${where}: Unsupported iceberg format version! Only version 2 or version 3 is valid, but current version is ${versionText}`);
  if (options.bool("deletion-vectors.enabled", false)) throw new PaimonError("UNSUPPORTED", `${where}: an Iceberg view of a table with deletion vectors would list deleted rows (Java adds them as Iceberg deletion vectors only with format-version 3 and bitmap64); not written by this library`);
  if (schema.primaryKeys.length > 0 && !canPlanRawFiles) throw new PaimonError("UNSUPPORTED", `${where}: this commit cannot plan the primary-key table's raw-convertible files`);
  if (options.branch !== "main") throw new PaimonError("UNSUPPORTED", `${where}: Iceberg metadata of branch '${options.branch}' is not written`);
  for (const f of schema.fields) checkType(f.type, f.name, true, where);
  for (const k of schema.partitionKeys) {
    const t = schema.fields.find((f) => f.name === k)!.type;
    if (!PARTITION_KINDS.has(t.kind)) throw new PaimonError("UNSUPPORTED", `${where}: partition key '${k}' of type ${t.kind} has no Iceberg manifest encoding here`);
  }
  return { metadataDir: metadataDirOf(root, storage, options), formatVersion };
}

/** Java IcebergOptions' metadata location: `<table>/metadata` or `<warehouse>/iceberg/<db>/<table>/metadata`. */
function metadataDirOf(root: string, storage: string, options: TableOptions): string {
  const slash = root.replace(/\/+$/, "").lastIndexOf("/");
  const dbPath = root.slice(0, slash);
  const tableName = root.slice(slash + 1).replace(/\/+$/, "");
  const dbName = dbPath.slice(dbPath.lastIndexOf("/") + 1);
  if (slash <= 0 || !dbName.endsWith(".db")) throw new PaimonError("UNSUPPORTED", `Storage type ${storage.toUpperCase().replace("-", "_")} can only be used on Paimon tables in a Paimon warehouse.`);
  const locationText = (options.get(STORAGE_LOCATION) ?? (storage === "table-location" ? "table-location" : "catalog-location")).trim().toLowerCase();
  let metadataDir: string;
  if (locationText === "table-location") metadataDir = joinPath(dbPath, tableName, "metadata");
  else if (locationText === "catalog-location") metadataDir = joinPath(dbPath.slice(0, dbPath.lastIndexOf("/")), "iceberg", dbName.slice(0, -3), tableName, "metadata");
  else throw new PaimonError("INVALID_ARGUMENT", `${STORAGE_LOCATION}=${locationText} on ${root}: unknown value (table-location, catalog-location)`);
  return metadataDir;
}

/**
 * The Iceberg metadata directory whose latest metadata tag changes rewrite (Java's
 * `IcebergCommitCallback` as a tag callback), checked before the tag changes: null when the table
 * keeps no Iceberg metadata or keeps it where this library writes none (`hive-catalog`,
 * `rest-catalog`, a branch, a table outside a warehouse); INVALID_ARGUMENT for unknown values.
 */
export function icebergTagMetadataDir(root: string, options: TableOptions): string | null {
  const storage = (options.get(STORAGE) ?? "disabled").trim().toLowerCase();
  if (storage !== "table-location" && storage !== "hadoop-catalog") {
    if (storage === "disabled" || storage === "hive-catalog" || storage === "rest-catalog") return null;
    throw new PaimonError("INVALID_ARGUMENT", `${STORAGE}=${storage} on ${root}: unknown value (disabled, table-location, hadoop-catalog, hive-catalog, rest-catalog)`);
  }
  if (options.branch !== "main") return null;
  try {
    return metadataDirOf(root, storage, options);
  } catch (e) {
    if (e instanceof PaimonError && e.code === "UNSUPPORTED") return null;
    throw e;
  }
}

/** Java `IcebergRef(snapshotId)`: a tag that never ages out. */
const tagRef = (snapshotId: number) => ({ "snapshot-id": snapshotId, type: "tag", "max-ref-age-ms": 9223372036854775807n });

/** Iceberg metadata JSON as this library handles it: `max-ref-age-ms` (Long.MAX_VALUE) as a bigint. */
function parseMetadataJson(bytes: Uint8Array): IcebergMetadataJson {
  const m = JSON.parse(new TextDecoder().decode(bytes).replace(/("max-ref-age-ms"\s*:\s*)(\d+)/g, '$1"$2"')) as IcebergMetadataJson;
  for (const r of Object.values(m.refs ?? {})) if (typeof r["max-ref-age-ms"] === "string") r["max-ref-age-ms"] = BigInt(r["max-ref-age-ms"]);
  return m;
}

/**
 * Java `IcebergCommitCallback.notifyCreation(tag, snapshotId)` (`snapshotId` given) and
 * `notifyDeletion(tag)` (null): the Iceberg metadata of the latest snapshot is rewritten in place
 * with the tag's ref added (when the tagged snapshot is one of its snapshots) or removed, its
 * `last-sequence-number` the current snapshot's, `last-updated-ms` now; nothing when the table
 * has no snapshot or that metadata file does not exist (Java logs it). Iceberg readers see the ref
 * without another commit.
 */
export async function updateIcebergTagRef(io: FileIO, snapshots: SnapshotManager, metadataDir: string, tag: string, snapshotId: number | null): Promise<void> {
  const latest = await snapshots.latestSnapshotId();
  if (latest === null) return;
  const path = joinPath(metadataDir, `v${latest}.metadata.json`);
  let bytes: Uint8Array;
  try {
    bytes = await io.readFile(path);
  } catch (e) {
    if (e instanceof PaimonError && e.code === "NOT_FOUND") return;
    throw e;
  }
  const base = parseMetadataJson(bytes);
  const refs = { ...(base.refs ?? {}) };
  if (snapshotId === null) delete refs[tag];
  else if (!base.snapshots.some((s) => s["snapshot-id"] === snapshotId)) return; // (an Iceberg reader fails on a ref to a snapshot it lacks)
  else refs[tag] = tagRef(snapshotId);
  // Java re-creates the metadata with the short constructor: default spec and sort order, no properties
  const metadata: IcebergMetadataJson = { ...base, "last-sequence-number": base["current-snapshot-id"], "last-updated-ms": Date.now(), "default-spec-id": 0, "sort-orders": [{ "order-id": 0, fields: [] }], "default-sort-order-id": 0, properties: {}, refs };
  await io.writeFile(path, jacksonPretty(metadata as unknown as Json));
}

const PARTITION_KINDS = new Set(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "CHAR", "VARCHAR", "BINARY", "VARBINARY", "DATE", "DECIMAL", "TIMESTAMP", "TIMESTAMP_LTZ"]);

function checkType(t: DataType, name: string, topLevel: boolean, where: string): void {
  switch (t.kind) {
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      // Java: types 3..9 (IcebergDataField), statistics bounds 3..6 (IcebergConversions)
      if (t.precision < 3 || t.precision > (topLevel ? 6 : 9)) throw new PaimonError("UNSUPPORTED", `${where}: column '${name}' ${t.kind}(${t.precision}): Paimon Iceberg compatibility only supports timestamps with precision 3 to 6`);
      return;
    case "ARRAY":
      return checkType(t.element, name, false, where);
    case "MAP":
      checkType(t.key, name, false, where);
      return checkType(t.value, name, false, where);
    case "ROW":
      for (const f of t.fields) checkType(f.type, `${name}.${f.name}`, false, where);
      return;
    default:
      if (!PARTITION_KINDS.has(t.kind)) throw new PaimonError("UNSUPPORTED", `${where}: column '${name}' of type ${t.kind} has no Iceberg type`);
  }
}

// ---------------------------------------------------------------------------------------------
// Iceberg schema JSON (Java IcebergSchema / IcebergDataField)

type Json = null | boolean | number | string | bigint | Json[] | { [k: string]: Json | undefined };

function icebergType(t: DataType, fieldId: number, depth: number): Json {
  switch (t.kind) {
    case "BOOLEAN":
      return "boolean";
    case "TINYINT":
    case "SMALLINT":
    case "INT":
      return "int";
    case "BIGINT":
      return "long";
    case "FLOAT":
      return "float";
    case "DOUBLE":
      return "double";
    case "DATE":
      return "date";
    case "CHAR":
    case "VARCHAR":
      return "string";
    case "BINARY":
    case "VARBINARY":
      return "binary";
    case "DECIMAL":
      return `decimal(${t.precision}, ${t.scale})`;
    case "TIMESTAMP":
      return t.precision >= 7 ? "timestamp_ns" : "timestamp";
    case "TIMESTAMP_LTZ":
      return t.precision >= 7 ? "timestamptz_ns" : "timestamptz";
    case "ARRAY":
      // Java IcebergListType: element-required is the ARRAY's own nullability (as 1.4.2 writes it)
      return { type: "list", "element-id": arrayElementFieldId(fieldId, depth + 1), "element-required": !t.nullable, element: icebergType(t.element, fieldId, depth + 1) };
    case "MAP":
      return {
        type: "map",
        "key-id": mapKeyFieldId(fieldId, depth + 1),
        key: icebergType(t.key, fieldId, depth + 1),
        "value-id": mapValueFieldId(fieldId, depth + 1),
        "value-required": !t.value.nullable,
        value: icebergType(t.value, fieldId, depth + 1),
      };
    case "ROW":
      return { type: "struct", fields: t.fields.map(icebergField) };
    default:
      throw new PaimonError("UNSUPPORTED", `no Iceberg type for ${t.kind}`);
  }
}

function icebergField(f: DataField): Json {
  return { id: f.id, name: f.name, required: !f.type.nullable, type: icebergType(f.type, f.id, 0), doc: f.description ?? undefined };
}

function icebergSchema(schema: TableSchema): Json {
  return { type: "struct", "schema-id": schema.id, fields: schema.fields.map(icebergField) };
}

/** Jackson's default pretty printer (what Java's `JsonSerdeUtil.toJson` writes); undefined members are left out. */
export function jacksonPretty(v: Json, indent = ""): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "[ ]" : `[ ${v.map((x) => jacksonPretty(x, indent)).join(", ")} ]`;
  const inner = indent + "  ";
  const members = Object.entries(v).filter(([, x]) => x !== undefined);
  if (members.length === 0) return "{ }";
  return `{\n${members.map(([k, x]) => `${inner}${JSON.stringify(k)} : ${jacksonPretty(x as Json, inner)}`).join(",\n")}\n${indent}}`;
}

// ---------------------------------------------------------------------------------------------
// Avro schemas of Iceberg manifests and manifest lists (Java AvroSchemaConverter with `iceberg`)

function avroOf(t: DataType): unknown {
  let base: unknown;
  switch (t.kind) {
    case "BOOLEAN":
      base = "boolean";
      break;
    case "TINYINT":
    case "SMALLINT":
    case "INT":
      base = "int";
      break;
    case "BIGINT":
      base = "long";
      break;
    case "FLOAT":
      base = "float";
      break;
    case "DOUBLE":
      base = "double";
      break;
    case "CHAR":
    case "VARCHAR":
      base = "string";
      break;
    case "BINARY":
    case "VARBINARY":
      base = "bytes";
      break;
    case "DATE":
      base = { type: "int", logicalType: "date" };
      break;
    case "DECIMAL":
      base = { type: "bytes", logicalType: "decimal", precision: t.precision, scale: t.scale };
      break;
    case "TIMESTAMP":
      base = { type: "long", logicalType: t.precision <= 3 ? "timestamp-millis" : "timestamp-micros" };
      break;
    case "TIMESTAMP_LTZ":
      base = { type: "long", logicalType: t.precision <= 3 ? "local-timestamp-millis" : "local-timestamp-micros" };
      break;
    default:
      throw new PaimonError("UNSUPPORTED", `no Iceberg manifest encoding for partition type ${t.kind}`);
  }
  return t.nullable ? ["null", base] : base;
}

const opt = (name: string, type: unknown, id: number) => ({ name, type: ["null", type], default: null, "field-id": id });
const kv = (name: string, k: number, v: number, value: string) => ({ type: "array", items: { type: "record", name, fields: [{ name: "key", type: "int", "field-id": k }, { name: "value", type: value, "field-id": v }] }, logicalType: "map" });

function manifestEntrySchema(partitionFields: readonly DataField[]): unknown {
  const partition = {
    type: "record",
    name: "r102",
    fields: partitionFields.map((f, i) => ({ name: f.name, type: avroOf(f.type), ...(f.type.nullable ? { default: null } : {}), "field-id": FIRST_PARTITION_FIELD_ID + i })),
  };
  const dataFile = {
    type: "record",
    name: "r2",
    fields: [
      { name: "content", type: "int", "field-id": 134 },
      { name: "file_path", type: "string", "field-id": 100 },
      { name: "file_format", type: "string", "field-id": 101 },
      { name: "partition", type: partition, "field-id": 102 },
      { name: "record_count", type: "long", "field-id": 103 },
      { name: "file_size_in_bytes", type: "long", "field-id": 104 },
      opt("null_value_counts", kv("k121_v122", 121, 122, "long"), 110),
      opt("lower_bounds", kv("k126_v127", 126, 127, "bytes"), 125),
      opt("upper_bounds", kv("k129_v130", 129, 130, "bytes"), 128),
      opt("referenced_data_file", "string", 143),
      opt("content_offset", "long", 144),
      opt("content_size_in_bytes", "long", 145),
    ],
  };
  return {
    type: "record",
    name: "manifest_entry",
    fields: [{ name: "status", type: "int", "field-id": 0 }, opt("snapshot_id", "long", 1), opt("sequence_number", "long", 3), opt("file_sequence_number", "long", 4), { name: "data_file", type: dataFile, "field-id": 2 }],
  };
}

function manifestFileSchema(legacy: boolean): unknown {
  const files = legacy ? "data_files" : "files";
  const summary = {
    type: "array",
    items: { type: "record", name: "r508", fields: [{ name: "contains_null", type: "boolean", "field-id": 509 }, opt("contains_nan", "boolean", 518), opt("lower_bound", "bytes", 510), opt("upper_bound", "bytes", 511)] },
    "element-id": 508,
  };
  return {
    type: "record",
    name: "manifest_file",
    fields: [
      { name: "manifest_path", type: "string", "field-id": 500 },
      { name: "manifest_length", type: "long", "field-id": 501 },
      { name: "partition_spec_id", type: "int", "field-id": 502 },
      { name: "content", type: "int", "field-id": 517 },
      { name: "sequence_number", type: "long", "field-id": 515 },
      { name: "min_sequence_number", type: "long", "field-id": 516 },
      opt("added_snapshot_id", "long", 503),
      { name: `added_${files}_count`, type: "int", "field-id": 504 },
      { name: `existing_${files}_count`, type: "int", "field-id": 505 },
      { name: `deleted_${files}_count`, type: "int", "field-id": 506 },
      { name: "added_rows_count", type: "long", "field-id": 512 },
      { name: "existing_rows_count", type: "long", "field-id": 513 },
      { name: "deleted_rows_count", type: "long", "field-id": 514 },
      opt("partitions", summary, 507),
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Value bytes (Java IcebergConversions.toByteBuffer)

function le(width: 4 | 8, set: (v: DataView) => void): Uint8Array {
  const out = new Uint8Array(width);
  set(new DataView(out.buffer));
  return out;
}

/** Iceberg's single-value serialization of a Paimon value (bounds of statistics and partition summaries). */
export function icebergValueBytes(t: DataType, v: unknown): Uint8Array {
  switch (t.kind) {
    case "BOOLEAN":
      return new Uint8Array([v ? 1 : 0]);
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
      return le(4, (d) => d.setInt32(0, Number(v), true));
    case "BIGINT":
      return le(8, (d) => d.setBigInt64(0, BigInt(v as bigint), true));
    case "FLOAT":
      return le(4, (d) => d.setFloat32(0, v as number, true));
    case "DOUBLE":
      return le(8, (d) => d.setFloat64(0, v as number, true));
    case "CHAR":
    case "VARCHAR":
      return TEXT.encode(v as string);
    case "BINARY":
    case "VARBINARY":
      return v as Uint8Array;
    case "DECIMAL":
      return bigIntToTwosComplement(v as bigint);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const ts = v as Timestamp;
      return le(8, (d) => d.setBigInt64(0, ts.millis * 1000n + BigInt(Math.floor(ts.nanoOfMillisecond / 1000)), true));
    }
    default:
      throw new PaimonError("UNSUPPORTED", `no Iceberg bound for ${t.kind}`);
  }
}

/** Partition values in the manifest's Avro record (Java's Avro writer: TIMESTAMP as millis or micros, DECIMAL unscaled bytes). */
function avroPartitionValue(t: DataType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case "DECIMAL":
      return bigIntToTwosComplement(v as bigint);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const ts = v as Timestamp;
      return t.precision <= 3 ? ts.millis : ts.millis * 1000n + BigInt(Math.floor(ts.nanoOfMillisecond / 1000));
    }
    case "BIGINT":
      return BigInt(v as bigint);
    default:
      return v;
  }
}

/** Order of partition values for the manifest summaries (Java SimpleStatsCollector). */
function compareValues(t: DataType, a: unknown, b: unknown): number {
  switch (t.kind) {
    case "CHAR":
    case "VARCHAR":
      return compareBytes(TEXT.encode(a as string), TEXT.encode(b as string));
    case "BINARY":
    case "VARBINARY":
      return compareBytes(a as Uint8Array, b as Uint8Array);
    case "BOOLEAN":
      return Number(a) - Number(b);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const x = a as Timestamp;
      const y = b as Timestamp;
      return x.millis !== y.millis ? (x.millis < y.millis ? -1 : 1) : x.nanoOfMillisecond - y.nanoOfMillisecond;
    }
    default:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

// ---------------------------------------------------------------------------------------------
// Manifest entries and manifest file metas (records as the Avro schemas above name them)

const STATUS_EXISTING = 0;
const STATUS_ADDED = 1;
const STATUS_DELETED = 2;
const CONTENT_DATA = 0;

interface IcebergEntry {
  status: number;
  snapshot_id: bigint;
  sequence_number: bigint;
  file_sequence_number: bigint;
  data_file: Record<string, unknown> & { file_path: string; record_count: bigint; partition: Record<string, unknown> };
}

interface IcebergManifestMeta {
  manifest_path: string;
  manifest_length: bigint;
  partition_spec_id: number;
  content: number;
  sequence_number: bigint;
  min_sequence_number: bigint;
  added_snapshot_id: bigint | null;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: bigint;
  existing_rows_count: bigint;
  deleted_rows_count: bigint;
  partitions: Array<{ contains_null: boolean; contains_nan: boolean | null; lower_bound: Uint8Array | null; upper_bound: Uint8Array | null }> | null;
}

interface IcebergSnapshotJson {
  "sequence-number": number;
  "snapshot-id": number;
  "parent-snapshot-id"?: number;
  "timestamp-ms": number;
  summary: Record<string, string>;
  "manifest-list": string;
  "schema-id": number;
}

interface IcebergMetadataJson {
  "format-version": number;
  "table-uuid": string;
  location: string;
  "last-sequence-number": number;
  "last-updated-ms": number;
  "last-column-id": number;
  schemas: Json[];
  "current-schema-id": number;
  "partition-specs": Json[];
  "default-spec-id": number;
  "last-partition-id": number;
  "sort-orders": Json[];
  "default-sort-order-id": number;
  snapshots: IcebergSnapshotJson[];
  "current-snapshot-id": number;
  properties: Record<string, string>;
  refs: Record<string, { "snapshot-id": number; type: string; "max-ref-age-ms": bigint | number }>;
}

/** What the metadata writer needs of the table and its commit (narrow deps, no Table facade). */
export interface IcebergCommitContext {
  readonly io: FileIO;
  readonly root: string;
  readonly schema: TableSchema;
  readonly options: TableOptions;
  readonly paths: TablePaths;
  readonly schemas: SchemaManager;
  readonly snapshots: SnapshotManager;
  readonly partitionFields: readonly DataField[];
  /** The data files of a snapshot an Iceberg reader may read as they are (the full rebuild): {@link icebergRawFiles}. */
  rawFiles(snapshot: Snapshot): Promise<readonly ManifestEntry[]>;
}

/**
 * The files Java's full rebuild lists (`dataSplits` filtered by `rawConvertible`): every live file
 * of an append table; of a primary-key table the files of raw-convertible splits (no merging
 * needed to read them).
 */
export function icebergRawFiles(table: FileStoreTable): (snapshot: Snapshot) => Promise<readonly ManifestEntry[]> {
  return async (snapshot) => {
    const live = await table.manifestStore.allLiveEntries(snapshot);
    if (table.schema.primaryKeys.length === 0) return live;
    const splits = await planPrimaryKeySplits(table, snapshot, live, undefined);
    return splits.filter((s) => s.rawConvertible).flatMap((s) => s.files.map((file) => ({ kind: FILE_KIND_ADD, partition: s.partitionRow, bucket: s.bucket, totalBuckets: s.totalBuckets ?? 0, file })));
  };
}

/**
 * Java's IcebergCommitCallback for one commit object: {@link afterCommit} writes the Iceberg
 * metadata of each snapshot the commit published, incrementally on the previous snapshot's
 * metadata, or afresh from all live files when that is missing (catch-up after commits that wrote
 * none, or a changed format version).
 */
export class IcebergMetadataWriter {
  private readonly uuid = crypto.randomUUID();
  private manifestCount = 0;
  private manifestListCount = 0;
  private readonly entryType: AvroType;
  private readonly listType: AvroType;
  private readonly codec;
  private readonly schemaCache = new Map<number, TableSchema>();

  constructor(
    private readonly ctx: IcebergCommitContext,
    private readonly compat: IcebergCompat,
  ) {
    this.entryType = compileSchema(manifestEntrySchema(ctx.partitionFields) as never);
    this.listType = compileSchema(manifestFileSchema(ctx.options.bool("metadata.iceberg.manifest-legacy-version", false)) as never);
    this.codec = avroCodecOf(ctx.options.get("metadata.iceberg.manifest-compression") ?? "snappy");
  }

  private get io(): FileIO {
    return this.ctx.io;
  }

  private metadataPath(id: number): string {
    return joinPath(this.compat.metadataDir, `v${id}.metadata.json`);
  }

  private async schemaOf(id: number): Promise<TableSchema> {
    let s = this.schemaCache.get(id);
    if (!s) this.schemaCache.set(id, (s = await this.ctx.schemas.schema(id)));
    return s;
  }

  /** After snapshot `snapshot` was published with the delta `entries`. */
  async afterCommit(snapshot: Snapshot, entries: readonly ManifestEntry[]): Promise<void> {
    const id = snapshot.id;
    if (id === 1) await this.io.deleteDirectory(this.compat.metadataDir).catch(() => false);
    if (await this.io.exists(this.metadataPath(id))) return;
    const basePath = this.metadataPath(id - 1);
    const baseBytes = id > 1 ? await this.readIfExists(basePath) : null;
    if (baseBytes !== null) {
      const base = parseMetadataJson(baseBytes);
      if (base["format-version"] === this.compat.formatVersion) return this.withBase(snapshot, entries, base);
      if (base["format-version"] > this.compat.formatVersion) throw new PaimonError("INVALID_ARGUMENT", `format version in base metadata is ${base["format-version"]}, and it's bigger than the current format version ${this.compat.formatVersion}, this is not allowed!`);
    }
    return this.withoutBase(snapshot);
  }

  private async readIfExists(path: string): Promise<Uint8Array | null> {
    try {
      return await this.io.readFile(path);
    } catch (e) {
      if (e instanceof PaimonError && e.code === "NOT_FOUND") return null;
      throw e;
    }
  }

  // -- fresh metadata ---------------------------------------------------------------------------

  private async withoutBase(snapshot: Snapshot): Promise<void> {
    const id = snapshot.id;
    const sid = BigInt(id);
    const entries: IcebergEntry[] = [];
    for (const e of await this.ctx.rawFiles(snapshot)) entries.push(await this.entryOf(e, sid));
    const metas = entries.length > 0 ? await this.writeManifests(entries, sid) : [];
    const listPath = await this.writeManifestList(metas);
    const latest = (await this.ctx.schemas.latest())!;
    const schemas: Json[] = [];
    for (let s = 0; s <= latest.id; s++) schemas.push(icebergSchema(await this.schemaOf(s)));
    const partitionFields = this.partitionSpecFields(latest);
    const metadata: IcebergMetadataJson = {
      "format-version": this.compat.formatVersion,
      "table-uuid": crypto.randomUUID(),
      location: this.ctx.root,
      "last-sequence-number": id,
      "last-updated-ms": Date.now(),
      "last-column-id": highestFieldId(latest),
      schemas,
      "current-schema-id": latest.id,
      "partition-specs": [{ "spec-id": 0, fields: partitionFields }],
      "default-spec-id": 0,
      "last-partition-id": partitionFields.length > 0 ? FIRST_PARTITION_FIELD_ID + partitionFields.length - 1 : FIRST_PARTITION_FIELD_ID - 1,
      "sort-orders": [{ "order-id": 0, fields: [] }],
      "default-sort-order-id": 0,
      snapshots: [{ "sequence-number": id, "snapshot-id": id, "timestamp-ms": Date.now(), summary: { operation: "append" }, "manifest-list": listPath, "schema-id": latest.id }],
      "current-snapshot-id": id,
      properties: {},
      refs: {},
    };
    await this.publish(id, metadata);
    await this.expireAllBefore(id);
  }

  private partitionSpecFields(schema: TableSchema): Json[] {
    return schema.partitionKeys.map((k, i) => {
      const f = schema.fields.find((x) => x.name === k)!;
      return { name: f.name, transform: "identity", "source-id": f.id, "field-id": FIRST_PARTITION_FIELD_ID + i };
    });
  }

  private async publish(id: number, metadata: IcebergMetadataJson): Promise<void> {
    await this.io.mkdirs(this.compat.metadataDir);
    await this.io.writeFileAtomicNoReplace(this.metadataPath(id), jacksonPretty(metadata as unknown as Json));
    await this.io.writeFile(joinPath(this.compat.metadataDir, VERSION_HINT), String(id));
  }

  private async entryOf(e: ManifestEntry, sid: bigint): Promise<IcebergEntry> {
    const f = e.file;
    const schema = await this.schemaOf(f.schemaId);
    const stats = valueStatsOf(f, schema.fields);
    const nullCounts: Array<{ key: number; value: bigint }> = [];
    const lower: Array<{ key: number; value: Uint8Array }> = [];
    const upper: Array<{ key: number; value: Uint8Array }> = [];
    const covered = f.valueStatsCols === null || f.valueStatsCols === undefined ? null : new Set(f.valueStatsCols);
    for (const field of [...schema.fields].sort((a, b) => a.id - b.id)) {
      if (covered !== null && !covered.has(field.name)) continue;
      // Java's files carry no statistics of nested columns (left out of their dense `_VALUE_STATS_COLS`)
      if (isNested(field.type)) continue;
      const c = stats.columns[field.name];
      nullCounts.push({ key: field.id, value: BigInt(c?.nullCount ?? 0) });
      if (c && c.min !== null && c.min !== undefined && c.max !== null && c.max !== undefined) {
        lower.push({ key: field.id, value: icebergValueBytes(field.type, c.min) });
        upper.push({ key: field.id, value: icebergValueBytes(field.type, c.max) });
      }
    }
    const bucketDir = this.ctx.paths.bucketDirOf(e.partition, e.bucket);
    const values = fromBinaryRow(e.partition.subarray(4), this.ctx.partitionFields.map((p) => p.type));
    const partition = Object.fromEntries(this.ctx.partitionFields.map((p, i) => [p.name, avroPartitionValue(p.type, values[i])]));
    const format = f.fileName.slice(f.fileName.lastIndexOf(".") + 1);
    return {
      status: STATUS_ADDED,
      snapshot_id: sid,
      sequence_number: sid,
      file_sequence_number: sid,
      data_file: {
        content: CONTENT_DATA,
        file_path: this.ctx.paths.dataFile(bucketDir, f),
        file_format: format,
        partition,
        record_count: BigInt(f.rowCount),
        file_size_in_bytes: BigInt(f.fileSize),
        null_value_counts: nullCounts,
        lower_bounds: lower,
        upper_bounds: upper,
        referenced_data_file: null,
        content_offset: null,
        content_size_in_bytes: null,
      },
    };
  }

  /** Manifests of `entries`, rolled at `manifest.target-file-size` (Java `IcebergManifestFile.rollingWrite`). */
  private async writeManifests(entries: readonly IcebergEntry[], sequenceNumber: bigint): Promise<IcebergManifestMeta[]> {
    const files = await writeRollingContainers(this.entryType, entries, this.ctx.options.manifestTargetFileSize, { codec: this.codec });
    await this.io.mkdirs(this.compat.metadataDir);
    const metas: IcebergManifestMeta[] = [];
    let first = 0;
    for (const file of files) {
      const path = joinPath(this.compat.metadataDir, `${this.uuid}-m${++this.manifestCount}.avro`);
      await this.io.writeFile(path, file.bytes);
      metas.push(this.manifestMeta(path, file.bytes.length, entries.slice(first, first + file.count), sequenceNumber));
      first += file.count;
    }
    return metas;
  }

  /** Java `IcebergManifestEntryWriter.result`: the counts, sequence numbers and partition summaries of a manifest's entries. */
  private manifestMeta(path: string, length: number, entries: readonly IcebergEntry[], sequenceNumber: bigint): IcebergManifestMeta {
    const counts = [0, 0, 0];
    const rows = [0n, 0n, 0n];
    let minSeq: bigint | null = null;
    const fields = this.ctx.partitionFields;
    const mins: unknown[] = fields.map(() => null);
    const maxs: unknown[] = fields.map(() => null);
    const nulls = fields.map(() => 0);
    for (const e of entries) {
      counts[e.status]!++;
      rows[e.status]! += BigInt(e.data_file.record_count);
      if (minSeq === null || e.sequence_number < minSeq) minSeq = e.sequence_number;
      fields.forEach((p, i) => {
        const v = this.partitionValueOf(p.type, e.data_file.partition[p.name]);
        if (v === null) nulls[i]!++;
        else {
          if (mins[i] === null || compareValues(p.type, v, mins[i]) < 0) mins[i] = v;
          if (maxs[i] === null || compareValues(p.type, v, maxs[i]) > 0) maxs[i] = v;
        }
      });
    }
    return {
      manifest_path: path,
      manifest_length: BigInt(length),
      partition_spec_id: 0,
      content: CONTENT_DATA,
      sequence_number: sequenceNumber,
      min_sequence_number: minSeq ?? -1n,
      added_snapshot_id: sequenceNumber,
      added_files_count: counts[STATUS_ADDED]!,
      existing_files_count: counts[STATUS_EXISTING]!,
      deleted_files_count: counts[STATUS_DELETED]!,
      added_rows_count: rows[STATUS_ADDED]!,
      existing_rows_count: rows[STATUS_EXISTING]!,
      deleted_rows_count: rows[STATUS_DELETED]!,
      partitions: fields.map((p, i) => ({
        contains_null: nulls[i]! > 0,
        contains_nan: false,
        lower_bound: mins[i] === null ? null : icebergValueBytes(p.type, mins[i]),
        upper_bound: maxs[i] === null ? null : icebergValueBytes(p.type, maxs[i]),
      })),
    };
  }

  /** A partition value of a manifest record back to the Paimon value (as the BinaryRow decodes it). */
  private partitionValueOf(t: DataType, v: unknown): unknown {
    if (v === null || v === undefined) return null;
    switch (t.kind) {
      case "DECIMAL": {
        const b = v as Uint8Array;
        let u = 0n;
        for (const x of b) u = (u << 8n) | BigInt(x);
        return BigInt.asIntN(8 * b.length, u);
      }
      case "TIMESTAMP":
      case "TIMESTAMP_LTZ": {
        const n = BigInt(v as bigint);
        if (t.precision <= 3) return { millis: n, nanoOfMillisecond: 0 };
        const millis = n >= 0n ? n / 1000n : -((-n + 999n) / 1000n);
        return { millis, nanoOfMillisecond: Number(n - millis * 1000n) * 1000 };
      }
      default:
        return v;
    }
  }

  private async writeManifestList(metas: readonly IcebergManifestMeta[]): Promise<string> {
    const path = joinPath(this.compat.metadataDir, `snap-${++this.manifestListCount}-${this.uuid}.avro`);
    const legacy = this.ctx.options.bool("metadata.iceberg.manifest-legacy-version", false);
    const records = legacy
      ? metas.map((m) => ({ ...m, added_data_files_count: m.added_files_count, existing_data_files_count: m.existing_files_count, deleted_data_files_count: m.deleted_files_count }))
      : metas;
    await this.io.mkdirs(this.compat.metadataDir);
    await this.io.writeFile(path, await writeContainer(this.listType, records, { codec: this.codec }));
    return path;
  }

  private async readManifestList(path: string): Promise<IcebergManifestMeta[]> {
    const records = (await decodeContainer(await this.io.readFile(this.inMetadataDir(path)), path)).records as Array<Record<string, unknown>>;
    return records.map((r) => ({
      ...(r as unknown as IcebergManifestMeta),
      added_files_count: (r.added_files_count ?? r.added_data_files_count) as number,
      existing_files_count: (r.existing_files_count ?? r.existing_data_files_count) as number,
      deleted_files_count: (r.deleted_files_count ?? r.deleted_data_files_count) as number,
    }));
  }

  private async readManifest(meta: IcebergManifestMeta): Promise<IcebergEntry[]> {
    const records = (await decodeContainer(await this.io.readFile(this.inMetadataDir(meta.manifest_path)), meta.manifest_path)).records as Array<Record<string, unknown>>;
    // Java IcebergManifestEntrySerializer: snapshot id and sequence numbers inherited from the manifest when null
    return records.map((r) => {
      const status = r.status as number;
      const inherit = (v: unknown): bigint => (v === null || v === undefined) && (meta.sequence_number === 0n || status === STATUS_ADDED) ? meta.sequence_number : BigInt(v as bigint);
      return {
        status,
        snapshot_id: r.snapshot_id === null || r.snapshot_id === undefined ? BigInt(meta.added_snapshot_id ?? 0n) : BigInt(r.snapshot_id as bigint),
        sequence_number: inherit(r.sequence_number),
        file_sequence_number: inherit(r.file_sequence_number),
        data_file: r.data_file as IcebergEntry["data_file"],
      };
    });
  }

  /** A path named in metadata, which must be a file of the metadata directory (as Java resolves it by name). */
  private inMetadataDir(path: string): string {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name === "" || name === "." || name === "..") throw new PaimonError("CORRUPT_FILE", `Iceberg metadata names a bad file '${path}'`);
    return joinPath(this.compat.metadataDir, name);
  }

  // -- incremental metadata ---------------------------------------------------------------------

  private async withBase(snapshot: Snapshot, delta: readonly ManifestEntry[], base: IcebergMetadataJson): Promise<void> {
    const id = snapshot.id;
    const sid = BigInt(id);
    const current = base.snapshots.find((s) => s["snapshot-id"] === base["current-snapshot-id"]);
    if (!current) throw new PaimonError("CORRUPT_FILE", `Cannot find snapshot with id ${base["current-snapshot-id"]}, this is unexpected.`);
    const baseMetas = (await this.readManifestList(current["manifest-list"])).filter((m) => m.content === CONTENT_DATA);

    // Java collectFileChanges: files by path, the last change wins
    const removed = new Map<string, ManifestEntry>();
    const added = new Map<string, ManifestEntry>();
    // Java shouldAddFileToIceberg: all files of append tables, the top level of primary-key tables
    const maxLevel = this.ctx.schema.primaryKeys.length > 0 ? primaryKeyConfig(this.ctx.options).numLevels - 1 : null;
    let addOnly = true;
    for (const e of delta) {
      const path = this.ctx.paths.dataFile(this.ctx.paths.bucketDirOf(e.partition, e.bucket), e.file);
      if (e.kind === FILE_KIND_ADD) {
        if (maxLevel !== null && e.file.level !== maxLevel) continue;
        removed.delete(path);
        added.set(path, e);
      } else if (e.kind === FILE_KIND_DELETE) {
        addOnly = false;
        added.delete(path);
        removed.set(path, e);
      }
    }
    let metas: IcebergManifestMeta[];
    let operation = "append";
    if (addOnly) metas = [...baseMetas, ...(await this.newlyAdded(added, sid))];
    else {
      const modified = [...removed.values(), ...added.values()].map((e) => fromBinaryRow(e.partition.subarray(4), this.ctx.partitionFields.map((p) => p.type)));
      metas = [];
      for (const meta of baseMetas) {
        if (!this.mayContain(meta, modified)) {
          metas.push(meta);
          continue;
        }
        const entries = await this.readManifest(meta);
        let reusable = true;
        for (const e of entries) {
          if (e.status === STATUS_DELETED) continue;
          if (added.has(e.data_file.file_path)) added.delete(e.data_file.file_path);
          else if (removed.has(e.data_file.file_path)) reusable = false;
        }
        if (reusable) metas.push(meta);
        else {
          operation = "overwrite";
          const live = entries.filter((e) => e.status !== STATUS_DELETED).map((e) => ({ ...e, status: removed.has(e.data_file.file_path) ? STATUS_DELETED : STATUS_EXISTING }));
          if (live.length > 0) metas.push(...(await this.writeManifests(live, sid)));
        }
      }
      metas.push(...(await this.newlyAdded(added, sid)));
    }
    metas = await this.compactIfNeeded(metas, sid);
    const listPath = await this.writeManifestList(metas);

    const latest = (await this.ctx.schemas.latest())!;
    let schemas = base.schemas;
    if (base["current-schema-id"] !== latest.id) {
      if (latest.id < base["current-schema-id"]) throw new PaimonError("INVALID_ARGUMENT", `currentSchemaId{${latest.id}} in paimon should be greater than currentSchemaId{${base["current-schema-id"]}} in base metadata.`);
      schemas = [...schemas];
      for (let s = base["current-schema-id"] + 1; s <= latest.id; s++) schemas.push(icebergSchema(await this.schemaOf(s)));
    }
    let snapshots: IcebergSnapshotJson[] = [...base.snapshots, { "sequence-number": id, "snapshot-id": id, "parent-snapshot-id": id - 1, "timestamp-ms": Date.now(), summary: { operation }, "manifest-list": listPath, "schema-id": latest.id }];
    // Java: every snapshot but the last is a candidate; the first one that must stay keeps it and all after it
    const toExpire: IcebergSnapshotJson[] = [];
    for (let i = 0; i + 1 < snapshots.length; i++) {
      toExpire.push(snapshots[i]!);
      if (!this.shouldExpire(snapshots[i]!, id)) {
        snapshots = snapshots.slice(i);
        break;
      }
    }
    const kept = new Set(snapshots.map((s) => s["snapshot-id"]));
    const refs: IcebergMetadataJson["refs"] = {};
    const seen = new Set<number>();
    for (const tag of await listTags(this.ctx.snapshots)) {
      if (!kept.has(tag.snapshot.id) || seen.has(tag.snapshot.id)) continue;
      seen.add(tag.snapshot.id);
      refs[tag.name] = tagRef(tag.snapshot.id);
    }
    const metadata: IcebergMetadataJson = {
      ...base,
      "last-sequence-number": id,
      "last-updated-ms": Date.now(),
      "last-column-id": highestFieldId(latest),
      schemas,
      "current-schema-id": latest.id,
      snapshots,
      "current-snapshot-id": id,
      properties: base.properties ?? {},
      refs,
    };
    await this.publish(id, metadata);
    await this.deleteOldMetadataFiles(id);
    for (let i = 0; i + 1 < toExpire.length; i++) await this.expireManifestList(toExpire[i]!["manifest-list"], toExpire[i + 1]!["manifest-list"]);
  }

  private async newlyAdded(added: ReadonlyMap<string, ManifestEntry>, sid: bigint): Promise<IcebergManifestMeta[]> {
    if (added.size === 0) return [];
    const entries: IcebergEntry[] = [];
    for (const e of added.values()) entries.push(await this.entryOf(e, sid));
    return this.writeManifests(entries, sid);
  }

  /** Java's partition predicate over a manifest's partition summaries: may it hold one of `partitions`? */
  private mayContain(meta: IcebergManifestMeta, partitions: readonly unknown[][]): boolean {
    const fields = this.ctx.partitionFields;
    if (fields.length === 0 || partitions.length === 0) return true;
    const summaries = meta.partitions ?? [];
    return partitions.some((values) =>
      fields.every((p, i) => {
        const s = summaries[i];
        if (!s) return true;
        const v = values[i];
        if (v === null || v === undefined) return s.contains_null;
        if (s.lower_bound === null || s.upper_bound === null) return false;
        const lo = this.boundValue(p.type, s.lower_bound);
        const hi = this.boundValue(p.type, s.upper_bound);
        return compareValues(p.type, v, lo) >= 0 && compareValues(p.type, v, hi) <= 0;
      }),
    );
  }

  /** Java IcebergConversions.toPaimonObject. */
  private boundValue(t: DataType, b: Uint8Array): unknown {
    const d = new DataView(b.buffer, b.byteOffset, b.byteLength);
    switch (t.kind) {
      case "BOOLEAN":
        return b[0] !== 0;
      case "TINYINT":
      case "SMALLINT":
      case "INT":
      case "DATE":
        return d.getInt32(0, true);
      case "BIGINT":
        return d.getBigInt64(0, true);
      case "FLOAT":
        return d.getFloat32(0, true);
      case "DOUBLE":
        return d.getFloat64(0, true);
      case "CHAR":
      case "VARCHAR":
        return new TextDecoder().decode(b);
      case "DECIMAL":
        return this.partitionValueOf(t, b);
      case "TIMESTAMP":
      case "TIMESTAMP_LTZ":
        return this.partitionValueOf({ ...t, precision: 6 } as DataType, d.getBigInt64(0, true));
      default:
        return b;
    }
  }

  /** Java compactMetadataIfNeeded: many small manifests are merged into one (older entries become EXISTING, deleted ones go). */
  private async compactIfNeeded(metas: IcebergManifestMeta[], sid: bigint): Promise<IcebergManifestMeta[]> {
    const target = this.ctx.options.manifestTargetFileSize;
    const candidates = metas.filter((m) => Number(m.manifest_length) < (target * 2) / 3);
    const total = candidates.reduce((s, m) => s + Number(m.manifest_length), 0);
    if (candidates.length < this.ctx.options.int("metadata.iceberg.compaction.min.file-num", 10)) return metas;
    if (candidates.length < this.ctx.options.int("metadata.iceberg.compaction.max.file-num", 50) && total < target) return metas;
    const result = metas.filter((m) => !candidates.includes(m));
    const entries: IcebergEntry[] = [];
    for (const meta of candidates) {
      for (const e of await this.readManifest(meta)) {
        if (e.file_sequence_number === sid || e.status === STATUS_EXISTING) entries.push(e);
        else if (e.status === STATUS_ADDED) entries.push({ ...e, status: STATUS_EXISTING });
      }
      // written for this snapshot only: no metadata names it
      if (meta.sequence_number === sid) await this.io.delete(this.inMetadataDir(meta.manifest_path)).catch(() => false);
    }
    result.push(...(await this.writeManifests(entries, sid)));
    return result;
  }

  private shouldExpire(s: IcebergSnapshotJson, currentId: number): boolean {
    const o = this.ctx.options;
    if (s["snapshot-id"] > currentId - o.snapshotNumRetainedMin) return false;
    if (s["snapshot-id"] <= currentId - o.snapshotNumRetainedMax) return true;
    return s["timestamp-ms"] < Date.now() - o.snapshotTimeRetained;
  }

  private async expireManifestList(toExpire: string, next: string): Promise<void> {
    const inUse = new Set((await this.readManifestList(next).catch(() => [])).map((m) => m.manifest_path));
    for (const m of await this.readManifestList(toExpire).catch(() => [])) {
      if (!inUse.has(m.manifest_path)) await this.io.delete(this.inMetadataDir(m.manifest_path)).catch(() => false);
    }
    await this.io.delete(this.inMetadataDir(toExpire)).catch(() => false);
  }

  /** The `v<id>.metadata.json` files of the metadata directory with ids below `id`. */
  private async metadataFilesBefore(id: number): Promise<Array<{ id: number; path: string }>> {
    const out: Array<{ id: number; path: string }> = [];
    for (const f of await this.io.listStatus(this.compat.metadataDir).catch(() => [])) {
      const m = /^v(\d+)\.metadata\.json$/.exec(f.name);
      if (m && !f.isDir && Number(m[1]) < id) out.push({ id: Number(m[1]), path: joinPath(this.compat.metadataDir, f.name) });
    }
    return out;
  }

  /** Java expireAllBefore: the manifests and lists of every older metadata file go, then old metadata files. */
  private async expireAllBefore(id: number): Promise<void> {
    const lists = new Set<string>();
    const manifests = new Set<string>();
    for (const file of await this.metadataFilesBefore(id)) {
      const old = JSON.parse(new TextDecoder().decode(await this.io.readFile(file.path))) as IcebergMetadataJson;
      for (const s of old.snapshots ?? []) {
        const list = this.inMetadataDir(s["manifest-list"]);
        if (lists.has(list)) continue;
        lists.add(list);
        for (const m of await this.readManifestList(list).catch(() => [])) {
          const path = this.inMetadataDir(m.manifest_path);
          if (manifests.has(path)) continue;
          manifests.add(path);
          await this.io.delete(path).catch(() => false);
        }
        await this.io.delete(list).catch(() => false);
      }
    }
    await this.deleteOldMetadataFiles(id);
  }

  /** Java deleteApplicableMetadataFiles (`metadata.iceberg.delete-after-commit.enabled`, `previous-versions-max`). */
  private async deleteOldMetadataFiles(id: number): Promise<void> {
    if (!this.ctx.options.bool("metadata.iceberg.delete-after-commit.enabled", true)) return;
    const earliest = id - this.ctx.options.int("metadata.iceberg.previous-versions-max", 0);
    if (earliest <= 0) return;
    for (const f of await this.metadataFilesBefore(earliest)) await this.io.delete(f.path).catch(() => false);
  }
}

function isNested(t: DataType): boolean {
  return t.kind === "ARRAY" || t.kind === "MAP" || t.kind === "ROW" || t.kind === "MULTISET";
}

/** Java IcebergSchema.highestFieldId: the greatest top-level field id. */
function highestFieldId(schema: TableSchema): number {
  return schema.fields.reduce((m, f) => Math.max(m, f.id), 0);
}
