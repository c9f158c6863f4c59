// Append-deduplicate key state (issue 11 "Benchmarks"): ingest of 4096-row batches with 10%
// duplicate keys over 1 M committed keys into the typed key index (identities included), against a JavaScript Map<bigint, bigint> doing the same bookkeeping in the same run;
// and the key-index memory per million keys. The store and file writes around it are not included.
import { header, timeMedian } from "./harness.mjs";
import { keyColumnFromValues } from "../dist/kernel/columns.js";
import { DedupKeyIndex, keyIdentities } from "../dist/realtime/dedup-key-index.js";

const BATCH = 4096;

/** Batches of int64 keys: 10% of each batch repeats a key seen before, the rest are new. */
function makeBatches(committed, batches, seed) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  let fresh = BigInt(committed);
  const out = [];
  for (let b = 0; b < batches; b++) {
    const keys = new BigInt64Array(BATCH);
    for (let i = 0; i < BATCH; i++) keys[i] = i % 10 === 0 ? BigInt(next() % committed) : fresh++;
    out.push({ type: "int64", length: BATCH, values: keys });
  }
  return out;
}

export async function runRealtimeDedupBenchmarks(report, { quick = false } = {}) {
  header("real-time append deduplicate: key index");
  const committed = quick ? 100_000 : 1_000_000;
  const batches = makeBatches(committed, quick ? 16 : 64, 20261202);
  const committedKeys = keyColumnFromValues("int64", Array.from({ length: committed }, (_, i) => BigInt(i)));
  const committedOffsets = BigInt64Array.from({ length: committed }, (_, i) => BigInt(i));
  const rows = batches.length * BATCH;

  let index;
  const candidateMs = timeMedian(
    () => {
      index = new DedupKeyIndex();
      index.upsert(keyIdentities(committedKeys), committedOffsets);
      let offset = BigInt(committed);
      for (const keys of batches) {
        const offsets = new BigInt64Array(BATCH);
        for (let i = 0; i < BATCH; i++) offsets[i] = offset++;
        index.apply(keyIdentities(keys), offsets);
      }
    },
    { iterations: 3 },
  );
  const loadMs = timeMedian(() => new DedupKeyIndex().upsert(keyIdentities(committedKeys), committedOffsets), { iterations: 3 });
  const baselineMs = timeMedian(
    () => {
      const map = new Map();
      for (let i = 0; i < committed; i++) map.set(committedKeys.values[i], committedOffsets[i]);
      const deleted = [];
      let offset = BigInt(committed);
      for (const keys of batches) {
        for (let i = 0; i < BATCH; i++) {
          const old = map.get(keys.values[i]);
          if (old !== undefined) deleted.push(old);
          map.set(keys.values[i], offset++);
        }
      }
    },
    { iterations: 3 },
  );
  // Both timings include loading the committed keys: report the ingest part of the index separately.
  report.add({ suite: "realtime-dedup", case: `load ${committed} committed keys`, rows: committed, candidateMs: loadMs, candidate: "index" });
  report.add({ suite: "realtime-dedup", case: "load + ingest 10% dup", rows: committed + rows, candidateMs, baselineMs, candidate: "index", baseline: "Map<bigint>" });
  report.add({ suite: "realtime-dedup", case: "ingest 10% dup (est.)", rows, candidateMs: Math.max(candidateMs - loadMs, 1e-3), candidate: "index" });
  const perMillion = (index.keyMemoryBytes / index.keyCount) * 1e6;
  console.log(`key-index memory: ${index.keyCount} keys in ${index.keyMemoryBytes} bytes (${(perMillion / 2 ** 20).toFixed(1)} MiB per million keys)`);
  return { keyIndexBytesPerMillionKeys: Math.round(perMillion) };
}
