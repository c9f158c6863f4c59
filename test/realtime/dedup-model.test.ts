// Randomized model test of the real-time append-deduplicate mode (seed 000 "Append Deduplicate /
// Offset DV"; issue 11 "Proof"): keyed inserts, updates and deletes across segments, seals (with
// and without spill), prepares, partial and full commits, refreshes, compactions by an ordinary
// writer (also between a prepare and its commit) and context restarts with replay, compared with
// a per-partition "last row per key" model after every step: the union read of the context, and
// the committed table read without it; and exact key lookups of the union (issue 11) after every
// step.
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { and, col, type Predicate, type RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, compactFully, readRows, tempDir } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";
import { isRetract, ModelDriver, modelOps, type ModelEvent, type ModelLayout, type ModelOp } from "./model-driver.js";
import { realtimeReadCounters, setKeyLookupFastPath } from "../../src/realtime/read.js";
import { dedupWriteCounters, setDedupWriteFastPath } from "../../src/realtime/writer.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

/** Partition-buckets written: [dt, bucket]. The same key in two partitions is two keys. */
const TARGETS: Array<[string, number]> = [
  ["d1", 0],
  ["d1", 1],
  ["d2", 0],
];
/** Keys of a bucket: ids bucket * 100 + key, so that each id lives in one bucket. */
const idOf = (target: number, key: number) => TARGETS[target][1] * 100 + key;

const LAYOUT: ModelLayout = {
  targets: TARGETS.length,
  batchOf: (t, events) => dedupBatch(events.map((e) => [idOf(t, e.key), e.offset]), { dt: TARGETS[t][0] }),
  targetOf: (t) => ({ partition: { dt: TARGETS[t][0] }, bucket: TARGETS[t][1] }),
  targetOfProgress: (p) => TARGETS.findIndex(([dt, b]) => dt === p.partition.dt && b === p.bucket),
};

/** "dt:id" → offset of the key's live row, over the events below each target's end. */
function modelView(log: ModelEvent[][], ends: number[]): Map<string, number> {
  const out = new Map<string, number>();
  TARGETS.forEach(([dt], t) => {
    for (const e of log[t]) {
      if (e.offset >= ends[t]) break;
      const k = `${dt}:${idOf(t, e.key)}`;
      if (isRetract(e.kind)) out.delete(k);
      else out.set(k, e.offset);
    }
  });
  return out;
}

async function tableView(table: Table, ctx?: RealtimeContext): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of await readRows(table, { ctx })) {
    const k = `${r.dt as string}:${r.id as number}`;
    expect(out.has(k), `two rows of ${k}`).toBe(false); // one row per key
    const offset = Number(r._REALTIME_OFFSET as bigint);
    expect(r.v).toBe(`v${offset}`); // the row written at that offset
    out.set(k, offset);
  }
  return out;
}

const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));

/**
 * Exact key lookups of the union (`id = k`, `id IN (…)`, and `id = k` with another conjunct:
 * memory answered by the batches' key indexes, committed files read selectively through the
 * chunk cache) return the model's rows of those ids, in every partition.
 */
async function expectLookups(table: Table, ctx: RealtimeContext, model: Map<string, number>, step: number): Promise<void> {
  const a = step % 8;
  const b = 100 + ((3 * step) % 8);
  const lookups: Array<[Predicate, (id: number, offset: number) => boolean]> = [
    [col("id").eq(a), (id) => id === a],
    [col("id").in([b, (step + 5) % 8, 999]), (id) => id === b || id === (step + 5) % 8],
    [and(col("id").eq(b), col("v").ne(`v${step}`)), (id, offset) => id === b && `v${offset}` !== `v${step}`],
  ];
  for (const [filter, wanted] of lookups) {
    const expected = new Map([...model].filter(([k, offset]) => wanted(Number(k.split(":")[1]), offset)));
    for (const fast of [true, false]) {
      // the synchronous path of lookups answered from memory, and the general path
      setKeyLookupFastPath(fast);
      const got = new Map<string, number>();
      try {
        for (const r of await readRows(table, { ctx, filter, predicateFilter: true })) got.set(`${r.dt as string}:${r.id as number}`, Number(r._REALTIME_OFFSET as bigint));
      } finally {
        setKeyLookupFastPath(true);
      }
      expect(sorted(got), `lookup ${JSON.stringify(filter)} (fast path ${fast})`).toEqual(sorted(expected));
    }
  }
}

async function runSequence(table: Table, ops: ModelOp[], tmp: string): Promise<void> {
  const d = new ModelDriver(table, LAYOUT, tmp);
  await d.start();
  for (const [step, op] of ops.entries()) {
    // an ordinary writer compacts (applying and dropping DVs), also while prepares are outstanding
    if (!(await d.step(op)) && (await table.latestSnapshot()) !== null) await compactFully(table);
    expect(sorted(await tableView(table, d.ctx))).toEqual(sorted(modelView(d.log, d.next)));
    expect(sorted(await tableView(table))).toEqual(sorted(modelView(d.log, d.committedEnd)));
    await expectLookups(table, d.ctx, modelView(d.log, d.next), step);
  }
  await d.finish();
  expect(d.ctx.getMetrics().realtimeTotalRowCount).toBe(0);
  expect(sorted(await tableView(table))).toEqual(sorted(modelView(d.log, d.next)));
  if (d.lastSnapshot !== null) await compactFully(table);
  expect(sorted(await tableView(table))).toEqual(sorted(modelView(d.log, d.next)));
  await d.ctx.close();
}

it("append deduplicate: matches a last-row-per-key model after every step over many random sequences, with and without spill", async () => {
  let run = 0;
  const memoryOnly = realtimeReadCounters.memoryOnly;
  const writesNow = dedupWriteCounters.now;
  await fc.assert(
    // writes through the synchronous path where nothing has to wait or load, or all under the lock
    fc.asyncProperty(modelOps(TARGETS.length), fc.boolean(), fc.boolean(), async (ops, spill, fastWrites) => {
      const options: Record<string, string> = spill ? { "realtime.spill-enabled": "true", "read.batch-size": "3" } : {};
      const table = await makeDedupTable(options, { warehouse: `memory://rt-dedup-model-${run++}`, partitioned: true });
      setDedupWriteFastPath(fastWrites);
      try {
        await runSequence(table, ops, tempDir());
      } finally {
        setDedupWriteFastPath(true);
      }
    }),
    { numRuns: runs(60), seed: 20261202 },
  );
  // lookups took the synchronous path (rows in memory only) and the general one (rows in files); so did writes
  expect(realtimeReadCounters.memoryOnly).toBeGreaterThan(memoryOnly);
  expect(dedupWriteCounters.now).toBeGreaterThan(writesNow);
}, 600_000);

it("append deduplicate: the same model with a lookup cache too small to keep a file's keys (every lookup evicts and reloads, sidecars read in 16-byte pages)", async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(modelOps(TARGETS.length), async (ops) => {
      const options = { "lookup.cache-max-memory-size": "600 b", "cache-page-size": "16 b", "lookup.cache.high-priority-pool-ratio": "0.5" };
      const table = await makeDedupTable(options, { warehouse: `memory://rt-dedup-model-small-${run++}`, partitioned: true });
      await runSequence(table, ops, tempDir());
    }),
    { numRuns: runs(40), seed: 20261203 },
  );
}, 600_000);
