import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** Every module reachable from `entry` through relative imports, with its bare imports (type-only imports are erased and not followed). */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const source = readFileSync(file, "utf8");
    const specifiers = [...source.matchAll(/(?:import|export)\s(?!type\s)[^'"]*?from\s*["']([^"']+)["']|(?<!typeof )import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]);
    graph.set(file, specifiers.filter((s) => !s.startsWith(".")));
    for (const s of specifiers.filter((s) => s.startsWith("."))) pending.push(resolve(dirname(file), s.replace(/\.js$/, ".ts")));
  }
  return graph;
}

describe("paimon-rt/edge", () => {
  it("reaches no node: module and no Node-only package", () => {
    const graph = importGraph(resolve(__dirname, "../src/edge.ts"));
    const offending = [...graph].flatMap(([file, bare]) => bare.filter((s) => s.startsWith("node:") || s === "fs" || s === "path").map((s) => `${file} imports ${s}`));
    expect(offending).toEqual([]);
    expect(graph.size).toBeGreaterThan(3);
  });
});
