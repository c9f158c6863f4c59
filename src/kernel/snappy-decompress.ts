// Raw snappy decompression (Parquet's SNAPPY pages) by the kernel module (wasm/src/codec.rs, the
// `snap` crate), for the flat decoder (parquet-flat.ts), the INT96 range check (parquet-pages.ts)
// and the page worker (page-worker.ts). Read side: kept apart from snappy.ts (compression), which
// query bundles do not need.
import { kernelExports } from "./wasm.js";

/** The kernel exports snappy decompression uses (the page worker's own instance has them too). */
export interface SnappyDecompressExports {
  readonly memory: WebAssembly.Memory;
  pr_alloc(size: number): number;
  pr_free(ptr: number, size: number): void;
  pr_snappy_decompress(input: number, len: number, out: number, capacity: number): number;
}

/**
 * Raw snappy blocks decompressed by the kernel `k` in its own memory, from and into two buffers
 * there kept from call to call (no fresh buffer per page): the content is a view of kernel memory,
 * valid until the next call of this decompressor, and only while the memory does not grow (a
 * kernel call that allocates may detach it: take its `byteOffset` first). Throws a plain Error
 * when the block is malformed or truncated or its content is not `size` bytes. Self-contained
 * (no imports, no helpers): the page worker runs its source too.
 */
export function snappyHeapDecompressor(k: SnappyDecompressExports): (block: Uint8Array, size: number) => Uint8Array {
  let src = 0;
  let srcSize = 0;
  let dst = 0;
  let dstSize = 0;
  return (block, size) => {
    if (srcSize < block.length || srcSize === 0) {
      if (srcSize > 0) k.pr_free(src, srcSize);
      srcSize = Math.max(block.length, 2 * srcSize, 1024);
      src = k.pr_alloc(srcSize);
      if (src === 0) srcSize = 0;
    }
    if (dstSize < size || dstSize === 0) {
      if (dstSize > 0) k.pr_free(dst, dstSize);
      dstSize = Math.max(size, 2 * dstSize, 1024);
      dst = k.pr_alloc(dstSize);
      if (dst === 0) dstSize = 0;
    }
    if (srcSize === 0 || dstSize === 0) throw new Error("kernel memory exhausted for a snappy page");
    new Uint8Array(k.memory.buffer, src, block.length).set(block); // a view made after the allocations: the memory may have grown
    const n = k.pr_snappy_decompress(src, block.length, dst, size);
    if (n !== size) throw new Error(n < 0 ? "malformed snappy block" : `snappy block of ${n} bytes, the page says ${size}`);
    return new Uint8Array(k.memory.buffer, dst, n);
  };
}

let view: ((block: Uint8Array, size: number) => Uint8Array) | undefined;

/** `snappyHeapDecompressor` over the process's kernel module (`kernelExports()`: loaded, or loadable synchronously here), made once. */
export function snappyView(): (block: Uint8Array, size: number) => Uint8Array {
  return (view ??= snappyHeapDecompressor(kernelExports() as unknown as SnappyDecompressExports));
}
