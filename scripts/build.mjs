#!/usr/bin/env node
// Builds dist/ (the package's `main`, `exports` and `bin`) from src/ with tsc -p tsconfig.build.json,
// then the server runtimes' bundle into dist/node (scripts/bundle-node.mjs) and the `paimon-rt serve`
// explorer bundle into dist/explorer (scripts/bundle-explorer.mjs).
// Used by `npm run build`, the `prepare` script (a fresh clone's `npm install`, git dependencies) and
// the `prepack` script (`npm pack` / `npm publish`, also under yarn and pnpm). The build takes several
// seconds with no output of its own, so it says what it does and how long it took (on stderr, which
// keeps `npm pack --json` output parseable).
//
// dist/ is removed first so that a source file deleted since the last build cannot ship.
//
// `npm pack` and `npm publish` run prepack and then prepare; the prepare run of those commands is
// skipped because prepack has just built the same tree.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleExplorer } from "./bundle-explorer.mjs";
import { bundleNode } from "./bundle-node.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lifecycle = process.env.npm_lifecycle_event;
const npmCommand = process.env.npm_command;

if (lifecycle === "prepare" && (npmCommand === "pack" || npmCommand === "publish")) {
  console.error(`paimon-rt: dist/ was built by prepack for npm ${npmCommand}`);
  process.exit(0);
}

const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
const started = performance.now();
process.stderr.write("paimon-rt: building dist/ (tsc -p tsconfig.build.json) … ");
rmSync(join(root, "dist"), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
if (result.status !== 0) {
  process.stderr.write("failed\n");
  process.stderr.write(result.stdout ?? "");
  process.stderr.write(result.stderr ?? "");
  if (result.error) process.stderr.write(`${result.error.message}\n`);
  process.exit(result.status ?? 1);
}
process.stderr.write(`done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

// The server runtimes' entries and the bin as a few chunks (scripts/bundle-node.mjs: import time).
const nodeStarted = performance.now();
process.stderr.write("paimon-rt: bundling dist/node (esbuild) … ");
try {
  const bytes = bundleNode(join(root, "dist"));
  process.stderr.write(`${(bytes / 1024).toFixed(0)} KB in ${((performance.now() - nodeStarted) / 1000).toFixed(1)} s\n`);
} catch (e) {
  process.stderr.write("failed\n");
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}

// The `paimon-rt serve` explorer page and its bundle (vite, a devDependency: present wherever
// prepare and prepack run).
const bundleStarted = performance.now();
process.stderr.write("paimon-rt: bundling dist/explorer (vite) … ");
try {
  const bytes = await bundleExplorer(join(root, "dist", "explorer"));
  process.stderr.write(`${(bytes / 1024).toFixed(0)} KB in ${((performance.now() - bundleStarted) / 1000).toFixed(1)} s\n`);
} catch (e) {
  process.stderr.write("failed\n");
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}
