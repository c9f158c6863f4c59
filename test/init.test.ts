/**
 * `init({ kernels, parquet })`: the one initialisation for hosts that cannot load wasm by
 * themselves. Exported from both entries; wrong modules are named in the error; a failed parquet
 * load is UNSUPPORTED (never CORRUPT_FILE on the user's data file) and is retried cleanly once the
 * right module is given. Real restricted hosts (workerd, Chromium) are covered in test/hosts/.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as arrow from "apache-arrow";
import { describe, expect, it, vi } from "vitest";
import * as root from "../src/index.js";
import * as edge from "../src/edge.js";
import { setParquetWasmSource } from "../src/format/wasm.js";
import { kernelSourceHash, kernelWasmBytes } from "../src/kernel/wasm.js";
import { PaimonError } from "../src/error.js";

const require = createRequire(import.meta.url);

async function codeOf(p: Promise<unknown>): Promise<[string, string]> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    return [(e as PaimonError).code, (e as PaimonError).message];
  }
  throw new Error("expected a rejection");
}

describe("init", () => {
  it("is the same function from paimon-rt and paimon-rt/edge; RowKind is on the edge entry", () => {
    expect(typeof root.init).toBe("function");
    expect(edge.init).toBe(root.init);
    expect(edge.RowKind).toBe(root.RowKind);
    expect([edge.RowKind.INSERT, edge.RowKind.UPDATE_BEFORE, edge.RowKind.UPDATE_AFTER, edge.RowKind.DELETE]).toEqual([0, 1, 2, 3]);
  });

  it("the edge entry exports the file systems but not the internal path and error helpers", () => {
    expect(typeof edge.HttpFileIO).toBe("function");
    expect(typeof edge.MemoryFileIO).toBe("function");
    expect(typeof edge.registerFileIOFactory).toBe("function");
    for (const internal of ["joinPath", "fsError", "readOnlyError", "shortReadError", "checkRange", "tempSiblingPath", "randomId", "toBytes", "readTextFile", "resolveWarehouse", "resolveFileIO", "fileIOFactoryFor", "parseMemoryPath", "toRequestUrl"]) {
      expect(Object.keys(edge)).not.toContain(internal);
    }
  });

  it("paimon-rt/kernels.wasm resolves through the exports map to the kernel file the loader reads", async () => {
    const file = fileURLToPath(import.meta.resolve("paimon-rt/kernels.wasm"));
    expect(file.endsWith("wasm/pkg/paimon_rt_kernels.wasm")).toBe(true);
    const bytes = readFileSync(file);
    expect(Buffer.compare(bytes, Buffer.from(kernelWasmBytes()))).toBe(0);
    const module = await WebAssembly.compile(bytes);
    expect(kernelSourceHash(module)).toMatch(/^[0-9a-f]{64}$/);
    await edge.init({ kernels: module });
    expect(edge.sortPermutation([edge.keyColumnFromValues("int32", [3, 1, 2])], new BigInt64Array(3)).join()).toBe("1,2,0");
  });

  it("rejects a kernels module that is not this build's kernel, before it is used", async () => {
    const emptyModule = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]); // valid, exports nothing
    const [code, message] = await codeOf(edge.init({ kernels: emptyModule }));
    expect(code).toBe("INVALID_ARGUMENT");
    expect(message).toContain("is not this paimon-rt's kernel wasm (paimon-rt/kernels.wasm): its source hash is missing");
    const [garbageCode, garbageMessage] = await codeOf(edge.init({ kernels: new Uint8Array([1, 2, 3]) }));
    expect(garbageCode).toBe("INVALID_ARGUMENT");
    expect(garbageMessage).toContain("init({ kernels })");
  });

  it("rejects a value that is no module, bytes or URL, naming the option", async () => {
    const [code, message] = await codeOf(edge.init({ parquet: 42 as never }));
    expect(code).toBe("INVALID_ARGUMENT");
    expect(message).toBe("init({ parquet }): expected a WebAssembly.Module, an ArrayBuffer, a typed array or a URL, got number");
    const [kernelCode, kernelMessage] = await codeOf(edge.init({ kernels: null as never }));
    expect(kernelCode).toBe("INVALID_ARGUMENT");
    expect(kernelMessage).toBe("init({ kernels }): expected a WebAssembly.Module, an ArrayBuffer, a typed array or a URL, got null");
  });

  it("takes both modules by URL (a bundler's asset URL; file: URLs are read from disk here)", async () => {
    const kernels = import.meta.resolve("paimon-rt/kernels.wasm");
    const parquet = new URL(import.meta.resolve("parquet-wasm/esm/parquet_wasm_bg.wasm"));
    await edge.init({ kernels, parquet });
    expect(edge.sortPermutation([edge.keyColumnFromValues("int32", [2, 3, 1])], new BigInt64Array(3)).join()).toBe("2,0,1");
    const [code, message] = await codeOf(edge.init({ kernels: new URL("missing.wasm", kernels) }));
    expect(code).toBe("INVALID_ARGUMENT");
    expect(message).toContain("the kernels module given to init({ kernels }) is not paimon-rt's kernel wasm");
    expect(message).toContain("missing.wasm");
  });

  it("a parquet module that fails to load is UNSUPPORTED on a read that needs it (not CORRUPT_FILE), flat columns read without it, and init with the right one retries cleanly", async () => {
    const catalog = await edge.Catalog.open(`memory://init-${Date.now()}`);
    await catalog.createDatabase("db");
    // TIME: a column the flat decoder leaves to parquet-wasm
    const t = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "time", type: "TIME" }] });
    const w = await t.newWrite({ commitUser: "u" });
    await w.write(
      new arrow.RecordBatch({
        id: arrow.makeData({ type: new arrow.Int64(), length: 2, data: new BigInt64Array([7n, 8n]) }),
        time: arrow.makeData({ type: new arrow.TimeMillisecond(), length: 2, data: new Int32Array([1000, 86_399_000]) }),
      }),
    );
    expect(await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(1), 1)).toBe(1);
    const plan = await t.newScan().plan();

    // a host where parquet-wasm cannot be loaded: here, bytes that are no wasm at all
    setParquetWasmSource(new Uint8Array([0, 1, 2, 3]));
    const ids = (await t.newRead({ projection: ["id"] }).toArrow(plan.splits)).getChild("id")!.toArray();
    expect(Array.from(ids as BigInt64Array)).toEqual([7n, 8n]); // the flat decoder: no parquet-wasm needed
    // primary-key tables: their files (with the TINYINT _VALUE_KIND) are written and read without parquet-wasm
    const pk = await catalog.createTable("db.pk", { fields: [{ name: "k", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["k"], options: { bucket: "1" } });
    for (const [id, [k, v]] of [[1, [[1n, 2n], ["a", "b"]]], [2, [[2n, 3n], ["B", "c"]]]] as const) {
      const pw = await pk.newWrite({ commitUser: "u" });
      await pw.write(new arrow.RecordBatch({ k: arrow.makeData({ type: new arrow.Int64(), length: 2, data: BigInt64Array.from(k) }), v: arrow.vectorFromArray([...v], new arrow.Utf8()).data[0]! }));
      await pk.newCommit({ commitUser: "u" }).commit(await pw.prepareCommit(id), id);
      await pw.close();
    }
    const merged = await pk.newRead().toArrow((await pk.newScan().plan()).splits);
    expect(merged.toArray().map((r) => [r.k, r.v])).toEqual([[1n, "a"], [2n, "B"], [3n, "c"]]);
    const [readCode, readMessage] = await codeOf(t.newRead().toArrow(plan.splits));
    expect(readCode).toBe("UNSUPPORTED");
    expect(readMessage).toContain("the parquet module (parquet-wasm) could not be loaded");
    const [initCode, initMessage] = await codeOf(edge.init({ parquet: new Uint8Array([0, 1, 2, 3]) }));
    expect(initCode).toBe("INVALID_ARGUMENT");
    expect(initMessage).toContain("init({ parquet })");

    const parquetWasm = readFileSync(require.resolve("parquet-wasm/esm/parquet_wasm_bg.wasm"));
    await edge.init({ parquet: new Uint8Array(parquetWasm) });
    const table = await t.newRead().toArrow(plan.splits);
    expect(Array.from(table.getChild("id")!.toArray() as BigInt64Array)).toEqual([7n, 8n]);
    expect(Array.from(table.getChild("time")!.toArray() as Int32Array)).toEqual([1000, 86_399_000]);
  });
});

describe("module load on hosts without FinalizationRegistry", () => {
  it("importing the kernel bitmaps does not touch FinalizationRegistry; bitmaps still work", async () => {
    const saved = globalThis.FinalizationRegistry;
    vi.resetModules();
    // @ts-expect-error: simulate a host that lacks it (workerd before 2025-05-05)
    delete globalThis.FinalizationRegistry;
    try {
      const { RoaringBitmap32 } = await import("../src/kernel/bitmap.js");
      const bitmap = new RoaringBitmap32();
      bitmap.add(5);
      expect(bitmap.size).toBe(1);
      bitmap.dispose();
    } finally {
      globalThis.FinalizationRegistry = saved;
    }
  });
});
