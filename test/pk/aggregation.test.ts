// merge-engine=aggregation (Java AggregateMergeFunction): per-key reference model over several
// commits (merge-on-read across files) and full compaction, retraction, and the exact refusals.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "s", type: "INT" },
  { name: "p", type: "BIGINT" },
  { name: "d", type: "DECIMAL(20, 2)" },
  { name: "f", type: "FLOAT" },
  { name: "mx", type: "STRING" },
  { name: "mn", type: "INT" },
  { name: "lv", type: "INT" },
  { name: "lnn", type: "STRING" },
  { name: "fv", type: "INT" },
  { name: "fnn", type: "INT" },
  { name: "ba", type: "BOOLEAN" },
  { name: "bo", type: "BOOLEAN" },
  { name: "la", type: "STRING" },
];
const FN: Record<string, string> = { s: "sum", p: "product", d: "sum", f: "sum", mx: "max", mn: "min", lv: "last_value", fv: "first_value", fnn: "first_non_null_value", ba: "bool_and", bo: "bool_or", la: "listagg" };
const OPTIONS: Record<string, string> = { bucket: "2", "merge-engine": "aggregation", "fields.la.list-agg-delimiter": ";", ...Object.fromEntries(Object.entries(FN).map(([k, v]) => [`fields.${k}.aggregate-function`, v])) };

const ID_M: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "m", type: "INT" },
];

let n = 0;
async function table(options: Record<string, string> = OPTIONS, fields = FIELDS): Promise<Table> {
  const catalog = await Catalog.open(`memory://agg-${process.pid}-${n++}`);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.t${n++}`, { fields, primaryKeys: ["id"], options });
}

async function commit(t: Table, rows: OracleRow[], kinds?: number[], compact = false, fields = FIELDS): Promise<void> {
  const write = await t.newWrite({ commitUser: "u" });
  if (rows.length > 0) await write.write(rowsToBatch(fields, rows), kinds ? { rowKinds: kinds } : undefined);
  if (compact) await write.compact({ full: true });
  await t.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(n), n++);
  await write.close();
}

async function read(t: Table): Promise<OracleRow[]> {
  const plan = await t.newScan().plan();
  const rows = arrowToRows(await t.newRead().toArrow(plan.splits));
  return JSON.parse(JSON.stringify(rows)).sort((a: OracleRow, b: OracleRow) => Number(a.id) - Number(b.id));
}

/** The reference: Java's agg(acc, input) per column over one key's +I rows, in order. */
function fold(rows: OracleRow[]): OracleRow {
  if (rows.length === 1) return rows[0];
  const out: OracleRow = { id: rows[0].id };
  for (const f of FIELDS.slice(1).map((x) => x.name)) {
    let acc: unknown = null;
    let init = false;
    for (const r of rows) {
      const v = r[f] ?? null;
      const fn = FN[f] ?? "last_non_null_value";
      if (fn === "last_value") acc = v;
      else if (fn === "last_non_null_value") acc = v ?? acc;
      else if (fn === "first_value") {
        if (!init) (acc = v), (init = true);
      } else if (fn === "first_non_null_value") {
        if (!init && v !== null) (acc = v), (init = true);
      } else if (acc === null || v === null) acc = acc ?? v;
      else if (fn === "sum" && f === "s") acc = ((acc as number) + (v as number)) | 0;
      else if (fn === "sum" && f === "f") acc = Math.fround((acc as number) + (v as number));
      else if (fn === "sum") acc = cents(BigInt(String(acc).replace(".", "")) + BigInt(String(v).replace(".", "")));
      else if (fn === "product") acc = String(BigInt.asIntN(64, BigInt(acc as string) * BigInt(v as string)));
      else if (fn === "max") acc = Buffer.compare(Buffer.from(acc as string), Buffer.from(v as string)) < 0 ? v : acc;
      else if (fn === "min") acc = (acc as number) < (v as number) ? acc : v;
      else if (fn === "bool_and") acc = (acc as boolean) && (v as boolean);
      else if (fn === "bool_or") acc = (acc as boolean) || (v as boolean);
      else if (fn === "listagg") acc = v === "" ? acc : acc === "" ? v : `${acc};${v}`;
    }
    out[f] = acc;
  }
  return out;
}
const cents = (c: bigint) => {
  const neg = c < 0n;
  const s = (neg ? -c : c).toString().padStart(3, "0");
  return `${neg ? "-" : ""}${s.slice(0, -2)}.${s.slice(-2)}`;
};

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });
const rowArb = fc.record({
  id: fc.integer({ min: 1, max: 6 }).map(String),
  s: nullable(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 })),
  p: nullable(fc.integer({ min: -1000, max: 1000 }).map(String)),
  d: nullable(fc.integer({ min: -10_000_000, max: 10_000_000 }).map((x) => cents(BigInt(x)))),
  f: nullable(fc.integer({ min: -1000, max: 1000 }).map((x) => Math.fround(x / 8))),
  mx: nullable(fc.constantFrom("a", "b", "é", "Z", "", "ab")),
  mn: nullable(fc.integer({ min: -5, max: 5 })),
  lv: nullable(fc.integer({ min: 0, max: 9 })),
  lnn: nullable(fc.constantFrom("x", "y")),
  fv: nullable(fc.integer({ min: 0, max: 9 })),
  fnn: nullable(fc.integer({ min: 0, max: 9 })),
  ba: nullable(fc.boolean()),
  bo: nullable(fc.boolean()),
  la: nullable(fc.constantFrom("u", "v", "")),
});

describe("merge-engine=aggregation", () => {
  it("matches a per-key model across commits (merge-on-read) and after full compaction", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(rowArb, { maxLength: 12 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: -1, max: 3 }), async (commits, compactAt) => {
        const t = await table();
        for (const [i, rows] of commits.entries()) await commit(t, rows, undefined, i === compactAt);
        const byKey = new Map<string, OracleRow[]>();
        for (const r of commits.flat()) byKey.set(r.id as string, [...(byKey.get(r.id as string) ?? []), r]);
        const expected = JSON.parse(JSON.stringify([...byKey.values()].map(fold))).sort((a: OracleRow, b: OracleRow) => Number(a.id) - Number(b.id));
        for (const e of expected) for (const f of FIELDS) e[f.name] ??= null;
        expect(await read(t)).toEqual(expected);
        await commit(t, [], undefined, true);
        expect(await read(t)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it("retracts: sum subtracts, product divides, last_value sets null, last_non_null_value clears, ignore-retract keeps", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "s", type: "INT" },
      { name: "d", type: "DECIMAL(10, 2)" },
      { name: "p", type: "DOUBLE" },
      { name: "lv", type: "INT" },
      { name: "lnn", type: "STRING" },
      { name: "mx", type: "INT" },
    ];
    const options = { bucket: "1", "merge-engine": "aggregation", "fields.s.aggregate-function": "sum", "fields.d.aggregate-function": "sum", "fields.p.aggregate-function": "product", "fields.lv.aggregate-function": "last_value", "fields.mx.aggregate-function": "max", "fields.mx.ignore-retract": "true" };
    for (const compact of [false, true]) {
      const t = await table(options, fields);
      await commit(t, [{ id: "1", s: 10, d: "1.50", p: 6, lv: 1, lnn: "a", mx: 3 }, { id: "2", s: 1, lnn: "b" }], undefined, false, fields);
      // key 1: -U retracts the old row; key 3: a lone -D never surfaces
      await commit(t, [{ id: "1", s: 4, d: "0.25", p: 2, lv: 1, lnn: "a", mx: 7 }, { id: "3", s: 5 }], [1, 3], false, fields);
      await commit(t, [{ id: "1", s: 1, lnn: null, mx: 1 }], [2], compact, fields);
      expect(await read(t)).toEqual([
        { id: "1", s: 7, d: "1.25", p: 3, lv: null, lnn: null, mx: 3 },
        { id: "2", s: 1, d: null, p: null, lv: null, lnn: "b", mx: null },
      ]);
    }
  });

  it("refuses retraction where Java throws, and unsupported options", async () => {
    const fields = ID_M;
    const t = await table({ bucket: "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "max" }, fields);
    await commit(t, [{ id: "1", m: 1 }], undefined, false, fields);
    await commit(t, [{ id: "1", m: 1 }], [1], false, fields);
    await expect(read(t)).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("Aggregate function 'max' (column m) does not support retraction") });
    for (const [opt, code, text] of [
      [{ "fields.m.aggregate-function": "collect" }, "UNSUPPORTED", "aggregate function collect"],
      [{ "fields.m.aggregate-function": "rbm32" }, "UNSUPPORTED", "column m"],
      [{ "fields.m.aggregate-function": "nope" }, "INVALID_ARGUMENT", "Use unsupported aggregation: nope"],
      [{ "fields.m.aggregate-function": "bool_and" }, "INVALID_ARGUMENT", "does not support type INT"],
      [{ "aggregation.remove-record-on-delete": "true" }, "UNSUPPORTED", "aggregation.remove-record-on-delete"],
    ] as const) {
      const bad = await table({ bucket: "1", "merge-engine": "aggregation", ...opt }, fields).catch((e) => e);
      const err = bad instanceof Error ? bad : await commit(bad, [{ id: "1", m: 1 }], undefined, false, fields).catch((e) => e);
      expect(err).toMatchObject({ code, message: expect.stringContaining(text) });
    }
  });

  it("partial-update: aggregate functions other than last_non_null_value need sequence groups (as Java)", async () => {
    const fields = ID_M;
    const ok = await table({ bucket: "1", "merge-engine": "partial-update", "fields.default-aggregate-function": "last_non_null_value" }, fields);
    await commit(ok, [{ id: "1", m: 1 }], undefined, false, fields);
    await commit(ok, [{ id: "1", m: null }], undefined, false, fields);
    expect(await read(ok)).toEqual([{ id: "1", m: 1 }]);
    const bad = await table({ bucket: "1", "merge-engine": "partial-update", "fields.m.aggregate-function": "sum" }, fields).catch((e) => e);
    const err = bad instanceof Error ? bad : await commit(bad, [{ id: "1", m: 1 }], undefined, false, fields).catch((e) => e);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("Must use sequence group for aggregation functions but not found for field m") });
  });
});
