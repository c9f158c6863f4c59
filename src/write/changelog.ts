// The changelog a compaction step produces (Java `LookupChangelogMergeFunctionWrapper`,
// `FirstRowMergeFunctionWrapper`, `FullChangelogMergeFunctionWrapper`): the records of a step
// are walked key by key in (key, sequence) order, and each key yields at most two changelog rows
// from its record before the step and its merged record after it.
import * as arrow from "apache-arrow";
import { concatData } from "../arrow/concat.js";
import { internalValue } from "../arrow/row-values.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
import { keyComparator } from "../kernel/reference.js";
import { sortPermutation } from "../kernel/sort.js";
import type { KvBatch } from "../read/merge-functions.js";
import type { DataField } from "../spec/types.js";
import { compareValues } from "../table/values.js";

/**
 * `lookup`: keys with a level-0 record; before = the key's record of the lowest level above 0
 * (among the step's records, else looked up above the output level), after = the latest record.
 * `first-row`: a key's first record, +I, when no level above 0 holds the key.
 * `full-compaction`: every key of a compaction to the max level; before = its max-level record.
 */
export type ChangelogMode = "lookup" | "first-row" | "full-compaction";

/** Whether two rows (source, row) hold equal values (`changelog-producer.row-deduplicate`). */
export type RowEqualiser = (a: arrow.RecordBatch, ra: number, b: arrow.RecordBatch, rb: number) => boolean;

/** Changelog rows: `sources[part[i]]` row `row[i]` with row kind `kinds[i]`, in key order. */
export interface ChangelogRows {
  part: Uint32Array;
  row: Uint32Array;
  kinds: Int8Array;
}

const NESTED = new Set(["ARRAY", "MAP", "MULTISET", "ROW", "VARIANT"]);

/** Java's `RecordEqualiser` over the value fields except `ignore` (by name). */
export function rowEqualiser(fields: readonly DataField[], ignore: readonly string[]): RowEqualiser {
  const compared = fields.map((f, i) => ({ f, i })).filter(({ f }) => !ignore.includes(f.name));
  const same = (x: unknown, y: unknown): boolean => {
    if (x === null || y === null) return x === y;
    if (typeof x === "number" && typeof y === "number") return x === y || (x !== x && y !== y); // Java Double.equals: NaN equals NaN
    return compareValues(x, y) === 0;
  };
  const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x instanceof Uint8Array ? Array.from(x) : x));
  return (a, ra, b, rb) => {
    for (const { f, i } of compared) {
      const da = a.data.children[i];
      const db = b.data.children[i];
      if (NESTED.has(f.type.kind)) {
        if (json(arrow.makeVector(da).get(ra)) !== json(arrow.makeVector(db).get(rb))) return false;
      } else if (!same(internalValue(da, ra, f.type), internalValue(db, rb, f.type))) return false;
    }
    return true;
  };
}

const isAdd = (kind: number) => kind === 0 || kind === 2;

/**
 * The changelog of a step: `sources` are its input rows (the first `stepSources`, of files at
 * `levels`) followed by rows looked up in the levels above the output (lookup modes), or by the
 * step's merged rows (`mergedSource`, partial-update / aggregation full compactions: a key's
 * merged row is its new one; a key without one is gone). `order`: `sources` ranked by the
 * sequence fields (sequence.field tables: Java's `UserDefinedSeqComparator` orders a key's records).
 */
export function changelogRows(
  sources: readonly KvBatch[],
  levels: readonly number[],
  stepSources: number,
  keyColumns: readonly number[],
  mode: ChangelogMode,
  maxLevel: number,
  equaliser: RowEqualiser | null,
  mergedSource = -1,
  order?: readonly KvBatch[],
): ChangelogRows {
  const keys = keyColumns.map((k) => keyColumnFromArrow(concatData(sources.map((s) => s.batch.data.children[k]))));
  const total = keys[0].length;
  const sequence = new BigInt64Array(total);
  const partOf = new Uint32Array(total);
  const rowOf = new Uint32Array(total);
  const kindOf = new Int8Array(total);
  for (let p = 0, at = 0; p < sources.length; p++) {
    const s = sources[p];
    sequence.set((order ?? sources)[p].sequence, at);
    kindOf.set(s.kinds, at);
    for (let r = 0; r < s.sequence.length; r++) {
      partOf[at + r] = p;
      rowOf[at + r] = r;
    }
    at += s.sequence.length;
  }
  const perm = sortPermutation(keys, sequence);
  const cmp = keyComparator(keys);
  const outPart: number[] = [];
  const outRow: number[] = [];
  const outKind: number[] = [];
  const emit = (g: number, kind: number) => {
    outPart.push(partOf[g]);
    outRow.push(rowOf[g]);
    outKind.push(kind);
  };
  const equal = (x: number, y: number) => equaliser !== null && equaliser(sources[partOf[x]].batch, rowOf[x], sources[partOf[y]].batch, rowOf[y]);
  /** Java `setChangelog(before, after)`. */
  const changed = (before: number, after: number) => {
    if (before < 0 || !isAdd(kindOf[before])) {
      if (after >= 0 && isAdd(kindOf[after])) emit(after, 0);
    } else if (after < 0 || !isAdd(kindOf[after])) emit(before, 3);
    else if (!equal(before, after)) {
      emit(before, 1);
      emit(after, 2);
    }
  };
  for (let start = 0; start < total; ) {
    let end = start + 1;
    while (end < total && cmp(perm[start], perm[end]) === 0) end++;
    let level0 = false;
    let high = -1; // lowest level above 0
    let highLevel = Infinity;
    let top = -1;
    let first = -1;
    let after = -1;
    let records = 0;
    let merged = -1;
    let latest = -1; // lookup: the last level-0 record, and its position (and high's) in the order
    let latestAt = -1;
    let highAt = -1;
    for (let i = start; i < end; i++) {
      const g = perm[i];
      if (partOf[g] === mergedSource) {
        merged = g;
        continue;
      }
      const level = levels[partOf[g]];
      if (partOf[g] < stepSources) {
        records++;
        if (level === 0) {
          level0 = true;
          latest = g;
          latestAt = i;
        }
        if (first < 0) first = g;
        after = g;
        if (level === maxLevel) top = g;
      }
      if (level > 0 && level < highLevel) {
        highLevel = level;
        high = g;
        highAt = i;
      }
    }
    start = end;
    if (after < 0) continue; // looked-up (or merged) rows only
    if (mergedSource >= 0) after = merged;
    if (mode === "lookup") {
      // Java's LookupMergeFunction merges the level-0 records with the key's lowest positive level
      // only: without a merged row, the later of the last level-0 record and that one (in the
      // sequence-field order it can be the older row)
      if (mergedSource < 0) after = highAt > latestAt ? high : latest;
      if (level0) changed(high, after);
    } else if (mode === "first-row") {
      if (level0 && high < 0) emit(first, 0);
    } else if (!(records === 1 && top >= 0)) changed(top, after);
  }
  return { part: Uint32Array.from(outPart), row: Uint32Array.from(outRow), kinds: Int8Array.from(outKind) };
}
