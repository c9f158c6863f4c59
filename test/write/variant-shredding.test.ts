/**
 * Shredded VARIANT writing (src/write/variant-shred-*.ts, variant-shredding.ts) without Java:
 * - Java's castShredded on hand-computed cases: typed fields, leftover fields kept in `value` with
 *   the row's dictionary ids, missing fields, integers that do / do not fit, integers into a
 *   decimal column, decimals rescaled or not, integral decimals into an integer column, variant
 *   nulls, arrays, values of another shape, null rows;
 * - Java's schema inference on hand-computed cases: integer / decimal merging, cardinality,
 *   width and depth limits, BIGINT past 18 digits, and the values Java's inference fails on;
 * - property: shredding random documents by random or inferred schemas, then rebuilding them
 *   with the read path (Java's rebuild), gives the same variant (its JSON);
 * - tables: written shredded and read back; malformed options refused with nothing written;
 *   ORC unchanged.
 * Java's own files and reads: test/interop/variant-shredded-write-interop.test.ts.
 */
import * as fsp from "node:fs/promises";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { columnMetaData, readFooter } from "../../src/format/footer.js";
import { getStruct, getValue } from "../../src/format/thrift.js";
import { corrupt, toByteSource } from "../../src/format/source.js";
import { shreddedVariantCast } from "../../src/format/variant-shredded.js";
import { type DataField, type DataType, DataTypes, parseDataType, toArrowType, typeToString } from "../../src/spec/types.js";
import type { Variant } from "../../src/spec/variant-encoding.js";
import { variantFromJson, variantOf, variantToJson } from "../../src/spec/variant.js";
import { ShreddedGroup } from "../../src/write/variant-shred-cast.js";
import { inferShreddingTypeOf, type InferenceLimits } from "../../src/write/variant-shred-infer.js";
import { shreddedParquetField, shreddingGroupType, shredLevelOf } from "../../src/write/variant-shred-schema.js";
import { docValue } from "../interop/variant-docs.js";
import { tempDirs } from "../support/temp-dirs.js";

const tempDir = tempDirs("paimon-rt-variant-shredding-");
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const COLUMN: DataField = { id: 3, name: "v", type: { kind: "VARIANT", nullable: true } };
const DEFAULTS: InferenceLimits = { maxSchemaWidth: 300, maxSchemaDepth: 50, minFieldCardinalityRatio: 0.1 };

/** The shredded group's Arrow data of `variants` under the shredding shape `type`. */
function shred(type: DataType, variants: ReadonlyArray<Variant | null>): { data: arrow.Data; type: arrow.Struct } {
  const group = shreddingGroupType(type, "test");
  const field = shreddedParquetField(COLUMN, group);
  const out = new ShreddedGroup(shredLevelOf(group, "test"));
  for (const v of variants) {
    if (v) out.append(v.value, v.metadata, 0);
    else out.appendEmpty(false);
  }
  return { data: out.finish(field.type as arrow.Struct), type: field.type as arrow.Struct };
}

/** Stored values as plain JSON: binaries in base64, 64-bit integers as strings, decimals as their unscaled value. */
function plain(x: unknown): unknown {
  if (x === null || x === undefined) return null;
  if (x instanceof Uint8Array) return b64(x);
  if (typeof x === "bigint") return String(x);
  if (x instanceof Uint32Array) return String(BigInt.asIntN(128, [...x].reverse().reduce((n, w) => (n << 32n) | BigInt(w), 0n)));
  if (x instanceof arrow.Vector) return [...x].map(plain);
  if (typeof x === "object" && typeof (x as { toJSON?: unknown }).toJSON === "function") return plain((x as { toJSON(): unknown }).toJSON());
  if (typeof x === "object") return Object.fromEntries(Object.entries(x as object).map(([k, v]) => [k, plain(v)]));
  return x;
}
const rows = (d: { data: arrow.Data }) => [...arrow.makeVector(d.data)].map(plain);
const json = (text: string) => variantFromJson(text);
const valueOf = (text: string) => b64(variantFromJson(text).value);

/** The read path's rebuild (Java's ShreddingUtils.rebuild) of shredded data, as JSON texts. */
const rebuildCast = shreddedVariantCast({ makeData: arrow.makeData, PaimonError, corrupt: (what, detail) => corrupt("f.parquet", `${what}: ${detail}`) }, toArrowType({ kind: "VARIANT", nullable: true }) as arrow.Struct);
function rebuiltJson(d: { data: arrow.Data }): Array<string | null> {
  return [...arrow.makeVector(rebuildCast.apply(d.data, "column v"))].map((r) => (r === null ? null : variantToJson({ value: r.value, metadata: r.metadata })));
}

describe("castShredded (Java's VariantShreddingWriter)", () => {
  const OBJECT = parseDataType("ROW<a INT, b STRING, c ARRAY<BIGINT>, e DECIMAL(10, 2)>");

  it("typed fields, leftovers in value with the row's ids, missing fields, arrays, other shapes, null rows", () => {
    const full = json('{"a":1,"b":"x","c":[1,"s"],"e":1.5,"z":true}');
    const out = shred(OBJECT, [full, json('{"a":3000000000}'), json('"str"'), null, json("[1]")]);
    const absent = { value: null, typed_value: null };
    expect(rows(out)).toEqual([
      {
        metadata: b64(full.metadata),
        // {"z": true} with z's id in the row's dictionary (a, b, c, e, z: id 4): header, size 1, id 4, offsets 0 and 1, true
        value: b64(new Uint8Array([0x02, 1, 4, 0, 1, 0x04])),
        typed_value: {
          a: { value: null, typed_value: 1 },
          b: { value: null, typed_value: "x" },
          c: { value: null, typed_value: [{ value: null, typed_value: "1" }, { value: valueOf('"s"'), typed_value: null }] },
          e: { value: null, typed_value: "150" },
        },
      },
      // 3000000000 does not fit INT: its INT8 bytes stay in the field's value; the others are missing
      { metadata: b64(json('{"a":3000000000}').metadata), value: null, typed_value: { a: { value: valueOf("3000000000"), typed_value: null }, b: absent, c: absent, e: absent } },
      { metadata: b64(json('"str"').metadata), value: valueOf('"str"'), typed_value: null },
      null,
      { metadata: b64(json("[1]").metadata), value: valueOf("[1]"), typed_value: null },
    ]);
    expect(rebuiltJson(out)).toEqual(['{"a":1,"b":"x","c":[1,"s"],"e":1.5,"z":true}', '{"a":3000000000}', '"str"', null, "[1]"]);
  });

  it("numbers: integer widths, integers into decimals, decimals rescaled only without loss, integral decimals into integers", () => {
    const typed = (type: string, texts: string[]) => rows(shred(parseDataType(type), texts.map(json))).map((r) => {
      const { value, typed_value } = r as { value: string | null; typed_value: unknown };
      return value === null ? typed_value : `value:${value === valueOf(texts[0]!) ? "" : value}`;
    });
    expect(typed("TINYINT", ["127", "-128", "128", "2.0", "2.5", "null", "true"])).toEqual([127, -128, `value:${valueOf("128")}`, 2, `value:${valueOf("2.5")}`, `value:${valueOf("null")}`, `value:${valueOf("true")}`]);
    expect(typed("SMALLINT", ["32767", "32768"])).toEqual([32767, `value:${valueOf("32768")}`]);
    expect(typed("BIGINT", ["9223372036854775807", "9223372036854775808", "-5.000"])).toEqual(["9223372036854775807", `value:${valueOf("9223372036854775808")}`, "-5"]);
    // DECIMAL(5, 2): 7 is 7.00, 1.5 rescales to 1.50, 1.234 would lose a digit, 1000 needs precision 6
    expect(typed("DECIMAL(5, 2)", ["7", "1.5", "1.25", "1.234", "1000", "999.99", "1e2"])).toEqual(["700", "150", "125", `value:${valueOf("1.234")}`, `value:${valueOf("1000")}`, "99999", `value:${valueOf("1e2")}`]);
    expect(typed("DOUBLE", ["1e2", "1.5", "1"])).toEqual([100, `value:${valueOf("1.5")}`, `value:${valueOf("1")}`]);
    expect(typed("BOOLEAN", ["false", "0"])).toEqual([false, `value:${valueOf("0")}`]);
    expect(typed("STRING", ['"é😀"', "1"])).toEqual(["é😀", `value:${valueOf("1")}`]);
  });

  it("a FLOAT column takes only FLOAT variants", () => {
    const builder = (f: number) => {
      const v = { value: new Uint8Array([14 << 2, 0, 0, 0xc0, 0x3f]), metadata: json("1").metadata };
      new DataView(v.value.buffer).setFloat32(1, f, true);
      return v;
    };
    const out = rows(shred(DataTypes.FLOAT(), [builder(1.5), json("1.5e0")]));
    expect(out.map((r) => (r as { typed_value: unknown }).typed_value)).toEqual([1.5, null]);
  });

  it("a VARIANT leaf keeps every value in value (required at the top, optional in an object)", () => {
    const out = shred(parseDataType("ROW<a VARIANT>"), [json('{"a":[1,{"b":2}],"c":3}'), json('{"c":1}')]);
    const field = shreddedParquetField(COLUMN, shreddingGroupType(parseDataType("ROW<a VARIANT>"), "test"));
    const a = ((field.type as arrow.Struct).children[2]!.type as arrow.Struct).children[0]!;
    expect(a.nullable).toBe(false);
    expect((a.type as arrow.Struct).children.map((f) => [f.name, f.nullable])).toEqual([["value", true]]);
    expect(rebuiltJson(out)).toEqual(['{"a":[1,{"b":2}],"c":3}', '{"c":1}']);
    const top = shreddedParquetField(COLUMN, shreddingGroupType({ kind: "VARIANT", nullable: true }, "test"));
    expect((top.type as arrow.Struct).children.map((f) => [f.name, f.nullable, f.metadata.get("PARQUET:field_id")])).toEqual([
      ["metadata", false, "0"],
      ["value", false, "1"],
    ]);
  });

  it("refuses schemas Java's writer cannot write or read back", () => {
    for (const type of ["DATE", "TIMESTAMP(6)", "BYTES", "CHAR(3)", "BINARY(4)", "INT NOT NULL", "ROW<a INT NOT NULL>", "MAP<STRING, INT>"]) {
      expect(() => shredLevelOf(shreddingGroupType(parseDataType(type), "option x"), "option x"), type).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("option x") }));
    }
    expect(() => shredLevelOf(shreddingGroupType(DataTypes.ROW([]), "option x"), "option x")).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});

describe("schema inference (Java's InferVariantShreddingSchema)", () => {
  const infer = (texts: Array<string | null>, limits: Partial<InferenceLimits> = {}) => typeToString(inferShreddingTypeOf(texts.map((t) => (t === null ? null : json(t))), { ...DEFAULTS, ...limits }));

  it("merges integers and decimals into the smallest decimal, then widens; other differing types are VARIANT", () => {
    expect(infer(['{"a":1,"b":"x"}', '{"a":1.25,"c":[1,2]}', '{"a":100}', null])).toBe("ROW<`a` DECIMAL(18, 2), `b` STRING, `c` ARRAY<BIGINT>>");
    expect(infer(["1", "22", "-333"])).toBe("BIGINT");
    expect(infer(["1", '"x"'])).toBe("VARIANT");
    expect(infer(["1.5", "1234567890123456789"])).toBe("DECIMAL(38, 1)");
    expect(infer(["1.5", "1e3"])).toBe("VARIANT");
    expect(infer(["0.001"])).toBe("DECIMAL(18, 3)");
    expect(infer(["1.50"])).toBe("DECIMAL(18, 1)");
    expect(infer(["[]", "[null]"])).toBe("ARRAY<VARIANT>");
    expect(infer(["null", null])).toBe("VARIANT");
    expect(infer(['{"a":{"b":true}}', '{"a":{"b":false,"c":1.5e0}}'])).toBe("ROW<`a` ROW<`b` BOOLEAN, `c` DOUBLE>>");
  });

  it("drops fields seen in fewer than ceil(values × ratio) values; width and depth limits", () => {
    const docs = [...Array.from({ length: 10 }, () => '{"a":1}'), '{"a":1,"rare":2}'];
    expect(infer(docs)).toBe("ROW<`a` BIGINT>");
    expect(infer(docs, { minFieldCardinalityRatio: 0.05 })).toBe("ROW<`a` BIGINT, `rare` BIGINT>");
    // the width: the object spends 1, a spends 2 (value and typed_value); b finds none left
    expect(infer(['{"a":1,"b":2,"c":3}'], { maxSchemaWidth: 3 })).toBe("ROW<`a` BIGINT>");
    expect(infer(['{"a":1,"b":2,"c":3}'], { maxSchemaWidth: 5 })).toBe("ROW<`a` BIGINT, `b` BIGINT>");
    expect(infer(['{"a":1}'], { maxSchemaWidth: 1 })).toBe("VARIANT");
    expect(infer(['{"a":{"b":1},"c":[[1]]}'], { maxSchemaDepth: 1 })).toBe("ROW<`a` VARIANT, `c` VARIANT>");
    expect(infer(['{"a":{"b":1},"c":[[1]]}'], { maxSchemaDepth: 2 })).toBe("ROW<`a` ROW<`b` BIGINT>, `c` ARRAY<VARIANT>>");
  });

  it("limits Java takes without complaint keep Java's meaning: none left, no depth, every field or none (an empty object shape is VARIANT)", () => {
    const docs = ['{"a":1}', '{"a":2,"b":"x"}', '{"c":true}'];
    expect(infer(docs, { maxSchemaWidth: 0 })).toBe("VARIANT");
    expect(infer(docs, { maxSchemaWidth: -7 })).toBe("VARIANT");
    expect(infer(docs, { maxSchemaDepth: 0 })).toBe("VARIANT");
    expect(infer(["5"], { maxSchemaDepth: -1 })).toBe("BIGINT");
    // (int) ceil(3 × ratio): NaN and negatives give 0 or less, so every field is kept; above 1 none is
    for (const ratio of [Number.NaN, -1, 0, Number.NEGATIVE_INFINITY]) expect(infer(docs, { minFieldCardinalityRatio: ratio }), String(ratio)).toBe("ROW<`a` BIGINT, `b` STRING, `c` BOOLEAN>");
    expect(infer(docs, { minFieldCardinalityRatio: 0.5 })).toBe("ROW<`a` BIGINT>");
    expect(infer(docs, { minFieldCardinalityRatio: 1.5 })).toBe("VARIANT");
    expect(infer(docs, { minFieldCardinalityRatio: Number.POSITIVE_INFINITY })).toBe("VARIANT");
  });

  it("fails where Java's inference fails", () => {
    for (const text of ['{"a": 1200.00}', '{"": 1}', '{" \\t": 1}']) expect(() => infer([text]), text).toThrow(expect.objectContaining({ code: "UNSUPPORTED" }));
    // dates, timestamps and binaries infer to types Java's writer then has no shredding for (refused when the file is written)
    expect(typeToString(inferShreddingTypeOf([variantOf({ t: new Date(0), b: new Uint8Array([1]) })], DEFAULTS))).toBe("ROW<`b` BYTES, `t` TIMESTAMP(6) WITH LOCAL TIME ZONE>");
  });
});

/** Shapes to shred by: Paimon types Java's shredding accepts, with the keys of the random documents as field names. */
const shape: fc.Arbitrary<DataType> = fc.letrec<{ t: DataType }>((tie) => ({
  t: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom<DataType>(DataTypes.TINYINT(), DataTypes.SMALLINT(), DataTypes.INT(), DataTypes.BIGINT(), DataTypes.FLOAT(), DataTypes.DOUBLE(), DataTypes.BOOLEAN(), DataTypes.STRING(), { kind: "VARIANT", nullable: true }),
    fc.tuple(fc.integer({ min: 1, max: 38 }), fc.integer({ min: 0, max: 38 })).map(([p, s]) => DataTypes.DECIMAL(p, Math.min(p, s))),
    tie("t").map((e) => DataTypes.ARRAY(e)),
    fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b", "c", "d", "é", "😀", "x y", ""), tie("t")), { minLength: 1, maxLength: 4, selector: ([k]) => k }).map((fs) => DataTypes.ROW(fs.map(([name, type], id) => ({ id, name, type })))),
  ),
})).t;

describe("shredding then rebuilding gives the same variant", () => {
  it("random documents under random shapes and under the shape inferred from them", () => {
    fc.assert(
      fc.property(fc.array(fc.option(docValue, { freq: 8 }), { minLength: 1, maxLength: 12 }), shape, (texts, type) => {
        const variants = texts.map((t) => (t === null ? null : variantFromJson(t)));
        const expected = variants.map((v) => v && variantToJson(v));
        expect(rebuiltJson(shred(type, variants))).toEqual(expected);
        let inferred: DataType;
        try {
          inferred = inferShreddingTypeOf(variants, DEFAULTS);
        } catch (e) {
          // what Java's inference fails on (an empty or blank key, a decimal of negative scale)
          expect((e as PaimonError).code).toBe("UNSUPPORTED");
          return;
        }
        expect(rebuiltJson(shred(inferred, variants))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("tables written shredded", () => {
  const variantStruct = new arrow.Struct([new arrow.Field("value", new arrow.Binary(), false), new arrow.Field("metadata", new arrow.Binary(), false)]);
  const batchOf = (texts: Array<string | null>) => {
    const vs = texts.map((t) => (t === null ? null : variantFromJson(t)));
    return new arrow.RecordBatch({ id: arrow.vectorFromArray(texts.map((_, i) => i), new arrow.Int32()).data[0]!, v: arrow.vectorFromArray(vs.map((v) => v && { value: v.value, metadata: v.metadata }), variantStruct).data[0]! });
  };
  /** A catalog in a new warehouse, with database `db`. */
  async function newCatalog(): Promise<{ warehouse: string; catalog: Catalog }> {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    return { warehouse, catalog };
  }
  async function writeTable(options: Record<string, string>, texts: Array<string | null>, fields = [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }]) {
    const { warehouse, catalog } = await newCatalog();
    const table = await catalog.createTable("db.t", { fields, options: { bucket: "-1", ...options } });
    const write = await table.newWrite({ commitUser: "u" });
    try {
      await write.write(batchOf(texts));
      await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    } finally {
      await write.close();
    }
    return { table, warehouse };
  }
  const SCHEMA = JSON.stringify({ type: "ROW", fields: [{ id: 0, name: "v", type: { type: "ROW", fields: [{ id: 0, name: "a", type: "INT" }, { id: 1, name: "b", type: { type: "ARRAY", element: "STRING" } }] } }] });
  const texts = ['{"a":1,"b":["x",2],"c":null}', null, '"s"', '{"a":1.5}', "[1]"];

  it("reads back as written; the file holds the typed columns", async () => {
    // (inference: objects only, else the mixed shapes infer to VARIANT: a metadata and a value column)
    const objects = ['{"a":1,"b":["x",2],"c":null}', null, '{"a":1.5}', '{"b":[]}'];
    const cases: Array<[Record<string, string>, Array<string | null>]> = [
      [{ "parquet.variant.shreddingSchema": SCHEMA }, texts],
      [{ "variant.inferShreddingSchema": "true" }, objects],
    ];
    for (const [options, texts] of cases) {
      const { table, warehouse } = await writeTable(options, texts);
      const splits = (await table.newScan().plan()).splits;
      const read = await table.newRead().toArrow(splits);
      expect(read.toArray().map((r) => (r.v ? variantToJson(r.v) : null))).toEqual(texts.map((t) => t && variantToJson(variantFromJson(t))));
      const file = splits[0]!.files[0]!.fileName;
      const footer = await readFooter(toByteSource(new Uint8Array(await fsp.readFile(`${warehouse}/db.db/t/bucket-0/${file}`)), file));
      expect(footer.columns.find((c) => c.name === "v")!.leafEnd - footer.columns.find((c) => c.name === "v")!.leafStart, JSON.stringify(options)).toBeGreaterThan(2);
    }
  });

  it("a sliced input batch writes its own rows (Arrow JS slices the offsets with the Data)", async () => {
    const sliceTexts = ['{"a":1}', '{"a":2,"b":["x"]}', '{"a":3}', null, '{"a":44,"b":["yy","z"]}', '{"a":5}'];
    for (const options of [{ "parquet.variant.shreddingSchema": SCHEMA }, { "variant.inferShreddingSchema": "true" }] as Array<Record<string, string>>) {
      const { catalog } = await newCatalog();
      const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }], options: { bucket: "-1", ...options } });
      const write = await table.newWrite({ commitUser: "u" });
      await write.write(batchOf(sliceTexts).slice(2));
      await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
      await write.close();
      const read = await table.newRead().toArrow((await table.newScan().plan()).splits);
      expect(read.toArray().map((r) => [r.id, r.v ? variantToJson(r.v) : null]), JSON.stringify(options)).toEqual([
        [2, '{"a":3}'],
        [3, null],
        [4, '{"a":44,"b":["yy","z"]}'],
        [5, '{"a":5}'],
      ]);
    }
  });

  it("columns after a shredded one keep their INT96 and NaN handling; a compaction shreds its output", async () => {
    const { warehouse, catalog } = await newCatalog();
    const table = await catalog.createTable("db.t", {
      fields: [
        { name: "id", type: "INT NOT NULL" },
        { name: "v", type: "VARIANT" },
        { name: "t", type: "TIMESTAMP(9)" },
        { name: "d", type: "DOUBLE" },
      ],
      primaryKeys: ["id"],
      options: { bucket: "1", "variant.inferShreddingSchema": "true" },
    });
    const docsOf = (k: number) => Array.from({ length: 6 }, (_, i) => `{"a":${i + k},"b":[${i}],"s":"x${k}"}`);
    const write = await table.newWrite({ commitUser: "u" });
    for (const k of [0, 10]) {
      const vs = docsOf(k).map(variantFromJson);
      await write.write(
        new arrow.RecordBatch({
          id: arrow.vectorFromArray([0, 1, 2, 3, 4, 5], new arrow.Int32()).data[0]!,
          v: arrow.vectorFromArray(vs.map((v) => ({ value: v.value, metadata: v.metadata })), variantStruct).data[0]!,
          t: arrow.makeData({ type: new arrow.TimestampNanosecond(), length: 6, nullCount: 0, data: BigInt64Array.from([0n, 1n, 2n, 3n, 4n, 5n], (n) => n * 1_000_000_001n + BigInt(k)) }),
          d: arrow.vectorFromArray([0.5, NaN, 2, 3, 4, 5].map((x) => x + k), new arrow.Float64()).data[0]!,
        }),
      );
      await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    }
    await write.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    await write.close();
    const splits = (await table.newScan().plan()).splits;
    expect(splits.flatMap((sp) => sp.files)).toHaveLength(1);
    const read = (await table.newRead().toArrow(splits)).toArray();
    // (Arrow JS gives timestamps in milliseconds: back to nanoseconds)
    expect(read.map((r) => [r.id, variantToJson(r.v), BigInt(Math.round(r.t * 1e6)), r.d])).toEqual(docsOf(10).map((doc, i) => [i, variantToJson(variantFromJson(doc)), BigInt(i) * 1_000_000_001n + 10n, i === 1 ? NaN : [0.5, NaN, 2, 3, 4, 5][i]! + 10]));
    const file = splits[0]!.files[0]!;
    const footer = await readFooter(toByteSource(new Uint8Array(await fsp.readFile(`${warehouse}/db.db/t/bucket-0/${file.fileName}`)), file.fileName));
    const v = footer.columns.find((c) => c.name === "v")!;
    expect(v.leafEnd - v.leafStart).toBeGreaterThan(2);
    // the footer bounds of the NaN column are dropped (parquet-mr would trust them), the key's kept
    const bounds = (column: string) => {
      const meta = columnMetaData(footer, 0, footer.columns.find((c) => c.name === column)!.leafStart)!;
      const stats = getStruct(meta, 12)!;
      return [getValue(stats, 5) !== undefined, getValue(stats, 6) !== undefined];
    };
    expect(bounds("d")).toEqual([false, false]);
    expect(bounds("_KEY_id")).toEqual([true, true]);
  });

  it("refuses malformed options naming them, writing nothing; ORC and tables without the options unchanged", async () => {
    const refusals: Array<[Record<string, string>, string, string, Array<{ name: string; type: string }>?]> = [
      [{ "parquet.variant.shreddingSchema": "{not json" }, "INVALID_ARGUMENT", "parquet.variant.shreddingSchema"],
      [{ "parquet.variant.shreddingSchema": '"INT"' }, "INVALID_ARGUMENT", "parquet.variant.shreddingSchema"],
      [{ "parquet.variant.shreddingSchema": JSON.stringify({ type: "ROW", fields: [{ id: 0, name: "v", type: "INT NOT NULL" }] }) }, "INVALID_ARGUMENT", "parquet.variant.shreddingSchema"],
      // Java parses the schema whenever it opens a Parquet writer, VARIANT column or not
      [{ "parquet.variant.shreddingSchema": "[]" }, "INVALID_ARGUMENT", "parquet.variant.shreddingSchema", [{ name: "id", type: "INT" }]],
      [{ "variant.inferShreddingSchema": "yes" }, "INVALID_ARGUMENT", "variant.inferShreddingSchema"],
      [{ "variant.inferShreddingSchema": "true", "variant.shredding.minFieldCardinalityRatio": "many" }, "INVALID_ARGUMENT", "variant.shredding.minFieldCardinalityRatio"],
      // Java's writer looks nested VARIANTs up among the schemas by name too
      [{ "variant.inferShreddingSchema": "true" }, "UNSUPPORTED", "nested VARIANT", [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }, { name: "r", type: "ROW<v VARIANT>" }]],
    ];
    for (const [options, code, named, fields] of refusals) {
      const { warehouse, catalog } = await newCatalog();
      const tableFields = fields ?? [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }];
      const table = await catalog.createTable("db.t", { fields: tableFields, options: { bucket: "-1", ...options } });
      const write = await table.newWrite({ commitUser: "u" });
      const batch = batchOf(['{"a":1}']);
      const input = new arrow.RecordBatch(Object.fromEntries(tableFields.map((f) => [f.name, f.name === "r" ? arrow.vectorFromArray([null], new arrow.Struct([new arrow.Field("v", batch.getChild("v")!.type, true)])).data[0]! : batch.getChild(f.name as "id" | "v")!.data[0]!])));
      await expect(
        (async () => {
          await write.write(input);
          await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
        })(),
        JSON.stringify(options),
      ).rejects.toMatchObject({ code, message: expect.stringContaining(named) });
      await write.close().catch(() => undefined);
      expect((await table.newScan().plan()).splits).toEqual([]);
      expect((await fsp.readdir(`${warehouse}/db.db/t`)).filter((d) => d.startsWith("bucket-"))).toEqual([]);
    }
    // ORC: VARIANT refused as before, the shredding options do not change that
    const orc = writeTable({ "file.format": "orc", "variant.inferShreddingSchema": "true" }, ['{"a":1}']);
    await expect(orc).rejects.toMatchObject({ code: "UNSUPPORTED" });
    // the CoreOptions key alone: Java's Parquet writer never sees it, and it turns inference off
    const { table, warehouse } = await writeTable({ "variant.shreddingSchema": SCHEMA, "variant.inferShreddingSchema": "true" }, texts);
    const file = (await table.newScan().plan()).splits[0]!.files[0]!.fileName;
    const footer = await readFooter(toByteSource(new Uint8Array(await fsp.readFile(`${warehouse}/db.db/t/bucket-0/${file}`)), file));
    const v = footer.columns.find((c) => c.name === "v")!;
    expect(v.leafEnd - v.leafStart).toBe(2);
  });
});
