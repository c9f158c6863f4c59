// Reads shredded VARIANT columns of Parquet files (Java Paimon's `parquet.variant.shreddingSchema`
// and `variant.inferShreddingSchema` writes): the column's group holds `metadata`, `value` and a
// `typed_value` subtree (objects: a group per field, each with its own value / typed_value;
// arrays: a list of such groups; scalars: a typed column). Each row's binary variant is rebuilt
// as Java's reader rebuilds it (ShreddingUtils.rebuild with GenericVariantBuilder: typed fields
// first in schema order, then the leftover fields of `value`; a fresh metadata dictionary in
// that order), so the bytes equal what Java's read returns.
// A lazily imported chunk (parquet-reader.ts `plan` imports it only for a file with a shredded
// VARIANT column): only types come from the query bundle, its runtime deps are injected.
import type * as arrow from "apache-arrow";
import type { PaimonError } from "../error.js";
import type { ColumnCast } from "./type-casts.js";
import { binaryAt } from "../arrow/values.js";
import { type Variant, VariantBuilder, VariantEncodingError, type VariantFieldEntry, variantObjectFields } from "../spec/variant-encoding.js";

/** What the assembler uses of the query bundle. */
export interface ShreddedVariantDeps {
  makeData: typeof arrow.makeData;
  PaimonError: typeof PaimonError;
  /** A CORRUPT_FILE error naming the column (`what`). */
  corrupt: (what: string, detail: string) => PaimonError;
}

// Arrow type ids (apache-arrow's `Type` enum; constants here so no runtime import is needed)
const T_BOOL = 6;
const T_INT = 2;
const T_FLOAT = 3;
const T_BINARY = 4;
const T_UTF8 = 5;
const T_DECIMAL = 7;
const T_DATE = 8;
const T_LIST = 12;
const T_STRUCT = 13;

type Read = (what: string, detail: string) => never;

function child(data: arrow.Data, name: string): arrow.Data | undefined {
  const i = (data.type as arrow.Struct).children.findIndex((c) => c.name === name);
  return i < 0 ? undefined : data.children[i];
}

/** Appends the scalar `typed_value` at `i` as Java's rebuild does for its shredded type. */
function appendScalar(b: VariantBuilder, data: arrow.Data, i: number, fail: Read): void {
  // (Arrow JS slices fixed-width values and offsets with the Data: row i is index i there; boolean
  // bits stay whole, at data.offset + i)
  const type = data.type as arrow.DataType & { bitWidth?: number; precision?: number; scale?: number; unit?: number };
  switch (type.typeId) {
    case T_BOOL: {
      const bits = data.values as Uint8Array;
      const at = data.offset + i;
      return b.appendBoolean(((bits[at >> 3]! >> (at & 7)) & 1) === 1);
    }
    case T_INT: {
      const v = (data.values as unknown as ArrayLike<number | bigint>)[i]!;
      return b.appendLong(BigInt(v));
    }
    case T_FLOAT: {
      const v = (data.values as Float32Array | Float64Array)[i]!;
      // precision: 1 SINGLE, 2 DOUBLE
      return type.precision === 1 ? b.appendFloat(v) : b.appendDouble(v);
    }
    case T_UTF8:
      return b.appendUtf8(binaryAt(data, i));
    case T_BINARY:
      return b.appendBinary(binaryAt(data, i));
    case T_DECIMAL: {
      const words = (type.bitWidth ?? 128) / 32;
      const w = data.values as Uint32Array;
      let unscaled = 0n;
      for (let k = words - 1; k >= 0; k--) unscaled = (unscaled << 32n) | BigInt(w[i * words + k]!);
      return b.appendDecimal(BigInt.asIntN(words * 32, unscaled), type.scale!);
    }
    case T_DATE:
      if (type.unit !== 0) fail("typed_value", "a DATE in milliseconds");
      return b.appendDate((data.values as Int32Array)[i]!);
    default:
      return fail("typed_value", `shredded type ${String(type)} is not one Java reads`);
  }
}

/**
 * Java's ShreddingUtils.rebuild of the shredded group `group` at row `i` into `b`
 * (`metadata`: the row's top-level dictionary, for `value` binaries).
 */
function rebuild(group: arrow.Data, i: number, metadata: Uint8Array, b: VariantBuilder, fail: Read): void {
  const typed = child(group, "typed_value");
  const value = child(group, "value");
  if (typed && typed.getValid(i)) {
    if (typed.type.typeId === T_LIST) {
      const offsets = typed.valueOffsets as Int32Array;
      const elements = typed.children[0]!;
      const start = b.writePos;
      const itemOffsets: number[] = [];
      for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
        itemOffsets.push(b.writePos - start);
        if (!elements.getValid(e)) fail("typed_value", "null array element group");
        rebuild(elements, e, metadata, b, fail);
      }
      b.finishArray(start, itemOffsets);
    } else if (typed.type.typeId === T_STRUCT) {
      const start = b.writePos;
      const fields: VariantFieldEntry[] = [];
      const names = new Set<string>();
      (typed.type as arrow.Struct).children.forEach((f, k) => {
        names.add(f.name);
        const fieldGroup = typed.children[k]!;
        if (!fieldGroup.getValid(i)) fail("typed_value", `null shredded field group ${f.name}`);
        const ft = child(fieldGroup, "typed_value");
        const fv = child(fieldGroup, "value");
        if ((ft && ft.getValid(i)) || (fv && fv.getValid(i))) {
          fields.push({ key: f.name, id: b.addKey(f.name), offset: b.writePos - start });
          rebuild(fieldGroup, i, metadata, b, fail);
        }
      });
      if (value && value.getValid(i)) {
        // the fields not shredded: the object in `value`
        const rest: Variant = { value: binaryAt(value, i), metadata };
        const restFields = variantObjectFields(rest);
        if (!restFields) fail("value", "the value beside shredded fields is not an object");
        for (const { key, pos } of restFields!) {
          if (names.has(key)) fail("value", `shredded field ${key} also in value`);
          fields.push({ key, id: b.addKey(key), offset: b.writePos - start });
          b.appendVariant(rest, pos);
        }
      }
      b.finishObject(start, fields);
    } else {
      appendScalar(b, typed, i, fail);
    }
  } else if (value && value.getValid(i)) {
    b.appendVariant({ value: binaryAt(value, i), metadata });
  } else {
    fail("value", "neither value nor typed_value is set");
  }
}

/**
 * The read of a shredded VARIANT column: `apply` takes the decoded group as it is (`raw`) and
 * returns the Arrow VARIANT struct `type` (value, metadata) of Java's rebuilt variants.
 */
export function shreddedVariantCast(D: ShreddedVariantDeps, type: arrow.Struct): ColumnCast {
  return {
    key: "shredded-variant",
    fileType: type,
    raw: true,
    apply(data: arrow.Data, what: string): arrow.Data {
      const fail: Read = (part, detail) => {
        throw D.corrupt(what, `shredded VARIANT ${part}: ${detail}`);
      };
      if (data.type.typeId !== T_STRUCT) fail("column", `not a group but ${String(data.type)}`);
      const metadataColumn = child(data, "metadata");
      if (!metadataColumn || metadataColumn.type.typeId !== T_BINARY) fail("metadata", "missing");
      const values: Uint8Array[] = [];
      const metadatas: Uint8Array[] = [];
      const nullBitmap = new Uint8Array((data.length + 7) >> 3);
      for (let i = 0; i < data.length; i++) {
        if (!data.getValid(i)) {
          values.push(new Uint8Array(0));
          metadatas.push(new Uint8Array(0));
          continue;
        }
        if (!metadataColumn!.getValid(i)) fail("metadata", "null");
        nullBitmap[i >> 3]! |= 1 << (i & 7);
        const metadata = binaryAt(metadataColumn!, i);
        const b = new VariantBuilder();
        let rebuilt: Variant;
        try {
          rebuild(data, i, metadata, b, fail);
          rebuilt = b.result();
        } catch (e) {
          // malformed bytes (or a duplicate key, which Java refuses too), or a primitive type this version does not know
          if (e instanceof VariantEncodingError) throw e.code === "UNSUPPORTED" ? new D.PaimonError("UNSUPPORTED", `${what}: ${e.message}`) : D.corrupt(what, e.message);
          throw e;
        }
        values.push(rebuilt.value);
        metadatas.push(rebuilt.metadata);
      }
      const binary = (type.children[0]!.name === "value" ? [values, metadatas] : [metadatas, values]).map((parts, k) => {
        const offsets = new Int32Array(parts.length + 1);
        let size = 0;
        parts.forEach((p, j) => (offsets[j + 1] = size += p.length));
        const bytes = new Uint8Array(size);
        parts.forEach((p, j) => bytes.set(p, offsets[j]!));
        return D.makeData({ type: type.children[k]!.type as arrow.Binary, length: parts.length, nullCount: 0, valueOffsets: offsets, data: bytes });
      });
      return D.makeData({ type, length: data.length, nullCount: data.nullCount, nullBitmap, children: binary });
    },
  };
}
