// Read views of the real-time append-deduplicate mode taken between writes and commits and read
// later, in any order (issue 11: "views/tickets pin a consistent DV state"), compared with a
// last-row-per-key model at each plan: the incremental resolution of pending deletions per file
// (an older view read after a newer one, a view of the previous generation after a commit) and
// the release of the deletions views froze must never show a view newer or older deletions.
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { col, RealtimeContext, type Predicate } from "../../src/index.js";
import type { Split } from "../../src/scan/split.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const KEYS = 30;

/**
 * A writer of `table` in `ctx` and a last-row-per-key model of what it wrote: `write` adds rows
 * of `keys` at the next offsets, `commit` commits them (`written()`: rows since the last commit;
 * an empty real-time commit is refused). Every key is written and committed first, so that a
 * memory tail lies over committed rows.
 */
async function session(table: Table, ctx: RealtimeContext) {
  const w = await table.newWrite({ commitUser: "u", realtime: ctx });
  let offset = 0;
  let commitId = 0;
  let written = false;
  const live = new Map<number, number>(); // model: key -> offset of its live row
  const write = async (keys: number[]) => {
    const rows = keys.map((k): [number, number] => [k, offset++]);
    for (const [k, o] of rows) live.set(k, o);
    await w.write(dedupBatch(rows), { bucket: 0 });
    written = true;
  };
  const commit = async () => {
    commitId++;
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(commitId), commitId);
    await w.refreshCommittedSnapshot(s);
    written = false;
  };
  await write(Array.from({ length: KEYS }, (_, k) => k));
  await commit();
  return { live, write, commit, written: () => written };
}

type Op = { kind: "write"; keys: number[] } | { kind: "plan"; lookup: number | null } | { kind: "read"; pick: number } | { kind: "commit" };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), keys: fc.array(fc.integer({ min: 0, max: KEYS - 1 }), { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant("plan" as const), lookup: fc.option(fc.integer({ min: 0, max: KEYS - 1 }), { freq: 1 }) }),
  fc.record({ kind: fc.constant("read" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("commit" as const) }),
);

it("append deduplicate: plans taken between writes and commits and read later, in any order, see exactly the rows of their moment (randomized)", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
      const table = await makeDedupTable({ bucket: "1" });
      const ctx = await RealtimeContext.create();
      try {
        const { live, write, commit, written } = await session(table, ctx);
        const plans: Array<{ splits: readonly Split[]; filter: Predicate | undefined; expected: Array<[number, number]> }> = [];
        const plan = async (lookup: number | null) => {
          const filter = lookup === null ? undefined : col("id").eq(BigInt(lookup));
          const p = await table.newScan({ realtime: ctx, filter }).plan();
          const expected = [...live].filter(([k]) => lookup === null || k === lookup).sort((a, b) => a[0] - b[0]);
          plans.push({ splits: p.splits, filter, expected });
        };
        const read = async (p: (typeof plans)[number]) => {
          const rows = (await table.newRead({ realtime: ctx, filter: p.filter, predicateFilter: p.filter !== undefined }).toArrow(p.splits)).toArray().map((r) => {
            const o = r.toJSON() as Record<string, unknown>;
            expect(o.v).toBe(`v${o._REALTIME_OFFSET}`);
            return [Number(o.id), Number(o._REALTIME_OFFSET)] as [number, number];
          });
          expect(rows.sort((a, b) => a[0] - b[0])).toEqual(p.expected);
        };
        for (const o of ops) {
          if (o.kind === "write") await write(o.keys);
          else if (o.kind === "plan") await plan(o.lookup);
          else if (o.kind === "commit") {
            if (written()) await commit();
          }
          else if (plans.length > 0) await read(plans.splice(o.pick % plans.length, 1)[0]);
        }
        // the rest, newest first, then the current state
        for (const p of plans.reverse()) await read(p);
        await plan(null);
        await read(plans[plans.length - 1]);
      } finally {
        await ctx.close();
      }
    }),
    { numRuns: runs(60) },
  );
});

type InterleavedOp = { kind: "write"; keys: number[] } | { kind: "start"; lookup: number | null } | { kind: "step"; pick: number } | { kind: "commit" };

it("append deduplicate: readers of different views left open mid-read and stepped interleaved with writes, commits and each other see exactly the rows of their moment (randomized)", async () => {
  // Readers pull a few rows at a time (batch size 3) of the committed file and the memory tail,
  // so that each holds its view's pending row positions of the committed file (lent by the
  // file's offset index) while newer views extend them.
  const iop: fc.Arbitrary<InterleavedOp> = fc.oneof(
    fc.record({ kind: fc.constant("write" as const), keys: fc.array(fc.integer({ min: 0, max: KEYS - 1 }), { minLength: 1, maxLength: 8 }) }),
    fc.record({ kind: fc.constant("start" as const), lookup: fc.option(fc.integer({ min: 0, max: KEYS - 1 }), { freq: 2 }) }),
    fc.record({ kind: fc.constant("step" as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant("commit" as const) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(iop, { minLength: 1, maxLength: 30 }), async (ops) => {
      const table = await makeDedupTable({ bucket: "1" });
      const ctx = await RealtimeContext.create();
      try {
        const { live, write, commit, written } = await session(table, ctx);
        type Open = { it: AsyncIterator<import("apache-arrow").RecordBatch>; close: () => Promise<void>; rows: Array<[number, number]>; expected: Array<[number, number]> };
        const open: Open[] = [];
        const start = async (lookup: number | null) => {
          const filter = lookup === null ? undefined : col("id").eq(BigInt(lookup));
          const p = await table.newScan({ realtime: ctx, filter }).plan();
          const expected = [...live].filter(([k]) => lookup === null || k === lookup).sort((a, b) => a[0] - b[0]);
          const reader = await table.newRead({ realtime: ctx, filter, predicateFilter: filter !== undefined, batchSize: 3 }).createReader(p.splits);
          const r: Open = { it: reader[Symbol.asyncIterator](), close: () => reader.close(), rows: [], expected };
          open.push(r);
          await step(r); // holds the committed file's hidden positions from here
        };
        /** Pulls one batch; false when the reader is done (then checked against its moment). */
        const step = async (r: Open): Promise<boolean> => {
          const next = await r.it.next();
          if (next.done) {
            await r.close();
            expect(r.rows.sort((a, b) => a[0] - b[0])).toEqual(r.expected);
            return false;
          }
          for (const row of next.value.toArray()) {
            const o = row.toJSON() as Record<string, unknown>;
            r.rows.push([Number(o.id), Number(o._REALTIME_OFFSET)]);
          }
          return true;
        };
        for (const o of ops) {
          if (o.kind === "write") await write(o.keys);
          else if (o.kind === "start") await start(o.lookup);
          else if (o.kind === "commit") {
            if (written()) await commit();
          } else if (open.length > 0) {
            const i = o.pick % open.length;
            if (!(await step(open[i]))) open.splice(i, 1);
          }
        }
        // the rest interleaved: one batch of each open reader in turn
        while (open.length > 0) for (let i = open.length - 1; i >= 0; i--) if (!(await step(open[i]))) open.splice(i, 1);
      } finally {
        await ctx.close();
      }
    }),
    {
      numRuns: runs(60),
      // a reader holding the committed file's positions while a newer view's read extends them
      examples: [[[{ kind: "write", keys: [0] }, { kind: "start", lookup: null }, { kind: "write", keys: [3] }, { kind: "start", lookup: null }, { kind: "step", pick: 0 }]]],
    },
  );
});
