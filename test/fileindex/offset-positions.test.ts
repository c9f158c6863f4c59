// Exact offset → row-position lookup through the bitmap file index on _REALTIME_OFFSET (seed 000
// "Append Deduplicate / Offset DV"): IN / NOT IN positions against a model, trimming by reliable
// min/max statistics, embedded and `.index` indexes of files paimon-rt writes, files Java writes,
// and the refusal of files without an exact index.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { FileIndexBuilder, fileIndexSpecOf } from "../../src/fileindex/index.js";
import { readParquetBatches } from "../../src/format/parquet-reader.js";
import { fileIOSource } from "../../src/format/source.js";
import { OffsetSet64 } from "../../src/kernel/bitmap.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { OffsetIndexCache, OffsetLog, OffsetPositionIndex, pendingOffsetPositions, reliableOffsetBounds, type OffsetFileSource, type PositionsLease } from "../../src/read/offset-positions.js";
import { DedupKeyIndex, keyIdentities, type FrozenDeletedOffsets } from "../../src/realtime/dedup-key-index.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import type { DataField } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, writeTable } from "../interop/oracle/harness.js";
import { failure } from "../table/helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const OFFSET: DataField = { id: 1, name: "_REALTIME_OFFSET", type: { kind: "BIGINT", nullable: false } };
const ID: DataField = { id: 0, name: "id", type: { kind: "BIGINT", nullable: false } };

function offsetsBatch(offsets: readonly bigint[]): arrow.RecordBatch {
  const col = (values: readonly bigint[]) => arrow.makeData({ type: new arrow.Int64(), length: values.length, nullCount: 0, data: BigInt64Array.from(values) });
  return new arrow.RecordBatch({ id: col(offsets.map((_, i) => BigInt(i))), _REALTIME_OFFSET: col(offsets) });
}

/** The index blob paimon-rt writes for a file whose offset column holds `offsets`. */
function blobOf(offsets: readonly bigint[], extra: Record<string, string> = {}): Uint8Array {
  const fields = [ID, OFFSET];
  const builder = new FileIndexBuilder(fileIndexSpecOf({ "file-index.bitmap.columns": "_REALTIME_OFFSET", ...extra }, fields)!, fields);
  builder.update(offsetsBatch(offsets));
  return builder.finish();
}

const positionsWhere = (offsets: readonly bigint[], test: (o: bigint) => boolean) => offsets.flatMap((o, i) => (test(o) ? [i] : []));

describe("offset → row positions via the bitmap index", () => {
  it("matches a model for IN and NOT IN, trimmed or not (randomized)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 60n }), { minLength: 1, maxLength: 80 }),
        fc.array(fc.bigInt({ min: 0n, max: 70n }), { maxLength: 90 }),
        fc.boolean(),
        (column, pending, trim) => {
          const index = OffsetPositionIndex.fromBlob(blobOf(column), OFFSET, column.length, "f");
          const set = new OffsetSet64(pending);
          try {
            const bounds = trim ? { min: column.reduce((a, b) => (a < b ? a : b)), max: column.reduce((a, b) => (a > b ? a : b)) } : null;
            const inside = index.positionsIn(set, bounds);
            const outside = index.positionsNotIn(set, bounds);
            const wanted = new Set(pending);
            expect(Array.from(inside.toArray())).toEqual(positionsWhere(column, (o) => wanted.has(o)));
            expect(Array.from(outside.toArray())).toEqual(positionsWhere(column, (o) => !wanted.has(o)));
            inside.dispose();
            outside.dispose();
          } finally {
            set.dispose();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("matches a model on large files of either bitmap index version: pages of pending offsets, galloping, multi-row offsets, lookups after a growing or shrinking set (randomized)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30_000 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom("1", "2"),
        fc.boolean(),
        (rows, pendingCount, seed, version, trim) => {
          let x = seed;
          const next = () => {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            return x >>> 0;
          };
          // ascending offsets with gaps and an occasional repeat (a value in several rows), around 2^32
          const column: bigint[] = [];
          let o = 2n ** 32n - 5000n;
          for (let i = 0; i < rows; i++) {
            if (next() % 50 !== 0) o += BigInt(1 + (next() % 3));
            column.push(o);
          }
          const pending = Array.from({ length: pendingCount }, () => 2n ** 32n - 6000n + BigInt(next() % (3 * rows + 2000)));
          const index = OffsetPositionIndex.fromBlob(blobOf(column, { "file-index.bitmap._REALTIME_OFFSET.version": version }), OFFSET, rows, "f");
          const set = new OffsetSet64(pending);
          const bounds = trim ? { min: column[0], max: column[rows - 1] } : null;
          // the same index over a growing set (the last lookup's difference only), a shrunk one, the first again, another
          const more = Array.from({ length: 1 + (next() % 300) }, () => 2n ** 32n - 6000n + BigInt(next() % (3 * rows + 2000)));
          const fewer = pending.filter(() => next() % 4 !== 0);
          try {
            const shifted = [...pending.map((v) => v + 1n), 0n]; // no smaller, yet no superset
            for (const offsets of [pending, [...pending, ...more], [...pending, ...more], fewer, pending, shifted]) {
              const current = new OffsetSet64(offsets);
              const inside = index.positionsIn(current, bounds);
              try {
                const wanted = new Set(offsets);
                expect(Array.from(inside.toArray())).toEqual(positionsWhere(column, (v) => wanted.has(v)));
              } finally {
                inside.dispose();
                current.dispose();
              }
            }
          } finally {
            set.dispose();
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it("resolves frozen pending deletions incrementally: views frozen between writes, prepares and commits, read in any order, see exactly their own deletions (randomized)", () => {
    // Two committed files (offsets 0 … 2K-1 with gaps and repeats, split in two), keys superseded
    // by writes of new offsets; the key index's frozen deletions are read through the files'
    // incremental caches and compared with a model of the deleted set at each freeze.
    const K = 400;
    const op = fc.oneof(
      fc.record({ kind: fc.constant("write" as const), keys: fc.array(fc.integer({ min: 0, max: K + 50 }), { minLength: 1, maxLength: 40 }) }),
      fc.record({ kind: fc.constant("big write" as const), keys: fc.array(fc.integer({ min: 0, max: K - 1 }), { minLength: 1100, maxLength: 1400 }) }),
      fc.record({ kind: fc.constant("view" as const) }),
      fc.record({ kind: fc.constant("prepare" as const) }),
      fc.record({ kind: fc.constant("commit" as const) }),
      fc.record({ kind: fc.constant("read" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.nat(), (ops, seed) => {
        const model = deletionModel(K);
        const { column, views } = model;
        const half = column.length >> 1;
        const files = [column.slice(0, half), column.slice(half)].map((c) => ({ column: c, index: OffsetPositionIndex.fromBlob(blobOf(c), OFFSET, c.length, "f") }));
        const read = (v: { frozen: FrozenDeletedOffsets; expected: Set<bigint> }) => {
          for (const f of files) {
            const hits = f.index.positionsOfPending(v.frozen);
            try {
              expect(Array.from(hits.toArray())).toEqual(positionsWhere(f.column, (o) => v.expected.has(o)));
            } finally {
              hits.dispose();
            }
          }
        };
        let pick = seed;
        for (const o of ops) {
          if (o.kind === "read") {
            // the current state, then a random earlier view (older after newer)
            read(model.current());
            if (views.length > 0) read(views[(o.pick + pick++) % views.length]);
          } else model.step(o);
        }
        for (const v of [...views].reverse()) read(v);
        read(model.current());
      }),
      { numRuns: 150 },
    );
  });

  it("leases the cached positions without a copy per read; a leased bitmap is never extended: newer views read a copy while older leases are held (randomized)", () => {
    // As above, but reads borrow (borrowPending) and hold their leases across later writes,
    // views and reads of other views: each held lease must keep exactly its own view's rows.
    const K = 300;
    const op = fc.oneof(
      fc.record({ kind: fc.constant("write" as const), keys: fc.array(fc.integer({ min: 0, max: K + 50 }), { minLength: 1, maxLength: 30 }) }),
      fc.record({ kind: fc.constant("view" as const) }),
      fc.record({ kind: fc.constant("prepare" as const) }),
      fc.record({ kind: fc.constant("commit" as const) }),
      fc.record({ kind: fc.constant("borrow" as const), pick: fc.nat(), current: fc.boolean() }),
      fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 50 }), (ops) => {
        const model = deletionModel(K);
        const { column, views } = model;
        const file = { column, index: OffsetPositionIndex.fromBlob(blobOf(column), OFFSET, column.length, "f") };
        const held: Array<{ lease: PositionsLease; expected: number[] }> = [];
        const check = () => {
          for (const h of held) expect(Array.from(h.lease.hits.toArray())).toEqual(h.expected);
        };
        for (const o of ops) {
          if (o.kind === "borrow") {
            const v = o.current || views.length === 0 ? model.current() : views[o.pick % views.length];
            const lease = file.index.borrowPending(v.frozen);
            held.push({ lease, expected: positionsWhere(column, (x) => v.expected.has(x)) });
          } else if (o.kind === "release") {
            if (held.length > 0) held.splice(o.pick % held.length, 1)[0].lease.release();
          } else model.step(o);
          check();
        }
        // an unchanged state is lent as the same bitmap (no copy per read) while it is cached
        const now = model.current();
        const a = file.index.borrowPending(now.frozen);
        const b = file.index.borrowPending(now.frozen);
        expect(b.hits).toBe(a.hits);
        expect(Array.from(file.index.positionsOfPending(now.frozen).toArray())).toEqual(positionsWhere(column, (x) => now.expected.has(x)));
        a.release();
        b.release();
        for (const h of held.splice(0)) h.lease.release();
        expect(() => a.release()).toThrow("released more often than borrowed");
      }),
      { numRuns: 200 },
    );
  });

  it("an offset log is append-only: earlier views of it keep their values when it grows", () => {
    const log = new OffsetLog(BigUint64Array.of(5n, 3n));
    const before = log.values;
    log.append(BigInt64Array.from({ length: 100 }, (_, i) => BigInt(100 + i)));
    expect([before.length, ...before]).toEqual([2, 5n, 3n]);
    expect([log.length, log.values[1], log.values[2], log.values[101]]).toEqual([102, 3n, 100n, 199n]);
    expect(new OffsetLog().generation).toBeGreaterThan(log.generation);
  });

  it("pages through large pending sets and stops at the file's max offset", () => {
    const column = Array.from({ length: 5000 }, (_, i) => BigInt(100_000 + i * 3));
    const index = OffsetPositionIndex.fromBlob(blobOf(column), OFFSET, column.length, "f");
    const pending = new OffsetSet64(Array.from({ length: 20_000 }, (_, i) => BigInt(i * 7)));
    try {
      const expected = positionsWhere(column, (o) => o % 7n === 0n && o < 140_000n);
      const trimmed = index.positionsIn(pending, { min: column[0], max: column[column.length - 1] });
      const untrimmed = index.positionsIn(pending, null);
      expect([trimmed.size, Array.from(trimmed.toArray())]).toEqual([expected.length, expected]);
      expect(Array.from(untrimmed.toArray())).toEqual(expected);
      // Bounds that exclude every pending offset look nothing up.
      expect(index.positionsIn(pending, { min: 140_001n, max: 140_002n }).size).toBe(0);
      trimmed.dispose();
      untrimmed.dispose();
    } finally {
      pending.dispose();
    }
    // Fewer pending offsets than file values: the pending set is walked page by page (4096 a page).
    const dense = Array.from({ length: 20_000 }, (_, i) => BigInt(i));
    const run = new OffsetSet64(Array.from({ length: 9000 }, (_, i) => BigInt(5000 + i)));
    const hits = OffsetPositionIndex.fromBlob(blobOf(dense), OFFSET, dense.length, "f").positionsIn(run, null);
    try {
      expect(Array.from(hits.toArray())).toEqual(Array.from({ length: 9000 }, (_, i) => 5000 + i));
    } finally {
      hits.dispose();
      run.dispose();
    }
  });

  it("refuses a file without an exact index (bloom filter only, or none) and an index of another row count", () => {
    const bloom = (() => {
      const fields = [ID, OFFSET];
      const b = new FileIndexBuilder(fileIndexSpecOf({ "file-index.bloom-filter.columns": "_REALTIME_OFFSET" }, fields)!, fields);
      b.update(offsetsBatch([1n, 2n]));
      return b.finish();
    })();
    for (const blob of [bloom, null]) {
      const e = (() => {
        try {
          OffsetPositionIndex.fromBlob(blob, OFFSET, 2, "data-1.parquet");
        } catch (err) {
          return err as { code: string; message: string };
        }
        throw new Error("expected a failure");
      })();
      expect([e.code, e.message]).toEqual(["UNSUPPORTED", "data file data-1.parquet has no exact bitmap file index on _REALTIME_OFFSET (needed to map offsets to row positions)"]);
    }
    expect(() => OffsetPositionIndex.fromBlob(blobOf([1n, 2n]), OFFSET, 3, "data-1.parquet")).toThrow("bitmap index on _REALTIME_OFFSET of data-1.parquet covers 2 rows, the file has 3");
  });
});

type DeletionOp = { kind: "write" | "big write"; keys: number[] } | { kind: "view" | "prepare" | "commit" };
type FrozenView = { frozen: FrozenDeletedOffsets; expected: Set<bigint> };

/**
 * Committed keys 0 … K-1 (key k at offset 2k; every 7th key absent, every 11th in two rows), a
 * key index over them, and a model of the offsets deleted since the last commit: `step` applies a
 * write (new offsets from 10K on), a view or prepare (a frozen state and its expected deletions)
 * or the commit of the oldest prepare.
 */
function deletionModel(K: number) {
  const column: bigint[] = [];
  for (let k = 0; k < K; k++) if (k % 7 !== 3) for (let r = k % 11 === 5 ? 2 : 1; r > 0; r--) column.push(BigInt(2 * k));
  const index = new DedupKeyIndex();
  const live = new Map<number, bigint>(); // model: key -> live offset
  for (const o of new Set(column)) live.set(Number(o) / 2, o);
  const keys = [...live.keys()];
  index.upsert(keyIdentities({ type: "int64", length: keys.length, values: BigInt64Array.from(keys, BigInt) }), BigInt64Array.from(keys, (k) => live.get(k)!));
  let deleted = new Set<bigint>(); // model: deleted since the last commit
  let next = 10n * BigInt(K);
  const views: FrozenView[] = [];
  const prepared: FrozenView[] = [];
  const current = (): FrozenView => ({ frozen: index.freezeDeleted(), expected: new Set(deleted) });
  const step = (o: DeletionOp): void => {
    if (o.kind === "write" || o.kind === "big write") {
      const offsets = BigInt64Array.from(o.keys, () => next++);
      o.keys.forEach((k, i) => {
        const old = live.get(k);
        if (old !== undefined) deleted.add(old);
        live.set(k, offsets[i]);
      });
      index.apply(keyIdentities({ type: "int64", length: o.keys.length, values: BigInt64Array.from(o.keys, BigInt) }), offsets);
    } else if (o.kind === "view") views.push(current());
    else if (o.kind === "prepare") prepared.push(current());
    else if (prepared.length > 0) {
      const p = prepared.shift()!;
      index.committed(p.frozen);
      deleted = new Set([...deleted].filter((x) => !p.expected.has(x)));
    }
  };
  return { column, views, current, step };
}

/** Counts whole-file reads of `.index` files. */
class IndexReadCountingFileIO extends LocalFileIO {
  indexReads = 0;
  indexRangeReads = 0;
  override async readFile(path: string): Promise<Uint8Array> {
    if (path.endsWith(".index")) this.indexReads++;
    return super.readFile(path);
  }
  override async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    if (path.endsWith(".index")) this.indexRangeReads++;
    return super.readRange(path, offset, length);
  }
}

async function offsetTable(options: Record<string, string>, io?: LocalFileIO): Promise<{ dir: string; table: Table }> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-offset-positions-"));
  dirs.push(dir);
  const c = await Catalog.open(dir, io ? { fileIO: io } : {});
  await c.createDatabase("db");
  const table = await c.createTable("db.t", {
    fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" }],
    options: { bucket: "1", "bucket-key": "id", "file-index.bitmap.columns": "_REALTIME_OFFSET", ...options },
  });
  return { dir, table };
}

/** The offset column of a data file, read from the Parquet file itself. */
async function offsetColumn(t: Table, file: DataFileMeta): Promise<bigint[]> {
  const source = await fileIOSource(t.fileIO, t.paths.dataFile(t.paths.bucketDir("", 0), file), Number(file.fileSize));
  const out: bigint[] = [];
  for await (const b of readParquetBatches(source, { fields: [t.schema.fields[1]], mapBy: "id", batchSize: 4096 })) out.push(...(b.getChildAt(0)!.toArray() as BigInt64Array));
  return out;
}

async function checkFiles(t: Table, pendingOffsets: bigint[]): Promise<number> {
  const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
  const pending = new OffsetSet64(pendingOffsets);
  const wanted = new Set(pendingOffsets);
  let checked = 0;
  try {
    for (const f of files) {
      const column = await offsetColumn(t, f);
      const index = await OffsetPositionIndex.ofFile(t.fileIO, t.paths.dataFile(t.paths.bucketDir("", 0), f), f, t.schema.fields[1]);
      const bounds = reliableOffsetBounds(f, t.schema.fields, "_REALTIME_OFFSET");
      expect(bounds).toEqual({ min: column.reduce((a, b) => (a < b ? a : b)), max: column.reduce((a, b) => (a > b ? a : b)) });
      const hit = index.positionsIn(pending, bounds);
      expect(Array.from(hit.toArray())).toEqual(positionsWhere(column, (o) => wanted.has(o)));
      hit.dispose();
      checked++;
    }
  } finally {
    pending.dispose();
  }
  return checked;
}

describe("offset positions of real data files", () => {
  it("embedded and external (.index) indexes of files paimon-rt writes", async () => {
    for (const threshold of ["100000", "16"]) {
      const { table: t } = await offsetTable({ "file-index.in-manifest-threshold": threshold });
      const w = await t.newWrite({ commitUser: "u" });
      await w.write(offsetsBatch(Array.from({ length: 300 }, (_, i) => BigInt(1000 + i * 2))), { bucket: 0 });
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      const [file] = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
      expect(threshold === "16" ? file.extraFiles.length : file.embeddedIndex?.length ?? 0).toBeGreaterThan(0);
      expect(await checkFiles(t, [999n, 1000n, 1002n, 1003n, 1598n, 1600n])).toBe(1);
    }
  });

  it("statistics that are not kept make the lookup untrimmed", async () => {
    const { table: t } = await offsetTable({ "metadata.stats-mode": "none" });
    const w = await t.newWrite({ commitUser: "u" });
    await w.write(offsetsBatch([5n, 9n]), { bucket: 0 });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    const [file] = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
    expect(reliableOffsetBounds(file, t.schema.fields, "_REALTIME_OFFSET")).toBeNull();
    const index = await OffsetPositionIndex.ofFile(t.fileIO, t.paths.dataFile(t.paths.bucketDir("", 0), file), file, t.schema.fields[1]);
    const pending = new OffsetSet64([9n]);
    expect(Array.from(index.positionsIn(pending, null).toArray())).toEqual([1]);
    pending.dispose();
  });

  it.skipIf(javaOracleUnavailable())("files Java writes, with embedded and external indexes", async () => {
    for (const threshold of ["100000", "16"]) {
      const { dir, table: t } = await offsetTable({ "file-index.in-manifest-threshold": threshold });
      const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: String(from + i), _REALTIME_OFFSET: String(10 * (from + i) + 3) }));
      await writeTable("java", dir, "db.t", { commits: [rows(0, 200), rows(200, 50)] });
      const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
      expect(files.every((f) => (threshold === "16" ? f.extraFiles.length > 0 : f.embeddedIndex !== null))).toBe(true);
      expect(await checkFiles(t, [3n, 13n, 1993n, 2003n, 2493n, 2494n, 99999n])).toBe(2);
    }
  });

  it("the decoded index cache: hits read nothing and give the same positions; least recently used indexes leave past the byte bound", async () => {
    const io = new IndexReadCountingFileIO();
    const { table: t } = await offsetTable({ "file-index.in-manifest-threshold": "16" }, io);
    for (let c = 0; c < 3; c++) {
      const w = await t.newWrite({ commitUser: "u" });
      await w.write(offsetsBatch(Array.from({ length: 300 }, (_, i) => BigInt(1000 * c + 2 * i))), { bucket: 0 });
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    }
    const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file).sort((a, b) => Number(a.minSequenceNumber - b.minSequenceNumber));
    const source: OffsetFileSource = { io, pathOf: (f) => t.paths.dataFile(t.paths.bucketDir("", 0), f), fieldsOf: async () => t.schema.fields };
    const offsetField = t.schema.fields[1];
    const pending = new OffsetSet64([0n, 2n, 598n, 1004n, 2000n, 2598n, 2599n]);
    const positions = async (cache: OffsetIndexCache | null) => {
      const before = io.indexReads;
      const byFile = await pendingOffsetPositions(source, files, offsetField, pending, cache);
      return { reads: io.indexReads - before, positions: files.map((f) => Array.from(byFile.get(f.fileName) ?? [])) };
    };
    try {
      const expected = [[0, 1, 299], [2], [0, 299]];
      expect(await positions(null)).toEqual({ reads: 3, positions: expected });
      const cache = new OffsetIndexCache(1 << 20);
      expect(await positions(cache)).toEqual({ reads: 3, positions: expected });
      expect(await positions(cache)).toEqual({ reads: 0, positions: expected });
      // 300 single-row offsets: 8 bytes a value and 4 an entry, no bitmaps
      expect([cache.size, cache.memoryBytes]).toEqual([3, 3 * 300 * 12]);

      const two = new OffsetIndexCache(2 * 300 * 12);
      expect(await positions(two)).toEqual({ reads: 3, positions: expected });
      expect([two.size, two.memoryBytes]).toEqual([2, 2 * 300 * 12]);
      // the first file's index was evicted (least recently used): read again, which evicts the second's
      const [first, second] = files;
      await two.get(io, source.pathOf(first), first, offsetField);
      await two.get(io, source.pathOf(second), second, offsetField);
      expect(io.indexReads).toBe(3 + 3 + 3 + 2);
      const tooSmall = new OffsetIndexCache(300 * 12 - 1);
      expect(await positions(tooSmall)).toEqual({ reads: 3, positions: expected });
      expect([tooSmall.size, tooSmall.memoryBytes]).toEqual([0, 0]);
    } finally {
      pending.dispose();
    }
  });

  it("filtered reads open an external index only for the filter's indexed columns; its header is read once", async () => {
    const io = new IndexReadCountingFileIO();
    const { table: t } = await offsetTable({ "file-index.in-manifest-threshold": "16", "file-index.read.enabled": "true" }, io);
    const w = await t.newWrite({ commitUser: "u" });
    await w.write(offsetsBatch(Array.from({ length: 300 }, (_, i) => BigInt(1000 + 2 * i))), { bucket: 0 });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    const read = async (filter: Predicate) => {
      const plan = await t.newScan({ filter }).plan();
      const rows = (await t.newRead({ filter, predicateFilter: true }).toArrow(plan.splits)).toArray().map((r) => [r.id, r._REALTIME_OFFSET]);
      return { rows, whole: io.indexReads, ranges: io.indexRangeReads };
    };
    // `id` has no index: the header (one probe of a small file) tells, then nothing more is read
    expect(await read(col("id").eq(7n))).toEqual({ rows: [[7n, 1014n]], whole: 0, ranges: 1 });
    expect(await read(col("id").eq(8n))).toEqual({ rows: [[8n, 1016n]], whole: 0, ranges: 1 });
    // the offset has a bitmap index: read and used (1001 is in no row: the file is skipped)
    expect(await read(col("_REALTIME_OFFSET").eq(1001n))).toEqual({ rows: [], whole: 1, ranges: 1 });
    expect(await read(col("_REALTIME_OFFSET").eq(1002n))).toEqual({ rows: [[1n, 1002n]], whole: 2, ranges: 1 });
  });

  it("a missing .index file is NOT_FOUND, not an empty result", async () => {
    const { table: t } = await offsetTable({ "file-index.in-manifest-threshold": "16" });
    const w = await t.newWrite({ commitUser: "u" });
    await w.write(offsetsBatch(Array.from({ length: 50 }, (_, i) => BigInt(i))), { bucket: 0 });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    const [file] = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
    const path = t.paths.dataFile(t.paths.bucketDir("", 0), file);
    await t.fileIO.delete(`${path}.index`);
    expect((await failure(() => OffsetPositionIndex.ofFile(t.fileIO, path, file, t.schema.fields[1]))).code).toBe("NOT_FOUND");
  });
});
