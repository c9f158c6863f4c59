// Schema changes of real-time tables (seed 000 "Schema Changes": "After a schema change, recreate
// the context and writer and replay uncommitted input"; issues 10 and 11): the old context refuses
// the new schema, a new context replays the uncommitted input in the new layout, and rows of both
// schemas merge (PK) or deduplicate (append deduplicate: keys of files written with the old schema
// are found by field id, also after the key is renamed).
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, expectCode, readRows, rtBatch, tempDir } from "./helpers.js";
import { dedupBatch, dedupTableSpec } from "./dedup-helpers.js";

afterAll(cleanupDirs);

const int32 = (values: Array<number | null>) => arrow.vectorFromArray(values, new arrow.Int32()).data[0];

describe.each([
  ["PK MOR", {}],
  ["PK DV", { "deletion-vectors.enabled": "true" }],
] as const)("real-time %s after a schema change", (_name, options) => {
  it("refuses the new schema on the old context; a new context replays the uncommitted input in the new layout", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const fields = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "name", type: "STRING" },
      { name: "v", type: "DOUBLE" },
      { name: "dt", type: "STRING" },
    ];
    let table: Table = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options: { bucket: "1", "realtime.enabled": "true", ...options } });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2]), { bucket: 0 });
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    await w.write(rtBatch([3, 4], { ids: [1, 7] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.INSERT] }); // uncommitted: lost with the context
    table = await catalog.alterTable("db.t", [{ kind: "addColumn", name: "extra", type: "INT" }]);
    const refused = await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
    expect(refused.message).toBe(`table db.t changed schema (0 -> 1); recreate the RealtimeContext and writer and replay uncommitted input`);
    await expectCode(() => table.newScan({ realtime: ctx }).plan(), "INVALID_ARGUMENT");
    await ctx.close();

    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    const from = await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 0 });
    expect(from).toBe(3n);
    const old = rtBatch([3, 4], { ids: [1, 7] });
    const replay = new arrow.RecordBatch({ ...Object.fromEntries(old.schema.fields.map((f, i) => [f.name, old.data.children[i]])), extra: int32([null, 70]) });
    await w2.write(replay, { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.INSERT] });
    await w2.write(new arrow.RecordBatch({ ...Object.fromEntries(rtBatch([5], { ids: [2] }).schema.fields.map((f, i) => [f.name, rtBatch([5], { ids: [2] }).data.children[i]])), extra: int32([20]) }), { bucket: 0 });
    const view = async (c?: RealtimeContext) => (await readRows(table, { ctx: c })).map((r) => [r.id, r.name, r.extra]).sort((a, b) => Number(a[0]) - Number(b[0]));
    const expected = [[0, "n0", null], [2, "n2", 20], [7, "n7", 70]];
    expect(await view(ctx2)).toEqual(expected);
    await w2.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w2.prepareCommitWithProgress(2), 2));
    expect(await view(ctx2)).toEqual(expected);
    await w2.close();
  });
});

describe("real-time append deduplicate after schema changes", () => {
  it("keys in files of the old schema are found by field id: after adding a column and renaming the key, replay still supersedes them", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    let table: Table = await catalog.createTable("db.d", dedupTableSpec({ bucket: "1" }));
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), { bucket: 0 });
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    await w.close();
    await ctx.close();
    table = await catalog.alterTable("db.d", [
      { kind: "renameColumn", name: "id", newName: "key" },
      { kind: "addColumn", name: "extra", type: "INT" },
    ]);
    expect([table.options["realtime.deduplicate-key-fields"], table.options["bucket-key"]]).toEqual(["key", "key"]);
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    const b = dedupBatch([[2, 3], [3, 4]]);
    const batch = new arrow.RecordBatch({ key: b.data.children[0], _REALTIME_OFFSET: b.data.children[1], v: b.data.children[2], dt: b.data.children[3], extra: int32([20, null]) });
    await w2.write(batch, { bucket: 0, rowKinds: [RowKind.INSERT, RowKind.DELETE] });
    const view = async (c?: RealtimeContext) => (await readRows(table, { ctx: c })).map((r) => [Number(r.key), Number(r._REALTIME_OFFSET), r.extra]).sort((x, y) => Number(x[0]) - Number(y[0]));
    expect(await view(ctx2)).toEqual([[1, 0, null], [2, 3, 20]]);
    await w2.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w2.prepareCommitWithProgress(2), 2));
    expect(await view()).toEqual([[1, 0, null], [2, 3, 20]]);
    await w2.close();
    await ctx2.close();
  });
});
