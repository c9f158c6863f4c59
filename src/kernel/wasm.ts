// Loader and memory plumbing for the kernel module built from wasm/ (Rust, plain C ABI).
// The module is a .wasm file next to the JS (wasm-source.ts says how its bytes arrive); it is
// instantiated once, lazily, on first use (or by initKernels / init).
import { PaimonError } from "../error.js";
import { KERNEL_SOURCE_HASH } from "./wasm-module.js";
import { fetchKernelWasm, kernelWasmUrl, readKernelWasmSync, type KernelSource } from "./wasm-source.js";

/** The raw exports of the kernel module. Pointers and sizes are byte offsets into `memory`. */
export interface KernelExports {
  readonly memory: WebAssembly.Memory;
  pr_alloc(size: number): number;
  pr_free(ptr: number, size: number): void;
  pr_sort_permutation(columns: number, columnCount: number, rows: number, sequence: number, out: number): void;
  pr_merge_deduplicate(
    columns: number,
    columnCount: number,
    bounds: number,
    runCount: number,
    sequence: number,
    rowKinds: number,
    dropDeletes: number,
    outRun: number,
    outRow: number,
  ): number;
  pr_fingerprint(columns: number, columnCount: number, rows: number, seed: bigint, out: number): void;
  pr_bucket(columns: number, columnCount: number, rows: number, buckets: number, out: number): void;
  pr_xxh64_bytes(offsets: number, bytes: number, rows: number, seed: bigint, out: number): void;
  pr_wang_hash64(values: number, rows: number, mul: bigint, div: bigint, out: number): void;
  pr_plain_byte_arrays(page: number, len: number, rows: number, valid: number, bit: number, base: number, offsets: number): number;
  // Roaring bitmaps (wasm/src/bitmap.rs). Handles are non-zero; deserialize returns 0 on malformed input.
  pr_bitmap32_new(): number;
  pr_bitmap32_free(handle: number): void;
  pr_bitmap32_clone(handle: number): number;
  pr_bitmap32_add(handle: number, value: number): number;
  pr_bitmap32_remove(handle: number, value: number): number;
  pr_bitmap32_contains(handle: number, value: number): number;
  pr_bitmap32_add_many(handle: number, values: number, count: number): void;
  pr_bitmap32_remove_many(handle: number, values: number, count: number): void;
  pr_bitmap32_add_range(handle: number, min: number, maxInclusive: number): void;
  pr_bitmap32_contains_many(handle: number, values: number, count: number, out: number): void;
  pr_bitmap32_cardinality(handle: number): number;
  pr_bitmap32_min(handle: number): number;
  pr_bitmap32_max(handle: number): number;
  pr_bitmap32_copy_from(handle: number, from: number, out: number, capacity: number): number;
  pr_bitmap32_or_inplace(handle: number, other: number): void;
  pr_bitmap32_and_not_inplace(handle: number, other: number): void;
  pr_bitmap32_and_inplace(handle: number, other: number): void;
  pr_bitmap32_or(a: number, b: number): number;
  pr_bitmap32_and_not(a: number, b: number): number;
  pr_bitmap32_and(a: number, b: number): number;
  pr_bitmap32_run_optimize(handle: number, croaringTies: number): number;
  pr_bitmap32_serialize_size(handle: number): number;
  pr_bitmap32_serialize(handle: number, out: number): number;
  pr_bitmap32_deserialize(bytes: number, length: number, consumedOut: number): number;
  pr_bitmap64_new(): number;
  pr_bitmap64_free(handle: number): void;
  pr_bitmap64_clone(handle: number): number;
  pr_bitmap64_add(handle: number, value: bigint): number;
  pr_bitmap64_remove(handle: number, value: bigint): number;
  pr_bitmap64_contains(handle: number, value: bigint): number;
  pr_bitmap64_add_many(handle: number, values: number, count: number, signed: number): number;
  pr_bitmap64_contains_many(handle: number, values: number, count: number, out: number): void;
  pr_bitmap64_cardinality(handle: number): number;
  pr_bitmap64_extreme(handle: number, which: number, out: number): number;
  pr_bitmap64_copy_from(handle: number, from: bigint, out: number, capacity: number): number;
  pr_bitmap64_or_inplace(handle: number, other: number): void;
  pr_bitmap64_and_not_inplace(handle: number, other: number): void;
  pr_bitmap64_and_inplace(handle: number, other: number): void;
  pr_bitmap64_run_optimize(handle: number, croaringTies: number): number;
  pr_bitmap64_serialize_size(handle: number, iceberg: number): number;
  pr_bitmap64_serialize(handle: number, iceberg: number, out: number): number;
  pr_bitmap64_deserialize(bytes: number, length: number, consumedOut: number): number;
  [name: string]: unknown;
}

let kernel: KernelExports | undefined;

/**
 * The package's kernel module bytes (`paimon-rt/kernels.wasm`), read synchronously from the
 * installed package in Node, Deno and Bun. Elsewhere (browsers, workers) it throws UNSUPPORTED:
 * fetch or import `paimon-rt/kernels.wasm` instead.
 */
export function kernelWasmBytes(): Uint8Array<ArrayBuffer> {
  const bytes = readKernelWasmSync();
  if (!bytes) throw notLoadedError();
  return bytes;
}

function notLoadedError(): PaimonError {
  return new PaimonError(
    "UNSUPPORTED",
    "the kernels module (paimon-rt's kernel wasm) is not loaded and this runtime cannot read it synchronously: await init() first (it fetches paimon-rt/kernels.wasm next to the JS), or pass the module to init({ kernels })",
  );
}

/** SHA-256 of the crate sources the module was built from (custom section). */
export function kernelSourceHash(module: WebAssembly.Module): string {
  const sections = WebAssembly.Module.customSections(module, SOURCE_HASH_SECTION);
  if (sections.length !== 1) throw new PaimonError("CORRUPT_FILE", "kernel module has no source hash section");
  return new TextDecoder().decode(sections[0]);
}

function instantiate(module: WebAssembly.Module): KernelExports {
  const instance = new WebAssembly.Instance(module, {});
  return instance.exports as unknown as KernelExports;
}

/**
 * Instantiates the kernel module ahead of first use. Optional everywhere except
 * where synchronous compilation is refused (a browser main thread, or an edge
 * runtime that only accepts statically imported modules: pass that module, the package's
 * `paimon-rt/kernels.wasm`, here or to `init({ kernels })`). A failed attempt leaves nothing
 * behind: a later call (or first use) tries again.
 */
export function initKernels(source?: KernelSource): Promise<void> {
  if (source !== undefined) return loadKernels(source);
  if (kernel) return Promise.resolve();
  // concurrent calls (a prefetch at table open, then the read) share one compile
  loadingDefault ??= loadKernels(undefined).finally(() => {
    loadingDefault = undefined;
  });
  return loadingDefault;
}

/** The package's own module being loaded by `initKernels()`, while it is. */
let loadingDefault: Promise<void> | undefined;

/**
 * Starts loading the package's kernel module without waiting, where its bytes are a local file
 * (Node, Deno, Bun), so compiling it (off the main thread) overlaps what comes before its first
 * use: a table being opened calls it. Browsers and edge hosts load it when a read starts (or by
 * init). A failure is left to that use, which reports it.
 */
export function prefetchKernels(): void {
  if (kernel || loadingDefault) return;
  try {
    if (kernelWasmUrl().protocol !== "file:") return;
  } catch {
    return;
  }
  initKernels().catch(() => undefined);
}

async function loadKernels(source: KernelSource | undefined): Promise<void> {
  if (kernel && source === undefined) return;
  let module: WebAssembly.Module;
  try {
    module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(await kernelBytes(source as BufferSource | URL | string | undefined));
  } catch (e) {
    if (e instanceof PaimonError) throw e;
    throw kernelLoadError(e, source !== undefined);
  }
  if (source !== undefined) checkSuppliedKernel(module); // also when already initialised: a wrong module is a bug
  if (kernel) return;
  try {
    kernel = instantiate(module);
  } catch (e) {
    throw kernelLoadError(e, source !== undefined);
  }
}

/** The bytes to compile: the given ones, fetched from the given URL, or the package's own file. */
async function kernelBytes(source: BufferSource | URL | string | undefined): Promise<BufferSource> {
  if (source === undefined) return readKernelWasmSync() ?? (await fetchKernelWasm(kernelWasmUrl()));
  if (typeof source === "string" || source instanceof URL) return fetchKernelWasm(source);
  return source as BufferSource;
}

/** A module handed to init must be this build's kernel: the JS glue and the exports go together. */
function checkSuppliedKernel(module: WebAssembly.Module): void {
  const sections = WebAssembly.Module.customSections(module, SOURCE_HASH_SECTION);
  const supplied = sections.length === 1 ? new TextDecoder().decode(sections[0]) : null;
  const expected = KERNEL_SOURCE_HASH;
  if (supplied !== expected) {
    throw new PaimonError(
      "INVALID_ARGUMENT",
      `the kernels module given to init({ kernels }) is not this paimon-rt's kernel wasm (paimon-rt/kernels.wasm): its source hash is ${supplied ?? "missing"}, expected ${expected}`,
    );
  }
}

const SOURCE_HASH_SECTION = "paimon_rt_source_hash";

function kernelLoadError(e: unknown, supplied: boolean): PaimonError {
  const detail = (e as Error)?.message ?? String(e);
  return supplied
    ? new PaimonError("INVALID_ARGUMENT", `the kernels module given to init({ kernels }) is not paimon-rt's kernel wasm (paimon-rt/kernels.wasm): ${detail}`, { cause: e })
    : new PaimonError(
        "UNSUPPORTED",
        `the kernels module (paimon-rt's kernel wasm) could not be compiled in this runtime: ${detail}; pass the module to init({ kernels }) (import paimon-rt/kernels.wasm as a WebAssembly.Module)`,
        { cause: e },
      );
}

/**
 * The kernel exports. On first use in Node, Deno and Bun the package's module is read and
 * instantiated synchronously; elsewhere it must have been loaded by init() / initKernels() (reads
 * do that themselves) and this throws UNSUPPORTED saying so.
 */
export function kernelExports(): KernelExports {
  if (kernel) return kernel;
  const bytes = readKernelWasmSync();
  if (!bytes) throw notLoadedError();
  try {
    kernel = instantiate(new WebAssembly.Module(bytes));
  } catch (e) {
    throw kernelLoadError(e, false);
  }
  return kernel;
}

/** A frame over the kernel module if it is loaded already (nothing is loaded or awaited), else undefined. */
export function loadedKernelFrame(): KernelFrame | undefined {
  return kernel && new KernelFrame();
}

/**
 * A kernel call's buffers: reserve sizes first, then `open()` lays them out in one
 * reusable scratch block of wasm memory. The block is kept between calls (grown
 * when a call needs more) so hot loops do not allocate.
 */
export class KernelFrame {
  private size = 0;
  private base = 0;
  readonly k: KernelExports;

  constructor() {
    this.k = kernelExports();
  }

  /** Reserves `bytes` (16-byte aligned) and returns their offset within the frame. */
  reserve(bytes: number): number {
    const offset = this.size;
    this.size += (bytes + 15) & ~15;
    return offset;
  }

  /** Allocates the frame; offsets become pointers via `ptr`. */
  open(): this {
    this.base = scratch(this.k, this.size);
    return this;
  }

  ptr(offset: number): number {
    return this.base + offset;
  }

  /** Copies `src` to the frame at `offset`. Views are made fresh: memory may have grown. */
  write(offset: number, src: ArrayBufferView): void {
    const bytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
    new Uint8Array(this.k.memory.buffer, this.base + offset, bytes.byteLength).set(bytes);
  }

  u8(offset: number, length: number): Uint8Array {
    return new Uint8Array(this.k.memory.buffer, this.base + offset, length);
  }

  u32(offset: number, length: number): Uint32Array {
    return new Uint32Array(this.k.memory.buffer, this.base + offset, length);
  }

  i32(offset: number, length: number): Int32Array {
    return new Int32Array(this.k.memory.buffer, this.base + offset, length);
  }

  u64(offset: number, length: number): BigUint64Array {
    return new BigUint64Array(this.k.memory.buffer, this.base + offset, length);
  }
}

let scratchPtr = 0;
let scratchSize = 0;

function scratch(k: KernelExports, bytes: number): number {
  if (bytes <= scratchSize) return scratchPtr;
  if (scratchPtr !== 0) k.pr_free(scratchPtr, scratchSize);
  const size = Math.max(bytes, Math.floor(scratchSize * 1.5), 1 << 16);
  const ptr = k.pr_alloc(size);
  if (ptr === 0) {
    scratchPtr = 0;
    scratchSize = 0;
    throw new PaimonError("IO_ERROR", `kernel memory exhausted allocating ${size} bytes`);
  }
  scratchPtr = ptr;
  scratchSize = size;
  return ptr;
}
