/**
 * paimon-rt's predicate semantics against Java Paimon 1.4.2's `Predicate.test` (issue 9 item 8):
 * Java compares FLOAT/DOUBLE with `Float.compare` / `Double.compare` (-0.0 < 0.0, NaN greatest
 * and equal to itself) and BINARY/VARBINARY as signed bytes (`CompareUtils`). The same table is
 * filtered by both; Java runs with `executeFilter()` so it returns the rows its row test accepts
 * among the row groups it reads.
 *
 * Java itself is not consistent on binaries: before the signed row test it skips Parquet row
 * groups with parquet-mr's statistics and dictionary filters, which order bytes *unsigned*. With
 * one row per file that makes Java return the rows both orders accept. paimon-rt returns what
 * `Predicate.test` accepts (a superset of Java's answer) and never prunes by binary bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { rowsToBatch, type FieldLike } from "./convert.js";
import { type OracleRow, type ReadRequest, javaOracleUnavailable, readTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[predicate-semantics-interop] skipping: ${noJava}`);

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "d", type: "DOUBLE" },
  { name: "f", type: "FLOAT" },
  { name: "b", type: "BYTES" },
];
const b64 = (...bytes: number[]): string => Buffer.from(bytes).toString("base64");
// Rows as JS values (written in-process, so -0 survives; JSON would turn it into 0).
const ROWS: OracleRow[] = [
  { id: 1, d: -0, f: -0, b: b64(0x00) },
  { id: 2, d: 0, f: 0, b: b64(0x7f) },
  { id: 3, d: "NaN", f: "NaN", b: b64(0x80) },
  { id: 4, d: -1, f: -1, b: b64(0xff) },
  { id: 5, d: 1, f: 1, b: b64() },
  { id: 6, d: null, f: null, b: null },
  { id: 7, d: "Infinity", f: "-Infinity", b: b64(0x80, 0x01) },
];

type Op = "=" | "<>" | "<" | "<=" | ">" | ">=";
const OPS: Record<Op, (c: string, v: unknown) => Predicate> = {
  "=": (c, v) => col(c).eq(v),
  "<>": (c, v) => col(c).ne(v),
  "<": (c, v) => col(c).lt(v),
  "<=": (c, v) => col(c).le(v),
  ">": (c, v) => col(c).gt(v),
  ">=": (c, v) => col(c).ge(v),
};

/** [column, op, paimon-rt literal, Java oracle JSON literal] */
type Case = [string, Op, unknown, unknown];
const CASES: Case[] = [];
for (const c of ["d", "f"])
  for (const op of Object.keys(OPS) as Op[]) {
    CASES.push([c, op, 0, 0]);
    CASES.push([c, op, -0, "-0.0"]); // JSON has no -0: the oracle parses the string
    CASES.push([c, op, Number.NaN, "NaN"]);
  }
for (const op of Object.keys(OPS) as Op[])
  for (const bytes of [[0x00], [0x7f], [0x80], [0xff], [], [0x80, 0x00]]) CASES.push(["b", op, new Uint8Array(bytes), b64(...bytes)]);

describe.skipIf(!!noJava)("predicate semantics: paimon-rt selects the rows Java's Predicate.test selects", () => {
  let warehouse = "";
  let table: Table;

  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-pred-"));
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    table = await catalog.createTable("db.t", { fields: FIELDS, options: { bucket: "-1" } });
    // one row per file, so file statistics (single values) are exercised too
    for (const row of ROWS) {
      const w = await table.newWrite({ commitUser: "rt" });
      await w.write(rowsToBatch(FIELDS, [row]));
      await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
      await w.close();
    }
  });

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  it(`${CASES.length} comparisons on -0.0/0.0/NaN and signed bytes agree with Java`, async () => {
    const requests: ReadRequest[] = CASES.map(([c, op, , javaLiteral]) => ({ warehouse, identifier: "db.t", filters: [[c, op, javaLiteral]], executeFilter: true }));
    const java = await readTables("java", requests);
    const mismatches: string[] = [];
    for (const [i, [c, op, literal]] of CASES.entries()) {
      const rows = java[i]!;
      if (rows instanceof Error) throw rows;
      const javaIds = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
      const filter = OPS[op](c, literal);
      const plan = await table.newScan({ filter }).plan();
      const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
      const ours = Array.from(t.getChild("id")!.toArray() as Int32Array).sort((a, b) => a - b);
      const agrees = c === "b" ? javaIds.every((id) => ours.includes(id)) : JSON.stringify(ours) === JSON.stringify(javaIds);
      if (!agrees) mismatches.push(`${c} ${op} ${literal instanceof Uint8Array ? `[${Array.from(literal)}]` : Object.is(literal, -0) ? "-0" : String(literal)}: ours ${JSON.stringify(ours)}, Java ${JSON.stringify(javaIds)}`);
    }
    expect(mismatches).toEqual([]);
    // spot checks of Java's order
    const pick = (c: string, op: Op, lit: unknown): number[] => {
      const i = CASES.findIndex(([cc, o, l]) => cc === c && o === op && Object.is(l, lit));
      return (java[i] as OracleRow[]).map((r) => Number(r.id)).sort((a, b) => a - b);
    };
    expect(pick("d", "<", 0)).toEqual([1, 4]); // -0.0 < 0.0
    expect(pick("d", "=", -0)).toEqual([1]);
    expect(pick("d", ">=", Number.NaN)).toEqual([3]);
    expect(pick("f", "<=", -0)).toEqual([1, 4, 7]);
  }, 180_000);

  it("binaries follow Java's signed row test: 0x80..0xFF sort below 0x00", async () => {
    const ids = async (filter: Predicate): Promise<number[]> => {
      const plan = await table.newScan({ filter }).plan();
      const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
      return Array.from(t.getChild("id")!.toArray() as Int32Array).sort((a, b) => a - b);
    };
    // values: 1 = [00], 2 = [7f], 3 = [80], 4 = [ff], 5 = [], 7 = [80 01]
    expect(await ids(col("b").lt(new Uint8Array([0x00])))).toEqual([3, 4, 5, 7]);
    expect(await ids(col("b").gt(new Uint8Array([0xff])))).toEqual([1, 2]);
    expect(await ids(col("b").ge(new Uint8Array([0x80])))).toEqual([1, 2, 3, 4, 7]);
    expect(await ids(col("b").eq(new Uint8Array([0x80])))).toEqual([3]);
  });
});
