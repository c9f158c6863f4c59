// Strings that start with U+FEFF, in keys, partition values and values: Java and pypaimon read
// paimon-rt's table with every mark kept (and Java's filter on such a partition finds it), and
// paimon-rt reads theirs with every mark kept. Rows compared as JSON from the oracles; ours
// decoded from the Arrow buffers (apache-arrow's own `get` drops a leading mark).
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col } from "../../src/predicate/predicate.js";
import type { Predicate } from "../../src/predicate/predicate.js";
import { DataTypes as T } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { tableColumn } from "../format/helpers.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTables, writeTables, type OracleRow } from "./oracle/harness.js";

const BOM = "\uFEFF";
const noJava = javaOracleUnavailable();
const noPy = pypaimonUnavailable();

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-bom-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

const FIELDS = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "INT NOT NULL" },
  { name: "name", type: "STRING NOT NULL" },
  { name: "v", type: "STRING" },
];
const ROWS = [
  { dt: "a", id: 1, name: "x", v: "1" },
  { dt: `${BOM}a`, id: 1, name: "x", v: "2" },
  { dt: "a", id: 1, name: `${BOM}x`, v: "3" },
  { dt: `${BOM}a`, id: 1, name: `${BOM}x`, v: `${BOM}4` },
  { dt: "a", id: 2, name: BOM, v: "5" },
  { dt: "a", id: 2, name: "", v: BOM },
];
const asText = (rows: readonly OracleRow[]) => rows.map((r) => JSON.stringify([r.dt, r.id, r.name, r.v])).sort();

async function ourRows(table: Table, filter?: Predicate): Promise<string[]> {
  const plan = await table.newScan({ filter }).plan();
  const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
  const [dt, id, name, v] = [tableColumn(t, "dt", T.STRING()), tableColumn(t, "id", T.INT()), tableColumn(t, "name", T.STRING()), tableColumn(t, "v", T.STRING())];
  return asText(dt.map((_, i) => ({ dt: dt[i], id: id[i], name: name[i], v: v[i] })));
}

describe.skipIf(noJava !== null || noPy !== null)("strings with a leading U+FEFF across implementations", () => {
  it("paimon-rt writes, Java and pypaimon read every mark; Java's filter on such a partition finds it", async () => {
    const wh = path.join(root, "ours");
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: ["dt", "id", "name"], options: { bucket: "1" } });
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(
      new arrow.RecordBatch({
        dt: arrow.vectorFromArray(ROWS.map((r) => r.dt), new arrow.Utf8()).data[0]!,
        id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.from(ROWS.map((r) => r.id)) }),
        name: arrow.vectorFromArray(ROWS.map((r) => r.name), new arrow.Utf8()).data[0]!,
        v: arrow.vectorFromArray(ROWS.map((r) => r.v), new arrow.Utf8()).data[0]!,
      }),
    );
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const [java, javaFiltered] = await readTables("java", [
      { warehouse: wh, identifier: "db.t", sort: true },
      { warehouse: wh, identifier: "db.t", filterEq: [["dt", `${BOM}a`]], executeFilter: true },
    ]);
    const [py] = await readTables("pypaimon", [{ warehouse: wh, identifier: "db.t" }]);
    for (const rows of [java, javaFiltered, py]) if (rows instanceof Error) throw rows;
    expect(asText(java as OracleRow[])).toEqual(asText(ROWS));
    expect(asText(py as OracleRow[])).toEqual(asText(ROWS));
    expect(asText(javaFiltered as OracleRow[])).toEqual(asText(ROWS.filter((r) => r.dt === `${BOM}a`)));
  }, 300_000);

  it.each(["java", "pypaimon"] as const)("%s writes, paimon-rt reads every mark and filters on it", async (oracle) => {
    const wh = path.join(root, oracle);
    await writeTables(oracle, wh, [{ identifier: "db.t", spec: { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: ["dt", "id", "name"], options: { bucket: 1 }, commits: [ROWS] } }]);
    const table = await (await Catalog.open(wh)).getTable("db.t");
    expect(await ourRows(table)).toEqual(asText(ROWS));
    expect(await ourRows(table, col("dt").eq(`${BOM}a`))).toEqual(asText(ROWS.filter((r) => r.dt === `${BOM}a`)));
    expect(await ourRows(table, col("name").eq(`${BOM}x`))).toEqual(asText(ROWS.filter((r) => r.name === `${BOM}x`)));
  }, 300_000);
});
