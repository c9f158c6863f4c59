/**
 * Writing oracle-style rows (oracle/README.md: JSON values, `_kind` "+I" / "-U" / "+U" / "-D",
 * "+I" when absent) into a table with paimon-rt: the same commits the oracles' `write` makes, so
 * interop tests can write one commit list with Java, pypaimon and paimon-rt and compare.
 */
import type { Table } from "../../src/table/table.js";
import { type FieldLike, rowsToBatch } from "./convert.js";
import type { OracleRow } from "./oracle/harness.js";

/** An oracle row with its row kind. */
export type KindRow = OracleRow & { _kind?: string };

const KIND_CODES = ["+I", "-U", "+U", "-D"];

/** The RowKind value of an oracle `_kind` ("+I" when absent). */
export function rowKindOf(kind: string | undefined): number {
  const code = KIND_CODES.indexOf(kind ?? "+I");
  if (code < 0) throw new Error(`unknown row kind ${kind}`);
  return code;
}

/**
 * One commit of `rows` through a new writer of `table`: written (when there are rows), fully
 * compacted first when `compact`, committed with `identifier` when given.
 */
export async function rtCommitRows(table: Table, fields: readonly FieldLike[], rows: readonly KindRow[], options: { compact?: boolean; identifier?: number; commitUser?: string } = {}): Promise<void> {
  const commitUser = options.commitUser ?? "rt";
  const write = await table.newWrite({ commitUser });
  try {
    if (rows.length > 0) await write.write(rowsToBatch(fields, rows.map(({ _kind, ...r }) => r)), { rowKinds: rows.map((r) => rowKindOf(r._kind)) });
    if (options.compact) await write.compact({ full: true });
    await table.newCommit({ commitUser }).commit(await write.prepareCommit(options.identifier), options.identifier);
  } finally {
    await write.close();
  }
}
