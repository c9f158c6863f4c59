// `paimon-rt demo realtime`: ingests a synthetic event stream through the real-time writer,
// queries continuously (rows visible before commit, commit progress, memory gauges,
// throughput), checkpoints every few seconds, and finally verifies that a disk-only read after
// the last commit returns every row exactly once.
import * as arrow from "apache-arrow";
import { Catalog } from "../catalog/catalog.js";
import { PaimonError } from "../error.js";
import { joinPath } from "../fs/file-io.js";
import { RealtimeContext } from "../realtime/context.js";
import type { RealtimeCommitProgress, RealtimeMetrics } from "../realtime/types.js";
import type { Table } from "../table/table.js";

export interface RealtimeDemoOptions {
  /** Warehouse location; a new temporary directory (removed afterwards) by default. */
  warehouse?: string;
  /** How long to ingest. */
  seconds: number;
  log: (line: string) => void;
  /** Buckets of the demo table (default 4). */
  buckets?: number;
  /** Rows per written batch (default 4096). */
  batchRows?: number;
  /** Target ingestion rate in rows/s (default 400_000). */
  rowsPerSecond?: number;
  /** Checkpoint interval in ms (default 2000). */
  checkpointMs?: number;
}

export interface RealtimeDemoResult {
  /** 0 when the final disk-only read returned every row exactly once, else 1. */
  exitCode: number;
  warehouse: string;
  rowsWritten: number;
  rowsOnDisk: number;
  snapshots: number;
  queries: number;
  mismatches: string[];
}

const KINDS = ["click", "view", "buy", "share"];
const ID_STRIDE = 1_000_000_000_000; // event_id = bucket * stride + offset

function eventBatch(bucket: number, firstOffset: number, rows: number): arrow.RecordBatch {
  const offsets = new BigInt64Array(rows);
  const ids = new BigInt64Array(rows);
  const amount = new Float64Array(rows);
  const ts = new BigInt64Array(rows);
  const kindOffsets = new Int32Array(rows + 1);
  const enc = new TextEncoder();
  const kindBytes = KINDS.map((k) => enc.encode(k));
  let total = 0;
  for (let i = 0; i < rows; i++) total += kindBytes[(firstOffset + i) % 4].length;
  const bytes = new Uint8Array(total);
  const now = BigInt(Date.now());
  let p = 0;
  for (let i = 0; i < rows; i++) {
    const o = firstOffset + i;
    offsets[i] = BigInt(o);
    ids[i] = BigInt(bucket * ID_STRIDE + o);
    amount[i] = ((o * 7919) % 10000) / 100;
    ts[i] = now;
    const kb = kindBytes[o % 4];
    bytes.set(kb, p);
    p += kb.length;
    kindOffsets[i + 1] = p;
  }
  return new arrow.RecordBatch({
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: rows, data: offsets }),
    event_id: arrow.makeData({ type: new arrow.Int64(), length: rows, data: ids }),
    kind: arrow.makeData({ type: new arrow.Utf8(), length: rows, valueOffsets: kindOffsets, data: bytes }),
    amount: arrow.makeData({ type: new arrow.Float64(), length: rows, data: amount }),
    ts: arrow.makeData({ type: new arrow.Int64(), length: rows, data: ts }),
  });
}

async function countRows(table: Table, ctx?: RealtimeContext): Promise<{ rows: number; ids: BigInt64Array[] }> {
  const plan = await table.newScan({ realtime: ctx }).plan();
  const reader = await table.newRead({ realtime: ctx, projection: ["event_id"] }).createReader(plan.splits);
  let rows = 0;
  const ids: BigInt64Array[] = [];
  try {
    for await (const b of reader) {
      rows += b.numRows;
      ids.push(b.getChildAt(0)!.data[0].values as BigInt64Array);
    }
  } finally {
    await reader.close();
  }
  return { rows, ids };
}

const mb = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
const rate = (rows: number, ms: number) => (ms <= 0 ? "-" : `${((rows / ms) * 1000 / 1e6).toFixed(2)} M rows/s`);

function bar(fraction: number, width = 24): string {
  const full = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `[${"#".repeat(full)}${".".repeat(width - full)}]`;
}

function gauges(m: RealtimeMetrics): string {
  return `memory ${mb(m.realtimeTotalMemoryBytes)} (building ${m.realtimeBuildingRowCount} rows, sealed ${m.realtimeSealedRowCount} rows / ${mb(m.realtimeSealedMemoryBytes)})`;
}

export async function runRealtimeDemo(options: RealtimeDemoOptions): Promise<RealtimeDemoResult> {
  const log = options.log;
  const seconds = options.seconds;
  if (!(seconds > 0)) throw new PaimonError("INVALID_ARGUMENT", `demo seconds must be positive, got ${seconds}`);
  const buckets = options.buckets ?? 4;
  const batchRows = options.batchRows ?? 4096;
  const targetRate = options.rowsPerSecond ?? 400_000;
  const checkpointMs = options.checkpointMs ?? 2000;
  const os = await import("node:os");
  const fs = await import("node:fs/promises");
  const path = await import("node:path");
  const ownWarehouse = options.warehouse === undefined;
  const warehouse = options.warehouse ?? (await fs.mkdtemp(path.join(os.tmpdir(), "paimon-rt-demo-")));
  const spillDir = await fs.mkdtemp(path.join(os.tmpdir(), "paimon-rt-demo-spill-"));
  const mismatches: string[] = [];
  try {
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("demo", { ignoreIfExists: true });
    const name = `demo.events_${Date.now().toString(36)}`;
    const table = await catalog.createTable(name, {
      fields: [
        { name: "event_id", type: "BIGINT NOT NULL" },
        { name: "kind", type: "STRING" },
        { name: "amount", type: "DOUBLE" },
        { name: "ts", type: "BIGINT" },
      ],
      options: { bucket: buckets, "bucket-key": "event_id", "realtime.enabled": true, "realtime.spill-enabled": true, "realtime.store.stats-mode": "full" },
    });
    log(`real-time demo: table ${name} at ${joinPath(warehouse, "demo.db")} (${buckets} buckets), ingesting for ${seconds}s at ~${(targetRate / 1000).toFixed(0)}k rows/s, checkpoint every ${checkpointMs} ms`);
    const ctx = await RealtimeContext.create();
    const writer = await table.newWrite({ commitUser: "demo", realtime: ctx, tempDirectory: spillDir });
    const commit = table.newCommit({ commitUser: "demo" });
    const nextOffset = new Array<number>(buckets).fill(0);
    let written = 0;
    let checkpoint = 0;
    let snapshots = 0;
    let queries = 0;
    let lastSnapshot: number | null = null;
    let writeMs = 0;
    const outstanding: RealtimeCommitProgress[] = [];
    const start = performance.now();
    let nextCheckpoint = start + checkpointMs;
    let nextQuery = start + 250;
    let sealedOnce = false;

    while (performance.now() - start < seconds * 1000) {
      // Ingest at the target rate.
      const elapsed = performance.now() - start;
      if (written < (elapsed / 1000) * targetRate) {
        const t0 = performance.now();
        for (let b = 0; b < buckets; b++) {
          await writer.write(eventBatch(b, nextOffset[b], batchRows), { bucket: b });
          nextOffset[b] += batchRows;
          written += batchRows;
        }
        writeMs += performance.now() - t0;
      } else {
        await new Promise((r) => setTimeout(r, 2));
      }
      const now = performance.now();
      if (now >= nextQuery) {
        nextQuery = now + 250;
        const q0 = performance.now();
        const visible = await countRows(table, ctx);
        const qMs = performance.now() - q0;
        queries++;
        const committedRows = visible.rows - ctx.getMetrics().realtimeTotalRowCount;
        if (visible.rows !== written) mismatches.push(`query ${queries}: ${visible.rows} visible rows, ${written} written`);
        log(
          `${bar((now - start) / (seconds * 1000))} ${((now - start) / 1000).toFixed(1).padStart(5)}s  written ${written.toLocaleString("en-US")}  visible ${visible.rows.toLocaleString("en-US")} (${Math.max(0, visible.rows - Math.max(0, committedRows)).toLocaleString("en-US")} before commit)  ` +
            `snapshot ${lastSnapshot ?? "-"}  ${gauges(ctx.getMetrics())}  ingest ${rate(written, writeMs)}  query ${qMs.toFixed(0)} ms`,
        );
      }
      if (now >= nextCheckpoint) {
        nextCheckpoint = now + checkpointMs;
        if (!sealedOnce) {
          // Seal once mid-way to show spill: the sealed segment moves to a zstd Arrow IPC file.
          await writer.seal();
          sealedOnce = true;
          log(`  seal: building segment frozen and spilled; ${gauges(ctx.getMetrics())}`);
        }
        const c0 = performance.now();
        const progress = await writer.prepareCommitWithProgress(++checkpoint);
        outstanding.push(...progress);
        if (outstanding.length > 0) {
          lastSnapshot = await commit.commitWithProgress(outstanding.splice(0), checkpoint);
          snapshots++;
          await writer.refreshCommittedSnapshot(lastSnapshot);
        }
        const ranges = progress.map((p) => `b${p.bucket}[${p.offsetRange.begin},${p.offsetRange.end})`).join(" ");
        log(`  checkpoint ${checkpoint}: snapshot ${lastSnapshot}, progress ${ranges || "(none)"} in ${(performance.now() - c0).toFixed(0)} ms; ${gauges(ctx.getMetrics())}`);
      }
    }

    // Final checkpoint, then verify with a disk-only read (no real-time context).
    const progress = await writer.prepareCommitWithProgress(++checkpoint);
    outstanding.push(...progress);
    if (outstanding.length > 0) {
      lastSnapshot = await commit.commitWithProgress(outstanding.splice(0), checkpoint);
      snapshots++;
      await writer.refreshCommittedSnapshot(lastSnapshot);
    }
    await writer.close();
    log(`final checkpoint ${checkpoint}: snapshot ${lastSnapshot}; ${gauges(ctx.getMetrics())}`);
    const disk = await countRows(table);
    const seen = Array.from({ length: buckets }, (_, b) => new Uint8Array(nextOffset[b]));
    let duplicates = 0;
    let stray = 0;
    for (const ids of disk.ids) {
      for (let i = 0; i < ids.length; i++) {
        const id = Number(ids[i]);
        const b = Math.floor(id / ID_STRIDE);
        const o = id - b * ID_STRIDE;
        if (b < 0 || b >= buckets || o >= nextOffset[b]) stray++;
        else if (seen[b][o]++ > 0) duplicates++;
      }
    }
    let missing = 0;
    for (const s of seen) for (let i = 0; i < s.length; i++) if (s[i] === 0) missing++;
    if (disk.rows !== written) mismatches.push(`disk-only read returned ${disk.rows} rows, ${written} were written`);
    if (duplicates + missing + stray > 0) mismatches.push(`disk-only read: ${missing} missing, ${duplicates} duplicated, ${stray} unexpected rows`);
    const total = (performance.now() - start) / 1000;
    log(`verified: ${disk.rows.toLocaleString("en-US")} rows on disk, ${written.toLocaleString("en-US")} written, ${snapshots} snapshots, ${queries} queries in ${total.toFixed(1)} s`);
    await ctx.close();
    if (mismatches.length > 0) for (const m of mismatches) log(`MISMATCH ${m}`);
    else log("OK: every row exactly once");
    return { exitCode: mismatches.length > 0 ? 1 : 0, warehouse, rowsWritten: written, rowsOnDisk: disk.rows, snapshots, queries, mismatches };
  } finally {
    await fs.rm(spillDir, { recursive: true, force: true });
    if (ownWarehouse) await fs.rm(warehouse, { recursive: true, force: true });
  }
}
