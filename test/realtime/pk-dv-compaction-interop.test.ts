// A real-time PK deletion-vector table whose deletion vectors paimon-rt's own (non-full, lookup)
// compaction wrote reads exactly in Java Paimon and pypaimon: seed 000's PK DV mode keeps
// Paimon's normal deletion vectors and compaction. Real-time commits (upserts, deletes) continue
// after each compaction; Java and pypaimon also read older snapshots (a DV batch read skips level
// 0, so a real-time commit after a compaction shows that compaction's rows). Skipped without the oracles.
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/index.js";
import { assignBuckets } from "../../src/kernel/hash.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTables, type OracleRow } from "../interop/oracle/harness.js";
import { rng } from "../pk/helpers.js";
import { cleanupDirs, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);
const noJava = javaOracleUnavailable();
const noPython = pypaimonUnavailable();
const BUCKETS = 2;

type Row = { dt: string; id: number; name: string | null };
type Op = { dt: string; id: number; name: string | null; kind: RowKind };

const sortRows = (rows: Row[]) => rows.sort((a, b) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : a.id - b.id));
const modelRows = (model: ReadonlyMap<string, Row>) => sortRows([...model.values()].map((r) => ({ ...r })));
const oracleRows = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ dt: r.dt as string, id: Number(r.id), name: r.name as string | null })));
const ourRows = async (table: Table, args: { ctx?: RealtimeContext; snapshotId?: number } = {}) =>
  sortRows((await readRows(table, args)).map((r) => ({ dt: r.dt as string, id: r.id as number, name: r.name as string | null })));

/** Java Paimon's bucket of each id (the bucket key is the trimmed primary key, id). */
const bucketsOf = (ids: number[]) => assignBuckets([{ type: "int64", length: ids.length, values: BigInt64Array.from(ids.map(BigInt)) }], BUCKETS);

/** A round of upserts (INSERT or UPDATE_AFTER) and deletes over ids 0..ids-1 of partitions a and b. */
function round(rand: () => number, tag: string, count: number, ids = 16): Op[] {
  return Array.from({ length: count }, (_, i) => {
    const dt = rand() < 0.5 ? "a" : "b";
    const id = Math.floor(rand() * ids);
    const p = rand();
    if (p < 0.2) return { dt, id, name: null, kind: RowKind.DELETE };
    return { dt, id, name: rand() < 0.1 ? null : `${tag}-${i}`, kind: p < 0.5 ? RowKind.UPDATE_AFTER : RowKind.INSERT };
  });
}

/** Non-full compaction of every bucket by an ordinary writer, committed: its snapshot. */
async function compactMinor(table: Table): Promise<number> {
  const w = await table.newWrite({ commitUser: "compactor" });
  await w.compact({ full: false });
  const snapshot = await table.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
  await w.close();
  expect(snapshot).not.toBeNull();
  return snapshot!;
}

describe.skipIf(noJava !== null)("real-time PK DV table compacted by paimon-rt: interop", () => {
  it("Java and pypaimon read the deletion vectors of paimon-rt's lookup compaction between real-time commits; Java and pypaimon time-travel", async () => {
    const warehouse = tempDir();
    const name = "rt_pk_dv_compacted";
    const table = await makeTable({ bucket: BUCKETS, "deletion-vectors.enabled": true }, { warehouse, name, primaryKeys: ["dt", "id"], partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    const rand = rng(2024);
    const model = new Map<string, Row>();
    const nextOffset = new Map<string, number>();
    let commitId = 0;

    /** Writes the ops through the real-time writer (per partition and Java bucket, offsets increasing per partition-bucket), then commits with progress. */
    const realtimeCommit = async (ops: Op[]): Promise<number> => {
      const buckets = bucketsOf(ops.map((o) => o.id));
      for (const dt of ["a", "b"]) {
        for (let bucket = 0; bucket < BUCKETS; bucket++) {
          const group = ops.filter((o, i) => o.dt === dt && buckets[i] === bucket);
          if (group.length === 0) continue;
          const key = `${dt}|${bucket}`;
          const first = nextOffset.get(key) ?? 0;
          nextOffset.set(key, first + group.length);
          const batch = rtBatch(group.map((_, i) => first + i), { ids: group.map((o) => o.id), dt, names: group.map((o) => o.name) });
          await w.write(batch, { partition: { dt }, bucket, rowKinds: group.map((o) => o.kind) });
        }
      }
      for (const o of ops) {
        if (o.kind === RowKind.DELETE) model.delete(`${o.dt}|${o.id}`);
        else model.set(`${o.dt}|${o.id}`, { dt: o.dt, id: o.id, name: o.name });
      }
      commitId++;
      const snapshot = await commit.commitWithProgress(await w.prepareCommitWithProgress(commitId), commitId);
      await w.refreshCommittedSnapshot(snapshot);
      expect(await ourRows(table, { ctx })).toEqual(modelRows(model));
      return snapshot;
    };
    const liveFiles = async (snapshotId: number) => (await table.manifestStore.liveEntries(await table.snapshot(snapshotId))).map((e) => e.file);
    /** Data files with a deletion vector in the snapshot's index manifest, and the vectors' total cardinality. */
    const deletionVectors = async (snapshotId: number) => {
      const entries = await table.manifestStore.indexEntries(await table.snapshot(snapshotId));
      const ranges = entries.filter((e) => e.indexFile.indexType === "DELETION_VECTORS").flatMap((e) => e.indexFile.dvRanges ?? []);
      return { files: new Set(ranges.map((r) => r.dataFileName)), deleted: ranges.reduce((n, r) => n + Number(r.cardinality ?? 0n), 0) };
    };

    // Each level's files are much larger than the level-0 runs compacted onto them, so the lookup
    // compaction (Java forcePickL0, extended by size ratio) stops below them and marks their rows
    await realtimeCommit(round(rand, "r1", 8000, 8000));
    await realtimeCommit(round(rand, "r2", 8000, 8000));
    // level 0 only: the first compaction moves it to the max level, nothing to mark deleted yet
    const firstCompaction = await compactMinor(table);
    await w.refreshCommittedSnapshot(firstCompaction);
    const maxLevel = Math.max(...(await liveFiles(firstCompaction)).map((f) => f.level));
    expect((await liveFiles(firstCompaction)).every((f) => f.level === maxLevel && maxLevel > 0)).toBe(true);
    expect((await deletionVectors(firstCompaction)).files.size).toBe(0);

    await realtimeCommit(round(rand, "r3", 2000, 2000));
    const beforeDvCompaction = await realtimeCommit(round(rand, "r4", 2000, 2000));
    const atDvCompaction = modelRows(model);
    // level 0 goes one level below the max; rows it supersedes in the max level get deletion vectors
    const dvCompaction = await compactMinor(table);
    await w.refreshCommittedSnapshot(dvCompaction);
    const dvFiles = await liveFiles(dvCompaction);
    expect([...new Set(dvFiles.map((f) => f.level))].sort()).toEqual([maxLevel - 1, maxLevel]);
    const firstDvs = await deletionVectors(dvCompaction);
    expect(firstDvs.files.size).toBeGreaterThan(0);
    expect(firstDvs.deleted).toBeGreaterThan(0);
    expect([...firstDvs.files].every((f) => dvFiles.some((d) => d.fileName === f && d.level === maxLevel))).toBe(true);
    expect(await ourRows(table, { snapshotId: dvCompaction })).toEqual(atDvCompaction);

    await realtimeCommit(round(rand, "r5", 24));
    const afterDvCompaction = await realtimeCommit(round(rand, "r6", 24));
    // a batch read of a DV table skips level 0: the real-time commits since stay hidden
    expect(await ourRows(table, { snapshotId: afterDvCompaction })).toEqual(atDvCompaction);
    // a second lookup compaction adds deletion vectors on both higher levels, merged with the first ones
    const lastCompaction = await compactMinor(table);
    const lastFiles = await liveFiles(lastCompaction);
    expect(lastFiles.some((f) => f.level === 0)).toBe(false);
    const lastDvs = await deletionVectors(lastCompaction);
    expect(lastDvs.deleted).toBeGreaterThan(firstDvs.deleted);
    expect([...lastDvs.files].some((f) => lastFiles.some((d) => d.fileName === f && d.level === maxLevel - 1))).toBe(true);
    const final = modelRows(model);
    expect(await ourRows(table)).toEqual(final);
    expect(await ourRows(table, { ctx })).toEqual(final);

    const requests = [
      { snapshot: undefined, rows: final },
      { snapshot: dvCompaction, rows: atDvCompaction },
      { snapshot: afterDvCompaction, rows: atDvCompaction },
      { snapshot: beforeDvCompaction, rows: await ourRows(table, { snapshotId: firstCompaction }) },
    ];
    const java = await readTables("java", requests.map((r) => ({ warehouse, identifier: `db.${name}`, snapshot: r.snapshot })));
    java.forEach((rows, i) => {
      if (rows instanceof Error) throw rows;
      expect(oracleRows(rows), `Java at snapshot ${requests[i].snapshot ?? "latest"}`).toEqual(requests[i].rows);
    });
    if (noPython === null) {
      const python = await readTables("pypaimon", requests.map((r) => ({ warehouse, identifier: `db.${name}`, snapshot: r.snapshot })));
      python.forEach((rows, i) => {
        if (rows instanceof Error) throw rows;
        expect(oracleRows(rows), `pypaimon at snapshot ${requests[i].snapshot ?? "latest"}`).toEqual(requests[i].rows);
      });
    }
    await w.close();
  }, 300_000);
});
