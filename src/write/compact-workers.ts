// Explicit compaction spread by partition-bucket over the calling thread and worker threads
// (`compaction.workers` = N > 1: N - 1 workers; Node-specific: node:worker_threads, which Deno and
// Bun implement too). Started and loaded as the page worker is (src/format/page-worker.ts): the
// caller imports this module through a computed specifier (table-write.ts), so browser and edge
// bundles never contain it, and each worker runs a small eval'd script that imports this same
// module (its own URL) and serves compactions.
//
// Each worker rebuilds the table's FileIO from `FileIO.sharedOptions()` (local file system, S3; a
// memory file system cannot be shared: the caller compacts in-process there), opens the table
// itself from its location and then, for each partition-bucket it is given, runs exactly the
// in-process path on a TableWrite of its own (`compactOne`: `compact` with one worker, then
// `prepareCommit`) and sends back the CommitMessages in Java's binary layout
// (CommitMessage.serializeList). The calling thread runs `compactOne` too, from the first moment
// (workers take a few hundred ms to load the library): every thread takes the next partition-bucket
// when it is free. The results are kept in partition-bucket order and nothing is committed here: the
// caller's prepareCommit returns them as it returns in-process compactions. Workers start no page
// worker of their own (they are the parallelism) and are terminated once the compaction is done;
// those still loading when the calling thread finds nothing left to do are not waited for.
//
// Failures: every file is announced before it is written (a worker posts its path; the calling
// thread writes through a recording view of the FileIO). When a partition-bucket fails (a worker's
// PaimonError travels back by code and message and is thrown again here) or a worker dies while it
// holds one, no further partition-buckets are handed out, the ones in flight are awaited, every
// worker is terminated and every announced file is deleted before the error is thrown: nothing is
// left behind and nothing reaches a commit. A worker that cannot start (this module cannot be
// imported there, e.g. the TypeScript sources under Node) leaves its share to the other threads.

import { Worker } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError, type PaimonErrorCode } from "../error.js";
import { deleteFiles, type FileContent, type FileIO, type SharedFileIOOptions } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { setCompressionWorker } from "../format/parquet-writer.js";
import { setDecompressionWorker } from "../format/parquet-reader.js";
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

/** Partition-buckets compacted in worker threads over this process's life (tests check the workers ran). */
export let workerCompactions = 0;

/**
 * For tests: whether the calling thread compacts partition-buckets too while workers start and run
 * (the default). Off, every partition-bucket goes to a worker (the thread waits for them to start).
 */
export const callerCompacts = { enabled: true };

/**
 * Compacts `tasks` on `threads` threads: the calling one and `threads - 1` worker threads, each
 * taking the next partition-bucket when it is free (the calling thread starts at once, the workers
 * once they have loaded). Their CommitMessages in task order, or null when the table's FileIO
 * cannot be shared (compact in-process then). Throws the first partition-bucket's error, after
 * deleting every file written for any of them.
 */
export async function compactInWorkers(table: FileStoreTable, tasks: readonly CompactionTask[], options: { threads: number; full: boolean | undefined; commitUser: string }): Promise<CommitMessage[] | null> {
  const shared = table.fileIO.sharedOptions?.();
  if (!shared || tasks.length === 0) return null;
  const data: WorkerData = { module: import.meta.url, location: table.location, fileIO: shared, commitUser: options.commitUser, full: options.full };
  const written = new Set<string>();
  const results: CommitMessage[][] = new Array(tasks.length);
  const version = CommitMessage.currentVersion();
  let next = 0;
  let failure: Error | undefined;
  const pool: Worker[] = [];
  /** Ends the workers that hold no partition-bucket (started or not) once there is nothing left to hand out. */
  const idle = new Set<() => void>();

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
        idle.delete(finish);
        resolve();
      };
      idle.add(finish);
      const take = () => {
        if (failure || next >= tasks.length) return finish();
        current = next++;
        idle.delete(finish);
        worker.postMessage({ task: current, partitionRow: tasks[current].partitionRow, bucket: tasks[current].bucket });
      };
      worker.on("message", (m: FromWorker) => {
        if (done) return;
        if ("wrote" in m) written.add(m.wrote);
        else if ("ready" in m) {
          ready = true;
          take();
        } else if ("failed" in m) finish(); // did not start: the other threads do its share
        else if ("bytes" in m) {
          results[m.task] = CommitMessage.deserializeList(version, m.bytes).map((c) => c.withPartitionFields(table.partitionFields));
          current = -1;
          workerCompactions++;
          take();
        } else if ("error" in m) {
          failure ??= m.error.code ? new PaimonError(m.error.code, m.error.message) : Object.assign(new Error(m.error.message), { name: m.error.name });
          finish();
        }
      });
      const died = (why: string, cause?: unknown) => {
        if (done) return;
        if (ready && current >= 0) failure ??= new PaimonError("IO_ERROR", `the compaction worker of table ${table.identifier} (bucket ${tasks[current].bucket}) ${why}`, { cause });
        finish(); // before it started or between partition-buckets: the other threads do its share
      };
      worker.on("error", (e) => died(`failed: ${e?.message ?? e}`, e));
      worker.on("exit", (code) => died(`exited (code ${code})`));
    });

  /** The calling thread's share: the same path as a worker's, on a view of the table whose writes are recorded. */
  const here = async (): Promise<void> => {
    const { Table } = await import("../table/table.js");
    const view = new Table(announcingWrites(table.fileIO, (path) => written.add(path)), table.identifier, table.location, table.schema);
    while (!failure && next < tasks.length) {
      const i = next++;
      try {
        results[i] = await compactOne(view, tasks[i], options);
      } catch (e) {
        failure ??= e as Error;
      }
    }
  };

  try {
    const workers = Array.from({ length: Math.min(options.threads - 1, tasks.length) }, run);
    if (callerCompacts.enabled || workers.length === 0) {
      await here();
      for (const end of [...idle]) end(); // workers still starting are not waited for
    }
    await Promise.all(workers);
    if (!failure && next < tasks.length) await here(); // no worker started
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  if (failure || results.some((r) => r === undefined)) {
    await deleteFiles(table.fileIO, [...written]);
    throw failure ?? new PaimonError("IO_ERROR", `the compaction of table ${table.identifier} stopped before compacting every bucket`);
  }
  return results.flat();
}

/** One partition-bucket compacted by a TableWrite of its own on `table`: its CommitMessages. */
async function compactOne(table: import("../table/table.js").Table, task: CompactionTask, options: { full: boolean | undefined; commitUser: string }): Promise<CommitMessage[]> {
  const fields = table.partitionFields;
  const values = fromBinaryRow(task.partitionRow.subarray(4), fields.map((f) => f.type));
  const write = await table.newWrite({ commitUser: options.commitUser });
  try {
    await write.compact({ partition: Object.fromEntries(fields.map((f, i) => [f.name, values[i]])), bucket: task.bucket, full: options.full, workers: 1 });
    return await write.prepareCommit();
  } finally {
    await write.close();
  }
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
    // the workers are this compaction's parallelism: no page worker thread each
    setCompressionWorker(false);
    setDecompressionWorker(false);
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
  port.on("message", async (m: CompactionTask & { task: number }) => {
    written = [];
    try {
      port.postMessage({ task: m.task, bytes: CommitMessage.serializeList(await compactOne(table, m, data)) });
    } catch (e) {
      await deleteFiles(base, written).catch(() => undefined); // the parent deletes them too
      const err = e as Error;
      port.postMessage({ task: m.task, error: { code: e instanceof PaimonError ? e.code : undefined, name: err?.name ?? "Error", message: String(err?.message ?? e) } });
    }
  });
  port.postMessage({ ready: true });
}
