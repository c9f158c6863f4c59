// Table schema files `schema/schema-<id>` (format reference §2): JSON exactly as Java's
// SchemaSerializer writes it (version 3, field order, Jackson pretty printing) and
// parsing of every version Java accepts (1 = Paimon 0.7, 2 = 0.8, 3 = 0.9+).

import { PaimonError } from "../error.js";
import { jsonInt, parseJson, toJacksonJson, type JsonValue } from "./json.js";
import {
  fieldFromJson,
  fieldToJson,
  highestFieldId as computeHighestFieldId,
  notNull,
  reassignFieldIds,
  toDataType,
  DataTypes,
  type DataField,
  type DataType,
  type RowType,
} from "./types.js";

export const CURRENT_SCHEMA_VERSION = 3;

export interface TableSchema {
  /** Schema file version as read (always written as 3). */
  version: number;
  id: number;
  fields: DataField[];
  highestFieldId: number;
  partitionKeys: string[];
  primaryKeys: string[];
  options: Record<string, string>;
  comment: string | null;
  timeMillis: number;
}

/** User input for a new schema (API.md `SchemaInput`). */
export interface SchemaInput {
  fields: Array<{ name: string; type: string | DataType; description?: string | null }>;
  partitionKeys?: string[];
  primaryKeys?: string[];
  options?: Record<string, string | number | boolean>;
  comment?: string | null;
}

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

function duplicates(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return [...dup];
}

function splitKeys(s: string): string[] {
  return s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
}

/**
 * Builds schema `id` (default 0) from user input the way Java's `Schema.Builder` +
 * `Schema` constructor + `SchemaManager.createTable` do: field ids from 0 in column order
 * with nested ROW fields renumbered post-order (`ReassignFieldId`), primary-key columns
 * forced NOT NULL, `primary-key` / `partition` options moved into the key lists, option
 * values stringified. Throws INVALID_ARGUMENT for bad types, duplicate or unknown columns.
 */
export function createTableSchema(input: SchemaInput, opts: { id?: number; timeMillis?: number } = {}): TableSchema {
  if (!input || !Array.isArray(input.fields) || input.fields.length === 0) throw invalid("A schema needs at least one field");
  const options: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.options ?? {})) {
    if (v === undefined || v === null) continue;
    options[k] = String(v);
  }
  let partitionKeys = [...(input.partitionKeys ?? [])];
  let primaryKeys = [...(input.primaryKeys ?? [])];
  if ("primary-key" in options) {
    if (primaryKeys.length > 0) throw invalid("Cannot define primary key on DDL and table options at the same time.");
    primaryKeys = splitKeys(options["primary-key"]!);
    delete options["primary-key"];
  }
  if ("partition" in options) {
    if (partitionKeys.length > 0) throw invalid("Cannot define partition on DDL and table options at the same time.");
    partitionKeys = splitKeys(options["partition"]!);
    delete options["partition"];
  }
  const counter = { value: -1 };
  let fields: DataField[] = input.fields.map((f) => {
    if (typeof f.name !== "string" || f.name.trim() === "") throw invalid(`Invalid column name ${JSON.stringify(f.name)}`);
    const id = ++counter.value;
    let type: DataType;
    try {
      type = toDataType(f.type);
    } catch (e) {
      throw invalid(`Invalid type for column '${f.name}': ${(e as Error).message}`);
    }
    return DataTypes.FIELD(id, f.name, reassignFieldIds(type, counter), f.description ?? null);
  });
  const names = fields.map((f) => f.name);
  const dupFields = duplicates(names);
  if (dupFields.length) throw invalid(`Table column [${names.join(", ")}] must not contain duplicate fields. Found: [${dupFields.join(", ")}]`);
  const dupPart = duplicates(partitionKeys);
  if (dupPart.length) throw invalid(`Partition key constraint [${partitionKeys.join(", ")}] must not contain duplicate columns. Found: [${dupPart.join(", ")}]`);
  const missingPart = partitionKeys.filter((k) => !names.includes(k));
  if (missingPart.length) throw invalid(`Table column [${names.join(", ")}] should include all partition fields [${partitionKeys.join(", ")}]; unknown: ${missingPart.join(", ")}`);
  if (primaryKeys.length) {
    const dupPk = duplicates(primaryKeys);
    if (dupPk.length) throw invalid(`Primary key constraint [${primaryKeys.join(", ")}] must not contain duplicate columns. Found: [${dupPk.join(", ")}]`);
    const missingPk = primaryKeys.filter((k) => !names.includes(k));
    if (missingPk.length) throw invalid(`Table column [${names.join(", ")}] should include all primary key constraint [${primaryKeys.join(", ")}]; unknown: ${missingPk.join(", ")}`);
    const pk = new Set(primaryKeys);
    fields = fields.map((f) => (pk.has(f.name) && f.type.nullable ? { ...f, type: notNull(f.type) } : f));
  }
  return {
    version: CURRENT_SCHEMA_VERSION,
    id: opts.id ?? 0,
    fields,
    highestFieldId: Math.max(counter.value, computeHighestFieldId(fields)),
    partitionKeys,
    primaryKeys,
    options,
    comment: input.comment ?? null,
    timeMillis: opts.timeMillis ?? Date.now(),
  };
}

/** `schema-<id>` JSON exactly as Java writes it (version 3). */
export function schemaToJson(schema: TableSchema): string {
  const out: { [key: string]: JsonValue | undefined } = {
    version: CURRENT_SCHEMA_VERSION,
    id: schema.id,
    fields: schema.fields.map((f) => fieldToJson(f) as JsonValue),
    highestFieldId: schema.highestFieldId,
    partitionKeys: schema.partitionKeys,
    primaryKeys: schema.primaryKeys,
    options: { ...schema.options },
    comment: schema.comment ?? undefined,
    timeMillis: schema.timeMillis,
  };
  return toJacksonJson(out);
}

/**
 * Parses a schema file. Applies Java's compatibility rules: missing `version` = 1;
 * version ≤ 1 without `bucket` ⇒ bucket=1; version ≤ 2 without `file.format` ⇒ orc;
 * missing `timeMillis` ⇒ 0; missing `highestFieldId` ⇒ computed. Throws CORRUPT_FILE naming `fileName`.
 */
export function parseSchemaJson(text: string | Uint8Array, fileName = "schema file"): TableSchema {
  const str = typeof text === "string" ? text : new TextDecoder().decode(text);
  const root = parseJson(str, fileName);
  try {
    return schemaFromJsonValue(root, fileName);
  } catch (e) {
    if (e instanceof PaimonError && e.code === "CORRUPT_FILE") throw e;
    throw new PaimonError("CORRUPT_FILE", `Cannot parse ${fileName}: ${(e as Error).message}`, { cause: e });
  }
}

function stringList(v: JsonValue | undefined, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new PaimonError("CORRUPT_FILE", `${what} is not an array`);
  return v.map((x) => String(x));
}

export function schemaFromJsonValue(root: JsonValue, fileName = "schema file"): TableSchema {
  if (root === null || typeof root !== "object" || Array.isArray(root)) throw new PaimonError("CORRUPT_FILE", `${fileName} is not a JSON object`);
  const o = root as { [key: string]: JsonValue | undefined };
  const version = jsonInt(o.version, `${fileName}: version`) ?? 1;
  const id = jsonInt(o.id, `${fileName}: id`);
  if (id === null) throw new PaimonError("CORRUPT_FILE", `${fileName} has no "id"`);
  if (!Array.isArray(o.fields)) throw new PaimonError("CORRUPT_FILE", `${fileName} has no "fields" array`);
  const fields = o.fields.map((f) => fieldFromJson(f, fileName));
  const options: Record<string, string> = {};
  const rawOptions = o.options;
  if (rawOptions && typeof rawOptions === "object" && !Array.isArray(rawOptions)) {
    for (const [k, v] of Object.entries(rawOptions)) if (v !== undefined && v !== null) options[k] = typeof v === "string" ? v : String(v);
  }
  if (version <= 1 && !("bucket" in options)) options["bucket"] = "1";
  if (version <= 2 && !("file.format" in options)) options["file.format"] = "orc";
  return {
    version,
    id,
    fields,
    highestFieldId: jsonInt(o.highestFieldId, `${fileName}: highestFieldId`) ?? computeHighestFieldId(fields),
    partitionKeys: stringList(o.partitionKeys, `${fileName}: partitionKeys`),
    primaryKeys: stringList(o.primaryKeys, `${fileName}: primaryKeys`),
    options,
    comment: o.comment === undefined || o.comment === null ? null : String(o.comment),
    timeMillis: jsonInt(o.timeMillis, `${fileName}: timeMillis`) ?? 0,
  };
}

/** The table's logical row type (NOT NULL row of all fields). */
export function logicalRowType(schema: TableSchema): RowType {
  return { kind: "ROW", nullable: false, fields: schema.fields };
}

/** Primary keys minus partition keys (the key of PK tables). INVALID_ARGUMENT if that leaves none. */
export function trimmedPrimaryKeys(schema: TableSchema): string[] {
  if (schema.primaryKeys.length === 0) return [];
  const trimmed = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  if (trimmed.length === 0)
    throw invalid(`Primary key constraint [${schema.primaryKeys.join(", ")}] should not be same with partition fields [${schema.partitionKeys.join(", ")}], this will result in only one record in a partition`);
  return trimmed;
}

/** Bucket keys: the `bucket-key` option split on "," (no trimming, as Java), else the trimmed primary keys. */
export function bucketKeys(schema: TableSchema): string[] {
  const opt = schema.options["bucket-key"];
  if (opt !== undefined && opt !== "") return opt.split(",");
  return trimmedPrimaryKeys(schema);
}

/** Fields of `schema` with the given names, in that order (INVALID_ARGUMENT on unknown names). */
export function projectFields(schema: TableSchema, names: readonly string[]): DataField[] {
  return names.map((n) => {
    const f = schema.fields.find((x) => x.name === n);
    if (!f) throw invalid(`Unknown column '${n}' in schema ${schema.id} (columns: ${schema.fields.map((x) => x.name).join(", ")})`);
    return f;
  });
}
