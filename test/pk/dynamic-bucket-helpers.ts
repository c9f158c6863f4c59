// What a dynamic-bucket table holds, for the dynamic bucket tests: the bucket every visible key
// lives in (read split by split), and the key hashes of every HASH index file.
import type * as arrow from "apache-arrow";
import { readHashIndex } from "../../src/commit/pk-conflicts.js";
import { keyColumnFromArrow } from "../../src/kernel/columns.js";
import { assignBuckets } from "../../src/kernel/hash.js";
import { fromBinaryRow } from "../../src/spec/binary-row.js";
import { HASH_INDEX } from "../../src/spec/hash-index.js";
import type { Table } from "../../src/table/table.js";

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x));

/** BinaryRow hash codes (Java `BinaryRow.hashCode()`) of the `columns` of each row of `batch`. */
export function keyHashes(batch: arrow.RecordBatch | arrow.Table, columns: readonly string[]): Int32Array {
  const data = "batches" in batch ? batch.batches : [batch];
  const out: number[] = [];
  for (const b of data) {
    const keys = columns.map((c) => keyColumnFromArrow(b.getChild(c)!.data[0]!));
    out.push(...assignBuckets(keys, 0));
  }
  return Int32Array.from(out);
}

/** Partition values (JSON) of a serialized partition row of `table`. */
export function partitionOf(table: Table, row: Uint8Array): string {
  const fields = table.schema.partitionKeys.map((k) => table.schema.fields.find((f) => f.name === k)!);
  return json(fromBinaryRow(row.subarray(4), fields.map((f) => f.type)));
}

/**
 * Every visible row's key (JSON of `keyColumns`) with the buckets it is read from, one split at a
 * time: a key in two buckets shows up twice.
 */
export async function bucketsOfKeys(table: Table, keyColumns: readonly string[], snapshotId?: number): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const split of (await table.newScan({ snapshotId }).plan()).splits) {
    const bucket = (split as { bucket: number }).bucket;
    const t = await table.newRead().toArrow([split]);
    for (const row of t.toArray()) {
      const j = row.toJSON() as Record<string, unknown>;
      const key = json(keyColumns.map((c) => j[c]));
      const list = out.get(key) ?? [];
      list.push(bucket);
      out.set(key, list);
    }
  }
  return out;
}

/** The HASH index files of the latest snapshot: `<partition JSON>|<bucket>` -> sorted hashes. */
export async function hashIndexes(table: Table, snapshotId?: number): Promise<Map<string, number[]>> {
  const snap = snapshotId === undefined ? await table.latestSnapshot() : await table.snapshotManager.snapshot(snapshotId);
  const out = new Map<string, number[]>();
  if (!snap) return out;
  for (const e of await table.manifestStore.indexEntries(snap)) {
    if (e.indexFile.indexType !== HASH_INDEX) continue;
    const k = `${partitionOf(table, e.partition)}|${e.bucket}`;
    if (out.has(k)) throw new Error(`two HASH index files for ${k}`);
    out.set(k, [...(await readHashIndex(table.fileIO, table.paths, e))].sort((a, b) => a - b));
  }
  return out;
}
