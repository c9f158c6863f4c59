/**
 * Read-only file systems (HTTP, a read-only MemoryFileIO) refuse writes, commits and catalog
 * changes up front with READ_ONLY: before rows are buffered or Parquet-encoded, before an empty
 * commit could be accepted, and without sending a single request.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { HttpFileIO } from "../../src/fs/http-file-io.js";
import { MemoryFileIO } from "../../src/fs/memory-file-io.js";
import type { Table } from "../../src/table/table.js";
import { type StaticServer, startStaticServer } from "../support/static-server.js";

let dir: string;
let server: StaticServer;
let sent = 0;

async function expectReadOnly(action: () => unknown, message: RegExp): Promise<void> {
  const before = sent;
  let error: unknown;
  try {
    await action();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(PaimonError);
  expect((error as PaimonError).code).toBe("READ_ONLY");
  expect((error as PaimonError).message).toMatch(message);
  expect(sent - before).toBe(0); // refused up front: no request at all
}

function batch(ids: number[], dts: string[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    dt: arrow.vectorFromArray(dts, new arrow.Utf8()).data[0],
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "paimon-rt-readonly-"));
  const local = await Catalog.open(join(dir, "wh"));
  await local.createDatabase("db");
  const t = await local.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"] });
  const w = await t.newWrite({ commitUser: "u" });
  await w.write(batch([1, 2], ["a", "b"]));
  expect(await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(1), 1)).toBe(1);
  server = await startStaticServer(dir);
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function httpCatalog(): Promise<Catalog> {
  const fileIO = new HttpFileIO({
    fetch: (input, init) => {
      sent++;
      return fetch(input, init);
    },
  });
  return Catalog.open(`${server.base}/files/wh`, { fileIO });
}

describe("READ_ONLY over HTTP", () => {
  let table: Table;
  beforeAll(async () => {
    table = await (await httpCatalog()).getTable("db.t");
  });

  it("newWrite is refused before any row is buffered or encoded", async () => {
    await expectReadOnly(() => table.newWrite({ commitUser: "u" }), /cannot write table db\.t: its file system \(http\) is read-only/);
    await expectReadOnly(() => table.newWrite({ commitUser: "u", realtime: {} } as never), /cannot write table db\.t/);
  });

  it("newCommit is refused, so an empty commit cannot silently return null", async () => {
    await expectReadOnly(() => table.newCommit({ commitUser: "u" }).commit([], 1), /cannot commit to table db\.t/);
    await expectReadOnly(() => table.newCommit({ commitUser: "u" }), /cannot commit to table db\.t/);
  });

  it("truncate, dropPartitions, rollbackTo and removeOrphanFiles are refused; a dry run still lists", async () => {
    await expectReadOnly(() => table.truncate({ commitUser: "u" }), /cannot commit to table db\.t/);
    await expectReadOnly(() => table.dropPartitions([{ dt: "a" }], { commitUser: "u" }), /cannot commit to table db\.t/);
    await expectReadOnly(() => table.rollbackTo(1), /cannot roll back table db\.t/);
    await expectReadOnly(() => table.removeOrphanFiles(), /cannot remove orphan files of table db\.t/);
    const listing = await table.removeOrphanFiles({ dryRun: true, olderThanMs: 0 });
    expect(listing).toEqual({ deleted: [], bytes: 0 });
  });

  it("a time-travel view over HTTP is refused with READ_ONLY too", async () => {
    const view = await table.atSnapshot(1);
    await expectReadOnly(() => view.newWrite({ commitUser: "u" }), /cannot write table db\.t/);
  });

  it("catalog changes are refused before anything is looked up", async () => {
    const catalog = await httpCatalog();
    await expectReadOnly(() => catalog.createDatabase("db2"), /cannot create database db2: the warehouse .* is on a read-only file system \(http\)/);
    await expectReadOnly(() => catalog.createDatabase("db", { ignoreIfExists: true }), /cannot create database db:/);
    await expectReadOnly(() => catalog.dropDatabase("db", { cascade: true }), /cannot drop database db:/);
    await expectReadOnly(() => catalog.createTable("db.u", { fields: [{ name: "id", type: "INT" }] }), /cannot create table db\.u:/);
    await expectReadOnly(() => catalog.dropTable("db.t"), /cannot drop table db\.t:/);
    await expectReadOnly(() => catalog.alterTable("db.t", [{ kind: "setOption", key: "a", value: "b" }]), /cannot alter table db\.t:/);
  });

  it("reads still work and the table is unchanged", async () => {
    const plan = await table.newScan().plan();
    const rows = (await table.newRead().toArrow(plan.splits)).toArray().map((r) => [Number(r.id), r.dt]).sort();
    expect(rows).toEqual([[1, "a"], [2, "b"]]);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([1]);
  });
});

describe("READ_ONLY on a read-only MemoryFileIO", () => {
  it("refuses writes, commits and catalog changes; nothing changes in the store", async () => {
    const name = `ro-${Date.now()}`;
    const writable = await Catalog.open(`memory://${name}`);
    await writable.createDatabase("db");
    await writable.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "dt", type: "STRING" }] });
    const catalog = await Catalog.open(`memory://${name}`, { fileIO: new MemoryFileIO({ readOnly: true }) });
    const table = await catalog.getTable("db.t");
    await expectReadOnly(() => table.newWrite({ commitUser: "u" }), /cannot write table db\.t: its file system \(memory\) is read-only/);
    await expectReadOnly(() => table.newCommit({ commitUser: "u" }), /cannot commit to table db\.t/);
    await expectReadOnly(() => catalog.createTable("db.u", { fields: [{ name: "id", type: "INT" }] }), /cannot create table db\.u/);
    expect(await writable.listTables("db")).toEqual(["t"]);
    expect(await (await writable.getTable("db.t")).latestSnapshot()).toBeNull();
    MemoryFileIO.clear(name);
  });
});
