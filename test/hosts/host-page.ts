// The Chromium side of the host suites: the routes a page needs (its HTML, the host bundle and the
// two wasm modules where the page and the bundle fetch them) and a headless page loaded until the
// page's module script sets `window.ready`.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { bundleHostEntry } from "./bundle.js";

const require = createRequire(import.meta.url);

/** Static-server routes for a host page: `/index.html` (= `html`), `/bundle.mjs` and the wasm modules. */
export async function hostPageRoutes(html: string): Promise<Record<string, { body: string | Uint8Array; type: string }>> {
  return {
    "/index.html": { body: html, type: "text/html; charset=utf-8" },
    "/bundle.mjs": { body: await bundleHostEntry(), type: "text/javascript" },
    // where the bundle's `new URL("../../wasm/pkg/paimon_rt_kernels.wasm", import.meta.url)` points
    "/wasm/pkg/paimon_rt_kernels.wasm": { body: readFileSync(require.resolve("paimon-rt/kernels.wasm")), type: "application/wasm" },
    "/parquet.wasm": { body: readFileSync(require.resolve("parquet-wasm/esm/parquet_wasm_bg.wasm")), type: "application/wasm" },
  };
}

/** Headless Chromium with `url` loaded and ready; uncaught page errors are pushed to `pageErrors`. */
export async function openHostPage(
  executablePath: string,
  url: string,
  pageErrors: string[],
): Promise<{ browser: import("playwright-core").Browser; page: import("playwright-core").Page }> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--headless=new"] });
  const page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  return { browser, page };
}
