import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/realtime/index.js";
import { RealtimeSnapshotOffsets } from "../../src/realtime/offsets.js";
import { cleanupDirs, expectCode, makeTable, readIds, readRows, rtBatch, range } from "./helpers.js";

afterAll(cleanupDirs);

describe("snapshot expiry and real-time progress", () => {
  it("deletes offsets files only expired snapshots reference, and progress survives", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    for (let c = 1; c <= 4; c++) {
      await w.write(rtBatch(range((c - 1) * 10, c * 10)), { bucket: 0 });
      const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(c), c);
      await w.refreshCommittedSnapshot(snapshot);
    }
    const offsetsFiles = async () => (await table.fileIO.listStatus(`${table.location}/metadata`)).filter((f) => f.name.endsWith(".offsets")).map((f) => f.path);
    expect((await offsetsFiles()).length).toBe(4);
    const expired = await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
    expect(expired).toBe(3);
    const latest = (await table.latestSnapshot())!;
    expect(await offsetsFiles()).toEqual([latest.properties!["realtime.offsets"]]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 0 })).toBe(40n);
    await w.close();
  });

  it("expiry after every commit (snapshot.num-retained.min 1, 1 ms retained) keeps real-time progress: reads, compaction by an ordinary writer and recovery stay exact", async () => {
    const table = await makeTable({ "snapshot.num-retained.min": "1", "snapshot.time-retained": "1 ms" }, { primaryKeys: ["id"] });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    for (let c = 1; c <= 6; c++) {
      // upserts of ids 0..9 with new names, and new ids
      await w.write(rtBatch(range((c - 1) * 12, c * 12), { ids: [...range(0, 10), 100 + 2 * c, 101 + 2 * c], names: range(0, 12).map((i) => `c${c}-${i}`) }), { bucket: 0 });
      const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(c), c);
      await w.refreshCommittedSnapshot(s);
      if (c % 2 === 0) {
        const compactor = await table.newWrite({ commitUser: "compactor" });
        await compactor.compact({ bucket: 0, full: true });
        await table.newCommit({ commitUser: "compactor" }).commit(await compactor.prepareCommit());
        await compactor.close();
      }
      await new Promise((r) => setTimeout(r, 3));
      // a snapshot goes once the one after it is older than 1 ms: the newest two are left, and every committed row reads
      const snapshots = await table.listSnapshots();
      expect(snapshots.length).toBeLessThanOrEqual(2);
      expect(snapshots[snapshots.length - 1]!.id - snapshots[0]!.id).toBeLessThanOrEqual(1);
      expect(await readIds(table, { ctx })).toEqual([...range(0, 10), ...range(102, 102 + 2 * c)]);
    }
    await w.close();
    await ctx.close();
    expect((await table.listSnapshots())[0]!.id).toBeGreaterThan(5); // 6 commits, 3 compactions: most expired
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 0 })).toBe(72n);
    // a restarted writer recovers the progress from the one snapshot left (or its anchor)
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await expectCode(w2.write(rtBatch([71], { ids: [7] }), { bucket: 0 }), "OFFSET_INVALID");
    await w2.write(rtBatch([72], { ids: [7], names: ["last"] }), { bucket: 0 });
    const rows = await readRows(table, { ctx: ctx2 });
    expect(rows.find((r) => r.id === 7)!.name).toBe("last");
    await w2.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w2.prepareCommitWithProgress(7), 7));
    expect((await readRows(table)).find((r) => r.id === 7)!.name).toBe("last");
    await w2.close();
    await ctx2.close();
  });
});
