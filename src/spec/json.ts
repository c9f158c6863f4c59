// JSON as Java Paimon writes and reads it: Jackson's DefaultPrettyPrinter layout
// (`"key" : value`, 2-space object indentation, inline `[ a, b ]` arrays, `{ }` / `[ ]`
// when empty, no trailing newline) and a parser that keeps integers beyond 2^53 exact.

import { PaimonError } from "../error.js";

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue | undefined };

/** Jackson's string escaping: `"`, `\`, \b \t \n \f \r, other controls as \u00XX (upper-case hex). */
export function jacksonQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c < 0x20) {
      if (c === 0x08) out += "\\b";
      else if (c === 0x09) out += "\\t";
      else if (c === 0x0a) out += "\\n";
      else if (c === 0x0c) out += "\\f";
      else if (c === 0x0d) out += "\\r";
      else out += "\\u00" + c.toString(16).toUpperCase().padStart(2, "0");
    } else out += s[i];
  }
  return out + '"';
}

function write(value: JsonValue, nesting: number): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new PaimonError("INVALID_ARGUMENT", `Cannot write ${value} as JSON`);
      return String(value);
    case "bigint":
      return value.toString();
    case "string":
      return jacksonQuote(value);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "[ ]";
    return "[ " + value.map((v) => write(v, nesting)).join(", ") + " ]";
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined) as [string, JsonValue][];
  if (entries.length === 0) return "{ }";
  const inner = "  ".repeat(nesting + 1);
  const parts = entries.map(([k, v]) => `${inner}${jacksonQuote(k)} : ${write(v, nesting + 1)}`);
  return "{\n" + parts.join(",\n") + "\n" + "  ".repeat(nesting) + "}";
}

/** Serializes like `JsonSerdeUtil.toJson` (Jackson default pretty printer). `undefined` keys are omitted. */
export function toJacksonJson(value: JsonValue): string {
  return write(value, 0);
}

/**
 * Parses JSON text; integers outside the safe range become `bigint`, every other number a
 * `number`. Throws CORRUPT_FILE naming `what` on malformed text.
 */
export function parseJson(text: string, what = "JSON"): JsonValue {
  let i = 0;
  const fail = (msg: string): never => {
    throw new PaimonError("CORRUPT_FILE", `Cannot parse ${what}: ${msg} at offset ${i}`);
  };
  const ws = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const value = (): JsonValue => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj: { [key: string]: JsonValue } = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const k = str();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        obj[k] = value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail("unexpected character");
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    return Number(m[0]);
  };
  const str = (): string => {
    i++; // opening quote
    let out = "";
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        const e = text[i + 1];
        i += 2;
        switch (e) {
          case '"':
          case "\\":
          case "/":
            out += e;
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "n":
            out += "\n";
            break;
          case "r":
            out += "\r";
            break;
          case "t":
            out += "\t";
            break;
          case "u": {
            const h = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(h)) fail("bad unicode escape");
            out += String.fromCharCode(parseInt(h, 16));
            i += 4;
            break;
          }
          default:
            fail("bad escape");
        }
      } else {
        out += c;
        i++;
      }
    }
  };
  const result = value();
  ws();
  if (i !== text.length) fail("trailing characters");
  return result;
}

/** A JSON number (or numeric string, or bigint) as bigint; null/undefined stay null. */
export function jsonBigInt(v: JsonValue | undefined, what: string): bigint | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  throw new PaimonError("CORRUPT_FILE", `${what} is not an integer: ${String(v)}`);
}

/** A JSON number as a JS number (must be a safe integer); null/undefined stay null. */
export function jsonInt(v: JsonValue | undefined, what: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && /^-?\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  throw new PaimonError("CORRUPT_FILE", `${what} is not a (safe) integer: ${String(v)}`);
}
