// System tables (`db.t$snapshots`, `$files`, `$ro`, `$audit_log`, …, src/table/system-tables.ts):
// exact rows on a table with a known history (appends, deletes, full compaction, tags, a schema
// change, partitions), under a clock the test sets; filters, projections and the errors of
// writes and unknown names. Java reads the same system tables in
// test/interop/system-tables-interop.test.ts.
import { statSync } from "node:fs";
import * as arrow from "apache-arrow";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { and, col } from "../../src/predicate/predicate.js";
import { RowKind } from "../../src/spec/row-kind.js";
import { localWallMillis } from "../../src/spec/civil-time.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "../interop/convert.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";
import { appendIds } from "./helpers.js";
import { readTableCommand } from "../../src/cli/read.js";

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
    await expectCode(catalog.getTable("db.t$statistics"), "UNSUPPORTED");
    await expectCode(catalog.getTable("db.t$branch_b"), "NOT_FOUND"); // no such branch
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
