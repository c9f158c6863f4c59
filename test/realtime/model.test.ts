// Randomized model test: write / seal / prepare / commit / refresh / scan / restart sequences
// against a simple reference model, over many seeds (fast-check).
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, RealtimeSnapshotOffsets, type RealtimeCommitProgress, type TableWrite } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

type Op =
  | { kind: "write"; bucket: number; count: number; gap: number }
  | { kind: "seal" }
  | { kind: "prepare" }
  | { kind: "commit"; dropLast: boolean }
  | { kind: "refresh" }
  | { kind: "scan"; withCtx: boolean }
  | { kind: "restart" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("write" as const), bucket: fc.integer({ min: 0, max: 1 }), count: fc.integer({ min: 1, max: 12 }), gap: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "seal" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "prepare" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("commit" as const), dropLast: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "refresh" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("scan" as const), withCtx: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
);

interface Model {
  committed: number[][]; // per bucket: offsets on disk
  live: number[][]; // per bucket: written through the current context, not committed
  prepared: number[]; // per bucket: how many of `live` are prepared
  next: number[]; // per bucket: next offset to write
}

async function runSequence(table: Table, ops: Op[], spill: boolean, tmp: string): Promise<void> {
  const m: Model = { committed: [[], []], live: [[], []], prepared: [0, 0], next: [0, 0] };
  let ctx = await RealtimeContext.create();
  let w: TableWrite = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
  let outstanding: Array<{ progress: RealtimeCommitProgress[]; counts: number[] }> = [];
  let identifier = 0;
  let lastSnapshot: number | null = null;
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  for (const op of ops) {
    switch (op.kind) {
      case "write": {
        const offsets: number[] = [];
        for (let i = 0; i < op.count; i++) {
          offsets.push(m.next[op.bucket]);
          m.next[op.bucket] += 1 + (i === 0 ? op.gap : 0);
        }
        await w.write(rtBatch(offsets, { ids: offsets.map((o) => op.bucket * 100000 + o) }), { bucket: op.bucket });
        m.live[op.bucket].push(...offsets);
        break;
      }
      case "seal":
        await w.seal();
        break;
      case "prepare": {
        const progress = await w.prepareCommitWithProgress(++identifier);
        const counts = [0, 1].map((b) => m.live[b].length - m.prepared[b]);
        for (const b of [0, 1]) m.prepared[b] = m.live[b].length;
        if (progress.length > 0) outstanding.push({ progress, counts });
        expect(progress.length).toBe(counts.filter((c) => c > 0).length);
        break;
      }
      case "commit": {
        if (outstanding.length === 0) break;
        // committing a prefix of the outstanding prepares is fine; skipping one would be a gap
        const take = op.dropLast && outstanding.length > 1 ? outstanding.length - 1 : outstanding.length;
        const chosen = outstanding.slice(0, take);
        const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(chosen.flatMap((c) => c.progress), ++identifier);
        outstanding = outstanding.slice(take);
        for (const c of chosen) {
          for (const b of [0, 1]) {
            const moved = m.live[b].splice(0, c.counts[b]);
            m.prepared[b] -= c.counts[b];
            m.committed[b].push(...moved);
          }
        }
        lastSnapshot = s;
        break;
      }
      case "refresh":
        if (lastSnapshot !== null) await w.refreshCommittedSnapshot(lastSnapshot);
        break;
      case "scan": {
        const rows = await readRows(table, { ctx: op.withCtx ? ctx : undefined });
        const got = [0, 1].map((b) => rows.map((r) => r.id as number).filter((id) => Math.floor(id / 100000) === b).map((id) => id % 100000));
        for (const b of [0, 1]) {
          const expected = op.withCtx ? [...m.committed[b], ...m.live[b]] : m.committed[b];
          expect(sorted(got[b])).toEqual(sorted(expected));
          expect(got[b]).toEqual(sorted(got[b])); // per bucket: disk then memory, in offset order
        }
        break;
      }
      case "restart": {
        // crash: drop the context and writer; recover from durable offsets, replay is not modelled
        ctx = await RealtimeContext.create();
        w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
        outstanding = [];
        for (const b of [0, 1]) {
          const end = await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: b });
          const last = m.committed[b].length > 0 ? m.committed[b][m.committed[b].length - 1] : -1;
          expect(end).toBe(last < 0 ? -1n : BigInt(last + 1));
          m.live[b] = [];
          m.prepared[b] = 0;
          m.next[b] = end < 0n ? 0 : Number(end);
        }
        lastSnapshot = (await table.latestSnapshot())?.id ?? null;
        break;
      }
    }
    const metrics = ctx.getMetrics();
    expect(metrics.realtimeTotalRowCount).toBe(metrics.realtimeBuildingRowCount + metrics.realtimeSealedRowCount);
    expect(metrics.realtimeTotalRowCount).toBeGreaterThanOrEqual(m.live[0].length + m.live[1].length);
  }
  // final: everything written through the last context commits and reads back exactly once
  const progress = [...outstanding.flatMap((o) => o.progress), ...(await w.prepareCommitWithProgress(++identifier))];
  if (progress.length > 0) {
    lastSnapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, ++identifier);
    for (const b of [0, 1]) m.committed[b].push(...m.live[b].splice(0));
  }
  if (lastSnapshot !== null) await w.refreshCommittedSnapshot(lastSnapshot);
  await w.close();
  expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
  const rows = await readRows(table);
  for (const b of [0, 1]) {
    const got = rows.map((r) => r.id as number).filter((id) => Math.floor(id / 100000) === b).map((id) => id % 100000);
    expect(sorted(got)).toEqual(sorted(m.committed[b]));
  }
  await ctx.close();
}

describe("real-time model test", () => {
  it("matches the reference model over many random sequences", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), fc.boolean(), async (ops, spill) => {
        const table = await makeTable(spill ? { "realtime.spill-enabled": true, "read.batch-size": 5 } : {}, { warehouse: `memory://rt-model-${run++}` });
        await runSequence(table, ops, spill, tempDir());
      }),
      { numRuns: runs(200), seed: 20261129 },
    );
  }, 240_000);
});
