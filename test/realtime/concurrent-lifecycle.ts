// One harness for the concurrent real-time lifecycle tests (append: concurrent.test.ts; PK
// modes: pk-parity.test.ts): a writer per bucket, a preparer, a committer, a refresher and two
// readers interleaved with seeded async scheduling, then a final checkpoint.
import { expect } from "vitest";
import type { RealtimeCommitProgress, RealtimeContext, TableWrite } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { rng } from "../pk/helpers.js";
import { readRows, tempDir } from "./helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ConcurrentLifecycle<E> {
  table: Table;
  ctx: RealtimeContext;
  buckets: number[];
  seed: number;
  /** Writes one round of `bucket` at `offsets` (ascending, with gaps); returns the events written, in order. */
  write(w: TableWrite, bucket: number, offsets: number[], random: () => number): Promise<E[]>;
  /**
   * Judges one union read: `before` / `after` are the counts of events written per bucket when
   * the read started / ended.
   */
  checkRead(rows: Array<Record<string, unknown>>, written: ReadonlyMap<number, readonly E[]>, before: number[], after: number[]): void;
}

/**
 * Runs the lifecycle (100 rounds per writer, seals now and then) and commits what is left; after
 * it the context holds no rows. Returns the events written per bucket.
 */
export async function runConcurrentLifecycle<E>(run: ConcurrentLifecycle<E>): Promise<Map<number, E[]>> {
  const { table, ctx, buckets } = run;
  const tmp = tempDir();
  const writers = new Map<number, TableWrite>();
  for (const b of buckets) writers.set(b, await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp }));
  const written = new Map<number, E[]>(buckets.map((b) => [b, []]));
  const outstanding: RealtimeCommitProgress[] = [];
  const committedSnapshots: number[] = [];
  let prepareId = 0;
  let commitId = 0;
  let stop = false;
  let reads = 0;
  const random = rng(run.seed);

  const writer = async (bucket: number) => {
    let offset = 0;
    const w = writers.get(bucket)!;
    for (let round = 0; round < 100; round++) {
      const n = 1 + Math.floor(random() * 20);
      const offsets: number[] = [];
      for (let i = 0; i < n; i++) {
        offset += 1 + (random() < 0.2 ? Math.floor(random() * 5) : 0);
        offsets.push(offset);
      }
      written.get(bucket)!.push(...(await run.write(w, bucket, offsets, random)));
      if (random() < 0.1) await w.seal();
      await sleep(random() < 0.5 ? 0 : 1);
    }
  };
  const preparer = async () => {
    while (!stop) {
      await sleep(3);
      for (const w of writers.values()) outstanding.push(...(await w.prepareCommitWithProgress(++prepareId)));
    }
  };
  const committer = async () => {
    const commit = table.newCommit({ commitUser: "u" });
    while (!stop || outstanding.length > 0) {
      await sleep(5);
      if (outstanding.length === 0) continue;
      committedSnapshots.push(await commit.commitWithProgress(outstanding.splice(0), ++commitId));
    }
  };
  const refresher = async () => {
    while (!stop) {
      await sleep(4);
      const last = committedSnapshots[committedSnapshots.length - 1];
      if (last !== undefined) await writers.get(buckets[0]!)!.refreshCommittedSnapshot(last);
    }
  };
  const reader = async () => {
    while (!stop) {
      const before = buckets.map((b) => written.get(b)!.length);
      const rows = await readRows(table, { ctx });
      const after = buckets.map((b) => written.get(b)!.length);
      run.checkRead(rows, written, before, after);
      reads++;
      await sleep(1);
    }
  };
  const writersDone = Promise.all(buckets.map((b) => writer(b)));
  const background = [preparer(), committer(), refresher(), reader(), reader()];
  await writersDone;
  stop = true;
  await Promise.all(background);
  // final checkpoint
  for (const w of writers.values()) outstanding.push(...(await w.prepareCommitWithProgress(++prepareId)));
  if (outstanding.length > 0) committedSnapshots.push(await table.newCommit({ commitUser: "u" }).commitWithProgress(outstanding.splice(0), ++commitId));
  await writers.get(buckets[0]!)!.refreshCommittedSnapshot(committedSnapshots[committedSnapshots.length - 1]!);
  for (const w of writers.values()) await w.close();
  expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
  expect(reads).toBeGreaterThan(3);
  expect(committedSnapshots.length).toBeGreaterThan(1);
  return written;
}
