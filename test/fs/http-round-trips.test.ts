// Round trips of a cold filtered point query over HTTP (issue 12): how many requests a fresh
// catalog + table + scan + read sends, in how many sequential rounds (requests sent together
// share a round; a 20 ms injected latency per request keeps the rounds independent of machine
// speed). bench/http.mjs measures the same on a 1 M-row table with 50 ms latency.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog, col, HttpFileIO, type DataSplit } from "../../src/edge.js";
import { tracingFetch } from "../../scripts/http-trace.mjs";
import { writeHostFixture } from "../hosts/fixture.js";
import { startStaticServer, type StaticServer } from "../support/static-server.js";

let dir: string;
let server: StaticServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "paimon-rt-round-trips-"));
  await writeHostFixture(join(dir, "wh"));
  server = await startStaticServer(dir);
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("cold filtered point query over HTTP", () => {
  it("sends the requests the format needs, independent ones in parallel", async () => {
    const trace = tracingFetch(20);
    const catalog = await Catalog.open(`${server.base}/files/wh`, { fileIO: new HttpFileIO({ fetch: trace.fetch }) });
    const table = await catalog.getTable("db.app");
    const filter = col("id").eq(4);
    const plan = await table.newScan({ filter }).plan();
    const rows = (await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits)).toArray().map((r) => r.toJSON());
    expect(rows.map((r) => Number(r.id))).toEqual([4]);
    // per round, what was sent (ids of manifests and data files elided)
    const split = plan.splits[0] as DataSplit;
    expect(plan.splits.length).toBe(1);
    const wholeFile = `bytes=0-${Number(split.files[0]!.fileSize) - 1}`;
    const byRound: string[][] = [];
    for (const r of trace.requests) {
      const what = `${r.method} ${r.path.replace(/^.*\/wh\/db\.db\/app\//, "").replace(/-[0-9a-f]{8}-[0-9a-f-]{27}-\d+/, "-…")}${r.range ? ` ${r.range === wholeFile ? "bytes=0-(size-1)" : r.range}` : ""}`;
      (byRound[r.round - 1] ??= []).push(what);
    }
    expect(byRound.map((round) => round.sort())).toEqual([
      ["GET schema/"], // the latest schema id (Java lists too)
      ["GET schema/schema-0"],
      ["GET snapshot/LATEST"],
      ["GET snapshot/snapshot-2", "HEAD snapshot/snapshot-3"], // the hinted snapshot, and that none follows it
      ["GET manifest/manifest-list-…", "GET manifest/manifest-list-…"], // base and delta lists together
      ["GET manifest/manifest-…", "GET manifest/manifest-…"],
      ["GET dt%3D2024-01-02/bucket-0/data-….parquet bytes=0-(size-1)"], // footer and column chunks in one read of a small file
    ]);
    expect({ requests: trace.requests.length, rounds: trace.rounds() }).toEqual({ requests: 10, rounds: 7 });
  });
});
