// `npm run bench`: builds nothing itself (the npm script compiles dist/ first), runs every
// benchmark suite, prints one table per suite and writes bench/results/<suite>-*.json.
import { existsSync } from "node:fs";
import { Report } from "./harness.mjs";
import { runKernelBenchmarks } from "./kernels.mjs";

const only = process.argv.slice(2);
const wanted = (name) => only.length === 0 || only.includes(name);
const quick = process.env.BENCH_QUICK === "1";

if (wanted("kernels")) {
  const report = new Report("kernels");
  await runKernelBenchmarks(report, quick ? { sizes: [100_000] } : undefined);
  report.save();
}

if (wanted("bitmap") && existsSync(new URL("./bitmap.mjs", import.meta.url))) {
  const { runBitmapBenchmarks } = await import("./bitmap.mjs");
  const report = new Report("bitmap");
  await runBitmapBenchmarks(report, { quick });
  report.save();
}
