// Randomized model test of the real-time append-deduplicate mode (seed 000 "Append Deduplicate /
// Offset DV"; issue 11 "Proof"): keyed inserts, updates and deletes across segments, seals (with
// and without spill), prepares, partial and full commits, refreshes, compactions by an ordinary
// writer (also between a prepare and its commit) and context restarts with replay, compared with
// a per-partition "last row per key" model after every step: the union read of the context, and
// the committed table read without it.
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { RealtimeContext, type RealtimeCommitProgress, type TableWrite } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, compactFully, readRows, tempDir } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";

afterAll(cleanupDirs);

/** Partition-buckets written: [dt, bucket]. The same key in two partitions is two keys. */
const TARGETS: Array<[string, number]> = [
  ["d1", 0],
  ["d1", 1],
  ["d2", 0],
];

interface Event {
  offset: number;
  key: number;
  kind: number;
}

type Op =
  | { kind: "write"; target: number; rows: Array<{ key: number; kind: number }>; gap: number }
  | { kind: "seal" }
  | { kind: "prepare" }
  | { kind: "commit"; dropLast: boolean }
  | { kind: "refresh" }
  | { kind: "compact" }
  | { kind: "restart" };

const rowArb = fc.record({ key: fc.integer({ min: 0, max: 7 }), kind: fc.constantFrom(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("write" as const), target: fc.integer({ min: 0, max: TARGETS.length - 1 }), rows: fc.array(rowArb, { minLength: 1, maxLength: 8 }), gap: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "seal" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "prepare" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("commit" as const), dropLast: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "refresh" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
);

const isDelete = (kind: number) => kind === RowKind.DELETE || kind === RowKind.UPDATE_BEFORE;
/** Keys of a bucket: ids bucket * 100 + key, so that each id lives in one bucket. */
const idOf = (target: number, key: number) => TARGETS[target][1] * 100 + key;

/** "dt:id" → offset of the key's live row, over the events below each target's end. */
function modelView(log: Event[][], ends: number[]): Map<string, number> {
  const out = new Map<string, number>();
  TARGETS.forEach(([dt], t) => {
    for (const e of log[t]) {
      if (e.offset >= ends[t]) break;
      const k = `${dt}:${idOf(t, e.key)}`;
      if (isDelete(e.kind)) out.delete(k);
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

const batchOf = (target: number, events: Event[]) => dedupBatch(events.map((e) => [idOf(target, e.key), e.offset]), { dt: TARGETS[target][0] });
const targetOf = (t: number) => ({ partition: { dt: TARGETS[t][0] }, bucket: TARGETS[t][1] });

async function runSequence(table: Table, ops: Op[], tmp: string): Promise<void> {
  const log: Event[][] = TARGETS.map(() => []);
  const committedEnd = TARGETS.map(() => 0);
  const next = TARGETS.map(() => 0);
  let ctx = await RealtimeContext.create();
  let w: TableWrite = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
  let outstanding: RealtimeCommitProgress[][] = [];
  let identifier = 0;
  let lastSnapshot: number | null = null;
  for (const op of ops) {
    switch (op.kind) {
      case "write": {
        const events: Event[] = op.rows.map((r, i) => {
          const offset = next[op.target];
          next[op.target] += 1 + (i === 0 ? op.gap : 0);
          return { offset, key: r.key, kind: r.kind };
        });
        await w.write(batchOf(op.target, events), { ...targetOf(op.target), rowKinds: events.map((e) => e.kind) });
        log[op.target].push(...events);
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
        for (const p of chosen) {
          const t = TARGETS.findIndex(([dt, b]) => dt === p.partition.dt && b === p.bucket);
          committedEnd[t] = Math.max(committedEnd[t], Number(p.offsetRange.end));
        }
        break;
      }
      case "refresh":
        if (lastSnapshot !== null) await w.refreshCommittedSnapshot(lastSnapshot);
        break;
      case "compact":
        // an ordinary writer compacts (applying and dropping DVs) while prepares may be outstanding
        if ((await table.latestSnapshot()) !== null) await compactFully(table);
        break;
      case "restart": {
        // crash: a new context rebuilds the key indexes from committed files; the input is replayed from the committed offsets
        await ctx.close();
        ctx = await RealtimeContext.create();
        w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
        outstanding = [];
        for (let t = 0; t < TARGETS.length; t++) {
          const replay = log[t].filter((e) => e.offset >= committedEnd[t]);
          if (replay.length > 0) await w.write(batchOf(t, replay), { ...targetOf(t), rowKinds: replay.map((e) => e.kind) });
        }
        lastSnapshot = (await table.latestSnapshot())?.id ?? null;
        break;
      }
    }
    expect(sorted(await tableView(table, ctx))).toEqual(sorted(modelView(log, next)));
    expect(sorted(await tableView(table))).toEqual(sorted(modelView(log, committedEnd)));
  }
  const progress = [...outstanding.flat(), ...(await w.prepareCommitWithProgress(++identifier))];
  if (progress.length > 0) lastSnapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, ++identifier);
  if (lastSnapshot !== null) await w.refreshCommittedSnapshot(lastSnapshot);
  await w.close();
  expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
  expect(sorted(await tableView(table))).toEqual(sorted(modelView(log, next)));
  if (lastSnapshot !== null) await compactFully(table);
  expect(sorted(await tableView(table))).toEqual(sorted(modelView(log, next)));
  await ctx.close();
}

it("append deduplicate: matches a last-row-per-key model after every step over many random sequences, with and without spill", async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 20 }), fc.boolean(), async (ops, spill) => {
      const options: Record<string, string> = spill ? { "realtime.spill-enabled": "true", "read.batch-size": "3" } : {};
      const table = await makeDedupTable(options, { warehouse: `memory://rt-dedup-model-${run++}`, partitioned: true });
      await runSequence(table, ops, tempDir());
    }),
    { numRuns: 60, seed: 20261202 },
  );
}, 600_000);
