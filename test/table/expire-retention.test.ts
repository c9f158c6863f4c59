// Which snapshots expiry keeps, as Java's ExpireSnapshotsImpl decides: the next snapshot of every
// consumer (a streaming reader's progress), the snapshot that was the latest at the start of the
// retained time, at most `snapshot.expire.limit` removed a call; idle consumers expire first.
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { Table } from "../../src/table/table.js";
import { expireSnapshots } from "../../src/commit/expire.js";
import { tempDirs } from "../support/temp-dirs.js";
import { failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-expire-");

async function tableWithSnapshots(count: number, options: Record<string, string> = {}): Promise<Table> {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }], options: { bucket: "1", "bucket-key": "id", ...options } });
  const table = await catalog.getTable("db.t");
  for (let i = 1; i <= count; i++) {
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(i) }) }));
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(), i);
    await w.close();
    await new Promise((r) => setTimeout(r, 3)); // distinct commit times
  }
  return table;
}

const ids = async (table: Table) => (await table.listSnapshots()).map((s) => s.id);
const readIds = async (table: Table) => {
  const t = await table.newRead().toArrow((await table.newScan().plan()).splits);
  return [...t.getChild("id")!.toArray()].sort((a, b) => a - b);
};

function writeConsumer(table: Table, id: string, nextSnapshot: number | string, mtimeMs?: number): void {
  const dir = join(table.location, "consumer");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `consumer-${id}`);
  writeFileSync(path, typeof nextSnapshot === "number" ? JSON.stringify({ nextSnapshot }) : nextSnapshot);
  if (mtimeMs !== undefined) utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
}

describe("snapshot expiry: what is retained", () => {
  it("keeps every snapshot from the smallest next snapshot of the consumers on; consumer.changelog-only lets them go where changelogs are decoupled", async () => {
    const table = await tableWithSnapshots(6);
    writeConsumer(table, "flink-job", 4);
    writeConsumer(table, "other", 5);
    expect(await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(3);
    expect(await ids(table)).toEqual([4, 5, 6]);
    expect(await readIds(table)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await table.newRead().toArrow((await table.newScan({ snapshotId: 4 }).plan()).splits)).numRows).toBe(4); // the consumer's snapshot reads

    const catalog = await Catalog.open(table.location.replace(/\/db\.db\/t$/, ""));
    // as Java's CoreOptions.consumerChangelogOnly: only where changelogs outlive snapshots (decoupled)
    const changelogOnly = await catalog.alterTable("db.t", [{ kind: "setOption", key: "consumer.changelog-only", value: "true" }]);
    expect(await changelogOnly.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(0);
    expect(await ids(changelogOnly)).toEqual([4, 5, 6]);
    const relaxed = await catalog.alterTable("db.t", [{ kind: "setOption", key: "changelog.num-retained.max", value: "10" }]);
    expect(await relaxed.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(2);
    expect(await ids(relaxed)).toEqual([6]);
    expect(await readIds(relaxed)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("consumers idle for longer than consumer.expiration-time are deleted first and hold nothing", async () => {
    const table = await tableWithSnapshots(5, { "consumer.expiration-time": "1 h" });
    const now = Date.now();
    writeConsumer(table, "stale", 2, now - 2 * 3600_000);
    writeConsumer(table, "live", 4, now - 60_000);
    expect(await expireSnapshots(table.fileIO, table.location, table.coreOptions, table.partitionFields, { retainMax: 1, retainMin: 1, olderThanMs: 0 }, now)).toBe(3);
    expect(await ids(table)).toEqual([4, 5]);
    expect((await table.fileIO.listStatus(join(table.location, "consumer"))).map((f) => f.name)).toEqual(["consumer-live"]);
  });

  it("a snapshot goes only when the one after it is older than the retained time: time travel to any moment in it finds the snapshot that was the latest then", async () => {
    const table = await tableWithSnapshots(5);
    const times = (await table.listSnapshots()).map((s) => s.timeMillis);
    expect(new Set(times).size).toBe(5);
    const now = times[4]! + 10_000;
    // the retained time starts exactly when snapshot 3 was committed: snapshot 2 was the latest until then
    const olderThanMs = now - times[2]!;
    expect(await expireSnapshots(table.fileIO, table.location, table.coreOptions, table.partitionFields, { retainMin: 1, olderThanMs }, now)).toBe(1);
    expect(await ids(table)).toEqual([2, 3, 4, 5]);
    // one ms later snapshot 3 has been the latest since before the retained time: 2 goes too
    expect(await expireSnapshots(table.fileIO, table.location, table.coreOptions, table.partitionFields, { retainMin: 1, olderThanMs: olderThanMs - 1 }, now)).toBe(1);
    expect(await ids(table)).toEqual([3, 4, 5]);
  });

  it("a snapshot file that cannot be deleted stops expiry there: the snapshots left stay contiguous and keep their files; a later expiry finishes", async () => {
    const table = await tableWithSnapshots(8);
    // a compaction deletes the files the first snapshots added: expiring them deletes those files
    const w = await table.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    class FailingIO extends LocalFileIO {
      override async delete(path: string): Promise<boolean> {
        if (path.endsWith("/snapshot/snapshot-3")) throw new Error("injected: delete refused");
        return super.delete(path);
      }
    }
    const expire = (io: LocalFileIO) => expireSnapshots(io, table.location, table.coreOptions, table.partitionFields, { retainMax: 1, retainMin: 1, olderThanMs: 0 });
    expect(await expire(new FailingIO())).toBe(2);
    expect(await ids(table)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    // every snapshot left still reads (nothing it references was deleted)
    expect(await readIds(await table.atSnapshot(3))).toEqual([1, 2, 3]);
    expect(await readIds(table)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await expire(new LocalFileIO())).toBe(6);
    expect(await ids(table)).toEqual([9]);
    expect(await readIds(table)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("removes at most snapshot.expire.limit snapshots a call (or maxDeletes)", async () => {
    const table = await tableWithSnapshots(8, { "snapshot.expire.limit": "3" });
    const expire = (o: { maxDeletes?: number } = {}) => table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0, ...o });
    expect(await expire()).toBe(3);
    expect(await ids(table)).toEqual([4, 5, 6, 7, 8]);
    expect(await expire({ maxDeletes: 2 })).toBe(2);
    expect(await ids(table)).toEqual([6, 7, 8]);
    expect(await expire()).toBe(2);
    expect(await ids(table)).toEqual([8]);
    expect(await readIds(table)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("a consumer file that is a symbolic link (maybe leading outside the table) is not read and holds nothing", async () => {
    const table = await tableWithSnapshots(4);
    const outside = join(tempDir(), "elsewhere.json");
    writeFileSync(outside, JSON.stringify({ nextSnapshot: 1 }));
    mkdirSync(join(table.location, "consumer"), { recursive: true });
    symlinkSync(outside, join(table.location, "consumer", "consumer-link"));
    expect(await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(3);
    expect(await ids(table)).toEqual([4]);
  });

  it("a consumer file that is not a consumer's JSON stops expiry with nothing deleted", async () => {
    const table = await tableWithSnapshots(3);
    writeConsumer(table, "broken", "{not json");
    const e = await failure(() => table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 }));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain("consumer-broken");
    expect(await ids(table)).toEqual([1, 2, 3]);
  });

  it("every commit expires by the table's retention options, as Java's commit does; write-only tables keep everything", async () => {
    const retention = { "snapshot.num-retained.min": "2", "snapshot.time-retained": "1 ms" };
    const table = await tableWithSnapshots(5, retention);
    expect(await ids(table)).toEqual([4, 5]);
    expect(await readIds(table)).toEqual([1, 2, 3, 4, 5]);
    const writeOnly = await tableWithSnapshots(5, { ...retention, "write-only": "true" });
    expect(await ids(writeOnly)).toEqual([1, 2, 3, 4, 5]);
    // Java's defaults (at least 10 snapshots, one hour) keep every snapshot of a young table
    expect(await ids(await tableWithSnapshots(12))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it("after a rollback restores an expired tagged snapshot, the next commits expire by the retention again (the earliest snapshot is re-read)", async () => {
    const table = await tableWithSnapshots(5, { "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "3" });
    expect(await ids(table)).toEqual([3, 4, 5]);
    await table.createTag("t", 3);
    const commit = async (id: number) => {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(id) }) }));
      await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
    };
    await commit(6);
    expect(await ids(table)).toEqual([4, 5, 6]);
    await table.rollbackTo(4);
    await commit(50); // nothing expires: the table object remembers earliest snapshot 4
    expect(await ids(table)).toEqual([4, 5]);
    await table.rollbackToTag("t"); // restores expired snapshot 3 as the only one
    expect(await ids(table)).toEqual([3]);
    for (const id of [100, 101]) await commit(id);
    expect(await ids(table)).toEqual([3, 4, 5]);
    await commit(102);
    expect(await ids(table)).toEqual([4, 5, 6]);
    expect(await readIds(table)).toEqual([1, 2, 3, 100, 101, 102]);
  });

  it("deciding that nothing can expire costs a young table's commits no file-system call (one read per table object, after snapshot.num-retained.min commits)", async () => {
    const calls: string[] = [];
    class CountingFileIO extends LocalFileIO {}
    for (const m of ["readFile", "readFileIfExists", "readFileIfExistsSync", "exists", "fileExistsSync", "listStatus", "stat", "fileSize", "readRange"] as const) {
      const base = (LocalFileIO.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[m];
      (CountingFileIO.prototype as unknown as Record<string, unknown>)[m] = function (this: LocalFileIO, ...a: unknown[]) {
        calls.push(`${m} ${String(a[0]).split("/").slice(-2).join("/")}`);
        return base.apply(this, a);
      };
    }
    const created = await tableWithSnapshots(0);
    const table = await Table.open(created.location, { fileIO: new CountingFileIO() });
    const perCommit: string[][] = [];
    for (let i = 1; i <= 14; i++) {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(i) }) }));
      const messages = await w.prepareCommit(i);
      await w.close();
      calls.length = 0;
      await table.newCommit({ commitUser: "u" }).commit(messages, i);
      perCommit.push(calls.filter((c) => !c.includes("manifest")));
    }
    const expiry = (c: string[]) => c.filter((x) => x.includes("EARLIEST"));
    // commits 1-10: nothing; commit 11 reads the earliest snapshot and the one after it once
    expect(perCommit.slice(1, 10).map(expiry)).toEqual(Array(9).fill([]));
    expect(expiry(perCommit[10]!).length).toBeGreaterThan(0);
    expect(perCommit.slice(11).map(expiry)).toEqual([[], [], []]);
    expect(perCommit[10]!.length).toBeGreaterThan(perCommit[9]!.length);
    expect(perCommit.slice(11).map((c) => c.length)).toEqual(Array(3).fill(perCommit[9]!.length));
    expect(await ids(table)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
  });
});
