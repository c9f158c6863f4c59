// A query-only browser app: open a warehouse served over HTTP (e.g. by `npx paimon-rt serve ./warehouse`),
// run a filtered, projected query and show the rows. Both wasm modules end up as files vite emits.
// The work runs in an async function, not at the module's top level: a top-level await in the app
// makes Vite 8 (rolldown) skip its chunk merging, and the page then loads ~4 KB (gzip) more JS.
import { Catalog, col, init } from "paimon-rt/edge";
import parquetWasmUrl from "parquet-wasm/esm/parquet_wasm_bg.wasm?url";

async function main() {
  const params = new URLSearchParams(location.search);
  const warehouse = params.get("warehouse") ?? `${location.origin}/files/`;
  const tableName = params.get("table") ?? "db.app";

  // paimon-rt finds its kernel module next to its JS by itself; parquet-wasm's is handed over by URL.
  await init({ parquet: parquetWasmUrl });

  const table = await (await Catalog.open(warehouse)).getTable(tableName);
  const filter = col("id").gt(3);
  const plan = await table.newScan({ filter }).plan();
  const result = await table.newRead({ projection: ["id", "name"], filter, predicateFilter: true }).toArrow(plan.splits);
  const rows = result.toArray().map((row) => row.toJSON());
  document.getElementById("out").textContent = JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? v.toString() : v), 2);
}

main().catch((e) => {
  document.getElementById("out").textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
  throw e;
});
