// Tags the commit creates and expires (Java Paimon 1.4.2's `TableCommitImpl.maintain` through
// `TagAutoManager`: `TagAutoCreation`, `TagPeriodHandler`, `TagTimeExpire`, and Flink's
// `TagBatchCreation` after a batch write), under a clock the test sets (fake Date): exact tag
// names, which snapshot each holds, and exactly when tags expire.
import { readFileSync, utimesSync } from "node:fs";
import * as arrow from "apache-arrow";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { Table as TableClass } from "../../src/table/table.js";
import { RealtimeContext } from "../../src/realtime/context.js";
import { snapshotToJson } from "../../src/spec/snapshot.js";
import type { Table } from "../../src/table/table.js";
import { appendIds } from "./helpers.js";
import { cleanupDirs, commitRealtime, expectCode, makeTable, rtBatch, tempDir } from "../realtime/helpers.js";

afterAll(cleanupDirs);
afterEach(() => {
  vi.useRealTimers();
});

let n = 0;
const catalogs = new Map<Table, { catalog: Catalog; name: string }>();
async function newTable(options: Record<string, string>): Promise<Table> {
  const catalog = await Catalog.open(tempDir("paimon-rt-tag-auto-"));
  await catalog.createDatabase("db");
  const name = `db.t${n++}`;
  const table = await catalog.createTable(name, { fields: [{ name: "id", type: "BIGINT" }], options });
  catalogs.set(table, { catalog, name });
  return table;
}
/** The table after ALTER TABLE RESET `key`. */
async function withoutOption(table: Table, key: string): Promise<Table> {
  const { catalog, name } = catalogs.get(table)!;
  return catalog.alterTable(name, [{ kind: "removeOption", key }]);
}

/** Sets the clock to `iso` (UTC) and appends one row with a commit of its own (a new commit object each time). */
async function commitAt(table: Table, iso: string, id = 1): Promise<number> {
  vi.setSystemTime(new Date(iso));
  return appendIds(table, [id]);
}

const tags = async (table: Table) => Object.fromEntries(await table.listTags());
const utc = { "sink.process-time-zone": "UTC" };

describe("automatic tag creation (tag.automatic-creation)", () => {
  it("process-time, daily: the first commit tags the day before; then the first snapshot of each new day tags the day before it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "process-time", ...utc });
    await commitAt(table, "2030-01-01T10:00:00Z");
    expect(await tags(table)).toEqual({ "2029-12-31": 1 });
    await commitAt(table, "2030-01-01T23:59:59Z");
    await commitAt(table, "2030-01-02T00:00:00Z"); // the day after 2030-01-01 has begun
    await commitAt(table, "2030-01-02T08:00:00Z");
    await commitAt(table, "2030-01-05T08:00:00Z"); // days without commits get no tag
    expect(await tags(table)).toEqual({ "2029-12-31": 1, "2030-01-01": 3, "2030-01-04": 5 });
    // without a retention the file is the plain snapshot, as Java writes it
    expect(readFileSync(`${table.location}/tag/tag-2030-01-01`, "utf8")).toBe(snapshotToJson(await table.snapshot(3)));
  });

  it("hourly with tag.creation-delay and tag.period-formatter; tag.num-retained-max keeps the newest auto tags, other tags stay", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "process-time", "tag.creation-period": "hourly", "tag.creation-delay": "10 min", "tag.period-formatter": "without_dashes_and_spaces", "tag.num-retained-max": "2", ...utc });
    await commitAt(table, "2030-01-01T10:05:00Z"); // 1: the first tag needs no delay
    await commitAt(table, "2030-01-01T10:30:00Z"); // 2
    await table.createTag("manual", 2);
    await commitAt(table, "2030-01-01T11:09:59Z"); // 3: hour 10 has ended, but not 10 min ago
    await commitAt(table, "2030-01-01T11:10:00Z"); // 4: now it has
    expect(await tags(table)).toEqual({ "2030010109": 1, manual: 2, "2030010110": 4 });
    await commitAt(table, "2030-01-01T13:20:00Z"); // 5: a third auto tag; the oldest goes
    expect(await tags(table)).toEqual({ manual: 2, "2030010110": 4, "2030010112": 5 });
  });

  it("names periods as Java: two-hours, tag.creation-period-duration, the other formatters", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const cases: Array<[Record<string, string>, string]> = [
      [{ "tag.creation-period": "two-hours" }, "2030-01-01 02"],
      [{ "tag.creation-period": "two-hours", "tag.period-formatter": "without_dashes" }, "2030-01-01 02"], // two-hours has one format
      [{ "tag.creation-period": "Hourly", "tag.period-formatter": "WITHOUT_DASHES" }, "20300101 04"], // enums match any case, as Java's
      [{ "tag.creation-period": "hourly" }, "2030-01-01 04"],
      [{ "tag.period-formatter": "without_dashes" }, "20291231"],
      [{ "tag.creation-period-duration": "30 min", "tag.creation-period": "hourly" }, "203001010500"], // the duration wins
      [{ "tag.creation-period-duration": "1 d" }, "202912310000"],
    ];
    for (const [options, name] of cases) {
      const table = await newTable({ "tag.automatic-creation": "process-time", ...utc, ...options });
      await commitAt(table, "2030-01-01T05:40:00Z");
      expect({ options, tags: await tags(table) }).toEqual({ options, tags: { [name]: 1 } });
    }
  });

  it("takes the snapshot's time in sink.process-time-zone: region ids and fixed offsets", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const cases: Array<[string, string, string]> = [
      ["Asia/Shanghai", "daily", "2030-01-01"], // 2030-01-02 04:00 there
      ["GMT-08:00", "hourly", "2030-01-01 11"], // 12:00 there
      ["+05:30", "hourly", "2030-01-02 00"], // 01:30 there
      ["America/New_York", "hourly", "2030-06-30 23"], // daylight saving time: 00:xx there
    ];
    for (const [zone, period, name] of cases) {
      const table = await newTable({ "tag.automatic-creation": "process-time", "tag.creation-period": period, "sink.process-time-zone": zone });
      await commitAt(table, zone === "America/New_York" ? "2030-07-01T04:30:00Z" : "2030-01-01T20:00:00Z");
      expect({ zone, tags: await tags(table) }).toEqual({ zone, tags: { [name]: 1 } });
    }
  });

  it("tag.automatic-completion tags the missing periods one by one instead of skipping to the newest", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    for (const completion of [false, true]) {
      const table = await newTable({ "tag.automatic-creation": "process-time", "tag.automatic-completion": String(completion), ...utc });
      await commitAt(table, "2030-01-01T10:00:00Z");
      await commitAt(table, "2030-01-04T10:00:00Z");
      await commitAt(table, "2030-01-04T11:00:00Z");
      expect(await tags(table)).toEqual(completion ? { "2029-12-31": 1, "2030-01-01": 2, "2030-01-02": 3 } : { "2029-12-31": 1, "2030-01-03": 2 });
    }
  });

  it("walks every snapshot from the earliest (write-only commits made none), then continues the series from the newest auto tag", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "process-time", "tag.creation-period": "hourly", "write-only": "true", ...utc });
    // write-only: the commit makes no tags (Java: no TagAutoManager)
    await commitAt(table, "2030-01-01T10:00:00Z");
    await commitAt(table, "2030-01-01T11:00:00Z");
    await commitAt(table, "2030-01-01T12:00:00Z");
    expect(await tags(table)).toEqual({});
    expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 2, retainMin: 1, olderThanMs: 0 })).toBe(1);
    const tagging = await withoutOption(table, "write-only");
    // snapshot 1 expired: the walk starts at the earliest, 2, which tags hour 10, then 3 (hour 11), then 4
    await commitAt(tagging, "2030-01-01T13:00:00Z");
    expect(await tags(tagging)).toEqual({ "2030-01-01 10": 2, "2030-01-01 11": 3, "2030-01-01 12": 4 });
    // a later commit object reads the series from the newest auto tag
    await commitAt(tagging, "2030-01-01T13:30:00Z");
    await commitAt(tagging, "2030-01-01T14:00:00Z");
    expect(await tags(tagging)).toEqual({ "2030-01-01 10": 2, "2030-01-01 11": 3, "2030-01-01 12": 4, "2030-01-01 13": 6 });
  });

  it("watermark: tags by the snapshot's watermark in sink.watermark-time-zone (UTC by default); snapshots without one make none", async () => {
    const ctx = await RealtimeContext.create();
    const table = await makeTable({ "tag.automatic-creation": "watermark", "tag.creation-period": "hourly" });
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1]), { bucket: 0 });
    expect(await commitRealtime(table, w, 1)).toBe(1); // no watermark: no tag
    expect(await tags(table)).toEqual({});
    await w.write(rtBatch([2]), { bucket: 0 });
    const at = (iso: string) => BigInt(Date.parse(iso));
    expect(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(2), 2, at("2030-01-01T10:15:00Z"))).toBe(2);
    await w.write(rtBatch([3]), { bucket: 0 });
    expect(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(3), 3, at("2030-01-01T10:59:59Z"))).toBe(3);
    await w.write(rtBatch([4]), { bucket: 0 });
    expect(await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(4), 4, at("2030-01-01T11:00:00Z"))).toBe(4);
    await w.close();
    await ctx.close();
    expect(await tags(table)).toEqual({ "2030-01-01 09": 2, "2030-01-01 10": 4 });
    const shanghai = await makeTable({ "tag.automatic-creation": "watermark", "sink.watermark-time-zone": "Asia/Shanghai" });
    const ctx2 = await RealtimeContext.create();
    const w2 = await shanghai.newWrite({ commitUser: "u", realtime: ctx2 });
    await w2.write(rtBatch([0]), { bucket: 0 });
    await shanghai.newCommit({ commitUser: "u" }).commitWithProgress(await w2.prepareCommitWithProgress(1), 1, at("2030-01-01T20:00:00Z"));
    await w2.close();
    await ctx2.close();
    expect(await tags(shanghai)).toEqual({ "2030-01-01": 1 });
  });

  it("a manual tag with an auto-tag name may not go to an auto-tagged snapshot (Java validateNoAutoTag)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "process-time", ...utc });
    await commitAt(table, "2030-01-01T10:00:00Z");
    await commitAt(table, "2030-01-01T11:00:00Z");
    expect((await expectCode(table.createTag("2030-05-05", 1), "ALREADY_EXISTS")).message).toBe("createTag of db.t" + (n - 1) + ": snapshot 1 is already auto-tagged with [2029-12-31]");
    await expectCode(table.replaceTag("2029-12-31", 1), "ALREADY_EXISTS");
    await table.createTag("other", 1); // not an auto-tag name
    await table.createTag("2030-05-05", 2);
    expect(await tags(table)).toEqual({ "2029-12-31": 1, other: 1, "2030-05-05": 2 });
  });

  it("bad tag options fail the first commit with INVALID_ARGUMENT naming the option, before anything is committed", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ "tag.automatic-creation": "hourly" }, "option tag.automatic-creation: 'hourly' is not one of none, process-time, watermark, batch"],
      [{ "tag.automatic-creation": "process-time", "tag.creation-period": "weekly" }, "option tag.creation-period: 'weekly' is not one of daily, hourly, two-hours"],
      [{ "tag.automatic-creation": "process-time", "tag.period-formatter": "iso" }, "option tag.period-formatter: 'iso' is not one of with_dashes, without_dashes, without_dashes_and_spaces"],
      [{ "tag.automatic-creation": "process-time", "tag.creation-period": "hourly", "tag.creation-delay": "1 h" }, "option tag.creation-delay: '1 h' must be shorter than one period of tag.creation-period (3600000 ms)"],
      [{ "tag.automatic-creation": "watermark", "tag.creation-period-duration": "0 s" }, "option tag.creation-delay: '0 ms' must be shorter than one period of tag.creation-period-duration (0 ms)"],
      [{ "tag.automatic-creation": "process-time", "sink.process-time-zone": "Mars/Olympus" }, "option sink.process-time-zone: 'Mars/Olympus' is not a time zone id"],
      [{ "tag.automatic-creation": "batch", "tag.time-expire-enabled": "yes" }, "option tag.time-expire-enabled: 'yes' is not a boolean"],
      [{ "tag.default-time-retained": "forever" }, "option tag.default-time-retained: cannot parse duration 'forever'"],
    ];
    for (const [options, message] of cases) {
      const table = await newTable(options);
      const error = await expectCode(appendIds(table, [1]), "INVALID_ARGUMENT");
      expect({ options, message: error.message }).toEqual({ options, message });
      expect(await table.listSnapshots()).toEqual([]);
    }
  });
});

describe("tables without tag options", () => {
  it("their commits touch no tag file (the tag maintenance is not loaded); with the options they do", async () => {
    const touched: string[] = [];
    class RecordingFileIO extends LocalFileIO {}
    for (const m of ["readFile", "readFileIfExists", "exists", "listStatus", "stat", "writeFileAtomicNoReplace", "delete"] as const) {
      const base = (LocalFileIO.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[m];
      (RecordingFileIO.prototype as unknown as Record<string, unknown>)[m] = function (this: LocalFileIO, path: string, ...rest: unknown[]) {
        if (/[/\\]tag([/\\]|$)/.test(path)) touched.push(`${m} ${path.slice(path.lastIndexOf("tag"))}`);
        return base.call(this, path, ...rest);
      };
    }
    const touches = async (options: Record<string, string>) => {
      const created = await newTable(options);
      await appendIds(created, [0]);
      await created.createTag("manual", 1);
      const table = await TableClass.open(created.location, { fileIO: new RecordingFileIO() });
      touched.length = 0;
      await appendIds(table, [1]);
      await appendIds(table, [2]);
      return [...touched];
    };
    expect(await touches({})).toEqual([]);
    expect(await touches({ "tag.num-retained-max": "1", "tag.period-formatter": "without_dashes", "tag.time-expire-enabled": "true" })).toEqual([]);
    expect((await touches({ "tag.default-time-retained": "1 h" })).length).toBeGreaterThan(0);
  });
});

describe("tag expiry by retention and batch tags", () => {
  it("a commit deletes the tags whose tagCreateTime + tagTimeRetained has passed (not at that instant); tags without one stay", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "process-time", "tag.creation-period": "hourly", "tag.default-time-retained": "90 min", ...utc });
    await commitAt(table, "2030-01-01T10:00:00Z"); // tags hour 9, created 10:00
    await table.createTag("short", 1, { timeRetainedMs: 60_000 });
    const plain = await table.createTag("kept", 1, { timeRetainedMs: undefined });
    expect(plain.id).toBe(1);
    await table.replaceTag("kept", 1); // replaced without a retention: plain snapshot
    expect(JSON.parse(readFileSync(`${table.location}/tag/tag-2030-01-01 09`, "utf8"))).toMatchObject({ tagCreateTime: [2030, 1, 1, 10, 0], tagTimeRetained: 5400 });
    await commitAt(table, "2030-01-01T10:01:00Z"); // "short" reaches its retention exactly: stays
    expect(await tags(table)).toEqual({ "2030-01-01 09": 1, kept: 1, short: 1 });
    await commitAt(table, "2030-01-01T11:00:00Z"); // tags hour 10; "short" has passed it
    expect(await tags(table)).toEqual({ "2030-01-01 09": 1, kept: 1, "2030-01-01 10": 3 });
    await commitAt(table, "2030-01-01T11:30:00Z");
    expect(await tags(table)).toEqual({ "2030-01-01 09": 1, kept: 1, "2030-01-01 10": 3 });
    await commitAt(table, "2030-01-01T11:30:00.001Z");
    expect(await tags(table)).toEqual({ kept: 1, "2030-01-01 10": 3 });
  });

  it("tag.time-expire-enabled=false keeps expired tags; tag.default-time-retained alone expires them", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const off = await newTable({ "tag.default-time-retained": "1 min", "tag.time-expire-enabled": "false" });
    const on = await newTable({ "tag.default-time-retained": "1 min" });
    for (const table of [off, on]) {
      await commitAt(table, "2030-01-01T10:00:00Z");
      await table.createTag("t", 1);
      await commitAt(table, "2030-01-01T10:02:00Z");
    }
    expect(await tags(off)).toEqual({ t: 1 });
    expect(await tags(on)).toEqual({});
  });

  it("batch: a batch commit tags the latest snapshot batch-write-<date> (replacing it), streaming commits do not; num-retained-max counts every tag", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "batch", "tag.num-retained-max": "3", "sink.process-time-zone": "Asia/Shanghai" });
    await commitAt(table, "2030-01-01T10:00:00Z");
    await commitAt(table, "2030-01-01T15:59:59Z"); // still 2030-01-01 in Shanghai: the tag moves to 2
    expect(await tags(table)).toEqual({ "batch-write-2030-01-01": 2 });
    await table.createTag("manual-a", 1);
    await table.createTag("manual-b", 1);
    // which of two tags of a snapshot is older is told by the files' modification times
    utimesSync(`${table.location}/tag/tag-manual-a`, new Date("2030-01-01T12:00:00Z"), new Date("2030-01-01T12:00:00Z"));
    utimesSync(`${table.location}/tag/tag-manual-b`, new Date("2030-01-01T12:00:01Z"), new Date("2030-01-01T12:00:01Z"));
    // a streaming commit (with an identifier) is not a batch write
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.of(9n) }) }));
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(7), 7);
    await w.close();
    expect(await tags(table)).toEqual({ "manual-a": 1, "manual-b": 1, "batch-write-2030-01-01": 2 });
    // 2030-01-02 there: four tags, one too many; of snapshot 1's two the older file goes
    await commitAt(table, "2030-01-01T16:30:00Z");
    expect(await tags(table)).toEqual({ "manual-b": 1, "batch-write-2030-01-01": 2, "batch-write-2030-01-02": 4 });
    await commitAt(table, "2030-01-02T16:30:00Z");
    expect(await tags(table)).toEqual({ "batch-write-2030-01-01": 2, "batch-write-2030-01-02": 4, "batch-write-2030-01-03": 5 });
  });

  it("batch: tag.batch.customized-name names the tag", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const table = await newTable({ "tag.automatic-creation": "batch", "tag.batch.customized-name": "nightly", "tag.default-time-retained": "1 d" });
    await commitAt(table, "2030-01-01T10:00:00Z");
    await commitAt(table, "2030-01-01T11:00:00Z");
    expect(await tags(table)).toEqual({ nightly: 2 });
    expect(JSON.parse(readFileSync(`${table.location}/tag/tag-nightly`, "utf8"))).toMatchObject({ id: 2, tagCreateTime: [2030, 1, 1, 11, 0], tagTimeRetained: 86400 });
  });
});
