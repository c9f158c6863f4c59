// Seed 000 statements that append-mode tests proved, proven here for the real-time primary-key
// modes "PK MOR" and "PK DV" (issue 10): offset validation, read-view tickets and their TTL,
// spill (temporary directory, compression, failure), concurrent prefix reads, ReadOffset's -1,
// destructive operations, one context per table, offset-free committed data files and the
// refusal of PK global indexes. Each test names the append test (or seed statement) it mirrors.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it, vi } from "vitest";
import { col, isRealtimeSplit, RealtimeContext, RealtimeSnapshotOffsets, type TableWrite } from "../../src/index.js";
import { readParquetFooter } from "../../src/format/parquet-stats.js";
import type { RealtimeSplit } from "../../src/realtime/scan.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { runConcurrentLifecycle } from "./concurrent-lifecycle.js";
import { cleanupDirs, commitRealtime, compactFully, expectCode, makeTable, offsetsBatch, PK_MODES, pkTable, pkView, range, readRows, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

const INT64_MAX = 9223372036854775807n;
const spillFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("paimon-rt-spill-"));

/**
 * The committed rows as a real-time reader sees them: a fresh context holds no memory, and a
 * real-time scan keeps level-0 files (an ordinary PK DV batch scan skips them until compaction).
 */
const committedView = async (table: Table) => pkView(table, await RealtimeContext.create());

/** The path of data file `fileName` under the table's directory. */
function dataFilePath(table: Table, fileName: string): string {
  const found = (readdirSync(table.location, { recursive: true }) as string[]).filter((p) => p.endsWith(`/${fileName}`));
  expect(found).toHaveLength(1);
  return join(table.location, found[0]);
}

/** Writes rows of (partition dt,) bucket at the given offsets: ids, names (null for a delete) and row kinds. */
async function put(w: TableWrite, target: { dt?: string; bucket: number }, offsets: number[], ids: number[], names: Array<string | null>, kinds?: RowKind[]): Promise<void> {
  const batch = rtBatch(offsets, { ids, names, dt: target.dt });
  await w.write(batch, { bucket: target.bucket, ...(target.dt === undefined ? {} : { partition: { dt: target.dt } }), ...(kinds ? { rowKinds: kinds } : {}) });
}

describe.each(PK_MODES)("$name: input and read views", ({ options }) => {
  // input-and-read.test.ts "rejects bad offsets, layouts, row kinds and targets"
  it("INT64_MAX, negative and null offsets are OFFSET_INVALID and store nothing, not even the batch's valid rows", async () => {
    const table = await pkTable(options);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await put(w, { bucket: 0 }, [0, 1, 2], [1, 2, 1], ["a", "b", "c"]);
    const before = ctx.getMetrics();
    // offsetsBatch ids are the offsets mod 10^6 (0 when negative): stored, each bad batch would change the view
    const max = await expectCode(w.write(offsetsBatch(BigInt64Array.from([1000001n, INT64_MAX])), { bucket: 0 }), "OFFSET_INVALID");
    expect(max.message).toContain("exceeds INT64_MAX");
    await expectCode(w.write(offsetsBatch(BigInt64Array.from([INT64_MAX])), { bucket: 0 }), "OFFSET_INVALID");
    const negative = await expectCode(w.write(offsetsBatch(BigInt64Array.from([-5n])), { bucket: 0 }), "OFFSET_INVALID");
    expect(negative.message).toContain("offset -5 is negative");
    const nulls = await expectCode(w.write(offsetsBatch(BigInt64Array.from([1000002n, 1000003n]), true), { bucket: 0 }), "OFFSET_INVALID");
    expect(nulls.message).toContain("contains null");
    // one Table of two batches, the second bad: nothing of the first is kept either
    const valid = rtBatch([3, 4], { ids: [1, 5], names: ["t1", "t5"] });
    await expectCode(w.write(new arrow.Table([valid, offsetsBatch(BigInt64Array.from([1000005n, INT64_MAX]))]), { bucket: 0 }), "OFFSET_INVALID");
    expect(ctx.getMetrics()).toEqual(before);
    expect(await pkView(table, ctx)).toEqual([
      [1, "c"],
      [2, "b"],
    ]);
    // the next allowed offset did not move: offset 3 is accepted, and the progress is [0, 4)
    await put(w, { bucket: 0 }, [3], [2], ["d"]);
    const progress = await w.prepareCommitWithProgress(1);
    expect(progress.map((p) => p.offsetRange)).toEqual([{ begin: 0n, end: 4n }]);
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 1);
    await w.refreshCommittedSnapshot(s);
    await w.close();
    expect(await committedView(table)).toEqual([
      [1, "c"],
      [2, "d"],
    ]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 4n }]);
    // the rejected batches took no sequence numbers either: the four accepted rows have 0..3
    const files = (await table.manifestStore.liveEntries((await table.latestSnapshot())!)).map((e) => e.file);
    expect(files.map((f) => [f.minSequenceNumber, f.maxSequenceNumber, f.rowCount])).toEqual([[2n, 3n, 2n]]);
  });

  // input-and-read.test.ts "tickets: consumed by createReader, kept on failure, expire after the TTL; readers pin views"
  it("tickets: consumed by createReader, kept on failure, expire after realtime.read-view-ttl (mocked clock); readers pin merged views", async () => {
    // a frozen clock the test moves: expiry is exact and independent of the machine's load
    const base = Date.now();
    let skew = 0;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => base + skew);
    try {
      const ttlMs = 3600_000;
      const table = await pkTable({ ...options, bucket: 2, "realtime.read-view-ttl": "1 h" });
      const ctx = await RealtimeContext.create();
      const w = await table.newWrite({ commitUser: "u", realtime: ctx });
      await put(w, { bucket: 0 }, [0, 1, 2], [1, 2, 1], ["a", "b", "c"]);
      await put(w, { bucket: 1 }, [0, 1], [11, 12], ["x", "y"]);
      const read = table.newRead({ realtime: ctx });
      const plan = await table.newScan({ realtime: ctx }).plan();
      expect(ctx.liveTicketCount).toBe(2);
      const reader = await read.createReader(plan.splits);
      expect(ctx.liveTicketCount).toBe(0);
      await expectCode(read.createReader(plan.splits), "TICKET_EXPIRED"); // consumed
      // the reader pins its merged view across an upsert, a delete, commit, refresh and reclamation
      await put(w, { bucket: 0 }, [3, 4], [1, 2], ["d", null], [RowKind.UPDATE_AFTER, RowKind.DELETE]);
      const s1 = await commitRealtime(table, w, 1);
      await w.refreshCommittedSnapshot(s1);
      expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
      const pinned: Array<[number, unknown]> = [];
      for await (const b of reader) for (const r of b.toArray()) pinned.push([Number(r.id), r.name]);
      await reader.close();
      expect(pinned.sort((a, b) => a[0] - b[0])).toEqual([
        [1, "c"],
        [2, "b"],
        [11, "x"],
        [12, "y"],
      ]);
      expect(await pkView(table, ctx)).toEqual([
        [1, "d"],
        [11, "x"],
        [12, "y"],
      ]);
      // a failed creation keeps the tickets it did not consume
      await put(w, { bucket: 0 }, [5], [3], ["e"]);
      await put(w, { bucket: 1 }, [2], [11], ["x2"]);
      const p1 = await table.newScan({ realtime: ctx }).plan();
      expect(ctx.liveTicketCount).toBe(2);
      const live = p1.splits.filter(isRealtimeSplit) as RealtimeSplit[];
      expect(live.map((s) => s.bucket).sort()).toEqual([0, 1]);
      const bogus = { ...live[0], realtime: { ...live[0].realtime, ticket: "rt-unknown" } };
      await expectCode(read.createReader([...p1.splits, bogus]), "TICKET_EXPIRED");
      expect(ctx.liveTicketCount).toBe(2);
      await expectCode(read.createReader([{ ...live[0], bucket: 1 - live[0].bucket }]), "INVALID_ARGUMENT");
      expect(ctx.liveTicketCount).toBe(2);
      expect((await read.toArrow(p1.splits)).toArray().map((r) => [Number(r.id), r.name]).sort((a, b) => a[0] - b[0])).toEqual([
        [1, "d"],
        [3, "e"],
        [11, "x2"],
        [12, "y"],
      ]);
      expect(ctx.liveTicketCount).toBe(0);
      // expiry: still valid at exactly the TTL, expired one millisecond later
      await put(w, { bucket: 0 }, [6], [1], [null], [RowKind.DELETE]);
      const atTtl = await table.newScan({ realtime: ctx }).plan();
      skew += ttlMs;
      const created = await read.createReader(atTtl.splits);
      // a created reader is not bound by the TTL
      skew += 10 * ttlMs;
      let n = 0;
      for await (const b of created) n += b.numRows;
      await created.close();
      expect(n).toBe(3);
      const p2 = await table.newScan({ realtime: ctx }).plan();
      expect(ctx.liveTicketCount).toBe(2);
      skew += ttlMs + 1;
      // each bucket's ticket has expired (the failed creation stops at the first; a sweep or use releases the other)
      for (const split of p2.splits.filter(isRealtimeSplit)) await expectCode(read.createReader([split]), "TICKET_EXPIRED");
      expect(ctx.liveTicketCount).toBe(0);
      // replanning gives fresh tickets
      expect(await pkView(table, ctx)).toEqual([
        [3, "e"],
        [11, "x2"],
        [12, "y"],
      ]);
      await commitRealtime(table, w, 2);
      await w.close();
    } finally {
      clock.mockRestore();
    }
  });

  // input-and-read.test.ts "requires fixed buckets, an append table, a context object and a temp directory for spill"
  it("requires a positive read-view TTL, a temporary directory for spill, a context object, and one context per table", async () => {
    const ctx = await RealtimeContext.create();
    const zeroTtl = await pkTable({ ...options, "realtime.read-view-ttl": "0 s" });
    const ttl = await expectCode(zeroTtl.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
    expect(ttl.message).toBe(`option realtime.read-view-ttl of ${zeroTtl.identifier} must be positive, got '0 s'`);
    await expectCode(() => zeroTtl.newScan({ realtime: ctx }), "INVALID_ARGUMENT");
    const spill = await pkTable({ ...options, "realtime.spill-enabled": true });
    for (const tempDirectory of [undefined, "", "  "]) {
      const e = await expectCode(spill.newWrite({ commitUser: "u", realtime: ctx, tempDirectory }), "INVALID_ARGUMENT");
      expect(e.message).toBe(`realtime.spill-enabled requires a non-empty temporary directory (newWrite tempDirectory) for ${spill.identifier}`);
    }
    const table = await pkTable(options);
    await expectCode(table.newWrite({ commitUser: "u", realtime: {} as never }), "INVALID_ARGUMENT");
    // the refusals above did not bind the context: it serves the first table it writes
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await expectCode(w.prepareCommit(1), "INVALID_ARGUMENT");
    await put(w, { bucket: 0 }, [0], [1], ["a"]);
    for (const other of [await pkTable(options), await makeTable()]) {
      const e = await expectCode(other.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
      expect(e.message).toBe(`this RealtimeContext serves table ${table.location}; use a separate context for ${other.location}`);
      await expectCode(() => other.newScan({ realtime: ctx }).plan(), "INVALID_ARGUMENT");
    }
    expect(await pkView(table, ctx)).toEqual([[1, "a"]]);
    await commitRealtime(table, w, 1);
    await w.close();
  });

  // lifecycle.test.ts "prepares, commits with progress, reads disk + memory without duplicates, refreshes and reclaims" (readOffset -1)
  it("RealtimeSnapshotOffsets.readOffset is -1 for a partition-bucket never committed, and delete-only progress counts", async () => {
    const table = await pkTable({ ...options, bucket: 2 }, true);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "a" }, bucket: 0 })).toBe(-1n); // no snapshot yet
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await put(w, { dt: "a", bucket: 0 }, [0, 1, 2], [1, 2, 1], ["a", "b", "c"]);
    await put(w, { dt: "b", bucket: 1 }, [0, 4], [7, 8], [null, null], [RowKind.DELETE, RowKind.DELETE]); // deletes of absent keys only
    const s1 = await commitRealtime(table, w, 1);
    await w.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 3n },
      { partition: { dt: "b" }, bucket: 1, offset: 5n },
    ]);
    const offsetOf = (dt: string, bucket: number, snapshot?: number) => RealtimeSnapshotOffsets.readOffset(table, snapshot, { partition: { dt }, bucket });
    expect(await offsetOf("a", 0)).toBe(3n);
    expect(await offsetOf("b", 1, s1)).toBe(5n);
    expect(await offsetOf("a", 1)).toBe(-1n); // the partition exists, the bucket was never committed
    expect(await offsetOf("b", 0, s1)).toBe(-1n);
    expect(await offsetOf("c", 0)).toBe(-1n); // a partition never written
    expect(await committedView(table)).toEqual([
      [1, "c"],
      [2, "b"],
    ]);
  });

  // lifecycle.test.ts "keeps data files free of the offset column and commits through the ordinary append writer",
  // here read from the files' Parquet footers (seed § Input Schema and Offsets: "Internal prefix removed before writing data files")
  it("committed data files (level 0 and compacted) have no _REALTIME_OFFSET column", async () => {
    const table = await pkTable({ ...options, bucket: 2 }, true);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await put(w, { dt: "a", bucket: 0 }, [0, 1, 2], [1, 2, 1], ["a", "b", "c"]);
    await put(w, { dt: "b", bucket: 1 }, [5, 6, 7], [3, 3, 8], ["d", null, "e"], [RowKind.INSERT, RowKind.DELETE, RowKind.INSERT]);
    await w.refreshCommittedSnapshot(await commitRealtime(table, w, 1));
    await w.close();
    await compactFully(table);
    const fields = table.schema.fields;
    const expected = [
      ["_KEY_id", 1073741823 + fields[0].id],
      ["_SEQUENCE_NUMBER", 2147483646],
      ["_VALUE_KIND", 2147483645],
      ...fields.map((f) => [f.name, f.id]),
    ];
    const snapshots = await table.listSnapshots();
    expect(snapshots.map((s) => s.commitKind)).toEqual(["APPEND", "COMPACT"]);
    const levels: number[] = [];
    for (const snapshot of snapshots) {
      for (const e of await table.manifestStore.liveEntries(snapshot)) {
        const footer = await readParquetFooter(readFileSync(dataFilePath(table, e.file.fileName)));
        expect(footer.columns.map((c) => [c.name, c.fieldId])).toEqual(expected);
        levels.push(e.file.level);
      }
    }
    // the real-time commit's level-0 files of both partition-buckets, then the compacted ones
    expect(levels).toEqual([0, 0, 5, 5]);
    expect(await committedView(table)).toEqual([
      [1, "c"],
      [2, "b"],
      [8, "e"],
    ]);
  });
});

describe.each(PK_MODES)("$name: spill", ({ options }) => {
  // spill.test.ts "spill-compression none and repeated seals" and the zstd/none chunked spill tests
  it.each(["none", "zstd"] as const)("spill-compression %s: sealed upserts and deletes read, filter and commit back exactly", async (compression) => {
    const table = await pkTable({ ...options, "realtime.spill-enabled": true, "spill-compression": compression, "realtime.store.stats-mode": "full" });
    const tmp = tempDir();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    await put(w, { bucket: 0 }, range(0, 5), [1, 2, 3, 4, 5], ["a1", "a2", "a3", "a4", "a5"]);
    await w.seal();
    await put(w, { bucket: 0 }, [5, 6, 7], [2, 3, 6], ["b2", null, "b6"], [RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.INSERT]);
    await w.seal();
    await put(w, { bucket: 0 }, [8, 9], [6, 1], ["c6", null], [RowKind.UPDATE_AFTER, RowKind.DELETE]);
    await w.seal();
    await w.seal(); // nothing to seal: no file
    expect(spillFiles(tmp)).toHaveLength(3);
    // every chunk header names the codec (byte 8: 0 none, 1 zstd)
    for (const f of spillFiles(tmp)) expect(readFileSync(join(tmp, f))[8]).toBe(compression === "zstd" ? 1 : 0);
    await put(w, { bucket: 0 }, [10], [7], ["d7"]); // building
    const expected = [
      [2, "b2"],
      [4, "a4"],
      [5, "a5"],
      [6, "c6"],
      [7, "d7"],
    ];
    expect(await pkView(table, ctx)).toEqual(expected);
    expect(await pkView(table, ctx, { filter: col("id").eq(6n), predicateFilter: true })).toEqual([[6, "c6"]]);
    expect(await pkView(table, ctx, { filter: col("name").eq("a1"), predicateFilter: true })).toEqual([]); // key 1 was deleted
    expect(ctx.getMetrics()).toMatchObject({ realtimeSealedRowCount: 10, realtimeBuildingRowCount: 1 });
    const progress = await w.prepareCommitWithProgress(1); // reads the spilled segments
    expect(progress.map((p) => p.offsetRange)).toEqual([{ begin: 0n, end: 11n }]);
    await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 1));
    expect(spillFiles(tmp)).toEqual([]);
    expect(await committedView(table)).toEqual(expected);
    await w.close();
    await ctx.close();
  });

  // spill.test.ts "a failed spill keeps the segment in memory and invalidates the context"
  it.each([true, false])("a failed spill (temporary directory a file; writer started on a directory: %s) keeps the segment in memory and invalidates the context", async (replacedLater) => {
    const table = await pkTable({ ...options, "realtime.spill-enabled": true });
    const parent = tempDir();
    const tmp = join(parent, "spill");
    if (replacedLater) mkdirSync(tmp);
    else writeFileSync(tmp, "x");
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    await put(w, { bucket: 0 }, range(0, 10), [1, 2, 3, 1, 2, 3, 4, 5, 6, 7], range(0, 10).map((o) => `v${o}`));
    const plan = await table.newScan({ realtime: ctx }).plan();
    if (replacedLater) {
      rmSync(tmp, { recursive: true });
      writeFileSync(tmp, "x");
    }
    const failed = await expectCode(w.seal(), "CONTEXT_INVALIDATED");
    expect(failed.message).toMatch(new RegExp(`^real-time context invalidated: spill of ${table.identifier.replace(".", "\\.")} partition \\{\\} bucket 0 failed \\(the segment stays in memory\\): write ${tmp}/paimon-rt-spill-[^ ]+\\.arrow: a parent path is a file$`));
    const m = ctx.getMetrics();
    expect(m.realtimeSealedRowCount).toBe(10);
    expect(m.realtimeBuildingRowCount).toBe(0);
    expect(m.realtimeSealedMemoryBytes).toBeGreaterThan(0);
    await expectCode(put(w, { bucket: 0 }, [10], [8], ["v10"]), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newScan({ realtime: ctx }).plan(), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newRead({ realtime: ctx }).createReader(plan.splits), "CONTEXT_INVALIDATED");
    await expectCode(w.prepareCommitWithProgress(1), "CONTEXT_INVALIDATED");
    // no partial spill file anywhere; the file that replaced the directory is untouched
    expect(readdirSync(parent)).toEqual(["spill"]);
    expect(readFileSync(tmp, "utf8")).toBe("x");
    expect(await table.latestSnapshot()).toBeNull();
  });
});

/**
 * The length k in [from, to] such that applying events[0, k) (key, name, or null for a delete)
 * gives exactly `visible`, or -1: the visible keys are those of one written prefix, each with
 * its latest value in it.
 */
function matchingPrefix(events: ReadonlyArray<[number, string | null]>, from: number, to: number, visible: ReadonlyMap<number, unknown>): number {
  const state = new Map<number, string>();
  const apply = ([key, name]: [number, string | null]) => (name === null ? state.delete(key) : state.set(key, name));
  for (let i = 0; i < from; i++) apply(events[i]);
  const equal = () => state.size === visible.size && [...state].every(([k, v]) => visible.get(k) === v);
  for (let k = from; ; k++) {
    if (equal()) return k;
    if (k === to) return -1;
    apply(events[k]);
  }
}

describe.each(PK_MODES)("$name: concurrent lifecycle", ({ options }) => {
  // concurrent.test.ts "reads are always gap-free, duplicate-free prefixes"
  it.each([false, true])("reads show each key once with its latest value in a written prefix (spill %s)", async (spill) => {
    const table = await pkTable({ ...options, bucket: 2, "read.batch-size": 7, ...(spill ? { "realtime.spill-enabled": true } : {}) });
    const ctx = await RealtimeContext.create();
    const buckets = [0, 1];
    // per bucket, the events in write order; keys are bucket * 10^6 + k (k < 40), names unique per bucket
    const written = await runConcurrentLifecycle<[number, string | null]>({
      table,
      ctx,
      buckets,
      seed: spill ? 11 : 5,
      async write(w, bucket, offsets, random) {
        const ids: number[] = [];
        const names: Array<string | null> = [];
        const kinds: RowKind[] = [];
        for (const offset of offsets) {
          const isDelete = random() < 0.2;
          ids.push(bucket * 1_000_000 + Math.floor(random() * 40));
          names.push(isDelete ? null : `o${offset}`);
          kinds.push(isDelete ? RowKind.DELETE : RowKind.INSERT);
        }
        await put(w, { bucket }, offsets, ids, names, kinds);
        return ids.map((id, i): [number, string | null] => [id, names[i]!]);
      },
      checkRead(rows, events, before, after) {
        for (const b of buckets) {
          const mine = rows.filter((r) => Math.floor((r.id as number) / 1_000_000) === b);
          const visible = new Map(mine.map((r) => [r.id as number, r.name]));
          expect(visible.size).toBe(mine.length); // no key twice
          expect(matchingPrefix(events.get(b)!, before[b]!, after[b]!, visible)).toBeGreaterThanOrEqual(before[b]!);
        }
      },
    });
    const final = new Map<number, string>();
    for (const b of buckets) for (const [key, name] of written.get(b)!) name === null ? final.delete(key) : final.set(key, name);
    expect(await committedView(table)).toEqual([...final].sort((a, b) => a[0] - b[0]));
  });
});

/** Commits a writer's prepared progress as `user` under checkpoint `id`; returns the snapshot. */
async function commitAs(table: Table, w: TableWrite, user: string, id: number): Promise<number> {
  return table.newCommit({ commitUser: user }).commitWithProgress(await w.prepareCommitWithProgress(id), id);
}

/** Commit kinds of the snapshots after `id`. */
const kindsSince = async (table: Table, id: number) => (await table.listSnapshots()).filter((s) => s.id > id).map((s) => s.commitKind);

const offsetsProperty = async (table: Table, id: number) => (await table.snapshot(id)).properties?.["realtime.offsets"];

/**
 * A partitioned PK table (2 buckets) with committed progress a/0 [0,5), a/1 [0,2), b/1 [0,3)
 * from one context, whose writer stays open: visible 1 → a3, 2, 3, 4 | 100, 101 | 201 (200 deleted).
 */
async function seeded(options: Record<string, string | number | boolean>): Promise<{ table: Table; ctx: RealtimeContext; w: TableWrite; s1: number }> {
  const table = await pkTable({ ...options, bucket: 2 }, true);
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
  await put(w, { dt: "a", bucket: 0 }, range(0, 5), [1, 2, 3, 1, 4], ["a1", "a2", "a3", "a3", "a4"]);
  await put(w, { dt: "a", bucket: 1 }, [0, 1], [100, 101], ["p", "q"]);
  await put(w, { dt: "b", bucket: 1 }, [0, 1, 2], [200, 201, 200], ["r", "s", null], [RowKind.INSERT, RowKind.INSERT, RowKind.DELETE]);
  const s1 = await commitAs(table, w, "rt", 1);
  await w.refreshCommittedSnapshot(s1);
  return { table, ctx, w, s1 };
}

const SEEDED_VIEW: Array<[number, unknown]> = [
  [1, "a3"],
  [2, "a2"],
  [3, "a3"],
  [4, "a4"],
  [100, "p"],
  [101, "q"],
  [201, "s"],
];

describe.each(PK_MODES)("$name: destructive operations", ({ options }) => {
  // table-operations.test.ts "deletes every row and records an empty offsets map: readOffset reports the reset"
  it("truncate resets every partition-bucket to -1; the context fails; a new context starts over from offset 0", async () => {
    const { table, ctx, w, s1 } = await seeded(options);
    expect(await committedView(table)).toEqual(SEEDED_VIEW);
    const s2 = await table.truncate({ commitUser: "admin" });
    expect((await table.snapshot(s2)).commitKind).toBe("OVERWRITE");
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "a" }, bucket: 0 })).toBe(-1n);
    expect(await RealtimeSnapshotOffsets.readOffset(table, s1, { partition: { dt: "a" }, bucket: 0 })).toBe(5n);
    expect(await committedView(table)).toEqual([]);
    await expectCode(w.refreshCommittedSnapshot(s2), "CONTEXT_INVALIDATED");
    expect(ctx.invalidatedReason).toMatch(/overwrote .*partition \{dt=a\} bucket 0/);
    await expectCode(put(w, { dt: "a", bucket: 0 }, [5], [1], ["late"]), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newScan({ realtime: ctx }).plan(), "CONTEXT_INVALIDATED");
    // a new context replays from the initial position; its versions are not hidden by the truncated ones
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "rt", realtime: ctx2 });
    await put(w2, { dt: "a", bucket: 0 }, [0, 1], [1, 9], ["new1", "new9"]);
    const s3 = await commitAs(table, w2, "rt", 2);
    await w2.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s3)).toEqual([{ partition: { dt: "a" }, bucket: 0, offset: 2n }]);
    expect(await committedView(table)).toEqual([
      [1, "new1"],
      [9, "new9"],
    ]);
  });

  // table-operations.test.ts "resets exactly the dropped partitions' progress; only contexts holding them are invalidated"
  it("dropPartitions resets exactly the dropped partitions' progress; only contexts holding them fail", async () => {
    const { table, w } = await seeded(options);
    // a second context holding only partition a: an uncommitted upsert of key 2 on a/0
    const ctxA = await RealtimeContext.create();
    const wA = await table.newWrite({ commitUser: "rtA", realtime: ctxA });
    await put(wA, { dt: "a", bucket: 0 }, [5, 6], [2, 5], ["A2", "A5"]);
    const s2 = (await table.dropPartitions([{ dt: "b" }], { commitUser: "admin" }))!;
    expect((await table.snapshot(s2)).commitKind).toBe("OVERWRITE");
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 5n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
    ]);
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "b" }, bucket: 1 })).toBe(-1n);
    expect(await committedView(table)).toEqual(SEEDED_VIEW.filter(([id]) => id !== 201));
    await wA.refreshCommittedSnapshot(s2);
    expect(ctxA.invalidatedReason).toBeNull();
    expect(await pkView(table, ctxA)).toEqual([[1, "a3"], [2, "A2"], [3, "a3"], [4, "a4"], [5, "A5"], [100, "p"], [101, "q"]]);
    const s3 = await commitAs(table, wA, "rtA", 1);
    await wA.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s3)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 7n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
    ]);
    await expectCode(w.refreshCommittedSnapshot(s2), "CONTEXT_INVALIDATED");
  });

  // table-operations.test.ts "overwriting a partition the context never wrote keeps its progress and the context; overwriting its own resets it"
  it("overwrite of a partition the context never wrote keeps progress and context; of its own partition resets it", async () => {
    const { table, ctx, w, s1 } = await seeded(options);
    const ordinary = await table.newWrite({ commitUser: "plain" });
    const overwriter = await table.newWrite({ commitUser: "plain", overwrite: true });
    const plainRow = (dt: string, id: number, name: string) => rtBatch([0], { dt, ids: [id], names: [name] }).selectAt([1, 2, 3, 4]);
    await ordinary.write(plainRow("c", 300, "c0"), { partition: { dt: "c" }, bucket: 0 });
    await table.newCommit({ commitUser: "plain" }).commit(await ordinary.prepareCommit());
    await overwriter.write(plainRow("c", 310, "c1"), { partition: { dt: "c" }, bucket: 1 });
    const s3 = (await table.newCommit({ commitUser: "plain" }).overwrite(await overwriter.prepareCommit(), { dt: "c" }))!;
    // with deletion vectors the ordinary writer also compacts level 0: a COMPACT snapshot follows
    const ownCompaction = "deletion-vectors.enabled" in options ? ["COMPACT"] : [];
    expect(await kindsSince(table, s1)).toEqual(["APPEND", ...ownCompaction, "OVERWRITE", ...ownCompaction]);
    expect(await offsetsProperty(table, s3)).toBe(await offsetsProperty(table, s1));
    await w.refreshCommittedSnapshot(s3);
    expect(ctx.invalidatedReason).toBeNull();
    expect(await pkView(table, ctx)).toEqual([...SEEDED_VIEW, [310, "c1"]]);
    // dynamic partition overwrite of partition b (the context wrote b/1): b's progress resets
    await overwriter.write(plainRow("b", 320, "b0"), { partition: { dt: "b" }, bucket: 0 });
    const s4 = (await table.newCommit({ commitUser: "plain" }).overwrite(await overwriter.prepareCommit()))!;
    expect(await kindsSince(table, s3)).toEqual(["OVERWRITE", ...ownCompaction]);
    await ordinary.close();
    await overwriter.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s4)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 5n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
    ]);
    expect(await committedView(table)).toEqual([...SEEDED_VIEW.filter(([id]) => id !== 201), [310, "c1"], [320, "b0"]]);
    await expectCode(w.refreshCommittedSnapshot(s4), "CONTEXT_INVALIDATED");
  });

  // table-operations.test.ts "restores the target's rows and progress; contexts past it fail until recreated"
  it("rollbackTo restores the target's rows and progress; contexts past it fail until recreated", async () => {
    const { table, ctx, w, s1 } = await seeded(options);
    await put(w, { dt: "a", bucket: 0 }, [5, 6, 7], [1, 2, 6], ["x1", null, "x6"], [RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.INSERT]);
    await put(w, { dt: "b", bucket: 1 }, [3], [201], ["x201"]);
    const s2 = await commitAs(table, w, "rt", 2);
    await w.refreshCommittedSnapshot(s2);
    await put(w, { dt: "a", bucket: 0 }, [8], [3], ["x3"]); // memory tail
    expect(await pkView(table, ctx)).toEqual([[1, "x1"], [3, "x3"], [4, "a4"], [6, "x6"], [100, "p"], [101, "q"], [201, "x201"]]);
    await table.rollbackTo(s1);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([s1]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 5n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
      { partition: { dt: "b" }, bucket: 1, offset: 3n },
    ]);
    expect(await committedView(table)).toEqual(SEEDED_VIEW);
    // the old context is ahead of the table now
    const behind = await expectCode(pkView(table, ctx), "INVALID_ARGUMENT");
    expect(behind.message).toMatch(/is behind the real-time context's committed offset 8/);
    await expectCode(w.refreshCommittedSnapshot(s1), "INVALID_ARGUMENT");
    // a recreated context resumes from the restored progress; its upserts win over the restored versions
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "rt2", realtime: ctx2 });
    await expectCode(put(w2, { dt: "a", bucket: 0 }, [4], [1], ["stale"]), "OFFSET_INVALID");
    await put(w2, { dt: "a", bucket: 0 }, [5, 6], [1, 3], ["y1", null], [RowKind.UPDATE_AFTER, RowKind.DELETE]);
    expect(await pkView(table, ctx2)).toEqual([[1, "y1"], [2, "a2"], [4, "a4"], [100, "p"], [101, "q"], [201, "s"]]);
    const again = await commitAs(table, w2, "rt2", 1);
    await w2.close();
    expect(again).toBe(s2); // the reused snapshot id resolves anew
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, again)).toEqual([
      { partition: { dt: "a" }, bucket: 0, offset: 7n },
      { partition: { dt: "a" }, bucket: 1, offset: 2n },
      { partition: { dt: "b" }, bucket: 1, offset: 3n },
    ]);
    expect(await committedView(table)).toEqual([[1, "y1"], [2, "a2"], [4, "a4"], [100, "p"], [101, "q"], [201, "s"]]);
  });
});

describe.each(PK_MODES)("$name: limits", ({ options }) => {
  // seed § Current Limits "PK global indexes ... are unsupported" (pk.test.ts lists the other refused options)
  it("global-index.enabled=true is refused with UNSUPPORTED naming the option at writer and scan creation", async () => {
    const table = await pkTable({ ...options, "global-index.enabled": true });
    const ctx = await RealtimeContext.create();
    const write = await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "UNSUPPORTED");
    expect(write.message).toBe(`real-time write: real-time primary-key mode does not support primary-key global indexes; option global-index.enabled of table ${table.identifier}`);
    const scan = await expectCode(() => table.newScan({ realtime: ctx }), "UNSUPPORTED");
    expect(scan.message).toBe(`real-time scan: real-time primary-key mode does not support primary-key global indexes; option global-index.enabled of table ${table.identifier}`);
    // set to its default, the option changes nothing
    const off = await pkTable({ ...options, "global-index.enabled": false });
    const w = await off.newWrite({ commitUser: "u", realtime: ctx });
    await put(w, { bucket: 0 }, [0], [1], ["a"]);
    expect(await pkView(off, ctx)).toEqual([[1, "a"]]);
    await commitRealtime(off, w, 1);
    await w.close();
  });
});
