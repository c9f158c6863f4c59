// Conservative evaluation of predicates over column statistics ("may this file / manifest
// match?"), and decoding of Paimon SimpleStats (DataFileMeta value/key stats, manifest
// partition stats) into plain per-column stats.
//
// Soundness rules (never prune something that could match):
// * unknown stats (missing column, null min/max while not all-null, undecodable rows, stats
//   rows whose arity does not match the columns) → may match;
// * min/max are true lower/upper bounds in the order of `compareValues`. Paimon's `truncate(n)`
//   stats mode keeps that: the min is a prefix (≤ the real min), the max is rounded up (or both
//   become null when no upper bound exists), so prefix/range tests stay conservative;
// * FLOAT/DOUBLE: NaN is the greatest value of the total order, but writers (e.g. Parquet
//   footers) may leave NaN out of min/max, so operators a NaN row can satisfy (gt, ge, ne,
//   notIn, eq/in with a NaN literal) never prune on float columns, and NaN bounds are unknown.
//   -0.0 < 0.0 in the row test (Java `Double.compare`), but a zero bound is read as covering
//   both zeros (writers merge them);
// * BINARY/VARBINARY: the row test orders bytes signed (Java `CompareUtils`), file statistics
//   unsigned, so their min/max never prune (null counts still do).
//
// Java sources replicated: paimon-common `predicate/LeafPredicate.test(rowCount, min, max,
// nullCounts)` and the stats tests of each leaf function (`Equal`, `NotEqual`, `LessThan`, …,
// `In`, `NotIn`, `StartsWith`), `stats/SimpleStatsEvolution` (dense `_VALUE_STATS_COLS`).

import { BinaryRow, fromBinaryRow } from "../spec/binary-row.js";
import type { DataFileMeta, ManifestFileMeta, SimpleStats } from "../spec/manifest.js";
import { isComplexType, type DataField, type DataType } from "../spec/types.js";
import { bindPredicate, compareValues, isCanonicalValue, startsWithValue, type BoundLeafPredicate, type Predicate } from "./predicate.js";

/** Statistics of one column; values are canonical for the column type (as `fromBinaryRow` returns them). */
export interface ColumnStats {
  /** Lower bound of the non-null values; null/undefined = unknown. */
  min?: unknown;
  /** Upper bound of the non-null values; null/undefined = unknown. */
  max?: unknown;
  /** Number of nulls; null/undefined = unknown. */
  nullCount?: bigint | number | null;
}

/** Statistics of a set of rows (a file, a batch, a manifest's partitions). */
export interface StatsSet {
  /** Number of rows; null/undefined = unknown. */
  rowCount?: bigint | number | null;
  /** Per column name; a missing column has unknown stats. */
  columns: Readonly<Record<string, ColumnStats | undefined>>;
}

const isFloat = (t: DataType): boolean => t.kind === "FLOAT" || t.kind === "DOUBLE";
const isNaNValue = (v: unknown): boolean => typeof v === "number" && v !== v;
const isBinary = (t: DataType): boolean => t.kind === "BINARY" || t.kind === "VARBINARY" || t.kind === "BLOB";

/** Whether `l` lies in [min, max] of a column of type `t` (a NaN of a float column always may). */
function inRange(t: DataType, float: boolean, l: unknown, min: unknown, max: unknown): boolean {
  return (float && isNaNValue(l)) || (compareValues(t, l, min) >= 0 && compareValues(t, l, max) <= 0);
}

// Counts stay numbers or bigints as given (no BigInt boxed per test): `<`, `<=` compare a number
// with a bigint exactly.
function leafMayMatch(leaf: BoundLeafPredicate, s: ColumnStats | undefined, rowCount: bigint | number | null): boolean {
  if (rowCount !== null && rowCount <= 0) return false;
  if (s === undefined || s === null) return true;
  const nullCount = s.nullCount ?? null;
  if (leaf.op === "isNull") return nullCount === null || nullCount > 0;
  if (leaf.op === "isNotNull") return nullCount === null || rowCount === null || nullCount < rowCount;
  if (nullCount !== null && rowCount !== null && nullCount >= rowCount) return false; // all null
  const t = leaf.type;
  // BINARY/VARBINARY: Java's row test orders byte[] as signed bytes, but bounds in files come
  // from writers that order them unsigned (parquet-mr / parquet-rs binary statistics, pyarrow,
  // our batch stats), and Java's own Parquet stats extractor keeps none. Bounds in one order
  // cannot prune a test in the other, so binary columns prune by null counts only.
  if (isBinary(t)) return true;
  let min = s.min ?? null;
  let max = s.max ?? null;
  if (min === null || max === null || !isCanonicalValue(min, t) || !isCanonicalValue(max, t)) return true;
  const float = isFloat(t);
  if (float && (isNaNValue(min) || isNaNValue(max))) return true;
  // Java orders -0.0 < 0.0, but writers merge the zeros (Parquet's rule, Arrow min/max): a zero
  // bound may stand for either sign, so a zero min is read as -0.0 and a zero max as +0.0.
  if (float && min === 0) min = -0;
  if (float && max === 0) max = 0;
  // (no closures: this runs for every file of every plan)
  const cmp = compareValues;
  const lit = leaf.literals[0];
  switch (leaf.op) {
    case "eq":
      return inRange(t, float, lit, min, max);
    case "ne":
      return float || !(cmp(t, lit, min) === 0 && cmp(t, lit, max) === 0);
    case "lt":
      return cmp(t, min, lit) < 0;
    case "le":
      return cmp(t, min, lit) <= 0;
    case "gt":
      return float || cmp(t, max, lit) > 0;
    case "ge":
      return float || cmp(t, max, lit) >= 0;
    case "in":
      return leaf.literals.some((l) => l !== null && inRange(t, float, l, min, max));
    case "notIn":
      if (leaf.literals.some((l) => l === null)) return false;
      return float || !leaf.literals.some((l) => cmp(t, l, min) === 0 && cmp(t, l, max) === 0);
    case "startsWith":
      return (startsWithValue(min, lit) || cmp(t, min, lit) <= 0) && (startsWithValue(max, lit) || cmp(t, max, lit) >= 0);
    case "notStartsWith":
      // values with a given prefix form an interval, so [min, max] inside it ⇒ all values have it
      return !(startsWithValue(min, lit) && startsWithValue(max, lit));
    default:
      return true;
  }
}

/**
 * Conservative evaluation: false only if no row described by `stats` can satisfy `predicate`.
 * The predicate is bound against `fields` (INVALID_ARGUMENT for unknown columns / bad literals).
 */
export function mayMatch(predicate: Predicate, stats: StatsSet, fields: readonly DataField[]): boolean {
  return boundMayMatch(bindPredicate(predicate, fields), stats);
}

/** `mayMatch` of a predicate already bound (`bindPredicate`): bind once, test many files. */
export function boundMayMatch(bound: Predicate, stats: StatsSet): boolean {
  return walkMayMatch(bound, stats, stats.rowCount ?? null);
}

function walkMayMatch(p: Predicate, stats: StatsSet, rowCount: bigint | number | null): boolean {
  if (p.kind === "leaf") return leafMayMatch(p as BoundLeafPredicate, stats.columns[p.field], rowCount);
  const and = p.kind === "and";
  for (let i = 0; i < p.children.length; i++) if (walkMayMatch(p.children[i]!, stats, rowCount) !== and) return !and;
  return and;
}

/**
 * `mayMatch` of one leaf that is already bound (a leaf of `bindPredicate`'s result) over the
 * statistics of its column: for callers testing many stats sets (pages of a column chunk)
 * without binding the predicate and building a StatsSet per test.
 */
export function boundLeafMayMatch(leaf: BoundLeafPredicate, stats: ColumnStats | undefined, rowCount: number): boolean {
  return leafMayMatch(leaf, stats, rowCount);
}

// ---------------------------------------------------------------------------------------------
// SimpleStats decoding
// ---------------------------------------------------------------------------------------------

function decodeRow(serialized: Uint8Array, types: DataType[]): unknown[] | null {
  try {
    const row = BinaryRow.fromSerialized(serialized);
    if (row.arity !== types.length) return null;
    return fromBinaryRow(row, types);
  } catch {
    return null;
  }
}

/**
 * Per-column stats from a SimpleStats whose rows cover exactly `fields` (in order). Stats that
 * cannot be decoded for these fields (wrong arity, bad bytes) are left unknown.
 */
export function statsFromSimpleStats(stats: SimpleStats, fields: readonly DataField[], rowCount?: bigint | number | null): StatsSet {
  // complex columns carry no usable min/max (Java writes null); read their slots as opaque bytes
  const types = fields.map((f): DataType => (isComplexType(f.type) || f.type.kind === "VARIANT" ? { kind: "VARBINARY", nullable: true, length: 2147483647 } : f.type));
  const mins = decodeRow(stats.minValues, types);
  const maxs = decodeRow(stats.maxValues, types);
  const counts = stats.nullCounts;
  const columns: Record<string, ColumnStats> = {};
  fields.forEach((f, i) => {
    const comparable = !isComplexType(f.type) && f.type.kind !== "VARIANT";
    const nullCount = counts && i < counts.length ? counts[i] : null;
    columns[f.name] = {
      min: comparable && mins ? mins[i] : null,
      max: comparable && maxs ? maxs[i] : null,
      nullCount: counts && counts.length === fields.length ? nullCount : null,
    };
  });
  return { rowCount: rowCount ?? null, columns };
}

/**
 * The value stats of a data file, given the fields of the schema it was written with
 * (`schema/schema-<file.schemaId>`): the covered columns are `_VALUE_STATS_COLS` (dense
 * store) if set, else `_WRITE_COLS` if set, else all fields. For primary-key tables value
 * stats describe rows before merging; only use them where Java does (e.g. with deletion
 * vectors or for the key fields).
 */
export function valueStatsOf(file: DataFileMeta, schemaFields: readonly DataField[]): StatsSet {
  // File metadata is immutable and plans of a snapshot share it: decoded once per file and
  // schema (the result is shared, not to be changed)
  const cached = decodedValueStats.get(file);
  if (cached !== undefined && cached.fields === schemaFields) return cached.stats;
  const stats = decodeValueStats(file, schemaFields);
  decodedValueStats.set(file, { fields: schemaFields, stats });
  return stats;
}

const decodedValueStats = new WeakMap<DataFileMeta, { fields: readonly DataField[]; stats: StatsSet }>();

function decodeValueStats(file: DataFileMeta, schemaFields: readonly DataField[]): StatsSet {
  const names = file.valueStatsCols ?? file.writeCols ?? null;
  let covered: readonly DataField[];
  if (names === null) covered = schemaFields;
  else {
    const byName = new Map(schemaFields.map((f) => [f.name, f]));
    const found = names.map((n) => byName.get(n));
    if (found.some((f) => f === undefined)) return { rowCount: file.rowCount, columns: {} };
    covered = found as DataField[];
  }
  return statsFromSimpleStats(file.valueStats, covered, file.rowCount);
}

/** The key stats of a primary-key table's data file over its (trimmed) primary-key fields. */
export function keyStatsOf(file: DataFileMeta, keyFields: readonly DataField[]): StatsSet {
  return statsFromSimpleStats(file.keyStats, keyFields, file.rowCount);
}

/** The partition stats of a manifest file (row count unknown). */
export function partitionStatsOf(meta: ManifestFileMeta, partitionFields: readonly DataField[]): StatsSet {
  return statsFromSimpleStats(meta.partitionStats, partitionFields, null);
}

/** `mayMatch` over a data file's value stats. */
export function fileMayMatch(predicate: Predicate, file: DataFileMeta, schemaFields: readonly DataField[]): boolean {
  return mayMatch(predicate, valueStatsOf(file, schemaFields), schemaFields);
}
