// Raw snappy compression (Parquet's SNAPPY pages) by the kernel module (wasm/src/codec.rs, the
// `snap` crate). Write side only: imported by the Parquet encoder (decompression, on the read
// side: snappy-decompress.ts).
import { PaimonError } from "../error.js";
import { KernelFrame } from "./wasm.js";

interface SnappyExports {
  pr_snappy_max_compressed_len(len: number): number;
  pr_snappy_compress(input: number, len: number, out: number, capacity: number): number;
}

/** `bytes` as one raw snappy block (a new array). */
export function snappyCompress(bytes: Uint8Array): Uint8Array {
  const frame = new KernelFrame();
  const k = frame.k as unknown as SnappyExports;
  const capacity = k.pr_snappy_max_compressed_len(bytes.length);
  if (capacity === 0) throw new PaimonError("INVALID_ARGUMENT", `${bytes.length} bytes are too many for one snappy block`);
  const input = frame.reserve(bytes.length);
  const out = frame.reserve(capacity);
  frame.open();
  frame.write(input, bytes);
  const n = k.pr_snappy_compress(frame.ptr(input), bytes.length, frame.ptr(out), capacity);
  if (n === 0) throw new PaimonError("IO_ERROR", "snappy compression failed");
  return frame.u8(out, n).slice();
}
