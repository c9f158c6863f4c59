/**
 * Creation-time scans against Java Paimon 1.4.2: `scan.file-creation-time-millis` (scan.mode
 * `from-file-creation-time`: the latest snapshot's files created at or after the time) and
 * `scan.creation-time-millis` (`from-creation-timestamp`: the first snapshot at or after the time
 * when it lies within the snapshots, else the former), batch (`read --option …`) and streaming
 * (`stream-read`, plan by plan), on the incremental test's Java-written tables (append and
 * primary-key, deletion vectors, changelog producers, compactions, overwrites), at times before,
 * at, between and after the snapshots and at the data files' creation times. Bad combinations
 * fail in both. Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "./convert.js";
import { CASES, javaWrittenTables } from "./incremental-tables.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, runBatch, sortRows } from "./oracle/harness.js";
import { javaStreamArgs, ours as ourPlans, parsePlans } from "./stream-plans.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping creation-time interop: ${noJava}`);
const SLOW = 900_000;
const DB = "ct";

/** Our batch rows with kinds, sorted as the oracle's, or the error. */
async function ourRows(table: Table, options: Record<string, string>): Promise<OracleRow[] | { error: string }> {
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

const javaReadArgs = (warehouse: string, identifier: string, options: Record<string, string>) => ["read", warehouse, identifier, "--sort", "--with-kind", ...Object.entries(options).flatMap(([k, v]) => ["--option", `${k}=${v}`])];

/** The times to scan from: around every snapshot and at every data file's creation (UTC here and in the oracle: wall clock = epoch). */
async function timesOf(table: Table): Promise<number[]> {
  const times = new Set<number>();
  for (const s of await table.listSnapshots()) {
    for (const t of [s.timeMillis - 1, s.timeMillis, s.timeMillis + 1]) times.add(t);
    for (const e of await table.manifestStore.liveEntries(s)) if (e.file.creationTime !== null) times.add(e.file.creationTime);
  }
  return [...times].sort((a, b) => a - b);
}

describe.skipIf(noJava !== null)("creation-time scans: paimon-rt equals Java Paimon 1.4.2", () => {
  let warehouse: string;
  let counts: number[];

  javaWrittenTables(DB, CASES, "paimon-rt-creation-time-", (w, c) => {
    warehouse = w;
    counts = c;
  });

  it(
    "batch: the same rows as Java for every time and mode; bad combinations fail in both",
    async () => {
      expect(process.env.TZ ?? "UTC").toBe("UTC");
      const catalog = await Catalog.open(warehouse);
      const requests: Array<{ table: string; options: Record<string, string>; fails?: boolean }> = [];
      for (const c of CASES) {
        const times = await timesOf(await catalog.getTable(`${DB}.${c.name}`));
        for (const t of times) {
          const ms = String(t);
          requests.push({ table: c.name, options: { "scan.file-creation-time-millis": ms } });
          requests.push({ table: c.name, options: { "scan.mode": "from-file-creation-time", "scan.file-creation-time-millis": ms } });
          requests.push({ table: c.name, options: { "scan.creation-time-millis": ms } });
          requests.push({ table: c.name, options: { "scan.mode": "from-creation-timestamp", "scan.creation-time-millis": ms } });
        }
        // scan.creation-time-millis is ignored by other modes; file creation time conflicts with a snapshot
        requests.push({ table: c.name, options: { "scan.mode": "latest-full", "scan.creation-time-millis": String(times[0]) } });
        requests.push({ table: c.name, options: { "scan.snapshot-id": "2", "scan.creation-time-millis": String(times[0]) } });
        requests.push({ table: c.name, options: { "scan.snapshot-id": "2", "scan.file-creation-time-millis": String(times[0]) }, fails: true });
        requests.push({ table: c.name, options: { "scan.mode": "from-file-creation-time" }, fails: true });
        requests.push({ table: c.name, options: { "scan.mode": "from-creation-timestamp" }, fails: true });
        requests.push({ table: c.name, options: { "scan.file-creation-time-millis": "soon" }, fails: true });
      }
      const results = await runBatch("java", requests.map((r) => javaReadArgs(warehouse, `${DB}.${r.table}`, r.options)));
      let nonEmpty = 0;
      const sizes = new Set<string>();
      for (const [i, r] of requests.entries()) {
        const what = `${r.table} ${JSON.stringify(r.options)}`;
        const mine = await ourRows(await catalog.getTable(`${DB}.${r.table}`), r.options);
        const java = results[i];
        expect(java.ok, `${what}: ${java.ok ? "" : java.error}`).toBe(r.fails !== true);
        if (!java.ok) {
          expect(mine, what).toHaveProperty("error");
          expect((mine as { error: string }).error, what).toMatch(/^INVALID_ARGUMENT: /);
          continue;
        }
        const expected = sortRows(batchOutput(java).split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as OracleRow));
        expect(mine, what).toEqual(expected);
        if (expected.length > 0) nonEmpty++;
        sizes.add(`${r.table}:${expected.length}`);
      }
      // the times cut the tables in many places: empty, partial and full reads
      expect(nonEmpty).toBeGreaterThan(requests.length / 2);
      expect(sizes.size).toBeGreaterThan(CASES.length * 3);
    },
    SLOW,
  );

  it(
    "streaming: plan by plan the same snapshots, checkpoints, rows and row kinds as Java",
    async () => {
      const catalog = await Catalog.open(warehouse);
      const requests: Array<{ table: string; options: Record<string, string>; plans: number }> = [];
      for (const [i, c] of CASES.entries()) {
        const table = await catalog.getTable(`${DB}.${c.name}`);
        const snaps = (await table.listSnapshots()).map((s) => s.timeMillis);
        const times = [snaps[0] - 1, snaps[1], snaps[2] + 1, snaps[snaps.length - 1], snaps[snaps.length - 1] + 1, ...(await timesOf(table)).filter((_, k) => k % 5 === 2)];
        for (const t of new Set(times)) {
          requests.push({ table: c.name, options: { "scan.mode": "from-file-creation-time", "scan.file-creation-time-millis": String(t) }, plans: counts[i] + 2 });
          requests.push({ table: c.name, options: { "scan.creation-time-millis": String(t) }, plans: counts[i] + 2 });
        }
      }
      const results = await runBatch("java", requests.map((r) => javaStreamArgs(warehouse, `${DB}.${r.table}`, r.options, r.plans)));
      let withRows = 0;
      for (const [i, r] of requests.entries()) {
        const what = `${r.table} ${JSON.stringify(r.options)}`;
        const java = parsePlans(batchOutput(results[i]));
        const mine = await ourPlans(await catalog.getTable(`${DB}.${r.table}`), r.options, r.plans);
        expect(mine, what).toEqual(java);
        if (java.some((p) => p.rows.length > 0)) withRows++;
      }
      expect(withRows).toBeGreaterThan(requests.length / 2);
    },
    SLOW,
  );
});
