// The field-folding merge functions of primary-key tables (Java Paimon 1.4.2):
// `PartialUpdateMergeFunction` (default options, no sequence groups) and
// `AggregateMergeFunction` with its `Field*Agg` aggregators. Both fold the records of one key,
// in sequence order, column by column; partial-update is aggregation where every value column
// uses last_non_null_value. As Java's `ReducerMergeFunctionWrapper`, a key with a single
// record keeps that record (and its row kind); otherwise the result row has the key's highest
// sequence number and kind +I. Retract rows (-U/-D) call each aggregator's `retract`.
import * as arrow from "apache-arrow";
import { gatherData, gatherInt64, gatherInt8 } from "../arrow/gather.js";
import { PaimonError } from "../error.js";
import { type KeyColumn, keyColumnFromArrow, keyValue } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import type { TableOptions } from "../table/options.js";
import { isTrueOption as isTrue } from "../table/option-validation.js";
import { compareValues } from "../table/values.js";
import type { DataField, DataType } from "../spec/types.js";
import { internalValue } from "../arrow/row-values.js";
import { decimalToString, isCompactDecimal } from "../spec/binary-row.js";
import { recordBatch } from "../arrow/record-batch.js";
import { isValidAt } from "../arrow/values.js";

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
  | "listagg";

/** Java 1.4.2 functions paimon-rt refuses. */
const UNIMPLEMENTED = new Set(["collect", "merge_map", "merge_map_with_keytime", "nested_update", "nested_partial_update", "hll_sketch", "theta_sketch", "rbm32", "rbm64"]);

export interface ColumnAgg {
  fn: AggFunction;
  field: DataField;
  ignoreRetract: boolean;
  delimiter: string;
}

/** How the records of one key are folded: one aggregator per column of the folded chunks. */
export interface MergeFold {
  engine: "partial-update" | "aggregation";
  identifier: string;
  columns: ColumnAgg[];
}

const NUMERIC = new Set(["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL"]);
const ORDERED = new Set([...NUMERIC, "CHAR", "VARCHAR", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "BOOLEAN", "BINARY", "VARBINARY"]);

/** Java `getAggFuncName` + `FieldAggregatorFactory.create`: the aggregator of one column. */
function columnAgg(engine: MergeFold["engine"], identifier: string, field: DataField, primaryKeys: readonly string[], options: TableOptions): ColumnAgg {
  const ignoreRetract = isTrue(options.get(`fields.${field.name}.ignore-retract`));
  const delimiter = options.get(`fields.${field.name}.list-agg-delimiter`) ?? ",";
  if (primaryKeys.includes(field.name)) return { fn: "primary-key", field, ignoreRetract, delimiter };
  const name = (options.get(`fields.${field.name}.aggregate-function`) ?? options.get("fields.default-aggregate-function"))?.trim();
  if (engine === "partial-update") {
    // without sequence groups Java only accepts last_non_null_value (what partial-update does)
    if (name !== undefined && name !== "last_non_null_value") {
      throw new PaimonError("INVALID_ARGUMENT", `merge-engine=partial-update of ${identifier}: Must use sequence group for aggregation functions but not found for field ${field.name} (aggregate function ${name}); sequence groups are not supported by paimon-rt`);
    }
    return { fn: "last_non_null_value", field, ignoreRetract, delimiter };
  }
  // Java: a sequence field keeps its last value (createTable refuses an aggregate function on it)
  let fn = options.get("sequence.field")?.split(",").some((s) => s.trim() === field.name) ? "last_value" : (name ?? "last_non_null_value");
  if (fn === "first_not_null_value") fn = "first_non_null_value"; // Java's legacy name
  const where = `merge-engine=aggregation of ${identifier}, column ${field.name}`;
  if (UNIMPLEMENTED.has(fn)) throw new PaimonError("UNSUPPORTED", `${where}: aggregate function ${fn} is not supported by paimon-rt`);
  const kind = field.type.kind;
  const badType = () => new PaimonError("INVALID_ARGUMENT", `${where}: aggregate function ${fn} does not support type ${kind}`);
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
      if (isTrue(options.get(`fields.${field.name}.distinct`))) throw new PaimonError("UNSUPPORTED", `${where}: listagg with fields.${field.name}.distinct=true is not supported`);
      break;
    case "last_value":
    case "last_non_null_value":
    case "first_value":
    case "first_non_null_value":
      break;
    default:
      throw new PaimonError("INVALID_ARGUMENT", `${where}: Use unsupported aggregation: ${fn} or spell aggregate function incorrectly!`);
  }
  return { fn: fn as AggFunction, field, ignoreRetract, delimiter };
}

/** Checks the options of a partial-update or aggregation table (UNSUPPORTED / INVALID_ARGUMENT). */
export function checkMergeFunctionOptions(identifier: string, engine: MergeFold["engine"], fields: readonly DataField[], primaryKeys: readonly string[], options: TableOptions): void {
  for (const [k, v] of Object.entries(options.raw)) {
    if (/^fields\..+\.sequence-group$/.test(k)) throw new PaimonError("UNSUPPORTED", `merge-engine=${engine} of ${identifier}: option ${k}=${v} is not supported`);
    if ((k === "partial-update.remove-record-on-delete" || k === "partial-update.remove-record-on-sequence-group") && engine === "partial-update" && isTrue(v)) {
      throw new PaimonError("UNSUPPORTED", `merge-engine=partial-update of ${identifier}: ${k}=true is not supported`);
    }
    if (k === "aggregation.remove-record-on-delete" && engine === "aggregation" && isTrue(v)) {
      throw new PaimonError("UNSUPPORTED", `merge-engine=aggregation of ${identifier}: ${k}=true is not supported`);
    }
  }
  mergeFold(identifier, engine, fields, primaryKeys, options);
}

/** The fold of `fields` (the chunk columns, in order). */
export function mergeFold(identifier: string, engine: MergeFold["engine"], fields: readonly DataField[], primaryKeys: readonly string[], options: TableOptions): MergeFold {
  return { engine, identifier, columns: fields.map((f) => columnAgg(engine, identifier, f, primaryKeys, options)) };
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

function groupRows(chunks: readonly KvBatch[], keyColumns: readonly number[], total: number, order?: readonly KvBatch[]): Grouped {
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
  const perm = sortPermutation(keys, order ? gatherInt64(order.map((c) => c.sequence), part, row) : sequence);
  const starts: number[] = [];
  for (let i = 0; i < total; i++) if (i === 0 || !sameKey(keys, perm[i - 1], perm[i])) starts.push(i);
  starts.push(total);
  return { part, row, kinds, order: perm, starts: Uint32Array.from(starts), sequence };
}

/**
 * Folds chunks (any order; every row carries its sequence number) into one row per key, in key
 * order. Partial-update rejects retract rows (the writer drops them first with ignore-delete).
 * `order` (the chunks ranked by `sequence.field`, see sequence-order.ts) orders the records of a
 * key instead of their sequence numbers; the result keeps the stored number of the last record.
 */
export function foldRecords(chunks: readonly KvBatch[], keyColumns: readonly number[], fold: MergeFold, order?: readonly KvBatch[]): KvBatch | null {
  const total = chunks.reduce((n, c) => n + c.batch.numRows, 0);
  if (total === 0) return null;
  const g = groupRows(chunks, keyColumns, total, order);
  if (fold.engine === "partial-update") {
    for (let i = 0; i < total; i++) {
      if (isRetract(g.kinds[i])) throw new PaimonError("INVALID_ARGUMENT", `merge-engine=partial-update of ${fold.identifier} cannot merge DELETE/UPDATE_BEFORE rows; set partial-update.ignore-delete=true`);
    }
  }
  const groups = g.starts.length - 1;
  const sources = chunks.map((c) => c.batch);
  const children = fold.columns.map((agg, c) => foldColumn(sources.map((s) => s.data.children[c]), g, groups, agg, fold.identifier));
  const outSeq = new BigInt64Array(groups);
  const outKinds = new Int8Array(groups);
  for (let k = 0; k < groups; k++) {
    const last = g.order[g.starts[k + 1] - 1];
    outSeq[k] = g.sequence[last];
    if (g.starts[k + 1] - g.starts[k] === 1) outKinds[k] = g.kinds[last]; // a single record passes unchanged
  }
  return { batch: recordBatch(sources[0].schema, children, groups), sequence: outSeq, kinds: outKinds };
}

function noRetract(agg: ColumnAgg): PaimonError {
  return new PaimonError(
    "UNSUPPORTED",
    `Aggregate function '${agg.fn}' (column ${agg.field.name}) does not support retraction, If you allow this function to ignore retraction messages, you can configure 'fields.${agg.field.name}.ignore-retract'='true'.`,
  );
}

/** Folds one column; picking functions gather the chosen input cells, computing ones build values. */
function foldColumn(datas: arrow.Data[], g: Grouped, groups: number, agg: ColumnAgg, identifier: string): arrow.Data {
  const computing = agg.fn === "sum" || agg.fn === "product" || agg.fn === "listagg";
  const value = (idx: number) => internalValue(datas[g.part[idx]], g.row[idx], agg.field.type);
  const valid = (idx: number) => isValidAt(datas[g.part[idx]], g.row[idx]);
  // picking: the chosen row per group (-1 = null)
  const pick = computing ? null : new Int32Array(groups);
  const values: unknown[] | null = computing ? new Array(groups) : null;
  for (let k = 0; k < groups; k++) {
    const from = g.starts[k];
    const to = g.starts[k + 1];
    if (to - from === 1) {
      const only = g.order[from];
      if (pick) pick[k] = only;
      else values![k] = value(only);
      continue;
    }
    if (pick) {
      let acc = -1; // null accumulator
      let initialized = false;
      for (let i = from; i < to; i++) {
        const idx = g.order[i];
        const retract = isRetract(g.kinds[idx]);
        if (retract) {
          if (agg.ignoreRetract) continue;
          switch (agg.fn) {
            case "primary-key":
              acc = idx;
              break;
            case "last_value":
              acc = -1;
              break;
            case "last_non_null_value":
              if (valid(idx)) acc = -1;
              break;
            default:
              throw noRetract(agg);
          }
          continue;
        }
        const has = valid(idx);
        switch (agg.fn) {
          case "primary-key":
          case "last_value":
            acc = idx;
            break;
          case "last_non_null_value":
            if (has) acc = idx;
            break;
          case "first_value":
            if (!initialized) {
              initialized = true;
              acc = idx;
            }
            break;
          case "first_non_null_value":
            if (!initialized && has) {
              initialized = true;
              acc = idx;
            }
            break;
          default:
            // max, min, bool_and, bool_or: null on either side keeps the other
            if (!has) break;
            if (acc < 0) {
              acc = idx;
              break;
            }
            if (agg.fn === "bool_and") {
              if (value(acc) === true && value(idx) === false) acc = idx;
            } else if (agg.fn === "bool_or") {
              if (value(acc) === false && value(idx) === true) acc = idx;
            } else {
              // InternalRowUtils.compare has no BOOLEAN case: Java fails the merge of two non-null values
              if (agg.field.type.kind === "BOOLEAN") throw new PaimonError("INVALID_ARGUMENT", `merge-engine=aggregation of ${identifier}, column ${agg.field.name}: aggregate function ${agg.fn} cannot compare BOOLEAN values (Java: Incomparable type: BOOLEAN)`);
              const c = agg.field.type.kind === "FLOAT" || agg.field.type.kind === "DOUBLE" ? javaFloatCompare(value(acc) as number, value(idx) as number) : compareValues(value(acc), value(idx));
              if (agg.fn === "max" ? c < 0 : c >= 0) acc = idx;
            }
        }
      }
      pick[k] = acc;
      continue;
    }
    let acc: unknown = null;
    for (let i = from; i < to; i++) {
      const idx = g.order[i];
      const retract = isRetract(g.kinds[idx]);
      if (retract && agg.ignoreRetract) continue;
      if (retract && agg.fn === "listagg") throw noRetract(agg);
      const input = value(idx);
      acc = retract ? retractValue(agg, acc, input, identifier) : aggValue(agg, acc, input);
    }
    values![k] = acc;
  }
  if (pick) {
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
  return buildColumn(datas[0].type, agg.field.type, values!);
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
    return a + agg.delimiter + b;
  }
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
  }
  throw new PaimonError("INVALID_ARGUMENT", `cannot build a ${paimon.kind} aggregate column`);
}
