import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareValues } from "../../src/predicate/predicate.js";
import { computeBatchStats } from "../../src/realtime/batch-stats.js";
import type { DataField, DataType } from "../../src/spec/types.js";

// Store batch statistics (`realtime.store.stats-mode=full`) against a model: the exact min and
// max of the non-null values in the order predicates compare them, the exact null count.

const field = (id: number, name: string, type: DataType): DataField => ({ id, name, type });
const FIELDS: DataField[] = [
  field(0, "i", { kind: "INT", nullable: true }),
  field(1, "l", { kind: "BIGINT", nullable: true }),
  field(2, "d", { kind: "DOUBLE", nullable: true }),
  field(3, "s", { kind: "VARCHAR", length: 100, nullable: true }),
  field(4, "b", { kind: "BOOLEAN", nullable: true }),
  field(5, "dt", { kind: "DATE", nullable: true }),
];
const ARROW_TYPES = [new arrow.Int32(), new arrow.Int64(), new arrow.Float64(), new arrow.Utf8(), new arrow.Bool(), new arrow.DateDay()];

function modelStats(values: unknown[], type: DataType): { nullCount: number; min: unknown; max: unknown } {
  const present = values.filter((v) => v !== null);
  const nullCount = values.length - present.length;
  if (present.length === 0) return { nullCount, min: null, max: null };
  const sorted = [...present].sort((a, b) => compareValues(type, a, b));
  return { nullCount, min: sorted[0], max: sorted[sorted.length - 1] };
}

function batchOf(columns: unknown[][]): arrow.RecordBatch {
  const vectors: Record<string, arrow.Vector> = {};
  FIELDS.forEach((f, c) => {
    // Arrow JS takes DateDay input as Date objects; the model keeps days since the epoch.
    const input = f.type.kind === "DATE" ? columns[c].map((v) => (v === null ? null : new Date((v as number) * 86_400_000))) : columns[c];
    vectors[f.name] = arrow.vectorFromArray(input, ARROW_TYPES[c] as arrow.DataType);
  });
  return new arrow.Table(vectors).batches[0];
}

describe("realtime batch statistics", () => {
  it("are the exact bounds and null counts of each column", () => {
    const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });
    const row = fc.tuple(
      nullable(fc.integer()),
      nullable(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n })),
      nullable(fc.double({ noNaN: true })),
      nullable(fc.string({ unit: "binary", maxLength: 12 })),
      nullable(fc.boolean()),
      nullable(fc.integer({ min: -100_000, max: 100_000 })),
    );
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 60 }), (rows) => {
        const columns = FIELDS.map((_, c) => rows.map((r) => r[c] as unknown));
        const stats = computeBatchStats(batchOf(columns), FIELDS);
        expect(stats.rowCount).toBe(rows.length);
        FIELDS.forEach((f, c) => {
          const got = stats.columns[f.name]!;
          const want = modelStats(columns[c], f.type);
          expect(got.nullCount).toBe(want.nullCount);
          if (want.min === null) {
            expect(got.min ?? null).toBeNull();
            expect(got.max ?? null).toBeNull();
          } else if (f.type.kind === "DOUBLE") {
            // a zero bound covers both zeros (writers merge them): min -0 / max +0
            expect(got.min).toBe(want.min === 0 ? -0 : want.min);
            expect(got.max).toBe(want.max === 0 ? 0 : want.max);
          } else {
            expect(got.min).toEqual(want.min);
            expect(got.max).toEqual(want.max);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it("leave float bounds unknown when a NaN is present", () => {
    const stats = computeBatchStats(batchOf([[1], [1n], [Number.NaN], ["x"], [true], [3]]), FIELDS);
    expect(stats.columns.d).toEqual({ nullCount: 0, min: null, max: null });
    expect(stats.columns.i).toEqual({ nullCount: 0, min: 1, max: 1 });
    expect(stats.columns.s).toEqual({ nullCount: 0, min: "x", max: "x" });
    expect(stats.columns.b).toEqual({ nullCount: 0, min: true, max: true });
    expect(stats.columns.dt).toEqual({ nullCount: 0, min: 3, max: 3 });
  });
});
