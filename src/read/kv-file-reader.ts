// Reading primary-key data files: table columns mapped by field id (schema evolution), plus
// `_SEQUENCE_NUMBER` and `_VALUE_KIND`, with the file's deletion vector applied (§8).
import { columnValues } from "../arrow/values.js";
import { checkDataFileFormat, isWholeDataFile, readWholeDataFile } from "../format/file-formats.js";
import * as arrow from "apache-arrow";
import { takeRows } from "../arrow/take.js";
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { readParquetBatches, readParquetBatchesCached } from "../format/parquet-reader.js";
import { fileIOSource, toByteSource } from "../format/source.js";
import { RoaringBitmap32 } from "../kernel/bitmap.js";
import { DELETION_VECTOR_INDEX_VERSION, type DeletionVector, readDeletionVector } from "../kernel/deletion-vector.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import { SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD } from "../table/primary-key.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { recordBatch } from "../arrow/record-batch.js";
import type { FooterCache } from "../format/footer-cache.js";
import type { ChunkCache } from "../format/chunk-cache.js";
import type { KvBatch } from "./merge-functions.js";
import { bindPredicate, type Predicate } from "../predicate/predicate.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import { readFooter } from "../format/footer.js";
import { readSelective } from "./selective-read.js";

/** Where a data file's deletion vector lives (Java `DeletionFile`). */
export interface DeletionFile {
  /** Path of the DV index file. */
  readonly path: string;
  readonly offset: number;
  readonly length: number;
  readonly cardinality: bigint | null;
}

/** A batch of a PK data file: the requested columns plus sequence numbers and row kinds. */
// The batch type is the merge's input type (merge-functions.ts), so the merge never imports the reader.
export type { KvBatch } from "./merge-functions.js";

/** Fields of the schema each data file was written with (cached per schema id). */
export class FileSchemas {
  private readonly cache = new Map<number, Promise<readonly DataField[]>>();

  constructor(private readonly table: FileStoreTable) {
    this.cache.set(table.schema.id, Promise.resolve(table.schema.fields));
  }

  fieldsOf(schemaId: number | bigint): Promise<readonly DataField[]> {
    const id = Number(schemaId);
    let f = this.cache.get(id);
    if (!f) this.cache.set(id, (f = this.table.schemaManager.schema(id).then((s) => s.fields)));
    return f;
  }
}

/** Indices (within a batch) of the rows at file positions `from..from+rows` not in `deleted`. */
export function keptPositions(deleted: RoaringBitmap32, from: number, rows: number): Uint32Array {
  const positions = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) positions[i] = from + i;
  const hit = deleted.hasMany(positions);
  let kept = 0;
  for (let i = 0; i < rows; i++) if (!hit[i]) positions[kept++] = i;
  return positions.subarray(0, kept);
}

/**
 * The deletion vector `df` points at in its index file (`file`), with the file's version byte
 * and the vector's CRC32 checked (Java skips the CRC; its writers and pypaimon's always store
 * it). CORRUPT_FILE naming the index file.
 */
function readIndexedDeletionVector(file: Uint8Array, df: DeletionFile): DeletionVector {
  try {
    if (file.length === 0 || file[0] !== DELETION_VECTOR_INDEX_VERSION) {
      throw new PaimonError("CORRUPT_FILE", `deletion-vector index file version ${file[0] ?? "(empty file)"} is not ${DELETION_VECTOR_INDEX_VERSION}`);
    }
    return readDeletionVector(file, df.offset, df.length);
  } catch (e) {
    if (e instanceof PaimonError && e.code === "CORRUPT_FILE") throw new PaimonError("CORRUPT_FILE", `${df.path}: ${e.message}`, { cause: e });
    throw e;
  }
}

/** Caches DV index files (read once per reader) and decodes deletion vectors. */
export class DeletionVectorLoader {
  private readonly files = new Map<string, Promise<Uint8Array>>();

  constructor(private readonly io: FileIO) {}

  /** The deleted positions of a file (the caller owns and must dispose the bitmap). */
  async load(df: DeletionFile): Promise<RoaringBitmap32> {
    let bytes = this.files.get(df.path);
    if (!bytes) this.files.set(df.path, (bytes = this.io.readFile(df.path)));
    const dv = readIndexedDeletionVector(await bytes, df);
    if (dv.format === "bitmap32") return dv.bitmap;
    // 64-bit vectors: positions of one file fit in 32 bits in practice.
    const out = new RoaringBitmap32();
    for (const p of dv.bitmap.toBigUint64Array()) {
      if (p > 0x7fffffffn) throw new PaimonError("UNSUPPORTED", `deletion vector in ${df.path} has position ${p} beyond 2^31`);
      out.add(Number(p));
    }
    dv.bitmap.dispose();
    return out;
  }
}

/** Reads a PK data file in batches; rows deleted by `deleted` (positions in the file) are skipped. */
export async function* readKvFile(
  io: FileIO,
  path: string,
  file: DataFileMeta,
  fields: readonly DataField[],
  options: {
    batchSize: number;
    deleted?: RoaringBitmap32 | null;
    fileFields?: readonly DataField[];
    withoutSystemColumns?: boolean;
    footers?: FooterCache;
    /** Decoded column chunks kept across reads (none when absent). */
    chunkCache?: ChunkCache | null;
    /** The first primary-key field (the file's rows are sorted by it), for selective reads. */
    sortedBy?: string;
    /**
     * Exact filter on key columns (bound to `tableFields`): only matching rows are returned, read
     * selectively (row groups and pages pruned by statistics, other columns decoded late). Exact
     * before a merge because it keeps every version of a key or none.
     */
    keyFilter?: { predicate: Predicate; tableFields: readonly DataField[] } | null;
    /** The table's `orc.timestamp-ltz.legacy.type` for ORC files (`OrcDataReadOptions.timestampLtzLegacy`). */
    timestampLtzLegacy?: boolean;
  },
): AsyncGenerator<KvBatch> {
  // Without system columns (raw reads of files known to hold no retract rows): sequence
  // numbers come back as zeros and every row kind as INSERT.
  const system = !options.withoutSystemColumns;
  const readFields = system ? [...fields, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD] : [...fields];
  // For files without Parquet field ids: the fields of the schema the file was written with.
  const fileFields = options.fileFields ? [SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...options.fileFields] : undefined;
  checkDataFileFormat(path); // formats paimon-rt does not read: UNSUPPORTED, not CORRUPT_FILE
  let position = 0;
  const deleted = options.deleted && !options.deleted.isEmpty ? options.deleted : null;
  // Avro files (Java's `file.format.per.level`, postpone-bucket files): read whole, the key
  // filter applied row by row to the batches (exact, as the selective Parquet read)
  const avro = isWholeDataFile(path);
  const keyFilter = options.keyFilter && !avro ? options.keyFilter : null;
  const avroKeyFilter = avro && options.keyFilter ? bindPredicate(options.keyFilter.predicate, readFields) : null;
  const source = avro ? null : await fileIOSource(io, path, Number(file.fileSize));
  const footer = source && options.footers ? await options.footers.get(source, path) : undefined;
  const batches = !source
    ? readWholeDataFile(io.readFile(path), { fields: readFields, fileFields, batchSize: options.batchSize, fileName: path, timestampLtzLegacy: options.timestampLtzLegacy })
    : keyFilter
      ? readSelective(toByteSource(source, path), {
          fields: readFields,
          tableFields: keyFilter.tableFields,
          fileFields: fileFields ?? readFields,
          filter: keyFilter.predicate,
          deleted,
          batchSize: options.batchSize,
          footer: footer ?? (await readFooter(toByteSource(source, path))),
          chunkCache: options.chunkCache,
          sortedBy: options.sortedBy,
        })
      : options.chunkCache
        ? readParquetBatchesCached(source, { fields: readFields, mapBy: "id", fileFields, batchSize: options.batchSize, fileName: path, footer }, options.chunkCache)
        : readParquetBatches(source, { fields: readFields, mapBy: "id", fileFields, batchSize: options.batchSize, fileName: path, footer });
  for await (const raw of batches) {
    const n = raw.numRows;
    let batch = raw;
    if (deleted && !keyFilter) {
      const kept = keptPositions(deleted, position, n);
      if (kept.length < n) batch = takeRows(raw, kept);
    }
    position += n;
    if (avroKeyFilter && batch.numRows > 0) {
      const rows = filterBatchIndices(avroKeyFilter, batch);
      if (rows.length < batch.numRows) batch = takeRows(batch, rows);
    }
    if (batch.numRows === 0) continue;
    const cols = batch.data.children;
    if (!system) {
      yield { batch, sequence: new BigInt64Array(batch.numRows), kinds: new Int8Array(batch.numRows) };
      continue;
    }
    const seqData = cols[fields.length];
    const kindData = cols[fields.length + 1];
    if (seqData.nullCount > 0) throw new PaimonError("CORRUPT_FILE", `${path}: _SEQUENCE_NUMBER has nulls (not a primary-key data file?)`);
    // (selective reads yield slices: values start at the data's offset)
    const sequence = columnValues<BigInt64Array>(seqData);
    const kinds = kindData.nullCount > 0 ? new Int8Array(batch.numRows) : columnValues<Int8Array>(kindData);
    const outSchema = new arrow.Schema(batch.schema.fields.slice(0, fields.length));
    yield { batch: recordBatch(outSchema, cols.slice(0, fields.length), batch.numRows), sequence, kinds };
  }
  // (a selective read returns only matching rows: nothing to check against the manifest)
  if (!keyFilter && BigInt(position) !== file.rowCount) {
    throw new PaimonError("CORRUPT_FILE", `${path}: read ${position} rows, the manifest says ${file.rowCount}`);
  }
}
