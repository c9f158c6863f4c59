// System tables (`db.t$snapshots`, `$files`, `$ro`, `$audit_log`, …, src/table/system-tables.ts):
// exact rows on a table with a known history (appends, deletes, full compaction, tags, a schema
// change, partitions), under a clock the test sets; filters, projections and the errors of
// writes and unknown names. Java reads the same system tables in
// test/interop/system-tables-interop.test.ts.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import * as arrow from "apache-arrow";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { and, col } from "../../src/predicate/predicate.js";
import { RowKind } from "../../src/spec/row-kind.js";
import { localWallMillis } from "../../src/spec/civil-time.js";
import { typeToString } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "../interop/convert.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";
import { appendIds } from "./helpers.js";
import { readTableCommand } from "../../src/cli/read.js";
import { rtCommitRows } from "../interop/rt-commit.js";

afterAll(cleanupDirs);
afterEach(() => vi.useRealTimers());

const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);
const at = (minutes: number) => T0 + minutes * 60_000;
/** A TIMESTAMP(3) value as arrowToRows renders it (nanoseconds of the wall clock, as a string). */
const ts = (wallMillis: number) => String(BigInt(wallMillis) * 1_000_000n);
const local = (minutes: number) => ts(localWallMillis(at(minutes)));

async function rows(table: Table, options: Parameters<Table["newRead"]>[0] = {}): Promise<Record<string, unknown>[]> {
  const plan = await table.newScan({ filter: options.filter }).plan();
  return arrowToRows(await table.newRead(options).toArrow(plan.splits));
}

async function write(table: Table, data: Array<[string, number, string]>, kinds?: RowKind[], minutes?: number): Promise<number> {
  if (minutes !== undefined) vi.setSystemTime(at(minutes));
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(
    new arrow.RecordBatch({
      dt: arrow.vectorFromArray(data.map((r) => r[0]), new arrow.Utf8()).data[0],
      id: arrow.makeData({ type: new arrow.Int64(), length: data.length, data: BigInt64Array.from(data, (r) => BigInt(r[1])) }),
      v: arrow.vectorFromArray(data.map((r) => r[2]), new arrow.Utf8()).data[0],
    }),
    kinds ? { rowKinds: kinds } : {},
  );
  const id = await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
  return id!;
}

describe("system tables of a primary-key table with a known history", () => {
  let catalog: Catalog;
  let wh: string;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(at(0));
    wh = tempDir("paimon-rt-system-tables-");
    catalog = await Catalog.open(wh);
    await catalog.createDatabase("db");
    let t = await catalog.createTable("db.t", {
      fields: [
        { name: "dt", type: "STRING NOT NULL" },
        { name: "id", type: "BIGINT NOT NULL" },
        { name: "v", type: "STRING" },
      ],
      partitionKeys: ["dt"],
      primaryKeys: ["dt", "id"],
      options: { bucket: "1" },
    });
    expect(await write(t, [["a", 1, "x"], ["a", 2, "y"], ["b", 3, "z"]], undefined, 1)).toBe(1);
    expect(await write(t, [["a", 1, "x"], ["b", 3, "z2"]], [RowKind.DELETE, RowKind.UPDATE_AFTER], 2)).toBe(2);
    vi.setSystemTime(at(3));
    const w = await t.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    expect(await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit())).toBe(3);
    await w.close();
    vi.setSystemTime(at(4));
    await t.createTag("t1", 1);
    await t.createTag("t3", 3, { timeRetainedMs: 36 * 3_600_000 + 90_000 });
    vi.setSystemTime(at(5));
    t = await catalog.alterTable("db.t", [{ kind: "setOption", key: "snapshot.num-retained.max", value: "10" }]);
    expect(await write(t, [["c", 4, "w"]], undefined, 6)).toBe(4);
    vi.useRealTimers();
  });

  it("$snapshots: every snapshot, commit_time in local time, pushed-down and residual filters, projections", async () => {
    const s = await catalog.getTable("db.t$snapshots");
    expect(s.identifier).toBe("db.t$snapshots");
    expect(s.schema.fields.map((f) => f.name)).toEqual(["snapshot_id", "schema_id", "commit_user", "commit_identifier", "commit_kind", "commit_time", "base_manifest_list", "delta_manifest_list", "changelog_manifest_list", "total_record_count", "delta_record_count", "changelog_record_count", "watermark", "next_row_id"]);
    const all = await rows(s);
    expect(all.map((r) => [r.snapshot_id, r.schema_id, r.commit_user, r.commit_identifier, r.commit_kind, r.commit_time, r.changelog_manifest_list, r.total_record_count, r.delta_record_count, r.changelog_record_count, r.watermark])).toEqual([
      ["1", "0", "u", "9223372036854775807", "APPEND", local(1), null, "3", "3", null, null],
      ["2", "0", "u", "9223372036854775807", "APPEND", local(2), null, "5", "2", null, null],
      ["3", "0", "u", "9223372036854775807", "COMPACT", local(3), null, "2", "-3", null, null],
      ["4", "1", "u", "9223372036854775807", "APPEND", local(6), null, "3", "1", null, null],
    ]);
    const snapshot3 = await (await catalog.getTable("db.t")).snapshot(3);
    expect(all[2].base_manifest_list).toBe(snapshot3.baseManifestList);
    expect(all[2].delta_manifest_list).toBe(snapshot3.deltaManifestList);
    // snapshot_id bounds (read only those snapshots, as Java), the rest of the filter exactly
    expect(await rows(s, { projection: ["commit_kind", "snapshot_id"], filter: and(col("snapshot_id").ge(2n), col("commit_kind").eq("APPEND")) })).toEqual([
      { commit_kind: "APPEND", snapshot_id: "2" },
      { commit_kind: "APPEND", snapshot_id: "4" },
    ]);
    expect(await rows(s, { projection: ["snapshot_id"], filter: col("snapshot_id").eq(3n) })).toEqual([{ snapshot_id: "3" }]);
    expect(await rows(s, { projection: ["snapshot_id"], filter: col("snapshot_id").lt(1n) })).toEqual([]);
    // TIMESTAMP columns filter as a data table's (the literal is the wall clock, as the column)
    expect(await rows(s, { projection: ["snapshot_id"], filter: col("commit_time").ge(new Date(localWallMillis(at(3)))) })).toEqual([{ snapshot_id: "3" }, { snapshot_id: "4" }]);
    await expectCode(async () => s.newScan({ filter: col("nope").eq(1) }), "INVALID_ARGUMENT");
    await expectCode(async () => s.newRead({ projection: ["nope"] }), "INVALID_ARGUMENT");
  });

  it("$schemas, $options, $tags, $consumers, $branches, $aggregation_fields", async () => {
    const schemas = await rows(await catalog.getTable("db.t$schemas"));
    expect(schemas).toEqual([
      { schema_id: "0", fields: '[{"id":0,"name":"dt","type":"STRING NOT NULL"},{"id":1,"name":"id","type":"BIGINT NOT NULL"},{"id":2,"name":"v","type":"STRING"}]', partition_keys: '["dt"]', primary_keys: '["dt","id"]', options: '{"bucket":"1"}', comment: null, update_time: local(0) },
      { schema_id: "1", fields: '[{"id":0,"name":"dt","type":"STRING NOT NULL"},{"id":1,"name":"id","type":"BIGINT NOT NULL"},{"id":2,"name":"v","type":"STRING"}]', partition_keys: '["dt"]', primary_keys: '["dt","id"]', options: '{"bucket":"1","snapshot.num-retained.max":"10"}', comment: null, update_time: local(5) },
    ]);
    expect(await rows(await catalog.getTable("db.t$options"))).toEqual([
      { key: "bucket", value: "1" },
      { key: "snapshot.num-retained.max", value: "10" },
    ]);
    // commit_time: UTC wall clock, as Java's TagsTable (DateTimeUtils.toLocalDateTime); create_time: the tag file's local time
    expect(await rows(await catalog.getTable("db.t$tags"))).toEqual([
      { tag_name: "t1", snapshot_id: "1", schema_id: "0", commit_time: ts(at(1)), record_count: "3", create_time: null, time_retained: null },
      { tag_name: "t3", snapshot_id: "3", schema_id: "0", commit_time: ts(at(3)), record_count: "2", create_time: local(4), time_retained: "PT36H1M30S" },
    ]);
    expect(await rows(await catalog.getTable("db.t$consumers"))).toEqual([]);
    const t = await catalog.getTable("db.t");
    await t.fileIO.writeFile(`${t.location}/consumer/consumer-job-b`, new TextEncoder().encode('{"nextSnapshot":3}'));
    await t.fileIO.writeFile(`${t.location}/consumer/consumer-job-a`, new TextEncoder().encode('{"nextSnapshot":4}'));
    expect(await rows(await catalog.getTable("db.t$consumers"))).toEqual([
      { consumer_id: "job-a", next_snapshot_id: "4" },
      { consumer_id: "job-b", next_snapshot_id: "3" },
    ]);
    // branches (which this library does not read) are listed as Java lists them: the branch/branch-<name> directories
    expect(await rows(await catalog.getTable("db.t$branches"))).toEqual([]);
    await t.fileIO.mkdirs(`${t.location}/branch/branch-dev/schema`);
    expect(await rows(await catalog.getTable("db.t$branches"))).toEqual([{ branch_name: "dev", create_time: ts(Math.floor(statSync(`${t.location}/branch/branch-dev`).mtimeMs)) }]);
    expect((await rows(await catalog.getTable("db.t$aggregation_fields"))).map((r) => [r.field_name, r.field_type, r.function, r.function_options])).toEqual([
      ["dt", "STRING NOT NULL", "[]", "[]"],
      ["id", "BIGINT NOT NULL", "[]", "[]"],
      ["v", "STRING", "[]", "[]"],
    ]);
  });

  it("$files, $manifests, $partitions, $buckets of the latest snapshot (and of a time-travel view)", async () => {
    const t = await catalog.getTable("db.t");
    const files = await rows(await catalog.getTable("db.t$files"));
    expect(files.map((f) => [f.partition, f.bucket, f.level, f.record_count, f.min_key, f.max_key, f.null_value_counts, f.min_value_stats, f.max_value_stats, f.min_sequence_number, f.max_sequence_number, f.deleteRowCount, f.file_source, f.file_format, f.schema_id])).toEqual([
      ["{a}", 0, 5, "1", "[2]", "[2]", "{dt=0, id=0, v=0}", "{dt=a, id=2, v=y}", "{dt=a, id=2, v=y}", "1", "1", "0", "COMPACT", "parquet", "0"],
      ["{b}", 0, 5, "1", "[3]", "[3]", "{dt=0, id=0, v=0}", "{dt=b, id=3, v=z2}", "{dt=b, id=3, v=z2}", "1", "1", "0", "COMPACT", "parquet", "0"],
      ["{c}", 0, 0, "1", "[4]", "[4]", "{dt=0, id=0, v=0}", "{dt=c, id=4, v=w}", "{dt=c, id=4, v=w}", "0", "0", "0", "APPEND", "parquet", "1"],
    ]);
    const live = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
    for (const f of files) {
      const meta = live.find((m) => String(f.file_path).endsWith(`/bucket-0/${m.fileName}`))!;
      expect(f.file_path).toBe(`${t.location}/dt=${String(f.partition).slice(1, -1)}/bucket-0/${meta.fileName}`);
      expect(f.file_size_in_bytes).toBe(String(meta.fileSize));
      expect(f.creation_time).toBe(ts(meta.creationTime!));
    }
    expect(files.map((f) => f.creation_time)).toEqual([local(3), local(3), local(6)]);
    // bucket and level bounds prune the files read, partition strings filter exactly
    const filesTable = await catalog.getTable("db.t$files");
    expect(await rows(filesTable, { projection: ["partition", "level"], filter: col("level").eq(0) })).toEqual([{ partition: "{c}", level: 0 }]);
    expect(await rows(filesTable, { projection: ["partition"], filter: col("partition").eq("{b}") })).toEqual([{ partition: "{b}" }]);
    expect(await rows(filesTable, { projection: ["partition"], filter: col("bucket").gt(0) })).toEqual([]);

    // $file_key_ranges: the same files, ten of their columns and first_row_id
    const keyColumns = ["partition", "bucket", "file_path", "file_format", "schema_id", "level", "record_count", "file_size_in_bytes", "min_key", "max_key", "first_row_id"];
    const ranges = await catalog.getTable("db.t$file_key_ranges");
    expect(ranges.schema.fields.map((f) => f.name)).toEqual(keyColumns);
    expect(await rows(ranges)).toEqual(await rows(filesTable, { projection: keyColumns }));
    expect(await rows(ranges, { projection: ["min_key"], filter: col("level").eq(0) })).toEqual([{ min_key: "[4]" }]);

    expect(await rows(await catalog.getTable("db.t$table_indexes"))).toEqual([]); // no deletion vectors or hash index (DV tables: the interop test)

    const manifests = await rows(await catalog.getTable("db.t$manifests"));
    expect(manifests.reduce((n, m) => n + BigInt(m.num_added_files as string) - BigInt(m.num_deleted_files as string), 0n)).toBe(3n);
    expect(manifests.map((m) => m.schema_id)).toEqual([...manifests.slice(0, -1).map(() => "0"), "1"]);
    expect(manifests[manifests.length - 1]).toMatchObject({ num_added_files: "1", num_deleted_files: "0", min_partition_stats: "{c}", max_partition_stats: "{c}", min_row_id: null, max_row_id: null });

    const sizes = Object.fromEntries(files.map((f) => [f.partition, f.file_size_in_bytes]));
    expect(await rows(await catalog.getTable("db.t$partitions"))).toEqual([
      { partition: "dt=a", record_count: "1", file_size_in_bytes: sizes["{a}"], file_count: "1", last_update_time: local(3), created_at: null, created_by: null, updated_by: null, options: null },
      { partition: "dt=b", record_count: "1", file_size_in_bytes: sizes["{b}"], file_count: "1", last_update_time: local(3), created_at: null, created_by: null, updated_by: null, options: null },
      { partition: "dt=c", record_count: "1", file_size_in_bytes: sizes["{c}"], file_count: "1", last_update_time: local(6), created_at: null, created_by: null, updated_by: null, options: null },
    ]);
    expect((await rows(await catalog.getTable("db.t$buckets"))).map((b) => [b.partition, b.bucket, b.record_count, b.file_count, b.last_update_time])).toEqual([
      ["{a}", 0, "1", "1", local(3)],
      ["{b}", 0, "1", "1", local(3)],
      ["{c}", 0, "1", "1", local(6)],
    ]);
    // a time-travel view's system tables describe its snapshot: snapshot 2 had two level-0 files in a, one in b
    const view = await t.atSnapshot(2);
    expect((await rows(await view.systemTable("partitions"))).map((p) => [p.partition, p.record_count, p.file_count])).toEqual([
      ["dt=a", "3", "2"],
      ["dt=b", "2", "2"],
    ]);
  });

  it("$ro reads only the compacted files of the primary-key table, $audit_log every row with its kind", async () => {
    const ro = await catalog.getTable("db.t$ro");
    expect(ro.schema.fields.map((f) => f.name)).toEqual(["dt", "id", "v"]);
    expect(await rows(ro)).toEqual([
      { dt: "a", id: "2", v: "y" },
      { dt: "b", id: "3", v: "z2" },
    ]);
    const t = await catalog.getTable("db.t");
    const audit = await catalog.getTable("db.t$audit_log");
    expect(audit.schema.fields.map((f) => f.name)).toEqual(["rowkind", "dt", "id", "v"]);
    expect(await rows(audit)).toEqual([
      { rowkind: "+I", dt: "a", id: "2", v: "y" },
      { rowkind: "+U", dt: "b", id: "3", v: "z2" },
      { rowkind: "+I", dt: "c", id: "4", v: "w" },
    ]);
    // before the compaction the delete of (a, 1) is a row of its own (Java's forceKeepDelete)
    const before = await (await t.atSnapshot(2)).systemTable("audit_log");
    expect(await rows(before)).toEqual([
      { rowkind: "-D", dt: "a", id: "1", v: "x" },
      { rowkind: "+I", dt: "a", id: "2", v: "y" },
      { rowkind: "+U", dt: "b", id: "3", v: "z2" },
    ]);
    expect(await rows(before, { projection: ["id"] })).toEqual([{ id: "1" }, { id: "2" }, { id: "3" }]);
    expect(await rows(before, { projection: ["rowkind", "v"], filter: col("dt").eq("b") })).toEqual([{ rowkind: "+U", v: "z2" }]);
  });

  it("$binlog: the $audit_log rows with each column an array of its value (Java BinlogTable, batch)", async () => {
    const binlog = await catalog.getTable("db.t$binlog");
    expect(binlog.schema.fields.map((f) => [f.id, f.name, typeToString(f.type)])).toEqual([
      [-1, "rowkind", "STRING NOT NULL"],
      [0, "dt", "ARRAY<STRING>"],
      [1, "id", "ARRAY<BIGINT>"],
      [2, "v", "ARRAY<STRING>"],
    ]);
    const before = await (await (await catalog.getTable("db.t")).atSnapshot(2)).systemTable("binlog");
    expect(await rows(before)).toEqual([
      { rowkind: "-D", dt: ["a"], id: ["1"], v: ["x"] },
      { rowkind: "+I", dt: ["a"], id: ["2"], v: ["y"] },
      { rowkind: "+U", dt: ["b"], id: ["3"], v: ["z2"] },
    ]);
    expect(await rows(before, { projection: ["v", "id"] })).toEqual([
      { v: ["x"], id: ["1"] },
      { v: ["y"], id: ["2"] },
      { v: ["z2"], id: ["3"] },
    ]);
    expect(await rows(before, { projection: ["rowkind", "v"], filter: col("dt").eq("b") })).toEqual([{ rowkind: "+U", v: ["z2"] }]);
  });

  it("$statistics is empty without an ANALYZE", async () => {
    const stats = await catalog.getTable("db.t$statistics");
    expect(stats.schema.fields.map((f) => [f.name, typeToString(f.type)])).toEqual([
      ["snapshot_id", "BIGINT NOT NULL"],
      ["schema_id", "BIGINT NOT NULL"],
      ["mergedRecordCount", "BIGINT"],
      ["mergedRecordSize", "BIGINT"],
      ["colstat", "STRING"],
    ]);
    expect(await rows(stats)).toEqual([]);
  });

  it("paimon-rt read <table>$<name> prints a system table (with --where, --select and --snapshot)", async () => {
    const out: string[] = [];
    const location = (await catalog.getTable("db.t")).location;
    expect(await readTableCommand({ location: `${location}$snapshots`, select: ["snapshot_id", "commit_kind"], where: "snapshot_id >= 3", format: "json" }, (t) => out.push(t))).toBe(2);
    expect(out.join("\n").trim().split("\n").map((l) => JSON.parse(l))).toEqual([
      { snapshot_id: 3, commit_kind: "COMPACT" },
      { snapshot_id: 4, commit_kind: "APPEND" },
    ]);
    out.length = 0;
    expect(await readTableCommand({ location: `${location}$audit_log`, snapshotId: 2, select: ["rowkind", "id"], format: "json" }, (t) => out.push(t))).toBe(3);
    expect(out.join("\n").trim().split("\n").map((l) => JSON.parse(l))).toEqual([
      { rowkind: "-D", id: 1 },
      { rowkind: "+I", id: 2 },
      { rowkind: "+U", id: 3 },
    ]);
    await expectCode(readTableCommand({ location: `${location}$nope`, format: "json" }, () => undefined), "NOT_FOUND");
  });

  it("refuses writes and table operations on system tables; unknown names as Java", async () => {
    const s = await catalog.getTable("db.t$snapshots");
    await expectCode(s.newWrite({ commitUser: "u" }), "READ_ONLY");
    expect(() => s.newCommit({ commitUser: "u" })).toThrow(/system tables are read-only/);
    await expectCode(s.createTag("x", 1), "READ_ONLY");
    await expectCode(s.truncate({ commitUser: "u" }), "READ_ONLY");
    await expectCode(s.rollbackTo(1), "READ_ONLY");
    await expectCode((await catalog.getTable("db.t$ro")).newWrite({ commitUser: "u" }), "READ_ONLY");
    await expectCode(s.systemTable("files"), "UNSUPPORTED");
    await expectCode(s.atSnapshot(1), "UNSUPPORTED");
    await expectCode(catalog.getTable("db.t$nope"), "NOT_FOUND");
    await expectCode(catalog.getTable("db.missing$snapshots"), "NOT_FOUND");
    // Java RowTrackingTable: only tables with row-tracking.enabled
    await expectCode(catalog.getTable("db.t$row_tracking"), "INVALID_ARGUMENT");
    await expectCode((await catalog.getTable("db.t")).copy({ "table-read.sequence-number.enabled": true }).systemTable("audit_log"), "UNSUPPORTED");
    await expectCode((await catalog.getTable("db.t")).copy({ "table-read.sequence-number.enabled": "true" }).systemTable("binlog"), "UNSUPPORTED");
    // tableExists as Java's (getTable succeeds): system tables of existing tables, any case
    expect(await catalog.tableExists("db.t$snapshots")).toBe(true);
    expect(await catalog.tableExists("db.t$Statistics")).toBe(true);
    expect(await catalog.tableExists("db.t$binlog")).toBe(true);
    expect(await catalog.tableExists("db.t$row_tracking")).toBe(true); // a name Java knows (tableExists does not load it)
    expect(await catalog.tableExists("db.t$nope")).toBe(false);
    expect(await catalog.tableExists("db.t$")).toBe(false);
    expect(await catalog.tableExists("db.missing$snapshots")).toBe(false);
    expect(await catalog.tableExists("nodb.t$snapshots")).toBe(false);
    expect(await catalog.tableExists("db.t")).toBe(true);
    await expectCode(catalog.getTable("db.t$branch_b"), "NOT_FOUND"); // no such branch
    expect(await catalog.tableExists("db.t$branch_b")).toBe(false);
    expect(await catalog.tableExists("db.t$branch_b$snapshots")).toBe(false);
    await expectCode(catalog.dropTable("db.t$snapshots"), "INVALID_ARGUMENT");
    await expectCode(catalog.createTable("db.t$snapshots", { fields: [{ name: "id", type: "INT" }] }), "INVALID_ARGUMENT");
    // case-insensitive as Java's SystemTableLoader
    expect((await rows(await catalog.getTable("db.t$OPTIONS"))).length).toBe(2);
    // nothing was written
    expect((await (await catalog.getTable("db.t")).latestSnapshot())!.id).toBe(4);
  });
});

describe("system tables of an append table", () => {
  it("$audit_log marks every row +I; $ro is the table", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-system-tables-append-"));
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.a", { fields: [{ name: "id", type: "BIGINT" }] });
    await appendIds(t, [1, 2]);
    await appendIds(t, [3]);
    expect(await rows(await catalog.getTable("db.a$audit_log"))).toEqual([
      { rowkind: "+I", id: "1" },
      { rowkind: "+I", id: "2" },
      { rowkind: "+I", id: "3" },
    ]);
    expect(await rows(await catalog.getTable("db.a$ro"))).toEqual([{ id: "1" }, { id: "2" }, { id: "3" }]);
    expect((await rows(await catalog.getTable("db.a$files"))).map((f) => [f.partition, f.min_key, f.null_value_counts, f.min_value_stats])).toEqual([
      ["{}", null, "{id=0}", "{id=1}"],
      ["{}", null, "{id=0}", "{id=3}"],
    ]);
    expect((await rows(await catalog.getTable("db.a$partitions"))).map((p) => [p.partition, p.record_count, p.file_count])).toEqual([["", "3", "2"]]);
  });
});

describe("$audit_log of merge engines that fold", () => {
  it("keeps the retract results of partial-update and aggregation merges (Java forceKeepDelete), a plain read drops them", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-system-tables-fold-"));
    await catalog.createDatabase("db");
    const fields = [
      { name: "dt", type: "STRING NOT NULL" },
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
    ];
    const pu = await catalog.createTable("db.pu", { fields, primaryKeys: ["dt", "id"], options: { bucket: "1", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true" } });
    await write(pu, [["a", 1, "x"], ["a", 2, "y"]]);
    await write(pu, [["a", 1, "x"], ["a", 9, "gone"], ["a", 2, "y2"]], [RowKind.DELETE, RowKind.DELETE, RowKind.INSERT]);
    expect(await rows(await catalog.getTable("db.pu$audit_log"))).toEqual([
      { rowkind: "-D", dt: "a", id: "1", v: "x" },
      { rowkind: "+I", dt: "a", id: "2", v: "y2" },
      { rowkind: "-D", dt: "a", id: "9", v: "gone" },
    ]);
    expect(await rows(pu)).toEqual([{ dt: "a", id: "2", v: "y2" }]);
    const agg = await catalog.createTable("db.agg", { fields, primaryKeys: ["dt", "id"], options: { bucket: "1", "merge-engine": "aggregation", "fields.v.aggregate-function": "last_value" } });
    await write(agg, [["a", 1, "x"]]);
    await write(agg, [["a", 7, "r"]], [RowKind.UPDATE_BEFORE]);
    expect(await rows(await catalog.getTable("db.agg$audit_log"))).toEqual([
      { rowkind: "+I", dt: "a", id: "1", v: "x" },
      { rowkind: "-U", dt: "a", id: "7", v: "r" },
    ]);
    expect(await rows(await catalog.getTable("db.agg$binlog"))).toEqual([
      { rowkind: "+I", dt: ["a"], id: ["1"], v: ["x"] },
      { rowkind: "-U", dt: ["a"], id: ["7"], v: ["r"] },
    ]);
    expect(await rows(agg)).toEqual([{ dt: "a", id: "1", v: "x" }]);
  });
});

describe("analyze() and $statistics", () => {
  const fields = [
    { name: "id", type: "INT NOT NULL" },
    { name: "s", type: "STRING" },
    { name: "d", type: "DOUBLE" },
    { name: "amount", type: "DECIMAL(10,2)" },
    { name: "ts", type: "TIMESTAMP(3)" },
    { name: "day", type: "DATE" },
    { name: "ok", type: "BOOLEAN" },
    { name: "tags", type: "ARRAY<STRING>" },
  ];
  it("commits an ANALYZE snapshot whose statistics $statistics shows; later commits keep them until a schema change", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(at(0));
    const catalog = await Catalog.open(tempDir("paimon-rt-analyze-"));
    await catalog.createDatabase("db");
    let t = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options: { bucket: "1" } });
    expect(await t.analyze({ commitUser: "u" })).toBeNull(); // no snapshot: nothing to analyze
    await rtCommitRows(t, fields, [
      { id: 1, s: "héllo", d: 2.5, amount: "10.50", ts: "1700000000123000000", day: "2024-03-01", ok: true, tags: ["a"] },
      { id: 2, s: null, d: -0.125, amount: "-3.00", ts: "1000000", day: "1969-12-31", ok: false, tags: null },
      { id: 3, s: "ab", d: null, amount: null, ts: null, day: null, ok: null, tags: [] },
    ]);
    await rtCommitRows(t, fields, [{ id: 3, s: "ab", d: 1e21, amount: "10.50", ts: null, day: "2024-03-01", ok: true, tags: null }]);
    const sizes = (await rows(await catalog.getTable("db.t$files"))).reduce((n, f) => n + BigInt(f.file_size_in_bytes as string), 0n);
    expect(await t.analyze({ commitUser: "u" })).toBe(3);
    const analyzeSnapshot = (await t.latestSnapshot())!;
    expect([analyzeSnapshot.commitKind, analyzeSnapshot.deltaRecordCount, analyzeSnapshot.totalRecordCount]).toEqual(["ANALYZE", 0n, 4n]);
    const [row] = await rows(await catalog.getTable("db.t$statistics"));
    // 3 merged records of 4: the live files' bytes scaled by 3/4
    expect({ ...row, colstat: JSON.parse(row.colstat as string) }).toEqual({
      snapshot_id: "2",
      schema_id: "0",
      mergedRecordCount: "3",
      mergedRecordSize: String((sizes * 3n) / 4n),
      colstat: {
        id: { colId: 0, distinctCount: 3, min: "1", max: "3", nullCount: 0 },
        s: { colId: 1, distinctCount: 2, nullCount: 1, avgLen: 4, maxLen: 6 },
        d: { colId: 2, distinctCount: 3, min: "-0.125", max: "1.0E21", nullCount: 0 },
        amount: { colId: 3, distinctCount: 2, min: "-3.00", max: "10.50", nullCount: 0 },
        ts: { colId: 4, distinctCount: 2, min: "1970-01-01 00:00:00.001", max: "2023-11-14 22:13:20.123", nullCount: 1 },
        day: { colId: 5, distinctCount: 2, min: "-1", max: "19783", nullCount: 0 },
        ok: { colId: 6, distinctCount: 2, min: "false", max: "true", nullCount: 0 },
      },
    });
    // the file is Java's pretty JSON (Statistics.toJson)
    const file = `${t.location}/statistics/${analyzeSnapshot.statistics}`;
    expect(readFileSync(file, "utf8").split("\n").slice(0, 6)).toEqual(["{", '  "snapshotId" : 2,', '  "schemaId" : 0,', '  "mergedRecordCount" : 3,', `  "mergedRecordSize" : ${(sizes * 3n) / 4n},`, '  "colStats" : {']);
    // a later commit keeps them; only some columns; a schema change drops them
    await rtCommitRows(t, fields, [{ id: 4, s: "x", d: 0, amount: "0", ts: null, day: null, ok: null, tags: null }]);
    expect((await t.latestSnapshot())!.statistics).toBe(analyzeSnapshot.statistics);
    expect((await rows(await catalog.getTable("db.t$statistics"))).map((r) => r.snapshot_id)).toEqual(["2"]);
    expect(await t.analyze({ commitUser: "u", columns: ["s"] })).toBe(5);
    expect((await rows(await catalog.getTable("db.t$statistics"))).map((r) => [r.snapshot_id, r.mergedRecordCount, JSON.parse(r.colstat as string)])).toEqual([["4", "4", { s: { colId: 1, distinctCount: 3, nullCount: 1, avgLen: 3, maxLen: 6 } }]]);
    // the earlier statistics by time travel
    expect((await rows(await (await t.atSnapshot(3)).systemTable("statistics"))).map((r) => r.snapshot_id)).toEqual(["2"]);
    t = await catalog.alterTable("db.t", [{ kind: "setOption", key: "snapshot.num-retained.max", value: "20" }]);
    await rtCommitRows(t, fields, [{ id: 5, s: "y", d: 0, amount: "0", ts: null, day: null, ok: null, tags: null }]);
    expect((await t.latestSnapshot())!.statistics).toBeNull();
    expect(await rows(await catalog.getTable("db.t$statistics"))).toEqual([]);
    // bad columns change nothing
    await expectCode(t.analyze({ commitUser: "u", columns: ["nope"] }), "INVALID_ARGUMENT");
    await expectCode(t.analyze({ commitUser: "u", columns: ["tags"] }), "UNSUPPORTED");
    await expectCode((await catalog.getTable("db.t$statistics")).analyze({ commitUser: "u" }), "READ_ONLY");
    expect((await t.latestSnapshot())!.id).toBe(6);
  });

  it("a corrupt statistics file is CORRUPT_FILE for $statistics and for a commit that would inherit it (as Java's), and changes nothing", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-analyze-corrupt-"));
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields: fields.slice(0, 2), primaryKeys: ["id"], options: { bucket: "1" } });
    await rtCommitRows(t, fields.slice(0, 2), [{ id: 1, s: "a" }]);
    expect(await t.analyze({ commitUser: "u" })).toBe(2);
    const file = `${t.location}/statistics/${(await t.latestSnapshot())!.statistics}`;
    writeFileSync(file, '{"snapshotId": 1, "schemaId": "x"}');
    await expectCode(rows(await catalog.getTable("db.t$statistics")), "CORRUPT_FILE");
    await expectCode(rtCommitRows(t, fields.slice(0, 2), [{ id: 2, s: "b" }]), "CORRUPT_FILE");
    expect((await t.latestSnapshot())!.id).toBe(2);
  });
});

describe("the sys database", () => {
  it("sys.all_table_options, sys.tables, sys.partitions, sys.catalog_options describe the catalog; read-only; unknown names NOT_FOUND", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(at(7));
    const wh = tempDir("paimon-rt-sys-");
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase("db");
    const a = await catalog.createTable("db.a", { fields: [{ name: "p", type: "STRING NOT NULL" }, { name: "id", type: "BIGINT" }], partitionKeys: ["p"], options: { bucket: "-1" } });
    await catalog.createTable("db.k", { fields: [{ name: "id", type: "INT NOT NULL" }], primaryKeys: ["id"], options: { bucket: "1", owner: "ops", createdAt: "17" } });
    const w = await a.newWrite({ commitUser: "u" });
    await w.write(new arrow.RecordBatch({ p: arrow.vectorFromArray(["x", "y", "x"], new arrow.Utf8()).data[0], id: arrow.makeData({ type: new arrow.Int64(), length: 3, data: BigInt64Array.from([1n, 2n, 3n]) }) }));
    await a.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const options = await rows(await catalog.getTable("sys.all_table_options"));
    expect(options.filter((r) => r.table_name === "a")).toEqual([
      { database_name: "db", table_name: "a", key: "bucket", value: "-1" },
      { database_name: "db", table_name: "a", key: "path", value: a.location },
    ]);
    expect(options.filter((r) => r.table_name === "k").map((r) => r.key).sort()).toEqual(["bucket", "createdAt", "owner", "path"]);
    expect((await rows(await catalog.getTable("sys.Tables"))).map((r) => [r.database_name, r.table_name, r.table_type, r.partitioned, r.primary_key, r.owner, r.created_at, r.record_count])).toEqual([
      ["db", "a", "table", true, false, null, null, null],
      ["db", "k", "table", false, true, "ops", "17", null],
    ]);
    const sizes = (await rows(await catalog.getTable("db.a$partitions"))).map((r) => r.file_size_in_bytes);
    expect(await rows(await catalog.getTable("sys.partitions"))).toEqual([
      { database_name: "db", table_name: "a", partition_name: "p=x", record_count: "2", file_size_in_bytes: sizes[0], file_count: "1", last_file_creation_time: String(at(7)), done: false },
      { database_name: "db", table_name: "a", partition_name: "p=y", record_count: "1", file_size_in_bytes: sizes[1], file_count: "1", last_file_creation_time: String(at(7)), done: false },
    ]);
    expect(await rows(await catalog.getTable("sys.catalog_options"))).toEqual([{ key: "warehouse", value: catalog.warehouse }]);
    expect(await rows(await catalog.getTable("sys.tables"), { projection: ["table_name"], filter: col("primary_key").eq(true) })).toEqual([{ table_name: "k" }]);
    expect(await catalog.tableExists("sys.tables")).toBe(true);
    expect(await catalog.databaseExists("sys")).toBe(true);
    expect((await catalog.listTables("sys")).sort()).toEqual(["all_table_options", "catalog_options", "partitions", "tables"]);
    expect(await catalog.listDatabases()).toEqual(["db"]); // (as Java's file-system catalog lists them)
    expect(await catalog.tableExists("sys.nope")).toBe(false);
    await expectCode(catalog.getTable("sys.nope"), "NOT_FOUND");
    await expectCode((await catalog.getTable("sys.tables")).newWrite({ commitUser: "u" }), "READ_ONLY");
    await expectCode(catalog.createDatabase("sys"), "INVALID_ARGUMENT");
    await expectCode(catalog.createTable("sys.t", { fields: [{ name: "id", type: "INT" }] }), "INVALID_ARGUMENT");
  });
});
