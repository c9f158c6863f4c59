import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { readParquet, readParquetBatches, writeParquet, ParquetFileWriter } from "../../src/format/index.js";
import { DataTypes as T, notNull, type DataField, type DataType } from "../../src/spec/types.js";
import { batch, tableColumn } from "./helpers.js";

const F = T.FIELD;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const long = "x".repeat(5000) + "ü€𝄞";

/** Field -> values (with nulls and edge values). */
const atomic: Array<[DataField, unknown[]]> = [
  [F(0, "b", T.BOOLEAN()), [true, false, null, true]],
  [F(1, "ti", T.TINYINT()), [-128, 127, null, 0]],
  [F(2, "si", T.SMALLINT()), [-32768, 32767, null, 1]],
  [F(3, "i", T.INT()), [-2147483648, 2147483647, null, 0]],
  [F(4, "bi", T.BIGINT()), [I64_MIN, I64_MAX, null, 0n]],
  [F(5, "f", T.FLOAT()), [Math.fround(1.5), -0, null, Number.NaN]],
  [F(6, "d", T.DOUBLE()), [Number.NaN, -0, Infinity, null]],
  [F(7, "s", T.STRING()), ["", "héllo wörld ✓ 日本語 𝄞", null, long]],
  [F(8, "c", T.CHAR(3)), ["abc", null, "x  ", "ÿÿÿ"]],
  [F(9, "vc", T.VARCHAR(10)), ["a", "b", "c", null]],
  [F(10, "bin", T.BINARY(2)), [new Uint8Array([0, 255]), null, new Uint8Array([1, 2]), new Uint8Array([])]],
  [F(11, "vb", T.BYTES()), [new Uint8Array([]), new Uint8Array(3000).fill(7), null, new Uint8Array([0])]],
  [F(12, "dec9", T.DECIMAL(9, 2)), [-999999999n, 999999999n, null, 0n]],
  [F(13, "dec18", T.DECIMAL(18, 4)), [-(10n ** 18n - 1n), 10n ** 18n - 1n, null, 12345n]],
  [F(14, "dec38", T.DECIMAL(38, 10)), [-(10n ** 38n - 1n), 10n ** 38n - 1n, null, -1n]],
  [F(15, "dec20", T.DECIMAL(20, 0)), [10n ** 19n, -(10n ** 19n), 1n, null]],
  [F(16, "date", T.DATE()), [-719162, 0, null, 2932896]], // 0001-01-01, 1970-01-01, 9999-12-31
  [F(17, "time", T.TIME()), [0, 86399999, null, 45296789]],
  [F(18, "ts0", T.TIMESTAMP(0)), [-62135596800n, 0n, null, 253402300799n]],
  [F(19, "ts3", T.TIMESTAMP(3)), [-1n, 0n, null, 1700000000123n]],
  [F(20, "ts6", T.TIMESTAMP(6)), [-86400000001n, 1700000000123456n, null, 0n]],
  [F(21, "ts9", T.TIMESTAMP(9)), [-1n, 1700000000123456789n, null, I64_MAX]],
  [F(22, "ltz3", T.TIMESTAMP_LTZ(3)), [1700000000123n, null, -5n, 0n]],
  [F(23, "ltz6", T.TIMESTAMP_LTZ(6)), [1700000000123456n, null, -5n, 0n]],
  [F(24, "ltz9", T.TIMESTAMP_LTZ(9)), [1700000000123456789n, null, -5n, 0n]],
  [F(25, "nn", notNull(T.INT())), [1, 2, 3, 4]],
];

const rowType = T.ROW([F(101, "x", T.BIGINT()), F(102, "y", T.STRING()), F(103, "z", T.ROW([F(104, "deep", T.DOUBLE())]))]);
const nested: Array<[DataField, unknown[]]> = [
  [F(30, "arr", T.ARRAY(T.INT())), [[1, null, 3], [], null, [-1]]],
  [F(31, "arrs", T.ARRAY(T.STRING())), [["a", "ü"], null, [null], []]],
  [
    F(32, "m", T.MAP(T.STRING(), T.BIGINT())),
    [new Map([["k1", 1n], ["k2", null]]), null, new Map(), new Map([["ü", I64_MIN]])],
  ],
  [
    F(33, "row", rowType),
    [{ x: 1n, y: "a", z: { deep: 1.5 } }, null, { x: null, y: null, z: null }, { x: I64_MAX, y: "", z: { deep: null } }],
  ],
  [F(34, "arrrow", T.ARRAY(T.ROW([F(105, "p", T.INT()), F(106, "q", T.ARRAY(T.STRING()))]))), [[{ p: 1, q: ["x"] }, null], null, [], [{ p: null, q: null }]]],
  [F(35, "mapofarr", T.MAP(T.INT(), T.ARRAY(T.DATE()))), [new Map([[1, [0, -1]], [2, null]]), null, new Map(), new Map([[3, []]])]],
];

function expected(type: DataType, v: unknown): unknown {
  // TIMESTAMP(0) is stored as millis and read back as seconds; same value.
  return v;
}

async function roundTrip(cases: Array<[DataField, unknown[]]>, compression?: string) {
  const fields = cases.map((c) => c[0]);
  const rows = Object.fromEntries(cases.map(([f, v]) => [f.name, v]));
  const result = await writeParquet(fields, batch(fields, rows), { compression, fileName: "rt.parquet" });
  const table = await readParquet(result.bytes, { fields });
  return { result, table, fields };
}

describe("parquet round trip", () => {
  it("every atomic type with nulls and edge values", async () => {
    const { result, table } = await roundTrip(atomic);
    expect(result.rowCount).toBe(4);
    expect(result.fileSize).toBe(result.bytes.length);
    expect(table.numRows).toBe(4);
    for (const [f, vals] of atomic) {
      const got = tableColumn(table, f.name, f.type);
      expect(got, f.name).toEqual(vals.map((v) => expected(f.type, v)));
    }
    // -0.0 survives bit-exactly.
    expect(Object.is(tableColumn(table, "d", T.DOUBLE())[1], -0)).toBe(true);
    // Output schema: the spec/types.ts Arrow types with field ids.
    expect(String(table.schema.fields.find((x) => x.name === "ts0")!.type)).toBe(String(new arrow.TimestampSecond()));
    expect(table.schema.fields.find((x) => x.name === "ltz6")!.type).toMatchObject({ timezone: "UTC" });
    expect(table.schema.fields.find((x) => x.name === "bi")!.metadata.get("PARQUET:field_id")).toBe("4");
  });

  it("nested ROW / ARRAY / MAP", async () => {
    const { table } = await roundTrip(nested);
    for (const [f, vals] of nested) expect(tableColumn(table, f.name, f.type), f.name).toEqual(vals);
  });

  for (const compression of ["zstd", "snappy", "lz4", "gzip", "none"]) {
    it(`compression ${compression}`, async () => {
      const { table } = await roundTrip([...atomic.slice(0, 8), nested[3]!], compression);
      for (const [f, vals] of [...atomic.slice(0, 8), nested[3]!]) expect(tableColumn(table, f.name, f.type)).toEqual(vals);
    });
  }

  it("row groups, batch size and incremental writes", async () => {
    const fields = [F(0, "id", notNull(T.BIGINT())), F(1, "s", T.STRING())];
    const w = new ParquetFileWriter(fields, { rowGroupRows: 1000 });
    for (let b = 0; b < 5; b++) {
      const ids = Array.from({ length: 700 }, (_, i) => BigInt(b * 700 + i));
      w.write(batch(fields, { id: ids, s: ids.map((i) => (i % 7n === 0n ? null : `v${i}`)) }));
    }
    expect(w.rowCount).toBe(3500);
    expect(w.bufferedBytes).toBeGreaterThan(3500 * 8);
    const r = await w.finish();
    const batches: arrow.RecordBatch[] = [];
    for await (const b of readParquetBatches(r.bytes, { fields, batchSize: 300 })) batches.push(b);
    expect(batches.every((b) => b.numRows <= 300)).toBe(true);
    const t = new arrow.Table(batches);
    expect(t.numRows).toBe(3500);
    expect(tableColumn(t, "id", T.BIGINT())).toEqual(Array.from({ length: 3500 }, (_, i) => BigInt(i)));
    // Row-group selection: 4 row groups of <= 1000 rows.
    const rg2 = await readParquet(r.bytes, { fields, rowGroups: [2] });
    expect(tableColumn(rg2, "id", T.BIGINT())).toEqual(Array.from({ length: 1000 }, (_, i) => BigInt(2000 + i)));
  });

  it("reads without a read schema (file columns as stored)", async () => {
    const fields = atomic.slice(0, 5).map((c) => c[0]);
    const rows = Object.fromEntries(atomic.slice(0, 5).map(([f, v]) => [f.name, v]));
    const r = await writeParquet(fields, batch(fields, rows));
    const t = await readParquet(r.bytes);
    expect(t.schema.fields.map((f) => f.name)).toEqual(["b", "ti", "si", "i", "bi"]);
    expect(tableColumn(t, "bi", T.BIGINT())).toEqual(atomic[4]![1]);
    const p = await readParquet(r.bytes, { columns: ["bi", "b"] });
    expect(p.schema.fields.map((f) => f.name)).toEqual(["bi", "b"]);
  });

  it("rejects nulls in NOT NULL columns and unknown compression", async () => {
    const fields = [F(0, "a", notNull(T.INT()))];
    await expect(writeParquet(fields, batch([F(0, "a", T.INT())], { a: [1, null] }))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(writeParquet(fields, batch(fields, { a: [1] }), { compression: "lzo" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("empty input writes a valid file with zero rows", async () => {
    const fields = [F(0, "a", T.INT()), F(1, "s", T.STRING())];
    const r = await writeParquet(fields, []);
    expect(r.rowCount).toBe(0);
    const t = await readParquet(r.bytes, { fields });
    expect(t.numRows).toBe(0);
    expect(t.schema.fields.map((f) => f.name)).toEqual(["a", "s"]);
  });
});
