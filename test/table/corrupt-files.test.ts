import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { Table } from "../../src/table/table.js";
import { failure } from "./helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function tableWithData(): Promise<Table> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-corrupt-"));
  dirs.push(dir);
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "s", type: "STRING" }] });
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 2, data: BigInt64Array.from([1n, 2n]) }), s: arrow.vectorFromArray(["a", "b"], new arrow.Utf8()).data[0] }));
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  return table;
}

const readAll = async (table: Table) => table.newRead().toArrow((await table.newScan().plan()).splits);

describe("corrupt files", () => {
  it("a truncated snapshot file is CORRUPT_FILE naming it", async () => {
    const table = await tableWithData();
    const path = table.paths.snapshot(1);
    const text = await table.fileIO.readFile(path);
    await table.fileIO.writeFile(path, text.subarray(0, 40));
    const e = await failure(() => table.latestSnapshot());
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain("snapshot-1");
  });

  it("a garbage manifest is CORRUPT_FILE naming it, and a new commit leaves it untouched", async () => {
    const table = await tableWithData();
    const snapshot = (await table.latestSnapshot())!;
    const metas = await table.manifestStore.readManifestList(snapshot.deltaManifestList);
    const path = table.paths.manifest(metas[0].fileName);
    await table.fileIO.writeFile(path, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    const e = await failure(() => readAll(table));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain(metas[0].fileName);
    // A commit on top of the corrupt state fails instead of publishing a partial snapshot. (It
    // comes from another process: this one still holds the live files its own commit wrote.)
    const elsewhere = await Table.open(table.location);
    expect(elsewhere.fileIO).not.toBe(table.fileIO);
    const w = await elsewhere.newWrite({ commitUser: "v" });
    await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([3n]) }), s: arrow.vectorFromArray(["c"], new arrow.Utf8()).data[0] }));
    const messages = await w.prepareCommit();
    expect((await failure(() => elsewhere.newCommit({ commitUser: "v" }).overwrite(messages))).code).toBe("CORRUPT_FILE");
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([1]);
  });

  it("a truncated data file is CORRUPT_FILE naming it", async () => {
    const table = await tableWithData();
    const split = (await table.newScan().plan()).splits[0];
    const path = `${split.bucketPath}/${split.files[0].fileName}`;
    const bytes = await table.fileIO.readFile(path);
    await table.fileIO.writeFile(path, bytes.subarray(0, bytes.length - 20));
    const e = await failure(() => readAll(table));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain(split.files[0].fileName);
  });

  it("a missing data file is NOT_FOUND naming it", async () => {
    const table = await tableWithData();
    const split = (await table.newScan().plan()).splits[0];
    await table.fileIO.delete(`${split.bucketPath}/${split.files[0].fileName}`);
    const e = await failure(() => readAll(table));
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toContain(split.files[0].fileName);
  });
});
