// Randomized model test of real-time PK tables (PK MOR and PK DV, with and without spill):
// upserts, deletes, seals, prepares, partial and full commits, refreshes, compactions by an
// ordinary writer, and context restarts with replay, compared with a Map after every step.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, compactFully, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";
import { isRetract, ModelDriver, modelOps, type ModelEvent, type ModelLayout, type ModelOp } from "./model-driver.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

/** Targets are buckets 0 and 1 of an unpartitioned table; ids are bucket * 100 + key. */
const LAYOUT: ModelLayout = {
  targets: 2,
  batchOf: (bucket, events) => rtBatch(events.map((e) => e.offset), { ids: events.map((e) => bucket * 100 + e.key), names: events.map((e) => `v${e.stamp}`) }),
  targetOf: (bucket) => ({ bucket }),
  targetOfProgress: (p) => p.bucket,
};

/** Latest value per key ("bucket:key" → name) of the events below each bucket's end. */
function modelView(log: ModelEvent[][], ends: number[]): Map<string, string> {
  const out = new Map<string, string>();
  log.forEach((events, b) => {
    for (const e of events) {
      if (e.offset >= ends[b]) break;
      const k = `${b}:${e.key}`;
      if (isRetract(e.kind)) out.delete(k);
      else out.set(k, `v${e.stamp}`);
    }
  });
  return out;
}

async function tableView(table: Table, ctx?: RealtimeContext): Promise<Map<string, string>> {
  const rows = await readRows(table, { ctx });
  const out = new Map<string, string>();
  for (const r of rows) {
    const id = r.id as number;
    const k = `${Math.floor(id / 100)}:${id % 100}`;
    expect(out.has(k)).toBe(false); // one row per key
    out.set(k, r.name as string);
  }
  return out;
}

const sortedEntries = (m: Map<string, string>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));

/**
 * Runs `ops`, comparing with the model after every `checkEvery`-th step (1: every step). Fewer
 * reads leave more stored batches unsorted until a seal with spill, a prepare or the next read
 * sorts them (the store sorts on demand).
 */
async function runSequence(table: Table, ops: ModelOp[], dv: boolean, tmp: string, checkEvery = 1): Promise<void> {
  const d = new ModelDriver(table, LAYOUT, tmp);
  await d.start();
  /** DV batch reads see committed data only once a full compaction moved it out of level 0. */
  let diskCompacted = !dv;
  for (const [i, op] of ops.entries()) {
    if (!(await d.step(op))) {
      if (d.lastSnapshot !== null) {
        await compactFully(table);
        diskCompacted = true;
      }
    } else if (op.kind === "commit") diskCompacted = !dv;
    if ((i + 1) % checkEvery !== 0) continue;
    expect(sortedEntries(await tableView(table, d.ctx))).toEqual(sortedEntries(modelView(d.log, d.next)));
    if (diskCompacted) expect(sortedEntries(await tableView(table))).toEqual(sortedEntries(modelView(d.log, d.committedEnd)));
    const metrics = d.ctx.getMetrics();
    expect(metrics.realtimeTotalRowCount).toBe(metrics.realtimeBuildingRowCount + metrics.realtimeSealedRowCount);
  }
  await d.finish();
  expect(d.ctx.getMetrics().realtimeTotalRowCount).toBe(0);
  if (dv && d.lastSnapshot !== null) await compactFully(table);
  expect(sortedEntries(await tableView(table))).toEqual(sortedEntries(modelView(d.log, d.next)));
  await d.ctx.close();
}

describe.each([
  ["PK MOR", false],
  ["PK DV", true],
] as const)("real-time %s model test", (_name, dv) => {
  it("matches a Map after every step over many random sequences, with and without spill", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(modelOps(LAYOUT.targets), fc.boolean(), async (ops, spill) => {
        const options: Record<string, string | boolean | number> = { bucket: 2, ...(dv ? { "deletion-vectors.enabled": true } : {}) };
        if (spill) Object.assign(options, { "realtime.spill-enabled": true, "read.batch-size": 3 });
        const table = await makeTable(options, { warehouse: `memory://rt-pk-model-${dv ? "dv" : "mor"}-${run++}`, primaryKeys: ["id"] });
        await runSequence(table, ops, dv, tempDir());
      }),
      { numRuns: runs(60), seed: 20261202 },
    );
  }, 300_000);

  it("matches a Map when reads are rare: batches stay unsorted across writes, seals, spills and prepares", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(modelOps(LAYOUT.targets), fc.boolean(), fc.integer({ min: 2, max: 6 }), async (ops, spill, checkEvery) => {
        const options: Record<string, string | boolean | number> = { bucket: 2, ...(dv ? { "deletion-vectors.enabled": true } : {}) };
        if (spill) Object.assign(options, { "realtime.spill-enabled": true, "read.batch-size": 3 });
        const table = await makeTable(options, { warehouse: `memory://rt-pk-model-rare-${dv ? "dv" : "mor"}-${run++}`, primaryKeys: ["id"] });
        await runSequence(table, ops, dv, tempDir(), checkEvery);
      }),
      { numRuns: runs(40), seed: 20261203 },
    );
  }, 300_000);
});
