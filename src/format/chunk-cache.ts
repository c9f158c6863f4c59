// Decoded Parquet column chunks of data files, for selective reads that come back to the same
// chunks (key lookups over committed files, seed "Primary Key MOR"). Decoding a page of a
// dictionary-encoded column decodes the whole dictionary page too, which for a key or sequence
// column of unique values costs about as much as the whole chunk: a lookup that decodes a few
// pages of every file pays that every time. Data files never change once written (keys carry
// the path and size), so entries need no invalidation; the cache is bounded by memory, least
// recently used dropped first.
import * as arrow from "apache-arrow";

/** Default of `read.chunk-cache.max-memory`. */
export const DEFAULT_CHUNK_CACHE_BYTES = 64 * 1024 * 1024;

/** Bytes held by the buffers of `data` (validity, offsets, values, children, dictionary). */
export function dataBytes(data: arrow.Data): number {
  let n = (data.nullBitmap?.byteLength ?? 0) + (data.valueOffsets?.byteLength ?? 0) + ((data.values as ArrayBufferView | undefined)?.byteLength ?? 0);
  for (const c of data.children) n += dataBytes(c);
  if (data.dictionary) for (const d of data.dictionary.data) n += dataBytes(d);
  return n;
}

/** `data` with its own copies of exactly its buffers. */
function compactData(data: arrow.Data): arrow.Data {
  const copy = <T extends { slice(): T }>(b: T | undefined | null): T | undefined => (b ? b.slice() : undefined);
  const buffers = [copy(data.valueOffsets), copy(data.values as Uint8Array | undefined), copy(data.nullBitmap), copy(data.typeIds)];
  return new arrow.Data(data.type, data.offset, data.length, data.nullCount, buffers as never, data.children.map(compactData), data.dictionary);
}

/** What a chunk cache holds and has done (tests and benchmarks read it). */
export interface ChunkCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  /** Chunks decoded whole and stored. */
  stored: number;
  evicted: number;
}

/**
 * An LRU of decoded column chunks bounded by `maxBytes` (0 disables it). A chunk is decoded
 * whole and kept only when it is asked for a second time (a one-off lookup decodes just the
 * pages it needs) and when it takes at most a quarter of the bound.
 */
export class ChunkCache {
  private readonly entries = new Map<string, { data: arrow.Data; bytes: number }>();
  /** Chunks asked for once and not stored (most recent last), bounded by count. */
  private readonly seen = new Map<string, true>();
  private held = 0;
  private counts = { hits: 0, stored: 0, evicted: 0 };

  constructor(readonly maxBytes: number = DEFAULT_CHUNK_CACHE_BYTES) {}

  /** The cache key of top-level column `column` of row group `rowGroup` of the file `name` of `size` bytes, decoded as `type`. */
  static key(name: string, size: number, rowGroup: number, column: number, type: arrow.DataType): string {
    return `${size}|${rowGroup}|${column}|${String(type)}|${name}`;
  }

  /** The decoded chunk, if held (it becomes the most recently used). */
  get(key: string): arrow.Data | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    this.counts.hits++;
    return hit.data;
  }

  /**
   * Whether the chunk should be decoded whole and stored now: it was asked for before and its
   * decoded size (`estimatedBytes`) fits. Records the request otherwise.
   */
  admit(key: string, estimatedBytes: number): boolean {
    if (this.maxBytes <= 0 || estimatedBytes > this.maxBytes / 4) return false;
    if (this.seen.delete(key)) return true;
    this.seen.set(key, true);
    // remember as many requests as chunks of a fair size could fit, at least 1024
    const limit = Math.max(1024, Math.ceil(this.maxBytes / 65536));
    if (this.seen.size > limit) this.seen.delete(this.seen.keys().next().value!);
    return false;
  }

  /**
   * Stores a copy of a decoded chunk (its buffers may be views into a larger decoded block, which
   * the copy does not keep alive), dropping the least recently used until the bound holds.
   */
  put(key: string, decoded: arrow.Data): void {
    const bytes = dataBytes(decoded);
    if (this.maxBytes <= 0 || bytes > this.maxBytes / 4) return;
    const data = compactData(decoded);
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.bytes;
    }
    while (this.held + bytes > this.maxBytes) {
      const [k, e] = this.entries.entries().next().value!;
      this.entries.delete(k);
      this.held -= e.bytes;
      this.counts.evicted++;
    }
    this.entries.set(key, { data, bytes });
    this.held += bytes;
    this.counts.stored++;
  }

  get stats(): ChunkCacheStats {
    return { entries: this.entries.size, bytes: this.held, ...this.counts };
  }
}
