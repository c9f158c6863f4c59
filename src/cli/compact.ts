// `paimon-rt compact <table> [--partition k=v,...] [--bucket N] [--full] [--workers N] [--commit-user U]`: an
// ordinary compaction writer (no real-time context), as Java's compact action: real-time tables
// are compacted this way while their real-time writers keep writing (seed 000 "Compaction").
import { PaimonError } from "../error.js";
import { partitionStrings } from "../realtime/offsets.js";
import { Table } from "../table/table.js";

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
      command.partition = {};
      for (const pair of value.split(",")) {
        const eq = pair.indexOf("=");
        if (eq <= 0) throw new PaimonError("INVALID_ARGUMENT", `compact: --partition takes key=value pairs separated by commas, got '${value}'`);
        command.partition[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
      }
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
  const fields = table.partitionFields;
  const spec = command.partition;
  if (spec) {
    const unknown = Object.keys(spec).filter((k) => !fields.some((f) => f.name === k));
    if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `compact: unknown partition column(s) ${unknown.join(", ")} of table ${table.identifier} (partition keys: ${fields.map((f) => f.name).join(", ") || "none"})`);
  }
  const w = await table.newWrite({ commitUser: command.commitUser });
  try {
    if (spec) {
      // The partitions whose logical values (as the offsets file and paths spell them) match.
      const opts = table.coreOptions;
      const seen = new Set<string>();
      // the latest snapshot's partitions, whatever time travel the table's scan.* options ask of reads
      const latest = await table.latestSnapshot();
      for (const split of latest === null ? [] : (await table.newScan({ snapshotId: latest.id }).plan()).splits) {
        const values = fields.map((f) => split.partition[f.name]);
        const strings = partitionStrings(fields, values, opts.partitionDefaultName, opts.partitionLegacyName);
        if (Object.entries(spec).some(([k, v]) => strings[k] !== v)) continue;
        const key = JSON.stringify(strings);
        if (seen.has(key)) continue;
        seen.add(key);
        await w.compact({ partition: split.partition, bucket: command.bucket, full: command.full, workers: command.workers });
      }
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
