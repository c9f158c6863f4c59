// examples/cloudflare-worker and examples/deno, run against the fixture warehouse served over HTTP
// from 127.0.0.1, in an app directory that installed paimon-rt (dist/ built from src):
// * the Worker is bundled the way wrangler does it (one ES module; `.wasm` imports stay imports of
//   compiled wasm modules; `new URL(…, import.meta.url)` left alone) and run in workerd through
//   miniflare with wrangler.jsonc's entry, compatibility date and vars (WAREHOUSE pointed here);
// * the Deno script is run as the README shows with the deno binary (the CI installs it from npm;
//   skipped, saying why, when absent, unless PAIMON_RT_REQUIRE_HOSTS=1).
// Both must print exactly the rows Node reads. And Node, Deno and Bun resolve both entries of the
// installed package to the bundle dist/node, with one copy of its classes.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build, type Rollup } from "vite";
import { Catalog, col } from "../../src/edge.js";
import { keepWasmExternal } from "../../scripts/bundle-explorer.mjs";
import { writeHostFixture } from "../hosts/fixture.js";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { copyExample, installPackage, run, runtimeBinary } from "../support/installed-package.js";

let dir: string;
let server: StaticServer;
let expected: Array<{ id: string; name: string }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "paimon-rt-examples-"));
  installPackage(dir);
  await writeHostFixture(join(dir, "wh"));
  server = await startStaticServer(dir);
  const table = await (await Catalog.open(join(dir, "wh"))).getTable("db.app");
  const filter = col("id").gt(3);
  const plan = await table.newScan({ filter }).plan();
  expected = (await table.newRead({ projection: ["id", "name"], filter, predicateFilter: true }).toArrow(plan.splits)).toArray().map((r) => ({ id: String(r.id), name: r.name }));
}, 240_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const warehouse = () => `${server.base}/files/wh`;

/** wrangler.jsonc: JSON with // comments (none of its strings contain "//" here but the URL's, which sits after a quote). */
function readWranglerConfig(app: string): { main: string; compatibility_date: string; compatibility_flags?: string[]; vars?: Record<string, string> } {
  const text = readFileSync(join(app, "wrangler.jsonc"), "utf8");
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, ""));
}

/** One ES module of the worker and the wasm files it imports, as wrangler's bundling produces. */
async function bundleWorker(app: string, main: string): Promise<{ code: string; wasm: Map<string, string> }> {
  const require = createRequire(join(app, "package.json"));
  const wasm = new Map<string, string>(); // module name -> file
  const wasmModules = {
    name: "wasm-modules",
    enforce: "pre" as const,
    resolveId(source: string) {
      if (!source.endsWith(".wasm")) return null;
      const file = require.resolve(source);
      wasm.set(basename(file), file);
      return { id: `./${basename(file)}`, external: true };
    },
  };
  const result = (await build({
    configFile: false,
    logLevel: "silent",
    root: app,
    plugins: [wasmModules, keepWasmExternal],
    build: { write: false, minify: true, target: "es2022", lib: { entry: join(app, main), formats: ["es"], fileName: "worker" }, rollupOptions: { output: { codeSplitting: false } } },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const chunk = (Array.isArray(result) ? result : [result]).flatMap((o) => o.output).find((o): o is Rollup.OutputChunk => o.type === "chunk" && o.isEntry)!;
  return { code: chunk.code, wasm };
}

describe("examples/cloudflare-worker in workerd (miniflare, wrangler.jsonc's settings)", () => {
  it("answers with exactly the rows Node reads, and a second request reuses the initialised isolate", async () => {
    const { Miniflare } = await import("miniflare");
    const app = copyExample(dir, "cloudflare-worker");
    const config = readWranglerConfig(app);
    expect(config.main).toBe("src/worker.js");
    const { code, wasm } = await bundleWorker(app, config.main);
    expect([...wasm.keys()].sort()).toEqual(["paimon_rt_kernels.wasm", "parquet_wasm_bg.wasm"]);
    const mf = new Miniflare({
      modules: [
        { type: "ESModule", path: "worker.mjs", contents: code },
        ...[...wasm].map(([name, file]) => ({ type: "CompiledWasm" as const, path: name, contents: readFileSync(file) })),
      ],
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags ?? [],
      bindings: { ...config.vars, WAREHOUSE: warehouse() },
    });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await mf.dispatchFetch("http://worker/?table=db.app&min_id=3");
        const text = await res.text();
        expect(res.status, text).toBe(200);
        expect(JSON.parse(text)).toEqual(expected);
      }
    } finally {
      await mf.dispose();
    }
  }, 120_000);
});

const deno = runtimeBinary("deno", "Deno example");

describe.skipIf(deno === null)("examples/deno", () => {
  it("deno run --allow-read --allow-net main.ts <warehouse> prints exactly the rows Node reads", async () => {
    const app = copyExample(dir, "deno");
    const stdout = await run(deno!, ["run", "--allow-read", "--allow-net", "main.ts", warehouse()], app);
    expect(JSON.parse(stdout)).toEqual(expected);
  }, 150_000);
});

// Node, Deno and Bun resolve the installed package through its "node" export condition to the
// bundle (dist/node, scripts/bundle-node.mjs), and both entries share its classes.
describe("the installed package in server runtimes", () => {
  const RESOLVE = `
const [lib, edge] = [await import("paimon-rt"), await import("paimon-rt/edge")];
const at = "/node_modules/paimon-rt/";
const rel = (s) => (s.includes(at) ? s.slice(s.lastIndexOf(at) + at.length) : s);
console.log(JSON.stringify({ index: rel(import.meta.resolve("paimon-rt")), edge: rel(import.meta.resolve("paimon-rt/edge")), sharedClasses: lib.PaimonError === edge.PaimonError && lib.Catalog === edge.Catalog }));
`;
  const runtimes: Array<[string, string | null, string[]]> = [
    ["node", process.execPath, []],
    ["deno", deno, ["run", "--allow-read", "--allow-env"]],
    ["bun", runtimeBinary("bun", "Bun package resolution"), []],
  ];
  for (const [name, binary, args] of runtimes) {
    it.skipIf(binary === null)(`${name} imports dist/node for both entries`, async () => {
      const app = mkdtempSync(join(dir, `resolve-${name}-`));
      writeFileSync(join(app, "package.json"), '{ "type": "module" }\n');
      mkdirSync(join(app, "node_modules"));
      for (const pkg of ["paimon-rt", "apache-arrow"]) symlinkSync(realpathSync(join(dir, "node_modules", pkg)), join(app, "node_modules", pkg));
      writeFileSync(join(app, "resolve.mjs"), RESOLVE);
      const stdout = await run(binary!, [...args, "resolve.mjs"], app);
      expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ index: "dist/node/index.js", edge: "dist/node/edge.js", sharedClasses: true });
    }, 60_000);
  }
});
