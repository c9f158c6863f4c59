// Real-time append-deduplicate tables committed by paimon-rt read identically in Java Paimon and
// pypaimon (one row per key: our deletion vectors applied); Java compacts between our commits,
// rebuilding the offset index, and the writer's pending deletions land in Java's output files
// (skipped without the oracles).
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTable, writeTable } from "../interop/oracle/harness.js";
import { cleanupDirs, readRows, tempDir } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";

afterAll(cleanupDirs);
const noJava = javaOracleUnavailable();
const noPython = pypaimonUnavailable();

type Row = { dt: string; id: number; offset: number; v: unknown };
const sortRows = (rows: Row[]) => rows.sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : a.id - b.id));
const ours = async (table: Table, ctx?: RealtimeContext) =>
  sortRows((await readRows(table, { ctx })).map((r) => ({ dt: r.dt as string, id: r.id as number, offset: Number(r._REALTIME_OFFSET), v: r.v })));
const theirs = async (oracle: "java" | "pypaimon", warehouse: string, name: string) =>
  sortRows((await readTable(oracle, warehouse, `db.${name}`)).map((r) => ({ dt: r.dt as string, id: Number(r.id), offset: Number(r._REALTIME_OFFSET), v: r.v })));

describe.skipIf(noJava !== null)("real-time append deduplicate interop", () => {
  it("Java and pypaimon read one row per key; Java compacts between our commits and we continue", async () => {
    const warehouse = tempDir();
    const name = "rt_dedup";
    const table = await makeDedupTable({}, { warehouse, name, partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    const a = { partition: { dt: "a" }, bucket: 0 };
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2], [1, 3]], { dt: "a" }), a);
    await w.write(dedupBatch([[1, 0], [2, 1]], { dt: "b" }), { partition: { dt: "b" }, bucket: 1 });
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    // supersede committed rows (DVs on committed files) and delete one
    await w.write(dedupBatch([[2, 4], [3, 5]], { dt: "a" }), { ...a, rowKinds: [RowKind.UPDATE_AFTER, RowKind.DELETE] });
    await w.seal();
    await w.write(dedupBatch([[4, 6]], { dt: "a" }), a);
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2));
    const expected: Row[] = [
      { dt: "a", id: 1, offset: 3, v: "v3" },
      { dt: "a", id: 2, offset: 4, v: "v4" },
      { dt: "a", id: 4, offset: 6, v: "v6" },
      { dt: "b", id: 1, offset: 0, v: "v0" },
      { dt: "b", id: 2, offset: 1, v: "v1" },
    ];
    expect(await ours(table, ctx)).toEqual(expected);
    expect(await ours(table)).toEqual(expected);
    expect(await theirs("java", warehouse, name)).toEqual(expected);
    if (noPython === null) expect(await theirs("pypaimon", warehouse, name)).toEqual(expected);

    // pending deletions of committed rows, then Java compacts the table before we commit them
    await w.write(dedupBatch([[1, 7], [4, 8]], { dt: "a" }), { ...a, rowKinds: [RowKind.INSERT, RowKind.DELETE] });
    const prepared = await w.prepareCommitWithProgress(3);
    await writeTable("java", warehouse, `db.${name}`, { commits: [{ rows: [], compact: true }] });
    expect((await table.latestSnapshot())!.commitKind).toBe("COMPACT");
    await w.refreshCommittedSnapshot((await table.latestSnapshot())!.id);
    const after: Row[] = sortRows([...expected.filter((r) => !(r.dt === "a" && (r.id === 1 || r.id === 4))), { dt: "a", id: 1, offset: 7, v: "v7" }]);
    expect(await ours(table, ctx)).toEqual(after);
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(prepared, 3));
    expect(await ours(table, ctx)).toEqual(after);
    expect(await ours(table)).toEqual(after);
    expect(await theirs("java", warehouse, name)).toEqual(after);
    if (noPython === null) expect(await theirs("pypaimon", warehouse, name)).toEqual(after);
    // Java compacts our new deletion vectors away; a restarted context rebuilds its keys from Java's files
    await writeTable("java", warehouse, `db.${name}`, { commits: [{ rows: [], compact: true }] });
    expect((await table.latestSnapshot())!.commitKind).toBe("COMPACT");
    expect(await theirs("java", warehouse, name)).toEqual(after);
    await w.close();
    await ctx.close();
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await w2.write(dedupBatch([[2, 9]], { dt: "a" }), a);
    await w2.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w2.prepareCommitWithProgress(4), 4));
    const final = sortRows([...after.filter((r) => !(r.dt === "a" && r.id === 2)), { dt: "a", id: 2, offset: 9, v: "v9" }]);
    expect(await ours(table, ctx2)).toEqual(final);
    expect(await theirs("java", warehouse, name)).toEqual(final);
    if (noPython === null) expect(await theirs("pypaimon", warehouse, name)).toEqual(final);
    await w2.close();
    await ctx2.close();
  }, 300_000);
});
