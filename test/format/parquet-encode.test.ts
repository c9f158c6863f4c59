// The flat-column Parquet encoder (src/format/parquet-encode.ts): random tables of every type in
// its scope, with nulls, split into several input batches, written with each codec it writes and
// small and large pages and row groups, decode to exactly the input by parquet-wasm and by
// hyparquet (an independent reader), carry page checksums that verify, and have the same footer
// statistics as the same rows written by parquet-wasm (parquet-rs) — PLAIN, or dictionary-encoded
// (low-cardinality columns with runs, and chunks whose dictionary passes 1 MiB written PLAIN).
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { decompress as zstdDecompress } from "fzstd";
import { parquetMetadata, parquetReadObjects, readOffsetIndex } from "hyparquet";
import { afterEach, describe, expect, it } from "vitest";
import { ParquetFileWriter, readParquet, readParquetStatistics, writeParquet } from "../../src/format/index.js";
import { setFlatDecoding } from "../../src/format/parquet-reader.js";
import { verifyChunkChecksums } from "../../src/format/parquet-pages.js";
import { type DataField, DataTypes as T, notNull } from "../../src/spec/types.js";
import { batch, FLAT_FIELDS, footerOf, pagesOf, tableColumn, workerTable } from "./helpers.js";
import { pageWorker } from "../../src/format/page-worker.js";
import { encodeFlatParquet, flatCompressor } from "../../src/format/parquet-encode.js";
import { parquetArrowSchema } from "../../src/format/arrow-types.js";
import { recordBatch } from "../../src/arrow/record-batch.js";
import { PaimonError } from "../../src/error.js";
import { getBytes, getList, getNumber, getStruct, parseStruct, type TStruct } from "../../src/format/thrift.js";

const F = T.FIELD;
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

const FIELDS: readonly DataField[] = [...FLAT_FIELDS, F(13, "nd", notNull(T.DOUBLE())), F(14, "ti", T.TINYINT()), F(15, "si", T.SMALLINT())];

const value: Record<string, fc.Arbitrary<unknown>> = {
  b: fc.boolean(),
  i: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31))),
  l: fc.oneof(int64, fc.constantFrom(0n, -1n)),
  f: fc.oneof(fc.float({ noNaN: true }), fc.constantFrom(0, -0, 1.5)),
  d: fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -0, 0.25)),
  // at most 14 code points (<= 56 bytes): bounds below parquet-rs's 64-byte truncation
  // (a leading U+FEFF is data: decoders must not drop it as a byte-order mark)
  s: fc.oneof(fc.string({ unit: "binary", maxLength: 14 }), fc.constantFrom("\uFEFF", "\uFEFFx", "x\uFEFF")),
  y: fc.uint8Array({ maxLength: 50 }),
  dt: fc.integer({ min: -700_000, max: 2_900_000 }),
  ts3: fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }),
  ts6: fc.bigInt({ min: -(2n ** 58n), max: 2n ** 58n }),
  ltz: fc.bigInt({ min: -(2n ** 58n), max: 2n ** 58n }),
  nn: int64,
  ns: fc.string({ unit: "grapheme-ascii", maxLength: 10 }),
  nd: fc.double({ noNaN: true }),
  ti: fc.integer({ min: -128, max: 127 }),
  si: fc.integer({ min: -32768, max: 32767 }),
};

/**
 * Columns of n rows; nullable columns take nulls at `nullRate` percent (0: none, 100: all). With
 * a `pool`, each column's values come from `pool` values drawn first (low cardinality), in random
 * order or in runs of up to 40 equal values (RLE runs of dictionary indices).
 */
const tableArb = fc.record({ n: fc.integer({ min: 1, max: 600 }), nullRate: fc.constantFrom(0, 10, 60, 100), pool: fc.constantFrom(0, 1, 3, 40) }).chain(({ n, nullRate, pool }) =>
  fc.record(
    Object.fromEntries(
      FIELDS.map((f) => {
        const withNulls = (v: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
          f.type.nullable && nullRate > 0 ? (nullRate === 100 ? fc.constant(null) : fc.oneof({ weight: nullRate, arbitrary: fc.constant(null) }, { weight: 100 - nullRate, arbitrary: v })) : v;
        const v = value[f.name]!;
        if (pool === 0) return [f.name, fc.array(withNulls(v), { minLength: n, maxLength: n })];
        const column = fc.array(v, { minLength: pool, maxLength: pool }).chain((vals) =>
          fc.oneof(
            fc.array(withNulls(fc.constantFrom(...vals)), { minLength: n, maxLength: n }),
            fc
              .array(fc.tuple(withNulls(fc.constantFrom(...vals)), fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: n })
              .map((runs) => {
                const out = runs.flatMap(([x, k]) => Array.from({ length: k }, () => x));
                while (out.length < n) out.push(...out.slice(0, n - out.length));
                return out.slice(0, n);
              }),
          ),
        );
        return [f.name, column];
      }),
    ) as Record<string, fc.Arbitrary<unknown[]>>,
  ),
);

const optionsArb = fc.record({
  compression: fc.constantFrom("none", "snappy", "zstd"),
  pageSize: fc.constantFrom(64, 700, 1 << 20),
  rowGroupRows: fc.constantFrom(13, 150, 100_000),
  cuts: fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 3 }),
  dictionary: fc.boolean(),
  // input batches as slices of larger batches (Arrow slices values and offsets, not validity bitmaps)
  slicePad: fc.constantFrom(0, 0, 3, 8, 13),
});

/**
 * `cols` as record batches cut at `cuts` (input to the writer in several batches). With `pad` > 0
 * each batch is a slice of a larger one: `pad` other rows before it and after it.
 */
function batches(fields: readonly DataField[], cols: Record<string, unknown[]>, cuts: readonly number[], pad = 0): arrow.RecordBatch[] {
  const n = cols[fields[0]!.name]!.length;
  const at = [...new Set([0, ...cuts.filter((c) => c > 0 && c < n), n])].sort((a, b) => a - b);
  const out: arrow.RecordBatch[] = [];
  for (let k = 0; k + 1 < at.length; k++) {
    const from = at[k]!;
    const to = at[k + 1]!;
    // padding rows: the column's values in reverse order, so they differ from the slice's rows
    const padding = (v: unknown[]): unknown[] => Array.from({ length: pad }, (_, i) => v[(n - 1 - i + n * pad) % n]);
    const whole = batch(fields, Object.fromEntries(Object.entries(cols).map(([name, v]) => [name, [...padding(v), ...v.slice(from, to), ...padding(v)]])));
    out.push(pad === 0 ? whole : whole.slice(pad, pad + to - from));
  }
  return out;
}

/**
 * parquet-mr's rule the encoder follows: a chunk keeps its dictionary when the dictionary page
 * plus the bit-packed indices are smaller than the PLAIN values (entries are distinct bit
 * patterns of the Parquet value: -0 and 0 differ, FLOAT as float32, TINYINT/SMALLINT as INT32).
 */
function dictionaryPays(f: DataField, chunk: readonly unknown[]): boolean {
  const values = chunk.filter((v) => v !== null);
  const fixed: Record<string, number> = { INT: 4, DATE: 4, TINYINT: 4, SMALLINT: 4, FLOAT: 4, BIGINT: 8, DOUBLE: 8, TIMESTAMP: 8, TIMESTAMP_LTZ: 8 };
  const width = fixed[f.type.kind] ?? 0;
  const bytesOf = (v: unknown): Uint8Array => (typeof v === "string" ? new TextEncoder().encode(v) : (v as Uint8Array));
  const keyOf = (v: unknown): string => {
    if (f.type.kind === "FLOAT") return String(new Uint32Array(Float32Array.of(v as number).buffer)[0]);
    if (f.type.kind === "DOUBLE") return new Uint32Array(Float64Array.of(v as number).buffer).join(",");
    if (width === 0) return Array.from(bytesOf(v)).join(",");
    return String(v);
  };
  const distinct = new Map<string, unknown>();
  for (const v of values) if (!distinct.has(keyOf(v))) distinct.set(keyOf(v), v);
  const size = (vs: Iterable<unknown>): number => {
    let n = 0;
    for (const v of vs) n += width > 0 ? width : 4 + bytesOf(v).length;
    return n;
  };
  const bitWidth = distinct.size <= 1 ? 0 : 32 - Math.clz32(distinct.size - 1);
  return size(distinct.values()) + Math.ceil((values.length * bitWidth) / 8) < size(values);
}

/** The JS value hyparquet gives for `v` (as `column` takes it) of field `f`, read with the parsers below. */
function hyparquetValue(f: DataField, v: unknown): unknown {
  if (v === null) return null;
  if (f.type.kind === "FLOAT") return Math.fround(v as number);
  return v;
}
const bomKeeping = new TextDecoder("utf-8", { ignoreBOM: true });
const parsers = {
  timestampFromMilliseconds: (x: bigint) => x,
  timestampFromMicroseconds: (x: bigint) => x,
  dateFromDays: (x: number) => x,
  stringFromBytes: (b: Uint8Array | undefined) => b && bomKeeping.decode(b), // hyparquet's default drops a leading U+FEFF
};
const compressors = { ZSTD: (input: Uint8Array) => zstdDecompress(input) };

async function readByHyparquet(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file, parsers, compressors, utf8: false })) as Record<string, unknown>[];
}

afterEach(() => setFlatDecoding(true));

describe("flat-column Parquet encoder", () => {
  it("randomized: every type in scope, nulls, codecs, page and row-group sizes, input batches, PLAIN or dictionary-encoded, read back exactly by parquet-wasm, the flat decoder and hyparquet, with parquet-rs's statistics", async () => {
    await fc.assert(
      fc.asyncProperty(tableArb, optionsArb, async (cols, { cuts, slicePad, ...options }) => {
        const input = batches(FIELDS, cols, cuts, slicePad);
        const written = await writeParquet(FIELDS, input, options);
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
        for (const [g, rg] of meta.row_groups.entries()) {
          for (const cc of rg.columns) {
            const md = cc.meta_data!;
            // with `dictionary`, every column but BOOLEAN is dictionary-encoded (no chunk here passes 1 MiB)
            // with `dictionary`, every column but BOOLEAN whose dictionary makes the chunk smaller
            // (no chunk here passes 1 MiB)
            const field = FIELDS.find((x) => x.name === md.path_in_schema[0])!;
            const first = g * options.rowGroupRows;
            const dictionary = options.dictionary && md.type !== "BOOLEAN" && dictionaryPays(field, cols[field.name]!.slice(first, first + options.rowGroupRows));
            expect(md.encodings, md.path_in_schema[0]).toEqual(dictionary ? ["PLAIN", "RLE", "RLE_DICTIONARY"] : md.path_in_schema[0]!.startsWith("n") ? ["PLAIN"] : ["PLAIN", "RLE"]);
            expect(md.dictionary_page_offset !== undefined).toBe(dictionary);
            const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
            verifyChunkChecksums(written.bytes.subarray(start, start + Number(md.total_compressed_size)), "t.parquet", md.path_in_schema.join("."));
            // offset index: one location per data page, first rows ascending from 0
            const oi = readOffsetIndex({ view: new DataView(written.bytes.buffer, written.bytes.byteOffset + Number(cc.offset_index_offset), cc.offset_index_length!), offset: 0 });
            expect(Number(oi.page_locations[0]!.offset)).toBe(Number(md.data_page_offset));
            expect(Number(oi.page_locations[0]!.first_row_index)).toBe(0);
            expect(md.encoding_stats!.find((e) => e.page_type === "DATA_PAGE")!.count).toBe(oi.page_locations.length);
          }
        }

        // the same footer statistics as parquet-rs writes for the same rows
        const reference = await writeParquet(FIELDS, input, { ...options, flatEncoder: false });
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

  it("a NaN inside a sliced input batch drops the chunk's bounds; one in the rows sliced away does not", async () => {
    const fields = [F(0, "d", T.DOUBLE())];
    const whole = batch(fields, { d: [Number.NaN, 1, Number.NaN, 2, 3, 4, 5, 6, 7, 8, 9, Number.NaN] });
    const boundsOf = async (input: arrow.RecordBatch) => {
      const written = await writeParquet(fields, input, { dictionary: false });
      const chunk = (getList(getList(footerOf(written.bytes), 4)![0] as TStruct, 1) as TStruct[])[0]!;
      return { stats: written.stats[0], footerFields: getStruct(getStruct(chunk, 3)!, 12)!.fields.map((x) => x.id), values: tableColumn(await readParquet(written.bytes, { fields }), "d", fields[0]!.type) };
    };
    const inside = await boundsOf(whole.slice(1, 6)); // 1, NaN, 2, 3, 4
    expect(inside.values).toEqual([1, Number.NaN, 2, 3, 4]);
    expect(inside.footerFields).toEqual([3]); // null_count only
    const outside = await boundsOf(whole.slice(3, 11)); // 2 .. 9
    expect(outside.values).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(outside.stats).toMatchObject({ min: 2, max: 9, nullCount: 0 });
    expect(outside.footerFields).toEqual([1, 2, 3, 5, 6, 7, 8]); // max, min, null_count, max_value, min_value, exactness
  });

  it("randomized: the file statistics taken from the encoder's pages equal a pass over the values (NaN among the values or only under nulls, row groups, input batches, dictionary or PLAIN, stats() before finish)", async () => {
    const fields = [F(0, "b", T.BOOLEAN()), F(1, "i", T.INT()), F(2, "l", T.BIGINT()), F(3, "f", T.FLOAT()), F(4, "d", T.DOUBLE()), F(5, "s", T.STRING()), F(6, "y", T.BYTES()), F(7, "dt", T.DATE()), F(8, "ts3", T.TIMESTAMP(3)), F(9, "ltz", T.TIMESTAMP_LTZ(6)), F(10, "ti", T.TINYINT()), F(11, "si", T.SMALLINT())];
    const floats = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, 0, -0, 1.5));
    const cell: Record<string, fc.Arbitrary<unknown>> = { ...value, f: fc.oneof(fc.float(), fc.constantFrom(Number.NaN, 0, -0)), d: floats, ltz: value.ts6! };
    const rowsArb = fc.integer({ min: 1, max: 300 }).chain((n) =>
      fc.record({
        cols: fc.record(Object.fromEntries(fields.map((f) => [f.name, fc.array(fc.option(cell[f.name]!, { freq: 4 }), { minLength: n, maxLength: n })])) as Record<string, fc.Arbitrary<unknown[]>>),
        // null slots of the DOUBLE column that hold a NaN in the Arrow buffer (not a value)
        nanUnderNull: fc.boolean(),
        cut: fc.integer({ min: 0, max: n }),
        rowGroupRows: fc.constantFrom(7, 64, 1000),
        dictionary: fc.boolean(),
        early: fc.boolean(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(rowsArb, async ({ cols, nanUnderNull, cut, rowGroupRows, dictionary, early }) => {
        let whole = batch(fields, cols);
        if (nanUnderNull) {
          const d = whole.data.children[4]!;
          const values = (d.values as Float64Array).slice();
          cols.d!.forEach((x, r) => {
            if (x === null) values[r] = Number.NaN;
          });
          const replaced = arrow.makeData({ type: d.type as arrow.Float64, length: d.length, nullCount: d.nullCount, nullBitmap: d.nullBitmap, data: values });
          whole = recordBatch(whole.schema, whole.data.children.map((c, i) => (i === 4 ? replaced : c)) as arrow.Data[], whole.numRows);
        }
        const input = [whole.slice(0, cut), whole.slice(cut)];
        const options = { compression: "snappy", rowGroupRows, dictionary, statsMode: "full" };
        const writer = new ParquetFileWriter(fields, options);
        writer.write(input);
        const before = early ? writer.stats() : undefined;
        const written = await writer.finish();
        const reference = await writeParquet(fields, input, { ...options, flatEncoder: false });
        expect(written.stats).toEqual(reference.stats);
        if (before) expect(before).toEqual(reference.stats);
        // the model: NaN among a column's values leaves it without bounds; one under a null does not
        const doubles = cols.d!.filter((x): x is number => x !== null);
        const hasNaN = doubles.some((x) => Number.isNaN(x));
        expect(written.stats[4]).toMatchObject({ nullCount: cols.d!.length - doubles.length });
        if (hasNaN || doubles.length === 0) expect(written.stats[4]).toMatchObject({ min: null, max: null });
        else {
          expect(written.stats[4]!.max).toBe(Math.max(...doubles) === 0 ? 0 : Math.max(...doubles));
          expect(Object.is(written.stats[4]!.min, Math.min(...doubles) === 0 ? -0 : Math.min(...doubles))).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);

  it("file statistics from the encoder: exact values over two row groups, a NaN under a null, BINARY without bounds", async () => {
    const fields = [F(0, "l", T.BIGINT()), F(1, "d", T.DOUBLE()), F(2, "s", T.STRING()), F(3, "y", T.BYTES()), F(4, "ts", T.TIMESTAMP(6)), F(5, "b", T.BOOLEAN())];
    const input = batch(fields, {
      l: [5n, null, -3n, 9n],
      d: [0.5, null, -0, 2],
      s: ["m", "zebra", null, "apple"],
      y: [Uint8Array.of(9), null, Uint8Array.of(1), null],
      ts: [1_700_000_000_000_001n, null, 1_600_000_000_000_000n, null],
      b: [true, true, null, true],
    });
    const d = input.data.children[1]!;
    const values = (d.values as Float64Array).slice();
    values[1] = Number.NaN; // the null slot
    const withNaN = recordBatch(input.schema, input.data.children.map((c, i) => (i === 1 ? arrow.makeData({ type: d.type as arrow.Float64, length: 4, nullCount: 1, nullBitmap: d.nullBitmap, data: values }) : c)) as arrow.Data[], 4);
    const written = await writeParquet(fields, withNaN, { rowGroupRows: 2, statsMode: "full" });
    expect(written.stats.map(({ min, max, nullCount }) => ({ min, max, nullCount }))).toEqual([
      { min: -3n, max: 9n, nullCount: 1 },
      { min: -0, max: 2, nullCount: 1 },
      { min: "apple", max: "zebra", nullCount: 1 },
      { min: null, max: null, nullCount: 2 },
      { min: { millis: 1_600_000_000_000n, nanoOfMillisecond: 0 }, max: { millis: 1_700_000_000_000n, nanoOfMillisecond: 1000 }, nullCount: 2 },
      { min: true, max: true, nullCount: 1 },
    ]);
    expect(Object.is(written.stats[1]!.min, -0)).toBe(true);
  });

  it("validity taken a byte at a time (all-valid and all-null bytes, byte-aligned and unaligned pieces) gives exact values, null counts and bounds", async () => {
    const fields = [F(0, "d", T.DOUBLE()), F(1, "i", T.INT())];
    const n = 5_000;
    // runs of values and of nulls of every length from 1 to 40, so pieces see whole 0xff and 0x00 bytes and mixed ones
    const valid = Array.from({ length: n }, (_, r) => Math.floor(Math.sqrt(r * 7)) % 2 === 0 || r % 97 === 3);
    const d = valid.map((v, r) => (v ? r * 0.5 - 100 : null));
    const i = valid.map((v, r) => (v ? (r * 7919) % 4001 - 2000 : null));
    const whole = batch(fields, { d, i });
    for (const cuts of [[], [8, 1024], [3, 1500, 1501], [13, 4093]]) {
      const bounds = [0, ...cuts, n];
      const input = bounds.slice(1).map((to, k) => whole.slice(bounds[k]!, to));
      const written = await writeParquet(fields, input, { compression: "none", dictionary: false, rowGroupRows: 2_000, pageSize: 4_096 });
      const back = await readParquet(written.bytes, { fields });
      expect(tableColumn(back, "d", fields[0]!.type)).toEqual(d);
      expect(tableColumn(back, "i", fields[1]!.type)).toEqual(i);
      const ds = d.filter((x): x is number => x !== null);
      const is = i.filter((x): x is number => x !== null);
      expect(written.stats.map(({ min, max, nullCount }) => ({ min, max, nullCount }))).toEqual([
        { min: Math.min(...ds), max: Math.max(...ds), nullCount: n - ds.length },
        { min: Math.min(...is), max: Math.max(...is), nullCount: n - is.length },
      ]);
      const reference = await writeParquet(fields, input, { compression: "none", dictionary: false, rowGroupRows: 2_000, pageSize: 4_096, flatEncoder: false });
      expect(await readParquetStatistics(written.bytes)).toEqual(await readParquetStatistics(reference.bytes));
    }
  });

  it("files out of its scope are written by parquet-wasm: INT96, nested, gzip", async () => {
    const created = async (fields: DataField[], cols: Record<string, unknown[]>, options: object): Promise<string> =>
      new TextDecoder().decode(getBytes(footerOf((await writeParquet(fields, batch(fields, cols), options)).bytes), 6));
    const s = [F(0, "s", T.STRING())];
    expect(await created(s, { s: ["a", "b", "a"] }, {})).toBe("paimon-rt version 0.1.0"); // dictionary-encoded
    expect(await created(s, { s: ["a", "b", "a"] }, { dictionary: false })).toBe("paimon-rt version 0.1.0");
    expect(await created(s, { s: ["a", "b", "a"] }, { dictionary: false, compression: "gzip" })).toMatch(/^parquet-rs/);
    expect(await created([F(0, "t", T.TIMESTAMP(9))], { t: [1n] }, { dictionary: false })).toMatch(/^parquet-rs/);
    expect(await created([F(0, "a", T.ARRAY(T.INT()))], { a: [[1]] }, { dictionary: false })).toMatch(/^parquet-rs/);
    expect(await created([F(0, "t", T.TINYINT())], { t: [1] }, { dictionary: false })).toBe("paimon-rt version 0.1.0");
  });

  it("a chunk whose dictionary passes 1 MiB is written PLAIN; the other chunks of the column keep their dictionary", async () => {
    const fields = [F(0, "s", T.STRING()), F(1, "i", notNull(T.INT()))];
    const n = 200_000;
    // row group 0 (100,000 rows): 3 strings; row group 1: distinct 20-byte strings (~2.4 MB of dictionary)
    const s = Array.from({ length: n }, (_, i) => (i < 100_000 ? (i % 11 === 0 ? null : `v${i % 3}`) : `row-${String(i).padStart(16, "0")}`));
    const i = Array.from({ length: n }, (_, k) => k % 1000);
    const written = await writeParquet(fields, batch(fields, { s, i }), { compression: "zstd", rowGroupRows: 100_000 });
    const footer = footerOf(written.bytes);
    expect(new TextDecoder().decode(getBytes(footer, 6))).toBe("paimon-rt version 0.1.0");
    const encodings = (getList(footer, 4) as TStruct[]).map((rg) => (getList(rg, 1) as TStruct[]).map((cc) => getList(getStruct(cc, 3)!, 2)));
    expect(encodings).toEqual([
      [
        [0, 3, 8],
        [0, 3, 8],
      ],
      [
        [0, 3],
        [0, 3, 8],
      ],
    ]);
    for (const flat of [false, true]) {
      setFlatDecoding(flat);
      const back = await readParquet(written.bytes, { fields });
      expect(tableColumn(back, "s", fields[0]!.type)).toEqual(s);
      expect(tableColumn(back, "i", fields[1]!.type)).toEqual(i);
    }
    const rows = await readByHyparquet(written.bytes);
    expect(rows.map((r) => r.s)).toEqual(s);
    expect(rows.map((r) => r.i)).toEqual(i);
    for (const page of pagesOf(written.bytes)) expect(getNumber(page.header, 4), "crc").toBeDefined();
    const reference = await writeParquet(fields, batch(fields, { s, i }), { compression: "zstd", rowGroupRows: 100_000, flatEncoder: false });
    expect(await readParquetStatistics(written.bytes)).toEqual(await readParquetStatistics(reference.bytes));
  });
});

describe("flat encoder: zstd and snappy pages compressed on a worker thread (page-worker.ts)", () => {
  it("randomized: every page through the worker gives the same bytes as every page inline (zstd and snappy)", async () => {
    let offloaded = 0;
    await fc.assert(
      fc.asyncProperty(tableArb, optionsArb, fc.constantFrom("zstd", "snappy"), async (cols, { cuts, slicePad, compression: _, ...options }, compression) => {
        const input = batches(FIELDS, cols, cuts, slicePad);
        const inline = await writeParquet(FIELDS, input, { ...options, compression, compressionWorker: false });
        const before = pageWorker()!.offloaded;
        const worker = await writeParquet(FIELDS, input, { ...options, compression, compressionWorker: "always" });
        offloaded += pageWorker()!.offloaded - before;
        expect(Buffer.compare(worker.bytes, inline.bytes)).toBe(0);
        expect(worker.stats).toEqual(inline.stats);
      }),
      { numRuns: 60 },
    );
    // the worker did compress pages (a worker that cannot start would leave every page inline)
    expect(offloaded).toBeGreaterThan(60 * FIELDS.length);
    expect(pageWorker()!.snappy).toBe(true);
  }, 300_000);

  it("a large file split between the threads by the default (backlog-balanced) is the same bytes as inline, and reads back (zstd and snappy)", async () => {
    const { fields, cols } = workerTable(300_000);
    const input = batches(fields, cols, [70_000, 210_000]);
    for (const compression of ["zstd", "snappy"]) {
      const inline = await writeParquet(fields, input, { compression, compressionWorker: false, rowGroupRows: 120_000 });
      const before = pageWorker()!.offloaded;
      const split = await writeParquet(fields, input, { compression, rowGroupRows: 120_000 });
      expect(pageWorker()!.offloaded - before, compression).toBeGreaterThan(0);
      expect(Buffer.compare(split.bytes, inline.bytes), compression).toBe(0);
      const back = await readParquet(split.bytes, { fields });
      for (const f of fields) expect(tableColumn(back, f.name, f.type), f.name).toEqual(cols[f.name as keyof typeof cols]);
    }
  }, 120_000);

  it("pages travel in buffers the worker hands back: a page copied into a larger page's buffer gives exactly its own frame (zstd, snappy) and content (zstd decompression)", async () => {
    // a new worker: no spare buffers yet
    const previous = pageWorker()!;
    await previous.terminate();
    const worker = pageWorker()!;
    expect(worker).not.toBe(previous);
    expect(await worker.started()).toBe(true);
    expect(worker.spareBuffers).toBe(0);
    expect(worker.snappy).toBe(true);
    const zstd = (await flatCompressor("zstd"))!;
    const snappy = (await flatCompressor("snappy"))!;
    const page = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => 97 + (Math.imul(i + seed, 2654435761) >>> 28));
    // one page at a time: each goes over in the buffer the previous one came back in
    const big = page(300_000, 1);
    expect(await worker.offload(big, "zstd", 1, true)).toEqual(zstd(big));
    expect(worker.spareBuffers).toBe(1);
    for (const [n, seed] of [
      [100_000, 2],
      [17, 3],
      [250_001, 4],
      [1, 5],
    ] as const) {
      const p = page(n, seed);
      const frame = (await worker.offload(p, "zstd", 1, true))!;
      expect(frame, `zstd ${n}`).toEqual(zstd(p));
      expect(await worker.offload(p, "snappy", 1, true), `snappy ${n}`).toEqual(snappy(p));
      const d = worker.decompress(frame, n, "zstd", true)!;
      expect(await d.content, `decompressed ${n}`).toEqual(p);
      expect(worker.spareBuffers).toBe(0); // the content is in it until the page is released
      d.release();
      expect(worker.spareBuffers).toBe(1); // reused, not a new buffer per page
    }
  });

  it("near the end of a file the worker takes a page only while its backlog and the page fit the bytes the caller still has to encode (offload's remaining)", async () => {
    const worker = pageWorker()!;
    expect(await worker.started()).toBe(true);
    expect(worker.backlog()).toBe(0);
    const zstd = (await flatCompressor("zstd"))!;
    const body = Uint8Array.from({ length: 64 * 1024 }, (_, i) => i % 251);
    expect(worker.offload(body, "zstd", 1, false, 0)).toBeUndefined(); // nothing left to encode: the caller compresses it
    expect(worker.offload(body, "zstd", 1, false, body.length - 1)).toBeUndefined();
    // an idle worker takes a page that fits what is left (how long it holds a page is up to the
    // thread scheduler: a page in its backlog is not asserted on)
    const taken = worker.offload(body, "zstd", 1, false, body.length);
    expect(taken).toBeDefined();
    expect(await taken).toEqual(zstd(body));
    // without a hint (mid-file), only the backlog limit applies
    expect(await worker.offload(body, "zstd", 1, false)).toEqual(zstd(body));
  });

  it("a worker that dies with pages in flight fails the file with a PaimonError; the next file gets a new worker and the same bytes as inline", async () => {
    const fields = [F(1, "id", notNull(T.BIGINT())), F(2, "name", T.STRING())];
    const n = 50_000;
    const cols = { id: Array.from({ length: n }, (_, i) => BigInt(i)), name: Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : `n${i}`)) };
    const input = batch(fields, cols);
    const schema = parquetArrowSchema(fields);
    const layout = [recordBatch(schema, input.data.children, n)];
    const worker = pageWorker()!;
    expect(await worker.started()).toBe(true);
    const compress = (await flatCompressor("zstd"))!;
    let pages = 0;
    const dying = {
      compress,
      offload: (body: Uint8Array) => {
        const result = worker.offload(body, "zstd", 1, true);
        if (++pages === 3) void worker.terminate();
        return result;
      },
    };
    const options = { codec: "zstd" as const, rowGroupRows: 20_000, rowGroupBytes: 1 << 30, pageRows: 2_000, keyValueMetadata: new Map<string, string>() };
    const failure = await encodeFlatParquet(schema, layout, dying, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PaimonError);
    expect((failure as PaimonError).code).toBe("IO_ERROR");
    expect((failure as PaimonError).message).toMatch(/page worker exited/);
    // the dead worker takes no more pages; a new one is started for the next file
    expect(worker.offload(new Uint8Array(1 << 20), "zstd", 1, true)).toBeUndefined();
    const inline = await writeParquet(fields, [input], { compressionWorker: false, rowGroupRows: 20_000 });
    const again = await writeParquet(fields, [input], { compressionWorker: "always", rowGroupRows: 20_000 });
    expect(pageWorker()).not.toBe(worker);
    expect(pageWorker()!.offloaded).toBeGreaterThan(0);
    expect(Buffer.compare(again.bytes, inline.bytes)).toBe(0);
    expect(await encodeFlatParquet(schema, layout, { compress }, options)).toEqual(await encodeFlatParquet(schema, layout, { compress, offload: (b) => pageWorker()!.offload(b, "zstd", 1, true) }, options));
  }, 120_000);
});
