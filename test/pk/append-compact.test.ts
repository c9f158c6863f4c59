// Small-file compaction of append tables: files are merged, rows and their order within a
// bucket are kept, the result is a COMPACT snapshot; the oracles read it (when installed).
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { pickAppendCompaction } from "../../src/write/append-compact.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import { arrowToRows } from "../interop/convert.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTables, sortRows } from "../interop/oracle/harness.js";

const noPython = pypaimonUnavailable();
const noJava = javaOracleUnavailable();

function batch(from: number, n: number): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)) }),
    v: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `v${from + i}`), new arrow.Utf8()).data[0],
  });
}

async function bucketRows(table: Table): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const s of (await table.newScan().plan()).splits) {
    const rows = arrowToRows(await table.newRead().toArrow([s])).map((r) => `${r.id}:${r.v}`);
    out.set(s.bucket, [...(out.get(s.bucket) ?? []), ...rows]);
  }
  return out;
}

async function files(table: Table): Promise<DataFileMeta[]> {
  return (await table.manifestStore.liveEntries((await table.latestSnapshot())!)).map((e) => e.file);
}

describe("append-table compaction", () => {
  it("picks consecutive small files like Java", () => {
    const f = (seq: number, size: number) => ({ fileName: `f${seq}`, minSequenceNumber: BigInt(seq), fileSize: BigInt(size), deleteRowCount: 0n }) as DataFileMeta;
    expect(pickAppendCompaction([f(0, 10), f(1, 10), f(2, 10)], 100, false, 3, 50).map((x) => x.fileName)).toEqual(["f0", "f1", "f2"]);
    expect(pickAppendCompaction([f(0, 10), f(1, 500), f(2, 10), f(3, 10)], 100, false, 3, 50)).toEqual([]);
    expect(pickAppendCompaction([f(3, 10), f(0, 10), f(1, 10), f(2, 500)], 100, false, 3, 50)).toEqual([]); // sorted by sequence: f0 f1 | f2 big | f3
    expect(pickAppendCompaction([f(0, 10), f(1, 10), f(2, 10), f(3, 10)], 100, false, 2, 3).map((x) => x.fileName)).toEqual(["f0", "f1", "f2"]);
    expect(pickAppendCompaction([f(0, 500)], 100, true, 3, 50)).toEqual([]);
  });

  for (const bucket of [2, -1]) {
    it(`merges small files and keeps rows and their order (bucket = ${bucket})`, async () => {
      const wh = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-append-compact-"));
      try {
        const catalog = await Catalog.open(wh);
        await catalog.createDatabase("db");
        const table = await catalog.createTable("db.t", {
          fields: [
            { name: "id", type: "BIGINT" },
            { name: "v", type: "STRING" },
          ],
          options: bucket > 0 ? { bucket, "bucket-key": "id" } : {},
        });
        const append = async (from: number, to: number) => {
          for (let c = from; c < to; c++) {
            const w = await table.newWrite({ commitUser: "u" });
            await w.write(batch(c * 10, 10));
            await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
            await w.close();
          }
        };
        await append(0, 4);
        let w = await table.newWrite({ commitUser: "c" });
        await w.compact({ full: false }); // fewer than compaction.min.file-num (5) small files: nothing
        expect(await w.prepareCommit()).toEqual([]);
        await w.close();
        await append(4, 7);
        let before = await bucketRows(table);
        const nBefore = (await files(table)).length;
        // minor: the first >= 5 consecutive small files of each bucket
        w = await table.newWrite({ commitUser: "c" });
        await w.compact({ full: false });
        await table.newCommit({ commitUser: "c" }).commit(await w.prepareCommit());
        await w.close();
        expect((await files(table)).length).toBeLessThan(nBefore);
        expect(await bucketRows(table)).toEqual(before);
        await append(7, 10);
        before = await bucketRows(table);
        // full: one file per bucket
        w = await table.newWrite({ commitUser: "c" });
        await w.compact({ full: true });
        await table.newCommit({ commitUser: "c" }).commit(await w.prepareCommit());
        await w.close();
        const after = await files(table);
        expect(after.length).toBe(bucket > 0 ? 2 : 1);
        expect(after.every((f) => f.fileSource === 1)).toBe(true);
        expect(await bucketRows(table)).toEqual(before);
        const kinds = (await table.listSnapshots()).map((s) => s.commitKind);
        expect(kinds.filter((k) => k === "COMPACT").length).toBe(2);
        expect(kinds[kinds.length - 1]).toBe("COMPACT");
        const expected = sortRows(Array.from({ length: 100 }, (_, i) => ({ id: String(i), v: `v${i}` })));
        for (const oracle of ["pypaimon", "java"] as const) {
          if ((oracle === "pypaimon" ? noPython : noJava) !== null) continue;
          const [rows] = await readTables(oracle, [{ warehouse: wh, identifier: "db.t", sort: true }]);
          if (rows instanceof Error) throw rows;
          expect(rows, oracle).toEqual(expected);
        }
      } finally {
        await fsp.rm(wh, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
