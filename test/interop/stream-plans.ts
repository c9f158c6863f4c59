// Streaming plans as the Java oracle's `stream-read` prints them, and paimon-rt's the same way:
// shared by the streaming interop tests.
import type { Table } from "../../src/table/table.js";
import type { StreamScanOptions } from "../../src/scan/stream-scan.js";
import { arrowToRows } from "./convert.js";
import { type OracleRow, sortRows } from "./oracle/harness.js";

export interface PlanOut {
  snapshotId: number | null;
  checkpoint: number | null;
  rows: OracleRow[];
}

/** Our `plans` plans of a stream scan of `table` with `options` (after `restore`; pruned by `pruning`), as the oracle prints them. */
export async function ours(table: Table, options: Record<string, string>, plans: number, restore?: number, notify = false, pruning: StreamScanOptions = {}): Promise<PlanOut[]> {
  const copy = table.copy(options);
  const scan = await copy.newStreamScan(pruning);
  if (restore !== undefined) scan.restore(restore);
  const read = copy.newRead({ withRowKind: true });
  const out: PlanOut[] = [];
  for (let i = 0; i < plans; i++) {
    const p = await scan.plan();
    const rows = arrowToRows(await read.toArrow(p.splits)).map((r) => ({ _kind: ["+I", "-U", "+U", "-D"][r._VALUE_KIND as number], ...Object.fromEntries(Object.entries(r).filter(([k]) => k !== "_VALUE_KIND")) }));
    const checkpoint = scan.checkpoint();
    if (notify) await scan.notifyCheckpointComplete(checkpoint);
    out.push({ snapshotId: p.snapshotId, checkpoint, rows: sortRows(rows) });
  }
  return out;
}

/** The Java oracle's `stream-read` of `identifier` with `options`, `plans` plans. */
export function javaStreamArgs(warehouse: string, identifier: string, options: Record<string, string>, plans: number, extra: string[] = []): string[] {
  const args = ["stream-read", warehouse, identifier, String(plans)];
  for (const [k, v] of Object.entries(options)) args.push("--option", `${k}=${v}`);
  return [...args, ...extra];
}

export function parsePlans(out: string): PlanOut[] {
  return out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const p = JSON.parse(l) as PlanOut;
      return { ...p, rows: sortRows(p.rows) };
    });
}

