// Bloom filter, bitmap index, container format, options and evaluator against simple
// reference models (Java byte-compatibility is checked by test/interop/file-index-interop.test.ts).
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { javaOptionKeyOrder } from "../../src/fileindex/java-order.js";
import {
  BitmapIndexReader,
  BitmapIndexWriter,
  BloomFilter64,
  FileIndexBuilder,
  fileIndexMayMatch,
  fileIndexSpecOf,
  indexPayload,
  readFileIndexHeader,
  serializeFileIndex,
} from "../../src/fileindex/index.js";
import { indexedChunks } from "../../src/fileindex/columns.js";
import { and, col, not, or, type Predicate } from "../../src/predicate/predicate.js";
import { evaluateRow } from "../../src/predicate/evaluate.js";
import { DataTypes, toArrowType, type DataField, type DataType } from "../../src/spec/types.js";

const FIELDS: DataField[] = [
  { id: 0, name: "i", type: DataTypes.INT() },
  { id: 1, name: "s", type: DataTypes.STRING() },
  { id: 2, name: "l", type: DataTypes.BIGINT() },
  { id: 3, name: "d", type: DataTypes.DOUBLE() },
  { id: 4, name: "b", type: DataTypes.BOOLEAN() },
];

type Row = { i: number | null; s: string | null; l: bigint | null; d: number | null; b: boolean | null };

const rowArb: fc.Arbitrary<Row> = fc.record({
  i: fc.option(fc.integer({ min: -20, max: 20 }), { freq: 5 }),
  s: fc.option(fc.constantFrom("", "a", "b", "ü✓", "long-value-0123456789-abcdefghij"), { freq: 5 }),
  l: fc.option(fc.bigInt({ min: -5n, max: 5n }).map((v) => v * 4294967296n), { freq: 5 }),
  d: fc.option(fc.constantFrom(0, -0, 1.5, -2.25, Number.NaN, Infinity), { freq: 5 }),
  b: fc.option(fc.boolean(), { freq: 5 }),
});

function vectorOf(type: DataType, values: unknown[]): arrow.Vector {
  return arrow.vectorFromArray(values, toArrowType(type));
}

function batchOf(rows: Row[]): arrow.RecordBatch {
  const table = new arrow.Table(Object.fromEntries(FIELDS.map((f) => [f.name, vectorOf(f.type, rows.map((r) => r[f.name as keyof Row]))])));
  return table.batches[0]!;
}

const OPTIONS = {
  "file-index.bloom-filter.columns": "i,s,l,d",
  "file-index.bloom-filter.i.items": "50",
  "file-index.bitmap.columns": "i,s,l,d,b",
  "file-index.bitmap.s.version": "1",
  "file-index.bitmap.i.index-block-size": "32 b",
};

function blobOf(rows: Row[], options: Record<string, string> = OPTIONS, split = 1): Uint8Array {
  const builder = new FileIndexBuilder(fileIndexSpecOf(options, FIELDS, javaOptionKeyOrder)!, FIELDS);
  const step = Math.max(1, Math.ceil(rows.length / split));
  for (let at = 0; at < rows.length; at += step) builder.update(batchOf(rows.slice(at, at + step)));
  if (rows.length === 0) builder.update(batchOf([]));
  return builder.finish();
}

describe("BloomFilter64", () => {
  it("sizes like Java (bits rounded up to whole bytes, always +1..8)", () => {
    const f = BloomFilter64.forItems(100, 0.1);
    expect([f.numBits, f.numHashFunctions]).toEqual([480, 3]);
    const d = BloomFilter64.forItems(1_000_000, 0.1);
    expect([d.numBits, d.numHashFunctions]).toEqual([4792536, 3]);
  });

  it("has no false negatives and survives serialization", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 200 }), (hashes) => {
        const f = BloomFilter64.forItems(64, 0.05);
        for (const h of hashes) f.addHash(Number(BigInt.asIntN(32, h)), Number(BigInt.asIntN(32, h >> 32n)));
        const back = BloomFilter64.deserialize(f.serialize());
        for (const h of hashes) expect(back.testHash(h)).toBe(true);
      }),
    );
  });
});

describe("bitmap index", () => {
  const cases: Array<[DataType, fc.Arbitrary<unknown>]> = [
    [DataTypes.INT(), fc.integer({ min: -3, max: 3 })],
    [DataTypes.STRING(), fc.constantFrom("x", "y", "", "✓")],
    [DataTypes.BIGINT(), fc.bigInt({ min: -3n, max: 3n })],
    [DataTypes.TINYINT(), fc.integer({ min: -128, max: 127 })],
    [DataTypes.BOOLEAN(), fc.boolean()],
  ];
  for (const [type, valueArb] of cases) {
    it(`${type.kind}: every value's rows and the null rows read back (V1 and V2)`, () => {
      fc.assert(
        fc.property(fc.array(fc.option(valueArb, { freq: 4 }), { maxLength: 120 }), fc.constantFrom(1, 2), fc.constantFrom(32, 64, 16384), (values, version, blockSize) => {
          const writer = new BitmapIndexWriter(type, version, blockSize);
          for (const chunk of indexedChunks(vectorOf(type, values), type)) writer.update(chunk);
          const reader = new BitmapIndexReader(writer.serialize(), type);
          const expected = new Map<unknown, number[]>();
          values.forEach((v, row) => {
            const list = expected.get(v) ?? [];
            list.push(row);
            expected.set(v, list);
          });
          expect(reader.version).toBe(version);
          expect(reader.rowCount).toBe(values.length);
          expect(reader.hasNull).toBe(expected.has(null));
          expect(reader.valueCount).toBe(expected.size - (expected.has(null) ? 1 : 0));
          for (const [v, rows] of expected) expect([...reader.rows(v as never)]).toEqual(rows);
        }),
        { numRuns: 60 },
      );
    });
  }
});

describe("FileIndexFormat container", () => {
  it("round-trips columns and payloads", () => {
    const columns = [
      { column: "a", indexes: [{ type: "bloom-filter", bytes: Uint8Array.of(1, 2, 3) }, { type: "bitmap", bytes: Uint8Array.of(4) }] },
      { column: "ü\u0000", indexes: [{ type: "range-bitmap", bytes: new Uint8Array(0) }] },
    ];
    const blob = serializeFileIndex(columns);
    const header = readFileIndexHeader(blob);
    expect([...header.keys()]).toEqual(["a", "ü\u0000"]);
    expect([...indexPayload(blob, header.get("a")!.get("bloom-filter")!)!]).toEqual([1, 2, 3]);
    expect([...indexPayload(blob, header.get("a")!.get("bitmap")!)!]).toEqual([4]);
  });

  it("malformed blobs are CORRUPT_FILE, never another error", () => {
    const blob = blobOf([{ i: 1, s: "a", l: 1n, d: 1, b: true }]);
    const check = (bytes: Uint8Array): void => {
      try {
        fileIndexMayMatch(bytes, or(col("i").eq(1), col("s").ne("a"), col("b").isNull()), FIELDS);
      } catch (e) {
        expect(e).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code).toBe("CORRUPT_FILE");
      }
    };
    for (let n = 0; n < blob.length; n += 29) check(blob.subarray(0, n));
    fc.assert(
      fc.property(fc.nat(blob.length - 1), fc.integer({ min: 0, max: 255 }), (at, v) => {
        const copy = blob.slice();
        copy[at] = v;
        check(copy);
      }),
      { numRuns: 100 },
    );
    expect(() => fileIndexMayMatch(new Uint8Array(30), col("i").eq(1), FIELDS)).toThrow(/bad magic/);
  });
});

describe("fileIndexSpecOf", () => {
  const code = (f: () => unknown): string | undefined => {
    try {
      f();
    } catch (e) {
      return (e as PaimonError).code;
    }
    return undefined;
  };

  it("parses columns, per-column options and the threshold", () => {
    expect(fileIndexSpecOf({ bucket: "1" }, FIELDS)).toBeNull();
    const spec = fileIndexSpecOf({ ...OPTIONS, "file-index.in-manifest-threshold": "1 kb", "file-index.read.enabled": "true" }, FIELDS)!;
    expect(spec.inManifestThreshold).toBe(1024);
    expect(spec.columns).toHaveLength(9);
    expect(spec.columns.find((c) => c.column === "i" && c.type === "bloom-filter")).toEqual({ column: "i", fieldIndex: 0, type: "bloom-filter", options: { items: "50" } });
    expect(fileIndexSpecOf({ "file-index.bitmap.columns": " b , i" }, FIELDS)!.inManifestThreshold).toBe(500);
  });

  it("rejects what cannot be written", () => {
    expect(code(() => fileIndexSpecOf({ "file-index.range-bitmap.columns": "i" }, FIELDS))).toBe("UNSUPPORTED");
    expect(code(() => fileIndexSpecOf({ "file-index.bsi.columns": "i" }, FIELDS))).toBe("UNSUPPORTED");
    expect(code(() => fileIndexSpecOf({ "file-index.bloom-filter.columns": "b" }, FIELDS))).toBe("UNSUPPORTED");
    const binary = [{ id: 0, name: "x", type: DataTypes.BYTES() }, { id: 1, name: "m", type: DataTypes.DECIMAL(10, 2) }];
    expect(code(() => fileIndexSpecOf({ "file-index.bitmap.columns": "x" }, binary))).toBe("UNSUPPORTED");
    expect(code(() => fileIndexSpecOf({ "file-index.bloom-filter.columns": "m" }, binary))).toBe("UNSUPPORTED");
    expect(code(() => fileIndexSpecOf({ "file-index.bloom-filter.columns": "x" }, binary))).toBeUndefined();
    const bads: Array<Record<string, string>> = [
      { "file-index.bloom-filter.columns": "nope" },
      { "file-index.bloom-filter.columns": "i,,s" },
      { "file-index.bloom-filter.columns": "i", "file-index.bloom-filter.i.items": "0" },
      { "file-index.bloom-filter.columns": "i", "file-index.bloom-filter.i.fpp": "1.5" },
      { "file-index.bloom-filter.columns": "i", "file-index.bloom-filter.s.items": "10" },
      { "file-index.bitmap.columns": "i", "file-index.bitmap.i.version": "3" },
      { "file-index.bitmap.columns": "i", "file-index.in-manifest-threshold": "lots" },
    ];
    for (const bad of bads)
      expect(code(() => fileIndexSpecOf(bad, FIELDS)), JSON.stringify(bad)).toBe("INVALID_ARGUMENT");
  });
});

describe("fileIndexMayMatch", () => {
  const literal = (name: keyof Row): fc.Arbitrary<unknown> =>
    rowArb.map((r) => r[name]).filter((v) => v !== null);
  const leafArb: fc.Arbitrary<Predicate> = fc.oneof(
    ...(["i", "s", "l", "d", "b"] as const).flatMap((name) => [
      literal(name).map((v) => col(name).eq(v)),
      literal(name).map((v) => col(name).ne(v)),
      fc.array(literal(name), { minLength: 1, maxLength: 3 }).map((vs) => col(name).in(vs)),
      fc.array(literal(name), { minLength: 1, maxLength: 3 }).map((vs) => col(name).notIn(vs)),
      fc.constant(col(name).isNull()),
      fc.constant(col(name).isNotNull()),
    ]),
    fc.integer({ min: -20, max: 20 }).map((v) => col("i").lt(v)),
  );
  const predicateArb: fc.Arbitrary<Predicate> = fc.oneof(
    { weight: 3, arbitrary: leafArb },
    fc.tuple(leafArb, leafArb).map(([a, b]) => and(a, b)),
    fc.tuple(leafArb, leafArb).map(([a, b]) => or(a, b)),
    fc.tuple(leafArb, leafArb).map(([a, b]) => not(and(a, b))),
  );

  it("is true whenever a row matches (and exact for bitmap-only leaves)", () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 60 }), predicateArb, fc.integer({ min: 1, max: 3 }), (rows, p, split) => {
        const blob = blobOf(rows, OPTIONS, split);
        const anyRow = rows.some((r) => evaluateRow(p, r, FIELDS));
        const answer = fileIndexMayMatch(blob, p, FIELDS);
        if (anyRow) expect(answer).toBe(true);
        // a bitmap-only column decides its leaves exactly
        if (p.kind === "leaf" && p.field === "b") expect(answer).toBe(anyRow);
      }),
      { numRuns: 300 },
    );
  });

  it("skips on absent values and undecidable predicates may match", () => {
    const rows: Row[] = [
      { i: 1, s: "a", l: 5n, d: 0, b: true },
      { i: 2, s: "b", l: null, d: null, b: true },
    ];
    const blob = blobOf(rows);
    expect(fileIndexMayMatch(blob, col("i").eq(3), FIELDS)).toBe(false);
    // Java Double.compare / boxed keys: -0.0 is not 0.0 (issue 9 item 8)
    expect(fileIndexMayMatch(blob, col("d").eq(0), FIELDS)).toBe(true);
    expect(fileIndexMayMatch(blob, col("d").eq(-0), FIELDS)).toBe(false);
    expect(fileIndexMayMatch(blob, col("b").ne(true), FIELDS)).toBe(false);
    expect(fileIndexMayMatch(blob, col("b").isNull(), FIELDS)).toBe(false);
    expect(fileIndexMayMatch(blob, col("l").isNull(), FIELDS)).toBe(true);
    expect(fileIndexMayMatch(blob, col("s").notIn(["a", "b"]), FIELDS)).toBe(false);
    expect(fileIndexMayMatch(blob, or(col("i").eq(3), col("s").eq("b")), FIELDS)).toBe(true);
    expect(fileIndexMayMatch(blob, and(col("i").eq(1), col("s").eq("zzz")), FIELDS)).toBe(false);
    expect(fileIndexMayMatch(blob, col("i").gt(100), FIELDS)).toBe(true);
    const unindexed = blobOf(rows, { "file-index.bloom-filter.columns": "s" });
    expect(fileIndexMayMatch(unindexed, col("i").eq(3), FIELDS)).toBe(true);
  });

  it("±0.0 are different keys: a bitmap never rules out x <> 0 for a file holding -0.0 (issue 9 item 8)", () => {
    const zeros: Row[] = [
      { i: 1, s: "a", l: 1n, d: -0, b: true },
      { i: 2, s: "b", l: 2n, d: 0, b: true },
    ];
    const bitmapOnly = { "file-index.bitmap.columns": "d" };
    const blob = blobOf(zeros, bitmapOnly);
    expect(fileIndexMayMatch(blob, col("d").ne(0), FIELDS)).toBe(true); // the -0.0 row
    expect(fileIndexMayMatch(blob, col("d").ne(-0), FIELDS)).toBe(true); // the 0.0 row
    expect(fileIndexMayMatch(blob, col("d").notIn([0, -0]), FIELDS)).toBe(false);
    const positive = blobOf([zeros[1]!], bitmapOnly);
    expect(fileIndexMayMatch(positive, col("d").eq(-0), FIELDS)).toBe(false);
    expect(fileIndexMayMatch(positive, col("d").ne(-0), FIELDS)).toBe(true);
    const bloom = blobOf([zeros[1]!], { "file-index.bloom-filter.columns": "d" });
    expect(fileIndexMayMatch(bloom, col("d").eq(0), FIELDS)).toBe(true);
    expect(fileIndexMayMatch(bloom, col("d").in([-0]), FIELDS)).toBe(false);
  });
});
