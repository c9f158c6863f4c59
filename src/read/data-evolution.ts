// Reading data-evolution tables (`data-evolution.enabled`, Java 1.4.2). Files of one row-id range
// hold the same rows: a full-row file and files that rewrote some of its columns (`_WRITE_COLS`,
// Java MERGE INTO). The scan puts each partition-bucket's files in one split (table-scan.ts); this
// read (Java `DataEvolutionSplitRead` / `DataEvolutionFileReader`) groups them by overlapping
// row-id ranges and reads the files of a range side by side, merged per row id, each column from
// the newest file (highest max sequence number) that holds it; a column no file of the range
// holds is null. As Java's scan with a read type, files holding none of the columns read (but
// `_ROW_ID` / `_SEQUENCE_NUMBER`) are left out, which decides the file `$row_tracking`'s
// `_SEQUENCE_NUMBER` comes from. A lazily imported chunk (table-read.ts; system-tables.ts for
// `$row_tracking`): only types are imported from the query bundle, its functions come in as deps.
import type * as arrow from "apache-arrow";
import type { concatData } from "../arrow/concat.js";
import type { recordBatch } from "../arrow/record-batch.js";
import type { takeRows } from "../arrow/take.js";
import type { PaimonError } from "../error.js";
import type { filterBatchIndices } from "../predicate/evaluate.js";
import type { Predicate } from "../predicate/predicate.js";
import type { DataSplit } from "../scan/split.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { TableRead } from "./table-read.js";
import type { crc32 } from "../spec/avro.js";
import { type BlobColumn, blobBunch, blobFileColumn, descriptorColumn, isBlobFile, nullBinary } from "./blob-read.js";
/** What the read uses of the query bundle (table-read.ts and the `$row_tracking` read pass it). */
export interface DataEvolutionReadDeps {
  PaimonError: typeof PaimonError;
  concatData: typeof concatData;
  recordBatch: typeof recordBatch;
  filterBatchIndices: typeof filterBatchIndices;
  takeRows: typeof takeRows;
  /** For BLOB columns (blob files and descriptors, src/read/blob-read.ts). */
  makeData: typeof arrow.makeData;
  crc32: typeof crc32;
}

/** `DataEvolutionReadDeps` in that order (table-read.ts passes a tuple: fewer bytes in the query bundle). */
export type DataEvolutionReadDepsTuple = [typeof PaimonError, typeof concatData, typeof recordBatch, typeof filterBatchIndices, typeof takeRows, typeof arrow.makeData, typeof crc32];

/** The errors this chunk raises (the caller's PaimonError: the query bundle's class). */
let D: Pick<DataEvolutionReadDeps, "PaimonError">;

/** The row ids a file holds, [from, to] (Java `DataFileMeta.nonNullRowIdRange`); `Errors`: the caller's PaimonError. */
export function rowIdRange(file: DataFileMeta, Errors: typeof PaimonError = D.PaimonError): [bigint, bigint] {
  if (file.firstRowId === null) throw new Errors("CORRUPT_FILE", `data file ${file.fileName} of a data-evolution table has no first row id`);
  return [file.firstRowId, file.firstRowId + file.rowCount - 1n];
}

/**
 * Java `RangeHelper.mergeOverlappingRanges`: items grouped by overlapping row-id ranges, groups in
 * range order, each group in input order.
 */
export function groupByRowIdRange<T>(items: readonly T[], range: (item: T) => [bigint, bigint]): T[][] {
  const indexed = items.map((item, index) => ({ item, index, range: range(item) }));
  indexed.sort((a, b) => (a.range[0] !== b.range[0] ? (a.range[0] < b.range[0] ? -1 : 1) : a.range[1] < b.range[1] ? -1 : a.range[1] > b.range[1] ? 1 : 0));
  const groups: Array<typeof indexed> = [];
  let end = -1n;
  for (const x of indexed) {
    if (groups.length > 0 && x.range[0] <= end) {
      groups[groups.length - 1].push(x);
      if (x.range[1] > end) end = x.range[1];
    } else {
      groups.push([x]);
      end = x.range[1];
    }
  }
  return groups.map((g) => g.sort((a, b) => a.index - b.index).map((x) => x.item));
}

/** The files of a group, newest (highest max sequence number) first: the order in which files win a column. */
export function newestFirst<T extends { maxSequenceNumber: bigint }>(files: readonly T[]): T[] {
  return files.slice().sort((a, b) => (a.maxSequenceNumber > b.maxSequenceNumber ? -1 : a.maxSequenceNumber < b.maxSequenceNumber ? 1 : 0));
}

/** Java `TableSchema.project(writeCols)`: the fields of the file's schema that it holds (all without write columns). */
export function fileColumns(schemaFields: readonly DataField[], file: DataFileMeta): DataField[] {
  if (file.writeCols === null) return schemaFields.slice();
  const byName = new Map(schemaFields.map((f) => [f.name, f]));
  return file.writeCols.map((n) => byName.get(n)).filter((f): f is DataField => f !== undefined);
}

/** Java `SpecialFields.ROW_ID` / `SEQUENCE_NUMBER` ids: every file of a row-tracking table holds them. */
const ROW_ID = 2147483642;
const SEQUENCE_NUMBER = 2147483646;
const isSystem = (f: DataField): boolean => f.id === ROW_ID || f.id === SEQUENCE_NUMBER;

export interface DataEvolutionReadRequest {
  /** Top-level fields of `table` to read: the returned ones (`keep` first), then the filter's others. */
  fields: readonly DataField[];
  /** How many of `fields` the batches keep. */
  keep: number;
  /** Schema of the batches returned (the first `keep` fields). */
  schema: arrow.Schema;
  /** Exact filter, bound to `table`'s fields (null: none). */
  filter: Predicate | null;
  batchSize: number;
  /**
   * `$row_tracking`: `table`'s last two fields are nullable `_ROW_ID` / `_SEQUENCE_NUMBER`, and
   * this fills them in a file's rows read with them last (row-tracking-read.ts `withRowTracking`);
   * they come from the range's newest file.
   */
  fillRowTracking?: (raw: arrow.RecordBatch, file: DataFileMeta) => arrow.RecordBatch;
}

/**
 * The merged batches of one split of a data-evolution table for `read` (its table, filter and
 * batch size): `fields` are the columns it reads, its own (returned, of `schema`) then the filter's.
 */
export function readDataEvolution(read: TableRead, split: DataSplit, fields: readonly DataField[], schema: arrow.Schema, [PaimonError, concatData, recordBatch, filterBatchIndices, takeRows, makeData, crc32]: DataEvolutionReadDepsTuple): AsyncGenerator<arrow.RecordBatch, void, undefined> {
  const deps = { PaimonError, concatData, recordBatch, filterBatchIndices, takeRows, makeData, crc32 };
  return mergeDataEvolution(deps, read.constructor as typeof TableRead, read.table, split, { fields, keep: read.fields.length, schema, filter: read.filter, batchSize: read.batchSize });
}

/** The merged batches of one split of a data-evolution table (`fileReader`: the class that reads one file). */
export async function* mergeDataEvolution(deps: DataEvolutionReadDeps, fileReader: typeof TableRead, table: FileStoreTable, split: DataSplit, request: DataEvolutionReadRequest): AsyncGenerator<arrow.RecordBatch, void, undefined> {
  D = deps;
  if (split.deletionFiles?.some((d) => d !== null)) throw new D.PaimonError("UNSUPPORTED", `table ${table.identifier}: deletion vectors on a data-evolution table are not supported (Java refuses deletion-vectors.enabled with data-evolution.enabled)`);
  const schemas = new Map<number, readonly DataField[]>();
  const heldBy = async (file: DataFileMeta): Promise<Set<number>> => {
    const id = Number(file.schemaId);
    let fields = schemas.get(id);
    if (fields === undefined) schemas.set(id, (fields = (await table.schemaManager.schema(id)).fields));
    return new Set(fileColumns(fields, file).map((f) => f.id));
  };
  const readNames = request.fields.map((f) => f.name);
  const readSchema = new fileReader(table, { projection: readNames }).outputSchema;
  const asDescriptor = table.schema.options["blob-as-descriptor"]?.trim().toLowerCase() === "true";
  for (const group of groupByRowIdRange(split.files, (f) => rowIdRange(f))) {
    const held = new Map<DataFileMeta, Set<number>>();
    for (const f of group) held.set(f, await heldBy(f));
    // BLOB columns in blob files (Java DataEvolutionSplitRead.splitFieldBunches): a read field no
    // data file of the range holds, read from the blob files of its column
    const dataFiles = group.filter((f) => !isBlobFile(f.fileName));
    const blobFiles = new Map<number, DataFileMeta[]>();
    for (const f of group) {
      if (!isBlobFile(f.fileName)) continue;
      const [id] = held.get(f)!;
      if (held.get(f)!.size !== 1) throw new D.PaimonError("CORRUPT_FILE", `table ${table.identifier}: blob file ${f.fileName} holds ${held.get(f)!.size} columns, not one`);
      blobFiles.set(id, [...(blobFiles.get(id) ?? []), f]);
    }
    const fromBlobFiles = (field: DataField): boolean => !isSystem(field) && blobFiles.has(field.id) && !dataFiles.some((f) => held.get(f)!.has(field.id));
    const blobIndexes = request.fields.flatMap((f, i) => (fromBlobFiles(f) ? [i] : []));
    const dataFields = request.fields.filter((f) => !fromBlobFiles(f));
    const dataNonSystem = dataFields.filter((f) => !isSystem(f));
    // (Java's scan with a read type: files holding none of the columns read are not planned)
    let files = newestFirst(dataNonSystem.length === 0 ? dataFiles : dataFiles.filter((f) => dataNonSystem.some((r) => held.get(f)!.has(r.id))));
    if (blobIndexes.length > 0) {
      if (dataFields.length === 0 && request.fields.length > 0) files = [];
      else if (files.length === 0) files = newestFirst(dataFiles);
    }
    if (files.length === 0 && blobIndexes.length === 0) continue;
    if (files.length === 0 && dataFields.length > 0) throw new D.PaimonError("CORRUPT_FILE", `table ${table.identifier}: blob files ${group.map((f) => f.fileName).join(", ")} without a data file of their rows`);
    // the rows: the data files' range (blob files only: all the group's)
    const rangeFile = files[0] ?? newestFirst(dataFiles)[0];
    const [from, to] = rangeFile ? rowIdRange(rangeFile) : group.map((f) => rowIdRange(f)).reduce(([a, b], [c, d]) => [c < a ? c : a, d > b ? d : b]);
    for (const f of files) {
      const [a, b] = rowIdRange(f);
      if (a !== from || b !== to) throw new D.PaimonError("CORRUPT_FILE", `table ${table.identifier}: data files ${files.map((x) => x.fileName).join(", ")} of a data-evolution table overlap without the same row id range`);
    }
    const rows = Number(to - from + 1n);
    // each read field from the newest file holding it (system fields: the newest file); a field no
    // file holds is read from the newest file too, which gives nulls for it
    const columns: Array<arrow.Data | null> = request.fields.map(() => null);
    const lazy = new Map<number, BlobColumn>();
    for (const i of blobIndexes) {
      const bunch = blobBunch(blobFiles.get(request.fields[i].id)!, from, to - from + 1n, `table ${table.identifier} column ${request.fields[i].name}`, deps);
      lazy.set(i, await blobFileColumn(deps, table, split.bucketPath, bunch, readSchema.fields[i].type, asDescriptor));
    }
    const providers = new Map<DataFileMeta, number[]>();
    request.fields.forEach((field, i) => {
      if (lazy.has(i)) return;
      const file = files.length === 1 || isSystem(field) ? files[0] : (files.find((f) => held.get(f)!.has(field.id)) ?? null);
      if (file === null && !field.type.nullable) throw new D.PaimonError("CORRUPT_FILE", `table ${table.identifier}: Field ${field.name} is not null but can't find any file contains it.`);
      const at = file ?? files[0];
      let list = providers.get(at);
      if (!list) providers.set(at, (list = []));
      list.push(i);
    });
    if (request.fields.length === 0) providers.set(files[0], []);
    for (const [file, indexes] of providers) {
      // with `fillRowTracking`: the file's columns, then `_ROW_ID` and `_SEQUENCE_NUMBER` (filled
      // from the file's meta), both read where either is wanted
      const fill = request.fillRowTracking;
      const system = fill ? indexes.filter((i) => isSystem(request.fields[i])) : [];
      const own = system.length > 0 ? indexes.filter((i) => !isSystem(request.fields[i])) : indexes;
      const names = own.map((i) => readNames[i]);
      if (system.length > 0) names.push(...table.schema.fields.slice(-2).map((f) => f.name));
      const read = new fileReader(table, { projection: names, batchSize: request.batchSize });
      const reader = await read.createReader([{ ...split, files: [file], deletionFiles: undefined, dataEvolution: false, rawConvertible: true }]);
      const parts: arrow.Data[][] = names.map(() => []);
      let count = 0;
      try {
        for await (const b of reader) {
          b.data.children.forEach((c, k) => parts[k].push(c));
          count += b.numRows;
        }
      } finally {
        await reader.close();
      }
      if (count !== rows) throw new D.PaimonError("CORRUPT_FILE", `table ${table.identifier}: data file ${file.fileName} has ${count} rows, its row id range ${from}..${to} ${rows}`);
      let whole = parts.map((p) => (p.length === 0 ? null : deps.concatData(p)));
      if (system.length > 0) {
        whole = fill!(deps.recordBatch(read.outputSchema, whole as arrow.Data[], rows), file).data.children;
        for (const i of system) columns[i] = whole[own.length + (request.fields[i].id === ROW_ID ? 0 : 1)];
      }
      own.forEach((i, k) => (columns[i] = whole[k]));
    }
    // BLOB columns stored inline as descriptors (blob-descriptor-field): the bytes they point at
    request.fields.forEach((field, i) => {
      if (field.type.kind === "BLOB" && !lazy.has(i) && !asDescriptor) lazy.set(i, descriptorColumn(deps, table, field.name, columns[i]!, false));
    });
    const lazyNames = new Set([...lazy.keys()].map((i) => readNames[i]));
    const filterReadsLazy = (q: Predicate): boolean => (q.kind === "leaf" ? lazyNames.has(q.field) : q.children.some(filterReadsLazy));
    const early = request.filter !== null && lazy.size > 0 && filterReadsLazy(request.filter);
    const withLazy = async (batch: arrow.RecordBatch, positions: readonly number[]): Promise<arrow.RecordBatch> => {
      const children = batch.data.children.slice();
      for (const [i, column] of lazy) children[i] = await column.read(positions);
      return deps.recordBatch(readSchema, children, batch.numRows);
    };
    for (let start = 0; start < rows; start += request.batchSize) {
      const n = Math.min(request.batchSize, rows - start);
      const children = columns.map((c, i) => (lazy.has(i) ? nullBinary(deps, readSchema.fields[i].type, n) : start === 0 && n === rows ? c! : c!.slice(start, n)));
      let batch = deps.recordBatch(readSchema, children, n);
      let positions = Array.from({ length: n }, (_, k) => start + k);
      if (early) batch = await withLazy(batch, positions);
      if (request.filter) {
        const kept = deps.filterBatchIndices(request.filter, batch);
        if (kept.length === 0) continue;
        if (kept.length < n) {
          batch = deps.takeRows(batch, kept);
          positions = Array.from(kept, (k) => start + k);
        }
      }
      if (!early && lazy.size > 0) batch = await withLazy(batch, positions);
      yield deps.recordBatch(request.schema, batch.data.children.slice(0, request.keep), batch.numRows);
    }
  }
}
