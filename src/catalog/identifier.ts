import { PaimonError } from "../error.js";
import { fileNameProblem, MAX_FILE_NAME_BYTES, utf8Length } from "../spec/file-names.js";
import type { Table } from "../table/table.js";

/** A "database.table" identifier. */
export interface Identifier {
  readonly database: string;
  readonly table: string;
}

/** Suffix of a database directory (`<warehouse>/<name>.db`, Java `Catalog.DB_SUFFIX`). */
export const DB_SUFFIX = ".db";

/**
 * Checks a database or table name. The name becomes a directory (a database's with
 * {@link DB_SUFFIX}), so it must be one plain file name of at most 255 bytes of UTF-8 with
 * that suffix, without control characters, and not start with `.` (hidden, and `.`/`..`).
 */
export function validateName(name: string, what: "database" | "table"): void {
  const invalid = (reason: string) => new PaimonError("INVALID_ARGUMENT", `invalid ${what} name ${JSON.stringify(name)}: ${reason}`);
  if (typeof name !== "string") throw invalid("it is not a string");
  if (name.startsWith(".")) throw invalid("it starts with '.'");
  if (/[\u0000-\u001f]/.test(name)) throw invalid("it contains a control character");
  const maxBytes = MAX_FILE_NAME_BYTES - (what === "database" ? DB_SUFFIX.length : 0);
  const bytes = utf8Length(name);
  if (bytes > maxBytes) throw invalid(`it is ${bytes} bytes of UTF-8, at most ${maxBytes} (it names a directory)`);
  const problem = fileNameProblem(name);
  if (problem !== null) throw invalid(`it ${problem}`);
}

/**
 * Java Paimon's `Identifier` reads `$` in a table name as the start of a branch (`t$branch_b`)
 * or system table (`t$ro`, `t$snapshots`), so Java and pypaimon cannot name a data table with
 * `$`; this library reads the main branch's data tables only. What a `$` name would address
 * there, or null for a plain name.
 */
export function systemObjectOf(table: string): string | null {
  const at = table.indexOf("$");
  if (at < 0) return null;
  const rest = table.slice(at + 1);
  return rest.startsWith("branch_") ? `branch ${JSON.stringify(rest.slice("branch_".length))} of table ${JSON.stringify(table.slice(0, at))}` : `system table ${JSON.stringify(rest)} of table ${JSON.stringify(table.slice(0, at))}`;
}

/** Parses "db.table" (the database is everything before the first dot). */
export function parseIdentifier(identifier: string): Identifier {
  const dot = typeof identifier === "string" ? identifier.indexOf(".") : -1;
  if (dot <= 0 || dot === identifier.length - 1) {
    throw new PaimonError("INVALID_ARGUMENT", `table identifier must be "database.table", got ${JSON.stringify(identifier)}`);
  }
  const id = { database: identifier.slice(0, dot), table: identifier.slice(dot + 1) };
  validateName(id.database, "database");
  validateName(id.table, "table");
  return id;
}

/**
 * What `<table>$<name>` addresses of `dataTable`, as Java's `Identifier`: `branch_b` is branch b,
 * `branch_b$snapshots` a system table of it, anything else a system table of the data table
 * (Java `SystemTableLoader`, loaded on demand).
 */
export async function openTableObject(dataTable: Table, name: string): Promise<Table> {
  const branch = /^branch_([^$]*)(?:\$(.*))?$/s.exec(name);
  if (branch !== null) {
    dataTable = await dataTable.switchToBranch(branch[1]);
    if (branch[2] === undefined) return dataTable;
    name = branch[2];
  }
  return dataTable.systemTable(name);
}
