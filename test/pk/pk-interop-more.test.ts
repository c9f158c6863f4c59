/**
 * More PK interop: key types whose order must match Java's comparator (INT, DECIMAL,
 * TIMESTAMP, DATE, STRING, BYTES; written as overlapping runs that the readers must merge),
 * pypaimon-written PK tables (upserts only) continued by paimon-rt with deletes, Java DV tables
 * with 64-bit deletion vectors, and Java first-row tables.
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
import { javaOracleUnavailable, type OracleRow, pypaimonUnavailable, readTables, sortRows, writeTables } from "../interop/oracle/harness.js";
import { rng } from "./helpers.js";

const noPython = pypaimonUnavailable();
const noJava = javaOracleUnavailable();
const SLOW = 300_000;
const DB = "pk2";


const TYPED: FieldLike[] = [
  { name: "k_int", type: "INT NOT NULL" },
  { name: "k_dec", type: "DECIMAL(12, 3) NOT NULL" },
  { name: "k_ts", type: "TIMESTAMP(6) NOT NULL" },
  { name: "k_date", type: "DATE NOT NULL" },
  { name: "k_str", type: "STRING NOT NULL" },
  { name: "k_bin", type: "BYTES NOT NULL" },
  { name: "v", type: "BIGINT" },
];
const TYPED_PK = ["k_int", "k_dec", "k_ts", "k_date", "k_str", "k_bin"];

function typedRows(seed: number, n: number): Array<OracleRow & { _kind: string }> {
  const rand = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  return Array.from({ length: n }, (_, i) => ({
    _kind: rand() < 0.15 ? "-D" : "+I",
    k_int: pick([-2147483648, -1, 0, 1, 2147483647]),
    k_dec: pick(["-999999999.999", "-0.001", "0.000", "0.001", "123.450"]),
    k_ts: pick(["-1000", "0", "1000", "1700000000123456000", "-62135596800000000000"]),
    k_date: pick(["1969-12-31", "1970-01-01", "2024-02-29"]),
    k_str: pick(["", "a", "ab", "é", "\u{1F600}", "Z"]),
    k_bin: pick(["", "AA==", "/w==", "gA==", "AAE="]),
    v: String(seed * 100000 + i),
  }));
}

function model(commits: Array<Array<OracleRow & { _kind: string }>>, pk: string[], fields: FieldLike[], firstRow = false): OracleRow[] {
  const m = new Map<string, OracleRow>();
  for (const c of commits) {
    for (const { _kind, ...r } of c) {
      const k = pk.map((f) => JSON.stringify(r[f])).join("|");
      if (_kind === "-D" || _kind === "-U") m.delete(k);
      else if (!firstRow || !m.has(k)) m.set(k, r);
    }
  }
  return norm([...m.values()], fields);
}

function norm(rows: OracleRow[], fields: FieldLike[]): OracleRow[] {
  return sortRows(rows.map((r) => Object.fromEntries(fields.map((f) => [f.name, r[f.name] ?? null]))));
}

const rtCommit = (table: Table, fields: FieldLike[], rows: Array<OracleRow & { _kind: string }>, ident: number, compact?: boolean) => rtCommitRows(table, fields, rows, { compact, identifier: ident });

async function rtRead(location: string, fields: FieldLike[]): Promise<OracleRow[]> {
  const { Table } = await import("../../src/table/table.js");
  const table = await Table.open(location);
  return norm(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)), fields);
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-pk-interop2-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

describe.skipIf(noJava !== null)("PK interop: key types", () => {
  it(
    "Java merges paimon-rt's overlapping runs of typed keys, and paimon-rt merges Java's",
    async () => {
      const commits = [typedRows(1, 120), typedRows(2, 120), typedRows(3, 120), typedRows(4, 120)];
      const expected = model(commits, TYPED_PK, TYPED);
      // paimon-rt writes 4 overlapping level-0 runs (no compaction)
      const wh = path.join(root, "typed");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      const table = await catalog.createTable(`${DB}.rt`, { fields: TYPED, primaryKeys: TYPED_PK, options: { bucket: 2, "num-sorted-run.compaction-trigger": 50 } });
      for (const [i, c] of commits.entries()) await rtCommit(table, TYPED, c, i + 1);
      expect(await rtRead(table.location, TYPED)).toEqual(expected);
      // Java writes the same commits
      await writeTables("java", wh, [
        {
          identifier: `${DB}.java`,
          spec: { fields: TYPED.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: TYPED_PK, options: { bucket: "2", "num-sorted-run.compaction-trigger": "50" }, commits },
        },
      ]);
      const [javaOfRt, javaOfJava] = await readTables("java", [
        { warehouse: wh, identifier: `${DB}.rt`, sort: true },
        { warehouse: wh, identifier: `${DB}.java`, sort: true },
      ]);
      if (javaOfRt instanceof Error) throw javaOfRt;
      if (javaOfJava instanceof Error) throw javaOfJava;
      expect(norm(javaOfRt, TYPED), "Java reads paimon-rt").toEqual(expected);
      expect(norm(javaOfJava, TYPED), "Java reads Java").toEqual(expected);
      expect(await rtRead(path.join(wh, `${DB}.db`, "java"), TYPED), "paimon-rt reads Java").toEqual(expected);
      // both buckets received the same rows whichever wrote them
      const bucketsOf = async (t: Table) => {
        const out = new Map<string, number>();
        for (const s of (await t.newScan().plan()).splits) for (const r of arrowToRows(await t.newRead().toArrow([s]))) out.set(JSON.stringify(TYPED_PK.map((k) => r[k])), s.bucket);
        return out;
      };
      expect(await bucketsOf(await catalog.getTable(`${DB}.java`))).toEqual(await bucketsOf(table));
    },
    SLOW,
  );
});

const SIMPLE: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];

function simpleCommits(seed: number, commits: number, n: number, kinds: string[] = ["+I"]): Array<Array<OracleRow & { _kind: string }>> {
  const rand = rng(seed);
  return Array.from({ length: commits }, (_, c) =>
    Array.from({ length: n }, (_, i) => ({ _kind: kinds[Math.floor(rand() * kinds.length)], dt: rand() < 0.5 ? "x" : "y", id: String(Math.floor(rand() * 50)), v: `c${c}-${i}` })),
  );
}

describe.skipIf(noPython !== null)("PK interop: pypaimon writes, paimon-rt continues", () => {
  it(
    "reads pypaimon's PK table, adds deletes and compaction; pypaimon and Java read the result",
    async () => {
      const wh = path.join(root, "py");
      const first = simpleCommits(7, 3, 60);
      await writeTables("pypaimon", wh, [
        {
          identifier: `${DB}.py`,
          spec: { fields: SIMPLE.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options: { bucket: "2" }, commits: first.map((c) => c.map(({ _kind, ...r }) => r)) },
        },
      ]);
      const location = path.join(wh, `${DB}.db`, "py");
      expect(await rtRead(location, SIMPLE)).toEqual(model(first, ["dt", "id"], SIMPLE));
      const table = await (await Catalog.open(wh)).getTable(`${DB}.py`);
      const more = simpleCommits(8, 3, 40, ["+I", "+U", "-D", "-U"]);
      await rtCommit(table, SIMPLE, more[0], 1);
      await rtCommit(table, SIMPLE, more[1], 2, true);
      await rtCommit(table, SIMPLE, more[2], 3);
      const expected = model([...first, ...more], ["dt", "id"], SIMPLE);
      expect(await rtRead(location, SIMPLE)).toEqual(expected);
      const [py] = await readTables("pypaimon", [{ warehouse: wh, identifier: `${DB}.py`, sort: true }]);
      if (py instanceof Error) throw py;
      expect(norm(py, SIMPLE), "pypaimon").toEqual(expected);
      if (noJava === null) {
        const [java] = await readTables("java", [{ warehouse: wh, identifier: `${DB}.py`, sort: true }]);
        if (java instanceof Error) throw java;
        expect(norm(java, SIMPLE), "java").toEqual(expected);
      }
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("PK interop: paimon-rt writes 64-bit deletion vectors", () => {
  it(
    "Java reads paimon-rt's DV table with deletion-vectors.bitmap64=true",
    async () => {
      const wh = path.join(root, "rt-dv64");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      const table = await catalog.createTable(`${DB}.dv64`, { fields: SIMPLE, partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options: { bucket: 2, "deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true", "num-sorted-run.compaction-trigger": 10 } });
      const commits = simpleCommits(31, 5, 60, ["+I", "+I", "-D", "+U"]);
      for (const [i, c] of commits.entries()) await rtCommit(table, SIMPLE, c, i + 1);
      const index = await table.manifestStore.indexEntries((await table.latestSnapshot())!);
      const dvFile = index.find((e) => (e.indexFile.dvRanges?.length ?? 0) > 0)!;
      const bytes = await table.fileIO.readFile(table.paths.index(dvFile.indexFile.fileName));
      const r0 = dvFile.indexFile.dvRanges![0];
      expect(new DataView(bytes.buffer, bytes.byteOffset + r0.offset + 4, 4).getUint32(0, true)).toBe(1681511377); // 64-bit magic (LE)
      const expected = model(commits, ["dt", "id"], SIMPLE);
      expect(await rtRead(table.location, SIMPLE)).toEqual(expected);
      const [java] = await readTables("java", [{ warehouse: wh, identifier: `${DB}.dv64`, sort: true }]);
      if (java instanceof Error) throw java;
      expect(norm(java, SIMPLE)).toEqual(expected);
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("PK interop: paimon-rt writes first-row tables", () => {
  it(
    "Java (and pypaimon) read paimon-rt's merge-engine=first-row table",
    async () => {
      const wh = path.join(root, "rt-first-row");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      const table = await catalog.createTable(`${DB}.fr`, { fields: SIMPLE, partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options: { bucket: 2, "merge-engine": "first-row" } });
      const commits = simpleCommits(41, 6, 60);
      for (const [i, c] of commits.entries()) await rtCommit(table, SIMPLE, c, i + 1, i === 3);
      const files = (await table.manifestStore.liveEntries((await table.latestSnapshot())!)).map((e) => e.file);
      expect(files.every((f) => f.level > 0)).toBe(true);
      const expected = model(commits, ["dt", "id"], SIMPLE, true);
      expect(await rtRead(table.location, SIMPLE)).toEqual(expected);
      for (const oracle of ["java", "pypaimon"] as const) {
        if ((oracle === "java" ? noJava : noPython) !== null) continue;
        const [rows] = await readTables(oracle, [{ warehouse: wh, identifier: `${DB}.fr`, sort: true }]);
        if (rows instanceof Error) throw rows;
        expect(norm(rows, SIMPLE), oracle).toEqual(expected);
      }
    },
    SLOW,
  );
});

const PU: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "INT" },
];

function puCommits(seed: number, commits: number, n: number): Array<Array<OracleRow & { _kind: string }>> {
  const rand = rng(seed);
  return Array.from({ length: commits }, (_, c) =>
    Array.from({ length: n }, (_, i) => ({
      _kind: "+I",
      dt: rand() < 0.5 ? "x" : "y",
      id: String(Math.floor(rand() * 40)),
      v: rand() < 0.5 ? null : `c${c}-${i}`,
      n: rand() < 0.5 ? null : Math.floor(rand() * 1000),
    })),
  );
}

function puModel(commits: Array<Array<OracleRow & { _kind: string }>>): OracleRow[] {
  const m = new Map<string, OracleRow>();
  for (const c of commits) {
    for (const { _kind, ...r } of c) {
      const k = `${r.dt}|${r.id}`;
      const old = m.get(k);
      m.set(k, old ? { ...r, v: r.v ?? old.v, n: r.n ?? old.n } : r);
    }
  }
  return norm([...m.values()], PU);
}

describe.skipIf(noJava !== null)("PK interop: partial-update", () => {
  it(
    "Java reads paimon-rt's partial-update table and paimon-rt reads Java's",
    async () => {
      const wh = path.join(root, "partial-update");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      const options = { bucket: "2", "merge-engine": "partial-update", "num-sorted-run.compaction-trigger": "4" };
      const table = await catalog.createTable(`${DB}.rt`, { fields: PU, partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options });
      const commits = puCommits(51, 7, 50);
      for (const [i, c] of commits.entries()) await rtCommit(table, PU, c, i + 1, i === 2);
      const expected = puModel(commits);
      expect(await rtRead(table.location, PU)).toEqual(expected);
      await writeTables("java", wh, [
        { identifier: `${DB}.java`, spec: { fields: PU.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options, commits: commits.map((c, i) => ({ rows: c, compact: i === 2 })) } },
      ]);
      const [javaOfRt, javaOfJava] = await readTables("java", [
        { warehouse: wh, identifier: `${DB}.rt`, sort: true },
        { warehouse: wh, identifier: `${DB}.java`, sort: true },
      ]);
      if (javaOfRt instanceof Error) throw javaOfRt;
      if (javaOfJava instanceof Error) throw javaOfJava;
      expect(norm(javaOfRt, PU), "Java reads paimon-rt").toEqual(expected);
      expect(norm(javaOfJava, PU), "Java reads Java").toEqual(expected);
      expect(await rtRead(path.join(wh, `${DB}.db`, "java"), PU), "paimon-rt reads Java").toEqual(expected);
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("PK interop: Java DV (64-bit) and first-row tables", () => {
  it(
    "reads Java tables with 64-bit deletion vectors and with merge-engine=first-row",
    async () => {
      const wh = path.join(root, "java-more");
      const dvCommits = simpleCommits(21, 5, 50, ["+I", "+I", "-D", "+U"]);
      const frCommits = simpleCommits(22, 5, 50);
      await writeTables("java", wh, [
        {
          identifier: `${DB}.dv64`,
          spec: { fields: SIMPLE.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options: { bucket: "2", "deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true" }, commits: dvCommits },
        },
        {
          identifier: `${DB}.first_row`,
          spec: { fields: SIMPLE.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: ["dt", "id"], options: { bucket: "2", "merge-engine": "first-row" }, commits: frCommits.map((c) => ({ rows: c, compact: false })) },
        },
      ]);
      const catalog = await Catalog.open(wh);
      const dv = await catalog.getTable(`${DB}.dv64`);
      const index = await dv.manifestStore.indexEntries((await dv.latestSnapshot())!);
      expect(index.some((e) => (e.indexFile.dvRanges?.length ?? 0) > 0)).toBe(true);
      const [javaDv, javaFr] = await readTables("java", [
        { warehouse: wh, identifier: `${DB}.dv64`, sort: true },
        { warehouse: wh, identifier: `${DB}.first_row`, sort: true },
      ]);
      if (javaDv instanceof Error) throw javaDv;
      if (javaFr instanceof Error) throw javaFr;
      const expectedDv = model(dvCommits, ["dt", "id"], SIMPLE);
      expect(norm(javaDv, SIMPLE)).toEqual(expectedDv);
      expect(await rtRead(dv.location, SIMPLE)).toEqual(expectedDv);
      const expectedFr = model(frCommits, ["dt", "id"], SIMPLE, true);
      expect(norm(javaFr, SIMPLE)).toEqual(expectedFr);
      expect(await rtRead(path.join(wh, `${DB}.db`, "first_row"), SIMPLE)).toEqual(expectedFr);
    },
    SLOW,
  );
});
