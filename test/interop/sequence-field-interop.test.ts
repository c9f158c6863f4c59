/**
 * sequence.field interop with Java Paimon 1.4.2: Java writes primary-key tables ordered by
 * sequence fields (BIGINT and STRING, nulls included; ascending and descending) with
 * out-of-order updates and deletes over several commits, with and without compaction and
 * deletion vectors; paimon-rt reads exactly Java's rows. paimon-rt writes the same commits and
 * Java reads exactly paimon-rt's rows. Then each side compacts the other's table and writes one
 * more out-of-order commit into it (older sequence values than the compacted rows, so a
 * deletion-vector lookup must keep the compacted row), and both read the same rows.
 * partial-update and aggregation tables (order-dependent folds) are compared reader against
 * reader on the same files. Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { type KindRow, rtCommitRows } from "./rt-commit.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, runBatch, sortRows, writeTables } from "./oracle/harness.js";
import { rng } from "../pk/helpers.js";

const noJava = javaOracleUnavailable();
const SLOW = 600_000;
const DB = "seq";

const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "ts", type: "BIGINT" },
  { name: "s", type: "STRING" },
  { name: "n", type: "BIGINT" },
];

interface Case {
  name: string;
  options: Record<string, string>;
  /** Compare against the model (deduplicate); fold engines are compared reader against reader. */
  model: boolean;
  kinds: string[];
  /** Commits (0-based) written with a full compaction. */
  compactAt: number[];
}

const SMALL = { bucket: "2", "num-sorted-run.compaction-trigger": "3", "target-file-size": "4 kb" };
const RETRACTING = ["+I", "+I", "+U", "-D", "-U"];
const CASES: Case[] = [
  { name: "asc_mor", options: { "sequence.field": "ts", ...SMALL }, model: true, kinds: RETRACTING, compactAt: [] },
  { name: "asc_mor_compacted", options: { "sequence.field": "ts", ...SMALL }, model: true, kinds: RETRACTING, compactAt: [1, 3] },
  { name: "asc_dv", options: { "sequence.field": "ts", "deletion-vectors.enabled": "true", ...SMALL }, model: true, kinds: RETRACTING, compactAt: [2] },
  { name: "desc_two_fields_mor", options: { "sequence.field": "ts,s", "sequence.field.sort-order": "descending", ...SMALL }, model: true, kinds: RETRACTING, compactAt: [2] },
  { name: "desc_dv", options: { "sequence.field": "s", "sequence.field.sort-order": "descending", "deletion-vectors.enabled": "true", ...SMALL }, model: true, kinds: RETRACTING, compactAt: [] },
  { name: "partial_update", options: { "sequence.field": "ts", "merge-engine": "partial-update", ...SMALL }, model: false, kinds: ["+I"], compactAt: [2] },
  { name: "partial_update_group_desc", options: { "sequence.field": "ts", "sequence.field.sort-order": "descending", "merge-engine": "partial-update", "fields.n.sequence-group": "v", ...SMALL }, model: false, kinds: ["+I"], compactAt: [1] },
  { name: "aggregation_dv", options: { "sequence.field": "ts", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "deletion-vectors.enabled": "true", ...SMALL }, model: false, kinds: ["+I", "+I", "-U", "-D"], compactAt: [2] },
  { name: "aggregation_desc", options: { "sequence.field": "ts", "sequence.field.sort-order": "descending", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "last_value", "fields.s.aggregate-function": "first_non_null_value", "fields.s.ignore-retract": "true", ...SMALL }, model: false, kinds: ["+I", "+I", "-U", "-D"], compactAt: [1] },
];

interface Version {
  row: OracleRow;
  retract: boolean;
  order: number;
}

/** Java's order of two records of a key (nulls lowest; non-null values reversed when descending), then write order. */
function compare(a: Version, b: Version, fields: readonly string[], descending: boolean): number {
  for (const f of fields) {
    const x = a.row[f] as string | null;
    const y = b.row[f] as string | null;
    if (x === null && y === null) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    const c = f === "ts" ? Math.sign(Number(x) - Number(y)) : Buffer.compare(Buffer.from(x), Buffer.from(y));
    if (c !== 0) return descending ? -c : c;
  }
  return a.order - b.order;
}

/**
 * `commits` commits of random out-of-order records, and the deduplicate result. Java's write
 * buffer (one per commit here) reduces a key's records in ascending order whatever the sort
 * order; its winner then merges with the table in the table's order. Records that would make a
 * buffer winner lose against a key's DELETE are left out: Paimon drops the DELETE once a
 * compaction merged all of the key's rows, and whether such a record then wins depends on the
 * compactions.
 */
function generate(seed: number, c: Case, commits: number, rowsPerCommit: number): { commits: KindRow[][]; expected: OracleRow[] } {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const fields = c.options["sequence.field"].split(",");
  const descending = c.options["sequence.field.sort-order"] === "descending";
  const state = new Map<string, Version>();
  let order = 0;
  const out: KindRow[][] = [];
  for (let ci = 0; ci < commits; ci++) {
    const rows: KindRow[] = [];
    const buffer = new Map<string, Version>();
    while (rows.length < rowsPerCommit) {
      const row: OracleRow = {
        id: String(Math.floor(rand() * 40)),
        v: `c${ci}-${rows.length}`,
        ts: pick([null, "-5", "0", "1", "2", "3", "7", "100", "9223372036854775807"]),
        s: pick([null, "", "a", "ab", "b", "é", "zz"]),
        n: String(Math.floor(rand() * 1000)),
      };
      const kind = pick(c.kinds);
      const version: Version = { row, retract: kind === "-D" || kind === "-U", order };
      const buffered = buffer.get(row.id as string);
      const winner = !buffered || compare(version, buffered, fields, false) > 0 ? version : buffered;
      const current = state.get(row.id as string);
      if (c.model && current?.retract && !winner.retract && compare(winner, current, fields, descending) < 0) continue;
      order++;
      buffer.set(row.id as string, winner);
      rows.push({ _kind: kind, ...row });
    }
    for (const [id, x] of buffer) {
      const current = state.get(id);
      if (!current || compare(x, current, fields, descending) > 0) state.set(id, x);
    }
    out.push(rows);
  }
  const expected = sortRows([...state.values()].filter((x) => !x.retract).map((x) => x.row));
  return { commits: out, expected };
}

function norm(rows: OracleRow[]): OracleRow[] {
  return sortRows(rows.map((r) => Object.fromEntries(FIELDS.map((f) => [f.name, r[f.name] ?? null]))));
}

const rtCommit = (table: Table, rows: KindRow[], compact: boolean) => rtCommitRows(table, FIELDS, rows, { compact });

async function rtRead(location: string, projection?: string[]): Promise<OracleRow[]> {
  const table = await Table.open(location);
  const rows = arrowToRows(await table.newRead({ projection }).toArrow((await table.newScan().plan()).splits));
  return projection ? rows : norm(rows);
}

function javaRows(results: Array<OracleRow[] | Error>): OracleRow[][] {
  return results.map((r) => {
    if (r instanceof Error) throw r;
    return norm(r);
  });
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-seqfield-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

describe.skipIf(noJava !== null)("sequence.field interop with Java", () => {
  it(
    "Java's and paimon-rt's tables read the same in both, before and after each compacts and extends the other's",
    async () => {
      const wh = path.join(root, "wh");
      const data = CASES.map((c, i) => generate(100 + i, c, 5, 70));
      const spec = (c: Case, commits: KindRow[][]): OracleSpec => ({
        fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })),
        primaryKeys: ["id"],
        options: c.options,
        commits: commits.map((rows, i) => ({ rows, compact: c.compactAt.includes(i) })),
      });
      // 1. Java writes commits 0-3 of every case; paimon-rt writes the same
      await writeTables("java", wh, CASES.map((c, i) => ({ identifier: `${DB}.j_${c.name}`, spec: spec(c, data[i].commits.slice(0, 4)) })));
      const catalog = await Catalog.open(wh);
      for (const [i, c] of CASES.entries()) {
        const table = await catalog.createTable(`${DB}.r_${c.name}`, { fields: FIELDS, primaryKeys: ["id"], options: c.options });
        for (const [ci, rows] of data[i].commits.slice(0, 4).entries()) await rtCommit(table, rows, c.compactAt.includes(ci));
      }
      const loc = (t: string) => path.join(wh, `${DB}.db`, t);
      const readAll = async (): Promise<Array<{ javaOfJava: OracleRow[]; javaOfRt: OracleRow[]; rtOfJava: OracleRow[]; rtOfRt: OracleRow[] }>> => {
        const java = javaRows(await readTables("java", CASES.flatMap((c) => [`j_${c.name}`, `r_${c.name}`].map((t) => ({ warehouse: wh, identifier: `${DB}.${t}`, sort: true })))));
        const out = [];
        for (const [i, c] of CASES.entries()) out.push({ javaOfJava: java[2 * i], javaOfRt: java[2 * i + 1], rtOfJava: await rtRead(loc(`j_${c.name}`)), rtOfRt: await rtRead(loc(`r_${c.name}`)) });
        return out;
      };
      const check = async (stage: string, expectedOf: (i: number) => OracleRow[] | null) => {
        const reads = await readAll();
        for (const [i, c] of CASES.entries()) {
          const r = reads[i];
          const what = `${c.name} (${stage})`;
          expect(r.rtOfJava, `${what}: paimon-rt reads Java's table as Java does`).toEqual(r.javaOfJava);
          expect(r.javaOfRt, `${what}: Java reads paimon-rt's table as paimon-rt does`).toEqual(r.rtOfRt);
          const expected = expectedOf(i);
          if (expected) {
            expect(r.javaOfJava, `${what}: Java's rows are the model's`).toEqual(norm(expected));
            expect(r.rtOfRt, `${what}: paimon-rt's rows are the model's`).toEqual(norm(expected));
          }
          expect(r.rtOfJava.length, `${what}: rows`).toBeGreaterThan(10);
          // the sequence fields are read for the merge, not returned
          const projected = (await rtRead(loc(`j_${c.name}`), ["v"])).map((x) => x.v).sort();
          expect(projected, `${what}: projection without the sequence fields`).toEqual(r.javaOfJava.map((x) => x.v).sort());
        }
      };
      const modelAfter = (commits: number) => (i: number) => (CASES[i].model ? generate(100 + i, CASES[i], commits, 70).expected : null);
      await check("written", modelAfter(4));
      // 2. paimon-rt compacts Java's table and writes commit 4 into it; Java does the same to paimon-rt's
      for (const [i, c] of CASES.entries()) {
        const table = await catalog.getTable(`${DB}.j_${c.name}`);
        await rtCommit(table, [], true);
        await rtCommit(table, data[i].commits[4], false);
      }
      await writeTables("java", wh, CASES.map((c, i) => ({ identifier: `${DB}.r_${c.name}`, spec: { commits: [{ rows: [], compact: true }, data[i].commits[4]] } })));
      await check("compacted and extended by the other", modelAfter(5));
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("sequence.field refusals as Java", () => {
  it("createTable refuses the schemas Java's createTable refuses, with Java's message", async () => {
    const cases: Array<{ options: Record<string, string>; partitionKeys?: string[]; primaryKeys?: string[]; message: string }> = [
      { options: { "sequence.field": "nope" }, message: "Sequence field: 'nope' can not be found in table schema." },
      { options: { "sequence.field": "ts,ts" }, message: "Sequence field 'ts' is defined repeatedly." },
      { options: { "sequence.field": ",ts" }, message: "Sequence field: '' can not be found in table schema." },
      { options: { "sequence.field": "ts", "merge-engine": "aggregation", "fields.ts.aggregate-function": "max" }, message: "Should not define aggregation on sequence field: 'ts'." },
      { options: { "sequence.field": "ts", "merge-engine": "first-row" }, message: "Do not support use sequence field on FIRST_ROW merge engine." },
      { options: { "sequence.field": "ts" }, partitionKeys: ["s"], primaryKeys: ["id"], message: "You can not use sequence.field in cross partition update case (Primary key constraint '[id]' not include all partition fields '[s]')." },
    ];
    const wh = path.join(root, "refusals");
    const results = await runBatch(
      "java",
      await Promise.all(
        cases.map(async (c, i) => {
          const file = path.join(root, `refusal-${i}.json`);
          await fsp.writeFile(file, JSON.stringify({ fields: FIELDS.map((f) => ({ name: f.name, type: f.type })), partitionKeys: c.partitionKeys ?? [], primaryKeys: c.primaryKeys ?? ["id"], options: { bucket: "1", ...c.options }, commits: [] }));
          return ["write", wh, `${DB}.t${i}`, file];
        }),
      ),
    );
    const catalog = await Catalog.open(path.join(root, "refusals-rt"));
    await catalog.createDatabase(DB);
    for (const [i, c] of cases.entries()) {
      const java = results[i];
      expect(java.ok, `Java refuses ${JSON.stringify(c.options)}`).toBe(false);
      expect(java.ok ? "" : java.error).toContain(c.message);
      await expect(catalog.createTable(`${DB}.t${i}`, { fields: FIELDS, partitionKeys: c.partitionKeys ?? [], primaryKeys: c.primaryKeys ?? ["id"], options: { bucket: "1", ...c.options } })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: c.message });
    }
  });
});

describe.skipIf(noJava !== null)("sequence.field of a type paimon-rt cannot order", () => {
  it("Java writes a table ordered by an ARRAY field; paimon-rt's merging read and newWrite are UNSUPPORTED, a single compacted run reads", async () => {
    const wh = path.join(root, "array-seq");
    const fields = [
      { name: "id", type: "INT NOT NULL" },
      { name: "a", type: "ARRAY<INT>" },
    ];
    const spec: OracleSpec = {
      fields,
      primaryKeys: ["id"],
      options: { bucket: "1", "sequence.field": "a" },
      commits: [[{ id: 1, a: [2] }], [{ id: 1, a: [1, 5] }]],
    };
    await writeTables("java", wh, [{ identifier: `${DB}.arr`, spec }]);
    const table = await Table.open(path.join(wh, `${DB}.db`, "arr"));
    await expect((async () => table.newRead().toArrow((await table.newScan().plan()).splits))()).rejects.toMatchObject({ code: "UNSUPPORTED" });
    await expect(table.newWrite({ commitUser: "rt" })).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("sequence.field a of type ARRAY") });
    // Java compacts: one run, read without merging ([2] > [1, 5] element-wise)
    await writeTables("java", wh, [{ identifier: `${DB}.arr`, spec: { commits: [{ rows: [], compact: true }] } }]);
    const [java] = await readTables("java", [{ warehouse: wh, identifier: `${DB}.arr`, sort: true }]);
    if (java instanceof Error) throw java;
    const reopened = await Table.open(path.join(wh, `${DB}.db`, "arr"));
    expect(arrowToRows(await reopened.newRead().toArrow((await reopened.newScan().plan()).splits))).toEqual(java);
    expect(java).toEqual([{ id: 1, a: [2] }]);
  });
});
