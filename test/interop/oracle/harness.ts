/**
 * Runs the interop oracles (pypaimon and Java Paimon) from TypeScript tests.
 * Both are installed by scripts/setup-oracles.sh into .oracles/; tests skip when they are missing.
 * Value encoding of rows: see README.md next to this file.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const ORACLE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(ORACLE_DIR, "../../..");
export const VENV_PYTHON = path.join(REPO_ROOT, ".oracles", "venv", "bin", "python");
export const PYPAIMON_ORACLE = path.join(ORACLE_DIR, "pypaimon_oracle.py");
export const JAVA_ORACLE = path.join(ORACLE_DIR, "java-oracle.sh");
export const JAVA_JAR = path.join(REPO_ROOT, ".oracles", "java", "target", "paimon-java-oracle-0.0.1.jar");
/** Specs of sample tables pypaimon can write (file name = `<db>.<table>.json`). */
export const SPECS_DIR = path.join(ORACLE_DIR, "specs");
/** Specs only Java can write (row kinds, compaction, deletion vectors). */
export const JAVA_SPECS_DIR = path.join(ORACLE_DIR, "specs-java");

/** Why pypaimon cannot be used here, or null when it can. */
export function pypaimonUnavailable(): string | null {
  if (!existsSync(VENV_PYTHON)) return `no pypaimon venv at ${VENV_PYTHON} (run scripts/setup-oracles.sh)`;
  return null;
}

/** Why the Java oracle cannot be used here, or null when it can. */
export function javaOracleUnavailable(): string | null {
  if (!existsSync(JAVA_JAR)) return `no Java oracle at ${JAVA_JAR} (run scripts/setup-oracles.sh)`;
  return null;
}

function run(cmd: string, args: string[], what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { env: { ...process.env, TZ: "UTC", PYTHONUTF8: "1" }, maxBuffer: 512 * 1024 * 1024, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${what} ${args.join(" ")} failed: ${err.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/** Runs pypaimon_oracle.py; resolves to its stdout. */
export function runPypaimon(args: string[]): Promise<string> {
  return servedByDaemon(args) ? daemonCommand("pypaimon", args) : run(VENV_PYTHON, [PYPAIMON_ORACLE, ...args], "pypaimon_oracle");
}

/** Runs the Java oracle; resolves to its stdout. */
export function runJavaOracle(args: string[]): Promise<string> {
  return servedByDaemon(args) ? daemonCommand("java", args) : run(JAVA_ORACLE, args, "java-oracle");
}

/**
 * Whether the oracle process kept by this test worker (`java-oracle.sh serve`,
 * `pypaimon_oracle.py serve`) may run `args`: not when the environment picks another JVM set-up
 * (time zone, build, class-data dump) or turns them off (PAIMON_RT_ORACLE_DAEMON=0), nor for S3
 * and REST warehouses (credentials come from the environment and clients are cached in the
 * process), nor the REST server.
 */
function servedByDaemon(args: string[]): boolean {
  const env = process.env;
  if (env.PAIMON_RT_ORACLE_DAEMON === "0" || env.PAIMON_RT_ORACLE_JAVA_TZ || env.PAIMON_RT_ORACLE_JAVA_DIR || env.PAIMON_RT_ORACLE_CDS_DUMP) return false;
  if (args[0] === "rest-server" || args[0] === "serve") return false;
  let text = args.join("\n");
  if (args[0] === "batch" && args[1]) {
    try {
      text += readFileSync(args[1], "utf8");
    } catch {
      return false;
    }
  }
  return !/s3:\/\/|s3a:\/\/|rest:|https?:\/\//.test(text);
}

interface OracleDaemon {
  child: ChildProcessWithoutNullStreams;
  pending: Array<{ args: string[]; resolve: (out: string) => void; reject: (e: Error) => void }>;
}
const daemons = new Map<"java" | "pypaimon", OracleDaemon>();

function startDaemon(oracle: "java" | "pypaimon"): OracleDaemon {
  const [cmd, args, what] = oracle === "java" ? [JAVA_ORACLE, ["serve"], "java-oracle"] : [VENV_PYTHON, [PYPAIMON_ORACLE, "serve"], "pypaimon_oracle"];
  const child = spawn(cmd, args, { env: { ...process.env, TZ: "UTC", PYTHONUTF8: "1" }, stdio: ["pipe", "pipe", "pipe"] });
  const d: OracleDaemon = { child, pending: [] };
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const next = d.pending.shift();
      if (!next) continue;
      const result = JSON.parse(line) as BatchResult;
      if (result.ok) next.resolve(result.out);
      else next.reject(new Error(`${what} ${next.args.join(" ")} failed (served):\n${result.error}`));
    }
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-16_384);
  });
  const fail = (why: string) => {
    if (daemons.get(oracle) === d) daemons.delete(oracle);
    for (const p of d.pending.splice(0)) p.reject(new Error(`${what} ${p.args.join(" ")} failed: the served process ${why}\n${stderr}`));
  };
  child.on("error", (e) => fail(`could not start: ${e.message}`));
  child.on("exit", (code, signal) => fail(`exited (${signal ?? code})`));
  // the process ends when this worker closes its stdin (it exits), and keeps no worker alive
  child.unref();
  for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void }).unref?.();
  return d;
}

function daemonCommand(oracle: "java" | "pypaimon", args: string[]): Promise<string> {
  let d = daemons.get(oracle);
  if (!d) daemons.set(oracle, (d = startDaemon(oracle)));
  const served = d;
  return new Promise((resolve, reject) => {
    served.pending.push({ args, resolve, reject });
    served.child.stdin.write(`${JSON.stringify(args)}\n`);
  });
}

export type OracleRow = Record<string, unknown>;

/** Parses JSON-lines output. */
export function parseJsonLines(out: string): OracleRow[] {
  return out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as OracleRow);
}

/** A table spec (see README.md): schema plus commits of rows. */
export interface OracleSpec {
  fields?: Array<{ name: string; type: string | object; description?: string }>;
  partitionKeys?: string[];
  primaryKeys?: string[];
  options?: Record<string, string | number | boolean>;
  comment?: string;
  ignoreIfExists?: boolean;
  /**
   * A commit: rows to append (optionally an overwrite, or with a compaction), or (data-evolution
   * tables, Java oracle) new values of `updateColumns` for whole row ranges (`ranges`: a live file's
   * first row id and one row per row id), or `dataEvolutionCompact` (Java's DataEvolutionCompactCoordinator).
   */
  commits?: Array<OracleRow[] | { rows?: OracleRow[]; overwrite?: boolean | Record<string, unknown>; compact?: boolean; updateColumns?: string[]; ranges?: Array<{ firstRowId: number; rows: OracleRow[] }>; dataEvolutionCompact?: boolean }>;
}

async function withSpecFile<T>(spec: OracleSpec, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-spec-"));
  try {
    const file = path.join(dir, "spec.json");
    await fsp.writeFile(file, JSON.stringify(spec));
    return await fn(file);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Creates (if the spec has fields) and writes a table with the chosen oracle; returns the snapshot ids. */
export async function writeTable(
  oracle: "pypaimon" | "java",
  warehouse: string,
  identifier: string,
  spec: OracleSpec,
): Promise<number[]> {
  const out = await withSpecFile(spec, (file) =>
    (oracle === "pypaimon" ? runPypaimon : runJavaOracle)(["write", warehouse, identifier, file]),
  );
  return (JSON.parse(out.trim().split("\n").pop()!) as { snapshots: number[] }).snapshots;
}

/** Reads all rows of a table with the chosen oracle. */
export async function readTable(
  oracle: "pypaimon" | "java",
  warehouse: string,
  identifier: string,
  options: { snapshot?: number; sort?: boolean } = {},
): Promise<OracleRow[]> {
  return parseJsonLines(await (oracle === "pypaimon" ? runPypaimon : runJavaOracle)(readArgs({ warehouse, identifier, ...options })));
}

function readArgs(r: ReadRequest): string[] {
  const args = ["read", r.warehouse, r.identifier];
  if (r.snapshot !== undefined) args.push("--snapshot", String(r.snapshot));
  if (r.sort) args.push("--sort");
  for (const [column, value] of r.filterEq ?? []) args.push("--filter-eq", column, JSON.stringify(value));
  for (const [column, op, value] of r.filters ?? []) args.push("--filter", column, op, JSON.stringify(value));
  if (r.executeFilter) args.push("--execute-filter");
  return args;
}

/**
 * Creates the sample tables from SPECS_DIR with pypaimon (and, with `java: true`, those from
 * JAVA_SPECS_DIR with Java Paimon) in `warehouse`. Returns the identifiers created.
 */
export async function createSampleTables(warehouse: string, options: { java?: boolean } = {}): Promise<string[]> {
  const names: string[] = [];
  await runPypaimon(["samples", warehouse, SPECS_DIR]);
  for (const f of (await fsp.readdir(SPECS_DIR)).sort()) if (f.endsWith(".json")) names.push(f.slice(0, -5));
  if (options.java) {
    for (const f of (await fsp.readdir(JAVA_SPECS_DIR)).sort()) {
      if (!f.endsWith(".json")) continue;
      const ident = f.slice(0, -5);
      await runJavaOracle(["write", warehouse, ident, path.join(JAVA_SPECS_DIR, f)]);
      names.push(ident);
    }
  }
  return names;
}

/** Sorts rows by their JSON with sorted keys (the oracles' --sort order, for comparisons). */
export function sortRows(rows: OracleRow[]): OracleRow[] {
  const key = (r: unknown): string => JSON.stringify(r, (_k, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
  return [...rows].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** Result of one command of `runBatch`: its stdout, or why it failed. */
export type BatchResult = { ok: true; out: string } | { ok: false; error: string };

/**
 * Runs many oracle commands (argument lists as for the CLI: ["read", wh, "db.t", "--sort"],
 * ["write", wh, "db.t", specFile], …) in ONE Python / JVM process, in order, saving the start-up
 * cost (seconds) per command. A failing command does not stop the others. Falls back to one
 * process per command when the oracle predates the `batch` command (stale Java build).
 */
export async function runBatch(oracle: "pypaimon" | "java", commands: string[][]): Promise<BatchResult[]> {
  if (commands.length === 0) return [];
  const exec = oracle === "pypaimon" ? runPypaimon : runJavaOracle;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-batch-"));
  try {
    const file = path.join(dir, "commands.json");
    await fsp.writeFile(file, JSON.stringify(commands));
    let out: string;
    try {
      out = await exec(["batch", file]);
    } catch (e) {
      if (!/unknown command batch|usage|Usage/.test((e as Error).message)) throw e;
      const results: BatchResult[] = [];
      for (const c of commands) {
        try {
          results.push({ ok: true, out: await exec(c) });
        } catch (err) {
          results.push({ ok: false, error: (err as Error).message });
        }
      }
      return results;
    }
    const results = parseJsonLines(out) as unknown as BatchResult[];
    if (results.length !== commands.length) throw new Error(`${oracle} batch: ${results.length} results for ${commands.length} commands`);
    return results;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** stdout of a batch result, or an error naming the command. */
export function batchOutput(result: BatchResult): string {
  if (!result.ok) throw new Error(result.error);
  return result.out;
}

/**
 * Writes several tables with one oracle process (see `writeTable`); returns the snapshot ids of
 * each table's commits, or throws the first failure.
 */
export async function writeTables(
  oracle: "pypaimon" | "java",
  warehouse: string,
  tables: Array<{ identifier: string; spec: OracleSpec }>,
): Promise<number[][]> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-specs-"));
  try {
    const commands: string[][] = [];
    for (const [i, t] of tables.entries()) {
      const file = path.join(dir, `spec-${i}.json`);
      await fsp.writeFile(file, JSON.stringify(t.spec));
      commands.push(["write", warehouse, t.identifier, file]);
    }
    const results = await runBatch(oracle, commands);
    return results.map((r) => (JSON.parse(batchOutput(r).trim().split("\n").pop()!) as { snapshots: number[] }).snapshots);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** A read request for `readTables`. */
export interface ReadRequest {
  warehouse: string;
  identifier: string;
  snapshot?: number;
  sort?: boolean;
  /** Java only: `column = value` filters pushed to the scan and reader (value in the spec's JSON encoding); Java skips files by statistics and file indexes but may return other rows of the files it reads. */
  filterEq?: Array<[string, unknown]>;
  /** Java only: `column op value` filters (ANDed with `filterEq`), pushed to the scan and reader like `filterEq`. */
  filters?: Array<[string, "=" | "<>" | "<" | "<=" | ">" | ">=", unknown]>;
  /** Java only: also test every row with the filters (`TableRead.executeFilter()`: Java's `Predicate.test`), so exactly the matching rows come back. */
  executeFilter?: boolean;
}

/** Reads several tables (or snapshots) with one oracle process; rows per request, in order. */
export async function readTables(oracle: "pypaimon" | "java", requests: ReadRequest[]): Promise<Array<OracleRow[] | Error>> {
  const commands = requests.map(readArgs);
  const results = await runBatch(oracle, commands);
  return results.map((r) => (r.ok ? parseJsonLines(r.out) : new Error(r.error)));
}

/** One result of the Java oracle's `sketch` command: the serialized sketch, or Java's exception. */
export type SketchResult = { ok: true; bytes: Uint8Array } | { ok: false; error: string };

/** One case of the oracle's `hashmap` command: keys (canonical strings, see PaimonOracle.hashMapKey) put / removed in order. */
export interface HashMapCase {
  type: string;
  insertion: "put" | "computeIfAbsent";
  ops: Array<["+" | "-", string | null]>;
}

/** Java's `java.util.HashMap` iteration order for each case: the index of the op that inserted each key. */
export async function runHashMapCases(cases: readonly HashMapCase[]): Promise<number[][]> {
  if (cases.length === 0) return [];
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-hashmap-"));
  try {
    const file = path.join(dir, "cases.json");
    await fsp.writeFile(file, JSON.stringify(cases));
    const lines = parseJsonLines(await runJavaOracle(["hashmap", file])) as Array<{ ok: boolean; order?: number[]; error?: string }>;
    if (lines.length !== cases.length) throw new Error(`java hashmap: ${lines.length} results for ${cases.length} cases`);
    return lines.map((l, i) => {
      if (!l.ok) throw new Error(`java hashmap case ${i}: ${l.error}`);
      return l.order!;
    });
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs DataSketches operations (PaimonOracle.sketchOp: build theta sketches, Paimon's
 * ThetaSketch.union and folds of it) in ONE JVM; one result per operation, in order.
 */
export async function runSketchOps(ops: readonly object[]): Promise<SketchResult[]> {
  if (ops.length === 0) return [];
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-sketch-"));
  try {
    const file = path.join(dir, "ops.json");
    await fsp.writeFile(file, JSON.stringify(ops));
    const lines = parseJsonLines(await runJavaOracle(["sketch", file])) as Array<{ ok: boolean; bytes?: string; error?: string }>;
    if (lines.length !== ops.length) throw new Error(`java sketch: ${lines.length} results for ${ops.length} operations`);
    return lines.map((l) => (l.ok ? { ok: true, bytes: new Uint8Array(Buffer.from(l.bytes!, "base64")) } : { ok: false, error: l.error! }));
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Java builds each named operation of `specs` (one `sketch` call); the bytes base64, by name. */
export async function javaSketchesByName(specs: Record<string, object>): Promise<Record<string, string>> {
  const names = Object.keys(specs);
  const built = await runSketchOps(names.map((n) => specs[n]!));
  return Object.fromEntries(
    names.map((n, i) => {
      const r = built[i]!;
      if (!r.ok) throw new Error(`Java could not build ${n}: ${r.error}`);
      return [n, Buffer.from(r.bytes).toString("base64")];
    }),
  );
}

/** Java's own fold (`op`: theta-fold, hll-fold, rbm64-fold: the aggregator's union left to right) of base64 values, base64. */
export async function javaSketchFold(op: string, items: string[]): Promise<string> {
  const [r] = await runSketchOps([{ op, items }]);
  if (!r!.ok) throw new Error(r!.error);
  return Buffer.from(r!.bytes).toString("base64");
}

/** One result of the Java oracle's `variant` command (PaimonOracle.variantOp). */
export type VariantOpResult = { ok: true; value?: string; metadata?: string; json: string } | { ok: false; error: string };

/**
 * Runs GenericVariant operations in ONE JVM, one result per operation, in order:
 * `{ fromJson: text }` (GenericVariant.fromJson: base64 value and metadata, and its toJson) or
 * `{ value, metadata }` (base64 bytes: their toJson).
 */
export async function runVariantOps(ops: ReadonlyArray<{ fromJson: string } | { value: string; metadata: string }>): Promise<VariantOpResult[]> {
  if (ops.length === 0) return [];
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-variant-"));
  try {
    const file = path.join(dir, "ops.json");
    await fsp.writeFile(file, JSON.stringify(ops));
    const lines = parseJsonLines(await runJavaOracle(["variant", file])) as VariantOpResult[];
    if (lines.length !== ops.length) throw new Error(`java variant: ${lines.length} results for ${ops.length} operations`);
    return lines;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
