// Compaction of data-evolution tables (`data-evolution.enabled`), as Java 1.4.2's
// `DataEvolutionCompactCoordinator` plans it and `DataEvolutionCompactTask` rewrites: per
// partition, the files of adjacent or overlapping row-id ranges form a run; in row-id order its
// row-id groups (a full-row file and the column files of its range) are gathered into tasks of up
// to `target-file-size` (a group above it is a task alone), and a task of at least
// `compaction.min.file-num` files is read merged by row id (src/read/data-evolution.ts) and
// rewritten into one file of all columns: the first row id of its first range, the min and max
// sequence numbers of the files it replaces, written as an append file (file source APPEND, no
// write columns), committed as a COMPACT snapshot's compact increment. Tables with BLOB columns
// compact as Java's coordinator with `compactBlob` false (what its compact actions pass): blob
// files join the runs but are not rewritten; the normal files are, into one file of the columns
// not in blob files (`_WRITE_COLS` naming them), and the blob files keep matching its rows by row id.
import * as arrow from "apache-arrow";
import { concatData } from "../arrow/concat.js";
import { recordBatch } from "../arrow/record-batch.js";
import { takeRows } from "../arrow/take.js";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import { crc32 } from "../spec/avro.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import { groupByPartitionBucket, type DataFileMeta, type ManifestEntry } from "../spec/manifest.js";
import { FileStoreTable } from "../table/file-store-table.js";
import { writablePartitionPath } from "../table/paths.js";
import { groupByRowIdRange, mergeDataEvolution, rowIdRange } from "../read/data-evolution.js";
import { TableRead } from "../read/table-read.js";
import { AppendBucketWriter } from "./append-writer.js";
import { blobLayout } from "./blob-write.js";
import { isBlobFile } from "../read/blob-read.js";
import { partitionMatcher } from "./pk-write.js";

/** The rewrites Java's coordinator plans for the latest snapshot (files of `partition` only, when given); one commit message each. */
export async function compactDataEvolution(table: FileStoreTable, options: { partition?: Record<string, unknown>; bucket?: number }): Promise<CommitMessage[]> {
  const match = partitionMatcher(table, options.partition);
  const latest = await table.snapshotManager.latestSnapshot();
  if (latest === null) return [];
  const entries = (await table.manifestStore.liveEntries(latest)).filter((e) => match(e.partition) && (options.bucket === undefined || e.bucket === options.bucket));
  const opts = table.coreOptions;
  const target = opts.targetFileSize(false);
  const openCost = opts.splitOpenFileCost;
  const minFiles = opts.int("compaction.min.file-num", 5);
  const out: CommitMessage[] = [];
  const trigger = async (files: ManifestEntry[]): Promise<void> => {
    if (files.length > 0 && files.length >= minFiles) out.push(await rewrite(table, latest.id, files));
  };
  for (const list of groupByPartitionBucket(entries).values()) {
    // runs: ranges merged with their neighbours too (Java: [first row id, first row id + row count])
    for (const run of groupByRowIdRange(list, (e) => [e.file.firstRowId ?? 0n, rowIdRange(e.file, PaimonError)[1] + 1n])) {
      let waiting: ManifestEntry[] = [];
      let weight = 0;
      for (const group of groupByRowIdRange(run.filter((e) => !isBlobFile(e.file.fileName)), (e) => rowIdRange(e.file, PaimonError))) {
        const [from, to] = rowIdRange(group[0].file, PaimonError);
        if (group.some((e) => e.file.firstRowId !== from || rowIdRange(e.file, PaimonError)[1] !== to)) throw new PaimonError("CORRUPT_FILE", `table ${table.identifier}: data files ${group.map((e) => e.file.fileName).join(", ")} of a data-evolution table overlap without the same row id range`);
        const w = group.reduce((sum, e) => sum + Math.max(Number(e.file.fileSize), openCost), 0);
        if (w > target) {
          await trigger(group);
          await trigger(waiting);
          waiting = [];
          weight = 0;
        } else {
          waiting.push(...group);
          weight += w;
          if (weight > target) {
            await trigger(waiting);
            waiting = [];
            weight = 0;
          }
        }
      }
      await trigger(waiting);
    }
  }
  return out;
}

/** Java `DataEvolutionCompactTask.doCompact`: `files` (whole row-id groups in row-id order, of one partition-bucket) merged into one file. */
async function rewrite(table: FileStoreTable, snapshotId: number, files: readonly ManifestEntry[]): Promise<CommitMessage> {
  const opts = table.coreOptions;
  const first = files[0];
  const partitionFields = table.partitionFields;
  const values = fromBinaryRow(first.partition.subarray(4), partitionFields.map((f) => f.type));
  const partition = Object.fromEntries(partitionFields.map((f, i) => [f.name, values[i]]));
  const bucketDir = table.paths.bucketDir(writablePartitionPath(partitionFields, values, opts.partitionDefaultName, opts.partitionLegacyName), first.bucket);
  const before = files.map((e) => e.file);
  const split = { kind: "data" as const, snapshotId, partition, partitionRow: first.partition, bucket: first.bucket, bucketPath: bucketDir, totalBuckets: first.totalBuckets, files: before, rawConvertible: false, dataEvolution: true };
  const layout = blobLayout(table.schema);
  const fields = layout?.normalFields ?? table.schema.fields;
  const schema = new TableRead(table, { projection: fields.map((f) => f.name) }).outputSchema;
  const deps = { PaimonError, concatData, recordBatch, filterBatchIndices, takeRows, makeData: arrow.makeData, crc32 };
  const writer = new AppendBucketWriter(
    {
      io: table.fileIO,
      schema: { ...table.schema, fields: [...fields] },
      bucketDir,
      fileCompression: opts.fileCompression,
      targetFileSize: Number.POSITIVE_INFINITY, // one file (Java: target-file-size 99999 G)
      dataFilePrefix: opts.dataFilePrefix,
      statsMode: opts.get("metadata.stats-mode"),
    },
    0n,
  );
  // descriptor fields are copied as the descriptors they hold, not the bytes they point at
  const source = layout === null ? table : new FileStoreTable(table.fileIO, table.identifier, table.location, { ...table.schema, options: { ...table.schema.options, "blob-as-descriptor": "true" } }, table.pinnedSnapshotId);
  for await (const batch of mergeDataEvolution(deps, TableRead, source, split, { fields, keep: fields.length, schema, filter: null, batchSize: 65536 })) await writer.write(batch);
  const written = await writer.prepareCommit();
  if (written.length !== 1) throw new PaimonError("CORRUPT_FILE", `compact on data-evolution table ${table.identifier}: the files ${before.map((f) => f.fileName).join(", ")} gave ${written.length} files, not one`);
  const min = before.reduce((m, f) => (f.minSequenceNumber < m ? f.minSequenceNumber : m), before[0].minSequenceNumber);
  const max = before.reduce((m, f) => (f.maxSequenceNumber > m ? f.maxSequenceNumber : m), before[0].maxSequenceNumber);
  const after: DataFileMeta = { ...written[0], firstRowId: before[0].firstRowId, minSequenceNumber: min, maxSequenceNumber: max, fileSource: 0, writeCols: layout === null ? null : fields.map((f) => f.name) };
  return new CommitMessage(makeCommitMessage({ partition: first.partition, bucket: first.bucket, totalBuckets: null, compactIncrement: { compactBefore: before, compactAfter: [after] } }), partition);
}
