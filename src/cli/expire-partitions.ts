// `paimon-rt expire-partitions <table> [--expiration-time D] [--strategy S] [--timestamp-formatter F]
// [--timestamp-pattern P] [--max-expires N] [--commit-user U]`: Java's expire_partitions procedure
// (the partition expiry every commit of a table with `partition.expiration-time` runs, now).
import type { PartitionExpireOptions } from "../commit/partition-expire.js";
import { PaimonError } from "../error.js";
import { Table } from "../table/table.js";

export interface ExpirePartitionsCommand {
  location: string;
  options: PartitionExpireOptions;
  commitUser: string;
}

const FLAGS = {
  "--expiration-time": "expirationTime",
  "--strategy": "strategy",
  "--timestamp-formatter": "timestampFormatter",
  "--timestamp-pattern": "timestampPattern",
  "--max-expires": "maxExpires",
} as const;

/** `<table-path> [--expiration-time D] [--strategy S] [--timestamp-formatter F] [--timestamp-pattern P] [--max-expires N] [--commit-user U]`; INVALID_ARGUMENT for anything else. */
export function parseExpirePartitionsArgs(args: readonly string[]): ExpirePartitionsCommand {
  const [location, ...rest] = args;
  if (!location || location.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "expire-partitions needs a table path");
  const command: ExpirePartitionsCommand = { location, options: {}, commitUser: "paimon-rt-expire-partitions" };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (value === undefined || !(flag in FLAGS || flag === "--commit-user")) {
      throw new PaimonError("INVALID_ARGUMENT", `expire-partitions: unexpected argument ${flag}${flag in FLAGS || flag === "--commit-user" ? " (needs a value)" : ""}`);
    }
    i++;
    if (flag === "--commit-user") command.commitUser = value;
    else if (flag === "--max-expires") {
      if (!/^[1-9]\d*$/.test(value)) throw new PaimonError("INVALID_ARGUMENT", `expire-partitions: --max-expires needs a positive number, got ${value}`);
      command.options.maxExpires = Number(value);
    } else (command.options as Record<string, string>)[FLAGS[flag as keyof typeof FLAGS]] = value;
  }
  return command;
}

/** Drops the expired partitions of one table and prints each, then how many. */
export async function expirePartitionsCommand(command: ExpirePartitionsCommand, log: (line: string) => void): Promise<Array<Record<string, string>>> {
  const table = await Table.open(command.location);
  const expired = await table.newCommit({ commitUser: command.commitUser }).expirePartitions(command.options);
  for (const spec of expired) log(`dropped ${Object.entries(spec).map(([k, v]) => `${k}=${v}`).join(",")}`);
  log(`dropped ${expired.length} expired partition${expired.length === 1 ? "" : "s"} of ${table.location}`);
  return expired;
}
