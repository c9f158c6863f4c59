import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { LocalFileIO, mapLocalError, normalizeLocalLocation, toLocalPath } from "../../src/fs/local-file-io.js";
import { readTextFile } from "../../src/fs/file-io.js";
import { fileIOContract } from "./contract.js";

const dirs: string[] = [];
async function tmp(): Promise<string> {
  const d = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-fs-"));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true })));
});

fileIOContract("LocalFileIO (OS paths)", async () => {
  const d = await tmp();
  return { io: new LocalFileIO(), root: path.join(d, "root"), cleanup: () => fsp.rm(d, { recursive: true, force: true }) };
});

fileIOContract("LocalFileIO (file:// URLs)", async () => {
  const d = await tmp();
  return {
    io: new LocalFileIO({ fsyncOnPublish: false }),
    root: pathToFileURL(path.join(d, "url root")).href,
    cleanup: () => fsp.rm(d, { recursive: true, force: true }),
  };
});

describe("LocalFileIO specifics", () => {
  it("file: URLs and OS paths name the same files", async () => {
    const d = await tmp();
    const io = new LocalFileIO();
    const url = pathToFileURL(path.join(d, "dir with space", "f.txt")).href;
    await io.writeFile(url, "hello");
    expect(await fsp.readFile(path.join(d, "dir with space", "f.txt"), "utf8")).toBe("hello");
    expect(await readTextFile(io, path.join(d, "dir with space", "f.txt"))).toBe("hello");
    expect(toLocalPath(url)).toBe(path.join(d, "dir with space", "f.txt"));
  });

  it("an OS path resolves as path.resolve does (absolute normal paths are returned as they are)", () => {
    const segments = ["a", "", ".", "..", ".b", "..c", "...", "d.", "e f"];
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.constantFrom(...segments), { maxLength: 6 }), (absolute, parts) => {
        const p = (absolute ? "/" : "") + parts.join("/");
        expect(toLocalPath(p)).toBe(path.resolve(p));
      }),
      { numRuns: 2000 },
    );
    for (const p of ["/", "//", "/a/", "/a/.", "/a/..", "/a//b", "/./a", "/../a", "/a/b/c"]) expect(toLocalPath(p)).toBe(path.resolve(p));
  });

  it("normalizes warehouse locations to absolute paths without trailing slash", () => {
    expect(normalizeLocalLocation("/tmp/wh/")).toBe("/tmp/wh");
    expect(normalizeLocalLocation("file:///tmp/wh")).toBe("/tmp/wh");
    expect(normalizeLocalLocation("rel/wh")).toBe(path.resolve("rel/wh"));
    expect(normalizeLocalLocation("/")).toBe("/");
  });

  it("writeFile leaves no temp files and publish temp names are hidden", async () => {
    const d = await tmp();
    const io = new LocalFileIO();
    await io.writeFile(path.join(d, "a"), "1");
    await io.writeFile(path.join(d, "a"), "2");
    expect(await io.writeFileAtomicNoReplace(path.join(d, "snapshot-1"), "s")).toBe(true);
    expect(await io.writeFileAtomicNoReplace(path.join(d, "snapshot-1"), "t")).toBe(false);
    expect((await fsp.readdir(d)).sort()).toEqual(["a", "snapshot-1"]);
  });

  it("a published file has a link count of 1 (temp link removed)", async () => {
    const d = await tmp();
    const io = new LocalFileIO();
    expect(await io.writeFileAtomicNoReplace(path.join(d, "s"), "x")).toBe(true);
    expect((await fsp.stat(path.join(d, "s"))).nlink).toBe(1);
  });

  it("maps Node errors: ENOENT -> NOT_FOUND, EROFS -> READ_ONLY, others -> IO_ERROR, naming the path", () => {
    const mk = (code: string) => Object.assign(new Error(`${code}: boom`), { code });
    expect(mapLocalError(mk("ENOENT"), "read", "/x/y")).toMatchObject({ code: "NOT_FOUND" });
    expect(mapLocalError(mk("EROFS"), "write", "/ro/f")).toMatchObject({ code: "READ_ONLY" });
    expect(mapLocalError(mk("EROFS"), "write", "/ro/f").message).toContain("/ro/f");
    expect(mapLocalError(mk("EACCES"), "write", "/x/z")).toMatchObject({ code: "IO_ERROR" });
    expect(mapLocalError(mk("EIO"), "read", "/x/z").message).toContain("/x/z");
  });
});
