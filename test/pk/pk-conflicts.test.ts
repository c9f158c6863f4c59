// Concurrent commits on primary-key tables: compaction racing appends, compaction racing
// compaction (the loser fails cleanly with COMMIT_CONFLICT), and nothing referenced is lost.
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { createPkTable, keyOf, readRows, type Row, sortRows, toBatch, writeCommit } from "./helpers.js";

const r = (id: number, v: string, dt = "a", name = "k"): Row => ({ dt, id: BigInt(id), name, v, n: id });

async function prepared(table: Table, user: string, rows: Row[], opts: { compact?: boolean; kinds?: RowKind[] } = {}) {
  const write = await table.newWrite({ commitUser: user });
  if (rows.length > 0) await write.write(toBatch(rows), { rowKinds: opts.kinds });
  if (opts.compact) await write.compact({ full: true });
  const messages = await write.prepareCommit();
  await write.close();
  return { commit: () => table.newCommit({ commitUser: user }).commit(messages) };
}

/** Every data and index file the latest snapshot references exists. */
async function assertNothingLost(table: Table): Promise<void> {
  const snap = (await table.latestSnapshot())!;
  const plan = await table.newScan().plan();
  for (const s of plan.splits) for (const f of s.files) expect(await table.fileIO.exists(`${s.bucketPath}/${f.fileName}`), f.fileName).toBe(true);
  for (const e of await table.manifestStore.indexEntries(snap)) expect(await table.fileIO.exists(table.paths.index(e.indexFile.fileName))).toBe(true);
}

function seed(n: number, tag: string): Row[] {
  return Array.from({ length: n }, (_, i) => r(i, `${tag}${i}`, i % 2 === 0 ? "a" : "b"));
}

describe("primary-key commit conflicts", () => {
  for (const dv of [false, true]) {
    const options: Record<string, string> = dv ? { "deletion-vectors.enabled": "true" } : {};
    const label = dv ? "DV" : "MOR";

    it.skipIf(dv)(`${label}: a compaction racing an append on the same bucket: both succeed, in either order`, async () => {
      for (const compactionFirst of [false, true]) {
        const table = await createPkTable({ bucket: 1, ...options });
        await writeCommit(table, "base", [{ rows: seed(20, "s") }]);
        await writeCommit(table, "base", [{ rows: [r(3, "x3", "b"), r(4, "x4")] }]);
        const compaction = await prepared(table, "compactor", [], { compact: true });
        const append = await prepared(table, "writer", [r(5, "new5", "b"), r(6, "gone")], { kinds: [RowKind.INSERT, RowKind.DELETE] });
        if (compactionFirst) {
          await compaction.commit();
          await append.commit();
        } else {
          await append.commit();
          await compaction.commit();
        }
        const model = new Map(seed(20, "s").map((x) => [keyOf(x), x]));
        model.set(keyOf(r(3, "x3", "b")), r(3, "x3", "b"));
        model.set(keyOf(r(4, "x4")), r(4, "x4"));
        model.set(keyOf(r(5, "new5", "b")), r(5, "new5", "b"));
        model.delete(keyOf(r(6, "gone")));
        expect(await readRows(table)).toEqual(sortRows([...model.values()]));
        await assertNothingLost(table);
      }
    });

    it(`${label}: two compactions of the same files: the second fails with COMMIT_CONFLICT, nothing is lost`, async () => {
      const table = await createPkTable({ bucket: 1, ...options });
      await writeCommit(table, "base", [{ rows: seed(30, "s") }]);
      await writeCommit(table, "base", [{ rows: [r(1, "u1", "b"), r(2, "u2")] }]);
      const c1 = await prepared(table, "c1", [], { compact: true });
      const c2 = await prepared(table, "c2", [], { compact: true });
      await c1.commit();
      const before = (await table.latestSnapshot())!.id;
      const err = await c2.commit().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PaimonError);
      expect((err as PaimonError).code).toBe("COMMIT_CONFLICT");
      expect((await table.latestSnapshot())!.id).toBe(before);
      const expected = new Map(seed(30, "s").map((x) => [keyOf(x), x]));
      expected.set(keyOf(r(1, "u1", "b")), r(1, "u1", "b"));
      expected.set(keyOf(r(2, "u2")), r(2, "u2"));
      expect(await readRows(table)).toEqual(sortRows([...expected.values()]));
      await assertNothingLost(table);
      // the table keeps working: a new writer compacts again
      await writeCommit(table, "c3", [{ rows: [r(7, "z7")] }], { compact: true });
      expected.set(keyOf(r(7, "z7")), r(7, "z7"));
      expect(await readRows(table)).toEqual(sortRows([...expected.values()]));
      await assertNothingLost(table);
    });
  }

  it("DV: two writers compacting level 0 concurrently: the second compaction conflicts (index file replaced)", async () => {
    const table = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true" });
    await writeCommit(table, "base", [{ rows: seed(20, "s") }]);
    await writeCommit(table, "base", [{ rows: [r(2, "u2")] }]); // creates a DV index file
    const w1 = await prepared(table, "w1", [r(4, "w1")]);
    const w2 = await prepared(table, "w2", [r(6, "w2")]);
    await w1.commit();
    const err = await w2.commit().catch((e: unknown) => e);
    expect((err as PaimonError).code).toBe("COMMIT_CONFLICT");
    // w2's level-0 file was committed (APPEND) and becomes visible with the next compaction
    await writeCommit(table, "w3", [{ rows: [r(8, "w3")] }]);
    const expected = new Map(seed(20, "s").map((x) => [keyOf(x), x]));
    for (const x of [r(2, "u2"), r(4, "w1"), r(6, "w2"), r(8, "w3")]) expected.set(keyOf(x), x);
    expect(await readRows(table)).toEqual(sortRows([...expected.values()]));
    await assertNothingLost(table);
  });
});
