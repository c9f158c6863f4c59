// Data-evolution tables (`data-evolution.enabled`): schema checks as Java's SchemaValidation,
// TableWrite.writeColumns' refusals (nothing written), column updates read back merged by row id
// (src/read/data-evolution.ts), filter pruning by row-id group, compaction, stream and incremental
// scans (full-row deltas; column updates in a delta and diff scans refused).
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import type { DataSplit } from "../../src/scan/split.js";
import { tempDirs } from "../support/temp-dirs.js";
import { failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-data-evolution-");
const OPTIONS = { "row-tracking.enabled": "true", "data-evolution.enabled": "true" };

async function newTable(options: Record<string, string> = OPTIONS): Promise<Table> {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "id", type: "INT" }, { name: "v", type: "STRING" }], partitionKeys: ["dt"], options });
}

const batch = (columns: Record<string, arrow.Vector>) => new arrow.RecordBatch(Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, v.data[0]])));

async function commit(t: Table, fn: (w: Awaited<ReturnType<Table["newWrite"]>>) => Promise<void>): Promise<void> {
  const w = await t.newWrite({ commitUser: "u" });
  await fn(w);
  await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
}

async function rows(t: Table): Promise<unknown[]> {
  return (await t.newRead().toArrow((await t.newScan().plan()).splits)).toArray().map((r) => r.toJSON()).sort((a, b) => a.id - b.id);
}

describe("data-evolution tables", () => {
  it("need row tracking and refuse deletion vectors (Java SchemaValidation's messages)", async () => {
    const a = await failure(() => newTable({ "data-evolution.enabled": "true" }));
    expect([a.code, a.message]).toEqual(["INVALID_ARGUMENT", "Data evolution config must enabled with row-tracking.enabled"]);
    const b = await failure(() => newTable({ ...OPTIONS, "deletion-vectors.enabled": "true" }));
    expect([b.code, b.message]).toEqual(["INVALID_ARGUMENT", "Data evolution config must disabled with deletion-vectors.enabled"]);
  });

  it("every file of a write counts sequence numbers from 0 as Java's data-evolution writers: rolled files all get the snapshot id", async () => {
    const t = await newTable({ ...OPTIONS, "target-file-size": "1 b" });
    await commit(t, async (w) => {
      await w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) }));
      await w.write(batch({ dt: arrow.vectorFromArray(["x"]), id: arrow.vectorFromArray([3], new arrow.Int32()), v: arrow.vectorFromArray(["c"]) }));
    });
    const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber]);
    expect(files).toEqual([
      [0n, 2n, 1n, 1n],
      [2n, 1n, 1n, 1n],
    ]);
    expect(await rows(t)).toEqual([{ dt: "x", id: 1, v: "a" }, { dt: "x", id: 2, v: "b" }, { dt: "x", id: 3, v: "c" }]);
  });

  it("writeColumns updates columns of a committed range; reads merge them by row id", async () => {
    const t = await newTable();
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) })));
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["y"]), id: arrow.vectorFromArray([3], new arrow.Int32()), v: arrow.vectorFromArray(["c"]) })));
    await commit(t, (w) => w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["A", null]) })));
    await commit(t, (w) => w.writeColumns(2n, batch({ id: arrow.vectorFromArray([30], new arrow.Int32()), v: arrow.vectorFromArray(["C"]) })));
    expect(await rows(t)).toEqual([
      { dt: "x", id: 1, v: "A" },
      { dt: "x", id: 2, v: null },
      { dt: "y", id: 30, v: "C" },
    ]);
    const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.writeCols]);
    expect(files.sort((a, b) => Number(a[2]) - Number(b[2]))).toEqual([
      [0n, 2n, 1n, 1n, null],
      [2n, 1n, 2n, 2n, null],
      [0n, 2n, 3n, 3n, ["v"]],
      [2n, 1n, 4n, 4n, ["id", "v"]],
    ]);
    expect((await t.latestSnapshot())!.nextRowId).toBe(3n);
  });

  it("writeColumns refuses bad input with nothing written", async () => {
    const t = await newTable();
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) })));
    const w = await t.newWrite({ commitUser: "u" });
    const cases: Array<[bigint, arrow.RecordBatch, string]> = [
      [0n, batch({ dt: arrow.vectorFromArray(["y", "y"]) }), "writeColumns: partition column dt of table db.t cannot be updated (the file stays in its partition)"],
      [0n, batch({ w: arrow.vectorFromArray(["y", "y"]) }), "writeColumns: table db.t has no column w"],
      [5n, batch({ v: arrow.vectorFromArray(["y", "y"]) }), "writeColumns: no live data file of table db.t starts at row id 5"],
      [0n, batch({ v: arrow.vectorFromArray(["y"]) }), "writeColumns: the file starting at row id 0 has 2 rows, the batch 1"],
    ];
    for (const [first, b, message] of cases) {
      const e = await failure(() => w.writeColumns(first, b));
      expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", message]);
    }
    expect(await w.prepareCommit()).toEqual([]);
    await w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["p", "q"]) }));
    const twice = await failure(() => w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["p", "q"]) })));
    expect(twice.message).toBe("writeColumns: the rows starting at row id 0 were already updated by this writer; call prepareCommit first");
    await w.close();
    const plain = await newTable({ "row-tracking.enabled": "true" });
    const w2 = await plain.newWrite({ commitUser: "u" });
    const e = await failure(() => w2.writeColumns(0n, batch({ v: arrow.vectorFromArray(["p"]) })));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "writeColumns: table db.t is not a data-evolution table (data-evolution.enabled)"]);
    await w2.close();
  });

  it("a filter prunes whole row-id groups by their merged stats (the newest file holding a column decides its stats)", async () => {
    const t = await newTable();
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) })));
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x"]), id: arrow.vectorFromArray([3], new arrow.Int32()), v: arrow.vectorFromArray(["c"]) })));
    await commit(t, (w) => w.writeColumns(0n, batch({ id: arrow.vectorFromArray([10, 20], new arrow.Int32()) })));
    const plan = async (filter?: Predicate) => (await t.newScan({ filter }).plan()).splits.map((s) => (s as DataSplit).files.map((f) => [f.firstRowId, f.writeCols]));
    // one split: the group of rows 0-1 (its full-row file and the file of column id), the group of row 2
    expect(await plan()).toEqual([[[0n, null], [2n, null], [0n, ["id"]]]]);
    // id 1 and 2 are no longer in rows 0-1: the group's id stats are its newer file's (10..20)
    expect(await plan(col("id").le(3))).toEqual([[[2n, null]]]);
    expect(await plan(col("id").ge(10))).toEqual([[[0n, null], [0n, ["id"]]]]);
    // v: held only by the full-row file of each group
    expect(await plan(col("v").eq("c"))).toEqual([[[2n, null]]]);
    expect(await plan(col("id").gt(100))).toEqual([]);
    expect(await rows(t)).toEqual([
      { dt: "x", id: 3, v: "c" },
      { dt: "x", id: 10, v: "a" },
      { dt: "x", id: 20, v: "b" },
    ]);
  });

  it("compact merges the files of adjacent row-id ranges into one file of all columns (Java DataEvolutionCompactCoordinator); overwrite writers refuse it", async () => {
    const t = await newTable({ ...OPTIONS, "compaction.min.file-num": "2" });
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) })));
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["y"]), id: arrow.vectorFromArray([3], new arrow.Int32()), v: arrow.vectorFromArray(["c"]) })));
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x"]), id: arrow.vectorFromArray([4], new arrow.Int32()), v: arrow.vectorFromArray(["d"]) })));
    await commit(t, (w) => w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["A", null]) })));
    const before = await rows(t);
    const o = await t.newWrite({ commitUser: "u", overwrite: true });
    const refused = await failure(() => o.compact());
    expect([refused.code, refused.message]).toEqual(["UNSUPPORTED", "compact on an overwrite writer of data-evolution table db.t: it would rewrite the files the overwrite replaces"]);
    await o.close();
    // x: rows 0-1 (two files) and row 3 (one file) are not adjacent: the first group alone; y: one file, below compaction.min.file-num
    await commit(t, (w) => w.compact());
    const snapshot = (await t.latestSnapshot())!;
    expect([snapshot.id, snapshot.commitKind, snapshot.nextRowId]).toEqual([5, "COMPACT", 4n]);
    const files = (await t.manifestStore.liveEntries(snapshot)).map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.fileSource, e.file.writeCols]);
    expect(files.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [0n, 2n, 1n, 4n, 0, null],
      [2n, 1n, 2n, 2n, 0, null],
      [3n, 1n, 3n, 3n, 0, null],
    ]);
    expect(await rows(t)).toEqual(before);
    expect(before).toEqual([
      { dt: "x", id: 1, v: "A" },
      { dt: "x", id: 2, v: null },
      { dt: "y", id: 3, v: "c" },
      { dt: "x", id: 4, v: "d" },
    ]);
    // nothing left to compact: no commit message
    const w = await t.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    expect(await w.prepareCommit()).toEqual([]);
    await w.close();
  });

  it("stream scans read full-row deltas and refuse a delta's column updates; incremental diff scans are refused", async () => {
    const t = await newTable();
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x"]), id: arrow.vectorFromArray([1], new arrow.Int32()), v: arrow.vectorFromArray(["a"]) })));
    const scan = await t.newStreamScan();
    const read = t.newRead();
    const planRows = async () => (await read.toArrow((await scan.plan()).splits)).toArray().map((r) => r.toJSON());
    expect(await planRows()).toEqual([{ dt: "x", id: 1, v: "a" }]);
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x"]), id: arrow.vectorFromArray([2], new arrow.Int32()), v: arrow.vectorFromArray(["b"]) })));
    expect(await planRows()).toEqual([{ dt: "x", id: 2, v: "b" }]);
    await commit(t, (w) => w.writeColumns(1n, batch({ v: arrow.vectorFromArray(["B"]) })));
    const s = await failure(() => scan.plan());
    expect([s.code, s.message.replace(/data-[^ ]+\.parquet/, "F")]).toEqual(["UNSUPPORTED", "table db.t: data file F updates columns v of the rows from row id 1 of a data-evolution table; incremental and streaming reads of column updates are not supported (Java 1.4.2 reads such a file alone, without the rows' other columns)"]);
    const incremental = (options: Record<string, string>) => t.copy(options).newScan().plan();
    expect((await incremental({ "incremental-between": "1,2" })).splits.length).toBe(1);
    expect((await failure(() => incremental({ "incremental-between": "1,3" }))).code).toBe("UNSUPPORTED");
    const d = await failure(() => incremental({ "incremental-between": "1,2", "incremental-between-scan-mode": "diff" }));
    expect([d.code, d.message]).toEqual(["UNSUPPORTED", "incremental scan of table db.t: incremental-between-scan-mode=diff of a data-evolution table is not supported"]);
  });
});
