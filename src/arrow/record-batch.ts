// RecordBatch construction without Arrow JS's per-batch schema work. `new RecordBatch(schema,
// data)` always runs `ensureSameLengthData`, which clones the schema (merging metadata maps),
// builds a new Struct type and re-dispatches makeData through the visitor: ~5 µs per batch,
// which dominated real-time tail reads (hundreds of batches per query). Every batch built here
// has children of exactly `length` rows (checked), so that normalisation has nothing to do and
// the batch can be assembled directly. The object is a genuine RecordBatch (same prototype and
// own fields as the constructor makes; a test compares them against apache-arrow's own).
import * as arrow from "apache-arrow";
import { keepShape } from "../kernel/shapes.js";

/** The Struct type of a schema, cached per schema object (schemas are immutable). */
const structTypes = new WeakMap<arrow.Schema, arrow.Struct>();

export function structTypeOf(schema: arrow.Schema): arrow.Struct {
  let type = structTypes.get(schema);
  if (type === undefined) {
    type = new arrow.Struct(schema.fields);
    structTypes.set(schema, type);
  }
  return type;
}

/** A batch of `schema` over `children`, each exactly `length` rows long. */
export function recordBatch(schema: arrow.Schema, children: readonly arrow.Data[], length: number): arrow.RecordBatch {
  if (children.length !== schema.fields.length) throw new Error(`record batch: ${children.length} columns for ${schema.fields.length} fields`);
  for (let i = 0; i < children.length; i++) {
    if (children[i].length !== length) throw new Error(`record batch: column ${schema.fields[i].name} has ${children[i].length} rows, expected ${length}`);
  }
  const data = new arrow.Data(structTypeOf(schema), 0, length, 0, undefined, children as arrow.Data[]);
  const batch = Object.create(arrow.RecordBatch.prototype) as { schema: arrow.Schema; data: arrow.Data; _metadata: Map<string, string> };
  batch.schema = schema;
  batch.data = data;
  batch._metadata = new Map();
  return batch as unknown as arrow.RecordBatch;
}
// the shapes of the batch object and its struct Data (see kernel/shapes.ts): batches built here often all die between two uses
keepShape(recordBatch(new arrow.Schema([]), [], 0));

/** Rows [begin, end) of a batch, sharing its buffers. */
export function sliceBatch(batch: arrow.RecordBatch, begin: number, end: number): arrow.RecordBatch {
  if (begin === 0 && end === batch.numRows) return batch;
  const length = end - begin;
  return recordBatch(
    batch.schema,
    batch.data.children.map((c) => c.slice(begin, length)),
    length,
  );
}

/** Columns `indexes` of a batch under `schema` (their fields), sharing buffers. */
export function selectColumns(batch: arrow.RecordBatch, schema: arrow.Schema, indexes: readonly number[]): arrow.RecordBatch {
  const children = batch.data.children;
  return recordBatch(
    schema,
    indexes.map((i) => children[i]),
    batch.numRows,
  );
}
