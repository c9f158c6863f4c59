// Real-time union reads. Primary-key mode: see primaryKeyGroups below. Append mode: each split's committed files through the ordinary
// reader, then its memory tail: the pinned view's batches windowed to
// [committed_end, memory_end), pruned by batch statistics, exactly filtered when
// predicateFilter is set, projected (the hidden offset column removed), in read.batch-size chunks.
// Append deduplicate reads the same way and hides the rows whose offsets the view's pinned
// pending deletions hold: in memory by offset, in committed files by exact row position.
import { columnValues } from "../arrow/values.js";
import * as arrow from "apache-arrow";
import { takeRows } from "../arrow/take.js";
import { gatherInt64, takeColumn } from "../arrow/gather.js";
import { batchArrayReader, groupedBatchReader, type BatchReader } from "../read/batch-reader.js";
import { PaimonError } from "../error.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import { and, bindPredicate, splitPredicateByFields, type Predicate } from "../predicate/predicate.js";
import { readArrowField, readArrowSchema } from "../format/arrow-types.js";
import type { KvBatch } from "../read/kv-file-reader.js";
import { PrimaryKeySplitReader } from "../read/merge-read.js";
import { int64LowerBound, int64WordsOf, sortedKeyRange } from "../read/selective-read.js";
import type { DataSplit, Split } from "../scan/split.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { DataField } from "../spec/types.js";
import type { PinnedView, Ticket } from "./context.js";
import { validateRealtimeTable } from "./options.js";
import { bytesEqual } from "../spec/binary-row.js";
import { asRealtimeContext, type RealtimeSplit } from "./scan.js";
import { isRealtimeSplit } from "./hooks.js";
import { recordBatch, selectColumns, sliceBatch } from "../arrow/record-batch.js";
import { pendingOffsetLeases, type PositionsLease } from "../read/offset-positions.js";
import { bucketFileSource, dedupFieldsOf } from "./dedup.js";
import { survivingRows, type FrozenDeletedOffsets } from "./dedup-key-index.js";
import { keyLookupOf, lookupKeyRows } from "./memory-key-index.js";

export interface RealtimeReadOptions {
  realtime?: unknown;
  projection?: string[];
  filter?: Predicate;
  predicateFilter?: boolean;
  /** PK tables: a leading `_VALUE_KIND` column (as ordinary PK reads). */
  withRowKind?: boolean;
  /** `filter` bound to the table's fields when predicateFilter is set (TableRead binds it once). */
  boundFilter?: Predicate | null;
}

/** The read's filter bound to the table's fields when it is applied exactly, else null. */
function residualOf(options: RealtimeReadOptions, fields: readonly DataField[]): Predicate | null {
  if (!options.filter || !options.predicateFilter) return null;
  return options.boundFilter ?? bindPredicate(options.filter, fields);
}

const NONE: readonly arrow.RecordBatch[] = [];

/**
 * Committed files real-time append reads left unread (a deduplicate lookup of a key whose live
 * row is in memory), and reads answered at once from memory (`memoryOnly` in
 * createRealtimeReader): for tests and benchmarks.
 */
export const realtimeReadCounters = { filesSkipped: 0, memoryOnly: 0 };

/**
 * The read's filter and the scan's (either may be absent) as one predicate: the same predicate
 * object once (a query plans and reads with one filter), else their conjunction.
 */
function bothFilters(read: Predicate | undefined, scan: Predicate | null): Predicate | null {
  if (!read) return scan ?? null;
  if (!scan || scan === read) return read;
  return and(read, scan);
}

/** Validation done when a real-time read is created. */
export function checkRealtimeRead(table: FileStoreTable, options: RealtimeReadOptions): void {
  const ctx = asRealtimeContext(options.realtime, "newRead");
  validateRealtimeTable(table, "real-time read");
  // (the memory rows of an append table carry no row kinds)
  if (options.withRowKind && table.schema.primaryKeys.length === 0) throw new PaimonError("UNSUPPORTED", "withRowKind of a real-time read is available for primary-key tables only");
  ctx.checkValid();
  ctx.bind(table);
}

/**
 * The offset window [committed, end) of a ticket's memory rows, with both bounds as int64 words:
 * each stored batch's rows in it are found by binary search without boxing a BigInt per probe.
 */
interface OffsetWindow {
  readonly committed: bigint;
  readonly end: bigint;
  readonly committedWords: readonly [number, number];
  readonly endWords: readonly [number, number];
}

function offsetWindow(committed: bigint, end: bigint): OffsetWindow {
  return { committed, end, committedWords: int64WordsOf(committed), endWords: int64WordsOf(end) };
}

/** `batch` projected to `columnIndexes`, in chunks of at most `batchSize` rows. */
function chunk(batch: arrow.RecordBatch, schema: arrow.Schema, columnIndexes: readonly number[], batchSize: number): arrow.RecordBatch[] {
  const rows = batch.numRows;
  if (rows <= batchSize) return [selectColumns(batch, schema, columnIndexes)];
  const out: arrow.RecordBatch[] = [];
  for (let s = 0; s < rows; s += batchSize) out.push(selectColumns(sliceBatch(batch, s, Math.min(rows, s + batchSize)), schema, columnIndexes));
  return out;
}

/** `of[at[i]]` for each i (no closure: a closure over outputOf's locals would allocate their context on every call). */
function pick(of: Uint32Array, at: Uint32Array): Uint32Array {
  const out = new Uint32Array(at.length);
  for (let i = 0; i < at.length; i++) out[i] = of[at[i]];
  return out;
}

/**
 * Rows `lo + rows[i]` of a stored batch, of the projected columns only (taken straight from the
 * stored columns: no window slice, no copy of the offset column), in chunks of at most
 * `batchSize` rows.
 */
function takeOutput(raw: arrow.RecordBatch, lo: number, rows: Uint32Array, schema: arrow.Schema, columnIndexes: readonly number[], batchSize: number): arrow.RecordBatch[] {
  const n = rows.length;
  let at = rows;
  if (lo !== 0) {
    at = new Uint32Array(n);
    for (let i = 0; i < n; i++) at[i] = rows[i] + lo;
  }
  const stored = raw.data.children;
  const columns: arrow.Data[] = new Array(columnIndexes.length);
  for (let c = 0; c < columns.length; c++) columns[c] = takeColumn(stored[columnIndexes[c]], at);
  const batch = recordBatch(schema, columns, n);
  if (n <= batchSize) return [batch];
  const out: arrow.RecordBatch[] = [];
  for (let s = 0; s < n; s += batchSize) out.push(sliceBatch(batch, s, Math.min(n, s + batchSize)));
  return out;
}

/**
 * Output chunks of whole stored batches, kept per batch for the last projection and batch size
 * they were read with: stored batches are immutable, so continuous queries over the same tail
 * return the same chunk objects instead of rebuilding them every time.
 */
const chunkCache = new WeakMap<arrow.RecordBatch, { key: string; chunks: arrow.RecordBatch[] }>();

function outputChunks(batch: arrow.RecordBatch, schema: arrow.Schema, columnIndexes: readonly number[], batchSize: number, key: string): arrow.RecordBatch[] {
  const cached = chunkCache.get(batch);
  if (cached !== undefined && cached.key === key) return cached.chunks;
  const chunks = chunk(batch, schema, columnIndexes, batchSize);
  chunkCache.set(batch, { key, chunks });
  return chunks;
}

/**
 * Creates a union reader. Tickets are resolved and checked first; only when all are valid are
 * they consumed (the reader then pins their views until it is closed or exhausted).
 */
export async function createRealtimeReader(
  table: FileStoreTable,
  options: RealtimeReadOptions,
  outputSchema: arrow.Schema,
  batchSize: number,
  splits: readonly Split[],
  diskBatches: (splits: readonly DataSplit[], hidden?: ReadonlyMap<string, PositionsLease>) => AsyncGenerator<arrow.RecordBatch, void, undefined>,
): Promise<BatchReader> {
  const ctx = asRealtimeContext(options.realtime, "createReader");
  ctx.checkValid();
  ctx.bind(table);
  const { mode } = validateRealtimeTable(table, "real-time read");
  const tickets = new Map<RealtimeSplit, Ticket>();
  const seen = new Set<string>();
  for (const split of splits) {
    if (!isRealtimeSplit(split)) continue;
    const info = split.realtime;
    if (info.version !== 1) throw new PaimonError("INVALID_ARGUMENT", `unsupported real-time split version ${info.version}`);
    if (seen.has(info.ticket)) throw new PaimonError("TICKET_EXPIRED", `real-time read-view ticket ${info.ticket} is used twice in one createReader call`);
    seen.add(info.ticket);
    const t = await ctx.lookupTicket(info.ticket);
    if (t.entry.bucket !== split.bucket || !bytesEqual(t.entry.partitionRow, split.partitionRow)) {
      throw new PaimonError("INVALID_ARGUMENT", `real-time read-view ticket ${info.ticket} belongs to another partition-bucket (${t.entry.description})`);
    }
    if (t.committedEnd !== info.committedEndOffset || t.memoryEnd !== info.memoryEndOffset) {
      throw new PaimonError("INVALID_ARGUMENT", `real-time read-view ticket ${info.ticket} does not match the split offset range [${info.committedEndOffset}, ${info.memoryEndOffset})`);
    }
    tickets.set(split, t);
  }
  // Every ticket is valid: consume them (from here the reader owns the views).
  const pinned = new Map<RealtimeSplit, PinnedView>();
  const consumed = ctx.consumeTickets(Array.from(tickets.values()));
  let i = 0;
  for (const s of tickets.keys()) pinned.set(s, consumed[i++]);
  let released = false;
  const releaseAll = async () => {
    if (released) return;
    released = true;
    for (const p of pinned.values()) await p.release();
  };

  if (mode === "PRIMARY_KEY") {
    let lookup: arrow.RecordBatch[] | null;
    try {
      lookup = primaryKeyLookup(table, options, outputSchema, batchSize, splits, tickets, pinned);
    } catch (e) {
      await releaseAll();
      throw e;
    }
    if (lookup !== null) return batchArrayReader(lookup, releaseAll);
    return groupedBatchReader(primaryKeyGroups(table, options, outputSchema, batchSize, splits, tickets, pinned, diskBatches), releaseAll);
  }
  const fields = table.schema.fields;
  const projection = options.projection ?? fields.map((f) => f.name);
  const columnIndexes = projection.map((name) => fields.findIndex((f) => f.name === name) + 1); // +1: offset column first
  const residual = residualOf(options, fields);
  const chunkKey = `${batchSize}:${columnIndexes.join(",")}`;
  /** DEDUPLICATE: the persisted offset column that pending deletions are looked up by, and the key column of lookups. */
  const dedupFields = mode === "DEDUPLICATE" ? dedupFieldsOf(table) : null;
  const offsetField = dedupFields?.offsetField ?? null;
  const keyLookup = dedupFields && residual ? keyLookupOf(residual, dedupFields.keyField) : null;
  const keyColumn = dedupFields ? fields.findIndex((f) => f.id === dedupFields.keyField.id) + 1 : -1; // +1: offset column first

  /** One stored batch's rows in [committed, end), not `deleted` (DEDUPLICATE), filtered, projected, in batchSize chunks. */
  const outputOf = (raw: arrow.RecordBatch, window: OffsetWindow, deleted: FrozenDeletedOffsets | null): readonly arrow.RecordBatch[] => {
    const offsets = raw.data.children[0].values as unknown as BigInt64Array;
    const n = raw.numRows;
    if (n === 0) return NONE;
    // (offsets strictly increase within a stored batch)
    const lo = window.committed < 0n ? 0 : int64LowerBound(offsets, window.committedWords);
    const hi = int64LowerBound(offsets, window.endWords);
    if (lo >= hi) return NONE;
    // DEDUPLICATE `key = v`: the batch's key index gives the candidate rows, the filter checks them
    const candidates = keyLookup ? lookupKeyRows(raw.data.children[keyColumn], keyLookup, lo, hi) : null;
    if (candidates !== null && candidates.length === 0) return NONE;
    // Rows of the window [lo, hi) to keep (null: all), filter first: a selective filter leaves
    // few offsets to test and one copy to make. The window is sliced only to filter it.
    let rows: Uint32Array | null = null;
    if (residual) {
      if (candidates === null) rows = filterBatchIndices(residual, sliceBatch(raw, lo, hi));
      else if (keyLookup!.exact) rows = candidates;
      else {
        const matched = filterBatchIndices(residual, takeRows(sliceBatch(raw, lo, hi), candidates));
        rows = matched.length === candidates.length ? candidates : pick(candidates, matched);
      }
      if (rows.length === 0) return NONE;
      if (rows.length === hi - lo) rows = null;
    }
    if (deleted) {
      const window = offsets.subarray(lo, hi);
      const keep = survivingRows(rows === null ? window : gatherInt64([window], new Uint32Array(rows.length), rows), deleted);
      if (keep !== null) {
        if (keep.length === 0) return NONE;
        rows = rows === null ? keep : pick(rows, keep);
      }
    }
    if (rows !== null) return takeOutput(raw, lo, rows, outputSchema, columnIndexes, batchSize);
    const b = sliceBatch(raw, lo, hi);
    return b === raw ? outputChunks(raw, outputSchema, columnIndexes, batchSize, chunkKey) : chunk(b, outputSchema, columnIndexes, batchSize);
  };


  /** Groups of output batches: per disk batch, per stored batch of an async store, per memory view of a synchronous one. */
  /** A DEDUPLICATE lookup of one key (`key = v`): the committed files may be skipped (see groups). */
  const oneKey = keyLookup !== null && keyLookup.identities.length === keyLookup.width;

  /** The stored batches of a split's pinned view the read needs (an array or iterable: a store holding the view in memory). */
  const queryReaderOf = (view: PinnedView, ticket: Ticket) => view.entry.store.createQueryReader(view.view, { offsetBegin: ticket.committedEnd, predicate: bothFilters(options.filter, ticket.scanFilter), readBatchSize: batchSize });

  /** The rows of a synchronous store's view (null: the store reads asynchronously, see groups). */
  const memoryOutputs = (reader: Iterable<arrow.RecordBatch> | AsyncIterable<arrow.RecordBatch>, window: OffsetWindow, deleted: FrozenDeletedOffsets | null): arrow.RecordBatch[] | null => {
    if (!(Symbol.iterator in reader)) return null;
    const out: arrow.RecordBatch[] = [];
    for (const raw of reader) for (const b of outputOf(raw, window, deleted)) out.push(b);
    return out;
  };

  /** A split's memory rows computed by `memoryOnly` before it gave up (groups reuses them). */
  const early = new Map<Split, arrow.RecordBatch[]>();

  /**
   * DEDUPLICATE key lookups (a small result) whose every row comes from memory, computed at
   * once: each split is a real-time split over a store holding its view in memory, with no
   * committed file, or with files a one-key lookup skips (its live row is in memory, see
   * groups). The same rows as `groups`, without its async generator; null otherwise.
   */
  const memoryOnly = (): arrow.RecordBatch[] | null => {
    if (!keyLookupFastPath || keyLookup === null) return null;
    const out: arrow.RecordBatch[] = [];
    let skipped = 0;
    for (const split of splits) {
      const view = isRealtimeSplit(split) ? pinned.get(split) : undefined;
      if (view === undefined) {
        if (split.files.length > 0) return null;
        continue;
      }
      if (split.files.length > 0 && !oneKey) return null;
      const ticket = tickets.get(split as RealtimeSplit)!;
      const memory = memoryOutputs(queryReaderOf(view, ticket), offsetWindow(ticket.committedEnd, ticket.memoryEnd), ticket.deleted ?? null);
      if (memory === null) return null; // (an asynchronous store: not started, nothing read)
      early.set(split, memory);
      if (split.files.length > 0) {
        if (memory.length === 0) return null;
        skipped += split.files.length;
      }
      for (const b of memory) out.push(b);
    }
    realtimeReadCounters.filesSkipped += skipped;
    realtimeReadCounters.memoryOnly++;
    return out;
  };

  async function* groups(): AsyncGenerator<readonly arrow.RecordBatch[], void, undefined> {
    for (const split of splits) {
      const view = isRealtimeSplit(split) ? pinned.get(split) : undefined;
      const ticket = view ? tickets.get(split as RealtimeSplit)! : null;
      const deleted = ticket?.deleted ?? null;
      const window = ticket ? offsetWindow(ticket.committedEnd, ticket.memoryEnd) : null;
      const readerOf = () => queryReaderOf(view!, ticket!);
      let reader: Iterable<arrow.RecordBatch> | AsyncIterable<arrow.RecordBatch> | null = null;
      let memory: arrow.RecordBatch[] | null = early.get(split) ?? null;
      if (split.files.length > 0) {
        // A lookup of one key whose row the view holds in memory (not deleted, passing the
        // filter): that row is the key's one live row, so the view's deletion vectors and pending
        // deletions hide every committed row of the key (the write that added it deleted the row
        // it superseded): the committed files hold no row of the result and are not read.
        if (oneKey && ticket !== null) memory ??= memoryOutputs((reader = readerOf()), window!, deleted);
        if (memory !== null && memory.length > 0) realtimeReadCounters.filesSkipped += split.files.length;
        else {
          // DEDUPLICATE: pending deleted offsets hide committed rows too, by exact row position
          // (borrowed from the files' offset indexes: read-only, released after the split).
          const leases = deleted ? await pendingOffsetLeases(bucketFileSource(table, split.bucketPath), split.files, offsetField!, deleted, ctx.offsetIndexCache(table)) : undefined;
          try {
            for await (const b of diskBatches([split], leases)) yield [b];
          } finally {
            if (leases) for (const lease of leases.values()) lease.release();
          }
        }
      }
      if (ticket === null) continue;
      if (memory === null) {
        reader ??= readerOf();
        memory = memoryOutputs(reader, window!, deleted);
      }
      if (memory !== null) {
        if (memory.length > 0) yield memory;
        continue;
      }
      for await (const raw of reader!) {
        const out = outputOf(raw, window!, deleted);
        if (out.length > 0) yield out;
      }
    }
  }

  let ready: arrow.RecordBatch[] | null;
  try {
    ready = memoryOnly();
  } catch (e) {
    await releaseAll();
    throw e;
  }
  if (ready !== null) return batchArrayReader(ready, releaseAll);
  return groupedBatchReader(groups(), releaseAll);
}

/**
 * A stored PK batch's rows with offsets in [committed, end), as a sorted merge run in
 * `readFields` layout. With `keyRange` (the rows a key predicate can match, found by binary
 * search since the batch is sorted by key), only those rows are windowed: a key lookup touches
 * a few rows of each stored batch, not all of them.
 */
function memoryRun(raw: arrow.RecordBatch, committed: bigint, end: bigint, pk: PrimaryKeyRead, width: number, keyFilter: Predicate | null, range: [number, number]): KvBatch | null {
  const n = raw.numRows;
  if (n === 0) return null;
  // (indexed, not destructured: destructuring iterates, which allocates in not yet optimised code)
  if (keyFilter !== null) sortedKeyRange(raw.data.children[pk.firstKeyColumn]!, pk.keyNames[0]!, keyFilter, range);
  const from = keyFilter === null ? 0 : range[0];
  const to = keyFilter === null ? n : range[1];
  if (from >= to) return null;
  const readColumns = pk.readColumns;
  const readSchema = pk.readSchema;
  const c = raw.data.children;
  const offsetData = c[0];
  const offsets = columnValues<BigInt64Array>(offsetData);
  // Sorted by key, so offsets are in no order: window row by row (order is kept).
  let kept = 0;
  const rows = new Uint32Array(to - from);
  for (let i = from; i < to; i++) if (offsets[i] >= committed && offsets[i] < end) rows[kept++] = i;
  if (kept === 0) return null;
  const seqData = c[width + 1];
  const kindData = c[width + 2];
  let sequence = columnValues<BigInt64Array>(seqData);
  let kinds = columnValues<Int8Array>(kindData);
  if (kept === n) return { batch: recordBatch(readSchema, readColumns.map((i) => c[i]), n), sequence, kinds };
  const first = rows[0];
  if (rows[kept - 1] - first === kept - 1) {
    // one contiguous range (always, unless the window cuts through): share buffers
    const batch = recordBatch(readSchema, readColumns.map((i) => c[i].slice(first, kept)), kept);
    return { batch, sequence: sequence.subarray(first, first + kept), kinds: kinds.subarray(first, first + kept) };
  }
  const take = rows.subarray(0, kept);
  const batch = takeRows(recordBatch(readSchema, readColumns.map((i) => c[i]), n), take);
  sequence = BigInt64Array.from(take, (r) => sequence[r]);
  kinds = Int8Array.from(take, (r) => kinds[r]);
  return { batch, sequence, kinds };
}

/** What every split of a PK union read shares: the merge reader and the memory runs' layout. */
interface PrimaryKeyRead {
  readonly reader: PrimaryKeySplitReader;
  readonly readColumns: readonly number[];
  readonly readSchema: arrow.Schema;
  readonly keyNames: readonly string[];
  readonly firstKeyColumn: number;
  /** The read's filter bound to the table's fields, when applied exactly (predicateFilter), else null. */
  readonly residual: Predicate | null;
}

function primaryKeyRead(table: FileStoreTable, options: RealtimeReadOptions, outputSchema: arrow.Schema, batchSize: number): PrimaryKeyRead {
  const all = table.schema.fields;
  const residual = residualOf(options, all);
  const reader = new PrimaryKeySplitReader(table, {
    fields: options.projection === undefined ? all : options.projection.map((name) => all.find((f) => f.name === name)!),
    schema: outputSchema,
    filter: residual,
    batchSize,
    withRowKind: options.withRowKind ?? false,
  });
  const readFields = reader.readFieldList;
  const readColumns = readFields.map((f) => all.indexOf(f) + 1); // +1: offset column first
  // (all columns, in table order, unless the read is projected: the table schema's cached Arrow schema)
  const readSchema = readFields.length === all.length ? readArrowSchema(all) : new arrow.Schema(readFields.map((f) => readArrowField(f)));
  const keyNames = reader.keyNames;
  const firstKeyColumn = all.findIndex((f) => f.name === keyNames[0]) + 1; // +1: offset column first
  return { reader, readColumns, readSchema, keyNames, firstKeyColumn, residual };
}

/**
 * The pinned memory runs of a real-time split, narrowed by the key predicates of the read's and
 * the scan's filters (`keyFilter`, bound; null when there are none). Only key predicates are safe
 * below the merge: a value predicate could hide the newest version. A store that holds its view
 * in memory gives them at once; otherwise (part of the view spilled) `pending` holds the stored
 * batches still to `add`.
 */
function memoryRunsOf(table: FileStoreTable, pk: PrimaryKeyRead, options: RealtimeReadOptions, batchSize: number, ticket: Ticket, view: PinnedView) {
  const { committedEnd, memoryEnd, scanFilter } = ticket;
  const both = bothFilters(options.filter, scanFilter);
  const prune = both === null ? null : splitPredicateByFields(both, pk.keyNames).picked;
  const all = table.schema.fields;
  // (the read's filter is already bound when it is the only one: its key part is the bound key filter)
  const keyFilter = prune === null ? null : both === options.filter && pk.residual !== null ? splitPredicateByFields(pk.residual, pk.keyNames).picked : bindPredicate(prune, all);
  const stored = view.entry.store.createQueryReader(view.view, { offsetBegin: committedEnd, predicate: prune, readBatchSize: batchSize });
  const memory: KvBatch[] = [];
  // (memoryRun reads the range at once: one pair serves every stored batch)
  const range: [number, number] = [0, 0];
  const width = all.length;
  if (Array.isArray(stored)) {
    // (a store holding its view in memory: the usual case, looped here without a closure per read)
    for (let i = 0; i < stored.length; i++) {
      const run = memoryRun(stored[i], committedEnd, memoryEnd, pk, width, keyFilter, range);
      if (run !== null) memory.push(run);
    }
    return { memory, keyFilter, pending: null, add: null };
  }
  const add = (raw: arrow.RecordBatch): void => {
    const run = memoryRun(raw, committedEnd, memoryEnd, pk, width, keyFilter, range);
    if (run) memory.push(run);
  };
  if (!(Symbol.iterator in stored)) return { memory, keyFilter, pending: stored, add };
  for (const raw of stored) add(raw);
  return { memory, keyFilter, pending: null, add };
}

let keyLookupFastPath = true;

/** Tests: turn the synchronous key-lookup paths (PK, and deduplicate lookups answered from memory) off (false) to compare them with the general path. */
export function setKeyLookupFastPath(enabled: boolean): void {
  keyLookupFastPath = enabled;
}

/** Tests: how many PK union reads took the synchronous key-lookup path. */
export const primaryKeyLookupCounters = { fast: 0 };

/**
 * The output of a PK union read computed at once, synchronously, when it is a key lookup that
 * needs no file: every split is a real-time split without committed files (the scan pruned them
 * by key statistics: a new key, or one only written since the last commit) over a store that
 * holds its view in memory, and the filter has a key part (a lookup's result is small). The same
 * memory runs and merge as `primaryKeyGroups`, without its async generators; null otherwise.
 */
function primaryKeyLookup(table: FileStoreTable, options: RealtimeReadOptions, outputSchema: arrow.Schema, batchSize: number, splits: readonly Split[], tickets: ReadonlyMap<RealtimeSplit, Ticket>, pinned: ReadonlyMap<RealtimeSplit, PinnedView>): arrow.RecordBatch[] | null {
  if (!keyLookupFastPath || !options.filter) return null;
  const views: Array<{ ticket: Ticket; view: PinnedView }> = [];
  for (const split of splits) {
    const view = isRealtimeSplit(split) ? pinned.get(split) : undefined;
    if (view === undefined || split.files.length > 0) return null;
    views.push({ ticket: tickets.get(split as RealtimeSplit)!, view });
  }
  const pk = primaryKeyRead(table, options, outputSchema, batchSize);
  if (splitPredicateByFields(options.filter, pk.keyNames).picked === null) return null;
  const out: arrow.RecordBatch[] = [];
  for (const { ticket, view } of views) {
    const { memory, keyFilter, pending } = memoryRunsOf(table, pk, options, batchSize, ticket, view);
    if (pending !== null) return null; // (not started: an async generator reads nothing until stepped)
    for (const b of pk.reader.readMemoryOnly(memory, keyFilter)) out.push(b);
  }
  primaryKeyLookupCounters.fast++;
  return out;
}

/**
 * PK union reads (seed "Primary Key MOR" / "Primary Key DV"): a real-time split (all disk files
 * of its partition-bucket, see scan.ts) is merged by key with the pinned memory runs, highest
 * sequence number winning and deletes dropped; only key predicates prune memory before the
 * merge, the residual filter applies after it. Other splits are read as committed PK splits.
 */
async function* primaryKeyGroups(
  table: FileStoreTable,
  options: RealtimeReadOptions,
  outputSchema: arrow.Schema,
  batchSize: number,
  splits: readonly Split[],
  tickets: ReadonlyMap<RealtimeSplit, Ticket>,
  pinned: ReadonlyMap<RealtimeSplit, PinnedView>,
  diskBatches: (splits: readonly DataSplit[]) => AsyncGenerator<arrow.RecordBatch, void, undefined>,
): AsyncGenerator<readonly arrow.RecordBatch[], void, undefined> {
  const pk = primaryKeyRead(table, options, outputSchema, batchSize);
  for (const split of splits) {
    const view = isRealtimeSplit(split) ? pinned.get(split) : undefined;
    if (!view) {
      if (split.files.length > 0) for await (const b of diskBatches([split])) yield [b];
      continue;
    }
    const { memory, keyFilter, pending, add } = memoryRunsOf(table, pk, options, batchSize, tickets.get(split as RealtimeSplit)!, view);
    if (pending !== null) for await (const raw of pending) add!(raw);
    for await (const b of pk.reader.readWithMemory(split, memory, keyFilter)) yield [b];
  }
}
