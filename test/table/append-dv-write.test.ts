// Deletion vectors written by paimon-rt on append tables: deletions by file position merged into
// the latest committed vectors on every commit attempt, compaction that applies the vectors and
// drops those of the files it rewrites, the conflict rules that keep a concurrent compaction from
// resurrecting or losing rows, and Java Paimon / pypaimon reading (and Java compacting) the result.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { commitRowDeletions, deletionVectorResolver } from "../../src/commit/append-deletions.js";
import { FileStoreCommit } from "../../src/commit/file-store-commit.js";
import { readParquetBatches } from "../../src/format/parquet-reader.js";
import { fileIOSource } from "../../src/format/source.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import { OffsetSet64 } from "../../src/kernel/bitmap.js";
import { pendingOffsetPositions } from "../../src/read/offset-positions.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTable, writeTable } from "../interop/oracle/harness.js";
import { failure } from "./helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const noJava = javaOracleUnavailable();
const noPython = pypaimonUnavailable();

function batch(ids: number[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    v: arrow.vectorFromArray(ids.map((i) => `v${i}`), new arrow.Utf8()).data[0],
  });
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** A table with `options`; each `commits` item is written as one commit into the given bucket. */
async function table(
  options: Record<string, string | number | boolean>,
  commits: Array<{ ids: number[]; bucket?: number }>,
  fields = [{ name: "id", type: "BIGINT" }, { name: "v", type: "STRING" }],
): Promise<{ dir: string; table: Table }> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-append-dv-write-"));
  dirs.push(dir);
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db");
  const t = await catalog.createTable("db.t", { fields, options: { "deletion-vectors.enabled": true, ...options } });
  for (const c of commits) {
    const w = await t.newWrite({ commitUser: "writer" });
    await w.write(batch(c.ids), c.bucket === undefined ? {} : { bucket: c.bucket });
    await t.newCommit({ commitUser: "writer" }).commit(await w.prepareCommit());
  }
  return { dir, table: t };
}

/** Live files of a bucket in sequence order. */
async function filesOf(t: Table, bucket: number): Promise<DataFileMeta[]> {
  const entries = await t.manifestStore.liveEntries((await t.latestSnapshot())!);
  return entries.filter((e) => e.bucket === bucket).map((e) => e.file).sort((a, b) => Number(a.minSequenceNumber - b.minSequenceNumber));
}

async function ids(t: Table): Promise<number[]> {
  const col = (await t.newRead().toArrow((await t.newScan().plan()).splits)).getChild("id")!;
  return Array.from(col.toArray() as BigInt64Array, Number).sort((a, b) => a - b);
}

/** DV index entries of the latest snapshot: bucket → [index file name, {data file → cardinality}]. */
async function vectors(t: Table): Promise<Array<{ bucket: number; file: string; cardinality: Record<string, number> }>> {
  const entries = await t.manifestStore.indexEntries(await t.latestSnapshot());
  return entries
    .map((e) => ({ bucket: e.bucket, file: e.indexFile.fileName, cardinality: Object.fromEntries((e.indexFile.dvRanges ?? []).map((r) => [r.dataFileName, Number(r.cardinality)])) }))
    .sort((a, b) => a.bucket - b.bucket || (a.file < b.file ? -1 : 1));
}

async function oraclesSee(dir: string, expected: number[], oracles: ReadonlyArray<"pypaimon" | "java"> = ["pypaimon", "java"]): Promise<void> {
  for (const [oracle, unavailable] of [["pypaimon", noPython], ["java", noJava]] as const) {
    if (!oracles.includes(oracle)) continue;
    if (unavailable) continue;
    const rows = await readTable(oracle, dir, "db.t");
    expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b), oracle).toEqual(expected);
  }
}

/** Names of the files in the table's index directory. */
function indexDirectory(dir: string): string[] {
  return readdirSync(join(dir, "db.db", "t", "index")).sort();
}

const without = (all: number[], gone: number[]) => all.filter((i) => !gone.includes(i));

describe("append deletion vectors written by paimon-rt", () => {
  it("delete rows by position, merged into one index file per bucket; Java and pypaimon read them; compaction applies and drops them", async () => {
    const { dir, table: t } = await table({ bucket: 2, "bucket-key": "id" }, [{ ids: range(0, 10), bucket: 0 }, { ids: range(10, 10), bucket: 0 }, { ids: range(20, 10), bucket: 1 }]);
    const [f0, f1] = await filesOf(t, 0);
    const [f2] = await filesOf(t, 1);
    const first = await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: f0.fileName, positions: [0, 2] }]);
    expect((await t.snapshot(first)).commitKind).toBe("OVERWRITE"); // as Java commits DELETE
    const second = await commitRowDeletions(t, "deleter", [
      { bucket: 0, fileName: f0.fileName, positions: [2, 3] },
      { bucket: 0, fileName: f1.fileName, positions: [1] },
    ]);
    const third = await commitRowDeletions(t, "deleter", [{ bucket: 1, fileName: f2.fileName, positions: [5] }], { commitKind: "APPEND" });
    expect([second, third]).toEqual([first + 1, first + 2]);
    expect((await t.snapshot(third)).commitKind).toBe("APPEND");
    const dvs = await vectors(t);
    expect(dvs.map((d) => [d.bucket, d.cardinality])).toEqual([
      [0, { [f0.fileName]: 3, [f1.fileName]: 1 }],
      [1, { [f2.fileName]: 1 }],
    ]);
    expect(indexDirectory(dir).length).toBe(3); // one per deletion commit: replaced index files stay until snapshot expiry
    const expected = without(range(0, 30), [0, 2, 3, 11, 25]);
    expect(await ids(t)).toEqual(expected);
    await oraclesSee(dir, expected);

    // Full compaction of bucket 0 rewrites its files without the deleted rows and drops their vectors.
    const w = await t.newWrite({ commitUser: "compactor" });
    await w.compact({ bucket: 0 });
    const compacted = await t.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
    expect((await t.snapshot(compacted!)).commitKind).toBe("COMPACT");
    const after = await filesOf(t, 0);
    expect(after.map((f) => [Number(f.rowCount), f.fileSource])).toEqual([[16, 1]]);
    expect((await vectors(t)).map((d) => [d.bucket, d.cardinality])).toEqual([[1, { [f2.fileName]: 1 }]]);
    expect(await ids(t)).toEqual(expected);
    await oraclesSee(dir, expected);
    // Deleting again on the compacted file: position 0 now holds id 1.
    await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: after[0].fileName, positions: [0] }]);
    expect(await ids(t)).toEqual(without(expected, [1]));
  });

  it.skipIf(noJava)("Java compacts the deletion vectors paimon-rt wrote, and paimon-rt goes on deleting in Java's files", async () => {
    const { dir, table: t } = await table({ bucket: 1, "bucket-key": "id" }, [{ ids: range(0, 10) }, { ids: range(10, 10) }]);
    const [f0, f1] = await filesOf(t, 0);
    await commitRowDeletions(t, "deleter", [
      { bucket: 0, fileName: f0.fileName, positions: [9] },
      { bucket: 0, fileName: f1.fileName, positions: [0, 1] },
    ]);
    await writeTable("java", dir, "db.t", { commits: [{ rows: [{ id: "20", v: "v20" }], compact: true }] });
    const javaFiles = await filesOf(t, 0);
    expect(javaFiles.reduce((n, f) => n + Number(f.rowCount), 0)).toBe(18); // 20 + 1 - 3 deleted rows, rewritten by Java
    expect((await vectors(t)).flatMap((d) => Object.keys(d.cardinality))).toEqual([]); // Java dropped the vectors of the files it compacted (and keeps an empty index file)
    const expected = without(range(0, 21), [9, 10, 11]);
    expect(await ids(t)).toEqual(expected);
    const last = javaFiles[javaFiles.length - 1];
    await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: last.fileName, positions: [Number(last.rowCount) - 1] }]);
    const rows = await readTable("java", dir, "db.t");
    expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(await ids(t));
    expect((await ids(t)).length).toBe(17);
  });

  it("unaware-bucket tables keep untouched index files, as Java's AppendDeleteFileMaintainer", async () => {
    const { dir, table: t } = await table({ bucket: -1 }, [{ ids: range(0, 5) }, { ids: range(5, 5) }, { ids: range(10, 5) }]);
    const [f0, f1, f2] = await filesOf(t, 0);
    await commitRowDeletions(t, "deleter", [{ fileName: f0.fileName, bucket: 0, positions: [1] }]);
    const [a] = await vectors(t);
    await commitRowDeletions(t, "deleter", [{ fileName: f1.fileName, bucket: 0, positions: [2] }]);
    const two = await vectors(t);
    expect(two.length).toBe(2);
    expect(two.find((d) => d.file === a.file)!.cardinality).toEqual({ [f0.fileName]: 1 }); // untouched
    // A second deletion in f0 replaces only f0's index file.
    await commitRowDeletions(t, "deleter", [{ fileName: f0.fileName, bucket: 0, positions: [3] }]);
    const three = await vectors(t);
    expect(three.map((d) => d.cardinality).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual(
      [{ [f0.fileName]: 2 }, { [f1.fileName]: 1 }].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    );
    expect(three.some((d) => d.file === a.file)).toBe(false);
    const expected = without(range(0, 15), [1, 3, 7]);
    expect(await ids(t)).toEqual(expected);
    await oraclesSee(dir, expected);
    const w = await t.newWrite({ commitUser: "compactor" });
    await w.compact();
    await t.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
    expect(await vectors(t)).toEqual([]);
    expect((await filesOf(t, 0)).map((f) => Number(f.rowCount))).toEqual([12]);
    expect(await ids(t)).toEqual(expected);
    await oraclesSee(dir, expected);
    expect(f2.rowCount).toBe(5n);
  });

  it("resolves deletions again when a compaction took the snapshot first, so no row is resurrected or lost", async () => {
    const { table: t } = await table({ bucket: 1, "bucket-key": "id" }, [{ ids: range(0, 10) }, { ids: range(10, 10) }]);
    const [f0] = await filesOf(t, 0);
    await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: f0.fileName, positions: [4] }]);
    // Delete ids 3 and 15 wherever they are, finding their positions in the attempt's files (as a
    // real-time deduplicate commit finds offsets); the first attempt lets a compaction commit first.
    const calls: string[][] = [];
    const commit = new FileStoreCommit(t.fileIO, t.location, t.schema, "dedup");
    const resolver = deletionVectorResolver({ io: t.fileIO, paths: t.paths, manifests: t.manifestStore, bitmap64: false, fixedBucket: true }, [
      {
        partition: (await t.newScan().plan()).splits[0].partitionRow,
        bucket: 0,
        resolve: async (files) => {
          calls.push(files.map((f) => f.fileName));
          if (calls.length === 1) {
            const w = await t.newWrite({ commitUser: "compactor" });
            await w.compact();
            await t.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
          }
          return positionsOf(t, files, [3n, 15n]);
        },
      },
    ]);
    const id = await commit.commit([], 7n, { resolveIndexChanges: resolver, resolvedCommitKind: "APPEND" });
    expect(calls.length).toBe(2);
    expect(calls[1]).toEqual((await filesOf(t, 0)).map((f) => f.fileName)); // the compacted file
    expect(calls[1]).not.toContain(f0.fileName);
    expect((await t.snapshot(id!)).commitKind).toBe("APPEND");
    expect(await ids(t)).toEqual(without(range(0, 20), [3, 4, 15]));
  });

  it("a positional deletion of a file a concurrent compaction removed fails with COMMIT_CONFLICT and leaves nothing behind", async () => {
    const { dir, table: t } = await table({ bucket: 1, "bucket-key": "id" }, [{ ids: range(0, 10) }, { ids: range(10, 10) }]);
    const [f0] = await filesOf(t, 0);
    await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: f0.fileName, positions: [4] }]);
    let first = true;
    const commit = new FileStoreCommit(t.fileIO, t.location, t.schema, "deleter");
    const resolver = deletionVectorResolver({ io: t.fileIO, paths: t.paths, manifests: t.manifestStore, bitmap64: false, fixedBucket: true }, [
      {
        partition: (await t.newScan().plan()).splits[0].partitionRow,
        bucket: 0,
        resolve: async () => {
          if (first) {
            first = false;
            const w = await t.newWrite({ commitUser: "compactor" });
            await w.compact();
            await t.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
          }
          return new Map([[f0.fileName, [5]]]);
        },
      },
    ]);
    const before = (await t.latestSnapshot())!.id;
    const onDisk = indexDirectory(dir);
    const e = await failure(() => commit.commit([], 1n, { resolveIndexChanges: resolver }));
    expect(e.code).toBe("COMMIT_CONFLICT");
    expect(e.message).toContain(`cannot delete rows of data file ${f0.fileName} of bucket 0: it is not live in snapshot ${before + 1}`);
    expect((await t.latestSnapshot())!.id).toBe(before + 1); // only the compaction
    expect(indexDirectory(dir)).toEqual(onDisk); // the failed attempt removed its index file (the compaction left no vectors to write)
    expect(await ids(t)).toEqual(without(range(0, 20), [4]));
    const [compacted] = await filesOf(t, 0);
    const outside = await failure(() => commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: compacted.fileName, positions: [19] }]));
    expect([outside.code, outside.message]).toEqual(["INVALID_ARGUMENT", `row position 19 is outside data file ${compacted.fileName} of 19 rows`]);
  });

  it("a compaction that lost the race with a deletion in its files fails with COMMIT_CONFLICT", async () => {
    for (const existingVector of [false, true]) {
      const { table: t } = await table({ bucket: 1, "bucket-key": "id" }, [{ ids: range(0, 10) }, { ids: range(10, 10) }]);
      const [f0, f1] = await filesOf(t, 0);
      if (existingVector) await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: f1.fileName, positions: [0] }]);
      const w = await t.newWrite({ commitUser: "compactor" });
      await w.compact();
      const messages = await w.prepareCommit();
      await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: f0.fileName, positions: [7] }]);
      const e = await failure(() => t.newCommit({ commitUser: "compactor" }).commit(messages));
      expect(e.code).toBe("COMMIT_CONFLICT");
      expect(e.message).toContain(existingVector ? "was already replaced by snapshot" : `file ${f0.fileName} of bucket 0 has a deletion vector in index file`);
      expect(await ids(t)).toEqual(without(range(0, 20), existingVector ? [7, 10] : [7]));
    }
  });

  it("deletes rows of files the same commit adds, in one APPEND snapshot (the real-time deduplicate commit)", async () => {
    const { table: t } = await table({ bucket: 1, "bucket-key": "id" }, [{ ids: range(0, 5) }]);
    const [old] = await filesOf(t, 0);
    const w = await t.newWrite({ commitUser: "dedup" });
    await w.write(batch(range(5, 5)));
    const messages = await w.prepareCommit();
    const added = messages[0].data.dataIncrement.newFiles;
    const resolver = deletionVectorResolver({ io: t.fileIO, paths: t.paths, manifests: t.manifestStore, bitmap64: false, fixedBucket: true }, [
      { partition: messages[0].data.partition, bucket: 0, newFiles: added, resolve: (files) => positionsOf(t, files, [1n, 7n]) },
    ]);
    const id = await new FileStoreCommit(t.fileIO, t.location, t.schema, "dedup").commit(
      messages.map((m) => m.data),
      3n,
      { resolveIndexChanges: resolver, resolvedCommitKind: "APPEND" },
    );
    expect((await t.snapshot(id!)).commitKind).toBe("APPEND");
    expect(id).toBe(2); // one snapshot: the new file and the vectors together
    expect((await vectors(t)).map((d) => d.cardinality)).toEqual([{ [old.fileName]: 1, [added[0].fileName]: 1 }]);
    expect(await ids(t)).toEqual([0, 2, 3, 4, 5, 6, 8, 9]);
  });

  it("64-bit deletion vectors (deletion-vectors.bitmap64): written, compacted, read by Java", async () => {
    const { dir, table: t } = await table({ bucket: 1, "bucket-key": "id", "deletion-vectors.bitmap64": true }, [{ ids: range(0, 6) }, { ids: range(6, 6) }]);
    const [f0, f1] = await filesOf(t, 0);
    await commitRowDeletions(t, "deleter", [
      { bucket: 0, fileName: f0.fileName, positions: [0, 5] },
      { bucket: 0, fileName: f1.fileName, positions: [3] },
    ]);
    const entry = (await t.manifestStore.indexEntries(await t.latestSnapshot()))[0];
    const bytes = await t.fileIO.readFile(t.paths.indexFileOf(entry.partition, entry.bucket, entry.indexFile));
    expect(new DataView(bytes.buffer, bytes.byteOffset + 1 + 4, 4).getUint32(0, true)).toBe(1681511377); // 64-bit magic, little-endian
    const expected = without(range(0, 12), [0, 5, 9]);
    expect(await ids(t)).toEqual(expected);
    await oraclesSee(dir, expected, ["java"]); // pypaimon 2.1 reads 32-bit vectors only
    const w = await t.newWrite({ commitUser: "compactor" });
    await w.compact();
    await t.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
    expect(await vectors(t)).toEqual([]);
    expect(await ids(t)).toEqual(expected);
  });

  it("resolves pending offsets through the exact offset index on every attempt; a compaction in between moves them to the compacted file", async () => {
    const { table: t } = await table({ bucket: 1, "bucket-key": "id", "file-index.bitmap.columns": "_REALTIME_OFFSET" }, [], [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
    ]);
    const int64 = (values: number[]) => arrow.makeData({ type: new arrow.Int64(), length: values.length, nullCount: 0, data: BigInt64Array.from(values.map(BigInt)) });
    for (const from of [0, 10]) {
      const w = await t.newWrite({ commitUser: "writer" });
      await w.write(new arrow.RecordBatch({ id: int64(range(from, 10)), _REALTIME_OFFSET: int64(range(100 + from, 10)) }));
      await t.newCommit({ commitUser: "writer" }).commit(await w.prepareCommit());
    }
    const offsetField = t.schema.fields[1];
    const pending = new OffsetSet64([103n, 115n, 999n]);
    const source = { io: t.fileIO, pathOf: (f: DataFileMeta) => t.paths.dataFile(t.paths.bucketDir("", 0), f), fieldsOf: async () => t.schema.fields };
    const seen: Array<Record<string, number[]>> = [];
    const resolver = deletionVectorResolver({ io: t.fileIO, paths: t.paths, manifests: t.manifestStore, bitmap64: false, fixedBucket: true }, [
      {
        partition: (await t.newScan().plan()).splits[0].partitionRow,
        bucket: 0,
        resolve: async (files) => {
          const positions = await pendingOffsetPositions(source, files, offsetField, pending);
          seen.push(Object.fromEntries([...positions].map(([name, p]) => [files.findIndex((f) => f.fileName === name), Array.from(p)])));
          if (seen.length === 1) {
            const w = await t.newWrite({ commitUser: "compactor" });
            await w.compact();
            await t.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
          }
          return positions;
        },
      },
    ]);
    await new FileStoreCommit(t.fileIO, t.location, t.schema, "dedup").commit([], 1n, { resolveIndexChanges: resolver, resolvedCommitKind: "APPEND" });
    pending.dispose();
    expect(seen).toEqual([{ 0: [3], 1: [5] }, { 0: [3, 15] }]); // two files, then the compacted one
    const offsets = (await t.newRead().toArrow((await t.newScan().plan()).splits)).getChild("_REALTIME_OFFSET")!.toArray() as BigInt64Array;
    expect(Array.from(offsets, Number)).toEqual(without(range(100, 20), [103, 115]));
    expect((await vectors(t)).map((d) => Object.values(d.cardinality))).toEqual([[2]]);
  });

  it("refuses append tables without deletion vectors", async () => {
    const { table: t } = await table({ bucket: 1, "bucket-key": "id", "deletion-vectors.enabled": false }, [{ ids: [1] }]);
    const e = await failure(() => commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: "x", positions: [0] }]));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "deleting rows by position needs deletion-vectors.enabled=true on db.t"]);
  });
});

/** Positions in `files` of the rows whose id is in `wanted`. */
async function positionsOf(t: Table, files: readonly DataFileMeta[], wanted: bigint[]): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  const bucketDir = t.paths.bucketDir("", 0);
  for (const f of files) {
    const source = await fileIOSource(t.fileIO, t.paths.dataFile(bucketDir, f), Number(f.fileSize));
    let position = 0;
    for await (const b of readParquetBatches(source, { fields: [t.schema.fields[0]], mapBy: "id", batchSize: 1024 })) {
      const values = b.getChildAt(0)!.toArray() as BigInt64Array;
      for (let i = 0; i < values.length; i++) if (wanted.includes(values[i])) out.set(f.fileName, [...(out.get(f.fileName) ?? []), position + i]);
      position += b.numRows;
    }
  }
  return out;
}
