/**
 * `theta_sketch` (FieldThetaSketchAgg) and `hll_sketch` (FieldHllSketchAgg) tables with Java
 * Paimon 1.4.2: sketches Java builds
 * (Paimon's ThetaSketch.sketchOf and DataSketches builders: empty, single-item, exact, estimation
 * mode, p < 1, other nominal entries, compressed) written by Java and by paimon-rt in the same
 * commits; each reads every table merge-on-read, fully compacted and continued from the other
 * side, with deletion vectors (lookup compaction) too; every read's bytes are Java's, and equal the
 * fold of Java's own ThetaSketch.union. Retractions with ignore-retract are skipped by both.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { describe, expect, it } from "vitest";
import type { FieldLike } from "./convert.js";
import type { KindRow } from "./rt-commit.js";
import { aggregateBothWays } from "./aggregate-both-ways.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, javaSketchesByName, javaSketchFold, runSketchOps } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping sketch aggregate interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-sketch-aggregates-interop-");

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "s", type: "BYTES" },
  { name: "r", type: "VARBINARY(100000)" },
];
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const theta = (values: number[], more: Record<string, unknown> = {}) => ({ op: "theta", values, k: 4096, p: 1, family: "QUICKSELECT", form: "ordered", ...more });

/** Java's sketches, base64, by name. */
async function javaSketches(): Promise<Record<string, string>> {
  const specs: Record<string, object> = {
    empty: { op: "theta-of", values: [] },
    one: { op: "theta-of", values: [7] },
    small: { op: "theta-of", values: [1, 2, 3, 7] },
    other: { op: "theta-of", values: [3, 4, 5] },
    nearK: theta(range(0, 4000)),
    overK: theta(range(2000, 6000)),
    big: theta(range(-5000, 20000), { k: 16384, form: "unordered" }),
    sampled: theta(range(100, 3000), { p: 0.5 }),
    compressed: theta(range(500, 5000), { form: "compressed" }),
    k64: theta(range(0, 1000), { k: 64 }),
  };
  return javaSketchesByName(specs);
}

/** Java's own fold (ThetaSketch.union / HllSketchUtil.union left to right) of sketches, base64. */
async function javaFold(items: string[], op = "theta-fold"): Promise<string> {
  return javaSketchFold(op, items);
}

describe.skipIf(noJava !== null)("theta_sketch aggregation with Java", () => {
  it(
    "merge-on-read, compacted and continued both ways: Java's bytes, retractions ignored with ignore-retract",
    async () => {
      const k = await javaSketches();
      const options = {
        bucket: "1",
        "merge-engine": "aggregation",
        "fields.s.aggregate-function": "theta_sketch",
        "fields.s.ignore-retract": "true",
        "fields.r.aggregate-function": "theta_sketch",
        "fields.r.ignore-retract": "true",
      };
      const commits: KindRow[][] = [
        [
          { id: 1, s: k.small, r: k.nearK },
          { id: 2, s: k.one, r: null },
          { id: 3, s: k.empty, r: k.k64 },
          { id: 4, s: k.sampled, r: k.compressed },
        ],
        [
          { id: 1, s: k.other, r: k.overK },
          { id: 2, s: k.empty, r: k.one },
          { id: 3, s: k.big, r: k.sampled },
          { _kind: "-U", id: 4, s: k.small, r: k.small },
          { _kind: "+U", id: 4, s: k.overK, r: k.empty },
        ],
        [
          { id: 1, s: k.compressed, r: k.big },
          { id: 3, s: k.one, r: null },
          { id: 5, s: k.nearK, r: k.empty },
        ],
      ];
      const expected = await aggregateBothWays(tempDir, FIELDS, options, commits, 1);
      expect(expected).toEqual([
        { id: 1, s: await javaFold([k.small, k.other, k.compressed]), r: await javaFold([k.nearK, k.overK, k.big]) },
        { id: 2, s: await javaFold([k.one, k.empty]), r: k.one },
        { id: 3, s: await javaFold([k.empty, k.big, k.one]), r: await javaFold([k.k64, k.sampled]) },
        { id: 4, s: await javaFold([k.sampled, k.overK]), r: await javaFold([k.compressed, k.empty]) },
        { id: 5, s: k.nearK, r: k.empty },
      ]);
    },
    SLOW,
  );

  it(
    "with deletion vectors (lookup compaction): Java's bytes both ways",
    async () => {
      const k = await javaSketches();
      const options = { bucket: "1", "merge-engine": "aggregation", "deletion-vectors.enabled": "true", "fields.s.aggregate-function": "theta_sketch", "fields.r.aggregate-function": "theta_sketch" };
      const commits: KindRow[][] = [
        [
          { id: 1, s: k.nearK, r: k.one },
          { id: 2, s: k.small, r: null },
        ],
        [
          { id: 1, s: k.overK, r: k.sampled },
          { id: 3, s: k.big, r: k.compressed },
        ],
        [{ id: 2, s: k.k64, r: k.empty }],
      ];
      const expected = await aggregateBothWays(tempDir, FIELDS, options, commits, 2);
      expect(expected).toEqual([
        { id: 1, s: await javaFold([k.nearK, k.overK]), r: await javaFold([k.one, k.sampled]) },
        { id: 2, s: await javaFold([k.small, k.k64]), r: k.empty },
        { id: 3, s: k.big, r: k.compressed },
      ]);
    },
    SLOW,
  );

  it(
    "hll_sketch in LIST, SET and HLL mode (HLL_4, HLL_6, HLL_8 inputs, lgK 10, 12 and 14), with and without deletion vectors: Java's bytes both ways",
    async () => {
      const hll = (values: number[], lgK = 12, type = "HLL_4", updatable = false) => ({ op: "hll", values, lgK, type, updatable });
      const specs: Record<string, object> = {
        empty: { op: "hll-of", values: [] },
        small: { op: "hll-of", values: [1, 2, 3] },
        list6: hll([5, 6, 7, 8, 9], 12, "HLL_6"),
        set8: hll(range(0, 40), 12, "HLL_8", true),
        set: hll(range(30, 150)),
        lg10: hll(range(100, 30), 10),
        hll4: hll(range(0, 5000)),
        hll6: hll(range(3000, 9000), 10, "HLL_6"),
        hll8: hll(range(-20000, 30000), 14, "HLL_8", true),
      };
      const names = Object.keys(specs);
      const built = await runSketchOps(names.map((n) => specs[n]!));
      const k = Object.fromEntries(names.map((n, i) => [n, built[i]!.ok ? Buffer.from(built[i]!.bytes).toString("base64") : ""]));
      expect(built.every((r) => r.ok)).toBe(true);
      for (const dv of [false, true]) {
        const options: Record<string, string> = { bucket: "1", "merge-engine": "aggregation", "fields.s.aggregate-function": "hll_sketch", "fields.r.aggregate-function": "hll_sketch" };
        if (dv) options["deletion-vectors.enabled"] = "true";
        const commits: KindRow[][] = [
          [
            { id: 1, s: k.small, r: k.set8 },
            { id: 2, s: k.empty, r: null },
          ],
          [
            { id: 1, s: k.list6, r: k.lg10 },
            { id: 2, s: k.set, r: k.small },
            { id: 3, s: k.lg10, r: k.set },
          ],
          [
            { id: 1, s: k.set8, r: k.empty },
            { id: 4, s: k.hll4, r: k.small },
          ],
          [
            { id: 4, s: k.hll8, r: k.hll6 },
            { id: 3, s: k.hll6, r: k.hll4 },
          ],
          [{ id: 4, s: k.set, r: k.hll8 }],
        ];
        const expected = await aggregateBothWays(tempDir, FIELDS, options, commits, 1);
        expect(expected, dv ? "with deletion vectors" : "").toEqual([
          { id: 1, s: await javaFold([k.small!, k.list6!, k.set8!], "hll-fold"), r: await javaFold([k.set8!, k.lg10!, k.empty!], "hll-fold") },
          { id: 2, s: await javaFold([k.empty!, k.set!], "hll-fold"), r: k.small },
          { id: 3, s: await javaFold([k.lg10!, k.hll6!], "hll-fold"), r: await javaFold([k.set!, k.hll4!], "hll-fold") },
          { id: 4, s: await javaFold([k.hll4!, k.hll8!, k.set!], "hll-fold"), r: await javaFold([k.small!, k.hll6!, k.hll8!], "hll-fold") },
        ]);
      }
    },
    SLOW,
  );
});
