/**
 * ORC run-length encodings against the byte vectors of the ORC specification
 * (https://orc.apache.org/specification/ORCv1/, "Run Length Encoding"), checked by hand, and
 * against values Java writes with 64-bit runs; malformed runs are errors, never garbage.
 */
import { describe, expect, it } from "vitest";
import { decodeBoolRle, decodeByteRle, decodeIntRleV1, decodeIntRleV2, OrcRleError } from "../../src/format/orc-rle.js";
import { lz4Block } from "../../src/format/orc-data-read.js";

const values = (w: { length: number; get(i: number): number }) => Array.from({ length: w.length }, (_, i) => w.get(i));
const bytes = (...b: number[]) => new Uint8Array(b);

describe("ORC integer RLE v2", () => {
  it("short repeat: five times 10000", () => {
    expect(values(decodeIntRleV2(bytes(0x0a, 0x27, 0x10), 5, false))).toEqual([10000, 10000, 10000, 10000, 10000]);
  });

  it("direct: [23713, 43806, 57005, 48879] in 16 bits", () => {
    expect(values(decodeIntRleV2(bytes(0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef), 4, false))).toEqual([23713, 43806, 57005, 48879]);
  });

  it("patched base: one outlier among twenty values", () => {
    const encoded = bytes(0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8);
    expect(values(decodeIntRleV2(encoded, 20, true))).toEqual([2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190]);
  });

  it("delta: the first ten primes", () => {
    expect(values(decodeIntRleV2(bytes(0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46), 10, false))).toEqual([2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
  });

  it("delta with a fixed (negative) step, signed", () => {
    // width code 0: base 100 (zigzag 200 = 0xc8 0x01), step -3 (zigzag 5), 4 values
    expect(values(decodeIntRleV2(bytes(0xc0, 0x03, 0xc8, 0x01, 0x05), 4, true))).toEqual([100, 97, 94, 91]);
  });

  it("64-bit values: direct in 64 bits and short repeat of 8 bytes, exact beyond 2^53", () => {
    // direct, width code 31 (64 bits), 2 values, signed zigzag: 2^53 + 1 → 2^54 + 2; -(2^62) → 2^63 - 1
    const direct = bytes(0x7e, 0x01, 0x00, 0x40, 0, 0, 0, 0, 0, 0x02, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    const w = decodeIntRleV2(direct, 2, true);
    expect([w.big(0), w.big(1)]).toEqual([9007199254740993n, -(2n ** 62n)]);
    // short repeat, 8 bytes, 3 times, unsigned 2^63 - 1 (as stored, a signed 64-bit slot)
    const repeat = decodeIntRleV2(bytes(0x38, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 3, false);
    expect(repeat.big(2)).toBe(2n ** 63n - 1n);
  });

  it("malformed runs are errors: truncated, past the expected count, patch past the run", () => {
    expect(() => decodeIntRleV2(bytes(0x5e, 0x03, 0x5c, 0xa1, 0xab), 4, false)).toThrow(OrcRleError);
    expect(() => decodeIntRleV2(bytes(0x0a, 0x27, 0x10), 4, false)).toThrow(OrcRleError);
    expect(() => decodeIntRleV2(new Uint8Array(0), 1, false)).toThrow(OrcRleError);
    // the spec's patched run with its patch gap (now 5 bits) moved to 23, past the 20 values
    const patched = bytes(0x8e, 0x13, 0x2b, 0x81, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xbf, 0x9d, 0x00);
    expect(() => decodeIntRleV2(patched, 20, true)).toThrow(OrcRleError);
  });
});

describe("ORC integer RLE v1, byte and boolean RLE", () => {
  it("v1: a run of 100 sevens, literals", () => {
    expect(values(decodeIntRleV1(bytes(0x61, 0x00, 0x07), 100, false))).toEqual(new Array(100).fill(7));
    expect(values(decodeIntRleV1(bytes(0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b), 5, false))).toEqual([2, 3, 6, 7, 11]);
    // a run with delta -1, signed base -5 (zigzag 9)
    expect(values(decodeIntRleV1(bytes(0x00, 0xff, 0x09), 3, true))).toEqual([-5, -6, -7]);
    expect(() => decodeIntRleV1(bytes(0x61, 0x00), 100, false)).toThrow(OrcRleError);
  });

  it("byte RLE: a run of 100 zeros, two literals", () => {
    expect([...decodeByteRle(bytes(0x61, 0x00), 100)]).toEqual(new Array(100).fill(0));
    expect([...decodeByteRle(bytes(0xfe, 0x44, 0x45), 2)]).toEqual([0x44, 0x45]);
    expect(() => decodeByteRle(bytes(0xfe, 0x44), 2)).toThrow(OrcRleError);
  });

  it("boolean RLE: bits most significant first", () => {
    expect([...decodeBoolRle(bytes(0xff, 0x80), 8)]).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect([...decodeBoolRle(bytes(0xfe, 0xa5, 0xc0), 10)]).toEqual([1, 0, 1, 0, 0, 1, 0, 1, 1, 1]);
  });
});

describe("LZ4 blocks (ORC's lz4 compression)", () => {
  it("literals and an overlapping match", () => {
    const block = bytes(0x32, 0x61, 0x62, 0x63, 0x03, 0x00, 0x10, 0x21);
    expect(new TextDecoder().decode(lz4Block(block, 64))).toBe("abcabcabc!");
  });

  it("a match before the start or past the block size is an error", () => {
    expect(() => lz4Block(bytes(0x10, 0x61, 0x05, 0x00), 64)).toThrow();
    expect(() => lz4Block(bytes(0x32, 0x61, 0x62, 0x63, 0x03, 0x00), 5)).toThrow();
  });
});
