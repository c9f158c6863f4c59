/**
 * writeFileAtomicNoReplace under a real multi-process race: several child Node processes publish
 * the same paths with different content at the same moment. Exactly one writer may win each path,
 * the file must hold that writer's whole content, and no reader may ever see a partial file.
 *
 * The children run the real src/fs/local-file-io.ts, transpiled to plain ESM with TypeScript.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRITERS = 4;
const PATHS = 150;
const CONTENT_BYTES = 48 * 1024; // large enough that a torn write would be visible

let work: string;

async function transpile(rel: string, outRoot: string): Promise<void> {
  const src = await fsp.readFile(path.join(repo, rel), "utf8");
  const out = ts.transpileModule(src, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: rel,
  });
  const dest = path.join(outRoot, rel.replace(/\.ts$/, ".js"));
  await fsp.mkdir(path.dirname(dest), { recursive: true });
  await fsp.writeFile(dest, out.outputText);
}

const CHILD = `
import { LocalFileIO } from "./src/fs/local-file-io.js";
const [root, writer, paths, bytes, startAt] = process.argv.slice(2);
const io = new LocalFileIO();
const id = Number(writer);
function content(i) {
  const head = "writer=" + id + ";path=" + i + ";";
  return head + String.fromCharCode(65 + id).repeat(Number(bytes) - head.length);
}
const SLOT_MS = 8;
const won = [];
const torn = [];
for (let i = 0; i < Number(paths); i++) {
  // every writer attempts path i in the same time slot, so the publishes really collide
  const slot = Number(startAt) + i * SLOT_MS;
  while (Date.now() < slot) await new Promise((r) => setTimeout(r, Math.max(0, slot - Date.now() - 1)));
  const p = root + "/snapshot/snapshot-" + i;
  if (await io.writeFileAtomicNoReplace(p, content(i))) won.push(i);
  // whatever is there now must be one writer's complete content
  const text = new TextDecoder().decode(await io.readFile(p));
  const m = /^writer=(\\d+);path=(\\d+);/.exec(text);
  if (!m || Number(m[2]) !== i || text.length !== Number(bytes) ||
      text.slice(m[0].length) !== String.fromCharCode(65 + Number(m[1])).repeat(Number(bytes) - m[0].length)) {
    torn.push(i);
  }
}
process.stdout.write(JSON.stringify({ writer: id, won, torn }));
`;

function runChild(args: string[]): Promise<{ writer: number; won: number[]; torn: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["child.mjs", ...args], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve(JSON.parse(out));
    });
  });
}

describe("LocalFileIO.writeFileAtomicNoReplace across processes", () => {
  beforeAll(async () => {
    work = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-race-"));
    await fsp.writeFile(path.join(work, "package.json"), '{"type":"module"}');
    for (const rel of ["src/error.ts", "src/fs/file-io.ts", "src/fs/local-file-io.ts"]) await transpile(rel, work);
    await fsp.writeFile(path.join(work, "child.mjs"), CHILD);
  });
  afterAll(async () => {
    if (work) await fsp.rm(work, { recursive: true, force: true });
  });

  it(`${WRITERS} processes x ${PATHS} paths: one winner per path, whole content, no torn reads`, async () => {
    const root = path.join(work, "table");
    const startAt = Date.now() + 1500; // all children start publishing at the same moment
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, w) =>
        runChild([root, String(w), String(PATHS), String(CONTENT_BYTES), String(startAt)]),
      ),
    );
    const winners = new Map<number, number[]>();
    for (const r of results) {
      expect(r.torn, `writer ${r.writer} saw torn files`).toEqual([]);
      for (const i of r.won) winners.set(i, [...(winners.get(i) ?? []), r.writer]);
    }
    for (let i = 0; i < PATHS; i++) {
      const ws = winners.get(i) ?? [];
      expect(ws, `winners of snapshot-${i}`).toHaveLength(1);
      const text = await fsp.readFile(path.join(root, "snapshot", `snapshot-${i}`), "utf8");
      const head = `writer=${ws[0]};path=${i};`;
      expect(text.startsWith(head)).toBe(true);
      expect(text).toBe(head + String.fromCharCode(65 + ws[0]!).repeat(CONTENT_BYTES - head.length));
    }
    // how the wins were spread (informational: which process wins a slot is up to the scheduler)
    console.log(`publish race wins per writer: ${results.map((r) => `${r.writer}:${r.won.length}`).join(" ")}`);
    // no temp files left behind
    const names = await fsp.readdir(path.join(root, "snapshot"));
    expect(names.filter((n) => n.startsWith("."))).toEqual([]);
    expect(names).toHaveLength(PATHS);
  });
});
