// A table committed in real-time mode reads identically in pypaimon (skipped without the oracle venv).
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/index.js";
import { pypaimonUnavailable, readTable } from "../interop/oracle/harness.js";
import { cleanupDirs, makeTable, range, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);
const noPython = pypaimonUnavailable();

describe.skipIf(noPython !== null)("real-time interop with pypaimon", () => {
  it("pypaimon reads a table committed with progress like paimon-rt does", async () => {
    const warehouse = tempDir();
    const table = await makeTable({}, { warehouse, name: "rt_interop", partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch(range(0, 20), { dt: "a", names: range(0, 20).map((i) => (i % 5 === 0 ? null : `n${i}`)) }), { partition: { dt: "a" }, bucket: 0 });
    await w.write(rtBatch([3, 9, 27], { dt: "b", ids: [100, 101, 102] }), { partition: { dt: "b" }, bucket: 1 });
    const s1 = await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s1);
    await w.write(rtBatch(range(20, 25), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
    await w.seal();
    await w.write(rtBatch([30], { dt: "b", ids: [103] }), { partition: { dt: "b" }, bucket: 1 });
    await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    await w.close();
    const ours = (await readRows(table)).map((r) => ({ id: r.id, name: r.name, v: r.v, dt: r.dt })).sort((a, b) => (a.id as number) - (b.id as number));
    const theirs = (await readTable("pypaimon", warehouse, "db.rt_interop")).map((r) => ({ id: Number(r.id), name: r.name, v: Number(r.v), dt: r.dt })).sort((a, b) => a.id - b.id);
    expect(theirs).toEqual(ours);
    expect(theirs.length).toBe(29);
  }, 120_000);
});
