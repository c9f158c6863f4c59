// Loads the page worker (page-worker.ts, Node-specific) for the flat encoder and the flat
// decoder, through a computed specifier that keeps bundlers from following it into `node:`
// modules: browser and edge bundles never contain the worker; there loading it fails and pages
// are (de)compressed inline.

import type { PageWorker } from "./page-worker.js";

const PAGE_WORKER_MODULE = ["./page", "worker.js"].join("-");
let pageWorkerModule: Promise<typeof import("./page-worker.js") | null> | undefined;

/**
 * The page worker for `bytes` of work (a file's Arrow bytes, a row group's page bytes), if it is to
 * be used and is ready: `use` false never, true for at least `minBytes` (started here when it is
 * not, and waited for from `waitBytes` on), "always" whatever the size, waiting for it to start.
 */
export async function pageWorkerFor(use: boolean | "always", bytes: number, minBytes: number, waitBytes: number): Promise<PageWorker | undefined> {
  if (use === false || (use === true && bytes < minBytes)) return undefined;
  pageWorkerModule ??= import(/* @vite-ignore */ PAGE_WORKER_MODULE).catch(() => null);
  const worker = (await pageWorkerModule)?.pageWorker();
  if (!worker) return undefined;
  if (worker.isReady) return worker;
  if (use === "always" || bytes >= waitBytes) return (await worker.started()) ? worker : undefined;
  return undefined;
}

/** zstd decompression into the zstd package's heap on this thread (page-worker.ts `zstdHeapView`), where the worker module loads. */
export async function zstdHeapView(): Promise<((data: Uint8Array, size: number) => Uint8Array) | null> {
  pageWorkerModule ??= import(/* @vite-ignore */ PAGE_WORKER_MODULE).catch(() => null);
  return (await (await pageWorkerModule)?.zstdHeapView()) ?? null;
}
