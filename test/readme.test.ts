import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { format } from "node:util";
import { expect, it, vi } from "vitest";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

// The README's "Using it" example, run as written: the code is saved as a module in a fresh
// directory (the working directory while it runs, so "warehouse" is created there) and
// imported. Only the two import specifiers are pointed at this checkout's files, since the
// directory has no node_modules: "paimon-rt" at src/index.ts and "apache-arrow" at the
// installed package.
it("README example runs as written and prints what its comment says", async () => {
  const code = /## Using it\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1];
  const printed = /^console\.log\((.*)\);\s+\/\/ (.*)$/m.exec(code);
  expect(printed, "the example ends by printing its rows, with the output in a comment").not.toBeNull();
  const paimon = new URL("../src/index.ts", import.meta.url).href;
  // the ES module entry (Node's "import" condition), the copy paimon-rt's sources import too
  const arrow = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("apache-arrow")), "Arrow.node.mjs")).href;
  const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  expect(imports).toEqual(["paimon-rt", "apache-arrow"]);
  const runnable = code.replace(/ from "paimon-rt";$/m, ` from ${JSON.stringify(paimon)};`).replace(/ from "apache-arrow";$/m, ` from ${JSON.stringify(arrow)};`);

  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-readme-"));
  const cwd = process.cwd();
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    writeFileSync(join(dir, "example.mjs"), runnable);
    process.chdir(dir);
    await import(/* @vite-ignore */ pathToFileURL(join(dir, "example.mjs")).href);
    expect(log.mock.calls.map((args) => format(...args))).toEqual([printed![2]]);
  } finally {
    log.mockRestore();
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
});
