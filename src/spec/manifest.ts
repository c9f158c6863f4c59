// Manifest list (ManifestFileMeta), manifest (ManifestEntry + DataFileMeta + SimpleStats)
// and index manifest (IndexManifestEntry with deletion-vector ranges and global index
// meta) as Avro object container files — format reference §4. Writers emit Java master's
// schemas (record names, field order, ["null", T] unions with default null); readers
// match fields by name at every level (older Java versions and pypaimon write fewer or
// differently-named fields), absent nullable fields read as null.

import { PaimonError } from "../error.js";
import { compileSchema, decodeContainer, type AvroSchema } from "./avro.js";
import { EMPTY_ROW_SERIALIZED } from "./binary-row.js";
import { utf8Decoder } from "./utf8.js";

// ---------------------------------------------------------------------------------------------
// Plain-data model
// ---------------------------------------------------------------------------------------------

/** FileKind: 0 = ADD, 1 = DELETE. */
export type FileKind = 0 | 1;
export const FILE_KIND_ADD: FileKind = 0;
export const FILE_KIND_DELETE: FileKind = 1;

/** FileSource: 0 = APPEND, 1 = COMPACT. */
export type FileSource = 0 | 1;
export const FILE_SOURCE_COMPACT: FileSource = 1;

/** Stats of a set of columns: min/max as *serialized* BinaryRows (int32 BE arity + row), null counts per column. */
export interface SimpleStats {
  minValues: Uint8Array;
  maxValues: Uint8Array;
  nullCounts: Array<bigint | null> | null;
}

/** Stats over no column: two serialized empty rows and no null counts. */
export function emptyStats(): SimpleStats {
  return { minValues: EMPTY_ROW_SERIALIZED.slice(), maxValues: EMPTY_ROW_SERIALIZED.slice(), nullCounts: [] };
}

export interface DataFileMeta {
  fileName: string;
  fileSize: bigint;
  rowCount: bigint;
  /** Serialized BinaryRow (int32 BE arity + row) of the first key; the empty row for append tables. */
  minKey: Uint8Array;
  maxKey: Uint8Array;
  keyStats: SimpleStats;
  valueStats: SimpleStats;
  minSequenceNumber: bigint;
  maxSequenceNumber: bigint;
  schemaId: number;
  level: number;
  extraFiles: string[];
  /** `_CREATION_TIME` TIMESTAMP(3) millis (Java: local wall clock encoded as UTC); null if unknown. */
  creationTime: number | null;
  deleteRowCount: bigint | null;
  embeddedIndex: Uint8Array | null;
  fileSource: FileSource | null;
  valueStatsCols: string[] | null;
  externalPath: string | null;
  firstRowId: bigint | null;
  writeCols: string[] | null;
  writeColsSequences: bigint[] | null;
}

export interface ManifestEntry {
  kind: FileKind;
  /** Serialized partition BinaryRow (int32 BE arity + row). */
  partition: Uint8Array;
  bucket: number;
  totalBuckets: number;
  file: DataFileMeta;
}

/** The key of a partition-bucket (serialized partition row and bucket) in maps of per-bucket state. */
export const partitionBucketKey = (partition: Uint8Array, bucket: number): string => `${partition.join(",")}|${bucket}`;

/** `entries` grouped by partition-bucket, in first-seen order. */
export function groupByPartitionBucket(entries: Iterable<ManifestEntry>): Map<string, ManifestEntry[]> {
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    const key = partitionBucketKey(e.partition, e.bucket);
    const g = groups.get(key);
    if (g) g.push(e);
    else groups.set(key, [e]);
  }
  return groups;
}

export interface ManifestFileMeta {
  fileName: string;
  fileSize: bigint;
  numAddedFiles: bigint;
  numDeletedFiles: bigint;
  partitionStats: SimpleStats;
  schemaId: number;
  minBucket: number | null;
  maxBucket: number | null;
  minLevel: number | null;
  maxLevel: number | null;
  minRowId: bigint | null;
  maxRowId: bigint | null;
}

/** One deletion vector inside a DV index file (`_DELETIONS_VECTORS_RANGES` item). */
export interface DeletionVectorMeta {
  dataFileName: string;
  offset: number;
  length: number;
  cardinality: bigint | null;
}

export interface GlobalIndexMeta {
  rowRangeStart: bigint;
  rowRangeEnd: bigint;
  indexFieldId: number;
  extraFieldIds: number[] | null;
  indexMeta: Uint8Array | null;
  sourceMeta: Uint8Array | null;
}

export interface IndexFileMeta {
  indexType: string;
  fileName: string;
  fileSize: bigint;
  rowCount: bigint;
  dvRanges: DeletionVectorMeta[] | null;
  externalPath: string | null;
  globalIndex: GlobalIndexMeta | null;
}

export interface IndexManifestEntry {
  kind: FileKind;
  partition: Uint8Array;
  bucket: number;
  indexFile: IndexFileMeta;
}

/** Fills the optional (nullable, newer-version) fields of a DataFileMeta with null. */
export function makeDataFileMeta(
  f: Pick<DataFileMeta, "fileName" | "fileSize" | "rowCount" | "minSequenceNumber" | "maxSequenceNumber" | "schemaId"> & Partial<DataFileMeta>,
): DataFileMeta {
  return {
    fileName: f.fileName,
    fileSize: f.fileSize,
    rowCount: f.rowCount,
    minKey: f.minKey ?? EMPTY_ROW_SERIALIZED.slice(),
    maxKey: f.maxKey ?? EMPTY_ROW_SERIALIZED.slice(),
    keyStats: f.keyStats ?? emptyStats(),
    valueStats: f.valueStats ?? emptyStats(),
    minSequenceNumber: f.minSequenceNumber,
    maxSequenceNumber: f.maxSequenceNumber,
    schemaId: f.schemaId,
    level: f.level ?? 0,
    extraFiles: f.extraFiles ?? [],
    creationTime: f.creationTime ?? null,
    deleteRowCount: f.deleteRowCount ?? null,
    embeddedIndex: f.embeddedIndex ?? null,
    fileSource: f.fileSource ?? null,
    valueStatsCols: f.valueStatsCols ?? null,
    externalPath: f.externalPath ?? null,
    firstRowId: f.firstRowId ?? null,
    writeCols: f.writeCols ?? null,
    writeColsSequences: f.writeColsSequences ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Avro schemas (Java master, AvroSchemaConverter naming)
// ---------------------------------------------------------------------------------------------

const NS = "org.apache.paimon.avro.generated";
const opt = (name: string, type: unknown): Record<string, unknown> => ({ name, type: ["null", type], default: null });

function statsRecord(name: string): Record<string, unknown> {
  return {
    type: "record",
    name,
    fields: [
      { name: "_MIN_VALUES", type: "bytes" },
      { name: "_MAX_VALUES", type: "bytes" },
      opt("_NULL_COUNTS", { type: "array", items: ["null", "long"] }),
    ],
  };
}

export const MANIFEST_ENTRY_SCHEMA: AvroSchema = {
  type: "record",
  name: "record",
  namespace: NS,
  fields: [
    { name: "_VERSION", type: "int" },
    { name: "_KIND", type: "int" },
    { name: "_PARTITION", type: "bytes" },
    { name: "_BUCKET", type: "int" },
    { name: "_TOTAL_BUCKETS", type: "int" },
    {
      name: "_FILE",
      type: {
        type: "record",
        name: "record__FILE",
        fields: [
          { name: "_FILE_NAME", type: "string" },
          { name: "_FILE_SIZE", type: "long" },
          { name: "_ROW_COUNT", type: "long" },
          { name: "_MIN_KEY", type: "bytes" },
          { name: "_MAX_KEY", type: "bytes" },
          { name: "_KEY_STATS", type: statsRecord("record__FILE__KEY_STATS") },
          { name: "_VALUE_STATS", type: statsRecord("record__FILE__VALUE_STATS") },
          { name: "_MIN_SEQUENCE_NUMBER", type: "long" },
          { name: "_MAX_SEQUENCE_NUMBER", type: "long" },
          { name: "_SCHEMA_ID", type: "long" },
          { name: "_LEVEL", type: "int" },
          { name: "_EXTRA_FILES", type: { type: "array", items: "string" } },
          opt("_CREATION_TIME", { type: "long", logicalType: "timestamp-millis" }),
          opt("_DELETE_ROW_COUNT", "long"),
          opt("_EMBEDDED_FILE_INDEX", "bytes"),
          opt("_FILE_SOURCE", "int"),
          opt("_VALUE_STATS_COLS", { type: "array", items: "string" }),
          opt("_EXTERNAL_PATH", "string"),
          opt("_FIRST_ROW_ID", "long"),
          opt("_WRITE_COLS", { type: "array", items: "string" }),
          opt("_WRITE_COLS_SEQUENCES", { type: "array", items: "long" }),
        ],
      },
    },
  ],
};

export const MANIFEST_FILE_META_SCHEMA: AvroSchema = {
  type: "record",
  name: "record",
  namespace: NS,
  fields: [
    { name: "_VERSION", type: "int" },
    { name: "_FILE_NAME", type: "string" },
    { name: "_FILE_SIZE", type: "long" },
    { name: "_NUM_ADDED_FILES", type: "long" },
    { name: "_NUM_DELETED_FILES", type: "long" },
    { name: "_PARTITION_STATS", type: statsRecord("record__PARTITION_STATS") },
    { name: "_SCHEMA_ID", type: "long" },
    opt("_MIN_BUCKET", "int"),
    opt("_MAX_BUCKET", "int"),
    opt("_MIN_LEVEL", "int"),
    opt("_MAX_LEVEL", "int"),
    opt("_MIN_ROW_ID", "long"),
    opt("_MAX_ROW_ID", "long"),
  ],
};

export const INDEX_MANIFEST_ENTRY_SCHEMA: AvroSchema = {
  type: "record",
  name: "record",
  namespace: NS,
  fields: [
    { name: "_VERSION", type: "int" },
    { name: "_KIND", type: "int" },
    { name: "_PARTITION", type: "bytes" },
    { name: "_BUCKET", type: "int" },
    { name: "_INDEX_TYPE", type: "string" },
    { name: "_FILE_NAME", type: "string" },
    { name: "_FILE_SIZE", type: "long" },
    { name: "_ROW_COUNT", type: "long" },
    opt("_DELETIONS_VECTORS_RANGES", {
      type: "array",
      items: [
        "null",
        {
          type: "record",
          name: "record__DELETIONS_VECTORS_RANGES",
          fields: [
            { name: "f0", type: "string" },
            { name: "f1", type: "int" },
            { name: "f2", type: "int" },
            opt("_CARDINALITY", "long"),
          ],
        },
      ],
    }),
    opt("_EXTERNAL_PATH", "string"),
    opt("_GLOBAL_INDEX", {
      type: "record",
      name: "record__GLOBAL_INDEX",
      fields: [
        { name: "_ROW_RANGE_START", type: "long" },
        { name: "_ROW_RANGE_END", type: "long" },
        { name: "_INDEX_FIELD_ID", type: "int" },
        opt("_EXTRA_FIELD_IDS", { type: "array", items: "int" }),
        opt("_INDEX_META", "bytes"),
        opt("_SOURCE_META", "bytes"),
      ],
    }),
  ],
};

export const MANIFEST_ENTRY_TYPE = compileSchema(MANIFEST_ENTRY_SCHEMA);
export const MANIFEST_FILE_META_TYPE = compileSchema(MANIFEST_FILE_META_SCHEMA);
export const INDEX_MANIFEST_ENTRY_TYPE = compileSchema(INDEX_MANIFEST_ENTRY_SCHEMA);

/** Format identifier written in `_VERSION` of manifest entries and manifest-list records. */
export const MANIFEST_VERSION = 2;
/** Format identifier written in `_VERSION` of index manifest records. */
export const INDEX_MANIFEST_VERSION = 1;

// ---------------------------------------------------------------------------------------------
// Decoding (by field name)
// ---------------------------------------------------------------------------------------------

type Rec = Record<string, unknown>;

class FieldReader {
  constructor(
    private readonly fileName: string,
    private readonly path: string,
    private readonly rec: Rec,
  ) {}

  private fail(field: string, what: string): never {
    throw new PaimonError("CORRUPT_FILE", `${this.fileName}: field ${this.path}${field} ${what}`);
  }

  private raw(field: string, required: boolean): unknown {
    const v = this.rec[field];
    if (v === undefined || v === null) {
      if (required) this.fail(field, "is missing or null");
      return null;
    }
    return v;
  }

  sub(field: string, required: true): FieldReader;
  sub(field: string, required: false): FieldReader | null;
  sub(field: string, required: boolean): FieldReader | null {
    const v = this.raw(field, required);
    if (v === null) return null;
    if (typeof v !== "object" || Array.isArray(v) || v instanceof Uint8Array) this.fail(field, "is not a record");
    return new FieldReader(this.fileName, `${this.path}${field}.`, v as Rec);
  }

  int(field: string, required: true): number;
  int(field: string, required: false): number | null;
  int(field: string, required: boolean): number | null {
    const v = this.raw(field, required);
    if (v === null) return null;
    if (typeof v === "number") return v;
    if (typeof v === "bigint" && v >= -(2n ** 53n) && v <= 2n ** 53n) return Number(v);
    return this.fail(field, `is not an int: ${String(v)}`);
  }

  long(field: string, required: true): bigint;
  long(field: string, required: false): bigint | null;
  long(field: string, required: boolean): bigint | null {
    const v = this.raw(field, required);
    if (v === null) return null;
    if (typeof v === "bigint") return v;
    if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
    return this.fail(field, `is not a long: ${String(v)}`);
  }

  str(field: string, required: true): string;
  str(field: string, required: false): string | null;
  str(field: string, required: boolean): string | null {
    const v = this.raw(field, required);
    if (v === null) return null;
    if (typeof v === "string") return v;
    if (v instanceof Uint8Array) return utf8Decoder.decode(v);
    return this.fail(field, "is not a string");
  }

  bytes(field: string, required: true): Uint8Array;
  bytes(field: string, required: false): Uint8Array | null;
  bytes(field: string, required: boolean): Uint8Array | null {
    const v = this.raw(field, required);
    if (v === null) return null;
    if (v instanceof Uint8Array) return v;
    return this.fail(field, "is not bytes");
  }

  array(field: string, required: true): unknown[];
  array(field: string, required: false): unknown[] | null;
  array(field: string, required: boolean): unknown[] | null {
    const v = this.raw(field, required);
    if (v === null) return null;
    if (Array.isArray(v)) return v;
    return this.fail(field, "is not an array");
  }

  strings(field: string, required: true): string[];
  strings(field: string, required: false): string[] | null;
  strings(field: string, required: boolean): string[] | null {
    const a = this.array(field, required as false);
    if (a === null) return null;
    return a.map((x) => {
      if (typeof x !== "string") this.fail(field, "has a non-string element");
      return x;
    });
  }

  longs(field: string): Array<bigint | null> | null {
    const a = this.array(field, false);
    if (a === null) return null;
    return a.map((x) => (x === null ? null : typeof x === "bigint" ? x : typeof x === "number" ? BigInt(x) : this.fail(field, "has a non-long element")));
  }

  checkVersion(expected: number): void {
    const v = this.int("_VERSION", false);
    if (v !== null && v !== expected)
      throw new PaimonError("CORRUPT_FILE", `${this.fileName}: unsupported format version _VERSION=${v} (expected ${expected}); please recreate the table`);
  }
}

function readStats(r: FieldReader): SimpleStats {
  return {
    minValues: r.bytes("_MIN_VALUES", true),
    maxValues: r.bytes("_MAX_VALUES", true),
    nullCounts: r.longs("_NULL_COUNTS"),
  };
}

function readFile(r: FieldReader): DataFileMeta {
  const creation = r.long("_CREATION_TIME", false);
  return {
    fileName: r.str("_FILE_NAME", true),
    fileSize: r.long("_FILE_SIZE", true),
    rowCount: r.long("_ROW_COUNT", true),
    minKey: r.bytes("_MIN_KEY", true),
    maxKey: r.bytes("_MAX_KEY", true),
    keyStats: readStats(r.sub("_KEY_STATS", true)),
    valueStats: readStats(r.sub("_VALUE_STATS", true)),
    minSequenceNumber: r.long("_MIN_SEQUENCE_NUMBER", true),
    maxSequenceNumber: r.long("_MAX_SEQUENCE_NUMBER", true),
    schemaId: r.int("_SCHEMA_ID", true),
    level: r.int("_LEVEL", true),
    extraFiles: r.strings("_EXTRA_FILES", false) ?? [],
    creationTime: creation === null ? null : Number(creation),
    deleteRowCount: r.long("_DELETE_ROW_COUNT", false),
    embeddedIndex: r.bytes("_EMBEDDED_FILE_INDEX", false),
    fileSource: r.int("_FILE_SOURCE", false) as FileSource | null,
    valueStatsCols: r.strings("_VALUE_STATS_COLS", false),
    externalPath: r.str("_EXTERNAL_PATH", false),
    firstRowId: r.long("_FIRST_ROW_ID", false),
    writeCols: r.strings("_WRITE_COLS", false),
    writeColsSequences: r.longs("_WRITE_COLS_SEQUENCES") as bigint[] | null,
  };
}

function kindOf(r: FieldReader): FileKind {
  const k = r.int("_KIND", true);
  if (k !== 0 && k !== 1) throw new PaimonError("CORRUPT_FILE", `unknown file kind _KIND=${k}`);
  return k;
}

async function records(bytes: Uint8Array, fileName: string): Promise<FieldReader[]> {
  const { records } = await decodeContainer(bytes, fileName);
  return records.map((rec, i) => {
    if (rec === null || typeof rec !== "object" || Array.isArray(rec)) throw new PaimonError("CORRUPT_FILE", `${fileName}: record ${i} is not an Avro record`);
    return new FieldReader(fileName, "", rec as Rec);
  });
}

/** Reads a manifest file. CORRUPT_FILE (naming `fileName`) on bad bytes or missing required fields. */
export async function decodeManifestEntries(bytes: Uint8Array, fileName = "manifest file"): Promise<ManifestEntry[]> {
  return (await records(bytes, fileName)).map((r) => {
    r.checkVersion(MANIFEST_VERSION);
    return {
      kind: kindOf(r),
      partition: r.bytes("_PARTITION", true),
      bucket: r.int("_BUCKET", true),
      totalBuckets: r.int("_TOTAL_BUCKETS", true),
      file: readFile(r.sub("_FILE", true)),
    };
  });
}

/** Reads a manifest list. */
export async function decodeManifestFileMetas(bytes: Uint8Array, fileName = "manifest list"): Promise<ManifestFileMeta[]> {
  return (await records(bytes, fileName)).map((r) => {
    r.checkVersion(MANIFEST_VERSION);
    return {
      fileName: r.str("_FILE_NAME", true),
      fileSize: r.long("_FILE_SIZE", true),
      numAddedFiles: r.long("_NUM_ADDED_FILES", true),
      numDeletedFiles: r.long("_NUM_DELETED_FILES", true),
      partitionStats: readStats(r.sub("_PARTITION_STATS", true)),
      schemaId: r.int("_SCHEMA_ID", true),
      minBucket: r.int("_MIN_BUCKET", false),
      maxBucket: r.int("_MAX_BUCKET", false),
      minLevel: r.int("_MIN_LEVEL", false),
      maxLevel: r.int("_MAX_LEVEL", false),
      minRowId: r.long("_MIN_ROW_ID", false),
      maxRowId: r.long("_MAX_ROW_ID", false),
    };
  });
}

/** Reads an index manifest. */
export async function decodeIndexManifestEntries(bytes: Uint8Array, fileName = "index manifest"): Promise<IndexManifestEntry[]> {
  return (await records(bytes, fileName)).map((r) => {
    r.checkVersion(INDEX_MANIFEST_VERSION);
    const ranges = r.array("_DELETIONS_VECTORS_RANGES", false);
    const g = r.sub("_GLOBAL_INDEX", false);
    return {
      kind: kindOf(r),
      partition: r.bytes("_PARTITION", true),
      bucket: r.int("_BUCKET", true),
      indexFile: {
        indexType: r.str("_INDEX_TYPE", true),
        fileName: r.str("_FILE_NAME", true),
        fileSize: r.long("_FILE_SIZE", true),
        rowCount: r.long("_ROW_COUNT", true),
        dvRanges:
          ranges === null
            ? null
            : ranges.map((x, i) => {
                if (x === null || typeof x !== "object") throw new PaimonError("CORRUPT_FILE", `${fileName}: deletion vector range ${i} is null`);
                const d = new FieldReader(fileName, `_DELETIONS_VECTORS_RANGES[${i}].`, x as Rec);
                return { dataFileName: d.str("f0", true), offset: d.int("f1", true), length: d.int("f2", true), cardinality: d.long("_CARDINALITY", false) };
              }),
        externalPath: r.str("_EXTERNAL_PATH", false),
        globalIndex:
          g === null
            ? null
            : {
                rowRangeStart: g.long("_ROW_RANGE_START", true),
                rowRangeEnd: g.long("_ROW_RANGE_END", true),
                indexFieldId: g.int("_INDEX_FIELD_ID", true),
                extraFieldIds: g.array("_EXTRA_FIELD_IDS", false)?.map((x) => Number(x)) ?? null,
                indexMeta: g.bytes("_INDEX_META", false),
                sourceMeta: g.bytes("_SOURCE_META", false),
              },
      },
    };
  });
}
