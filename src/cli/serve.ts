/**
 * `paimon-rt serve`: a read-only HTTP file server for a warehouse directory, shaped for
 * `HttpFileIO` (`GET`/`HEAD`, single `Range` requests, nginx `autoindex_format json` directory
 * listings), plus the browser explorer page. The server only serves files; every query runs in the
 * browser with `paimon-rt/edge`.
 *
 * Nothing outside the served root is ever read: each path segment is decoded once and `.`/`..`,
 * separators and NUL inside a segment are refused (403), and the real path of what is served (after
 * symbolic links) must lie inside the root's real path (403; listings leave such links out).
 */
import { createReadStream } from "node:fs";
import * as fsp from "node:fs/promises";
import * as http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { PaimonError } from "../error.js";

/** An extra in-memory or on-disk resource served at a fixed path (pages, bundles, wasm). */
export type FileServerRoute = { type: string } & ({ body: string | Uint8Array } | { file: string });

export interface FileServerOptions {
  /** The directory to serve (must exist). */
  root: string;
  /** URL path prefix the root is served under, starting and ending with `/` (default `/`). */
  prefix?: string;
  /** Interface to listen on (default 127.0.0.1: loopback only). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Exact paths (e.g. `/index.html`) answered from memory or a file instead of the root. */
  routes?: Record<string, FileServerRoute>;
  /** Called for every request with its method and raw path (tests count requests with it). */
  onRequest?: (method: string, rawPath: string) => void;
}

export interface FileServer {
  /** `http://<host>:<port>` */
  readonly base: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Outcome of mapping a request path onto the root: a file system path, or an HTTP status. */
type Resolved = { file: string } | { status: 400 | 403 | 404 };

/**
 * Maps the raw (percent-encoded) path after the prefix onto `root`. Each segment is decoded exactly
 * once; a decoded segment that is `.` or `..` or holds `/`, `\` or NUL is a traversal attempt (403).
 */
export function resolveServedPath(root: string, rawRelative: string): Resolved {
  const rawSegments = rawRelative.split("/");
  if (rawSegments[rawSegments.length - 1] === "") rawSegments.pop(); // a directory's trailing slash
  const segments: string[] = [];
  for (const raw of rawSegments) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return { status: 400 };
    }
    if (seg === "." || seg === ".." || /[/\\\0]/.test(seg)) return { status: 403 };
    if (seg === "") return { status: 404 }; // `a//b` names nothing
    segments.push(seg);
  }
  return { file: segments.length === 0 ? root : path.join(root, ...segments) };
}

function isInside(realRoot: string, real: string): boolean {
  return real === realRoot || real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
}

/** Byte range of a `Range` header for a file of `size` bytes: null = serve it whole, "unsatisfiable" = 416. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | "unsatisfiable" {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // absent, malformed or multi-range: RFC 9110 lets a server ignore Range and send the whole file
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  if (m[2] !== "" && Number(m[2]) < start) return null; // invalid: ignored
  if (start >= size) return "unsatisfiable";
  return { start, end: m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1) };
}

/** Starts a read-only server for `root` (see the module comment for what it refuses). */
export async function startFileServer(options: FileServerOptions): Promise<FileServer> {
  const prefix = options.prefix ?? "/";
  if (!prefix.startsWith("/") || !prefix.endsWith("/")) throw new PaimonError("INVALID_ARGUMENT", `prefix must start and end with /, got ${prefix}`);
  let realRoot: string;
  try {
    realRoot = await fsp.realpath(options.root);
    if (!(await fsp.stat(realRoot)).isDirectory()) throw new Error("not a directory");
  } catch (e) {
    throw new PaimonError("NOT_FOUND", `cannot serve ${options.root}: ${(e as Error).message}`, { cause: e });
  }
  const routes = options.routes ?? {};

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? "";
    const rawPath = (req.url ?? "").split("?")[0]!;
    options.onRequest?.(method, rawPath);
    if (method !== "GET" && method !== "HEAD") {
      // read (and drop) any body first: answering before it is consumed can reset the connection
      req.resume();
      await new Promise((resolve) => req.once("end", resolve).once("error", resolve));
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    if (!rawPath.startsWith("/")) {
      res.writeHead(400).end();
      return;
    }
    const route = routes[rawPath];
    if (route) {
      const headers = { "Content-Type": route.type, "Cache-Control": "no-cache" };
      if ("body" in route) {
        res.writeHead(200, { ...headers, "Content-Length": Buffer.byteLength(route.body) }).end(method === "HEAD" ? undefined : route.body);
      } else {
        const st = await fsp.stat(route.file);
        res.writeHead(200, { ...headers, "Content-Length": st.size });
        if (method === "HEAD") res.end();
        else createReadStream(route.file).on("error", (e) => res.destroy(e)).pipe(res);
      }
      return;
    }
    if (!rawPath.startsWith(prefix) && rawPath !== prefix.slice(0, -1)) {
      res.writeHead(404).end();
      return;
    }
    const resolved = resolveServedPath(options.root, rawPath.slice(prefix.length));
    if ("status" in resolved) {
      res.writeHead(resolved.status).end();
      return;
    }
    const real = await fsp.realpath(resolved.file).catch(() => null);
    if (real === null) {
      res.writeHead(404).end();
      return;
    }
    if (!isInside(realRoot, real)) {
      res.writeHead(403).end();
      return;
    }
    const st = await fsp.stat(real);
    if (st.isDirectory()) {
      const body = JSON.stringify(await listDirectory(realRoot, real));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-cache" });
      res.end(method === "HEAD" ? undefined : body);
      return;
    }
    if (!st.isFile()) {
      res.writeHead(403).end();
      return;
    }
    const headers = {
      "Content-Type": "application/octet-stream",
      "Last-Modified": st.mtime.toUTCString(),
      "Accept-Ranges": "bytes",
      // snapshots and the LATEST hint change under the same name: always revalidate
      "Cache-Control": "no-cache",
    };
    const range = parseRange(req.headers.range, st.size);
    if (range === "unsatisfiable") {
      res.writeHead(416, { "Content-Range": `bytes */${st.size}` }).end();
      return;
    }
    if (range === null) {
      res.writeHead(200, { ...headers, "Content-Length": st.size });
      if (method === "HEAD" || st.size === 0) res.end();
      else createReadStream(real).on("error", (e) => res.destroy(e)).pipe(res);
      return;
    }
    const length = range.end - range.start + 1;
    res.writeHead(206, { ...headers, "Content-Length": length, "Content-Range": `bytes ${range.start}-${range.end}/${st.size}` });
    if (method === "HEAD") res.end();
    else createReadStream(real, { start: range.start, end: range.end }).on("error", (e) => res.destroy(e)).pipe(res);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (res.headersSent) res.destroy(e as Error);
      else res.writeHead(500, { "Content-Type": "text/plain" }).end(String((e as Error)?.message ?? e));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e) => reject(new PaimonError("IO_ERROR", `cannot listen on ${options.host ?? "127.0.0.1"}:${options.port ?? 0}: ${e.message}`, { cause: e })));
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve);
  });
  const address = server.address() as AddressInfo;
  const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    base: `http://${hostText}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

type ListingEntry = { name: string; type: "file" | "directory"; mtime: string; size?: number };

/** A directory as nginx's JSON autoindex lists it; entries whose real path leaves the root are left out. */
async function listDirectory(realRoot: string, dir: string): Promise<ListingEntry[]> {
  const names = (await fsp.readdir(dir)).sort();
  const items = await Promise.all(
    names.map(async (name): Promise<ListingEntry | null> => {
      const real = await fsp.realpath(path.join(dir, name)).catch(() => null);
      if (real === null || !isInside(realRoot, real)) return null;
      const s = await fsp.stat(real).catch(() => null);
      if (s === null) return null;
      if (s.isDirectory()) return { name, type: "directory", mtime: s.mtime.toUTCString() };
      if (!s.isFile()) return null;
      return { name, type: "file", mtime: s.mtime.toUTCString(), size: s.size };
    }),
  );
  return items.filter((x): x is ListingEntry => x !== null);
}

/** The URL path the warehouse is served under by `paimon-rt serve` (the explorer is at `/`). */
export const WAREHOUSE_PREFIX = "/warehouse/";

/** Where the build puts the explorer page and bundle (dist/explorer beside dist/cli). */
export function defaultExplorerDir(): string {
  return fileURLToPath(new URL("../explorer/", import.meta.url));
}

export interface ServeOptions {
  warehouse: string;
  host?: string;
  port?: number;
  /** Directory holding the built explorer (`index.html`, `explorer.js`, its chunks); default {@link defaultExplorerDir}. */
  explorerDir?: string;
}

/**
 * Starts `paimon-rt serve`: the warehouse under {@link WAREHOUSE_PREFIX}, the explorer at `/`, and
 * the two wasm modules the explorer hands to `init` at `/kernels.wasm` and `/parquet.wasm`.
 */
export async function startServe(options: ServeOptions): Promise<FileServer> {
  const explorerDir = options.explorerDir ?? defaultExplorerDir();
  const explorerFiles = await fsp.readdir(explorerDir).catch(() => [] as string[]);
  for (const f of ["index.html", "explorer.js"]) {
    if (!explorerFiles.includes(f)) {
      throw new PaimonError("NOT_FOUND", `the explorer is not built (${path.join(explorerDir, f)} is missing): run npm run build`);
    }
  }
  const require = createRequire(import.meta.url);
  // src/cli and dist/cli are both two levels below the package root, which ships wasm/pkg
  const kernels = fileURLToPath(new URL("../../wasm/pkg/paimon_rt_kernels.wasm", import.meta.url));
  const routes: Record<string, FileServerRoute> = {};
  // the page, explorer.js and the chunks it loads on demand (the build writes them side by side)
  for (const name of explorerFiles) routes[`/${encodeURIComponent(name)}`] = { file: path.join(explorerDir, name), type: contentType(name) };
  routes["/"] = routes["/index.html"]!;
  routes["/kernels.wasm"] = { file: kernels, type: "application/wasm" };
  routes["/parquet.wasm"] = { file: require.resolve("parquet-wasm/esm/parquet_wasm_bg.wasm"), type: "application/wasm" };
  return startFileServer({ root: options.warehouse, prefix: WAREHOUSE_PREFIX, host: options.host ?? "127.0.0.1", port: options.port ?? 8080, routes });
}

function contentType(name: string): string {
  if (name.endsWith(".html")) return "text/html; charset=utf-8";
  if (name.endsWith(".js")) return "text/javascript; charset=utf-8";
  if (name.endsWith(".wasm")) return "application/wasm";
  return "application/octet-stream";
}

/** True for a host only this machine can reach (`serve` warns before listening anywhere else). */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * `paimon-rt serve`: starts the server, prints where the explorer and the warehouse are, and runs
 * until SIGINT or SIGTERM (then closes the server and resolves).
 */
export async function serveCommand(options: ServeOptions, out: (line: string) => void): Promise<void> {
  const server = await startServe(options);
  out(`serving ${path.resolve(options.warehouse)} read-only`);
  out(`explorer:  ${server.base}/`);
  out(`warehouse: ${server.base}${WAREHOUSE_PREFIX.slice(0, -1)}  (Catalog.open from paimon-rt/edge)`);
  if (!isLoopbackHost(options.host ?? "127.0.0.1")) {
    out(`warning: listening on ${options.host}: anyone who can reach this port can read every file of the warehouse`);
  }
  out("press Ctrl-C to stop");
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await server.close();
}
