/**
 * HttpFileIO against a loopback server (127.0.0.1 only) started by the test. The server serves one
 * directory under several prefixes, each behaving like a different kind of static server:
 *   /json/...     Range support, JSON directory listings (nginx autoindex_format json)
 *   /html/...     Range support, HTML directory listings (like Python's http.server)
 *   /norange/...  ignores Range headers (answers 200 with the whole file)
 *   /nolength/... no Content-Length on HEAD (size must come from a Content-Range probe)
 *   /plain/...    directories answer 403 (no listing)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { HttpFileIO, normalizeHttpLocation, toRequestUrl } from "../../src/fs/http-file-io.js";
import { readTextFile } from "../../src/fs/file-io.js";
import { hostLikeFetch } from "../support/host-like-fetch.js";
import { expectBytes, expectPaimonError } from "./contract.js";

let dir: string;
let server: http.Server;
let base: string;
const requests: Array<{ method: string; url: string; range?: string }> = [];

const data = new Uint8Array(10_000).map((_, i) => (i * 31 + 7) & 0xff);

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  requests.push({ method: req.method ?? "", url: url.pathname, range: req.headers.range });
  const m = /^\/(json|html|norange|nolength|plain)(\/.*)?$/.exec(decodeURIComponent(url.pathname));
  if (!m) {
    res.writeHead(404).end();
    return;
  }
  const mode = m[1]!;
  const rel = (m[2] ?? "/").replace(/^\/+/, "");
  const file = path.join(dir, rel);
  if (!file.startsWith(dir)) {
    res.writeHead(403).end();
    return;
  }
  let st;
  try {
    st = await fsp.stat(file);
  } catch {
    res.writeHead(404).end();
    return;
  }
  if (st.isDirectory()) {
    if (!url.pathname.endsWith("/")) {
      res.writeHead(301, { Location: `${url.pathname}/` }).end();
      return;
    }
    if (mode === "plain") {
      res.writeHead(403).end();
      return;
    }
    const names = (await fsp.readdir(file)).sort();
    if (mode === "json") {
      const items = await Promise.all(
        names.map(async (n) => {
          const s = await fsp.stat(path.join(file, n));
          return s.isDirectory()
            ? { name: n, type: "directory", mtime: s.mtime.toUTCString() }
            : { name: n, type: "file", mtime: s.mtime.toUTCString(), size: s.size };
        }),
      );
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(items));
    } else {
      const links = await Promise.all(
        names.map(async (n) => {
          const isDir = (await fsp.stat(path.join(file, n))).isDirectory();
          const href = encodeURIComponent(n) + (isDir ? "/" : "");
          return `<li><a href="${href}">${n}${isDir ? "/" : ""}</a></li>`;
        }),
      );
      const html = `<!DOCTYPE html><html><body><h1>Index</h1><ul><li><a href="../">..</a></li><li><a href="?C=N;O=D">sort</a></li>${links.join("")}</ul></body></html>`;
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    }
    return;
  }
  const body = await fsp.readFile(file);
  const headers: Record<string, string | number> = {
    "Content-Type": "application/octet-stream",
    "Last-Modified": st.mtime.toUTCString(),
  };
  const range = req.headers.range;
  if (range && mode !== "norange") {
    const r = /^bytes=(\d+)-(\d*)$/.exec(range);
    const start = r ? Number(r[1]) : NaN;
    const end = r && r[2] ? Math.min(Number(r[2]), body.length - 1) : body.length - 1;
    if (!r || start >= body.length) {
      res.writeHead(416, { "Content-Range": `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(start, end + 1);
    res
      .writeHead(206, { ...headers, "Content-Length": part.length, "Content-Range": `bytes ${start}-${end}/${body.length}` })
      .end(req.method === "HEAD" ? undefined : part);
    return;
  }
  if (mode === "nolength") {
    // chunked: no Content-Length header
    res.writeHead(200, headers);
    if (req.method === "HEAD") res.end();
    else {
      res.write(body.subarray(0, 10));
      res.end(body.subarray(10));
    }
    return;
  }
  res.writeHead(200, { ...headers, "Content-Length": body.length }).end(req.method === "HEAD" ? undefined : body);
}

beforeAll(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-http-"));
  await fsp.mkdir(path.join(dir, "wh", "db.db", "t", "snapshot"), { recursive: true });
  await fsp.mkdir(path.join(dir, "wh", "db.db", "t", "schema"), { recursive: true });
  await fsp.mkdir(path.join(dir, "wh", "other.db"), { recursive: true });
  await fsp.writeFile(path.join(dir, "wh", "db.db", "t", "snapshot", "LATEST"), "2");
  await fsp.writeFile(path.join(dir, "wh", "db.db", "t", "snapshot", "snapshot-1"), '{"id":1}');
  await fsp.writeFile(path.join(dir, "wh", "db.db", "t", "snapshot", "snapshot-2"), '{"id":2}');
  await fsp.writeFile(path.join(dir, "wh", "db.db", "t", "data file #1.bin"), data);
  await fsp.writeFile(path.join(dir, "wh", "empty.bin"), new Uint8Array(0));
  server = http.createServer((req, res) => {
    handle(req, res).catch((e) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  server?.closeAllConnections?.();
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// HttpFileIO paths are raw (not percent-encoded), like local paths
const dataPath = (mode: string) => `${base}/${mode}/wh/db.db/t/data file #1.bin`;

describe("HttpFileIO", () => {
  const io = new HttpFileIO();

  it("is read-only", () => {
    expect(io.readOnly).toBe(true);
    expect(io.scheme).toBe("http");
  });

  it("exists via HEAD", async () => {
    requests.length = 0;
    expect(await io.exists(`${base}/json/wh/db.db/t/snapshot/LATEST`)).toBe(true);
    expect(await io.exists(`${base}/json/wh/db.db/t/snapshot/snapshot-3`)).toBe(false);
    expect(await io.exists(`${base}/json/wh/db.db`)).toBe(true); // directory (redirect to dir/)
    expect(requests[0]!.method).toBe("HEAD");
  });

  it("readFile: whole files; NOT_FOUND for missing ones, naming the URL", async () => {
    expect(await readTextFile(io, `${base}/json/wh/db.db/t/snapshot/snapshot-2`)).toBe('{"id":2}');
    expectBytes(await io.readFile(dataPath("json")), data);
    expect((await io.readFile(`${base}/json/wh/empty.bin`)).byteLength).toBe(0);
    await expectPaimonError(io.readFile(`${base}/json/wh/missing`), "NOT_FOUND", `${base}/json/wh/missing`);
  });

  it("readRange sends a Range request and returns exactly those bytes", async () => {
    requests.length = 0;
    expectBytes(await io.readRange(dataPath("json"), 1234, 100), data.slice(1234, 1334));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "GET", range: "bytes=1234-1333" });
    expectBytes(await io.readRange(dataPath("json"), 9990, 10), data.slice(9990));
    expectBytes(await io.readRange(dataPath("json"), 0, 10_000), data);
    expect((await io.readRange(dataPath("json"), 10_000, 0)).byteLength).toBe(0);
  });

  it("readRange past the end is IO_ERROR; missing file NOT_FOUND; bad range INVALID_ARGUMENT", async () => {
    await expectPaimonError(io.readRange(dataPath("json"), 9990, 11), "IO_ERROR", "data file #1.bin");
    await expectPaimonError(io.readRange(dataPath("json"), 20_000, 5), "IO_ERROR", "data file #1.bin");
    await expectPaimonError(io.readRange(`${base}/json/wh/nothing`, 0, 5), "NOT_FOUND", "nothing");
    await expectPaimonError(io.readRange(`${base}/json/wh/nothing`, 0, 0), "NOT_FOUND", "nothing");
    await expectPaimonError(io.readRange(dataPath("json"), -5, 5), "INVALID_ARGUMENT");
  });

  it("readRange works against a server that ignores Range", async () => {
    expectBytes(await io.readRange(dataPath("norange"), 500, 20), data.slice(500, 520));
    await expectPaimonError(io.readRange(dataPath("norange"), 9999, 2), "IO_ERROR");
  });

  it("stat and fileSize from HEAD, or from a Content-Range probe without Content-Length", async () => {
    const st = await io.stat(dataPath("json"));
    expect(st).toMatchObject({ size: 10_000, isDir: false, name: "data file #1.bin" });
    expect(st.modificationTime).toBeGreaterThan(0);
    expect(await io.fileSize(dataPath("json"))).toBe(10_000);
    expect(await io.fileSize(dataPath("nolength"))).toBe(10_000);
    expect(await io.fileSize(`${base}/nolength/wh/empty.bin`)).toBe(0);
    await expectPaimonError(io.stat(`${base}/json/wh/none`), "NOT_FOUND", "none");
  });

  it("listStatus understands JSON listings", async () => {
    const list = await io.listStatus(`${base}/json/wh/db.db/t/snapshot`);
    expect(list.map((s) => [s.name, s.size, s.isDir])).toEqual([
      ["LATEST", 1, false],
      ["snapshot-1", 8, false],
      ["snapshot-2", 8, false],
    ]);
    expect(list[0]!.path).toBe(`${base}/json/wh/db.db/t/snapshot/LATEST`);
    const wh = await io.listStatus(`${base}/json/wh/`);
    expect(wh.map((s) => [s.name, s.isDir])).toEqual([
      ["db.db", true],
      ["empty.bin", false],
      ["other.db", true],
    ]);
  });

  it("listStatus understands HTML listings (names decoded, parent and sort links ignored)", async () => {
    const list = await io.listStatus(`${base}/html/wh/db.db/t`);
    expect(list.map((s) => [s.name, s.isDir])).toEqual([
      ["data file #1.bin", false],
      ["schema", true],
      ["snapshot", true],
    ]);
    expect(list.find((s) => s.name === "snapshot")!.path).toBe(`${base}/html/wh/db.db/t/snapshot`);
    // listed paths can be read back (the raw name is encoded on request)
    const file = list.find((s) => s.name === "data file #1.bin")!;
    expectBytes(await io.readRange(file.path, 10, 5), data.slice(10, 15));
  });

  it("listStatus: a missing directory is []; a server without listings is UNSUPPORTED or IO_ERROR", async () => {
    expect(await io.listStatus(`${base}/json/wh/nope`)).toEqual([]);
    const e = await io.listStatus(`${base}/plain/wh`).catch((x) => x);
    expect(["IO_ERROR", "UNSUPPORTED"]).toContain(e.code);
  });

  it("every write is READ_ONLY naming the path", async () => {
    const p = `${base}/json/wh/db.db/t/snapshot/snapshot-3`;
    await expectPaimonError(io.writeFile(p, "x"), "READ_ONLY", p);
    await expectPaimonError(io.writeFileAtomicNoReplace(p, "x"), "READ_ONLY", p);
    await expectPaimonError(io.mkdirs(`${base}/json/wh/new`), "READ_ONLY", "/wh/new");
    await expectPaimonError(io.delete(p), "READ_ONLY", p);
    await expectPaimonError(io.deleteDirectory(`${base}/json/wh`), "READ_ONLY", "/json/wh");
    await expectPaimonError(io.rename(p, `${p}x`), "READ_ONLY", p);
    expect(await io.exists(p)).toBe(false);
  });

  it("a refused connection is an IO_ERROR naming the URL", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expectPaimonError(io.readFile(`http://127.0.0.1:${port}/x`), "IO_ERROR", `127.0.0.1:${port}/x`);
  });

  it("sends configured headers and uses an injected fetch", async () => {
    const seen: Array<[string, Headers]> = [];
    const custom = new HttpFileIO({
      headers: { Authorization: "Bearer t" },
      fetch: (input, init) => {
        seen.push([String(input), new Headers(init?.headers)]);
        return fetch(input, init);
      },
    });
    expect(await readTextFile(custom, `${base}/json/wh/db.db/t/snapshot/LATEST`)).toBe("2");
    expect(seen[0]![1].get("authorization")).toBe("Bearer t");
  });

  it("calls an injected host fetch as a plain function, not as a method", async () => {
    const custom = new HttpFileIO({ fetch: hostLikeFetch as typeof fetch });
    expect(await readTextFile(custom, `${base}/json/wh/db.db/t/snapshot/LATEST`)).toBe("2");
    expect(await custom.fileSize(dataPath("json"))).toBe(10_000);
  });

  it("calls the default globalThis.fetch as a plain function, not as a method", async () => {
    const original = globalThis.fetch;
    globalThis.fetch = hostLikeFetch as typeof fetch;
    try {
      const defaulted = new HttpFileIO();
      expect(await readTextFile(defaulted, `${base}/json/wh/db.db/t/snapshot/LATEST`)).toBe("2");
    } finally {
      globalThis.fetch = original;
    }
  });

  it("names with %, #, ?, = and spaces reach the server encoded", async () => {
    await fsp.mkdir(path.join(dir, "wh", "db.db", "t", "dt=a%2Fb"), { recursive: true });
    await fsp.writeFile(path.join(dir, "wh", "db.db", "t", "dt=a%2Fb", "x?#.bin"), "odd");
    const p = `${base}/json/wh/db.db/t/dt=a%2Fb/x?#.bin`;
    expect(toRequestUrl(p)).toBe(`${base}/json/wh/db.db/t/dt%3Da%252Fb/x%3F%23.bin`);
    expect(await readTextFile(io, p)).toBe("odd");
    expect((await io.listStatus(`${base}/html/wh/db.db/t/dt=a%2Fb`)).map((s) => s.name)).toEqual(["x?#.bin"]);
  });

  it("normalizes warehouse URLs", () => {
    expect(normalizeHttpLocation("http://127.0.0.1:8080/wh/")).toBe("http://127.0.0.1:8080/wh");
    expect(normalizeHttpLocation("http://127.0.0.1:8080/my%20wh/")).toBe("http://127.0.0.1:8080/my wh");
    expect(normalizeHttpLocation("https://example.invalid/a/b")).toBe("https://example.invalid/a/b");
    expect(() => normalizeHttpLocation("http://h/wh?x=1")).toThrow(/query/);
  });
});
