/** resolve.ts alone (as the edge entry would load it) still finds the local file system lazily. */
import { expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { resolveWarehouse } from "../../src/fs/resolve.js";
import { joinPath, readTextFile } from "../../src/fs/file-io.js";

it("loads LocalFileIO on demand for a local warehouse", async () => {
  const d = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-lazy-"));
  try {
    const { fileIO, root } = await resolveWarehouse(d);
    expect(fileIO.constructor.name).toBe("LocalFileIO");
    expect(fileIO.scheme).toBe("file");
    await fileIO.writeFile(joinPath(root, "x"), "lazy");
    expect(await readTextFile(fileIO, path.join(d, "x"))).toBe("lazy");
  } finally {
    await fsp.rm(d, { recursive: true, force: true });
  }
});

it("loads MemoryFileIO on the first memory:// warehouse, not before (a query-only page reading over HTTP does not carry it)", async () => {
  const { fileIOFactoryFor } = await import("../../src/fs/file-io.js");
  expect(fileIOFactoryFor("memory")).toBeUndefined();
  const a = await resolveWarehouse("memory://lazy-test/wh/");
  expect(a.fileIO.constructor.name).toBe("MemoryFileIO");
  expect(a.root).toBe("memory://lazy-test/wh");
  await a.fileIO.writeFile(joinPath(a.root, "x"), "in memory");
  const b = await resolveWarehouse("memory://lazy-test/wh");
  expect(await readTextFile(b.fileIO, joinPath(b.root, "x"))).toBe("in memory");
  expect(fileIOFactoryFor("memory")).toBeDefined();
});
