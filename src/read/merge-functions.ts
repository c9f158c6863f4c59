// The field-folding merge functions of primary-key tables (Java Paimon 1.4.2):
// `PartialUpdateMergeFunction` (sequence groups with their aggregators, retractions,
// remove-record-on-delete / -on-sequence-group, ignore-delete) and `AggregateMergeFunction` with
// its `Field*Agg` aggregators. Aggregation, and partial-update without sequence groups and retract
// rows (last_non_null_value in every value column), fold column by column; other partial-update
// folds go record by record as Java's `add`. As Java's `ReducerMergeFunctionWrapper`, a key with a
// single record keeps that record (and its row kind); otherwise the result row has the key's
// highest sequence number and kind +I (partial-update: Java's `getResult`). Retract rows (-U/-D)
// call each aggregator's `retract`.
import * as arrow from "apache-arrow";
import { gatherData, gatherInt64, gatherInt8 } from "../arrow/gather.js";
import { PaimonError } from "../error.js";
import { type KeyColumn, keyColumnFromArrow, keyValue } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import type { TableOptions } from "../table/options.js";
import { isTrueOption as isTrue } from "../table/option-validation.js";
import { compareValues } from "../table/values.js";
import { type DataField, type DataType, typeToString } from "../spec/types.js";
import { RoaringBitmap32 } from "../kernel/bitmap.js";
import { roaring64Or } from "../kernel/roaring64.js";
import { hllSketchUnion } from "../kernel/hll-sketch.js";
import { thetaSketchUnion } from "../kernel/theta-sketch.js";
import { internalValue } from "../arrow/row-values.js";
import { decimalToString, isCompactDecimal } from "../spec/binary-row.js";
import { recordBatch } from "../arrow/record-batch.js";
import { isValidAt } from "../arrow/values.js";
import { type CollectionAggSpec, collectionAggSpec, foldCollectionColumn } from "./collection-aggregates.js";

/** Key-value rows as read from a PK data file or a real-time store: the batch, each row's sequence number and row kind. */
export interface KvBatch {
  readonly batch: arrow.RecordBatch;
  readonly sequence: BigInt64Array;
  readonly kinds: Int8Array;
}

/** The aggregate functions paimon-rt implements. */
export type AggFunction =
  | "primary-key"
  | "sum"
  | "product"
  | "max"
  | "min"
  | "last_value"
  | "last_non_null_value"
  | "first_value"
  | "first_non_null_value"
  | "bool_and"
  | "bool_or"
  | "listagg"
  | "rbm32"
  | "rbm64"
  | "theta_sketch"
  | "hll_sketch"
  | "collect"
  | "nested_update"
  | "nested_partial_update"
  | "merge_map"
  | "merge_map_with_keytime";

export interface ColumnAgg {
  fn: AggFunction;
  field: DataField;
  ignoreRetract: boolean;
  delimiter: string;
  /** listagg: `fields.<f>.distinct` (Java's `fieldCollectAggDistinct`): input tokens already listed are skipped. */
  distinct: boolean;
  /** The configuration of the functions folded by collection-aggregates.ts (collect only with distinct); null for others. */
  collection: CollectionAggSpec | null;
}

const NUMERIC = new Set(["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL"]);
const ORDERED = new Set([...NUMERIC, "CHAR", "VARCHAR", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "BOOLEAN", "BINARY", "VARBINARY"]);

/** Java `FieldAggregatorFactory.create` (with `getAggFuncName`'s legacy name): the aggregator `fn` of one value column. */
function createAgg(engine: MergeFold["engine"], identifier: string, name: string, field: DataField, options: TableOptions): ColumnAgg {
  const ignoreRetract = isTrue(options.get(`fields.${field.name}.ignore-retract`));
  const delimiter = options.get(`fields.${field.name}.list-agg-delimiter`) ?? ",";
  let fn = name;
  if (fn === "first_not_null_value") fn = "first_non_null_value"; // Java's legacy name
  const where = `merge-engine=${engine} of ${identifier}, column ${field.name}`;
  const kind = field.type.kind;
  const badType = () => new PaimonError("INVALID_ARGUMENT", `${where}: aggregate function ${fn} does not support type ${kind}`);
  const distinct = isTrue(options.get(`fields.${field.name}.distinct`));
  let collection: CollectionAggSpec | null = null;
  switch (fn) {
    case "sum":
    case "product":
      if (!NUMERIC.has(kind)) throw badType();
      break;
    case "max":
    case "min":
      if (!ORDERED.has(kind)) throw badType();
      break;
    case "bool_and":
    case "bool_or":
      if (kind !== "BOOLEAN") throw badType();
      break;
    case "listagg":
      if (kind !== "VARCHAR" && kind !== "CHAR") throw badType();
      break;
    case "collect":
      if (kind !== "ARRAY") throw new PaimonError("INVALID_ARGUMENT", `${where}: Data type for collect column must be 'Array' but was '${typeToString(field.type)}'.`);
      if (engine !== "aggregation") throw new PaimonError("UNSUPPORTED", `${where}: aggregate function collect is supported with merge-engine=aggregation only`);
      if (distinct) collection = collectionAggSpec("collect", field, options, where);
      break;
    case "nested_update":
    case "nested_partial_update":
    case "merge_map":
    case "merge_map_with_keytime":
      if (engine !== "aggregation") throw new PaimonError("UNSUPPORTED", `${where}: aggregate function ${fn} is supported with merge-engine=aggregation only`);
      collection = collectionAggSpec(fn, field, options, where);
      break;
    case "rbm32":
    case "rbm64":
      if (kind !== "VARBINARY") throw new PaimonError("INVALID_ARGUMENT", `${where}: Data type for roaring bitmap column must be 'VarBinaryType' but was '${typeToString(field.type)}'.`);
      break;
    case "theta_sketch":
      if (kind !== "VARBINARY") throw new PaimonError("INVALID_ARGUMENT", `${where}: Data type for theta sketch column must be 'VarBinaryType' but was '${typeToString(field.type)}'.`);
      break;
    case "hll_sketch":
      if (kind !== "VARBINARY") throw new PaimonError("INVALID_ARGUMENT", `${where}: Data type for hll sketch column must be 'VarBinaryType' but was '${typeToString(field.type)}'.`);
      break;
    case "primary-key":
    case "last_value":
    case "last_non_null_value":
    case "first_value":
    case "first_non_null_value":
      break;
    default:
      throw new PaimonError("INVALID_ARGUMENT", `${where}: Use unsupported aggregation: ${fn} or spell aggregate function incorrectly!`);
  }
  return { fn: fn as AggFunction, field, ignoreRetract, delimiter, distinct, collection };
}

/** The configured function name of a column: `fields.<f>.aggregate-function`, else `fields.default-aggregate-function`. */
const aggFuncName = (field: DataField, options: TableOptions) => (options.get(`fields.${field.name}.aggregate-function`) ?? options.get("fields.default-aggregate-function"))?.trim();

/** The aggregation engine's aggregator of one column (Java `AggregateMergeFunction`: last_non_null_value by default). */
function columnAgg(identifier: string, field: DataField, primaryKeys: readonly string[], options: TableOptions): ColumnAgg {
  // Java: a sequence.field column keeps its last value (createTable refuses an aggregate function on it)
  if (options.get("sequence.field")?.split(",").some((s) => s.trim() === field.name)) return createAgg("aggregation", identifier, "last_value", field, options);
  if (primaryKeys.includes(field.name)) return createAgg("aggregation", identifier, "primary-key", field, options);
  return createAgg("aggregation", identifier, aggFuncName(field, options) ?? "last_non_null_value", field, options);
}

/**
 * Partial-update as Java's `PartialUpdateMergeFunction` with sequence groups or delete handling:
 * the configuration its Factory derives from the options, over the folded columns.
 */
export interface PartialUpdateSpec {
  /** `ignore-delete` (and its fallback keys): retract rows are skipped (the first still seeds the row). */
  ignoreDelete: boolean;
  /** `partial-update.remove-record-on-delete`: a -D replaces the row and makes the result a DELETE. */
  removeRecordOnDelete: boolean;
  /** Sequence fields (column indexes) of each sequence group. */
  groups: number[][];
  /** Per column: the sequence group protecting it (a sequence field: its own group), -1 for none. */
  groupOf: Int32Array;
  /** Java's field aggregators, per column (null: none; sequence fields never have one). */
  aggs: (ColumnAgg | null)[];
  /** Sequence fields (column indexes) of `partial-update.remove-record-on-sequence-group`. */
  partialDelete: ReadonlySet<number>;
  /** Whether retract rows can be merged: sequence groups or remove-record-on-delete (otherwise Java fails the merge). */
  acceptsRetract: boolean;
}

/** Folds the columns (the chunk columns, in order) of one table. */
export interface MergeFold {
  engine: "partial-update" | "aggregation";
  identifier: string;
  /** The column-at-a-time fold: partial-update without sequence groups and retract rows, and aggregation. */
  columns: ColumnAgg[];
  /** partial-update: the record-at-a-time fold (sequence groups, retractions, removing rows); null for aggregation. */
  partialUpdate: PartialUpdateSpec | null;
}

interface ParsedGroups {
  /** Sequence field names of each group, in option order. */
  sequenceFields: string[][];
  /** Field name -> its group index (protected fields and sequence fields). */
  groupOf: Map<string, number>;
}

/**
 * Java Factory's reading of `fields.<s1,s2>.sequence-group = <f1,f2>` keys. Names are split at ","
 * and not trimmed, as Java does. Java lets a field named by two groups depend on the (hash) order
 * of the options; paimon-rt refuses every such table with Java's "defined repeatedly" error.
 */
function parseSequenceGroups(identifier: string, names: readonly string[], options: TableOptions): ParsedGroups {
  const where = `merge-engine=partial-update of ${identifier}`;
  const require = (name: string) => {
    if (!names.includes(name)) throw new PaimonError("INVALID_ARGUMENT", `${where}: Field ${name} can not be found in table schema`);
    return name;
  };
  const sequenceFields: string[][] = [];
  const groupOf = new Map<string, number>();
  for (const group of options.sequenceGroups) {
    const index = sequenceFields.length;
    const seq = group.sequenceFields.map(require);
    sequenceFields.push(seq);
    const members = new Set([...group.fields.map(require), ...seq]);
    for (const f of members) {
      if (groupOf.has(f)) throw new PaimonError("INVALID_ARGUMENT", `${where}: Field ${f} is defined repeatedly by multiple groups: ${group.key}`);
      groupOf.set(f, index);
    }
  }
  return { sequenceFields, groupOf };
}

/**
 * Java `PartialUpdateMergeFunction.Factory` (validation) and `create(readType)` (projection to
 * `fields`). `schemaFields` are all the table's fields; a projection leaves out the groups and
 * aggregators of fields it does not read.
 */
function partialUpdateSpec(identifier: string, fields: readonly DataField[], schemaFields: readonly DataField[], primaryKeys: readonly string[], options: TableOptions): PartialUpdateSpec {
  const where = `merge-engine=partial-update of ${identifier}`;
  const names = schemaFields.map((f) => f.name);
  const parsed = parseSequenceGroups(identifier, names, options);
  const sequenceNames = new Set(parsed.sequenceFields.flat());
  const ignoreDelete = options.ignoreDelete;
  const removeRecordOnDelete = options.bool("partial-update.remove-record-on-delete", false);
  const removeOnGroup = options.get("partial-update.remove-record-on-sequence-group");
  // Java getAggFuncName: no aggregator for sequence fields; primary-key for key fields; others only with a sequence group, unless last_non_null_value
  const aggOf = (field: DataField): ColumnAgg | null => {
    if (sequenceNames.has(field.name)) return null;
    if (primaryKeys.includes(field.name)) return createAgg("partial-update", identifier, "primary-key", field, options);
    const name = aggFuncName(field, options);
    if (name === undefined) return null;
    if (name !== "last_non_null_value" && !parsed.groupOf.has(field.name)) {
      throw new PaimonError("INVALID_ARGUMENT", `${where}: Must use sequence group for aggregation functions but not found for field ${field.name}.`);
    }
    return createAgg("partial-update", identifier, name, field, options);
  };
  const allAggs = schemaFields.map(aggOf);
  const conflict = (a: string, b: string) => new PaimonError("INVALID_ARGUMENT", `${where}: ${a} and ${b} have conflicting behavior so should not be enabled at the same time.`);
  if (removeRecordOnDelete && ignoreDelete) throw conflict("ignore-delete", "partial-update.remove-record-on-delete");
  if (removeOnGroup !== undefined && ignoreDelete) throw conflict("ignore-delete", "partial-update.remove-record-on-sequence-group");
  if (removeRecordOnDelete && parsed.sequenceFields.length > 0) throw conflict("sequence-group", "partial-update.remove-record-on-delete");
  const removeFields = removeOnGroup === undefined ? [] : removeOnGroup.split(",");
  if (!removeFields.every((f) => sequenceNames.has(f))) {
    throw new PaimonError("INVALID_ARGUMENT", `${where}: field '${removeOnGroup}' defined in 'partial-update.remove-record-on-sequence-group' option must be part of sequence groups`);
  }
  for (const s of sequenceNames) {
    const kind = schemaFields[names.indexOf(s)].type.kind;
    if (kind === "ARRAY" || kind === "MAP" || kind === "MULTISET" || kind === "ROW" || kind === "VARIANT") {
      throw new PaimonError("UNSUPPORTED", `${where}: sequence field ${s} of type ${kind} is not supported by paimon-rt`);
    }
  }
  // create(readType): the groups of read fields (merge-read reads their sequence fields too)
  const readNames = fields.map((f) => f.name);
  const groups = parsed.sequenceFields.map((seq) => seq.map((s) => readNames.indexOf(s)));
  const groupOf = Int32Array.from(fields, (f) => {
    const g = parsed.groupOf.get(f.name);
    if (g === undefined) return -1;
    if (groups[g].some((c) => c < 0)) throw new PaimonError("INVALID_ARGUMENT", `${where}: field ${f.name} is read without the sequence fields of its group`);
    return g;
  });
  return {
    ignoreDelete,
    removeRecordOnDelete,
    groups,
    groupOf,
    aggs: fields.map((f) => allAggs[names.indexOf(f.name)]),
    partialDelete: new Set(removeFields.map((f) => readNames.indexOf(f)).filter((c) => c >= 0)),
    acceptsRetract: groups.length > 0 || removeRecordOnDelete,
  };
}

/** Checks the options of a partial-update or aggregation table (UNSUPPORTED / INVALID_ARGUMENT), as Java's merge function factories. */
export function checkMergeFunctionOptions(identifier: string, engine: MergeFold["engine"], fields: readonly DataField[], primaryKeys: readonly string[], options: TableOptions): void {
  const group = options.sequenceGroups[0];
  if (engine === "aggregation" && group) throw new PaimonError("UNSUPPORTED", `merge-engine=aggregation of ${identifier}: option ${group.key}=${options.get(group.key)} is not supported`);
  for (const [k, v] of Object.entries(options.raw)) {
    if (k === "aggregation.remove-record-on-delete" && engine === "aggregation" && isTrue(v)) {
      throw new PaimonError("UNSUPPORTED", `merge-engine=aggregation of ${identifier}: ${k}=true is not supported`);
    }
  }
  mergeFold(identifier, engine, fields, primaryKeys, options);
}

/**
 * The fold of `fields` (the chunk columns, in order). `schemaFields` (default `fields`): all the
 * table's fields, when `fields` is a projection of them.
 */
export function mergeFold(identifier: string, engine: MergeFold["engine"], fields: readonly DataField[], primaryKeys: readonly string[], options: TableOptions, schemaFields: readonly DataField[] = fields): MergeFold {
  if (engine === "aggregation") return { engine, identifier, columns: fields.map((f) => columnAgg(identifier, f, primaryKeys, options)), partialUpdate: null };
  const partialUpdate = partialUpdateSpec(identifier, fields, schemaFields, primaryKeys, options);
  // without sequence groups every value column is last_non_null_value (Java's updateNonNullFields)
  const columns = fields.map((f) => createAgg(engine, identifier, primaryKeys.includes(f.name) ? "primary-key" : "last_non_null_value", f, options));
  return { engine, identifier, columns, partialUpdate };
}

function sameKey(cols: readonly KeyColumn[], a: number, b: number): boolean {
  for (const c of cols) {
    const x = keyValue(c, a);
    const y = keyValue(c, b);
    if (x === null || y === null) {
      if (x !== y) return false;
      continue;
    }
    if (x instanceof Uint8Array && y instanceof Uint8Array) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    } else if (typeof x === "number" && typeof y === "number") {
      if (!Object.is(x, y)) return false; // as BinaryRow bytes: NaN == NaN, -0 != 0
    } else if (x !== y) return false;
  }
  return true;
}


const isRetract = (kind: number) => kind === 1 || kind === 3;

/** Rows of all chunks addressed as (part, row), sorted by key then sequence, split into groups. */
interface Grouped {
  part: Uint32Array;
  row: Uint32Array;
  kinds: Int8Array;
  order: Uint32Array;
  /** group g is order[starts[g] .. starts[g + 1]) */
  starts: Uint32Array;
  sequence: BigInt64Array;
}

function groupRows(chunks: readonly KvBatch[], keyColumns: readonly number[], total: number, ranked?: readonly KvBatch[]): Grouped {
  const part = new Uint32Array(total);
  const row = new Uint32Array(total);
  let at = 0;
  chunks.forEach((c, p) => {
    for (let i = 0; i < c.batch.numRows; i++, at++) {
      part[at] = p;
      row[at] = i;
    }
  });
  const sources = chunks.map((c) => c.batch);
  const keys = keyColumns.map((k) => keyColumnFromArrow(gatherData(sources.map((s) => s.data.children[k]), part, row)));
  const sequence = gatherInt64(chunks.map((c) => c.sequence), part, row);
  const kinds = gatherInt8(chunks.map((c) => c.kinds), part, row);
  const order = sortPermutation(keys, ranked ? gatherInt64(ranked.map((c) => c.sequence), part, row) : sequence);
  const starts: number[] = [];
  for (let i = 0; i < total; i++) if (i === 0 || !sameKey(keys, order[i - 1], order[i])) starts.push(i);
  starts.push(total);
  return { part, row, kinds, order, starts: Uint32Array.from(starts), sequence };
}

/**
 * Folds chunks (any order; every row carries its sequence number) into one row per key, in key
 * order. A key with one record keeps it (Java's `ReducerMergeFunctionWrapper`) unless
 * `mergeSingle` (Java's lookup compaction calls the merge function for every key: a lone -D of an
 * aggregation table becomes the retraction of nothing); otherwise the result has Java's sequence
 * number and row kind (DELETE for a partial-update row removed by a -D, or one that saw no insert).
 * `order` (the chunks ranked by `sequence.field`, see sequence-order.ts) orders the records of a
 * key instead of their sequence numbers; the result keeps the stored numbers.
 */
export function foldRecords(chunks: readonly KvBatch[], keyColumns: readonly number[], fold: MergeFold, mergeSingle = false, order?: readonly KvBatch[]): KvBatch | null {
  const total = chunks.reduce((n, c) => n + c.batch.numRows, 0);
  if (total === 0) return null;
  const g = groupRows(chunks, keyColumns, total, order);
  const groups = g.starts.length - 1;
  const sources = chunks.map((c) => c.batch);
  const datas = fold.columns.map((_, c) => sources.map((s) => s.data.children[c]));
  const outSeq = new BigInt64Array(groups);
  const outKinds = new Int8Array(groups);
  const pu = fold.partialUpdate;
  if (pu && (pu.groups.length > 0 || pu.removeRecordOnDelete || g.kinds.some(isRetract))) {
    const acc = foldPartialUpdate(datas, g, groups, pu, fold, outSeq, outKinds, mergeSingle);
    const children = fold.columns.map((agg, c) => emitColumn(datas[c], g, groups, pu.aggs[c] ?? agg, acc.picks[c], acc.values[c]));
    return { batch: recordBatch(sources[0].schema, children, groups), sequence: outSeq, kinds: outKinds };
  }
  const children = fold.columns.map((agg, c) => foldColumn(datas[c], g, groups, agg, fold.identifier, mergeSingle));
  for (let k = 0; k < groups; k++) {
    const last = g.order[g.starts[k + 1] - 1];
    outSeq[k] = g.sequence[last];
    if (!mergeSingle && g.starts[k + 1] - g.starts[k] === 1) outKinds[k] = g.kinds[last]; // a single record passes unchanged
  }
  return { batch: recordBatch(sources[0].schema, children, groups), sequence: outSeq, kinds: outKinds };
}

function noRetract(agg: ColumnAgg): PaimonError {
  return new PaimonError(
    "UNSUPPORTED",
    `Aggregate function '${agg.fn}' (column ${agg.field.name}) does not support retraction, If you allow this function to ignore retraction messages, you can configure 'fields.${agg.field.name}.ignore-retract'='true'.`,
  );
}

const computes = (agg: ColumnAgg) => agg.fn === "sum" || agg.fn === "product" || agg.fn === "listagg" || agg.fn === "rbm32" || agg.fn === "rbm64" || agg.fn === "theta_sketch" || agg.fn === "hll_sketch";

/** Aggregators with a `retract` (Java's others throw, unless `ignore-retract`). */
const RETRACTS = new Set<AggFunction>(["primary-key", "last_value", "last_non_null_value", "sum", "product", "collect", "nested_update", "merge_map"]);

/**
 * The error every retract row of an aggregation table meets when one of its aggregators cannot
 * retract (with deletion vectors the merge function sees each record, so such a row always fails
 * Java's compaction); null when all can.
 */
export function retractRefusal(fold: MergeFold): PaimonError | null {
  if (fold.engine !== "aggregation") return null;
  const agg = fold.columns.find((a) => !a.ignoreRetract && !RETRACTS.has(a.fn));
  return agg ? noRetract(agg) : null;
}

/** The cells of one column: grouped row index -> value / validity. */
interface Cells {
  value(idx: number): unknown;
  valid(idx: number): boolean;
}

function cellsOf(datas: readonly arrow.Data[], g: Grouped, type: DataType): Cells {
  return {
    value: (idx) => internalValue(datas[g.part[idx]], g.row[idx], type),
    valid: (idx) => isValidAt(datas[g.part[idx]], g.row[idx]),
  };
}

/**
 * Java `agg(accumulator, input)` of a picking aggregator over cells (-1: null): the chosen cell.
 * `state.init` is first_value's / first_non_null_value's `initialized`.
 */
function pickAgg(agg: ColumnAgg, acc: number, input: number, cells: Cells, state: { init: boolean }, identifier: string): number {
  const has = (x: number) => x >= 0 && cells.valid(x);
  switch (agg.fn) {
    case "primary-key":
    case "last_value":
      return input;
    case "last_non_null_value":
      return has(input) ? input : acc;
    case "first_value":
      if (state.init) return acc;
      state.init = true;
      return input;
    case "first_non_null_value":
      if (state.init || !has(input)) return acc;
      state.init = true;
      return input;
  }
  // max, min, bool_and, bool_or: null on either side keeps the other
  if (!has(input)) return acc;
  if (!has(acc)) return input;
  if (agg.fn === "bool_and") return cells.value(acc) === true && cells.value(input) === false ? input : acc;
  if (agg.fn === "bool_or") return cells.value(acc) === false && cells.value(input) === true ? input : acc;
  // InternalRowUtils.compare has no BOOLEAN case: Java fails the merge of two non-null values
  if (agg.field.type.kind === "BOOLEAN") throw new PaimonError("INVALID_ARGUMENT", `merge-engine=aggregation of ${identifier}, column ${agg.field.name}: aggregate function ${agg.fn} cannot compare BOOLEAN values (Java: Incomparable type: BOOLEAN)`);
  const kind = agg.field.type.kind;
  const c = kind === "FLOAT" || kind === "DOUBLE" ? javaFloatCompare(cells.value(acc) as number, cells.value(input) as number) : compareValues(cells.value(acc), cells.value(input));
  return (agg.fn === "max" ? c < 0 : c >= 0) ? input : acc;
}

/** Java `retract(accumulator, input)` of a picking aggregator (FieldIgnoreRetractAgg keeps the accumulator). */
function pickRetract(agg: ColumnAgg, acc: number, input: number, cells: Cells): number {
  if (agg.ignoreRetract) return acc;
  switch (agg.fn) {
    case "primary-key":
      return input;
    case "last_value":
      return -1;
    case "last_non_null_value":
      return input >= 0 && cells.valid(input) ? -1 : acc;
  }
  throw noRetract(agg);
}

/** Java `retract(accumulator, input)` of a computing aggregator (sum, product, listagg) over values. */
function valueRetract(agg: ColumnAgg, acc: unknown, input: unknown, identifier: string): unknown {
  if (agg.ignoreRetract) return acc;
  if (!RETRACTS.has(agg.fn)) throw noRetract(agg);
  return retractValue(agg, acc, input, identifier);
}

/** Folds one column; picking functions choose input cells, computing ones build values. */
function foldColumn(datas: arrow.Data[], g: Grouped, groups: number, agg: ColumnAgg, identifier: string, mergeSingle: boolean): arrow.Data {
  if (agg.collection) return foldCollectionColumn(datas, g, groups, agg.collection, agg.field, agg.ignoreRetract, mergeSingle, () => noRetract(agg));
  if (agg.fn === "collect") return collectColumn(datas, g, groups, agg, mergeSingle);
  const computing = computes(agg);
  const cells = cellsOf(datas, g, agg.field.type);
  const pick = computing ? null : new Int32Array(groups);
  const values: unknown[] | null = computing ? new Array(groups) : null;
  const state = { init: false };
  for (let k = 0; k < groups; k++) {
    const from = g.starts[k];
    const to = g.starts[k + 1];
    if (!mergeSingle && to - from === 1) {
      const only = g.order[from];
      if (pick) pick[k] = only;
      else values![k] = cells.value(only);
      continue;
    }
    state.init = false;
    let accPick = -1;
    let accValue: unknown = null;
    for (let i = from; i < to; i++) {
      const idx = g.order[i];
      if (isRetract(g.kinds[idx])) {
        if (pick) accPick = pickRetract(agg, accPick, idx, cells);
        else accValue = valueRetract(agg, accValue, cells.value(idx), identifier);
      } else if (pick) accPick = pickAgg(agg, accPick, idx, cells, state, identifier);
      else accValue = aggValue(agg, accValue, cells.value(idx));
    }
    if (pick) pick[k] = accPick;
    else values![k] = accValue;
  }
  return emitColumn(datas, g, groups, agg, pick, values);
}

/**
 * Java FieldCollectAgg without distinct: a key's arrays concatenated in order (null when all are
 * null); a retraction removes, for each of its elements, the first equal element left (Java's
 * `equals`: byte arrays never equal, floats by their bits). The output's elements are gathered
 * from the inputs' element columns.
 */
function collectColumn(datas: readonly arrow.Data[], g: Grouped, groups: number, agg: ColumnAgg, mergeSingle: boolean): arrow.Data {
  const elementType = (agg.field.type as { element: DataType }).element;
  const children = datas.map((d) => d.children[0]!);
  // an element: [part, child row]
  const elementsOf = (idx: number): Array<[number, number]> | null => {
    const d = datas[g.part[idx]]!;
    if (!isValidAt(d, g.row[idx])) return null;
    const o = d.valueOffsets as Int32Array;
    const out: Array<[number, number]> = [];
    for (let i = o[g.row[idx]]!; i < o[g.row[idx] + 1]!; i++) out.push([g.part[idx], i]);
    return out;
  };
  const valueOf = ([p, i]: [number, number]) => (isValidAt(children[p]!, i) ? internalValue(children[p]!, i, elementType) : null);
  const equal = (a: [number, number], b: [number, number]): boolean => {
    const x = valueOf(a);
    const y = valueOf(b);
    if (x === null || y === null) return x === y;
    const k = elementType.kind;
    if (k === "BINARY" || k === "VARBINARY") return false;
    if (k === "ARRAY" || k === "MAP" || k === "MULTISET" || k === "ROW") throw new PaimonError("UNSUPPORTED", `retracting ${agg.field.name} (collect of ${typeToString(elementType)}) is not supported`);
    if (k === "FLOAT" || k === "DOUBLE") return Object.is(x, y) || (Number.isNaN(x as number) && Number.isNaN(y as number));
    return compareValues(x, y) === 0;
  };
  const lists: Array<Array<[number, number]> | null> = new Array(groups);
  for (let k = 0; k < groups; k++) {
    const from = g.starts[k]!;
    const to = g.starts[k + 1]!;
    let acc: Array<[number, number]> | null = null;
    for (let i = from; i < to; i++) {
      const idx = g.order[i]!;
      const input = elementsOf(idx);
      if (!mergeSingle && to - from === 1) acc = input;
      else if (isRetract(g.kinds[idx]!)) {
        if (agg.ignoreRetract || acc === null || input === null || input.length === 0) continue;
        const left = [...input];
        acc = acc.filter((e) => {
          const at = left.findIndex((r) => equal(r, e));
          if (at < 0) return true;
          left.splice(at, 1);
          return false;
        });
      } else if (input !== null) acc = acc === null ? input : [...acc, ...input];
    }
    lists[k] = acc;
  }
  const offsets = new Int32Array(groups + 1);
  let nulls = 0;
  const bitmap = new Uint8Array((groups + 7) >> 3);
  for (let k = 0; k < groups; k++) {
    const l = lists[k];
    if (l === null) nulls++;
    else bitmap[k >> 3]! |= 1 << (k & 7);
    offsets[k + 1] = offsets[k]! + (l?.length ?? 0);
  }
  const flat = lists.flatMap((l) => l ?? []);
  const child = gatherData(children, Uint32Array.from(flat, (e) => e[0]), Uint32Array.from(flat, (e) => e[1]));
  return arrow.makeData({ type: datas[0]!.type as arrow.List, length: groups, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, valueOffsets: offsets, child });
}

/** The folded column: the picked cells (-1: null) gathered, or the computed values built. */
function emitColumn(datas: readonly arrow.Data[], g: Grouped, groups: number, agg: ColumnAgg, pick: Int32Array | null, values: unknown[] | null): arrow.Data {
  if (!pick) return buildColumn(datas[0].type, agg.field.type, values!);
  let nulls = 0;
  for (let k = 0; k < groups; k++) if (pick[k] < 0) nulls++;
  const parts = datas.length;
  const srcs = nulls > 0 ? [...datas, nullCell(datas[0].type)] : datas;
  const outPart = new Uint32Array(groups);
  const outRow = new Uint32Array(groups);
  for (let k = 0; k < groups; k++) {
    const idx = pick[k];
    outPart[k] = idx < 0 ? parts : g.part[idx];
    outRow[k] = idx < 0 ? 0 : g.row[idx];
  }
  return gatherData(srcs, outPart, outRow);
}

const DELETE = 3;

/**
 * Java `PartialUpdateMergeFunction` record by record (`add` in sequence order, `getResult`), for
 * every key with more than one record (every key: `mergeSingle`): per column either the picked
 * cell of each key (-1: null) or, for sum / product / listagg aggregators, its value. Fills the
 * result's sequence and kind.
 */
function foldPartialUpdate(
  datas: readonly arrow.Data[][],
  g: Grouped,
  groups: number,
  pu: PartialUpdateSpec,
  fold: MergeFold,
  outSeq: BigInt64Array,
  outKinds: Int8Array,
  mergeSingle: boolean,
): { picks: (Int32Array | null)[]; values: (unknown[] | null)[] } {
  const width = fold.columns.length;
  const where = `merge-engine=partial-update of ${fold.identifier}`;
  const cells = fold.columns.map((agg, c) => cellsOf(datas[c], g, agg.field.type));
  const computing = pu.aggs.map((a) => a !== null && computes(a));
  const picks = computing.map((v) => (v ? null : new Int32Array(groups)));
  const values = computing.map((v) => (v ? new Array<unknown>(groups) : null));
  // the current row of one key
  const pick = new Int32Array(width);
  const value: unknown[] = new Array(width);
  const states = pu.aggs.map(() => ({ init: false }));
  const isSequence = new Uint8Array(width);
  for (const seq of pu.groups) for (const c of seq) isSequence[c] = 1;
  const empty = new Uint8Array(width);
  const nullable = fold.columns.map((a) => a.field.type.nullable);
  const has = (c: number, idx: number) => idx >= 0 && cells[c].valid(idx);

  const initRow = (idx: number) => {
    for (let c = 0; c < width; c++) {
      if (!nullable[c] && !has(c, idx)) throw new PaimonError("INVALID_ARGUMENT", `${where}: Field ${c} can not be null (column ${fold.columns[c].field.name})`);
      if (computing[c]) value[c] = cells[c].value(idx);
      else pick[c] = idx;
    }
  };
  /** Java `isEmptySequenceGroup`: every sequence field of the group is null in the record (flags the group for the record). */
  const emptyGroup = (seq: readonly number[], idx: number) => {
    if (empty[seq[0]]) return true;
    for (const c of seq) if (has(c, idx)) return false;
    for (const c of seq) empty[c] = 1;
    return true;
  };
  /** Java's generated sequence comparator, record vs current row: ascending, nulls first. */
  const compareGroup = (seq: readonly number[], idx: number) => {
    for (const c of seq) {
      const a = has(c, idx);
      const b = has(c, pick[c]);
      if (!a && !b) continue;
      if (!a) return -1;
      if (!b) return 1;
      const r = compareValues(cells[c].value(idx), cells[c].value(pick[c]));
      if (r !== 0) return r;
    }
    return 0;
  };
  const agg = (c: number, a: ColumnAgg, idx: number) => {
    if (computing[c]) value[c] = aggValue(a, value[c], cells[c].value(idx));
    else pick[c] = pickAgg(a, pick[c], idx, cells[c], states[c], fold.identifier);
  };
  // Java aggReversed(acc, input) = agg(input, acc)
  const aggReversed = (c: number, a: ColumnAgg, idx: number) => {
    if (computing[c]) value[c] = aggValue(a, cells[c].value(idx), value[c]);
    else pick[c] = pickAgg(a, idx, pick[c], cells[c], states[c], fold.identifier);
  };
  const retract = (c: number, a: ColumnAgg, idx: number) => {
    if (computing[c]) value[c] = valueRetract(a, value[c], cells[c].value(idx), fold.identifier);
    else pick[c] = pickRetract(a, pick[c], idx, cells[c]);
  };

  for (let k = 0; k < groups; k++) {
    const from = g.starts[k];
    const to = g.starts[k + 1];
    if (!mergeSingle && to - from === 1) {
      // a single record passes unchanged
      const only = g.order[from];
      for (let c = 0; c < width; c++) {
        if (computing[c]) values[c]![k] = cells[c].value(only);
        else picks[c]![k] = only;
      }
      outSeq[k] = g.sequence[only];
      outKinds[k] = g.kinds[only];
      continue;
    }
    // reset
    pick.fill(-1);
    value.fill(null);
    for (const s of states) s.init = false;
    let latest = 0n;
    let meetInsert = false;
    let filled = false;
    let deleted = false;
    for (let i = from; i < to; i++) {
      const idx = g.order[i];
      const kind = g.kinds[idx];
      deleted = false;
      empty.fill(0);
      if (isRetract(kind)) {
        if (!filled) {
          initRow(idx);
          filled = true;
        }
        // (files written with ignore-delete by Paimon 0.7 and older may hold retract rows)
        if (pu.ignoreDelete) continue;
        latest = g.sequence[idx];
        if (pu.groups.length > 0) {
          // retractWithSequenceGroup: the group's fields when its sequence is not older
          const updated = new Uint8Array(width);
          retracting: for (let c = 0; c < width; c++) {
            const grp = pu.groupOf[c];
            if (grp < 0) continue;
            const seq = pu.groups[grp];
            if (emptyGroup(seq, idx)) continue;
            const a = pu.aggs[c];
            if (compareGroup(seq, idx) >= 0) {
              if (isSequence[c]) {
                for (const s of seq) {
                  if (updated[s]) continue;
                  if (kind === DELETE && pu.partialDelete.has(s)) {
                    deleted = true;
                    initRow(idx);
                    break retracting;
                  }
                  pick[s] = idx;
                  updated[s] = 1;
                }
              } else if (a === null) {
                pick[c] = -1;
              } else retract(c, a, idx);
            } else if (a !== null) retract(c, a, idx);
          }
          continue;
        }
        if (pu.removeRecordOnDelete) {
          if (kind === DELETE) {
            deleted = true;
            initRow(idx);
          }
          continue;
        }
        throw new PaimonError(
          "INVALID_ARGUMENT",
          `${where}: By default, Partial update can not accept delete records, you can choose one of the following solutions: 1. Configure 'ignore-delete' to ignore delete records. 2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records. 3. Configure 'sequence-group's to retract partial columns. Also configure 'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving deleted records of \`specified sequence group\`.`,
        );
      }
      latest = g.sequence[idx];
      if (pu.groups.length === 0) {
        // updateNonNullFields
        for (let c = 0; c < width; c++) {
          if (has(c, idx)) {
            if (computing[c]) value[c] = cells[c].value(idx);
            else pick[c] = idx;
          } else if (!nullable[c]) throw new PaimonError("INVALID_ARGUMENT", `${where}: Field ${c} can not be null (column ${fold.columns[c].field.name})`);
        }
      } else {
        // updateWithSequenceGroup
        for (let c = 0; c < width; c++) {
          const grp = pu.groupOf[c];
          const a = pu.aggs[c];
          if (grp < 0) {
            if (a !== null) agg(c, a, idx);
            else if (has(c, idx)) pick[c] = idx;
            continue;
          }
          const seq = pu.groups[grp];
          if (emptyGroup(seq, idx)) continue;
          if (compareGroup(seq, idx) >= 0) {
            if (isSequence[c]) for (const s of seq) pick[s] = idx;
            else if (a === null) pick[c] = idx;
            else agg(c, a, idx);
          } else if (a !== null) aggReversed(c, a, idx);
        }
      }
      meetInsert = true;
      filled = true;
    }
    for (let c = 0; c < width; c++) {
      if (computing[c]) values[c]![k] = value[c];
      else picks[c]![k] = pick[c];
    }
    outSeq[k] = latest;
    outKinds[k] = deleted || !meetInsert ? DELETE : 0;
  }
  return { picks, values };
}

/** Java `Float.compare` / `Double.compare`: a total order, -0.0 below 0.0 and NaN above +Infinity (equal to itself). */
function javaFloatCompare(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const rank = (x: number) => (Number.isNaN(x) ? 2 : Object.is(x, -0) ? -1 : 0);
  return Math.sign(rank(a) - rank(b));
}

function nullCell(type: arrow.DataType): arrow.Data {
  return arrow.makeBuilder({ type, nullValues: [null] }).append(null).finish().flush();
}

// ---- computing aggregators (sum, product, listagg) over internal values ----
// Java's Field{Sum,Product}Agg on primitives: TINYINT/SMALLINT/INT/BIGINT wrap around (two's
// complement), FLOAT/DOUBLE follow IEEE (overflow to ±Infinity, NaN). DECIMAL as DecimalUtils /
// Decimal.fromBigDecimal: see decimalSum and fromBigDecimal.

function wrapInt(kind: string, v: number): number {
  if (kind === "TINYINT") return (v << 24) >> 24;
  if (kind === "SMALLINT") return (v << 16) >> 16;
  return v | 0;
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/**
 * Java `Decimal.fromBigDecimal(v, p, s)` for an exact unscaled value at scale s: null when it
 * needs more than p digits. Only the BigDecimal paths check the precision.
 */
function fromBigDecimal(unscaled: bigint, precision: number): bigint | null {
  const abs = unscaled < 0n ? -unscaled : unscaled;
  return abs >= pow10(precision) ? null : unscaled;
}

/**
 * Java `DecimalUtils.add` / `subtract` of two decimals of one type. A compact DECIMAL(p <= 18)
 * adds the unscaled longs with Math.addExact and keeps the result even past p digits (a sum Java
 * then writes to files and reads back as is); only a long overflow falls back to BigDecimal,
 * whose fromBigDecimal is then null (more than 18 digits). Non-compact sums past p digits are null.
 */
function decimalSum(precision: number, a: bigint, b: bigint): bigint | null {
  const sum = a + b;
  if (isCompactDecimal(precision)) return sum === BigInt.asIntN(64, sum) ? sum : null;
  return fromBigDecimal(sum, precision);
}

/** Rounds `num / den` half-up (away from zero), as BigDecimal.setScale(HALF_UP). */
function divHalfUp(num: bigint, den: bigint): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den;
  const r = num % den;
  if (2n * (r < 0n ? -r : r) >= den) return num < 0n ? q - 1n : q + 1n;
  return q;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Whether a / b (b != 0) has a finite decimal expansion: BigDecimal.divide(b) throws otherwise. */
function terminates(a: bigint, b: bigint): boolean {
  let den = b / gcd(a, b);
  if (den < 0n) den = -den;
  while (den % 2n === 0n) den /= 2n;
  while (den % 5n === 0n) den /= 5n;
  return den === 1n;
}

function aggValue(agg: ColumnAgg, acc: unknown, input: unknown): unknown {
  if (acc === null || input === null) return acc === null ? input : acc;
  const type = agg.field.type;
  if (agg.fn === "listagg") {
    const a = acc as string;
    const b = input as string;
    if (b.length === 0) return a;
    if (a.length === 0) return b;
    if (!agg.distinct) return a + agg.delimiter + b;
    // Java splitByWholeSeparatorPreserveAllTokens (an empty delimiter splits at " "): the
    // accumulator stays as it is, the input's new non-empty tokens are appended
    const sep = agg.delimiter === "" ? " " : agg.delimiter;
    const seen = new Set(a.split(sep));
    let out = a;
    for (const token of b.split(sep)) {
      if (token === "" || seen.has(token)) continue;
      seen.add(token);
      out += agg.delimiter + token;
    }
    return out;
  }
  if (agg.fn === "rbm32") return roaringOr(acc as Uint8Array, input as Uint8Array);
  if (agg.fn === "rbm64") return roaring64Or(acc as Uint8Array, input as Uint8Array, `aggregate function rbm64 of column ${agg.field.name}`);
  if (agg.fn === "theta_sketch") return thetaSketchUnion(acc as Uint8Array, input as Uint8Array, `aggregate function theta_sketch of column ${agg.field.name}`);
  if (agg.fn === "hll_sketch") return hllSketchUnion(acc as Uint8Array, input as Uint8Array, `aggregate function hll_sketch of column ${agg.field.name}`);
  const sum = agg.fn === "sum";
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
      return wrapInt(type.kind, sum ? (acc as number) + (input as number) : (acc as number) * (input as number));
    case "INT":
      return sum ? ((acc as number) + (input as number)) | 0 : Math.imul(acc as number, input as number);
    case "BIGINT":
      return BigInt.asIntN(64, sum ? (acc as bigint) + (input as bigint) : (acc as bigint) * (input as bigint));
    case "FLOAT":
      // float arithmetic in double then rounded: exact for +, -, *, / (53 >= 2 * 24 + 2 bits)
      return Math.fround(sum ? (acc as number) + (input as number) : (acc as number) * (input as number));
    case "DOUBLE":
      return sum ? (acc as number) + (input as number) : (acc as number) * (input as number);
    case "DECIMAL": {
      const a = acc as bigint;
      const b = input as bigint;
      if (sum) return decimalSum(type.precision, a, b);
      // FieldProductAgg: exact BigDecimal product, then fromBigDecimal (HALF_UP to the scale, precision checked)
      return fromBigDecimal(divHalfUp(a * b, pow10(type.scale)), type.precision);
    }
    default:
      throw new PaimonError("INVALID_ARGUMENT", `type ${type.kind} not supported in ${agg.fn}`);
  }
}

/**
 * Java FieldRoaringBitmap32Agg: the union of two serialized RoaringBitmaps, run-optimized and
 * serialized as Java's RoaringBitmap (the portable format).
 */
function roaringOr(a: Uint8Array, b: Uint8Array): Uint8Array {
  const acc = RoaringBitmap32.deserializePortable(a);
  const input = RoaringBitmap32.deserializePortable(b);
  try {
    acc.orInPlace(input);
    acc.runOptimize("java");
    return acc.serializePortable();
  } finally {
    acc.dispose();
    input.dispose();
  }
}

function retractValue(agg: ColumnAgg, acc: unknown, input: unknown, identifier: string): unknown {
  const type = agg.field.type;
  if (agg.fn === "sum") {
    if (acc === null || input === null) return acc === null ? negate(type, input) : acc;
    switch (type.kind) {
      case "TINYINT":
      case "SMALLINT":
        return wrapInt(type.kind, (acc as number) - (input as number));
      case "INT":
        return ((acc as number) - (input as number)) | 0;
      case "BIGINT":
        return BigInt.asIntN(64, (acc as bigint) - (input as bigint));
      case "FLOAT":
        return Math.fround((acc as number) - (input as number));
      case "DOUBLE":
        return (acc as number) - (input as number);
      case "DECIMAL":
        return decimalSum(type.precision, acc as bigint, -(input as bigint));
    }
  }
  // product: divide
  if (acc === null || input === null) return acc;
  // Java throws ArithmeticException (integer or BigDecimal division by zero, a non-terminating
  // BigDecimal quotient): paimon-rt refuses the same merges
  const javaFails = (why: string) => new PaimonError("INVALID_ARGUMENT", `merge-engine=aggregation of ${identifier}, column ${agg.field.name}: product retraction ${why}`);
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT":
      if (input === 0) throw javaFails("divides by zero");
      return wrapInt(type.kind, Math.trunc((acc as number) / (input as number)));
    case "BIGINT":
      if (input === 0n) throw javaFails("divides by zero");
      return BigInt.asIntN(64, (acc as bigint) / (input as bigint));
    case "FLOAT":
      return Math.fround((acc as number) / (input as number));
    case "DOUBLE":
      return (acc as number) / (input as number);
    case "DECIMAL": {
      // BigDecimal.divide (exact quotient, else ArithmeticException), then fromBigDecimal(p, s)
      const a = acc as bigint;
      const b = input as bigint;
      if (b === 0n) throw javaFails("divides by zero");
      if (!terminates(a, b)) throw javaFails(`${decimalToString(a, type.scale)} / ${decimalToString(b, type.scale)} has no exact decimal quotient`);
      return fromBigDecimal(divHalfUp(a * pow10(type.scale), b), type.precision);
    }
  }
  throw new PaimonError("INVALID_ARGUMENT", `type ${type.kind} not supported in ${agg.fn}`);
}

/** FieldSumAgg.negative: the primitive's negation (MIN_VALUE stays MIN_VALUE); DECIMAL via fromBigDecimal, so a compact value past p digits becomes null. */
function negate(type: DataType, v: unknown): unknown {
  if (v === null) return null;
  if (type.kind === "DECIMAL") return fromBigDecimal(-(v as bigint), type.precision);
  if (type.kind === "BIGINT") return BigInt.asIntN(64, -(v as bigint));
  if (type.kind === "TINYINT" || type.kind === "SMALLINT" || type.kind === "INT") return wrapInt(type.kind, -(v as number));
  return -(v as number);
}

const encoder = new TextEncoder();

/** An Arrow column of `type` (the chunk's Arrow type) from internal values. */
function buildColumn(type: arrow.DataType, paimon: DataType, values: readonly unknown[]): arrow.Data {
  const n = values.length;
  let nulls = 0;
  const bitmap = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) {
    if (values[i] === null || values[i] === undefined) nulls++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  }
  const nullBitmap = nulls > 0 ? bitmap : undefined;
  const make = (data: ArrayBufferView, extra: Record<string, unknown> = {}) =>
    arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap, data, ...extra } as never) as arrow.Data;
  switch (paimon.kind) {
    case "TINYINT":
      return make(Int8Array.from(values, (v) => (v as number) ?? 0));
    case "SMALLINT":
      return make(Int16Array.from(values, (v) => (v as number) ?? 0));
    case "INT":
      return make(Int32Array.from(values, (v) => (v as number) ?? 0));
    case "BIGINT":
      return make(BigInt64Array.from(values, (v) => (v as bigint) ?? 0n));
    case "FLOAT":
      return make(Float32Array.from(values, (v) => (v as number) ?? 0));
    case "DOUBLE":
      return make(Float64Array.from(values, (v) => (v as number) ?? 0));
    case "DECIMAL": {
      const words = new Uint32Array(n * 4);
      for (let i = 0; i < n; i++) {
        const v = BigInt.asUintN(128, (values[i] as bigint | null) ?? 0n);
        for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((v >> BigInt(32 * w)) & 0xffffffffn);
      }
      return make(words);
    }
    case "CHAR":
    case "VARCHAR": {
      const parts = values.map((v) => (v === null ? new Uint8Array(0) : encoder.encode(v as string)));
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + parts[i].length;
      const bytes = new Uint8Array(offsets[n]);
      parts.forEach((p, i) => bytes.set(p, offsets[i]));
      return make(bytes, { valueOffsets: offsets });
    }
    case "VARBINARY": {
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + ((values[i] as Uint8Array | null)?.length ?? 0);
      const bytes = new Uint8Array(offsets[n]);
      values.forEach((v, i) => v !== null && v !== undefined && bytes.set(v as Uint8Array, offsets[i]));
      return make(bytes, { valueOffsets: offsets });
    }
  }
  throw new PaimonError("INVALID_ARGUMENT", `cannot build a ${paimon.kind} aggregate column`);
}
