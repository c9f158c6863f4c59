// The kernel demo: an upsert stream (user id, sequence, row kind) is bucketed with
// Paimon's bucket function, each batch sorted into a run per bucket, and the runs of
// each bucket merged under the deduplicate engine. It checks the result against the
// TypeScript references and prints progress and throughput.
import { assignBuckets } from "../kernel/hash.js";
import { mergeDeduplicate, type SortedRun } from "../kernel/merge.js";
import { sortPermutation } from "../kernel/sort.js";
import { mergeDeduplicateReference } from "../kernel/reference.js";
import type { KeyColumn } from "../kernel/columns.js";

export interface KernelDemoOptions {
  rows: number;
  buckets: number;
  batchRows: number;
  log: (line: string) => void;
}

function gather(values: BigInt64Array, idx: ArrayLike<number>): BigInt64Array {
  const out = new BigInt64Array(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = values[idx[i]];
  return out;
}

export async function runKernelDemo(o: KernelDemoOptions): Promise<void> {
  const keySpace = Math.max(1, Math.floor(o.rows / 4)); // every key is updated ~4 times
  const runs: SortedRun[][] = Array.from({ length: o.buckets }, () => []);
  let x = 0x9e3779b9;
  let seq = 0n;
  const t0 = performance.now();
  let kernelMs = 0;
  for (let done = 0; done < o.rows; ) {
    const n = Math.min(o.batchRows, o.rows - done);
    const ids = new BigInt64Array(n);
    const sequence = new BigInt64Array(n);
    const kinds = new Int8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      ids[i] = BigInt((x >>> 0) % keySpace);
      sequence[i] = seq++;
      kinds[i] = (x & 0xff) < 13 ? 3 : 0; // ~5% deletes
    }
    const k0 = performance.now();
    const bucketOf = assignBuckets([{ type: "int64", length: n, values: ids }], o.buckets);
    for (let b = 0; b < o.buckets; b++) {
      const rows: number[] = [];
      for (let i = 0; i < n; i++) if (bucketOf[i] === b) rows.push(i);
      const keys = gather(ids, rows);
      const s = gather(sequence, rows);
      const perm = sortPermutation([{ type: "int64", length: keys.length, values: keys }], s);
      const sortedKinds = new Int8Array(perm.length);
      perm.forEach((p, i) => (sortedKinds[i] = kinds[rows[p]]));
      const column: KeyColumn = { type: "int64", length: perm.length, values: gather(keys, perm) };
      runs[b].push({ keys: [column], sequence: gather(s, perm), rowKinds: sortedKinds });
    }
    kernelMs += performance.now() - k0;
    done += n;
    const pct = Math.floor((done / o.rows) * 100);
    o.log(`ingest ${String(pct).padStart(3)}%  ${done.toLocaleString("en-US")} rows  ${((done / (performance.now() - t0)) * 1000 / 1e6).toFixed(2)} M rows/s`);
  }
  let live = 0;
  const m0 = performance.now();
  const merged = runs.map((r) => mergeDeduplicate(r, { dropDeletes: true }));
  const mergeMs = performance.now() - m0;
  merged.forEach((m) => (live += m.run.length));
  o.log(`merged ${o.buckets} buckets (${runs[0].length} runs each): ${live.toLocaleString("en-US")} live keys in ${mergeMs.toFixed(0)} ms`);
  const check = mergeDeduplicateReference(runs[0], { dropDeletes: true });
  const same = check.run.length === merged[0].run.length && check.run.every((r, i) => r === merged[0].run[i] && check.row[i] === merged[0].row[i]);
  if (!same) throw new Error("kernel merge disagrees with the TypeScript reference");
  o.log(`bucket 0 verified against the TypeScript reference; kernels took ${kernelMs.toFixed(0)} ms for ${o.rows.toLocaleString("en-US")} rows`);
}
