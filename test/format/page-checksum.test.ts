// Parquet page checksums (written on every page, verified on read) and INT96 for TIMESTAMP(7-9)
// (issue 14): the post-write pass of src/format/parquet-pages.ts and the reader's verification.
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { crc32, crc32Js } from "../../src/kernel/deletion-vector.js";
import { checkInt96Range } from "../../src/format/parquet-pages.js";
import { readParquet, readParquetFooter, writeParquet } from "../../src/format/index.js";
import { PaimonError } from "../../src/error.js";
import { DataTypes as T, type DataField } from "../../src/spec/types.js";
import { getList, getNumber, getStruct, getValue, parseStruct, type TStruct, type TValue } from "../../src/format/thrift.js";
import { batch, footerOf, pagesOf, tableColumn } from "./helpers.js";

const F = T.FIELD;

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

const fields = [F(0, "id", T.BIGINT()), F(1, "s", T.STRING()), F(2, "d", T.DOUBLE())];
const ids = Array.from({ length: 300 }, (_, i) => BigInt(i * 7919));
function rowsOf(ids: bigint[]) {
  return { id: ids, s: ids.map((i) => `v-${i % 37n}`), d: ids.map((i) => (i % 5n === 0n ? null : Number(i) / 3)) };
}
const rows = rowsOf(ids);
/** Enough rows for several data pages per column (parquet-rs checks the page size every 1024 values). */
const manyRows = rowsOf(Array.from({ length: 5000 }, (_, i) => BigInt(i * 7919)));

describe("CRC-32", () => {
  it("the portable slicing-by-8 loop and the native one equal zlib's for any bytes, offset and continuation", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(16), fc.nat(), (bytes, skip, split) => {
        const data = bytes.subarray(Math.min(skip, bytes.length));
        const want = zlibCrc32(data);
        expect(crc32Js(data)).toBe(want);
        expect(crc32(data)).toBe(want);
        const at = data.length === 0 ? 0 : split % data.length;
        expect(crc32Js(data.subarray(at), crc32Js(data.subarray(0, at)))).toBe(want);
      }),
      { numRuns: 500 },
    );
    expect(crc32Js(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
  });
});

describe("Parquet page checksums", () => {
  it("every data and dictionary page we write carries the CRC-32 of its stored bytes", async () => {
    for (const compression of ["zstd", "snappy", "none"]) {
      const file = await writeParquet(fields, batch(fields, manyRows), { compression, pageSize: 512 });
      const pages = pagesOf(file.bytes);
      const types = new Set(pages.map((p) => getNumber(p.header, 1)));
      expect(types).toEqual(new Set([0, 2])); // DATA_PAGE and DICTIONARY_PAGE
      expect(pages.length).toBeGreaterThan(6);
      for (const p of pages) expect(getNumber(p.header, 4)! >>> 0).toBe(zlibCrc32(file.bytes.subarray(p.bodyStart, p.bodyEnd)));
      const t = await readParquet(file.bytes, { fields });
      expect(tableColumn(t, "id", T.BIGINT())).toEqual(manyRows.id);
      expect(tableColumn(t, "s", T.STRING())).toEqual(manyRows.s);
      expect(tableColumn(t, "d", T.DOUBLE())).toEqual(manyRows.d);
    }
  });

  it("the footer's offsets and sizes match the re-emitted pages", async () => {
    const file = await writeParquet(fields, batch(fields, manyRows), { pageSize: 512, rowGroupRows: 2048 });
    const fm = footerOf(file.bytes);
    const pages = pagesOf(file.bytes);
    const starts = new Set(pages.map((p) => p.at));
    for (const rg of getList(fm, 4) as TStruct[]) {
      let compressed = 0;
      for (const cc of getList(rg, 1) as TStruct[]) {
        const md = getStruct(cc, 3)!;
        expect(starts.has(getNumber(md, 9)!)).toBe(true);
        compressed += getNumber(md, 7)!;
        // Offset index: every page location points at a data page header and spans the whole page.
        const oi = getNumber(cc, 4);
        if (oi !== undefined) {
          const index = parseStruct(file.bytes, oi, oi + getNumber(cc, 5)!).value;
          for (const loc of getList(index, 1) as TStruct[]) {
            const page = pages.find((p) => p.at === getNumber(loc, 1));
            expect(page && getNumber(page.header, 1)).toBe(0);
            expect(getNumber(loc, 2)).toBe(page!.bodyEnd - page!.at);
          }
        }
      }
      if (getNumber(rg, 6) !== undefined) expect(getNumber(rg, 6)).toBe(compressed);
    }
    expect(tableColumn(await readParquet(file.bytes, { fields }), "d", T.DOUBLE())).toEqual(manyRows.d);
  });

  it("randomized: any row groups, page sizes, codecs, nulls and INT96 columns give correct CRCs, offsets and values", async () => {
    const propFields: DataField[] = [F(0, "id", T.BIGINT()), F(1, "s", T.STRING()), F(2, "t9", T.TIMESTAMP(9)), F(3, "arr", T.ARRAY(T.TIMESTAMP_LTZ(9)))];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.option(fc.string({ maxLength: 12 })), fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }))), {
          minLength: 1,
          maxLength: 3000,
        }),
        fc.constantFrom("zstd", "snappy", "none", "gzip"),
        fc.integer({ min: 64, max: 4096 }),
        fc.integer({ min: 100, max: 5000 }),
        fc.boolean(),
        async (tuples, compression, pageSize, rowGroupRows, dictionary) => {
          const data = {
            id: tuples.map((t) => t[0]),
            s: tuples.map((t) => t[1]),
            t9: tuples.map((t) => t[2]),
            arr: tuples.map((t, i) => (i % 4 === 0 ? null : [t[2], t[0]])),
          };
          const file = await writeParquet(propFields, batch(propFields, data), { compression, pageSize, rowGroupRows, dictionary });
          const pages = pagesOf(file.bytes);
          for (const p of pages) expect(getNumber(p.header, 4)! >>> 0).toBe(zlibCrc32(file.bytes.subarray(p.bodyStart, p.bodyEnd)));
          const starts = new Map(pages.map((p) => [p.at, p]));
          for (const rg of getList(footerOf(file.bytes), 4) as TStruct[]) {
            for (const cc of getList(rg, 1) as TStruct[]) {
              const oi = getNumber(cc, 4);
              if (oi === undefined) continue;
              for (const loc of getList(parseStruct(file.bytes, oi, oi + getNumber(cc, 5)!).value, 1) as TStruct[]) {
                const page = starts.get(getNumber(loc, 1)!);
                expect(page && getNumber(loc, 2)).toBe(page && page.bodyEnd - page.at);
              }
            }
          }
          const t = await readParquet(file.bytes, { fields: propFields });
          expect(tableColumn(t, "id", T.BIGINT())).toEqual(data.id);
          expect(tableColumn(t, "s", T.STRING())).toEqual(data.s);
          expect(tableColumn(t, "t9", T.TIMESTAMP(9))).toEqual(data.t9);
          expect(tableColumn(t, "arr", T.ARRAY(T.TIMESTAMP_LTZ(9)))).toEqual(data.arr);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it("any single flipped byte in a page body is CORRUPT_FILE naming the file, row group, column and page", async () => {
    const file = await writeParquet(fields, batch(fields, rows), { compression: "zstd", pageSize: 1024 });
    const pages = pagesOf(file.bytes);
    let flips = 0;
    for (const [k, p] of pages.entries()) {
      for (let pos = p.bodyStart; pos < p.bodyEnd; pos++) {
        const bad = file.bytes.slice();
        bad[pos] ^= 1 << (pos % 8);
        const e = await caught(readParquet(bad, { fields, fileName: "flip.parquet" }));
        expect(e).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code).toBe("CORRUPT_FILE");
        expect((e as PaimonError).message).toMatch(/^Corrupt Parquet file flip\.parquet: row group 0, column (id|s|d), page \d+: page checksum mismatch/);
        flips++;
      }
      if (k === 0) {
        const bad = file.bytes.slice();
        bad[p.bodyStart] ^= 0xff;
        await expect(readParquet(bad, { fields, fileName: "f.parquet" })).rejects.toThrow(`row group 0, column id, page 0: page checksum mismatch`);
      }
    }
    expect(flips).toBeGreaterThan(500);
  });

  it("pages without a crc (as pyarrow and older writers leave them) are read unverified", async () => {
    const file = await writeParquet(fields, batch(fields, rows), { compression: "none" });
    // Strip the crc field (id 4) from every page header: rebuild the file without it.
    const { serializeStruct, removeFields } = await import("../../src/format/thrift.js");
    const pages = pagesOf(file.bytes);
    const first = pages[0]!;
    removeFields(first.header, 4);
    const header = serializeStruct(first.header);
    // Same length replacement is impossible, so check the verifier directly on the chunk instead.
    const chunk = new Uint8Array(header.length + first.bodyEnd - first.bodyStart);
    chunk.set(header, 0);
    chunk.set(file.bytes.subarray(first.bodyStart, first.bodyEnd), header.length);
    chunk[header.length] ^= 0xff; // no crc: nothing to check against
    const { verifyChunkChecksums } = await import("../../src/format/parquet-pages.js");
    expect(() => verifyChunkChecksums(chunk, "x.parquet", "row group 0, column id")).not.toThrow();
    const withCrc = file.bytes.slice(first.at, first.bodyEnd);
    withCrc[withCrc.length - 1] ^= 0xff;
    expect(() => verifyChunkChecksums(withCrc, "x.parquet", "row group 0, column id")).toThrow(
      /Corrupt Parquet file x\.parquet: row group 0, column id, page 0: page checksum mismatch \(header crc [0-9a-f]{8}, page bytes [0-9a-f]{8}\)/,
    );
  });
});

// 1970-01-01T00:00:00Z ± a few nanoseconds, pre-1970, and the ends of Timestamp(ns).
const NS = [0n, 1n, -1n, 86_399_999_999_999n, -86_400_000_000_000n, -1_000_000n - 1n, 1_700_000_000_123_456_789n, -9_223_372_036_854_775_807n, 9_223_372_036_854_775_807n];

function int96Of(ns: bigint): Uint8Array {
  const day = ns >= 0n ? ns / 86_400_000_000_000n : -((-ns + 86_399_999_999_999n) / 86_400_000_000_000n);
  const out = new Uint8Array(12);
  const v = new DataView(out.buffer);
  v.setBigInt64(0, ns - day * 86_400_000_000_000n, true);
  v.setInt32(8, Number(day + 2_440_588n), true);
  return out;
}

describe("TIMESTAMP(7-9) as INT96", () => {
  const tsFields: DataField[] = [
    F(0, "t9", T.TIMESTAMP(9)),
    F(1, "l9", T.TIMESTAMP_LTZ(9)),
    F(2, "t7", T.TIMESTAMP(7)),
    F(3, "t6", T.TIMESTAMP(6)),
    F(4, "arr", T.ARRAY(T.TIMESTAMP(9))),
  ];
  const values = [...NS, null];
  const micros = values.map((v) => (v === null ? null : v / 1000n));
  const arrays = values.map((v, i) => (i % 3 === 0 ? null : [v, 5n]));

  it("writes INT96 leaves (no logical type, no bounds) with Julian day + nanos of day, and reads them back exactly", async () => {
    // GZIP: its range check loads fflate on demand (spec/fflate.ts), SNAPPY the kernel
    for (const [dictionary, compression] of [[true, "snappy"], [false, "snappy"], [true, "gzip"], [false, "gzip"]] as const) {
      const file = await writeParquet(tsFields, batch(tsFields, { t9: values, l9: values, t7: values, t6: micros, arr: arrays }), { dictionary, compression });
      const fm = footerOf(file.bytes);
      const leaves = (getList(fm, 2) as TStruct[]).filter((el) => getNumber(el, 1) !== undefined);
      expect(leaves.map((el) => getNumber(el, 1))).toEqual([3, 3, 3, 2, 3]); // INT96 ×3, INT64, INT96 element
      for (const i of [0, 1, 2, 4]) {
        expect(getNumber(leaves[i]!, 2)).toBeUndefined(); // no type_length
        expect(getStruct(leaves[i]!, 10)).toBeUndefined(); // no logical type
        const md = getStruct((getList((getList(fm, 4) as TStruct[])[0]!, 1) as TStruct[])[i]!, 3)!;
        expect(getNumber(md, 1)).toBe(3);
        const st = getStruct(md, 12);
        if (st) for (const id of [1, 2, 5, 6]) expect(st.fields.some((f) => f.id === id)).toBe(false);
      }
      const t = await readParquet(file.bytes, { fields: tsFields });
      expect(tableColumn(t, "t9", T.TIMESTAMP(9))).toEqual(values);
      expect(tableColumn(t, "l9", T.TIMESTAMP_LTZ(9))).toEqual(values);
      expect(tableColumn(t, "t7", T.TIMESTAMP(7))).toEqual(values);
      expect(tableColumn(t, "t6", T.TIMESTAMP(6))).toEqual(micros);
      expect(tableColumn(t, "arr", T.ARRAY(T.TIMESTAMP(9)))).toEqual(arrays);
      expect(t.schema.fields[1]!.type.toString()).toBe("Timestamp<NANOSECOND, UTC>");
    }
  });

  it("stores exactly the INT96 bytes (floored Julian day, nanos of day in [0, 86400e9))", async () => {
    const f = [F(0, "t9", { kind: "TIMESTAMP", nullable: false, precision: 9 })];
    const file = await writeParquet(f, batch(f, { t9: NS }), { dictionary: false, compression: "none" });
    const page = pagesOf(file.bytes).find((p) => getNumber(p.header, 1) === 0)!;
    const body = file.bytes.subarray(page.bodyStart, page.bodyEnd);
    const expected = new Uint8Array(NS.length * 12);
    NS.forEach((v, i) => expected.set(int96Of(v), i * 12));
    // A required column's PLAIN v1 page is just the values.
    expect(Buffer.from(body).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
    expect(Buffer.from(int96Of(-1n)).toString("hex")).toBe("ffff4e91944e0000" + "8b3d2500") // 86399999999999 ns into Julian day 2440587 (1969-12-31);
  });

  it("the ARROW:schema hint names Timestamp(ns) for INT96 columns", async () => {
    const file = await writeParquet(tsFields, batch(tsFields, { t9: values, l9: values, t7: values, t6: micros, arr: arrays }));
    const footer = await readParquetFooter(file.bytes);
    const text = (v: TValue | undefined) => new TextDecoder().decode(v as Uint8Array);
    const entry = (getList(footer.raw, 5) as TStruct[]).find((e) => text(getValue(e, 1)) === "ARROW:schema");
    const hint = entry && text(getValue(entry, 2));
    expect(hint).toBeDefined();
    const { tableFromIPC } = await import("apache-arrow");
    const raw = Buffer.from(hint!, "base64");
    const eos = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    const schema = tableFromIPC(Buffer.concat([raw, eos])).schema;
    expect(schema.fields.map((x) => x.type.toString())).toEqual([
      "Timestamp<NANOSECOND>",
      "Timestamp<NANOSECOND, UTC>",
      "Timestamp<NANOSECOND>",
      "Timestamp<MICROSECOND>",
      "List<Timestamp<NANOSECOND>>",
    ]);
  });
  it("an INT96 value outside int64 nanoseconds (years before 1677 / after 2262, as Java writes them) is UNSUPPORTED, not wrapped", async () => {
    // PLAIN data pages here (parquet-rs writes no dictionary for these); Java's dictionary pages:
    // test/interop/int96-checksum-interop.test.ts.
    {
      for (const nullable of [false, true]) {
        const f = [F(0, "t9", { kind: "TIMESTAMP", nullable, precision: 9 })];
        const file = await writeParquet(f, batch(f, { t9: [5n, 0n, 5n] }), { dictionary: false, compression: "none" });
        // The value 5 ns is Julian day 2440588: find its 12 bytes in the page holding the values.
        const page = pagesOf(file.bytes).find((p) => getNumber(p.header, 1) === 0)!;
        const at = Buffer.from(file.bytes.subarray(page.bodyStart, page.bodyEnd)).indexOf(Buffer.from(int96Of(5n)));
        expect(at).toBeGreaterThanOrEqual(0);
        const levels = { maxRep: 0, maxDef: nullable ? 1 : 0 };
        for (const [julian, ok] of [
          [2440588 + 106_751, true], // 2262-04-11, 5 ns into the day: still in range
          [2440588 - 106_751, true], // 1677-09-22
          [1721426, false], // 0001-01-01
          [5373484, false], // 9999-12-31
          [2440588 - 106_752, false], // 1677-09-20
        ] as const) {
          const page_ = file.bytes.slice(page.at, page.bodyEnd);
          new DataView(page_.buffer).setInt32(page.bodyStart - page.at + at + 8, julian, true);
          const check = () => checkInt96Range(page_, 0, levels, "old.parquet", "row group 0, column t9");
          if (ok) expect(check).not.toThrow();
          else
            expect(check).toThrow(
              new PaimonError(
                "UNSUPPORTED",
                `Parquet file old.parquet, row group 0, column t9: INT96 timestamp on Julian day ${julian} is outside what TIMESTAMP(7-9) holds in Arrow (int64 nanoseconds, 1677-09-21 to 2262-04-11)`,
              ),
            );
        }
      }
    }
  });
});

