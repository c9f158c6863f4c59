/**
 * paimon-rt's theta sketch union (src/kernel/theta-sketch.ts) against Java Paimon 1.4.2's
 * `ThetaSketch.union` (DataSketches 4.2.0, as Paimon shades it), byte for byte: random sketches
 * built by Java (sizes around the union's k = 4096 and beyond, other nominal entries, sampling
 * probability p < 1, empty and single-item sketches, compact ordered / unordered, compressed
 * serial version 4, hash-table images of QuickSelect and Alpha update sketches) folded as
 * FieldThetaSketchAgg folds a key's values; and malformed images, which Java and paimon-rt both
 * refuse (or, shorter than 16 bytes, both ignore). All cases of a run go to one JVM call.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { thetaSketchUnion } from "../../src/kernel/theta-sketch.js";
import { javaOracleUnavailable, runSketchOps } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping theta sketch interop: ${noJava}`);
const SLOW = 600_000;
const WHERE = "column s";

interface SketchSpec {
  op: "theta";
  values: number[];
  k: number;
  p: number;
  family: "QUICKSELECT" | "ALPHA";
  form: "ordered" | "unordered" | "compressed" | "update";
}

/** Values start..start+n*step: overlapping ranges give unions with shared hashes. */
const sketchSpec: fc.Arbitrary<SketchSpec> = fc
  .record({
    n: fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 3, max: 300 }), fc.integer({ min: 3900, max: 4300 }), fc.integer({ min: 7000, max: 9000 })),
    start: fc.integer({ min: -3000, max: 6000 }),
    step: fc.constantFrom(1, 1, 2, 3),
    k: fc.constantFrom(4096, 4096, 4096, 16, 512, 8192),
    p: fc.constantFrom(1, 1, 1, 0.5),
    alpha: fc.boolean(),
    form: fc.constantFrom("ordered", "ordered", "unordered", "compressed", "update"),
  })
  .map(({ n, start, step, k, p, alpha, form }) => ({
    op: "theta" as const,
    values: Array.from({ length: n }, (_, i) => start + i * step),
    k,
    p,
    family: alpha && k >= 512 ? "ALPHA" : "QUICKSELECT",
    form: form as SketchSpec["form"],
  }));

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const fold = (items: readonly Uint8Array[]) => items.reduce((acc, x) => thetaSketchUnion(acc, x, WHERE));

describe.skipIf(noJava !== null)("theta sketch union with Java", () => {
  it(
    "random folds of 2-4 sketches: paimon-rt's bytes are Java's",
    async () => {
      const seed = Date.now() % 1_000_000;
      const cases = fc.sample(fc.array(sketchSpec, { minLength: 2, maxLength: 4 }), { numRuns: 120, seed });
      const specs = cases.flat();
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
      const javaFolds = await runSketchOps(inputs.map((items) => ({ op: "theta-fold", items: items.map(b64) })));
      let estimation = 0;
      for (const [i, items] of inputs.entries()) {
        const java = javaFolds[i]!;
        if (!java.ok) throw new Error(`seed ${seed} case ${i}: Java failed: ${java.error}`);
        expect(b64(fold(items)), `seed ${seed} case ${i}: ${JSON.stringify(cases[i]!.map((s) => ({ ...s, values: `${s.values.length} from ${s.values[0]}` })))}`).toBe(b64(java.bytes));
        if (java.bytes[0] === 3) estimation++;
      }
      // the draw reaches estimation mode (theta < 1.0) in some cases
      expect(estimation).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    "fixed cases: empty, single-item (Paimon's sketchOf), exactly k and k+1 distinct hashes, p < 1 with nothing retained, chains of results",
    async () => {
      const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
      const specs: object[] = [
        { op: "theta-of", values: [] },
        { op: "theta-of", values: [7] },
        { op: "theta-of", values: [1, 2, 3] },
        { op: "theta", values: range(0, 4096), k: 8192, p: 1, family: "QUICKSELECT", form: "ordered" },
        { op: "theta", values: [4096], k: 4096, p: 1, family: "QUICKSELECT", form: "ordered" },
        { op: "theta", values: range(10, 3), k: 4096, p: 0.01, family: "QUICKSELECT", form: "ordered" },
        { op: "theta", values: range(0, 20000), k: 16384, p: 1, family: "QUICKSELECT", form: "unordered" },
        { op: "theta", values: [5], k: 4096, p: 1, family: "QUICKSELECT", form: "update" },
      ];
      const built = await runSketchOps(specs);
      const s = built.map((r) => (r.ok ? r.bytes : new Uint8Array(0)));
      expect(built.every((r) => r.ok)).toBe(true);
      expect(s[0]!.length, "Java's empty sketch").toBe(8);
      expect(s[1]!.length, "Java's single-item sketch").toBe(16);
      const folds = [[0, 0], [0, 1], [1, 1], [1, 2], [0, 2], [3, 4], [4, 3], [3, 1, 4], [5, 2], [2, 5], [5, 0], [6, 3], [3, 6, 5, 1], [7, 2], [7, 0], [0, 7]];
      const java = await runSketchOps(folds.map((f) => ({ op: "theta-fold", items: f.map((i) => b64(s[i]!)) })));
      for (const [i, f] of folds.entries()) {
        const j = java[i]!;
        expect(j.ok, `fold ${f}`).toBe(true);
        if (j.ok) expect(b64(fold(f.map((x) => s[x]!))), `fold ${f}`).toBe(b64(j.bytes));
      }
      // results of unions unioned again, as a compaction does with merged files
      const once = fold([s[3]!, s[4]!]);
      const twice = await runSketchOps([{ op: "theta-union", a: b64(once), b: b64(s[6]!) }]);
      expect(twice[0]!.ok && b64(twice[0]!.bytes)).toBe(b64(thetaSketchUnion(once, s[6]!, WHERE)));
    },
    SLOW,
  );

  it(
    "malformed images: paimon-rt refuses with a PaimonError naming the column; shorter than 16 bytes both ignore",
    async () => {
      const built = await runSketchOps([
        { op: "theta-of", values: [1, 2, 3] },
        { op: "theta", values: [1, 2, 3, 4, 5], k: 4096, p: 0.5, family: "QUICKSELECT", form: "ordered" },
      ]);
      const good = built[0]!.ok ? built[0]!.bytes : new Uint8Array(0);
      const withTheta = built[1]!.ok ? built[1]!.bytes : new Uint8Array(0);
      const patched = (base: Uint8Array, at: number, bytes: number[]) => {
        const c = Uint8Array.from(base);
        c.set(bytes, at);
        return c;
      };
      // javaFails: false where Java does not notice: it reads past the end of a truncated image
      // (datasketches-memory checks bounds only with assertions on: the result holds heap garbage),
      // folds a serial version 2 image, or stops at an unspecified point of unsorted "ordered" hashes
      const cases: Array<{ name: string; bytes: Uint8Array; code: string | null; message?: RegExp; javaFails?: boolean }> = [
        { name: "8 bytes of garbage", bytes: Uint8Array.of(9, 9, 9, 9, 9, 9, 9, 9), code: null },
        { name: "15 bytes", bytes: good.subarray(0, 15), code: null },
        { name: "truncated", bytes: good.subarray(0, 24), code: "CORRUPT_FILE", message: /column s: theta sketch image of 24 bytes: truncated/ },
        { name: "serial version 7", bytes: patched(good, 1, [7]), code: "CORRUPT_FILE", message: /SerVer is unknown: 7/, javaFails: true },
        { name: "family 4 (union)", bytes: patched(good, 2, [4]), code: "CORRUPT_FILE", message: /Family must be/, javaFails: true },
        { name: "other seed", bytes: patched(good, 6, [1, 2]), code: "INVALID_ARGUMENT", message: /Incompatible Seed Hashes/, javaFails: true },
        { name: "serial version 2", bytes: patched(good, 1, [2]), code: "UNSUPPORTED", message: /serial version 2/ },
        { name: "negative hash", bytes: patched(good, 16, [0, 0, 0, 0, 0, 0, 0, 0x80]), code: "CORRUPT_FILE", message: /negative hash/, javaFails: true },
        { name: "hashes not ascending", bytes: patched(good, 16, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), code: "CORRUPT_FILE", message: /not ascending/ },
        { name: "theta image truncated", bytes: withTheta.subarray(0, 20), code: "CORRUPT_FILE", message: /truncated/ },
      ];
      const java = await runSketchOps(cases.map((c) => ({ op: "theta-union", a: b64(c.bytes), b: b64(good) })));
      for (const [i, c] of cases.entries()) {
        const j = java[i]!;
        if (c.code === null) {
          expect(j.ok, c.name).toBe(true);
          if (j.ok) expect(b64(thetaSketchUnion(c.bytes, good, WHERE)), c.name).toBe(b64(j.bytes));
          continue;
        }
        let error: unknown = null;
        try {
          thetaSketchUnion(c.bytes, good, WHERE);
        } catch (e) {
          error = e;
        }
        expect(error, c.name).toBeInstanceOf(PaimonError);
        expect((error as PaimonError).code, c.name).toBe(c.code);
        expect((error as PaimonError).message, c.name).toMatch(c.message!);
        // Java fails too where it notices (see javaFails)
        if (c.javaFails) expect(j.ok, `${c.name}: ${j.ok ? "Java succeeded" : j.error}`).toBe(false);
      }
    },
    SLOW,
  );
});
