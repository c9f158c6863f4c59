// Key state of the real-time append-deduplicate mode (seed 000 "Append deduplicate"): per
// partition-bucket, the offset of the latest row of every key, over committed files and memory,
// and the offsets a newer row (or a delete) superseded since the last commit. The key of a row is
// a 64-bit identity (`keyIdentities`: the value's own bits for keys of at most 64 bits, else the
// kernel fingerprint): an open-addressing table over typed arrays, no per-row objects.
// Deduplication never crosses partitions: `bucket-key` lies within the
// deduplicate key, so a key lives in one partition-bucket and one index per partition-bucket is
// exactly one index per partition.
import { PaimonError } from "../error.js";
import { OffsetSet64 } from "../kernel/bitmap.js";
import { VALUE_WIDTH, type KeyColumn } from "../kernel/columns.js";
import { fingerprintKeys } from "../kernel/hash.js";
import { RowKind } from "../spec/row-kind.js";

const EMPTY = 0;
const FULL = 1;
const REMOVED = 2;
const INITIAL_CAPACITY = 1024;
/** Grow (or rebuild without removed slots) when full + removed slots exceed this share. */
const MAX_LOAD = 0.7;

/**
 * Superseded offsets frozen for a view, a seal or a prepare: later writes never change it
 * (the index copies its set before the next mutation).
 */
export interface FrozenDeletedOffsets {
  readonly offsets: OffsetSet64;
}

/** Latest offset per key of one partition-bucket, and the offsets deleted since the last commit. */
export class DedupKeyIndex {
  private capacity = INITIAL_CAPACITY;
  private identityLow = new Uint32Array(INITIAL_CAPACITY);
  private identityHigh = new Uint32Array(INITIAL_CAPACITY);
  private latest = new BigInt64Array(INITIAL_CAPACITY);
  private state = new Uint8Array(INITIAL_CAPACITY);
  private full = 0;
  private removed = 0;
  private deleted = new OffsetSet64();
  /** The deleted set is referenced by a frozen view: copy before mutating it. */
  private deletedShared = false;

  /** Number of keys with a live row. */
  get keyCount(): number {
    return this.full;
  }

  /** Bytes held by the key table (the seed's key-map memory metric; the deleted set is extra). */
  get keyMemoryBytes(): number {
    return this.capacity * (4 + 4 + 8 + 1);
  }

  /**
   * Approximate bytes of the pending deleted offsets: Roaring array containers take 2 bytes a
   * value (an upper bound: run and bitmap containers of dense offsets take less).
   */
  get deletedMemoryBytes(): number {
    return this.deleted.isEmpty ? 0 : 2 * this.deleted.size;
  }

  /**
   * Applies one write's rows in row order (seed: "within-batch duplicates are resolved in row
   * order"): row i has key identity `identities[i]`, offset `offsets[i]` and row kind `kinds[i]`
   * (INSERT when absent). An add row (INSERT / UPDATE_AFTER) marks the key's live row deleted
   * and becomes the live row; a retract (DELETE / UPDATE_BEFORE) marks the live row deleted and
   * forgets the key, storing nothing. Returns the rows to store (`addRows`: null when every row
   * is an add row) and how many live rows were marked deleted.
   */
  apply(identities: BigUint64Array, offsets: BigInt64Array, kinds?: ArrayLike<number>): { addRows: Uint32Array | null; superseded: number } {
    const n = identities.length;
    if (offsets.length !== n || (kinds !== undefined && kinds.length !== n)) {
      throw new PaimonError("INVALID_ARGUMENT", `dedup key index: ${n} identities for ${offsets.length} offsets${kinds ? ` and ${kinds.length} row kinds` : ""}`);
    }
    const words = identityWords(identities);
    const superseded = new BigInt64Array(n);
    let count = 0;
    let adds: Uint32Array | null = null;
    let added = 0;
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i];
      const hi = words[2 * i + 1];
      const kind = kinds ? kinds[i] : RowKind.INSERT;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        if (adds) adds[added] = i;
        added++;
        this.reserve(1);
        const slot = this.find(lo, hi);
        if (slot >= 0) {
          superseded[count++] = this.latest[slot];
          this.latest[slot] = offsets[i];
        } else this.insert(lo, hi, offsets[i]);
        continue;
      }
      if (!adds) {
        adds = new Uint32Array(n);
        for (let j = 0; j < i; j++) adds[j] = j;
      }
      const slot = this.find(lo, hi);
      if (slot < 0) continue;
      superseded[count++] = this.latest[slot];
      this.state[slot] = REMOVED;
      this.full--;
      this.removed++;
    }
    this.markDeleted(superseded.subarray(0, count));
    return { addRows: adds ? adds.slice(0, added) : null, superseded: count };
  }

  /** `apply` of add rows only; returns how many offsets were superseded. */
  upsert(identities: BigUint64Array, offsets: BigInt64Array): number {
    return this.apply(identities, offsets).superseded;
  }

  /** `apply` of retracts only; returns how many live rows were deleted. */
  remove(identities: BigUint64Array): number {
    return this.apply(identities, new BigInt64Array(identities.length), new Uint8Array(identities.length).fill(RowKind.DELETE)).superseded;
  }

  /** Offset of the live row of a key, or undefined. */
  latestOffset(identity: bigint): bigint | undefined {
    const words = identityWords(BigUint64Array.of(identity));
    const slot = this.find(words[0], words[1]);
    return slot >= 0 ? this.latest[slot] : undefined;
  }

  /** The offsets deleted since the last commit, frozen (copy-on-write: O(1) until the next write). */
  freezeDeleted(): FrozenDeletedOffsets {
    this.deletedShared = true;
    return { offsets: this.deleted };
  }

  /** Forgets deletions a successful commit made durable (`frozen` is what its prepare froze). */
  committed(frozen: FrozenDeletedOffsets): void {
    if (frozen.offsets.isEmpty) return;
    const remaining = OffsetSet64.andNot(this.deleted, frozen.offsets);
    this.deleted = remaining;
    this.deletedShared = false;
  }

  private markDeleted(offsets: BigInt64Array): void {
    if (offsets.length === 0) return;
    if (this.deletedShared) {
      this.deleted = this.deleted.clone();
      this.deletedShared = false;
    }
    this.deleted.addMany(offsets);
  }

  private find(lo: number, hi: number): number {
    const mask = this.capacity - 1;
    for (let slot = mix(lo, hi) & mask; ; slot = (slot + 1) & mask) {
      const s = this.state[slot];
      if (s === EMPTY) return -1;
      if (s === FULL && this.identityLow[slot] === lo && this.identityHigh[slot] === hi) return slot;
    }
  }

  private insert(lo: number, hi: number, offset: bigint): void {
    const mask = this.capacity - 1;
    let slot = mix(lo, hi) & mask;
    while (this.state[slot] === FULL) slot = (slot + 1) & mask;
    if (this.state[slot] === REMOVED) this.removed--;
    this.state[slot] = FULL;
    this.identityLow[slot] = lo;
    this.identityHigh[slot] = hi;
    this.latest[slot] = offset;
    this.full++;
  }

  /** Keeps room for `more` inserts under MAX_LOAD (removed slots still end probe chains). */
  private reserve(more: number): void {
    if (this.full + this.removed + more <= this.capacity * MAX_LOAD) return;
    let capacity = this.capacity;
    while (this.full + more > capacity * MAX_LOAD * 0.5) capacity *= 2;
    const { identityLow, identityHigh, latest, state } = this;
    this.capacity = capacity;
    this.identityLow = new Uint32Array(capacity);
    this.identityHigh = new Uint32Array(capacity);
    this.latest = new BigInt64Array(capacity);
    this.state = new Uint8Array(capacity);
    this.full = 0;
    this.removed = 0;
    for (let slot = 0; slot < state.length; slot++) {
      if (state[slot] === FULL) this.insert(identityLow[slot], identityHigh[slot], latest[slot]);
    }
  }
}

/** The identities as 32-bit word pairs (platform byte order: an identity, never stored) without copying. */
function identityWords(identities: BigUint64Array): Uint32Array {
  return new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
}

/**
 * Slot hash: identities can be raw key values (strided ids, timestamps), so both words go
 * through murmur3's 32-bit finaliser before masking.
 */
function mix(lo: number, hi: number): number {
  let h = (lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Rows of a stored batch that survive `frozen` (memory reads and prepare hide rows whose offset
 * is marked deleted): their indexes ascending, or null when no row is deleted. `offsets` are
 * ascending and non-negative, as the writer validates them.
 */
export function survivingRows(offsets: BigInt64Array, frozen: FrozenDeletedOffsets): Uint32Array | null {
  const deleted = frozen.offsets;
  const n = offsets.length;
  if (n === 0 || deleted.isEmpty) return null;
  // Offsets are validated non-negative: the unsigned view of the same words is the same values.
  const unsigned = new BigUint64Array(offsets.buffer, offsets.byteOffset, n);
  if ((deleted.maximum() as bigint) < unsigned[0] || (deleted.minimum() as bigint) > unsigned[n - 1]) return null;
  const hit = deleted.hasMany(unsigned);
  const keep = new Uint32Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) if (hit[i] === 0) keep[kept++] = i;
  return kept === n ? null : keep.slice(0, kept);
}

/**
 * 64-bit identities of the (non-null) deduplicate key column for DedupKeyIndex: the value's own
 * bits, zero-extended, for kinds of at most 8 bytes (exact: distinct values never share an
 * identity); the XXH64 key fingerprint for strings, binaries and DECIMAL(p > 18), where two
 * distinct keys share one with probability about n²/2^65 for n keys.
 */
export function keyIdentities(column: KeyColumn): BigUint64Array {
  if (column.type === "bytes" || column.type === "decimal128") return fingerprintKeys([column]);
  const n = column.length;
  const out = new BigUint64Array(n);
  const values = column.values!;
  const width = VALUE_WIDTH[column.type];
  if (width === 8) {
    out.set(new BigUint64Array(values.buffer, values.byteOffset, n));
    return out;
  }
  const words = new Uint32Array(out.buffer);
  if (width === 4) {
    const source = new Uint32Array(values.buffer, values.byteOffset, n);
    for (let i = 0; i < n; i++) words[2 * i] = source[i];
  } else if (width === 2) {
    const source = new Uint16Array(values.buffer, values.byteOffset, n);
    for (let i = 0; i < n; i++) words[2 * i] = source[i];
  } else {
    const source = new Uint8Array(values.buffer, values.byteOffset, n);
    for (let i = 0; i < n; i++) words[2 * i] = source[i];
  }
  return out;
}
