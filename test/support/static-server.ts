/**
 * A loopback (127.0.0.1) static file server for tests that read warehouses over HTTP: `paimon-rt
 * serve`'s file server (src/cli/serve.ts: `GET`/`HEAD` with single `Range` requests, nginx-style
 * JSON directory listings) with the root under `/files/`, plus extra in-memory routes (pages,
 * bundles). Records every request so tests can assert what was sent.
 */
import { startFileServer } from "../../src/cli/serve.js";

export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** Every request received so far (method and raw path). */
  readonly requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

/** Serves `root` under `/files/` and each `routes` entry (path -> body, content type) as is. */
export async function startStaticServer(
  root: string,
  routes: Record<string, { body: string | Uint8Array; type: string }> = {},
): Promise<StaticServer> {
  const requests: Array<{ method: string; path: string }> = [];
  const server = await startFileServer({ root, prefix: "/files/", routes, onRequest: (method, path) => requests.push({ method, path }) });
  return { base: server.base, requests, close: () => server.close() };
}
