// Schema files (`schema/schema-<id>`): reading, creating and evolving them as Java's
// SchemaManager does (the changes of alterTable in schema-changes.ts, loaded by an alter only).
// New schema files are published atomically, never replaced.
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { readTextFileIfExists } from "../fs/file-io.js";
import { createTableSchema, parseSchemaJson, schemaToJson, type SchemaInput, type TableSchema } from "../spec/schema.js";
import { type DataType, typeToString } from "../spec/types.js";
import { validateOptionValues } from "./option-validation.js";
import { TablePaths } from "./paths.js";
import { fileIndexSpecOf } from "../fileindex/index.js";
import { checkFileFormatOptions } from "../format/file-formats.js";
import { checkDeduplicateTable } from "./dedup-table.js";

/** One change of `Catalog.alterTable` (API.md `SchemaChange`). */
export type SchemaChange =
  | { kind: "addColumn"; name: string; type: string | DataType; after?: string; description?: string }
  | { kind: "renameColumn"; name: string; newName: string }
  | { kind: "dropColumn"; name: string }
  | { kind: "updateColumnType"; name: string; type: string | DataType }
  | { kind: "setOption"; key: string; value: string }
  | { kind: "removeOption"; key: string };

const SCHEMA_PREFIX = "schema-";

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

export class SchemaManager {
  readonly paths: TablePaths;

  constructor(
    readonly io: FileIO,
    root: string,
  ) {
    this.paths = new TablePaths(root);
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
    checkFileFormatOptions(schema.options, where);
    checkDeduplicateTable(schema, where);
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
      const next = (await import("./schema-changes.js")).applySchemaChanges(current, changes, where);
      validateTableSchema(next);
      checkFileFormatOptions(next.options, where);
      checkDeduplicateTable(next, where);
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

/** Checks the option combinations paimon-rt (and Java) accept for a table. */
export function validateTableSchema(schema: TableSchema): void {
  const o = schema.options;
  const names = new Set(schema.fields.map((f) => f.name));
  validateOptionValues(o);
  const bucketText = o["bucket"] ?? "-1";
  const bucket = Number(bucketText);
  if (bucket < 1 && bucket !== -1 && bucket !== -2) {
    throw invalid(`option bucket must be a positive integer, -1 or -2, got '${bucketText}'`);
  }
  const bucketKey = o["bucket-key"];
  if (bucketKey !== undefined && bucketKey !== "") {
    const keys = bucketKey.split(",");
    const unknown = keys.filter((k) => !names.has(k));
    if (unknown.length) throw invalid(`bucket-key [${bucketKey}] names unknown columns: ${unknown.join(", ")}`);
    const partition = keys.filter((k) => schema.partitionKeys.includes(k));
    if (partition.length) throw invalid(`bucket-key [${bucketKey}] must not contain partition fields: ${partition.join(", ")}`);
    if (schema.primaryKeys.length > 0) {
      const outside = keys.filter((k) => !schema.primaryKeys.includes(k));
      if (outside.length) throw invalid(`bucket-key [${bucketKey}] must be a subset of the primary key [${schema.primaryKeys.join(", ")}]`);
    }
  }
  if (schema.primaryKeys.length === 0 && bucket > 0 && (bucketKey === undefined || bucketKey === "")) {
    throw invalid(`a bucketed append table (bucket = ${bucket}) needs a 'bucket-key'`);
  }
  if (schema.primaryKeys.length > 0) {
    const trimmed = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
    if (trimmed.length === 0) throw invalid(`primary key [${schema.primaryKeys.join(", ")}] must not be only partition fields`);
  }
  validateSequenceField(schema);
  fileIndexSpecOf(o, schema.fields); // file-index.* options name existing columns of indexable types
  for (const key of schema.partitionKeys) {
    const f = schema.fields.find((x) => x.name === key)!;
    if (["ARRAY", "MAP", "MULTISET", "ROW", "VARIANT", "BLOB"].includes(f.type.kind)) {
      throw invalid(`partition column ${key} cannot be of type ${typeToString(f.type)}`);
    }
  }
}

/** Java `SchemaValidation.validateSequenceField` (same messages; like Java, the sort order is checked when the table is read or written). */
function validateSequenceField(schema: TableSchema): void {
  const o = schema.options;
  const value = o["sequence.field"];
  if (value === undefined) return;
  // (Java's String.split: trailing empty parts dropped, then trimmed; an empty name is an unknown field)
  const parts = value.split(",");
  while (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const fields = parts.length === 1 && parts[0] === "" && value !== "" ? [] : parts.map((s) => s.trim());
  if (fields.length === 0) return;
  for (const field of fields) {
    if (!schema.fields.some((f) => f.name === field)) throw invalid(`Sequence field: '${field}' can not be found in table schema.`);
    if (o[`fields.${field}.aggregate-function`] !== undefined) throw invalid(`Should not define aggregation on sequence field: '${field}'.`);
    if (fields.indexOf(field) !== fields.lastIndexOf(field)) throw invalid(`Sequence field '${field}' is defined repeatedly.`);
  }
  if ((o["merge-engine"] ?? "deduplicate").toLowerCase() === "first-row") throw invalid("Do not support use sequence field on FIRST_ROW merge engine.");
  const pk = schema.primaryKeys;
  if (pk.length > 0 && !schema.partitionKeys.every((p) => pk.includes(p))) {
    throw invalid(`You can not use sequence.field in cross partition update case (Primary key constraint '[${pk.join(", ")}]' not include all partition fields '[${schema.partitionKeys.join(", ")}]').`);
  }
}
