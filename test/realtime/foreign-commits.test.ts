// Real-time progress across commits of other engines (issue 9 item 1): Java Paimon and pypaimon
// commit without carrying the `realtime.offsets` snapshot property forward. Progress must still
// resolve to the newest snapshot that carries it, for recovery, commit validation, refresh, scans
// and expiry. Runs against the real oracles (skipped only when .oracles/ is absent).
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import { FileStoreCommit } from "../../src/commit/file-store-commit.js";
import { BATCH_COMMIT_IDENTIFIER } from "../../src/spec/snapshot.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTable, writeTable } from "../interop/oracle/harness.js";
import { cleanupDirs, expectCode, makeTable, range, readIds, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);
const unavailable = javaOracleUnavailable() ?? pypaimonUnavailable();

/** The upstream: a replayable log per partition-bucket; row i of (dt, bucket) has offset i. */
const SOURCE = {
  a: { bucket: 0, ids: range(0, 20) },
  b: { bucket: 1, ids: range(100, 108) },
} as const;

/** Writes the source rows of `dt` with offsets in [from, to). */
async function writeSource(w: Awaited<ReturnType<Table["newWrite"]>>, dt: "a" | "b", from: number, to: number): Promise<void> {
  const src = SOURCE[dt];
  await w.write(rtBatch(range(from, to), { dt, ids: src.ids.slice(from, to) }), { partition: { dt }, bucket: src.bucket });
}

const offsetOf = (table: Table, dt: string, bucket: number, snapshotId?: number) => RealtimeSnapshotOffsets.readOffset(table, snapshotId, { partition: { dt }, bucket });

function foreignRows(ids: number[], dt: string) {
  return ids.map((id) => ({ id: String(id), name: `f${id}`, v: id / 4, dt }));
}

describe.skipIf(unavailable !== null)("real-time progress across Java and pypaimon commits", () => {
  it("recovers, validates, refreshes and scans from the newest snapshot carrying progress; a restarted writer replays every row exactly once", async () => {
    const warehouse = tempDir();
    const table = await makeTable({}, { warehouse, name: "rt_foreign", partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    const commit = table.newCommit({ commitUser: "rt" });
    await writeSource(w, "a", 0, 10);
    await writeSource(w, "b", 0, 5);
    const s1 = await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s1);

    // 1. A Java batch append: no realtime.offsets on its snapshot.
    const [javaSnapshot] = await writeTable("java", warehouse, "db.rt_foreign", { commits: [foreignRows([1000, 1001], "a")] });
    expect(javaSnapshot).toBe(s1 + 1);
    expect((await table.snapshot(javaSnapshot)).properties?.["realtime.offsets"]).toBeUndefined();
    expect(await offsetOf(table, "a", 0)).toBe(10n);
    expect(await offsetOf(table, "b", 1)).toBe(5n);
    expect(await offsetOf(table, "a", 0, javaSnapshot)).toBe(10n);
    // scans with the context are not "behind" the context's progress
    await writeSource(w, "a", 10, 15);
    expect(await readIds(table, { ctx })).toEqual([...range(0, 15), ...range(100, 105), 1000, 1001]);
    await w.refreshCommittedSnapshot(javaSnapshot); // an append: the context stays valid
    expect(ctx.invalidatedReason).toBeNull();
    // the next real-time commit checks gaps against the resolved progress ...
    const p2 = await w.prepareCommitWithProgress(2);
    expect(p2.map((p) => [p.partition, p.bucket, p.offsetRange])).toEqual([[{ dt: "a" }, 0, { begin: 10n, end: 15n }]]);
    const gap = await expectCode(commit.commitWithProgress([{ ...p2[0], offsetRange: { begin: 11n, end: 15n } }], 2), "PROGRESS_INVALID");
    expect(gap.message).toMatch(/leaves a gap after committed offset 10/);
    // ... and its offsets file carries the untouched partition-buckets forward
    const s2 = await commit.commitWithProgress(p2, 2);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s2)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 15n },
      { partition: { dt: "b" }, bucket: 1, offset: 5n },
    ]);
    await w.refreshCommittedSnapshot(s2);

    // 2. A pypaimon batch append, then uncommitted real-time input and a crash.
    const [pySnapshot] = await writeTable("pypaimon", warehouse, "db.rt_foreign", { commits: [foreignRows([2000, 2001, 2002], "b")] });
    expect(pySnapshot).toBe(s2 + 1);
    expect((await table.snapshot(pySnapshot)).properties?.["realtime.offsets"]).toBeUndefined();
    expect(await offsetOf(table, "a", 0)).toBe(15n);
    expect(await offsetOf(table, "b", 1)).toBe(5n);
    await writeSource(w, "a", 15, 20);
    await writeSource(w, "b", 5, 8);
    await w.prepareCommitWithProgress(3); // prepared, never committed: lost with the process

    // 3. Restart: a new context and writer replay the source from the resolved offsets.
    const resumed = await RealtimeSnapshotOffsets.readAllOffsets(table);
    expect(resumed).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 15n },
      { partition: { dt: "b" }, bucket: 1, offset: 5n },
    ]);
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "rt", realtime: ctx2 });
    for (const r of resumed) {
      const dt = r.partition.dt as "a" | "b";
      await writeSource(w2, dt, Number(r.offset), SOURCE[dt].ids.length);
    }
    const s3 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w2.prepareCommitWithProgress(3), 3);
    await w2.refreshCommittedSnapshot(s3);
    const everyRow = [...SOURCE.a.ids, ...SOURCE.b.ids, 1000, 1001, 2000, 2001, 2002].sort((x, y) => x - y);
    expect(await readIds(table)).toEqual(everyRow);
    for (const oracle of ["java", "pypaimon"] as const) {
      const ids = (await readTable(oracle, warehouse, "db.rt_foreign")).map((r) => Number(r.id)).sort((x, y) => x - y);
      expect(ids).toEqual(everyRow);
    }

    // 4. A Java INSERT OVERWRITE of partition b resets exactly b's progress: a context holding
    //    only partition a stays valid, the one holding b is invalidated on refresh.
    const ctx3 = await RealtimeContext.create();
    const w3 = await table.newWrite({ commitUser: "rt3", realtime: ctx3 });
    await w3.write(rtBatch([20, 21], { dt: "a", ids: [20, 21] }), { partition: { dt: "a" }, bucket: 0 });
    const [javaOverwrite] = await writeTable("java", warehouse, "db.rt_foreign", { commits: [{ rows: foreignRows([3000], "b"), overwrite: { dt: "b" } }] });
    expect((await table.snapshot(javaOverwrite)).commitKind).toBe("OVERWRITE");
    expect(await offsetOf(table, "a", 0)).toBe(20n);
    expect(await offsetOf(table, "b", 1)).toBe(-1n);
    await w3.refreshCommittedSnapshot(javaOverwrite);
    expect(ctx3.invalidatedReason).toBeNull();
    expect(await readIds(table, { ctx: ctx3 })).toEqual([...range(0, 22), 1000, 1001, 3000]);
    const s4 = await table.newCommit({ commitUser: "rt3" }).commitWithProgress(await w3.prepareCommitWithProgress(1), 1);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s4)).toEqual([{ partition: { dt: "a" }, bucket: 0, offset: 22n }]);
    await w3.close();
    await expectCode(w2.refreshCommittedSnapshot(javaOverwrite), "CONTEXT_INVALIDATED");
    expect(ctx2.invalidatedReason).toMatch(/^snapshot \d+ of db\.rt_foreign overwrote db\.rt_foreign partition \{dt=b\} bucket 1/);
    expect((await readRows(table)).length).toBe(25);
  }, 180_000);

  it("snapshot expiry keeps the progress a foreign-tail table needs, in a progress anchor", async () => {
    const warehouse = tempDir();
    const table = await makeTable({}, { warehouse, name: "rt_expire" });
    const metadataFiles = async () => (await table.fileIO.listStatus(`${table.location}/metadata`)).map((f) => f.name).sort();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    await w.write(rtBatch(range(0, 10)), { bucket: 0 });
    await w.write(rtBatch(range(0, 3), { ids: [50, 51, 52] }), { bucket: 1 });
    const s1 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.close();
    await writeTable("java", warehouse, "db.rt_expire", { commits: [foreignRows([1000], "x")] });
    const expected = [
      { partition: {}, bucket: 0, offset: 10n },
      { partition: {}, bucket: 1, offset: 3n },
    ];
    // An OVERWRITE without the property that deletes no data file (the shape of Java's
    // deletion-vector-only commits) resets nothing.
    const dvShaped = await new FileStoreCommit(table.fileIO, table.location, table.schema, "dv-like").overwrite([], () => false, BATCH_COMMIT_IDENTIFIER);
    expect((await table.snapshot(dvShaped!)).commitKind).toBe("OVERWRITE");
    expect((await table.snapshot(dvShaped!)).properties?.["realtime.offsets"]).toBeUndefined();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual(expected);
    const expire = () => table.newCommit({ commitUser: "expire" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 });
    // the snapshot that wrote the offsets file expires; its progress moves to an anchor
    expect(await expire()).toBe(2);
    expect(await table.snapshotManager.tryGetSnapshot(s1)).toBeNull();
    expect(await metadataFiles()).toEqual([`realtime-progress-${dvShaped}.json`]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual(expected);
    // another foreign commit and another expiry: the anchor follows the first retained snapshot
    const [pySnapshot] = await writeTable("pypaimon", warehouse, "db.rt_expire", { commits: [foreignRows([2000], "y")] });
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual(expected);
    expect(await expire()).toBe(1);
    expect(await metadataFiles()).toEqual([`realtime-progress-${pySnapshot}.json`]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual(expected);
    // a restarted writer resumes from it; once a retained snapshot carries progress, the anchor goes
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "rt", realtime: ctx2 });
    await expectCode(w2.write(rtBatch([9, 10]), { bucket: 0 }), "OFFSET_INVALID");
    await w2.write(rtBatch([10, 11]), { bucket: 0 });
    const s4 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w2.prepareCommitWithProgress(2), 2);
    await w2.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s4)).toEqual([{ partition: {}, bucket: 0, offset: 12n }, expected[1]]);
    expect(await expire()).toBe(1);
    const own = (await table.snapshot(s4)).properties!["realtime.offsets"];
    expect(await metadataFiles()).toEqual([own.slice(own.lastIndexOf("/") + 1)]);
    expect(await readIds(table)).toEqual([...range(0, 12), 50, 51, 52, 1000, 2000]);
  }, 180_000);
});
