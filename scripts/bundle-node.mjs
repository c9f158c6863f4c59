// Bundles the package's server-runtime entry points (`paimon-rt` and `paimon-rt/edge` under the
// "node" export condition, which Node, Deno and Bun use, and the `paimon-rt` bin) from dist/ into
// dist/node with esbuild: a few ES module chunks instead of ~300 files.
//
// Why: Node's ES module loader costs ~0.4 ms per file (resolve, stat, read, compile), so importing
// the unbundled dist/index.js took ~215 ms against ~145 ms for this bundle (apache-arrow's own
// ~90 ms included in both; measured on the 2-core CI machine kind) — every CLI command and every
// serverless cold start pays it. Browser and edge bundlers keep resolving the unbundled dist/
// (they split and tree-shake it themselves, see the query-page budget test).
//
// Every bare import stays external (apache-arrow above all: the Arrow classes a user passes in
// must be the ones we check against), and so do node: builtins. One build with every entry
// shares its chunks, so the two entries use one copy of each class (PaimonError, Table, ...).
// The three modules the library loads through computed specifiers (so that browser bundlers never
// follow them: the page worker, the compaction workers, the local file system) are entries with
// their own file names beside the chunks, where those specifiers resolve.
import { buildSync } from "esbuild";
import { rmSync } from "node:fs";
import { join } from "node:path";

/** The entries of dist/node: output name → module of dist/. */
export const NODE_ENTRIES = {
  index: "index.js",
  edge: "edge.js",
  cli: "cli/main.js",
  // loaded by computed specifiers relative to the importing chunk (all chunks sit in dist/node)
  "page-worker": "format/page-worker.js",
  "compact-workers": "write/compact-workers.js",
  "local-file-io": "fs/local-file-io.js",
};

/** Bundles `distDir`'s entries into `distDir`/node (synchronously: tests build dist/ in a beforeAll); returns the bytes written. */
export function bundleNode(distDir) {
  const outdir = join(distDir, "node");
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(Object.entries(NODE_ENTRIES).map(([name, file]) => [name, join(distDir, file)]));
  const result = buildSync({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    chunkNames: "chunk-[hash]",
    // keep every import of dist/ as the unbundled package has it: the package.json "sideEffects"
    // list is for bundlers of the browser/edge entry (index.js imports the flat decoder only to
    // start loading it with the library: "side-effect free", yet wanted here)
    ignoreAnnotations: true,
    metafile: true,
    logLevel: "warning",
  });
  return Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
}
