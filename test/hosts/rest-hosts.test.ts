// paimon-rt/edge's REST catalog (`openRESTCatalog`) in the real runtimes: Java Paimon 1.4.2's
// RESTCatalogServer (the Java oracle's `rest-server`) keeps its warehouse on the test S3 server
// (a bucket of this suite's own, so its CORS rule disturbs no other suite) and vends the S3 keys
// as data tokens; Java writes a table through it; then Node (the reference), headless Chromium
// and workerd (miniflare) list and read it with `openRESTCatalog` given no S3 keys, and must
// return exactly the expected rows. Chromium reaches the server cross-origin through a proxy that
// answers CORS as a deployment would (preflight allowing Authorization, Content-Type and the
// server's `header.*` headers); the server itself, without CORS, is refused by the browser
// (IO_ERROR). Skips without the Java oracle or an S3 server; a missing runtime skips or
// (PAIMON_RT_REQUIRE_HOSTS=1) fails.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { S3_SKIP_MESSAGE, allowBucketReadsFrom, ensureTestBucket, s3TestBucket, testS3FileIO } from "../fs/s3-server.js";
import { randomId } from "../../src/fs/file-io.js";
import { batchOutput, javaOracleUnavailable, runBatch } from "../interop/oracle/harness.js";
import { startJavaRESTServer, type JavaRESTServer } from "../interop/oracle/rest-server.js";
import { tempDirs } from "../support/temp-dirs.js";
import { hostPageRoutes, openHostPage } from "./host-page.js";
import { chromiumFor } from "./chromium-path.js";
import { loadMiniflare, startHostWorker, type MiniflareModule } from "./miniflare.js";
import * as edge from "../../src/edge.js";
// @ts-expect-error: plain JS module shared with the browser and worker bundles
import { runRESTQueries } from "./queries.mjs";

const skip = javaOracleUnavailable() ?? (s3TestBucket === null ? S3_SKIP_MESSAGE : null);
if (skip) console.log(`skipping the REST catalog host suites: ${skip}`);
const chromiumPath = skip === null ? chromiumFor("Chromium REST catalog") : null;
const miniflare = skip === null ? await loadMiniflare("workerd REST catalog") : null;

/** This suite's own bucket: its CORS rule names this suite's page origin only. */
const BUCKET = "paimon-rt-rest-hosts";
const TOKEN = "rt-host-token";
const WAREHOUSE = "rt_host_wh";
const TABLE = "jdb.t";
const tempDir = tempDirs("paimon-rt-rest-hosts-");

const rowsOf = (ids: number[]) => ids.map((id) => ({ id, v: `v${id}` }));
const expected = (root: string) => ({
  databases: ["jdb"],
  tables: ["t"],
  location: `${root}/wh/jdb.db/t`,
  snapshots: [1, 2],
  rows: rowsOf([7, 8, 9]),
  atSnapshot1: rowsOf([7, 8]),
});

/** The server's `header.*` default the client sends with every request (so a CORS preflight must allow it). */
const SERVER_HEADER = "x-oracle";

interface Setup {
  server: JavaRESTServer;
  root: string;
}
let setup: Promise<Setup> | undefined;

/** Once per file: the Java REST server on S3 with data tokens, and Java's table written through it. */
function javaTableOnce(): Promise<Setup> {
  setup ??= (async () => {
    await ensureTestBucket(BUCKET);
    const root = `s3://${BUCKET}/tests/rest-hosts-${randomId()}`;
    const server = await startJavaRESTServer(`${root}/wh`, WAREHOUSE, TOKEN, { "data-token.enabled": "true" });
    await server.setDataToken(TABLE, Date.now() + 4 * 3_600_000, { "s3.access-key": process.env.AWS_ACCESS_KEY_ID!, "s3.secret-key": process.env.AWS_SECRET_ACCESS_KEY! });
    const { writeFileSync } = await import("node:fs");
    const spec = `${tempDir()}/spec.json`;
    writeFileSync(spec, JSON.stringify({ fields: [{ name: "id", type: "INT" }, { name: "v", type: "STRING" }], partitionKeys: [], options: { bucket: "-1" }, commits: [rowsOf([7, 8]), rowsOf([9])] }));
    const [out] = (await runBatch("java", [["write", `rest:${server.uri}?warehouse=${WAREHOUSE}&token=${TOKEN}`, TABLE, spec]])).map(batchOutput);
    if (JSON.parse(out.trim()).snapshots.join() !== "1,2") throw new Error(`Java's write answered ${out}`);
    return { server, root };
  })();
  return setup;
}
afterAll(async () => {
  if (!setup) return;
  const { server, root } = await setup;
  await server.close();
  await testS3FileIO().deleteDirectory(root);
});

/** The `openRESTCatalog` options the runtimes get: the server, its token, the S3 endpoint, no S3 keys. */
function restOptions(uri: string) {
  return { uri, warehouse: WAREHOUSE, token: TOKEN, s3: { endpoint: process.env.AWS_ENDPOINT_URL!, region: process.env.AWS_REGION ?? "us-east-1" } };
}

/**
 * A reverse proxy to the REST server that answers CORS for `origin` as a browser-facing deployment
 * must: preflights (OPTIONS) allowing the methods and the request headers the client sends, and
 * `Access-Control-Allow-Origin` on every answer.
 */
async function startCorsProxy(target: string, origin: string): Promise<{ base: string; close(): Promise<void> }> {
  const cors = { "access-control-allow-origin": origin, vary: "Origin" };
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method === "OPTIONS") {
        res.writeHead(204, {
          ...cors,
          "access-control-allow-methods": "GET, POST, DELETE",
          "access-control-allow-headers": `authorization, content-type, ${SERVER_HEADER}`,
          "access-control-max-age": "600",
        });
        res.end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ["authorization", "content-type", SERVER_HEADER]) if (typeof req.headers[name] === "string") headers[name] = req.headers[name] as string;
      const payload = await body(req);
      const upstream = await fetch(new URL(req.url!, target), { method: req.method, headers, body: payload.length > 0 ? payload : undefined });
      res.writeHead(upstream.status, { ...cors, "content-type": upstream.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    })().catch((e) => {
      res.writeHead(502, cors);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

if (skip !== null) {
  describe.skip(`paimon-rt/edge REST catalog in Chromium and workerd — ${skip}`, () => {
    it("needs the Java oracle and an S3 server", () => undefined);
  });
}

describe.skipIf(skip !== null)("paimon-rt/edge REST catalog in Node (the reference)", () => {
  it("lists and reads Java's table through Java's REST server, with the server's data token", async () => {
    const { server, root } = await javaTableOnce();
    expect(await runRESTQueries(edge, restOptions(server.uri), TABLE)).toEqual(expected(root));
  }, 300_000);
});

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>paimon-rt edge REST catalog</title></head><body>
<script type="module">
import { pr, runRESTQueries } from "/bundle.mjs";
window.readREST = async (restOptions, identifier) => {
  const parquet = await (await fetch("/parquet.wasm")).arrayBuffer();
  await pr.init({ parquet });
  return runRESTQueries(pr, restOptions, identifier).catch((e) => ({ code: e.code ?? null, message: String(e.message) }));
};
window.ready = true;
</script></body></html>`;

describe.skipIf(chromiumPath === null)("paimon-rt/edge REST catalog in headless Chromium", () => {
  let page$: StaticServer;
  let proxy: { base: string; close(): Promise<void> };
  let browser: import("playwright-core").Browser;
  let page: import("playwright-core").Page;
  let server: JavaRESTServer;
  let root: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ server, root } = await javaTableOnce());
    page$ = await startStaticServer(tmpdir(), await hostPageRoutes(PAGE));
    proxy = await startCorsProxy(server.uri, page$.base);
    await allowBucketReadsFrom(BUCKET, page$.base);
    ({ browser, page } = await openHostPage(chromiumPath!, `${page$.base}/index.html`, pageErrors));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await page$?.close();
  });

  const readREST = (uri: string) =>
    page.evaluate(([options, identifier]) => (window as unknown as { readREST(o: unknown, i: string): Promise<unknown> }).readREST(options, identifier), [restOptions(uri), TABLE] as const);

  it("reads Java's table through a CORS-answering proxy of the REST server, S3 signed with the vended keys: exactly the expected rows", async () => {
    expect(await readREST(proxy.base)).toEqual(expected(root));
    expect(pageErrors).toEqual([]);
  });

  it("the REST server itself answers no CORS: the browser blocks the request, IO_ERROR naming it", async () => {
    const base = server.uri.replace(/\/$/, "");
    expect(await readREST(server.uri)).toEqual({ code: "IO_ERROR", message: `REST catalog request GET ${base}/v1/config?warehouse=${WAREHOUSE} failed: Failed to fetch` });
  });
});

const WORKER = `
import kernels from "./kernels.wasm";
import parquet from "./parquet.wasm";
import { pr, runRESTQueries } from "./bundle.mjs";

export default {
  async fetch(request) {
    const { restOptions, identifier } = await request.json();
    await pr.init({ kernels, parquet });
    try {
      return Response.json(await runRESTQueries(pr, restOptions, identifier));
    } catch (e) {
      return new Response(String(e.code ?? "") + " " + String(e.stack ?? e), { status: 500 });
    }
  },
};
`;

describe.skipIf(miniflare === null)("paimon-rt/edge REST catalog in workerd (miniflare)", () => {
  let mf: InstanceType<MiniflareModule["Miniflare"]>;

  beforeAll(async () => {
    await javaTableOnce();
    mf = await startHostWorker(miniflare!, WORKER);
  }, 300_000);

  afterAll(async () => {
    await mf?.dispose();
  });

  it("lists and reads Java's table through the REST server, S3 signed with the vended keys: exactly the expected rows", async () => {
    const { server, root } = await javaTableOnce();
    const res = await mf.dispatchFetch("http://worker/read", { method: "POST", body: JSON.stringify({ restOptions: restOptions(server.uri), identifier: TABLE }) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual(expected(root));
  });
});
