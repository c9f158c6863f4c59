// Schema files (`schema/schema-<id>`): reading, creating and evolving them as Java's
// SchemaManager does (the changes of alterTable in schema-changes.ts, loaded by an alter only).
// New schema files are published atomically, never replaced.
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { readTextFileIfExists } from "../fs/file-io.js";
import { fileIndexSpecOf } from "../fileindex/index.js";
import { createTableSchema, parseSchemaJson, schemaToJson, type SchemaInput, type TableSchema } from "../spec/schema.js";
import type { DataType } from "../spec/types.js";
import { TablePaths } from "./paths.js";
import { checkFileFormatOptions } from "../format/file-formats.js";
import { isDeduplicateTable } from "./dedup-table.js";

/** One change of `Catalog.alterTable` (API.md `SchemaChange`). */
export type SchemaChange =
  | { kind: "addColumn"; name: string; type: string | DataType; after?: string; description?: string }
  | { kind: "renameColumn"; name: string; newName: string }
  | { kind: "dropColumn"; name: string }
  | { kind: "updateColumnType"; name: string; type: string | DataType }
  | { kind: "setOption"; key: string; value: string }
  | { kind: "removeOption"; key: string };

const SCHEMA_PREFIX = "schema-";

export class SchemaManager {
  readonly paths: TablePaths;

  constructor(
    readonly io: FileIO,
    root: string,
    /** The branch whose schemas these are (`branch/branch-<name>/schema`), `main` by default. */
    branch?: string,
  ) {
    this.paths = new TablePaths(root, { branch });
  }

  async listSchemaIds(): Promise<number[]> {
    const entries = await this.io.listStatus(this.paths.schemaDir);
    return entries
      .filter((e) => !e.isDir && e.name.startsWith(SCHEMA_PREFIX) && /^\d+$/.test(e.name.slice(SCHEMA_PREFIX.length)))
      .map((e) => Number(e.name.slice(SCHEMA_PREFIX.length)))
      .sort((a, b) => a - b);
  }

  /** The latest schema, or null when the directory holds no table. */
  async latest(): Promise<TableSchema | null> {
    const ids = await this.listSchemaIds();
    return ids.length === 0 ? null : this.schema(ids[ids.length - 1]);
  }

  async schema(id: number): Promise<TableSchema> {
    const path = this.paths.schema(id);
    const text = await readTextFileIfExists(this.io, path);
    if (text === null) throw new PaimonError("NOT_FOUND", `schema ${id} does not exist (${path})`);
    return parseSchemaJson(text, path);
  }

  /** Writes schema-0 for a new table; ALREADY_EXISTS when the table has a schema already. */
  async createTable(input: SchemaInput, where: string): Promise<TableSchema> {
    const schema = createTableSchema(input);
    validateTableSchema(schema);
    // (the layout checks load with the schema changes: a page that only reads carries neither)
    await (await import("./schema-changes.js")).validateTableLayout(schema, this);
    checkFileFormatOptions(schema.options, where);
    await checkDeduplicateTableOnLoad(schema, where);
    await checkPartitionExpireOptions(schema.options);
    if ((await this.listSchemaIds()).length > 0) throw new PaimonError("ALREADY_EXISTS", `table ${where} already exists`);
    if (!(await this.io.writeFileAtomicNoReplace(this.paths.schema(0), schemaToJson(schema)))) {
      throw new PaimonError("ALREADY_EXISTS", `table ${where} already exists`);
    }
    return schema;
  }

  /**
   * Applies `changes` to the latest schema and publishes it as the next schema id;
   * retried when another writer published a schema concurrently.
   */
  async commitChanges(changes: readonly SchemaChange[], where: string): Promise<TableSchema> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.latest();
      if (current === null) throw new PaimonError("NOT_FOUND", `table ${where} does not exist`);
      const { applySchemaChanges, validateTableLayout } = await import("./schema-changes.js");
      const next = applySchemaChanges(current, changes, where);
      validateTableSchema(next);
      await validateTableLayout(next, this);
      checkFileFormatOptions(next.options, where);
      await checkDeduplicateTableOnLoad(next, where);
      await checkPartitionExpireOptions(next.options);
      if (await this.io.writeFileAtomicNoReplace(this.paths.schema(next.id), schemaToJson(next))) return next;
    }
    throw new PaimonError("COMMIT_CONFLICT", `schema of ${where} keeps changing concurrently; alter it again`);
  }
}

/** The `partition.expiration-*` / `partition.timestamp-*` options have valid values (their checks load only for tables that set one). */
async function checkPartitionExpireOptions(o: Readonly<Record<string, string>>): Promise<void> {
  if (!Object.keys(o).some((k) => k.startsWith("partition.expiration-") || k.startsWith("partition.timestamp-"))) return;
  const { validatePartitionExpireOptions } = await import("../commit/partition-expire.js");
  validatePartitionExpireOptions(o);
}

/** Checks the file-index options of a new schema (the rest: schema-changes.ts `validateTableLayout`). */
export function validateTableSchema(schema: TableSchema): void {
  fileIndexSpecOf(schema.options, schema.fields); // file-index.* options name existing columns of indexable types
}

/**
 * `checkDeduplicateTable` (dedup-check.ts) where a table is loaded, created or altered: its checks load
 * only for deduplicate tables, so a query-only page does not carry them.
 */
export async function checkDeduplicateTableOnLoad(schema: TableSchema, where: string): Promise<void> {
  if (isDeduplicateTable(schema.options)) (await import("./dedup-check.js")).checkDeduplicateTable(schema, where);
}
