/**
 * 8 committer *processes* race to commit to one s3:// table on a real S3 server (Ceph RGW). Only
 * the store's `If-None-Match: *` keeps them apart: exactly one winner per snapshot id, a contiguous
 * chain, and no lost commit. The children run the real sources, transpiled once to plain ESM with
 * TypeScript (test/fs/child/s3-committer.ts is the child).
 */
import { spawn } from "node:child_process";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/index.js";
import { S3_SKIP_MESSAGE, freshS3Root, s3TestBucket, testS3FileIO } from "./s3-server.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PROCESSES = 8;
const ROWS = 5;

let work = "";

/** Transpiles src/ and the child to `work` (plain ESM, same layout) so children start fast. */
async function transpileTree(): Promise<void> {
  work = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-s3-race-"));
  await fsp.writeFile(path.join(work, "package.json"), '{"type":"module"}');
  await fsp.symlink(path.join(repo, "node_modules"), path.join(work, "node_modules"));
  await fsp.symlink(path.join(repo, "wasm"), path.join(work, "wasm"));
  const files = (await fsp.readdir(path.join(repo, "src"), { recursive: true }))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => path.join("src", f));
  files.push(path.join("test", "fs", "child", "s3-committer.ts"));
  for (const rel of files) {
    const out = ts.transpileModule(await fsp.readFile(path.join(repo, rel), "utf8"), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: rel,
    });
    const dest = path.join(work, rel.replace(/\.ts$/, ".js"));
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    await fsp.writeFile(dest, out.outputText);
  }
}

interface CommitterResult {
  writer: number;
  snapshotId: number;
  lateMs: number;
  refused: number;
}

function runCommitter(args: string[]): Promise<CommitterResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join("test", "fs", "child", "s3-committer.js"), ...args], {
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
      env: process.env,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`committer exited ${code}: ${err}`))));
  });
}

if (s3TestBucket === null) {
  describe.skip(`s3:// commit race between processes — ${S3_SKIP_MESSAGE}`, () => {
    it("needs an S3 server", () => undefined);
  });
} else {
  describe("s3:// commit race between processes (Ceph RGW)", () => {
    beforeAll(transpileTree, 60_000);
    afterAll(async () => {
      if (work) await fsp.rm(work, { recursive: true, force: true });
    });

    it(`${PROCESSES} processes commit at the same moment: one winner per snapshot id, contiguous, none lost`, async () => {
      const warehouse = freshS3Root("process-race");
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const table = await catalog.createTable("db.t", {
        fields: [
          { name: "id", type: "BIGINT" },
          { name: "name", type: "STRING" },
        ],
      });
      // children need a few seconds to load and write; they all commit at this moment
      const startAt = Date.now() + 5000;
      const results = await Promise.all(
        Array.from({ length: PROCESSES }, (_, w) => runCommitter([table.location, String(w), String(ROWS), String(startAt)])),
      );
      // informational: how late children reached the start line and how often the server said 412
      console.log(
        `s3 process race: late ms ${results.map((r) => r.lateMs).join(",")}; ` +
          `412 refusals ${results.reduce((n, r) => n + r.refused, 0)}`,
      );
      const ids = results.map((r) => r.snapshotId).sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: PROCESSES }, (_, i) => i + 1));
      const snapshots = await table.listSnapshots();
      expect(snapshots.map((s) => s.id)).toEqual(ids);
      for (const r of results) expect(snapshots.find((s) => s.id === r.snapshotId)!.commitUser).toBe(`process-${r.writer}`);
      const plan = await table.newScan().plan();
      const read = await table.newRead().toArrow(plan.splits);
      const got = read
        .toArray()
        .map((r) => Number((r.toJSON() as { id: bigint }).id))
        .sort((a, b) => a - b);
      const expected = Array.from({ length: PROCESSES }, (_, w) => Array.from({ length: ROWS }, (_, i) => w * 1000 + i)).flat();
      expect(got).toEqual(expected);
      const names = new Set(read.toArray().map((r) => (r.toJSON() as { name: string }).name));
      expect(names.size).toBe(PROCESSES * ROWS);
      await testS3FileIO().deleteDirectory(warehouse);
    }, 120_000);
  });
}
