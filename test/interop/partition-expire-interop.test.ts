// Partition expiry against Java Paimon's own: on copies of Java-written partitioned tables given
// `partition.expiration-time` (with a timestamp pattern over two keys, and an INT key with a
// formatter, max-num and batch-size), Java's PartitionExpire and paimon-rt expire the same
// partitions (same list, same order), and after a paimon-rt commit Java reads exactly the rows
// Java's own expiry keeps.
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { batchOutput, javaOracleUnavailable, readTables, runBatch, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const SLOW = 300_000;
let root = "";

beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-partition-expire-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

const A_OPTIONS = { "partition.expiration-time": "1 d", "partition.timestamp-pattern": "$dt $hour:00:00" };
const B_OPTIONS = { "partition.expiration-time": "1 d", "partition.timestamp-formatter": "yyyyMMdd", "partition.expiration-max-num": "2", "partition.expiration-batch-size": "1" };

describe.skipIf(noJava !== null)("partition expiry as Java's", () => {
  it(
    "Java's PartitionExpire and paimon-rt drop the same partitions; after a paimon-rt commit Java reads what Java's expiry keeps",
    async () => {
      const wh = path.join(root, "wh");
      const a = [
        ["2020-01-01", "01"],
        ["2020-01-01", "23"],
        ["2020-01-02", "05"],
        ["2999-01-01", "00"],
        ["2020-01-01", "xx"],
        [null, "01"],
        ["2020-01-03", null],
      ].map(([dt, hour], id) => ({ id, dt, hour }));
      const b = [20200103, 20200101, 29990101, 123, 20200102].map((d, id) => ({ id, d }));
      await writeTables("java", wh, [
        {
          identifier: "db.a",
          spec: { fields: [{ name: "id", type: "INT" }, { name: "dt", type: "STRING" }, { name: "hour", type: "STRING" }], partitionKeys: ["dt", "hour"], options: { bucket: "-1" }, commits: [a] },
        },
        { identifier: "db.b", spec: { fields: [{ name: "id", type: "INT" }, { name: "d", type: "INT" }], partitionKeys: ["d"], options: { bucket: "-1" }, commits: [b.slice(0, 2), b.slice(2)] } },
      ]);
      // the options are set afterwards, so Java's writing commits expire nothing
      const catalog = await Catalog.open(wh);
      const set = (o: Record<string, string>) => Object.entries(o).map(([key, value]) => ({ kind: "setOption" as const, key, value }));
      await catalog.alterTable("db.a", set(A_OPTIONS));
      await catalog.alterTable("db.b", set(B_OPTIONS));
      const javaCopy = path.join(root, "wh-java");
      const ourCopy = path.join(root, "wh-ours");
      await fsp.cp(wh, javaCopy, { recursive: true });
      await fsp.cp(wh, ourCopy, { recursive: true });

      const javaExpired = (await runBatch("java", [["expire-partitions", javaCopy, "db.a"], ["expire-partitions", javaCopy, "db.b"]])).map(
        (r) => (JSON.parse(batchOutput(r).trim()) as { expired: Array<Record<string, string>> }).expired,
      );
      expect(javaExpired).toEqual([
        [
          { dt: "2020-01-01", hour: "01" },
          { dt: "2020-01-01", hour: "23" },
          { dt: "2020-01-02", hour: "05" },
        ],
        [{ d: "20200101" }, { d: "20200102" }],
      ]);

      // the explicit API returns Java's list
      const ours = await Catalog.open(ourCopy);
      const oursExpired = [];
      for (const name of ["db.a", "db.b"]) oursExpired.push(await (await ours.getTable(name)).newCommit({ commitUser: "e" }).expirePartitions());
      expect(oursExpired).toEqual(javaExpired);

      // a commit expires them: Java reads what its own expiry left (and the new row)
      const tableA = await catalog.getTable("db.a");
      const wa = await tableA.newWrite({ commitUser: "rt" });
      await wa.write(
        new arrow.RecordBatch({
          id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(99) }),
          dt: arrow.vectorFromArray(["2999-01-01"], new arrow.Utf8()).data[0]!,
          hour: arrow.vectorFromArray(["00"], new arrow.Utf8()).data[0]!,
        }),
      );
      await tableA.newCommit({ commitUser: "rt" }).commit(await wa.prepareCommit());
      await wa.close();
      const tableB = await catalog.getTable("db.b");
      const wb = await tableB.newWrite({ commitUser: "rt" });
      await wb.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(99) }), d: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.of(29990101) }) }));
      await tableB.newCommit({ commitUser: "rt" }).commit(await wb.prepareCommit());
      await wb.close();
      expect((await tableB.listSnapshots()).map((s) => s.commitKind)).toEqual(["APPEND", "APPEND", "APPEND", "OVERWRITE", "OVERWRITE"]);

      const reads = await readTables("java", [
        { warehouse: wh, identifier: "db.a", sort: true },
        { warehouse: javaCopy, identifier: "db.a", sort: true },
        { warehouse: wh, identifier: "db.b", sort: true },
        { warehouse: javaCopy, identifier: "db.b", sort: true },
      ]);
      const [afterA, javaA, afterB, javaB] = reads.map((r) => {
        if (r instanceof Error) throw r;
        return r;
      });
      expect(afterA!.filter((r) => r.id !== 99)).toEqual(javaA);
      expect(afterB!.filter((r) => r.id !== 99)).toEqual(javaB);
      expect(javaA!.map((r) => r.id as number).sort()).toEqual([3, 4, 5, 6]);
      expect(javaB!.map((r) => r.id as number).sort()).toEqual([0, 2, 3]);
    },
    SLOW,
  );
});
