// `paimon-rt rescale <table> [--bucket-num N] [--partition k=v,...] [--commit-user U]`: Java's
// rescale procedure (`CALL sys.rescale`, Flink's rescale action), Table.rescale.
import { PaimonError } from "../error.js";
import { Table } from "../table/table.js";
import { matchingPartitions, parsePartitionSpec } from "./partitions.js";

export interface RescaleCommand {
  location: string;
  bucketNum?: number;
  /** Logical partition values as strings (`dt=2024-01-01`), some or all partition keys. */
  partition?: Record<string, string>;
  commitUser: string;
}

/** `<table-path> [--bucket-num N] [--partition k=v,...] [--commit-user U]`; INVALID_ARGUMENT for anything else. */
export function parseRescaleArgs(args: readonly string[]): RescaleCommand {
  const [location, ...rest] = args;
  if (!location || location.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "rescale needs a table path");
  const command: RescaleCommand = { location, commitUser: "paimon-rt-rescale" };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (value === undefined || !["--bucket-num", "--partition", "--commit-user"].includes(flag)) {
      throw new PaimonError("INVALID_ARGUMENT", `rescale: unexpected argument ${flag}${["--bucket-num", "--partition", "--commit-user"].includes(flag) ? " (needs a value)" : ""}`);
    }
    i++;
    if (flag === "--bucket-num") {
      if (!/^[1-9]\d*$/.test(value) || Number(value) > 0x7fffffff) throw new PaimonError("INVALID_ARGUMENT", `rescale: --bucket-num needs a positive number, got ${value}`);
      command.bucketNum = Number(value);
    } else if (flag === "--partition") command.partition = parsePartitionSpec("rescale", value);
    else command.commitUser = value;
  }
  return command;
}

/**
 * Rescales the table, or the partitions matching `--partition` (all in one snapshot when the spec
 * names only some keys, as Java); prints the snapshot.
 */
export async function rescaleCommand(command: RescaleCommand, log: (line: string) => void): Promise<number | null> {
  const table = await Table.open(command.location);
  let partition: Record<string, unknown> | undefined;
  if (command.partition) {
    const matching = await matchingPartitions("rescale", table, command.partition);
    const spec = Object.entries(command.partition).map(([k, v]) => `${k}=${v}`).join(",");
    if (matching.length === 0) throw new PaimonError("INVALID_ARGUMENT", `rescale: no partition of ${table.identifier} matches ${spec}`);
    // the typed values of the keys the spec names (equal in every matching partition)
    partition = Object.fromEntries(Object.keys(command.partition).map((k) => [k, matching[0]![k]]));
  }
  const snapshot = await table.rescale({ commitUser: command.commitUser, bucketNum: command.bucketNum, partition });
  log(`rescaled ${table.location}${command.partition ? ` (${Object.entries(command.partition).map(([k, v]) => `${k}=${v}`).join(",")})` : ""}${command.bucketNum !== undefined ? ` into ${command.bucketNum} bucket${command.bucketNum === 1 ? "" : "s"}` : ""} (snapshot ${snapshot})`);
  return snapshot;
}
