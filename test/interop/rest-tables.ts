// The (id BIGINT, v STRING) rows both REST catalog interop suites write, read and compare.
import * as arrow from "apache-arrow";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "./convert.js";
import { type OracleRow, sortRows } from "./oracle/harness.js";

/** Rows as compared: numeric ids, null for a missing v, sorted. */
export const norm = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ id: Number(r.id), v: r.v ?? null })));
/** The rows `rtWrite` writes for `ids`. */
export const rowsOf = (ids: number[]): OracleRow[] => ids.map((id) => ({ id, v: `v${id}` }));

/** Writes and commits (id, `v<id>`) for `ids` as commit user "rt"; the snapshot id. */
export async function rtWrite(table: Table, ids: number[]): Promise<number> {
  const w = await table.newWrite({ commitUser: "rt" });
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids, BigInt) }),
      v: arrow.vectorFromArray(ids.map((i) => `v${i}`), new arrow.Utf8()).data[0],
    }),
  );
  const id = await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
  await w.close();
  return id!;
}

/** The table's rows at its latest snapshot, normalised. */
export async function rtRead(table: Table): Promise<OracleRow[]> {
  return norm(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)));
}

/** "ok", or "<code>: <message>" of the PaimonError `p` rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (e) {
    if (e instanceof PaimonError) return `${e.code}: ${e.message}`;
    throw e;
  }
}
