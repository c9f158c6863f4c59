// Compaction over worker threads (src/write/compact-workers.ts, `compaction.workers`), run on a
// dist/ built from this checkout in processes of their own, through the bundle Node, Deno and Bun
// import (dist/node: the workers load its compact-workers entry; the process must then exit by itself): for append, primary-key and primary-key DV
// tables (2 partitions × 4 buckets), worker threads (alone, or with the calling thread) leave the same rows and the same files (level,
// row count, sequence range, bytes, deletion vectors) as the in-process compaction, and a corrupt
// data file fails the compaction with the in-process PaimonError code, leaving every file of the
// table as it was and no new snapshot. workers 1 and no option compact in-process; a memory
// table (its FileIO cannot be shared) compacts in-process whatever the option says. The same
// scenario runs in Deno and Bun where their binaries are installed.
// Node only (it builds dist/ with tsc and spawns processes): not among the Deno/Bun portable suites.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDistInto } from "./support/built-dist.js";
import { runtimeBinary } from "./support/installed-package.js";
import { parseCompactArgs } from "../src/cli/compact.js";
import { PaimonError } from "../src/error.js";
import { cleanupDirs, makeTable } from "./realtime/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "paimon-rt-compact-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterAll(cleanupDirs);
beforeAll(() => buildDistInto(dir), 300_000);

const SCENARIO = fileURLToPath(new URL("./support/compact-workers-scenario.mjs", import.meta.url));

interface Summary {
  snapshot: number;
  commitKind: string;
  rowCount: number;
  rows: string;
  buckets: Array<{ partition: string; bucket: number; files: Array<{ level: number; rowCount: string; dv: string | null }> }>;
}
interface Failure {
  paimon: boolean;
  code: string;
  message: string;
}
interface Result {
  kind: string;
  workersAfterOne: number;
  workersAfterAbsent: number;
  workersAfterThree: number;
  inProcess: Summary;
  inWorkers: Summary;
  mixed: Summary;
  absent: Summary;
  badInProcess: Failure | null;
  badInWorkers: { error: Failure | null; before: unknown; after: unknown };
  badMixed: { error: Failure | null; before: unknown; after: unknown };
  memory: { messages: number; workerCompactions: number };
}

let runs = 0;
/** The scenario for `kind` under `runtime` (its command and arguments), in a fresh directory; fails on a non-zero exit or after two minutes (a process kept alive). */
function scenario(runtime: string[], kind: string): Promise<Result> {
  const work = join(dir, `run-${runs++}`);
  return new Promise((resolve, reject) => {
    execFile(runtime[0], [...runtime.slice(1), SCENARIO, join(dir, "dist", "node", "index.js"), join(dir, "dist", "node", "compact-workers.js"), work, kind], { cwd: dir, encoding: "utf8", timeout: 120_000, maxBuffer: 64 << 20 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve(JSON.parse(out) as Result),
    );
  });
}

function check(r: Result): void {
  // worker threads ran only where asked for; with the calling thread left out they compacted all 8 partition-buckets
  expect([r.workersAfterOne, r.workersAfterAbsent, r.workersAfterThree]).toEqual([0, 0, 8]);
  expect(r.inProcess.commitKind).toBe("COMPACT");
  expect(r.inProcess.buckets.length).toBe(8);
  expect(r.inWorkers).toEqual(r.inProcess);
  expect(r.mixed).toEqual(r.inProcess);
  expect(r.absent).toEqual(r.inProcess);
  if (r.kind === "pk-dv") expect(r.inProcess.buckets.some((b) => b.files.some((f) => f.dv !== null))).toBe(true);
  expect(r.badInProcess).toMatchObject({ paimon: true, code: "CORRUPT_FILE" });
  for (const [bad, copy] of [[r.badInWorkers, "bad-workers"], [r.badMixed, "bad-mixed"]] as const) {
    expect(bad.error).toEqual({ ...r.badInProcess, message: r.badInProcess!.message.replace("bad-in-process", copy) });
    expect(bad.after).toEqual(bad.before); // every file as it was (none added, none left), no snapshot
  }
  expect(r.memory).toEqual({ messages: 2, workerCompactions: 0 });
}

describe("compaction in worker threads (Node)", () => {
  for (const kind of ["append", "pk", "pk-dv"]) {
    it(`${kind} table: same rows and files as in-process; a corrupt file fails it with nothing left behind`, async () => {
      check(await scenario([process.execPath], kind));
    }, 180_000);
  }

  it("paimon-rt compact --workers 2 compacts the buckets in workers and commits once", async () => {
    const work = join(dir, `run-${runs - 1}`);
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [join(dir, "dist", "node", "cli.js"), "compact", join(work, "source", "db.db", "t"), "--full", "--workers", "2"], { cwd: dir, encoding: "utf8", timeout: 120_000 }, (e, o, err) => (e ? reject(new Error(`${e.message}\n${err}`)) : resolve(o))),
    );
    // the source table of the last scenario (pk-dv: 6 commits, compacted by its writers along the way)
    expect(out).toMatch(/^compacted .*: \d+ files into 8 \(snapshot \d+\)\n$/);
  }, 180_000);
});

for (const name of ["deno", "bun"] as const) {
  const binary = runtimeBinary(name, `compaction workers in ${name}`);
  describe.skipIf(binary === null)(`compaction in worker threads (${name})`, () => {
    for (const kind of ["append", "pk-dv"]) {
      it(`${kind} table: same rows and files as in-process; a corrupt file fails it with nothing left behind`, async () => {
        check(await scenario(name === "deno" ? [binary!, "run", "-A"] : [binary!], kind));
      }, 180_000);
    }
  });
}

describe("compaction workers: arguments", () => {
  it("--workers needs a positive number; compact({ workers }) and compaction.workers must be positive integers", async () => {
    expect(parseCompactArgs(["t", "--workers", "3"]).workers).toBe(3);
    for (const bad of [["t", "--workers", "0"], ["t", "--workers", "x"], ["t", "--workers"]]) expect(() => parseCompactArgs(bad)).toThrow(PaimonError);
    const table = await makeTable({ bucket: 2, "compaction.workers": "0" });
    const w = await table.newWrite({ commitUser: "u" });
    await expect(w.compact()).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("compaction.workers") });
    await expect(w.compact({ workers: 1.5 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await w.close();
  });
});
