// Java `hashCode()` and `compareTo` of the boxed keys Paimon puts in its hash maps and hashes in its
// indexes (java.lang.String / Long / Boolean / Float / Double, Paimon's BinaryString, Decimal and
// Timestamp): the HashMap replay (java-order.ts), bitmap file indexes, Hive bucket hashing and the
// collection aggregates use them.

/** `String.hashCode()` (UTF-16 code units). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** `String.compareTo`: UTF-16 code units, as JavaScript compares strings. */
export function javaStringCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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

/** `Double.doubleToLongBits(v)` (every NaN is 0x7ff8000000000000). */
export function javaDoubleBits(v: number): bigint {
  if (Number.isNaN(v)) return 0x7ff8000000000000n;
  scratch.setFloat64(0, v);
  return scratch.getBigInt64(0);
}

/** `Double.hashCode(v)`: `Long.hashCode(doubleToLongBits(v))`. */
export function javaDoubleHash(v: number): number {
  return javaLongHash(javaDoubleBits(v));
}

/** `Float.compare` as an order of `floatToIntBits` patterns (-0.0 < 0.0, NaN last): compare the results as numbers. */
export function sortableFloatBits(bits: number): number {
  return bits ^ ((bits >> 31) & 0x7fffffff);
}

/** `Double.compare` as an order of `doubleToLongBits` patterns (-0.0 < 0.0, NaN last): compare the results as bigints. */
export function sortableDoubleBits(bits: bigint): bigint {
  return bits < 0n ? bits ^ 0x7fffffffffffffffn : bits;
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
