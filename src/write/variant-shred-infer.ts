// Java Paimon 1.4.2's InferVariantShreddingSchema: the shredding schema of each VARIANT column
// inferred from the rows a Parquet file buffers first (`variant.inferShreddingSchema=true`).
// Per VARIANT path (top-level columns and VARIANTs nested in ROW fields, depth first), every
// non-null value's schema is merged; integers and decimals merge into the smallest decimal that
// holds both (BIGINT past 18 digits), other differing types into VARIANT; object fields carry
// how many values had them. Finalizing drops fields seen in fewer than
// ceil(non-null values × minFieldCardinalityRatio) values, widens integers to BIGINT and
// decimals to DECIMAL(18|38, s), and stops typing once maxSchemaWidth columns are spent (one
// budget over all paths, in path order). Only top-level columns are written shredded (Java's
// writer replaces top-level fields only), but the nested paths spend the budget all the same.
import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { ARRAY, arrayLayout, byteAt, metadataKey, OBJECT, objectLayout, readUnsigned, scalarAt } from "../spec/variant-encoding.js";
import { javaDoubleToInt } from "../spec/java-numbers.js";
import { type DataField, type DataType, DataTypes } from "../spec/types.js";
import { digits } from "./variant-shred-cast.js";

/** The `variant.shredding.*` limits of inference. */
export interface InferenceLimits {
  maxSchemaWidth: number;
  maxSchemaDepth: number;
  minFieldCardinalityRatio: number;
}

/** A schema being inferred: Java's DataType with the field counts it keeps in descriptions (null: only nulls seen). */
type Inferred =
  | null
  | { kind: "VARIANT" | "BIGINT" | "BOOLEAN" | "STRING" | "DOUBLE" | "FLOAT" | "DATE" | "TIMESTAMP" | "TIMESTAMP_LTZ" | "BYTES" }
  | { kind: "DECIMAL"; precision: number; scale: number }
  | { kind: "ARRAY"; element: Inferred }
  | { kind: "ROW"; fields: InferredField[] };
interface InferredField {
  name: string;
  type: Inferred;
  count: number;
}

const VARIANT: Inferred = { kind: "VARIANT" };
const VARIANT_TYPE = (): DataType => ({ kind: "VARIANT", nullable: true });
const MAX_PRECISION = 38;
/** Java's mergeRowTypes keeps at most this many fields. */
const MAX_ROW_FIELDS = 1000;

/** A failure of Java's inference on these values: its write fails, so this one is refused. */
const javaFails = (detail: string) => new PaimonError("UNSUPPORTED", `variant.inferShreddingSchema: Java Paimon 1.4.2 cannot infer a shredding schema here (${detail}); nothing was written`);

/** Java's StringUtils.isNullOrWhitespaceOnly (Character.isWhitespace per char): RowType refuses such field names. */
const WHITESPACE_ONLY = /^[\t\n\u000B\f\r\u001C-\u001F \u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]*$/;

/** Java's DataTypes.DECIMAL(p, s) check: precision 1..38, scale 0..precision. */
function decimal(precision: number, scale: number): Inferred {
  if (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision) throw javaFails(`DECIMAL(${precision}, ${scale}): "Decimal scale must be between 0 and the precision"`);
  return { kind: "DECIMAL", precision, scale };
}

/** Java's schemaOf: the schema of the variant value at `pos`. */
function schemaOf(value: Uint8Array, metadata: Uint8Array, pos: number, maxDepth: number): Inferred {
  const basic = byteAt(value, pos) & 3;
  if (basic === OBJECT) {
    if (maxDepth <= 0) return VARIANT;
    const o = objectLayout(value, pos);
    const fields: InferredField[] = [];
    for (let i = 0; i < o.size; i++) {
      const name = metadataKey(metadata, readUnsigned(value, o.idStart + o.idSize * i, o.idSize));
      const at = o.dataStart + readUnsigned(value, o.offsetStart + o.offsetSize * i, o.offsetSize);
      fields.push({ name, type: schemaOf(value, metadata, at, maxDepth - 1), count: 1 });
    }
    for (let i = 1; i < fields.length; i++) if (!(fields[i - 1]!.name < fields[i]!.name)) throw javaFails("Variant object fields must be sorted alphabetically");
    for (const f of fields) if (WHITESPACE_ONLY.test(f.name)) throw javaFails(`an object key ${JSON.stringify(f.name)}: "Field names must contain at least one non-whitespace character"`);
    return { kind: "ROW", fields };
  }
  if (basic === ARRAY) {
    if (maxDepth <= 0) return VARIANT;
    const a = arrayLayout(value, pos);
    let element: Inferred = null;
    for (let i = 0; i < a.size; i++) element = mergeSchema(element, schemaOf(value, metadata, a.dataStart + readUnsigned(value, a.offsetStart + a.offsetSize * i, a.offsetSize), maxDepth - 1));
    return { kind: "ARRAY", element: element ?? VARIANT };
  }
  const s = scalarAt(value, pos);
  switch (s.kind) {
    case "null":
      return null;
    case "boolean":
      return { kind: "BOOLEAN" };
    case "long": {
      // the smallest decimal holding it
      const precision = digits(s.v);
      return precision <= 18 ? decimal(precision, 0) : { kind: "BIGINT" };
    }
    case "string":
      return { kind: "STRING" };
    case "double":
      return { kind: "DOUBLE" };
    case "decimal": {
      // (GenericVariant.getDecimal strips trailing zeros: 1.50 is 1.5, 1200.00 is 1.2E+3, scale -1)
      let unscaled = s.unscaled;
      let scale = s.scale;
      if (unscaled === 0n) scale = 0;
      else
        while (unscaled % 10n === 0n) {
          unscaled /= 10n;
          scale--;
        }
      const precision = digits(unscaled);
      return decimal(Math.max(precision, scale), scale);
    }
    case "date":
      return { kind: "DATE" };
    case "timestamp":
      return { kind: "TIMESTAMP_LTZ" };
    case "timestamp_ntz":
      return { kind: "TIMESTAMP" };
    case "float":
      return { kind: "FLOAT" };
    case "binary":
      return { kind: "BYTES" };
    default:
      return VARIANT;
  }
}

function mergeDecimal(a: { precision: number; scale: number }, b: { precision: number; scale: number }): Inferred {
  const scale = Math.max(a.scale, b.scale);
  const range = Math.max(a.precision - a.scale, b.precision - b.scale);
  return range + scale > MAX_PRECISION ? VARIANT : decimal(range + scale, scale);
}

function mergeDecimalWithLong(d: { precision: number; scale: number }): Inferred {
  // an integer-like decimal; otherwise a long fits DECIMAL(19, 0)
  return d.scale === 0 && d.precision <= 18 ? { kind: "BIGINT" } : mergeDecimal(d, { precision: 19, scale: 0 });
}

function mergeSchema(a: Inferred, b: Inferred): Inferred {
  if (a === null) return b;
  if (b === null) return a;
  if (a.kind === "DECIMAL" && b.kind === "DECIMAL") return mergeDecimal(a, b);
  if (a.kind === "DECIMAL" && b.kind === "BIGINT") return mergeDecimalWithLong(a);
  if (a.kind === "BIGINT" && b.kind === "DECIMAL") return mergeDecimalWithLong(b);
  if (a.kind === "ROW" && b.kind === "ROW") return mergeRowTypes(a.fields, b.fields);
  if (a.kind === "ARRAY" && b.kind === "ARRAY") return { kind: "ARRAY", element: mergeSchema(a.element, b.element) };
  if (a.kind === b.kind && a.kind !== "ROW" && a.kind !== "ARRAY") return a;
  return VARIANT;
}

/** Java's mergeRowTypes: both field lists are sorted by name (String.compareTo); counts add up. */
function mergeRowTypes(a: InferredField[], b: InferredField[]): Inferred {
  const fields: InferredField[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length && fields.length < MAX_ROW_FIELDS) {
    const x = a[i]!;
    const y = b[j]!;
    if (x.name === y.name) {
      fields.push({ name: x.name, type: mergeSchema(x.type, y.type), count: x.count + y.count });
      i++;
      j++;
    } else if (x.name < y.name) {
      fields.push(x);
      i++;
    } else {
      fields.push(y);
      j++;
    }
  }
  while (i < a.length && fields.length < MAX_ROW_FIELDS) fields.push(a[i++]!);
  while (j < b.length && fields.length < MAX_ROW_FIELDS) fields.push(b[j++]!);
  return { kind: "ROW", fields };
}

/** Java's finalizeSimpleSchema: the Paimon type to shred `type` as, spending `budget.remaining`. */
function finalizeSchema(type: Inferred, minCardinality: number, budget: { remaining: number }): DataType {
  // every field uses a value column
  if (--budget.remaining <= 0) return VARIANT_TYPE();
  if (type === null || type.kind === "VARIANT") return VARIANT_TYPE();
  switch (type.kind) {
    case "ROW": {
      const fields: DataField[] = [];
      for (const f of type.fields) {
        if (f.count >= minCardinality && budget.remaining > 0) fields.push({ id: fields.length, name: f.name, type: finalizeSchema(f.type, minCardinality, budget) });
      }
      return fields.length > 0 ? DataTypes.ROW(fields) : VARIANT_TYPE();
    }
    case "ARRAY":
      return DataTypes.ARRAY(finalizeSchema(type.element, minCardinality, budget));
    case "BIGINT":
      budget.remaining--;
      return DataTypes.BIGINT();
    case "DECIMAL":
      budget.remaining--;
      if (type.precision <= 18 && type.scale === 0) return DataTypes.BIGINT();
      return DataTypes.DECIMAL(type.precision <= 18 ? 18 : MAX_PRECISION, type.scale);
    default:
      // other scalars use a typed_value column
      budget.remaining--;
      return SCALAR_TYPES[type.kind]();
  }
}

const SCALAR_TYPES: Record<"BOOLEAN" | "STRING" | "DOUBLE" | "FLOAT" | "DATE" | "TIMESTAMP" | "TIMESTAMP_LTZ" | "BYTES", () => DataType> = {
  BOOLEAN: DataTypes.BOOLEAN,
  STRING: DataTypes.STRING,
  DOUBLE: DataTypes.DOUBLE,
  FLOAT: DataTypes.FLOAT,
  DATE: DataTypes.DATE,
  TIMESTAMP: () => DataTypes.TIMESTAMP(6),
  TIMESTAMP_LTZ: () => DataTypes.TIMESTAMP_LTZ(6),
  BYTES: DataTypes.BYTES,
};

/**
 * Java's getPathsToVariant: the field index paths of the VARIANTs of `fields`, top-level and
 * nested in ROW fields (not in ARRAY or MAP), depth first.
 */
export function variantPaths(fields: readonly DataField[]): number[][] {
  const paths: number[][] = [];
  fields.forEach((f, i) => {
    if (f.type.kind === "VARIANT") paths.push([i]);
    else if (f.type.kind === "ROW") for (const inner of variantPaths(f.type.fields)) paths.push([i, ...inner]);
  });
  return paths;
}

/** A VARIANT column of the file (the Parquet layout's Struct<value, metadata>): the variant of row `i`, or null. */
export type VariantAt = (data: arrow.Data, i: number) => VariantBytes | null;

/** A variant's two binaries. */
type VariantBytes = { value: Uint8Array; metadata: Uint8Array };

/** Java's inference over one path's values (null: a null variant), spending `budget`. */
function inferFrom(values: Iterable<VariantBytes | null>, limits: InferenceLimits, budget: { remaining: number }): DataType {
  let nonNull = 0;
  let merged: Inferred = null;
  for (const v of values) {
    if (!v) continue;
    nonNull++;
    merged = mergeSchema(merged, schemaOf(v.value, v.metadata, 0, limits.maxSchemaDepth));
  }
  // fields in fewer than this many values stay in `value`
  return finalizeSchema(merged, javaDoubleToInt(Math.ceil(nonNull * limits.minFieldCardinalityRatio)), budget);
}

/** The variants at `path` in the first `rowLimit` rows of `batches` (null where it or a ROW on the way is null). */
function* valuesAt(batches: readonly arrow.RecordBatch[], path: readonly number[], rowLimit: number, variantAt: VariantAt): Generator<VariantBytes | null> {
  let seen = 0;
  for (const batch of batches) {
    if (seen >= rowLimit) return;
    const column = batch.data.children[path[0]!]!;
    const rows = Math.min(batch.numRows, rowLimit - seen);
    seen += rows;
    for (let r = 0; r < rows; r++) {
      let data: arrow.Data | undefined = column;
      for (let k = 1; data && k < path.length; k++) data = data.getValid(r) ? data.children[path[k]!] : undefined;
      yield data && data.getValid(r) ? variantAt(data, r) : null;
    }
  }
}

/**
 * The inferred shredding type (Java's finalized schema, before `shreddingGroupType`) of every
 * VARIANT path of `fields`, from the first `rowLimit` rows of `batches`, in `variantPaths` order.
 */
export function inferShreddingTypes(fields: readonly DataField[], batches: readonly arrow.RecordBatch[], rowLimit: number, limits: InferenceLimits, variantAt: VariantAt): Array<{ path: number[]; type: DataType }> {
  const budget = { remaining: limits.maxSchemaWidth };
  return variantPaths(fields).map((path) => ({ path, type: inferFrom(valuesAt(batches, path, rowLimit, variantAt), limits, budget) }));
}

/** The inferred shredding type of one VARIANT column's values (null: a null variant), as `inferShreddingTypes` gives it for a lone column. */
export function inferShreddingTypeOf(values: Iterable<VariantBytes | null>, limits: InferenceLimits): DataType {
  return inferFrom(values, limits, { remaining: limits.maxSchemaWidth });
}
