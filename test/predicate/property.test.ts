import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { and, col, evaluateBatch, mayMatch, negate, not, or, type ColumnStats, type Predicate, type StatsSet } from "../../src/predicate/index.js";
import { decimalToString, type Timestamp } from "../../src/spec/binary-row.js";
import { DataTypes as T, type DataField, type DataType } from "../../src/spec/types.js";
import { makeBatch, modelCompare, modelEval, type Model, type ModelOp } from "./helpers.js";

const COLUMN_TYPES: DataType[] = [
  T.BOOLEAN(),
  T.TINYINT(),
  T.INT(),
  T.BIGINT(),
  T.FLOAT(),
  T.DOUBLE(),
  T.STRING(),
  T.BYTES(),
  T.DECIMAL(10, 2),
  T.DECIMAL(30, 4),
  T.DATE(),
  T.TIME(),
  T.TIMESTAMP(0),
  T.TIMESTAMP(3),
  T.TIMESTAMP(6),
  T.TIMESTAMP(9),
  T.TIMESTAMP_LTZ(6),
];

const small = fc.integer({ min: -3, max: 3 });

function timestampArb(precision: number, literal: boolean): fc.Arbitrary<Timestamp> {
  const millis = fc.oneof(
    fc.bigInt({ min: -3n, max: 3n }).map((m) => m * 1000n),
    fc.bigInt({ min: -3000n, max: 3000n }),
    fc.constantFrom(-9_000_000_000_000n, 9_000_000_000_000n, 1715700000123n),
  );
  const unit = literal ? 1 : precision <= 3 ? 1_000_000 : precision <= 6 ? 1000 : 1;
  const nano = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999 }).map((n) => n - (n % unit)), fc.constantFrom(999_000, 500_000, 1).map((n) => n - (n % unit)));
  return fc.tuple(millis, precision <= 3 && !literal ? fc.constant(0) : nano).map(([m, n]) => ({
    millis: precision === 0 && !literal ? m - (((m % 1000n) + 1000n) % 1000n) : m,
    nanoOfMillisecond: n,
  }));
}

/** Canonical values of a type (literal = true: also values the column cannot hold exactly). */
function valueArb(type: DataType, literal = false): fc.Arbitrary<unknown> {
  switch (type.kind) {
    case "BOOLEAN":
      return fc.boolean();
    case "TINYINT":
      return fc.oneof(small, fc.constantFrom(-128, 127));
    case "INT":
      return fc.oneof(small, fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 65536));
    case "BIGINT":
      return fc.oneof(small.map(BigInt), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 31n, -1n << 40n));
    case "FLOAT":
      return fc.oneof(fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1.5, -1.5, 0.1), small, fc.float()).map((v) => Math.fround(v));
    case "DOUBLE":
      return fc.oneof(fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1.5, -1.5, 0.1), small, fc.double());
    case "CHAR":
    case "VARCHAR":
      return fc.oneof(fc.constantFrom("", "a", "ab", "abc", "b", "é", "\uffff", "\ue000", "😀", "a😀", "ab\u0000"), fc.string({ unit: "binary", maxLength: 4 }));
    case "BINARY":
    case "VARBINARY":
      return fc.oneof(
        fc.constantFrom(new Uint8Array(), new Uint8Array([0]), new Uint8Array([1, 2]), new Uint8Array([255])),
        fc.uint8Array({ maxLength: 3, min: 0, max: 3 }),
        fc.uint8Array({ maxLength: 4 }),
      );
    case "DECIMAL": {
      const max = 10n ** BigInt(type.precision) - 1n;
      return fc.oneof(fc.bigInt({ min: -300n, max: 300n }), fc.bigInt({ min: -max, max }), fc.constantFrom(max, -max, 0n));
    }
    case "DATE":
      return fc.oneof(small, fc.constantFrom(-100000, 19000, 2932896));
    case "TIME":
      return fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 86399999 }));
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return timestampArb(type.precision, literal);
    default:
      throw new Error(type.kind);
  }
}

interface Table {
  fields: DataField[];
  rows: unknown[][];
}

const tableArb: fc.Arbitrary<Table> = fc
  .array(fc.tuple(fc.constantFrom(...COLUMN_TYPES), fc.boolean()), { minLength: 1, maxLength: 3 })
  .chain((cols) =>
    fc.record({
      fields: fc.constant(cols.map(([t], i) => T.FIELD(i, `c${i}`, t))),
      rows: fc.array(fc.tuple(...cols.map(([t, nullable]) => (nullable ? fc.option(valueArb(t), { freq: 3, nil: null }) : valueArb(t)))), {
        maxLength: 30,
      }),
    }),
  );

function leafArb(fields: DataField[]): fc.Arbitrary<Model> {
  return fc.integer({ min: 0, max: fields.length - 1 }).chain((column) => {
    const type = fields[column]!.type;
    const lit = valueArb(type, true);
    const ops: ModelOp[] = ["eq", "ne", "lt", "le", "gt", "ge", "in", "notIn", "isNull", "isNotNull"];
    if (type.kind === "VARCHAR" || type.kind === "VARBINARY") ops.push("startsWith", "startsWith");
    return fc.constantFrom(...ops).chain((op): fc.Arbitrary<Model> => {
      if (op === "isNull" || op === "isNotNull") return fc.constant({ kind: "leaf", op, column, literals: [] });
      if (op === "in" || op === "notIn")
        return fc.array(fc.option(lit, { freq: 6, nil: null }), { maxLength: 4 }).map((literals) => ({ kind: "leaf", op, column, literals }));
      return lit.map((l) => ({ kind: "leaf", op, column, literals: [l] }));
    });
  });
}

function modelArb(fields: DataField[]): fc.Arbitrary<Model> {
  const { tree } = fc.letrec<{ tree: Model }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leafArb(fields),
      fc.record({ kind: fc.constantFrom("and" as const, "or" as const), children: fc.array(tie("tree"), { minLength: 2, maxLength: 3 }) }),
      fc.record({ kind: fc.constant("not" as const), child: tie("tree") }),
    ),
  }));
  return tree;
}

/** A literal in the form a caller passes to the builder (canonical decimals are unscaled). */
function input(type: DataType, v: unknown): unknown {
  if (v === null) return null;
  if (type.kind === "DECIMAL") return decimalToString(v as bigint, type.scale);
  return v;
}

function toPredicate(m: Model, fields: DataField[]): Predicate {
  switch (m.kind) {
    case "not":
      return not(toPredicate(m.child, fields));
    case "and":
      return and(...m.children.map((c) => toPredicate(c, fields)));
    case "or":
      return or(...m.children.map((c) => toPredicate(c, fields)));
    case "leaf": {
      const f = fields[m.column]!;
      const c = col(f.name);
      const lits = m.literals.map((l) => input(f.type, l));
      switch (m.op) {
        case "isNull":
          return c.isNull();
        case "isNotNull":
          return c.isNotNull();
        case "in":
          return c.in(lits);
        case "notIn":
          return c.notIn(lits);
        case "startsWith":
          return c.startsWith(lits[0] as string | Uint8Array);
        default:
          return c[m.op](lits[0]);
      }
    }
  }
}

const caseArb = tableArb.chain((table) => fc.record({ table: fc.constant(table), model: modelArb(table.fields) }));

const modelMask = (m: Model, table: Table, rows = table.rows): number[] =>
  rows.map((r) => (modelEval(m, table.fields.map((f) => f.type), r) === 1 ? 1 : 0));

// --- stats ----------------------------------------------------------------------------------------

function trueStats(table: Table, rows = table.rows, options: { excludeNaN?: boolean } = {}): StatsSet {
  const columns: Record<string, ColumnStats> = {};
  table.fields.forEach((f, c) => {
    let min: unknown = null;
    let max: unknown = null;
    let nulls = 0;
    for (const r of rows) {
      const v = r[c];
      if (v === null) {
        nulls++;
        continue;
      }
      if (options.excludeNaN && typeof v === "number" && Number.isNaN(v)) continue;
      if (min === null || modelCompare(f.type, v, min) < 0) min = v;
      if (max === null || modelCompare(f.type, v, max) > 0) max = v;
    }
    columns[f.name] = { min, max, nullCount: BigInt(nulls) };
  });
  return { rowCount: BigInt(rows.length), columns };
}

/** Paimon `truncate(n)` for strings: min = prefix of n code points; max = prefix with its last code point incremented (null if impossible). */
function truncateStats(stats: StatsSet, table: Table, n: number): StatsSet {
  const columns: Record<string, ColumnStats> = {};
  table.fields.forEach((f) => {
    const s = stats.columns[f.name]!;
    if (f.type.kind !== "VARCHAR" || s.min === null || s.max === null) {
      columns[f.name] = s;
      return;
    }
    const cps = (x: string): number[] => Array.from(x, (ch) => ch.codePointAt(0)!);
    const min = String.fromCodePoint(...cps(s.min as string).slice(0, n));
    const maxCps = cps(s.max as string);
    let max: string | null = s.max as string;
    if (maxCps.length > n) {
      max = null;
      const pre = maxCps.slice(0, n);
      for (let i = n - 1; i >= 0; i--) {
        let next = pre[i]! + 1;
        if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
        if (next <= 0x10ffff) {
          max = String.fromCodePoint(...pre.slice(0, i), next);
          break;
        }
      }
    }
    columns[f.name] = max === null ? { min: null, max: null, nullCount: s.nullCount } : { min, max, nullCount: s.nullCount };
  });
  return { rowCount: stats.rowCount, columns };
}

describe("property: Arrow evaluation = naive row model", () => {
  it("random tables and predicates (with NOT, IN with NULLs, all types)", () => {
    let mixed = 0; // cases where the predicate selects some rows but not all
    fc.assert(
      fc.property(caseArb, ({ table, model }) => {
        const batch = makeBatch(table.fields, table.rows);
        const p = toPredicate(model, table.fields);
        const expected = modelMask(model, table);
        expect(Array.from(evaluateBatch(p, batch))).toEqual(expected);
        if (expected.includes(0) && expected.includes(1)) mixed++;
      }),
      { numRuns: 1500 },
    );
    expect(mixed).toBeGreaterThan(300);
  });

  it("sliced batches (non-zero Arrow offsets)", () => {
    fc.assert(
      fc.property(caseArb, fc.nat(10), fc.nat(10), ({ table, model }, a, b) => {
        const batch = makeBatch(table.fields, table.rows);
        const start = Math.min(a, table.rows.length);
        const end = Math.max(start, table.rows.length - b);
        const sliced = batch.slice(start, end);
        const p = toPredicate(model, table.fields);
        expect(Array.from(evaluateBatch(p, sliced, { fields: table.fields }))).toEqual(modelMask(model, table, table.rows.slice(start, end)));
      }),
      { numRuns: 400 },
    );
  });
});

describe("property: stats evaluation is sound", () => {
  it("a batch with a matching row always may-match its own true min/max/nullCount", () => {
    let pruned = 0; // non-empty batches without a match that the stats prune (the test is not vacuous)
    fc.assert(
      fc.property(caseArb, ({ table, model }) => {
        const p = toPredicate(model, table.fields);
        const anyMatch = modelMask(model, table).includes(1);
        const stats = trueStats(table);
        if (anyMatch) {
          expect(mayMatch(p, stats, table.fields)).toBe(true);
          // NaN left out of float min/max (as Parquet footers do)
          expect(mayMatch(p, trueStats(table, table.rows, { excludeNaN: true }), table.fields)).toBe(true);
          // Paimon truncate(n) string bounds
          for (const n of [0, 1, 2]) expect(mayMatch(p, truncateStats(stats, table, n), table.fields)).toBe(true);
          // unknown stats
          expect(mayMatch(p, { columns: {} }, table.fields)).toBe(true);
          expect(mayMatch(p, { rowCount: stats.rowCount, columns: {} }, table.fields)).toBe(true);
        }
        if (table.rows.length === 0) expect(mayMatch(p, stats, table.fields)).toBe(false);
        else if (!anyMatch && !mayMatch(p, stats, table.fields)) pruned++;
      }),
      { numRuns: 1500 },
    );
    expect(pruned).toBeGreaterThan(100);
  });

  it("each row alone: exact stats of one row without float/binary columns decide exactly", () => {
    fc.assert(
      fc.property(caseArb, ({ table, model }) => {
        // floats: bounds may omit NaN and merge ±0; binary: bounds are never used (signed row
        // order vs unsigned file statistics), see predicate/stats.ts
        if (table.fields.some((f) => ["FLOAT", "DOUBLE", "BINARY", "VARBINARY"].includes(f.type.kind))) return;
        const p = toPredicate(model, table.fields);
        for (const row of table.rows.slice(0, 5)) {
          const t = modelEval(model, table.fields.map((f) => f.type), row);
          const may = mayMatch(p, trueStats(table, [row]), table.fields);
          if (t === 1) expect(may).toBe(true);
          // single-row stats are exact, so a FALSE/UNKNOWN row must be pruned unless the
          // predicate's shape needs more than per-column bounds (never for one row)
          else expect(may).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("property: negation", () => {
  it("not(p) selects exactly the rows where p is FALSE; p and not(p) are disjoint; negate is an involution", () => {
    fc.assert(
      fc.property(caseArb, ({ table, model }) => {
        const batch = makeBatch(table.fields, table.rows);
        const p = toPredicate(model, table.fields);
        const np = not(p);
        const a = evaluateBatch(p, batch);
        const b = evaluateBatch(np, batch);
        const types = table.fields.map((f) => f.type);
        table.rows.forEach((r, i) => {
          const t = modelEval(model, types, r);
          expect(a[i]).toBe(t === 1 ? 1 : 0);
          expect(b[i]).toBe(t === 0 ? 1 : 0);
          expect(a[i]! & b[i]!).toBe(0);
        });
        expect(negate(negate(p))).toEqual(p);
        // not(not(p)) selects what p selects
        expect(Array.from(evaluateBatch(not(np), batch))).toEqual(Array.from(a));
      }),
      { numRuns: 800 },
    );
  });
});
