import { it } from "vitest";
import * as arrow from "apache-arrow";
import { Catalog } from "../../src/catalog/catalog.js";
import { arrowToRows, rowsToBatch } from "./convert.js";
it("x", async () => {
  const catalog = await Catalog.open("memory://x" + Math.random());
  await catalog.createDatabase("d");
  for (const [type, rows] of [
    ["ROW<z ROW<d DECIMAL(20, 2)>>", [{ r: { z: { d: "1.00" } } }, { r: null }]],
    ["ROW<d DECIMAL(20, 2)>", [{ r: { d: "1.00" } }, { r: null }]],
    ["ROW<d DECIMAL(20, 2)>", [{ r: { d: "1.00" } }, { r: { d: "2.00" } }]],
    ["ARRAY<DECIMAL(20, 2)>", [{ r: ["1.00"] }, { r: ["2.00"] }]],
    ["ROW<d BIGINT>", [{ r: { d: "1" } }, { r: { d: "2" } }]],
  ] as const) {
    const name = "d.t" + Math.floor(Math.random() * 1e9);
    const fields = [{ name: "r", type }];
    const t = await catalog.createTable(name, { fields });
    const w = await t.newWrite({ commitUser: "u" });
    try {
      const b = rowsToBatch(fields, rows as any);
      await w.write(b);
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      const out = arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits));
      console.log(type, "OK", JSON.stringify(out));
    } catch (e) { console.log(type, "FAIL", (e as Error).message); }
  }
});
