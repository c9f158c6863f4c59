// Real-time primary-key tables (seed 000 "PK MOR" / "PK DV"): upserts and deletes visible
// before commit, merged by key with committed files, committed as ordinary PK files.
import { afterAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import type * as arrow from "apache-arrow";
import type { RealtimeReadView, RealtimeSegmentHandle, RealtimeStore, RealtimeStoreCreateRequest, RealtimeWriteBatch } from "../../src/realtime/store.js";
import type { OffsetRange } from "../../src/realtime/types.js";
import { dataBytes } from "../../src/realtime/arrow-store.js";
import { ArrowRealtimeStore, col, RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, commitRealtime as commit, compactFully, expectCode, makeTable, readRows, rtBatch, tempDir, PK_MODES as MODES, pkTable, pkView as view } from "./helpers.js";

afterAll(cleanupDirs);

const spillFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("paimon-rt-spill-"));

describe.each(MODES)("real-time $name", ({ options }) => {
  const dv = "deletion-vectors.enabled" in options;
  it("upserts and deletes are visible before prepare, merged by key (highest sequence wins, deletes dropped)", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    // same key twice in one batch, out of key order
    await w.write(rtBatch([0, 1, 2, 3], { ids: [3, 1, 3, 2], names: ["a", "b", "c", "d"] }), { bucket: 0 });
    expect(await view(table, ctx)).toEqual([
      [1, "b"],
      [2, "d"],
      [3, "c"],
    ]);
    // delete then insert of the same key within one batch; delete of another key
    await w.write(rtBatch([5, 6, 7], { ids: [1, 1, 2], names: ["x", "y", "z"] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.INSERT, RowKind.DELETE] });
    expect(await view(table, ctx)).toEqual([
      [1, "y"],
      [3, "c"],
    ]);
    // across segments: seal, then delete key 3 in the new building segment
    await w.seal();
    await w.write(rtBatch([9], { ids: [3], names: [null] }), { bucket: 0, rowKinds: [RowKind.DELETE] });
    expect(await view(table, ctx)).toEqual([[1, "y"]]);
    expect(ctx.getMetrics()).toMatchObject({ realtimeSealedRowCount: 7, realtimeBuildingRowCount: 1, realtimeTotalRowCount: 8 });
    // without the context: nothing committed
    expect(await view(table)).toEqual([]);
    const snap = await commit(table, w, 1);
    expect(await view(table, ctx)).toEqual([[1, "y"]]);
    await w.refreshCommittedSnapshot(snap);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    expect(await view(table, ctx)).toEqual([[1, "y"]]);
    await w.close();
    await ctx.close();
  });

  it("merges committed disk files, sealed and building memory; disk-only readers see committed data", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2], { ids: [1, 2, 3], names: ["a1", "b1", "c1"] }), { bucket: 0 });
    const s1 = await commit(table, w, 1);
    await w.refreshCommittedSnapshot(s1);
    await w.write(rtBatch([3, 4], { ids: [2, 4], names: ["b2", "d2"] }), { bucket: 0 });
    const s2 = await commit(table, w, 2); // second disk file, not refreshed
    await w.write(rtBatch([5], { ids: [1], names: ["a3"] }), { bucket: 0 });
    await w.seal();
    await w.write(rtBatch([6, 7], { ids: [3, 4], names: [null, "d4"] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.UPDATE_AFTER] });
    expect(await view(table, ctx)).toEqual([
      [1, "a3"],
      [2, "b2"],
      [4, "d4"],
    ]);
    // ordinary readers: MOR merges the level-0 files; DV batch scans skip level 0 until compaction
    expect(await view(table)).toEqual(
      dv
        ? []
        : [
            [1, "a1"],
            [2, "b2"],
            [3, "c1"],
            [4, "d2"],
          ],
    );
    await w.refreshCommittedSnapshot(s2);
    const s3 = await commit(table, w, 3);
    await w.refreshCommittedSnapshot(s3);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    expect(await view(table, ctx)).toEqual([
      [1, "a3"],
      [2, "b2"],
      [4, "d4"],
    ]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 8n }]);
    await w.close();
    await ctx.close();
  });
});

describe.each(MODES)("real-time $name reads", ({ options }) => {
  it("pushes only key predicates below the merge: an older matching version never shows through", async () => {
    const table = await pkTable({ ...options, "realtime.store.stats-mode": "full" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1], { ids: [1, 2], names: ["old", "keep"] }), { bucket: 0 });
    const s1 = await commit(table, w, 1);
    await w.refreshCommittedSnapshot(s1);
    await w.write(rtBatch([2], { ids: [3], names: ["old"] }), { bucket: 0 });
    // newer versions in a separate stored batch whose statistics do not match name = 'old'
    await w.write(rtBatch([3, 4], { ids: [1, 3], names: ["new", "new"] }), { bucket: 0 });
    const byName = col("name").eq("old");
    expect(await view(table, ctx, { filter: byName, predicateFilter: true })).toEqual([]);
    const byKey = col("id").eq(3n);
    expect(await view(table, ctx, { filter: byKey, predicateFilter: true })).toEqual([[3, "new"]]);
    // key predicate without residual filtering still prunes only conservatively: key 1 and 2 may come back, but never an old version
    const rows = await view(table, ctx, { filter: byKey });
    expect(rows.filter(([id]) => id === 3)).toEqual([[3, "new"]]);
    for (const [id, name] of rows) expect(name).toBe(id === 2 ? "keep" : "new");
    await w.prepareCommitWithProgress(2);
    await w.close();
  });

  it("projects without key columns, honours read.batch-size, and returns row kinds on request", async () => {
    const table = await pkTable({ ...options, "read.batch-size": 2 });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2, 3, 4], { ids: [5, 4, 3, 2, 1] }), { bucket: 0 });
    await commit(table, w, 1);
    await w.write(rtBatch([5, 6], { ids: [2, 9], names: ["two", "nine"] }), { bucket: 0 });
    expect((await readRows(table, { ctx, projection: ["name"] })).map((r) => r.name)).toEqual(["n1", "two", "n3", "n4", "n5", "nine"]);
    const plan = await table.newScan({ realtime: ctx }).plan();
    const reader = await table.newRead({ realtime: ctx, projection: ["v"] }).createReader(plan.splits);
    const sizes: number[] = [];
    for await (const b of reader) sizes.push(b.numRows);
    await reader.close();
    expect(sizes).toEqual([2, 2, 2]);
    const plan2 = await table.newScan({ realtime: ctx }).plan();
    const kinds = await table.newRead({ realtime: ctx, withRowKind: true, projection: ["id"] }).toArrow(plan2.splits);
    expect(kinds.toArray().map((r) => [Number(r._VALUE_KIND), Number(r.id)])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [0, 4],
      [0, 5],
      [0, 9],
    ]);
    await w.prepareCommitWithProgress(2);
    await w.close();
  });

  it("read views pin the merged view across later writes, seals, commits, refreshes and compaction", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1], { ids: [1, 2], names: ["a", "b"] }), { bucket: 0 });
    const plan = await table.newScan({ realtime: ctx }).plan();
    await w.write(rtBatch([2, 3], { ids: [1, 3], names: ["a2", "c"] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.INSERT] });
    await w.seal();
    const s1 = await commit(table, w, 1);
    await w.refreshCommittedSnapshot(s1);
    await compactFully(table);
    const t = await table.newRead({ realtime: ctx }).toArrow(plan.splits);
    expect(t.toArray().map((r) => [Number(r.id), r.name])).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
    await expectCode(table.newRead({ realtime: ctx }).toArrow(plan.splits), "TICKET_EXPIRED");
    expect(await view(table, ctx)).toEqual([
      [1, "a2"],
      [2, "b"],
      [3, "c"],
    ]);
    await w.close();
  });
});

describe.each(MODES)("real-time $name lifecycle", ({ options }) => {
  const dv = "deletion-vectors.enabled" in options;

  it("delete-only prepares advance progress; recovery in a new context continues offsets and sequence numbers", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([10, 11], { ids: [1, 2], names: ["a", "b"] }), { bucket: 0 });
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    await w.write(rtBatch([15, 20], { ids: [2, 7] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.DELETE] });
    const progress = await w.prepareCommitWithProgress(2);
    expect(progress.map((p) => p.offsetRange)).toEqual([{ begin: 12n, end: 21n }]);
    const s2 = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 2);
    await w.refreshCommittedSnapshot(s2);
    await w.close();
    await ctx.close();
    expect(await RealtimeSnapshotOffsets.readOffset(table, s2, { partition: {}, bucket: 0 })).toBe(21n);
    // a new context: replay from the committed offset; older offsets are refused
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await expectCode(w2.write(rtBatch([20], { ids: [1] }), { bucket: 0 }), "OFFSET_INVALID");
    await w2.write(rtBatch([21, 22], { ids: [1, 2], names: ["a-new", "b-back"] }), { bucket: 0 });
    expect(await view(table, ctx2)).toEqual([
      [1, "a-new"],
      [2, "b-back"],
    ]);
    await w2.refreshCommittedSnapshot(await commit(table, w2, 3));
    if (dv) await compactFully(table);
    expect(await view(table)).toEqual([
      [1, "a-new"],
      [2, "b-back"],
    ]);
    await w2.close();
  });

  it("writer hand-off within a context keeps the uncommitted tail and sequence numbers", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w1 = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w1.write(rtBatch([0], { ids: [1], names: ["a"] }), { bucket: 0 });
    await w1.seal();
    // closing with data not covered by a prepare invalidates the context
    await expectCode(w1.close(), "CONTEXT_INVALIDATED");
    await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "CONTEXT_INVALIDATED");
    const ctx2 = await RealtimeContext.create();
    const a = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await a.write(rtBatch([0], { ids: [1], names: ["a"] }), { bucket: 0 });
    const pa = await a.prepareCommitWithProgress(1);
    await a.close();
    const b = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await b.write(rtBatch([1], { ids: [1], names: ["b"] }), { bucket: 0 });
    expect(await view(table, ctx2)).toEqual([[1, "b"]]);
    const pb = await b.prepareCommitWithProgress(2);
    const snap = await table.newCommit({ commitUser: "u" }).commitWithProgress([...pa, ...pb], 2);
    await b.refreshCommittedSnapshot(snap);
    expect(await view(table, ctx2)).toEqual([[1, "b"]]);
    if (dv) await compactFully(table);
    expect(await view(table)).toEqual([[1, "b"]]);
    await b.close();
  });

  it("composite keys on a partitioned table: partition-buckets are isolated and recovered separately", async () => {
    const table = await makeTable({ bucket: 2, ...options }, { primaryKeys: ["dt", "id"], partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1], { ids: [1, 2], dt: "a", names: ["a1", "a2"] }), { partition: { dt: "a" }, bucket: 0 });
    await w.write(rtBatch([0, 1], { ids: [1, 2], dt: "b", names: ["b1", "b2"] }), { partition: { dt: "b" }, bucket: 1 });
    await w.write(rtBatch([2], { ids: [1], dt: "a" }), { partition: { dt: "a" }, bucket: 0, rowKinds: [RowKind.DELETE] });
    const rows = (await readRows(table, { ctx })).map((r) => [r.dt, r.id, r.name]).sort();
    expect(rows).toEqual([
      ["a", 2, "a2"],
      ["b", 1, "b1"],
      ["b", 2, "b2"],
    ]);
    const snap = await commit(table, w, 1);
    await w.refreshCommittedSnapshot(snap);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 3n },
      { partition: { dt: "b" }, bucket: 1, offset: 2n },
    ]);
    await w.write(rtBatch([3], { ids: [1], dt: "a", names: ["a1-again"] }), { partition: { dt: "a" }, bucket: 0 });
    expect((await readRows(table, { ctx, partitions: [{ dt: "a" }] })).map((r) => [r.id, r.name]).sort()).toEqual([
      [1, "a1-again"],
      [2, "a2"],
    ]);
    await w.prepareCommitWithProgress(2);
    await w.close();
  });

  it("an ordinary writer compacts while the real-time writer writes; prepared data commits after the compaction (conflict retry), refresh continues", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2], { ids: [1, 2, 3], names: ["a", "b", "c"] }), { bucket: 0 });
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    await w.write(rtBatch([3], { ids: [2] }), { bucket: 0, rowKinds: [RowKind.DELETE] });
    await w.refreshCommittedSnapshot(await commit(table, w, 2));
    await w.write(rtBatch([4], { ids: [3], names: ["c2"] }), { bucket: 0 });
    const progress = await w.prepareCommitWithProgress(3);
    const compacted = await compactFully(table);
    await w.write(rtBatch([5], { ids: [4], names: ["d"] }), { bucket: 0 });
    const expected: Array<[number, unknown]> = [
      [1, "a"],
      [3, "c2"],
      [4, "d"],
    ];
    expect(await view(table, ctx)).toEqual(expected);
    const s3 = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 3);
    expect(s3).toBe(compacted + 1);
    await w.refreshCommittedSnapshot(s3);
    expect(await view(table, ctx)).toEqual(expected);
    await w.refreshCommittedSnapshot(await commit(table, w, 4));
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    await compactFully(table);
    expect(await view(table)).toEqual(expected);
    expect(await view(table, ctx)).toEqual(expected);
    await w.close();
  });
});

describe.each(MODES)("real-time $name split grouping", ({ options }) => {
  it("groups every disk split of a partition-bucket with its memory view; the writer refuses explicit compaction", async () => {
    // tiny splits: each non-overlapping committed file would be a split of its own
    const table = await pkTable({ ...options, "source.split.target-size": "1 b", "source.split.open-file-cost": "1 b" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    for (let r = 0; r < 3; r++) {
      await w.write(rtBatch([r * 2, r * 2 + 1], { ids: [r * 10, r * 10 + 1], names: [`x${r}`, `y${r}`] }), { bucket: 0 });
      await w.refreshCommittedSnapshot(await commit(table, w, r + 1));
    }
    // no memory: three level-0 files with disjoint keys, three splits (level 0 kept in DV mode too)
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    const disk = await table.newScan({ realtime: ctx }).plan();
    expect(disk.splits.map((s) => s.files.length)).toEqual([1, 1, 1]);
    // memory updates keys of the first and the last file, and deletes one of the middle one
    await w.write(rtBatch([6, 7, 8], { ids: [0, 21, 11], names: ["x0'", "y2'", null] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.UPDATE_AFTER, RowKind.DELETE] });
    const plan = await table.newScan({ realtime: ctx }).plan();
    expect(plan.splits.map((s) => s.files.length)).toEqual([3]);
    expect(await view(table, ctx)).toEqual([
      [0, "x0'"],
      [1, "y0"],
      [10, "x1"],
      [20, "x2"],
      [21, "y2'"],
    ]);
    await expectCode(w.compact(), "UNSUPPORTED");
    await w.prepareCommitWithProgress(9);
    await w.close();
  });
});

describe("real-time PK DV level-aware pushdown", () => {
  it("prunes level > 0 files by the full predicate, level 0 and memory only by key predicates", async () => {
    const table = await pkTable({ "deletion-vectors.enabled": true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1], { ids: [1, 2], names: ["a", "b"] }), { bucket: 0 });
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    await compactFully(table); // ids 1, 2 at the highest level
    await w.write(rtBatch([2], { ids: [3], names: ["c"] }), { bucket: 0 });
    await w.refreshCommittedSnapshot(await commit(table, w, 2)); // id 3 at level 0
    await w.write(rtBatch([3], { ids: [2], names: ["z"] }), { bucket: 0 }); // memory
    const filter = col("name").eq("z");
    const plan = await table.newScan({ realtime: ctx, filter }).plan();
    expect(plan.splits).toHaveLength(1);
    // the compacted file (names a, b) cannot hold name = 'z': pruned; the level-0 file (name c) stays
    expect(plan.splits[0].files.map((f) => f.level)).toEqual([0]);
    const rows = await table.newRead({ realtime: ctx, filter, predicateFilter: true }).toArrow(plan.splits);
    expect(rows.toArray().map((r) => [Number(r.id), r.name])).toEqual([[2, "z"]]);
    // without the value predicate both files are merged
    const all = await table.newScan({ realtime: ctx }).plan();
    expect(all.splits[0].files.map((f) => f.level).sort()).toEqual([0, 5]);
    expect(await view(table, ctx)).toEqual([
      [1, "a"],
      [2, "z"],
      [3, "c"],
    ]);
    await w.prepareCommitWithProgress(3);
    await w.close();
  });
});

describe.each(MODES)("real-time $name spill", ({ options }) => {
  it("spills sorted runs on seal, reads and prepares from them, deletes the files once released", async () => {
    const table = await pkTable({ ...options, "realtime.spill-enabled": true });
    const tmp = tempDir("paimon-rt-spill-");
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    await w.write(rtBatch([0, 1, 2], { ids: [3, 1, 2], names: ["c", "a", "b"] }), { bucket: 0 });
    await w.write(rtBatch([3], { ids: [1], names: ["a2"] }), { bucket: 0 });
    await w.seal();
    expect(spillFiles(tmp)).toHaveLength(1);
    await w.write(rtBatch([4], { ids: [3] }), { bucket: 0, rowKinds: [RowKind.DELETE] });
    expect(await view(table, ctx)).toEqual([
      [1, "a2"],
      [2, "b"],
    ]);
    const plan = await table.newScan({ realtime: ctx }).plan();
    const s = await commit(table, w, 1);
    await w.refreshCommittedSnapshot(s);
    expect(spillFiles(tmp)).toHaveLength(1); // the plan's ticket still pins the spilled view
    expect((await table.newRead({ realtime: ctx }).toArrow(plan.splits)).toArray().map((r) => [Number(r.id), r.name])).toEqual([
      [1, "a2"],
      [2, "b"],
    ]);
    expect(spillFiles(tmp)).toHaveLength(0);
    expect(await view(table, ctx)).toEqual([
      [1, "a2"],
      [2, "b"],
    ]);
    await w.close();
  });
});

/** Offsets, ids, sequence numbers and row kinds of a stored PK batch, column by column. */
const columns = (b: arrow.RecordBatch) => ["_REALTIME_OFFSET", "id", "_SEQUENCE_NUMBER", "_VALUE_KIND"].map((c) => Array.from(b.getChild(c)!.toArray() as ArrayLike<unknown>, (v) => Number(v)));

/** A minimal store of the SPI written from scratch (no spill, no statistics): lists of batches. */
class ListStore implements RealtimeStore {
  protected building: arrow.RecordBatch[] = [];
  private buildingRange: OffsetRange | null = null;
  private sealed: Array<{ batches: arrow.RecordBatch[]; offsetRange: OffsetRange; rowCount: number }> = [];
  constructor(readonly received: arrow.RecordBatch[]) {}
  write(b: RealtimeWriteBatch): void {
    this.received.push(b.batch);
    this.building = [...this.building, b.batch];
    this.buildingRange = { begin: this.buildingRange?.begin ?? b.offsetRange.begin, end: b.offsetRange.end };
  }
  freeze() {
    if (this.building.length === 0) return null;
    const seg = { batches: this.building, offsetRange: this.buildingRange!, rowCount: this.building.reduce((n, b) => n + b.numRows, 0) };
    this.sealed = [...this.sealed, seg];
    this.building = [];
    this.buildingRange = null;
    return seg;
  }
  async *createCommitReader(seg: RealtimeSegmentHandle) {
    yield* (seg as (typeof this.sealed)[number]).batches;
  }
  acquireReadView() {
    const batches = [...this.sealed.flatMap((s) => s.batches), ...this.building];
    const ranges = [...this.sealed.map((s) => s.offsetRange), ...(this.buildingRange ? [this.buildingRange] : [])];
    return { batches, offsetRange: ranges.length === 0 ? null : { begin: ranges[0].begin, end: ranges[ranges.length - 1].end }, release: () => undefined };
  }
  createQueryReader(view: RealtimeReadView) {
    return (view as RealtimeReadView & { batches: arrow.RecordBatch[] }).batches;
  }
  advanceCommittedOffset(end: bigint) {
    this.sealed = this.sealed.filter((s) => s.offsetRange.end > end);
  }
  getDataUsage() {
    const rows = (bs: arrow.RecordBatch[]) => bs.reduce((n, b) => n + b.numRows, 0);
    return { buildingMemoryBytes: 0, sealedMemoryBytes: 0, buildingRowCount: rows(this.building), sealedRowCount: rows(this.sealed.flatMap((s) => s.batches)) };
  }
  close() {
    this.sealed = [];
    this.building = [];
  }
}

describe("real-time PK store SPI", () => {
  it("hands a custom store key-sorted batches with sequence numbers and row kinds, and merges what it returns", async () => {
    const table = await pkTable();
    const requests: RealtimeStoreCreateRequest[] = [];
    const received: arrow.RecordBatch[] = [];
    const ctx = await RealtimeContext.create({
      create(request: RealtimeStoreCreateRequest) {
        requests.push(request);
        return new ListStore(received);
      },
    });
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2], { ids: [5, 3, 5], names: ["a", "b", "c"] }), { bucket: 0 });
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    await w.write(rtBatch([3, 4], { ids: [3, 1], names: [null, "d"] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.UPDATE_AFTER] });
    expect(requests.map((r) => [r.mode, r.writeSchema.fields.map((f) => f.name).join(","), r.keyColumnIndexes])).toEqual([["PRIMARY_KEY", "_REALTIME_OFFSET,id,name,v,dt,_SEQUENCE_NUMBER,_VALUE_KIND", [1]]]);
    expect(received.map(columns)).toEqual([
      // sorted by key, then sequence; the first sequence number of an empty bucket is 0
      [
        [1, 0, 2],
        [3, 5, 5],
        [1, 0, 2],
        [0, 0, 0],
      ],
      // sequence numbers continue after the committed maximum (2)
      [
        [4, 3],
        [1, 3],
        [4, 3],
        [2, 3],
      ],
    ]);
    expect(await view(table, ctx)).toEqual([
      [1, "d"],
      [5, "c"],
    ]);
    await w.refreshCommittedSnapshot(await commit(table, w, 2));
    expect(await view(table)).toEqual([
      [1, "d"],
      [5, "c"],
    ]);
    await w.close();
  });
});

/** A ListStore that sorts on demand: it takes batches in input order and sorts each the first time it hands it out. */
class SortingListStore extends ListStore {
  readonly sortsPrimaryKeyBatches = true;
  readonly sorts: number[] = [];
  private readonly sortedOf = new Map<arrow.RecordBatch, arrow.RecordBatch>();
  constructor(
    received: arrow.RecordBatch[],
    private readonly request: RealtimeStoreCreateRequest,
  ) {
    super(received);
  }
  private sorted(b: arrow.RecordBatch): arrow.RecordBatch {
    let s = this.sortedOf.get(b);
    if (s === undefined) {
      this.sorts.push(b.numRows);
      this.sortedOf.set(b, (s = this.request.sortPrimaryKeyBatch(b)));
    }
    return s;
  }
  override async *createCommitReader(seg: RealtimeSegmentHandle) {
    for await (const b of super.createCommitReader(seg)) yield this.sorted(b);
  }
  override createQueryReader(view: RealtimeReadView) {
    return super.createQueryReader(view).map((b) => this.sorted(b));
  }
}

describe("real-time PK deferred sort", () => {
  it("a store that sorts on demand receives numbered batches in input order and sorts them with request.sortPrimaryKeyBatch", async () => {
    const table = await pkTable();
    const received: arrow.RecordBatch[] = [];
    let store: SortingListStore | null = null;
    const ctx = await RealtimeContext.create({ create: (request: RealtimeStoreCreateRequest) => (store = new SortingListStore(received, request)) });
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2], { ids: [5, 3, 5], names: ["a", "b", "c"] }), { bucket: 0, rowKinds: [RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER] });
    await w.write(rtBatch([4, 6], { ids: [3, 1], names: [null, "d"] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.INSERT] });
    expect(received.map(columns)).toEqual([
      [
        [0, 1, 2],
        [5, 3, 5],
        [0, 1, 2],
        [0, 0, 2],
      ],
      [
        [4, 6],
        [3, 1],
        [3, 4],
        [3, 0],
      ],
    ]);
    expect(store!.sorts).toEqual([]); // nothing sorted by writing
    expect(await view(table, ctx)).toEqual([
      [1, "d"],
      [5, "c"],
    ]);
    expect(await view(table, ctx)).toEqual([
      [1, "d"],
      [5, "c"],
    ]);
    expect(store!.sorts).toEqual([3, 2]); // once per batch
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    expect(store!.sorts).toEqual([3, 2]);
    expect(await view(table)).toEqual([
      [1, "d"],
      [5, "c"],
    ]);
    await w.close();
  });

  it("sortPrimaryKeyBatch sorts any row order by key then sequence and returns a sorted batch itself", async () => {
    const table = await pkTable();
    let request: RealtimeStoreCreateRequest | null = null;
    const ctx = await RealtimeContext.create({ create: (r: RealtimeStoreCreateRequest) => ((request = r), new ListStore([])) });
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([10, 11, 12, 13], { ids: [4, 2, 4, 2] }), { bucket: 0 });
    const sorted = (ctx as unknown as { allEntries(): Array<{ store: ListStore }> }).allEntries()[0]!.store.received[0]!;
    expect(columns(sorted)).toEqual([
      [11, 13, 10, 12],
      [2, 2, 4, 4],
      [1, 3, 0, 2],
      [0, 0, 0, 0],
    ]);
    expect(request!.sortPrimaryKeyBatch(sorted)).toBe(sorted);
    // rows out of input order (two sorted batches concatenated, reversed): sequence numbers decide ties
    const reversed = (await import("../../src/arrow/take.js")).takeRows(sorted, Uint32Array.from([3, 2, 1, 0]));
    expect(columns(request!.sortPrimaryKeyBatch(reversed))).toEqual(columns(sorted));
    await w.prepareCommitWithProgress(1);
    await w.close();
  });

  it.each([false, true])("the Arrow store sorts a batch once, when first read, sealed with spill or prepared; views pinned earlier see exactly their rows; metrics stay exact (spill %s)", async (spill) => {
    const tmp = tempDir();
    const table = await pkTable(spill ? { "realtime.spill-enabled": true } : {});
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    const store = () => (ctx as unknown as { allEntries(): Array<{ store: ArrowRealtimeStore }> }).allEntries()[0]!.store;
    const stored = () => {
      const v = store().acquireReadView();
      const out = store().createQueryReader(v, { offsetBegin: 0n, predicate: null, readBatchSize: 1 }) as arrow.RecordBatch[];
      void v.release();
      return out;
    };
    await w.write(rtBatch([0, 1, 2], { ids: [3, 1, 2], names: ["c", "a", "b"] }), { bucket: 0 });
    const before = ctx.getMetrics();
    const plan1 = await table.newScan({ realtime: ctx }).plan(); // pins the unsorted batch
    await w.write(rtBatch([3, 4], { ids: [2, 0], names: ["b2", "z"] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.INSERT] });
    const plan2 = await table.newScan({ realtime: ctx }).plan();
    const unsorted = ctx.getMetrics();
    const first = stored();
    expect(first.map(columns)).toEqual([
      [
        [1, 2, 0],
        [1, 2, 3],
        [1, 2, 0],
        [0, 0, 0],
      ],
      [
        [4, 3],
        [0, 2],
        [4, 3],
        [0, 2],
      ],
    ]);
    expect(stored()[0]).toBe(first[0]); // sorted once: the same batch objects afterwards
    expect(stored()[1]).toBe(first[1]);
    // the gauges count what the store holds: the caller's buffers (with the numbering) until the
    // sort, the sorted copies (exact-size buffers) after it
    expect(unsorted.realtimeBuildingMemoryBytes).toBeGreaterThan(before.realtimeBuildingMemoryBytes);
    expect(ctx.getMetrics()).toEqual({ ...unsorted, realtimeBuildingMemoryBytes: dataBytes(first[0]!.data) + dataBytes(first[1]!.data), realtimeTotalMemoryBytes: dataBytes(first[0]!.data) + dataBytes(first[1]!.data) });
    expect(unsorted.realtimeBuildingRowCount).toBe(5);
    await w.write(rtBatch([5], { ids: [1], names: [null] }), { bucket: 0, rowKinds: [RowKind.DELETE] });
    const read = async (plan: typeof plan1) => (await table.newRead({ realtime: ctx }).toArrow(plan.splits)).toArray().map((r) => [Number(r.id), r.name]);
    expect(await read(plan1)).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    expect(await read(plan2)).toEqual([
      [0, "z"],
      [1, "a"],
      [2, "b2"],
      [3, "c"],
    ]);
    // the third batch is sorted by the seal's spill (or by the prepare)
    await w.seal();
    if (spill) expect(spillFiles(tmp)).toHaveLength(1);
    expect(await view(table, ctx)).toEqual([
      [0, "z"],
      [2, "b2"],
      [3, "c"],
    ]);
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    expect(await view(table)).toEqual([
      [0, "z"],
      [2, "b2"],
      [3, "c"],
    ]);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    await w.close();
  });
});

describe("real-time primary-key validation", () => {
  it.each([
    [{ "merge-engine": "partial-update" }, "merge-engine"],
    [{ "merge-engine": "first-row" }, "merge-engine"],
    [{ "changelog-producer": "input" }, "changelog-producer"],
    [{ "sequence.field": "v" }, "sequence.field"],
    [{ "ignore-delete": true }, "ignore-delete"],
    [{ "deduplicate.ignore-delete": true }, "deduplicate.ignore-delete"],
    [{ "force-lookup": true }, "force-lookup"],
    // (data-evolution.enabled: a primary-key table cannot have it, INVALID_ARGUMENT at createTable as Java's SchemaValidation)
    [{ bucket: -1 }, "bucket"],
    [{ bucket: -2 }, "bucket"], // bucket 0 cannot be created (INVALID_ARGUMENT at createTable)
    [{ "sequence.field.sort-order": "descending" }, "sequence.field.sort-order"],
    [{ "partial-update.remove-record-on-delete": true }, "partial-update.remove-record-on-delete"],
    [{ "changelog-producer": "lookup" }, "changelog-producer"],
    [{ "changelog-producer": "full-compaction" }, "changelog-producer"],
  ])("refuses %o with UNSUPPORTED naming the option at writer and scan creation", async (options, option) => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const e1 = await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "UNSUPPORTED");
    expect(e1.message).toContain(option);
    const e2 = await expectCode(() => table.newScan({ realtime: ctx }), "UNSUPPORTED");
    expect(e2.message).toContain(option);
  });

  it("refuses floating-point primary keys", async () => {
    const table = await makeTable({ bucket: 1 }, { primaryKeys: ["id", "v"] });
    const ctx = await RealtimeContext.create();
    const e = await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "UNSUPPORTED");
    expect(e.message).toContain("floating-point key column v (DOUBLE)");
  });
});
