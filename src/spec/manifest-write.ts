// Encoding manifests, manifest lists and index manifests (write-only: the query path imports
// src/spec/manifest.ts, which decodes; this module and the Avro writer load on the first commit).
import { avroCodecOf, writeContainer, type AvroCodec } from "./avro-write.js";
import {
  INDEX_MANIFEST_ENTRY_TYPE,
  INDEX_MANIFEST_VERSION,
  MANIFEST_ENTRY_TYPE,
  MANIFEST_FILE_META_TYPE,
  MANIFEST_VERSION,
  type DataFileMeta,
  type IndexManifestEntry,
  type ManifestEntry,
  type ManifestFileMeta,
  type SimpleStats,
} from "./manifest.js";


export interface ManifestWriteOptions {
  /** Paimon `manifest.compression` (default "zstd" → Avro codec "zstandard"); or an Avro codec name. */
  compression?: string | AvroCodec;
  /** zstd level (Paimon `file.compression.zstd-level`, default 1). */
  level?: number;
  /** Fixed 16-byte Avro sync marker (tests / reproducible output). */
  syncMarker?: Uint8Array;
}

function statsToAvro(s: SimpleStats): Record<string, unknown> {
  return { _MIN_VALUES: s.minValues, _MAX_VALUES: s.maxValues, _NULL_COUNTS: s.nullCounts };
}

function fileToAvro(f: DataFileMeta): Record<string, unknown> {
  return {
    _FILE_NAME: f.fileName,
    _FILE_SIZE: f.fileSize,
    _ROW_COUNT: f.rowCount,
    _MIN_KEY: f.minKey,
    _MAX_KEY: f.maxKey,
    _KEY_STATS: statsToAvro(f.keyStats),
    _VALUE_STATS: statsToAvro(f.valueStats),
    _MIN_SEQUENCE_NUMBER: f.minSequenceNumber,
    _MAX_SEQUENCE_NUMBER: f.maxSequenceNumber,
    _SCHEMA_ID: f.schemaId,
    _LEVEL: f.level,
    _EXTRA_FILES: f.extraFiles,
    _CREATION_TIME: f.creationTime ?? null,
    _DELETE_ROW_COUNT: f.deleteRowCount ?? null,
    _EMBEDDED_FILE_INDEX: f.embeddedIndex ?? null,
    _FILE_SOURCE: f.fileSource ?? null,
    _VALUE_STATS_COLS: f.valueStatsCols ?? null,
    _EXTERNAL_PATH: f.externalPath ?? null,
    _FIRST_ROW_ID: f.firstRowId ?? null,
    _WRITE_COLS: f.writeCols ?? null,
    _WRITE_COLS_SEQUENCES: f.writeColsSequences ?? null,
  };
}

function writeOpts(o: ManifestWriteOptions): { codec: AvroCodec; level?: number; syncMarker?: Uint8Array } {
  const out: { codec: AvroCodec; level?: number; syncMarker?: Uint8Array } = { codec: avroCodecOf(o.compression) };
  if (o.level !== undefined) out.level = o.level;
  if (o.syncMarker !== undefined) out.syncMarker = o.syncMarker;
  return out;
}

/** A manifest file (`manifest-*`) holding `entries`. */
export function encodeManifestEntries(entries: readonly ManifestEntry[], options: ManifestWriteOptions = {}): Promise<Uint8Array> {
  const records = entries.map((e) => ({
    _VERSION: MANIFEST_VERSION,
    _KIND: e.kind,
    _PARTITION: e.partition,
    _BUCKET: e.bucket,
    _TOTAL_BUCKETS: e.totalBuckets,
    _FILE: fileToAvro(e.file),
  }));
  return writeContainer(MANIFEST_ENTRY_TYPE, records, writeOpts(options));
}

/** A manifest list (`manifest-list-*`) holding `metas`. */
export function encodeManifestFileMetas(metas: readonly ManifestFileMeta[], options: ManifestWriteOptions = {}): Promise<Uint8Array> {
  const records = metas.map((m) => ({
    _VERSION: MANIFEST_VERSION,
    _FILE_NAME: m.fileName,
    _FILE_SIZE: m.fileSize,
    _NUM_ADDED_FILES: m.numAddedFiles,
    _NUM_DELETED_FILES: m.numDeletedFiles,
    _PARTITION_STATS: statsToAvro(m.partitionStats),
    _SCHEMA_ID: m.schemaId,
    _MIN_BUCKET: m.minBucket ?? null,
    _MAX_BUCKET: m.maxBucket ?? null,
    _MIN_LEVEL: m.minLevel ?? null,
    _MAX_LEVEL: m.maxLevel ?? null,
    _MIN_ROW_ID: m.minRowId ?? null,
    _MAX_ROW_ID: m.maxRowId ?? null,
  }));
  return writeContainer(MANIFEST_FILE_META_TYPE, records, writeOpts(options));
}

/** An index manifest (`index-manifest-*`) holding `entries`. */
export function encodeIndexManifestEntries(entries: readonly IndexManifestEntry[], options: ManifestWriteOptions = {}): Promise<Uint8Array> {
  const records = entries.map((e) => {
    const f = e.indexFile;
    return {
      _VERSION: INDEX_MANIFEST_VERSION,
      _KIND: e.kind,
      _PARTITION: e.partition,
      _BUCKET: e.bucket,
      _INDEX_TYPE: f.indexType,
      _FILE_NAME: f.fileName,
      _FILE_SIZE: f.fileSize,
      _ROW_COUNT: f.rowCount,
      _DELETIONS_VECTORS_RANGES:
        f.dvRanges == null ? null : f.dvRanges.map((d) => ({ f0: d.dataFileName, f1: d.offset, f2: d.length, _CARDINALITY: d.cardinality ?? null })),
      _EXTERNAL_PATH: f.externalPath ?? null,
      _GLOBAL_INDEX:
        f.globalIndex == null
          ? null
          : {
              _ROW_RANGE_START: f.globalIndex.rowRangeStart,
              _ROW_RANGE_END: f.globalIndex.rowRangeEnd,
              _INDEX_FIELD_ID: f.globalIndex.indexFieldId,
              _EXTRA_FIELD_IDS: f.globalIndex.extraFieldIds ?? null,
              _INDEX_META: f.globalIndex.indexMeta ?? null,
              _SOURCE_META: f.globalIndex.sourceMeta ?? null,
            },
    };
  });
  return writeContainer(INDEX_MANIFEST_ENTRY_TYPE, records, writeOpts(options));
}
