// Kernel benchmarks: each wasm kernel against its plain-TypeScript reference, on the
// same data in the same run, at 1M and 4M rows (int64 and string keys).
import { header, timeMedian } from "./harness.mjs";

/** Deterministic pseudo-random generator (xorshift32) so runs are comparable. */
function rng(seed) {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

function int64Column(rows, seed) {
  const next = rng(seed);
  const values = new BigInt64Array(rows);
  for (let i = 0; i < rows; i++) values[i] = (BigInt(next()) << 32n) | BigInt(next());
  return { type: "int64", length: rows, values };
}

/** ~12-byte keys like "key-1a2b3c4d" laid out as Arrow utf8 (offsets + bytes). */
function stringColumn(rows, seed) {
  const next = rng(seed);
  const offsets = new Int32Array(rows + 1);
  const data = new Uint8Array(rows * 12);
  const enc = new TextEncoder();
  let at = 0;
  for (let i = 0; i < rows; i++) {
    at += enc.encodeInto("key-" + next().toString(16).padStart(8, "0"), data.subarray(at)).written;
    offsets[i + 1] = at;
  }
  return { type: "bytes", length: rows, offsets, data: data.subarray(0, at) };
}

function sequence(rows, start = 0n) {
  const s = new BigInt64Array(rows);
  for (let i = 0; i < rows; i++) s[i] = start + BigInt(i);
  return s;
}

function sameArrays(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Splits `rows` rows of `make` keys into `runs` sorted runs (with overlapping keys). */
function sortedRuns(lib, make, rows, runs) {
  const per = Math.floor(rows / runs);
  const out = [];
  for (let r = 0; r < runs; r++) {
    const keys = make(per, 1000 + (r % 3)); // runs share key sets: real overlap
    const seq = sequence(per, BigInt(r * per));
    const perm = lib.sortPermutation([keys], seq);
    out.push({ keys: [permute(keys, perm)], sequence: BigInt64Array.from(perm, (p) => seq[p]) });
  }
  return out;
}

function permute(col, perm) {
  if (col.type === "int64") return { ...col, values: BigInt64Array.from(perm, (p) => col.values[p]) };
  const offsets = new Int32Array(perm.length + 1);
  const data = new Uint8Array(col.data.length);
  let at = 0;
  perm.forEach((p, i) => {
    const s = col.offsets[p];
    const e = col.offsets[p + 1];
    data.set(col.data.subarray(s, e), at);
    at += e - s;
    offsets[i + 1] = at;
  });
  return { ...col, offsets, data };
}

export async function runKernelBenchmarks(report, { sizes = [1_000_000, 4_000_000] } = {}) {
  const lib = await import("../dist/kernel/index.js");
  const ref = lib.reference;
  const makers = { int64: int64Column, string: stringColumn };
  header("kernels: wasm vs TypeScript reference");
  for (const rows of sizes) {
    const big = rows > 1_000_000;
    const baseIter = { iterations: big ? 1 : 3, warmup: big ? 0 : 1 };
    for (const [name, make] of Object.entries(makers)) {
      const keys = [make(rows, 7)];
      const seq = sequence(rows);

      let a, b;
      const sortMs = timeMedian(() => (a = lib.sortPermutation(keys, seq)), { iterations: 3 });
      const sortRef = timeMedian(() => (b = ref.sortPermutationReference(keys, seq)), baseIter);
      report.add({ suite: "sort permutation", case: `${name} key`, rows, candidate: "wasm", candidateMs: sortMs, baseline: "ts", baselineMs: sortRef, equal: sameArrays(a, b) });

      for (const runCount of [8]) {
        const runs = sortedRuns(lib, make, rows, runCount);
        const mergeMs = timeMedian(() => (a = lib.mergeDeduplicate(runs, { dropDeletes: true })), { iterations: 3 });
        const mergeRef = timeMedian(() => (b = ref.mergeDeduplicateReference(runs, { dropDeletes: true })), baseIter);
        report.add({ suite: "merge deduplicate", case: `${name} key, ${runCount} runs`, rows, candidate: "wasm", candidateMs: mergeMs, baseline: "ts", baselineMs: mergeRef, equal: sameArrays(a.run, b.run) && sameArrays(a.row, b.row) });
      }

      const bucketMs = timeMedian(() => (a = lib.assignBuckets(keys, 16)), { iterations: 3 });
      const bucketRef = timeMedian(() => (b = ref.assignBucketsReference(keys, 16)), baseIter);
      report.add({ suite: "bucket assignment", case: `${name} key, 16 buckets`, rows, candidate: "wasm", candidateMs: bucketMs, baseline: "ts", baselineMs: bucketRef, equal: sameArrays(a, b) });

      const fpMs = timeMedian(() => (a = lib.fingerprintKeys(keys)), { iterations: 3 });
      // The BigInt XXH64 reference is slow: time it on a 100k-row slice and scale.
      const sliceRows = 100_000;
      const slice = [name === "int64" ? { ...keys[0], length: sliceRows, values: keys[0].values.subarray(0, sliceRows) } : { ...keys[0], length: sliceRows }];
      const fpRef = timeMedian(() => (b = ref.fingerprintKeysReference(slice)), { iterations: 1, warmup: 0 }) * (rows / sliceRows);
      report.add({ suite: "key fingerprint", case: `${name} key (ts scaled from 100k)`, rows, candidate: "wasm", candidateMs: fpMs, baseline: "ts", baselineMs: fpRef, equal: sameArrays(a.subarray(0, sliceRows), b) });
    }
  }
}
