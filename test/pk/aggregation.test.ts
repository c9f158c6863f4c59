// merge-engine=aggregation (Java AggregateMergeFunction): per-key reference model over several
// commits (merge-on-read across files) and full compaction, retraction, and the exact refusals.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";
import { commitRows, readRowsById } from "../support/pk-commits.js";
import { runs } from "../support/fc-runs.js";

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

const commit = (t: Table, rows: OracleRow[], kinds?: number[], compact = false, fields = FIELDS): Promise<void> => commitRows(t, fields, rows, kinds, compact);
const read = readRowsById;

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
      { numRuns: runs(25) },
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
      [{ "fields.m.aggregate-function": "collect" }, "INVALID_ARGUMENT", "Data type for collect column must be 'Array' but was 'INT'."],
      [{ "fields.m.aggregate-function": "rbm64" }, "INVALID_ARGUMENT", "Data type for roaring bitmap column must be 'VarBinaryType' but was 'INT'."],
      [{ "fields.m.aggregate-function": "rbm32" }, "INVALID_ARGUMENT", "Data type for roaring bitmap column must be 'VarBinaryType' but was 'INT'."],
      [{ "fields.m.aggregate-function": "nope" }, "INVALID_ARGUMENT", "Use unsupported aggregation: nope"],
      [{ "fields.m.aggregate-function": "bool_and" }, "INVALID_ARGUMENT", "does not support type INT"],
      [{ "aggregation.remove-record-on-delete": "true" }, "UNSUPPORTED", "aggregation.remove-record-on-delete"],
    ] as const) {
      const bad = await table({ bucket: "1", "merge-engine": "aggregation", ...opt }, fields).catch((e) => e);
      const err = bad instanceof Error ? bad : await commit(bad, [{ id: "1", m: 1 }], undefined, false, fields).catch((e) => e);
      expect(err).toMatchObject({ code, message: expect.stringContaining(text) });
    }
  });

  it("max / min over BOOLEAN: a lone value or nulls pass, comparing two values is refused as Java fails it (Incomparable type: BOOLEAN)", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "b", type: "BOOLEAN" },
    ];
    for (const fn of ["max", "min"]) {
      const t = await table({ bucket: "1", "merge-engine": "aggregation", "fields.b.aggregate-function": fn }, fields);
      await commit(t, [{ id: "1", b: true }, { id: "2", b: true }], undefined, false, fields);
      await commit(t, [{ id: "2", b: null }], undefined, false, fields);
      expect(await read(t)).toEqual([{ id: "1", b: true }, { id: "2", b: true }]);
      await commit(t, [{ id: "1", b: false }], undefined, false, fields);
      const refused = { name: "PaimonError", code: "INVALID_ARGUMENT", message: expect.stringContaining(`column b: aggregate function ${fn} cannot compare BOOLEAN values`) };
      await expect(read(t)).rejects.toMatchObject(refused);
      await expect(commit(t, [], undefined, true, fields)).rejects.toMatchObject(refused);
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

/** Rows as paimon-rt reads them, without the JSON round trip (which prints -0 as 0). */
async function readRaw(t: Table): Promise<OracleRow[]> {
  const plan = await t.newScan().plan();
  return arrowToRows(await t.newRead().toArrow(plan.splits)).sort((a, b) => Number(a.id) - Number(b.id));
}

const aggOptions = (fns: Record<string, string>, extra: Record<string, string> = {}) => ({
  bucket: "1",
  "merge-engine": "aggregation",
  ...Object.fromEntries(Object.entries(fns).map(([k, v]) => [`fields.${k}.aggregate-function`, v])),
  ...extra,
});

describe("merge-engine=aggregation arithmetic at the edges (Java 1.4.2 Field*Agg)", () => {
  it("DECIMAL sum: a compact DECIMAL(p <= 18) keeps a sum past p digits (in files too), null only past a long; a non-compact one is null past p digits", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "d52", type: "DECIMAL(5, 2)" },
      { name: "d90", type: "DECIMAL(9, 0)" },
      { name: "d17", type: "DECIMAL(17, 0)" },
      { name: "d18", type: "DECIMAL(18, 0)" },
      { name: "d19", type: "DECIMAL(19, 0)" },
    ];
    const t = await table(aggOptions({ d52: "sum", d90: "sum", d17: "sum", d18: "sum", d19: "sum" }), fields);
    const top = { d52: "999.99", d18: "999999999999999999", d19: "9999999999999999999" };
    // key 2 reaches Long.MAX_VALUE exactly in DECIMAL(17, 0) (92 x (10^17 - 1) + 23372036854775899), then one more
    await commit(t, [{ id: "1", ...top }, ...Array.from({ length: 92 }, () => ({ id: "2", d17: "99999999999999999" })), { id: "3", d90: "999999999" }, { id: "3", d90: "999999999" }, { id: "3", d90: "999999999" }], undefined, false, fields);
    await commit(t, [{ id: "1", ...top }, { id: "2", d17: "23372036854775899" }], undefined, false, fields);
    const merged = [
      { id: "1", d52: "1999.98", d90: null, d17: null, d18: "1999999999999999998", d19: null },
      { id: "2", d52: null, d90: null, d17: "9223372036854775807", d18: null, d19: null },
      // the write buffer's 2999999997 went to Parquet INT32 as its low 32 bits, as Java writes it
      { id: "3", d52: null, d90: String(BigInt.asIntN(32, 2999999997n)), d17: null, d18: null, d19: null },
    ];
    expect(await read(t)).toEqual(merged);
    await commit(t, [], undefined, true, fields);
    expect(await read(t)).toEqual(merged);
    await commit(t, [{ id: "1", d52: "0.01", d18: "1" }, { id: "2", d17: "1" }], undefined, false, fields);
    const after = [{ ...merged[0], d52: "1999.99", d18: "1999999999999999999" }, { ...merged[1], d17: null }, merged[2]];
    expect(await read(t)).toEqual(after);
    await commit(t, [], undefined, true, fields);
    expect(await read(t)).toEqual(after);
  });

  it("a write whose DECIMAL value has more digits than the precision is refused (only merged sums exceed it)", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "d", type: "DECIMAL(16, 2)" },
    ];
    const t = await table(aggOptions({ d: "sum" }), fields);
    const ok = rowsToBatch(fields, [{ id: "1", d: "99999999999999.99" }, { id: "2", d: null }]);
    const unscaled = [10n ** 16n, -(10n ** 16n)];
    for (const v of unscaled) {
      // the batch of `ok` with row 1's decimal replaced by v (Decimal128: four little-endian words)
      const words = Uint32Array.from(ok.data.children[1].values as Uint32Array);
      const u = BigInt.asUintN(128, v);
      for (let k = 0; k < 4; k++) words[4 + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
      const d = arrow.makeData({ type: ok.data.children[1].type, length: 2, nullCount: 0, data: words } as never) as arrow.Data;
      const bad = new arrow.RecordBatch(ok.schema, arrow.makeData({ type: new arrow.Struct(ok.schema.fields), length: 2, nullCount: 0, children: [ok.data.children[0], d] }));
      const write = await t.newWrite({ commitUser: "u" });
      await expect(write.write(bad)).rejects.toMatchObject({ name: "PaimonError", code: "INVALID_ARGUMENT", message: `column d of table ${t.identifier}: value ${v < 0n ? "-" : ""}100000000000000.00 (row 1) does not fit DECIMAL(16, 2)` });
      await write.close();
    }
    await commit(t, [{ id: "1", d: "99999999999999.99" }], undefined, false, fields);
    await commit(t, [{ id: "1", d: "99999999999999.99" }], undefined, true, fields);
    expect(await read(t)).toEqual([{ id: "1", d: "199999999999999.98" }]);
  });

  it("DECIMAL retraction: a compact difference past p digits is kept, a non-compact one is null", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "d18", type: "DECIMAL(18, 2)" },
      { name: "d20", type: "DECIMAL(20, 2)" },
    ];
    for (const compact of [false, true]) {
      const t = await table(aggOptions({ d18: "sum", d20: "sum" }), fields);
      const low = { id: "1", d18: "-9999999999999999.99", d20: "-999999999999999999.99" };
      await commit(t, [low], undefined, false, fields);
      await commit(t, [{ id: "1", d18: "9999999999999999.99", d20: "999999999999999999.99" }], [3], compact, fields);
      expect(await read(t)).toEqual([{ id: "1", d18: "-19999999999999999.98", d20: null }]);
    }
  });

  it("TINYINT / SMALLINT / INT / BIGINT sum and product wrap around; retracting MIN_VALUE first negates it to itself", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "ti", type: "TINYINT" },
      { name: "si", type: "SMALLINT" },
      { name: "i", type: "INT" },
      { name: "b", type: "BIGINT" },
      { name: "pti", type: "TINYINT" },
      { name: "psi", type: "SMALLINT" },
      { name: "pi", type: "INT" },
      { name: "pb", type: "BIGINT" },
    ];
    const options = aggOptions({ ti: "sum", si: "sum", i: "sum", b: "sum", pti: "product", psi: "product", pi: "product", pb: "product" });
    const max = { ti: 127, si: 32767, i: 2147483647, b: "9223372036854775807" };
    const min = { ti: -128, si: -32768, i: -2147483648, b: "-9223372036854775808" };
    for (const compact of [false, true]) {
      const t = await table(options, fields);
      await commit(t, [{ id: "1", ...max, pti: 16, psi: 200, pi: 65536, pb: "4294967296" }, { id: "2", ...min, pti: -128, psi: -32768, pi: -2147483648, pb: "-9223372036854775808" }], undefined, false, fields);
      await commit(t, [{ id: "1", ti: 1, si: 1, i: 1, b: "1", pti: 16, psi: 200, pi: 65536, pb: "4294967296" }], undefined, false, fields);
      // key 2: -1 more; key 3: -U of MIN_VALUE first, then a -D of 1: MIN_VALUE - 1 wraps to MAX_VALUE
      await commit(t, [{ id: "2", ti: 1, si: 1, i: 1, b: "1", pti: -1, psi: -1, pi: -1, pb: "-1" }, { id: "3", ...min }, { id: "3", ti: 1, si: 1, i: 1, b: "1" }], [3, 1, 3], compact, fields);
      expect(await read(t)).toEqual([
        { id: "1", ...min, pti: 0, psi: 200 * 200 - 65536, pi: 0, pb: "0" },
        { id: "2", ...max, pti: -128, psi: -32768, pi: -2147483648, pb: "-9223372036854775808" },
        { id: "3", ...max, pti: null, psi: null, pi: null, pb: null },
      ]);
    }
  });

  it("FLOAT / DOUBLE: sums overflow to ±Infinity and NaN; max / min order as Float.compare (NaN above +Infinity, -0.0 below 0.0)", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "f", type: "FLOAT" },
      { name: "d", type: "DOUBLE" },
      { name: "mxf", type: "FLOAT" },
      { name: "mnf", type: "FLOAT" },
      { name: "mxd", type: "DOUBLE" },
      { name: "mnd", type: "DOUBLE" },
    ];
    const options = aggOptions({ f: "sum", d: "sum", mxf: "max", mnf: "min", mxd: "max", mnd: "min" });
    for (const compact of [false, true]) {
      const t = await table(options, fields);
      await commit(t, [{ id: "1", f: 3.4028234663852886e38, d: 1.7976931348623157e308, mxf: 1, mnf: 1, mxd: -0, mnd: -0 }, { id: "2", f: "Infinity", d: "-Infinity", mxf: "NaN", mnf: "NaN", mxd: 0, mnd: 0 }], undefined, false, fields);
      await commit(t, [{ id: "1", f: 3.4028234663852886e38, d: 1.7976931348623157e308, mxf: "NaN", mnf: "NaN", mxd: 0, mnd: 0 }, { id: "2", f: "-Infinity", d: "Infinity", mxf: "Infinity", mnf: "-Infinity", mxd: -0, mnd: -0 }], undefined, compact, fields);
      const rows = await readRaw(t);
      expect(rows).toEqual([
        { id: "1", f: "Infinity", d: "Infinity", mxf: "NaN", mnf: 1, mxd: 0, mnd: -0 },
        { id: "2", f: "NaN", d: "NaN", mxf: "NaN", mnf: "-Infinity", mxd: 0, mnd: -0 },
      ]);
      for (const r of rows) {
        expect(Object.is(r.mxd, 0)).toBe(true);
        expect(Object.is(r.mnd, -0)).toBe(true);
      }
    }
  });

  it("DECIMAL product: exact, rounded half-up to the scale, null past p digits; retraction divides exactly and refuses a quotient Java cannot represent", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "p", type: "DECIMAL(5, 2)" },
    ];
    const options = aggOptions({ p: "product" });
    const t = await table(options, fields);
    await commit(t, [{ id: "1", p: "2.00" }, { id: "2", p: "999.99" }, { id: "3", p: "0.05" }, { id: "4", p: "0.05" }], undefined, false, fields);
    await commit(t, [{ id: "1", p: "3.00" }, { id: "2", p: "2.00" }, { id: "3", p: "0.05" }, { id: "4", p: "1.00" }], undefined, false, fields);
    await commit(t, [{ id: "1", p: "8.00" }, { id: "4", p: "0.08" }], [1, 1], false, fields);
    // 6.00 / 8.00 = 0.75; 999.99 x 2 needs 6 digits: null; 0.05 x 0.05 = 0.0025 -> 0.00 (HALF_UP); 0.05 / 0.08 = 0.625 -> 0.63
    const expected = [
      { id: "1", p: "0.75" },
      { id: "2", p: null },
      { id: "3", p: "0.00" },
      { id: "4", p: "0.63" },
    ];
    expect(await read(t)).toEqual(expected);
    await commit(t, [], undefined, true, fields);
    expect(await read(t)).toEqual(expected);
    // 0.75 / 0.07 has no finite decimal expansion: Java's BigDecimal.divide throws, paimon-rt refuses
    await commit(t, [{ id: "1", p: "0.07" }], [1], false, fields);
    const refused = { name: "PaimonError", code: "INVALID_ARGUMENT", message: expect.stringContaining("column p: product retraction 0.75 / 0.07 has no exact decimal quotient") };
    await expect(read(t)).rejects.toMatchObject(refused);
    await expect(commit(t, [], undefined, true, fields)).rejects.toMatchObject(refused);
  });
});

describe("rbm32 and listagg distinct (Java FieldRoaringBitmap32Agg, FieldListaggAgg; bytes against Java: test/interop/aggregate-functions-interop.test.ts)", () => {
  const BM: FieldLike[] = [
    { name: "id", type: "BIGINT NOT NULL" },
    { name: "bm", type: "BYTES" },
    { name: "la", type: "STRING" },
  ];
  const options = { bucket: "1", "merge-engine": "aggregation", "fields.bm.aggregate-function": "rbm32", "fields.la.aggregate-function": "listagg", "fields.la.distinct": "true" };

  it("rbm32 merges to the run-optimized union; listagg distinct appends only new tokens (model, merge-on-read and compacted)", async () => {
    const { RoaringBitmap32 } = await import("../../src/kernel/bitmap.js");
    const serialize = (values: number[]) => {
      const b = new RoaringBitmap32(values);
      b.runOptimize("java");
      const out = Buffer.from(b.serializePortable()).toString("base64");
      b.dispose();
      return out;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ bits: fc.array(fc.oneof(fc.integer({ min: 0, max: 70000 }), fc.constant(4294967295)), { maxLength: 30 }), tokens: fc.array(fc.constantFrom("a", "b", "c", ""), { maxLength: 4 }) }), { minLength: 1, maxLength: 4 }), async (commits) => {
        const t = await table(options, BM);
        for (const c of commits) await commit(t, [{ id: "1", bm: serialize(c.bits), la: c.tokens.join(",") }], undefined, false, BM);
        const union = [...new Set(commits.flatMap((c) => c.bits))].sort((a, b) => a - b);
        let la = commits[0]!.tokens.join(",");
        for (const c of commits.slice(1)) {
          const input = c.tokens.join(",");
          if (input === "") continue;
          if (la === "") {
            la = input;
            continue;
          }
          const seen = new Set(la.split(","));
          for (const tok of input.split(",")) if (tok !== "" && !seen.has(tok)) (seen.add(tok), (la += `,${tok}`));
        }
        const expected = [{ id: "1", bm: commits.length === 1 ? serialize(commits[0]!.bits) : serialize(union), la }];
        expect(await read(t)).toEqual(expected);
        await commit(t, [], undefined, true, BM);
        expect(await read(t)).toEqual(expected);
      }),
      { numRuns: runs(15) },
    );
  });
});

describe("rbm64 (Java FieldRoaringBitmap64Agg; bytes against Java: test/interop/roaring64-interop.test.ts, test/interop/aggregate-functions-interop.test.ts)", () => {
  const BM: FieldLike[] = [
    { name: "id", type: "BIGINT NOT NULL" },
    { name: "bm", type: "BYTES" },
  ];
  const options = { bucket: "1", "merge-engine": "aggregation", "fields.bm.aggregate-function": "rbm64" };
  const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

  it("merges to the union of the records in sequence order (model: roaring64Or left to right), merge-on-read and compacted; null keeps the other side", async () => {
    const { roaring64Or } = await import("../../src/kernel/roaring64.js");
    const { oneKeyRoaring64 } = await import("../support/roaring64.js");
    /** A bitmap of (high key, low 16 bits) pairs, built one key at a time. */
    const bitmapOf = (values: Array<[number, number]>) => {
      const byKey = new Map<number, Set<number>>();
      for (const [h, l] of values) byKey.set(h, (byKey.get(h) ?? new Set()).add(l));
      return [...byKey].reduce<Uint8Array>((acc, [h, lows]) => roaring64Or(acc, oneKeyRoaring64(BigInt(h), [...lows].sort((a, b) => a - b)), "bm"), new Uint8Array([0]));
    };
    const value = fc.tuple(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(2 ** 48 - 1)), fc.integer({ min: 0, max: 65535 }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.array(value, { maxLength: 12 }), { freq: 4 }), { minLength: 1, maxLength: 4 }), async (commits) => {
        const t = await table(options, BM);
        const inputs = commits.map((c) => (c === null ? null : bitmapOf(c)));
        for (const bm of inputs) await commit(t, [{ id: "1", bm: bm === null ? null : b64(bm) }], undefined, false, BM);
        const union = inputs.reduce((acc, x) => (acc === null || x === null ? (acc ?? x) : roaring64Or(acc, x, "bm")));
        const expected = [{ id: "1", bm: union === null ? null : b64(union) }];
        expect(await read(t)).toEqual(expected);
        await commit(t, [], undefined, true, BM);
        expect(await read(t)).toEqual(expected);
      }),
      { numRuns: runs(15) },
    );
  });

  it("a retraction fails as Java's (no retract), is skipped with ignore-retract; malformed bytes are CORRUPT_FILE naming the column", async () => {
    const { oneKeyRoaring64 } = await import("../support/roaring64.js");
    const one = b64(oneKeyRoaring64(3n, [1, 2]));
    const t = await table(options, BM);
    await commit(t, [{ id: "1", bm: one }], undefined, false, BM);
    await commit(t, [{ id: "1", bm: one }], [1], false, BM);
    await expect(read(t)).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("Aggregate function 'rbm64' (column bm) does not support retraction") });
    const ignoring = await table({ ...options, "fields.bm.ignore-retract": "true" }, BM);
    await commit(ignoring, [{ id: "1", bm: one }], undefined, false, BM);
    await commit(ignoring, [{ id: "1", bm: b64(oneKeyRoaring64(4n, [5])) }], [1], false, BM);
    expect(await read(ignoring)).toEqual([{ id: "1", bm: one }]);
    const bad = await table(options, BM);
    await commit(bad, [{ id: "1", bm: one }], undefined, false, BM);
    await commit(bad, [{ id: "1", bm: b64(new Uint8Array([1, 2, 3])) }], undefined, false, BM);
    await expect(read(bad)).rejects.toMatchObject({ code: "CORRUPT_FILE", message: expect.stringContaining("aggregate function rbm64 of column bm: not a valid Roaring64Bitmap serialization") });
  });
});
