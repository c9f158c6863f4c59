/**
 * paimon-rt's HLL sketch union (src/kernel/hll-sketch.ts) against Java Paimon 1.4.2's
 * `HllSketchUtil.union` (DataSketches 4.2.0, as Paimon shades it), byte for byte: random sketches
 * built by Java in LIST, SET and HLL mode (lgK 4..21, HLL_4 / HLL_6 / HLL_8, compact and
 * updatable images, Paimon's sketchOf), folded as FieldHllSketchAgg folds a key's values — every
 * intermediate result is Java's serialized HLL_4 union, so its exception tables, HIP accumulators
 * and kxq sums are read back too. All cases of a run go to one JVM call. Skips with a printed reason when
 * scripts/setup-oracles.sh has not been run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hllSketchUnion } from "../../src/kernel/hll-sketch.js";
import { javaOracleUnavailable, runSketchOps } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping HLL sketch interop: ${noJava}`);
const SLOW = 600_000;
const WHERE = "column h";

const sketchSpec = fc
  .record({
    n: fc.oneof(fc.constantFrom(0, 1, 7, 8), fc.integer({ min: 2, max: 30 }), fc.integer({ min: 30, max: 400 }), fc.integer({ min: 400, max: 5000 }), fc.integer({ min: 5000, max: 40000 })),
    start: fc.integer({ min: -500, max: 500 }),
    step: fc.constantFrom(1, 1, 3),
    lgK: fc.oneof(fc.constant(12), fc.constant(12), fc.integer({ min: 4, max: 21 })),
    type: fc.constantFrom("HLL_4", "HLL_6", "HLL_8"),
    updatable: fc.boolean(),
  })
  .map(({ n, start, step, lgK, type, updatable }) => ({ op: "hll", values: Array.from({ length: n }, (_, i) => start + i * step), lgK, type, updatable }));

/**
 * Fixed folds that reach each mode whatever the random draw gives, so the coverage counts below
 * do not depend on the seed: 22 that stay in LIST / SET mode, 22 that end in HLL mode, and two
 * HLL_4 folds with 16 registers over 40 000 values, whose register spread needs exceptions.
 */
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const TYPES = ["HLL_4", "HLL_6", "HLL_8"];
const FIXED_FOLDS = [
  ...range(0, 22).map((k) => [
    { op: "hll", values: range(k, 10 + k), lgK: 12, type: TYPES[k % 3]!, updatable: k % 2 === 0 },
    { op: "hll", values: range(100 + k, 20), lgK: 12, type: TYPES[(k + 1) % 3]!, updatable: k % 2 === 1 },
  ]),
  ...range(0, 22).map((k) => [
    { op: "hll", values: range(k * 1000, 5000), lgK: 10, type: TYPES[k % 3]!, updatable: k % 2 === 0 },
    { op: "hll", values: range(-k * 700, 3000), lgK: 11, type: "HLL_4", updatable: k % 2 === 1 },
  ]),
  [
    { op: "hll", values: range(0, 40_000), lgK: 4, type: "HLL_4", updatable: false },
    { op: "hll", values: range(40_000, 40_000), lgK: 4, type: "HLL_4", updatable: true },
  ],
  [
    { op: "hll", values: range(-90_000, 40_000), lgK: 4, type: "HLL_4", updatable: true },
    { op: "hll", values: range(7, 400), lgK: 12, type: "HLL_8", updatable: false },
  ],
];

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const fold = (items: readonly Uint8Array[]) => items.reduce((acc, x) => hllSketchUnion(acc, x, WHERE));
const isHllMode = (b: Uint8Array) => (b[7]! & 3) === 2;

describe.skipIf(noJava !== null)("HLL sketch union with Java", () => {
  it(
    "random folds of 2-4 sketches (and fixed ones reaching every mode): paimon-rt's bytes are Java's",
    async () => {
      const seed = Date.now() % 1_000_000;
      const cases = [...fc.sample(fc.array(sketchSpec, { minLength: 2, maxLength: 4 }), { numRuns: 150, seed }), ...FIXED_FOLDS];
      const specs = [...cases.flat(), { op: "hll-of", values: [1, 2, 3] }, { op: "hll-of", values: [] }];
      const built = await runSketchOps(specs);
      const sketches = built.map((r, i) => {
        if (!r.ok) throw new Error(`Java could not build ${JSON.stringify(specs[i])}: ${r.error}`);
        return r.bytes;
      });
      const inputs: Uint8Array[][] = [];
      let at = 0;
      for (const c of cases) {
        inputs.push(sketches.slice(at, at + c.length));
        at += c.length;
      }
      const paimonOf = sketches.slice(at);
      inputs.push([paimonOf[0]!, paimonOf[1]!], [paimonOf[1]!, paimonOf[0]!, paimonOf[0]!]);
      // (Java folds through its intermediate results; a fold reaching HLL mode midway is refused)
      const javaFolds = await runSketchOps(inputs.flatMap((items) => items.slice(1).map((_, j) => ({ op: "hll-fold", items: items.slice(0, j + 2).map(b64) }))));
      let hllMode = 0;
      let couponMode = 0;
      let withExceptions = 0;
      let j = 0;
      for (const [i, items] of inputs.entries()) {
        const steps = javaFolds.slice(j, j + items.length - 1);
        j += items.length - 1;
        const what = `seed ${seed} case ${i}: ${JSON.stringify(items.map((b) => b64(b).slice(0, 24)))}`;
        for (const s of steps) if (!s.ok) throw new Error(`${what}: Java failed: ${s.error}`);
        let ours: string;
        try {
          ours = b64(fold(items));
        } catch (e) {
          ours = String(e);
        }
        const last = steps[steps.length - 1]!;
        expect(ours, what).toBe(last.ok ? b64(last.bytes) : "");
        if (!last.ok || !isHllMode(last.bytes)) couponMode++;
        else {
          hllMode++;
          if (new DataView(last.bytes.buffer, last.bytes.byteOffset).getInt32(36, true) > 0) withExceptions++;
        }
      }
      console.log(`HLL folds: ${hllMode} in HLL mode, ${couponMode} in LIST / SET mode, ${withExceptions} with HLL_4 exceptions (seed ${seed})`);
      expect(hllMode).toBeGreaterThan(20);
      expect(couponMode).toBeGreaterThan(20);
      expect(withExceptions).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    "malformed images: Java fails and paimon-rt refuses with CORRUPT_FILE naming the column",
    async () => {
      const built = await runSketchOps([
        { op: "hll", values: Array.from({ length: 3000 }, (_, i) => i), lgK: 10, type: "HLL_4", updatable: false },
        { op: "hll-of", values: [1, 2, 3] },
      ]);
      const [hll4, list] = built.map((r) => (r.ok ? r.bytes : new Uint8Array(0)));
      const patched = (base: Uint8Array, at: number, bytes: number[]) => {
        const c = Uint8Array.from(base);
        c.set(bytes, at);
        return c;
      };
      const cases: Array<{ name: string; bytes: Uint8Array; message: RegExp }> = [
        { name: "family 3", bytes: patched(list!, 2, [3]), message: /Invalid Preamble/ },
        { name: "serial version 2", bytes: patched(list!, 1, [2]), message: /Invalid Preamble/ },
        { name: "LIST mode with HLL preamble ints", bytes: patched(list!, 0, [10]), message: /truncated preamble|Invalid Preamble/ },
        { name: "lgK 25", bytes: patched(hll4!, 3, [25]), message: /Log K must be between 4 and 21/ },
        { name: "exception slot missing", bytes: patched(hll4!, 40, [0xff]), message: /SlotNo not found/ },
      ];
      const java = await runSketchOps(cases.map((c) => ({ op: "hll-fold", items: [b64(list!), b64(c.bytes)] })));
      for (const [i, c] of cases.entries()) {
        expect(java[i]!.ok, `${c.name}: Java ${java[i]!.ok ? "succeeded" : "failed"}`).toBe(false);
        expect(() => hllSketchUnion(list!, c.bytes, WHERE), c.name).toThrow(c.message);
        try {
          hllSketchUnion(list!, c.bytes, WHERE);
        } catch (e) {
          expect(e, c.name).toMatchObject({ code: "CORRUPT_FILE", message: expect.stringContaining(`${WHERE}: HLL sketch image (input)`) });
        }
      }
    },
    SLOW,
  );
});
