// The union of two serialized HLL sketches as Java Paimon 1.4.2's `HllSketchUtil.union(a, b)`
// (FieldHllSketchAgg) computes it with Apache DataSketches 4.2.0 — `HllSketch.heapify(a)`,
// `Union.heapify(b)` (an HLL_8 union gadget of b's lgK, updated with b), `union.update(a)`,
// `getResult(HLL_4).toCompactByteArray()` — for sketches in the coupon modes: LIST (up to 7
// coupons, kept in arrival order) and SET (an open-addressing hash table of coupons, grown at 3/4
// load up to 2^(lgK-3) slots; compact images list the table's coupons in slot order, and a
// compact SET image is re-inserted coupon by coupon when read). The union replays Java's
// arrivals: b's coupons (a SET image becomes the gadget as it is when b's lgK is the gadget's),
// then a's, each ignored when already present; the result keeps its LIST or SET form, typed
// HLL_4, in the compact serialization.
//
// Refused with UNSUPPORTED: a sketch in HLL mode, and a union whose coupons overflow the largest
// SET (or the LIST of an lgK < 8 sketch), where DataSketches switches to an HLL array with its
// HIP estimator state. Malformed images are CORRUPT_FILE (Java's "Possible Corruption, Invalid
// Preamble" checks, lgK outside 4..21, truncated coupon arrays).
import { PaimonError } from "../error.js";

const LIST = 0;
const SET = 1;
const HLL = 2;
const LG_INIT_LIST = 3;
const LG_INIT_SET = 5;
const KEY_MASK_26 = (1 << 26) - 1;
const FAMILY_HLL = 7;
const EMPTY_FLAG = 4;
const COMPACT_FLAG = 8;

/** A LIST or SET of coupons (slot number in the low 26 bits, value in the high 6), as DataSketches' CouponList / CouponHashSet. */
interface Coupons {
  mode: typeof LIST | typeof SET;
  lgK: number;
  lgArr: number;
  count: number;
  arr: Int32Array;
}

/** Why a union leaves the coupon modes (the caller's UNSUPPORTED refusal). */
class LeavesCouponModes extends Error {}

/** DataSketches' `AbstractCoupons.find`: the slot of `coupon` (>= 0) or ~ the empty slot where it goes. */
function find(arr: Int32Array, lgArr: number, coupon: number): number {
  const mask = arr.length - 1;
  let probe = coupon & mask;
  const start = probe;
  do {
    const at = arr[probe]!;
    if (at === 0) return ~probe;
    if (at === coupon) return probe;
    probe = (probe + ((((coupon & KEY_MASK_26) >>> lgArr) | 1))) & mask;
  } while (probe !== start);
  throw new LeavesCouponModes("a full coupon hash set");
}

function newCoupons(mode: Coupons["mode"], lgK: number): Coupons {
  const lgArr = mode === LIST ? LG_INIT_LIST : LG_INIT_SET;
  return { mode, lgK, lgArr, count: 0, arr: new Int32Array(1 << lgArr) };
}

/** DataSketches' `couponUpdate` of a LIST or SET (a list fills up into a set; leaving for HLL mode throws LeavesCouponModes). */
function couponUpdate(c: Coupons, coupon: number): Coupons {
  if (c.mode === LIST) {
    const len = 1 << c.lgArr;
    for (let i = 0; i < len; i++) {
      const at = c.arr[i]!;
      if (at === 0) {
        c.arr[i] = coupon;
        c.count++;
        if (c.count < len) return c;
        if (c.lgK < 8) throw new LeavesCouponModes(`a LIST of lgK ${c.lgK} filling up`);
        let set = newCoupons(SET, c.lgK);
        for (let j = 0; j < c.count; j++) set = couponUpdate(set, c.arr[j]!);
        return set;
      }
      if (at === coupon) return c;
    }
    throw new LeavesCouponModes("a LIST without empty slots");
  }
  const index = find(c.arr, c.lgArr, coupon);
  if (index >= 0) return c;
  c.arr[~index] = coupon;
  c.count++;
  if (4 * c.count > 3 * (1 << c.lgArr)) {
    if (c.lgArr === c.lgK - 3) throw new LeavesCouponModes(`more than ${c.count - 1} coupons in a SET of lgK ${c.lgK}`);
    const lgArr = c.lgArr + 1;
    const grown = new Int32Array(1 << lgArr);
    for (const v of c.arr) if (v !== 0) grown[~find(grown, lgArr, v)] = v;
    c.lgArr = lgArr;
    c.arr = grown;
  }
  return c;
}

/** `HllSketch.heapify` of an image in a coupon mode (HLL mode and malformed images are refused). */
function heapify(bytes: Uint8Array, where: string, which: string): Coupons {
  const corrupt = (why: string) => new PaimonError("CORRUPT_FILE", `${where}: HLL sketch image (${which}) of ${bytes.length} bytes: ${why}`);
  if (bytes.length < 8) throw corrupt("shorter than its 8-byte preamble");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const preInts = bytes[0]! & 0x3f;
  const mode = bytes[7]! & 3;
  const lgK = bytes[3]!;
  if (preInts * 4 > bytes.length) throw corrupt(`truncated preamble of ${preInts} ints`);
  if (bytes[2] !== FAMILY_HLL || bytes[1] !== 1 || (mode === LIST && preInts !== 2) || (mode === SET && preInts !== 3) || (mode === HLL && preInts !== 10) || mode === 3) {
    throw corrupt("Possible Corruption, Invalid Preamble");
  }
  if (mode === HLL) throw new PaimonError("UNSUPPORTED", `${where}: HLL sketch (${which}) in HLL mode (lgK ${lgK}) is not supported by paimon-rt: only sketches in LIST / SET mode (up to 3/4 of 2^(lgK-3) distinct values) are merged exactly`);
  if (lgK < 4 || lgK > 21) throw corrupt(`Log K must be between 4 and 21, inclusive: ${lgK}`);
  const ints = (offset: number, n: number) => {
    if (offset + 4 * n > bytes.length) throw corrupt(`truncated (${n} coupons)`);
    return Int32Array.from({ length: n }, (_, i) => view.getInt32(offset + 4 * i, true));
  };
  if (mode === LIST) {
    const count = bytes[6]!;
    if (count > 1 << LG_INIT_LIST) throw corrupt(`${count} coupons in a LIST`);
    const list = newCoupons(LIST, lgK);
    list.arr.set(ints(8, count));
    list.count = count;
    return list;
  }
  if (lgK < 8) throw corrupt(`a SET of lgK ${lgK}`);
  const count = view.getInt32(8, true);
  if (count < 0) throw corrupt(`negative coupon count ${count}`);
  if ((bytes[5]! & COMPACT_FLAG) !== 0) {
    let set = newCoupons(SET, lgK);
    try {
      for (const coupon of ints(12, count)) set = couponUpdate(set, coupon);
    } catch (e) {
      if (e instanceof LeavesCouponModes) throw corrupt(`${count} coupons do not fit a SET (${e.message})`);
      throw e;
    }
    return set;
  }
  let lgArr = bytes[4]!;
  if (lgArr < LG_INIT_SET) {
    // DataSketches' computeLgArr: the power of 2 at least count, doubled above 3/4 load
    let pow = 1;
    while (pow < count) pow *= 2;
    if (4 * count > 3 * pow) pow *= 2;
    lgArr = Math.max(LG_INIT_SET, Math.log2(pow));
  }
  if (lgArr > 30) throw corrupt(`a hash set of 2^${lgArr} slots`);
  return { mode: SET, lgK, lgArr, count, arr: ints(12, 1 << lgArr) };
}

/** `Union.update(source)` of a coupon-mode source into the gadget (an HLL_8 union gadget of lgK `gadgetLgK`). */
function unionUpdate(gadget: Coupons, source: Coupons): Coupons {
  if (source.count === 0) return gadget;
  if (source.mode === SET && gadget.count === 0 && source.lgK === gadget.lgK) {
    return { ...source, arr: Int32Array.from(source.arr) };
  }
  // mergeTo: the source's array in slot order; coupons of value 0 are skipped (HllSketch.couponUpdate)
  for (const coupon of source.arr) if (coupon !== 0 && coupon >>> 26 !== 0) gadget = couponUpdate(gadget, coupon);
  return gadget;
}

/** DataSketches' compact serialization of a LIST / SET typed HLL_4 (`toCouponByteArray(impl, true)`). */
function serialize(c: Coupons): Uint8Array {
  const dataStart = c.mode === LIST ? 8 : 12;
  const out = new Uint8Array(dataStart + 4 * c.count);
  const view = new DataView(out.buffer);
  out[0] = c.mode === LIST ? 2 : 3;
  out[1] = 1;
  out[2] = FAMILY_HLL;
  out[3] = c.lgK;
  out[4] = c.lgArr;
  out[5] = COMPACT_FLAG | (c.count === 0 ? EMPTY_FLAG : 0);
  out[7] = c.mode; // target type HLL_4 (0) in bits 2-3
  if (c.mode === LIST) out[6] = c.count;
  else view.setInt32(8, c.count, true);
  let at = dataStart;
  for (const coupon of c.arr) {
    if (coupon === 0) continue;
    view.setInt32(at, coupon, true);
    at += 4;
  }
  return out;
}

/**
 * Java `HllSketchUtil.union(a, b)` of two serialized HLL sketches in LIST / SET mode, as
 * DataSketches 4.2.0 serializes it (see the file comment); `where` names the column in errors.
 */
export function hllSketchUnion(a: Uint8Array, b: Uint8Array, where: string): Uint8Array {
  const first = heapify(a, where, "accumulator");
  if (b.length < 4) throw new PaimonError("CORRUPT_FILE", `${where}: HLL sketch image (input) of ${b.length} bytes: truncated`);
  const lgMaxK = b[3]!;
  if (lgMaxK < 4 || lgMaxK > 21) throw new PaimonError("CORRUPT_FILE", `${where}: HLL sketch image (input) of ${b.length} bytes: Log K must be between 4 and 21, inclusive: ${lgMaxK}`);
  const second = heapify(b, where, "input");
  try {
    let gadget = newCoupons(LIST, lgMaxK);
    gadget = unionUpdate(gadget, second);
    gadget = unionUpdate(gadget, first);
    return serialize(gadget);
  } catch (e) {
    if (!(e instanceof LeavesCouponModes)) throw e;
    throw new PaimonError("UNSUPPORTED", `${where}: the union of these HLL sketches reaches HLL mode (${e.message}), which paimon-rt does not build: only unions that stay in LIST / SET mode are merged exactly`);
  }
}
