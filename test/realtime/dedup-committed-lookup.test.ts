// The `.offset` sidecars of append-deduplicate data files and the committed-key lookup through a
// bounded cache (seed 000 "Append Deduplicate / Offset DV": "Each output file gets a `.offset`
// sidecar mapping key fingerprints to offsets"; "The .offset sidecar lookup uses cache-page-size,
// lookup.cache-max-memory-size, and lookup.cache.high-priority-pool-ratio"; issue 11): sidecars of
// prepared and compacted files, byte-compatible with the codec; lookups that evict and reload;
// files without sidecars; refresh and restart; bad option values.
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { commitRowDeletions } from "../../src/commit/append-deletions.js";
import { KeyOffsetSidecar, OFFSET_SIDECAR_SUFFIX } from "../../src/fileindex/key-offset-sidecar.js";
import { readParquetBatches } from "../../src/format/parquet-reader.js";
import { fileIOSource } from "../../src/format/source.js";
import { RealtimeContext } from "../../src/index.js";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import { keyIdentities } from "../../src/realtime/dedup-key-index.js";
import { CommittedKeys, DedupLookupCache } from "../../src/realtime/dedup-lookup.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, compactFully, expectCode, readRows, tempDir } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";

afterAll(cleanupDirs);

const B0 = { bucket: 0 };
type Row = [id: number, offset: number];
const rows = async (table: Table, ctx?: RealtimeContext): Promise<Row[]> =>
  (await readRows(table, { ctx })).map((r): Row => [r.id as number, Number(r._REALTIME_OFFSET)]).sort((a, b) => a[0] - b[0]);

async function setup(options: Record<string, string> = {}) {
  const table = await makeDedupTable(options);
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "u", realtime: ctx });
  let identifier = 0;
  const commit = async () => {
    const id = ++identifier;
    const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(id), id);
    await w.refreshCommittedSnapshot(snapshot!);
    return snapshot!;
  };
  return { table, ctx, w, commit };
}

/** Live data files of bucket 0, by first sequence number. */
async function liveFiles(table: Table): Promise<DataFileMeta[]> {
  const snapshot = await table.latestSnapshot();
  return (await table.manifestStore.liveEntries(snapshot!)).filter((e) => e.bucket === 0).map((e) => e.file).sort((a, b) => Number(a.minSequenceNumber - b.minSequenceNumber));
}

const bucketDir = (table: Table) => table.paths.bucketDir("", 0);

/** A file's (id, offset) rows from its Parquet columns, and from its sidecar (parsed with the codec), both sorted. */
async function fileAndSidecar(table: Table, file: DataFileMeta): Promise<{ rows: Row[]; sidecar: Row[] | null }> {
  const path = table.paths.dataFile(bucketDir(table), file);
  const out: Row[] = [];
  for await (const b of readParquetBatches(await fileIOSource(table.fileIO, path, Number(file.fileSize)), { fields: table.schema.fields, fileFields: table.schema.fields })) {
    const ids = b.getChild("id")!.toArray() as BigInt64Array;
    const offsets = b.getChild("_REALTIME_OFFSET")!.toArray() as BigInt64Array;
    for (let i = 0; i < b.numRows; i++) out.push([Number(ids[i]), Number(offsets[i])]);
  }
  out.sort((a, b) => a[0] - b[0]);
  const name = file.extraFiles.find((f) => f.endsWith(OFFSET_SIDECAR_SUFFIX));
  if (!name) return { rows: out, sidecar: null };
  const sidecar = KeyOffsetSidecar.parse(await table.fileIO.readFile(table.paths.extraFile(bucketDir(table), file, name)), table.schema.fields[0].type, name);
  const keyType = table.schema.fields[0].type;
  const parsed = out.map(([id]): Row => [id, Number(sidecar.offsetOf(BigInt(id)))]);
  expect(sidecar.size).toBe(out.length);
  expect(keyType.kind).toBe("BIGINT");
  return { rows: out, sidecar: parsed };
}

/** `db.t` in `catalog`: a plain append table with the layout of a deduplicate table (STRING key `k`, offset column): its files have no sidecars. */
async function plainDedupLayoutTable(catalog: Catalog) {
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", {
    fields: [
      { name: "k", type: "STRING NOT NULL" },
      { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
    ],
    options: { bucket: "1", "bucket-key": "k", "deletion-vectors.enabled": "true", "file-index.bitmap.columns": "_REALTIME_OFFSET" },
  });
}

describe("append deduplicate .offset sidecars", () => {
  it("every prepared and compacted file has a sidecar listed after its external index, holding exactly its rows' keys and offsets", async () => {
    // an index threshold of 0 bytes stores the offset bitmap index in an external .index file
    const { table, ctx, w, commit } = await setup({ "file-index.in-manifest-threshold": "0 b" });
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await commit();
    await w.write(dedupBatch([[2, 3], [5, 4], [5, 5]]), B0);
    await commit();
    let files = await liveFiles(table);
    expect(files.map((f) => f.extraFiles)).toEqual(files.map((f) => [`${f.fileName}.index`, `${f.fileName}.offset`]));
    expect(await Promise.all(files.map((f) => fileAndSidecar(table, f)))).toEqual([
      { rows: [[1, 0], [2, 1], [3, 2]], sidecar: [[1, 0], [2, 1], [3, 2]] },
      { rows: [[2, 3], [5, 5]], sidecar: [[2, 3], [5, 5]] }, // the prepare left out superseded offset 4
    ]);
    await compactFully(table); // applies the DV of offset 1
    files = await liveFiles(table);
    expect(files.map((f) => f.extraFiles)).toEqual([[`${files[0].fileName}.index`, `${files[0].fileName}.offset`]]);
    expect(await fileAndSidecar(table, files[0])).toEqual({ rows: [[1, 0], [2, 3], [3, 2], [5, 5]], sidecar: [[1, 0], [2, 3], [3, 2], [5, 5]] });
    await w.close();
    await ctx.close();
  });

  it("snapshot expiry deletes the sidecars of expired files; orphan-file removal keeps live ones and removes stray ones", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1]]), B0);
    await commit();
    const [before] = await liveFiles(table);
    const oldSidecar = table.paths.extraFile(bucketDir(table), before, `${before.fileName}.offset`);
    await w.write(dedupBatch([[2, 2]]), B0);
    await commit(); // a deletion vector: the compaction rewrites both files
    await compactFully(table);
    const [after] = await liveFiles(table);
    const liveSidecar = table.paths.extraFile(bucketDir(table), after, `${after.fileName}.offset`);
    expect([await table.fileIO.exists(oldSidecar), await table.fileIO.exists(liveSidecar)]).toEqual([true, true]);
    await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 });
    expect([await table.fileIO.exists(oldSidecar), await table.fileIO.exists(liveSidecar)]).toEqual([false, true]);
    const stray = `${table.paths.bucketDir("", 0)}/data-stray.parquet.offset`;
    await table.fileIO.writeFile(stray, new Uint8Array(4));
    const removed = await table.removeOrphanFiles({ olderThanMs: 0 });
    expect(removed.deleted.map((p) => p.slice(p.lastIndexOf("/") + 1))).toEqual(["data-stray.parquet.offset"]);
    expect(await table.fileIO.exists(liveSidecar)).toBe(true);
    expect(await rows(table)).toEqual([[1, 0], [2, 2]]);
    await w.close();
    await ctx.close();
  });
});

describe("append deduplicate committed-key lookup", () => {
  it("deduplicates exactly over many committed files whose key tables do not fit together: the files are kept in pages, nothing is read twice", async () => {
    // 5 committed files of 40 keys; a key table takes 2 KiB (128 slots x 16 bytes) of the 3000-byte
    // low-priority pool: one fits, five do not
    const first = await setup({ "lookup.cache-max-memory-size": "4000 b", "lookup.cache.high-priority-pool-ratio": "0.25", "cache-page-size": "100 b" });
    const table = first.table;
    for (let f = 0; f < 5; f++) {
      await first.w.write(dedupBatch(Array.from({ length: 40 }, (_, i): Row => [f * 40 + i, f * 40 + i])), B0);
      await first.commit();
    }
    await first.w.close();
    await first.ctx.close();
    expect((await liveFiles(table)).length).toBe(5);
    // a new context: an empty cache
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    let identifier = 100;
    const commit = async () => {
      const id = ++identifier;
      const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(id), id);
      await w.refreshCommittedSnapshot(snapshot!);
    };
    const cache = ctx.dedupLookupCache(table as never);
    const loadsBefore = cache.loads;
    // supersede keys of every file, twice over: each file's table is loaded once per write
    await w.write(dedupBatch([[5, 200], [45, 201], [85, 202], [125, 203], [165, 204], [999, 205]]), B0);
    // the five tables (10 KiB) do not fit together, nor one beside the others' pages (2048 + 4 x 320
    // bytes): all five files are kept in pages (320 bytes each), never a whole table; each key
    // written is searched for in one page of its file
    expect(cache.loads - loadsBefore).toBe(0);
    expect(cache.pagesSearched).toBe(5);
    expect(cache.memoryBytes).toBeLessThanOrEqual(4000);
    await w.write(dedupBatch([[6, 206], [46, 207], [86, 208], [126, 209], [166, 210], [5, 211]]), B0);
    // before, each write reloaded all five tables (one fits at a time); now nothing is read again
    expect(cache.loads - loadsBefore).toBe(0);
    expect(cache.pageLoads).toBe(0);
    expect(cache.pagesSearched).toBe(10);
    const expected: Row[] = Array.from({ length: 200 }, (_, i): Row => [i, i]);
    for (const [id, offset] of [[5, 211], [45, 201], [85, 202], [125, 203], [165, 204], [6, 206], [46, 207], [86, 208], [126, 209], [166, 210]]) expected[id] = [id, offset];
    expected.push([999, 205]);
    expect(await rows(table, ctx)).toEqual(expected);
    await commit();
    expect(await rows(table)).toEqual(expected);
    expect(ctx.allEntries()[0].dedup!.loadedKeys!.keyCount).toBe(11);
    // the next write moves the lookup to the refreshed snapshot's files and the memory key index
    // forgets the 11 committed keys: it holds only the 2 keys written since
    await w.write(dedupBatch([[5, 212], [999, 213]]), B0);
    expect(ctx.allEntries()[0].dedup!.loadedKeys!.keyCount).toBe(2);
    expected[5] = [5, 212];
    expected[200] = [999, 213];
    expect(await rows(table, ctx)).toEqual(expected);
    // metrics count the memory key index only, never the lookup cache
    expect(ctx.getMetrics().realtimeBuildingMemoryBytes).toBe(ctx.allEntries()[0].store.getDataUsage().buildingMemoryBytes + ctx.allEntries()[0].dedup!.memoryBytes);
    await commit();
    expect(await rows(table)).toEqual(expected);
    await w.close();
    await ctx.close();
  });

  it("a retract after a refresh deletes the committed row; the key's next row does not fall back to it", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1]]), B0);
    await commit();
    const retract = dedupBatch([[1, 2]]);
    await w.write(retract, { ...B0, rowKinds: new Uint8Array([3]) }); // DELETE
    expect(await rows(table, ctx)).toEqual([[2, 1]]);
    await w.write(dedupBatch([[1, 3]]), B0);
    expect([...ctx.allEntries()[0].dedup!.freezeDeleted()!.offsets]).toEqual([0n]);
    await commit();
    expect(await rows(table)).toEqual([[1, 3], [2, 1]]);
    await w.close();
    await ctx.close();
  });

  it("finds keys in files without sidecars (a plain append table of the same layout), also after the key column was renamed", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-dedup-lookup-"));
    let t = await plainDedupLayoutTable(catalog);
    const write = async (keys: string[], offsets: number[]) => {
      const w = await t.newWrite({ commitUser: "writer" });
      await w.write(
        new arrow.RecordBatch({
          k: arrow.vectorFromArray(keys, new arrow.Utf8()).data[0],
          _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: offsets.length, nullCount: 0, data: BigInt64Array.from(offsets.map(BigInt)) }),
        }),
      );
      await t.newCommit({ commitUser: "writer" }).commit(await w.prepareCommit());
    };
    await write(["a", "b", "c"], [0, 1, 2]);
    await write(["b", "d"], [3, 4]);
    const first = (await liveFiles(t)).find((f) => f.rowCount === 3n)!;
    await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: first.fileName, positions: [0] }]); // row "a"
    t = await catalog.alterTable("db.t", [{ kind: "renameColumn", name: "k", newName: "key" }]);
    const files = await liveFiles(t);
    expect(files.map((f) => f.extraFiles)).toEqual([[], []]);
    const dir0 = t.paths.bucketDir("", 0);
    const source = { io: t.fileIO, pathOf: (f: DataFileMeta) => t.paths.dataFile(dir0, f), extraPathOf: (f: DataFileMeta, e: string) => t.paths.extraFile(dir0, f, e), fieldsOf: async () => t.schema.fields };
    const cache = new DedupLookupCache({ pageSize: 65536, maxMemory: 0, highPriorityRatio: 0.25 });
    const keys = new CommittedKeys(null, files, source, t.schema.fields[0], t.schema.fields[1], 2, cache);
    const ids = keyIdentities(keyColumnFromValues("bytes", ["a", "b", "c", "d", "e"]));
    // deletion vectors are ignored ("a" -> 0): re-deleting an offset is harmless; "b" -> the larger offset
    expect([...(await keys.lookup(ids))!]).toEqual([0n, 3n, 2n, 4n, -1n]);
    expect(await keys.lookup(keyIdentities(keyColumnFromValues("bytes", ["e", "f"])))).toBe(null);
    expect(cache.memoryBytes).toBe(0); // a zero-byte cache keeps nothing
    expect(await new CommittedKeys(null, [], source, t.schema.fields[0], t.schema.fields[1], 2, cache).lookup(ids)).toBe(null);
  });

  it("lookups of one CommittedKeys share a scratch of candidate rows: lookups of more, then fewer keys, and overlapping ones, each get their own answer", async () => {
    const t = await plainDedupLayoutTable(await Catalog.open(tempDir("paimon-rt-dedup-lookup-")));
    const names = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    const w = await t.newWrite({ commitUser: "writer" });
    await w.write(
      new arrow.RecordBatch({
        k: arrow.vectorFromArray(names, new arrow.Utf8()).data[0],
        _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: names.length, nullCount: 0, data: BigInt64Array.from(names, (_, i) => BigInt(100 + i)) }),
      }),
    );
    await t.newCommit({ commitUser: "writer" }).commit(await w.prepareCommit());
    const files = await liveFiles(t);
    const dir0 = t.paths.bucketDir("", 0);
    const source = { io: t.fileIO, pathOf: (f: DataFileMeta) => t.paths.dataFile(dir0, f), extraPathOf: (f: DataFileMeta, e: string) => t.paths.extraFile(dir0, f, e), fieldsOf: async () => t.schema.fields };
    // the file kept whole: a lookup awaits its filter, then its key table (overlapping lookups interleave there)
    const cache = new DedupLookupCache({ pageSize: 65536, maxMemory: 64 * 2 ** 20, highPriorityRatio: 0.25 });
    const keys = new CommittedKeys(null, files, source, t.schema.fields[0], t.schema.fields[1], 2, cache);
    const ids = (...k: string[]) => keyIdentities(keyColumnFromValues("bytes", k));
    const answer = async (...k: string[]) => {
      const found = await keys.lookup(ids(...k));
      return found === null ? null : [...found];
    };
    // 30 keys (all committed but the last two), then 3 of which only the first is committed: none of the first lookup's rows remain
    const many = names.slice(0, 28).concat(["x", "y"]);
    expect(await answer(...many)).toEqual([...Array.from({ length: 28 }, (_, i) => BigInt(100 + i)), -1n, -1n]);
    expect(await answer("key-39", "z", "w")).toEqual([139n, -1n, -1n]);
    expect(await answer("z")).toBe(null);
    // overlapping lookups of different sizes
    // (each starts with keys that are not committed: its candidate rows differ from the others')
    const together = await Promise.all([answer("q", "p", "key-5"), answer(...names.slice(10, 30)), answer("r", "key-1"), answer("s")]);
    expect(together).toEqual([[-1n, -1n, 105n], Array.from({ length: 20 }, (_, i) => BigInt(110 + i)), [-1n, 101n], null]);
  });

  it("after a restart, committed keys are found through the sidecars; a second context reads files a compaction rewrote", async () => {
    const { table, ctx, w, commit } = await setup();
    await w.write(dedupBatch([[1, 0], [2, 1], [3, 2]]), B0);
    await commit();
    await w.write(dedupBatch([[2, 3]]), B0);
    await commit();
    await w.close();
    await ctx.close();
    await compactFully(table);
    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await w2.write(dedupBatch([[3, 4], [2, 5]]), B0);
    expect(await rows(table, ctx2)).toEqual([[1, 0], [2, 5], [3, 4]]);
    expect([...ctx2.allEntries()[0].dedup!.freezeDeleted()!.offsets]).toEqual([2n, 3n]);
    const p = await w2.prepareCommitWithProgress(9);
    await w2.refreshCommittedSnapshot((await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 9))!);
    expect(await rows(table)).toEqual([[1, 0], [2, 5], [3, 4]]);
    await w2.close();
    await ctx2.close();
  });

  it("two prepares committed together: a deletion of the second resolves into the first one's file", async () => {
    const table = await makeDedupTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(dedupBatch([[1, 0]]), B0);
    const p1 = await w.prepareCommitWithProgress(1);
    await w.write(dedupBatch([[1, 1]]), B0);
    const p2 = await w.prepareCommitWithProgress(2);
    await w.refreshCommittedSnapshot((await table.newCommit({ commitUser: "u" }).commitWithProgress([...p1, ...p2], 2))!);
    expect(await rows(table, ctx)).toEqual([[1, 1]]);
    expect(await rows(table)).toEqual([[1, 1]]);
    await w.close();
    await ctx.close();
  });

  it("refuses bad lookup cache options with INVALID_ARGUMENT when the writer is created", async () => {
    for (const [key, value] of [
      ["lookup.cache.high-priority-pool-ratio", "1"],
      ["lookup.cache.high-priority-pool-ratio", "-0.1"],
      ["lookup.cache.high-priority-pool-ratio", "half"],
      ["cache-page-size", "0 b"],
      ["cache-page-size", "lots"],
      ["lookup.cache-max-memory-size", "12 parsecs"],
    ]) {
      const table = await makeDedupTable({ [key]: value });
      const ctx = await RealtimeContext.create();
      const err = await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "INVALID_ARGUMENT");
      expect(err.message).toContain(key);
      await ctx.close();
    }
  });
});
