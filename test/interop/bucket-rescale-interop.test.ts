// A rescale done by paimon-rt (ALTER bucket, then an overwrite with the new count) leaves a table
// Java Paimon reads exactly, every file with the new bucket count; the write paimon-rt refuses in
// between changes nothing Java sees.
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, readTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-rescale-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

const batch = (ids: number[], tag: string) =>
  new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.from(ids) }),
    v: arrow.vectorFromArray(ids.map((i) => `${tag}${i}`), new arrow.Utf8()).data[0]!,
  });

async function write(table: Table, b: arrow.RecordBatch, overwrite = false): Promise<void> {
  const w = await table.newWrite({ commitUser: "u", overwrite });
  try {
    await w.write(b);
    const messages = await w.prepareCommit();
    if (overwrite) await table.newCommit({ commitUser: "u" }).overwrite(messages);
    else await table.newCommit({ commitUser: "u" }).commit(messages);
  } finally {
    await w.close();
  }
}

describe.skipIf(noJava !== null)("bucket rescale read by Java", () => {
  it("ALTER bucket 2 → 4, a refused ordinary write, an overwrite: Java reads every key once with its last value", async () => {
    const wh = path.join(root, "wh");
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase("db");
    let table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "2" } });
    const ids = Array.from({ length: 20 }, (_, i) => i);
    await write(table, batch(ids, "a"));
    table = await catalog.alterTable("db.t", [{ kind: "setOption", key: "bucket", value: "4" }]);
    await expect(write(table, batch(ids, "b"))).rejects.toBeInstanceOf(PaimonError);
    await write(table, batch(ids, "c"), true);
    await write(table, batch([5, 25], "d"));
    const [rows] = await readTables("java", [{ warehouse: wh, identifier: "db.t", sort: true }]);
    if (rows instanceof Error) throw rows;
    const expected = [...ids.map((i) => ({ id: i, v: i === 5 ? "d5" : `c${i}` })), { id: 25, v: "d25" }];
    expect(rows.map((r) => `${r.id}:${r.v}`).sort()).toEqual(expected.map((r) => `${r.id}:${r.v}`).sort());
    expect(new Set((await table.manifestStore.liveEntries((await table.latestSnapshot())!)).map((e) => e.totalBuckets))).toEqual(new Set([4]));
  }, 300_000);
});
