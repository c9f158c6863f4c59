// Bundles the `paimon-rt serve` explorer (src/explorer/app.ts on paimon-rt/edge) into a minified
// ES module with vite (plus its on-demand chunks), next to a copy of its page: `<outDir>/explorer.js`
// and `<outDir>/index.html`.
// Run by scripts/build.mjs into dist/explorer (so `npm pack` ships it) and by the explorer's tests.
// The two wasm modules are not bundled: the server serves them and the page hands them to init().
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * A vite plugin that hides the two wasm modules' `new URL("….wasm", import.meta.url)` (parquet-wasm's
 * and paimon-rt's kernel, src/kernel/wasm-source.ts) from vite's asset handling, which would inline
 * them as base64 in library mode (5 MB and 150 KB); bundles that use it pass the modules to
 * init({ kernels, parquet }) or serve them where the unrewritten URLs point.
 */
export const keepWasmExternal = {
  name: "keep-wasm-external",
  enforce: "pre",
  transform(code, id) {
    if (id.includes("parquet-wasm")) return code.replace("new URL('parquet_wasm_bg.wasm', import.meta.url)", "new URL('parquet_wasm_bg.wasm', import.meta['url'])");
    if (/kernel[\\/]wasm-source\.[jt]s$/.test(id)) return code.replace('new URL("../../wasm/pkg/paimon_rt_kernels.wasm", import.meta.url)', 'new URL("../../wasm/pkg/paimon_rt_kernels.wasm", import.meta["url"])');
    return null;
  },
};

/**
 * Writes explorer.js, the chunks it imports on demand (code used only for writes, such as the zstd
 * encoder, stays in a chunk the page never loads) and index.html into `outDir`; resolves to the size
 * in bytes of explorer.js.
 */
export async function bundleExplorer(outDir) {
  const { build } = await import("vite");
  const result = await build({
    configFile: false,
    logLevel: "silent",
    root,
    plugins: [keepWasmExternal],
    build: {
      write: false,
      minify: true,
      target: "es2022",
      assetsInlineLimit: 0,
      lib: { entry: join(root, "src", "explorer", "app.ts"), formats: ["es"], fileName: "explorer" },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((o) => o.output);
  const entry = outputs.find((o) => o.type === "chunk" && o.isEntry);
  if (!entry || entry.fileName !== "explorer.js") throw new Error(`vite produced no explorer.js (got ${outputs.map((o) => o.fileName).join(", ")})`);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const o of outputs) {
    // the server serves the explorer directory flat: chunk names must not contain directories
    if (o.fileName.includes("/")) throw new Error(`explorer bundle file ${o.fileName} is not flat`);
    writeFileSync(join(outDir, o.fileName), o.type === "chunk" ? o.code : o.source);
  }
  copyFileSync(join(root, "src", "explorer", "index.html"), join(outDir, "index.html"));
  return Buffer.byteLength(entry.code);
}
