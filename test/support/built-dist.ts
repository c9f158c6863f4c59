/**
 * dist/ built from this checkout's src as `npm run build` builds it (tsc, then the server runtimes'
 * bundle dist/node) into `dir`, beside a copy of package.json and links to node_modules and wasm/
 * (what the built modules resolve against): for tests that run the built code in a process of its own.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, realpathSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleNode } from "../../scripts/bundle-node.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** Builds `dir`/dist; throws with tsc's output when the build fails. */
export function buildDistInto(dir: string): void {
  copyFileSync(join(repo, "package.json"), join(dir, "package.json"));
  symlinkSync(realpathSync(join(repo, "node_modules")), join(dir, "node_modules"), "dir");
  // the package ships the kernel as wasm/pkg/paimon_rt_kernels.wasm beside dist/ (package.json "files")
  symlinkSync(join(repo, "wasm"), join(dir, "wasm"), "dir");
  compileDist(join(dir, "dist"));
}

/** Compiles src into `outDir` with tsc -p tsconfig.build.json and bundles its server entries into `outDir`/node (scripts/build.mjs's two steps). */
export function compileDist(outDir: string): void {
  const tsc = createRequire(join(repo, "package.json")).resolve("typescript/bin/tsc");
  const build = spawnSync(process.execPath, [tsc, "-p", join(repo, "tsconfig.build.json"), "--outDir", outDir], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`tsc failed (${build.status}): ${build.stdout}${build.stderr}`);
  bundleNode(outDir);
}
