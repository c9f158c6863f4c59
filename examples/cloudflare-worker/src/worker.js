// A Cloudflare Worker answering `GET /?table=db.app&min_id=3` with the matching rows as JSON,
// read from the Paimon warehouse at env.WAREHOUSE. Workers refuse to compile wasm from bytes, so
// both wasm modules are imported as modules and handed to init() once per isolate.
import { Catalog, col, init } from "paimon-rt/edge";
import kernels from "paimon-rt/kernels.wasm";
import parquet from "parquet-wasm/esm/parquet_wasm_bg.wasm";

let ready; // one init per isolate; a failed one is retried by the next request

export default {
  async fetch(request, env) {
    ready ??= init({ kernels, parquet }).catch((e) => {
      ready = undefined;
      throw e;
    });
    await ready;
    const url = new URL(request.url);
    const table = await (await Catalog.open(env.WAREHOUSE)).getTable(url.searchParams.get("table") ?? "db.app");
    const filter = col("id").gt(Number(url.searchParams.get("min_id") ?? 0));
    const plan = await table.newScan({ filter }).plan();
    const result = await table.newRead({ projection: ["id", "name"], filter, predicateFilter: true }).toArrow(plan.splits);
    const rows = result.toArray().map((row) => row.toJSON());
    const body = JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? v.toString() : v)); // BIGINT columns
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
};
