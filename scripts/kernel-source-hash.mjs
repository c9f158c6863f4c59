// SHA-256 over the kernel crate's sources (Cargo.toml, Cargo.lock, src/**/*.rs),
// each as "<path>\0<content>\0" in path order. Embedded in the built module so a
// test can tell when the committed wasm no longer matches the sources.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

function listRust(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listRust(path);
    return name.endsWith(".rs") ? [path] : [];
  });
}

export function kernelSourceFiles(crateDir) {
  const files = ["Cargo.toml", "Cargo.lock"].map((f) => join(crateDir, f)).filter((f) => existsSync(f));
  return [...files, ...listRust(join(crateDir, "src"))]
    .map((f) => relative(crateDir, f).split(sep).join("/"))
    .sort();
}

export function kernelSourceHash(crateDir) {
  const hash = createHash("sha256");
  for (const file of kernelSourceFiles(crateDir)) {
    // Normalise line endings so a checkout with CRLF hashes the same.
    const content = readFileSync(join(crateDir, file), "utf8").replace(/\r\n/g, "\n");
    hash.update(file + "\0" + content + "\0");
  }
  return hash.digest("hex");
}
