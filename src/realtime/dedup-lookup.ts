// Committed-key lookup of the real-time append-deduplicate mode (seed 000 "Append Deduplicate /
// Offset DV": "The .offset sidecar looks up existing offsets by deduplicate key during writes";
// its lookup cache is configured by `cache-page-size`, `lookup.cache-max-memory-size` and
// `lookup.cache.high-priority-pool-ratio`, and is not a limit of the real-time store). Per
// committed data file, its keys are decoded on demand into a read-only open-addressing table
// (key identity -> offset, typed arrays) from the file's `.offset` sidecar, read in
// cache-page-size chunks, or from its key and offset Parquet columns when it has none (files of
// Java / pypaimon compactions, of other key types). A Bloom filter over the same identities is
// kept in the high-priority pool so that files a batch's keys cannot be in are skipped without
// their tables; tables live in the low-priority pool and are reloaded after eviction.
//
// When the key tables of a lookup's files do not fit in the low-priority pool together, files
// are kept in pages instead (those that do not fit beside the others' pages: wholeFiles), so that
// lookups do not evict and reload whole tables: whole sidecar entries of at most cache-page-size
// bytes (or as many Parquet rows, ordered by identity), each page typed arrays of 32-bit
// distances from its smallest identity and offset where they fit (8 bytes an integer key). The high-priority pool keeps the file's filter (sized to fit beside the page
// directory) and each page's smallest and largest sort key (of string keys of a sidecar, also
// their key bytes: fingerprints follow no order), measured when the page was read;
// a batch's keys that pass the filter are looked for only in the pages whose bounds hold them
// (binary search over the pages when their bounds ascend, as in our sidecars sorted by key
// bytes; else every page whose bounds hold the key, so that a sidecar written in any order is
// searched correctly), and within a page by binary search when its entries ascend (checked per
// page), else by a scan. Missing pages are read again, nearby ones in one range.
//
// Lookups ignore deletion vectors: offsets only grow per partition-bucket, so the live row of a
// key is its row with the largest offset over the files, and marking an offset deleted that a
// vector already deletes, or that a compaction dropped, resolves to nothing new at commit.
import { columnValues } from "../arrow/values.js";
import { PaimonError } from "../error.js";
import { OFFSET_SIDECAR_MAGIC, OFFSET_SIDECAR_VERSION, offsetSidecarOf } from "../fileindex/key-offset-sidecar.js";
import { readParquetBatches } from "../format/parquet-reader.js";
import { fileIOSource } from "../format/source.js";
import { LoadCache } from "../fs/load-cache.js";
import { keyColumnFromArrow, type KeyColumn } from "../kernel/columns.js";
import type { OffsetFileSource } from "../read/offset-positions.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField, DataType } from "../spec/types.js";
import type { TableOptions } from "../table/options.js";
import { identityHash, keyIdentities } from "./dedup-key-index.js";

/** The seed's three options of the sidecar lookup cache. */
export interface DedupLookupOptions {
  /** `cache-page-size`: bytes read from a sidecar at a time (default 64 kb). */
  pageSize: number;
  /** `lookup.cache-max-memory-size`: bytes of filters and key tables kept (default 256 mb). */
  maxMemory: number;
  /** `lookup.cache.high-priority-pool-ratio`: share of `maxMemory` for filters (default 0.25, in [0, 1)). */
  highPriorityRatio: number;
}

/** Parses the lookup cache options (INVALID_ARGUMENT naming the option on a bad value). */
export function dedupLookupOptions(options: TableOptions): DedupLookupOptions {
  const pageSize = options.memory("cache-page-size", "64 kb");
  if (pageSize < 1 || pageSize > 2 ** 30) throw new PaimonError("INVALID_ARGUMENT", `option cache-page-size: '${options.get("cache-page-size")}' must be between 1 byte and 1 gb`);
  const key = "lookup.cache.high-priority-pool-ratio";
  const text = options.get(key);
  const ratio = text === undefined ? 0.25 : /^\s*\d*\.?\d+(?:[eE][-+]?\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(ratio >= 0 && ratio < 1)) throw new PaimonError("INVALID_ARGUMENT", `option ${key}: '${text}' must be a number in [0, 1)`);
  return { pageSize, maxMemory: options.lookupCacheMaxMemorySize, highPriorityRatio: ratio };
}

const BLOOM_BITS_PER_KEY = 10;
const BLOOM_PROBES = 5;
/** Bits of a filter block: every probe of a key falls into one 64-byte block (one cache line). */
const BLOCK_BITS = 512;

/**
 * A blocked Bloom filter over one file's key identities (about 1-2% false positives), behind the
 * range of the file's one-word identities (integer keys: keys outside the file's [min, max], such
 * as new keys above a file of ascending ids, are answered without touching the filter's bits).
 */
export class KeyFilter {
  private readonly bits: Uint32Array;
  /** Blocks - 1 when a power of two, else -1 (a block is then chosen by multiply-shift). */
  private readonly blockMask: number;
  private readonly blocks: number;
  /** Smallest and largest one-word identity of the file as unsigned (high, low) words; min > max when none (or two-word identities). */
  private minHi = 0xffffffff;
  private minLo = 0xffffffff;
  private maxHi = 0;
  private maxLo = 0;

  /**
   * `maxBytes`: the filter takes just enough blocks for its bits per key, and at most this many
   * bytes (fewer bits per key, more false positives); without it, a power of two of blocks.
   */
  constructor(words: Uint32Array, w: number, count: number, maxBytes?: number) {
    let blocks = 1;
    if (maxBytes === undefined) {
      while (blocks * BLOCK_BITS < count * BLOOM_BITS_PER_KEY) blocks *= 2;
      this.blockMask = blocks - 1;
    } else {
      blocks = Math.max(1, Math.min(Math.ceil((count * BLOOM_BITS_PER_KEY) / BLOCK_BITS), Math.floor(maxBytes / (BLOCK_BITS >>> 3))));
      this.blockMask = (blocks & (blocks - 1)) === 0 ? blocks - 1 : -1;
    }
    this.blocks = blocks;
    this.bits = new Uint32Array(blocks * (BLOCK_BITS >>> 5));
    for (let i = 0; i < count; i++) this.probe(words, i * w, w, true);
    if (w === 2 && count > 0) {
      let minHi = 0xffffffff;
      let minLo = 0xffffffff;
      let maxHi = 0;
      let maxLo = 0;
      for (let i = 0; i < count; i++) {
        const lo = words[2 * i];
        const hi = words[2 * i + 1];
        if (hi < minHi || (hi === minHi && lo < minLo)) {
          minHi = hi;
          minLo = lo;
        }
        if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
          maxHi = hi;
          maxLo = lo;
        }
      }
      this.minHi = minHi;
      this.minLo = minLo;
      this.maxHi = maxHi;
      this.maxLo = maxLo;
    }
  }

  get memoryBytes(): number {
    return this.bits.byteLength;
  }

  /** Sets (`add`) or tests the bits of the identity at `words[at..at + w)`. */
  private probe(words: Uint32Array, at: number, w: number, add: boolean): boolean {
    const lo = w === 4 ? (words[at] ^ words[at + 2]) >>> 0 : words[at];
    const hi = w === 4 ? (words[at + 1] ^ words[at + 3]) >>> 0 : words[at + 1];
    const h1 = identityHash(lo, hi);
    const base = (this.blockMask >= 0 ? h1 & this.blockMask : Math.floor((h1 * this.blocks) / 4294967296)) << 4;
    const h2 = identityHash(hi ^ 0x5bd1e995, lo);
    const step = (h2 >>> 16) | 1;
    const bits = this.bits;
    for (let k = 0, h = h2; k < BLOOM_PROBES; k++, h = (h + step) >>> 0) {
      const bit = h & (BLOCK_BITS - 1);
      const word = base + (bit >>> 5);
      const mask = 1 << (bit & 31);
      if (add) bits[word] |= mask;
      else if ((bits[word] & mask) === 0) return false;
    }
    return true;
  }

  /** False when the identity at `words[at..at + w)` is certainly not in the file. */
  mayContain(words: Uint32Array, at: number, w: number): boolean {
    if (w === 2) {
      const lo = words[at];
      const hi = words[at + 1];
      if (hi < this.minHi || (hi === this.minHi && lo < this.minLo) || hi > this.maxHi || (hi === this.maxHi && lo > this.maxLo)) return false;
    }
    return this.probe(words, at, w, false);
  }
}

/**
 * One committed file's keys: identity -> largest offset, open addressing over one typed array
 * whose slots hold the identity's 32-bit words and then the offset's (low, high) words, so that a
 * probe touches one cache line; an empty slot has high offset word -1 (offsets are non-negative).
 */
export class FileKeyTable {
  private readonly mask: number;
  /** 32-bit words per slot: identity words + 2. */
  private readonly stride: number;
  private readonly slots: Int32Array;
  readonly filter: KeyFilter;

  /** `width`: 64-bit words per identity; `identities` / `offsets` one entry per row of the file. */
  constructor(
    readonly width: 1 | 2,
    identities: BigUint64Array,
    offsets: BigInt64Array,
  ) {
    const n = offsets.length;
    const w = 2 * width;
    let capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    this.mask = capacity - 1;
    this.stride = w + 2;
    this.slots = new Int32Array(capacity * this.stride);
    for (let slot = 0; slot < capacity; slot++) this.slots[slot * this.stride + w + 1] = -1;
    const words = new Uint32Array(identities.buffer, identities.byteOffset, n * w);
    const offsetWords = new Int32Array(offsets.buffer, offsets.byteOffset, 2 * n);
    const t = this.slots;
    for (let i = 0; i < n; i++) {
      const base = this.slotOf(words, i * w);
      const lo = offsetWords[2 * i];
      const hi = offsetWords[2 * i + 1];
      if (t[base + w + 1] === -1) {
        for (let k = 0; k < w; k++) t[base + k] = words[i * w + k];
      } else if (!greater(hi, lo, t[base + w + 1], t[base + w])) continue;
      t[base + w] = lo;
      t[base + w + 1] = hi;
    }
    this.filter = new KeyFilter(words, w, n);
  }

  /** Bytes of the table (the filter is accounted separately). */
  get memoryBytes(): number {
    return this.slots.byteLength;
  }

  /** Start of the slot holding the identity at `words[at..]`, or of the empty slot where it would go. */
  private slotOf(words: Uint32Array, at: number): number {
    const w = 2 * this.width;
    const t = this.slots;
    const stride = this.stride;
    const a = words[at] | 0;
    const b = words[at + 1] | 0;
    for (let slot = identityHash(words[at], words[at + 1]) & this.mask; ; slot = (slot + 1) & this.mask) {
      const base = slot * stride;
      if (t[base + w + 1] === -1) return base;
      if (t[base] === a && t[base + 1] === b && (w === 2 || (t[base + 2] === (words[at + 2] | 0) && t[base + 3] === (words[at + 3] | 0)))) return base;
    }
  }

  /**
   * For each row `rows[j]` (identity at `words[rows[j] * w..]`) in the file, raises
   * `found[rows[j]]` (word pairs, -1 when none yet) to its offset here if larger.
   */
  raise(words: Uint32Array, rows: Uint32Array, found: Int32Array): void {
    const w = 2 * this.width;
    const t = this.slots;
    for (let j = 0; j < rows.length; j++) {
      const r = rows[j];
      const base = this.slotOf(words, r * w);
      const hi = t[base + w + 1];
      if (hi === -1) continue;
      const lo = t[base + w];
      if (found[2 * r + 1] === -1 || greater(hi, lo, found[2 * r + 1], found[2 * r])) {
        found[2 * r] = lo;
        found[2 * r + 1] = hi;
      }
    }
  }
}

/** Non-negative int64 (hi, lo) word pairs: a > b. */
function greater(aHi: number, aLo: number, bHi: number, bLo: number): boolean {
  return aHi > bHi || (aHi === bHi && aLo >>> 0 > bLo >>> 0);
}

/** Key kinds whose identity is the sidecar's little-endian key bytes, zero-extended (see keyIdentities), by byte width. */
const SIDECAR_INTEGER_WIDTH: Partial<Record<DataType["kind"], number>> = { BOOLEAN: 1, TINYINT: 1, SMALLINT: 2, INT: 4, DATE: 4, BIGINT: 8 };

/** True when a sidecar of keys of `type` decodes straight to key identities (else the Parquet columns are read). */
export function sidecarDecodes(type: DataType): boolean {
  return SIDECAR_INTEGER_WIDTH[type.kind] !== undefined || type.kind === "CHAR" || type.kind === "VARCHAR";
}

/** Reads a file in `pageSize` chunks. */
async function readPaged(source: OffsetFileSource, path: string, pageSize: number): Promise<Uint8Array> {
  const size = await source.io.fileSize(path);
  const out = new Uint8Array(size);
  for (let at = 0; at < size; at += pageSize) out.set(await source.io.readRange(path, at, Math.min(pageSize, size - at)), at);
  return out;
}

const SIDECAR_HEADER_BYTES = 20;

/** Checks a sidecar's header (its first 20 bytes or more): CORRUPT_FILE naming it unless it is a version 1 sidecar of `rowCount` entries. */
function checkSidecarHeader(bytes: Uint8Array, rowCount: number, name: string): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < SIDECAR_HEADER_BYTES || view.getBigInt64(0, false) !== OFFSET_SIDECAR_MAGIC || view.getInt32(8, false) !== OFFSET_SIDECAR_VERSION) throw new PaimonError("CORRUPT_FILE", `${name}: unsupported .offset sidecar format`);
  const count = view.getBigInt64(12, false);
  if (count !== BigInt(rowCount)) throw new PaimonError("CORRUPT_FILE", `${name}: .offset sidecar has ${count} entries for a data file of ${rowCount} rows`);
}

/**
 * The identities and offsets of a sidecar's entries (`rowCount` of them: one per row of its data
 * file); CORRUPT_FILE naming the sidecar on any deviation from the layout.
 */
export function decodeSidecarKeys(bytes: Uint8Array, keyType: DataType, rowCount: number, name: string): { identities: BigUint64Array; offsets: BigInt64Array } {
  checkSidecarHeader(bytes, rowCount, name);
  return decodeSidecarEntries(bytes.subarray(SIDECAR_HEADER_BYTES), keyType, rowCount, name);
}

/**
 * The identities and offsets of `n` sidecar entries that fill `bytes` exactly (the entries of a
 * whole sidecar after its header, or of a page of it); CORRUPT_FILE naming the sidecar on any
 * deviation from the layout.
 */
function decodeSidecarEntries(bytes: Uint8Array, keyType: DataType, n: number, name: string): { identities: BigUint64Array; offsets: BigInt64Array } {
  const corrupt = (what: string) => new PaimonError("CORRUPT_FILE", `${name}: ${what}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offsets = new BigInt64Array(n);
  const width = SIDECAR_INTEGER_WIDTH[keyType.kind];
  let at = 0;
  const need = (k: number) => {
    if (at + k > bytes.length) throw corrupt("truncated .offset sidecar");
  };
  const offsetWords = new Int32Array(offsets.buffer);
  const readOffset = (i: number) => {
    need(8);
    const hi = view.getInt32(at, false);
    if (hi < 0) throw corrupt(`negative offset ${view.getBigInt64(at, false)} in .offset sidecar`);
    offsetWords[2 * i] = view.getInt32(at + 4, false); // host order: little-endian wherever this runs
    offsetWords[2 * i + 1] = hi;
    at += 8;
  };
  let identities: BigUint64Array;
  if (width !== undefined) {
    identities = new BigUint64Array(n);
    at = decodeIntegerEntries(bytes, width, n, new Uint32Array(identities.buffer), offsetWords, keyType, name);
  } else {
    const starts = new Int32Array(n + 1);
    const data: Uint8Array[] = [];
    let total = 0;
    for (let i = 0; i < n; i++) {
      need(5);
      const length = view.getInt32(at, false);
      if (length < 1 || bytes[at + 4] !== 1) throw corrupt(`unexpected key entry in .offset sidecar of ${keyType.kind} keys`);
      need(4 + length);
      data.push(bytes.subarray(at + 5, at + 4 + length));
      total += length - 1;
      starts[i + 1] = total;
      at += 4 + length;
      readOffset(i);
    }
    const joined = new Uint8Array(total);
    for (let i = 0; i < n; i++) joined.set(data[i], starts[i]);
    identities = keyIdentities({ type: "bytes", length: n, offsets: starts, data: joined });
  }
  if (at !== bytes.length) throw corrupt("trailing bytes in .offset sidecar");
  return { identities, offsets };
}

/**
 * Decodes `n` sidecar entries of `width`-byte integer keys from the start of `bytes` into
 * identity words (`ids`: the key's little-endian bytes, zero-extended; host order, little-endian
 * wherever this runs, the writer checks) and offset word pairs; returns the position after them.
 * CORRUPT_FILE naming the sidecar on a bad entry, a negative offset or too few bytes.
 */
function decodeIntegerEntries(bytes: Uint8Array, width: number, n: number, ids: Uint32Array, offsetWords: Int32Array, keyType: DataType, name: string): number {
  const corrupt = (what: string) => new PaimonError("CORRUPT_FILE", `${name}: ${what}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // fixed-size entries: length 1 + width (big-endian), flag 1, key (little-endian), offset (big-endian)
  const size = 13 + width;
  const whole = Math.min(n, Math.floor(bytes.length / size));
  let at = 0;
  for (let i = 0; i < whole; i++, at += size) {
    if (bytes[at] !== 0 || bytes[at + 1] !== 0 || bytes[at + 2] !== 0 || bytes[at + 3] !== 1 + width || bytes[at + 4] !== 1) throw corrupt(`unexpected key entry in .offset sidecar of ${keyType.kind} keys`);
    const k = at + 5;
    let lo = bytes[k];
    let hi = 0;
    if (width >= 2) lo |= bytes[k + 1] << 8;
    if (width >= 4) lo |= (bytes[k + 2] << 16) | (bytes[k + 3] << 24);
    if (width === 8) hi = bytes[k + 4] | (bytes[k + 5] << 8) | (bytes[k + 6] << 16) | (bytes[k + 7] << 24);
    ids[2 * i] = lo;
    ids[2 * i + 1] = hi;
    const o = k + width;
    if (bytes[o] >= 0x80) throw corrupt(`negative offset ${view.getBigInt64(o, false)} in .offset sidecar`);
    offsetWords[2 * i] = (bytes[o + 4] << 24) | (bytes[o + 5] << 16) | (bytes[o + 6] << 8) | bytes[o + 7];
    offsetWords[2 * i + 1] = (bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3];
  }
  if (whole < n) {
    // the first entry that does not fit: its key part, if present, is checked before the truncation is reported
    if (at + 5 + width <= bytes.length && (view.getInt32(at, false) !== 1 + width || bytes[at + 4] !== 1)) throw corrupt(`unexpected key entry in .offset sidecar of ${keyType.kind} keys`);
    throw corrupt("truncated .offset sidecar");
  }
  return at;
}

/** Reused identity and offset words of integer sidecar pages being decoded (a page copies what it keeps). */
let pageScratch = { ids: new Uint32Array(0), offsets: new Int32Array(0) };

/** A page of `n` sidecar entries filling `bytes` (CORRUPT_FILE naming the sidecar on any deviation). */
function decodeSidecarPage(bytes: Uint8Array, keyType: DataType, n: number, w: number, name: string): KeyPage {
  const width = SIDECAR_INTEGER_WIDTH[keyType.kind];
  if (width === undefined) {
    const { identities, offsets } = decodeSidecarEntries(bytes, keyType, n, name);
    return new KeyPage(w, new Uint32Array(identities.buffer), new Int32Array(offsets.buffer));
  }
  if (pageScratch.offsets.length < 2 * n) pageScratch = { ids: new Uint32Array(2 * n), offsets: new Int32Array(2 * n) };
  const ids = pageScratch.ids.subarray(0, 2 * n);
  const offsets = pageScratch.offsets.subarray(0, 2 * n);
  if (decodeIntegerEntries(bytes, width, n, ids, offsets, keyType, name) !== bytes.length) throw new PaimonError("CORRUPT_FILE", `${name}: trailing bytes in .offset sidecar`);
  return new KeyPage(w, ids, offsets);
}

/**
 * Where the pages of a sidecar's entries start: entry indexes and byte positions (from the
 * sidecar's start), one more of each for the end. A page holds the whole entries that fit in
 * `pageSize` bytes (at least one). CORRUPT_FILE naming the sidecar when its entries do not fill it.
 */
function sidecarPages(bytes: Uint8Array, n: number, pageSize: number, name: string): { entries: Uint32Array; positions: Float64Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: number[] = [0];
  const positions: number[] = [SIDECAR_HEADER_BYTES];
  let at = SIDECAR_HEADER_BYTES;
  let pageStart = at;
  for (let i = 0; i < n; i++) {
    if (at + 4 > bytes.length) throw new PaimonError("CORRUPT_FILE", `${name}: truncated .offset sidecar`);
    const size = 4 + Math.max(0, view.getInt32(at, false)) + 8;
    if (at > pageStart && at + size - pageStart > pageSize) {
      entries.push(i);
      positions.push(at);
      pageStart = at;
    }
    at += size;
  }
  if (at > bytes.length) throw new PaimonError("CORRUPT_FILE", `${name}: truncated .offset sidecar`);
  if (at < bytes.length) throw new PaimonError("CORRUPT_FILE", `${name}: trailing bytes in .offset sidecar`);
  entries.push(n);
  positions.push(at);
  return { entries: Uint32Array.from(entries), positions: Float64Array.from(positions) };
}

/** Identities and offsets of every row of a data file, from its key and offset Parquet columns (matched by field id). */
async function parquetKeys(source: OffsetFileSource, file: DataFileMeta, path: string, keyField: DataField, offsetField: DataField): Promise<{ identities: BigUint64Array; offsets: BigInt64Array }> {
  if (!file.fileName.endsWith(".parquet")) throw new PaimonError("UNSUPPORTED", `append deduplicate key lookup reads Parquet data files only (${file.fileName})`);
  const fileFields = await source.fieldsOf(file.schemaId);
  const idParts: BigUint64Array[] = [];
  const offsetParts: BigInt64Array[] = [];
  let rows = 0;
  for await (const b of readParquetBatches(await fileIOSource(source.io, path, Number(file.fileSize)), { fields: [keyField, offsetField], fileFields, fileName: file.fileName })) {
    const offsetData = b.data.children[1];
    if (offsetData.nullCount > 0) throw new PaimonError("CORRUPT_FILE", `data file ${file.fileName} has null ${offsetField.name} values`);
    idParts.push(keyIdentities(keyColumnFromArrow(b.data.children[0])));
    offsetParts.push(columnValues<BigInt64Array>(offsetData).slice());
    rows += b.numRows;
  }
  const identities = new BigUint64Array(idParts.reduce((s, p) => s + p.length, 0));
  const offsets = new BigInt64Array(rows);
  let i = 0;
  let o = 0;
  for (let p = 0; p < idParts.length; p++) {
    identities.set(idParts[p], i);
    offsets.set(offsetParts[p], o);
    i += idParts[p].length;
    o += offsetParts[p].length;
  }
  return { identities, offsets };
}

/** A 32-bit word with its bytes reversed (unsigned). */
function byteSwap(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

/**
 * How the entries of a paged file are compared (page bounds, sorted pages): by the identity's
 * first 64-bit word as an unsigned number (IDENTITY), or, for one-word identities, by that word's
 * bytes in little-endian order (SWAPPED: the order of integer keys in a sidecar sorted by key
 * bytes, as ours are). Neither order is assumed: bounds and sortedness are measured per page.
 */
const IDENTITY = 0;
const SWAPPED = 1;
type Order = typeof IDENTITY | typeof SWAPPED;

/** The sort key of the identity at `words[at..]` under `order`: its high 32-bit word (unsigned). */
function sortHi(words: Uint32Array | Int32Array, at: number, order: Order): number {
  return order === SWAPPED ? byteSwap(words[at]) : words[at + 1] >>> 0;
}

/** The sort key's low 32-bit word (unsigned). */
function sortLo(words: Uint32Array | Int32Array, at: number, order: Order): number {
  return order === SWAPPED ? byteSwap(words[at + 1]) : words[at] >>> 0;
}

/** Unsigned (hi, lo) word pairs: a < b. */
function below(aHi: number, aLo: number, bHi: number, bLo: number): boolean {
  return aHi < bHi || (aHi === bHi && aLo < bLo);
}

const TWO_32 = 4294967296;

/** Pages a read of a sidecar's missing pages may pass over between two of them (a read costs more than a few pages' bytes: on remote storage, a request). */
const READ_GAP_PAGES = 8;

/** Smallest and largest of `n` unsigned (hi, lo) word pairs: [minHi, minLo, maxHi, maxLo] (the smallest above the largest when n = 0). */
function pairRange(n: number, hiAt: (i: number) => number, loAt: (i: number) => number): [number, number, number, number] {
  let minHi = 0xffffffff;
  let minLo = 0xffffffff;
  let maxHi = 0;
  let maxLo = 0;
  for (let i = 0; i < n; i++) {
    const hi = hiAt(i);
    const lo = loAt(i);
    if (below(hi, lo, minHi, minLo)) {
      minHi = hi;
      minLo = lo;
    }
    if (below(maxHi, maxLo, hi, lo)) {
      maxHi = hi;
      maxLo = lo;
    }
  }
  return [minHi, minLo, maxHi, maxLo];
}


/**
 * Copies of the `n` entries of `w`-word identities `ids` and offset pairs `offsets`, ordered by
 * the identity's first 64-bit word (unsigned; the IDENTITY order), ties in entry order: sorted
 * natively by (high word, entry) packed in a float64 (exact below 2^21 entries), then by the
 * whole word with an insertion pass that only moves entries whose high words tie (rare); more
 * entries are sorted by a comparator.
 */
function byFirstWord(ids: Uint32Array, offsets: Int32Array, n: number, w: number): [Uint32Array, Int32Array] {
  const hiAt = (i: number) => ids[w * i + 1] >>> 0;
  const loAt = (i: number) => ids[w * i] >>> 0;
  let order: Uint32Array;
  if (n < 2 ** 21) {
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = hiAt(i) * 2 ** 21 + i;
    packed.sort();
    order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = packed[i] % 2 ** 21;
    for (let i = 1; i < n; i++) {
      const e = order[i];
      let j = i;
      while (j > 0 && hiAt(order[j - 1]) === hiAt(e) && loAt(order[j - 1]) > loAt(e)) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = e;
    }
  } else order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => hiAt(a) - hiAt(b) || loAt(a) - loAt(b) || a - b);
  const sortedIds = new Uint32Array(w * n);
  const sortedOffsets = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const e = order[i];
    for (let k = 0; k < w; k++) sortedIds[w * i + k] = ids[w * e + k];
    sortedOffsets[2 * i] = offsets[2 * e];
    sortedOffsets[2 * i + 1] = offsets[2 * e + 1];
  }
  return [sortedIds, sortedOffsets];
}

/**
 * One page of a file's entries held by a cache too small for the file's key table, as typed
 * arrays: identity words, or, when the identities are one word each and lie within 2^32 of the
 * page's smallest, that identity and their 32-bit distances from it; likewise the offsets (a page
 * of integer keys then takes 8 bytes an entry). A lookup binary-searches a page whose entries
 * ascend under the file's order (checked once per page) and scans any other page.
 */
export class KeyPage {
  readonly count: number;
  /** Per order: 1 when the entries' sort keys never decrease, 0 when they do, -1 not checked yet. */
  private readonly sorted = [-1, -1];
  /** Identity words (`w` an entry), or null: then `idDelta` above (`idHi`, `idLo`). */
  private readonly ids: Uint32Array | null = null;
  private readonly idDelta: Uint32Array | null = null;
  private readonly idHi: number = 0;
  private readonly idLo: number = 0;
  /** Offset word pairs, or null: then `offsetDelta` above (`offsetHi`, `offsetLo`). */
  private readonly offsets: Int32Array | null = null;
  private readonly offsetDelta: Uint32Array | null = null;
  private readonly offsetHi: number = 0;
  private readonly offsetLo: number = 0;

  /**
   * `ids`: `w` (2 or 4) identity words an entry; `offsets`: (low, high) word pairs (both copied: the
   * page never holds the caller's arrays). Two-word identities (fingerprints) are kept ordered by
   * their first word whatever their order in the file, so that a page is binary-searched.
   */
  constructor(
    readonly w: number,
    ids: Uint32Array,
    offsets: Int32Array,
  ) {
    const n = (this.count = offsets.length >>> 1);
    const base = (words: Uint32Array | Int32Array, stride: number): [number, number] | null => {
      const [minHi, minLo, maxHi, maxLo] = pairRange(
        n,
        (i) => words[i * stride + 1] >>> 0,
        (i) => words[i * stride] >>> 0,
      );
      return n > 0 && (maxHi - minHi) * TWO_32 + (maxLo - minLo) < TWO_32 ? [minHi, minLo] : null;
    };
    const delta = (words: Uint32Array | Int32Array, stride: number, hi: number, lo: number): Uint32Array => {
      const out = new Uint32Array(n);
      for (let i = 0; i < n; i++) out[i] = (words[i * stride + 1] >>> 0) === hi ? (words[i * stride] >>> 0) - lo : (words[i * stride] >>> 0) + TWO_32 - lo;
      return out;
    };
    if (w === 4 && n > 1) [ids, offsets] = byFirstWord(ids, offsets, n, 4);
    const idBase = w === 2 ? base(ids, 2) : null;
    if (idBase !== null) {
      [this.idHi, this.idLo] = idBase;
      this.idDelta = delta(ids, 2, this.idHi, this.idLo);
    } else this.ids = ids.slice();
    const offsetBase = base(offsets, 2);
    if (offsetBase !== null) {
      [this.offsetHi, this.offsetLo] = offsetBase;
      this.offsetDelta = delta(offsets, 2, this.offsetHi, this.offsetLo);
    } else this.offsets = offsets.slice();
  }

  get memoryBytes(): number {
    return (this.ids ?? this.idDelta!).byteLength + (this.offsets ?? this.offsetDelta!).byteLength;
  }

  /** Page `p` of whole-file identities and offsets, by entry starts. */
  static of(w: number, identities: BigUint64Array, offsets: BigInt64Array, from: number, to: number): KeyPage {
    const words = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
    const offsetWords = new Int32Array(offsets.buffer, offsets.byteOffset, offsets.length * 2);
    return new KeyPage(w, words.subarray(from * w, to * w), offsetWords.subarray(2 * from, 2 * to));
  }

  /** High word of the sort key of entry `i` under `order` (unsigned). */
  sortHiAt(i: number, order: Order): number {
    if (this.ids !== null) return order === SWAPPED ? byteSwap(this.ids[i * this.w]) : this.ids[i * this.w + 1];
    const s = this.idLo + this.idDelta![i];
    return order === SWAPPED ? byteSwap(s >>> 0) : this.idHi + (s >= TWO_32 ? 1 : 0);
  }

  /** Low word of the sort key of entry `i` under `order` (unsigned). */
  sortLoAt(i: number, order: Order): number {
    if (this.ids !== null) return order === SWAPPED ? byteSwap(this.ids[i * this.w + 1]) : this.ids[i * this.w];
    const s = this.idLo + this.idDelta![i];
    return order === SWAPPED ? byteSwap(this.idHi + (s >= TWO_32 ? 1 : 0)) : s >>> 0;
  }

  /** True when the entries' sort keys never decrease under `order` (checked on first use). */
  private sortedBy(order: Order): boolean {
    if (this.sorted[order] === -1) {
      let sorted = order === IDENTITY || this.w === 2;
      for (let i = 1; i < this.count && sorted; i++) {
        if (below(this.sortHiAt(i, order), this.sortLoAt(i, order), this.sortHiAt(i - 1, order), this.sortLoAt(i - 1, order))) sorted = false;
      }
      this.sorted[order] = sorted ? 1 : 0;
    }
    return this.sorted[order] === 1;
  }

  /**
   * For the rows `rows[from..to)` (identity at `words[row * w..]`), raises `found[row]` (word
   * pairs, -1 when none yet) to the offset of the row's identity in this page if larger.
   */
  raise(words: Uint32Array, rows: Uint32Array, from: number, to: number, order: Order, found: Int32Array): void {
    const { w, ids, idDelta, count: n } = this;
    const sorted = this.sortedBy(order);
    for (let j = from; j < to; j++) {
      const r = rows[j];
      const at = r * w;
      // with distances: the row's distance from the page's smallest identity (none: not in the page)
      let d = -1;
      if (idDelta !== null) {
        d = words[at + 1] === this.idHi ? words[at] - this.idLo : words[at + 1] === this.idHi + 1 ? words[at] + TWO_32 - this.idLo : -1;
        if (d < 0 || d >= TWO_32) continue;
      }
      let i = 0;
      let end = n;
      if (sorted) {
        // first entry whose sort key is not below the row's, then the entries of an equal sort key
        const hi = sortHi(words, at, order);
        const lo = sortLo(words, at, order);
        let high = n;
        while (i < high) {
          const mid = (i + high) >>> 1;
          if (below(this.sortHiAt(mid, order), this.sortLoAt(mid, order), hi, lo)) i = mid + 1;
          else high = mid;
        }
        end = i;
        while (end < n && this.sortHiAt(end, order) === hi && this.sortLoAt(end, order) === lo) end++;
      }
      for (; i < end; i++) {
        if (ids !== null) {
          const e = i * w;
          if (ids[e] !== words[at] || ids[e + 1] !== words[at + 1] || (w === 4 && (ids[e + 2] !== words[at + 2] || ids[e + 3] !== words[at + 3]))) continue;
        } else if (idDelta![i] !== d) continue;
        let oLo: number;
        let oHi: number;
        if (this.offsets !== null) {
          oLo = this.offsets[2 * i];
          oHi = this.offsets[2 * i + 1];
        } else {
          const s = this.offsetLo + this.offsetDelta![i];
          oLo = s >>> 0;
          oHi = this.offsetHi + (s >= TWO_32 ? 1 : 0);
        }
        if (found[2 * r + 1] === -1 || greater(oHi, oLo, found[2 * r + 1], found[2 * r])) {
          found[2 * r] = oLo;
          found[2 * r + 1] = oHi;
        }
      }
    }
  }
}

/**
 * Key bytes bounds of the pages of a file of string keys read from its sidecar: page p's smallest
 * key bytes (without the sidecar's leading 1 flag) at `data[starts[2p]..starts[2p + 1])`, its
 * largest at `data[starts[2p + 1]..starts[2p + 2])`.
 */
export interface KeyBytesBounds {
  readonly data: Uint8Array;
  readonly starts: Uint32Array;
}

/** Unsigned byte order of `a[aFrom..aTo)` and `b[bFrom..bTo)`, shorter first on a common prefix (the sidecar's order): negative, 0 or positive. */
function compareBytes(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array, bFrom: number, bTo: number): number {
  const n = Math.min(aTo - aFrom, bTo - bFrom);
  for (let i = 0; i < n; i++) {
    const d = a[aFrom + i] - b[bFrom + i];
    if (d !== 0) return d;
  }
  return aTo - aFrom - (bTo - bFrom);
}

/**
 * The smallest and largest key bytes of each page of a sidecar of CHAR / VARCHAR keys (`bytes`,
 * the whole sidecar, its entries checked; pages by byte `positions` and `entries`).
 */
function sidecarKeyBounds(bytes: Uint8Array, entries: Uint32Array, positions: Float64Array): KeyBytesBounds {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pages = entries.length - 1;
  // per bound: start and end of its key bytes in `bytes`
  const from = new Float64Array(2 * pages);
  const to = new Float64Array(2 * pages);
  let total = 0;
  for (let p = 0; p < pages; p++) {
    let at = positions[p];
    let minFrom = 0;
    let minTo = -1;
    let maxFrom = 0;
    let maxTo = -1;
    for (let i = entries[p]; i < entries[p + 1]; i++) {
      const length = view.getInt32(at, false);
      const keyFrom = at + 5;
      const keyTo = at + 4 + length;
      if (minTo < 0 || compareBytes(bytes, keyFrom, keyTo, bytes, minFrom, minTo) < 0) [minFrom, minTo] = [keyFrom, keyTo];
      if (maxTo < 0 || compareBytes(bytes, keyFrom, keyTo, bytes, maxFrom, maxTo) > 0) [maxFrom, maxTo] = [keyFrom, keyTo];
      at = keyTo + 8;
    }
    from[2 * p] = minFrom;
    to[2 * p] = minTo;
    from[2 * p + 1] = maxFrom;
    to[2 * p + 1] = maxTo;
    total += minTo - minFrom + maxTo - maxFrom;
  }
  const data = new Uint8Array(total);
  const starts = new Uint32Array(2 * pages + 1);
  for (let b = 0; b < 2 * pages; b++) {
    data.set(bytes.subarray(from[b], to[b]), starts[b]);
    starts[b + 1] = starts[b] + to[b] - from[b];
  }
  return { data, starts };
}

/**
 * What a cache too small for a file's key table keeps of the file in its high-priority pool: the
 * Bloom filter over all its identities, where its pages start (entries; bytes of a sidecar) and
 * each page's smallest and largest sort key, measured when the pages were read, under the order
 * in which the file's pages ascend (else under the likely order: a key is then looked for in
 * every page whose bounds hold it). Of string keys read from a sidecar, whose identities are
 * fingerprints unrelated to the sidecar's order, also each page's smallest and largest key bytes:
 * a key is then placed among the pages by its bytes.
 */
export class PagedFile {
  /** Pages ascend: every page's keys lie above the previous page's (one page can hold a key). */
  readonly ascending: boolean;
  /** With `keyBounds`: every page's key bytes lie above the previous page's. */
  readonly keysAscending: boolean;

  constructor(
    readonly filter: KeyFilter,
    /** Entry index of each page's first entry, and the entry count at the end. */
    readonly entries: Uint32Array,
    /** Of a sidecar: byte position of each page's first entry, and the sidecar's size at the end. */
    readonly positions: Float64Array | null,
    readonly order: Order,
    /** Per page: smallest sort key (hi, lo) and largest (hi, lo). */
    readonly bounds: Uint32Array,
    /** Of string keys read from a sidecar: each page's smallest and largest key bytes. */
    readonly keyBounds: KeyBytesBounds | null = null,
  ) {
    let ascending = true;
    for (let p = 1; p < this.pageCount && ascending; p++) {
      if (!below(bounds[4 * p - 2], bounds[4 * p - 1], bounds[4 * p], bounds[4 * p + 1])) ascending = false;
    }
    this.ascending = ascending;
    let keysAscending = keyBounds !== null;
    for (let p = 1; p < this.pageCount && keysAscending; p++) {
      const { data, starts } = keyBounds!;
      if (compareBytes(data, starts[2 * p - 1], starts[2 * p], data, starts[2 * p], starts[2 * p + 1]) >= 0) keysAscending = false;
    }
    this.keysAscending = keysAscending;
  }

  get pageCount(): number {
    return this.entries.length - 1;
  }

  get memoryBytes(): number {
    return this.filter.memoryBytes + this.entries.byteLength + (this.positions?.byteLength ?? 0) + this.bounds.byteLength + (this.keyBounds === null ? 0 : this.keyBounds.data.byteLength + this.keyBounds.starts.byteLength);
  }

  /** Of the pages of a file (all of them, in order): their bounds under the order in which they ascend, or under `preferred`. */
  static of(filter: KeyFilter, entries: Uint32Array, positions: Float64Array | null, pages: readonly KeyPage[], preferred: Order, keyBounds: KeyBytesBounds | null = null): PagedFile {
    const w = pages.length > 0 ? pages[0].w : 2;
    const orders: Order[] = w === 2 ? [preferred, (1 - preferred) as Order] : [IDENTITY];
    let chosen: PagedFile | null = null;
    for (const order of orders) {
      const bounds = new Uint32Array(4 * pages.length);
      for (let p = 0; p < pages.length; p++) {
        const page = pages[p];
        bounds.set(
          pairRange(
            page.count,
            (i) => page.sortHiAt(i, order),
            (i) => page.sortLoAt(i, order),
          ),
          4 * p,
        );
      }
      const file = new PagedFile(filter, entries, positions, order, bounds, keyBounds);
      if (file.ascending) return file;
      chosen ??= file;
    }
    return chosen!;
  }

  /**
   * The pages that can hold each of the rows `rows[0..n)` (identity at `words[row * w..]`; key
   * bytes, when given, in `keys`): the rows grouped by page (`rows` of page p at
   * `grouped[starts[p]..starts[p + 1])`). With key bytes bounds and `keys`, by the keys' bytes,
   * else by their identities' sort keys.
   */
  group(words: Uint32Array, w: number, rows: Uint32Array, n: number, keys?: KeyColumn): { grouped: Uint32Array; starts: Uint32Array } {
    const pages = this.pageCount;
    const b = this.bounds;
    const order = this.order;
    const kb = keys?.type === "bytes" ? this.keyBounds : null;
    const ascending = kb !== null ? this.keysAscending : this.ascending;
    // (page, row) pairs: one per row when pages ascend, else one per page whose bounds hold the row
    let pairPage = new Uint32Array(n);
    let pairRow = new Uint32Array(n);
    let pairs = 0;
    const add = (p: number, r: number) => {
      if (pairs === pairPage.length) {
        const grow = (a: Uint32Array) => {
          const next = new Uint32Array(2 * a.length);
          next.set(a);
          return next;
        };
        pairPage = grow(pairPage);
        pairRow = grow(pairRow);
      }
      pairPage[pairs] = p;
      pairRow[pairs++] = r;
    };
    let hi = 0;
    let lo = 0;
    let keyFrom = 0;
    let keyTo = 0;
    /** The row's key against page p's smallest (bound 0) or largest (bound 1) key: negative, 0 or positive. */
    const versus = (p: number, bound: 0 | 1): number => {
      if (kb !== null) return compareBytes(keys!.data!, keyFrom, keyTo, kb.data, kb.starts[2 * p + bound], kb.starts[2 * p + bound + 1]);
      const at = 4 * p + 2 * bound;
      return below(hi, lo, b[at], b[at + 1]) ? -1 : below(b[at], b[at + 1], hi, lo) ? 1 : 0;
    };
    for (let j = 0; j < n; j++) {
      const r = rows[j];
      if (kb !== null) {
        keyFrom = keys!.offsets![r];
        keyTo = keys!.offsets![r + 1];
      } else {
        hi = sortHi(words, r * w, order);
        lo = sortLo(words, r * w, order);
      }
      if (ascending) {
        // last page whose smallest key is not above the row's
        let low = 0;
        let high = pages;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (versus(mid, 0) < 0) high = mid;
          else low = mid + 1;
        }
        const p = low - 1;
        if (p >= 0 && versus(p, 1) <= 0) add(p, r);
        continue;
      }
      for (let p = 0; p < pages; p++) {
        if (versus(p, 0) >= 0 && versus(p, 1) <= 0) add(p, r);
      }
    }
    const starts = new Uint32Array(pages + 1);
    for (let k = 0; k < pairs; k++) starts[pairPage[k] + 1]++;
    for (let p = 0; p < pages; p++) starts[p + 1] += starts[p];
    const grouped = new Uint32Array(pairs);
    const fill = starts.slice(0, pages);
    for (let k = 0; k < pairs; k++) grouped[fill[pairPage[k]]++] = pairRow[k];
    return { grouped, starts };
  }
}

/** Bytes of the key table of a file of `rows` rows (`width`-word identities): see FileKeyTable. */
function tableBytes(rows: number, width: 1 | 2): number {
  let capacity = 16;
  while (capacity < 2 * rows) capacity *= 2;
  return capacity * (2 * width + 2) * 4;
}

/**
 * Bytes an entry of a KeyPage usually takes, by identity width: 32-bit distances for one-word
 * identities and offsets, four words and a distance for fingerprints.
 */
const PAGE_ENTRY_BYTES = { 1: 8, 2: 20 } as const;

/**
 * The lookup cache of one context. A file kept whole (see wholeFiles) is looked up in its whole
 * table (kept in the low-priority pool) behind its filter (kept in the high-priority pool). Of a
 * file kept in pages, the high-priority pool keeps a PagedFile (its filter sized to fit the pool,
 * and its pages' bounds) and the low-priority pool the KeyPages that batches needed last.
 */
export class DedupLookupCache {
  private readonly filters: LoadCache<KeyFilter | PagedFile>;
  private readonly tables: LoadCache<FileKeyTable | KeyPage>;
  /** Bytes of the high-priority pool. */
  readonly highBytes: number;
  /** Key tables loaded (a reload after eviction counts again): for tests and benchmarks. */
  loads = 0;
  /** Pages of paged files read again after the file's first read: for tests and benchmarks. */
  pageLoads = 0;
  /** Pages of paged files searched for a lookup's keys (a page once per lookup): for tests and benchmarks. */
  pagesSearched = 0;

  constructor(readonly options: DedupLookupOptions) {
    this.highBytes = Math.floor(options.maxMemory * options.highPriorityRatio);
    this.filters = new LoadCache(this.highBytes, (f) => f.memoryBytes);
    this.tables = new LoadCache(options.maxMemory - this.highBytes, (t) => t.memoryBytes);
  }

  /** Bytes of the cached filters, key tables, paged files and pages. */
  get memoryBytes(): number {
    return this.filters.weight + this.tables.weight;
  }

  /**
   * Which of a lookup's files (by row count; `width`-word identities) to keep whole: as many as
   * fit in the low-priority pool beside the pages of the others, smallest key tables first (the
   * others are kept in pages). All of them when their key tables fit together; when they do not,
   * keeping them whole would make each lookup evict the tables the next one needs (every batch
   * would reload whole tables), so files move to pages, which take a fraction of a table's bytes
   * (PAGE_ENTRY_BYTES an entry).
   */
  wholeFiles(rows: readonly number[], width: 1 | 2): boolean[] {
    const low = this.options.maxMemory - this.highBytes;
    const paged = (r: number) => r * PAGE_ENTRY_BYTES[width];
    let used = rows.reduce((n, r) => n + paged(r), 0);
    const whole = rows.map(() => false);
    const bySaving = rows.map((_, i) => i).sort((a, b) => tableBytes(rows[a], width) - paged(rows[a]) - (tableBytes(rows[b], width) - paged(rows[b])));
    for (const i of bySaving) {
      const next = used - paged(rows[i]) + tableBytes(rows[i], width);
      if (next > low) break;
      used = next;
      whole[i] = true;
    }
    return whole;
  }

  /** The key table of a data file (at `path`), cached or loaded. */
  table(path: string, load: () => Promise<FileKeyTable>): Promise<FileKeyTable> {
    return this.tables.get(path, async () => {
      this.loads++;
      return load();
    }) as Promise<FileKeyTable>;
  }

  /** The filter of a data file, cached or taken from its (loaded) key table. */
  filter(path: string, load: () => Promise<FileKeyTable>): Promise<KeyFilter> {
    return this.filters.get(path, async () => (await this.table(path, load)).filter) as Promise<KeyFilter>;
  }

  /** The key table of a data file when cached and loaded (no promise), else undefined. */
  loadedTable(path: string): FileKeyTable | undefined {
    return this.tables.loaded(path) as FileKeyTable | undefined;
  }

  /** The filter of a data file when cached and loaded (no promise), else undefined. */
  loadedFilter(path: string): KeyFilter | undefined {
    return this.filters.loaded(path) as KeyFilter | undefined;
  }

  /** The PagedFile of a data file too large for the low-priority pool, cached or loaded. */
  paged(path: string, load: () => Promise<PagedFile>): Promise<PagedFile> {
    return this.filters.get(`${path}\u0000paged`, load) as Promise<PagedFile>;
  }

  /** Page `p` of a paged file, when kept (then as most recently used). */
  keptPage(path: string, p: number): Promise<KeyPage> | undefined {
    return this.tables.peek(`${path}\u0000${p}`) as Promise<KeyPage> | undefined;
  }

  /** Keeps page `p` of a paged file (while it fits among the most recently used). */
  keepPage(path: string, p: number, page: KeyPage): void {
    void this.tables.get(`${path}\u0000${p}`, () => Promise.resolve(page));
  }

  clear(): void {
    this.filters.clear();
    this.tables.clear();
  }
}
/** The committed files of one partition-bucket at one snapshot, and lookups of keys in them. */
export class CommittedKeys {
  constructor(
    readonly snapshotId: number | null,
    private readonly files: readonly DataFileMeta[],
    private readonly source: OffsetFileSource & { extraPathOf: (file: DataFileMeta, extra: string) => string },
    private readonly keyField: DataField,
    private readonly offsetField: DataField,
    private readonly width: 1 | 2,
    private readonly cache: DedupLookupCache,
  ) {}

  /** Per file, true when kept whole, else in pages (DedupLookupCache.wholeFiles), decided on first lookup. */
  private whole: boolean[] | null = null;
  /** Per file, its path and the loader of its key table (made once: every write looks its keys up). */
  private located: Array<{ path: string; load: () => Promise<FileKeyTable> }> | null = null;
  /** Scratch of `lookup`: the rows a file's filter lets through; null while a lookup uses it (an overlapping one allocates its own). */
  private candidates: Uint32Array | null = new Uint32Array(0);

  get fileCount(): number {
    return this.files.length;
  }

  /** The `.offset` sidecar of a file (its name), when its keys are read from it rather than from the Parquet columns. */
  private sidecarOf(file: DataFileMeta): string | undefined {
    return sidecarDecodes(this.keyField.type) ? offsetSidecarOf(file.fileName, file.extraFiles) : undefined;
  }

  /**
   * Identities and offsets of all rows of a paged file without a sidecar, for its pages:
   * its Parquet columns, ordered by identity (IDENTITY order) so that its pages' bounds ascend
   * (its rows follow no key order); the same order on every read.
   */
  private async parquetKeysByIdentity(file: DataFileMeta, path: string): Promise<{ identities: BigUint64Array; offsets: BigInt64Array }> {
    const { identities, offsets } = await parquetKeys(this.source, file, path, this.keyField, this.offsetField);
    const w = 2 * this.width;
    const n = offsets.length;
    const [ids, offsetWords] = byFirstWord(new Uint32Array(identities.buffer, identities.byteOffset, n * w), new Int32Array(offsets.buffer, offsets.byteOffset, 2 * n), n, w);
    return { identities: new BigUint64Array(ids.buffer), offsets: new BigInt64Array(offsetWords.buffer) };
  }

  /** Identities and offsets of all rows of a file: from its sidecar (read in cache-page-size chunks, as `bytes` too) or its Parquet columns. */
  private async readKeys(file: DataFileMeta, path: string): Promise<{ identities: BigUint64Array; offsets: BigInt64Array; bytes?: Uint8Array }> {
    const sidecar = this.sidecarOf(file);
    if (sidecar === undefined) return parquetKeys(this.source, file, path, this.keyField, this.offsetField);
    const bytes = await readPaged(this.source, this.source.extraPathOf(file, sidecar), this.cache.options.pageSize);
    return { ...decodeSidecarKeys(bytes, this.keyField.type, Number(file.rowCount), sidecar), bytes };
  }

  private async load(file: DataFileMeta, path: string): Promise<FileKeyTable> {
    const { identities, offsets } = await this.readKeys(file, path);
    return new FileKeyTable(this.width, identities, offsets);
  }

  /**
   * Reads a file too large for the cache's low-priority pool: its PagedFile and all its pages.
   * Sidecar pages are whole entries in cache-page-size bytes, pages of Parquet columns (ordered by
   * identity) as many rows as take that many bytes as identity and offset.
   */
  private async loadPaged(file: DataFileMeta, path: string): Promise<{ paged: PagedFile; pages: KeyPage[] }> {
    const { identities, offsets, bytes }: { identities: BigUint64Array; offsets: BigInt64Array; bytes?: Uint8Array } = this.sidecarOf(file) === undefined ? await this.parquetKeysByIdentity(file, path) : await this.readKeys(file, path);
    const n = offsets.length;
    const w = 2 * this.width;
    const pageSize = this.cache.options.pageSize;
    let entries: Uint32Array;
    let positions: Float64Array | null = null;
    if (bytes !== undefined) ({ entries, positions } = sidecarPages(bytes, n, pageSize, this.sidecarOf(file)!));
    else {
      const per = Math.max(1, Math.floor(pageSize / (4 * w + 8)));
      entries = new Uint32Array(Math.ceil(n / per) + 1);
      for (let p = 1; p < entries.length; p++) entries[p] = Math.min(n, p * per);
    }
    const pages: KeyPage[] = [];
    for (let p = 0; p + 1 < entries.length; p++) pages.push(KeyPage.of(w, identities, offsets, entries[p], entries[p + 1]));
    const words = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
    const integer = SIDECAR_INTEGER_WIDTH[this.keyField.type.kind] !== undefined;
    const preferred = bytes !== undefined && integer ? SWAPPED : IDENTITY;
    // string keys of a sidecar: pages placed by key bytes (their fingerprints follow no order)
    const keyBounds = bytes !== undefined && !integer ? sidecarKeyBounds(bytes, entries, positions!) : null;
    // the filter takes what the high-priority pool has left beside the page directory
    const directory = entries.byteLength + (positions?.byteLength ?? 0) + 16 * pages.length + (keyBounds === null ? 0 : keyBounds.data.byteLength + keyBounds.starts.byteLength);
    const filter = new KeyFilter(words, w, n, Math.max(0, this.cache.highBytes - directory));
    return { paged: PagedFile.of(filter, entries, positions, pages, preferred, keyBounds), pages };
  }

  /**
   * Pages `list` (ascending) of a paged file, read again: of a sidecar, one range from the first
   * listed page to the last (the caller keeps the pages between them few); else the Parquet
   * columns, once.
   */
  private async reloadPages(file: DataFileMeta, path: string, paged: PagedFile, list: readonly number[]): Promise<KeyPage[]> {
    const w = 2 * this.width;
    const { entries, positions } = paged;
    const sidecar = this.sidecarOf(file);
    if (positions === null || sidecar === undefined) {
      const { identities, offsets } = await this.parquetKeysByIdentity(file, path);
      if (offsets.length !== entries[entries.length - 1]) throw new PaimonError("CORRUPT_FILE", `data file ${file.fileName} changed while its keys were cached`);
      return list.map((p) => KeyPage.of(w, identities, offsets, entries[p], entries[p + 1]));
    }
    const start = positions[list[0]];
    const bytes = await this.source.io.readRange(this.source.extraPathOf(file, sidecar), start, positions[list[list.length - 1] + 1] - start);
    return list.map((p) => decodeSidecarPage(bytes.subarray(positions[p] - start, positions[p + 1] - start), this.keyField.type, entries[p + 1] - entries[p], w, sidecar));
  }

  /**
   * Raises `found` for the rows `candidates[0..n)` in a file too large for the low-priority
   * pool: looks for each row in the pages whose bounds can hold it, reading the pages the cache
   * does not keep (nearby pages in one read). True when some row had such a page.
   */
  private async lookupPaged(file: DataFileMeta, path: string, words: Uint32Array, rows: number, candidates: Uint32Array, found: Int32Array, keys: KeyColumn | undefined): Promise<boolean> {
    const w = 2 * this.width;
    let fresh: KeyPage[] | null = null;
    const paged = await this.cache.paged(path, async () => {
      const loaded = await this.loadPaged(file, path);
      fresh = loaded.pages;
      return loaded.paged;
    });
    if (fresh !== null) for (let p = 0; p < paged.pageCount; p++) this.cache.keepPage(path, p, (fresh as KeyPage[])[p]);
    let n = 0;
    for (let r = 0; r < rows; r++) if (paged.filter.mayContain(words, r * w, w)) candidates[n++] = r;
    if (n === 0) return false;
    const { grouped, starts } = paged.group(words, w, candidates, n, keys);
    if (grouped.length === 0) return false;
    const pages: Array<KeyPage | Promise<KeyPage> | undefined> = new Array(paged.pageCount);
    const needed = (p: number) => starts[p + 1] > starts[p];
    for (let p = 0; p < paged.pageCount; p++) if (needed(p)) pages[p] = fresh !== null ? (fresh as KeyPage[])[p] : this.cache.keptPage(path, p);
    // the missing pages, in reads of a sidecar's ranges that skip at most READ_GAP_PAGES pages
    // between two missing ones (a read costs more than a few pages' bytes), or one Parquet read
    const missing: number[] = [];
    for (let p = 0; p < paged.pageCount; p++) if (needed(p) && pages[p] === undefined) missing.push(p);
    for (let k = 0; k < missing.length; ) {
      let end = k + 1;
      while (end < missing.length && (paged.positions === null || missing[end] - missing[end - 1] <= READ_GAP_PAGES + 1)) end++;
      const list = missing.slice(k, end);
      const read = await this.reloadPages(file, path, paged, list);
      this.cache.pageLoads += read.length;
      list.forEach((p, i) => {
        pages[p] = read[i];
        this.cache.keepPage(path, p, read[i]);
      });
      k = end;
    }
    for (let p = 0; p < paged.pageCount; p++) if (needed(p)) this.cache.pagesSearched++;
    for (let p = 0; p < paged.pageCount; p++) if (needed(p)) (await pages[p]!).raise(words, grouped, starts[p], starts[p + 1], paged.order, found);
    return true;
  }

  /**
   * The committed offset of the live row of each key of `identities` (`width` words a key): an
   * array over the keys, -1 where none, or null when no key is committed. `keys`: the keys
   * themselves (the column the identities were taken from): string keys are then placed among a
   * paged file's pages by their bytes (without, every page whose fingerprint bounds hold a key is
   * searched for it).
   */
  async lookup(identities: BigUint64Array, keys?: KeyColumn): Promise<BigInt64Array | null> {
    const rows = identities.length / this.width;
    if (rows === 0 || this.files.length === 0) return null;
    const w = 2 * this.width;
    const words = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
    const found = new BigInt64Array(rows);
    const foundWords = new Int32Array(found.buffer).fill(-1);
    const candidates = this.takeCandidates(rows);
    let any = false;
    const whole = this.wholeFiles();
    const located = this.locatedFiles();
    try {
      for (let f = 0; f < this.files.length; f++) {
        const file = this.files[f];
        const { path, load } = located[f];
        if (!whole[f]) {
          any = (await this.lookupPaged(file, path, words, rows, candidates, foundWords, keys)) || any;
          continue;
        }
        const n = filtered(await this.cache.filter(path, load), words, rows, w, candidates);
        if (n === 0) continue;
        (await this.cache.table(path, load)).raise(words, candidates.subarray(0, n), foundWords);
        any = true;
      }
    } finally {
      this.candidates = candidates;
    }
    return any ? found : null;
  }

  /**
   * `lookup` answered at once, without a promise, when every file is kept whole with its filter
   * (and, where the filter lets a key through, its key table) loaded in the cache: the same
   * answer. Undefined when something is not at hand (then `lookup`, which loads it).
   */
  lookupNow(identities: BigUint64Array): BigInt64Array | null | undefined {
    const rows = identities.length / this.width;
    if (rows === 0 || this.files.length === 0) return null;
    const whole = this.wholeFiles();
    const located = this.locatedFiles();
    const w = 2 * this.width;
    const words = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
    let found: BigInt64Array | null = null;
    let foundWords: Int32Array | null = null;
    const candidates = this.takeCandidates(rows);
    try {
      for (let f = 0; f < this.files.length; f++) {
        if (!whole[f]) return undefined;
        const { path } = located[f];
        const filter = this.cache.loadedFilter(path);
        if (filter === undefined) return undefined;
        const n = filtered(filter, words, rows, w, candidates);
        if (n === 0) continue;
        const table = this.cache.loadedTable(path);
        if (table === undefined) return undefined;
        if (found === null) {
          found = new BigInt64Array(rows);
          foundWords = new Int32Array(found.buffer).fill(-1);
        }
        table.raise(words, candidates.subarray(0, n), foundWords!);
      }
    } finally {
      this.candidates = candidates;
    }
    return found;
  }

  /** The scratch of candidate rows, at least `rows` long (taken: an overlapping lookup allocates its own until it is given back). */
  private takeCandidates(rows: number): Uint32Array {
    let candidates = this.candidates;
    this.candidates = null;
    if (candidates === null || candidates.length < rows) candidates = new Uint32Array(Math.max(rows, 2 * (candidates?.length ?? 0)));
    return candidates;
  }

  private wholeFiles(): boolean[] {
    return (this.whole ??= this.cache.wholeFiles(
      this.files.map((f) => Number(f.rowCount)),
      this.width,
    ));
  }

  private locatedFiles(): Array<{ path: string; load: () => Promise<FileKeyTable> }> {
    return (this.located ??= this.files.map((file) => {
      const path = this.source.pathOf(file);
      return { path, load: () => this.load(file, path) };
    }));
  }
}

/** Writes to `candidates` the rows (of `rows` keys, `w` words each) whose identity `filter` may contain; returns how many. */
function filtered(filter: KeyFilter, words: Uint32Array, rows: number, w: number, candidates: Uint32Array): number {
  let n = 0;
  for (let r = 0; r < rows; r++) if (filter.mayContain(words, r * w, w)) candidates[n++] = r;
  return n;
}
