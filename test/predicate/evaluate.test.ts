import { describe, expect, it } from "vitest";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import {
  and,
  bindPredicate,
  col,
  countSelected,
  evaluateBatch,
  evaluatePartition,
  evaluatePartitionRow,
  evaluateRow,
  filterBatchIndices,
  not,
  or,
  selectedIndices,
} from "../../src/predicate/index.js";
import { serializeBinaryRow, toBinaryRow } from "../../src/spec/binary-row.js";
import { DataTypes as T, type DataField } from "../../src/spec/types.js";
import { PaimonError } from "../../src/error.js";
import { columnData, makeBatch } from "./helpers.js";

const mask = (m: Uint8Array): number[] => Array.from(m);

function batchOf(columns: Record<string, arrow.Data>): arrow.RecordBatch {
  const names = Object.keys(columns);
  const children = names.map((n) => columns[n]!);
  const schema = new arrow.Schema(names.map((n, i) => new arrow.Field(n, children[i]!.type, true)));
  const length = children[0]!.length;
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children }));
}

describe("typed columns", () => {
  it("BIGINT extremes, three-valued logic with NULL", () => {
    const fields = [T.FIELD(0, "a", T.BIGINT()), T.FIELD(1, "b", T.INT())];
    const rows = [
      [-(2n ** 63n), 1],
      [2n ** 63n - 1n, null],
      [null, 3],
      [0n, 4],
      [-1n, null],
    ];
    const b = makeBatch(fields, rows);
    expect(mask(evaluateBatch(col("a").lt(0), b))).toEqual([1, 0, 0, 0, 1]);
    expect(mask(evaluateBatch(col("a").ge("9223372036854775807"), b))).toEqual([0, 1, 0, 0, 0]);
    expect(mask(evaluateBatch(col("a").ne(0), b))).toEqual([1, 1, 0, 0, 1]);
    // NULL > 2 is unknown: neither it nor its negation selects the row
    expect(mask(evaluateBatch(col("b").gt(2), b))).toEqual([0, 0, 1, 1, 0]);
    expect(mask(evaluateBatch(not(col("b").gt(2)), b))).toEqual([1, 0, 0, 0, 0]);
    // unknown OR true = true; unknown AND false = false
    expect(mask(evaluateBatch(or(col("b").gt(2), col("a").lt(0)), b))).toEqual([1, 0, 1, 1, 1]);
    expect(mask(evaluateBatch(not(and(col("b").gt(2), col("a").lt(0))), b))).toEqual([1, 1, 0, 1, 0]);
    expect(mask(evaluateBatch(col("b").in([1, null]), b))).toEqual([1, 0, 0, 0, 0]);
    expect(mask(evaluateBatch(col("b").notIn([1, null]), b))).toEqual([0, 0, 0, 0, 0]);
    expect(mask(evaluateBatch(col("b").notIn([1]), b))).toEqual([0, 0, 1, 1, 0]);
    expect(mask(evaluateBatch(col("b").in([]), b))).toEqual([0, 0, 0, 0, 0]);
    expect(mask(evaluateBatch(col("b").notIn([]), b))).toEqual([1, 0, 1, 1, 0]);
    expect(mask(evaluateBatch(col("b").isNull(), b))).toEqual([0, 1, 0, 0, 1]);
    expect(Array.from(filterBatchIndices(col("b").isNotNull(), b))).toEqual([0, 2, 3]);
  });

  it("strings in UTF-8 byte order, startsWith on bytes", () => {
    const fields = [T.FIELD(0, "s", T.STRING())];
    const b = makeBatch(fields, [["a"], ["\uffff"], ["😀"], ["ab"], [""], [null], ["é"]]);
    expect(mask(evaluateBatch(col("s").gt("\uffff"), b))).toEqual([0, 0, 1, 0, 0, 0, 0]);
    expect(mask(evaluateBatch(col("s").lt("b"), b))).toEqual([1, 0, 0, 1, 1, 0, 0]);
    expect(mask(evaluateBatch(col("s").startsWith("a"), b))).toEqual([1, 0, 0, 1, 0, 0, 0]);
    expect(mask(evaluateBatch(col("s").startsWith(""), b))).toEqual([1, 1, 1, 1, 1, 0, 1]);
    expect(mask(evaluateBatch(not(col("s").startsWith("a")), b))).toEqual([0, 1, 1, 0, 1, 0, 1]);
    expect(mask(evaluateBatch(col("s").in(["é", "ab", null]), b))).toEqual([0, 0, 0, 1, 0, 0, 1]);
  });

  it("decimals (compact and 128-bit), including a column scale that differs from the type's", () => {
    const fields = [T.FIELD(0, "p", T.DECIMAL(10, 2)), T.FIELD(1, "q", T.DECIMAL(38, 10))];
    const big = 10n ** 37n;
    const b = makeBatch(fields, [
      [150n, big],
      [-1n, -big],
      [0n, 1n],
      [null, null],
    ]);
    expect(mask(evaluateBatch(col("p").eq("1.5"), b))).toEqual([1, 0, 0, 0]);
    expect(mask(evaluateBatch(col("p").lt(0), b))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("q").gt("0.0000000001"), b))).toEqual([1, 0, 0, 0]);
    expect(mask(evaluateBatch(col("q").ge("0.0000000001"), b))).toEqual([1, 0, 1, 0]);
    expect(mask(evaluateBatch(col("q").lt("-999999999999999999999999999"), b))).toEqual([1, 1, 1, 0].map((_, i) => (i === 1 ? 1 : 0)));
    // Arrow column with scale 3 read as DECIMAL(10, 2): values 1.234, 1.230, -0.001
    const words = new Uint32Array(12);
    const put = (i: number, v: bigint): void => {
      let u = BigInt.asUintN(128, v);
      for (let w = 0; w < 4; w++) {
        words[i * 4 + w] = Number(u & 0xffffffffn);
        u >>= 32n;
      }
    };
    put(0, 1234n);
    put(1, 1230n);
    put(2, -1n);
    const d = arrow.makeData({ type: new arrow.Decimal(3, 10, 128), length: 3, nullCount: 0, data: words });
    const b2 = batchOf({ p: d });
    const opts = { fields: [T.FIELD(0, "p", T.DECIMAL(10, 2))] };
    expect(mask(evaluateBatch(col("p").eq("1.23"), b2, opts))).toEqual([0, 1, 0]);
    expect(mask(evaluateBatch(col("p").gt("1.23"), b2, opts))).toEqual([1, 0, 0]);
    expect(mask(evaluateBatch(col("p").lt(0), b2, opts))).toEqual([0, 0, 1]);
  });

  it("timestamps of every unit against nanosecond literals", () => {
    for (const p of [0, 3, 6, 9]) {
      const fields = [T.FIELD(0, "ts", T.TIMESTAMP(p))];
      const b = makeBatch(fields, [[{ millis: 1000n, nanoOfMillisecond: 0 }], [{ millis: 2000n, nanoOfMillisecond: 0 }], [{ millis: -1000n, nanoOfMillisecond: 0 }]]);
      expect(mask(evaluateBatch(col("ts").gt("1970-01-01T00:00:01.000000001"), b))).toEqual([0, 1, 0]);
      expect(mask(evaluateBatch(col("ts").ge("1970-01-01T00:00:01"), b))).toEqual([1, 1, 0]);
      expect(mask(evaluateBatch(col("ts").le("1970-01-01T00:00:00.999999999"), b))).toEqual([0, 0, 1]);
      expect(mask(evaluateBatch(col("ts").eq("1970-01-01T00:00:01.0000001"), b))).toEqual([0, 0, 0]);
      expect(mask(evaluateBatch(col("ts").ne("1970-01-01T00:00:01.0000001"), b))).toEqual([1, 1, 1]);
      expect(mask(evaluateBatch(col("ts").lt(new Date(0)), b))).toEqual([0, 0, 1]);
    }
    const ltz = makeBatch([T.FIELD(0, "ts", T.TIMESTAMP_LTZ(6))], [[{ millis: 1n, nanoOfMillisecond: 5000 }]]);
    expect(mask(evaluateBatch(col("ts").eq({ millis: 1n, nanoOfMillisecond: 5000 }), ltz))).toEqual([1]);
  });

  it("dates, times, booleans, floats with NaN, binary", () => {
    const fields = [T.FIELD(0, "d", T.DATE()), T.FIELD(1, "tm", T.TIME()), T.FIELD(2, "ok", T.BOOLEAN()), T.FIELD(3, "x", T.DOUBLE()), T.FIELD(4, "bin", T.BYTES())];
    const b = makeBatch(fields, [
      [19723, 3600000, true, NaN, new Uint8Array([0xff])],
      [19724, 0, false, -0, new Uint8Array([0x00, 0x01])],
      [null, null, null, null, null],
      [0, 86399999, true, Infinity, new Uint8Array([])],
    ]);
    expect(mask(evaluateBatch(col("d").ge("2024-01-02"), b))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("tm").lt("01:00"), b))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("ok").eq(true), b))).toEqual([1, 0, 0, 1]);
    expect(mask(evaluateBatch(col("ok").ne(true), b))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("x").gt(1e308), b))).toEqual([1, 0, 0, 1]);
    expect(mask(evaluateBatch(col("x").eq(NaN), b))).toEqual([1, 0, 0, 0]);
    // Java Double.compare: -0.0 < 0.0 (issue 9 item 8)
    expect(mask(evaluateBatch(col("x").eq(0), b))).toEqual([0, 0, 0, 0]);
    expect(mask(evaluateBatch(col("x").eq(-0), b))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("x").lt(0), b))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("x").lt(NaN), b))).toEqual([0, 1, 0, 1]);
    expect(mask(evaluateBatch(not(col("x").lt(1)), b))).toEqual([1, 0, 0, 1]);
    // Java compares byte[] as signed bytes: 0xff (-1) < 0x7f (issue 9 item 8)
    expect(mask(evaluateBatch(col("bin").gt(new Uint8Array([0x7f])), b))).toEqual([0, 0, 0, 0]);
    expect(mask(evaluateBatch(col("bin").lt(new Uint8Array([0x00])), b))).toEqual([1, 0, 0, 1]);
    expect(mask(evaluateBatch(col("bin").startsWith(new Uint8Array([0])), b))).toEqual([0, 1, 0, 0]);
  });

  it("dictionary-encoded, large and fixed-size binary, unsigned and Float16 columns", () => {
    const dictValues = columnData(T.STRING(), ["x", "yy", null]);
    const dictType = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32());
    const dict = arrow.makeData({
      type: dictType,
      length: 5,
      nullCount: 1,
      nullBitmap: new Uint8Array([0b11011]),
      data: new Int32Array([0, 1, 0, 0, 2]),
      dictionary: arrow.makeVector(dictValues),
    } as never) as arrow.Data;
    const enc = new TextEncoder();
    const large = arrow.makeData({
      type: new arrow.LargeUtf8(),
      length: 3,
      nullCount: 0,
      valueOffsets: new BigInt64Array([0n, 1n, 3n, 3n]),
      data: enc.encode("abc"),
    });
    const fixed = arrow.makeData({ type: new arrow.FixedSizeBinary(2), length: 3, nullCount: 0, data: new Uint8Array([1, 2, 1, 3, 0, 9]) });
    const u32 = arrow.makeData({ type: new arrow.Uint32(), length: 3, nullCount: 0, data: new Uint32Array([0, 4294967295, 7]) });
    const u64 = arrow.makeData({ type: new arrow.Uint64(), length: 3, nullCount: 0, data: new BigUint64Array([0n, 2n ** 64n - 1n, 7n]) });
    const f16 = arrow.makeData({ type: new arrow.Float16(), length: 3, nullCount: 0, data: new Uint16Array([0x3c00, 0x4000, 0x7e00]) }); // 1, 2, NaN
    const b = batchOf({ large: large as arrow.Data, fixed: fixed as arrow.Data });
    const full = batchOf({ dict });
    expect(mask(evaluateBatch(col("dict").eq("x"), full.slice(2, 5)))).toEqual([0, 1, 0]);
    expect(mask(evaluateBatch(col("dict").eq("x"), full))).toEqual([1, 0, 0, 1, 0]);
    expect(mask(evaluateBatch(col("dict").isNull(), full))).toEqual([0, 0, 1, 0, 1]);
    expect(mask(evaluateBatch(col("dict").startsWith("y"), full))).toEqual([0, 1, 0, 0, 0]);
    // a dictionary in two chunks (deltas) indexes as one; a leading U+FEFF is compared as data
    const chunked = arrow.makeData({
      type: dictType,
      length: 4,
      nullCount: 0,
      data: new Int32Array([2, 0, 1, 2]),
      dictionary: new arrow.Vector([columnData(T.STRING(), ["x", "\uFEFFx"]), columnData(T.STRING(), ["\uFEFF"])]),
    } as never) as arrow.Data;
    expect(mask(evaluateBatch(col("dict").eq("\uFEFF"), batchOf({ dict: chunked })))).toEqual([1, 0, 0, 1]);
    expect(mask(evaluateBatch(col("dict").eq("\uFEFFx"), batchOf({ dict: chunked })))).toEqual([0, 0, 1, 0]);
    expect(mask(evaluateBatch(col("dict").eq("x"), batchOf({ dict: chunked })))).toEqual([0, 1, 0, 0]);
    expect(mask(evaluateBatch(col("large").ge("b"), b))).toEqual([0, 1, 0]);
    expect(mask(evaluateBatch(col("large").eq(""), b))).toEqual([0, 0, 1]);
    expect(mask(evaluateBatch(col("fixed").lt(new Uint8Array([1, 3])), b))).toEqual([1, 0, 1]);
    const nums = batchOf({ u32, u64, f16 });
    const opts = { fields: [T.FIELD(0, "u32", T.BIGINT()), T.FIELD(1, "u64", T.DECIMAL(20, 0))] };
    expect(mask(evaluateBatch(col("u32").gt(7), nums, opts))).toEqual([0, 1, 0]);
    expect(mask(evaluateBatch(col("u64").gt(7), nums, opts))).toEqual([0, 1, 0]);
    expect(mask(evaluateBatch(col("u64").le("18446744073709551615"), nums, opts))).toEqual([1, 1, 1]);
    expect(mask(evaluateBatch(col("f16").ge(2), nums, { fields: [T.FIELD(2, "f16", T.FLOAT())] }))).toEqual([0, 1, 1]);
  });

  it("Null-typed and complex columns: only isNull/isNotNull", () => {
    const nulls = arrow.makeData({ type: new arrow.Null(), length: 2 });
    const b = batchOf({ n: nulls as arrow.Data });
    expect(mask(evaluateBatch(col("n").isNull(), b, { fields: [T.FIELD(0, "n", T.INT())] }))).toEqual([1, 1]);
    expect(mask(evaluateBatch(col("n").eq(1), b, { fields: [T.FIELD(0, "n", T.INT())] }))).toEqual([0, 0]);
  });

  it("errors: unknown column, literal not fitting, Arrow types without a Paimon type", () => {
    const b = makeBatch([T.FIELD(0, "a", T.TINYINT())], [[1]]);
    expect(() => evaluateBatch(col("zz").eq(1), b)).toThrow(/Unknown column `zz`.*columns: a/);
    expect(() => evaluateBatch(col("a").eq(300), b)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => evaluateBatch(col("a").eq(300), b)).toThrow(/column `a` of type TINYINT/);
    const u64 = batchOf({ u: arrow.makeData({ type: new arrow.Uint64(), length: 1, nullCount: 0, data: new BigUint64Array([1n]) }) as arrow.Data });
    expect(() => evaluateBatch(col("u").eq(1), u64)).toThrow(PaimonError);
  });

  it("selection helpers", () => {
    const m = new Uint8Array([0, 1, 1, 0, 1]);
    expect(Array.from(selectedIndices(m))).toEqual([1, 2, 4]);
    expect(countSelected(m)).toBe(3);
  });
});

describe("rows and partitions", () => {
  const partFields: DataField[] = [T.FIELD(0, "dt", T.STRING()), T.FIELD(1, "hr", T.INT()), T.FIELD(2, "amount", T.DECIMAL(10, 2))];

  it("partition values as given by callers (strings for numeric keys are parsed)", () => {
    const p = and(col("dt").eq("2024-05-14"), col("hr").ge(10));
    expect(evaluatePartition(p, { dt: "2024-05-14", hr: "12" }, partFields)).toBe(true);
    expect(evaluatePartition(p, { dt: "2024-05-14", hr: 9 }, partFields)).toBe(false);
    expect(evaluatePartition(p, { dt: "2024-05-14", hr: null }, partFields)).toBe(false);
    expect(evaluatePartition(not(p), { dt: "2024-05-14", hr: null }, partFields)).toBe(false);
    expect(evaluatePartition(col("hr").isNull(), { dt: "x" }, partFields)).toBe(true);
    expect(evaluatePartition(col("amount").eq("1.5"), { amount: "1.50" }, partFields)).toBe(true);
    expect(() => evaluatePartition(col("other").eq(1), { dt: "x" }, partFields)).toThrow(/Unknown column `other`/);
  });

  it("serialized partition BinaryRow (canonical values)", () => {
    const row = serializeBinaryRow(toBinaryRow(["2024-05-14", 12, 150n], partFields.map((f) => f.type)), 3);
    expect(evaluatePartitionRow(and(col("dt").startsWith("2024-05"), col("hr").eq(12), col("amount").eq("1.50")), row, partFields)).toBe(true);
    expect(evaluatePartitionRow(col("amount").gt(2), row, partFields)).toBe(false);
  });

  it("evaluateRow with canonical values", () => {
    const fields = [T.FIELD(0, "p", T.DECIMAL(10, 2))];
    expect(evaluateRow(col("p").eq(2), { p: 200n }, fields, { canonical: true })).toBe(true);
    expect(evaluateRow(col("p").eq(2), { p: 2n }, fields)).toBe(true);
    expect(evaluateRow(col("p").eq(2), (c) => (c === "p" ? "2.00" : null), fields)).toBe(true);
  });
});

describe("BIGINT key = v without a mask", () => {
  it("filterBatchIndices of a bound `=` on a BIGINT column matches the mask path: nulls, slices, extremes, duplicates (randomized)", () => {
    const field: DataField = { id: 0, name: "k", type: { kind: "BIGINT", nullable: false } };
    const value = fc.oneof(fc.bigInt({ min: -3n, max: 3n }), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 32n + 1n, (1n << 40n) - 1n));
    fc.assert(
      fc.property(fc.array(fc.option(value, { freq: 6 }), { minLength: 1, maxLength: 60 }), value, fc.nat(), fc.nat(), (values, literal, a, b) => {
        const whole = columnData(T.BIGINT(), values);
        const from = a % values.length;
        const data = whole.slice(from, b % (values.length - from + 1));
        const schema = new arrow.Schema([new arrow.Field("k", new arrow.Int64(), true)]);
        const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: data.length, nullCount: 0, children: [data] }));
        const bound = bindPredicate(col("k").eq(literal), [field]);
        const expected = values.slice(from, from + data.length).flatMap((v, i) => (v === literal ? [i] : []));
        expect(Array.from(filterBatchIndices(bound, batch))).toEqual(expected);
        expect(Array.from(selectedIndices(evaluateBatch(bound, batch, { fields: [field] })))).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });
});
