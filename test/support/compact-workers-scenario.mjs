// Run by test/compact-workers.test.ts in a process of its own (Node, Deno or Bun) against a dist/
// built from this checkout: `<runtime> compact-workers-scenario.mjs <library entry> <compact-workers
// module> <work dir> <kind>` (the bundle's dist/node/index.js and dist/node/compact-workers.js).
// Builds a partitioned table of `kind` (append | pk | pk-dv) with several buckets and commits,
// copies it, compacts the copies in-process and in two worker threads (and, with a corrupt data
// file, both ways again: all in workers, and shared by the calling thread and a worker), and prints what the test compares as JSON. The process must exit by
// itself afterwards: the test fails on a timeout when a worker keeps it alive.
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as arrow from "apache-arrow";

const [entry, workersModule, work, kind] = process.argv.slice(2);
const lib = await import(pathToFileURL(entry).href);
const workers = await import(pathToFileURL(workersModule).href);
const { Catalog, Table, PaimonError, RowKind } = lib;

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
const big = (_k, v) => (typeof v === "bigint" ? `${v}n` : v);

async function createSource(warehouse) {
  const catalog = await Catalog.open(warehouse);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  const pk = kind !== "append";
  const table = await catalog.createTable("db.t", {
    fields: [
      { name: "dt", type: "STRING NOT NULL" },
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
      { name: "n", type: "DOUBLE" },
    ],
    partitionKeys: ["dt"],
    primaryKeys: pk ? ["dt", "id"] : undefined,
    options: { bucket: 4, "bucket-key": "id", ...(kind === "pk-dv" ? { "deletion-vectors.enabled": "true", "num-sorted-run.compaction-trigger": "3" } : {}) },
  });
  for (let c = 0; c < (kind === "pk-dv" ? 6 : 3); c++) {
    const w = await table.newWrite({ commitUser: "setup" });
    for (const dt of ["2024-01-01", "2024-01-02"]) {
      const rows = 1500;
      const ids = new BigInt64Array(rows).map((_, i) => BigInt(pk ? (i * 7 + c * 500) % 2000 : i * 3 + c));
      const kinds = pk ? Array.from(ids, (id) => (c % 3 === 2 && id % 11n === 0n ? RowKind.DELETE : RowKind.INSERT)) : undefined;
      const batch = new arrow.Table({
        dt: arrow.vectorFromArray(Array(rows).fill(dt), new arrow.Utf8()),
        id: arrow.makeVector(ids),
        v: arrow.vectorFromArray(Array.from(ids, (id) => (id % 5n === 0n ? null : `v${id}-${c}`)), new arrow.Utf8()),
        n: arrow.makeVector(Float64Array.from(ids, (id) => Number(id) / 4 + c)),
      });
      await w.write(batch, kinds ? { rowKinds: kinds } : {});
    }
    await table.newCommit({ commitUser: "setup" }).commit(await w.prepareCommit());
    await w.close();
  }
  return table.location;
}

/** Compacts the table at `location` (full, as the CLI's --full) with `options`; the snapshot id. */
async function compact(location, options) {
  const table = await Table.open(location);
  const w = await table.newWrite({ commitUser: "compactor" });
  try {
    // DV tables: universal compaction (not full), which leaves deletion vectors on the files it does not rewrite
    await w.compact({ full: kind !== "pk-dv", ...options });
    return await table.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
  } finally {
    await w.close();
  }
}

/** The rows, and each partition-bucket's live files and deletion vectors (contents, not names). */
async function summary(location) {
  const table = await Table.open(location);
  const snapshot = await table.latestSnapshot();
  const plan = await table.newScan().plan();
  const rows = (await table.newRead().toArrow(plan.splits)).toArray().map((r) => JSON.stringify(r.toJSON(), big)).sort();
  const buckets = [];
  for (const split of plan.splits) {
    const files = split.files.map((f, i) => {
      const bytes = readFileSync(join(split.bucketPath, f.fileName));
      const dv = split.deletionFiles?.[i];
      return {
        level: f.level,
        rowCount: String(f.rowCount),
        deleteRowCount: String(f.deleteRowCount ?? ""),
        sequence: `${f.minSequenceNumber}-${f.maxSequenceNumber}`,
        fileSource: f.fileSource,
        size: String(f.fileSize),
        sha: sha(bytes),
        dv: dv ? sha(readFileSync(dv.path).subarray(Number(dv.offset), Number(dv.offset) + Number(dv.length))) : null,
      };
    });
    files.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : a.sha < b.sha ? -1 : 1));
    buckets.push({ partition: JSON.stringify(split.partition), bucket: split.bucket, files });
  }
  buckets.sort((a, b) => (a.partition + a.bucket < b.partition + b.bucket ? -1 : 1));
  return { snapshot: snapshot?.id ?? null, commitKind: snapshot?.commitKind ?? null, rowCount: rows.length, rows: sha(rows.join("\n")), buckets };
}

/** Every file under `dir` (relative paths), sorted. */
function listFiles(dir, prefix = "") {
  return readdirSync(dir)
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]))
    .sort();
}

/** Zeroes the footer length and magic of bucket 1's first data file in the second partition (same size). */
async function corrupt(location) {
  const table = await Table.open(location);
  const split = (await table.newScan().plan()).splits.filter((s) => s.partition.dt === "2024-01-02" && s.bucket === 1)[0];
  const path = join(split.bucketPath, split.files[0].fileName);
  const bytes = readFileSync(path);
  bytes.fill(0, bytes.length - 8);
  writeFileSync(path, bytes);
}

async function errorOf(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return { paimon: e instanceof PaimonError, code: e.code ?? null, message: String(e.message) };
  }
}

const source = await createSource(join(work, "source"));
const copy = (name) => {
  const to = join(work, name, "db.db", "t");
  cpSync(source, to, { recursive: true });
  return to;
};
const [inProcess, inWorkers, mixed, absent, badInProcess, badInWorkers, badMixed] = ["in-process", "workers", "mixed", "absent", "bad-in-process", "bad-workers", "bad-mixed"].map(copy);
const out = { kind };

await compact(inProcess, { workers: 1 });
out.workersAfterOne = workers.workerCompactions;
await compact(absent, {});
out.workersAfterAbsent = workers.workerCompactions;
// every partition-bucket in the two worker threads
workers.callerCompacts.enabled = false;
await compact(inWorkers, { workers: 3 });
out.workersAfterThree = workers.workerCompactions;
// the calling thread and one worker thread, sharing them as they come (which gets which varies)
workers.callerCompacts.enabled = true;
await compact(mixed, { workers: 2 });
out.inProcess = await summary(inProcess);
out.inWorkers = await summary(inWorkers);
out.mixed = await summary(mixed);
out.absent = await summary(absent);

const unchanged = async (location, run) => {
  const state = async () => ({ files: listFiles(location), snapshot: (await (await Table.open(location)).latestSnapshot()).id });
  const before = await state();
  const error = await errorOf(run());
  return { error, before, after: await state() };
};
for (const location of [badInProcess, badInWorkers, badMixed]) await corrupt(location);
out.badInProcess = await errorOf(compact(badInProcess, { workers: 1, full: true }));
workers.callerCompacts.enabled = false;
out.badInWorkers = await unchanged(badInWorkers, () => compact(badInWorkers, { workers: 2, full: true }));
workers.callerCompacts.enabled = true;
out.badMixed = await unchanged(badMixed, () => compact(badMixed, { workers: 2, full: true }));

// a memory file system cannot be shared with workers: compacted in-process
const memory = await Catalog.open(`memory://compact-workers-${process.pid}`);
await memory.createDatabase("db");
const mt = await memory.createTable("db.m", { fields: [{ name: "id", type: "BIGINT NOT NULL" }], options: { bucket: 2, "bucket-key": "id" } });
for (let c = 0; c < 2; c++) {
  const w = await mt.newWrite({ commitUser: "m" });
  await w.write(new arrow.Table({ id: arrow.makeVector(BigInt64Array.from([1n, 2n, 3n, 4n], (x) => x + BigInt(c * 4))) }));
  await mt.newCommit({ commitUser: "m" }).commit(await w.prepareCommit());
  await w.close();
}
const before2 = workers.workerCompactions;
const mw = await mt.newWrite({ commitUser: "m" });
await mw.compact({ workers: 2 });
const mm = await mw.prepareCommit();
await mw.close();
out.memory = { messages: mm.length, workerCompactions: workers.workerCompactions - before2 };

process.stdout.write(JSON.stringify(out));
