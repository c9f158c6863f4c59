// Real-time public value types (API.md "Real-time"): the hidden offset column, offset ranges,
// commit progress, metrics, and partition-bucket keys shared by every real-time mode.
import type { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import type { OffsetSet64 } from "../kernel/bitmap.js";

/** Name of the leading int64 column of real-time input batches (`[_REALTIME_OFFSET, table fields…]`). */
export const REALTIME_OFFSET_FIELD = "_REALTIME_OFFSET";

/** Snapshot property naming the offsets metadata file (`metadata/<uuid>.offsets`). */
export { REALTIME_OFFSETS_PROPERTY } from "../spec/snapshot.js";

export const INT64_MAX = 9223372036854775807n;

/** A half-open offset envelope `[begin, end)`: an event-progress range, not a row count. */
export interface OffsetRange {
  begin: bigint;
  end: bigint;
}

/** Prepared data of one partition-bucket together with the offsets it covers. */
export interface RealtimeCommitProgress {
  commitMessage: CommitMessage;
  /** Logical partition values (strings, before path escaping). */
  partition: Record<string, string>;
  bucket: number;
  offsetRange: OffsetRange;
  /**
   * Append deduplicate: offsets of rows superseded or deleted up to this prepare (cumulative
   * since the last commit). Not part of the CommitMessage serialization: keep it with the progress
   * until commitWithProgress, which resolves it into deletion vectors.
   */
  deletedOffsets?: OffsetSet64;
}

/** Current store accounting (not process RSS, not a visible-row count). */
export interface RealtimeMetrics {
  realtimeBuildingMemoryBytes: number;
  realtimeSealedMemoryBytes: number;
  realtimeTotalMemoryBytes: number;
  realtimeBuildingRowCount: number;
  realtimeSealedRowCount: number;
  realtimeTotalRowCount: number;
}

/** A logical partition-bucket. */
export interface RealtimePartitionBucket {
  partition: Record<string, string>;
  bucket: number;
}

/** Stable key of a partition-bucket: partition values in partition-key order, then the bucket. */
export function partitionBucketKey(partitionKeys: readonly string[], partition: Readonly<Record<string, string>>, bucket: number): string {
  return JSON.stringify([partitionKeys.map((k) => partition[k] ?? null), bucket]);
}

/** Human-readable partition-bucket for messages. */
export function describePartitionBucket(partition: Readonly<Record<string, string>>, bucket: number): string {
  const p = Object.entries(partition)
    .map(([k, v]) => `${k}=${v}`)
    .join("/");
  return `partition {${p}} bucket ${bucket}`;
}

/** `bigint | number` → bigint (integers only). */
export function toBigInt(v: bigint | number, what: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new PaimonError("INVALID_ARGUMENT", `${what} is not an integer: ${String(v)}`);
  return BigInt(v);
}
