// Primary-key table benchmarks: write throughput (sort + dedup + flush + commit), compaction of
// 8 buckets in-process vs compaction.workers=2 (the calling thread and a worker thread), and
// merge-on-read throughput over 1, 4 and 16 overlapping sorted runs, with int64 and string
// keys. The same merge-on-read tables are read by pypaimon in the same run when available.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { header, timeMedianAsync, timePairedAsync } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const python = join(root, ".oracles", "venv", "bin", "python");

// Reads each named table iters + 1 times (the first is warm-up) in one process: one
// interpreter start for all tables. Prints {ident: {ms, rows}}.
const PY_READ = `
import json, sys, time
from pypaimon import CatalogFactory
wh, iters, idents = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
catalog = CatalogFactory.create({"warehouse": wh})
out = {}
for ident in idents:
    table = catalog.get_table(ident)
    times = []
    rows = 0
    for _ in range(iters + 1):
        t0 = time.perf_counter()
        rb = table.new_read_builder()
        t = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        times.append((time.perf_counter() - t0) * 1000)
        rows = t.num_rows
    times = sorted(times[1:])
    out[ident] = {"ms": times[len(times) // 2], "rows": rows}
print(json.dumps(out))
`;

/** Deterministic pseudo-random keys in [0, space). */
function keys(n, space, seed) {
  let a = seed >>> 0;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * space);
  }
  return out;
}

const enc = new TextEncoder();

/** A batch of `ks` keys: k (int64 or string), v string (~10 bytes), d double. */
function batch(ks, keyType, tag) {
  const n = ks.length;
  const vOff = new Int32Array(n + 1);
  const vBytes = new Uint8Array(n * 16);
  let at = 0;
  for (let i = 0; i < n; i++) {
    at += enc.encodeInto(`${tag}-${ks[i]}`, vBytes.subarray(at)).written;
    vOff[i + 1] = at;
  }
  const d = Float64Array.from(ks, (k) => k * 0.5);
  let k;
  if (keyType === "int64") k = arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(ks, (x) => BigInt(x)) });
  else {
    const off = new Int32Array(n + 1);
    const bytes = new Uint8Array(n * 24);
    let p = 0;
    for (let i = 0; i < n; i++) {
      p += enc.encodeInto(`key-${String(ks[i]).padStart(10, "0")}`, bytes.subarray(p)).written;
      off[i + 1] = p;
    }
    k = arrow.makeData({ type: new arrow.Utf8(), length: n, valueOffsets: off, data: bytes.subarray(0, p) });
  }
  return new arrow.RecordBatch({
    k,
    v: arrow.makeData({ type: new arrow.Utf8(), length: n, valueOffsets: vOff, data: vBytes.subarray(0, at) }),
    d: arrow.makeData({ type: new arrow.Float64(), length: n, data: d }),
  });
}

async function createTable(lib, catalog, name, keyType, options = {}) {
  return catalog.createTable(`bench.${name}`, {
    fields: [
      { name: "k", type: keyType === "int64" ? "BIGINT NOT NULL" : "STRING NOT NULL" },
      { name: "v", type: "STRING" },
      { name: "d", type: "DOUBLE" },
    ],
    primaryKeys: ["k"],
    // no compaction: keep every commit as its own sorted run
    options: { bucket: 1, "num-sorted-run.compaction-trigger": 1000, "num-sorted-run.stop-trigger": 2000, ...options },
  });
}

export async function runPkBenchmarks(report, { quick = false } = {}) {
  const lib = await import("../dist/node/index.js");
  const rows = quick ? 100_000 : 1_000_000;
  const iterations = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-pk-"));
  const havePython = existsSync(python);
  try {
    const catalog = await lib.Catalog.open(dir);
    await catalog.createDatabase("bench");
    header(`pk: primary-key tables, ${rows} rows (k, v STRING, d DOUBLE), 1 bucket`);
    // BENCH_PK_CASES=write,dv,compact,mor picks cases (default all)
    const cases = (process.env.BENCH_PK_CASES ?? "write,dv,compact,mor").split(",");
    // 1. write: random keys (about 37% duplicates), one commit
    for (const keyType of cases.includes("write") ? ["int64", "string"] : []) {
      const b = batch(keys(rows, rows, 7), keyType, "w");
      let n = 0;
      const ms = await timeMedianAsync(async () => {
        const table = await createTable(lib, catalog, `w_${keyType}_${n++}`, keyType);
        const w = await table.newWrite({ commitUser: "bench" });
        await w.write(b);
        await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
        await w.close();
      }, { iterations, warmup: 1 });
      report.add({ suite: "pk write+commit", case: `${keyType} key, sort+dedup+flush`, rows, candidate: "paimon-rt", candidateMs: ms });
    }
    // 1b. DV vs plain: the same commits (random keys, default compaction) into a deletion-vector
    // table (level 0 compacted every commit, older rows marked in deletion vectors) and a plain one
    for (const keyType of cases.includes("dv") ? ["int64", "string"] : []) {
      const commits = 8;
      const per = Math.floor(rows / commits);
      const batches = Array.from({ length: commits }, (_, c) => batch(keys(per, rows, 300 + c), keyType, `c${c}`));
      let n = 0;
      const writeAll = (dvEnabled) => async () => {
        const table = await createTable(lib, catalog, `dvw_${keyType}_${dvEnabled}_${n++}`, keyType, { "num-sorted-run.compaction-trigger": 5, "num-sorted-run.stop-trigger": 10, "deletion-vectors.enabled": dvEnabled });
        const w = await table.newWrite({ commitUser: "bench" });
        for (let c = 0; c < commits; c++) {
          await w.write(batches[c]);
          await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit(), BigInt(c));
        }
        await w.close();
      };
      // alternated, so a change of machine load hits both sides alike
      const [plain, dv] = await timePairedAsync(writeAll("false"), writeAll("true"), { iterations, warmup: 1 });
      report.add({ suite: "pk write dv vs plain", case: `${keyType} key, ${commits} commits`, rows: per * commits, candidate: "dv", candidateMs: dv, baseline: "plain", baselineMs: plain });
    }
    // 1c. compaction of a table with 8 buckets (4 commits of random int64 keys, none compacted while
    // written), full, in-process vs compaction.workers=2 (the calling thread and one worker thread): copies of the same
    // table, alternated; wall and CPU (process.cpuUsage: all threads) medians
    if (cases.includes("compact")) {
      const commits = 4;
      const per = Math.floor((2 * rows) / commits);
      const source = await createTable(lib, catalog, "compact_src", "int64", { bucket: 8 });
      for (let c = 0; c < commits; c++) {
        const w = await source.newWrite({ commitUser: "bench" });
        await w.write(batch(keys(per, 2 * rows, 500 + c), "int64", `c${c}`));
        await source.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
        await w.close();
      }
      let n = 0;
      const cpu = { 1: [], 2: [] };
      const compactCopy = (workers) => async () => {
        const location = join(dir, `compact_copy_${n++}`);
        cpSync(source.location, location, { recursive: true });
        const table = await lib.Table.open(location);
        const c0 = process.cpuUsage();
        const w = await table.newWrite({ commitUser: "bench" });
        await w.compact({ full: true, workers });
        await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
        await w.close();
        const used = process.cpuUsage(c0);
        cpu[workers].push((used.user + used.system) / 1000);
      };
      const [one, two] = await timePairedAsync(compactCopy(1), compactCopy(2), { iterations, warmup: 1 });
      const median = (t) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)];
      const row = report.add({ suite: "pk compact", case: `int64, 8 buckets, ${commits} runs, full`, rows: per * commits, candidate: "workers=2", candidateMs: two, baseline: "in-process", baselineMs: one });
      row.candidateCpuMs = median(cpu[2]);
      row.baselineCpuMs = median(cpu[1]);
      console.log(`  CPU (all threads, median): in-process ${row.baselineCpuMs.toFixed(0)} ms, workers=2 (calling thread + 1 worker thread) ${row.candidateCpuMs.toFixed(0)} ms`);
    }
    // 2. merge-on-read: the same number of input rows spread over 1, 4, 16 overlapping runs (quick: 1, 4)
    const morCases = [];
    for (const keyType of cases.includes("mor") ? ["int64", "string"] : []) {
      for (const runs of quick ? [1, 4] : [1, 4, 16]) {
        const name = `mor_${keyType}_${runs}`;
        const table = await createTable(lib, catalog, name, keyType);
        for (let r = 0; r < runs; r++) {
          const w = await table.newWrite({ commitUser: "bench" });
          await w.write(batch(keys(Math.floor(rows / runs), rows, 100 + r), keyType, `r${r}`));
          await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
          await w.close();
        }
        const plan = await table.newScan().plan();
        const files = plan.splits.reduce((s, x) => s + x.files.length, 0);
        let out = 0;
        const ms = await timeMedianAsync(async () => {
          const t = await table.newRead({ batchSize: 65536 }).toArrow((await table.newScan().plan()).splits);
          out = t.numRows;
        }, { iterations, warmup: 1 });
        morCases.push({ ident: `bench.${name}`, case: `${keyType}, ${runs} run(s) (${files} files) -> ${out}`, ms, out });
      }
    }
    let py = {};
    if (havePython && morCases.length > 0) {
      try {
        const args = ["-c", PY_READ, dir, String(iterations), ...morCases.map((c) => c.ident)];
        py = JSON.parse(execFileSync(python, args, { encoding: "utf8", env: { ...process.env, TZ: "UTC" } }).trim().split("\n").pop());
      } catch (e) {
        console.log(`(pypaimon read failed: ${e.message})`);
      }
    }
    for (const c of morCases) {
      const theirs = py[c.ident];
      if (theirs && theirs.rows !== c.out) throw new Error(`pypaimon read ${theirs.rows} rows of ${c.ident}, paimon-rt ${c.out}`);
      report.add({ suite: "pk merge-on-read", case: c.case, rows, candidate: "paimon-rt", candidateMs: c.ms, baseline: theirs ? "pypaimon" : undefined, baselineMs: theirs?.ms });
    }
    if (!havePython) console.log("(pypaimon not installed: run scripts/setup-oracles.sh for the comparison)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Standalone: node --expose-gc bench/pk.mjs [--quick]
if (import.meta.url === `file://${process.argv[1]}`) {
  const { Report } = await import("./harness.mjs");
  const report = new Report("pk");
  await runPkBenchmarks(report, { quick: process.argv.includes("--quick") });
  report.save();
}
