// Small-file compaction of append tables (Java `BucketedAppendCompactManager` /
// `AppendCompactTask`): consecutive (by sequence number) files of a bucket are rewritten into
// files of the target size. Full compaction rewrites every file of the bucket; otherwise the
// earliest run of at least `compaction.min.file-num` consecutive small files is rewritten.
// Output files keep the inputs' sequence range (row order of bucketed tables is preserved)
// and are marked `fileSource = COMPACT`. In deletion-vector tables the inputs are read without
// their deleted rows, files with deletion vectors are always worth rewriting, and the vectors of
// the rewritten files leave the bucket's index in the same COMPACT snapshot (Java
// `BucketedAppendCompactManager` with `BucketedDvMaintainer`, `AppendCompactTask` with
// `AppendDeleteFileMaintainer`).
import { checkDataFileFormat, isWholeDataFile, readWholeDataFile, timestampLtzLegacy } from "../format/file-formats.js";
import { CommitMessage } from "../commit/commit-message.js";
import { readParquetBatches } from "../format/parquet-reader.js";
import { fileIOSource } from "../format/source.js";
import { FileSchemas } from "../read/kv-file-reader.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import type { DataFileMeta, ManifestEntry } from "../spec/manifest.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { checkDeduplicateTable } from "../table/dedup-check.js";
import { AppendBucketWriter } from "./append-writer.js";
import { BucketDeletionVectors, deletionVectorIndexFiles } from "./deletion-vector-index.js";
import { keptPositions } from "../read/kv-file-reader.js";
import { takeRows } from "../arrow/take.js";
import { compactTargets } from "./pk-write.js";
import { makeData, RecordBatch, Struct } from "apache-arrow";
import { withRowTrackingFields } from "../commit/row-tracking.js";

/**
 * Files to rewrite: all (full), or the first run of >= minFiles consecutive small files. A file
 * with deleted rows (`hasDeletions`) counts as small and makes a full compaction worthwhile.
 */
export function pickAppendCompaction(
  files: readonly DataFileMeta[],
  targetFileSize: number,
  full: boolean,
  minFiles: number,
  maxFiles: number,
  hasDeletions: (file: DataFileMeta) => boolean = () => false,
): DataFileMeta[] {
  const sorted = [...files].sort((a, b) => (a.minSequenceNumber < b.minSequenceNumber ? -1 : a.minSequenceNumber > b.minSequenceNumber ? 1 : 0));
  if (full) return sorted.length > 1 || sorted.some((f) => (f.deleteRowCount ?? 0n) > 0n || hasDeletions(f)) ? sorted : [];
  let run: DataFileMeta[] = [];
  for (const f of sorted) {
    if (Number(f.fileSize) < targetFileSize || hasDeletions(f)) {
      run.push(f);
      if (run.length >= maxFiles) return run;
    } else {
      if (run.length >= minFiles) return run;
      run = [];
    }
  }
  return run.length >= minFiles ? run : [];
}

/** Compacts the matching buckets of an append table; returns the CommitMessages (compact increments). */
export async function compactAppendBuckets(table: FileStoreTable, options: { partition?: Record<string, unknown>; bucket?: number; full?: boolean }): Promise<CommitMessage[]> {
  const latest = await table.latestSnapshot();
  if (!latest) return [];
  const opts = table.coreOptions;
  const fields = table.partitionFields;
  const types = fields.map((f) => f.type);
  const targets = await compactTargets(table, options, []);
  const entries = await table.manifestStore.liveEntries(latest);
  const byBucket = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    const k = `${e.partition.join(",")}|${e.bucket}`;
    let g = byBucket.get(k);
    if (!g) byBucket.set(k, (g = []));
    g.push(e);
  }
  const schemas = new FileSchemas(table);
  // Deletion vectors exist in DV tables, and in any table whose index manifest has them (other engines).
  const indexEntries = await table.manifestStore.indexEntries(latest);
  const dvConfig = { io: table.fileIO, paths: table.paths, bitmap64: opts.bool("deletion-vectors.bitmap64", false) };
  const out: CommitMessage[] = [];
  for (const group of byBucket.values()) {
    const first = group[0];
    const values = fromBinaryRow(first.partition.subarray(4), types);
    if (!targets.some((t) => t.bucket === first.bucket && JSON.stringify(t.values, big) === JSON.stringify(values, big))) continue;
    const dvFiles = deletionVectorIndexFiles(indexEntries, first.partition, first.bucket);
    const dvs = dvFiles.length > 0 ? await BucketDeletionVectors.load(dvConfig, table.paths.bucketDirOf(first.partition, first.bucket), dvFiles, opts.bucket > 0) : null;
    try {
      const message = await compactBucket(table, group, values, dvs, schemas, options.full ?? true);
      if (message) out.push(message);
    } finally {
      dvs?.dispose();
    }
  }
  return out;
}

/** Compacts one partition-bucket (`group`: its live entries); null when nothing is worth rewriting. */
async function compactBucket(table: FileStoreTable, group: readonly ManifestEntry[], values: unknown[], dvs: BucketDeletionVectors | null, schemas: FileSchemas, full: boolean): Promise<CommitMessage | null> {
  const opts = table.coreOptions;
  const fields = table.partitionFields;
  const first = group[0];
  const target = opts.targetFileSize(false);
  const picked = pickAppendCompaction(
    group.map((e) => e.file),
    target,
    full,
    opts.int("compaction.min.file-num", 5),
    opts.int("compaction.max.file-num", 50),
    (f) => (dvs?.get(f.fileName)?.size ?? 0) > 0,
  );
  if (picked.length === 0) return null;
  const dir = table.paths.bucketDirOf(first.partition, first.bucket, values);
  // null for other tables; a deduplicate table that fails the check was already refused at load
  const dedup = checkDeduplicateTable(table.schema, table.identifier);
  // Row-tracking tables: compacted files carry _ROW_ID and _SEQUENCE_NUMBER (Java's compactors
  // write with SpecialFields.rowTypeWithRowTracking), read from the inputs or derived from them
  const tracking = opts.bool("row-tracking.enabled", false);
  // (loaded as the query bundle loads it, a lazy chunk; arrow members passed by name, not the namespace: a namespace value keeps all of apache-arrow in the shared chunk, +7 KB gzip)
  const { withRowTracking } = tracking ? await import("../read/row-tracking-read.js") : { withRowTracking: null };
  const readFields = tracking ? withRowTrackingFields(table.schema.fields, true) : table.schema.fields;
  const schema = tracking ? { ...table.schema, fields: withRowTrackingFields(table.schema.fields, false) } : table.schema;
  const writer = new AppendBucketWriter(
    {
      io: table.fileIO,
      schema,
      bucketDir: dir,
      fileCompression: opts.fileCompression,
      targetFileSize: target,
      dataFilePrefix: opts.dataFilePrefix,
      statsMode: opts.get("metadata.stats-mode"),
      // Deduplicate tables: compacted files keep a key/offset sidecar, and key and offset columns without dictionaries, as prepared files do.
      ...(dedup ? { offsetSidecar: dedup, plainColumns: [dedup.keyField.name, dedup.offsetField.name] } : {}),
    },
    picked[0].minSequenceNumber,
  );
  for (const f of picked) {
    const path = table.paths.dataFile(dir, f);
    checkDataFileFormat(path); // formats paimon-rt does not read: UNSUPPORTED, not CORRUPT_FILE
    const fileFields = tracking ? withRowTrackingFields(await schemas.fieldsOf(f.schemaId), true) : await schemas.fieldsOf(f.schemaId);
    const deleted = dvs?.get(f.fileName);
    let position = 0;
    const batches = isWholeDataFile(path)
      ? readWholeDataFile(table.fileIO.readFile(path), { fields: readFields, fileFields, batchSize: 65536, fileName: path, timestampLtzLegacy: timestampLtzLegacy(table.schema.options) })
      : readParquetBatches(await fileIOSource(table.fileIO, path, Number(f.fileSize)), { fields: readFields, mapBy: "id", fileFields, batchSize: 65536, fileName: path });
    for await (const raw of batches) {
      // row ids are positions in the file, before deleted rows are dropped
      let batch = withRowTracking ? withRowTracking({ makeData, RecordBatch, Struct }, raw, f, BigInt(position)) : raw;
      if (deleted && !deleted.isEmpty) {
        const kept = keptPositions(deleted, position, raw.numRows);
        if (kept.length < raw.numRows) batch = takeRows(batch, kept);
      }
      position += raw.numRows;
      await writer.write(batch);
    }
  }
  const writeCols = tracking ? schema.fields.map((f) => f.name) : null;
  const after = (await writer.prepareCommit()).map((f): DataFileMeta => ({ ...f, fileSource: 1, writeCols }));
  for (const f of picked) dvs?.remove(f.fileName);
  const index = dvs ? await dvs.persist() : { newIndexFiles: [], deletedIndexFiles: [] };
  return new CommitMessage(
    makeCommitMessage({ partition: first.partition, bucket: first.bucket, totalBuckets: first.totalBuckets, compactIncrement: { compactBefore: picked, compactAfter: after, ...index } }),
    Object.fromEntries(fields.map((f, i) => [f.name, values[i]])),
  );
}

/** The key and offset fields of a deduplicate table (null otherwise, or when its layout is invalid: such files get no sidecar). */
function big(_k: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v;
}
