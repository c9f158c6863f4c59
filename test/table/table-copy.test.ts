// Table.copy(dynamicOptions) (Java `FileStoreTable.copy`): options laid over the table's for its
// scans and reads, Java's refusals of immutable options, time travel and incremental reads
// through a copy, copies with such options read-only, and `paimon-rt read --option key=value`.
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { main } from "../../src/cli/main.js";
import { col } from "../../src/predicate/predicate.js";
import { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";

afterAll(cleanupDirs);

function batch(rows: Array<[number, string]>): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r[0])) }),
    v: arrow.vectorFromArray(rows.map((r) => r[1]), new arrow.Utf8()).data[0]!,
  });
}

async function commit(table: Table, rows: Array<[number, string]>, kinds?: number[]): Promise<void> {
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(batch(rows), kinds ? { rowKinds: kinds } : {});
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
}

async function rows(table: Table, withRowKind = false): Promise<string[]> {
  const t = await table.newRead({ withRowKind }).toArrow((await table.newScan().plan()).splits);
  return (t.toArray() as Array<{ _VALUE_KIND?: number; id: bigint; v: string }>).map((r) => `${withRowKind ? `${["+I", "-U", "+U", "-D"][r._VALUE_KIND!]} ` : ""}${r.id}=${r.v}`).sort();
}

async function pkTable(): Promise<{ table: Table; location: string }> {
  const catalog = await Catalog.open(tempDir("paimon-rt-copy-"));
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "1" } });
  await commit(table, [[1, "a"], [2, "b"]]); // 1
  await commit(table, [[1, "a2"], [3, "c"]]); // 2
  await commit(table, [[2, "b"]], [RowKind.DELETE]); // 3
  return { table, location: table.location };
}

describe("Table.copy", () => {
  it("incremental reads and time travel through a copy; the table itself is unchanged", async () => {
    const { table } = await pkTable();
    expect(await rows(table.copy({ "incremental-between": "1,3" }), true)).toEqual(["+I 1=a2", "+I 3=c", "-D 2=b"]);
    expect(await rows(table.copy({ "incremental-between": "0,1", "incremental-between-scan-mode": "delta" }), true)).toEqual(["+I 1=a", "+I 2=b"]);
    expect(await rows(table.copy({ "incremental-between": "1,3", "incremental-between-scan-mode": "diff" }), true)).toEqual(["+I 1=a2", "+I 3=c"]);
    expect(await rows(table.copy({ "incremental-between": "2,2" }))).toEqual([]);
    // without row kinds, as Java: the records, deletes included
    expect(await rows(table.copy({ "incremental-between": "2,3" }))).toEqual(["2=b"]);
    expect(await rows(table.copy({ "scan.snapshot-id": 1 }))).toEqual(["1=a", "2=b"]);
    expect(await rows(table.copy({ "scan.snapshot-id": "2" }).copy({ "scan.snapshot-id": "1" }))).toEqual(["1=a", "2=b"]);
    expect(await rows(table)).toEqual(["1=a2", "3=c"]);
    expect(table.options["incremental-between"]).toBeUndefined();
    // a timestamp range covering snapshots 2 and 3
    const [s1] = await table.listSnapshots();
    expect(await rows(table.copy({ "incremental-between-timestamp": `${s1.timeMillis},${Date.now() + 1000}` }), true)).toEqual(["+I 1=a2", "+I 3=c", "-D 2=b"]);
  });

  it("projections and exact filters apply to incremental reads (delta and diff)", async () => {
    const { table } = await pkTable();
    const read = async (t: Table, options: Parameters<Table["newRead"]>[0]) => {
      const out = await t.newRead(options).toArrow((await t.newScan({ filter: options?.filter }).plan()).splits);
      return out.toArray().map((r) => JSON.stringify(r, (_, v) => (typeof v === "bigint" ? Number(v) : v))).sort();
    };
    const delta = table.copy({ "incremental-between": "0,3" });
    expect(await read(delta, { projection: ["v"], withRowKind: true })).toEqual(['{"_VALUE_KIND":0,"v":"a"}', '{"_VALUE_KIND":0,"v":"a2"}', '{"_VALUE_KIND":0,"v":"b"}', '{"_VALUE_KIND":0,"v":"c"}', '{"_VALUE_KIND":3,"v":"b"}']);
    expect(await read(delta, { filter: col("id").eq(2), predicateFilter: true, withRowKind: true })).toEqual(['{"_VALUE_KIND":0,"id":2,"v":"b"}', '{"_VALUE_KIND":3,"id":2,"v":"b"}']);
    const diff = table.copy({ "incremental-between": "1,3", "incremental-between-scan-mode": "diff" });
    expect(await read(diff, { projection: ["v"] })).toEqual(['{"v":"a2"}', '{"v":"c"}']);
    expect(await read(diff, { filter: col("v").eq("c"), predicateFilter: true })).toEqual(['{"id":3,"v":"c"}']);
  });

  it("refuses what Java refuses: immutable options, bucket to -1, the deletion-vector mode, bad values where they are read", async () => {
    const { table } = await pkTable();
    // (an immutable option the schema does not set is refused even at its default, as Java compares with the stored value)
    const refused: Array<Record<string, string | number | boolean>> = [{ "merge-engine": "first-row" }, { "merge-engine": "deduplicate" }, { "primary-key": "v" }, { partition: "v" }, { "sequence.field": "v" }, { bucket: -1 }, { "deletion-vectors.enabled": true }];
    for (const options of refused) {
      await expectCode(() => table.copy(options), "UNSUPPORTED");
    }
    await expectCode(() => table.copy({ "read.batch-size": "many" }).newRead(), "INVALID_ARGUMENT");
    // unchanged values of immutable options are fine; a fixed bucket count may change (a rescale)
    expect(await rows(table.copy({ bucket: "1" }).copy({ bucket: 1 }))).toEqual(["1=a2", "3=c"]);
    await expectCode(table.copy({ "incremental-between": "3,1" }).newScan().plan(), "INVALID_ARGUMENT");
    await expectCode(table.copy({ "incremental-between": "0,9" }).newScan().plan(), "NOT_FOUND");
    await expectCode(table.copy({ "incremental-between": "1,3", "incremental-between-scan-mode": "x" }).newScan().plan(), "INVALID_ARGUMENT");
    await expectCode(table.copy({ "incremental-to-auto-tag": "2024-01-01" }).newScan().plan(), "UNSUPPORTED");
    await expectCode(table.copy({ "scan.snapshot-id": "x" }).newScan().plan(), "INVALID_ARGUMENT");
  });

  it("a copy with time-travel or incremental options is read-only; other copies write with their options", async () => {
    const { table } = await pkTable();
    const view = table.copy({ "incremental-between": "1,2" });
    await expectCode(view.newWrite({ commitUser: "u" }), "UNSUPPORTED");
    await expectCode(() => view.newCommit({ commitUser: "u" }), "UNSUPPORTED");
    await expectCode(() => table.copy({ "scan.snapshot-id": 1 }).newCommit({ commitUser: "u" }), "UNSUPPORTED");
    await expectCode(view.copy({ "read.batch-size": 10 }).newWrite({ commitUser: "u" }), "UNSUPPORTED");
    const writer = table.copy({ "target-file-size": "1 mb" });
    await commit(writer, [[4, "d"]]);
    expect(await rows(table)).toEqual(["1=a2", "3=c", "4=d"]);
  });

  it("paimon-rt read --option key=value (repeatable)", async () => {
    const { location } = await pkTable();
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(`ERR ${l}`) };
    expect(await main(["read", location, "--format", "json", "--option", "incremental-between=1,3", "--option", "incremental-between-scan-mode=diff"], io)).toBe(0);
    expect(out.join("\n").split("\n").filter((l) => l !== "").sort()).toEqual(['{"id":1,"v":"a2"}', '{"id":3,"v":"c"}']);
    await expect(main(["read", location, "--option", "incremental-between"], io)).rejects.toThrow("--option needs key=value, got incremental-between");
  });
});
