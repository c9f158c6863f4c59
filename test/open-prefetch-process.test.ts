// Opening a table starts loading what its first read needs (table.ts `prefetchTableModules`: the
// flat decoder with zstd, the kernel module) without waiting for it. In processes of their own,
// built from this checkout's src: where WebAssembly is unavailable (node --jitless) the table
// still opens and plans, and the read fails with the kernels' UNSUPPORTED PaimonError (no
// unhandled rejection from the prefetch ends the process); and the prefetch and a read's
// initKernels() share one load of the kernel module; and importing the server entry starts those
// loads before any table opens (index.ts).
// Node only (it spawns process.execPath with Node flags): not among the Deno/Bun portable suites.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Catalog } from "../src/index.js";
import { buildDistInto } from "./support/built-dist.js";

const dir = mkdtempSync(join(tmpdir(), "paimon-rt-open-prefetch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  buildDistInto(dir);
  const catalog = await Catalog.open(join(dir, "warehouse"));
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }] });
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: 3, data: BigInt64Array.from([1n, 2n, 3n]) }),
      name: arrow.vectorFromArray(["a", null, "c"], new arrow.Utf8()).data[0]!,
    }),
  );
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
}, 300_000);

/** Runs `script` (an ES module) with Node `flags` in `dir`. */
function run(flags: string[], script: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", script], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The server runtimes' entry as the package resolves it ("node" condition: the bundle) and unbundled (its "default").
const ENTRIES = ["./dist/node/index.js", "./dist/index.js"];

const openAndRead = (entry: string) => `
import { Catalog, Table } from "${entry}";
const out = [];
for (const open of [() => Catalog.open("warehouse").then((c) => c.getTable("db.t")), () => Table.open("warehouse/db.db/t")]) {
  const table = await open();
  out.push("opened " + table.schema.fields.map((f) => f.name).join(","));
  const plan = await table.newScan().plan();
  out.push("splits " + plan.splits.length);
  try {
    const t = await table.newRead().toArrow(plan.splits);
    out.push("rows " + t.numRows);
  } catch (e) {
    out.push(e.constructor.name + " " + e.code + " " + e.message);
  }
}
process.stdout.write(out.join("\\n"));
`;

it.each(ENTRIES)("%s: a table opens and plans where WebAssembly is unavailable; its read fails with the kernels' UNSUPPORTED PaimonError", (entry) => {
  const { code, stdout, stderr } = run(["--jitless"], openAndRead(entry));
  expect(code, stderr).toBe(0);
  const failure =
    "PaimonError UNSUPPORTED the kernels module (paimon-rt's kernel wasm) could not be compiled in this runtime: WebAssembly is not defined; pass the module to init({ kernels }) (import paimon-rt/kernels.wasm as a WebAssembly.Module)";
  expect(stdout.split("\n")).toEqual(["opened id,name", "splits 1", failure, "opened id,name", "splits 1", failure]);
});

it.each(ENTRIES)("%s: the same process with WebAssembly reads the rows", (entry) => {
  const { code, stdout, stderr } = run([], openAndRead(entry));
  expect(code, stderr).toBe(0);
  expect(stdout.split("\n")).toEqual(["opened id,name", "splits 1", "rows 3", "opened id,name", "splits 1", "rows 3"]);
});

it("the kernel prefetch of a table open and a read's initKernels() share one load", () => {
  const script = `
import { initKernels, kernelExports, prefetchKernels } from "./dist/kernel/wasm.js";
prefetchKernels();
const a = initKernels();
const b = initKernels();
await a;
const after = initKernels();
process.stdout.write(JSON.stringify({ shared: a === b, fresh: after !== a, alloc: typeof kernelExports().pr_alloc }));
`;
  const { code, stdout, stderr } = run([], script);
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ shared: true, fresh: true, alloc: "function" });
});

it.each(ENTRIES)("%s: importing the library (the server entry) starts loading zstd's package and compiling the kernel module, before any table opens", (entry) => {
  const script = `
import { createRequire } from "node:module";
const compiled = [];
const compile = WebAssembly.compile;
WebAssembly.compile = (bytes) => { compiled.push(bytes.byteLength); return compile(bytes); };
await import("${entry}");
await new Promise((resolve) => setImmediate(resolve));
const require = createRequire(import.meta.url);
const kernelBytes = require("node:fs").statSync("./wasm/pkg/paimon_rt_kernels.wasm").size;
process.stdout.write(JSON.stringify({ zstdRequired: require.resolve("@bokuweb/zstd-wasm") in require.cache, kernelCompiles: compiled.filter((n) => n === kernelBytes).length }));
`;
  const { code, stdout, stderr } = run([], script);
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ zstdRequired: true, kernelCompiles: 1 });
});
