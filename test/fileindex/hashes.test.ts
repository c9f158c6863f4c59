// FastHash (bloom-filter hashes), Java hashCode()s and Java HashMap iteration order, against
// values printed by Java Paimon 1.4.2 / JDK 17 and against plain reference models.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wangHash64Values, xxh64Values } from "../../src/kernel/hash.js";
import { xxh64 } from "../../src/kernel/reference.js";
import { literalHashes, wangHash64 } from "../../src/fileindex/bloom-filter.js";
import { javaHashMapOrder, JavaHashMapReplay, type JavaInsertion } from "../../src/fileindex/java-order.js";
import { binaryStringHash, javaLongHash, javaStringHash } from "../../src/fileindex/java-hash.js";
import { DataTypes } from "../../src/spec/types.js";

const UTF8 = new TextEncoder();

// Java: FastHash.FastHashVisitor.getLongHash(v)
const WANG: Array<[bigint, bigint]> = [
  [0n, 0n],
  [1n, 6614235796240398542n],
  [-1n, 6614246905173314819n],
  [42n, 1098236396662648698n],
  [-(2n ** 63n), 4316648529147585864n],
  [2n ** 63n - 1n, -9102528624353286089n],
  [1704067200123n, 2729851870475622856n],
];
// Java: FastHash.getHashFunction(STRING).hash(BinaryString.fromString(s))
const XXH: Array<[string, bigint]> = [
  ["", -1205034819632174695n],
  ["a", -3292477735350538661n],
  ["abc", 4952883123889572249n],
  ["hello world, this is more than 32 bytes long!", 517731175377635965n],
  ["ü✓", 6036764082575744795n],
];
// Java: BinaryString.fromString(s).hashCode()
const BINARY_STRING_HASH: Array<[string, number]> = [
  ["", 142593372],
  ["a", 1485273170],
  ["abc", 1322437556],
  ["abcd", -396302900],
  ["abcde", 814637928],
  ["hello world", -1528836094],
  ["ü✓", -835672596],
];

describe("FastHash", () => {
  it("Wang hash matches Java (TS reference and kernel)", () => {
    for (const [v, h] of WANG) expect(wangHash64(v)).toBe(h);
    expect([...wangHash64Values(BigInt64Array.from(WANG.map(([v]) => v)))]).toEqual(WANG.map(([, h]) => h));
  });

  it("XXH64 of strings matches Java", () => {
    for (const [s, h] of XXH) expect(literalHashes(DataTypes.STRING(), s)).toEqual([h]);
  });

  it("kernel XXH64 per value = reference, on sliced random columns", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 40 }), fc.nat(5), (values, skip) => {
        const bytes = new Uint8Array(skip + values.reduce((n, v) => n + v.length, 0));
        const offsets = new Int32Array(values.length + 1);
        offsets[0] = skip;
        values.forEach((v, i) => {
          bytes.set(v, offsets[i]!);
          offsets[i + 1] = offsets[i]! + v.length;
        });
        const got = xxh64Values(offsets, bytes);
        expect([...got]).toEqual(values.map((v) => xxh64(v)));
      }),
    );
  });

  it("kernel Wang hash = reference, with unit scaling and sign extension", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 50 }), fc.constantFrom([1n, 1n], [1000n, 1n], [1n, 1000n]), (values, [mul, div]) => {
        const got = wangHash64Values(BigInt64Array.from(values), mul, div);
        const floorDiv = (a: bigint): bigint => {
          const q = a / div;
          return a % div !== 0n && a < 0n ? q - 1n : q;
        };
        expect([...got]).toEqual(values.map((v) => wangHash64(floorDiv(BigInt.asIntN(64, v * mul)))));
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 50 }), (values) => {
        expect([...wangHash64Values(Int32Array.from(values))]).toEqual(values.map((v) => wangHash64(BigInt(v | 0))));
      }),
    );
  });

  it("±0.0 are looked up under their own hash only (Java hashes their bits apart and Double.compare tells them apart)", () => {
    expect(literalHashes(DataTypes.DOUBLE(), 0)).toHaveLength(1);
    expect(literalHashes(DataTypes.DOUBLE(), -0)).not.toEqual(literalHashes(DataTypes.DOUBLE(), 0));
    expect(literalHashes(DataTypes.FLOAT(), 1.5)).toHaveLength(1);
  });
});

describe("Java hashCode()s", () => {
  it("BinaryString.hashCode", () => {
    for (const [s, h] of BINARY_STRING_HASH) expect(binaryStringHash(UTF8.encode(s))).toBe(h);
  });

  it("String.hashCode and Long.hashCode", () => {
    expect(javaStringHash("bloom-filter")).toBe(862074498);
    expect(javaStringHash("bitmap")).toBe(-1388777169);
    expect(javaLongHash(-1n)).toBe(0);
    expect(javaLongHash(1n << 32n)).toBe(1);
    expect(javaLongHash(-(2n ** 63n))).toBe(-2147483648);
  });
});

/** A literal java.util.HashMap: bucket lists, head/tail insertion, order-keeping resize, treeify-resize for small tables. */
function referenceHashMapOrder(keys: number[], insertion: JavaInsertion): number[] {
  let table: number[][] = [];
  let size = 0;
  const bucket = (k: number, n: number): number => (k ^ (k >>> 16)) & (n - 1);
  const resize = (): void => {
    const n = table.length === 0 ? 16 : table.length * 2;
    const next: number[][] = Array.from({ length: n }, () => []);
    for (const list of table) for (const k of list) next[bucket(k, n)]!.push(k);
    table = next;
  };
  for (const k of keys) {
    if (table.length === 0 || (insertion === "computeIfAbsent" && size > table.length * 0.75)) resize();
    const list = table[bucket(k, table.length)]!;
    if (list.includes(k)) continue;
    const before = list.length;
    if (insertion === "put") list.push(k);
    else list.unshift(k);
    if (before >= (insertion === "put" ? 8 : 7) && table.length < 64) resize();
    size++;
    if (insertion === "put" && size > table.length * 0.75) resize();
  }
  return table.flat();
}

describe("Java HashMap iteration order", () => {
  it("matches JDK 17 for the column names of a table", () => {
    const names = ["l", "d", "dt", "ts3", "ts6", "t"];
    expect(javaHashMapOrder(names, "computeIfAbsent", javaStringHash)).toEqual(["dt", "t", "d", "ts3", "ts6", "l"]);
    expect(javaHashMapOrder(names, "put", javaStringHash)).toEqual(["dt", "d", "t", "ts3", "ts6", "l"]);
  });

  it("matches a literal bucket-list model (resizes, collisions, repeated keys) while no bin becomes a tree", () => {
    // tree bins: test/interop/java-hashmap-interop.test.ts checks them against the JVM
    const key = fc.oneof(fc.integer({ min: -50, max: 300 }), fc.integer().map((v) => v * 64), fc.integer());
    fc.assert(
      fc.property(fc.array(key, { maxLength: 400 }), fc.constantFrom<JavaInsertion>("put", "computeIfAbsent"), (keys, insertion) => {
        const map = new JavaHashMapReplay<number>(insertion, (k) => k, (a, b) => a - b);
        for (const k of keys) map.insert(k);
        fc.pre(!map.hadTreeBin);
        expect(map.keysInOrder()).toEqual(referenceHashMapOrder(keys, insertion));
      }),
      { numRuns: 300 },
    );
  });
});
