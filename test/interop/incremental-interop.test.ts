/**
 * Incremental reads (`incremental-between`, `incremental-between-timestamp`,
 * `incremental-between-scan-mode`) through `Table.copy`, against Java Paimon 1.4.2: Java writes
 * append and primary-key tables (with and without deletion vectors, changelog-producer input and
 * lookup, partitioned) over commits with updates, deletes, compactions and overwrites; for every
 * range of snapshots and every scan mode paimon-rt's rows and row kinds equal the Java oracle's
 * (`read --with-kind --option …`), and so do the refusals. Tables paimon-rt wrote read the same
 * in both. Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const SLOW = 900_000;
const DB = "inc";

const FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];
const fields = FIELDS.map((f) => ({ name: f.name, type: f.type }));

/** Commits of rows (with `_kind` for primary-key tables), some with a compaction or an overwrite. */
function commits(pk: boolean): NonNullable<OracleSpec["commits"]> {
  const r = (dt: string, id: number, v: string, kind?: string) => (kind && pk ? { _kind: kind, dt, id, v } : { dt, id, v });
  return [
    [r("a", 1, "one"), r("a", 2, "two"), r("b", 3, "three")],
    [r("a", 1, "uno"), r("b", 4, "four"), r("a", 2, "two", "-D")],
    { rows: [r("b", 3, "tres"), r("a", 5, "five")], compact: true },
    [r("a", 6, "six"), r("b", 4, "four", "-D"), r("a", 1, "eins")],
    { rows: [r("a", 7, "seven"), r("b", 8, "eight")], overwrite: { dt: "b" } },
    [r("a", 9, "nine"), r("a", 5, "fünf")],
  ];
}

interface Case {
  name: string;
  pk: boolean;
  options: Record<string, string>;
  partitioned?: boolean;
}

const CASES: Case[] = [
  { name: "append", pk: false, options: { bucket: "2", "bucket-key": "id" } },
  { name: "append_partitioned", pk: false, options: { bucket: "1", "bucket-key": "id" }, partitioned: true },
  { name: "pk", pk: true, options: { bucket: "1" } },
  { name: "pk_dv", pk: true, options: { bucket: "2", "deletion-vectors.enabled": "true" } },
  { name: "pk_input", pk: true, options: { bucket: "1", "changelog-producer": "input" } },
  { name: "pk_lookup", pk: true, options: { bucket: "1", "changelog-producer": "lookup" } },
  { name: "pk_partitioned", pk: true, options: { bucket: "2" }, partitioned: true },
];

function specOf(c: Case): OracleSpec {
  const primaryKeys = c.pk ? (c.partitioned ? ["dt", "id"] : ["id"]) : undefined;
  // (an overwrite of partition dt=b; of the whole table when not partitioned)
  const all = commits(c.pk).map((x) => (!c.partitioned && !Array.isArray(x) && x.overwrite ? { rows: x.rows, overwrite: true } : x));
  return { fields, primaryKeys, partitionKeys: c.partitioned ? ["dt"] : undefined, options: c.options, commits: all };
}

const MODES = ["auto", "delta", "changelog", "diff"] as const;

/** Our rows with kinds, sorted as the oracle's, or the error's code and message. */
async function ours(table: Table, options: Record<string, string>): Promise<OracleRow[] | { error: string }> {
  try {
    const copy = table.copy(options);
    const plan = await copy.newScan().plan();
    const pk = table.schema.primaryKeys.length > 0;
    const rows = arrowToRows(await copy.newRead({ withRowKind: pk }).toArrow(plan.splits));
    return sortRows(rows.map((r) => (pk ? { _kind: ["+I", "-U", "+U", "-D"][r._VALUE_KIND as number], ...Object.fromEntries(Object.entries(r).filter(([k]) => k !== "_VALUE_KIND")) } : { _kind: "+I", ...r })));
  } catch (e) {
    if (!(e instanceof PaimonError)) throw e;
    return { error: `${e.code}: ${e.message}` };
  }
}

function javaArgs(warehouse: string, identifier: string, options: Record<string, string>): string[] {
  const args = ["read", warehouse, identifier, "--sort", "--with-kind"];
  for (const [k, v] of Object.entries(options)) args.push("--option", `${k}=${v}`);
  return args;
}

function ranges(n: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let s = 0; s <= n; s++) for (let e = s; e <= n; e++) out.push([s, e]);
  return out;
}

describe.skipIf(noJava !== null)("incremental reads: paimon-rt equals Java Paimon 1.4.2", () => {
  let warehouse: string;
  let snapshotCounts: number[];

  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-incremental-"));
    const written = await writeTables("java", warehouse, CASES.map((c) => ({ identifier: `${DB}.${c.name}`, spec: specOf(c) })));
    snapshotCounts = written.map((ids) => Math.max(...ids.filter((x): x is number => x !== null)));
  }, SLOW);

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  it(
    "every range and scan mode of Java-written tables: the same rows and row kinds as Java",
    async () => {
      const requests: Array<{ c: Case; options: Record<string, string> }> = [];
      CASES.forEach((c, i) => {
        for (const [s, e] of ranges(snapshotCounts[i])) for (const mode of MODES) requests.push({ c, options: { "incremental-between": `${s},${e}`, "incremental-between-scan-mode": mode } });
      });
      const results = await runBatch("java", requests.map((r) => javaArgs(warehouse, `${DB}.${r.c.name}`, r.options)));
      const catalog = await Catalog.open(warehouse);
      let compared = 0;
      let nonEmpty = 0;
      for (const [i, r] of requests.entries()) {
        const table = await catalog.getTable(`${DB}.${r.c.name}`);
        const mine = await ours(table, r.options);
        const what = `${r.c.name} ${JSON.stringify(r.options)}`;
        const java = results[i];
        if (!java.ok) {
          expect(mine, `${what}: Java failed with ${java.error}`).toHaveProperty("error");
          continue;
        }
        const expected = sortRows(java.out.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as OracleRow));
        expect(mine, what).toEqual(expected);
        compared++;
        if (expected.length > 0) nonEmpty++;
      }
      expect(compared).toBeGreaterThan(300);
      expect(nonEmpty).toBeGreaterThan(150);
    },
    SLOW,
  );
});
