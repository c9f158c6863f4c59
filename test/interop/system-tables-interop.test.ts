/**
 * System tables with Java Paimon 1.4.2: Java's `catalog.getTable("db.t$snapshots")` (and
 * `$schemas`, `$options`, `$tags`, `$consumers`, `$manifests`, `$files`, `$partitions`,
 * `$buckets`, `$aggregation_fields`, `$branches`, `$file_key_ranges`, `$table_indexes`, `$statistics`,
 * `$ro`, `$audit_log`, `$binlog`) and paimon-rt's return the same rows
 * — every column, wall-clock times included, since both read the same table — on tables Java
 * wrote (partitioned primary keys with deletion vectors and full compaction; primary keys with
 * uncompacted deletes and updates), paimon-rt wrote (a partitioned append table with a schema
 * change, an overwrite and tags with retention) and both wrote. Skips with a printed reason when
 * scripts/setup-oracles.sh has not been run.
 */
import * as arrow from "apache-arrow";
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import { RowKind } from "../../src/spec/row-kind.js";
import { arrowToRows } from "./convert.js";
import { rtCommitRows } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, parseJsonLines, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping system tables interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-system-tables-interop-");

const METADATA = ["snapshots", "schemas", "options", "tags", "consumers", "manifests", "files", "partitions", "buckets", "aggregation_fields", "branches", "file_key_ranges", "table_indexes", "statistics"];

/** paimon-rt's rows of system table `db.t$name`, sorted as the oracle's --sort sorts. */
async function rtRows(catalog: Catalog, identifier: string): Promise<OracleRow[]> {
  const t = await catalog.getTable(identifier);
  return sortRows(arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)));
}

/** Java's rows of each system table (one JVM), sorted; the error text for a failed read. */
async function javaRows(wh: string, identifiers: string[]): Promise<OracleRow[][]> {
  const results = await runBatch("java", identifiers.map((id) => ["read", wh, id, "--sort"]));
  return results.map((r) => sortRows(parseJsonLines(batchOutput(r))));
}

/** Compares every system table of `table` in both; returns Java's rows by system table name. */
async function expectSameSystemTables(wh: string, table: string, names: readonly string[]): Promise<Record<string, OracleRow[]>> {
  const catalog = await Catalog.open(wh);
  const ids = names.map((n) => `${table}$${n}`);
  const java = await javaRows(wh, ids);
  const out: Record<string, OracleRow[]> = {};
  for (const [i, id] of ids.entries()) {
    expect({ table: id, rows: await rtRows(catalog, id) }).toEqual({ table: id, rows: java[i] });
    out[names[i]] = java[i];
  }
  return out;
}

describe.skipIf(noJava !== null)("system tables with Java", () => {
  it(
    "a partitioned primary-key table with deletion vectors Java wrote and compacted, tagged by both, with a consumer",
    async () => {
      const wh = tempDir();
      await writeTables("java", wh, [
        {
          identifier: "db.t",
          spec: {
            fields: [
              { name: "dt", type: "STRING NOT NULL" },
              { name: "id", type: "BIGINT NOT NULL" },
              { name: "v", type: "STRING" },
              { name: "d", type: "DOUBLE" },
              { name: "day", type: "DATE" },
              { name: "ts", type: "TIMESTAMP(6)" },
              { name: "amount", type: "DECIMAL(12,3)" },
            ],
            partitionKeys: ["dt"],
            primaryKeys: ["dt", "id"],
            options: { bucket: "2", "deletion-vectors.enabled": "true" },
            commits: [
              [
                { dt: "a", id: "1", v: "x", d: 1.5, day: "2024-03-01", ts: "1700000000123456000", amount: "12.5" },
                { dt: "b", id: "2", v: "y", d: null, day: null, ts: null, amount: null },
                { dt: "a", id: "5", v: "q", d: 12345678.9, day: "1969-12-31", ts: "1000", amount: "-0.001" },
              ],
              [
                { _kind: "-D", dt: "a", id: "1", v: "x", d: 1.5 },
                { dt: "a", id: "3", v: "z", d: -2.0e-5, day: "2000-02-29", ts: "946684800000000000", amount: "7" },
              ],
              { rows: [], compact: true },
              [{ dt: "c", id: "7", v: "level0", d: 0.1 }],
            ],
          },
        },
      ]);
      const catalog = await Catalog.open(wh);
      const t = await catalog.getTable("db.t");
      const latest = (await t.latestSnapshot())!.id;
      await runBatch("java", [["create-tag", wh, "db.t", "java-tag", "1"]]).then((r) => r.forEach(batchOutput));
      await t.createTag("rt-tag", latest, { timeRetainedMs: 86_400_000 + 1_500 });
      await t.fileIO.mkdirs(`${t.location}/branch/branch-dev`);
      await t.fileIO.writeFile(`${t.location}/consumer/consumer-flink-job`, new TextEncoder().encode('{"nextSnapshot":2}'));
      const java = await expectSameSystemTables(wh, "db.t", [...METADATA, "ro", "audit_log", "binlog"]);
      // filters Java pushes down (snapshot ids, file levels and buckets) select the same rows
      const filtered = await runBatch("java", [
        ["read", wh, "db.t$snapshots", "--sort", "--filter", "snapshot_id", ">", '"2"'],
        ["read", wh, "db.t$files", "--sort", "--filter", "bucket", "=", "1"],
      ]);
      const read = async (id: string, filter: Predicate) => {
        const s = await catalog.getTable(id);
        return sortRows(arrowToRows(await s.newRead({ filter }).toArrow((await s.newScan({ filter }).plan()).splits)));
      };
      expect(await read("db.t$snapshots", col("snapshot_id").gt(2n))).toEqual(sortRows(parseJsonLines(batchOutput(filtered[0]))));
      expect(await read("db.t$files", col("bucket").eq(1))).toEqual(sortRows(parseJsonLines(batchOutput(filtered[1]))));
      expect(parseJsonLines(batchOutput(filtered[1])).length).toBeGreaterThan(0);
      // the comparison saw rows of every kind
      expect(java.tags.map((r) => [r.tag_name, r.time_retained]).sort()).toEqual([["java-tag", null], ["rt-tag", "PT24H1.5S"]]);
      expect(java.consumers).toEqual([{ consumer_id: "flink-job", next_snapshot_id: "2" }]);
      expect(java.branches.map((r) => r.branch_name)).toEqual(["dev"]);
      expect(java.table_indexes.some((r) => r.index_type === "DELETION_VECTORS" && Array.isArray(r.dv_ranges) && r.dv_ranges.length > 0)).toBe(true);
      expect(java.files.map((r) => r.level)).toEqual([5, 5, 5, 5]); // deletion vectors: lookup compaction at every commit
      expect(java.partitions.map((r) => r.partition).sort()).toEqual(["dt=a", "dt=b", "dt=c"]);
      expect(java.ro.map((r) => r.id).sort()).toEqual(["2", "3", "5", "7"]);
    },
    SLOW,
  );

  it(
    "a primary-key table with uncompacted deletes and updates both wrote: $audit_log keeps the deletes, $ro is empty",
    async () => {
      const wh = tempDir();
      await writeTables("java", wh, [
        {
          identifier: "db.k",
          spec: {
            fields: [
              { name: "id", type: "INT NOT NULL" },
              { name: "v", type: "STRING" },
              { name: "b", type: "BOOLEAN" },
            ],
            primaryKeys: ["id"],
            options: { bucket: "1" },
            commits: [
              [
                { id: 1, v: "x", b: true },
                { id: 2, v: "y", b: null },
              ],
              [
                { _kind: "-D", id: 1, v: "x", b: true },
                { _kind: "+U", id: 2, v: "y2", b: false },
              ],
            ],
          },
        },
      ]);
      await writeTables("java", wh, [
        {
          identifier: "db.agg",
          spec: {
            fields: [
              { name: "id", type: "INT NOT NULL" },
              { name: "total", type: "BIGINT", description: "sum of amounts" },
              { name: "cnt", type: "INT" },
            ],
            primaryKeys: ["id"],
            options: { bucket: "1", "merge-engine": "aggregation", "fields.total.aggregate-function": "sum", "fields.cnt.aggregate-function": "max", "fields.cnt.ignore-retract": "true" },
            commits: [[{ id: 1, total: "5", cnt: 1 }]],
          },
        },
      ]);
      const agg = await expectSameSystemTables(wh, "db.agg", ["aggregation_fields", "options"]);
      expect(agg.aggregation_fields.find((r) => r.field_name === "total")).toEqual({ field_name: "total", field_type: "BIGINT", function: "[sum]", function_options: "[fields.total.aggregate-function]", comment: "sum of amounts" });
      const catalog = await Catalog.open(wh);
      const t = await catalog.getTable("db.k");
      const w = await t.newWrite({ commitUser: "rt" });
      await w.write(
        new arrow.RecordBatch({
          id: arrow.makeData({ type: new arrow.Int32(), length: 2, data: Int32Array.from([2, 9]) }),
          v: arrow.vectorFromArray(["y3", "n"], new arrow.Utf8()).data[0],
          b: arrow.vectorFromArray([null, true], new arrow.Bool()).data[0],
        }),
        { rowKinds: [RowKind.DELETE, RowKind.INSERT] },
      );
      await t.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
      await w.close();
      const java = await expectSameSystemTables(wh, "db.k", [...METADATA, "ro", "audit_log", "binlog"]);
      expect(java.audit_log.map((r) => [r.rowkind, r.id]).sort()).toEqual([["+I", 9], ["-D", 1], ["-D", 2]]);
      expect(java.ro).toEqual([]);
      expect(java.files.length).toBe(3);
    },
    SLOW,
  );

  it(
    "a partitioned append table paimon-rt wrote, with a schema change, an overwrite and tags",
    async () => {
      const wh = tempDir();
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase("db");
      let t = await catalog.createTable("db.a", {
        fields: [
          { name: "p", type: "INT NOT NULL" },
          { name: "id", type: "BIGINT" },
          { name: "s", type: "STRING" },
        ],
        partitionKeys: ["p"],
        comment: "events",
        options: { bucket: "-1", "file.format": "parquet" },
      });
      const write = async (rows: Array<[number, number, string | null]>, overwrite?: Record<string, unknown>, extra?: number[]) => {
        const w = await t.newWrite({ commitUser: "rt", overwrite: overwrite !== undefined } as never);
        const columns: Record<string, arrow.Data> = {
          p: arrow.makeData({ type: new arrow.Int32(), length: rows.length, data: Int32Array.from(rows, (r) => r[0]) }),
          id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r[1])) }),
          s: arrow.vectorFromArray(rows.map((r) => r[2]), new arrow.Utf8()).data[0],
        };
        if (extra) columns.n = arrow.vectorFromArray(extra, new arrow.Float64()).data[0];
        await w.write(new arrow.RecordBatch(columns));
        const c = t.newCommit({ commitUser: "rt" });
        const id = overwrite !== undefined ? await c.overwrite(await w.prepareCommit(), overwrite) : await c.commit(await w.prepareCommit());
        await w.close();
        return id;
      };
      await write([[1, 1, "a"], [2, 2, null], [1, 3, "c"]]);
      await write([[2, 4, "d"]]);
      await t.createTag("before-change", 2);
      t = await catalog.alterTable("db.a", [{ kind: "addColumn", name: "n", type: "DOUBLE", description: "added" }]);
      await write([[3, 5, "e"]], undefined, [2.5]);
      await write([[1, 6, "f"]], { p: 1 }, [1e21]);
      await t.createTag("after", undefined, { timeRetainedMs: 3_600_000 });
      const java = await expectSameSystemTables(wh, "db.a", [...METADATA, "ro", "audit_log", "binlog"]);
      expect(java.schemas.map((r) => r.schema_id).sort()).toEqual(["0", "1"]);
      expect(java.snapshots.map((r) => [r.snapshot_id, r.commit_kind]).sort()).toEqual([["1", "APPEND"], ["2", "APPEND"], ["3", "APPEND"], ["4", "OVERWRITE"]]);
      expect(java.partitions.map((r) => [r.partition, r.record_count]).sort()).toEqual([["p=1", "1"], ["p=2", "2"], ["p=3", "1"]]);
      // the sys database's tables describe the whole catalog (a second, primary-key table in another database)
      await catalog.createDatabase("db2");
      await catalog.createTable("db2.k", { fields: [{ name: "id", type: "INT NOT NULL" }], primaryKeys: ["id"], options: { bucket: "1", owner: "ops", createdAt: "1700000000000" } });
      const sys = ["sys.all_table_options", "sys.tables", "sys.partitions", "sys.catalog_options"];
      const javaSys = await javaRows(wh, sys);
      for (const [i, id] of sys.slice(0, 3).entries()) expect({ table: id, rows: await rtRows(catalog, id) }).toEqual({ table: id, rows: javaSys[i] });
      expect(javaSys[0].filter((r) => r.key === "path").map((r) => r.value).sort()).toEqual([`${wh}/db.db/a`, `${wh}/db2.db/k`]);
      expect(javaSys[1].map((r) => [r.table_name, r.partitioned, r.primary_key, r.owner, r.created_at]).sort()).toEqual([["a", true, false, null, null], ["k", false, true, "ops", "1700000000000"]]);
      expect(javaSys[2].map((r) => [r.table_name, r.partition_name, r.record_count]).sort()).toEqual([["a", "p=1", "1"], ["a", "p=2", "2"], ["a", "p=3", "1"]]);
      // catalog options: the warehouse (the oracle's Java catalog also sets cache-enabled)
      expect(await rtRows(catalog, "sys.catalog_options")).toEqual(javaSys[3].filter((r) => r.key !== "cache-enabled"));
    },
    SLOW,
  );

  it(
    "$statistics of Java's ANALYZE commit, inherited by paimon-rt's commits until a schema change; $audit_log and $binlog keep the retract results of partial-update and aggregation merges",
    async () => {
      const wh = tempDir();
      await writeTables("java", wh, [
        {
          identifier: "db.pu",
          spec: {
            fields: [
              { name: "id", type: "INT NOT NULL" },
              { name: "a", type: "STRING" },
              { name: "b", type: "BIGINT" },
            ],
            primaryKeys: ["id"],
            options: { bucket: "1", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true" },
            commits: [
              [
                { id: 1, a: "x", b: null },
                { id: 2, a: null, b: "20" },
              ],
              [
                { id: 2, a: "y", b: null },
                { _kind: "-D", id: 1, a: "x", b: null },
                { _kind: "-D", id: 9, a: "gone", b: "9" },
              ],
            ],
          },
        },
        {
          identifier: "db.agg",
          spec: {
            fields: [
              { name: "id", type: "INT NOT NULL" },
              { name: "total", type: "BIGINT" },
            ],
            primaryKeys: ["id"],
            options: { bucket: "1", "merge-engine": "aggregation", "fields.total.aggregate-function": "sum" },
            commits: [[{ id: 1, total: "5" }], [{ _kind: "-U", id: 1, total: "2" }, { _kind: "-D", id: 2, total: "7" }]],
          },
        },
      ]);
      // Flink / Spark ANALYZE's statistics (min / max as the column types' strings), committed by Java
      const stats = {
        snapshotId: 2,
        schemaId: 0,
        mergedRecordCount: 2,
        mergedRecordSize: 1234,
        colStats: { b: { colId: 2, distinctCount: 1, min: "20", max: "20", nullCount: 1 }, a: { colId: 1, distinctCount: 1, nullCount: 0, avgLen: 1, maxLen: 1 }, id: { colId: 0, min: "1", max: "2" } },
      };
      writeFileSync(`${wh}/stats.json`, JSON.stringify(stats));
      await runBatch("java", [["commit-statistics", wh, "db.pu", `${wh}/stats.json`]]).then((r) => r.forEach(batchOutput));
      const names = ["statistics", "snapshots", "audit_log", "binlog"];
      let java = await expectSameSystemTables(wh, "db.pu", names);
      expect(java.statistics).toHaveLength(1);
      expect(java.statistics[0]).toMatchObject({ snapshot_id: "2", schema_id: "0", mergedRecordCount: "2", mergedRecordSize: "1234" });
      expect(JSON.parse(java.statistics[0].colstat as string)).toEqual(stats.colStats);
      expect(java.snapshots.map((r) => [r.snapshot_id, r.commit_kind]).sort()).toEqual([["1", "APPEND"], ["2", "APPEND"], ["3", "ANALYZE"]]);
      // the merge's retract results: the removed row 1 and the never inserted 9 (Java forceKeepDelete)
      expect(java.audit_log.map((r) => [r.rowkind, r.id]).sort()).toEqual([["+I", 2], ["-D", 1], ["-D", 9]]);
      const agg = await expectSameSystemTables(wh, "db.agg", ["audit_log", "binlog", "statistics"]);
      expect(agg.audit_log.map((r) => [r.rowkind, r.id]).sort()).toEqual([["+I", 1], ["-D", 2]]);
      expect(agg.statistics).toEqual([]);
      // paimon-rt's commit keeps the statistics file, as Java's commits do
      const catalog = await Catalog.open(wh);
      let t = await catalog.getTable("db.pu");
      const write = async (id: number) => {
        const w = await t.newWrite({ commitUser: "rt" });
        await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), length: 1, data: Int32Array.from([id]) }), a: arrow.vectorFromArray(["rt"], new arrow.Utf8()).data[0], b: arrow.vectorFromArray([null], new arrow.Int64()).data[0] }));
        await t.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
        await w.close();
      };
      await write(3);
      expect((await t.latestSnapshot())!.statistics).toBe((await t.snapshot(3)).statistics);
      expect((await t.latestSnapshot())!.statistics).toMatch(/^stat-/);
      java = await expectSameSystemTables(wh, "db.pu", ["statistics", "snapshots"]);
      expect(java.statistics.map((r) => r.snapshot_id)).toEqual(["2"]);
      // after a schema change a commit drops them (Java: "Schema changed, stats will not be inherited")
      t = await catalog.alterTable("db.pu", [{ kind: "setOption", key: "snapshot.num-retained.max", value: "20" }]);
      await write(4);
      java = await expectSameSystemTables(wh, "db.pu", ["statistics"]);
      expect(java.statistics).toEqual([]);
      // (time travel to the ANALYZE snapshot reads them again)
      const travel = await runBatch("java", [["read", wh, "db.pu$statistics", "--option", "scan.snapshot-id=4"]]);
      const pinned = (await catalog.getTable("db.pu")).copy({ "scan.snapshot-id": "4" });
      const sys = await pinned.systemTable("statistics");
      expect(arrowToRows(await sys.newRead().toArrow((await sys.newScan().plan()).splits))).toEqual(parseJsonLines(batchOutput(travel[0])));
    },
    SLOW,
  );

  it(
    "paimon-rt's analyze(): Java reads its statistics back as the same $statistics, and its commits keep them",
    async () => {
      const wh = tempDir();
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase("db");
      const fields = [
        { name: "id", type: "BIGINT NOT NULL" },
        { name: "i8", type: "TINYINT" },
        { name: "i16", type: "SMALLINT" },
        { name: "n", type: "INT" },
        { name: "f", type: "FLOAT" },
        { name: "d", type: "DOUBLE" },
        { name: "amount", type: "DECIMAL(20,4)" },
        { name: "s", type: "STRING" },
        { name: "c", type: "CHAR(3)" },
        { name: "bin", type: "BYTES" },
        { name: "ok", type: "BOOLEAN" },
        { name: "day", type: "DATE" },
        { name: "t", type: "TIME" },
        { name: "ts", type: "TIMESTAMP(6)" },
        { name: "ts0", type: "TIMESTAMP(0)" },
        { name: "ltz", type: "TIMESTAMP_LTZ(3)" },
      ];
      const t = await catalog.createTable("db.s", { fields, primaryKeys: ["id"], options: { bucket: "2" } });
      await rtCommitRows(t, fields, [
        { id: "1", i8: -128, i16: 300, n: 7, f: 0.1, d: 1e-7, amount: "12345678901234.5678", s: "ü", c: "abc", bin: "AAEC", ok: true, day: "0001-01-01", t: 1000, ts: "1700000000123456000", ts0: "0", ltz: "86400000000000" },
        { id: "2", i8: 5, i16: null, n: -7, f: -3.5, d: Number.NaN, amount: "-1.0000", s: "", c: null, bin: null, ok: null, day: "2024-02-29", t: 86399999, ts: "-1000", ts0: "1000000000", ltz: null },
        { id: "3", i8: null, i16: 1, n: null, f: null, d: 2.5, amount: null, s: null, c: "x", bin: "", ok: false, day: null, t: null, ts: null, ts0: null, ltz: "1000000" },
      ]);
      await rtCommitRows(t, fields, [{ _kind: "-D", id: "3" }]);
      expect(await t.analyze({ commitUser: "rt" })).toBe(3);
      const java = await expectSameSystemTables(wh, "db.s", ["statistics"]);
      expect(java.statistics.map((r) => [r.snapshot_id, r.mergedRecordCount])).toEqual([["2", "2"]]);
      expect(Object.keys(JSON.parse(java.statistics[0].colstat as string))).toEqual(fields.map((f) => f.name));
      // a Java commit after it keeps the statistics file
      await writeTables("java", wh, [{ identifier: "db.s", spec: { fields, primaryKeys: ["id"], options: { bucket: "2" }, ignoreIfExists: true, commits: [[{ id: "4", n: 1 }]] } as never }]);
      const latest = (await (await catalog.getTable("db.s")).latestSnapshot())!;
      expect([latest.id, latest.statistics]).toEqual([4, (await t.snapshot(3)).statistics]);
      await expectSameSystemTables(wh, "db.s", ["statistics"]);
    },
    SLOW,
  );
});
