// Short paths of real-time key lookups (issues 10 and 11, write-to-visible): a PK lookup whose
// merge inputs hold one row takes that row (or nothing, for a retract row) without the k-way
// merge; a committed file's integer filter column whose cached chunk ascends is narrowed by
// binary search (an append table written in key order), whatever the table declares. Each
// returns exactly the rows of the plain path.
import { afterAll, describe, expect, it } from "vitest";
import { and, col, RealtimeContext } from "../../src/index.js";
import type { Predicate } from "../../src/predicate/predicate.js";
import { selectiveReadCounters } from "../../src/read/selective-read.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { Catalog } from "../../src/catalog/catalog.js";
import { valueStatsOf } from "../../src/predicate/stats.js";
import { primaryKeyConfig } from "../../src/table/primary-key.js";
import { cleanupDirs, makeTable, readIds, rtBatch } from "./helpers.js";

afterAll(cleanupDirs);

const B0 = { bucket: 0 };
type Writer = Awaited<ReturnType<Table["newWrite"]>>;

async function commit(table: Table, w: Writer, id: number): Promise<void> {
  const progress = await w.prepareCommitWithProgress(id);
  await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, id));
}

/** `[_VALUE_KIND, id, name]` of the rows of a real-time `id = key` lookup, in read order. */
async function lookupWithKinds(table: Table, ctx: RealtimeContext, key: number, withRowKind = true): Promise<unknown[][]> {
  const filter = col("id").eq(BigInt(key));
  const plan = await table.newScan({ realtime: ctx, filter }).plan();
  const rows = (await table.newRead({ realtime: ctx, filter, predicateFilter: true, withRowKind }).toArrow(plan.splits)).toArray();
  return rows.map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    return [o._VALUE_KIND ?? null, Number(o.id), o.name];
  });
}

describe("primary-key lookups of one row", () => {
  it("the only row is the result with its row kind; a lone retract row (memory or file) is no result; several rows merge", async () => {
    const table = await makeTable({ bucket: 1 }, { primaryKeys: ["id"] });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1, 2, 3, 4], { ids: [1, 2, 3, 4, 5] }), B0);
    await commit(table, w, 1);
    // a committed DELETE of a key no file holds: a file whose only row for key 40 is a retract row
    await w.write(rtBatch([5], { ids: [40] }), { ...B0, rowKinds: [RowKind.DELETE] });
    await commit(table, w, 2);
    await w.write(rtBatch([6, 7, 8, 9, 10], { ids: [10, 30, 31, 12, 3], names: ["m10", "m30", "m31", "m12", "m3"] }), {
      ...B0,
      rowKinds: [RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.UPDATE_AFTER],
    });
    expect(await lookupWithKinds(table, ctx, 10)).toEqual([[0, 10, "m10"]]); // memory only
    expect(await lookupWithKinds(table, ctx, 12)).toEqual([[2, 12, "m12"]]);
    expect(await lookupWithKinds(table, ctx, 30)).toEqual([]); // a lone -D in memory
    expect(await lookupWithKinds(table, ctx, 31)).toEqual([]); // a lone -U in memory
    expect(await lookupWithKinds(table, ctx, 40)).toEqual([]); // a lone -D in a file
    expect(await lookupWithKinds(table, ctx, 1)).toEqual([[0, 1, "n1"]]); // a file only
    expect(await lookupWithKinds(table, ctx, 3)).toEqual([[2, 3, "m3"]]); // file + memory: merged
    expect(await lookupWithKinds(table, ctx, 99)).toEqual([]);
    expect(await lookupWithKinds(table, ctx, 10, false)).toEqual([[null, 10, "m10"]]);
    expect(await lookupWithKinds(table, ctx, 30, false)).toEqual([]);
    // a second version of the memory-only key: both rows merge, the newer wins
    await w.write(rtBatch([11], { ids: [10], names: ["m10b"] }), { ...B0, rowKinds: [RowKind.UPDATE_AFTER] });
    expect(await lookupWithKinds(table, ctx, 10)).toEqual([[2, 10, "m10b"]]);
    await w.write(rtBatch([12], { ids: [10] }), { ...B0, rowKinds: [RowKind.DELETE] });
    expect(await lookupWithKinds(table, ctx, 10)).toEqual([]);
    await commit(table, w, 3);
    await w.close();
    await ctx.close();
  });
});

describe("committed key columns found ascending", () => {
  it("repeated lookups narrow an ascending file's cached key chunk by binary search and return the filter's rows; an unsorted file is filtered", async () => {
    const table = await makeTable({ bucket: 1 });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const rows: number[] = [];
    const write = async (ids: number[]) => {
      await w.write(rtBatch(ids.map((_, i) => rows.length + i), { ids }), B0);
      rows.push(...ids);
    };
    // ascending, with ties: 0 … 11, 256 rows each (a range of more than 1024 rows also
    // consults the page statistics, a smaller one does not)
    await write(Array.from({ length: 3072 }, (_, i) => i >> 8));
    await commit(table, w, 1);
    await write([4, 1, 9, 3, 3, 0]); // not ascending
    await commit(table, w, 2);
    await write([2, 11]); // memory tail
    const cases: Array<[string, Predicate, (id: number) => boolean]> = [];
    for (let v = -1; v <= 12; v++) {
      cases.push([`= ${v}`, col("id").eq(BigInt(v)), (id) => id === v]);
      cases.push([`< ${v}`, col("id").lt(BigInt(v)), (id) => id < v]);
      cases.push([`<= ${v}`, col("id").le(BigInt(v)), (id) => id <= v]);
      cases.push([`> ${v}`, col("id").gt(BigInt(v)), (id) => id > v]);
      cases.push([`>= ${v}`, col("id").ge(BigInt(v)), (id) => id >= v]);
      cases.push([`in [${v}, ${v + 2}]`, and(col("id").ge(BigInt(v)), col("id").le(BigInt(v + 2))), (id) => id >= v && id <= v + 2]);
    }
    const before = selectiveReadCounters.sortedNarrowings;
    for (const [name, filter, keep] of cases) {
      const expected = rows.filter(keep).sort((a, b) => a - b);
      for (let round = 0; round < 2; round++) {
        expect({ name, round, ids: await readIds(table, { ctx, filter, predicateFilter: true }) }).toEqual({ name, round, ids: expected });
      }
    }
    expect(selectiveReadCounters.sortedNarrowings).toBeGreaterThan(before);
    // once the chunks are cached: `id = 5` narrows the ascending file (one row group), not the other
    const at = selectiveReadCounters.sortedNarrowings;
    expect(await readIds(table, { ctx, filter: col("id").eq(5n), predicateFilter: true })).toEqual(Array(256).fill(5));
    expect(selectiveReadCounters.sortedNarrowings - at).toBe(1);
    await commit(table, w, 3);
    await w.close();
    await ctx.close();
  });
});

describe("what plans and reads keep per schema", () => {
  it("file value stats are decoded once per file and schema: renamed columns, new files and filters after a schema change plan exactly", async () => {
    const table = await makeTable({ bucket: 1 }, { name: "stats_cache" });
    const commitRows = async (t: Table, ids: number[]) => {
      const w = await t.newWrite({ commitUser: "u" });
      await w.write(rtBatch(ids).selectAt([1, 2, 3, 4]), B0);
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
    };
    await commitRows(table, [0, 1, 2, 3]);
    const files = async (t: Table, filter: Predicate) => (await t.newScan({ filter }).plan()).splits.reduce((n, s) => n + s.files.length, 0);
    expect(await files(table, col("id").eq(2n))).toBe(1);
    expect(await files(table, col("id").eq(12n))).toBe(0);
    await commitRows(table, [10, 11, 12]);
    expect(await files(table, col("id").eq(12n))).toBe(1); // the new file's stats, the old file's kept
    expect(await files(table, col("id").eq(2n))).toBe(1);
    const file = (await table.newScan().plan()).splits[0].files[0];
    const v1 = valueStatsOf(file, table.schema.fields);
    expect(valueStatsOf(file, table.schema.fields)).toBe(v1);
    const catalog = await Catalog.open(table.location.replace(/\/db\.db\/stats_cache\/?$/, ""));
    const renamed = await catalog.alterTable("db.stats_cache", [{ kind: "renameColumn", name: "v", newName: "w" }]);
    const v2 = valueStatsOf(file, renamed.schema.fields);
    expect(Object.keys(v2.columns)).toEqual(["id", "name", "w", "dt"]);
    expect(v2.columns.w).toEqual(v1.columns.v);
    // files of the old schema are kept by a filter on the new one; the new schema's files are pruned
    expect(await files(renamed, col("w").eq(100))).toBe(2);
    expect(await files(renamed, col("id").eq(12n))).toBe(2);
  });

  it("a primary-key config is parsed once per options object, frozen, and follows option changes", async () => {
    const table = await makeTable({ bucket: 1 }, { primaryKeys: ["id"], name: "pk_config" });
    const config = primaryKeyConfig(table.coreOptions);
    expect(primaryKeyConfig(table.coreOptions)).toBe(config);
    expect(config.mergeEngine).toBe("deduplicate");
    expect(Object.isFrozen(config) && Object.isFrozen(config.sequenceFields)).toBe(true);
    const catalog = await Catalog.open(table.location.replace(/\/db\.db\/pk_config\/?$/, ""));
    const altered = await catalog.alterTable("db.pk_config", [{ kind: "setOption", key: "num-sorted-run.compaction-trigger", value: "7" }]);
    expect(primaryKeyConfig(altered.coreOptions).numSortedRunCompactionTrigger).toBe(7);
    expect(primaryKeyConfig(table.coreOptions).numSortedRunCompactionTrigger).toBe(5);
  });
});
