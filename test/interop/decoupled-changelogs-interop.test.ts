/**
 * Decoupled changelogs (`changelog.num-retained.max` above `snapshot.num-retained.max`) against
 * Java Paimon 1.4.2: Java and paimon-rt write the same commits into twin tables, each expiring
 * after every commit (Java's TableCommitImpl maintenance: ExpireSnapshotsImpl, ExpireChangelogImpl);
 * both keep the same snapshots, the same `changelog/changelog-<id>` files and as many data files;
 * streaming reads from snapshot 1 go through the changelogs, plan by plan equal in Java and
 * paimon-rt on both tables; then each continues the other's table (Java expiring paimon-rt's
 * changelogs, paimon-rt Java's) and all of it holds again.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { Table } from "../../src/table/table.js";
import { type FieldLike } from "./convert.js";
import { javaOracleUnavailable, runBatch, batchOutput, type OracleSpec, writeTables } from "./oracle/harness.js";
import { type KindRow, rtCommitRows } from "./rt-commit.js";
import { javaStreamArgs, ours, parsePlans } from "./stream-plans.js";

const noJava = javaOracleUnavailable();
const SLOW = 600_000;
const DB = "dc";
const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];
const RETENTION = { "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2", "changelog.num-retained.max": "4", "num-sorted-run.compaction-trigger": "10" };
const CASES = [
  { name: "input", options: { bucket: "1", "changelog-producer": "input", ...RETENTION }, compactAt: [3] },
  { name: "none", options: { bucket: "1", ...RETENTION }, compactAt: [2, 5] },
];
const FIRST = 6;
const TOTAL = 9;

/** Commit `i`: an insert or update of two keys and a delete of a third. */
function commitRows(i: number): KindRow[] {
  return [
    { _kind: i === 0 ? "+I" : "+U", id: String(i % 5), v: `a${i}` },
    { _kind: "+I", id: String((i + 2) % 5), v: `b${i}` },
    ...(i > 1 ? [{ _kind: "-D", id: String((i + 4) % 5), v: null }] : []),
  ];
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-decoupled-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

/** The snapshot ids, changelog ids and number of data files of the table at `location`. */
async function state(location: string): Promise<{ snapshots: number[]; changelogs: number[]; dataFiles: number }> {
  const ids = async (dir: string, prefix: string) =>
    (await fsp.readdir(path.join(location, dir)).catch(() => [] as string[]))
      .filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
      .map((f) => Number(f.slice(prefix.length)))
      .sort((a, b) => a - b);
  const dataFiles = (await fsp.readdir(path.join(location, "bucket-0"))).filter((f) => f.endsWith(".parquet")).length;
  return { snapshots: await ids("snapshot", "snapshot-"), changelogs: await ids("changelog", "changelog-"), dataFiles };
}

describe.skipIf(noJava !== null)("decoupled changelogs as Java's", () => {
  it(
    "twin tables keep the same snapshots, changelogs and data files; stream reads through the changelogs are equal; each continues the other's",
    async () => {
      const wh = path.join(root, "wh");
      const spec = (c: (typeof CASES)[number], from: number, to: number, create: boolean): OracleSpec => ({
        ...(create ? { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: ["id"], options: c.options } : {}),
        commits: Array.from({ length: to - from }, (_, k) => ({ rows: commitRows(from + k), compact: c.compactAt.includes(from + k) })),
      });
      const loc = (name: string) => path.join(wh, `${DB}.db`, name);
      await writeTables("java", wh, CASES.map((c) => ({ identifier: `${DB}.j_${c.name}`, spec: spec(c, 0, FIRST, true) })));
      const catalog = await Catalog.open(wh);
      for (const c of CASES) {
        const table = await catalog.createTable(`${DB}.r_${c.name}`, { fields: FIELDS, primaryKeys: ["id"], options: c.options });
        for (let i = 0; i < FIRST; i++) await rtCommitRows(table, FIELDS, commitRows(i), { compact: c.compactAt.includes(i) });
      }

      const check = async (phase: string) => {
        const requests: Array<{ table: string; plans: number; options: Record<string, string> }> = [];
        for (const c of CASES) {
          const [j, r] = [await state(loc(`j_${c.name}`)), await state(loc(`r_${c.name}`))];
          expect(r, `${phase} ${c.name}: paimon-rt's table as Java's`).toEqual(j);
          expect(j.changelogs.length, `${phase} ${c.name}: Java kept changelogs`).toBeGreaterThan(0);
          expect(j.changelogs[j.changelogs.length - 1]).toBe(j.snapshots[0]! - 1);
          for (const t of [`j_${c.name}`, `r_${c.name}`]) {
            const plans = j.snapshots[j.snapshots.length - 1]! - j.changelogs[0]! + 3;
            requests.push({ table: t, plans, options: { "scan.snapshot-id": "1" } });
            // from-timestamp: Java searches the changelogs too (the time of the second changelog)
            const second = JSON.parse(await fsp.readFile(path.join(loc(t), "changelog", `changelog-${j.changelogs[1] ?? j.changelogs[0]}`), "utf8")) as { timeMillis: number };
            requests.push({ table: t, plans, options: { "scan.mode": "from-timestamp", "scan.timestamp-millis": String(second.timeMillis) } });
          }
        }
        const java = await runBatch("java", requests.map((r) => javaStreamArgs(wh, `${DB}.${r.table}`, r.options, r.plans)));
        for (const [i, r] of requests.entries()) {
          const javaPlans = parsePlans(batchOutput(java[i]!));
          const mine = await ours(await Table.open(loc(r.table)), r.options, r.plans);
          expect(mine, `${phase} ${r.table} ${JSON.stringify(r.options)}: paimon-rt's stream plans as Java's`).toEqual(javaPlans);
          // the first plan with rows reads a changelog (COMPACT ones have none without a producer)
          if (r.options["scan.snapshot-id"]) expect(javaPlans.find((p) => p.snapshotId !== null)?.snapshotId, `${phase} ${r.table}`).toBeLessThan((await state(loc(r.table))).snapshots[0]!);
        }
        // twins read alike (from snapshot 1)
        for (let i = 0; i < requests.length; i += 4) expect(parsePlans(batchOutput(java[i + 2]!)).map((p) => p.rows)).toEqual(parsePlans(batchOutput(java[i]!)).map((p) => p.rows));
      };
      await check("written");

      // each continues the other's table: Java's expiry meets paimon-rt's changelogs and the reverse
      await writeTables("java", wh, CASES.map((c) => ({ identifier: `${DB}.r_${c.name}`, spec: spec(c, FIRST, TOTAL, false) })));
      for (const c of CASES) {
        const table = await Table.open(loc(`j_${c.name}`));
        for (let i = FIRST; i < TOTAL; i++) await rtCommitRows(table, FIELDS, commitRows(i), { compact: c.compactAt.includes(i) });
      }
      await check("continued");
    },
    SLOW,
  );
});
