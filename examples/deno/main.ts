// Deno: query a Paimon warehouse (a local directory or an http(s):// URL) and print the rows.
//   deno run --allow-read --allow-net main.ts <warehouse> [table]
// Deno reads both wasm modules from the installed packages by itself: no init() needed.
import { Catalog, col } from "paimon-rt";

const [warehouse, tableName = "db.app"] = Deno.args;
if (!warehouse) throw new Error("usage: main.ts <warehouse> [table]");
const table = await (await Catalog.open(warehouse)).getTable(tableName);
const filter = col("id").gt(3);
const plan = await table.newScan({ filter }).plan();
const result = await table.newRead({ projection: ["id", "name"], filter, predicateFilter: true }).toArrow(plan.splits);
console.log(JSON.stringify(result.toArray().map((row) => row.toJSON()), (_, v) => (typeof v === "bigint" ? v.toString() : v)));
