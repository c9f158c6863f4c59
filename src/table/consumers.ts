// Consumers (`<table>/consumer/consumer-<id>`, JSON `{"nextSnapshot": N}`): the progress of
// streaming readers (Flink `consumer-id`), kept by Java Paimon's ConsumerManager. A consumer's next
// snapshot must survive snapshot expiry, or its job fails on restart with the snapshot gone.
import { PaimonError } from "../error.js";
import { deleteFiles, type FileIO, joinPath, readTextFileIfExists } from "../fs/file-io.js";
import { fileNameProblem } from "../spec/file-names.js";

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
 * The file of consumer `id` (`consumer/consumer-<id>`). The id becomes a file name: INVALID_ARGUMENT
 * for one that is empty (Java: "consumer id cannot be empty string") or is no plain file name, so
 * nothing is read or written outside the table's consumer directory.
 */
export function consumerPath(root: string, id: string): string {
  const problem = id === "" ? "is empty" : fileNameProblem(CONSUMER_PREFIX + id);
  if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `consumer-id '${id}' ${problem}`);
  return joinPath(root, "consumer", CONSUMER_PREFIX + id);
}

/** The `nextSnapshot` of consumer `id`, null when it has no file (Java `ConsumerManager.consumer`). */
export async function readConsumer(io: FileIO, root: string, id: string): Promise<number | null> {
  const path = consumerPath(root, id);
  const text = await readTextFileIfExists(io, path);
  return text === null ? null : nextSnapshotOf(text, path);
}

/** Writes consumer `id`'s progress as Java's `ConsumerManager.resetConsumer` does (whole file replaced atomically). */
export async function writeConsumer(io: FileIO, root: string, id: string, nextSnapshot: number): Promise<void> {
  // (Jackson's pretty printer, as Java writes it; a literal: query bundles split no JSON module out for this)
  await io.writeFile(consumerPath(root, id), `{\n  "nextSnapshot" : ${nextSnapshot}\n}`);
}

/** A consumer file's `nextSnapshot`; CORRUPT_FILE when it has none. */
export function nextSnapshotOf(text: string, path: string): number {
  let next: unknown;
  try {
    next = (JSON.parse(text) as { nextSnapshot?: unknown })?.nextSnapshot;
  } catch {
    next = undefined;
  }
  if (typeof next !== "number" || !Number.isSafeInteger(next)) throw new PaimonError("CORRUPT_FILE", `consumer file ${path} has no integer nextSnapshot`);
  return next;
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
    const next = nextSnapshotOf(text, c.path);
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
