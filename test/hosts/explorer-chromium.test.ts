// The `paimon-rt serve` explorer in headless Chromium: `startServe` (what the command runs) serves
// the fixture warehouse and the explorer bundled as the build bundles it (scripts/bundle-explorer.mjs);
// the page lists the tables, shows schema, options and snapshots, and runs queries in the browser.
// The rows in the DOM and the query's split/file/row counts must be exactly Node's (queryTable on
// the local directory). A screenshot of the result is saved and checked to be a PNG.
import { chromiumFor } from "./chromium-path.js";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleExplorer } from "../../scripts/bundle-explorer.mjs";
import { cellText } from "../../src/cli/format.js";
import { queryTable } from "../../src/cli/read.js";
import { type FileServer, startServe } from "../../src/cli/serve.js";
import { Table } from "../../src/table/table.js";
import { writeHostFixture } from "./fixture.js";

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

const executablePath = chromiumFor("explorer");

describe.skipIf(executablePath === null)("paimon-rt serve explorer in headless Chromium", () => {
  let dir: string;
  let server: FileServer;
  let browser: import("playwright-core").Browser;
  let page: import("playwright-core").Page;
  const pageErrors: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "paimon-rt-explorer-"));
    await writeHostFixture(join(dir, "wh"));
    await bundleExplorer(join(dir, "explorer"));
    server = await startServe({ warehouse: join(dir, "wh"), port: 0, explorerDir: join(dir, "explorer") });
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: executablePath!, args: ["--no-sandbox", "--headless=new"] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("request", (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${server.base}/`);
    await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Clicks a table in the navigation and waits until the page has shown all of it: the selected
   * button is marked last, after the snapshot history (read after the name, schema and options).
   */
  async function showTable(identifier: string) {
    await page.click(`nav button[data-table='${identifier}']`);
    await page.waitForFunction((id) => (document.querySelector("nav button.selected") as HTMLElement | null)?.dataset.table === id, identifier);
  }

  /** Header and body cells of a table element, as text. */
  const tableText = (id: string) =>
    page.$eval(`#${id}`, (t) => Array.from((t as HTMLTableElement).rows, (r) => Array.from(r.cells, (c) => c.textContent ?? "")));

  /** What the page must show for a query: Node's rows and counts for the same query on the directory. */
  async function nodeQuery(identifier: string, query: { where?: string; select?: string[]; snapshot?: number }) {
    const latest = await Table.open(join(dir, "wh", `${identifier.split(".")[0]}.db`, identifier.split(".")[1]!));
    const table = query.snapshot === undefined ? latest : await latest.atSnapshot(query.snapshot);
    const { fields, rows, plan } = await queryTable(table, query);
    const files = plan.splits.reduce((n, s) => n + s.files.length, 0);
    const fileRows = plan.splits.reduce((n, s) => n + s.files.reduce((m, f) => m + Number(f.rowCount), 0), 0);
    return {
      table: [fields.map((f) => f.name), ...rows.map((r) => r.map(cellText))],
      stats: `snapshot ${plan.snapshotId}: ${count(plan.splits.length, "split")}, ${count(files, "data file")} (${count(fileRows, "row")}) read, ${count(rows.length, "row")} shown`,
    };
  }

  async function runQuery(query: { select?: string; where?: string; snapshot?: string; system?: string }) {
    await page.selectOption("#query [name=system]", query.system ?? "");
    await page.fill("#query [name=select]", query.select ?? "");
    await page.fill("#query [name=where]", query.where ?? "");
    await page.selectOption("#query [name=snapshot]", query.snapshot ?? "");
    await page.$eval("#query-stats", (e) => (e.textContent = ""));
    await page.click("#query button[type=submit]");
    await page.waitForFunction(() => {
      const stats = document.getElementById("query-stats")?.textContent ?? "";
      return stats.startsWith("snapshot") || !document.getElementById("query-error")!.hidden;
    });
    return { table: await tableText("rows"), stats: await page.textContent("#query-stats"), error: await page.$eval("#query-error", (e) => ((e as HTMLElement).hidden ? null : e.textContent)) };
  }

  it("lists the databases and tables of the warehouse", async () => {
    const nav = await page.$$eval("nav h3, nav button", (els) => els.map((e) => `${e.tagName}:${e.textContent}`));
    expect(nav).toEqual(["H3:db", "BUTTON:app", "BUTTON:evolved", "BUTTON:pk"]);
  });

  it("shows a table's schema, options and snapshot history", async () => {
    await showTable("db.app");
    expect(await page.textContent("#keys")).toBe("append table (no primary key) · partitioned by: dt · schema 0");
    expect(await tableText("schema")).toEqual([
      ["id", "name", "type", "description"],
      ["0", "id", "BIGINT", ""],
      ["1", "name", "STRING", ""],
      ["2", "dt", "STRING", ""],
    ]);
    expect(await tableText("options")).toEqual([
      ["key", "value"],
      ["bucket", "2"],
      ["bucket-key", "id"],
    ]);
    const snapshots = await tableText("snapshots");
    expect(snapshots[0]).toEqual(["id", "schema", "kind", "committed", "total rows", "delta rows", "commit user"]);
    expect(snapshots.slice(1).map((r) => [r[0], r[1], r[2], r[4], r[5], r[6]])).toEqual([
      ["1", "0", "APPEND", "4", "4", "fixture"],
      ["2", "0", "APPEND", "7", "3", "fixture"],
    ]);
    expect(await page.$$eval("#query [name=snapshot] option", (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(["", "2", "1"]);
  });

  it("runs a filtered, projected query and shows exactly Node's rows and counts; saves a screenshot", async () => {
    const result = await runQuery({ select: "id,name", where: "dt = '2024-01-02' AND id > 3" });
    expect(result.error).toBe(null);
    const expected = await nodeQuery("db.app", { select: ["id", "name"], where: "dt = '2024-01-02' AND id > 3" });
    expect(result.table[0]).toEqual(["id", "name"]);
    expect(result.table.slice(1).sort()).toEqual([
      ["4", "a4"],
      ["6", "b6"],
    ]);
    expect(result.table).toEqual(expected.table);
    expect(result.stats).toBe(expected.stats);
    expect(result.stats).toMatch(/^snapshot 2: \d+ splits?, \d+ data files? \(\d+ rows?\) read, 2 rows shown$/);

    const shot = join(process.env.PAIMON_RT_SCREENSHOT_DIR ?? dir, "explorer.png");
    await page.screenshot({ path: shot, fullPage: true });
    const png = readFileSync(shot);
    expect(png.length).toBeGreaterThan(1000);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    console.log(`explorer screenshot: ${shot} (${png.length} bytes)`);
  });

  it("reads the table's system tables ($snapshots, $partitions at snapshot 1) as Node does", async () => {
    const snapshots = await runQuery({ system: "snapshots", select: "snapshot_id,commit_kind,total_record_count", where: "snapshot_id >= 1" });
    expect(snapshots.error).toBe(null);
    expect(snapshots.table).toEqual([
      ["snapshot_id", "commit_kind", "total_record_count"],
      ["1", "APPEND", "4"],
      ["2", "APPEND", "7"],
    ]);
    expect(snapshots.stats).toBe("snapshot none: 1 split, 0 data files (0 rows) read, 2 rows shown");
    const partitions = await runQuery({ system: "partitions", select: "partition,record_count", snapshot: "1" });
    const latest = await Table.open(join(dir, "wh", "db.db", "app"));
    const { rows } = await queryTable(await (await latest.atSnapshot(1)).systemTable("partitions"), { select: ["partition", "record_count"] });
    expect(partitions.table).toEqual([["partition", "record_count"], ...rows.map((r) => r.map(cellText))]);
    expect(rows.reduce((n, r) => n + Number(r[1]), 0)).toBe(4);
  });

  it("time travels: the same query at snapshot 1 shows only that snapshot's rows", async () => {
    const result = await runQuery({ select: "id,name,dt", where: "dt = '2024-01-02'", snapshot: "1" });
    expect(result.table.slice(1).sort()).toEqual([
      ["3", "a3", "2024-01-02"],
      ["4", "a4", "2024-01-02"],
    ]);
    const expected = await nodeQuery("db.app", { select: ["id", "name", "dt"], where: "dt = '2024-01-02'", snapshot: 1 });
    expect(result).toEqual({ table: expected.table, stats: expected.stats, error: null });
  });

  it("merges a primary-key table with deletion vectors, and reads an older schema at its snapshot", async () => {
    await showTable("db.pk");
    const pk = await runQuery({});
    expect(pk.table.slice(1).sort()).toEqual([
      ["1", "p1", "x"],
      ["2", "p2-updated", "x"],
      ["3", "p3", "y"],
      ["5", "p5", "y"],
    ]);
    const expectedPk = await nodeQuery("db.pk", {});
    expect(pk).toEqual({ table: expectedPk.table, stats: expectedPk.stats, error: null });

    await showTable("db.evolved");
    const old = await runQuery({ snapshot: "1" });
    expect(old.table).toEqual([
      ["id", "name", "dt"],
      ["1", "e1", "x"],
      ["2", "e2", "x"],
    ]);
    const latest = await runQuery({ select: "id,label,score" });
    expect(latest.table[0]).toEqual(["id", "label", "score"]);
    expect(latest.table.slice(1).sort()).toEqual([
      ["1", "e1", "null"],
      ["2", "e2", "null"],
      ["3", "e3", "30"],
    ]);
  });

  it("shows a bad filter's PaimonError instead of rows", async () => {
    const result = await runQuery({ where: "nope = 1" });
    expect(result.table).toEqual([]);
    expect(result.error).toMatch(/^INVALID_ARGUMENT: /);
    expect(result.error).toContain("nope");
    expect(pageErrors).toEqual([]);
  });

  it("loads only the page, its bundle and its chunks, the parquet chunk and the two wasm modules besides warehouse files", () => {
    const assets = [...new Set(requested.filter((p) => !p.startsWith("/warehouse/")))].map((p) => p.replace(/-[\w-]{8}\.js$/, "-<hash>.js")).sort();
    expect(assets.filter((a) => !a.endsWith("-<hash>.js"))).toEqual(["/", "/explorer.js", "/kernels.wasm", "/parquet.wasm"]);
    expect(assets).toContain("/parquet_wasm-<hash>.js");
    // the chunks only writes, commits, maintenance, the real-time layer and S3 import are never
    // fetched; the zstd module (index.web) is not among them: the flat Parquet decoder
    // decompresses zstd pages with it
    const writeOnly = /^\/(table-write|file-store-commit|commit-operations|writer|s3-warehouse|commit|expire|orphan-files|rollback)-<hash>\.js$/;
    expect(assets.filter((a) => writeOnly.test(a))).toEqual([]);
    const bundled = readdirSync(join(dir, "explorer")).map((f) => `/${f.replace(/-[\w-]{8}\.js$/, "-<hash>.js")}`);
    // they exist, as chunks of their own
    expect(bundled.filter((f) => writeOnly.test(f)).map((f) => f.slice(1, -"-<hash>.js".length)).sort()).toEqual(["commit", "commit-operations", "expire", "file-store-commit", "orphan-files", "rollback", "s3-warehouse", "table-write", "writer"]);
  });
});
