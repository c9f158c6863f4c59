/**
 * ORC data files paimon-rt writes (`file.format=orc`) read back by paimon-rt's ORC reader exactly
 * as written, without an oracle: every type, nulls in some batches only (one PRESENT stream over
 * all of a file's batches), sliced input batches, each compression, primary-key tables with
 * compaction. (Java reads the same files: test/interop/orc-data-interop.test.ts.)
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { tempDirs } from "../support/temp-dirs.js";
import { ALL_TYPES, allTypesRow, dataFileNames, nullRow, PK_FIELDS, pkCommits, tableRows } from "../interop/data-file-rows.js";
import { rtCommitRows } from "../interop/rt-commit.js";
import { sortRows } from "../interop/oracle/harness.js";

const tempDir = tempDirs("paimon-rt-orc-data-");
const FIELDS = [...ALL_TYPES, { name: "ts9", type: "TIMESTAMP(9)" }, { name: "mset", type: "MULTISET<STRING>" }];

function row(id: number) {
  return id % 5 === 4 ? nullRow(id) : { ...allTypesRow(id), ts9: String(1704067200123456789n * BigInt(id % 2 ? 1 : -1) + BigInt(id)), mset: [[`m${id % 3}`, id % 4]] };
}

describe("ORC data files written by paimon-rt", () => {
  it("every type with each compression reads back exactly; nulls only in some batches", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const nulls = Object.fromEntries(FIELDS.map((f) => [f.name, null]));
    for (const compression of ["zstd", "zlib", "snappy", "lz4", "none"]) {
      const id = `db.t_${compression}`;
      await catalog.createTable(id, { fields: FIELDS, options: { bucket: "-1", "file.format": "orc", "file.compression": compression } });
      // one commit of two writes: a batch without nulls, then one with
      const table = await catalog.getTable(id);
      const write = await table.newWrite({ commitUser: "u" });
      const { rowsToBatch } = await import("../interop/convert.js");
      const first = Array.from({ length: 40 }, (_, i) => ({ ...allTypesRow(i + 1) }));
      const second = Array.from({ length: 40 }, (_, i) => row(i + 41));
      await write.write(rowsToBatch(FIELDS, first));
      const batch = rowsToBatch(FIELDS, second);
      await write.write(batch.slice(0, 15));
      await write.write(batch.slice(15)); // (a sliced batch: Arrow data at an offset)
      await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
      await write.close();
      expect((await dataFileNames(catalog, id)).every((f) => f.endsWith(".orc"))).toBe(true);
      expect(await tableRows(catalog, id), compression).toEqual(sortRows([...first, ...second].map((r) => ({ ...nulls, ...r }))));
    }
    const file = (await dataFileNames(catalog, "db.t_none"))[0]!;
    const bytes = await fsp.readFile(path.join(warehouse, "db.db", "t_none", "bucket-0", file));
    expect(bytes.subarray(0, 3).toString()).toBe("ORC");
  });

  it("a primary-key table in ORC: writes, deletes and compactions read back as the model says", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    await catalog.createTable("db.pk", { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "1", "file.format": "orc" } });
    const model = new Map<number, Record<string, unknown>>();
    for (const c of pkCommits()) {
      const rows = Array.isArray(c) ? c : c.rows;
      await rtCommitRows(await catalog.getTable("db.pk"), PK_FIELDS, rows, { compact: !Array.isArray(c) && c.compact });
      for (const r of rows) {
        if (r._kind === "-D") model.delete(r.k as number);
        else model.set(r.k as number, r);
      }
    }
    expect(await tableRows(catalog, "db.pk")).toEqual(sortRows([...model.values()]));
    expect((await dataFileNames(catalog, "db.pk")).every((f) => f.endsWith(".orc"))).toBe(true);
  });
});

describe("ORC integer encoding and statistics", () => {
  const FIELDS_INT = [
    { id: 0, name: "l", type: { kind: "BIGINT" as const, nullable: true } },
    { id: 1, name: "i", type: { kind: "INT" as const, nullable: true } },
    { id: 2, name: "d", type: { kind: "DATE" as const, nullable: true } },
  ];
  const EDGES = [0n, 1n, -1n, 2n ** 52n - 1n, -(2n ** 52n) + 1n, 2n ** 52n, -(2n ** 52n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 123456789012n];
  const longs = fc.oneof(fc.constantFrom(...EDGES), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -(2n ** 52n), max: 2n ** 52n }), fc.bigInt({ min: -1000n, max: 1000n }));

  it("random integers (numbers within ±2^52, bigints beyond) read back exactly; min/max/sum as orc-core keeps them (sum unknown once a long overflows)", async () => {
    const { OrcFileWriter } = await import("../../src/format/orc-data-write.js");
    const { readWholeDataFile, loadOrcReader } = await import("../../src/format/file-formats.js");
    const orc = await loadOrcReader();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.option(longs), fc.option(fc.integer())), { minLength: 1, maxLength: 1200 }), async (values) => {
        const l = values.map(([v]) => v);
        const i = values.map(([, v]) => v);
        const w = new OrcFileWriter(FIELDS_INT, { compression: "none" });
        w.write(new arrow.RecordBatch({ l: arrow.vectorFromArray(l, new arrow.Int64()).data[0]!, i: arrow.vectorFromArray(i, new arrow.Int32()).data[0]!, d: arrow.vectorFromArray(i, new arrow.Int32()).data[0]!.clone(new arrow.DateDay()) as arrow.Data }));
        const { bytes } = await w.finish();
        const out: Array<[unknown, unknown]> = [];
        for await (const b of readWholeDataFile(Promise.resolve(bytes), { fields: FIELDS_INT.slice(0, 2), batchSize: 4096, fileName: "x.orc" })) for (let r = 0; r < b.numRows; r++) out.push([b.getChildAt(0)!.get(r), b.getChildAt(1)!.get(r)]);
        expect(out).toEqual(values.map(([a, b]) => [a, b]));
        const stats = await orc.readOrcFileStatistics(bytes);
        const present = l.filter((v): v is bigint => v !== null);
        let sum: bigint | null = 0n;
        for (const v of present) if (sum !== null && (sum += v) !== BigInt.asIntN(64, sum)) sum = null;
        const expected = present.length === 0 ? undefined : { min: present.reduce((a, b) => (b < a ? b : a)), max: present.reduce((a, b) => (b > a ? b : a)), ...(sum === null ? {} : { sum }) };
        expect(stats[1]).toEqual({ values: present.length, hasNull: present.length < l.length, ...(expected ? { int: expected } : {}) });
        const ints = i.filter((v): v is number => v !== null).map(BigInt);
        const date = ints.length === 0 ? {} : { date: { min: ints.reduce((a, b) => (b < a ? b : a)), max: ints.reduce((a, b) => (b > a ? b : a)) } };
        expect(stats[3]).toEqual({ values: ints.length, hasNull: ints.length < i.length, ...date });
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("ORC string encodings", () => {
  it("DICTIONARY_V2 where distinct / values ≤ 0.8 (orc-core's orc.dictionary.key.threshold), else DIRECT_V2; both read back exactly", async () => {
    const { OrcFileWriter } = await import("../../src/format/orc-data-write.js");
    const { readWholeDataFile, loadOrcReader } = await import("../../src/format/file-formats.js");
    const orc = await loadOrcReader();
    const fields = [
      { id: 0, name: "few", type: { kind: "VARCHAR" as const, nullable: true, length: 2147483647 } },
      { id: 1, name: "all", type: { kind: "VARCHAR" as const, nullable: true, length: 2147483647 } },
      { id: 2, name: "edge", type: { kind: "VARCHAR" as const, nullable: true, length: 2147483647 } },
    ];
    // 100 values: "few" 10 distinct, "all" 100 distinct, "edge" 80 distinct (= 0.8: dictionary) and one null
    const few = Array.from({ length: 100 }, (_, i) => (i === 7 ? null : `é${(i * 7) % 10}`));
    const all = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const edge = Array.from({ length: 100 }, (_, i) => `e${i % 80}`);
    const w = new OrcFileWriter(fields, { compression: "zstd" });
    const vec = (v: (string | null)[]) => arrow.vectorFromArray(v, new arrow.Utf8()).data[0]!;
    w.write(new arrow.RecordBatch({ few: vec(few), all: vec(all), edge: vec(edge) }));
    const { bytes } = await w.finish();
    expect((await orc.readOrcEncodings(bytes))[0]!.slice(1)).toEqual([3, 2, 3]);
    const out: unknown[][] = [];
    for await (const b of readWholeDataFile(Promise.resolve(bytes), { fields, batchSize: 4096, fileName: "x.orc" })) for (let r = 0; r < b.numRows; r++) out.push([0, 1, 2].map((c) => b.getChildAt(c)!.get(r)));
    expect(out).toEqual(few.map((f, i) => [f, all[i], edge[i]]));
  });
});
