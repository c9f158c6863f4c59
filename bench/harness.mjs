// Minimal benchmark harness: warm up, time a few iterations, keep the median, and
// collect rows for one printed table and one JSON file per run (bench/results/).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results");

/** Median wall time in ms of `fn()` over `iterations` runs after `warmup` runs. */
export function timeMedian(fn, { iterations = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const times = [];
  for (let i = 0; i < iterations; i++) {
    globalThis.gc?.();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Async variant of `timeMedian`. `gc: false` skips the full GC before each run: for reads of a
 * few ms it would discard their optimised code (V8 deoptimises code whose embedded objects a full
 * GC collected, "weak objects") and time a half-cold read, which a serving process does not see;
 * the peers' loops (DuckDB, pypaimon) force no GC either. `setup`, when given, runs untimed
 * before each run and its result is passed to `fn`.
 */
export async function timeMedianAsync(fn, { iterations = 5, warmup = 1, gc = true, setup } = {}) {
  for (let i = 0; i < warmup; i++) await fn(await setup?.());
  const times = [];
  for (let i = 0; i < iterations; i++) {
    const input = await setup?.();
    if (gc) globalThis.gc?.();
    const t0 = performance.now();
    await fn(input);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Median wall times in ms of `a` and `b`, run alternately (a, b, a, b, …) after `warmup` runs
 * of each: on a shared machine a load change then hits both sides alike, which keeps their
 * ratio meaningful where back-to-back series drift apart.
 */
export async function timePairedAsync(a, b, { iterations = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta = [];
  const tb = [];
  for (let i = 0; i < iterations; i++) {
    for (const [fn, times] of [
      [a, ta],
      [b, tb],
    ]) {
      globalThis.gc?.();
      const t0 = performance.now();
      await fn();
      times.push(performance.now() - t0);
    }
  }
  const median = (t) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)];
  return [median(ta), median(tb)];
}

/**
 * Collects comparison rows: `add({ suite, case, rows, candidateMs, baselineMs, candidate, baseline })`
 * records a ratio baseline/candidate (> 1 means the candidate is faster), measured in the same run.
 */
export class Report {
  constructor(name) {
    this.name = name;
    this.rows = [];
  }

  add(row) {
    const ratio = row.baselineMs !== undefined ? row.baselineMs / row.candidateMs : undefined;
    const full = { ...row, ratio, candidateRowsPerSec: row.rows ? (row.rows / row.candidateMs) * 1000 : undefined };
    this.rows.push(full);
    const fmt = (ms) => (ms === undefined ? "-" : ms.toFixed(1));
    console.log(
      [
        row.suite.padEnd(22),
        String(row.case).padEnd(28),
        String(row.rows ?? "").padStart(9),
        `${row.candidate ?? "candidate"} ${fmt(row.candidateMs)} ms`.padEnd(22),
        row.baselineMs !== undefined ? `${row.baseline ?? "baseline"} ${fmt(row.baselineMs)} ms`.padEnd(22) : "".padEnd(22),
        ratio !== undefined ? `x${ratio.toFixed(2)}` : "",
        full.candidateRowsPerSec ? `${(full.candidateRowsPerSec / 1e6).toFixed(2)} M rows/s` : "",
      ].join("  "),
    );
    return full;
  }

  /** Writes bench/results/<name>-<timestamp>.json and <name>-latest.json. */
  save(extra = {}) {
    mkdirSync(resultsDir, { recursive: true });
    const doc = {
      name: this.name,
      date: new Date().toISOString(),
      runtime: typeof Deno !== "undefined" ? "deno" : typeof Bun !== "undefined" ? "bun" : `node ${process.version}`,
      ...extra,
      rows: this.rows,
    };
    const stamp = doc.date.replace(/[:.]/g, "-");
    const json = JSON.stringify(doc, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2);
    writeFileSync(join(resultsDir, `${this.name}-${stamp}.json`), json);
    writeFileSync(join(resultsDir, `${this.name}-latest.json`), json);
    return doc;
  }
}

export function header(title) {
  console.log(`\n## ${title}`);
  console.log(
    ["suite".padEnd(22), "case".padEnd(28), "rows".padStart(9), "candidate".padEnd(22), "baseline".padEnd(22), "ratio", "throughput"].join("  "),
  );
}

/**
 * Records the runtime's GC pauses (where PerformanceObserver reports "gc" entries: Node) from
 * now on; `stop()` ends the recording and resolves to the pauses as [start, end] (ms, the
 * performance.now() clock). Entries are delivered asynchronously: stop waits for the last ones.
 */
export function recordGcPauses() {
  const pauses = [];
  const observer =
    typeof PerformanceObserver !== "undefined" && PerformanceObserver.supportedEntryTypes?.includes("gc")
      ? new PerformanceObserver((list) => {
          for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
        })
      : null;
  observer?.observe({ entryTypes: ["gc"] });
  return {
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 10));
      observer?.disconnect();
      return pauses;
    },
  };
}

/**
 * Counts of the iterations slower than `overMs` by cause: "gc" when a recorded GC pause overlaps
 * it, "preempted" when the process got less than half its wall time as CPU time (a busy
 * machine), else the name of its slowest phase. Each iteration is `{ start, end, cpuMs, [phase]:
 * ms }` with the phases named in `phases`.
 */
export function slowIterationCauses(iterations, phases, pauses, overMs = 2) {
  const slow = {};
  for (const it of iterations) {
    const ms = it.end - it.start;
    if (ms <= overMs) continue;
    const cause = pauses.some(([s, e]) => s < it.end && e > it.start) ? "gc" : it.cpuMs < ms / 2 ? "preempted" : phases.reduce((a, b) => (it[b] > it[a] ? b : a));
    slow[cause] = (slow[cause] ?? 0) + 1;
  }
  return slow;
}

/**
 * One write-to-visible round in a real-time context: `write()`, then a plan + read of `filter`
 * (applied exactly). The phases' times (ms), the round's span (`start`, `end`: performance.now()),
 * the rows read and this process's CPU ms (user + system, all threads).
 */
export async function writeThenLookup(write, table, ctx, filter) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await write();
  const t1 = performance.now();
  const plan = await table.newScan({ realtime: ctx, filter }).plan();
  const t2 = performance.now();
  const reader = await table.newRead({ realtime: ctx, filter, predicateFilter: true }).createReader(plan.splits);
  let rows = 0;
  for await (const batch of reader) rows += batch.numRows;
  await reader.close();
  const t3 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  return { start: t0, end: t3, write: t1 - t0, plan: t2 - t1, read: t3 - t2, rows, cpuMs: (cpu.user + cpu.system) / 1000 };
}
