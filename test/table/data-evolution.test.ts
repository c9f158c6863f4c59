// Data-evolution tables (`data-evolution.enabled`): schema checks as Java's SchemaValidation,
// TableWrite.writeColumns' refusals (nothing written), column updates read back merged by row id
// (src/read/data-evolution.ts), and what stays refused (compaction, stream scans).
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { tempDirs } from "../support/temp-dirs.js";
import { failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-data-evolution-");
const OPTIONS = { "row-tracking.enabled": "true", "data-evolution.enabled": "true" };

async function newTable(options: Record<string, string> = OPTIONS): Promise<Table> {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "id", type: "INT" }, { name: "v", type: "STRING" }], partitionKeys: ["dt"], options });
}

const batch = (columns: Record<string, arrow.Vector>) => new arrow.RecordBatch(Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, v.data[0]])));

async function commit(t: Table, fn: (w: Awaited<ReturnType<Table["newWrite"]>>) => Promise<void>): Promise<void> {
  const w = await t.newWrite({ commitUser: "u" });
  await fn(w);
  await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
}

async function rows(t: Table): Promise<unknown[]> {
  return (await t.newRead().toArrow((await t.newScan().plan()).splits)).toArray().map((r) => r.toJSON()).sort((a, b) => a.id - b.id);
}

describe("data-evolution tables", () => {
  it("need row tracking and refuse deletion vectors (Java SchemaValidation's messages)", async () => {
    const a = await failure(() => newTable({ "data-evolution.enabled": "true" }));
    expect([a.code, a.message]).toEqual(["INVALID_ARGUMENT", "Data evolution config must enabled with row-tracking.enabled"]);
    const b = await failure(() => newTable({ ...OPTIONS, "deletion-vectors.enabled": "true" }));
    expect([b.code, b.message]).toEqual(["INVALID_ARGUMENT", "Data evolution config must disabled with deletion-vectors.enabled"]);
  });

  it("writeColumns updates columns of a committed range; reads merge them by row id", async () => {
    const t = await newTable();
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) })));
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["y"]), id: arrow.vectorFromArray([3], new arrow.Int32()), v: arrow.vectorFromArray(["c"]) })));
    await commit(t, (w) => w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["A", null]) })));
    await commit(t, (w) => w.writeColumns(2n, batch({ id: arrow.vectorFromArray([30], new arrow.Int32()), v: arrow.vectorFromArray(["C"]) })));
    expect(await rows(t)).toEqual([
      { dt: "x", id: 1, v: "A" },
      { dt: "x", id: 2, v: null },
      { dt: "y", id: 30, v: "C" },
    ]);
    const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => [e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.writeCols]);
    expect(files.sort((a, b) => Number(a[2]) - Number(b[2]))).toEqual([
      [0n, 2n, 1n, 1n, null],
      [2n, 1n, 2n, 2n, null],
      [0n, 2n, 3n, 3n, ["v"]],
      [2n, 1n, 4n, 4n, ["id", "v"]],
    ]);
    expect((await t.latestSnapshot())!.nextRowId).toBe(3n);
  });

  it("writeColumns refuses bad input with nothing written", async () => {
    const t = await newTable();
    await commit(t, (w) => w.write(batch({ dt: arrow.vectorFromArray(["x", "x"]), id: arrow.vectorFromArray([1, 2], new arrow.Int32()), v: arrow.vectorFromArray(["a", "b"]) })));
    const w = await t.newWrite({ commitUser: "u" });
    const cases: Array<[bigint, arrow.RecordBatch, string]> = [
      [0n, batch({ dt: arrow.vectorFromArray(["y", "y"]) }), "writeColumns: partition column dt of table db.t cannot be updated (the file stays in its partition)"],
      [0n, batch({ w: arrow.vectorFromArray(["y", "y"]) }), "writeColumns: table db.t has no column w"],
      [5n, batch({ v: arrow.vectorFromArray(["y", "y"]) }), "writeColumns: no live data file of table db.t starts at row id 5"],
      [0n, batch({ v: arrow.vectorFromArray(["y"]) }), "writeColumns: the file starting at row id 0 has 2 rows, the batch 1"],
    ];
    for (const [first, b, message] of cases) {
      const e = await failure(() => w.writeColumns(first, b));
      expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", message]);
    }
    expect(await w.prepareCommit()).toEqual([]);
    await w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["p", "q"]) }));
    const twice = await failure(() => w.writeColumns(0n, batch({ v: arrow.vectorFromArray(["p", "q"]) })));
    expect(twice.message).toBe("writeColumns: the rows starting at row id 0 were already updated by this writer; call prepareCommit first");
    await w.close();
    const plain = await newTable({ "row-tracking.enabled": "true" });
    const w2 = await plain.newWrite({ commitUser: "u" });
    const e = await failure(() => w2.writeColumns(0n, batch({ v: arrow.vectorFromArray(["p"]) })));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "writeColumns: table db.t is not a data-evolution table (data-evolution.enabled)"]);
    await w2.close();
  });

  it("compaction and stream scans stay refused", async () => {
    const t = await newTable();
    const w = await t.newWrite({ commitUser: "u" });
    const c = await failure(() => w.compact({ full: true }));
    expect([c.code, c.message]).toEqual(["UNSUPPORTED", "compact on data-evolution table db.t is not supported"]);
    await w.close();
    const s = await failure(() => t.newStreamScan());
    expect([s.code, s.message]).toEqual(["UNSUPPORTED", "table db.t: streaming reads of data-evolution tables are not supported"]);
  });
});
