// Randomized model test of stream scans (Java's DataTableStreamScan, written plainly): random
// commits (upserts, deletes, full compactions, overwrites) on an append table and primary-key
// tables (changelog-producer none and input), then a stream scan from every snapshot. Its plans
// must be exactly, in order, the snapshots after the start whose changes are not empty — an
// APPEND snapshot's records (none: its delta; input: its changelog, which an overwrite does not
// write), COMPACT and OVERWRITE snapshots skipped — each with that snapshot's records and row
// kinds; then empty plans, also after one more commit is planned. A full start
// (from-snapshot-full) first returns the table's rows at that snapshot.
// PAIMON_RT_MODEL_RUNS sets the runs per table kind, PAIMON_RT_MODEL_SEED replays a seed.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { applyOp, lastPerKey, type Op, opArb } from "./model-ops.js";
import { cleanupDirs, tempDir } from "../realtime/helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const RUNS = runs(Number(process.env.PAIMON_RT_MODEL_RUNS ?? 5));
const SEED = process.env.PAIMON_RT_MODEL_SEED === undefined ? undefined : Number(process.env.PAIMON_RT_MODEL_SEED);
const KINDS = ["+I", "-U", "+U", "-D"];

type Kind = "append" | "pk" | "pk_input";

/** Per snapshot: what a stream plan of it returns ([] when it is skipped), and the table's rows then. */
interface Snap {
  changes: string[];
  rows: string[];
}

async function run(kind: Kind, ops: Op[]): Promise<number> {
  const pk = kind !== "append";
  const catalog = await Catalog.open(tempDir("paimon-rt-stream-model-"));
  await catalog.createDatabase("db");
  const options: Record<string, string> = { bucket: pk ? "1" : "-1", ...(kind === "pk_input" ? { "changelog-producer": "input" } : {}) };
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: pk ? ["id"] : [], options });
  const snaps = new Map<number, Snap>();
  let rows: string[] = [];
  // a commit may make two snapshots (its APPEND and the COMPACT of a compaction it triggered)
  const learn = async (changes: string[]) => {
    const latest = (await table.latestSnapshot())?.id ?? 0;
    for (let id = snaps.size + 1; id <= latest; id++) {
      const s = await table.snapshot(id);
      snaps.set(id, { changes: s.commitKind === "APPEND" ? changes : [], rows: [...rows] });
    }
  };
  for (const op of ops) {
    const applied = await applyOp(table, op, pk, rows);
    if (applied === null) continue;
    rows = applied.rows;
    // the delta files (one record per key and commit, the last), or the input changelog / the
    // appended rows (every record as written)
    await learn(kind === "pk" ? lastPerKey(applied.written) : applied.written.map((c) => `${c.del ? "-D" : "+I"}|${c.id}|${c.v}`));
  }
  const n = snaps.size;
  let checked = 0;
  for (let start = 1; start <= n; start++) {
    for (const full of [false, true]) {
      const copy = table.copy({ "scan.mode": full ? "from-snapshot-full" : "from-snapshot", "scan.snapshot-id": start });
      const scan = await copy.newStreamScan();
      const read = copy.newRead({ withRowKind: true });
      const plans: Array<{ snapshotId: number | null; rows: string[] }> = [];
      for (let i = 0; i <= n - start + 2; i++) {
        const p = await scan.plan();
        const t = await read.toArrow(p.splits);
        plans.push({ snapshotId: p.snapshotId, rows: (t.toArray() as Array<{ _VALUE_KIND: number; id: bigint; v: string }>).map((r) => `${KINDS[r._VALUE_KIND]}|${r.id}|${r.v}`).sort() });
      }
      const expected: Array<{ snapshotId: number | null; rows: string[] }> = [];
      // (a full start reads the snapshot's rows, then continues after it)
      if (full) expected.push({ snapshotId: start, rows: snaps.get(start)!.rows.map((r) => `+I|${r}`).sort() });
      else expected.push({ snapshotId: null, rows: [] });
      for (let id = full ? start + 1 : start; id <= n; id++) {
        const changes = snaps.get(id)!.changes;
        if (changes.length > 0) expected.push({ snapshotId: id, rows: [...changes].sort() });
      }
      while (expected.length < plans.length) expected.push({ snapshotId: null, rows: [] });
      expect(plans, `${kind} start ${start}${full ? " full" : ""}`).toEqual(expected);
      expect(scan.checkpoint()).toBe(full ? Math.max(start + 1, n + 1) : n + 1);
      checked++;
    }
  }
  return checked;
}

describe("stream scan model", () => {
  for (const kind of ["append", "pk", "pk_input"] as const) {
    it(`${kind}: every start's plans are the snapshots' changes, in order`, async () => {
      let checked = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 7 }), async (ops) => {
          checked += await run(kind, ops);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(checked).toBeGreaterThan(0);
    }, 300_000);
  }
});
