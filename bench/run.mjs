// `npm run bench`: builds nothing itself (the npm script compiles dist/ first), runs every
// benchmark suite, prints one table per suite and writes bench/results/<suite>-*.json.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Report } from "./harness.mjs";
import { runKernelBenchmarks } from "./kernels.mjs";

const only = process.argv.slice(2);
const wanted = (name) => only.length === 0 || only.includes(name);
const quick = process.env.BENCH_QUICK === "1";

/** Runs suite `name` when wanted; its wall time goes to stderr (CI discards stdout, keeps this). */
async function suite(name, run) {
  if (!wanted(name)) return;
  const start = performance.now();
  await run();
  process.stderr.write(`bench ${name}: ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
}

await suite("kernels", async () => {
  const report = new Report("kernels");
  await runKernelBenchmarks(report, quick ? { sizes: [100_000] } : undefined);
  report.save();
});

await suite("format", async () => {
  const { runFormatBenchmarks } = await import("./format.mjs");
  const report = new Report("format");
  await runFormatBenchmarks(report, { quick });
  report.save();
});

await suite("table", async () => {
  const { runTableBenchmarks } = await import("./table.mjs");
  const report = new Report("table");
  await runTableBenchmarks(report, { quick });
  report.save();
});

await suite("realtime", async () => {
  const { runRealtimeBenchmarks } = await import("./realtime.mjs");
  const report = new Report("realtime");
  await runRealtimeBenchmarks(report, { quick });
  const { runRealtimeSpillBenchmarks } = await import("./realtime-spill.mjs");
  await runRealtimeSpillBenchmarks(report, { quick });
  report.save();
});

await suite("realtime-pk", async () => {
  const { runRealtimePkBenchmarks } = await import("./realtime-pk.mjs");
  const report = new Report("realtime-pk");
  await runRealtimePkBenchmarks(report, { quick });
  report.save();
});

await suite("realtime-dedup", async () => {
  const { runRealtimeDedupBenchmarks } = await import("./realtime-dedup.mjs");
  const report = new Report("realtime-dedup");
  const extra = await runRealtimeDedupBenchmarks(report, { quick });
  report.save(extra);
});

await suite("pk", async () => {
  const { runPkBenchmarks } = await import("./pk.mjs");
  const report = new Report("pk");
  await runPkBenchmarks(report, { quick });
  report.save();
});

if (wanted("s3")) {
  const { runS3Benchmarks } = await import("./s3.mjs");
  const report = new Report("s3");
  const extra = await runS3Benchmarks(report, { quick });
  if (extra) console.log(JSON.stringify(report.save(extra), (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2));
}

await suite("http", async () => {
  const { runHttpBenchmarks } = await import("./http.mjs");
  const report = new Report("http");
  await runHttpBenchmarks(report, { quick });
  report.save();
});

await suite("bitmap", async () => {
  // A standalone script (it keeps a roaring-wasm instance for its baseline); run it as a child.
  const args = ["--expose-gc", fileURLToPath(new URL("./bitmap.mjs", import.meta.url)), ...(quick ? ["--quick"] : [])];
  execFileSync(process.execPath, args, { stdio: "inherit" });
});
