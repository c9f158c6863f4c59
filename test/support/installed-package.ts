/**
 * An app directory the way a user's looks after `npm install paimon-rt`: `<dir>/node_modules/paimon-rt`
 * holds this checkout's package.json, dist/ (built from src as `npm run build` builds it) and wasm/pkg, and every other
 * package of the checkout's node_modules is linked beside it. The examples under examples/ are
 * copied next to it and built or run there exactly as the README shows.
 */
import { execFile, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileDist } from "./built-dist.js";

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
  compileDist(join(pkg, "dist"));
}

/** Copies examples/<name> to `<dir>/<name>` (beside the installed package) and returns that path. */
export function copyExample(dir: string, name: string): string {
  const target = join(dir, name);
  cpSync(join(REPO, "examples", name), target, { recursive: true });
  return target;
}

/**
 * The `deno` or `bun` binary the example suites run: $PAIMON_RT_<NAME>, the copy the CI installs
 * from npm (~/.cache/paimon-rt/runtimes), or one on PATH; null (the suite skips, saying why) when
 * there is none, except under PAIMON_RT_REQUIRE_HOSTS=1 (CI), where a missing binary fails.
 */
export function runtimeBinary(name: "deno" | "bun", suite: string): string | null {
  const candidates = [process.env[`PAIMON_RT_${name.toUpperCase()}`], join(homedir(), ".cache", "paimon-rt", "runtimes", "node_modules", ".bin", name)];
  const found = candidates.find((p): p is string => typeof p === "string" && p !== "" && existsSync(p)) ?? (spawnSync(name, ["--version"]).status === 0 ? name : null);
  if (found === null) {
    const why = `no ${name} binary (the CI installs it from npm into ~/.cache/paimon-rt/runtimes; or set PAIMON_RT_${name.toUpperCase()})`;
    if (process.env.PAIMON_RT_REQUIRE_HOSTS === "1") throw new Error(`${suite} required but ${why}`);
    console.warn(`${suite} skipped: ${why}`);
  }
  return found;
}

/** Runs `file args` in `cwd` without blocking this process (which may be serving what it reads); resolves to stdout. */
export function run(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, encoding: "utf8", timeout: 120_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)));
  });
}
