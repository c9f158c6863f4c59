// One explicit initialisation for hosts that cannot compile wasm from bytes at request time or
// fetch it by URL (Cloudflare Workers / workerd, strict CSP pages): the caller hands over the two
// wasm modules it imported statically. Everywhere else it is optional (both load lazily).
import { PaimonError } from "./error.js";
import { getParquetWasm, setParquetWasmSource } from "./format/wasm.js";
import { initKernels } from "./kernel/wasm.js";

/** The wasm modules {@link init} takes, each optional. */
export interface InitOptions {
  /**
   * paimon-rt's kernel module, `paimon-rt/kernels.wasm`: a compiled `WebAssembly.Module` (a
   * Worker's `import kernels from "paimon-rt/kernels.wasm"`), its bytes, or its URL (a bundler's
   * asset URL, e.g. esbuild's `--loader:.wasm=file`). Without it Node, Deno and Bun read the file
   * from the installed package and browsers fetch it from the URL their bundler emitted; hosts
   * that forbid compiling wasm from fetched bytes need the module.
   */
  kernels?: WebAssembly.Module | BufferSource | URL | string;
  /**
   * parquet-wasm's module, `parquet-wasm/esm/parquet_wasm_bg.wasm`: a `WebAssembly.Module`, its
   * bytes or its URL. Without it Node, Deno and Bun read it from the installed package and
   * browsers fetch it next to parquet-wasm's JS, which bundlers and workers may not allow.
   */
  parquet?: WebAssembly.Module | BufferSource | URL | string;
}

/**
 * Loads the wasm paimon-rt runs on, now rather than at the first read or write, from the modules
 * given (or, for one not given, the default way). Rejects with a PaimonError naming the module
 * that failed: `UNSUPPORTED` when this host cannot load it without help (pass it here),
 * `INVALID_ARGUMENT` when the given module is not the right one. A failed call leaves nothing
 * half-initialised: call `init` again with the module. Calling it again after success is a no-op
 * for the kernels; a new `parquet` module replaces the parquet instance.
 */
export async function init(options: InitOptions = {}): Promise<void> {
  if (typeof options !== "object" || options === null) {
    throw new PaimonError("INVALID_ARGUMENT", "init(options): options must be an object like { kernels?, parquet? }");
  }
  await initKernels(options.kernels === undefined ? undefined : asModuleOrBytes(options.kernels, "kernels"));
  if (options.parquet !== undefined) setParquetWasmSource(asModuleOrBytes(options.parquet, "parquet"));
  try {
    await getParquetWasm();
  } catch (e) {
    if (options.parquet !== undefined && e instanceof PaimonError && e.code === "UNSUPPORTED") {
      throw new PaimonError("INVALID_ARGUMENT", `the parquet module given to init({ parquet }) could not be instantiated: ${(e.cause as Error)?.message ?? e.message}`, { cause: e });
    }
    throw e;
  }
}

function asModuleOrBytes(value: unknown, name: string): WebAssembly.Module | Uint8Array | URL | string {
  if (value instanceof WebAssembly.Module || value instanceof Uint8Array || value instanceof URL || typeof value === "string") return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer as ArrayBuffer, value.byteOffset, value.byteLength);
  throw new PaimonError("INVALID_ARGUMENT", `init({ ${name} }): expected a WebAssembly.Module, an ArrayBuffer, a typed array or a URL, got ${value === null ? "null" : typeof value}`);
}
