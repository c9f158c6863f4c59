// Column updates of data-evolution tables (`data-evolution.enabled`), as Java 1.4.2's MERGE INTO
// writes them (Spark DataEvolutionTableDataWrite, Flink DataEvolutionPartialWriteOperator): for
// one committed data file, a new file of some columns with one row per row of that file, written
// with the columns only (Java `withWriteType`: `_WRITE_COLS` names them, null when they are all of
// the table's) and the file's first row id (`assignFirstRowId`); the commit gives it the snapshot id
// as sequence number, so reads take those columns of that range from it (src/read/data-evolution.ts).
import type * as arrow from "apache-arrow";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import type { ManifestEntry } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { isTrueOption } from "../table/option-validation.js";
import { writablePartitionPath } from "../table/paths.js";
import { AppendBucketWriter } from "./append-writer.js";

const invalid = (message: string) => new PaimonError("INVALID_ARGUMENT", message);

/**
 * The table columns named by `names` (INVALID_ARGUMENT for a table without data evolution, no
 * column, an unknown, repeated or partition column), in table order.
 */
export function columnsToUpdate(table: FileStoreTable, names: readonly string[]): DataField[] {
  const id = table.identifier;
  if (!isTrueOption(table.schema.options["data-evolution.enabled"])) throw invalid(`writeColumns: table ${id} is not a data-evolution table (data-evolution.enabled)`);
  if (names.length === 0) throw invalid(`writeColumns: the batch has no columns`);
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (repeated.length > 0) throw invalid(`writeColumns: column ${repeated[0]} is given twice`);
  const unknown = names.filter((n) => !table.schema.fields.some((f) => f.name === n));
  if (unknown.length > 0) throw invalid(`writeColumns: table ${id} has no column ${unknown.join(", ")}`);
  const partition = names.filter((n) => table.schema.partitionKeys.includes(n));
  if (partition.length > 0) throw invalid(`writeColumns: partition column ${partition.join(", ")} of table ${id} cannot be updated (the file stays in its partition)`);
  return table.schema.fields.filter((f) => names.includes(f.name));
}

/**
 * The live entry of the latest snapshot whose file's rows start at `firstRowId` (a data file, not
 * a blob file), checked to hold `rows` rows; INVALID_ARGUMENT otherwise.
 */
export async function fileStartingAt(table: FileStoreTable, firstRowId: bigint, rows: number): Promise<ManifestEntry> {
  const snapshot = await table.snapshotManager.latestSnapshot();
  const entries = snapshot === null ? [] : await table.manifestStore.liveEntries(snapshot);
  const entry = entries.find((e) => e.file.firstRowId === firstRowId && !e.file.fileName.endsWith(".blob"));
  if (entry === undefined) throw invalid(`writeColumns: no live data file of table ${table.identifier} starts at row id ${firstRowId}`);
  if (entry.file.rowCount !== BigInt(rows)) throw invalid(`writeColumns: the file starting at row id ${firstRowId} has ${entry.file.rowCount} rows, the batch ${rows}`);
  return entry;
}

/** Writes `batches` (exactly `fields`, canonical layout) as the column file of `entry`'s row range; its commit message. */
export async function writeColumnFile(table: FileStoreTable, entry: ManifestEntry, fields: DataField[], batches: readonly arrow.RecordBatch[]): Promise<CommitMessage> {
  const opts = table.coreOptions;
  const partitionFields = table.partitionFields;
  const values = fromBinaryRow(entry.partition.subarray(4), partitionFields.map((f) => f.type));
  const writer = new AppendBucketWriter(
    {
      io: table.fileIO,
      schema: { ...table.schema, fields },
      bucketDir: table.paths.bucketDir(writablePartitionPath(partitionFields, values, opts.partitionDefaultName, opts.partitionLegacyName), entry.bucket),
      fileCompression: opts.fileCompression,
      targetFileSize: Number.POSITIVE_INFINITY, // one file (Java: target-file-size 99999 G)
      dataFilePrefix: opts.dataFilePrefix,
      statsMode: opts.get("metadata.stats-mode"),
    },
    0n,
  );
  for (const batch of batches) await writer.write(batch);
  const all = fields.length === table.schema.fields.length;
  const files = (await writer.prepareCommit()).map((f) => ({ ...f, firstRowId: entry.file.firstRowId, writeCols: all ? null : fields.map((x) => x.name) }));
  const partition = Object.fromEntries(partitionFields.map((f, i) => [f.name, values[i]]));
  return new CommitMessage(makeCommitMessage({ partition: entry.partition, bucket: entry.bucket, totalBuckets: null, dataIncrement: { newFiles: files } }), partition);
}
