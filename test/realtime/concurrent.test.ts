// Writers, preparers, a committer, a refresher and readers interleaved with async scheduling:
// every read must be a gap-free, duplicate-free prefix of what was written per partition-bucket.
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext } from "../../src/index.js";
import { runConcurrentLifecycle } from "./concurrent-lifecycle.js";
import { cleanupDirs, makeTable, readRows, rtBatch } from "./helpers.js";

afterAll(cleanupDirs);

for (const spill of [false, true]) {
  describe(`concurrent real-time lifecycle${spill ? " with spill" : ""}`, () => {
    it("reads are always gap-free, duplicate-free prefixes", async () => {
      const table = await makeTable(spill ? { "realtime.spill-enabled": true, "read.batch-size": 7 } : { "read.batch-size": 7 });
      const ctx = await RealtimeContext.create();
      const buckets = [0, 1];
      const written = await runConcurrentLifecycle<number>({
        table,
        ctx,
        buckets,
        seed: spill ? 7 : 42,
        async write(w, bucket, offsets) {
          const ids = offsets.map((o) => bucket * 1_000_000 + o);
          await w.write(rtBatch(offsets, { ids }), { bucket });
          return ids;
        },
        checkRead(rows, ids, before) {
          const byBucket = new Map<number, number[]>(buckets.map((b) => [b, []]));
          for (const r of rows) byBucket.get(Math.floor((r.id as number) / 1_000_000))!.push(r.id as number);
          for (const b of buckets) {
            const got = byBucket.get(b)!;
            expect(got.length).toBeGreaterThanOrEqual(before[b]!);
            expect(got).toEqual(ids.get(b)!.slice(0, got.length)); // in order, no gaps, no duplicates
          }
        },
      });
      const disk = (await readRows(table)).map((r) => r.id as number).sort((a, b) => a - b);
      expect(disk).toEqual([...written.get(0)!, ...written.get(1)!].sort((a, b) => a - b));
    });
  });
}
