// The dictionary of a bitmap file index over a BIGINT column as sorted typed arrays: the exact
// offset -> row-position lookups of append-deduplicate reads and commits (read/offset-positions.ts).
// Its own module so that query-only bundles, which read bitmap indexes through BitmapIndexReader,
// do not carry it.
import { gatherInt64, strictlyAscendingInt64 } from "../arrow/gather.js";
import { PaimonError } from "../error.js";
import { sortPermutation } from "../kernel/sort.js";
import type { DataType } from "../spec/types.js";
import { bitmapRows, FAMILY, parseBitmapIndex } from "./bitmap-index.js";

/**
 * The dictionary of a bitmap index over a 64-bit integer column (BIGINT), as typed arrays sorted
 * by value: exact value → row lookups over millions of distinct values (an offset column holds
 * one per row) without a Map entry or a BigInt per value. Keeps only the bitmaps' bytes of the
 * payload, none when every value is in one row.
 */
export class Int64BitmapDictionary {
  /** Distinct values, ascending. */
  readonly values: BigInt64Array;
  /** Per value: its bitmap's offset relative to `bitmaps`, or `-1 - row` for a single-row value. */
  private readonly entries: Int32Array;
  /** The bitmaps of values in several rows (null when there are none). */
  private readonly bitmaps: Uint8Array | null;
  readonly rowCount: number;

  constructor(payload: Uint8Array, type: DataType) {
    if (FAMILY[type.kind] !== "long") throw new PaimonError("INVALID_ARGUMENT", `an Int64BitmapDictionary needs a BIGINT or timestamp column, not ${type.kind}`);
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    let words = new Int32Array(0);
    let entries = new Int32Array(0);
    let n = 0;
    const layout = parseBitmapIndex(payload, {
      start: (valueCount) => {
        words = new Int32Array(2 * valueCount);
        entries = new Int32Array(valueCount);
      },
      entry: (r) => {
        const at = r.bytesOf(8).byteOffset - payload.byteOffset;
        // big-endian i64 → this platform's order (little-endian words, as the kernels assume)
        words[2 * n] = view.getInt32(at + 4);
        words[2 * n + 1] = view.getInt32(at);
        entries[n++] = r.i32();
      },
      skipKey: (r) => r.bytesOf(8),
    });
    let values: BigInt64Array = new BigInt64Array(words.buffer, 0, n);
    if (!strictlyAscendingInt64(values)) {
      // V1 lists values in Java HashMap order
      const order = sortPermutation([{ type: "int64", length: n, values }], new BigInt64Array(n));
      const unsorted = values;
      const unsortedEntries = entries;
      values = gatherInt64([unsorted], new Uint32Array(n), order);
      entries = Int32Array.from(order, (i) => unsortedEntries[i]);
      if (!strictlyAscendingInt64(values)) throw new PaimonError("CORRUPT_FILE", "bitmap file index: a dictionary value appears twice");
    }
    this.values = values;
    this.entries = entries;
    this.rowCount = layout.rowCount;
    const hasBitmaps = this.entries.some((e) => e >= 0);
    this.bitmaps = hasBitmaps ? payload.slice(layout.bodyStart) : null;
  }

  get valueCount(): number {
    return this.values.length;
  }

  /** Bytes held (values, entries, bitmaps). */
  get memoryBytes(): number {
    return this.values.byteLength + this.entries.byteLength + (this.bitmaps?.byteLength ?? 0);
  }

  /** Row positions of the value at index `i` of `values`. */
  rowsAt(i: number): Uint32Array {
    const e = this.entries[i];
    if (e < 0) return Uint32Array.of(-1 - e);
    if (!this.bitmaps) throw new PaimonError("CORRUPT_FILE", "bitmap file index: bitmap offset past the end");
    return bitmapRows(this.bitmaps, 0, e);
  }

  /** Single row of the value at index `i`, or -1 when it has a bitmap (several rows). */
  singleRowAt(i: number): number {
    const e = this.entries[i];
    return e < 0 ? -1 - e : -1;
  }
}
