// The synchronous key-lookup path of PK union reads (src/realtime/read.ts `primaryKeyLookup`:
// a key predicate whose splits hold no committed file, answered from the pinned memory runs
// without the general async pipeline) against the general path (switched off), over random
// upserts, deletes, seals, prepares, commits, compactions and restarts, with a composite key,
// in both PK modes (merge-on-read and deletion vectors).
import fc from "fast-check";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { and, col, or, type RealtimeContext } from "../../src/index.js";
import type { Predicate } from "../../src/predicate/predicate.js";
import { primaryKeyLookupCounters, setKeyLookupFastPath } from "../../src/realtime/read.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, compactFully, makeTable, tempDir } from "./helpers.js";
import { ModelDriver, modelOps, type ModelEvent, type ModelLayout } from "./model-driver.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const PARTITIONS = ["d0", "d1"];
/** Model key k → composite key (id, name): ids repeat across names, so the first key column alone is not the key. */
const idOf = (k: number) => k % 3;
const nameOf = (k: number) => `n${k >> 1}`;

/** Targets are the partitions d0, d1 (one bucket each); v is the event's write stamp. */
const LAYOUT: ModelLayout = {
  targets: 2,
  batchOf: (t, events: ModelEvent[]) => {
    const n = events.length;
    return new arrow.RecordBatch({
      _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(events, (e) => BigInt(e.offset)) }),
      id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(events, (e) => BigInt(idOf(e.key))) }),
      name: arrow.vectorFromArray(events.map((e) => nameOf(e.key)), new arrow.Utf8()).data[0],
      v: arrow.makeData({ type: new arrow.Float64(), length: n, data: Float64Array.from(events, (e) => e.stamp) }),
      dt: arrow.vectorFromArray(events.map(() => PARTITIONS[t]), new arrow.Utf8()).data[0],
    });
  },
  targetOf: (t) => ({ partition: { dt: PARTITIONS[t] }, bucket: 0 }),
  targetOfProgress: (p) => PARTITIONS.indexOf(p.partition.dt as string),
};

interface Probe {
  filter: Predicate;
  predicateFilter: boolean;
  withRowKind: boolean;
  projection?: readonly string[];
}

/** Key lookups (full key, first key column, with partition, IN, OR) with and without a value residual. */
const probeArb: fc.Arbitrary<Probe> = fc
  .record({
    k: fc.integer({ min: 0, max: 9 }),
    k2: fc.integer({ min: 0, max: 9 }),
    shape: fc.constantFrom("key", "first", "partition", "in", "or", "value"),
    predicateFilter: fc.boolean(),
    withRowKind: fc.boolean(),
    projection: fc.constantFrom(undefined, ["v"], ["name", "id"], ["v", "dt"]),
  })
  .map(({ k, k2, shape, predicateFilter, withRowKind, projection }) => {
    const key = (x: number) => and(col("id").eq(BigInt(idOf(x))), col("name").eq(nameOf(x)));
    const filter =
      shape === "key"
        ? key(k)
        : shape === "first"
          ? col("id").eq(BigInt(idOf(k)))
          : shape === "partition"
            ? and(key(k), col("dt").eq(PARTITIONS[k2 % 2]))
            : shape === "in"
              ? col("id").in([BigInt(idOf(k)), BigInt(idOf(k2))])
              : shape === "or"
                ? or(key(k), key(k2))
                : and(key(k), col("v").gt(k2));
    return { filter, predicateFilter, withRowKind, ...(projection ? { projection } : {}) };
  });

async function lookup(table: Table, ctx: RealtimeContext, probe: Probe, fast: boolean): Promise<unknown[]> {
  setKeyLookupFastPath(fast);
  try {
    const plan = await table.newScan({ realtime: ctx, filter: probe.filter }).plan();
    const read = table.newRead({ realtime: ctx, filter: probe.filter, predicateFilter: probe.predicateFilter, withRowKind: probe.withRowKind, projection: probe.projection && [...probe.projection] });
    const result = await read.toArrow(plan.splits);
    expect(result.schema.fields.map((f) => f.name)).toEqual(read.outputSchema.fields.map((f) => f.name));
    return result.toArray().map((r) => r.toJSON());
  } finally {
    setKeyLookupFastPath(true);
  }
}

async function runSequence(table: Table, ops: ReturnType<typeof modelOps> extends fc.Arbitrary<infer T> ? T : never, probes: Probe[]): Promise<void> {
  const d = new ModelDriver(table, LAYOUT, tempDir());
  await d.start();
  for (const op of ops) {
    if (!(await d.step(op)) && d.lastSnapshot !== null) await compactFully(table);
    for (const probe of probes) {
      const general = await lookup(table, d.ctx, probe, false);
      expect(await lookup(table, d.ctx, probe, true)).toEqual(general);
    }
  }
  await d.finish();
  await d.ctx.close();
}

describe.each([
  ["PK MOR", {}],
  ["PK DV", { "deletion-vectors.enabled": true }],
])("%s: key lookups by the synchronous path equal the general path", (_, options) => {
  it("random upserts, deletes, seals, commits, compactions and restarts", async () => {
    const before = primaryKeyLookupCounters.fast;
    await fc.assert(
      // the partition field in the key, last or first (data files and memory runs are sorted by the key without it)
      fc.asyncProperty(modelOps(2), fc.array(probeArb, { minLength: 2, maxLength: 5 }), fc.constantFrom(["id", "name", "dt"], ["dt", "id", "name"]), async (ops, probes, primaryKeys) => {
        const table = await makeTable({ bucket: 1, ...options }, { partitioned: true, primaryKeys: [...primaryKeys] });
        await runSequence(table, ops, probes);
      }),
      { numRuns: runs(25) },
    );
    // the synchronous path was taken (keys only in memory), and the general one too (keys in files)
    expect(primaryKeyLookupCounters.fast).toBeGreaterThan(before);
  }, 300_000);
});

describe("key lookups naming a partition field of the primary key", () => {
  it.each([
    ["synchronous path", true],
    ["general path", false],
  ])("%s: a pruning-only lookup projecting neither the partition field nor the key returns the row (the partition field is not in the files' key)", async (_, fast) => {
    const table = await makeTable({ bucket: 1 }, { partitioned: true, primaryKeys: ["id", "name", "dt"] });
    const d = new ModelDriver(table, LAYOUT, tempDir());
    await d.start();
    await d.step({ kind: "write", target: 1, rows: [{ key: 4, kind: 0 }, { key: 5, kind: 0 }], gap: 0 });
    await d.step({ kind: "write", target: 1, rows: [{ key: 4, kind: 0 }], gap: 0 });
    const filter = and(col("id").eq(BigInt(idOf(4))), col("name").eq(nameOf(4)), col("dt").eq("d1"));
    expect(await lookup(table, d.ctx, { filter, predicateFilter: false, withRowKind: false, projection: ["v"] }, fast)).toEqual([{ v: 2 }]);
    await d.finish();
    await d.ctx.close();
  });
});
