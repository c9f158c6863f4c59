import { it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { arrowToRows } from "../interop/convert.js";
it("dump", async () => {
  const c = await Catalog.open(process.env.WH!);
  for (const s of process.env.SYS!.split(",")) {
    console.log("==", s);
    try {
      const t = await c.getTable(`${process.env.ID ?? "db.t"}$${s}`);
      const rows = arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits));
      for (const r of rows) console.log(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
    } catch (e) { console.log("ERR", (e as Error).stack); }
  }
});
