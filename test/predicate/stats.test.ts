import { describe, expect, it } from "vitest";
import {
  and,
  col,
  fileMayMatch,
  keyStatsOf,
  mayMatch,
  not,
  or,
  partitionStatsOf,
  splitPredicateByFields,
  statsFromSimpleStats,
  valueStatsOf,
  type StatsSet,
} from "../../src/predicate/index.js";
import { serializeBinaryRow, toBinaryRow } from "../../src/spec/binary-row.js";
import { makeDataFileMeta, type ManifestFileMeta, type SimpleStats } from "../../src/spec/manifest.js";
import { DataTypes as T, parseDataType, type DataField } from "../../src/spec/types.js";

const FIELDS: DataField[] = [
  T.FIELD(0, "id", T.BIGINT()),
  T.FIELD(1, "name", T.STRING()),
  T.FIELD(2, "x", T.DOUBLE()),
  T.FIELD(3, "price", T.DECIMAL(10, 2)),
  T.FIELD(4, "ts", T.TIMESTAMP(6)),
  T.FIELD(5, "tags", parseDataType("ARRAY<STRING>")),
];

const stats = (columns: StatsSet["columns"], rowCount: bigint | number | null = 10n): StatsSet => ({ rowCount, columns });

describe("mayMatch (Java LeafPredicate.test(rowCount, min, max, nullCounts) semantics)", () => {
  const s = stats({ id: { min: 10n, max: 20n, nullCount: 0n }, name: { min: "apple", max: "banana", nullCount: 2 } });

  it("range operators", () => {
    expect(mayMatch(col("id").eq(15), s, FIELDS)).toBe(true);
    expect(mayMatch(col("id").eq(21), s, FIELDS)).toBe(false);
    expect(mayMatch(col("id").eq(9), s, FIELDS)).toBe(false);
    expect(mayMatch(col("id").lt(10), s, FIELDS)).toBe(false);
    expect(mayMatch(col("id").le(10), s, FIELDS)).toBe(true);
    expect(mayMatch(col("id").gt(20), s, FIELDS)).toBe(false);
    expect(mayMatch(col("id").ge(20), s, FIELDS)).toBe(true);
    expect(mayMatch(col("id").ne(15), s, FIELDS)).toBe(true);
    expect(mayMatch(col("id").ne(15), stats({ id: { min: 15n, max: 15n, nullCount: 0 } }), FIELDS)).toBe(false);
    expect(mayMatch(col("id").in([1, 2, 30]), s, FIELDS)).toBe(false);
    expect(mayMatch(col("id").in([1, null, 12]), s, FIELDS)).toBe(true);
    expect(mayMatch(col("id").notIn([15, null]), s, FIELDS)).toBe(false);
    expect(mayMatch(col("id").notIn([15]), stats({ id: { min: 15n, max: 15n, nullCount: 0 } }), FIELDS)).toBe(false);
    expect(mayMatch(col("id").notIn([15]), s, FIELDS)).toBe(true);
  });

  it("AND / OR / NOT compose conservatively", () => {
    expect(mayMatch(and(col("id").gt(15), col("name").eq("zebra")), s, FIELDS)).toBe(false);
    expect(mayMatch(or(col("id").gt(25), col("name").eq("avocado")), s, FIELDS)).toBe(true);
    expect(mayMatch(not(col("id").ge(10)), s, FIELDS)).toBe(false);
  });

  it("null counts", () => {
    expect(mayMatch(col("id").isNull(), s, FIELDS)).toBe(false);
    expect(mayMatch(col("name").isNull(), s, FIELDS)).toBe(true);
    expect(mayMatch(col("id").isNotNull(), s, FIELDS)).toBe(true);
    const allNull = stats({ id: { min: null, max: null, nullCount: 10n } });
    expect(mayMatch(col("id").isNotNull(), allNull, FIELDS)).toBe(false);
    expect(mayMatch(col("id").eq(1), allNull, FIELDS)).toBe(false);
    expect(mayMatch(col("id").ne(1), allNull, FIELDS)).toBe(false);
    expect(mayMatch(col("id").isNull(), allNull, FIELDS)).toBe(true);
    expect(mayMatch(col("id").isNull(), stats({}, 0), FIELDS)).toBe(false);
  });

  it("unknown stats may match", () => {
    expect(mayMatch(col("id").eq(1), stats({}), FIELDS)).toBe(true);
    expect(mayMatch(col("id").eq(1), stats({ id: { nullCount: 3 } }), FIELDS)).toBe(true);
    expect(mayMatch(col("id").eq(1), stats({ id: { min: 5n } }), FIELDS)).toBe(true);
    expect(mayMatch(col("id").isNull(), stats({ id: { min: 5n, max: 6n } }), FIELDS)).toBe(true);
    expect(mayMatch(col("id").eq(1), { columns: { id: { min: 5n, max: 6n } } }, FIELDS)).toBe(false);
    // non-canonical bounds (e.g. a number for BIGINT) are ignored rather than trusted
    expect(mayMatch(col("id").eq(1), stats({ id: { min: 5, max: 6 } }), FIELDS)).toBe(true);
    expect(mayMatch(col("tags").isNull(), stats({ tags: { nullCount: 0 } }), FIELDS)).toBe(false);
  });

  it("startsWith with Paimon truncate(16) bounds stays conservative", () => {
    // values "abcdefghijklmnopXYZ" .. "abcdefghijklmnopz..." truncated: min prefix, max rounded up
    const trunc = stats({ name: { min: "abcdefghijklmnop", max: "abcdefghijklmnoq", nullCount: 0 } });
    expect(mayMatch(col("name").startsWith("abcdefghijklmnopX"), trunc, FIELDS)).toBe(true);
    expect(mayMatch(col("name").startsWith("abcdefghijklmnop"), trunc, FIELDS)).toBe(true);
    expect(mayMatch(col("name").startsWith("abd"), trunc, FIELDS)).toBe(false);
    expect(mayMatch(col("name").startsWith("ab"), trunc, FIELDS)).toBe(true);
    expect(mayMatch(col("name").eq("abcdefghijklmnopXYZ"), trunc, FIELDS)).toBe(true);
    expect(mayMatch(not(col("name").startsWith("abc")), trunc, FIELDS)).toBe(false);
    expect(mayMatch(not(col("name").startsWith("abcdefghijklmnop")), trunc, FIELDS)).toBe(true);
    // supplementary characters order after U+FFFF (UTF-8 order)
    const sup = stats({ name: { min: "😀", max: "😀z", nullCount: 0 } });
    expect(mayMatch(col("name").gt("\uffff"), sup, FIELDS)).toBe(true);
    expect(mayMatch(col("name").lt("\uffff"), sup, FIELDS)).toBe(false);
  });

  it("floats: NaN-capable operators never prune, NaN bounds are unknown", () => {
    const f = stats({ x: { min: 1, max: 5, nullCount: 0 } });
    expect(mayMatch(col("x").lt(1), f, FIELDS)).toBe(false);
    expect(mayMatch(col("x").le(0.5), f, FIELDS)).toBe(false);
    expect(mayMatch(col("x").eq(6), f, FIELDS)).toBe(false);
    expect(mayMatch(col("x").gt(6), f, FIELDS)).toBe(true); // a NaN row (> everything) may be missing from max
    expect(mayMatch(col("x").eq(NaN), f, FIELDS)).toBe(true);
    expect(mayMatch(col("x").ne(1), stats({ x: { min: 1, max: 1, nullCount: 0 } }), FIELDS)).toBe(true);
    expect(mayMatch(col("x").lt(0), stats({ x: { min: NaN, max: NaN, nullCount: 0 } }), FIELDS)).toBe(true);
    expect(mayMatch(col("x").eq(0), stats({ x: { min: -0, max: -0, nullCount: 0 } }), FIELDS)).toBe(true);
    expect(mayMatch(col("x").gt(6), stats({ x: { min: null, max: null, nullCount: 10 } }), FIELDS)).toBe(false);
  });

  it("decimals and timestamps", () => {
    const d = stats({ price: { min: 100n, max: 250n, nullCount: 0 }, ts: { min: { millis: 1000n, nanoOfMillisecond: 5000 }, max: { millis: 2000n, nanoOfMillisecond: 0 }, nullCount: 0 } });
    expect(mayMatch(col("price").gt("2.50"), d, FIELDS)).toBe(false);
    expect(mayMatch(col("price").ge("2.5"), d, FIELDS)).toBe(true);
    expect(mayMatch(col("ts").lt("1970-01-01T00:00:01.000005"), d, FIELDS)).toBe(false);
    expect(mayMatch(col("ts").le("1970-01-01T00:00:01.000005"), d, FIELDS)).toBe(true);
    expect(mayMatch(col("ts").gt("1970-01-01T00:00:02"), d, FIELDS)).toBe(false);
  });
});

describe("SimpleStats decoding", () => {
  const types = [T.BIGINT(), T.STRING(), T.DOUBLE(), T.DECIMAL(10, 2), T.TIMESTAMP(6), parseDataType("ARRAY<STRING>")];
  const simple: SimpleStats = {
    minValues: serializeBinaryRow(toBinaryRow([1n, "a", -1.5, 100n, { millis: 5n, nanoOfMillisecond: 7000 }, null], types), 6),
    maxValues: serializeBinaryRow(toBinaryRow([9n, "m", 2.5, 900n, { millis: 9n, nanoOfMillisecond: 0 }, null], types), 6),
    nullCounts: [0n, 1n, null, 0n, 0n, 4n],
  };

  it("all columns", () => {
    const s = statsFromSimpleStats(simple, FIELDS, 5n);
    expect(s.columns["id"]).toEqual({ min: 1n, max: 9n, nullCount: 0n });
    expect(s.columns["x"]).toEqual({ min: -1.5, max: 2.5, nullCount: null });
    expect(s.columns["ts"]!.min).toEqual({ millis: 5n, nanoOfMillisecond: 7000 });
    expect(s.columns["tags"]).toEqual({ min: null, max: null, nullCount: 4n });
    expect(mayMatch(col("id").gt(9), s, FIELDS)).toBe(false);
    expect(mayMatch(col("name").startsWith("z"), s, FIELDS)).toBe(false);
  });

  it("arity mismatch or bad bytes -> unknown, never an error", () => {
    const s = statsFromSimpleStats(simple, FIELDS.slice(0, 2), 5n);
    expect(s.columns["id"]).toEqual({ min: null, max: null, nullCount: null });
    expect(mayMatch(col("id").gt(100), s, FIELDS)).toBe(true);
    const bad = statsFromSimpleStats({ minValues: new Uint8Array([0, 0]), maxValues: new Uint8Array(0), nullCounts: null }, FIELDS, 5n);
    expect(mayMatch(col("id").gt(100), bad, FIELDS)).toBe(true);
  });

  it("DataFileMeta value stats: dense _VALUE_STATS_COLS, _WRITE_COLS, key stats", () => {
    const dense = makeDataFileMeta({
      fileName: "f.parquet",
      fileSize: 1n,
      rowCount: 5n,
      minSequenceNumber: 0n,
      maxSequenceNumber: 4n,
      schemaId: 0,
      valueStatsCols: ["name", "id"],
      valueStats: {
        minValues: serializeBinaryRow(toBinaryRow(["b", 3n], [T.STRING(), T.BIGINT()]), 2),
        maxValues: serializeBinaryRow(toBinaryRow(["d", 4n], [T.STRING(), T.BIGINT()]), 2),
        nullCounts: [0n, 0n],
      },
    });
    const v = valueStatsOf(dense, FIELDS);
    expect(v.columns["id"]).toEqual({ min: 3n, max: 4n, nullCount: 0n });
    expect(v.columns["price"]).toBeUndefined();
    expect(fileMayMatch(col("id").eq(5), dense, FIELDS)).toBe(false);
    expect(fileMayMatch(col("price").eq(5), dense, FIELDS)).toBe(true);
    expect(fileMayMatch(and(col("id").eq(3), col("name").lt("c")), dense, FIELDS)).toBe(true);
    const missing = { ...dense, valueStatsCols: ["name", "dropped"] };
    expect(valueStatsOf(missing, FIELDS).columns).toEqual({});
    const writeCols = { ...dense, valueStatsCols: null, writeCols: ["name", "id"] };
    expect(valueStatsOf(writeCols, FIELDS).columns["name"]).toEqual({ min: "b", max: "d", nullCount: 0n });

    const keyFields = [T.FIELD(0, "id", T.BIGINT())];
    const pk = { ...dense, keyStats: { minValues: serializeBinaryRow(toBinaryRow([10n], [T.BIGINT()]), 1), maxValues: serializeBinaryRow(toBinaryRow([20n], [T.BIGINT()]), 1), nullCounts: [0n] } };
    const { picked } = splitPredicateByFields(and(col("id").gt(25), col("name").eq("x")), ["id"]);
    expect(mayMatch(picked!, keyStatsOf(pk, keyFields), keyFields)).toBe(false);
  });

  it("manifest partition stats", () => {
    const partFields = [T.FIELD(0, "dt", T.STRING()), T.FIELD(1, "hr", T.INT())];
    const meta: ManifestFileMeta = {
      fileName: "manifest-1",
      fileSize: 1n,
      numAddedFiles: 1n,
      numDeletedFiles: 0n,
      schemaId: 0,
      partitionStats: {
        minValues: serializeBinaryRow(toBinaryRow(["2024-05-01", 0], [T.STRING(), T.INT()]), 2),
        maxValues: serializeBinaryRow(toBinaryRow(["2024-05-14", 23], [T.STRING(), T.INT()]), 2),
        nullCounts: [0n, 0n],
      },
      minBucket: null,
      maxBucket: null,
      minLevel: null,
      maxLevel: null,
      minRowId: null,
      maxRowId: null,
    };
    const s = partitionStatsOf(meta, partFields);
    expect(mayMatch(col("dt").eq("2024-05-15"), s, partFields)).toBe(false);
    expect(mayMatch(col("dt").startsWith("2024-05-1"), s, partFields)).toBe(true);
    expect(mayMatch(col("dt").startsWith("2024-06"), s, partFields)).toBe(false);
    expect(mayMatch(col("hr").isNull(), s, partFields)).toBe(false);
  });
});

describe("statistics vs Java's row order (issue 9 item 8)", () => {
  it("a zero bound stands for both zeros: -0.0 rows (Java: -0.0 < 0.0) are never pruned", () => {
    // Writers merge the zeros (Arrow/pyarrow min/max, Parquet's rule), so [0.0, 0.0] may describe -0.0 rows.
    const zeros = stats({ x: { min: 0, max: 0, nullCount: 0 } });
    expect(mayMatch(col("x").lt(0), zeros, FIELDS)).toBe(true);
    expect(mayMatch(col("x").eq(-0), zeros, FIELDS)).toBe(true);
    expect(mayMatch(col("x").in([-0]), zeros, FIELDS)).toBe(true);
    const negZeros = stats({ x: { min: -0, max: -0, nullCount: 0 } });
    expect(mayMatch(col("x").eq(0), negZeros, FIELDS)).toBe(true);
    expect(mayMatch(col("x").ge(0), negZeros, FIELDS)).toBe(true);
    // away from zero the bounds still prune
    expect(mayMatch(col("x").lt(-1), zeros, FIELDS)).toBe(false);
    expect(mayMatch(col("x").eq(0.5), zeros, FIELDS)).toBe(false);
  });

  it("binary bounds never prune (signed row order vs unsigned file statistics); null counts still do", () => {
    const fields = [T.FIELD(0, "b", T.BYTES())];
    // An unsigned-ordered writer describes {0x00, 0x80} as [0x00, 0x80]; Java's row test says
    // 0x80 (-128) < 0x00, so `b < 0x00` selects the 0x80 row.
    const unsigned = stats({ b: { min: new Uint8Array([0x00]), max: new Uint8Array([0x80]), nullCount: 0 } }, 2);
    expect(mayMatch(col("b").lt(new Uint8Array([0x00])), unsigned, fields)).toBe(true);
    expect(mayMatch(col("b").gt(new Uint8Array([0x80])), unsigned, fields)).toBe(true);
    expect(mayMatch(col("b").eq(new Uint8Array([0xff])), unsigned, fields)).toBe(true);
    const allNull = stats({ b: { min: null, max: null, nullCount: 2 } }, 2);
    expect(mayMatch(col("b").eq(new Uint8Array([0x01])), allNull, fields)).toBe(false);
    expect(mayMatch(col("b").isNull(), stats({ b: { min: null, max: null, nullCount: 0 } }, 2), fields)).toBe(false);
  });
});
