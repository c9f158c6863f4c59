import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyColumnFromValues, type KeyColumn } from "../../src/kernel/columns.js";
import { assignBuckets, fingerprintKeys } from "../../src/kernel/hash.js";
import { assignBucketsReference, fingerprintKeysReference, writeKeyRow, xxh64 } from "../../src/kernel/reference.js";
import { BinaryRowWriter } from "../../src/spec/binary-row.js";
import { PaimonError } from "../../src/error.js";
import { columnsOf, keyTableArb } from "./arbitraries.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

// ../shared/reference/paimon-format.md §6.2: hash and buckets for n = 2,3,4,5,8,10,16,128.
const BUCKET_VECTORS: Array<[string, KeyColumn[], number, number[]]> = [
  ["INT 0", [keyColumnFromValues("int32", [0])], -300363099, [1, 0, 3, 4, 3, 9, 11, 91]],
  ["INT 1", [keyColumnFromValues("int32", [1])], 1465514398, [0, 1, 2, 3, 6, 8, 14, 30]],
  ["INT -1", [keyColumnFromValues("int32", [-1])], 1133687267, [1, 2, 3, 2, 3, 7, 3, 99]],
  ["INT 42", [keyColumnFromValues("int32", [42])], 907821237, [1, 0, 1, 2, 5, 7, 5, 53]],
  ["BIGINT 1", [keyColumnFromValues("int64", [1n])], 1465514398, [0, 1, 2, 3, 6, 8, 14, 30]],
  ["BIGINT 1234567890123", [keyColumnFromValues("int64", [1234567890123n])], -1873221036, [0, 0, 0, 1, 4, 6, 12, 44]],
  ["STRING 'a'", [keyColumnFromValues("bytes", ["a"])], 943281246, [0, 0, 2, 1, 6, 6, 14, 94]],
  ["STRING 'hello'", [keyColumnFromValues("bytes", ["hello"])], 243722546, [0, 2, 2, 1, 2, 6, 2, 50]],
  ["STRING 'hello world!'", [keyColumnFromValues("bytes", ["hello world!"])], 609810467, [1, 2, 3, 2, 3, 7, 3, 35]],
  ["INT NULL", [keyColumnFromValues("int32", [null])], -1748325344, [0, 2, 0, 4, 0, 4, 0, 96]],
  ["(INT 1, STRING 'abc')", [keyColumnFromValues("int32", [1]), keyColumnFromValues("bytes", ["abc"])], 261371745, [1, 0, 1, 0, 1, 5, 1, 97]],
];
const NS = [2, 3, 4, 5, 8, 10, 16, 128];

// §5.5 raw BinaryRow bytes.
const ROW_VECTORS: Array<[string, KeyColumn[], string]> = [
  ["INT 1", [keyColumnFromValues("int32", [1])], "00000000000000000100000000000000"],
  ["INT NULL", [keyColumnFromValues("int32", [null])], "00010000000000000000000000000000"],
  ["BIGINT 1234567890123", [keyColumnFromValues("int64", [1234567890123n])], "0000000000000000cb04fb711f010000"],
  ["STRING 'a'", [keyColumnFromValues("bytes", ["a"])], "00000000000000006100000000000081"],
  ["STRING 'hello'", [keyColumnFromValues("bytes", ["hello"])], "000000000000000068656c6c6f000085"],
  ["STRING 'hello world!'", [keyColumnFromValues("bytes", ["hello world!"])], "00000000000000000c0000001000000068656c6c6f20776f726c642100000000"],
  ["(INT 1, STRING 'abc')", [keyColumnFromValues("int32", [1]), keyColumnFromValues("bytes", ["abc"])], "000000000000000001000000000000006162630000000083"],
  ["DECIMAL(10,2) 123.45", [keyColumnFromValues("int64", [12345n])], "00000000000000003930000000000000"],
  ["TIMESTAMP(6) 1970-01-01T00:00:01.500123", [keyColumnFromValues("timestamp_micros", [1500123n])], "000000000000000078e0010010000000dc05000000000000"],
];

describe("assignBuckets", () => {
  it.each(BUCKET_VECTORS)("matches Java for %s", (_name, keys, hash, buckets) => {
    expect(assignBuckets(keys, 0)[0]).toBe(hash);
    expect(assignBucketsReference(keys, 0)[0]).toBe(hash);
    expect(NS.map((n) => assignBuckets(keys, n)[0])).toEqual(buckets);
    expect(NS.map((n) => assignBucketsReference(keys, n)[0])).toEqual(buckets);
  });

  it.each(ROW_VECTORS)("builds the Java BinaryRow for %s", (_name, keys, bytes) => {
    expect(hex(writeKeyRow(new BinaryRowWriter(keys.length), keys, 0))).toBe(bytes);
  });

  it("matches the reference on random keys, including nulls and wide values", () => {
    fc.assert(
      fc.property(keyTableArb(200), fc.integer({ min: 0, max: 1000 }), (table, n) => {
        const keys = columnsOf(table);
        expect(Array.from(assignBuckets(keys, n))).toEqual(Array.from(assignBucketsReference(keys, n)));
      }),
      { numRuns: 200 },
    );
  });

  it("gives every bucket in range", () => {
    const keys = [keyColumnFromValues("int64", Array.from({ length: 10000 }, (_, i) => BigInt(i) * 7919n))];
    const b = assignBuckets(keys, 7);
    expect(Math.min(...b)).toBe(0);
    expect(Math.max(...b)).toBe(6);
  });

  it("rejects a negative or fractional bucket count", () => {
    const keys = [keyColumnFromValues("int32", [1])];
    for (const n of [-1, 1.5, 2 ** 31]) {
      expect(() => assignBuckets(keys, n)).toThrow(PaimonError);
    }
  });
});

describe("fingerprintKeys", () => {
  it("implements XXH64", () => {
    const enc = new TextEncoder();
    expect(xxh64(new Uint8Array(0)).toString(16)).toBe("ef46db3751d8e999");
    expect(xxh64(enc.encode("abc")).toString(16)).toBe("44bc2cf5ad770999");
    expect(xxh64(enc.encode("Nobody inspects the spammish repetition")).toString(16)).toBe("fbcea83c8a378bf1");
  });

  it("hashes the canonical key encoding", () => {
    // int64 5 -> tag 01 + 8 bytes LE; null -> 00.
    const keys = [keyColumnFromValues("int64", [5n, null]), keyColumnFromValues("bytes", ["ab", "ab"])];
    const enc0 = Uint8Array.from([1, 5, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 97, 98]);
    const enc1 = Uint8Array.from([0, 1, 2, 0, 0, 0, 97, 98]);
    expect(Array.from(fingerprintKeys(keys, 7n))).toEqual([xxh64(enc0, 7n), xxh64(enc1, 7n)]);
  });

  it("matches the reference on random keys", () => {
    fc.assert(
      fc.property(keyTableArb(200), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (table, seed) => {
        const keys = columnsOf(table);
        expect(Array.from(fingerprintKeys(keys, seed))).toEqual(Array.from(fingerprintKeysReference(keys, seed)));
      }),
      { numRuns: 200 },
    );
  });

  it("gives equal keys equal fingerprints and (practically) distinct keys distinct ones", () => {
    const values = Array.from({ length: 50000 }, (_, i) => `key-${i % 25000}`);
    const f = fingerprintKeys([keyColumnFromValues("bytes", values)]);
    expect(f[0]).toBe(f[25000]);
    expect(new Set(f).size).toBe(25000);
  });
});
