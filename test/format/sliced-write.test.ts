// Large Parquet files are encoded in slices through parquet-wasm's streaming writer (issue 14:
// peak memory holds one slice and the row group being encoded, not a copy of the whole input),
// and the post-write pass reads the streamed pieces without joining them.
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as arrow from "apache-arrow";
import { ParquetFileWriter, getParquetWasm, readParquet, writeParquet } from "../../src/format/index.js";
import { finishParquetFile } from "../../src/format/parquet-finish.js";
import { PaimonError } from "../../src/error.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { getList, getNumber } from "../../src/format/thrift.js";
import { batch, footerOf, pagesOf, tableColumn } from "./helpers.js";

const F = T.FIELD;
const fields = [F(0, "id", T.BIGINT()), F(1, "s", T.STRING()), F(2, "d", T.DOUBLE()), F(3, "t", T.TIMESTAMP(9))];

function rowsOf(from: number, n: number) {
  const id = Array.from({ length: n }, (_, i) => BigInt((from + i) * 7919));
  return {
    id,
    s: id.map((i) => (i % 11n === 0n ? null : `v-${i % 1301n}`)),
    d: id.map((i) => (i % 5n === 0n ? null : i % 97n === 0n ? Number.NaN : Number(i) / 3)),
    t: id.map((i) => (i % 7n === 0n ? null : 1_700_000_000_000_000_123n + i)),
  };
}

/** Batches of the given sizes with consecutive rows. */
function batches(sizes: number[]): { parts: arrow.RecordBatch[]; all: ReturnType<typeof rowsOf> } {
  const total = sizes.reduce((a, b) => a + b, 0);
  const all = rowsOf(0, total);
  const parts: arrow.RecordBatch[] = [];
  let at = 0;
  for (const n of sizes) {
    parts.push(batch(fields, rowsOf(at, n)));
    at += n;
  }
  return { parts, all };
}

async function write(parts: arrow.RecordBatch[], sliceRows: number, rowGroupRows: number, compression = "zstd") {
  const w = new ParquetFileWriter(fields, { compression, sliceRows, rowGroupRows });
  for (const p of parts) w.write(p);
  return w.finish();
}

describe("sliced Parquet encoding", () => {
  it("writes the same rows, row groups and statistics as the whole-input encoding, with page checksums", async () => {
    const { parts, all } = batches([700, 2500, 1, 5000, 1800]);
    for (const compression of ["zstd", "snappy"]) {
      const whole = await write(parts, 0, 3000, compression);
      const sliced = await write(parts, 1024, 3000, compression);
      expect(sliced.rowCount).toBe(10001);
      expect(sliced.stats).toEqual(whole.stats);
      const groups = (f: Uint8Array) => (getList(footerOf(f), 4) as never[]).map((rg) => getNumber(rg, 3));
      expect(groups(sliced.bytes)).toEqual([3000, 3000, 3000, 1001]);
      expect(groups(whole.bytes)).toEqual([3000, 3000, 3000, 1001]);
      const pages = pagesOf(sliced.bytes);
      expect(pages.length).toBeGreaterThanOrEqual(16);
      for (const p of pages) expect(getNumber(p.header, 4)! >>> 0).toBe(zlibCrc32(sliced.bytes.subarray(p.bodyStart, p.bodyEnd)));
      const t = await readParquet(sliced.bytes, { fields });
      expect(tableColumn(t, "id", T.BIGINT())).toEqual(all.id);
      expect(tableColumn(t, "s", T.STRING())).toEqual(all.s);
      expect(tableColumn(t, "d", T.DOUBLE())).toEqual(all.d);
      expect(tableColumn(t, "t", T.TIMESTAMP(9))).toEqual(tableColumn(await readParquet(whole.bytes, { fields }), "t", T.TIMESTAMP(9)));
    }
  });

  it("large inputs are sliced by default and read back exactly", async () => {
    // ~30 MiB of Arrow data: above the slicing threshold.
    const n = 400_000;
    const id = new BigInt64Array(n);
    const s = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      id[i] = BigInt(i);
      s[i] = `key-${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, "0")}-${"x".repeat(i % 100)}`;
    }
    const f2 = [F(0, "id", T.BIGINT()), F(1, "s", T.STRING())];
    const data = new arrow.Table({ id: arrow.makeVector(id), s: arrow.vectorFromArray(s, new arrow.Utf8()) });
    const w = new ParquetFileWriter(f2, { compression: "snappy", rowGroupRows: 150_000 });
    w.write(data);
    expect(w.bufferedBytes).toBeGreaterThan(24 * 1024 * 1024);
    const out = await w.finish();
    expect((getList(footerOf(out.bytes), 4) as never[]).map((rg) => getNumber(rg, 3))).toEqual([150_000, 150_000, 100_000]);
    const t = await readParquet(out.bytes, { fields: f2 });
    expect(t.numRows).toBe(n);
    const ids = tableColumn(t, "id", T.BIGINT()) as bigint[];
    const strs = tableColumn(t, "s", T.STRING()) as string[];
    for (let i = 0; i < n; i += 997) {
      expect(ids[i]).toBe(BigInt(i));
      expect(strs[i]).toBe(s[i]);
    }
    expect(strs[n - 1]).toBe(s[n - 1]);
    expect(out.stats[0]).toMatchObject({ min: 0n, max: BigInt(n - 1), nullCount: 0 });
  });

  it("the post-write pass gives the same file for the written bytes whole or cut into any pieces", async () => {
    const pw = await getParquetWasm();
    const { parts } = batches([3000, 2000]);
    const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.SNAPPY).setMaxRowGroupSize(2048).setDataPageSizeLimit(1024).setStatisticsEnabled(pw.EnabledStatistics.Page).build();
    const raw = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(parts), "stream")), props);
    const want = finishParquetFile(raw, { rowCount: 5000 });
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: raw.length - 1 }), { maxLength: 12 }), (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), raw.length];
        const pieces = at.slice(1).map((end, i) => raw.subarray(at[i], end));
        expect(Buffer.from(finishParquetFile(pieces, { rowCount: 5000 })).equals(Buffer.from(want))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("a written file that does not hold every row is refused (CORRUPT_FILE)", async () => {
    const raw = (await writeParquet(fields, batch(fields, rowsOf(0, 10)))).bytes;
    let err: unknown;
    try {
      finishParquetFile(raw, { rowCount: 11, fileName: "f.parquet" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaimonError);
    expect((err as PaimonError).code).toBe("CORRUPT_FILE");
    expect((err as PaimonError).message).toBe("Corrupt Parquet file f.parquet: written file holds 10 rows (10 in its row groups), expected 11");
  });
});
