// Real-time PK tables committed by paimon-rt read identically in Java Paimon and pypaimon; Java
// compacts between our commits and the real-time writer continues (skipped without the oracles).
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTable, writeTable } from "../interop/oracle/harness.js";
import { cleanupDirs, compactFully, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);
const noJava = javaOracleUnavailable();
const noPython = pypaimonUnavailable();

type Row = { dt: string; id: number; name: unknown };
const sortRows = (rows: Row[]) => rows.sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : a.id - b.id));
const ours = async (table: Table, ctx?: RealtimeContext) => sortRows((await readRows(table, { ctx })).map((r) => ({ dt: r.dt as string, id: r.id as number, name: r.name })));
const theirs = async (oracle: "java" | "pypaimon", warehouse: string, name: string) =>
  sortRows((await readTable(oracle, warehouse, `db.${name}`)).map((r) => ({ dt: r.dt as string, id: Number(r.id), name: r.name })));


describe.skipIf(noJava !== null)("real-time primary-key interop", () => {
  it.each([
    ["mor", {}],
    ["dv", { "deletion-vectors.enabled": true }],
  ] as const)("%s: Java and pypaimon read our commits; Java compacts between them and we continue", async (mode, options) => {
    const dv = mode === "dv";
    const warehouse = tempDir();
    const name = `rt_pk_${mode}`;
    const table = await makeTable({ bucket: 2, ...options }, { warehouse, name, primaryKeys: ["dt", "id"], partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch([0, 1, 2, 3], { ids: [1, 2, 3, 4], dt: "a", names: ["a1", "a2", null, "a4"] }), { partition: { dt: "a" }, bucket: 0 });
    await w.write(rtBatch([0, 1], { ids: [1, 2], dt: "b", names: ["b1", "b2"] }), { partition: { dt: "b" }, bucket: 1 });
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    await w.write(rtBatch([4, 5, 6], { ids: [2, 3, 5], dt: "a", names: [null, "a3", "a5"] }), { partition: { dt: "a" }, bucket: 0, rowKinds: [RowKind.DELETE, RowKind.UPDATE_AFTER, RowKind.INSERT] });
    await w.seal();
    await w.write(rtBatch([2], { ids: [1], dt: "b", names: ["b1x"] }), { partition: { dt: "b" }, bucket: 1, rowKinds: [RowKind.UPDATE_AFTER] });
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2));
    const expected: Row[] = [
      { dt: "a", id: 1, name: "a1" },
      { dt: "a", id: 3, name: "a3" },
      { dt: "a", id: 4, name: "a4" },
      { dt: "a", id: 5, name: "a5" },
      { dt: "b", id: 1, name: "b1x" },
      { dt: "b", id: 2, name: "b2" },
    ];
    expect(await ours(table, ctx)).toEqual(expected);
    if (dv) {
      // level-0 files are invisible to DV batch reads until compaction
      expect(await theirs("java", warehouse, name)).toEqual([]);
      await compactFully(table);
    }
    expect(await ours(table)).toEqual(expected);
    expect(await theirs("java", warehouse, name)).toEqual(expected);
    if (noPython === null) expect(await theirs("pypaimon", warehouse, name)).toEqual(expected);

    // Java compacts (writing DVs in DV mode) while our writer holds uncommitted data
    await w.write(rtBatch([7], { ids: [4], dt: "a" }), { partition: { dt: "a" }, bucket: 0, rowKinds: [RowKind.DELETE] });
    await writeTable("java", warehouse, `db.${name}`, { commits: [{ rows: [], compact: true }] });
    const latest = (await table.latestSnapshot())!.id;
    await w.refreshCommittedSnapshot(latest);
    const afterDelete = expected.filter((r) => !(r.dt === "a" && r.id === 4));
    expect(await ours(table, ctx)).toEqual(afterDelete);
    await w.write(rtBatch([8], { ids: [6], dt: "a", names: ["a6"] }), { partition: { dt: "a" }, bucket: 0 });
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(3), 3));
    const final = sortRows([...afterDelete, { dt: "a", id: 6, name: "a6" }]);
    expect(await ours(table, ctx)).toEqual(final);
    await writeTable("java", warehouse, `db.${name}`, { commits: [{ rows: [], compact: true }] });
    expect(await theirs("java", warehouse, name)).toEqual(final);
    expect(await ours(table)).toEqual(final);
    if (noPython === null) expect(await theirs("pypaimon", warehouse, name)).toEqual(final);
    await w.close();
  }, 300_000);
});
