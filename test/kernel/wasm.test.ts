import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { initKernels, kernelExports, kernelSourceHash, kernelWasmBytes } from "../../src/kernel/wasm.js";
// @ts-expect-error plain JS helper shared with the build script
import { kernelSourceHash as hashSources } from "../../scripts/kernel-source-hash.mjs";

const crateDir = new URL("../../wasm/", import.meta.url);

describe("kernel module", () => {
  it("was built from the committed crate sources (rebuild with npm run build:wasm)", () => {
    const module = new WebAssembly.Module(kernelWasmBytes());
    expect(kernelSourceHash(module)).toBe(hashSources(crateDir.pathname));
  });

  it("embeds exactly the committed wasm/pkg artifact", () => {
    const file = readFileSync(new URL("pkg/paimon_rt_kernels.wasm", crateDir));
    expect(Buffer.from(kernelWasmBytes()).equals(file)).toBe(true);
  });

  it("needs no imports, so it instantiates in any runtime", () => {
    const module = new WebAssembly.Module(kernelWasmBytes());
    expect(WebAssembly.Module.imports(module)).toEqual([]);
    const names = WebAssembly.Module.exports(module).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(["memory", "pr_alloc", "pr_free", "pr_sort_permutation", "pr_merge_deduplicate", "pr_fingerprint", "pr_bucket"]));
  });

  it("instantiates once, lazily or through initKernels", async () => {
    const first = kernelExports();
    await initKernels();
    expect(kernelExports()).toBe(first);
  });
});
