/**
 * Interop of merge-engine=partial-update with sequence groups (aggregators inside them, several
 * sequence fields of BIGINT / INT / STRING) and with partial-update.remove-record-on-delete, with
 * the Java oracle (Paimon 1.4.2): both write the same commits (+I/-U/+U/-D rows, full
 * compactions); each reads the other's table; each then continues the other's table (more commits
 * and a full compaction) and both read the result. Rows are compared exactly.
 * Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "../interop/convert.js";
import { rtCommitRows } from "../interop/rt-commit.js";
import { javaOracleUnavailable, type OracleRow, readTables, sortRows, writeTables } from "../interop/oracle/harness.js";
import { rng } from "./helpers.js";

const noJava = javaOracleUnavailable();
const SLOW = 300_000;
const DB = "pu";

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "s1", type: "BIGINT" },
  { name: "a", type: "STRING" },
  { name: "b", type: "INT" },
  { name: "s2", type: "INT" },
  { name: "s3", type: "STRING" },
  { name: "c", type: "DOUBLE" },
  { name: "e", type: "STRING" },
  { name: "d", type: "STRING" },
];
const GROUPS = {
  bucket: "2",
  "merge-engine": "partial-update",
  "num-sorted-run.compaction-trigger": "50",
  "fields.s1.sequence-group": "a,b",
  "fields.s2,s3.sequence-group": "c,e",
  "fields.b.aggregate-function": "sum",
  "fields.e.aggregate-function": "last_non_null_value",
  "partial-update.remove-record-on-sequence-group": "s2,s3",
};
const REMOVE = { bucket: "2", "merge-engine": "partial-update", "num-sorted-run.compaction-trigger": "50", "partial-update.remove-record-on-delete": "true" };

type Row = OracleRow & { _kind: string };
interface Commit {
  rows: Row[];
  compact: boolean;
}

function commitsOf(seed: number, count: number, n: number, kinds: string[]): Commit[] {
  const rand = rng(seed);
  const maybe = <T>(v: T) => (rand() < 0.3 ? null : v);
  return Array.from({ length: count }, (_, ci) => ({
    compact: ci % 3 === 2 && ci !== count - 1, // the last commits stay level-0 runs a read must merge
    rows: Array.from({ length: n }, (_, i) => ({
      _kind: kinds[Math.floor(rand() * kinds.length)],
      id: Math.floor(rand() * 12),
      s1: maybe(String(Math.floor(rand() * 4))),
      a: maybe(`a${ci}-${i}`),
      b: maybe(Math.floor(rand() * 5) - 2),
      s2: maybe(Math.floor(rand() * 3)),
      s3: maybe(["", "x", "é", "y"][Math.floor(rand() * 4)]),
      c: maybe(Math.floor(rand() * 100) / 4),
      e: maybe(`e${ci}-${i}`),
      d: maybe(`d${ci}-${i}`),
    })),
  }));
}

const norm = (rows: OracleRow[], fields = FIELDS) => sortRows(rows.map((r) => Object.fromEntries(fields.map((f) => [f.name, r[f.name] ?? null]))));

async function rtCommits(table: Table, fields: FieldLike[], commits: Commit[], first: number): Promise<void> {
  for (const [i, c] of commits.entries()) await rtCommitRows(table, fields, c.rows, { compact: c.compact, identifier: first + i });
}

async function rtRead(location: string, fields = FIELDS): Promise<OracleRow[]> {
  const { Table } = await import("../../src/table/table.js");
  const table = await Table.open(location);
  return norm(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)), fields);
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-pu-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

/**
 * Both write `commits` to their own table; each reads the other's; then each continues the
 * other's table with `more` (the last a full compaction) and all reads agree.
 */
async function bothWays(dir: string, fields: FieldLike[], options: Record<string, string>, commits: Commit[], more: Commit[]): Promise<void> {
  const wh = path.join(root, dir);
  const catalog = await Catalog.open(wh);
  await catalog.createDatabase(DB);
  const rt = await catalog.createTable(`${DB}.rt`, { fields, primaryKeys: ["id"], options });
  await rtCommits(rt, fields, commits, 1);
  await writeTables("java", wh, [{ identifier: `${DB}.java`, spec: { fields: fields.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: ["id"], options, commits } }]);
  const [javaOfRt, javaOfJava] = await readTables("java", [
    { warehouse: wh, identifier: `${DB}.rt`, sort: true },
    { warehouse: wh, identifier: `${DB}.java`, sort: true },
  ]);
  if (javaOfRt instanceof Error) throw javaOfRt;
  if (javaOfJava instanceof Error) throw javaOfJava;
  const expected = norm(javaOfJava, fields);
  expect(expected.length).toBeGreaterThan(3);
  expect(await rtRead(path.join(wh, `${DB}.db`, "java"), fields), "paimon-rt reads Java's table").toEqual(expected);
  expect(norm(javaOfRt, fields), "Java reads paimon-rt's table").toEqual(expected);
  expect(await rtRead(rt.location, fields), "paimon-rt reads its own").toEqual(expected);

  // each continues the other's table: more commits, the last one a full compaction
  const tail = more.map((c, i) => ({ ...c, compact: i === more.length - 1 }));
  await rtCommits(await catalog.getTable(`${DB}.java`), fields, tail, 100);
  await writeTables("java", wh, [{ identifier: `${DB}.rt`, spec: { commits: tail } as never }]);
  const [javaOfJava2, javaOfRt2] = await readTables("java", [
    { warehouse: wh, identifier: `${DB}.java`, sort: true },
    { warehouse: wh, identifier: `${DB}.rt`, sort: true },
  ]);
  if (javaOfRt2 instanceof Error) throw javaOfRt2;
  if (javaOfJava2 instanceof Error) throw javaOfJava2;
  const after = norm(javaOfRt2, fields);
  expect(after).not.toEqual(expected);
  expect(norm(javaOfJava2, fields), "Java reads its table compacted by paimon-rt").toEqual(after);
  expect(await rtRead(path.join(wh, `${DB}.db`, "java"), fields), "paimon-rt reads its compaction of Java's table").toEqual(after);
  expect(await rtRead(rt.location, fields), "paimon-rt reads its table compacted by Java").toEqual(after);
}

/** Sequence fields TIMESTAMP(3) and DECIMAL; listagg / max / first_value (ignoring retractions), product and last_value in groups. */
const AGG_FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "la", type: "STRING" },
  { name: "mx", type: "INT" },
  { name: "fv", type: "INT" },
  { name: "ts", type: "TIMESTAMP(3)" },
  { name: "p", type: "BIGINT" },
  { name: "dec", type: "DECIMAL(10, 2)" },
  { name: "lv", type: "STRING" },
  { name: "d", type: "STRING" },
];
const AGG_OPTIONS = {
  bucket: "2",
  "merge-engine": "partial-update",
  "num-sorted-run.compaction-trigger": "50",
  "fields.ts.sequence-group": "la,mx,fv",
  "fields.dec.sequence-group": "p,lv",
  "fields.la.aggregate-function": "listagg",
  "fields.la.ignore-retract": "true",
  "fields.mx.aggregate-function": "max",
  "fields.mx.ignore-retract": "true",
  "fields.fv.aggregate-function": "first_value",
  "fields.fv.ignore-retract": "true",
  "fields.p.aggregate-function": "product",
  "fields.lv.aggregate-function": "last_value",
};

function aggCommitsOf(seed: number, count: number, n: number): Commit[] {
  const rand = rng(seed);
  const maybe = <T>(v: T) => (rand() < 0.3 ? null : v);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  return Array.from({ length: count }, (_, ci) => ({
    compact: ci % 3 === 2 && ci !== count - 1,
    rows: Array.from({ length: n }, (_, i) => ({
      _kind: pick(["+I", "+I", "+I", "-U", "+U", "-D"]),
      id: Math.floor(rand() * 12),
      la: maybe(pick(["", "x", `l${ci}-${i}`])),
      mx: maybe(Math.floor(rand() * 9) - 4),
      fv: maybe(Math.floor(rand() * 9)),
      ts: maybe(pick(["-1000000", "0", "1000000", "1700000000123000000"])),
      p: maybe(pick(["1", "2", "3", "-1"])),
      dec: maybe(pick(["-1.50", "0.00", "0.01", "2.25"])),
      lv: maybe(`v${ci}-${i}`),
      d: maybe(`d${ci}-${i}`),
    })),
  }));
}

describe.skipIf(noJava !== null)("partial-update interop with Java 1.4.2", () => {
  for (const [name, options, kinds] of [
    ["sequence groups (sum, last_non_null_value, two sequence fields, remove-record-on-sequence-group)", GROUPS, ["+I", "+I", "+I", "-U", "+U", "-D"]],
    ["remove-record-on-delete", REMOVE, ["+I", "+I", "-U", "+U", "-D"]],
  ] as const) {
    it(
      `${name}: each reads and compacts the other's table`,
      async () => {
        const seed = name.length;
        await bothWays(name.split(" ")[0], FIELDS, options, commitsOf(seed, 6, 40, [...kinds]), commitsOf(seed + 100, 3, 30, [...kinds]));
      },
      SLOW,
    );
  }

  it(
    "aggregators in groups (listagg, max, first_value, product, last_value) under TIMESTAMP and DECIMAL sequence fields: each reads and compacts the other's table",
    async () => {
      await bothWays("aggregators", AGG_FIELDS, AGG_OPTIONS, aggCommitsOf(5, 6, 40), aggCommitsOf(6, 3, 30));
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("partial-update with deletion vectors (Java writes, paimon-rt reads)", () => {
  it(
    "reads Java's deletion-vector partial-update table with sequence groups exactly as Java does",
    async () => {
      const wh = path.join(root, "dv");
      const options = { ...GROUPS, "deletion-vectors.enabled": "true" };
      await writeTables("java", wh, [{ identifier: `${DB}.dv`, spec: { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: ["id"], options, commits: commitsOf(7, 5, 40, ["+I", "+I", "+I", "-U", "+U", "-D"]) } }]);
      const [java] = await readTables("java", [{ warehouse: wh, identifier: `${DB}.dv`, sort: true }]);
      if (java instanceof Error) throw java;
      expect(java.length).toBeGreaterThan(3);
      expect(await rtRead(path.join(wh, `${DB}.db`, "dv"))).toEqual(norm(java));
    },
    SLOW,
  );
});

/** Aggregation over the same columns: sums (BIGINT, INT, DOUBLE), max ignoring retractions, last_non_null_value (default), last_value. */
const DV_AGG = {
  bucket: "2",
  "merge-engine": "aggregation",
  "deletion-vectors.enabled": "true",
  "fields.s1.aggregate-function": "sum",
  "fields.b.aggregate-function": "sum",
  "fields.c.aggregate-function": "sum",
  "fields.s2.aggregate-function": "max",
  "fields.s2.ignore-retract": "true",
  "fields.s3.aggregate-function": "max",
  "fields.s3.ignore-retract": "true",
  "fields.d.aggregate-function": "last_value",
};

// Java's lookup compaction (LookupChangelogMergeFunctionWrapper with deletion vectors): every
// commit compacts level 0, merging each key's level-0 records with its live row of the higher
// levels (then marked deleted), the merge function applied even to a key's single record.
describe.skipIf(noJava !== null)("deletion vectors with partial-update and aggregation: both write and compact each other's tables", () => {
  for (const [name, options, kinds] of [
    ["dv-groups: partial-update with sequence groups (sum, last_non_null_value, remove-record-on-sequence-group)", { ...GROUPS, "deletion-vectors.enabled": "true" }, ["+I", "+I", "+I", "-U", "+U", "-D"]],
    ["dv-remove: partial-update with remove-record-on-delete", { ...REMOVE, "deletion-vectors.enabled": "true" }, ["+I", "+I", "-U", "+U", "-D"]],
    ["dv-agg: aggregation (sum, max ignoring retractions, last_non_null_value, last_value) with -U/-D retractions", DV_AGG, ["+I", "+I", "+I", "-U", "+U", "-D"]],
    ["dv-levels: the aggregation table with universal compaction through 4 levels (lookups reach past the output level)", { ...DV_AGG, "num-sorted-run.compaction-trigger": "2", "num-levels": "4" }, ["+I", "+I", "+I", "-U", "+U", "-D"]],
  ] as const) {
    it(
      name,
      async () => {
        const seed = name.length;
        await bothWays(name.split(":")[0], FIELDS, options, commitsOf(seed, 6, 40, [...kinds]), commitsOf(seed + 100, 3, 30, [...kinds]));
      },
      SLOW,
    );
  }
});

describe.skipIf(noJava !== null)("partial-update without delete handling: Java's -D rows", () => {
  it(
    "a key's lone -D is dropped and a -D merged with other records fails the read, in both",
    async () => {
      const wh = path.join(root, "plain");
      const fields = FIELDS.slice(0, 3);
      const options = { bucket: "1", "merge-engine": "partial-update", "num-sorted-run.compaction-trigger": "50" };
      const spec = (commits: Commit[]) => ({ fields: fields.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: ["id"], options, commits });
      await writeTables("java", wh, [
        { identifier: `${DB}.lone`, spec: spec([{ rows: [{ _kind: "+I", id: 1, s1: "1", a: "x" }], compact: false }, { rows: [{ _kind: "-D", id: 2, s1: "2", a: "y" }], compact: false }]) },
        { identifier: `${DB}.merged`, spec: spec([{ rows: [{ _kind: "+I", id: 1, s1: "1", a: "x" }], compact: false }, { rows: [{ _kind: "-D", id: 1, s1: "2", a: "y" }], compact: false }]) },
      ]);
      const [lone, merged] = await readTables("java", [
        { warehouse: wh, identifier: `${DB}.lone`, sort: true },
        { warehouse: wh, identifier: `${DB}.merged`, sort: true },
      ]);
      if (lone instanceof Error) throw lone;
      expect(norm(lone, fields)).toEqual([{ id: 1, s1: "1", a: "x" }]);
      expect(await rtRead(path.join(wh, `${DB}.db`, "lone"), fields)).toEqual([{ id: 1, s1: "1", a: "x" }]);
      expect(merged).toBeInstanceOf(Error);
      expect(String(merged)).toContain("By default, Partial update can not accept delete records");
      await expect(rtRead(path.join(wh, `${DB}.db`, "merged"), fields)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("By default, Partial update can not accept delete records") });
    },
    SLOW,
  );
});
