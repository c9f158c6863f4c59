// Changelog files through the table's life: names and options, snapshots' changelog manifests
// and counts, write-only writers, overwrite (no changelog, as Java), abort, rollback, expiry,
// orphan cleanup; and the refusals of combinations Java refuses.
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import type { FileStoreTable } from "../../src/table/file-store-table.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { createPkTable, type Row, toBatch, writeCommit } from "./helpers.js";

const r = (id: number, v: string | null, n: number | null = 1): Row => ({ dt: "p1", id: BigInt(id), name: "a", v, n });

/** Names of the changelog files in the table's directories (not what snapshots say: what is there). */
async function changelogFilesOnDisk(table: Table, prefix = "changelog-"): Promise<string[]> {
  const io = (table as unknown as FileStoreTable).fileIO;
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const s of await io.listStatus(dir)) {
      if (s.isDir) await walk(s.path);
      else if (s.name.startsWith(prefix)) out.push(s.name);
    }
  };
  await walk(table.location);
  return out.sort();
}

async function changelogOf(table: Table, id: number): Promise<string[]> {
  const t = table as unknown as FileStoreTable;
  return (await t.manifestStore.changelogEntries(await t.snapshot(id))).map((e) => e.file.fileName).sort();
}

describe("changelog files", () => {
  it("input: the snapshot lists them with changelogRecordCount; changelog-file.* options name and compress them", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "input", "changelog-file.prefix": "cl-", "changelog-file.compression": "none" });
    const id = (await writeCommit(table, "u", [{ rows: [r(1, "x"), r(2, "y"), r(1, "z")], kinds: [RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER] }]))!;
    const s = await table.snapshot(id);
    expect(s.commitKind).toBe("APPEND");
    expect(s.changelogRecordCount).toBe(3n);
    const files = await changelogOf(table, id);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^cl-[0-9a-f-]{36}-0\.parquet$/);
    expect(await changelogFilesOnDisk(table, "cl-")).toEqual(files);
    // a commit without changelog has no changelog manifest list
    const table2 = await createPkTable({ bucket: 1 });
    const id2 = (await writeCommit(table2, "u", [{ rows: [r(1, "x")] }]))!;
    expect((await table2.snapshot(id2)).changelogManifestList).toBeNull();
    expect((await table2.snapshot(id2)).changelogRecordCount).toBeNull();
  });

  it("lookup: the changelog rides the COMPACT snapshot; write-only writers produce none", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "lookup" });
    await writeCommit(table, "u", [{ rows: [r(1, "x")] }]);
    const latest = (await table.latestSnapshot())!;
    expect(latest.commitKind).toBe("COMPACT");
    expect(latest.changelogRecordCount).toBe(1n);
    expect((await table.snapshot(latest.id - 1)).changelogManifestList).toBeNull();
    const wo = await createPkTable({ bucket: 1, "changelog-producer": "lookup", "write-only": "true" });
    await writeCommit(wo, "u", [{ rows: [r(1, "x")] }]);
    expect((await wo.latestSnapshot())!.changelogRecordCount).toBeNull();
    expect(await changelogFilesOnDisk(wo)).toEqual([]);
  });

  it("overwrite commits no changelog (Java: 'Overwrite mode currently does not commit any changelog')", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "input" });
    await writeCommit(table, "u", [{ rows: [r(1, "x")] }]);
    const write = await table.newWrite({ commitUser: "u", overwrite: true });
    await write.write(toBatch([r(2, "y")]));
    const id = (await table.newCommit({ commitUser: "u" }).overwrite(await write.prepareCommit()))!;
    await write.close();
    expect((await table.snapshot(id)).commitKind).toBe("OVERWRITE");
    expect((await table.snapshot(id)).changelogManifestList).toBeNull();
  });

  it("abort deletes the changelog files of the messages; rollback those of the removed snapshots", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "input" });
    const write = await table.newWrite({ commitUser: "u" });
    await write.write(toBatch([r(1, "x")]));
    const messages = await write.prepareCommit();
    await write.close();
    expect(await changelogFilesOnDisk(table)).toHaveLength(1);
    await table.newCommit({ commitUser: "u" }).abort(messages);
    expect(await changelogFilesOnDisk(table)).toEqual([]);

    const first = (await writeCommit(table, "u", [{ rows: [r(1, "x")] }]))!;
    const kept = await changelogOf(table, first);
    await writeCommit(table, "u", [{ rows: [r(1, "y")] }]);
    expect(await changelogFilesOnDisk(table)).toHaveLength(2);
    await table.rollbackTo(first);
    expect(await changelogFilesOnDisk(table)).toEqual(kept);
  });

  it("expiry deletes the changelog files of expired snapshots; orphan cleanup keeps referenced ones", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "lookup" });
    for (let i = 0; i < 4; i++) await writeCommit(table, "u", [{ rows: [r(1, `v${i}`), r(i + 2, "x")] }]);
    const latest = (await table.latestSnapshot())!;
    const all = await changelogFilesOnDisk(table);
    expect(all).toHaveLength(4);
    expect(await table.removeOrphanFiles({ olderThanMs: 0 })).toEqual({ deleted: [], bytes: 0 });
    expect(await changelogFilesOnDisk(table)).toEqual(all);
    await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
    expect(await changelogFilesOnDisk(table)).toEqual(await changelogOf(table, latest.id));
    // an unreferenced changelog file is an orphan
    const io = (table as unknown as FileStoreTable).fileIO;
    const dir = (await io.listStatus(`${table.location}/dt=p1`)).find((s) => s.isDir)!.path;
    await io.writeFile(`${dir}/changelog-00000000-0000-0000-0000-000000000000-0.parquet`, new Uint8Array([1]));
    const removed = await table.removeOrphanFiles({ olderThanMs: 0 });
    expect(removed.deleted.map((p) => p.slice(p.lastIndexOf("/") + 1))).toEqual(["changelog-00000000-0000-0000-0000-000000000000-0.parquet"]);
  });

  it("refuses what Java refuses", async () => {
    for (const [options, code, pattern] of [
      [{ "changelog-producer": "input", "merge-engine": "first-row" }, "INVALID_ARGUMENT", /Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine/],
      [{ "changelog-producer": "full-compaction", "merge-engine": "first-row" }, "INVALID_ARGUMENT", /Only support 'none' and 'lookup'/],
      [{ "changelog-producer": "full-compaction", "deletion-vectors.enabled": "true" }, "INVALID_ARGUMENT", /Deletion vectors mode is only supported for NONE\/INPUT\/LOOKUP changelog producer now/],
      [{ "changelog-producer": "sometimes" }, "INVALID_ARGUMENT", /unknown changelog-producer 'sometimes'/],
      [{ "changelog-producer": "lookup", "changelog-producer.row-deduplicate-ignore-fields": "nope" }, "INVALID_ARGUMENT", /row-deduplicate-ignore-fields: field 'nope'/],
    ] as const) {
      const table = await createPkTable(options as Record<string, string>);
      const err = await table.newWrite({ commitUser: "u" }).catch((e: unknown) => e);
      expect(err, JSON.stringify(options)).toBeInstanceOf(PaimonError);
      expect((err as PaimonError).code).toBe(code);
      expect((err as PaimonError).message).toMatch(pattern);
    }
  });
});
