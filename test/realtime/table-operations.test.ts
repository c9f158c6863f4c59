// Table.truncate, dropPartitions, rollbackTo and partition overwrites with real-time progress
// (issue 9 item 10, seed 000 "Compaction and Destructive Operations"): each resets exactly the
// progress of what it replaced, and invalidates exactly the contexts holding that data.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import { FileStoreCommit } from "../../src/commit/file-store-commit.js";
import { BATCH_COMMIT_IDENTIFIER } from "../../src/spec/snapshot.js";
import type { TableWrite } from "../../src/write/table-write.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTable, writeTable } from "../interop/oracle/harness.js";
import { cleanupDirs, expectCode, makeTable, range, readIds, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

/** Writes offsets [from, to) of partition dt, bucket; ids = base + offset. */
async function put(w: TableWrite, dt: string, bucket: number, from: number, to: number, base: number): Promise<void> {
  await w.write(rtBatch(range(from, to), { dt, ids: range(from, to).map((o) => base + o) }), { partition: { dt }, bucket });
}

/** Names of the files under `dir` (recursively) ending in `suffix`, sorted. */
function filesUnder(dir: string, suffix: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ name: string; isFile(): boolean }>)
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => e.name)
    .sort();
}

const offsetsProperty = async (table: Table, id: number) => (await table.snapshot(id)).properties?.["realtime.offsets"];

/** A partitioned table with committed progress a/0 [0,5), a/1 [0,2), b/1 [0,3): ids 0..4, 100..101, 200..202. */
async function seeded(): Promise<{ table: Table; ctx: RealtimeContext; w: TableWrite; s1: number }> {
  const table = await makeTable({}, { partitioned: true });
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
  await put(w, "a", 0, 0, 5, 0);
  await put(w, "a", 1, 0, 2, 100);
  await put(w, "b", 1, 0, 3, 200);
  const s1 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
  await w.refreshCommittedSnapshot(s1);
  return { table, ctx, w, s1 };
}

describe("Table.truncate", () => {
  it("deletes every row and records an empty offsets map: readOffset reports the reset", async () => {
    const { table, ctx, w, s1 } = await seeded();
    const s2 = await table.truncate({ commitUser: "admin" });
    expect(s2).toBe(s1 + 1);
    const snapshot = await table.snapshot(s2);
    expect(snapshot.commitKind).toBe("OVERWRITE");
    expect(snapshot.totalRecordCount).toBe(0n);
    expect(readFileSync(snapshot.properties!["realtime.offsets"], "utf8")).toBe('{\n    "version": 1,\n    "offsets": []\n}');
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "a" }, bucket: 0 })).toBe(-1n);
    expect(await RealtimeSnapshotOffsets.readOffset(table, s1, { partition: { dt: "a" }, bucket: 0 })).toBe(5n);
    expect(await readIds(table)).toEqual([]);
    // the context held the truncated data: refresh invalidates it
    await expectCode(w.refreshCommittedSnapshot(s2), "CONTEXT_INVALIDATED");
    expect(ctx.invalidatedReason).toMatch(/overwrote .*partition \{dt=a\} bucket 0/);
    // a new context starts the partition-buckets over from the upstream's initial position
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "rt", realtime: ctx2 });
    await put(w2, "a", 0, 0, 2, 1000);
    const s3 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w2.prepareCommitWithProgress(2), 2);
    await w2.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s3)).toEqual([{ partition: { dt: "a" }, bucket: 0, offset: 2n }]);
    expect(await readIds(table)).toEqual([1000, 1001]);
  });

  it("on a table without progress writes no offsets file; on an empty table creates the first snapshot", async () => {
    const table = await makeTable({ "realtime.enabled": false });
    expect(await table.truncate({ commitUser: "admin" })).toBe(1);
    const w = await table.newWrite({ commitUser: "plain" });
    await w.write(rtBatch([0, 1]).selectAt([1, 2, 3, 4]), { bucket: 0 });
    await table.newCommit({ commitUser: "plain" }).commit(await w.prepareCommit());
    expect(await table.truncate({ commitUser: "admin" })).toBe(3);
    expect(await offsetsProperty(table, 3)).toBeUndefined();
    expect((await table.fileIO.listStatus(`${table.location}/metadata`)).length).toBe(0);
    expect(await readIds(table)).toEqual([]);
  });
});

describe("Table.dropPartitions", () => {
  it("resets exactly the dropped partitions' progress; only contexts holding them are invalidated", async () => {
    const { table, w } = await seeded();
    // a second context holding only partition a (memory tail a/0 [5,7))
    const ctxA = await RealtimeContext.create();
    const wA = await table.newWrite({ commitUser: "rtA", realtime: ctxA });
    await put(wA, "a", 0, 5, 7, 0);
    const s2 = await table.dropPartitions([{ dt: "b" }], { commitUser: "admin" });
    expect((await table.snapshot(s2!)).commitKind).toBe("OVERWRITE");
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 5n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
    ]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "b" }, bucket: 1 })).toBe(-1n);
    expect(await readIds(table)).toEqual([0, 1, 2, 3, 4, 100, 101]);
    await wA.refreshCommittedSnapshot(s2!);
    expect(ctxA.invalidatedReason).toBeNull();
    expect(await readIds(table, { ctx: ctxA })).toEqual([0, 1, 2, 3, 4, 5, 6, 100, 101]);
    const s3 = await table.newCommit({ commitUser: "rtA" }).commitWithProgress(await wA.prepareCommitWithProgress(1), 1);
    await wA.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s3)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 7n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
    ]);
    await expectCode(w.refreshCommittedSnapshot(s2!), "CONTEXT_INVALIDATED");
  });

  it("dropping a partition without progress keeps the offsets file; bad specs change nothing", async () => {
    const { table, s1 } = await seeded();
    const ordinary = await table.newWrite({ commitUser: "plain" });
    await ordinary.write(rtBatch([0], { dt: "c", ids: [300] }).selectAt([1, 2, 3, 4]), { bucket: 0, partition: { dt: "c" } });
    const s2 = (await table.newCommit({ commitUser: "plain" }).commit(await ordinary.prepareCommit()))!;
    const s3 = (await table.dropPartitions([{ dt: "c" }, { dt: "nonexistent" }], { commitUser: "admin" }))!;
    expect(await offsetsProperty(table, s3)).toBe(await offsetsProperty(table, s1));
    expect(await readIds(table)).toEqual([0, 1, 2, 3, 4, 100, 101, 200, 201, 202]);
    await expectCode(table.dropPartitions([], { commitUser: "admin" }), "INVALID_ARGUMENT");
    await expectCode(table.dropPartitions([{ region: "x" }], { commitUser: "admin" }), "INVALID_ARGUMENT");
    await expectCode(table.dropPartitions([{}], { commitUser: "admin" }), "INVALID_ARGUMENT");
    expect((await table.latestSnapshot())!.id).toBe(s3);
    expect(s3).toBe(s2 + 1);
    const unpartitioned = await makeTable();
    await expectCode(unpartitioned.dropPartitions([{ dt: "a" }], { commitUser: "admin" }), "INVALID_ARGUMENT");
  });
});

describe("TableCommit.overwrite with real-time progress", () => {
  it("overwriting a partition the context never wrote keeps its progress and the context; overwriting its own resets it", async () => {
    const { table, ctx, w, s1 } = await seeded();
    const ordinary = await table.newWrite({ commitUser: "plain" });
    await ordinary.write(rtBatch([0, 1], { dt: "c", ids: [300, 301] }).selectAt([1, 2, 3, 4]), { bucket: 0, partition: { dt: "c" } });
    await table.newCommit({ commitUser: "plain" }).commit(await ordinary.prepareCommit());
    await ordinary.write(rtBatch([0], { dt: "c", ids: [310] }).selectAt([1, 2, 3, 4]), { bucket: 1, partition: { dt: "c" } });
    const s3 = (await table.newCommit({ commitUser: "plain" }).overwrite(await ordinary.prepareCommit(), { dt: "c" }))!;
    expect((await table.snapshot(s3)).commitKind).toBe("OVERWRITE");
    expect(await offsetsProperty(table, s3)).toBe(await offsetsProperty(table, s1));
    await w.refreshCommittedSnapshot(s3);
    expect(ctx.invalidatedReason).toBeNull();
    expect(await readIds(table, { ctx })).toEqual([0, 1, 2, 3, 4, 100, 101, 200, 201, 202, 310]);
    // dynamic partition overwrite of partition b (the context wrote b/1): b's progress resets
    await ordinary.write(rtBatch([0], { dt: "b", ids: [320] }).selectAt([1, 2, 3, 4]), { bucket: 0, partition: { dt: "b" } });
    const s4 = (await table.newCommit({ commitUser: "plain" }).overwrite(await ordinary.prepareCommit()))!;
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s4)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 5n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
    ]);
    expect(await readIds(table)).toEqual([0, 1, 2, 3, 4, 100, 101, 310, 320]);
    await expectCode(w.refreshCommittedSnapshot(s4), "CONTEXT_INVALIDATED");
    await ordinary.close();
  });
});

describe("refresh across OVERWRITE snapshots that delete no data file", () => {
  it("keeps the context and its progress (Java commits deletion-vector-only changes as OVERWRITE)", async () => {
    const { table, ctx, w, s1 } = await seeded();
    const dvShaped = (await new FileStoreCommit(table.fileIO, table.location, table.schema, "dv-like").overwrite([], () => false, BATCH_COMMIT_IDENTIFIER))!;
    expect((await table.snapshot(dvShaped)).commitKind).toBe("OVERWRITE");
    await w.refreshCommittedSnapshot(dvShaped);
    expect(ctx.invalidatedReason).toBeNull();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual(await RealtimeSnapshotOffsets.readAllOffsets(table, s1));
    await put(w, "a", 0, 5, 6, 0);
    const s3 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    await w.refreshCommittedSnapshot(s3);
    await w.close();
    expect(await RealtimeSnapshotOffsets.readOffset(table, s3, { partition: { dt: "a" }, bucket: 0 })).toBe(6n);
  });
});

describe("Table.rollbackTo", () => {
  it("restores the target's rows and progress; contexts past it fail until recreated", async () => {
    const { table, ctx, w, s1 } = await seeded();
    await put(w, "a", 0, 5, 8, 0);
    await put(w, "b", 1, 3, 4, 200);
    const s2 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    await w.refreshCommittedSnapshot(s2);
    await put(w, "a", 0, 8, 9, 0); // memory tail
    const dataFilesOf = async (id: number) => (await table.manifestStore.liveEntries(await table.snapshot(id))).map((e) => e.file.fileName).sort();
    const liveAtTarget = await dataFilesOf(s1);
    expect((await dataFilesOf(s2)).length).toBe(liveAtTarget.length + 2);
    const offsetsAt = [(await offsetsProperty(table, s1))!, (await offsetsProperty(table, s2))!];
    await table.rollbackTo(s1);
    // the files only snapshot s2 referenced are gone: data files, its offsets file, its manifests
    expect(filesUnder(table.location, ".parquet")).toEqual(liveAtTarget);
    expect(offsetsAt.map((p) => existsSync(p))).toEqual([true, false]);
    const target = await table.snapshot(s1);
    expect(filesUnder(`${table.location}/manifest`, "").length).toBe(
      new Set([target.baseManifestList, target.deltaManifestList, ...(await table.manifestStore.dataManifests(target)).map((m) => m.fileName)]).size,
    );
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([s1]);
    expect((await table.latestSnapshot())!.id).toBe(s1);
    expect(readFileSync(`${table.location}/snapshot/LATEST`, "utf8")).toBe(String(s1));
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 5n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
      { partition: { dt: "b" }, bucket: 1, offset: 3n },
    ]);
    expect(await readIds(table)).toEqual([0, 1, 2, 3, 4, 100, 101, 200, 201, 202]);
    // the old context is ahead of the table now
    const behind = await expectCode(readIds(table, { ctx }), "INVALID_ARGUMENT");
    expect(behind.message).toMatch(/is behind the real-time context's committed offset 8/);
    await expectCode(w.refreshCommittedSnapshot(s1), "INVALID_ARGUMENT");
    // a recreated context resumes from the restored progress; the reused snapshot id resolves anew
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "rt2", realtime: ctx2 });
    await expectCode(w2.write(rtBatch([4]), { partition: { dt: "a" }, bucket: 0 }), "OFFSET_INVALID");
    await put(w2, "a", 0, 5, 6, 500);
    const again = await table.newCommit({ commitUser: "rt2" }).commitWithProgress(await w2.prepareCommitWithProgress(1), 1);
    await w2.close();
    expect(again).toBe(s2);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, again)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 6n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
      { partition: { dt: "b" }, bucket: 1, offset: 3n },
    ]);
    expect(await readIds(table)).toEqual([0, 1, 2, 3, 4, 100, 101, 200, 201, 202, 505]);
  });

  it("refuses a missing or expired target and changes nothing", async () => {
    const { table, s1 } = await seeded();
    const w = await table.newWrite({ commitUser: "plain" });
    await w.write(rtBatch([0], { ids: [9] }).selectAt([1, 2, 3, 4]), { bucket: 0, partition: { dt: "z" } });
    const s2 = (await table.newCommit({ commitUser: "plain" }).commit(await w.prepareCommit()))!;
    const missing = await expectCode(table.rollbackTo(s2 + 1), "NOT_FOUND");
    expect(missing.message).toBe(`cannot roll ${table.identifier} back to snapshot ${s2 + 1}: it does not exist or has expired, and no tag holds it (retained snapshots are ${s1}..${s2})`);
    await expectCode(table.rollbackTo(0), "INVALID_ARGUMENT");
    await expectCode(table.rollbackTo(1.5), "INVALID_ARGUMENT");
    await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 });
    const expired = await expectCode(table.rollbackTo(s1), "NOT_FOUND");
    expect(expired.message).toBe(`cannot roll ${table.identifier} back to snapshot ${s1}: it does not exist or has expired, and no tag holds it (retained snapshots are ${s2}..${s2})`);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([s2]);
    await table.rollbackTo(s2); // the latest: nothing to do
    expect((await table.latestSnapshot())!.id).toBe(s2);
    await expectCode((await table.atSnapshot(s2)).rollbackTo(s2), "UNSUPPORTED");
  });
});

describe.skipIf(javaOracleUnavailable() !== null || pypaimonUnavailable() !== null)("table operations read back in Java Paimon and pypaimon", () => {
  it("dropPartitions, truncate and rollbackTo leave tables both oracles read as paimon-rt does, and Java commits on top", async () => {
    const warehouse = tempDir();
    const table = await makeTable({}, { warehouse, name: "ops", partitioned: true });
    const w = await table.newWrite({ commitUser: "plain" });
    for (const [dt, ids] of [["a", [1, 2]], ["b", [3]], ["c", [4, 5]]] as const) {
      await w.write(rtBatch([...ids], { dt, ids: [...ids] }).selectAt([1, 2, 3, 4]), { partition: { dt } });
    }
    await table.newCommit({ commitUser: "plain" }).commit(await w.prepareCommit());
    const dropped = (await table.dropPartitions([{ dt: "b" }], { commitUser: "admin" }))!;
    const idsOf = async (oracle: "java" | "pypaimon", snapshot?: number) =>
      (await readTable(oracle, warehouse, "db.ops", { snapshot })).map((r) => Number(r.id)).sort((x, y) => x - y);
    for (const oracle of ["java", "pypaimon"] as const) expect(await idsOf(oracle)).toEqual([1, 2, 4, 5]);
    await table.truncate({ commitUser: "admin" });
    for (const oracle of ["java", "pypaimon"] as const) expect(await idsOf(oracle)).toEqual([]);
    await table.rollbackTo(dropped);
    for (const oracle of ["java", "pypaimon"] as const) expect(await idsOf(oracle)).toEqual([1, 2, 4, 5]);
    const [javaSnapshot] = await writeTable("java", warehouse, "db.ops", { commits: [[{ id: "6", dt: "b" }]] });
    expect(javaSnapshot).toBe(dropped + 1);
    expect(await readIds(table)).toEqual([1, 2, 4, 5, 6]);
    await w.close();
  }, 120_000);
});
