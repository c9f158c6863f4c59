// Snapshots of a directory's files, to show exactly what an operation wrote or that it changed nothing.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file under `root` (path relative to it → content as base64); empty when `root` does not exist. */
export function fileTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p).toString("base64"));
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}
