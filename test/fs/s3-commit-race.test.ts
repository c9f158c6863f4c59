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
  refused: number;
}

/** A committer process: `ready` resolves once it has prepared its commit; `go()` releases it. */
function startCommitter(args: string[]): { ready: Promise<void>; go(): void; result: Promise<CommitterResult> } {
  const child = spawn(process.execPath, [path.join("test", "fs", "child", "s3-committer.js"), ...args], {
    cwd: work,
    stdio: ["pipe", "pipe", "pipe"],
    env: process.env,
  });
  let out = "";
  let err = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on("data", (d) => {
    out += d;
    if (out.startsWith("ready\n")) markReady();
  });
  child.stderr.on("data", (d) => (err += d));
  const result = new Promise<CommitterResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`committer exited ${code}: ${err}`));
      else resolve(JSON.parse(out.slice("ready\n".length)));
    });
  });
  // a child that dies before "ready" must not leave the barrier waiting forever
  result.catch(() => markReady());
  return { ready, go: () => child.stdin.end("go\n"), result };
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
      // every child loads, writes and prepares; then all are released to commit at once
      const committers = Array.from({ length: PROCESSES }, (_, w) => startCommitter([table.location, String(w), String(ROWS)]));
      await Promise.all(committers.map((c) => c.ready));
      for (const c of committers) c.go();
      const results = await Promise.all(committers.map((c) => c.result));
      // informational: how often the server refused a snapshot publish (a loser retries the next id)
      console.log(`s3 process race: 412 refusals ${results.reduce((n, r) => n + r.refused, 0)}`);
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
