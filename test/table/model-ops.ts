// The random commits of the incremental and stream scan model tests (incremental-model.test.ts,
// stream-model.test.ts): upserts and deletes, full compactions and overwrites of a table
// (id BIGINT, v STRING; primary key id or append), and the table's rows after each, as the model.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";

export interface Change {
  id: number;
  v: string;
  del: boolean;
}
export type Op = { kind: "write"; rows: Change[] } | { kind: "compact" } | { kind: "overwrite"; rows: Array<{ id: number; v: string }> };

const changeArb: fc.Arbitrary<Change> = fc.record({ id: fc.integer({ min: 0, max: 6 }), v: fc.constantFrom("x", "y", "z"), del: fc.boolean() });
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.array(changeArb, { minLength: 1, maxLength: 6 }).map((rows) => ({ kind: "write" as const, rows })) },
  { weight: 2, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 1, arbitrary: fc.array(fc.record({ id: fc.integer({ min: 0, max: 6 }), v: fc.constantFrom("p", "q") }), { maxLength: 3 }).map((rows) => ({ kind: "overwrite" as const, rows })) },
);

export function batch(rows: Array<{ id: number; v: string }>): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r.id)) }),
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0]!,
  });
}

/**
 * Commits `op` to `table`; null when it commits nothing (a write of only deletes to an append
 * table). `written`: the records a write wrote, in order (an append table's: its inserts; none for
 * compactions and overwrites); `rows`: the table's rows after it ("id|v"), from `rows` before it.
 */
export async function applyOp(table: Table, op: Op, pk: boolean, rows: readonly string[]): Promise<{ written: Change[]; rows: string[] } | null> {
  if (op.kind === "write") {
    const written = pk ? op.rows : op.rows.filter((c) => !c.del);
    if (written.length === 0) return null;
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(batch(written), pk ? { rowKinds: written.map((c) => (c.del ? RowKind.DELETE : RowKind.INSERT)) } : {});
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    if (!pk) return { written, rows: [...rows, ...written.map((c) => `${c.id}|${c.v}`)] };
    const state = new Map(rows.map((r) => [Number(r.split("|")[0]), r]));
    for (const c of written) {
      if (c.del) state.delete(c.id);
      else state.set(c.id, `${c.id}|${c.v}`);
    }
    return { written, rows: [...state.values()] };
  }
  if (op.kind === "compact") {
    const w = await table.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    return { written: [], rows: [...rows] };
  }
  const w = await table.newWrite({ commitUser: "u", overwrite: true });
  if (op.rows.length > 0) await w.write(batch(op.rows));
  await table.newCommit({ commitUser: "u" }).overwrite(await w.prepareCommit());
  await w.close();
  return { written: [], rows: pk ? [...new Map(op.rows.map((r) => [r.id, `${r.id}|${r.v}`])).values()] : op.rows.map((r) => `${r.id}|${r.v}`) };
}

/** A primary-key write's delta records: one per key, the last ("+I|id|v" / "-D|id|v"). */
export function lastPerKey(written: readonly Change[]): string[] {
  const last = new Map<number, Change>();
  for (const c of written) last.set(c.id, c);
  return [...last.values()].map((c) => `${c.del ? "-D" : "+I"}|${c.id}|${c.v}`);
}
