import { afterEach, describe, expect, it } from "vitest";
import { MemoryFileIO, normalizeMemoryLocation, parseMemoryPath } from "../../src/fs/memory-file-io.js";
import { readTextFile } from "../../src/fs/file-io.js";
import { fileIOContract, expectPaimonError } from "./contract.js";

let counter = 0;

fileIOContract("MemoryFileIO (shared store)", async () => {
  const name = `contract-${process.pid}-${counter++}`;
  return {
    io: new MemoryFileIO(),
    root: `memory://${name}/wh`,
    cleanup: async () => MemoryFileIO.clear(name),
  };
});

fileIOContract("MemoryFileIO (isolated, store root)", async () => ({
  io: new MemoryFileIO({ isolated: true }),
  root: "memory://iso",
  cleanup: async () => undefined,
}));

describe("MemoryFileIO specifics", () => {
  afterEach(() => {
    MemoryFileIO.clear("shared");
    MemoryFileIO.clear("other");
  });

  it("instances share one store per name; names are separate", async () => {
    const a = new MemoryFileIO();
    const b = new MemoryFileIO();
    await a.writeFile("memory://shared/db.db/t/snapshot/LATEST", "1");
    expect(await readTextFile(b, "memory://shared/db.db/t/snapshot/LATEST")).toBe("1");
    expect(await b.exists("memory://other/db.db/t/snapshot/LATEST")).toBe(false);
    expect(await b.writeFileAtomicNoReplace("memory://shared/db.db/t/snapshot/LATEST", "2")).toBe(false);
    expect(MemoryFileIO.usedBytes("shared")).toBe(1);
    MemoryFileIO.clear("shared");
    expect(await a.exists("memory://shared/db.db")).toBe(false);
  });

  it("isolated instances do not see the shared stores", async () => {
    await new MemoryFileIO().writeFile("memory://shared/f", "x");
    const iso = new MemoryFileIO({ isolated: true });
    expect(await iso.exists("memory://shared/f")).toBe(false);
  });

  it("normalizes paths: duplicate slashes, '.', '..', trailing slash", async () => {
    const io = new MemoryFileIO();
    await io.writeFile("memory://shared//a/./b/../c/", "v");
    expect(await readTextFile(io, "memory://shared/a/c")).toBe("v");
    expect(parseMemoryPath("memory://n/x//y/")).toEqual({ name: "n", segments: ["x", "y"] });
    expect(parseMemoryPath("memory://n")).toEqual({ name: "n", segments: [] });
    expect(normalizeMemoryLocation("memory://n/wh/")).toBe("memory://n/wh");
    expect(normalizeMemoryLocation("memory://n")).toBe("memory://n");
  });

  it("the store root lists its top-level entries and can be deleted whole", async () => {
    const io = new MemoryFileIO();
    await io.writeFile("memory://shared/a.db/x", "1");
    await io.mkdirs("memory://shared/b.db");
    expect((await io.listStatus("memory://shared")).map((s) => s.name)).toEqual(["a.db", "b.db"]);
    expect(await io.deleteDirectory("memory://shared")).toBe(true);
    expect(await io.listStatus("memory://shared")).toEqual([]);
  });

  it("read-only instances reject every write with READ_ONLY naming the path", async () => {
    await new MemoryFileIO().writeFile("memory://shared/f", "x");
    const ro = new MemoryFileIO({ readOnly: true });
    expect(ro.readOnly).toBe(true);
    expect(await readTextFile(ro, "memory://shared/f")).toBe("x");
    await expectPaimonError(ro.writeFile("memory://shared/g", "y"), "READ_ONLY", "memory://shared/g");
    await expectPaimonError(ro.writeFileAtomicNoReplace("memory://shared/g", "y"), "READ_ONLY", "memory://shared/g");
    await expectPaimonError(ro.mkdirs("memory://shared/d"), "READ_ONLY", "memory://shared/d");
    await expectPaimonError(ro.delete("memory://shared/f"), "READ_ONLY", "memory://shared/f");
    await expectPaimonError(ro.deleteDirectory("memory://shared"), "READ_ONLY");
    await expectPaimonError(ro.rename("memory://shared/f", "memory://shared/h"), "READ_ONLY");
    expect(await ro.exists("memory://shared/g")).toBe(false);
  });

  it("a directory cannot be moved into itself; non-memory paths are rejected", async () => {
    const io = new MemoryFileIO();
    await io.writeFile("memory://shared/d/f", "x");
    await expectPaimonError(io.rename("memory://shared/d", "memory://shared/d/sub"), "IO_ERROR");
    await expectPaimonError(io.readFile("/tmp/x"), "INVALID_ARGUMENT", "/tmp/x");
  });
});
