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
import { OffsetLog, type PendingOffsets } from "../read/offset-positions.js";
import { VALUE_WIDTH, type KeyColumn } from "../kernel/columns.js";
import { fingerprintKeys } from "../kernel/hash.js";
import { RowKind } from "../spec/row-kind.js";
import type { DataType } from "../spec/types.js";

const EMPTY = 0;
const FULL = 1;
const REMOVED = 2;
/** A key whose live row a retract deleted: lookups must not fall back to its committed row (`latest` holds the retract's offset). */
const RETRACTED = 3;
const INITIAL_CAPACITY = 1024;
/** Grow (or rebuild without removed slots) when full + removed slots exceed this share. */
const MAX_LOAD = 0.7;

/**
 * Superseded offsets frozen for a view, a seal or a prepare: later writes never change it
 * (the index copies its set before the next mutation). With the log they were frozen from and
 * its length then (the set holds that prefix of the log): reads resolve it incrementally.
 */
export interface FrozenDeletedOffsets extends PendingOffsets {
  readonly offsets: OffsetSet64;
  /**
   * Of a releasable freeze (a read view's): its holder is done with `offsets` (idempotent). The
   * index then changes the set in place again, or frees a set it has replaced, instead of leaving
   * a copy per write to the garbage collector.
   */
  readonly release?: () => void;
}

/** The index's deleted set and who holds it frozen. */
interface SharedDeleted {
  readonly set: OffsetSet64;
  /** Releasable freezes not released yet. */
  holders: number;
  /** A freeze without release holds it (a seal or prepare): copy before changing it, never free it. */
  held: boolean;
  /** Still the index's set. */
  current: boolean;
}

/**
 * Latest offset per key of one partition-bucket, and the offsets deleted since the last commit.
 * Identities are one 64-bit word per key (the key's own bits) or two (fingerprints of variable
 * width keys: 128 bits, so that two distinct keys never share one in practice), see
 * keyIdentityWidth.
 */
export class DedupKeyIndex {
  private capacity = INITIAL_CAPACITY;
  /** 32-bit words per identity. */
  private readonly words: number;
  private identity: Uint32Array;
  private latest = new BigInt64Array(INITIAL_CAPACITY);
  /** `latest` as 32-bit word pairs: offsets move as words, never as BigInt values (an allocation each). */
  private latestWords = new Int32Array(this.latest.buffer);
  private state = new Uint8Array(INITIAL_CAPACITY);
  private full = 0;
  private removed = 0;
  private shared: SharedDeleted = { set: new OffsetSet64(), holders: 0, held: false, current: true };
  /** `deleted` in the order of deletion since the last commit (append-only: frozen views hold a prefix). */
  private deletedLog = new OffsetLog();
  /** Scratch of `apply`: the offsets a call supersedes (copied into the deleted set and log before it returns). */
  private superseded = new BigInt64Array(16);
  private supersededWords = new Int32Array(this.superseded.buffer);

  /** `width`: 64-bit words per key identity (keyIdentityWidth of the key type). */
  constructor(readonly width: 1 | 2 = 1) {
    this.words = 2 * width;
    this.identity = new Uint32Array(INITIAL_CAPACITY * this.words);
  }

  /** Number of keys held: with a live row, or (with committed lookups) retracted since the lookup's snapshot. */
  get keyCount(): number {
    return this.full;
  }

  /** Bytes held by the key table (the seed's key-map memory metric; the deleted set is extra). */
  get keyMemoryBytes(): number {
    return this.capacity * (4 * this.words + 8 + 1);
  }

  /**
   * Approximate bytes of the pending deleted offsets: Roaring array containers take 2 bytes a
   * value (an upper bound: run and bitmap containers of dense offsets take less).
   */
  get deletedMemoryBytes(): number {
    const deleted = this.shared.set;
    return deleted.isEmpty ? 0 : 2 * deleted.size + 8 * this.deletedLog.length;
  }

  /**
   * Applies one write's rows in row order (seed: "within-batch duplicates are resolved in row
   * order"): row i has key identity `identities[i]` (or words `2i, 2i + 1` of 128-bit identities,
   * see keyIdentities), offset `offsets[i]` and row kind `kinds[kindsFrom + i]` (INSERT when absent). An add
   * row (INSERT / UPDATE_AFTER) marks the key's live row deleted and becomes the live row; a
   * retract (DELETE / UPDATE_BEFORE) marks the live row deleted and forgets the key, storing
   * nothing. Returns the rows to store (`addRows`: null when every row is an add row) and how
   * many live rows were marked deleted.
   *
   * With committed-key lookups, `committed` is the committed live offset of each key the index
   * does not hold (CommittedKeys.lookup of the rows `missing` reported: -1 where none, null when
   * none at all): the index then holds only keys written since the lookup's snapshot, and a
   * retract leaves a RETRACTED marker so that a later row of the key does not fall back to its
   * committed row again. Without lookups (`committed` undefined) the index holds every key.
   */
  apply(identities: BigUint64Array, offsets: BigInt64Array, kinds?: ArrayLike<number>, kindsFrom = 0, committed?: BigInt64Array | null): { addRows: Uint32Array | null; superseded: number } {
    const n = offsets.length;
    if (identities.length !== n * this.width || (kinds !== undefined && kinds.length - kindsFrom < n) || (committed && committed.length !== n)) {
      throw new PaimonError("INVALID_ARGUMENT", `dedup key index: ${identities.length} identity words (${this.width} a key) for ${n} offsets${kinds ? ` and ${kinds.length - kindsFrom} row kinds` : ""}`);
    }
    const words = identityWords(identities);
    const offsetWords = new Int32Array(offsets.buffer, offsets.byteOffset, 2 * n);
    // the superseded offsets go into the deleted set and log by copy: one scratch serves every call
    if (this.superseded.length < n) {
      this.superseded = new BigInt64Array(Math.max(n, 2 * this.superseded.length));
      this.supersededWords = new Int32Array(this.superseded.buffer);
    }
    const superseded = this.superseded;
    const supersededWords = this.supersededWords;
    let count = 0;
    let adds: Uint32Array | null = null;
    let added = 0;
    const w = this.words;
    // Room for every row as a new key: the table grows at most once per call (bulk loads size it at once).
    this.reserve(n);
    const lookups = committed !== undefined;
    const committedWords = committed ? new Int32Array(committed.buffer, committed.byteOffset, 2 * n) : null;
    for (let i = 0; i < n; i++) {
      const kind = kinds ? kinds[kindsFrom + i] : RowKind.INSERT;
      const add = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER;
      if (!add && !adds) {
        adds = new Uint32Array(n);
        for (let j = 0; j < i; j++) adds[j] = j;
      }
      if (add) {
        if (adds) adds[added] = i;
        added++;
      }
      const slot = this.find(words, i * w);
      const latest = this.latestWords;
      if (slot >= 0) {
        if (this.state[slot] === FULL) {
          supersededWords[2 * count] = latest[2 * slot];
          supersededWords[2 * count + 1] = latest[2 * slot + 1];
          count++;
        }
        if (add) this.state[slot] = FULL;
        else if (lookups) this.state[slot] = RETRACTED;
        else {
          this.state[slot] = REMOVED;
          this.full--;
          this.removed++;
          continue;
        }
        latest[2 * slot] = offsetWords[2 * i];
        latest[2 * slot + 1] = offsetWords[2 * i + 1];
        continue;
      }
      if (committedWords !== null && committedWords[2 * i + 1] !== -1) {
        supersededWords[2 * count] = committedWords[2 * i];
        supersededWords[2 * count + 1] = committedWords[2 * i + 1];
        count++;
        this.insertAt(-1 - slot, words, i * w, offsetWords, 2 * i, add ? FULL : RETRACTED);
      } else if (add) this.insertAt(-1 - slot, words, i * w, offsetWords, 2 * i, FULL);
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
    const n = Math.floor(identities.length / this.width);
    return this.apply(identities, new BigInt64Array(n), new Uint8Array(n).fill(RowKind.DELETE)).superseded;
  }

  /** Offset of the live row of a key (its identity: one word, or the two words of a 128-bit one), or undefined. */
  latestOffset(identity: bigint | BigUint64Array): bigint | undefined {
    const value = typeof identity === "bigint" ? BigUint64Array.of(identity) : identity;
    if (value.length !== this.width) return undefined;
    const slot = this.find(identityWords(value), 0);
    return slot >= 0 && this.state[slot] === FULL ? this.latest[slot] : undefined;
  }

  /** The offsets deleted since the last commit, frozen (copy-on-write: O(1) until the next write). */
  /**
   * The offsets deleted since the last commit, frozen (copy-on-write: O(1) until the next write).
   * `releasable`: the holder calls `release` when done (read views); others hold it for good.
   */
  freezeDeleted(releasable = false): FrozenDeletedOffsets {
    const shared = this.shared;
    if (!releasable) {
      shared.held = true;
      return { offsets: shared.set, log: this.deletedLog, logLength: this.deletedLog.length };
    }
    shared.holders++;
    return new ReleasableFreeze(shared, this.deletedLog);
  }

  /**
   * Forgets deletions a successful commit made durable (`frozen` is what its prepare froze): the
   * remaining ones start a new log (views frozen before keep the old one).
   */
  committed(frozen: FrozenDeletedOffsets): void {
    if (frozen.offsets.isEmpty) return;
    const remaining = OffsetSet64.andNot(this.shared.set, frozen.offsets);
    this.replaceDeleted(remaining);
    this.deletedLog = new OffsetLog(remaining.toBigUint64Array());
  }

  private markDeleted(offsets: BigInt64Array): void {
    if (offsets.length === 0) return;
    const shared = this.shared;
    if (shared.holders > 0 || shared.held) this.replaceDeleted(shared.set.clone());
    this.shared.set.addMany(offsets);
    this.deletedLog.append(offsets);
  }

  /** Makes `set` the deleted set; the one it replaces is freed once no freeze holds it. */
  private replaceDeleted(set: OffsetSet64): void {
    const old = this.shared;
    old.current = false;
    freeIfUnused(old);
    this.shared = { set, holders: 0, held: false, current: true };
  }

  /**
   * Slot of the identity at `words[at..at + this.words)`, or, when absent, `-1 - slot` of the slot
   * an insert of it takes (the chain's first removed or empty slot).
   */
  private find(words: Uint32Array, at: number): number {
    const mask = this.capacity - 1;
    const w = this.words;
    const id = this.identity;
    let free = -1;
    for (let slot = identityHash(words[at], words[at + 1]) & mask; ; slot = (slot + 1) & mask) {
      const s = this.state[slot];
      if (s === EMPTY) return -1 - (free >= 0 ? free : slot);
      if (s === REMOVED) {
        if (free < 0) free = slot;
        continue;
      }
      const base = slot * w;
      if (id[base] === words[at] && id[base + 1] === words[at + 1] && (w === 2 || (id[base + 2] === words[at + 2] && id[base + 3] === words[at + 3]))) return slot;
    }
  }

  /** Inserts the identity at `words[at..]` with the offset at `offsetWords[offsetAt..offsetAt + 2)`, as FULL or RETRACTED. */
  private insert(words: Uint32Array, at: number, offsetWords: Int32Array, offsetAt: number, state = FULL): void {
    const mask = this.capacity - 1;
    let slot = identityHash(words[at], words[at + 1]) & mask;
    while (this.state[slot] === FULL || this.state[slot] === RETRACTED) slot = (slot + 1) & mask;
    this.insertAt(slot, words, at, offsetWords, offsetAt, state);
  }

  /** Puts the identity into `slot` (free: removed or empty; `find` reports it for an absent identity). */
  private insertAt(slot: number, words: Uint32Array, at: number, offsetWords: Int32Array, offsetAt: number, state: number): void {
    if (this.state[slot] === REMOVED) this.removed--;
    this.state[slot] = state;
    const w = this.words;
    const id = this.identity;
    const base = slot * w;
    for (let k = 0; k < w; k++) id[base + k] = words[at + k];
    this.latestWords[2 * slot] = offsetWords[offsetAt];
    this.latestWords[2 * slot + 1] = offsetWords[offsetAt + 1];
    this.full++;
  }

  /**
   * Keeps room for `more` inserts under MAX_LOAD (removed slots still end probe chains): rebuilds
   * without removed slots, doubling until the live keys and `more` fill at most half the table.
   * True when it rebuilt.
   */
  private reserve(more: number): boolean {
    if (this.full + this.removed + more <= this.capacity * MAX_LOAD) return false;
    let capacity = this.capacity;
    while (this.full + more > capacity * 0.5) capacity *= 2;
    this.rebuild(capacity);
    return true;
  }

  /** Moves the held keys (live and retracted) into fresh arrays of `capacity` slots. */
  private rebuild(capacity: number): void {
    const { identity, latestWords, state } = this;
    const w = this.words;
    this.capacity = capacity;
    this.identity = new Uint32Array(capacity * w);
    this.latest = new BigInt64Array(capacity);
    this.latestWords = new Int32Array(this.latest.buffer);
    this.state = new Uint8Array(capacity);
    this.full = 0;
    this.removed = 0;
    for (let slot = 0; slot < state.length; slot++) {
      if (state[slot] === FULL || state[slot] === RETRACTED) this.insert(identity, slot * w, latestWords, 2 * slot, state[slot]);
    }
  }

  /**
   * Which keys the index holds, live or retracted (1 per such row, else 0): with committed
   * lookups, the others fall back to their committed rows.
   */
  holds(identities: BigUint64Array): Uint8Array {
    const n = Math.floor(identities.length / this.width);
    const words = identityWords(identities);
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.find(words, i * this.words) >= 0 ? 1 : 0;
    return out;
  }

  /**
   * Forgets the keys whose latest row (or retract) has an offset below `end`: committed files
   * now hold them (a refresh to a snapshot whose committed offset is `end`). Shrinks the table to
   * the remaining keys.
   */
  dropCommitted(end: bigint): void {
    const { latest, state } = this;
    let keep = 0;
    for (let slot = 0; slot < state.length; slot++) {
      if (state[slot] !== FULL && state[slot] !== RETRACTED) continue;
      if (latest[slot] < end) state[slot] = REMOVED;
      else keep++;
    }
    let capacity = INITIAL_CAPACITY;
    while (keep > capacity * 0.5) capacity *= 2;
    this.rebuild(capacity);
  }
}

/** Frees a replaced deleted set that no freeze holds any more. */
/** A read view's freeze: one object per plan (no release closure, no copy of the frozen fields). */
class ReleasableFreeze implements FrozenDeletedOffsets {
  readonly offsets: OffsetSet64;
  readonly logLength: number;
  private released = false;

  constructor(
    private readonly shared: SharedDeleted,
    readonly log: OffsetLog,
  ) {
    this.offsets = shared.set;
    this.logLength = log.length;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.shared.holders--;
    freeIfUnused(this.shared);
  }
}

function freeIfUnused(shared: SharedDeleted): void {
  if (!shared.current && !shared.held && shared.holders === 0) shared.set.dispose();
}

/** Identities (`width` 64-bit words each) of the rows `rows`, in that order. */
export function gatherIdentities(identities: BigUint64Array, width: number, rows: Uint32Array): BigUint64Array {
  const out = new BigUint64Array(rows.length * width);
  const from = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
  const to = new Uint32Array(out.buffer);
  const w = 2 * width;
  for (let i = 0; i < rows.length; i++) for (let k = 0; k < w; k++) to[i * w + k] = from[rows[i] * w + k];
  return out;
}

/** The identities as 32-bit word pairs (platform byte order: an identity, never stored) without copying. */
function identityWords(identities: BigUint64Array): Uint32Array {
  return new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
}

/**
 * Slot hash of an identity's first two 32-bit words: identities can be raw key values (strided
 * ids, timestamps), so both words go through murmur3's 32-bit finaliser before masking.
 */
export function identityHash(lo: number, hi: number): number {
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

/** 64-bit words of a key's identity (see keyIdentities): 2 for strings, binaries and DECIMAL(p > 18), else 1. */
export function keyIdentityWidth(type: DataType): 1 | 2 {
  if (type.kind === "CHAR" || type.kind === "VARCHAR" || type.kind === "BINARY" || type.kind === "VARBINARY") return 2;
  if (type.kind === "DECIMAL" && type.precision > 18) return 2;
  return 1;
}

/** Seed of the second fingerprint of a 128-bit identity (any value other than the first's 0). */
const SECOND_SEED = 0x9e3779b97f4a7c15n;

/**
 * Identities of the (non-null) deduplicate key column for DedupKeyIndex. Kinds of at most 8
 * bytes: one 64-bit word a row, the value's own bits zero-extended (exact: distinct values never
 * share an identity). Strings, binaries and DECIMAL(p > 18): two words a row, XXH64 fingerprints
 * of the key under two seeds (128 bits: a false match, which would delete another key's row, has
 * probability about n²/2^129 for n keys).
 */
export function keyIdentities(column: KeyColumn): BigUint64Array {
  if (column.type === "bytes" || column.type === "decimal128") {
    const first = fingerprintKeys([column]);
    const second = fingerprintKeys([column], SECOND_SEED);
    const out = new BigUint64Array(2 * first.length);
    const o = new Uint32Array(out.buffer);
    const a = new Uint32Array(first.buffer, first.byteOffset, 2 * first.length);
    const b = new Uint32Array(second.buffer, second.byteOffset, 2 * second.length);
    for (let i = 0; i < first.length; i++) {
      o[4 * i] = a[2 * i];
      o[4 * i + 1] = a[2 * i + 1];
      o[4 * i + 2] = b[2 * i];
      o[4 * i + 3] = b[2 * i + 1];
    }
    return out;
  }
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
