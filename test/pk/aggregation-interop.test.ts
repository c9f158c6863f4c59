/**
 * Interop of merge-engine=aggregation with Java Paimon 1.4.2: Java writes an aggregation table
 * over several commits (sum, product, max, min, last_value, last_non_null_value, first_value,
 * first_non_null_value, bool_and, bool_or, listagg over INT / BIGINT / DECIMAL / DOUBLE /
 * STRING / DATE / TIMESTAMP / BOOLEAN, with -U/+U/-D retraction rows) -> paimon-rt reads exactly
 * Java's rows; paimon-rt writes the same commits -> Java reads the same rows; paimon-rt compacts
 * -> Java reads them again. Skips cleanly without the Java oracle.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "../interop/convert.js";
import { rtCommitRows } from "../interop/rt-commit.js";
import { javaOracleUnavailable, type OracleRow, readTables, sortRows, writeTables } from "../interop/oracle/harness.js";
import { rng } from "./helpers.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[aggregation-interop] skipping: ${noJava}`);
const DB = "agg";

export const AGG_FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "s_int", type: "INT" },
  { name: "s_big", type: "BIGINT" },
  { name: "s_dec", type: "DECIMAL(10, 2)" },
  { name: "p_dbl", type: "DOUBLE" },
  { name: "mx_str", type: "STRING" },
  { name: "mn_date", type: "DATE" },
  { name: "mx_ts", type: "TIMESTAMP(3)" },
  { name: "lv", type: "INT" },
  { name: "lnn", type: "STRING" },
  { name: "fv", type: "INT" },
  { name: "fnn", type: "STRING" },
  { name: "b_and", type: "BOOLEAN" },
  { name: "b_or", type: "BOOLEAN" },
  { name: "la", type: "STRING" },
];
export const AGG_OPTIONS: Record<string, string> = {
  bucket: "2",
  "merge-engine": "aggregation",
  "fields.s_int.aggregate-function": "sum",
  "fields.s_big.aggregate-function": "sum",
  "fields.s_dec.aggregate-function": "sum",
  "fields.p_dbl.aggregate-function": "product",
  "fields.mx_str.aggregate-function": "max",
  "fields.mn_date.aggregate-function": "min",
  "fields.mx_ts.aggregate-function": "max",
  "fields.lv.aggregate-function": "last_value",
  "fields.fv.aggregate-function": "first_value",
  "fields.fnn.aggregate-function": "first_non_null_value",
  "fields.b_and.aggregate-function": "bool_and",
  "fields.b_or.aggregate-function": "bool_or",
  "fields.la.aggregate-function": "listagg",
  "fields.la.list-agg-delimiter": "|",
  // functions without retraction ignore -U/-D rows
  ...Object.fromEntries(["mx_str", "mn_date", "mx_ts", "fv", "fnn", "b_and", "b_or", "la"].map((f) => [`fields.${f}.ignore-retract`, "true"])),
};

type Kind = "+I" | "-U" | "+U" | "-D";
const KINDS: Kind[] = ["+I", "-U", "+U", "-D"];


/** Random commits over a few keys; some cells null, some rows retractions. */
export function aggCommits(seed: number, commits: number, rowsPer: number, keys: number): Array<Array<OracleRow & { _kind: Kind }>> {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const maybe = <T>(v: T) => (r() < 0.2 ? null : v);
  const out: Array<Array<OracleRow & { _kind: Kind }>> = [];
  for (let c = 0; c < commits; c++) {
    const rows: Array<OracleRow & { _kind: Kind }> = [];
    for (let i = 0; i < rowsPer; i++) {
      rows.push({
        _kind: r() < 0.75 ? "+I" : pick(KINDS.slice(1)),
        id: String(1 + Math.floor(r() * keys)),
        s_int: maybe(Math.floor(r() * 200) - 100),
        s_big: maybe(String(Math.floor(r() * 1e6) - 5e5)),
        s_dec: maybe((Math.floor(r() * 20000 - 10000) / 100).toFixed(2)),
        p_dbl: maybe(pick([0.5, 2, 4, -1, 1.5])),
        mx_str: maybe(pick(["a", "b", "zz", "é", "B", ""])),
        mn_date: maybe(pick(["2024-01-01", "1999-12-31", "2030-06-15", "1970-01-01"])),
        mx_ts: maybe(String(pick([0, 1704067200123, -1000, 999999999999]) * 1_000_000)),
        lv: maybe(Math.floor(r() * 10)),
        lnn: maybe(pick(["x", "y", "z"])),
        fv: maybe(Math.floor(r() * 10)),
        fnn: maybe(pick(["p", "q"])),
        b_and: maybe(r() < 0.7),
        b_or: maybe(r() < 0.3),
        la: maybe(pick(["u", "v", "", "w"])),
      });
    }
    out.push(rows);
  }
  return out;
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-agg-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

async function rtRead(catalog: Catalog, ident: string): Promise<OracleRow[]> {
  const table = await catalog.getTable(ident);
  const plan = await table.newScan().plan();
  return sortRows(arrowToRows(await table.newRead().toArrow(plan.splits)));
}

async function rtWrite(table: Table, commits: ReadonlyArray<ReadonlyArray<OracleRow & { _kind: Kind }>>, compactAt: number): Promise<void> {
  for (const [i, rows] of commits.entries()) await rtCommitRows(table, AGG_FIELDS, rows, { compact: i === compactAt, identifier: i + 1 });
}

/** JSON-normalized rows (numbers vs strings as Java prints them). */
const norm = (rows: OracleRow[]) => JSON.parse(JSON.stringify(rows)) as OracleRow[];

describe.skipIf(noJava !== null)("aggregation interop with Java Paimon 1.4.2", () => {
  it("Java writes -> paimon-rt reads; paimon-rt writes and compacts -> Java reads", async () => {
    const wh = path.join(root, "wh");
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase(DB);
    const commits = aggCommits(7, 5, 40, 12);
    const spec = (rows: typeof commits, withSchema: boolean) => ({
      ...(withSchema ? { fields: AGG_FIELDS, primaryKeys: ["id"], options: AGG_OPTIONS } : {}),
      commits: rows.map((r) => r),
    });
    // Java: the first table merge-on-read (several level-0 files), the second compacted midway
    await writeTables("java", wh, [
      { identifier: `${DB}.java_mor`, spec: spec(commits, true) },
      { identifier: `${DB}.java_compact`, spec: { ...spec([], true), commits: [...commits.slice(0, 2), { rows: commits[2], compact: true }] } },
      { identifier: `${DB}.java_compact`, spec: spec(commits.slice(3), false) },
    ]);
    // paimon-rt writes the same commits (compacting at commit 3, as Java)
    const rtTable = await catalog.createTable(`${DB}.rt`, { fields: AGG_FIELDS, primaryKeys: ["id"], options: AGG_OPTIONS });
    await rtWrite(rtTable, commits, 2);
    const [javaMor, javaCompact, javaRt] = await readTables("java", [
      { warehouse: wh, identifier: `${DB}.java_mor`, sort: true },
      { warehouse: wh, identifier: `${DB}.java_compact`, sort: true },
      { warehouse: wh, identifier: `${DB}.rt`, sort: true },
    ]);
    for (const r of [javaMor, javaCompact, javaRt]) if (r instanceof Error) throw r;
    const expected = norm(javaMor as OracleRow[]);
    expect(expected.length).toBeGreaterThan(3);
    expect(norm(javaCompact as OracleRow[])).toEqual(expected);
    // paimon-rt reads Java's tables exactly
    expect(norm(await rtRead(catalog, `${DB}.java_mor`))).toEqual(expected);
    expect(norm(await rtRead(catalog, `${DB}.java_compact`))).toEqual(expected);
    // Java reads paimon-rt's table exactly, and paimon-rt agrees
    expect(norm(javaRt as OracleRow[])).toEqual(expected);
    expect(norm(await rtRead(catalog, `${DB}.rt`))).toEqual(expected);
    // paimon-rt compacts everything (Java's table and its own) -> Java reads the same rows again
    for (const name of ["java_mor", "rt"]) {
      const table = await catalog.getTable(`${DB}.${name}`);
      const write = await table.newWrite({ commitUser: "rt-compact" });
      await write.compact({ full: true });
      await table.newCommit({ commitUser: "rt-compact" }).commit(await write.prepareCommit(100), 100);
      await write.close();
    }
    const after = await readTables("java", [
      { warehouse: wh, identifier: `${DB}.java_mor`, sort: true },
      { warehouse: wh, identifier: `${DB}.rt`, sort: true },
    ]);
    for (const r of after) {
      if (r instanceof Error) throw r;
      expect(norm(r)).toEqual(expected);
    }
    expect(norm(await rtRead(catalog, `${DB}.java_mor`))).toEqual(expected);
  }, 300_000);
});
