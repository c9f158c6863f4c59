// Randomized model test of deletion-vector primary-key tables with merge-engine=aggregation and
// partial-update (Java 1.4.2's lookup compaction). Every commit compacts level 0: each key's
// merged commit record (the write buffer's ReducerMergeFunctionWrapper: a single record passes)
// is merged with the key's live row of the higher levels by the merge function itself (Java's
// LookupChangelogMergeFunctionWrapper calls it even for one record), the old row is marked
// deleted, and a retract / DELETE result removes the key. Batch reads of DV tables read levels
// >= 1 without merging, so reads equal to the model (one row per key) also prove no key is live
// twice. Tables vary: INT key, or a STRING key in a partitioned table; fixed or dynamic buckets;
// universal compaction triggers and level counts; full compactions; one writer or one per commit.
// DV_MODEL_SEED replays a failing run.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import type { TableWrite } from "../../src/write/table-write.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import { runs } from "../support/fc-runs.js";

type V = number | null;
interface Rec {
  kind: number; // 0 +I, 1 -U, 2 +U, 3 -D
  v: V[];
}
const NAMES = ["id", "a", "b", "c"];
const FIELDS: FieldLike[] = NAMES.map((name, i) => ({ name, type: i === 0 ? "INT NOT NULL" : "INT" }));
const isRetract = (k: number) => k === 1 || k === 3;

/** Aggregation: a = sum, b = max (ignore-retract), c = last_non_null_value (Java AggregateMergeFunction over all records). */
const AGG_OPTIONS = {
  "merge-engine": "aggregation",
  "fields.a.aggregate-function": "sum",
  "fields.b.aggregate-function": "max",
  "fields.b.ignore-retract": "true",
  "fields.c.aggregate-function": "last_non_null_value",
};
function aggMf(recs: Rec[]): Rec {
  const row: V[] = [null, null, null, null];
  for (const r of recs) {
    const [id, a, b, c] = r.v;
    row[0] = id;
    if (isRetract(r.kind)) {
      // FieldSumAgg.retract: nothing retracted from null is the negation
      // (INT arithmetic: `| 0` keeps -0 out, which Java's int has not)
      row[1] = row[1] === null ? (a === null ? null : -a | 0) : a === null ? row[1] : (row[1] - a) | 0;
      if (c !== null) row[3] = null;
    } else {
      row[1] = row[1] === null ? a : a === null ? row[1] : row[1] + a;
      row[2] = row[2] === null ? b : b === null ? row[2] : Math.max(row[2], b);
      row[3] = c ?? row[3];
    }
  }
  return { kind: 0, v: row };
}

/** partial-update with remove-record-on-delete (Java PartialUpdateMergeFunction.add / getResult). */
const PU_OPTIONS = { "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true" };
function puMf(recs: Rec[]): Rec {
  let row: V[] = [null, null, null, null];
  let meetInsert = false;
  let filled = false;
  let deleted = false;
  for (const r of recs) {
    deleted = false;
    if (isRetract(r.kind)) {
      if (!filled) {
        row = [...r.v];
        filled = true;
      }
      if (r.kind === 3) {
        deleted = true;
        row = [...r.v];
      }
      continue;
    }
    for (let c = 0; c < row.length; c++) if (r.v[c] !== null) row[c] = r.v[c];
    meetInsert = true;
    filled = true;
  }
  return { kind: deleted || !meetInsert ? 3 : 0, v: row };
}

/** The model after each commit: key -> its one live row. */
function modelReads(commits: Rec[][], mf: (recs: Rec[]) => Rec): V[][][] {
  const live = new Map<number, V[]>();
  const out: V[][][] = [];
  for (const rows of commits) {
    const byKey = new Map<number, Rec[]>();
    for (const r of rows) byKey.set(r.v[0] as number, [...(byKey.get(r.v[0] as number) ?? []), r]);
    for (const [k, recs] of byKey) {
      const level0 = recs.length === 1 ? recs[0] : mf(recs);
      const high = live.get(k);
      const merged = mf(high ? [{ kind: 0, v: high }, level0] : [level0]);
      if (isRetract(merged.kind)) live.delete(k);
      else live.set(k, merged.v);
    }
    out.push([...live.values()].sort((x, y) => (x[0] as number) - (y[0] as number)));
  }
  return out;
}

/** The table's layout: the key as INT, or as STRING after a partition column `p` (= id % 2, so keys stay those of the model). */
interface Layout {
  stringKey: boolean;
}
const P_FIELD: FieldLike = { name: "p", type: "INT NOT NULL" };

let n = 0;
async function runReads(options: Record<string, string>, commits: Rec[][], compactAt: boolean[], reuseWriter: boolean, layout: Layout = { stringKey: false }): Promise<V[][][]> {
  const catalog = await Catalog.open(`memory://dv-merge-model-${process.pid}-${n++}`);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  const fields = layout.stringKey ? [P_FIELD, { name: "id", type: "STRING NOT NULL" }, ...FIELDS.slice(1)] : FIELDS;
  const keys = layout.stringKey ? { partitionKeys: ["p"], primaryKeys: ["p", "id"] } : { primaryKeys: ["id"] };
  const table: Table = await catalog.createTable("db.t", { fields, ...keys, options: { bucket: "1", "deletion-vectors.enabled": "true", ...options } });
  const toRow = (r: Rec) => {
    const row: Record<string, unknown> = Object.fromEntries(NAMES.map((nm, j) => [nm, r.v[j]]));
    if (layout.stringKey) Object.assign(row, { p: (r.v[0] as number) % 2, id: `k${r.v[0]}` });
    return row;
  };
  const reads: V[][][] = [];
  let write: TableWrite | null = null;
  for (const [i, rows] of commits.entries()) {
    write ??= await table.newWrite({ commitUser: "u" });
    if (rows.length > 0) await write.write(rowsToBatch(fields, rows.map(toRow) as never), { rowKinds: rows.map((r) => r.kind) });
    if (compactAt[i]) await write.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(i), i);
    if (!reuseWriter) {
      await write.close();
      write = null;
    }
    const got = arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)).map((r) => NAMES.map((nm) => (nm === "id" && layout.stringKey ? Number(String(r.id).slice(1)) : (r[nm] as V))));
    const ids = got.map((r) => r[0]);
    expect(new Set(ids).size).toBe(ids.length); // one live row per key
    reads.push(got.sort((x, y) => (x[0] as number) - (y[0] as number)));
  }
  await write?.close();
  return reads;
}

const cell = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 7, arbitrary: fc.integer({ min: 0, max: 9 }) });
const rec = fc.record({ kind: fc.constantFrom(0, 0, 0, 1, 2, 3), k: fc.integer({ min: 0, max: 5 }), cells: fc.tuple(cell, cell, cell) }).map((x): Rec => ({ kind: x.kind, v: [x.k, ...x.cells] }));
const scenario = fc.record({
  commits: fc.array(fc.array(rec, { maxLength: 10 }), { minLength: 1, maxLength: 7 }),
  compactAt: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
  reuseWriter: fc.boolean(),
  // small tries make universal compaction move rows through the levels (lookups reach more than one)
  trigger: fc.constantFrom("2", "3", "5"),
  levels: fc.constantFrom("3", "4", "6"),
  // fixed buckets, and dynamic bucket mode (keys assigned to buckets by the hash index)
  bucket: fc.constantFrom("1", "2", "-1"),
  stringKey: fc.boolean(),
});
const seed = process.env.DV_MODEL_SEED ? Number(process.env.DV_MODEL_SEED) : undefined;

describe("deletion vectors with field-merging engines (Java lookup compaction)", () => {
  for (const [name, options, mf] of [
    ["aggregation (sum, max with ignore-retract, last_non_null_value) with -U/-D retractions", AGG_OPTIONS, aggMf],
    ["partial-update with remove-record-on-delete, -U/+U/-D", PU_OPTIONS, puMf],
  ] as const) {
    it(`${name}: every commit reads as the model, one row per key`, async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const opts = { ...options, bucket: s.bucket, "num-sorted-run.compaction-trigger": s.trigger, "num-levels": s.levels };
          expect(await runReads(opts, s.commits, s.compactAt, s.reuseWriter, s)).toEqual(modelReads(s.commits, mf));
        }),
        { numRuns: runs(60), seed },
      );
    }, 300_000);
  }
});

describe("deletion vectors with aggregation: exact cases", () => {
  it("a row looked up in a file of an older schema (added column) merges with the new records; a lone -U retracts from it", async () => {
    const catalog = await Catalog.open(`memory://dv-merge-evo-${process.pid}`);
    await catalog.createDatabase("db");
    const f1: FieldLike[] = [
      { name: "id", type: "INT NOT NULL" },
      { name: "s", type: "INT" },
    ];
    const options = { bucket: "1", "deletion-vectors.enabled": "true", "merge-engine": "aggregation", "fields.s.aggregate-function": "sum", "fields.m.aggregate-function": "max", "fields.m.ignore-retract": "true" };
    let t = await catalog.createTable("db.t", { fields: f1, primaryKeys: ["id"], options });
    let w = await t.newWrite({ commitUser: "u" });
    await w.write(rowsToBatch(f1, [{ id: 1, s: 1 }, { id: 2, s: 2 }]));
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(0), 0);
    await w.close();
    t = await catalog.alterTable("db.t", [{ kind: "addColumn", name: "m", type: "STRING" }]);
    const f2: FieldLike[] = [...f1, { name: "m", type: "STRING" }];
    w = await t.newWrite({ commitUser: "u" });
    await w.write(rowsToBatch(f2, [{ id: 1, s: 10, m: "x" }, { id: 3, s: 3, m: null }]));
    await w.write(rowsToBatch(f2, [{ id: 2, s: 1, m: "y" }, { id: 4, s: 5, m: "z" }]), { rowKinds: [1, 3] });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(1), 1);
    await w.close();
    const rows = arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)).sort((a, b) => Number(a.id) - Number(b.id));
    // id 4: Java's FieldSumAgg.retract(null, 5) = -5; max ignores the retraction
    expect(rows).toEqual([
      { id: 1, s: 11, m: "x" },
      { id: 2, s: 1, m: null },
      { id: 3, s: 3, m: null },
      { id: 4, s: -5, m: null },
    ]);
  });

  it("refuses at write, changing nothing, retract rows an aggregator cannot retract (Java fails the commit's lookup compaction); ignore-delete drops them", async () => {
    const catalog = await Catalog.open(`memory://dv-merge-refuse-${process.pid}`);
    await catalog.createDatabase("db");
    const fields: FieldLike[] = [
      { name: "id", type: "INT NOT NULL" },
      { name: "m", type: "INT" },
    ];
    const options = { bucket: "2", "deletion-vectors.enabled": "true", "merge-engine": "aggregation", "fields.m.aggregate-function": "max" };
    // (so are the other lookup tables: changelog-producer=lookup, force-lookup)
    for (const [i, lookup] of ([{ "changelog-producer": "lookup" }, { "force-lookup": "true" }] as Array<Record<string, string>>).entries()) {
      const tl = await catalog.createTable(`db.l${i}`, { fields, primaryKeys: ["id"], options: { ...options, "deletion-vectors.enabled": "false", ...lookup } });
      const wl = await tl.newWrite({ commitUser: "u" });
      await expect(wl.write(rowsToBatch(fields, [{ id: 1, m: 5 }]), { rowKinds: [3] })).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("'max' (column m) does not support retraction") });
      await wl.close();
    }
    const t = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options });
    const w = await t.newWrite({ commitUser: "u" });
    const batch = rowsToBatch(fields, [{ id: 1, m: 5 }, { id: 2, m: 7 }, { id: 3, m: 1 }]);
    for (const kind of [1, 3] as const) {
      await expect(w.write(batch, { rowKinds: [0, 0, kind] })).rejects.toMatchObject({
        code: "UNSUPPORTED",
        message: "Aggregate function 'max' (column m) does not support retraction, If you allow this function to ignore retraction messages, you can configure 'fields.m.ignore-retract'='true'.",
      });
    }
    await w.write(rowsToBatch(fields, [{ id: 1, m: 3 }]));
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(0), 0);
    await w.close();
    const read = async (table: typeof t) => arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits));
    expect(await read(t)).toEqual([{ id: 1, m: 3 }]); // nothing of the refused batches
    // ignore-delete: -U/-D never reach the aggregators
    const t2 = await catalog.createTable("db.t2", { fields, primaryKeys: ["id"], options: { ...options, "ignore-delete": "true" } });
    const w2 = await t2.newWrite({ commitUser: "u" });
    await w2.write(batch, { rowKinds: [0, 3, 1] });
    await t2.newCommit({ commitUser: "u" }).commit(await w2.prepareCommit(0), 0);
    await w2.close();
    expect(await read(t2)).toEqual([{ id: 1, m: 5 }]);
  });
});
