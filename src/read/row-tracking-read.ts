// `$row_tracking` (Java 1.4.2 `RowTrackingTable`): the data rows of a row-tracking table with
// `_ROW_ID` and `_SEQUENCE_NUMBER`. As Java's `DataFileRecordReader` with row tracking, a file's
// own `_ROW_ID` / `_SEQUENCE_NUMBER` columns (compacted files carry them) are read where present,
// and their absent or null values become `firstRowId + position in the file` and the file's
// `maxSequenceNumber`. A lazily imported chunk: only types are imported, the query bundle's
// modules come in through `RowTrackingDeps` (see src/format/avro-data-read.ts); append compaction
// (src/write/append-compact.ts) fills the columns it writes with `withRowTracking`.
import type * as arrow from "apache-arrow";
import type { PaimonError } from "../error.js";
import type { bindPredicate, Predicate, referencedFields } from "../predicate/predicate.js";
import type { concatData } from "../arrow/concat.js";
import type { recordBatch } from "../arrow/record-batch.js";
import type { crc32 } from "../spec/avro.js";

import type { filterBatchIndices } from "../predicate/evaluate.js";
import type { takeRows } from "../arrow/take.js";
import type { TableRead } from "../read/table-read.js";
import type { BatchReader } from "../read/batch-reader.js";
import type { Split } from "../scan/split.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DeletionVectorLoader, keptPositions } from "./kv-file-reader.js";

/** What the read uses of the query bundle (system-tables.ts passes it). */
export interface RowTrackingDeps {
  PaimonError: typeof PaimonError;
  TableRead: typeof TableRead;
  makeData: typeof arrow.makeData;
  RecordBatch: typeof arrow.RecordBatch;
  Struct: typeof arrow.Struct;
  bindPredicate: typeof bindPredicate;
  filterBatchIndices: typeof filterBatchIndices;
  takeRows: typeof takeRows;
  DeletionVectorLoader: typeof DeletionVectorLoader;
  keptPositions: typeof keptPositions;
  referencedFields: typeof referencedFields;
  concatData: typeof concatData;
  recordBatch: typeof recordBatch;
  crc32: typeof crc32;
  /** The data-evolution chunk (src/read/data-evolution.ts). */
  loadDataEvolution: () => Promise<typeof import("./data-evolution.js")>;
}

/**
 * Batches of `schema` (the system table's columns `names`, a projection of the data columns then
 * `_ROW_ID`, `_SEQUENCE_NUMBER`) of `splits`. `inner` reads the data table's files with the data
 * columns and nullable `_ROW_ID` / `_SEQUENCE_NUMBER` (by their field ids) last; `filter` applies
 * exactly when given.
 */
export function readRowTracking(deps: RowTrackingDeps, inner: FileStoreTable, identifier: string, splits: readonly Split[], schema: arrow.Schema, names: readonly string[], filter: Predicate | null, batchSize: number | undefined): BatchReader {
  const all = inner.schema.fields;
  const columns = names.map((n) => all.findIndex((f) => f.name === n));
  if (columns.includes(-1)) throw new deps.PaimonError("UNSUPPORTED", `${identifier}: nested projections are not supported`);
  const bound = filter ? deps.bindPredicate(filter, all) : null;
  const read = new deps.TableRead(inner, batchSize === undefined ? {} : { batchSize });
  const deletionVectors = new deps.DeletionVectorLoader(inner.fileIO);
  async function* batches(): AsyncGenerator<arrow.RecordBatch, void, undefined> {
    for (const split of splits) {
      if (split.dataEvolution) {
        // data-evolution tables: rows merged by row id, the ids and sequence numbers from each range's newest file
        const fields = names.map((n) => all.find((f) => f.name === n)!);
        const referenced = new Set(filter ? deps.referencedFields(filter) : []);
        fields.push(...all.filter((f) => referenced.has(f.name) && !names.includes(f.name)));
        const request = { fields, keep: names.length, schema, filter: bound, batchSize: batchSize ?? inner.coreOptions.readBatchSize, fillRowTracking: (raw: arrow.RecordBatch, file: DataFileMeta) => withRowTracking(deps, raw, file, 0n) };
        yield* (await deps.loadDataEvolution()).mergeDataEvolution(deps, deps.TableRead, inner, split, request);
        continue;
      }
      for (const [index, file] of split.files.entries()) {
        // the file is read whole, its deleted rows dropped after numbering: ids are positions in the file
        const deletionFile = split.deletionFiles?.[index];
        const deleted = deletionFile ? await deletionVectors.load(deletionFile) : null;
        try {
          const reader = await read.createReader([{ ...split, files: [file], deletionFiles: undefined }]);
          let position = 0;
          for await (const raw of reader) {
            const n = raw.numRows;
            let batch = withRowTracking(deps, raw, file, BigInt(position));
            if (deleted) {
              const kept = deps.keptPositions(deleted, position, n);
              if (kept.length < n) batch = deps.takeRows(batch, kept);
            }
            position += n;
            if (bound) {
              const rows = deps.filterBatchIndices(bound, batch);
              if (rows.length < batch.numRows) batch = deps.takeRows(batch, rows);
            }
            if (batch.numRows === 0) continue;
            const out = columns.map((c) => batch.data.children[c]);
            yield new deps.RecordBatch(schema, deps.makeData({ type: new deps.Struct(schema.fields), length: batch.numRows, children: out, nullCount: 0 }));
          }
        } finally {
          deleted?.dispose();
        }
      }
    }
  }
  const generator = batches();
  return {
    [Symbol.asyncIterator]: () => generator,
    close: async () => {
      await generator.return(undefined);
    },
  };
}

/**
 * `raw` (rows `position…` of `file`, its last two columns `_ROW_ID` and `_SEQUENCE_NUMBER` as read,
 * null where the file has none) with the nulls filled as Java's `DataFileRecordReader` does: the
 * file's first row id plus the row's position, its max sequence number. A file without a first
 * row id keeps null ids (as Java).
 */
export function withRowTracking(deps: Pick<RowTrackingDeps, "makeData" | "RecordBatch" | "Struct">, raw: arrow.RecordBatch, file: DataFileMeta, position: bigint): arrow.RecordBatch {
  const n = raw.numRows;
  const children = raw.data.children.slice();
  const rowIdColumn = children.length - 2;
  const rowIds = children[rowIdColumn];
  const ids = new BigInt64Array(n);
  const valid = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  const given = rowIds.values as BigInt64Array;
  for (let i = 0; i < n; i++) {
    if (rowIds.getValid(i)) ids[i] = given[rowIds.offset + i];
    else if (file.firstRowId !== null) ids[i] = file.firstRowId + position + BigInt(i);
    else {
      nulls++;
      continue;
    }
    valid[i >> 3] |= 1 << (i & 7);
  }
  const seqs = children[rowIdColumn + 1];
  const seq = new BigInt64Array(n);
  const givenSeq = seqs.values as BigInt64Array;
  for (let i = 0; i < n; i++) seq[i] = seqs.getValid(i) ? givenSeq[seqs.offset + i] : file.maxSequenceNumber;
  children[rowIdColumn] = deps.makeData({ type: rowIds.type as arrow.Int64, length: n, data: ids, nullCount: nulls, nullBitmap: nulls > 0 ? valid : undefined });
  children[rowIdColumn + 1] = deps.makeData({ type: seqs.type as arrow.Int64, length: n, data: seq, nullCount: 0 });
  return new deps.RecordBatch(raw.schema, deps.makeData({ type: new deps.Struct(raw.schema.fields), length: n, children, nullCount: 0 }));
}
