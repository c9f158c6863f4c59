// Round trips of a cold filtered point query over HTTP (issue 12): a 1 M-row append table (4
// commits of 250 k rows, so the query must prune files by their statistics) served read-only from
// 127.0.0.1 by `paimon-rt serve`'s file server; a fresh catalog, table, scan and read of `id = k`
// per run. Reports the requests sent, how many rounds of them were sequential (requests sent
// together share a round; scripts/http-trace.mjs) and the wall time, without and with 50 ms of
// latency injected before every request.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { header } from "./harness.mjs";
import { tracingFetch } from "../scripts/http-trace.mjs";

export async function runHttpBenchmarks(report, { quick = false } = {}) {
  const lib = await import("../dist/node/index.js");
  const edge = await import("../dist/node/edge.js");
  const { startFileServer } = await import("../dist/cli/serve.js");
  const rows = quick ? 100_000 : 1_000_000;
  const commits = 4;
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-http-"));
  try {
    const catalog = await lib.Catalog.open(join(dir, "wh"));
    await catalog.createDatabase("bench");
    const table = await catalog.createTable("bench.points", {
      fields: [
        { name: "id", type: "BIGINT" },
        { name: "name", type: "STRING" },
        { name: "value", type: "DOUBLE" },
      ],
    });
    const per = rows / commits;
    for (let c = 0; c < commits; c++) {
      const ids = BigInt64Array.from({ length: per }, (_, i) => BigInt(c * per + i));
      const batch = new arrow.RecordBatch({
        id: arrow.makeData({ type: new arrow.Int64(), length: per, data: ids }),
        name: arrow.vectorFromArray(Array.from({ length: per }, (_, i) => `name-${c * per + i}`), new arrow.Utf8()).data[0],
        value: arrow.makeData({ type: new arrow.Float64(), length: per, data: Float64Array.from({ length: per }, (_, i) => (c * per + i) / 7) }),
      });
      const w = await table.newWrite({ commitUser: "bench" });
      await w.write(batch);
      await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
    }
    const server = await startFileServer({ root: dir, prefix: "/files/" });
    try {
      header(`http: cold point query (id = k) on ${rows} rows in ${commits} files, over HTTP from 127.0.0.1`);
      const key = Math.floor(rows * 0.777);
      for (const latencyMs of [0, 50]) {
        const trace = tracingFetch(latencyMs);
        const started = performance.now();
        const cat = await edge.Catalog.open(`${server.base}/files/wh`, { fileIO: new edge.HttpFileIO({ fetch: trace.fetch }) });
        const t = await cat.getTable("bench.points");
        const filter = edge.col("id").eq(key);
        const plan = await t.newScan({ filter }).plan();
        const result = await t.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
        const wallMs = performance.now() - started;
        if (result.numRows !== 1 || Number(result.get(0).id) !== key) throw new Error(`point query returned ${result.numRows} rows`);
        const bytes = trace.requests.reduce((sum, r) => sum + (r.range ? Number(r.range.split("-")[1]) - Number(r.range.slice(6).split("-")[0]) + 1 : 0), 0);
        report.add({
          suite: "http",
          case: `point query, ${latencyMs} ms latency`,
          rows,
          candidate: `${trace.requests.length} req / ${trace.rounds()} seq`,
          candidateMs: wallMs,
          requests: trace.requests.length,
          sequentialRounds: trace.rounds(),
          latencyMs,
          rangeBytes: bytes,
        });
      }
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
