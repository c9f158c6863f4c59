// Real-time progress across snapshot expiry and rollback to a tag whose snapshot expired (seed
// 000 § Recovery: a new context restores the committed progress of the latest snapshot). Progress
// anchors exist only past commits of other engines (paimon-rt's own commits carry
// `realtime.offsets` forward), so Java Paimon makes those commits here. Expiry keeps an expiring
// tagged snapshot's progress in its own anchor, rollback deletes the anchors of the snapshots it
// removes, deleteTag the anchor of its snapshot, orphan cleanup the anchors of snapshots neither
// present nor tagged, and an anchor older than a walk's oldest snapshot is never its base.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type * as arrow from "apache-arrow";
import { Catalog, RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { javaOracleUnavailable, writeTable } from "../interop/oracle/harness.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";
import { cleanupDirs, commitRealtime, expectCode, makeTable, PK_MODES, pkTable, range, readIds, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

interface Mode {
  name: string;
  make: (warehouse: string, name: string) => Promise<Table>;
  /** One row per offset, whose id is the offset. */
  batch: (offsets: number[]) => arrow.RecordBatch;
  /** A row another engine writes (its id is not an offset). */
  foreignRow: (id: number) => Record<string, string>;
}

const row = (id: number) => ({ id: String(id), name: `f${id}`, v: String(id / 2), dt: "x" });
/** The four real-time modes. */
const MODES: readonly Mode[] = [
  { name: "append", make: (warehouse, name) => makeTable({}, { warehouse, name }), batch: (offsets) => rtBatch(offsets), foreignRow: row },
  {
    name: "append deduplicate",
    make: (warehouse, name) => makeDedupTable({}, { warehouse, name }),
    batch: (offsets) => dedupBatch(offsets.map((o) => [o, o])),
    foreignRow: (id) => ({ id: String(id), _REALTIME_OFFSET: "0", v: `f${id}`, dt: "x" }),
  },
  ...PK_MODES.map((m) => ({ name: m.name, make: (warehouse: string, name: string) => makeTable({ bucket: 1, ...m.options }, { warehouse, name, primaryKeys: ["id"] }), batch: (offsets: number[]) => rtBatch(offsets), foreignRow: row })),
];

const B0 = { bucket: 0 };
let tables = 0;

/** A table of `mode` and a function making Java commits (rows of the given ids each, or an overwrite of everything): returns the last snapshot id. */
async function javaWritten(mode: Mode) {
  const warehouse = tempDir();
  const name = `rt_rollback_${tables++}`;
  const table = await mode.make(warehouse, name);
  const java = async (...commits: Array<number[] | "overwrite-all">) => {
    const ids = await writeTable("java", warehouse, `db.${name}`, { commits: commits.map((c) => (c === "overwrite-all" ? { rows: [], overwrite: true } : c.map(mode.foreignRow))) });
    return ids[ids.length - 1]!;
  };
  return { table, java };
}

const anchors = async (table: Table) =>
  (await table.fileIO.listStatus(`${table.location}/metadata`))
    .map((f) => f.name)
    .filter((n) => n.startsWith("realtime-progress-"))
    .sort();
const anchorNames = (...ids: number[]) => ids.map((id) => `realtime-progress-${id}.json`).sort();

const offsetOf = (table: Table, snapshotId?: number) => RealtimeSnapshotOffsets.readOffset(table, snapshotId, { partition: {}, bucket: 0 });

/** Expires every snapshot but the newest `retain`; returns how many went. */
const expireAllBut = (table: Table, retain: number) => table.newCommit({ commitUser: "expire" }).expireSnapshots({ retainMax: retain, retainMin: retain, olderThanMs: 0 });

describe.skipIf(javaOracleUnavailable() !== null).each(MODES)("$name: progress anchors and rollback to a tag of an expired snapshot", (mode) => {
  it("rollbackToTag restores the tag's progress and rows, deletes the removed snapshots' anchors, and a new context continues exactly", async () => {
    const { table, java } = await javaWritten(mode);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(mode.batch(range(0, 5)), B0);
    await w.refreshCommittedSnapshot(await commitRealtime(table, w, 1));
    const tagged = await java([1000]); // carries no progress of its own: 5, from the commit before
    await table.createTag("t", tagged);
    await w.write(mode.batch(range(5, 8)), B0);
    await w.refreshCommittedSnapshot(await commitRealtime(table, w, 2));
    await w.close();
    await ctx.close();
    const latest = await java([1001]);
    expect(await expireAllBut(table, 1)).toBe(latest - 1);
    // the first retained snapshot's anchor, and the expired tagged snapshot's own
    expect(await anchors(table)).toEqual(anchorNames(tagged, latest));
    expect(await offsetOf(table)).toBe(8n);

    await table.rollbackToTag("t");
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([tagged]);
    expect(await anchors(table)).toEqual(anchorNames(tagged));
    expect(await offsetOf(table)).toBe(5n);
    expect(await readIds(table)).toEqual([...range(0, 5), 1000]);
    // snapshots that reuse the removed ids resolve from the tag's progress, not a removed anchor
    const reused = await java([1002], [1003]);
    expect(reused).toBeGreaterThanOrEqual(latest);
    expect(await offsetOf(table)).toBe(5n);

    const ctx2 = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "u", realtime: ctx2 });
    await expectCode(w2.write(mode.batch([4]), B0), "OFFSET_INVALID");
    await w2.write(mode.batch([5, 6]), B0);
    const expected = [...range(0, 7), 1000, 1002, 1003];
    expect(await readIds(table, { ctx: ctx2 })).toEqual(expected);
    const next = await commitRealtime(table, w2, 1);
    await w2.refreshCommittedSnapshot(next);
    expect(await offsetOf(table, next)).toBe(7n);
    // with the context: a PK DV batch scan skips the level-0 file of the commit (seed 000)
    expect(await readIds(table, { ctx: ctx2 })).toEqual(expected);
    await w2.close();
    await ctx2.close();
  }, 120_000);

  it("an expired tag's anchor is no base for later snapshots: progress an overwrite reset before expiring stays reset", async () => {
    const { table, java } = await javaWritten(mode);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(mode.batch(range(0, 5)), B0);
    await commitRealtime(table, w, 1);
    await w.close();
    await ctx.close();
    const tagged = await java([1000]);
    await table.createTag("t", tagged);
    const overwrite = await java("overwrite-all"); // empties bucket 0: its progress resets
    const latest = await java([1001], [1002]);
    expect(await offsetOf(table)).toBe(-1n);
    expect(await expireAllBut(table, latest - overwrite)).toBe(overwrite);
    // nothing to anchor at the first retained snapshot (no progress); the tag keeps its own
    expect(await anchors(table)).toEqual(anchorNames(tagged));
    expect(await offsetOf(table)).toBe(-1n);
    // a copy of the table resolves its progress afresh (this process remembers what it resolved before expiry)
    const copyWarehouse = tempDir();
    cpSync(table.location, join(copyWarehouse, "db.db", "copy"), { recursive: true });
    const copy = await (await Catalog.open(copyWarehouse)).getTable("db.copy");
    expect(await offsetOf(copy)).toBe(-1n);
    expect(await readIds(table)).toEqual([1001, 1002]);
  }, 120_000);

  it("deleteTag of an expired snapshot deletes its anchor; orphan cleanup keeps live anchors and deletes stale ones", async () => {
    const { table, java } = await javaWritten(mode);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(mode.batch(range(0, 3)), B0);
    await commitRealtime(table, w, 1);
    const tagA = await java([1000]);
    await table.createTag("a", tagA);
    await w.write(mode.batch(range(3, 6)), B0);
    await commitRealtime(table, w, 2);
    await w.close();
    await ctx.close();
    const tagB = await java([1001]);
    await table.createTag("b", tagB);
    const latest = await java([1002]);
    expect(await expireAllBut(table, 1)).toBe(latest - 1);
    expect(await anchors(table)).toEqual(anchorNames(tagA, tagB, latest));
    // an anchor of a snapshot neither present nor tagged (as a rollback before this fix left one)
    const stale = `realtime-progress-${latest + 5}.json`;
    await table.fileIO.writeFile(`${table.location}/metadata/${stale}`, await table.fileIO.readFile(`${table.location}/metadata/realtime-progress-${latest}.json`));
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([`metadata/${stale}`]);
    expect(await anchors(table)).toEqual(anchorNames(tagA, tagB, latest));
    await table.deleteTag("a");
    expect(await anchors(table)).toEqual(anchorNames(tagB, latest));
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
    expect(await offsetOf(table)).toBe(6n);
    await table.rollbackToTag("b");
    expect(await offsetOf(table)).toBe(6n);
    expect(await readIds(table)).toEqual([...range(0, 6), 1000, 1001]);
  }, 120_000);
});
