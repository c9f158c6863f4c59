// The committed-file key filter of the append-deduplicate lookup (src/realtime/dedup-lookup.ts):
// no false negatives, and one-word identities outside the file's key range are refused without
// the Bloom bits.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import { keyIdentities } from "../../src/realtime/dedup-key-index.js";
import { FileKeyTable, KeyFilter } from "../../src/realtime/dedup-lookup.js";
import { runs } from "../support/fc-runs.js";

const int64Ids = (keys: readonly bigint[]) => keyIdentities(keyColumnFromValues("int64", [...keys]));
const mayContain = (filter: KeyFilter, ids: BigUint64Array, w: number) => {
  const words = new Uint32Array(ids.buffer, ids.byteOffset, ids.length * 2);
  return Array.from({ length: ids.length / (w / 2) }, (_, i) => filter.mayContain(words, i * w, w));
};

describe("committed key filter", () => {
  it("refuses int64 keys outside the file's identity range, keeps every key of the file", () => {
    const keys = [100n, 150n, 199n, -5n]; // -5 is the largest identity (two's complement bits)
    const table = new FileKeyTable(1, int64Ids(keys), BigInt64Array.of(0n, 1n, 2n, 3n));
    expect(mayContain(table.filter, int64Ids(keys), 2)).toEqual([true, true, true, true]);
    // below the smallest identity (100) and above the largest (-5 = 2^64 - 5)
    expect(mayContain(table.filter, int64Ids([0n, 99n, -4n, -1n]), 2)).toEqual([false, false, false, false]);
    // an empty file holds nothing
    expect(mayContain(new FileKeyTable(1, new BigUint64Array(0), new BigInt64Array(0)).filter, int64Ids([0n, 100n]), 2)).toEqual([false, false]);
  });

  it("has no false negatives and no false positives outside the range (int64 and string keys, model check)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: 1, maxLength: 200 }), fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 50 }), (keys, others) => {
        const ids = int64Ids(keys);
        const table = new FileKeyTable(1, ids, BigInt64Array.from(keys, (_, i) => BigInt(i)));
        expect(mayContain(table.filter, ids, 2).every(Boolean)).toBe(true);
        const unsigned = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const probe = int64Ids(others);
        mayContain(table.filter, probe, 2).forEach((may, i) => {
          if (probe[i] < unsigned[0] || probe[i] > unsigned[unsigned.length - 1]) expect(may).toBe(false);
        });
        const names = keys.map((k) => `k${k}`);
        const stringIds = keyIdentities(keyColumnFromValues("bytes", names));
        const strings = new FileKeyTable(2, stringIds, BigInt64Array.from(keys, (_, i) => BigInt(i)));
        expect(mayContain(strings.filter, stringIds, 4).every(Boolean)).toBe(true);
      }),
      { numRuns: runs(100), seed: 20261202 },
    );
  });
});
