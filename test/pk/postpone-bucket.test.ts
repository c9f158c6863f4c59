// Postpone bucket mode (bucket = -2): writes go to bucket-postpone, invisible to reads, and a
// compaction moves them into the partitions' buckets (src/write/postpone.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { readKvFile } from "../../src/read/kv-file-reader.js";
import { fromBinaryRow } from "../../src/spec/binary-row.js";
import { parseDataType } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { createPkTable, keyOf, readRows, type Row, sortRows, toBatch, writeCommit } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

const row = (dt: string, id: number, v: string | null, n: number | null = null, name = "a"): Row => ({ dt, id: BigInt(id), name, v, n });

async function liveEntries(table: Table) {
  const latest = await table.latestSnapshot();
  return latest ? table.manifestStore.liveEntries(latest) : [];
}

async function compactCommit(table: Table, options: { partition?: Record<string, unknown>; full?: boolean } = {}): Promise<number | null> {
  const write = await table.newWrite({ commitUser: "compactor" });
  try {
    await write.compact(options);
    return await table.newCommit({ commitUser: "compactor" }).commit(await write.prepareCommit());
  } finally {
    await write.close();
  }
}

describe("postpone bucket mode (bucket = -2)", () => {
  it("writes rows unsorted and unmerged into bucket-postpone files as Java does; reads do not see them", async () => {
    const table = await createPkTable({ bucket: -2 });
    const rows = [row("p1", 5, "x"), row("p1", 1, "a"), row("p1", 5, "y"), row("p2", 3, "c")];
    await writeCommit(table, "user-1", [{ rows, kinds: [RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE] }]);
    expect(await readRows(table)).toEqual([]);
    const entries = await liveEntries(table);
    expect(entries.map((e) => [e.bucket, e.totalBuckets, e.file.level, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.deleteRowCount, e.file.fileSource]).sort()).toEqual([
      [-2, -2, 0, 1n, -1n, -1n, 1n, 0],
      [-2, -2, 0, 3n, -1n, -1n, 0n, 0],
    ]);
    for (const e of entries) {
      expect(e.file.fileName).toMatch(/^data--u-user-1-s-\d+-w-[0-9a-f-]+-0\.avro$/); // Avro, as Java writes postpone files
      expect(table.paths.dataFilesOf(e.partition, e.bucket, e.file)[0]).toContain("/bucket-postpone/");
    }
    // the p1 file holds the rows in arrival order, every sequence number -1, kinds kept
    const p1 = entries.find((e) => e.file.rowCount === 3n)!;
    const read = [];
    for await (const b of readKvFile(table.fileIO, table.paths.dataFilesOf(p1.partition, -2, p1.file)[0], p1.file, table.schema.fields, { batchSize: 100 })) {
      for (let i = 0; i < b.batch.numRows; i++) read.push([b.batch.getChildAt(1)!.get(i), b.batch.getChildAt(3)!.get(i), b.sequence[i], b.kinds[i]]);
    }
    expect(read).toEqual([
      [5n, "x", -1n, 0],
      [1n, "a", -1n, 0],
      [5n, "y", -1n, 2],
    ]);
  });

  it("compaction replays the postponed rows in commit order into the partition's buckets (default-bucket-num for a new partition, the existing count otherwise)", async () => {
    const table = await createPkTable({ bucket: -2, "postpone.default-bucket-num": 3 });
    await writeCommit(table, "u", [{ rows: [row("p1", 1, "a"), row("p1", 2, "b"), row("p1", 3, "c"), row("p2", 9, "z")] }]);
    await writeCommit(table, "u", [{ rows: [row("p1", 1, "a2"), row("p1", 2, "b"), row("p2", 9, "z2")], kinds: [RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.INSERT] }]);
    const id = await compactCommit(table);
    expect((await table.snapshot(id!)).commitKind).toBe("COMPACT");
    expect(await readRows(table)).toEqual([row("p1", 1, "a2"), row("p1", 3, "c"), row("p2", 9, "z2")]);
    let entries = await liveEntries(table);
    expect(entries.filter((e) => e.bucket === -2)).toEqual([]);
    expect(new Set(entries.map((e) => e.totalBuckets))).toEqual(new Set([3]));
    // the same keys written to a fixed 3-bucket table land in the same buckets
    const fixed = await createPkTable({ bucket: 3 });
    await writeCommit(fixed, "u", [{ rows: [row("p1", 1, "a2"), row("p1", 3, "c"), row("p2", 9, "z2")] }]);
    const bucketsOf = (es: Awaited<ReturnType<typeof liveEntries>>) => es.map((e) => `${e.partition.join(",")}|${e.bucket}`).sort();
    expect(bucketsOf(entries.filter((e) => e.file.rowCount > 0n && e.file.deleteRowCount === 0n)).filter((b, i, a) => a.indexOf(b) === i)).toEqual(bucketsOf(await liveEntries(fixed)));

    // later the option changes: p1 keeps its 3 buckets, the new partition p3 gets 2
    const catalog = await Catalog.open(table.location.replace(/\/db\.db\/[^/]+$/, ""));
    const t2 = await catalog.alterTable(table.identifier, [{ kind: "setOption", key: "postpone.default-bucket-num", value: "2" }]);
    await writeCommit(t2, "u", [{ rows: [row("p1", 4, "d"), row("p3", 7, "q")] }]);
    expect(await readRows(t2)).toEqual([row("p1", 1, "a2"), row("p1", 3, "c"), row("p2", 9, "z2")]);
    await compactCommit(t2, { full: false });
    entries = await liveEntries(t2);
    const totals = (dt: string) => new Set(entries.filter((e) => readPartition(e.partition) === dt).map((e) => e.totalBuckets));
    expect(totals("p1")).toEqual(new Set([3]));
    expect(totals("p3")).toEqual(new Set([2]));
    expect(await readRows(t2)).toEqual([row("p1", 1, "a2"), row("p1", 3, "c"), row("p1", 4, "d"), row("p2", 9, "z2"), row("p3", 7, "q")]);
  });

  it("compact({ partition }) moves only that partition's rows", async () => {
    const table = await createPkTable({ bucket: -2 });
    await writeCommit(table, "u", [{ rows: [row("p1", 1, "a"), row("p2", 2, "b")] }]);
    await compactCommit(table, { partition: { dt: "p2" } });
    expect(await readRows(table)).toEqual([row("p2", 2, "b")]);
    expect((await liveEntries(table)).filter((e) => e.bucket === -2).map((e) => readPartition(e.partition))).toEqual(["p1"]);
    expect(await compactCommit(table, { partition: { dt: "p3" } })).toBeNull(); // nothing to move
  });

  it("refuses a bucket other than -2, a commit user that cannot be part of a file name, and retract rows the merge engine rejects", async () => {
    const table = await createPkTable({ bucket: -2 });
    const write = await table.newWrite({ commitUser: "u" });
    await expect(write.write(toBatch([row("p1", 1, "a")]), { bucket: 0 })).rejects.toThrow(/has no fixed buckets \(bucket = -2\); got bucket 0/);
    await write.write(toBatch([row("p1", 1, "a")]), { bucket: -2 }); // the seeds' write guide: -2 (or none)
    await write.close();
    await expect(table.newWrite({ commitUser: "a/../../x" })).rejects.toSatisfy((e: unknown) => e instanceof PaimonError && e.code === "INVALID_ARGUMENT" && /cannot be part of a data file name/.test(e.message));
    const firstRow = await createPkTable({ bucket: -2, "merge-engine": "first-row" });
    const w2 = await firstRow.newWrite({ commitUser: "u" });
    await expect(w2.write(toBatch([row("p1", 1, "a")]), { rowKinds: [RowKind.DELETE] })).rejects.toThrow(/cannot accept DELETE\/UPDATE_BEFORE rows/);
    await w2.close();
    const agg = await createPkTable({ bucket: -2, "merge-engine": "aggregation", "fields.n.aggregate-function": "max" });
    const w3 = await agg.newWrite({ commitUser: "u" });
    await expect(w3.write(toBatch([row("p1", 1, "a", 3)]), { rowKinds: [RowKind.UPDATE_BEFORE] })).rejects.toSatisfy((e: unknown) => e instanceof PaimonError && /retract/i.test(e.message));
    await w3.close();
    expect(await liveEntries(agg)).toEqual([]);
  });

  it("an overwrite replaces the partition's buckets and postponed rows", async () => {
    const table = await createPkTable({ bucket: -2 });
    await writeCommit(table, "u", [{ rows: [row("p1", 1, "a"), row("p1", 2, "b")] }]);
    await compactCommit(table);
    await writeCommit(table, "u", [{ rows: [row("p1", 3, "c")] }]);
    const write = await table.newWrite({ commitUser: "u", overwrite: true });
    await write.write(toBatch([row("p1", 4, "d")]));
    await table.newCommit({ commitUser: "u" }).overwrite(await write.prepareCommit(), { dt: "p1" });
    await write.close();
    expect(await readRows(table)).toEqual([]);
    expect((await liveEntries(table)).map((e) => e.bucket)).toEqual([-2]);
    await compactCommit(table);
    expect(await readRows(table)).toEqual([row("p1", 4, "d")]);
  });

  for (const [name, options] of [
    ["deduplicate", {}],
    ["deduplicate with deletion vectors", { "deletion-vectors.enabled": true }],
    ["partial-update", { "merge-engine": "partial-update" }],
    ["aggregation (sum)", { "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "last_value" }],
  ] as const) {
    it(`randomized commits and compactions read as the model (${name})`, async () => {
      const engine = (options as Record<string, unknown>)["merge-engine"] ?? "deduplicate";
      // (retract rows of merge functions behave as in any bucket writer, tested there; what matters here is replay order and buckets)
      const kinds = engine === "deduplicate" ? [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE] : [RowKind.INSERT, RowKind.UPDATE_AFTER];
      const op = fc.oneof(
        { weight: 4, arbitrary: fc.array(fc.record({ dt: fc.constantFrom("p1", "p2"), id: fc.integer({ min: 0, max: 6 }), v: fc.option(fc.constantFrom("a", "b", "c"), { nil: null }), n: fc.option(fc.integer({ min: -5, max: 5 }), { nil: null }), kind: fc.constantFrom(...kinds) }), { minLength: 1, maxLength: 8 }).map((rows) => ({ kind: "commit" as const, rows })) },
        { weight: 1, arbitrary: fc.record({ full: fc.boolean(), dt: fc.option(fc.constantFrom("p1", "p2"), { nil: undefined }) }).map((c) => ({ kind: "compact" as const, ...c })) },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 3 }), async (ops, defaultBuckets) => {
          const table = await createPkTable({ ...options, bucket: -2, "postpone.default-bucket-num": defaultBuckets });
          const visible = new Map<string, Row>();
          const pending: Array<{ r: Row; kind: RowKind }> = [];
          for (const o of ops) {
            if (o.kind === "commit") {
              const rows = o.rows.map((x) => row(x.dt, x.id, x.v, x.n));
              await writeCommit(table, "w", [{ rows, kinds: o.rows.map((x) => x.kind) }]);
              rows.forEach((r, i) => pending.push({ r, kind: o.rows[i]!.kind }));
            } else {
              await compactCommit(table, { full: o.full, partition: o.dt === undefined ? undefined : { dt: o.dt } });
              for (let i = 0; i < pending.length; ) {
                const { r, kind } = pending[i]!;
                if (o.dt !== undefined && r.dt !== o.dt) {
                  i++;
                  continue;
                }
                pending.splice(i, 1);
                const k = keyOf(r);
                const old = visible.get(k);
                if (kind === RowKind.DELETE) visible.delete(k);
                else if (engine === "partial-update" && old) visible.set(k, { ...old, v: r.v ?? old.v, n: r.n ?? old.n });
                else if (engine === "aggregation" && old) visible.set(k, { ...old, v: r.v, n: old.n === null ? r.n : r.n === null ? old.n : old.n + r.n });
                else visible.set(k, r);
              }
            }
            expect(await readRows(table)).toEqual(sortRows([...visible.values()]));
          }
          expect((await liveEntries(table)).filter((e) => e.bucket >= 0 && e.totalBuckets !== defaultBuckets)).toEqual([]);
        }),
        { numRuns: runs(25) },
      );
    });
  }
});

/** The dt value of a serialized partition row of the test table. */
function readPartition(partition: Uint8Array): string {
  return String(fromBinaryRow(partition.subarray(4), [parseDataType("STRING NOT NULL")])[0]);
}
