// CommitMessage as plain data and Java's `CommitMessageSerializer` binary layout
// (format reference §11). The body carries no version number: the enclosing container
// (Flink's SimpleVersionedSerialization, ManifestCommittableSerializer, …) transports it,
// so `deserializeCommitMessage` takes the version explicitly.
//
// Java sources replicated: paimon-core `table/sink/CommitMessageSerializer.java` (all
// `deserialize` branches), `io/DataFileMeta*Serializer.java` (row schema per version),
// `index/IndexFileMetaSerializer.java` + `IndexFileMetaV{1,2,3}Deserializer`,
// `stats/SimpleStats.toRow/fromRow`, `utils/ObjectSerializer` (int32 size + BinaryRow bytes),
// `utils/SerializationUtils.serializeBinaryRow`; the v14 trailer (`checkFromSnapshot`) from
// pypaimon `write/commit_message_serializer.py` and the Java-captured goldens of §11.3.
//
// Layout (all framing integers big-endian, rows little-endian BinaryRows):
//   int32 4+rowSize, int32 partition arity, partition row bytes
//   int32 bucket
//   v >= 7: bool hasTotalBuckets [int32 totalBuckets]
//   v >= 10: newFiles, deletedFiles, changelogFiles, newIndexFiles, deletedIndexFiles,
//            compactBefore, compactAfter, compactChangelogFiles, compactNewIndexFiles,
//            compactDeletedIndexFiles
//   v <  10: newFiles, deletedFiles, changelogFiles, compactBefore, compactAfter,
//            compactChangelogFiles, newIndexFiles, (v > 2) deletedIndexFiles — index files go to
//            the compact increment when it is non-empty, else to the data increment
//   v >= 14: bool hasCheckFromSnapshot [int64 checkFromSnapshot]
//   list<T> = int32 count + per element int32 rowSize + BinaryRow bytes of T's row type.

import { PaimonError } from "../error.js";
import { ByteReader, ByteWriter } from "./data-stream.js";
import { deserializeBinaryRow, fromBinaryRow, toBinaryRow } from "./binary-row.js";
import type { DataFileMeta, DeletionVectorMeta, FileSource, GlobalIndexMeta, IndexFileMeta, SimpleStats } from "./manifest.js";
import { parseDataType, type DataType } from "./types.js";

/** The version `serializeCommitMessage` writes by default (Java captured goldens are v14). */
export const COMMIT_MESSAGE_VERSION = 14;
/** Oldest body version `deserializeCommitMessage` reads (Java reads the same range). */
export const COMMIT_MESSAGE_MIN_VERSION = 1;
/** Oldest version `serializeCommitMessage` can write (the v10+ body layout). */
export const COMMIT_MESSAGE_MIN_WRITE_VERSION = 10;

// ---------------------------------------------------------------------------------------------
// Plain-data model (Java CommitMessageImpl, DataIncrement, CompactIncrement)
// ---------------------------------------------------------------------------------------------

/** Files written by a writer in one checkpoint (Java `DataIncrement`). */
export interface DataIncrement {
  newFiles: DataFileMeta[];
  deletedFiles: DataFileMeta[];
  changelogFiles: DataFileMeta[];
  newIndexFiles: IndexFileMeta[];
  deletedIndexFiles: IndexFileMeta[];
}

/** Files changed by compaction (Java `CompactIncrement`). */
export interface CompactIncrement {
  compactBefore: DataFileMeta[];
  compactAfter: DataFileMeta[];
  changelogFiles: DataFileMeta[];
  newIndexFiles: IndexFileMeta[];
  deletedIndexFiles: IndexFileMeta[];
}

/**
 * One partition-bucket's changes (Java `CommitMessageImpl`) as plain data. `partition` is the
 * *serialized* partition BinaryRow (int32 BE arity + row bytes), as in `ManifestEntry`.
 */
export interface CommitMessageData {
  partition: Uint8Array;
  bucket: number;
  totalBuckets: number | null;
  dataIncrement: DataIncrement;
  compactIncrement: CompactIncrement;
  /** v14: snapshot from which the committer checks conflicts; null = absent. Dropped by v <= 13. */
  checkFromSnapshot: bigint | null;
}

export function emptyDataIncrement(): DataIncrement {
  return { newFiles: [], deletedFiles: [], changelogFiles: [], newIndexFiles: [], deletedIndexFiles: [] };
}

export function emptyCompactIncrement(): CompactIncrement {
  return { compactBefore: [], compactAfter: [], changelogFiles: [], newIndexFiles: [], deletedIndexFiles: [] };
}

/** Java `CompactIncrement.isEmpty()`. */
export function isCompactIncrementEmpty(c: CompactIncrement): boolean {
  return (
    c.compactBefore.length === 0 &&
    c.compactAfter.length === 0 &&
    c.changelogFiles.length === 0 &&
    c.newIndexFiles.length === 0 &&
    c.deletedIndexFiles.length === 0
  );
}

/** Java `CommitMessageImpl.isEmpty()`: no file and no index change at all. */
export function isCommitMessageEmpty(m: CommitMessageData): boolean {
  const d = m.dataIncrement;
  return (
    d.newFiles.length === 0 &&
    d.deletedFiles.length === 0 &&
    d.changelogFiles.length === 0 &&
    d.newIndexFiles.length === 0 &&
    d.deletedIndexFiles.length === 0 &&
    isCompactIncrementEmpty(m.compactIncrement)
  );
}

/** A message with the given fields; omitted increments are empty, `totalBuckets`/`checkFromSnapshot` null. */
export function makeCommitMessage(
  m: Pick<CommitMessageData, "partition" | "bucket"> & {
    totalBuckets?: number | null;
    dataIncrement?: Partial<DataIncrement>;
    compactIncrement?: Partial<CompactIncrement>;
    checkFromSnapshot?: bigint | number | null;
  },
): CommitMessageData {
  return {
    partition: m.partition,
    bucket: m.bucket,
    totalBuckets: m.totalBuckets ?? null,
    dataIncrement: { ...emptyDataIncrement(), ...m.dataIncrement },
    compactIncrement: { ...emptyCompactIncrement(), ...m.compactIncrement },
    checkFromSnapshot: m.checkFromSnapshot == null ? null : BigInt(m.checkFromSnapshot),
  };
}

// ---------------------------------------------------------------------------------------------
// Row schemas per version
// ---------------------------------------------------------------------------------------------

const T = (s: string): DataType => parseDataType(s);

const SIMPLE_STATS_TYPE = T("ROW<_MIN_VALUES BYTES NOT NULL, _MAX_VALUES BYTES NOT NULL, _NULL_COUNTS ARRAY<BIGINT>>");

/** Java `DataFileMeta.SCHEMA` (master, 21 fields); older versions use a prefix. */
const DATA_FILE_META_TYPES: readonly DataType[] = [
  T("STRING NOT NULL"), // 0 _FILE_NAME
  T("BIGINT NOT NULL"), // 1 _FILE_SIZE
  T("BIGINT NOT NULL"), // 2 _ROW_COUNT
  T("BYTES NOT NULL"), // 3 _MIN_KEY (serialized BinaryRow)
  T("BYTES NOT NULL"), // 4 _MAX_KEY
  SIMPLE_STATS_TYPE, // 5 _KEY_STATS
  SIMPLE_STATS_TYPE, // 6 _VALUE_STATS
  T("BIGINT NOT NULL"), // 7 _MIN_SEQUENCE_NUMBER
  T("BIGINT NOT NULL"), // 8 _MAX_SEQUENCE_NUMBER
  T("BIGINT NOT NULL"), // 9 _SCHEMA_ID
  T("INT NOT NULL"), // 10 _LEVEL
  T("ARRAY<STRING NOT NULL> NOT NULL"), // 11 _EXTRA_FILES
  T("TIMESTAMP(3)"), // 12 _CREATION_TIME
  T("BIGINT"), // 13 _DELETE_ROW_COUNT
  T("BYTES"), // 14 _EMBEDDED_FILE_INDEX
  T("TINYINT"), // 15 _FILE_SOURCE
  T("ARRAY<STRING NOT NULL>"), // 16 _VALUE_STATS_COLS
  T("STRING"), // 17 _EXTERNAL_PATH
  T("BIGINT"), // 18 _FIRST_ROW_ID
  T("ARRAY<STRING NOT NULL>"), // 19 _WRITE_COLS
  T("ARRAY<BIGINT NOT NULL>"), // 20 _WRITE_COLS_SEQUENCES
];

/**
 * Number of DataFileMeta fields in a body of `version` (§11.1): v13+ 21, v9–v12 20,
 * v8 19 (FirstRowIdLegacy; a trailing `_WRITE_COLS` slot, if written, is ignored), v6–v7 18,
 * v4–v5 17, v3 16, <= v2 15. Where sources disagree on a version (v8, v12) the smaller arity is
 * used for reading: the extra trailing slot of a wider row is then simply not read.
 */
export function dataFileMetaArity(version: number): number {
  if (version >= 13) return 21;
  if (version >= 9) return 20;
  if (version === 8) return 19;
  if (version >= 6) return 18;
  if (version >= 4) return 17;
  if (version === 3) return 16;
  return 15;
}

interface IndexLayout {
  /** Top-level IndexFileMeta fields: 5 (≤ v8), 6 (v9–v10) or 7 (v11+). */
  arity: number;
  /** Fields of a deletion-vector range row: 3 (≤ v4) or 4 (with `_CARDINALITY`). */
  dvArity: number;
  /** Fields of the global index row: 5 (v11, no `_SOURCE_META`) or 6 (v12+). */
  globalArity: number;
}

function indexLayout(version: number): IndexLayout {
  if (version >= 12) return { arity: 7, dvArity: 4, globalArity: 6 };
  if (version === 11) return { arity: 7, dvArity: 4, globalArity: 5 };
  if (version >= 9) return { arity: 6, dvArity: 4, globalArity: 0 };
  if (version >= 5) return { arity: 5, dvArity: 4, globalArity: 0 };
  return { arity: 5, dvArity: 3, globalArity: 0 };
}

const DV_FIELDS = ["f0 STRING NOT NULL", "f1 INT NOT NULL", "f2 INT NOT NULL", "_CARDINALITY BIGINT"];
const GLOBAL_FIELDS = [
  "_ROW_RANGE_START BIGINT NOT NULL",
  "_ROW_RANGE_END BIGINT NOT NULL",
  "_INDEX_FIELD_ID INT NOT NULL",
  "_EXTRA_FIELD_IDS ARRAY<INT NOT NULL>",
  "_INDEX_META BYTES",
  "_SOURCE_META BYTES",
];

const indexTypesCache = new Map<string, DataType[]>();

/** IndexFileMeta row types for a layout (v12+: the types of `IndexFileMetaSerializer`). */
function indexFileMetaTypes(l: IndexLayout): DataType[] {
  const key = `${l.arity}/${l.dvArity}/${l.globalArity}`;
  let types = indexTypesCache.get(key);
  if (!types) {
    types = [
      T("STRING NOT NULL"), // _INDEX_TYPE
      T("STRING NOT NULL"), // _FILE_NAME
      T("BIGINT NOT NULL"), // _FILE_SIZE
      T("BIGINT NOT NULL"), // _ROW_COUNT
      T(`ARRAY<ROW<${DV_FIELDS.slice(0, l.dvArity).join(", ")}>>`), // _DELETIONS_VECTORS_RANGES
    ];
    if (l.arity >= 6) types.push(T("STRING")); // _EXTERNAL_PATH
    if (l.arity >= 7) types.push(T(`ROW<${GLOBAL_FIELDS.slice(0, l.globalArity).join(", ")}>`)); // _GLOBAL_INDEX
    indexTypesCache.set(key, types);
  }
  return types;
}

// ---------------------------------------------------------------------------------------------
// Element rows
// ---------------------------------------------------------------------------------------------

function corrupt(message: string, cause?: unknown): PaimonError {
  return new PaimonError("CORRUPT_FILE", message, cause === undefined ? undefined : { cause });
}

function statsRow(s: SimpleStats): unknown[] {
  return [s.minValues, s.maxValues, s.nullCounts];
}

/** The BinaryRow of `f` as `DataFileMetaSerializer.toRow` writes it (first `arity` fields). */
export function dataFileMetaToRow(f: DataFileMeta, version = COMMIT_MESSAGE_VERSION): Uint8Array {
  const arity = dataFileMetaArity(version);
  const values: unknown[] = [
    f.fileName,
    f.fileSize,
    f.rowCount,
    f.minKey,
    f.maxKey,
    statsRow(f.keyStats),
    statsRow(f.valueStats),
    f.minSequenceNumber,
    f.maxSequenceNumber,
    BigInt(f.schemaId),
    f.level,
    f.extraFiles,
    f.creationTime,
    f.deleteRowCount,
    f.embeddedIndex,
    f.fileSource,
    f.valueStatsCols,
    f.externalPath,
    f.firstRowId,
    f.writeCols,
    f.writeColsSequences,
  ];
  return toBinaryRow(values.slice(0, arity), DATA_FILE_META_TYPES.slice(0, arity));
}

function req<T>(v: T | null | undefined, what: string): T {
  if (v === null || v === undefined) throw corrupt(`${what} is null`);
  return v;
}

function readStats(v: unknown, what: string): SimpleStats {
  const [min, max, nullCounts] = req(v as unknown[] | null, what);
  return {
    minValues: checkSerializedRow(req(min as Uint8Array | null, `${what}._MIN_VALUES`), `${what}._MIN_VALUES`),
    maxValues: checkSerializedRow(req(max as Uint8Array | null, `${what}._MAX_VALUES`), `${what}._MAX_VALUES`),
    nullCounts: (nullCounts as Array<bigint | null> | null) ?? null,
  };
}

function checkSerializedRow(bytes: Uint8Array, what: string): Uint8Array {
  try {
    deserializeBinaryRow(bytes);
  } catch (e) {
    throw corrupt(`${what} is not a serialized BinaryRow: ${(e as Error).message}`, e);
  }
  return bytes;
}

/** Decodes a DataFileMeta BinaryRow of a body of `version`. */
export function dataFileMetaFromRow(row: Uint8Array, version = COMMIT_MESSAGE_VERSION): DataFileMeta {
  const arity = dataFileMetaArity(version);
  const v = fromBinaryRow(row, DATA_FILE_META_TYPES.slice(0, arity));
  const at = (i: number): unknown => (i < arity ? v[i] : null);
  const fileSource = at(15) as number | null;
  if (fileSource !== null && fileSource !== 0 && fileSource !== 1) throw corrupt(`unknown _FILE_SOURCE ${fileSource}`);
  const creation = at(12) as { millis: bigint } | null;
  return {
    fileName: req(at(0) as string | null, "_FILE_NAME"),
    fileSize: req(at(1) as bigint | null, "_FILE_SIZE"),
    rowCount: req(at(2) as bigint | null, "_ROW_COUNT"),
    minKey: checkSerializedRow(req(at(3) as Uint8Array | null, "_MIN_KEY"), "_MIN_KEY"),
    maxKey: checkSerializedRow(req(at(4) as Uint8Array | null, "_MAX_KEY"), "_MAX_KEY"),
    keyStats: readStats(at(5), "_KEY_STATS"),
    valueStats: readStats(at(6), "_VALUE_STATS"),
    minSequenceNumber: req(at(7) as bigint | null, "_MIN_SEQUENCE_NUMBER"),
    maxSequenceNumber: req(at(8) as bigint | null, "_MAX_SEQUENCE_NUMBER"),
    schemaId: Number(req(at(9) as bigint | null, "_SCHEMA_ID")),
    level: req(at(10) as number | null, "_LEVEL"),
    extraFiles: (at(11) as string[] | null) ?? [],
    creationTime: creation === null ? null : Number(creation.millis),
    deleteRowCount: at(13) as bigint | null,
    embeddedIndex: at(14) as Uint8Array | null,
    fileSource: fileSource as FileSource | null,
    valueStatsCols: at(16) as string[] | null,
    externalPath: at(17) as string | null,
    firstRowId: at(18) as bigint | null,
    writeCols: at(19) as string[] | null,
    writeColsSequences: at(20) as bigint[] | null,
  };
}

/** The BinaryRow of `m` as `IndexFileMetaSerializer.toRow` writes it (layout of `version`). */
export function indexFileMetaToRow(m: IndexFileMeta, version = COMMIT_MESSAGE_VERSION): Uint8Array {
  const l = indexLayout(version);
  const values: unknown[] = [
    m.indexType,
    m.fileName,
    m.fileSize,
    m.rowCount,
    m.dvRanges == null ? null : m.dvRanges.map((d) => [d.dataFileName, d.offset, d.length, d.cardinality].slice(0, l.dvArity)),
  ];
  if (l.arity >= 6) values.push(m.externalPath);
  if (l.arity >= 7) {
    const g = m.globalIndex;
    values.push(
      g == null ? null : [g.rowRangeStart, g.rowRangeEnd, g.indexFieldId, g.extraFieldIds, g.indexMeta, g.sourceMeta].slice(0, l.globalArity),
    );
  }
  return toBinaryRow(values, indexFileMetaTypes(l));
}

/** Decodes an IndexFileMeta BinaryRow of a body of `version`. */
export function indexFileMetaFromRow(row: Uint8Array, version = COMMIT_MESSAGE_VERSION): IndexFileMeta {
  const l = indexLayout(version);
  const v = fromBinaryRow(row, indexFileMetaTypes(l));
  const ranges = v[4] as unknown[][] | null;
  const dvRanges: DeletionVectorMeta[] | null =
    ranges === null
      ? null
      : ranges.map((r, i) => {
          const d = req(r, `_DELETIONS_VECTORS_RANGES[${i}]`);
          return {
            dataFileName: req(d[0] as string | null, `_DELETIONS_VECTORS_RANGES[${i}].f0`),
            offset: req(d[1] as number | null, `_DELETIONS_VECTORS_RANGES[${i}].f1`),
            length: req(d[2] as number | null, `_DELETIONS_VECTORS_RANGES[${i}].f2`),
            cardinality: l.dvArity >= 4 ? (d[3] as bigint | null) : null,
          };
        });
  let globalIndex: GlobalIndexMeta | null = null;
  const g = l.arity >= 7 ? (v[6] as unknown[] | null) : null;
  if (g !== null) {
    globalIndex = {
      rowRangeStart: req(g[0] as bigint | null, "_GLOBAL_INDEX._ROW_RANGE_START"),
      rowRangeEnd: req(g[1] as bigint | null, "_GLOBAL_INDEX._ROW_RANGE_END"),
      indexFieldId: req(g[2] as number | null, "_GLOBAL_INDEX._INDEX_FIELD_ID"),
      extraFieldIds: (g[3] as number[] | null) ?? null,
      indexMeta: (g[4] as Uint8Array | null) ?? null,
      sourceMeta: l.globalArity >= 6 ? ((g[5] as Uint8Array | null) ?? null) : null,
    };
  }
  return {
    indexType: req(v[0] as string | null, "_INDEX_TYPE"),
    fileName: req(v[1] as string | null, "_FILE_NAME"),
    fileSize: req(v[2] as bigint | null, "_FILE_SIZE"),
    rowCount: req(v[3] as bigint | null, "_ROW_COUNT"),
    dvRanges,
    externalPath: l.arity >= 6 ? ((v[5] as string | null) ?? null) : null,
    globalIndex,
  };
}

// ---------------------------------------------------------------------------------------------
// Byte streams
// ---------------------------------------------------------------------------------------------

/** Reads a commit message body: errors also say which field was being read and where. */
class In extends ByteReader {
  /** What is being read, for error messages. */
  what = "";

  constructor(
    bytes: Uint8Array,
    private readonly context: string,
  ) {
    super(bytes, context);
  }

  override corrupt(message: string, cause?: unknown): PaimonError {
    return corrupt(`${this.context}: ${message}${this.what ? ` (reading ${this.what})` : ""} at byte ${this.pos} of ${this.bytes.length}`, cause);
  }
  bool(): boolean {
    const b = this.u8();
    if (b > 1) {
      this.pos--;
      throw this.corrupt(`invalid boolean byte ${b}`);
    }
    return b === 1;
  }
  /** A copy of the next `n` bytes (the rows outlive the input). */
  take(n: number): Uint8Array {
    if (n < 0) throw this.corrupt(`negative length ${n}`);
    return this.bytesOf(n).slice();
  }
  count(): number {
    const n = this.i32();
    if (n < 0) throw this.corrupt(`negative list size ${n}`);
    // every element needs at least its 4-byte size prefix
    if (n > (this.bytes.length - this.pos) / 4) throw this.corrupt(`list size ${n} exceeds the remaining bytes`);
    return n;
  }
  end(): void {
    if (this.pos !== this.bytes.length) throw this.corrupt(`${this.bytes.length - this.pos} trailing bytes`);
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

function checkVersion(version: number, min: number): void {
  if (!Number.isInteger(version) || version < min || version > COMMIT_MESSAGE_VERSION)
    throw new PaimonError("UNSUPPORTED", `CommitMessage serializer version ${version} is not supported (supported: ${min}..${COMMIT_MESSAGE_VERSION})`);
}

function writeBody(out: ByteWriter, m: CommitMessageData, version: number): void {
  try {
    deserializeBinaryRow(m.partition);
  } catch (e) {
    throw new PaimonError("INVALID_ARGUMENT", `CommitMessage partition is not a serialized BinaryRow: ${(e as Error).message}`, { cause: e });
  }
  out.i32(m.partition.length);
  out.bytes(m.partition);
  out.i32(m.bucket);
  out.bool(m.totalBuckets !== null);
  if (m.totalBuckets !== null) out.i32(m.totalBuckets);
  const files = (list: readonly DataFileMeta[]): void => {
    out.i32(list.length);
    for (const f of list) {
      const row = dataFileMetaToRow(f, version);
      out.i32(row.length);
      out.bytes(row);
    }
  };
  const indexes = (list: readonly IndexFileMeta[]): void => {
    out.i32(list.length);
    for (const f of list) {
      const row = indexFileMetaToRow(f, version);
      out.i32(row.length);
      out.bytes(row);
    }
  };
  const d = m.dataIncrement;
  const c = m.compactIncrement;
  files(d.newFiles);
  files(d.deletedFiles);
  files(d.changelogFiles);
  indexes(d.newIndexFiles);
  indexes(d.deletedIndexFiles);
  files(c.compactBefore);
  files(c.compactAfter);
  files(c.changelogFiles);
  indexes(c.newIndexFiles);
  indexes(c.deletedIndexFiles);
  if (version >= 14) {
    out.bool(m.checkFromSnapshot !== null);
    if (m.checkFromSnapshot !== null) out.i64(m.checkFromSnapshot);
  }
}

function readBody(inp: In, version: number): CommitMessageData {
  const decodeRow = <R>(what: string, decode: (row: Uint8Array) => R): R => {
    inp.what = what;
    const row = inp.take(inp.i32());
    try {
      return decode(row);
    } catch (e) {
      throw inp.corrupt(`bad row: ${(e as Error).message}`, e);
    }
  };
  const files = (what: string): DataFileMeta[] => {
    inp.what = what;
    const n = inp.count();
    const out: DataFileMeta[] = [];
    for (let i = 0; i < n; i++) out.push(decodeRow(`${what}[${i}]`, (r) => dataFileMetaFromRow(r, version)));
    return out;
  };
  const indexes = (what: string): IndexFileMeta[] => {
    inp.what = what;
    const n = inp.count();
    const out: IndexFileMeta[] = [];
    for (let i = 0; i < n; i++) out.push(decodeRow(`${what}[${i}]`, (r) => indexFileMetaFromRow(r, version)));
    return out;
  };

  inp.what = "partition";
  const partition = inp.take(inp.i32());
  try {
    checkSerializedRow(partition, "partition");
  } catch (e) {
    throw inp.corrupt((e as Error).message, e);
  }
  inp.what = "bucket";
  const bucket = inp.i32();
  let totalBuckets: number | null = null;
  if (version >= 7) {
    inp.what = "totalBuckets";
    if (inp.bool()) totalBuckets = inp.i32();
  }
  const m: CommitMessageData = {
    partition,
    bucket,
    totalBuckets,
    dataIncrement: emptyDataIncrement(),
    compactIncrement: emptyCompactIncrement(),
    checkFromSnapshot: null,
  };
  const d = m.dataIncrement;
  const c = m.compactIncrement;
  if (version >= 10) {
    d.newFiles = files("newFiles");
    d.deletedFiles = files("deletedFiles");
    d.changelogFiles = files("changelogFiles");
    d.newIndexFiles = indexes("newIndexFiles");
    d.deletedIndexFiles = indexes("deletedIndexFiles");
    c.compactBefore = files("compactBefore");
    c.compactAfter = files("compactAfter");
    c.changelogFiles = files("compactChangelogFiles");
    c.newIndexFiles = indexes("compactNewIndexFiles");
    c.deletedIndexFiles = indexes("compactDeletedIndexFiles");
  } else {
    d.newFiles = files("newFiles");
    d.deletedFiles = files("deletedFiles");
    d.changelogFiles = files("changelogFiles");
    c.compactBefore = files("compactBefore");
    c.compactAfter = files("compactAfter");
    c.changelogFiles = files("compactChangelogFiles");
    const newIndex = indexes("indexFiles");
    if (isCompactIncrementEmpty(c)) d.newIndexFiles = newIndex;
    else c.newIndexFiles = newIndex;
    if (version > 2) {
      const deletedIndex = indexes("deletedIndexFiles");
      if (isCompactIncrementEmpty(c)) d.deletedIndexFiles = deletedIndex;
      else c.deletedIndexFiles = deletedIndex;
    }
  }
  if (version >= 14) {
    inp.what = "checkFromSnapshot";
    if (inp.bool()) m.checkFromSnapshot = inp.i64();
  }
  inp.what = "";
  return m;
}

/** Java `CommitMessageSerializer.serialize` at `version` (default and Java-golden-verified: 14; 10–13 per §11.1). */
export function serializeCommitMessage(message: CommitMessageData, version = COMMIT_MESSAGE_VERSION): Uint8Array {
  checkVersion(version, COMMIT_MESSAGE_MIN_WRITE_VERSION);
  const out = new ByteWriter();
  writeBody(out, message, version);
  return out.toBytes();
}

/** Java `CommitMessageSerializer.serializeList`: int32 count + the bodies. */
export function serializeCommitMessageList(messages: readonly CommitMessageData[], version = COMMIT_MESSAGE_VERSION): Uint8Array {
  checkVersion(version, COMMIT_MESSAGE_MIN_WRITE_VERSION);
  const out = new ByteWriter();
  out.i32(messages.length);
  for (const m of messages) writeBody(out, m, version);
  return out.toBytes();
}

/**
 * Java `CommitMessageSerializer.deserialize(version, bytes)` for versions 1–14. The bytes must
 * hold exactly one body (trailing bytes are CORRUPT_FILE: they usually mean a wrong version).
 */
export function deserializeCommitMessage(version: number, bytes: Uint8Array): CommitMessageData {
  checkVersion(version, COMMIT_MESSAGE_MIN_VERSION);
  const inp = new In(bytes, `CommitMessage (serializer version ${version})`);
  const m = readBody(inp, version);
  inp.end();
  return m;
}

/** Java `CommitMessageSerializer.deserializeList`: int32 count + bodies; nothing may follow. */
export function deserializeCommitMessageList(version: number, bytes: Uint8Array): CommitMessageData[] {
  checkVersion(version, COMMIT_MESSAGE_MIN_VERSION);
  const inp = new In(bytes, `CommitMessage list (serializer version ${version})`);
  inp.what = "list size";
  const n = inp.count();
  const out: CommitMessageData[] = [];
  for (let i = 0; i < n; i++) out.push(readBody(inp, version));
  inp.end();
  return out;
}

/** The serializer as one object, mirroring Java's `VersionedSerializer<CommitMessage>`. */
export const CommitMessageSerializer = {
  currentVersion: (): number => COMMIT_MESSAGE_VERSION,
  serialize: serializeCommitMessage,
  serializeList: serializeCommitMessageList,
  deserialize: deserializeCommitMessage,
  deserializeList: deserializeCommitMessageList,
} as const;
