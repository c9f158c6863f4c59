// Exact evaluation of predicates: over an Arrow RecordBatch (vectorised typed-array loops,
// one pass per leaf, no per-row objects), over a row of JS values, and over a partition.
//
// Every predicate is negation-free (see predicate.ts), so under SQL three-valued logic a row
// is selected iff every leaf on its path evaluates to TRUE: a leaf writes 1 only for
// non-null values that satisfy it (unknown → 0), AND is a bitwise min and OR a bitwise max.

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { concatData } from "../arrow/concat.js";
import { BinaryRow, fromBinaryRow, type Timestamp } from "../spec/binary-row.js";
import { fromArrowType, typeToString, type DataField, type DataType } from "../spec/types.js";
import {
  bindPredicate,
  compareValues,
  isBound,
  normalizeLiteral,
  pow10,
  referencedFields,
  startsWithValue,
  type BoundLeafPredicate,
  type CompareOp,
  type LeafPredicate,
  type Predicate,
} from "./predicate.js";

const Type = arrow.Type;
const TEXT = new TextEncoder();
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

// ---------------------------------------------------------------------------------------------
// Row evaluation (exact, JS values)
// ---------------------------------------------------------------------------------------------

/** [lt, eq, gt] truth table of a comparison operator. */
const TABLES: Record<CompareOp, readonly [number, number, number]> = {
  lt: [1, 0, 0],
  le: [1, 1, 0],
  eq: [0, 1, 0],
  ne: [1, 0, 1],
  gt: [0, 0, 1],
  ge: [0, 1, 1],
};

function testSign(op: CompareOp, c: number): boolean {
  return TABLES[op][c < 0 ? 0 : c === 0 ? 1 : 2] === 1;
}

/** Whether a bound leaf is TRUE for the canonical value `v` (null/undefined = SQL NULL). */
export function testLeafValue(leaf: BoundLeafPredicate, v: unknown): boolean {
  if (leaf.op === "isNull") return v === null || v === undefined;
  if (leaf.op === "isNotNull") return v !== null && v !== undefined;
  if (v === null || v === undefined) return false;
  const type = leaf.type;
  switch (leaf.op) {
    case "in":
      return leaf.literals.some((l) => l !== null && compareValues(type, v, l) === 0);
    case "notIn":
      return leaf.literals.every((l) => l !== null && compareValues(type, v, l) !== 0);
    case "startsWith":
      return startsWithValue(v, leaf.literals[0]);
    case "notStartsWith":
      return !startsWithValue(v, leaf.literals[0]);
    default:
      return testSign(leaf.op, compareValues(type, v, leaf.literals[0]));
  }
}

export interface RowEvalOptions {
  /**
   * Values are already canonical for their types (as `fromBinaryRow` returns them) instead of
   * literal-style inputs to normalize (default false; note DECIMAL bigints differ: canonical =
   * unscaled, input = integer value).
   */
  canonical?: boolean;
}

/**
 * Exact three-valued evaluation over one row given as `{column: value}` (or a getter). The
 * predicate is bound against `fields`; values are normalized like literals unless
 * `options.canonical`.
 */
export function evaluateRow(
  predicate: Predicate,
  row: Readonly<Record<string, unknown>> | ((column: string) => unknown),
  fields: readonly DataField[],
  options: RowEvalOptions = {},
): boolean {
  const bound = bindPredicate(predicate, fields);
  const get = typeof row === "function" ? row : (c: string): unknown => row[c];
  const cache = new Map<string, unknown>();
  const value = (leaf: BoundLeafPredicate): unknown => {
    if (cache.has(leaf.field)) return cache.get(leaf.field);
    const raw = get(leaf.field);
    const v = options.canonical ? (raw ?? null) : normalizeLiteral(raw, leaf.type, leaf.field);
    cache.set(leaf.field, v);
    return v;
  };
  const walk = (p: Predicate): boolean => {
    if (p.kind === "leaf") return testLeafValue(p as BoundLeafPredicate, value(p as BoundLeafPredicate));
    return p.kind === "and" ? p.children.every(walk) : p.children.some(walk);
  };
  return walk(bound);
}

/**
 * Exact evaluation over a partition given as `{partitionKey: value}` (values as in the API's
 * `WriteTarget.partition`, e.g. strings from a partition path are parsed for numeric keys).
 * Every column of `predicate` must be a partition key (pick the partition part first with
 * `splitPredicateByFields`).
 */
export function evaluatePartition(predicate: Predicate, partition: Readonly<Record<string, unknown>>, partitionFields: readonly DataField[]): boolean {
  return evaluateRow(predicate, partition, partitionFields);
}

/** Exact evaluation over a serialized partition BinaryRow (as in manifest entries and commit messages). */
export function evaluatePartitionRow(predicate: Predicate, serializedPartition: Uint8Array, partitionFields: readonly DataField[]): boolean {
  const row = BinaryRow.fromSerialized(serializedPartition);
  const values = fromBinaryRow(row, partitionFields.map((f) => f.type));
  const byName: Record<string, unknown> = {};
  partitionFields.forEach((f, i) => (byName[f.name] = values[i]));
  return evaluateRow(predicate, byName, partitionFields, { canonical: true });
}

// ---------------------------------------------------------------------------------------------
// Batch evaluation
// ---------------------------------------------------------------------------------------------

export interface BatchEvalOptions {
  /**
   * Paimon fields to bind the predicate against (normally the table schema). Columns not
   * listed take the Paimon type derived from their Arrow type.
   */
  fields?: readonly DataField[];
}

/**
 * Exact evaluation over `batch`: a mask with 1 for each row where the predicate is TRUE
 * (SQL three-valued logic: unknown is not selected). INVALID_ARGUMENT for unknown columns or
 * literals that do not fit the column type.
 */
export function evaluateBatch(predicate: Predicate, batch: arrow.RecordBatch, options: BatchEvalOptions = {}): Uint8Array {
  const schemaIndex = new Map<string, number>();
  batch.schema.fields.forEach((f, i) => {
    if (!schemaIndex.has(f.name)) schemaIndex.set(f.name, i);
  });
  let bound = predicate;
  if (!isBound(predicate) || options.fields) {
    const given = new Map<string, DataType>();
    for (const f of options.fields ?? []) given.set(f.name, f.type);
    const types = new Map<string, DataType>();
    for (const name of referencedFields(predicate)) {
      const t = given.get(name);
      if (t) types.set(name, t);
      else {
        const i = schemaIndex.get(name);
        if (i === undefined)
          throw invalid(`Unknown column \`${name}\` in filter; the batch has columns: ${batch.schema.fields.map((f) => f.name).join(", ")}`);
        const af = batch.schema.fields[i]!;
        try {
          const at = arrow.DataType.isDictionary(af.type) ? (af.type as arrow.Dictionary).dictionary : af.type;
          types.set(name, fromArrowType(at, af.nullable));
        } catch (e) {
          throw invalid(`Cannot filter on column \`${name}\` of Arrow type ${String(af.type)}: ${(e as Error).message}`);
        }
      }
    }
    bound = bindPredicate(predicate, types);
  }
  const n = batch.numRows;
  const cols = (name: string): arrow.Data => {
    const i = schemaIndex.get(name);
    if (i === undefined) throw invalid(`Unknown column \`${name}\` in filter; the batch has columns: ${batch.schema.fields.map((f) => f.name).join(", ")}`);
    return batch.data.children[i]!;
  };
  return evalNode(bound, cols, n);
}

/** Indices of the selected rows of a mask. */
export function selectedIndices(mask: Uint8Array): Uint32Array {
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i]!;
  const out = new Uint32Array(count);
  let j = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) out[j++] = i;
  return out;
}

/** Number of selected rows of a mask. */
export function countSelected(mask: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i]!;
  return count;
}

/** `evaluateBatch` as row indices. */
export function filterBatchIndices(predicate: Predicate, batch: arrow.RecordBatch, options?: BatchEvalOptions): Uint32Array {
  return (options === undefined ? int64EqualRows(predicate, batch) : null) ?? selectedIndices(evaluateBatch(predicate, batch, options));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A bound `column = v` over a BIGINT column without nulls: the matching rows by one scan of the
 * values' 32-bit words, with no per-row mask (a key lookup over a page of a data file). Null when
 * the filter is not that.
 */
function int64EqualRows(p: Predicate, batch: arrow.RecordBatch): Uint32Array | null {
  if (p.kind !== "leaf" || p.op !== "eq" || p.type?.kind !== "BIGINT") return null;
  const v = p.literals[0];
  if (typeof v !== "bigint" || v < INT64_MIN || v > INT64_MAX) return null;
  const c = batch.schema.fields.findIndex((f) => f.name === p.field);
  const d = c < 0 ? undefined : batch.data.children[c];
  const values = d?.values as unknown;
  if (!d || d.typeId !== Type.Int || d.nullCount !== 0 || !(values instanceof BigInt64Array)) return null;
  const n = d.length;
  const words = new Int32Array(values.buffer, values.byteOffset, 2 * n);
  const lo = Number(BigInt.asIntN(32, v));
  const hi = Number(BigInt.asIntN(32, v >> 32n));
  const found: number[] = [];
  for (let r = 0; r < n; r++) if (words[2 * r] === lo && words[2 * r + 1] === hi) found.push(r);
  return Uint32Array.from(found);
}

function evalNode(p: Predicate, cols: (name: string) => arrow.Data, n: number): Uint8Array {
  if (p.kind === "leaf") {
    const out = new Uint8Array(n);
    evalLeaf(p as BoundLeafPredicate, cols(p.field), out);
    return out;
  }
  const out = evalNode(p.children[0]!, cols, n);
  for (let c = 1; c < p.children.length; c++) {
    const m = evalNode(p.children[c]!, cols, n);
    if (p.kind === "and") for (let i = 0; i < n; i++) out[i] &= m[i]!;
    else for (let i = 0; i < n; i++) out[i] |= m[i]!;
  }
  return out;
}

/** Clears `out[i]` for rows that are null in `d`. */
function andValidity(d: arrow.Data, out: Uint8Array): void {
  if (d.typeId === Type.Null) {
    out.fill(0);
    return;
  }
  const bitmap = d.nullBitmap;
  if (bitmap && bitmap.length > 0 && d.nullCount !== 0) {
    const off = d.offset; // bitmaps are not sliced by arrow-js: bit (d.offset + i) is row i
    for (let i = 0; i < out.length; i++) {
      const b = off + i;
      if (((bitmap[b >> 3]! >> (b & 7)) & 1) === 0) out[i] = 0;
    }
  }
  // a row whose dictionary entry is null is null too
  if (d.typeId === Type.Dictionary && d.dictionary && d.dictionary.nullCount > 0) {
    const dd = d.dictionary;
    const index = dictionaryIndexReader(d);
    for (let i = 0; i < out.length; i++) if (out[i] && !dd.isValid(index(i))) out[i] = 0;
  }
}

/** Reads the dictionary index of row i (relative to the slice). */
function dictionaryIndexReader(d: arrow.Data): (i: number) => number {
  const idx = d.values as ArrayLike<number> | BigInt64Array | BigUint64Array;
  if (idx instanceof BigInt64Array || idx instanceof BigUint64Array) {
    const w = new Int32Array(idx.buffer, idx.byteOffset, idx.length * 2);
    return (i) => w[2 * i]! >>> 0;
  }
  return (i) => (idx as ArrayLike<number>)[i]!;
}

function evalLeaf(leaf: BoundLeafPredicate, d: arrow.Data, out: Uint8Array): void {
  if (leaf.op === "isNull" || leaf.op === "isNotNull") {
    out.fill(1);
    andValidity(d, out);
    if (leaf.op === "isNull") for (let i = 0; i < out.length; i++) out[i] ^= 1;
    return;
  }
  if (d.typeId === Type.Null) return; // all null: nothing is TRUE
  const col = comparatorFor(leaf.type, d);
  const n = out.length;
  switch (leaf.op) {
    case "in":
    case "notIn": {
      if (leaf.op === "notIn" && leaf.literals.some((l) => l === null)) return; // never TRUE
      const lits = leaf.literals.filter((l) => l !== null);
      if (col.member) col.member(lits, out);
      else {
        const tmp = new Uint8Array(n);
        for (const lit of lits) {
          col.compare("eq", lit, tmp);
          for (let i = 0; i < n; i++) out[i] |= tmp[i]!;
        }
      }
      if (leaf.op === "notIn") for (let i = 0; i < n; i++) out[i] ^= 1;
      break;
    }
    case "startsWith":
    case "notStartsWith":
      col.prefix(leaf.literals[0], out);
      if (leaf.op === "notStartsWith") for (let i = 0; i < n; i++) out[i] ^= 1;
      break;
    default:
      col.compare(leaf.op, leaf.literals[0], out);
  }
  andValidity(d, out);
}

/** Writes the result of a test for every row (values of null rows are don't-care). */
interface ColumnComparator {
  compare(op: CompareOp, literal: unknown, out: Uint8Array): void;
  prefix(literal: unknown, out: Uint8Array): void;
  /** Optional single pass for IN over non-null literals (number-backed columns). */
  member?(literals: readonly unknown[], out: Uint8Array): void;
}

/** out[i] = vals[i] op x over plain numbers (x not NaN; NaN values are "greater" than x). */
function compareNumbers(vals: ArrayLike<number>, n: number, op: CompareOp, x: number, out: Uint8Array): void {
  switch (op) {
    case "eq":
      for (let i = 0; i < n; i++) out[i] = vals[i] === x ? 1 : 0;
      break;
    case "ne":
      for (let i = 0; i < n; i++) out[i] = vals[i] === x ? 0 : 1;
      break;
    case "lt":
      for (let i = 0; i < n; i++) out[i] = vals[i]! < x ? 1 : 0;
      break;
    case "le":
      for (let i = 0; i < n; i++) out[i] = vals[i]! <= x ? 1 : 0;
      break;
    case "gt":
      for (let i = 0; i < n; i++) {
        const v = vals[i]!;
        out[i] = v > x || v !== v ? 1 : 0;
      }
      break;
    case "ge":
      for (let i = 0; i < n; i++) {
        const v = vals[i]!;
        out[i] = v >= x || v !== v ? 1 : 0;
      }
      break;
  }
}

/**
 * out[i] = 1 if vals[i] is one of xs (NaN matches NaN). Zeros match by sign (Java's
 * `Double.compare(-0.0, 0.0) != 0`); integer columns never hold -0, so this is exact for them too.
 */
function memberNumbers(vals: ArrayLike<number>, n: number, xs: number[], out: Uint8Array): void {
  const nan = xs.some((x) => x !== x);
  const negZero = xs.some((x) => Object.is(x, -0));
  const posZero = xs.some((x) => Object.is(x, 0));
  const list = xs.filter((x) => x === x && x !== 0);
  const zero = (v: number): number => ((v > 0 || 1 / v > 0 ? posZero : negZero) ? 1 : 0);
  if (list.length <= 8) {
    const k = list.length;
    for (let i = 0; i < n; i++) {
      const v = vals[i]!;
      let r = v !== v ? (nan ? 1 : 0) : v === 0 ? zero(v) : 0;
      for (let j = 0; r === 0 && j < k; j++) if (v === list[j]) r = 1;
      out[i] = r;
    }
  } else {
    const set = new Set(list);
    for (let i = 0; i < n; i++) {
      const v = vals[i]!;
      out[i] = v === 0 ? zero(v) : set.has(v) || (nan && v !== v) ? 1 : 0;
    }
  }
}

function unsupportedPrefix(type: DataType): never {
  throw invalid(`startsWith is not supported on ${typeToString(type)} values`);
}

function comparatorFor(type: DataType, d: arrow.Data): ColumnComparator {
  switch (d.typeId) {
    case Type.Dictionary:
      return dictionaryComparator(type, d);
    case Type.Bool:
      return boolComparator(type, d);
    case Type.Int:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Decimal:
      if (LITTLE_ENDIAN && !(d.typeId === Type.Decimal && (d.type as arrow.Decimal).bitWidth % 64 !== 0)) return integerComparator(type, d);
      break;
    case Type.Float:
      if ((d.type as arrow.Float).precision !== arrow.Precision.HALF) return floatComparator(type, d);
      break;
    case Type.Utf8:
    case Type.Binary:
    case Type.LargeUtf8:
    case Type.LargeBinary:
    case Type.FixedSizeBinary:
      if (LITTLE_ENDIAN || d.typeId === Type.FixedSizeBinary) return bytesComparator(type, d);
      break;
  }
  return fallbackComparator(type, d);
}

// --- booleans --------------------------------------------------------------------------------

function boolComparator(type: DataType, d: arrow.Data): ColumnComparator {
  const n = d.length;
  const bits = d.values as Uint8Array;
  const vals = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = d.offset + i;
    vals[i] = (bits[b >> 3]! >> (b & 7)) & 1;
  }
  return {
    compare(op, literal, out) {
      const L = literal === true ? 1 : literal === false ? 0 : Number(literal) ? 1 : 0;
      const [t0, t1, t2] = TABLES[op];
      for (let i = 0; i < n; i++) {
        const v = vals[i]!;
        out[i] = v < L ? t0 : v === L ? t1 : t2;
      }
    },
    prefix: () => unsupportedPrefix(type),
  };
}

// --- floats ----------------------------------------------------------------------------------

function asNumber(literal: unknown, type: DataType): number {
  if (typeof literal === "number") return literal;
  if (typeof literal === "bigint") return type.kind === "DECIMAL" ? Number(literal) / 10 ** type.scale : Number(literal);
  if (typeof literal === "boolean") return literal ? 1 : 0;
  if (literal !== null && typeof literal === "object" && "millis" in literal) return Number((literal as Timestamp).millis);
  throw invalid(`Cannot compare ${typeToString(type)} literal with a floating-point column`);
}

function floatComparator(type: DataType, d: arrow.Data): ColumnComparator {
  const vals = d.values as Float32Array | Float64Array;
  const off = 0; // arrow-js slices value/offset buffers (only bitmaps keep d.offset)
  const n = d.length;
  return {
    compare(op, literal, out) {
      const L = asNumber(literal, type);
      const [t0, t1] = TABLES[op];
      if (L !== L) {
        // every non-NaN value is below NaN; NaN equals NaN
        for (let i = 0; i < n; i++) {
          const v = vals[off + i]!;
          out[i] = v !== v ? t1 : t0;
        }
      } else if (L === 0) {
        // Double.compare: -0.0 < 0.0, so a zero literal splits the zeros by sign
        const [, , t2] = TABLES[op];
        const litNegative = Object.is(L, -0);
        for (let i = 0; i < n; i++) {
          const v = vals[off + i]!;
          if (v === 0) {
            const vNegative = 1 / v < 0;
            out[i] = vNegative === litNegative ? t1 : vNegative ? t0 : t2;
          } else out[i] = v < 0 ? t0 : t2; // NaN (v > 0 false, v < 0 false) counts as greater
        }
      } else compareNumbers(vals, n, op, L, out); // NaN values count as greater; ±0 sit on one side of L
    },
    prefix: () => unsupportedPrefix(type),
    member(literals, out) {
      memberNumbers(vals, n, literals.map((l) => asNumber(l, type)), out);
    },
  };
}

// --- integer domains: ints, dates, times, timestamps, decimals --------------------------------

/** A value in the Paimon type's semantic domain as an exact rational num/den (den > 0) plus its unit. */
interface Rational {
  num: bigint;
  den: bigint;
}

const NS_PER: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1_000_000_000n,
  [arrow.TimeUnit.MILLISECOND]: 1_000_000n,
  [arrow.TimeUnit.MICROSECOND]: 1_000n,
  [arrow.TimeUnit.NANOSECOND]: 1n,
};
const NS_PER_DAY = 86_400_000_000_000n;

function isTemporal(t: DataType): boolean {
  return t.kind === "DATE" || t.kind === "TIME" || t.kind === "TIMESTAMP" || t.kind === "TIMESTAMP_LTZ";
}

/** Nanoseconds per unit of the Paimon type's canonical value (temporal types). */
function semanticUnitNs(t: DataType): bigint {
  if (t.kind === "DATE") return NS_PER_DAY;
  if (t.kind === "TIME") return 1_000_000n;
  return 1n; // TIMESTAMP literals are converted to total nanoseconds
}

/** Nanoseconds per unit of a temporal Arrow column, or null for a plain numeric column. */
function columnUnitNs(d: arrow.Data, type: DataType): bigint | null {
  switch (d.typeId) {
    case Type.Date:
      return (d.type as arrow.Date_).unit === arrow.DateUnit.DAY ? NS_PER_DAY : 1_000_000n;
    case Type.Time:
      return NS_PER[(d.type as arrow.Time).unit]!;
    case Type.Timestamp:
      return NS_PER[(d.type as arrow.Timestamp).unit]!;
    case Type.Int:
      // raw physical values of a temporal Paimon type
      if (type.kind === "DATE") return NS_PER_DAY;
      if (type.kind === "TIME") return 1_000_000n;
      if (type.kind === "TIMESTAMP" || type.kind === "TIMESTAMP_LTZ")
        return type.precision <= 3 ? 1_000_000n : type.precision <= 6 ? 1_000n : 1n;
      return null;
    default:
      return null;
  }
}

/** Exact rational of a finite double (its shortest decimal representation). */
function rationalOfNumber(v: number): Rational {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(v));
  if (!m) throw invalid(`Cannot use ${v} as an exact number`);
  const frac = m[3] ?? "";
  let num = BigInt((m[2] ?? "0") + frac);
  let exp = Number(m[4] ?? "0") - frac.length;
  if (m[1] === "-") num = -num;
  if (exp >= 0) return { num: num * pow10(exp), den: 1n };
  return { num, den: pow10(-exp) };
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * The literal in the column's physical units: a rational, or ±Infinity / NaN for
 * non-finite float literals (only possible when a FLOAT/DOUBLE type meets an integer column).
 */
function literalInColumnUnits(literal: unknown, type: DataType, d: arrow.Data): Rational | number {
  const colUnit = columnUnitNs(d, type);
  if (isTemporal(type) && colUnit !== null) {
    let semantic: bigint;
    if (type.kind === "TIMESTAMP" || type.kind === "TIMESTAMP_LTZ") {
      const t = literal as Timestamp;
      semantic = t.millis * 1_000_000n + BigInt(t.nanoOfMillisecond);
    } else semantic = BigInt(literal as number);
    const num = semantic * semanticUnitNs(type);
    const g = gcd(num, colUnit) || 1n;
    return { num: num / g, den: colUnit / g };
  }
  // numeric: scale the value to the column's decimal scale (0 for ints and temporal-as-raw)
  const colScale = d.typeId === Type.Decimal ? (d.type as arrow.Decimal).scale : 0;
  let r: Rational;
  if (typeof literal === "bigint") r = type.kind === "DECIMAL" ? { num: literal, den: pow10(type.scale) } : { num: literal, den: 1n };
  else if (typeof literal === "number") {
    if (!Number.isFinite(literal)) return literal;
    r = rationalOfNumber(literal);
  } else if (typeof literal === "boolean") r = { num: literal ? 1n : 0n, den: 1n };
  else if (literal !== null && typeof literal === "object" && "millis" in literal) r = { num: (literal as Timestamp).millis, den: 1n };
  else throw invalid(`Cannot compare ${typeToString(type)} literal with an integer column`);
  const num = r.num * pow10(colScale);
  const g = gcd(num, r.den) || 1n;
  return { num: num / g, den: r.den / g };
}

type Adjusted = { kind: "const"; value: 0 | 1 } | { kind: "cmp"; op: CompareOp; lit: bigint };

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** `v op (num/den)` over integers `v` in [min, max] as a comparison with an integer, or a constant. */
function adjust(op: CompareOp, lit: Rational | number, min: bigint, max: bigint): Adjusted {
  let L: bigint;
  let cop = op;
  if (typeof lit === "number") {
    // non-finite float literal against integers
    const above = lit !== lit || lit > 0; // NaN is above everything in the total order
    const v: 0 | 1 = op === "ne" || (above ? op === "lt" || op === "le" : op === "gt" || op === "ge") ? 1 : 0;
    return { kind: "const", value: v };
  }
  const q = floorDiv(lit.num, lit.den);
  const exact = lit.num % lit.den === 0n;
  switch (op) {
    case "eq":
      if (!exact) return { kind: "const", value: 0 };
      L = q;
      break;
    case "ne":
      if (!exact) return { kind: "const", value: 1 };
      L = q;
      break;
    case "lt":
    case "ge":
      L = exact ? q : q + 1n;
      break;
    default: // le, gt
      L = q;
  }
  if (L > max) return { kind: "const", value: cop === "lt" || cop === "le" || cop === "ne" ? 1 : 0 };
  if (L < min) return { kind: "const", value: cop === "gt" || cop === "ge" || cop === "ne" ? 1 : 0 };
  return { kind: "cmp", op: cop, lit: L };
}

function integerComparator(type: DataType, d: arrow.Data): ColumnComparator {
  const n = d.length;
  const off = 0; // arrow-js slices value/offset buffers (only bitmaps keep d.offset)
  const values = d.values as ArrayLike<number> | BigInt64Array | BigUint64Array | Uint32Array;
  let min: bigint;
  let max: bigint;
  let run: (op: CompareOp, L: bigint, out: Uint8Array) => void;

  if (d.typeId === Type.Decimal) {
    const stride = (d.type as arrow.Decimal).bitWidth / 32;
    const wu = values as Uint32Array;
    const wi = new Int32Array(wu.buffer, wu.byteOffset, wu.length);
    const bits = BigInt(stride * 32);
    min = -(1n << (bits - 1n));
    max = (1n << (bits - 1n)) - 1n;
    run = (op, L, out) => {
      const [t0, t1, t2] = TABLES[op];
      const lw = new Array<number>(stride);
      let u = BigInt.asUintN(stride * 32, L);
      for (let w = 0; w < stride; w++) {
        lw[w] = Number(u & 0xffffffffn);
        u >>= 32n;
      }
      const top = stride - 1;
      const ltop = lw[top]! | 0;
      for (let i = 0; i < n; i++) {
        const base = (off + i) * stride;
        const h = wi[base + top]!;
        let r: number;
        if (h !== ltop) r = h < ltop ? t0 : t2;
        else {
          r = t1;
          for (let w = top - 1; w >= 0; w--) {
            const x = wu[base + w]!;
            const y = lw[w]!;
            if (x !== y) {
              r = x < y ? t0 : t2;
              break;
            }
          }
        }
        out[i] = r;
      }
    };
  } else if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    const unsigned = values instanceof BigUint64Array;
    const w = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
    min = unsigned ? 0n : -(2n ** 63n);
    max = unsigned ? 2n ** 64n - 1n : 2n ** 63n - 1n;
    run = (op, L, out) => {
      const [t0, t1, t2] = TABLES[op];
      const H = unsigned ? Number(BigInt.asUintN(32, L >> 32n)) : Number(BigInt.asIntN(32, L >> 32n));
      const Lo = Number(BigInt.asUintN(32, L));
      if (unsigned) {
        for (let i = 0; i < n; i++) {
          const j = 2 * (off + i);
          const h = w[j + 1]! >>> 0;
          const l = w[j]! >>> 0;
          out[i] = h < H ? t0 : h > H ? t2 : l < Lo ? t0 : l > Lo ? t2 : t1;
        }
      } else {
        for (let i = 0; i < n; i++) {
          const j = 2 * (off + i);
          const h = w[j + 1]!;
          const l = w[j]! >>> 0;
          out[i] = h < H ? t0 : h > H ? t2 : l < Lo ? t0 : l > Lo ? t2 : t1;
        }
      }
    };
  } else {
    const nv = values as ArrayLike<number>;
    [min, max] = numberRange(values);
    run = (op, L, out) => compareNumbers(nv, n, op, Number(L), out);
  }
  const numberBacked = !(d.typeId === Type.Decimal || values instanceof BigInt64Array || values instanceof BigUint64Array);
  return {
    compare(op, literal, out) {
      const a = adjust(op, literalInColumnUnits(literal, type, d), min, max);
      if (a.kind === "const") out.fill(a.value);
      else run(a.op, a.lit, out);
    },
    prefix: () => unsupportedPrefix(type),
    member: numberBacked
      ? (literals, out) => {
          const xs: number[] = [];
          for (const l of literals) {
            const a = adjust("eq", literalInColumnUnits(l, type, d), min, max);
            if (a.kind === "cmp") xs.push(Number(a.lit));
          }
          memberNumbers(values as ArrayLike<number>, n, xs, out);
        }
      : undefined,
  };
}

function numberRange(values: unknown): [bigint, bigint] {
  if (values instanceof Int8Array) return [-128n, 127n];
  if (values instanceof Uint8Array) return [0n, 255n];
  if (values instanceof Int16Array) return [-32768n, 32767n];
  if (values instanceof Uint16Array) return [0n, 65535n];
  if (values instanceof Uint32Array) return [0n, 4294967295n];
  return [-2147483648n, 2147483647n];
}

// --- strings and binaries ---------------------------------------------------------------------

function literalBytes(literal: unknown, type: DataType): Uint8Array {
  if (typeof literal === "string") return TEXT.encode(literal);
  if (literal instanceof Uint8Array) return literal;
  throw invalid(`Cannot compare ${typeToString(type)} literal with a string/binary column`);
}

function bytesComparator(type: DataType, d: arrow.Data): ColumnComparator {
  const n = d.length;
  // Strings compare as unsigned bytes (BinaryString); BINARY/VARBINARY as Java's signed
  // `byte[]` order (CompareUtils): flipping the top bit maps signed order onto unsigned.
  const flip = type.kind === "BINARY" || type.kind === "VARBINARY" || type.kind === "BLOB" ? 0x80 : 0;
  const off = 0; // arrow-js slices value/offset buffers (only bitmaps keep d.offset)
  const data = d.values as Uint8Array;
  let start: (i: number) => number;
  let end: (i: number) => number;
  if (d.typeId === Type.FixedSizeBinary) {
    const w = (d.type as arrow.FixedSizeBinary).byteWidth;
    start = (i) => (off + i) * w;
    end = (i) => (off + i + 1) * w;
  } else if (d.valueOffsets instanceof BigInt64Array) {
    const o = new Int32Array(d.valueOffsets.buffer, d.valueOffsets.byteOffset, d.valueOffsets.length * 2);
    start = (i) => o[2 * (off + i)]! + o[2 * (off + i) + 1]! * 4294967296;
    end = (i) => o[2 * (off + i + 1)]! + o[2 * (off + i + 1) + 1]! * 4294967296;
  } else {
    const o = d.valueOffsets as Int32Array;
    start = (i) => o[off + i]!;
    end = (i) => o[off + i + 1]!;
  }
  return {
    compare(op, literal, out) {
      const lit = literalBytes(literal, type);
      const [t0, t1, t2] = TABLES[op];
      const ln = lit.length;
      for (let i = 0; i < n; i++) {
        const s = start(i);
        const len = end(i) - s;
        const m = len < ln ? len : ln;
        let c = 0;
        for (let k = 0; k < m; k++) {
          const x = data[s + k]! ^ flip;
          const y = lit[k]! ^ flip;
          if (x !== y) {
            c = x < y ? -1 : 1;
            break;
          }
        }
        if (c === 0) c = len - ln;
        out[i] = c < 0 ? t0 : c === 0 ? t1 : t2;
      }
    },
    prefix(literal, out) {
      const lit = literalBytes(literal, type);
      const ln = lit.length;
      for (let i = 0; i < n; i++) {
        const s = start(i);
        let r = end(i) - s >= ln ? 1 : 0;
        for (let k = 0; r === 1 && k < ln; k++) if (data[s + k] !== lit[k]) r = 0;
        out[i] = r;
      }
    },
  };
}

// --- dictionaries ------------------------------------------------------------------------------

function dictionaryComparator(type: DataType, d: arrow.Data): ColumnComparator {
  const dict = d.dictionary;
  if (!dict) return fallbackComparator(type, d);
  const dd = concatData(dict.data); // dictionary deltas index as one dictionary
  const inner = comparatorFor(type, dd);
  const n = d.length;
  const index = dictionaryIndexReader(d);
  const gather = (dm: Uint8Array, out: Uint8Array): void => {
    andValidity(dd, dm);
    for (let i = 0; i < n; i++) out[i] = dm[index(i)] ?? 0;
  };
  return {
    compare(op, literal, out) {
      const dm = new Uint8Array(dd.length);
      inner.compare(op, literal, dm);
      gather(dm, out);
    },
    prefix(literal, out) {
      const dm = new Uint8Array(dd.length);
      inner.prefix(literal, dm);
      gather(dm, out);
    },
  };
}

// --- anything else: per-row JS values ------------------------------------------------------------

function fallbackComparator(type: DataType, d: arrow.Data): ColumnComparator {
  const vector = arrow.makeVector(d);
  const n = d.length;
  let values: unknown[] | undefined;
  const get = (): unknown[] => {
    if (!values) {
      values = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const v = vector.get(i);
        values[i] = v === null || v === undefined ? null : normalizeLiteral(v, type, "?");
      }
    }
    return values;
  };
  return {
    compare(op, literal, out) {
      const vs = get();
      for (let i = 0; i < n; i++) {
        const v = vs[i];
        out[i] = v === null ? 0 : testSign(op, compareValues(type, v, literal)) ? 1 : 0;
      }
    },
    prefix(literal, out) {
      const vs = get();
      for (let i = 0; i < n; i++) {
        const v = vs[i];
        out[i] = v !== null && startsWithValue(v, literal) ? 1 : 0;
      }
    },
  };
}


