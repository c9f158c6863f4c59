// paimon-rt/edge inside workerd (Cloudflare's runtime, through miniflare): a worker module bundled
// by vite reads the fixture warehouse over HTTP from 127.0.0.1 and must return exactly the Node
// read. workerd refuses to compile wasm from bytes and has no file URL for parquet-wasm, so the
// worker imports both .wasm files as modules and hands them to init(); before that, a read
// must fail with UNSUPPORTED naming the missing module (the kernels first; with only the kernels
// given, a read that needs parquet-wasm names that), and init must then recover cleanly.
// (startHostWorker: a compatibility date without FinalizationRegistry; importing must not crash.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { writeHostFixture } from "./fixture.js";
import { EXPECTED } from "./expected.js";
import { loadMiniflare, startHostWorker, type MiniflareModule } from "./miniflare.js";

const miniflare = await loadMiniflare("workerd");

const WORKER = `
import kernels from "./kernels.wasm";
import parquet from "./parquet.wasm";
import { pr, runHostQueries, withParquetWasm, parquetWasmRestarts } from "./bundle.mjs";

function json(value) {
  return new Response(JSON.stringify(value), { headers: { "content-type": "application/json" } });
}

async function failure(action) {
  try {
    await action();
    return "no error";
  } catch (e) {
    return { code: e.code ?? null, message: String(e.message) };
  }
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const warehouse = url.searchParams.get("warehouse");
    if (url.pathname === "/before-init") {
      const catalog = await pr.Catalog.open(warehouse);
      const table = await catalog.getTable("db.app");
      const plan = await table.newScan().plan();
      const read = await failure(() => table.newRead().toArrow(plan.splits));
      const kernel = await failure(() => pr.sortPermutation([pr.keyColumnFromValues("int32", [2, 1])], new BigInt64Array(2)));
      // with the kernels only: the zstd chunks go to parquet-wasm (workerd compiles no wasm from bytes)
      const parquetRead = await failure(async () => {
        await pr.init({ kernels });
        return table.newRead().toArrow((await table.newScan().plan()).splits);
      });
      return json({ read, kernel, parquetRead });
    }
    await pr.init({ kernels, parquet });
    if (url.pathname === "/after-panic") {
      const before = parquetWasmRestarts();
      // a documented parquet-rs panic: dictionary encoding passed as a plain encoding
      const trap = await failure(() => withParquetWasm((pw) => { new pw.WriterPropertiesBuilder().setEncoding(pw.Encoding.RLE_DICTIONARY); }));
      return json({ trap: trap.message, restarts: parquetWasmRestarts() - before, queries: await runHostQueries(pr, warehouse) });
    }
    return json(await runHostQueries(pr, warehouse));
  },
};
`;

describe.skipIf(miniflare === null)("paimon-rt/edge in workerd (miniflare)", () => {
  let dir: string;
  let server: StaticServer;
  let mf: InstanceType<MiniflareModule["Miniflare"]>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "paimon-rt-workerd-"));
    await writeHostFixture(join(dir, "wh"));
    server = await startStaticServer(dir);
    mf = await startHostWorker(miniflare!, WORKER);
  }, 120_000);

  afterAll(async () => {
    await mf?.dispose();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const warehouse = () => encodeURIComponent(`${server.base}/files/wh`);

  it("without init, reads fail with UNSUPPORTED naming the missing module (not CORRUPT_FILE)", async () => {
    const res = await mf.dispatchFetch(`http://worker/before-init?warehouse=${warehouse()}`);
    type Failure = { code: string; message: string };
    const body = (await res.json()) as { read: Failure; kernel: Failure; parquetRead: Failure };
    expect(body.read.code).toBe("UNSUPPORTED");
    expect(body.read.message).toContain("the kernels module");
    expect(body.read.message).toContain("init({ kernels })");
    expect(body.kernel.code).toBe("UNSUPPORTED");
    expect(body.kernel.message).toContain("the kernels module");
    expect(body.kernel.message).toContain("init({ kernels })");
    expect(body.parquetRead.code).toBe("UNSUPPORTED");
    expect(body.parquetRead.message).toContain("the parquet module (parquet-wasm) could not be loaded");
    expect(body.parquetRead.message).toContain("init({ parquet })");
  });

  it("after init({ kernels, parquet }) returns exactly the Node read", async () => {
    const res = await mf.dispatchFetch(`http://worker/read?warehouse=${warehouse()}`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual(EXPECTED);
  });

  it("after a wasm panic the parquet instance is replaced (a fresh glue copy over the same module) and reads return exactly the Node read", async () => {
    const res = await mf.dispatchFetch(`http://worker/after-panic?warehouse=${warehouse()}`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const body = JSON.parse(text) as { trap: string; restarts: number; queries: unknown };
    expect(body.trap).toBe("unreachable");
    expect(body.restarts).toBe(1);
    expect(body.queries).toEqual(EXPECTED);
  });
});
