// Bundles test/hosts/entry.mjs (paimon-rt/edge from source + the shared queries) into one ES
// module with vite, as an app would, for the browser page and the worker. parquet-wasm's default
// `new URL("parquet_wasm_bg.wasm", import.meta.url)` is left as is (the suites pass the module
// to init), so the 5 MB wasm is not inlined into the JS.
import { fileURLToPath } from "node:url";
import { build, type Rollup } from "vite";
import { keepParquetWasmExternal } from "../../scripts/bundle-explorer.mjs";

export async function bundleHostEntry(): Promise<string> {
  const entry = fileURLToPath(new URL("./entry.mjs", import.meta.url));
  const result = (await build({
    configFile: false,
    logLevel: "silent",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    plugins: [keepParquetWasmExternal],
    build: {
      write: false,
      minify: false,
      target: "es2022",
      assetsInlineLimit: 0,
      lib: { entry, formats: ["es"], fileName: "host-bundle" },
      rollupOptions: { output: { codeSplitting: false } },
    },
  })) as Rollup.RollupOutput[] | Rollup.RollupOutput;
  const outputs = Array.isArray(result) ? result : [result];
  const chunk = outputs.flatMap((o) => o.output).find((o): o is Rollup.OutputChunk => o.type === "chunk" && o.isEntry);
  if (!chunk) throw new Error("vite produced no entry chunk");
  return chunk.code;
}
