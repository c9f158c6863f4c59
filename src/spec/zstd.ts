// The one accessor of the zstd wasm module (@bokuweb/zstd-wasm, emscripten): the manifest codec
// (avro.ts), the Parquet encoder and flat decoder, and the real-time spill files all take it from
// here. The module must be initialised exactly once per process: its init() instantiates a new
// wasm instance and swaps the module's memory views to it, while the exports bound lazily on
// their first call keep the old instance, so after a second init() every frame of every user is
// silently wrong. So this module calls init() only when the package is not initialised yet (a
// call that needs the instance fails before init, binding nothing) and shares that one init()
// through globalThis with every other copy of itself (two builds or versions of paimon-rt in one
// process), keyed by the package's init function (one per loaded copy of the package).
//
// Compression reuses one compression context (ZSTD_compress_usingDict with an empty dictionary,
// which is ZSTD_compressCCtx): ZSTD_compress would create and free a context (and zero its
// tables) on every call, i.e. on every Parquet page. The frames are the same bytes either way.
// Decompression likewise keeps one context (ZSTD_decompress makes and frees one per call).
//
// Decoders measured on the 200 pages of a 1 M-row full read (37.5 MiB out, CPU time): this module
// 330-410 MiB/s with or without the kept context, zstddec 0.3.4 the same in isolation and slower
// inside the full read (208 vs 192 ms), slower to load in Node and 29 KB gzip more for browser
// bundles; fzstd (pure JS) 32 MiB/s. So one package serves both directions.

/** zstd through the wasm module. */
export interface ZstdCodec {
  /** One zstd frame of `data` at `level`. */
  compress(data: Uint8Array, level: number): Uint8Array;
  /** The content of the zstd frame `data`, whose content is `size` bytes when its header does not say. */
  decompress(data: Uint8Array, size: number): Uint8Array;
}

interface ZstdWasmModule {
  init(): Promise<void>;
  compress(data: Uint8Array, level?: number): Uint8Array;
  decompress(data: Uint8Array, opts?: { defaultHeapSize: number }): Uint8Array;
  createCCtx?(): number;
  compressUsingDict?(cctx: number, data: Uint8Array, dict: Uint8Array, level?: number): Uint8Array;
  createDCtx?(): number;
  decompressUsingDict?(dctx: number, data: Uint8Array, dict: Uint8Array, opts?: { defaultHeapSize: number }): Uint8Array;
}

let codec: Promise<ZstdCodec | null> | undefined;

/** The one init() per loaded copy of the package, shared by every copy of this module in the process. */
const INITS = Symbol.for("paimon-rt.zstd-wasm.init");

/** Initialises `mod` unless it is initialised or being initialised (by a copy of this module). */
function initOnce(mod: ZstdWasmModule): Promise<void> {
  const g = globalThis as typeof globalThis & { [INITS]?: WeakMap<object, Promise<void>> };
  const inits = (g[INITS] ??= new WeakMap<object, Promise<void>>());
  let ready = inits.get(mod.init);
  if (ready === undefined) {
    ready = initialised(mod) ? Promise.resolve() : mod.init();
    inits.set(mod.init, ready);
  }
  return ready;
}

/** Whether another user of the package already initialised it (before init, compress throws without binding an export). */
function initialised(mod: ZstdWasmModule): boolean {
  try {
    mod.compress(new Uint8Array(1), 1);
    return true;
  } catch {
    return false;
  }
}

/**
 * The package required synchronously where the host has node:module (Node, Deno, Bun), else
 * undefined (it is imported). A CommonJS package, it costs import() about twice the main-thread
 * time (measured 12-18 ms vs 8 ms in a fresh Node 20 process: import() runs Node's export
 * detection over each of its files), on a process's first read. Either way it is the same
 * module instance (Node's CommonJS cache), so the one-init rule above holds.
 */
function requireZstd(): ZstdWasmModule | undefined {
  try {
    const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const nodeModule = host?.getBuiltinModule?.("node:module") as typeof import("node:module") | undefined;
    return nodeModule?.createRequire(import.meta.url)("@bokuweb/zstd-wasm") as ZstdWasmModule | undefined;
  } catch {
    return undefined; // e.g. a bundle without node_modules beside it: imported instead
  }
}

/**
 * A zstd frame of one raw block holding PROBE_CONTENT (magic, single-segment header with the
 * content size, block header): decompressing it checks that a module loaded (here and in the page
 * worker's heap decompressor) without compressing anything (a compression context costs a
 * process's first read several ms of cold wasm).
 */
export const PROBE_CONTENT: readonly number[] = [0x70, 0x61, 0x69, 0x6d, 0x6f, 0x6e];
export const PROBE_FRAME = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x20, PROBE_CONTENT.length, (PROBE_CONTENT.length << 3) | 1, 0, 0, ...PROBE_CONTENT]);

/** What loadZstd() resolved to, once it has: the codec, or null where it cannot load. */
let loaded: ZstdCodec | null | undefined;

/** The zstd codec if loadZstd() has finished loading it (synchronous callers: Avro blocks), else undefined or null. */
export function loadedZstd(): ZstdCodec | null | undefined {
  return loaded;
}

/**
 * The content size the header of the zstd frame `data` declares, or undefined where it declares
 * none (frames written by streaming compressors, e.g. Java's) or is no frame header.
 */
export function declaredContentSize(data: Uint8Array): number | undefined {
  if (data.length < 6 || data[0] !== 0x28 || data[1] !== 0xb5 || data[2] !== 0x2f || data[3] !== 0xfd) return undefined;
  const descriptor = data[4]!;
  const single = (descriptor >> 5) & 1;
  const bytes = descriptor >> 6 === 0 ? single : 1 << (descriptor >> 6); // Frame_Content_Size field: 0, 1, 2, 4 or 8 bytes
  const at = 5 + (single ^ 1) + [0, 1, 2, 4][descriptor & 3]!; // after the window and dictionary id fields
  if (bytes === 0 || at + bytes > data.length) return undefined;
  let size = 0;
  for (let i = bytes - 1; i >= 0; i--) size = size * 256 + data[at + i]!;
  size += bytes === 2 ? 256 : 0;
  return size <= 0x7fffffff ? size : undefined;
}

/** The zstd codec, loaded once; null where the module cannot load (callers fall back: stored blocks, parquet-wasm, fzstd). */
export function loadZstd(): Promise<ZstdCodec | null> {
  codec ??= (async (): Promise<ZstdCodec | null> => {
    try {
      const imported: ZstdWasmModule & { default?: ZstdWasmModule } = requireZstd() ?? ((await import("@bokuweb/zstd-wasm")) as unknown as ZstdWasmModule & { default?: ZstdWasmModule });
      const mod = typeof imported.init === "function" ? imported : imported.default!;
      await initOnce(mod);
      const noDict = new Uint8Array(0);
      let decompress = (data: Uint8Array, size: number): Uint8Array => mod.decompress(data, { defaultHeapSize: Math.max(size, 1) });
      if (typeof mod.createDCtx === "function" && typeof mod.decompressUsingDict === "function") {
        const dctx = mod.createDCtx();
        const withCtx = mod.decompressUsingDict.bind(mod);
        if (dctx !== 0) decompress = (data, size) => withCtx(dctx, data, noDict, { defaultHeapSize: Math.max(size, 1) });
      }
      // the compression context on first use: creating it and compressing a first frame cost a
      // process's first read ~5 ms of cold wasm for a context that reads never use
      let cctx: number | undefined;
      const compress = (data: Uint8Array, level: number): Uint8Array => {
        cctx ??= typeof mod.createCCtx === "function" && typeof mod.compressUsingDict === "function" ? mod.createCCtx() : 0;
        return cctx !== 0 ? mod.compressUsingDict!(cctx, data, noDict, level) : mod.compress(data, level);
      };
      // throws when the module did not initialise
      if (decompress(PROBE_FRAME, PROBE_CONTENT.length).join() !== PROBE_CONTENT.join()) throw new Error("zstd-wasm decompressed the probe frame wrongly");
      return { compress, decompress };
    } catch {
      return null;
    }
  })().then((c) => (loaded = c));
  return codec;
}
