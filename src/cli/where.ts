// A small SQL-like filter language for `paimon-rt read --where`, compiled to predicates:
//   id >= 5 AND (name = 'x' OR name IS NULL) AND dt IN ('a', 'b') AND url LIKE 'https:%'
import { PaimonError } from "../error.js";
import { and, col, not, or, type Predicate } from "../predicate/predicate.js";

type Token = { kind: "ident" | "string" | "number" | "op" | "punct" | "keyword"; text: string };

const KEYWORDS = new Set(["AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE", "TRUE", "FALSE"]);

function tokenize(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let s = "";
      i++;
      for (;;) {
        if (i >= input.length) throw bad(input, "unterminated string");
        if (input[i] === "'" && input[i + 1] === "'") {
          s += "'";
          i += 2;
        } else if (input[i] === "'") {
          i++;
          break;
        } else s += input[i++];
      }
      out.push({ kind: "string", text: s });
    } else if (c === "`" || c === '"') {
      const end = input.indexOf(c, i + 1);
      if (end < 0) throw bad(input, "unterminated quoted name");
      out.push({ kind: "ident", text: input.slice(i + 1, end) });
      i = end + 1;
    } else if (/[-\d.]/.test(c) && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.test(input.slice(i))) {
      const m = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(input.slice(i))!;
      out.push({ kind: "number", text: m[0] });
      i += m[0].length;
    } else if (/[<>=!]/.test(c)) {
      const m = /^(<=|>=|<>|!=|=|<|>)/.exec(input.slice(i));
      if (!m) throw bad(input, `unexpected '${c}'`);
      out.push({ kind: "op", text: m[0] });
      i += m[0].length;
    } else if (c === "(" || c === ")" || c === ",") {
      out.push({ kind: "punct", text: c });
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(input.slice(i))!;
      const upper = m[0].toUpperCase();
      out.push(KEYWORDS.has(upper) ? { kind: "keyword", text: upper } : { kind: "ident", text: m[0] });
      i += m[0].length;
    } else {
      throw bad(input, `unexpected '${c}'`);
    }
  }
  return out;
}

function bad(input: string, why: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", `cannot parse --where ${JSON.stringify(input)}: ${why}`);
}

/** Parses a filter expression into a predicate. Integers stay exact (bigint beyond 2^53). */
export function parseWhere(input: string): Predicate {
  const tokens = tokenize(input);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = () => tokens[pos++];
  const accept = (kind: Token["kind"], text?: string) => {
    const t = peek();
    if (t && t.kind === kind && (text === undefined || t.text === text)) return take();
    return undefined;
  };
  const expect = (kind: Token["kind"], text?: string) => accept(kind, text) ?? (() => { throw bad(input, `expected ${text ?? kind} at token ${pos + 1}`); })();

  const literal = (): unknown => {
    const t = take();
    if (!t) throw bad(input, "expected a value");
    if (t.kind === "string") return t.text;
    if (t.kind === "number") {
      if (/^-?\d+$/.test(t.text)) {
        const b = BigInt(t.text);
        return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
      }
      return Number(t.text);
    }
    if (t.kind === "keyword" && (t.text === "TRUE" || t.text === "FALSE")) return t.text === "TRUE";
    throw bad(input, `expected a value, got ${t.text}`);
  };

  const comparison = (): Predicate => {
    if (accept("punct", "(")) {
      const p = disjunction();
      expect("punct", ")");
      return p;
    }
    if (accept("keyword", "NOT")) return not(comparison());
    const name = expect("ident").text;
    const c = col(name);
    if (accept("keyword", "IS")) {
      const negated = !!accept("keyword", "NOT");
      expect("keyword", "NULL");
      return negated ? c.isNotNull() : c.isNull();
    }
    const negated = !!accept("keyword", "NOT");
    if (accept("keyword", "IN")) {
      expect("punct", "(");
      const values = [literal()];
      while (accept("punct", ",")) values.push(literal());
      expect("punct", ")");
      return negated ? c.notIn(values) : c.in(values);
    }
    if (accept("keyword", "LIKE")) {
      const pattern = literal();
      if (typeof pattern !== "string" || !/^[^%_]*%$/.test(pattern)) throw bad(input, "LIKE supports prefix patterns only ('abc%')");
      const p = c.startsWith(pattern.slice(0, -1));
      return negated ? not(p) : p;
    }
    if (negated) throw bad(input, "NOT must be followed by IN or LIKE here");
    const op = expect("op").text;
    const v = literal();
    switch (op) {
      case "=":
        return c.eq(v);
      case "!=":
      case "<>":
        return c.ne(v);
      case "<":
        return c.lt(v);
      case "<=":
        return c.le(v);
      case ">":
        return c.gt(v);
      default:
        return c.ge(v);
    }
  };
  const conjunction = (): Predicate => {
    const parts = [comparison()];
    while (accept("keyword", "AND")) parts.push(comparison());
    return parts.length === 1 ? parts[0] : and(...parts);
  };
  function disjunction(): Predicate {
    const parts = [conjunction()];
    while (accept("keyword", "OR")) parts.push(conjunction());
    return parts.length === 1 ? parts[0] : or(...parts);
  }
  const result = disjunction();
  if (pos < tokens.length) throw bad(input, `unexpected ${tokens[pos].text}`);
  return result;
}
