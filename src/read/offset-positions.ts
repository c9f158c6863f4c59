// Exact offset → row-position lookup of append-deduplicate data files (seed 000 "Append
// Deduplicate / Offset DV": "logical offset -> physical row positions: exact _REALTIME_OFFSET
// file index"). Pending deleted offsets become, per file, the positions of `_REALTIME_OFFSET IN
// (...)` (rows to hide or to mark in a deletion vector) or of `NOT IN (...)` (rows to keep),
// answered by the file's bitmap index alone. The offsets looked up are trimmed to the file's
// min/max statistics when those are reliable; otherwise every offset is looked up.
import { PaimonError } from "../error.js";
import { BITMAP, BitmapIndexReader } from "../fileindex/bitmap-index.js";
import { indexPayload, readFileIndexHeader } from "../fileindex/format.js";
import type { FileIO } from "../fs/file-io.js";
import { type OffsetSet64, RoaringBitmap32 } from "../kernel/bitmap.js";
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

/** A data file's exact bitmap index on its offset column. */
export class OffsetPositionIndex {
  private constructor(
    private readonly reader: BitmapIndexReader,
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
    const reader = new BitmapIndexReader(payload, column.type);
    if (reader.rowCount !== rowCount) throw new PaimonError("CORRUPT_FILE", `bitmap index on ${column.name} of ${fileName} covers ${reader.rowCount} rows, the file has ${rowCount}`);
    return new OffsetPositionIndex(reader, rowCount);
  }

  /** The index of a data file (embedded in its manifest entry or in its `.index` extra file). */
  static async ofFile(io: FileIO, dataFilePath: string, file: DataFileMeta, column: DataField): Promise<OffsetPositionIndex> {
    return OffsetPositionIndex.fromBlob(await fileIndexBlob(io, dataFilePath, file), column, Number(file.rowCount), file.fileName);
  }

  /** Row positions whose offset is in `offsets` (`IN`); `bounds` trims the offsets looked up. The caller owns the bitmap. */
  positionsIn(offsets: OffsetSet64, bounds: OffsetBounds | null = null): RoaringBitmap32 {
    const out = new RoaringBitmap32();
    try {
      if (offsets.isEmpty) return out;
      // Offsets are non-negative (OffsetSet64 holds unsigned values): a file's negative min trims nothing.
      const from = bounds && bounds.min > 0n ? bounds.min : 0n;
      const to = bounds ? bounds.max : (offsets.maximum() as bigint);
      if (from > to) return out;
      // Few distinct offsets in the file against many pending ones: walk the dictionary instead.
      if (!bounds && offsets.size > this.reader.valueCount) {
        const keys = Array.from(this.reader.keys(), (k) => k as bigint).filter((k) => k >= 0n);
        const hit = offsets.hasMany(BigUint64Array.from(keys));
        keys.forEach((k, i) => {
          if (hit[i]) out.addMany(this.reader.rows(k));
        });
        return out;
      }
      let cursor = from;
      for (;;) {
        const page = offsets.page(cursor, PAGE);
        if (page.length === 0) break;
        let stop = false;
        for (const offset of page) {
          if (offset > to) {
            stop = true;
            break;
          }
          if (this.reader.has(offset)) out.addMany(this.reader.rows(offset));
        }
        if (stop || page.length < PAGE) break;
        cursor = page[page.length - 1] + 1n;
      }
      return out;
    } catch (e) {
      out.dispose();
      throw e;
    }
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
export async function pendingOffsetPositions(source: OffsetFileSource, files: readonly DataFileMeta[], offsetField: DataField, pending: OffsetSet64): Promise<Map<string, Uint32Array>> {
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
    const index = await OffsetPositionIndex.ofFile(source.io, source.pathOf(file), file, field);
    const hits = index.positionsIn(pending, bounds);
    try {
      if (!hits.isEmpty) out.set(file.fileName, hits.toArray());
    } finally {
      hits.dispose();
    }
  }
  return out;
}
