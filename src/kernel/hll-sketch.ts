// The union of two serialized HLL sketches as Java Paimon 1.4.2's `HllSketchUtil.union(a, b)`
// (FieldHllSketchAgg) computes it with Apache DataSketches 4.2.0 — `HllSketch.heapify(a)`,
// `Union.heapify(b)` (an HLL_8 union gadget of b's lgK, updated with b), `union.update(a)`,
// `getResult(HLL_4).toCompactByteArray()` — replaying DataSketches' state machine:
// * LIST (up to 7 coupons, kept in arrival order) and SET (an open-addressing hash table of
//   coupons, grown at 3/4 load up to 2^(lgK-3) slots; compact images list the table's coupons in
//   slot order, and a compact SET image is re-inserted coupon by coupon when read);
// * HLL mode: one register per slot (HLL_4 nibbles above a floor `curMin` with an exception
//   hash table, HLL_6 packed little-endian, HLL_8 bytes) and the estimator state serialized with
//   it: the HIP accumulator and the kxq0 / kxq1 sums, whose double arithmetic is replayed in
//   DataSketches' order (registers raised one at a time, slots in order; the coupon estimate at a
//   SET's promotion by DataSketches' cubic interpolation);
// * the union: a gadget that copies or downsamples the first HLL source, merges coupons into an
//   HLL array (or an HLL array into the coupons' promotion), takes register maxima between HLL
//   arrays (folding a larger lgK onto a smaller one, marking the result out of order), and the
//   result converted to HLL_4 (its curMin, exception table and kxq sums rebuilt in slot order).
// Malformed images are CORRUPT_FILE (Java's "Possible Corruption, Invalid Preamble" checks, lgK
// outside 4..21, truncated arrays, registers out of range, missing or repeated exceptions).
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
const OUT_OF_ORDER_FLAG = 16;
const REBUILD_FLAG = 32;
const AUX_TOKEN = 15;

/** A LIST or SET of coupons (slot number in the low 26 bits, value in the high 6), as DataSketches' CouponList / CouponHashSet. */
interface Coupons {
  mode: typeof LIST | typeof SET;
  lgK: number;
  lgArr: number;
  count: number;
  arr: Int32Array;
}

/** A coupon table without room (only malformed images get there). */
class NoEmptySlot extends Error {}

/** An HLL-mode sketch as a union handles it: one register value (0..63) per slot and the estimator state. */
interface HllRegisters {
  mode: typeof HLL;
  lgK: number;
  /** 4, 6 or 8 (the image's target type; union gadgets are 8). */
  type: number;
  values: Uint8Array;
  hip: number;
  kxq0: number;
  kxq1: number;
  outOfOrder: boolean;
  rebuild: boolean;
}

type Sketch = Coupons | HllRegisters;

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
  throw new NoEmptySlot("a full coupon hash set");
}

function newCoupons(mode: Coupons["mode"], lgK: number): Coupons {
  const lgArr = mode === LIST ? LG_INIT_LIST : LG_INIT_SET;
  return { mode, lgK, lgArr, count: 0, arr: new Int32Array(1 << lgArr) };
}

/** DataSketches' `couponUpdate` of a LIST or SET: a full list becomes a set (or, below lgK 8, an HLL array), a full set an HLL array. */
function couponUpdate(c: Coupons, coupon: number): Sketch {
  if (c.mode === LIST) {
    const len = 1 << c.lgArr;
    for (let i = 0; i < len; i++) {
      const at = c.arr[i]!;
      if (at === 0) {
        c.arr[i] = coupon;
        c.count++;
        if (c.count < len) return c;
        if (c.lgK < 8) return promoteToHll(c);
        let set: Sketch = newCoupons(SET, c.lgK);
        for (let j = 0; j < c.count; j++) set = couponUpdate(set as Coupons, c.arr[j]!);
        return set;
      }
      if (at === coupon) return c;
    }
    throw new NoEmptySlot("a LIST without empty slots");
  }
  const index = find(c.arr, c.lgArr, coupon);
  if (index >= 0) return c;
  c.arr[~index] = coupon;
  c.count++;
  if (4 * c.count > 3 * (1 << c.lgArr)) {
    if (c.lgArr === c.lgK - 3) return promoteToHll(c);
    const lgArr = c.lgArr + 1;
    const grown = new Int32Array(1 << lgArr);
    for (const v of c.arr) if (v !== 0) grown[~find(grown, lgArr, v)] = v;
    c.lgArr = lgArr;
    c.arr = grown;
  }
  return c;
}

const invPow2 = (v: number) => 2 ** -v;

function newRegisters(lgK: number): HllRegisters {
  return { mode: HLL, lgK, type: 8, values: new Uint8Array(1 << lgK), hip: 0, kxq0: 1 << lgK, kxq1: 0, outOfOrder: false, rebuild: false };
}

/** `Hll8Array.couponUpdate`: raises a register, adding to the HIP accumulator and moving the kxq sums. */
function registerUpdate(h: HllRegisters, coupon: number): void {
  const value = coupon >>> 26;
  const slot = coupon & ((1 << h.lgK) - 1);
  const old = h.values[slot]!;
  if (value <= old) return;
  h.values[slot] = value;
  let kxq0 = h.kxq0;
  let kxq1 = h.kxq1;
  h.hip += (1 << h.lgK) / (kxq0 + kxq1);
  if (old < 32) kxq0 -= invPow2(old);
  else kxq1 -= invPow2(old);
  if (value < 32) kxq0 += invPow2(value);
  else kxq1 += invPow2(value);
  h.kxq0 = kxq0;
  h.kxq1 = kxq1;
}

// DataSketches' CouponMapping table (coupon count -> estimate), the rows a SET's promotion can reach (count < 160000 * 2)
const COUPON_X = [0.0, 1.0, 20.0, 400.0, 8000.0, 160000.0, 300000.0, 600000.0];
const COUPON_Y = [0.0, 1.0, 20.0000009437402611, 400.0003963713384110, 8000.1589294602090376, 160063.6067763759638183, 300223.7071597663452849, 600895.5933856170158833];

/** DataSketches' coupon estimate: cubic interpolation in the CouponMapping table (Lagrange form, Java's operation order), at least the count. */
function couponEstimate(count: number): number {
  let straddle = 0;
  while (straddle + 1 < COUPON_X.length && COUPON_X[straddle + 1]! <= count) straddle++;
  const o = straddle === 0 ? 0 : straddle - 1;
  const [x0, x1, x2, x3] = [COUPON_X[o]!, COUPON_X[o + 1]!, COUPON_X[o + 2]!, COUPON_X[o + 3]!];
  const [y0, y1, y2, y3] = [COUPON_Y[o]!, COUPON_Y[o + 1]!, COUPON_Y[o + 2]!, COUPON_Y[o + 3]!];
  const x = count;
  const term0 = (y0 * ((x - x1) * (x - x2) * (x - x3))) / ((x0 - x1) * (x0 - x2) * (x0 - x3));
  const term1 = (y1 * ((x - x0) * (x - x2) * (x - x3))) / ((x1 - x0) * (x1 - x2) * (x1 - x3));
  const term2 = (y2 * ((x - x0) * (x - x1) * (x - x3))) / ((x2 - x0) * (x2 - x1) * (x2 - x3));
  const term3 = (y3 * ((x - x0) * (x - x1) * (x - x2))) / ((x3 - x0) * (x3 - x1) * (x3 - x2));
  return Math.max(term0 + term1 + term2 + term3, count);
}

/** `promoteHeapListOrSetToHll`: the coupons into a new HLL_8 array, the HIP accumulator set to the coupon estimate. */
function promoteToHll(c: Coupons): HllRegisters {
  const h = newRegisters(c.lgK);
  for (const coupon of c.arr) if (coupon !== 0) registerUpdate(h, coupon);
  h.hip = couponEstimate(c.count);
  return h;
}

/** `HllSketch.couponUpdate` of a union gadget (coupons of value 0 are skipped). */
function gadgetCouponUpdate(g: Sketch, coupon: number): Sketch {
  if (coupon >>> 26 === 0) return g;
  if (g.mode === HLL) {
    registerUpdate(g, coupon);
    return g;
  }
  return couponUpdate(g, coupon);
}

/** `copyAs(HLL_8)` of an HLL-mode source: an HLL_8 image as it is, others rebuilt register by register (`convertToHll8`). */
function copyAsHll8(src: HllRegisters): HllRegisters {
  if (src.type === 8) return { ...src, values: Uint8Array.from(src.values) };
  const h = newRegisters(src.lgK);
  h.outOfOrder = src.outOfOrder;
  src.values.forEach((v, slot) => v !== 0 && registerUpdate(h, (v << 26) | slot));
  h.hip = src.hip;
  return h;
}

/** `Union.downsample`: the registers folded onto 2^lgK slots of a new HLL_8 array. */
function downsample(src: HllRegisters, lgK: number): HllRegisters {
  const h = newRegisters(lgK);
  src.values.forEach((v, slot) => v !== 0 && registerUpdate(h, (v << 26) | slot));
  h.hip = src.outOfOrder ? 0 : src.hip;
  h.outOfOrder = src.outOfOrder;
  return h;
}

/** `Union.checkRebuildCurMinNumKxQ` of an HLL_8 array flagged for it: the kxq sums recomputed in slot order. */
function rebuildKxq(h: HllRegisters): void {
  if (!h.rebuild || h.type !== 8) return;
  let kxq0 = 1 << h.lgK;
  let kxq1 = 0;
  for (const v of h.values) {
    if (v === 0) continue;
    if (v < 32) kxq0 += invPow2(v) - 1.0;
    else kxq1 += invPow2(v) - 1.0;
  }
  h.kxq0 = kxq0;
  h.kxq1 = kxq1;
  h.rebuild = false;
}

/** `HllSketch.heapify` of an image (`rebuild`: Java's checkRebuild, which `Union.heapify` skips). */
function heapify(bytes: Uint8Array, where: string, which: string, rebuild: boolean): Sketch {
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
  if (lgK < 4 || lgK > 21) throw corrupt(`Log K must be between 4 and 21, inclusive: ${lgK}`);
  const ints = (offset: number, n: number) => {
    if (offset + 4 * n > bytes.length) throw corrupt(`truncated (${n} ints at ${offset})`);
    return Int32Array.from({ length: n }, (_, i) => view.getInt32(offset + 4 * i, true));
  };
  const compact = (bytes[5]! & COMPACT_FLAG) !== 0;
  if (mode === HLL) return heapifyRegisters(bytes, view, lgK, compact, rebuild, corrupt, ints);
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
  if (compact) {
    const set = newCoupons(SET, lgK);
    for (const coupon of ints(12, count)) {
      let after: Sketch;
      try {
        after = couponUpdate(set, coupon);
      } catch (e) {
        if (e instanceof NoEmptySlot) throw corrupt(`${count} coupons do not fit a SET`);
        throw e;
      }
      if (after !== set) throw corrupt(`${count} coupons overflow a SET of lgK ${lgK}`);
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
  if (lgArr > lgK) throw corrupt(`a hash set of 2^${lgArr} slots`);
  return { mode: SET, lgK, lgArr, count, arr: ints(12, 1 << lgArr) };
}

/** Hll4Array / Hll6Array / Hll8Array `heapify`: the registers and the estimator state of an HLL-mode image. */
function heapifyRegisters(bytes: Uint8Array, view: DataView, lgK: number, compact: boolean, rebuild: boolean, corrupt: (why: string) => PaimonError, ints: (offset: number, n: number) => Int32Array): HllRegisters {
  const typeId = (bytes[7]! >> 2) & 3;
  if (typeId === 3) throw corrupt("target HLL type 3");
  const type = [4, 6, 8][typeId]!;
  const k = 1 << lgK;
  const arrBytes = type === 4 ? k >> 1 : type === 6 ? ((k * 3) >>> 2) + 1 : k;
  if (40 + arrBytes > bytes.length) throw corrupt(`truncated (${arrBytes} bytes of registers)`);
  const flags = bytes[5]!;
  const h: HllRegisters = {
    mode: HLL,
    lgK,
    type,
    values: new Uint8Array(k),
    hip: view.getFloat64(8, true),
    kxq0: view.getFloat64(16, true),
    kxq1: view.getFloat64(24, true),
    outOfOrder: (flags & OUT_OF_ORDER_FLAG) !== 0,
    rebuild: (flags & REBUILD_FLAG) !== 0,
  };
  const regs = bytes.subarray(40, 40 + arrBytes);
  if (type === 8) {
    for (let i = 0; i < k; i++) {
      if (regs[i]! > 63) throw corrupt(`register ${i} holds ${regs[i]}`);
      h.values[i] = regs[i]!;
    }
    if (rebuild) rebuildKxq(h);
  } else if (type === 6) {
    for (let i = 0; i < k; i++) {
      const bit = i * 6;
      const pair = regs[bit >> 3]! | ((regs[(bit >> 3) + 1] ?? 0) << 8);
      h.values[i] = (pair >>> (bit & 7)) & 0x3f;
    }
  } else {
    const curMin = bytes[6]!;
    const auxCount = view.getInt32(36, true);
    if (auxCount < 0) throw corrupt(`negative exception count ${auxCount}`);
    const exceptions = new Map<number, number>();
    if (auxCount > 0) {
      const auxStart = 40 + arrBytes;
      const pairs = compact ? ints(auxStart, auxCount) : bytes[4]! > lgK ? null : ints(auxStart, 1 << bytes[4]!);
      if (pairs === null) throw corrupt(`an exception table of 2^${bytes[4]} ints`);
      for (const pair of pairs) {
        if (!compact && pair === 0) continue;
        const slot = pair & (k - 1);
        if (exceptions.has(slot)) throw corrupt(`exception slot ${slot} repeated`);
        exceptions.set(slot, pair >>> 26);
      }
    }
    for (let i = 0; i < k; i++) {
      const nibble = (regs[i >> 1]! >> ((i & 1) * 4)) & 0xf;
      if (nibble === AUX_TOKEN) {
        const v = exceptions.get(i);
        if (v === undefined) throw corrupt(`SlotNo not found: ${i}`);
        h.values[i] = v;
      } else {
        if (nibble + curMin > 63) throw corrupt(`register ${i} holds ${nibble + curMin}`);
        h.values[i] = nibble + curMin;
      }
    }
  }
  return h;
}

/** `Union.update(source)`: the gadget (an HLL_8 union gadget whose lgK is at most `lgMaxK`) after taking in the source. */
function unionUpdate(gadget: Sketch, source: Sketch, lgMaxK: number): Sketch {
  if (source.mode !== HLL) {
    if (source.count === 0) return gadget;
    if (source.mode === SET && gadget.mode !== HLL && gadget.count === 0 && source.lgK === gadget.lgK) {
      return { ...source, arr: Int32Array.from(source.arr) };
    }
    // mergeTo: the source's array in slot order
    for (const coupon of source.arr) if (coupon !== 0) gadget = gadgetCouponUpdate(gadget, coupon);
    return gadget;
  }
  if (gadget.mode !== HLL) {
    // copy (or downsample) the source, then merge the gadget's coupons into it ("ooof = src")
    const target = source.lgK > lgMaxK ? downsample(source, lgMaxK) : copyAsHll8(source);
    for (const coupon of gadget.arr) if (coupon !== 0 && coupon >>> 26 !== 0) registerUpdate(target, coupon);
    return target;
  }
  // HLL into HLL: register maxima (the larger lgK folded onto the smaller), out of order, HIP dropped
  const target = source.lgK < gadget.lgK ? downsample(gadget, source.lgK) : gadget;
  const mask = (1 << target.lgK) - 1;
  source.values.forEach((v, slot) => {
    const at = slot & mask;
    if (v > target.values[at]!) target.values[at] = v;
  });
  target.rebuild = true;
  target.outOfOrder = true;
  target.hip = 0;
  return target;
}

/** DataSketches' compact serialization of a LIST / SET typed HLL_4 (`toCouponByteArray(impl, true)`). */
function serializeCoupons(c: Coupons): Uint8Array {
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

// DataSketches' LG_AUX_ARR_INTS: the initial exception table size of an HLL_4 array, by lgK
const LG_AUX_ARR_INTS = [0, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13];

/** `convertToHll4` of the gadget and its compact serialization (`toHllByteArray(impl, true)`). */
function serializeHll4(g: HllRegisters): Uint8Array {
  const k = 1 << g.lgK;
  let curMin = 64;
  let numAtCurMin = 0;
  for (const v of g.values) {
    if (v > curMin) continue;
    if (v < curMin) {
      curMin = v;
      numAtCurMin = 1;
    } else numAtCurMin++;
  }
  const nibbles = new Uint8Array(k >> 1);
  // the exception table (HeapAuxHashMap): slots probed from slot & mask with stride (slot >>> lgArr) | 1, grown at 3/4 load
  let lgAux = LG_AUX_ARR_INTS[g.lgK]!;
  let aux: Int32Array | null = null;
  let auxCount = 0;
  const auxFind = (table: Int32Array, lg: number, slot: number) => {
    const mask = (1 << lg) - 1;
    let probe = slot & mask;
    while (table[probe] !== 0) probe = (probe + ((slot >>> lg) | 1)) & mask;
    return probe;
  };
  let kxq0 = k;
  let kxq1 = 0;
  g.values.forEach((v, slot) => {
    if (v === 0) return;
    // hipAndKxQIncrementalUpdate(0 -> v) of the new array (its HIP accumulator is overwritten below)
    kxq0 -= 1;
    if (v < 32) kxq0 += invPow2(v);
    else kxq1 += invPow2(v);
    let nibble = v - curMin;
    if (v >= curMin + 15) {
      nibble = AUX_TOKEN;
      aux ??= new Int32Array(1 << lgAux);
      aux[auxFind(aux, lgAux, slot)] = (v << 26) | slot;
      auxCount++;
      if (4 * auxCount > 3 * aux.length) {
        const old = aux;
        lgAux++;
        aux = new Int32Array(1 << lgAux);
        for (const pair of old) if (pair !== 0) aux[auxFind(aux, lgAux, pair & (k - 1))] = pair;
      }
    }
    nibbles[slot >> 1]! |= nibble << ((slot & 1) * 4);
  });
  const out = new Uint8Array(40 + nibbles.length + 4 * auxCount);
  const view = new DataView(out.buffer);
  out.set([10, 1, FAMILY_HLL, g.lgK, aux === null ? 0 : lgAux, COMPACT_FLAG | (g.outOfOrder ? OUT_OF_ORDER_FLAG : 0), curMin, HLL]);
  view.setFloat64(8, g.hip, true);
  view.setFloat64(16, kxq0, true);
  view.setFloat64(24, kxq1, true);
  view.setInt32(32, numAtCurMin, true);
  view.setInt32(36, auxCount, true);
  out.set(nibbles, 40);
  let at = 40 + nibbles.length;
  if (aux !== null) {
    for (const pair of aux as Int32Array) {
      if (pair === 0) continue;
      view.setInt32(at, pair, true);
      at += 4;
    }
  }
  return out;
}

/**
 * Java `HllSketchUtil.union(a, b)` of two serialized HLL sketches, as DataSketches 4.2.0
 * serializes it (see the file comment); `where` names the column in errors.
 */
export function hllSketchUnion(a: Uint8Array, b: Uint8Array, where: string): Uint8Array {
  const first = heapify(a, where, "accumulator", true);
  if (b.length < 4) throw new PaimonError("CORRUPT_FILE", `${where}: HLL sketch image (input) of ${b.length} bytes: truncated`);
  const lgMaxK = b[3]!;
  if (lgMaxK < 4 || lgMaxK > 21) throw new PaimonError("CORRUPT_FILE", `${where}: HLL sketch image (input) of ${b.length} bytes: Log K must be between 4 and 21, inclusive: ${lgMaxK}`);
  const second = heapify(b, where, "input", false);
  let gadget: Sketch = newCoupons(LIST, lgMaxK);
  try {
    gadget = unionUpdate(gadget, second, lgMaxK);
    gadget = unionUpdate(gadget, first, lgMaxK);
  } catch (e) {
    if (e instanceof NoEmptySlot) throw new PaimonError("CORRUPT_FILE", `${where}: HLL sketch coupons: ${e.message}`);
    throw e;
  }
  return gadget.mode === HLL ? serializeHll4(gadget) : serializeCoupons(gadget);
}
