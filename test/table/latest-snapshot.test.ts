// Finding the latest snapshot with a cached one (SnapshotManager.latestSnapshot): the hint and the
// cached snapshot's successor are read together, and every change another table object (another
// process) makes is seen by the next call: new commits, a rollback, and a new commit that reuses
// a rolled-back id.
import * as arrow from "apache-arrow";
import { afterAll, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, tempDir } from "../realtime/helpers.js";

afterAll(cleanupDirs);

async function append(table: Table, ids: number[]): Promise<number> {
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids, BigInt) }) }));
  const id = await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
  return id!;
}

/** A new table, and a second table object of it (another process's view). */
async function writerAndReader(): Promise<{ writer: Table; reader: Table }> {
  const warehouse = tempDir("paimon-rt-latest-");
  const catalog = await Catalog.open(warehouse);
  await catalog.createDatabase("db");
  const writer = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }] });
  return { writer, reader: await (await Catalog.open(warehouse)).getTable("db.t") };
}

it("a table object that cached the latest snapshot sees another's commits, rollback and a reused id", async () => {
  const { writer, reader } = await writerAndReader();
  expect(await reader.latestSnapshot()).toBeNull();
  await append(writer, [1]);
  await append(writer, [2]);
  expect((await reader.latestSnapshot())?.id).toBe(2);
  expect((await reader.latestSnapshot())?.id).toBe(2); // cached, still the latest
  await append(writer, [3]);
  const third = await reader.latestSnapshot();
  expect(third?.id).toBe(3);
  await writer.rollbackTo(2);
  expect((await reader.latestSnapshot())?.id).toBe(2);
  await append(writer, [4, 5]);
  const reused = await reader.latestSnapshot();
  expect(reused?.id).toBe(3);
  expect(reused).not.toEqual(third); // the new snapshot 3, not the rolled-back one
  expect(reused?.deltaRecordCount).toBe(2n);
});

it("on a synchronous file system the cached snapshot needs no hint: a stale, missing or wrong LATEST changes no answer", async () => {
  const { writer, reader } = await writerAndReader();
  const hint = `${writer.location}/snapshot/LATEST`;
  await append(writer, [1]);
  await append(writer, [2]);
  expect((await reader.latestSnapshot())?.id).toBe(2);
  await writer.fileIO.writeFile(hint, "1"); // stale (a hint write that failed after a commit)
  expect((await reader.latestSnapshot())?.id).toBe(2);
  await writer.fileIO.delete(hint);
  expect((await reader.latestSnapshot())?.id).toBe(2);
  await append(writer, [3]); // rewrites the hint
  await writer.fileIO.writeFile(hint, "1");
  expect((await reader.latestSnapshot())?.id).toBe(3); // found past the stale hint
  await writer.fileIO.writeFile(hint, "7"); // names a snapshot that does not exist
  expect((await reader.latestSnapshot())?.id).toBe(3);
  await writer.rollbackTo(2); // the cached snapshot is gone
  await writer.fileIO.writeFile(hint, "3");
  expect((await reader.latestSnapshot())?.id).toBe(2);
});

it("a plan of a table object with a cached snapshot sees raw writes of snapshot files: a successor, and the cached id rewritten", async () => {
  const { writer, reader } = await writerAndReader();
  const dir = `${writer.location}/snapshot`;
  const ids = async () => {
    const plan = await reader.newScan().plan();
    const rows: bigint[] = [];
    for await (const b of await reader.newRead().createReader(plan.splits)) rows.push(...(b.getChild("id")!.toArray() as BigInt64Array));
    return { snapshotId: plan.snapshotId, rows: rows.sort((a, b) => (a < b ? -1 : 1)) };
  };
  await append(writer, [1]);
  await append(writer, [2]);
  expect(await ids()).toEqual({ snapshotId: 2, rows: [1n, 2n] });
  expect(await ids()).toEqual({ snapshotId: 2, rows: [1n, 2n] }); // the cached snapshot
  // a second table object commits: the next plan sees it
  await append(writer, [3]);
  expect(await ids()).toEqual({ snapshotId: 3, rows: [1n, 2n, 3n] });
  // a raw write of the successor (snapshot 2's text as snapshot 4, the hint left at 3)
  const second = new TextDecoder().decode(await writer.fileIO.readFile(`${dir}/snapshot-2`));
  await writer.fileIO.writeFile(`${dir}/snapshot-4`, second.replace(/"id"\s*:\s*2/, '"id" : 4'));
  expect(await ids()).toEqual({ snapshotId: 4, rows: [1n, 2n] });
  // the cached snapshot's file rewritten in place (another snapshot's content): seen
  const third = new TextDecoder().decode(await writer.fileIO.readFile(`${dir}/snapshot-3`));
  await writer.fileIO.writeFile(`${dir}/snapshot-4`, third.replace(/"id"\s*:\s*3/, '"id" : 4'));
  expect(await ids()).toEqual({ snapshotId: 4, rows: [1n, 2n, 3n] });
  // the same text with a byte order mark: the same snapshot (the file is compared as text)
  const cached = await reader.latestSnapshot();
  const text = new TextDecoder().decode(await writer.fileIO.readFile(`${dir}/snapshot-4`));
  await writer.fileIO.writeFile(`${dir}/snapshot-4`, "\uFEFF" + text);
  expect(await reader.latestSnapshot()).toBe(cached);
  expect(await reader.latestSnapshot()).toBe(cached);
  expect(await ids()).toEqual({ snapshotId: 4, rows: [1n, 2n, 3n] });
});
