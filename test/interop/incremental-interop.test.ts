/**
 * Incremental reads (`incremental-between`, `incremental-between-timestamp`,
 * `incremental-between-scan-mode`) through `Table.copy`, against Java Paimon 1.4.2: Java writes
 * append and primary-key tables (with and without deletion vectors, changelog-producer input and
 * lookup, partitioned) over commits with updates, deletes, compactions and overwrites; for every
 * range of snapshots and every scan mode paimon-rt's rows and row kinds equal the Java oracle's
 * (`read --with-kind --option …`), and so do the refusals. Tables paimon-rt wrote read the same
 * in both. Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { Table } from "../../src/table/table.js";
import { arrowToRows, rowsToBatch } from "./convert.js";
import { CASES, FIELDS, specOf, javaWrittenTables } from "./incremental-tables.js";
import { rtCommitRows } from "./rt-commit.js";
import { javaOracleUnavailable, type OracleRow, runBatch, sortRows } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const SLOW = 900_000;
const DB = "inc";


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

/** Compares our reads of `requests` with Java's (a Java failure must be our failure); returns how many compared equal and how many were non-empty. */
async function compareAll(warehouse: string, requests: Array<{ table: string; options: Record<string, string> }>): Promise<{ compared: number; nonEmpty: number; failed: number; failures: Array<Record<string, string>> }> {
  const results = await runBatch("java", requests.map((r) => javaArgs(warehouse, `${DB}.${r.table}`, r.options)));
  const catalog = await Catalog.open(warehouse);
  let compared = 0;
  let nonEmpty = 0;
  let failed = 0;
  const failures: Array<Record<string, string>> = [];
  for (const [i, r] of requests.entries()) {
    const mine = await ours(await catalog.getTable(`${DB}.${r.table}`), r.options);
    const what = `${r.table} ${JSON.stringify(r.options)}`;
    const java = results[i];
    if (!java.ok) {
      expect(mine, `${what}: Java failed with ${java.error}`).toHaveProperty("error");
      failed++;
      failures.push(r.options);
      continue;
    }
    const expected = sortRows(java.out.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as OracleRow));
    expect(mine, what).toEqual(expected);
    compared++;
    if (expected.length > 0) nonEmpty++;
  }
  return { compared, nonEmpty, failed, failures };
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

  javaWrittenTables(DB, CASES, "paimon-rt-incremental-", (w, c) => {
    warehouse = w;
    snapshotCounts = c;
  });

  it(
    "every range and scan mode of Java-written tables: the same rows and row kinds as Java",
    async () => {
      const requests: Array<{ table: string; options: Record<string, string> }> = [];
      CASES.forEach((c, i) => {
        for (const [s, e] of ranges(snapshotCounts[i])) for (const mode of MODES) requests.push({ table: c.name, options: { "incremental-between": `${s},${e}`, "incremental-between-scan-mode": mode } });
      });
      const { compared, nonEmpty, failures } = await compareAll(warehouse, requests);
      // the only refusals: diff from snapshot 0, which does not exist (delta ranges may start before the earliest)
      const diffFromZero = (o: Record<string, string>) => o["incremental-between-scan-mode"] === "diff" && o["incremental-between"].startsWith("0,") && o["incremental-between"] !== "0,0";
      expect(failures.filter((o) => !diffFromZero(o))).toEqual([]);
      expect(failures.length).toBe(requests.filter((r) => diffFromZero(r.options)).length);
      expect(compared).toBe(requests.length - failures.length);
      expect(nonEmpty).toBeGreaterThan(150);
      // changelog mode reads Java's changelog files (input / lookup producers), none without a producer
      const catalog = await Catalog.open(warehouse);
      const whole = (name: string) => ({ "incremental-between": `0,${snapshotCounts[CASES.findIndex((c) => c.name === name)]}`, "incremental-between-scan-mode": "changelog" });
      for (const name of ["pk_input", "pk_lookup"]) expect(((await ours(await catalog.getTable(`${DB}.${name}`), whole(name))) as OracleRow[]).length, name).toBeGreaterThan(3);
      expect(await ours(await catalog.getTable(`${DB}.pk`), whole("pk"))).toEqual([]);
    },
    SLOW,
  );

  it(
    "tags (diff of the tagged snapshots, or their range with incremental-between-tag-to-snapshot) and timestamps: as Java",
    async () => {
      const tagged = ["pk", "pk_lookup", "append_partitioned"];
      const tagAt: Record<string, number> = { t1: 1, t3: 3, t5: 5, t7: 7 };
      const tagCommands = tagged.flatMap((t) => Object.entries(tagAt).map(([name, id]) => ["create-tag", warehouse, `${DB}.${t}`, name, String(id)]));
      for (const r of await runBatch("java", tagCommands)) expect(r.ok, r.ok ? "" : r.error).toBe(true);
      const requests: Array<{ table: string; options: Record<string, string> }> = [];
      const catalog = await Catalog.open(warehouse);
      for (const t of tagged) {
        for (const [a, b] of [["t1", "t3"], ["t1", "t7"], ["t3", "t5"], ["t5", "t7"], ["t3", "t3"], ["t7", "t1"], ["t1", "nope"], ["t1", "5"]]) {
          requests.push({ table: t, options: { "incremental-between": `${a},${b}` } });
          requests.push({ table: t, options: { "incremental-between": `${a},${b}`, "incremental-between-tag-to-snapshot": "true" } });
          requests.push({ table: t, options: { "incremental-between": `${a},${b}`, "incremental-between-tag-to-snapshot": "true", "incremental-between-scan-mode": "changelog" } });
        }
        // snapshot times: exactly at, just before and after each
        const times = (await (await catalog.getTable(`${DB}.${t}`)).listSnapshots()).map((x) => x.timeMillis);
        const points = [...new Set(times.flatMap((m) => [m - 1, m, m + 1]))].sort((x, y) => x - y);
        for (let i = 0; i < points.length; i += 2) {
          for (let j = i; j < points.length; j += 3) {
            for (const mode of ["auto", "delta", "diff"]) requests.push({ table: t, options: { "incremental-between-timestamp": `${points[i]},${points[j]}`, "incremental-between-scan-mode": mode } });
          }
        }
        requests.push({ table: t, options: { "incremental-between-timestamp": `${points[3]},${points[1]}` } });
      }
      const { compared, nonEmpty, failed } = await compareAll(warehouse, requests);
      expect(compared).toBeGreaterThan(150);
      expect(nonEmpty).toBeGreaterThan(60);
      expect(failed).toBeGreaterThan(5);
    },
    SLOW,
  );

  it("refusals: Java refuses, and paimon-rt refuses with the same kind of error and Java's message", async () => {
    const catalog = await Catalog.open(warehouse);
    const pk = await catalog.getTable(`${DB}.pk`);
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ "incremental-between": "5,3" }, "INVALID_ARGUMENT", /Ending snapshotId should >= starting snapshotId/],
      [{ "incremental-between": "0,99" }, "NOT_FOUND", /The specified scan snapshotId range \[0, 99\] is out of available snapshotId range \[1, 7\]/],
      [{ "incremental-between": "0,99", "incremental-between-scan-mode": "diff" }, "NOT_FOUND", /snapshot 0 does not exist/],
      [{ "incremental-between": "1" }, "INVALID_ARGUMENT", /The incremental-between must specific start\(exclusive\) and end snapshot/],
      [{ "incremental-between": "a,b" }, "INVALID_ARGUMENT", /Didn't find two tags for start 'a' and end 'b', and they are not two snapshot Ids/],
      [{ "incremental-between": "1,3", "incremental-between-scan-mode": "sideways" }, "INVALID_ARGUMENT", /incremental-between-scan-mode=sideways is not one of auto, delta, changelog, diff/],
      [{ "incremental-between-timestamp": "x,y" }, "INVALID_ARGUMENT", /The incremental-between-timestamp must specific start\(exclusive\) and end timestamp. But is: x,y/],
      [{ "incremental-between": "1,3", "scan.snapshot-id": "2" }, "INVALID_ARGUMENT", /cannot be set with scan.mode from-snapshot/],
      [{ "incremental-between": "1,3", "incremental-between-timestamp": "1,3" }, "INVALID_ARGUMENT", /exactly one of incremental-between, incremental-between-timestamp, incremental-to-auto-tag/],
      [{ "incremental-to-auto-tag": "2024-01-01" }, "UNSUPPORTED", /incremental-to-auto-tag=2024-01-01 is not supported/],
    ];
    const java = await runBatch("java", cases.map(([o]) => javaArgs(warehouse, `${DB}.pk`, o)));
    for (const [i, [options, code, message]] of cases.entries()) {
      if (code !== "UNSUPPORTED") expect(java[i].ok, `Java accepted ${JSON.stringify(options)}`).toBe(false);
      await expect(pk.copy(options).newScan().plan(), JSON.stringify(options)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    }
  });

  it(
    "tables paimon-rt wrote: incremental reads equal Java's",
    async () => {
      const catalog = await Catalog.open(warehouse);
      const rtCases = CASES.filter((c) => ["append", "pk", "pk_dv", "pk_partitioned"].includes(c.name));
      const requests: Array<{ table: string; options: Record<string, string> }> = [];
      for (const c of rtCases) {
        const spec = specOf(c);
        const table = await catalog.createTable(`${DB}.rt_${c.name}`, { fields: FIELDS, primaryKeys: spec.primaryKeys ?? [], partitionKeys: spec.partitionKeys ?? [], options: c.options });
        for (const commit of spec.commits!) {
          const rows = (Array.isArray(commit) ? commit : commit.rows ?? []) as Array<OracleRow & { _kind?: string }>;
          const overwrite = !Array.isArray(commit) && commit.overwrite !== undefined;
          if (!overwrite) {
            await rtCommitRows(table, FIELDS, rows, { compact: !Array.isArray(commit) && commit.compact === true });
            continue;
          }
          const write = await table.newWrite({ commitUser: "rt", overwrite });
          try {
            await write.write(rowsToBatch(FIELDS, rows));
            await table.newCommit({ commitUser: "rt" }).overwrite(await write.prepareCommit(), c.partitioned ? { dt: "b" } : undefined);
          } finally {
            await write.close();
          }
        }
        const n = (await table.latestSnapshot())!.id;
        for (const [s, e] of ranges(n)) for (const mode of MODES) requests.push({ table: `rt_${c.name}`, options: { "incremental-between": `${s},${e}`, "incremental-between-scan-mode": mode } });
      }
      const { compared, nonEmpty, failures } = await compareAll(warehouse, requests);
      const diffFromZero = (o: Record<string, string>) => o["incremental-between-scan-mode"] === "diff" && o["incremental-between"].startsWith("0,") && o["incremental-between"] !== "0,0";
      expect(failures.filter((o) => !diffFromZero(o))).toEqual([]);
      expect(compared).toBe(requests.length - failures.length);
      expect(nonEmpty).toBeGreaterThan(80);
    },
    SLOW,
  );
});
