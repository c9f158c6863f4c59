/**
 * Aggregation arithmetic at the edges, against Java Paimon 1.4.2: sum / product / max / min over
 * TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE and DECIMAL (compact INT32 and INT64, and
 * non-compact) with values that overflow, wrap, hit NaN / ±Infinity / -0.0, null cells and
 * retraction rows that drive sums negative. Java and paimon-rt each write the same commits; both
 * read every table identically merged on read, and again after each side compacts its own and
 * the other's table. Merges Java itself fails on, paimon-rt refuses. Skips without the Java oracle.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { BinaryRow, fromBinaryRow } from "../../src/spec/binary-row.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "../interop/convert.js";
import { rtCommitRows } from "../interop/rt-commit.js";
import { javaOracleUnavailable, type OracleRow, readTables, sortRows, writeTables } from "../interop/oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[aggregation-arithmetic-interop] skipping: ${noJava}`);
const DB = "arith";

const COLUMNS: Array<[name: string, type: string, fn: string]> = [
  ["ti", "TINYINT", "sum"],
  ["si", "SMALLINT", "sum"],
  ["i", "INT", "sum"],
  ["b", "BIGINT", "sum"],
  ["f", "FLOAT", "sum"],
  ["d", "DOUBLE", "sum"],
  ["d52", "DECIMAL(5, 2)", "sum"],
  ["d90", "DECIMAL(9, 0)", "sum"],
  ["d18", "DECIMAL(18, 0)", "sum"],
  ["d20", "DECIMAL(20, 2)", "sum"],
  ["pti", "TINYINT", "product"],
  ["psi", "SMALLINT", "product"],
  ["pi", "INT", "product"],
  ["pb", "BIGINT", "product"],
  ["pf", "FLOAT", "product"],
  ["pd", "DOUBLE", "product"],
  ["pd52", "DECIMAL(5, 2)", "product"],
  ["pd20", "DECIMAL(20, 2)", "product"],
  ["mxf", "FLOAT", "max"],
  ["mnd", "DOUBLE", "min"],
  ["mxti", "TINYINT", "max"],
  ["mnd18", "DECIMAL(18, 0)", "min"],
];
const FIELDS: FieldLike[] = [{ name: "id", type: "BIGINT NOT NULL" }, ...COLUMNS.map(([name, type]) => ({ name, type }))];
const OPTIONS: Record<string, string> = {
  bucket: "1",
  "merge-engine": "aggregation",
  ...Object.fromEntries(COLUMNS.map(([name, , fn]) => [`fields.${name}.aggregate-function`, fn])),
  // max / min have no retraction
  "fields.mxf.ignore-retract": "true",
  "fields.mnd.ignore-retract": "true",
  "fields.mxti.ignore-retract": "true",
  "fields.mnd18.ignore-retract": "true",
};

type Kind = "+I" | "-U" | "+U" | "-D";
type KindRow = OracleRow & { _kind: Kind };

const MAX: OracleRow = {
  ti: 127, si: 32767, i: 2147483647, b: "9223372036854775807", f: 3.4028234663852886e38, d: 1.7976931348623157e308,
  d52: "999.99", d90: "999999999", d18: "999999999999999999", d20: "999999999999999999.99",
  pti: 127, psi: 32767, pi: 2147483647, pb: "9223372036854775807", pf: 3e38, pd: 1e300, pd52: "999.99", pd20: "99999999999.99",
  mxf: 1.5, mnd: 0, mxti: 127, mnd18: "999999999999999999",
};
const MIN: OracleRow = {
  ti: -128, si: -32768, i: -2147483648, b: "-9223372036854775808", f: -3.4028234663852886e38, d: -1.7976931348623157e308,
  d52: "-999.99", d90: "-999999999", d18: "-999999999999999999", d20: "-999999999999999999.99",
  pti: -128, psi: -32768, pi: -2147483648, pb: "-9223372036854775808", pf: -3e38, pd: -1e300, pd52: "-999.99", pd20: "-99999999999.99",
  mxf: -1.5, mnd: -0, mxti: -128, mnd18: "-999999999999999999",
};
const SMALL: OracleRow = {
  ti: 3, si: 3, i: 3, b: "3", f: 0.1, d: 0.1, d52: "1.25", d90: "3", d18: "3", d20: "1.25",
  pti: 2, psi: 2, pi: 2, pb: "2", pf: 0.5, pd: 0.5, pd52: "0.05", pd20: "0.05", mxf: 0.25, mnd: 0.25, mxti: 3, mnd18: "3",
};
const SPECIAL: OracleRow = {
  ti: 1, si: 1, i: 1, b: "1", f: "NaN", d: "Infinity", d52: "0.01", d90: "1", d18: "1", d20: "0.01",
  pti: 1, psi: 1, pi: 1, pb: "1", pf: "Infinity", pd: "-Infinity", pd52: "2.00", pd20: "2.00", mxf: "NaN", mnd: "-Infinity", mxti: 1, mnd18: "1",
};
const NULLS: OracleRow = Object.fromEntries(COLUMNS.map(([name]) => [name, null]));

const row = (id: number, kind: Kind, values: OracleRow): KindRow => ({ _kind: kind, id: String(id), ...values });

/**
 * Four commits over six keys: 1 sums past every maximum (12 rows: long and compact decimal
 * overflow, INT32 decimal wrap on write), 2 past every minimum, 3 retracts the minimum first
 * (negating MIN_VALUE) then retracts below zero, 4 mixes NaN / ±Infinity / -0.0, 5 starts from
 * nulls and retracts into them, 6 is a lone row.
 */
function commits(): KindRow[][] {
  const out: KindRow[][] = [];
  for (let c = 0; c < 4; c++) {
    const rows: KindRow[] = [];
    if (c < 3) for (let k = 0; k < 4; k++) rows.push(row(1, "+I", MAX));
    if (c < 3) for (let k = 0; k < 3; k++) rows.push(row(2, "+I", MIN));
    if (c === 0) rows.push(row(3, "-U", MIN), row(3, "+U", SMALL));
    if (c === 2) rows.push(row(3, "-D", MAX), row(3, "-D", SMALL));
    if (c === 0) rows.push(row(4, "+I", SMALL), row(4, "+I", SPECIAL));
    if (c === 1) rows.push(row(4, "+I", { ...SPECIAL, f: "Infinity", d: "-Infinity", pf: 0, pd: 0, mxf: 2, mnd: -0 }));
    if (c === 3) rows.push(row(4, "-U", SMALL), row(4, "+I", { ...SMALL, mnd: 0, mxf: "-Infinity" }));
    if (c === 0) rows.push(row(5, "+I", NULLS));
    if (c === 1) rows.push(row(5, "-D", SMALL), row(5, "-U", NULLS));
    if (c === 3) rows.push(row(5, "+I", MAX), row(5, "-D", MIN));
    if (c === 1) rows.push(row(6, "+I", MIN));
    out.push(rows);
  }
  return out;
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-agg-arith-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

async function rtRead(catalog: Catalog, ident: string): Promise<OracleRow[]> {
  const table = await catalog.getTable(ident);
  const plan = await table.newScan().plan();
  return sortRows(arrowToRows(await table.newRead().toArrow(plan.splits)));
}

async function rtWrite(table: Table, fields: FieldLike[], all: readonly KindRow[][]): Promise<void> {
  for (const [i, rows] of all.entries()) await rtCommitRows(table, fields, rows, { identifier: i + 1 });
}

async function rtCompact(catalog: Catalog, ident: string): Promise<void> {
  const table = await catalog.getTable(ident);
  const write = await table.newWrite({ commitUser: "rt-compact" });
  await write.compact({ full: true });
  await table.newCommit({ commitUser: "rt-compact" }).commit(await write.prepareCommit(100), 100);
  await write.close();
}

/** The value statistics of a table's single live data file, decoded. */
async function valueStats(catalog: Catalog, ident: string): Promise<{ min: unknown[]; max: unknown[]; nulls: Array<bigint | null> | null }> {
  const table = await catalog.getTable(ident);
  const entries = await table.manifestStore.liveEntries((await table.latestSnapshot())!);
  expect(entries).toHaveLength(1);
  const { file } = entries[0];
  const types = table.schema.fields.map((f) => f.type);
  const decode = (bytes: Uint8Array) => fromBinaryRow(BinaryRow.fromSerialized(bytes), types);
  return { min: decode(file.valueStats.minValues), max: decode(file.valueStats.maxValues), nulls: file.valueStats.nullCounts };
}

/** JSON-normalized rows (as the oracles print them; -0 and 0 both print as 0). */
const norm = (rows: OracleRow[]) => JSON.parse(JSON.stringify(rows)) as OracleRow[];
const cell = (rows: OracleRow[], id: number, column: string) => rows.find((r) => r.id === String(id))?.[column];

describe.skipIf(noJava !== null)("aggregation arithmetic interop with Java Paimon 1.4.2", () => {
  it("overflow, wrap, NaN / Infinity, nulls and retraction: identical rows merged on read and after either side compacts", async () => {
    const wh = path.join(root, "wh");
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase(DB);
    const all = commits();
    const spec = { fields: FIELDS, primaryKeys: ["id"], options: OPTIONS, commits: all };
    await writeTables("java", wh, [
      { identifier: `${DB}.java_a`, spec },
      { identifier: `${DB}.java_b`, spec },
    ]);
    for (const name of ["rt_a", "rt_b"]) await rtWrite(await catalog.createTable(`${DB}.${name}`, { fields: FIELDS, primaryKeys: ["id"], options: OPTIONS }), FIELDS, all);
    const names = ["java_a", "java_b", "rt_a", "rt_b"];

    const javaRead = async () => {
      const out = await readTables("java", names.map((n) => ({ warehouse: wh, identifier: `${DB}.${n}`, sort: true })));
      return out.map((r) => {
        if (r instanceof Error) throw r;
        return norm(r);
      });
    };
    const merged = await javaRead();
    const expectedMerged = merged[0];
    expect(expectedMerged.map((r) => r.id).sort()).toEqual(["1", "2", "3", "4", "5", "6"]);
    for (const rows of merged) expect(rows).toEqual(expectedMerged);
    for (const n of names) expect(norm(await rtRead(catalog, `${DB}.${n}`))).toEqual(expectedMerged);
    // Java keeps a compact DECIMAL sum past its precision (each commit's file holds the INT32 low
    // bits of its own 4 x 999999999); the INT64 one overflows to null, the non-compact one too
    expect(cell(expectedMerged, 1, "d52")).toBe("11999.88");
    expect(cell(expectedMerged, 1, "d90")).toBe(String(3n * BigInt.asIntN(32, 3999999996n)));
    expect(cell(expectedMerged, 2, "d90")).toBe(String(3n * BigInt.asIntN(32, -2999999997n)));
    expect(cell(expectedMerged, 1, "d18")).toBeNull();
    expect(cell(expectedMerged, 2, "d18")).toBe("-8999999999999999991");
    expect(cell(expectedMerged, 1, "d20")).toBeNull();
    expect(cell(expectedMerged, 1, "si")).toBe(-12);
    expect(cell(expectedMerged, 4, "mxf")).toBe("NaN");

    // each side compacts its own a-table and the other's b-table
    await writeTables("java", wh, [
      { identifier: `${DB}.java_a`, spec: { commits: [{ rows: [], compact: true }] } },
      { identifier: `${DB}.rt_b`, spec: { commits: [{ rows: [], compact: true }] } },
    ]);
    await rtCompact(catalog, `${DB}.rt_a`);
    await rtCompact(catalog, `${DB}.java_b`);
    const compacted = await javaRead();
    const expectedCompacted = compacted[0];
    for (const rows of compacted) expect(rows).toEqual(expectedCompacted);
    for (const n of names) expect(norm(await rtRead(catalog, `${DB}.${n}`))).toEqual(expectedCompacted);
    // a DECIMAL(9, 0) sum past 2^31 is written as Parquet INT32: Java keeps its low 32 bits
    expect(cell(expectedCompacted, 2, "d90")).toBe(String(BigInt.asIntN(32, 3n * BigInt.asIntN(32, -2999999997n))));
    expect(cell(expectedCompacted, 2, "d52")).toBe("-8999.91");
    // the compacted files carry Java's value statistics (a DECIMAL(9, 0) bound is the INT32 written).
    // FLOAT/DOUBLE bounds are left out: Java 1.4.2 takes them from parquet-mr's in-memory
    // statistics (NaN as the max) where paimon-rt drops bounds of a chunk holding NaN
    const stats = await Promise.all(["java_a", "rt_a"].map((n) => valueStats(catalog, `${DB}.${n}`)));
    const floating = new Set(FIELDS.flatMap((f, i) => (f.type === "FLOAT" || f.type === "DOUBLE" ? [i] : [])));
    const notFloating = (values: unknown[]) => values.filter((_, i) => !floating.has(i));
    expect(notFloating(stats[1].min)).toEqual(notFloating(stats[0].min));
    expect(notFloating(stats[1].max)).toEqual(notFloating(stats[0].max));
    expect(stats[1].nulls).toEqual(stats[0].nulls);
    // key 2's merged 3884901897 is written as its low 32 bits (-410065399); key 5's 1999999995 is the max
    expect(stats[0].max[FIELDS.findIndex((f) => f.name === "d90")]).toBe(1999999995n);
  }, 300_000);

  it("product retraction Java fails on (decimal quotient without a finite expansion, integer division by zero): paimon-rt refuses it", async () => {
    const wh = path.join(root, "wh-fail");
    const catalog = await Catalog.open(wh);
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "p", type: "DECIMAL(5, 2)" },
      { name: "q", type: "INT" },
    ];
    const options = { bucket: "1", "merge-engine": "aggregation", "fields.p.aggregate-function": "product", "fields.q.aggregate-function": "product" };
    const cases: Array<[name: string, retracted: OracleRow, message: string]> = [
      ["non_terminating", { p: "3.00", q: 1 }, "product retraction 1.00 / 3.00 has no exact decimal quotient"],
      ["by_zero", { p: "1.00", q: 0 }, "product retraction divides by zero"],
    ];
    const commitsOf = (retracted: OracleRow): KindRow[][] => [[row(1, "+I", { p: "1.00", q: 5 })], [row(1, "-U", retracted)]];
    await writeTables("java", wh, cases.map(([name, retracted]) => ({ identifier: `${DB}.java_${name}`, spec: { fields, primaryKeys: ["id"], options, commits: commitsOf(retracted) } })));
    const javaReads = await readTables("java", cases.map(([name]) => ({ warehouse: wh, identifier: `${DB}.java_${name}` })));
    expect(String(javaReads[0])).toContain("Non-terminating decimal expansion");
    expect(String(javaReads[1])).toContain("/ by zero");
    for (const [name, retracted, message] of cases) {
      const table = await catalog.createTable(`${DB}.rt_${name}`, { fields, primaryKeys: ["id"], options });
      await rtWrite(table, fields, commitsOf(retracted));
      for (const ident of [`${DB}.rt_${name}`, `${DB}.java_${name}`]) {
        await expect(rtRead(catalog, ident)).rejects.toMatchObject({ name: "PaimonError", code: "INVALID_ARGUMENT", message: expect.stringContaining(message) });
        await expect(rtCompact(catalog, ident)).rejects.toMatchObject({ name: "PaimonError", code: "INVALID_ARGUMENT", message: expect.stringContaining(message) });
      }
    }
  }, 300_000);
});
