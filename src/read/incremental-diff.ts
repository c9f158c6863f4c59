// Incremental reads of primary-key tables (imported by merge-read.ts for their splits only):
// delta / changelog splits read unmerged; diff splits as Java's `IncrementalDiffSplitRead`
// (without forceKeepDelete): the files only the end snapshot has, merged, against those only the start snapshot has, merged; rows whose
// key is new or whose row (or add / retract kind) differs are emitted, with the end's row kind;
// keys only the start has are not. As Java merges the two sides by key then sequence number, a
// changed key whose end row has a lower sequence number than its start row (rows written after
// an overwrite restarted the bucket's numbering) is not emitted either.
// Its run-time imports come from merge-read.ts (`IncrementalReadDeps`), as avro-data-read.ts's
// do, so bundlers split no shared module out of the query bundle for this lazily loaded chunk.
import type * as arrow from "apache-arrow";
import type { recordBatch } from "../arrow/record-batch.js";
import type { takeRows } from "../arrow/take.js";
import type { readArrowField } from "../format/arrow-types.js";
import type { DataSplit } from "../scan/split.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { PrimaryKeySplitReader } from "./merge-read.js";

/** The run-time modules this chunk uses, passed in by merge-read.ts. */
export interface IncrementalReadDeps {
  readonly Schema: typeof arrow.Schema;
  readonly Field: typeof arrow.Field;
  readonly Int8: typeof arrow.Int8;
  readonly recordBatch: typeof recordBatch;
  readonly takeRows: typeof takeRows;
  readonly readArrowField: typeof readArrowField;
  readonly Reader: typeof PrimaryKeySplitReader;
  readonly rowKindField: string;
}

const WHOLE_BATCH = 1 << 20;

/** Reads an incremental split of a primary-key table: a streaming (delta / changelog) or a diff split. */
export async function* readIncremental(reader: PrimaryKeySplitReader, table: FileStoreTable, split: DataSplit, deps: IncrementalReadDeps): AsyncGenerator<arrow.RecordBatch> {
  if (split.diffBefore && split.streaming) {
    // Java IncrementalChangelogReadProvider (a stream scan's overwrite changes): the files the
    // snapshot deleted, merged, their row kinds reversed (+I → -D, +U ↔ -U, -D → +I), then the files it added, merged
    const merged = { ...split, streaming: undefined, diffBefore: undefined, rawConvertible: false };
    for await (const b of reader.read({ ...merged, files: split.diffBefore.files })) {
      // (the kinds are this batch's own array, made by the merge read)
      if (reader.withRowKind) (b.data.children[0].values as Int8Array).forEach((k, i, kinds) => (kinds[i] = 3 - k));
      yield b;
    }
    yield* reader.read(merged);
    return;
  }
  if (split.diffBefore) {
    yield* readDiff(reader, table, split, split.diffBefore, deps);
    return;
  }
  // Java's no-merge reader of delta / changelog splits: every record, retracts too, no deletion vectors
  for (const f of split.files) {
    for await (const c of reader.readFile(split, f, null, reader.batchSize, reader.keyFilter)) {
      const out = reader.finish(c.batch, reader.withRowKind ? c.kinds : null);
      if (out) yield out;
    }
  }
}

async function* readDiff(reader: PrimaryKeySplitReader, table: FileStoreTable, split: DataSplit, before: NonNullable<DataSplit["diffBefore"]>, deps: IncrementalReadDeps): AsyncGenerator<arrow.RecordBatch> {
  const { Schema, Field, Int8, recordBatch, takeRows, readArrowField } = deps;
  const fields = table.schema.fields;
  // both sides merged as whole rows with their kinds (column 0), compared by key
  const all = new Schema([new Field(deps.rowKindField, new Int8(), false), ...fields.map((f) => readArrowField(f))]);
  const whole = new deps.Reader(table, { fields, schema: all, filter: null, batchSize: WHOLE_BATCH, withRowKind: true });
  whole.trackSeq = true;
  const keyIndexes = reader.keyFields.map((k) => fields.indexOf(k) + 1);
  const valueIndexes = fields.map((_, i) => i + 1);
  const isAdd = (kind: number) => kind === 0 || kind === 2;
  const old = new Map<string, { row: string; sequence: bigint | null }>();
  for await (const b of whole.read({ ...split, files: before.files, deletionFiles: before.deletionFiles, diffBefore: undefined })) {
    const kinds = b.data.children[0].values as Int8Array;
    const sequences = whole.lastSeq;
    for (let r = 0; r < b.numRows; r++) old.set(rowSignature(b, r, keyIndexes), { row: `${isAdd(kinds[r])}|${rowSignature(b, r, valueIndexes)}`, sequence: sequences?.[r] ?? null });
  }
  const readFields = reader.readFieldList;
  const readSchema = new Schema(readFields.map((f) => readArrowField(f)));
  const columns = readFields.map((f) => fields.indexOf(f) + 1);
  for await (const b of whole.read({ ...split, diffBefore: undefined })) {
    const kinds = b.data.children[0].values as Int8Array;
    const sequences = whole.lastSeq;
    const kept: number[] = [];
    for (let r = 0; r < b.numRows; r++) {
      // (the merged end rows are adds: retract results are dropped by the merge)
      if (!isAdd(kinds[r])) continue;
      const start = old.get(rowSignature(b, r, keyIndexes));
      if (start === undefined) kept.push(r);
      else if (start.row !== `true|${rowSignature(b, r, valueIndexes)}` && !(start.sequence !== null && sequences !== null && sequences[r] < start.sequence)) kept.push(r);
    }
    if (kept.length === 0) continue;
    const rows = Uint32Array.from(kept);
    const taken = takeRows(recordBatch(readSchema, columns.map((c) => b.data.children[c]), b.numRows), rows);
    const out = reader.finish(taken, reader.withRowKind ? Int8Array.from(rows, (r) => kinds[r]) : null);
    if (out) yield out;
  }
}

/** The values of columns `indexes` of row `r`, as one comparable string. */
function rowSignature(b: arrow.RecordBatch, r: number, indexes: readonly number[]): string {
  return JSON.stringify(
    indexes.map((i) => b.getChildAt(i)!.get(r)),
    (_, v) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v),
  );
}
