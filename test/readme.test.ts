import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromArrays } from "apache-arrow";
import { expect, it } from "vitest";
import * as paimon from "../src/index.js";

// The README's "Using it" example, run as written (only the warehouse path differs).
it("README example works", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const code = /## Using it\n\n```ts\n([\s\S]*?)```/.exec(readme)![1];
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-readme-"));
  try {
    const body = code
      .replace(/^import .*$/gm, "")
      .replace('"/tmp/warehouse"', JSON.stringify(dir))
      .concat("\nreturn rows;");
    const run = new Function("Catalog", "col", "tableFromArrays", `return (async () => {${body}})();`);
    const rows = await run(paimon.Catalog, paimon.col, tableFromArrays);
    expect(rows.toArray().map((r: { toJSON(): { id: bigint } }) => r.toJSON()).sort((a: { id: bigint }, b: { id: bigint }) => Number(a.id - b.id))).toEqual([
      { id: 1n, kind: "a" },
      { id: 2n, kind: "b" },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
