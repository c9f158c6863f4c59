// paimon-rt/edge in a real browser: headless Chromium (Debian's `chromium`, driven by
// playwright-core) loads a page whose module script is the vite bundle of the edge entry, reads
// the fixture warehouse over HTTP from 127.0.0.1 with the browser's own fetch, and must return
// exactly the Node read. parquet-wasm is handed over with init({ parquet }) as an app bundled
// without the wasm asset would; before that, a read fails with UNSUPPORTED naming the module.
// The kernel module is not handed over: the read fetches it from the URL the bundle computes
// (paimon-rt's `new URL("../../wasm/pkg/paimon_rt_kernels.wasm", import.meta.url)` from /bundle.mjs).
import { chromiumFor } from "./chromium-path.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { hostPageRoutes, openHostPage } from "./host-page.js";
import { EXPECTED } from "./expected.js";
import { writeHostFixture } from "./fixture.js";

const executablePath = chromiumFor("Chromium");

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>paimon-rt edge</title></head><body>
<script type="module">
import { pr, runHostQueries, withParquetWasm, parquetWasmRestarts } from "/bundle.mjs";
window.beforeInit = async (warehouse) => {
  const table = await (await pr.Catalog.open(warehouse)).getTable("db.app");
  const plan = await table.newScan().plan();
  try {
    await table.newRead().toArrow(plan.splits);
    return "no error";
  } catch (e) {
    return { code: e.code ?? null, message: String(e.message) };
  }
};
window.afterInit = async (warehouse) => {
  const parquet = await (await fetch("/parquet.wasm")).arrayBuffer();
  await pr.init({ parquet });
  return runHostQueries(pr, warehouse);
};
window.afterPanic = async (warehouse) => {
  const before = parquetWasmRestarts();
  let trap = null;
  try {
    // a documented parquet-rs panic: dictionary encoding passed as a plain encoding
    await withParquetWasm((pw) => { new pw.WriterPropertiesBuilder().setEncoding(pw.Encoding.RLE_DICTIONARY); });
  } catch (e) {
    trap = e instanceof WebAssembly.RuntimeError ? "RuntimeError" : String(e);
  }
  return { trap, restarts: parquetWasmRestarts() - before, queries: await runHostQueries(pr, warehouse) };
};
window.ready = true;
</script></body></html>`;

describe.skipIf(executablePath === null)("paimon-rt/edge in headless Chromium", () => {
  let dir: string;
  let server: StaticServer;
  let browser: import("playwright-core").Browser;
  let page: import("playwright-core").Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "paimon-rt-chromium-"));
    await writeHostFixture(join(dir, "wh"));
    server = await startStaticServer(dir, await hostPageRoutes(PAGE));
    ({ browser, page } = await openHostPage(executablePath!, `${server.base}/index.html`, pageErrors));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const warehouse = () => `${server.base}/files/wh`;

  it("without the parquet module a read fails with UNSUPPORTED naming it (not CORRUPT_FILE)", async () => {
    const result = (await page.evaluate((wh) => (window as unknown as { beforeInit(w: string): Promise<unknown> }).beforeInit(wh), warehouse())) as { code: string; message: string };
    expect(result.code).toBe("UNSUPPORTED");
    expect(result.message).toContain("the parquet module (parquet-wasm) could not be loaded");
  });

  it("after init({ parquet }) returns exactly the Node read", async () => {
    const result = await page.evaluate((wh) => (window as unknown as { afterInit(w: string): Promise<unknown> }).afterInit(wh), warehouse());
    expect(result).toEqual(EXPECTED);
    expect(pageErrors).toEqual([]);
    expect(server.requests.filter((r) => r.path.endsWith(".wasm")).map((r) => r.path)).toEqual(["/wasm/pkg/paimon_rt_kernels.wasm", "/parquet_wasm_bg.wasm", "/parquet.wasm"]); // the kernels first (a read loads them before it starts; parquet-wasm when a chunk needs it), then the glue's own default, before init
  });

  it("after a wasm panic the parquet instance is replaced by a fresh glue copy and the same reads return exactly the Node read", async () => {
    const result = (await page.evaluate((wh) => (window as unknown as { afterPanic(w: string): Promise<unknown> }).afterPanic(wh), warehouse())) as { trap: string; restarts: number; queries: unknown };
    expect(result.trap).toBe("RuntimeError");
    expect(result.restarts).toBe(1);
    expect(result.queries).toEqual(EXPECTED);
    expect(pageErrors).toEqual([]);
    // nothing was fetched again: the compiled module given to init is instantiated anew
    expect(server.requests.filter((r) => r.path.endsWith(".wasm")).length).toBe(3);
  });
});
