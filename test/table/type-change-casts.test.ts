// Column type changes Java 1.4.2 accepts (explicit casts) and the values an old file reads back
// as under the new type: Java's CastExecutors semantics (format/type-casts.ts).
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { castColumn, javaAcceptsTypeChange, javaDoubleString } from "../../src/format/type-casts.js";
import { col } from "../../src/predicate/predicate.js";
import { toArrowType, toDataType } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, dataToValues, rowsToBatch, valuesToData, type FieldLike } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

/** `values` stored as `from`, read as `to` (values in the interop encoding: BIGINT and DECIMAL as strings, timestamps as epoch-nanosecond strings). */
function cast(from: string, to: string, values: readonly unknown[]): unknown[] {
  const fromType = toDataType(from);
  return dataToValues(castColumn(valuesToData(toArrowType(fromType), values), fromType, toDataType(to), "c"));
}

function castError(from: string, to: string, value: unknown): PaimonError {
  try {
    cast(from, to, [value]);
  } catch (e) {
    return e as PaimonError;
  }
  throw new Error(`${from} ${JSON.stringify(value)} -> ${to} did not fail`);
}

const ns = (iso: string, extraNanos = 0n): string => (BigInt(Date.parse(`${iso}Z`)) * 1000000n + extraNanos).toString();

describe("type change casts: values (Java CastExecutors)", () => {
  it("integer narrowing wraps to the low bits (Number.intValue / byteValue)", () => {
    expect(cast("BIGINT", "INT", ["2147483648", "-2147483649", "4294967295", "7", null])).toEqual([-2147483648, 2147483647, -1, 7, null]);
    expect(cast("INT", "TINYINT", [383, -129, 128, -128])).toEqual([127, 127, -128, -128]);
    expect(cast("INT", "SMALLINT", [65535, 32768])).toEqual([-1, -32768]);
  });

  it("floating point to integers: toward zero, saturating at int / long, NaN to 0, then wrapped to byte / short", () => {
    expect(cast("DOUBLE", "INT", [NaN, Infinity, -Infinity, 1e10, -2.9, 2.9, -0])).toEqual([0, 2147483647, -2147483648, 2147483647, -2, 2, 0]);
    // (byte) 300.7 = (byte) 300 = 44; (byte) 1e10 = (byte) Integer.MAX_VALUE = -1
    expect(cast("DOUBLE", "TINYINT", [300.7, 1e10, NaN])).toEqual([44, -1, 0]);
    expect(cast("DOUBLE", "BIGINT", [1e19, -1e19, -0.5])).toEqual(["9223372036854775807", "-9223372036854775808", "0"]);
    expect(cast("FLOAT", "SMALLINT", [-40000.5])).toEqual([-(40000 - 65536)]);
  });

  it("to FLOAT: rounded once to the nearest float (a long never through a double), DOUBLE -> FLOAT overflows to Infinity", () => {
    // 2^60 + 2^36 + 1 is just above the midpoint of two floats: a double first would round to the midpoint, then to even (down)
    const above = (2n ** 60n + 2n ** 36n + 1n).toString();
    expect(cast("BIGINT", "FLOAT", [above, "16777217", null])).toEqual([2 ** 60 + 2 ** 37, 16777216, null]);
    expect(cast("DOUBLE", "FLOAT", [1e300, -1e-300, 0.1])).toEqual(["Infinity", -0, Math.fround(0.1)]);
    expect(Object.is(cast("DOUBLE", "FLOAT", [-1e-300])[0], -0)).toBe(true);
  });

  it("DECIMAL -> DECIMAL: HALF_UP to the new scale, null when it needs more digits than the new precision", () => {
    expect(cast("DECIMAL(10,3)", "DECIMAL(5,1)", ["1.250", "-1.250", "1.249", "9999.949", "9999.950", "-0.050", null])).toEqual(["1.3", "-1.3", "1.2", "9999.9", null, "-0.1", null]);
    expect(cast("DECIMAL(38,0)", "DECIMAL(38,2)", ["99999999999999999999999999999999999999", "123"])).toEqual([null, "123.00"]);
    expect(cast("DECIMAL(5,2)", "DECIMAL(38,10)", ["-999.99"])).toEqual(["-999.9900000000"]);
  });

  it("DECIMAL -> numbers: integers toward zero keeping the low bits, floating point by division", () => {
    expect(cast("DECIMAL(5,2)", "INT", ["-1.99", "1.99", "999.99"])).toEqual([-1, 1, 999]);
    expect(cast("DECIMAL(5,2)", "TINYINT", ["300.00"])).toEqual([44]);
    expect(cast("DECIMAL(38,0)", "BIGINT", ["18446744073709551617"])).toEqual(["1"]);
    expect(cast("DECIMAL(10,2)", "DOUBLE", ["0.10", "-12345678.91"])).toEqual([0.1, -12345678.91]);
    expect(cast("DECIMAL(10,2)", "FLOAT", ["0.10"])).toEqual([Math.fround(0.1)]);
  });

  it("numbers -> DECIMAL: integers exactly, floating point through Double.toString, overflow null, NaN fails the read", () => {
    expect(cast("INT", "DECIMAL(5,2)", [123, 1000, -999])).toEqual(["123.00", null, "-999.00"]);
    // (double) 0.1f = 0.10000000149011612 -> 0.10; 2.675 is 2.67499999… but Double.toString says "2.675" -> HALF_UP 2.68
    expect(cast("FLOAT", "DECIMAL(10,2)", [0.1])).toEqual(["0.10"]);
    expect(cast("DOUBLE", "DECIMAL(10,2)", [2.675, -0.005, 1e-10])).toEqual(["2.68", "-0.01", "0.00"]);
    expect(castError("DOUBLE", "DECIMAL(10,2)", NaN).code).toBe("INVALID_ARGUMENT");
    expect(castError("DOUBLE", "DECIMAL(10,2)", Infinity).code).toBe("INVALID_ARGUMENT");
  });

  it("numbers -> strings: Java's toString (Float.toString digits, scientific outside [1e-3, 1e7)), cut to VARCHAR(n), CHAR(n) padded", () => {
    expect(cast("INT", "STRING", [-2147483648, 0, null])).toEqual(["-2147483648", "0", null]);
    expect(cast("DOUBLE", "STRING", [1, -0, 1e7, 9999999.5, 1e-3, 9.99e-4, 123.456, NaN, -Infinity, 1e21, 0.1 + 0.2])).toEqual([
      "1.0",
      "-0.0",
      "1.0E7",
      "9999999.5",
      "0.001",
      "9.99E-4",
      "123.456",
      "NaN",
      "-Infinity",
      "1.0E21",
      "0.30000000000000004",
    ]);
    expect(cast("FLOAT", "STRING", [0.1, 1 / 3, 16777216, 1e10, -2.5e-5])).toEqual(["0.1", "0.33333334", "1.6777216E7", "1.0E10", "-2.5E-5"]);
    expect(cast("DECIMAL(6,3)", "STRING", ["-0.010", "123.000"])).toEqual(["-0.010", "123.000"]);
    expect(cast("BIGINT", "VARCHAR(3)", ["-12345", "1"])).toEqual(["-12", "1"]);
    expect(cast("INT", "CHAR(4)", [7, 123456])).toEqual(["7   ", "1234"]);
    expect(cast("BOOLEAN", "STRING", [true, false])).toEqual(["true", "false"]);
    expect(cast("BOOLEAN", "CHAR(2)", [true])).toEqual(["tr"]);
  });

  it("strings -> strings: cut to the new length in code points, CHAR padded with blanks", () => {
    expect(cast("VARCHAR(10)", "VARCHAR(3)", ["abcdef", "ab", "é😀xyz", ""])).toEqual(["abc", "ab", "é😀x", ""]);
    expect(cast("VARCHAR(10)", "CHAR(3)", ["a", "abcd"])).toEqual(["a  ", "abc"]);
    expect(cast("CHAR(5)", "CHAR(2)", ["ab   "])).toEqual(["ab"]);
  });

  it("strings -> integers: sign, digits and a truncated well-formed fraction; no blanks, overflow and garbage fail the read", () => {
    expect(cast("STRING", "INT", ["42", "-2147483648", "+7", "12.99", "-.5", "3."])).toEqual([42, -2147483648, 7, 12, 0, 3]);
    expect(cast("STRING", "BIGINT", ["9223372036854775807", "-9223372036854775808"])).toEqual(["9223372036854775807", "-9223372036854775808"]);
    for (const bad of [" 1", "2147483648", "1e3", "abc", "", "-", "1.2.3"]) {
      const error = castError("STRING", "INT", bad);
      expect(error.code, bad).toBe("INVALID_ARGUMENT");
      expect(error.message, bad).toContain("cannot be read as INT");
    }
    expect(castError("STRING", "TINYINT", "128").code).toBe("INVALID_ARGUMENT");
    expect(cast("STRING", "TINYINT", ["-128"])).toEqual([-128]);
  });

  it("strings -> floating point and DECIMAL: Java's parseDouble (blanks, NaN, Infinity, d/f suffix) and new BigDecimal (HALF_UP, overflow null)", () => {
    expect(cast("STRING", "DOUBLE", [" 1.5 ", "NaN", "-Infinity", "1e3", "2d", ".5f"])).toEqual([1.5, "NaN", "-Infinity", 1000, 2, 0.5]);
    expect(castError("STRING", "DOUBLE", "0x10").code).toBe("INVALID_ARGUMENT");
    expect(castError("STRING", "DOUBLE", "inf").code).toBe("INVALID_ARGUMENT");
    expect(cast("STRING", "FLOAT", ["0.1"])).toEqual([Math.fround(0.1)]);
    expect(cast("STRING", "DECIMAL(5,2)", ["1.005", "-1.005", "1E2", "1000", "+.5"])).toEqual(["1.01", "-1.01", "100.00", null, "0.50"]);
    expect(castError("STRING", "DECIMAL(5,2)", " 1").code).toBe("INVALID_ARGUMENT");
  });

  it("BOOLEAN <-> numbers and strings", () => {
    expect(cast("INT", "BOOLEAN", [0, -1, 2])).toEqual([false, true, true]);
    expect(cast("BOOLEAN", "DECIMAL(3,1)", [true, false])).toEqual(["1.0", "0.0"]);
    expect(cast("BOOLEAN", "DOUBLE", [true])).toEqual([1]);
    expect(cast("STRING", "BOOLEAN", ["TRUE", "y", "1", "No", "f"])).toEqual([true, true, true, false, false]);
    expect(castError("STRING", "BOOLEAN", "2").code).toBe("INVALID_ARGUMENT");
  });

  it("binary: BINARY(n) zero-padded or cut, VARBINARY(n) cut, strings as UTF-8 bytes and back", () => {
    const b64 = (bytes: number[]) => Buffer.from(bytes).toString("base64");
    expect(cast("VARBINARY(8)", "BINARY(3)", [b64([1]), b64([1, 2, 3, 4])])).toEqual([b64([1, 0, 0]), b64([1, 2, 3])]);
    expect(cast("BINARY(4)", "VARBINARY(2)", [b64([9, 8, 7, 6])])).toEqual([b64([9, 8])]);
    expect(cast("STRING", "VARBINARY(4)", ["é€"])).toEqual([b64([0xc3, 0xa9, 0xe2, 0x82])]);
    // BinaryToString keeps every byte (no cut to the VARCHAR length)
    expect(cast("VARBINARY(8)", "VARCHAR(1)", [b64([0x68, 0x69])])).toEqual(["hi"]);
  });

  it("TIMESTAMP precision lowered: truncated toward zero in epoch milliseconds (also before 1970), past Java's test of the nano-of-second's decimal length", () => {
    expect(cast("TIMESTAMP(9)", "TIMESTAMP(6)", [ns("2024-01-02T03:04:05.123", 456789n)])).toEqual([ns("2024-01-02T03:04:05.123", 456000n)]);
    expect(cast("TIMESTAMP(6)", "TIMESTAMP(3)", [ns("2024-01-02T03:04:05.123", 999000n)])).toEqual([ns("2024-01-02T03:04:05.123")]);
    expect(cast("TIMESTAMP(3)", "TIMESTAMP(0)", [ns("2024-01-02T03:04:05.999"), ns("1969-12-31T23:59:58.500")])).toEqual([
      ns("2024-01-02T03:04:05"),
      // epoch millis -1500 -> -1000 (toward zero): one second later than the floor
      ns("1969-12-31T23:59:59"),
    ]);
    // nano-of-second 1000 has 4 decimal digits: Java's truncate(ts, 4) keeps it (its length test, not its digits)
    expect(cast("TIMESTAMP(6)", "TIMESTAMP(4)", [ns("2024-01-01T00:00:00", 1000n), ns("2024-01-01T00:00:00.000", 123000n)])).toEqual([ns("2024-01-01T00:00:00", 1000n), ns("2024-01-01T00:00:00", 100000n)]);
  });

  it("timestamps, dates and epoch seconds (UTC process time zone)", () => {
    expect(process.env.TZ ?? "UTC").toMatch(/^(UTC|Etc\/UTC)?$/);
    expect(cast("TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", [ns("2024-05-06T07:08:09.010")])).toEqual([ns("2024-05-06T07:08:09.010")]);
    expect(cast("TIMESTAMP_LTZ(6)", "TIMESTAMP(3)", [ns("2024-05-06T07:08:09.010", 999000n)])).toEqual([ns("2024-05-06T07:08:09.010")]);
    // formatTimestamp drops trailing fraction zeros only past the precision's digits
    expect(cast("TIMESTAMP(6)", "STRING", [ns("2024-05-06T07:08:09"), ns("2024-05-06T07:08:09.120"), ns("0999-01-01T00:00:00")])).toEqual([
      "2024-05-06 07:08:09.000000",
      "2024-05-06 07:08:09.120000",
      "0999-01-01 00:00:00.000000",
    ]);
    expect(cast("TIMESTAMP(0)", "STRING", [ns("2024-05-06T07:08:09")])).toEqual(["2024-05-06 07:08:09"]);
    expect(cast("TIMESTAMP(9)", "STRING", [ns("2024-05-06T07:08:09.100", 5n)])).toEqual(["2024-05-06 07:08:09.100000005"]);
    expect(cast("DATE", "STRING", ["1970-01-01", "2000-02-29", "1969-12-31"])).toEqual(["1970-01-01", "2000-02-29", "1969-12-31"]);
    expect(cast("TIMESTAMP(3)", "DATE", [ns("2024-05-06T23:59:59.999"), ns("1969-12-31T12:00:00")])).toEqual(["2024-05-06", "1970-01-01"]);
    expect(cast("DATE", "TIMESTAMP(3)", ["2024-05-06"])).toEqual([ns("2024-05-06T00:00:00")]);
    expect(cast("TIMESTAMP(3)", "BIGINT", [ns("2024-05-06T00:00:01.999"), ns("1969-12-31T23:59:58.500")])).toEqual([String(Date.parse("2024-05-06T00:00:01Z") / 1000), "-1"]);
    expect(cast("BIGINT", "TIMESTAMP(3)", ["1714953601"])).toEqual([ns("2024-05-06T00:00:01")]);
  });

  it("Java's Double.toString / Float.toString", () => {
    expect(javaDoubleString(100, false)).toBe("100.0");
    expect(javaDoubleString(1234567.0, false)).toBe("1234567.0");
    expect(javaDoubleString(1.0e-5, false)).toBe("1.0E-5");
    expect(javaDoubleString(-1.5e300, false)).toBe("-1.5E300");
    expect(javaDoubleString(Math.fround(3.4028235e38), true)).toBe("3.4028235E38");
    expect(javaDoubleString(Math.fround(1.1), true)).toBe("1.1");
  });
});

describe("type change casts: which changes alterTable accepts (Java DataTypeCasts + CastExecutors)", () => {
  const accepts = (from: string, to: string) => javaAcceptsTypeChange(toDataType(from), toDataType(to));
  it("accepts explicit casts Java accepts", () => {
    for (const [from, to] of [
      ["INT", "STRING"],
      ["INT", "FLOAT"],
      ["BIGINT", "INT"],
      ["DOUBLE", "TINYINT"],
      ["DECIMAL(10,2)", "DOUBLE"],
      ["DECIMAL(10,2)", "DECIMAL(5,1)"],
      ["VARCHAR(10)", "VARCHAR(2)"],
      ["CHAR(10)", "CHAR(2)"],
      ["STRING", "INT"],
      ["STRING", "DECIMAL(5,2)"],
      ["STRING", "BOOLEAN"],
      ["INT", "BOOLEAN"],
      ["BOOLEAN", "INT"],
      ["TIMESTAMP(6)", "TIMESTAMP(3)"],
      ["TIMESTAMP(6)", "TIMESTAMP_LTZ(6)"],
      ["TIMESTAMP_LTZ(3)", "TIMESTAMP(0)"],
      ["TIMESTAMP(3)", "DATE"],
      ["DATE", "TIMESTAMP(3)"],
      ["TIMESTAMP(3)", "BIGINT"],
      ["INT", "TIMESTAMP(3)"],
      ["TIMESTAMP(3)", "STRING"],
      ["DATE", "STRING"],
      ["VARBINARY(5)", "BINARY(2)"],
      ["STRING", "BYTES"],
      ["BYTES", "STRING"],
      ["INT NOT NULL", "STRING"],
    ] as const) expect(accepts(from, to), `${from} -> ${to}`).toBe(true);
  });

  it("refuses what Java refuses: no cast rule, a rule only for STRING, or a rule that makes no executor", () => {
    for (const [from, to] of [
      ["BOOLEAN", "BOOLEAN NOT NULL"], // no BOOLEAN -> BOOLEAN executor in CastExecutors
      ["DATE", "DATE"],
      ["TIMESTAMP(3)", "VARCHAR(30)"], // TimestampToString is registered for STRING only
      ["DATE", "STRING NOT NULL"],
      ["SMALLINT", "TIMESTAMP(3)"], // NumericPrimitiveToTimestamp: INT and BIGINT only
      ["DOUBLE", "BOOLEAN"],
      ["BOOLEAN", "DATE"],
      ["DATE", "INT"],
      ["TIMESTAMP(3)", "SMALLINT"],
      ["INT", "BYTES"],
      ["BYTES", "INT"],
      ["ARRAY<INT>", "ARRAY<BIGINT>"],
      ["ROW<a INT>", "ROW<a BIGINT>"],
      ["MAP<INT, INT>", "MAP<INT, BIGINT>"],
      ["MULTISET<INT>", "STRING"],
    ] as const) expect(accepts(from, to), `${from} -> ${to}`).toBe(false);
  });

  it("with disable-explicit-type-casting only implicit casts", () => {
    const implicit = (from: string, to: string) => javaAcceptsTypeChange(toDataType(from), toDataType(to), false);
    expect(implicit("INT", "BIGINT")).toBe(true);
    expect(implicit("DECIMAL(10,2)", "FLOAT")).toBe(true);
    expect(implicit("VARCHAR(10)", "VARCHAR(2)")).toBe(true);
    expect(implicit("BIGINT", "INT")).toBe(false);
    expect(implicit("INT", "STRING")).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------

async function newTable(fields: FieldLike[], options: { primaryKeys?: string[]; partitionKeys?: string[]; tableOptions?: Record<string, string> } = {}): Promise<{ catalog: Catalog; table: Table }> {
  const catalog = await Catalog.open(`memory://type-change-${process.pid}-${Math.random().toString(36).slice(2)}`);
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", {
    fields: fields.map((f) => ({ name: f.name, type: f.type as string })),
    primaryKeys: options.primaryKeys ?? [],
    partitionKeys: options.partitionKeys ?? [],
    options: { bucket: options.primaryKeys?.length ? "1" : "-1", ...options.tableOptions },
  });
  return { catalog, table };
}

async function writeRows(table: Table, fields: FieldLike[], rows: OracleRow[]): Promise<void> {
  const write = await table.newWrite({ commitUser: "u" });
  await write.write(rowsToBatch(fields, rows));
  await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
  await write.close();
}

async function read(table: Table, filter?: ReturnType<typeof col>["eq"] extends (...a: never[]) => infer P ? P : never): Promise<OracleRow[]> {
  const plan = await table.newScan(filter ? { filter } : {}).plan();
  const result = await table.newRead(filter ? { filter, predicateFilter: true } : {}).toArrow(plan.splits);
  return arrowToRows(result).sort((a, b) => Number(a.k) - Number(b.k));
}

async function fullCompaction(table: Table): Promise<void> {
  const write = await table.newWrite({ commitUser: "u" });
  await write.compact({ full: true });
  await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
  await write.close();
}

async function alterError(catalog: Catalog, changes: Parameters<Catalog["alterTable"]>[1]): Promise<PaimonError> {
  return catalog.alterTable("db.t", changes).then(
    () => {
      throw new Error(`alter ${JSON.stringify(changes)} was accepted`);
    },
    (e: PaimonError) => e,
  );
}

describe("type change casts: tables", () => {
  for (const pk of [false, true]) {
    it(`${pk ? "primary-key" : "append"} table: narrowing, to-string, shorter VARCHAR, smaller DECIMAL and lower TIMESTAMP precision read old and new files as Java (were UNSUPPORTED at alterTable)`, async () => {
      const fields: FieldLike[] = [
        { name: "k", type: "INT NOT NULL" },
        { name: "i", type: "BIGINT" },
        { name: "s", type: "INT" },
        { name: "v", type: "VARCHAR(10)" },
        { name: "d", type: "DECIMAL(10,3)" },
        { name: "t", type: "TIMESTAMP(6)" },
        { name: "f", type: "DOUBLE" },
      ];
      const { catalog, table } = await newTable(fields, pk ? { primaryKeys: ["k"] } : {});
      await writeRows(table, fields, [
        { k: 1, i: "4294967297", s: -7, v: "abcdef", d: "1.250", t: ns("2024-01-01T00:00:00.123", 456000n), f: 2.5 },
        { k: 2, i: null, s: null, v: null, d: "99999.999", t: null, f: null },
      ]);
      const altered = await catalog.alterTable("db.t", [
        { kind: "updateColumnType", name: "i", type: "INT" },
        { kind: "updateColumnType", name: "s", type: "STRING" },
        { kind: "updateColumnType", name: "v", type: "VARCHAR(3)" },
        { kind: "updateColumnType", name: "d", type: "DECIMAL(5,1)" },
        { kind: "updateColumnType", name: "t", type: "TIMESTAMP(3)" },
        { kind: "updateColumnType", name: "f", type: "DECIMAL(4,2)" },
      ]);
      const newFields: FieldLike[] = altered.schema.fields.map((f) => ({ name: f.name, type: f.type }));
      await writeRows(altered, newFields, [{ k: 3, i: 5, s: "x", v: "xyz", d: "1.5", t: ns("2024-01-01T00:00:00.999"), f: "10.25" }]);
      const expected = [
        { k: 1, i: 1, s: "-7", v: "abc", d: "1.3", t: ns("2024-01-01T00:00:00.123"), f: "2.50" },
        { k: 2, i: null, s: null, v: null, d: null, t: null, f: null },
        { k: 3, i: 5, s: "x", v: "xyz", d: "1.5", t: ns("2024-01-01T00:00:00.999"), f: "10.25" },
      ];
      expect(await read(altered)).toEqual(expected);
      // filters on cast columns: the old file's statistics (of "abcdef", 1.250, …) must not prune its rows
      expect(await read(altered, col("v").eq("abc"))).toEqual([expected[0]]);
      expect(await read(altered, col("i").eq(1))).toEqual([expected[0]]);
      expect(await read(altered, col("s").eq("-7"))).toEqual([expected[0]]);
      if (pk) {
        // a full compaction rewrites the old file under the new types: the same values
        await fullCompaction(altered);
        expect(await read(await catalog.getTable("db.t"))).toEqual(expected);
      }
    });
  }

  it("a stored string that does not parse under the new type fails the read (INVALID_ARGUMENT naming the column), as Java's read", async () => {
    const fields: FieldLike[] = [
      { name: "k", type: "INT NOT NULL" },
      { name: "v", type: "STRING" },
    ];
    const { catalog, table } = await newTable(fields);
    await writeRows(table, fields, [{ k: 1, v: "12" }, { k: 2, v: "twelve" }]);
    const altered = await catalog.alterTable("db.t", [{ kind: "updateColumnType", name: "v", type: "INT" }]);
    const error = await read(altered).then(
      () => null,
      (e: PaimonError) => e,
    );
    expect(error?.code).toBe("INVALID_ARGUMENT");
    expect(error?.message).toContain("stored value 'twelve' cannot be read as INT");
  });

  it("refusals: Java's (key columns, nullable to NOT NULL, no cast) and casts paimon-rt does not read yet", async () => {
    const fields: FieldLike[] = [
      { name: "p", type: "INT NOT NULL" },
      { name: "k", type: "INT NOT NULL" },
      { name: "b", type: "BOOLEAN" },
      { name: "v", type: "STRING" },
      { name: "t", type: "TIMESTAMP(3)" },
    ];
    const { catalog } = await newTable(fields, { primaryKeys: ["p", "k"], partitionKeys: ["p"] });
    const cases: [Parameters<Catalog["alterTable"]>[1][number], string][] = [
      [{ kind: "updateColumnType", name: "k", type: "BIGINT NOT NULL" }, "cannot change the type of partition or primary-key column k"],
      [{ kind: "updateColumnType", name: "p", type: "BIGINT NOT NULL" }, "cannot change the type of partition or primary-key column p"],
      [{ kind: "updateColumnType", name: "b", type: "BOOLEAN NOT NULL" }, "a nullable column cannot become NOT NULL"],
      [{ kind: "updateColumnType", name: "b", type: "BOOLEAN" }, "no cast between them"],
      [{ kind: "updateColumnType", name: "t", type: "VARCHAR(30)" }, "no cast between them"],
      [{ kind: "updateColumnType", name: "v", type: "DATE" }, "paimon-rt cannot read the old files under the new type"],
      [{ kind: "renameColumn", name: "p", newName: "q" }, "cannot rename partition column p"],
    ];
    for (const [change, message] of cases) {
      const error = await alterError(catalog, [change]);
      expect(error.code, JSON.stringify(change)).toBe("UNSUPPORTED");
      expect(error.message, JSON.stringify(change)).toContain(message);
    }
    expect((await catalog.getTable("db.t")).schema.id).toBe(0);
  });

  it("alter-column-null-to-not-null.disabled=false allows a nullable column to become NOT NULL, as in Java", async () => {
    const fields: FieldLike[] = [
      { name: "k", type: "INT NOT NULL" },
      { name: "v", type: "INT" },
    ];
    const { catalog } = await newTable(fields, { tableOptions: { "alter-column-null-to-not-null.disabled": "false" } });
    const altered = await catalog.alterTable("db.t", [{ kind: "updateColumnType", name: "v", type: "BIGINT NOT NULL" }]);
    expect(altered.schema.fields[1]!.type).toEqual({ kind: "BIGINT", nullable: false });
  });

  it("a bucket-key column of an append table can change type and be renamed (Java checks neither), old rows read cast", async () => {
    const fields: FieldLike[] = [
      { name: "k", type: "INT NOT NULL" },
      { name: "b", type: "BIGINT" },
    ];
    const { catalog, table } = await newTable(fields, { tableOptions: { bucket: "2", "bucket-key": "b" } });
    await writeRows(table, fields, [
      { k: 1, b: "4294967297" },
      { k: 2, b: "-1" },
    ]);
    const altered = await catalog.alterTable("db.t", [
      { kind: "updateColumnType", name: "b", type: "INT" },
      { kind: "renameColumn", name: "b", newName: "bb" },
    ]);
    expect(altered.schema.options["bucket-key"]).toBe("bb");
    await writeRows(altered, [fields[0]!, { name: "bb", type: "INT" }], [{ k: 3, bb: 1 }]);
    expect(await read(altered)).toEqual([
      { k: 1, bb: 1 },
      { k: 2, bb: -1 },
      { k: 3, bb: 1 },
    ]);
  });

  for (const mode of ["merge-on-read", "deletion-vectors"] as const) {
    it(`renaming a primary-key column (${mode}): the key list is renamed and rows of files before and after the rename merge by key (was UNSUPPORTED)`, async () => {
      const fields: FieldLike[] = [
        { name: "k", type: "INT NOT NULL" },
        { name: "v", type: "STRING" },
      ];
      const { catalog, table } = await newTable(fields, { primaryKeys: ["k"], tableOptions: mode === "deletion-vectors" ? { "deletion-vectors.enabled": "true" } : {} });
      await writeRows(table, fields, [
        { k: 1, v: "a" },
        { k: 2, v: "b" },
      ]);
      const renamed = await catalog.alterTable("db.t", [{ kind: "renameColumn", name: "k", newName: "id" }]);
      expect(renamed.schema.primaryKeys).toEqual(["id"]);
      expect(renamed.schema.options["bucket-key"]).toBeUndefined();
      await writeRows(renamed, [{ name: "id", type: "INT NOT NULL" }, fields[1]!], [
        { id: 2, v: "B" },
        { id: 3, v: "c" },
      ]);
      const rows = async (t: Table) => arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)).sort((a, b) => Number(a.id) - Number(b.id));
      const expected = [
        { id: 1, v: "a" },
        { id: 2, v: "B" },
        { id: 3, v: "c" },
      ];
      expect(await rows(renamed)).toEqual(expected);
      const filtered = arrowToRows(await renamed.newRead({ filter: col("id").eq(2), predicateFilter: true }).toArrow((await renamed.newScan({ filter: col("id").eq(2) }).plan()).splits));
      expect(filtered).toEqual([{ id: 2, v: "B" }]);
      await fullCompaction(renamed);
      expect(await rows(await catalog.getTable("db.t"))).toEqual(expected);
    });
  }
});
