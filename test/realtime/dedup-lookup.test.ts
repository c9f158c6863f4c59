// Key lookups of append-deduplicate tables (issue 11 "write-to-visible"): the memory tail answers
// `key = v` / `key IN (…)` through per-batch key indexes (src/realtime/memory-key-index.ts, built
// from a batch's second lookup),
// committed files through selective reads that keep decoded chunks, or decoded pages of chunks
// too large to keep whole, in the table's chunk cache. Each path returns exactly the rows of the
// plain path (every row filtered), including from views pinned before later writes, seals,
// commits and refreshes.
import fc from "fast-check";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { and, col, or, RealtimeContext } from "../../src/index.js";
import { bindPredicate, type Predicate } from "../../src/predicate/predicate.js";
import { filterBatchIndices } from "../../src/predicate/evaluate.js";
import { sliceBatch } from "../../src/arrow/record-batch.js";
import { selectiveReadCounters } from "../../src/read/selective-read.js";
import { keyLookupOf, lookupKeyRows } from "../../src/realtime/memory-key-index.js";
import { realtimeReadCounters } from "../../src/realtime/read.js";
import { DataTypes, type DataField } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, readRows, tempDir } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const B0 = { bucket: 0 };

describe("memory key index", () => {
  const cases: Array<{ name: string; field: DataField; arrowType: arrow.DataType; value: (k: number) => unknown }> = [
    { name: "BIGINT", field: { id: 0, name: "k", type: DataTypes.BIGINT() }, arrowType: new arrow.Int64(), value: (k) => BigInt(k) - 3n },
    { name: "INT", field: { id: 0, name: "k", type: DataTypes.INT() }, arrowType: new arrow.Int32(), value: (k) => k - 3 },
    { name: "STRING", field: { id: 0, name: "k", type: DataTypes.STRING() }, arrowType: new arrow.Utf8(), value: (k) => `key-${k}` },
  ];
  for (const c of cases) {
    it(`${c.name}: the rows an =, IN or AND filter selects in a window of a batch are the index's candidates that pass the filter`, () => {
      const fields: DataField[] = [c.field, { id: 1, name: "x", type: DataTypes.INT() }];
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 60 }),
          fc.integer({ min: 0, max: 60 }),
          fc.integer({ min: 0, max: 60 }),
          fc.array(fc.integer({ min: 0, max: 14 }), { minLength: 1, maxLength: 3 }),
          fc.constantFrom("eq", "in", "and"),
          (keys, a, b, wanted, shape) => {
            const n = keys.length;
            const batch = new arrow.RecordBatch({
              k: arrow.vectorFromArray(keys.map(c.value), c.arrowType).data[0],
              x: arrow.makeData({ type: new arrow.Int32(), length: n, data: Int32Array.from(keys, (_, i) => i % 3) }),
            });
            const from = Math.min(a, b, n);
            const to = Math.min(Math.max(a, b), n);
            const filter: Predicate = shape === "eq" ? col("k").eq(c.value(wanted[0])) : shape === "in" ? col("k").in(wanted.map(c.value)) : and(col("k").eq(c.value(wanted[0])), col("x").ne(1));
            const bound = bindPredicate(filter, fields);
            const lookup = keyLookupOf(bound, c.field)!;
            expect(lookup).not.toBeNull();
            const window = sliceBatch(batch, from, to);
            const plain = Array.from(filterBatchIndices(bound, window));
            // indexed from the second lookup (a batch read back from a spill file is never indexed)
            expect(lookupKeyRows(batch.data.children[0], lookup, from, to)).toBeNull();
            const candidates = lookupKeyRows(batch.data.children[0], lookup, from, to)!;
            const viaIndex = Array.from(candidates).filter((r) => filterBatchIndices(bound, sliceBatch(window, r, r + 1)).length === 1);
            expect(viaIndex).toEqual(plain);
            // candidates are ascending, in the window, and hold every row of a wanted key
            expect(Array.from(candidates)).toEqual(Array.from(candidates).sort((x, y) => x - y));
            if (shape !== "and") expect(Array.from(candidates)).toEqual(plain);
            // integer keys under a lone = / IN: the candidates are the result (no filter after)
            expect(lookup.exact).toBe(c.name !== "STRING" && shape !== "and");
          },
        ),
        { numRuns: runs(300), seed: 11 },
      );
    });
  }

  it("answers only = and IN on the key field of integer and VARCHAR keys; a null literal wants no identity", () => {
    const big: DataField = { id: 0, name: "k", type: DataTypes.BIGINT() };
    const small: DataField = { id: 0, name: "k", type: DataTypes.TINYINT() };
    const fields = (f: DataField): DataField[] => [f, { id: 1, name: "x", type: DataTypes.INT() }];
    expect(keyLookupOf(bindPredicate(col("k").gt(1n), fields(big)), big)).toBeNull();
    expect(keyLookupOf(bindPredicate(col("x").eq(1), fields(big)), big)).toBeNull();
    expect(keyLookupOf(bindPredicate(or(col("k").eq(1n), col("x").eq(1)), fields(big)), big)).toBeNull();
    expect(keyLookupOf(bindPredicate(col("k").eq(1), fields(small)), { name: "k", type: DataTypes.DOUBLE() })).toBeNull();
    const none = keyLookupOf(bindPredicate(col("k").in([null]), fields(small)), small)!;
    expect(none.identities.length).toBe(0);
    const batch = arrow.makeData({ type: new arrow.Int8(), length: 3, data: Int8Array.of(1, -24, 1) });
    expect(lookupKeyRows(batch, none, 0, 3)).toBeNull(); // first lookup: not indexed yet
    expect(Array.from(lookupKeyRows(batch, none, 0, 3)!)).toEqual([]);
    const ones = keyLookupOf(bindPredicate(col("k").in([1, 1]), fields(small)), small)!;
    expect(Array.from(lookupKeyRows(batch, ones, 0, 3)!)).toEqual([0, 2]);
    expect(Array.from(lookupKeyRows(batch, ones, 1, 3)!)).toEqual([1]); // relative to the window
    // each call's rows are its own (they are collected in a reused buffer)
    const other = arrow.makeData({ type: new arrow.Int8(), length: 2, data: Int8Array.of(7, 1) });
    expect(lookupKeyRows(other, ones, 0, 2)).toBeNull();
    expect(Array.from(lookupKeyRows(other, ones, 0, 2)!)).toEqual([1]);
    expect(Array.from(lookupKeyRows(other, ones, 0, 1)!)).toEqual([]);
    expect(Array.from(lookupKeyRows(batch, ones, 0, 3)!)).toEqual([0, 2]);
    expect(Array.from(lookupKeyRows(other, ones, 0, 2)!)).toEqual([1]);
    // a column of another kind is not indexed: the caller filters every row
    const ints = arrow.makeData({ type: new arrow.Int32(), length: 1, data: Int32Array.of(1) });
    expect(lookupKeyRows(ints, ones, 0, 1)).toBeNull();
    expect(lookupKeyRows(ints, ones, 0, 1)).toBeNull();
    // many rows of several keys (the shared buffer grows between keys) and a small lookup after
    // it: every result is a copy of its own, earlier results keep their rows
    const many = arrow.makeData({ type: new arrow.Int8(), length: 5000, data: Int8Array.from({ length: 5000 }, (_, i) => i % 5) });
    const three = keyLookupOf(bindPredicate(col("k").in([4, 0, 2]), fields(small)), small)!;
    const expectedRows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => i).filter((i) => [0, 2, 4].includes((from + i) % 5));
    expect(lookupKeyRows(many, three, 0, 5000)).toBeNull();
    const big1 = lookupKeyRows(many, three, 0, 5000)!;
    const small1 = lookupKeyRows(batch, ones, 0, 3)!;
    const big2 = lookupKeyRows(many, three, 7, 4000)!;
    const small2 = lookupKeyRows(other, ones, 0, 2)!;
    expect(Array.from(big1)).toEqual(expectedRows(0, 5000));
    expect(Array.from(big2)).toEqual(expectedRows(7, 4000));
    expect([Array.from(small1), Array.from(small2)]).toEqual([[0, 2], [1]]);
  });
});

describe("append deduplicate key lookups", () => {
  type Row = { id: number; offset: number; v: unknown };
  const lookup = async (table: Table, ctx: RealtimeContext | undefined, filter: Predicate): Promise<Row[]> =>
    (await readRows(table, { ctx, filter, predicateFilter: true })).map((r) => ({ id: r.id as number, offset: Number(r._REALTIME_OFFSET), v: r.v })).sort((a, b) => a.id - b.id || a.offset - b.offset);
  /** A real-time writer of `table` in a new context, and a commit of what it wrote (refreshing it). */
  const writer = async (table: Table) => {
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tempDir() });
    let id = 0;
    const commit = async () => {
      const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(++id), id);
      await w.refreshCommittedSnapshot(snapshot);
    };
    return { ctx, w, commit };
  };
  /** The same rows through a filter the key index does not answer (a range): every row filtered. */
  const plainLookup = (table: Table, ctx: RealtimeContext | undefined, id: number) => lookup(table, ctx, and(col("id").ge(id), col("id").le(id)));

  it("views pinned by a lookup's plan keep their rows while later writes supersede the key, seal, commit and refresh", async () => {
    const table = await makeDedupTable({ bucket: "1" });
    const { ctx, w, commit } = await writer(table);
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await commit();
    await w.write(dedupBatch([[2, 3], [4, 4], [2, 5]]), B0); // key 2 twice in one batch: the later row wins
    const filter = col("id").in([1, 2, 4]);
    const before = await table.newScan({ realtime: ctx, filter }).plan();
    const expected = [
      { id: 1, offset: 0, v: "v0" },
      { id: 2, offset: 5, v: "v5" },
      { id: 4, offset: 4, v: "v4" },
    ];
    expect(await lookup(table, ctx, filter)).toEqual(expected);
    await w.write(dedupBatch([[1, 6], [4, 7]]), B0);
    await w.seal();
    await w.write(dedupBatch([[2, 8]]), B0);
    await commit();
    await w.write(dedupBatch([[4, 9]]), B0);
    const read = (await table.newRead({ realtime: ctx, filter, predicateFilter: true }).toArrow(before.splits)).toArray().map((r) => ({ id: Number(r.id), offset: Number(r._REALTIME_OFFSET), v: String(r.v) }));
    expect(read.sort((a, b) => a.id - b.id)).toEqual(expected);
    const now = [
      { id: 1, offset: 6, v: "v6" },
      { id: 2, offset: 8, v: "v8" },
      { id: 4, offset: 9, v: "v9" },
    ];
    expect(await lookup(table, ctx, filter)).toEqual(now);
    for (const k of [1, 2, 3, 4, 5]) expect(await lookup(table, ctx, col("id").eq(k))).toEqual(await plainLookup(table, ctx, k));
    await commit();
    await w.close();
    await ctx.close();
  });

  it("a lookup of one key whose live row is in memory does not read the committed files; other lookups do, with the same rows as a filter the key index does not answer", async () => {
    const table = await makeDedupTable({ bucket: "1" });
    const { ctx, w, commit } = await writer(table);
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2], [4, 3]]), B0);
    await commit();
    await w.write(dedupBatch([[2, 4], [5, 5]]), B0); // key 2 superseded (a pending deletion), key 5 new
    await w.write(dedupBatch([[3, 6]]), B0);
    await commit(); // rows 4, 5, 6 committed; key 2's and 3's first rows deleted by a deletion vector
    await w.write(dedupBatch([[3, 7], [4, 8], [6, 9]]), B0); // key 3 again (its committed row 6 pending deleted), key 4 superseded, key 6 new
    /** Rows of `filter` and how many committed files the read left unread. */
    const counted = async (filter: Predicate) => {
      const skipped = realtimeReadCounters.filesSkipped;
      const rows = await lookup(table, ctx, filter);
      return { rows, skipped: realtimeReadCounters.filesSkipped - skipped };
    };
    // in memory: 3 (offset 7), 4 (offset 8), 6 (offset 9, never committed); committed only: 1, 2 (offset 4) and 5
    expect(await counted(col("id").eq(3))).toEqual({ rows: [{ id: 3, offset: 7, v: "v7" }], skipped: 2 });
    expect(await counted(col("id").eq(4))).toEqual({ rows: [{ id: 4, offset: 8, v: "v8" }], skipped: 2 });
    expect(await counted(col("id").eq(6))).toEqual({ rows: [{ id: 6, offset: 9, v: "v9" }], skipped: 0 }); // (the plan pruned the files: 6 is above their keys)
    expect(await counted(col("id").eq(1))).toEqual({ rows: [{ id: 1, offset: 0, v: "v0" }], skipped: 0 });
    expect(await counted(col("id").eq(2))).toEqual({ rows: [{ id: 2, offset: 4, v: "v4" }], skipped: 0 });
    expect(await counted(col("id").eq(5))).toEqual({ rows: [{ id: 5, offset: 5, v: "v5" }], skipped: 0 });
    // the filter rejects the memory row: the files are read (their row of the key is deleted)
    expect(await counted(and(col("id").eq(3), col("v").eq("v2")))).toEqual({ rows: [], skipped: 0 });
    // several keys, or a filter the key index does not answer: the files are read
    expect((await counted(col("id").in([1, 3]))).skipped).toBe(0);
    expect((await counted(and(col("id").ge(3), col("id").le(3)))).skipped).toBe(0);
    // the lookups whose rows are all in memory are answered at once (no generator to step):
    // keys 3, 4 (files skipped) and 6 (files pruned), and key 7 (in no file, in no batch)
    const memoryOnly = realtimeReadCounters.memoryOnly;
    for (const k of [1, 2, 3, 4, 5, 6, 7]) await lookup(table, ctx, col("id").eq(k));
    expect(realtimeReadCounters.memoryOnly - memoryOnly).toBe(4);
    for (const k of [1, 2, 3, 4, 5, 6, 7]) expect(await lookup(table, ctx, col("id").eq(k))).toEqual(await plainLookup(table, ctx, k));
    await commit();
    await w.close();
    await ctx.close();
  });

  it("committed chunks too large to keep whole keep their decoded pages: repeated lookups decode nothing and return the same rows", async () => {
    // 300k rows in one file: the key column has several pages; a 4 mb cache keeps pages, not the chunk
    const table = await makeDedupTable({ bucket: "1", "read.chunk-cache.max-memory": "4 mb" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tempDir() });
    const n = 300_000;
    for (let at = 0; at < n; at += 50_000) {
      const ids = BigInt64Array.from({ length: 50_000 }, (_, i) => BigInt(at + i));
      await w.write(
        new arrow.RecordBatch({
          id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: ids }),
          _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: ids.slice() }),
          v: arrow.vectorFromArray(Array.from(ids, (i) => `v${i}`), new arrow.Utf8()).data[0],
          dt: arrow.vectorFromArray(Array.from(ids, () => "d1"), new arrow.Utf8()).data[0],
        }),
        B0,
      );
    }
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    await w.write(dedupBatch([[7, n], [250_001, n + 1]]), B0); // supersede two committed keys
    const keys = [7, 12, 150_000, 250_001, 299_999];
    const expected = (k: number) => [k === 7 ? { id: 7, offset: n, v: `v${n}` } : k === 250_001 ? { id: k, offset: n + 1, v: `v${n + 1}` } : { id: k, offset: k, v: `v${k}` }];
    for (let round = 0; round < 2; round++) for (const k of keys) expect(await lookup(table, ctx, col("id").eq(k))).toEqual(expected(k));
    const decodes = selectiveReadCounters.chunkDecodes;
    for (const k of keys) expect(await lookup(table, ctx, col("id").eq(k))).toEqual(expected(k));
    expect(selectiveReadCounters.chunkDecodes).toBe(decodes);
    const stats = table.chunkCache.stats;
    expect(stats.stored).toBeGreaterThan(0);
    expect(stats.hits).toBeGreaterThan(0);
    expect(stats.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    for (const k of keys) expect(await lookup(table, ctx, col("id").eq(k))).toEqual(await plainLookup(table, ctx, k));
    // the committed table alone (no real-time context) reads the same committed rows
    expect(await lookup(table, undefined, col("id").eq(12))).toEqual([{ id: 12, offset: 12, v: "v12" }]);
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(2), 2));
    await w.close();
    await ctx.close();
  }, 120_000);
});
