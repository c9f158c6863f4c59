import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import type { RealtimeContext } from "../../src/realtime/context.js";
import type { Predicate } from "../../src/predicate/predicate.js";
import { freshWarehouse } from "../support/warehouses.js";

const dirs: string[] = [];
export function tempDir(prefix = "paimon-rt-rt-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

let counter = 0;
export async function makeTable(
  options: Record<string, string | number | boolean> = {},
  opts: { partitioned?: boolean; warehouse?: string; name?: string; primaryKeys?: string[] } = {},
): Promise<Table> {
  const catalog = await Catalog.open(opts.warehouse ?? freshWarehouse(() => tempDir(), "rt"));
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.${opts.name ?? `t${counter++}`}`, {
    fields: [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "name", type: "STRING" },
      { name: "v", type: "DOUBLE" },
      { name: "dt", type: "STRING" },
    ],
    partitionKeys: opts.partitioned ? ["dt"] : [],
    ...(opts.primaryKeys ? { primaryKeys: opts.primaryKeys } : {}),
    options: { bucket: 2, ...(opts.primaryKeys ? {} : { "bucket-key": "id" }), "realtime.enabled": true, ...options },
  });
}

/** A batch laid out [_REALTIME_OFFSET, id, name, v, dt]; id = offset unless given. */
export function rtBatch(offsets: Array<number | bigint>, opts: { ids?: number[]; dt?: string; names?: Array<string | null> } = {}): arrow.RecordBatch {
  const n = offsets.length;
  const ids = opts.ids ?? offsets.map((o) => Number(o));
  return new arrow.RecordBatch({
    _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(offsets.map((o) => BigInt(o))) }),
    id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(ids.map((i) => BigInt(i))) }),
    name: arrow.vectorFromArray(opts.names ?? ids.map((i) => `n${i}`), new arrow.Utf8()).data[0],
    v: arrow.makeData({ type: new arrow.Float64(), length: n, data: Float64Array.from(ids.map((i) => i / 2)) }),
    dt: arrow.vectorFromArray(ids.map(() => opts.dt ?? "d1"), new arrow.Utf8()).data[0],
  });
}

/** rtBatch with the given raw offsets (ids from them); `nulls`: the first offset is null. */
export function offsetsBatch(offsets: BigInt64Array, nulls = false): arrow.RecordBatch {
  const b = rtBatch(Array.from(offsets, (o) => (o < 0n ? 0 : Number(o % 1000000n))));
  const n = offsets.length;
  const children = [...b.data.children];
  children[0] = arrow.makeData({ type: new arrow.Int64(), length: n, data: offsets, nullCount: nulls ? 1 : 0, nullBitmap: nulls ? Uint8Array.from([0b11111110]) : undefined });
  return new arrow.RecordBatch(b.schema, arrow.makeData({ type: new arrow.Struct(b.schema.fields), length: n, nullCount: 0, children }));
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

export interface ReadArgs {
  ctx?: RealtimeContext;
  snapshotId?: number;
  filter?: Predicate;
  predicateFilter?: boolean;
  projection?: string[];
  batchSize?: number;
  partitions?: Array<Record<string, unknown>>;
  buckets?: number[];
}

/** Plans and reads; returns the rows as plain objects (ids as numbers), in read order. */
export async function readRows(table: Table, args: ReadArgs = {}): Promise<Array<Record<string, unknown>>> {
  const plan = await table.newScan({ realtime: args.ctx, snapshotId: args.snapshotId, filter: args.filter, partitions: args.partitions, buckets: args.buckets }).plan();
  const t = await table.newRead({ realtime: args.ctx, filter: args.filter, predicateFilter: args.predicateFilter, projection: args.projection, batchSize: args.batchSize }).toArrow(plan.splits);
  return t.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    if (typeof o.id === "bigint") o.id = Number(o.id);
    return o;
  });
}

export async function readIds(table: Table, args: ReadArgs = {}): Promise<number[]> {
  return (await readRows(table, args)).map((r) => r.id as number).sort((a, b) => a - b);
}

export async function expectCode(p: Promise<unknown> | (() => unknown), code: string): Promise<Error> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code !== code) throw new Error(`expected ${code}, got ${err.code ?? "no code"}: ${err.message}`);
    return err;
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

/** Full compaction of every bucket by an ordinary writer (no real-time context), committed; returns the snapshot. */
export async function compactFully(table: Table): Promise<number> {
  const w = await table.newWrite({ commitUser: "compactor" });
  await w.compact({ full: true });
  const snap = await table.newCommit({ commitUser: "compactor" }).commit(await w.prepareCommit());
  await w.close();
  return snap!;
}

/** The two real-time primary-key modes (seed 000 "PK MOR" / "PK DV"), for describe.each. */
export const PK_MODES = [
  { name: "PK MOR", options: {} },
  { name: "PK DV", options: { "deletion-vectors.enabled": true } },
] as const;

/** A one-bucket real-time table keyed by id (or dt, id when partitioned). */
export const pkTable = (options: Record<string, string | number | boolean> = {}, partitioned = false): Promise<Table> =>
  makeTable({ bucket: 1, ...options }, { primaryKeys: partitioned ? ["dt", "id"] : ["id"], partitioned });

/** id → name of the visible rows, sorted by id. */
export async function pkView(table: Table, ctx?: RealtimeContext, extra: ReadArgs = {}): Promise<Array<[number, unknown]>> {
  const rows = await readRows(table, { ctx, ...extra });
  return rows.map((r) => [r.id as number, r.name] as [number, unknown]).sort((a, b) => a[0] - b[0]);
}

/** prepareCommitWithProgress(id) committed as user "u". */
export async function commitRealtime(table: Table, w: Awaited<ReturnType<Table["newWrite"]>>, id: number): Promise<number> {
  return table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(id), id);
}
