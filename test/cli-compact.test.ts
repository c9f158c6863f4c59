// `paimon-rt compact`: an ordinary compaction writer from the command line (issue 10
// "Compaction"): it compacts a real-time PK table while the real-time writer keeps writing, and
// the writer refreshes past it; --partition / --bucket pick what is compacted; bad arguments are
// INVALID_ARGUMENT before anything is written.
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { RealtimeContext } from "../src/index.js";
import { RowKind } from "../src/write/table-write.js";
import { cleanupDirs, makeTable, readRows, rtBatch, tempDir } from "./realtime/helpers.js";
import { createPkTable, readRows as readPkRows, type Row, writeCommit } from "./pk/helpers.js";

afterAll(cleanupDirs);

async function run(...args: string[]): Promise<string[]> {
  const out: string[] = [];
  expect(await main(args, { out: (l) => out.push(l), err: (l) => out.push(`ERR ${l}`) })).toBe(0);
  return out;
}

describe("paimon-rt compact", () => {
  it("compacts a real-time PK table between the real-time writer's commits; the writer refreshes past it and continues", async () => {
    const table = await makeTable({ bucket: 1, "deletion-vectors.enabled": true }, { primaryKeys: ["id"] });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    const commit = table.newCommit({ commitUser: "rt" });
    for (let i = 0; i < 3; i++) {
      await w.write(rtBatch([2 * i, 2 * i + 1], { ids: [i, 10 + i] }), { bucket: 0 });
      await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(i + 1), i + 1));
    }
    await w.write(rtBatch([6], { ids: [10] }), { bucket: 0, rowKinds: [RowKind.DELETE] }); // uncommitted while compacting
    const out = await run("compact", table.location, "--full");
    const latest = (await table.latestSnapshot())!;
    expect(out).toEqual([`compacted ${table.location}: 3 files into 1 (snapshot ${latest.id})`]);
    expect([latest.commitKind, latest.commitUser]).toEqual(["COMPACT", "paimon-rt-compact"]);
    await w.refreshCommittedSnapshot(latest.id);
    expect((await readRows(table, { ctx })).map((r) => r.id).sort((a, b) => Number(a) - Number(b))).toEqual([0, 1, 2, 11, 12]);
    await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(4), 4));
    const ids = async () => (await readRows(table)).map((r) => r.id).sort((a, b) => Number(a) - Number(b));
    expect(await ids()).toEqual([0, 1, 2, 10, 11, 12]); // DV batch reads skip level 0 (the delete) until compaction, as Java's
    expect(await run("compact", table.location, "--full", "--commit-user", "ops")).toEqual([`compacted ${table.location}: 2 files into 1 (snapshot ${latest.id + 2})`]);
    expect(await ids()).toEqual([0, 1, 2, 11, 12]);
    expect(await run("compact", table.location)).toEqual([`nothing to compact in ${table.location}`]);
    await w.close();
  });

  it("--partition and --bucket choose what is compacted", async () => {
    const table = await makeTable({ bucket: 2 }, { partitioned: true });
    for (const dt of ["a", "b", "a", "b"]) {
      const w = await table.newWrite({ commitUser: "w" });
      await w.write(rtBatch([0, 1], { ids: [1, 2], dt }).selectAt([1, 2, 3, 4]), { partition: { dt } });
      await table.newCommit({ commitUser: "w" }).commit(await w.prepareCommit());
    }
    const filesPer = async () => {
      const counts: Record<string, number> = {};
      for (const s of (await table.newScan().plan()).splits) counts[`${s.partition.dt as string}/${s.bucket}`] = (counts[`${s.partition.dt as string}/${s.bucket}`] ?? 0) + s.files.length;
      return counts;
    };
    const before = await filesPer();
    const bucket = Object.keys(before).find((k) => k.startsWith("b/"))!.split("/")[1];
    await run("compact", table.location, "--partition", "dt=b", "--bucket", bucket, "--full");
    const after = await filesPer();
    for (const [k, n] of Object.entries(before)) expect(after[k], k).toBe(k === `b/${bucket}` ? 1 : n);
  });

  it("--partition finds a postpone table's partition that has postponed files only (batch scans skip them)", async () => {
    const table = await createPkTable({ bucket: -2, "postpone.default-bucket-num": 2 }, { warehouse: tempDir() });
    const row = (dt: string, id: number): Row => ({ dt, id: BigInt(id), name: "a", v: `v${id}`, n: null });
    await writeCommit(table, "w", [{ rows: [row("p1", 1), row("p1", 2), row("p2", 3)] }]);
    const out = await run("compact", table.location, "--partition", "dt=p1");
    expect(out).toEqual([`compacted ${table.location}: 1 file into 1 (snapshot 2)`]);
    expect((await readPkRows(table)).map((r) => [r.dt, r.id])).toEqual([["p1", 1n], ["p1", 2n]]); // p2 still postponed
  });

  it("refuses bad arguments with INVALID_ARGUMENT, writing nothing", async () => {
    const table = await makeTable({ bucket: 1 }, { partitioned: true });
    const code = (p: Promise<unknown>) => p.then(() => "ok", (e: { code?: string; message: string }) => `${e.code}: ${e.message}`);
    expect(await code(main(["compact"]))).toBe("INVALID_ARGUMENT: compact needs a table path");
    expect(await code(main(["compact", table.location, "--bucket", "x"]))).toBe("INVALID_ARGUMENT: compact: --bucket needs a bucket number, got x");
    expect(await code(main(["compact", table.location, "--partition", "dt"]))).toBe("INVALID_ARGUMENT: compact: --partition takes key=value pairs separated by commas, got 'dt'");
    expect(await code(main(["compact", table.location, "--partition", "hr=1"]))).toBe(`INVALID_ARGUMENT: compact: unknown partition column(s) hr of table ${table.identifier} (partition keys: dt)`);
    expect(await code(main(["compact", table.location, "--fast"]))).toBe("INVALID_ARGUMENT: compact: unexpected argument --fast");
    expect(await table.latestSnapshot()).toBeNull();
  });
});

describe("paimon-rt rescale", () => {
  it("rescales a postpone table's partition into --bucket-num buckets; refuses bad arguments, writing nothing", async () => {
    const table = await createPkTable({ bucket: -2 }, { warehouse: tempDir() });
    const row = (dt: string, id: number): Row => ({ dt, id: BigInt(id), name: "a", v: `v${id}`, n: null });
    await writeCommit(table, "w", [{ rows: Array.from({ length: 12 }, (_, i) => row(i < 9 ? "p1" : "p2", i)) }]);
    await run("compact", table.location);
    const code = (p: Promise<unknown>) => p.then(() => "ok", (e: { code?: string; message: string }) => `${e.code}: ${e.message}`);
    expect(await code(main(["rescale"]))).toBe("INVALID_ARGUMENT: rescale needs a table path");
    expect(await code(main(["rescale", table.location, "--bucket-num", "0"]))).toBe("INVALID_ARGUMENT: rescale: --bucket-num needs a positive number, got 0");
    expect(await code(main(["rescale", table.location, "--partition", "hr=1", "--bucket-num", "2"]))).toBe(`INVALID_ARGUMENT: rescale: unknown partition column(s) hr of table ${table.identifier} (partition keys: dt)`);
    expect(await code(main(["rescale", table.location, "--partition", "dt=p9", "--bucket-num", "2"]))).toBe(`INVALID_ARGUMENT: rescale: no partition of ${table.identifier} matches dt=p9`);
    expect(await code(main(["rescale", table.location, "--partition", "dt=p1"]))).toBe(`INVALID_ARGUMENT: rescale of ${table.identifier}: When rescaling postpone bucket tables, you must provide the resulting bucket number.`);
    expect((await table.latestSnapshot())!.id).toBe(2);
    const before = await readPkRows(table);
    expect(await run("rescale", table.location, "--partition", "dt=p1", "--bucket-num", "3", "--commit-user", "ops")).toEqual([`rescaled ${table.location} (dt=p1) into 3 buckets (snapshot 3)`]);
    const latest = (await table.latestSnapshot())!;
    expect([latest.commitKind, latest.commitUser]).toEqual(["OVERWRITE", "ops"]);
    expect(await readPkRows(table)).toEqual(before);
    const totals = (await table.manifestStore.liveEntries(latest)).map((e) => e.totalBuckets).sort();
    expect(new Set(totals)).toEqual(new Set([1, 3]));
  });
});
