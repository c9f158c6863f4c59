// Focused regressions found by the schema-evolution model test (schema-evolution-model.test.ts).
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import { applySchemaChanges } from "../../src/table/schema-changes.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, rowsToBatch, type FieldLike } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

async function newTable(pk: boolean, fields: FieldLike[]): Promise<{ catalog: Catalog; table: Table }> {
  const catalog = await Catalog.open(`memory://schema-evolution-${process.pid}-${Math.random().toString(36).slice(2)}`);
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", {
    fields: fields.map((f) => ({ name: f.name, type: f.type as string })),
    primaryKeys: pk ? ["k"] : [],
    options: pk ? { bucket: "1" } : { bucket: "-1" },
  });
  return { catalog, table };
}

async function writeRows(table: Table, fields: FieldLike[], rows: OracleRow[]): Promise<void> {
  const write = await table.newWrite({ commitUser: "u" });
  await write.write(rowsToBatch(fields, rows));
  await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
  await write.close();
}

async function read(table: Table, options: { filter?: Predicate } = {}): Promise<OracleRow[]> {
  const plan = await table.newScan(options.filter ? { filter: options.filter } : {}).plan();
  const result = await table.newRead(options.filter ? { filter: options.filter, predicateFilter: true } : {}).toArrow(plan.splits);
  return arrowToRows(result).sort((a, b) => Number(a.k) - Number(b.k));
}

describe("schema evolution regressions", () => {
  for (const pk of [false, true]) {
    it(`${pk ? "primary-key" : "append"} table: SMALLINT / INT / BIGINT columns widened to FLOAT / DOUBLE read their old files as Java's cast (were UNSUPPORTED)`, async () => {
      const fields: FieldLike[] = [
        { name: "k", type: "INT NOT NULL" },
        { name: "s", type: "SMALLINT" },
        { name: "i", type: "INT" },
        { name: "b", type: "BIGINT" },
      ];
      const { catalog, table } = await newTable(pk, fields);
      await writeRows(table, fields, [
        { k: 1, s: -32768, i: 2147483647, b: "9007199254740993" },
        { k: 2, s: 7, i: null, b: "-3" },
        { k: 3, s: null, i: -5, b: null },
      ]);
      const widened = await catalog.alterTable("db.t", [
        { kind: "updateColumnType", name: "s", type: "FLOAT" },
        { kind: "updateColumnType", name: "i", type: "DOUBLE" },
        { kind: "updateColumnType", name: "b", type: "DOUBLE" },
      ]);
      // (double) 9007199254740993L rounds to the nearest double, 9007199254740992
      const expected = [
        { k: 1, s: -32768, i: 2147483647, b: 9007199254740992 },
        { k: 2, s: 7, i: null, b: -3 },
        { k: 3, s: null, i: -5, b: null },
      ];
      expect(await read(widened)).toEqual(expected);
      expect((await widened.newRead().toArrow((await widened.newScan().plan()).splits)).schema.fields.map((f) => String(f.type))).toEqual(["Int32", "Float32", "Float64", "Float64"]);
      // a filter on the widened column (the selective read decodes it first)
      expect(await read(widened, { filter: col("i").lt(0) })).toEqual([{ k: 3, s: null, i: -5, b: null }]);
      // a full compaction rewrites the old file in the new types
      const write = await widened.newWrite({ commitUser: "u" });
      await write.compact({ full: true });
      await widened.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
      await write.close();
      expect(await read(widened)).toEqual(expected);
    });
  }

  it("a renamed column keeps its aggregate function: fields.<column>.* options follow the rename as in Java (the sum was lost)", async () => {
    const catalog = await Catalog.open(`memory://schema-evolution-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const fields: FieldLike[] = [
      { name: "k", type: "INT NOT NULL" },
      { name: "v", type: "BIGINT" },
    ];
    let table = await catalog.createTable("db.t", { fields: fields.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: ["k"], options: { bucket: "1", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum" } });
    await writeRows(table, fields, [{ k: 1, v: "1" }]);
    await writeRows(table, fields, [{ k: 1, v: "2" }]);
    table = await catalog.alterTable("db.t", [{ kind: "renameColumn", name: "v", newName: "w" }]);
    expect(table.schema.options).toEqual({ bucket: "1", "merge-engine": "aggregation", "fields.w.aggregate-function": "sum" });
    await writeRows(table, [fields[0]!, { name: "w", type: "BIGINT" }], [{ k: 1, w: "10" }]);
    expect(await read(table)).toEqual([{ k: 1, w: "13" }]);
  });

  it("renaming a column renames it in sequence.field, fields.<column>.* keys and sequence-group / nested-key keys and values, as Java does", async () => {
    const catalog = await Catalog.open(`memory://schema-evolution-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", {
      fields: ["k", "a", "b", "s"].map((name) => ({ name, type: name === "k" ? "INT NOT NULL" : "INT" })),
      primaryKeys: ["k"],
      options: { bucket: "1" },
    });
    const options = {
      bucket: "1",
      "sequence.field": "s",
      "fields.a.ignore-retract": "true",
      "fields.a.distinct": "true",
      "fields.a.list-agg-delimiter": ";",
      "fields.s,b.sequence-group": "a,b",
      "fields.a.nested-key": "b",
      "fields.b.aggregate-function": "max",
    };
    const renamed = applySchemaChanges({ ...table.schema, options }, [
      { kind: "renameColumn", name: "a", newName: "x" },
      { kind: "renameColumn", name: "s", newName: "seq" },
    ]);
    expect(renamed.options).toEqual({
      bucket: "1",
      "sequence.field": "seq",
      "fields.x.ignore-retract": "true",
      "fields.x.distinct": "true",
      "fields.x.list-agg-delimiter": ";",
      "fields.seq,b.sequence-group": "x,b",
      "fields.x.nested-key": "b",
      "fields.b.aggregate-function": "max",
    });
  });
});
