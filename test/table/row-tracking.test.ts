// Row tracking (`row-tracking.enabled`, Java 1.4.2 RowTrackingCommitUtils): commits number the
// rows of appended files (`_FIRST_ROW_ID`), advance the snapshot's `nextRowId`, and stamp a
// writer's first file (sequence 0) with the snapshot id; compacted files keep theirs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { assignRowTracking } from "../../src/commit/row-tracking.js";
import { FILE_KIND_ADD, FILE_KIND_DELETE, makeDataFileMeta, type ManifestEntry } from "../../src/spec/manifest.js";
import type { Table } from "../../src/table/table.js";
import { tempDirs } from "../support/temp-dirs.js";
import { and, col } from "../../src/predicate/predicate.js";
import { appendIds, commitDeletionVector, failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-row-tracking-");

async function newTable(options: Record<string, string>, primaryKeys: string[] = []): Promise<Table> {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }], primaryKeys, options });
}

/** Per live file (by first row id): [firstRowId, rowCount, minSeq, maxSeq]. */
async function liveFiles(t: Table): Promise<Array<[bigint | null, bigint, bigint, bigint]>> {
  const latest = await t.latestSnapshot();
  const entries = await t.manifestStore.liveEntries(latest!);
  return entries.map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber] as [bigint | null, bigint, bigint, bigint]).sort((a, b) => Number((a[0] ?? -1n) - (b[0] ?? -1n)));
}

const entry = (kind: 0 | 1, name: string, rows: number, f: Partial<ManifestEntry["file"]> = {}): ManifestEntry => ({
  kind,
  partition: new Uint8Array(4),
  bucket: 0,
  totalBuckets: -1,
  file: makeDataFileMeta({ fileName: name, fileSize: 1n, rowCount: BigInt(rows), minSequenceNumber: 0n, maxSequenceNumber: BigInt(rows - 1), schemaId: 0, fileSource: 0, ...f }),
});

describe("row-tracking commits", () => {
  it("number appended rows across commits and overwrite, as Java", async () => {
    const t = await newTable({ "row-tracking.enabled": "true" });
    expect(await appendIds(t, [1, 2, 3])).toBe(1);
    expect((await t.snapshot(1)).nextRowId).toBe(3n);
    expect(await liveFiles(t)).toEqual([[0n, 3n, 1n, 1n]]);
    expect(await appendIds(t, [4, 5])).toBe(2);
    expect((await t.snapshot(2)).nextRowId).toBe(5n);
    expect(await liveFiles(t)).toEqual([
      [0n, 3n, 1n, 1n],
      [3n, 2n, 2n, 2n],
    ]);
    // an overwrite deletes the files (keeping their ids) and numbers the new rows after the last id
    expect(await appendIds(t, [6, 7, 8, 9], true)).toBe(3);
    const s3 = await t.snapshot(3);
    expect(s3.nextRowId).toBe(9n);
    expect(s3.totalRecordCount).toBe(4n);
    expect(await liveFiles(t)).toEqual([[5n, 4n, 3n, 3n]]);
  });

  it("tables without row tracking keep nextRowId 0 and no first row ids", async () => {
    const t = await newTable({});
    await appendIds(t, [1, 2, 3]);
    await appendIds(t, [4]);
    expect((await t.snapshot(2)).nextRowId).toBe(0n);
    expect((await liveFiles(t)).map((f) => [f[0], f[2]])).toEqual([
      [null, 0n],
      [null, 0n],
    ]);
  });

  it("refuses row tracking with a bucket count or a primary key (Java SchemaValidation)", async () => {
    const b = await failure(() => newTable({ "row-tracking.enabled": "true", bucket: "2", "bucket-key": "id" }));
    expect([b.code, b.message]).toEqual(["INVALID_ARGUMENT", "Cannot define bucket for row tracking table, it only support bucket = -1 (bucket = 2)"]);
    const p = await failure(() => newTable({ "row-tracking.enabled": "true", bucket: "-1" }, ["id"]));
    expect([p.code, p.message]).toEqual(["INVALID_ARGUMENT", "Cannot define primary-key for row tracking table."]);
  });

  it("compaction writes _ROW_ID / _SEQUENCE_NUMBER columns (kept ids, also of deleted-row files), assigns no ids, keeps nextRowId", async () => {
    const t = await newTable({ "row-tracking.enabled": "true" });
    await appendIds(t, [10, 11, 12]);
    await appendIds(t, [13, 14]);
    // a deletion vector on the first file: its other rows keep their ids after compaction
    const split = (await t.newScan().plan()).splits[0];
    const first = split.files.find((f) => f.firstRowId === 0n)!;
    await commitDeletionVector(t, split, first.fileName, [1]);
    const w = await t.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    const id = await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const s = await t.snapshot(id!);
    expect([s.commitKind, s.nextRowId, s.totalRecordCount]).toEqual(["COMPACT", 5n, 4n]);
    const entries = await t.manifestStore.liveEntries(s);
    expect(entries.map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.fileSource, e.file.writeCols])).toEqual([[null, 4n, 1n, 4n, 1, ["id", "_ROW_ID", "_SEQUENCE_NUMBER"]]]);
    // the file's own columns are read back
    const rows = (await rowsOf(t)).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    expect(rows).toEqual([
      [10n, 0n, 1n],
      [12n, 2n, 1n],
      [13n, 3n, 2n],
      [14n, 4n, 2n],
    ]);
    // a later append continues after nextRowId
    await appendIds(t, [15]);
    expect((await t.latestSnapshot())!.nextRowId).toBe(6n);
    expect((await rowsOf(t)).find((r) => r[0] === 15n)).toEqual([15n, 5n, 5n]);
  });
});

/** Rows of `db.t$row_tracking` as [columns...] in read order. */
async function rowsOf(t: Table, options: Parameters<Table["newRead"]>[0] = {}): Promise<unknown[][]> {
  const s = await t.systemTable("row_tracking");
  const result = await s.newRead(options).toArrow((await s.newScan().plan()).splits);
  return result.toArray().map((r) => Object.values(r.toJSON()));
}

describe("row-tracking compaction in other file formats", () => {
  it.each(["avro", "orc"])("%s: the compacted file's _ROW_ID / _SEQUENCE_NUMBER columns read back", async (format) => {
    const t = await newTable({ "row-tracking.enabled": "true", "file.format": format });
    await appendIds(t, [10, 11]);
    await appendIds(t, [12]);
    const w = await t.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const entries = await t.manifestStore.liveEntries((await t.latestSnapshot())!);
    expect(entries.map((e) => [e.file.fileName.endsWith(`.${format}`), e.file.firstRowId, e.file.writeCols])).toEqual([[true, null, ["id", "_ROW_ID", "_SEQUENCE_NUMBER"]]]);
    expect(await rowsOf(t)).toEqual([
      [10n, 0n, 1n],
      [11n, 1n, 1n],
      [12n, 2n, 2n],
    ]);
  });
});

describe("assignRowTracking", () => {
  it("skips compacted files, files with their own _ROW_ID, assigned files; stamps sequence-0 files only", () => {
    const entries = [
      entry(FILE_KIND_ADD, "a", 3),
      entry(FILE_KIND_ADD, "b", 2, { minSequenceNumber: 3n, maxSequenceNumber: 4n }),
      entry(FILE_KIND_ADD, "c", 5, { fileSource: 1, minSequenceNumber: 2n, maxSequenceNumber: 2n }),
      entry(FILE_KIND_DELETE, "d", 4, { firstRowId: 7n, minSequenceNumber: 1n, maxSequenceNumber: 1n }),
      entry(FILE_KIND_ADD, "e", 6, { writeCols: ["id", "_ROW_ID", "_SEQUENCE_NUMBER"], minSequenceNumber: 5n, maxSequenceNumber: 9n }),
      entry(FILE_KIND_ADD, "f", 1),
    ];
    const { entries: out, nextRowId } = assignRowTracking(7, 20n, entries);
    expect(nextRowId).toBe(26n);
    expect(out.map((e) => [e.file.fileName, e.file.firstRowId, e.file.minSequenceNumber, e.file.maxSequenceNumber])).toEqual([
      ["a", 20n, 7n, 7n],
      ["b", 23n, 3n, 4n],
      ["c", null, 2n, 2n],
      ["d", 7n, 1n, 1n],
      ["e", null, 5n, 9n],
      ["f", 25n, 7n, 7n],
    ]);
    expect(entries[0].file.firstRowId).toBe(null); // the input is not modified
    expect(assignRowTracking(3, 4n, []).nextRowId).toBe(4n);
  });

  it("gives appended files consecutive disjoint ranges from nextRowId, in entry order (randomized)", () => {
    const file = fc.record({ rows: fc.integer({ min: 1, max: 50 }), compact: fc.boolean(), assigned: fc.boolean(), seq0: fc.boolean() });
    fc.assert(
      fc.property(fc.array(file, { maxLength: 12 }), fc.bigInt({ min: 0n, max: 1n << 40n }), fc.integer({ min: 1, max: 1000 }), (files, start, snapshotId) => {
        const entries = files.map((f, i) => entry(FILE_KIND_ADD, `f${i}`, f.rows, { fileSource: f.compact ? 1 : 0, firstRowId: f.assigned ? 999n : null, minSequenceNumber: f.seq0 ? 0n : 5n, maxSequenceNumber: 9n }));
        const { entries: out, nextRowId } = assignRowTracking(snapshotId, start, entries);
        let next = start;
        files.forEach((f, i) => {
          const got = out[i].file;
          if (!f.compact && !f.assigned) {
            expect(got.firstRowId).toBe(next);
            next += BigInt(f.rows);
          } else expect(got.firstRowId).toBe(f.assigned ? 999n : null);
          expect([got.minSequenceNumber, got.maxSequenceNumber]).toEqual(f.seq0 ? [BigInt(snapshotId), BigInt(snapshotId)] : [5n, 9n]);
        });
        expect(nextRowId).toBe(next);
      }),
    );
  });
});

describe("$row_tracking", () => {
  it("reads the data columns, _ROW_ID (first row id + position) and _SEQUENCE_NUMBER (the file's max), across batches", async () => {
    const t = await newTable({ "row-tracking.enabled": "true" });
    await appendIds(t, [10, 11, 12]);
    await appendIds(t, [13, 14]);
    const s = await t.systemTable("row_tracking");
    expect(s.schema.fields.map((f) => [f.id, f.name, f.type.nullable])).toEqual([
      [0, "id", false],
      [2147483642, "_ROW_ID", false],
      [2147483646, "_SEQUENCE_NUMBER", false],
    ]);
    const expected = [
      [10n, 0n, 1n],
      [11n, 1n, 1n],
      [12n, 2n, 1n],
      [13n, 3n, 2n],
      [14n, 4n, 2n],
    ];
    const sorted = (rows: unknown[][]) => rows.sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    expect(sorted(await rowsOf(t, { batchSize: 2 }))).toEqual(expected);
    // projections (any order) and exact filters on the tracking columns
    expect(sorted(await rowsOf(t, { projection: ["_ROW_ID", "id"] }))).toEqual(expected.map(([id, rowId]) => [rowId, id]));
    expect(sorted(await rowsOf(t, { filter: and(col("_ROW_ID").gt(1n), col("_SEQUENCE_NUMBER").eq(1n)), predicateFilter: true }))).toEqual([[12n, 2n, 1n]]);
    // the data table's plain read is unchanged
    expect((await t.newRead().toArrow((await t.newScan().plan()).splits)).schema.fields.map((f) => f.name)).toEqual(["id"]);
  });

  it("is Java's error on a table without row tracking; rows a deletion vector deletes are left out, the others keep their positions as ids", async () => {
    const plain = await newTable({});
    const e = await failure(() => plain.systemTable("row_tracking"));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "Table db.t does not support row tracking, please enable 'row-tracking.enabled' option to use 'with_metadata' table."]);
    // Java SpecialFields.rowTypeWithRowTracking: a column may not have a tracking column's name
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const clash = await catalog.createTable("db.c", { fields: [{ name: "_SEQUENCE_NUMBER", type: "BIGINT" }], options: { "row-tracking.enabled": "true" } });
    const c = await failure(() => clash.systemTable("row_tracking"));
    expect([c.code, c.message]).toEqual(["INVALID_ARGUMENT", "Row tracking field name '_SEQUENCE_NUMBER' conflicts with existing field names."]);
    const t = await newTable({ "row-tracking.enabled": "true" });
    await appendIds(t, [1, 2, 3]);
    await appendIds(t, [4, 5, 6]);
    const split = (await t.newScan().plan()).splits[0];
    const second = split.files.find((f) => f.firstRowId === 3n)!;
    await commitDeletionVector(t, split, second.fileName, [0, 2]);
    const rows = (await rowsOf(t, { batchSize: 1 })).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    expect(rows).toEqual([
      [1n, 0n, 1n],
      [2n, 1n, 1n],
      [3n, 2n, 1n],
      [5n, 4n, 2n],
    ]);
  });
});
