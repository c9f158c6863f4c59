/**
 * A loopback (127.0.0.1) static file server for tests that read warehouses over HTTP: `GET`/`HEAD`
 * with single `Range` requests, JSON directory listings (nginx `autoindex_format json` shape), and
 * extra in-memory routes (pages, bundles). Counts requests so tests can assert that nothing was sent.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as fsp from "node:fs/promises";
import * as path from "node:path";

export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** Every request received so far (method and decoded path). */
  readonly requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

/** Serves `root` under `/files/` and each `routes` entry (path -> body, content type) as is. */
export async function startStaticServer(
  root: string,
  routes: Record<string, { body: string | Uint8Array; type: string }> = {},
): Promise<StaticServer> {
  const requests: Array<{ method: string; path: string }> = [];
  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => res.writeHead(500).end(String(e)));
  });
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const decoded = decodeURIComponent(url.pathname);
    requests.push({ method: req.method ?? "", path: decoded });
    const route = routes[decoded];
    if (route) {
      res.writeHead(200, { "Content-Type": route.type, "Content-Length": Buffer.byteLength(route.body) }).end(req.method === "HEAD" ? undefined : route.body);
      return;
    }
    if (!decoded.startsWith("/files/")) {
      res.writeHead(404).end();
      return;
    }
    const file = path.join(root, decoded.slice("/files/".length));
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    const st = await fsp.stat(file).catch(() => null);
    if (st === null) {
      res.writeHead(404).end();
      return;
    }
    if (st.isDirectory()) {
      const names = (await fsp.readdir(file)).sort();
      const items = await Promise.all(
        names.map(async (n) => {
          const s = await fsp.stat(path.join(file, n));
          return s.isDirectory() ? { name: n, type: "directory", mtime: s.mtime.toUTCString() } : { name: n, type: "file", mtime: s.mtime.toUTCString(), size: s.size };
        }),
      );
      const body = JSON.stringify(items);
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }).end(req.method === "HEAD" ? undefined : body);
      return;
    }
    const body = await fsp.readFile(file);
    const headers = { "Content-Type": "application/octet-stream", "Last-Modified": st.mtime.toUTCString(), "Accept-Ranges": "bytes" };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
      if (start >= body.length) {
        res.writeHead(416, { "Content-Range": `bytes */${body.length}` }).end();
        return;
      }
      const part = body.subarray(start, end + 1);
      res.writeHead(206, { ...headers, "Content-Length": part.length, "Content-Range": `bytes ${start}-${end}/${body.length}` }).end(req.method === "HEAD" ? undefined : part);
      return;
    }
    res.writeHead(200, { ...headers, "Content-Length": body.length }).end(req.method === "HEAD" ? undefined : body);
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
