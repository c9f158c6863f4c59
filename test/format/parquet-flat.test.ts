// The focused flat-column decoder (src/format/parquet-flat.ts) against parquet-wasm: random
// tables of every type in its scope, written by our writer with every codec, dictionary on and
// off, small and large pages and row groups, decode to exactly what parquet-wasm decodes (values,
// nulls, Arrow types), and the flat decoder really decodes each such column chunk. Columns out of
// its scope (DECIMAL, ARRAY; GZIP chunks) are decoded by parquet-wasm in the same row group. Any
// subset of a chunk's pages (selective reads) decodes to exactly the rows of those pages.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { readParquet, writeParquet } from "../../src/format/index.js";
import { readFooter, readLeafChunks } from "../../src/format/footer.js";
import { readPageHeader } from "../../src/format/parquet-pages.js";
import { convertData, readArrowField } from "../../src/format/arrow-types.js";
import { pageSubset, pagesNeedDictionary, readChunkPages } from "../../src/format/page-index.js";
import { pageWorker, zstdHeapView } from "../../src/format/page-worker.js";
import { loadZstd } from "../../src/spec/zstd.js";
import { prefetchFlatDecoder, setByteArrayKernel, setDecompressionWorker, setFlatDecoding } from "../../src/format/parquet-reader.js";
import { initKernels, loadedKernelFrame } from "../../src/kernel/wasm.js";
import { snappyCompress } from "../../src/kernel/snappy.js";
import { snappyView } from "../../src/kernel/snappy-decompress.js";
import { crc32 } from "../../src/kernel/deletion-vector.js";
import { getNumber, serializeStruct, setField, T_I32 } from "../../src/format/thrift.js";
import { PaimonError } from "../../src/error.js";
import { toByteSource } from "../../src/format/source.js";
import { type DataField, DataTypes as T, notNull } from "../../src/spec/types.js";
import { batch, FLAT_FIELDS, pagesOf, tableColumn, values as dataValues, workerTable } from "./helpers.js";

const F = T.FIELD;
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
/** Each column's values: repeats from a small pool (dictionary pages) mixed with free values. */
const withRepeats = <V>(free: fc.Arbitrary<V>, pool: readonly V[]) => fc.oneof(fc.constantFrom(...pool), free);


const value = {
  b: fc.boolean(),
  i: withRepeats(fc.integer(), [0, -1, 7]),
  l: withRepeats(int64, [0n, 1n << 40n]),
  f: withRepeats(fc.float(), [1.5, -0]),
  d: withRepeats(fc.double(), [0.25, Number.NaN]),
  s: withRepeats(fc.string({ unit: "grapheme", maxLength: 40 }), ["", "ab", "ü€😀"]),
  y: withRepeats(fc.uint8Array({ maxLength: 50 }), [new Uint8Array([0, 255]), new Uint8Array(0)]),
  dt: withRepeats(fc.integer({ min: -700_000, max: 2_900_000 }), [0, 19_000]),
  ts3: withRepeats(fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }), [1_700_000_000_000n]),
  ts6: withRepeats(fc.bigInt({ min: -(2n ** 58n), max: 2n ** 58n }), [1_700_000_000_000_000n]),
  ltz: fc.bigInt({ min: -(2n ** 58n), max: 2n ** 58n }),
  ti: withRepeats(fc.integer({ min: -128, max: 127 }), [0, -128, 127]),
  si: withRepeats(fc.integer({ min: -32768, max: 32767 }), [0, -32768, 32767]),
};

/** Every type in the decoder's scope: the shared flat fields plus TINYINT and SMALLINT. */
const FIELDS: readonly DataField[] = [...FLAT_FIELDS, F(13, "ti", T.TINYINT()), F(14, "si", T.SMALLINT())];

const rowsArb = (nullRate: number) =>
  fc.integer({ min: 0, max: 400 }).chain((n) =>
    fc.record(
      Object.fromEntries([
        ...Object.entries(value).map(([k, g]) => [k, fc.array(fc.oneof({ weight: nullRate, arbitrary: fc.constant(null) }, { weight: 100 - nullRate, arbitrary: g as fc.Arbitrary<unknown> }), { minLength: n, maxLength: n })]),
        ["nn", fc.array(value.l, { minLength: n, maxLength: n })],
        ["ns", fc.array(value.s, { minLength: n, maxLength: n })],
      ]) as Record<string, fc.Arbitrary<unknown[]>>,
    ),
  );

const writeOptions = fc.record({
  compression: fc.constantFrom("none", "snappy", "zstd", "gzip"),
  dictionary: fc.boolean(),
  pageSize: fc.constantFrom(64, 700, 1 << 20),
  rowGroupRows: fc.constantFrom(13, 150, 100_000),
});

async function readBoth(bytes: Uint8Array, fields: readonly DataField[], batchSize: number): Promise<[arrow.Table, arrow.Table]> {
  setFlatDecoding(true);
  const flat = await readParquet(bytes, { fields, batchSize });
  setFlatDecoding(false);
  const wasm = await readParquet(bytes, { fields, batchSize });
  setFlatDecoding(true);
  return [flat, wasm];
}

function expectSame(flat: arrow.Table, wasm: arrow.Table, fields: readonly DataField[]): void {
  expect(flat.numRows).toBe(wasm.numRows);
  expect(flat.schema.fields.map((f) => String(f.type))).toEqual(wasm.schema.fields.map((f) => String(f.type)));
  for (const f of fields) {
    expect(flat.getChild(f.name)!.nullCount, f.name).toBe(wasm.getChild(f.name)!.nullCount);
    expect(tableColumn(flat, f.name, f.type), f.name).toEqual(tableColumn(wasm, f.name, f.type));
  }
}

/** The flat decoder's Data of every column of the one row group of `bytes` (`columns` of them; each must be taken by the decoder). */
async function decodeFlatData(bytes: Uint8Array, columns: number): Promise<arrow.Data[]> {
  const src = toByteSource(bytes, "f.parquet");
  const footer = await readFooter(src);
  expect(footer.rowGroups.length).toBe(1);
  const decoded = await (await prefetchFlatDecoder())!.decodeFlatColumns(src, footer, Array.from({ length: columns }, (_, i) => i), 0);
  expect(decoded.every((d) => d !== undefined)).toBe(true);
  return decoded as arrow.Data[];
}

/** `decodeFlatData` as the values of each column. */
async function decodeFlat(bytes: Uint8Array, columns: number): Promise<unknown[][]> {
  return (await decodeFlatData(bytes, columns)).map((d) => [...arrow.makeVector(d)]);
}

/** `bytes` in a Node Buffer that is a view into a larger buffer, as Node's Buffer pool hands out (Buffer#slice is a view too). */
function pooledBuffer(bytes: Uint8Array): Buffer {
  const pool = Buffer.alloc(bytes.length + 8192, 0x5a);
  pool.set(bytes, 4099);
  return pool.subarray(4099, 4099 + bytes.length);
}

/** Node (not Deno or Bun, which run this suite too): where the zstd package's raw module is known to be reachable. */
const onNode = (globalThis as { Deno?: unknown; Bun?: unknown }).Deno === undefined && (globalThis as { Bun?: unknown }).Bun === undefined;

afterEach(() => {
  setFlatDecoding(true);
  setDecompressionWorker(true);
  setByteArrayKernel(true);
});

describe("flat-column decoder", () => {
  it("randomized: every in-scope type, codec, dictionary setting, page and row-group size and null pattern decodes exactly as parquet-wasm", async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb(15), writeOptions, fc.constantFrom(5, 64, 65536), async (cols, options, batchSize) => {
        const written = await writeParquet(FIELDS, batch(FIELDS, cols), options);
        const [flat, wasm] = await readBoth(written.bytes, FIELDS, batchSize);
        expectSame(flat, wasm, FIELDS);
        for (const f of FIELDS) expect(tableColumn(flat, f.name, f.type), f.name).toEqual(cols[f.name]);
        // the flat decoder took every column chunk (no silent fallback) of the codecs in its
        // scope; GZIP chunks are left to parquet-wasm
        const src = toByteSource(written.bytes, "t.parquet");
        const footer = await readFooter(src);
        const all = footer.columns.map((_, i) => i);
        const inScope = options.compression !== "gzip";
        for (let r = 0; r < footer.rowGroups.length; r++) {
          const decoded = await (await prefetchFlatDecoder())!.decodeFlatColumns(src, footer, all, r);
          expect(decoded.map((d, i) => (d ? "flat" : footer.columns[i]!.name))).toEqual(all.map((i) => (inScope ? "flat" : footer.columns[i]!.name)));
        }
      }),
      { numRuns: 50 },
    );
  }, 240_000);

  it("randomized: any subset of a chunk's pages decodes to exactly those pages' rows (decodeFlatPages, SNAPPY included; GZIP left to parquet-wasm)", async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb(15), writeOptions, fc.integer(), async (cols, options, seed) => {
        const written = await writeParquet(FIELDS, batch(FIELDS, cols), options);
        const src = toByteSource(written.bytes, "p.parquet");
        const footer = await readFooter(src);
        const flat = (await prefetchFlatDecoder())!;
        let rowGroupStart = 0;
        for (let r = 0; r < footer.rowGroups.length; rowGroupStart += footer.rowGroups[r]!.numRows, r++) {
          for (const [c, f] of FIELDS.entries()) {
            const pages = (await readChunkPages(src, footer, r, c, false))!;
            const count = pages.offsets.length;
            // a pseudo-random non-empty subset of the pages, by the seed
            let selected = Array.from({ length: count }, (_, p) => p).filter((p) => ((seed >>> (p % 31)) & 1) === 1 || p === (seed >>> 0) % count);
            if (seed % 5 === 0) selected = Array.from({ length: count }, (_, p) => p); // every page
            const subset = pageSubset(pages, selected, await pagesNeedDictionary(src, pages, selected));
            const data = await flat.decodeFlatPages(src, footer, c, r, subset);
            if (options.compression === "gzip") {
              expect(data).toBeUndefined();
              continue;
            }
            expect(data, `${f.name}: the flat decoder took the pages`).toBeDefined();
            const want = selected.flatMap((p) => cols[f.name]!.slice(rowGroupStart + pages.rowStarts[p]!, rowGroupStart + pages.rowStarts[p + 1]!));
            const field = readArrowField(f);
            const got = new arrow.Table({ [f.name]: arrow.makeVector(convertData(data!, field.type, f.name)) });
            expect(tableColumn(got, f.name, f.type), f.name).toEqual(want);
            // the whole chunk too
            const whole = await flat.decodeFlatPages(src, footer, c, r, undefined);
            expect(whole!.length).toBe(footer.rowGroups[r]!.numRows);
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);

  it("STRING chunks with invalid UTF-8 are left to parquet-wasm, from a dictionary (whose values are checked) or PLAIN pages", async () => {
    const fields = [F(0, "s", T.STRING())];
    const utf8 = (values: Uint8Array[]) => {
      const offsets = new Int32Array(values.length + 1);
      values.forEach((v, i) => (offsets[i + 1] = offsets[i]! + v.length));
      const data = new Uint8Array(offsets[values.length]!);
      values.forEach((v, i) => data.set(v, offsets[i]!));
      const d = arrow.makeData({ type: new arrow.Utf8(), length: values.length, valueOffsets: offsets, data });
      const schema = new arrow.Schema([new arrow.Field("s", new arrow.Utf8(), true)]);
      return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: values.length, nullCount: 0, children: [d] }));
    };
    const enc = new TextEncoder();
    const bad = new Uint8Array([0x61, 0xc3]); // truncated two-byte sequence
    for (const dictionary of [true, false]) {
      for (const [name, values, flat] of [
        ["valid", Array.from({ length: 60 }, (_, i) => enc.encode(["a", "ü€", "😀x"][i % 3]!)), true],
        ["invalid", Array.from({ length: 60 }, (_, i) => (i === 31 ? bad : enc.encode(["a", "ü€"][i % 2]!))), false],
      ] as const) {
        const written = await writeParquet(fields, utf8([...values]), { compression: "zstd", dictionary });
        const src = toByteSource(written.bytes, "u.parquet");
        const footer = await readFooter(src);
        const decoded = await (await prefetchFlatDecoder())!.decodeFlatColumns(src, footer, [0], 0);
        expect(decoded[0] !== undefined, `${name}, dictionary ${dictionary}`).toBe(flat);
      }
    }
  });

  it("all-null and no-null columns, one row and empty strings", async () => {
    const fields = FLAT_FIELDS.slice(0, 11);
    for (const n of [1, 9, 1000]) {
      for (const fill of ["null", "value"] as const) {
        const cols = Object.fromEntries(fields.map((f) => [f.name, Array.from({ length: n }, () => (fill === "null" ? null : f.name === "s" ? "" : f.name === "y" ? new Uint8Array(0) : f.name === "b" ? true : f.name === "l" || f.name.startsWith("t") || f.name === "ltz" ? 3n : 3))]));
        for (const compression of ["none", "zstd"]) {
          const written = await writeParquet(fields, batch(fields, cols), { compression });
          const [flat, wasm] = await readBoth(written.bytes, fields, 65536);
          expectSame(flat, wasm, fields);
          for (const f of fields) expect(tableColumn(flat, f.name, f.type), f.name).toEqual(cols[f.name]);
        }
      }
    }
  });

  it("columns out of scope (DECIMAL, ARRAY) are decoded by parquet-wasm beside flat ones (TINYINT as parquet-rs writes it among them), in batchSize slices", async () => {
    const fields = [F(0, "t", T.TINYINT()), F(1, "s", T.STRING()), F(2, "m", T.DECIMAL(12, 2)), F(3, "a", T.ARRAY(T.INT())), F(4, "l", T.BIGINT())];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }).chain((n) =>
          fc.record({
            t: fc.array(fc.option(fc.integer({ min: -128, max: 127 })), { minLength: n, maxLength: n }),
            s: fc.array(fc.option(fc.string({ maxLength: 8 })), { minLength: n, maxLength: n }),
            m: fc.array(fc.option(fc.bigInt({ min: -(10n ** 11n), max: 10n ** 11n })), { minLength: n, maxLength: n }),
            a: fc.array(fc.option(fc.array(fc.integer(), { maxLength: 3 })), { minLength: n, maxLength: n }),
            l: fc.array(fc.option(int64), { minLength: n, maxLength: n }),
          }),
        ),
        fc.constantFrom(7, 100, 65536),
        async (cols, batchSize) => {
          const written = await writeParquet(fields, batch(fields, cols), { compression: "zstd", rowGroupRows: 120 });
          const [flat, wasm] = await readBoth(written.bytes, fields, batchSize);
          expectSame(flat, wasm, fields);
          expect(flat.batches.every((b) => b.numRows <= batchSize)).toBe(true);
          const src = toByteSource(written.bytes, "m.parquet");
          const footer = await readFooter(src);
          const decoded = await (await prefetchFlatDecoder())!.decodeFlatColumns(src, footer, [0, 1, 2, 3, 4], 0);
          expect(decoded.map((d) => d !== undefined)).toEqual([true, true, false, false, true]);
        },
      ),
      { numRuns: 30 },
    );
  }, 240_000);

  it("randomized: zstd and snappy pages decompressed on the page worker decode to exactly the inline decoder's Arrow data (every in-scope type, nulls, dictionary and PLAIN pages)", async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb(15), writeOptions, fc.constantFrom(5, 64, 65536), async (cols, options, batchSize) => {
        const compression = options.compression === "gzip" ? "zstd" : options.compression; // the chunks the flat decoder takes
        const written = await writeParquet(FIELDS, batch(FIELDS, cols), { ...options, compression });
        setDecompressionWorker(false);
        const inline = await readParquet(written.bytes, { fields: FIELDS, batchSize });
        setDecompressionWorker("always");
        const before = pageWorker()!.offloaded;
        // from a Node Buffer that is a view of a larger one (as Node's pool is): the worker gets copies, the pool stays intact
        const pooled = pooledBuffer(written.bytes);
        const split = await readParquet(pooled, { fields: FIELDS, batchSize });
        expect(Buffer.compare(pooled, written.bytes)).toBe(0);
        const handed = pageWorker()!.offloaded - before;
        // the written values, and the same Arrow buffers byte for byte (IPC of both)
        for (const f of FIELDS) expect(tableColumn(split, f.name, f.type), f.name).toEqual(cols[f.name]);
        expect(Buffer.compare(arrow.tableToIPC(split, "stream"), arrow.tableToIPC(inline, "stream"))).toBe(0);
        // every zstd or snappy page but the first of each row group went to the worker, and the flat decoder took every chunk
        const src = toByteSource(written.bytes, "w.parquet");
        const footer = await readFooter(src);
        let packedPages = 0;
        for (let r = 0; r < footer.rowGroups.length; r++) {
          let pages = 0;
          for (const chunk of await readLeafChunks(src, footer, footer.columns.map((c) => c.leafStart), r)) {
            for (let at = 0; at < chunk.length; pages++) {
              const p = readPageHeader(chunk, at, chunk.length);
              at = p.bodyStart + p.bodyLength;
            }
          }
          if (compression !== "none" && pages > 1) packedPages += pages - 1;
          const decoded = await (await prefetchFlatDecoder())!.decodeFlatColumns(src, footer, FIELDS.map((_, i) => i), r);
          expect(decoded.every((d) => d !== undefined)).toBe(true);
        }
        expect(handed).toBe(packedPages);
      }),
      { numRuns: 40 },
    );
  }, 240_000);

  it("page checksums are checked page by page as the flat decoder takes the pages, by the worker for those it decompresses: a flipped byte gives the same CORRUPT_FILE (file, row group, column, page) with the worker, inline and through parquet-wasm", async () => {
    const { fields, cols } = workerTable(40_000);
    const worker = pageWorker()!;
    expect(await worker.started()).toBe(true);
    const decompress = worker.decompress.bind(worker);
    let workerCrcs = 0;
    worker.decompress = (data, size, codec, always, crc) => {
      const r = decompress(data, size, codec, always, crc);
      return r && { ...r, crc: () => (r.crc() === undefined ? undefined : (workerCrcs++, r.crc())) };
    };
    try {
      for (const compression of ["zstd", "snappy"] as const) {
        const written = await writeParquet(fields, batch(fields, cols), { compression, pageSize: 16 * 1024 });
        const pages = pagesOf(written.bytes);
        expect(pages.length).toBeGreaterThan(12);
        for (const k of [0, 1, pages.length >> 1, pages.length - 2, pages.length - 1]) {
          const p = pages[k]!;
          const bad = written.bytes.slice();
          bad[p.bodyStart + ((p.bodyEnd - p.bodyStart) >> 1)] ^= 0x40;
          const errors: unknown[] = [];
          for (const [flat, use] of [[true, "always"], [true, false], [false, false]] as const) {
            setFlatDecoding(flat);
            setDecompressionWorker(use);
            errors.push(await readParquet(bad, { fields, fileName: "w.parquet" }).catch((e: unknown) => e));
          }
          setFlatDecoding(true);
          for (const e of errors) {
            expect(e, `${compression} page ${k}`).toBeInstanceOf(PaimonError);
            expect((e as PaimonError).code).toBe("CORRUPT_FILE");
            expect((e as PaimonError).message).toMatch(/^Corrupt Parquet file w\.parquet: row group 0, column (id|name|v), page \d+: page checksum mismatch \(header crc [0-9a-f]{8}, page bytes [0-9a-f]{8}\)$/);
          }
          expect((errors[0] as Error).message, `${compression} page ${k}`).toBe((errors[2] as Error).message);
          expect((errors[1] as Error).message, `${compression} page ${k}`).toBe((errors[2] as Error).message);
        }
        setDecompressionWorker("always");
        const back = await readParquet(written.bytes, { fields });
        for (const f of fields) expect(tableColumn(back, f.name, f.type), `${compression} ${f.name}`).toEqual(cols[f.name as keyof typeof cols]);
      }
    } finally {
      worker.decompress = decompress;
    }
    if (onNode) expect(workerCrcs).toBeGreaterThan(0); // Node's zlib has crc32 (the worker's): there the worker computed them
  }, 120_000);

  it("a page worker that dies with pages in flight fails the read with a PaimonError (no rows); the next read gets a new worker and the same rows", async () => {
    const { fields, cols } = workerTable(200_000);
    const written = await writeParquet(fields, batch(fields, cols), { compression: "zstd", pageSize: 32 * 1024 });
    setDecompressionWorker(false);
    const inline = await readParquet(written.bytes, { fields });
    setDecompressionWorker("always");
    const worker = pageWorker()!;
    expect(await worker.started()).toBe(true);
    const decompress = worker.decompress.bind(worker);
    let pages = 0;
    worker.decompress = (data, size, codec, always) => {
      const result = decompress(data, size, codec, always);
      if (++pages === 3) void worker.terminate();
      return result;
    };
    const failure = await readParquet(written.bytes, { fields }).catch((e: unknown) => e);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(failure).toBeInstanceOf(PaimonError);
    expect((failure as PaimonError).code).toBe("IO_ERROR");
    expect((failure as PaimonError).message).toMatch(/page worker exited/);
    // the dead worker takes no more pages; the next read starts a new one
    expect(worker.decompress(new Uint8Array(8), 8, "zstd", true)).toBeUndefined();
    const again = await readParquet(written.bytes, { fields });
    expect(pageWorker()).not.toBe(worker);
    expect(pageWorker()!.offloaded).toBeGreaterThan(0);
    expect(Buffer.compare(arrow.tableToIPC(again, "stream"), arrow.tableToIPC(inline, "stream"))).toBe(0);
    for (const f of fields) expect(tableColumn(again, f.name, f.type), f.name).toEqual(cols[f.name as keyof typeof cols]);
  }, 120_000);

  it("reused page memory leaks into no result: a zstd or snappy read's Arrow data stays the written values after other reads reuse the memory its pages were decompressed in (inline into the zstd heap or kernel memory, pooled worker buffers, pages decompressed ahead)", async () => {
    // two files of different values: single-page no-null columns (a page the decoder could take
    // whole), dictionary pages (kept while the chunk decodes), PLAIN strings and nullable doubles
    const fields = [F(1, "id", notNull(T.BIGINT())), F(2, "name", T.STRING()), F(3, "v", T.DOUBLE()), F(4, "tag", T.STRING()), F(5, "n", notNull(T.INT()))];
    const make = (n: number, salt: number) => ({
      id: Array.from({ length: n }, (_, i) => BigInt(i) * 7919n + BigInt(salt)),
      name: Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : `name-${salt}-${(Math.imul(i + salt, 2654435761) >>> 0).toString(16)}`)),
      v: Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : i * 0.25 + salt)),
      tag: Array.from({ length: n }, (_, i) => `tag-${salt}-${i % 7}`),
      n: Array.from({ length: n }, (_, i) => i * 3 + salt),
    });
    const cases = [
      { rows: 5_000, pageSize: 1 << 20, dictionary: false }, // one page per column
      { rows: 60_000, pageSize: 16 * 1024, dictionary: true }, // many pages, dictionaries
    ];
    for (const [use, compression] of ([false, "always", true] as const).flatMap((u) => (["zstd", "snappy"] as const).map((c) => [u, c] as const))) {
      for (const { rows, pageSize, dictionary } of cases) {
        const a = make(rows, 1);
        const b = make(rows, 2);
        const fileA = await writeParquet(fields, batch(fields, a), { compression, pageSize, dictionary });
        const fileB = await writeParquet(fields, batch(fields, b), { compression, pageSize, dictionary });
        setDecompressionWorker(use);
        const first = await readParquet(fileA.bytes, { fields });
        const ipc = arrow.tableToIPC(first, "stream");
        // the flat decoder's own Data (it takes every chunk: none is left to parquet-wasm, whose
        // fallback would hide a decoder that read overwritten memory)
        const flatA = await decodeFlat(fileA.bytes, fields.length);
        expect(flatA, `${use} ${compression} ${rows}`).toEqual(fields.map((f) => a[f.name as keyof typeof a]));
        const dataA = await decodeFlatData(fileA.bytes, fields.length);
        for (const f of fields) expect(tableColumn(first, f.name, f.type), `${use} ${compression} ${rows} ${f.name}`).toEqual(a[f.name as keyof typeof a]);
        // reads of the other file (and of the same one) reuse the heap, the pool and the spare buffers
        const second = await readParquet(fileB.bytes, { fields });
        await Promise.all([readParquet(fileB.bytes, { fields }), readParquet(fileA.bytes, { fields }), decodeFlat(fileB.bytes, fields.length)]);
        for (const f of fields) expect(tableColumn(second, f.name, f.type), `${use} ${compression} ${rows} ${f.name}`).toEqual(b[f.name as keyof typeof b]);
        for (const f of fields) expect(tableColumn(first, f.name, f.type), `${use} ${compression} ${rows} ${f.name} after`).toEqual(a[f.name as keyof typeof a]);
        expect(Buffer.compare(arrow.tableToIPC(first, "stream"), ipc)).toBe(0);
        expect(dataA.map((d) => [...arrow.makeVector(d)]), `${use} ${compression} ${rows} flat after`).toEqual(fields.map((f) => a[f.name as keyof typeof a]));
      }
    }
  }, 120_000);

  it("zstd content decompressed into the zstd heap is the frame's exact content, a view that the next decompression overwrites (the flat decoder decodes each page before the next call)", async () => {
    const view = await zstdHeapView();
    // Node reaches the package's emscripten module; Deno and Bun may not (then pages are copied out as before)
    if (!onNode && view === null) return;
    expect(view).toBeTypeOf("function");
    if (!view) return;
    const zstd = (await loadZstd())!;
    const a = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) & 0xff);
    const b = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13 + 5) & 0xff);
    const first = view(zstd.compress(a, 3), a.length);
    expect(Buffer.compare(first, a)).toBe(0);
    const second = view(zstd.compress(b, 3), b.length);
    expect(Buffer.compare(second, b)).toBe(0);
    expect(first.byteOffset).toBe(second.byteOffset); // the same memory: the first content is gone
    expect(Buffer.compare(new Uint8Array(second.buffer, first.byteOffset, first.length), b)).toBe(0);
    // a frame whose content is not `size` bytes throws (the decoder then leaves the chunk to parquet-wasm)
    expect(() => view(zstd.compress(a, 3), a.length - 1)).toThrow();
    expect(() => view(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), 8)).toThrow();
  });

  it("the page worker decompresses in its zstd heap into spare buffers: exact contents, a released buffer is kept for later pages, a bad frame resolves to undefined", async () => {
    setDecompressionWorker("always");
    const worker = pageWorker()!;
    expect(await worker.started()).toBe(true);
    if (onNode) expect(worker.heapDecompression).toBe(true); // else it may copy out of decompressUsingDict: the same contents
    const zstd = (await loadZstd())!;
    const a = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 7) & 0xff);
    const b = Uint8Array.from({ length: 40_000 }, (_, i) => (i * 11 + 3) & 0xff);
    const pa = worker.decompress(zstd.compress(a, 3), a.length, "zstd", true)!;
    expect(pa.busy()).toBe(false); // handed over "always": the caller does not work around it
    const ca = (await pa.content)!;
    expect(Buffer.compare(ca, a)).toBe(0);
    const kept = worker.spareBuffers;
    pa.release(); // its buffer joins the spares (at most 8 kept), for later pages
    expect(worker.spareBuffers).toBe(Math.min(kept + 1, 8));
    const pb = worker.decompress(zstd.compress(b, 3), b.length, "zstd", true)!;
    const cb = (await pb.content)!;
    expect(Buffer.compare(cb, b)).toBe(0);
    pb.release();
    const bad = worker.decompress(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), 8, "zstd", true)!;
    expect(await bad.content).toBeUndefined();
    bad.release();
  });

  it("snappy content decompressed into kernel memory is the block's exact content, a view that the next decompression overwrites; a malformed or truncated block, or a content of another size, throws", async () => {
    const view = snappyView();
    const a = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) & 0xff);
    const b = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13 + 5) & 0xff);
    const blockA = snappyCompress(a);
    const first = view(blockA, a.length);
    expect(Buffer.compare(first, a)).toBe(0);
    const second = view(snappyCompress(b), b.length);
    expect(Buffer.compare(second, b)).toBe(0);
    expect(first.byteOffset).toBe(second.byteOffset); // the same memory: the first content is gone
    expect(Buffer.compare(new Uint8Array(second.buffer, first.byteOffset, first.length), b)).toBe(0);
    expect(() => view(blockA, a.length - 1)).toThrow(/malformed/); // more content than the page says
    expect(() => view(blockA, a.length + 1)).toThrow(/70000 bytes, the page says 70001/);
    for (const cut of [0, 1, 2, 3, blockA.length >> 1, blockA.length - 1]) expect(() => view(blockA.subarray(0, cut), a.length), `cut at ${cut}`).toThrow(/malformed/);
    expect(() => view(new Uint8Array([8, 0x11, 0xff]), 8)).toThrow(/malformed/); // a copy reaching before the start
    // and it goes on working
    expect(Buffer.compare(view(blockA, a.length), a)).toBe(0);
  });

  it("the page worker decompresses snappy blocks with its own kernel instance into spare buffers: exact contents, a bad block resolves to undefined", async () => {
    setDecompressionWorker("always");
    const worker = pageWorker()!;
    expect(await worker.started()).toBe(true);
    expect(worker.snappy).toBe(true);
    for (const n of [0, 1, 17, 50_000, 300_001]) {
      const content = Uint8Array.from({ length: n }, (_, i) => (i % 251) ^ (i >> 9));
      const page = worker.decompress(snappyCompress(content), n, "snappy", true)!;
      expect(Buffer.compare((await page.content)!, content), `${n} bytes`).toBe(0);
      page.release();
    }
    const block = snappyCompress(Uint8Array.from({ length: 1000 }, (_, i) => (Math.imul(i, 2654435761) >>> 24) & 0xff)); // little to compress
    expect(block.length).toBeGreaterThan(900);
    for (const [bad, size] of [[block, 999], [block, 1001], [block.subarray(0, 500), 1000], [new Uint8Array([8, 0x11, 0xff]), 8]] as const) {
      const page = worker.decompress(bad, size, "snappy", true)!;
      expect(await page.content).toBeUndefined();
      page.release();
    }
  });

  it("corrupt SNAPPY pages (bytes changed, the page crc made to match) give CORRUPT_FILE naming the file; the flat decoder refuses the chunk, parquet-wasm reports it; randomly flipped bytes read exactly as parquet-wasm reads them", async () => {
    const fields = [F(1, "id", notNull(T.BIGINT())), F(2, "s", T.STRING()), F(3, "d", T.DOUBLE())];
    const n = 4000;
    const cols = {
      id: Array.from({ length: n }, (_, i) => BigInt(i) * 3n),
      s: Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `s-${i % 97}-${i}`)),
      d: Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i / 4)),
    };
    const written = await writeParquet(fields, batch(fields, cols), { compression: "snappy", dictionary: false, pageSize: 8 * 1024 });
    const pages = pagesOf(written.bytes).filter((p) => getNumber(p.header, 1) === 0);
    expect(pages.length).toBeGreaterThan(6);
    /** The file with page `p`'s body edited and its crc made to match (undefined when the header would change size). */
    const edited = (p: (typeof pages)[number], edit: (body: Uint8Array) => void): Uint8Array | undefined => {
      const copy = written.bytes.slice();
      edit(copy.subarray(p.bodyStart, p.bodyEnd));
      const header = structuredClone(p.header);
      setField(header, 4, T_I32, crc32(copy.subarray(p.bodyStart, p.bodyEnd)) | 0);
      const bytes = serializeStruct(header);
      if (bytes.length !== p.bodyStart - p.at) return undefined;
      copy.set(bytes, p.at);
      return copy;
    };
    /** The file column whose chunk holds page `p`. */
    const writtenFooter = await readFooter(toByteSource(written.bytes, "x"));
    const columnOf = (p: (typeof pages)[number]) =>
      fields.findIndex((_, c) => {
        const r = writtenFooter.rowGroups[0]!.chunks[writtenFooter.columns[c]!.leafStart]!;
        return r.start <= p.at && p.at < r.start + r.length;
      });
    const readErr = async (bytes: Uint8Array, name: string) => readParquet(bytes, { fields, fileName: name }).then(() => undefined, (e: unknown) => e);
    const varintEnd = (body: Uint8Array) => {
      let h = 0;
      while (body[h]! & 0x80) h++;
      return h + 1;
    };
    const corruptions: Array<[string, (body: Uint8Array) => void]> = [
      ["declared length one more", (body) => void (body[0]! ^= 1)], // a page size is even: +1 (or it differs by one either way)
      ["first tag a copy before the start", (body) => body.set([0x11, 0xff], varintEnd(body))],
      ["a literal running past the end", (body) => body.set([0xfc, 0xff, 0xff, 0xff, 0x0f], varintEnd(body))], // 60+4-byte length literal
    ];
    let refused = 0;
    for (const p of [pages[0]!, pages[Math.floor(pages.length / 2)]!, pages[pages.length - 1]!]) {
      for (const [what, edit] of corruptions) {
        const bad = edited(p, edit);
        if (!bad) continue;
        const name = `bad-snappy-${p.at}.parquet`;
        const e = await readErr(bad, name);
        expect(e, what).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code, what).toBe("CORRUPT_FILE");
        expect((e as PaimonError).message, what).toContain(name);
        // the flat decoder itself refused that chunk (whole, and as a selective read's pages), took the others
        const src = toByteSource(bad, name);
        const footer = await readFooter(src);
        const flat = (await prefetchFlatDecoder())!;
        const decoded = await flat.decodeFlatColumns(src, footer, [0, 1, 2], 0);
        const c = columnOf(p);
        expect(decoded.map((d) => d !== undefined), what).toEqual([0, 1, 2].map((i) => i !== c));
        expect(await flat.decodeFlatPages(src, footer, c, 0, undefined), what).toBeUndefined();
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(6);
    // random flips: whatever the block decodes to, the read is parquet-wasm's (an error or the same rows)
    let errors = 0;
    let seed = 12345;
    const rand = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    for (let i = 0; i < 40; i++) {
      const p = pages[rand(pages.length)]!;
      const bad = edited(p, (body) => {
        for (let f = 1 + rand(3); f > 0; f--) body[rand(body.length)] ^= 1 << rand(8);
      });
      if (!bad) continue;
      const flatResult = await readParquet(bad, { fields, fileName: "flip.parquet" }).catch((e: unknown) => e);
      setFlatDecoding(false);
      const wasmResult = await readParquet(bad, { fields, fileName: "flip.parquet" }).catch((e: unknown) => e);
      setFlatDecoding(true);
      if (wasmResult instanceof arrow.Table) {
        expect(flatResult).toBeInstanceOf(arrow.Table);
        expectSame(flatResult as arrow.Table, wasmResult, fields);
      } else {
        errors++;
        expect(flatResult).toBeInstanceOf(PaimonError);
        expect((flatResult as PaimonError).code).toBe("CORRUPT_FILE");
        expect((flatResult as PaimonError).message).toContain("flip.parquet");
      }
    }
    expect(errors).toBeGreaterThan(0);
    // the file itself reads as written
    const ok = await readParquet(written.bytes, { fields });
    for (const f of fields) expect(tableColumn(ok, f.name, f.type), f.name).toEqual(cols[f.name as keyof typeof cols]);
  });

  it("an uncompressed file in a Node Buffer (a view of a shared pool) decodes to the written values: nullable fixed-width PLAIN pages and dictionaries copy their own bytes", async () => {
    const fields = [F(1, "i", T.INT()), F(2, "d", T.DOUBLE()), F(3, "l", T.BIGINT())];
    const cols = { i: [7, null, -3, 7], d: [null, 0.25, 1.5, 0.25], l: [1n, 2n, null, 1n] };
    for (const dictionary of [false, true]) {
      const written = await writeParquet(fields, batch(fields, cols), { compression: "none", dictionary });
      const pooled = pooledBuffer(written.bytes);
      const back = await readParquet(pooled, { fields });
      for (const f of fields) expect(tableColumn(back, f.name, f.type), `${f.name}, dictionary ${dictionary}`).toEqual(cols[f.name as keyof typeof cols]);
    }
  });
});

describe("PLAIN byte-array pages by the kernel module (wasm/src/pages.rs)", () => {
  const fields = [F(1, "s", T.STRING()), F(2, "y", T.BYTES()), F(3, "ns", notNull(T.STRING()))];
  const str = fc.oneof(fc.constantFrom("", "a", "ü€😀", "x".repeat(40)), fc.string({ unit: "grapheme", maxLength: 60 }));
  const bytesArb = fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 70 }));

  /** Each column's Data decoded with the kernel, then with the decoder's own loop. */
  async function bothWays(bytes: Uint8Array): Promise<[arrow.Data[], arrow.Data[]]> {
    await initKernels();
    expect(loadedKernelFrame()).toBeDefined(); // the decoder gets a frame: the kernel path is taken
    setByteArrayKernel(true);
    const kernel = await decodeFlatData(bytes, fields.length);
    setByteArrayKernel(false);
    const loop = await decodeFlatData(bytes, fields.length);
    setByteArrayKernel(true);
    return [kernel, loop];
  }

  it("randomized: offsets, bytes and validity equal the decoder's loop (empty values, multi-byte UTF-8, nulls, page boundaries inside validity bytes, uncompressed, zstd and snappy pages: these split in place in kernel memory)", async () => {
    const n = fc.integer({ min: 1, max: 300 });
    const nullable = <V>(g: fc.Arbitrary<V>, rate: number) => fc.oneof({ weight: rate, arbitrary: fc.constant(null) }, { weight: 100 - rate, arbitrary: g });
    const colsArb = fc.tuple(n, fc.constantFrom(0, 10, 60, 100)).chain(([rows, rate]) =>
      fc.record({
        s: fc.array(nullable(str, rate), { minLength: rows, maxLength: rows }),
        y: fc.array(nullable(bytesArb, rate), { minLength: rows, maxLength: rows }),
        ns: fc.array(str, { minLength: rows, maxLength: rows }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(colsArb, fc.constantFrom("none", "zstd", "snappy"), fc.constantFrom(64, 333, 1 << 20), async (cols, compression, pageSize) => {
        const written = await writeParquet(fields, batch(fields, cols), { compression, dictionary: false, pageSize });
        const [kernel, loop] = await bothWays(written.bytes);
        for (let c = 0; c < fields.length; c++) {
          const k = kernel[c]!;
          const l = loop[c]!;
          expect(k.nullCount).toBe(l.nullCount);
          expect(k.valueOffsets).toEqual(l.valueOffsets);
          expect(k.values).toEqual(l.values);
          expect(k.nullBitmap).toEqual(l.nullBitmap);
          expect(dataValues(k, fields[c]!.type), fields[c]!.name).toEqual(cols[fields[c]!.name as keyof typeof cols]);
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);

  it("a length running past the page end gives the same CORRUPT_FILE as the decoder's loop (parquet-wasm reports it)", async () => {
    const one = [F(1, "s", notNull(T.STRING()))];
    const values = Array.from({ length: 50 }, (_, i) => `value-${i}`);
    const written = await writeParquet(one, batch(one, { s: values }), { compression: "none", dictionary: false });
    const page = pagesOf(written.bytes).find((p) => getNumber(p.header, 1) === 0)!;
    const headerBytes = written.bytes.subarray(page.at, page.bodyStart);
    const prefix = written.bytes.indexOf(7, page.bodyStart); // "value-0"'s length, 7
    expect(new TextDecoder().decode(written.bytes.subarray(prefix + 4, prefix + 11))).toBe("value-0");
    let bad: Uint8Array | undefined;
    // a length past the page end, with the page's crc made to match (a header of the same size)
    for (let extra = 1000; !bad; extra++) {
      const copy = written.bytes.slice();
      new DataView(copy.buffer).setUint32(prefix, 7 + extra, true);
      setField(page.header, 4, T_I32, crc32(copy.subarray(page.bodyStart, page.bodyEnd)) | 0);
      const header = serializeStruct(page.header);
      if (header.length !== headerBytes.length) continue;
      copy.set(header, page.at);
      bad = copy;
    }
    const errors: unknown[] = [];
    for (const on of [true, false]) {
      await initKernels();
      setByteArrayKernel(on);
      errors.push(await readParquet(bad, { fields: one, fileName: "bad.parquet" }).then(() => undefined, (e: unknown) => e));
    }
    for (const e of errors) {
      expect(e).toBeInstanceOf(PaimonError);
      expect((e as PaimonError).code).toBe("CORRUPT_FILE");
      expect((e as PaimonError).message).toContain("bad.parquet");
    }
    expect((errors[0] as Error).message).toBe((errors[1] as Error).message);
    // the page itself: the flat decoder refuses it either way (and the file reads fine unchanged)
    for (const on of [true, false]) {
      setByteArrayKernel(on);
      const src = toByteSource(bad, "bad.parquet");
      const footer = await readFooter(src);
      expect(await (await prefetchFlatDecoder())!.decodeFlatColumns(src, footer, [0], 0)).toEqual([undefined]);
      expect(tableColumn(await readParquet(written.bytes, { fields: one }), "s", T.STRING())).toEqual(values);
    }
  });
});
