// Helpers of TableWrite for primary-key tables: row kinds travel with the rows as a trailing
// int8 column through routing, and compaction targets are resolved from the latest snapshot.
import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { recordBatch } from "../arrow/record-batch.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataField } from "../spec/types.js";
import type { PrimaryKeyConfig } from "../table/primary-key.js";

export const ROW_KIND_COLUMN = "_VALUE_KIND";

/** Checks row kinds (0..3) against the number of rows in the write. */
export function checkRowKinds(identifier: string, kinds: ArrayLike<number> | undefined, rows: number): void {
  if (!kinds) return;
  if (kinds.length !== rows) throw new PaimonError("INVALID_ARGUMENT", `rowKinds has ${kinds.length} entries for ${rows} rows written to ${identifier}`);
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds[i];
    if (k !== 0 && k !== 1 && k !== 2 && k !== 3) throw new PaimonError("INVALID_ARGUMENT", `row ${i} written to ${identifier} has invalid row kind ${String(k)} (0 +I, 1 -U, 2 +U, 3 -D)`);
  }
}

/** `batch` plus a trailing int8 row-kind column (rows `offset..` of `kinds`; all INSERT without kinds). */
export function attachRowKinds(batch: arrow.RecordBatch, kinds: ArrayLike<number> | undefined, offset: number): arrow.RecordBatch {
  const n = batch.numRows;
  const values = new Int8Array(n);
  if (kinds) for (let i = 0; i < n; i++) values[i] = kinds[offset + i];
  const fields = [...batch.schema.fields, new arrow.Field(ROW_KIND_COLUMN, new arrow.Int8(), false)];
  const children = [...batch.data.children, arrow.makeData({ type: new arrow.Int8(), length: n, data: values })];
  const schema = new arrow.Schema(fields);
  return recordBatch(schema, children, n);
}

/** Groups rows by bucket id: [bucket, row indices (null = all rows)], buckets ascending. */
export function groupByBucket(buckets: Int32Array): Array<[number, Uint32Array | null]> {
  let max = 0;
  for (let r = 0; r < buckets.length; r++) if (buckets[r]! > max) max = buckets[r]!;
  const counts = new Uint32Array(max + 1);
  for (let r = 0; r < buckets.length; r++) counts[buckets[r]!]!++;
  const used: number[] = [];
  for (let b = 0; b <= max; b++) if (counts[b]! > 0) used.push(b);
  if (used.length === 1) return [[used[0]!, null]];
  const rows = used.map((b) => new Uint32Array(counts[b]!));
  const fill = new Uint32Array(max + 1);
  const slot = new Int32Array(max + 1).fill(-1);
  used.forEach((b, i) => (slot[b] = i));
  for (let r = 0; r < buckets.length; r++) {
    const b = buckets[r]!;
    rows[slot[b]!]![fill[b]!++] = r;
  }
  return used.map((b, i) => [b, rows[i]!]);
}

/**
 * Whether a serialized partition row matches `spec` (some or all partition keys; every row when
 * absent or empty). INVALID_ARGUMENT for keys that are not partition keys.
 */
export function partitionMatcher(table: FileStoreTable, spec: Record<string, unknown> | undefined): (row: Uint8Array) => boolean {
  if (!spec || Object.keys(spec).length === 0) return () => true;
  const fields = table.partitionFields;
  const types = fields.map((f) => f.type);
  const unknown = Object.keys(spec).filter((k) => !fields.some((f) => f.name === k));
  if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `unknown partition column(s) ${unknown.join(", ")} of table ${table.identifier}`);
  const named = fields.filter((f) => f.name in spec);
  const key = (values: unknown[]) => serializeBinaryRow(toBinaryRow(values, named.map((f) => f.type)), named.length).join(",");
  const wanted = key(named.map((f) => spec[f.name]));
  return (row) => {
    const values = fromBinaryRow(row.subarray(4), types);
    return key(named.map((f) => values[fields.indexOf(f)])) === wanted;
  };
}

/**
 * The partition-buckets `compact` works on: those of the latest snapshot (and `pending`, the
 * writer's own) matching the optional partition (some or all keys) and bucket.
 */
export async function compactTargets(
  table: FileStoreTable,
  options: { partition?: Record<string, unknown>; bucket?: number },
  pending: Iterable<{ partitionRow: Uint8Array; bucket: number }>,
): Promise<Array<{ values: unknown[]; bucket: number }>> {
  const fields = table.partitionFields;
  const types = fields.map((f) => f.type);
  const match = partitionMatcher(table, options.partition);
  const out = new Map<string, { values: unknown[]; bucket: number }>();
  const add = (row: Uint8Array, bucket: number) => {
    if (bucket < 0) return; // a postpone table's pending files: compacted by moving them (postpone.ts)
    if (options.bucket !== undefined && bucket !== options.bucket) return;
    if (!match(row)) return;
    const k = `${row.join(",")}|${bucket}`;
    if (!out.has(k)) out.set(k, { values: fromBinaryRow(row.subarray(4), types), bucket });
  };
  const latest = await table.latestSnapshot();
  if (latest) for (const e of await table.manifestStore.liveEntries(latest)) add(e.partition, e.bucket);
  for (const p of pending) add(p.partitionRow, p.bucket);
  if (out.size === 0 && options.partition && options.bucket !== undefined && fields.every((f) => f.name in options.partition!)) {
    // nothing committed there yet: still valid (flushes pending rows, if any)
    out.set("x", { values: fromBinaryRow(toBinaryRow(fields.map((f) => options.partition![f.name]), types), types), bucket: options.bucket });
  }
  return [...out.values()];
}

/** Kinds of sequence field paimon-rt orders (the kernels' key column kinds); Java also orders ARRAY / MAP / ROW ones. */
const SEQUENCE_FIELD_KINDS = new Set(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "CHAR", "VARCHAR", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"]);

/**
 * The `sequence.field` columns of a PK table paimon-rt writes (write-only: a reader meets a type
 * the kernels cannot order as their UNSUPPORTED): INVALID_ARGUMENT as Java for first-row and a
 * `sequence.field.sort-order` Java cannot parse (its message), UNSUPPORTED for a type paimon-rt
 * cannot order.
 */
export function checkSequenceFields(identifier: string, schema: TableSchema, config: Readonly<PrimaryKeyConfig>, sortOrder: string | undefined): DataField[] {
  if (config.sequenceFields.length === 0) return [];
  if (config.mergeEngine === "first-row") throw new PaimonError("INVALID_ARGUMENT", `${identifier}: Do not support use sequence field on FIRST_ROW merge engine.`);
  if (sortOrder !== undefined && !["ascending", "descending"].includes(sortOrder.toLowerCase())) {
    throw new PaimonError("INVALID_ARGUMENT", `Could not parse value '${sortOrder}' for key 'sequence.field.sort-order' (ascending, descending).`);
  }
  return config.sequenceFields.map((name) => {
    const f = schema.fields.find((x) => x.name === name);
    if (!f) throw new PaimonError("INVALID_ARGUMENT", `writing ${identifier}: Sequence field: '${name}' can not be found in table schema.`);
    if (!SEQUENCE_FIELD_KINDS.has(f.type.kind)) throw new PaimonError("UNSUPPORTED", `writing ${identifier}: ordering by sequence.field ${name} of type ${f.type.kind} is not supported`);
    return f;
  });
}
