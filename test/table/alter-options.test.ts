// Options an alter may not change, as Java 1.4.2's SchemaManager.checkAlterTableOption refuses
// them: changing them would change what the table's existing files mean or where they are
// (data-file.path-directory: every existing file where no reader looks). Each refusal is
// UNSUPPORTED and leaves the schema as it was.
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { SchemaChange } from "../../src/table/schema-manager.js";
import { tempDirs } from "../support/temp-dirs.js";
import { failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-alter-options-");

async function pkTable(options: Record<string, string> = {}) {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "1", ...options } });
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(1, 2) }), v: arrow.vectorFromArray(["a", "b"], new arrow.Utf8()).data[0]! }));
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
  return { catalog, table };
}

async function refused(catalog: Catalog, change: SchemaChange, message: string): Promise<void> {
  const schemasBefore = (await (await catalog.getTable("db.t")).schemaManager.listSchemaIds()).length;
  const e = await failure(() => catalog.alterTable("db.t", [change]));
  expect(e.code, JSON.stringify(change)).toBe("UNSUPPORTED");
  expect(e.message).toContain(message);
  const table = await catalog.getTable("db.t");
  expect((await table.schemaManager.listSchemaIds()).length).toBe(schemasBefore);
  expect((await table.newRead().toArrow((await table.newScan().plan()).splits)).numRows).toBe(2);
}

describe("alterTable: options whose change Java refuses", () => {
  it("immutable options (Java's @Immutable), set or reset: the data stays where readers look", async () => {
    const { catalog } = await pkTable({ "data-file.path-directory": "data" });
    for (const key of ["data-file.path-directory", "index-file-in-data-file-dir", "type", "rowkind.field", "sequence.snapshot-ordering", "partial-update.remove-record-on-delete", "force-lookup", "path"]) {
      await refused(catalog, { kind: "setOption", key, value: "x" }, key);
    }
    await refused(catalog, { kind: "removeOption", key: "data-file.path-directory" }, "data-file.path-directory");
    await refused(catalog, { kind: "removeOption", key: "bucket" }, "bucket cannot be reset");
  });

  it("deletion-vectors.enabled changes only with deletion-vectors.modifiable=true; ignore-delete and ignore-update-before never go from true to false", async () => {
    const { catalog } = await pkTable({ "ignore-delete": "true", "ignore-update-before": "true" });
    await refused(catalog, { kind: "setOption", key: "deletion-vectors.enabled", value: "true" }, "deletion-vectors.modifiable");
    await refused(catalog, { kind: "setOption", key: "ignore-delete", value: "false" }, "ignore-delete from true to false");
    await refused(catalog, { kind: "setOption", key: "ignore-update-before", value: "false" }, "ignore-update-before from true to false");
    // the same value again, and the other direction, are fine
    await catalog.alterTable("db.t", [{ kind: "setOption", key: "deletion-vectors.enabled", value: "false" }]);
    await catalog.alterTable("db.t", [{ kind: "setOption", key: "deletion-vectors.modifiable", value: "true" }]);
    const t = await catalog.alterTable("db.t", [{ kind: "setOption", key: "deletion-vectors.enabled", value: "true" }]);
    expect(t.schema.options["deletion-vectors.enabled"]).toBe("true");
    const dv = await pkTable({ "deletion-vectors.enabled": "true" });
    await refused(dv.catalog, { kind: "removeOption", key: "deletion-vectors.enabled" }, "from true to false");
  });
});
