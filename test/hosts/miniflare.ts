/**
 * miniflare (workerd) for the worker suites, or null (the suite skips, saying why) when it is not
 * installed. CI sets PAIMON_RT_REQUIRE_HOSTS=1, so a missing miniflare fails there instead.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { bundleHostEntry } from "./bundle.js";

const require = createRequire(import.meta.url);

export type MiniflareModule = typeof import("miniflare");

export async function loadMiniflare(suite: string): Promise<MiniflareModule | null> {
  try {
    return await import("miniflare");
  } catch (e) {
    const why = `miniflare is not installed (${(e as Error).message}); npm ci installs it`;
    if (process.env.PAIMON_RT_REQUIRE_HOSTS === "1") throw new Error(`${suite} suite required but ${why}`);
    console.warn(`${suite} suite skipped: ${why}`);
    return null;
  }
}

/**
 * A workerd worker whose main module is `worker` (importing `./bundle.mjs`, the host bundle, and
 * `./kernels.wasm` / `./parquet.wasm` as compiled modules), ready to `dispatchFetch`. The
 * compatibility date predates 2025-05-05 (no FinalizationRegistry): importing must not crash.
 */
export async function startHostWorker(miniflare: MiniflareModule, worker: string): Promise<InstanceType<MiniflareModule["Miniflare"]>> {
  const mf = new miniflare.Miniflare({
    modules: [
      { type: "ESModule", path: "worker.mjs", contents: worker },
      { type: "ESModule", path: "bundle.mjs", contents: await bundleHostEntry() },
      { type: "CompiledWasm", path: "kernels.wasm", contents: readFileSync(require.resolve("paimon-rt/kernels.wasm")) },
      { type: "CompiledWasm", path: "parquet.wasm", contents: readFileSync(require.resolve("parquet-wasm/esm/parquet_wasm_bg.wasm")) },
    ],
    compatibilityDate: "2025-01-01",
  });
  await mf.ready;
  return mf;
}
