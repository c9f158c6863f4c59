// Tags (`tag/tag-<name>`, snapshot JSON as Java's createTag writes it) and the `scan.*`
// time-travel options of a table, as Java Paimon 1.4.2 treats them: snapshot expiry and rollback
// keep the files tags use (rollback deletes the tags of the snapshots it removes), and a batch
// scan reads the snapshot `scan.snapshot-id` / `scan.tag-name` / `scan.timestamp[-millis]` /
// `scan.mode` choose.
import { existsSync, readdirSync } from "node:fs";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RealtimeContext } from "../../src/index.js";
import { snapshotToJson, type Snapshot } from "../../src/spec/snapshot.js";
import type { Table } from "../../src/table/table.js";
import { listTags } from "../../src/table/tags.js";
import { appendIds } from "./helpers.js";
import { cleanupDirs, expectCode, makeTable, readIds, rtBatch, tempDir } from "../realtime/helpers.js";

afterAll(cleanupDirs);

let n = 0;
async function newTable(options: Record<string, string> = {}): Promise<{ catalog: Catalog; table: Table; name: string }> {
  const catalog = await Catalog.open(tempDir("paimon-rt-tags-"));
  await catalog.createDatabase("db");
  const name = `db.t${n++}`;
  const table = await catalog.createTable(name, { fields: [{ name: "id", type: "BIGINT" }], options });
  return { catalog, table, name };
}

const append = appendIds;

/** Writes tag `name` of snapshot `id` as Java's `createTag` does (the snapshot JSON plus the tag fields). */
async function createTag(table: Table, name: string, snapshot: Snapshot): Promise<void> {
  const json = JSON.parse(snapshotToJson(snapshot));
  await table.fileIO.writeFile(`${table.location}/tag/tag-${name}`, JSON.stringify({ ...json, tagCreateTime: [2026, 1, 1, 0, 0, 0], tagTimeRetained: null }, null, 2));
}

const ids = async (table: Table, snapshotId?: number) => {
  const plan = await table.newScan(snapshotId === undefined ? {} : { snapshotId }).plan();
  const t = await table.newRead().toArrow(plan.splits);
  return t.toArray().map((r) => Number(r.toJSON().id)).sort((a, b) => a - b);
};

/** The table with `options` set (ALTER TABLE SET), as a new table object. */
async function withOptions(catalog: Catalog, name: string, options: Record<string, string>): Promise<Table> {
  return catalog.alterTable(name, Object.entries(options).map(([key, value]) => ({ kind: "setOption" as const, key, value })));
}

/** Every data and manifest file the snapshot uses exists. */
async function filesOf(table: Table, s: Snapshot): Promise<string[]> {
  const out = [`${table.location}/manifest/${s.baseManifestList}`, `${table.location}/manifest/${s.deltaManifestList}`];
  for (const m of await table.manifestStore.dataManifests(s)) out.push(`${table.location}/manifest/${m.fileName}`);
  for (const e of await table.manifestStore.liveEntries(s)) out.push(`${table.location}/bucket-${e.bucket}/${e.file.fileName}`);
  return out;
}

describe("snapshot expiry and tags", () => {
  it("keeps the data files and manifests of tagged snapshots, which read exactly afterwards", async () => {
    const { catalog, table, name } = await newTable();
    await append(table, [1]);
    const s2 = await append(table, [2]);
    await createTag(table, "t2", await table.snapshot(s2));
    await append(table, [3], true); // deletes the files of 1 and 2
    await append(table, [4]);
    const tagged = await filesOf(table, await table.snapshot(s2));
    expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(3);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([4]);
    expect(tagged.filter((p) => !existsSync(p))).toEqual([]);
    expect(await ids(await withOptions(catalog, name, { "scan.tag-name": "t2" }))).toEqual([1, 2]);
    expect(await ids(table)).toEqual([3, 4]);
    // orphan cleanup reads the same tags: the tag's manifest lists are orphans only once it is gone
    expect((await table.removeOrphanFiles({ olderThanMs: 0, dryRun: true })).deleted).toEqual([]);
    await table.fileIO.delete(`${table.location}/tag/tag-t2`);
    expect((await table.removeOrphanFiles({ olderThanMs: 0, dryRun: true })).deleted.map((f) => f.replace(/-[0-9a-f-]{36}-/, "-*-"))).toEqual(["manifest/manifest-list-*-0", "manifest/manifest-list-*-2"]);
  });

  it("deletes what only untagged expired snapshots used, and a tag before a later delete keeps its files", async () => {
    const { table } = await newTable();
    await append(table, [1]);
    await append(table, [2], true); // deletes 1's file: no tag holds it
    const s3 = await append(table, [3]);
    await createTag(table, "t3", await table.snapshot(s3));
    await append(table, [5], true); // deletes 2's and 3's files: the tag holds them
    await append(table, [6]);
    const parquet = () => readdirSync(`${table.location}/bucket-0`).filter((f) => f.endsWith(".parquet")).length;
    expect(parquet()).toBe(5);
    await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 });
    expect(parquet()).toBe(4);
    const tagged = await filesOf(table, (await listTags(table.snapshotManager))[0].snapshot);
    expect(tagged.filter((p) => !existsSync(p))).toEqual([]);
  });

  it("primary-key table: a tag before a full compaction keeps the compacted-away files", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-tags-"));
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.pk", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "1" } });
    const put = async (list: Array<[number, string]>) => {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: list.length, data: BigInt64Array.from(list, ([i]) => BigInt(i)) }), v: arrow.vectorFromArray(list.map(([, v]) => v), new arrow.Utf8()).data[0] }));
      const id = await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
      return id!;
    };
    await put([[1, "a"], [2, "b"]]);
    const s2 = await put([[2, "B"], [3, "c"]]);
    await createTag(table, "before-compaction", await table.snapshot(s2));
    const w = await table.newWrite({ commitUser: "c" });
    await w.compact({ full: true });
    await table.newCommit({ commitUser: "c" }).commit(await w.prepareCommit());
    await w.close();
    await put([[1, "A"]]);
    const tagged = await filesOf(table, await table.snapshot(s2));
    await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 });
    expect(tagged.filter((p) => !existsSync(p))).toEqual([]);
    const view = await catalog.alterTable("db.pk", [{ kind: "setOption", key: "scan.tag-name", value: "before-compaction" }]);
    const rows = (await view.newRead().toArrow((await view.newScan().plan()).splits)).toArray().map((r) => [Number(r.id), r.v]);
    expect(rows.sort()).toEqual([[1, "a"], [2, "B"], [3, "c"]]);
  });

  it("refuses a table with long-lived changelogs whose retention no longer outlives the snapshots, changing nothing", async () => {
    // long-lived changelog files (written while decoupled): snapshot expiry would delete the
    // delta files they read and never expire them
    const { table: t3 } = await newTable();
    const first = await append(t3, [1]);
    await append(t3, [2]);
    await t3.fileIO.writeFile(`${t3.location}/changelog/changelog-${first}`, snapshotToJson(await t3.snapshot(first)));
    const e3 = await expectCode(t3.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 }), "UNSUPPORTED");
    expect(e3.message).toMatch(/long-lived changelog/);
    expect((await t3.listSnapshots()).length).toBe(2);
  });
});

describe("rollback and tags", () => {
  it("deletes the tags of newer snapshots and keeps the older tags and their files", async () => {
    const { catalog, table, name } = await newTable();
    const s1 = await append(table, [1]);
    await createTag(table, "t1", await table.snapshot(s1));
    const s2 = await append(table, [2], true);
    const s3 = await append(table, [3]);
    await createTag(table, "t3", await table.snapshot(s3));
    await createTag(table, "t3b", await table.snapshot(s3));
    await append(table, [4]);
    await table.rollbackTo(s2);
    expect((await listTags(table.snapshotManager)).map((t) => t.name)).toEqual(["t1"]);
    expect(await ids(table)).toEqual([2]);
    expect(await ids(await withOptions(catalog, name, { "scan.tag-name": "t1" }))).toEqual([1]);
    // rolling back to the tagged snapshot keeps its tag
    await table.rollbackTo(s1);
    expect((await listTags(table.snapshotManager)).map((t) => t.name)).toEqual(["t1"]);
  });
});

describe("time travel from table options", () => {
  async function threeSnapshots() {
    const t = await newTable();
    const s = [await append(t.table, [1]), await append(t.table, [2]), await append(t.table, [3])];
    return { ...t, s, snaps: await t.table.listSnapshots() };
  }

  it("scan.snapshot-id, scan.tag-name and scan.mode from-snapshot / from-snapshot-full read that snapshot", async () => {
    const { catalog, name, s, table } = await threeSnapshots();
    expect(await ids(await withOptions(catalog, name, { "scan.snapshot-id": String(s[0]) }))).toEqual([1]);
    const full = await withOptions(catalog, name, { "scan.mode": "from-snapshot-full" });
    expect(await ids(full)).toEqual([1]);
    expect((await full.newScan().plan()).snapshotId).toBe(s[0]);
    // an explicit snapshot id wins
    expect(await ids(full, s[1])).toEqual([1, 2]);
    await createTag(table, "v2", await table.snapshot(s[1]));
    const byTag = await catalog.alterTable(name, [
      { kind: "removeOption", key: "scan.snapshot-id" },
      { kind: "setOption", key: "scan.mode", value: "from-snapshot" },
      { kind: "setOption", key: "scan.tag-name", value: "v2" },
    ]);
    expect(await ids(byTag)).toEqual([1, 2]);
    const latest = await catalog.alterTable(name, [
      { kind: "removeOption", key: "scan.tag-name" },
      { kind: "setOption", key: "scan.mode", value: "LATEST" },
    ]);
    expect(await ids(latest)).toEqual([1, 2, 3]);
  });

  it("scan.timestamp-millis and scan.timestamp read the newest snapshot at or before the time", async () => {
    const { catalog, name, snaps } = await threeSnapshots();
    const at = (millis: number) => withOptions(catalog, name, { "scan.timestamp-millis": String(millis) });
    expect(await ids(await at(snaps[1].timeMillis))).toEqual([1, 2]);
    expect(await ids(await at(snaps[2].timeMillis + 1000))).toEqual([1, 2, 3]);
    const early = await expectCode((await at(snaps[0].timeMillis - 1)).newScan().plan(), "NOT_FOUND");
    expect(early.message).toMatch(/no snapshot is earlier than or equal to scan.timestamp-millis/);
    // scan.timestamp: local time of this process, as Java's JVM default zone
    const d = new Date(snaps[1].timeMillis);
    const p = (v: number, w = 2) => String(v).padStart(w, "0");
    const text = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
    const byText = await catalog.alterTable(name, [
      { kind: "removeOption", key: "scan.timestamp-millis" },
      { kind: "setOption", key: "scan.timestamp", value: text },
    ]);
    expect(await ids(byText)).toEqual([1, 2]);
  });

  it("scan.mode compacted-full reads the newest compaction snapshot", async () => {
    const { catalog, name, table } = await newTable({ "bucket": "1", "bucket-key": "id" });
    await append(table, [1]);
    await append(table, [2]);
    const w = await table.newWrite({ commitUser: "c" });
    await w.compact({ full: true });
    const compacted = await table.newCommit({ commitUser: "c" }).commit(await w.prepareCommit());
    await w.close();
    expect((await table.snapshot(compacted!)).commitKind).toBe("COMPACT");
    await append(table, [3]);
    const t = await withOptions(catalog, name, { "scan.mode": "compacted-full" });
    expect((await t.newScan().plan()).snapshotId).toBe(compacted);
    expect(await ids(t)).toEqual([1, 2]);
  });

  it("refuses what it does not honour at newScan (UNSUPPORTED naming the option) and bad values (INVALID_ARGUMENT)", async () => {
    const { catalog, name } = await threeSnapshots();
    const scan = async (options: Record<string, string>) => {
      const t = await withOptions(catalog, name, options);
      const e = (() => {
        try {
          t.newScan();
        } catch (error) {
          return error as Error & { code?: string };
        }
        return null;
      })();
      // reset for the next case
      await catalog.alterTable(name, Object.keys(options).map((key) => ({ kind: "removeOption" as const, key })));
      return e === null ? "ok" : `${e.code}: ${e.message.replace(/^scan of table db\.t\d+: /, "")}`;
    };
    // incremental reads are planned (test/table/table-copy.test.ts); auto-tag ranges are not
    expect(await scan({ "incremental-between": "1,2" })).toBe("ok");
    expect(await scan({ "incremental-between-timestamp": "1,2" })).toBe("ok");
    expect(await scan({ "incremental-to-auto-tag": "2024-01-01" })).toBe("UNSUPPORTED: option incremental-to-auto-tag=2024-01-01 is not supported");
    expect(await scan({ "scan.watermark": "5" })).toBe("UNSUPPORTED: option scan.watermark=5 is not supported");
    expect(await scan({ "scan.version": "1" })).toMatch(/^UNSUPPORTED: option scan.version=1/);
    expect(await scan({ "scan.mode": "incremental" })).toBe("INVALID_ARGUMENT: scan.mode incremental needs exactly one of incremental-between, incremental-between-timestamp, incremental-to-auto-tag");
    // creation-time scans (Java SchemaValidation.validateStartupMode; rows: test/interop/creation-time-interop.test.ts)
    expect(await scan({ "scan.file-creation-time-millis": "1" })).toBe("ok");
    expect(await scan({ "scan.creation-time-millis": "1" })).toBe("ok");
    expect(await scan({ "scan.mode": "from-creation-timestamp", "scan.creation-time-millis": "1" })).toBe("ok");
    expect(await scan({ "scan.mode": "latest", "scan.creation-time-millis": "x" })).toBe("ok"); // (read by from-creation-timestamp only)
    expect(await scan({ "scan.file-creation-time-millis": "1", "scan.timestamp": "2024-01-01" })).toBe("INVALID_ARGUMENT: scan.file-creation-time-millis cannot be set with scan.mode from-timestamp and scan.timestamp");
    expect(await scan({ "scan.mode": "from-file-creation-time", "scan.file-creation-time-millis": "1", "scan.tag-name": "t" })).toBe("INVALID_ARGUMENT: scan.tag-name cannot be set with scan.mode from-file-creation-time and scan.file-creation-time-millis");
    expect(await scan({ "scan.mode": "from-file-creation-time" })).toBe("INVALID_ARGUMENT: scan.mode from-file-creation-time needs exactly one of scan.file-creation-time-millis");
    expect(await scan({ "scan.file-creation-time-millis": "1", "incremental-between": "1,2" })).toBe("INVALID_ARGUMENT: incremental-between cannot be set with scan.mode from-file-creation-time");
    expect(await scan({ "scan.mode": "from-creation-timestamp" })).toBe("INVALID_ARGUMENT: scan.creation-time-millis must be set with scan.mode from-creation-timestamp");
    expect(await scan({ "scan.mode": "from-creation-timestamp", "scan.creation-time-millis": "1", "scan.snapshot-id": "1" })).toBe("INVALID_ARGUMENT: scan.snapshot-id must not be set with scan.mode from-creation-timestamp");
    expect(await scan({ "scan.creation-time-millis": "1.5" })).toBe("INVALID_ARGUMENT: scan.creation-time-millis=1.5 is not an integer");
    expect(await scan({ "scan.mode": "latest", "scan.file-creation-time-millis": "1" })).toBe("INVALID_ARGUMENT: scan.file-creation-time-millis must not be set with scan.mode latest");
    expect(await scan({ "scan.mode": "sometimes" })).toMatch(/^INVALID_ARGUMENT: scan.mode=sometimes is not one of/);
    expect(await scan({ "scan.snapshot-id": "two" })).toBe("INVALID_ARGUMENT: scan.snapshot-id=two is not an integer");
    expect(await scan({ "scan.snapshot-id": "0" })).toBe("INVALID_ARGUMENT: scan.snapshot-id=0 is not a positive snapshot id");
    expect(await scan({ "scan.snapshot-id": "1", "scan.tag-name": "x" })).toBe("INVALID_ARGUMENT: scan.mode from-snapshot needs exactly one of scan.snapshot-id, scan.tag-name, scan.watermark (scan.snapshot-id and scan.tag-name are set)");
    expect(await scan({ "scan.snapshot-id": "1", "scan.timestamp-millis": "1" })).toBe("INVALID_ARGUMENT: scan.snapshot-id cannot be set with scan.mode from-timestamp and scan.timestamp-millis");
    expect(await scan({ "scan.mode": "latest-full", "scan.snapshot-id": "1" })).toBe("INVALID_ARGUMENT: scan.snapshot-id must not be set with scan.mode latest-full");
    expect(await scan({ "scan.mode": "from-timestamp" })).toBe("INVALID_ARGUMENT: scan.mode from-timestamp needs exactly one of scan.timestamp-millis, scan.timestamp");
    expect(await scan({ "scan.timestamp": "2024-02-30 10:00:00" })).toBe("INVALID_ARGUMENT: scan.timestamp=2024-02-30 10:00:00 is not a timestamp like 2024-01-31 12:00:00");
    for (const bad of ["../../x", "a/b", "a\\b", "..", ".", " ", "a\u0000b"]) {
      expect(await scan({ "scan.tag-name": bad })).toMatch(new RegExp(`^INVALID_ARGUMENT: scan.tag-name: tag name '.*' (is blank|contains|is a relative)`));
    }
    expect(await scan({ "consumer-id": "c1" })).toBe("ok"); // a batch scan ignores consumers, as Java's
  });

  it("a missing snapshot or tag is NOT_FOUND when the scan plans", async () => {
    const { catalog, name } = await threeSnapshots();
    const e = await expectCode((await withOptions(catalog, name, { "scan.snapshot-id": "9" })).newScan().plan(), "NOT_FOUND");
    expect(e.message).toMatch(/scan.snapshot-id 9 does not exist or has expired \(retained snapshots are 1..3\)/);
    await catalog.alterTable(name, [{ kind: "removeOption", key: "scan.snapshot-id" }]);
    const t = await withOptions(catalog, name, { "scan.tag-name": "nope" });
    expect((await expectCode(t.newScan().plan(), "NOT_FOUND")).message).toMatch(/tag .nope. does not exist/);
  });
});

describe("time travel from table options in real-time scans", () => {
  it("follows the rules of an explicit snapshot id: not behind the context, retained snapshots only", async () => {
    const base = await makeTable({ bucket: 1 });
    const catalog = await Catalog.open(base.location.replace(/\/db\.db\/[^/]+$/, ""));
    const table = await catalog.alterTable(base.identifier, [{ kind: "setOption", key: "scan.tag-name", value: "t" }]);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const put = async (from: number, to: number) => w.write(rtBatch(Array.from({ length: to - from }, (_, i) => from + i)), { partition: {}, bucket: 0 });
    await put(0, 4);
    const s1 = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await put(4, 8);
    const s2 = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    await w.refreshCommittedSnapshot(s2);
    await put(8, 10); // memory tail
    await createTag(table, "t", await table.snapshot(s2));
    expect(await readIds(table, { ctx })).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await createTag(table, "t", await table.snapshot(s1));
    const viaTag = await expectCode(readIds(table, { ctx }), "INVALID_ARGUMENT");
    const viaId = await expectCode(readIds(table, { ctx, snapshotId: s1 }), "INVALID_ARGUMENT");
    expect(viaTag.message).toBe(viaId.message);
    expect(viaTag.message).toMatch(/is behind the real-time context's committed offset 8/);
    // without the context: the tag's snapshot
    expect(await readIds(table)).toEqual([0, 1, 2, 3]);
    // a tag whose snapshot expired: only without the context
    await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 });
    expect((await expectCode(readIds(table, { ctx }), "NOT_FOUND")).message).toMatch(/snapshot 1 of tag 't' has expired/);
    expect(await readIds(table)).toEqual([0, 1, 2, 3]);
    await w.close().catch(() => undefined); // (the memory tail was never committed)
  });
});
