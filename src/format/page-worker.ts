// The second core for Parquet pages (Node-specific: node:worker_threads, which Deno and Bun
// implement too). One worker thread per process, started on first use and unref()'d so it never
// keeps a process alive, compresses the zstd and snappy page bodies the flat encoder
// (parquet-encode.ts) hands it while the main thread encodes and compresses the other pages, and
// decompresses the zstd and snappy pages the flat decoder (parquet-flat.ts) hands it while the
// main thread decodes the pages before them (computing their CRC-32 too, with node:zlib's, when
// asked: the decoder checks it against the page header). For zstd it loads the same zstd package
// and (de)compresses as src/spec/zstd.ts does (ZSTD_compress_usingDict with an empty dictionary
// on one context; ZSTD_decompress_usingDict on one context); for snappy it instantiates the
// package's kernel module (the bytes src/kernel/wasm-source.ts reads) and calls the same
// `pr_snappy_compress` / `snappyHeapDecompressor` as src/kernel/snappy.ts: the same bytes
// whichever thread did which page. Where the kernel bytes cannot be read, snappy pages stay inline.
//
// Loaded through a computed specifier (page-worker-load.ts), so bundles for browsers and edge
// runtimes never follow it; where it cannot load or the worker cannot start, pages are
// (de)compressed inline. A worker that fails (an error, an exit) rejects every page it holds with a
// PaimonError: the file being encoded or the row group being read fails as a whole, nothing partial
// is written or returned; the next file starts a new worker. A page that does not decompress
// resolves to undefined, where the inline decompressor throws (the decoder then leaves the chunk to
// parquet-wasm, which reports the corruption).
//
// Balance: the worker adds the bytes it has (de)compressed (input bytes for compression, output
// bytes for decompression) to a shared counter, so the main thread (busy, its message queue
// unread) knows how far behind the worker is and keeps a page for itself when the worker already
// has enough to do.
//
// Buffers: each page goes over in a buffer of the main thread's (a copy: the page may be a view of
// the caller's Arrow data or of the encoder's scratch), transferred, and comes back transferred
// with the result, to carry a later page: pages cost a memcpy each, not an allocation. A zstd
// page to decompress comes back with its content in the same buffer, after the frame: the worker
// decompresses in its zstd heap (the package's raw module exports, one context, reused source and
// destination buffers; the package's decompressUsingDict where those are missing) and copies the
// content there; the decoder reads it in place and returns the buffer to the spares once the page
// is decoded (nothing it returns keeps a view of it). Plain ArrayBuffers, not shared memory: V8
// copies between shared and unshared memory byte by byte unless both sides are word-aligned alike
// (measured 2.5-3 GB/s against 20 GB/s), and page values start anywhere.

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { PaimonError } from "../error.js";
import { BufferPool } from "./buffer-pool.js";
import { readKernelWasmSync } from "../kernel/wasm-source.js";
import { snappyHeapDecompressor } from "../kernel/snappy-decompress.js";
import { loadZstd, PROBE_CONTENT, PROBE_FRAME } from "../spec/zstd.js";

/** The codecs the worker compresses. */
export type WorkerCodec = "zstd" | "snappy";

/** Pages smaller than this are compressed inline: a message round trip costs about what compressing them does. */
export const MIN_OFFLOAD_BYTES = 16 * 1024;
/** The worker's backlog (bytes posted and not yet compressed) beyond which the main thread compresses a page itself. */
const MAX_OUTSTANDING_BYTES = 1024 * 1024;
/** The same for decompression (output bytes): a few pages, so the decoder waits little for a page it handed over. */
const MAX_OUTSTANDING_DECOMPRESS_BYTES = 1024 * 1024;
/** Page buffers kept for reuse once the worker hands them back (the backlog limits keep a few in flight), */
const MAX_SPARE_BUFFERS = 8;
/** and the largest kept (larger ones are single big pages: not worth holding). */
const MAX_SPARE_BYTES = 2 * 1024 * 1024;
/** New page buffers are rounded up to this, so a buffer fits later pages of about the same size. */
const BUFFER_GRAIN = 64 * 1024;

/** The raw exports of the zstd package's emscripten module this code uses. */
interface ZstdHeap {
  HEAPU8: Uint8Array;
  _malloc(n: number): number;
  _free(p: number): void;
  _ZSTD_createDCtx(): number;
  _ZSTD_decompress_usingDict(dctx: number, dst: number, dstCapacity: number, src: number, srcSize: number, dict: number, dictSize: number): number;
  _ZSTD_isError(code: number): number;
}

/**
 * The emscripten module of the zstd package whose entry is `indexPath` (loaded by `load`, a
 * require: the package's own instance, initialised by whoever initialised the package), or
 * undefined when it does not have the exports used here (another version of the package).
 * Self-contained: the worker runs its source too.
 */
function zstdHeap(load: (id: string) => unknown, indexPath: string): ZstdHeap | undefined {
  if (!/index\.node\.js$/.test(indexPath)) return undefined;
  const M = (load(indexPath.replace(/index\.node\.js$/, "module.js")) as { Module?: ZstdHeap } | undefined)?.Module;
  const fns = ["_malloc", "_free", "_ZSTD_createDCtx", "_ZSTD_decompress_usingDict", "_ZSTD_isError"] as const;
  return M && fns.every((f) => typeof M[f] === "function") && M.HEAPU8 instanceof Uint8Array ? M : undefined;
}

/**
 * zstd frames decompressed in the heap of `M` on context `dctx`, from and into buffers of the
 * heap kept between calls: the content is a view of the heap, valid until the next call into the
 * module (from anywhere on this thread). Throws when the frame does not decompress into `size`
 * bytes. Self-contained: the worker runs its source too.
 */
function heapDecompressor(M: ZstdHeap, dctx: number): (data: Uint8Array, size: number) => Uint8Array {
  let src = 0;
  let srcSize = 0;
  let dst = 0;
  let dstSize = 0;
  return (data, size) => {
    if (srcSize < data.length || srcSize === 0) {
      if (srcSize > 0) M._free(src);
      srcSize = Math.max(data.length, 2 * srcSize, 1024);
      src = M._malloc(srcSize);
    }
    if (dstSize < size || dstSize === 0) {
      if (dstSize > 0) M._free(dst);
      dstSize = Math.max(size, 2 * dstSize, 1024);
      dst = M._malloc(dstSize);
    }
    if (src === 0 || dst === 0) {
      srcSize = dstSize = 0;
      throw new Error("zstd heap allocation failed");
    }
    M.HEAPU8.set(data, src); // read after the mallocs: a grown heap has a new view
    const n = M._ZSTD_decompress_usingDict(dctx, dst, size, src, data.length, 0, 0);
    if (M._ZSTD_isError(n)) throw new Error(`zstd error ${n}`);
    return M.HEAPU8.subarray(dst, dst + n);
  };
}

// Plain JavaScript that runs as a CommonJS script (Node) or a module (Deno, Bun): only dynamic
// imports. It answers "ready" once zstd (and the kernel module, when given) is initialised, saying
// whether snappy is there; pages posted before that may be dropped by some runtimes (Deno), so none are.
const WORKER_SOURCE = `
(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  const { createRequire } = await import("node:module");
  const done = new Int32Array(workerData.progress);
  let compress, decompress, heapDecompression = false;
  // decompresses the zstd frame data into out (size bytes): the content's length
  let into = (data, size, out) => {
    const content = decompress(data, size);
    if (content.length > out.length) throw new Error("zstd frame content exceeds the page");
    out.set(content);
    return content.length;
  };
  try {
    const imported = createRequire(workerData.zstd)(workerData.zstd);
    const mod = typeof imported.init === "function" ? imported : imported.default;
    await mod.init();
    const cctx = mod.createCCtx();
    if (!cctx) throw new Error("ZSTD_createCCtx failed");
    const noDict = new Uint8Array(0);
    compress = (data, level) => mod.compressUsingDict(cctx, data, noDict, level);
    const dctx = mod.createDCtx();
    if (!dctx) throw new Error("ZSTD_createDCtx failed");
    decompress = (data, size) => mod.decompressUsingDict(dctx, data, noDict, { defaultHeapSize: Math.max(size, 1) });
    // decompression in the package's heap (its emscripten module: reused buffers, no copy out)
    let heap;
    try {
      heap = (${zstdHeap.toString()})(createRequire(workerData.zstd), workerData.zstd);
    } catch {}
    if (heap) {
      heapDecompression = true;
      const view = (${heapDecompressor.toString()})(heap, dctx);
      into = (data, size, out) => {
        const content = view(data, size);
        out.set(content);
        return content.length;
      };
    }
  } catch (e) {
    parentPort.postMessage({ failed: String((e && e.message) || e) });
    return;
  }
  let snappy, snappyInto;
  if (workerData.kernel) {
    try {
      const { instance } = await WebAssembly.instantiate(workerData.kernel, {});
      const k = instance.exports;
      // decompression in the kernel's memory (reused buffers), the content copied into the page's buffer
      const view = (${snappyHeapDecompressor.toString()})(k);
      snappyInto = (data, size, out) => {
        const content = view(data, size);
        out.set(content);
        return content.length;
      };
      let input = 0, inputSize = 0, output = 0, outputSize = 0;
      snappy = (data) => {
        const capacity = k.pr_snappy_max_compressed_len(data.length);
        if (capacity === 0) throw new Error(data.length + " bytes are too many for one snappy block");
        if (inputSize < data.length) {
          if (inputSize > 0) k.pr_free(input, inputSize);
          inputSize = Math.max(data.length, inputSize * 2);
          input = k.pr_alloc(inputSize);
        }
        if (outputSize < capacity) {
          if (outputSize > 0) k.pr_free(output, outputSize);
          outputSize = Math.max(capacity, outputSize * 2);
          output = k.pr_alloc(outputSize);
        }
        new Uint8Array(k.memory.buffer, input, data.length).set(data);
        const n = k.pr_snappy_compress(input, data.length, output, capacity);
        if (n === 0) throw new Error("snappy compression failed");
        return new Uint8Array(k.memory.buffer, output, n).slice();
      };
    } catch {
      // snappy pages stay on the main thread
    }
  }
  // the CRC-32 of a page to decompress, where the runtime has zlib's (else the main thread computes it)
  let crc32;
  try {
    const zlib = await import("node:zlib");
    if (typeof zlib.crc32 === "function") crc32 = zlib.crc32;
  } catch {}
  parentPort.on("message", (m) => {
    if (m.out !== undefined) {
      // a page in a buffer of the main thread's: its frame at 0, its content (m.size bytes at most) at m.out
      let n, crc;
      try {
        const data = new Uint8Array(m.body, 0, m.length);
        if (m.crc && crc32) crc = crc32(data) >>> 0;
        n = (m.codec === "snappy" ? snappyInto : into)(data, m.size, new Uint8Array(m.body, m.out, m.size));
      } catch (e) {
        n = -1;
      } finally {
        Atomics.add(done, 0, m.work);
      }
      parentPort.postMessage({ id: m.id, n, crc, body: m.body }, [m.body]);
      return;
    }
    let out;
    try {
      const body = new Uint8Array(m.body, 0, m.length);
      out = m.size !== undefined ? decompress(body, m.size) : m.codec === "snappy" ? snappy(body) : compress(body, m.level);
    } catch (e) {
      parentPort.postMessage({ id: m.id, error: String((e && e.message) || e), input: m.body }, [m.body]);
      return;
    } finally {
      Atomics.add(done, 0, m.work);
    }
    const buffer = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength && out.buffer !== m.body ? out.buffer : out.slice().buffer;
    // the input buffer goes back too: the main thread copies its next pages into it
    parentPort.postMessage({ id: m.id, body: buffer, input: m.body }, [buffer, m.body]);
  });
  parentPort.postMessage({ ready: true, snappy: snappy !== undefined, heap: heapDecompression });
})();
`;

interface Pending {
  /** `buffer`: the pooled buffer a decompressed page came back in; `crc`: the CRC-32 of its data, when asked for and computed. */
  resolve(b: Uint8Array | undefined, buffer?: ArrayBuffer, crc?: number): void;
  reject(e: Error): void;
  /** A decompression (its failure is the page's, a plain Error), not a compression. */
  decompress: boolean;
  /** A page decompressed in a pooled buffer: where its content starts there. */
  contentAt?: number;
}

/**
 * A zstd page handed to the worker: its content, a view of a pooled buffer valid until `release()`
 * (undefined when the frame does not decompress).
 */
export interface HandedPage {
  content: Promise<Uint8Array | undefined>;
  /** Returns the page's buffer to the pool: call once the content is no longer read (also after a failure). */
  release(): void;
  /** Whether the worker has not decompressed the page yet (the caller had better do other work meanwhile); false when it was handed over `always`. */
  busy(): boolean;
  /** Once `content` has settled: the CRC-32 of the page data handed over, when asked for (`decompress`'s `crc`) and the worker could compute it; else undefined. */
  crc(): number | undefined;
}

/** A started (or starting) worker and the pages it holds. */
class PageWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  /** Buffers the worker has handed back with its results, for the next pages posted. */
  private readonly spare = new BufferPool(MAX_SPARE_BUFFERS, MAX_SPARE_BYTES, 1, BUFFER_GRAIN);
  private readonly done: Int32Array;
  private posted = 0;
  private nextId = 0;
  private dead = false;
  /** Resolves true once zstd is initialised there, false when the worker did not start. */
  readonly ready: Promise<boolean>;
  isReady = false;
  /** Whether the worker compresses snappy pages (known once ready). */
  snappy = false;
  /** Whether the worker decompresses in the zstd module's heap (`heapDecompressor`; known once ready). */
  heapDecompression = false;
  /** Pages handed to the worker so far. */
  offloaded = 0;

  /** Buffers handed back by the worker and kept for the next pages. */
  get spareBuffers(): number {
    return this.spare.size;
  }

  constructor(zstdPath: string, kernel: Uint8Array | undefined) {
    const progress = new SharedArrayBuffer(4);
    this.done = new Int32Array(progress);
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { zstd: zstdPath, kernel, progress } });
    let started!: (ok: boolean) => void;
    this.ready = new Promise((r) => (started = r));
    this.worker.on("message", (m: { ready?: boolean; snappy?: boolean; heap?: boolean; failed?: string; id?: number; body?: ArrayBuffer; input?: ArrayBuffer; error?: string; n?: number; crc?: number }) => {
      if (m.ready) {
        this.snappy = m.snappy === true;
        this.heapDecompression = m.heap === true;
        this.isReady = true;
        started(true);
      } else if (m.failed !== undefined) {
        this.fail(new PaimonError("IO_ERROR", `the page worker did not start: ${m.failed}`), true);
        started(false);
      } else {
        const p = this.pending.get(m.id!);
        this.pending.delete(m.id!);
        if (m.input) this.spare.give(m.input);
        if (this.pending.size === 0) this.worker.unref();
        if (m.n !== undefined) p?.resolve(m.n >= 0 ? new Uint8Array(m.body!, p.contentAt, m.n) : undefined, m.body, m.crc);
        else if (m.body) p?.resolve(new Uint8Array(m.body));
        else if (p?.decompress) p.resolve(undefined);
        else p?.reject(new PaimonError("IO_ERROR", `page compression failed in the worker: ${m.error}`));
      }
    });
    this.worker.on("error", (e) => {
      this.fail(new PaimonError("IO_ERROR", `the page worker failed: ${e?.message ?? e}`, { cause: e }), !this.isReady);
      started(false);
    });
    this.worker.on("exit", (code) => {
      this.fail(new PaimonError("IO_ERROR", `the page worker exited (code ${code})`), !this.isReady);
      started(false);
    });
    // after the listeners (adding a "message" listener refs the worker again in Node)
    this.worker.unref();
  }

  /** Waits for the worker to start (keeping the process alive meanwhile): whether it did. */
  async started(): Promise<boolean> {
    if (this.isReady || this.dead) return this.isReady && !this.dead;
    this.worker.ref();
    try {
      return await this.ready;
    } finally {
      if (this.pending.size === 0) this.worker.unref();
    }
  }

  /**
   * `body` compressed by `codec` (zstd at `level`) in the worker (a copy of it is transferred), or
   * undefined when the worker is not ready, cannot do that codec or has enough to do: a backlog
   * past MAX_OUTSTANDING_BYTES, or (near the end of a file) more than the `remaining` bytes the
   * caller still has to encode after this page, which the worker would still be compressing when
   * the caller is done and waits.
   */
  offload(body: Uint8Array, codec: WorkerCodec, level: number, always: boolean, remaining = Infinity): Promise<Uint8Array> | undefined {
    if (codec === "snappy" && !this.snappy) return undefined;
    if (!always) {
      const backlog = this.backlog();
      if (body.length < MIN_OFFLOAD_BYTES || backlog > MAX_OUTSTANDING_BYTES || backlog + body.length > remaining) return undefined;
    }
    return this.post({ codec, level }, body, body.byteLength, false) as Promise<Uint8Array> | undefined;
  }

  /**
   * The content (`size` bytes at most; snappy: exactly) of the zstd frame or raw snappy block
   * `body`, decompressed in the worker (`body` is copied into a spare buffer, transferred there and
   * back with the content), or undefined when the worker is not ready, cannot do that codec or
   * (unless `always`) has enough to do. With `crc`, the worker also computes the CRC-32 of `body`.
   */
  decompress(body: Uint8Array, size: number, codec: WorkerCodec, always: boolean, crc = false): HandedPage | undefined {
    if (!this.isReady || this.dead || (codec === "snappy" && !this.snappy) || (!always && this.backlog() > MAX_OUTSTANDING_DECOMPRESS_BYTES)) return undefined;
    const contentAt = (body.length + 7) & ~7;
    const buffer = this.spare.take(contentAt + size);
    new Uint8Array(buffer, 0, body.length).set(body);
    let back: ArrayBuffer | undefined;
    let sum: number | undefined;
    const content = this.send({ codec, length: body.length, out: contentAt, size, crc }, buffer, size, true, contentAt, (b, c) => {
      back = b;
      sum = c;
    });
    // the worker takes pages in order and counts each one's work when done: this page is done once
    // the count reaches the work posted up to it (a wrapping 32-bit count)
    const posted = this.posted;
    // release() returns the buffer once: a second call must not pool it twice (two later pages would share it)
    const release = () => {
      const b = back;
      back = undefined;
      if (b) this.spare.give(b);
    };
    return { content, release, busy: () => !always && ((Atomics.load(this.done, 0) - posted) | 0) < 0, crc: () => sum };
  }

  /** Bytes (de)compression work posted and not yet done by the worker. */
  backlog(): number {
    return (this.posted - Atomics.load(this.done, 0)) | 0;
  }

  private post(m: { codec?: WorkerCodec; level?: number }, body: Uint8Array, work: number, decompress: boolean): Promise<Uint8Array | undefined> | undefined {
    if (!this.isReady || this.dead) return undefined;
    // a copy of its own (Buffer#slice would be a view of a shared, maybe pooled buffer), in a spare buffer when one fits
    const buffer = this.spare.take(body.byteLength);
    new Uint8Array(buffer, 0, body.byteLength).set(body);
    return this.send({ ...m, length: body.byteLength }, buffer, work, decompress, undefined, undefined);
  }

  /** Posts a page (`body` transferred), the promise of its result; `back` gets the buffer a decompressed page comes back in. */
  private send(m: object, body: ArrayBuffer, work: number, decompress: boolean, contentAt: number | undefined, back: ((b: ArrayBuffer, crc: number | undefined) => void) | undefined): Promise<Uint8Array | undefined> {
    const id = this.nextId++;
    // the worker keeps the process alive while it holds pages (an unref'd one would let Node exit
    // with a file half written and its promise never settled)
    if (this.pending.size === 0) this.worker.ref();
    const result = new Promise<Uint8Array | undefined>((resolve, reject) =>
      this.pending.set(id, {
        resolve: (b, buffer, crc) => {
          if (buffer) back?.(buffer, crc);
          resolve(b);
        },
        reject,
        decompress,
        contentAt,
      }),
    );
    // a file that fails on an earlier page stops awaiting the later ones: their rejection is not unhandled
    result.catch(() => undefined);
    this.posted = (this.posted + work) | 0;
    this.offloaded++;
    this.worker.postMessage({ id, ...m, work, body }, [body]);
    return result;
  }

  /** Ends the worker (its pages fail with a PaimonError). */
  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private fail(error: PaimonError, permanently: boolean): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.unref();
    if (current === this) current = permanently ? null : undefined;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}

let heapView: Promise<((data: Uint8Array, size: number) => Uint8Array) | null> | undefined;

/**
 * zstd decompression on this thread into the zstd package's heap (`heapDecompressor`: the content
 * is a view of the heap, valid until the next call into the package), or null where the package's
 * module is not reachable so (the flat decoder then uses loadZstd()'s decompress, a copy per page).
 * Checked on spec/zstd.ts's probe frame (the one loadZstd() checks the package with). The flat
 * decoder's prefetch starts it when a table opens, so loading this module and the check overlap
 * the table's metadata reads.
 */
export function zstdHeapView(): Promise<((data: Uint8Array, size: number) => Uint8Array) | null> {
  heapView ??= (async () => {
    try {
      const codec = await loadZstd();
      const index = createRequire(import.meta.url).resolve("@bokuweb/zstd-wasm");
      const M = codec ? zstdHeap(createRequire(index), index) : undefined;
      const dctx = M ? M._ZSTD_createDCtx() : 0;
      if (!codec || !M || dctx === 0) return null;
      const view = heapDecompressor(M, dctx);
      const back = view(PROBE_FRAME, PROBE_CONTENT.length);
      return back.length === PROBE_CONTENT.length && back.every((b, i) => b === PROBE_CONTENT[i]) ? view : null;
    } catch {
      return null;
    }
  })();
  return heapView;
}

/** undefined: not started yet (or the last one died after starting); null: cannot start here. */
let current: PageWorker | null | undefined;

/** The process's page worker, started now if it is not (not waited for); null where none can start. */
export function pageWorker(): PageWorker | null {
  if (current === undefined) {
    try {
      let kernel: Uint8Array | undefined;
      try {
        kernel = readKernelWasmSync();
      } catch {
        // unreadable: snappy pages stay inline
      }
      current = new PageWorker(createRequire(import.meta.url).resolve("@bokuweb/zstd-wasm"), kernel);
    } catch {
      current = null;
    }
  }
  return current;
}

export type { PageWorker };
