// Columns whose dictionary would outgrow parquet-rs's 1 MiB limit in the first row group are
// written PLAIN from the start (issue 14: the abandoned dictionary cost 15-25% of a write).
import { describe, expect, it } from "vitest";
import * as arrow from "apache-arrow";
import { overflowingDictionaryColumns } from "../../src/format/dictionary-choice.js";
import { readParquet, writeParquet } from "../../src/format/index.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { getList, getNumber, getStruct } from "../../src/format/thrift.js";
import { footerOf, tableColumn } from "./helpers.js";

const F = T.FIELD;

function table(n: number, build: Record<string, (i: number) => unknown>, types: Record<string, arrow.DataType>): arrow.Table {
  const cols: Record<string, arrow.Vector> = {};
  for (const [name, f] of Object.entries(build)) cols[name] = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => f(i)), types[name]);
  return new arrow.Table(cols);
}

describe("dictionary choice", () => {
  const n = 300_000;
  const t = table(
    n,
    {
      distinctLong: (i) => BigInt(i) * 3n,
      fewLong: (i) => BigInt(i % 1000),
      longUnderLimit: (i) => BigInt(i % 100_000), // 100k distinct x 8 bytes = 800 KB < 1 MiB
      distinctInt: (i) => i,
      distinctStr: (i) => `k-${i}`,
      fewStr: (i) => `v-${i % 50}`,
      nullMostly: (i) => (i % 10 === 0 ? i * 0.5 : null), // 30k distinct doubles: 240 KB
      smallInt: (i) => i % 30000,
      flag: (i) => i % 2 === 0,
      longRepeated: (i) => `r-${i % 12000}`.padEnd(120, "."), // 12k x 124 bytes = 1.4 MiB, passed at row ~8.5k
    },
    {
      distinctLong: new arrow.Int64(),
      fewLong: new arrow.Int64(),
      longUnderLimit: new arrow.Int64(),
      distinctInt: new arrow.Int32(),
      distinctStr: new arrow.Utf8(),
      fewStr: new arrow.Utf8(),
      nullMostly: new arrow.Float64(),
      smallInt: new arrow.Int16(),
      flag: new arrow.Bool(),
      longRepeated: new arrow.Utf8(),
    },
  );

  it("picks exactly the columns whose distinct values pass 1 MiB within the first row group", () => {
    expect(overflowingDictionaryColumns(t.schema, t.batches, 1024 * 1024)).toEqual(["distinctLong", "distinctInt", "distinctStr", "longRepeated"]);
    // 262,144 distinct INT32 values are exactly 1 MiB: a 262,144-row group keeps its dictionary
    expect(overflowingDictionaryColumns(t.schema, t.batches, 262_144)).toEqual(["distinctLong", "distinctStr", "longRepeated"]);
    // within 60k rows only the long strings pass the limit (distinctStr: 60k strings of 3-7 bytes, ~600 KB)
    expect(overflowingDictionaryColumns(t.schema, t.batches, 60_000)).toEqual(["longRepeated"]);
    expect(overflowingDictionaryColumns(t.schema, t.batches, 100_000)).toEqual(["distinctStr", "longRepeated"]);
    expect(overflowingDictionaryColumns(t.schema, t.batches, 8_000)).toEqual([]);
  });

  it("ascending columns (found without hashing) and others: the same choice at the limit's edge, across batches and nulls", () => {
    const rows = 140_000;
    const u = table(
      rows,
      {
        ascExact: (i) => (i < 131_072 ? BigInt(i) : 0n), // 131,072 distinct x 8 bytes = 1 MiB: keeps its dictionary
        ascPastLimit: (i) => (i <= 131_072 ? BigInt(i) - 70_000n : 5n), // one more distinct value: overflows
        descending: (i) => BigInt(rows - i), // distinct but not ascending: found by hashing
        ascNulls: (i) => (i % 3 === 0 ? null : i * 0.5), // 93,333 ascending doubles: 747 KB, keeps it
        ascInt: (i) => (i % 5 === 0 ? null : i - 100_000), // 112k ascending INT32: 448 KB, keeps it
        flatThenUp: (i) => BigInt(i < 1000 ? 7 : i), // repeats first, then distinct: overflows by hashing
      },
      { ascExact: new arrow.Int64(), ascPastLimit: new arrow.Int64(), descending: new arrow.Int64(), ascNulls: new arrow.Float64(), ascInt: new arrow.Int32(), flatThenUp: new arrow.Int64() },
    );
    const expected = ["ascPastLimit", "descending", "flatThenUp"];
    expect(overflowingDictionaryColumns(u.schema, u.batches, 1024 * 1024)).toEqual(expected);
    // the same rows in batches of 7,777 rows (offsets into shared buffers)
    const batches = [];
    for (let at = 0; at < rows; at += 7777) batches.push(...u.slice(at, Math.min(rows, at + 7777)).batches);
    expect(overflowingDictionaryColumns(u.schema, batches, 1024 * 1024)).toEqual(expected);
    // a row group of 131,072 rows holds at most 1 MiB of distinct 8-byte values
    expect(overflowingDictionaryColumns(u.schema, u.batches, 131_072)).toEqual([]);
    expect(overflowingDictionaryColumns(u.schema, batches, 131_073)).toEqual(["ascPastLimit", "descending"]);
  });

  it("chosen columns are written without a dictionary page, the others keep theirs, and all read back exactly", async () => {
    const fields = [F(0, "distinctLong", T.BIGINT()), F(1, "fewStr", T.STRING()), F(2, "distinctStr", T.STRING())];
    const data = t.select(["distinctLong", "fewStr", "distinctStr"]);
    const file = await writeParquet(fields, data, { compression: "zstd" });
    const chunks = getList((getList(footerOf(file.bytes), 4) as never[])[0]!, 1) as never[];
    const dictOffsets = chunks.map((cc) => getNumber(getStruct(cc, 3)!, 11));
    expect(dictOffsets[0]).toBeUndefined();
    expect(dictOffsets[1]).toBeGreaterThan(0);
    expect(dictOffsets[2]).toBeUndefined();
    // with dictionaries off entirely, no column has one
    const plain = await writeParquet(fields, data, { compression: "zstd", dictionary: false });
    expect((getList((getList(footerOf(plain.bytes), 4) as never[])[0]!, 1) as never[]).map((cc) => getNumber(getStruct(cc, 3)!, 11))).toEqual([undefined, undefined, undefined]);
    const back = await readParquet(file.bytes, { fields });
    expect(tableColumn(back, "distinctLong", T.BIGINT())).toEqual(Array.from({ length: n }, (_, i) => BigInt(i) * 3n));
    expect(tableColumn(back, "fewStr", T.STRING())).toEqual(Array.from({ length: n }, (_, i) => `v-${i % 50}`));
    expect(tableColumn(back, "distinctStr", T.STRING())).toEqual(Array.from({ length: n }, (_, i) => `k-${i}`));
    expect(file.stats.map((s) => [s.min, s.max, s.nullCount])).toEqual([
      [0n, BigInt(n - 1) * 3n, 0],
      ["v-0", "v-9", 0],
      ["k-0", "k-99999", 0],
    ]);
  });
  it("unpaying (the flat encoder): one row group whose dictionary cannot beat PLAIN goes PLAIN unbuilt; the file is what building and dropping it gave", async () => {
    const rows = 60_000;
    const u = table(
      rows,
      {
        asc: (i) => BigInt(i) * 3n, // all distinct, ascending: found without hashing
        shuffled: (i) => ((i * 7919) % rows) * 0.5, // all distinct doubles
        twice: (i) => BigInt(i >> 1), // 30k distinct: 240 KB + 15-bit indices 112.5 KB < 480 KB PLAIN: pays
        distinctStr: (i) => `k-${i}`, // ~650 KB of dictionary, under 1 MiB, + 16-bit indices > PLAIN
        fewStr: (i) => `v-${i % 50}`,
        sparse: (i) => (i % 10 === 0 ? i : null), // 6k distinct INT32 among nulls: ascending
      },
      { asc: new arrow.Int64(), shuffled: new arrow.Float64(), twice: new arrow.Int64(), distinctStr: new arrow.Utf8(), fewStr: new arrow.Utf8(), sparse: new arrow.Int32() },
    );
    const batches = [];
    for (let at = 0; at < rows; at += 7777) batches.push(...u.slice(at, Math.min(rows, at + 7777)).batches);
    expect(overflowingDictionaryColumns(u.schema, batches, 1024 * 1024)).toEqual([]);
    expect(overflowingDictionaryColumns(u.schema, batches, 1024 * 1024, { unpaying: true })).toEqual(["asc", "shuffled", "distinctStr", "sparse"]);
    // two row groups: the probe sees the first only, so nothing is decided for the second
    expect(overflowingDictionaryColumns(u.schema, batches, 30_000, { unpaying: true })).toEqual([]);
    const fields = [F(0, "asc", T.BIGINT()), F(1, "shuffled", T.DOUBLE()), F(2, "twice", T.BIGINT()), F(3, "distinctStr", T.STRING()), F(4, "fewStr", T.STRING()), F(5, "sparse", T.INT())];
    const data = new arrow.Table(batches);
    const dictOffsets = async (rowGroupRows: number) => {
      const file = await writeParquet(fields, data, { compression: "zstd", rowGroupRows });
      return (getList(footerOf(file.bytes), 4) as never[]).map((rg) => (getList(rg, 1) as never[]).map((cc) => getNumber(getStruct(cc, 3)!, 11) !== undefined));
    };
    // the same chunks keep a dictionary whether the choice was made ahead (one group) or by the encoder (two groups)
    expect(await dictOffsets(1024 * 1024)).toEqual([[false, false, true, false, true, false]]);
    expect(await dictOffsets(30_000)).toEqual([
      [false, false, true, false, true, false],
      [false, false, true, false, true, false],
    ]);
  });
});
