#!/usr/bin/env node
// The `paimon-rt` command line.
import { realpathSync } from "node:fs";
import { basename, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PaimonError } from "../error.js";
import { runKernelDemo } from "./demo.js";
import { runRealtimeDemo, shellWord } from "./realtime-demo.js";
import type { OutputFormat } from "./format.js";
import { inspectTable } from "./inspect.js";
import { readTableCommand } from "./read.js";
import { compactCommand, parseCompactArgs } from "./compact.js";
import { expirePartitionsCommand, parseExpirePartitionsArgs } from "./expire-partitions.js";
import { parseRescaleArgs, rescaleCommand } from "./rescale.js";
import { parseRemoveOrphansArgs, removeOrphansCommand } from "./remove-orphans.js";
import { serveCommand } from "./serve.js";
import { parseTagArgs, tagCommand } from "./tags.js";
import { branchCommand, parseBranchArgs } from "./branches.js";
import { commandUsage, usage } from "./usage.js";
import { PAIMON_RT_VERSION } from "../spec/version.js";

/** Where a command writes: results and help to `out`, usage errors to `err`. */
export interface CliOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

const CONSOLE: CliOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined) throw new PaimonError("INVALID_ARGUMENT", `${name} needs a value`);
  return v;
}

function demoMode(value: string | undefined): "append" | "pk" {
  if (value === undefined || value === "append" || value === "pk") return value ?? "append";
  throw new PaimonError("INVALID_ARGUMENT", `--mode must be append or pk, got ${value}`);
}

function positiveInt(args: string[], name: string, fallback?: number): number | undefined {
  const v = option(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new PaimonError("INVALID_ARGUMENT", `${name} needs a positive integer, got ${v}`);
  return n;
}

/** Runs one `paimon-rt` invocation; resolves to the process exit code (2: usage error). */
export async function main(args: string[], io: CliOutput = CONSOLE): Promise<number> {
  const [command, ...rest] = args;
  if (command === "--help" || command === "-h" || (command === "help" && rest.length === 0)) {
    io.out(usage());
    return 0;
  }
  if (command === "help") {
    const help = commandUsage(rest[0]);
    if (help === undefined) return usageError(io, `unknown command: ${rest[0]}`);
    io.out(help);
    return 0;
  }
  if (command === undefined) return usageError(io, "no command given");
  if (rest.includes("--help") || rest.includes("-h")) {
    const help = commandUsage(command);
    if (help === undefined) return usageError(io, `unknown command: ${command}`);
    io.out(help);
    return 0;
  }
  switch (command) {
    case "inspect": {
      if (!rest[0]) throw new PaimonError("INVALID_ARGUMENT", "inspect needs a table path");
      await inspectTable(rest[0], io.out);
      return 0;
    }
    case "read": {
      if (!rest[0] || rest[0].startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "read needs a table path");
      const format = (option(rest, "--format") ?? "table") as OutputFormat;
      if (!["table", "json", "csv"].includes(format)) throw new PaimonError("INVALID_ARGUMENT", `--format must be table, json or csv, got ${format}`);
      await readTableCommand(
        {
          location: rest[0],
          where: option(rest, "--where"),
          select: option(rest, "--select")?.split(",").map((s) => s.trim()),
          limit: positiveInt(rest, "--limit"),
          snapshotId: positiveInt(rest, "--snapshot"),
          dynamicOptions: dynamicOptions(rest),
          format,
          follow: rest.includes("--follow"),
          signal: rest.includes("--follow") ? interrupted() : undefined,
        },
        io.out,
      );
      return 0;
    }
    case "remove-orphans":
      await removeOrphansCommand(parseRemoveOrphansArgs(rest), io.out);
      return 0;
    case "compact":
      await compactCommand(parseCompactArgs(rest), io.out);
      return 0;
    case "expire-partitions":
      await expirePartitionsCommand(parseExpirePartitionsArgs(rest), io.out);
      return 0;
    case "rescale":
      await rescaleCommand(parseRescaleArgs(rest), io.out);
      return 0;
    case "create-tag":
    case "replace-tag":
    case "rename-tag":
    case "delete-tag":
    case "list-tags":
      await tagCommand(parseTagArgs(command, rest), io.out);
      return 0;
    case "create-branch":
    case "drop-branch":
    case "fast-forward":
    case "list-branches":
      await branchCommand(parseBranchArgs(command, rest), io.out);
      return 0;
    case "serve": {
      if (!rest[0] || rest[0].startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "serve needs a warehouse directory");
      const port = option(rest, "--port") ?? "8080";
      if (!/^\d+$/.test(port) || Number(port) > 65535) throw new PaimonError("INVALID_ARGUMENT", `--port needs a port number (0-65535), got ${port}`);
      await serveCommand({ warehouse: rest[0], port: Number(port), host: option(rest, "--host") ?? "127.0.0.1" }, io.out);
      return 0;
    }
    case "demo": {
      const result = await runRealtimeDemo({
        warehouse: option(rest, "--warehouse") ?? "paimon-rt-warehouse",
        seconds: positiveInt(rest, "--seconds", 12)!,
        mode: demoMode(option(rest, "--mode")),
        log: io.out,
        live: io === CONSOLE && process.stdout.isTTY === true,
        cliCommand: cliInvocation(),
      });
      return result.exitCode;
    }
    case "kernel-demo":
      await runKernelDemo({
        rows: positiveInt(rest, "--rows", 2_000_000)!,
        buckets: positiveInt(rest, "--buckets", 4)!,
        batchRows: positiveInt(rest, "--batch", 65_536)!,
        log: io.out,
      });
      return 0;
    case "version":
      io.out(`paimon-rt ${PAIMON_RT_VERSION}`);
      return 0;
    default:
      return usageError(io, `unknown command: ${command}`);
  }
}

/** Aborted on SIGINT / SIGTERM (`read --follow` ends then, its last rows printed). */
function interrupted(): AbortSignal {
  const controller = new AbortController();
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return controller.signal;
}

/** Every `--option key=value` (repeatable): dynamic options for `Table.copy`. */
function dynamicOptions(args: string[]): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "--option") continue;
    const pair = args[i + 1];
    const eq = pair === undefined ? -1 : pair.indexOf("=");
    if (eq <= 0) throw new PaimonError("INVALID_ARGUMENT", `--option needs key=value, got ${pair ?? "nothing"}`);
    (out ??= {})[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

function usageError(io: CliOutput, message: string): number {
  io.err(`paimon-rt: ${message}`);
  io.err(usage());
  return 2;
}

/** How the user ran this command line, for commands the output suggests. */
function cliInvocation(): string {
  const script = process.argv[1] ?? "";
  if (basename(script) === "paimon-rt") return "npx paimon-rt"; // the npm bin link (local or global)
  const rel = relative(process.cwd(), script);
  return `node ${shellWord(rel && !rel.startsWith("..") ? rel : script)}`;
}

/** True when this module is the program being run (not imported, e.g. by the tests). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    // npm installs the bin as a symlink; the module URL names the real file
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** A write to stdout failed because the reader closed the pipe (`paimon-rt read … | head`). */
function isClosedStdout(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === "EPIPE";
}

if (isEntryPoint()) {
  // The consumer has all the output it wants: that ends the command, it is no failure.
  process.stdout.on("error", (err) => {
    if (isClosedStdout(err)) process.exit(0);
    throw err;
  });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (isClosedStdout(err)) process.exit(0);
      console.error(err instanceof PaimonError ? `error (${err.code}): ${err.message}` : err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
