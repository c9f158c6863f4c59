import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import type { CommitMessage } from "../../src/commit/commit-message.js";
import { PaimonError } from "../../src/error.js";
import { col } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { freshWarehouse, listFilesUnder, warehousesOnS3 } from "../support/warehouses.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A fresh warehouse: a temp directory, or an s3:// prefix when test/fs/s3-suites.test.ts runs this file. */
function warehouse(): string {
  return freshWarehouse(() => {
    const d = mkdtempSync(join(tmpdir(), "paimon-rt-table-"));
    dirs.push(d);
    return d;
  }, "append");
}

function batch(ids: number[], names: Array<string | null>, dts: string[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    name: arrow.vectorFromArray(names, new arrow.Utf8()).data[0],
    dt: arrow.vectorFromArray(dts, new arrow.Utf8()).data[0],
  });
}

async function rows(table: Table, options: Parameters<Table["newScan"]>[0] = {}, read: Parameters<Table["newRead"]>[0] = {}) {
  const plan = await table.newScan(options).plan();
  const t = await table.newRead(read).toArrow(plan.splits);
  return t.toArray().map((r) => r.toJSON()).sort((a, b) => Number(a.id) - Number(b.id));
}

async function newTable(): Promise<Table> {
  const catalog = await Catalog.open(warehouse());
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
}

/** Every file of the table, relative to its location, sorted. */
function listFiles(table: Table): Promise<string[]> {
  return listFilesUnder(table.fileIO, table.location);
}

async function writeAndCommit(table: Table, user: string, batches: arrow.RecordBatch[], id?: number) {
  const write = await table.newWrite({ commitUser: user });
  for (const b of batches) await write.write(b);
  const messages = await write.prepareCommit(id);
  await write.close();
  return table.newCommit({ commitUser: user }).commit(messages, id);
}

describe("append tables", () => {
  for (const [name, location] of [
    ["local", () => warehouse()],
    ["memory", () => `memory://append-${Math.random().toString(36).slice(2)}`],
  ] as const) {
    it(`writes, commits, scans and reads a partitioned bucketed table (${name})`, async () => {
      const catalog = await Catalog.open(location());
      await catalog.createDatabase("db");
      const table = await catalog.createTable("db.events", {
        fields: [
          { name: "id", type: "BIGINT NOT NULL" },
          { name: "name", type: "STRING" },
          { name: "dt", type: "STRING" },
        ],
        partitionKeys: ["dt"],
        options: { bucket: 4, "bucket-key": "id" },
      });
      expect(await catalog.listTables("db")).toEqual(["events"]);
      const s1 = await writeAndCommit(table, "u1", [batch([1, 2, 3, 4, 5], ["a", "b", null, "d", "e"], ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-01"])], 1);
      expect(s1).toBe(1);
      const s2 = await writeAndCommit(table, "u1", [batch([6, 7], ["f", "g"], ["2024-01-03", "2024-01-01"])], 2);
      expect(s2).toBe(2);
      const all = await rows(table);
      expect(all.map((r) => [Number(r.id), r.name, r.dt])).toEqual([
        [1, "a", "2024-01-01"],
        [2, "b", "2024-01-01"],
        [3, null, "2024-01-02"],
        [4, "d", "2024-01-02"],
        [5, "e", "2024-01-01"],
        [6, "f", "2024-01-03"],
        [7, "g", "2024-01-01"],
      ]);
      // Time travel, partition filters and projection.
      expect((await rows(table, { snapshotId: 1 })).length).toBe(5);
      expect((await rows(table, { partitions: [{ dt: "2024-01-02" }] })).map((r) => Number(r.id))).toEqual([3, 4]);
      expect((await rows(table, { filter: col("dt").eq("2024-01-03") })).map((r) => Number(r.id))).toEqual([6]);
      expect(await rows(table, {}, { projection: ["name"], filter: col("id").ge(6), predicateFilter: true })).toEqual([{ name: "f" }, { name: "g" }]);
      // Bucket directories follow the Java bucket function over the bucket key.
      const plan = await table.newScan().plan();
      for (const split of plan.splits) {
        expect(split.bucketPath).toMatch(/dt=2024-01-0\d\/bucket-[0-3]$/);
      }
      const snapshot = await table.latestSnapshot();
      expect(snapshot?.totalRecordCount).toBe(7n);
      expect(snapshot?.commitKind).toBe("APPEND");
    });
  }

  it("writes sliced Arrow input exactly (Arrow slices values and offsets, not validity bitmaps)", async () => {
    const table = await newTable();
    const n = 2000;
    const ids = Array.from({ length: n }, (_, i) => i);
    const whole = batch(ids, ids.map((i) => (i % 5 === 0 ? null : `name-${i}`)), ids.map(() => "2024-01-01"));
    // unique ids and names: written PLAIN by the flat encoder; a slice at a non-byte boundary
    await writeAndCommit(table, "u1", [whole.slice(3, 1003), whole.slice(1501, 1999)]);
    const expected = [...ids.slice(3, 1003), ...ids.slice(1501, 1999)].map((i) => ({ id: BigInt(i), name: i % 5 === 0 ? null : `name-${i}`, dt: "2024-01-01" }));
    expect(await rows(table)).toEqual(expected);
  });

  it("prunes files and manifests with statistics, never wrongly", async () => {
    const catalog = await Catalog.open(warehouse());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
    await writeAndCommit(table, "u", [batch([1, 2, 3], ["a", "b", "c"], ["x", "x", "x"])]);
    await writeAndCommit(table, "u", [batch([10, 11, 12], ["k", "l", null], ["x", "x", "x"])]);
    await writeAndCommit(table, "u", [batch([20], ["z"], ["y"])]);
    const files = async (filter?: Parameters<typeof col>[0] extends string ? ReturnType<ReturnType<typeof col>["eq"]> : never) =>
      (await table.newScan({ filter }).plan()).splits.flatMap((s) => s.files.map((f) => f.rowCount));
    expect((await files()).length).toBe(3);
    expect(await files(col("id").ge(10))).toEqual([3n, 1n]);
    expect(await files(col("id").gt(100))).toEqual([]);
    expect(await files(col("name").isNull())).toEqual([3n]);
    expect(await files(col("dt").eq("y"))).toEqual([1n]);
    expect((await rows(table, { filter: col("id").ge(11) }, { filter: col("id").ge(11), predicateFilter: true })).map((r) => Number(r.id))).toEqual([11, 12, 20]);
  });

  it("commits an identifier lower than the user's latest, as Java's StreamTableCommit.commit", async () => {
    const table = await newTable();
    const commit = table.newCommit({ commitUser: "u" });
    const w5 = await table.newWrite({ commitUser: "u" });
    await w5.write(batch([1, 2], ["a", "b"], ["x", "y"]));
    expect(await commit.commit(await w5.prepareCommit(5), 5)).toBe(1);
    const w3 = await table.newWrite({ commitUser: "u" });
    await w3.write(batch([3], ["c"], ["x"]));
    expect(await commit.commit(await w3.prepareCommit(3), 3)).toBe(2);
    expect((await table.listSnapshots()).map((s) => [s.commitIdentifier, s.totalRecordCount])).toEqual([[5n, 2n], [3n, 3n]]);
    expect(await rows(table)).toEqual([
      { id: 1n, name: "a", dt: "x" },
      { id: 2n, name: "b", dt: "y" },
      { id: 3n, name: "c", dt: "x" },
    ]);
  });

  it("filterAndCommit skips the identifiers the user committed and commits the rest in order", async () => {
    const table = await newTable();
    const prepared = new Map<number, CommitMessage[]>();
    for (const id of [4, 6, 7]) {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(batch([id], [`n${id}`], ["x"]));
      prepared.set(id, await w.prepareCommit(id));
    }
    expect(await table.newCommit({ commitUser: "u" }).commit(prepared.get(6)!, 6)).toBe(1);
    // Recovery after a crash: 4 and 6 count as committed (<= 6), only 7 is committed now.
    const recovering = table.newCommit({ commitUser: "u" });
    expect(await recovering.filterAndCommit(new Map([[7, prepared.get(7)!], [4, prepared.get(4)!], [6, prepared.get(6)!]]))).toBe(1);
    expect((await table.listSnapshots()).map((s) => s.commitIdentifier)).toEqual([6n, 7n]);
    expect((await rows(table)).map((r) => r.id)).toEqual([6n, 7n]);
    // Retrying again commits nothing.
    expect(await recovering.filterAndCommit(new Map([[7, prepared.get(7)!]]))).toBe(0);
    expect((await table.listSnapshots()).length).toBe(2);
    // Another user has committed nothing: both identifiers are committed, in increasing order.
    const other = new Map<number, CommitMessage[]>();
    for (const id of [9, 8]) {
      const w = await table.newWrite({ commitUser: "v" });
      await w.write(batch([id], [`n${id}`], ["y"]));
      other.set(id, await w.prepareCommit(id));
    }
    expect(await table.newCommit({ commitUser: "v" }).filterAndCommit(other)).toBe(2);
    expect((await table.listSnapshots()).map((s) => [s.commitUser, s.commitIdentifier])).toEqual([["u", 6n], ["u", 7n], ["v", 8n], ["v", 9n]]);
  });

  it("filterAndCommit refuses with NOT_FOUND when a file to commit again was deleted, committing nothing", async () => {
    const table = await newTable();
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(batch([1], ["a"], ["x"]));
    const messages = await w.prepareCommit(1);
    const file = messages[0].data.dataIncrement.newFiles[0].fileName;
    await table.fileIO.delete(`${table.location}/dt=x/bucket-0/${file}`);
    const err = await table.newCommit({ commitUser: "u" }).filterAndCommit(new Map([[1, messages]])).catch((e) => e);
    expect(err).toBeInstanceOf(PaimonError);
    expect([err.code, err.message.includes(file)]).toEqual(["NOT_FOUND", true]);
    expect(await table.listSnapshots()).toEqual([]);
  });

  it("refuses to commit the same messages twice: COMMIT_CONFLICT, nothing published, files kept", async () => {
    const table = await newTable();
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(batch([1, 2], ["a", "b"], ["x", "y"]));
    const messages = await w.prepareCommit();
    const commit = table.newCommit({ commitUser: "u" });
    expect(await commit.commit(messages)).toBe(1);
    const before = await listFiles(table);
    for (const again of [commit, table.newCommit({ commitUser: "other" })]) {
      const err = await again.commit(messages).catch((e) => e);
      expect(err).toBeInstanceOf(PaimonError);
      expect(err.code).toBe("COMMIT_CONFLICT");
      expect(err.message).toContain(messages[0].data.dataIncrement.newFiles[0].fileName);
    }
    // Java's abort of the refused messages must not delete their files: they are live.
    await commit.abort(messages);
    expect(await listFiles(table)).toEqual(before);
    // The same message twice in one commit is refused as well.
    const w2 = await table.newWrite({ commitUser: "u" });
    await w2.write(batch([3], ["c"], ["x"]));
    const fresh = await w2.prepareCommit();
    expect((await commit.commit([...fresh, ...fresh]).catch((e) => e)).code).toBe("COMMIT_CONFLICT");
    expect((await table.listSnapshots()).map((s) => [s.id, s.totalRecordCount])).toEqual([[1, 2n]]);
    expect((await listFiles(table)).filter((f) => !fresh.some((m) => f.endsWith(m.data.dataIncrement.newFiles[0].fileName)))).toEqual(before);
    expect(await rows(table)).toEqual([
      { id: 1n, name: "a", dt: "x" },
      { id: 2n, name: "b", dt: "y" },
    ]);
    // The refused file is still the caller's: committing it once works.
    expect(await commit.commit(fresh)).toBe(2);
    expect((await rows(table)).map((r) => r.id)).toEqual([1n, 2n, 3n]);
  });

  it("abort deletes the data files of messages that were not committed, as Java's TableCommit.abort", async () => {
    const table = await newTable();
    await writeAndCommit(table, "u", [batch([1], ["a"], ["x"])]);
    const committed = await listFiles(table);
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(batch([2, 3], ["b", "c"], ["x", "y"]));
    const messages = await w.prepareCommit();
    expect((await listFiles(table)).length).toBe(committed.length + 2);
    await table.newCommit({ commitUser: "u" }).abort(messages);
    expect(await listFiles(table)).toEqual(committed);
    expect((await rows(table)).map((r) => r.id)).toEqual([1n]);
    expect(await table.removeOrphanFiles({ olderThanMs: 0, dryRun: true })).toEqual({ deleted: [], bytes: 0 });
  });

  it("a committer's view of the live files follows a rollback that reuses snapshot ids", async () => {
    const table = await newTable();
    const commit = table.newCommit({ commitUser: "u" });
    const prepare = async (id: number, dt: string) => {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(batch([id], [`n${id}`], [dt]));
      return w.prepareCommit();
    };
    expect(await commit.commit(await prepare(1, "x"))).toBe(1);
    const second = await prepare(2, "x");
    expect(await commit.commit(second)).toBe(2);
    // Roll back to snapshot 1 (as Java's rollback_to: newer snapshot files removed, hint reset),
    // then another writer publishes a different snapshot 2.
    await table.fileIO.delete(`${table.location}/snapshot/snapshot-2`);
    await table.fileIO.writeFile(`${table.location}/snapshot/LATEST`, "1");
    const theirs = await prepare(3, "y");
    expect(await table.newCommit({ commitUser: "v" }).commit(theirs)).toBe(2);
    // The files of the rolled-back snapshot are no longer live: committing them again works;
    // the other writer's files are live: committing them again conflicts.
    expect((await commit.commit(theirs).catch((e) => e)).code).toBe("COMMIT_CONFLICT");
    expect(await commit.commit(second)).toBe(3);
    expect((await rows(table)).map((r) => r.id)).toEqual([1n, 2n, 3n]);
    expect((await table.listSnapshots()).map((s) => s.totalRecordCount)).toEqual([1n, 2n, 3n]);
  });

  // counts reads through a LocalFileIO subclass: local disk only
  it.skipIf(warehousesOnS3())("commits bring the live files forward: no data manifest is read twice, another process's snapshots by their deltas", async () => {
    class ReadRecordingFileIO extends LocalFileIO {
      readonly reads: string[] = [];
      override async readFile(path: string): Promise<Uint8Array> {
        this.reads.push(path.slice(path.lastIndexOf("/") + 1));
        return super.readFile(path);
      }
    }
    const dir = warehouse();
    const io = new ReadRecordingFileIO();
    const catalog = await Catalog.open(dir, { fileIO: io });
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
    const dataManifestReads = () => io.reads.filter((name) => /^manifest-(?!list-)/.test(name)).sort();
    const commitRow = async (t: Table, user: string, id: number) => {
      const w = await t.newWrite({ commitUser: user });
      await w.write(batch([id], [`n${id}`], [id % 2 === 0 ? "x" : "y"]));
      const messages = await w.prepareCommit();
      io.reads.length = 0;
      return t.newCommit({ commitUser: user }).commit(messages);
    };
    for (let i = 0; i < 4; i++) {
      // A new TableCommit each time: the live files of the last commit are reused, none read.
      expect(await commitRow(table, "u", i)).toBe(i + 1);
      expect(dataManifestReads(), `commit ${i + 1}`).toEqual([]);
    }
    // Another process (its own file system object) commits twice; the next commit here reads only
    // the delta manifests of those two snapshots.
    const elsewhere = await (await Catalog.open(dir)).getTable("db.t");
    expect(elsewhere.fileIO).not.toBe(io);
    for (const id of [10, 11]) await commitRow(elsewhere, "v", id);
    const deltas: string[] = [];
    for (const id of [5, 6]) for (const m of await table.manifestStore.readManifestList((await table.snapshot(id)).deltaManifestList)) deltas.push(m.fileName);
    expect(await commitRow(table, "u", 4)).toBe(7);
    expect(dataManifestReads()).toEqual(deltas.sort());
    // Committing the other process's files again is refused: the deltas were applied.
    const w = await elsewhere.newWrite({ commitUser: "v" });
    await w.write(batch([12], ["n12"], ["x"]));
    const twice = await w.prepareCommit();
    expect(await elsewhere.newCommit({ commitUser: "v" }).commit(twice)).toBe(8);
    expect((await table.newCommit({ commitUser: "u" }).commit(twice).catch((e) => e)).code).toBe("COMMIT_CONFLICT");
    expect((await rows(table)).map((r) => r.id)).toEqual([0n, 1n, 2n, 3n, 4n, 10n, 11n, 12n]);
  });

  it("checks appends against files committed by others since the committer's last look", async () => {
    const table = await newTable();
    const commit = table.newCommit({ commitUser: "u" });
    const mine = await table.newWrite({ commitUser: "u" });
    await mine.write(batch([1], ["a"], ["x"]));
    expect(await commit.commit(await mine.prepareCommit())).toBe(1);
    // Another committer commits messages; this committer then gets the same messages again.
    const w = await table.newWrite({ commitUser: "v" });
    await w.write(batch([2], ["b"], ["y"]));
    const theirs = await w.prepareCommit();
    expect(await table.newCommit({ commitUser: "v" }).commit(theirs)).toBe(2);
    expect((await commit.commit(theirs).catch((e) => e)).code).toBe("COMMIT_CONFLICT");
    expect((await table.listSnapshots()).length).toBe(2);
  });

  it("retries when another writer took the snapshot id", async () => {
    const catalog = await Catalog.open(warehouse());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }] });
    const writers = await Promise.all(["a", "b", "c", "d"].map(async (user, i) => {
      const w = await table.newWrite({ commitUser: user });
      await w.write(batch([i * 10, i * 10 + 1], ["x", "y"], ["p", "p"]));
      return { user, messages: await w.prepareCommit() };
    }));
    const ids = await Promise.all(writers.map((w) => table.newCommit({ commitUser: w.user }).commit(w.messages)));
    expect([...ids].sort()).toEqual([1, 2, 3, 4]);
    expect((await rows(table)).length).toBe(8);
    // Attempts that lost the snapshot id removed the manifests they wrote: nothing is orphaned.
    expect(await table.removeOrphanFiles({ olderThanMs: 0, dryRun: true })).toEqual({ deleted: [], bytes: 0 });
  });

  it("overwrites a partition, dynamically or the whole table", async () => {
    const catalog = await Catalog.open(warehouse());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", {
      fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }],
      partitionKeys: ["dt"],
    });
    await writeAndCommit(table, "u", [batch([1, 2, 3], ["a", "b", "c"], ["x", "y", "y"])]);
    const w = await table.newWrite({ commitUser: "o" });
    await w.write(batch([9], ["z"], ["y"]));
    const id = await table.newCommit({ commitUser: "o" }).overwrite(await w.prepareCommit());
    expect((await table.snapshot(id!)).commitKind).toBe("OVERWRITE");
    expect((await rows(table)).map((r) => Number(r.id))).toEqual([1, 9]);
    // Static overwrite of partition x with nothing empties it.
    await table.newCommit({ commitUser: "o2" }).overwrite([], { dt: "x" });
    expect((await rows(table)).map((r) => Number(r.id))).toEqual([9]);
  });

  it("reads files written under older schemas after add, rename and drop", async () => {
    const catalog = await Catalog.open(warehouse());
    await catalog.createDatabase("db");
    let table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }] });
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(new arrow.RecordBatch({ id: arrow.vectorFromArray([1, 2], new arrow.Int32()).data[0], name: arrow.vectorFromArray(["a", "b"]).data[0], dt: arrow.vectorFromArray(["p", "q"]).data[0] }));
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    table = await catalog.alterTable("db.t", [
      { kind: "addColumn", name: "score", type: "DOUBLE" },
      { kind: "renameColumn", name: "name", newName: "label" },
      { kind: "dropColumn", name: "dt" },
      { kind: "updateColumnType", name: "id", type: "BIGINT" },
    ]);
    expect(table.schema.id).toBe(1);
    const w2 = await table.newWrite({ commitUser: "u" });
    await w2.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([3n]) }), label: arrow.vectorFromArray(["c"]).data[0], score: arrow.vectorFromArray([0.5]).data[0] }));
    await table.newCommit({ commitUser: "u" }).commit(await w2.prepareCommit());
    expect(await rows(table)).toEqual([
      { id: 1n, label: "a", score: null },
      { id: 2n, label: "b", score: null },
      { id: 3n, label: "c", score: 0.5 },
    ]);
    // time travel reads snapshot 1 with its own schema (old names and types, dropped column back)
    const v1 = await table.atSnapshot(1);
    expect(v1.schema.id).toBe(0);
    expect(v1.pinnedSnapshotId).toBe(1);
    expect(await rows(v1)).toEqual([
      { id: 1, name: "a", dt: "p" },
      { id: 2, name: "b", dt: "q" },
    ]);
    expect(v1.newRead().outputSchema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(["id:Int32", "name:Utf8", "dt:Utf8"]);
    // scanning snapshot 1 through the latest table reads it with the latest schema
    expect(await rows(table, { snapshotId: 1 })).toEqual([
      { id: 1n, label: "a", score: null },
      { id: 2n, label: "b", score: null },
    ]);
    // the view is read-only and scans its own snapshot; unknown snapshots are NOT_FOUND
    await expect(v1.newWrite({ commitUser: "u" })).rejects.toMatchObject({ code: "UNSUPPORTED" });
    expect(() => v1.newCommit({ commitUser: "u" })).toThrow(PaimonError);
    expect(() => v1.newScan({ snapshotId: 2 })).toThrow(/atSnapshot\(2\)/);
    expect(await rows(v1, { snapshotId: 1 })).toHaveLength(2);
    await expect(table.atSnapshot(7)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await table.atSnapshot(2)).schema).toBe(table.schema);
  });

  it("expires snapshots and their files", async () => {
    const catalog = await Catalog.open(warehouse());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
    for (let i = 0; i < 4; i++) await writeAndCommit(table, `u${i}`, [batch([i], ["n"], ["x"])]);
    const w = await table.newWrite({ commitUser: "o" });
    await w.write(batch([99], ["z"], ["x"]));
    await table.newCommit({ commitUser: "o" }).overwrite(await w.prepareCommit());
    const expired = await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
    expect(expired).toBe(4);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([5]);
    expect((await rows(table)).map((r) => Number(r.id))).toEqual([99]);
    const files = await table.fileIO.listStatus(table.paths.bucketDir("dt=x/", 0));
    expect(files.filter((f) => f.name.endsWith(".parquet")).length).toBe(1);
  });

  it("rejects bad input with INVALID_ARGUMENT and changes nothing", async () => {
    const catalog = await Catalog.open(warehouse());
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
    const w = await table.newWrite({ commitUser: "u" });
    const codeOf = async (f: () => Promise<unknown>) => {
      try {
        await f();
      } catch (e) {
        return e instanceof PaimonError ? e.code : String(e);
      }
      return "no error";
    };
    expect(await codeOf(() => w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([1n]) }) })))).toBe("INVALID_ARGUMENT");
    expect(await codeOf(() => w.write(new arrow.RecordBatch({ id: arrow.vectorFromArray([1n, null], new arrow.Int64()).data[0], name: arrow.vectorFromArray(["a", "b"]).data[0], dt: arrow.vectorFromArray(["x", "x"]).data[0] })))).toBe("INVALID_ARGUMENT");
    expect(await codeOf(() => w.write(batch([1], ["a"], ["x"]), { partition: { nope: 1 } }))).toBe("INVALID_ARGUMENT");
    expect(await codeOf(() => w.write(new arrow.RecordBatch({ id: arrow.vectorFromArray(["1"]).data[0], name: arrow.vectorFromArray(["a"]).data[0], dt: arrow.vectorFromArray(["x"]).data[0] })))).toBe("INVALID_ARGUMENT");
    expect(await codeOf(() => catalog.createTable("db.bad", { fields: [{ name: "id", type: "BIGINTT" }] }))).toBe("INVALID_ARGUMENT");
    expect(await codeOf(() => catalog.getTable("db.missing"))).toBe("NOT_FOUND");
    expect(await codeOf(() => Catalog.open(warehouse()).then((c) => c.getTable("nodb.t")))).toBe("NOT_FOUND");
    expect(await w.prepareCommit()).toEqual([]);
    expect(await table.latestSnapshot()).toBeNull();
  });

  it("keeps partition values with path characters inside the table directory", async () => {
    const wh = warehouse();
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
    const values = ["a/b", "../..", "x=y", "50%", "sp ace", "日本", ""];
    await writeAndCommit(table, "u", [batch(values.map((_, i) => i), values.map(() => "v"), values)]);
    const plan = await table.newScan().plan();
    for (const s of plan.splits) expect(s.bucketPath.startsWith(table.location + "/dt=")).toBe(true);
    expect(plan.splits.map((s) => s.bucketPath.slice(table.location.length + 1)).sort()).toEqual(
      ["dt=..%2F..", "dt=50%25", "dt=__DEFAULT_PARTITION__", "dt=a%2Fb", "dt=sp ace", "dt=x%3Dy", "dt=日本"].map((d) => `${d}/bucket-0`).sort(),
    );
    expect((await rows(table)).map((r) => r.dt)).toEqual(values.map((v) => (v === "" ? "" : v)));
  });

  it("plans of one snapshot each hand out their own split list, files and partition objects (partition placement kept between plans does not leak)", async () => {
    const table = await newTable();
    await writeAndCommit(table, "u", [batch([1, 2], ["a", "b"], ["2024-01-01", "2024-01-02"])]);
    await writeAndCommit(table, "u", [batch([3], ["c"], ["2024-01-01"])]);
    const first = await table.newScan().plan();
    const expected = first.splits.map((s) => ({ partition: { ...s.partition }, bucketPath: s.bucketPath, files: s.files.map((f) => f.fileName) }));
    expect(expected.map((s) => s.partition.dt).sort()).toEqual(["2024-01-01", "2024-01-02"]);
    // a caller changing what it got
    for (const s of first.splits) {
      (s.partition as Record<string, unknown>).dt = "changed";
      (s.files as unknown[]).length = 0;
    }
    first.splits.length = 0;
    const second = await table.newScan().plan();
    expect(second.splits.map((s) => ({ partition: s.partition, bucketPath: s.bucketPath, files: s.files.map((f) => f.fileName) }))).toEqual(expected);
    const third = await table.newScan().plan();
    expect(third.splits).not.toBe(second.splits);
    third.splits.forEach((s, i) => {
      expect(s.partition).not.toBe(second.splits[i].partition);
      expect(s.files).not.toBe(second.splits[i].files);
    });
  });
});
