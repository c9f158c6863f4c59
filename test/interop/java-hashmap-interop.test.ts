// java.util.HashMap iteration order replayed (src/fileindex/java-order.ts) against the JVM itself:
// random put / computeIfAbsent / remove sequences over the boxed key classes Paimon puts in its maps,
// drawn so that buckets overflow into tree bins (keys of equal low hash bits) and tree bins meet
// keys of equal hash codes (ordered by compareTo). The oracle's `hashmap` command runs every case
// in one JVM and returns the order Java iterates.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codecOf } from "../../src/fileindex/bitmap-index.js";
import { JavaHashMapReplay, type JavaInsertion } from "../../src/fileindex/java-order.js";
import { javaBigDecimalHash, javaStringCompare, javaStringHash, paimonTimestampHash } from "../../src/fileindex/java-hash.js";
import { DataTypes } from "../../src/spec/types.js";
import { type HashMapCase, javaOracleUnavailable, runHashMapCases } from "./oracle/harness.js";
import { runs } from "../support/fc-runs.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping Java HashMap interop: ${noJava}`);

/** One key type: how a canonical key string becomes our key, its Java hashCode and compareTo. */
interface KeyKind<K> {
  type: string;
  key: fc.Arbitrary<string>;
  parse(s: string): K;
  hash(k: K): number;
  compare(a: K, b: K): number;
}

const codec = (kind: Parameters<typeof codecOf>[0]) => codecOf(kind);
const int = codec(DataTypes.INT());
const long = codec(DataTypes.BIGINT());
const float = codec(DataTypes.FLOAT());
const double = codec(DataTypes.DOUBLE());
const string = codec(DataTypes.STRING());
const floatBits = (v: number) => {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, v);
  return view.getInt32(0);
};
const doubleBits = (v: number) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigInt64(0);
};

const KINDS: Array<KeyKind<unknown>> = [
  // multiples of 64 share the low bits of a 64+-slot table: tree bins, never equal hash codes
  { type: "INT", key: fc.integer({ min: -300, max: 300 }).map((v) => String(v * 64)), parse: Number, hash: (k) => int.hash(k as number), compare: (a, b) => int.compare(a as number, b as number) },
  // (a << 32) | b hashes to a ^ b: equal hash codes with different values; multiples of 2^40 pile up in bucket 0
  {
    type: "BIGINT",
    key: fc.oneof(
      fc.tuple(fc.integer({ min: -40, max: 40 }), fc.integer({ min: 0, max: 3 })).map(([a, x]) => String((BigInt(a) << 32n) | BigInt((a ^ x) >>> 0))),
      fc.integer({ min: -100, max: 100 }).map((v) => String(BigInt(v) << 40n)),
    ),
    parse: BigInt,
    hash: (k) => long.hash(k as bigint),
    compare: (a, b) => long.compare(a as bigint, b as bigint),
  },
  // round values: the set bits of their patterns sit in the high half
  { type: "FLOAT", key: fc.integer({ min: -400, max: 400 }).map((v) => String(floatBits(v / 2))), parse: Number, hash: (k) => float.hash(k as number), compare: (a, b) => float.compare(a as number, b as number) },
  { type: "DOUBLE", key: fc.integer({ min: -400, max: 400 }).map((v) => String(doubleBits(v / 4))), parse: BigInt, hash: (k) => double.hash(k as bigint), compare: (a, b) => double.compare(a as bigint, b as bigint) },
  // "Aa" and "BB" have equal String hash codes: every string of 4 such blocks has the same hash
  {
    type: "JSTRING",
    key: fc.oneof(fc.array(fc.constantFrom("Aa", "BB"), { minLength: 4, maxLength: 4 }).map((p) => p.join("")), fc.string({ maxLength: 3 })),
    parse: String,
    hash: (k) => javaStringHash(k as string),
    compare: (a, b) => javaStringCompare(a as string, b as string),
  },
  { type: "STRING", key: fc.string({ maxLength: 4 }), parse: String, hash: (k) => string.hash(k as string), compare: (a, b) => string.compare(a as string, b as string) },
  // 31 × unscaled + scale: unscaled multiples of 64 pile up
  {
    type: "DECIMAL(10, 2)",
    key: fc.integer({ min: -300, max: 300 }).map((v) => String(v * 64)),
    parse: BigInt,
    hash: (k) => javaBigDecimalHash(k as bigint, 2),
    compare: (a, b) => ((a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0),
  },
  // 31 × (int) millis + nanos: millis m and m + 1 with nanos 31 apart hash alike
  {
    type: "TIMESTAMP",
    key: fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 2 })).map(([m, k]) => `${m * 64 + k}.${(2 - k) * 31}`),
    parse: (s) => s.split(".").map(Number),
    hash: (k) => paimonTimestampHash(BigInt((k as number[])[0]!), (k as number[])[1]!),
    compare: (a, b) => (a as number[])[0]! - (b as number[])[0]! || (a as number[])[1]! - (b as number[])[1]!,
  },
];

/**
 * Our replay of one case: the index of the op that inserted each key, in iteration order, and
 * whether a bin became a tree on the way. Equal key strings give one key object (Java's `equals`).
 */
function replay(kind: KeyKind<unknown>, c: HashMapCase): { order: number[]; trees: boolean } {
  const parsed = new Map<string | null, unknown>();
  const keyOf = (s: string | null) => {
    if (!parsed.has(s)) parsed.set(s, s === null ? null : kind.parse(s));
    return parsed.get(s);
  };
  const map = new JavaHashMapReplay<unknown>(
    c.insertion,
    (k) => (k === null ? 0 : kind.hash(k)),
    // HashMap's tie-break puts the null key before any other
    (a, b) => (a === null ? -1 : b === null ? 1 : kind.compare(a, b)),
  );
  const insertedAt = new Map<number, number>();
  let trees = false;
  c.ops.forEach(([op, s], i) => {
    const key = keyOf(s);
    if (op === "-") map.remove(key);
    else {
      const before = map.size;
      const id = map.insert(key);
      if (map.size > before) insertedAt.set(id, i);
    }
    trees ||= map.hadTreeBin;
  });
  expect(map.unreplayable).toBe(false);
  return { order: Array.from(map.iterationOrder(), (id) => insertedAt.get(id)!), trees };
}

const caseArb = fc.integer({ min: 0, max: KINDS.length - 1 }).chain((k) =>
  fc.record({
    kind: fc.constant(k),
    insertion: fc.constantFrom<JavaInsertion>("put", "computeIfAbsent"),
    ops: fc.array(fc.tuple(fc.constantFrom<"+" | "-">("+", "+", "+", "+", "-"), fc.option(KINDS[k]!.key, { nil: null, freq: 40 })), { minLength: 60, maxLength: 600, size: "max" }),
  }),
);

describe.skipIf(noJava !== null)("Java HashMap iteration order, tree bins included", () => {
  it(
    "random put / computeIfAbsent / remove sequences iterate as in the JVM",
    async () => {
      const seed = Date.now() % 1_000_000;
      const drawn = fc.sample(caseArb, { numRuns: runs(160), seed });
      const cases: HashMapCase[] = drawn.map((d) => ({ type: KINDS[d.kind]!.type, insertion: d.insertion, ops: d.ops }));
      const java = await runHashMapCases(cases);
      let treeCases = 0;
      for (const [i, c] of cases.entries()) {
        const ours = replay(KINDS[drawn[i]!.kind]!, c);
        expect(ours.order, `seed ${seed} case ${i} (${c.type}, ${c.insertion}, ${c.ops.length} ops)`).toEqual(java[i]);
        if (ours.trees) treeCases++;
      }
      // the draw reaches tree bins in a good share of the cases
      expect(treeCases).toBeGreaterThan(cases.length / 4);
    },
    120_000,
  );

  it("a bin of 9+ equal-low-bit keys becomes a tree: fixed cases", async () => {
    const cases: Array<[KeyKind<unknown>, HashMapCase]> = [
      // 80 round floats into a map (the case the 8-collision limit used to refuse)
      [KINDS[2]!, { type: "FLOAT", insertion: "put", ops: Array.from({ length: 80 }, (_, i) => ["+", String(floatBits(i - 40))] as ["+", string]) }],
      // the same keys removed in another order until the tree untreeifies
      [
        KINDS[2]!,
        {
          type: "FLOAT",
          insertion: "put",
          ops: [
            ...Array.from({ length: 80 }, (_, i) => ["+", String(floatBits(i))] as ["+", string]),
            ...Array.from({ length: 70 }, (_, i) => ["-", String(floatBits((i * 37) % 80))] as ["-", string]),
          ],
        },
      ],
      // 12 keys of bucket 0 up to 1024 slots: a tree from the 64-slot table on (test/pk/collection-aggregates.test.ts reads this order)
      [KINDS[0]!, { type: "INT", insertion: "put", ops: Array.from({ length: 12 }, (_, i) => ["+", String(i * 1024)] as ["+", string]) }],
      // 16 strings of one hash code ("Aa" / "BB" blocks): ordered by compareTo in the tree
      [KINDS[4]!, { type: "JSTRING", insertion: "computeIfAbsent", ops: Array.from({ length: 16 }, (_, i) => ["+", Array.from({ length: 4 }, (_, b) => ((i >> b) & 1 ? "BB" : "Aa")).join("")] as ["+", string]) }],
    ];
    const java = await runHashMapCases(cases.map(([, c]) => c));
    expect(java[2]!.map((op) => op * 1024)).toEqual([3072, 0, 1024, 2048, 4096, 5120, 6144, 7168, 8192, 9216, 10240, 11264]);
    cases.forEach(([kind, c], i) => {
      const ours = replay(kind, c);
      expect(ours.trees).toBe(true);
      expect(ours.order).toEqual(java[i]);
    });
  }, 60_000);
});
