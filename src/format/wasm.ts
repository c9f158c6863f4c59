// Lazy, once-only initialization of parquet-wasm (0.8.0) through its portable ESM entry
// ("web" target), so nothing touches the file system at import time.
//
// * Node / Deno / Bun: the .wasm is read from the installed package on first use
//   (node:fs/promises, resolved through node:module's createRequire or import.meta.resolve).
// * Browsers / workers: the glue's default `init()` fetches `parquet_wasm_bg.wasm` next to
//   itself, unless the caller provided the module with `setParquetWasmSource`.
// * A Rust panic aborts the wasm instance (`RuntimeError: unreachable`); its heap must not be
//   used again. `withParquetWasm` catches that, drops the instance and the next call
//   instantiates a fresh copy of the glue (parquet-wasm-glue.ts: the glue's code in a factory,
//   since browsers and workers cannot import a bundled module again) and a new
//   WebAssembly.Instance over the cached compiled module.

import type * as ParquetWasmModule from "parquet-wasm/esm";
import { PaimonError } from "../error.js";

export type ParquetWasm = typeof ParquetWasmModule;

/** Anything the wasm can be instantiated from. */
export type ParquetWasmSource =
  | WebAssembly.Module
  | ArrayBuffer
  | Uint8Array
  | URL
  | string
  | Response
  | (() => Promise<WebAssembly.Module | ArrayBuffer | Uint8Array | Response>);

let userSource: ParquetWasmSource | undefined;
let compiled: WebAssembly.Module | undefined;
let current: Promise<ParquetWasm> | undefined;
// Which copy of the glue module the next instance uses: bumped only when an instance is dropped
// after a panic (its glue holds the poisoned heap). A failed *load* leaves it alone, so a retry
// (e.g. after `init({ parquet })`) reuses the statically imported glue, which works everywhere.
let glueGeneration = 0;
let restarts = 0;

/**
 * Provides the parquet-wasm module (or its bytes / URL) explicitly, e.g. for edge runtimes that
 * must import the `.wasm` as a module. Call before the first Parquet operation.
 */
export function setParquetWasmSource(source: ParquetWasmSource): void {
  userSource = source;
  compiled = undefined;
  current = undefined;
}

/** Number of times the wasm instance was dropped after a panic (for tests and diagnostics). */
export function parquetWasmRestarts(): number {
  return restarts;
}

/**
 * The initialized parquet-wasm module (initialized on first call, shared afterwards). A failed
 * load is UNSUPPORTED (never a data file's CORRUPT_FILE) and is not cached: the next call retries.
 */
export function getParquetWasm(): Promise<ParquetWasm> {
  if (!current) {
    current = instantiate(glueGeneration).catch((e: unknown) => {
      current = undefined;
      compiled = undefined;
      throw loadError(e);
    });
  }
  return current;
}

function loadError(e: unknown): PaimonError {
  if (e instanceof PaimonError) return e;
  const detail = (e as Error)?.message ?? String(e);
  const hint =
    userSource === undefined
      ? "pass the module to init({ parquet }) (parquet-wasm/esm/parquet_wasm_bg.wasm, imported as a WebAssembly.Module or its bytes)"
      : "the module given to init({ parquet }) is not parquet-wasm 0.8.0's parquet_wasm_bg.wasm";
  return new PaimonError("UNSUPPORTED", `the parquet module (parquet-wasm) could not be loaded in this runtime: ${detail}; ${hint}`, { cause: e });
}

/** Drops the current instance; the next `getParquetWasm()` creates a fresh one. */
export function resetParquetWasm(): void {
  current = undefined;
  glueGeneration++;
  restarts++;
}

/** True for a trap raised by the wasm instance (a Rust panic or abort). */
export function isWasmTrap(e: unknown): boolean {
  return typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
}

/**
 * Runs `fn` with the parquet-wasm module. A wasm trap thrown by `fn` poisons the instance:
 * it is discarded (so later calls get a fresh instance) and the trap is re-thrown.
 */
export async function withParquetWasm<T>(fn: (pw: ParquetWasm) => T | Promise<T>): Promise<T> {
  const pw = await getParquetWasm();
  try {
    return await fn(pw);
  } catch (e) {
    if (isWasmTrap(e) && current !== undefined) {
      // Only reset if nobody else replaced the instance meanwhile.
      const mine = await current.catch(() => undefined);
      if (mine === pw) resetParquetWasm();
    }
    throw e;
  }
}

// Computed specifiers keep edge bundlers from following these server-only imports.
const NODE_MODULE = ["node", "module"].join(":");
const NODE_URL = ["node", "url"].join(":");
const NODE_FS = ["node", "fs/promises"].join(":");

/** Node, Deno or Bun: wasm files load from the installed packages (no URL to guess). */
export function isServerRuntime(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string } }; Deno?: unknown; Bun?: unknown };
  return g.Deno !== undefined || g.Bun !== undefined || typeof g.process?.versions?.node === "string";
}

async function resolvePackageFile(subpath: string): Promise<string | undefined> {
  const specifier = `parquet-wasm/${subpath}`;
  try {
    const { createRequire } = (await import(/* @vite-ignore */ NODE_MODULE)) as typeof import("node:module");
    const req = createRequire(import.meta.url);
    const { pathToFileURL } = (await import(/* @vite-ignore */ NODE_URL)) as typeof import("node:url");
    return pathToFileURL(req.resolve(specifier)).href;
  } catch {
    // fall through
  }
  try {
    const resolve = (import.meta as { resolve?: (s: string) => string }).resolve;
    if (typeof resolve === "function") return resolve(specifier);
  } catch {
    // fall through
  }
  return undefined;
}

async function bytesFromUrl(url: string): Promise<Uint8Array> {
  if (url.startsWith("file:")) {
    const { readFile } = (await import(/* @vite-ignore */ NODE_FS)) as typeof import("node:fs/promises");
    return new Uint8Array(await readFile(new URL(url)));
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`fetching ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function compiledModule(): Promise<WebAssembly.Module | undefined> {
  if (compiled) return compiled;
  let src: unknown = userSource;
  if (typeof src === "function") src = await (src as () => Promise<unknown>)();
  if (src instanceof WebAssembly.Module) return (compiled = src);
  if (src instanceof Uint8Array || src instanceof ArrayBuffer) return (compiled = await WebAssembly.compile(src as BufferSource));
  // (touching the global `Response` loads Node's fetch implementation: ~50 ms on a first read)
  if (src !== undefined && src !== null && typeof src === "object" && typeof Response !== "undefined" && src instanceof Response) return (compiled = await WebAssembly.compile(await src.arrayBuffer()));
  if (typeof src === "string" || src instanceof URL) return (compiled = await WebAssembly.compile(await bytesFromUrl(String(src)) as BufferSource));
  if (src === undefined && isServerRuntime()) {
    const url = await resolvePackageFile("esm/parquet_wasm_bg.wasm");
    if (url) return (compiled = await WebAssembly.compile(await bytesFromUrl(url) as BufferSource));
  }
  return undefined; // browser default: let the glue fetch its sibling .wasm
}

async function importGlue(gen: number): Promise<ParquetWasm> {
  if (gen === 0) return (await import("parquet-wasm/esm")) as ParquetWasm;
  // A fresh copy of the glue's state (parquet-wasm-glue.ts, generated from the same file): works
  // in browsers and workers too, where a bundled module cannot be imported again by URL.
  const { createParquetWasmGlue } = await import("./parquet-wasm-glue.js");
  return createParquetWasmGlue() as unknown as ParquetWasm;
}

async function instantiate(gen: number): Promise<ParquetWasm> {
  const glue = await importGlue(gen);
  const mod = await compiledModule();
  if (mod) glue.initSync({ module: mod });
  else if (gen === 0) await glue.default();
  else {
    // the browser default (the glue fetched its sibling .wasm) leaves no module to instantiate again
    throw new PaimonError(
      "UNSUPPORTED",
      "parquet-wasm cannot be instantiated again after a wasm panic: its module was fetched by parquet-wasm itself; pass it to init({ parquet }) (parquet-wasm/esm/parquet_wasm_bg.wasm as a WebAssembly.Module, its bytes or URL)",
    );
  }
  return glue;
}

/**
 * Starts loading the parquet module without waiting for it (e.g. when a scan is planned, so
 * compiling ~5 MB of wasm on V8's background threads overlaps reading the table's metadata).
 * A failure is left for the first real use to report.
 */
export function prefetchParquetWasm(): void {
  // Only where loading needs no guess: a browser without init({ parquet }) would fetch the glue's
  // default URL here, and a query that never reaches a data file should not fetch 5 MB.
  if (userSource === undefined && !isServerRuntime()) return;
  getParquetWasm().catch(() => undefined);
}
