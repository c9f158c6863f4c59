/**
 * ORC stripes and row indexes paimon-rt writes, and row group pruning on read, against simple
 * models (no oracle; Java reads and prunes the same files in test/interop/orc-data-interop.test.ts):
 * the RLE encoders' run starts decode to the values from there (fast-check), files of random
 * stripes / row groups / compression chunks read back exactly, and a filtered read returns every
 * matching row at its position (onSkip counts the rows skipped), never another row's values.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { loadOrcReader } from "../../src/format/file-formats.js";
import { boolRle, byteRle, Bytes, IntList, intRleV2, OrcFileWriter } from "../../src/format/orc-data-write.js";
import { decodeBoolRle, decodeByteRle, decodeIntRleV2 } from "../../src/format/orc-rle.js";
import { and, col, type Predicate } from "../../src/predicate/predicate.js";
import { parseDataType, type DataField } from "../../src/spec/types.js";
import { orcLayoutOptions } from "../../src/write/append-writer.js";
import { rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";
import { tempDirs } from "../support/temp-dirs.js";
import { ORC_FILE_LAYOUT, readOrcPositioned, writeOrcRows } from "./orc-files.js";

const tempDir = tempDirs("paimon-rt-orc-index-");

/** Sorted run starts within [0, n] (duplicates allowed: row groups without values). */
const startsOf = (n: number) => fc.array(fc.integer({ min: 0, max: n }), { maxLength: 8 }).map((a) => a.sort((x, y) => x - y));

describe("ORC RLE encoders with row group starts", () => {
  it("integer RLE v2: each start's run decodes to the values from there (numbers and 64-bit values, signed and not)", () => {
    const value = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 1500 }).chain((values) => fc.tuple(fc.constant(values), startsOf(values.length), fc.boolean())),
        ([values, starts, signed]) => {
          const list = new IntList();
          // (unsigned: the encoder's values are non-negative, as lengths and dictionary ids)
          for (const v of values) list.pushBig(signed ? BigInt(v) : BigInt.asUintN(63, BigInt(v)));
          const expected = values.map((v) => (signed ? BigInt(v) : BigInt.asUintN(63, BigInt(v))));
          const out = new Bytes();
          const offsets = intRleV2(list, signed, out, starts);
          expect(offsets.length).toBe(starts.length);
          const bytes = out.view();
          const all = decodeIntRleV2(bytes, values.length, signed);
          expect(Array.from({ length: values.length }, (_, i) => all.big(i))).toEqual(expected);
          starts.forEach((s, k) => {
            const rest = decodeIntRleV2(bytes.subarray(offsets[k]), values.length - s, signed);
            expect(Array.from({ length: values.length - s }, (_, i) => rest.big(i))).toEqual(expected.slice(s));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("byte RLE and boolean RLE: each start's group (and bit offset) decodes to the values from there", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 700 }).chain((values) => fc.tuple(fc.constant(values), startsOf(values.length))),
        ([values, starts]) => {
          const out = new Bytes();
          const offsets = byteRle(values, out, starts);
          const bytes = out.view();
          expect(decodeByteRle(bytes, values.length)).toEqual(values);
          starts.forEach((s, k) => expect(decodeByteRle(bytes.subarray(offsets[k]), values.length - s)).toEqual(values.slice(s)));
          const bits = values.map((v) => v & 1);
          const bitOut = new Bytes();
          const positions = boolRle(bits, bits.length, bitOut, starts);
          const packed = bitOut.view();
          expect(decodeBoolRle(packed, bits.length)).toEqual(bits);
          starts.forEach((s, k) => {
            const [offset, skip] = positions[k]!;
            expect(skip).toBe(s % 8);
            expect(decodeBoolRle(packed.subarray(offset), bits.length - s + skip).subarray(skip)).toEqual(bits.slice(s));
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

const SPEC = [
  { name: "id", type: "INT NOT NULL" },
  { name: "v", type: "BIGINT" },
  { name: "s", type: "STRING" },
  { name: "f", type: "DOUBLE" },
  { name: "b", type: "BOOLEAN" },
  { name: "arr", type: "ARRAY<INT>" },
];
const FIELDS: DataField[] = SPEC.map((f, i) => ({ id: i, name: f.name, type: parseDataType(f.type) }));

function row(id: number, seed: number): OracleRow {
  const k = (id * 7919 + seed) % 1000;
  return {
    id,
    v: k % 13 === 0 ? null : String(BigInt(id) * 1000n + BigInt(k)),
    s: k % 11 === 0 ? null : k % 3 === 0 ? `d${k % 5}` : `s-${id}-${k}`,
    f: k % 17 === 0 ? null : id / 4,
    b: k % 19 === 0 ? null : k % 2 === 0,
    arr: k % 23 === 0 ? null : Array.from({ length: k % 4 }, (_, j) => (j === 1 ? null : id + j)),
  };
}

const writeFile = (rows: readonly OracleRow[], batch: number, options: ConstructorParameters<typeof OrcFileWriter>[1]) => writeOrcRows(SPEC, FIELDS, rows, batch, options);
const readPositioned = (bytes: Uint8Array, filter: Predicate | null) => readOrcPositioned(bytes, FIELDS, filter);

describe("ORC files of several stripes with row indexes", () => {
  it("random stripes, row groups and compression chunks: every row reads back; filtered reads keep every matching row at its position", async () => {
    const orc = await loadOrcReader();
    const filters: Array<[string, (bound: number) => Predicate, (r: OracleRow, bound: number) => boolean]> = [
      ["id <", (x) => col("id").lt(x), (r, x) => (r.id as number) < x],
      ["id range", (x) => and(col("id").ge(x), col("id").lt(x + 900)), (r, x) => (r.id as number) >= x && (r.id as number) < x + 900],
      ["v >=", (x) => col("v").ge(BigInt(x) * 1000n), (r, x) => r.v !== null && BigInt(r.v as string) >= BigInt(x) * 1000n],
      ["f <", (x) => col("f").lt(x / 4), (r, x) => r.f !== null && (r.f as number) < x / 4],
    ];
    const before = { ...orc.orcReadCounters };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          ...ORC_FILE_LAYOUT,
          chunk: fc.integer({ min: 64, max: 8192 }),
          filter: fc.integer({ min: 0, max: filters.length - 1 }),
          bound: fc.integer({ min: -10, max: 6100 }),
        }),
        async (c) => {
          const rows = Array.from({ length: c.rows }, (_, i) => row(i, c.seed));
          const bytes = await writeFile(rows, c.batch, { compression: c.compression, stripeRowCount: c.stripeRows, rowIndexStride: c.stride, compressionChunkSize: c.chunk });
          const tail = await orc.readOrcTail(bytes);
          expect(tail.stripes.map((s) => s.rows)).toEqual(Array.from({ length: Math.ceil(c.rows / c.stripeRows) || (c.rows === 0 ? 1 : 0) }, (_, i) => Math.min(c.stripeRows, c.rows - i * c.stripeRows)));
          expect(tail.rowIndexStride).toBe(c.stride);
          expect((await readPositioned(bytes, null)).map(([, r]) => r)).toEqual(rows);
          const [, predicate, test] = filters[c.filter]!;
          const read = await readPositioned(bytes, predicate(c.bound));
          // never another row's values; every matching row
          for (const [position, r] of read) expect(r).toEqual(rows[position]);
          const kept = new Set(read.map(([position]) => position));
          rows.forEach((r, i) => {
            if (test(r, c.bound)) expect(kept.has(i)).toBe(true);
          });
        },
      ),
      // random runs need not prune (a bound past every row, a stride of 0): this one always does
      { numRuns: 25, examples: [[{ rows: 6000, seed: 1, batch: 700, stripeRows: 7000, stride: 1000, compression: "zstd", chunk: 4096, filter: 0, bound: 1500 }]] },
    );
    // (the runs pruned row groups and read others)
    expect(orc.orcReadCounters.rowGroupsPruned - before.rowGroupsPruned).toBeGreaterThan(0);
    expect(orc.orcReadCounters.rowGroupsRead - before.rowGroupsRead).toBeGreaterThan(0);
  }, 300_000);

  it("a stripe holds about orc.stripe.size column bytes; the row groups of stripes by size are pruned too", async () => {
    const orc = await loadOrcReader();
    const rows = Array.from({ length: 5000 }, (_, i) => row(i, 1));
    const bytes = await writeFile(rows, 300, { compression: "zstd", stripeSize: 64 * 1024, compressionChunkSize: 4096, rowIndexStride: 1000 });
    const tail = await orc.readOrcTail(bytes);
    expect(tail.stripes.length).toBeGreaterThan(3);
    expect(tail.stripes.reduce((n, s) => n + s.rows, 0)).toBe(5000);
    const before = { ...orc.orcReadCounters };
    const read = await readPositioned(bytes, and(col("id").ge(4100), col("id").lt(4200)));
    expect(read.map(([position]) => position).filter((p) => p >= 4100 && p < 4200).length).toBe(100);
    for (const [position, r] of read) expect(r).toEqual(rows[position]);
    expect(orc.orcReadCounters.stripesPruned - before.stripesPruned).toBeGreaterThan(0);
    expect(read.length).toBeLessThan(2000);
  });

  it("layout options: Java's names and defaults; bad values are INVALID_ARGUMENT before anything is written", () => {
    expect(orcLayoutOptions({})).toEqual({ stripeSize: undefined, stripeRowCount: undefined, rowIndexStride: undefined, compressionChunkSize: undefined });
    expect(orcLayoutOptions({ "orc.stripe.size": "1048576", "file.block-size": "2 mb", "orc.stripe.row.count": "5000", "orc.row.index.stride": "2000", "orc.compress.size": "65536" })).toEqual({ stripeSize: 2 * 1024 * 1024, stripeRowCount: 5000, rowIndexStride: 2000, compressionChunkSize: 65536 });
    expect(orcLayoutOptions({ "orc.stripe.size": "1048576", "orc.create.index": "false", "orc.row.index.stride": "2000" })).toMatchObject({ stripeSize: 1048576, rowIndexStride: 0 });
    const bads: Array<Record<string, string>> = [{ "orc.stripe.size": "64MB" }, { "orc.row.index.stride": "-1" }, { "orc.create.index": "yes" }, { "file.block-size": "lots" }];
    for (const bad of bads) {
      expect(() => orcLayoutOptions(bad), JSON.stringify(bad)).toThrow(PaimonError);
    }
    const refused = (options: ConstructorParameters<typeof OrcFileWriter>[1]) => {
      try {
        new OrcFileWriter(FIELDS, options);
      } catch (e) {
        return (e as PaimonError).code;
      }
      return "accepted";
    };
    expect([refused({ rowIndexStride: 999 }), refused({ rowIndexStride: 0 }), refused({ stripeSize: 0 }), refused({ compressionChunkSize: 1 << 23 }), refused({ stripeRowCount: 1 })]).toEqual(["INVALID_ARGUMENT", "accepted", "INVALID_ARGUMENT", "INVALID_ARGUMENT", "accepted"]);
  });

  it("a table whose ORC layout options are malformed: the write is INVALID_ARGUMENT and no data file is left", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    for (const [name, options] of [["stride", { "orc.row.index.stride": "999" }], ["size", { "orc.stripe.size": "big" }]] as const) {
      const table = await catalog.createTable(`db.${name}`, { fields: SPEC, options: { bucket: "-1", "file.format": "orc", ...options } });
      const write = await table.newWrite({ commitUser: "u" });
      await expect(write.write(rowsToBatch(SPEC, [row(1, 0)]))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      await write.close();
      await expect(fsp.readdir(path.join(warehouse, "db.db", name, "bucket-0"))).rejects.toMatchObject({ code: "ENOENT" });
    }
  });
});
