// Which VARIANT columns of a Parquet data file are written shredded, as Java Paimon 1.4.2 decides:
// - `parquet.variant.shreddingSchema` (a JSON ROW type: a field per column, its type the shape to
//   shred) reaches the Parquet writer (RowDataParquetBuilder gets the `parquet.`-prefixed options;
//   `variant.shreddingSchema` itself is the CoreOptions key, with the parquet one as fallback, so
//   it does not): the named top-level VARIANT columns are shredded with that schema in every file;
// - otherwise `variant.inferShreddingSchema=true` (VariantInferenceConfig: off when either
//   schema key is set, or without a top-level VARIANT column): each file infers the schema from
//   its first `variant.shredding.maxInferBufferRow` rows (variant-shred-infer.ts).
// Java fails on a malformed schema when any Parquet file is opened, so does this, before anything
// is written: INVALID_ARGUMENT naming the option. Schemas Java's writer cannot write
// (a NOT NULL typed column, CHAR or BYTES typed values, an empty ROW) are refused as well.
import type * as arrow from "apache-arrow";
import { binaryAt } from "../arrow/values.js";
import { PaimonError } from "../error.js";
import type { ShreddedVariantColumn, VariantShreddingPlan } from "../format/parquet-writer.js";
import { VariantEncodingError } from "../spec/variant-encoding.js";
import { parseJavaDouble } from "../spec/java-numbers.js";
import { type DataField, type DataType, type RowType, typeFromJson } from "../spec/types.js";
import { requireIntOption } from "../table/option-validation.js";
import { ShreddedGroup } from "./variant-shred-cast.js";
import { type InferenceLimits, inferShreddingTypes } from "./variant-shred-infer.js";
import { shreddedParquetField, shreddingGroupType, type ShredLevel, shredLevelOf } from "./variant-shred-schema.js";

export const SHREDDING_SCHEMA_OPTION = "parquet.variant.shreddingSchema";
/** CoreOptions' own key: it turns inference off but, in 1.4.2, never reaches the Parquet writer. */
const CORE_SHREDDING_SCHEMA_OPTION = "variant.shreddingSchema";
export const INFER_OPTION = "variant.inferShreddingSchema";
const WIDTH_OPTION = "variant.shredding.maxSchemaWidth";
const DEPTH_OPTION = "variant.shredding.maxSchemaDepth";
const RATIO_OPTION = "variant.shredding.minFieldCardinalityRatio";
const BUFFER_OPTION = "variant.shredding.maxInferBufferRow";

/** The value of the Parquet writer's `parquet.variant.shreddingSchema` (its `parquet.` prefix matched case-insensitively, as FileFormat does). */
function parquetShreddingSchemaText(options: Readonly<Record<string, string>>): string | undefined {
  if (options[SHREDDING_SCHEMA_OPTION] !== undefined) return options[SHREDDING_SCHEMA_OPTION];
  const key = Object.keys(options).find((k) => k.toLowerCase().startsWith("parquet.") && k.slice("parquet.".length) === "variant.shreddingSchema");
  return key === undefined ? undefined : options[key];
}

/** The shredding group type of each column the schema option names (Java's shreddingSchemasFromOptions). */
function explicitGroups(text: string): Map<string, RowType> {
  let type: DataType;
  try {
    type = typeFromJson(JSON.parse(text), SHREDDING_SCHEMA_OPTION);
  } catch (e) {
    throw new PaimonError("INVALID_ARGUMENT", `option ${SHREDDING_SCHEMA_OPTION}: not a JSON ROW type (${(e as Error).message})`);
  }
  if (type.kind !== "ROW") throw new PaimonError("INVALID_ARGUMENT", `option ${SHREDDING_SCHEMA_OPTION}: not a ROW type but ${type.kind}`);
  return new Map(type.fields.map((f) => [f.name, shreddingGroupType(f.type, `option ${SHREDDING_SCHEMA_OPTION}`)] as const));
}

/**
 * The Parquet names of VARIANTs nested in ROW, ARRAY or MAP types (`element`, `key`, `value` for
 * collections): Java's writer looks these up among the shredding schemas by name too, and fails
 * when one is there (it would shred into the nested group's unshredded layout).
 */
function nestedVariantNames(fields: readonly DataField[]): Set<string> {
  const names = new Set<string>();
  const walk = (name: string, type: DataType, nested: boolean): void => {
    if (type.kind === "VARIANT" && nested) names.add(name);
    else if (type.kind === "ROW") for (const f of type.fields) walk(f.name, f.type, true);
    else if (type.kind === "ARRAY" || type.kind === "MULTISET") walk("element", type.element, true);
    else if (type.kind === "MAP") {
      walk("key", type.key, true);
      walk("value", type.value, true);
    }
  };
  for (const f of fields) walk(f.name, f.type, false);
  return names;
}

function refuseNestedCollisions(fields: readonly DataField[], shreddingNames: Iterable<string>, where: string): void {
  const nested = nestedVariantNames(fields);
  for (const name of shreddingNames) {
    if (nested.has(name)) throw new PaimonError("UNSUPPORTED", `${where}: a nested VARIANT field is named '${name}' like a shredding schema's column; Java Paimon 1.4.2's Parquet writer fails on it (it shreds top-level columns only but looks nested ones up by name)`);
  }
}

/** A VARIANT column of the Parquet layout, `Struct<value, metadata>`: row `i`'s binaries. */
function variantAt(data: arrow.Data, i: number): { value: Uint8Array; metadata: Uint8Array } {
  return { value: binaryAt(data.children[0]!, i), metadata: binaryAt(data.children[1]!, i) };
}

/** Column `field` written shredded as `level` (its Parquet group `group`). */
function shreddedColumn(field: DataField, group: RowType, level: ShredLevel): ShreddedVariantColumn {
  const parquetField = shreddedParquetField(field, group);
  return {
    field: parquetField,
    shred(data: arrow.Data): arrow.Data {
      const out = new ShreddedGroup(level);
      try {
        for (let i = 0; i < data.length; i++) {
          if (!data.getValid(i)) {
            out.appendEmpty(false);
          } else {
            out.append(binaryAt(data.children[0]!, i), binaryAt(data.children[1]!, i), 0);
          }
        }
      } catch (e) {
        if (e instanceof VariantEncodingError) throw new PaimonError(e.code === "UNSUPPORTED" ? "UNSUPPORTED" : "INVALID_ARGUMENT", `VARIANT column '${field.name}' cannot be shredded: ${e.message}`);
        throw e;
      }
      return out.finish(parquetField.type as arrow.Struct);
    },
  };
}

/** A Java int option (any int, as Java takes it; checked at create too). */
function intOption(options: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const raw = options[key];
  return raw === undefined ? fallback : requireIntOption(key, raw);
}

/**
 * The inference limits of the table's options (defaults: width 300, depth 50, ratio 0.1, 4096
 * rows). Any int and any double Java parses is taken, with Java's meaning: a width or depth of 0
 * or less shreds nothing, a buffer of 0 or less infers from the first row, a ratio of 0 or less
 * (or NaN) keeps every field, one above 1 none.
 */
function inferenceLimits(options: Readonly<Record<string, string>>): InferenceLimits & { maxInferBufferRow: number } {
  const ratioText = options[RATIO_OPTION];
  const ratio = ratioText === undefined ? 0.1 : parseJavaDouble(ratioText);
  if (ratio === null) throw new PaimonError("INVALID_ARGUMENT", `option ${RATIO_OPTION}: '${ratioText}' is not a number`);
  return {
    maxSchemaWidth: intOption(options, WIDTH_OPTION, 300),
    maxSchemaDepth: intOption(options, DEPTH_OPTION, 50),
    minFieldCardinalityRatio: ratio,
    // (Java's writer infers once its buffer holds this many rows, checked after each row)
    maxInferBufferRow: Math.max(1, intOption(options, BUFFER_OPTION, 4096)),
  };
}

/** `variant.inferShreddingSchema` as Java's boolean option reads it. */
function inferenceOn(options: Readonly<Record<string, string>>): boolean {
  const raw = options[INFER_OPTION];
  if (raw === undefined) return false;
  const text = raw.trim().toLowerCase();
  if (text !== "true" && text !== "false") throw new PaimonError("INVALID_ARGUMENT", `option ${INFER_OPTION}: '${raw}' is not true or false`);
  return text === "true";
}

/** Shredding columns by the schema option: the same columns in every file. */
function explicitPlan(fields: readonly DataField[], text: string): VariantShreddingPlan | undefined {
  const groups = explicitGroups(text);
  refuseNestedCollisions(fields, groups.keys(), `option ${SHREDDING_SCHEMA_OPTION}`);
  const columns = new Map<number, ShreddedVariantColumn>();
  fields.forEach((f, i) => {
    const group = f.type.kind === "VARIANT" ? groups.get(f.name) : undefined;
    if (group) columns.set(i, shreddedColumn(f, group, shredLevelOf(group, `option ${SHREDDING_SCHEMA_OPTION}`)));
  });
  return columns.size === 0 ? undefined : { columns: () => columns };
}

/** Shredding every top-level VARIANT column by the schema inferred from each file's first rows. */
function inferencePlan(fields: readonly DataField[], limits: InferenceLimits & { maxInferBufferRow: number }): VariantShreddingPlan {
  // (the inferred schema names every top-level field)
  refuseNestedCollisions(
    fields,
    fields.map((f) => f.name),
    `option ${INFER_OPTION}`,
  );
  return {
    columns(fileFields, batches) {
      const columns = new Map<number, ShreddedVariantColumn>();
      for (const { path, type } of inferShreddingTypes(fileFields, batches, limits.maxInferBufferRow, limits, variantAt)) {
        let group: RowType;
        try {
          group = shreddingGroupType(type, INFER_OPTION);
          if (path.length === 1) columns.set(path[0]!, shreddedColumn(fileFields[path[0]!]!, group, shredLevelOf(group, INFER_OPTION)));
        } catch (e) {
          // an inferred type Java's writer has no shredding for (DATE, TIMESTAMP, BYTES values)
          if (e instanceof PaimonError) throw new PaimonError("UNSUPPORTED", `${INFER_OPTION}: Java Paimon 1.4.2 cannot write the shredding schema it infers here (${e.message}); nothing was written`);
          throw e;
        }
      }
      return columns;
    },
  };
}

/**
 * The VARIANT shredding of a Parquet data file of `fields` under the table's `options`, or
 * undefined when its VARIANT columns are written unshredded. Refuses malformed options
 * (INVALID_ARGUMENT naming the option) whenever a Parquet file is opened, as Java does.
 */
export function variantShreddingPlan(options: Readonly<Record<string, string>>, fields: readonly DataField[]): VariantShreddingPlan | undefined {
  const text = parquetShreddingSchemaText(options);
  if (text !== undefined) return explicitPlan(fields, text);
  if (options[CORE_SHREDDING_SCHEMA_OPTION] !== undefined) return undefined;
  if (!inferenceOn(options) || !fields.some((f) => f.type.kind === "VARIANT")) return undefined;
  return inferencePlan(fields, inferenceLimits(options));
}
