import { it } from "vitest";
import * as fs from "node:fs";
import { Catalog } from "../src/catalog/catalog.js";
import { writeTables } from "./interop/oracle/harness.js";
it("perf", async () => {
  const wh = "/tmp/h85/perf";
  if (!fs.existsSync(wh)) {
    const fields = [{ name: "id", type: "INT" }, { name: "l", type: "BIGINT" }, { name: "s", type: "STRING" }, { name: "d", type: "DOUBLE" }, { name: "c", type: "STRING" }];
    const rows = Array.from({ length: 300000 }, (_, id) => ({ id, l: String(id * 7919), s: `value-${id}`, d: id / 3, c: `cat${id % 20}` }));
    await writeTables("java", wh, ["orc", "parquet"].map((f) => ({ identifier: `db.${f}`, spec: { fields, options: { bucket: "-1", "file.format": f }, commits: [rows] } })));
  }
  const catalog = await Catalog.open(wh);
  for (let round = 0; round < 4; round++) for (const f of ["orc", "parquet"]) {
    const t = await catalog.getTable(`db.${f}`);
    const plan = await t.newScan().plan();
    const t0 = performance.now();
    const table = await t.newRead().toArrow(plan.splits);
    console.log(f, table.numRows, (performance.now() - t0).toFixed(1), "ms");
  }
}, 600000);
