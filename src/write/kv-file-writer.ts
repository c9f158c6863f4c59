// Writes key-value rows of a primary-key table (already in key order, one row per key) into
// rolling Parquet data files in Java's physical layout (`_KEY_<k>`, `_SEQUENCE_NUMBER`,
// `_VALUE_KIND`, value columns; format reference §7.1–7.2) and describes each finished file
// as a DataFileMeta: exact min/max key, key stats (full mode), value stats, sequence range,
// `_DELETE_ROW_COUNT`, level and file source.
import * as arrow from "apache-arrow";
import { takeRows } from "../arrow/take.js";
import type { FileIO } from "../fs/file-io.js";
import { randomId } from "../fs/file-io.js";
import { serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { type DataFileMeta, type FileSource, makeDataFileMeta } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataField } from "../spec/types.js";
import { KEY_FIELD_PREFIX, keyFieldsOf, keyValueFileFields } from "../table/primary-key.js";
import { internalValue } from "../arrow/row-values.js";
import { type DataFileWriter, localNowMillis, openDataFileWriter, simpleStats } from "./append-writer.js";
import { recordBatch } from "../arrow/record-batch.js";
import { DataFileIndexWriter, NO_FILE_INDEX } from "./data-file-index.js";

/** Rows in key order: table columns (canonical Arrow layout, table field order) plus sequence numbers and row kinds. */
export interface KvChunk {
  readonly batch: arrow.RecordBatch;
  readonly sequence: BigInt64Array;
  readonly kinds: Int8Array;
}

export interface KvFileWriterConfig {
  io: FileIO;
  schema: TableSchema;
  bucketDir: string;
  fileCompression: string;
  targetFileSize: number;
  dataFilePrefix: string;
  statsMode?: string;
  thinMode?: boolean;
  /** Row count limit of a row group (`parquet.block.row.count.limit`, a Parquet format option); default 1,048,576. */
  rowGroupRows?: number;
}

function sliceChunk(chunk: KvChunk, from: number, to: number): KvChunk {
  const rows = new Uint32Array(to - from);
  for (let i = 0; i < rows.length; i++) rows[i] = from + i;
  return { batch: takeRows(chunk.batch, rows), sequence: chunk.sequence.slice(from, to), kinds: chunk.kinds.slice(from, to) };
}


export class KvFileWriter {
  private readonly uuid = randomId();
  private counter = 0;
  private readonly fileFields: DataField[];
  /** Per file field: the batch column it comes from (-1 sequence, -2 row kind). */
  private readonly sourceColumns: number[];
  private readonly keyFields: DataField[];
  private readonly keyIndexes: number[];
  private current: DataFileWriter | null = null;
  private extension = "parquet";
  private index: DataFileIndexWriter | null = null;
  private state: { rows: number; deletes: bigint; minSeq: bigint; maxSeq: bigint; minKey: Uint8Array | null; lastChunk: KvChunk | null } | null = null;
  readonly finished: DataFileMeta[] = [];

  constructor(
    private readonly config: KvFileWriterConfig,
    private readonly level: number,
    private readonly fileSource: FileSource,
  ) {
    const schema = config.schema;
    this.fileFields = keyValueFileFields(schema, config.thinMode ?? false);
    this.keyFields = keyFieldsOf(schema);
    this.keyIndexes = this.keyFields.map((k) => schema.fields.indexOf(k));
    this.sourceColumns = this.fileFields.map((f) => {
      if (f.name === "_SEQUENCE_NUMBER") return -1;
      if (f.name === "_VALUE_KIND") return -2;
      const value = schema.fields.findIndex((x) => x.id === f.id);
      if (value >= 0) return value;
      return schema.fields.findIndex((x) => KEY_FIELD_PREFIX + x.name === f.name);
    });
  }

  private keyRow(chunk: KvChunk, row: number): Uint8Array {
    const types = this.keyFields.map((f) => f.type);
    const values = this.keyIndexes.map((c, i) => internalValue(chunk.batch.data.children[c], row, types[i]));
    return serializeBinaryRow(toBinaryRow(values, types), types.length);
  }

  /** Appends rows (in key order, after everything written before), rolling at the target file size. */
  async write(chunk: KvChunk): Promise<void> {
    const total = chunk.batch.numRows;
    if (total === 0) return;
    const bytesPerRow = Math.max(1, (chunk.batch.data.children.reduce((s, c) => s + c.byteLength, 0) + total * 9) / total);
    for (let at = 0; at < total; ) {
      const room = this.config.targetFileSize - (this.current?.bufferedBytes ?? 0);
      const rows = Math.min(total - at, Math.max(1, Math.ceil(room / bytesPerRow)));
      await this.writeRows(at === 0 && rows === total ? chunk : sliceChunk(chunk, at, at + rows));
      at += rows;
    }
  }

  private async writeRows(chunk: KvChunk): Promise<void> {
    const n = chunk.batch.numRows;
    if (!this.current) {
      const fieldStatsModes: Record<string, string> = {};
      for (const k of this.keyFields) fieldStatsModes[KEY_FIELD_PREFIX + k.name] = "full";
      ({ writer: this.current, extension: this.extension } = openDataFileWriter(this.config.schema, this.fileFields, this.level, { compression: this.config.fileCompression, statsMode: this.config.statsMode, fieldStatsModes, rowGroupRows: this.config.rowGroupRows }));
      this.index = DataFileIndexWriter.forSchema(this.config.schema); // over the value (= table) columns, like Java
      this.state = { rows: 0, deletes: 0n, minSeq: chunk.sequence[0], maxSeq: chunk.sequence[0], minKey: null, lastChunk: null };
    }
    const st = this.state!;
    if (st.minKey === null) st.minKey = this.keyRow(chunk, 0);
    let deletes = 0;
    let minSeq = st.minSeq;
    let maxSeq = st.maxSeq;
    for (let i = 0; i < n; i++) {
      const k = chunk.kinds[i];
      if (k === 1 || k === 3) deletes++;
      const s = chunk.sequence[i];
      if (s < minSeq) minSeq = s;
      if (s > maxSeq) maxSeq = s;
    }
    st.rows += n;
    st.deletes += BigInt(deletes);
    st.minSeq = minSeq;
    st.maxSeq = maxSeq;
    st.lastChunk = chunk;
    const cols = chunk.batch.data.children;
    const children: arrow.Data[] = this.sourceColumns.map((c) => {
      if (c === -1) return arrow.makeData({ type: new arrow.Int64(), length: n, data: chunk.sequence });
      if (c === -2) return arrow.makeData({ type: new arrow.Int8(), length: n, data: chunk.kinds });
      return cols[c];
    });
    const schema = new arrow.Schema(this.fileFields.map((f, i) => new arrow.Field(f.name, children[i].type, true)));
    this.current.write(recordBatch(schema, children, n));
    this.index?.update(chunk.batch);
    if (this.current.bufferedBytes >= this.config.targetFileSize) await this.roll();
  }

  /** Finishes the open file. */
  async roll(): Promise<void> {
    const writer = this.current;
    const st = this.state;
    const index = this.index;
    this.current = null;
    this.state = null;
    this.index = null;
    if (!writer || !st || st.rows === 0) return;
    const fileName = `${this.config.dataFilePrefix}${this.uuid}-${this.counter++}.${this.extension}`;
    const path = `${this.config.bucketDir}/${fileName}`;
    const result = await writer.finish();
    await this.config.io.writeFile(path, result.bytes);
    const { embeddedIndex, extraFiles } = index ? await index.finish(this.config.io, path, fileName) : NO_FILE_INDEX;
    const last = st.lastChunk!;
    const maxKey = this.keyRow(last, last.batch.numRows - 1);
    const stats = result.stats;
    const valueStart = this.fileFields.length - this.config.schema.fields.length;
    const keyStats = this.config.thinMode
      ? simpleStats(this.keyFields, this.keyIndexes.map((c) => stats[valueStart + c]))
      : simpleStats(this.keyFields, stats.slice(0, this.keyFields.length));
    this.finished.push(
      makeDataFileMeta({
        fileName,
        fileSize: BigInt(result.fileSize),
        rowCount: BigInt(st.rows),
        minKey: st.minKey!,
        maxKey,
        keyStats,
        valueStats: simpleStats(this.config.schema.fields, stats.slice(valueStart)),
        minSequenceNumber: st.minSeq,
        maxSequenceNumber: st.maxSeq,
        schemaId: this.config.schema.id,
        level: this.level,
        creationTime: localNowMillis(),
        deleteRowCount: st.deletes,
        fileSource: this.fileSource,
        embeddedIndex,
        extraFiles,
      }),
    );
  }

  /** Closes the open file and returns every file written. */
  async finish(): Promise<DataFileMeta[]> {
    await this.roll();
    return this.finished;
  }
}
