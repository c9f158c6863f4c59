// Partition expiry as Java Paimon 1.4.2's commit runs it (PartitionExpire after every commit,
// `partition.expiration-time`): values-time with the default formatter and with
// pattern + formatter, update-time, the check interval, write-only, unparsable values kept,
// max-num / batch-size, real-time progress of exactly the dropped partitions reset, bad options.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import { Table } from "../../src/table/table.js";
import { compileFormatter, partitionTime } from "../../src/commit/partition-expire.js";
import { main } from "../../src/cli/main.js";
import { tempDirs } from "../support/temp-dirs.js";
import { expectCode, makeTable as makeRealtimeTable, rtBatch, range, readIds as readRealtimeIds } from "../realtime/helpers.js";

const tempDir = tempDirs("paimon-rt-partition-expire-");

afterEach(() => {
  vi.useRealTimers();
});

type Row = { id: number; dt: string | null; hour?: string };

async function create(options: Record<string, string>, keys: string[] = ["dt"]): Promise<{ table: Table; catalog: Catalog }> {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  const fields = [{ name: "id", type: "INT" }, { name: "dt", type: "STRING" }, ...(keys.includes("hour") ? [{ name: "hour", type: "STRING" }] : [])];
  const table = await catalog.createTable("db.t", { fields, partitionKeys: keys, options: { bucket: "1", "bucket-key": "id", ...options } });
  return { table, catalog };
}

/** Writes `rows` and commits them as `user` (identifier `identifier`); returns the snapshot id. */
async function put(table: Table, rows: Row[], identifier?: number, user = "u"): Promise<number> {
  const columns: Record<string, arrow.Data> = {
    id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.from(rows.map((r) => r.id)) }),
    dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0]!,
  };
  if (table.partitionFields.some((f) => f.name === "hour")) columns.hour = arrow.vectorFromArray(rows.map((r) => r.hour ?? null), new arrow.Utf8()).data[0]!;
  const w = await table.newWrite({ commitUser: user });
  await w.write(new arrow.RecordBatch(columns));
  const id = await table.newCommit({ commitUser: user }).commit(await w.prepareCommit(identifier), identifier);
  await w.close();
  return id!;
}

/** The partitions left, as "dt" or "dt/hour", sorted. */
async function partitionsLeft(table: Table): Promise<string[]> {
  const t = await table.newRead().toArrow((await table.newScan().plan()).splits);
  const dt = [...t.getChild("dt")!.toArray()] as Array<string | null>;
  const hour = t.getChild("hour") ? ([...t.getChild("hour")!.toArray()] as string[]) : null;
  return [...new Set(dt.map((d, i) => (hour ? `${d}/${hour[i]}` : String(d))))].sort();
}

const kinds = async (table: Table) => (await table.listSnapshots()).map((s) => s.commitKind);

describe("partition time as Java's PartitionTimeExtractor (1.4.2) extracts it", () => {
  // expected: what Java 1.4.2's PartitionTimeExtractor(null, formatter).extract returned for each
  // value (ERR: DateTimeParseException, the partition is kept)
  const cases: Array<[string | null, string, string]> = [
    ["yyyyMMdd", "20240230", "2024-02-29T00:00:00.000Z"],
    ["yyyyMMdd", "20240101", "2024-01-01T00:00:00.000Z"],
    ["yyyyMMdd", "2024011", "ERR"],
    ["yyyyMMdd", "202401015", "ERR"],
    ["yyyyMMdd", "120240101", "ERR"],
    ["yyyyMMddHH", "2024010112", "2024-01-01T12:00:00.000Z"],
    ["yyyy-MM-dd HH:mm:ss", "2024-01-01 24:00:00", "2024-01-02T00:00:00.000Z"],
    ["yyyy-MM-dd HH:mm:ss", "2024-01-01 24:00:01", "ERR"],
    ["yyyy-MM-dd HH:mm", "2024-13-01 10:00", "ERR"],
    ["yyyy-MM-dd", "2024-02-31", "2024-02-29T00:00:00.000Z"],
    ["yyyyMMdd HH:mm:ss", "20240101 05:00:00", "2024-01-01T05:00:00.000Z"],
    ["y-M-d", "2024-1-5", "2024-01-05T00:00:00.000Z"],
    ["yyyy-MM-dd mm", "2024-01-05 30", "2024-01-05T00:00:00.000Z"],
    ["yy-MM-dd", "24-03-04", "2024-03-04T00:00:00.000Z"],
    ["yyyy/MM/dd'T'HH", "2024/03/04T07", "2024-03-04T07:00:00.000Z"],
    ["yyyy-MM-dd HH:mm:ss.SSS", "2024-03-04 07:08:09.123", "2024-03-04T07:08:09.123Z"],
    ["yyyy-MM-dd", "0000-01-01", "ERR"],
    [null, "2024-1-2", "2024-01-02T00:00:00.000Z"],
    [null, "2024-01-01 10:00", "ERR"],
    [null, "2024-13-40", "2025-02-09T00:00:00.000Z"],
    [null, "2024-01-01 25:61:00.5", "2024-01-02T02:01:00.500Z"],
    [null, "2024-02-30", "2024-03-01T00:00:00.000Z"],
    [null, "2024-01-01 1:2:3", "2024-01-01T01:02:03.000Z"],
  ];
  it.each(cases)("formatter %s, value %s: %s", (formatter, value, expected) => {
    const t = partitionTime(["dt"], [value], null, formatter === null ? null : compileFormatter(formatter));
    expect(t === null ? "ERR" : new Date(t).toISOString()).toBe(expected);
  });

  it("any valid date-time, written by a formatter or the default format, is read back as that wall-clock time", () => {
    const pad = (n: number, w: number) => String(n).padStart(w, "0");
    const compact = compileFormatter("yyyyMMdd HH:mm:ss");
    fc.assert(
      fc.property(fc.date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), (d) => {
        const t = Math.floor(d.getTime() / 1000) * 1000;
        const x = new Date(t);
        const [y, mo, da, h, mi, se] = [x.getUTCFullYear(), x.getUTCMonth() + 1, x.getUTCDate(), x.getUTCHours(), x.getUTCMinutes(), x.getUTCSeconds()];
        expect(partitionTime(["dt"], [`${y}${pad(mo, 2)}${pad(da, 2)} ${pad(h, 2)}:${pad(mi, 2)}:${pad(se, 2)}`], null, compact)).toBe(t);
        expect(partitionTime(["dt"], [`${y}-${mo}-${da} ${h}:${mi}:${se}`], null, null)).toBe(t);
        expect(partitionTime(["dt"], [`${y}-${pad(mo, 2)}-${pad(da, 2)}`], null, null)).toBe(Date.UTC(y, mo - 1, da));
      }),
    );
  });

  it("a pattern replaces each $key by its value; a null value keeps the partition", () => {
    const f = compileFormatter("yyyyMMdd HH:mm:ss");
    expect(new Date(partitionTime(["dt", "hour"], ["20240101", "07"], "$dt $hour:00:00", f)!).toISOString()).toBe("2024-01-01T07:00:00.000Z");
    expect(partitionTime(["dt", "hour"], ["20240101", null], "$dt 00:00:00", f)).toBeNull();
    expect(partitionTime(["dt", "hour"], [null, "07"], null, null)).toBeNull();
  });
});

describe("partition expiry after every commit", () => {
  it("values-time with the default formatter drops the partitions older than the expiration time; unparsable and null values stay", async () => {
    const { table } = await create({ "partition.expiration-time": "1 d" });
    const values = ["2020-01-01", "2020-1-2", "2020-01-03 10:00:00", "2020-01-04 10:00", "2999-01-01", "not-a-date", null];
    const s1 = await put(table, values.map((dt, id) => ({ id, dt })), 7);
    // the commit, then one OVERWRITE snapshot of the same user and identifier dropping three partitions
    expect(await kinds(table)).toEqual(["APPEND", "OVERWRITE"]);
    const drop = await table.snapshot(s1 + 1);
    expect([drop.commitUser, drop.commitIdentifier]).toEqual(["u", 7n]);
    expect(await partitionsLeft(table)).toEqual(["2020-01-04 10:00", "2999-01-01", "not-a-date", "null"]);
  });

  it("values-time with timestamp-pattern and timestamp-formatter over two partition keys", async () => {
    const { table } = await create(
      { "partition.expiration-time": "2 h", "partition.timestamp-pattern": "$dt $hour:00:00", "partition.timestamp-formatter": "yyyyMMdd HH:mm:ss" },
      ["dt", "hour"],
    );
    await put(table, [
      { id: 1, dt: "20200101", hour: "01" },
      { id: 2, dt: "20200101", hour: "23" },
      { id: 3, dt: "29990101", hour: "00" },
      { id: 4, dt: "20200101", hour: "xx" },
      { id: 5, dt: "2020-01-01", hour: "01" },
    ]);
    expect(await partitionsLeft(table)).toEqual(["2020-01-01/01", "20200101/xx", "29990101/00"]);
  });

  it("update-time drops the partitions whose newest file is older than the expiration time, at most once per check interval", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.UTC(2030, 0, 1);
    vi.setSystemTime(t0);
    const { table } = await create({ "partition.expiration-time": "90 min", "partition.expiration-strategy": "update-time", "partition.expiration-check-interval": "1 h" });
    await put(table, [{ id: 1, dt: "x" }]);
    vi.setSystemTime(t0 + 30 * 60_000);
    await put(table, [{ id: 2, dt: "y" }]);
    vi.setSystemTime(t0 + 100 * 60_000); // more than the interval after the first check: x (100 min old) goes
    await put(table, [{ id: 3, dt: "z" }]);
    expect(await partitionsLeft(table)).toEqual(["y", "z"]);
    // the next check is an hour after that one: y (created at 30 min) is old enough at 121 min, but no check runs before 160
    vi.setSystemTime(t0 + 150 * 60_000);
    await put(table, [{ id: 4, dt: "z" }]);
    expect(await partitionsLeft(table)).toEqual(["y", "z"]);
    vi.setSystemTime(t0 + 161 * 60_000);
    await put(table, [{ id: 5, dt: "z" }]);
    expect(await partitionsLeft(table)).toEqual(["z"]);
    expect(await kinds(table)).toEqual(["APPEND", "APPEND", "APPEND", "OVERWRITE", "APPEND", "APPEND", "OVERWRITE"]);
  });

  it("between checks a commit costs no file-system call: the same calls as a table without partition expiry", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.UTC(2030, 0, 1);
    vi.setSystemTime(t0);
    const calls: string[] = [];
    class CountingFileIO extends LocalFileIO {}
    for (const m of ["readFile", "readFileIfExists", "readFileIfExistsSync", "exists", "fileExistsSync", "listStatus", "stat", "fileSize", "readRange"] as const) {
      const base = (LocalFileIO.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[m];
      (CountingFileIO.prototype as unknown as Record<string, unknown>)[m] = function (this: LocalFileIO, ...a: unknown[]) {
        calls.push(m);
        return base.apply(this, a);
      };
    }
    const perCommit = async (options: Record<string, string>) => {
      const created = (await create(options)).table;
      const table = await Table.open(created.location, { fileIO: new CountingFileIO() });
      const out: number[] = [];
      const at = [0, 10, 30, 61];
      for (let i = 0; i < at.length; i++) {
        vi.setSystemTime(t0 + at[i]! * 60_000);
        const w = await table.newWrite({ commitUser: "u" });
        await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(i) }), dt: arrow.vectorFromArray([i === 0 ? "2999-01-01" : "2020-01-01"], new arrow.Utf8()).data[0]! }));
        const messages = await w.prepareCommit(i + 1);
        await w.close();
        calls.length = 0;
        await table.newCommit({ commitUser: "u" }).commit(messages, i + 1);
        out.push(calls.length);
        if (i === 2) expect(await partitionsLeft(table)).toEqual(["2020-01-01", "2999-01-01"]);
      }
      return { out, table };
    };
    const plain = await perCommit({});
    const expiring = await perCommit({ "partition.expiration-time": "1 d", "partition.expiration-check-interval": "1 h" });
    // commits at 10 and 30 min do not check (the first commit did, at 0); at 61 min it checks again
    expect(expiring.out.slice(1, 3)).toEqual(plain.out.slice(1, 3));
    expect(expiring.out[3]!).toBeGreaterThan(plain.out[3]!);
    expect(await partitionsLeft(expiring.table)).toEqual(["2999-01-01"]);
    expect(await partitionsLeft(plain.table)).toEqual(["2020-01-01", "2999-01-01"]);
  });

  it("with end-input.check-partition-expire a batch commit checks within the interval; a streaming commit does not", async () => {
    const { table } = await create({ "partition.expiration-time": "1 d", "end-input.check-partition-expire": "true" });
    await put(table, [{ id: 1, dt: "2999-01-01" }]);
    await put(table, [{ id: 2, dt: "2020-01-01" }], 5);
    expect(await partitionsLeft(table)).toEqual(["2020-01-01", "2999-01-01"]);
    await put(table, [{ id: 3, dt: "2999-01-01" }]);
    expect(await partitionsLeft(table)).toEqual(["2999-01-01"]);
  });

  it("a write-only table's commits expire nothing; TableCommit.expirePartitions drops them, returning Java's partition specs", async () => {
    const { table } = await create(
      { "write-only": "true", "partition.expiration-time": "1 d", "partition.timestamp-pattern": "$dt $hour:00:00", "partition.timestamp-formatter": "yyyyMMdd HH:mm:ss" },
      ["dt", "hour"],
    );
    await put(table, [
      { id: 1, dt: "20200102", hour: "01" },
      { id: 2, dt: "20200101", hour: "23" },
      { id: 3, dt: "29990101", hour: "00" },
    ]);
    expect(await kinds(table)).toEqual(["APPEND"]);
    const commit = table.newCommit({ commitUser: "admin" });
    expect(await commit.expirePartitions({ expirationTime: "1000000 d" })).toEqual([]);
    expect(await commit.expirePartitions()).toEqual([
      { dt: "20200101", hour: "23" },
      { dt: "20200102", hour: "01" },
    ]);
    expect(await partitionsLeft(table)).toEqual(["29990101/00"]);
    expect(await kinds(table)).toEqual(["APPEND", "OVERWRITE"]);
    // options override the table's: update-time drops the remaining partition written just now
    expect(await commit.expirePartitions({ strategy: "update-time", expirationTime: 0, maxExpires: 5 })).toEqual([{ dt: "29990101", hour: "00" }]);
    await expectCode(commit.expirePartitions({ strategy: "bogus" as "update-time" }), "INVALID_ARGUMENT");
    const { table: plain } = await create({});
    await expectCode(plain.newCommit({ commitUser: "admin" }).expirePartitions(), "INVALID_ARGUMENT");
  });

  it("partition.expiration-max-num limits a check; partition.expiration-batch-size drops them in several snapshots", async () => {
    const { table } = await create({ "partition.expiration-time": "1 d", "partition.expiration-max-num": "3", "partition.expiration-batch-size": "2", "partition.expiration-check-interval": "0 s" });
    await put(table, ["2020-01-04", "2020-01-01", "2020-01-03", "2020-01-02", "2999-01-01"].map((dt, id) => ({ id, dt })));
    // the three first in Java's order, two then one
    expect(await kinds(table)).toEqual(["APPEND", "OVERWRITE", "OVERWRITE"]);
    expect(await partitionsLeft(table)).toEqual(["2020-01-04", "2999-01-01"]);
    // check interval 0: every commit checks
    await put(table, [{ id: 9, dt: "2999-01-01" }]);
    expect(await partitionsLeft(table)).toEqual(["2999-01-01"]);
  });

  it("a real-time table: the progress of exactly the dropped partition is reset, under the commit's identifier", async () => {
    const table = await makeRealtimeTable({ "partition.expiration-time": "1 d" }, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    await w.write(rtBatch(range(0, 5), { dt: "2020-01-01", ids: range(0, 5) }), { partition: { dt: "2020-01-01" }, bucket: 0 });
    await w.write(rtBatch(range(0, 3), { dt: "2999-01-01", ids: range(100, 103) }), { partition: { dt: "2999-01-01" }, bucket: 1 });
    const s1 = await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    const latest = (await table.latestSnapshot())!;
    expect([latest.id, latest.commitKind, latest.commitUser, latest.commitIdentifier]).toEqual([s1 + 1, "OVERWRITE", "rt", 1n]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table, s1)).toEqual([
      { partition: { dt: "2020-01-01" }, bucket: 0, offset: 5n },
      { partition: { dt: "2999-01-01" }, bucket: 1, offset: 3n },
    ]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: { dt: "2999-01-01" }, bucket: 1, offset: 3n }]);
    expect(await readRealtimeIds(table)).toEqual([100, 101, 102]);
    // the writer's context held the dropped partition's data: refreshing past the drop invalidates it
    await w.refreshCommittedSnapshot(s1);
    await expectCode(w.refreshCommittedSnapshot(s1 + 1), "CONTEXT_INVALIDATED");
    await w.close();
  });
});

describe("partition expiry options", () => {
  const bad: Array<[Record<string, string>, string, RegExp]> = [
    [{ "partition.expiration-strategy": "bogus" }, "INVALID_ARGUMENT", /partition\.expiration-strategy/],
    [{ "partition.expiration-time": "soon" }, "INVALID_ARGUMENT", /partition\.expiration-time/],
    [{ "partition.expiration-check-interval": "often" }, "INVALID_ARGUMENT", /partition\.expiration-check-interval/],
    [{ "partition.expiration-max-num": "0" }, "INVALID_ARGUMENT", /partition\.expiration-max-num/],
    [{ "partition.expiration-max-num": "x" }, "INVALID_ARGUMENT", /partition\.expiration-max-num/],
    [{ "partition.expiration-batch-size": "1.5" }, "INVALID_ARGUMENT", /partition\.expiration-batch-size/],
    [{ "partition.timestamp-formatter": "yyyy-MM-dd'" }, "INVALID_ARGUMENT", /partition\.timestamp-formatter/],
    [{ "partition.timestamp-formatter": "yyyy-MM-ddd" }, "INVALID_ARGUMENT", /partition\.timestamp-formatter/],
    [{ "partition.timestamp-formatter": "yyyy-MMM-dd" }, "UNSUPPORTED", /partition\.timestamp-formatter/],
    [{ "partition.timestamp-formatter": "yyyy-MM-dd hh a" }, "UNSUPPORTED", /partition\.timestamp-formatter/],
  ];
  it.each(bad)("%j is refused at create and alter (%s)", async (options, code, message) => {
    await expect(create(options)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    const { catalog } = await create({});
    const [[key, value]] = Object.entries(options);
    await expect(catalog.alterTable("db.t", [{ kind: "setOption", key: key!, value: value! }])).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it("a table written elsewhere with a bad value: the commit is refused before anything is committed", async () => {
    const { table } = await create({ "partition.expiration-time": "1 d" });
    const schemaFile = join(table.location, "schema", "schema-0");
    writeFileSync(schemaFile, readFileSync(schemaFile, "utf8").replace('"partition.expiration-time" : "1 d"', '"partition.expiration-time" : "1 d",\n    "partition.expiration-strategy" : "bogus"'));
    const reopened = await Table.open(table.location);
    expect(reopened.coreOptions.get("partition.expiration-strategy")).toBe("bogus");
    await expect(put(reopened, [{ id: 1, dt: "2020-01-01" }])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/partition\.expiration-strategy/) });
    expect(await reopened.latestSnapshot()).toBeNull();
  });
});

describe("partition.timestamp-format.strict (Java 1.4.2: a check when a partition's writer is created, none in expiry)", () => {
  const refusal = (table: Table, partition: string) =>
    `table ${table.identifier} (partition.timestamp-format.strict): Partition ${partition} does not match the 'partition.timestamp-formatter' or 'partition.timestamp-pattern' configuration. This might be caused by an incorrectly specified partition field. Please check your partition configuration.`;

  it("with a formatter, a write to a partition whose value does not parse (or is null) is refused whole and changes nothing", async () => {
    const { table } = await create({ "partition.timestamp-formatter": "yyyyMMdd", "partition.timestamp-format.strict": "true" });
    await put(table, [{ id: 1, dt: "20200101" }]);
    for (const [dt, shown] of [["2020-01-01", "dt=2020-01-01"], ["20201301", "dt=20201301"], [null, "dt=null"]] as const) {
      const w = await table.newWrite({ commitUser: "u" });
      const error = await expectCode(w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.from([2, 3]) }), dt: arrow.vectorFromArray(["29990101", dt], new arrow.Utf8()).data[0]! })), "INVALID_ARGUMENT");
      expect(error.message).toBe(refusal(table, shown));
      // the good partition of the batch was not written either
      expect(await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit())).toBeNull();
      await w.close();
    }
    expect(await partitionsLeft(table)).toEqual(["20200101"]);
    // a value the formatter resolves (Feb 30 is Feb 29, as Java's SMART resolver) is written
    await put(table, [{ id: 4, dt: "20240230" }]);
    expect(await partitionsLeft(table)).toEqual(["20200101", "20240230"]);
  });

  it("with a pattern over two keys, each partition is checked as expiry would extract its time", async () => {
    const { table } = await create({ "partition.timestamp-pattern": "$dt $hour:00:00", "partition.timestamp-format.strict": "TRUE" }, ["dt", "hour"]);
    await put(table, [{ id: 1, dt: "2020-01-01", hour: "07" }]);
    const error = await expectCode(put(table, [{ id: 2, dt: "2020-01-01", hour: "xx" }]), "INVALID_ARGUMENT");
    expect(error.message).toBe(refusal(table, "dt=2020-01-01, hour=xx"));
    await expectCode(put(table, [{ id: 3, dt: "2020-01-01", hour: "$1" }]), "INVALID_ARGUMENT"); // Java's replaceAll fails on it too
    expect(await partitionsLeft(table)).toEqual(["2020-01-01/07"]);
  });

  it("checks nothing when off (the default), without a formatter and pattern, or on an unpartitioned table; a non-boolean value is refused", async () => {
    for (const options of [{ "partition.timestamp-formatter": "yyyyMMdd" }, { "partition.timestamp-formatter": "yyyyMMdd", "partition.timestamp-format.strict": "false" }, { "partition.timestamp-format.strict": "true" }] as Array<Record<string, string>>) {
      const { table } = await create(options);
      await put(table, [{ id: 1, dt: "not-a-date" }]);
      expect(await partitionsLeft(table)).toEqual(["not-a-date"]);
    }
    const { table } = await create({ "partition.timestamp-formatter": "yyyyMMdd", "partition.timestamp-format.strict": "true" }, []);
    await put(table, [{ id: 1, dt: "not-a-date" }]);
    const { table: bad } = await create({ "partition.timestamp-formatter": "yyyyMMdd", "partition.timestamp-format.strict": "yes" });
    expect((await expectCode(put(bad, [{ id: 1, dt: "20200101" }]), "INVALID_ARGUMENT")).message).toBe("option partition.timestamp-format.strict: 'yes' is not a boolean");
  });

  it("expiry drops and keeps the same partitions strict or not: a partition written before strict was set stays, as Java's values-time strategy keeps it", async () => {
    const { table, catalog } = await create({ "partition.timestamp-formatter": "yyyyMMdd" });
    await put(table, [
      { id: 1, dt: "20200101" },
      { id: 2, dt: "not-a-date" },
      { id: 3, dt: null },
      { id: 4, dt: "29990101" },
    ]);
    const strict = await catalog.alterTable("db.t", [{ kind: "setOption", key: "partition.timestamp-format.strict", value: "true" }]);
    expect(await strict.newCommit({ commitUser: "e" }).expirePartitions({ expirationTime: "1 d" })).toEqual([{ dt: "20200101" }]);
    expect(await partitionsLeft(strict)).toEqual(["29990101", "not-a-date", "null"]);
    // but compacting (a writer of) the unparsable partition is refused now, as in Java
    const w = await strict.newWrite({ commitUser: "c" });
    expect((await expectCode(w.compact({ partition: { dt: "not-a-date" }, bucket: 0, full: true }), "INVALID_ARGUMENT")).message).toBe(refusal(strict, "dt=not-a-date"));
    await w.close();
    expect(await kinds(strict)).toEqual(["APPEND", "OVERWRITE"]);
  });

  it("a real-time write to a partition that does not parse is refused before its partition-bucket exists; the context stays usable", async () => {
    const table = await makeRealtimeTable({ "partition.timestamp-formatter": "yyyyMMdd", "partition.timestamp-format.strict": "true" }, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "rt", realtime: ctx });
    const error = await expectCode(w.write(rtBatch([0, 1], { dt: "bad" }), { partition: { dt: "bad" }, bucket: 0 }), "INVALID_ARGUMENT");
    expect(error.message).toBe(refusal(table, "dt=bad"));
    expect(ctx.invalidatedReason).toBeNull();
    await w.write(rtBatch([0, 1], { dt: "20240101" }), { partition: { dt: "20240101" }, bucket: 0 });
    await table.newCommit({ commitUser: "rt" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.close();
    await ctx.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: { dt: "20240101" }, bucket: 0, offset: 2n }]);
    expect(await readRealtimeIds(table)).toEqual([0, 1]);
  });
});

describe("paimon-rt expire-partitions", () => {
  it("drops the expired partitions now, with the table's options or the flags, printing each; bad arguments change nothing", async () => {
    const { table } = await create({ "write-only": "true" });
    await put(table, ["2020-01-02", "2020-01-01", "2999-01-01", "x"].map((dt, id) => ({ id, dt })));
    const out: string[] = [];
    const run = (...args: string[]) => main(["expire-partitions", ...args], { out: (l) => out.push(l), err: (l) => out.push(`ERR ${l}`) });
    const code = (p: Promise<unknown>) => p.then(() => "ok", (e: { code?: string; message: string }) => `${e.code}: ${e.message}`);
    expect(await code(run(table.location))).toMatch(/^INVALID_ARGUMENT: expirePartitions of .* needs an expirationTime/);
    expect(await code(run(table.location, "--max-expires", "0"))).toBe("INVALID_ARGUMENT: expire-partitions: --max-expires needs a positive number, got 0");
    expect(await code(run(table.location, "--strategy"))).toBe("INVALID_ARGUMENT: expire-partitions: unexpected argument --strategy (needs a value)");
    expect(await code(run(table.location, "--expiration-time", "soon"))).toMatch(/^INVALID_ARGUMENT: option partition.expiration-time: cannot parse duration 'soon'/);
    expect(await code(run())).toBe("INVALID_ARGUMENT: expire-partitions needs a table path");
    expect(await kinds(table)).toEqual(["APPEND"]);
    expect(await run(table.location, "--expiration-time", "1d", "--max-expires", "1", "--commit-user", "ops")).toBe(0);
    expect(out).toEqual(["dropped dt=2020-01-01", `dropped 1 expired partition of ${table.location}`]);
    expect((await table.latestSnapshot())!.commitUser).toBe("ops");
    expect(await partitionsLeft(table)).toEqual(["2020-01-02", "2999-01-01", "x"]);
  });
});
