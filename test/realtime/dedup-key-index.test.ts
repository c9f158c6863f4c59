import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import { fingerprintKeys } from "../../src/kernel/hash.js";
import { DedupKeyIndex, type FrozenDeletedOffsets } from "../../src/realtime/dedup-key-index.js";

const fingerprints = (keys: readonly (string | null)[]) => fingerprintKeys([keyColumnFromValues("bytes", keys)]);
const offsets = (...values: number[]) => BigInt64Array.from(values.map(BigInt));
const deletedOf = (frozen: FrozenDeletedOffsets) => [...frozen.offsets];

describe("DedupKeyIndex", () => {
  it("keeps the latest offset per key and marks the superseded offsets deleted, within and across batches", () => {
    const index = new DedupKeyIndex();
    expect(index.upsert(fingerprints(["a", "b", "a"]), offsets(0, 1, 2))).toBe(1);
    expect(index.upsert(fingerprints(["b", "c"]), offsets(3, 4))).toBe(1);
    expect(index.keyCount).toBe(3);
    expect(index.latestOffset(fingerprints(["a"])[0])).toBe(2n);
    expect(index.latestOffset(fingerprints(["b"])[0])).toBe(3n);
    expect(index.latestOffset(fingerprints(["c"])[0])).toBe(4n);
    expect(index.latestOffset(fingerprints(["d"])[0])).toBeUndefined();
    expect(deletedOf(index.freezeDeleted())).toEqual([0n, 1n]);
  });

  it("a delete marks the live row deleted and forgets the key; deleting an unknown key changes nothing", () => {
    const index = new DedupKeyIndex();
    index.upsert(fingerprints(["a", "b"]), offsets(10, 11));
    expect(index.remove(fingerprints(["a", "zz"]))).toBe(1);
    expect(index.keyCount).toBe(1);
    expect(index.latestOffset(fingerprints(["a"])[0])).toBeUndefined();
    // Re-inserting the deleted key is a fresh row: nothing older to supersede.
    expect(index.upsert(fingerprints(["a"]), offsets(12))).toBe(0);
    expect(deletedOf(index.freezeDeleted())).toEqual([10n]);
  });

  it("null keys are one key (fingerprints tag nulls)", () => {
    const index = new DedupKeyIndex();
    expect(index.upsert(fingerprints([null, "", null]), offsets(0, 1, 2))).toBe(1);
    expect(index.keyCount).toBe(2);
  });

  it("frozen deleted offsets are copy-on-write: later writes do not change a frozen view", () => {
    const index = new DedupKeyIndex();
    index.upsert(fingerprints(["a", "a"]), offsets(0, 1));
    const view = index.freezeDeleted();
    index.upsert(fingerprints(["a"]), offsets(2));
    expect(deletedOf(view)).toEqual([0n]);
    expect(deletedOf(index.freezeDeleted())).toEqual([0n, 1n]);
  });

  it("committed() forgets exactly the deletions a prepare froze, keeping later ones", () => {
    const index = new DedupKeyIndex();
    index.upsert(fingerprints(["a", "a", "b"]), offsets(0, 1, 2));
    const prepared = index.freezeDeleted();
    index.upsert(fingerprints(["b"]), offsets(3));
    index.committed(prepared);
    expect(deletedOf(index.freezeDeleted())).toEqual([2n]);
    expect(deletedOf(prepared)).toEqual([0n]);
  });

  it("grows past its initial capacity and survives many removals (probe chains stay intact)", () => {
    const index = new DedupKeyIndex();
    const n = 5000;
    const keys = Array.from({ length: n }, (_, i) => `k${i}`);
    index.upsert(fingerprints(keys), BigInt64Array.from({ length: n }, (_, i) => BigInt(i)));
    expect(index.remove(fingerprints(keys.filter((_, i) => i % 2 === 0)))).toBe(n / 2);
    expect(index.upsert(fingerprints(keys), BigInt64Array.from({ length: n }, (_, i) => BigInt(n + i)))).toBe(n / 2);
    expect(index.keyCount).toBe(n);
    for (let i = 0; i < n; i += 997) expect(index.latestOffset(fingerprints([keys[i]])[0])).toBe(BigInt(n + i));
    expect(index.freezeDeleted().offsets.size).toBe(n);
    expect(index.keyMemoryBytes).toBeGreaterThanOrEqual(n * 17);
  });

  it("refuses fingerprints and offsets of different lengths with INVALID_ARGUMENT, changing nothing", () => {
    const index = new DedupKeyIndex();
    const call = () => index.upsert(fingerprints(["a", "b"]), offsets(0));
    expect(call).toThrow(PaimonError);
    try {
      call();
    } catch (e) {
      expect((e as PaimonError).code).toBe("INVALID_ARGUMENT");
    }
    expect(index.keyCount).toBe(0);
  });

  type Op = { kind: "upsert"; keys: number[] } | { kind: "remove"; keys: number[] } | { kind: "freeze" } | { kind: "commit" };
  const keysArb = fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 30 });
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: keysArb.map((keys) => ({ kind: "upsert" as const, keys })) },
    { weight: 2, arbitrary: keysArb.map((keys) => ({ kind: "remove" as const, keys })) },
    { weight: 1, arbitrary: fc.constant({ kind: "freeze" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "commit" as const }) },
  );

  it("matches a 'last row per key' model with pending deletions after every step", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const index = new DedupKeyIndex();
        const live = new Map<number, bigint>();
        let pending = new Set<bigint>();
        const views: Array<{ view: FrozenDeletedOffsets; expected: bigint[] }> = [];
        let next = 0n;
        const fp = (keys: number[]) => fingerprintKeys([keyColumnFromValues("int64", keys.map(BigInt))]);
        for (const op of ops) {
          if (op.kind === "upsert") {
            const offs = BigInt64Array.from(op.keys, () => next++);
            let superseded = 0;
            op.keys.forEach((k, i) => {
              const old = live.get(k);
              if (old !== undefined) {
                pending.add(old);
                superseded++;
              }
              live.set(k, offs[i]);
            });
            expect(index.upsert(fp(op.keys), offs)).toBe(superseded);
          } else if (op.kind === "remove") {
            let removed = 0;
            for (const k of op.keys) {
              const old = live.get(k);
              if (old === undefined) continue;
              pending.add(old);
              live.delete(k);
              removed++;
            }
            expect(index.remove(fp(op.keys))).toBe(removed);
          } else if (op.kind === "freeze") {
            views.push({ view: index.freezeDeleted(), expected: [...pending].sort((a, b) => (a < b ? -1 : 1)) });
          } else {
            index.committed(index.freezeDeleted());
            pending = new Set();
          }
          expect(index.keyCount).toBe(live.size);
          for (const [k, off] of live) expect(index.latestOffset(fp([k])[0])).toBe(off);
          expect([...index.freezeDeleted().offsets]).toEqual([...pending].sort((a, b) => (a < b ? -1 : 1)));
          for (const { view, expected } of views) expect([...view.offsets]).toEqual(expected);
        }
      }),
      { numRuns: 150, seed: 20261202 },
    );
  });
});
