/**
 * Interop of an aggregation table's commits both ways with Java Paimon 1.4.2 (used by the
 * aggregate-function interop suites): the same commits written by Java and by paimon-rt, a table
 * Java started continued by paimon-rt, every table read by both merge-on-read and compacted.
 */
import { expect } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { type KindRow, rtCommitRows } from "./rt-commit.js";
import { type OracleRow, readTables, writeTables } from "./oracle/harness.js";

const byId = (rows: OracleRow[]) => [...rows].map((r) => ({ ...r, id: Number(r.id) })).sort((a, b) => a.id - b.id);
/** paimon-rt's rows as the oracles print them: by id, BINARY / VARBINARY values in base64. */
const rtRows = async (t: Table) =>
  byId(
    arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)).map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v])),
    ) as OracleRow[],
  );

/**
 * Java writes `commits` into db.mor and (compacted at the end) db.compacted, paimon-rt does the
 * same in its warehouse, and paimon-rt continues Java's db.half (Java wrote the first `javaCommits`
 * commits) and compacts it. Returns Java's merge-on-read rows after checking every read against them.
 */
export async function aggregateBothWays(tempDir: () => string, fields: FieldLike[], options: Record<string, string>, commits: KindRow[][], javaCommits: number): Promise<OracleRow[]> {
  const javaWh = tempDir();
  const rtWh = tempDir();
  const spec = { fields, primaryKeys: ["id"], options };
  await writeTables("java", javaWh, [
    { identifier: "db.mor", spec: { ...spec, commits } },
    { identifier: "db.compacted", spec: { ...spec, commits: [...commits, { rows: [], compact: true }] } },
    { identifier: "db.half", spec: { ...spec, commits: commits.slice(0, javaCommits) } },
  ]);
  const catalog = await Catalog.open(rtWh);
  await catalog.createDatabase("db");
  for (const name of ["mor", "compacted"]) {
    const t = await catalog.createTable(`db.${name}`, { fields: fields as Array<{ name: string; type: string }>, primaryKeys: ["id"], options });
    for (const rows of commits) await rtCommitRows(t, fields, rows);
    if (name === "compacted") await rtCommitRows(t, fields, [], { compact: true });
  }
  const javaCatalog = await Catalog.open(javaWh);
  const half = await javaCatalog.getTable("db.half");
  for (const rows of commits.slice(javaCommits)) await rtCommitRows(half, fields, rows);
  await rtCommitRows(half, fields, [], { compact: true });

  const requests = [
    { warehouse: javaWh, identifier: "db.mor" },
    { warehouse: javaWh, identifier: "db.compacted" },
    { warehouse: rtWh, identifier: "db.mor" },
    { warehouse: rtWh, identifier: "db.compacted" },
    { warehouse: javaWh, identifier: "db.half" },
  ];
  const reads = await readTables("java", requests);
  const expected = byId(reads[0] as OracleRow[]);
  for (const [i, r] of reads.entries()) expect(byId(r as OracleRow[]), `Java reads ${requests[i]!.warehouse === javaWh ? "Java's" : "paimon-rt's"} ${requests[i]!.identifier}`).toEqual(expected);
  for (const name of ["mor", "compacted", "half"]) expect(await rtRows(await javaCatalog.getTable(`db.${name}`)), `paimon-rt reads Java's ${name}`).toEqual(expected);
  for (const name of ["mor", "compacted"]) expect(await rtRows(await catalog.getTable(`db.${name}`)), `paimon-rt reads its ${name}`).toEqual(expected);
  return expected;
}
