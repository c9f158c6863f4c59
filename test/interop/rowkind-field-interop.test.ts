/**
 * `rowkind.field` with Java Paimon 1.4.2 (RowKindGenerator): Java and paimon-rt write the same
 * rows, whose kinds come from a string column, into primary-key (deduplicate, with changelog
 * input and full compaction) and append tables (with ignore-delete); each reads the other's
 * tables with the same rows and kinds; bad kind values fail in both with Java's message, nothing
 * written. Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "./convert.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping rowkind.field interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-rowkind-field-interop-");

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "op", type: "STRING" },
  { name: "v", type: "BIGINT" },
];
const COMMITS: OracleRow[][] = [
  [
    { id: 1, op: "+I", v: "1" },
    { id: 2, op: "+I", v: "2" },
    { id: 3, op: "+i", v: "3" },
    { id: 4, op: "+I", v: "4" },
  ],
  [
    { id: 1, op: "-U", v: "1" },
    { id: 1, op: "+U", v: "10" },
    { id: 2, op: "-D", v: "2" },
    { id: 5, op: "+u", v: "5" },
    { id: 3, op: "-d", v: "3" },
  ],
];
const CASES: Array<{ name: string; spec: OracleSpec }> = [
  { name: "pk", spec: { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "2", "rowkind.field": "op", "changelog-producer": "input" } } },
  { name: "pk_ignore_delete", spec: { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "rowkind.field": "op", "ignore-delete": "true" } } },
  { name: "append_ignore_delete", spec: { fields: FIELDS, options: { "rowkind.field": "op", "ignore-delete": "true" } } },
];

async function rtWrite(table: Table, rows: OracleRow[]): Promise<void> {
  const w = await table.newWrite({ commitUser: "rt" });
  try {
    await w.write(rowsToBatch(FIELDS, rows));
    await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
  } finally {
    await w.close();
  }
}

const norm = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ id: Number(r.id), op: r.op, v: String(r.v) })));

describe.skipIf(noJava !== null)("rowkind.field with Java", () => {
  it(
    "row kinds from the column: Java reads paimon-rt's tables and paimon-rt reads Java's, same rows",
    async () => {
      const javaWh = tempDir();
      const rtWh = tempDir();
      await writeTables("java", javaWh, CASES.map((c) => ({ identifier: `db.${c.name}`, spec: { ...c.spec, commits: COMMITS } })));
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      const javaCatalog = await Catalog.open(javaWh);
      for (const c of CASES) {
        const t = await catalog.createTable(`db.${c.name}`, { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: c.spec.primaryKeys, options: c.spec.options as Record<string, string> });
        for (const rows of COMMITS) await rtWrite(t, rows);
      }
      const javaRead = await readTables("java", CASES.flatMap((c) => [javaWh, rtWh].map((warehouse) => ({ warehouse, identifier: `db.${c.name}`, sort: true }))));
      const expected: Record<string, OracleRow[]> = {
        pk: [{ id: 1, op: "+U", v: "10" }, { id: 4, op: "+I", v: "4" }, { id: 5, op: "+u", v: "5" }],
        pk_ignore_delete: [{ id: 1, op: "+U", v: "10" }, { id: 2, op: "+I", v: "2" }, { id: 3, op: "+i", v: "3" }, { id: 4, op: "+I", v: "4" }, { id: 5, op: "+u", v: "5" }],
        // (the append table keeps +I and +U rows; ignore-delete drops -D, ignore-update-before is implied by it)
        append_ignore_delete: [...COMMITS[0]!, { id: 1, op: "+U", v: "10" }, { id: 5, op: "+u", v: "5" }],
      };
      for (const [i, c] of CASES.entries()) {
        expect(norm(javaRead[2 * i] as OracleRow[]), `Java reads Java's ${c.name}`).toEqual(norm(expected[c.name]!));
        expect(norm(javaRead[2 * i + 1] as OracleRow[]), `Java reads paimon-rt's ${c.name}`).toEqual(norm(expected[c.name]!));
        for (const cat of [catalog, javaCatalog]) {
          const t = await cat.getTable(`db.${c.name}`);
          expect(norm(arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits))), `paimon-rt reads ${c.name}`).toEqual(norm(expected[c.name]!));
        }
      }
      // the input changelog of the pk table: the kinds from the column, in both
      const changelog = async (t: Table) => (await t.latestSnapshot())!.changelogRecordCount;
      expect(await changelog(await catalog.getTable("db.pk"))).toBe(await changelog(await javaCatalog.getTable("db.pk")));
    },
    SLOW,
  );

  it(
    "bad kinds fail as in Java, nothing written",
    async () => {
      const wh = tempDir();
      const bad: Array<[string, OracleSpec, OracleRow[], string]> = [
        ["bad_value", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "rowkind.field": "op" } }, [{ id: 1, op: "+I", v: "1" }, { id: 2, op: "U", v: "2" }], "Unsupported short string 'U' for row kind."],
        ["null_kind", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "rowkind.field": "op" } }, [{ id: 1, op: null, v: "1" }], "Row kind cannot be null."],
        ["append_delete", { fields: FIELDS, options: { "rowkind.field": "op" } }, [{ id: 1, op: "-D", v: "1" }], "Append only writer can not accept row with RowKind DELETE"],
        ["not_string", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "rowkind.field": "v" } }, [{ id: 1, op: "+I", v: "1" }], "only support string type for rowkind, but v is BIGINT"],
      ];
      const dir = await mkdtemp(`${tempDir()}/spec-`);
      const commands = await Promise.all(bad.map(async ([name, spec, rows], i) => {
        await writeFile(`${dir}/${i}.json`, JSON.stringify({ ...spec, commits: [rows] }));
        return ["write", wh, `db.${name}`, `${dir}/${i}.json`];
      }));
      const results = await runBatch("java", commands);
      const catalog = await Catalog.open(tempDir());
      await catalog.createDatabase("db");
      for (const [i, [name, spec, rows, message]] of bad.entries()) {
        expect(results[i]!.ok, name).toBe(false);
        expect((results[i] as { error: string }).error, name).toContain(message);
        const t = await catalog.createTable(`db.${name}`, { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: spec.primaryKeys, options: spec.options as Record<string, string> });
        const e = await rtWrite(t, rows).then(() => null, (err: unknown) => err as PaimonError);
        expect(e, name).toBeInstanceOf(PaimonError);
        expect(e!.code).toBe("INVALID_ARGUMENT");
        expect(e!.message, name).toContain(message);
        expect(await t.latestSnapshot()).toBeNull();
      }
      // Java's SchemaValidation at create
      const e = await catalog.createTable("db.missing", { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), options: { "rowkind.field": "kind" } }).then(() => null, (err: unknown) => err as PaimonError);
      expect([e?.code, e?.message]).toEqual(["INVALID_ARGUMENT", "Rowkind field: 'kind' can not be found in table schema."]);
    },
    SLOW,
  );
});
