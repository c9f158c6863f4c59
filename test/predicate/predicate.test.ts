import { describe, expect, it } from "vitest";
import {
  and,
  bindPredicate,
  col,
  compareUtf8,
  compareValues,
  isPredicate,
  negate,
  normalizeLiteral,
  not,
  or,
  predicateToString,
  referencedFields,
  splitAnd,
  splitOr,
  splitPredicateByFields,
  type LeafPredicate,
  type Predicate,
} from "../../src/predicate/index.js";
import { PaimonError } from "../../src/error.js";
import { DataTypes as T, parseDataType, type DataField } from "../../src/spec/types.js";

const FIELDS: DataField[] = [
  T.FIELD(0, "id", T.BIGINT()),
  T.FIELD(1, "t", T.TINYINT()),
  T.FIELD(2, "i", T.INT()),
  T.FIELD(3, "price", T.DECIMAL(10, 2)),
  T.FIELD(4, "name", T.STRING()),
  T.FIELD(5, "dt", T.DATE()),
  T.FIELD(6, "ts", T.TIMESTAMP(6)),
  T.FIELD(7, "f", T.FLOAT()),
  T.FIELD(8, "bin", T.BYTES()),
  T.FIELD(9, "tags", parseDataType("ARRAY<STRING>")),
  T.FIELD(10, "ok", T.BOOLEAN()),
  T.FIELD(11, "tm", T.TIME()),
];

function invalidArg(f: () => unknown, re: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(PaimonError);
  expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
  expect((err as Error).message).toMatch(re);
}

const bindLeaf = (p: Predicate): LeafPredicate => bindPredicate(p, FIELDS) as LeafPredicate;

describe("builder and plain data", () => {
  it("leaves, flattening, single-child compounds", () => {
    const p = and(col("id").gt(1), and(col("i").eq(2), col("name").isNull()));
    expect(p).toEqual({
      kind: "and",
      children: [
        { kind: "leaf", op: "gt", field: "id", literals: [1] },
        { kind: "leaf", op: "eq", field: "i", literals: [2] },
        { kind: "leaf", op: "isNull", field: "name", literals: [] },
      ],
    });
    expect(and(col("a").eq(1))).toEqual(col("a").eq(1));
    expect(or(or(col("a").eq(1), col("b").eq(2)), col("c").eq(3))).toMatchObject({ kind: "or", children: [{}, {}, {}] });
    expect(isPredicate(p)).toBe(true);
    expect(isPredicate({ kind: "not" })).toBe(false);
    expect(JSON.parse(JSON.stringify(col("a").in([1, null, 3])))).toEqual({ kind: "leaf", op: "in", field: "a", literals: [1, null, 3] });
    invalidArg(() => and(), /at least one/);
    invalidArg(() => col(""), /non-empty/);
    invalidArg(() => col("a").eq(null), /isNull/);
    invalidArg(() => col("a").in(5 as never), /array/);
  });

  it("not() pushes negation down like Java Predicate.negate()", () => {
    const pairs: Array<[Predicate, string]> = [
      [col("a").eq(1), "ne"],
      [col("a").ne(1), "eq"],
      [col("a").lt(1), "ge"],
      [col("a").le(1), "gt"],
      [col("a").gt(1), "le"],
      [col("a").ge(1), "lt"],
      [col("a").in([1]), "notIn"],
      [col("a").notIn([1]), "in"],
      [col("a").isNull(), "isNotNull"],
      [col("a").isNotNull(), "isNull"],
      [col("a").startsWith("x"), "notStartsWith"],
    ];
    for (const [p, op] of pairs) expect((not(p) as LeafPredicate).op).toBe(op);
    const p = and(col("a").eq(1), or(col("b").lt(2), col("c").isNull()));
    expect(not(p)).toEqual(or(col("a").ne(1), and(col("b").ge(2), col("c").isNotNull())));
    expect(negate(negate(p))).toEqual(p);
  });

  it("splitAnd / splitOr / referencedFields / splitPredicateByFields", () => {
    const p = and(col("dt").eq("2024-01-01"), col("id").gt(5), or(col("dt").eq("2024-01-02"), col("hr").eq(3)), or(col("dt").isNull(), col("id").eq(1)));
    expect(splitAnd(p)).toHaveLength(4);
    expect(splitOr(col("a").eq(1))).toEqual([col("a").eq(1)]);
    expect(splitAnd(null)).toEqual([]);
    expect(referencedFields(p)).toEqual(["dt", "id", "hr"]);
    const s = splitPredicateByFields(p, ["dt", "hr"]);
    expect(s.picked).toEqual(and(col("dt").eq("2024-01-01"), or(col("dt").eq("2024-01-02"), col("hr").eq(3))));
    expect(s.rest).toEqual(and(col("id").gt(5), or(col("dt").isNull(), col("id").eq(1))));
    expect(splitPredicateByFields(p, [])).toEqual({ picked: null, rest: p });
    expect(splitPredicateByFields(null, ["dt"])).toEqual({ picked: null, rest: null });
    const renamed = splitPredicateByFields(and(col("k").eq(1), col("v").eq(2)), ["k"], { k: "_KEY_k" });
    expect(renamed.picked).toEqual(col("_KEY_k").eq(1));
    expect(splitPredicateByFields(col("k").eq(1), ["k"], (n) => n.toUpperCase()).picked).toEqual(col("K").eq(1));
    // one leaf: itself picked or left, the same object (a key lookup's filter)
    const leaf = col("k").eq(1);
    expect(splitPredicateByFields(leaf, ["v", "k"])).toEqual({ picked: leaf, rest: null });
    expect(splitPredicateByFields(leaf, ["v", "k"]).picked).toBe(leaf);
    expect(splitPredicateByFields(leaf, new Set(["v"]))).toEqual({ picked: null, rest: leaf });
    expect(splitPredicateByFields(leaf, [])).toEqual({ picked: null, rest: leaf });
    expect(() => splitPredicateByFields({ kind: "leaf", field: "k" } as never, ["k"])).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("predicateToString", () => {
    expect(predicateToString(and(col("a").eq(1), col("b").in(["x", null]), col("c").isNull()))).toBe('And(Equal(a, 1), In(b, ["x", null]), IsNull(c))');
  });
});

describe("binding and literal normalization", () => {
  it("canonical values per type", () => {
    expect(bindLeaf(col("id").eq(5)).literals).toEqual([5n]);
    expect(bindLeaf(col("id").eq("-9223372036854775808")).literals).toEqual([-(2n ** 63n)]);
    expect(bindLeaf(col("i").eq(7n)).literals).toEqual([7]);
    expect(bindLeaf(col("price").eq("1.50")).literals).toEqual([150n]);
    expect(bindLeaf(col("price").eq(1.5)).literals).toEqual([150n]);
    expect(bindLeaf(col("price").eq(2n)).literals).toEqual([200n]);
    expect(bindLeaf(col("price").eq("1.2300")).literals).toEqual([123n]);
    expect(bindLeaf(col("price").eq("1e2")).literals).toEqual([10000n]);
    expect(bindLeaf(col("price").eq("-0.01")).literals).toEqual([-1n]);
    expect(bindLeaf(col("dt").eq("2024-01-01")).literals).toEqual([19723]);
    expect(bindLeaf(col("dt").eq(new Date(Date.UTC(2024, 0, 1)))).literals).toEqual([19723]);
    expect(bindLeaf(col("dt").eq(19723)).literals).toEqual([19723]);
    expect(bindLeaf(col("ts").eq("2024-01-01T00:00:00.123456789")).literals).toEqual([{ millis: 1704067200123n, nanoOfMillisecond: 456789 }]);
    expect(bindLeaf(col("ts").eq("2024-01-01 00:00:00Z")).literals).toEqual([{ millis: 1704067200000n, nanoOfMillisecond: 0 }]);
    expect(bindLeaf(col("ts").eq(new Date(5))).literals).toEqual([{ millis: 5n, nanoOfMillisecond: 0 }]);
    expect(bindLeaf(col("f").eq(0.1)).literals).toEqual([Math.fround(0.1)]);
    expect(bindLeaf(col("f").eq("NaN")).literals[0]).toBeNaN();
    expect(bindLeaf(col("bin").eq("ab")).literals).toEqual([new Uint8Array([97, 98])]);
    expect(bindLeaf(col("bin").startsWith("a")).literals).toEqual([new Uint8Array([97])]);
    expect(bindLeaf(col("ok").eq(true)).literals).toEqual([true]);
    expect(bindLeaf(col("tm").eq("01:00:00.5")).literals).toEqual([3600500]);
    expect(bindLeaf(col("i").in([1, null, "3"])).literals).toEqual([1, null, 3]);
    expect(bindLeaf(col("name").isNull()).type).toEqual(T.STRING());
  });

  it("INVALID_ARGUMENT naming the column", () => {
    invalidArg(() => bindLeaf(col("nope").eq(1)), /Unknown column `nope`/);
    invalidArg(() => bindLeaf(col("t").eq(1000)), /does not fit column `t` of type TINYINT/);
    invalidArg(() => bindLeaf(col("i").lt(2.5)), /does not fit column `i` of type INT/);
    invalidArg(() => bindLeaf(col("i").eq("abc")), /column `i`/);
    invalidArg(() => bindLeaf(col("id").eq(2n ** 63n)), /column `id`/);
    invalidArg(() => bindLeaf(col("id").eq(2 ** 60)), /column `id`/); // unsafe JS integer: pass a bigint
    invalidArg(() => bindLeaf(col("price").eq("1.234")), /column `price` of type DECIMAL\(10, 2\)/);
    invalidArg(() => bindLeaf(col("price").eq("123456789.00")), /column `price`/);
    invalidArg(() => bindLeaf(col("dt").eq(new Date(Date.UTC(2024, 0, 1, 12)))), /column `dt`/);
    invalidArg(() => bindLeaf(col("dt").eq("2024-02-30")), /column `dt`/);
    invalidArg(() => bindLeaf(col("name").eq(5)), /column `name`/);
    invalidArg(() => bindLeaf(col("i").startsWith("x")), /startsWith needs a string or binary column/);
    invalidArg(() => bindLeaf(col("tags").eq("x")), /only isNull\/isNotNull/);
    invalidArg(() => bindLeaf(col("ok").eq(1)), /column `ok`/);
    invalidArg(() => bindLeaf(col("tm").eq(86400000)), /column `tm`/);
    invalidArg(() => bindPredicate({ kind: "leaf", op: "eq", field: "i", literals: [] } as LeafPredicate, FIELDS), /needs 1 literal/);
    expect(bindLeaf(col("tags").isNotNull()).op).toBe("isNotNull");
  });

  it("re-binding keeps bound leaves and converts across type changes (schema evolution)", () => {
    const bound = bindPredicate(col("price").gt("1.25"), FIELDS);
    expect(bindPredicate(bound, FIELDS)).toBe(bound);
    const evolved = bindPredicate(bound, [T.FIELD(3, "price", T.DECIMAL(12, 4))]) as LeafPredicate;
    expect(evolved.literals).toEqual([12500n]);
    const d = bindPredicate(col("dt").eq("2024-01-01"), FIELDS);
    expect((bindPredicate(d, [T.FIELD(5, "dt", T.TIMESTAMP(3))]) as LeafPredicate).literals).toEqual([{ millis: 1704067200000n, nanoOfMillisecond: 0 }]);
    const i = bindPredicate(col("i").eq(5), FIELDS);
    expect((bindPredicate(i, [T.FIELD(2, "i", T.BIGINT())]) as LeafPredicate).literals).toEqual([5n]);
  });

  it("normalizeLiteral null passthrough", () => {
    expect(normalizeLiteral(null, T.INT())).toBeNull();
    expect(normalizeLiteral(undefined, T.INT())).toBeNull();
  });
});

describe("value order", () => {
  it("strings in UTF-8 byte order (supplementary characters above U+FFFF)", () => {
    const enc = new TextEncoder();
    const bytes = (s: string): number[] => Array.from(enc.encode(s));
    const cmpBytes = (a: string, b: string): number => {
      const x = bytes(a);
      const y = bytes(b);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    const samples = ["", "a", "ab", "b", "é", "\uffff", "\ue000", "😀", "a😀", "ab\u0000", "\u00ff", "\u0800"];
    for (const a of samples) for (const b of samples) expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(cmpBytes(a, b)));
    expect(compareUtf8("\uffff", "😀")).toBeLessThan(0); // JS's < says otherwise
    expect("\uffff" < "😀").toBe(false);
  });

  it("floats: Java Double.compare: NaN greatest and equal to itself, -0.0 < 0.0", () => {
    const t = T.DOUBLE();
    expect(compareValues(t, NaN, Infinity)).toBeGreaterThan(0);
    expect(compareValues(t, NaN, NaN)).toBe(0);
    expect(compareValues(t, -0, 0)).toBeLessThan(0);
    expect(compareValues(t, 0, -0)).toBeGreaterThan(0);
    expect(compareValues(t, -0, -0)).toBe(0);
    expect(compareValues(t, 0, 0)).toBe(0);
    expect(compareValues(t, -Number.MIN_VALUE, -0)).toBeLessThan(0);
    expect(compareValues(T.FLOAT(), -0, 0)).toBeLessThan(0);
    expect(compareValues(t, -Infinity, -1e308)).toBeLessThan(0);
  });

  it("timestamps by (millis, nanos), decimals by unscaled value, binaries signed (Java byte[])", () => {
    expect(compareValues(T.TIMESTAMP(9), { millis: 1n, nanoOfMillisecond: 5 }, { millis: 1n, nanoOfMillisecond: 4 })).toBeGreaterThan(0);
    expect(compareValues(T.TIMESTAMP(9), { millis: -1n, nanoOfMillisecond: 999999 }, { millis: 0n, nanoOfMillisecond: 0 })).toBeLessThan(0);
    expect(compareValues(T.DECIMAL(30, 2), -(10n ** 29n), 1n)).toBeLessThan(0);
    expect(compareValues(T.BYTES(), new Uint8Array([0x80]), new Uint8Array([0x7f, 0xff]))).toBeLessThan(0);
    expect(compareValues(T.BINARY(2), new Uint8Array([0xff]), new Uint8Array([0x00]))).toBeLessThan(0);
    expect(compareValues(T.VARBINARY(3), new Uint8Array([0x01]), new Uint8Array([0x01, 0x80]))).toBeLessThan(0);
    expect(compareValues(T.BYTES(), new Uint8Array([0x80]), new Uint8Array([0xff]))).toBeLessThan(0);
    // strings stay unsigned (BinaryString): U+00E9 (0xC3 0xA9) > "z"
    expect(compareValues(T.STRING(), "\u00e9", "z")).toBeGreaterThan(0);
  });
});
