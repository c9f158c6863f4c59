// Key lookups on primary-key tables (issue 10 "Performance"): key predicates read committed
// files selectively (row groups and pages pruned by statistics, other columns decoded only where
// keys match), and memory runs are narrowed by binary search. Decodes are counted, not timed.
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { and, col, RealtimeContext } from "../../src/index.js";
import type { Predicate } from "../../src/predicate/predicate.js";
import { readFooter } from "../../src/format/footer.js";
import { fileIOSource, toByteSource } from "../../src/format/source.js";
import { int64LowerBound, int64WordsOf, selectiveReadCounters, sortedKeyRange } from "../../src/read/selective-read.js";
import { bindPredicate } from "../../src/predicate/predicate.js";
import { ChunkCache, dataBytes } from "../../src/format/chunk-cache.js";
import * as arrow from "apache-arrow";
import type { Table } from "../../src/table/table.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import { RowKind } from "../../src/write/table-write.js";
import type { ArrowRealtimeStore } from "../../src/realtime/arrow-store.js";
import { cleanupDirs, compactFully, expectCode, makeTable, range, readRows, rtBatch } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

type Writer = Awaited<ReturnType<Table["newWrite"]>>;

async function commit(table: Table, w: Writer, id: number): Promise<void> {
  const progress = await w.prepareCommitWithProgress(id);
  await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, id));
}

/** Each data file of the latest snapshot with its row group count. */
async function fileRowGroups(table: Table): Promise<Array<{ file: DataFileMeta; groups: number }>> {
  const plan = await table.newScan().plan();
  const out: Array<{ file: DataFileMeta; groups: number }> = [];
  for (const split of plan.splits) {
    for (const f of split.files) {
      const path = `${table.location}/bucket-${split.bucket}/${f.fileName}`;
      out.push({ file: f, groups: (await readFooter(toByteSource(await fileIOSource(table.fileIO, path), path))).rowGroups.length });
    }
  }
  return out;
}

/** Row groups of every data file of the latest snapshot. */
async function rowGroupCount(table: Table): Promise<number> {
  return (await fileRowGroups(table)).reduce((n, f) => n + f.groups, 0);
}

/**
 * Columns a union read decodes from a committed file besides the key: name, v and dt, plus
 * sequence and kind unless the file holds no retract rows (the files of these tests are in
 * sequence order, below the memory's numbers: their rows are ordered by file).
 */
function unionValueColumns(f: DataFileMeta): number {
  return f.deleteRowCount === 0n ? 3 : 5;
}

function counted<T>(run: () => Promise<T>): Promise<{ result: T; counters: typeof selectiveReadCounters }> {
  const before = { ...selectiveReadCounters };
  return run().then((result) => ({
    result,
    counters: Object.fromEntries(Object.entries(selectiveReadCounters).map(([k, v]) => [k, v - before[k as keyof typeof before]])) as typeof selectiveReadCounters,
  }));
}

const N = 20_000;

/**
 * Keys 0..N in one committed run, even keys renamed `u<key>` and key 10 deleted in a second
 * (DV tables: compacted into one file), and key 7779 renamed `m` in memory. Other keys are
 * `n<key>`; v is key / 2.
 */
async function writeTwoRuns(table: Table, options: Record<string, unknown>): Promise<{ ctx: RealtimeContext; w: Writer }> {
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "u", realtime: ctx });
  await w.write(rtBatch(range(0, N)), { bucket: 0 });
  await commit(table, w, 1);
  // second run: even keys renamed, key 10 deleted
  const evens = range(0, N / 2).map((i) => 2 * i);
  await w.write(rtBatch(range(N, N + evens.length), { ids: evens, names: evens.map((i) => `u${i}`) }), { bucket: 0 });
  await w.write(rtBatch([2 * N], { ids: [10] }), { bucket: 0, rowKinds: [RowKind.DELETE] });
  await commit(table, w, 2);
  // DV tables read compacted files only: compact the two runs into one
  if ("deletion-vectors.enabled" in options) await w.refreshCommittedSnapshot(await compactFully(table));
  // a memory tail for the union read
  await w.write(rtBatch([2 * N + 1], { ids: [7779], names: ["m"] }), { bucket: 0 });
  return { ctx, w };
}

/** The union read's row of key `k` after writeTwoRuns (null when deleted). */
function twoRunsRow(k: number): Record<string, unknown> | null {
  if (k === 10) return null;
  return { id: k, name: k === 7779 ? "m" : k % 2 === 0 ? `u${k}` : `n${k}`, v: k / 2, dt: "d1" };
}

const MODES: Array<{ name: string; options: Record<string, string | number | boolean> }> = [
  { name: "PK MOR", options: {} },
  { name: "PK DV", options: { "deletion-vectors.enabled": true } },
];

describe.each(MODES)("key lookups, $name", ({ options }) => {
  it("a point lookup on multi-row-group files decodes only the row groups that can hold the key, with exact rows (committed and union reads)", async () => {
    // 1000-row row groups: each file holds many; no chunk cache, so every lookup decodes (the
    // cache has its own tests below)
    const table = await makeTable({ bucket: 1, "parquet.block.row.count.limit": 1000, "read.chunk-cache.max-memory": "0", ...options }, { primaryKeys: ["id"] });
    const { ctx, w } = await writeTwoRuns(table, options);
    const groups = await rowGroupCount(table);
    expect(groups).toBe("deletion-vectors.enabled" in options ? 20 : 30);
    const metas = (await table.newScan().plan()).splits.flatMap((s) => s.files);
    const files = metas.length;
    const oldest = [...metas].sort((a, b) => (a.minSequenceNumber < b.minSequenceNumber ? -1 : 1))[0]!;

    for (const ctxArg of [undefined, ctx]) {
      const lookup = (filter: Predicate) => counted(() => readRows(table, { ctx: ctxArg, filter, predicateFilter: true }));
      const odd = await lookup(col("id").eq(7777n));
      expect(odd.result).toEqual([{ id: 7777, name: "n7777", v: 3888.5, dt: "d1" }]);
      const even = await lookup(col("id").eq(7778n));
      expect(even.result).toEqual([{ id: 7778, name: "u7778", v: 3889, dt: "d1" }]);
      expect(await readRows(table, { ctx: ctxArg, filter: col("id").eq(10n), predicateFilter: true })).toEqual([]);
      expect(await readRows(table, { ctx: ctxArg, filter: col("id").eq(7779n), predicateFilter: true })).toEqual([{ id: 7779, name: ctxArg ? "m" : "n7779", v: 3889.5, dt: "d1" }]);
      // files holding the key: 7777 only the first run, 7778 both (one file when compacted)
      const cases: Array<[typeof odd, DataFileMeta[]]> = [
        [odd, [oldest]],
        [even, metas],
      ];
      for (const [{ counters }, holding] of cases) {
        // per file one row group can hold the key; the rest are pruned by footer statistics
        expect(counters.rowGroupsRead).toBe(files);
        expect(counters.rowGroupsPruned).toBe(groups - files);
        // the key column of each row group read, then the other columns of those holding the
        // key: name, v, dt, plus sequence and kind unless the split is read raw (DV, no memory)
        // or a union read needs no sequence numbers of the file
        const others = (f: DataFileMeta) => (ctxArg ? unionValueColumns(f) : files === 1 ? 3 : 5);
        expect(counters.chunkDecodes).toBe(files + holding.reduce((n, f) => n + others(f), 0));
      }
    }
    await w.prepareCommitWithProgress(3);
    await w.close();
    await ctx.close();
  });
});

describe.each(MODES)("the decoded chunk cache, $name", ({ options }) => {
  it("a chunk asked for twice is decoded whole and kept: later lookups in its row groups decode nothing and return the same rows", async () => {
    const table = await makeTable({ bucket: 1, "parquet.block.row.count.limit": 1000, ...options }, { primaryKeys: ["id"] });
    const { ctx, w } = await writeTwoRuns(table, options);
    const metas = (await table.newScan().plan()).splits.flatMap((s) => s.files);
    const lookup = (k: number) => counted(() => readRows(table, { ctx, filter: col("id").eq(BigInt(k)), predicateFilter: true }));
    // every file holds key 7778: its key chunk, then name, v, dt (sequence and kind: see unionValueColumns)
    const decodes = metas.reduce((n, f) => n + 1 + unionValueColumns(f), 0);
    const first = await lookup(7778);
    expect(first.result).toEqual([twoRunsRow(7778)]);
    expect(first.counters.chunkDecodes).toBe(decodes);
    expect(table.chunkCache.stats).toMatchObject({ entries: 0, stored: 0, hits: 0 });
    // second request: the same chunks, now decoded whole and stored
    const second = await lookup(7778);
    expect(second.result).toEqual([twoRunsRow(7778)]);
    expect(second.counters.chunkDecodes).toBe(decodes);
    expect(second.counters.pagesSkipped).toBe(0);
    expect(table.chunkCache.stats).toMatchObject({ entries: decodes, stored: decodes, hits: 0, evicted: 0 });
    // from then on: no decoding, for this key and the others of the same row groups
    for (const k of [7778, 7776, 7001, 7779]) {
      const again = await lookup(k);
      expect(again.result).toEqual([twoRunsRow(k)]);
      expect({ k, decodes: again.counters.chunkDecodes }).toEqual({ k, decodes: 0 });
    }
    expect(table.chunkCache.stats.hits).toBeGreaterThan(0);
    // a key in other row groups is decoded by pages again (asked for once)
    const far = await lookup(15000);
    expect(far.result).toEqual([twoRunsRow(15000)]);
    expect(far.counters.chunkDecodes).toBe(decodes);
    await w.prepareCommitWithProgress(3);
    await w.close();
    await ctx.close();
  });

  it("a repeated full union read stores the committed chunks on its second read and decodes none from its third, with identical rows", async () => {
    const table = await makeTable({ bucket: 1, "parquet.block.row.count.limit": 1000, ...options }, { primaryKeys: ["id"] });
    const { ctx, w } = await writeTwoRuns(table, options);
    const perFile = await fileRowGroups(table);
    const want = range(0, N).map(twoRunsRow).filter((r) => r !== null);
    const byId = (rows: Array<Record<string, unknown>>) => [...rows].sort((a, b) => (a.id as number) - (b.id as number));
    expect(byId(await readRows(table, { ctx }))).toEqual(want);
    expect(table.chunkCache.stats).toMatchObject({ entries: 0, stored: 0, hits: 0 });
    expect(byId(await readRows(table, { ctx }))).toEqual(want);
    // every row group's id, name, v, dt columns (sequence and kind: see unionValueColumns)
    const chunks = perFile.reduce((n, { file, groups }) => n + groups * (1 + unionValueColumns(file)), 0);
    expect(table.chunkCache.stats).toMatchObject({ entries: chunks, stored: chunks, hits: 0, evicted: 0 });
    expect(byId(await readRows(table, { ctx }))).toEqual(want);
    expect(table.chunkCache.stats).toMatchObject({ entries: chunks, stored: chunks, hits: chunks });
    // a new memory tail is read with the cached files
    await w.write(rtBatch([2 * N + 2], { ids: [4], names: ["four"] }), { bucket: 0 });
    expect(byId(await readRows(table, { ctx }))).toEqual(want.map((r) => (r!.id === 4 ? { ...r, name: "four" } : r)));
    expect(table.chunkCache.stats).toMatchObject({ stored: chunks, hits: 2 * chunks });
    await w.prepareCommitWithProgress(3);
    await w.close();
    await ctx.close();
  });

  it("stays within read.chunk-cache.max-memory, evicting the least recently used chunks, with exact rows", async () => {
    const bound = 128 * 1024;
    const table = await makeTable({ bucket: 1, "parquet.block.row.count.limit": 1000, "read.chunk-cache.max-memory": "128 kb", ...options }, { primaryKeys: ["id"] });
    const { ctx, w } = await writeTwoRuns(table, options);
    expect(table.chunkCache.maxBytes).toBe(bound);
    // 3 lookups of keys in 8 row groups: more chunks than fit
    for (const k of [7778, 1234, 15001, 3000, 19998, 10, 501, 12345]) {
      for (let i = 0; i < 3; i++) {
        expect(await readRows(table, { ctx, filter: col("id").eq(BigInt(k)), predicateFilter: true })).toEqual(twoRunsRow(k) === null ? [] : [twoRunsRow(k)]);
        expect(table.chunkCache.stats.bytes).toBeLessThanOrEqual(bound);
      }
    }
    // full reads through the small cache
    const want = range(0, N).map(twoRunsRow).filter((r) => r !== null);
    for (let i = 0; i < 3; i++) {
      expect((await readRows(table, { ctx })).sort((a, b) => (a.id as number) - (b.id as number))).toEqual(want);
      expect(table.chunkCache.stats.bytes).toBeLessThanOrEqual(bound);
    }
    const stats = table.chunkCache.stats;
    expect(stats.stored).toBeGreaterThan(stats.entries);
    expect(stats.evicted).toBe(stats.stored - stats.entries);
    expect(stats.hits).toBeGreaterThan(0);
    await w.prepareCommitWithProgress(3);
    await w.close();
    await ctx.close();
  });
});

describe("ChunkCache", () => {
  /** An Int64 column of `rows` rows: 8 bytes a row. */
  const column = (rows: number) => arrow.makeData({ type: new arrow.Int64(), length: rows, data: new BigInt64Array(rows) });

  it("admits a chunk on its second request when it fits a quarter of the bound, and evicts least recently used first", () => {
    const cache = new ChunkCache(4000);
    expect(cache.admit("a", 800)).toBe(false);
    expect(cache.admit("a", 800)).toBe(true);
    expect(cache.admit("big", 1001)).toBe(false);
    expect(cache.admit("big", 1001)).toBe(false);
    for (const k of ["a", "b", "c", "d", "e"]) cache.put(k, column(100)); // 800 bytes each
    expect(cache.stats).toEqual({ entries: 5, bytes: 4000, hits: 0, stored: 5, evicted: 0 });
    expect(cache.get("a")!.length).toBe(100); // a is now the most recently used
    cache.put("f", column(100));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.stats).toEqual({ entries: 5, bytes: 4000, hits: 2, stored: 6, evicted: 1 });
    cache.put("huge", column(126)); // 1008 bytes: more than a quarter
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.stats.entries).toBe(5);
  });

  it("keeps nothing with a bound of 0", () => {
    const cache = new ChunkCache(0);
    expect(cache.admit("a", 8)).toBe(false);
    expect(cache.admit("a", 8)).toBe(false);
    cache.put("a", column(1));
    expect(cache.stats).toEqual({ entries: 0, bytes: 0, hits: 0, stored: 0, evicted: 0 });
  });

  it("counts the bytes of every buffer of a chunk", () => {
    const strings = arrow.vectorFromArray(["ab", null, "cde"], new arrow.Utf8()).data[0]!;
    expect(dataBytes(strings)).toBe(strings.valueOffsets.byteLength + strings.values.byteLength + strings.nullBitmap!.byteLength);
    expect(dataBytes(column(3))).toBe(24);
  });
});

describe("sortedKeyRange", () => {
  const INT64 = [-(2n ** 63n), -(2n ** 32n) - 1n, -(2n ** 32n), -(2n ** 31n) - 1n, -(2n ** 31n), -1n, 0n, 1n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 32n + 1n, 2n ** 63n - 1n];
  const key = fc.oneof(fc.constantFrom(...INT64), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -5n, max: 5n }));
  const ops = ["eq", "lt", "le", "gt", "ge"] as const;
  const holds = (op: (typeof ops)[number], x: bigint, v: bigint) => (op === "eq" ? x === v : op === "lt" ? x < v : op === "le" ? x <= v : op === "gt" ? x > v : x >= v);
  /** sortedKeyRange of `whole` (sorted) cut by `cut` rows at both ends (a sliced column) against the model: the rows every bound holds for. */
  const checkRange = (whole: arrow.Data, kind: "BIGINT" | "INT", bounds: Array<[(typeof ops)[number], bigint | number]>, cut: number, shared: [number, number]) => {
    const from = Math.min(cut, whole.length);
    const data = whole.slice(from, whole.length - from);
    const rows = Array.from((whole.values as BigInt64Array | Int32Array).subarray(from, from + data.length) as ArrayLike<bigint | number>, (x) => BigInt(x));
    const preds = bounds.map(([op, v]) => col("id")[op](v));
    const filter = bindPredicate(preds.length === 1 ? preds[0]! : and(...preds), [{ id: 0, name: "id", type: { kind, nullable: false } }] as never);
    const [lo, hi] = sortedKeyRange(data, "id", filter, shared); // a pair reused across calls, as the union read does
    expect(sortedKeyRange(data, "id", filter)).toEqual([lo, hi]);
    const matching = rows.flatMap((x, i) => (bounds.every(([op, v]) => holds(op, x, BigInt(v))) ? [i] : []));
    expect(matching.length === 0 ? lo >= hi : [lo, hi]).toEqual(matching.length === 0 ? true : [matching[0], matching[matching.length - 1]! + 1]);
  };

  it("BIGINT keys (negative, across 32-bit word boundaries, sliced columns): exactly the rows the conjunctive bounds hold for", () => {
    const shared: [number, number] = [0, 0];
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), fc.array(fc.tuple(fc.constantFrom(...ops), key), { minLength: 1, maxLength: 3 }), fc.nat(5), (keys, bounds, cut) => {
        const sorted = BigInt64Array.from(keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        checkRange(arrow.makeData({ type: new arrow.Int64(), length: sorted.length, data: sorted }), "BIGINT", bounds, cut, shared);
      }),
      { numRuns: runs(500) },
    );
  });

  it("INT keys (first / last value probed before the search, sliced columns): exactly the rows the conjunctive bounds hold for", () => {
    const int = fc.oneof(fc.constantFrom(-(2 ** 31), -1, 0, 1, 2 ** 31 - 1), fc.integer({ min: -6, max: 6 }), fc.integer());
    const shared: [number, number] = [0, 0];
    fc.assert(
      fc.property(fc.array(int, { maxLength: 40 }), fc.array(fc.tuple(fc.constantFrom(...ops), int), { minLength: 1, maxLength: 3 }), fc.nat(3), (keys, bounds, cut) => {
        const sorted = Int32Array.from(keys.sort((a, b) => a - b));
        checkRange(arrow.makeData({ type: new arrow.Int32(), length: sorted.length, data: sorted }), "INT", bounds, cut, shared);
      }),
      { numRuns: runs(500) },
    );
  });

  it("int64LowerBound (the real-time reads' offset windows): the first value not below (inclusive: not at or below) the target, by 32-bit words", () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), key, fc.nat(5), (keys, v, cut) => {
        const sorted = BigInt64Array.from(keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        const values = sorted.subarray(Math.min(cut, sorted.length)); // a view at a byte offset
        const model = (inclusive: boolean) => {
          const i = Array.from(values).findIndex((x) => (inclusive ? x > v : x >= v));
          return i < 0 ? values.length : i;
        };
        expect(int64LowerBound(values, int64WordsOf(v))).toBe(model(false));
        expect(int64LowerBound(values, int64WordsOf(v), true)).toBe(model(true));
      }),
      { numRuns: runs(500) },
    );
    expect(int64WordsOf(-(2n ** 63n))).toEqual([-(2 ** 31), 0]);
    expect(int64WordsOf(2n ** 32n + 5n)).toEqual([1, 5]);
    expect(int64WordsOf(-1n)).toEqual([-1, 2 ** 32 - 1]);
  });
});

it("a bad read.chunk-cache.max-memory is refused with INVALID_ARGUMENT naming the option", async () => {
  const table = await makeTable({ bucket: 1, "read.chunk-cache.max-memory": "lots" }, { primaryKeys: ["id"] });
  expect(() => table.chunkCache).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("read.chunk-cache.max-memory") }));
});

it("a non-positive parquet.block.row.count.limit is refused with INVALID_ARGUMENT before anything is written", async () => {
  const table = await makeTable({ bucket: 1, "parquet.block.row.count.limit": 0 }, { primaryKeys: ["id"] });
  const err = await expectCode(table.newWrite({ commitUser: "u" }).then((w) => w.write(rtBatch([0]).selectAt([1, 2, 3, 4]), { bucket: 0 })), "INVALID_ARGUMENT");
  expect(err.message).toBe("option parquet.block.row.count.limit must be positive, got 0");
  expect(await table.latestSnapshot()).toBe(null);
});

describe("key predicates over memory runs and committed files", () => {
  it("return exactly the model's rows (random upserts, deletes, eq / range / in predicates)", async () => {
    const op = fc.record({ id: fc.integer({ min: 0, max: 60 }), del: fc.boolean(), name: fc.string({ maxLength: 3 }) });
    const pred = fc.oneof(
      fc.integer({ min: -2, max: 62 }).map((k) => ({ p: col("id").eq(BigInt(k)), test: (id: number) => id === k })),
      fc.tuple(fc.integer({ min: -2, max: 62 }), fc.integer({ min: -2, max: 62 })).map(([a, b]) => ({ p: and(col("id").ge(BigInt(a)), col("id").lt(BigInt(b))), test: (id: number) => id >= a && id < b })),
      fc.tuple(fc.integer({ min: -2, max: 62 }), fc.integer({ min: -2, max: 62 })).map(([a, b]) => ({ p: and(col("id").gt(BigInt(a)), col("id").le(BigInt(b))), test: (id: number) => id > a && id <= b })),
      fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 3 }).map((ks) => ({ p: col("id").in(ks.map(BigInt)), test: (id: number) => ks.includes(id) })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }), fc.array(pred, { minLength: 1, maxLength: 4 }), async (batches, preds) => {
        const table = await makeTable({ bucket: 1 }, { primaryKeys: ["id"] });
        const ctx = await RealtimeContext.create();
        const w = await table.newWrite({ commitUser: "u", realtime: ctx });
        const model = new Map<number, string>();
        let offset = 0;
        for (const [i, b] of batches.entries()) {
          await w.write(rtBatch(range(offset, offset + b.length), { ids: b.map((o) => o.id), names: b.map((o) => o.name) }), { bucket: 0, rowKinds: b.map((o) => (o.del ? RowKind.DELETE : RowKind.INSERT)) });
          offset += b.length;
          for (const o of b) (o.del ? model.delete(o.id) : model.set(o.id, o.name));
          // commit every other batch: committed runs plus a memory tail
          if (i % 2 === 0 && i < batches.length - 1) await commit(table, w, i + 1);
        }
        // each predicate twice: the second read takes decoded chunks from the cache
        for (const { p, test } of [...preds, ...preds]) {
          const rows = await readRows(table, { ctx, filter: p, predicateFilter: true });
          const got = rows.map((r): [number, string] => [r.id as number, r.name as string]).sort((x, y) => x[0] - y[0]);
          const want = [...model].filter(([id]) => test(id)).sort((x, y) => x[0] - y[0]);
          expect(got).toEqual(want);
        }
        await w.prepareCommitWithProgress(batches.length + 1);
        await w.close();
        await ctx.close();
      }),
      { numRuns: runs(15) },
    );
  });

  it("tiny writes coalesce into key-sorted batches: union reads, key lookups and views pinned before coalescing or a commit return the model's rows", async () => {
    const op = fc.record({ id: fc.integer({ min: 0, max: 15 }), del: fc.boolean(), name: fc.string({ maxLength: 2 }) });
    const rowsOf = async (table: Table, ctx: RealtimeContext, filter?: Predicate) =>
      (await readRows(table, { ctx, filter, predicateFilter: filter !== undefined })).map((r): [number, string] => [r.id as number, r.name as string]).sort((x, y) => x[0] - y[0]);
    const modelRows = (model: Map<number, string>, test: (id: number) => boolean = () => true) => [...model].filter(([id]) => test(id)).sort((x, y) => x[0] - y[0]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 40, maxLength: 110 }), fc.nat(), fc.boolean(), async (writes, pin, commitHalfway) => {
        const table = await makeTable({ bucket: 1 }, { primaryKeys: ["id"] });
        const ctx = await RealtimeContext.create();
        const w = await table.newWrite({ commitUser: "u", realtime: ctx });
        const model = new Map<number, string>();
        let pinned: { plan: Awaited<ReturnType<ReturnType<Table["newScan"]>["plan"]>>; rows: Array<[number, string]> } | null = null;
        let offset = 0;
        for (const [i, b] of writes.entries()) {
          if (i === pin % writes.length) pinned = { plan: await table.newScan({ realtime: ctx }).plan(), rows: modelRows(model) };
          if (commitHalfway && i === writes.length >> 1) await commit(table, w, 1);
          await w.write(rtBatch(range(offset, offset + b.length), { ids: b.map((o) => o.id), names: b.map((o) => o.name) }), { bucket: 0, rowKinds: b.map((o) => (o.del ? RowKind.DELETE : RowKind.INSERT)) });
          offset += b.length;
          for (const o of b) (o.del ? model.delete(o.id) : model.set(o.id, o.name));
        }
        // the stored batches were coalesced, each still sorted by key then sequence number
        const store = (ctx as unknown as { allEntries(): Array<{ store: ArrowRealtimeStore }> }).allEntries()[0]!.store;
        const view = store.acquireReadView();
        const stored = store.createQueryReader(view, { offsetBegin: 0n, predicate: null, readBatchSize: 1 }) as arrow.RecordBatch[];
        await view.release();
        expect(stored.length).toBeLessThanOrEqual(32); // one coalesced batch and the run of small ones since
        for (const batch of stored) {
          const ids = batch.data.children[1]!.values as BigInt64Array;
          const seq = batch.data.children[batch.numCols - 2]!.values as BigInt64Array;
          for (let r = 1; r < batch.numRows; r++) expect(ids[r - 1]! < ids[r]! || (ids[r - 1] === ids[r] && seq[r - 1]! < seq[r]!)).toBe(true);
        }
        expect(await rowsOf(table, ctx)).toEqual(modelRows(model));
        for (const k of [0, 7, 15]) expect(await rowsOf(table, ctx, col("id").eq(BigInt(k)))).toEqual(modelRows(model, (id) => id === k));
        expect(await rowsOf(table, ctx, col("id").in([1n, 2n, 9n]))).toEqual(modelRows(model, (id) => id === 1 || id === 2 || id === 9));
        expect(await rowsOf(table, ctx, and(col("id").ge(4n), col("id").lt(11n)))).toEqual(modelRows(model, (id) => id >= 4 && id < 11));
        const old = (await table.newRead({ realtime: ctx }).toArrow(pinned!.plan.splits)).toArray().map((r): [number, string] => [Number(r.id), r.name as string]);
        expect(old.sort((x, y) => x[0] - y[0])).toEqual(pinned!.rows);
        await w.prepareCommitWithProgress(2);
        await w.close();
        await ctx.close();
      }),
      { numRuns: runs(12), seed: 10 },
    );
  });
});
