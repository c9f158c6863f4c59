// Real-time plans keep what they planned from the latest snapshot (its live file list, found with
// synchronous hint/probe reads where the file system offers them) and reuse it while the snapshot
// stays the latest. Another table object (another process) committing, rolling back or expiring
// snapshots must still be seen by the next real-time plan: checked against a model, step by step.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, RealtimeContext } from "../../src/index.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { PaimonError } from "../../src/error.js";
import { validateRealtimeTable } from "../../src/realtime/options.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, expectCode, makeTable, readRows, rtBatch, tempDir } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

/** Counts reads of manifest lists and manifests (the live file list of a snapshot). */
class ManifestReadCountingFileIO extends LocalFileIO {
  manifestReads = 0;
  asyncHintReads = 0;
  /** Manifest reads still to fail with IO_ERROR. */
  failManifestReads = 0;
  override async readFile(path: string): Promise<Uint8Array> {
    if (path.includes("/manifest/")) {
      this.manifestReads++;
      if (this.failManifestReads > 0) {
        this.failManifestReads--;
        throw new PaimonError("IO_ERROR", `injected failure reading ${path}`);
      }
    }
    return super.readFile(path);
  }
  override async readFileIfExists(path: string): Promise<Uint8Array | null> {
    if (path.endsWith("/LATEST")) this.asyncHintReads++;
    return super.readFileIfExists(path);
  }
}

/** Ordinary (committed) upserts by another writer: rows [id, name, v, dt]. */
async function commitRows(table: Table, rows: Array<[number, string]>): Promise<number> {
  const w = await table.newWrite({ commitUser: "other" });
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, ([id]) => BigInt(id)) }),
      name: arrow.vectorFromArray(rows.map(([, n]) => n), new arrow.Utf8()).data[0],
      v: arrow.makeData({ type: new arrow.Float64(), length: rows.length, data: Float64Array.from(rows, ([id]) => id / 2) }),
      dt: arrow.vectorFromArray(rows.map(() => "d1"), new arrow.Utf8()).data[0],
    }),
    { bucket: 0 },
  );
  const id = await table.newCommit({ commitUser: "other" }).commit(await w.prepareCommit());
  await w.close();
  return id!;
}

const namesOf = (rows: Array<Record<string, unknown>>) => new Map(rows.map((r) => [r.id as number, r.name as string]));

it("a repeated real-time plan of an unchanged snapshot reads no manifest and no hint asynchronously; another table object's commit is seen next", async () => {
  const warehouse = tempDir();
  const io = new ManifestReadCountingFileIO();
  const created = await makeTable({ bucket: 1 }, { warehouse, name: "cache", primaryKeys: ["id"] });
  const reader = await (await Catalog.open(warehouse, { fileIO: io })).getTable("db.cache");
  await commitRows(created, [
    [1, "a"],
    [2, "b"],
  ]);
  const ctx = await RealtimeContext.create();
  const w = await reader.newWrite({ commitUser: "rt", realtime: ctx });
  await w.write(rtBatch([0], { ids: [100] }), { bucket: 0 });
  expect(namesOf(await readRows(reader, { ctx }))).toEqual(new Map([[1, "a"], [2, "b"], [100, "n100"]]));
  const before = { manifests: io.manifestReads, hints: io.asyncHintReads };
  expect(namesOf(await readRows(reader, { ctx }))).toEqual(new Map([[1, "a"], [2, "b"], [100, "n100"]]));
  expect(namesOf(await readRows(reader, { ctx, filter: col("id").eq(2n), predicateFilter: true }))).toEqual(new Map([[2, "b"]]));
  expect({ manifests: io.manifestReads, hints: io.asyncHintReads }).toEqual(before);
  // another table object commits: the next plan sees it (and reads the new snapshot's manifests)
  await commitRows(created, [[2, "B"], [3, "c"]]);
  expect(namesOf(await readRows(reader, { ctx }))).toEqual(new Map([[1, "a"], [2, "B"], [3, "c"], [100, "n100"]]));
  expect(io.manifestReads).toBeGreaterThan(before.manifests);
  expect(io.asyncHintReads).toBe(before.hints);
  await w.close().catch(() => undefined); // uncommitted memory: the context is invalidated on close
  await ctx.close();
});

it("a failed read of the latest snapshot's file list is not kept: the next real-time plan reads it again", async () => {
  const warehouse = tempDir();
  const io = new ManifestReadCountingFileIO();
  const created = await makeTable({ bucket: 1 }, { warehouse, name: "fail", primaryKeys: ["id"] });
  const reader = await (await Catalog.open(warehouse, { fileIO: io })).getTable("db.fail");
  await commitRows(created, [[5, "e"]]);
  const ctx = await RealtimeContext.create();
  io.failManifestReads = 1;
  await expectCode(readRows(reader, { ctx }), "IO_ERROR");
  expect(io.failManifestReads).toBe(0);
  expect(namesOf(await readRows(reader, { ctx }))).toEqual(new Map([[5, "e"]]));
  await ctx.close();
});

it("a table object's real-time validation is done once; a refused table is refused every time, naming the operation", async () => {
  const pk = await makeTable({ bucket: 1, "realtime.read-view-ttl": "2 min" }, { primaryKeys: ["id"] });
  const first = validateRealtimeTable(pk, "real-time scan");
  expect(validateRealtimeTable(pk, "real-time read")).toBe(first);
  expect(first.mode).toBe("PRIMARY_KEY");
  expect(first.options).toEqual({ enabled: true, spillEnabled: false, readViewTtlMs: 120_000, statsMode: "none", spillCompression: "zstd", spillZstdLevel: 1, readBatchSize: 1024 });
  expect(Object.isFrozen(first.options)).toBe(true);
  const off = await makeTable({ bucket: 1, "realtime.enabled": false }, { primaryKeys: ["id"] });
  expect((await expectCode(() => validateRealtimeTable(off, "real-time scan"), "REALTIME_NOT_ENABLED")).message).toContain("real-time scan on table");
  expect((await expectCode(() => validateRealtimeTable(off, "real-time read"), "REALTIME_NOT_ENABLED")).message).toContain("real-time read on table");
  const float = await makeTable({ bucket: 1 }, { primaryKeys: ["v"] });
  await expectCode(() => validateRealtimeTable(float, "real-time write"), "UNSUPPORTED");
  await expectCode(() => validateRealtimeTable(float, "real-time write"), "UNSUPPORTED");
});

type Op = { kind: "commit"; rows: Array<[number, string]> } | { kind: "memory"; ids: number[] } | { kind: "rollback"; back: number } | { kind: "expire" } | { kind: "plan"; key: number | null };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.constantFrom("x", "y", "z")), { minLength: 1, maxLength: 4 }).map((rows) => ({ kind: "commit" as const, rows })) },
  { weight: 2, arbitrary: fc.array(fc.integer({ min: 100, max: 104 }), { minLength: 1, maxLength: 3 }).map((ids) => ({ kind: "memory" as const, ids })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((back) => ({ kind: "rollback" as const, back })) },
  { weight: 1, arbitrary: fc.constant({ kind: "expire" as const }) },
  { weight: 4, arbitrary: fc.option(fc.integer({ min: 0, max: 104 }), { nil: null }).map((key) => ({ kind: "plan" as const, key })) },
);

it("real-time plans of one table object follow another's commits, rollbacks and expiry exactly (model)", async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
      const warehouse = tempDir();
      const name = `m${run++}`;
      const other = await makeTable({ bucket: 1 }, { warehouse, name, primaryKeys: ["id"] });
      const reader = await (await Catalog.open(warehouse)).getTable(`db.${name}`);
      const ctx = await RealtimeContext.create();
      const w = await reader.newWrite({ commitUser: "rt", realtime: ctx });
      // model: committed state per snapshot id (index 0: no snapshot), the memory rows
      const snapshots: Array<Map<number, string>> = [new Map()];
      let expiredBelow = 1; // snapshots below this id are expired
      const memory = new Map<number, string>();
      let offset = 0;
      try {
        for (const op of ops) {
          if (op.kind === "commit") {
            const next = new Map(snapshots[snapshots.length - 1]);
            for (const [id, n] of op.rows) next.set(id, n);
            const id = await commitRows(other, op.rows);
            expect((await other.latestSnapshot())?.id).toBe(id);
            // the append, then possibly a compaction (num-sorted-run.compaction-trigger): same rows
            expect(id - snapshots.length).toBeGreaterThanOrEqual(0);
            expect(id - snapshots.length).toBeLessThanOrEqual(1);
            while (snapshots.length <= id) snapshots.push(next);
          } else if (op.kind === "memory") {
            await w.write(rtBatch(op.ids.map(() => offset++), { ids: op.ids }), { bucket: 0 });
            for (const id of op.ids) memory.set(id, `n${id}`);
          } else if (op.kind === "rollback") {
            const target = snapshots.length - 1 - op.back;
            if (target < expiredBelow || target < 1) continue;
            await other.rollbackTo(target);
            snapshots.length = target + 1;
          } else if (op.kind === "expire") {
            if (snapshots.length <= 1) continue;
            await other.newCommit({ commitUser: "other" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
            expiredBelow = snapshots.length - 1;
          } else {
            const visible = new Map([...snapshots[snapshots.length - 1], ...memory]);
            if (op.key === null) {
              expect(namesOf(await readRows(reader, { ctx }))).toEqual(visible);
            } else {
              const expected = visible.has(op.key) ? new Map([[op.key, visible.get(op.key)!]]) : new Map();
              expect(namesOf(await readRows(reader, { ctx, filter: col("id").eq(BigInt(op.key)), predicateFilter: true }))).toEqual(expected);
            }
          }
        }
        // finally: always one full plan
        expect(namesOf(await readRows(reader, { ctx }))).toEqual(new Map([...snapshots[snapshots.length - 1], ...memory]));
      } finally {
        await w.close().catch(() => undefined);
        await ctx.close();
      }
    }),
    { numRuns: runs(25) },
  );
}, 240_000);
