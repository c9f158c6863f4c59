// Key lookups over the memory tail of an append-deduplicate table (issue 11): the tail is in
// write order, not sorted by key, so an exact `key = v` (or `key IN (…)`) read would evaluate
// the filter on every row of every stored batch. Stored batches are immutable: each one's key
// column gets a hash table from key identity (keyIdentities: the value's own bits for integer
// keys, a 128-bit fingerprint for strings) to its rows, built on the first lookup that reaches
// it and kept with the batch (a WeakMap: it goes when the batch goes). A lookup then probes each
// batch instead of filtering it. The rows found are candidates: the caller still applies the
// exact filter to them, so a fingerprint match of another string can never be returned.
import type * as arrow from "apache-arrow";
import { keyColumnFromArrow, keyColumnFromValues, type KeyColumnType } from "../kernel/columns.js";
import type { BoundLeafPredicate, Predicate } from "../predicate/predicate.js";
import type { DataType } from "../spec/types.js";
import { keyIdentities, keyIdentityWidth, identityHash } from "./dedup-key-index.js";

/** The identities a bound filter requires of the key field (one `=` or `IN` leaf, alone or in an AND). */
export interface KeyLookup {
  readonly kind: KeyColumnType;
  /** 64-bit words per identity. */
  readonly width: 1 | 2;
  /** The distinct wanted identities, `width` words each. */
  readonly identities: BigUint64Array;
  /** `identities` as 32-bit words (what a batch's index is probed with). */
  readonly wanted: Uint32Array;
  /**
   * The filter is the `=` / `IN` leaf alone and the key an integer (its identity is its value):
   * the rows found are exactly the rows the filter selects, not only candidates.
   */
  readonly exact: boolean;
}

const INTEGER_KINDS: Readonly<Record<string, { kind: KeyColumnType; min: bigint; max: bigint }>> = {
  TINYINT: { kind: "int8", min: -128n, max: 127n },
  SMALLINT: { kind: "int16", min: -32768n, max: 32767n },
  INT: { kind: "int32", min: -2147483648n, max: 2147483647n },
  BIGINT: { kind: "int64", min: -(2n ** 63n), max: 2n ** 63n - 1n },
};

/**
 * The key lookup `filter` (bound to the table's fields) implies for `keyField`, or null when it
 * implies none this index answers: the key must be an integer or VARCHAR/STRING field, and the
 * filter a `=` / `IN` leaf on it, or an AND with one. Literals no row can equal (null, out of the
 * type's range) are left out: a lookup may then want no identity at all.
 */
export function keyLookupOf(filter: Predicate, keyField: { name: string; type: DataType }): KeyLookup | null {
  const integer = INTEGER_KINDS[keyField.type.kind];
  const kind: KeyColumnType | null = integer ? integer.kind : keyField.type.kind === "VARCHAR" ? "bytes" : null;
  if (kind === null) return null;
  const leaf = (filter.kind === "and" ? filter.children : [filter]).find((p): p is BoundLeafPredicate => p.kind === "leaf" && p.field === keyField.name && (p.op === "eq" || p.op === "in"));
  if (!leaf) return null;
  const values: unknown[] = [];
  for (const v of leaf.literals) {
    if (integer) {
      if (typeof v !== "bigint" && !(typeof v === "number" && Number.isInteger(v))) continue;
      const b = BigInt(v);
      if (b >= integer.min && b <= integer.max && !values.some((x) => x === b)) values.push(b);
    } else if (typeof v === "string" && !values.includes(v)) values.push(v);
  }
  const column = keyColumnFromValues(kind, integer ? values.map((b) => (kind === "int64" ? b : Number(b))) : values);
  const identities = keyIdentities(column);
  const wanted = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
  return { kind, width: keyIdentityWidth(keyField.type), identities, wanted, exact: integer !== undefined && filter === leaf };
}

/** Rows of one stored batch's key column by identity: open addressing over row numbers. */
class BatchKeyIndex {
  /** Row + 1 per slot (0: empty); capacity a power of two, at most half full. */
  private readonly slots: Int32Array;
  /** The rows' identities as 32-bit words (2 × width a row). */
  private readonly words: Uint32Array;

  constructor(
    identities: BigUint64Array,
    private readonly width: 1 | 2,
  ) {
    const n = identities.length / width;
    let capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.words = new Uint32Array(identities.buffer, identities.byteOffset, identities.length * 2);
    const mask = capacity - 1;
    const w = 2 * width;
    for (let row = 0; row < n; row++) {
      let slot = identityHash(this.words[row * w], this.words[row * w + 1]) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = row + 1;
    }
  }

  /**
   * Writes to `out` from index `n` on the rows in [from, to) whose identity is words `at…` of
   * `wanted`; returns the new count (the rows of one identity, at most this batch's rows).
   */
  rowsOf(wanted: Uint32Array, at: number, from: number, to: number, out: Uint32Array, n: number): number {
    const mask = this.slots.length - 1;
    const w = 2 * this.width;
    const words = this.words;
    for (let slot = identityHash(wanted[at], wanted[at + 1]) & mask; ; slot = (slot + 1) & mask) {
      const r = this.slots[slot] - 1;
      if (r < 0) return n;
      if (r < from || r >= to) continue;
      let same = true;
      for (let k = 0; k < w && same; k++) same = words[r * w + k] === wanted[at + k];
      if (same) out[n++] = r;
    }
  }
}

/**
 * Per stored key column: its index, null when the column cannot be indexed for `kind`, or
 * SEEN after its first lookup. A column is indexed from its second lookup: batches that a store
 * reads back from spill files are new objects every time and are never worth an index.
 */
const SEEN = 0;
const indexes = new WeakMap<arrow.Data, { kind: KeyColumnType; index: BatchKeyIndex } | null | typeof SEEN>();

function indexOf(data: arrow.Data, lookup: KeyLookup): BatchKeyIndex | null {
  let entry = indexes.get(data);
  if (entry === undefined) {
    indexes.set(data, SEEN);
    return null;
  }
  if (entry === SEEN) {
    entry = null;
    try {
      const column = keyColumnFromArrow(data);
      if (column.type === lookup.kind) entry = { kind: column.type, index: new BatchKeyIndex(keyIdentities(column), lookup.width) };
    } catch {
      // a layout keyColumnFromArrow does not take (the caller filters the batch row by row)
    }
    indexes.set(data, entry);
  }
  return entry !== null && entry.kind === lookup.kind ? entry.index : null;
}

/**
 * The rows in [from, to) of a stored batch's key column `data` (row numbers relative to `from`,
 * ascending) whose key has one of the lookup's identities, or null when the column is not
 * indexed (yet: see `indexes`) or cannot be (the caller then filters every row).
 */
export function lookupKeyRows(data: arrow.Data, lookup: KeyLookup, from: number, to: number): Uint32Array | null {
  const index = indexOf(data, lookup);
  if (index === null) return null;
  const wanted = lookup.wanted;
  // the rows found go to a scratch array shared by all lookups (synchronous: no other lookup
  // runs in between), copied out only when there are any: most batches hold none of the keys
  let n = 0;
  for (let at = 0; at < wanted.length; at += 2 * lookup.width) {
    // (one identity finds each row of the window at most once)
    if (scratch.length < n + to - from) scratch = growScratch(n, n + to - from);
    n = index.rowsOf(wanted, at, from, to, scratch, n);
  }
  if (n === 0) return NO_ROWS;
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = scratch[i] - from;
  return n === 1 ? out : out.sort();
}

/** Rows found by `lookupKeyRows` before they are copied out. */
let scratch: Uint32Array = new Uint32Array(64);

/** A larger scratch array (at least `need` entries) keeping its first `kept` rows. */
function growScratch(kept: number, need: number): Uint32Array {
  const grown = new Uint32Array(Math.max(need, 2 * scratch.length));
  grown.set(scratch.subarray(0, kept));
  return grown;
}

const NO_ROWS = new Uint32Array(0);
