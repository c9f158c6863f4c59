/**
 * DATE / TIMESTAMP values in years 0000-0099 (issue 9 item 7) between paimon-rt and Java Paimon
 * 1.4.2: partition values given as text, predicate literals as text, both directions. Before
 * the fix `Date.UTC` read "0050-06-15" as 1950-06-15.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import { rowsToBatch, type FieldLike } from "./convert.js";
import { type OracleRow, javaOracleUnavailable, readTables, sortRows, writeTable } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[civil-time-interop] skipping: ${noJava}`);

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "dt", type: "DATE" },
  { name: "ts", type: "TIMESTAMP(3)" },
];
const DATES = ["0001-01-01", "0050-06-15", "0099-12-31", "0100-01-01", "1950-06-15"];
// epoch nanos of <date>T12:00:00 (Java: LocalDateTime ... toInstant(UTC)); 0050-06-15 = epoch day -701100
const noonNanos = (epochDay: number): string => String((BigInt(epochDay) * 86_400_000n + 43_200_000n) * 1_000_000n);
const EPOCH_DAYS: Record<string, number> = { "0001-01-01": -719162, "0050-06-15": -701100, "0099-12-31": -683004, "0100-01-01": -683003, "1950-06-15": -7140 };
const ROWS: OracleRow[] = DATES.map((dt, i) => ({ id: i + 1, dt, ts: noonNanos(EPOCH_DAYS[dt]!) }));

describe.skipIf(!!noJava)("years 0000-0099 in DATE partitions and TIMESTAMP literals, paimon-rt <-> Java", () => {
  let warehouse = "";
  let catalog: Catalog;

  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-civil-"));
    catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.ours", { fields: FIELDS, partitionKeys: ["dt"], options: { bucket: "-1" } });
    const w = await table.newWrite({ commitUser: "rt" });
    // partition named by text, as a user writes it
    for (const row of ROWS) await w.write(rowsToBatch(FIELDS, [row]), { partition: { dt: row.dt } });
    await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
    await w.close();
    await writeTable("java", warehouse, "db.java", { fields: FIELDS, partitionKeys: ["dt"], options: { bucket: "-1" }, commits: [ROWS] });
  }, 120_000);

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  it("Java reads paimon-rt's partitions as the dates written, and filters them by text literals", async () => {
    const [all, eq, lt] = await readTables("java", [
      { warehouse, identifier: "db.ours", sort: true },
      { warehouse, identifier: "db.ours", filters: [["dt", "=", "0050-06-15"]], executeFilter: true },
      { warehouse, identifier: "db.ours", filters: [["dt", "<", "0100-01-01"]], executeFilter: true },
    ]);
    expect(all).toEqual(sortRows(ROWS));
    expect((eq as OracleRow[]).map((r) => r.id)).toEqual([2]);
    expect((lt as OracleRow[]).map((r) => Number(r.id)).sort()).toEqual([1, 2, 3]);
  }, 120_000);

  it("paimon-rt filters Java's and its own table by DATE / TIMESTAMP text literals in years 0000-0099", async () => {
    const ids = async (name: string, filter: Predicate): Promise<number[]> => {
      const table = await catalog.getTable(`db.${name}`);
      const plan = await table.newScan({ filter }).plan();
      const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
      return Array.from(t.getChild("id")!.toArray() as Int32Array).sort((a, b) => a - b);
    };
    for (const name of ["ours", "java"]) {
      expect(await ids(name, col("dt").eq("0050-06-15")), name).toEqual([2]);
      expect(await ids(name, col("dt").lt("0100-01-01")), name).toEqual([1, 2, 3]);
      expect(await ids(name, col("ts").lt("0100-01-01T00:00:00")), name).toEqual([1, 2, 3]);
      expect(await ids(name, col("ts").eq("0001-01-01 12:00:00.000")), name).toEqual([1]);
    }
  }, 60_000);
});
