// Appends to tables with BLOB columns (data evolution), as Java 1.4.2's
// `DedicatedFormatRollingFileWriter` with `MultipleBlobFileWriter` writes them: each BLOB column
// not in `blob-descriptor-field` goes to `.blob` files of its own (src/format/blob-file-write.ts),
// rolled after the value that takes a file to `blob.target-file-size` (default
// `target-file-size`); the other columns (descriptor fields included, as serialized
// `BlobDescriptor`s) go to the normal data file, whose `_WRITE_COLS` name them. When the normal
// file rolls, the blob files of its rows close with it. Metadata as Java's: blob files have no
// stats (`valueStatsCols` empty), `_WRITE_COLS` their column; every file's sequence numbers start
// at 0 (the commit gives them the snapshot id); the commit gives each blob file the first row id
// after the previous blob file of its column, from its normal file's (src/commit/row-tracking.ts).
import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { randomId } from "../fs/file-io.js";
import { parseBlobDescriptor, serializeBlobDescriptor } from "../format/blob-file.js";
import { BlobFileWriter } from "../format/blob-file-write.js";
import { binaryAt, isValidAt } from "../arrow/values.js";
import { binaryData } from "../read/blob-read.js";
import { crc32 } from "../spec/avro.js";
import { emptyStats, makeDataFileMeta, type DataFileMeta } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataField } from "../spec/types.js";
import { recordBatch } from "../arrow/record-batch.js";
import { AppendBucketWriter, type AppendWriterConfig, localNowMillis } from "./append-writer.js";
import * as arrowRuntime from "apache-arrow";

/** Which columns of a table with BLOB columns go where (Java `BlobType.fieldNamesInBlobFile`). */
export interface BlobLayout {
  /** Columns of the normal data file, in table order (descriptor fields included). */
  readonly normalFields: readonly DataField[];
  /** BLOB columns written to `.blob` files, in table order. */
  readonly blobFileFields: readonly DataField[];
  /** BLOB columns stored inline as serialized descriptors (`blob-descriptor-field`). */
  readonly descriptorFields: readonly DataField[];
}

/** A comma-separated field list option (Java `CoreOptions.blobDescriptorField`: trimmed, blanks dropped), the first of `keys` set. */
function fieldList(options: Readonly<Record<string, string>>, keys: readonly string[]): string[] {
  const raw = keys.map((k) => options[k]).find((v) => v !== undefined) ?? "";
  return raw.split(",").map((x) => x.trim()).filter((x) => x !== "");
}

/** The layout of `schema`'s columns, null when it has no BLOB column. */
export function blobLayout(schema: TableSchema): BlobLayout | null {
  const blobs = schema.fields.filter((f) => f.type.kind === "BLOB");
  if (blobs.length === 0) return null;
  const descriptors = fieldList(schema.options, ["blob-descriptor-field", "blob.stored-descriptor-fields"]);
  const blobFileFields = blobs.filter((f) => !descriptors.includes(f.name));
  return { normalFields: schema.fields.filter((f) => !blobFileFields.includes(f)), blobFileFields, descriptorFields: blobs.filter((f) => descriptors.includes(f.name)) };
}

/**
 * Refuses, before anything is written, appends paimon-rt does not do as Java: columns in
 * `blob-external-storage-field` (Java writes their bytes to `blob-external-storage-path`, outside
 * the table) and `blob-as-descriptor=true` (Java then takes descriptors as input and copies the
 * bytes they point at, anywhere, into the table's blob files). UNSUPPORTED naming the option.
 */
export function checkBlobWritable(identifier: string, schema: TableSchema, what: string): void {
  const external = fieldList(schema.options, ["blob-external-storage-field"]);
  if (external.length > 0) throw new PaimonError("UNSUPPORTED", `${what} on table ${identifier}: BLOB columns in 'blob-external-storage-field' (${external.join(", ")}) are not supported: Java writes their bytes to 'blob-external-storage-path', outside the table, and paimon-rt writes nothing outside the table`);
  if (schema.options["blob-as-descriptor"]?.trim().toLowerCase() === "true") throw new PaimonError("UNSUPPORTED", `${what} on table ${identifier}: writing with 'blob-as-descriptor' = 'true' is not supported: Java then reads the bytes the input descriptors point at (anywhere) into the table's blob files; write the bytes themselves, or use 'blob-descriptor-field' to store descriptors`);
}

/**
 * `batch` (canonical layout, the table's columns) with each descriptor field's values checked to
 * be serialized `BlobDescriptor`s and re-serialized as Java's writer does (`toDescriptor().serialize()`:
 * version 2). INVALID_ARGUMENT naming the column and row otherwise. The URIs are stored as given
 * (Java does not check them at write); reads follow only those inside the table (src/read/blob-read.ts).
 */
export function checkDescriptorColumns(identifier: string, layout: BlobLayout, fields: readonly DataField[], batch: arrow.RecordBatch): arrow.RecordBatch {
  if (layout.descriptorFields.length === 0) return batch;
  const children = batch.data.children.slice();
  for (const field of layout.descriptorFields) {
    const i = fields.indexOf(field);
    const data = children[i]!;
    const values: Array<Uint8Array | null> = [];
    for (let row = 0; row < data.length; row++) {
      if (!isValidAt(data, row)) {
        values.push(null);
        continue;
      }
      const raw = binaryAt(data, row);
      let d;
      try {
        d = parseBlobDescriptor(raw, `row ${row}`, { PaimonError, crc32 });
      } catch (e) {
        throw new PaimonError("INVALID_ARGUMENT", `column ${field.name} of table ${identifier} ('blob-descriptor-field'): ${(e as Error).message}; a descriptor field holds serialized BlobDescriptors (Java: magic 'BLOBDESC')`);
      }
      values.push(serializeBlobDescriptor(d.uri, d.offset, d.length));
    }
    children[i] = binaryData({ PaimonError, crc32, makeData: arrowRuntime.makeData }, data.type, values, `column ${field.name} of table ${identifier}`);
  }
  return recordBatch(batch.schema, children, batch.numRows);
}

/**
 * INVALID_ARGUMENT when a BLOB column of `batch` (as given, before conversion) is not Arrow
 * `Binary`, `LargeBinary` or `FixedSizeBinary`: BLOB values are bytes (Java `Blob.fromData`),
 * never text or numbers converted to bytes.
 */
export function checkBlobArrowTypes(identifier: string, layout: BlobLayout, batch: arrow.RecordBatch): void {
  for (const field of [...layout.blobFileFields, ...layout.descriptorFields]) {
    const given = batch.schema.fields.find((f) => f.name === field.name);
    if (given === undefined) continue; // (reported as a missing column)
    const id = given.type.typeId;
    if (id !== arrowRuntime.Type.Binary && id !== arrowRuntime.Type.LargeBinary && id !== arrowRuntime.Type.FixedSizeBinary) {
      throw new PaimonError("INVALID_ARGUMENT", `column ${field.name} of table ${identifier} is BLOB: its values must be Arrow Binary, LargeBinary or FixedSizeBinary, got ${String(given.type)}`);
    }
  }
}

/** The `.blob` files of one BLOB column, rolled by size. */
class BlobColumnWriter {
  private current: BlobFileWriter | null = null;
  private currentName = "";
  readonly closed: DataFileMeta[] = [];

  constructor(
    private readonly field: DataField,
    private readonly owner: BlobBucketWriter,
  ) {}

  async add(value: Uint8Array | null): Promise<void> {
    if (this.current === null) {
      this.current = new BlobFileWriter();
      this.currentName = this.owner.nextFileName("blob");
    }
    this.current.add(value);
    if (this.current.position >= this.owner.blobTargetFileSize) await this.close();
  }

  /** Writes the open file, if any. */
  async close(): Promise<void> {
    const file = this.current;
    this.current = null;
    if (file === null || file.rowCount === 0) return;
    const bytes = file.finish();
    await this.owner.config.io.writeFile(`${this.owner.config.bucketDir}/${this.currentName}`, bytes);
    const rows = BigInt(file.rowCount);
    this.closed.push(
      makeDataFileMeta({
        fileName: this.currentName,
        fileSize: BigInt(bytes.length),
        rowCount: rows,
        keyStats: emptyStats(),
        valueStats: emptyStats(),
        minSequenceNumber: 0n,
        maxSequenceNumber: rows - 1n,
        schemaId: this.owner.config.schema.id,
        level: 0,
        creationTime: localNowMillis(),
        deleteRowCount: 0n,
        fileSource: 0,
        valueStatsCols: [],
        writeCols: [this.field.name],
      }),
    );
  }
}

/**
 * One partition-bucket of a table with BLOB columns: the normal data file (rolled at
 * `target-file-size`) and, per BLOB column, the `.blob` files of the same rows; `prepareCommit`
 * returns each normal file followed by its blob files, column by column (Java's order, which the
 * commit's row id assignment relies on).
 */
export class BlobBucketWriter {
  private readonly uuid = randomId();
  private fileCounter = 0;
  private readonly normal: AppendBucketWriter;
  private readonly columns: BlobColumnWriter[];
  private readonly blobIndexes: number[];
  private readonly normalIndexes: number[];
  private readonly finished: DataFileMeta[] = [];

  constructor(
    readonly config: AppendWriterConfig,
    layout: BlobLayout,
    readonly blobTargetFileSize: number,
  ) {
    const fields = config.schema.fields;
    const normalFields = layout.normalFields;
    this.normal = new AppendBucketWriter({ ...config, schema: { ...config.schema, fields: [...normalFields] }, fileName: (extension) => this.nextFileName(extension), writeCols: normalFields.map((f) => f.name), sequencePerFile: true }, 0n);
    this.columns = layout.blobFileFields.map((f) => new BlobColumnWriter(f, this));
    this.blobIndexes = layout.blobFileFields.map((f) => fields.indexOf(f));
    this.normalIndexes = normalFields.map((f) => fields.indexOf(f));
  }

  /** The next file name of this writer (Java's path factory: one uuid, one counter for normal and blob files). */
  nextFileName(extension: string): string {
    return `${this.config.dataFilePrefix}${this.uuid}-${this.fileCounter++}.${extension}`;
  }

  /** Buffers a batch (the table's columns, canonical layout, descriptor fields checked). */
  async write(batch: arrow.RecordBatch): Promise<void> {
    if (batch.numRows === 0) return;
    const schema = new arrowRuntime.Schema(this.normalIndexes.map((i) => batch.schema.fields[i]));
    // (Java opens the normal file before the blob files: it gets the lower counter; a normal
    // file that rolls here closes the blob files after this batch's values)
    await this.normal.write(recordBatch(schema, this.normalIndexes.map((i) => batch.data.children[i]), batch.numRows));
    // row by row, as Java: a blob file rolled by one column gets the next counter before another column's next file
    const columns = this.blobIndexes.map((i) => batch.data.children[i]);
    for (let row = 0; row < batch.numRows; row++) {
      for (let c = 0; c < columns.length; c++) {
        const data = columns[c];
        await this.columns[c].add(isValidAt(data, row) ? binaryAt(data, row) : null);
      }
    }
    if (this.normal.bufferedRows === 0) await this.closeGroup();
  }

  /** Closes the blob files of the normal file just finished; its files in Java's order. */
  private async closeGroup(): Promise<void> {
    const normal = await this.normal.prepareCommit();
    for (const c of this.columns) await c.close();
    if (normal.length === 0) return;
    this.finished.push(...normal);
    for (const c of this.columns) this.finished.push(...c.closed.splice(0));
  }

  /** Closes the open files and hands over every file written since the last call. */
  async prepareCommit(): Promise<DataFileMeta[]> {
    await this.closeGroup();
    return this.finished.splice(0);
  }
}
