// Cross-partition upsert (bucket = -1, primary key without the partition field: Java KEY_DYNAMIC):
// a key lives in exactly one partition; the writer's key index (bootstrapped from the table) routes
// rows as Java's GlobalIndexAssigner and ExistingProcessor do.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";

let counter = 0;

async function createCrossTable(options: Record<string, string> = {}): Promise<Table> {
  const catalog = await Catalog.open(`memory://cross-${process.pid}-${counter++}-${Math.random().toString(36).slice(2)}`);
  await catalog.createDatabase("db");
  return catalog.createTable(`db.t${counter++}`, {
    fields: [
      { name: "dt", type: "STRING NOT NULL" },
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
      { name: "n", type: "INT" },
    ],
    partitionKeys: ["dt"],
    primaryKeys: ["id"],
    options: { bucket: "-1", ...options },
  });
}

interface R {
  dt: string;
  id: number;
  v: string | null;
  n: number | null;
}

function batch(rows: readonly R[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0]!,
    id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows.map((r) => BigInt(r.id))) }),
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0]!,
    n: arrow.vectorFromArray(rows.map((r) => r.n), new arrow.Int32()).data[0]!,
  });
}

async function write(table: Table, user: string, rows: readonly R[], kinds?: RowKind[], id = 1): Promise<number | null> {
  const w = await table.newWrite({ commitUser: user });
  await w.write(batch(rows), kinds ? { rowKinds: kinds } : {});
  const messages = await w.prepareCommit(id);
  await w.close();
  return table.newCommit({ commitUser: user }).commit(messages, id);
}

/** Every visible row, sorted by id, with the bucket it is read from. */
async function rowsOf(table: Table): Promise<Array<R & { bucket: number }>> {
  const out: Array<R & { bucket: number }> = [];
  for (const split of (await table.newScan().plan()).splits) {
    for (const row of (await table.newRead().toArrow([split])).toArray()) {
      const j = row.toJSON() as { dt: string; id: bigint; v: string | null; n: number | null };
      out.push({ dt: j.dt, id: Number(j.id), v: j.v, n: j.n, bucket: split.bucket });
    }
  }
  return out.sort((a, b) => a.id - b.id || a.dt.localeCompare(b.dt));
}

const strip = (rows: Array<R & { bucket: number }>) => rows.map(({ bucket: _b, ...r }) => r);

describe("cross-partition upsert", () => {
  it("moves a key to its new partition (deduplicate: the old partition's row is deleted)", async () => {
    const t = await createCrossTable();
    await write(t, "u", [{ dt: "a", id: 1, v: "x", n: 1 }, { dt: "a", id: 2, v: "y", n: 2 }, { dt: "b", id: 3, v: "z", n: 3 }]);
    await write(t, "u", [{ dt: "b", id: 1, v: "x2", n: 10 }, { dt: "c", id: 3, v: "z2", n: 30 }]);
    expect(strip(await rowsOf(t))).toEqual([
      { dt: "b", id: 1, v: "x2", n: 10 },
      { dt: "a", id: 2, v: "y", n: 2 },
      { dt: "c", id: 3, v: "z2", n: 30 },
    ]);
    // no HASH index files in this mode (Java writes none)
    const snap = await t.latestSnapshot();
    expect((await t.manifestStore.indexEntries(snap!)).length).toBe(0);
  });
});
