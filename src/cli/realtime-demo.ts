// `paimon-rt demo`: ingests a synthetic event stream into demo.events through the real-time
// writer, queries continuously (rows visible before commit, commit progress, memory gauges,
// wall-clock throughput), checkpoints every few seconds, and finally verifies that a disk-only
// read after the last commit returns every row exactly once. `mode: "pk"` streams upserts and
// deletes into a primary-key table instead and checks the latest value of every key. In a terminal one status block is
// redrawn in place; otherwise one plain line per checkpoint. Lines fit 80 columns.
import { columnValues } from "../arrow/values.js";
import * as arrow from "apache-arrow";
import { Catalog } from "../catalog/catalog.js";
import { PaimonError } from "../error.js";
import { joinPath } from "../fs/file-io.js";
import { RealtimeContext } from "../realtime/index.js";
import type { RealtimeCommitProgress, RealtimeMetrics } from "../realtime/types.js";
import type { Table } from "../table/table.js";
import { RowKind } from "../write/table-write.js";

export interface RealtimeDemoOptions {
  /** Warehouse location; a new temporary directory (removed afterwards) by default. */
  warehouse?: string;
  /** How long to ingest; the final checkpoint and the verification follow. */
  seconds: number;
  /** Receives each output line (at most 80 columns; in live mode some start with ANSI cursor codes). */
  log: (line: string) => void;
  /**
   * Redraw one status block in place (a terminal), instead of plain lines: one per checkpoint
   * (a pipe or a log file). Default false.
   */
  live?: boolean;
  /** How the user runs the command line, for the `inspect` command printed at the end (default `paimon-rt`). */
  cliCommand?: string;
  /** Buckets of the demo table (default 4). */
  buckets?: number;
  /** Rows per written batch (default 4096). */
  batchRows?: number;
  /**
   * Upper bound on the ingestion rate in rows/s (default 400_000), which keeps memory and disk use
   * bounded. Not a promise: ingestion pauses during checkpoints, and the demo reports the rate it
   * reaches (rows / wall-clock time).
   */
  maxRowsPerSecond?: number;
  /** Checkpoint interval in ms (default 2000). */
  checkpointMs?: number;
  /**
   * `append` (default): an event stream into an append table. `pk`: an upsert/delete stream into
   * a primary-key table; queries show the latest value per key, and the final check compares
   * every key's value with the last event written for it.
   */
  mode?: "append" | "pk";
  /** PK mode: distinct keys per bucket (default 50_000). */
  keysPerBucket?: number;
}

export interface RealtimeDemoResult {
  /**
   * 0 when every query saw every written row (PK mode: every live key) and the final disk-only
   * read returned every row exactly once (PK mode: every live key once, with its last value), else 1.
   */
  exitCode: number;
  warehouse: string;
  /** The demo table, `demo.events`: dropped and created again by each run. */
  tableIdentifier: string;
  /** Where the table lies (removed afterwards when the warehouse was a temporary one). */
  tableLocation: string;
  rowsWritten: number;
  rowsOnDisk: number;
  snapshots: number;
  queries: number;
  /** Rows written per second of wall-clock time from the first write to the end of ingestion. */
  ingestRowsPerSecond: number;
  mismatches: string[];
}

/** The demo's table in the warehouse; each run replaces it. */
export const DEMO_TABLE = "demo.events";
/** The widest line the demo prints (live status block and plain lines alike). */
export const DEMO_MAX_COLUMNS = 80;

const KINDS = ["click", "view", "buy", "share"];
const ID_STRIDE = 1_000_000_000_000; // event_id = bucket * stride + offset

/** PK mode: the key of offset `o` (keys are reused: upserts). */
const pkKey = (bucket: number, o: number, keys: number) => bucket * ID_STRIDE + (o % keys);
/** PK mode: every tenth event deletes its key. */
const pkDeletes = (o: number) => o % 10 === 9;

/** PK mode: row kinds of a batch (DELETE every tenth offset, else UPDATE_AFTER / INSERT). */
function pkRowKinds(firstOffset: number, rows: number, keys: number): Int8Array {
  const kinds = new Int8Array(rows);
  for (let i = 0; i < rows; i++) {
    const o = firstOffset + i;
    kinds[i] = pkDeletes(o) ? RowKind.DELETE : o >= keys ? RowKind.UPDATE_AFTER : RowKind.INSERT;
  }
  return kinds;
}

/** PK mode: the last offset below `end` written for key index `k`, or -1. */
function lastOffsetOf(k: number, end: number, keys: number): number {
  return end > k ? k + keys * Math.floor((end - 1 - k) / keys) : -1;
}

/** PK mode: live keys of a bucket after offsets [0, end). */
function liveKeys(end: number, keys: number): number {
  let live = 0;
  for (let k = 0; k < keys; k++) {
    const o = lastOffsetOf(k, end, keys);
    if (o >= 0 && !pkDeletes(o)) live++;
  }
  return live;
}

function eventBatch(bucket: number, firstOffset: number, rows: number, keys: number | null = null): arrow.RecordBatch {
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
    ids[i] = BigInt(keys === null ? bucket * ID_STRIDE + o : pkKey(bucket, o, keys));
    amount[i] = keys === null ? ((o * 7919) % 10000) / 100 : o; // PK mode: the offset, checked at the end
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

async function countRows(table: Table, ctx?: RealtimeContext, withAmount = false): Promise<{ rows: number; ids: BigInt64Array[]; amounts: Float64Array[] }> {
  const plan = await table.newScan({ realtime: ctx }).plan();
  const reader = await table.newRead({ realtime: ctx, projection: withAmount ? ["event_id", "amount"] : ["event_id"] }).createReader(plan.splits);
  let rows = 0;
  const ids: BigInt64Array[] = [];
  const amounts: Float64Array[] = [];
  try {
    for await (const b of reader) {
      rows += b.numRows;
      const idData = b.getChildAt(0)!.data[0];
      ids.push(columnValues<BigInt64Array>(idData));
      if (withAmount) {
        const a = b.getChildAt(1)!.data[0];
        amounts.push(columnValues<Float64Array>(a));
      }
    }
  } finally {
    await reader.close();
  }
  return { rows, ids, amounts };
}

const mb = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${(n / 1048576).toFixed(1)} MiB`);
const count = (n: number) => n.toLocaleString("en-US");

function rowsPerSecond(rows: number, seconds: number): string {
  if (!(seconds > 0)) return "-";
  const r = rows / seconds;
  return r >= 1e6 ? `${(r / 1e6).toFixed(2)} M rows/s` : `${(r / 1e3).toFixed(0)}k rows/s`;
}

function bar(fraction: number, width = 24): string {
  const full = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `[${"#".repeat(full)}${".".repeat(width - full)}]`;
}

/** A shell word for a path (a printed command must run as printed). */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Everything the status block and the checkpoint lines show. */
export interface DemoState {
  elapsedMs: number;
  /** What the demo is doing now: ingesting, a checkpoint, verifying, done. */
  phase: string;
  /** Wall-clock time of ingestion so far (stops growing when ingestion ends). */
  ingestMs: number;
  written: number;
  visible: number;
  committed: number;
  checkpoint: number;
  snapshot: number | null;
  checkpointMs: number;
  /** Whether the latest checkpoint committed new rows (else it had nothing to commit). */
  checkpointCommitted: boolean;
  queryMs: number;
  metrics: RealtimeMetrics;
}

/** The live status block: a fixed number of lines, each within 80 columns. */
export function statusBlock(st: DemoState, seconds: number): string[] {
  const m = st.metrics;
  const t = st.elapsedMs / 1000;
  return [
    `${bar(t / seconds)} ${t.toFixed(1).padStart(5)} s  ${st.phase}`,
    `written   ${count(st.written).padStart(12)} rows   ingest ${rowsPerSecond(st.written, st.ingestMs / 1000)} (wall clock)`,
    `visible   ${count(st.visible).padStart(12)} rows   ${count(Math.max(0, st.visible - st.committed))} not yet committed, query ${st.queryMs.toFixed(0)} ms`,
    `committed ${count(st.committed).padStart(12)} rows   ` +
      (st.snapshot === null
        ? "no checkpoint yet"
        : st.checkpointCommitted
          ? `checkpoint ${st.checkpoint} -> snapshot ${st.snapshot} in ${st.checkpointMs.toFixed(0)} ms`
          : `checkpoint ${st.checkpoint}: nothing new since snapshot ${st.snapshot}`),
    `memory    ${mb(m.realtimeTotalMemoryBytes).padStart(12)}      building ${count(m.realtimeBuildingRowCount)} rows, sealed ${count(m.realtimeSealedRowCount)} rows`,
  ];
}

/** The plain line of one checkpoint. */
export function checkpointLine(st: DemoState): string {
  const t = st.elapsedMs / 1000;
  const time = `${t.toFixed(t < 100 ? 1 : 0).padStart(5)}s`;
  if (!st.checkpointCommitted) return `${time} checkpoint ${st.checkpoint}: nothing new since snapshot ${st.snapshot ?? "-"}`;
  return `${time} checkpoint ${st.checkpoint}: snapshot ${st.snapshot ?? "-"}, ${count(st.committed)} rows, ${st.checkpointMs.toFixed(0)} ms, ${rowsPerSecond(st.written, st.ingestMs / 1000)}`;
}

/** Prints lines no wider than DEMO_MAX_COLUMNS (longer ones are cut, which the tests rule out). */
function fit(line: string): string {
  return line.length <= DEMO_MAX_COLUMNS ? line : `${line.slice(0, DEMO_MAX_COLUMNS - 1)}…`;
}

export async function runRealtimeDemo(options: RealtimeDemoOptions): Promise<RealtimeDemoResult> {
  const out = (line: string) => options.log(fit(line));
  const seconds = options.seconds;
  if (!(seconds > 0)) throw new PaimonError("INVALID_ARGUMENT", `demo seconds must be positive, got ${seconds}`);
  const live = options.live ?? false;
  const buckets = options.buckets ?? 4;
  const batchRows = options.batchRows ?? 4096;
  const maxRate = options.maxRowsPerSecond ?? 400_000;
  const checkpointMs = options.checkpointMs ?? 2000;
  const pk = options.mode === "pk";
  const keys = pk ? (options.keysPerBucket ?? 50_000) : null;
  if (keys !== null && !(Number.isInteger(keys) && keys > 0)) throw new PaimonError("INVALID_ARGUMENT", `demo keysPerBucket must be a positive integer, got ${keys}`);
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
    await catalog.dropTable(DEMO_TABLE, { ignoreIfNotExists: true }); // each run starts afresh
    const table = await catalog.createTable(DEMO_TABLE, {
      fields: [
        { name: "event_id", type: "BIGINT NOT NULL" },
        { name: "kind", type: "STRING" },
        { name: "amount", type: "DOUBLE" },
        { name: "ts", type: "BIGINT" },
      ],
      ...(pk ? { primaryKeys: ["event_id"] } : {}),
      options: { bucket: buckets, ...(pk ? {} : { "bucket-key": "event_id" }), "realtime.enabled": true, "realtime.spill-enabled": true, "realtime.store.stats-mode": "full" },
    });
    /** What a query must see: every row written (append), or every live key (PK). */
    const expectedVisible = () => (keys === null ? state.written : nextOffset.reduce((n, end) => n + liveKeys(end, keys), 0));
    const tableLocation = joinPath(warehouse, "demo.db", "events");
    out(`real-time ${pk ? "PK " : ""}demo: table ${DEMO_TABLE} (${buckets} buckets) in ${ownWarehouse ? "a temporary warehouse" : warehouse}`);
    if (keys !== null) out(`upserts over ${count(keys)} keys per bucket, every tenth event a delete`);
    out(`ingest for ${seconds} s; checkpoint every ${(checkpointMs / 1000).toFixed(1)} s; a query every 0.25 s`);
    const ctx = await RealtimeContext.create();
    const writer = await table.newWrite({ commitUser: "demo", realtime: ctx, tempDirectory: spillDir });
    const commit = table.newCommit({ commitUser: "demo" });
    const nextOffset = new Array<number>(buckets).fill(0);
    const start = performance.now();
    const state: DemoState = { elapsedMs: 0, phase: `ingesting for ${seconds} s`, ingestMs: 0, written: 0, visible: 0, committed: 0, checkpoint: 0, snapshot: null, checkpointMs: 0, checkpointCommitted: false, queryMs: 0, metrics: ctx.getMetrics() };
    let snapshots = 0;
    let queries = 0;
    let drawnLines = 0;
    const outstanding: RealtimeCommitProgress[] = [];
    let nextCheckpoint = start + checkpointMs;
    let nextQuery = start + 250;
    let sealedOnce = false;

    let ingesting = true;
    const redraw = () => {
      state.elapsedMs = performance.now() - start;
      if (ingesting) state.ingestMs = state.elapsedMs;
      state.metrics = ctx.getMetrics();
      const lines = statusBlock(state, seconds);
      // Move up over the previous block, then rewrite each line after clearing it.
      lines.forEach((line, i) => options.log(`${i === 0 && drawnLines > 0 ? `\x1b[${drawnLines}A` : ""}\r\x1b[2K${fit(line)}`));
      drawnLines = lines.length;
    };
    const checkpointNow = async (label: string) => {
      state.phase = `${label} ${state.checkpoint + 1} …`;
      if (live) redraw(); // a checkpoint can take seconds: say so
      const c0 = performance.now();
      const progress = await writer.prepareCommitWithProgress(++state.checkpoint);
      outstanding.push(...progress);
      state.checkpointCommitted = outstanding.length > 0;
      if (outstanding.length > 0) {
        const committing = outstanding.splice(0);
        state.snapshot = await commit.commitWithProgress(committing, state.checkpoint);
        snapshots++;
        await writer.refreshCommittedSnapshot(state.snapshot);
        for (const p of committing) state.committed += Number(p.offsetRange.end - p.offsetRange.begin);
      }
      state.checkpointMs = performance.now() - c0;
      state.phase = `ingesting for ${seconds} s`;
      if (live) redraw();
      else {
        state.elapsedMs = performance.now() - start;
        if (ingesting) state.ingestMs = state.elapsedMs;
        out(checkpointLine(state));
      }
    };

    while (performance.now() - start < seconds * 1000) {
      const elapsed = performance.now() - start;
      if (state.written < (elapsed / 1000) * maxRate) {
        for (let b = 0; b < buckets; b++) {
          await writer.write(eventBatch(b, nextOffset[b], batchRows, keys), { bucket: b, ...(keys === null ? {} : { rowKinds: pkRowKinds(nextOffset[b], batchRows, keys) }) });
          nextOffset[b] += batchRows;
          state.written += batchRows;
        }
      } else {
        await new Promise((r) => setTimeout(r, 2));
      }
      const now = performance.now();
      if (now >= nextQuery) {
        nextQuery = now + 250;
        const q0 = performance.now();
        const visible = await countRows(table, ctx);
        state.queryMs = performance.now() - q0;
        state.visible = visible.rows;
        queries++;
        const expected = expectedVisible();
        if (visible.rows !== expected) mismatches.push(`query ${queries}: ${visible.rows} visible rows, ${expected} expected`);
        if (live) redraw();
      }
      if (now >= nextCheckpoint) {
        if (!sealedOnce) {
          // Seal once to show spill: the sealed segment moves to a zstd Arrow IPC file.
          await writer.seal();
          sealedOnce = true;
        }
        await checkpointNow("checkpoint");
        nextCheckpoint = performance.now() + checkpointMs;
      }
    }
    ingesting = false;
    state.ingestMs = performance.now() - start;
    const ingestSeconds = state.ingestMs / 1000;
    const ingestRate = state.written / ingestSeconds;

    // Final checkpoint, then verify with a disk-only read (no real-time context).
    await checkpointNow("final checkpoint");
    await writer.close();
    const written = state.written;
    state.phase = "verifying: disk-only read …";
    if (live) redraw();
    const disk = await countRows(table, undefined, pk);
    state.visible = disk.rows;
    const seen = Array.from({ length: buckets }, (_, b) => new Uint8Array(keys ?? nextOffset[b]));
    let duplicates = 0;
    let stray = 0;
    let wrongValue = 0;
    disk.ids.forEach((ids, at) => {
      for (let i = 0; i < ids.length; i++) {
        const id = Number(ids[i]);
        const b = Math.floor(id / ID_STRIDE);
        const o = id - b * ID_STRIDE;
        if (b < 0 || b >= buckets || o >= seen[b].length) stray++;
        else if (seen[b][o]++ > 0) duplicates++;
        else if (keys !== null) {
          const last = lastOffsetOf(o, nextOffset[b], keys);
          if (last < 0 || pkDeletes(last)) stray++; // a deleted key came back
          else if (disk.amounts[at][i] !== last) wrongValue++;
        }
      }
    });
    let missing = 0;
    seen.forEach((s, b) => {
      for (let i = 0; i < s.length; i++) {
        if (s[i] !== 0) continue;
        if (keys === null) missing++;
        else {
          const last = lastOffsetOf(i, nextOffset[b], keys);
          if (last >= 0 && !pkDeletes(last)) missing++;
        }
      }
    });
    const expectedOnDisk = expectedVisible();
    if (disk.rows !== expectedOnDisk) mismatches.push(`disk-only read returned ${disk.rows} rows, ${expectedOnDisk} expected`);
    if (duplicates + missing + stray + wrongValue > 0) mismatches.push(`disk-only read: ${missing} missing, ${duplicates} duplicated, ${stray} unexpected, ${wrongValue} stale rows`);
    state.phase = "done";
    if (live) redraw();
    await ctx.close();
    const queriesOk = mismatches.every((m) => !m.startsWith("query"));
    out(`ingested ${count(written)} rows in ${ingestSeconds.toFixed(1)} s: ${rowsPerSecond(written, ingestSeconds)} (wall clock)`);
    out(`${snapshots} snapshot${snapshots === 1 ? "" : "s"}; ${queries} queries, ${queriesOk ? (pk ? "each saw exactly the live keys so far" : "each saw every row written so far, committed or not") : "some missed rows"}`);
    if (!ownWarehouse) {
      out("the table stays; look at what it holds with:");
      // printed whole even past 80 columns: a cut command would not run
      options.log(`  ${options.cliCommand ?? "paimon-rt"} inspect ${shellWord(tableLocation)}`);
    }
    out(`verified: disk-only read: ${count(disk.rows)} ${pk ? "keys" : "rows"}, ${missing} missing, ${duplicates} duplicated, ${stray} stray${pk ? `, ${wrongValue} stale` : ""}`);
    if (mismatches.length > 0) for (const m of mismatches) out(`MISMATCH ${m}`);
    else out(pk ? "OK: every live key once, with its last value" : "OK: every row exactly once");
    return {
      exitCode: mismatches.length > 0 ? 1 : 0,
      warehouse,
      tableIdentifier: DEMO_TABLE,
      tableLocation,
      rowsWritten: written,
      rowsOnDisk: disk.rows,
      snapshots,
      queries,
      ingestRowsPerSecond: ingestRate,
      mismatches,
    };
  } finally {
    await fs.rm(spillDir, { recursive: true, force: true });
    if (ownWarehouse) await fs.rm(warehouse, { recursive: true, force: true });
  }
}
