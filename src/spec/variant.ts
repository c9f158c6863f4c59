// Paimon VARIANT values for users: build one from JSON text or a JS value with the bytes Java
// Paimon 1.4.2's GenericVariant.fromJson makes, and decode one to JSON text (Java's toJson) or a
// JS value. The encoding itself: variant-encoding.ts.

import { PaimonError } from "../error.js";
import { formatIsoDate } from "./civil-time.js";
import {
  ARRAY,
  arrayLayout,
  byteAt,
  INT64_MAX,
  INT64_MIN,
  invalidVariant,
  MAX_DECIMAL16_PRECISION,
  OBJECT,
  readUnsigned,
  type Scalar,
  scalarAt,
  type Variant,
  VariantBuilder,
  VariantEncodingError,
  type VariantFieldEntry,
  variantObjectFields,
} from "./variant-encoding.js";

export type { Variant } from "./variant-encoding.js";

/** Runs `fn`, turning encoding errors into PaimonError. */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof VariantEncodingError) throw new PaimonError(e.code, e.message);
    throw e;
  }
}

/** A decoded VARIANT value (see `variantToValue`). */
export type VariantJsValue = null | boolean | number | bigint | string | Uint8Array | VariantJsValue[] | { [key: string]: VariantJsValue };

/** Java's `stripTrailingZeros().toPlainString()` of unscaled × 10^-scale (GenericVariantUtil.getDecimal). */
function plainDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`.replace(/\.?0+$/, "");
  }
  return negative && digits !== "0" ? `-${digits}` : digits;
}

/** Java's Double.toString / Float.toString of a finite value, from JS's shortest digits. */
function javaFloatingString(d: number, single: boolean): string {
  if (d === 0) return Object.is(d, -0) ? "-0.0" : "0.0";
  let digits: string;
  let exponent: number;
  if (single) {
    // the shortest decimal that rounds back to the same float
    let text = "";
    for (let p = 1; p <= 9; p++) {
      text = d.toExponential(p - 1);
      if (Math.fround(Number(text)) === d) break;
    }
    [digits, exponent] = splitExponential(text);
  } else {
    [digits, exponent] = splitExponential(d.toExponential());
  }
  const negative = digits.startsWith("-");
  if (negative) digits = digits.slice(1);
  const abs = Math.abs(d);
  let out: string;
  if (abs >= 1e-3 && abs < 1e7) {
    if (exponent >= 0) {
      const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
      const frac = digits.slice(exponent + 1);
      out = `${whole}.${frac || "0"}`;
    } else {
      out = `0.${"0".repeat(-exponent - 1)}${digits}`;
    }
  } else {
    out = `${digits[0]}.${digits.slice(1) || "0"}E${exponent}`;
  }
  return negative ? `-${out}` : out;
}

function splitExponential(text: string): [string, number] {
  const [mantissa, exp] = text.split("e");
  return [mantissa!.replace(".", ""), Number(exp)];
}

/** Jackson's JSON string quoting (short escapes for \b \t \n \f \r, \u00XX for other controls). */
function quoteJson(text: string): string {
  let out = '"';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c < 0x20) {
      const short = ({ 8: "b", 9: "t", 10: "n", 12: "f", 13: "r" } as Record<number, string>)[c];
      out += short ? `\\${short}` : `\\u00${c.toString(16).toUpperCase().padStart(2, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** Java's `ISO_LOCAL_DATE ' ' ISO_LOCAL_TIME` of microseconds since the epoch (UTC), plus "+00:00" when `zoned`. */
function formatMicros(micros: bigint, zoned: boolean): string {
  const perDay = 86_400_000_000n;
  let day = micros / perDay;
  let rest = micros % perDay;
  if (rest < 0n) {
    day -= 1n;
    rest += perDay;
  }
  const r = Number(rest);
  const second = Math.floor(r / 1e6);
  const fraction = r % 1e6;
  let text = `${formatIsoDate(Number(day))} ${pad(Math.floor(second / 3600), 2)}:${pad(Math.floor(second / 60) % 60, 2)}:${pad(second % 60, 2)}`;
  if (fraction > 0) text += `.${pad(fraction * 1000, 9).replace(/0+$/, "")}`;
  return zoned ? `${text}+00:00` : text;
}

function base64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function scalarJson(s: Scalar): string {
  switch (s.kind) {
    case "null":
      return "null";
    case "boolean":
      return String(s.v);
    case "long":
      return s.v.toString();
    case "double":
    case "float":
      return Number.isFinite(s.v) ? javaFloatingString(s.v, s.kind === "float") : `"${Number.isNaN(s.v) ? "NaN" : s.v > 0 ? "Infinity" : "-Infinity"}"`;
    case "decimal":
      return plainDecimal(s.unscaled, s.scale);
    case "date":
      return `"${formatIsoDate(s.v)}"`;
    case "timestamp":
    case "timestamp_ntz":
      return `"${formatMicros(s.v, s.kind === "timestamp")}"`;
    case "string":
      return quoteJson(s.v);
    case "binary":
      return `"${base64(s.v)}"`;
    case "uuid":
      return `"${s.v}"`;
  }
}

function scalarValue(s: Scalar): VariantJsValue {
  switch (s.kind) {
    case "null":
      return null;
    case "long":
      return s.v >= -(2n ** 53n) + 1n && s.v <= 2n ** 53n - 1n ? Number(s.v) : s.v;
    case "decimal":
      return plainDecimal(s.unscaled, s.scale);
    case "date":
    case "timestamp":
    case "timestamp_ntz":
      return JSON.parse(scalarJson(s)) as string;
    case "boolean":
    case "double":
    case "float":
    case "string":
    case "binary":
    case "uuid":
      return s.v;
  }
}

function walk<T>(v: Variant, pos: number, scalar: (s: Scalar) => T, object: (entries: Array<[string, T]>) => T, array: (items: T[]) => T): T {
  const { value } = v;
  const basic = byteAt(value, pos) & 3;
  if (basic === OBJECT) return object(variantObjectFields(v, pos)!.map((f) => [f.key, walk(v, f.pos, scalar, object, array)]));
  if (basic === ARRAY) {
    const a = arrayLayout(value, pos);
    const items: T[] = [];
    for (let i = 0; i < a.size; i++) items.push(walk(v, a.dataStart + readUnsigned(value, a.offsetStart + a.offsetSize * i, a.offsetSize), scalar, object, array));
    return array(items);
  }
  return scalar(scalarAt(value, pos));
}

function checkVersion(v: Variant): void {
  if (v.metadata.length < 1 || (v.metadata[0]! & 0x0f) !== 1) throw new PaimonError("CORRUPT_FILE", "Malformed VARIANT value: metadata version is not 1");
}

/**
 * The JSON text of a VARIANT value, exactly as Java Paimon's `GenericVariant.toJson()` (UTC):
 * object keys in sorted order, decimals in plain notation, doubles and floats as Java's
 * `Double.toString` / `Float.toString` (NaN and infinities quoted), dates, timestamps
 * (`yyyy-MM-dd HH:mm:ss[.f]` with `+00:00` for TIMESTAMP), binaries (base64) and UUIDs as strings.
 * Throws CORRUPT_FILE for malformed bytes.
 */
export function variantToJson(variant: Variant): string {
  return guard(() => variantToJsonUnguarded(variant));
}

function variantToJsonUnguarded(variant: Variant): string {
  checkVersion(variant);
  return walk(
    variant,
    0,
    scalarJson,
    (entries) => `{${entries.map(([k, v]) => `${quoteJson(k)}:${v}`).join(",")}}`,
    (items) => `[${items.join(",")}]`,
  );
}

/**
 * A VARIANT value as a JS value: objects and arrays, null, booleans, strings; integers as
 * numbers (bigint beyond ±2^53), doubles and floats as numbers; decimals as exact plain strings
 * without trailing fraction zeros ("1.50" → "1.5", as toJson prints them); dates and timestamps as Java's toJson strings; binaries as Uint8Array; UUIDs
 * as strings. Throws CORRUPT_FILE for malformed bytes.
 */
export function variantToValue(variant: Variant): VariantJsValue {
  return guard(() => variantToValueUnguarded(variant));
}

function variantToValueUnguarded(variant: Variant): VariantJsValue {
  checkVersion(variant);
  return walk<VariantJsValue>(
    variant,
    0,
    scalarValue,
    (entries) => {
      const o: { [key: string]: VariantJsValue } = {};
      for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    },
    (items) => items,
  );
}

// ---- building from JSON text (Jackson's tokens, GenericVariantBuilder.buildJson) ----

/** Appends a JSON number as Java does: an integer that fits a long, else a decimal (plain notation, ≤ 38 digits), else a double. */
function appendNumber(b: VariantBuilder, text: string): void {
  const isInteger = /^-?\d+$/.test(text);
  if (isInteger) {
    const n = BigInt(text);
    if (n >= INT64_MIN && n <= INT64_MAX) return b.appendLong(n);
  }
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const [whole, frac = ""] = text.replace("-", "").split(".");
    const unscaled = BigInt(whole! + frac);
    const precision = unscaled === 0n ? 1 : unscaled.toString().length;
    if (frac.length <= MAX_DECIMAL16_PRECISION && precision <= MAX_DECIMAL16_PRECISION) return b.appendDecimal(text.startsWith("-") ? -unscaled : unscaled, frac.length);
  }
  b.appendDouble(Number(text));
}

class JsonReader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw invalidVariant(`${what} at offset ${this.pos} of JSON text`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && " \t\n\r".includes(this.text[this.pos]!)) this.pos++;
  }

  string(): string {
    const re = /"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"/y;
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) this.fail("malformed string");
    this.pos = re.lastIndex;
    return JSON.parse(m[0]) as string;
  }

  value(b: VariantBuilder, depth: number): void {
    if (depth > 1000) this.fail("nesting deeper than 1000");
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === "{") {
      this.pos++;
      const start = b.writePos;
      const fields: VariantFieldEntry[] = [];
      this.skipSpace();
      if (this.text[this.pos] === "}") this.pos++;
      else
        for (;;) {
          this.skipSpace();
          if (this.text[this.pos] !== '"') this.fail("expected a key");
          const key = this.string();
          this.skipSpace();
          if (this.text[this.pos++] !== ":") this.fail("expected ':'");
          fields.push({ key, id: b.addKey(key), offset: b.writePos - start });
          this.value(b, depth + 1);
          this.skipSpace();
          const sep = this.text[this.pos++];
          if (sep === "}") break;
          if (sep !== ",") this.fail("expected ',' or '}'");
        }
      b.finishObject(start, fields);
    } else if (c === "[") {
      this.pos++;
      const start = b.writePos;
      const offsets: number[] = [];
      this.skipSpace();
      if (this.text[this.pos] === "]") this.pos++;
      else
        for (;;) {
          offsets.push(b.writePos - start);
          this.value(b, depth + 1);
          this.skipSpace();
          const sep = this.text[this.pos++];
          if (sep === "]") break;
          if (sep !== ",") this.fail("expected ',' or ']'");
        }
      b.finishArray(start, offsets);
    } else if (c === '"') {
      b.appendString(this.string());
    } else {
      const re = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
      re.lastIndex = this.pos;
      const m = re.exec(this.text);
      if (!m) this.fail("unexpected character");
      this.pos = re.lastIndex;
      const token = m[0];
      if (token === "true" || token === "false") b.appendBoolean(token === "true");
      else if (token === "null") b.appendNull();
      else appendNumber(b, token);
    }
  }
}

/**
 * Builds a VARIANT from JSON text with the bytes Java Paimon's `GenericVariant.fromJson` makes:
 * integers in the smallest integer type holding them (int8/16/32/64), numbers written with a
 * fraction and no exponent as decimals (`1.50` is DECIMAL scale 2, up to 38 digits), other
 * numbers as doubles; object fields sorted by key; metadata keys in first-seen order.
 * Throws INVALID_ARGUMENT for malformed JSON, trailing content or a duplicate key in an object.
 */
export function variantFromJson(json: string): Variant {
  return guard(() => variantFromJsonUnguarded(json));
}

function variantFromJsonUnguarded(json: string): Variant {
  const reader = new JsonReader(json);
  const b = new VariantBuilder();
  reader.value(b, 0);
  reader.skipSpace();
  if (reader.pos !== json.length) reader.fail("trailing content");
  return b.result();
}

/**
 * Builds a VARIANT from a JS value. JSON-like values (null, booleans, finite numbers, strings,
 * arrays, plain objects) give the same bytes as `variantFromJson(JSON.stringify(value))`, so
 * the same as Java's `GenericVariant.fromJson`; bigints are int8..int64 (decimal beyond 64
 * bits), Dates are TIMESTAMP (microseconds, UTC), Uint8Arrays are BINARY. Object properties
 * whose value is undefined are skipped, as JSON.stringify does. Throws INVALID_ARGUMENT for
 * other values (non-finite numbers, functions, symbols, cycles) and bigints beyond 38 digits.
 */
export function variantOf(value: unknown): Variant {
  return guard(() => variantOfUnguarded(value));
}

function variantOfUnguarded(value: unknown): Variant {
  const b = new VariantBuilder();
  const seen = new Set<object>();
  const append = (v: unknown): void => {
    if (v === null) return b.appendNull();
    switch (typeof v) {
      case "boolean":
        return b.appendBoolean(v);
      case "string":
        return b.appendString(v);
      case "number":
        if (!Number.isFinite(v)) throw invalidVariant(`non-finite number ${v}`);
        return appendNumber(b, JSON.stringify(v));
      case "bigint":
        if (v >= INT64_MIN && v <= INT64_MAX) return b.appendLong(v);
        if ((v < 0n ? -v : v).toString().length > MAX_DECIMAL16_PRECISION) throw invalidVariant(`integer ${v} has more than 38 digits`);
        return b.appendDecimal(v, 0);
      case "object": {
        if (v instanceof Date) {
          if (Number.isNaN(v.getTime())) throw invalidVariant("invalid Date");
          return b.appendTimestamp(BigInt(v.getTime()) * 1000n);
        }
        if (v instanceof Uint8Array) return b.appendBinary(v);
        if (seen.has(v)) throw invalidVariant("cyclic value");
        seen.add(v);
        const start = b.writePos;
        if (Array.isArray(v)) {
          const offsets: number[] = [];
          for (const item of v) {
            offsets.push(b.writePos - start);
            append(item === undefined ? null : item);
          }
          b.finishArray(start, offsets);
        } else {
          const fields: VariantFieldEntry[] = [];
          for (const [key, item] of Object.entries(v)) {
            if (item === undefined) continue;
            fields.push({ key, id: b.addKey(key), offset: b.writePos - start });
            append(item);
          }
          b.finishObject(start, fields);
        }
        seen.delete(v);
        return;
      }
      default:
        throw invalidVariant(`a ${typeof v} is not a VARIANT value`);
    }
  };
  append(value);
  return b.result();
}
