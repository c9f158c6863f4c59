import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/realtime/index.js";
import { RealtimeSnapshotOffsets } from "../../src/realtime/offsets.js";
import { cleanupDirs, makeTable, rtBatch, range } from "./helpers.js";

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
});
