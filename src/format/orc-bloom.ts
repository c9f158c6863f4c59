// ORC bloom filters as orc-core 1.9 writes and reads them (org.apache.orc.util.BloomFilter,
// BloomFilterUtf8, BloomFilterIO, Murmur3): per row group of a column a bit set of
// `optimalNumOfBits(rowIndexStride, fpp)` bits rounded up to whole 64-bit words (one more word
// when already whole, as orc-core rounds) and `k` hash functions; a value's 64-bit hash (Murmur3
// 64 of bytes; Thomas Wang's long hash of integers, dates, timestamps' millis and doubles' bits)
// splits into two 32-bit hashes combined as `h1 + i·h2` (Kirsch–Mitzenmacher) for i in 1..k.
// Used by the ORC writer (BLOOM_FILTER_UTF8 streams) and the lazily loaded ORC reader (pruning
// row groups by equality filters); neither is in the query bundle's static imports.

// 64-bit arithmetic on two unsigned 32-bit words (no BigInt per value): results in HI, LO.
let HI = 0;
let LO = 0;

/** HI:LO = the low 64 bits of (ah:al)·(bh:bl). */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  LO = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  HI = (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(al, bh) + Math.imul(ah, bl)) >>> 0;
}

/** HI:LO = (ah:al) + (bh:bl), wrapping. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  LO = lo >>> 0;
  HI = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** HI:LO = (h:l) rotated left by r (0 < r < 32). */
function rotl(h: number, l: number, r: number): void {
  HI = ((h << r) | (l >>> (32 - r))) >>> 0;
  LO = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** (Murmur3's C1, C2 and fmix64's multipliers as words) */
const C1H = 0x87c37b91;
const C1L = 0x114253d5;
const C2H = 0x4cf5ad43;
const C2L = 0x2745937f;

/** HI:LO = Murmur3's mix of a block k (h:l): k·C1, rotated by 31, ·C2. */
function mixK(h: number, l: number): void {
  mul(h, l, C1H, C1L);
  rotl(HI, LO, 31);
  mul(HI, LO, C2H, C2L);
}

/** HI:LO = fmix64(h:l). */
function fmix(h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0;
  mul(h, l, 0xff51afd7, 0xed558ccd);
  mul(HI, (LO ^ (HI >>> 1)) >>> 0, 0xc4ceb9fe, 0x1a85ec53);
  LO = (LO ^ (HI >>> 1)) >>> 0;
}

/** HI:LO = orc-core's Murmur3.hash64 of `bytes` (seed 104729). */
function hashBytes(bytes: Uint8Array): void {
  const n = bytes.length;
  let hh = 0;
  let hl = 104729;
  const blocks = n >> 3;
  for (let i = 0; i < blocks; i++) {
    const at = i * 8;
    const kl = (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
    const kh = (bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24)) >>> 0;
    mixK(kh, kl);
    rotl((hh ^ HI) >>> 0, (hl ^ LO) >>> 0, 27);
    mul(HI, LO, 0, 5);
    add(HI, LO, 0, 0x52dce729);
    hh = HI;
    hl = LO;
  }
  const tail = blocks << 3;
  if (n > tail) {
    let kl = 0;
    let kh = 0;
    for (let i = tail; i < n; i++) {
      const shift = (i - tail) * 8;
      if (shift < 32) kl |= bytes[i]! << shift;
      else kh |= bytes[i]! << (shift - 32);
    }
    mixK(kh >>> 0, kl >>> 0);
    hh = (hh ^ HI) >>> 0;
    hl = (hl ^ LO) >>> 0;
  }
  fmix(hh, (hl ^ n) >>> 0);
}

/** HI:LO = (h:l) + ((h:l) << n) (0 < n < 32). */
function plusShifted(h: number, l: number, n: number): void {
  add(h, l, ((h << n) | (l >>> (32 - n))) >>> 0, (l << n) >>> 0);
}

/** HI:LO = (h:l) ^ ((h:l) >> n), the shift arithmetic (0 < n < 32). */
function xorShifted(h: number, l: number, n: number): void {
  HI = (h ^ ((h | 0) >> n)) >>> 0;
  LO = (l ^ ((l >>> n) | (h << (32 - n)))) >>> 0;
}

/** HI:LO = orc-core's BloomFilter.getLongHash (Thomas Wang's 64-bit integer hash) of the long h:l. */
function longHash(h: number, l: number): void {
  // key = ~key + (key << 21)
  add(~h >>> 0, ~l >>> 0, ((h << 21) | (l >>> 11)) >>> 0, (l << 21) >>> 0);
  xorShifted(HI, LO, 24);
  // key = key + (key << 3) + (key << 8)
  let kh = HI;
  let kl = LO;
  plusShifted(kh, kl, 3);
  add(HI, LO, ((kh << 8) | (kl >>> 24)) >>> 0, (kl << 8) >>> 0);
  xorShifted(HI, LO, 14);
  // key = key + (key << 2) + (key << 4)
  kh = HI;
  kl = LO;
  plusShifted(kh, kl, 2);
  add(HI, LO, ((kh << 4) | (kl >>> 28)) >>> 0, (kl << 4) >>> 0);
  xorShifted(HI, LO, 28);
  plusShifted(HI, LO, 31);
}

const DOUBLE = new DataView(new ArrayBuffer(8));

/** HI:LO = Java's Double.doubleToLongBits (NaN canonical) of `value`. */
function doubleWords(value: number): void {
  DOUBLE.setFloat64(0, Number.isNaN(value) ? NaN : value);
  HI = Number.isNaN(value) ? 0x7ff80000 : DOUBLE.getUint32(0);
  LO = Number.isNaN(value) ? 0 : DOUBLE.getUint32(4);
}

const hash64 = (): bigint => (BigInt(HI) << 32n) | BigInt(LO);
const hiOf = (v: bigint) => Number(BigInt.asUintN(32, v >> 32n));
const loOf = (v: bigint) => Number(BigInt.asUintN(32, v));

/** orc-core's Murmur3.hash64 of `bytes` (seed 104729), as an unsigned 64-bit value. */
export function murmur3Hash64(bytes: Uint8Array): bigint {
  hashBytes(bytes);
  return hash64();
}

/** orc-core's BloomFilter.getLongHash of a long, as an unsigned 64-bit value. */
export function orcLongHash(value: bigint): bigint {
  longHash(hiOf(value), loOf(value));
  return hash64();
}

/** orc-core's hash of a double in a bloom filter: getLongHash of Double.doubleToLongBits (NaN canonical). */
export function orcDoubleHash(value: number): bigint {
  doubleWords(value);
  longHash(HI, LO);
  return hash64();
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

  /**
   * A filter of serialised bits (BLOOM_FILTER_UTF8's `utf8bitset`: whole 64-bit words,
   * little-endian); null for a malformed one (no bits, partial words, no hash functions or more
   * than bits: a damaged file is then not pruned by it, nor tested for long).
   */
  static fromUtf8Bitset(bytes: Uint8Array, numHashFunctions: number): OrcBloomFilter | null {
    if (bytes.length === 0 || bytes.length % 8 !== 0 || numHashFunctions < 1 || numHashFunctions > bytes.length * 8) return null;
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
   * Sets (`set`) or tests the bits of the 64-bit hash HI:LO as orc-core's addHash / testHash:
   * its low and high words h1, h2 (signed); for i in 1..k the position (h1 + i·h2, wrapping, bits
   * flipped when negative) mod numBits. False when testing finds a bit unset.
   */
  private bits(set: boolean): boolean {
    const h1 = LO | 0;
    const h2 = HI | 0;
    for (let i = 1; i <= this.numHashFunctions; i++) {
      let combined = (h1 + Math.imul(i, h2)) | 0;
      if (combined < 0) combined = ~combined;
      const p = combined % this.numBits;
      if (set) this.words[p >>> 5]! |= 1 << (p & 31);
      else if ((this.words[p >>> 5]! & (1 << (p & 31))) === 0) return false;
    }
    return true;
  }

  /** Whether a value of 64-bit hash `hash` may have been added (false: it was not). */
  testHash(hash: bigint): boolean {
    HI = hiOf(hash);
    LO = loOf(hash);
    return this.bits(false);
  }

  /** Adds a value of 64-bit hash `hash`. */
  addHash(hash: bigint): void {
    HI = hiOf(hash);
    LO = loOf(hash);
    this.bits(true);
  }

  addBytes(bytes: Uint8Array): void {
    hashBytes(bytes);
    this.bits(true);
  }

  /** Adds the long of words `hi`:`lo` (unsigned 32-bit or int32). */
  addLongWords(hi: number, lo: number): void {
    longHash(hi >>> 0, lo >>> 0);
    this.bits(true);
  }

  addLong(value: bigint): void {
    this.addLongWords(hiOf(value), loOf(value));
  }

  /** Adds an integer within ±2^53 as a long. */
  addSafeInteger(value: number): void {
    const hi = Math.floor(value / 4294967296);
    this.addLongWords(hi, value - hi * 4294967296);
  }

  addDouble(value: number): void {
    doubleWords(value);
    longHash(HI, LO);
    this.bits(true);
  }

  reset(): void {
    this.words.fill(0);
  }
}
