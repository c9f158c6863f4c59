// Writes one partition-bucket of an append table: batches go into a Parquet file that
// rolls at `target-file-size`; each finished file becomes a DataFileMeta.
import type * as arrow from "apache-arrow";
import { randomId } from "../fs/file-io.js";
import { localWallMillis } from "../spec/civil-time.js";
import type { FileIO } from "../fs/file-io.js";
import { ParquetFileWriter, type ParquetWriteOptions } from "../format/parquet-writer.js";
import { variantShreddingPlan } from "./variant-shredding.js";
import { AvroFileWriter, avroDataCodec } from "../format/avro-data-write.js";
import { dataFileFormatFor } from "../format/file-formats.js";
import { OrcFileWriter, type OrcDataWriteOptions } from "../format/orc-data-write.js";
import { parseMemorySize } from "../table/options.js";
import { DataFileIndexWriter, NO_FILE_INDEX } from "./data-file-index.js";
import { serializeBinaryRow, toStatsBinaryRow } from "../spec/binary-row.js";
import { emptyStats, makeDataFileMeta, type DataFileMeta, type SimpleStats } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataField } from "../spec/types.js";
import type { ParquetColumnStats } from "../format/parquet-writer.js";
import { columnValues } from "../arrow/values.js";
import { PaimonError } from "../error.js";
import { KeyOffsetSidecarWriter, OFFSET_SIDECAR_SUFFIX, sidecarKeySupported } from "../fileindex/key-offset-sidecar.js";

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
  /**
   * Append-deduplicate tables: the key and offset fields, to write each file's `.offset` sidecar
   * (key -> offset, paimon-cpp's layout) next to it, listed in its extra files after the external
   * file index if any. Key types the sidecar cannot hold, and files that hold a key twice (a
   * foreign writer's duplicates carried by compaction), get none.
   */
  offsetSidecar?: { keyField: DataField; offsetField: DataField };
  /** Names each new file when it is opened (default: prefix, this writer's uuid and counter, the format's extension). */
  fileName?: (extension: string) => string;
  /** `_WRITE_COLS` of the files (default null: all columns). */
  writeCols?: readonly string[];
  /**
   * Every file's sequence numbers start at 0, as Java's data-evolution writers count them
   * (`AppendOnlyWriter`: a new counter per file), so the commit gives every file the snapshot id.
   */
  sequencePerFile?: boolean;
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
    minValues: serializeBinaryRow(toStatsBinaryRow(mins, types), types.length),
    maxValues: serializeBinaryRow(toStatsBinaryRow(maxs, types), types.length),
    nullCounts: stats.map((s) => (s.nullCount === null ? null : BigInt(s.nullCount))),
  };
}

/** The writer of one data file: Parquet or Avro (same interface). */
export type DataFileWriter = ParquetFileWriter | AvroFileWriter | OrcFileWriter;

/**
 * Opens the writer of a data file of `fields` in the format the table's options name for `level`
 * (`dataFileFormatFor`: null for append tables), and the file name's extension. Avro files take
 * the codec from `avro.codec` or the compression, zstd at `file.compression.zstd-level`.
 */
export function openDataFileWriter(schema: TableSchema, fields: readonly DataField[], level: number | null, options: ParquetWriteOptions): { writer: DataFileWriter; extension: string } {
  const format = dataFileFormatFor(schema.options, level);
  if (format === "parquet") {
    const variantShredding = variantShreddingPlan(schema.options, fields);
    return { writer: new ParquetFileWriter(fields, variantShredding ? { ...options, variantShredding } : options), extension: "parquet" };
  }
  if (format === "orc") {
    const zstdLevel = Number(schema.options["file.compression.zstd-level"] ?? 1);
    return { writer: new OrcFileWriter(fields, { compression: options.compression ?? "zstd", zstdLevel, statsMode: options.statsMode, fieldStatsModes: options.fieldStatsModes, ...orcLayoutOptions(schema.options) }), extension: "orc" };
  }
  const codecOption = schema.options["avro.codec"];
  const codec = avroDataCodec(options.compression ?? "zstd", codecOption);
  const zstdLevel = Number(schema.options["file.compression.zstd-level"] ?? 1);
  const deflateLevel = codecOption !== undefined && /^deflate-\d+$/i.test(codecOption.trim()) ? Number(codecOption.trim().slice(8)) : undefined;
  const level_ = codec === "zstandard" ? zstdLevel : codec === "deflate" ? deflateLevel : undefined;
  // (no per-field modes: Java's Avro stats factories (createStatsFactoriesForAvro) keep the file's
  // mode for the `_KEY_` columns, which its Parquet files collect in full)
  return { writer: new AvroFileWriter(fields, { codec, level: level_, statsMode: options.statsMode }), extension: "avro" };
}

/**
 * The stripe and row index layout of ORC files from the table's options, as Java's OrcFileFormat
 * passes them to orc-core: `orc.stripe.size` (bytes; Paimon's `file.block-size` wins when set),
 * `orc.stripe.row.count`, `orc.row.index.stride` (`orc.create.index=false`: none),
 * `orc.compress.size`, and its bloom filters: `orc.bloom.filter.columns`, `orc.bloom.filter.fpp`
 * (a Java double), `orc.bloom.filter.write.version` (`utf8` / `original`). INVALID_ARGUMENT for
 * values that are not such sizes, counts, probabilities or versions.
 */
export function orcLayoutOptions(options: Readonly<Record<string, string>>): Pick<OrcDataWriteOptions, "stripeSize" | "stripeRowCount" | "rowIndexStride" | "compressionChunkSize" | "bloomFilterColumns" | "bloomFilterFpp" | "bloomFilterVersion"> {
  const integer = (key: string): number | undefined => {
    const raw = options[key];
    if (raw === undefined) return undefined;
    if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: '${raw}' is not a non-negative integer`);
    return Number(raw);
  };
  const blockSize = options["file.block-size"];
  const createIndex = (options["orc.create.index"] ?? "true").trim().toLowerCase();
  if (createIndex !== "true" && createIndex !== "false") throw new PaimonError("INVALID_ARGUMENT", `option orc.create.index: '${options["orc.create.index"]}' is not a boolean`);
  return {
    stripeSize: blockSize !== undefined ? parseMemorySize(blockSize, "file.block-size") : integer("orc.stripe.size"),
    stripeRowCount: integer("orc.stripe.row.count"),
    rowIndexStride: createIndex === "false" ? 0 : integer("orc.row.index.stride"),
    compressionChunkSize: integer("orc.compress.size"),
    ...orcBloomFilterOptions(options),
  };
}

/** The bloom filter options of ORC files (see `orcLayoutOptions`): INVALID_ARGUMENT for a malformed fpp or version. */
function orcBloomFilterOptions(options: Readonly<Record<string, string>>): Pick<OrcDataWriteOptions, "bloomFilterColumns" | "bloomFilterFpp" | "bloomFilterVersion"> {
  const fppRaw = options["orc.bloom.filter.fpp"];
  // (Java's Double.parseDouble: surrounding blanks and a d / f suffix allowed)
  if (fppRaw !== undefined && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(fppRaw.trim())) throw new PaimonError("INVALID_ARGUMENT", `option orc.bloom.filter.fpp: '${fppRaw}' is not a number`);
  const fpp = fppRaw === undefined ? undefined : Number(fppRaw.trim().replace(/[dDfF]$/, ""));
  if (fpp !== undefined && !(fpp > 0 && fpp < 1)) throw new PaimonError("INVALID_ARGUMENT", `option orc.bloom.filter.fpp: '${fppRaw}' must be > 0.0 and < 1.0`);
  const version = options["orc.bloom.filter.write.version"];
  // (orc-core's BloomFilterVersion.fromString: exact names)
  if (version !== undefined && version !== "utf8" && version !== "original") throw new PaimonError("INVALID_ARGUMENT", `option orc.bloom.filter.write.version: '${version}' is not utf8 or original`);
  return { bloomFilterColumns: options["orc.bloom.filter.columns"], bloomFilterFpp: fpp, bloomFilterVersion: version };
}

/** Java writes `_CREATION_TIME` as the local wall clock encoded like a UTC timestamp. */
export function localNowMillis(): number {
  return localWallMillis(Date.now());
}

export class AppendBucketWriter {
  private readonly uuid = randomId();
  private fileCounter = 0;
  private current: DataFileWriter | null = null;
  private extension = "parquet";
  private currentName = "";
  private index: DataFileIndexWriter | null = null;
  /** The open file's sidecar (null without one, or after a batch it cannot hold). */
  private sidecar: KeyOffsetSidecarWriter | null = null;
  /** Column positions of the sidecar's key and offset fields in written batches. */
  private readonly sidecarColumns: { key: number; offset: number } | null;
  private readonly finished: DataFileMeta[] = [];

  /** `nextSequence`: the sequence number of the next row (restored max + 1 for bucketed tables). */
  constructor(
    private readonly config: AppendWriterConfig,
    private nextSequence: bigint,
  ) {
    const s = config.offsetSidecar;
    this.sidecarColumns = s && sidecarKeySupported(s.keyField.type) ? { key: config.schema.fields.findIndex((f) => f.id === s.keyField.id), offset: config.schema.fields.findIndex((f) => f.id === s.offsetField.id) } : null;
  }

  get bufferedRows(): number {
    return this.current?.rowCount ?? 0;
  }

  /** Buffers a batch (columns in the table's canonical Arrow layout). */
  async write(batch: arrow.RecordBatch): Promise<void> {
    if (batch.numRows === 0) return;
    if (!this.current) {
      ({ writer: this.current, extension: this.extension } = openDataFileWriter(this.config.schema, this.config.schema.fields, null, { compression: this.config.fileCompression, statsMode: this.config.statsMode, plainColumns: this.config.plainColumns }));
      this.currentName = this.config.fileName?.(this.extension) ?? `${this.config.dataFilePrefix}${this.uuid}-${this.fileCounter++}.${this.extension}`;
      this.index = DataFileIndexWriter.forSchema(this.config.schema);
      this.sidecar = this.sidecarColumns ? new KeyOffsetSidecarWriter(this.config.offsetSidecar!.keyField.type) : null;
    }
    this.current.write(batch);
    this.index?.update(batch);
    if (this.sidecar && this.sidecarColumns) this.addToSidecar(batch, this.sidecarColumns);
    if (this.current.bufferedBytes >= this.config.targetFileSize) await this.roll();
  }

  /** Adds a batch's keys and offsets to the open sidecar; a key repeated in the file (or a null offset) drops the sidecar. */
  private addToSidecar(batch: arrow.RecordBatch, columns: { key: number; offset: number }): void {
    const offsets = batch.data.children[columns.offset];
    // Either way the file is still written; key lookups read its key column instead.
    if (offsets.nullCount > 0) {
      this.sidecar = null;
      return;
    }
    try {
      this.sidecar!.add(batch.data.children[columns.key], columnValues<BigInt64Array>(offsets));
    } catch (e) {
      if (!(e instanceof PaimonError) || e.code !== "INVALID_ARGUMENT") throw e;
      this.sidecar = null;
    }
  }

  /** Finishes the open file, if any. */
  private async roll(): Promise<void> {
    const writer = this.current;
    const index = this.index;
    const sidecar = this.sidecar;
    this.current = null;
    this.index = null;
    this.sidecar = null;
    if (!writer || writer.rowCount === 0) return;
    const fileName = this.currentName;
    const path = `${this.config.bucketDir}/${fileName}`;
    const result = await writer.finish();
    await this.config.io.writeFile(path, result.bytes);
    const stored = index ? await index.finish(this.config.io, path, fileName) : NO_FILE_INDEX;
    const embeddedIndex = stored.embeddedIndex;
    let extraFiles = stored.extraFiles;
    if (sidecar && sidecar.size > 0) {
      await this.config.io.writeFile(`${path}${OFFSET_SIDECAR_SUFFIX}`, sidecar.serialize());
      extraFiles = [...extraFiles, `${fileName}${OFFSET_SIDECAR_SUFFIX}`];
    }
    const rows = BigInt(result.rowCount);
    const minSeq = this.config.sequencePerFile ? 0n : this.nextSequence;
    this.nextSequence = minSeq + rows;
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
        writeCols: this.config.writeCols ? [...this.config.writeCols] : null,
      }),
    );
  }

  /** Closes the open file and hands over every file written since the last call. */
  async prepareCommit(): Promise<DataFileMeta[]> {
    await this.roll();
    return this.finished.splice(0, this.finished.length);
  }
}
