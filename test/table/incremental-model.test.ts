// Randomized model test of incremental reads through `Table.copy` (Java Paimon 1.4.2's rules,
// written plainly): random commits (upserts, deletes, full compactions, overwrites) on a
// primary-key table and an append table, then every range (start, end] in every scan mode:
// - delta (and auto, without a changelog producer): the records the APPEND commits in the range
//   wrote, with their row kinds (a key written twice in one commit: its last record); COMPACT
//   and OVERWRITE commits add nothing;
// - changelog: nothing (no changelog producer wrote changelog files);
// - diff, primary key: every end row whose key is absent at the start or whose value differs
//   (+I), each once, and nothing but end rows (Java compares only the files one side has, so an
//   unchanged row in a rewritten or new file is emitted too; the interop test checks the exact
//   rows); deletes are not emitted; checked for ranges without an overwrite (there Java's merge
//   by sequence number decides, see the interop test), and refused from snapshot 0;
// - diff, append: the rows of the files the end has and the start has not: the rows appended in
//   the range, or after an overwrite in the range all of the end's rows (ranges with a
//   compaction, which rewrites files, are left to the interop test).
// PAIMON_RT_MODEL_RUNS sets the runs per table kind, PAIMON_RT_MODEL_SEED replays a seed.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { Table } from "../../src/table/table.js";
import { applyOp, lastPerKey, type Op, opArb } from "./model-ops.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const RUNS = runs(Number(process.env.PAIMON_RT_MODEL_RUNS ?? 6));
const SEED = process.env.PAIMON_RT_MODEL_SEED === undefined ? undefined : Number(process.env.PAIMON_RT_MODEL_SEED);

/** What the model knows of one snapshot. */
interface Snap {
  commitKind: string;
  /** Records the commit wrote ("+I|id|v" / "-D|id|v"), APPEND commits only. */
  delta: string[];
  /** The table's rows at this snapshot ("id|v"; an append table's with repeats). */
  rows: string[];
}

async function incremental(table: Table, options: Record<string, string>, pk: boolean): Promise<string[]> {
  const copy = table.copy(options);
  const t = await copy.newRead({ withRowKind: pk }).toArrow((await copy.newScan().plan()).splits);
  const out: string[] = [];
  for (const r of t.toArray() as Array<{ _VALUE_KIND?: number; id: bigint; v: string }>) out.push(`${pk ? ["+I", "-U", "+U", "-D"][r._VALUE_KIND!] : "+I"}|${r.id}|${r.v}`);
  return out.sort();
}

async function run(kind: "pk" | "append", ops: Op[]): Promise<number> {
  const pk = kind === "pk";
  const catalog = await Catalog.open(tempDir("paimon-rt-incremental-model-"));
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: pk ? ["id"] : [], options: { bucket: pk ? "1" : "-1" } });
  const snaps = new Map<number, Snap>();
  let rows: string[] = [];
  // a commit may make two snapshots (its APPEND and a COMPACT of the compaction it triggered)
  const learn = async (delta: string[]) => {
    const latest = (await table.latestSnapshot())?.id ?? 0;
    for (let id = snaps.size + 1; id <= latest; id++) {
      const snapshot = await table.snapshot(id);
      snaps.set(id, { commitKind: snapshot.commitKind, delta: snapshot.commitKind === "APPEND" ? delta : [], rows: [...rows] });
    }
  };
  for (const op of ops) {
    const applied = await applyOp(table, op, pk, rows);
    if (applied === null) continue;
    rows = applied.rows;
    await learn(pk ? lastPerKey(applied.written) : applied.written.map((c) => `+I|${c.id}|${c.v}`));
  }
  const n = (await table.latestSnapshot())?.id ?? 0;
  expect([...snaps.keys()]).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  let checked = 0;
  for (let s = 0; s <= n; s++) {
    for (let e = s; e <= n; e++) {
      const between = { "incremental-between": `${s},${e}` };
      const range = Array.from({ length: e - s }, (_, i) => snaps.get(s + 1 + i)!);
      const delta = range.flatMap((x) => x.delta).sort();
      expect(await incremental(table, between, pk), `${s},${e} auto`).toEqual(delta);
      expect(await incremental(table, { ...between, "incremental-between-scan-mode": "delta" }, pk), `${s},${e} delta`).toEqual(delta);
      expect(await incremental(table, { ...between, "incremental-between-scan-mode": "changelog" }, pk), `${s},${e} changelog`).toEqual([]);
      const diff = { ...between, "incremental-between-scan-mode": "diff" };
      if (s === e) {
        expect(await incremental(table, diff, pk)).toEqual([]);
      } else if (s === 0) {
        await expectCode(incremental(table, diff, pk), "NOT_FOUND");
      } else if (pk) {
        if (range.some((x) => x.commitKind === "OVERWRITE")) continue;
        // Java compares the files only one side has: every changed row is emitted, and any other
        // emitted row is an unchanged end row in a file the end rewrote or added
        const start = new Set(snaps.get(s)!.rows);
        const end = snaps.get(e)!.rows;
        const got = await incremental(table, diff, pk);
        for (const r of end.filter((r) => !start.has(r))) expect(got, `${s},${e} diff`).toContain(`+I|${r}`);
        for (const r of got) expect(end.map((x) => `+I|${x}`), `${s},${e} diff`).toContain(r);
        expect(new Set(got).size).toBe(got.length);
      } else {
        const lastOverwrite = range.map((x) => x.commitKind).lastIndexOf("OVERWRITE");
        if (range.slice(lastOverwrite + 1).some((x) => x.commitKind === "COMPACT")) continue;
        const expected = lastOverwrite >= 0 ? snaps.get(e)!.rows.map((r) => `+I|${r}`) : delta;
        expect(await incremental(table, diff, pk), `${s},${e} diff`).toEqual(expected.sort());
      }
      checked++;
    }
  }
  return checked;
}

describe("incremental reads: random commits, every range and scan mode, against the model", () => {
  for (const kind of ["pk", "append"] as const) {
    it(`${kind} table`, async () => {
      let checked = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 9 }), async (ops) => {
          checked += await run(kind, ops);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(checked).toBeGreaterThan(RUNS * 3);
    }, 300_000);
  }
});
