// Java iteration orders that Paimon's file-index writers leak into their bytes: the order
// of columns and index types in a FileIndexFormat header (several nested `HashMap`s keyed by
// String) and the order of bitmaps in a bitmap index body (`HashMap<Object, RoaringBitmap32>`
// filled with `computeIfAbsent`). Writing byte-identical blobs means replaying those maps.
//
// JDK `java.util.HashMap` (8 – 21) rules replayed here: a bucket is
// `(h ^ (h >>> 16)) & (capacity - 1)`; the table starts at 16 slots, threshold 12, and
// doubles; `put` appends to its bucket and resizes after inserting when `size > threshold`;
// `computeIfAbsent` resizes *before* looking up (also for keys already present) when
// `size > threshold`, and inserts at the head of its bucket; a resize keeps the relative
// order inside each bucket; a bucket reaching 8 (`computeIfAbsent`) / 9 (`put`) nodes
// resizes instead of becoming a tree while the table has fewer than 64 slots. Iteration is
// bucket by bucket. Not replayed: real tree bins (≥ 8 colliding keys in a table of ≥ 64
// slots, which hash-distinct data practically never produces); `treeified` reports them.

/** How keys enter the map: `put` (appended to the bucket) or `computeIfAbsent` (prepended). */
export type JavaInsertion = "put" | "computeIfAbsent";

const INITIAL_CAPACITY = 16;
const MIN_TREEIFY_CAPACITY = 64;
const TREEIFY_THRESHOLD = 8;

/**
 * Replays the shape of one `java.util.HashMap` as keys are inserted (and removed), assigning
 * each inserted key an id (0, 1, …) in insertion order; a key removed and inserted again gets
 * a new id (Java appends it to its bucket again).
 */
export class JavaHashMapReplay<K> {
  private readonly ids = new Map<K, number>();
  private readonly keys: K[] = [];
  private hashes = new Int32Array(16);
  /** Per id: 1 while the key is in the map. */
  private live = new Uint8Array(16);
  private bucketSizes = new Int32Array(0);
  private capacity = 0;
  private threshold = 0;
  /** Whether some bucket became a tree bin (iteration order then is not replayed exactly). */
  treeified = false;

  constructor(
    private readonly insertion: JavaInsertion,
    private readonly hashOf: (key: K) => number,
  ) {}

  get size(): number {
    return this.ids.size;
  }

  /** The id of `key`, inserting it when absent (one `put` / `computeIfAbsent` call). */
  insert(key: K): number {
    if (this.insertion === "computeIfAbsent" && (this.capacity === 0 || this.ids.size > this.threshold)) this.resize();
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.capacity === 0) this.resize();
    const id = this.keys.length;
    const hash = spread(this.hashOf(key));
    if (id === this.hashes.length) {
      const grown = new Int32Array(id * 2);
      grown.set(this.hashes);
      this.hashes = grown;
      const live = new Uint8Array(id * 2);
      live.set(this.live);
      this.live = live;
    }
    this.hashes[id] = hash;
    this.live[id] = 1;
    this.keys.push(key);
    this.ids.set(key, id);
    const bucket = hash & (this.capacity - 1);
    const before = this.bucketSizes[bucket]!;
    this.bucketSizes[bucket] = before + 1;
    if (before >= (this.insertion === "put" ? TREEIFY_THRESHOLD : TREEIFY_THRESHOLD - 1)) {
      if (this.capacity < MIN_TREEIFY_CAPACITY) this.resize();
      else this.treeified = true;
    }
    if (this.insertion === "put" && this.ids.size > this.threshold) this.resize();
    return id;
  }

  /** The id of `key` while it is in the map (`get` / `containsKey`). */
  idOf(key: K): number | undefined {
    return this.ids.get(key);
  }

  /** `remove(key)`: unlinks it from its bucket (the table never shrinks); whether it was there. */
  remove(key: K): boolean {
    const id = this.ids.get(key);
    if (id === undefined) return false;
    this.ids.delete(key);
    this.live[id] = 0;
    this.bucketSizes[this.hashes[id]! & (this.capacity - 1)]!--;
    return true;
  }

  /** Ids of the keys in the map, in its iteration order. */
  iterationOrder(): Int32Array {
    const order = Int32Array.from(this.ids.values());
    const mask = this.capacity - 1;
    const head = this.insertion === "computeIfAbsent";
    order.sort((a, b) => (this.hashes[a]! & mask) - (this.hashes[b]! & mask) || (head ? b - a : a - b));
    return order;
  }

  /** Keys in the map, by id (insertion order). */
  keysInInsertionOrder(): IterableIterator<K> {
    return this.ids.keys();
  }

  /** Keys in the map's iteration order. */
  keysInOrder(): K[] {
    return Array.from(this.iterationOrder(), (id) => this.keys[id]!);
  }

  private resize(): void {
    if (this.capacity === 0) {
      this.capacity = INITIAL_CAPACITY;
      this.threshold = (INITIAL_CAPACITY * 3) / 4;
    } else {
      this.capacity *= 2;
      this.threshold *= 2;
    }
    this.bucketSizes = new Int32Array(this.capacity);
    const mask = this.capacity - 1;
    for (let i = 0; i < this.keys.length; i++) if (this.live[i]) this.bucketSizes[this.hashes[i]! & mask]!++;
  }
}

/** `HashMap.hash`: the high half folded into the low half. */
function spread(h: number): number {
  return (h ^ (h >>> 16)) | 0;
}

/** The keys of a HashMap filled with `keys` in order, in its iteration order. */
export function javaHashMapOrder<K>(keys: Iterable<K>, insertion: JavaInsertion, hashOf: (key: K) => number): K[] {
  const map = new JavaHashMapReplay(insertion, hashOf);
  for (const k of keys) map.insert(k);
  return map.keysInOrder();
}

// ---------------------------------------------------------------------------------------------
// Java hashCode() of the boxed keys involved
// ---------------------------------------------------------------------------------------------

/** `String.hashCode()` (UTF-16 code units). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** `Long.hashCode(v)`: `(int) (v ^ (v >>> 32))`. */
export function javaLongHash(v: bigint): number {
  const u = BigInt.asUintN(64, v);
  return Number(BigInt.asIntN(32, u ^ (u >> 32n)));
}

/** `Boolean.hashCode(v)`. */
export function javaBooleanHash(v: boolean): number {
  return v ? 1231 : 1237;
}

function mixK1(k: number): number {
  return Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
}

function mixH1(h: number, k: number): number {
  return (Math.imul(rotl(h ^ k, 13), 5) + 0xe6546b64) | 0;
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/**
 * Paimon `BinaryString.hashCode()`: `MurmurHashUtils.hashBytes` (Murmur3 x86_32, seed 42,
 * little-endian words, then each tail byte sign-extended and mixed as a word) of the UTF-8 bytes.
 */
export function binaryStringHash(bytes: Uint8Array): number {
  const n = bytes.length;
  const aligned = n - (n % 4);
  let h = 42;
  for (let i = 0; i < aligned; i += 4) {
    const k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h = mixH1(h, mixK1(k));
  }
  for (let i = aligned; i < n; i++) h = mixH1(h, mixK1((bytes[i]! << 24) >> 24));
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Bits of one float or double at a time (the hashes below run per value). */
const scratch = new DataView(new ArrayBuffer(8));

/** `Float.hashCode(v)`: `floatToIntBits` (every NaN is 0x7fc00000). */
export function javaFloatHash(v: number): number {
  if (Number.isNaN(v)) return 0x7fc00000;
  scratch.setFloat32(0, v);
  return scratch.getInt32(0);
}

/** `Double.hashCode(v)`: `Long.hashCode(doubleToLongBits(v))` (every NaN is 0x7ff8000000000000). */
export function javaDoubleHash(v: number): number {
  if (Number.isNaN(v)) return javaLongHash(0x7ff8000000000000n);
  scratch.setFloat64(0, v);
  return javaLongHash(scratch.getBigInt64(0));
}

/**
 * `BigDecimal.hashCode()` of `unscaled × 10^-scale` (Paimon's `Decimal.hashCode`):
 * `31 × BigInteger.hashCode() + scale`, the BigInteger hash folding the magnitude's big-endian
 * 32-bit words as `31 × h + word`, negated for a negative value.
 */
export function javaBigDecimalHash(unscaled: bigint, scale: number): number {
  let mag = unscaled < 0n ? -unscaled : unscaled;
  const words: number[] = [];
  while (mag > 0n) {
    words.push(Number(mag & 0xffffffffn));
    mag >>= 32n;
  }
  let h = 0;
  for (let i = words.length - 1; i >= 0; i--) h = (Math.imul(31, h) + words[i]!) | 0;
  if (unscaled < 0n) h = -h | 0;
  return (Math.imul(31, h) + scale) | 0;
}

/** Paimon `Timestamp.hashCode()`: `31 × ((int) millis ^ (int) (millis >> 32)) + nanoOfMillisecond`. */
export function paimonTimestampHash(millis: bigint, nanoOfMillisecond: number): number {
  const low = Number(BigInt.asIntN(32, millis));
  const high = Number(BigInt.asIntN(32, millis >> 32n));
  return (Math.imul(31, low ^ high) + nanoOfMillisecond) | 0;
}
