#!/usr/bin/env node
// Builds the kernel crate (wasm/) and regenerates the committed artifacts:
//   wasm/pkg/paimon_rt_kernels.wasm            core module the JS library calls (C ABI, no imports),
//                                              shipped as a file: Node, Deno and Bun read it, browsers
//                                              fetch it as a bundler-emitted asset
//   src/kernel/wasm-module.ts                  its source hash, which init({ kernels }) checks a
//                                              supplied module against
//   wasm/pkg/paimon_rt_kernels.component.wasm  the kernels as a WebAssembly component
//                                              (wasm/component, WIT in wasm/component/wit)
//
//   node scripts/build-wasm.mjs          rebuild and write the artifacts
//   node scripts/build-wasm.mjs --check  rebuild and fail if the committed ones differ
//
// Toolchain (README "Building the kernels"): Debian's rustc-web/cargo-web (Rust 1.96) with
// rust-web-src and lld-22; std is compiled for wasm32 from source (RUSTC_BOOTSTRAP=1 +
// CARGO_UNSTABLE_BUILD_STD). The core module is built by wasm-pack 0.15.1, which runs
// wasm-bindgen-cli 0.2.130; both are looked up on PATH and in $PAIMON_RT_TOOLS/bin
// (default ~/.cache/paimon-rt-tools/bin, where `cargo install --root` puts them).
// CARGO and RUSTC select other binaries; by default /usr/bin/cargo and /usr/bin/rustc,
// because a rustup toolchain earlier on PATH would shadow Debian's.
// The component is cargo's output for wasm/component wrapped by jco's componentNew.
//
// PAIMON_RT_KERNEL_BUILD_DIR=<dir> builds a copy of the crate sources in <dir>/wasm instead of in
// place. CI sets it to a cache directory: the path remapped out of the module is then the same in
// every fresh clone, so cargo's fingerprints hold and std (built from source) and the
// dependencies are reused; only the kernel crates recompile. The output is the same either way.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { componentNew } from "@bytecodealliance/jco";
import { kernelSourceHash } from "./kernel-source-hash.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const sourceDir = join(root, "wasm");
const wasmOut = join(sourceDir, "pkg", "paimon_rt_kernels.wasm");
const componentOut = join(sourceDir, "pkg", "paimon_rt_kernels.component.wasm");
const crateDir = process.env.PAIMON_RT_KERNEL_BUILD_DIR
  ? copyCrate(sourceDir, join(resolve(process.env.PAIMON_RT_KERNEL_BUILD_DIR), "wasm"))
  : sourceDir;
const moduleOut = join(root, "src", "kernel", "wasm-module.ts");
const check = process.argv.includes("--check");

const home = process.env.HOME ?? "/root";
const pick = (env, debian) => process.env[env] ?? (existsSync(debian) ? debian : env.toLowerCase());
const cargo = pick("CARGO", "/usr/bin/cargo");
const rustc = pick("RUSTC", "/usr/bin/rustc");
const toolsBin = join(process.env.PAIMON_RT_TOOLS ?? join(home, ".cache", "paimon-rt-tools"), "bin");

const env = {
  ...process.env,
  RUSTC: rustc,
  // wasm-pack runs `cargo` and `wasm-bindgen` by name: Debian's cargo and the cached tools come first.
  PATH: [toolsBin, dirname(cargo), process.env.PATH ?? ""].join(delimiter),
  RUSTC_BOOTSTRAP: "1",
  CARGO_UNSTABLE_BUILD_STD: "std,panic_abort",
  // Paths must not leak into the module, or builds from two checkouts would differ. The last
  // matching prefix wins: the crate's own comes last, for a build directory under $HOME.
  RUSTFLAGS: [`--remap-path-prefix=${home}=/home`, `--remap-path-prefix=${crateDir}=/paimon-rt/wasm`]
    .concat(process.env.RUSTFLAGS ? [process.env.RUSTFLAGS] : [])
    .join(" "),
};
const run = (cmd, args) => execFileSync(cmd, args, { cwd: crateDir, env, stdio: "inherit" });

if (!existsSync(join(crateDir, "Cargo.lock"))) run(cargo, ["generate-lockfile"]);
env.PAIMON_RT_KERNEL_SOURCE_HASH = kernelSourceHash(crateDir);

// The core module: wasm-pack (cargo build + wasm-bindgen); its JS glue is not used, the
// loader in src/kernel/wasm.ts instantiates the module itself. The path comes before `--`
// (wasm-pack would read cargo flags as the crate path), which is why build-std is an env var.
const packDir = join(crateDir, "target", "wasm-pack");
run(requireTool("wasm-pack"), ["build", ".", "--target", "web", "--release", "--no-pack", "--out-dir", packDir, "--out-name", "paimon_rt_kernels", "--", "--locked"]);
const built = readFileSync(join(packDir, "paimon_rt_kernels_bg.wasm"));

run(cargo, ["build", "--release", "--locked", "--target", "wasm32-unknown-unknown", "-p", "paimon-rt-kernels-component"]);
const componentCore = readFileSync(join(crateDir, "target", "wasm32-unknown-unknown", "release", "paimon_rt_kernels_component.wasm"));
const component = Buffer.from(await componentNew(componentCore));

const moduleSource =
  "// Generated by scripts/build-wasm.mjs from wasm/ — do not edit.\n" +
  `// The kernel module itself is wasm/pkg/paimon_rt_kernels.wasm (${built.length} bytes), loaded by src/kernel/wasm-source.ts.\n` +
  "/** SHA-256 of the crate sources the kernel module was built from (its paimon_rt_source_hash section). */\n" +
  `export const KERNEL_SOURCE_HASH = "${env.PAIMON_RT_KERNEL_SOURCE_HASH}";\n`;

if (check) {
  const stale = [];
  if (!existsSync(wasmOut) || !readFileSync(wasmOut).equals(built)) stale.push(wasmOut);
  if (!existsSync(moduleOut) || readFileSync(moduleOut, "utf8") !== moduleSource) stale.push(moduleOut);
  if (!existsSync(componentOut) || !readFileSync(componentOut).equals(component)) stale.push(componentOut);
  if (stale.length > 0) {
    console.error(`stale kernel artifacts (run npm run build:wasm and commit): ${stale.join(", ")}`);
    process.exit(1);
  }
  console.log(`kernel artifacts are up to date (core ${built.length} bytes, component ${component.length} bytes)`);
} else {
  mkdirSync(dirname(wasmOut), { recursive: true });
  writeFileSync(wasmOut, built);
  writeFileSync(moduleOut, moduleSource);
  writeFileSync(componentOut, component);
  console.log(`wrote ${wasmOut} (${built.length} bytes), ${moduleOut} and ${componentOut} (${component.length} bytes)`);
}

/** Mirrors the crate's sources (everything but target/ and pkg/) into `to`, keeping `to`'s target/. */
function copyCrate(from, to) {
  const skip = new Set(["target", "pkg"]);
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(to)) if (!skip.has(name)) rmSync(join(to, name), { recursive: true, force: true });
  for (const name of readdirSync(from)) if (!skip.has(name)) cpSync(join(from, name), join(to, name), { recursive: true });
  return to;
}

/** A tool from the cache dir or PATH, or a clear message on how to install it. */
function requireTool(name) {
  for (const dir of env.PATH.split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  console.error(
    `${name} not found on PATH or in ${toolsBin}: install it with\n` +
      `  RUSTC=${rustc} ${cargo} install --locked --root ${dirname(toolsBin)} wasm-pack@0.15.1 wasm-bindgen-cli@0.2.130`,
  );
  process.exit(1);
}
