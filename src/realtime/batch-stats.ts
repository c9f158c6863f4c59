// Per-batch statistics for `realtime.store.stats-mode=full`: min/max/null count of flat
// columns, computed with typed-array loops, in the canonical values of predicate/stats.ts.
import type * as arrow from "apache-arrow";
import { Type } from "apache-arrow";
import type { ColumnStats, StatsSet } from "../predicate/stats.js";
import type { DataField } from "../spec/types.js";

const decoder = new TextDecoder();

function valid(data: arrow.Data, i: number): boolean {
  const bm = data.nullBitmap;
  if (data.nullCount === 0 || !bm || bm.length === 0) return true;
  const bit = data.offset + i;
  return (bm[bit >> 3] & (1 << (bit & 7))) !== 0;
}

function compareBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const n = Math.min(aEnd - aStart, bEnd - bStart);
  for (let k = 0; k < n; k++) {
    const d = a[aStart + k] - b[bStart + k];
    if (d !== 0) return d;
  }
  return aEnd - aStart - (bEnd - bStart);
}

function columnStats(data: arrow.Data, field: DataField): ColumnStats {
  const n = data.length;
  const nullCount = data.nullCount;
  if (nullCount >= n) return { nullCount, min: null, max: null };
  const kind = field.type.kind;
  const hasNulls = nullCount > 0;
  switch (data.typeId) {
    case Type.Int: {
      const values = data.values as unknown as ArrayLike<number | bigint>;
      if (kind === "BIGINT") {
        const v = values as BigInt64Array;
        let min: bigint | null = null;
        let max: bigint | null = null;
        for (let i = 0; i < n; i++) {
          if (hasNulls && !valid(data, i)) continue;
          const x = v[i];
          if (min === null || x < min) min = x;
          if (max === null || x > max) max = x;
        }
        return { nullCount, min, max };
      }
      if (kind !== "TINYINT" && kind !== "SMALLINT" && kind !== "INT") return { nullCount };
      const v = values as Int32Array;
      let min = Infinity;
      let max = -Infinity;
      for (let i = 0; i < n; i++) {
        if (hasNulls && !valid(data, i)) continue;
        const x = v[i];
        if (x < min) min = x;
        if (x > max) max = x;
      }
      return { nullCount, min, max };
    }
    case Type.Float: {
      if (kind !== "FLOAT" && kind !== "DOUBLE") return { nullCount };
      const v = data.values as Float64Array;
      let min = Infinity;
      let max = -Infinity;
      let seen = false;
      for (let i = 0; i < n; i++) {
        if (hasNulls && !valid(data, i)) continue;
        const x = v[i];
        if (x !== x) continue; // NaN: leave out of min/max (stats pruning is conservative for floats)
        seen = true;
        if (x < min || (x === 0 && min === 0 && Object.is(x, -0))) min = x;
        if (x > max || (x === 0 && max === 0 && Object.is(max, -0))) max = x;
      }
      return seen ? { nullCount, min, max } : { nullCount };
    }
    case Type.Date: {
      if (kind !== "DATE") return { nullCount };
      const v = data.values as Int32Array;
      if (v.length !== n) return { nullCount }; // DateMillisecond layout: skip
      let min = Infinity;
      let max = -Infinity;
      for (let i = 0; i < n; i++) {
        if (hasNulls && !valid(data, i)) continue;
        if (v[i] < min) min = v[i];
        if (v[i] > max) max = v[i];
      }
      return { nullCount, min, max };
    }
    case Type.Utf8: {
      if (kind !== "VARCHAR" && kind !== "CHAR") return { nullCount };
      const offsets = data.valueOffsets as Int32Array;
      const bytes = data.values as Uint8Array;
      let minI = -1;
      let maxI = -1;
      for (let i = 0; i < n; i++) {
        if (hasNulls && !valid(data, i)) continue;
        if (minI < 0) {
          minI = maxI = i;
          continue;
        }
        const s = offsets[i];
        const e = offsets[i + 1];
        if (compareBytes(bytes, s, e, bytes, offsets[minI], offsets[minI + 1]) < 0) minI = i;
        else if (compareBytes(bytes, s, e, bytes, offsets[maxI], offsets[maxI + 1]) > 0) maxI = i;
      }
      return {
        nullCount,
        min: decoder.decode(bytes.subarray(offsets[minI], offsets[minI + 1])),
        max: decoder.decode(bytes.subarray(offsets[maxI], offsets[maxI + 1])),
      };
    }
    case Type.Bool: {
      if (kind !== "BOOLEAN") return { nullCount };
      const v = data.values as Uint8Array;
      let t = false;
      let f = false;
      for (let i = 0; i < n; i++) {
        if (hasNulls && !valid(data, i)) continue;
        const bit = data.offset + i;
        if (v[bit >> 3] & (1 << (bit & 7))) t = true;
        else f = true;
      }
      return { nullCount, min: !f, max: t };
    }
    default:
      return { nullCount };
  }
}

/** Stats of a store batch; `fields[i]` describes column i. */
export function computeBatchStats(batch: arrow.RecordBatch, fields: readonly DataField[]): StatsSet {
  const columns: Record<string, ColumnStats> = {};
  for (let c = 0; c < fields.length; c++) columns[fields[c].name] = columnStats(batch.data.children[c], fields[c]);
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
