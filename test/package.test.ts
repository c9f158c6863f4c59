// `npm pack` of a fresh clone (no dist/) must ship the built package: `main`, `exports` and `bin`
// all point into dist/, which is not committed.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const repo = fileURLToPath(new URL("..", import.meta.url));

interface PackResult {
  files: { path: string }[];
}

it("npm pack of a fresh clone builds dist/ and ships it with the wasm module, the explorer and a working bin", async () => {
  const clone = mkdtempSync(join(tmpdir(), "paimon-rt-pack-"));
  try {
    // What a clone has that packing and building need; no dist/.
    for (const entry of ["package.json", "tsconfig.json", "tsconfig.build.json", "README.md", "src", "scripts", "wasm/pkg"]) {
      cpSync(join(repo, entry), join(clone, entry), { recursive: true });
    }
    symlinkSync(realpathSync(join(repo, "node_modules")), join(clone, "node_modules"), "dir");
    expect(existsSync(join(clone, "dist"))).toBe(false);

    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith("npm_")) delete env[key]; // not the parent `npm test`'s settings
    const pack = spawnSync("npm", ["pack", "--dry-run", "--json"], { cwd: clone, env, encoding: "utf8" });
    expect(pack.status, pack.stderr).toBe(0);
    // The build says what it does instead of staying silent for several seconds.
    expect(pack.stderr).toMatch(/paimon-rt: building dist\/ \(tsc -p tsconfig.build.json\) … done in \d+\.\d s\n/);
    expect(pack.stderr).toMatch(/paimon-rt: bundling dist\/node \(esbuild\) … \d+ KB in \d+\.\d s\n/);
    expect(pack.stderr).toMatch(/paimon-rt: bundling dist\/explorer \(vite\) … \d+ KB in \d+\.\d s\n/);
    const [result] = JSON.parse(pack.stdout) as PackResult[];
    const files = new Set(result.files.map((f) => f.path));
    for (const path of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/edge.js",
      "dist/cli/main.js",
      // the "node" condition's entries, the bin and the modules loaded by computed specifiers
      "dist/node/index.js",
      "dist/node/edge.js",
      "dist/node/cli.js",
      "dist/node/page-worker.js",
      "dist/node/compact-workers.js",
      "dist/node/local-file-io.js",
      "dist/explorer/index.html",
      "dist/explorer/explorer.js",
      "wasm/pkg/paimon_rt_kernels.wasm",
      "package.json",
      "README.md",
    ]) {
      expect(files, path).toContain(path);
    }
    const pkg = JSON.parse(readFileSync(join(clone, "package.json"), "utf8"));
    expect(files).toContain(pkg.main.replace(/^\.\//, ""));
    expect(files).toContain(pkg.bin["paimon-rt"].replace(/^\.\//, ""));
    for (const entry of [".", "./edge"]) for (const target of Object.values(pkg.exports[entry] as Record<string, string>)) expect(files, `${entry} → ${target}`).toContain(target.replace(/^\.\//, ""));

    // The bin runs when installed as npm does it (a symlink in node_modules/.bin).
    const bin = join(clone, "paimon-rt-bin");
    symlinkSync(join(clone, pkg.bin["paimon-rt"]), bin);
    const help = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" });
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: "" });
    expect(help.stdout).toMatch(/^usage: paimon-rt <command>/);
    const unknown = spawnSync(process.execPath, [bin, "bogus"], { encoding: "utf8" });
    expect({ status: unknown.status, stdout: unknown.stdout }).toEqual({ status: 2, stdout: "" });

    // `serve` from the built package finds its explorer and both wasm modules, and stops on SIGTERM.
    const warehouse = join(clone, "wh");
    mkdirSync(warehouse);
    writeFileSync(join(warehouse, "f"), "file");
    const serve = spawn(process.execPath, [bin, "serve", warehouse, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      let stdout = "";
      const explorerUrl = await new Promise<string>((resolve, reject) => {
        serve.stdout.on("data", (d: Buffer) => {
          stdout += d.toString();
          const m = /^explorer: +(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(stdout);
          if (m) resolve(m[1]!);
        });
        serve.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stdout}`)));
      });
      expect(stdout).toContain(`serving ${warehouse} read-only\n`);
      const page = await fetch(explorerUrl);
      expect([page.status, await page.text()]).toEqual([200, readFileSync(join(clone, "src", "explorer", "index.html"), "utf8")]);
      expect((await fetch(new URL("explorer.js", explorerUrl))).status).toBe(200);
      const kernels = new Uint8Array(await (await fetch(new URL("kernels.wasm", explorerUrl))).arrayBuffer());
      expect(kernels).toEqual(new Uint8Array(readFileSync(join(clone, "wasm", "pkg", "paimon_rt_kernels.wasm"))));
      expect((await fetch(new URL("parquet.wasm", explorerUrl), { method: "HEAD" })).status).toBe(200);
      expect(await (await fetch(new URL("warehouse/f", explorerUrl))).text()).toBe("file");
      const exited = new Promise<number | null>((resolve) => serve.once("exit", (code) => resolve(code)));
      serve.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (serve.exitCode === null) serve.kill("SIGKILL");
    }
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}, 180_000);
