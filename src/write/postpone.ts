// Postpone bucket mode (`bucket = -2`, primary-key tables; Java `BucketMode.POSTPONE_MODE`):
// writers do not choose buckets. Rows go, unsorted and unmerged in arrival order, to level-0
// files of the partition's `bucket-postpone` directory, invisible to batch reads (Java
// `PostponeBucketWriter`). A compaction later replays them, file by file in creation order, into
// the partition's real buckets — as many as the partition already has, or
// `postpone.default-bucket-num` for a partition compacted for the first time — through ordinary
// bucket writers, and commits the result as a COMPACT that removes the postpone files (Java's
// `CompactAction` for postpone tables: `PostponeBucketCompactSplitSource`, `FixedBucketSink`,
// `PostponeBucketCommittableRewriter`, `RemovePostponeBucketFilesOperator`).
import * as arrow from "apache-arrow";
import { takeRows } from "../arrow/take.js";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
import { bucketFunction, bucketFunctionTypeOf } from "./bucket-function.js";
import { FileSchemas, readKvFile } from "../read/kv-file-reader.js";
import { type MergeFold, mergeFold, retractRefusal } from "../read/merge-functions.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import { fileNameProblem } from "../spec/file-names.js";
import type { DataFileMeta, IndexFileMeta, ManifestEntry } from "../spec/manifest.js";
import { bucketKeys } from "../spec/schema.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { writablePartitionPath } from "../table/paths.js";
import type { PrimaryKeyConfig } from "../table/primary-key.js";
import { KvFileWriter } from "./kv-file-writer.js";
import { avroDataSchema } from "../format/avro-data-write.js";
import type { TableSchema } from "../spec/schema.js";
import { keptRowsOf, MergeTreeBucketWriter } from "./merge-tree-writer.js";
import { attachRowKinds, groupByBucket } from "./pk-write.js";

/** Java `BucketMode.POSTPONE_BUCKET`: the bucket id of postponed files. */
export const POSTPONE_BUCKET = -2;

/** Rows per batch when replaying a postpone file. */
const REPLAY_BATCH = 64 * 1024;

/**
 * The data-file prefix of a postpone writer: Java's `<data-file.prefix>-u-<commitUser>-s-<writeId>-w-`
 * (files of one writer are replayed in their order by one compaction reader). The commit user
 * becomes part of file names, so it is checked like any name: INVALID_ARGUMENT when the prefix
 * could not be one file name in the bucket directory.
 */
export function postponeFilePrefix(dataFilePrefix: string, commitUser: string, writeId: number, identifier: string): string {
  const prefix = `${dataFilePrefix}-u-${commitUser}-s-${writeId}-w-`;
  const problem = fileNameProblem(prefix);
  if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `postpone-bucket table ${identifier}: commitUser ${JSON.stringify(commitUser)} cannot be part of a data file name (${problem})`);
  return prefix;
}

/**
 * The writer of one partition's postpone bucket (Java `PostponeBucketWriter` with its direct
 * sink): rows are written as they come, without sorting or merging, into level-0 files rolled at
 * the target file size; every row's sequence number is -1 (Java leaves them unassigned: the
 * bucket writers that replay the rows number them). Retract rows are checked once, as Java runs
 * the merge function on the first one.
 */
export class PostponeBucketWriter {
  private readonly writer: KvFileWriter;
  /** partial-update / aggregation: the table's field fold (null for other engines). */
  private readonly fold: MergeFold | null;
  private retractChecked = false;

  constructor(
    private readonly table: FileStoreTable,
    private readonly config: PrimaryKeyConfig,
    bucketDir: string,
    dataFilePrefix: string,
  ) {
    const opts = table.coreOptions;
    const engine = config.mergeEngine;
    this.fold = engine === "partial-update" || engine === "aggregation" ? mergeFold(table.identifier, engine, table.schema.fields, table.schema.primaryKeys, opts) : null;
    const schema = postponeFileSchema(table.schema);
    this.writer = new KvFileWriter(
      {
        io: table.fileIO,
        schema,
        bucketDir,
        fileCompression: opts.fileCompression,
        targetFileSize: opts.targetFileSize(true),
        dataFilePrefix,
        statsMode: schema.options["metadata.stats-mode"],
        thinMode: config.thinMode,
      },
      0,
      0, // FileSource.APPEND
    );
  }

  /** Writes a batch: table columns in table order, optionally followed by an int8 row-kind column. */
  async write(batch: arrow.RecordBatch): Promise<void> {
    const fold = this.fold;
    const { data, kinds } = keptRowsOf(batch, this.table, this.config, fold);
    const n = data.numRows;
    if (n === 0) return;
    if (!this.retractChecked && fold) {
      for (let i = 0; i < n; i++) {
        if (kinds[i] !== 1 && kinds[i] !== 3) continue;
        const refused = retractRefusal(fold);
        if (refused) throw refused;
        this.retractChecked = true;
        break;
      }
    }
    await this.writer.write({ batch: data, sequence: new BigInt64Array(n).fill(-1n), kinds: Int8Array.from(kinds) });
  }

  /** Finishes the open file: the files written since the last call. */
  async prepareCommit(): Promise<DataFileMeta[]> {
    await this.writer.roll();
    return this.writer.finished.splice(0);
  }
}

/**
 * The schema postpone files are written under: Java's PostponeBucketFileStoreWrite writes them in
 * Avro without statistics (`file.format=avro`, `metadata.stats-mode=none`) when the row type has
 * an Avro schema, else in the table's format.
 */
function postponeFileSchema(schema: TableSchema): TableSchema {
  try {
    avroDataSchema(schema.fields);
  } catch (e) {
    if (e instanceof PaimonError && e.code === "UNSUPPORTED") return schema;
    throw e;
  }
  return { ...schema, options: { ...schema.options, "file.format": "avro", "metadata.stats-mode": "none" } };
}

/** `postpone.default-bucket-num` (default 1): the bucket count of a partition compacted for the first time. */
function defaultBucketNum(table: FileStoreTable): number {
  const raw = table.coreOptions.get("postpone.default-bucket-num");
  if (raw === undefined) return 1;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 1 || n > 0x7fffffff) throw new PaimonError("INVALID_ARGUMENT", `option postpone.default-bucket-num of ${table.identifier}: '${raw}' is not a positive integer`);
  return n;
}

/** What one postpone compaction of a table wrote: its messages and the real buckets it filled, by partition. */
export interface PostponeCompaction {
  readonly messages: CommitMessage[];
  /** The bucket writers that received replayed rows (to compact further or close). */
  readonly writers: MergeTreeBucketWriter[];
}

/**
 * Moves the postponed rows of the latest snapshot (of the partitions `matches` accepts) into
 * their partitions' real buckets: each partition's postpone files, ordered by creation time, are
 * replayed row by row (kinds kept) into bucket writers restored from the snapshot, which number
 * the rows after the bucket's own and compact as their triggers say. The messages are COMPACT
 * increments: the buckets' new files as compact-after, the postpone files as compact-before.
 * `full`: also compact each bucket written into one sorted run.
 */
export async function compactPostponeBuckets(
  table: FileStoreTable,
  config: PrimaryKeyConfig,
  matches: (partition: Uint8Array) => boolean,
  full: boolean,
): Promise<CommitMessage[]> {
  const latest = await table.latestSnapshot();
  if (latest === null) return [];
  const byPartition = new Map<string, { row: Uint8Array; postponed: ManifestEntry[]; totalBuckets: number | null }>();
  for (const e of await table.manifestStore.liveEntries(latest)) {
    if (!matches(e.partition)) continue;
    const key = e.partition.join(",");
    let p = byPartition.get(key);
    if (!p) byPartition.set(key, (p = { row: e.partition, postponed: [], totalBuckets: null }));
    if (e.bucket === POSTPONE_BUCKET) p.postponed.push(e);
    else if (e.bucket >= 0 && p.totalBuckets === null && e.totalBuckets > 0) p.totalBuckets = e.totalBuckets;
  }
  const schema = table.schema;
  const partitionFields = table.partitionFields;
  const opts = table.coreOptions;
  const bucketKeyIndexes = bucketKeys(schema).map((k) => schema.fields.findIndex((f) => f.name === k));
  // (Java's postpone compaction assigns real buckets with the table's bucket function)
  const bucketOf = bucketFunction(bucketFunctionTypeOf(schema.options), bucketKeyIndexes.map((i) => schema.fields[i]!));
  const schemas = new FileSchemas(table);
  const out: CommitMessage[] = [];
  for (const p of byPartition.values()) {
    if (p.postponed.length === 0) continue;
    const numBuckets = p.totalBuckets ?? defaultBucketNum(table);
    const values = fromBinaryRow(p.row.subarray(4), partitionFields.map((f) => f.type));
    const partitionPath = writablePartitionPath(partitionFields, values, opts.partitionDefaultName, opts.partitionLegacyName);
    const partition = Object.fromEntries(partitionFields.map((f, i) => [f.name, values[i]]));
    const writers = new Map<number, MergeTreeBucketWriter>();
    const writerOf = async (bucket: number) => {
      let w = writers.get(bucket);
      if (!w) writers.set(bucket, (w = await MergeTreeBucketWriter.create({ table, partitionRow: p.row, bucket, bucketDir: table.paths.bucketDir(partitionPath, bucket), config, writeOnly: opts.bool("write-only", false) })));
      return w;
    };
    // Java replays the files sorted by creation time (a stable sort: ties keep manifest order)
    const files = p.postponed.map((e) => e.file).sort((a, b) => (a.creationTime ?? 0) - (b.creationTime ?? 0));
    const postponeDir = table.paths.bucketDir(partitionPath, POSTPONE_BUCKET);
    try {
      for (const file of files) {
        const path = table.paths.dataFile(postponeDir, file);
        const fileFields = await schemas.fieldsOf(file.schemaId);
        for await (const chunk of readKvFile(table.fileIO, path, file, schema.fields, { batchSize: REPLAY_BATCH, fileFields })) {
          const rows = attachRowKinds(chunk.batch, chunk.kinds, 0);
          const buckets = bucketOf(bucketKeyIndexes.map((i) => keyColumnFromArrow(chunk.batch.data.children[i])), numBuckets);
          for (const [bucket, picked] of groupByBucket(buckets)) await (await writerOf(bucket)).write(picked === null ? rows : takeRows(rows, picked));
        }
      }
      for (const [bucket, writer] of [...writers].sort((a, b) => a[0] - b[0])) {
        if (full) await writer.compact(true);
        const inc = await writer.prepareIncrement();
        // one COMPACT increment (Java's BucketFiles): a file flushed and compacted away within it is neither added nor removed
        // (an upgraded file is compacted away and back under its name at a higher level: kept)
        const flushed = new Set((inc.dataIncrement.newFiles ?? []).map((f) => f.fileName));
        const before = inc.compactIncrement.compactBefore ?? [];
        const after = new Set((inc.compactIncrement.compactAfter ?? []).map((f) => f.fileName));
        const gone = new Set(before.filter((f) => flushed.has(f.fileName)).map((f) => f.fileName));
        const dir = table.paths.bucketDir(partitionPath, bucket);
        await Promise.all(before.filter((f) => gone.has(f.fileName) && !after.has(f.fileName)).map((f) => table.fileIO.delete(table.paths.dataFile(dir, f)).catch(() => false)));
        const newIndexFiles: IndexFileMeta[] = [...(inc.dataIncrement.newIndexFiles ?? []), ...(inc.compactIncrement.newIndexFiles ?? [])];
        const message = makeCommitMessage({
          partition: p.row,
          bucket,
          totalBuckets: numBuckets,
          compactIncrement: {
            compactBefore: before.filter((f) => !gone.has(f.fileName)),
            compactAfter: [...(inc.dataIncrement.newFiles ?? []).filter((f) => !gone.has(f.fileName)), ...(inc.compactIncrement.compactAfter ?? [])],
            changelogFiles: [...(inc.dataIncrement.changelogFiles ?? []), ...(inc.compactIncrement.changelogFiles ?? [])],
            newIndexFiles,
            deletedIndexFiles: inc.compactIncrement.deletedIndexFiles ?? [],
          },
        });
        out.push(new CommitMessage(message, partition));
      }
    } finally {
      for (const w of writers.values()) w.close();
    }
    out.push(new CommitMessage(makeCommitMessage({ partition: p.row, bucket: POSTPONE_BUCKET, totalBuckets: POSTPONE_BUCKET, compactIncrement: { compactBefore: p.postponed.map((e) => e.file) } }), partition));
  }
  return out;
}
