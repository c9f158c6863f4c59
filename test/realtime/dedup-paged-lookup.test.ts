// The committed-key lookup of the append-deduplicate mode with a lookup cache far smaller than a
// file's key table (src/realtime/dedup-lookup.ts, issue 11; seed 000: "The .offset sidecar lookup
// uses cache-page-size, lookup.cache-max-memory-size, and lookup.cache.high-priority-pool-ratio"):
// such files are kept and read again in cache-page-size pages. Sidecars written by other writers
// need not be sorted across (or within) pages: every committed key must still be found. Model
// checks against a Map: the lookup of synthetic sidecars (sorted, shuffled; INT, BIGINT and
// VARCHAR keys), and the rows kept by a real table written through a context with such a cache.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { encodeSidecarKey, OFFSET_SIDECAR_MAGIC, OFFSET_SIDECAR_VERSION } from "../../src/fileindex/key-offset-sidecar.js";
import { MemoryFileIO } from "../../src/fs/memory-file-io.js";
import { RealtimeContext } from "../../src/index.js";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import { keyIdentities, keyIdentityWidth } from "../../src/realtime/dedup-key-index.js";
import { CommittedKeys, DedupLookupCache } from "../../src/realtime/dedup-lookup.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import { parseDataType } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, readRows, tempDir } from "./helpers.js";
import { DEDUP_OPTIONS } from "./dedup-helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

type KeyKind = "INT" | "BIGINT" | "VARCHAR";
type Key = number | bigint | string;

/**
 * Key `k` of a kind: BIGINT keys far apart (even k, also negative) or around 2^32 (odd k: pages
 * whose identities cross a 32-bit word), INT keys negative and positive, strings.
 */
const keyOf = (kind: KeyKind, k: number): Key => (kind === "BIGINT" ? (k % 2 === 0 ? BigInt(k) * 0x100000001n - 7n : 2n ** 32n - 200n + BigInt(k)) : kind === "INT" ? k * 65537 - 40000 : `key-${k}`);

function identitiesOf(kind: KeyKind, keys: readonly Key[]): BigUint64Array {
  return keyIdentities(keyColumnFromValues(kind === "BIGINT" ? "int64" : kind === "INT" ? "int32" : "bytes", [...keys]));
}

/** Unsigned byte order, shorter first on a common prefix (the order of our sidecars). */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** A sidecar of `entries` in that order. */
function sidecarBytes(kind: KeyKind, entries: ReadonlyArray<[Key, number]>): Uint8Array {
  const type = parseDataType(`${kind} NOT NULL`);
  const keys = entries.map(([k]) => encodeSidecarKey(type, k));
  const out = new Uint8Array(20 + keys.reduce((n, k) => n + 4 + k.length + 8, 0));
  const view = new DataView(out.buffer);
  view.setBigInt64(0, OFFSET_SIDECAR_MAGIC, false);
  view.setInt32(8, OFFSET_SIDECAR_VERSION, false);
  view.setBigInt64(12, BigInt(entries.length), false);
  let at = 20;
  entries.forEach(([, offset], i) => {
    view.setInt32(at, keys[i].length, false);
    out.set(keys[i], at + 4);
    at += 4 + keys[i].length;
    view.setBigInt64(at, BigInt(offset), false);
    at += 8;
  });
  return out;
}

/** A permutation of 0 … n-1 from `seed` (xorshift Fisher-Yates). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let x = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The committed keys of synthetic files (each: its sidecar's entries, in sidecar order) in memory,
 * looked up through a cache of `options`.
 */
async function committedOver(kind: KeyKind, files: ReadonlyArray<ReadonlyArray<[Key, number]>>, options: { pageSize: number; maxMemory: number; highPriorityRatio: number }, root: string): Promise<{ committed: CommittedKeys; cache: DedupLookupCache }> {
  const io = new MemoryFileIO();
  const type = parseDataType(`${kind} NOT NULL`);
  const metas: DataFileMeta[] = [];
  for (let f = 0; f < files.length; f++) {
    const fileName = `data-${f}.parquet`;
    await io.writeFile(`${root}/${fileName}.offset`, sidecarBytes(kind, files[f]));
    metas.push({ fileName, extraFiles: [`${fileName}.offset`], rowCount: BigInt(files[f].length), schemaId: 0n, fileSize: 1n } as unknown as DataFileMeta);
  }
  const keyField = { id: 0, name: "k", type };
  const offsetField = { id: 1, name: "_REALTIME_OFFSET", type: parseDataType("BIGINT NOT NULL") };
  const source = { io, pathOf: (f: DataFileMeta) => `${root}/${f.fileName}`, extraPathOf: (_f: DataFileMeta, e: string) => `${root}/${e}`, fieldsOf: async () => [keyField, offsetField] };
  const cache = new DedupLookupCache(options);
  return { committed: new CommittedKeys(1, metas, source, keyField, offsetField, keyIdentityWidth(type), cache), cache };
}

/** The key column of `keys` (as the writer passes it to a lookup beside their identities). */
const keyColumnOf = (kind: KeyKind, keys: readonly Key[]) => keyColumnFromValues(kind === "BIGINT" ? "int64" : kind === "INT" ? "int32" : "bytes", [...keys]);

describe("committed-key lookup through a cache smaller than the key tables", () => {
  it("finds exactly the largest committed offset of every key, in sorted and unsorted sidecars (model check)", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<KeyKind>("INT", "BIGINT", "VARCHAR"),
        // files: distinct keys of 0 … 399 each, with an order: 0 sorted, 1 shuffled, 2 sorted descending
        // (odd keys only: BIGINT identities within 2^32 of each other)
        fc.array(fc.record({ keys: fc.uniqueArray(fc.integer({ min: 0, max: 399 }), { minLength: 40, maxLength: 300, size: "max" }), odd: fc.boolean(), order: fc.integer({ min: 0, max: 2 }), seed: fc.integer() }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 400 }), // cache-page-size bytes
        fc.integer({ min: 0, max: 1500 }), // lookup.cache-max-memory-size bytes: below every key table (40 keys: 2 kb)
        fc.constantFrom(0, 0.25, 0.5, 0.9),
        fc.array(fc.array(fc.integer({ min: 0, max: 449 }), { minLength: 1, maxLength: 120 }), { minLength: 1, maxLength: 4 }),
        async (kind, files, pageSize, maxMemory, highPriorityRatio, batches) => {
          const io = new MemoryFileIO();
          const root = `memory://paged-${run++}`;
          const type = parseDataType(`${kind} NOT NULL`);
          const model = new Map<number, number>();
          const metas: DataFileMeta[] = [];
          // BIGINT runs: offsets around 2^32 too
          let offset = kind === "BIGINT" ? 2 ** 32 - 500 : 0;
          for (let f = 0; f < files.length; f++) {
            const { order, seed } = files[f];
            const keys = files[f].odd ? [...new Set(files[f].keys.map((k) => k | 1))] : files[f].keys;
            let entries = keys.map((k): [Key, number] => [keyOf(kind, k), offset++]);
            for (let i = 0; i < keys.length; i++) model.set(keys[i], Math.max(model.get(keys[i]) ?? -1, entries[i][1]));
            const encoded = (e: [Key, number]) => encodeSidecarKey(type, e[0]);
            entries.sort((a, b) => compareBytes(encoded(a), encoded(b)));
            if (order === 1) entries = shuffled(entries, seed);
            if (order === 2) entries.reverse();
            const fileName = `data-${f}.parquet`;
            await io.writeFile(`${root}/${fileName}.offset`, sidecarBytes(kind, entries));
            metas.push({ fileName, extraFiles: [`${fileName}.offset`], rowCount: BigInt(keys.length), schemaId: 0n, fileSize: 1n } as unknown as DataFileMeta);
          }
          const keyField = { id: 0, name: "k", type };
          const offsetField = { id: 1, name: "_REALTIME_OFFSET", type: parseDataType("BIGINT NOT NULL") };
          const source = { io, pathOf: (f: DataFileMeta) => `${root}/${f.fileName}`, extraPathOf: (_f: DataFileMeta, e: string) => `${root}/${e}`, fieldsOf: async () => [keyField, offsetField] };
          const cache = new DedupLookupCache({ pageSize, maxMemory, highPriorityRatio });
          const committed = new CommittedKeys(1, metas, source, keyField, offsetField, keyIdentityWidth(type), cache);
          for (const batch of batches) {
            const found = await committed.lookup(identitiesOf(kind, batch.map((k) => keyOf(kind, k))));
            const expected = batch.map((k) => BigInt(model.get(k) ?? -1));
            expect(found === null ? batch.map(() => -1n) : [...found]).toEqual(expected);
            expect(cache.memoryBytes).toBeLessThanOrEqual(maxMemory);
          }
        },
      ),
      { numRuns: runs(150) },
    );
  });

  it("pages evicted between lookups are read again; unsorted pages are scanned", async () => {
    // 2000 BIGINT keys in one sidecar of 21-byte entries: 50 entries a 1050-byte page, 40 pages; a
    // 16 kb cache cannot hold the key table (64 kb) nor all pages (32 kb), it keeps the file's
    // filter and page bounds (4 kb pool) and about 15 pages
    const io = new MemoryFileIO();
    const root = "memory://paged-evict";
    const type = parseDataType("BIGINT NOT NULL");
    for (const [name, order] of [
      ["sorted", 0],
      ["shuffled", 1],
    ] as const) {
      const keys = Array.from({ length: 2000 }, (_, i) => BigInt(i * 3));
      // offsets 10 apart from 2^32 - 5000: some pages hold offsets on both sides of 2^32
      let entries = keys.map((k, i): [Key, number] => [k, 2 ** 32 - 5000 + 10 * i]);
      const bytesOf = (e: [Key, number]) => encodeSidecarKey(type, e[0]);
      entries.sort((a, b) => compareBytes(bytesOf(a), bytesOf(b)));
      if (order === 1) entries = shuffled(entries, 7);
      await io.writeFile(`${root}/${name}.parquet.offset`, sidecarBytes("BIGINT", entries));
      const meta = { fileName: `${name}.parquet`, extraFiles: [`${name}.parquet.offset`], rowCount: 2000n, schemaId: 0n, fileSize: 1n } as unknown as DataFileMeta;
      const keyField = { id: 0, name: "k", type };
      const offsetField = { id: 1, name: "_REALTIME_OFFSET", type: parseDataType("BIGINT NOT NULL") };
      const source = { io, pathOf: (f: DataFileMeta) => `${root}/${f.fileName}`, extraPathOf: (_f: DataFileMeta, e: string) => `${root}/${e}`, fieldsOf: async () => [keyField, offsetField] };
      const cache = new DedupLookupCache({ pageSize: 1050, maxMemory: 16384, highPriorityRatio: 0.25 });
      expect(cache.wholeFiles([2000], 1)).toEqual([false]);
      const committed = new CommittedKeys(1, [meta], source, keyField, offsetField, 1, cache);
      for (let round = 0; round < 3; round++) {
        const probe = Array.from({ length: 600 }, (_, i) => BigInt(((i * 7919 + round * 104729) % 6100) - 50));
        const found = await committed.lookup(identitiesOf("BIGINT", probe));
        expect([...found!]).toEqual(probe.map((k) => (k >= 0n && k % 3n === 0n && k < 6000n ? 2n ** 32n - 5000n + (k / 3n) * 10n : -1n)));
        expect(cache.memoryBytes).toBeLessThanOrEqual(16384);
      }
      expect(cache.loads).toBe(0); // never a whole key table
      expect(cache.pageLoads).toBeGreaterThan(0); // evicted pages were read again
    }
  });

  it("places string keys among a sorted sidecar's pages by their bytes: one page searched a key, evicted pages read again", async () => {
    // 2000 VARCHAR keys of 9 bytes (22-byte entries), 50 entries a 1100-byte page: 40 pages of
    // 1000 bytes in memory (fingerprint, offset distance); a 16 kb cache keeps about 12 of them.
    // Fingerprints follow no order: by their bounds every page could hold almost every key, so
    // each key was searched for in (and reread) nearly all 40 pages
    const name = (k: number) => `key-${String(k).padStart(5, "0")}`;
    const sorted = Array.from({ length: 2000 }, (_, k): [Key, number] => [name(k), 2 ** 32 - 5000 + 10 * k]);
    const expectedOf = (k: number) => (k >= 0 && k < 2000 ? 2n ** 32n - 5000n + 10n * BigInt(k) : -1n);
    for (const [order, entries] of [
      ["sorted", sorted],
      ["descending", [...sorted].reverse()],
      ["shuffled", shuffled(sorted, 11)],
    ] as const) {
      const { committed, cache } = await committedOver("VARCHAR", [entries], { pageSize: 1100, maxMemory: 16384, highPriorityRatio: 0.25 }, `memory://paged-strings-${order}`);
      for (let round = 0; round < 6; round++) {
        // five keys of five pages (page = key / 50 in the sorted sidecar)
        const probe = [0, 1, 2, 3, 4].map((p) => p * 400 + ((round * 37) % 50) + 50 * round);
        const searched = cache.pagesSearched;
        const reads = cache.pageLoads;
        const keys = probe.map(name);
        const found = await committed.lookup(identitiesOf("VARCHAR", keys), keyColumnOf("VARCHAR", keys));
        expect([...found!]).toEqual(probe.map(expectedOf));
        if (order !== "shuffled") {
          // pages hold disjoint key ranges (descending: no binary search over them, same pages)
          expect(cache.pagesSearched - searched).toBe(5);
          expect(cache.pageLoads - reads).toBeLessThanOrEqual(5);
        }
        expect(cache.memoryBytes).toBeLessThanOrEqual(16384);
      }
      // absent keys (between, before and after the file's) and the same keys without their bytes
      // (every page whose fingerprint bounds hold a key is searched): the same answers
      const absent = ["key-0", "key-00100a", "a", "zzz", "key-02000", name(1999)];
      const found = await committed.lookup(identitiesOf("VARCHAR", absent), keyColumnOf("VARCHAR", absent));
      expect([...found!]).toEqual([-1n, -1n, -1n, -1n, -1n, expectedOf(1999)]);
      const keys = [name(5), name(777), "nope", name(1500)];
      expect([...(await committed.lookup(identitiesOf("VARCHAR", keys)))!]).toEqual([expectedOf(5), expectedOf(777), -1n, expectedOf(1500)]);
      expect(cache.loads).toBe(0);
    }
  });

  it("keeps the files of a lookup whose key tables do not fit together in pages instead of reloading whole tables", async () => {
    // 4 files of 300 BIGINT keys: a key table takes 16 KiB (1024 slots x 16 bytes), 300 entries in
    // pages 2400 bytes. The 40 001-byte low-priority pool holds two tables, not four: two files are
    // kept whole beside the pages of the other two. Before, all four were whole and each lookup
    // of keys of every file evicted the table the next file needed (4 loads a lookup)
    const files = [0, 1, 2, 3].map((f) => Array.from({ length: 300 }, (_, i): [Key, number] => [BigInt(f * 1000 + i), f * 300 + i]));
    const { committed, cache } = await committedOver("BIGINT", files, { pageSize: 210, maxMemory: 53334, highPriorityRatio: 0.25 }, "memory://paged-set");
    expect(cache.wholeFiles([300], 1)).toEqual([true]);
    expect(cache.wholeFiles([300, 300, 300, 300], 1)).toEqual([true, true, false, false]);
    expect(cache.wholeFiles([300, 300], 1)).toEqual([true, true]);
    // a file too large for the pool is paged; a small one stays whole beside its pages (16 000
    // bytes), not two; when the pages alone (40 000 + 4800 bytes) exceed the pool, none is whole
    expect(cache.wholeFiles([300, 2000, 300], 1)).toEqual([true, false, false]);
    expect(cache.wholeFiles([300, 5000, 300], 1)).toEqual([false, false, false]);
    for (let round = 0; round < 5; round++) {
      const probe = [0, 1, 2, 3].flatMap((f) => [BigInt(f * 1000 + round * 50), BigInt(f * 1000 + 299 - round), BigInt(f * 1000 + 500)]);
      const keys = new BigInt64Array(probe);
      const found = await committed.lookup(identitiesOf("BIGINT", probe), { type: "int64", length: probe.length, values: keys });
      expect([...found!]).toEqual([0, 1, 2, 3].flatMap((f) => [BigInt(f * 300 + round * 50), BigInt(f * 300 + 299 - round), -1n]));
      expect(cache.memoryBytes).toBeLessThanOrEqual(53334);
    }
    expect(cache.loads).toBe(2); // the two whole tables, once
    expect(cache.pageLoads).toBe(0); // the pages of the other two stay
  });
});

/** A deduplicate table keyed by `id` of `kind` (BIGINT, STRING, DOUBLE: the last without sidecars), one bucket. */
async function keyedTable(kind: string, options: Record<string, string>): Promise<Table> {
  const catalog = await Catalog.open(tempDir("paimon-rt-dedup-paged-"));
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", {
    fields: [
      { name: "id", type: `${kind} NOT NULL` },
      { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
    ],
    options: { ...DEDUP_OPTIONS, bucket: "1", ...options },
  });
}

function keyedBatch(kind: string, rows: ReadonlyArray<[key: number, offset: number]>): arrow.RecordBatch {
  const n = rows.length;
  const ids =
    kind === "BIGINT"
      ? arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: BigInt64Array.from(rows.map(([k]) => BigInt(k) * 1000003n)) })
      : kind === "DOUBLE"
        ? arrow.makeData({ type: new arrow.Float64(), length: n, nullCount: 0, data: Float64Array.from(rows.map(([k]) => k / 4)) })
        : arrow.vectorFromArray(
            rows.map(([k]) => `user-${k}`),
            new arrow.Utf8(),
          ).data[0];
  return new arrow.RecordBatch({
    id: ids,
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: BigInt64Array.from(rows.map(([, o]) => BigInt(o))) }),
    v: arrow.vectorFromArray(
      rows.map(([, o]) => `v${o}`),
      new arrow.Utf8(),
    ).data[0],
  });
}

describe("committed-key lookup of files without sidecars", () => {
  it("orders the keys of files without sidecars by identity: a key is searched for in one page", async () => {
    // DOUBLE keys (no sidecar: the Parquet columns are read), 2000 committed rows in shuffled key
    // order; 16-byte entries (identity, offset) in 800-byte pages: 40 pages. In the file's row
    // order every page held keys of the whole range (a key was searched for in about every page)
    const table = await keyedTable("DOUBLE", { "cache-page-size": "800 b", "lookup.cache-max-memory-size": "16 kb" });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(keyedBatch("DOUBLE", shuffled(Array.from({ length: 2000 }, (_, k) => k), 5).map((k, i): [number, number] => [k, i])), { bucket: 0 });
    await w.refreshCommittedSnapshot((await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1))!);
    await w.close();
    await ctx.close();
    const fresh = await RealtimeContext.create();
    const writer = await table.newWrite({ commitUser: "u", realtime: fresh });
    const cache = fresh.dedupLookupCache(table as never);
    await writer.write(keyedBatch("DOUBLE", [0, 400, 800, 1200, 1600].map((k, i): [number, number] => [k, 5000 + i])), { bucket: 0 });
    expect(cache.loads).toBe(0);
    expect(cache.pagesSearched).toBe(5);
    await writer.write(keyedBatch("DOUBLE", [1, 401, 801, 1201, 1601].map((k, i): [number, number] => [k, 6000 + i])), { bucket: 0 });
    expect(cache.pagesSearched).toBe(10);
    const rows = await readRows(table, { ctx: fresh });
    expect(rows.length).toBe(2000);
    expect(rows.filter((r) => Number(r._REALTIME_OFFSET) >= 5000).map((r) => [r.id, Number(r._REALTIME_OFFSET)])).toEqual([0, 400, 800, 1200, 1600, 1, 401, 801, 1201, 1601].map((k, i) => [k / 4, i < 5 ? 5000 + i : 6000 + i - 5]));
    await writer.refreshCommittedSnapshot((await table.newCommit({ commitUser: "u" }).commitWithProgress(await writer.prepareCommitWithProgress(2), 2))!);
    expect((await readRows(table)).length).toBe(2000);
    await writer.close();
    await fresh.close();
  });
});

describe("append deduplicate writes with a lookup cache far below the committed key tables", () => {
  it("keep exactly one row per key, the last written (model check), before and after commits and context restarts", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("BIGINT", "STRING", "DOUBLE"),
        fc.integer({ min: 16, max: 300 }), // cache-page-size
        fc.integer({ min: 0, max: 3000 }), // lookup.cache-max-memory-size
        // steps: a batch of keys (then maybe a commit, maybe a new context)
        fc.array(fc.record({ keys: fc.array(fc.integer({ min: 0, max: 299 }), { minLength: 1, maxLength: 150 }), commit: fc.boolean(), restart: fc.boolean() }), { minLength: 2, maxLength: 6 }),
        async (kind, pageSize, maxMemory, steps) => {
          const table = await keyedTable(kind, { "cache-page-size": `${pageSize} b`, "lookup.cache-max-memory-size": `${maxMemory} b` });
          const model = new Map<number, number>();
          let ctx = await RealtimeContext.create();
          let w = await table.newWrite({ commitUser: "u", realtime: ctx });
          let offset = 0;
          let identifier = 0;
          const rowsOf = async (c?: RealtimeContext) => (await readRows(table, { ctx: c })).map((r) => [r.v as string, Number(r._REALTIME_OFFSET)]).sort((a, b) => (a[1] as number) - (b[1] as number));
          const expected = () => [...model.values()].sort((a, b) => a - b).map((o) => [`v${o}`, o]);
          // a first commit of the full key range: every later key has a committed row
          const first = Array.from({ length: 300 }, (_, k): [number, number] => [k, offset++]);
          await w.write(keyedBatch(kind, first), { bucket: 0 });
          for (const [k, o] of first) model.set(k, o);
          let dirty = true;
          const commit = async () => {
            if (!dirty) return;
            dirty = false;
            const id = ++identifier;
            await w.refreshCommittedSnapshot((await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(id), id))!);
          };
          await commit();
          for (const step of steps) {
            const rows = step.keys.map((k): [number, number] => [k, offset++]);
            await w.write(keyedBatch(kind, rows), { bucket: 0 });
            dirty = true;
            for (const [k, o] of rows) model.set(k, o);
            expect(await rowsOf(ctx)).toEqual(expected());
            if (step.commit) {
              await commit();
              expect(await rowsOf()).toEqual(expected());
            }
            if (step.restart) {
              await commit();
              await w.close();
              await ctx.close();
              ctx = await RealtimeContext.create();
              w = await table.newWrite({ commitUser: "u", realtime: ctx });
            }
          }
          await commit();
          expect(await rowsOf()).toEqual(expected());
          await w.close();
          await ctx.close();
        },
      ),
      { numRuns: runs(12) },
    );
  }, 240_000);
});
