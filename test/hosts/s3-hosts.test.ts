// paimon-rt/edge's S3FileIO in the real runtimes: Node writes the host fixture to an s3:// prefix
// of the test S3 server (Ceph RGW), then headless Chromium (the page's own fetch, cross-origin,
// so the bucket gets a CORS rule for the page's origin) and workerd (miniflare) read it over
// s3:// with SigV4 signed through WebCrypto, credentials passed explicitly (neither has an
// environment), and must return exactly the Node read; a page from an origin the CORS rule does
// not allow gets IO_ERROR. Without an S3 server both suites skip,
// saying how to run them; with one, a missing runtime skips or (PAIMON_RT_REQUIRE_HOSTS=1) fails.
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { S3_SKIP_MESSAGE, allowBucketReadsFrom, freshS3Root, s3TestBucket, testS3FileIO } from "../fs/s3-server.js";
import { hostPageRoutes, openHostPage } from "./host-page.js";
import { chromiumFor } from "./chromium-path.js";
import { EXPECTED } from "./expected.js";
import { writeHostFixture } from "./fixture.js";
import { loadMiniflare, startHostWorker, type MiniflareModule } from "./miniflare.js";
import * as edge from "../../src/edge.js";
// @ts-expect-error: plain JS module shared with the browser and worker bundles
import { runHostQueries } from "./queries.mjs";

const s3Present = s3TestBucket !== null;
const chromiumPath = s3Present ? chromiumFor("Chromium on S3") : null;
const miniflare = s3Present ? await loadMiniflare("workerd on S3") : null;

// the reads of a writable warehouse: everything but the read-only refusals
const { refusals: _refusals, ...EXPECTED_READS } = EXPECTED;

/** The `Catalog.open` options the page and the worker get: endpoint and keys, explicitly. */
function s3OpenOptions() {
  return {
    s3: {
      endpoint: process.env.AWS_ENDPOINT_URL!,
      region: process.env.AWS_REGION ?? "us-east-1",
      accessKeyId: process.env.AWS_ACCESS_KEY_ID!,
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY!,
    },
  };
}

let warehouse: string;
async function writeFixtureOnce(): Promise<string> {
  if (!warehouse) {
    warehouse = `${freshS3Root("hosts")}/wh`;
    await writeHostFixture(warehouse);
  }
  return warehouse;
}
afterAll(async () => {
  if (warehouse) await testS3FileIO().deleteDirectory(warehouse.slice(0, -"/wh".length));
});

if (!s3Present) {
  describe.skip(`paimon-rt/edge on s3:// in Chromium and workerd — ${S3_SKIP_MESSAGE}`, () => {
    it("needs an S3 server", () => undefined);
  });
}

describe.skipIf(!s3Present)("paimon-rt/edge S3FileIO in Node (the reference)", () => {
  it("reads the fixture over s3:// and returns the same reads as over HTTP", async () => {
    expect(await runHostQueries(edge, await writeFixtureOnce(), s3OpenOptions())).toEqual(EXPECTED_READS);
  });
});

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>paimon-rt edge on S3</title></head><body>
<script type="module">
import { pr, runHostQueries } from "/bundle.mjs";
window.readS3 = async (warehouse, openOptions) => {
  const parquet = await (await fetch("/parquet.wasm")).arrayBuffer();
  await pr.init({ parquet });
  return runHostQueries(pr, warehouse, openOptions);
};
window.ready = true;
</script></body></html>`;

describe.skipIf(chromiumPath === null)("paimon-rt/edge S3FileIO in headless Chromium", () => {
  let server: StaticServer;
  let browser: import("playwright-core").Browser;
  let page: import("playwright-core").Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await writeFixtureOnce();
    server = await startStaticServer(tmpdir(), await hostPageRoutes(PAGE));
    await allowBucketReadsFrom(s3TestBucket!, server.base);
    ({ browser, page } = await openHostPage(chromiumPath!, `${server.base}/index.html`, pageErrors));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("reads the fixture over s3:// (cross-origin, signed) and returns exactly the Node read", async () => {
    const result = await page.evaluate(
      ([wh, options]) => (window as unknown as { readS3(w: string, o: unknown): Promise<unknown> }).readS3(wh, options),
      [warehouse, s3OpenOptions()] as const,
    );
    expect(result).toEqual(EXPECTED_READS);
    expect(pageErrors).toEqual([]);
  });

  it("from an origin the bucket's CORS rule does not allow, the browser blocks the read: IO_ERROR naming the path", async () => {
    const otherOrigin = server.base.replace("127.0.0.1", "localhost"); // same server, another origin
    const errors: string[] = [];
    const other = await openHostPage(chromiumPath!, `${otherOrigin}/index.html`, errors);
    try {
      const result = (await other.page.evaluate(
        ([wh, options]) =>
          (window as unknown as { readS3(w: string, o: unknown): Promise<unknown> }).readS3(wh, options).then(
            () => "no error",
            (e: { code?: string; message: string }) => ({ code: e.code ?? null, message: String(e.message) }),
          ),
        [warehouse, { s3: { ...s3OpenOptions().s3, maxRetries: 0 } }] as const,
      )) as { code: string; message: string };
      expect(result.code).toBe("IO_ERROR");
      expect(result.message).toContain(`list ${warehouse}: request failed after 1 attempts: Failed to fetch`);
    } finally {
      await other.browser.close();
    }
  });
});

const WORKER = `
import kernels from "./kernels.wasm";
import parquet from "./parquet.wasm";
import { pr, runHostQueries } from "./bundle.mjs";

export default {
  async fetch(request) {
    const { warehouse, openOptions } = await request.json();
    await pr.init({ kernels, parquet });
    try {
      return Response.json(await runHostQueries(pr, warehouse, openOptions));
    } catch (e) {
      return new Response(String(e.code ?? "") + " " + String(e.stack ?? e), { status: 500 });
    }
  },
};
`;

describe.skipIf(miniflare === null)("paimon-rt/edge S3FileIO in workerd (miniflare)", () => {
  let mf: InstanceType<MiniflareModule["Miniflare"]>;

  beforeAll(async () => {
    await writeFixtureOnce();
    mf = await startHostWorker(miniflare!, WORKER);
  }, 180_000);

  afterAll(async () => {
    await mf?.dispose();
  });

  it("reads the fixture over s3:// (signed with WebCrypto) and returns exactly the Node read", async () => {
    const res = await mf.dispatchFetch("http://worker/read", { method: "POST", body: JSON.stringify({ warehouse, openOptions: s3OpenOptions() }) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual(EXPECTED_READS);
  });
});
