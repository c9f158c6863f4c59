// The real-time layer's entry points that TableScan and TableRead call. They are installed by
// context.ts, which every RealtimeContext comes from, so a scan or read given a context always
// finds them, while a query-only bundle that never creates a context leaves the real-time code out.
import { PaimonError } from "../error.js";
import type { BatchReader } from "../read/batch-reader.js";
import type { Plan, Split } from "../scan/split.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { RealtimeSplit } from "./scan.js";
import type * as arrow from "apache-arrow";
import type { RoaringBitmap32 } from "../kernel/bitmap.js";

export interface RealtimeHooks {
  checkRealtimeScan(table: FileStoreTable, options: { realtime?: unknown }): void;
  /** `scan.planCommitted()` plans the committed files as an ordinary scan would (real-time union mode). */
  planRealtimeScan(table: FileStoreTable, options: { realtime?: unknown }, scan: { planCommitted(): Promise<Plan> }): Promise<Plan>;
  checkRealtimeRead(table: FileStoreTable, options: { realtime?: unknown }): void;
  createRealtimeReader(
    table: FileStoreTable,
    options: { realtime?: unknown },
    schema: arrow.Schema,
    batchSize: number,
    splits: readonly Split[],
    /** `hidden`: more deleted row positions by data file name (pending deduplicate deletions, read-only: the caller keeps owning or leasing the bitmaps). */
    readDisk: (splits: readonly Split[], hidden?: ReadonlyMap<string, { readonly hits: RoaringBitmap32 }>) => AsyncGenerator<arrow.RecordBatch, void, undefined>,
  ): Promise<BatchReader>;
}

let installed: RealtimeHooks | undefined;

export function installRealtimeHooks(hooks: RealtimeHooks): void {
  installed = hooks;
}

/** The hooks, for an operation given `options.realtime`; without a context ever created, that value cannot be one. */
export function realtimeHooks(what: string): RealtimeHooks {
  if (!installed) throw new PaimonError("INVALID_ARGUMENT", `${what}: realtime must be a RealtimeContext (RealtimeContext.create())`);
  return installed;
}

export function isRealtimeSplit(split: unknown): split is RealtimeSplit {
  return typeof split === "object" && split !== null && typeof (split as RealtimeSplit).realtime === "object" && (split as RealtimeSplit).realtime !== null;
}

/**
 * True when `createReader` must take the real-time path. A real-time split read without a
 * context is refused (as paimon-cpp does) instead of silently dropping its memory rows; its
 * ticket is left untouched, so it stays valid for a reader with the context until its TTL.
 */
export function isRealtimeRead(options: { realtime?: unknown }, splits: readonly Split[]): boolean {
  const split = splits.find(isRealtimeSplit);
  if (split === undefined) return false;
  if (options.realtime === undefined) {
    throw new PaimonError(
      "REALTIME_NOT_ENABLED",
      `reading a real-time split requires a real-time context (split of bucket ${split.bucket}, snapshot ${split.realtime.snapshotId ?? "none"}): create the read with newRead({ realtime }) using the context that planned it, or plan without the context to read committed files only`,
    );
  }
  return true;
}
