/**
 * The Roaring64Bitmap union of `rbm64` (src/kernel/roaring64.ts), byte for byte: vectors Java
 * Paimon 1.4.2 wrote (RoaringBitmap64.serialize of {1, 2, 3, 65536, -1} and {4, 131072, -65536},
 * FieldRoaringBitmap64Agg.agg of them both ways and with empty bitmaps), the ART's node growth
 * Node4 → Node16 → Node48 → Node256 under one prefix, and malformed bytes refused as CORRUPT_FILE.
 * Random bitmaps against Java: test/interop/roaring64-interop.test.ts.
 */
import { describe, expect, it } from "vitest";
import { roaring64Or } from "../../src/kernel/roaring64.js";
import { oneKeyRoaring64 as oneKey } from "../support/roaring64.js";

const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const or = (a: Uint8Array, b: Uint8Array) => roaring64Or(a, b, "column b");

// Java's RoaringBitmap64.bitmapOf(1, 2, 3, 65536, -1).serialize() and bitmapOf(4, 131072, -65536)
const A = hex(
  "010300000000000000000200000000ff0000020004000000000000010004000000000000000000000000000000000004000000000000000001010000000000000004000000ffffffffffff020000000000000001000000fe030000000102030000000100020003000102010000000000010201000000ffff03000000000000000000000002000000",
);
const B = hex(
  "010300000000000000000200000000ff0000020004000000000000020004000000000000000000000000000000000004000000000000000002010000000000000004000000ffffffffffff020000000000000001000000fe0300000001020100000004000102010000000000010201000000000003000000000000000000000002000000",
);
// FieldRoaringBitmap64Agg.agg(A, B) and agg(B, A): key 0's array {1, 2, 3} | {4} run-optimized to
// the run [1, 4]; the new key 2 in slot 3 (the slot array grown from 3 to 4)
const A_OR_B =
  "010400000000000000000200000000ff0000030004000000000002010004000000000000000000000000000000000004000000000000000001010000000000000004000000000000000002030000000000000004000000ffffffffffff020000000000000001000000fe0400000001000400000001000100030001020100000000000102020000000000ffff010201000000000004000000000000000000000003000000";
const B_OR_A =
  "010400000000000000000200000000ff0000030004000000000002010004000000000000000000000000000000000004000000000000000001030000000000000004000000000000000002010000000000000004000000ffffffffffff020000000000000001000000fe0400000001000400000001000100030001020100000000000102020000000000ffff010201000000000004000000000000000000000003000000";
const EMPTY = hex("00");

describe("roaring64Or (FieldRoaringBitmap64Agg)", () => {
  it("unions Java's bitmaps into Java's bytes, both orders", () => {
    expect(toHex(or(A, B))).toBe(A_OR_B);
    expect(toHex(or(B, A))).toBe(B_OR_A);
  });

  it("an empty side: the other's layout kept (runOptimize only), two empty ones stay one byte", () => {
    expect(toHex(or(EMPTY, A))).toBe(toHex(A));
    expect(toHex(or(A, EMPTY))).toBe(toHex(A));
    expect(toHex(or(EMPTY, EMPTY))).toBe("00");
  });

  it("runOptimize converts an array of 10 consecutive values (20 bytes) to one run (6 bytes)", () => {
    // Java's raw Roaring64Bitmap of 1..10 (no runOptimize) unioned with an empty bitmap
    const raw = hex("01010000000000000004000000000000000000000000000000000001000000fe0100000001020a0000000100020003000400050006000700080009000a0001000000000000000000000000000000");
    expect(toHex(or(raw, EMPTY))).toBe("01010000000000000004000000000000000000000000000000000001000000fe01000000010" + "00a000000" + "01000100" + "0900" + "01000000000000000000000000000000");
  });

  it("grows the node under a 5-byte prefix Node4 → Node16 → Node48 → Node256 as keys arrive", () => {
    const base = 0x0102_0304_0500n;
    let acc = oneKey(base, [7]);
    const kinds: number[] = [];
    for (let i = 1; i < 256; i++) {
      acc = or(acc, oneKey(base + BigInt((i * 37) % 256), [i]));
      // the root: type byte, count, a prefix of the 5 shared bytes
      expect([acc[10]! | (acc[11]! << 8), acc[12]]).toEqual([i + 1, 5]);
      kinds.push(acc[9]!);
    }
    // Node4 up to 4 children, Node16 up to 16, Node48 up to 48, then Node256
    expect([kinds.indexOf(1), kinds.indexOf(2), kinds.indexOf(3)]).toEqual([3, 15, 47]);
    // tag, key count, the root (header, prefix, presence mask), 256 leaves, one slot array of
    // capacity 316 (1, 2, 3, 4, 6, 9, ... grown by half) with 60 null slots, the container counters
    expect(acc.length).toBe(1 + 8 + (4 + 5 + 32) + 256 * 18 + (4 + 5) + 256 * 8 + 60 + 16);
  });

  it("refuses malformed bytes as CORRUPT_FILE naming the column, without allocating from length fields", () => {
    const good = oneKey(5n, [1, 2]);
    expect(toHex(or(good, good))).toBe(toHex(good));
    const cases: Array<[Uint8Array, string]> = [
      [hex(""), "truncated: needs 1 more bytes"],
      [hex("01"), "truncated: needs 8 more bytes"],
      [hex("02"), "empty tag 2"],
      [new Uint8Array([...A, 0]), "1 bytes after the bitmap"],
      [oneKey(5n, [2, 1]), "array container values are not strictly increasing"],
      [oneKey(5n, [1], { keySize: 2 }), "1 keys, 2 counted"],
      [oneKey(5n, [1], { slot: 1 }), "a leaf refers to container (0, 1)"],
      [oneKey(5n, [1], { slots: 0x7fffffff }), "container slot count 2147483647 does not fit"],
      [oneKey(5n, [1], { nodeType: 9 }), "unknown node type 9"],
      [oneKey(5n, [1], { nodeType: 0 }), "node of type 0 has 0 children"],
    ];
    for (const [bytes, message] of cases) {
      for (const call of [() => or(bytes, good), () => or(good, bytes)]) {
        expect(call).toThrow(expect.objectContaining({ code: "CORRUPT_FILE", message: expect.stringContaining(`column b: not a valid Roaring64Bitmap serialization: ${message}`) }));
      }
    }
  });
});
