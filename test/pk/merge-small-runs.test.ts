// mergeKvBatches with many small runs after a few large ones (a union read's memory batches after
// its files): the small runs are merged first, then with the large ones (deduplicate order;
// first-row merges all at once). Exact winners against the reference merge of all runs at once
// (src/kernel/reference.ts), both merge engines' orders, with and without dropping retract rows.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sliceBatch } from "../../src/arrow/record-batch.js";
import { keyColumnFromArrow } from "../../src/kernel/columns.js";
import { mergeDeduplicateReference } from "../../src/kernel/reference.js";
import type { KvBatch } from "../../src/read/kv-file-reader.js";
import { mergeKvBatches, smallRunsSuffix } from "../../src/read/merge-read.js";

interface Version {
  k: number;
  s: string;
  seq: number;
  kind: number;
}

/** A run sorted by (k, s, seq), as a KV batch [k INT, s STRING, v DOUBLE] sliced past a leading extra row. */
function chunk(versions: readonly Version[]): KvBatch {
  const rows = [...versions].sort((a, b) => a.k - b.k || (a.s < b.s ? -1 : a.s > b.s ? 1 : 0) || a.seq - b.seq);
  const all = [{ k: -1, s: "", seq: 0, kind: 0 }, ...rows];
  const batch = new arrow.RecordBatch({
    k: arrow.makeData({ type: new arrow.Int32(), length: all.length, data: Int32Array.from(all, (r) => r.k) }),
    s: arrow.vectorFromArray(
      all.map((r) => r.s),
      new arrow.Utf8(),
    ).data[0],
    v: arrow.makeData({ type: new arrow.Float64(), length: all.length, data: Float64Array.from(all, (r) => r.seq) }),
  });
  return {
    batch: sliceBatch(batch, 1, all.length),
    sequence: BigInt64Array.from(rows, (r) => BigInt(r.seq)),
    kinds: Int8Array.from(rows, (r) => r.kind),
  };
}

const version = (keys: number) =>
  fc.record({ k: fc.integer({ min: 0, max: keys }), s: fc.constantFrom("", "a", "ab", "abcdefghij"), seq: fc.integer({ min: 0, max: 30 }), kind: fc.constantFrom(0, 0, 2, 1, 3) });

describe("mergeKvBatches with a suffix of small runs", () => {
  it("chooses the suffix of small runs only where it saves tree levels", () => {
    expect(smallRunsSuffix([100, 100, 100])).toBe(-1); // too few runs
    expect(smallRunsSuffix([100, 100, 100, 100, 100, 100, 100, 100])).toBe(-1); // all alike
    expect(smallRunsSuffix([117_500, 117_500, 117_500, 117_500, 117_500, 117_500, 117_500, 117_500, ...Array(50).fill(4096)])).toBe(7);
    expect(smallRunsSuffix([1000, 1000, ...Array(12).fill(5)])).toBe(3);
  });

  it("finds the winners of merging all runs at once (property)", () => {
    let premerged = 0;
    fc.assert(
      fc.property(
        fc.array(fc.array(version(30), { minLength: 20, maxLength: 40 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.array(version(34), { minLength: 1, maxLength: 3 }), { minLength: 3, maxLength: 14 }),
        fc.boolean(),
        fc.boolean(),
        (large, small, dropDeletes, firstRow) => {
          const chunks = [...large, ...small].map(chunk);
          if (!firstRow && smallRunsSuffix(chunks.map((c) => c.batch.numRows)) >= 0) premerged++;
          const got = mergeKvBatches(chunks, [0, 1], { dropDeletes, firstRow });
          const runs = chunks.map((c) => ({
            keys: [0, 1].map((k) => keyColumnFromArrow(c.batch.data.children[k])),
            sequence: firstRow ? c.sequence.map((s) => -s) : c.sequence,
            rowKinds: c.kinds,
          }));
          const want = mergeDeduplicateReference(runs, { dropDeletes });
          expect(Array.from(got.part)).toEqual(Array.from(want.run));
          expect(Array.from(got.row)).toEqual(Array.from(want.row));
        },
      ),
      { numRuns: 300 },
    );
    expect(premerged).toBeGreaterThan(75);
  });
});
