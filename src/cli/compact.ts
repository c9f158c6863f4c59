// `paimon-rt compact <table> [--partition k=v,...] [--bucket N] [--full] [--workers N] [--commit-user U]`: an
// ordinary compaction writer (no real-time context), as Java's compact action: real-time tables
// are compacted this way while their real-time writers keep writing (seed 000 "Compaction").
import { PaimonError } from "../error.js";
import { Table } from "../table/table.js";
import { matchingPartitions, parsePartitionSpec } from "./partitions.js";

export interface CompactCommand {
  location: string;
  /** Logical partition values as strings (`dt=2024-01-01`), matched against each partition's. */
  partition?: Record<string, string>;
  bucket?: number;
  full: boolean;
  commitUser: string;
  /** Worker threads (default the table's `compaction.workers`). */
  workers?: number;
}

/** `<table-path> [--partition k=v,...] [--bucket N] [--full] [--workers N] [--commit-user U]`; INVALID_ARGUMENT for anything else. */
export function parseCompactArgs(args: readonly string[]): CompactCommand {
  const [location, ...rest] = args;
  if (!location || location.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "compact needs a table path");
  const command: CompactCommand = { location, full: false, commitUser: "paimon-rt-compact" };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const value = rest[i + 1];
    if (flag === "--full") command.full = true;
    else if (flag === "--partition" && value !== undefined) {
      i++;
      command.partition = parsePartitionSpec("compact", value);
    } else if (flag === "--bucket" && value !== undefined) {
      i++;
      if (!/^\d+$/.test(value)) throw new PaimonError("INVALID_ARGUMENT", `compact: --bucket needs a bucket number, got ${value}`);
      command.bucket = Number(value);
    } else if (flag === "--workers" && value !== undefined) {
      i++;
      if (!/^[1-9]\d*$/.test(value)) throw new PaimonError("INVALID_ARGUMENT", `compact: --workers needs a positive number, got ${value}`);
      command.workers = Number(value);
    } else if (flag === "--commit-user" && value !== undefined && value.trim() !== "") {
      i++;
      command.commitUser = value;
    } else throw new PaimonError("INVALID_ARGUMENT", `compact: unexpected argument ${flag}${["--partition", "--bucket", "--workers", "--commit-user"].includes(flag) ? " (needs a value)" : ""}`);
  }
  return command;
}

/** Compacts the chosen partition-buckets and commits; prints the snapshot, or that nothing needed compacting. */
export async function compactCommand(command: CompactCommand, log: (line: string) => void): Promise<number | null> {
  const table = await Table.open(command.location);
  const spec = command.partition;
  // (checked before the writer exists; a postpone table's partitions with postponed files only count)
  const partitions = spec ? await matchingPartitions("compact", table, spec) : null;
  const w = await table.newWrite({ commitUser: command.commitUser });
  try {
    if (partitions) {
      for (const partition of partitions) await w.compact({ partition, bucket: command.bucket, full: command.full, workers: command.workers });
    } else await w.compact({ bucket: command.bucket, full: command.full, workers: command.workers });
    const messages = await w.prepareCommit();
    const snapshot = messages.length === 0 ? null : await table.newCommit({ commitUser: command.commitUser }).commit(messages);
    if (snapshot === null) log(`nothing to compact in ${table.location}`);
    else {
      const before = messages.reduce((n, m) => n + m.data.compactIncrement.compactBefore.length, 0);
      const after = messages.reduce((n, m) => n + m.data.compactIncrement.compactAfter.length, 0);
      log(`compacted ${table.location}: ${before} file${before === 1 ? "" : "s"} into ${after} (snapshot ${snapshot})`);
    }
    return snapshot;
  } finally {
    await w.close();
  }
}
