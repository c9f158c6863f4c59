// `paimon-rt serve`'s file server (src/cli/serve.ts): Range requests, JSON listings HttpFileIO
// reads, refusal of every way out of the served root (dot segments, encoded separators, NUL,
// symbolic links), and read-only methods. Requests are sent with node:http so that the raw path
// reaches the server exactly as written (fetch would normalise `..` away).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FileServer, isLoopbackHost, parseRange, startFileServer, startServe } from "../src/cli/serve.js";
import { main } from "../src/cli/main.js";
import { HttpFileIO } from "../src/fs/http-file-io.js";

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function request(base: string, method: string, rawPath: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    // node:http sends a DELETE body without framing unless told its length
    const allHeaders = body === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(body)) };
    const req = http.request({ host: url.hostname, port: url.port, method, path: rawPath, headers: allHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const DATA = Uint8Array.from({ length: 100 }, (_, i) => i);

describe("paimon-rt serve: file server", () => {
  let dir: string;
  let root: string;
  let server: FileServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "paimon-rt-serve-"));
    root = join(dir, "wh");
    mkdirSync(join(root, "db.db", "t"), { recursive: true });
    writeFileSync(join(root, "data.bin"), DATA);
    writeFileSync(join(root, "empty"), "");
    writeFileSync(join(root, "db.db", "t", "a b%2F#.txt"), "hello");
    writeFileSync(join(dir, "outside.txt"), "secret");
    mkdirSync(join(dir, "outside-dir"));
    writeFileSync(join(dir, "outside-dir", "x.txt"), "secret too");
    symlinkSync(join(root, "data.bin"), join(root, "link-inside"));
    symlinkSync(join(dir, "outside.txt"), join(root, "escape-file"));
    symlinkSync(join(dir, "outside-dir"), join(root, "escape-dir"));
    server = await startFileServer({ root, prefix: "/warehouse/" });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 by default", () => {
    expect(server.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("GET without Range sends the whole file; HEAD sends its headers only", async () => {
    const get = await request(server.base, "GET", "/warehouse/data.bin");
    expect(get.status).toBe(200);
    expect(new Uint8Array(get.body)).toEqual(DATA);
    expect(get.headers["content-length"]).toBe("100");
    expect(get.headers["accept-ranges"]).toBe("bytes");
    const head = await request(server.base, "HEAD", "/warehouse/data.bin");
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe("100");
    expect(head.body.length).toBe(0);
    const empty = await request(server.base, "GET", "/warehouse/empty");
    expect([empty.status, empty.body.length, empty.headers["content-length"]]).toEqual([200, 0, "0"]);
  });

  it("answers single Range requests with 206 and the exact bytes, unsatisfiable ones with 416", async () => {
    const cases: Array<[range: string, start: number, end: number]> = [
      ["bytes=10-19", 10, 19],
      ["bytes=90-", 90, 99],
      ["bytes=-5", 95, 99],
      ["bytes=95-1000", 95, 99],
      ["bytes=0-0", 0, 0],
    ];
    for (const [range, start, end] of cases) {
      const res = await request(server.base, "GET", "/warehouse/data.bin", { Range: range });
      expect([range, res.status, res.headers["content-range"], res.headers["content-length"]]).toEqual([range, 206, `bytes ${start}-${end}/100`, String(end - start + 1)]);
      expect(new Uint8Array(res.body)).toEqual(DATA.slice(start, end + 1));
    }
    const beyond = await request(server.base, "GET", "/warehouse/data.bin", { Range: "bytes=100-" });
    expect([beyond.status, beyond.headers["content-range"]]).toEqual([416, "bytes */100"]);
    // a multi-range request may be answered with the whole file (RFC 9110)
    const multi = await request(server.base, "GET", "/warehouse/data.bin", { Range: "bytes=0-1,5-6" });
    expect([multi.status, multi.body.length]).toEqual([200, 100]);
  });

  it("parseRange covers the header forms", () => {
    expect(parseRange(undefined, 10)).toBe(null);
    expect(parseRange("bytes=3-1", 10)).toBe(null);
    expect(parseRange("items=0-1", 10)).toBe(null);
    expect(parseRange("bytes=-0", 10)).toBe("unsatisfiable");
    expect(parseRange("bytes=-20", 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange("bytes=0-", 0)).toBe("unsatisfiable");
  });

  it("lists a directory as nginx's JSON autoindex, leaving out links that leave the root", async () => {
    const res = await request(server.base, "GET", "/warehouse/");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    const entries = (JSON.parse(res.body.toString()) as Array<{ name: string; type: string; size?: number }>).map(({ name, type, size }) => ({ name, type, size }));
    expect(entries).toEqual([
      { name: "data.bin", type: "file", size: 100 },
      { name: "db.db", type: "directory", size: undefined },
      { name: "empty", type: "file", size: 0 },
      { name: "link-inside", type: "file", size: 100 },
    ]);
  });

  it("is what HttpFileIO reads: listings, sizes and ranges of names that need encoding", async () => {
    const io = new HttpFileIO();
    const wh = `${server.base}/warehouse`;
    expect((await io.listStatus(`${wh}/db.db/t`)).map((s) => [s.name, s.size, s.isDir])).toEqual([["a b%2F#.txt", 5, false]]);
    expect(await io.fileSize(`${wh}/db.db/t/a b%2F#.txt`)).toBe(5);
    expect(new TextDecoder().decode(await io.readRange(`${wh}/db.db/t/a b%2F#.txt`, 1, 3))).toBe("ell");
    expect((await io.listStatus(wh)).map((s) => [s.name, s.isDir])).toEqual([
      ["data.bin", false],
      ["db.db", true],
      ["empty", false],
      ["link-inside", false],
    ]);
    expect(await io.exists(`${wh}/missing`)).toBe(false);
  });

  it("refuses every path out of the root: 403 for traversal, 404 outside the prefix", async () => {
    const attempts: Array<[path: string, status: number]> = [
      ["/warehouse/../outside.txt", 403],
      ["/warehouse/db.db/../../outside.txt", 403],
      ["/warehouse/%2e%2e/outside.txt", 403],
      ["/warehouse/%2E%2E/outside.txt", 403],
      ["/warehouse/%2e%2e%2foutside.txt", 403],
      ["/warehouse/db.db%2F..%2F..%2Foutside.txt", 403],
      ["/warehouse/..%5Coutside.txt", 403],
      ["/warehouse/%252e%252e/outside.txt", 404], // decoded once: a name `%2e%2e`, which does not exist
      ["/warehouse/data.bin%00", 403],
      ["/warehouse/./data.bin", 403],
      ["/warehouse/%zz", 400],
      ["/warehouse/escape-file", 403],
      ["/warehouse/escape-dir/", 403],
      ["/warehouse/escape-dir/x.txt", 403],
      ["/outside.txt", 404],
      ["/wh/data.bin", 404],
      ["/warehouse/missing.txt", 404],
      ["/warehouse/db.db//t", 404],
    ];
    const results = [];
    for (const [path] of attempts) {
      const res = await request(server.base, "GET", path);
      expect(res.body.toString()).not.toContain("secret");
      results.push([path, res.status]);
    }
    expect(results).toEqual(attempts);
    // a link that stays inside the root is served
    const inside = await request(server.base, "GET", "/warehouse/link-inside");
    expect([inside.status, inside.body.length]).toEqual([200, 100]);
  });

  it("is read-only: PUT, POST, DELETE, PATCH answer 405 (Allow: GET, HEAD) and change nothing", async () => {
    for (const method of ["PUT", "POST", "DELETE", "PATCH"]) {
      const res = await request(server.base, method, "/warehouse/data.bin", { "Content-Type": "application/octet-stream" }, "overwritten");
      expect([method, res.status, res.headers.allow]).toEqual([method, 405, "GET, HEAD"]);
    }
    const created = await request(server.base, "PUT", "/warehouse/new.txt", {}, "x");
    expect(created.status).toBe(405);
    expect(new Uint8Array(readFileSync(join(root, "data.bin")))).toEqual(DATA);
    expect((await request(server.base, "GET", "/warehouse/new.txt")).status).toBe(404);
  });
});

describe("paimon-rt serve: explorer routes and arguments", () => {
  const require = createRequire(import.meta.url);
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "paimon-rt-serve-routes-"));
    mkdirSync(join(dir, "wh"));
    writeFileSync(join(dir, "wh", "f"), "file");
    mkdirSync(join(dir, "explorer"));
    copyFileSync(new URL("../src/explorer/index.html", import.meta.url), join(dir, "explorer", "index.html"));
    writeFileSync(join(dir, "explorer", "explorer.js"), "export {};\n");
    writeFileSync(join(dir, "explorer", "chunk-a1.js"), "export const a = 1;\n");
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves the page at /, its bundle and chunks, both wasm modules, and the warehouse under /warehouse/", async () => {
    const server = await startServe({ warehouse: join(dir, "wh"), port: 0, explorerDir: join(dir, "explorer") });
    try {
      expect(server.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const page = await request(server.base, "GET", "/");
      expect([page.status, page.headers["content-type"]]).toEqual([200, "text/html; charset=utf-8"]);
      expect(page.body.toString()).toBe(readFileSync(join(dir, "explorer", "index.html"), "utf8"));
      const bundle = await request(server.base, "GET", "/explorer.js");
      expect([bundle.headers["content-type"], bundle.body.toString()]).toEqual(["text/javascript; charset=utf-8", "export {};\n"]);
      expect((await request(server.base, "GET", "/chunk-a1.js")).body.toString()).toBe("export const a = 1;\n");
      const kernels = await request(server.base, "GET", "/kernels.wasm");
      expect([kernels.status, kernels.headers["content-type"]]).toEqual([200, "application/wasm"]);
      expect(kernels.body.equals(readFileSync(new URL("../wasm/pkg/paimon_rt_kernels.wasm", import.meta.url)))).toBe(true);
      const parquet = await request(server.base, "HEAD", "/parquet.wasm");
      expect(parquet.headers["content-length"]).toBe(String(readFileSync(require.resolve("parquet-wasm/esm/parquet_wasm_bg.wasm")).length));
      expect((await request(server.base, "GET", "/warehouse/f")).body.toString()).toBe("file");
      expect((await request(server.base, "GET", "/f")).status).toBe(404);
      expect((await request(server.base, "DELETE", "/")).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it("tells loopback hosts (no warning) from the others (warning)", () => {
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1"].map(isLoopbackHost)).toEqual([true, true, true, true]);
    expect(["0.0.0.0", "::", "192.168.1.5", "example.com"].map(isLoopbackHost)).toEqual([false, false, false, false]);
  });

  it("reports a port already in use as IO_ERROR", async () => {
    const first = await startFileServer({ root: join(dir, "wh") });
    try {
      await expect(startFileServer({ root: join(dir, "wh"), port: first.port })).rejects.toMatchObject({
        code: "IO_ERROR",
        message: expect.stringContaining(`cannot listen on 127.0.0.1:${first.port}`),
      });
    } finally {
      await first.close();
    }
  });

  it("fails clearly when the explorer is not built or the warehouse does not exist", async () => {
    await expect(startServe({ warehouse: join(dir, "wh"), port: 0, explorerDir: join(dir, "nothing") })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("the explorer is not built"),
    });
    await expect(startServe({ warehouse: join(dir, "missing"), port: 0, explorerDir: join(dir, "explorer") })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("rejects a missing warehouse argument and a bad --port with INVALID_ARGUMENT", async () => {
    const io = { out: () => undefined, err: () => undefined };
    await expect(main(["serve"], io)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "serve needs a warehouse directory" });
    await expect(main(["serve", "--port", "1"], io)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "serve needs a warehouse directory" });
    await expect(main(["serve", join(dir, "wh"), "--port", "http"], io)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "--port needs a port number (0-65535), got http" });
    await expect(main(["serve", join(dir, "wh"), "--port", "70000"], io)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
