// The page worker (src/format/page-worker.ts) in a process of its own, built from this
// checkout's src: a process that writes a large zstd file (pages in flight on the worker while the
// main thread awaits them) and then has nothing left to do exits by itself, after the write, with
// the same bytes as an inline write; so does a process that reads a large zstd file (pages
// decompressed on the worker), with the rows of an inline read. (An unref'd worker with pages in
// flight let Node exit in the middle of a write; a worker left ref'd keeps the process alive for
// ever.)
// Node only (it spawns process.execPath with Node flags): not among the Deno/Bun portable suites.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDistInto } from "./support/built-dist.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { tableToIPC } from "apache-arrow";
import { readParquet, writeParquet } from "../src/format/index.js";
import { setDecompressionWorker } from "../src/format/parquet-reader.js";
import { DataTypes as T, notNull } from "../src/spec/types.js";

const dir = mkdtempSync(join(tmpdir(), "paimon-rt-page-worker-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  buildDistInto(dir);
}, 300_000);

const ROWS = 400_000;
const fields = [T.FIELD(1, "id", notNull(T.BIGINT())), T.FIELD(2, "name", T.STRING())];
const input = (apache: typeof import("apache-arrow"), rows: number) => {
  const ids = new BigInt64Array(rows);
  const names: string[] = [];
  for (let i = 0; i < rows; i++) {
    ids[i] = BigInt(i) * 31n;
    names.push(`name-${(Math.imul(i, 2654435761) >>> 0).toString(16)}`);
  }
  return new apache.Table({ id: apache.makeVector(ids), name: apache.vectorFromArray(names, new apache.Utf8()) });
};

const CHILD = `
import * as arrow from "apache-arrow";
import { createHash } from "node:crypto";
import { writeParquet } from "./dist/format/index.js";
import { pageWorker } from "./dist/format/page-worker.js";
import { DataTypes as T, notNull } from "./dist/spec/types.js";
const input = (${input.toString()})(arrow, ${ROWS});
const fields = [T.FIELD(1, "id", notNull(T.BIGINT())), T.FIELD(2, "name", T.STRING())];
const written = await writeParquet(fields, input, { rowGroupRows: 100_000 });
process.stdout.write(JSON.stringify({ sha: createHash("sha256").update(written.bytes).digest("hex"), offloaded: pageWorker().offloaded }));
`;

/** Runs `script` (an ES module) in a Node process of its own in `dir`; killed after a minute (code null). */
function runChild(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (c) => {
      clearTimeout(timer);
      resolve({ code: c, stdout: out, stderr: err });
    });
  });
}

it("a process whose large zstd write went through the worker exits by itself after the write, with the inline bytes", async () => {
  const { code, stdout, stderr } = await runChild(CHILD);
  expect(code, stderr).toBe(0);
  const result = JSON.parse(stdout) as { sha: string; offloaded: number };
  expect(result.offloaded).toBeGreaterThan(0);
  const inline = await writeParquet(fields, input(await import("apache-arrow"), ROWS), { rowGroupRows: 100_000, compressionWorker: false });
  expect(result.sha).toBe(createHash("sha256").update(inline.bytes).digest("hex"));
}, 300_000);

const READ_ROWS = 1_000_000;
const READER = `
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { tableToIPC } from "apache-arrow";
import { readParquet } from "./dist/format/index.js";
import { pageWorker } from "./dist/format/page-worker.js";
import { DataTypes as T, notNull } from "./dist/spec/types.js";
const fields = [T.FIELD(1, "id", notNull(T.BIGINT())), T.FIELD(2, "name", T.STRING())];
const table = await readParquet(readFileSync("read.parquet"), { fields });
process.stdout.write(JSON.stringify({ rows: table.numRows, sha: createHash("sha256").update(tableToIPC(table, "stream")).digest("hex"), offloaded: pageWorker().offloaded }));
`;

it("a process whose large zstd read went through the worker (the default for a large row group) exits by itself after the read, with the inline rows", async () => {
  const written = await writeParquet(fields, input(await import("apache-arrow"), READ_ROWS), { compressionWorker: false });
  writeFileSync(join(dir, "read.parquet"), written.bytes);
  const { code, stdout, stderr } = await runChild(READER);
  expect(code, stderr).toBe(0);
  const result = JSON.parse(stdout) as { rows: number; sha: string; offloaded: number };
  expect(result.rows).toBe(READ_ROWS);
  expect(result.offloaded).toBeGreaterThan(0);
  setDecompressionWorker(false);
  try {
    const inline = await readParquet(written.bytes, { fields });
    expect(result.sha).toBe(createHash("sha256").update(tableToIPC(inline, "stream")).digest("hex"));
  } finally {
    setDecompressionWorker(true);
  }
}, 300_000);

// The bundle Node, Deno and Bun import (dist/node, "node" export condition) loads the worker through
// the same computed specifier, which must resolve to its page-worker entry beside the chunks.
const BUNDLE_WRITER = `
import * as arrow from "apache-arrow";
import { Catalog } from "./dist/node/index.js";
const catalog = await Catalog.open("bundle-warehouse");
await catalog.createDatabase("db");
const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "name", type: "STRING" }] });
const w = await table.newWrite({ commitUser: "u" });
await w.write((${input.toString()})(arrow, ${ROWS}));
await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
const { pageWorker } = await import("./dist/node/page-worker.js");
const read = await table.newRead().toArrow((await table.newScan().plan()).splits);
process.stdout.write(JSON.stringify({ rows: read.numRows, offloaded: pageWorker().offloaded }));
`;

it("the bundled server entry (dist/node) offloads a large zstd write to the page worker and exits by itself", async () => {
  const { code, stdout, stderr } = await runChild(BUNDLE_WRITER);
  expect(code, stderr).toBe(0);
  const result = JSON.parse(stdout) as { rows: number; offloaded: number };
  expect(result.rows).toBe(ROWS);
  expect(result.offloaded).toBeGreaterThan(0);
}, 300_000);
