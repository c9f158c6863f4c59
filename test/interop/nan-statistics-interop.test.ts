/**
 * FLOAT/DOUBLE columns holding NaN, written by paimon-rt and filtered by Java Paimon 1.4.2
 * (issue 9 item 4). Java orders NaN above every number (Double.compare) and trusts Parquet
 * footer bounds when it skips row groups, so a footer whose bounds leave NaN out made Java drop
 * the NaN rows for `v = NaN`, `v >= NaN` and `v > 1e308`. Java's reader does not filter rows
 * inside the row groups it keeps, so each assertion is "the matching rows are among the rows
 * Java returns".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { col } from "../../src/predicate/predicate.js";
import { rowsToBatch, type FieldLike } from "./convert.js";
import { valueStatsOf } from "../../src/predicate/stats.js";
import { type OracleRow, type ReadRequest, javaOracleUnavailable, readTables, writeTable } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[nan-statistics-interop] skipping: ${noJava}`);

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "d", type: "DOUBLE" },
  { name: "f", type: "FLOAT" },
];
// One file: NaN next to finite values (the old footer said d in [1, 2], f in [-1, 0.5]).
const ROWS: OracleRow[] = [
  { id: 1, d: 1, f: 0.5 },
  { id: 2, d: "NaN", f: "NaN" },
  { id: 3, d: 2, f: -1 },
  { id: 4, d: null, f: null },
];

const ids = (rows: OracleRow[] | Error): number[] => {
  if (rows instanceof Error) throw rows;
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
};

describe.skipIf(!!noJava)("NaN in FLOAT/DOUBLE columns: Java filters keep paimon-rt's NaN rows", () => {
  let warehouse = "";
  let catalog: Catalog;

  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-nan-"));
    catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.nan", { fields: FIELDS, options: { bucket: "-1" } });
    const w = await table.newWrite({ commitUser: "rt" });
    await w.write(rowsToBatch(FIELDS, ROWS));
    await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
    await w.close();
    await writeTable("java", warehouse, "db.nan_java", { fields: FIELDS, options: { bucket: "-1" }, commits: [ROWS] });
  }, 120_000);

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  it("v = NaN, v >= NaN, v > 1e308 (and the FLOAT equivalents) return the NaN row; finite filters still work", async () => {
    const req = (filters: ReadRequest["filters"]): ReadRequest => ({ warehouse, identifier: "db.nan", filters });
    const cases: Array<[string, ReadRequest]> = [
      ["d = NaN", req([["d", "=", "NaN"]])],
      ["d >= NaN", req([["d", ">=", "NaN"]])],
      ["d > 1e308", req([["d", ">", 1e308]])],
      ["f = NaN", req([["f", "=", "NaN"]])],
      ["f > 3e38", req([["f", ">", 3e38]])],
      ["d = 2", req([["d", "=", 2]])],
    ];
    const results = await readTables("java", cases.map(([, r]) => r));
    const got = Object.fromEntries(cases.map(([name], i) => [name, ids(results[i]!)]));
    for (const name of ["d = NaN", "d >= NaN", "d > 1e308", "f = NaN", "f > 3e38"]) expect(got[name], name).toContain(2);
    expect(got["d = 2"]).toContain(3);
  }, 120_000);

  it("manifest _VALUE_STATS: non-float columns as Java writes them; NaN columns without bounds where Java writes max = NaN", async () => {
    const statsOf = async (name: string) => {
      const table = await catalog.getTable(`db.${name}`);
      const snapshot = (await table.snapshotManager.latestSnapshot())!;
      const [entry, ...rest] = await table.manifestStore.liveEntries(snapshot);
      expect(rest).toEqual([]);
      const stats = valueStatsOf(entry!.file, table.schema.fields);
      return Object.fromEntries(table.schema.fields.map((f) => [f.name, { ...stats.columns[f.name] }]));
    };
    const ours = await statsOf("nan");
    const java = await statsOf("nan_java");
    expect(ours.id).toEqual(java.id);
    expect(ours.id).toMatchObject({ min: 1, max: 4 });
    // Java 1.4.2 orders NaN above every number, so its bounds are [min finite, NaN]: valid for
    // Java's own Double.compare test, but a reader comparing with IEEE `<`/`>` (pypaimon) would
    // prune `d > 1.5` wrongly. paimon-rt writes no bounds for a NaN column: every reader then
    // reads the file (the null count is kept).
    expect(java.d).toMatchObject({ min: 1, max: Number.NaN });
    expect(java.f).toMatchObject({ min: -1, max: Number.NaN });
    expect(ours.d).toMatchObject({ min: null, max: null });
    expect(ours.f).toMatchObject({ min: null, max: null });
    expect(Number(ours.d!.nullCount)).toBe(1);
    expect(Number(ours.f!.nullCount)).toBe(Number(java.f!.nullCount));
    // paimon-rt's own pruning reads Java's NaN bounds safely: d > 1.5 keeps the file holding d = 2.
    for (const name of ["nan", "nan_java"]) {
      const table = await catalog.getTable(`db.${name}`);
      const filter = col("d").gt(1.5);
      const plan = await table.newScan({ filter }).plan();
      const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
      expect(Array.from(t.getChild("id")!.toArray() as Int32Array), name).toEqual([2, 3]);
    }
  }, 60_000);
});
