/**
 * ORC data files paimon-rt writes (`file.format=orc`) read back by paimon-rt's ORC reader exactly
 * as written, without an oracle: every type, nulls in some batches only (one PRESENT stream over
 * all of a file's batches), sliced input batches, each compression, primary-key tables with
 * compaction. (Java reads the same files: test/interop/orc-data-interop.test.ts.)
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { tempDirs } from "../support/temp-dirs.js";
import { ALL_TYPES, allTypesRow, dataFileNames, nullRow, PK_FIELDS, pkCommits, tableRows } from "../interop/data-file-rows.js";
import { rtCommitRows } from "../interop/rt-commit.js";
import { sortRows } from "../interop/oracle/harness.js";

const tempDir = tempDirs("paimon-rt-orc-data-");
const FIELDS = [...ALL_TYPES, { name: "ts9", type: "TIMESTAMP(9)" }, { name: "mset", type: "MULTISET<STRING>" }];

function row(id: number) {
  return id % 5 === 4 ? nullRow(id) : { ...allTypesRow(id), ts9: String(1704067200123456789n * BigInt(id % 2 ? 1 : -1) + BigInt(id)), mset: [[`m${id % 3}`, id % 4]] };
}

describe("ORC data files written by paimon-rt", () => {
  it("every type with each compression reads back exactly; nulls only in some batches", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const nulls = Object.fromEntries(FIELDS.map((f) => [f.name, null]));
    for (const compression of ["zstd", "zlib", "snappy", "lz4", "none"]) {
      const id = `db.t_${compression}`;
      await catalog.createTable(id, { fields: FIELDS, options: { bucket: "-1", "file.format": "orc", "file.compression": compression } });
      // one commit of two writes: a batch without nulls, then one with
      const table = await catalog.getTable(id);
      const write = await table.newWrite({ commitUser: "u" });
      const { rowsToBatch } = await import("../interop/convert.js");
      const first = Array.from({ length: 40 }, (_, i) => ({ ...allTypesRow(i + 1) }));
      const second = Array.from({ length: 40 }, (_, i) => row(i + 41));
      await write.write(rowsToBatch(FIELDS, first));
      const batch = rowsToBatch(FIELDS, second);
      await write.write(batch.slice(0, 15));
      await write.write(batch.slice(15)); // (a sliced batch: Arrow data at an offset)
      await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
      await write.close();
      expect((await dataFileNames(catalog, id)).every((f) => f.endsWith(".orc"))).toBe(true);
      expect(await tableRows(catalog, id), compression).toEqual(sortRows([...first, ...second].map((r) => ({ ...nulls, ...r }))));
    }
    const file = (await dataFileNames(catalog, "db.t_none"))[0]!;
    const bytes = await fsp.readFile(path.join(warehouse, "db.db", "t_none", "bucket-0", file));
    expect(bytes.subarray(0, 3).toString()).toBe("ORC");
  });

  it("a primary-key table in ORC: writes, deletes and compactions read back as the model says", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    await catalog.createTable("db.pk", { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "1", "file.format": "orc" } });
    const model = new Map<number, Record<string, unknown>>();
    for (const c of pkCommits()) {
      const rows = Array.isArray(c) ? c : c.rows;
      await rtCommitRows(await catalog.getTable("db.pk"), PK_FIELDS, rows, { compact: !Array.isArray(c) && c.compact });
      for (const r of rows) {
        if (r._kind === "-D") model.delete(r.k as number);
        else model.set(r.k as number, r);
      }
    }
    expect(await tableRows(catalog, "db.pk")).toEqual(sortRows([...model.values()]));
    expect((await dataFileNames(catalog, "db.pk")).every((f) => f.endsWith(".orc"))).toBe(true);
  });
});
