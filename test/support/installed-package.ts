/**
 * An app directory the way a user's looks after `npm install paimon-rt`: `<dir>/node_modules/paimon-rt`
 * holds this checkout's package.json, dist/ (built from src with tsc) and wasm/pkg, and every other
 * package of the checkout's node_modules is linked beside it. The examples under examples/ are
 * copied next to it and built or run there exactly as the README shows.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));

export function installPackage(dir: string): void {
  const modules = join(dir, "node_modules");
  mkdirSync(modules, { recursive: true });
  for (const name of readdirSync(join(REPO, "node_modules"))) {
    if (name === ".bin" || name === "paimon-rt") continue;
    symlinkSync(join(REPO, "node_modules", name), join(modules, name));
  }
  const pkg = join(modules, "paimon-rt");
  mkdirSync(join(pkg, "wasm"), { recursive: true });
  cpSync(join(REPO, "package.json"), join(pkg, "package.json"));
  cpSync(join(REPO, "wasm", "pkg"), join(pkg, "wasm", "pkg"), { recursive: true });
  const tsc = createRequire(join(REPO, "package.json")).resolve("typescript/bin/tsc");
  const build = spawnSync(process.execPath, [tsc, "-p", join(REPO, "tsconfig.build.json"), "--outDir", join(pkg, "dist")], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`tsc failed: ${build.stdout}${build.stderr}`);
}

/** Copies examples/<name> to `<dir>/<name>` (beside the installed package) and returns that path. */
export function copyExample(dir: string, name: string): string {
  const target = join(dir, name);
  cpSync(join(REPO, "examples", name), target, { recursive: true });
  return target;
}
