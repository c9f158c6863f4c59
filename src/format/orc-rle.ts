// ORC type kinds and ORC's run-length encodings (ORC spec "Run Length Encoding"), as Java's ORC writer (orc-core
// 1.9, which Paimon uses) produces them: byte RLE, boolean bit RLE, integer RLE v1 and v2 (short
// repeat, direct, patched base, delta). Pure functions over decompressed stream bytes, no imports:
// the ORC reader chunk (orc-data-read.ts) and its unit tests use them.
//
// Integers decode into 64-bit slots held as two little-endian Int32 words each (`Int64Words`):
// runs whose values fit 2^52 are decoded with number arithmetic (no allocation per value), wider
// runs (BIGINT columns with large values) with bigint arithmetic into the same slots.

/** Thrown for bytes that are no valid run (the reader names the file and column). */
export class OrcRleError extends Error {}

/** 64-bit integers as [lo, hi] Int32 word pairs (the little-endian layout of a BigInt64Array). */
export class Int64Words {
  readonly words: Int32Array;
  /** `words`: a view of existing words (2 per value), else new zeroed ones. */
  constructor(
    readonly length: number,
    words?: Int32Array,
  ) {
    this.words = words ?? new Int32Array(length * 2);
  }
  /** Value `i` as a number (exact below 2^53). */
  get(i: number): number {
    return this.words[2 * i + 1]! * 4294967296 + (this.words[2 * i]! >>> 0);
  }
  /** The low 32 bits of value `i` (INT, SHORT, BYTE, DATE columns). */
  low(i: number): number {
    return this.words[2 * i]!;
  }
  set(i: number, v: number): void {
    if (v >= -2147483648 && v <= 2147483647) {
      this.words[2 * i] = v;
      this.words[2 * i + 1] = v >> 31;
      return;
    }
    const hi = Math.floor(v / 4294967296);
    this.words[2 * i] = (v - hi * 4294967296) | 0;
    this.words[2 * i + 1] = hi | 0;
  }
  setBig(i: number, v: bigint): void {
    const lo = Number(BigInt.asUintN(32, v));
    this.words[2 * i] = lo | 0;
    this.words[2 * i + 1] = Number(BigInt.asIntN(32, v >> 32n));
  }
  big(i: number): bigint {
    return (BigInt(this.words[2 * i + 1]!) << 32n) | BigInt(this.words[2 * i]! >>> 0);
  }
}

/** A cursor over a stream's bytes. */
export class ByteCursor {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  byte(): number {
    if (this.pos >= this.buf.length) throw new OrcRleError(`stream ends at byte ${this.pos}`);
    return this.buf[this.pos++]!;
  }
  /** An unsigned base-128 varint as a number, or -1 when it does not fit 2^49 (read it with `uvarBig`). */
  uvar(): number {
    const start = this.pos;
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.byte();
      v += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return v;
      scale *= 128;
    }
    this.pos = start;
    return -1;
  }
  uvarBig(): bigint {
    let v = 0n;
    let shift = 0n;
    for (let i = 0; ; i++) {
      if (i > 18) throw new OrcRleError(`varint longer than 128 bits at byte ${this.pos}`);
      const b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
      shift += 7n;
    }
  }
  /** A zigzag signed varint as a bigint. */
  svarBig(): bigint {
    const u = this.uvarBig();
    return (u >> 1n) ^ -(u & 1n);
  }
}

const zigzag = (u: number): number => (u % 2 === 1 ? -(u + 1) / 2 : u / 2);
const zigzagBig = (u: bigint): bigint => (u >> 1n) ^ -(u & 1n);

/**
 * Byte RLE (ORC spec): `n` bytes. A run past the `n` values is an error unless `out` has room for
 * it (a reader that stops inside a run: the row groups of a row index).
 */
export function decodeByteRle(buf: Uint8Array, n: number, out: Uint8Array = new Uint8Array(n)): Uint8Array {
  const c = new ByteCursor(buf);
  let i = 0;
  while (i < n) {
    const control = c.byte();
    if (control < 128) {
      const run = control + 3;
      const v = c.byte();
      if (i + run > out.length) throw new OrcRleError(`byte run past the ${n} values`);
      out.fill(v, i, i + run);
      i += run;
    } else {
      const run = 256 - control;
      if (i + run > out.length || c.pos + run > buf.length) throw new OrcRleError(`byte literals past the stream`);
      out.set(buf.subarray(c.pos, c.pos + run), i);
      c.pos += run;
      i += run;
    }
  }
  return out;
}

/** Boolean RLE (byte RLE of bits, most significant first): `n` values, one byte (0/1) each; `slack`: room for a byte run past them. */
export function decodeBoolRle(buf: Uint8Array, n: number, slack = 0): Uint8Array {
  const bytes = decodeByteRle(buf, (n + 7) >> 3, new Uint8Array(((n + 7) >> 3) + slack));
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (bytes[i >> 3]! >> (7 - (i & 7))) & 1;
  return out;
}

/** Integer RLE version 1 (ORC's DIRECT encoding): `n` values (a run past them only where `out` has room). */
export function decodeIntRleV1(buf: Uint8Array, n: number, signed: boolean, out: Int64Words = new Int64Words(n)): Int64Words {
  const c = new ByteCursor(buf);
  let i = 0;
  while (i < n) {
    const control = c.byte();
    if (control < 128) {
      const run = control + 3;
      const delta = (c.byte() << 24) >> 24;
      if (i + run > out.length) throw new OrcRleError(`integer run past the ${n} values`);
      const u = c.uvar();
      if (u >= 0) {
        const base = signed ? zigzag(u) : u;
        for (let k = 0; k < run; k++) out.set(i++, base + k * delta);
      } else {
        const base = signed ? c.svarBig() : c.uvarBig();
        for (let k = 0; k < run; k++) out.setBig(i++, base + BigInt(k * delta));
      }
    } else {
      const run = 256 - control;
      if (i + run > out.length) throw new OrcRleError(`integer literals past the ${n} values`);
      for (let k = 0; k < run; k++) {
        const u = c.uvar();
        if (u >= 0) out.set(i++, signed ? zigzag(u) : u);
        else out.setBig(i++, signed ? c.svarBig() : c.uvarBig());
      }
    }
  }
  return out;
}

/** ORC's 5-bit width codes → bit widths. */
const WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64];

/** Java `SerializationUtils.getClosestFixedBits`. */
function closestFixedBits(n: number): number {
  if (n === 0) return 1;
  if (n <= 24) return n;
  for (const w of [26, 28, 30, 32, 40, 48, 56]) if (n <= w) return w;
  return 64;
}

/** Big-endian bit-packed unsigned values, a run at a time (each run starts on a byte). */
class BitReader {
  private cur = 0;
  private left = 0;
  constructor(private readonly c: ByteCursor) {}
  /** `w` ≤ 52 bits. */
  bits(w: number): number {
    let v = 0;
    let need = w;
    while (need > 0) {
      if (this.left === 0) {
        this.cur = this.c.byte();
        this.left = 8;
      }
      const take = need < this.left ? need : this.left;
      v = v * (1 << take) + ((this.cur >>> (this.left - take)) & ((1 << take) - 1));
      this.left -= take;
      need -= take;
    }
    return v;
  }
  bitsBig(w: number): bigint {
    let v = 0n;
    let need = w;
    while (need > 0) {
      const take = need < 32 ? need : 32;
      v = (v << BigInt(take)) | BigInt(this.bits(take));
      need -= take;
    }
    return v;
  }
  /** Drops the rest of the current byte (the end of a run). */
  align(): void {
    this.left = 0;
  }
}

/** Safe magnitude for number arithmetic within a run (sums of ≤ 512 terms stay below 2^53). */
const SAFE = 2 ** 42;

/** Integer RLE version 2 (ORC's DIRECT_V2 and DICTIONARY_V2 encodings): `n` values (a run past them only where `out` has room). */
export function decodeIntRleV2(buf: Uint8Array, n: number, signed: boolean, out: Int64Words = new Int64Words(n)): Int64Words {
  const c = new ByteCursor(buf);
  const bits = new BitReader(c);
  let i = 0;
  const room = (run: number) => {
    if (i + run > out.length) throw new OrcRleError(`integer run of ${run} past the ${n} values`);
  };
  while (i < n) {
    const first = c.byte();
    switch (first >> 6) {
      case 0: {
        // SHORT_REPEAT: width in bytes, 3..10 copies of one big-endian value
        const width = ((first >> 3) & 7) + 1;
        const run = (first & 7) + 3;
        room(run);
        if (width <= 6) {
          let u = 0;
          for (let k = 0; k < width; k++) u = u * 256 + c.byte();
          const v = signed ? zigzag(u) : u;
          for (let k = 0; k < run; k++) out.set(i++, v);
        } else {
          let u = 0n;
          for (let k = 0; k < width; k++) u = (u << 8n) | BigInt(c.byte());
          const v = signed ? zigzagBig(u) : u;
          for (let k = 0; k < run; k++) out.setBig(i++, v);
        }
        break;
      }
      case 1: {
        // DIRECT: 1..512 bit-packed values
        const width = WIDTHS[(first >> 1) & 0x1f]!;
        const run = (((first & 1) << 8) | c.byte()) + 1;
        room(run);
        bits.align();
        if (width <= 52) {
          for (let k = 0; k < run; k++) {
            const u = bits.bits(width);
            out.set(i++, signed ? zigzag(u) : u);
          }
        } else {
          for (let k = 0; k < run; k++) {
            const u = bits.bitsBig(width);
            out.setBig(i++, signed ? zigzagBig(u) : BigInt.asIntN(64, u));
          }
        }
        bits.align();
        break;
      }
      case 2: {
        // PATCHED_BASE: base + bit-packed values, some patched with their high bits
        const width = WIDTHS[(first >> 1) & 0x1f]!;
        const run = (((first & 1) << 8) | c.byte()) + 1;
        room(run);
        const third = c.byte();
        const baseBytes = ((third >> 5) & 7) + 1;
        const patchWidth = WIDTHS[third & 0x1f]!;
        const fourth = c.byte();
        const gapWidth = ((fourth >> 5) & 7) + 1;
        const patches = fourth & 0x1f;
        if (patchWidth + gapWidth > 64) throw new OrcRleError(`patch of ${patchWidth + gapWidth} bits`);
        let base = 0n;
        for (let k = 0; k < baseBytes; k++) base = (base << 8n) | BigInt(c.byte());
        const signBit = 1n << BigInt(baseBytes * 8 - 1);
        if (base & signBit) base = -(base & (signBit - 1n));
        bits.align();
        const at = i;
        const small = width + patchWidth <= 52 && base < BigInt(SAFE) && base > -BigInt(SAFE);
        const values = small ? null : new Array<bigint>(run);
        for (let k = 0; k < run; k++) {
          if (small) out.set(i++, bits.bits(width));
          else values![k] = width <= 52 ? BigInt(bits.bits(width)) : bits.bitsBig(width);
        }
        bits.align();
        const entryWidth = closestFixedBits(patchWidth + gapWidth);
        const patchMask = (1n << BigInt(patchWidth)) - 1n;
        let gap = 0;
        for (let p = 0; p < patches; p++) {
          const entry = entryWidth <= 52 ? BigInt(bits.bits(entryWidth)) : bits.bitsBig(entryWidth);
          const g = Number(entry >> BigInt(patchWidth));
          const patch = entry & patchMask;
          gap += g;
          if (patch === 0n) continue; // (a gap over 255: a 255 entry without patch, then the rest)
          if (gap >= run) throw new OrcRleError(`patch at ${gap} past the run of ${run}`);
          if (small) out.set(at + gap, out.get(at + gap) + Number(patch) * 2 ** width);
          else values![gap] = values![gap]! | (patch << BigInt(width));
        }
        bits.align();
        if (small) {
          const b = Number(base);
          for (let k = at; k < at + run; k++) out.set(k, out.get(k) + b);
        } else for (let k = 0; k < run; k++) out.setBig(at + k, BigInt.asIntN(64, base + values![k]!));
        i = at + run;
        break;
      }
      default: {
        // DELTA: base, delta base, bit-packed delta magnitudes (or one fixed delta)
        const code = (first >> 1) & 0x1f;
        const width = code === 0 ? 0 : WIDTHS[code]!;
        const run = (((first & 1) << 8) | c.byte()) + 1;
        room(run);
        const base = signed ? c.svarBig() : c.uvarBig();
        const deltaBase = c.svarBig();
        const small = width <= 40 && base < BigInt(SAFE) && base > -BigInt(SAFE) && deltaBase < BigInt(SAFE) && deltaBase > -BigInt(SAFE);
        if (width === 0) {
          if (small) {
            const b = Number(base);
            const d = Number(deltaBase);
            for (let k = 0; k < run; k++) out.set(i++, b + k * d);
          } else for (let k = 0; k < run; k++) out.setBig(i++, BigInt.asIntN(64, base + BigInt(k) * deltaBase));
          break;
        }
        bits.align();
        if (small) {
          let prev = Number(base);
          const d = Number(deltaBase);
          out.set(i++, prev);
          if (run > 1) out.set(i++, (prev += d));
          for (let k = 2; k < run; k++) {
            const m = bits.bits(width);
            prev = d < 0 ? prev - m : prev + m;
            out.set(i++, prev);
          }
        } else {
          let prev = base;
          out.setBig(i++, prev);
          if (run > 1) out.setBig(i++, BigInt.asIntN(64, (prev += deltaBase)));
          for (let k = 2; k < run; k++) {
            const m = width <= 52 ? BigInt(bits.bits(width)) : bits.bitsBig(width);
            prev = BigInt.asIntN(64, deltaBase < 0n ? prev - m : prev + m);
            out.setBig(i++, prev);
          }
        }
        bits.align();
      }
    }
  }
  return out;
}

/** ORC's type kinds (orc_proto.proto Type.Kind). */
export const enum Kind {
  BOOLEAN = 0,
  BYTE = 1,
  SHORT = 2,
  INT = 3,
  LONG = 4,
  FLOAT = 5,
  DOUBLE = 6,
  STRING = 7,
  BINARY = 8,
  TIMESTAMP = 9,
  LIST = 10,
  MAP = 11,
  STRUCT = 12,
  UNION = 13,
  DECIMAL = 14,
  DATE = 15,
  VARCHAR = 16,
  CHAR = 17,
  TIMESTAMP_INSTANT = 18,
}
