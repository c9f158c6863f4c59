/**
 * The rows the data-file format interop tests (Avro, ORC) have Java and paimon-rt write: every
 * Paimon type Java writes in both formats, with nulls, negative values and nested types, and a
 * primary-key table's commits with deletes and a compaction.
 */
import * as fsp from "node:fs/promises";
import { expect } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { arrowToRows } from "./convert.js";
import { type OracleRow, sortRows, writeTables } from "./oracle/harness.js";
import { rtCommitRows } from "./rt-commit.js";

export const ALL_TYPES = [
  { name: "id", type: "INT NOT NULL" },
  { name: "b", type: "BOOLEAN" },
  { name: "t", type: "TINYINT" },
  { name: "sm", type: "SMALLINT" },
  { name: "i", type: "INT" },
  { name: "l", type: "BIGINT" },
  { name: "f", type: "FLOAT" },
  { name: "d", type: "DOUBLE" },
  { name: "dec5", type: "DECIMAL(5, 2)" },
  { name: "dec18", type: "DECIMAL(18, 4)" },
  { name: "dec38", type: "DECIMAL(38, 10)" },
  { name: "s", type: "STRING" },
  { name: "c", type: "CHAR(3)" },
  { name: "vc", type: "VARCHAR(10) NOT NULL" },
  { name: "by", type: "BYTES" },
  { name: "bi", type: "BINARY(4)" },
  { name: "dt", type: "DATE" },
  { name: "tm", type: "TIME(3)" },
  { name: "ts0", type: "TIMESTAMP(0)" },
  { name: "ts3", type: "TIMESTAMP(3)" },
  { name: "ts6", type: "TIMESTAMP(6)" },
  { name: "ltz3", type: "TIMESTAMP_LTZ(3)" },
  { name: "ltz6", type: "TIMESTAMP_LTZ(6)" },
  { name: "arr", type: "ARRAY<INT>" },
  { name: "arrs", type: "ARRAY<STRING NOT NULL>" },
  { name: "ms", type: "MAP<STRING, BIGINT>" },
  { name: "mi", type: "MAP<INT, STRING>" },
  { name: "r", type: "ROW<x INT, y STRING, z ARRAY<DECIMAL(20, 2)>>" },
];

export function allTypesRow(id: number): OracleRow {
  const neg = id % 2 === 0 ? -1 : 1;
  return {
    id,
    b: id % 3 === 0,
    t: (neg * id) % 128,
    sm: neg * id * 300,
    i: neg * id * 70000,
    l: String(BigInt(neg) * (9007199254740993n + BigInt(id) * 4294967296n)),
    f: id + 0.5,
    d: neg * id * 1.25e10,
    dec5: `${neg < 0 ? "-" : ""}${id}.25`,
    dec18: `${neg < 0 ? "-" : ""}${id}12345678901.0001`,
    dec38: `${neg < 0 ? "-" : ""}${(id % 9) + 1}234567890123456789012345678.0123456789`,
    s: `str-${id}-é€😀`,
    c: `c${id % 10}`,
    vc: `v${id}`,
    by: Buffer.from([id, 0, 255, 128]).toString("base64"),
    bi: Buffer.from([1, 2, 3, id]).toString("base64"),
    dt: neg < 0 ? "1960-02-29" : "2024-12-31",
    tm: id * 1000 + 123,
    ts0: String(BigInt(neg) * 1704067200000000000n),
    ts3: String(BigInt(neg) * 1704067200123000000n - 1000000n * BigInt(id)),
    ts6: String(BigInt(neg) * 1704067200123456000n - 1000n * BigInt(id)),
    ltz3: String(1704067200123000000n + 1000000n * BigInt(id)),
    ltz6: String(-1704067200123456000n + 1000n * BigInt(id)),
    arr: [id, null, -id],
    arrs: [`a${id}`, ""],
    ms: [[`k${id}`, String(id)], ["n", null]],
    mi: [[id, `v${id}`], [-1, null]],
    r: { x: id, y: id % 2 === 0 ? null : `y${id}`, z: [`${id}.50`, null] },
  };
}

/** A row of ALL_TYPES with every nullable column null. */
export function nullRow(id: number): OracleRow {
  return { id, vc: `null${id}` };
}

export const PK_FIELDS = [
  { name: "k", type: "INT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "BIGINT" },
];

export function pkCommits(): Array<OracleRow[] | { rows: OracleRow[]; compact: boolean }> {
  return [
    Array.from({ length: 20 }, (_, k) => ({ k, v: `a${k}`, n: String(k) })),
    [
      { k: 3, v: "b3", n: "30" },
      { k: 4, _kind: "-D" },
      { k: 25, v: "b25", n: null },
    ],
    { rows: [{ k: 5, v: "c5", n: "50" }], compact: true },
    [
      { k: 6, v: "d6", n: "60" },
      { k: 7, _kind: "-D" },
      { k: 26, v: null, n: "-1" },
    ],
    [{ k: 6, v: "e6", n: "61" }],
  ];
}

/** Read options of a table read (as `Table.newRead` takes them). */
export type ReadOptions = Parameters<Awaited<ReturnType<Catalog["getTable"]>>["newRead"]>[0];

/** The rows paimon-rt reads of a table (planned with the read's filter), sorted. */
export async function tableRows(catalog: Catalog, identifier: string, options: ReadOptions = {}): Promise<OracleRow[]> {
  const table = await catalog.getTable(identifier);
  const plan = await table.newScan(options?.filter ? { filter: options.filter } : {}).plan();
  return sortRows(arrowToRows(await table.newRead(options).toArrow(plan.splits)));
}

/** The names of a table's data files in its latest snapshot, sorted. */
export async function dataFileNames(catalog: Catalog, identifier: string): Promise<string[]> {
  const table = await catalog.getTable(identifier);
  const plan = await table.newScan().plan();
  return plan.splits.flatMap((s) => s.files.map((f) => f.fileName)).sort();
}

/**
 * Reads `splits` of `table` with `filePath` holding `broken` bytes meanwhile (restored after) and
 * expects CORRUPT_FILE naming `fileName`.
 */
export async function expectCorruptRead(table: Awaited<ReturnType<Catalog["getTable"]>>, splits: Parameters<ReturnType<Awaited<ReturnType<Catalog["getTable"]>>["newRead"]>["toArrow"]>[0], filePath: string, fileName: string, broken: readonly Uint8Array[]): Promise<void> {
  const bytes = await fsp.readFile(filePath);
  try {
    for (const b of broken) {
      await fsp.writeFile(filePath, b);
      const error = await table.newRead().toArrow(splits).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PaimonError);
      expect((error as PaimonError).code).toBe("CORRUPT_FILE");
      expect((error as PaimonError).message).toContain(fileName);
    }
  } finally {
    await fsp.writeFile(filePath, bytes);
  }
}

/** The value stats (min, max as hex; null counts) of a table's only data file. */
export async function onlyFileStats(catalog: Catalog, identifier: string): Promise<{ min: string; max: string; nulls: readonly (bigint | null)[] | null }> {
  const plan = await (await catalog.getTable(identifier)).newScan().plan();
  const files = plan.splits.flatMap((s) => s.files);
  expect(files.length).toBe(1);
  const v = files[0]!.valueStats;
  return { min: Buffer.from(v.minValues).toString("hex"), max: Buffer.from(v.maxValues).toString("hex"), nulls: v.nullCounts };
}

/**
 * Java and paimon-rt each write the same all-types rows (nulls, a long string) to a
 * `file.format` table in `warehouse`; returns both files' manifest value stats and the catalog.
 * Asserts they are equal and not vacuous (over 20 null counts kept).
 */
export async function expectJavaValueStats(warehouse: string, format: "avro" | "orc"): Promise<{ java: Awaited<ReturnType<typeof onlyFileStats>>; catalog: Catalog }> {
  const rows = Array.from({ length: 20 }, (_, i) => (i % 7 === 6 ? nullRow(i + 1) : allTypesRow(i + 1)));
  rows.push({ ...allTypesRow(50), s: "a string longer than sixteen characters", vc: "zzzzzzzzzz" });
  const options = { bucket: "1", "bucket-key": "id", "file.format": format };
  await writeTables("java", warehouse, [{ identifier: "db.java_stats", spec: { fields: ALL_TYPES, options, commits: [rows] } }]);
  const catalog = await Catalog.open(warehouse);
  const rt = await catalog.createTable("db.rt_stats", { fields: ALL_TYPES, options });
  await rtCommitRows(rt, ALL_TYPES, rows);
  const java = await onlyFileStats(catalog, "db.java_stats");
  expect(await onlyFileStats(catalog, "db.rt_stats")).toEqual(java);
  expect((java.nulls ?? []).filter((n) => n !== null && n > 0n).length).toBeGreaterThan(20);
  return { java, catalog };
}
