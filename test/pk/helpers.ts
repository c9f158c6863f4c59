// Shared helpers of the primary-key table tests.
import * as arrow from "apache-arrow";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import type { RowKind } from "../../src/write/table-write.js";
import { freshWarehouse } from "../support/warehouses.js";

/** A row of the test table: key (dt, id, name), values (v, n). */
export interface Row {
  dt: string;
  id: bigint;
  name: string;
  v: string | null;
  n: number | null;
}

export const FIELDS = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "name", type: "STRING NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "INT" },
];

let counter = 0;

/** A new PK table in an in-memory (or given; or, in an S3 suite run, s3://) warehouse. */
export async function createPkTable(options: Record<string, string | number | boolean> = {}, opts: { partitioned?: boolean; warehouse?: string } = {}): Promise<Table> {
  const catalog = await Catalog.open(opts.warehouse ?? freshWarehouse(() => `memory://pk-${process.pid}-${counter++}-${Math.random().toString(36).slice(2)}`, "pk"));
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.t${counter++}`, {
    fields: FIELDS,
    partitionKeys: opts.partitioned === false ? [] : ["dt"],
    primaryKeys: ["dt", "id", "name"],
    options: { bucket: 2, ...options },
  });
}

export function toBatch(rows: readonly Row[]): arrow.RecordBatch {
  const n = rows.length;
  const nValid = new Uint8Array((n + 7) >> 3);
  let nNulls = 0;
  const ns = new Int32Array(n);
  rows.forEach((r, i) => {
    if (r.n === null) nNulls++;
    else {
      ns[i] = r.n;
      nValid[i >> 3] |= 1 << (i & 7);
    }
  });
  return new arrow.RecordBatch({
    dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0],
    id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(rows.map((r) => r.id)) }),
    name: arrow.vectorFromArray(rows.map((r) => r.name), new arrow.Utf8()).data[0],
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0],
    n: arrow.makeData({ type: new arrow.Int32(), length: n, data: ns, nullCount: nNulls, nullBitmap: nNulls > 0 ? nValid : undefined }),
  });
}

export const keyOf = (r: { dt: string; id: bigint; name: string }) => `${r.dt}|${r.id}|${r.name}`;

export function sortRows<T extends { dt: string; id: bigint; name: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/** Every row of the table's latest snapshot (or `snapshotId`), sorted by key. */
export async function readRows(table: Table, options: { snapshotId?: number; projection?: string[] } = {}): Promise<Row[]> {
  const plan = await table.newScan({ snapshotId: options.snapshotId }).plan();
  const t = await table.newRead({ projection: options.projection }).toArrow(plan.splits);
  const out = t.toArray().map((r) => {
    const j = r.toJSON() as Record<string, unknown>;
    return { ...j, id: j.id as bigint, n: j.n === undefined ? undefined : (j.n as number | null) } as Row;
  });
  return sortRows(out);
}

/** Writes batches (with row kinds) in one TableWrite and commits them; returns the snapshot id. */
export async function writeCommit(table: Table, user: string, parts: Array<{ rows: Row[]; kinds?: RowKind[] }>, options: { compact?: boolean | "minor"; identifier?: number } = {}): Promise<number | null> {
  const write = await table.newWrite({ commitUser: user });
  try {
    for (const p of parts) if (p.rows.length > 0) await write.write(toBatch(p.rows), { rowKinds: p.kinds });
    if (options.compact) await write.compact({ full: options.compact === true });
    const messages = await write.prepareCommit(options.identifier);
    return await table.newCommit({ commitUser: user }).commit(messages, options.identifier);
  } finally {
    await write.close();
  }
}

/** Deterministic pseudo-random generator (mulberry32): seeded test data for the interop suites. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
