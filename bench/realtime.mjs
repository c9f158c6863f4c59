// Real-time layer benchmarks: write into the store, write-to-visible latency with a memory
// tail, union read of the memory tail, prepare + commit throughput.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { header, timeMedianAsync } from "./harness.mjs";
import { Catalog, RealtimeContext } from "../dist/index.js";

const ROWS_PER_BATCH = 4096;

/** A 4-column batch laid out [_REALTIME_OFFSET, id, a, b, s]. */
function makeBatch(first, rows) {
  const off = new BigInt64Array(rows);
  const id = new BigInt64Array(rows);
  const a = new Float64Array(rows);
  const b = new Int32Array(rows);
  const sOffsets = new Int32Array(rows + 1);
  const bytes = new Uint8Array(rows * 6);
  for (let i = 0; i < rows; i++) {
    off[i] = BigInt(first + i);
    id[i] = BigInt(first + i);
    a[i] = i * 0.5;
    b[i] = i & 1023;
    for (let k = 0; k < 6; k++) bytes[i * 6 + k] = 97 + ((i + k) % 26);
    sOffsets[i + 1] = (i + 1) * 6;
  }
  return new arrow.RecordBatch({
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: rows, data: off }),
    id: arrow.makeData({ type: new arrow.Int64(), length: rows, data: id }),
    a: arrow.makeData({ type: new arrow.Float64(), length: rows, data: a }),
    b: arrow.makeData({ type: new arrow.Int32(), length: rows, data: b }),
    s: arrow.makeData({ type: new arrow.Utf8(), length: rows, valueOffsets: sOffsets, data: bytes }),
  });
}

let tableCounter = 0;
async function newTable(warehouse, options = {}) {
  const catalog = await Catalog.open(warehouse);
  await catalog.createDatabase("b", { ignoreIfExists: true });
  return catalog.createTable(`b.t${tableCounter++}`, {
    fields: [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "a", type: "DOUBLE" },
      { name: "b", type: "INT" },
      { name: "s", type: "STRING" },
    ],
    options: { bucket: 1, "bucket-key": "id", "realtime.enabled": true, ...options },
  });
}

async function visibleRows(table, ctx) {
  const plan = await table.newScan({ realtime: ctx }).plan();
  const reader = await table.newRead({ realtime: ctx }).createReader(plan.splits);
  let n = 0;
  let last = -1n;
  for await (const batch of reader) {
    n += batch.numRows;
    const ids = batch.getChildAt(0).data[0].values;
    if (ids.length > 0) last = ids[ids.length - 1];
  }
  await reader.close();
  return { n, last };
}

export async function runRealtimeBenchmarks(report, { quick = false } = {}) {
  header("real-time layer");
  const scratch = mkdtempSync(join(tmpdir(), "paimon-rt-bench-rt-"));
  try {
    // 1. write into the store
    const nBatches = quick ? 250 : 1000;
    const batches = Array.from({ length: nBatches }, (_, i) => makeBatch(i * ROWS_PER_BATCH, ROWS_PER_BATCH));
    const table1 = await newTable("memory://bench-rt-write");
    const writeMs = await timeMedianAsync(
      async () => {
        const ctx = await RealtimeContext.create();
        const w = await table1.newWrite({ commitUser: "b", realtime: ctx });
        for (const b of batches) await w.write(b, { bucket: 0 });
        await ctx.close();
      },
      { iterations: quick ? 3 : 5, warmup: 1 },
    );
    report.add({ suite: "realtime", case: "write into store (4 cols x 4096)", rows: nBatches * ROWS_PER_BATCH, candidate: "paimon-rt", candidateMs: writeMs });

    // 2. write-to-visible latency with a 100k-row memory tail
    const table2 = await newTable("memory://bench-rt-latency");
    const ctx2 = await RealtimeContext.create();
    const w2 = await table2.newWrite({ commitUser: "b", realtime: ctx2 });
    const tailRows = 100_000;
    let next = 0;
    for (; next < tailRows; next += ROWS_PER_BATCH) await w2.write(makeBatch(next, Math.min(ROWS_PER_BATCH, tailRows - next)), { bucket: 0 });
    next = tailRows;
    const samples = [];
    const rounds = quick ? 30 : 100;
    const warmupRounds = 30; // JIT warm-up: steady-state latency is what a long-running ingest sees
    for (let i = 0; i < rounds + warmupRounds; i++) {
      const small = makeBatch(next, 16);
      const t0 = performance.now();
      await w2.write(small, { bucket: 0 });
      const { last } = await visibleRows(table2, ctx2);
      const dt = performance.now() - t0;
      if (last !== BigInt(next + 15)) throw new Error(`row ${next + 15} not visible (last ${last})`);
      next += 16;
      if (i >= warmupRounds) samples.push(dt);
    }
    samples.sort((a, b) => a - b);
    const p50 = samples[Math.floor(samples.length * 0.5)];
    const p99 = samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))];
    report.add({ suite: "realtime", case: "write-to-visible p50 (100k tail)", rows: 16, candidate: "paimon-rt", candidateMs: p50 });
    report.add({ suite: "realtime", case: "write-to-visible p99 (100k tail)", rows: 16, candidate: "paimon-rt", candidateMs: p99 });

    // 3. union read of the memory tail
    const tailMs = await timeMedianAsync(() => visibleRows(table2, ctx2), { iterations: quick ? 3 : 7, warmup: 20 });
    report.add({ suite: "realtime", case: "union read of memory tail", rows: next, candidate: "paimon-rt", candidateMs: tailMs });
    const projMs = await timeMedianAsync(
      async () => {
        const plan = await table2.newScan({ realtime: ctx2 }).plan();
        const t = await table2.newRead({ realtime: ctx2, projection: ["id"] }).toArrow(plan.splits);
        if (t.numRows !== next) throw new Error("bad tail read");
      },
      { iterations: quick ? 3 : 7, warmup: 1 },
    );
    report.add({ suite: "realtime", case: "union read, projection [id]", rows: next, candidate: "paimon-rt", candidateMs: projMs });
    await ctx2.close();

    // 4. prepare + commit throughput (local warehouse)
    const commitRows = quick ? 250_000 : 1_000_000;
    const commitBatches = Array.from({ length: Math.ceil(commitRows / ROWS_PER_BATCH) }, (_, i) => makeBatch(i * ROWS_PER_BATCH, ROWS_PER_BATCH));
    const rows4 = commitBatches.length * ROWS_PER_BATCH;
    const times = [];
    for (let it = 0; it < (quick ? 2 : 3); it++) {
      const table4 = await newTable(scratch);
      const ctx = await RealtimeContext.create();
      const w = await table4.newWrite({ commitUser: "b", realtime: ctx });
      for (const b of commitBatches) await w.write(b, { bucket: 0 });
      const t0 = performance.now();
      const progress = await w.prepareCommitWithProgress(1);
      const snapshot = await table4.newCommit({ commitUser: "b" }).commitWithProgress(progress, 1);
      await w.refreshCommittedSnapshot(snapshot);
      times.push(performance.now() - t0);
      await w.close();
      await ctx.close();
    }
    times.sort((a, b) => a - b);
    report.add({ suite: "realtime", case: "prepare + commit + refresh", rows: rows4, candidate: "paimon-rt", candidateMs: times[Math.floor(times.length / 2)] });

    // 5. the same stream against pypaimon: each batch must become visible to a new scan+read.
    //    paimon-rt: write into the real-time store; pypaimon: write + commit (its only way).
    const python = join(new URL("..", import.meta.url).pathname, ".oracles", "venv", "bin", "python");
    if (existsSync(python)) {
      const streamBatches = quick ? 10 : 40;
      const table5 = await newTable(scratch);
      const ctx5 = await RealtimeContext.create();
      const w5 = await table5.newWrite({ commitUser: "b", realtime: ctx5 });
      const lat = [];
      const t0 = performance.now();
      for (let k = 0; k < streamBatches; k++) {
        const t1 = performance.now();
        await w5.write(makeBatch(k * ROWS_PER_BATCH, ROWS_PER_BATCH), { bucket: 0 });
        const { n } = await visibleRows(table5, ctx5);
        if (n !== (k + 1) * ROWS_PER_BATCH) throw new Error(`visible ${n} rows after batch ${k}`);
        lat.push(performance.now() - t1);
      }
      const totalMs = performance.now() - t0;
      await w5.prepareCommitWithProgress(1).then((p) => table5.newCommit({ commitUser: "b" }).commitWithProgress(p, 1));
      await w5.close();
      await ctx5.close();
      lat.sort((a, b) => a - b);
      const pyDir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-py-"));
      let py;
      try {
        const out = execFileSync(python, [join(new URL(".", import.meta.url).pathname, "pypaimon_stream_bench.py"), pyDir, String(streamBatches), String(ROWS_PER_BATCH)], { encoding: "utf8" });
        py = JSON.parse(out.trim().split("\n").pop());
      } finally {
        rmSync(pyDir, { recursive: true, force: true });
      }
      const rows5 = streamBatches * ROWS_PER_BATCH;
      report.add({ suite: "same stream vs pypaimon", case: "freshness p50 (write→visible)", rows: ROWS_PER_BATCH, candidate: "paimon-rt", candidateMs: lat[Math.floor(lat.length / 2)], baseline: "pypaimon commit", baselineMs: py.p50Ms });
      report.add({ suite: "same stream vs pypaimon", case: "freshness p99 (write→visible)", rows: ROWS_PER_BATCH, candidate: "paimon-rt", candidateMs: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))], baseline: "pypaimon commit", baselineMs: py.p99Ms });
      report.add({ suite: "same stream vs pypaimon", case: `ingest ${streamBatches} batches, visible each`, rows: rows5, candidate: "paimon-rt", candidateMs: totalMs, baseline: "pypaimon commit", baselineMs: py.totalMs });
    } else {
      console.log("(pypaimon not installed: run scripts/setup-oracles.sh for the same-stream comparison)");
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { Report } = await import("./harness.mjs");
  const report = new Report("realtime");
  await runRealtimeBenchmarks(report, { quick: process.argv.includes("--quick") });
  report.save();
}
