// Real-time primary-key tables: gaps found by an audit (issue 10) — union reads over committed
// deletion vectors, input and commit validation, and the refused options.
import { afterAll, describe, expect, it } from "vitest";
import * as arrow from "apache-arrow";
import { RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, compactFully, expectCode, makeTable, range, readRows, rtBatch } from "./helpers.js";

afterAll(cleanupDirs);

const MODES = [
  { name: "PK MOR", options: {} },
  { name: "PK DV", options: { "deletion-vectors.enabled": true } },
] as const;

const pkTable = (options: Record<string, string | number | boolean> = {}) => makeTable({ bucket: 1, ...options }, { primaryKeys: ["id"] });

async function view(table: Table, ctx?: RealtimeContext): Promise<Array<[number, unknown]>> {
  const rows = await readRows(table, { ctx });
  return rows.map((r) => [r.id as number, r.name] as [number, unknown]).sort((a, b) => a[0] - b[0]);
}

async function commit(table: Table, w: Awaited<ReturnType<Table["newWrite"]>>, id: number): Promise<number> {
  return table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(id), id);
}

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
