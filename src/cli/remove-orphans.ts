// `paimon-rt remove-orphans <table> [--older-than 1d] [--dry-run]`: Java's remove_orphan_files.
import { parseAge } from "../commit/orphan-files.js";
import { Table } from "../table/table.js";

export interface RemoveOrphansCommand {
  location: string;
  /** `1d`, `2h`, `30m`, `0` … (default one day). */
  olderThan?: string;
  dryRun: boolean;
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
