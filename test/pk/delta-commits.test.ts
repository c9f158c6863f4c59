// `full-compaction.delta-commits` (Java's Flink GlobalFullCompactionSinkWrite): a writer fully
// compacts the buckets it wrote since its last such compaction when it prepares a commit whose
// identifier is a multiple of the option (a batch commit, without identifier: every one).
import { describe, expect, it } from "vitest";
import type { FileStoreTable } from "../../src/table/file-store-table.js";
import type { Table } from "../../src/table/table.js";
import { createPkTable, readRows, type Row, toBatch, writeCommit } from "./helpers.js";

const row = (id: number, v: string): Row => ({ dt: "p1", id: BigInt(id), name: "a", v, n: id });

/** Commit kind and the levels of the live files after each snapshot from `from`. */
async function snapshotsFrom(table: Table, from: number): Promise<Array<{ kind: string; identifier: bigint; levels: number[] }>> {
  const t = table as unknown as FileStoreTable;
  const latest = (await t.latestSnapshot())!.id;
  const out = [];
  for (let id = from; id <= latest; id++) {
    const s = await t.snapshot(id);
    const levels = (await t.manifestStore.liveEntries(s)).map((e) => e.file.level).sort();
    out.push({ kind: s.commitKind, identifier: s.commitIdentifier, levels });
  }
  return out;
}

describe("full-compaction.delta-commits", () => {
  it("one writer fully compacts the buckets it wrote at every 3rd commit identifier", async () => {
    const table = await createPkTable({ bucket: 1, "full-compaction.delta-commits": 3, "num-sorted-run.compaction-trigger": 10 });
    const write = await table.newWrite({ commitUser: "u" });
    const commit = table.newCommit({ commitUser: "u" });
    for (let id = 1; id <= 6; id++) {
      await write.write(toBatch([row(id, `v${id}`), row(1, `again${id}`)]));
      await commit.commit(await write.prepareCommit(id), id);
    }
    await write.close();
    const snaps = await snapshotsFrom(table, 1);
    // identifiers 3 and 6: APPEND then COMPACT (all files at the max level, 10 - 1 + 1 levels)
    expect(snaps.map((s) => `${s.identifier}:${s.kind}`)).toEqual(["1:APPEND", "2:APPEND", "3:APPEND", "3:COMPACT", "4:APPEND", "5:APPEND", "6:APPEND", "6:COMPACT"]);
    expect(snaps[3].levels).toEqual([10]);
    expect(snaps[6].levels).toEqual([0, 0, 0, 10]);
    expect(snaps[7].levels).toEqual([10]);
    expect((await readRows(table)).map((r) => r.v)).toEqual(["again6", "v2", "v3", "v4", "v5", "v6"]);
  });

  it("a batch commit (no identifier) compacts every time; write-only and unset never", async () => {
    for (const [options, compacted] of [
      [{ "full-compaction.delta-commits": 5 }, true],
      [{ "full-compaction.delta-commits": 5, "write-only": true }, false],
      [{}, false],
    ] as const) {
      const table = await createPkTable({ bucket: 1, "num-sorted-run.compaction-trigger": 10, ...options });
      await writeCommit(table, "u", [{ rows: [row(1, "a")] }]);
      await writeCommit(table, "u", [{ rows: [row(2, "b")] }]);
      const kinds = (await snapshotsFrom(table, 1)).map((s) => s.kind);
      expect(kinds, JSON.stringify(options)).toEqual(compacted ? ["APPEND", "COMPACT", "APPEND", "COMPACT"] : ["APPEND", "APPEND"]);
    }
  });

  it("a commit identifier that is not a multiple does not compact; a writer that wrote nothing does not either", async () => {
    const table = await createPkTable({ bucket: 1, "full-compaction.delta-commits": 2, "num-sorted-run.compaction-trigger": 10 });
    await writeCommit(table, "u", [{ rows: [row(1, "a")] }], { identifier: 1 });
    const write = await table.newWrite({ commitUser: "u" });
    expect(await write.prepareCommit(2)).toEqual([]);
    await write.close();
    await writeCommit(table, "u", [{ rows: [row(2, "b")] }], { identifier: 4 });
    expect((await snapshotsFrom(table, 1)).map((s) => `${s.identifier}:${s.kind}`)).toEqual(["1:APPEND", "4:APPEND", "4:COMPACT"]);
  });
});
