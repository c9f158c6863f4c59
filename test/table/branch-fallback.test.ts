// scan.fallback-branch / scan.primary-branch on tables paimon-rt writes (Java's rows for the same
// shapes: test/interop/branch-fallback-interop.test.ts): which branch each partition is read from,
// filters deciding nothing about it, copies, writes to the table's own branch, and the refusals.
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";

afterAll(cleanupDirs);

async function put(table: Table, rows: Array<[string, number]>): Promise<void> {
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(
    new arrow.RecordBatch({
      dt: arrow.vectorFromArray(rows.map((r) => r[0]), new arrow.Utf8()).data[0],
      id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r[1])) }),
    }),
  );
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
}

const rows = async (table: Table, filter?: Predicate) => {
  const plan = await table.newScan({ filter }).plan();
  const t = await table.newRead({ filter, predicateFilter: filter !== undefined }).toArrow(plan.splits);
  return t.toArray().map((r) => `${r.dt}:${Number(r.id)}`).sort();
};

describe("fallback and primary branches", () => {
  it("reads each partition from the first branch that has it; writes go to the table's own branch", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-fallback-"));
    await catalog.createDatabase("db");
    const main = await catalog.createTable("db.t", { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "id", type: "BIGINT" }], partitionKeys: ["dt"], options: { bucket: "-1" } });
    await put(main, [["a", 1], ["b", 2]]);
    await main.createBranch("b");
    const branch = await catalog.getTable("db.t$branch_b");
    await put(branch, [["a", 10], ["c", 30]]);
    // refusals with Java's messages, nothing changed
    const schemaId = (await catalog.getTable("db.t")).schema.id;
    expect((await expectCode(catalog.alterTable("db.t", [{ kind: "setOption", key: "scan.fallback-branch", value: "x" }]), "INVALID_ARGUMENT")).message).toBe("Cannot set 'scan.fallback-branch' = 'x' because the branch 'x' does not exist.");
    expect((await expectCode(catalog.alterTable("db.t", [{ kind: "setOption", key: "scan.fallback-branch", value: "b" }, { kind: "setOption", key: "scan.primary-branch", value: "b" }]), "INVALID_ARGUMENT")).message).toBe("Cannot set both 'scan.fallback-branch' and 'scan.primary-branch' at the same time.");
    expect((await catalog.getTable("db.t")).schema.id).toBe(schemaId);

    const fallback = await catalog.alterTable("db.t", [{ kind: "setOption", key: "scan.fallback-branch", value: "b" }]);
    expect(await rows(fallback)).toEqual(["a:1", "b:2", "c:30"]);
    const plan = await fallback.newScan().plan();
    expect(plan.splits.map((s) => `${s.partition.dt}:${s.branch ?? "own"}`).sort()).toEqual(["a:own", "b:own", "c:b"]);
    // a partition of the first branch without a matching row still hides the second's
    expect(await rows(fallback, col("id").eq(10))).toEqual([]);
    expect(await rows(fallback, col("id").ge(2))).toEqual(["b:2", "c:30"]);
    expect(await rows(fallback, col("dt").eq("c"))).toEqual(["c:30"]);
    // copies keep the other branch; an option naming another in a copy changes nothing (Java's copy)
    expect(await rows(fallback.copy({ "scan.fallback-branch": "nope", "read.batch-size": 1 }))).toEqual(["a:1", "b:2", "c:30"]);
    expect(await rows(main.copy({ "scan.fallback-branch": "b" }))).toEqual(["a:1", "b:2"]);
    // time travel: main's snapshot 1 is older than every snapshot of b: b's first (Java rewriteOtherOptions)
    expect(await rows(fallback.copy({ "scan.snapshot-id": 1 }))).toEqual(["a:1", "b:2", "c:30"]);
    // writes go to main
    await put(fallback, [["d", 4]]);
    expect(await rows(await catalog.getTable("db.t$branch_b"))).toEqual(["a:10", "c:30"]);
    expect(await rows(await catalog.getTable("db.t"))).toEqual(["a:1", "b:2", "c:30", "d:4"]);

    const primary = await catalog.alterTable("db.t", [{ kind: "removeOption", key: "scan.fallback-branch" }, { kind: "setOption", key: "scan.primary-branch", value: "b" }]);
    expect(await rows(primary)).toEqual(["a:10", "b:2", "c:30", "d:4"]);
    // the branch's own fallback to main reads the same
    const onBranch = await catalog.alterTable("db.t$branch_b", [{ kind: "setOption", key: "scan.fallback-branch", value: "main" }]);
    expect(await rows(onBranch)).toEqual(["a:10", "b:2", "c:30", "d:4"]);
    // different column types: Java's message at plan
    await catalog.alterTable("db.t$branch_b", [{ kind: "addColumn", name: "w", type: "INT" }]);
    const e = await expectCode((await catalog.getTable("db.t")).newScan().plan(), "INVALID_ARGUMENT");
    expect(e.message).toBe("Branch main and b does not have the same row type.\nRow type of branch main is ROW<`dt` STRING NOT NULL, `id` BIGINT>.\nRow type of branch b is ROW<`dt` STRING NOT NULL, `id` BIGINT, `w` INT>.");
    // ... and at the system tables built on the fallback scan
    expect((await expectCode(rows(await catalog.getTable("db.t$partitions")), "INVALID_ARGUMENT")).message).toBe(e.message);
  });

  it("system tables: $partitions lists both branches, $files the own partitions (the primary branch's files where it has them), $buckets the own branch", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-fallback-system-"));
    await catalog.createDatabase("db");
    const main = await catalog.createTable("db.t", { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "id", type: "BIGINT" }], partitionKeys: ["dt"], options: { bucket: "-1", "row-tracking.enabled": "true" } });
    await put(main, [["a", 1], ["b", 2]]);
    await main.createBranch("b");
    await put(await catalog.getTable("db.t$branch_b"), [["a", 10], ["a", 11], ["c", 30]]);
    const read = async (id: string, column: string) => {
      const t = await catalog.getTable(id);
      return (await t.newRead().toArrow((await t.newScan().plan()).splits)).toArray().map((r) => `${r.partition}:${r[column]}`).sort();
    };
    await catalog.alterTable("db.t", [{ kind: "setOption", key: "scan.fallback-branch", value: "b" }]);
    expect(await read("db.t$partitions", "record_count")).toEqual(["dt=a:1", "dt=b:1", "dt=c:1"]);
    expect(await read("db.t$files", "record_count")).toEqual(["{a}:1", "{b}:1"]);
    expect(await read("db.t$buckets", "record_count")).toEqual(["{a}:1", "{b}:1"]);
    // $row_tracking reads the other branch's rows in Java: refused here
    const tracking = await catalog.getTable("db.t$row_tracking");
    const e = await expectCode(tracking.newRead().toArrow((await tracking.newScan().plan()).splits), "UNSUPPORTED");
    expect(e.message).toMatch(/^db\.t\$row_tracking: reading the rows of branch 'b' .* is not supported/);

    await catalog.alterTable("db.t", [{ kind: "removeOption", key: "scan.fallback-branch" }, { kind: "setOption", key: "scan.primary-branch", value: "b" }]);
    expect(await read("db.t$partitions", "record_count")).toEqual(["dt=a:2", "dt=b:1", "dt=c:1"]);
    expect(await read("db.t$files", "record_count")).toEqual(["{a}:2", "{b}:1"]);
    expect(await read("db.t$buckets", "record_count")).toEqual(["{a}:1", "{b}:1"]);
  });
});
