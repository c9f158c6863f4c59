// The flat-column Parquet encoder (src/format/parquet-encode.ts): random tables of every type in
// its scope, with nulls, split into several input batches, written with each codec it writes and
// small and large pages and row groups, decode to exactly the input by parquet-wasm and by
// hyparquet (an independent reader), carry page checksums that verify, and have the same footer
// statistics as the same rows written by parquet-wasm (parquet-rs).
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { decompress as zstdDecompress } from "fzstd";
import { parquetMetadata, parquetReadObjects, readOffsetIndex } from "hyparquet";
import { afterEach, describe, expect, it } from "vitest";
import { readParquet, readParquetStatistics, writeParquet } from "../../src/format/index.js";
import { setFlatDecoding } from "../../src/format/parquet-reader.js";
import { verifyChunkChecksums } from "../../src/format/parquet-pages.js";
import { type DataField, DataTypes as T, notNull } from "../../src/spec/types.js";
import { batch, FLAT_FIELDS, footerOf, pagesOf, tableColumn } from "./helpers.js";
import { getBytes, getList, getNumber, getStruct, parseStruct, type TStruct } from "../../src/format/thrift.js";

const F = T.FIELD;
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

const FIELDS: readonly DataField[] = [...FLAT_FIELDS, F(13, "nd", notNull(T.DOUBLE()))];

const value: Record<string, fc.Arbitrary<unknown>> = {
  b: fc.boolean(),
  i: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31))),
  l: fc.oneof(int64, fc.constantFrom(0n, -1n)),
  f: fc.oneof(fc.float({ noNaN: true }), fc.constantFrom(0, -0, 1.5)),
  d: fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -0, 0.25)),
  // at most 14 code points (<= 56 bytes): bounds below parquet-rs's 64-byte truncation
  s: fc.string({ unit: "binary", maxLength: 14 }),
  y: fc.uint8Array({ maxLength: 50 }),
  dt: fc.integer({ min: -700_000, max: 2_900_000 }),
  ts3: fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }),
  ts6: fc.bigInt({ min: -(2n ** 58n), max: 2n ** 58n }),
  ltz: fc.bigInt({ min: -(2n ** 58n), max: 2n ** 58n }),
  nn: int64,
  ns: fc.string({ unit: "grapheme-ascii", maxLength: 10 }),
  nd: fc.double({ noNaN: true }),
};

/** Columns of n rows; nullable columns take nulls at `nullRate` percent (0: none, 100: all). */
const tableArb = fc.record({ n: fc.integer({ min: 1, max: 600 }), nullRate: fc.constantFrom(0, 10, 60, 100) }).chain(({ n, nullRate }) =>
  fc.record(
    Object.fromEntries(
      FIELDS.map((f) => {
        const v = value[f.name]!;
        const cell = f.type.nullable && nullRate > 0 ? (nullRate === 100 ? fc.constant(null) : fc.oneof({ weight: nullRate, arbitrary: fc.constant(null) }, { weight: 100 - nullRate, arbitrary: v })) : v;
        return [f.name, fc.array(cell, { minLength: n, maxLength: n })];
      }),
    ) as Record<string, fc.Arbitrary<unknown[]>>,
  ),
);

const optionsArb = fc.record({
  compression: fc.constantFrom("none", "snappy", "zstd"),
  pageSize: fc.constantFrom(64, 700, 1 << 20),
  rowGroupRows: fc.constantFrom(13, 150, 100_000),
  cuts: fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 3 }),
});

/** `cols` as record batches cut at `cuts` (input to the writer in several batches). */
function batches(fields: readonly DataField[], cols: Record<string, unknown[]>, cuts: readonly number[]): arrow.RecordBatch[] {
  const n = cols[fields[0]!.name]!.length;
  const at = [...new Set([0, ...cuts.filter((c) => c > 0 && c < n), n])].sort((a, b) => a - b);
  const out: arrow.RecordBatch[] = [];
  for (let k = 0; k + 1 < at.length; k++) out.push(batch(fields, Object.fromEntries(Object.entries(cols).map(([name, v]) => [name, v.slice(at[k], at[k + 1])]))));
  return out;
}

/** The JS value hyparquet gives for `v` (as `column` takes it) of field `f`, read with the parsers below. */
function hyparquetValue(f: DataField, v: unknown): unknown {
  if (v === null) return null;
  if (f.type.kind === "FLOAT") return Math.fround(v as number);
  return v;
}
const parsers = { timestampFromMilliseconds: (x: bigint) => x, timestampFromMicroseconds: (x: bigint) => x, dateFromDays: (x: number) => x };
const compressors = { ZSTD: (input: Uint8Array) => zstdDecompress(input) };

async function readByHyparquet(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file, parsers, compressors, utf8: false })) as Record<string, unknown>[];
}

afterEach(() => setFlatDecoding(true));

describe("flat-column Parquet encoder", () => {
  it("randomized: every type in scope, nulls, codecs, page and row-group sizes and input batches read back exactly by parquet-wasm and hyparquet, with parquet-rs's statistics", async () => {
    await fc.assert(
      fc.asyncProperty(tableArb, optionsArb, async (cols, { cuts, ...options }) => {
        const input = batches(FIELDS, cols, cuts);
        const written = await writeParquet(FIELDS, input, { ...options, dictionary: false });
        // written by the flat encoder (parquet-rs names itself in created_by)
        const footer = footerOf(written.bytes);
        expect(new TextDecoder().decode(getBytes(footer, 6))).toBe("paimon-rt version 0.1.0");
        expect(getNumber(footer, 3)).toBe(cols.b!.length);

        // parquet-wasm
        setFlatDecoding(false);
        const wasm = await readParquet(written.bytes, { fields: FIELDS });
        for (const f of FIELDS) expect(tableColumn(wasm, f.name, f.type), f.name).toEqual(cols[f.name]);
        // the flat decoder
        setFlatDecoding(true);
        const flat = await readParquet(written.bytes, { fields: FIELDS });
        for (const f of FIELDS) expect(tableColumn(flat, f.name, f.type), f.name).toEqual(cols[f.name]);

        // hyparquet
        const rows = await readByHyparquet(written.bytes);
        expect(rows.length).toBe(cols.b!.length);
        for (const f of FIELDS) {
          expect(rows.map((r) => r[f.name]), f.name).toEqual(cols[f.name]!.map((v) => hyparquetValue(f, v)));
        }

        // every page checksum verifies
        for (const page of pagesOf(written.bytes)) expect(getNumber(page.header, 4), "crc").toBeDefined();
        const meta = parquetMetadata(written.bytes.buffer.slice(written.bytes.byteOffset, written.bytes.byteOffset + written.bytes.byteLength) as ArrayBuffer);
        for (const rg of meta.row_groups) {
          for (const cc of rg.columns) {
            const md = cc.meta_data!;
            const start = Number(md.data_page_offset);
            verifyChunkChecksums(written.bytes.subarray(start, start + Number(md.total_compressed_size)), "t.parquet", md.path_in_schema.join("."));
            // offset index: one location per page, first rows ascending from 0
            const oi = readOffsetIndex({ view: new DataView(written.bytes.buffer, written.bytes.byteOffset + Number(cc.offset_index_offset), cc.offset_index_length!), offset: 0 });
            expect(Number(oi.page_locations[0]!.offset)).toBe(start);
            expect(Number(oi.page_locations[0]!.first_row_index)).toBe(0);
          }
        }

        // the same footer statistics as parquet-rs writes for the same rows
        const reference = await writeParquet(FIELDS, input, { ...options, dictionary: false, flatEncoder: false });
        expect(await readParquetStatistics(written.bytes)).toEqual(await readParquetStatistics(reference.bytes));
        expect(written.stats).toEqual(reference.stats);
      }),
      { numRuns: 60 },
    );
  }, 300_000);

  it("column indexes hold each page's bounds and null count, and are left out where a bound is NaN or longer than 64 bytes", async () => {
    const fields = [F(0, "l", T.BIGINT()), F(1, "s", T.STRING()), F(2, "d", T.DOUBLE())];
    const n = 50_000;
    const l = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : BigInt(i)));
    const long = Array.from({ length: n }, (_, i) => (i === 30_000 ? "x".repeat(100) : `k${i}`));
    const d = Array.from({ length: n }, (_, i) => (i === 5 ? Number.NaN : i / 2));
    const written = await writeParquet(fields, batch(fields, { l, s: long, d }), { compression: "zstd", dictionary: false });
    const bytes = written.bytes;
    const footer = footerOf(bytes);
    const chunks = getList(getList(footer, 4)![0] as TStruct, 1) as TStruct[];
    // BIGINT: pages of 20,000 rows, ascending bounds, nulls per page
    const cc = chunks[0]!;
    const ci = parseStruct(bytes, getNumber(cc, 6)!, getNumber(cc, 6)! + getNumber(cc, 7)!).value;
    const int64s = (id: number) => (getList(ci, id) as Uint8Array[]).map((b) => new DataView(b.buffer, b.byteOffset).getBigInt64(0, true));
    expect(getList(ci, 1)).toEqual([false, false, false]); // null_pages
    expect(int64s(2)).toEqual([1n, 20000n, 40000n]); // rows 0 and 19999 are null (multiples of 7)
    expect(int64s(3)).toEqual([19998n, 39999n, 49999n]);
    expect(getNumber(ci, 4)).toBe(1); // ASCENDING
    expect(getList(ci, 5)).toEqual([2858n, 2857n, 1428n]);
    // the long string and the NaN leave their chunks without bounds and column index
    for (const c of [chunks[1]!, chunks[2]!]) {
      expect(getNumber(c, 6)).toBeUndefined();
      const st = getStruct(getStruct(c, 3)!, 12)!;
      expect(st.fields.map((x) => x.id)).toEqual([3]);
    }
    const back = await readParquet(bytes, { fields });
    expect(tableColumn(back, "l", fields[0]!.type)).toEqual(l);
    expect(tableColumn(back, "s", fields[1]!.type)).toEqual(long);
    expect(tableColumn(back, "d", fields[2]!.type)).toEqual(d);
  });

  it("files out of its scope are written by parquet-wasm: a column keeping its dictionary, INT96, nested, gzip", async () => {
    const created = async (fields: DataField[], cols: Record<string, unknown[]>, options: object): Promise<string> =>
      new TextDecoder().decode(getBytes(footerOf((await writeParquet(fields, batch(fields, cols), options)).bytes), 6));
    const s = [F(0, "s", T.STRING())];
    expect(await created(s, { s: ["a", "b", "a"] }, {})).toMatch(/^parquet-rs/); // dictionary kept
    expect(await created(s, { s: ["a", "b", "a"] }, { dictionary: false })).toBe("paimon-rt version 0.1.0");
    expect(await created(s, { s: ["a", "b", "a"] }, { dictionary: false, compression: "gzip" })).toMatch(/^parquet-rs/);
    expect(await created([F(0, "t", T.TIMESTAMP(9))], { t: [1n] }, { dictionary: false })).toMatch(/^parquet-rs/);
    expect(await created([F(0, "a", T.ARRAY(T.INT()))], { a: [[1]] }, { dictionary: false })).toMatch(/^parquet-rs/);
    expect(await created([F(0, "t", T.TINYINT())], { t: [1] }, { dictionary: false })).toMatch(/^parquet-rs/);
  });
});
