// Arrow <-> Parquet type conventions for Paimon data files, and conversion of Arrow data
// between compatible Arrow types (used by the writer to bring input batches into the Parquet
// layout, and by the reader to bring file columns into the requested read schema).

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { ARROW_FIELD_ID_KEY, atomicArrowType, type DataField, type DataType, toArrowType } from "../spec/types.js";

/** Java `SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE` (Integer.MAX_VALUE / 4). */
export const STRUCTURED_TYPE_FIELD_ID_BASE = 536870911;
const DEPTH_LIMIT = 1024;

export function arrayElementFieldId(fieldId: number, depth: number): number {
  return STRUCTURED_TYPE_FIELD_ID_BASE + fieldId * DEPTH_LIMIT + depth;
}
export function mapKeyFieldId(fieldId: number, depth: number): number {
  return STRUCTURED_TYPE_FIELD_ID_BASE - fieldId * DEPTH_LIMIT - depth;
}
export function mapValueFieldId(fieldId: number, depth: number): number {
  return STRUCTURED_TYPE_FIELD_ID_BASE + fieldId * DEPTH_LIMIT + depth;
}

function idMeta(id: number, extra?: Record<string, string>): Map<string, string> {
  const m = new Map<string, string>([[ARROW_FIELD_ID_KEY, String(id)]]);
  if (extra) for (const [k, v] of Object.entries(extra)) m.set(k, v);
  return m;
}

/**
 * The Arrow type that parquet-rs turns into the Parquet type Paimon's `ParquetSchemaConverter`
 * writes for `type` (format reference §14). `fieldId`/`depth` number nested element ids.
 */
export function parquetArrowType(type: DataType, fieldId: number, depth: number, layout: ParquetArrowLayout = "file"): arrow.DataType {
  const atomic = atomicArrowType(type);
  if (atomic) return atomic;
  switch (type.kind) {
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      // INT64 MILLIS (p <= 3) / MICROS (p <= 6). Java writes INT96 for p > 6, which parquet-rs
      // cannot write: it writes FIXED_LEN_BYTE_ARRAY(12) holding INT96 bytes (convertData), and
      // the post-write pass (parquet-pages.ts) retypes the leaf; the hint layout says Timestamp(ns).
      const tz = type.kind === "TIMESTAMP_LTZ" ? "UTC" : null;
      if (type.precision <= 3) return new arrow.TimestampMillisecond(tz);
      if (type.precision <= 6) return new arrow.TimestampMicrosecond(tz);
      return layout === "file" ? new arrow.FixedSizeBinary(INT96_BYTES) : new arrow.TimestampNanosecond(tz);
    }
    case "ARRAY": {
      const id = arrayElementFieldId(fieldId, depth + 1);
      return new arrow.List(new arrow.Field("element", parquetArrowType(type.element, fieldId, depth + 1, layout), type.element.nullable, idMeta(id, timeMeta(type.element))));
    }
    case "MAP":
    case "MULTISET": {
      const keyType = type.kind === "MAP" ? type.key : type.element;
      const valueType: DataType = type.kind === "MAP" ? type.value : { kind: "INT", nullable: false };
      const key = new arrow.Field("key", parquetArrowType(keyType, fieldId, depth + 1, layout), false, idMeta(mapKeyFieldId(fieldId, depth + 1), timeMeta(keyType)));
      const value = new arrow.Field(
        "value",
        parquetArrowType(valueType, fieldId, depth + 1, layout),
        valueType.nullable,
        idMeta(mapValueFieldId(fieldId, depth + 1), timeMeta(valueType)),
      );
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const map = new arrow.Map_(new arrow.Field("key_value", new arrow.Struct([key, value]) as any, false), false);
      // Arrow JS renames the entries field to "entries"; Paimon/parquet-mr name the group key_value.
      (map.children[0] as { name: string }).name = "key_value";
      return map;
    }
    case "ROW":
      // (Java converts a ROW's fields as top-level ones: nested ids count depth from 0 again)
      return new arrow.Struct(type.fields.map((f) => parquetArrowField(f, 0, layout)));
    case "VARIANT":
      // Java's ParquetSchemaConverter: a group of required binaries `value` (id 0) and `metadata` (id 1), unshredded, no logical type
      return new arrow.Struct([new arrow.Field("value", new arrow.Binary(), false, idMeta(0)), new arrow.Field("metadata", new arrow.Binary(), false, idMeta(1))]);
    default:
      throw new PaimonError("UNSUPPORTED", `no Parquet layout for ${type.kind}`);
  }
}

/** TIME is annotated isAdjustedToUTC=true by Java; parquet-rs sets it from this metadata key. */
function timeMeta(type: DataType): Record<string, string> | undefined {
  return type.kind === "TIME" ? { adjusted_to_utc: "true" } : undefined;
}

/** Paimon field -> Arrow field in the Parquet layout, `PARQUET:field_id` on it and all nested fields. */
export function parquetArrowField(field: DataField, depth = 0, layout: ParquetArrowLayout = "file"): arrow.Field {
  return new arrow.Field(field.name, parquetArrowType(field.type, field.id, depth, layout), field.type.nullable, idMeta(field.id, timeMeta(field.type)));
}

/**
 * Arrow schema whose Parquet translation (by parquet-rs, then the post-write pass) is exactly what
 * Java Paimon writes ("file"), or the Arrow types those columns mean, for the `ARROW:schema`
 * footer hint ("hint": TIMESTAMP(7-9) as Timestamp(ns) instead of their INT96 bytes).
 */
export function parquetArrowSchema(fields: readonly DataField[], layout: ParquetArrowLayout = "file"): arrow.Schema {
  return new arrow.Schema(fields.map((f) => parquetArrowField(f, 0, layout)));
}

/** "file": the Arrow types parquet-wasm is given; "hint": the types recorded in `ARROW:schema`. */
export type ParquetArrowLayout = "file" | "hint";

/** Bytes of an INT96 timestamp: nanoseconds of the day (int64 LE), then the Julian day (int32 LE). */
export const INT96_BYTES = 12;
const JULIAN_DAY_OF_EPOCH = 2440588n;
const NANOS_PER_DAY = 86400000000000n;

/**
 * Leaf columns (depth-first, as Parquet numbers them) of `fields` that hold INT96 timestamps:
 * TIMESTAMP / TIMESTAMP_LTZ with precision > 6, at any nesting depth.
 */
export function int96Leaves(fields: readonly DataField[]): Set<number> {
  const out = new Set<number>();
  let leaf = 0;
  const walk = (type: DataType): void => {
    switch (type.kind) {
      case "ARRAY":
        return walk(type.element);
      case "MAP":
        walk(type.key);
        return walk(type.value);
      case "MULTISET":
        walk(type.element);
        leaf++; // the INT count
        return;
      case "ROW":
        for (const f of type.fields) walk(f.type);
        return;
      case "TIMESTAMP":
      case "TIMESTAMP_LTZ":
        if (type.precision > 6) out.add(leaf);
        leaf++;
        return;
      case "VARIANT":
        leaf += 2; // value and metadata (unshredded; ParquetFileWriter renumbers past shredded groups)
        return;
      default:
        leaf++;
    }
  };
  for (const f of fields) walk(f.type);
  return out;
}

/**
 * Timestamps as INT96 bytes. The Julian day is floored so that the nanoseconds of the day lie in
 * [0, 86400e9) as the Parquet INT96 convention (Impala, Spark, Hive) has them. Java Paimon's
 * `timestampToInt96` truncates instead, giving negative nanoseconds of the day before 1970 — the
 * same instant for every reader that adds days and nanoseconds, but Java Paimon's own reader
 * (`int96ToTimestamp`) then returns a negative nano-of-millisecond; the floored form reads back
 * exactly there too.
 */
function int96Data(data: arrow.Data, to: arrow.FixedSizeBinary): arrow.Data {
  const nanos = rescaleBigInts(timestampValues(data), (data.type as arrow.Timestamp).unit, arrow.TimeUnit.NANOSECOND);
  const out = new Uint8Array(data.length * INT96_BYTES);
  const view = new DataView(out.buffer);
  for (let i = 0; i < data.length; i++) {
    const v = nanos[i]!;
    const day = floorDiv(v, NANOS_PER_DAY);
    view.setBigInt64(i * INT96_BYTES, v - day * NANOS_PER_DAY, true);
    view.setInt32(i * INT96_BYTES + 8, Number(day + JULIAN_DAY_OF_EPOCH), true);
  }
  return arrow.makeData({ type: to, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), data: out });
}

export function base64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** The in-memory Arrow field for a Paimon field (spec/types.ts mapping) — what the reader returns. */
export function readArrowField(field: DataField): arrow.Field {
  // Schema fields are immutable and every read builds its schema from them: one Field each.
  let f = readFields.get(field);
  if (f === undefined) readFields.set(field, (f = newReadArrowField(field)));
  return f;
}

const readFields = new WeakMap<DataField, arrow.Field>();

/**
 * The Arrow schema of reading `fields` (readArrowField each), one per fields array: a table
 * schema's field list is immutable, and every read of all its columns needs this schema.
 */
export function readArrowSchema(fields: readonly DataField[]): arrow.Schema {
  let schema = readSchemas.get(fields);
  if (schema === undefined) readSchemas.set(fields, (schema = new arrow.Schema(fields.map((f) => readArrowField(f)))));
  return schema;
}

const readSchemas = new WeakMap<readonly DataField[], arrow.Schema>();

function newReadArrowField(field: DataField): arrow.Field {
  return new arrow.Field(field.name, toArrowType(field.type), field.type.nullable, new Map([[ARROW_FIELD_ID_KEY, String(field.id)]]));
}

export function fieldIdOf(field: arrow.Field): number | undefined {
  const v = field.metadata.get(ARROW_FIELD_ID_KEY);
  if (v === undefined || !/^-?\d+$/.test(v)) return undefined;
  return Number(v);
}

// ---------------------------------------------------------------------------------------------
// Data conversion
// ---------------------------------------------------------------------------------------------

function unsupported(what: string, from: arrow.DataType, to: arrow.DataType): PaimonError {
  return new PaimonError("UNSUPPORTED", `Cannot convert column ${what} from Arrow ${String(from)} to ${String(to)}`);
}

/** An all-null column of `type` with `length` rows (nested children sized consistently). */
export function makeNullData(type: arrow.DataType, length: number): arrow.Data {
  const nullBitmap = new Uint8Array((length + 7) >> 3);
  const T = arrow.Type;
  switch (type.typeId) {
    case T.Struct:
      return arrow.makeData({
        type: type as arrow.Struct,
        length,
        nullCount: length,
        nullBitmap,
        children: (type as arrow.Struct).children.map((c) => makeNullData(c.type, length)),
      });
    case T.List:
      return arrow.makeData({
        type: type as arrow.List,
        length,
        nullCount: length,
        nullBitmap,
        valueOffsets: new Int32Array(length + 1),
        child: makeNullData((type as arrow.List).children[0]!.type, 0),
      });
    case T.Map:
      return arrow.makeData({
        type: type as arrow.Map_,
        length,
        nullCount: length,
        nullBitmap,
        valueOffsets: new Int32Array(length + 1),
        child: makeNullData((type as arrow.Map_).children[0]!.type, 0),
      });
    case T.Utf8:
    case T.Binary:
      return arrow.makeData({ type: type as arrow.Utf8, length, nullCount: length, nullBitmap, valueOffsets: new Int32Array(length + 1), data: new Uint8Array(0) });
    case T.LargeUtf8:
    case T.LargeBinary:
      return arrow.makeData({
        type: type as arrow.LargeUtf8,
        length,
        nullCount: length,
        nullBitmap,
        valueOffsets: new BigInt64Array(length + 1),
        data: new Uint8Array(0),
      });
    case T.Bool:
      return arrow.makeData({ type: type as arrow.Bool, length, nullCount: length, nullBitmap, data: new Uint8Array((length + 7) >> 3) });
    default: {
      // Fixed-width: values buffer of the right element type, all zero. Decimal128 takes four
      // Uint32 words per value and FixedSizeBinary `byteWidth` bytes (their types have no `stride`).
      const ArrayType = (type as unknown as { ArrayType: { new (n: number): ArrayLike<unknown> } }).ArrayType;
      const stride =
        type.typeId === T.Decimal
          ? (type as arrow.Decimal).bitWidth / 32
          : type.typeId === T.FixedSizeBinary
            ? (type as arrow.FixedSizeBinary).byteWidth
            : ((type as unknown as { stride?: number }).stride ?? 1);
      const values = new ArrayType(length * stride);
      return arrow.makeData({ type: type as arrow.Int, length, nullCount: length, nullBitmap, data: values as Int32Array });
    }
  }
}

const UNIT_FACTOR: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1n,
  [arrow.TimeUnit.MILLISECOND]: 1000n,
  [arrow.TimeUnit.MICROSECOND]: 1000000n,
  [arrow.TimeUnit.NANOSECOND]: 1000000000n,
};

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function rescaleBigInts(values: BigInt64Array, fromUnit: number, toUnit: number): BigInt64Array {
  const from = UNIT_FACTOR[fromUnit]!;
  const to = UNIT_FACTOR[toUnit]!;
  const out = new BigInt64Array(values.length);
  if (to > from) {
    const f = to / from;
    for (let i = 0; i < values.length; i++) out[i] = values[i]! * f;
  } else {
    const f = from / to;
    for (let i = 0; i < values.length; i++) out[i] = floorDiv(values[i]!, f);
  }
  return out;
}

function timestampValues(data: arrow.Data): BigInt64Array {
  const v = data.values as unknown as BigInt64Array | Int32Array;
  if (v instanceof BigInt64Array) return v;
  // Arrow JS may expose 64-bit values as Int32 pairs.
  return new BigInt64Array(v.buffer, v.byteOffset, v.length >> 1);
}

function bitWidthOf(t: arrow.DataType): number {
  return (t as arrow.Int).bitWidth;
}

function convertOffsets32(data: arrow.Data): Int32Array {
  const o = data.valueOffsets as unknown as BigInt64Array;
  const out = new Int32Array(o.length);
  for (let i = 0; i < o.length; i++) {
    const v = o[i]!;
    if (v > 2147483647n) throw new PaimonError("UNSUPPORTED", "Variable-width column exceeds 2 GiB in one batch");
    out[i] = Number(v);
  }
  return out;
}

/** Whether `a` and `b` are the same primitive type with the same parameters (arrow's compareTypes ignores decimal precision and scale). */
function samePrimitiveType(a: arrow.DataType, b: arrow.DataType): boolean {
  if (a.typeId !== b.typeId) return false;
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const same = (...keys: string[]): boolean => keys.every((k) => x[k] === y[k]);
  switch (a.typeId) {
    case arrow.Type.Bool:
    case arrow.Type.Utf8:
    case arrow.Type.Binary:
    case arrow.Type.LargeUtf8:
    case arrow.Type.LargeBinary:
      return true;
    case arrow.Type.Int:
      return same("bitWidth", "isSigned");
    case arrow.Type.Float:
      return same("precision");
    case arrow.Type.Date:
      return same("unit");
    case arrow.Type.Timestamp:
      return same("unit", "timezone");
    case arrow.Type.Time:
      return same("unit", "bitWidth");
    case arrow.Type.Decimal:
      return same("precision", "scale", "bitWidth");
    case arrow.Type.FixedSizeBinary:
      return same("byteWidth");
    default:
      return false;
  }
}

/**
 * Converts `data` to Arrow type `to`: relabels identical layouts (names, metadata, time zone,
 * decimal precision), widens integers/floats (and integers to floats), converts timestamp units, Large* <-> 32-bit
 * offsets, fixed-size binary -> binary, and recursively lists, maps and structs (struct children
 * matched by `PARQUET:field_id`, else by name — or only by name with `matchBy: "name"`, for
 * user input whose field ids mean nothing; missing children become nulls). `data` itself when
 * it is a primitive already of type `to` (equal type parameters): no relabelled copy whose
 * object shape only this conversion makes (see kernel/shapes.ts).
 */
export function convertData(data: arrow.Data, to: arrow.DataType, what: string, matchBy: "id" | "name" = "id"): arrow.Data {
  const from = data.type;
  const T = arrow.Type;
  if (from.typeId === T.Dictionary) {
    throw unsupported(what, from, to);
  }
  if (from === to || samePrimitiveType(from, to)) return data;
  switch (to.typeId) {
    case T.Int: {
      if (from.typeId !== T.Int || !(from as arrow.Int).isSigned || bitWidthOf(from) > bitWidthOf(to)) throw unsupported(what, from, to);
      if (bitWidthOf(from) === bitWidthOf(to)) return data.clone(to);
      const src = data.values as unknown as ArrayLike<number>;
      let values: Int8Array | Int16Array | Int32Array | BigInt64Array;
      switch (bitWidthOf(to)) {
        case 16:
          values = Int16Array.from(src);
          break;
        case 32:
          values = Int32Array.from(src);
          break;
        default: {
          const out = new BigInt64Array(src.length);
          for (let i = 0; i < src.length; i++) out[i] = BigInt(src[i]!);
          values = out;
        }
      }
      return arrow.makeData({ type: to as arrow.Int, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), data: values as Int32Array });
    }
    case T.Float: {
      if (from.typeId === T.Int && (from as arrow.Int).isSigned && (to as arrow.Float).precision !== arrow.Precision.HALF) {
        // an integer column widened to FLOAT / DOUBLE (updateColumnType): Java's (float) / (double) cast, rounding to nearest
        const src = data.values as unknown as ArrayLike<number | bigint>;
        const values = (to as arrow.Float).precision === arrow.Precision.SINGLE ? new Float32Array(data.length) : new Float64Array(data.length);
        for (let i = 0; i < data.length; i++) values[i] = Number(src[i]!);
        return arrow.makeData({ type: to as arrow.Float64, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), data: values as Float64Array });
      }
      if (from.typeId !== T.Float) throw unsupported(what, from, to);
      const fp = (from as arrow.Float).precision;
      const tp = (to as arrow.Float).precision;
      if (fp === tp) return data.clone(to);
      if (fp > tp) throw unsupported(what, from, to);
      const values = Float64Array.from(data.values as unknown as Float32Array);
      return arrow.makeData({ type: to as arrow.Float64, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), data: values });
    }
    case T.Timestamp: {
      if (from.typeId !== T.Timestamp) throw unsupported(what, from, to);
      const fu = (from as arrow.Timestamp).unit;
      const tu = (to as arrow.Timestamp).unit;
      if (fu === tu) return data.clone(to);
      const values = rescaleBigInts(timestampValues(data), fu, tu);
      return arrow.makeData({ type: to as arrow.TimestampMicrosecond, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), data: values });
    }
    case T.Time: {
      if (from.typeId !== T.Time) throw unsupported(what, from, to);
      const fu = (from as arrow.Time).unit;
      const tu = (to as arrow.Time).unit;
      if (fu === tu) return data.clone(to);
      if (tu !== arrow.TimeUnit.MILLISECOND) throw unsupported(what, from, to);
      const src = data.values as unknown as BigInt64Array | Int32Array;
      const out = new Int32Array(data.length);
      if (src instanceof BigInt64Array) {
        const f = fu === arrow.TimeUnit.MICROSECOND ? 1000n : 1000000n;
        for (let i = 0; i < out.length; i++) out[i] = Number(floorDiv(src[i]!, f));
      } else {
        for (let i = 0; i < out.length; i++) out[i] = src[i]! * 1000; // seconds
      }
      return arrow.makeData({ type: to as arrow.TimeMillisecond, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), data: out });
    }
    case T.Date: {
      if (from.typeId !== T.Date) throw unsupported(what, from, to);
      if ((from as arrow.Date_).unit === (to as arrow.Date_).unit) return data.clone(to);
      throw unsupported(what, from, to);
    }
    case T.Decimal: {
      if (from.typeId !== T.Decimal || (from as arrow.Decimal).scale !== (to as arrow.Decimal).scale || (from as arrow.Decimal).bitWidth !== 128)
        throw unsupported(what, from, to);
      return data.clone(to);
    }
    case T.FixedSizeBinary:
      if (from.typeId === T.Timestamp && (to as arrow.FixedSizeBinary).byteWidth === INT96_BYTES) return int96Data(data, to as arrow.FixedSizeBinary);
      if (from.typeId === to.typeId && (from as arrow.FixedSizeBinary).byteWidth === (to as arrow.FixedSizeBinary).byteWidth) return data.clone(to);
      throw unsupported(what, from, to);
    case T.Bool:
      if (from.typeId !== T.Bool) throw unsupported(what, from, to);
      return data.clone(to);
    case T.Utf8:
    case T.Binary: {
      const textual = to.typeId === T.Utf8;
      if (from.typeId === to.typeId) return data.clone(to);
      if (from.typeId === (textual ? T.LargeUtf8 : T.LargeBinary) || (!textual && from.typeId === T.LargeUtf8) || (!textual && from.typeId === T.Utf8) || (textual && from.typeId === T.Binary)) {
        const offsets = from.typeId === T.LargeUtf8 || from.typeId === T.LargeBinary ? convertOffsets32(data) : (data.valueOffsets as Int32Array);
        return arrow.makeData({ type: to as arrow.Utf8, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), valueOffsets: offsets, data: data.values as Uint8Array });
      }
      if (!textual && from.typeId === T.FixedSizeBinary) {
        const w = (from as arrow.FixedSizeBinary).byteWidth;
        const offsets = new Int32Array(data.length + 1);
        for (let i = 0; i <= data.length; i++) offsets[i] = i * w;
        return arrow.makeData({ type: to as arrow.Binary, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), valueOffsets: offsets, data: data.values as Uint8Array });
      }
      throw unsupported(what, from, to);
    }
    case T.List: {
      if (from.typeId !== T.List) throw unsupported(what, from, to);
      const child = convertData(data.children[0]!, (to as arrow.List).children[0]!.type, `${what}.element`, matchBy);
      return arrow.makeData({ type: to as arrow.List, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), valueOffsets: data.valueOffsets as Int32Array, child });
    }
    case T.Map: {
      if (from.typeId !== T.Map) throw unsupported(what, from, to);
      const fromEntries = data.children[0]!;
      const toEntriesType = (to as arrow.Map_).children[0]!.type as arrow.Struct;
      const [k, v] = toEntriesType.children;
      const key = convertData(fromEntries.children[0]!, k!.type, `${what}.key`, matchBy);
      const value = convertData(fromEntries.children[1]!, v!.type, `${what}.value`, matchBy);
      const entries = arrow.makeData({ type: toEntriesType, length: fromEntries.length, nullCount: 0, children: [key, value] });
      return arrow.makeData({ type: to as arrow.Map_, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), valueOffsets: data.valueOffsets as Int32Array, child: entries });
    }
    case T.Struct: {
      if (from.typeId !== T.Struct) throw unsupported(what, from, to);
      const fromFields = (from as arrow.Struct).children;
      const children = (to as arrow.Struct).children.map((tf) => {
        const idx = matchBy === "name" ? fromFields.findIndex((c) => c.name === tf.name) : matchField(fromFields, tf);
        if (idx < 0) return makeNullData(tf.type, data.length);
        return convertData(data.children[idx]!, tf.type, `${what}.${tf.name}`, matchBy);
      });
      return arrow.makeData({ type: to as arrow.Struct, length: data.length, nullCount: data.nullCount, nullBitmap: bitmapOf(data), children });
    }
    default:
      if (from.typeId === to.typeId) return data.clone(to);
      throw unsupported(what, from, to);
  }
}

/** Index in `candidates` of the field matching `target` by field id (when both have one), else by name. */
export function matchField(candidates: readonly arrow.Field[], target: arrow.Field): number {
  const id = fieldIdOf(target);
  if (id !== undefined) {
    const byId = candidates.findIndex((c) => fieldIdOf(c) === id);
    if (byId >= 0) return byId;
    if (candidates.some((c) => fieldIdOf(c) !== undefined)) return -1;
  }
  return candidates.findIndex((c) => c.name === target.name);
}

/** The validity bitmap of `data` re-based to offset 0 (copied only when the data is sliced at a non-byte boundary). */
export function bitmapOf(data: arrow.Data): Uint8Array | undefined {
  const bm = data.nullBitmap;
  if (!bm || bm.length === 0 || data.nullCount === 0) return undefined;
  if (data.offset === 0) return bm;
  if ((data.offset & 7) === 0) return bm.subarray(data.offset >> 3);
  const out = new Uint8Array((data.length + 7) >> 3);
  for (let i = 0; i < data.length; i++) {
    const j = data.offset + i;
    if (bm[j >> 3]! & (1 << (j & 7))) out[i >> 3]! |= 1 << (i & 7);
  }
  return out;
}
