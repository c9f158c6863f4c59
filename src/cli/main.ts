#!/usr/bin/env node
// The `paimon-rt` command line.
import { PaimonError } from "../error.js";
import { runKernelDemo } from "./demo.js";
import { runRealtimeDemo } from "./realtime-demo.js";
import type { OutputFormat } from "./format.js";
import { inspectTable } from "./inspect.js";
import { readTableCommand } from "./read.js";
import { parseRemoveOrphansArgs, removeOrphansCommand } from "./remove-orphans.js";

const USAGE = `usage: paimon-rt <command>
  inspect <table-path>                              schema, snapshots and files per partition-bucket
  read <table-path> [--where EXPR] [--select a,b] [--limit N] [--format table|json|csv] [--snapshot N]
                                                    rows of a table (EXPR: id >= 5 AND name = 'x' AND dt IN ('a','b'))
  remove-orphans <table-path> [--older-than 1d|2h|30m|0] [--dry-run]
                                                    delete files no snapshot references (killed writers, failed
                                                    commits) older than --older-than (default 1d); --dry-run lists them
  demo [--warehouse DIR] [--seconds N]              real-time ingest into a local warehouse (default ./paimon-rt-warehouse):
                                                    rows queryable before commit, checkpoints, a final exactly-once check
  kernel-demo [--rows N] [--buckets N] [--batch N]  bucket, sort and merge an upsert stream with the wasm kernels
  version                                           print the version`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined) throw new PaimonError("INVALID_ARGUMENT", `${name} needs a value`);
  return v;
}

function positiveInt(args: string[], name: string, fallback?: number): number | undefined {
  const v = option(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new PaimonError("INVALID_ARGUMENT", `${name} needs a positive integer, got ${v}`);
  return n;
}

export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "inspect": {
      if (!rest[0]) throw new PaimonError("INVALID_ARGUMENT", "inspect needs a table path");
      await inspectTable(rest[0], (line) => console.log(line));
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
          format,
        },
        (text) => console.log(text),
      );
      return 0;
    }
    case "remove-orphans":
      await removeOrphansCommand(parseRemoveOrphansArgs(rest), (line) => console.log(line));
      return 0;
    case "demo": {
      const result = await runRealtimeDemo({
        warehouse: option(rest, "--warehouse") ?? "paimon-rt-warehouse",
        seconds: positiveInt(rest, "--seconds", 12)!,
        log: (line) => console.log(line),
      });
      return result.exitCode;
    }
    case "kernel-demo":
      await runKernelDemo({
        rows: positiveInt(rest, "--rows", 2_000_000)!,
        buckets: positiveInt(rest, "--buckets", 4)!,
        batchRows: positiveInt(rest, "--batch", 65_536)!,
        log: (line) => console.log(line),
      });
      return 0;
    case "version":
      console.log("paimon-rt 0.1.0");
      return 0;
    default:
      console.error(USAGE);
      return command === undefined || command === "help" || command === "--help" ? 0 : 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof PaimonError ? `error (${err.code}): ${err.message}` : err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
