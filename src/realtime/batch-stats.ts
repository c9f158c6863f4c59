// Per-batch statistics for `realtime.store.stats-mode=full`: min/max/null count of flat
// columns, by the same collector data files are written with (its values are the canonical
// values of predicate/stats.ts), so a batch and the file it becomes prune alike.
import type * as arrow from "apache-arrow";
import { ColumnStatsCollector, type StatsMode } from "../format/column-stats.js";
import type { ColumnStats, StatsSet } from "../predicate/stats.js";
import type { DataField } from "../spec/types.js";

const FULL: StatsMode = { kind: "full" };

/** Stats of a store batch; `fields[i]` describes column i. */
export function computeBatchStats(batch: arrow.RecordBatch, fields: readonly DataField[]): StatsSet {
  const columns: Record<string, ColumnStats> = {};
  for (let c = 0; c < fields.length; c++) {
    const collector = new ColumnStatsCollector(fields[c].type);
    collector.update(batch.data.children[c]);
    columns[fields[c].name] = collector.result(FULL);
  }
  return { rowCount: batch.numRows, columns };
}

/** Approximate retained bytes of a stats set (fixed per column plus string bounds). */
export function statsBytes(stats: StatsSet): number {
  let bytes = 16;
  for (const s of Object.values(stats.columns)) {
    bytes += 24;
    if (typeof s?.min === "string") bytes += s.min.length * 2;
    if (typeof s?.max === "string") bytes += s.max.length * 2;
  }
  return bytes;
}
