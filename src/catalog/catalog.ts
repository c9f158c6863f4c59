// The file-system catalog: `<warehouse>/<db>.db/<table>`, as Java's FileSystemCatalog lays it out.
import { PaimonError } from "../error.js";
import { type FileIO, joinPath } from "../fs/file-io.js";
import { resolveWarehouse, type WarehouseOptions } from "../fs/resolve.js";
import type { SchemaInput } from "../spec/schema.js";
import type { CatalogParts } from "./catalog-admin.js";
import type { RESTCatalog, RESTCatalogOptions } from "./rest-catalog.js";
import { checkDeduplicateTableOnLoad, type SchemaChange, SchemaManager } from "../table/schema-manager.js";
import { loadTimeTravel, prefetchTableModules, Table } from "../table/table.js";
import { DB_SUFFIX, openTableObject, parseIdentifier, systemObjectOf, validateName } from "./identifier.js";
import { MAIN_BRANCH } from "../table/option-validation.js";


// Loaded on first use, one import site each (bundlers add a preload list to every site): the
// catalog changes and the system tables.
const catalogAdmin = () => import("./catalog-admin.js");
const systemTables = () => import("./system-tables.js");

/** A Paimon warehouse on any {@link FileIO}: databases are directories, tables their subdirectories. */
export class Catalog {
  private constructor(
    readonly fileIO: FileIO,
    readonly warehouse: string,
  ) {}

  /**
   * Opens a warehouse: a local path or `file://` URL, `memory://name` (in-process), or
   * `http(s)://` (read-only). Pass `fileIO` to use another storage implementation.
   */
  static async open(warehouse: string | URL, options: WarehouseOptions = {}): Promise<Catalog> {
    const { fileIO, root } = await resolveWarehouse(warehouse, options);
    return new Catalog(fileIO, root);
  }

  /** Catalog changes on a read-only file system (HTTP) are refused before anything is looked up. */
  private checkWritable(op: string): void {
    if (this.fileIO.readOnly) {
      throw new PaimonError("READ_ONLY", `cannot ${op}: the warehouse ${this.warehouse} is on a read-only file system (${this.fileIO.scheme})`);
    }
  }

  private adminParts(): CatalogParts {
    return {
      lib: { PaimonError, SchemaManager, systemObjectOf, validateName },
      fileIO: this.fileIO,
      databasePath: (name) => this.databasePath(name),
      tablePath: (identifier) => this.tablePath(identifier),
      listTables: (database) => this.listTables(database),
      tableExists: (identifier) => this.tableExists(identifier),
      getTable: (identifier) => this.getTable(identifier),
    };
  }

  private databasePath(name: string): string {
    return joinPath(this.warehouse, name + DB_SUFFIX);
  }

  private tablePath(identifier: string): { path: string; database: string; table: string } {
    const id = parseIdentifier(identifier);
    return { path: joinPath(this.databasePath(id.database), id.table), ...id };
  }

  async createDatabase(name: string, options: { ignoreIfExists?: boolean } = {}): Promise<void> {
    this.checkWritable(`create database ${name}`);
    return (await catalogAdmin()).createDatabase(this.adminParts(), name, options);
  }

  async listDatabases(): Promise<string[]> {
    const entries = await this.fileIO.listStatus(this.warehouse);
    return entries.filter((e) => e.isDir && e.name.endsWith(DB_SUFFIX) && e.name.length > DB_SUFFIX.length).map((e) => e.name.slice(0, -DB_SUFFIX.length));
  }

  async databaseExists(name: string): Promise<boolean> {
    validateName(name, "database");
    if (name === "sys") return true; // Java's system database
    return this.fileIO.exists(this.databasePath(name));
  }

  async dropDatabase(name: string, options: { ignoreIfNotExists?: boolean; cascade?: boolean } = {}): Promise<void> {
    this.checkWritable(`drop database ${name}`);
    return (await catalogAdmin()).dropDatabase(this.adminParts(), name, options);
  }

  async createTable(identifier: string, schema: SchemaInput, options: { ignoreIfExists?: boolean } = {}): Promise<Table> {
    this.checkWritable(`create table ${identifier}`);
    return (await catalogAdmin()).createTable(this.adminParts(), identifier, schema, options);
  }

  async getTable(identifier: string): Promise<Table> {
    const { path, table, database } = this.tablePath(identifier);
    if (database === "sys") {
      // Java's system database: tables describing the whole catalog (`sys.tables`, `sys.all_table_options`, …)
      const { loadGlobalSystemTable } = await systemTables();
      return loadGlobalSystemTable(this, table);
    }
    const latest = new SchemaManager(this.fileIO, path).latest();
    prefetchTableModules(); // while the schema is read
    const schema = await latest;
    if (schema === null) {
      // (a data table already named with '$' has a schema: it opened above)
      const systemObject = systemObjectOf(table);
      if (systemObject !== null) {
        const at = table.indexOf("$");
        return openTableObject(await this.getTable(identifier.slice(0, identifier.length - table.length) + table.slice(0, at)), table.slice(at + 1));
      }
      throw new PaimonError("NOT_FOUND", `table ${identifier} does not exist (${path})`);
    }
    await checkDeduplicateTableOnLoad(schema, identifier); // the mode's setup is checked at load too (seed 000)
    return loadTimeTravel(new Table(this.fileIO, identifier, path, schema));
  }

  /**
   * The schemas of `identifier`: of branch `b` of table `t` for `t$branch_b` (as Java's
   * `Identifier`; blank and `main` are the table's own), else of the table directory.
   */
  private schemaManagerOf(identifier: string): SchemaManager {
    const { path, table } = this.tablePath(identifier);
    const branch = /^([^$]+)\$branch_([^$]*)$/s.exec(table);
    if (branch === null) return new SchemaManager(this.fileIO, path);
    const base = this.tablePath(identifier.slice(0, identifier.length - table.length) + branch[1]).path;
    return new SchemaManager(this.fileIO, base, branch[2].trim() === "" ? MAIN_BRANCH : branch[2]);
  }

  /**
   * Whether `getTable(identifier)` finds a table, as Java's `Catalog.tableExists`: a branch
   * (`db.t$branch_b`) with a schema, a system table (`db.t$snapshots`, `db.t$branch_b$files`) of an
   * existing table or branch, a table of the `sys` database.
   */
  async tableExists(identifier: string): Promise<boolean> {
    const { table, database } = this.tablePath(identifier);
    if (database === "sys") return (await systemTables()).isGlobalSystemTableName(table);
    const system = /^([^$]+(?:\$branch_[^$]*)?)\$([^$]*)$/s.exec(table);
    if (system !== null && !system[2].startsWith("branch_")) {
      const { isSystemTableName } = await systemTables();
      return isSystemTableName(system[2]) && this.tableExists(identifier.slice(0, identifier.length - table.length) + system[1]);
    }
    let schemas: SchemaManager;
    try {
      schemas = this.schemaManagerOf(identifier);
    } catch (e) {
      // a name that is no branch names no table
      if (e instanceof PaimonError && e.code === "INVALID_ARGUMENT" && identifier.includes("$branch_")) return false;
      throw e;
    }
    return (await schemas.listSchemaIds()).length > 0;
  }

  async listTables(database: string): Promise<string[]> {
    validateName(database, "database");
    if (database === "sys") return (await systemTables()).globalSystemTableNames();
    const dbPath = this.databasePath(database);
    if (!(await this.fileIO.exists(dbPath))) throw new PaimonError("NOT_FOUND", `database ${database} does not exist`);
    const out: string[] = [];
    for (const e of await this.fileIO.listStatus(dbPath)) {
      if (e.isDir && (await new SchemaManager(this.fileIO, e.path).listSchemaIds()).length > 0) out.push(e.name);
    }
    return out;
  }

  async dropTable(identifier: string, options: { ignoreIfNotExists?: boolean } = {}): Promise<void> {
    this.checkWritable(`drop table ${identifier}`);
    return (await catalogAdmin()).dropTable(this.adminParts(), identifier, options);
  }

  async alterTable(identifier: string, changes: SchemaChange[]): Promise<Table> {
    this.checkWritable(`alter table ${identifier}`);
    // a branch (`t$branch_b`, as Java) evolves its own schemas
    await this.schemaManagerOf(identifier).commitChanges(changes, identifier);
    return this.getTable(identifier);
  }
}

/**
 * Connects to a Paimon REST catalog server (Java's `metastore=rest` options: `uri`, `warehouse`,
 * `token.provider=bear` + `token`); the prefix and headers come from the server's `/v1/config`.
 * The {@link RESTCatalog} has the database and table operations of {@link Catalog}, with tables
 * read and written on the paths the server returns and snapshots committed through the server,
 * plus the server's tags, branches and snapshot view. The client is loaded on first call (a page
 * that does not call this carries none of it); it needs only `fetch` (edge-safe).
 */
export async function openRESTCatalog(options: RESTCatalogOptions): Promise<RESTCatalog> {
  const { RESTCatalog } = await import("./rest-catalog.js");
  return RESTCatalog.open(options, { openTableObject, parseIdentifier, systemObjectOf, validateName });
}
