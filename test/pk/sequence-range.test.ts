// Sequence numbers a writer assigns to a batch, in row order or permuted (a batch sorted by key).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sequenceRange } from "../../src/write/merge-tree-writer.js";
import { runs } from "../support/fc-runs.js";

describe("sequenceRange", () => {
  it("is start + row (or start + rows[i]) across 32-bit carries and beyond 2^53 (property)", () => {
    const start = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 63n - 100n }),
      fc.bigInt({ min: 2n ** 32n - 40n, max: 2n ** 32n + 5n }), // carries into the high word inside the batch
      fc.bigInt({ min: 2n ** 53n - 40n, max: 2n ** 53n + 5n }),
      fc.constantFrom(0n, 2n ** 63n - 41n),
    );
    fc.assert(
      fc.property(start, fc.array(fc.nat(39), { maxLength: 40 }), (s, raw) => {
        const rows = Uint32Array.from(raw);
        expect(Array.from(sequenceRange(s, rows.length, rows))).toEqual(raw.map((r) => s + BigInt(r)));
        expect(Array.from(sequenceRange(s, rows.length))).toEqual(raw.map((_, i) => s + BigInt(i)));
      }),
      { numRuns: runs(300) },
    );
  });
});
