// Offset bitmaps: the kernel crate's RoaringBitmap32 (candidate) against roaring-wasm 1.1.0
// (baseline, CRoaring compiled to wasm), on the operations deletion vectors and offset sets
// need. Ratio = roaring-wasm ms / crate ms (> 1: the crate is faster).
//
//   npx tsc -p tsconfig.build.json && node --expose-gc bench/bitmap.mjs [--quick]
import { RoaringBitmap32 as RW, roaringLibraryInitialize } from "roaring-wasm";
import { OffsetSet64, RoaringBitmap32 } from "../dist/kernel/bitmap.js";
import { header, Report, timeMedian } from "./harness.mjs";

await roaringLibraryInitialize();
const quick = process.argv.includes("--quick");
// Quick (CI) sizes prove the suite still runs; the figures worth reading come from full runs.
const sizes = quick ? [200_000] : [1_000_000, 4_000_000];
const opts = { iterations: quick ? 1 : 5, warmup: 1 };
// roaring-wasm's addMany fails above 983,040 values when memory grows (js-stack.md §4).
const RW_CHUNK = 983_040;

function rwAddMany(b, values) {
  for (let i = 0; i < values.length; i += RW_CHUNK) b.addMany(values.subarray(i, i + RW_CHUNK));
  return b;
}

function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

function datasets(n) {
  const dense = new Uint32Array(n);
  for (let i = 0; i < n; i++) dense[i] = i * 3;
  const next = lcg(n);
  const random = new Uint32Array(n);
  for (let i = 0; i < n; i++) random[i] = next();
  return { dense, random };
}

const report = new Report("bitmap");
const candidate = "crate";
const baseline = "roaring-wasm";

function row(suite, name, rows, candidateFn, baselineFn, o = opts) {
  const candidateMs = timeMedian(candidateFn, o);
  const baselineMs = timeMedian(baselineFn, o);
  report.add({ suite, case: name, rows, candidateMs, baselineMs, candidate, baseline });
}

for (const n of sizes) {
  const data = datasets(n);
  for (const [kind, values] of Object.entries(data)) {
    const label = `${kind} ${n / 1e6}M`;
    header(`RoaringBitmap32, ${label}`);
    const slowOpts = kind === "random" && n > 1_000_000 ? { iterations: 3, warmup: 1 } : opts;

    row("add() loop", label, n, () => {
      const b = new RoaringBitmap32();
      for (let i = 0; i < values.length; i++) b.add(values[i]);
      b.dispose();
    }, () => {
      const b = new RW();
      for (let i = 0; i < values.length; i++) b.add(values[i]);
      b.dispose();
    }, slowOpts);

    row("addMany", label, n, () => new RoaringBitmap32().addMany(values).dispose(), () => rwAddMany(new RW(), values).dispose(), slowOpts);

    const sortedValues = kind === "random" ? values.slice().sort() : values;
    if (kind === "random") {
      row("addMany (pre-sorted)", label, n, () => new RoaringBitmap32().addMany(sortedValues).dispose(), () =>
        rwAddMany(new RW(), sortedValues).dispose(),
      );
    }

    const ours = new RoaringBitmap32().addMany(values);
    const theirs = rwAddMany(new RW(), values);
    ours.runOptimize("croaring");
    theirs.runOptimize();
    const probes = values.slice(0, Math.min(n, 1_000_000));

    row("has() loop (hits)", label, probes.length, () => {
      let hits = 0;
      for (let i = 0; i < probes.length; i++) hits += ours.has(probes[i]) ? 1 : 0;
      if (hits !== probes.length) throw new Error("miss");
    }, () => {
      let hits = 0;
      for (let i = 0; i < probes.length; i++) hits += theirs.has(probes[i]) ? 1 : 0;
      if (hits !== probes.length) throw new Error("miss");
    }, slowOpts);

    // roaring-wasm has no bulk membership test: its has() loop is the baseline.
    row("hasMany vs has() loop", label, probes.length, () => ours.hasMany(probes), () => {
      const out = new Uint8Array(probes.length);
      for (let i = 0; i < probes.length; i++) out[i] = theirs.has(probes[i]) ? 1 : 0;
    }, slowOpts);

    row("toArray", label, n, () => ours.toArray(), () => theirs.toUint32Array());

    const ourBytes = ours.serializePortable();
    const theirBytes = theirs.serialize("portable");
    if (ourBytes.length !== theirBytes.length) throw new Error("serialized sizes differ");
    row("serialize portable", `${label} (${(ourBytes.length / 2 ** 20).toFixed(1)} MiB)`, n, () => ours.serializePortable(), () =>
      theirs.serialize("portable"),
    );
    row("deserialize portable", label, n, () => RoaringBitmap32.deserializePortable(ourBytes).dispose(), () =>
      RW.deserialize("portable", theirBytes).dispose(),
    );

    // or(a, b) with a = every 5th value shifted by one (mostly disjoint), b = the set.
    const other = values.filter((_, i) => i % 5 === 0).map((v) => v + 1);
    const ours2 = new RoaringBitmap32(other);
    const theirs2 = rwAddMany(new RW(), other);
    row("or (static)", label, n, () => RoaringBitmap32.or(ours2, ours).dispose(), () => RW.or(theirs2, theirs).dispose());
    row("andNot (static)", label, n, () => RoaringBitmap32.andNot(ours, ours2).dispose(), () => RW.andNot(theirs, theirs2).dispose());

    for (const b of [ours, ours2]) b.dispose();
    for (const b of [theirs, theirs2]) b.dispose();
  }
}

// 64-bit: no roaring-wasm equivalent; absolute numbers only.
header("OffsetSet64 (no baseline)");
{
  const n = quick ? 200_000 : 1_000_000;
  const offsets = new BigUint64Array(n);
  for (let i = 0; i < n; i++) offsets[i] = (BigInt(i >> 18) << 32n) | BigInt(i * 7);
  const label = `${Math.ceil(n / 2 ** 18)} buckets ${n / 1e6}M`;
  const addMs = timeMedian(() => new OffsetSet64().addMany(offsets).dispose(), opts);
  report.add({ suite: "OffsetSet64 addMany", case: label, rows: n, candidateMs: addMs, candidate });
  const s = new OffsetSet64(offsets);
  const hasMs = timeMedian(() => s.hasMany(offsets), opts);
  report.add({ suite: "OffsetSet64 hasMany", case: label, rows: n, candidateMs: hasMs, candidate });
  const bytes = s.serializePortable();
  const serMs = timeMedian(() => s.serializePortable(), opts);
  report.add({ suite: "OffsetSet64 serialize", case: label, rows: n, candidateMs: serMs, candidate });
  const deMs = timeMedian(() => OffsetSet64.deserializePortable(bytes).dispose(), opts);
  report.add({ suite: "OffsetSet64 deserialize", case: label, rows: n, candidateMs: deMs, candidate });
  const iterMs = timeMedian(() => {
    let c = 0;
    for (const _ of s) c++;
    if (c !== n) throw new Error("count");
  }, { iterations: quick ? 1 : 3, warmup: 1 });
  report.add({ suite: "OffsetSet64 iterate", case: label, rows: n, candidateMs: iterMs, candidate });
  s.dispose();
}

const doc = report.save({ quick });
console.log(`\nsaved ${doc.rows.length} rows to bench/results/bitmap-latest.json`);
