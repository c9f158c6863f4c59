import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyColumnFromValues, keyValue } from "../../src/kernel/columns.js";
import { mergeDeduplicate, type SortedRun } from "../../src/kernel/merge.js";
import { keyComparator, mergeDeduplicateReference } from "../../src/kernel/reference.js";
import { sortedRunsArb } from "./arbitraries.js";

/** The model: sort every (run, row) by (key, sequence, run, row); the last of each key wins. */
function model(runs: SortedRun[], dropDeletes: boolean): Array<[number, number]> {
  const all: Array<[number, number]> = runs.flatMap((r, i) => Array.from({ length: r.sequence.length }, (_, j) => [i, j] as [number, number]));
  const cmp = (a: [number, number], b: [number, number]) => keyComparator(runs[a[0]].keys, runs[b[0]].keys)(a[1], b[1]);
  all.sort((a, b) => {
    const c = cmp(a, b);
    if (c !== 0) return c;
    const sa = runs[a[0]].sequence[a[1]];
    const sb = runs[b[0]].sequence[b[1]];
    if (sa !== sb) return sa < sb ? -1 : 1;
    return a[0] - b[0] || a[1] - b[1];
  });
  const winners = all.filter((e, i) => i === all.length - 1 || cmp(e, all[i + 1]) !== 0);
  return winners.filter(([r, j]) => !dropDeletes || ![1, 3].includes(runs[r].rowKinds?.[j] ?? 0));
}

const pairs = (m: { run: Uint32Array; row: Uint32Array }) => Array.from(m.run, (r, i) => [r, m.row[i]]);

function run(keys: unknown[], seq: bigint[], kinds?: number[]): SortedRun {
  return {
    keys: [keyColumnFromValues("int64", keys)],
    sequence: BigInt64Array.from(seq),
    rowKinds: kinds ? Int8Array.from(kinds) : undefined,
  };
}

describe("mergeDeduplicate", () => {
  it("keeps the highest sequence per key across runs", () => {
    const runs = [run([1n, 2n, 4n], [1n, 5n, 1n]), run([2n, 3n, 4n], [3n, 1n, 9n]), run([null, 1n], [0n, 0n])];
    expect(pairs(mergeDeduplicate(runs))).toEqual([
      [2, 0],
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 2],
    ]);
  });

  it("breaks sequence ties by the later run, then the later row", () => {
    const runs = [run([1n, 1n], [7n, 7n]), run([1n, 2n, 2n], [7n, 3n, 3n])];
    expect(pairs(mergeDeduplicate(runs))).toEqual([
      [1, 0],
      [1, 2],
    ]);
  });

  it("drops DELETE and UPDATE_BEFORE winners on request, keeps them otherwise", () => {
    const runs = [run([1n, 2n, 3n], [1n, 1n, 1n], [0, 0, 0]), run([1n, 2n, 3n], [2n, 2n, 2n], [3, 1, 2])];
    expect(pairs(mergeDeduplicate(runs, { dropDeletes: true }))).toEqual([[1, 2]]);
    expect(pairs(mergeDeduplicate(runs))).toEqual([
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
  });

  it("merges string keys across runs", () => {
    const s = (keys: string[], seq: bigint[]): SortedRun => ({ keys: [keyColumnFromValues("bytes", keys)], sequence: BigInt64Array.from(seq) });
    const runs = [s(["apple", "banana-split-long", "cherry"], [1n, 1n, 1n]), s(["banana-split-long", "banana-split-longer"], [2n, 2n])];
    const m = mergeDeduplicate(runs);
    expect(pairs(m)).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 2],
    ]);
    expect(Array.from(m.run, (r, i) => new TextDecoder().decode(keyValue(runs[r].keys[0], m.row[i]) as Uint8Array))).toEqual([
      "apple",
      "banana-split-long",
      "banana-split-longer",
      "cherry",
    ]);
  });

  it("handles empty runs and no rows", () => {
    expect(pairs(mergeDeduplicate([run([], [])]))).toEqual([]);
    expect(pairs(mergeDeduplicate([run([], []), run([5n], [1n]), run([], [])]))).toEqual([[1, 0]]);
  });

  it("matches the model and the reference on random runs", () => {
    fc.assert(
      fc.property(sortedRunsArb(), fc.boolean(), (runs, dropDeletes) => {
        const expected = model(runs, dropDeletes);
        expect(pairs(mergeDeduplicate(runs, { dropDeletes }))).toEqual(expected);
        expect(pairs(mergeDeduplicateReference(runs, { dropDeletes }))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("matches the model with many runs and heavy duplication", () => {
    fc.assert(
      fc.property(sortedRunsArb(20, 40, ["int32", "bytes"]), (runs) => {
        expect(pairs(mergeDeduplicate(runs, { dropDeletes: true }))).toEqual(model(runs, true));
      }),
      { numRuns: 100 },
    );
  });

  it("matches the model on single fixed-width keys: many runs, equal keys, sequence ties, extremes", () => {
    // One non-null fixed-width column is the merge's cached-word path; the extremes put live
    // heads on the words and sequences an exhausted run stands for (u64::MAX, i64::MAX).
    const INT64_MAX = 2n ** 63n - 1n;
    const sequence = fc.oneof(fc.bigInt({ min: 0n, max: 3n }), fc.constantFrom(-(2n ** 63n), INT64_MAX - 1n, INT64_MAX));
    fc.assert(
      fc.property(
        sortedRunsArb(40, 30, ["int64", "int32", "timestamp_nanos", "float64"], { maxColumns: 1, nullable: fc.constant(false), sequence }),
        fc.boolean(),
        (runs, dropDeletes) => {
          expect(pairs(mergeDeduplicate(runs, { dropDeletes }))).toEqual(model(runs, dropDeletes));
        },
      ),
      { numRuns: 300 },
    );
  });
});
