// Writes one partition-bucket of an append table: batches go into a Parquet file that
// rolls at `target-file-size`; each finished file becomes a DataFileMeta.
import type * as arrow from "apache-arrow";
import { randomId } from "../fs/file-io.js";
import type { FileIO } from "../fs/file-io.js";
import { ParquetFileWriter } from "../format/parquet-writer.js";
import { DataFileIndexWriter, NO_FILE_INDEX } from "./data-file-index.js";
import { serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { emptyStats, makeDataFileMeta, type DataFileMeta, type SimpleStats } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataField } from "../spec/types.js";
import type { ParquetColumnStats } from "../format/parquet-writer.js";

export interface AppendWriterConfig {
  io: FileIO;
  schema: TableSchema;
  bucketDir: string;
  fileCompression: string;
  targetFileSize: number;
  dataFilePrefix: string;
  statsMode?: string;
  /** Columns written without dictionary encoding (ParquetWriteOptions.plainColumns). */
  plainColumns?: readonly string[];
}

/** Types whose min/max Paimon keeps in SimpleStats (nested types keep only null counts). */
const STATS_KINDS = new Set(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "CHAR", "VARCHAR", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"]);

/** SimpleStats over `fields` from the Parquet writer's statistics of those columns. */
export function simpleStats(fields: readonly DataField[], stats: readonly ParquetColumnStats[]): SimpleStats {
  const types = fields.map((f) => f.type);
  const keep = (i: number) => STATS_KINDS.has(types[i].kind);
  const mins = stats.map((s, i) => (keep(i) ? (s.min ?? null) : null));
  const maxs = stats.map((s, i) => (keep(i) ? (s.max ?? null) : null));
  return {
    minValues: serializeBinaryRow(toBinaryRow(mins, types), types.length),
    maxValues: serializeBinaryRow(toBinaryRow(maxs, types), types.length),
    nullCounts: stats.map((s) => (s.nullCount === null ? null : BigInt(s.nullCount))),
  };
}

/** Java writes `_CREATION_TIME` as the local wall clock encoded like a UTC timestamp. */
export function localNowMillis(): number {
  const now = new Date();
  return now.getTime() - now.getTimezoneOffset() * 60_000;
}

export class AppendBucketWriter {
  private readonly uuid = randomId();
  private fileCounter = 0;
  private current: ParquetFileWriter | null = null;
  private index: DataFileIndexWriter | null = null;
  private readonly finished: DataFileMeta[] = [];

  /** `nextSequence`: the sequence number of the next row (restored max + 1 for bucketed tables). */
  constructor(
    private readonly config: AppendWriterConfig,
    private nextSequence: bigint,
  ) {}

  get bufferedRows(): number {
    return this.current?.rowCount ?? 0;
  }

  /** Buffers a batch (columns in the table's canonical Arrow layout). */
  async write(batch: arrow.RecordBatch): Promise<void> {
    if (batch.numRows === 0) return;
    if (!this.current) {
      this.current = new ParquetFileWriter(this.config.schema.fields, { compression: this.config.fileCompression, statsMode: this.config.statsMode, plainColumns: this.config.plainColumns });
      this.index = DataFileIndexWriter.forSchema(this.config.schema);
    }
    this.current.write(batch);
    this.index?.update(batch);
    if (this.current.bufferedBytes >= this.config.targetFileSize) await this.roll();
  }

  /** Finishes the open file, if any. */
  private async roll(): Promise<void> {
    const writer = this.current;
    const index = this.index;
    this.current = null;
    this.index = null;
    if (!writer || writer.rowCount === 0) return;
    const fileName = `${this.config.dataFilePrefix}${this.uuid}-${this.fileCounter++}.parquet`;
    const path = `${this.config.bucketDir}/${fileName}`;
    const result = await writer.finish();
    await this.config.io.writeFile(path, result.bytes);
    const { embeddedIndex, extraFiles } = index ? await index.finish(this.config.io, path, fileName) : NO_FILE_INDEX;
    const rows = BigInt(result.rowCount);
    const minSeq = this.nextSequence;
    this.nextSequence += rows;
    this.finished.push(
      makeDataFileMeta({
        fileName,
        fileSize: BigInt(result.fileSize),
        rowCount: rows,
        minKey: undefined,
        keyStats: emptyStats(),
        valueStats: simpleStats(this.config.schema.fields, result.stats),
        minSequenceNumber: minSeq,
        maxSequenceNumber: minSeq + rows - 1n,
        schemaId: this.config.schema.id,
        level: 0,
        creationTime: localNowMillis(),
        deleteRowCount: 0n,
        fileSource: 0,
        embeddedIndex,
        extraFiles,
      }),
    );
  }

  /** Closes the open file and hands over every file written since the last call. */
  async prepareCommit(): Promise<DataFileMeta[]> {
    await this.roll();
    return this.finished.splice(0, this.finished.length);
  }
}
