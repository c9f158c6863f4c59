// Randomized model test of real-time PK tables (PK MOR and PK DV, with and without spill):
// upserts, deletes, seals, prepares, partial and full commits, refreshes, compactions by an
// ordinary writer, and context restarts with replay, compared with a Map after every step.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, type RealtimeCommitProgress, type TableWrite } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, compactFully, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

const BUCKETS = [0, 1];

interface Event {
  offset: number;
  key: number;
  kind: number;
  name: string;
}

type Op =
  | { kind: "write"; bucket: number; rows: Array<{ key: number; kind: number }>; gap: number }
  | { kind: "seal" }
  | { kind: "prepare" }
  | { kind: "commit"; dropLast: boolean }
  | { kind: "refresh" }
  | { kind: "compact" }
  | { kind: "restart" };

const rowArb = fc.record({ key: fc.integer({ min: 0, max: 7 }), kind: fc.constantFrom(RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE, RowKind.INSERT) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("write" as const), bucket: fc.constantFrom(...BUCKETS), rows: fc.array(rowArb, { minLength: 1, maxLength: 8 }), gap: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "seal" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "prepare" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("commit" as const), dropLast: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "refresh" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
);

const isDelete = (kind: number) => kind === RowKind.DELETE || kind === RowKind.UPDATE_BEFORE;

/** Latest value per key ("bucket:key" → name) of the events below each bucket's end. */
function modelView(log: Event[][], ends: number[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of BUCKETS) {
    for (const e of log[b]) {
      if (e.offset >= ends[b]) break;
      const k = `${b}:${e.key}`;
      if (isDelete(e.kind)) out.delete(k);
      else out.set(k, e.name);
    }
  }
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

function batchOf(bucket: number, events: Event[]) {
  return rtBatch(
    events.map((e) => e.offset),
    { ids: events.map((e) => bucket * 100 + e.key), names: events.map((e) => e.name) },
  );
}

async function runSequence(table: Table, ops: Op[], dv: boolean, tmp: string): Promise<void> {
  const log: Event[][] = BUCKETS.map(() => []);
  const committedEnd = BUCKETS.map(() => 0);
  const next = BUCKETS.map(() => 0);
  let ctx = await RealtimeContext.create();
  let w: TableWrite = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
  let outstanding: RealtimeCommitProgress[][] = [];
  let identifier = 0;
  let lastSnapshot: number | null = null;
  /** DV batch reads see committed data only once a full compaction moved it out of level 0. */
  let diskCompacted = !dv;
  let stamp = 0;
  for (const op of ops) {
    switch (op.kind) {
      case "write": {
        const events: Event[] = op.rows.map((r, i) => {
          const offset = next[op.bucket];
          next[op.bucket] += 1 + (i === 0 ? op.gap : 0);
          return { offset, key: r.key, kind: r.kind, name: `v${stamp++}` };
        });
        await w.write(batchOf(op.bucket, events), { bucket: op.bucket, rowKinds: events.map((e) => e.kind) });
        log[op.bucket].push(...events);
        break;
      }
      case "seal":
        await w.seal();
        break;
      case "prepare": {
        const progress = await w.prepareCommitWithProgress(++identifier);
        if (progress.length > 0) outstanding.push(progress);
        break;
      }
      case "commit": {
        if (outstanding.length === 0) break;
        const take = op.dropLast && outstanding.length > 1 ? outstanding.length - 1 : outstanding.length;
        const chosen = outstanding.slice(0, take).flat();
        lastSnapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(chosen, ++identifier);
        outstanding = outstanding.slice(take);
        for (const p of chosen) committedEnd[p.bucket] = Math.max(committedEnd[p.bucket], Number(p.offsetRange.end));
        diskCompacted = !dv;
        break;
      }
      case "refresh":
        if (lastSnapshot !== null) await w.refreshCommittedSnapshot(lastSnapshot);
        break;
      case "compact": {
        if (lastSnapshot === null) break;
        await compactFully(table);
        diskCompacted = true;
        break;
      }
      case "restart": {
        // crash: a new context replays the input from the committed offsets
        await ctx.close();
        ctx = await RealtimeContext.create();
        w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
        outstanding = [];
        for (const b of BUCKETS) {
          const replay = log[b].filter((e) => e.offset >= committedEnd[b]);
          if (replay.length > 0) await w.write(batchOf(b, replay), { bucket: b, rowKinds: replay.map((e) => e.kind) });
        }
        lastSnapshot = (await table.latestSnapshot())?.id ?? null;
        break;
      }
    }
    expect(sortedEntries(await tableView(table, ctx))).toEqual(sortedEntries(modelView(log, next)));
    if (diskCompacted) expect(sortedEntries(await tableView(table))).toEqual(sortedEntries(modelView(log, committedEnd)));
    const metrics = ctx.getMetrics();
    expect(metrics.realtimeTotalRowCount).toBe(metrics.realtimeBuildingRowCount + metrics.realtimeSealedRowCount);
  }
  const progress = [...outstanding.flat(), ...(await w.prepareCommitWithProgress(++identifier))];
  if (progress.length > 0) lastSnapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, ++identifier);
  if (lastSnapshot !== null) await w.refreshCommittedSnapshot(lastSnapshot);
  await w.close();
  expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
  if (dv && lastSnapshot !== null) await compactFully(table);
  expect(sortedEntries(await tableView(table))).toEqual(sortedEntries(modelView(log, next)));
  await ctx.close();
}

describe.each([
  ["PK MOR", false],
  ["PK DV", true],
] as const)("real-time %s model test", (_name, dv) => {
  it("matches a Map after every step over many random sequences, with and without spill", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 20 }), fc.boolean(), async (ops, spill) => {
        const options: Record<string, string | boolean | number> = { bucket: 2, ...(dv ? { "deletion-vectors.enabled": true } : {}) };
        if (spill) Object.assign(options, { "realtime.spill-enabled": true, "read.batch-size": 3 });
        const table = await makeTable(options, { warehouse: `memory://rt-pk-model-${dv ? "dv" : "mor"}-${run++}`, primaryKeys: ["id"] });
        await runSequence(table, ops, dv, tempDir());
      }),
      { numRuns: 60, seed: 20261202 },
    );
  }, 300_000);
});
