// The partial-update merge function (Java `PartialUpdateMergeFunction`, default options):
// for every key, its records in sequence order are folded field by field — a non-null value
// of a later record replaces the earlier one. The result row has the key's highest sequence
// number and kind +I. Supported without sequence groups, aggregate functions and deletes
// (retract rows must be dropped with `ignore-delete` / `partial-update.ignore-delete`).
import * as arrow from "apache-arrow";
import { gatherData, gatherInt64 } from "../arrow/gather.js";
import { PaimonError } from "../error.js";
import { type KeyColumn, keyColumnFromArrow, keyValue } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import type { TableOptions } from "../table/options.js";
import type { KvBatch } from "./kv-file-reader.js";
import { recordBatch } from "../arrow/record-batch.js";

/** UNSUPPORTED for partial-update options paimon-rt does not implement. */
export function checkPartialUpdateOptions(identifier: string, options: TableOptions): void {
  for (const [k, v] of Object.entries(options.raw)) {
    if (/^fields\..+\.(sequence-group|aggregate-function)$/.test(k) || k === "fields.default-aggregate-function") {
      throw new PaimonError("UNSUPPORTED", `merge-engine=partial-update of ${identifier}: option ${k}=${v} is not supported`);
    }
    if ((k === "partial-update.remove-record-on-delete" || k === "partial-update.remove-record-on-sequence-group") && v.trim().toLowerCase() === "true") {
      throw new PaimonError("UNSUPPORTED", `merge-engine=partial-update of ${identifier}: ${k}=true is not supported`);
    }
  }
}

function sameKey(cols: readonly KeyColumn[], a: number, b: number): boolean {
  for (const c of cols) {
    const x = keyValue(c, a);
    const y = keyValue(c, b);
    if (x === null || y === null) {
      if (x !== y) return false;
      continue;
    }
    if (x instanceof Uint8Array && y instanceof Uint8Array) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    } else if (typeof x === "number" && typeof y === "number") {
      if (!Object.is(x, y)) return false; // as BinaryRow bytes: NaN == NaN, -0 != 0
    } else if (x !== y) return false;
  }
  return true;
}

function isValid(data: arrow.Data, row: number): boolean {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return true;
  const bit = data.offset + row;
  return (data.nullBitmap[bit >> 3] & (1 << (bit & 7))) !== 0;
}

/**
 * Folds chunks (any order; every row carries its sequence number) into one row per key, in
 * key order. Retract rows are rejected: the writer drops them before (ignore-delete).
 */
export function foldPartialUpdate(chunks: readonly KvBatch[], keyColumns: readonly number[], identifier: string): KvBatch | null {
  const sources = chunks.map((c) => c.batch);
  const total = chunks.reduce((n, c) => n + c.batch.numRows, 0);
  if (total === 0) return null;
  // identity addressing of all rows: (part, row)
  const part = new Uint32Array(total);
  const row = new Uint32Array(total);
  let at = 0;
  chunks.forEach((c, p) => {
    for (let i = 0; i < c.batch.numRows; i++, at++) {
      part[at] = p;
      row[at] = i;
      const k = c.kinds[i];
      if (k === 1 || k === 3) throw new PaimonError("INVALID_ARGUMENT", `merge-engine=partial-update of ${identifier} cannot merge DELETE/UPDATE_BEFORE rows; set partial-update.ignore-delete=true`);
    }
  });
  const keys = keyColumns.map((k) => keyColumnFromArrow(gatherData(sources.map((s) => s.data.children[k]), part, row)));
  const sequence = gatherInt64(chunks.map((c) => c.sequence), part, row);
  const order = sortPermutation(keys, sequence);
  // group boundaries in sorted order
  const starts: number[] = [];
  for (let i = 0; i < total; i++) if (i === 0 || !sameKey(keys, order[i - 1], order[i])) starts.push(i);
  starts.push(total);
  const groups = starts.length - 1;
  const columns = sources[0].data.children.length;
  const keySet = new Set(keyColumns);
  const children: arrow.Data[] = [];
  for (let c = 0; c < columns; c++) {
    const datas = sources.map((s) => s.data.children[c]);
    const outPart = new Uint32Array(groups);
    const outRow = new Uint32Array(groups);
    for (let g = 0; g < groups; g++) {
      const last = order[starts[g + 1] - 1];
      let pick = last;
      if (!keySet.has(c)) {
        // the latest non-null value of the field (null if every record has null)
        for (let i = starts[g + 1] - 1; i >= starts[g]; i--) {
          const idx = order[i];
          if (isValid(datas[part[idx]], row[idx])) {
            pick = idx;
            break;
          }
        }
      }
      outPart[g] = part[pick];
      outRow[g] = row[pick];
    }
    children.push(gatherData(datas, outPart, outRow));
  }
  const outSeq = new BigInt64Array(groups);
  for (let g = 0; g < groups; g++) outSeq[g] = sequence[order[starts[g + 1] - 1]];
  const schema = sources[0].schema;
  const batch = recordBatch(schema, children, groups);
  return { batch, sequence: outSeq, kinds: new Int8Array(groups) };
}
