// Explicit compaction spread over worker threads by partition-bucket (`compaction.workers` > 1;
// Node-specific: node:worker_threads, which Deno and Bun implement too). Started and loaded as the
// page worker is (src/format/page-worker.ts): the caller imports this module through a computed
// specifier (table-write.ts), so browser and edge bundles never contain it, and each worker runs a
// small eval'd script that imports this same module (its own URL) and serves compactions.
//
// Each worker rebuilds the table's FileIO from `FileIO.sharedOptions()` (local file system, S3; a
// memory file system cannot be shared: the caller compacts in-process there), opens the table
// itself from its location and then, for each partition-bucket it is given, runs exactly the
// in-process path on a TableWrite of its own (`compact` with one worker, then `prepareCommit`) and
// sends back the CommitMessages in Java's binary layout (CommitMessage.serializeList). The parent
// hands out the partition-buckets one at a time as workers become free, keeps the results in the
// order of the partition-buckets and commits nothing itself: the caller's prepareCommit returns them
// as it returns in-process compactions.
//
// Failures: a worker announces every file before writing it. When a partition-bucket fails in a
// worker (its PaimonError travels back by code and message and is thrown again here) or a worker
// dies, no further partition-buckets are handed out, the ones in flight are awaited, every worker is
// terminated and every file any worker announced is deleted before the error is thrown: nothing is
// left behind and nothing reaches a commit. Where no worker starts (this module cannot be imported
// there, e.g. the TypeScript sources under Node), `compactInWorkers` returns null and the caller
// compacts in-process. Workers are terminated once the compaction is done either way.

import { Worker } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError, type PaimonErrorCode } from "../error.js";
import { deleteFiles, type FileContent, type FileIO, type SharedFileIOOptions } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { allowPageWorker } from "../format/page-worker-load.js";
import type { FileStoreTable } from "../table/file-store-table.js";

/** One partition-bucket to compact. */
export interface CompactionTask {
  /** The partition as a serialized BinaryRow (as manifest entries hold it). */
  partitionRow: Uint8Array;
  bucket: number;
}

interface WorkerData {
  module: string;
  location: string;
  fileIO: SharedFileIOOptions;
  commitUser: string;
  full: boolean | undefined;
}

type FromWorker =
  | { ready: true }
  | { failed: string }
  | { wrote: string }
  | { task: number; bytes: Uint8Array }
  | { task: number; error: { code?: PaimonErrorCode; name: string; message: string } };

const WORKER_SOURCE = `
(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  let serve;
  try {
    serve = (await import(workerData.module)).serveCompactions;
  } catch (e) {
    parentPort.postMessage({ failed: String((e && e.message) || e) });
    return;
  }
  await serve(parentPort, workerData);
})();
`;

/** Partition-buckets compacted in workers over this process's life (tests check the workers ran). */
export let workerCompactions = 0;

/**
 * Compacts `tasks` in up to `workers` worker threads: their CommitMessages in task order, or null
 * when the table's FileIO cannot be shared or no worker could start (compact in-process then).
 * Throws the first partition-bucket's error, after deleting every file the workers wrote.
 */
export async function compactInWorkers(table: FileStoreTable, tasks: readonly CompactionTask[], options: { workers: number; full: boolean | undefined; commitUser: string }): Promise<CommitMessage[] | null> {
  const shared = table.fileIO.sharedOptions?.();
  if (!shared || tasks.length === 0) return null;
  const data: WorkerData = { module: import.meta.url, location: table.location, fileIO: shared, commitUser: options.commitUser, full: options.full };
  const written = new Set<string>();
  const results: Uint8Array[] = new Array(tasks.length);
  let next = 0;
  let started = 0;
  let failure: Error | undefined;
  const pool: Worker[] = [];

  /** Runs one worker until the queue is empty or something failed. */
  const run = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: data });
      pool.push(worker);
      let ready = false;
      let current = -1;
      let done = false;
      const finish = () => {
        done = true;
        resolve();
      };
      const fail = (e: Error) => {
        failure ??= e;
        finish();
      };
      const take = () => {
        if (failure || next >= tasks.length) return finish();
        current = next++;
        worker.postMessage({ task: current, partitionRow: tasks[current].partitionRow, bucket: tasks[current].bucket });
      };
      worker.on("message", (m: FromWorker) => {
        if ("wrote" in m) written.add(m.wrote);
        else if ("ready" in m) {
          ready = true;
          started++;
          take();
        } else if ("failed" in m) finish();
        else if ("bytes" in m) {
          results[m.task] = m.bytes;
          current = -1;
          workerCompactions++;
          take();
        } else if ("error" in m) {
          const e = m.error.code ? new PaimonError(m.error.code, m.error.message) : Object.assign(new Error(m.error.message), { name: m.error.name });
          current = -1;
          fail(e);
        }
      });
      const died = (why: string, cause?: unknown) => {
        if (done) return;
        if (!ready) return finish(); // did not start
        const t = current >= 0 ? tasks[current] : undefined;
        fail(new PaimonError("IO_ERROR", `the compaction worker of table ${table.identifier}${t ? ` (bucket ${t.bucket})` : ""} ${why}`, { cause }));
      };
      worker.on("error", (e) => died(`failed: ${e?.message ?? e}`, e));
      worker.on("exit", (code) => died(`exited (code ${code})`));
    });

  try {
    await Promise.all(Array.from({ length: Math.min(options.workers, tasks.length) }, run));
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  if (failure) {
    await deleteFiles(table.fileIO, [...written]);
    throw failure;
  }
  if (started === 0) return null;
  if (next < tasks.length || results.some((r) => r === undefined)) {
    // workers that started all died before the queue was done without an error: cannot happen, but never commit part of it
    await deleteFiles(table.fileIO, [...written]);
    throw new PaimonError("IO_ERROR", `the compaction workers of table ${table.identifier} stopped before compacting every bucket`);
  }
  const version = CommitMessage.currentVersion();
  return results.flatMap((bytes) => CommitMessage.deserializeList(version, bytes).map((m) => m.withPartitionFields(table.partitionFields)));
}

/** A view of `io` that calls `wrote` with the path of every file before writing it. */
function announcingWrites(io: FileIO, wrote: (path: string) => void): FileIO {
  return new Proxy(io, {
    get(target, prop) {
      if (prop === "writeFile" || prop === "writeFileAtomicNoReplace") {
        return (path: string, content: FileContent) => {
          wrote(path);
          return target[prop](path, content);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The FileIO `options` describe, built in this thread. */
async function sharedFileIO(options: SharedFileIOOptions): Promise<FileIO> {
  if (options.kind === "local") return new (await import("../fs/local-file-io.js")).LocalFileIO(options.options);
  return new (await import("../fs/s3-file-io.js")).S3FileIO(options.options);
}

/** The worker's side: opens the table, then compacts each partition-bucket the parent sends, one at a time. */
export async function serveCompactions(port: MessagePort, data: WorkerData): Promise<void> {
  let table: import("../table/table.js").Table;
  let base: FileIO;
  let written: string[] = [];
  try {
    allowPageWorker(false); // the workers are this compaction's parallelism: no page worker thread each
    base = await sharedFileIO(data.fileIO);
    const io = announcingWrites(base, (path) => {
      written.push(path);
      port.postMessage({ wrote: path });
    });
    table = await (await import("../table/table.js")).Table.open(data.location, { fileIO: io });
  } catch (e) {
    port.postMessage({ failed: String((e as Error)?.message ?? e) });
    return;
  }
  const fields = table.partitionFields;
  const types = fields.map((f) => f.type);
  port.on("message", async (m: { task: number; partitionRow: Uint8Array; bucket: number }) => {
    written = [];
    let write: import("./table-write.js").TableWrite | undefined;
    try {
      const values = fromBinaryRow(m.partitionRow.subarray(4), types);
      write = await table.newWrite({ commitUser: data.commitUser });
      await write.compact({ partition: Object.fromEntries(fields.map((f, i) => [f.name, values[i]])), bucket: m.bucket, full: data.full, workers: 1 });
      const bytes = CommitMessage.serializeList(await write.prepareCommit());
      port.postMessage({ task: m.task, bytes });
    } catch (e) {
      await deleteFiles(base, written).catch(() => undefined); // the parent deletes them too
      const err = e as Error;
      port.postMessage({ task: m.task, error: { code: e instanceof PaimonError ? e.code : undefined, name: err?.name ?? "Error", message: String(err?.message ?? e) } });
    } finally {
      await write?.close();
    }
  });
  port.postMessage({ ready: true });
}
