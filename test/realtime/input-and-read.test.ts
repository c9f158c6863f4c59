import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it, vi } from "vitest";
import { and, Catalog, col, isRealtimeSplit, RealtimeContext, RowKind } from "../../src/index.js";
import { ArrowRealtimeStore } from "../../src/realtime/arrow-store.js";
import type { RealtimeSplit } from "../../src/realtime/scan.js";
import { cleanupDirs, expectCode, makeTable, offsetsBatch, range, readIds, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

describe("real-time input validation changes nothing", () => {
  it("rejects bad offsets, layouts, row kinds and targets", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2]), { bucket: 0 });
    const before = ctx.getMetrics();
    const INT64_MAX = 9223372036854775807n;
    await expectCode(w.write(rtBatch([2, 3]), { bucket: 0 }), "OFFSET_INVALID"); // duplicate
    await expectCode(w.write(rtBatch([1]), { bucket: 0 }), "OFFSET_INVALID"); // backwards
    await expectCode(w.write(rtBatch([5, 4]), { bucket: 0 }), "OFFSET_INVALID"); // not increasing in batch
    await expectCode(w.write(rtBatch([6, 6]), { bucket: 0 }), "OFFSET_INVALID");
    await expectCode(w.write(offsetsBatch(BigInt64Array.from([10n, INT64_MAX])), { bucket: 0 }), "OFFSET_INVALID");
    await expectCode(w.write(offsetsBatch(BigInt64Array.from([10n, 11n]), true), { bucket: 0 }), "OFFSET_INVALID"); // null
    await expectCode(w.write(offsetsBatch(BigInt64Array.from([-5n])), { bucket: 1 }), "OFFSET_INVALID"); // negative
    // across batches of one Table: the second is bad -> nothing of the first is kept
    await expectCode(w.write(new arrow.Table([rtBatch([10, 11]), rtBatch([11, 12])]), { bucket: 0 }), "OFFSET_INVALID");
    // a high int64 (> 2^32) sequence is fine
    const big = 1n << 40n;
    const noOffset = new arrow.RecordBatch({ id: rtBatch([1]).data.children[1], name: rtBatch([1]).data.children[2], v: rtBatch([1]).data.children[3], dt: rtBatch([1]).data.children[4] });
    await expectCode(w.write(noOffset, { bucket: 0 }), "OFFSET_INVALID"); // missing column
    const b = rtBatch([20]);
    const int32Offset = new arrow.RecordBatch({ _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int32(), length: 1, data: Int32Array.from([20]) }), id: b.data.children[1], name: b.data.children[2], v: b.data.children[3], dt: b.data.children[4] });
    await expectCode(w.write(int32Offset, { bucket: 0 }), "OFFSET_INVALID");
    const wrongOrder = new arrow.RecordBatch({ _REALTIME_OFFSET: b.data.children[0], name: b.data.children[2], id: b.data.children[1], v: b.data.children[3], dt: b.data.children[4] });
    await expectCode(w.write(wrongOrder, { bucket: 0 }), "INVALID_ARGUMENT");
    const missing = new arrow.RecordBatch({ _REALTIME_OFFSET: b.data.children[0], id: b.data.children[1], name: b.data.children[2], v: b.data.children[3] });
    await expectCode(w.write(missing, { bucket: 0 }), "INVALID_ARGUMENT");
    const nullId = new arrow.RecordBatch({ _REALTIME_OFFSET: b.data.children[0], id: arrow.vectorFromArray([null], new arrow.Int64()).data[0], name: b.data.children[2], v: b.data.children[3], dt: b.data.children[4] });
    await expectCode(w.write(nullId, { bucket: 0 }), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20]), { bucket: 0, rowKinds: [RowKind.DELETE] }), "UNSUPPORTED");
    await expectCode(w.write(rtBatch([20]), {}), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20]), { bucket: 2 }), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20]), { bucket: 0, partition: { dt: "x" } }), "INVALID_ARGUMENT");
    expect(ctx.getMetrics()).toEqual(before);
    expect(await readIds(table, { ctx })).toEqual([0, 1, 2]);
    // still healthy: valid writes continue, with gaps, int64 beyond 2^32, converted types
    await w.write(rtBatch([3, 7]), { bucket: 0, rowKinds: [RowKind.INSERT, RowKind.INSERT] });
    await w.write(offsetsBatch(BigInt64Array.from([big, big + 1n])), { bucket: 0 });
    const int32Id = new arrow.RecordBatch({ _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([big + 5n]) }), id: arrow.makeData({ type: new arrow.Int32(), length: 1, data: Int32Array.from([42]) }), name: b.data.children[2], v: b.data.children[3], dt: b.data.children[4] });
    await w.write(int32Id, { bucket: 0 });
    expect(ctx.getMetrics().realtimeBuildingRowCount).toBe(8);
    const p = await w.prepareCommitWithProgress(1);
    expect(p[0].offsetRange).toEqual({ begin: 0n, end: big + 6n });
    await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
    await w.close();
    expect((await readIds(table)).length).toBe(8);
  });

  it("refuses a DECIMAL value with more digits than the column's precision", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.dec", {
      fields: [
        { name: "id", type: "BIGINT NOT NULL" },
        { name: "d", type: "DECIMAL(5, 2)" },
      ],
      options: { bucket: 1, "bucket-key": "id", "realtime.enabled": true },
    });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    // unscaled 99999 fits DECIMAL(5, 2); 100000 and -100000 do not
    const batch = (offset: number, unscaled: number) =>
      new arrow.RecordBatch({
        _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([BigInt(offset)]) }),
        id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([1n]) }),
        d: arrow.makeData({ type: new arrow.Decimal(2, 5, 128), length: 1, data: Uint32Array.from([unscaled >>> 0, unscaled < 0 ? -1 >>> 0 : 0, unscaled < 0 ? -1 >>> 0 : 0, unscaled < 0 ? -1 >>> 0 : 0]) }),
      });
    await w.write(batch(0, 99999), { bucket: 0 });
    for (const unscaled of [100000, -100000]) {
      const e = await expectCode(w.write(batch(1, unscaled), { bucket: 0 }), "INVALID_ARGUMENT");
      expect(e.message).toContain(`column d of table db.dec: value ${unscaled < 0 ? "-" : ""}1000.00 (row 0) does not fit DECIMAL(5, 2)`);
    }
    await w.write(batch(1, -99999), { bucket: 0 });
    expect(ctx.getMetrics().realtimeBuildingRowCount).toBe(2);
    await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.close();
    // Decimal128 cells as four words: the low one holds these small unscaled values
    expect((await readRows(table)).map((r) => (r.d as Uint32Array)[0] | 0)).toEqual([99999, -99999]);
  });

  it("requires fixed buckets, an append table, a context object and a temp directory for spill", async () => {
    const ctx = await RealtimeContext.create();
    const dynamic = await makeTable({ bucket: -1, "bucket-key": "" } as never).catch(() => null);
    if (dynamic) await expectCode(dynamic.newWrite({ commitUser: "u", realtime: ctx }), "UNSUPPORTED");
    const spill = await makeTable({ "realtime.spill-enabled": true });
    await expectCode(spill.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
    const t = await makeTable({ "realtime.read-view-ttl": "0 s" });
    await expectCode(t.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
    const ok = await makeTable();
    await expectCode(ok.newWrite({ commitUser: "u", realtime: {} as never }), "INVALID_ARGUMENT");
    await expectCode(RealtimeContext.create(null as never), "INVALID_ARGUMENT");
    const w = await ok.newWrite({ commitUser: "u", realtime: ctx });
    await expectCode(w.prepareCommit(1), "INVALID_ARGUMENT");
    await expectCode(w.compact(), "UNSUPPORTED");
    // one context serves one table
    const other = await makeTable();
    await expectCode(other.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
    await w.close();
  });
});

describe("real-time scan and read", () => {
  it("keeps disk splits independent and rides the memory view on the tail split", async () => {
    const table = await makeTable({ "source.split.target-size": "1 b", "source.split.open-file-cost": "1 b" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    for (let i = 0; i < 3; i++) {
      await w.write(rtBatch(range(i * 10, i * 10 + 10)), { bucket: 0 });
      const s = await commit.commitWithProgress(await w.prepareCommitWithProgress(i + 1), i + 1);
      await w.refreshCommittedSnapshot(s);
    }
    await w.write(rtBatch(range(30, 35)), { bucket: 0 });
    await w.write(rtBatch(range(100, 103)), { bucket: 1 });
    const plan = await table.newScan({ realtime: ctx }).plan();
    const b0 = plan.splits.filter((s) => s.bucket === 0);
    expect(b0.length).toBe(3);
    expect(b0.map((s) => isRealtimeSplit(s))).toEqual([false, false, true]);
    const tail = b0[2] as RealtimeSplit;
    expect(tail.files.length).toBe(1);
    expect(tail.realtime.committedEndOffset).toBe(30n);
    expect(tail.realtime.memoryEndOffset).toBe(35n);
    const b1 = plan.splits.filter((s) => s.bucket === 1) as RealtimeSplit[];
    expect(b1.length).toBe(1);
    expect(b1[0].files.length).toBe(0);
    expect(b1[0].realtime.committedEndOffset).toBe(-1n);
    // splits are independently schedulable: read each separately
    const read = table.newRead({ realtime: ctx });
    const ids: number[] = [];
    for (const s of [...plan.splits].reverse()) {
      const t = await read.toArrow([s]);
      ids.push(...Array.from(t.getChild("id")!.toArray() as BigInt64Array, Number));
    }
    expect(ids.sort((a, b) => a - b)).toEqual([...range(0, 35), 100, 101, 102]);
    // a reader without the context refuses real-time splits (it would drop their memory rows)
    // and leaves their tickets alone: the same splits still read fully with the context
    const plan2 = await table.newScan({ realtime: ctx }).plan();
    const tickets = ctx.liveTicketCount;
    expect(tickets).toBe(2);
    const refused = await expectCode(table.newRead().toArrow(plan2.splits), "REALTIME_NOT_ENABLED");
    expect(refused.message).toMatch(/^reading a real-time split requires a real-time context \(split of bucket \d, snapshot 3\)/);
    await expectCode(table.newRead().createReader(plan2.splits.filter(isRealtimeSplit)), "REALTIME_NOT_ENABLED");
    expect(ctx.liveTicketCount).toBe(2);
    const full = await table.newRead({ realtime: ctx }).toArrow(plan2.splits);
    expect(Array.from(full.getChild("id")!.toArray() as BigInt64Array, Number).sort((a, b) => a - b)).toEqual([...range(0, 35), 100, 101, 102]);
    expect(ctx.liveTicketCount).toBe(0);
    // a disk-only plan (no context) still reads without one
    expect((await table.newRead().toArrow((await table.newScan().plan()).splits)).numRows).toBe(30);
    await w.prepareCommitWithProgress(9).then((p) => commit.commitWithProgress(p, 9));
    await w.close();
  });

  it("tickets: consumed by createReader, kept on failure, expire after the TTL; readers pin views", async () => {
    // the clock moves past the TTL only when the test says so: a short real TTL expired tickets
    // early on a loaded machine (a plan and its createReader more than the TTL apart)
    const realNow = Date.now.bind(Date);
    let skew = 0;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + skew);
    try {
      await ticketLifecycle(() => (skew += 2 * 3600_000));
    } finally {
      clock.mockRestore();
    }
  });

  async function ticketLifecycle(passTtl: () => void): Promise<void> {
    const table = await makeTable({ "realtime.read-view-ttl": "1 h" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch(range(0, 5)), { bucket: 0 });
    await w.write(rtBatch(range(5, 8)), { bucket: 1 });
    const read = table.newRead({ realtime: ctx });
    const plan = await table.newScan({ realtime: ctx }).plan();
    expect(ctx.liveTicketCount).toBe(2);
    const reader = await read.createReader(plan.splits);
    expect(ctx.liveTicketCount).toBe(0);
    await expectCode(read.createReader(plan.splits), "TICKET_EXPIRED"); // reused
    // the reader pins its view across commit, refresh and reclamation
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    const got: number[] = [];
    for await (const b of reader) got.push(...Array.from(b.getChild("id")!.toArray() as BigInt64Array, Number));
    await reader.close();
    expect(got.sort((a, b) => a - b)).toEqual(range(0, 8));
    // failure keeps the other tickets
    await w.write(rtBatch(range(8, 10)), { bucket: 0 });
    const p1 = await table.newScan({ realtime: ctx }).plan();
    const bogus = { ...(p1.splits.find(isRealtimeSplit) as RealtimeSplit), realtime: { ...(p1.splits.find(isRealtimeSplit) as RealtimeSplit).realtime, ticket: "rt-unknown" } };
    await expectCode(read.createReader([...p1.splits, bogus]), "TICKET_EXPIRED");
    expect(ctx.liveTicketCount).toBe(1);
    const mismatch = { ...(p1.splits.find(isRealtimeSplit) as RealtimeSplit), bucket: 1 };
    await expectCode(read.createReader([mismatch]), "INVALID_ARGUMENT");
    expect((await read.toArrow(p1.splits)).numRows).toBe(10);
    // expiry
    await w.write(rtBatch([10]), { bucket: 0 });
    const p2 = await table.newScan({ realtime: ctx }).plan();
    await table.newScan({ realtime: ctx }).plan(); // a plan never read: its ticket expires too
    passTtl();
    await expectCode(read.createReader(p2.splits), "TICKET_EXPIRED");
    expect(ctx.liveTicketCount).toBe(0); // every expired ticket released at once, not at the next sweep
    await w.prepareCommitWithProgress(2).then((p) => table.newCommit({ commitUser: "u" }).commitWithProgress(p, 2));
    await w.close();
  }

  it("accepts an explicit snapshot only if it is not behind the context's reclaimed progress", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch(range(0, 3)), { bucket: 0 });
    const s1 = await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.write(rtBatch(range(3, 6)), { bucket: 0 });
    const s2 = await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    await w.write(rtBatch(range(6, 8)), { bucket: 0 });
    // not refreshed yet: memory still holds [0, 8), so snapshot 1 is fine
    expect(await readIds(table, { ctx, snapshotId: s1 })).toEqual(range(0, 8));
    await w.refreshCommittedSnapshot(s2);
    await expectCode(readIds(table, { ctx, snapshotId: s1 }), "INVALID_ARGUMENT");
    expect(await readIds(table, { ctx, snapshotId: s2 })).toEqual(range(0, 8));
    expect(ctx.liveTicketCount).toBe(0);
    // a disk-only historical read without the context
    expect(await readIds(table, { snapshotId: s1 })).toEqual(range(0, 3));
    await w.prepareCommitWithProgress(3).then((p) => commit.commitWithProgress(p, 3));
    await w.close();
  });

  it("projects, filters exactly across disk and memory, prunes with full stats and chunks by batch size", async () => {
    const table = await makeTable({ "realtime.store.stats-mode": "full", "read.batch-size": 4 }, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch(range(0, 10), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s);
    await w.write(rtBatch(range(10, 20), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
    await w.write(rtBatch(range(20, 30), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
    await w.write(rtBatch(range(0, 10), { dt: "b", ids: range(1000, 1010) }), { partition: { dt: "b" }, bucket: 1 });
    const rows = await readRows(table, { ctx, projection: ["name", "id"], filter: and(col("id").ge(5), col("id").lt(25)), predicateFilter: true });
    expect(rows.map((r) => Object.keys(r))).toContainEqual(["name", "id"]);
    expect(rows.map((r) => r.id).sort((a, b) => (a as number) - (b as number))).toEqual(range(5, 25));
    expect(rows.find((r) => r.id === 12)).toEqual({ name: "n12", id: 12 });
    // partition filters and bucket filters apply to memory too
    expect(await readIds(table, { ctx, filter: col("dt").eq("b") })).toEqual(range(1000, 1010));
    expect(await readIds(table, { ctx, partitions: [{ dt: "a" }] })).toEqual(range(0, 30));
    expect(await readIds(table, { ctx, buckets: [1] })).toEqual(range(1000, 1010));
    // batch size
    const plan = await table.newScan({ realtime: ctx }).plan();
    const reader = await table.newRead({ realtime: ctx }).createReader(plan.splits);
    const sizes: number[] = [];
    for await (const b of reader) sizes.push(b.numRows);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
    // statistics pruning (store level): only the batch holding ids 20..29 may match id >= 25
    const entry = (ctx as unknown as { allEntries(): Array<{ bucket: number; store: ArrowRealtimeStore }> }).allEntries().find((e) => e.bucket === 0)!;
    const view = entry.store.acquireReadView();
    const pruned: number[] = [];
    for await (const b of entry.store.createQueryReader(view, { offsetBegin: 0n, predicate: col("id").ge(25), readBatchSize: 100 })) pruned.push(b.numRows);
    await view.release();
    expect(pruned).toEqual([10]);
    await w.prepareCommitWithProgress(2).then((p) => table.newCommit({ commitUser: "u" }).commitWithProgress(p, 2));
    await w.close();
  });

  it("supports a custom RealtimeStoreFactory through the SPI", async () => {
    const calls: string[] = [];
    const factory = {
      create(request: ConstructorParameters<typeof ArrowRealtimeStore>[0]) {
        calls.push(`create ${request.mode} ${request.writeSchema.fields.map((f) => f.name).join(",")}`);
        const inner = new ArrowRealtimeStore(request);
        return {
          write: async (b: Parameters<ArrowRealtimeStore["write"]>[0]) => {
            calls.push(`write ${b.offsetRange.begin}-${b.offsetRange.end}`);
            await new Promise((r) => setTimeout(r, 1));
            inner.write(b);
          },
          freeze: () => inner.freeze(),
          createCommitReader: (s: never) => inner.createCommitReader(s),
          acquireReadView: () => inner.acquireReadView(),
          // an asynchronous reader (the Arrow store's own is synchronous in memory)
          createQueryReader: async function* (v: never, c: never) {
            yield* inner.createQueryReader(v, c);
          },
          advanceCommittedOffset: (e: bigint) => {
            calls.push(`advance ${e}`);
            return inner.advanceCommittedOffset(e);
          },
          getDataUsage: () => inner.getDataUsage(),
          close: () => inner.close(),
        };
      },
    };
    const table = await makeTable();
    const ctx = await RealtimeContext.create(factory as never);
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await Promise.all([w.write(rtBatch([0, 1]), { bucket: 0 }), w.write(rtBatch([2]), { bucket: 0 })]);
    expect(await readIds(table, { ctx })).toEqual([0, 1, 2]);
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s);
    await w.close();
    expect(calls).toEqual(["create APPEND_ONLY _REALTIME_OFFSET,id,name,v,dt", "write 0-2", "write 2-3", "advance 3"]);
  });

  it("coalesces runs of tiny writes; views, reads, stats pruning, prepare and metrics stay exact", async () => {
    const table = await makeTable({ "realtime.store.stats-mode": "full", "read.batch-size": 7 });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const entry = (ctx as unknown as { allEntries(): Array<{ bucket: number; store: ArrowRealtimeStore }> }).allEntries;
    // 31 writes of 3 rows: no coalescing yet; pin a view over them
    for (let k = 0; k < 31; k++) await w.write(rtBatch([3 * k, 3 * k + 1, 3 * k + 2]), { bucket: 0 });
    const before = await table.newScan({ realtime: ctx }).plan();
    const store = entry.call(ctx).find((e) => e.bucket === 0)!.store;
    const storedBatches = () => {
      const v = store.acquireReadView();
      const n = (store.createQueryReader(v, { offsetBegin: 0n, predicate: null, readBatchSize: 1 }) as arrow.RecordBatch[]).length;
      void v.release();
      return n;
    };
    expect(storedBatches()).toBe(31);
    // every 32nd small batch merges the run (the merged batch, still small, heads the next run)
    for (let k = 31; k < 100; k++) await w.write(rtBatch([3 * k, 3 * k + 1, 3 * k + 2], { names: [`a${k}`, null, `c${k}`] }), { bucket: 0 });
    expect(storedBatches()).toBe(1 + 6); // [0,282) merged three times + 6 single writes
    const all = await readRows(table, { ctx });
    expect(all.map((r) => r.id)).toEqual(range(0, 300));
    expect(all.filter((r) => r.name === null).map((r) => r.id)).toEqual(range(31, 100).map((k) => 3 * k + 1));
    expect(all[93 + 1]).toEqual({ id: 94, name: null, v: 47, dt: "d1" });
    // the view pinned before coalescing reads exactly its 93 rows, in chunks of at most 7
    const reader = await table.newRead({ realtime: ctx }).createReader(before.splits);
    const sizes: number[] = [];
    const ids: number[] = [];
    for await (const b of reader) {
      sizes.push(b.numRows);
      for (const id of b.data.children[0].values as BigInt64Array) ids.push(Number(id));
    }
    expect(ids).toEqual(range(0, 93));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
    // coalesced batches carry their own statistics: id >= 290 keeps only the newest batch
    const v = store.acquireReadView();
    const kept = store.createQueryReader(v, { offsetBegin: 0n, predicate: col("id").ge(290), readBatchSize: 1 }) as arrow.RecordBatch[];
    await v.release();
    expect(kept.map((b) => Number((b.data.children[0].values as BigInt64Array)[0]))).toEqual([288, 291, 294, 297]);
    // metrics count the coalesced batches' bytes, exactly
    const m = ctx.getMetrics();
    expect(m.realtimeBuildingRowCount).toBe(300);
    const view = store.acquireReadView();
    const stored = store.createQueryReader(view, { offsetBegin: 0n, predicate: null, readBatchSize: 1 }) as arrow.RecordBatch[];
    await view.release();
    const arrowBytes = stored.reduce((n, b) => n + b.data.children.reduce((k, c) => k + c.byteLength, 0), 0);
    expect(m.realtimeBuildingMemoryBytes).toBeGreaterThan(arrowBytes); // + statistics
    expect(m.realtimeBuildingMemoryBytes - arrowBytes).toBeLessThan(4096);
    // prepare + commit write every row once
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s);
    expect(await readIds(table)).toEqual(range(0, 300));
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    await w.close();
  });
});

describe("offset windows of stored batches", () => {
  it("memory rows at offsets across 2^32 and near INT64_MAX are read exactly, before and after a commit below them", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const edge = 2n ** 32n;
    // ids are the offsets mod 10^6: 967294, 967295, 967296, 967297 | 627776, 387904
    await w.write(offsetsBatch(BigInt64Array.from([edge - 2n, edge - 1n, edge, edge + 1n])), { bucket: 0 });
    await w.write(offsetsBatch(BigInt64Array.from([2n ** 40n, 2n ** 62n])), { bucket: 0 });
    const all = [387904, 627776, 967294, 967295, 967296, 967297];
    expect(await readIds(table, { ctx })).toEqual(all);
    expect(await readIds(table, { ctx, filter: col("id").eq(967296n), predicateFilter: true })).toEqual([967296]);
    const commit = table.newCommit({ commitUser: "u" });
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    await w.write(offsetsBatch(BigInt64Array.from([2n ** 62n + 1n, 2n ** 62n + 2n ** 32n])), { bucket: 0 });
    // 2^62 + 1 → 387905, 2^62 + 2^32 → 355200: disk rows once, memory rows once
    expect(await readIds(table, { ctx })).toEqual([355200, 387904, 387905, 627776, 967294, 967295, 967296, 967297]);
    expect(await readIds(table, { ctx, filter: col("id").eq(355200n), predicateFilter: true })).toEqual([355200]);
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2));
    expect(await readIds(table, { ctx })).toEqual([355200, 387904, 387905, 627776, 967294, 967295, 967296, 967297]);
    await w.close();
    await ctx.close();
  });
});
