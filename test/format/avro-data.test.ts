/**
 * Avro data files (src/format/avro-data-write.ts, avro-data-read.ts): each type round trips with
 * exact values (nulls, decimals of each size and sign, timestamps of each precision, nested types),
 * the writer schema is Java's AvroSchemaConverter's, columns are matched by field id through the
 * file's schema and cast as for Parquet, batches are cut at the batch size, and malformed bytes
 * are CORRUPT_FILE naming the file. Java interop: test/interop/avro-data-interop.test.ts.
 */
import { describe, expect, it } from "vitest";
import { AvroFileWriter, avroDataSchema } from "../../src/format/avro-data-write.js";
import { readWholeDataFile } from "../../src/format/file-formats.js";
import { PaimonError } from "../../src/error.js";
import { type DataField, parseDataType } from "../../src/spec/types.js";
import { arrowToRows, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

function fields(spec: Array<[string, string]>): DataField[] {
  return spec.map(([name, type], id) => ({ id, name, type: parseDataType(type) }));
}

async function writeFile(fs: DataField[], rows: OracleRow[], codec: "null" | "deflate" | "snappy" | "zstandard" = "zstandard"): Promise<{ bytes: Uint8Array; stats: unknown[] }> {
  const w = new AvroFileWriter(fs, { codec });
  w.write(rowsToBatch(fs.map((f) => ({ name: f.name, type: f.type })), rows));
  const r = await w.finish();
  return { bytes: r.bytes, stats: r.stats };
}

async function readRows(bytes: Uint8Array, fs: DataField[], options: { fileFields?: DataField[]; batchSize?: number } = {}): Promise<{ rows: OracleRow[]; batches: number[] }> {
  const batches = [];
  for await (const b of readWholeDataFile(Promise.resolve(bytes), { fields: fs, fileFields: options.fileFields, batchSize: options.batchSize ?? 1024, fileName: "data-x.avro" })) batches.push(b);
  return { rows: arrowToRows(batches), batches: batches.map((b) => b.numRows) };
}

const TYPES: Array<[string, string, unknown[]]> = [
  ["BOOLEAN", "b", [true, false, null]],
  ["TINYINT", "t", [-128, 127, null]],
  ["SMALLINT", "sm", [-32768, 32767, null]],
  ["INT", "i", [-2147483648, 2147483647, null]],
  ["BIGINT", "l", ["-9223372036854775808", "9223372036854775807", null]],
  ["FLOAT", "f", [-1.5, 3.4028234663852886e38, null]],
  ["DOUBLE", "d", [-0.1, 1.7976931348623157e308, null]],
  ["DECIMAL(5, 2)", "dec5", ["-999.99", "0.01", null]],
  ["DECIMAL(18, 0)", "dec18", ["-999999999999999999", "128", null]],
  ["DECIMAL(38, 5)", "dec38", ["-999999999999999999999999999999999.99999", "-0.00001", null]],
  ["STRING", "s", ["é€😀", "", null]],
  ["CHAR(2)", "c", ["ab", "x ", null]],
  ["BYTES", "by", ["AP+A", "", null]],
  ["BINARY(3)", "bi", ["AQID", "/wAA", null]],
  ["DATE", "dt", ["1969-12-31", "9999-12-31", null]],
  ["TIME(3)", "tm", [0, 86399999, null]],
  ["TIMESTAMP(0)", "ts0", ["-62135596800000000000", "1704067200000000000", null]],
  ["TIMESTAMP(3)", "ts3", ["-1000000", "1704067200123000000", null]],
  ["TIMESTAMP(6)", "ts6", ["-1000", "1704067200123456000", null]],
  ["TIMESTAMP_LTZ(3)", "ltz3", ["-1000000", "1704067200123000000", null]],
  ["TIMESTAMP_LTZ(6)", "ltz6", ["-1000", "1704067200123456000", null]],
  ["ARRAY<INT>", "arr", [[1, null, -1], [], null]],
  ["ARRAY<ARRAY<STRING>>", "arr2", [[["a"], null, []], [null], null]],
  ["MAP<STRING, BIGINT>", "ms", [[["a", "1"], ["b", null]], [], null]],
  ["MAP<INT, ROW<x DECIMAL(20, 2), y STRING>>", "mi", [[[1, { x: "-1.50", y: null }], [-2, null]], [], null]],
  ["MULTISET<STRING>", "mset", [[["a", 2]], [], null]],
  ["MULTISET<INT>", "mseti", [[[7, 3]], [], null]],
  ["ROW<x INT NOT NULL, y ROW<z STRING, w ARRAY<DOUBLE>>>", "r", [{ x: 1, y: { z: "q", w: [1.5, null] } }, { x: -1, y: null }, null]],
];

describe("Avro data files", () => {
  for (const [type, name, values] of TYPES) {
    it(`${type}: round trip with exact values and nulls`, async () => {
      const fs = fields([["id", "INT NOT NULL"], [name, type]]);
      const rows = values.map((v, id) => ({ id, [name]: v }));
      for (const codec of ["null", "zstandard"] as const) {
        const { bytes } = await writeFile(fs, rows, codec);
        expect((await readRows(bytes, fs)).rows, codec).toEqual(rows);
      }
    });
  }

  it("the writer schema is Java AvroSchemaConverter's (names, nullable unions with null defaults, logical types, maps of non-string keys)", () => {
    const fs = fields([["k", "INT NOT NULL"], ["ts", "TIMESTAMP(6)"], ["ltz", "TIMESTAMP_LTZ(3)"], ["dec", "DECIMAL(10, 2) NOT NULL"], ["r", "ROW<a STRING>"], ["m", "MAP<INT, STRING>"]]);
    expect(avroDataSchema(fs)).toEqual({
      type: "record",
      name: "org.apache.paimon.avro.generated.record",
      fields: [
        { name: "k", type: "int" },
        { name: "ts", type: ["null", { type: "long", logicalType: "timestamp-micros" }], default: null },
        { name: "ltz", type: ["null", { type: "long", logicalType: "local-timestamp-millis" }], default: null },
        { name: "dec", type: { type: "bytes", logicalType: "decimal", precision: 10, scale: 2 } },
        { name: "r", type: ["null", { type: "record", name: "org.apache.paimon.avro.generated.record_r", fields: [{ name: "a", type: ["null", "string"], default: null }] }], default: null },
        {
          name: "m",
          type: [
            "null",
            {
              type: "array",
              logicalType: "map",
              items: { type: "record", name: "org.apache.paimon.avro.generated.record_m", fields: [{ name: "key", type: ["null", "int"] }, { name: "value", type: ["null", "string"], default: null }] },
            },
          ],
          default: null,
        },
      ],
    });
    expect(() => avroDataSchema(fields([["t", "TIMESTAMP(9)"]]))).toThrow(PaimonError);
  });

  it("many rows: batches of the batch size over several blocks, every codec", async () => {
    const fs = fields([["id", "INT NOT NULL"], ["s", "STRING"], ["l", "BIGINT"]]);
    const rows = Array.from({ length: 20000 }, (_, id) => ({ id, s: id % 5 === 0 ? null : `value-${id}`, l: String(BigInt(id) * -123456789012n) }));
    for (const codec of ["null", "deflate", "snappy", "zstandard"] as const) {
      const { bytes } = await writeFile(fs, rows, codec);
      const read = await readRows(bytes, fs, { batchSize: 4096 });
      expect(read.batches, codec).toEqual([4096, 4096, 4096, 4096, 3616]);
      expect(read.rows).toEqual(rows);
    }
  });

  it("columns by field id through the file's schema (renamed, dropped, added), with type casts", async () => {
    const fileFields = fields([["a", "INT"], ["b", "STRING"], ["c", "FLOAT"]]);
    const { bytes } = await writeFile(fileFields, [{ a: 1, b: "x", c: 1.5 }, { a: null, b: null, c: -2 }]);
    // b renamed to bb, a widened to BIGINT, c dropped, d added, read in another order
    const table: DataField[] = [
      { id: 1, name: "bb", type: parseDataType("STRING") },
      { id: 0, name: "a", type: parseDataType("BIGINT") },
      { id: 3, name: "d", type: parseDataType("INT") },
    ];
    expect((await readRows(bytes, table, { fileFields })).rows).toEqual([
      { bb: "x", a: "1", d: null },
      { bb: null, a: null, d: null },
    ]);
  });

  it("statistics: min, max and null counts of the rows written", async () => {
    const fs = fields([["i", "INT"], ["s", "STRING"]]);
    const { stats } = await writeFile(fs, [{ i: 5, s: "b" }, { i: null, s: "a" }, { i: -3, s: null }]);
    expect(stats).toEqual([
      { name: "i", fieldId: 0, min: -3, max: 5, nullCount: 1 },
      { name: "s", fieldId: 1, min: "a", max: "b", nullCount: 1 },
    ]);
  });

  it("malformed bytes are CORRUPT_FILE naming the file", async () => {
    const fs = fields([["id", "INT NOT NULL"], ["s", "STRING"]]);
    const { bytes } = await writeFile(fs, [{ id: 1, s: "abc" }], "null");
    const bad = [bytes.slice(0, 10), bytes.slice(0, bytes.length - 20), Uint8Array.from(bytes, (b, i) => (i === bytes.length - 1 ? b ^ 0xff : b)), new Uint8Array([1, 2, 3, 4, 5])];
    for (const b of bad) {
      const e = await readRows(b, fs).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(PaimonError);
      expect((e as PaimonError).code).toBe("CORRUPT_FILE");
      expect((e as PaimonError).message).toContain("data-x.avro");
    }
    // a file whose columns do not have the types of the schema
    const other = (await writeFile(fields([["id", "INT NOT NULL"], ["s", "BIGINT"]]), [{ id: 1, s: "2" }])).bytes;
    await expect(readRows(other, fs)).rejects.toMatchObject({ code: "CORRUPT_FILE", message: expect.stringContaining("data-x.avro: column s: Avro type long does not hold STRING") });
  });
});
