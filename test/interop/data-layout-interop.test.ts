/**
 * Java Paimon 1.4.2 and paimon-rt agree on where `data-file.path-directory` and
 * `index-file-in-data-file-dir` put files: Java writes tables with them (an append table; a
 * primary-key deletion-vector table whose vectors Java keeps in its bucket directory) and
 * paimon-rt reads exactly Java's rows from exactly those places; paimon-rt writes the same
 * tables and Java reads exactly the expected rows; Java then writes on top of paimon-rt's table.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "./convert.js";
import { rtCommitRows, type KindRow } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping data-layout interop: ${noJava}`);
const SLOW = 300_000;

const tempDir = tempDirs("paimon-rt-data-layout-interop-");

const FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];
const row = (dt: string, id: number, v: string): OracleRow => ({ dt, id, v });
const range = (dt: string, from: number, to: number, v: string) => Array.from({ length: to - from }, (_, i) => row(dt, from + i, `${v}${from + i}`));

const APPEND_OPTIONS = { "data-file.path-directory": "data/files", bucket: "-1" };
const DV_OPTIONS = { "data-file.path-directory": "d", "index-file-in-data-file-dir": "true", "deletion-vectors.enabled": "true", bucket: "1" };
// Commits: a base, then updates of part of it: the PK table's vectors mark the old rows.
const APPEND_COMMITS = [[...range("a", 0, 5, "x"), ...range("b", 0, 3, "y")], range("a", 5, 8, "z")];
const DV_COMMITS = [{ rows: range("a", 0, 50, "x"), compact: true }, { rows: [...range("a", 40, 60, "y"), ...range("b", 0, 5, "y")], compact: false }, { rows: range("a", 10, 15, "z"), compact: false }];
const APPEND_EXPECTED = sortRows(APPEND_COMMITS.flat());
function pkModel(commits: ReadonlyArray<{ rows: OracleRow[] }>): OracleRow[] {
  const m = new Map<string, OracleRow>();
  for (const c of commits) for (const r of c.rows) m.set(`${r.dt}|${r.id}`, r);
  return sortRows([...m.values()]);
}
const DV_EXPECTED = pkModel(DV_COMMITS);

const norm = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ dt: r.dt, id: Number(r.id), v: r.v ?? null })));

async function rtRows(location: string): Promise<OracleRow[]> {
  const t = await Table.open(location);
  return norm(arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)));
}

/** Files (relative, sorted) under `dir`, data and index file names generalized. */
function layout(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/^\./.test(e.name)) out.push(p.slice(dir.length + 1));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out
    .filter((f) => !/^(snapshot|schema|manifest)\//.test(f))
    .map((f) => f.replace(/data-[0-9a-f-]+-\d+\.parquet$/, "data-*.parquet").replace(/index-[0-9a-f-]+-\d+$/, "index-*"))
    .sort()
    .filter((f, i, all) => all.indexOf(f) === i);
}

/** The DV index files of the latest snapshot: where paimon-rt looks for them, and whether they are there. */
async function dvIndexPaths(location: string): Promise<string[]> {
  const t = await Table.open(location);
  const entries = (await t.manifestStore.indexEntries(await t.latestSnapshot())).filter((e) => e.indexFile.indexType === "DELETION_VECTORS");
  return entries.map((e) => t.paths.indexFileOf(e.partition, e.bucket, e.indexFile).slice(location.length + 1)).sort();
}

describe.skipIf(noJava !== null)("data-file.path-directory / index-file-in-data-file-dir with Java", () => {
  it(
    "Java writes, paimon-rt reads exactly; paimon-rt writes, Java reads exactly",
    async () => {
      const base = tempDir();
      const spec = (options: Record<string, string>, commits: OracleSpec["commits"], primaryKeys?: string[]): OracleSpec => ({
        fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })),
        partitionKeys: ["dt"],
        ...(primaryKeys ? { primaryKeys } : {}),
        options,
        commits,
      });
      // Java writes
      const javaWh = join(base, "java");
      await writeTables("java", javaWh, [
        { identifier: "db.app", spec: spec(APPEND_OPTIONS, APPEND_COMMITS) },
        { identifier: "db.dv", spec: spec(DV_OPTIONS, DV_COMMITS, ["dt", "id"]) },
      ]);
      const app = join(javaWh, "db.db", "app");
      const dv = join(javaWh, "db.db", "dv");
      expect(layout(app)).toEqual(["data/files/dt=a/bucket-0/data-*.parquet", "data/files/dt=b/bucket-0/data-*.parquet"]);
      expect(await rtRows(app)).toEqual(norm(APPEND_EXPECTED));
      expect(layout(dv)).toEqual(["d/dt=a/bucket-0/data-*.parquet", "d/dt=a/bucket-0/index-*", "d/dt=b/bucket-0/data-*.parquet"]);
      const javaIndex = await dvIndexPaths(dv);
      expect(javaIndex.length).toBe(1);
      expect(javaIndex[0]).toMatch(/^d\/dt=a\/bucket-0\/index-[0-9a-f-]+-\d+$/);
      expect(existsSync(join(dv, javaIndex[0]))).toBe(true);
      expect(await rtRows(dv)).toEqual(norm(DV_EXPECTED));

      // paimon-rt writes the same tables
      const rtWh = join(base, "rt");
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      const rtApp = await catalog.createTable("db.app", { fields: FIELDS, partitionKeys: ["dt"], options: APPEND_OPTIONS });
      const rtDv = await catalog.createTable("db.dv", { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options: DV_OPTIONS });
      for (const [t, commits] of [
        [rtApp, APPEND_COMMITS.map((rows) => ({ rows }))],
        [rtDv, DV_COMMITS],
      ] as const) {
        for (const c of commits) {
          const w = await t.newWrite({ commitUser: "rt" });
          await w.write(rowsToBatch(FIELDS, c.rows));
          await t.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
          await w.close();
        }
      }
      expect(layout(rtApp.location)).toEqual(["data/files/dt=a/bucket-0/data-*.parquet", "data/files/dt=b/bucket-0/data-*.parquet"]);
      expect(layout(rtDv.location)).toEqual(["d/dt=a/bucket-0/data-*.parquet", "d/dt=a/bucket-0/index-*", "d/dt=b/bucket-0/data-*.parquet"]);
      expect((await dvIndexPaths(rtDv.location)).length).toBe(1);
      const [javaApp, javaDv] = await readTables("java", [
        { warehouse: rtWh, identifier: "db.app", sort: true },
        { warehouse: rtWh, identifier: "db.dv", sort: true },
      ]);
      if (javaApp instanceof Error) throw javaApp;
      if (javaDv instanceof Error) throw javaDv;
      expect(norm(javaApp)).toEqual(norm(APPEND_EXPECTED));
      expect(norm(javaDv)).toEqual(norm(DV_EXPECTED));

      // Java writes on top of paimon-rt's DV table (its vectors in the bucket directory), paimon-rt reads it
      const more = { rows: [...range("a", 0, 3, "j"), ...range("b", 1, 2, "j")], compact: false };
      await writeTables("java", rtWh, [{ identifier: "db.dv", spec: { commits: [more] } }]);
      expect(await rtRows(rtDv.location)).toEqual(norm(pkModel([...DV_COMMITS, more])));
      expect(existsSync(join(rtDv.location, "index"))).toBe(false);
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("ignore-update-before with Java", () => {
  it(
    "Java and paimon-rt both drop UPDATE_BEFORE rows at write",
    async () => {
      const wh = tempDir();
      const options = { bucket: "1", "ignore-update-before": "true" };
      const first = range("a", 0, 4, "x");
      const second = [
        { ...row("a", 1, "gone"), _kind: "-U" },
        { ...row("a", 2, "gone"), _kind: "-D" },
        { ...row("a", 3, "new"), _kind: "+U" },
      ];
      const expected = norm([row("a", 0, "x0"), row("a", 1, "x1"), row("a", 3, "new")]);
      await writeTables("java", wh, [{ identifier: "db.java", spec: { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options, commits: [first, second] } }]);
      const catalog = await Catalog.open(wh);
      expect(await rtRows((await catalog.getTable("db.java")).location)).toEqual(expected);
      const t = await catalog.createTable("db.rt", { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options });
      for (const commit of [first, second]) await rtCommitRows(t, FIELDS, commit as KindRow[]);
      const [java, ours] = await readTables("java", [
        { warehouse: wh, identifier: "db.java", sort: true },
        { warehouse: wh, identifier: "db.rt", sort: true },
      ]);
      if (java instanceof Error) throw java;
      if (ours instanceof Error) throw ours;
      expect(norm(java)).toEqual(expected);
      expect(norm(ours)).toEqual(expected);
      expect(await rtRows(t.location)).toEqual(expected);
    },
    SLOW,
  );
});
