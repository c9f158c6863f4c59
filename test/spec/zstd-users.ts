// Shared by the zstd init tests (zstd-foreign-first, zstd-two-builds): distinct compressible data
// for every call, so a codec whose wasm memory still holds the previous call's input cannot return
// a right-looking frame, and an independent decoder (fzstd) to check every frame.
import { decompress as fzstd } from "fzstd";

/** `n` bytes of words drawn from a small alphabet, different for every `seed` (compressible, not repetitive). */
export function sample(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = 97 + (x % 6);
  }
  return out;
}

/** The package as a foreign user (not paimon-rt) sees it. */
export interface ZstdPackage {
  init(): Promise<void>;
  compress(data: Uint8Array, level?: number): Uint8Array;
  decompress(data: Uint8Array): Uint8Array;
}

export async function zstdPackage(): Promise<ZstdPackage> {
  const imported = (await import("@bokuweb/zstd-wasm")) as unknown as ZstdPackage & { default?: ZstdPackage };
  return typeof imported.init === "function" ? imported : imported.default!;
}

/** The content of `frame` by fzstd (independent of the wasm module). */
export function independent(frame: Uint8Array): Uint8Array {
  return fzstd(frame);
}

/** Makes distinct inputs: every call a new seed and a new length. */
export function inputs(): () => Uint8Array {
  let seed = 1;
  return () => {
    seed++;
    return sample(seed, 2000 + ((seed * 7919) % 5000));
  };
}

/**
 * Lets a pending WebAssembly instantiation finish: a second init() swaps the module's instance only
 * when its asynchronous instantiation resolves, after init() itself has returned.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}
