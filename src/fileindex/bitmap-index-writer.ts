// The bitmap file index writer (Java's BitmapFileIndex writer, V1 and V2 layouts): on the write
// path only, so it lives apart from the reader that query-only bundles load.
import { PaimonError } from "../error.js";
import { RoaringBitmap32 } from "../kernel/bitmap.js";
import { isNull } from "../kernel/columns.js";
import type { DataType } from "../spec/types.js";
import { BITMAP_VERSION_1, BITMAP_VERSION_2, codecOf, type BitmapKey, type KeyCodec } from "./bitmap-index.js";
import { ByteWriter } from "../spec/data-stream.js";
import { utf8Decoder } from "../spec/utf8.js";
import { doubleToLongBits, floatToIntBits, type IndexedChunk } from "./columns.js";
import { JavaHashMapReplay } from "./java-order.js";

/** Row positions per dictionary id as linked chains over rows (no per-value arrays). */
class RowChains {
  first: Int32Array<ArrayBuffer> = new Int32Array(64);
  last: Int32Array<ArrayBuffer> = new Int32Array(64);
  count: Int32Array<ArrayBuffer> = new Int32Array(64);
  next: Int32Array<ArrayBuffer> = new Int32Array(1024);

  add(id: number, row: number): void {
    if (row >= this.next.length) this.next = grow(this.next, row + 1);
    this.next[row] = -1;
    if (id >= this.first.length) {
      this.first = grow(this.first, id + 1);
      this.last = grow(this.last, id + 1);
      this.count = grow(this.count, id + 1);
    }
    if (this.count[id] === 0) this.first[id] = row;
    else this.next[this.last[id]!] = row;
    this.last[id] = row;
    this.count[id]!++;
  }

  rows(id: number): Uint32Array {
    const out = new Uint32Array(this.count[id]!);
    for (let i = 0, r = this.first[id]!; i < out.length; i++, r = this.next[r]!) out[i] = r;
    return out;
  }
}

function grow(a: Int32Array, min: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(min, a.length * 2));
  out.set(a);
  return out;
}

/** Java `RoaringBitmap32.serialize()`: run-optimized (Java's tie rule), portable layout. */
function serializeRows(rows: Uint32Array): Uint8Array {
  const bitmap = new RoaringBitmap32(rows);
  try {
    bitmap.runOptimize("java");
    return bitmap.serializePortable();
  } finally {
    bitmap.dispose();
  }
}

/** Builds one column's bitmap index, byte-identical to Java's `BitmapFileIndex.Writer`. */
export class BitmapIndexWriter {
  private readonly codec: KeyCodec;
  private readonly dictionary: JavaHashMapReplay<BitmapKey>;
  private readonly chains = new RowChains();
  private readonly nullRows: number[] = [];
  private rowCount = 0;

  constructor(
    private readonly type: DataType,
    private readonly version: number,
    private readonly indexBlockSize: number,
  ) {
    this.codec = codecOf(type);
    if (version !== BITMAP_VERSION_1 && version !== BITMAP_VERSION_2) throw new PaimonError("UNSUPPORTED", `bitmap index version ${version}`);
    this.dictionary = new JavaHashMapReplay<BitmapKey>("computeIfAbsent", this.codec.hash, this.codec.compare);
  }

  /** Adds the rows of one chunk (row positions continue across calls). */
  update(chunk: IndexedChunk): void {
    const { column, mul, div } = chunk;
    const keyAt = rowKeyReader(chunk, this.type);
    const scaled = mul !== 1n || div !== 1n;
    for (let i = 0; i < column.length; i++) {
      const row = this.rowCount++;
      if (isNull(column, i)) {
        this.nullRows.push(row);
        continue;
      }
      let key = keyAt(i);
      if (scaled) key = floorDiv((key as bigint) * mul, div);
      this.chains.add(this.dictionary.insert(key), row);
    }
  }

  serialize(): Uint8Array {
    const { codec, chains } = this;
    const out = new ByteWriter().u8(this.version);
    const nullCount = this.nullRows.length;
    const nullBytes = serializeRows(Uint32Array.from(this.nullRows));
    const keys = [...this.dictionary.keysInInsertionOrder()];
    // Java: offsets / bitmaps in HashMap order; a single-row value stores -1 - row
    const entries: Array<{ key: BitmapKey; offset: number; length: number }> = [];
    const bitmaps: Uint8Array[] = [];
    let offset = nullCount > 1 ? nullBytes.length : 0;
    for (const id of this.dictionary.iterationOrder()) {
      const key = keys[id]!;
      if (chains.count[id] === 1) {
        entries.push({ key, offset: -1 - chains.first[id]!, length: -1 });
        continue;
      }
      const bytes = serializeRows(chains.rows(id));
      bitmaps.push(bytes);
      entries.push({ key, offset, length: bytes.length });
      offset += bytes.length;
    }
    out.i32(this.rowCount).i32(keys.length).u8(nullCount > 0 ? 1 : 0);
    if (nullCount > 0) out.i32(nullCount === 1 ? -1 - this.nullRows[0]! : 0);
    if (this.version === BITMAP_VERSION_1) {
      for (const e of entries) {
        codec.write(out, e.key);
        out.i32(e.offset);
      }
    } else {
      if (nullCount > 0) out.i32(nullBytes.length);
      this.writeIndexBlocks(out, entries);
    }
    if (nullCount > 1) out.bytes(nullBytes);
    for (const b of bitmaps) out.bytes(b);
    return out.toBytes();
  }

  /** V2 dictionary: entries sorted by value, cut into blocks of at most `indexBlockSize` bytes. */
  private writeIndexBlocks(out: ByteWriter, entries: Array<{ key: BitmapKey; offset: number; length: number }>): void {
    const { codec } = this;
    const sorted = entries.slice().sort((a, b) => codec.compare(a.key, b.key));
    const blocks: Array<{ offset: number; size: number; entries: typeof entries }> = [];
    for (const e of sorted) {
      const entryBytes = 8 + codec.size(e.key);
      let block = blocks[blocks.length - 1];
      if (block === undefined || block.size + entryBytes > this.indexBlockSize) {
        // Java fails the same way ("index fail") when one entry does not fit an empty block
        if (4 + entryBytes > this.indexBlockSize) throw new PaimonError("INVALID_ARGUMENT", "bitmap index-block-size is smaller than one entry");
        block = { offset: block === undefined ? 0 : block.offset + block.size, size: 4, entries: [] };
        blocks.push(block);
      }
      block.size += entryBytes;
      block.entries.push(e);
    }
    out.i32(blocks.length);
    let bitmapsOffset = 0;
    for (const block of blocks) {
      codec.write(out, block.entries[0]!.key);
      out.i32(block.offset);
      bitmapsOffset += block.size;
    }
    out.i32(bitmapsOffset);
    for (const block of blocks) {
      out.i32(block.entries.length);
      for (const e of block.entries) {
        codec.write(out, e.key);
        out.i32(e.offset).i32(e.length);
      }
    }
  }
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Reads row `i` of a chunk as a dictionary key (before timestamp scaling). */
function rowKeyReader(chunk: IndexedChunk, type: DataType): (i: number) => BitmapKey {
  const { column } = chunk;
  switch (column.type) {
    case "bool": {
      const v = column.values as Uint8Array;
      return (i) => v[i] !== 0;
    }
    case "int8":
    case "int16":
    case "int32": {
      const v = column.values as Int8Array | Int16Array | Int32Array;
      return (i) => v[i]!;
    }
    case "int64":
    case "timestamp_micros":
    case "timestamp_nanos": {
      const v = column.values as BigInt64Array;
      return (i) => v[i]!;
    }
    case "float32": {
      const v = column.values as Float32Array;
      return (i) => floatToIntBits(v[i]!);
    }
    case "float64": {
      const v = column.values as Float64Array;
      return (i) => doubleToLongBits(v[i]!);
    }
    case "bytes": {
      const offsets = column.offsets!;
      const data = column.data!;
      return (i) => utf8Decoder.decode(data.subarray(offsets[i]!, offsets[i + 1]!));
    }
    default:
      throw new PaimonError("UNSUPPORTED", `bitmap index does not support ${type.kind}`);
  }
}
