import { describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { resolveFileIO, resolveWarehouse } from "../../src/fs/resolve.js";
import { MemoryFileIO } from "../../src/fs/memory-file-io.js";
import { HttpFileIO } from "../../src/fs/http-file-io.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { baseName, joinPath, parentPath, schemeOf, tempSiblingPath, readTextFileIfExists } from "../../src/fs/file-io.js";
import { expectPaimonError } from "./contract.js";

describe("resolveFileIO / resolveWarehouse", () => {
  it("picks the FileIO by scheme and normalizes the root", async () => {
    const local = await resolveWarehouse("/tmp/wh/");
    expect(local.fileIO).toBeInstanceOf(LocalFileIO);
    expect(local.root).toBe("/tmp/wh");
    const rel = await resolveWarehouse("some/rel");
    expect(rel.root).toBe(path.resolve("some/rel"));
    const fileUrl = await resolveWarehouse("file:///tmp/w%20h");
    expect(fileUrl.fileIO).toBeInstanceOf(LocalFileIO);
    expect(fileUrl.root).toBe("/tmp/w h");
    const asUrl = await resolveWarehouse(new URL("file:///tmp/x/"));
    expect(asUrl.root).toBe("/tmp/x");
    const mem = await resolveWarehouse("memory://cat/wh/");
    expect(mem.fileIO).toBeInstanceOf(MemoryFileIO);
    expect(mem.root).toBe("memory://cat/wh");
    const web = await resolveWarehouse("https://example.invalid/tables/wh/");
    expect(web.fileIO).toBeInstanceOf(HttpFileIO);
    expect(web.fileIO.readOnly).toBe(true);
    expect(web.root).toBe("https://example.invalid/tables/wh");
    expect(await resolveFileIO("http://127.0.0.1:1/x")).toBeInstanceOf(HttpFileIO);
  });

  it("two resolutions of the same memory:// warehouse see the same files", async () => {
    const a = await resolveWarehouse("memory://resolve-shared");
    const b = await resolveWarehouse("memory://resolve-shared");
    await a.fileIO.writeFile(joinPath(a.root, "db.db", "marker"), "m");
    expect(await readTextFileIfExists(b.fileIO, joinPath(b.root, "db.db", "marker"))).toBe("m");
    expect(await readTextFileIfExists(b.fileIO, joinPath(b.root, "db.db", "none"))).toBeNull();
    MemoryFileIO.clear("resolve-shared");
  });

  it("options.fileIO overrides, also for unknown schemes", async () => {
    const custom = new MemoryFileIO({ isolated: true });
    const r = await resolveWarehouse("s3://bucket/wh/", { fileIO: custom });
    expect(r.fileIO).toBe(custom);
    expect(r.root).toBe("s3://bucket/wh");
    expect((await resolveWarehouse("/tmp/wh", { fileIO: custom })).root).toBe("/tmp/wh");
  });

  it("unknown schemes and empty locations are rejected", async () => {
    await expectPaimonError(resolveFileIO("gs://bucket/wh"), "UNSUPPORTED", "gs://bucket/wh");
    await expectPaimonError(resolveFileIO(""), "INVALID_ARGUMENT");
    await expectPaimonError(resolveFileIO("http://h/wh?x=1"), "INVALID_ARGUMENT", "query");
  });

  it("a local warehouse works end to end", async () => {
    const d = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-resolve-"));
    try {
      const { fileIO, root } = await resolveWarehouse(pathToFileURL(d).href);
      await fileIO.writeFile(joinPath(root, "default.db", "t", "schema", "schema-0"), "{}");
      expect(await fsp.readFile(path.join(d, "default.db", "t", "schema", "schema-0"), "utf8")).toBe("{}");
    } finally {
      await fsp.rm(d, { recursive: true, force: true });
    }
  });
});

describe("path helpers", () => {
  it("joinPath, baseName, parentPath, schemeOf", () => {
    expect(joinPath("/a/", "/b", "c/")).toBe("/a/b/c/");
    expect(joinPath("memory://x", "db.db", "t")).toBe("memory://x/db.db/t");
    expect(joinPath("", "a")).toBe("a");
    expect(joinPath("/a", "")).toBe("/a");
    expect(baseName("/a/b/c")).toBe("c");
    expect(baseName("/a/b/c/")).toBe("c");
    expect(baseName("memory://x/snapshot-3")).toBe("snapshot-3");
    expect(parentPath("/a/b/c")).toBe("/a/b");
    expect(parentPath("/a")).toBe("/");
    expect(parentPath("memory://x/a")).toBe("memory://x");
    expect(parentPath("http://h/wh/")).toBe("http://h");
    expect(schemeOf("/tmp")).toBe("");
    expect(schemeOf("C:\\\\data")).toBe("");
    expect(schemeOf("MEMORY://x")).toBe("memory");
    expect(schemeOf("https://h")).toBe("https");
    expect(schemeOf("file:///x")).toBe("file");
  });

  it("temp sibling names are hidden and never start with the real prefix", () => {
    const t = tempSiblingPath("/wh/t/snapshot/snapshot-12");
    expect(parentPath(t)).toBe("/wh/t/snapshot");
    expect(baseName(t)).toMatch(/^\.snapshot-12\.[0-9a-f-]{36}\.tmp$/);
  });

  it("joinPath then baseName/parentPath round-trip (property)", () => {
    const seg = fc.stringMatching(/^[a-zA-Z0-9=._-]{1,12}$/).filter((s) => s !== "." && s !== "..");
    fc.assert(
      fc.property(fc.constantFrom("/wh", "memory://n/wh", "http://h:1/wh"), fc.array(seg, { minLength: 1, maxLength: 5 }), (root, segs) => {
        const p = joinPath(root, ...segs);
        expect(baseName(p)).toBe(segs[segs.length - 1]);
        expect(parentPath(p)).toBe(joinPath(root, ...segs.slice(0, -1)));
      }),
    );
  });
});

describe("edge safety", () => {
  it("only local-file-io.ts imports node: modules", async () => {
    const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../src/fs");
    for (const f of await fsp.readdir(dir)) {
      if (!f.endsWith(".ts") || f === "local-file-io.ts" || f === "index.ts") continue;
      const src = await fsp.readFile(path.join(dir, f), "utf8");
      expect(src, f).not.toMatch(/from\s+["']node:|import\(\s*["']node:|require\(/);
      expect(src, f).not.toMatch(/from\s+["']\.\/local-file-io\.js["']/);
    }
  });
});
