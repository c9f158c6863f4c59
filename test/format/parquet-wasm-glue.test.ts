// src/format/parquet-wasm-glue.ts (the factory copy of parquet-wasm's glue that replaces an
// instance after a wasm panic in every runtime) must be generated from the installed parquet-wasm.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import * as glue from "parquet-wasm/esm";
import { createParquetWasmGlue } from "../../src/format/parquet-wasm-glue.js";
import { parquetGluePath, parquetGlueSource } from "../../scripts/build-parquet-glue.mjs";

it("is generated from the installed parquet-wasm glue and exports the same names", () => {
  const { source, version } = parquetGlueSource();
  expect(version).toBe("0.8.0");
  expect(readFileSync(parquetGluePath, "utf8") === source).toBe(true); // else: node scripts/build-parquet-glue.mjs
  expect(Object.keys(createParquetWasmGlue()).sort()).toEqual(Object.keys(glue).sort());
  // every call is a fresh copy: its classes are not the previous copy's
  expect(createParquetWasmGlue().Table).not.toBe(createParquetWasmGlue().Table);
});
