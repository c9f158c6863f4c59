// Exact offset → row-position lookup of append-deduplicate data files (seed 000 "Append
// Deduplicate / Offset DV": "logical offset -> physical row positions: exact _REALTIME_OFFSET
// file index"). Pending deleted offsets become, per file, the positions of `_REALTIME_OFFSET IN
// (...)` (rows to hide or to mark in a deletion vector) or of `NOT IN (...)` (rows to keep),
// answered by the file's bitmap index alone. The offsets looked up are trimmed to the file's
// min/max statistics when those are reliable; otherwise every offset is looked up.
import { PaimonError } from "../error.js";
import { BITMAP } from "../fileindex/bitmap-index.js";
import { Int64BitmapDictionary } from "../fileindex/int64-bitmap-dictionary.js";
import { indexPayload, readFileIndexHeader } from "../fileindex/format.js";
import type { FileIO } from "../fs/file-io.js";
import { LoadCache } from "../fs/load-cache.js";
import { OffsetSet64, RoaringBitmap32 } from "../kernel/bitmap.js";
import { valueStatsOf } from "../predicate/stats.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import { fileIndexBlob } from "./file-index-filter.js";

/** Offsets looked up per page of the pending set (bounded memory for huge sets). */
const PAGE = 4096;
/** Up to this many offsets added to a pending log since the last read are looked up by binary search each. */
const LOOKUP_ONE_BY_ONE = 1024;

let generations = 0;

/**
 * The pending deleted offsets of one generation (from one commit to the next) in the order they
 * were deleted: append-only, so a frozen pending state is a prefix of it (`PendingOffsets`).
 */
export class OffsetLog {
  /** Creation order of logs: a later generation has a larger number. */
  readonly generation = ++generations;
  private buffer: BigInt64Array;
  private count = 0;

  constructor(initial?: BigInt64Array | BigUint64Array) {
    this.buffer = new BigInt64Array(Math.max(16, initial?.length ?? 0));
    if (initial) this.append(initial);
  }

  get length(): number {
    return this.count;
  }

  /** The offsets appended so far (a view: later appends never change it). */
  get values(): BigInt64Array {
    return this.buffer.subarray(0, this.count);
  }

  /** Bytes held. */
  get memoryBytes(): number {
    return this.buffer.byteLength;
  }

  append(offsets: BigInt64Array | BigUint64Array): void {
    const n = offsets.length;
    if (this.count + n > this.buffer.length) {
      const grown = new BigInt64Array(Math.max(2 * this.buffer.length, this.count + n));
      grown.set(this.buffer.subarray(0, this.count));
      this.buffer = grown;
    }
    // the same 64 bits: offsets are non-negative
    this.buffer.set(offsets instanceof BigInt64Array ? offsets : new BigInt64Array(offsets.buffer, offsets.byteOffset, n), this.count);
    this.count += n;
  }
}

/**
 * Pending deleted offsets: a set, and optionally the log it was frozen from with the log's length
 * then (`offsets` holds exactly `log.values[0, logLength)`): reads resolve it incrementally.
 */
export interface PendingOffsets {
  readonly offsets: OffsetSet64;
  readonly log?: OffsetLog;
  readonly logLength?: number;
}

/** Inclusive offset bounds of a file's rows. */
export interface OffsetBounds {
  min: bigint;
  max: bigint;
}

/**
 * The min/max of the offset column from the file's value statistics, or null when they are not
 * reliable: missing (stats mode none, a column outside the stored stats columns), not BIGINT
 * values, or min > max.
 */
export function reliableOffsetBounds(file: DataFileMeta, fileFields: readonly DataField[], column: string): OffsetBounds | null {
  const field = fileFields.find((f) => f.name === column);
  if (!field || field.type.kind !== "BIGINT") return null;
  const stats = valueStatsOf(file, fileFields).columns[column];
  const min = stats?.min;
  const max = stats?.max;
  if (typeof min !== "bigint" || typeof max !== "bigint" || min > max) return null;
  return { min, max };
}

/** A data file's exact bitmap index on its offset column, decoded into sorted typed arrays. */
export class OffsetPositionIndex {
  private constructor(
    private readonly dictionary: Int64BitmapDictionary,
    /** Rows of the data file. */
    readonly rowCount: number,
  ) {}

  /**
   * The bitmap index on `column` in a file index blob (`rowCount` rows). UNSUPPORTED naming the
   * file when the blob has no bitmap index on it (bloom filters cannot give exact positions);
   * CORRUPT_FILE when the index disagrees with the file's row count.
   */
  static fromBlob(blob: Uint8Array | null, column: DataField, rowCount: number, fileName: string): OffsetPositionIndex {
    const location = blob ? readFileIndexHeader(blob).get(column.name)?.get(BITMAP) : undefined;
    const payload = blob && location ? indexPayload(blob, location) : null;
    if (!payload) throw new PaimonError("UNSUPPORTED", `data file ${fileName} has no exact bitmap file index on ${column.name} (needed to map offsets to row positions)`);
    const dictionary = new Int64BitmapDictionary(payload, column.type);
    if (dictionary.rowCount !== rowCount) throw new PaimonError("CORRUPT_FILE", `bitmap index on ${column.name} of ${fileName} covers ${dictionary.rowCount} rows, the file has ${rowCount}`);
    return new OffsetPositionIndex(dictionary, rowCount);
  }

  /** The index of a data file (embedded in its manifest entry or in its `.index` extra file). */
  static async ofFile(io: FileIO, dataFilePath: string, file: DataFileMeta, column: DataField): Promise<OffsetPositionIndex> {
    return OffsetPositionIndex.fromBlob(await fileIndexBlob(io, dataFilePath, file), column, Number(file.rowCount), file.fileName);
  }

  /** Bytes the decoded index holds. */
  get memoryBytes(): number {
    return this.dictionary.memoryBytes;
  }

  /**
   * Positions of the pending offsets of the latest generation read (`PendingOffsets.log`): what
   * the first `length` offsets of its log resolve to. The log only grows, so a read of a longer
   * prefix looks up the offsets added since and adds their rows here: in place while no read
   * borrows them, else into a copy (copy-on-write: an older view must not see what a newer one
   * added).
   */
  private pending: SharedPositions | null = null;

  /** Row positions whose offset is in `offsets` (`IN`); `bounds` trims the offsets looked up. The caller owns the bitmap. */
  positionsIn(offsets: OffsetSet64, bounds: OffsetBounds | null = null): RoaringBitmap32 {
    const out = new RoaringBitmap32();
    try {
      const values = this.dictionary.values;
      const n = values.length;
      if (offsets.isEmpty || n === 0) return out;
      // Offsets are non-negative (OffsetSet64 holds unsigned values): a file's negative min trims nothing.
      let from = bounds && bounds.min > 0n ? bounds.min : 0n;
      let to = bounds ? bounds.max : (offsets.maximum() as bigint);
      if (values[0] > from) from = values[0];
      if (values[n - 1] < to) to = values[n - 1];
      if (from <= to) this.lookUpInto(offsets, from, to, out);
      return out;
    } catch (e) {
      out.dispose();
      throw e;
    }
  }

  /**
   * `positionsIn(pending.offsets)`, incrementally when `pending` has a log: the cached positions of
   * the log's prefix read last are extended by the offsets added since (a pending set only grows
   * between commits: one read after a write looks up that write's superseded offsets only). A
   * view of a shorter prefix than the cached one (an older view read late) is resolved from its
   * set. The caller owns the bitmap.
   */
  positionsOfPending(pending: PendingOffsets): RoaringBitmap32 {
    return ownedHits(this.borrowPending(pending));
  }

  /**
   * `positionsOfPending` without a copy per read: when the cached positions are those of
   * `pending`'s log prefix (or are extended to it), the cached bitmap itself, borrowed. The
   * caller must not change the lease's `hits` and calls `release()` once when done (a borrowed
   * bitmap is never extended: the next longer prefix goes into a copy); otherwise a bitmap of its
   * own, disposed by `release`.
   */
  borrowPending(pending: PendingOffsets): PositionsLease {
    const { log, logLength } = pending;
    if (!log || logLength === undefined) return new OwnedPositions(this.positionsIn(pending.offsets));
    const c = this.pending;
    if (c !== null && c.log === log && c.length <= logLength) {
      if (c.length < logLength) {
        const added = log.values.subarray(c.length, logLength);
        if (c.borrowers === 0) {
          this.lookUpValues(added, c.hits);
          c.length = logLength;
        } else {
          const hits = c.hits.clone();
          try {
            this.lookUpValues(added, hits);
          } catch (e) {
            hits.dispose();
            throw e;
          }
          this.replacePending(new SharedPositions(log, logLength, hits));
        }
      }
      return this.pending!.borrow();
    }
    const hits = this.positionsIn(pending.offsets);
    // keep the newest generation's (or the longer) prefix
    if (c === null || (c.log === log ? c.length < logLength : c.log.generation < log.generation)) {
      this.replacePending(new SharedPositions(log, logLength, hits));
      return this.pending!.borrow();
    }
    return new OwnedPositions(hits);
  }

  private replacePending(next: SharedPositions): void {
    this.pending?.retire();
    this.pending = next;
  }

  /** Adds the row positions of `offsets` (any order) to `out`. */
  private lookUpValues(offsets: BigInt64Array, out: RoaringBitmap32): void {
    if (offsets.length === 0) return;
    if (offsets.length > LOOKUP_ONE_BY_ONE) {
      const set = new OffsetSet64(offsets);
      try {
        const values = this.dictionary.values;
        if (values.length > 0) this.lookUpInto(set, values[0] < 0n ? 0n : values[0], values[values.length - 1], out);
      } finally {
        set.dispose();
      }
      return;
    }
    const values = this.dictionary.values;
    const n = values.length;
    const words = new Int32Array(values.buffer, values.byteOffset, 2 * n);
    const asked = new Int32Array(offsets.buffer, offsets.byteOffset, 2 * offsets.length);
    const rows = new PositionBuffer();
    for (let j = 0; j < offsets.length; j++) {
      const hi = asked[2 * j + 1];
      const lo = asked[2 * j] >>> 0;
      const k = lowerBound(words, 0, n, hi, lo, false);
      if (k < n && words[2 * k + 1] === hi && words[2 * k] >>> 0 === lo) this.addRows(rows, out, k);
    }
    rows.flushInto(out);
  }

  /** Adds the row positions of `offsets` within [from, to] (inside the file's values) to `out`. */
  private lookUpInto(offsets: OffsetSet64, from: bigint, to: bigint, out: RoaringBitmap32): void {
    const values = this.dictionary.values;
    const n = values.length;
    const words = new Int32Array(values.buffer, values.byteOffset, 2 * n);
    const first = lowerBound(words, 0, n, Number(from >> 32n) | 0, Number(from & 0xffffffffn), false);
    const end = lowerBound(words, first, n, Number(to >> 32n) | 0, Number(to & 0xffffffffn), true);
    const rows = new PositionBuffer();
    if (offsets.size > end - first) {
      // Fewer file values in range than pending offsets: test each value.
      const hit = offsets.hasMany(new BigUint64Array(values.buffer, values.byteOffset + 8 * first, end - first));
      for (let i = 0; i < hit.length; i++) if (hit[i] !== 0) this.addRows(rows, out, first + i);
    } else {
      // Walk the pending offsets in [from, to], galloping through the sorted values.
      let k = first;
      let cursor = from;
      for (;;) {
        const page = offsets.page(cursor, PAGE);
        const pw = new Uint32Array(page.buffer, page.byteOffset, 2 * page.length);
        for (let j = 0; j < page.length && k < end; j++) {
          const hi = pw[2 * j + 1] | 0;
          const lo = pw[2 * j];
          k = gallop(words, k, end, hi, lo);
          if (k < end && words[2 * k + 1] === hi && words[2 * k] >>> 0 === lo) this.addRows(rows, out, k);
        }
        if (k >= end || page.length < PAGE) break;
        cursor = page[page.length - 1] + 1n;
        if (cursor > to) break;
      }
    }
    rows.flushInto(out);
  }

  private addRows(rows: PositionBuffer, out: RoaringBitmap32, i: number): void {
    const row = this.dictionary.singleRowAt(i);
    if (row >= 0) rows.push(row);
    else out.addMany(this.dictionary.rowsAt(i));
  }

  /** Row positions whose offset is not in `offsets` (`NOT IN`; the offset column has no nulls). The caller owns the bitmap. */
  positionsNotIn(offsets: OffsetSet64, bounds: OffsetBounds | null = null): RoaringBitmap32 {
    const hit = this.positionsIn(offsets, bounds);
    try {
      const out = new RoaringBitmap32();
      if (this.rowCount > 0) out.addRange(0, this.rowCount);
      return out.andNotInPlace(hit);
    } finally {
      hit.dispose();
    }
  }
}

/** Row positions of pending deletions lent to a read: `hits` must not be changed; `release()` once when done. */
export interface PositionsLease {
  readonly hits: RoaringBitmap32;
  release(): void;
}

/** A lease of a bitmap of its own (not cached): releasing it disposes it. */
class OwnedPositions implements PositionsLease {
  constructor(readonly hits: RoaringBitmap32) {}

  release(): void {
    this.hits.dispose();
  }
}

/**
 * The cached positions of one log prefix and how many reads borrow them: extended in place
 * only while none does; freed when retired from the cache and no longer borrowed.
 */
class SharedPositions implements PositionsLease {
  borrowers = 0;
  private current = true;

  constructor(
    readonly log: OffsetLog,
    public length: number,
    readonly hits: RoaringBitmap32,
  ) {}

  borrow(): this {
    this.borrowers++;
    return this;
  }

  /** Ends one borrow (see OffsetPositionIndex.borrowPending). */
  release(): void {
    if (this.borrowers <= 0) throw new PaimonError("INVALID_ARGUMENT", "pending row positions released more often than borrowed");
    if (--this.borrowers === 0 && !this.current) this.hits.dispose();
  }

  /** No longer the cache's entry: freed now or by its last borrower. */
  retire(): void {
    this.current = false;
    if (this.borrowers === 0) this.hits.dispose();
  }
}

/** Growable row positions, added to a bitmap at once. */
class PositionBuffer {
  private rows = new Uint32Array(64);
  private n = 0;

  push(row: number): void {
    if (this.n === this.rows.length) {
      const grown = new Uint32Array(2 * this.n);
      grown.set(this.rows);
      this.rows = grown;
    }
    this.rows[this.n++] = row;
  }

  flushInto(out: RoaringBitmap32): void {
    if (this.n > 0) out.addMany(this.rows.subarray(0, this.n));
    this.n = 0;
  }
}

/** Compares int64 value `i` of little-endian `words` with (hi, lo): negative, 0 or positive. */
function compareAt(words: Int32Array, i: number, hi: number, lo: number): number {
  const h = words[2 * i + 1];
  if (h !== hi) return h < hi ? -1 : 1;
  const l = words[2 * i] >>> 0;
  return l === lo ? 0 : l < lo ? -1 : 1;
}

/** First index in [from, to) whose value is >= (hi, lo), or > (hi, lo) when `past` (binary search; values ascending). */
function lowerBound(words: Int32Array, from: number, to: number, hi: number, lo: number, past: boolean): number {
  let a = from;
  let b = to;
  const below = past ? 1 : 0;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (compareAt(words, mid, hi, lo) < below) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** lowerBound from `from`, probing 1, 2, 4 … ahead first: cheap when the next match is near. */
function gallop(words: Int32Array, from: number, to: number, hi: number, lo: number): number {
  if (from >= to || compareAt(words, from, hi, lo) >= 0) return from;
  let step = 1;
  let prev = from;
  let probe = from + 1;
  while (probe < to && compareAt(words, probe, hi, lo) < 0) {
    prev = probe;
    step *= 2;
    probe = from + step;
  }
  return lowerBound(words, prev + 1, Math.min(probe, to), hi, lo, false);
}

/**
 * Decoded offset indexes of immutable data files, by path, least recently used evicted past
 * `maxBytes` (the table's `lookup.cache-max-memory-size`): real-time reads resolve the same
 * files' pending deletions on every read. Concurrent misses of one file share one load.
 */
export class OffsetIndexCache {
  private readonly loads: LoadCache<OffsetPositionIndex>;

  constructor(readonly maxBytes: number) {
    this.loads = new LoadCache(maxBytes, (index) => index.memoryBytes);
  }

  /** Bytes held by the cached indexes. */
  get memoryBytes(): number {
    return this.loads.weight;
  }

  /** Number of cached indexes. */
  get size(): number {
    return this.loads.size;
  }

  /** The index on `column` of a data file, from the cache or read and decoded. */
  get(io: FileIO, dataFilePath: string, file: DataFileMeta, column: DataField): Promise<OffsetPositionIndex> {
    return this.loads.get(`${column.name}\u0000${dataFilePath}`, () => OffsetPositionIndex.ofFile(io, dataFilePath, file, column));
  }

  /** Drops every cached index. */
  clear(): void {
    this.loads.clear();
  }
}

/** Where the files of one partition-bucket are and which schema each was written with. */
export interface OffsetFileSource {
  io: FileIO;
  /** Path of a data file of the bucket. */
  pathOf: (file: DataFileMeta) => string;
  /** Fields of the schema a file was written with. */
  fieldsOf: (schemaId: number | bigint) => Promise<readonly DataField[]>;
}

/** A lease's bitmap as one of the caller's own: the owned bitmap itself, else a copy (the lease released). */
function ownedHits(lease: PositionsLease): RoaringBitmap32 {
  if (lease instanceof OwnedPositions) return lease.hits;
  try {
    return lease.hits.clone();
  } finally {
    lease.release();
  }
}

/**
 * The row positions, per data file, of the rows whose offset column (`offsetField`, matched by
 * field id in each file's schema) holds a `pending` offset: what a deduplicate commit merges into
 * the files' deletion vectors, and what a real-time read hides. Files whose reliable min/max
 * statistics exclude every pending offset are skipped without reading their index. Files without
 * hits are left out. Leased (OffsetPositionIndex.borrowPending): the caller must not change the
 * bitmaps and releases every lease once done.
 */
export async function pendingOffsetLeases(
  source: OffsetFileSource,
  files: readonly DataFileMeta[],
  offsetField: DataField,
  pending: PendingOffsets,
  cache: OffsetIndexCache | null = null,
): Promise<Map<string, PositionsLease>> {
  const out = new Map<string, PositionsLease>();
  const set = pending.offsets;
  if (set.isEmpty) return out;
  const lowest = set.minimum() as bigint;
  const highest = set.maximum() as bigint;
  try {
    for (const file of files) {
      const fileFields = await source.fieldsOf(file.schemaId);
      const field = fileFields.find((f) => f.id === offsetField.id);
      if (!field) throw new PaimonError("UNSUPPORTED", `data file ${file.fileName} has no ${offsetField.name} column (field id ${offsetField.id}): its offsets cannot be looked up`);
      const bounds = reliableOffsetBounds(file, fileFields, field.name);
      if (bounds && (bounds.max < lowest || bounds.min > highest)) continue;
      const path = source.pathOf(file);
      const index = cache ? await cache.get(source.io, path, file, field) : await OffsetPositionIndex.ofFile(source.io, path, file, field);
      const lease = index.borrowPending(pending);
      if (lease.hits.isEmpty) lease.release();
      else out.set(file.fileName, lease);
    }
    return out;
  } catch (e) {
    for (const lease of out.values()) lease.release();
    throw e;
  }
}

/** `pendingOffsetLeases` as ascending position arrays. */
export async function pendingOffsetPositions(
  source: OffsetFileSource,
  files: readonly DataFileMeta[],
  offsetField: DataField,
  pending: OffsetSet64,
  cache: OffsetIndexCache | null = null,
): Promise<Map<string, Uint32Array>> {
  const out = new Map<string, Uint32Array>();
  const leases = await pendingOffsetLeases(source, files, offsetField, { offsets: pending }, cache);
  try {
    for (const [name, lease] of leases) out.set(name, lease.hits.toArray());
  } finally {
    for (const lease of leases.values()) lease.release();
  }
  return out;
}
