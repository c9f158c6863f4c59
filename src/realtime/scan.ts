// Real-time scan planning (seed "Read Views and Consistency"): pin immutable memory views
// first, then plan the committed snapshot; per partition-bucket the memory window is
// [committed_end, memory_end). Append: disk splits stay independently schedulable and the
// memory view rides on the partition-bucket's tail split behind an opaque read-view ticket;
// primary key: all disk splits of the partition-bucket are grouped with its memory view.
import { PaimonError } from "../error.js";
import { evaluatePartitionRow } from "../predicate/evaluate.js";
import { splitPredicateByFields, type Predicate } from "../predicate/predicate.js";
import { bytesEqual, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import type { DataSplit, Plan } from "../scan/split.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { RealtimeContext, type StoreEntry } from "./context.js";
import { knownTableOffsets, tableOffsetsOf } from "./offsets.js";
import { validateRealtimeTable } from "./options.js";
import type { RealtimeReadView } from "./store.js";
import type { FrozenDeletedOffsets } from "./dedup-key-index.js";

export const REALTIME_SPLIT_VERSION = 1;

/** What a real-time split adds to a DataSplit: the memory window and its read-view ticket. */
export interface RealtimeSplitInfo {
  readonly version: number;
  /** Opaque; resolve it with the same context in the same process. */
  readonly ticket: string;
  /** Exclusive committed end offset of the planned snapshot (-1 when it has none). */
  readonly committedEndOffset: bigint;
  /** Exclusive end offset of the pinned memory view. */
  readonly memoryEndOffset: bigint;
  /** The planned snapshot (null when the table had none). */
  readonly snapshotId: number | null;
}

/**
 * A DataSplit (its `files` are committed data, read like any other split) that also carries the
 * partition-bucket's memory tail. A reader without a real-time context reads only the files.
 */
export interface RealtimeSplit extends DataSplit {
  readonly realtime: RealtimeSplitInfo;
}


export function asRealtimeContext(value: unknown, what: string): RealtimeContext {
  if (!(value instanceof RealtimeContext)) throw new PaimonError("INVALID_ARGUMENT", `${what}: realtime must be a RealtimeContext (RealtimeContext.create())`);
  return value;
}

export interface RealtimeScanOptions {
  realtime?: unknown;
  filter?: Predicate;
  partitions?: Array<Record<string, unknown>>;
  buckets?: number[];
  snapshotId?: number;
}

/** Validation done when a real-time scan is created. */
export function checkRealtimeScan(table: FileStoreTable, options: RealtimeScanOptions): void {
  const ctx = asRealtimeContext(options.realtime, "newScan");
  validateRealtimeTable(table, "real-time scan");
  ctx.checkValid();
  ctx.bind(table);
}

/** Plans a union scan; `scan.planCommitted()` plans committed files as an ordinary scan would. */
export async function planRealtimeScan(table: FileStoreTable, options: RealtimeScanOptions, scan: { planCommitted(): Promise<Plan> }): Promise<Plan> {
  const ctx = asRealtimeContext(options.realtime, "newScan");
  const { mode, options: rt } = validateRealtimeTable(table, "real-time scan");
  ctx.checkValid();
  ctx.bind(table);
  const partitionFields = table.partitionFields;
  const partitionFilter = options.filter && partitionFields.length > 0 ? splitPredicateByFields(options.filter, partitionFields.map((f) => f.name)).picked : null;
  const types = options.partitions && partitionFields.map((f) => f.type);
  const wanted = options.partitions?.map((p) => serializeBinaryRow(toBinaryRow(partitionFields.map((f) => p[f.name] ?? null), types!), types!.length).join(","));
  const buckets = options.buckets ? new Set(options.buckets) : null;
  // (null without partition or bucket restrictions: every entry, the usual key lookup)
  const relevant =
    buckets || wanted || partitionFilter
      ? (e: StoreEntry): boolean => {
          if (buckets && !buckets.has(e.bucket)) return false;
          if (wanted && !wanted.includes(e.partitionRow.join(","))) return false;
          if (partitionFilter && !evaluatePartitionRow(partitionFilter, e.partitionRow, partitionFields)) return false;
          return true;
        }
      : null;

  // 1. Pin immutable memory views first.
  const views: Array<{ entry: StoreEntry; view: RealtimeReadView; deleted: FrozenDeletedOffsets | null }> = [];
  try {
    for (const entry of ctx.allEntries()) {
      if (relevant !== null && !relevant(entry)) continue;
      // DEDUPLICATE: the deletions pinned with the view are those of exactly the rows it sees.
      let view: RealtimeReadView;
      let deleted: FrozenDeletedOffsets | null = null;
      if (entry.dedup) {
        let frozen = entry.dedup.viewWithFrozenDeletions(entry.store);
        if (frozen instanceof Promise) frozen = await frozen;
        view = frozen.value;
        deleted = frozen.deleted;
      } else view = await entry.store.acquireReadView();
      const pending = deleted !== null && !deleted.offsets.isEmpty;
      if (!pending) deleted?.release?.();
      if (view.offsetRange === null && !pending) await view.release();
      else views.push({ entry, view, deleted: pending ? deleted : null });
    }
    // 2. Then plan the committed snapshot.
    const plan = await scan.planCommitted();
    // (the usual case, the cached latest snapshot and its known progress, without awaiting)
    const snapshot = plan.snapshotId === null ? null : (table.snapshotManager.cachedSnapshot(plan.snapshotId) ?? (await table.snapshot(plan.snapshotId)));
    const offsets = knownTableOffsets(table, snapshot) ?? (await tableOffsetsOf(table, snapshot));
    // An explicit (or rolled-back) snapshot must not be behind what the context has reclaimed.
    for (const { entry } of views) {
      const end = offsets.get(entry.key)?.offset ?? null;
      if (entry.baseEnd !== null && (end === null || end < entry.baseEnd)) {
        throw new PaimonError(
          "INVALID_ARGUMENT",
          `snapshot ${plan.snapshotId ?? "(none)"} of ${table.identifier} is behind the real-time context's committed offset ${entry.baseEnd} for ${entry.description} (snapshot has ${end ?? "none"}); plan the latest snapshot, or read history without the real-time context`,
        );
      }
    }
    const splits = plan.splits; // made by this plan's planCommitted: extended in place
    const opts = table.coreOptions;
    for (const { entry, view, deleted } of views) {
      const committed = offsets.get(entry.key)?.offset ?? -1n;
      const memoryEnd = view.offsetRange?.end ?? (committed < 0n ? 0n : committed);
      if (memoryEnd <= committed && deleted === null) {
        await view.release();
        continue;
      }
      const ticket = ctx.issueTicket(entry, view, committed, memoryEnd, rt.readViewTtlMs, options.filter ?? null, deleted);
      const info: RealtimeSplitInfo = { version: REALTIME_SPLIT_VERSION, ticket: ticket.id, committedEndOffset: committed, memoryEndOffset: memoryEnd, snapshotId: plan.snapshotId };
      // the partition-bucket's disk splits: the first, the last and how many
      let first = -1;
      let last = -1;
      let count = 0;
      for (let i = 0; i < splits.length; i++) {
        if (splits[i].bucket !== entry.bucket || !bytesEqual(splits[i].partitionRow, entry.partitionRow)) continue;
        if (first < 0) first = i;
        last = i;
        count++;
      }
      if (count === 1 && mode !== "APPEND_ONLY") {
        splits[first] = { ...splits[first], rawConvertible: false, realtime: info } as RealtimeSplit;
      } else if (count > 0 && mode !== "APPEND_ONLY") {
        // Versions of a key may be in any disk split and in memory: one split merges them all
        // (PRIMARY_KEY), or applies the pending deletions to them all (DEDUPLICATE).
        const mine: number[] = [];
        for (let i = first; i <= last; i++) if (splits[i].bucket === entry.bucket && bytesEqual(splits[i].partitionRow, entry.partitionRow)) mine.push(i);
        const group = mine.map((i) => splits[i]);
        const withDvs = group.some((g) => g.deletionFiles !== undefined);
        const merged: RealtimeSplit = {
          ...group[0],
          files: group.flatMap((g) => g.files),
          rawConvertible: false,
          ...(withDvs ? { deletionFiles: group.flatMap((g) => g.deletionFiles ?? g.files.map(() => null)) } : {}),
          realtime: info,
        };
        splits[first] = merged;
        for (let k = mine.length - 1; k > 0; k--) splits.splice(mine[k], 1);
      } else if (count > 0) {
        splits[last] = { ...splits[last], realtime: info } as RealtimeSplit;
      } else {
        const split: RealtimeSplit = {
          kind: "data",
          snapshotId: plan.snapshotId ?? -1,
          partition: entry.partitionValues,
          partitionRow: entry.partitionRow,
          bucket: entry.bucket,
          bucketPath: table.paths.bucketDirOf(entry.partitionRow, entry.bucket, entry.internalValues),
          totalBuckets: opts.bucket,
          files: [],
          rawConvertible: true,
          realtime: info,
        };
        splits.push(split);
      }
    }
    views.length = 0; // tickets own them now
    return { snapshotId: plan.snapshotId, splits };
  } catch (e) {
    for (const v of views.splice(0, views.length)) {
      v.deleted?.release?.();
      await v.view.release();
    }
    throw e;
  }
}
