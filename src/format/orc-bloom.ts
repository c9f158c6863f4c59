// ORC bloom filters as orc-core 1.9 writes and reads them (org.apache.orc.util.BloomFilter,
// BloomFilterUtf8, BloomFilterIO, Murmur3): per row group of a column a bit set of
// `optimalNumOfBits(rowIndexStride, fpp)` bits rounded up to whole 64-bit words (one more word
// when already whole, as orc-core rounds) and `k` hash functions; a value's 64-bit hash (Murmur3
// 64 of bytes; Thomas Wang's long hash of integers, dates, timestamps' millis and doubles' bits)
// splits into two 32-bit hashes combined as `h1 + i·h2` (Kirsch–Mitzenmacher) for i in 1..k.
// Used by the ORC writer (BLOOM_FILTER_UTF8 streams) and the lazily loaded ORC reader (pruning
// row groups by equality filters); neither is in the query bundle's static imports.

const M64 = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;
/** orc-core's Murmur3 DEFAULT_SEED. */
const SEED = 104729n;

const rotl64 = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M64;

function fmix64(h: bigint): bigint {
  h ^= h >> 33n;
  h = (h * 0xff51afd7ed558ccdn) & M64;
  h ^= h >> 33n;
  h = (h * 0xc4ceb9fe1a85ec53n) & M64;
  h ^= h >> 33n;
  return h;
}

/** orc-core's Murmur3.hash64 of `bytes` (seed 104729), as an unsigned 64-bit value. */
export function murmur3Hash64(bytes: Uint8Array): bigint {
  const n = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, n);
  let hash = SEED;
  const blocks = n >> 3;
  for (let i = 0; i < blocks; i++) {
    let k = view.getBigUint64(i * 8, true);
    k = (k * C1) & M64;
    k = rotl64(k, 31n);
    k = (k * C2) & M64;
    hash ^= k;
    hash = (rotl64(hash, 27n) * 5n + 0x52dce729n) & M64;
  }
  const tail = blocks << 3;
  if (n > tail) {
    let k1 = 0n;
    for (let i = n - 1; i >= tail; i--) k1 = (k1 << 8n) | BigInt(bytes[i]!);
    k1 = (k1 * C1) & M64;
    k1 = rotl64(k1, 31n);
    k1 = (k1 * C2) & M64;
    hash ^= k1;
  }
  hash ^= BigInt(n);
  return fmix64(hash);
}

/** orc-core's BloomFilter.getLongHash (Thomas Wang's 64-bit integer hash) of a long, as an unsigned 64-bit value. */
export function orcLongHash(value: bigint): bigint {
  // (Java's signed arithmetic: >> of the signed value, wrapping)
  const s = (x: bigint) => BigInt.asIntN(64, x);
  let key = s(value);
  key = s(~key + (key << 21n));
  key = key ^ (key >> 24n);
  key = s(key + (key << 3n) + (key << 8n));
  key = key ^ (key >> 14n);
  key = s(key + (key << 2n) + (key << 4n));
  key = key ^ (key >> 28n);
  key = s(key + (key << 31n));
  return BigInt.asUintN(64, key);
}

const DOUBLE_BITS = new DataView(new ArrayBuffer(8));

/** Java's Double.doubleToLongBits (NaN canonical) of `value`. */
export function doubleBits(value: number): bigint {
  if (Number.isNaN(value)) return 0x7ff8000000000000n;
  DOUBLE_BITS.setFloat64(0, value);
  return DOUBLE_BITS.getBigInt64(0);
}

/** orc-core's BloomFilter.optimalNumOfBits: `(int) (-n · ln p / ln² 2)`. */
function optimalNumOfBits(n: number, p: number): number {
  return Math.trunc((-n * Math.log(p)) / (Math.log(2) * Math.log(2)));
}

/**
 * An ORC bloom filter (BloomFilterUtf8): `numBits` bits in 64-bit words (held as little-endian
 * 32-bit halves: bit `i` is bit `i & 31` of word `i >>> 5`, the bytes of its UTF-8 bit set
 * serialisation) and `numHashFunctions` hash functions.
 */
export class OrcBloomFilter {
  readonly words: Uint32Array;
  readonly numBits: number;

  private constructor(
    words: Uint32Array,
    readonly numHashFunctions: number,
  ) {
    this.words = words;
    this.numBits = words.length * 32;
  }

  /**
   * A filter sized as orc-core sizes one for `expectedEntries` values (the row index stride) at
   * false positive probability `fpp` (0 < fpp < 1, checked by the caller).
   */
  static forEntries(expectedEntries: number, fpp: number): OrcBloomFilter {
    const n = Math.max(expectedEntries, 1);
    const nb = optimalNumOfBits(n, fpp);
    const numBits = nb + (64 - (nb % 64));
    const k = Math.max(1, Math.round((numBits / n) * Math.log(2)));
    return new OrcBloomFilter(new Uint32Array(numBits / 32), k);
  }

  /** A filter of serialised bits (BLOOM_FILTER_UTF8's `utf8bitset`: whole 64-bit words, little-endian); null for a malformed one. */
  static fromUtf8Bitset(bytes: Uint8Array, numHashFunctions: number): OrcBloomFilter | null {
    if (bytes.length === 0 || bytes.length % 8 !== 0 || numHashFunctions < 1) return null;
    const words = new Uint32Array(bytes.length / 4);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true);
    return new OrcBloomFilter(words, numHashFunctions);
  }

  /** The bit set as orc-core serialises it into `utf8bitset` (64-bit words, little-endian). */
  utf8Bitset(): Uint8Array {
    const out = new Uint8Array(this.words.length * 4);
    const view = new DataView(out.buffer);
    this.words.forEach((w, i) => view.setUint32(i * 4, w, true));
    return out;
  }

  /**
   * Sets (`set`) or tests the bits of a 64-bit hash as orc-core's addHash / testHash: its low and
   * high 32 bits h1, h2 (signed); for i in 1..k the position (h1 + i·h2, wrapping, bits flipped
   * when negative) mod numBits. False when testing finds a bit unset.
   */
  private bits(hash64: bigint, set: boolean): boolean {
    const h1 = Number(BigInt.asIntN(32, hash64));
    const h2 = Number(BigInt.asIntN(32, hash64 >> 32n));
    for (let i = 1; i <= this.numHashFunctions; i++) {
      let combined = (h1 + Math.imul(i, h2)) | 0;
      if (combined < 0) combined = ~combined;
      const p = combined % this.numBits;
      if (set) this.words[p >>> 5]! |= 1 << (p & 31);
      else if ((this.words[p >>> 5]! & (1 << (p & 31))) === 0) return false;
    }
    return true;
  }

  addHash(hash64: bigint): void {
    this.bits(hash64, true);
  }

  testHash(hash64: bigint): boolean {
    return this.bits(hash64, false);
  }

  addBytes(bytes: Uint8Array): void {
    this.addHash(murmur3Hash64(bytes));
  }

  addLong(value: bigint): void {
    this.addHash(orcLongHash(value));
  }

  addDouble(value: number): void {
    this.addLong(doubleBits(value));
  }

  reset(): void {
    this.words.fill(0);
  }
}
