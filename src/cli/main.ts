#!/usr/bin/env node
// The `paimon-rt` command line. Commands grow with the library; today:
//   paimon-rt demo [--rows N] [--buckets N]   upsert stream through the wasm kernels
//   paimon-rt version
import { runKernelDemo } from "./demo.js";

const USAGE = `usage: paimon-rt <command>
  demo [--rows N] [--buckets N] [--batch N]   run the kernel demo (bucket, sort, merge an upsert stream)
  version                                     print the version`;

function flag(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} needs a positive integer, got ${args[i + 1]}`);
  return v;
}

export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "demo":
      await runKernelDemo({
        rows: flag(rest, "--rows", 2_000_000),
        buckets: flag(rest, "--buckets", 4),
        batchRows: flag(rest, "--batch", 65_536),
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
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
