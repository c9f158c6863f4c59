import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { and, Catalog, col, RealtimeContext, type Predicate } from "../../src/index.js";
import { compareValues } from "../../src/predicate/predicate.js";
import type { ArrowRealtimeStore } from "../../src/realtime/arrow-store.js";
import { computeBatchStats } from "../../src/realtime/batch-stats.js";
import type { DataField, DataType } from "../../src/spec/types.js";
import { cleanupDirs, tempDir } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

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
      { numRuns: runs(200) },
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

describe("realtime store pruning by batch statistics", () => {
  afterAll(cleanupDirs);

  it("prunes TIMESTAMP(6) and DECIMAL columns and returns exactly the matching rows", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db", { ignoreIfExists: true });
    const table = await catalog.createTable("db.events", {
      fields: [
        { name: "id", type: "BIGINT NOT NULL" },
        { name: "ts", type: "TIMESTAMP(6)" },
        { name: "amount", type: "DECIMAL(20, 2)" },
      ],
      options: { bucket: 1, "bucket-key": "id", "realtime.enabled": true, "realtime.store.stats-mode": "full" },
    });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const base = 1_700_000_000_000_000n; // µs since the epoch
    // batch k holds ids 10k..10k+9 at ts base + id seconds, amount id.50 (unscaled id*100+50)
    for (let k = 0; k < 3; k++) {
      const ids = Array.from({ length: 10 }, (_, i) => BigInt(10 * k + i));
      const words = new Uint32Array(ids.length * 4);
      ids.forEach((id, i) => {
        words[4 * i] = Number(id * 100n + 50n); // small positive: the low word holds it all
      });
      await w.write(
        new arrow.RecordBatch({
          _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: 10, data: BigInt64Array.from(ids) }),
          id: arrow.makeData({ type: new arrow.Int64(), length: 10, data: BigInt64Array.from(ids) }),
          ts: arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: 10, data: BigInt64Array.from(ids.map((id) => base + id * 1_000_000n)) }),
          amount: arrow.makeData({ type: new arrow.Decimal(2, 20, 128), length: 10, data: words }),
        }),
        { bucket: 0 },
      );
    }
    const entry = (ctx as unknown as { allEntries(): Array<{ store: ArrowRealtimeStore }> }).allEntries()[0];
    const storeRows = async (predicate: Predicate): Promise<number[]> => {
      const view = entry.store.acquireReadView();
      const sizes: number[] = [];
      for await (const b of entry.store.createQueryReader(view, { offsetBegin: 0n, predicate, readBatchSize: 100 })) sizes.push(b.numRows);
      await view.release();
      return sizes;
    };
    const since = { millis: (base + 25n * 1_000_000n) / 1000n, nanoOfMillisecond: 0 };
    expect(await storeRows(col("ts").ge(since))).toEqual([10]); // only the third batch may match
    expect(await storeRows(col("amount").lt("10.00"))).toEqual([10]); // 0.50 .. 9.50: the first batch
    expect(await storeRows(col("amount").ge("10.50"))).toEqual([10, 10]);
    const ids = async (filter: Predicate): Promise<number[]> => {
      const plan = await table.newScan({ realtime: ctx, filter }).plan();
      const t = await table.newRead({ realtime: ctx, filter, predicateFilter: true }).toArrow(plan.splits);
      return t.toArray().map((r) => Number(r.toJSON().id));
    };
    expect(await ids(col("ts").ge(since))).toEqual([25, 26, 27, 28, 29]);
    expect(await ids(and(col("amount").ge("10.50"), col("amount").lt("13.00")))).toEqual([10, 11, 12]);
    await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.close();
  });
});
