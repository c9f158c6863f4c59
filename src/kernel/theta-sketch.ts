// The union of two serialized theta sketches exactly as Java Paimon 1.4.2's `ThetaSketch.union`
// (FieldThetaSketchAgg) computes it with Apache DataSketches 4.2.0: a `Union` of the default
// nominal entries (k = 4096) and seed (9001) unions both images (`union(Memory)`), then
// `getResult()` (an ordered compact sketch) `.toByteArray()`.
//
// The union's result depends only on the inputs' retained hashes and thetas: every distinct hash
// h with 0 < h < T (T: the smallest theta of an input image whose theta counts, Long.MAX_VALUE
// when none) is presented to the union's QuickSelect gadget; the result keeps the k smallest, with
// theta the (k+1)-th smallest when there are more than k, else T. (The gadget's rebuilds only ever
// drop hashes at or above the (k+1)-th smallest it has seen, and getResult pulls back to k, so the
// rebuild timing does not show in the result.) The result is serialized as DataSketches does: the
// 8-byte empty sketch, a 16-byte SingleItemSketch (one hash, theta 1.0), or a compact ordered
// sketch of serial version 3 with 2 preamble longs (exact) or 3 (theta < 1.0).
//
// Inputs: serial version 3 images of the families Java's union accepts (Alpha, QuickSelect and
// Compact: compact ordered or unordered, and hash-table form) and serial version 4 (DataSketches'
// compressed ordered compact form). Images shorter than 16 bytes are ignored, as Java's
// `union(Memory)` ignores them (the 8-byte empty sketch among them). Refused: serial versions 1
// and 2 (pre-2015 formats, UNSUPPORTED), images whose seed hash is not the default seed's
// (INVALID_ARGUMENT, Java's "Incompatible Seed Hashes"), and malformed images (CORRUPT_FILE):
// truncated, unknown serial version or family, a negative hash Java's union would meet, or hashes
// flagged ordered that are not ascending (Java would stop early at an unspecified point).
import { PaimonError } from "../error.js";

/** Log2 of the Union's default nominal entries (Java `ThetaUtil.DEFAULT_NOMINAL_ENTRIES` = 4096). */
const LG_K = 12;
const K = 1 << LG_K;
const LONG_MAX = 0x7fffffffffffffffn;
/** The seed hash of DataSketches' default update seed 9001 (`ThetaUtil.computeSeedHash(9001)`). */
export const DEFAULT_THETA_SEED_HASH = 0x93cc;

const READ_ONLY_FLAG = 2;
const EMPTY_FLAG = 4;
const COMPACT_FLAG = 8;
const ORDERED_FLAG = 16;
const SINGLE_ITEM_FLAG = 32;
const COMPACT_FAMILY = 3;

/** What one image contributes to a union: its hashes (not yet filtered) and its theta (null: none). */
interface ThetaInput {
  theta: bigint | null;
  hashes: BigInt64Array;
  /** The image's order flag: hashes are presented in order and Java stops at the first one at or above theta. */
  ordered: boolean;
  /** A SingleItemSketch: its hash goes straight to the union's gadget. */
  single: boolean;
}

const NOTHING: ThetaInput = { theta: null, hashes: new BigInt64Array(0), ordered: false, single: false };

/** Reads one serialized theta sketch as Java's `UnionImpl.union(Memory)` does. */
function readThetaImage(bytes: Uint8Array, where: string): ThetaInput {
  if (bytes.length < 16) return NOTHING; // Java: "empty or garbage"
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = (why: string) => new PaimonError("CORRUPT_FILE", `${where}: theta sketch image of ${bytes.length} bytes: ${why}`);
  const long = (offset: number) => {
    if (offset + 8 > bytes.length) throw corrupt(`truncated (needs ${offset + 8} bytes)`);
    return view.getBigInt64(offset, true);
  };
  const preLongs = bytes[0]! & 0x3f;
  const serVer = bytes[1]!;
  const family = bytes[2]!;
  const flags = bytes[5]!;
  const seedHash = view.getUint16(6, true);
  const checkSeed = () => {
    if (seedHash !== DEFAULT_THETA_SEED_HASH) {
      throw new PaimonError("INVALID_ARGUMENT", `${where}: theta sketch of seed hash ${seedHash} cannot be unioned with the default seed's (${DEFAULT_THETA_SEED_HASH}): Incompatible Seed Hashes`);
    }
  };
  if (serVer === 4) return readCompressedImage(bytes, view, checkSeed, corrupt, long);
  if (serVer === 1 || serVer === 2) throw new PaimonError("UNSUPPORTED", `${where}: theta sketch of serial version ${serVer} (DataSketches' pre-2015 formats) is not supported by paimon-rt`);
  if (serVer !== 3) throw corrupt(`SerVer is unknown: ${serVer}`);
  if (family < 1 || family > 3) throw corrupt(`Family must be Alpha, QuickSelect, or Compact: family id ${family}`);
  if (preLongs === 1) {
    // a SingleItemSketch (flags ordered, compact, read-only and not empty, or the single-item flag), else empty
    const single = (family === COMPACT_FAMILY && (flags & 0x1f) === 0x1a) || (flags & SINGLE_ITEM_FLAG) !== 0;
    return single ? { theta: null, hashes: BigInt64Array.of(long(8)), ordered: true, single: true } : NOTHING;
  }
  if (preLongs !== 2 && preLongs !== 3) throw corrupt(`${preLongs} preamble longs`);
  checkSeed();
  const count = view.getInt32(8, true);
  if (preLongs === 2 && count === 0) return NOTHING;
  const theta = preLongs === 2 ? LONG_MAX : long(16);
  const ordered = (flags & ORDERED_FLAG) !== 0;
  // Java int arithmetic: 1 << lgArrLongs takes the shift mod 32, a negative size reads nothing
  const size = ordered || (flags & COMPACT_FLAG) !== 0 ? count : 1 << bytes[4]!;
  if (size < 0 && ordered) throw corrupt(`negative count ${count}`);
  const n = Math.max(size, 0);
  const end = (preLongs + n) * 8;
  if (end > bytes.length) throw corrupt(`truncated (${n} hashes need ${end} bytes)`);
  const hashes = new BigInt64Array(n);
  for (let i = 0; i < n; i++) hashes[i] = view.getBigInt64((preLongs + i) * 8, true);
  return { theta, hashes, ordered, single: false };
}

/** A serial version 4 image (compressed ordered compact): Java wraps it (`CompactSketch.heapifyV4`) and unions the heap sketch. */
function readCompressedImage(bytes: Uint8Array, view: DataView, checkSeed: () => void, corrupt: (why: string) => PaimonError, long: (offset: number) => bigint): ThetaInput {
  checkSeed();
  if (bytes[2] !== COMPACT_FAMILY) throw corrupt(`Corrupted: family id ${bytes[2]} is not Compact`);
  const preLongs = bytes[0]! & 0x3f;
  const entryBits = bytes[3]!;
  const numEntriesBytes = bytes[4]!;
  const empty = (bytes[5]! & EMPTY_FLAG) !== 0;
  let offset = 8;
  let theta = LONG_MAX;
  if (preLongs > 1) {
    theta = long(8);
    offset += 8;
  }
  if (numEntriesBytes > 4) throw corrupt(`${numEntriesBytes} bytes of entry count`);
  if (offset + numEntriesBytes > bytes.length) throw corrupt("truncated entry count");
  let count = 0;
  for (let i = 0; i < numEntriesBytes; i++) count |= bytes[offset++]! << (i * 8);
  if (count < 0) throw corrupt(`negative entry count ${count}`);
  if (empty) {
    if (count !== 0) throw corrupt("Illegal State: Empty=true and Current Count != 0.");
    return NOTHING;
  }
  if (count > 0 && (entryBits < 1 || entryBits > 64)) throw corrupt(`${entryBits} bits per entry`);
  if (offset + Math.ceil((count * entryBits) / 8) > bytes.length) throw corrupt(`truncated (${count} entries of ${entryBits} bits)`);
  // deltas between ascending hashes, entryBits each, packed most significant bit first
  const hashes = new BigInt64Array(count);
  let bit = offset * 8;
  let previous = 0n;
  for (let i = 0; i < count; i++) {
    let delta = 0n;
    for (let left = entryBits; left > 0; ) {
      const inByte = 8 - (bit & 7);
      const take = Math.min(inByte, left);
      const chunk = (bytes[bit >> 3]! >> (inByte - take)) & ((1 << take) - 1);
      delta = (delta << BigInt(take)) | BigInt(chunk);
      bit += take;
      left -= take;
    }
    previous = BigInt.asIntN(64, previous + delta);
    hashes[i] = previous;
  }
  return { theta, hashes, ordered: true, single: false };
}

/** The union's hashes of one image below `bound` (Java: "early stop" for ordered images, dirty slots skipped for others). */
function acceptedHashes(input: ThetaInput, bound: bigint, corrupt: (why: string) => PaimonError, out: bigint[]): void {
  const { hashes } = input;
  if (!input.ordered) {
    for (const h of hashes) if (h > 0n && h < bound) out.push(h);
    return;
  }
  for (let i = 0; i < hashes.length; i++) {
    const h = hashes[i]!;
    if (h >= bound) {
      // Java stops here; hashes after it would only be met (and accepted below the bound) if not ascending
      for (let j = i + 1; j < hashes.length; j++) if (hashes[j]! < hashes[j - 1]!) throw corrupt("hashes flagged ordered are not ascending");
      return;
    }
    if (h < 0n) throw corrupt(`negative hash ${h} (Java: Possible corruption)`);
    if (i > 0 && h < hashes[i - 1]!) throw corrupt("hashes flagged ordered are not ascending");
    if (h > 0n) out.push(h);
  }
}

/**
 * Java `ThetaSketch.union(a, b)`: the union of two serialized theta sketches as DataSketches 4.2.0
 * serializes it (see the file comment). `where` names the column in errors.
 */
export function thetaSketchUnion(a: Uint8Array, b: Uint8Array, where: string): Uint8Array {
  const inputs = [readThetaImage(a, where), readThetaImage(b, where)];
  let bound = LONG_MAX;
  for (const input of inputs) if (input.theta !== null && input.theta < bound) bound = input.theta;
  const all: bigint[] = [];
  inputs.forEach((input, i) => {
    const corrupt = (why: string) => new PaimonError("CORRUPT_FILE", `${where}: theta sketch image of ${(i === 0 ? a : b).length} bytes: ${why}`);
    // (a single item's hash is presented whatever the bound; one below zero fails Java's update)
    if (input.single && input.hashes[0]! < 0n) throw corrupt(`negative hash ${input.hashes[0]} (Java: Possible corruption)`);
    acceptedHashes(input, bound, corrupt, all);
  });
  const sorted = BigInt64Array.from(all).sort();
  const distinct: bigint[] = [];
  for (const h of sorted) if (distinct.length === 0 || distinct[distinct.length - 1] !== h) distinct.push(h);
  let theta = bound;
  if (distinct.length > K) {
    theta = distinct[K]!;
    distinct.length = K;
  }
  return serializeCompact(distinct, theta);
}

/** DataSketches' `CompactOperations.componentsToCompact(...).toByteArray()` of an ordered result. */
function serializeCompact(hashes: readonly bigint[], theta: bigint): Uint8Array {
  const count = hashes.length;
  if (count === 0 && theta === LONG_MAX) return Uint8Array.of(1, 3, COMPACT_FAMILY, 0, 0, READ_ONLY_FLAG | EMPTY_FLAG | COMPACT_FLAG | ORDERED_FLAG, 0, 0);
  const single = count === 1 && theta === LONG_MAX;
  const preLongs = theta < LONG_MAX ? 3 : single ? 1 : 2;
  const out = new Uint8Array((preLongs + count) * 8);
  const view = new DataView(out.buffer);
  out[0] = preLongs;
  out[1] = 3;
  out[2] = COMPACT_FAMILY;
  out[5] = READ_ONLY_FLAG | COMPACT_FLAG | ORDERED_FLAG | (single ? SINGLE_ITEM_FLAG : 0);
  view.setUint16(6, DEFAULT_THETA_SEED_HASH, true);
  if (preLongs > 1) {
    view.setInt32(8, count, true);
    view.setFloat32(12, 1, true);
  }
  if (preLongs > 2) view.setBigInt64(16, theta, true);
  hashes.forEach((h, i) => view.setBigInt64((preLongs + i) * 8, h, true));
  return out;
}
