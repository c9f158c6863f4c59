import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as arrow from "apache-arrow";
import {
  DataTypes as T,
  fromArrowSchema,
  fromArrowType,
  parseDataType,
  reassignFieldIds,
  toArrowField,
  toArrowType,
  typeFromJson,
  typeToJson,
  typeToString,
  typesEqual,
  type DataType,
} from "../../src/spec/types.js";
import { PaimonError } from "../../src/error.js";

describe("type strings (Java asSQLString)", () => {
  const roundTrips: Array<[string, string]> = [
    ["BIGINT NOT NULL", "BIGINT NOT NULL"],
    ["DECIMAL(10, 2)", "DECIMAL(10, 2)"],
    ["decimal(10,2)", "DECIMAL(10, 2)"],
    ["DECIMAL", "DECIMAL(10, 0)"],
    ["NUMERIC(5)", "DECIMAL(5, 0)"],
    ["DEC(38, 38) NOT NULL", "DECIMAL(38, 38) NOT NULL"],
    ["STRING", "STRING"],
    ["VARCHAR(2147483647)", "STRING"],
    ["VARCHAR", "VARCHAR(1)"],
    ["VARCHAR(10)", "VARCHAR(10)"],
    ["CHAR(3)", "CHAR(3)"],
    ["BYTES", "BYTES"],
    ["VARBINARY(2147483647)", "BYTES"],
    ["BINARY(16)", "BINARY(16)"],
    ["INTEGER", "INT"],
    ["int null", "INT"],
    ["DOUBLE PRECISION", "DOUBLE"],
    ["TIME", "TIME(0)"],
    ["TIME(3) WITHOUT TIME ZONE", "TIME(3)"],
    ["TIMESTAMP", "TIMESTAMP(6)"],
    ["TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP(3)"],
    ["TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL", "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL"],
    ["TIMESTAMP_LTZ(9)", "TIMESTAMP(9) WITH LOCAL TIME ZONE"],
    ["ARRAY<INT>", "ARRAY<INT>"],
    ["ARRAY<INT NOT NULL> NOT NULL", "ARRAY<INT NOT NULL> NOT NULL"],
    ["INT ARRAY", "ARRAY<INT>"],
    ["STRING MULTISET", "MULTISET<STRING>"],
    ["MAP<STRING, BIGINT>", "MAP<STRING, BIGINT>"],
    ["ROW<a INT, b STRING>", "ROW<`a` INT, `b` STRING>"],
    ["ROW(a INT NOT NULL, `b c` STRING 'desc')", "ROW<`a` INT NOT NULL, `b c` STRING COMMENT 'desc'>"],
    ["ROW<`we``ird` ARRAY<MAP<INT, ROW<x DATE>>> COMMENT 'it''s'>", "ROW<`we``ird` ARRAY<MAP<INT, ROW<`x` DATE>>> COMMENT 'it''s'>"],
    ["ROW<value INT, comment STRING>", "ROW<`value` INT, `comment` STRING>"],
  ];
  for (const [input, printed] of roundTrips) {
    it(`${input} -> ${printed}`, () => {
      const t = parseDataType(input);
      expect(typeToString(t)).toBe(printed);
      expect(typesEqual(parseDataType(printed), t, true)).toBe(true);
    });
  }

  it("STRING is VARCHAR(2147483647), BYTES is VARBINARY(2147483647)", () => {
    expect(parseDataType("STRING")).toEqual({ kind: "VARCHAR", nullable: true, length: 2147483647 });
    expect(parseDataType("BYTES NOT NULL")).toEqual({ kind: "VARBINARY", nullable: false, length: 2147483647 });
  });

  const bad = ["", "FOO", "INT NOT", "DECIMAL(10, 2", "DECIMAL(39, 2)", "DECIMAL(5, 6)", "ARRAY<INT", "MAP<INT>", "ROW<a>", "ROW<a INT, a STRING>", "VARCHAR(0)", "TIMESTAMP(10)", "INT INT", "ROW<a INT,>", "'x"];
  for (const s of bad) {
    it(`rejects ${JSON.stringify(s)} with INVALID_ARGUMENT naming the string`, () => {
      let err: unknown;
      try {
        parseDataType(s);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PaimonError);
      expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
      expect((err as PaimonError).message).toContain(`'${s}'`);
    });
  }
});

describe("schema JSON type encoding (§2.3)", () => {
  it("atomic types are strings, complex types objects with nullability in 'type'", () => {
    expect(typeToJson(parseDataType("DECIMAL(12, 2) NOT NULL"))).toBe("DECIMAL(12, 2) NOT NULL");
    const t = parseDataType("MAP<STRING NOT NULL, ARRAY<ROW<x INT>>> NOT NULL");
    expect(typeToJson(t)).toEqual({
      type: "MAP NOT NULL",
      key: "STRING NOT NULL",
      value: { type: "ARRAY", element: { type: "ROW", fields: [{ id: 0, name: "x", type: "INT" }] } },
    });
    expect(typesEqual(typeFromJson(typeToJson(t)), t)).toBe(true);
    expect(typeToJson(parseDataType("MULTISET<INT> NOT NULL"))).toEqual({ type: "MULTISET NOT NULL", element: "INT" });
  });

  it("reads pypaimon's MAP form with an explicit nullable key", () => {
    const t = typeFromJson({ type: "MAP<STRING NOT NULL, INT>", key: "STRING NOT NULL", value: "INT", nullable: true });
    expect(t.nullable).toBe(true);
    expect(typeToString(t)).toBe("MAP<STRING NOT NULL, INT>");
    // Java's rule without the key: contains("NOT NULL") => not null
    expect(typeFromJson({ type: "MAP<STRING NOT NULL, INT>", key: "STRING NOT NULL", value: "INT" }).nullable).toBe(false);
  });

  it("ReassignFieldId numbers nested fields post-order", () => {
    const t = parseDataType("ROW<b ROW<c INT>, d INT>");
    const counter = { value: 0 }; // top-level field a took id 0
    const r = reassignFieldIds(t, counter) as Extract<DataType, { kind: "ROW" }>;
    const b = r.fields[0]!;
    expect(b.id).toBe(2);
    expect((b.type as Extract<DataType, { kind: "ROW" }>).fields[0]!.id).toBe(1);
    expect(r.fields[1]!.id).toBe(3);
  });
});

// property test: random types print, parse back to the same type, and survive JSON
const leaf: fc.Arbitrary<DataType> = fc.oneof(
  ...(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE"] as const).map((k) => fc.constant<DataType>({ kind: k, nullable: true })),
  fc.integer({ min: 1, max: 38 }).chain((p) => fc.integer({ min: 0, max: p }).map((s) => T.DECIMAL(p, s))),
  fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constant(2147483647)).chain((n) => fc.constantFrom(T.CHAR(n), T.VARCHAR(n), T.BINARY(n), T.VARBINARY(n))),
  fc.integer({ min: 0, max: 9 }).chain((p) => fc.constantFrom(T.TIME(p), T.TIMESTAMP(p), T.TIMESTAMP_LTZ(p))),
);
const fieldName = fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s.trim() !== "");
const typeArb: fc.Arbitrary<DataType> = fc
  .letrec<{ t: DataType }>((tie) => ({
    t: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      tie("t").map((e) => T.ARRAY(e)),
      tie("t").map((e) => T.MULTISET(e)),
      fc.tuple(tie("t"), tie("t")).map(([k, v]) => T.MAP(k, v)),
      fc
        .uniqueArray(fc.tuple(fieldName, tie("t"), fc.option(fc.string({ maxLength: 5 }).filter((d) => d !== ""), { nil: undefined })), {
          minLength: 1,
          maxLength: 3,
          selector: (x) => x[0],
        })
        .map((fs) => T.ROW(fs.map(([n, t, d], i) => T.FIELD(i, n, t, d)))),
    ),
  }))
  .t.chain((t) => fc.boolean().map((nullable) => ({ ...t, nullable })));

describe("property: type strings and JSON", () => {
  it("typeToString -> parseDataType is the identity (ignoring nested field ids)", () => {
    fc.assert(
      fc.property(typeArb, (t) => {
        const s = typeToString(t);
        const back = parseDataType(s);
        expect(typesEqual(back, t, true)).toBe(true);
        expect(typeToString(back)).toBe(s);
        expect(typesEqual(typeFromJson(JSON.parse(JSON.stringify(typeToJson(t)))), t)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("Arrow mapping", () => {
  it("maps Paimon types to Arrow like pypaimon", () => {
    expect(toArrowType(T.STRING())).toBeInstanceOf(arrow.Utf8);
    expect(toArrowType(T.BYTES())).toBeInstanceOf(arrow.Binary);
    const dec = toArrowType(T.DECIMAL(10, 2)) as arrow.Decimal;
    expect([dec.precision, dec.scale, dec.bitWidth]).toEqual([10, 2, 128]);
    const units = [0, 3, 6, 9].map((p) => (toArrowType(T.TIMESTAMP(p)) as arrow.Timestamp).unit);
    expect(units).toEqual([arrow.TimeUnit.SECOND, arrow.TimeUnit.MILLISECOND, arrow.TimeUnit.MICROSECOND, arrow.TimeUnit.NANOSECOND]);
    expect((toArrowType(T.TIMESTAMP(6)) as arrow.Timestamp).timezone).toBeNull();
    expect((toArrowType(T.TIMESTAMP_LTZ(3)) as arrow.Timestamp).timezone).toBe("UTC");
    expect(toArrowType(T.DATE())).toBeInstanceOf(arrow.DateDay);
    const m = toArrowType(parseDataType("MAP<STRING, BIGINT NOT NULL>")) as arrow.Map_;
    expect(m.children[0]!.type.children.map((c: arrow.Field) => [c.name, c.nullable])).toEqual([["key", false], ["value", false]]);
  });

  it("puts field ids in PARQUET:field_id metadata and reads them back", () => {
    const f = T.FIELD(7, "addr", parseDataType("ROW<city STRING NOT NULL, zip INT>", { nextFieldId: (() => { let i = 8; return () => i++; })() }));
    const af = toArrowField(f);
    expect(af.metadata.get("PARQUET:field_id")).toBe("7");
    expect((af.type as arrow.Struct).children[1]!.metadata.get("PARQUET:field_id")).toBe("9");
    const back = fromArrowSchema(new arrow.Schema([af]));
    expect(typesEqual(back[0]!.type, f.type)).toBe(true);
    expect(back[0]!.id).toBe(7);
  });

  it("round-trips every mappable type through Arrow", () => {
    for (const s of ["BOOLEAN", "TINYINT", "SMALLINT", "INT NOT NULL", "BIGINT", "FLOAT", "DOUBLE", "STRING", "BYTES", "BINARY(4)", "DECIMAL(38, 9)", "DATE", "TIME(3)", "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9) WITH LOCAL TIME ZONE", "ARRAY<INT NOT NULL>", "MAP<STRING NOT NULL, DOUBLE>"]) {
      const t = parseDataType(s);
      const expected = t.kind === "BINARY" ? T.BYTES() : t; // Arrow Binary carries no length
      expect(typeToString(fromArrowType(toArrowType(t), t.nullable))).toBe(typeToString(t.kind === "BINARY" ? expected : t));
    }
    expect(typeToString(fromArrowType(new arrow.FixedSizeBinary(4)))).toBe("BINARY(4)");
    expect(typeToString(fromArrowType(new arrow.LargeUtf8()))).toBe("STRING");
  });
});
