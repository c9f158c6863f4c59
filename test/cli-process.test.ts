// The built `paimon-rt` command line run as a process, as a shell pipeline runs it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { buildDistInto } from "./support/built-dist.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Catalog } from "../src/catalog/catalog.js";

const dir = mkdtempSync(join(tmpdir(), "paimon-rt-cli-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The package's bin (dist/node/cli.js, the bundled CLI) built from this checkout's src into `dir` (beside the package.json, node_modules and wasm/ it resolves against). */
let cli = "";
beforeAll(() => {
  buildDistInto(dir);
  cli = join(dir, "dist", "node", "cli.js");
}, 300_000);

/** Runs the CLI with a consumer that closes stdout after the first line (`| head -1`). */
function runUntilFirstLine(args: string[]): Promise<{ firstLine: string; stderr: string; code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) child.stdout.destroy();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ firstLine: stdout.slice(0, stdout.indexOf("\n")), stderr, code, signal }));
  });
}

it("inspect and read into a pipe its reader closes after the first line end quietly with status 0", async () => {
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.many", { fields: [{ name: "id", type: "BIGINT" }, { name: "s", type: "STRING" }] });
  // Several snapshots: inspect prints them line by line, still writing once the pipe is closed.
  const w = await table.newWrite({ commitUser: "cli" });
  for (let commit = 0; commit < 5; commit++) {
    const ids = Array.from({ length: 10_000 }, (_, i) => BigInt(commit * 10_000 + i));
    await w.write(
      new arrow.RecordBatch({
        id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids) }),
        s: arrow.vectorFromArray(ids.map((i) => `row number ${i}`), new arrow.Utf8()).data[0],
      }),
    );
    await table.newCommit({ commitUser: "cli" }).commit(await w.prepareCommit());
  }
  await w.close();
  expect(await runUntilFirstLine(["inspect", table.location])).toEqual({ firstLine: `table db.many at ${table.location}`, stderr: "", code: 0, signal: null });
  expect(await runUntilFirstLine(["read", table.location, "--format", "csv"])).toEqual({ firstLine: "id,s", stderr: "", code: 0, signal: null });
}, 120_000);
