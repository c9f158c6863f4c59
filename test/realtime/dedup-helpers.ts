// Helpers of the real-time append-deduplicate tests: a table in the seed's setup and batches in
// its own layout ([id, _REALTIME_OFFSET, v, dt]: the offset is a table column).
import * as arrow from "apache-arrow";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { freshWarehouse } from "../support/warehouses.js";
import { tempDir } from "./helpers.js";

export const DEDUP_OPTIONS: Record<string, string> = {
  bucket: "2",
  "bucket-key": "id",
  "realtime.enabled": "true",
  "realtime.deduplicate-key-fields": "id",
  "deletion-vectors.enabled": "true",
  "deletion-vectors.bitmap64": "false",
  "file-index.read.enabled": "true",
  "file-index.bitmap.columns": "_REALTIME_OFFSET",
};

/** The schema of the tests' deduplicate tables: [id, _REALTIME_OFFSET, v, dt]. */
export function dedupTableSpec(options: Record<string, string> = {}, partitioned = false) {
  return {
    fields: [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
      { name: "dt", type: "STRING" },
    ],
    partitionKeys: partitioned ? ["dt"] : [],
    options: { ...DEDUP_OPTIONS, ...options },
  };
}

let counter = 0;
export async function makeDedupTable(options: Record<string, string> = {}, opts: { partitioned?: boolean; warehouse?: string; name?: string } = {}): Promise<Table> {
  const catalog = await Catalog.open(opts.warehouse ?? freshWarehouse(() => tempDir("paimon-rt-dedup-"), "rt"));
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.${opts.name ?? `d${counter++}`}`, dedupTableSpec(options, opts.partitioned));
}

/** A batch [id, _REALTIME_OFFSET, v, dt]; v = `v<offset>` unless given. */
export function dedupBatch(rows: Array<[id: number, offset: number]>, opts: { dt?: string; values?: string[] } = {}): arrow.RecordBatch {
  const n = rows.length;
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: BigInt64Array.from(rows.map(([id]) => BigInt(id))) }),
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: BigInt64Array.from(rows.map(([, o]) => BigInt(o))) }),
    v: arrow.vectorFromArray(opts.values ?? rows.map(([, o]) => `v${o}`), new arrow.Utf8()).data[0],
    dt: arrow.vectorFromArray(rows.map(() => opts.dt ?? "d1"), new arrow.Utf8()).data[0],
  });
}
