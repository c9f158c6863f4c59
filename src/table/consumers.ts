// Consumers (`<table>/consumer/consumer-<id>`, JSON `{"nextSnapshot": N}`): the progress of
// streaming readers (Flink `consumer-id`), kept by Java Paimon's ConsumerManager. A consumer's next
// snapshot must survive snapshot expiry, or its job fails on restart with the snapshot gone.
import { PaimonError } from "../error.js";
import { deleteFiles, type FileIO, joinPath, readTextFileIfExists } from "../fs/file-io.js";

const CONSUMER_PREFIX = "consumer-";

export interface ConsumerFile {
  readonly path: string;
  readonly modificationTime: number;
}

/** The consumer files of the table at `root` (none when `consumer/` does not exist). */
export async function listConsumers(io: FileIO, root: string): Promise<ConsumerFile[]> {
  const dir = joinPath(root, "consumer");
  const out: ConsumerFile[] = [];
  for (const e of await io.listStatus(dir)) {
    // a symbolic link is no consumer of this table (it may lead outside it): skipped, as tags are
    if (e.isDir || e.isSymlink || !e.name.startsWith(CONSUMER_PREFIX) || e.name.length === CONSUMER_PREFIX.length) continue;
    out.push({ path: e.path, modificationTime: e.modificationTime });
  }
  return out;
}

/**
 * The smallest `nextSnapshot` of the table's consumers, or null without consumers. A consumer
 * file that is not a consumer's JSON is CORRUPT_FILE: the caller (expiry) stops with nothing deleted
 * rather than guess which snapshots a reader still needs.
 */
export async function minConsumerNextSnapshot(io: FileIO, root: string): Promise<number | null> {
  let min: number | null = null;
  for (const c of await listConsumers(io, root)) {
    const text = await readTextFileIfExists(io, c.path);
    if (text === null) continue; // deleted meanwhile (expired by another process)
    let next: unknown;
    try {
      next = (JSON.parse(text) as { nextSnapshot?: unknown })?.nextSnapshot;
    } catch {
      next = undefined;
    }
    if (typeof next !== "number" || !Number.isSafeInteger(next)) throw new PaimonError("CORRUPT_FILE", `consumer file ${c.path} has no integer nextSnapshot`);
    if (min === null || next < min) min = next;
  }
  return min;
}

/** Deletes the consumers not updated since `olderThan` (ms since the epoch), as Java's `consumer.expiration-time` does. */
export async function expireConsumers(io: FileIO, root: string, olderThan: number): Promise<void> {
  const stale = (await listConsumers(io, root)).filter((c) => c.modificationTime > 0 && c.modificationTime < olderThan);
  await deleteFiles(
    io,
    stale.map((c) => c.path),
  ).catch(() => undefined);
}
