// Catalog changes (create / drop databases and tables), loaded on first use: a query-only page
// (`paimon-rt/edge`, read-only HTTP warehouses) never runs them, so they stay out of its bundle.
// Only types are imported: the modules it uses come from the caller (`CatalogParts.lib`), so
// bundlers keep them in the query bundle's chunks instead of splitting them out for this one.
import type { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import type { SchemaInput } from "../spec/schema.js";
import type { SchemaManager } from "../table/schema-manager.js";
import type { Table } from "../table/table.js";
import type { systemObjectOf, validateName } from "./identifier.js";

/** What the changes need of a {@link Catalog} (its public reads and its path rules). */
export interface CatalogParts {
  readonly lib: {
    readonly PaimonError: typeof PaimonError;
    readonly SchemaManager: typeof SchemaManager;
    readonly systemObjectOf: typeof systemObjectOf;
    readonly validateName: typeof validateName;
  };
  readonly fileIO: FileIO;
  databasePath(name: string): string;
  tablePath(identifier: string): { path: string; database: string; table: string };
  listTables(database: string): Promise<string[]>;
  tableExists(identifier: string): Promise<boolean>;
  getTable(identifier: string): Promise<Table>;
}

/** Java's system database `sys` (its tables describe the catalog: `sys.tables`, …) cannot hold tables of its own. */
const SYS = "sys is Java Paimon's system database";

export async function createDatabase(c: CatalogParts, name: string, options: { ignoreIfExists?: boolean }): Promise<void> {
  const { PaimonError, validateName } = c.lib;
  validateName(name, "database");
  if (name === "sys") throw new PaimonError("INVALID_ARGUMENT", `cannot create database sys: ${SYS}`);
  const path = c.databasePath(name);
  if (await c.fileIO.exists(path)) {
    if (options.ignoreIfExists) return;
    throw new PaimonError("ALREADY_EXISTS", `database ${name} already exists (${path})`);
  }
  await c.fileIO.mkdirs(path);
}

export async function dropDatabase(c: CatalogParts, name: string, options: { ignoreIfNotExists?: boolean; cascade?: boolean }): Promise<void> {
  const { PaimonError, validateName } = c.lib;
  validateName(name, "database");
  const path = c.databasePath(name);
  if (!(await c.fileIO.exists(path))) {
    if (options.ignoreIfNotExists) return;
    throw new PaimonError("NOT_FOUND", `database ${name} does not exist`);
  }
  const tables = await c.listTables(name);
  if (tables.length > 0 && !options.cascade) {
    throw new PaimonError("INVALID_ARGUMENT", `database ${name} is not empty (tables: ${tables.join(", ")}); drop with cascade`);
  }
  await c.fileIO.deleteDirectory(path);
}

export async function createTable(c: CatalogParts, identifier: string, schema: SchemaInput, options: { ignoreIfExists?: boolean }): Promise<Table> {
  const { PaimonError, SchemaManager, systemObjectOf } = c.lib;
  const { path, database, table } = c.tablePath(identifier);
  if (database === "sys") throw new PaimonError("INVALID_ARGUMENT", `cannot create table ${identifier}: ${SYS}`);
  const systemObject = systemObjectOf(table);
  if (systemObject !== null) throw new PaimonError("INVALID_ARGUMENT", `invalid table name ${JSON.stringify(table)}: '$' is Paimon's separator of branches and system tables (Java Paimon reads ${identifier} as the ${systemObject})`);
  if (!(await c.fileIO.exists(c.databasePath(database)))) throw new PaimonError("NOT_FOUND", `database ${database} does not exist`);
  const manager = new SchemaManager(c.fileIO, path);
  if (options.ignoreIfExists && (await manager.latest()) !== null) return c.getTable(identifier);
  try {
    await manager.createTable(schema, identifier);
  } catch (e) {
    if (options.ignoreIfExists && e instanceof PaimonError && e.code === "ALREADY_EXISTS") return c.getTable(identifier);
    throw e;
  }
  return c.getTable(identifier);
}

export async function dropTable(c: CatalogParts, identifier: string, options: { ignoreIfNotExists?: boolean }): Promise<void> {
  const { PaimonError } = c.lib;
  const { path, table } = c.tablePath(identifier);
  // as Java's `checkNotBranch`: a branch is dropped with Table.dropBranch
  if (/\$branch_/.test(table)) throw new PaimonError("INVALID_ARGUMENT", `cannot dropTable for branch table ${identifier}; drop the branch with dropBranch of the table on the default branch`);
  // as Java's `checkNotSystemTable`: a system table is no directory to delete
  if (table.includes("$")) throw new PaimonError("INVALID_ARGUMENT", `cannot dropTable for system table ${identifier}`);
  if (!(await c.tableExists(identifier))) {
    if (options.ignoreIfNotExists) return;
    throw new PaimonError("NOT_FOUND", `table ${identifier} does not exist`);
  }
  await c.fileIO.deleteDirectory(path);
}
