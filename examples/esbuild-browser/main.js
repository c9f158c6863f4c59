// The same query-only page bundled with esbuild (or Bun's bundler): `.wasm` imports become files
// copied next to the bundle (esbuild's `--loader:.wasm=file`, Bun's default), and the import's
// value is their path relative to the bundle, handed to init() as a URL.
import { Catalog, col, init } from "paimon-rt/edge";
import kernelsWasm from "paimon-rt/kernels.wasm";
import parquetWasm from "parquet-wasm/esm/parquet_wasm_bg.wasm";

const params = new URLSearchParams(location.search);
const warehouse = params.get("warehouse") ?? `${location.origin}/files/`;
const tableName = params.get("table") ?? "db.app";

await init({ kernels: new URL(kernelsWasm, import.meta.url), parquet: new URL(parquetWasm, import.meta.url) });

const table = await (await Catalog.open(warehouse)).getTable(tableName);
const filter = col("id").gt(3);
const plan = await table.newScan({ filter }).plan();
const result = await table.newRead({ projection: ["id", "name"], filter, predicateFilter: true }).toArrow(plan.splits);
const rows = result.toArray().map((row) => row.toJSON());
document.getElementById("out").textContent = JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? v.toString() : v), 2);
