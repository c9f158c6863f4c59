import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import { fingerprintKeys } from "../../src/kernel/hash.js";
import { DedupKeyIndex, keyIdentities, survivingRows, type FrozenDeletedOffsets } from "../../src/realtime/dedup-key-index.js";
import { RowKind } from "../../src/spec/row-kind.js";
import { OffsetSet64 } from "../../src/kernel/bitmap.js";
import { runs } from "../support/fc-runs.js";

const fingerprints = (keys: readonly (string | null)[]) => fingerprintKeys([keyColumnFromValues("bytes", keys)]);
const offsets = (...values: number[]) => BigInt64Array.from(values.map(BigInt));
const deletedOf = (frozen: FrozenDeletedOffsets) => [...frozen.offsets];

describe("DedupKeyIndex", () => {
  it("apply's scratch of superseded offsets leaks nothing between calls: each call deletes exactly the offsets it superseded", () => {
    const index = new DedupKeyIndex();
    const ids = (...k: number[]) => keyIdentities(keyColumnFromValues("int64", k.map(BigInt)));
    const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
    // 40 keys, then all 40 again (superseding 0 … 39: more than the scratch's first size), then 3 of which one is known
    index.upsert(ids(...range(0, 40)), offsets(...range(0, 40)));
    const view = index.freezeDeleted(true);
    expect(index.upsert(ids(...range(0, 40)), offsets(...range(100, 40)))).toBe(40);
    expect(deletedOf(view)).toEqual([]);
    const afterBig = index.freezeDeleted();
    expect(index.upsert(ids(1000, 7, 1001), offsets(200, 201, 202))).toBe(1);
    expect(deletedOf(index.freezeDeleted())).toEqual([...range(0, 40).map(BigInt), 107n]);
    // a freeze before the small call keeps what it held; a call superseding nothing deletes nothing
    expect(deletedOf(afterBig)).toEqual(range(0, 40).map(BigInt));
    expect(index.upsert(ids(2000), offsets(300))).toBe(0);
    expect(deletedOf(index.freezeDeleted())).toHaveLength(41);
    view.release!();
  });

  it("released read-view freezes let writes change the deleted set in place and free the copies they replaced; held freezes keep theirs", () => {
    const index = new DedupKeyIndex();
    const ids = (...k: number[]) => keyIdentities(keyColumnFromValues("int64", k.map(BigInt)));
    index.upsert(ids(1, 2, 3, 4), BigInt64Array.of(10n, 20n, 30n, 40n));
    index.upsert(ids(1), BigInt64Array.of(11n));
    // a view holds {10}: the next write copies, the view keeps its values; its release frees the copy it held
    const view = index.freezeDeleted(true);
    index.upsert(ids(2), BigInt64Array.of(21n));
    expect([...view.offsets]).toEqual([10n]);
    expect(deletedOf(index.freezeDeleted(true))).toEqual([10n, 20n]);
    view.release!();
    view.release!(); // idempotent
    expect(view.offsets.isDisposed).toBe(true);
    // released views: no copy, the set changes in place
    const a = index.freezeDeleted(true);
    a.release!();
    const setBefore = a.offsets;
    // (the freeze taken in the expect above was never released: the set is copied once more)
    index.upsert(ids(3), BigInt64Array.of(31n));
    const b = index.freezeDeleted(true);
    b.release!();
    index.upsert(ids(4), BigInt64Array.of(41n));
    const c = index.freezeDeleted(true);
    expect(c.offsets).toBe(b.offsets);
    expect(deletedOf(c)).toEqual([10n, 20n, 30n, 40n]);
    expect(setBefore.isDisposed).toBe(false); // an unreleased freeze still holds it
    // a held freeze (seal / prepare) is never freed; a commit of it frees nothing it holds
    const held = index.freezeDeleted();
    c.release!();
    index.upsert(ids(1), BigInt64Array.of(12n));
    index.committed(held);
    expect([deletedOf(held), deletedOf(index.freezeDeleted()), held.offsets.isDisposed]).toEqual([[10n, 20n, 30n, 40n], [11n], false]);
  });

  it("with committed lookups: a missing key falls back to its committed offset, a retract leaves a marker, dropCommitted forgets keys below the committed end", () => {
    const ix = new DedupKeyIndex();
    const ids = (...v: number[]) => BigUint64Array.from(v.map(BigInt));
    const offs = (...v: number[]) => BigInt64Array.from(v.map(BigInt));
    const missing = (keys: BigUint64Array) => [...ix.holds(keys)].flatMap((held, row) => (held ? [] : [row]));
    // keys 1 and 2 are committed at offsets 3 and 4; key 5 is new
    expect(missing(ids(1, 2, 5))).toEqual([0, 1, 2]);
    const first = ix.apply(ids(1, 2, 5), offs(10, 11, 12), undefined, 0, offs(3, 4, -1));
    expect(first).toEqual({ addRows: null, superseded: 2 });
    // retract key 1 (memory) and key 7 (committed at 6); key 2 again supersedes its memory row
    const second = ix.apply(ids(1, 7, 2), offs(13, 14, 15), [RowKind.DELETE, RowKind.DELETE, RowKind.INSERT], 0, offs(-1, 6, -1));
    expect(second).toEqual({ addRows: Uint32Array.of(2), superseded: 3 });
    expect([...ix.freezeDeleted().offsets]).toEqual([3n, 4n, 6n, 10n, 11n]);
    // retracted keys are held (no fallback to the committed row) but have no live offset
    expect(missing(ids(1, 7, 8))).toEqual([2]);
    expect([ix.latestOffset(1n), ix.latestOffset(7n), ix.latestOffset(2n), ix.latestOffset(5n)]).toEqual([undefined, undefined, 15n, 12n]);
    expect(ix.apply(ids(7), offs(16), undefined, 0, null)).toEqual({ addRows: null, superseded: 0 });
    expect(ix.keyCount).toBe(4);
    ix.dropCommitted(14n); // keys 1 (retracted at 13) and 5 (12) are committed now
    expect(ix.keyCount).toBe(2);
    // key 9 twice in one batch: its committed row (8) is superseded once, then its first memory row
    const batch = ids(9, 9);
    expect(ix.apply(batch, offs(20, 21), undefined, 0, offs(8, 8))).toEqual({ addRows: null, superseded: 2 });
    expect(ix.latestOffset(9n)).toBe(21n);
    expect(ix.keyCount).toBe(3);
    expect(missing(ids(1, 2, 5, 7))).toEqual([0, 2]);
    expect([ix.latestOffset(2n), ix.latestOffset(7n)]).toEqual([15n, 16n]);
    expect([...ix.freezeDeleted().offsets]).toEqual([3n, 4n, 6n, 8n, 10n, 11n, 20n]);
  });

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

  it("applies mixed row kinds in row order; retracts store nothing", () => {
    const index = new DedupKeyIndex();
    const { INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE } = RowKind;
    // a@0, a@1 (supersedes 0), delete a (deletes 1), b@3, -U b (deletes 3), +U b@5, delete c (unknown)
    const result = index.apply(fingerprints(["a", "a", "a", "b", "b", "b", "c"]), offsets(0, 1, 2, 3, 4, 5, 6), [INSERT, INSERT, DELETE, INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]);
    expect(result.superseded).toBe(3);
    expect(Array.from(result.addRows!)).toEqual([0, 1, 3, 5]);
    expect(index.keyCount).toBe(1);
    expect(index.latestOffset(fingerprints(["b"])[0])).toBe(5n);
    expect(deletedOf(index.freezeDeleted())).toEqual([0n, 1n, 3n]);
    expect(index.apply(fingerprints(["a"]), offsets(7), [UPDATE_AFTER])).toEqual({ addRows: null, superseded: 0 });
  });

  it("survivingRows hides exactly the rows whose offsets are deleted", () => {
    const frozen = { offsets: new OffsetSet64([2n, 5n, 40n]) };
    expect(Array.from(survivingRows(offsets(1, 2, 3, 5, 9), frozen)!)).toEqual([0, 2, 4]);
    expect(survivingRows(offsets(6, 7, 8), frozen)).toBeNull(); // inside the set's range, no hit
    expect(survivingRows(offsets(41, 50), frozen)).toBeNull(); // beyond the set's range
    expect(survivingRows(offsets(), frozen)).toBeNull();
    expect(Array.from(survivingRows(offsets(40), frozen)!)).toEqual([]);
    expect(survivingRows(offsets(1, 2), { offsets: new OffsetSet64() })).toBeNull();
  });

  it("keyIdentities: the value's own bits (zero-extended) up to 64 bits, two XXH64 fingerprints (128 bits) for strings and wide decimals", () => {
    const ids = (type: Parameters<typeof keyColumnFromValues>[0], values: unknown[]) => Array.from(keyIdentities(keyColumnFromValues(type, values)));
    expect(ids("int64", [-1n, 5n])).toEqual([2n ** 64n - 1n, 5n]);
    expect(ids("int32", [-1, 7])).toEqual([0xffffffffn, 7n]);
    expect(ids("int16", [-1, 3])).toEqual([0xffffn, 3n]);
    expect(ids("int8", [-1, 3])).toEqual([0xffn, 3n]);
    expect(ids("bool", [true, false])).toEqual([1n, 0n]);
    expect(ids("float64", [0.5])).toEqual([0x3fe0000000000000n]);
    expect(ids("float32", [0.5])).toEqual([0x3f000000n]);
    const [a, bc] = Array.from(fingerprints(["a", "bc"]));
    const [a2, bc2] = Array.from(fingerprintKeys([keyColumnFromValues("bytes", ["a", "bc"])], 0x9e3779b97f4a7c15n));
    expect(ids("bytes", ["a", "bc"])).toEqual([a, a2, bc, bc2]);
    expect(a2).not.toBe(a);
  });

  it("128-bit identities: keys whose first fingerprints collide stay distinct", () => {
    const index = new DedupKeyIndex(2);
    const wide = (...pairs: Array<[bigint, bigint]>) => BigUint64Array.from(pairs.flat());
    // same first word, different second word: two keys (a 64-bit identity would merge them and delete a live row)
    expect(index.upsert(wide([7n, 1n], [7n, 2n], [7n, 1n]), offsets(0, 1, 2))).toBe(1);
    expect(index.keyCount).toBe(2);
    expect(index.latestOffset(wide([7n, 1n]))).toBe(2n);
    expect(index.latestOffset(wide([7n, 2n]))).toBe(1n);
    expect(deletedOf(index.freezeDeleted())).toEqual([0n]);
    expect(index.remove(wide([7n, 2n]))).toBe(1);
    expect(index.latestOffset(wide([7n, 2n]))).toBeUndefined();
    expect(() => index.upsert(BigUint64Array.of(7n), offsets(3))).toThrow("dedup key index: 1 identity words (2 a key) for 1 offsets");
    // growth keeps both words
    const many = Array.from({ length: 3000 }, (_, i) => [7n, BigInt(i + 10)] as [bigint, bigint]);
    index.upsert(wide(...many), BigInt64Array.from(many, (_, i) => BigInt(i + 10)));
    expect(index.keyCount).toBe(3001);
    expect(index.latestOffset(wide([7n, 2500n]))).toBe(2500n);
  });

  it("keyIdentities of int32 and int64 keys are injective (exact deduplication)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 50 }), fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 50 }), (ints, longs) => {
        const distinct = (values: readonly unknown[], identities: BigUint64Array) => expect(new Set(identities).size).toBe(new Set(values).size);
        distinct(ints, keyIdentities(keyColumnFromValues("int32", ints)));
        distinct(longs, keyIdentities(keyColumnFromValues("int64", longs)));
      }),
      { numRuns: runs(100), seed: 20261202 },
    );
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

  it("strided raw key values (multiples of 2^32 and of 2^10) stay distinct keys", () => {
    const index = new DedupKeyIndex();
    const keys = [...Array.from({ length: 3000 }, (_, i) => BigInt(i) << 32n), ...Array.from({ length: 3000 }, (_, i) => BigInt(i + 1) << 10n)];
    const ids = keyIdentities(keyColumnFromValues("int64", keys));
    expect(index.upsert(ids, BigInt64Array.from(keys, (_, i) => BigInt(i)))).toBe(0);
    expect(index.keyCount).toBe(6000);
    expect(index.upsert(ids.slice(2990, 3010), BigInt64Array.from({ length: 20 }, (_, i) => BigInt(6000 + i)))).toBe(20);
    expect(index.latestOffset(ids[2995])).toBe(6005n);
    expect(index.latestOffset(ids[3005])).toBe(6015n);
    expect(index.keyCount).toBe(6000);
  });

  it("refuses identities and offsets of different lengths with INVALID_ARGUMENT, changing nothing", () => {
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

  type Op = { kind: "write"; rows: Array<{ key: number; retract: boolean }> } | { kind: "freeze" } | { kind: "commit" };
  const rowsArb = fc.array(fc.record({ key: fc.integer({ min: 0, max: 40 }), retract: fc.boolean() }), { maxLength: 30 });
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: rowsArb.map((rows) => ({ kind: "write" as const, rows })) },
    { weight: 1, arbitrary: fc.constant({ kind: "freeze" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "commit" as const }) },
  );
  const ascending = (values: Iterable<bigint>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  it("matches a 'last row per key' model with pending deletions, frozen views and surviving stored rows after every step", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.constantFrom(RowKind.DELETE, RowKind.UPDATE_BEFORE), (ops, retractKind) => {
        const index = new DedupKeyIndex();
        const live = new Map<number, bigint>();
        let pending = new Set<bigint>();
        const stored: bigint[] = [];
        const views: Array<{ view: FrozenDeletedOffsets; expected: bigint[] }> = [];
        let next = 0n;
        const fp = (keys: number[]) => fingerprintKeys([keyColumnFromValues("int64", keys.map(BigInt))]);
        for (const op of ops) {
          if (op.kind === "write") {
            const offs = BigInt64Array.from(op.rows, () => next++);
            const adds: number[] = [];
            let superseded = 0;
            op.rows.forEach((r, i) => {
              const old = live.get(r.key);
              if (old !== undefined) {
                pending.add(old);
                superseded++;
              }
              if (r.retract) live.delete(r.key);
              else {
                live.set(r.key, offs[i]);
                adds.push(i);
                stored.push(offs[i]);
              }
            });
            const kinds = op.rows.map((r) => (r.retract ? retractKind : RowKind.INSERT));
            const result = index.apply(fp(op.rows.map((r) => r.key)), offs, kinds);
            expect(result.superseded).toBe(superseded);
            expect(result.addRows === null ? op.rows.map((_, i) => i) : Array.from(result.addRows)).toEqual(adds);
          } else if (op.kind === "freeze") {
            views.push({ view: index.freezeDeleted(), expected: ascending(pending) });
          } else {
            index.committed(index.freezeDeleted());
            pending = new Set();
          }
          expect(index.keyCount).toBe(live.size);
          for (const [k, off] of live) expect(index.latestOffset(fp([k])[0])).toBe(off);
          const current = index.freezeDeleted();
          expect([...current.offsets]).toEqual(ascending(pending));
          for (const { view, expected } of views) expect([...view.offsets]).toEqual(expected);
          // Memory rows hidden by the pending deletions only (committed deletions are the committed DVs' job).
          const storedOffsets = BigInt64Array.from(stored);
          const survivors = survivingRows(storedOffsets, current);
          const expectedSurvivors = stored.filter((o) => !pending.has(o));
          expect(survivors === null ? stored : Array.from(survivors, (i) => storedOffsets[i])).toEqual(expectedSurvivors);
        }
      }),
      { numRuns: runs(150), seed: 20261202 },
    );
  });

  it("with committed lookups, matches a model of committed rows + keys written since, through writes and refreshes (int64 and string identities)", () => {
    type Step = { kind: "write"; rows: Array<{ key: number; retract: boolean }> } | { kind: "refresh" };
    const stepArb: fc.Arbitrary<Step> = fc.oneof({ weight: 5, arbitrary: rowsArb.map((rows) => ({ kind: "write" as const, rows })) }, { weight: 1, arbitrary: fc.constant({ kind: "refresh" as const }) });
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), fc.boolean(), fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }), (steps, strings, initial) => {
        const width = strings ? 2 : 1;
        const ids = (keys: number[]) => (strings ? keyIdentities(keyColumnFromValues("bytes", keys.map((k) => `key-${k}`))) : keyIdentities(keyColumnFromValues("int64", keys.map(BigInt))));
        const index = new DedupKeyIndex(width);
        // committed: key -> live offset at the lookup's snapshot; memory: key -> offset, or a retract ("r" + offset)
        const committed = new Map<number, bigint>(initial.map((k, i) => [k, BigInt(i)]));
        const memory = new Map<number, { offset: bigint; live: boolean }>();
        let next = BigInt(initial.length);
        let pending = new Set<bigint>();
        for (const step of steps) {
          if (step.kind === "refresh") {
            // everything written so far is committed: the committed rows become the model's, the index forgets them
            for (const [k, m] of memory) {
              if (m.live) committed.set(k, m.offset);
              else committed.delete(k);
            }
            memory.clear();
            index.dropCommitted(next);
            index.committed(index.freezeDeleted());
            pending = new Set();
          } else {
            const keys = step.rows.map((r) => r.key);
            const offs = BigInt64Array.from(step.rows, () => next++);
            const found = BigInt64Array.from(keys, (k) => committed.get(k) ?? -1n);
            let superseded = 0;
            const adds: number[] = [];
            step.rows.forEach((r, i) => {
              const m = memory.get(r.key);
              const old = m !== undefined ? (m.live ? m.offset : undefined) : committed.get(r.key);
              if (old !== undefined) {
                pending.add(old);
                superseded++;
              }
              if (!r.retract) adds.push(i);
              if (!r.retract || m !== undefined || committed.has(r.key)) memory.set(r.key, { offset: offs[i], live: !r.retract });
            });
            const kinds = step.rows.map((r) => (r.retract ? RowKind.DELETE : RowKind.INSERT));
            const result = index.apply(ids(keys), offs, kinds, 0, found.some((o) => o >= 0n) ? found : null);
            expect(result.superseded).toBe(superseded);
            expect(result.addRows === null ? step.rows.map((_, i) => i) : Array.from(result.addRows)).toEqual(adds);
          }
          expect(index.keyCount).toBe(memory.size);
          const all = Array.from({ length: 41 }, (_, k) => k);
          expect(Array.from(index.holds(ids(all)))).toEqual(all.map((k) => (memory.has(k) ? 1 : 0)));
          for (const k of all) {
            const m = memory.get(k);
            expect(index.latestOffset(ids([k]))).toBe(m?.live ? m.offset : undefined);
          }
          expect([...index.freezeDeleted().offsets]).toEqual(ascending(pending));
        }
      }),
      { numRuns: runs(150), seed: 20261202 },
    );
  });

  it("keeps every key of a table grown far past its initial capacity, with 64-bit keys of all magnitudes", () => {
    const index = new DedupKeyIndex();
    const n = 50_000;
    const keys = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? BigInt(i) : i % 3 === 1 ? -BigInt(i) * 7919n : BigInt(i) << 40n));
    const ids = keyIdentities(keyColumnFromValues("int64", keys));
    for (let from = 0; from < n; from += 4096) index.upsert(ids.subarray(from, Math.min(n, from + 4096)), BigInt64Array.from(keys.slice(from, from + 4096), (_, i) => BigInt(from + i) + (1n << 40n)));
    expect(index.keyCount).toBe(n);
    expect(index.keyMemoryBytes).toBe(131072 * 17);
    for (let i = 0; i < n; i += 101) expect(index.latestOffset(ids[i])).toBe(BigInt(i) + (1n << 40n));
    index.dropCommitted((1n << 40n) + BigInt(n / 2));
    expect(index.keyCount).toBe(n / 2);
    expect(index.latestOffset(ids[0])).toBeUndefined();
    expect(index.latestOffset(ids[n - 1])).toBe(BigInt(n - 1) + (1n << 40n));
  });
});
