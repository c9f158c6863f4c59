// The predicate model as plain data, its builder (`col`, `and`, `or`, `not`), literal
// normalization against a field's Paimon type, the value order used everywhere, and the
// pushdown helpers (`splitAnd`, `splitPredicateByFields`).
//
// Java sources replicated: paimon-common `predicate/Predicate.java` (`negate()`),
// `LeafPredicate`, `CompoundPredicate`, `And`, `Or`, the leaf functions `Equal`, `NotEqual`,
// `LessThan`, `LessOrEqual`, `GreaterThan`, `GreaterOrEqual`, `IsNull`, `IsNotNull`, `In`,
// `NotIn`, `StartsWith`, `NotStartsWith` (each one's `negate()`), `CompareUtils`,
// `PredicateBuilder.and/or/splitAnd/splitOr/pickTransformFieldMapping`.
//
// Semantics (SQL three-valued logic, as Java's leaf functions implement it):
// * a comparison with a null field value is unknown (not selected); NOT of unknown is unknown;
// * `in` ignores null literals (x IN (1, NULL) is true for 1, unknown otherwise);
// * `notIn` with a null literal is never true;
// * NOT is not a node: `not(p)` pushes the negation down to the leaves (De Morgan for AND/OR,
//   the negated operator for leaves), exactly like Java's `Predicate.negate()`, so every
//   predicate tree is negation-free and "selected" means "evaluates to TRUE".
//
// Value order (`compareValues`) is Java's `CompareUtils.compareLiteral`, which `Predicate.test`
// uses: numbers numerically; FLOAT/DOUBLE by `Float.compare` / `Double.compare` (-0.0 < 0.0,
// NaN greater than every other value and equal to itself: a total order, so that e.g.
// NOT(x < 1) and x >= 1 select the same rows); strings by their UTF-8 bytes (= code point
// order, Paimon's BinaryString order); BINARY/VARBINARY by *signed* bytes (Java compares
// `byte[]` elements as `byte`, so 0x80..0xFF sort before 0x00..0x7F); booleans false < true;
// timestamps by (millis, nanoOfMillisecond); decimals by unscaled value at the column's scale.
// Statistics written by other engines may order values differently (unsigned binary bounds,
// ±0.0 merged); stats.ts prunes conservatively around those differences.

import { PaimonError } from "../error.js";
import { decimalToString, toTimestamp, type Timestamp } from "../spec/binary-row.js";
import { MILLIS_PER_DAY, formatIsoDate, parseIsoDate } from "../spec/civil-time.js";
import { isComplexType, typeToString, withNullable, type DataField, type DataType } from "../spec/types.js";

// ---------------------------------------------------------------------------------------------
// Plain data
// ---------------------------------------------------------------------------------------------

export type CompareOp = "eq" | "ne" | "lt" | "le" | "gt" | "ge";
export type LeafOp = CompareOp | "in" | "notIn" | "isNull" | "isNotNull" | "startsWith" | "notStartsWith";

/**
 * A leaf: `field op literals`. Built by `col()` the literals are as the caller gave them;
 * after `bindPredicate` they are the canonical JS values of the field's type (see
 * `normalizeLiteral`) and `type` is set. Comparison ops have one literal, in/notIn any number,
 * isNull/isNotNull none, (not)startsWith one (string, or bytes for binary columns).
 */
export interface LeafPredicate {
  readonly kind: "leaf";
  readonly op: LeafOp;
  readonly field: string;
  readonly literals: readonly unknown[];
  /** The field's Paimon type once bound (literals are then canonical for it). */
  readonly type?: DataType;
}

export interface CompoundPredicate {
  readonly kind: "and" | "or";
  /** At least two children; none of the same kind (builders flatten). */
  readonly children: readonly Predicate[];
}

export type Predicate = LeafPredicate | CompoundPredicate;

export type BoundLeafPredicate = LeafPredicate & { readonly type: DataType };

const LEAF_OPS: ReadonlySet<string> = new Set(["eq", "ne", "lt", "le", "gt", "ge", "in", "notIn", "isNull", "isNotNull", "startsWith", "notStartsWith"]);

export function isPredicate(x: unknown): x is Predicate {
  if (x === null || typeof x !== "object") return false;
  const p = x as { kind?: unknown; op?: unknown; field?: unknown; literals?: unknown; children?: unknown[] };
  if (p.kind === "leaf") return typeof p.op === "string" && LEAF_OPS.has(p.op) && typeof p.field === "string" && Array.isArray(p.literals);
  if (p.kind === "and" || p.kind === "or") return Array.isArray(p.children) && p.children.every(isPredicate);
  return false;
}

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

function describe(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Uint8Array) return `0x${Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  if (v instanceof Date) return `Date(${Number.isNaN(v.getTime()) ? "invalid" : v.toISOString()})`;
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (v !== null && typeof v === "object" && "millis" in v) {
    const t = v as Timestamp;
    return `Timestamp(${t.millis}ms+${t.nanoOfMillisecond}ns)`;
  }
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// Builder (API: col(name).eq/…, and, or, not)
// ---------------------------------------------------------------------------------------------

function leaf(op: LeafOp, field: string, literals: readonly unknown[]): LeafPredicate {
  return { kind: "leaf", op, field, literals };
}

function requireValue(name: string, op: string, v: unknown): unknown {
  if (v === null || v === undefined)
    throw invalid(`Filter ${op} on column \`${name}\` needs a non-null literal (a comparison with NULL is never true; use isNull()/isNotNull())`);
  return v;
}

export interface ColumnRef {
  readonly name: string;
  eq(v: unknown): Predicate;
  ne(v: unknown): Predicate;
  lt(v: unknown): Predicate;
  le(v: unknown): Predicate;
  gt(v: unknown): Predicate;
  ge(v: unknown): Predicate;
  in(vs: readonly unknown[]): Predicate;
  notIn(vs: readonly unknown[]): Predicate;
  isNull(): Predicate;
  isNotNull(): Predicate;
  startsWith(prefix: string | Uint8Array): Predicate;
}

/** The predicate builder of the API: `col("a").gt(5)`. */
export function col(name: string): ColumnRef {
  if (typeof name !== "string" || name === "") throw invalid(`Column name must be a non-empty string, got ${describe(name)}`);
  const cmp = (op: CompareOp) => (v: unknown): Predicate => leaf(op, name, [requireValue(name, op, v)]);
  const list = (op: "in" | "notIn") => (vs: readonly unknown[]): Predicate => {
    if (!Array.isArray(vs)) throw invalid(`Filter ${op} on column \`${name}\` needs an array of literals, got ${describe(vs)}`);
    return leaf(op, name, vs.map((v) => (v === undefined ? null : v)));
  };
  return {
    name,
    eq: cmp("eq"),
    ne: cmp("ne"),
    lt: cmp("lt"),
    le: cmp("le"),
    gt: cmp("gt"),
    ge: cmp("ge"),
    in: list("in"),
    notIn: list("notIn"),
    isNull: () => leaf("isNull", name, []),
    isNotNull: () => leaf("isNotNull", name, []),
    startsWith: (prefix: string | Uint8Array): Predicate => {
      if (typeof prefix !== "string" && !(prefix instanceof Uint8Array))
        throw invalid(`Filter startsWith on column \`${name}\` needs a string (or bytes) prefix, got ${describe(prefix)}`);
      return leaf("startsWith", name, [prefix]);
    },
  };
}

function compound(kind: "and" | "or", ps: readonly Predicate[]): Predicate {
  if (ps.length === 0) throw invalid(`${kind}() needs at least one predicate`);
  const children: Predicate[] = [];
  for (const p of ps) {
    if (!isPredicate(p)) throw invalid(`${kind}() expects predicates, got ${describe(p)}`);
    if (p.kind === kind) children.push(...p.children);
    else children.push(p);
  }
  return children.length === 1 ? children[0]! : { kind, children };
}

/** Conjunction (nested ANDs are flattened; one argument is returned as is). */
export function and(...ps: Predicate[]): Predicate {
  return compound("and", ps);
}

/** Disjunction (nested ORs are flattened; one argument is returned as is). */
export function or(...ps: Predicate[]): Predicate {
  return compound("or", ps);
}

const NEGATED: Record<LeafOp, LeafOp> = {
  eq: "ne",
  ne: "eq",
  lt: "ge",
  ge: "lt",
  le: "gt",
  gt: "le",
  in: "notIn",
  notIn: "in",
  isNull: "isNotNull",
  isNotNull: "isNull",
  startsWith: "notStartsWith",
  notStartsWith: "startsWith",
};

/**
 * Java `Predicate.negate()`: De Morgan for AND/OR, the negated operator for leaves
 * (eq↔ne, lt↔ge, le↔gt, in↔notIn, isNull↔isNotNull, startsWith↔notStartsWith).
 * Under SQL three-valued logic the result selects exactly the rows whose value for `p`
 * is FALSE (rows where `p` is unknown are selected by neither).
 */
export function negate(p: Predicate): Predicate {
  if (p.kind === "leaf") return { ...p, op: NEGATED[p.op] };
  return { kind: p.kind === "and" ? "or" : "and", children: p.children.map(negate) };
}

/** NOT, pushed down (see `negate`). */
export function not(p: Predicate): Predicate {
  if (!isPredicate(p)) throw invalid(`not() expects a predicate, got ${describe(p)}`);
  return negate(p);
}

// ---------------------------------------------------------------------------------------------
// Structure helpers (Java PredicateBuilder.splitAnd / splitOr / pickTransformFieldMapping)
// ---------------------------------------------------------------------------------------------

/** The conjuncts of `p` (`[p]` when it is not an AND); `[]` for null. */
export function splitAnd(p: Predicate | null | undefined): Predicate[] {
  if (p == null) return [];
  return p.kind === "and" ? p.children.flatMap((c) => splitAnd(c)) : [p];
}

/** The disjuncts of `p` (`[p]` when it is not an OR); `[]` for null. */
export function splitOr(p: Predicate | null | undefined): Predicate[] {
  if (p == null) return [];
  return p.kind === "or" ? p.children.flatMap((c) => splitOr(c)) : [p];
}

/** AND of `ps`, or null when empty (for recombining split parts). */
export function andOrNull(ps: readonly Predicate[]): Predicate | null {
  return ps.length === 0 ? null : compound("and", ps);
}

/** Names of the columns `p` references, in first-use order. */
export function referencedFields(p: Predicate | null | undefined): string[] {
  const out = new Set<string>();
  const walk = (q: Predicate): void => {
    if (q.kind === "leaf") out.add(q.field);
    else q.children.forEach(walk);
  };
  if (p != null) walk(p);
  return [...out];
}

function renameFields(p: Predicate, rename: (name: string) => string): Predicate {
  if (p.kind === "leaf") return { ...p, field: rename(p.field) };
  return { kind: p.kind, children: p.children.map((c) => renameFields(c, rename)) };
}

export interface SplitPredicate {
  /** AND of the conjuncts that reference only the given fields (renamed if asked); null if none. */
  picked: Predicate | null;
  /** AND of the other conjuncts (original names); null if none. */
  rest: Predicate | null;
}

/**
 * Splits `p` into its top-level conjuncts (Java `splitAnd`) and picks those that reference
 * only `fields` (Java `pickTransformFieldMapping`), e.g. the partition keys for partition
 * pruning or the primary keys for key-stats pruning of PK tables. `picked AND rest` is
 * equivalent to `p`. `rename` maps picked field names (e.g. to the `_KEY_` names of a key row,
 * or to the names in another schema); by default names are kept.
 */
export function splitPredicateByFields(
  p: Predicate | null | undefined,
  fields: Iterable<string>,
  rename?: Record<string, string> | ((name: string) => string),
): SplitPredicate {
  if (p != null && p.kind === "leaf" && rename === undefined && isPredicate(p)) {
    // one leaf (a key lookup's filter; every plan and read splits it): no sets or arrays
    for (const f of fields) if (f === p.field) return { picked: p, rest: null };
    return { picked: null, rest: p };
  }
  const allowed = new Set(fields);
  const picked: Predicate[] = [];
  const rest: Predicate[] = [];
  for (const c of splitAnd(p)) {
    if (referencedFields(c).every((f) => allowed.has(f))) picked.push(c);
    else rest.push(c);
  }
  const fn = rename === undefined ? undefined : typeof rename === "function" ? rename : (n: string): string => rename[n] ?? n;
  const pickedP = andOrNull(picked);
  return { picked: pickedP && fn ? renameFields(pickedP, fn) : pickedP, rest: andOrNull(rest) };
}

/** Java-like rendering, e.g. `And(Equal(a, 1), IsNull(b))` — for messages and debugging. */
export function predicateToString(p: Predicate): string {
  if (p.kind !== "leaf") return `${p.kind === "and" ? "And" : "Or"}(${p.children.map(predicateToString).join(", ")})`;
  const names: Record<LeafOp, string> = {
    eq: "Equal",
    ne: "NotEqual",
    lt: "LessThan",
    le: "LessOrEqual",
    gt: "GreaterThan",
    ge: "GreaterOrEqual",
    in: "In",
    notIn: "NotIn",
    isNull: "IsNull",
    isNotNull: "IsNotNull",
    startsWith: "StartsWith",
    notStartsWith: "NotStartsWith",
  };
  const lits = p.literals.length === 0 ? "" : p.op === "in" || p.op === "notIn" ? `, [${p.literals.map(describe).join(", ")}]` : `, ${describe(p.literals[0])}`;
  return `${names[p.op]}(${p.field}${lits})`;
}

// ---------------------------------------------------------------------------------------------
// Literal normalization
// ---------------------------------------------------------------------------------------------
//
// Canonical JS value per Paimon type (the representation `fromBinaryRow` returns):
//   BOOLEAN boolean · TINYINT/SMALLINT/INT number · BIGINT bigint · FLOAT number (Math.fround)
//   DOUBLE number · CHAR/VARCHAR string · BINARY/VARBINARY/BLOB Uint8Array
//   DECIMAL(p, s) bigint *unscaled* value at scale s · DATE number of days since 1970-01-01
//   TIME number millis of day · TIMESTAMP/TIMESTAMP_LTZ Timestamp {millis, nanoOfMillisecond}
//
// Accepted literal inputs: integers as number / bigint / decimal-integer string; FLOAT/DOUBLE as
// number / bigint / numeric string; strings as string; binaries as Uint8Array / ArrayBuffer /
// string (UTF-8); DECIMAL as number, bigint (an integer *value*, not unscaled) or decimal
// string — exactly, more fractional digits than the scale (unless zeros) or more integer
// digits than the precision allow do not fit; DATE as days / "YYYY-MM-DD" / a Date at UTC
// midnight; TIME as millis of day or "hh:mm[:ss[.fff]]"; TIMESTAMP as Date, epoch millis
// (number/bigint), {millis, nanoOfMillisecond}, or an ISO string read as UTC ("…Z" allowed).

const INT_RANGES: Record<string, [number, number]> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
};
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TEXT = new TextEncoder();

const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  return (POW10[n] ??= 10n ** BigInt(n));
}

class NoFit extends Error {}

function integral(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") {
    // beyond 2^53 a JS number may already have been rounded: ask for a bigint or a string
    if (!Number.isSafeInteger(v)) throw new NoFit();
    return BigInt(v);
  }
  if (typeof v === "string" && /^\s*[+-]?\d+\s*$/.test(v)) return BigInt(v.trim());
  throw new NoFit();
}

function floating(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") {
    const s = v.trim();
    if (/^[+-]?(NaN|Infinity)$/.test(s)) return Number(s.replace(/^\+/, ""));
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
  }
  throw new NoFit();
}

/** Exact decimal parse: unscaled value at `scale`, or NoFit if it is not exactly representable in DECIMAL(precision, scale). */
function exactDecimal(v: unknown, precision: number, scale: number): bigint {
  let unscaled: bigint;
  if (typeof v === "bigint") unscaled = v * pow10(scale);
  else {
    let s: string;
    if (typeof v === "number") {
      if (!Number.isFinite(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER) throw new NoFit();
      s = String(v);
    } else if (typeof v === "string") s = v.trim();
    else throw new NoFit();
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
    if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new NoFit();
    const digits = (m[2] ?? "") + (m[3] ?? "");
    const exp = Number(m[4] ?? "0") - (m[3] ?? "").length; // value = digits * 10^exp
    let mag = BigInt(digits === "" ? "0" : digits);
    const shift = exp + scale;
    if (shift >= 0) mag *= pow10(shift);
    else {
      const d = pow10(-shift);
      if (mag % d !== 0n) throw new NoFit();
      mag /= d;
    }
    unscaled = m[1] === "-" ? -mag : mag;
  }
  if ((unscaled < 0n ? -unscaled : unscaled) >= pow10(precision)) throw new NoFit();
  return unscaled;
}

function days(v: unknown): number {
  if (typeof v === "number" || typeof v === "bigint") {
    const n = Number(integral(v));
    if (Math.abs(n) > 1e9) throw new NoFit();
    return n;
  }
  if (v instanceof Date) {
    const t = v.getTime();
    if (Number.isNaN(t) || t % MILLIS_PER_DAY !== 0) throw new NoFit();
    return t / MILLIS_PER_DAY;
  }
  if (typeof v === "string") {
    const day = parseIsoDate(v.trim());
    if (day !== null) return day;
  }
  throw new NoFit();
}

function timeMillis(v: unknown): number {
  let n: number;
  if (typeof v === "number" || typeof v === "bigint") n = Number(integral(v));
  else if (typeof v === "string") {
    const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*$/.exec(v);
    if (!m) throw new NoFit();
    const frac = (m[4] ?? "").padEnd(9, "0");
    if (!/^0*$/.test(frac.slice(3))) throw new NoFit();
    if (Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) throw new NoFit();
    n = ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3] ?? 0)) * 1000 + Number(frac.slice(0, 3));
  } else throw new NoFit();
  if (n < 0 || n >= MILLIS_PER_DAY) throw new NoFit();
  return n;
}

function timestamp(v: unknown): Timestamp {
  if (typeof v === "string") v = v.trim();
  try {
    const t = toTimestamp(v);
    if (t.millis < INT64_MIN || t.millis > INT64_MAX) throw new NoFit();
    return t;
  } catch (e) {
    if (e instanceof NoFit) throw e;
    throw new NoFit();
  }
}

function bytesOf(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (typeof v === "string") return TEXT.encode(v);
  throw new NoFit();
}

/**
 * The canonical JS value of `value` for `type` (see the table above), or INVALID_ARGUMENT
 * naming `column` when it does not fit. `null`/`undefined` → null.
 */
export function normalizeLiteral(value: unknown, type: DataType, column = "?"): unknown {
  if (value === null || value === undefined) return null;
  try {
    switch (type.kind) {
      case "BOOLEAN":
        if (typeof value === "boolean") return value;
        if (value === "true" || value === "false") return value === "true";
        throw new NoFit();
      case "TINYINT":
      case "SMALLINT":
      case "INT": {
        const n = integral(value);
        const [lo, hi] = INT_RANGES[type.kind]!;
        if (n < BigInt(lo) || n > BigInt(hi)) throw new NoFit();
        return Number(n);
      }
      case "BIGINT": {
        const n = integral(value);
        if (n < INT64_MIN || n > INT64_MAX) throw new NoFit();
        return n;
      }
      case "FLOAT":
        return Math.fround(floating(value));
      case "DOUBLE":
        return floating(value);
      case "CHAR":
      case "VARCHAR":
        if (typeof value !== "string") throw new NoFit();
        return value;
      case "BINARY":
      case "VARBINARY":
      case "BLOB":
        return bytesOf(value);
      case "DECIMAL":
        return exactDecimal(value, type.precision, type.scale);
      case "DATE":
        return days(value);
      case "TIME":
        return timeMillis(value);
      case "TIMESTAMP":
      case "TIMESTAMP_LTZ":
        return timestamp(value);
      default:
        throw invalid(`Column \`${column}\` of type ${typeToString(type)} cannot be compared with a literal`);
    }
  } catch (e) {
    if (e instanceof NoFit) throw invalid(`Literal ${describe(value)} does not fit column \`${column}\` of type ${typeToString(type)}`);
    throw e;
  }
}

/** Checks that `v` already is a canonical value of `type` (as `fromBinaryRow` returns them). */
export function isCanonicalValue(v: unknown, type: DataType): boolean {
  if (v === null) return true;
  switch (type.kind) {
    case "BOOLEAN":
      return typeof v === "boolean";
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return typeof v === "number" && Number.isInteger(v);
    case "BIGINT":
    case "DECIMAL":
      return typeof v === "bigint";
    case "FLOAT":
    case "DOUBLE":
      return typeof v === "number";
    case "CHAR":
    case "VARCHAR":
      return typeof v === "string";
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return v instanceof Uint8Array;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return typeof v === "object" && typeof (v as Timestamp).millis === "bigint" && typeof (v as Timestamp).nanoOfMillisecond === "number";
    default:
      return false;
  }
}

/** A canonical value of `from` as a literal input that `normalizeLiteral(·, to)` reads with the same meaning. */
function canonicalAsInput(v: unknown, from: DataType): unknown {
  if (v === null) return null;
  switch (from.kind) {
    case "DECIMAL":
      return decimalToString(v as bigint, from.scale);
    case "DATE":
      return formatIsoDate(v as number);
    default:
      return v;
  }
}

function sameType(a: DataType, b: DataType): boolean {
  return typeToString(withNullable(a, true)) === typeToString(withNullable(b, true));
}

/** Whether an operator can be applied to a column of `type`. */
function checkOp(op: LeafOp, type: DataType, column: string): void {
  if (op === "isNull" || op === "isNotNull") return;
  if (isComplexType(type) || type.kind === "VARIANT")
    throw invalid(`Filter ${op} is not supported on column \`${column}\` of type ${typeToString(type)} (only isNull/isNotNull)`);
  if ((op === "startsWith" || op === "notStartsWith") && !["CHAR", "VARCHAR", "BINARY", "VARBINARY", "BLOB"].includes(type.kind))
    throw invalid(`Filter startsWith needs a string or binary column, but \`${column}\` is ${typeToString(type)}`);
}

function bindLeaf(p: LeafPredicate, type: DataType): BoundLeafPredicate {
  checkOp(p.op, type, p.field);
  if (p.type !== undefined && sameType(p.type, type)) return p as BoundLeafPredicate;
  const from = p.type;
  const literals = p.literals.map((raw) => {
    const v = from === undefined ? raw : canonicalAsInput(raw, from);
    if (p.op === "startsWith" || p.op === "notStartsWith") {
      if (type.kind === "CHAR" || type.kind === "VARCHAR") {
        if (typeof v !== "string") throw invalid(`startsWith on column \`${p.field}\` needs a string prefix, got ${describe(v)}`);
        return v;
      }
      return bytesOf(v);
    }
    if ((v === null || v === undefined) && p.op !== "in" && p.op !== "notIn")
      throw invalid(`Filter ${p.op} on column \`${p.field}\` needs a non-null literal (use isNull()/isNotNull())`);
    return normalizeLiteral(v, type, p.field);
  });
  const arity = p.op === "isNull" || p.op === "isNotNull" ? 0 : p.op === "in" || p.op === "notIn" ? -1 : 1;
  if (arity >= 0 && literals.length !== arity) throw invalid(`Filter ${p.op} on column \`${p.field}\` needs ${arity} literal(s), got ${literals.length}`);
  return { kind: "leaf", op: p.op, field: p.field, literals, type };
}

/**
 * Resolves every column of `p` against `fields` (INVALID_ARGUMENT for an unknown column,
 * an operator the type does not support, or a literal that does not fit the type) and
 * normalizes the literals to the canonical values of the field types. Leaves already bound
 * to the same type are kept; leaves bound to another type (schema evolution) are converted.
 */
export function bindPredicate(p: Predicate, fields: readonly DataField[] | ReadonlyMap<string, DataType>): Predicate {
  const types = fields instanceof Map ? (fields as ReadonlyMap<string, DataType>) : fieldTypesOf(fields as readonly DataField[]);
  if (!isPredicate(p)) throw invalid(`Not a predicate: ${describe(p)}`);
  return bindWalk(p, types);
}

function bindWalk(q: Predicate, types: ReadonlyMap<string, DataType>): Predicate {
  if (q.kind !== "leaf") return { kind: q.kind, children: q.children.map((c) => bindWalk(c, types)) };
  const type = types.get(q.field);
  if (type === undefined) throw invalid(`Unknown column \`${q.field}\` in filter ${predicateToString(q)}; known columns: ${[...types.keys()].join(", ")}`);
  return bindLeaf(q, type);
}

/**
 * Field types by name of a field list, kept per list: predicates are bound to the same schema's
 * fields at every plan and read (several times per real-time key lookup). Field lists are not
 * changed once made (schemas are immutable).
 */
const fieldTypes = new WeakMap<readonly DataField[], Map<string, DataType>>();

function fieldTypesOf(fields: readonly DataField[]): ReadonlyMap<string, DataType> {
  let m = fieldTypes.get(fields);
  if (m === undefined) {
    m = new Map();
    for (const f of fields) m.set(f.name, f.type);
    fieldTypes.set(fields, m);
  }
  return m;
}

/** Whether every leaf of `p` is bound. */
export function isBound(p: Predicate): boolean {
  return p.kind === "leaf" ? p.type !== undefined : p.children.every(isBound);
}

// ---------------------------------------------------------------------------------------------
// Value order
// ---------------------------------------------------------------------------------------------

/** Unsigned bytewise comparison (the order of UTF-8 strings, Paimon's `BinaryString.compareTo`). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Signed bytewise comparison: Java `CompareUtils.compare(byte[], byte[])`, the order of
 * BINARY/VARBINARY values in `Predicate.test` (bytes 0x80..0xFF are negative, so they sort
 * before 0x00..0x7F); a shorter prefix sorts first.
 */
export function compareSignedBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = ((a[i]! << 24) >> 24) - ((b[i]! << 24) >> 24);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** UTF-8 byte order of two JS strings (= Unicode code point order) without encoding them. */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      // a surrogate starts a supplementary code point (> every BMP code point)
      if (xs === ys) return x - y;
      return xs ? 1 : -1;
    }
  }
  return a.length - b.length;
}

/**
 * Total order on FLOAT/DOUBLE values, Java's `Double.compare` (and `Float.compare`): -0.0 < 0.0,
 * NaN greatest and equal to itself.
 */
export function compareFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const an = Object.is(a, -0);
    return an === Object.is(b, -0) ? 0 : an ? -1 : 1;
  }
  const an = a !== a;
  const bn = b !== b;
  return an === bn ? 0 : an ? 1 : -1;
}

/** Order of two non-null canonical values of `type` (negative, zero, positive). */
export function compareValues(type: DataType, a: unknown, b: unknown): number {
  switch (type.kind) {
    case "FLOAT":
    case "DOUBLE":
      return compareFloat(a as number, b as number);
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return (a as number) - (b as number);
    case "BIGINT":
    case "DECIMAL":
      return a === b ? 0 : (a as bigint) < (b as bigint) ? -1 : 1;
    case "BOOLEAN":
      return (a ? 1 : 0) - (b ? 1 : 0);
    case "CHAR":
    case "VARCHAR":
      return compareUtf8(a as string, b as string);
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return compareSignedBytes(a as Uint8Array, b as Uint8Array);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const x = a as Timestamp;
      const y = b as Timestamp;
      if (x.millis !== y.millis) return x.millis < y.millis ? -1 : 1;
      return x.nanoOfMillisecond - y.nanoOfMillisecond;
    }
    default:
      throw invalid(`Values of type ${typeToString(type)} are not comparable`);
  }
}

/** Prefix test on canonical string / binary values. */
export function startsWithValue(value: unknown, prefix: unknown): boolean {
  if (typeof value === "string") return value.startsWith(prefix as string);
  const v = value as Uint8Array;
  const p = prefix as Uint8Array;
  if (v.length < p.length) return false;
  for (let i = 0; i < p.length; i++) if (v[i] !== p[i]) return false;
  return true;
}
