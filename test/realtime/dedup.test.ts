// The real-time append-deduplicate mode, statement by statement of seed 000 ("Modes and
// Capabilities", "Input Schema and Offsets", "Append Deduplicate / Offset DV", "Spill and Memory
// Accounting", "Recovery"; issue 11): one row per key over committed files, sealed and building
// segments; deletes store no row; views pin their deletions; prepare writes surviving rows with
// their offsets; commits resolve deletions into deletion vectors (APPEND snapshots) on every
// attempt; refresh, recovery with replay, hand-off, spill, metrics and bad input.
import { afterAll, describe, expect, it } from "vitest";
import * as arrow from "apache-arrow";
import { col, RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import { OffsetSet64 } from "../../src/kernel/bitmap.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, compactFully, expectCode, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";
import { DEDUP_OPTIONS, dedupBatch, makeDedupTable } from "./dedup-helpers.js";
import { Catalog } from "../../src/catalog/catalog.js";
import { fileIOSource, toByteSource } from "../../src/format/source.js";
import { readParquetFooter } from "../../src/format/parquet-stats.js";
import { readChunkPages } from "../../src/format/page-index.js";
import { ArrowRealtimeStore } from "../../src/realtime/arrow-store.js";
import { dedupWriteCounters, setDedupWriteFastPath } from "../../src/realtime/writer.js";

afterAll(cleanupDirs);

type Row = { id: number; offset: number; v: unknown };
const rows = async (table: Table, args: Parameters<typeof readRows>[1] = {}): Promise<Row[]> =>
  (await readRows(table, args)).map((r) => ({ id: r.id as number, offset: Number(r._REALTIME_OFFSET), v: r.v })).sort((a, b) => a.id - b.id);
const row = (id: number, offset: number, v = `v${offset}`): Row => ({ id, offset, v });
const B0 = { bucket: 0 };

async function setup(options: Record<string, string> = {}) {
  const table = await makeDedupTable(options);
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tempDir() });
  let identifier = 0;
  const commit = async () => {
    const id = ++identifier;
    const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(id), id);
    await w.refreshCommittedSnapshot(snapshot);
    return snapshot;
  };
  return { table, ctx, w, commit, nextId: () => ++identifier };
}

/** Data files of the latest snapshot with their row counts, and the deletion vectors' cardinalities. */
async function files(table: Table): Promise<{ rows: number[]; deleted: number }> {
  const plan = await table.newScan().plan();
  const out = plan.splits.flatMap((s) => s.files.map((f) => Number(f.rowCount))).sort((a, b) => a - b);
  const deleted = plan.splits.flatMap((s) => s.deletionFiles ?? []).reduce((n, d) => n + Number(d?.cardinality ?? 0), 0);
  return { rows: out, deleted };
}

describe("real-time append deduplicate mode", () => {
  it("looks keys up across committed files, sealed and building segments; within-batch duplicates resolve in row order", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await commit();
    await w.write(dedupBatch([[2, 3], [4, 4]]), B0); // supersedes committed key 2
    await w.seal();
    await w.write(dedupBatch([[4, 5], [5, 6], [5, 7], [1, 8]]), B0); // sealed key 4, key 5 twice in one batch, committed key 1
    expect(await rows(table, { ctx })).toEqual([row(1, 8), row(2, 3), row(3, 2), row(4, 5), row(5, 7)]);
    expect(await rows(table)).toEqual([row(1, 0), row(2, 1), row(3, 2)]); // committed state without the context
    await commit();
    expect(await rows(table)).toEqual([row(1, 8), row(2, 3), row(3, 2), row(4, 5), row(5, 7)]);
    // prepare wrote the surviving rows only (4 of 6 memory rows: 4@4 and 5@6 were superseded in memory) and marked 2 committed rows deleted
    expect(await files(table)).toEqual({ rows: [3, 4], deleted: 2 });
    expect((await table.latestSnapshot())!.commitKind).toBe("APPEND");
    await w.close();
  });

  it("concurrent writes to a store that writes asynchronously: a write done at once keeps the lock while its store write is under way, the next waits (same rows, same order)", async () => {
    const table = await makeDedupTable();
    const order: string[] = [];
    const factory = {
      create(request: ConstructorParameters<typeof ArrowRealtimeStore>[0]) {
        const inner = new ArrowRealtimeStore(request);
        return {
          write: async (b: Parameters<ArrowRealtimeStore["write"]>[0]) => {
            order.push(`start ${b.offsetRange.begin}`);
            await new Promise((r) => setTimeout(r, 2));
            inner.write(b);
            order.push(`end ${b.offsetRange.begin}`);
          },
          freeze: () => inner.freeze(),
          createCommitReader: (seg: never) => inner.createCommitReader(seg),
          acquireReadView: () => inner.acquireReadView(),
          createQueryReader: (v: never, c: never) => inner.createQueryReader(v, c),
          advanceCommittedOffset: (e: bigint) => inner.advanceCommittedOffset(e),
          getDataUsage: () => inner.getDataUsage(),
          close: () => inner.close(),
        };
      },
    };
    for (const fast of [true, false]) {
      setDedupWriteFastPath(fast);
      order.length = 0;
      try {
        const ctx = await RealtimeContext.create(factory as never);
        const w = await table.newWrite({ commitUser: "u", realtime: ctx });
        await w.write(dedupBatch([[1, 0], [2, 1]]), B0); // loads the (no) committed keys
        const before = dedupWriteCounters.now;
        await Promise.all([w.write(dedupBatch([[1, 2], [3, 3]]), B0), w.write(dedupBatch([[3, 4], [2, 5]]), B0), w.write(dedupBatch([[1, 6]]), B0)]);
        expect(dedupWriteCounters.now - before).toBe(fast ? 1 : 0); // the first one (the others found the lock held)
        expect(order).toEqual(["start 0", "end 0", "start 2", "end 2", "start 4", "end 4", "start 6", "end 6"]);
        expect(await rows(table, { ctx })).toEqual([row(1, 6), row(2, 5), row(3, 4)]);
        const p = await w.prepareCommitWithProgress(1);
        expect(p[0].offsetRange).toEqual({ begin: 0n, end: 7n });
        expect([...p[0].deletedOffsets!.toBigUint64Array()]).toEqual([0n, 1n, 2n, 3n]);
        await ctx.close();
      } finally {
        setDedupWriteFastPath(true);
      }
    }
  });

  it("deletes and UPDATE_BEFORE mark the live row deleted and store nothing; a delete-only prepare advances progress with an empty increment", async () => {
    const { table, ctx, w, commit, nextId } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    const s1 = await commit();
    const id = nextId();
    await w.write(dedupBatch([[1, 3], [2, 4], [9, 5]]), { ...B0, rowKinds: [RowKind.DELETE, RowKind.UPDATE_BEFORE, RowKind.DELETE] }); // 9 was never written
    expect(await rows(table, { ctx })).toEqual([row(3, 2)]);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0); // deletes are not stored rows
    const progress = await w.prepareCommitWithProgress(id);
    expect(progress.map((p) => [p.offsetRange.begin, p.offsetRange.end, p.commitMessage.data.dataIncrement.newFiles.length, [...p.deletedOffsets!]])).toEqual([[3n, 6n, 0, [0n, 1n]]]);
    const s2 = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, id);
    await w.refreshCommittedSnapshot(s2);
    expect(s2).toBe(s1 + 1);
    expect(await RealtimeSnapshotOffsets.readOffset(table, s2, { partition: {}, bucket: 0 })).toBe(6n);
    expect(await rows(table)).toEqual([row(3, 2)]);
    expect(await files(table)).toEqual({ rows: [3], deleted: 2 });
    // UPDATE_BEFORE + UPDATE_AFTER of one key in a batch: the new row replaces the old one
    await w.write(dedupBatch([[3, 6], [3, 7]]), { ...B0, rowKinds: [RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER] });
    expect(await rows(table, { ctx })).toEqual([row(3, 7)]);
    await commit();
    expect(await rows(table)).toEqual([row(3, 7)]);
    await w.close();
  });

  it("read views keep the rows and deletions they pinned while later writes supersede and delete, seal, prepare, commit and refresh", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1]]), B0);
    await commit();
    await w.write(dedupBatch([[3, 2]]), B0);
    const plan = await table.newScan({ realtime: ctx }).plan();
    await w.write(dedupBatch([[1, 3], [3, 4]]), B0);
    await w.write(dedupBatch([[2, 5]]), { ...B0, rowKinds: [RowKind.DELETE] });
    await w.seal();
    const read = async () => (await table.newRead({ realtime: ctx }).toArrow(plan.splits)).toArray().map((r) => Number(r.toJSON()._REALTIME_OFFSET)).sort((a, b) => a - b);
    const planned = await table.newScan({ realtime: ctx }).plan();
    await commit();
    expect(await read()).toEqual([0, 1, 2]);
    expect((await table.newRead({ realtime: ctx }).toArrow(planned.splits)).toArray().map((r) => Number(r.toJSON()._REALTIME_OFFSET)).sort((a, b) => a - b)).toEqual([3, 4]);
    expect(await rows(table, { ctx })).toEqual([row(1, 3), row(3, 4)]);
    await w.close();
  });

  it("applies predicates fully: a superseded row matching the filter stays hidden, in memory and on disk", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1]], { values: ["a", "a"] }), B0);
    await commit();
    await w.write(dedupBatch([[1, 2], [3, 3], [3, 4]], { values: ["b", "a", "b"] }), B0);
    expect(await rows(table, { ctx, filter: col("v").eq("a"), predicateFilter: true })).toEqual([row(2, 1, "a")]);
    expect(await rows(table, { ctx, filter: col("v").eq("b"), predicateFilter: true })).toEqual([row(1, 2, "b"), row(3, 4, "b")]);
    expect(await rows(table, { ctx, filter: col("_REALTIME_OFFSET").gt(1n), predicateFilter: true })).toEqual([row(1, 2, "b"), row(3, 4, "b")]);
    // projection without the offset or the key
    const projected = await readRows(table, { ctx, projection: ["v"] });
    expect(projected.map((r) => r.v).sort()).toEqual(["a", "b", "b"]);
    await commit();
    await w.close();
  });

  it("never deduplicates across partitions; each partition-bucket has its own offsets", async () => {
    const table = await makeDedupTable({}, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(dedupBatch([[1, 0], [2, 1]], { dt: "x" }), { partition: { dt: "x" }, bucket: 0 });
    await w.write(dedupBatch([[1, 0], [1, 1]], { dt: "y" }), { partition: { dt: "y" }, bucket: 0 });
    const got = (await readRows(table, { ctx })).map((r) => [r.dt, r.id, Number(r._REALTIME_OFFSET)]).sort();
    expect(got).toEqual([["x", 1, 0], ["x", 2, 1], ["y", 1, 1]]);
    const p = await w.prepareCommitWithProgress(1);
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1));
    expect((await readRows(table)).map((r) => [r.dt, r.id, Number(r._REALTIME_OFFSET)]).sort()).toEqual(got);
    await w.close();
  });

  it("resolves deletions again when a compaction commits between prepare and commit: they land in the compacted file", async () => {
    const { table, ctx, w, commit, nextId } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await commit();
    await w.write(dedupBatch([[4, 3], [5, 4]]), B0);
    await commit();
    await w.write(dedupBatch([[1, 5], [4, 6]]), { ...B0, rowKinds: [RowKind.INSERT, RowKind.DELETE] });
    const id = nextId();
    const progress = await w.prepareCommitWithProgress(id);
    await compactFully(table);
    expect(await files(table)).toEqual({ rows: [5], deleted: 0 });
    const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, id);
    await w.refreshCommittedSnapshot(snapshot);
    expect(await files(table)).toEqual({ rows: [1, 5], deleted: 2 });
    expect(await rows(table)).toEqual([row(1, 5), row(2, 1), row(3, 2), row(5, 4)]);
    expect(await rows(table, { ctx })).toEqual([row(1, 5), row(2, 1), row(3, 2), row(5, 4)]);
    // compaction applies the vectors and keeps the offsets; keys keep deduplicating afterwards
    await compactFully(table);
    await w.write(dedupBatch([[2, 7]]), B0);
    await commit();
    expect(await rows(table)).toEqual([row(1, 5), row(2, 7), row(3, 2), row(5, 4)]);
    await w.close();
  });

  it("recovers after a restart: keys rebuilt from committed files (DV-deleted rows skipped), replay from the committed offset is exactly-once per key", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await commit();
    await w.write(dedupBatch([[2, 3]]), B0);
    await commit(); // key 2's first row is now deleted by a DV
    await w.write(dedupBatch([[3, 4], [2, 5]]), B0); // lost with the process
    await ctx.close();
    const from = await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 0 });
    expect(from).toBe(4n);
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await w2.write(dedupBatch([[3, 4], [2, 5]]), B0); // replay
    expect(await rows(table, { ctx: ctx2 })).toEqual([row(1, 0), row(2, 5), row(3, 4)]);
    const p = await w2.prepareCommitWithProgress(3);
    await w2.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 3));
    expect(await rows(table)).toEqual([row(1, 0), row(2, 5), row(3, 4)]);
    expect(await files(table)).toEqual({ rows: [1, 2, 3], deleted: 3 });
    await w2.close();
    await ctx2.close();
  });

  it("a new writer in the same context continues the key state (hand-off); refresh forgets deletions once committed", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1]]), B0);
    await commit();
    await w.write(dedupBatch([[1, 2]]), B0);
    const progress = await w.prepareCommitWithProgress(5);
    await w.close();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w2.write(dedupBatch([[2, 3]]), B0);
    const entry = ctx.allEntries()[0];
    expect([...entry.dedup!.freezeDeleted()!.offsets]).toEqual([0n, 1n]);
    const progress2 = await w2.prepareCommitWithProgress(6);
    await w2.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress([...progress, ...progress2], 6));
    expect([...entry.dedup!.freezeDeleted()!.offsets]).toEqual([]);
    expect(await rows(table)).toEqual([row(1, 2), row(2, 3)]);
    await w2.close();
  });

  it("spills sealed segments; reads and prepare serve them with their deletions; metrics count the key map", async () => {
    const { table, ctx, w, commit } = await setup({ "realtime.spill-enabled": "true", "read.batch-size": "2" });
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await w.seal();
    const sealed = ctx.getMetrics();
    expect(sealed.realtimeSealedRowCount).toBe(3);
    expect(sealed.realtimeBuildingMemoryBytes).toBeGreaterThan(0); // the key map (the spilled data is not in memory)
    await w.write(dedupBatch([[2, 3]]), B0);
    expect(await rows(table, { ctx })).toEqual([row(1, 0), row(2, 3), row(3, 2)]);
    await commit();
    expect(await rows(table)).toEqual([row(1, 0), row(2, 3), row(3, 2)]);
    expect(await files(table)).toEqual({ rows: [3], deleted: 0 });
    await w.close();
  });

  it("closing with unprepared deletes invalidates the context", async () => {
    const { w, ctx, commit } = await setup();
    await w.write(dedupBatch([[1, 0]]), B0);
    await commit();
    await w.write(dedupBatch([[1, 1]]), { ...B0, rowKinds: [RowKind.DELETE] });
    await expectCode(w.close(), "CONTEXT_INVALIDATED");
    expect(ctx.invalidatedReason).toMatch(/writer closed with data not covered by a successful prepareCommitWithProgress/);
  });

  it("deduplicates string keys (128-bit identities), also after a restart rebuilds them from committed files", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.s", {
      fields: [
        { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
        { name: "k", type: "STRING NOT NULL" },
      ],
      options: { ...DEDUP_OPTIONS, "bucket-key": "k", "realtime.deduplicate-key-fields": "k", bucket: "1" },
    });
    const batch = (offsets: number[], keys: string[]) =>
      new arrow.RecordBatch({
        _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: offsets.length, nullCount: 0, data: BigInt64Array.from(offsets.map(BigInt)) }),
        k: arrow.vectorFromArray(keys, new arrow.Utf8()).data[0],
      });
    const keysOf = async (ctx?: RealtimeContext) => (await readRows(table, { ctx })).map((r) => [r.k, Number(r._REALTIME_OFFSET)]).sort();
    let ctx = await RealtimeContext.create();
    let w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(batch([0, 1, 2, 3], ["a", "b", "a", "ab"]), B0);
    expect(await keysOf(ctx)).toEqual([["a", 2], ["ab", 3], ["b", 1]]);
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1));
    await w.close();
    await ctx.close();
    ctx = await RealtimeContext.create();
    w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(batch([4, 5], ["b", "c"]), { ...B0, rowKinds: [RowKind.DELETE, RowKind.INSERT] });
    expect(await keysOf(ctx)).toEqual([["a", 2], ["ab", 3], ["c", 5]]);
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(2), 2));
    expect(await keysOf()).toEqual([["a", 2], ["ab", 3], ["c", 5]]);
    await w.close();
    await ctx.close();
  });

  it("takes sliced input batches (Arrow slices keep an offset into their buffers)", async () => {
    const { table, ctx, w, commit } = await setup();
    const all = dedupBatch([[9, 0], [1, 1], [2, 2], [1, 3], [9, 4]]);
    await w.write(all.slice(1, 4), B0); // offsets 1..3: keys 1, 2, 1
    expect(await rows(table, { ctx })).toEqual([row(1, 3), row(2, 2)]);
    await w.write(all.slice(4, 5), { ...B0, rowKinds: [RowKind.DELETE] }); // key 9 was never written
    await commit();
    expect(await rows(table)).toEqual([row(1, 3), row(2, 2)]);
    await w.close();
  });

  it("refuses bad input with a clear error and changes nothing", async () => {
    const { table, ctx, w } = await setup();
    await w.write(dedupBatch([[1, 5]]), B0);
    // the append/PK prefix layout: the offset is a table column here
    const prefixed = rtBatch([6]);
    expect((await expectCode(w.write(prefixed, B0), "OFFSET_INVALID")).message).toBe(
      `real-time write batch must contain int64 _REALTIME_OFFSET as column 1 (the table's declared position) (table ${table.identifier}; got _REALTIME_OFFSET, id, name, v, dt)`,
    );
    const reordered = new arrow.RecordBatch({ _REALTIME_OFFSET: dedupBatch([[1, 6]]).getChild("_REALTIME_OFFSET")!.data[0] });
    await expectCode(w.write(reordered, B0), "OFFSET_INVALID");
    // backwards offsets: the key index is not touched (key 1 stays at offset 5)
    await expectCode(w.write(dedupBatch([[1, 4]]), B0), "OFFSET_INVALID");
    await expectCode(w.write(dedupBatch([[1, 7], [2, 7]]), B0), "OFFSET_INVALID");
    await expectCode(w.write(dedupBatch([[1, 8]]), { ...B0, rowKinds: [7 as RowKind] }), "INVALID_ARGUMENT");
    expect(await rows(table, { ctx })).toEqual([row(1, 5)]);
    // deleted offsets on a table that is not a deduplicate table
    const plain = await makeTable({ bucket: 1 });
    const pctx = await RealtimeContext.create();
    const pw = await plain.newWrite({ commitUser: "u", realtime: pctx });
    await pw.write(rtBatch([0]), B0);
    const progress = await pw.prepareCommitWithProgress(1);
    progress[0].deletedOffsets = new OffsetSet64([0n]);
    expect((await expectCode(plain.newCommit({ commitUser: "u" }).commitWithProgress(progress, 1), "PROGRESS_INVALID")).message).toBe(
      `real-time commit progress carries deleted offsets, but ${plain.identifier} is not an append deduplicate table`,
    );
    expect(await plain.latestSnapshot()).toBeNull();
    await w.prepareCommitWithProgress(1);
  });

  it("data files store the key and offset columns without a dictionary page (a key lookup decodes no dictionary), other columns with one", async () => {
    const { table, w, commit } = await setup();
    await w.write(dedupBatch(Array.from({ length: 50 }, (_, i): [number, number] => [i, i]), { values: Array.from({ length: 50 }, (_, i) => `v${i % 3}`) }), B0);
    await commit();
    const [split] = (await table.newScan().plan()).splits;
    const file = split.files[0];
    const path = table.paths.dataFile(split.bucketPath, file);
    const source = toByteSource(await fileIOSource(table.fileIO, path, Number(file.fileSize)), path);
    const footer = await readParquetFooter(source, path);
    const dictionaries: Record<string, boolean> = {};
    for (const [c, column] of footer.columns.entries()) dictionaries[column.name] = (await readChunkPages(source, footer, 0, c, false))!.dictionary !== null;
    expect(dictionaries).toEqual({ id: false, _REALTIME_OFFSET: false, v: true, dt: true });
    await w.close();
  });
});
