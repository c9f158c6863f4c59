// The next schema from alterTable's changes, as Java 1.4.2's SchemaManager computes it, with its
// refusals (immutable options, key columns, type changes without a Java cast), and the checks of
// a new schema's layout. Loaded by SchemaManager.createTable and commitChanges only: reading a
// table never needs it.
import { PaimonError } from "../error.js";
import { javaAcceptsTypeChange, readCastImplemented } from "../format/type-casts.js";
import type { SchemaChange, SchemaManager } from "./schema-manager.js";
import type { TableSchema } from "../spec/schema.js";
import { type DataField, highestFieldId, reassignFieldIds, toDataType, typeToString, type DataType } from "../spec/types.js";
import { checkOptionChange } from "./options.js";
import { checkBranchName, isTrueOption as isTrue, MAIN_BRANCH, validateOptionValues } from "./option-validation.js";
import { DEDUPLICATE_KEY_FIELDS, isDeduplicateTable, REALTIME_OFFSET_FIELD } from "./dedup-table.js";

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

function fieldIndex(fields: readonly DataField[], name: string, where: number): number {
  const i = fields.findIndex((f) => f.name === name);
  if (i < 0) throw invalid(`column ${name} does not exist in schema ${where}`);
  return i;
}

/** The next schema: `current` with `changes` applied in order (Java `SchemaManager.generateTableSchema`). */
export function applySchemaChanges(current: TableSchema, changes: readonly SchemaChange[], where = "table"): TableSchema {
  let fields = [...current.fields];
  const options = { ...current.options };
  let partitionKeys = [...current.partitionKeys];
  let primaryKeys = [...current.primaryKeys];
  let highest = current.highestFieldId;
  const keyColumn = (name: string) => partitionKeys.includes(name) || primaryKeys.includes(name);
  // Java's SchemaManager reads these two from the schema being altered
  const disableNullToNotNull = isTrue(current.options["alter-column-null-to-not-null.disabled"] ?? "true");
  const disableExplicitCasts = isTrue(current.options["disable-explicit-type-casting"] ?? "false");
  for (const change of changes) {
    switch (change.kind) {
      case "addColumn": {
        if (fields.some((f) => f.name === change.name)) throw new PaimonError("ALREADY_EXISTS", `column ${change.name} already exists`);
        let type: DataType;
        try {
          type = toDataType(change.type);
        } catch (e) {
          throw invalid(`invalid type for new column ${change.name}: ${(e as Error).message}`);
        }
        if (!type.nullable) throw invalid(`column ${change.name}: a new column must be nullable (existing rows have no value)`);
        const counter = { value: highest };
        const id = ++counter.value;
        type = reassignFieldIds(type, counter);
        highest = Math.max(counter.value, highest);
        const field: DataField = change.description ? { id, name: change.name, type, description: change.description } : { id, name: change.name, type };
        if (change.after !== undefined) fields.splice(fieldIndex(fields, change.after, current.id + 1) + 1, 0, field);
        else fields.push(field);
        break;
      }
      case "renameColumn": {
        const i = fieldIndex(fields, change.name, current.id);
        if (fields.some((f) => f.name === change.newName)) throw new PaimonError("ALREADY_EXISTS", `column ${change.newName} already exists`);
        if (change.newName.trim() === "") throw invalid("a column name cannot be empty");
        // Java renames primary-key columns (the key list with them), not partition columns
        if (partitionKeys.includes(change.name)) throw new PaimonError("UNSUPPORTED", `cannot rename partition column ${change.name}`);
        checkOffsetColumnChange(options, change.name, "rename", where);
        fields[i] = { ...fields[i], name: change.newName };
        primaryKeys = primaryKeys.map((k) => (k === change.name ? change.newName : k));
        renameColumnInOptions(options, change.name, change.newName);
        break;
      }
      case "dropColumn": {
        const i = fieldIndex(fields, change.name, current.id);
        if (keyColumn(change.name)) throw new PaimonError("UNSUPPORTED", `cannot drop partition or primary-key column ${change.name}`);
        checkOffsetColumnChange(options, change.name, "drop", where);
        if (fields.length === 1) throw invalid(`cannot drop ${change.name}, the table's only column`);
        const bucketKey = options["bucket-key"]?.split(",") ?? [];
        if (bucketKey.includes(change.name)) throw new PaimonError("UNSUPPORTED", `cannot drop bucket-key column ${change.name}`);
        fields = fields.filter((_, j) => j !== i);
        break;
      }
      case "updateColumnType": {
        const i = fieldIndex(fields, change.name, current.id);
        checkOffsetColumnChange(options, change.name, "retype", where);
        let type: DataType;
        try {
          type = toDataType(change.type);
        } catch (e) {
          throw invalid(`invalid type for column ${change.name}: ${(e as Error).message}`);
        }
        const old = fields[i].type;
        const what = `change column ${change.name} from ${typeToString(old)} to ${typeToString(type)}`;
        if (keyColumn(change.name)) throw new PaimonError("UNSUPPORTED", `cannot change the type of partition or primary-key column ${change.name}`);
        if (old.nullable && !type.nullable && disableNullToNotNull) {
          throw new PaimonError("UNSUPPORTED", `cannot ${what}: a nullable column cannot become NOT NULL (unless alter-column-null-to-not-null.disabled=false, as in Java)`);
        }
        // Java's rules (DataTypeCasts.supportsCast with explicit casts, CastExecutors.resolve)
        if (!javaAcceptsTypeChange(old, type, !disableExplicitCasts)) throw new PaimonError("UNSUPPORTED", `cannot ${what}: no cast between them`);
        if (!readCastImplemented(old, type)) throw new PaimonError("UNSUPPORTED", `cannot ${what}: paimon-rt cannot read the old files under the new type (Java can)`);
        fields[i] = { ...fields[i], type };
        break;
      }
      case "setOption":
      case "removeOption": {
        const key = change.key;
        checkOptionChange(options, key, change.kind === "setOption" ? String(change.value) : undefined);
        if (change.kind === "setOption") options[key] = String(change.value);
        else delete options[key];
        break;
      }
      default:
        throw invalid(`unknown schema change ${JSON.stringify(change)}`);
    }
  }
  // Partition columns cannot be renamed and primary-key renames renamed the list, so the key lists stay valid.
  partitionKeys = partitionKeys.filter((k) => fields.some((f) => f.name === k));
  primaryKeys = primaryKeys.filter((k) => fields.some((f) => f.name === k));
  return {
    ...current,
    version: 3,
    id: current.id + 1,
    fields,
    highestFieldId: Math.max(highest, highestFieldId(fields)),
    partitionKeys,
    primaryKeys,
    options,
    timeMillis: Date.now(),
  };
}

/** Java `SchemaValidation.validateSequenceField` and its `rowkind.field` check (same messages; like Java, the sort order is checked when the table is read or written). */
function validateSequenceField(schema: TableSchema): void {
  const o = schema.options;
  const rowKindField = o["rowkind.field"];
  if (rowKindField !== undefined && !schema.fields.some((f) => f.name === rowKindField)) throw invalid(`Rowkind field: '${rowKindField}' can not be found in table schema.`);
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

/**
 * The checks of a new schema (createTable, alterTable) of the table `schemas` manages, beyond
 * its file-index options (SchemaManager's `validateTableSchema`): option values, bucket, bucket
 * key, primary and partition keys, sequence fields, the fallback / primary branch (whose
 * existence only with `schemas`: a REST catalog's server checks it).
 */
export async function validateTableLayout(schema: TableSchema, schemas: SchemaManager | null): Promise<void> {
  await validateFallbackBranch(schema.options, schemas);
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
  if (isTrue(o["row-tracking.enabled"])) {
    // Java SchemaValidation.validateRowTracking: row ids are assigned to unaware-bucket append files only
    if (bucket !== -1) throw invalid(`Cannot define bucket for row tracking table, it only support bucket = -1 (bucket = ${bucketText})`);
    if (schema.primaryKeys.length > 0) throw invalid("Cannot define primary-key for row tracking table.");
  }
  if (isTrue(o["data-evolution.enabled"])) {
    // Java SchemaValidation: data evolution numbers rows by row tracking; its reads merge no deletion vectors
    if (!isTrue(o["row-tracking.enabled"])) throw invalid("Data evolution config must enabled with row-tracking.enabled");
    if (isTrue(o["deletion-vectors.enabled"])) throw invalid("Data evolution config must disabled with deletion-vectors.enabled");
    if (isTrue(o["clustering.incremental"])) throw invalid("Data evolution config must disabled with clustering.incremental");
  }
  // Java SchemaValidation: BLOB columns (stored in .blob files or as descriptors) need data evolution
  const blobs = schema.fields.filter((f) => f.type.kind === "BLOB").map((f) => f.name);
  if (blobs.length > 0 && !isTrue(o["data-evolution.enabled"])) throw invalid("Data evolution config must enabled for table with BLOB type column.");
  if (blobs.length > 0 && blobs.length === schema.fields.length) throw invalid("Table with BLOB type column must have other normal columns.");
  const descriptorFields = (o["blob-descriptor-field"] ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "");
  for (const key of ["blob-descriptor-field", "blob-external-storage-field"]) {
    for (const name of (o[key] ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "")) {
      if (!blobs.includes(name)) throw invalid(`Field '${name}' in '${key}' must be a BLOB field in table schema.`);
      if (key === "blob-external-storage-field" && !descriptorFields.includes(name)) throw invalid(`Field '${name}' in '${key}' must also be in 'blob-descriptor-field'.`);
    }
  }
  for (const key of schema.partitionKeys) {
    const f = schema.fields.find((x) => x.name === key)!;
    if (["ARRAY", "MAP", "MULTISET", "ROW", "VARIANT", "BLOB"].includes(f.type.kind)) {
      throw invalid(`partition column ${key} cannot be of type ${typeToString(f.type)}`);
    }
  }
}

/**
 * UNSUPPORTED when a schema change of a deduplicate table would rename, drop or retype
 * `_REALTIME_OFFSET` (seed: it keeps its name, field id and non-null int64 type).
 */
function checkOffsetColumnChange(options: Readonly<Record<string, string>>, column: string, change: "rename" | "drop" | "retype", where: string): void {
  if (column !== REALTIME_OFFSET_FIELD || !isDeduplicateTable(options)) return;
  const verb = change === "rename" ? "renamed" : change === "drop" ? "dropped" : "retyped";
  throw new PaimonError("UNSUPPORTED", `${REALTIME_OFFSET_FIELD} of append deduplicate table ${where} cannot be ${verb}`);
}

/** Per-column option suffixes whose key names the column (`fields.<column>.<suffix>`), Java's list. */
const PER_COLUMN_OPTION_SUFFIXES = ["aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter"];

/**
 * The options after renaming column `from` to `to`, as Java's
 * `SchemaManager.applyRenameColumnsToOptions` does (otherwise a renamed column silently loses its
 * aggregate function and the others): the column lists `bucket-key` and `sequence.field` (and
 * `realtime.deduplicate-key-fields`), the keys `fields.<column>.aggregate-function` /
 * `ignore-retract` / `distinct` / `list-agg-delimiter`, and both the key and the value of
 * `fields.<columns>.sequence-group` / `fields.<columns>.nested-key`.
 */
function renameColumnInOptions(options: Record<string, string>, from: string, to: string): void {
  const renamed = (list: string) => list.split(",").map((c) => (c.trim() === from ? to : c)).join(",");
  for (const key of ["bucket-key", "sequence.field", DEDUPLICATE_KEY_FIELDS]) {
    const value = options[key];
    if (value === undefined || value.trim() === "") continue;
    options[key] = renamed(value);
  }
  for (const suffix of PER_COLUMN_OPTION_SUFFIXES) {
    const key = `fields.${from}.${suffix}`;
    if (!(key in options)) continue;
    const value = options[key]!;
    delete options[key];
    options[`fields.${to}.${suffix}`] = value;
  }
  for (const key of Object.keys(options)) {
    const suffix = key.startsWith("fields.") && (key.endsWith(".sequence-group") ? "sequence-group" : key.endsWith(".nested-key") ? "nested-key" : null);
    if (!suffix) continue;
    const value = options[key]!;
    delete options[key];
    options[`fields.${renamed(key.slice("fields.".length, key.length - suffix.length - 1))}.${suffix}`] = renamed(value);
  }
}

/**
 * Java `SchemaValidation.validateFallbackBranch` (same messages): `scan.fallback-branch` and
 * `scan.primary-branch` are not both set, and the branch one names exists (has a schema) in
 * table directory `root`.
 */
export async function validateFallbackBranch(o: Readonly<Record<string, string>>, schemas: SchemaManager | null): Promise<void> {
  // (the class from the instance: this module imports schema-manager.ts for its types only, staying out of query bundles' chunking)
  const hasBranch = async (branch: string) => (await new (schemas!.constructor as typeof SchemaManager)(schemas!.io, schemas!.paths.root, branch).latest()) !== null;
  const keys = ["scan.fallback-branch", "scan.primary-branch"].filter((k) => o[k] !== undefined && o[k].trim() !== "");
  if (keys.length > 1) throw invalid(`Cannot set both 'scan.fallback-branch' and 'scan.primary-branch' at the same time.`);
  for (const key of keys) {
    const branch = o[key];
    if (branch !== MAIN_BRANCH) checkBranchName(branch, `option ${key}`); // (a name that could not be a branch directory)
    if (schemas !== null && !(await hasBranch(branch))) throw invalid(`Cannot set '${key}' = '${branch}' because the branch '${branch}' does not exist.`);
  }
}
