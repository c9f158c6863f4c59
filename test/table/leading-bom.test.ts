// Strings that start with U+FEFF keep it: it is data, not a byte-order mark. TextDecoder drops it
// by default, which read "\uFEFFa" back as "a" — a key that merged with "a", a partition value
// that named another partition, statistics and index keys that ruled out the wrong files.
// Values are read here from the Arrow buffers (apache-arrow's own `get` drops the mark too).
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { col, RealtimeContext } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { RowKind } from "../../src/write/table-write.js";
import { tableColumn } from "../format/helpers.js";
import { createPkTable, type Row, writeCommit } from "../pk/helpers.js";
import { cleanupDirs, commitRealtime, makeTable } from "../realtime/helpers.js";
import type { Predicate } from "../../src/predicate/predicate.js";

afterAll(cleanupDirs);

const BOM = "\uFEFF";

/** Rows as [column values...] read from the buffers, sorted. */
async function rows(table: Table, columns: Array<[string, "s" | "l"]>, args: { filter?: Predicate; ctx?: RealtimeContext } = {}): Promise<string[]> {
  const plan = await table.newScan({ filter: args.filter, realtime: args.ctx }).plan();
  const t = await table.newRead({ filter: args.filter, predicateFilter: true, realtime: args.ctx }).toArrow(plan.splits);
  const cols = columns.map(([name, kind]) => tableColumn(t, name, kind === "s" ? T.STRING() : T.BIGINT()));
  const out: string[] = [];
  for (let i = 0; i < t.numRows; i++) out.push(JSON.stringify(cols.map((c) => (typeof c[i] === "bigint" ? Number(c[i]) : c[i]))));
  return out.sort();
}

const r = (dt: string, id: number, name: string, v: string | null): Row => ({ dt, id: BigInt(id), name, v, n: null });

describe("strings with a leading U+FEFF", () => {
  it("primary-key table: keys and partitions that differ only by the mark stay apart, through merge, compaction, filters and partition listing", async () => {
    const table = await createPkTable();
    const input = [r("a", 1, "x", "1"), r(`${BOM}a`, 1, "x", "2"), r("a", 1, `${BOM}x`, "3"), r(`${BOM}a`, 1, `${BOM}x`, `${BOM}4`), r("a", 2, BOM, "5"), r("a", 2, "", BOM)];
    await writeCommit(table, "u", [{ rows: input }]);
    const expected = input.map((x) => JSON.stringify([x.dt, Number(x.id), x.name, x.v])).sort();
    const cols: Array<[string, "s" | "l"]> = [["dt", "s"], ["id", "l"], ["name", "s"], ["v", "s"]];
    expect(await rows(table, cols)).toEqual(expected);

    // an update of one key leaves its look-alike alone; a delete likewise
    await writeCommit(table, "u", [{ rows: [r(`${BOM}a`, 1, "x", "2b"), r("a", 2, BOM, null)], kinds: [RowKind.INSERT, RowKind.DELETE] }]);
    const after = [r("a", 1, "x", "1"), r(`${BOM}a`, 1, "x", "2b"), r("a", 1, `${BOM}x`, "3"), r(`${BOM}a`, 1, `${BOM}x`, `${BOM}4`), r("a", 2, "", BOM)].map((x) => JSON.stringify([x.dt, Number(x.id), x.name, x.v])).sort();
    expect(await rows(table, cols)).toEqual(after);
    await writeCommit(table, "u", [], { compact: true });
    expect(await rows(table, cols)).toEqual(after);

    // two partitions, each with its own name; a partition filter finds one of them
    const partitions = (await table.newScan().plan()).splits.map((s) => (s as { partition: Record<string, unknown> }).partition?.dt);
    expect(new Set(partitions)).toEqual(new Set(["a", `${BOM}a`]));
    expect(await rows(table, cols, { filter: col("dt").eq(`${BOM}a`) })).toEqual(after.filter((x) => x.startsWith(`["${BOM}a"`)));
    expect(await rows(table, cols, { filter: col("name").eq(`${BOM}x`) })).toEqual(after.filter((x) => x.includes(`"${BOM}x"`)));
  });

  it("append table: file statistics and a bitmap index keep the mark, so filters on it find their rows", async () => {
    const { Catalog } = await import("../../src/catalog/catalog.js");
    const catalog = await Catalog.open(`memory://bom-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", {
      fields: [
        { name: "id", type: "BIGINT NOT NULL" },
        { name: "s", type: "STRING" },
      ],
      options: { "file-index.bitmap.columns": "s" },
    });
    // one file per value: statistics min = max = the value
    for (const [id, s] of [[1, `${BOM}k`], [2, "k"], [3, BOM]] as const) {
      const write = await table.newWrite({ commitUser: "u" });
      await write.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.of(BigInt(id)) }), s: arrow.vectorFromArray([s], new arrow.Utf8()).data[0] }));
      await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
      await write.close();
    }
    const cols: Array<[string, "s" | "l"]> = [["id", "l"], ["s", "s"]];
    expect(await rows(table, cols, { filter: col("s").eq(`${BOM}k`) })).toEqual([JSON.stringify([1, `${BOM}k`])]);
    expect(await rows(table, cols, { filter: col("s").eq("k") })).toEqual([JSON.stringify([2, "k"])]);
    expect(await rows(table, cols, { filter: col("s").eq(BOM) })).toEqual([JSON.stringify([3, BOM])]);
    // the manifests' statistics of the file of "\uFEFFk" hold the mark
    const plan = await table.newScan({ filter: col("s").eq(`${BOM}k`) }).plan();
    expect(plan.splits.length).toBe(1);
  });

  it("dictionary-encoded input with several dictionary chunks (deltas) keeps the mark, written and filtered", async () => {
    const { Catalog } = await import("../../src/catalog/catalog.js");
    const catalog = await Catalog.open(`memory://bom-dict-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "s", type: "STRING" }] });
    const utf8 = (values: string[]) => arrow.vectorFromArray(values, new arrow.Utf8()).data[0]!;
    // codes 0..3 over two chunks: ["k", "\uFEFFk"] then ["\uFEFF", "x"]
    const dictionary = new arrow.Vector([utf8(["k", `${BOM}k`]), utf8([BOM, "x"])]);
    const s = arrow.makeData({ type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), length: 5, data: Int32Array.of(1, 0, 2, 3, 1), dictionary });
    const write = await table.newWrite({ commitUser: "u" });
    await write.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 5, data: BigInt64Array.of(1n, 2n, 3n, 4n, 5n) }), s }));
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
    await write.close();
    const cols: Array<[string, "s" | "l"]> = [["id", "l"], ["s", "s"]];
    expect(await rows(table, cols)).toEqual([[1, `${BOM}k`], [2, "k"], [3, BOM], [4, "x"], [5, `${BOM}k`]].map((x) => JSON.stringify(x)));
    expect(await rows(table, cols, { filter: col("s").eq(`${BOM}k`) })).toEqual([[1, `${BOM}k`], [5, `${BOM}k`]].map((x) => JSON.stringify(x)));
  });

  it("real-time table: partitions that differ only by the mark stay apart before and after commit", async () => {
    const table = await makeTable({}, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const batch = (offsets: number[], dts: string[], names: string[]) =>
      new arrow.RecordBatch({
        _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: offsets.length, data: BigInt64Array.from(offsets.map(BigInt)) }),
        id: arrow.makeData({ type: new arrow.Int64(), length: offsets.length, data: BigInt64Array.from(offsets.map(BigInt)) }),
        name: arrow.vectorFromArray(names, new arrow.Utf8()).data[0],
        v: arrow.makeData({ type: new arrow.Float64(), length: offsets.length, data: new Float64Array(offsets.length) }),
        dt: arrow.vectorFromArray(dts, new arrow.Utf8()).data[0],
      });
    await w.write(batch([0, 2], ["d", "d"], [`${BOM}n`, BOM]), { partition: { dt: "d" }, bucket: 0 });
    await w.write(batch([1, 3], [`${BOM}d`, `${BOM}d`], ["n", ""]), { partition: { dt: `${BOM}d` }, bucket: 0 });
    const cols: Array<[string, "s" | "l"]> = [["id", "l"], ["name", "s"], ["dt", "s"]];
    const expected = [JSON.stringify([0, `${BOM}n`, "d"]), JSON.stringify([1, "n", `${BOM}d`]), JSON.stringify([2, BOM, "d"]), JSON.stringify([3, "", `${BOM}d`])].sort();
    expect(await rows(table, cols, { ctx })).toEqual(expected);
    expect(await rows(table, cols, { ctx, filter: col("dt").eq(`${BOM}d`) })).toEqual(expected.filter((x) => x.endsWith(`"${BOM}d"]`)));
    await commitRealtime(table, w, 1);
    expect(await rows(table, cols)).toEqual(expected);
    expect(await rows(table, cols, { filter: col("dt").eq("d") })).toEqual(expected.filter((x) => x.endsWith(`,"d"]`)));
    await w.close();
    await ctx.close();
  });
});
