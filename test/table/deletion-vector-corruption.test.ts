// A damaged deletion-vector index file is CORRUPT_FILE naming that file, and the CRC32 the
// format stores after each vector is checked (issue 9 item 12).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { commitDeletionVector, failure } from "./helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** An append table of ids 0..4 whose positions 1 and 3 are deleted by a DV in `index-test-dv-0`. */
async function tableWithDeletionVector(): Promise<{ table: Table; indexPath: string; dv: Uint8Array }> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-dv-corrupt-"));
  dirs.push(dir);
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }], options: { "deletion-vectors.enabled": true } });
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 5, data: BigInt64Array.from([0n, 1n, 2n, 3n, 4n]) }) }));
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  const [split] = (await table.newScan().plan()).splits;
  const { indexPath, dv } = await commitDeletionVector(table, split, split.files[0].fileName, [1, 3]);
  return { table, indexPath, dv };
}

async function readFailure(table: Table): Promise<PaimonError> {
  return failure(async () => table.newRead().toArrow((await table.newScan().plan()).splits));
}

describe("deletion-vector index corruption", () => {
  it("reads the intact file", async () => {
    const { table } = await tableWithDeletionVector();
    const ids = (await table.newRead().toArrow((await table.newScan().plan()).splits)).getChild("id")!.toArray();
    expect(Array.from(ids as BigInt64Array, Number)).toEqual([0, 2, 4]);
  });

  it("a CRC32 that does not match the vector is CORRUPT_FILE naming the index file", async () => {
    const { table, indexPath, dv } = await tableWithDeletionVector();
    const bytes = readFileSync(indexPath);
    const crc = new DataView(dv.buffer, dv.byteOffset).getUint32(dv.length - 4);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(indexPath, bytes);
    const e = await readFailure(table);
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toBe(`${indexPath}: deletion vector CRC32 mismatch (stored ${(crc ^ 0xff) >>> 0}, computed ${crc})`);
  });

  it("a flipped bitmap byte is caught by the CRC32", async () => {
    const { table, indexPath } = await tableWithDeletionVector();
    const bytes = readFileSync(indexPath);
    bytes[1 + 8 + 18] ^= 0x01; // roaring value 3 (after cookie, count, key, cardinality, offset, value 1) becomes 2
    writeFileSync(indexPath, bytes);
    const e = await readFailure(table);
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toMatch(new RegExp(`^${indexPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: deletion vector CRC32 mismatch \\(stored \\d+, computed \\d+\\)$`));
  });

  it("a wrong version byte or magic number is CORRUPT_FILE naming the index file", async () => {
    const { table, indexPath } = await tableWithDeletionVector();
    const bytes = readFileSync(indexPath);
    bytes[0] = 2;
    writeFileSync(indexPath, bytes);
    expect((await readFailure(table)).message).toBe(`${indexPath}: deletion-vector index file version 2 is not 1`);
    bytes[0] = 1;
    bytes[1 + 4] = 0; // first magic byte
    writeFileSync(indexPath, bytes);
    const e = await readFailure(table);
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message.startsWith(`${indexPath}: `)).toBe(true);
  });
});
