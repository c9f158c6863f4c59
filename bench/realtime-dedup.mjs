// Append-deduplicate benchmarks (issue 11 "Benchmarks"), end to end through the real-time writer
// and reader over a committed table, plus the key index in isolation:
// 1. ingest of 4096-row batches with 10% duplicate keys through RealtimeTableWrite.write over
//    1 M committed rows (the first write of a context loads the committed file's key table from
//    its .offset sidecar into the lookup cache: reported apart), against append-mode ingest of
//    the same rows; the same with an 8 mb lookup cache (the table does not fit: kept in
//    cache-page-size pages), and the memory of the key index and of the lookup cache after ingest. Wall times
//    and, marked (cpu), this process's CPU time (the machine may be shared);
// 2. write-to-visible of a key lookup (`id = k`, predicateFilter) after each small write that
//    supersedes a committed row, over the committed rows and a memory tail;
// 3. the key index alone (load, ingest, against a Map<bigint>) and its memory per million keys
//    for int64 and string keys;
// 4. the lookup cache's limits (issue 11): ingest over a file of string keys kept in pages (each
//    key placed among the pages by its bytes) and over several files whose key tables do not fit
//    in the cache together (kept in pages, not reloaded whole per batch), CPU time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { header, recordGcPauses, slowIterationCauses, timeMedianAsync, writeThenLookup } from "./harness.mjs";
import { makeBatch, newTable } from "./realtime.mjs";
import * as arrow from "apache-arrow";
import { Catalog, col, RealtimeContext } from "../dist/node/index.js";
import { keyColumnFromValues } from "../dist/kernel/columns.js";
import { DedupKeyIndex, keyIdentities } from "../dist/realtime/dedup-key-index.js";
import { CommittedKeys } from "../dist/realtime/dedup-lookup.js";
import { OffsetPositionIndex } from "../dist/read/offset-positions.js";

const BATCH = 4096;
const B0 = { bucket: 0 };

/** The seed's setup of an append deduplicate table (key `id`, exact bitmap index on the offset). */
const DEDUP_OPTIONS = {
  "realtime.deduplicate-key-fields": "id",
  "deletion-vectors.enabled": true,
  "deletion-vectors.bitmap64": false,
  "file-index.read.enabled": true,
  "file-index.bitmap.columns": "_REALTIME_OFFSET",
};

/** xorshift32 from `seed`: the same stream in every run. */
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/**
 * Keys of a stream over `committed` committed keys (0 … committed-1): every tenth row repeats a
 * random committed key, the others are new keys from `firstFresh` on.
 */
function duplicateStream(committed, firstFresh, seed) {
  const next = random(seed);
  let fresh = firstFresh;
  return (offset) => (offset % 10 === 0 ? next() % committed : fresh++);
}

/** `count` 4096-row batches from offset `first`, keys from `idOf`. */
function batchesFrom(first, count, idOf) {
  return Array.from({ length: count }, (_, i) => makeBatch(first + i * BATCH, BATCH, idOf));
}

/** CPU time of this process in ms (user + system): on a shared machine, what a step cost us. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const median = (values) => pct([...values].sort((a, b) => a - b), 0.5);

export async function runRealtimeDedupBenchmarks(report, { quick = false } = {}) {
  const extra = keyIndexBenchmarks(report, quick);
  header("real-time append deduplicate: end to end");
  const scratch = mkdtempSync(join(tmpdir(), "paimon-rt-bench-dedup-"));
  try {
    // committed rows: keys 0 … committed-1 at offsets 0 … committed-1, one commit
    const committed = quick ? 200_000 : 1_000_000;
    const table = await newTable(scratch, DEDUP_OPTIONS, { persistedOffset: true });
    {
      const ctx = await RealtimeContext.create();
      const w = await table.newWrite({ commitUser: "b", realtime: ctx });
      for (let done = 0; done < committed; done += BATCH) await w.write(makeBatch(done, Math.min(BATCH, committed - done)), B0);
      const p = await w.prepareCommitWithProgress(1);
      await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "b" }).commitWithProgress(p, 1));
      await w.close();
      await ctx.close();
    }

    // 1. ingest: a 1-row write loads the committed keys, then the batches follow
    const nBatches = quick ? 64 : 256;
    const loadBatch = makeBatch(committed, 1, () => committed);
    const batches = batchesFrom(committed + 1, nBatches, duplicateStream(committed, committed + 1, 20261202));
    const rows = nBatches * BATCH;
    /**
     * Runs of (1-row first write, ingest) in fresh contexts of `tbl`: their median times, the
     * memory key index + pending deletions (store metrics) and the lookup cache after ingest.
     */
    const ingestRuns = async (tbl, input = batches, iterations = quick ? 4 : 6) => {
      const expectRows = input.length * BATCH;
      const load = [];
      const ingest = [];
      const loadCpu = [];
      const ingestCpu = [];
      let keyBytes = 0;
      let cacheBytes = 0;
      for (let it = 0; it < iterations; it++) {
        globalThis.gc?.();
        const ctx = await RealtimeContext.create();
        const w = await tbl.newWrite({ commitUser: "b", realtime: ctx });
        const c0 = cpuMs();
        const t0 = performance.now();
        await w.write(loadBatch, B0);
        const t1 = performance.now();
        const c1 = cpuMs();
        for (const b of input) await w.write(b, B0);
        const t2 = performance.now();
        const c2 = cpuMs();
        const visible = ctx.getMetrics().realtimeTotalRowCount;
        if (visible !== expectRows + 1) throw new Error(`${visible} rows stored, expected ${expectRows + 1}`);
        keyBytes = ctx.allEntries().reduce((n, e) => n + (e.dedup?.memoryBytes ?? 0), 0);
        cacheBytes = ctx.dedupLookupCacheBytes ?? 0;
        await ctx.close();
        if (it === 0) continue; // warm-up
        load.push(t1 - t0);
        ingest.push(t2 - t1);
        loadCpu.push(c1 - c0);
        ingestCpu.push(c2 - c1);
      }
      return { load, ingest, loadCpu, ingestCpu, keyBytes, cacheBytes };
    };
    const { load, ingest, loadCpu, ingestCpu, keyBytes, cacheBytes } = await ingestRuns(table);
    // the same with a lookup cache too small for the committed file's key table (its filter fits):
    // every batch reloads the table, so only a few batches
    const catalog = await Catalog.open(scratch);
    const small = await catalog.alterTable(table.identifier, [{ kind: "setOption", key: "lookup.cache-max-memory-size", value: "8 mb" }]);
    const smallBatches = batches.slice(0, quick ? 4 : 8);
    const smallRuns = await ingestRuns(small, smallBatches, 2);
    await catalog.alterTable(table.identifier, [{ kind: "removeOption", key: "lookup.cache-max-memory-size" }]);
    const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
    console.log(`memory after ingest, default lookup cache: key index + pending deletions ${mib(keyBytes)}, lookup cache ${mib(cacheBytes)}`);
    console.log(`memory after ingest, 8 mb lookup cache: key index + pending deletions ${mib(smallRuns.keyBytes)}, lookup cache ${mib(smallRuns.cacheBytes)}`);
    extra.memory = { keyBytes, cacheBytes, smallKeyBytes: smallRuns.keyBytes, smallCacheBytes: smallRuns.cacheBytes };
    report.add({ suite: "realtime-dedup", case: "ingest 4096 x 10% dup, 8 mb cache", rows: smallBatches.length * BATCH, candidate: "dedup mode", candidateMs: median(smallRuns.ingest) });
    report.add({ suite: "realtime-dedup", case: "ingest 4096 x 10% dup, 8 mb cache (cpu)", rows: smallBatches.length * BATCH, candidate: "dedup mode", candidateMs: median(smallRuns.ingestCpu) });
    report.add({ suite: "realtime-dedup", case: "first write, 8 mb cache", rows: 1, candidate: "dedup mode", candidateMs: median(smallRuns.load) });
    const appendTable = await newTable(`memory://bench-dedup-append`);
    const appendMs = await timeMedianAsync(
      async () => {
        const ctx = await RealtimeContext.create();
        const w = await appendTable.newWrite({ commitUser: "b", realtime: ctx });
        for (const b of batches) await w.write(b, B0);
        await ctx.close();
      },
      { iterations: quick ? 3 : 5, warmup: 1 },
    );
    report.add({ suite: "realtime-dedup", case: `first write over ${committed} committed keys`, rows: committed, candidate: "first write", candidateMs: median(load) });
    report.add({ suite: "realtime-dedup", case: `first write over ${committed} committed keys (cpu)`, rows: committed, candidate: "first write", candidateMs: median(loadCpu) });
    report.add({ suite: "realtime-dedup", case: "ingest 4096 x 10% dup", rows, candidate: "dedup mode", candidateMs: median(ingest), baseline: "append mode", baselineMs: appendMs });
    report.add({ suite: "realtime-dedup", case: "ingest 4096 x 10% dup (cpu)", rows, candidate: "dedup mode", candidateMs: median(ingestCpu) });
    report.add({ suite: "realtime-dedup", case: "load + ingest", rows, candidate: "dedup mode", candidateMs: median(load.map((l, i) => l + ingest[i])) });

    // 2. write-to-visible of a key lookup after each small write that supersedes a committed row
    await dedupLookupLatencies(report, table, committed, quick);
    await cacheLimitBenchmarks(report, scratch, quick);
    return extra;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * 2. Write-to-visible: a memory tail (10% of it supersedes committed rows), then rounds of a
 * 16-row write whose first row supersedes committed key k, and a plan + read of `id = k` that
 * must return that row alone (the committed row hidden through the offset index). Each slow
 * round (> 2 ms) is attributed to an overlapping GC pause, else its slowest phase: the write's
 * committed-key lookup ("keyLookup", CommittedKeys.lookup), its key-index update and pending
 * deletions ("keyIndex", DedupKeyIndex.apply), the rest of the write ("write": offsets, store),
 * "plan" and "read". Besides: GC pauses in the measured rounds and the heap growth of a round in
 * which no GC ran (the garbage a round leaves).
 */
const PHASES = ["keyLookup", "keyIndex", "write", "plan", "dv", "read"];

export async function dedupLookupLatencies(report, table, committed, quick = false) {
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "b", realtime: ctx });
  const tailRows = quick ? 40_000 : 100_000;
  let offset = committed;
  const tailKeys = duplicateStream(committed, committed, 7);
  for (let done = 0; done < tailRows; done += BATCH) {
    const n = Math.min(BATCH, tailRows - done);
    await w.write(makeBatch(offset, n, tailKeys), B0);
    offset += n;
  }
  // the write's dedup steps, timed inside it (the current round's phase totals)
  let phases = null;
  const timed = (proto, name, phase) => {
    const inner = proto[name];
    proto[name] = function (...args) {
      const t = performance.now();
      const out = inner.apply(this, args);
      if (out instanceof Promise) return out.finally(() => phases && (phases[phase] += performance.now() - t));
      if (phases) phases[phase] += performance.now() - t;
      return out;
    };
    return () => (proto[name] = inner);
  };
  const restore = [timed(CommittedKeys.prototype, "lookup", "keyLookup"), timed(DedupKeyIndex.prototype, "apply", "keyIndex"), timed(OffsetPositionIndex.prototype, "positionsOfPending", "dv")];
  const pickKey = random(99);
  const roundKeys = duplicateStream(1, 10 * committed, 1); // new keys for rows 1 … 15
  const round = async () => {
    const key = pickKey() % committed;
    const first = offset;
    const small = makeBatch(first, 16, (o) => (o === first ? key : roundKeys(o + 1)));
    offset += 16;
    const filter = col("id").eq(BigInt(key));
    phases = { keyLookup: 0, keyIndex: 0, dv: 0 };
    const heap0 = process.memoryUsage().heapUsed;
    const it = await writeThenLookup(() => w.write(small, B0), table, ctx, filter);
    const heap = process.memoryUsage().heapUsed - heap0;
    if (it.rows !== 1) throw new Error(`key ${key}: ${it.rows} rows visible`);
    const { keyLookup, keyIndex, dv } = phases;
    return { ...it, keyLookup, keyIndex, write: it.write - keyLookup - keyIndex, dv, read: it.read - dv, heap };
  };
  try {
    for (let i = 0; i < (quick ? 50 : 200); i++) await round(); // warm-up (JIT)
    globalThis.gc?.();
    const gcPauses = recordGcPauses();
    const iterations = [];
    for (let i = 0; i < (quick ? 200 : 1000); i++) iterations.push(await round());
    const pauses = await gcPauses.stop();
    const slow = slowIterationCauses(iterations, PHASES, pauses);
    const samples = iterations.map((it) => it.end - it.start).sort((a, b) => a - b);
    const cpuSamples = iterations.map((it) => it.cpuMs).sort((a, b) => a - b);
    // heap growth of the rounds no GC pause overlapped (heapUsed is read outside the timed span)
    const growth = iterations.filter((it) => !pauses.some(([s, e]) => s < it.end && e > it.start)).map((it) => it.heap);
    const gcMs = pauses.reduce((t, [s, e]) => t + e - s, 0);
    for (const [label, p] of [
      ["p50", 0.5],
      ["p99", 0.99],
    ]) {
      report.add({ suite: "realtime-dedup", case: `key lookup write-to-visible ${label} (${samples.length} rounds)`, rows: 16, candidate: "paimon-rt", candidateMs: pct(samples, p), ...(label === "p99" ? { slowOver2ms: slow, cpuOver2ms: cpuSamples.filter((ms) => ms > 2).length, gcPauses: pauses.length, gcMs, heapGrowthPerRound: median(growth) } : {}) });
      report.add({ suite: "realtime-dedup", case: `key lookup write-to-visible ${label} (cpu)`, rows: 16, candidate: "paimon-rt", candidateMs: pct(cpuSamples, p) });
    }
    const phaseP99 = PHASES.map((ph) => `${ph} ${pct(iterations.map((it) => it[ph]).sort((a, b) => a - b), 0.99).toFixed(2)}`).join(", ");
    console.log(`(${samples.length} rounds; slower than 2 ms: ${JSON.stringify(slow)}; ${pauses.length} GC pauses, ${gcMs.toFixed(1)} ms; heap growth per round without GC ${(median(growth) / 1024).toFixed(1)} KiB; phase p99 ms: ${phaseP99})`);
  } finally {
    for (const r of restore) r();
    await ctx.close();
  }
}

/** The key index alone: load + ingest against a Map<bigint>, and memory per million keys. */
function keyIndexBenchmarks(report, quick) {
  header("real-time append deduplicate: key index");
  const committed = quick ? 100_000 : 1_000_000;
  const stream = duplicateStream(committed, committed, 20261202);
  const batches = Array.from({ length: quick ? 16 : 64 }, () => {
    const keys = new BigInt64Array(BATCH);
    for (let i = 0; i < BATCH; i++) keys[i] = BigInt(stream(i));
    return { type: "int64", length: BATCH, values: keys };
  });
  const committedKeys = keyColumnFromValues("int64", Array.from({ length: committed }, (_, i) => BigInt(i)));
  const committedOffsets = BigInt64Array.from({ length: committed }, (_, i) => BigInt(i));
  const rows = batches.length * BATCH;

  const rounds = 3;
  /** Median over `rounds` of `measure(setup())` (ms), the setup untimed. */
  const medianOf = (setup, measure) => {
    const times = [];
    for (let r = 0; r <= rounds; r++) {
      const state = setup();
      globalThis.gc?.();
      const t0 = performance.now();
      measure(state);
      if (r > 0) times.push(performance.now() - t0); // the first round warms up
    }
    return median(times);
  };
  const loadIndex = () => {
    const ix = new DedupKeyIndex();
    ix.upsert(keyIdentities(committedKeys), committedOffsets);
    return ix;
  };
  const batchOffsets = batches.map((_, b) => BigInt64Array.from({ length: BATCH }, (_, i) => BigInt(committed + b * BATCH + i)));
  const ingestIndex = (ix) => batches.forEach((keys, b) => ix.apply(keyIdentities(keys), batchOffsets[b]));
  const loadMap = () => {
    const map = new Map();
    for (let i = 0; i < committed; i++) map.set(committedKeys.values[i], committedOffsets[i]);
    return map;
  };
  const ingestMap = (map) => {
    const deleted = [];
    batches.forEach((keys, b) => {
      for (let i = 0; i < BATCH; i++) {
        const old = map.get(keys.values[i]);
        if (old !== undefined) deleted.push(old);
        map.set(keys.values[i], batchOffsets[b][i]);
      }
    });
  };
  const loadMs = medianOf(() => null, loadIndex);
  const mapLoadMs = medianOf(() => null, loadMap);
  let index;
  const ingestMs = medianOf(loadIndex, (ix) => ingestIndex((index = ix)));
  const mapIngestMs = medianOf(loadMap, ingestMap);
  report.add({ suite: "realtime-dedup", case: `index: load ${committed} keys`, rows: committed, candidate: "index", candidateMs: loadMs, baseline: "Map<bigint>", baselineMs: mapLoadMs });
  report.add({ suite: "realtime-dedup", case: "index: ingest 4096 x 10% dup", rows, candidate: "index", candidateMs: ingestMs, baseline: "Map<bigint>", baselineMs: mapIngestMs });

  // memory per million keys: int64 keys (one identity word) and string keys (two)
  const perMillion = (ix) => Math.round((ix.keyMemoryBytes / ix.keyCount) * 1e6);
  const strings = new DedupKeyIndex(2);
  const names = Array.from({ length: committed }, (_, i) => `user-${i}`);
  strings.upsert(keyIdentities(keyColumnFromValues("bytes", names)), committedOffsets);
  const memory = { int64: perMillion(index), string: perMillion(strings) };
  for (const [kind, ix] of [
    ["int64", index],
    ["string", strings],
  ]) {
    console.log(`key-index memory (${kind} keys): ${ix.keyCount} keys in ${ix.keyMemoryBytes} bytes (${(perMillion(ix) / 2 ** 20).toFixed(1)} MiB per million keys)`);
  }
  return { keyIndexBytesPerMillionKeys: memory };
}

/** Batches of a table keyed by a string `id` (`k${key}`, zero-padded) with `_REALTIME_OFFSET` first, from offset `first`, keys from `idOf`. */
function stringKeyBatch(first, rows, idOf) {
  const offsets = new BigInt64Array(rows);
  const valueOffsets = new Int32Array(rows + 1);
  const bytes = new Uint8Array(rows * 11);
  for (let i = 0; i < rows; i++) {
    offsets[i] = BigInt(first + i);
    const text = `k${String(idOf(first + i)).padStart(10, "0")}`;
    for (let k = 0; k < 11; k++) bytes[i * 11 + k] = text.charCodeAt(k);
    valueOffsets[i + 1] = (i + 1) * 11;
  }
  return new arrow.RecordBatch({
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: rows, data: offsets }),
    id: arrow.makeData({ type: new arrow.Utf8(), length: rows, valueOffsets, data: bytes }),
  });
}

/**
 * 4. The lookup cache's limits: CPU time of ingesting 4096-row batches (10% duplicate keys) in a
 * fresh context, median of a few runs (the first a warm-up), over (a) one file of string keys
 * whose key table exceeds a 4 mb cache (kept in cache-page-size pages), (b) 8 files of BIGINT
 * keys each of whose key tables (4 MiB) fits in a 16 mb cache, all 8 not.
 */
export async function cacheLimitBenchmarks(report, scratch, quick = false) {
  header("real-time append deduplicate: lookup cache limits");
  const catalog = await Catalog.open(scratch);
  await catalog.createDatabase("limits", { ignoreIfExists: true });
  const nBatches = quick ? 4 : 8;
  /** Commits `files` files of `perFile` keys (0 … files * perFile - 1), then returns the median CPU ms of ingesting `nBatches` batches. */
  const run = async (name, fields, batchOf, files, perFile, cacheSize) => {
    const table = await catalog.createTable(`limits.${name}`, { fields, options: { ...DEDUP_OPTIONS, bucket: 1, "bucket-key": "id", "realtime.enabled": true } });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "b", realtime: ctx });
    let offset = 0;
    for (let f = 0; f < files; f++) {
      for (let done = 0; done < perFile; done += BATCH) {
        const n = Math.min(BATCH, perFile - done);
        await w.write(batchOf(offset, n, (o) => o), B0);
        offset += n;
      }
      const p = await w.prepareCommitWithProgress(f + 1);
      await w.refreshCommittedSnapshot(await table.newCommit({ commitUser: "b" }).commitWithProgress(p, f + 1));
    }
    await w.close();
    await ctx.close();
    const committed = offset;
    const sized = await catalog.alterTable(table.identifier, [{ kind: "setOption", key: "lookup.cache-max-memory-size", value: cacheSize }]);
    const input = Array.from({ length: nBatches }, (_, i) => batchOf(committed + 1 + i * BATCH, BATCH, duplicateStream(committed, committed + 1 + i * BATCH, 20261203)));
    const cpu = [];
    let pageLoads = 0;
    let loads = 0;
    for (let it = 0; it < (quick ? 3 : 4); it++) {
      globalThis.gc?.();
      const c = await RealtimeContext.create();
      const wr = await sized.newWrite({ commitUser: "b", realtime: c });
      await wr.write(batchOf(committed, 1, () => committed), B0); // loads the committed files' directories
      const c0 = cpuMs();
      for (const b of input) await wr.write(b, B0);
      const spent = cpuMs() - c0;
      const cache = c.dedupLookupCache(sized);
      pageLoads = cache.pageLoads;
      loads = cache.loads;
      await c.close();
      if (it > 0) cpu.push(spent);
    }
    console.log(`${name}: whole key tables loaded ${loads}, pages read again ${pageLoads} (last run)`);
    return { cpu: median(cpu), rows: input.length * BATCH, loads, pageLoads };
  };
  const stringFields = [
    { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
    { name: "id", type: "STRING NOT NULL" },
  ];
  const strings = await run("strings", stringFields, stringKeyBatch, 1, quick ? 100_000 : 300_000, "4 mb");
  report.add({ suite: "realtime-dedup", case: "ingest 4096 x 10% dup, string keys in pages (4 mb cache) (cpu)", rows: strings.rows, candidate: "dedup mode", candidateMs: strings.cpu, wholeLoads: strings.loads, pageLoads: strings.pageLoads });
  const longFields = [
    { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
    { name: "id", type: "BIGINT NOT NULL" },
  ];
  const longBatch = (first, rows, idOf) => {
    const offsets = new BigInt64Array(rows);
    const ids = new BigInt64Array(rows);
    for (let i = 0; i < rows; i++) {
      offsets[i] = BigInt(first + i);
      ids[i] = BigInt(idOf(first + i));
    }
    return new arrow.RecordBatch({
      _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: rows, data: offsets }),
      id: arrow.makeData({ type: new arrow.Int64(), length: rows, data: ids }),
    });
  };
  const files = await run("files", longFields, longBatch, 8, quick ? 50_000 : 100_000, quick ? "8 mb" : "16 mb");
  report.add({ suite: "realtime-dedup", case: "ingest 4096 x 10% dup, 8 files over the cache (16 mb) (cpu)", rows: files.rows, candidate: "dedup mode", candidateMs: files.cpu, wholeLoads: files.loads, pageLoads: files.pageLoads });
}
