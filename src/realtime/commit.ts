// CommitWithProgress: validates prepared offset ranges against the committed prefix and
// atomically publishes data files plus a new offsets file (snapshot property realtime.offsets).
// A retry of ranges already covered by the same (commitUser, identifier) returns its snapshot.
import { CommitMessage, validateMessageFiles } from "../commit/commit-message.js";
import { commitOutcomeUnknown, type FileStoreCommit } from "../commit/file-store-commit.js";
import { PaimonError } from "../error.js";
import { BATCH_COMMIT_IDENTIFIER, type Snapshot } from "../spec/snapshot.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { partitionStringsOfRow, tableOffsetsOf, writeOffsetsFile, type OffsetMap } from "./offsets.js";
import { requireRealtimeEnabled } from "./options.js";
import { dedupDeletionResolver, type PendingBucketDeletions } from "./dedup.js";
import { OffsetSet64 } from "../kernel/bitmap.js";
import type { DataFileMeta } from "../spec/manifest.js";
import { isDeduplicateTable } from "../table/dedup-table.js";
import { describePartitionBucket, partitionBucketKey, REALTIME_OFFSETS_PROPERTY, type RealtimeCommitProgress } from "./types.js";

function progressError(message: string): PaimonError {
  return new PaimonError("PROGRESS_INVALID", message);
}

interface Group {
  key: string;
  partition: Record<string, string>;
  bucket: number;
  begin: bigint;
  end: bigint;
}

function asBigInt(v: unknown): bigint | null {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return null;
}

/** Validates the shape of every progress entry and groups contiguous ranges per partition-bucket. */
function groupProgress(table: FileStoreTable, progress: readonly RealtimeCommitProgress[]): { groups: Group[]; messages: CommitMessage[] } {
  const keys = table.schema.partitionKeys;
  const buckets = table.coreOptions.bucket;
  const byKey = new Map<string, Array<{ begin: bigint; end: bigint; partition: Record<string, string>; bucket: number }>>();
  const messages: CommitMessage[] = [];
  for (const [i, p] of progress.entries()) {
    if (p === null || typeof p !== "object") throw progressError(`real-time commit progress ${i} is not an object`);
    if (!(p.commitMessage instanceof CommitMessage)) throw progressError(`real-time commit message of progress ${i} is missing`);
    const bucket = p.bucket;
    if (!Number.isInteger(bucket) || bucket < 0 || bucket >= buckets) throw progressError(`real-time commit bucket ${bucket} is invalid for ${table.identifier} (bucket = ${buckets})`);
    const partition: Record<string, string> = {};
    for (const [k, v] of Object.entries(p.partition ?? {})) partition[k] = String(v);
    if (Object.keys(partition).length !== keys.length || keys.some((k) => !(k in partition))) {
      throw progressError(`real-time commit progress ${i} has partition ${JSON.stringify(partition)}; table ${table.identifier} has partition keys [${keys.join(", ")}]`);
    }
    const m = p.commitMessage.data;
    let messagePartition: Record<string, string>;
    try {
      messagePartition = partitionStringsOfRow(table, m.partition);
    } catch (e) {
      throw progressError(`real-time commit message of progress ${i} has an unreadable partition: ${(e as Error).message}`);
    }
    if (m.bucket !== bucket || keys.some((k) => messagePartition[k] !== partition[k])) {
      throw progressError(`real-time commit progress does not match commit message partition and bucket (${describePartitionBucket(partition, bucket)} vs ${describePartitionBucket(messagePartition, m.bucket)})`);
    }
    const begin = asBigInt(p.offsetRange?.begin);
    const end = asBigInt(p.offsetRange?.end);
    if (begin === null || end === null || begin < 0n || begin >= end) {
      throw progressError(`real-time commit offset range [${String(p.offsetRange?.begin)}, ${String(p.offsetRange?.end)}) of ${describePartitionBucket(partition, bucket)} is invalid`);
    }
    const key = partitionBucketKey(keys, partition, bucket);
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push({ begin, end, partition, bucket });
    validateMessageFiles(m, table.paths);
    messages.push(p.commitMessage);
  }
  const groups: Group[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => (a.begin < b.begin ? -1 : a.begin > b.begin ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      if (list[i].begin !== list[i - 1].end) {
        throw progressError(
          `real-time commit offsets for ${describePartitionBucket(list[0].partition, list[0].bucket)} are not contiguous: [${list[i - 1].begin}, ${list[i - 1].end}) then [${list[i].begin}, ${list[i].end}) (${list[i].begin > list[i - 1].end ? "gap" : "overlap"})`,
        );
      }
    }
    groups.push({ key, partition: list[0].partition, bucket: list[0].bucket, begin: list[0].begin, end: list[list.length - 1].end });
  }
  return { groups, messages };
}

/** "new" when every group continues the committed prefix, "covered" when all are already committed. */
function classify(groups: readonly Group[], offsets: OffsetMap, snapshotId: number | null): "new" | "covered" {
  let covered = 0;
  for (const g of groups) {
    const committed = offsets.get(g.key)?.offset ?? null;
    const where = describePartitionBucket(g.partition, g.bucket);
    if (committed === null) continue; // first range of this partition-bucket: any begin
    if (g.end <= committed) {
      if (g.end === committed || g.begin < committed) covered++;
      continue;
    }
    if (g.begin < committed) throw progressError(`real-time commit range [${g.begin}, ${g.end}) of ${where} partially overlaps committed offset ${committed} (snapshot ${snapshotId})`);
    if (g.begin > committed) throw progressError(`real-time commit range [${g.begin}, ${g.end}) of ${where} leaves a gap after committed offset ${committed} (snapshot ${snapshotId}); pass every outstanding prepared progress`);
  }
  if (covered === 0) return "new";
  if (covered === groups.length) return "covered";
  throw progressError(`real-time commit progress is only partially covered by committed offsets (snapshot ${snapshotId}); it was partly committed by another commit`);
}

/**
 * Append deduplicate: the deleted offsets of the progress, united per partition-bucket (copies the
 * caller disposes), with the files the same commit adds there.
 */
function pendingDeletions(table: FileStoreTable, progress: readonly RealtimeCommitProgress[]): PendingBucketDeletions[] {
  const byKey = new Map<string, PendingBucketDeletions>();
  const files = new Map<string, DataFileMeta[]>();
  for (const p of progress) {
    const m = p.commitMessage.data;
    const key = `${m.partition.join(",")}|${m.bucket}`;
    // Every file the commit adds to the bucket: a deletion of one prepare may hit the file of an earlier one.
    const added = files.get(key);
    if (added) added.push(...m.dataIncrement.newFiles);
    else files.set(key, [...m.dataIncrement.newFiles]);
    const deleted = p.deletedOffsets;
    if (deleted === undefined || deleted === null) continue;
    if (!(deleted instanceof OffsetSet64)) throw progressError(`real-time commit progress of ${describePartitionBucket(p.partition, p.bucket)} has deletedOffsets that is not an OffsetSet64`);
    if (!isDeduplicateTable(table.options)) throw progressError(`real-time commit progress carries deleted offsets, but ${table.identifier} is not an append deduplicate table`);
    if (deleted.isEmpty) continue;
    const group = byKey.get(key);
    if (group) group.offsets.orInPlace(deleted);
    else byKey.set(key, { partitionRow: m.partition, bucket: m.bucket, offsets: deleted.clone(), newFiles: files.get(key)! });
  }
  return [...byKey.values()];
}

/** The snapshot of `user` with `identifier`, walking back from the latest (null when not found). */
async function findCommit(table: FileStoreTable, user: string, identifier: bigint): Promise<Snapshot | null> {
  const latest = await table.snapshotManager.latestSnapshotId();
  if (latest === null) return null;
  for (let id = latest; id >= 1; id--) {
    const s = await table.snapshotManager.tryGetSnapshot(id);
    if (s === null) return null;
    if (s.commitUser === user && s.commitIdentifier === identifier) return s;
    if (s.commitUser === user && s.commitIdentifier < identifier) return null;
  }
  return null;
}

export async function commitWithProgress(table: FileStoreTable, commit: FileStoreCommit, progress: readonly RealtimeCommitProgress[], commitIdentifier: bigint | number, watermark?: bigint | number | null): Promise<number> {
  requireRealtimeEnabled(table, "commitWithProgress");
  if (!Array.isArray(progress)) throw new PaimonError("INVALID_ARGUMENT", "commitWithProgress takes an array of RealtimeCommitProgress");
  if (progress.length === 0) throw progressError(`real-time commits must not be empty (table ${table.identifier})`);
  const identifier = asBigInt(commitIdentifier);
  if (identifier === null || identifier === BATCH_COMMIT_IDENTIFIER) throw new PaimonError("INVALID_ARGUMENT", `commit identifier ${String(commitIdentifier)} is not a streaming commit identifier`);
  const mark = watermark === undefined || watermark === null ? null : asBigInt(watermark);
  if (watermark !== undefined && watermark !== null && mark === null) throw new PaimonError("INVALID_ARGUMENT", `watermark ${String(watermark)} is not an integer`);
  const { groups, messages } = groupProgress(table, progress);
  const commitUser = commit.commitUser;

  const latest = await table.latestSnapshot();
  const state = classify(groups, await tableOffsetsOf(table, latest), latest?.id ?? null);
  if (state === "covered") {
    const done = await findCommit(table, commitUser, identifier);
    if (done === null) throw progressError(`real-time commit ranges of ${table.identifier} are already covered by another commit user or identifier (not ${commitUser} / ${identifier})`);
    return done.id;
  }
  if ((await commit.alreadyCommitted(identifier)) !== undefined) {
    throw progressError(`commit identifier ${identifier} of user ${commitUser} was already committed to ${table.identifier}, but these ranges are not covered; use a new identifier`);
  }

  const written: string[] = [];
  const properties = async (base: Snapshot | null): Promise<Record<string, string>> => {
    const offsets = await tableOffsetsOf(table, base);
    if (base?.id !== latest?.id && classify(groups, offsets, base?.id ?? null) !== "new") {
      throw progressError(`real-time commit ranges of ${table.identifier} were committed concurrently (snapshot ${base?.id})`);
    }
    const next: OffsetMap = new Map(offsets);
    for (const g of groups) next.set(g.key, { partition: g.partition, bucket: g.bucket, offset: g.end });
    const path = await writeOffsetsFile(table.fileIO, table.location, next);
    written.push(path);
    return { [REALTIME_OFFSETS_PROPERTY]: path };
  };
  const pending = pendingDeletions(table, progress);
  let id: number | null;
  try {
    id = await commit.commit(
      messages.map((m) => m.data),
      identifier,
      pending.length > 0
        ? // Deduplicate deletions resolve on every attempt; the snapshot stays an APPEND (seed 000).
          { properties, force: true, watermark: mark, resolveIndexChanges: dedupDeletionResolver(table, pending), resolvedCommitKind: "APPEND" }
        : { properties, force: true, watermark: mark },
    );
  } catch (e) {
    // An offsets file a possibly published snapshot references stays (commitOutcomeUnknown).
    if (!commitOutcomeUnknown(e)) for (const p of written) await table.fileIO.delete(p).catch(() => false);
    throw e;
  } finally {
    for (const p of pending) p.offsets.dispose();
  }
  if (id === null) throw new PaimonError("COMMIT_CONFLICT", `real-time commit of ${table.identifier} did not produce a snapshot`);
  const published = (await table.snapshot(id)).properties?.[REALTIME_OFFSETS_PROPERTY];
  for (const p of written) if (p !== published) await table.fileIO.delete(p).catch(() => false);
  return id;
}
