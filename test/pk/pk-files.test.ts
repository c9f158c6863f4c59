// Primary-key data files: Java's physical layout and exact DataFileMeta, sequence numbers,
// levels, read options (projection, filters, withRowKind, time travel), unsupported modes.
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { readParquetFooter } from "../../src/format/parquet-stats.js";
import { readParquet } from "../../src/format/parquet-reader.js";
import { col } from "../../src/predicate/predicate.js";
import { BinaryRow, fromBinaryRow } from "../../src/spec/binary-row.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import type { Table } from "../../src/table/table.js";
import { checkLsmConflicts } from "../../src/commit/pk-conflicts.js";
import { RowKind } from "../../src/write/table-write.js";
import { forcePickLevel0, pickUniversal } from "../../src/write/merge-tree-writer.js";
import { createPkTable, readRows, type Row, sortRows, toBatch, writeCommit } from "./helpers.js";

const r = (id: number, name: string, v: string | null, n: number | null = null, dt = "a"): Row => ({ dt, id: BigInt(id), name, v, n });

async function liveFiles(table: Table): Promise<Array<{ bucket: number; partition: Uint8Array; file: DataFileMeta }>> {
  const snap = (await table.latestSnapshot())!;
  return (await table.manifestStore.liveEntries(snap)).map((e) => ({ bucket: e.bucket, partition: e.partition, file: e.file }));
}

const KEY_TYPES = [
  { kind: "BIGINT", nullable: false },
  { kind: "VARCHAR", nullable: false, length: 2147483647 },
] as never;

describe("primary-key data files", () => {
  it("have Java's physical layout and exact metadata", async () => {
    const table = await createPkTable({ bucket: 1 });
    const rows = [r(5, "b", "x", 1), r(2, "zz", null, 2), r(5, "b", "y", 3), r(9, "a", "q"), r(-1, "", "w", 4), r(2, "zz", null)];
    await writeCommit(table, "u", [{ rows, kinds: [RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.INSERT, RowKind.DELETE, RowKind.DELETE] }]);
    const [{ file }] = await liveFiles(table);
    // 4 unique keys; (2, zz) and (-1, "") are deletes; the last version of each key is kept
    expect(file.rowCount).toBe(4n);
    expect(file.deleteRowCount).toBe(2n);
    expect(file.level).toBe(0);
    expect(file.fileSource).toBe(0);
    expect(file.minSequenceNumber).toBe(2n); // row 2 (5,b) seq 2, row 3 (9,a) seq 3, row 4 (-1,"") seq 4, row 5 (2,zz) seq 5
    expect(file.maxSequenceNumber).toBe(5n);
    expect(fromBinaryRow(BinaryRow.fromSerialized(file.minKey), KEY_TYPES)).toEqual([-1n, ""]);
    expect(fromBinaryRow(BinaryRow.fromSerialized(file.maxKey), KEY_TYPES)).toEqual([9n, "a"]);
    expect(fromBinaryRow(BinaryRow.fromSerialized(file.keyStats.minValues), KEY_TYPES)).toEqual([-1n, ""]);
    expect(fromBinaryRow(BinaryRow.fromSerialized(file.keyStats.maxValues), KEY_TYPES)).toEqual([9n, "zz"]);
    expect(file.keyStats.nullCounts).toEqual([0n, 0n]);
    expect(file.valueStatsCols).toBeNull();
    expect(file.valueStats.nullCounts).toEqual([0n, 0n, 0n, 1n, 2n]);
    // the Parquet file: _KEY_ columns, system columns, value columns, Java's field ids
    const plan = await table.newScan().plan();
    const path = `${plan.splits[0].bucketPath}/${file.fileName}`;
    const bytes = await table.fileIO.readFile(path);
    const footer = await readParquetFooter(bytes);
    const fields = table.schema.fields;
    expect(footer.columns.map((c) => [c.name, c.fieldId])).toEqual([
      ["_KEY_id", 1073741823 + fields[1].id],
      ["_KEY_name", 1073741823 + fields[2].id],
      ["_SEQUENCE_NUMBER", 2147483646],
      ["_VALUE_KIND", 2147483645],
      ...fields.map((f) => [f.name, f.id]),
    ]);
    const data = await readParquet(bytes);
    const got = data.toArray().map((x) => x.toJSON());
    expect(got.map((x) => [x._KEY_id, x._KEY_name, x._SEQUENCE_NUMBER, x._VALUE_KIND, x.v])).toEqual([
      [-1n, "", 4n, 3, "w"],
      [2n, "zz", 5n, 3, null],
      [5n, "b", 2n, 2, "y"],
      [9n, "a", 3n, 0, "q"],
    ]);
  });

  it("continue sequence numbers per bucket across writers and commits", async () => {
    const table = await createPkTable({ bucket: 1 });
    await writeCommit(table, "u", [{ rows: [r(1, "a", "1"), r(2, "a", "2")] }]);
    await writeCommit(table, "u2", [{ rows: [r(1, "a", "3")] }]);
    const files = (await liveFiles(table)).map((x) => x.file).sort((a, b) => Number(a.minSequenceNumber - b.minSequenceNumber));
    expect(files.map((f) => [f.minSequenceNumber, f.maxSequenceNumber])).toEqual([
      [0n, 1n],
      [2n, 2n],
    ]);
    expect(await readRows(table)).toEqual([r(1, "a", "3"), r(2, "a", "2")]);
  });

  it("full compaction writes one sorted run at the max level and drops deletes", async () => {
    const table = await createPkTable({ bucket: 1, "target-file-size": "1 kb" });
    const many = Array.from({ length: 300 }, (_, i) => r(i, "k", `v${i}`, i));
    await writeCommit(table, "u", [{ rows: many }]);
    const first = (await liveFiles(table)).map((x) => x.file);
    // the flush rolled into non-overlapping level-0 files above compaction.file-size: the
    // compaction only moved them to the max level (Java MergeTreeCompactTask.upgrade)
    expect(first.length).toBeGreaterThan(1);
    expect(first.every((f) => f.level === 5 && f.fileSource === 0)).toBe(true);
    await writeCommit(table, "u", [{ rows: [r(3, "k", null), r(4, "k", "x")], kinds: [RowKind.DELETE, RowKind.UPDATE_AFTER] }], { compact: true });
    const files = (await liveFiles(table)).map((x) => x.file);
    expect(files.length).toBeGreaterThan(1); // rolled at target-file-size
    expect(new Set(files.map((f) => f.level))).toEqual(new Set([5]));
    expect(files.every((f) => f.deleteRowCount === 0n)).toBe(true);
    // the file holding keys 3 and 4 was rewritten with the new rows; the others stayed as they were
    const firstNames = new Set(first.map((f) => f.fileName));
    const kept = files.filter((f) => firstNames.has(f.fileName));
    const rewritten = files.filter((f) => !firstNames.has(f.fileName));
    expect(kept.length).toBe(first.length - 1);
    expect(kept.every((f) => f.fileSource === 0)).toBe(true);
    expect(rewritten.length).toBeGreaterThan(0);
    expect(rewritten.every((f) => f.fileSource === 1)).toBe(true);
    expect(files.reduce((n, f) => n + f.rowCount, 0n)).toBe(299n);
    const snaps = await table.listSnapshots();
    // many small level-0 files trigger universal compaction already in the first commit
    expect(snaps.map((s) => s.commitKind)).toEqual(["APPEND", "COMPACT", "APPEND", "COMPACT"]);
    const rows = await readRows(table);
    expect(rows.length).toBe(299);
    expect(rows.find((x) => x.id === 4n)?.v).toBe("x");
    // one split per bucket section, read raw (a single level without deletes)
    const plan = await table.newScan().plan();
    expect(plan.splits.every((s) => s.rawConvertible)).toBe(true);
    // time travel to before the compaction still merges
    expect((await readRows(table, { snapshotId: 3 })).length).toBe(299);
    expect((await readRows(table, { snapshotId: 2 })).length).toBe(300);
  });

  // "0 b": no key columns cached, every lookup reads the files again
  it.each(["256 mb", "0 b"])("deletion vectors: a level-0 file without deletes moves up unchanged, its keys mark older rows, and expiry keeps it (lookup.cache-max-memory-size %s)", async (cacheSize) => {
    const table = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true", "lookup.cache-max-memory-size": cacheSize });
    const rows = (from: number, to: number, v: string) => Array.from({ length: to - from }, (_, i) => r(from + i, "k", `${v}${from + i}`));
    // the bottom file is much larger than the next commit's, so the lookup compaction's size-ratio
    // extension (Java forcePickL0) leaves it where it is
    await writeCommit(table, "u", [{ rows: rows(0, 400, "a") }]);
    const [bottom] = (await liveFiles(table)).map((x) => x.file);
    // the only run: moved to the max level as it is (Java CHANGELOG_NO_REWRITE)
    expect([bottom.level, bottom.fileSource]).toEqual([5, 0]);
    await writeCommit(table, "u", [{ rows: rows(60, 130, "b") }]);
    const files = (await liveFiles(table)).map((x) => x.file).sort((a, b) => a.level - b.level);
    expect(files.map((f) => [f.level, f.fileSource, f.rowCount])).toEqual([
      [4, 0, 70n],
      [5, 0, 400n],
    ]);
    expect(files[1].fileName).toBe(bottom.fileName);
    const plan = await table.newScan().plan();
    const dvs = plan.splits.flatMap((s) => (s.kind === "data" ? s.files.map((f, i) => [f.fileName, Number(s.deletionFiles?.[i]?.cardinality ?? 0)]) : []));
    expect(new Map(dvs as Array<[string, number]>)).toEqual(new Map([[files[0].fileName, 0], [bottom.fileName, 70]]));
    const expected = sortRows([...rows(0, 60, "a"), ...rows(60, 130, "b"), ...rows(130, 400, "a")]);
    expect(await readRows(table)).toEqual(expected);
    // the compaction snapshot deletes and re-adds the moved file: expiring it must keep the file
    await table.newCommit({ commitUser: "admin" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
    expect(await readRows(table)).toEqual(expected);
    // one writer, several commits: keys of the moved files are looked up again (cached or re-read)
    const w = await table.newWrite({ commitUser: "u" });
    for (const [c, [from, to]] of [[10, 20], [50, 70], [0, 130]].entries()) {
      await w.write(toBatch(rows(from, to, `c${c}`)));
      await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(10 + c), 10 + c);
    }
    await w.close();
    expect(await readRows(table)).toEqual(sortRows([...rows(0, 130, "c2"), ...rows(130, 400, "a")]));
  });

  it("deletion vectors: full compaction of one max-level run rewrites only the files with deletion vectors", async () => {
    const table = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true", "target-file-size": "1 kb" });
    await writeCommit(table, "u", [{ rows: Array.from({ length: 300 }, (_, i) => r(i, "k", `v${i}`)) }]);
    const first = (await liveFiles(table)).map((x) => x.file);
    expect(first.length).toBeGreaterThan(1);
    expect(first.every((f) => f.level === 5)).toBe(true);
    // a DELETE: its level-0 file is rewritten without it (nothing left) and marks the old row
    await writeCommit(table, "u", [{ rows: [r(3, "k", null)], kinds: [RowKind.DELETE] }]);
    const dvFiles = async () => (await table.newScan().plan()).splits.flatMap((s) => (s.kind === "data" ? s.files.filter((_, i) => s.deletionFiles?.[i]) : [])).map((f) => f.fileName);
    const marked = await dvFiles();
    expect(marked.length).toBe(1);
    await writeCommit(table, "u", [], { compact: true });
    const files = (await liveFiles(table)).map((x) => x.file);
    const firstNames = new Set(first.map((f) => f.fileName));
    expect(files.filter((f) => firstNames.has(f.fileName)).map((f) => f.fileName).sort()).toEqual(first.map((f) => f.fileName).filter((n) => n !== marked[0]).sort());
    expect(files.filter((f) => !firstNames.has(f.fileName)).every((f) => f.level === 5 && f.fileSource === 1)).toBe(true);
    expect(files.reduce((n, f) => n + f.rowCount, 0n)).toBe(299n);
    expect(await dvFiles()).toEqual([]);
    expect((await readRows(table)).length).toBe(299);
  });

  it("reads with projection without keys, key and value filters, and row kinds", async () => {
    const table = await createPkTable({ bucket: 2 });
    await writeCommit(table, "u", [{ rows: [r(1, "a", "one", 10), r(2, "a", "two", 20), r(3, "b", "three", 30, "b")] }]);
    await writeCommit(table, "u", [{ rows: [r(2, "a", "TWO", 21), r(1, "a", null)], kinds: [RowKind.UPDATE_AFTER, RowKind.DELETE] }]);
    const scan = await table.newScan({ filter: col("id").ge(2n) }).plan();
    const t = await table.newRead({ projection: ["v"], filter: col("n").gt(25), predicateFilter: true }).toArrow(scan.splits);
    expect(t.schema.fields.map((f) => f.name)).toEqual(["v"]);
    expect(t.toArray().map((x) => x.v).sort()).toEqual(["three"]);
    // a value filter must not prune older versions away (n = 21 now, 20 before)
    const all = await table.newScan({ filter: col("n").eq(20) }).plan();
    const t2 = await table.newRead({ filter: col("n").eq(20), predicateFilter: true }).toArrow(all.splits);
    expect(t2.numRows).toBe(0);
    const withKind = await table.newRead({ withRowKind: true }).toArrow((await table.newScan().plan()).splits);
    expect(withKind.schema.fields[0].name).toBe("_VALUE_KIND");
    expect(withKind.schema.fields[0].type).toBeInstanceOf(arrow.Int8);
    const kinds = withKind.toArray().map((x) => [x.id, x._VALUE_KIND]).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(kinds).toEqual([
      [2n, RowKind.UPDATE_AFTER],
      [3n, RowKind.INSERT],
    ]);
  });

  it("reject unsupported modes with precise errors", async () => {
    for (const [options, pattern] of [
      [{ "merge-engine": "aggregation", "fields.n.sequence-group": "v" }, /sequence-group/],
      [{ "merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true" }, /aggregation/],
      [{ "changelog-producer": "full-compaction", "force-lookup": "true", "merge-engine": "partial-update" }, /force-lookup=true with changelog-producer=full-compaction and merge-engine=partial-update/],
      [{ "changelog-producer": "input", "changelog-file.format": "orc" }, /changelog-file.format=orc/],
    ] as const) {
      const table = await createPkTable(options as Record<string, string | number>);
      const err = await (async () => table.newWrite({ commitUser: "u" }))().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PaimonError);
      expect((err as PaimonError).code).toBe("UNSUPPORTED");
      expect((err as PaimonError).message).toMatch(pattern);
    }
    const table = await createPkTable();
    const write = await table.newWrite({ commitUser: "u" });
    await expect(write.write(toBatch([r(1, "a", "x")]), { rowKinds: [0, 0] })).rejects.toThrow(/rowKinds has 2 entries/);
    await expect(write.write(toBatch([r(1, "a", "x")]), { rowKinds: [7 as RowKind] })).rejects.toThrow(/invalid row kind/);
  });

  it("ignore-delete drops retract rows at write", async () => {
    const table = await createPkTable({ bucket: 1, "ignore-delete": "true" });
    await writeCommit(table, "u", [{ rows: [r(1, "a", "x")] }]);
    await writeCommit(table, "u", [{ rows: [r(1, "a", "x"), r(2, "a", "y")], kinds: [RowKind.DELETE, RowKind.INSERT] }]);
    expect(await readRows(table)).toEqual([r(1, "a", "x"), r(2, "a", "y")]);
  });

  it("universal compaction picks runs like Java", () => {
    const cfg = { maxLevel: 5, numSortedRunCompactionTrigger: 3, maxSizeAmplificationPercent: 200, sizeRatio: 1 };
    const run = (level: number, size: number) => ({ level, files: [{ fileName: `${level}-${size}` } as DataFileMeta], size });
    expect(pickUniversal([run(0, 1), run(0, 1)], cfg)).toBeNull();
    // size amplification: everything to the max level
    expect(pickUniversal([run(0, 10), run(0, 10), run(5, 5)], cfg)?.outputLevel).toBe(5);
    // size ratio: the two small level-0 runs go to the (empty) level below the next run
    const unit = pickUniversal([run(0, 1), run(0, 1), run(3, 100), run(5, 1000)], cfg);
    expect(unit?.outputLevel).toBe(2);
    expect(unit?.files.length).toBe(2);
    // never to level 0: a stop inside level 0 extends to the next leveled run
    const ext = pickUniversal([run(0, 1), run(0, 1), run(0, 100), run(5, 1000)], cfg);
    expect(ext?.outputLevel).toBe(5);
    expect(ext?.files.length).toBe(4);
  });

  it("the forced level-0 pick (lookup compaction) extends by size ratio like Java's forcePickL0", () => {
    const cfg = { maxLevel: 5, numSortedRunCompactionTrigger: 5, maxSizeAmplificationPercent: 200, sizeRatio: 1 };
    const run = (level: number, size: number) => ({ level, files: [{ fileName: `${level}-${size}` } as DataFileMeta], size });
    expect(forcePickLevel0([run(3, 10), run(5, 10)], cfg)).toBeNull();
    // a next run larger than the level-0 runs (+1%) stays: output just below it
    const below = forcePickLevel0([run(0, 10), run(3, 11), run(5, 1000)], cfg);
    expect(below?.outputLevel).toBe(2);
    expect(below?.files.map((f) => f.fileName)).toEqual(["0-10"]);
    // a next run no larger joins them (paimon-rt used to stop at level 0's runs): 10 + 10 >= 20
    const merged = forcePickLevel0([run(0, 10), run(0, 10), run(3, 20), run(4, 41), run(5, 1000)], cfg);
    expect(merged?.outputLevel).toBe(3);
    expect(merged?.files.map((f) => f.fileName)).toEqual(["0-10", "0-10", "3-20"]);
    // everything picked: the max level
    expect(forcePickLevel0([run(0, 10), run(5, 10)], cfg)?.outputLevel).toBe(5);
    // without the extension (deduplicate without sequence.field, first-row): the level-0 runs only
    const level0 = forcePickLevel0([run(0, 10), run(0, 10), run(3, 20), run(4, 41), run(5, 1000)], cfg, false);
    expect(level0?.outputLevel).toBe(2);
    expect(level0?.files.map((f) => f.fileName)).toEqual(["0-10", "0-10"]);
  });

  it("LSM conflict check rejects overlapping files of one level", async () => {
    const table = await createPkTable({ bucket: 1 });
    await writeCommit(table, "u", [{ rows: [r(1, "a", "x"), r(5, "a", "y")] }], { compact: true });
    const [e] = await table.manifestStore.liveEntries((await table.latestSnapshot())!);
    const other = { ...e, file: { ...e.file, fileName: "other.parquet" } };
    expect(() => checkLsmConflicts(table.schema, [e, other], { id: 9 } as never)).toThrow(/LSM conflicts/);
    expect(() => checkLsmConflicts(table.schema, [e, { ...other, file: { ...other.file, level: 4 } }], { id: 9 } as never)).not.toThrow();
  });
});

describe("primary-key commit messages", () => {
  it("DV compaction messages round-trip through Java's binary layout and commit from another process's view", async () => {
    const { CommitMessage } = await import("../../src/commit/commit-message.js");
    const table = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true" });
    await writeCommit(table, "u", [{ rows: [r(1, "a", "x"), r(2, "a", "y"), r(3, "a", "z")] }]);
    const write = await table.newWrite({ commitUser: "u2" });
    await write.write(toBatch([r(2, "a", "y2"), r(3, "a", null)]), { rowKinds: [RowKind.UPDATE_AFTER, RowKind.DELETE] });
    const messages = await write.prepareCommit(5);
    await write.close();
    const m = messages[0].data;
    expect(m.dataIncrement.newFiles.length).toBe(1);
    expect(m.compactIncrement.compactBefore.length).toBe(1);
    expect(m.compactIncrement.newIndexFiles[0].indexType).toBe("DELETION_VECTORS");
    const bytes = CommitMessage.serializeList(messages);
    const back = CommitMessage.deserializeList(CommitMessage.currentVersion(), bytes);
    expect(back[0].data).toEqual(m);
    await table.newCommit({ commitUser: "u2" }).commit(back, 5);
    expect(await readRows(table)).toEqual([r(1, "a", "x"), r(2, "a", "y2")]);
  });
});

describe("primary-key write stalls", () => {
  it("compacts during a long write once num-sorted-run.stop-trigger is exceeded", async () => {
    const table = await createPkTable({ bucket: 1, "write-buffer-size": "1 b", "num-sorted-run.compaction-trigger": 2, "num-sorted-run.stop-trigger": 3 });
    const write = await table.newWrite({ commitUser: "u" });
    const expected = new Map<bigint, Row>();
    for (let i = 0; i < 12; i++) {
      const rows = [r(i, "a", `v${i}`), r(i % 3, "a", `w${i}`)];
      for (const x of rows) expected.set(x.id, x);
      await write.write(toBatch(rows));
    }
    const messages = await write.prepareCommit();
    await write.close();
    const m = messages[0].data;
    expect(m.dataIncrement.newFiles.length).toBe(12); // one level-0 file per flush
    expect(m.compactIncrement.compactBefore.length).toBeGreaterThanOrEqual(10);
    await table.newCommit({ commitUser: "u" }).commit(messages);
    const files = (await liveFiles(table)).map((x) => x.file);
    expect(files.length).toBeLessThanOrEqual(4);
    expect(await readRows(table)).toEqual(sortRows([...expected.values()]));
  });
});
