// src/format/parquet-wasm-glue.ts (the factory copy of parquet-wasm's glue that replaces an
// instance after a wasm panic in every runtime) must be generated from the installed parquet-wasm.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import * as glue from "parquet-wasm/esm";
import { createParquetWasmGlue } from "../../src/format/parquet-wasm-glue.js";

it("is generated from the installed parquet-wasm glue and exports the same names", () => {
  const script = fileURLToPath(new URL("../../scripts/build-parquet-glue.mjs", import.meta.url));
  expect(execFileSync(process.execPath, [script, "--check"], { encoding: "utf8" })).toContain("matches parquet-wasm 0.8.0");
  expect(Object.keys(createParquetWasmGlue()).sort()).toEqual(Object.keys(glue).sort());
  // every call is a fresh copy: its classes are not the previous copy's
  expect(createParquetWasmGlue().Table).not.toBe(createParquetWasmGlue().Table);
});
