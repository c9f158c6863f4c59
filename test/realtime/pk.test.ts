// Real-time primary-key tables (seed 000 "PK MOR" / "PK DV"): upserts and deletes visible
// before commit, merged by key with committed files, committed as ordinary PK files.
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, expectCode, makeTable, readRows, rtBatch } from "./helpers.js";

afterAll(cleanupDirs);

const MODES = [
  { name: "PK MOR", options: {} },
  { name: "PK DV", options: { "deletion-vectors.enabled": true } },
] as const;

const pkTable = (options: Record<string, string | number | boolean> = {}, partitioned = false) =>
  makeTable({ bucket: 1, ...options }, { primaryKeys: partitioned ? ["dt", "id"] : ["id"], partitioned });

/** id → name of the visible rows, sorted by id. */
async function view(table: Table, ctx?: RealtimeContext, extra: Parameters<typeof readRows>[1] = {}): Promise<Array<[number, unknown]>> {
  const rows = await readRows(table, { ctx, ...extra });
  return rows.map((r) => [r.id as number, r.name] as [number, unknown]).sort((a, b) => a[0] - b[0]);
}

async function commit(table: Table, w: Awaited<ReturnType<Table["newWrite"]>>, id: number): Promise<number> {
  const progress = await w.prepareCommitWithProgress(id);
  return table.newCommit({ commitUser: "u" }).commitWithProgress(progress, id);
}

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

describe("real-time primary-key validation", () => {
  it.each([
    [{ "merge-engine": "partial-update" }, "merge-engine"],
    [{ "merge-engine": "first-row" }, "merge-engine"],
    [{ "changelog-producer": "input" }, "changelog-producer"],
    [{ "sequence.field": "v" }, "sequence.field"],
    [{ "ignore-delete": true }, "ignore-delete"],
    [{ "deduplicate.ignore-delete": true }, "deduplicate.ignore-delete"],
    [{ "force-lookup": true }, "force-lookup"],
    [{ "data-evolution.enabled": true }, "data-evolution.enabled"],
    [{ bucket: -1 }, "bucket"],
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
