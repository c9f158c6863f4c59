// Dictionary encoding of one Parquet column chunk for the flat encoder (parquet-encode.ts; write
// side only), as parquet-rs does it by default: the chunk's distinct non-null values in first-seen
// order form a PLAIN dictionary page; data pages hold their values as indices into it (bit width
// byte, then the RLE/bit-packed hybrid). A chunk whose dictionary passes parquet-rs's 1 MiB
// dictionary page limit is not dictionary-encoded (the caller writes it PLAIN).
//
// Arrow JS slices a Data's values (fixed width) and value offsets (variable width) to its rows,
// but not its validity bitmap: row j is value j and validity bit data.offset + j.

import type * as arrow from "apache-arrow";
import { keepShape } from "../kernel/shapes.js";

/** parquet-rs's default dictionary page size limit (bytes of the PLAIN-encoded dictionary). */
export const DICTIONARY_PAGE_LIMIT = 1024 * 1024;

/** A chunk's dictionary and the index of each of its non-null values, in row order. */
export interface ChunkDictionary {
  /** The dictionary page body (PLAIN values). */
  plain: Uint8Array;
  /** Number of entries. */
  count: number;
  /** Bits per index: enough for count - 1 (0 for a single entry), as parquet-rs writes. */
  bitWidth: number;
  /** Entry of each non-null value of the chunk (the first `values` are set). */
  indices: Int32Array;
  values: number;
  /** BYTE_ARRAY: where entry i's bytes start and end in `plain` (fixed width: undefined). */
  starts?: Int32Array;
  ends?: Int32Array;
}

/** Reused buffers of the dictionary builder. */
export class DictionaryScratch {
  slots = new Int32Array(1 << 12);
  indices = new Int32Array(1 << 12);
  plain = new Uint8Array(1 << 12);
  starts = new Int32Array(1 << 10);
  ends = new Int32Array(1 << 10);
  /** Page bounds: the page's distinct entries are stamped, fixed-width ones copied to `distinct`. */
  stamps = new Int32Array(1 << 10);
  stamp = 0;
  distinct = new Uint8Array(1 << 12);
}
keepShape(new DictionaryScratch());

/**
 * The dictionary of rows [from, to) of column `c` of `batches` (row numbers over all batches), of
 * fixed `width` bytes per value (4 or 8) or BYTE_ARRAY values (`width` 0); undefined when the
 * dictionary passes DICTIONARY_PAGE_LIMIT.
 */
export function buildDictionary(batches: readonly arrow.RecordBatch[], c: number, from: number, to: number, width: number, s: DictionaryScratch): ChunkDictionary | undefined {
  if (s.indices.length < to - from) s.indices = new Int32Array(Math.max(to - from, s.indices.length * 2));
  const indices = s.indices;
  // at most half full without rehashing: entries ≤ rows and ≤ 1 MiB / 4 (the smallest entry)
  let cap = 1 << 12;
  while (cap < 2 * Math.min(to - from, DICTIONARY_PAGE_LIMIT >> 2)) cap *= 2;
  if (s.slots.length !== cap) s.slots = new Int32Array(cap);
  let slots = s.slots.fill(0);
  let plain = s.plain;
  let starts = s.starts;
  let ends = s.ends;
  let count = 0;
  let bytes = 0;
  let k = 0;
  const words = width >> 2;
  let dictWords = new Int32Array(plain.buffer, 0, plain.length >> 2);
  const rehash = (): void => {
    cap *= 2;
    slots = s.slots = new Int32Array(cap);
    for (let e = 0; e < count; e++) {
      const h = width > 0 ? hashWords(dictWords, e * words, words) : hashBytes(plain, starts[e]!, ends[e]!);
      let at = h & (cap - 1);
      while (slots[at] !== 0) at = (at + 1) & (cap - 1);
      slots[at] = e + 1;
    }
  };
  let base = 0;
  for (const batch of batches) {
    const end = base + batch.numRows;
    if (end > from && base < to) {
      const data = batch.data.children[c]!;
      const bm = data.nullBitmap;
      const allValid = data.nullCount === 0 || !bm || bm.length === 0;
      const j0 = data.offset + Math.max(from, base) - base;
      const j1 = data.offset + Math.min(to, end) - base;
      if (width > 0) {
        const v = data.values as ArrayBufferView;
        const src = new Int32Array(v.buffer, v.byteOffset, (v.byteLength >> 2));
        for (let j = j0; j < j1; j++) {
          if (!allValid && ((bm[j >> 3]! >> (j & 7)) & 1) === 0) continue;
          const i = (j - data.offset) * words;
          let at = hashWords(src, i, words) & (cap - 1);
          let e: number;
          for (;;) {
            const slot = slots[at]!;
            if (slot === 0) {
              e = count++;
              bytes += width;
              if (bytes > DICTIONARY_PAGE_LIMIT) return undefined;
              if (bytes > plain.length) {
                plain = s.plain = grow(plain, bytes - width, Math.max(bytes, plain.length * 2));
                dictWords = new Int32Array(plain.buffer, 0, plain.length >> 2);
              }
              dictWords[e * words] = src[i]!;
              if (words === 2) dictWords[e * 2 + 1] = src[i + 1]!;
              slots[at] = e + 1;
              if (count * 2 > cap) rehash();
              break;
            }
            const d = (slot - 1) * words;
            if (dictWords[d] === src[i] && (words === 1 || dictWords[d + 1] === src[i + 1])) {
              e = slot - 1;
              break;
            }
            at = (at + 1) & (cap - 1);
          }
          indices[k++] = e;
        }
      } else {
        const o = data.valueOffsets as Int32Array;
        const v = data.values as Uint8Array;
        for (let j = j0; j < j1; j++) {
          if (!allValid && ((bm[j >> 3]! >> (j & 7)) & 1) === 0) continue;
          const vs = o[j - data.offset]!;
          const ve = o[j - data.offset + 1]!;
          const len = ve - vs;
          let at = hashBytes(v, vs, ve) & (cap - 1);
          let e: number;
          for (;;) {
            const slot = slots[at]!;
            if (slot === 0) {
              e = count++;
              const p = bytes;
              bytes += 4 + len;
              if (bytes > DICTIONARY_PAGE_LIMIT) return undefined;
              if (bytes > plain.length) plain = s.plain = grow(plain, p, Math.max(bytes, plain.length * 2));
              if (count > starts.length) {
                starts = s.starts = growInts(starts, count - 1, starts.length * 2);
                ends = s.ends = growInts(ends, count - 1, ends.length * 2);
              }
              plain[p] = len & 0xff;
              plain[p + 1] = (len >>> 8) & 0xff;
              plain[p + 2] = (len >>> 16) & 0xff;
              plain[p + 3] = len >>> 24;
              plain.set(v.subarray(vs, ve), p + 4);
              starts[e] = p + 4;
              ends[e] = bytes;
              slots[at] = e + 1;
              if (count * 2 > cap) rehash();
              break;
            }
            const ds = starts[slot - 1]!;
            if (ends[slot - 1]! - ds === len && sameBytes(plain, ds, v, vs, len)) {
              e = slot - 1;
              break;
            }
            at = (at + 1) & (cap - 1);
          }
          indices[k++] = e;
        }
      }
    }
    base = end;
    if (base >= to) break;
  }
  return {
    plain: plain.subarray(0, bytes),
    count,
    bitWidth: count <= 1 ? 0 : 32 - Math.clz32(count - 1),
    indices,
    values: k,
    starts: width === 0 ? starts : undefined,
    ends: width === 0 ? ends : undefined,
  };
}

function hashWords(w: Int32Array, i: number, words: number): number {
  let h = Math.imul(w[i]!, 0x9e3779b1);
  if (words === 2) h = Math.imul(h ^ w[i + 1]!, 0x85ebca6b);
  return (h ^ (h >>> 15)) >>> 0;
}

function hashBytes(v: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5 ^ (e - s);
  for (let k = s; k < e; k++) h = Math.imul(h ^ v[k]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

function sameBytes(a: Uint8Array, as: number, b: Uint8Array, bs: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (a[as + k] !== b[bs + k]) return false;
  return true;
}

function grow(buf: Uint8Array, used: number, size: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array((size + 7) & ~7);
  next.set(buf.subarray(0, used));
  return next;
}

function growInts(buf: Int32Array, used: number, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(buf.subarray(0, used));
  return next;
}

/**
 * Appends to `out` at `at` the bit width byte and the RLE/bit-packed hybrid encoding of
 * indices[from, to) with `bitWidth` bits each: runs of 8 or more equal indices as RLE runs, the
 * rest bit-packed in groups of 8 (at most 63 groups a run, as parquet-mr and parquet-rs write;
 * the last group zero-padded). `out` must hold encodedIndicesBound bytes. Returns the new end.
 */
export function encodeIndices(out: Uint8Array, at: number, indices: Int32Array, from: number, to: number, bitWidth: number): number {
  out[at++] = bitWidth;
  const valueBytes = (bitWidth + 7) >> 3;
  let lit = from; // start of the pending literals [lit, i)
  let i = from;
  const flushLiterals = (end: number): void => {
    // [lit, end) bit-packed; end - lit is a multiple of 8 unless end === to
    while (lit < end) {
      const n = Math.min(end - lit, 63 * 8);
      const groups = (n + 7) >> 3;
      at = varint(out, at, (groups << 1) | 1);
      let acc = 0;
      let bits = 0;
      for (let q = 0; q < groups * 8; q++) {
        const x = lit + q < end ? indices[lit + q]! : 0;
        acc |= x << bits;
        bits += bitWidth;
        while (bits >= 8) {
          out[at++] = acc & 0xff;
          acc >>>= 8;
          bits -= 8;
        }
      }
      lit += n;
    }
  };
  while (i < to) {
    const x = indices[i]!;
    let r = 1;
    while (i + r < to && indices[i + r] === x) r++;
    if (r >= 8) {
      // complete the pending literals to a multiple of 8 with values of this run
      const pad = (8 - ((i - lit) & 7)) & 7;
      if (r - pad >= 8) {
        flushLiterals(i + pad);
        const run = r - pad;
        at = varint(out, at, run << 1);
        for (let b = 0; b < valueBytes; b++) out[at++] = (x >>> (8 * b)) & 0xff;
        i += r;
        lit = i;
        continue;
      }
    }
    i += r;
  }
  flushLiterals(to);
  return at;
}

/** Bytes encodeIndices may write for `n` indices of `bitWidth` bits. */
export function encodedIndicesBound(n: number, bitWidth: number): number {
  return 1 + Math.ceil((n * Math.max(bitWidth, 1)) / 8) + 8 + 5 * (Math.ceil(n / 8) + 1);
}

/** Writes `n` as a ULEB128 varint at `at`; returns the new end. */
export function varint(buf: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buf[at++] = n;
  return at;
}
