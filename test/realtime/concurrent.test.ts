// Writers, preparers, a committer, a refresher and readers interleaved with async scheduling:
// every read must be a gap-free, duplicate-free prefix of what was written per partition-bucket.
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, type RealtimeCommitProgress, type TableWrite } from "../../src/index.js";
import { cleanupDirs, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

for (const spill of [false, true]) {
  describe(`concurrent real-time lifecycle${spill ? " with spill" : ""}`, () => {
    it("reads are always gap-free, duplicate-free prefixes", async () => {
      const table = await makeTable(spill ? { "realtime.spill-enabled": true, "read.batch-size": 7 } : { "read.batch-size": 7 });
      const ctx = await RealtimeContext.create();
      const tmp = tempDir();
      const buckets = [0, 1];
      const writers = new Map<number, TableWrite>();
      for (const b of buckets) writers.set(b, await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp }));
      const written = new Map<number, number[]>(buckets.map((b) => [b, []]));
      const outstanding: RealtimeCommitProgress[] = [];
      const committedSnapshots: number[] = [];
      let prepareId = 0;
      let stop = false;
      let reads = 0;
      const random = rng(spill ? 7 : 42);

      const writer = async (bucket: number) => {
        let offset = 0;
        const w = writers.get(bucket)!;
        for (let round = 0; round < 100; round++) {
          const n = 1 + Math.floor(random() * 20);
          const offsets: number[] = [];
          for (let i = 0; i < n; i++) {
            offset += 1 + (random() < 0.2 ? Math.floor(random() * 5) : 0);
            offsets.push(offset);
          }
          const ids = offsets.map((o) => bucket * 1_000_000 + o);
          await w.write(rtBatch(offsets, { ids }), { bucket });
          written.get(bucket)!.push(...ids);
          if (random() < 0.1) await w.seal();
          await sleep(random() < 0.5 ? 0 : 1);
        }
      };
      const preparer = async () => {
        while (!stop) {
          await sleep(3);
          for (const w of writers.values()) {
            const id = ++prepareId;
            outstanding.push(...(await w.prepareCommitWithProgress(id)));
          }
        }
      };
      let commitId = 0;
      const committer = async () => {
        const commit = table.newCommit({ commitUser: "u" });
        while (!stop || outstanding.length > 0) {
          await sleep(5);
          if (outstanding.length === 0) continue;
          const batch = outstanding.splice(0, outstanding.length);
          committedSnapshots.push(await commit.commitWithProgress(batch, ++commitId));
        }
      };
      const refresher = async () => {
        while (!stop) {
          await sleep(4);
          const last = committedSnapshots[committedSnapshots.length - 1];
          if (last !== undefined) await writers.get(0)!.refreshCommittedSnapshot(last);
        }
      };
      const reader = async () => {
        while (!stop) {
          const snapshotBefore = buckets.map((b) => written.get(b)!.length);
          const rows = await readRows(table, { ctx });
          const byBucket = new Map<number, number[]>(buckets.map((b) => [b, []]));
          for (const r of rows) byBucket.get(Math.floor((r.id as number) / 1_000_000))!.push(r.id as number);
          for (const b of buckets) {
            const got = byBucket.get(b)!;
            const all = written.get(b)!;
            expect(got.length).toBeGreaterThanOrEqual(snapshotBefore[b]);
            expect(got).toEqual(all.slice(0, got.length)); // in order, no gaps, no duplicates
          }
          reads++;
          await sleep(1);
        }
      };
      const writersDone = Promise.all(buckets.map((b) => writer(b)));
      const background = [preparer(), committer(), refresher(), reader(), reader()];
      await writersDone;
      stop = true;
      await Promise.all(background);
      // final checkpoint
      for (const w of writers.values()) outstanding.push(...(await w.prepareCommitWithProgress(++prepareId)));
      if (outstanding.length > 0) committedSnapshots.push(await table.newCommit({ commitUser: "u" }).commitWithProgress(outstanding.splice(0), ++commitId));
      await writers.get(0)!.refreshCommittedSnapshot(committedSnapshots[committedSnapshots.length - 1]);
      for (const w of writers.values()) await w.close();
      expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
      const disk = (await readRows(table)).map((r) => r.id as number).sort((a, b) => a - b);
      expect(disk).toEqual([...written.get(0)!, ...written.get(1)!].sort((a, b) => a - b));
      expect(reads).toBeGreaterThan(3);
      expect(committedSnapshots.length).toBeGreaterThan(1);
    });
  });
}
