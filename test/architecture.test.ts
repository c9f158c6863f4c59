// The layering of src/ (README "Layout"): no module imports itself back through a chain of imports
// (type imports included), and the base layers never import the layers built on them.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const srcRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** Relative imports of every module (value and type imports, re-exports), as paths relative to src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(srcRoot)) {
    const text = readFileSync(file, "utf8");
    const deps: string[] = [];
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gms)) {
      deps.push(relative(srcRoot, normalize(join(dirname(file), m[1]))).replace(/\.js$/, ".ts"));
    }
    graph.set(relative(srcRoot, file), deps);
  }
  return graph;
}

/** Strongly connected components with more than one module (Tarjan). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe("source layering", () => {
  const graph = importGraph();

  it("has no import cycles, type imports included", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("finds a cycle when there is one (the checker itself)", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(importCycles(g)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("keeps the base layers (spec, fs, format, kernel, arrow, predicate, fileindex) below table, scan, read, write, commit, realtime and catalog", () => {
    const base = ["spec/", "fs/", "format/", "kernel/", "arrow/", "predicate/", "fileindex/"];
    const upper = ["table/", "scan/", "read/", "write/", "commit/", "realtime/", "catalog/", "cli/", "explorer/"];
    // Option-value syntax (memory sizes) is parsed in one place, table/options.ts, which imports no upper layer.
    const allowed = new Set(["table/options.ts", "table/option-validation.ts"]);
    const violations: string[] = [];
    for (const [from, deps] of graph) {
      if (!base.some((b) => from.startsWith(b))) continue;
      for (const to of deps) if (upper.some((u) => to.startsWith(u)) && !allowed.has(to)) violations.push(`${from} -> ${to}`);
    }
    expect(violations).toEqual([]);
    for (const leaf of allowed) for (const to of graph.get(leaf) ?? []) expect(upper.some((u) => to.startsWith(u)) && !allowed.has(to)).toBe(false);
  });

  it("keeps the facade out of the layers below it: only catalog, cli and the entry points import table/table.ts", () => {
    const importers = [...graph].filter(([, deps]) => deps.includes("table/table.ts")).map(([f]) => f);
    expect(importers.filter((f) => !/^(catalog|cli|explorer)\/|^(index|edge)\.ts$/.test(f))).toEqual([]);
  });
});
