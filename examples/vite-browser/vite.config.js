import { defineConfig } from "vite";

export default defineConfig({
  build: { target: "es2022" },
  // The dev server's dependency pre-bundling would move the packages' JS away from the .wasm
  // files their `new URL(…, import.meta.url)` point to.
  optimizeDeps: { exclude: ["paimon-rt", "parquet-wasm"] },
});
