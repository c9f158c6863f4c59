/**
 * Row tracking (`row-tracking.enabled`) with Java Paimon 1.4.2: the same commits (appends into
 * two partitions, a partition overwrite) written by Java and by paimon-rt give equal snapshot
 * `nextRowId`s and per-file `_FIRST_ROW_ID` / sequence numbers, and Java's `$row_tracking` of
 * paimon-rt's table is exactly the rows Java numbers in its own, also after paimon-rt compacted it
 * (the compacted file's _ROW_ID / _SEQUENCE_NUMBER columns). Skips with a printed reason
 * when scripts/setup-oracles.sh has not been run.
 */
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "./convert.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, parseJsonLines, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping row tracking interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-row-tracking-interop-");

const FIELDS = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];
const COMMITS: Array<{ rows: Array<{ dt: string; id: number; v: string | null }>; overwrite?: Record<string, string> }> = [
  { rows: [{ dt: "a", id: 1, v: "x" }, { dt: "a", id: 2, v: null }, { dt: "a", id: 3, v: "z" }] },
  { rows: [{ dt: "b", id: 4, v: "p" }, { dt: "b", id: 5, v: "q" }] },
  { rows: [{ dt: "a", id: 6, v: "r" }] },
  { rows: [{ dt: "a", id: 7, v: "o1" }, { dt: "a", id: 8, v: "o2" }], overwrite: { dt: "a" } },
];

/** Per snapshot: id, kind, nextRowId, totalRecordCount; per live file of the latest: partition, firstRowId, rows, seq range. */
async function tracking(t: Table): Promise<{ snapshots: unknown[]; files: unknown[] }> {
  const snapshots = (await t.listSnapshots()).map((s) => [s.id, s.commitKind, s.nextRowId, s.totalRecordCount]);
  const entries = await t.manifestStore.liveEntries((await t.latestSnapshot())!);
  const files = entries
    .map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.fileSource])
    .sort((a, b) => Number(((a[0] as bigint | null) ?? -1n) - ((b[0] as bigint | null) ?? -1n)));
  return { snapshots, files };
}

describe.skipIf(noJava !== null)("row tracking with Java", () => {
  it(
    "the same commits give the same row ids, sequence numbers and nextRowId; Java's $row_tracking of paimon-rt's table equals its own",
    async () => {
      const wh = tempDir();
      await writeTables("java", wh, [
        {
          identifier: "db.j",
          spec: {
            fields: FIELDS,
            partitionKeys: ["dt"],
            options: { "row-tracking.enabled": "true" },
            commits: COMMITS.map((c) => ({ rows: c.rows.map((r) => ({ ...r, id: String(r.id) })), ...(c.overwrite ? { overwrite: c.overwrite } : {}) })),
          },
        },
      ]);
      const catalog = await Catalog.open(wh);
      const r = await catalog.createTable("db.r", { fields: FIELDS, partitionKeys: ["dt"], options: { "row-tracking.enabled": "true" } });
      for (const c of COMMITS) {
        const w = await r.newWrite({ commitUser: "u", overwrite: c.overwrite !== undefined } as never);
        const dt = arrow.vectorFromArray(c.rows.map((x) => x.dt), new arrow.Utf8());
        const id = arrow.vectorFromArray(c.rows.map((x) => BigInt(x.id)), new arrow.Int64());
        const v = arrow.vectorFromArray(c.rows.map((x) => x.v), new arrow.Utf8());
        await w.write(new arrow.RecordBatch({ dt: dt.data[0], id: id.data[0], v: v.data[0] }));
        const commit = r.newCommit({ commitUser: "u" });
        if (c.overwrite) await commit.overwrite(await w.prepareCommit(), c.overwrite);
        else await commit.commit(await w.prepareCommit());
        await w.close();
      }
      const j = await catalog.getTable("db.j");
      const rt = await tracking(await catalog.getTable("db.r"));
      expect(rt).toEqual(await tracking(j));
      expect(rt).toEqual({
        snapshots: [
          [1, "APPEND", 3n, 3n],
          [2, "APPEND", 5n, 5n],
          [3, "APPEND", 6n, 6n],
          [4, "OVERWRITE", 8n, 4n],
        ],
        files: [
          [3n, 2n, 2n, 2n, 0],
          [6n, 2n, 4n, 4n, 0],
        ],
      });
      const results = await runBatch("java", [
        ["read", wh, "db.j$row_tracking", "--sort"],
        ["read", wh, "db.r$row_tracking", "--sort"],
        ["read", wh, "db.r", "--sort"],
      ]);
      const [javaOwn, javaOfRt, javaPlain] = results.map((x) => sortRows(parseJsonLines(batchOutput(x))));
      const expected: OracleRow[] = sortRows([
        { dt: "a", id: "7", v: "o1", _ROW_ID: "6", _SEQUENCE_NUMBER: "4" },
        { dt: "a", id: "8", v: "o2", _ROW_ID: "7", _SEQUENCE_NUMBER: "4" },
        { dt: "b", id: "4", v: "p", _ROW_ID: "3", _SEQUENCE_NUMBER: "2" },
        { dt: "b", id: "5", v: "q", _ROW_ID: "4", _SEQUENCE_NUMBER: "2" },
      ]);
      expect(javaOwn).toEqual(expected);
      expect(javaOfRt).toEqual(expected);
      // paimon-rt's $row_tracking of both tables is Java's
      for (const name of ["db.j$row_tracking", "db.r$row_tracking"]) {
        const s = await catalog.getTable(name);
        expect({ name, rows: sortRows(arrowToRows(await s.newRead().toArrow((await s.newScan().plan()).splits))) }).toEqual({ name, rows: expected });
      }
      // plain reads are unaffected: both read each other's rows
      const rtOfJava = sortRows(arrowToRows(await j.newRead().toArrow((await j.newScan().plan()).splits)));
      expect(rtOfJava).toEqual(javaPlain);

      // paimon-rt appends to partition b and compacts it: the compacted file carries _ROW_ID /
      // _SEQUENCE_NUMBER columns (as Java's compactors write them), which Java reads back
      const r2 = await catalog.getTable("db.r");
      const w = await r2.newWrite({ commitUser: "u" });
      await w.write(new arrow.RecordBatch({ dt: arrow.vectorFromArray(["b"], new arrow.Utf8()).data[0], id: arrow.vectorFromArray([9n], new arrow.Int64()).data[0], v: arrow.vectorFromArray(["s"], new arrow.Utf8()).data[0] }));
      await r2.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.compact({ full: true });
      await r2.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
      expect((await tracking(r2)).snapshots.slice(4)).toEqual([
        [5, "APPEND", 9n, 5n],
        [6, "COMPACT", 9n, 5n],
      ]);
      const afterCompaction = sortRows([...expected, { dt: "b", id: "9", v: "s", _ROW_ID: "8", _SEQUENCE_NUMBER: "5" }]);
      const [javaCompacted, javaCompactedPlain] = (await runBatch("java", [
        ["read", wh, "db.r$row_tracking", "--sort"],
        ["read", wh, "db.r", "--sort"],
      ])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaCompacted).toEqual(afterCompaction);
      const s = await catalog.getTable("db.r$row_tracking");
      expect(sortRows(arrowToRows(await s.newRead().toArrow((await s.newScan().plan()).splits)))).toEqual(afterCompaction);
      expect(javaCompactedPlain).toEqual(sortRows(afterCompaction.map(({ dt, id, v }) => ({ dt, id, v }))));
    },
    SLOW,
  );
});
