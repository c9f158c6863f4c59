// `rowkind.field` (Java's RowKindGenerator): the row kind of each written row comes from a string
// column (interop with Java: test/interop/rowkind-field-interop.test.ts); here: it overrides
// target.rowKinds, a bad batch writes nothing, and real-time writers refuse it.
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, rowsToBatch } from "../interop/convert.js";
import { failure } from "./helpers.js";

const FIELDS = [
  { name: "id", type: "INT NOT NULL" },
  { name: "kind", type: "VARCHAR(2)" },
];

async function table(options: Record<string, string>, primaryKeys: string[] = ["id"]): Promise<Table> {
  const catalog = await Catalog.open(`memory://rowkind-field-${Math.random().toString(36).slice(2)}`);
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", { fields: FIELDS, primaryKeys, options: { "rowkind.field": "kind", ...options } });
}

async function commit(t: Table, rows: Array<{ id: number; kind: string | null }>, rowKinds?: number[]): Promise<void> {
  const w = await t.newWrite({ commitUser: "u" });
  try {
    await w.write(rowsToBatch(FIELDS, rows), rowKinds ? { rowKinds } : {});
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  } finally {
    await w.close();
  }
}

const ids = async (t: Table) => arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)).map((r) => r.id).sort();

describe("rowkind.field", () => {
  it("takes each row's kind from the column, whatever target.rowKinds says (as Java ignores the row's own kind)", async () => {
    const t = await table({ bucket: "1" });
    await commit(t, [{ id: 1, kind: "+I" }, { id: 2, kind: "+I" }, { id: 3, kind: "+I" }]);
    await commit(t, [{ id: 2, kind: "-d" }, { id: 3, kind: "-U" }, { id: 4, kind: "+U" }], [0, 0, 0]);
    expect(await ids(t)).toEqual([1, 4]);
  });

  it("a bad value in a later batch row fails the whole write: nothing buffered", async () => {
    const t = await table({ bucket: "1" });
    const w = await t.newWrite({ commitUser: "u" });
    const e = await failure(() => w.write(rowsToBatch(FIELDS, [{ id: 1, kind: "+I" }, { id: 2, kind: "*" }])));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "writing db.t: Unsupported short string '*' for row kind."]);
    await w.write(rowsToBatch(FIELDS, [{ id: 3, kind: "+I" }]));
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    expect(await ids(t)).toEqual([3]);
  });

  it("append tables keep +I and +U rows; ignore-update-before drops -U rows before Java's append check", async () => {
    const t = await table({ "ignore-update-before": "true" }, []);
    await commit(t, [{ id: 1, kind: "+I" }, { id: 2, kind: "-U" }, { id: 3, kind: "+U" }]);
    expect(await ids(t)).toEqual([1, 3]);
    const e = await failure(() => commit(t, [{ id: 4, kind: "+I" }, { id: 5, kind: "-D" }]));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "writing db.t: Append only writer can not accept row with RowKind DELETE"]);
    expect(await ids(t)).toEqual([1, 3]);
  });

  it("real-time writers refuse it (they take target.rowKinds)", async () => {
    const t = await table({ bucket: "1", "realtime.enabled": "true" });
    const e = await failure(async () => t.newWrite({ commitUser: "u", realtime: await RealtimeContext.create() }));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "real-time writes to db.t with rowkind.field=kind are not supported (real-time writers take target.rowKinds; write through an ordinary writer)"]);
  });
});
