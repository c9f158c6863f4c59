/**
 * Fault injection between us and a real S3 server (Ceph RGW): a seeded proxy (test/support/
 * fault-proxy.ts) delays requests, drops connections before and after the server acted, and answers
 * 500/503. Every operation must either succeed or fail with a PaimonError; the table, read through a
 * fault-free client, must hold exactly what was committed; recovery (filterAndCommit, real-time
 * offsets) must keep every row exactly once.
 */
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog, PaimonError, RealtimeContext, RealtimeSnapshotOffsets, Table } from "../../src/index.js";
import { S3FileIO } from "../../src/fs/s3-file-io.js";
import type { CommitMessage } from "../../src/index.js";
import { expectCode, makeTable, range, readIds, rtBatch } from "../realtime/helpers.js";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy.js";
import { S3_SKIP_MESSAGE, freshS3Root, s3TestBucket, testS3FileIO } from "./s3-server.js";

const SLOW = 240_000;
const RATES = { delay: 0.1, maxDelayMs: 30, dropBefore: 0.02, dropAfter: 0.025, errorBefore: 0.03, errorAfter: 0.025 };

/** A client through the proxy that gives up after one retry, so injected faults do surface as failures. */
function faultyIO(proxy: FaultProxy): S3FileIO {
  return new S3FileIO({ endpoint: proxy.endpoint, maxRetries: 1, retryBaseDelayMs: 5, requestTimeoutMs: 10_000 });
}

function batch(ids: number[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    name: arrow.vectorFromArray(ids.map((i) => `name-${i}`), new arrow.Utf8()).data[0],
  });
}

/** A fresh s3:// warehouse with table db.t (id BIGINT, name STRING), created without faults. */
async function idNameTable(label: string, options: Record<string, string | number> = {}): Promise<{ warehouse: string; table: Table }> {
  const warehouse = freshS3Root(label);
  const catalog = await Catalog.open(warehouse);
  await catalog.createDatabase("db");
  const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }], options });
  return { warehouse, table };
}

/** Runs `op`; a failure must be a PaimonError (anything else fails the test). Returns whether it succeeded. */
async function attempt<T>(op: () => Promise<T>, failures: string[]): Promise<{ ok: true; value: T } | { ok: false }> {
  try {
    return { ok: true, value: await op() };
  } catch (e) {
    if (!(e instanceof PaimonError)) throw new Error(`a non-PaimonError escaped: ${String(e)}`, { cause: e });
    failures.push(e.code);
    return { ok: false };
  }
}

/** Retries `op` (each failure a PaimonError) until it succeeds; at most 50 attempts. */
async function eventually<T>(op: () => Promise<T>, failures: string[]): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const r = await attempt(op, failures);
    if (r.ok) return r.value;
  }
  throw new Error("an operation kept failing through the fault proxy");
}

if (s3TestBucket === null) {
  describe.skip(`S3 fault injection — ${S3_SKIP_MESSAGE}`, () => {
    it("needs an S3 server", () => undefined);
  });
} else {
  describe("S3 fault injection (proxy in front of Ceph RGW)", () => {
    let proxy: FaultProxy;
    beforeAll(async () => {
      proxy = await startFaultProxy(process.env.AWS_ENDPOINT_URL!, RATES, 20261202);
    });
    afterAll(async () => {
      console.log(`fault proxy: ${JSON.stringify(proxy.counts)}`);
      await proxy.close();
    });

    it("without faults the proxy is transparent; with every request failing an operation is an IO_ERROR and nothing changes", async () => {
      const { warehouse, table } = await idNameTable("faults-basic");
      proxy.setFaulty(false);
      const viaProxy = await Table.open(table.location, { fileIO: faultyIO(proxy) });
      const w = await viaProxy.newWrite({ commitUser: "u" });
      await w.write(batch([1, 2]));
      expect(await viaProxy.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(1), 1)).toBe(1);
      await w.close();
      expect(await readIds(viaProxy)).toEqual([1, 2]);

      const broken = await startFaultProxy(process.env.AWS_ENDPOINT_URL!, { errorBefore: 1 }, 1);
      try {
        const io = new S3FileIO({ endpoint: broken.endpoint, maxRetries: 2, retryBaseDelayMs: 1 });
        const err = await expectCode(Table.open(table.location, { fileIO: io }), "IO_ERROR");
        expect(err.message).toMatch(/HTTP 50[03] (InternalError|SlowDown)/);
        const w2 = await table.newWrite({ commitUser: "v" });
        await w2.write(batch([3]));
        const messages = await w2.prepareCommit(2);
        await w2.close();
        const onBroken = new Table(io, table.identifier, table.location, table.schema);
        await expectCode(onBroken.newCommit({ commitUser: "v" }).commit(messages, 2), "IO_ERROR");
        expect(broken.counts.erroredBefore).toBe(broken.counts.requests);
      } finally {
        await broken.close();
      }
      expect((await table.listSnapshots()).map((s) => s.id)).toEqual([1]);
      expect(await readIds(table)).toEqual([1, 2]);
      proxy.setFaulty(true);
      await testS3FileIO().deleteDirectory(warehouse);
    }, SLOW);

    it("batch commits, reads, expiry and orphan removal through faults: success or PaimonError, never a corrupt table, recovery commits each round once", async () => {
      const { warehouse, table: created } = await idNameTable("faults-batch", { bucket: 2, "bucket-key": "id" });
      const io = faultyIO(proxy);
      const failures: string[] = [];
      const table = await eventually(() => Table.open(created.location, { fileIO: io }), failures);
      const ROUNDS = 8;
      const committedRounds: number[] = [];
      let commits = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        const ids = range(round * 100, round * 100 + 7);
        // writing: a failed writer's files are orphans, the round is written again
        const messages: CommitMessage[] = await eventually(async () => {
          const w = await table.newWrite({ commitUser: "u" });
          try {
            await w.write(batch(ids));
            return await w.prepareCommit(round);
          } finally {
            await w.close().catch(() => undefined);
          }
        }, failures);
        const committed = await attempt(() => table.newCommit({ commitUser: "u" }).commit(messages, round), failures);
        if (committed.ok) {
          commits++;
        } else {
          // the commit may or may not have landed: Java's recovery path commits it only if it did not
          await eventually(() => table.newCommit({ commitUser: "u" }).filterAndCommit(new Map([[round, messages]])), failures);
        }
        committedRounds.push(round);
        const expected = committedRounds.flatMap((r) => range(r * 100, r * 100 + 7));
        // a read through the faults returns exactly the committed rows, or fails with a PaimonError
        const read = await attempt(() => readIds(table), failures);
        if (read.ok) expect(read.value).toEqual(expected);
        if (round % 4 === 0) await attempt(() => table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 2, retainMin: 1, olderThanMs: 0 }), failures);
        // the truth, through a fault-free client
        expect(await readIds(created)).toEqual(expected);
      }
      const snapshots = await created.listSnapshots();
      // exactly one snapshot per round (expiry keeps the newest), identifiers contiguous to the last round
      expect(snapshots.at(-1)!.commitIdentifier).toBe(BigInt(ROUNDS));
      expect(snapshots.map((s) => Number(s.commitIdentifier))).toEqual(range(ROUNDS - snapshots.length + 1, ROUNDS + 1));
      await eventually(() => table.removeOrphanFiles({ olderThanMs: 0 }), failures);
      expect(await readIds(created)).toEqual(range(1, ROUNDS + 1).flatMap((r) => range(r * 100, r * 100 + 7)));
      console.log(`faults (batch): ${commits}/${ROUNDS} first commits succeeded; ${failures.length} operations failed: ${[...new Set(failures)].join(", ")}`);
      expect(failures.filter((c) => c !== "IO_ERROR")).toEqual([]);
      await testS3FileIO().deleteDirectory(warehouse);
    }, SLOW);

    it("real-time append through faults: commitWithProgress, crash on any failure, recover from the committed offsets; every offset lands exactly once", async () => {
      const warehouse = freshS3Root("faults-rt");
      const created = await makeTable({}, { partitioned: true, warehouse });
      const io = faultyIO(proxy);
      const failures: string[] = [];
      const TOTAL = 30;
      const CHUNK = 5;
      const buckets = [0, 1];
      const source = (bucket: number, offsets: number[]) => rtBatch(offsets, { dt: "a", ids: offsets.map((o) => bucket * 1000 + o) });
      let identifier = 0;
      let incarnation = 0;
      let writer: Awaited<ReturnType<Table["newWrite"]>> | null = null;
      let table: Table | null = null;
      const next = new Map<number, number>();
      let crashes = 0;
      let done = false;
      for (let step = 0; step < 300 && !done; step++) {
        const r = await attempt(async () => {
          if (writer === null) {
            // a new process: open the table, read the committed offsets, resume the source there
            incarnation++;
            table = await Table.open(created.location, { fileIO: io });
            const offsets = await RealtimeSnapshotOffsets.readAllOffsets(table);
            for (const b of buckets) next.set(b, Number(offsets.find((o) => o.bucket === b)?.offset ?? 0n));
            writer = await table.newWrite({ commitUser: `u${incarnation}`, realtime: await RealtimeContext.create() });
          }
          for (const b of buckets) {
            const from = next.get(b)!;
            if (from < TOTAL) {
              await writer.write(source(b, range(from, Math.min(TOTAL, from + CHUNK))), { partition: { dt: "a" }, bucket: b });
              next.set(b, Math.min(TOTAL, from + CHUNK));
            }
          }
          identifier++;
          const progress = await writer.prepareCommitWithProgress(identifier);
          await table!.newCommit({ commitUser: `u${incarnation}` }).commitWithProgress(progress, identifier);
          return buckets.every((b) => next.get(b) === TOTAL);
        }, failures);
        if (r.ok) {
          done = r.value;
        } else {
          crashes++;
          await (writer as { close(): Promise<void> } | null)?.close().catch(() => undefined);
          writer = null;
        }
      }
      expect(done).toBe(true);
      await (writer as { close(): Promise<void> } | null)?.close().catch(() => undefined);
      const expected = buckets.flatMap((b) => range(0, TOTAL).map((o) => b * 1000 + o)).sort((a, b) => a - b);
      const fresh = await Table.open(created.location);
      expect(await readIds(fresh)).toEqual(expected);
      expect(await RealtimeSnapshotOffsets.readAllOffsets(fresh)).toEqual(buckets.map((b) => ({ partition: { dt: "a" }, bucket: b, offset: BigInt(TOTAL) })));
      console.log(`faults (real-time): ${identifier} commit attempts, ${crashes} crashes/recoveries over ${incarnation} incarnations; failures: ${[...new Set(failures)].join(", ")}`);
      // an I/O failure, or the writer's context refusing further use after one (it must be recovered)
      expect(failures.filter((c) => c !== "IO_ERROR" && c !== "CONTEXT_INVALIDATED")).toEqual([]);
      await testS3FileIO().deleteDirectory(warehouse);
    }, SLOW);
  });
}
