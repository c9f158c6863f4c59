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
   * The last lookup: a copy of its offsets, its trimmed range and row positions. Pending sets
   * mostly grow between reads (by a write's superseded offsets), so the next lookup over a
   * superset looks up the difference only.
   */
  private last: { offsets: OffsetSet64; from: bigint; to: bigint; hits: Uint32Array } | null = null;

  /** Row positions whose offset is in `offsets` (`IN`); `bounds` trims the offsets looked up. The caller owns the bitmap. */
  positionsIn(offsets: OffsetSet64, bounds: OffsetBounds | null = null): RoaringBitmap32 {
    const out = new RoaringBitmap32();
    let difference: OffsetSet64 | null = null;
    try {
      const values = this.dictionary.values;
      const n = values.length;
      if (offsets.isEmpty || n === 0) return out;
      // Offsets are non-negative (OffsetSet64 holds unsigned values): a file's negative min trims nothing.
      let from = bounds && bounds.min > 0n ? bounds.min : 0n;
      let to = bounds ? bounds.max : (offsets.maximum() as bigint);
      if (values[0] > from) from = values[0];
      if (values[n - 1] < to) to = values[n - 1];
      if (from > to) return out;
      let lookUp = offsets;
      const last = this.last;
      if (last && last.from === from && last.to === to && offsets.size >= last.offsets.size) {
        const dropped = OffsetSet64.andNot(last.offsets, offsets);
        const superset = dropped.isEmpty;
        dropped.dispose();
        if (superset) {
          out.addMany(last.hits);
          lookUp = difference = OffsetSet64.andNot(offsets, last.offsets);
        }
      }
      if (!lookUp.isEmpty) this.lookUpInto(lookUp, from, to, out);
      const hits = out.toArray();
      last?.offsets.dispose();
      this.last = { offsets: offsets.clone(), from, to, hits };
      return out;
    } catch (e) {
      out.dispose();
      throw e;
    } finally {
      difference?.dispose();
    }
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

/**
 * The row positions, per data file, of the rows whose offset column (`offsetField`, matched by
 * field id in each file's schema) holds a `pending` offset: what a deduplicate commit merges into
 * the files' deletion vectors. Files whose reliable min/max statistics exclude every pending offset
 * are skipped without reading their index. Files without hits are left out.
 */
export async function pendingOffsetPositions(
  source: OffsetFileSource,
  files: readonly DataFileMeta[],
  offsetField: DataField,
  pending: OffsetSet64,
  cache: OffsetIndexCache | null = null,
): Promise<Map<string, Uint32Array>> {
  const out = new Map<string, Uint32Array>();
  if (pending.isEmpty) return out;
  const lowest = pending.minimum() as bigint;
  const highest = pending.maximum() as bigint;
  for (const file of files) {
    const fileFields = await source.fieldsOf(file.schemaId);
    const field = fileFields.find((f) => f.id === offsetField.id);
    if (!field) throw new PaimonError("UNSUPPORTED", `data file ${file.fileName} has no ${offsetField.name} column (field id ${offsetField.id}): its offsets cannot be looked up`);
    const bounds = reliableOffsetBounds(file, fileFields, field.name);
    if (bounds && (bounds.max < lowest || bounds.min > highest)) continue;
    const path = source.pathOf(file);
    const index = cache ? await cache.get(source.io, path, file, field) : await OffsetPositionIndex.ofFile(source.io, path, file, field);
    const hits = index.positionsIn(pending, bounds);
    try {
      if (!hits.isEmpty) out.set(file.fileName, hits.toArray());
    } finally {
      hits.dispose();
    }
  }
  return out;
}
