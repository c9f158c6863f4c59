// Bundles test/hosts/entry.mjs (paimon-rt/edge from source + the shared queries) into one ES
// module with vite, as an app would, for the browser page and the worker. The wasm modules' default
// `new URL("….wasm", import.meta.url)` are left as is (the suites pass the modules to init or serve
// them where those URLs point), so neither is inlined into the JS.
import { fileURLToPath } from "node:url";
import { build, type Rollup } from "vite";
import { keepWasmExternal } from "../../scripts/bundle-explorer.mjs";

export async function bundleHostEntry(): Promise<string> {
  const entry = fileURLToPath(new URL("./entry.mjs", import.meta.url));
  const result = (await build({
    configFile: false,
    logLevel: "silent",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    plugins: [keepWasmExternal],
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
