// `partition.timestamp-format.strict` against Java Paimon 1.4.2's own: on copies of a Java-written
// table with partitions whose values do not parse (written before the option was set), Java's
// PartitionExpire and paimon-rt expire the same partitions (strict changes nothing there), and
// both refuse a write to such a partition, and a compaction of one, while writing the others.
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { batchOutput, javaOracleUnavailable, readTables, runBatch, writeTable, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const SLOW = 300_000;
let root = "";

beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-partition-strict-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

const OPTIONS = { "partition.expiration-time": "1 d", "partition.timestamp-formatter": "yyyyMMdd", "partition.timestamp-format.strict": "true" };
const JAVA_REFUSAL = /Partition dt=(not-a-date|2020-01-05) does not match the 'partition.timestamp-formatter' or 'partition.timestamp-pattern' configuration/;

async function writeOurs(table: Table, id: number, dt: string | null): Promise<number | null> {
  const w = await table.newWrite({ commitUser: "rt" });
  try {
    await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(id) }), dt: arrow.vectorFromArray([dt], new arrow.Utf8()).data[0]! }));
    return await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
  } finally {
    await w.close();
  }
}

describe.skipIf(noJava !== null)("partition.timestamp-format.strict as Java's", () => {
  it(
    "Java and paimon-rt expire the same partitions strict or not, and refuse the same writes and compactions",
    async () => {
      const wh = path.join(root, "wh");
      const rows = ["20200101", "not-a-date", "20200102", "29990101", null, "2020-01-03"].map((dt, id) => ({ id, dt }));
      await writeTables("java", wh, [{ identifier: "db.t", spec: { fields: [{ name: "id", type: "INT" }, { name: "dt", type: "STRING" }], partitionKeys: ["dt"], options: { bucket: "1", "bucket-key": "id" }, commits: [rows] } }]);
      // set afterwards, so the unparsable partitions exist and Java's writing commit expires nothing
      const catalog = await Catalog.open(wh);
      await catalog.alterTable(
        "db.t",
        Object.entries(OPTIONS).map(([key, value]) => ({ kind: "setOption" as const, key, value })),
      );
      const javaCopy = path.join(root, "wh-java");
      const ourCopy = path.join(root, "wh-ours");
      await fsp.cp(wh, javaCopy, { recursive: true });
      await fsp.cp(wh, ourCopy, { recursive: true });

      const [javaExpired] = (await runBatch("java", [["expire-partitions", javaCopy, "db.t"]])).map((r) => (JSON.parse(batchOutput(r).trim()) as { expired: Array<Record<string, string>> }).expired);
      expect(javaExpired).toEqual([{ dt: "20200101" }, { dt: "20200102" }]);
      const ours = await (await Catalog.open(ourCopy)).getTable("db.t");
      expect(await ours.newCommit({ commitUser: "e" }).expirePartitions()).toEqual(javaExpired);
      const [javaLeft, oursLeft] = (await readTables("java", [
        { warehouse: javaCopy, identifier: "db.t", sort: true },
        { warehouse: ourCopy, identifier: "db.t", sort: true },
      ])) as Array<Array<Record<string, unknown>>>;
      expect(oursLeft).toEqual(javaLeft);
      expect(javaLeft!.map((r) => r.dt)).toEqual(["2020-01-03", "29990101", "not-a-date", null]);

      // writes: the same partitions refused by both, the others written by both
      for (const dt of ["not-a-date", "2020-01-05", null]) {
        // (a null value: Java's extraction throws a NullPointerException, which fails the write too)
        await expect(writeTable("java", javaCopy, "db.t", { commits: [[{ id: 10, dt }]] })).rejects.toThrow(dt === null ? /NullPointerException[\s\S]*PartitionTimestampValidator\.validate/ : JAVA_REFUSAL);
        await expect(writeOurs(ours, 10, dt)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining(`Partition dt=${dt ?? "null"} does not match`) });
      }
      expect(await writeTable("java", javaCopy, "db.t", { commits: [[{ id: 11, dt: "29990102" }]] })).toHaveLength(1);
      expect(await writeOurs(ours, 11, "29990102")).not.toBeNull();
      // a compaction of the table needs a writer of the unparsable partitions: both refuse it
      const unparsable = /Partition dt=(not-a-date|2020-01-03|null) does not match/;
      await expect(writeTable("java", javaCopy, "db.t", { commits: [{ rows: [], compact: true }] })).rejects.toThrow(unparsable);
      const compactor = await ours.newWrite({ commitUser: "c" });
      await expect(compactor.compact({ full: true })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(unparsable) });
      await compactor.close();

      const [javaAfter, oursAfter] = (await readTables("java", [
        { warehouse: javaCopy, identifier: "db.t", sort: true },
        { warehouse: ourCopy, identifier: "db.t", sort: true },
      ])) as Array<Array<Record<string, unknown>>>;
      expect(oursAfter).toEqual(javaAfter);
      expect(javaAfter!.map((r) => r.dt)).toEqual(["2020-01-03", "29990101", "29990102", "not-a-date", null]);
    },
    SLOW,
  );
});
