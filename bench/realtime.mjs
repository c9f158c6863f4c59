// Real-time layer benchmarks: write into the store, write-to-visible latency with a memory
// tail, union read of the memory tail, prepare + commit throughput.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { header, timeMedianAsync } from "./harness.mjs";
import { Catalog, RealtimeContext } from "../dist/node/index.js";
import { getParquetWasm } from "../dist/format/index.js";

const ROWS_PER_BATCH = 4096;

/** A 4-column batch laid out [_REALTIME_OFFSET, id, a, b, s]; `idOf(offset)` gives the id (default: the offset). */
export function makeBatch(first, rows, idOf = (offset) => offset) {
  const off = new BigInt64Array(rows);
  const id = new BigInt64Array(rows);
  const a = new Float64Array(rows);
  const b = new Int32Array(rows);
  const sOffsets = new Int32Array(rows + 1);
  const bytes = new Uint8Array(rows * 6);
  for (let i = 0; i < rows; i++) {
    off[i] = BigInt(first + i);
    id[i] = BigInt(idOf(first + i));
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
/**
 * A table of `makeBatch` rows (bucket 1, bucket key id) with `realtime.enabled`, plus `options`.
 * `persistedOffset`: `_REALTIME_OFFSET` is its first table column (append deduplicate), so
 * `makeBatch` batches are in its own layout.
 */
export async function newTable(warehouse, options = {}, { persistedOffset = false } = {}) {
  const catalog = await Catalog.open(warehouse);
  await catalog.createDatabase("b", { ignoreIfExists: true });
  return catalog.createTable(`b.t${tableCounter++}`, {
    fields: [
      ...(persistedOffset ? [{ name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" }] : []),
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
    const ids = batch.data.children[0].values;
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

    // 2. write-to-visible latency with a 100k-row memory tail: write 16 rows, then a new
    //    plan + read of the whole tail must return them. A long-running ingest runs JIT-compiled
    //    code, so a warm-up table takes the first rounds (V8 keeps optimising for a few thousand
    //    rounds; those compiles on the second core stall the main one); then a fresh 100k tail
    //    is measured over many rounds, so that p99 is not just the worst few samples.
    const tailRows = 100_000;
    const latencyRound = async (table, w, ctx, next) => {
      const small = makeBatch(next, 16);
      const t0 = performance.now();
      await w.write(small, { bucket: 0 });
      const { last } = await visibleRows(table, ctx);
      const dt = performance.now() - t0;
      if (last !== BigInt(next + 15)) throw new Error(`row ${next + 15} not visible (last ${last})`);
      return dt;
    };
    const withTail = async (name) => {
      const table = await newTable(`memory://bench-rt-latency-${name}`);
      const ctx = await RealtimeContext.create();
      const w = await table.newWrite({ commitUser: "b", realtime: ctx });
      for (let next = 0; next < tailRows; next += ROWS_PER_BATCH) await w.write(makeBatch(next, Math.min(ROWS_PER_BATCH, tailRows - next)), { bucket: 0 });
      return { table, ctx, w };
    };
    const warm = await withTail("warmup");
    for (let i = 0, next = tailRows; i < (quick ? 1000 : 3000); i++, next += 16) await latencyRound(warm.table, warm.w, warm.ctx, next);
    await warm.ctx.close();
    const { table: table2, ctx: ctx2, w: w2 } = await withTail("measured");
    let next = tailRows;
    const samples = [];
    for (let i = 0; i < (quick ? 300 : 1000); i++, next += 16) samples.push(await latencyRound(table2, w2, ctx2, next));
    samples.sort((a, b) => a - b);
    const pct = (p) => samples[Math.min(samples.length - 1, Math.floor(samples.length * p))];
    for (const [label, p] of [["p50", 0.5], ["p90", 0.9], ["p99", 0.99]]) {
      report.add({ suite: "realtime", case: `write-to-visible ${label} (${samples.length} rounds, 100k tail)`, rows: 16, candidate: "paimon-rt", candidateMs: pct(p) });
    }

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
    // The first read of a tail builds its output batches (later reads of the same immutable
    // batches reuse them): measured on fresh tails.
    const cold = [];
    for (let k = 0; k < (quick ? 3 : 7); k++) {
      const fresh = await withTail(`cold-${k}`);
      const t0 = performance.now();
      const { n } = await visibleRows(fresh.table, fresh.ctx);
      cold.push(performance.now() - t0);
      if (n !== tailRows) throw new Error(`cold read saw ${n} rows`);
      await fresh.ctx.close();
    }
    cold.sort((a, b) => a - b);
    report.add({ suite: "realtime", case: "union read, first read of a fresh tail", rows: tailRows, candidate: "paimon-rt", candidateMs: cold[Math.floor(cold.length / 2)] });

    // 4. prepare + commit throughput (local warehouse)
    const commitRows = quick ? 250_000 : 1_000_000;
    const commitBatches = Array.from({ length: Math.ceil(commitRows / ROWS_PER_BATCH) }, (_, i) => makeBatch(i * ROWS_PER_BATCH, ROWS_PER_BATCH));
    const rows4 = commitBatches.length * ROWS_PER_BATCH;
    const times = [];
    for (let it = 0; it < (quick ? 3 : 4); it++) {
      const table4 = await newTable(scratch);
      const ctx = await RealtimeContext.create();
      const w = await table4.newWrite({ commitUser: "b", realtime: ctx });
      for (const b of commitBatches) await w.write(b, { bucket: 0 });
      const t0 = performance.now();
      const progress = await w.prepareCommitWithProgress(1);
      const snapshot = await table4.newCommit({ commitUser: "b" }).commitWithProgress(progress, 1);
      await w.refreshCommittedSnapshot(snapshot);
      if (it > 0) times.push(performance.now() - t0); // the first round warms up
      await w.close();
      await ctx.close();
    }
    times.sort((a, b) => a - b);
    // Baseline: parquet-wasm alone encoding the same rows (table columns, zstd like the table's
    // file.compression, one file) — what prepare+commit would cost with no Paimon work at all.
    const pw = await getParquetWasm();
    const tableColumns = new arrow.Table(commitBatches.map((b) => b.selectAt([1, 2, 3, 4])));
    const rawMs = await timeMedianAsync(
      async () => {
        const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.ZSTD).setStatisticsEnabled(pw.EnabledStatistics.Chunk).build();
        pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(tableColumns, "stream")), props);
      },
      { iterations: quick ? 2 : 3, warmup: 1 },
    );
    report.add({ suite: "realtime", case: "prepare + commit + refresh", rows: rows4, candidate: "paimon-rt", candidateMs: times[Math.floor(times.length / 2)], baseline: "raw parquet-wasm zstd", baselineMs: rawMs });

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
      sameStreamVsPypaimon(report, { python, suite: "same stream vs pypaimon", streamCase: `ingest ${streamBatches} batches, visible each`, sortedLatencies: lat, totalMs, streamBatches });
    } else {
      console.log("(pypaimon not installed: run scripts/setup-oracles.sh for the same-stream comparison)");
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Runs the same stream through pypaimon (bench/pypaimon_stream_bench.py: a commit per batch to make
 * it visible) and reports freshness p50/p99 and the whole stream against paimon-rt's figures.
 * `scriptArgs` are extra arguments of the script (e.g. its primary-key mode).
 */
export function sameStreamVsPypaimon(report, { python, suite, streamCase, sortedLatencies: lat, totalMs, streamBatches, scriptArgs = [] }) {
  const pyDir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-py-"));
  let py;
  try {
    const script = join(new URL(".", import.meta.url).pathname, "pypaimon_stream_bench.py");
    const out = execFileSync(python, [script, pyDir, String(streamBatches), String(ROWS_PER_BATCH), ...scriptArgs], { encoding: "utf8" });
    py = JSON.parse(out.trim().split("\n").pop());
  } finally {
    rmSync(pyDir, { recursive: true, force: true });
  }
  report.add({ suite, case: "freshness p50 (write→visible)", rows: ROWS_PER_BATCH, candidate: "paimon-rt", candidateMs: lat[Math.floor(lat.length / 2)], baseline: "pypaimon commit", baselineMs: py.p50Ms });
  report.add({ suite, case: "freshness p99 (write→visible)", rows: ROWS_PER_BATCH, candidate: "paimon-rt", candidateMs: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))], baseline: "pypaimon commit", baselineMs: py.p99Ms });
  report.add({ suite, case: streamCase, rows: streamBatches * ROWS_PER_BATCH, candidate: "paimon-rt", candidateMs: totalMs, baseline: "pypaimon commit", baselineMs: py.totalMs });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { Report } = await import("./harness.mjs");
  const report = new Report("realtime");
  await runRealtimeBenchmarks(report, { quick: process.argv.includes("--quick") });
  report.save();
}
