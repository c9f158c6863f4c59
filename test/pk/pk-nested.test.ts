// Primary-key tables with nested value columns (ARRAY, MAP, ROW): merges assemble winners from
// many files with gatherData, which must carry nested values through exactly.
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { batch, tableColumn } from "../format/helpers.js";

interface NestedRow {
  id: bigint;
  tags: Array<string | null> | null;
  attrs: Map<string, number | null> | null;
  addr: { city: string | null; zip: number | null } | null;
}

let counter = 0;
async function nestedTable(options: Record<string, string | number | boolean>): Promise<Table> {
  const catalog = await Catalog.open(`memory://pk-nested-${process.pid}-${counter++}`);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable("db.t", {
    fields: [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "tags", type: "ARRAY<STRING>" },
      { name: "attrs", type: "MAP<STRING, INT>" },
      { name: "addr", type: "ROW<city STRING, zip INT>" },
    ],
    primaryKeys: ["id"],
    options: { bucket: 1, ...options },
  });
}

async function commitRows(table: Table, rows: NestedRow[], compact = false): Promise<void> {
  const write = await table.newWrite({ commitUser: "u" });
  const cols: Record<string, unknown[]> = {};
  for (const f of table.schema.fields) cols[f.name] = rows.map((r) => (r as unknown as Record<string, unknown>)[f.name]);
  await write.write(batch(table.schema.fields, cols));
  if (compact) await write.compact({ full: true });
  await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
  await write.close();
}

async function readAll(table: Table): Promise<NestedRow[]> {
  const plan = await table.newScan().plan();
  const t = await table.newRead().toArrow(plan.splits);
  const fields = table.schema.fields;
  const cols = fields.map((f) => tableColumn(t, f.name, f.type));
  const rows = cols[0].map((_, i) => Object.fromEntries(fields.map((f, k) => [f.name, cols[k][i]])) as unknown as NestedRow);
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const row = (id: number, k: number): NestedRow => ({
  id: BigInt(id),
  tags: k % 5 === 0 ? null : Array.from({ length: k % 4 }, (_, j) => (j === 1 ? null : `t${id}.${k}.${j}`)),
  attrs: k % 7 === 0 ? null : new Map(Array.from({ length: k % 3 }, (_, j) => [`a${j}`, j === 2 ? null : id * 10 + k + j] as [string, number | null])),
  addr: k % 6 === 0 ? null : { city: k % 2 === 0 ? null : `c${id}.${k}`, zip: id + k },
});

describe("primary-key tables with nested value columns", () => {
  for (const [mode, options] of [
    ["merge-on-read", {}],
    ["deletion vectors", { "deletion-vectors.enabled": true }],
  ] as const) {
    it(`${mode}: the latest version of every key, nested values exact, across files and compaction`, async () => {
      const table = await nestedTable(options);
      const model = new Map<bigint, NestedRow>();
      for (let round = 1; round <= 4; round++) {
        // overlapping keys across commits, so reads merge several files per key range
        const rows = Array.from({ length: 12 }, (_, i) => row((i * 7 + round * 3) % 20, round * 13 + i));
        await commitRows(table, rows, round === 3);
        for (const r of rows) model.set(r.id, r);
        expect(await readAll(table)).toEqual([...model.values()].sort((a, b) => (a.id < b.id ? -1 : 1)));
      }
    });
  }

  it("partial-update: non-null nested values win field by field", async () => {
    const table = await nestedTable({ "merge-engine": "partial-update" });
    await commitRows(table, [{ id: 1n, tags: ["a", null], attrs: null, addr: { city: "x", zip: null } }]);
    await commitRows(table, [{ id: 1n, tags: null, attrs: new Map([["k", 1]]), addr: null }]);
    await commitRows(table, [{ id: 1n, tags: [], attrs: null, addr: null }]);
    expect(await readAll(table)).toEqual([{ id: 1n, tags: [], attrs: new Map([["k", 1]]), addr: { city: "x", zip: null } }]);
  });
});
