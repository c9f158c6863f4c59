// The browser examples, built in an app directory that installed paimon-rt (dist/ built from src)
// as the README shows. examples/vite-browser, built with vite:
// * the bundle budget (issue 12): the JS a query-only page loads (the entry chunk and every chunk it
//   imports statically, minified, gzip level 9, apache-arrow included) is at most 150 KB and holds
//   no write, commit or real-time module (those stay in chunks imported on first write/commit);
//   the wasm assets are listed with their sizes, the kernel as its own file (not base64 in the JS);
//   the same app awaiting at its module's top level (which makes rolldown skip its chunk merging)
//   is built too and its size reported (the README gives both);
// * the built app in headless Chromium reads the fixture warehouse over HTTP and shows exactly the
//   rows Node reads.
// examples/esbuild-browser, built with the README's esbuild command: `.wasm` imports as files
// beside the bundle (`--loader:.wasm=file`), handed to init() as URLs: nothing copied by hand, and
// the page shows the same rows.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build, type Rollup } from "vite";
import { Catalog, col } from "../../src/edge.js";
import { chromiumFor } from "../hosts/chromium-path.js";
import { writeHostFixture } from "../hosts/fixture.js";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { copyExample, installPackage, REPO, run } from "../support/installed-package.js";

const BUDGET_BYTES = 150 * 1024;
const executablePath = chromiumFor("browser examples in Chromium");
/** The README's build command for examples/esbuild-browser (esbuild is a devDependency). */
const ESBUILD = join(REPO, "node_modules", ".bin", "esbuild");
const ESBUILD_ARGS = ["main.js", "--bundle", "--format=esm", "--minify", "--outdir=dist", "--loader:.wasm=file"];

let dir: string;
let app: string;
let outputs: Array<Rollup.OutputChunk | Rollup.OutputAsset>;
/** The build of the same app with its work awaited at the module's top level. */
let topLevelAwaitOutputs: Array<Rollup.OutputChunk | Rollup.OutputAsset>;
let esbuildApp: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "paimon-rt-vite-example-"));
  installPackage(dir);
  app = copyExample(dir, "vite-browser");
  // `npx vite build` in the example directory (its vite.config.js), collecting the output too
  const result = (await build({ root: app, logLevel: "silent" })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  outputs = (Array.isArray(result) ? result : [result]).flatMap((o) => o.output);
  const tlaApp = join(dir, "vite-browser-top-level-await");
  cpSync(app, tlaApp, { recursive: true });
  const main = readFileSync(join(tlaApp, "main.js"), "utf8");
  expect(main).toContain("\nmain().catch(");
  writeFileSync(join(tlaApp, "main.js"), main.replace("\nmain().catch(", "\nawait main().catch("));
  const tlaResult = (await build({ root: tlaApp, logLevel: "silent" })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  topLevelAwaitOutputs = (Array.isArray(tlaResult) ? tlaResult : [tlaResult]).flatMap((o) => o.output);
  esbuildApp = copyExample(dir, "esbuild-browser");
  await run(ESBUILD, ESBUILD_ARGS, esbuildApp);
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const chunks = (of = outputs) => of.filter((o): o is Rollup.OutputChunk => o.type === "chunk");

/** The chunks a page loading the entry fetches before running it: the entry and its static imports, transitively. */
function loadedChunks(of = outputs): Rollup.OutputChunk[] {
  const byName = new Map(chunks(of).map((c) => [c.fileName, c]));
  const entry = chunks(of).find((c) => c.isEntry)!;
  const seen = new Map<string, Rollup.OutputChunk>();
  const queue = [entry.fileName];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    const chunk = byName.get(name)!;
    seen.set(name, chunk);
    queue.push(...chunk.imports);
  }
  return [...seen.values()];
}

/** A module id as a path inside the installed package (dist/…) or a package name (node_modules). */
function moduleName(id: string): string {
  const inPackage = id.split("/node_modules/paimon-rt/")[1];
  if (inPackage) return inPackage;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id);
  return pkg ? pkg[1]! : basename(id);
}

describe("browser examples", () => {
  it("vite: the JS a query-only page loads is at most 150 KB gzip with apache-arrow, without write, commit or real-time code", () => {
    const loaded = loadedChunks();
    const gzipOf = (cs: Rollup.OutputChunk[]) => cs.reduce((sum, c) => sum + gzipSync(c.code, { level: 9 }).length, 0);
    const gzip = gzipOf(loaded);
    const tla = loadedChunks(topLevelAwaitOutputs);
    const minified = loaded.reduce((sum, c) => sum + Buffer.byteLength(c.code), 0);
    const modules = new Set(loaded.flatMap((c) => Object.keys(c.modules).map(moduleName)));
    const wasm = outputs.filter((o) => o.fileName.endsWith(".wasm")).map((o) => ({ file: o.fileName, bytes: (o as Rollup.OutputAsset).source.length }));
    console.log(
      `query-only page JS: ${(minified / 1024).toFixed(1)} KB minified, ${(gzip / 1024).toFixed(1)} KB gzip in ${loaded.length} chunks; ` +
        `lazy chunks: ${chunks().length - loaded.length}; with a top-level await in the app: ${(gzipOf(tla) / 1024).toFixed(1)} KB gzip in ${tla.length} chunks; wasm assets: ${wasm.map((w) => `${w.file} ${(w.bytes / 1024).toFixed(1)} KB`).join(", ")}`,
    );
    expect(gzip).toBeLessThanOrEqual(BUDGET_BYTES);
    expect(modules.has("apache-arrow")).toBe(true);
    expect(modules.has("dist/read/table-read.js")).toBe(true);
    // Of write/, commit/ and realtime/ only: the TableCommit class
    // (its implementation is imported on the first commit) and the real-time hook slots.
    expect([...modules].filter((m) => /^dist\/(write|commit|realtime)\//.test(m)).sort()).toEqual(["dist/commit/table-commit.js", "dist/realtime/hooks.js"]);
    for (const writeOnly of ["dist/write/table-write.js", "dist/commit/file-store-commit.js", "dist/realtime/context.js", "dist/fs/s3-file-io.js", "@bokuweb/zstd-wasm", "dist/spec/avro-write.js", "dist/spec/manifest-write.js", "fflate"]) {
      expect(chunks().some((c) => Object.keys(c.modules).some((id) => moduleName(id) === writeOnly)), writeOnly).toBe(true); // bundled, but lazily
      expect(modules.has(writeOnly), writeOnly).toBe(false);
    }
    // the kernel is an asset of its own, byte for byte the package's file, and not inlined
    const kernel = outputs.find((o) => /^assets\/paimon_rt_kernels-[\w-]+\.wasm$/.test(o.fileName)) as Rollup.OutputAsset;
    expect(Buffer.compare(Buffer.from(kernel.source as Uint8Array), readFileSync(join(REPO, "wasm", "pkg", "paimon_rt_kernels.wasm")))).toBe(0);
    expect(wasm.map((w) => w.file.replace(/-[\w-]+\.wasm$/, ".wasm")).sort()).toEqual(["assets/paimon_rt_kernels.wasm", "assets/parquet_wasm_bg.wasm", "assets/zstd.wasm"]);
    expect(loaded.some((c) => c.code.includes("data:application/wasm"))).toBe(false);
  });

  describe.skipIf(executablePath === null)("in headless Chromium", () => {
    let server: StaticServer;
    let browser: import("playwright-core").Browser;

    beforeAll(async () => {
      await writeHostFixture(join(dir, "wh"));
      const routes: Record<string, { body: string | Uint8Array; type: string }> = {};
      for (const o of outputs) {
        const type = o.fileName.endsWith(".html") ? "text/html" : o.fileName.endsWith(".wasm") ? "application/wasm" : "text/javascript";
        routes[`/${o.fileName}`] = { body: o.type === "chunk" ? o.code : (o.source as string | Uint8Array), type };
      }
      // the esbuild-style app under /esbuild/ (its page, dist/main.js and the wasm files beside it)
      routes["/esbuild/index.html"] = { body: readFileSync(join(esbuildApp, "index.html")), type: "text/html" };
      for (const name of readdirSync(join(esbuildApp, "dist"))) {
        routes[`/esbuild/dist/${name}`] = { body: readFileSync(join(esbuildApp, "dist", name)), type: name.endsWith(".wasm") ? "application/wasm" : "text/javascript" };
      }
      server = await startStaticServer(dir, routes);
      const { chromium } = await import("playwright-core");
      browser = await chromium.launch({ executablePath: executablePath!, args: ["--no-sandbox", "--headless=new"] });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    /** The rows the example query returns in Node. */
    async function nodeRows(): Promise<Array<{ id: string; name: string }>> {
      const table = await (await Catalog.open(join(dir, "wh"))).getTable("db.app");
      const filter = col("id").gt(3);
      const plan = await table.newScan({ filter }).plan();
      const rows = (await table.newRead({ projection: ["id", "name"], filter, predicateFilter: true }).toArrow(plan.splits)).toArray().map((r) => ({ id: String(r.id), name: r.name }));
      expect(rows.length).toBeGreaterThan(0);
      return rows;
    }

    /** Opens `page` of the server with the fixture warehouse and returns the rows it shows. */
    async function shownRows(path: string): Promise<unknown> {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${server.base}${path}?warehouse=${encodeURIComponent(`${server.base}/files/wh`)}&table=db.app`);
      await page.waitForFunction(() => document.getElementById("out")?.textContent !== "loading…", undefined, { timeout: 60_000 });
      const text = (await page.textContent("#out"))!;
      await page.close();
      expect(errors).toEqual([]);
      return JSON.parse(text);
    }

    const wasmRequests = (prefix: string) =>
      server.requests.filter((r) => r.path.startsWith(prefix) && r.path.endsWith(".wasm")).map((r) => r.path.replace(/-[\w-]+\.wasm$/, ".wasm")).sort();

    it("vite: shows exactly the rows of the same query in Node", async () => {
      expect(await shownRows("/index.html")).toEqual(await nodeRows());
      // the page fetched the kernel and parquet-wasm's module as the files vite emitted
      expect(wasmRequests("/assets/")).toEqual(["/assets/paimon_rt_kernels.wasm", "/assets/parquet_wasm_bg.wasm"]);
    });

    it("esbuild (.wasm imports as files, init with their URLs): shows exactly the rows of the same query in Node", async () => {
      expect(readdirSync(join(esbuildApp, "dist")).map((n) => n.replace(/-[\w-]+\.wasm$/, ".wasm")).sort()).toEqual(["main.js", "paimon_rt_kernels.wasm", "parquet_wasm_bg.wasm"]);
      expect(await shownRows("/esbuild/index.html")).toEqual(await nodeRows());
      expect(wasmRequests("/esbuild/")).toEqual(["/esbuild/dist/paimon_rt_kernels.wasm", "/esbuild/dist/parquet_wasm_bg.wasm"]);
    });
  });
});
