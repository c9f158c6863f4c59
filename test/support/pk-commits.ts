// Commit and read helpers shared by the primary-key merge tests (aggregation, collection and sketch
// aggregates): one write per commit, rows given as oracle rows, optional row kinds and full compaction.
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

let commitIdentifier = 0;

/** Writes `rows` (with `kinds` as row kinds), full-compacts when `compact`, and commits: one snapshot or two. */
export async function commitRows(t: Table, fields: FieldLike[], rows: OracleRow[], kinds?: number[], compact = false): Promise<void> {
  const write = await t.newWrite({ commitUser: "u" });
  try {
    if (rows.length > 0) await write.write(rowsToBatch(fields, rows), kinds ? { rowKinds: kinds } : undefined);
    if (compact) await write.compact({ full: true });
    const id = commitIdentifier++;
    await t.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(id), id);
  } finally {
    await write.close();
  }
}

/** Every row of the latest snapshot as JSON values, sorted by the numeric `id` column. */
export async function readRowsById(t: Table): Promise<OracleRow[]> {
  const rows = arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits));
  return (JSON.parse(JSON.stringify(rows)) as OracleRow[]).sort((a, b) => Number(a.id) - Number(b.id));
}
