/**
 * The aggregate functions whose Java results come out of a `java.util.HashMap` / `HashSet`, with
 * Java Paimon 1.4.2: `nested_update` (with and without `nested-key`, `count-limit`),
 * `nested_partial_update`, `merge_map`, `merge_map_with_keytime` and `collect` with `distinct`,
 * including -U / -D retractions and `ignore-retract`. Java and paimon-rt write the same commits
 * (paimon-rt also continues a table Java wrote); each reads every table merge-on-read and after a
 * full compaction, and all reads agree element for element, in Java's order. Skips with a printed
 * reason when scripts/setup-oracles.sh has not been run.
 */
import { describe, expect, it } from "vitest";
import type { FieldLike } from "./convert.js";
import type { KindRow } from "./rt-commit.js";
import { aggregateBothWays } from "./aggregate-both-ways.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping collection aggregate interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-collection-aggregates-interop-");
const bothWays = (fields: FieldLike[], options: Record<string, string>, commits: KindRow[][], javaCommits: number) => aggregateBothWays(tempDir, fields, options, commits, javaCommits);

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe.skipIf(noJava !== null)("collection aggregate functions with Java", () => {
  it(
    "nested_update (keyed, unkeyed with count-limit) and nested_partial_update: Java's HashMap order, retractions, both ways",
    async () => {
      const fields: FieldLike[] = [
        { name: "id", type: "INT NOT NULL" },
        { name: "nu", type: "ARRAY<ROW<k INT, v STRING>>" },
        { name: "nn", type: "ARRAY<ROW<k INT, v STRING>>" },
        { name: "np", type: "ARRAY<ROW<k1 STRING, k2 INT, a INT, b STRING>>" },
      ];
      const options = {
        bucket: "1",
        "merge-engine": "aggregation",
        "fields.nu.aggregate-function": "nested_update",
        "fields.nu.nested-key": "k",
        "fields.nn.aggregate-function": "nested_update",
        "fields.nn.count-limit": "5",
        "fields.np.aggregate-function": "nested_partial_update",
        "fields.np.nested-key": "k1, k2",
        "fields.np.ignore-retract": "true",
      };
      const row = (k: number, v: string | null) => ({ k, v });
      const commits: KindRow[][] = [
        [
          { id: 1, nu: [row(3, "a"), row(1, "b"), null], nn: [row(1, "x"), null, row(2, "y")], np: [{ k1: "p", k2: 1, a: 1, b: null }, { k1: "q", k2: 2, a: null, b: "q2" }] },
          { id: 2, nu: range(20).map((k) => row(k * 7, `v${k}`)), nn: [row(9, "z")], np: null },
          { id: 3, nu: null, nn: null, np: [{ k1: "long key beyond seven bytes", k2: null, a: 5, b: "x" }] },
        ],
        [
          { id: 1, nu: [row(1, "b2"), row(40, "c"), row(17, null)], nn: [row(3, "w"), row(1, "x"), row(4, "v")], np: [{ k1: "q", k2: 2, a: 7, b: null }, { k1: "r", k2: 3, a: 8, b: "r" }, { k1: "p", k2: 1, a: null, b: "p1" }] },
          { id: 2, nu: [row(700, "big"), row(7, "seven")], nn: [row(8, "u")], np: [{ k1: "s", k2: 0, a: 0, b: "s" }] },
          { id: 3, nu: [row(-5, "neg")], nn: [], np: [{ k1: "long key beyond seven bytes", k2: null, a: null, b: "y" }, { k1: "long key beyond seven bytes", k2: 4, a: 6, b: null }] },
        ],
        [
          { _kind: "-U", id: 2, nu: [row(14, "ignored"), row(21, null)], nn: [row(9, "z")], np: [{ k1: "s", k2: 0, a: 0, b: "s" }] },
          { _kind: "+U", id: 2, nu: [row(1000, "k")], nn: [row(10, "t")], np: [{ k1: "t", k2: 9, a: 9, b: "t" }] },
          { id: 1, nu: range(12).map((k) => row(100 + k, `w${k}`)), nn: [row(5, "s")], np: [{ k1: "p", k2: 1, a: 11, b: null }] },
        ],
        [
          { _kind: "-D", id: 3, nu: [row(-5, "other value, same key")], nn: [], np: null },
          { id: 3, nu: [row(6, "six")], nn: [row(6, "six")], np: [{ k1: "u", k2: 1, a: 1, b: "u" }] },
        ],
        // lone retractions: merged with the accumulators of the earlier commits
        [
          { _kind: "-U", id: 1, nu: [row(3, "any value"), row(105, null), row(999, "absent")], nn: [row(1, "x"), row(5, null)], np: [{ k1: "p", k2: 1, a: 1, b: null }] },
          { _kind: "-D", id: 2, nu: null, nn: [row(8, "u")], np: null },
        ],
      ];
      const expected = await bothWays(fields, options, commits, 2);
      // Java's HashMap orders: keyed nested_update by the BinaryRow hash of k, the rows retracted by
      // key (105, 3) or, unkeyed, every equal row ({1, "x"} twice); count-limit 5 stops adding
      // rows; nested_partial_update merges the non-null fields per (k1, k2)
      const w = (k: number) => row(100 + k, `w${k}`);
      const v = (k: number) => row(7 * k, `v${k}`);
      expect(expected).toEqual([
        {
          id: 1,
          nu: [w(0), row(1, "b2"), w(2), w(9), row(40, "c"), w(7), w(11), w(8), w(1), w(3), row(17, null), w(10), w(6), w(4)],
          nn: [row(2, "y"), row(3, "w"), row(5, "s")],
          np: [
            { k1: "p", k2: 1, a: 11, b: "p1" },
            { k1: "q", k2: 2, a: 7, b: "q2" },
            { k1: "r", k2: 3, a: 8, b: "r" },
          ],
        },
        {
          id: 2,
          nu: [v(16), v(13), v(15), v(6), v(18), v(2), v(14), row(7, "seven"), v(12), v(4), v(7), v(8), v(10), v(11), v(19), v(9), row(1000, "k"), v(3), v(5), v(17), v(0), row(700, "big")],
          nn: [row(9, "z"), row(10, "t")],
          np: [
            { k1: "s", k2: 0, a: 0, b: "s" },
            { k1: "t", k2: 9, a: 9, b: "t" },
          ],
        },
        {
          id: 3,
          nu: [row(-5, "neg"), row(6, "six")],
          nn: [row(6, "six")],
          np: [
            { k1: "long key beyond seven bytes", k2: null, a: 5, b: "y" },
            { k1: "long key beyond seven bytes", k2: 4, a: 6, b: null },
            { k1: "u", k2: 1, a: 1, b: "u" },
          ],
        },
      ]);
    },
    SLOW,
  );

  it(
    "merge_map, merge_map_with_keytime and collect distinct: Java's HashMap / HashSet order, retractions, both ways",
    async () => {
      const fields: FieldLike[] = [
        { name: "id", type: "INT NOT NULL" },
        { name: "ms", type: "MAP<STRING, INT>" },
        { name: "mi", type: "MAP<BIGINT, STRING>" },
        { name: "mk", type: "MAP<INT, ROW<v STRING, ts STRING>>" },
        { name: "cs", type: "ARRAY<STRING>" },
        { name: "cd", type: "ARRAY<DOUBLE>" },
        { name: "cr", type: "ARRAY<ROW<a INT, b STRING>>" },
      ];
      const options = {
        bucket: "1",
        "merge-engine": "aggregation",
        "fields.ms.aggregate-function": "merge_map",
        "fields.mi.aggregate-function": "merge_map",
        "fields.mk.aggregate-function": "merge_map_with_keytime",
        "fields.mk.ignore-retract": "true",
        "fields.cs.aggregate-function": "collect",
        "fields.cs.distinct": "true",
        "fields.cd.aggregate-function": "collect",
        "fields.cd.distinct": "true",
        "fields.cr.aggregate-function": "collect",
        "fields.cr.distinct": "true",
      };
      const ts = (v: string | null, t: string | null) => ({ v, ts: t });
      const commits: KindRow[][] = [
        [
          { id: 1, ms: [["b", 1], ["a", 2]], mi: [["5", "five"], ["-1", "minus"]], mk: [[1, ts("x", "2024-01-02")], [2, ts("y", null)]], cs: ["b", "a", "b", null], cd: [1.5, 0.5, 0.0, 0.5], cr: [{ a: 1, b: "x" }, { a: 1, b: "x" }] },
          { id: 2, ms: range(20).map((i) => [`key-${i}`, i]), mi: range(15).map((i) => [String(BigInt(i) << 33n), `v${i}`]), mk: null, cs: range(18).map((i) => `s${(i * 5) % 13}`), cd: [3, 1, 2], cr: null },
        ],
        [
          { id: 1, ms: [["a", 20], ["c", 3]], mi: [["5", "FIVE"]], mk: [[1, ts("older", "2024-01-01")], [2, ts("z", "2024-01-03")], [3, null], [4, ts("w", "a")]], cs: ["c", "a"], cd: [0.0, 2.5], cr: [{ a: 2, b: null }, { a: 1, b: "x" }] },
          { id: 2, ms: [["key-3", 33]], mi: [["0", "zero"]], mk: [[9, ts("nine", "9")]], cs: ["t"], cd: [1], cr: [{ a: 5, b: "e" }] },
        ],
        [
          { _kind: "-U", id: 1, ms: [["a", 0]], mi: [["-1", "x"]], mk: [[1, ts("x", "9")]], cs: ["b"], cd: [0.5], cr: [{ a: 1, b: "x" }] },
          { _kind: "+U", id: 1, ms: [["d", 4]], mi: [["7", "seven"]], mk: [[1, ts("newer", "2024-01-05")], [4, null]], cs: ["d"], cd: [9], cr: [{ a: 3, b: "c" }] },
          { id: 2, ms: [["key-100", 100]], mi: null, mk: [[9, ts("eight", "8")]], cs: range(10).map((i) => `s${i}`), cd: [2, 4], cr: [{ a: 5, b: "e" }, { a: 6, b: null }] },
        ],
        // lone retractions: merged with the accumulators of the earlier commits
        [
          { _kind: "-U", id: 2, ms: [["key-3", 0], ["key-7", null], ["absent", 1]], mi: [["0", null]], mk: [[9, null]], cs: ["s4", "zz", "s4"], cd: [2], cr: [{ a: 6, b: null }] },
          { _kind: "-D", id: 1, ms: [], mi: null, mk: null, cs: [null, "a"], cd: [], cr: [{ a: 2, b: null }, { a: 1, b: "y" }] },
        ],
      ];
      const expected = await bothWays(fields, options, commits, 1);
      // (a retraction in the commit of its key's +U meets only that commit's records, merged by
      // the write buffer; the lone ones of the last commit meet the earlier accumulators)
      const key = (i: number) => [`key-${i}`, i === 3 ? 33 : i];
      expect(expected).toEqual([
        {
          id: 1,
          ms: [["a", 20], ["d", 4], ["c", 3], ["b", 1]],
          mi: [["-1", "minus"], ["5", "FIVE"], ["7", "seven"]],
          mk: [[1, ts("newer", "2024-01-05")], [2, ts("z", "2024-01-03")]],
          cs: ["d", "c", "b"],
          cd: [0.5, 0, 9, 2.5, 1.5],
          cr: [{ a: 1, b: "x" }, { a: 3, b: "c" }],
        },
        {
          id: 2,
          ms: [...[2, 1, 14].map(key), ["key-100", 100], ...[5, 11, 6, 8, 10, 0, 17, 12, 15, 9, 18, 19, 4, 16, 13].map(key)],
          mi: range(14).map((i) => [String(BigInt(i + 1) << 33n), `v${i + 1}`]),
          mk: [[9, ts("nine", "9")]],
          cs: ["s5", "s11", "s3", "s0", "s2", "s10", "s9", "s1", "s7", "s8", "s6", "s12", "t"],
          cd: [1, 4, 3],
          cr: [{ a: 5, b: "e" }],
        },
      ]);
    },
    SLOW,
  );

  it(
    "with deletion vectors (lookup compaction): collect distinct, merge_map and nested_update, both ways",
    async () => {
      const fields: FieldLike[] = [
        { name: "id", type: "INT NOT NULL" },
        { name: "cs", type: "ARRAY<STRING>" },
        { name: "ms", type: "MAP<STRING, INT>" },
        { name: "nu", type: "ARRAY<ROW<k INT, v STRING>>" },
      ];
      const options = {
        bucket: "1",
        "merge-engine": "aggregation",
        "deletion-vectors.enabled": "true",
        "fields.cs.aggregate-function": "collect",
        "fields.cs.distinct": "true",
        "fields.ms.aggregate-function": "merge_map",
        "fields.nu.aggregate-function": "nested_update",
        "fields.nu.nested-key": "k",
      };
      const commits: KindRow[][] = [
        [
          { id: 1, cs: ["b", "a", "b", "c", "a"], ms: [["x", 1], ["y", 2]], nu: [{ k: 2, v: "two" }, { k: 1, v: "one" }, { k: 2, v: "TWO" }] },
          { id: 2, cs: null, ms: null, nu: null },
        ],
        [
          { id: 1, cs: ["d", "a"], ms: [["x", 10]], nu: [{ k: 3, v: "three" }] },
          { id: 3, cs: ["z"], ms: [["q", 1]], nu: [{ k: 5, v: null }, { k: 5, v: "five" }] },
        ],
        [{ _kind: "-U", id: 1, cs: ["c"], ms: [["y", 0]], nu: [{ k: 1, v: null }] }],
      ];
      const expected = await bothWays(fields, options, commits, 1);
      // (lookup compaction merges a key's lone record too: collect distinct's agg(null, input)
      // deduplicates it, nested_update's returns the input as it is)
      expect(expected).toEqual([
        { id: 1, cs: ["a", "d", "b"], ms: [["x", 10]], nu: [{ k: 3, v: "three" }, { k: 2, v: "TWO" }] },
        { id: 2, cs: null, ms: null, nu: null },
        { id: 3, cs: ["z"], ms: [["q", 1]], nu: [{ k: 5, v: null }, { k: 5, v: "five" }] },
      ]);
    },
    SLOW,
  );

  it(
    "keys that overflow a HashMap bucket into a tree bin (round FLOATs, DOUBLEs, BIGINT multiples of 2^40 and equal hash codes): Java's tree order, removals included",
    async () => {
      const fields: FieldLike[] = [
        { name: "id", type: "INT NOT NULL" },
        { name: "mf", type: "MAP<FLOAT, INT>" },
        { name: "cb", type: "ARRAY<BIGINT>" },
        { name: "cd", type: "ARRAY<DOUBLE>" },
      ];
      const options = {
        bucket: "1",
        "merge-engine": "aggregation",
        "fields.mf.aggregate-function": "merge_map",
        "fields.cb.aggregate-function": "collect",
        "fields.cb.distinct": "true",
        "fields.cd.aggregate-function": "collect",
        "fields.cd.distinct": "true",
      };
      // (a << 32) | (a ^ x) hashes to x: equal hash codes ordered by Long.compareTo in the tree
      const sameHash = (a: number, x: number) => String((BigInt(a) << 32n) | BigInt((a ^ x) >>> 0));
      const commits: KindRow[][] = [
        [{ id: 1, mf: range(40).map((i) => [i - 40, i]), cb: range(50).map((i) => String(BigInt(i - 25) << 40n)), cd: range(100).map((i) => (i - 50) / 4) }],
        [{ id: 1, mf: range(40).map((i) => [i, 100 + i]), cb: range(30).map((i) => sameHash(i - 15, i % 3)), cd: range(100).map((i) => i / 2) }],
        // retract keys spread over the tree bins (merge_map removes retracted keys)
        [{ _kind: "-U", id: 1, mf: range(30).map((i) => [((i * 37) % 80) - 40, 0]), cb: null, cd: null }],
        [{ id: 1, mf: range(20).map((i) => [i * 2 + 0.5, i]), cb: [String(1n << 40n), sameHash(99, 1)], cd: [0.25, 1e9] }],
      ];
      const expected = await bothWays(fields, options, commits, 2);
      // (every read above equals Java's, element for element)
      expect(Object.fromEntries(["mf", "cb", "cd"].map((f) => [f, (expected[0]![f] as unknown[]).length]))).toEqual({ mf: 70, cb: 80, cd: 176 });
    },
    SLOW,
  );

  it(
    "collect distinct over every value-hashed element type (Java's Decimal, Timestamp, BinaryString and boxed primitive hash codes)",
    async () => {
      const types: Record<string, string> = {
        de: "DECIMAL(10, 2)",
        dw: "DECIMAL(25, 3)",
        t6: "TIMESTAMP(6)",
        t3: "TIMESTAMP_LTZ(3)",
        db: "DOUBLE",
        fl: "FLOAT",
        bo: "BOOLEAN",
        da: "DATE",
        ti: "TINYINT",
        bi: "BIGINT",
        ch: "CHAR(3)",
      };
      const fields: FieldLike[] = [{ name: "id", type: "INT NOT NULL" }, ...Object.entries(types).map(([name, t]) => ({ name, type: `ARRAY<${t}>` }))];
      const options = { bucket: "1", "merge-engine": "aggregation", ...Object.fromEntries(Object.keys(types).flatMap((f) => [[`fields.${f}.aggregate-function`, "collect"], [`fields.${f}.distinct`, "true"]])) };
      const values = (i: number) => ({
        de: [`${i * 37 - 200}.25`, "-0.01", "12345678.90"],
        dw: [`${BigInt(i) * 10n ** 20n - 7n}.125`, "0.000", "-1.500"],
        t6: [String(BigInt(i) * 86_400_123_456_789_000n - 5000n), "1000", "-999000"],
        t3: [String(BigInt(i) * 3_600_000_000_000n), "-1000000"],
        db: [i * 1.25 - 3, 1e300, -2.5e-7],
        fl: [Math.fround(i * 0.37 + 0.011), -1.5, 3.25],
        bo: [i % 2 === 0, null],
        da: [i * 400 - 1000, 0],
        ti: [(i * 29) % 256 - 128, -1],
        bi: [String(BigInt(i) * 1_000_000_007n), "-1", "9223372036854775807"],
        ch: [`c${i % 10}`, "abc", "x"],
      });
      const commits: KindRow[][] = [0, 1, 2].map((c) => [{ id: 1, ...Object.fromEntries(Object.keys(types).map((f) => [f, [0, 1, 2, 3, 4, 5].flatMap((j) => (values(c * 6 + j) as Record<string, unknown[]>)[f]!)])) }]);
      const expected = await bothWays(fields, options, commits, 2);
      expect(Object.fromEntries(Object.keys(types).map((f) => [f, (expected[0]![f] as unknown[]).length]))).toEqual({ de: 20, dw: 20, t6: 20, t3: 19, db: 20, fl: 20, bo: 3, da: 19, ti: 19, bi: 20, ch: 12 });
      // (every read above equals Java's, element for element; a few orders spelled out)
      expect(expected[0]!.bo).toEqual([null, false, true]);
      expect(expected[0]!.ch).toEqual(["c3", "c5", "c2", "c8", "c9", "x", "c1", "c0", "abc", "c4", "c6", "c7"]);
      expect(expected[0]!.ti).toEqual([-1, -65, -99, -36, -70, -7, -41, 104, -12, 75, 109, 46, 80, 17, 51, 22, -123, -94, -128]);
      expect(expected[0]!.de).toEqual(["429.25", "-89.25", "207.25", "-15.25", "281.25", "-126.25", "170.25", "-200.25", "96.25", "355.25", "22.25", "244.25", "133.25", "-52.25", "12345678.90", "392.25", "-0.01", "318.25", "-163.25", "59.25"]);
      expect((expected[0]!.dw as string[]).slice(0, 5)).toEqual(["-1.500", "699999999999999999993.125", "0.000", "1399999999999999999993.125", "-7.125"]);
      expect((expected[0]!.t6 as string[]).slice(0, 7)).toEqual(["259200370370362000", "432000617283940000", "1209601728395041000", "777601111111096000", "1296001851851830000", "1000", "-999000"]);
    },
    SLOW,
  );
});
