/**
 * Aggregate functions with Java Paimon 1.4.2: `collect` (FieldCollectAgg: arrays concatenated,
 * retractions removing elements), `listagg` with `fields.<f>.distinct` (Java's
 * FieldListaggAgg token split) and `rbm32` (FieldRoaringBitmap32Agg: the union of serialized
 * RoaringBitmaps, run-optimized, in Java's bytes). Java and paimon-rt write the same commits; each
 * reads both tables merge-on-read and after a full compaction, with byte-identical bitmaps.
 * `rbm64` (FieldRoaringBitmap64Agg: Roaring64Bitmaps Java built, unioned in Java's native
 * Roaring64Bitmap bytes) both ways, continued from Java's table, with and without deletion vectors.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RoaringBitmap32 } from "../../src/kernel/bitmap.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { rtCommitRows } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, javaSketchesByName, javaSketchFold, type OracleRow, readTables, writeTables } from "./oracle/harness.js";
import { aggregateBothWays } from "./aggregate-both-ways.js";
import type { KindRow } from "./rt-commit.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping aggregate-function interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-aggregate-functions-interop-");

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "la", type: "STRING" },
  { name: "lb", type: "STRING" },
  { name: "le", type: "STRING" },
  { name: "bm", type: "BYTES" },
];
const OPTIONS = {
  bucket: "1",
  "merge-engine": "aggregation",
  "fields.la.aggregate-function": "listagg",
  "fields.la.distinct": "true",
  "fields.lb.aggregate-function": "listagg",
  "fields.lb.distinct": "true",
  "fields.lb.list-agg-delimiter": "::",
  "fields.le.aggregate-function": "listagg",
  "fields.le.distinct": "true",
  "fields.le.list-agg-delimiter": "",
  "fields.bm.aggregate-function": "rbm32",
};

/** A serialized RoaringBitmap (portable format, as Java's RoaringBitmap32.serialize) of `values`, base64. */
function bitmap(values: Iterable<number>, optimize: boolean): string {
  const b = new RoaringBitmap32(values);
  try {
    if (optimize) b.runOptimize("java");
    return Buffer.from(b.serializePortable()).toString("base64");
  } finally {
    b.dispose();
  }
}
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => from + i * step);

const COMMITS: OracleRow[][] = [
  [
    { id: 1, la: "a,b", lb: "x::y", le: "p q", bm: bitmap([1, 2, 3], false) },
    { id: 2, la: "", lb: null, le: "", bm: bitmap(range(0, 10000, 2), false) },
    { id: 3, la: ",a,,a", lb: "::", le: " p", bm: null },
  ],
  [
    { id: 1, la: "b,c,a,d,c", lb: "y::z::x", le: "q r  p", bm: bitmap(range(3, 200), true) },
    { id: 2, la: "z", lb: "w::", le: "s", bm: bitmap(range(1, 10000, 2), false) },
    { id: 3, la: "a,b", lb: "::k", le: "t", bm: bitmap([4000000000, 65536, 65537], false) },
  ],
  [
    { id: 1, la: "e,,e", lb: null, le: null, bm: bitmap([70000, 4294967295], false) },
    { id: 3, la: "b", lb: "k::k::m", le: "t u", bm: bitmap(range(100000, 108000), false) },
  ],
];

const norm = (rows: OracleRow[]) => rows.map((r) => ({ id: Number(r.id), la: r.la ?? null, lb: r.lb ?? null, le: r.le ?? null, bm: r.bm ?? null })).sort((a, b) => a.id - b.id);
const rtRows = async (t: Table) => norm(arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)).map((r) => ({ ...r, bm: r.bm instanceof Uint8Array ? Buffer.from(r.bm).toString("base64") : r.bm })));

describe.skipIf(noJava !== null)("aggregate functions with Java", () => {
  it(
    "listagg distinct and rbm32: same rows and bitmap bytes merge-on-read and after compaction, both ways",
    async () => {
      const javaWh = tempDir();
      const rtWh = tempDir();
      await writeTables("java", javaWh, [
        { identifier: "db.mor", spec: { fields: FIELDS, primaryKeys: ["id"], options: OPTIONS, commits: COMMITS } },
        { identifier: "db.compacted", spec: { fields: FIELDS, primaryKeys: ["id"], options: OPTIONS, commits: [...COMMITS, { rows: [], compact: true }] } },
      ]);
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      for (const name of ["mor", "compacted"]) {
        const t = await catalog.createTable(`db.${name}`, { fields: FIELDS as Array<{ name: string; type: string }>, primaryKeys: ["id"], options: OPTIONS });
        for (const rows of COMMITS) await rtCommitRows(t, FIELDS, rows);
        if (name === "compacted") await rtCommitRows(t, FIELDS, [], { compact: true });
      }
      const reads = await readTables("java", ["mor", "compacted"].flatMap((name) => [javaWh, rtWh].map((warehouse) => ({ warehouse, identifier: `db.${name}` }))));
      const expected = norm(reads[0] as OracleRow[]);
      // Java's strings: the accumulator kept as it is, new non-empty tokens appended with the
      // delimiter (an empty delimiter splits at " " and appends with "")
      expect(expected.map((r) => [r.la, r.lb, r.le])).toEqual([
        ["a,b,c,d,e", "x::y::z", "p qr"],
        ["z", "w::", "s"],
        [",a,,a,b", "::::k::m", " pttu"],
      ]);
      for (const [i, r] of reads.entries()) expect(norm(r as OracleRow[]), `Java read #${i}`).toEqual(expected);
      const javaCatalog = await Catalog.open(javaWh);
      for (const name of ["mor", "compacted"]) {
        expect(await rtRows(await javaCatalog.getTable(`db.${name}`)), `paimon-rt reads Java's ${name}`).toEqual(expected);
        expect(await rtRows(await catalog.getTable(`db.${name}`)), `paimon-rt reads its ${name}`).toEqual(expected);
      }
    },
    SLOW,
  );

  it(
    "collect: arrays concatenated in order, -U / -D remove elements (first equal ones), ignore-retract keeps them; both ways, merge-on-read and compacted",
    async () => {
      const fields: FieldLike[] = [
        { name: "id", type: "INT NOT NULL" },
        { name: "c", type: "ARRAY<INT>" },
        { name: "cs", type: "ARRAY<STRING>" },
        { name: "ci", type: "ARRAY<BIGINT>" },
      ];
      const options = { bucket: "1", "merge-engine": "aggregation", "fields.c.aggregate-function": "collect", "fields.cs.aggregate-function": "collect", "fields.ci.aggregate-function": "collect", "fields.ci.ignore-retract": "true" };
      const commits: OracleRow[][] = [
        [
          { id: 1, c: [1, 2, null, 2], cs: ["a", "b"], ci: ["1"] },
          { id: 2, c: null, cs: [], ci: null },
          { id: 3, c: [5], cs: ["x"], ci: ["3"] },
        ],
        [
          { id: 1, c: [3, 2], cs: null, ci: ["2"] },
          { id: 2, c: [7, 7], cs: ["q"], ci: ["4"] },
          { _kind: "-U", id: 1, c: [2, null, 9], cs: ["b", "a", "a"], ci: ["1"] },
          { _kind: "+U", id: 1, c: [4], cs: ["c"], ci: ["5"] },
        ],
        [
          { _kind: "-D", id: 2, c: [7], cs: null, ci: ["4"] },
          { id: 3, c: [], cs: ["y", "x"], ci: [] },
        ],
      ];
      const javaWh = tempDir();
      const rtWh = tempDir();
      await writeTables("java", javaWh, [
        { identifier: "db.mor", spec: { fields, primaryKeys: ["id"], options, commits } },
        { identifier: "db.compacted", spec: { fields, primaryKeys: ["id"], options, commits: [...commits, { rows: [], compact: true }] } },
      ]);
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      for (const name of ["mor", "compacted"]) {
        const t = await catalog.createTable(`db.${name}`, { fields: fields as Array<{ name: string; type: string }>, primaryKeys: ["id"], options });
        for (const rows of commits) await rtCommitRows(t, fields, rows);
        if (name === "compacted") await rtCommitRows(t, fields, [], { compact: true });
      }
      const normC = (rows: OracleRow[]) => rows.map((r) => ({ id: Number(r.id), c: r.c ?? null, cs: r.cs ?? null, ci: r.ci === null || r.ci === undefined ? null : (r.ci as unknown[]).map(String) })).sort((a, b) => a.id - b.id);
      const reads = await readTables("java", ["mor", "compacted"].flatMap((name) => [javaWh, rtWh].map((warehouse) => ({ warehouse, identifier: `db.${name}` }))));
      const expected = normC(reads[0] as OracleRow[]);
      // (a retraction meets the records merged before it: here those of its own commit, which
      // Java's write buffer merges at flush; the first commit's elements stay)
      expect(expected).toEqual([
        { id: 1, c: [1, 2, null, 2, 3, 4], cs: ["a", "b", "c"], ci: ["1", "2", "5"] },
        { id: 2, c: [7], cs: ["q"], ci: ["4"] },
        { id: 3, c: [5], cs: ["x", "y", "x"], ci: ["3"] },
      ]);
      for (const [i, r] of reads.entries()) expect(normC(r as OracleRow[]), `Java read #${i}`).toEqual(expected);
      const javaCatalog = await Catalog.open(javaWh);
      const rtRead = async (t: Table) => normC(arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)));
      for (const name of ["mor", "compacted"]) {
        expect(await rtRead(await javaCatalog.getTable(`db.${name}`)), `paimon-rt reads Java's ${name}`).toEqual(expected);
        expect(await rtRead(await catalog.getTable(`db.${name}`)), `paimon-rt reads its ${name}`).toEqual(expected);
      }
    },
    SLOW,
  );

  it(
    "rbm64: Java's bitmaps unioned in Java's bytes merge-on-read, compacted and continued both ways, with and without deletion vectors; retractions skipped with ignore-retract",
    async () => {
      const fields: FieldLike[] = [
        { name: "id", type: "INT NOT NULL" },
        { name: "b", type: "BYTES" },
        { name: "v", type: "VARBINARY(1000000)" },
      ];
      const keyed = (base: bigint, from: number, to: number, step = 1) => Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => BigInt.asIntN(64, ((base + BigInt(from + i * step)) << 16n) | 5n).toString());
      const specs: Record<string, { adds: Array<string | [string, string]>; raw?: boolean }> = {
        empty: { adds: [] },
        small: { adds: ["1", "2", "3", "65536", "-1"] },
        other: { adds: ["4", "131072", "-65536", "9223372036854775807"] },
        wide: { adds: keyed(0x0102_0304_0500n, 0, 40) },
        wider: { adds: keyed(0x0102_0304_0500n, 40, 120, 1).reverse() },
        dense: { adds: Array.from({ length: 5000 }, (_, i) => String(7 * 65536 + i * 3)), raw: true },
        runs: { adds: [["458752", "488752"], ["-200000", "-100"]] },
      };
      const k = await javaSketchesByName(Object.fromEntries(Object.entries(specs).map(([n, spec]) => [n, { op: "rbm64", ...spec }])));
      const javaFold = (items: string[]) => javaSketchFold("rbm64-fold", items);
      const commits: KindRow[][] = [
        [
          { id: 1, b: k.small, v: k.wide },
          { id: 2, b: k.empty, v: null },
          { id: 3, b: k.dense, v: k.runs },
        ],
        [
          { id: 1, b: k.other, v: k.wider },
          { id: 2, b: k.small, v: k.other },
          { _kind: "-U", id: 3, b: k.small, v: k.small },
          { _kind: "+U", id: 3, b: k.runs, v: k.dense },
        ],
        [
          { id: 1, b: k.dense, v: k.small },
          { id: 4, b: k.wider, v: k.empty },
        ],
      ];
      const expected = [
        { id: 1, b: await javaFold([k.small, k.other, k.dense]), v: await javaFold([k.wide, k.wider, k.small]) },
        { id: 2, b: await javaFold([k.empty, k.small]), v: k.other },
        { id: 3, b: await javaFold([k.dense, k.runs]), v: await javaFold([k.runs, k.dense]) },
        { id: 4, b: k.wider, v: k.empty },
      ];
      for (const dv of [false, true]) {
        const options: Record<string, string> = {
          bucket: "1",
          "merge-engine": "aggregation",
          "fields.b.aggregate-function": "rbm64",
          "fields.b.ignore-retract": "true",
          "fields.v.aggregate-function": "rbm64",
          "fields.v.ignore-retract": "true",
          ...(dv ? { "deletion-vectors.enabled": "true" } : {}),
        };
        expect(await aggregateBothWays(tempDir, fields, options, commits, dv ? 2 : 1), `deletion vectors ${dv}`).toEqual(expected);
      }
    },
    SLOW,
  );
});
