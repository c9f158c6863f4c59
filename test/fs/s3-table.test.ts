/**
 * Paimon tables on s3:// against a real S3 server (Ceph RGW from scripts/s3-server.sh): a table
 * round trip through Catalog.open, racing committers that only the store's conditional PUT keeps
 * apart, and a real-time append writer committing progress and recovering from it.
 */
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog, RealtimeContext, RealtimeSnapshotOffsets, Table, col } from "../../src/index.js";
import { S3FileIO } from "../../src/fs/s3-file-io.js";
import { main } from "../../src/cli/main.js";
import { expectCode, makeTable, range, readIds, rtBatch } from "../realtime/helpers.js";
import { listFilesUnder } from "../support/warehouses.js";
import { S3_SKIP_MESSAGE, freshS3Root, s3TestBucket, testS3FileIO } from "./s3-server.js";

function batch(ids: number[], dt: string): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    name: arrow.vectorFromArray(ids.map((i) => `name-${i}`), new arrow.Utf8()).data[0],
    dt: arrow.vectorFromArray(ids.map(() => dt), new arrow.Utf8()).data[0],
  });
}

async function rows(table: Table, filter?: ReturnType<ReturnType<typeof col>["eq"]>) {
  const plan = await table.newScan({ filter }).plan();
  const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
  return t
    .toArray()
    .map((r) => r.toJSON() as { id: bigint; name: string; dt: string })
    .map((r) => ({ id: Number(r.id), name: r.name, dt: r.dt }))
    .sort((a, b) => a.id - b.id);
}

async function writeAndCommit(table: Table, user: string, b: arrow.RecordBatch, identifier: number): Promise<number | null> {
  const write = await table.newWrite({ commitUser: user });
  await write.write(b);
  const messages = await write.prepareCommit(identifier);
  await write.close();
  return table.newCommit({ commitUser: user }).commit(messages, identifier);
}

if (s3TestBucket === null) {
  describe.skip(`Paimon tables on s3:// — ${S3_SKIP_MESSAGE}`, () => {
    it("needs an S3 server", () => undefined);
  });
} else {
  describe("Paimon tables on s3:// (Ceph RGW)", () => {
    it("append table: create, write + commit, scan with a predicate, read exact rows, expire", async () => {
      const warehouse = freshS3Root("wh");
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const table = await catalog.createTable("db.t", {
        fields: [
          { name: "id", type: "BIGINT" },
          { name: "name", type: "STRING" },
          { name: "dt", type: "STRING" },
        ],
        partitionKeys: ["dt"],
      });
      expect(table.location).toBe(`${warehouse}/db.db/t`);
      expect(await catalog.listDatabases()).toEqual(["db"]);
      expect(await catalog.listTables("db")).toEqual(["t"]);

      expect(await writeAndCommit(table, "u", batch([1, 2, 3], "a"), 1)).toBe(1);
      expect(await writeAndCommit(table, "u", batch([4, 5], "b"), 2)).toBe(2);
      expect(await writeAndCommit(table, "u", batch([6], "a"), 3)).toBe(3);

      // a fresh open through Table.open (s3a:// as Java writes it) sees the same table
      const reopened = await Table.open(`${warehouse.replace(/^s3:/, "s3a:")}/db.db/t`);
      expect((await reopened.latestSnapshot())?.id).toBe(3);
      expect(await rows(reopened)).toEqual([1, 2, 3, 4, 5, 6].map((id) => ({ id, name: `name-${id}`, dt: id === 4 || id === 5 ? "b" : "a" })));
      expect(await rows(reopened, col("dt").eq("b"))).toEqual([
        { id: 4, name: "name-4", dt: "b" },
        { id: 5, name: "name-5", dt: "b" },
      ]);
      expect(await rows(reopened, col("id").gt(5))).toEqual([{ id: 6, name: "name-6", dt: "a" }]);
      // time travel to the first snapshot
      const plan1 = await reopened.newScan({ snapshotId: 1 }).plan();
      expect((await reopened.newRead().toArrow(plan1.splits)).numRows).toBe(3);

      // the CLI takes s3:// locations (credentials and endpoint from the AWS_* environment)
      const out: string[] = [];
      const err: string[] = [];
      expect(await main(["inspect", table.location], { out: (l) => out.push(l), err: (l) => err.push(l) })).toBe(0);
      expect(err).toEqual([]);
      expect(out[0]).toBe(`table db.t at ${table.location}`);
      expect(out).toContain("partition keys: dt");
      expect(out.filter((l) => /^ {4}data-.*\.parquet/.test(l))).toHaveLength(3);

      const io = testS3FileIO();
      expect((await listFilesUnder(io, `${table.location}/snapshot`))).toEqual(["LATEST", "snapshot-1", "snapshot-2", "snapshot-3"]);
      expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(2);
      expect((await listFilesUnder(io, `${table.location}/snapshot`))).toEqual(["EARLIEST", "LATEST", "snapshot-3"]);
      expect((await table.listSnapshots()).map((s) => s.id)).toEqual([3]);
      // the data is all still there (appends only add files)
      expect((await rows(table)).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
      await io.deleteDirectory(warehouse);
    });

    it("orphan files are found by listing s3:// and removed; dropping the table removes every key", async () => {
      const warehouse = freshS3Root("orphans");
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const table = await catalog.createTable("db.t", {
        fields: [
          { name: "id", type: "BIGINT" },
          { name: "name", type: "STRING" },
          { name: "dt", type: "STRING" },
        ],
        partitionKeys: ["dt"],
      });
      await writeAndCommit(table, "u", batch([1, 2], "a"), 1);
      const io = testS3FileIO();
      // an interrupted writer's leftover data file and manifest
      await io.writeFile(`${table.location}/dt=a/bucket-0/data-00000000-0000-0000-0000-000000000000-0.parquet`, "orphan");
      await io.writeFile(`${table.location}/manifest/manifest-00000000-0000-0000-0000-000000000000-0`, "orphan manifest");
      const before = await listFilesUnder(io, table.location);
      const dry = await table.removeOrphanFiles({ olderThanMs: 0, dryRun: true });
      expect([...dry.deleted].sort()).toEqual([
        "dt=a/bucket-0/data-00000000-0000-0000-0000-000000000000-0.parquet",
        "manifest/manifest-00000000-0000-0000-0000-000000000000-0",
      ]);
      expect(dry.bytes).toBe(6 + 15);
      expect(await listFilesUnder(io, table.location)).toEqual(before);
      const done = await table.removeOrphanFiles({ olderThanMs: 0 });
      expect([...done.deleted].sort()).toEqual([...dry.deleted].sort());
      expect(await listFilesUnder(io, table.location)).toEqual(before.filter((k) => !k.includes("00000000-0000")));
      expect((await rows(table)).map((r) => r.id)).toEqual([1, 2]);
      // the default age limit (one day) keeps fresh files: nothing more to delete either way
      expect((await table.removeOrphanFiles()).deleted).toEqual([]);

      await catalog.dropTable("db.t");
      expect(await listFilesUnder(io, table.location)).toEqual([]);
      expect(await catalog.listTables("db")).toEqual([]);
      await catalog.dropDatabase("db");
      expect(await catalog.listDatabases()).toEqual([]);
      await io.deleteDirectory(warehouse);
    });

    it("8 concurrent committers (separate clients): one winner per snapshot id, contiguous chain, no lost commit", async () => {
      const warehouse = freshS3Root("race");
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const created = await catalog.createTable("db.t", {
        fields: [
          { name: "id", type: "BIGINT" },
          { name: "name", type: "STRING" },
          { name: "dt", type: "STRING" },
        ],
      });
      const COMMITTERS = 8;
      // each committer has its own Table and S3FileIO, like separate processes; the fetch wrapper only
      // counts the conditional snapshot publishes and the server's answers
      const publishes = { won: 0, refused: 0 };
      const counting: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        const headers = (init?.headers ?? {}) as Record<string, string>;
        if (init?.method === "PUT" && headers["if-none-match"] === "*" && /\/snapshot\/snapshot-\d+$/.test(new URL(String(input)).pathname)) {
          if (res.status === 200) publishes.won++;
          else if (res.status === 412) publishes.refused++;
        }
        return res;
      };
      const tables = await Promise.all(
        Array.from({ length: COMMITTERS }, () => Table.open(created.location, { fileIO: new S3FileIO({ fetch: counting }) })),
      );
      const snapshotIds = await Promise.all(
        tables.map((t, i) => writeAndCommit(t, `committer-${i}`, batch(range(i * 10, i * 10 + 3), "x"), 1)),
      );
      expect([...snapshotIds].sort((a, b) => a! - b!)).toEqual(range(1, COMMITTERS + 1));
      const snapshots = await created.listSnapshots();
      expect(snapshots.map((s) => s.id)).toEqual(range(1, COMMITTERS + 1));
      // every snapshot belongs to exactly one committer, and each committer's snapshot is the one it was told
      const users = snapshots.map((s) => s.commitUser);
      expect(new Set(users).size).toBe(COMMITTERS);
      for (let i = 0; i < COMMITTERS; i++) {
        expect(snapshots.find((s) => s.id === snapshotIds[i])?.commitUser).toBe(`committer-${i}`);
      }
      expect((await rows(created)).map((r) => r.id)).toEqual(range(0, COMMITTERS).flatMap((i) => range(i * 10, i * 10 + 3)));
      // the server accepted exactly one publish per snapshot id; every other attempt got 412
      expect(publishes.won).toBe(COMMITTERS);
      console.log(`s3 commit race: ${publishes.won} snapshot publishes won, ${publishes.refused} refused with 412`);
      await testS3FileIO().deleteDirectory(warehouse);
    });

    it("real-time append: commit with progress, crash, recover from the committed offsets", async () => {
      const warehouse = freshS3Root("rt");
      const table = await makeTable({}, { partitioned: true, warehouse });
      const ctx = await RealtimeContext.create();
      const w = await table.newWrite({ commitUser: "u", realtime: ctx });
      await w.write(rtBatch(range(0, 10), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
      await w.write(rtBatch(range(0, 4), { dt: "b", ids: range(100, 104) }), { partition: { dt: "b" }, bucket: 1 });
      expect(await readIds(table, { ctx })).toEqual([...range(0, 10), ...range(100, 104)]);
      const p = await w.prepareCommitWithProgress(1);
      const snapshotId = await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
      expect(snapshotId).toBe(1);
      const snapshot = await table.latestSnapshot();
      expect(snapshot!.properties!["realtime.offsets"]).toMatch(/metadata\/[^/]+\.offsets$/);
      await w.write(rtBatch(range(10, 12), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 }); // lost on "crash"

      // crash: drop ctx and writer; a new process opens the table from s3:// and recovers
      const recovered = await Table.open(table.location);
      expect(await RealtimeSnapshotOffsets.readAllOffsets(recovered)).toEqual([
        { partition: { dt: "a" }, bucket: 0, offset: 10n },
        { partition: { dt: "b" }, bucket: 1, offset: 4n },
      ]);
      const ctx2 = await RealtimeContext.create();
      const w2 = await recovered.newWrite({ commitUser: "u2", realtime: ctx2 });
      await expectCode(w2.write(rtBatch([9, 10], { dt: "a" }), { partition: { dt: "a" }, bucket: 0 }), "OFFSET_INVALID");
      await w2.write(rtBatch(range(10, 13), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
      expect(await readIds(recovered, { ctx: ctx2 })).toEqual([...range(0, 13), ...range(100, 104)]);
      const p2 = await w2.prepareCommitWithProgress(2);
      expect(p2[0]!.offsetRange).toEqual({ begin: 10n, end: 13n });
      expect(await recovered.newCommit({ commitUser: "u2" }).commitWithProgress(p2, 2)).toBe(2);
      await w2.close();
      expect(await readIds(recovered)).toEqual([...range(0, 13), ...range(100, 104)]);
      expect(await RealtimeSnapshotOffsets.readOffset(recovered, undefined, { partition: { dt: "a" }, bucket: 0 })).toBe(13n);
      await testS3FileIO().deleteDirectory(warehouse);
    });
  });
}
