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
// Lookups ignore deletion vectors: offsets only grow per partition-bucket, so the live row of a
// key is its row with the largest offset over the files, and marking an offset deleted that a
// vector already deletes, or that a compaction dropped, resolves to nothing new at commit.
import { columnValues } from "../arrow/values.js";
import { PaimonError } from "../error.js";
import { OFFSET_SIDECAR_MAGIC, OFFSET_SIDECAR_VERSION, offsetSidecarOf } from "../fileindex/key-offset-sidecar.js";
import { readParquetBatches } from "../format/parquet-reader.js";
import { fileIOSource } from "../format/source.js";
import { LoadCache } from "../fs/load-cache.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
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
  private readonly blockMask: number;
  /** Smallest and largest one-word identity of the file as unsigned (high, low) words; min > max when none (or two-word identities). */
  private minHi = 0xffffffff;
  private minLo = 0xffffffff;
  private maxHi = 0;
  private maxLo = 0;

  constructor(words: Uint32Array, w: number, count: number) {
    let blocks = 1;
    while (blocks * BLOCK_BITS < count * BLOOM_BITS_PER_KEY) blocks *= 2;
    this.bits = new Uint32Array(blocks * (BLOCK_BITS >>> 5));
    this.blockMask = blocks - 1;
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
    const base = (identityHash(lo, hi) & this.blockMask) << 4;
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

/**
 * The identities and offsets of a sidecar's entries (`rowCount` of them: one per row of its data
 * file); CORRUPT_FILE naming the sidecar on any deviation from the layout.
 */
export function decodeSidecarKeys(bytes: Uint8Array, keyType: DataType, rowCount: number, name: string): { identities: BigUint64Array; offsets: BigInt64Array } {
  const corrupt = (what: string) => new PaimonError("CORRUPT_FILE", `${name}: ${what}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 20 || view.getBigInt64(0, false) !== OFFSET_SIDECAR_MAGIC || view.getInt32(8, false) !== OFFSET_SIDECAR_VERSION) throw corrupt("unsupported .offset sidecar format");
  const count = view.getBigInt64(12, false);
  if (count !== BigInt(rowCount)) throw corrupt(`.offset sidecar has ${count} entries for a data file of ${rowCount} rows`);
  const n = rowCount;
  const offsets = new BigInt64Array(n);
  const width = SIDECAR_INTEGER_WIDTH[keyType.kind];
  let at = 20;
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
    const out = new Uint8Array(identities.buffer);
    for (let i = 0; i < n; i++) {
      need(4 + 1 + width);
      if (view.getInt32(at, false) !== 1 + width || bytes[at + 4] !== 1) throw corrupt(`unexpected key entry in .offset sidecar of ${keyType.kind} keys`);
      // Identities are host-order words; typed arrays are little-endian wherever this runs (the writer checks).
      for (let j = 0; j < width; j++) out[8 * i + j] = bytes[at + 5 + j];
      at += 5 + width;
      readOffset(i);
    }
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

/** The lookup cache of one context: filters in the high-priority pool, key tables in the low-priority one. */
export class DedupLookupCache {
  private readonly filters: LoadCache<KeyFilter>;
  private readonly tables: LoadCache<FileKeyTable>;
  /** Key tables loaded (a reload after eviction counts again): for tests and benchmarks. */
  loads = 0;

  constructor(readonly options: DedupLookupOptions) {
    const high = Math.floor(options.maxMemory * options.highPriorityRatio);
    this.filters = new LoadCache(high, (f) => f.memoryBytes);
    this.tables = new LoadCache(options.maxMemory - high, (t) => t.memoryBytes);
  }

  /** Bytes of the cached filters and key tables. */
  get memoryBytes(): number {
    return this.filters.weight + this.tables.weight;
  }

  /** The key table of a data file (at `path`), cached or loaded. */
  table(path: string, load: () => Promise<FileKeyTable>): Promise<FileKeyTable> {
    return this.tables.get(path, async () => {
      this.loads++;
      return load();
    });
  }

  /** The filter of a data file, cached or taken from its (loaded) key table. */
  filter(path: string, load: () => Promise<FileKeyTable>): Promise<KeyFilter> {
    return this.filters.get(path, async () => (await this.table(path, load)).filter);
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

  get fileCount(): number {
    return this.files.length;
  }

  private async load(file: DataFileMeta, path: string): Promise<FileKeyTable> {
    const sidecar = sidecarDecodes(this.keyField.type) ? offsetSidecarOf(file.fileName, file.extraFiles) : undefined;
    const { identities, offsets } =
      sidecar !== undefined
        ? decodeSidecarKeys(await readPaged(this.source, this.source.extraPathOf(file, sidecar), this.cache.options.pageSize), this.keyField.type, Number(file.rowCount), sidecar)
        : await parquetKeys(this.source, file, path, this.keyField, this.offsetField);
    return new FileKeyTable(this.width, identities, offsets);
  }

  /**
   * The committed offset of the live row of each key of `identities` (`width` words a key): an
   * array over the keys, -1 where none, or null when no key is committed.
   */
  async lookup(identities: BigUint64Array): Promise<BigInt64Array | null> {
    const rows = identities.length / this.width;
    if (rows === 0 || this.files.length === 0) return null;
    const w = 2 * this.width;
    const words = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
    const found = new BigInt64Array(rows);
    const foundWords = new Int32Array(found.buffer).fill(-1);
    const candidates = new Uint32Array(rows);
    let any = false;
    for (const file of this.files) {
      const path = this.source.pathOf(file);
      const load = () => this.load(file, path);
      const filter = await this.cache.filter(path, load);
      let n = 0;
      for (let r = 0; r < rows; r++) if (filter.mayContain(words, r * w, w)) candidates[n++] = r;
      if (n === 0) continue;
      (await this.cache.table(path, load)).raise(words, candidates.subarray(0, n), foundWords);
      any = true;
    }
    return any ? found : null;
  }
}
