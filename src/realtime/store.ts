// The pluggable real-time store SPI (seed "Extension Points"): one store per partition-bucket,
// created by a RealtimeStoreFactory and owned by the RealtimeContext. Paimon (the framework)
// validates offsets, serialises seal/prepare, windows query results by committed offsets,
// writes table files and commits; a store buffers batches, hands out immutable read views,
// and may spill sealed segments.
import type * as arrow from "apache-arrow";
import type { Predicate } from "../predicate/predicate.js";
import type { DataField } from "../spec/types.js";
import type { RealtimeStatsMode, RealtimeStoreMode } from "./options.js";
import type { OffsetRange } from "./types.js";

export type MaybePromise<T> = T | Promise<T>;

/**
 * A validated input batch in the store-write layout: `[_REALTIME_OFFSET, table fields…]`
 * (APPEND_ONLY), or `[_REALTIME_OFFSET, table fields…, _SEQUENCE_NUMBER, _VALUE_KIND]`
 * (PRIMARY_KEY: sorted by primary key then sequence number, so each stored batch is an
 * independent merge input; offsets are then not ordered within the batch. A store that sets
 * `sortsPrimaryKeyBatches` receives the batch in input order instead, sequence numbers ascending
 * with the rows, and sorts it itself). DEDUPLICATE stores `[_REALTIME_OFFSET, table fields…]`
 * too (the table fields hold the same offsets again) and hands over zero-row batches for writes
 * that only deleted keys: their offset range is progress.
 */
export interface RealtimeWriteBatch {
  readonly batch: arrow.RecordBatch;
  /** Envelope of the batch's offsets: [first, last + 1). Offsets (in input order) are strictly increasing; gaps allowed. */
  readonly offsetRange: OffsetRange;
}

/** A frozen (sealed) segment: immutable from now on. */
export interface RealtimeSegmentHandle {
  readonly offsetRange: OffsetRange;
  readonly rowCount: number;
}

/** An immutable view of a store's data at one moment; pins what it references until released. */
export interface RealtimeReadView {
  /** Envelope of the offsets visible through the view; null when empty. */
  readonly offsetRange: OffsetRange | null;
  /** Releases the resources the view pins (idempotent). */
  release(): MaybePromise<void>;
}

export interface RealtimeQueryContext {
  /** Offsets below this are already on disk for the reading snapshot: whole batches below may be skipped. */
  readonly offsetBegin: bigint;
  /** Conservative pruning hint (a store may ignore it; the framework filters exactly when asked). */
  readonly predicate: Predicate | null;
  /** `read.batch-size`: a sizing hint (the framework re-chunks what the store returns to it). */
  readonly readBatchSize: number;
}

export interface RealtimeStoreDataUsage {
  buildingMemoryBytes: number;
  sealedMemoryBytes: number;
  buildingRowCount: number;
  sealedRowCount: number;
}

export interface RealtimeStoreCreateRequest {
  /** Arrow schema of stored batches (the store-write layout of `mode`, see RealtimeWriteBatch). */
  readonly writeSchema: arrow.Schema;
  /** Paimon fields of `writeSchema` (offset field first). */
  readonly writeFields: readonly DataField[];
  /** PRIMARY_KEY: indexes of the primary-key columns in `writeSchema` (empty otherwise). */
  readonly keyColumnIndexes: readonly number[];
  /**
   * PRIMARY_KEY: a stored batch (any row order, e.g. input order or sorted batches concatenated)
   * sorted by primary key, then sequence number, with the framework's sort kernel; the batch
   * itself when already in that order, else a new one (the argument is not changed). For stores
   * that set `sortsPrimaryKeyBatches`.
   */
  readonly sortPrimaryKeyBatch: (batch: arrow.RecordBatch) => arrow.RecordBatch;
  /** The table options. */
  readonly options: Readonly<Record<string, string>>;
  readonly mode: RealtimeStoreMode;
  readonly statisticsMode: RealtimeStatsMode;
  readonly spillEnabled: boolean;
  /** Local directory for spill files; "" when none. */
  readonly tempDirectory: string;
  readonly spillCompression: "zstd" | "none";
  readonly spillZstdLevel: number;
  /** For messages. */
  readonly description: string;
}

/**
 * One partition-bucket's uncommitted data. Contracts:
 * - `write` receives batches in increasing, non-overlapping offset order;
 * - `freeze` atomically turns the building data into an immutable sealed segment (null when
 *   there is nothing to seal) and opens a new building segment; writes may continue at once;
 * - `spill` (optional) moves a frozen segment to temporary storage; on failure the segment
 *   stays queryable in memory and the error is rethrown;
 * - `createCommitReader` returns a frozen segment's batches in write order (store-write layout);
 * - `acquireReadView` returns an immutable view; later writes, seals, spills and
 *   `advanceCommittedOffset` must not change what the view returns;
 * - `createQueryReader` returns a view's batches in write order (store-write layout, any size;
 *   the framework windows and chunks them to `readBatchSize`), possibly skipping batches
 *   entirely below `offsetBegin` or pruned by statistics; returning the same immutable batch
 *   objects every time is expected (no copies);
 * - `advanceCommittedOffset` is monotonic and idempotent; it may reclaim sealed segments whose
 *   whole envelope is below the committed end;
 * - PRIMARY_KEY with `sortsPrimaryKeyBatches`: `write` receives batches in input order, and every
 *   batch the store hands out (query and commit readers) is sorted by key then sequence number
 *   (`request.sortPrimaryKeyBatch`); sorting must not change what a view returns, only the order
 *   of each batch's rows (a view never returns an unsorted batch).
 */
export interface RealtimeStore {
  /**
   * PRIMARY_KEY: true when the store sorts the batches it receives itself, when it first needs
   * them (the Arrow store: once per batch, on the first query, commit reader or spill that
   * touches it), so a write costs numbering only. Absent or false: the framework sorts each
   * batch before `write`.
   */
  readonly sortsPrimaryKeyBatches?: boolean;
  write(batch: RealtimeWriteBatch): MaybePromise<void>;
  freeze(): MaybePromise<RealtimeSegmentHandle | null>;
  spill?(segment: RealtimeSegmentHandle): Promise<void>;
  createCommitReader(segment: RealtimeSegmentHandle): AsyncIterable<arrow.RecordBatch>;
  acquireReadView(): MaybePromise<RealtimeReadView>;
  /** A synchronous iterable (e.g. an array) when the batches are in memory: reads then cost no promise per batch. */
  createQueryReader(view: RealtimeReadView, context: RealtimeQueryContext): Iterable<arrow.RecordBatch> | AsyncIterable<arrow.RecordBatch>;
  advanceCommittedOffset(committedEndOffset: bigint): MaybePromise<void>;
  getDataUsage(): RealtimeStoreDataUsage;
  close(): MaybePromise<void>;
}

export interface RealtimeStoreFactory {
  create(request: RealtimeStoreCreateRequest): MaybePromise<RealtimeStore>;
}
