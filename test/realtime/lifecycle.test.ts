import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import { cleanupDirs, expectCode, makeTable, range, readIds, rtBatch } from "./helpers.js";

afterAll(cleanupDirs);

describe("real-time append: write, prepare, commit, refresh", () => {
  it("makes writes visible to the next plan before any commit", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2]), { bucket: 0 });
    await w.write(rtBatch([5, 6]), { bucket: 1 });
    expect(await readIds(table, { ctx })).toEqual([0, 1, 2, 5, 6]);
    // without the context: committed data only (none yet)
    expect(await readIds(table)).toEqual([]);
    const m = ctx.getMetrics();
    expect(m.realtimeBuildingRowCount).toBe(5);
    expect(m.realtimeSealedRowCount).toBe(0);
    expect(m.realtimeTotalRowCount).toBe(5);
    expect(m.realtimeBuildingMemoryBytes).toBeGreaterThan(0);
    expect(m.realtimeTotalMemoryBytes).toBe(m.realtimeBuildingMemoryBytes + m.realtimeSealedMemoryBytes);
    await w.prepareCommitWithProgress(1).then((p) => table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1));
    await w.close();
  });

  it("prepares, commits with progress, reads disk + memory without duplicates, refreshes and reclaims", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch(range(0, 10)), { bucket: 0 });
    const progress = await w.prepareCommitWithProgress(1);
    expect(progress).toHaveLength(1);
    expect(progress[0].bucket).toBe(0);
    expect(progress[0].partition).toEqual({});
    expect(progress[0].offsetRange).toEqual({ begin: 0n, end: 10n });
    // prepared, not committed: still memory
    expect(ctx.getMetrics().realtimeSealedRowCount).toBe(10);
    expect(ctx.getMetrics().realtimeBuildingRowCount).toBe(0);
    await w.write(rtBatch(range(10, 15)), { bucket: 0 });
    expect(await readIds(table, { ctx })).toEqual(range(0, 15));
    const snap = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 1);
    expect(snap).toBe(1);
    // committed, not refreshed: disk [0,10) + memory [10,15): no duplicates
    expect(await readIds(table, { ctx })).toEqual(range(0, 15));
    expect(await readIds(table)).toEqual(range(0, 10));
    const snapshot = await table.latestSnapshot();
    const ref = snapshot!.properties!["realtime.offsets"];
    expect(ref).toMatch(/metadata\/[^/]+\.offsets$/);
    const json = JSON.parse(new TextDecoder().decode(await table.fileIO.readFile(ref)));
    expect(json).toEqual({ version: 1, offsets: [{ partition: {}, bucket: 0, offset: 10 }] });
    expect(new TextDecoder().decode(await table.fileIO.readFile(ref))).toContain('\n    "version": 1');
    await w.refreshCommittedSnapshot(snap);
    const m = ctx.getMetrics();
    expect(m.realtimeSealedRowCount).toBe(0);
    expect(m.realtimeSealedMemoryBytes).toBe(0);
    expect(m.realtimeBuildingRowCount).toBe(5);
    expect(await readIds(table, { ctx })).toEqual(range(0, 15));
    // recovery API
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 10n }]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, snap, { partition: {}, bucket: 0 })).toBe(10n);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 1 })).toBe(-1n);
    const p2 = await w.prepareCommitWithProgress(2);
    expect(p2[0].offsetRange).toEqual({ begin: 10n, end: 15n });
    const s2 = await table.newCommit({ commitUser: "u" }).commitWithProgress(p2, 2);
    await w.refreshCommittedSnapshot(s2);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    expect(ctx.getMetrics().realtimeTotalMemoryBytes).toBe(0);
    expect(await readIds(table)).toEqual(range(0, 15));
    await w.close();
  });

  it("metrics are exact after write, seal, prepare and refresh", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch(range(0, 100)), { bucket: 0 });
    const afterWrite = ctx.getMetrics();
    expect(afterWrite).toMatchObject({ realtimeBuildingRowCount: 100, realtimeSealedRowCount: 0, realtimeSealedMemoryBytes: 0 });
    await w.seal();
    const afterSeal = ctx.getMetrics();
    expect(afterSeal).toEqual({
      realtimeBuildingMemoryBytes: 0,
      realtimeSealedMemoryBytes: afterWrite.realtimeBuildingMemoryBytes,
      realtimeTotalMemoryBytes: afterWrite.realtimeBuildingMemoryBytes,
      realtimeBuildingRowCount: 0,
      realtimeSealedRowCount: 100,
      realtimeTotalRowCount: 100,
    });
    await w.write(rtBatch(range(100, 150)), { bucket: 1 });
    const p = await w.prepareCommitWithProgress(1);
    expect(p.map((x) => [x.bucket, x.offsetRange.begin, x.offsetRange.end]).sort()).toEqual([
      [0, 0n, 100n],
      [1, 100n, 150n],
    ]);
    expect(ctx.getMetrics()).toMatchObject({ realtimeBuildingRowCount: 0, realtimeSealedRowCount: 150, realtimeTotalRowCount: 150 });
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
    await w.refreshCommittedSnapshot(s);
    expect(ctx.getMetrics()).toEqual({
      realtimeBuildingMemoryBytes: 0,
      realtimeSealedMemoryBytes: 0,
      realtimeTotalMemoryBytes: 0,
      realtimeBuildingRowCount: 0,
      realtimeSealedRowCount: 0,
      realtimeTotalRowCount: 0,
    });
    await w.close();
  });

  it("offset ranges are envelopes: gaps allowed, progress continues across prepares", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([10, 12, 15]), { bucket: 0 });
    const p1 = await w.prepareCommitWithProgress(1);
    expect(p1[0].offsetRange).toEqual({ begin: 10n, end: 16n });
    await w.write(rtBatch([20, 30]), { bucket: 0 });
    const p2 = await w.prepareCommitWithProgress(2);
    expect(p2[0].offsetRange).toEqual({ begin: 16n, end: 31n });
    // the complete outstanding prefix, out of order, in one commit
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress([...p2, ...p1], 2);
    expect(await RealtimeSnapshotOffsets.readOffset(table, s, { partition: {}, bucket: 0 })).toBe(31n);
    expect(await readIds(table)).toEqual([10, 12, 15, 20, 30]);
    await w.close();
  });

  it("keeps data files free of the offset column and commits through the ordinary append writer", async () => {
    const table = await makeTable({ "target-file-size": "1 kb" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    for (let i = 0; i < 5; i++) await w.write(rtBatch(range(i * 200, i * 200 + 200)), { bucket: 0 });
    const p = await w.prepareCommitWithProgress(1);
    expect(p[0].commitMessage.data.dataIncrement.newFiles.length).toBeGreaterThan(1); // rolled
    await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
    const plan = await table.newScan().plan();
    const t = await table.newRead().toArrow(plan.splits);
    expect(t.schema.fields.map((f) => f.name)).toEqual(["id", "name", "v", "dt"]);
    expect(t.numRows).toBe(1000);
    await w.close();
  });

  it("prepared-but-uncommitted progress stays committable after the writer closes", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch(range(0, 5)), { bucket: 1 });
    const p = await w.prepareCommitWithProgress(7);
    await w.close();
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 7);
    expect(await readIds(table)).toEqual(range(0, 5));
    // a new writer on the healthy context refreshes and continues
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w2.refreshCommittedSnapshot(s);
    await w2.write(rtBatch([5, 6]), { bucket: 1 });
    const p2 = await w2.prepareCommitWithProgress(8);
    expect(p2[0].offsetRange).toEqual({ begin: 5n, end: 7n });
    await table.newCommit({ commitUser: "u" }).commitWithProgress(p2, 8);
    await w2.close();
    expect(await readIds(table)).toEqual(range(0, 7));
  });

  it("close with unprepared data fails and invalidates the context", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1]), { bucket: 0 });
    await expectCode(w.close(), "CONTEXT_INVALIDATED");
    await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newScan({ realtime: ctx }), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newRead({ realtime: ctx }), "CONTEXT_INVALIDATED");
    expect(ctx.invalidatedReason).toMatch(/not covered/);
  });

  it("recovers: a new context resumes from committed progress", async () => {
    const table = await makeTable({}, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch(range(0, 10), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
    await w.write(rtBatch(range(0, 4), { dt: "b", ids: range(100, 104) }), { partition: { dt: "b" }, bucket: 1 });
    const p = await w.prepareCommitWithProgress(1);
    await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
    await w.write(rtBatch(range(10, 12), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 }); // lost on "crash"
    // crash: drop ctx and writer; recover
    const offsets = await RealtimeSnapshotOffsets.readAllOffsets(table);
    expect(offsets).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 10n },
      { partition: { dt: "b" }, bucket: 1, offset: 4n },
    ]);
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u2", realtime: ctx2 });
    await expectCode(w2.write(rtBatch([9, 10], { dt: "a" }), { partition: { dt: "a" }, bucket: 0 }), "OFFSET_INVALID");
    await w2.write(rtBatch(range(10, 13), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
    expect(await readIds(table, { ctx: ctx2 })).toEqual([...range(0, 13), 100, 101, 102, 103]);
    const p2 = await w2.prepareCommitWithProgress(1);
    expect(p2[0].offsetRange).toEqual({ begin: 10n, end: 13n });
    await table.newCommit({ commitUser: "u2" }).commitWithProgress(p2, 1);
    await w2.close();
    expect(await readIds(table)).toEqual([...range(0, 13), 100, 101, 102, 103]);
  });

  it("refresh refuses to move backwards and invalidates the context after an overwrite", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch([0, 1]), { bucket: 0 });
    const s1 = await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.write(rtBatch([2, 3]), { bucket: 0 });
    const s2 = await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    await w.refreshCommittedSnapshot(s2);
    await w.refreshCommittedSnapshot(s2); // same id: ignored
    await expectCode(w.refreshCommittedSnapshot(s1), "INVALID_ARGUMENT");
    await expectCode(w.refreshCommittedSnapshot(-1), "INVALID_ARGUMENT");
    // an ordinary overwrite of the table
    const ow = await table.newWrite({ commitUser: "other" });
    const ordinary = (await import("apache-arrow")).tableFromArrays({});
    void ordinary;
    const messages = await ow.prepareCommit();
    const s3 = await table.newCommit({ commitUser: "other" }).overwrite(messages);
    expect(s3).not.toBeNull();
    await expectCode(w.refreshCommittedSnapshot(s3!), "CONTEXT_INVALIDATED");
    await expectCode(w.write(rtBatch([4]), { bucket: 0 }), "CONTEXT_INVALIDATED");
  });
});

describe("commitWithProgress validation", () => {
  it("rejects gaps, overlaps, mismatches and other users; retries idempotently", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch(range(0, 4)), { bucket: 0 });
    const p1 = await w.prepareCommitWithProgress(1);
    await w.write(rtBatch(range(4, 8)), { bucket: 0 });
    const p2 = await w.prepareCommitWithProgress(2);
    await expectCode(commit.commitWithProgress([], 1), "PROGRESS_INVALID");
    // gap: p2 without p1 on an empty table is fine only as a first range... but p1+p2 overlap check:
    await expectCode(commit.commitWithProgress([p1[0], { ...p2[0], offsetRange: { begin: 5n, end: 8n } }], 2), "PROGRESS_INVALID");
    await expectCode(commit.commitWithProgress([p1[0], { ...p2[0], offsetRange: { begin: 3n, end: 8n } }], 2), "PROGRESS_INVALID");
    await expectCode(commit.commitWithProgress([{ ...p1[0], bucket: 1 }], 1), "PROGRESS_INVALID");
    await expectCode(commit.commitWithProgress([{ ...p1[0], offsetRange: { begin: 4n, end: 4n } }], 1), "PROGRESS_INVALID");
    expect(await table.latestSnapshot()).toBeNull();
    const s1 = await commit.commitWithProgress(p1, 1);
    expect(await commit.commitWithProgress(p1, 1)).toBe(s1); // idempotent retry
    expect((await table.listSnapshots()).length).toBe(1);
    await expectCode(table.newCommit({ commitUser: "someone-else" }).commitWithProgress(p1, 1), "PROGRESS_INVALID");
    // a gap after the committed prefix
    await expectCode(commit.commitWithProgress([{ ...p2[0], offsetRange: { begin: 5n, end: 8n } }], 2), "PROGRESS_INVALID");
    // partial overlap with the committed prefix
    await expectCode(commit.commitWithProgress([{ ...p2[0], offsetRange: { begin: 2n, end: 8n } }], 2), "PROGRESS_INVALID");
    const s2 = await commit.commitWithProgress(p2, 2, 1234);
    expect((await table.snapshot(s2)).watermark).toBe(1234n);
    expect(await commit.commitWithProgress([...p1, ...p2], 2)).toBe(s2);
    expect(await readIds(table)).toEqual(range(0, 8));
    // an ordinary commit carries the progress forward
    const ow = await table.newWrite({ commitUser: "plain" });
    const s3 = await table.newCommit({ commitUser: "plain" }).commit(await ow.prepareCommit(1), 1);
    void s3;
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 0 })).toBe(8n);
    await w.close();
  });

  it("requires realtime.enabled", async () => {
    const table = await makeTable({ "realtime.enabled": false });
    const ctx = await RealtimeContext.create();
    await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "REALTIME_NOT_ENABLED");
    await expectCode(() => table.newScan({ realtime: ctx }), "REALTIME_NOT_ENABLED");
    await expectCode(() => table.newRead({ realtime: ctx }), "REALTIME_NOT_ENABLED");
    await expectCode(table.newCommit({ commitUser: "u" }).commitWithProgress([], 1), "REALTIME_NOT_ENABLED");
    const plain = await table.newWrite({ commitUser: "u" });
    await expectCode(plain.prepareCommitWithProgress(1), "REALTIME_NOT_ENABLED");
    await expectCode(plain.seal(), "REALTIME_NOT_ENABLED");
    await expectCode(plain.refreshCommittedSnapshot(1), "REALTIME_NOT_ENABLED");
    // realtime.enabled without a context: an ordinary writer (no real-time calls)
    const enabled = await makeTable();
    const ordinary = await enabled.newWrite({ commitUser: "u" });
    await expectCode(ordinary.prepareCommitWithProgress(1), "REALTIME_NOT_ENABLED");
    expect(await enabled.fileIO.exists(enabled.location)).toBe(true);
  });
});
