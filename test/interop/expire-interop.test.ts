// Snapshot expiry against Java Paimon's own: on copies of one Java-written table with a consumer
// Java recorded (a streaming job's next snapshot), Java's ExpireSnapshotsImpl and paimon-rt's
// expireSnapshots keep the same snapshots under the same limits, and Java reads what is left.
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { batchOutput, javaOracleUnavailable, readTables, runBatch, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const SLOW = 300_000;
let root = "";

beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-expire-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: String(from + i), v: `v${from + i}` }));

describe.skipIf(noJava !== null)("snapshot expiry as Java's", () => {
  it(
    "a Java consumer's next snapshot stays; under the same limits Java and paimon-rt keep the same snapshots; Java reads them",
    async () => {
      const wh = path.join(root, "wh");
      const [ids] = await writeTables("java", wh, [
        { identifier: "db.t", spec: { fields: [{ name: "id", type: "BIGINT" }, { name: "v", type: "STRING" }], options: { bucket: "-1" }, commits: [1, 2, 3, 4, 5, 6, 7].map((c) => rows(c * 10, 2)) } },
      ]);
      expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
      batchOutput((await runBatch("java", [["consumer", wh, "db.t", "job", "4"]]))[0]!);
      const reads = [
        { warehouse: wh, identifier: "db.t", sort: true },
        { warehouse: wh, identifier: "db.t", snapshot: 6, sort: true },
      ];
      const before = await readTables("java", reads);
      expect(before.map((r) => (r instanceof Error ? r.message : r.length))).toEqual([14, 12]);
      // (retainMin, retainMax, maxDeletes): the consumer holds 4 on; then the limit stops at 2 a call
      const rounds: Array<[number, number, number]> = [
        [1, 2, 50],
        [1, 1, 2],
      ];
      const copy = path.join(root, "wh-java");
      await fsp.cp(wh, copy, { recursive: true });
      const javaLeft: number[][] = [];
      for (const [retainMin, retainMax, maxDeletes] of rounds) {
        const out = batchOutput((await runBatch("java", [["expire", copy, "db.t", String(retainMin), String(retainMax), "0", String(maxDeletes)]]))[0]!);
        javaLeft.push((JSON.parse(out.trim()) as { snapshots: number[] }).snapshots);
      }
      expect(javaLeft).toEqual([
        [4, 5, 6, 7],
        [4, 5, 6, 7],
      ]);

      const table = await (await Catalog.open(wh)).getTable("db.t");
      const oursLeft: number[][] = [];
      for (const [retainMin, retainMax, maxDeletes] of rounds) {
        await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMin, retainMax, olderThanMs: 0, maxDeletes });
        oursLeft.push((await table.listSnapshots()).map((s) => s.id));
      }
      expect(oursLeft).toEqual(javaLeft);

      // without the consumer, both go on in steps of maxDeletes
      for (const dir of [wh, copy]) await fsp.rm(path.join(dir, "db.db", "t", "consumer"), { recursive: true });
      const out = batchOutput((await runBatch("java", [["expire", copy, "db.t", "1", "1", "0", "2"]]))[0]!);
      await table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMin: 1, retainMax: 1, olderThanMs: 0, maxDeletes: 2 });
      expect((await table.listSnapshots()).map((s) => s.id)).toEqual((JSON.parse(out.trim()) as { snapshots: number[] }).snapshots);
      expect((await table.listSnapshots()).map((s) => s.id)).toEqual([6, 7]);

      expect(await readTables("java", reads)).toEqual(before);
    },
    SLOW,
  );
});
