// Paimon's `MurmurHashUtils.hashBytesByWords`: Murmur3-32 over little-endian 4-byte
// words with seed 42; `BinaryRow.hashCode()` and the fixed-bucket function use it.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Hash of `bytes` (length a multiple of 4, as every BinaryRow is) as a signed int32. */
export function hashBytesByWords(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let h = 42;
  const words = bytes.byteLength & ~3;
  for (let i = 0; i < words; i += 4) {
    let k = view.getInt32(i, true);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= bytes.byteLength;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Java's default fixed-bucket function: `Math.abs(hash % buckets)`. */
export function bucketOfHash(hash: number, buckets: number): number {
  return Math.abs(hash % buckets);
}
