// Shredding schemas of VARIANT columns as Java Paimon 1.4.2 builds them for its Parquet writer:
// `shreddingGroupType` is PaimonShreddingUtils.variantShreddingSchema (the Paimon ROW type of the
// column's Parquet group, with Java's field ids), `shredLevelOf` is buildVariantSchema (what the
// writer walks), and `shreddedParquetField` is that group in the Parquet layout Java's
// ParquetSchemaConverter gives it. Errors are Java's failures, raised before anything is written.
import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { parquetArrowField } from "../format/arrow-types.js";
import { type DataField, type DataType, DataTypes, type RowType, typeToString } from "../spec/types.js";

export const METADATA_FIELD = "metadata";
export const VALUE_FIELD = "value";
export const TYPED_VALUE_FIELD = "typed_value";

/** The typed column of a shredded scalar (Java's VariantSchema.ScalarType that Paimon writes). */
export type ShredScalar =
  | { kind: "boolean" }
  | { kind: "int"; bits: 8 | 16 | 32 | 64 }
  | { kind: "float" }
  | { kind: "double" }
  | { kind: "string" }
  | { kind: "decimal"; precision: number; scale: number };

/** One level of a shredding schema (Java's VariantSchema): what `typed_value` holds, if anything. */
export interface ShredLevel {
  /** Top level: the group carries the row's `metadata`. */
  readonly topLevel: boolean;
  readonly scalar: ShredScalar | null;
  /** Object fields in schema order, and their index by name. */
  readonly objectFields: ReadonlyArray<{ readonly name: string; readonly level: ShredLevel }> | null;
  readonly objectIndex: ReadonlyMap<string, number> | null;
  readonly arrayElement: ShredLevel | null;
}

const invalidSchema = (type: DataType, where: string) => new PaimonError("INVALID_ARGUMENT", `${where}: invalid variant shredding schema: ${typeToString(type)}`);

/**
 * Java's `variantShreddingSchema(dataType, isTopLevel, isObjectField)`: the ROW type of a shredded
 * group for values of `type`: `metadata` (top level, required), `value` (optional, except a
 * VARIANT leaf that is not an object field) and `typed_value`. Field ids count from 0 per group
 * (RowType.builder()); object fields keep their ids from `type`. `where` names the source in errors.
 */
export function shreddingGroupType(type: DataType, where: string, topLevel = true, objectField = false): RowType {
  const fields: DataField[] = [];
  const add = (name: string, t: DataType) => fields.push({ id: fields.length, name, type: t });
  if (topLevel) add(METADATA_FIELD, { ...DataTypes.BYTES(), nullable: false });
  switch (type.kind) {
    case "ARRAY":
      add(VALUE_FIELD, DataTypes.BYTES());
      add(TYPED_VALUE_FIELD, { kind: "ARRAY", nullable: type.nullable, element: shreddingGroupType(type.element, where, false, false) });
      break;
    case "ROW":
      add(VALUE_FIELD, DataTypes.BYTES());
      // each field's group is required: a missing field is a group with value and typed_value null
      add(TYPED_VALUE_FIELD, { kind: "ROW", nullable: type.nullable, fields: type.fields.map((f) => ({ id: f.id, name: f.name, type: { ...shreddingGroupType(f.type, where, false, true), nullable: false } })) });
      break;
    case "VARIANT":
      add(VALUE_FIELD, { ...DataTypes.BYTES(), nullable: objectField });
      break;
    case "CHAR":
    case "VARCHAR":
    case "BOOLEAN":
    case "BINARY":
    case "VARBINARY":
    case "DECIMAL":
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "FLOAT":
    case "DOUBLE":
      add(VALUE_FIELD, DataTypes.BYTES());
      add(TYPED_VALUE_FIELD, type);
      break;
    default:
      throw invalidSchema(type, where);
  }
  // (Java's RowType.builder() makes a nullable ROW, whatever the column's nullability)
  return DataTypes.ROW(fields);
}

/**
 * Java's `buildVariantSchema`: the shredding levels of a group made by `shreddingGroupType`. The
 * typed kinds Java's writer rejects here (CHAR, VARBINARY/BYTES, an empty object) are refused, and
 * BINARY(n), which Java writes but cannot read back.
 */
export function shredLevelOf(group: RowType, where: string, topLevel = true): ShredLevel {
  if (group.fields.length === 0) throw invalidSchema(group, where);
  let scalar: ShredScalar | null = null;
  let objectFields: Array<{ name: string; level: ShredLevel }> | null = null;
  let arrayElement: ShredLevel | null = null;
  let hasMetadata = false;
  for (const f of group.fields) {
    const t = f.type;
    if (f.name === TYPED_VALUE_FIELD) {
      // not null: a value that does not fit (or a variant null) leaves typed_value null
      if (!t.nullable) throw new PaimonError("INVALID_ARGUMENT", `${where}: a NOT NULL type in a variant shredding schema cannot hold values that do not fit it (${typeToString(t)})`);
      switch (t.kind) {
        case "ROW":
          // (parquet-mr cannot write an empty group)
          if (t.fields.length === 0) throw invalidSchema(group, where);
          objectFields = t.fields.map((field) => ({ name: field.name, level: shredLevelOf(field.type as RowType, where, false) }));
          break;
        case "ARRAY":
          arrayElement = shredLevelOf(t.element as RowType, where, false);
          break;
        case "BOOLEAN":
          scalar = { kind: "boolean" };
          break;
        case "TINYINT":
          scalar = { kind: "int", bits: 8 };
          break;
        case "SMALLINT":
          scalar = { kind: "int", bits: 16 };
          break;
        case "INT":
          scalar = { kind: "int", bits: 32 };
          break;
        case "BIGINT":
          scalar = { kind: "int", bits: 64 };
          break;
        case "FLOAT":
          scalar = { kind: "float" };
          break;
        case "DOUBLE":
          scalar = { kind: "double" };
          break;
        case "VARCHAR":
          scalar = { kind: "string" };
          break;
        case "BINARY":
          // Java 1.4.2 writes these but its reader refuses the file (a Parquet BINARY typed_value
          // reads back as BYTES, which buildVariantSchema rejects)
          throw new PaimonError("INVALID_ARGUMENT", `${where}: a BINARY typed value in a variant shredding schema makes files Java Paimon 1.4.2 cannot read (${typeToString(t)})`);
        case "DECIMAL":
          scalar = { kind: "decimal", precision: t.precision, scale: t.scale };
          break;
        default:
          throw invalidSchema(group, where);
      }
    } else if (f.name === METADATA_FIELD) {
      hasMetadata = true;
    } else if (f.name !== VALUE_FIELD) {
      throw invalidSchema(group, where);
    }
  }
  if (topLevel !== hasMetadata) throw invalidSchema(group, where);
  const objectIndex = objectFields && new Map(objectFields.map((f, i) => [f.name, i] as const));
  return { topLevel, scalar, objectFields, objectIndex, arrayElement };
}

/**
 * The Parquet field (Arrow form, field ids attached) of VARIANT column `column` shredded as
 * `group`: Java's ParquetSchemaConverter of the group's ROW type (optional, as Java writes it).
 */
export function shreddedParquetField(column: DataField, group: RowType): arrow.Field {
  return parquetArrowField({ id: column.id, name: column.name, type: group });
}
