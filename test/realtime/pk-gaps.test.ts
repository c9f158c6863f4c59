// Real-time primary-key tables: gaps found by an audit (issue 10) — union reads over committed
// deletion vectors, input and commit validation, and the refused options.
import { afterAll, describe, expect, it } from "vitest";
import * as arrow from "apache-arrow";
import { RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { readdirSync } from "node:fs";
import { cleanupDirs, commitRealtime as commit, compactFully, expectCode, offsetsBatch, range, rtBatch, tempDir, PK_MODES as MODES, pkTable, pkView as view } from "./helpers.js";

afterAll(cleanupDirs);

/** An ordinary writer's (non-full) compaction, committed: DV tables upgrade level 0 by lookup and mark older rows. */
async function compactLevel0(table: Table): Promise<number> {
  const w = await table.newWrite({ commitUser: "compactor" });
  await w.compact({ full: false });
  const snap = await table.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
  await w.close();
  return snap!;
}

describe("real-time PK DV union read over committed deletion vectors", () => {
  it("applies the committed vectors, then merges disk and memory: no superseded or deleted row shows, no live row is lost", async () => {
    const table = await pkTable({ "deletion-vectors.enabled": true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    // enough rows that the lookup compaction below moves the new file up instead of rewriting the bucket
    await w.write(rtBatch(range(0, 200), { ids: range(1, 201) }), { bucket: 0 });
    await w.refreshCommittedSnapshot(await commit(table, w, 1));
    await compactFully(table); // one file at the max level
    const live = range(6, 201).map((i) => [i, `n${i}`]);
    await w.write(rtBatch([200, 201], { ids: [2, 3], names: ["b2", "c2"] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.UPDATE_AFTER] });
    await w.refreshCommittedSnapshot(await commit(table, w, 2));
    const s = await compactLevel0(table);
    await w.refreshCommittedSnapshot(s);
    // the plan's split carries the max-level file's vector (keys 2 and 3); the level-0 file moved up to level 4 unchanged
    const plan = await table.newScan({ realtime: ctx }).plan();
    const disk = plan.splits.flatMap((sp) => (sp.kind === "data" ? sp.files.map((f, i) => [Number(f.level), Number(f.rowCount), Number(sp.deletionFiles?.[i]?.cardinality ?? 0)]) : []));
    expect(disk.sort()).toEqual([
      [4, 2, 0],
      [5, 200, 2],
    ].sort());
    expect(await view(table)).toEqual([
      [1, "n1"],
      [2, "b2"],
      [3, "c2"],
      [4, "n4"],
      [5, "n5"],
      ...live,
    ]);
    // memory: update a row marked nowhere, delete another, update the moved-up keys 2 and 3 (marked in the max-level file)
    await w.write(rtBatch([202, 203, 204, 205], { ids: [4, 5, 3, 2], names: ["d3", null, "c3", "b3"] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_AFTER, RowKind.UPDATE_AFTER] });
    expect(await view(table, ctx)).toEqual([
      [1, "n1"],
      [2, "b3"],
      [3, "c3"],
      [4, "d3"],
      ...live,
    ]);
    await w.seal();
    await w.write(rtBatch([206], { ids: [1], names: [null] }), { bucket: 0, rowKinds: [RowKind.DELETE] });
    expect(await view(table, ctx)).toEqual([
      [2, "b3"],
      [3, "c3"],
      [4, "d3"],
      ...live,
    ]);
    // committed and compacted again: the disk-only view equals the union view
    await w.refreshCommittedSnapshot(await commit(table, w, 3));
    await compactLevel0(table);
    expect(await view(table)).toEqual([
      [2, "b3"],
      [3, "c3"],
      [4, "d3"],
      ...live,
    ]);
    expect(await view(table, ctx)).toEqual(await view(table));
    await w.close();
    await ctx.close();
  });
});

describe.each(MODES)("real-time $name input and commit validation", ({ options }) => {
  it("rejects bad offsets, layouts, row kinds and targets with the append mode's codes; nothing changes", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2], { ids: [1, 2, 3], names: ["a", "b", "c"] }), { bucket: 0 });
    const before = ctx.getMetrics();
    await expectCode(w.write(rtBatch([2, 3]), { bucket: 0 }), "OFFSET_INVALID"); // not beyond the last one
    await expectCode(w.write(rtBatch([1]), { bucket: 0 }), "OFFSET_INVALID"); // backwards
    await expectCode(w.write(rtBatch([5, 4]), { bucket: 0 }), "OFFSET_INVALID"); // not increasing in batch
    await expectCode(w.write(rtBatch([6, 6]), { bucket: 0 }), "OFFSET_INVALID");
    await expectCode(w.write(offsetsBatch(BigInt64Array.from([10n, 11n]), true), { bucket: 0 }), "OFFSET_INVALID"); // null
    await expectCode(w.write(offsetsBatch(BigInt64Array.from([-5n])), { bucket: 0 }), "OFFSET_INVALID"); // negative
    // across batches of one Table: the second is bad -> nothing of the first is kept
    await expectCode(w.write(new arrow.Table([rtBatch([10, 11]), rtBatch([11, 12])]), { bucket: 0 }), "OFFSET_INVALID");
    const b = rtBatch([20], { ids: [9] });
    const [off, id, name, v, dt] = b.data.children;
    await expectCode(w.write(new arrow.RecordBatch({ id, name, v, dt }), { bucket: 0 }), "OFFSET_INVALID"); // missing offset column
    await expectCode(w.write(new arrow.RecordBatch({ _REALTIME_OFFSET: off, name, id, v, dt }), { bucket: 0 }), "INVALID_ARGUMENT"); // misordered
    await expectCode(w.write(new arrow.RecordBatch({ _REALTIME_OFFSET: off, id, name, v }), { bucket: 0 }), "INVALID_ARGUMENT"); // missing column
    const nullId = arrow.vectorFromArray([null], new arrow.Int64()).data[0];
    await expectCode(w.write(new arrow.RecordBatch({ _REALTIME_OFFSET: off, id: nullId, name, v, dt }), { bucket: 0 }), "INVALID_ARGUMENT"); // null key
    // bad row kinds: unknown values, a count that does not match the rows
    await expectCode(w.write(rtBatch([20], { ids: [9] }), { bucket: 0, rowKinds: [4 as RowKind] }), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20], { ids: [9] }), { bucket: 0, rowKinds: [-1 as RowKind] }), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20, 21], { ids: [9, 10] }), { bucket: 0, rowKinds: [RowKind.INSERT] }), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20], { ids: [9] }), {}), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20], { ids: [9] }), { bucket: 1 }), "INVALID_ARGUMENT");
    await expectCode(w.write(rtBatch([20], { ids: [9] }), { bucket: 0, partition: { dt: "x" } }), "INVALID_ARGUMENT");
    expect(ctx.getMetrics()).toEqual(before);
    expect(await view(table, ctx)).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    // still healthy: the next valid offset continues
    await w.write(rtBatch([3], { ids: [2], names: ["b2"] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER] });
    const p = await w.prepareCommitWithProgress(1);
    expect(p.map((x) => [x.bucket, x.offsetRange])).toEqual([[0, { begin: 0n, end: 4n }]]);
    await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
    expect(await view(table, ctx)).toEqual([
      [1, "a"],
      [2, "b2"],
      [3, "c"],
    ]);
    await w.close();
  });

  it("rejects gaps, overlaps, mismatches and other users without a snapshot; retries idempotently", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const c = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch([0, 1, 2, 3], { ids: [1, 2, 3, 1], names: ["a", "b", "c", "a2"] }), { bucket: 0 });
    const p1 = await w.prepareCommitWithProgress(1);
    await w.write(rtBatch([4, 5], { ids: [2, 4], names: [null, "d"] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.INSERT] });
    const p2 = await w.prepareCommitWithProgress(2);
    expect(p1.map((x) => x.offsetRange)).toEqual([{ begin: 0n, end: 4n }]);
    await expectCode(c.commitWithProgress([], 1), "PROGRESS_INVALID");
    await expectCode(c.commitWithProgress([p1[0], { ...p2[0], offsetRange: { begin: 5n, end: 6n } }], 2), "PROGRESS_INVALID"); // gap
    await expectCode(c.commitWithProgress([p1[0], { ...p2[0], offsetRange: { begin: 3n, end: 6n } }], 2), "PROGRESS_INVALID"); // overlap
    await expectCode(c.commitWithProgress([{ ...p1[0], bucket: 1 }], 1), "PROGRESS_INVALID");
    await expectCode(c.commitWithProgress([{ ...p1[0], offsetRange: { begin: 4n, end: 4n } }], 1), "PROGRESS_INVALID");
    expect(await table.latestSnapshot()).toBeNull();
    const s1 = await c.commitWithProgress(p1, 1);
    expect(await c.commitWithProgress(p1, 1)).toBe(s1); // idempotent retry
    expect((await table.listSnapshots()).length).toBe(1);
    await expectCode(table.newCommit({ commitUser: "someone-else" }).commitWithProgress(p1, 1), "PROGRESS_INVALID"); // covered ranges, another user
    await expectCode(c.commitWithProgress([{ ...p2[0], offsetRange: { begin: 5n, end: 6n } }], 2), "PROGRESS_INVALID"); // gap after the committed prefix
    await expectCode(c.commitWithProgress([{ ...p2[0], offsetRange: { begin: 2n, end: 6n } }], 2), "PROGRESS_INVALID"); // overlaps it
    expect((await table.listSnapshots()).length).toBe(1);
    const s2 = await c.commitWithProgress(p2, 2);
    expect(await c.commitWithProgress(p2, 2)).toBe(s2);
    expect(await c.commitWithProgress([...p1, ...p2], 2)).toBe(s2);
    expect((await table.listSnapshots()).length).toBe(2);
    await w.refreshCommittedSnapshot(s2);
    const expected = [
      [1, "a2"],
      [3, "c"],
      [4, "d"],
    ];
    expect(await view(table, ctx)).toEqual(expected);
    await compactFully(table);
    expect(await view(table)).toEqual(expected);
    await w.close();
  });
});

describe.each(MODES)("real-time $name snapshots and pinned views", ({ options }) => {
  it("accepts an explicit snapshot only if it is not behind the context's reclaimed progress", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2], { ids: [1, 2, 3], names: ["a", "b", "c"] }), { bucket: 0 });
    const s1 = await commit(table, w, 1);
    await w.write(rtBatch([3, 4], { ids: [1, 2], names: ["a2", null] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.DELETE] });
    const s2 = await commit(table, w, 2);
    await w.write(rtBatch([5], { ids: [4], names: ["d"] }), { bucket: 0 });
    const expected = [
      [1, "a2"],
      [3, "c"],
      [4, "d"],
    ];
    // not refreshed yet: memory still holds every offset, so snapshot 1 is fine
    expect(await view(table, ctx, { snapshotId: s1 })).toEqual(expected);
    await w.refreshCommittedSnapshot(s2);
    await expectCode(view(table, ctx, { snapshotId: s1 }), "INVALID_ARGUMENT");
    expect(await view(table, ctx, { snapshotId: s2 })).toEqual(expected);
    expect(await view(table, ctx)).toEqual(expected);
    expect(ctx.liveTicketCount).toBe(0);
    // a disk-only historical read without the context (DV batch scans skip level 0)
    expect(await view(table, undefined, { snapshotId: s1 })).toEqual("deletion-vectors.enabled" in options ? [] : [[1, "a"], [2, "b"], [3, "c"]]);
    await commit(table, w, 3);
    await w.close();
  });

  it("a view pinned before a spill seal reads exactly its rows after the seal, later writes and a commit", async () => {
    const table = await pkTable({ ...options, "realtime.spill-enabled": true });
    const tmp = tempDir("paimon-rt-spill-");
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    await w.write(rtBatch([0, 1, 2], { ids: [3, 1, 2], names: ["c", "a", "b"] }), { bucket: 0 });
    await w.write(rtBatch([3, 4], { ids: [1, 3], names: ["a2", null] }), { bucket: 0, rowKinds: [RowKind.UPDATE_AFTER, RowKind.DELETE] });
    const plan = await table.newScan({ realtime: ctx }).plan(); // pins the building segment
    await w.seal();
    expect(readdirSync(tmp).filter((f) => f.startsWith("paimon-rt-spill-"))).toHaveLength(1);
    await w.write(rtBatch([5, 6], { ids: [2, 4], names: ["b2", "d"] }), { bucket: 0 });
    const pinned = async () => (await table.newRead({ realtime: ctx }).toArrow(plan.splits)).toArray().map((r) => [Number(r.id), r.name]);
    const before = [
      [1, "a2"],
      [2, "b"],
    ];
    expect(await view(table, ctx)).toEqual([
      [1, "a2"],
      [2, "b2"],
      [4, "d"],
    ]);
    const s = await commit(table, w, 1);
    await w.refreshCommittedSnapshot(s);
    // the plan's ticket still pins its segment, now a spill file; its one read sees exactly its rows
    expect(await pinned()).toEqual(before);
    expect(readdirSync(tmp).filter((f) => f.startsWith("paimon-rt-spill-"))).toHaveLength(0);
    await expectCode(pinned(), "TICKET_EXPIRED");
    expect(await view(table, ctx)).toEqual([
      [1, "a2"],
      [2, "b2"],
      [4, "d"],
    ]);
    await w.close();
  });
});
