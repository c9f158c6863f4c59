/**
 * paimon-rt's HLL sketch union (src/kernel/hll-sketch.ts) against Java Paimon 1.4.2's
 * `HllSketchUtil.union` (DataSketches 4.2.0, as Paimon shades it), byte for byte: random sketches
 * built by Java in LIST and SET mode (lgK 4..21, HLL_4 / HLL_6 / HLL_8, compact and updatable
 * images, Paimon's sketchOf) folded as FieldHllSketchAgg folds a key's values. Where Java's result
 * reaches HLL mode, or an input is in HLL mode, paimon-rt refuses (UNSUPPORTED) and never returns
 * other bytes. All cases of a run go to one JVM call. Skips with a printed reason when
 * scripts/setup-oracles.sh has not been run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { hllSketchUnion } from "../../src/kernel/hll-sketch.js";
import { javaOracleUnavailable, runSketchOps } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping HLL sketch interop: ${noJava}`);
const SLOW = 600_000;
const WHERE = "column h";

const sketchSpec = fc
  .record({
    n: fc.oneof(fc.constantFrom(0, 1, 7, 8), fc.integer({ min: 2, max: 30 }), fc.integer({ min: 30, max: 400 })),
    start: fc.integer({ min: -500, max: 500 }),
    step: fc.constantFrom(1, 1, 3),
    lgK: fc.oneof(fc.constant(12), fc.constant(12), fc.integer({ min: 4, max: 21 })),
    type: fc.constantFrom("HLL_4", "HLL_6", "HLL_8"),
    updatable: fc.boolean(),
  })
  .map(({ n, start, step, lgK, type, updatable }) => ({ op: "hll", values: Array.from({ length: n }, (_, i) => start + i * step), lgK, type, updatable }));

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const fold = (items: readonly Uint8Array[]) => items.reduce((acc, x) => hllSketchUnion(acc, x, WHERE));
const isHllMode = (b: Uint8Array) => (b[7]! & 3) === 2;

describe.skipIf(noJava !== null)("HLL sketch union with Java", () => {
  it(
    "random folds of 2-4 sketches: Java's bytes, or UNSUPPORTED exactly where Java's sketches reach HLL mode",
    async () => {
      const seed = Date.now() % 1_000_000;
      const cases = fc.sample(fc.array(sketchSpec, { minLength: 2, maxLength: 4 }), { numRuns: 150, seed });
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
      let exact = 0;
      let refused = 0;
      let j = 0;
      for (const [i, items] of inputs.entries()) {
        const steps = javaFolds.slice(j, j + items.length - 1);
        j += items.length - 1;
        const what = `seed ${seed} case ${i}: ${JSON.stringify(items.map((b) => b64(b).slice(0, 24)))}`;
        for (const s of steps) if (!s.ok) throw new Error(`${what}: Java failed: ${s.error}`);
        const reachesHll = items.some(isHllMode) || steps.some((s) => s.ok && isHllMode(s.bytes));
        let ours: Uint8Array | PaimonError;
        try {
          ours = fold(items);
        } catch (e) {
          ours = e as PaimonError;
        }
        if (reachesHll) {
          expect(ours, what).toBeInstanceOf(PaimonError);
          expect((ours as PaimonError).code, what).toBe("UNSUPPORTED");
          refused++;
        } else {
          const last = steps[steps.length - 1]!;
          expect(ours instanceof Uint8Array ? b64(ours) : String(ours), what).toBe(last.ok ? b64(last.bytes) : "");
          exact++;
        }
      }
      console.log(`HLL folds: ${exact} exact, ${refused} refused (seed ${seed})`);
      expect(exact).toBeGreaterThan(20);
      expect(refused).toBeGreaterThan(0);
    },
    SLOW,
  );
});
