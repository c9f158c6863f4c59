import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { Catalog } from "../../src/catalog/catalog.js";
import { beforeAll, describe, expect, it } from "vitest";
import { readParquetFooter } from "../../src/format/parquet-stats.js";
import { writeParquet } from "../../src/format/parquet-writer.js";
import { type ParquetSource, type RandomAccessSource, toByteSource } from "../../src/format/source.js";
import type { ParquetFooter } from "../../src/format/footer.js";
import { RoaringBitmap32 } from "../../src/kernel/bitmap.js";
import { and, col, or, type Predicate } from "../../src/predicate/predicate.js";
import { readSelective, selectiveReadCounters } from "../../src/read/selective-read.js";
import { DataTypes, type DataField } from "../../src/spec/types.js";
import { runs } from "../support/fc-runs.js";

const ROWS = 100_000;
const GROUP_ROWS = 10_000;
const fields: DataField[] = [
  { id: 0, name: "id", type: { ...DataTypes.BIGINT(), nullable: false } },
  { id: 1, name: "name", type: DataTypes.STRING() },
  { id: 2, name: "v", type: DataTypes.DOUBLE() },
];
type Row = { id: bigint; name: string | null; v: number | null };
const rows: Row[] = Array.from({ length: ROWS }, (_, i) => ({ id: BigInt(i), name: i % 5 === 0 ? null : `n${i}`, v: i % 7 === 0 ? null : (i % 1000) * 0.5 }));

let file: Uint8Array;
let footer: ParquetFooter;

beforeAll(async () => {
  const table = new arrow.Table({
    id: arrow.makeVector(BigInt64Array.from(rows, (r) => r.id)),
    name: arrow.vectorFromArray(rows.map((r) => r.name), new arrow.Utf8()),
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Float64()),
  });
  // 10 row groups of 10,000 rows, pages of about 1,024 rows
  ({ bytes: file } = await writeParquet(fields, table, { rowGroupRows: GROUP_ROWS, pageSize: 1024 }));
  footer = await readParquetFooter(file);
});

async function read(filter: Predicate, deleted: RoaringBitmap32 | null = null, projection = fields, source: ParquetSource = file): Promise<{ rows: Row[]; counters: typeof selectiveReadCounters }> {
  const before = { ...selectiveReadCounters };
  const out: Row[] = [];
  for await (const b of readSelective(toByteSource(source, "t.parquet"), { fields: projection, tableFields: fields, fileFields: fields, filter, deleted, batchSize: 3000, footer })) {
    expect(b.numRows).toBeLessThanOrEqual(3000);
    for (const r of b.toArray()) out.push({ id: r.id, name: r.name ?? null, v: r.v ?? null });
  }
  const counters = Object.fromEntries(Object.entries(selectiveReadCounters).map(([k, v]) => [k, v - before[k as keyof typeof before]])) as typeof selectiveReadCounters;
  return { rows: out, counters };
}

describe("selective reads (row-group and page pruning, late materialisation)", () => {
  it("the file has 10 row groups", () => {
    expect(footer.rowGroups.length).toBe(ROWS / GROUP_ROWS);
  });

  it("a 1% id range decodes only its row group, and only the pages holding it", async () => {
    const { rows: got, counters } = await read(and(col("id").ge(45_000n), col("id").le(45_999n)));
    expect(got).toEqual(rows.slice(45_000, 46_000));
    expect(counters.rowGroupsPruned).toBe(9);
    expect(counters.rowGroupsRead).toBe(1);
    expect(counters.chunkDecodes).toBe(3); // id, name, v of row group 4 once each
    expect(counters.pagesSkipped).toBeGreaterThan(0);
  });

  it("a range across two row groups decodes both and nothing else", async () => {
    const { rows: got, counters } = await read(and(col("id").ge(29_990n), col("id").lt(30_010n)));
    expect(got).toEqual(rows.slice(29_990, 30_010));
    expect(counters.rowGroupsPruned).toBe(8);
    expect(counters.chunkDecodes).toBe(6);
  });

  it("no match: no chunk is decoded", async () => {
    const { rows: got, counters } = await read(col("id").gt(500_000n));
    expect(got).toEqual([]);
    expect(counters.chunkDecodes).toBe(0);
    expect(counters.rowGroupsPruned).toBe(10);
  });

  it("deleted positions are dropped; a projection without the filter column still filters", async () => {
    const deleted = new RoaringBitmap32().addMany([45_000, 45_001, 45_999, 90_000]);
    const { rows: got } = await read(and(col("id").ge(45_000n), col("id").le(45_999n)), deleted);
    expect(got.map((r) => Number(r.id))).toEqual(Array.from({ length: 997 }, (_, i) => 45_002 + i));
    deleted.dispose();
  });

  it("random and/or filters over id, name and v return exactly the model's rows", async () => {
    const leafArb = fc.oneof(
      fc.tuple(fc.integer({ min: -10, max: ROWS + 10 }), fc.integer({ min: 0, max: 3000 })).map(([a, n]) => ({ p: and(col("id").ge(BigInt(a)), col("id").lt(BigInt(a + n))), m: (r: Row) => r.id >= BigInt(a) && r.id < BigInt(a + n) })),
      fc.integer({ min: -1, max: 501 }).map((x) => ({ p: col("v").lt(x), m: (r: Row) => r.v !== null && r.v < x })),
      fc.constant({ p: col("name").isNull(), m: (r: Row) => r.name === null }),
      fc.integer({ min: 0, max: ROWS }).map((x) => ({ p: col("name").eq(`n${x}`), m: (r: Row) => r.name === `n${x}` })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(leafArb, { minLength: 1, maxLength: 3 }), fc.boolean(), async (leaves, conj) => {
        const p = leaves.length === 1 ? leaves[0]!.p : conj ? and(...leaves.map((l) => l.p)) : or(...leaves.map((l) => l.p));
        const m = (r: Row) => (conj ? leaves.every((l) => l.m(r)) : leaves.some((l) => l.m(r)));
        const { rows: got } = await read(p);
        expect(got).toEqual(rows.filter(m));
      }),
      { numRuns: runs(15) },
    );
  });

  it("through a random-access source (the other columns' pages fetched ahead), random and/or filters return exactly the model's rows", async () => {
    const reads: Array<[number, number]> = [];
    const ranged: RandomAccessSource = { size: file.length, read: async (offset, length) => (reads.push([offset, length]), file.slice(offset, offset + length)) };
    const leafArb = fc.oneof(
      fc.tuple(fc.integer({ min: -10, max: ROWS + 10 }), fc.integer({ min: 0, max: 3000 })).map(([a, n]) => ({ p: and(col("id").ge(BigInt(a)), col("id").lt(BigInt(a + n))), m: (r: Row) => r.id >= BigInt(a) && r.id < BigInt(a + n) })),
      fc.integer({ min: -1, max: 501 }).map((x) => ({ p: col("v").lt(x), m: (r: Row) => r.v !== null && r.v < x })),
      fc.integer({ min: 0, max: ROWS }).map((x) => ({ p: col("name").eq(`n${x}`), m: (r: Row) => r.name === `n${x}` })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(leafArb, { minLength: 1, maxLength: 3 }), fc.boolean(), async (leaves, conj) => {
        const p = leaves.length === 1 ? leaves[0]!.p : conj ? and(...leaves.map((l) => l.p)) : or(...leaves.map((l) => l.p));
        const m = (r: Row) => (conj ? leaves.every((l) => l.m(r)) : leaves.some((l) => l.m(r)));
        const { rows: got } = await read(p, null, fields, ranged);
        expect(got).toEqual(rows.filter(m));
      }),
      { numRuns: runs(20) },
    );
    expect(reads.length).toBeGreaterThan(0);
  });

  it("a failed read ahead is read again by the decoder: exact rows", async () => {
    // the first read inside each name and v chunk (the read ahead: late columns are read after it) fails
    const late = footer.rowGroups.flatMap((g) => [g.chunks[1]!, g.chunks[2]!]);
    const tried = new Set<number>();
    const failed: Array<[number, number]> = [];
    const flaky: RandomAccessSource = {
      size: file.length,
      read: async (offset, length) => {
        const c = late.findIndex((x) => offset >= x.start && offset + length <= x.start + x.length);
        if (c >= 0 && !tried.has(c)) {
          tried.add(c);
          failed.push([offset, length]);
          throw new Error("transient");
        }
        return file.slice(offset, offset + length);
      },
    };
    const { rows: got } = await read(and(col("id").ge(45_000n), col("id").le(45_999n)), null, fields, flaky);
    expect(got).toEqual(rows.slice(45_000, 46_000));
    expect(failed.length).toBe(2); // one read ahead for name and one for v failed; the decoders read again
  });

  it("table reads with an exact filter decode only the pages holding matches (page statistics of our writer)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paimon-rt-selective-"));
    try {
      const catalog = await Catalog.open(dir);
      await catalog.createDatabase("db");
      const t = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "v", type: "DOUBLE" }] });
      const w = await t.newWrite({ commitUser: "u" });
      const n = 200_000;
      await w.write(
        new arrow.RecordBatch({
          id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)) }),
          name: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `n${i}`), new arrow.Utf8()).data[0]!,
          v: arrow.makeData({ type: new arrow.Float64(), length: n, data: Float64Array.from({ length: n }, (_, i) => i / 4) }),
        }),
      );
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      const plan = await t.newScan().plan();
      const before = { ...selectiveReadCounters };
      const got = await t.newRead({ projection: ["v", "name"], filter: and(col("id").ge(150_000n), col("id").lt(150_010n)), predicateFilter: true }).toArrow(plan.splits);
      expect(got.toArray().map((r) => [r.v, r.name])).toEqual(Array.from({ length: 10 }, (_, i) => [(150_000 + i) / 4, `n${150_000 + i}`]));
      expect(selectiveReadCounters.chunkDecodes - before.chunkDecodes).toBe(3); // id, then v and name
      expect(selectiveReadCounters.pagesSkipped - before.pagesSkipped).toBeGreaterThan(0);
      expect(selectiveReadCounters.pagesDecoded - before.pagesDecoded).toBeLessThanOrEqual(6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("one candidate range narrowed by binary search over an ascending decoded filter column", () => {
  const kFields: DataField[] = [
    { id: 0, name: "k", type: DataTypes.INT() },
    { id: 1, name: "b", type: DataTypes.BIGINT() },
    { id: 2, name: "s", type: DataTypes.STRING() },
  ];
  type KRow = { k: number | null; b: bigint | null; s: string };
  type Layout = "ascending" | "descending" | "shuffled" | "ascending with nulls";

  /** `n` rows whose k and b follow `layout` (ascending: values from a small domain, so with ties). */
  function makeRows(layout: Layout, n: number, seed: number): KRow[] {
    let x = seed >>> 0;
    const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % Math.max(1, n >> 1);
    const ks = Array.from({ length: n }, () => next() - (n >> 2)); // negative values too
    if (layout !== "shuffled") ks.sort((a, b) => (layout === "descending" ? b - a : a - b));
    return ks.map((k, i) => {
      const nul = layout === "ascending with nulls" && i % 97 === 13;
      return { k: nul ? null : k, b: nul ? null : BigInt(k) * 3_000_000_000n, s: `s${i % 11}` };
    });
  }

  async function readRows(rs: KRow[], filter: Predicate): Promise<{ rows: KRow[]; narrowed: number }> {
    const t = new arrow.Table({
      k: arrow.vectorFromArray(rs.map((r) => r.k), new arrow.Int32()),
      b: arrow.vectorFromArray(rs.map((r) => r.b), new arrow.Int64()),
      s: arrow.vectorFromArray(rs.map((r) => r.s), new arrow.Utf8()),
    });
    const { bytes } = await writeParquet(kFields, t, { pageSize: 256 });
    const f = await readParquetFooter(bytes);
    const before = selectiveReadCounters.sortedNarrowings;
    const out: KRow[] = [];
    for await (const b of readSelective(toByteSource(bytes, "k.parquet"), { fields: kFields, tableFields: kFields, fileFields: kFields, filter, deleted: null, batchSize: 500, footer: f })) {
      for (const r of b.toArray()) out.push({ k: r.k ?? null, b: r.b ?? null, s: r.s });
    }
    return { rows: out, narrowed: selectiveReadCounters.sortedNarrowings - before };
  }

  const ops = ["ge", "gt", "le", "lt", "eq"] as const;
  const test = (v: number | null, op: (typeof ops)[number], x: number): boolean =>
    v !== null && (op === "ge" ? v >= x : op === "gt" ? v > x : op === "le" ? v <= x : op === "lt" ? v < x : v === x);

  it("a 1% range over an ascending column with ties is narrowed and exact; a shuffled or descending one is not narrowed and exact", async () => {
    for (const layout of ["ascending", "shuffled", "descending"] as const) {
      const rs = makeRows(layout, 4000, 7);
      const { rows: got, narrowed } = await readRows(rs, and(col("k").ge(100), col("k").le(119)));
      expect(got).toEqual(rs.filter((r) => r.k !== null && r.k >= 100 && r.k <= 119));
      expect(got.length).toBeGreaterThan(0);
      expect(narrowed).toBe(layout === "ascending" ? 1 : 0);
    }
  });

  it("random layouts and random bound filters on k or b (with other conjuncts and disjunctions) return exactly the model's rows", async () => {
    const leaf = fc.tuple(fc.constantFrom("k", "b"), fc.constantFrom(...ops), fc.integer({ min: -1200, max: 2200 }));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Layout>("ascending", "descending", "shuffled", "ascending with nulls"),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer(),
        fc.array(leaf, { minLength: 1, maxLength: 3 }),
        fc.constantFrom("and", "or", "and with s"),
        async (layout, n, seed, leaves, shape) => {
          const rs = makeRows(layout, n, seed);
          const preds = leaves.map(([c, op, x]) => (c === "k" ? col("k")[op](x) : col("b")[op](BigInt(x) * 3_000_000_000n)));
          const ms = leaves.map(([, op, x]) => (r: KRow) => test(r.k, op, x)); // b = 3e9 k orders as k
          const sLeaf = col("s").eq("s3");
          const filter = shape === "or" ? or(...preds) : shape === "and" ? and(...preds) : and(...preds, sLeaf);
          const model = (r: KRow) => (shape === "or" ? ms.some((m) => m(r)) : ms.every((m) => m(r)) && (shape === "and" || r.s === "s3"));
          const { rows: got } = await readRows(rs, preds.length === 1 && shape !== "and with s" ? preds[0]! : filter);
          expect(got).toEqual(rs.filter(model));
        },
      ),
      { numRuns: runs(60) },
    );
  });
});
