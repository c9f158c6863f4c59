/**
 * Streaming reads (`Table.newStreamScan`) against Java Paimon 1.4.2's `newStreamScan`: Java writes
 * append and primary-key tables (changelog-producer none / input / lookup, deletion vectors,
 * partitioned) over commits with updates, deletes, compactions and overwrites; for every scan.mode
 * (and the overwrite options) paimon-rt's plans equal the Java oracle's `stream-read`, plan by
 * plan: the snapshot planned, the checkpoint after it, and the rows with their kinds. Consumers:
 * a consumer Java saved is continued by paimon-rt and one paimon-rt saved by Java (its stream scan
 * and its snapshot expiry). Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { CASES as INCREMENTAL_CASES, type Case, javaWrittenTables } from "./incremental-tables.js";
import { batchOutput, javaOracleUnavailable, runBatch } from "./oracle/harness.js";
import { javaStreamArgs, ours, parsePlans } from "./stream-plans.js";

const noJava = javaOracleUnavailable();
const SLOW = 900_000;
const DB = "st";

// the incremental test's tables, and a full-compaction changelog and a first-row table (whose full
// phase reads level 0, as deletion-vector tables' does)
const CASES: Case[] = [
  ...INCREMENTAL_CASES,
  { name: "pk_full_compaction", pk: true, options: { bucket: "1", "changelog-producer": "full-compaction" } },
  { name: "pk_first_row", pk: true, options: { bucket: "1", "merge-engine": "first-row", "ignore-delete": "true" } },
];

describe.skipIf(noJava !== null)("stream reads: paimon-rt's plans equal Java Paimon 1.4.2's", () => {
  let warehouse: string;
  let counts: number[];

  javaWrittenTables(DB, CASES, "paimon-rt-stream-", (w, c) => {
    warehouse = w;
    counts = c;
  });

  it(
    "every scan.mode, the overwrite options and restore: plan by plan the same snapshots, checkpoints, rows and row kinds",
    async () => {
      const catalog = await Catalog.open(warehouse);
      const requests: Array<{ table: string; options: Record<string, string>; plans: number; restore?: number }> = [];
      for (const [i, c] of CASES.entries()) {
        const n = counts[i];
        const plans = n + 2; // every snapshot, then nothing new
        const table = await catalog.getTable(`${DB}.${c.name}`);
        const times = (await table.listSnapshots()).map((s) => s.timeMillis);
        const sets: Array<Record<string, string>> = [
          {},
          { "scan.mode": "latest" },
          { "scan.mode": "full" },
          { "scan.mode": "compacted-full" },
          { "scan.mode": "from-timestamp", "scan.timestamp-millis": String(times[2]) },
          { "scan.timestamp-millis": String(times[0] - 1) },
          ...Array.from({ length: n }, (_, s) => ({ "scan.snapshot-id": String(s + 1) })),
          { "scan.mode": "from-snapshot-full", "scan.snapshot-id": "2" },
          { "scan.mode": "from-snapshot-full", "scan.snapshot-id": String(n) },
          { "scan.snapshot-id": "1", [c.pk ? "streaming-read-overwrite" : "streaming-read-append-overwrite"]: "true" },
          { "scan.mode": "from-snapshot-full", "scan.snapshot-id": "1", [c.pk ? "streaming-read-overwrite" : "streaming-read-append-overwrite"]: "true" },
        ];
        for (const options of sets) {
          // (Java refuses streaming-read-overwrite with a lookup / full-compaction changelog producer: checked below)
          if ((c.name === "pk_lookup" || c.name === "pk_full_compaction") && options["streaming-read-overwrite"] !== undefined) continue;
          requests.push({ table: c.name, options, plans });
        }
        requests.push({ table: c.name, options: {}, plans, restore: 2 });
      }
      const results = await runBatch("java", requests.map((r) => javaStreamArgs(warehouse, `${DB}.${r.table}`, r.options, r.plans, r.restore === undefined ? [] : ["--restore", String(r.restore)])));
      let nonEmpty = 0;
      for (const [i, r] of requests.entries()) {
        const what = `${r.table} ${JSON.stringify(r.options)}${r.restore === undefined ? "" : ` restore ${r.restore}`}`;
        const java = parsePlans(batchOutput(results[i]));
        const mine = await ours(await catalog.getTable(`${DB}.${r.table}`), r.options, r.plans, r.restore);
        expect(mine, what).toEqual(java);
        nonEmpty += java.filter((p) => p.rows.length > 0).length;
      }
      expect(requests.length).toBeGreaterThan(90);
      expect(nonEmpty).toBeGreaterThan(300);
      // Java's refusal of streaming-read-overwrite with a lookup changelog is ours too
      const refused = await runBatch("java", [javaStreamArgs(warehouse, `${DB}.pk_lookup`, { "streaming-read-overwrite": "true" }, 1)]);
      expect(refused[0].ok).toBe(false);
      await expect((await catalog.getTable(`${DB}.pk_lookup`)).copy({ "streaming-read-overwrite": "true" }).newStreamScan()).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    },
    SLOW,
  );

  it(
    "consumers: Java's saved progress is continued by paimon-rt, paimon-rt's by Java's stream scan and kept by Java's expiry",
    async () => {
      const catalog = await Catalog.open(warehouse);
      const name = "pk_input";
      const table = await catalog.getTable(`${DB}.${name}`);
      const n = counts[CASES.findIndex((c) => c.name === name)];
      // Java reads from snapshot 1 for five plans and saves its progress
      const from1 = { "scan.snapshot-id": "1", "consumer-id": "java-job" };
      const [javaFirst] = await runBatch("java", [javaStreamArgs(warehouse, `${DB}.${name}`, from1, 5, ["--notify"])]);
      const javaPlans = parsePlans(batchOutput(javaFirst));
      const saved = javaPlans[4].checkpoint!;
      expect(await fsp.readFile(path.join(table.location, "consumer", "consumer-java-job"), "utf8")).toBe(`{\n  "nextSnapshot" : ${saved}\n}`);
      // both continue from it the same way
      const [javaResumed] = await runBatch("java", [javaStreamArgs(warehouse, `${DB}.${name}`, { "consumer-id": "java-job" }, n + 1)]);
      const resumed = await ours(table, { "consumer-id": "java-job" }, n + 1);
      expect(resumed).toEqual(parsePlans(batchOutput(javaResumed)));
      expect(resumed[0]).toEqual({ snapshotId: null, checkpoint: saved, rows: [] });
      expect(resumed.some((p) => p.rows.length > 0)).toBe(true);
      // paimon-rt saves a consumer at snapshot 3 (plans: none yet, snapshot 1, snapshot 2); Java continues from it
      const mine = await ours(table, { "scan.snapshot-id": "1", "consumer-id": "rt-job" }, 3, undefined, true);
      expect(mine.map((p) => p.checkpoint)).toEqual([1, 2, 3]);
      expect(await fsp.readFile(path.join(table.location, "consumer", "consumer-rt-job"), "utf8")).toBe('{\n  "nextSnapshot" : 3\n}');
      const [javaOfOurs] = await runBatch("java", [javaStreamArgs(warehouse, `${DB}.${name}`, { "consumer-id": "rt-job" }, n)]);
      expect(parsePlans(batchOutput(javaOfOurs))).toEqual(await ours(table, { "consumer-id": "rt-job" }, n));
      // Java's expiry keeps the smallest consumer's next snapshot (ours: 3; Java's is later)
      expect(saved).toBeGreaterThan(3);
      const expired = JSON.parse(batchOutput((await runBatch("java", [["expire", warehouse, `${DB}.${name}`, "1", "1", "0", "100"]]))[0])) as { snapshots: number[] };
      expect(expired.snapshots[0]).toBe(3);
      // after the consumer is gone Java's expiry removes snapshot 3 and our stream from it fails as Java's does
      await fsp.rm(path.join(table.location, "consumer"), { recursive: true });
      const after = JSON.parse(batchOutput((await runBatch("java", [["expire", warehouse, `${DB}.${name}`, "1", "1", "0", "100"]]))[0])) as { snapshots: number[] };
      expect(after.snapshots).toEqual([n]);
      await expect(ours(table, {}, 1, 3)).rejects.toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("The snapshot with id 3 has expired") });
    },
    SLOW,
  );
});
