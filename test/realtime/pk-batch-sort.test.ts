// sortPrimaryKeyBatch (realtime/pk-batch.ts): any row order sorted by key then sequence number,
// against a model sort; a batch already in order (one row, or one BIGINT key strictly
// ascending) is returned itself without a kernel sort.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as arrow from "apache-arrow";
import { sortPrimaryKeyBatch } from "../../src/realtime/pk-batch.js";
import { runs } from "../support/fc-runs.js";

/** [_REALTIME_OFFSET, id, name, _SEQUENCE_NUMBER, _VALUE_KIND] rows: offsets 100 + i, sequence 7 + i in input order. */
function storeBatch(keys: readonly bigint[]): arrow.RecordBatch {
  const n = keys.length;
  return new arrow.RecordBatch({
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(keys, (_, i) => BigInt(100 + i)) }),
    id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(keys) }),
    name: arrow.vectorFromArray(
      keys.map((_, i) => `r${i}`),
      new arrow.Utf8(),
    ).data[0],
    _SEQUENCE_NUMBER: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(keys, (_, i) => BigInt(7 + i)) }),
    _VALUE_KIND: arrow.makeData({ type: new arrow.Int8(), length: n, data: Int8Array.from(keys, (_, i) => i % 4) }),
  });
}

const rows = (b: arrow.RecordBatch) => Array.from({ length: b.numRows }, (_, i) => [b.getChild("_REALTIME_OFFSET")!.get(i), b.getChild("id")!.get(i), b.getChild("name")!.get(i), b.getChild("_SEQUENCE_NUMBER")!.get(i), b.getChild("_VALUE_KIND")!.get(i)]);

const key = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(-1n, 0n, 1n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n)));

describe("sortPrimaryKeyBatch", () => {
  it("randomized: rows sorted by key then sequence number; a batch in order is returned itself", () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), fc.boolean(), (keys, presorted) => {
        const input = presorted ? [...new Set(keys)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : keys;
        const batch = storeBatch(input);
        const sorted = sortPrimaryKeyBatch(batch, [1]);
        const want = rows(batch).sort((a, b) => ((a[1] as bigint) < (b[1] as bigint) ? -1 : (a[1] as bigint) > (b[1] as bigint) ? 1 : Number((a[3] as bigint) - (b[3] as bigint))));
        expect(rows(sorted)).toEqual(want);
        // the batch itself exactly when its rows are in order already (strictly ascending keys among them)
        const inOrder = want.every((r, i) => r[0] === BigInt(100 + i));
        expect(sorted === batch).toBe(inOrder);
        if (input.every((k, i) => i === 0 || input[i - 1]! < k)) expect(inOrder).toBe(true);
      }),
      { numRuns: runs(300) },
    );
  });

  it("equal keys in input order are in order but not strictly ascending: sorted by the kernel, by sequence number", () => {
    const batch = storeBatch([3n, 3n, 5n]);
    const sorted = sortPrimaryKeyBatch(batch, [1]);
    expect(rows(sorted)).toEqual(rows(batch));
    // a descending pair of equal keys' sequence numbers is reordered
    const swapped = storeBatch([3n, 3n]);
    const seq = swapped.getChild("_SEQUENCE_NUMBER")!.data[0]!.values as BigInt64Array;
    seq[0] = 9n;
    seq[1] = 8n;
    expect(rows(sortPrimaryKeyBatch(swapped, [1])).map((r) => r[3])).toEqual([8n, 9n]);
  });
});
