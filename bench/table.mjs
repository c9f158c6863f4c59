// Table benchmarks: append write (zstd, snappy) and full/projected read of a 4-column table
// through paimon-rt, and the same workload through pypaimon in the same run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { header, timeMedianAsync } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const python = join(root, ".oracles", "venv", "bin", "python");

/** The workload's table columns. */
const WORKLOAD_FIELDS = [
  { name: "id", type: "BIGINT" },
  { name: "name", type: "STRING" },
  { name: "value", type: "DOUBLE" },
  { name: "ts", type: "TIMESTAMP(6)" },
];

/** The 4-column workload: id int64, name utf8 (~12 bytes), value float64 (10% null), ts timestamp[us]. */
export function workload(rows) {
  const ids = new BigInt64Array(rows);
  const offsets = new Int32Array(rows + 1);
  const bytes = new Uint8Array(rows * 12);
  const enc = new TextEncoder();
  const values = new Float64Array(rows);
  const valid = new Uint8Array((rows + 7) >> 3);
  const ts = new BigInt64Array(rows);
  let at = 0;
  for (let i = 0; i < rows; i++) {
    ids[i] = BigInt(i);
    at += enc.encodeInto(`key-${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, "0")}`, bytes.subarray(at)).written;
    offsets[i + 1] = at;
    values[i] = i * 0.5;
    if (i % 10 !== 0) valid[i >> 3] |= 1 << (i & 7);
    ts[i] = 1_700_000_000_000_000n + BigInt(i);
  }
  const batch = new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: rows, data: ids }),
    name: arrow.makeData({ type: new arrow.Utf8(), length: rows, valueOffsets: offsets, data: bytes.subarray(0, at) }),
    value: arrow.makeData({ type: new arrow.Float64(), length: rows, nullCount: Math.ceil(rows / 10), nullBitmap: valid, data: values }),
    ts: arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: rows, data: ts }),
  });
  const inputBytes = batch.data.children.reduce((n, c) => n + c.byteLength, 0);
  return { batch, inputBytes };
}

/** Python with the duckdb module: $DUCKDB_PYTHON, else the oracle venv's python if it has it. */
function duckdbPython() {
  for (const p of [process.env.DUCKDB_PYTHON, python]) {
    if (!p || !existsSync(p)) continue;
    try {
      execFileSync(p, ["-c", "import duckdb"], { stdio: "ignore" });
      return p;
    } catch {
      // no duckdb there
    }
  }
  return null;
}

const DUCKDB_SELECTIVE = `
import duckdb, json, sys, time
glob, lo, hi, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
con = duckdb.connect()
q = f"SELECT id, value FROM read_parquet('{glob}') WHERE id BETWEEN {lo} AND {hi}"
times = []
for _ in range(6):
    t0 = time.perf_counter()
    n = len(con.sql(q).to_arrow_table())
    times.append((time.perf_counter() - t0) * 1000)
    assert n == want, n
times = sorted(times[1:])
print(json.dumps({"ms": times[len(times) // 2]}))
`;

/** DuckDB's time (ms, median in-process) for the same 1% id range over the table's Parquet files, or null. */
function duckdbSelective(tableDir, lo, hi, want) {
  const py = duckdbPython();
  if (!py) return null;
  const glob = join(tableDir, "bucket-*", "*.parquet");
  return JSON.parse(execFileSync(py, ["-c", DUCKDB_SELECTIVE, glob, String(lo), String(hi), String(want)], { encoding: "utf8" }).trim().split("\n").pop());
}

export async function runTableBenchmarks(report, { quick = false } = {}) {
  const lib = await import("../dist/node/index.js");
  const rows = quick ? 100_000 : 1_000_000;
  const { batch, inputBytes } = workload(rows);
  const mb = inputBytes / 1024 / 1024;
  header(`table: paimon-rt vs pypaimon, ${rows} rows x 4 columns (${mb.toFixed(1)} MB of Arrow data)`);
  const havePython = existsSync(python);
  for (const codec of ["zstd", "snappy"]) {
    const dir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-"));
    try {
      const catalog = await lib.Catalog.open(dir);
      await catalog.createDatabase("bench");
      let n = 0;
      let table;
      // the table is created untimed, as pypaimon_table_bench.py creates its table before timing
      const writeMs = await timeMedianAsync(
        async (created) => {
          table = created;
          const w = await table.newWrite({ commitUser: "bench" });
          await w.write(batch);
          await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
        },
        {
          iterations: quick ? 1 : 3,
          warmup: 1,
          setup: () => catalog.createTable(`bench.t${n++}`, { fields: WORKLOAD_FIELDS, options: { "file.compression": codec } }),
        },
      );
      const plan = await table.newScan().plan();
      const readMs = await timeMedianAsync(async () => {
        const t = await table.newRead({ batchSize: 65536 }).toArrow(plan.splits);
        if (t.numRows !== rows) throw new Error(`read ${t.numRows} rows`);
      }, { iterations: quick ? 1 : 3 });
      const projectedMs = await timeMedianAsync(async () => {
        const t = await table.newRead({ batchSize: 65536, projection: ["id", "value"] }).toArrow(plan.splits);
        if (t.numRows !== rows) throw new Error(`read ${t.numRows} rows`);
      }, { iterations: quick ? 1 : 3 });
      // 1% of the rows by an id range (ids are written in order), two of four columns
      const lo = BigInt(Math.floor(rows * 0.45));
      const hi = lo + BigInt(rows / 100) - 1n;
      const selectiveFilter = lib.and(lib.col("id").ge(lo), lib.col("id").le(hi));
      const selectiveMs = await timeMedianAsync(async () => {
        const t = await table.newRead({ batchSize: 65536, projection: ["id", "value"], filter: selectiveFilter, predicateFilter: true }).toArrow(plan.splits);
        if (t.numRows !== rows / 100) throw new Error(`selective read ${t.numRows} rows`);
      }, { iterations: quick ? 5 : 15, warmup: 2, gc: false });
      const duck = duckdbSelective(join(dir, "bench.db", `t${n - 1}`), lo, hi, rows / 100);
      let py = null;
      if (havePython) {
        const pyDir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-py-"));
        try {
          py = JSON.parse(execFileSync(python, [join(root, "bench", "pypaimon_table_bench.py"), pyDir, String(rows), codec], { encoding: "utf8", env: { ...process.env, TZ: "UTC" } }).trim().split("\n").pop());
        } finally {
          rmSync(pyDir, { recursive: true, force: true });
        }
      }
      const row = (suite, kase, ms, baselineMs) =>
        report.add({ suite, case: kase, rows, candidate: "paimon-rt", candidateMs: ms, baseline: baselineMs === undefined ? undefined : "pypaimon", baselineMs, mbPerSec: mb / (ms / 1000) });
      row("append write+commit", `${codec}, ${(mb / (writeMs / 1000)).toFixed(0)} MB/s`, writeMs, py?.writeMs);
      row("read (full)", codec, readMs, py?.readMs);
      row("read (projected 2/4)", codec, projectedMs, py?.projectedMs);
      report.add({ suite: "read (1% id range, 2/4)", case: codec, rows, candidate: "paimon-rt", candidateMs: selectiveMs, baseline: duck ? "duckdb" : undefined, baselineMs: duck?.ms });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await firstReadBenchmark(report, lib, quick);
  if (!havePython) console.log("(pypaimon not installed: run scripts/setup-oracles.sh for the comparison)");
}

/** First read in a fresh process vs a warm read (100k rows), medians over fresh processes. */
async function firstReadBenchmark(report, lib, quick) {
  const rows = 100_000;
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-first-"));
  try {
    const catalog = await lib.Catalog.open(dir);
    await catalog.createDatabase("bench");
    const table = await catalog.createTable("bench.first", {
      fields: WORKLOAD_FIELDS,
    });
    const w = await table.newWrite({ commitUser: "bench" });
    await w.write(workload(rows).batch);
    await table.newCommit({ commitUser: "bench" }).commit(await w.prepareCommit());
    // fresh processes on the bundle the package resolves to in Node, alternated with the unbundled dist/ (import time)
    const runs = [];
    const unbundled = [];
    const child = (entry) => JSON.parse(execFileSync(process.execPath, [join(root, "bench", "first-read.mjs"), dir, "bench.first", entry], { encoding: "utf8" }).trim().split("\n").pop());
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      runs.push(child("node"));
      unbundled.push(child("unbundled"));
    }
    const median = (k, of = runs) => of.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(of.length / 2)];
    report.add({ suite: "first read (fresh proc)", case: "open+plan+read 100k x 4", rows, candidate: "first", candidateMs: median("firstMs"), baseline: "warm", baselineMs: median("warmMs") });
    report.add({ suite: "first read (fresh proc)", case: "open table (inside first)", candidate: "open", candidateMs: median("openMs") });
    report.add({ suite: "first read (fresh proc)", case: "import the library", candidate: "dist/node (bundle)", candidateMs: median("importMs"), baseline: "dist (unbundled)", baselineMs: median("importMs", unbundled) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
