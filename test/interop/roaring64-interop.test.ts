/**
 * paimon-rt's Roaring64Bitmap union (src/kernel/roaring64.ts) against Java Paimon 1.4.2's
 * `FieldRoaringBitmap64Agg` (RoaringBitmap 1.2.1 as Paimon shades it), byte for byte: random
 * bitmaps built by Java (Roaring64Bitmap fed values, strides and ranges in a random order, so the
 * ART's node shapes, spare key bytes and container slots vary; run-optimized as Paimon's
 * RoaringBitmap64.serialize, or raw), over high keys near 0, near 2^47 and near 2^48 - 1 (negative
 * longs, unsigned order), sparse, dense and run containers, empty bitmaps, and enough keys under
 * one node to grow it Node4 → Node16 → Node48 → Node256; folded left to right as a merge folds a
 * key's values. All cases of a run go to one JVM call per step.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { roaring64Or } from "../../src/kernel/roaring64.js";
import { javaOracleUnavailable, javaSketchFold, runSketchOps } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping Roaring64Bitmap interop: ${noJava}`);
const SLOW = 600_000;

/** An addLong (a string) or addRange(start, end) (two strings) of Java's Roaring64Bitmap, signed longs. */
type Add = string | [string, string];
interface BitmapSpec {
  op: "rbm64";
  adds: Add[];
  raw: boolean;
}

const signed = (v: bigint) => BigInt.asIntN(64, v).toString();
const BASES = [0n, 0x1_0000n, 0x7fff_ffff_ff00n, 0x8000_0000_0000n, 0xffff_ffff_ff00n];
/** A 48-bit high key: a base plus an offset varying its low byte, its second-lowest byte, or anything. */
const high = fc
  .tuple(fc.constantFrom(...BASES), fc.oneof(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 5 }).map((k) => k * 256 + 3), fc.integer({ min: 0, max: 2 ** 30 })))
  .map(([base, offset]) => (base + BigInt(offset)) & 0xffff_ffff_ffffn);
const low = fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.constantFrom(0, 1, 65535, 32768));

const add: fc.Arbitrary<Add[]> = fc.oneof(
  // single values
  fc.array(fc.tuple(high, low), { minLength: 1, maxLength: 5 }).map((vs) => vs.map(([h, l]) => signed((h << 16n) | BigInt(l)))),
  // a stride in one or two containers: sparse arrays, or dense bitmaps past 4096 values
  fc.record({ h: high, l: low, count: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 3000, max: 6000 })), step: fc.constantFrom(1, 2, 3, 5) }).map(({ h, l, count, step }) => {
    const start = (h << 16n) | BigInt(l);
    return Array.from({ length: count }, (_, i) => signed((start + BigInt(i * step)) & 0xffff_ffff_ffff_ffffn));
  }),
  // a range: run containers, full containers
  fc.record({ h: high, l: low, length: fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 60000, max: 200000 })) }).map(({ h, l, length }) => {
    const start = (h << 16n) | BigInt(l);
    const end = start + BigInt(length);
    return end > 0xffff_ffff_ffff_ffffn ? [] : [[signed(start), signed(end)] as [string, string]];
  }),
  // one value in each of many consecutive (or spaced) high keys: wide nodes
  fc.record({ h: high, keys: fc.integer({ min: 1, max: 80 }), step: fc.constantFrom(1, 1, 3, 256), l: low, down: fc.boolean() }).map(({ h, keys, step, l, down }) => {
    const vs = Array.from({ length: keys }, (_, i) => signed((((h + BigInt(i * step)) & 0xffff_ffff_ffffn) << 16n) | BigInt(l)));
    return down ? vs.reverse() : vs;
  }),
);

const bitmapSpec: fc.Arbitrary<BitmapSpec> = fc.record({
  op: fc.constant("rbm64" as const),
  adds: fc.array(add, { maxLength: 6 }).map((a) => a.flat()),
  raw: fc.boolean(),
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

async function javaBitmaps(specs: readonly BitmapSpec[]): Promise<Uint8Array[]> {
  const built = await runSketchOps(specs);
  return built.map((r, i) => {
    if (!r.ok) throw new Error(`Java could not build ${JSON.stringify(specs[i]).slice(0, 300)}: ${r.error}`);
    return r.bytes;
  });
}

/** The fold of Java's bitmaps of `specs` by paimon-rt and by Java's FieldRoaringBitmap64Agg, base64. */
async function bothFolds(specs: readonly BitmapSpec[]): Promise<[string, string]> {
  const items = await javaBitmaps(specs);
  return [b64(items.reduce((acc, x) => roaring64Or(acc, x, "column b"))), await javaSketchFold("rbm64-fold", items.map(b64))];
}

const keys = (from: number, to: number, step = 1, base = 0x0102_0304_0500n) =>
  Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => signed(((base + BigInt(from + i * step)) << 16n) | 9n));
const bitmap = (adds: Add[], raw = false): BitmapSpec => ({ op: "rbm64", adds, raw });

describe.skipIf(noJava !== null)("Roaring64Bitmap union with Java", () => {
  it(
    "node growth in a union: Node4 → Node16 → Node48 → Node256 one key at a time, and a Node48 bitmap unioned into a Node256",
    async () => {
      const order = Array.from({ length: 256 }, (_, i) => (i * 37) % 256);
      const [ours, java] = await bothFolds(order.map((k) => bitmap(keys(k, k + 1))));
      expect(ours).toBe(java);
      const [ours2, java2] = await bothFolds([bitmap(keys(0, 40)), bitmap(keys(40, 100).reverse()), bitmap(keys(100, 256, 3))]);
      expect(ours2).toBe(java2);
    },
    SLOW,
  );

  it(
    "container kinds: array with array past 4096, bitmap with array / run / bitmap, full containers, negative longs",
    async () => {
      const h = (hi: bigint, lo: number) => signed((hi << 16n) | BigInt(lo));
      const stride = (hi: bigint, from: number, n: number, step: number) => Array.from({ length: n }, (_, i) => h(hi, from + i * step));
      const neg = 0xffff_ffff_fffen;
      const cases: BitmapSpec[][] = [
        [bitmap(stride(1n, 0, 3000, 2)), bitmap(stride(1n, 1, 3000, 2))],
        [bitmap(stride(1n, 0, 3000, 2)), bitmap(stride(1n, 0, 1500, 4))],
        [bitmap(stride(neg, 0, 5000, 3), true), bitmap(stride(neg, 1, 100, 7))],
        [bitmap(stride(neg, 0, 5000, 3)), bitmap([[h(neg, 0), h(neg, 30000)]])],
        [bitmap([[h(neg, 0), h(neg + 1n, 0)]]), bitmap(stride(neg, 5, 10, 1))],
        [bitmap(stride(7n, 0, 32768, 2), true), bitmap(stride(7n, 1, 32768, 2), true)],
        [bitmap(stride(7n, 0, 32768, 2)), bitmap(stride(7n, 1, 32768, 2))],
        [bitmap(stride(7n, 1, 4000, 1)), bitmap(stride(7n, 0, 1, 1))],
        [bitmap([[h(0xffff_ffff_ffffn, 0), "-1"]]), bitmap(["-1", "0", h(0x8000_0000_0000n, 3)])],
        [bitmap([]), bitmap([], true)],
      ];
      for (const [i, specs] of cases.entries()) {
        const [ours, java] = await bothFolds(specs);
        expect(ours, `case ${i}`).toBe(java);
      }
    },
    SLOW,
  );

  for (const seed of (process.env.RBM64_SEEDS ?? "1,2,3").split(",").map(Number)) {
    it(
      `random folds of 2-4 bitmaps (seed ${seed}): paimon-rt's bytes are Java's`,
      async () => {
        const cases = fc.sample(fc.array(bitmapSpec, { minLength: 2, maxLength: 4 }), { numRuns: 60, seed });
        const bitmaps = await javaBitmaps(cases.flat());
        const inputs: Uint8Array[][] = [];
        let at = 0;
        for (const c of cases) {
          inputs.push(bitmaps.slice(at, at + c.length));
          at += c.length;
        }
        const javaFolds = await runSketchOps(inputs.map((items) => ({ op: "rbm64-fold", items: items.map(b64) })));
        for (const [i, items] of inputs.entries()) {
          const java = javaFolds[i]!;
          if (!java.ok) throw new Error(`case ${i}: Java failed: ${java.error}`);
          const ours = items.reduce((acc, x) => roaring64Or(acc, x, "column b"));
          expect(b64(ours), `seed ${seed} case ${i}: ${JSON.stringify(cases[i]!.map((s) => ({ raw: s.raw, adds: s.adds.length, first: s.adds[0] })))}`).toBe(b64(java.bytes));
        }
      },
      SLOW,
    );
  }
});
