// Changing `bucket` of a fixed-bucket table (Java's rescale): a partition written with the old
// count is written again only by an overwrite. An ordinary write beside the old layout put a key
// in two buckets (a primary-key table returned 15 rows for 10 keys); now it is refused at write
// (UNSUPPORTED) and, for messages prepared before the change, at commit (COMMIT_CONFLICT), with
// nothing written or published.
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { tempDirs } from "../support/temp-dirs.js";
import { failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-rescale-");

function batch(ids: number[], tag: string, dt?: string): arrow.RecordBatch {
  const cols: Record<string, arrow.Data> = {
    id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.from(ids) }),
    v: arrow.vectorFromArray(ids.map((i) => `${tag}${i}`), new arrow.Utf8()).data[0]!,
  };
  if (dt !== undefined) cols.dt = arrow.vectorFromArray(ids.map(() => dt), new arrow.Utf8()).data[0]!;
  return new arrow.RecordBatch(cols);
}

async function write(table: Table, b: arrow.RecordBatch, overwrite = false): Promise<number | null> {
  const w = await table.newWrite({ commitUser: "u", overwrite });
  try {
    await w.write(b);
    const messages = await w.prepareCommit();
    const commit = table.newCommit({ commitUser: "u" });
    return overwrite ? await commit.overwrite(messages) : await commit.commit(messages);
  } finally {
    await w.close();
  }
}

async function rows(table: Table): Promise<string[]> {
  const t = await table.newRead().toArrow((await table.newScan().plan()).splits);
  return t.toArray().map((r) => `${r.id}:${r.v}${r.dt === undefined ? "" : `@${r.dt}`}`).sort();
}

const ids = Array.from({ length: 10 }, (_, i) => i);
const fields = [
  { name: "id", type: "INT NOT NULL" },
  { name: "v", type: "STRING" },
];

describe("changing the bucket count (rescale)", () => {
  it("primary-key table: an ordinary write after the change is UNSUPPORTED and writes nothing; an overwrite rescales, then writes go on", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    let table = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options: { bucket: "2" } });
    await write(table, batch(ids, "a"));
    table = await catalog.alterTable("db.t", [{ kind: "setOption", key: "bucket", value: "4" }]);
    const files = async () => (await table.manifestStore.liveEntries((await table.latestSnapshot())!)).map((e) => e.totalBuckets);
    const e = await failure(() => write(table, batch(ids, "b")));
    expect(e.code).toBe("UNSUPPORTED");
    expect(e.message).toContain("bucket count 4");
    expect(e.message).toContain("bucket count 2");
    expect((await table.listSnapshots()).length).toBe(1);
    expect(await rows(table)).toEqual(ids.map((i) => `${i}:a${i}`).sort());
    // rescale: overwrite with the new count
    await write(table, batch(ids, "c"), true);
    expect(new Set(await files())).toEqual(new Set([4]));
    await write(table, batch([3, 11], "d"));
    expect(await rows(table)).toEqual([...ids.filter((i) => i !== 3).map((i) => `${i}:c${i}`), "3:d3", "11:d11"].sort());
  });

  it("partitioned: only the partitions of the old layout are refused; a new partition takes the new count", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    let table = await catalog.createTable("db.p", { fields: [...fields, { name: "dt", type: "STRING" }], primaryKeys: ["id", "dt"], partitionKeys: ["dt"], options: { bucket: "2" } });
    await write(table, batch(ids, "a", "x"));
    table = await catalog.alterTable("db.p", [{ kind: "setOption", key: "bucket", value: "3" }]);
    expect((await failure(() => write(table, batch([1], "b", "x")))).message).toContain("partition dt=x");
    await write(table, batch([1, 2], "b", "y"));
    expect(await rows(table)).toEqual([...ids.map((i) => `${i}:a${i}@x`), "1:b1@y", "2:b2@y"].sort());
  });

  it("bucketed append table: the same rule", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    let table = await catalog.createTable("db.a", { fields, options: { bucket: "2", "bucket-key": "id" } });
    await write(table, batch([1, 2], "a"));
    table = await catalog.alterTable("db.a", [{ kind: "setOption", key: "bucket", value: "5" }]);
    expect((await failure(() => write(table, batch([3], "b")))).code).toBe("UNSUPPORTED");
    await write(table, batch([1, 2, 3], "c"), true);
    await write(table, batch([4], "d"));
    expect(await rows(table)).toEqual(["1:c1", "2:c2", "3:c3", "4:d4"]);
  });

  it("messages prepared with the old count, committed after another writer rescaled, are a COMMIT_CONFLICT and publish nothing", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const before = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options: { bucket: "2" } });
    await write(before, batch(ids, "a"));
    const w = await before.newWrite({ commitUser: "late" });
    await w.write(batch([1, 2, 3], "late"));
    const messages = await w.prepareCommit();
    await w.close();
    const after = await catalog.alterTable("db.t", [{ kind: "setOption", key: "bucket", value: "4" }]);
    await write(after, batch(ids, "r"), true);
    const snapshots = (await after.listSnapshots()).length;
    const e = await failure(() => before.newCommit({ commitUser: "late" }).commit(messages));
    expect(e.code).toBe("COMMIT_CONFLICT");
    expect(e.message).toContain("new bucket count 2");
    expect((await after.listSnapshots()).length).toBe(snapshots);
    expect(await rows(after)).toEqual(ids.map((i) => `${i}:r${i}`).sort());
  });
});
