#!/usr/bin/env node
// Soak the fast-check property tests: run every test file that calls `fc.assert` (directly or
// through a shared helper such as test/fs/contract.ts) for several rounds, each with fresh random
// seeds, and report every failure with the seed, path and counterexample needed to replay it
// (`fc.assert(property, { seed, path })`). CI runs each property once with a fresh seed, so a gap
// in a test's model shows up there as a random red run; this finds such gaps first.
//
//   node scripts/soak-properties.mjs [--rounds N] [--max-workers W] [--scale S] [filter ...]
//
//   --rounds N       rounds over the selected files (default 5); each round is a new vitest run
//   --max-workers W  vitest workers (default 1, so a 2-core machine stays usable)
//   --scale S        sets PAIMON_RT_FC_SCALE: property tests that size numRuns with
//                    test/support/fc-runs.ts run S times as many cases (default 1)
//   --list           print the selected files and exit
//   filter           substrings of test file paths to restrict the soak to (default: all)
//
// Exits 1 when any test failed in any round. Each soak writes its vitest JSON reports and the
// full failure messages (the table truncates counterexamples) to .soak/<start time>-<pid>/.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function parseArgs(argv) {
  const options = { rounds: 5, maxWorkers: 1, scale: undefined, list: false, filters: [] };
  const count = (name, value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number, got ${JSON.stringify(value)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--rounds") options.rounds = Math.floor(count("--rounds", value()));
    else if (flag === "--max-workers") options.maxWorkers = Math.floor(count("--max-workers", value()));
    else if (flag === "--scale") options.scale = count("--scale", value());
    else if (flag === "--list") options.list = true;
    else if (flag === "--help" || flag === "-h") {
      process.stdout.write(readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").slice(1, 18).map((l) => l.replace(/^\/\/ ?/, "")).join("\n") + "\n");
      process.exit(0);
    } else if (flag.startsWith("--")) throw new Error(`unknown option ${flag}`);
    else options.filters.push(arg);
  }
  return options;
}

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Relative import specifiers of a source file, resolved to absolute paths (.js → .ts). */
function localImports(file, source) {
  const specifiers = [...source.matchAll(/\bfrom\s+["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)];
  return specifiers.map((m) => resolve(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, ".ts")));
}

/** Test files that call fc.assert themselves or import a helper module that does. */
function propertyTestFiles() {
  const files = walk(join(root, "test"));
  const sources = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
  const callsAssert = new Set(files.filter((f) => /\bfc\.assert\s*\(/.test(sources.get(f))));
  const tests = files.filter((f) => f.endsWith(".test.ts"));
  return tests
    .filter((f) => callsAssert.has(f) || localImports(f, sources.get(f)).some((dep) => callsAssert.has(dep)))
    .map((f) => relative(root, f))
    .sort();
}

function runVitest(files, maxWorkers, scale, outputFile) {
  const args = ["vitest", "run", "--maxWorkers", String(maxWorkers), "--reporter=dot", "--reporter=json", "--outputFile.json", outputFile, ...files];
  const env = { ...process.env };
  if (scale !== undefined) env.PAIMON_RT_FC_SCALE = String(scale);
  return new Promise((resolvePromise, reject) => {
    const child = spawn("npx", args, { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolvePromise({ code, signal }));
  });
}

const stripAnsi = (text) => text.replace(/\u001b\[[0-9;]*m/g, "");

/** Seed, path and counterexample of a fast-check failure message (undefined fields when absent). */
export function parseFastCheckFailure(message) {
  const text = stripAnsi(message);
  const seed = /\{\s*seed:\s*(-?\d+)/.exec(text)?.[1];
  const path = /\bpath:\s*"([^"]*)"/.exec(text)?.[1];
  const runs = /Property failed after (\d+) tests?/.exec(text)?.[1];
  const counterexample = /Counterexample:\s*([\s\S]*?)(?:\n\s*Shrunk \d+ time|\n\s*Got |\n\s*Hint:|$)/.exec(text)?.[1]?.trim();
  const error = /\nGot (?:error: )?([^\n]*)/.exec(text)?.[1]?.trim() ?? text.split("\n").find((l) => l.trim() !== "")?.trim();
  return { seed, path, runs, counterexample, error };
}

function failuresOf(report, round) {
  const failures = [];
  for (const file of report.testResults ?? []) {
    const name = relative(root, file.name);
    const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const assertion of failed) {
      const message = (assertion.failureMessages ?? []).join("\n");
      failures.push({ round, file: name, test: assertion.fullName ?? assertion.title, message, ...parseFastCheckFailure(message) });
    }
    if (failed.length === 0 && file.status === "failed") {
      const message = file.message ?? "the file failed outside any test";
      failures.push({ round, file: name, test: "(file)", message, ...parseFastCheckFailure(message) });
    }
  }
  return failures;
}

function table(rows, headers) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ").trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

const clip = (text, max) => {
  const flat = (text ?? "-").replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const all = propertyTestFiles();
  const files = options.filters.length === 0 ? all : all.filter((f) => options.filters.some((s) => f.includes(s)));
  if (options.list) {
    process.stdout.write(files.join("\n") + "\n");
    return 0;
  }
  if (files.length === 0) throw new Error(`no property test file matches ${options.filters.join(", ")}`);

  // one directory per soak, so that soaks running side by side do not overwrite each other's reports
  const outDir = join(root, ".soak", `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  const failures = [];
  const perFile = new Map(files.map((f) => [f, { passed: 0, failed: 0 }]));
  for (let round = 1; round <= options.rounds; round++) {
    process.stdout.write(`\n== soak round ${round}/${options.rounds}: ${files.length} files, ${options.maxWorkers} worker(s)${options.scale ? `, scale ${options.scale}` : ""}\n`);
    const outputFile = join(outDir, `round-${round}.json`);
    const started = Date.now();
    const { code, signal } = await runVitest(files, options.maxWorkers, options.scale, outputFile);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (!existsSync(outputFile)) {
      failures.push({ round, file: "(vitest)", test: "(run)", message: `vitest exited with ${signal ?? code} and wrote no report` });
      continue;
    }
    const report = JSON.parse(readFileSync(outputFile, "utf8"));
    const roundFailures = failuresOf(report, round);
    failures.push(...roundFailures);
    for (const result of report.testResults ?? []) {
      const counts = perFile.get(relative(root, result.name));
      if (counts) counts[result.status === "passed" ? "passed" : "failed"]++;
    }
    process.stdout.write(`== round ${round}: ${report.numPassedTests} passed, ${report.numFailedTests} failed tests in ${seconds} s\n`);
  }

  writeFileSync(join(outDir, "failures.json"), JSON.stringify(failures, null, 2) + "\n");
  process.stdout.write(`\n== per file (rounds passed / failed)\n`);
  process.stdout.write(table([...perFile].map(([f, c]) => [f, c.passed, c.failed]), ["file", "passed", "failed"]) + "\n");
  if (failures.length === 0) {
    process.stdout.write(`\nall ${files.length} files passed ${options.rounds} round(s)\n`);
    return 0;
  }
  process.stdout.write(`\n== ${failures.length} failure(s)\n`);
  const rows = failures.map((f) => [f.round, f.file, clip(f.test, 50), f.seed ?? "-", f.path ?? "-", clip(f.counterexample, 60), clip(f.error, 60)]);
  process.stdout.write(table(rows, ["round", "file", "test", "seed", "path", "counterexample", "error"]) + "\n");
  process.stdout.write(`\nreplay with fc.assert(property, { seed, path }); full messages in ${relative(root, join(outDir, "failures.json"))}\n`);
  return 1;
}

// run only as a script: importing the module (for parseFastCheckFailure) starts no soak
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`soak-properties: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
