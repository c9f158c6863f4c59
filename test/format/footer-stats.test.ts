import fc from "fast-check";
import { parquetMetadata } from "hyparquet";
import { describe, expect, it } from "vitest";
import {
  ColumnStatsCollector,
  ParquetFileWriter,
  arrayElementFieldId,
  mapKeyFieldId,
  mapValueFieldId,
  parseStatsMode,
  readParquet,
  readParquetFooter,
  readParquetStatistics,
  statisticsForFields,
  truncateMax,
  truncateMin,
  writeParquet,
} from "../../src/format/index.js";
import { type TStruct, getList, getNumber, getStruct } from "../../src/format/thrift.js";
import { DataTypes as T, notNull, type DataField } from "../../src/spec/types.js";
import { batch, column } from "./helpers.js";

const F = T.FIELD;

describe("Parquet footer layout (what Java Paimon writes)", () => {
  const fields: DataField[] = [
    F(0, "id", notNull(T.BIGINT())),
    F(1, "ti", T.TINYINT()),
    F(2, "si", T.SMALLINT()),
    F(3, "s", T.STRING()),
    F(4, "bin", T.BYTES()),
    F(5, "d9", T.DECIMAL(9, 2)),
    F(6, "d18", T.DECIMAL(18, 2)),
    F(7, "d38", T.DECIMAL(38, 2)),
    F(8, "date", T.DATE()),
    F(9, "time", T.TIME()),
    F(10, "ts3", T.TIMESTAMP(3)),
    F(11, "ts6", T.TIMESTAMP(6)),
    F(12, "ltz3", T.TIMESTAMP_LTZ(3)),
    F(13, "ltz6", T.TIMESTAMP_LTZ(6)),
    F(14, "arr", T.ARRAY(T.INT())),
    F(15, "m", T.MAP(T.STRING(), T.DOUBLE())),
    F(16, "r", T.ROW([F(20, "x", T.INT()), F(21, "y", T.ARRAY(T.STRING()))])),
  ];
  const rows = Object.fromEntries(fields.map((f) => [f.name, [null]])) as Record<string, unknown[]>;
  rows.id = [1n];

  it("has field ids on every field, Paimon's physical/logical types and zstd", async () => {
    const r = await writeParquet(fields, batch(fields, rows));
    const md = parquetMetadata(r.bytes);
    const byName = new Map(md.schema.map((e) => [e.name, e]));
    const el = (n: string) => byName.get(n)!;
    for (const f of fields) expect(el(f.name).field_id, f.name).toBe(f.id);
    expect(el("id").repetition_type).toBe("REQUIRED");
    expect(el("s").repetition_type).toBe("OPTIONAL");
    expect(el("ti")).toMatchObject({ type: "INT32", logical_type: { type: "INTEGER", bitWidth: 8, isSigned: true } });
    expect(el("si")).toMatchObject({ type: "INT32", logical_type: { type: "INTEGER", bitWidth: 16, isSigned: true } });
    expect(el("s")).toMatchObject({ type: "BYTE_ARRAY", logical_type: { type: "STRING" } });
    expect(el("bin").type).toBe("BYTE_ARRAY");
    expect(el("bin").logical_type).toBeUndefined();
    expect(el("d9")).toMatchObject({ type: "INT32", precision: 9, scale: 2 });
    expect(el("d18")).toMatchObject({ type: "INT64", precision: 18, scale: 2 });
    expect(el("d38")).toMatchObject({ type: "FIXED_LEN_BYTE_ARRAY", type_length: 16, precision: 38 });
    expect(el("date")).toMatchObject({ type: "INT32", converted_type: "DATE" });
    expect(el("time")).toMatchObject({ type: "INT32", logical_type: { type: "TIME", isAdjustedToUTC: true, unit: "MILLIS" } });
    expect(el("ts3")).toMatchObject({ type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: false, unit: "MILLIS" } });
    expect(el("ts6")).toMatchObject({ type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: false, unit: "MICROS" } });
    expect(el("ltz3")).toMatchObject({ logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } });
    expect(el("ltz6")).toMatchObject({ logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" } });
    // Nested: 3-level LIST with element id, MAP key_value with key/value ids, ROW children ids.
    const names = md.schema.map((e) => e.name);
    const arrIdx = names.indexOf("arr");
    expect(md.schema[arrIdx]!.logical_type).toMatchObject({ type: "LIST" });
    expect(md.schema[arrIdx + 1]).toMatchObject({ name: "list", repetition_type: "REPEATED" });
    expect(md.schema[arrIdx + 2]).toMatchObject({ name: "element", field_id: arrayElementFieldId(14, 1) });
    const mIdx = names.indexOf("m");
    expect(md.schema[mIdx]!.logical_type).toMatchObject({ type: "MAP" });
    expect(md.schema[mIdx + 1]).toMatchObject({ name: "key_value", repetition_type: "REPEATED" });
    expect(md.schema[mIdx + 2]).toMatchObject({ name: "key", repetition_type: "REQUIRED", field_id: mapKeyFieldId(15, 1) });
    expect(md.schema[mIdx + 3]).toMatchObject({ name: "value", repetition_type: "OPTIONAL", field_id: mapValueFieldId(15, 1) });
    expect(el("x").field_id).toBe(20);
    expect(el("y").field_id).toBe(21);
    expect(arrayElementFieldId(14, 1)).toBe(536870911 + 14 * 1024 + 1);
    for (const rg of md.row_groups) for (const c of rg.columns) expect(c.meta_data!.codec).toBe("ZSTD");
  });

  it("honours the compression option", async () => {
    const r = await writeParquet(fields.slice(0, 4), batch(fields.slice(0, 4), rows), { compression: "snappy" });
    for (const c of parquetMetadata(r.bytes).row_groups[0]!.columns) expect(c.meta_data!.codec).toBe("SNAPPY");
    const n = await writeParquet(fields.slice(0, 4), batch(fields.slice(0, 4), rows), { compression: "none" });
    for (const c of parquetMetadata(n.bytes).row_groups[0]!.columns) expect(c.meta_data!.codec).toBe("UNCOMPRESSED");
  });
});

describe("write statistics", () => {
  it("exact min/max/nullCount per column (Paimon representations)", async () => {
    const fields: DataField[] = [
      F(0, "b", T.BOOLEAN()),
      F(1, "i", T.INT()),
      F(2, "bi", T.BIGINT()),
      F(3, "f", T.FLOAT()),
      F(4, "d", T.DOUBLE()),
      F(5, "s", T.STRING()),
      F(6, "dec", T.DECIMAL(20, 2)),
      F(7, "dec9", T.DECIMAL(9, 3)),
      F(8, "ts3", T.TIMESTAMP(3)),
      F(9, "ts6", T.TIMESTAMP_LTZ(6)),
      F(10, "ts9", T.TIMESTAMP(9)),
      F(11, "date", T.DATE()),
      F(12, "bin", T.BYTES()),
      F(13, "arr", T.ARRAY(T.INT())),
      F(14, "allnull", T.INT()),
      F(15, "nan", T.DOUBLE()),
      F(16, "zero", T.DOUBLE()),
    ];
    const rows: Record<string, unknown[]> = {
      b: [true, null, true],
      i: [5, -7, null],
      bi: [-(2n ** 63n), null, 2n ** 63n - 1n],
      f: [1.25, -2.5, null],
      d: [Infinity, -1e300, null],
      s: ["b", "a\u{1F600}", null],
      dec: [-(10n ** 19n), 12345n, null],
      dec9: [null, 7n, -3n],
      ts3: [-1n, 1700000000123n, null],
      ts6: [-1n, 1700000000123456n, null],
      ts9: [-1n, 1700000000123456789n, null],
      date: [-25567, 0, null],
      bin: [new Uint8Array([1]), null, new Uint8Array([0])],
      arr: [[1], null, []],
      allnull: [null, null, null],
      nan: [1, Number.NaN, 2],
      zero: [0, 1, -0],
    };
    const r = await writeParquet(fields, batch(fields, rows));
    const s = Object.fromEntries(r.stats.map((x) => [x.name, { min: x.min, max: x.max, nullCount: x.nullCount }]));
    expect(s.b).toEqual({ min: true, max: true, nullCount: 1 });
    expect(s.i).toEqual({ min: -7, max: 5, nullCount: 1 });
    expect(s.bi).toEqual({ min: -(2n ** 63n), max: 2n ** 63n - 1n, nullCount: 1 });
    expect(s.f).toEqual({ min: -2.5, max: 1.25, nullCount: 1 });
    expect(s.d).toEqual({ min: -1e300, max: Infinity, nullCount: 1 });
    expect(s.s).toEqual({ min: "a\u{1F600}", max: "b", nullCount: 1 });
    expect(s.dec).toEqual({ min: -(10n ** 19n), max: 12345n, nullCount: 1 });
    expect(s.dec9).toEqual({ min: -3n, max: 7n, nullCount: 1 });
    expect(s.ts3).toEqual({ min: { millis: -1n, nanoOfMillisecond: 0 }, max: { millis: 1700000000123n, nanoOfMillisecond: 0 }, nullCount: 1 });
    expect(s.ts6).toEqual({ min: { millis: -1n, nanoOfMillisecond: 999000 }, max: { millis: 1700000000123n, nanoOfMillisecond: 456000 }, nullCount: 1 });
    expect(s.ts9).toEqual({ min: { millis: -1n, nanoOfMillisecond: 999999 }, max: { millis: 1700000000123n, nanoOfMillisecond: 456789 }, nullCount: 1 });
    expect(s.date).toEqual({ min: -25567, max: 0, nullCount: 1 });
    expect(s.bin).toEqual({ min: null, max: null, nullCount: 1 });
    expect(s.arr).toEqual({ min: null, max: null, nullCount: 1 });
    expect(s.allnull).toEqual({ min: null, max: null, nullCount: 3 });
    expect(s.nan).toEqual({ min: null, max: null, nullCount: 0 });
    expect(Object.is(s.zero!.min, -0) && Object.is(s.zero!.max, 1)).toBe(true);
    expect(r.stats.map((x) => x.fieldId)).toEqual(fields.map((f) => f.id));

    // Footer statistics agree with the computed ones for primitive columns.
    const footer = await readParquetFooter(r.bytes);
    const fst = await readParquetStatistics(r.bytes);
    const aligned = statisticsForFields(footer, fst, fields);
    for (const name of ["i", "bi", "f", "d", "s", "dec", "dec9", "ts3", "ts6", "date"]) {
      const idx = fields.findIndex((f) => f.name === name);
      expect(aligned[idx], name).toEqual(s[name]);
    }
    // TIMESTAMP(9) is INT96 in the file, whose footer bounds no reader trusts (undefined sort
    // order): only the null count, as Java's ParquetSimpleStatsExtractor reports it.
    expect(aligned[fields.findIndex((f) => f.name === "ts9")]).toEqual({ min: null, max: null, nullCount: 1 });
    expect(aligned[fields.findIndex((f) => f.name === "allnull")]).toEqual({ min: null, max: null, nullCount: 3 });
    expect(fst.numRows).toBe(3);
  });

  it("truncate(16) string semantics", async () => {
    const fields = [F(0, "s", T.STRING())];
    const long1 = "abcdefghijklmnopqrstuvwxyz";
    const r = await writeParquet(fields, batch(fields, { s: [long1, "aaa", "zzzzzzzzzzzzzzzzzzzz"] }));
    expect(r.stats[0]).toMatchObject({ min: "aaa", max: "zzzzzzzzzzzzzzz{" });
    const full = await writeParquet(fields, batch(fields, { s: [long1, "b"] }), { statsMode: "full" });
    expect(full.stats[0]).toMatchObject({ min: long1, max: "b" });
    const counts = await writeParquet(fields, batch(fields, { s: [long1, null] }), { statsMode: "counts" });
    expect(counts.stats[0]).toMatchObject({ min: null, max: null, nullCount: 1 });
    const none = await writeParquet(fields, batch(fields, { s: [long1, null] }), { fieldStatsModes: { s: "none" } });
    expect(none.stats[0]).toMatchObject({ min: null, max: null, nullCount: null });
    const t5 = await writeParquet(fields, batch(fields, { s: [long1, "abc"] }), { statsMode: "truncate(5)" });
    expect(t5.stats[0]).toMatchObject({ min: "abc", max: "abcdf" });

    expect(truncateMin("日本語テキストです", 3)).toBe("日本語");
    expect(truncateMax("𝄞𝄞𝄞𝄞", 2)).toBe("𝄞\u{1D11F}");
    expect(truncateMax("ab", 2)).toBe("ab");
    // Cannot increment U+10FFFF: falls back to an earlier code point, or null.
    expect(truncateMax("a\u{10FFFF}\u{10FFFF}x", 3)).toBe("b");
    expect(truncateMax("\u{10FFFF}\u{10FFFF}x", 2)).toBeNull();
    expect(truncateMax("a\uD7FFx", 2)).toBe("a\uE000");
    const nobound = await writeParquet(fields, batch(fields, { s: ["\u{10FFFF}".repeat(17), "a"] }));
    expect(nobound.stats[0]).toMatchObject({ min: null, max: null, nullCount: 0 });
    expect(() => parseStatsMode("truncate(0)")).toThrow();
  });

  it("collector merges chunks and handles sliced data", () => {
    const c = new ColumnStatsCollector(T.BIGINT());
    const d = column(T.BIGINT(), [5n, null, -3n, 99n, 7n]);
    c.update(d.slice(2, 2)); // -3, 99
    c.update(d.slice(0, 2)); // 5, null
    expect(c.result({ kind: "full" })).toEqual({ min: -3n, max: 99n, nullCount: 1 });
    const s = new ColumnStatsCollector(T.STRING());
    const sd = column(T.STRING(), ["m", null, "a", "z"]);
    s.update(sd.slice(1, 2));
    expect(s.result()).toEqual({ min: "a", max: "a", nullCount: 1 });
  });
});

describe("string statistics over random chunks", () => {
  it("min/max equal the byte-order extremes (shared prefixes, prefixes of each other, nulls, slices)", () => {
    const value = fc.tuple(fc.constantFrom("", "key-", "key-0000", "ab", "\u00e9"), fc.string({ maxLength: 10 })).map(([p, s]) => p + s);
    fc.assert(
      fc.property(fc.array(fc.array(fc.option(value, { nil: null }), { maxLength: 30 }), { minLength: 1, maxLength: 4 }), fc.nat(), (chunks, cut) => {
        const c = new ColumnStatsCollector(T.STRING());
        const seen: Uint8Array[] = [];
        let nulls = 0;
        for (const values of chunks) {
          const d = column(T.STRING(), values);
          const start = values.length === 0 ? 0 : cut % values.length;
          c.update(d.slice(start, values.length - start));
          for (const v of values.slice(start)) {
            if (v === null) nulls++;
            else seen.push(new TextEncoder().encode(v));
          }
        }
        seen.sort((a, b) => Buffer.compare(a, b));
        const decode = (b: Uint8Array | undefined) => (b === undefined ? null : new TextDecoder("utf-8", { ignoreBOM: true }).decode(b));
        expect(c.result({ kind: "full" })).toEqual({ min: decode(seen[0]), max: decode(seen[seen.length - 1]), nullCount: nulls });
      }),
      { numRuns: 400 },
    );
  });
});

describe("footer bounds of floating-point chunks holding NaN (issue 9 item 4)", () => {
  /** Raw thrift Statistics of every column chunk of row group `rg`, keyed by leaf path. */
  async function rawChunkStatistics(bytes: Uint8Array, rg = 0): Promise<Record<string, { fields: number[]; nullCount: number | undefined }>> {
    const footer = await readParquetFooter(bytes);
    const stats = await readParquetStatistics(bytes);
    const group = (getList(footer.raw, 4) as TStruct[])[rg]!;
    const chunks = getList(group, 1) as TStruct[];
    return Object.fromEntries(
      stats.rowGroups[rg]!.columns.map((c, i) => {
        const st = getStruct(getStruct(chunks[i]!, 3)!, 12);
        return [c.path, { fields: (st?.fields ?? []).map((f) => f.id).sort((a, b) => a - b), nullCount: st ? getNumber(st, 3) : undefined }];
      }),
    );
  }

  const fields: DataField[] = [
    F(0, "d_nan", T.DOUBLE()),
    F(1, "f_nan", T.FLOAT()),
    F(2, "d_plain", T.DOUBLE()),
    F(3, "arr_nan", T.ARRAY(T.DOUBLE())),
    F(4, "m", T.MAP(T.STRING(), T.FLOAT())),
    F(5, "r", T.ROW([F(20, "x", T.DOUBLE()), F(21, "y", T.DOUBLE())])),
  ];
  const rows = {
    d_nan: [1, Number.NaN, Infinity, null],
    f_nan: [Number.NaN, 2, null, -1],
    d_plain: [1, -0, Infinity, null],
    arr_nan: [[1, Number.NaN], [], null, [2]],
    m: [new Map([["a", 1]]), new Map([["b", Number.NaN]]), null, new Map()],
    r: [{ x: 1, y: Number.NaN }, { x: 2, y: 3 }, null, { x: null, y: 1 }],
  };

  it("drops min/max (current and deprecated) of every FLOAT/DOUBLE leaf with a NaN, keeps null counts and other bounds", async () => {
    const r = await writeParquet(fields, batch(fields, rows));
    const raw = await rawChunkStatistics(r.bytes);
    // 3 = null_count only; 1/2/5/6 are max/min (deprecated and current).
    expect(raw["d_nan"]).toEqual({ fields: [3], nullCount: 1 });
    expect(raw["f_nan"]).toEqual({ fields: [3], nullCount: 1 });
    expect(raw["arr_nan.list.element"]!.fields).toEqual([3]);
    expect(raw["m.key_value.value"]!.fields).toEqual([3]);
    expect(raw["r.y"]!.fields).toEqual([3]);
    // Leaves without NaN keep their bounds.
    for (const p of ["d_plain", "m.key_value.key", "r.x"]) expect(raw[p]!.fields, p).toEqual(expect.arrayContaining([3, 5, 6]));
    const fst = await readParquetStatistics(r.bytes);
    const byPath = Object.fromEntries(fst.columns.map((c) => [c.path, c]));
    expect(byPath["d_nan"]).toMatchObject({ min: null, max: null, nullCount: 1 });
    expect(byPath["d_plain"]).toMatchObject({ min: -0, max: Infinity, nullCount: 1 });
    expect(byPath["r.x"]).toMatchObject({ min: 1, max: 2 });
    // DataFileMeta statistics (what Java's ParquetSimpleStatsExtractor reports for a NaN chunk): no bounds.
    const s = Object.fromEntries(r.stats.map((x) => [x.name, x]));
    expect(s.d_nan).toMatchObject({ min: null, max: null, nullCount: 1 });
    expect(s.f_nan).toMatchObject({ min: null, max: null, nullCount: 1 });
    expect(s.d_plain).toMatchObject({ min: -0, max: Infinity, nullCount: 1 });
    // The data is unchanged by the footer rewrite.
    const back = await readParquet(r.bytes);
    expect(Array.from(back.getChild("d_nan")!.toArray() as Float64Array).slice(0, 3)).toEqual([1, Number.NaN, Infinity]);
    expect(back.getChild("r")!.get(0)!.toJSON()).toEqual({ x: 1, y: Number.NaN });
  });

  it("a NaN in one batch of a file drops the bounds of every row group of that column", async () => {
    const one = [F(0, "d", T.DOUBLE())];
    const w = new ParquetFileWriter(one, { rowGroupRows: 2 });
    w.write(batch(one, { d: [1, 2] }));
    w.write(batch(one, { d: [3, Number.NaN] }));
    const r = await w.finish();
    const fst = await readParquetStatistics(r.bytes);
    expect(fst.rowGroups.length).toBe(2);
    expect((await rawChunkStatistics(r.bytes, 0))["d"]!.fields).toEqual([3]);
    expect((await rawChunkStatistics(r.bytes, 1))["d"]!.fields).toEqual([3]);
  });

  it("a sliced batch whose visible part has no NaN keeps its bounds", async () => {
    const one = [F(0, "d", T.DOUBLE())];
    const full = batch(one, { d: [Number.NaN, 5, 7] });
    const r = await writeParquet(one, full.slice(1, 3));
    expect((await readParquetStatistics(r.bytes)).columns[0]).toMatchObject({ min: 5, max: 7, nullCount: 0 });
  });
});
