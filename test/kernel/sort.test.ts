import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeData, Int32, Utf8, Int64, vectorFromArray, Float64, TimestampMicrosecond, Bool, Decimal } from "apache-arrow";
import { keyColumnFromArrow, keyColumnFromValues, type KeyColumn } from "../../src/kernel/columns.js";
import { sortPermutation } from "../../src/kernel/sort.js";
import { sortPermutationReference } from "../../src/kernel/reference.js";
import { PaimonError } from "../../src/error.js";
import { columnsOf, keyTableArb, sequenceArb } from "./arbitraries.js";

describe("sortPermutation", () => {
  it("orders by key with nulls first, then by sequence, stably", () => {
    const keys = [keyColumnFromValues("int64", [5n, null, 3n, 5n, null, 3n])];
    const seq = BigInt64Array.from([2n, 1n, 9n, 1n, 0n, 9n]);
    expect(Array.from(sortPermutation(keys, seq))).toEqual([4, 1, 2, 5, 3, 0]);
  });

  it("orders strings as unsigned bytes, shorter prefix first", () => {
    const values = ["b", "abcdefghij", "abcdefgh", "", "\u00e9", "abcdefgh\u0000", "Z", "abcdefghi"];
    const keys = [keyColumnFromValues("bytes", values)];
    const perm = sortPermutation(keys, new BigInt64Array(values.length));
    expect(Array.from(perm, (i) => values[i])).toEqual(["", "Z", "abcdefgh", "abcdefgh\u0000", "abcdefghi", "abcdefghij", "b", "\u00e9"]);
  });

  it("orders doubles like Double.compare", () => {
    const values = [NaN, 1, -0, 0, -Infinity, Infinity, -1];
    const perm = sortPermutation([keyColumnFromValues("float64", values)], new BigInt64Array(values.length));
    expect(Array.from(perm, (i) => values[i])).toEqual([-Infinity, -1, -0, 0, 1, Infinity, NaN]);
  });

  it("orders composite keys column by column", () => {
    const keys = [keyColumnFromValues("int32", [2, 1, 2, 1]), keyColumnFromValues("bytes", ["b", "z", "a", null])];
    expect(Array.from(sortPermutation(keys, new BigInt64Array(4)))).toEqual([3, 1, 2, 0]);
  });

  it("handles empty batches", () => {
    expect(sortPermutation([keyColumnFromValues("int64", [])], new BigInt64Array(0))).toEqual(new Uint32Array(0));
  });

  it("matches the reference on random batches", () => {
    fc.assert(
      fc.property(
        keyTableArb().chain((t) => fc.tuple(fc.constant(t), sequenceArb(t.rows.length))),
        ([table, seq]) => {
          const keys = columnsOf(table);
          expect(Array.from(sortPermutation(keys, seq))).toEqual(Array.from(sortPermutationReference(keys, seq)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("matches the reference when sequence numbers ascend in row order (the writer's case)", () => {
    fc.assert(
      fc.property(keyTableArb(400), fc.boolean(), (table, constant) => {
        const keys = columnsOf(table);
        const seq = BigInt64Array.from(table.rows, (_, i) => (constant ? 7n : BigInt(i >> 1)));
        expect(Array.from(sortPermutation(keys, seq))).toEqual(Array.from(sortPermutationReference(keys, seq)));
      }),
      { numRuns: 300 },
    );
  });

  it("matches the reference on batches large enough for the radix path", () => {
    fc.assert(
      fc.property(
        keyTableArb(6000, undefined, 2048).chain((t) => fc.tuple(fc.constant(t), fc.constantFrom("random", "ascending", "constant"), sequenceArb(t.rows.length))),
        ([table, order, random]) => {
          const keys = columnsOf(table);
          const seq = order === "random" ? random : BigInt64Array.from(table.rows, (_, i) => (order === "constant" ? 0n : BigInt(i)));
          expect(Array.from(sortPermutation(keys, seq))).toEqual(Array.from(sortPermutationReference(keys, seq)));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("matches the reference on all-null and all-equal keys", () => {
    const rows = 1000;
    const nulls: KeyColumn = keyColumnFromValues("bytes", new Array(rows).fill(null));
    const same: KeyColumn = keyColumnFromValues("int64", new Array(rows).fill(7n));
    const seq = BigInt64Array.from({ length: rows }, (_, i) => BigInt(i % 7));
    for (const keys of [[nulls], [same], [nulls, same]]) {
      expect(Array.from(sortPermutation(keys, seq))).toEqual(Array.from(sortPermutationReference(keys, seq)));
    }
  });

  it("sorts Arrow columns, including sliced ones", () => {
    const n = 2000;
    const ids = vectorFromArray(Array.from({ length: n }, (_, i) => ((i * 7919) % 101) - 50), new Int32());
    const names = vectorFromArray(Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : `k${(i * 31) % 97}`)), new Utf8());
    const big = makeData({ type: new Int64(), length: n, data: BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 17) % 23)) });
    const dbl = vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : Math.sin(i))), new Float64());
    const ts = makeData({ type: new TimestampMicrosecond(), length: n, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i % 11) * -1_000_001n) });
    const flags = vectorFromArray(Array.from({ length: n }, (_, i) => i % 3 === 0), new Bool());
    const seq = BigInt64Array.from({ length: n }, (_, i) => BigInt(n - i));
    for (const [from, to] of [[0, n], [3, 1203], [17, 17], [1001, 1999]]) {
      const cols = [ids, names, dbl, flags].map((v) => keyColumnFromArrow(v.slice(from, to)));
      cols.push(keyColumnFromArrow(big.slice(from, to - from)), keyColumnFromArrow(ts.slice(from, to - from)));
      const s = seq.subarray(from, to);
      for (const keys of [[cols[0]], [cols[1]], [cols[1], cols[0]], [cols[2]], [cols[3], cols[4]], [cols[5], cols[1]]]) {
        expect(Array.from(sortPermutation(keys, s))).toEqual(Array.from(sortPermutationReference(keys, s)));
      }
    }
  });

  it("reads Arrow decimals as compact int64 or decimal128 by precision", () => {
    const words = Uint32Array.from([5, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]);
    const compact = keyColumnFromArrow(makeData({ type: new Decimal(2, 10, 128), length: 2, data: words }));
    expect(compact.type).toBe("int64");
    expect(Array.from(compact.values as BigInt64Array)).toEqual([5n, -1n]);
    const wide = keyColumnFromArrow(makeData({ type: new Decimal(2, 30, 128), length: 2, data: words }));
    expect(wide.type).toBe("decimal128");
    expect(Array.from(sortPermutation([wide], new BigInt64Array(2)))).toEqual([1, 0]);
  });

  it("rejects malformed input with INVALID_ARGUMENT", () => {
    const keys = [keyColumnFromValues("int64", [1n, 2n])];
    const attempt = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    for (const err of [
      attempt(() => sortPermutation(keys, new BigInt64Array(3))),
      attempt(() => sortPermutation([], new BigInt64Array(0))),
      attempt(() => sortPermutation([{ type: "int64", length: 2, values: new BigInt64Array(1) }], new BigInt64Array(2))),
      attempt(() => sortPermutation([{ type: "bytes", length: 2, offsets: new Int32Array(2), data: new Uint8Array(0) }], new BigInt64Array(2))),
      attempt(() => sortPermutation([{ type: "bytes", length: 2, offsets: Int32Array.from([0, 5, 2]), data: new Uint8Array(5) }], new BigInt64Array(2))),
      attempt(() => sortPermutation([{ type: "bytes", length: 1, offsets: Int32Array.from([0, 9]), data: new Uint8Array(5) }], new BigInt64Array(1))),
    ]) {
      expect(err).toBeInstanceOf(PaimonError);
      expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
    }
  });
});
