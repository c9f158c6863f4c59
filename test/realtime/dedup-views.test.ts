// Read views of the real-time append-deduplicate mode taken between writes and commits and read
// later, in any order (issue 11: "views/tickets pin a consistent DV state"), compared with a
// last-row-per-key model at each plan: the incremental resolution of pending deletions per file
// (an older view read after a newer one, a view of the previous generation after a commit) and
// the release of the deletions views froze must never show a view newer or older deletions.
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { col, RealtimeContext, type Predicate } from "../../src/index.js";
import type { Split } from "../../src/scan/split.js";
import { cleanupDirs } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";

afterAll(cleanupDirs);

const KEYS = 30;

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
        const w = await table.newWrite({ commitUser: "u", realtime: ctx });
        let offset = 0;
        let commitId = 0;
        let written = false; // since the last commit (an empty real-time commit is refused)
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
        // committed rows of every key, then a memory tail over them
        await write(Array.from({ length: KEYS }, (_, k) => k));
        await commit();
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
            if (written) await commit();
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
    { numRuns: 60 },
  );
});
