// Overwrite, truncate and dropPartitions of deletion-vector tables remove the deletion-vector
// index files of what they clear, as Java's OverwriteChangesProvider emits DELETE index entries
// for the overwritten partitions: the snapshot lists none for the cleared partitions, and later
// writers of those partition-buckets start without stale deletion vectors. Overwrite commits the
// writers' compaction after the OVERWRITE snapshot (Java overwritePartition) when it rewrote only
// the messages' own files. Overwrite writers (`newWrite({ overwrite: true })`, Java
// withIgnorePreviousFiles) start every bucket empty, so keys the table already has can be overwritten.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, readTable } from "../interop/oracle/harness.js";
import { RealtimeContext } from "../../src/realtime/index.js";
import { cleanupDirs, makeTable, tempDir } from "../realtime/helpers.js";
import { failure } from "../table/helpers.js";
import { createPkTable, readRows, toBatch, writeCommit, type Row } from "./helpers.js";

afterAll(cleanupDirs);

const r = (dt: string, id: number, v: string): Row => ({ dt, id: BigInt(id), name: "k", v, n: null });

/** One index-manifest entry: partition dt, bucket, type, file, and (data file, cardinality) per deletion vector. */
interface IndexListing {
  dt: string;
  bucket: number;
  indexType: string;
  fileName: string;
  ranges: Array<[string, bigint | null]>;
}

/**
 * A DV table (bucket 1) with rows a/1..3 and b/1..3 (and `extraInitial`) and one update in each
 * partition (with `extraUpdate` rows): one DV index file per partition.
 */
async function dvTable(extraInitial: Row[] = [], extraUpdate: Row[] = []): Promise<{ table: Table; warehouse: string; dtOf: Map<string, string>; before: IndexListing[] }> {
  const warehouse = tempDir("paimon-rt-overwrite-dv-");
  const table = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true" }, { warehouse });
  await writeCommit(table, "u", [{ rows: [r("a", 1, "x"), r("a", 2, "y"), r("a", 3, "z"), r("b", 1, "x"), r("b", 2, "y"), r("b", 3, "z"), ...extraInitial] }]);
  await writeCommit(table, "u", [{ rows: [r("a", 2, "y2"), r("b", 3, "z2"), ...extraUpdate] }]);
  const splits = (await table.newScan().plan()).splits;
  const dtOf = new Map(splits.map((s) => [s.partitionRow.join(","), (s.partition as { dt: string }).dt]));
  const before = await indexListing(table, dtOf);
  expect(before.map((e) => [e.dt, e.bucket, e.indexType, e.ranges.length, e.ranges[0][1]])).toEqual([
    ["a", 0, "DELETION_VECTORS", 1, 1n],
    ["b", 0, "DELETION_VECTORS", 1, 1n],
  ]);
  return { table, warehouse, dtOf, before };
}

/** The latest snapshot's index manifest, sorted by partition. */
async function indexListing(table: Table, dtOf: ReadonlyMap<string, string>): Promise<IndexListing[]> {
  const entries = await table.manifestStore.indexEntries(await table.latestSnapshot());
  return entries
    .map((e) => ({
      dt: dtOf.get(e.partition.join(","))!,
      bucket: e.bucket,
      indexType: e.indexFile.indexType,
      fileName: e.indexFile.fileName,
      ranges: (e.indexFile.dvRanges ?? []).map((d): [string, bigint | null] => [d.dataFileName, d.cardinality]),
    }))
    .sort((x, y) => (x.dt < y.dt ? -1 : x.dt > y.dt ? 1 : 0));
}

/** Names of the live data files of partition dt. */
async function liveFilesOf(table: Table, dt: string): Promise<string[]> {
  const splits = (await table.newScan().plan()).splits.filter((s) => (s.partition as { dt: string }).dt === dt);
  return splits.flatMap((s) => s.files.map((f) => f.fileName)).sort();
}

/** Rows as Java Paimon reads them, as `dt|id|v`, sorted. */
async function javaRows(warehouse: string, table: Table): Promise<string[]> {
  return (await readTable("java", warehouse, table.identifier)).map((x) => `${x.dt}|${x.id}|${x.v}`).sort();
}

const asStrings = (rows: Row[]) => rows.map((x) => `${x.dt}|${x.id}|${x.v}`);

describe("clearing partitions of a deletion-vector primary-key table", () => {
  it("truncate lists no index files, and a later write and update start without deletion vectors", async () => {
    const { table, warehouse, dtOf, before } = await dvTable();
    await table.truncate({ commitUser: "admin" });
    expect(await indexListing(table, dtOf)).toEqual([]);
    expect(await readRows(table)).toEqual([]);
    // No longer referenced, the truncated deletion-vector files go with the snapshots that listed them.
    for (const e of before) expect(existsSync(join(table.location, "index", e.fileName)), e.fileName).toBe(true);
    await table.newCommit({ commitUser: "admin" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
    for (const e of before) expect(existsSync(join(table.location, "index", e.fileName)), e.fileName).toBe(false);
    await writeCommit(table, "u", [{ rows: [r("a", 1, "p"), r("a", 2, "q")] }]);
    // Without stale vectors, the first write into the cleared bucket adds no index file.
    expect(await indexListing(table, dtOf)).toEqual([]);
    await writeCommit(table, "u", [{ rows: [r("a", 2, "q2")] }]);
    const listing = await indexListing(table, dtOf);
    const live = await liveFilesOf(table, "a");
    expect(listing.map((e) => [e.dt, e.bucket, e.indexType, e.ranges.length, e.ranges[0][1]])).toEqual([["a", 0, "DELETION_VECTORS", 1, 1n]]);
    expect(live).toContain(listing[0].ranges[0][0]);
    expect(asStrings(await readRows(table))).toEqual(["a|1|p", "a|2|q2"]);
    if (javaOracleUnavailable() === null) expect(await javaRows(warehouse, table)).toEqual(["a|1|p", "a|2|q2"]);
  }, 120_000);

  it("dropPartitions removes exactly the dropped partition's index file, and new writes there start fresh", async () => {
    const { table, warehouse, dtOf, before } = await dvTable();
    await table.dropPartitions([{ dt: "a" }], { commitUser: "admin" });
    expect(await indexListing(table, dtOf)).toEqual([before[1]]);
    expect(asStrings(await readRows(table))).toEqual(["b|1|x", "b|2|y", "b|3|z2"]);
    await writeCommit(table, "u", [{ rows: [r("a", 5, "n"), r("a", 6, "m"), r("a", 7, "p")] }]);
    expect(await indexListing(table, dtOf)).toEqual([before[1]]);
    // smaller than the first file, so the lookup compaction (Java forcePickL0's size ratio) leaves that file
    await writeCommit(table, "u", [{ rows: [r("a", 5, "n2")] }]);
    const listing = await indexListing(table, dtOf);
    expect(listing[1]).toEqual(before[1]);
    expect(listing.map((e) => [e.dt, e.bucket, e.indexType, e.ranges.length, e.ranges[0][1]])).toEqual([
      ["a", 0, "DELETION_VECTORS", 1, 1n],
      ["b", 0, "DELETION_VECTORS", 1, 1n],
    ]);
    expect(await liveFilesOf(table, "a")).toContain(listing[0].ranges[0][0]);
    const expected = ["a|5|n2", "a|6|m", "a|7|p", "b|1|x", "b|2|y", "b|3|z2"];
    expect(asStrings(await readRows(table))).toEqual(expected);
    if (javaOracleUnavailable() === null) expect(await javaRows(warehouse, table)).toEqual(expected);
  }, 120_000);

  it("TableCommit.overwrite of a partition removes that partition's index file and keeps the writer's compacted files", async () => {
    // b's files grow from the bottom: the writer's small level-0 file is compacted on its own (Java
    // forcePickL0 extends by size ratio only to runs no larger than it), rewriting nothing of the table's
    const extra = (from: number, n: number) => Array.from({ length: n }, (_, i) => r("b", from + i, `w${from + i}`));
    const { table, dtOf, before } = await dvTable(extra(100, 80), extra(10, 40));
    const write = await table.newWrite({ commitUser: "u" });
    await write.write(toBatch([r("b", 7, "o")]));
    const id = await table.newCommit({ commitUser: "u" }).overwrite(await write.prepareCommit(), { dt: "b" });
    await write.close();
    // As in Java's overwritePartition: the OVERWRITE snapshot, then the writer's compaction as COMPACT.
    expect((await table.snapshot(id! - 1)).commitKind).toBe("OVERWRITE");
    expect((await table.snapshot(id!)).commitKind).toBe("COMPACT");
    expect(await indexListing(table, dtOf)).toEqual([before[0]]);
    expect(asStrings(await readRows(table))).toEqual(["a|1|x", "a|2|y2", "a|3|z", "b|7|o"]);
  });

  it("TableCommit.overwrite refuses messages whose compaction rewrote the table's deletion vectors, changing nothing", async () => {
    const { table, dtOf, before } = await dvTable();
    const snapshots = (await table.listSnapshots()).length;
    const write = await table.newWrite({ commitUser: "u" });
    // Key b|3 exists: the writer (restored from the table) marks its old row in a new deletion vector.
    await write.write(toBatch([r("b", 3, "o"), r("b", 8, "o")]));
    const messages = await write.prepareCommit();
    await write.close();
    const err = await failure(() => table.newCommit({ commitUser: "u" }).overwrite(messages, { dt: "b" }));
    expect(err.code).toBe("UNSUPPORTED");
    expect(err.message).toMatch(/^overwrite of deletion-vector table .*: the messages' compaction rewrote files or deletion vectors the table already had/);
    expect(err.message).toContain("newWrite({ commitUser, overwrite: true })");
    expect((await table.listSnapshots()).length).toBe(snapshots);
    expect(await indexListing(table, dtOf)).toEqual(before);
    expect(asStrings(await readRows(table))).toEqual(["a|1|x", "a|2|y2", "a|3|z", "b|1|x", "b|2|y", "b|3|z2"]);
  });
});

describe("overwrite writers (newWrite({ overwrite: true }))", () => {
  it("overwrite a partition's existing keys of a deletion-vector table: exactly the new rows, no stale deletion vectors", async () => {
    const { table, warehouse, dtOf, before } = await dvTable();
    const write = await table.newWrite({ commitUser: "u", overwrite: true });
    // Keys b|1 and b|3 exist; the overwrite writer does not know them, so it marks nothing deleted.
    await write.write(toBatch([r("b", 3, "o"), r("b", 1, "o"), r("b", 8, "o")]));
    const messages = await write.prepareCommit();
    await write.close();
    expect(messages.flatMap((m) => [...m.data.compactIncrement.newIndexFiles, ...m.data.compactIncrement.deletedIndexFiles, ...m.data.dataIncrement.newIndexFiles])).toEqual([]);
    const id = await table.newCommit({ commitUser: "u" }).overwrite(messages, { dt: "b" });
    expect((await table.snapshot(id! - 1)).commitKind).toBe("OVERWRITE");
    expect((await table.snapshot(id!)).commitKind).toBe("COMPACT");
    // Partition b's deletion-vector file is gone with its data; a's is untouched.
    expect(await indexListing(table, dtOf)).toEqual([before[0]]);
    // As Java's overwrite writer, which restores no files: sequence numbers start again at 0.
    const bFiles = (await table.newScan().plan()).splits.filter((s) => (s.partition as { dt: string }).dt === "b").flatMap((s) => s.files);
    expect(bFiles.map((f) => [f.minSequenceNumber, f.maxSequenceNumber, f.rowCount])).toEqual([[0n, 2n, 3n]]);
    const expected = ["a|1|x", "a|2|y2", "a|3|z", "b|1|o", "b|3|o", "b|8|o"];
    expect(asStrings(await readRows(table))).toEqual(expected);
    if (javaOracleUnavailable() === null) expect(await javaRows(warehouse, table)).toEqual(expected);
    // An ordinary writer afterwards restores the overwritten bucket: its update gets a fresh deletion vector.
    await writeCommit(table, "u", [{ rows: [r("b", 8, "p")] }]);
    const listing = await indexListing(table, dtOf);
    expect(listing[0]).toEqual(before[0]);
    expect(listing.slice(1).map((e) => [e.dt, e.bucket, e.indexType, e.ranges.length, e.ranges[0][1]])).toEqual([["b", 0, "DELETION_VECTORS", 1, 1n]]);
    expect(await liveFilesOf(table, "b")).toContain(listing[1].ranges[0][0]);
    const after = ["a|1|x", "a|2|y2", "a|3|z", "b|1|o", "b|3|o", "b|8|p"];
    expect(asStrings(await readRows(table))).toEqual(after);
    if (javaOracleUnavailable() === null) expect(await javaRows(warehouse, table)).toEqual(after);
  }, 120_000);

  it("dynamic overwrite (no partition given) of existing keys in every written partition of a deletion-vector table", async () => {
    const { table, warehouse, dtOf } = await dvTable();
    const write = await table.newWrite({ commitUser: "u", overwrite: true });
    await write.write(toBatch([r("a", 2, "w"), r("b", 3, "w")]));
    await table.newCommit({ commitUser: "u" }).overwrite(await write.prepareCommit());
    await write.close();
    expect(await indexListing(table, dtOf)).toEqual([]);
    const expected = ["a|2|w", "b|3|w"];
    expect(asStrings(await readRows(table))).toEqual(expected);
    if (javaOracleUnavailable() === null) expect(await javaRows(warehouse, table)).toEqual(expected);
  }, 120_000);

  it("overwrite of a fixed-bucket append table: only the new rows, sequence numbers from 0; compact is refused", async () => {
    const catalog = await Catalog.open(`memory://overwrite-writer-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.append", {
      fields: [
        { name: "dt", type: "STRING" },
        { name: "id", type: "BIGINT" },
        { name: "name", type: "STRING" },
        { name: "v", type: "STRING" },
        { name: "n", type: "INT" },
      ],
      partitionKeys: ["dt"],
      options: { bucket: 1, "bucket-key": "id" },
    });
    await writeCommit(table, "u", [{ rows: [r("a", 1, "x"), r("b", 1, "x"), r("b", 2, "y")] }]);
    await writeCommit(table, "u", [{ rows: [r("b", 3, "z")] }]);
    const write = await table.newWrite({ commitUser: "u", overwrite: true });
    await write.write(toBatch([r("b", 1, "o")]));
    const compactErr = await failure(() => write.compact());
    expect(compactErr.code).toBe("UNSUPPORTED");
    expect(compactErr.message).toBe(`compact on an overwrite writer of append table ${table.identifier}: it would rewrite the files the overwrite replaces`);
    const messages = await write.prepareCommit();
    await write.close();
    expect(messages.flatMap((m) => m.data.dataIncrement.newFiles.map((f) => [f.minSequenceNumber, f.maxSequenceNumber]))).toEqual([[0n, 0n]]);
    const id = await table.newCommit({ commitUser: "u" }).overwrite(messages, { dt: "b" });
    expect((await table.snapshot(id!)).commitKind).toBe("OVERWRITE");
    expect(asStrings(await readRows(table))).toEqual(["a|1|x", "b|1|o"]);
  });

  it("a real-time writer cannot be an overwrite writer; a non-boolean overwrite is invalid", async () => {
    const table = await createPkTable({ bucket: 1 });
    const bad = await failure(() => table.newWrite({ commitUser: "u", overwrite: "yes" as unknown as boolean }));
    expect(bad.code).toBe("INVALID_ARGUMENT");
    expect(bad.message).toBe('newWrite option overwrite must be a boolean, got "yes"');
    const rtTable = await makeTable();
    const ctx = await RealtimeContext.create();
    const rt = await failure(() => rtTable.newWrite({ commitUser: "u", realtime: ctx, overwrite: true }));
    expect(rt.code).toBe("UNSUPPORTED");
    expect(rt.message).toBe(`newWrite of ${rtTable.identifier}: a real-time writer cannot be an overwrite writer`);
  });
});

describe("overwriting a primary-key table without deletion vectors", () => {
  it("leaves out a compaction that merged the replaced files: only the new rows remain", async () => {
    const table = await createPkTable({ bucket: 1 });
    await writeCommit(table, "u", [{ rows: [r("a", 1, "x"), r("b", 1, "x"), r("b", 3, "z")] }]);
    const write = await table.newWrite({ commitUser: "u" });
    await write.write(toBatch([r("b", 3, "o"), r("b", 8, "o")]));
    await write.compact({ full: true }); // merges the table's b file with the new rows
    const messages = await write.prepareCommit();
    await write.close();
    expect(messages.some((m) => m.data.compactIncrement.compactBefore.length > 1)).toBe(true);
    const id = await table.newCommit({ commitUser: "u" }).overwrite(messages, { dt: "b" });
    expect((await table.snapshot(id!)).commitKind).toBe("OVERWRITE");
    expect(asStrings(await readRows(table))).toEqual(["a|1|x", "b|3|o", "b|8|o"]);
  });
});
