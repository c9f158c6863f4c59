import { PaimonError } from "../error.js";

/** A "database.table" identifier. */
export interface Identifier {
  readonly database: string;
  readonly table: string;
}

/** Checks a database or table name: non-empty, no path separators, not `.`/`..`, no control characters. */
export function validateName(name: string, what: "database" | "table"): void {
  // The name becomes a directory: anything that could leave the warehouse is refused.
  if (typeof name !== "string" || name.length === 0 || name === "." || name === ".." || /[/\\\u0000-\u001f]/.test(name)) {
    throw new PaimonError("INVALID_ARGUMENT", `invalid ${what} name ${JSON.stringify(name)}`);
  }
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
