// `paimon-rt remove-orphans <table> [--older-than 1d] [--dry-run]`: Java's remove_orphan_files.
import { parseAge } from "../commit/orphan-files.js";
import { PaimonError } from "../error.js";
import { Table } from "../table/table.js";

export interface RemoveOrphansCommand {
  location: string;
  /** `1d`, `2h`, `30m`, `0` … (default one day). */
  olderThan?: string;
  dryRun: boolean;
}

/** `<table-path> [--older-than AGE] [--dry-run]`; INVALID_ARGUMENT for anything else. */
export function parseRemoveOrphansArgs(args: readonly string[]): RemoveOrphansCommand {
  const [location, ...rest] = args;
  if (!location || location.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "remove-orphans needs a table path");
  const command: RemoveOrphansCommand = { location, dryRun: false };
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--dry-run") command.dryRun = true;
    else if (rest[i] === "--older-than" && rest[i + 1] !== undefined) {
      command.olderThan = rest[++i];
      parseAge(command.olderThan); // reject a bad age before opening the table
    } else throw new PaimonError("INVALID_ARGUMENT", `remove-orphans: unexpected argument ${rest[i]}${rest[i] === "--older-than" ? " (needs a value such as 1d, 2h, 30m or 0)" : ""}`);
  }
  return command;
}

/** Removes (or lists) the orphan files of one table, printing each file and a summary. */
export async function removeOrphansCommand(command: RemoveOrphansCommand, log: (line: string) => void): Promise<void> {
  const olderThanMs = command.olderThan === undefined ? undefined : parseAge(command.olderThan);
  const table = await Table.open(command.location);
  const { deleted, bytes } = await table.removeOrphanFiles({ olderThanMs, dryRun: command.dryRun });
  const verb = command.dryRun ? "would delete" : "deleted";
  for (const file of deleted) log(`${verb} ${file}`);
  log(`${verb} ${deleted.length} orphan file${deleted.length === 1 ? "" : "s"} (${bytes} bytes) of ${table.location}${command.dryRun ? " (dry run: nothing deleted)" : ""}`);
}
