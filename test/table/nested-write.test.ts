import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { parseDataType, toArrowType } from "../../src/spec/types.js";

function decimalData(values: Array<bigint | null>, precision: number, scale: number): arrow.Data {
  const words = new Uint32Array(values.length * 4);
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v === null) return;
    bitmap[i >> 3] |= 1 << (i & 7);
    let x = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++, x >>= 32n) words[i * 4 + k] = Number(x & 0xffffffffn);
  });
  const nullCount = values.filter((v) => v === null).length;
  return arrow.makeData({ type: new arrow.Decimal(scale, precision, 128), length: values.length, nullCount, nullBitmap: nullCount ? bitmap : undefined, data: words });
}

describe("nested columns and added DECIMAL columns", () => {
  it("writes ROW children from batches whose field ids are not the table's", async () => {
    const catalog = await Catalog.open(`memory://nested-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const type = "ROW<x BIGINT, z ROW<d DECIMAL(20, 2)>>";
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }, { name: "r", type }] });
    // toArrowType(parseDataType(...)) numbers nested fields from 0: other ids than the table's
    const rType = toArrowType(parseDataType(type)) as arrow.Struct;
    const [xf, zf] = rType.children;
    const z = arrow.makeData({ type: zf.type as arrow.Struct, length: 2, nullCount: 0, children: [decimalData([12345n, null], 20, 2)] });
    const x = arrow.makeData({ type: new arrow.Int64(), length: 2, nullCount: 0, data: BigInt64Array.from([1n, 2n]) });
    const r = arrow.makeData({ type: rType, length: 2, nullCount: 0, children: [x, z] });
    const tableR = table.schema.fields[1].type;
    expect(tableR.kind === "ROW" && String(tableR.fields[0].id)).not.toBe(xf.metadata.get("PARQUET:field_id"));
    const id = arrow.makeData({ type: new arrow.Int32(), length: 2, nullCount: 0, data: Int32Array.from([1, 2]) });
    const write = await table.newWrite({ commitUser: "u" });
    await write.write(new arrow.RecordBatch({ id, r }));
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    const out = await table.newRead().toArrow((await table.newScan().plan()).splits);
    const rows = out.toArray().map((row) => row.toJSON());
    expect(rows.map((row) => row.r.x)).toEqual([1n, 2n]);
    expect(rows[1].r.z.d).toBeNull();
    expect(out.getChild("r")!.data[0].children[1].children[0].nullCount).toBe(1);
  });

  it("reads old files after adding a DECIMAL(20, 2) column and writes them again", async () => {
    const catalog = await Catalog.open(`memory://adddec-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    let table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }] });
    let write = await table.newWrite({ commitUser: "u" });
    await write.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), length: 2, nullCount: 0, data: Int32Array.from([1, 2]) }) }));
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    table = await catalog.alterTable("db.t", [{ kind: "addColumn", name: "d", type: "DECIMAL(20, 2)" }]);
    const old = await table.newRead().toArrow((await table.newScan().plan()).splits);
    expect(old.getChild("d")!.nullCount).toBe(2);
    // the all-null DECIMAL column read back is a valid column to write again
    write = await table.newWrite({ commitUser: "u" });
    await write.write(old.batches[0]);
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    const all = await table.newRead().toArrow((await table.newScan().plan()).splits);
    expect(all.numRows).toBe(4);
    expect(all.getChild("d")!.nullCount).toBe(4);
  });
});
