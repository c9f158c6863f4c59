// How the kernel module's bytes reach the loader (wasm.ts) when init({ kernels }) was given none.
// The module ships as a .wasm file next to the JS (wasm/pkg/paimon_rt_kernels.wasm, exported as
// `paimon-rt/kernels.wasm`) instead of being embedded as base64 (which cost browser bundles
// ~200 KB of JS):
// * Node, Deno, Bun: read from the installed package synchronously, so the kernel's synchronous
//   API (sortPermutation, RoaringBitmap32, ...) works without init().
// * Browsers: fetched by URL. `new URL("<literal>", import.meta.url)` is the form bundlers (vite,
//   rollup, webpack, parcel) recognise: they emit the file as an asset and rewrite the URL.
// * Hosts that refuse to compile fetched bytes (Cloudflare Workers): init({ kernels: module }).
import { PaimonError } from "../error.js";

/** What a kernel module can be loaded from (the input of `initKernels` / `init({ kernels })`). */
export type KernelSource = WebAssembly.Module | BufferSource | URL | string;

/** Where the package's kernel module lives, relative to this file (src/kernel or dist/kernel). */
export function kernelWasmUrl(): URL {
  return new URL("../../wasm/pkg/paimon_rt_kernels.wasm", import.meta.url);
}

interface ServerGlobals {
  Deno?: { readFileSync?(path: URL): Uint8Array };
  process?: { getBuiltinModule?(id: string): unknown };
}

/**
 * The package's kernel bytes, read synchronously where this module is a local file and the
 * runtime can read files (Node >= 20.16, Deno, Bun); undefined elsewhere (browsers, workers,
 * bundles), where the module is fetched or handed to init.
 */
export function readKernelWasmSync(): Uint8Array<ArrayBuffer> | undefined {
  let url: URL;
  try {
    url = kernelWasmUrl();
  } catch {
    return undefined; // a host without a usable import.meta.url
  }
  if (url.protocol !== "file:") return undefined;
  const g = globalThis as ServerGlobals;
  if (typeof g.Deno?.readFileSync === "function") return readOrExplain(() => g.Deno!.readFileSync!(url), url);
  const fs = g.process?.getBuiltinModule?.("node:fs") as typeof import("node:fs") | undefined;
  if (fs) return readOrExplain(() => fs.readFileSync(url), url);
  return undefined;
}

function readOrExplain(read: () => Uint8Array, url: URL): Uint8Array<ArrayBuffer> {
  try {
    const bytes = read();
    return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);
  } catch (e) {
    throw new PaimonError(
      "UNSUPPORTED",
      `the kernels module (paimon-rt's kernel wasm) could not be read from ${url.href}: ${(e as Error)?.message ?? String(e)}; when bundling, ship paimon-rt/kernels.wasm and pass it to init({ kernels })`,
      { cause: e },
    );
  }
}

/** Fetches a kernel module's bytes by URL (file: URLs are read from disk on server runtimes). */
export async function fetchKernelWasm(url: URL | string): Promise<Uint8Array<ArrayBuffer>> {
  const resolved = new URL(String(url), (globalThis as { location?: { href: string } }).location?.href);
  if (resolved.protocol === "file:") {
    const { readFile } = (await import(/* @vite-ignore */ NODE_FS)) as typeof import("node:fs/promises");
    return new Uint8Array(await readFile(resolved));
  }
  const response = await fetch(resolved);
  if (!response.ok) throw new Error(`fetching ${resolved.href}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// A computed specifier keeps browser bundlers from following this server-only import.
const NODE_FS = ["node", "fs/promises"].join(":");
