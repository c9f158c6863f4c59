// Column type changes as Java Paimon 1.4.2 makes them: which `updateColumnType` changes its
// SchemaManager accepts (DataTypeCasts.supportsCast with explicit casts + CastExecutors.resolve),
// and reading a file column written under the old type as the new one with CastExecutors'
// value semantics (a schema-evolution read casts each non-null value of the old files).

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { type DataField, type DataType, needsValueCast, toArrowType, typeToString } from "../spec/types.js";
import { isValidAt } from "../arrow/values.js";
import { decimalToString } from "../spec/binary-row.js";
import { localWallMillis } from "../spec/civil-time.js";
import { parseJavaDouble } from "../spec/java-numbers.js";

// ---------------------------------------------------------------------------------------------
// Which changes Java accepts
// ---------------------------------------------------------------------------------------------

type Root = DataType["kind"];
type Family = "PREDEFINED" | "CHARACTER_STRING" | "BINARY_STRING" | "NUMERIC" | "EXACT_NUMERIC" | "INTEGER_NUMERIC" | "APPROXIMATE_NUMERIC" | "DATETIME" | "TIME" | "TIMESTAMP" | "CONSTRUCTED" | "COLLECTION" | "EXTENSION";

/** Java `DataTypeRoot` families, in declaration order (CastExecutors looks them up in this order). */
const FAMILIES: Partial<Record<Root, readonly Family[]>> = {
  CHAR: ["PREDEFINED", "CHARACTER_STRING"],
  VARCHAR: ["PREDEFINED", "CHARACTER_STRING"],
  BOOLEAN: ["PREDEFINED"],
  BINARY: ["PREDEFINED", "BINARY_STRING"],
  VARBINARY: ["PREDEFINED", "BINARY_STRING"],
  DECIMAL: ["PREDEFINED", "NUMERIC", "EXACT_NUMERIC"],
  TINYINT: ["PREDEFINED", "NUMERIC", "INTEGER_NUMERIC", "EXACT_NUMERIC"],
  SMALLINT: ["PREDEFINED", "NUMERIC", "INTEGER_NUMERIC", "EXACT_NUMERIC"],
  INT: ["PREDEFINED", "NUMERIC", "INTEGER_NUMERIC", "EXACT_NUMERIC"],
  BIGINT: ["PREDEFINED", "NUMERIC", "INTEGER_NUMERIC", "EXACT_NUMERIC"],
  FLOAT: ["PREDEFINED", "NUMERIC", "APPROXIMATE_NUMERIC"],
  DOUBLE: ["PREDEFINED", "NUMERIC", "APPROXIMATE_NUMERIC"],
  DATE: ["PREDEFINED", "DATETIME"],
  TIME: ["PREDEFINED", "DATETIME", "TIME"],
  TIMESTAMP: ["PREDEFINED", "DATETIME", "TIMESTAMP"],
  TIMESTAMP_LTZ: ["PREDEFINED", "DATETIME", "TIMESTAMP", "EXTENSION"],
  VARIANT: ["PREDEFINED"],
  BLOB: ["PREDEFINED"],
  ARRAY: ["CONSTRUCTED", "COLLECTION"],
  MULTISET: ["CONSTRUCTED", "COLLECTION"],
  MAP: ["CONSTRUCTED", "EXTENSION"],
  ROW: ["CONSTRUCTED"],
};

const familiesOf = (root: Root): readonly Family[] => FAMILIES[root] ?? [];
const rootsOf = (...families: Family[]): Root[] => (Object.keys(FAMILIES) as Root[]).filter((r) => familiesOf(r).some((f) => families.includes(f)));

/** Java `DataTypeCasts` explicit casting rules: target root -> source roots (identity included). */
const EXPLICIT_SOURCES: Partial<Record<Root, ReadonlySet<Root>>> = (() => {
  const TS: Root[] = ["TIMESTAMP", "TIMESTAMP_LTZ"];
  const rules: Partial<Record<Root, Root[]>> = {
    CHAR: rootsOf("PREDEFINED", "CONSTRUCTED"),
    VARCHAR: rootsOf("PREDEFINED", "CONSTRUCTED"),
    BOOLEAN: rootsOf("CHARACTER_STRING", "INTEGER_NUMERIC"),
    BINARY: [...rootsOf("CHARACTER_STRING"), "VARBINARY"],
    VARBINARY: [...rootsOf("BINARY_STRING", "CHARACTER_STRING"), "BINARY"],
    DECIMAL: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    TINYINT: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    SMALLINT: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    INT: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    BIGINT: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    FLOAT: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    DOUBLE: [...rootsOf("NUMERIC", "CHARACTER_STRING"), "BOOLEAN", ...TS],
    DATE: ["TIMESTAMP", ...rootsOf("TIMESTAMP", "CHARACTER_STRING")],
    TIME: ["TIMESTAMP", ...rootsOf("TIME", "TIMESTAMP", "CHARACTER_STRING")],
    TIMESTAMP: [...rootsOf("DATETIME", "CHARACTER_STRING", "NUMERIC")],
    TIMESTAMP_LTZ: [...rootsOf("DATETIME", "CHARACTER_STRING", "NUMERIC")],
  };
  const out: Partial<Record<Root, ReadonlySet<Root>>> = {};
  for (const root of Object.keys(FAMILIES) as Root[]) out[root] = new Set([root, ...(rules[root] ?? [])]);
  return out;
})();

/**
 * Java `CastExecutors` rules in registration order: input roots/families -> target roots/families
 * (a later rule replaces an earlier one for the same keys). `stringOnly`: registered for the exact
 * type STRING (nullable VARCHAR(MAX)) only, so VARCHAR(n), CHAR(n) and STRING NOT NULL miss it.
 */
interface CastRule {
  name: string;
  input: readonly (Root | Family)[];
  target: readonly (Root | Family)[];
  stringOnly?: boolean;
}
const RULES: readonly CastRule[] = [
  { name: "DecimalToDecimal", input: ["DECIMAL"], target: ["DECIMAL"] },
  { name: "NumericToDecimal", input: ["INTEGER_NUMERIC", "APPROXIMATE_NUMERIC"], target: ["DECIMAL"] },
  { name: "DecimalToNumeric", input: ["DECIMAL"], target: ["INTEGER_NUMERIC", "APPROXIMATE_NUMERIC"] },
  { name: "NumericPrimitive", input: ["INTEGER_NUMERIC", "APPROXIMATE_NUMERIC"], target: ["INTEGER_NUMERIC", "APPROXIMATE_NUMERIC"] },
  { name: "NumericToTimestamp", input: ["NUMERIC"], target: ["TIMESTAMP", "TIMESTAMP_LTZ"] },
  { name: "BooleanToNumeric", input: ["BOOLEAN"], target: ["NUMERIC"] },
  { name: "NumericToBoolean", input: ["INTEGER_NUMERIC"], target: ["BOOLEAN"] },
  { name: "NumericToString", input: ["NUMERIC"], target: ["CHARACTER_STRING"] },
  { name: "BooleanToString", input: ["BOOLEAN"], target: ["CHARACTER_STRING"] },
  { name: "TimestampToString", input: ["TIMESTAMP"], target: [], stringOnly: true },
  { name: "TimeToString", input: ["TIME"], target: [], stringOnly: true },
  { name: "DateToString", input: ["DATE"], target: [], stringOnly: true },
  { name: "StringToString", input: ["CHARACTER_STRING"], target: ["CHARACTER_STRING"] },
  { name: "ArrayToString", input: ["ARRAY"], target: ["CHARACTER_STRING"] },
  { name: "MapToString", input: ["MAP"], target: ["CHARACTER_STRING"] },
  { name: "RowToString", input: ["ROW"], target: ["CHARACTER_STRING"] },
  { name: "StringToBoolean", input: ["CHARACTER_STRING"], target: ["BOOLEAN"] },
  { name: "StringToDecimal", input: ["CHARACTER_STRING"], target: ["DECIMAL"] },
  { name: "StringToNumeric", input: ["CHARACTER_STRING"], target: ["INTEGER_NUMERIC", "APPROXIMATE_NUMERIC"] },
  { name: "StringToDate", input: ["CHARACTER_STRING"], target: ["DATE"] },
  { name: "StringToTime", input: ["CHARACTER_STRING"], target: ["TIME"] },
  { name: "StringToTimestamp", input: ["CHARACTER_STRING"], target: ["TIMESTAMP"] },
  { name: "StringToBinary", input: ["CHARACTER_STRING"], target: ["BINARY_STRING"] },
  { name: "StringToArray", input: ["CHARACTER_STRING"], target: ["ARRAY"] },
  { name: "StringToMap", input: ["CHARACTER_STRING"], target: ["MAP"] },
  { name: "StringToRow", input: ["CHARACTER_STRING"], target: ["ROW"] },
  { name: "TimestampToTimestamp", input: ["TIMESTAMP", "TIMESTAMP_LTZ"], target: ["TIMESTAMP", "TIMESTAMP_LTZ"] },
  { name: "TimestampToDate", input: ["TIMESTAMP", "TIMESTAMP_LTZ"], target: ["DATE"] },
  { name: "TimestampToTime", input: ["TIMESTAMP", "TIMESTAMP_LTZ"], target: ["TIME"] },
  { name: "DateToTimestamp", input: ["DATE"], target: ["TIMESTAMP", "TIMESTAMP_LTZ"] },
  { name: "TimeToTimestamp", input: ["TIME"], target: ["TIMESTAMP", "TIMESTAMP_LTZ"] },
  { name: "TimestampToNumeric", input: ["TIMESTAMP", "TIMESTAMP_LTZ"], target: ["BIGINT", "INT"] },
  { name: "BinaryToBinary", input: ["BINARY_STRING"], target: ["BINARY_STRING"] },
  { name: "BinaryToString", input: ["BINARY_STRING"], target: ["CHARACTER_STRING"] },
];

// "TIMESTAMP" and "TIME" are root and family names in Java: the rules name the root but for the two marked in key().
const FAMILY_KEYS = new Set<string>(["PREDEFINED", "CHARACTER_STRING", "BINARY_STRING", "NUMERIC", "EXACT_NUMERIC", "INTEGER_NUMERIC", "APPROXIMATE_NUMERIC", "DATETIME", "CONSTRUCTED", "COLLECTION", "EXTENSION"]);
const key = (k: Root | Family, rule: CastRule, side: "input" | "target"): string => {
  // in the rule table "TIMESTAMP" alone means the TIMESTAMP family for TimestampToString's input, the root otherwise
  if (k === "TIMESTAMP" && ((rule.name === "TimestampToString" && side === "input") || (rule.name === "StringToTimestamp" && side === "target"))) return "family:TIMESTAMP";
  return FAMILY_KEYS.has(k) ? `family:${k}` : `root:${k}`;
};
const STRING_TYPE_KEY = "type:STRING";

/** CastExecutors' rule map: target key -> input key -> rule name. */
const RULE_MAP: Map<string, Map<string, string>> = (() => {
  const map = new Map<string, Map<string, string>>();
  for (const rule of RULES) {
    const targets = rule.stringOnly ? [STRING_TYPE_KEY] : rule.target.map((t) => key(t, rule, "target"));
    for (const t of targets) {
      let inputs = map.get(t);
      if (!inputs) map.set(t, (inputs = new Map()));
      for (const i of rule.input) inputs.set(key(i, rule, "input"), rule.name);
    }
  }
  return map;
})();

const isStringType = (t: DataType): boolean => t.kind === "VARCHAR" && t.nullable && (t as { length: number }).length === 2147483647;

/** Java `CastExecutors.resolve(from, to) != null`: the rule found, or null (also when the rule makes no executor for the pair). */
function javaCastRule(from: DataType, to: DataType): string | null {
  const targetKeys = [...(isStringType(to) ? [STRING_TYPE_KEY] : []), `root:${to.kind}`, ...familiesOf(to.kind).map((f) => `family:${f}`)];
  const inputKeys = [`root:${from.kind}`, ...familiesOf(from.kind).map((f) => `family:${f}`)];
  for (const t of targetKeys) {
    const inputs = RULE_MAP.get(t);
    if (!inputs) continue;
    for (const i of inputKeys) {
      const rule = inputs.get(i);
      if (rule === undefined) continue;
      // rules whose create() returns null for some pairs
      if (rule === "NumericToTimestamp" && from.kind !== "INT" && from.kind !== "BIGINT") return null;
      return rule;
    }
  }
  return null;
}

/**
 * Whether Java 1.4.2's `SchemaManager` accepts changing a column from `from` to `to` with explicit
 * casts allowed (`disable-explicit-type-casting` false, its default): `DataTypeCasts.supportsCast`
 * (by type root: any length, precision or scale) and a `CastExecutors` rule for the pair.
 */
export function javaAcceptsTypeChange(from: DataType, to: DataType, allowExplicit = true): boolean {
  const same = !needsValueCast(from, to);
  const castable = same || (allowExplicit ? EXPLICIT_SOURCES[to.kind]?.has(from.kind) : IMPLICIT_SOURCES[to.kind]?.has(from.kind));
  if (!castable) return false;
  return javaCastRule(from, to) !== null;
}

/** Java `DataTypeCasts` implicit casting rules (with `disable-explicit-type-casting=true`). */
const IMPLICIT_SOURCES: Partial<Record<Root, ReadonlySet<Root>>> = (() => {
  const ints = ["TINYINT", "SMALLINT", "INT", "BIGINT"] as Root[];
  const rules: Partial<Record<Root, Root[]>> = {
    VARCHAR: rootsOf("CHARACTER_STRING"),
    VARBINARY: rootsOf("BINARY_STRING"),
    DECIMAL: rootsOf("NUMERIC"),
    SMALLINT: ints.slice(0, 2),
    INT: ints.slice(0, 3),
    BIGINT: ints,
    FLOAT: [...ints, "FLOAT", "DECIMAL"],
    DOUBLE: rootsOf("NUMERIC"),
    DATE: ["TIMESTAMP"],
    TIME: ["TIMESTAMP"],
    TIMESTAMP: ["TIMESTAMP_LTZ"],
    TIMESTAMP_LTZ: ["TIMESTAMP"],
  };
  const out: Partial<Record<Root, ReadonlySet<Root>>> = {};
  for (const root of Object.keys(FAMILIES) as Root[]) out[root] = new Set([root, ...(rules[root] ?? [])]);
  return out;
})();

/** Rules whose value semantics paimon-rt implements on read (the others: UNSUPPORTED at alterTable). */
const READ_RULES = new Set([
  "DecimalToDecimal",
  "NumericToDecimal",
  "DecimalToNumeric",
  "NumericPrimitive",
  "NumericToTimestamp",
  "BooleanToNumeric",
  "NumericToBoolean",
  "NumericToString",
  "BooleanToString",
  "TimestampToString",
  "DateToString",
  "StringToString",
  "StringToBoolean",
  "StringToDecimal",
  "StringToNumeric",
  "StringToBinary",
  "TimestampToTimestamp",
  "TimestampToDate",
  "DateToTimestamp",
  "TimestampToNumeric",
  "BinaryToBinary",
  "BinaryToString",
]);

/** Whether paimon-rt reads files of `from` as `to` (a Java cast rule it implements, or the same type). */
export function readCastImplemented(from: DataType, to: DataType): boolean {
  if (!needsValueCast(from, to)) return true;
  const rule = javaCastRule(from, to);
  return rule !== null && READ_RULES.has(rule);
}


// ---------------------------------------------------------------------------------------------
// Value casts
// ---------------------------------------------------------------------------------------------

/** Java `Timestamp`: epoch milliseconds and nanoseconds within the millisecond (0..999999). */
export interface JavaTimestamp {
  millis: bigint;
  nanoOfMilli: number;
}
interface JavaDecimal {
  unscaled: bigint;
  scale: number;
}
type Value = bigint | number | boolean | string | Uint8Array | JavaDecimal | JavaTimestamp;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

function castFailure(what: string, value: unknown, to: DataType, why: string): PaimonError {
  const shown = typeof value === "string" ? `'${value}'` : String(value);
  return new PaimonError("INVALID_ARGUMENT", `column ${what}: stored value ${shown} cannot be read as ${typeToString(to)} (${why}), as Java's read of the altered table fails`);
}

/**
 * `data` (Arrow layout of `from`, spec/types.ts toArrowType) as Arrow data of `to`, each non-null
 * value cast as Java's `CastExecutors` rule for the pair; a NULL result (a DECIMAL that does not fit
 * its precision) reads as null. INVALID_ARGUMENT for a value Java fails to cast (an unparsable
 * string, an integer string out of range, NaN into DECIMAL).
 */
export function castColumn(data: arrow.Data, from: DataType, to: DataType, what: string): arrow.Data {
  const rule = javaCastRule(from, to);
  if (rule === null || !READ_RULES.has(rule)) throw new PaimonError("UNSUPPORTED", `column ${what}: reading ${typeToString(from)} values as ${typeToString(to)} is not supported`);
  const cast = valueCast(rule, from, to, what);
  const values = readValues(data, from);
  const out: (Value | null)[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] === null ? null : cast(values[i]!);
  return writeValues(out, to);
}

function valueCast(rule: string, from: DataType, to: DataType, what: string): (v: Value) => Value | null {
  const fail = (v: unknown, why: string) => castFailure(what, v, to, why);
  switch (rule) {
    case "NumericPrimitive":
      return (v) => toPrimitive(v as bigint | number, to.kind);
    case "DecimalToDecimal":
    case "NumericToDecimal":
    case "BooleanToNumeric": {
      if (to.kind !== "DECIMAL") return (v) => toPrimitive(v ? 1n : 0n, to.kind);
      const { precision, scale } = to as { precision: number; scale: number };
      return (v) => {
        let d: JavaDecimal;
        if (typeof v === "boolean") d = { unscaled: v ? 1n : 0n, scale: 0 };
        else if (typeof v === "bigint") d = { unscaled: v, scale: 0 };
        else if (typeof v === "number") {
          // BigDecimal.valueOf(double): the digits of Double.toString; NaN / Infinity throw
          if (!Number.isFinite(v)) throw fail(v, "NumberFormatException: not a finite number");
          d = parseBigDecimal(javaDoubleString(v, false))!;
        } else d = v as JavaDecimal;
        return fitDecimal(d, precision, scale);
      };
    }
    case "DecimalToNumeric":
      return (v) => {
        const d = v as JavaDecimal;
        if (to.kind === "FLOAT" || to.kind === "DOUBLE") return toPrimitive(decimalToDouble(d, from as { precision: number }), to.kind);
        // castToIntegral: rounded toward zero, BigDecimal.longValue keeps the low 64 bits
        return toPrimitive(BigInt.asIntN(64, d.unscaled / 10n ** BigInt(d.scale)), to.kind);
      };
    case "NumericToBoolean":
      return (v) => v !== 0n;
    case "NumericToString":
    case "BooleanToString":
    case "BinaryToString":
    case "StringToString":
    case "DateToString":
    case "TimestampToString": {
      const text = (v: Value): string => {
        if (typeof v === "string") return v;
        if (typeof v === "boolean") return v ? "true" : "false";
        if (typeof v === "bigint") return v.toString();
        if (typeof v === "number") {
          if (from.kind === "DATE") return formatDate(v);
          return javaDoubleString(v, from.kind === "FLOAT");
        }
        if (v instanceof Uint8Array) return utf8Decoder.decode(v);
        if ("unscaled" in v) return decimalToString(v.unscaled, v.scale); // BigDecimal.toPlainString
        const ts = from.kind === "TIMESTAMP_LTZ" ? ltzToTimestamp(v) : v;
        return formatTimestamp(ts, (from as { precision: number }).precision);
      };
      return rule === "DateToString" || rule === "TimestampToString" || rule === "BinaryToString" ? text : (v) => toCharacterString(text(v), to);
    }
    case "StringToBoolean":
      return (v) => {
        const s = (v as string).toLowerCase();
        if (["t", "true", "y", "yes", "1"].includes(s)) return true;
        if (["f", "false", "n", "no", "0"].includes(s)) return false;
        throw fail(v, `cannot parse as BOOLEAN`);
      };
    case "StringToDecimal": {
      const { precision, scale } = to as { precision: number; scale: number };
      return (v) => {
        const d = parseBigDecimal(v as string);
        if (d === null) throw fail(v, "NumberFormatException");
        return fitDecimal(d, precision, scale);
      };
    }
    case "StringToNumeric":
      return (v) => {
        const s = v as string;
        if (to.kind === "FLOAT" || to.kind === "DOUBLE") {
          const n = parseJavaDouble(s);
          if (n === null) throw fail(v, "NumberFormatException");
          return to.kind === "FLOAT" ? Math.fround(n) : n;
        }
        const bits = to.kind === "BIGINT" ? 64 : 32;
        const n = parseJavaInteger(s, bits);
        if (typeof n === "string") throw fail(v, `NumberFormatException: ${n}`);
        if (to.kind === "TINYINT" || to.kind === "SMALLINT") {
          if (BigInt.asIntN(to.kind === "TINYINT" ? 8 : 16, n) !== n) throw fail(v, "NumberFormatException: Overflow.");
        }
        return n;
      };
    case "StringToBinary":
      return (v) => toBinaryString(utf8.encode(v as string), to);
    case "BinaryToBinary":
      return (v) => toBinaryString(v as Uint8Array, to);
    case "TimestampToTimestamp": {
      const inP = (from as { precision: number }).precision;
      const outP = (to as { precision: number }).precision;
      const operand = (v: JavaTimestamp): JavaTimestamp =>
        from.kind === "TIMESTAMP" && to.kind === "TIMESTAMP_LTZ" ? timestampToLtz(v) : from.kind === "TIMESTAMP_LTZ" && to.kind === "TIMESTAMP" ? ltzToTimestamp(v) : v;
      return inP <= outP ? (v) => operand(v as JavaTimestamp) : (v) => truncateTimestamp(operand(v as JavaTimestamp), outP);
    }
    case "TimestampToDate":
      return (v) => {
        const ts = from.kind === "TIMESTAMP_LTZ" ? ltzToTimestamp(v as JavaTimestamp) : (v as JavaTimestamp);
        // TIMESTAMP: (int) (millis / MILLIS_PER_DAY), rounded toward zero; LTZ: the local date (floored)
        return from.kind === "TIMESTAMP_LTZ" ? Number(floorDiv(ts.millis, MILLIS_PER_DAY)) : Number(BigInt.asIntN(32, ts.millis / MILLIS_PER_DAY));
      };
    case "DateToTimestamp":
      return (v) => {
        const ts: JavaTimestamp = { millis: BigInt(v as number) * MILLIS_PER_DAY, nanoOfMilli: 0 };
        return to.kind === "TIMESTAMP_LTZ" ? timestampToLtz(ts) : ts;
      };
    case "TimestampToNumeric":
      return (v) => {
        const ts = v as JavaTimestamp; // an LTZ's local date-time read back in UTC: the same epoch millis
        const seconds = ts.millis / 1000n; // unixTimestamp: toward zero
        return to.kind === "INT" ? BigInt.asIntN(32, seconds) : seconds;
      };
    case "NumericToTimestamp":
      return (v) => {
        const ts: JavaTimestamp = { millis: BigInt.asIntN(64, (v as bigint) * 1000n), nanoOfMilli: 0 };
        // TIMESTAMP_LTZ: the local date-time of the instant in the default zone, stored as an instant of that local time in UTC
        return to.kind === "TIMESTAMP_LTZ" ? ltzToTimestamp(ts) : ts;
      };
    default:
      throw new PaimonError("UNSUPPORTED", `column ${what}: reading ${typeToString(from)} values as ${typeToString(to)} is not supported`);
  }
}

const MILLIS_PER_DAY = 86400000n;

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

const INT_BITS: Partial<Record<Root, number>> = { TINYINT: 8, SMALLINT: 16, INT: 32, BIGINT: 64 };

/** Java's `Number.byteValue()` … `doubleValue()`: integers wrap; floats go to int/long saturating (NaN -> 0), then wrap to byte/short. */
function toPrimitive(v: bigint | number, kind: Root): bigint | number {
  if (kind === "FLOAT") return typeof v === "bigint" ? longToFloat(v) : Math.fround(v);
  if (kind === "DOUBLE") return typeof v === "bigint" ? Number(v) : v;
  const bits = INT_BITS[kind]!;
  if (typeof v === "bigint") return BigInt.asIntN(bits, v);
  // (long) d for BIGINT, (int) d then narrowed for the others (JLS 5.1.3)
  const wide = bits === 64 ? 64 : 32;
  if (Number.isNaN(v)) return 0n;
  const max = 2n ** BigInt(wide - 1) - 1n;
  const min = -(2n ** BigInt(wide - 1));
  let n: bigint;
  if (v >= Number(max)) n = max;
  else if (v <= Number(min)) n = min;
  else n = BigInt(Math.trunc(v));
  return BigInt.asIntN(bits, n);
}

/** Java's (float) of a long: rounded to the nearest float once (not through a double). */
function longToFloat(v: bigint): number {
  const d = Number(v);
  if (v >= -(2n ** 53n) && v <= 2n ** 53n) return Math.fround(d);
  // round the magnitude to 24 significant bits, ties to even
  const neg = v < 0n;
  let m = neg ? -v : v;
  const bits = m.toString(2).length;
  const drop = BigInt(bits - 24);
  const half = 1n << (drop - 1n);
  const rest = m & ((1n << drop) - 1n);
  m >>= drop;
  if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
  const r = Number(m << drop);
  return neg ? -r : r;
}

/** Java `DecimalUtils.doubleValue`: compact decimals (precision <= 18) divide the unscaled long, the others round BigDecimal.doubleValue. */
function decimalToDouble(d: JavaDecimal, from: { precision: number }): number {
  if (from.precision <= 18) return Number(d.unscaled) / 10 ** d.scale;
  return Number(decimalToString(d.unscaled, d.scale));
}

/** `Decimal.fromBigDecimal`: rescaled HALF_UP; null when it needs more digits than `precision`. */
function fitDecimal(d: JavaDecimal, precision: number, scale: number): JavaDecimal | null {
  let unscaled = d.unscaled;
  if (scale >= d.scale) unscaled *= 10n ** BigInt(scale - d.scale);
  else {
    const f = 10n ** BigInt(d.scale - scale);
    const q = unscaled / f;
    const r = unscaled % f;
    const abs2 = (r < 0n ? -r : r) * 2n;
    unscaled = abs2 >= f ? q + (unscaled < 0n ? -1n : 1n) : q;
  }
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().length;
  return digits > precision ? null : { unscaled, scale };
}

/** Java `new BigDecimal(String)` (no surrounding blanks), or null when it throws. */
function parseBigDecimal(s: string): JavaDecimal | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const fraction = m[3] ?? "";
  const unscaled = BigInt(`${m[1] === "-" ? "-" : ""}${m[2]}${fraction}` || "0");
  let scale = fraction.length - Number(m[4] ?? "0");
  if (scale < 0) return { unscaled: unscaled * 10n ** BigInt(-scale), scale: 0 };
  return { unscaled, scale };
}

/**
 * Java `Double.toString` / `Float.toString`: the shortest digits that read back to the value,
 * plain between 1e-3 and 1e7, else computerized scientific notation ("1.0E10"), at least one
 * fraction digit; "NaN", "Infinity", "-0.0".
 */
export function javaDoubleString(v: number, isFloat: boolean): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "-Infinity";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const neg = v < 0;
  const a = Math.abs(v);
  let exp: string;
  if (isFloat) {
    let p = 1;
    while (p < 9 && Math.fround(Number(a.toPrecision(p))) !== a) p++;
    exp = a.toExponential(p - 1);
  } else exp = a.toExponential();
  const [mant, e] = exp.split("e");
  const digits = mant!.replace(".", "").replace(/0+$/, "") || "0";
  const power = Number(e);
  let out: string;
  if (a >= 1e-3 && a < 1e7) {
    if (power >= 0) {
      const int = digits.slice(0, power + 1).padEnd(power + 1, "0");
      const frac = digits.slice(power + 1) || "0";
      out = `${int}.${frac}`;
    } else out = `0.${"0".repeat(-power - 1)}${digits}`;
  } else out = `${digits[0]}.${digits.slice(1) || "0"}E${power}`;
  return neg ? `-${out}` : out;
}

/** `BinaryStringUtils.toInt` / `toLong`: an optional sign, digits, an optional well-formed fraction (truncated); the failure reason otherwise. */
function parseJavaInteger(s: string, bits: 32 | 64): bigint | string {
  if (s.length === 0) return "Input is empty.";
  const m = /^([+-]?)(\d*)(?:\.(.*))?$/s.exec(s);
  if (s === "+" || s === "-") return "Input has only positive or negative symbol.";
  if (!m || !/^\d*$/.test(m[3] ?? "")) return "Invalid character found.";
  const n = BigInt(m[2] || "0") * (m[1] === "-" ? -1n : 1n);
  return BigInt.asIntN(bits, n) === n ? n : "Overflow.";
}

/** `BinaryStringUtils.toCharacterString`: cut to the target length in code points, CHAR padded with blanks. */
function toCharacterString(s: string, to: DataType): string {
  const length = (to as { length: number }).length;
  const chars = [...s];
  if (chars.length > length) return chars.slice(0, length).join("");
  if (chars.length < length && to.kind === "CHAR") return s + " ".repeat(length - chars.length);
  return s;
}

/** `BinaryStringUtils.toBinaryString`: BINARY cut or zero-padded to its length, VARBINARY cut. */
function toBinaryString(b: Uint8Array, to: DataType): Uint8Array {
  const length = (to as { length: number }).length;
  if (b.length === length) return b;
  if (to.kind === "BINARY") {
    const out = new Uint8Array(length);
    out.set(b.subarray(0, length));
    return out;
  }
  return b.length <= length ? b : b.slice(0, length);
}

/** `DateTimeUtils.truncate`, including its test of the nano-of-second's decimal length (not its digits past `precision`). */
function truncateTimestamp(ts: JavaTimestamp, precision: number): JavaTimestamp {
  const nanoOfSecond = Number(((ts.millis % 1000n) + 1000n) % 1000n) * 1000000 + ts.nanoOfMilli;
  if (String(nanoOfSecond).length <= precision) return ts;
  if (precision <= 3) {
    const f = 10n ** BigInt(3 - precision);
    return { millis: (ts.millis / f) * f, nanoOfMilli: 0 }; // toward zero, as Java's long division
  }
  const f = 10 ** (9 - precision);
  return { millis: ts.millis, nanoOfMilli: Math.trunc(ts.nanoOfMilli / f) * f };
}

/** Offset (ms) of the process's time zone at the local date-time `localMillis` (as UTC fields), as `LocalDateTime.atZone`. */
function zoneOffsetAtLocal(localMillis: number): number {
  const u = new Date(localMillis);
  const local = new Date(0);
  local.setFullYear(u.getUTCFullYear(), u.getUTCMonth(), u.getUTCDate());
  local.setHours(u.getUTCHours(), u.getUTCMinutes(), u.getUTCSeconds(), u.getUTCMilliseconds());
  return localMillis - local.getTime();
}

/** `timestampToTimestampWithLocalZone` in the default zone: the instant of the local date-time. */
function timestampToLtz(ts: JavaTimestamp): JavaTimestamp {
  return { millis: ts.millis - BigInt(zoneOffsetAtLocal(Number(ts.millis))), nanoOfMilli: ts.nanoOfMilli };
}

/** `timestampWithLocalZoneToTimestamp` in the default zone: the local date-time of the instant. */
function ltzToTimestamp(ts: JavaTimestamp): JavaTimestamp {
  const millis = Number(ts.millis);
  return { millis: ts.millis + BigInt(localWallMillis(millis) - millis), nanoOfMilli: ts.nanoOfMilli };
}

const pad = (n: number | bigint, width: number): string => String(n).padStart(width, "0");

/** `DateTimeUtils.formatTimestamp(ts, precision)`: "yyyy-MM-dd HH:mm:ss[.fraction]", trailing fraction zeros dropped down to `precision` digits. */
export function formatTimestamp(ts: JavaTimestamp, precision: number): string {
  const day = floorDiv(ts.millis, MILLIS_PER_DAY);
  const msOfDay = Number(ts.millis - day * MILLIS_PER_DAY);
  let fraction = pad((msOfDay % 1000) * 1000000 + ts.nanoOfMilli, 9);
  while (fraction.length > precision && fraction.endsWith("0")) fraction = fraction.slice(0, -1);
  const s = Math.floor(msOfDay / 1000);
  const text = `${formatDate(Number(day))} ${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}`;
  return fraction.length > 0 ? `${text}.${fraction}` : text;
}

/** `DateTimeUtils.formatDate`: the proleptic Gregorian date, "yyyy-MM-dd" (years below 1000 zero-padded). */
function formatDate(days: number): string {
  // julianToString
  const julian = days + 2440588;
  let j = julian + 32044;
  const g = Math.floor(j / 146097);
  const dg = j % 146097;
  const c = Math.floor(((Math.floor(dg / 36524) + 1) * 3) / 4);
  const dc = dg - c * 36524;
  const b = Math.floor(dc / 1461);
  const db = dc % 1461;
  const a = Math.floor(((Math.floor(db / 365) + 1) * 3) / 4);
  const da = db - a * 365;
  const y = g * 400 + c * 100 + b * 4 + a;
  const m = Math.floor((da * 5 + 308) / 153) - 2;
  const d = da - Math.floor(((m + 4) * 153) / 5) + 122;
  const year = y - 4800 + Math.floor((m + 2) / 12);
  const month = ((m + 2) % 12) + 1;
  j = d + 1;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(j, 2)}`;
}

// ---------------------------------------------------------------------------------------------
// Arrow <-> values
// ---------------------------------------------------------------------------------------------

const UNIT_NANOS: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1000000000n,
  [arrow.TimeUnit.MILLISECOND]: 1000000n,
  [arrow.TimeUnit.MICROSECOND]: 1000n,
  [arrow.TimeUnit.NANOSECOND]: 1n,
};

function int64Values(data: arrow.Data): BigInt64Array {
  const v = data.values as unknown as BigInt64Array | Int32Array;
  return v instanceof BigInt64Array ? v : new BigInt64Array(v.buffer, v.byteOffset, v.length >> 1);
}

function readValues(data: arrow.Data, type: DataType): (Value | null)[] {
  const valid = (i: number) => isValidAt(data, i);
  const out: (Value | null)[] = new Array(data.length);
  const each = (get: (i: number) => Value) => {
    for (let i = 0; i < data.length; i++) out[i] = valid(i) ? get(i) : null;
  };
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT": {
      const v = data.values as Int32Array;
      each((i) => BigInt(v[i]!));
      break;
    }
    case "BIGINT": {
      const v = int64Values(data);
      each((i) => v[i]!);
      break;
    }
    case "FLOAT":
    case "DOUBLE":
    case "DATE": {
      const v = data.values as Float64Array;
      each((i) => v[i]!);
      break;
    }
    case "BOOLEAN": {
      const vector = arrow.makeVector(data as arrow.Data<arrow.Bool>);
      each((i) => vector.get(i) as boolean);
      break;
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      const offsets = data.valueOffsets as Int32Array;
      const bytes = data.values as Uint8Array;
      const text = type.kind === "CHAR" || type.kind === "VARCHAR";
      each((i) => (text ? utf8Decoder.decode(bytes.subarray(offsets[i]!, offsets[i + 1]!)) : bytes.slice(offsets[i]!, offsets[i + 1]!)));
      break;
    }
    case "DECIMAL": {
      const words = data.values as Uint32Array;
      each((i) => {
        let u = 0n;
        for (let w = 3; w >= 0; w--) u = (u << 32n) | BigInt(words[i * 4 + w]!);
        return { unscaled: BigInt.asIntN(128, u), scale: type.scale };
      });
      break;
    }
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const v = int64Values(data);
      const factor = UNIT_NANOS[(data.type as arrow.Timestamp).unit]!;
      each((i) => {
        const nanos = v[i]! * factor;
        const millis = floorDiv(nanos, 1000000n);
        return { millis, nanoOfMilli: Number(nanos - millis * 1000000n) };
      });
      break;
    }
    default:
      throw new PaimonError("UNSUPPORTED", `reading ${typeToString(type)} values for a type change is not supported`);
  }
  return out;
}

function nullBitmap(values: readonly (Value | null)[]): { bitmap: Uint8Array | undefined; nulls: number } {
  let nulls = 0;
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { bitmap: nulls > 0 ? bitmap : undefined, nulls };
}

function writeValues(values: readonly (Value | null)[], type: DataType): arrow.Data {
  const arrowType = toArrowType(type);
  const { bitmap, nulls } = nullBitmap(values);
  const length = values.length;
  const base = { length, nullCount: nulls, nullBitmap: bitmap };
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT": {
      const Array_ = type.kind === "TINYINT" ? Int8Array : type.kind === "SMALLINT" ? Int16Array : Int32Array;
      if (type.kind === "BIGINT") {
        const out = new BigInt64Array(length);
        values.forEach((v, i) => (out[i] = v === null ? 0n : (v as bigint)));
        return arrow.makeData({ type: arrowType as arrow.Int64, ...base, data: out });
      }
      const out = new Array_(length);
      values.forEach((v, i) => (out[i] = v === null ? 0 : Number(v as bigint)));
      return arrow.makeData({ type: arrowType as arrow.Int32, ...base, data: out as Int32Array });
    }
    case "FLOAT":
    case "DOUBLE":
    case "DATE": {
      const out = type.kind === "FLOAT" ? new Float32Array(length) : type.kind === "DOUBLE" ? new Float64Array(length) : new Int32Array(length);
      values.forEach((v, i) => (out[i] = v === null ? 0 : (v as number)));
      return arrow.makeData({ type: arrowType as arrow.Float64, ...base, data: out as Float64Array });
    }
    case "BOOLEAN": {
      const out = new Uint8Array((length + 7) >> 3);
      values.forEach((v, i) => {
        if (v === true) out[i >> 3]! |= 1 << (i & 7);
      });
      return arrow.makeData({ type: arrowType as arrow.Bool, ...base, data: out });
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      const parts = values.map((v) => (v === null ? new Uint8Array(0) : typeof v === "string" ? utf8.encode(v) : (v as Uint8Array)));
      const offsets = new Int32Array(length + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      const bytes = new Uint8Array(offsets[length]!);
      parts.forEach((p, i) => bytes.set(p, offsets[i]!));
      return arrow.makeData({ type: arrowType as arrow.Utf8, ...base, valueOffsets: offsets, data: bytes });
    }
    case "DECIMAL": {
      const out = new Uint32Array(length * 4);
      values.forEach((v, i) => {
        if (v === null) return;
        let u = BigInt.asUintN(128, (v as JavaDecimal).unscaled);
        for (let w = 0; w < 4; w++, u >>= 32n) out[i * 4 + w] = Number(u & 0xffffffffn);
      });
      return arrow.makeData({ type: arrowType as arrow.Decimal, ...base, data: out });
    }
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const factor = UNIT_NANOS[(arrowType as arrow.Timestamp).unit]!;
      const out = new BigInt64Array(length);
      values.forEach((v, i) => {
        if (v === null) return;
        const ts = v as JavaTimestamp;
        out[i] = floorDiv(ts.millis * 1000000n + BigInt(ts.nanoOfMilli), factor);
      });
      return arrow.makeData({ type: arrowType as arrow.TimestampMicrosecond, ...base, data: out });
    }
    default:
      throw new PaimonError("UNSUPPORTED", `reading values as ${typeToString(type)} after a type change is not supported`);
  }
}

/**
 * A file column read under another type than it was written with (`updateColumnType`): decoded
 * as its file type, then each value cast as Java's schema-evolution read casts it (type-casts.ts).
 */
export interface ColumnCast {
  /** For chunk cache keys: the cast result depends on both types, not only the Arrow type read. */
  readonly key: string;
  /** The Arrow type of the file's own type: what `apply` takes (parquet-reader.ts `readAs` converts to it first). */
  readonly fileType: arrow.DataType;
  /** `data` (of `fileType`) cast to the read type. */
  apply(data: arrow.Data, what: string): arrow.Data;
  /** `apply` takes the column as decoded from the file, not converted to `fileType` first (shredded VARIANT groups). */
  readonly raw?: boolean;
}

/** The cast of `fileField`'s column to `field`'s type, or null when Arrow conversion (convertData) gives Java's values. */
export function columnCast(fileField: DataField | undefined, field: DataField): ColumnCast | null {
  if (!fileField || !needsValueCast(fileField.type, field.type) || losslessArrowConversion(fileField.type, field.type)) return null;
  const from = fileField.type;
  const fileType = toArrowType(from);
  return { key: `${typeToString(from)}->${typeToString(field.type)}`, fileType, apply: (data, what) => castColumn(data, from, field.type, what) };
}

const INTEGER_RANK: Record<string, number> = { TINYINT: 1, SMALLINT: 2, INT: 3, BIGINT: 4 };

/** Widenings whose Java cast keeps every value, as convertData converts them (no per-value cast needed). */
function losslessArrowConversion(from: DataField["type"], to: DataField["type"]): boolean {
  const f = from as { kind: string; length?: number; precision?: number; scale?: number };
  const t = to as { kind: string; length?: number; precision?: number; scale?: number };
  if (f.kind in INTEGER_RANK && t.kind in INTEGER_RANK) return INTEGER_RANK[f.kind]! <= INTEGER_RANK[t.kind]!;
  if (f.kind in INTEGER_RANK && t.kind === "DOUBLE") return true;
  if (f.kind === "FLOAT" && t.kind === "DOUBLE") return true;
  if ((f.kind === "CHAR" || f.kind === "VARCHAR") && t.kind === "VARCHAR") return t.length! >= f.length!;
  if ((f.kind === "BINARY" || f.kind === "VARBINARY") && t.kind === "VARBINARY") return t.length! >= f.length!;
  if (f.kind === "DECIMAL" && t.kind === "DECIMAL") return f.scale === t.scale && t.precision! >= f.precision!;
  // TIMESTAMP(p) -> TIMESTAMP(q >= p): Java keeps the value (no truncation)
  if (f.kind === "TIMESTAMP" && t.kind === "TIMESTAMP") return t.precision! >= f.precision!;
  if (f.kind === "TIMESTAMP_LTZ" && t.kind === "TIMESTAMP_LTZ") return t.precision! >= f.precision!;
  return false;
}
