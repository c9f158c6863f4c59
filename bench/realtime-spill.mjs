// Real-time append ingest against its floors (issue 14 "Real-time"): ingest vs a plain copy of the
// same batches, and ingest with `realtime.spill-enabled` vs without, with the RSS each leaves
// after GC. Each spill measurement runs in its own process (`--child`), so that one run's heap,
// allocator state and wasm memory do not colour the other's; batches are made on the fly and
// dropped after the write, as a streaming source would, so only the store can keep them alive.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { timeMedianAsync } from "./harness.mjs";
import { makeBatch, newTable } from "./realtime.mjs";
import { RealtimeContext } from "../dist/node/index.js";

const ROWS_PER_BATCH = 4096;

/** Copies every buffer of a batch (what a store that copied its input would at least do). */
function copyBatch(batch) {
  const copy = (d) => {
    d.values?.slice();
    d.valueOffsets?.slice();
    d.nullBitmap?.slice();
    d.children.forEach(copy);
  };
  batch.data.children.forEach(copy);
}

async function settledRss() {
  // Backing stores of collected ArrayBuffers are freed after the GC, off the main thread.
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().rss;
}

/** One spill measurement (child process): ingest `rows` sealing every `sealEvery` batches. */
async function child(mode, rows, sealEvery, dir) {
  const spill = mode !== "memory";
  const spillOptions = { "realtime.spill-enabled": true, "spill-compression": mode === "spill-none" ? "none" : "zstd" };
  const table = await newTable("memory://bench-rt-spill", spill ? spillOptions : {});
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "b", realtime: ctx, tempDirectory: dir });
  const batches = Math.ceil(rows / ROWS_PER_BATCH);
  // warm up the write path (JIT) on another partition-bucket-free table: a small throwaway run
  {
    const t = await newTable("memory://bench-rt-spill-warm", spill ? spillOptions : {});
    const c = await RealtimeContext.create();
    const ww = await t.newWrite({ commitUser: "b", realtime: c, tempDirectory: dir });
    for (let k = 0; k < 2 * sealEvery; k++) {
      await ww.write(makeBatch(k * ROWS_PER_BATCH, ROWS_PER_BATCH), { bucket: 0 });
      if ((k + 1) % sealEvery === 0) await ww.seal();
    }
    await c.close();
  }
  const rssBefore = await settledRss();
  let writeMs = 0;
  let sealMs = 0;
  for (let k = 0; k < batches; k++) {
    const b = makeBatch(k * ROWS_PER_BATCH, ROWS_PER_BATCH);
    const t0 = performance.now();
    await w.write(b, { bucket: 0 });
    const t1 = performance.now();
    writeMs += t1 - t0;
    if ((k + 1) % sealEvery === 0 || k === batches - 1) {
      await w.seal();
      sealMs += performance.now() - t1;
    }
  }
  const rssAfter = await settledRss();
  const gauge = ctx.getMetrics().realtimeTotalMemoryBytes;
  process.stdout.write(JSON.stringify({ ingestMs: writeMs + sealMs, writeMs, sealMs, rows: batches * ROWS_PER_BATCH, rssBefore, rssAfter, gauge }) + "\n");
  await w.prepareCommitWithProgress(1);
  await ctx.close();
}

/** `mode`: memory (no spill), spill (zstd, the default), spill-none (spill-compression=none). */
function runChild(mode, rows, sealEvery, dir) {
  const out = execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--child", mode, String(rows), String(sealEvery), dir], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
}

export async function runRealtimeSpillBenchmarks(report, { quick = false } = {}) {
  // 1. append ingest vs a plain copy of the same batches
  const nBatches = quick ? 250 : 1000;
  const batches = Array.from({ length: nBatches }, (_, i) => makeBatch(i * ROWS_PER_BATCH, ROWS_PER_BATCH));
  const table = await newTable("memory://bench-rt-floor");
  const iterations = quick ? 5 : 9;
  const ingestMs = await timeMedianAsync(
    async () => {
      const ctx = await RealtimeContext.create();
      const w = await table.newWrite({ commitUser: "b", realtime: ctx });
      for (const b of batches) await w.write(b, { bucket: 0 });
      await ctx.close();
    },
    { iterations, warmup: 2 },
  );
  const copyMs = await timeMedianAsync(
    async () => {
      for (const b of batches) copyBatch(b);
    },
    { iterations, warmup: 2 },
  );
  report.add({ suite: "realtime", case: "append ingest vs plain copy", rows: nBatches * ROWS_PER_BATCH, candidate: "ingest", candidateMs: ingestMs, baseline: "copy", baselineMs: copyMs });

  // 2. ingest with spill vs without, and the RSS each leaves after GC (separate processes)
  const rows = quick ? 1_000_000 : 5_000_000;
  const sealEvery = 64; // ~262k rows per sealed segment
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-spill-"));
  try {
    const memory = runChild("memory", rows, sealEvery, dir);
    const spilled = runChild("spill", rows, sealEvery, dir);
    const uncompressed = runChild("spill-none", rows, sealEvery, dir);
    report.add({ suite: "realtime", case: "ingest + seal, spill vs memory", rows: spilled.rows, candidate: "spill", candidateMs: spilled.ingestMs, baseline: "memory", baselineMs: memory.ingestMs });
    report.add({ suite: "realtime", case: "ingest + seal, spill (none) vs memory", rows: uncompressed.rows, candidate: "spill none", candidateMs: uncompressed.ingestMs, baseline: "memory", baselineMs: memory.ingestMs });
    report.add({ suite: "realtime", case: "writes alone, spill vs memory", rows: spilled.rows, candidate: "spill", candidateMs: spilled.writeMs, baseline: "memory", baselineMs: memory.writeMs });
    const mb = (x) => (x / 1048576).toFixed(0);
    const spilledBytes = memory.gauge - spilled.gauge;
    console.log(`realtime  seals with spill move ${mb(spilledBytes)} MB of Arrow data at ${(spilledBytes / 1048576 / (spilled.sealMs / 1000)).toFixed(0)} MB/s`);
    const freed = memory.rssAfter - spilled.rssAfter;
    console.log(
      `realtime  RSS after GC (${spilled.rows} rows): memory ${mb(memory.rssAfter)} MB (store ${mb(memory.gauge)} MB), spill ${mb(spilled.rssAfter)} MB (store ${mb(spilled.gauge)} MB); ` +
        `spilled ${mb(spilledBytes)} MB, RSS lower by ${mb(freed)} MB = ${(freed / spilledBytes).toFixed(2)} of the spilled bytes`,
    );
    report.rows.push({ suite: "realtime", case: "RSS after GC, spill vs memory", rows: spilled.rows, memoryRss: memory.rssAfter, spillRss: spilled.rssAfter, memoryStoreBytes: memory.gauge, spillStoreBytes: spilled.gauge, spilledBytes, rssFreedFraction: freed / spilledBytes });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  const [, , , mode, rows, sealEvery, dir] = process.argv;
  await child(mode, Number(rows), Number(sealEvery), dir);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const { Report } = await import("./harness.mjs");
  const report = new Report("realtime-spill");
  await runRealtimeSpillBenchmarks(report, { quick: process.argv.includes("--quick") });
  report.save();
}
