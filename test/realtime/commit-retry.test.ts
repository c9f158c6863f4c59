// Real-time commits that lose their snapshot id to a concurrent compaction retry against the new
// latest snapshot (seed 000 "Snapshot conflicts are retried internally against the latest
// snapshot"; issues 10 and 11): the compaction commits exactly between the real-time commit's
// attempt and its publication. PK: the L0 files and progress land on top of the compaction.
// Deduplicate: the retried attempt resolves the pending deletions again, into the compacted file.
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { FileIO } from "../../src/fs/file-io.js";
import { resolveWarehouse } from "../../src/fs/resolve.js";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, compactFully, readRows, rtBatch, tempDir } from "./helpers.js";
import { dedupBatch, dedupTableSpec } from "./dedup-helpers.js";

afterAll(cleanupDirs);

/**
 * A warehouse whose FileIO runs `beforePublish` once, right before the next snapshot file is
 * published through it (armed by the returned function), and a second catalog on the same
 * directory without the hook (for the concurrent writer).
 */
async function racingWarehouse(): Promise<{ hooked: Catalog; plain: Catalog; arm: (hook: () => Promise<void>) => { fired: () => boolean } }> {
  const dir = tempDir();
  const { fileIO } = await resolveWarehouse(dir);
  let pending: (() => Promise<void>) | null = null;
  let fired = false;
  const io = new Proxy(fileIO, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "writeFileAtomicNoReplace" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
      return async (path: string, ...rest: unknown[]) => {
        if (pending && /\/snapshot\/snapshot-\d+$/.test(path)) {
          const hook = pending;
          pending = null;
          await hook();
          fired = true;
        }
        return (value as (...a: unknown[]) => Promise<boolean>).call(target, path, ...rest);
      };
    },
  }) as FileIO;
  const hooked = await Catalog.open(dir, { fileIO: io });
  await hooked.createDatabase("db");
  return {
    hooked,
    plain: await Catalog.open(dir),
    arm: (hook) => {
      pending = hook;
      fired = false;
      return { fired: () => fired };
    },
  };
}

const ids = async (table: Table, ctx?: RealtimeContext) => (await readRows(table, { ctx })).map((r) => Number(r.id)).sort((a, b) => a - b);

describe("real-time commit retried after a concurrent compaction took its snapshot id", () => {
  it.each([
    ["PK MOR", {}],
    ["PK DV", { "deletion-vectors.enabled": "true" }],
  ] as const)("%s", async (_name, options) => {
    const { hooked, plain, arm } = await racingWarehouse();
    const fields = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "name", type: "STRING" },
      { name: "v", type: "DOUBLE" },
      { name: "dt", type: "STRING" },
    ];
    const table = await hooked.createTable("db.pk", { fields, primaryKeys: ["id"], options: { bucket: "1", "realtime.enabled": "true", ...options } });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    const commit = table.newCommit({ commitUser: "rt" });
    for (let i = 0; i < 2; i++) {
      await w.write(rtBatch([2 * i, 2 * i + 1], { ids: [i, 10 + i] }), { bucket: 0 });
      await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(i + 1), i + 1));
    }
    await w.write(rtBatch([4, 5], { ids: [0, 20] }), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.INSERT] });
    const progress = await w.prepareCommitWithProgress(3);
    const race = arm(async () => void (await compactFully(await plain.getTable("db.pk"))));
    const snapshot = await commit.commitWithProgress(progress, 3);
    expect(race.fired()).toBe(true);
    const kinds = await Promise.all([3, 4].map(async (id) => (await table.snapshot(id)).commitKind));
    expect([snapshot, kinds]).toEqual([4, ["COMPACT", "APPEND"]]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, snapshot, { partition: {}, bucket: 0 })).toBe(6n);
    await w.refreshCommittedSnapshot(snapshot);
    expect(await ids(table, ctx)).toEqual([1, 10, 11, 20]);
    await compactFully(table);
    expect(await ids(table)).toEqual([1, 10, 11, 20]);
    await w.close();
  });

  it("append deduplicate: the retried attempt resolves the deletions into the compacted file", async () => {
    const { hooked, plain, arm } = await racingWarehouse();
    const table = await hooked.createTable("db.dd", dedupTableSpec({ bucket: "1" }));
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    const commit = table.newCommit({ commitUser: "rt" });
    for (let i = 0; i < 2; i++) {
      await w.write(dedupBatch([[i, 2 * i], [10 + i, 2 * i + 1]]), { bucket: 0 });
      await w.refreshCommittedSnapshot(await commit.commitWithProgress(await w.prepareCommitWithProgress(i + 1), i + 1));
    }
    await w.write(dedupBatch([[0, 4], [11, 5], [20, 6]]), { bucket: 0, rowKinds: [RowKind.DELETE, RowKind.UPDATE_AFTER, RowKind.INSERT] });
    const progress = await w.prepareCommitWithProgress(3);
    const race = arm(async () => void (await compactFully(await plain.getTable("db.dd"))));
    const snapshot = await commit.commitWithProgress(progress, 3);
    expect(race.fired()).toBe(true);
    const kinds = await Promise.all([3, 4].map(async (id) => (await table.snapshot(id)).commitKind));
    expect([snapshot, kinds]).toEqual([4, ["COMPACT", "APPEND"]]);
    await w.refreshCommittedSnapshot(snapshot);
    const rows = async (c?: RealtimeContext) => (await readRows(table, { ctx: c })).map((r) => [Number(r.id), Number(r._REALTIME_OFFSET)]).sort((a, b) => a[0] - b[0]);
    const expected = [[1, 2], [10, 1], [11, 5], [20, 6]];
    expect(await rows(ctx)).toEqual(expected);
    expect(await rows()).toEqual(expected);
    // the deletions are in the compacted file's vector (the old files are gone)
    const plan = await table.newScan().plan();
    expect(plan.splits.flatMap((s) => s.files.map((f, i) => [Number(f.rowCount), Number(s.deletionFiles?.[i]?.cardinality ?? 0)])).sort()).toEqual([[2, 0], [4, 2]]);
    await w.close();
  });
});
