// Predicates: model and builder, exact evaluation (Arrow batches, rows, partitions),
// conservative evaluation over statistics, and pushdown splitting.
export {
  and,
  andOrNull,
  bindPredicate,
  col,
  compareBytes,
  compareFloat,
  compareSignedBytes,
  compareUtf8,
  compareValues,
  isBound,
  isCanonicalValue,
  isPredicate,
  negate,
  normalizeLiteral,
  not,
  or,
  predicateToString,
  referencedFields,
  splitAnd,
  splitOr,
  splitPredicateByFields,
  startsWithValue,
} from "./predicate.js";
export type { BoundLeafPredicate, ColumnRef, CompareOp, CompoundPredicate, LeafOp, LeafPredicate, Predicate, SplitPredicate } from "./predicate.js";
export {
  countSelected,
  evaluateBatch,
  evaluatePartition,
  evaluatePartitionRow,
  evaluateRow,
  filterBatchIndices,
  selectedIndices,
  testLeafValue,
} from "./evaluate.js";
export type { BatchEvalOptions, RowEvalOptions } from "./evaluate.js";
export { fileMayMatch, keyStatsOf, mayMatch, partitionStatsOf, statsFromSimpleStats, valueStatsOf } from "./stats.js";
export type { ColumnStats, StatsSet } from "./stats.js";
