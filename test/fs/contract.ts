/**
 * The behaviour every writable FileIO must have, run against LocalFileIO and MemoryFileIO.
 */
import { describe, expect, it, beforeEach, afterEach } from "vitest";
import fc from "fast-check";
import { PaimonError } from "../../src/error.js";
import { type FileIO, joinPath, probeFileExists, probeTextFileIfExists, readTextFile, readTextFileIfExists } from "../../src/fs/file-io.js";

export interface Fixture {
  io: FileIO;
  /** An empty directory (that may not exist yet) to work in. */
  root: string;
  cleanup(): Promise<void>;
}

const enc = new TextEncoder();

export async function expectPaimonError(p: Promise<unknown>, code: string, mentions?: string): Promise<PaimonError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, `expected a PaimonError ${code}`).toBeInstanceOf(PaimonError);
  const pe = err as PaimonError;
  expect(pe.code).toBe(code);
  if (mentions !== undefined) expect(pe.message).toContain(mentions);
  return pe;
}

/** Byte equality without vitest's slow element-wise diff on large arrays. */
export function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.byteLength).toBe(expected.byteLength);
  let firstDiff = -1;
  for (let i = 0; i < actual.byteLength; i++) {
    if (actual[i] !== expected[i]) {
      firstDiff = i;
      break;
    }
  }
  expect(firstDiff, "first differing byte").toBe(-1);
}

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export function fileIOContract(name: string, make: () => Promise<Fixture>): void {
  describe(`FileIO contract: ${name}`, () => {
    let fx: Fixture;
    let io: FileIO;
    let root: string;
    const p = (...parts: string[]) => joinPath(root, ...parts);

    beforeEach(async () => {
      fx = await make();
      io = fx.io;
      root = fx.root;
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it("is writable", () => {
      expect(io.readOnly).toBe(false);
    });

    it("exists: false for missing, true for files and directories", async () => {
      expect(await io.exists(p("nope"))).toBe(false);
      expect(await io.exists(p("a", "b", "c"))).toBe(false);
      await io.writeFile(p("a", "f"), "x");
      expect(await io.exists(p("a", "f"))).toBe(true);
      expect(await io.exists(p("a"))).toBe(true);
      // a path "under" a file does not exist
      expect(await io.exists(p("a", "f", "g"))).toBe(false);
    });

    it("writeFile creates parents; readFile returns the bytes; strings are UTF-8", async () => {
      const data = bytes(1000, 7);
      await io.writeFile(p("x", "y", "z.bin"), data);
      expect(await io.readFile(p("x", "y", "z.bin"))).toEqual(data);
      await io.writeFile(p("t.json"), '{"k":"ä€𝄞"}');
      expect(await readTextFile(io, p("t.json"))).toBe('{"k":"ä€𝄞"}');
      expect(await io.readFile(p("t.json"))).toEqual(enc.encode('{"k":"ä€𝄞"}'));
    });

    it("readFileIfExists: the bytes, null when missing (also under a file), IO_ERROR for a directory", async () => {
      if (!io.readFileIfExists) return;
      await io.writeFile(p("d", "f"), "abc");
      expect(await io.readFileIfExists(p("d", "f"))).toEqual(enc.encode("abc"));
      expect(await io.readFileIfExists(p("d", "nope"))).toBeNull();
      expect(await io.readFileIfExists(p("d", "f", "g"))).toBeNull();
      expect(await readTextFileIfExists(io, p("d", "f"))).toBe("abc");
      expect(await readTextFileIfExists(io, p("nope"))).toBeNull();
      await expect(io.readFileIfExists(p("d"))).rejects.toMatchObject({ code: "IO_ERROR" });
    });

    it("synchronous probes (where offered) answer as readFileIfExists and fileExists do", async () => {
      if (!io.readFileIfExistsSync && !io.fileExistsSync) return;
      expect(typeof io.readFileIfExistsSync).toBe("function"); // offered together
      expect(typeof io.fileExistsSync).toBe("function");
      await io.writeFile(p("d", "f"), "abc");
      expect(io.readFileIfExistsSync!(p("d", "f"))).toEqual(enc.encode("abc"));
      expect(io.readFileIfExistsSync!(p("d", "nope"))).toBeNull();
      expect(io.readFileIfExistsSync!(p("d", "f", "g"))).toBeNull();
      expect(() => io.readFileIfExistsSync!(p("d"))).toThrow(expect.objectContaining({ code: "IO_ERROR" }));
      expect(await probeTextFileIfExists(io, p("d", "f"))).toBe("abc");
      expect(await probeTextFileIfExists(io, p("nope"))).toBeNull();
      expect(io.fileExistsSync!(p("d", "f"))).toBe(true);
      expect(io.fileExistsSync!(p("d"))).toBe(false); // a directory is not a file
      expect(io.fileExistsSync!(p("d", "nope"))).toBe(false);
      expect(io.fileExistsSync!(p("d", "f", "g"))).toBe(false);
      expect(probeFileExists(io, p("d", "f"))).toBe(true);
      // a new file is seen at once
      await io.writeFile(p("d", "h"), "x");
      expect(io.fileExistsSync!(p("d", "h"))).toBe(true);
      expect(io.readFileIfExistsSync!(p("d", "h"))).toEqual(enc.encode("x"));
      await io.delete(p("d", "h"));
      expect(io.fileExistsSync!(p("d", "h"))).toBe(false);
      expect(io.readFileIfExistsSync!(p("d", "h"))).toBeNull();
    });

    it("writeFile overwrites and an empty file is fine", async () => {
      await io.writeFile(p("f"), "first content, long");
      await io.writeFile(p("f"), "2nd");
      expect(await readTextFile(io, p("f"))).toBe("2nd");
      await io.writeFile(p("f"), new Uint8Array(0));
      expect((await io.readFile(p("f"))).byteLength).toBe(0);
      expect(await io.fileSize(p("f"))).toBe(0);
    });

    it("writeFile does not keep a reference to the caller's buffer", async () => {
      const data = new Uint8Array([1, 2, 3]);
      await io.writeFile(p("f"), data);
      data[0] = 99;
      expect(await io.readFile(p("f"))).toEqual(new Uint8Array([1, 2, 3]));
      const back = await io.readFile(p("f"));
      back[1] = 42;
      expect(await io.readFile(p("f"))).toEqual(new Uint8Array([1, 2, 3]));
    });

    it("writeFile onto a directory or under a file is an IO_ERROR", async () => {
      await io.mkdirs(p("d"));
      await expectPaimonError(io.writeFile(p("d"), "x"), "IO_ERROR", "d");
      await io.writeFile(p("file"), "x");
      await expectPaimonError(io.writeFile(p("file", "child"), "x"), "IO_ERROR", "child");
    });

    it("readFile of a missing file is NOT_FOUND naming the path", async () => {
      await expectPaimonError(io.readFile(p("missing.txt")), "NOT_FOUND", "missing.txt");
      await expectPaimonError(io.readFile(p("no", "dir", "f")), "NOT_FOUND", "f");
    });

    it("reading a directory as a file is an IO_ERROR naming the path", async () => {
      await io.mkdirs(p("adir"));
      await expectPaimonError(io.readFile(p("adir")), "IO_ERROR", "adir");
      await expectPaimonError(io.readRange(p("adir"), 0, 1), "IO_ERROR", "adir");
    });

    it("readRange returns exactly the requested bytes", async () => {
      const data = bytes(5000, 3);
      await io.writeFile(p("r.bin"), data);
      expectBytes(await io.readRange(p("r.bin"), 0, 5000), data);
      expect(await io.readRange(p("r.bin"), 100, 10)).toEqual(data.slice(100, 110));
      expect(await io.readRange(p("r.bin"), 4990, 10)).toEqual(data.slice(4990));
      expect((await io.readRange(p("r.bin"), 5000, 0)).byteLength).toBe(0);
      expect((await io.readRange(p("r.bin"), 17, 0)).byteLength).toBe(0);
    });

    it("readRange past the end is IO_ERROR; bad arguments INVALID_ARGUMENT; missing NOT_FOUND", async () => {
      await io.writeFile(p("r.bin"), bytes(100, 1));
      await expectPaimonError(io.readRange(p("r.bin"), 90, 11), "IO_ERROR", "r.bin");
      await expectPaimonError(io.readRange(p("r.bin"), 200, 1), "IO_ERROR", "r.bin");
      await expectPaimonError(io.readRange(p("r.bin"), -1, 1), "INVALID_ARGUMENT", "r.bin");
      await expectPaimonError(io.readRange(p("r.bin"), 0, 1.5), "INVALID_ARGUMENT");
      await expectPaimonError(io.readRange(p("gone.bin"), 0, 1), "NOT_FOUND", "gone.bin");
    });

    it("readRange agrees with slicing the whole file (property)", async () => {
      const data = bytes(4096, 11);
      await io.writeFile(p("prop.bin"), data);
      await fc.assert(
        fc.asyncProperty(fc.nat(4096), fc.nat(4096), async (a, b) => {
          const off = Math.min(a, b);
          const len = Math.max(a, b) - off;
          const got = await io.readRange(p("prop.bin"), off, len);
          expectBytes(got, data.slice(off, off + len));
        }),
        { numRuns: 60 },
      );
    });

    it("stat and fileSize", async () => {
      await io.writeFile(p("d", "f"), bytes(123, 5));
      const st = await io.stat(p("d", "f"));
      expect(st).toMatchObject({ name: "f", size: 123, isDir: false, path: p("d", "f") });
      expect(st.modificationTime).toBeGreaterThan(0);
      expect(await io.fileSize(p("d", "f"))).toBe(123);
      const ds = await io.stat(p("d"));
      expect(ds).toMatchObject({ name: "d", isDir: true, size: 0 });
      await expectPaimonError(io.stat(p("none")), "NOT_FOUND", "none");
      await expectPaimonError(io.fileSize(p("none")), "NOT_FOUND", "none");
      await expectPaimonError(io.fileSize(p("d")), "IO_ERROR", "d");
    });

    it("listStatus: direct children, sorted, with sizes and kinds", async () => {
      await io.writeFile(p("dir", "b.txt"), "bb");
      await io.writeFile(p("dir", "a.txt"), "a");
      await io.writeFile(p("dir", "sub", "deep.txt"), "deep");
      await io.mkdirs(p("dir", "empty"));
      await io.writeFile(p("dir", "snapshot-10"), "10");
      await io.writeFile(p("dir", "snapshot-9"), "9");
      const list = await io.listStatus(p("dir"));
      expect(list.map((s) => s.name)).toEqual(["a.txt", "b.txt", "empty", "snapshot-10", "snapshot-9", "sub"]);
      const byName = new Map(list.map((s) => [s.name, s]));
      expect(byName.get("a.txt")).toMatchObject({ size: 1, isDir: false, path: p("dir", "a.txt") });
      expect(byName.get("b.txt")).toMatchObject({ size: 2, isDir: false });
      expect(byName.get("sub")).toMatchObject({ isDir: true, path: p("dir", "sub") });
      expect(byName.get("empty")).toMatchObject({ isDir: true });
      // a trailing slash on the directory path makes no difference to names
      expect((await io.listStatus(p("dir") + "/")).map((s) => s.name)).toEqual(list.map((s) => s.name));
      expect(await io.listStatus(p("dir", "empty"))).toEqual([]);
    });

    it("listStatus of a missing directory is []; of a file an IO_ERROR", async () => {
      expect(await io.listStatus(p("missing-dir"))).toEqual([]);
      await io.writeFile(p("plain"), "x");
      await expectPaimonError(io.listStatus(p("plain")), "IO_ERROR", "plain");
    });

    it("mkdirs: nested, idempotent; a file in the way is an IO_ERROR", async () => {
      await io.mkdirs(p("m", "n", "o"));
      expect((await io.stat(p("m", "n", "o"))).isDir).toBe(true);
      await io.mkdirs(p("m", "n", "o"));
      await io.mkdirs(p("m"));
      await io.writeFile(p("m", "file"), "x");
      await expectPaimonError(io.mkdirs(p("m", "file")), "IO_ERROR", "file");
      await expectPaimonError(io.mkdirs(p("m", "file", "below")), "IO_ERROR", "below");
    });

    it("writeFileAtomicNoReplace publishes once and never replaces", async () => {
      const target = p("snapshot", "snapshot-1");
      expect(await io.writeFileAtomicNoReplace(target, '{"id":1,"who":"first"}')).toBe(true);
      expect(await io.writeFileAtomicNoReplace(target, '{"id":1,"who":"second"}')).toBe(false);
      expect(await readTextFile(io, target)).toBe('{"id":1,"who":"first"}');
      // an existing file written by writeFile is not replaced either
      await io.writeFile(p("snapshot", "snapshot-2"), "plain");
      expect(await io.writeFileAtomicNoReplace(p("snapshot", "snapshot-2"), "other")).toBe(false);
      expect(await readTextFile(io, p("snapshot", "snapshot-2"))).toBe("plain");
      // nor is a directory
      await io.mkdirs(p("snapshot", "snapshot-3"));
      expect(await io.writeFileAtomicNoReplace(p("snapshot", "snapshot-3"), "x")).toBe(false);
      expect((await io.stat(p("snapshot", "snapshot-3"))).isDir).toBe(true);
      // no temp files are left behind
      expect((await io.listStatus(p("snapshot"))).map((s) => s.name)).toEqual([
        "snapshot-1",
        "snapshot-2",
        "snapshot-3",
      ]);
    });

    it("writeFileAtomicNoReplace: concurrent callers in one process, exactly one wins", async () => {
      const target = p("race", "snapshot-7");
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => io.writeFileAtomicNoReplace(target, `writer-${i}`.repeat(1000))),
      );
      expect(results.filter((r) => r)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await readTextFile(io, target)).toBe(`writer-${winner}`.repeat(1000));
      expect((await io.listStatus(p("race"))).map((s) => s.name)).toEqual(["snapshot-7"]);
    });

    it("delete: removes files, false when missing, IO_ERROR for directories", async () => {
      await io.writeFile(p("del", "f"), "x");
      expect(await io.delete(p("del", "f"))).toBe(true);
      expect(await io.exists(p("del", "f"))).toBe(false);
      expect(await io.delete(p("del", "f"))).toBe(false);
      expect(await io.delete(p("nowhere", "f"))).toBe(false);
      await io.mkdirs(p("del", "sub"));
      await expectPaimonError(io.delete(p("del", "sub")), "IO_ERROR", "sub");
      expect(await io.exists(p("del", "sub"))).toBe(true);
    });

    it("deleteDirectory: recursive, false when missing", async () => {
      await io.writeFile(p("tree", "a", "b", "c.txt"), "c");
      await io.writeFile(p("tree", "d.txt"), "d");
      await io.writeFile(p("keep.txt"), "k");
      expect(await io.deleteDirectory(p("tree"))).toBe(true);
      expect(await io.exists(p("tree"))).toBe(false);
      expect(await io.exists(p("tree", "a", "b", "c.txt"))).toBe(false);
      expect(await io.deleteDirectory(p("tree"))).toBe(false);
      expect(await readTextFile(io, p("keep.txt"))).toBe("k");
    });

    it("rename: moves files and directories, never replaces, NOT_FOUND when missing", async () => {
      await io.writeFile(p("src.txt"), "source");
      expect(await io.rename(p("src.txt"), p("moved", "dst.txt"))).toBe(true);
      expect(await io.exists(p("src.txt"))).toBe(false);
      expect(await readTextFile(io, p("moved", "dst.txt"))).toBe("source");

      await io.writeFile(p("other.txt"), "other");
      expect(await io.rename(p("other.txt"), p("moved", "dst.txt"))).toBe(false);
      expect(await readTextFile(io, p("other.txt"))).toBe("other");
      expect(await readTextFile(io, p("moved", "dst.txt"))).toBe("source");

      await io.writeFile(p("dirA", "x", "y.txt"), "y");
      expect(await io.rename(p("dirA"), p("dirB"))).toBe(true);
      expect(await readTextFile(io, p("dirB", "x", "y.txt"))).toBe("y");
      expect(await io.exists(p("dirA"))).toBe(false);
      await io.mkdirs(p("dirC"));
      expect(await io.rename(p("dirB"), p("dirC"))).toBe(false);

      await expectPaimonError(io.rename(p("ghost"), p("ghost2")), "NOT_FOUND", "ghost");
    });

    it("large files round-trip", async () => {
      const data = bytes(3 * 1024 * 1024 + 17, 99);
      await io.writeFile(p("big.bin"), data);
      expect(await io.fileSize(p("big.bin"))).toBe(data.byteLength);
      expectBytes(await io.readFile(p("big.bin")), data);
      expectBytes(await io.readRange(p("big.bin"), 2_000_000, 100_000), data.slice(2_000_000, 2_100_000));
    });
  });
}
