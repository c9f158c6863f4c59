// `paimon-rt read <table> [--where …] [--select …] [--limit N] [--format table|json|csv] [--snapshot N] [--option key=value …] [--follow]`
import { PaimonError } from "../error.js";
import type { Plan } from "../scan/split.js";
import type { DataField } from "../spec/types.js";
import { Table } from "../table/table.js";
import { cellValue, type OutputFormat, render } from "./format.js";
import { parseWhere } from "./where.js";

export interface ReadCommand {
  location: string;
  where?: string;
  select?: string[];
  limit?: number;
  format: OutputFormat;
  snapshotId?: number;
  /** `--option key=value`: dynamic options (`Table.copy`), e.g. incremental-between=3,7. */
  dynamicOptions?: Record<string, string>;
  /** `--follow`: a streaming read (Table.streamRead), each row with its `_kind`, until `signal` aborts or `limit` rows. */
  follow?: boolean;
  signal?: AbortSignal;
}

export async function readTableCommand(cmd: ReadCommand, out: (text: string) => void): Promise<number> {
  if (cmd.follow && cmd.snapshotId !== undefined) throw new PaimonError("INVALID_ARGUMENT", "--follow streams the table itself: start at a snapshot with --option scan.snapshot-id=N");
  // `<table>$snapshots`: a system table of the table (Java's `db.t$snapshots`)
  const system = /^(.*[^/$])\$([A-Za-z_]+)\/?$/.exec(cmd.location);
  const latest = await Table.open(system === null ? cmd.location : system[1]);
  // --snapshot reads with that snapshot's schema, as Java and pypaimon time travel
  const data = cmd.snapshotId === undefined ? latest : await latest.atSnapshot(cmd.snapshotId);
  const view = cmd.dynamicOptions === undefined ? data : data.copy(cmd.dynamicOptions);
  const table = system === null ? view : await view.systemTable(system[2]);
  if (cmd.follow) return followTable(table, cmd, out);
  const { fields, rows } = await queryTable(table, cmd);
  out(render(fields, rows, cmd.format));
  return rows.length;
}

/** What {@link queryTable} found: the columns, their rows (as `cellValue` gives them) and the scan plan read. */
export interface QueryResult {
  fields: DataField[];
  rows: unknown[][];
  plan: Plan;
}

/**
 * The query behind `paimon-rt read` and the `serve` explorer: a `--where` expression (exact
 * filtering), top-level columns and a row limit on `table` (a time-travel view reads its snapshot).
 */
export async function queryTable(table: Table, query: { where?: string; select?: string[]; limit?: number }): Promise<QueryResult> {
  const filter = query.where ? parseWhere(query.where) : undefined;
  const fields = (query.select ?? table.schema.fields.map((f) => f.name)).map((n) => {
    const f = table.schema.fields.find((x) => x.name === n);
    if (!f) throw new PaimonError("INVALID_ARGUMENT", `unknown column ${n}`);
    return f;
  });
  const plan = await table.newScan({ filter }).plan();
  const read = table.newRead({ projection: query.select, filter, predicateFilter: true });
  const rows: unknown[][] = [];
  const limit = query.limit ?? Infinity;
  const reader = await read.createReader(plan.splits);
  try {
    for await (const batch of reader) {
      for (let r = 0; r < batch.numRows && rows.length < limit; r++) {
        rows.push(fields.map((f, i) => cellValue(batch.data.children[i], r, f)));
      }
      if (rows.length >= limit) break;
    }
  } finally {
    await reader.close();
  }
  return { fields, rows, plan };
}

const KINDS = ["+I", "-U", "+U", "-D"];

/** `--follow`: prints each plan of a stream scan as it arrives (rows with their kind first). */
async function followTable(table: Table, cmd: ReadCommand, out: (text: string) => void): Promise<number> {
  const filter = cmd.where ? parseWhere(cmd.where) : undefined;
  const fields = (cmd.select ?? table.schema.fields.map((f) => f.name)).map((n) => {
    const f = table.schema.fields.find((x) => x.name === n);
    if (!f) throw new PaimonError("INVALID_ARGUMENT", `unknown column ${n}`);
    return f;
  });
  const kind = { id: -1, name: "_kind", type: { kind: "STRING", nullable: false } } as unknown as DataField;
  const limit = cmd.limit ?? Infinity;
  const stop = new AbortController();
  cmd.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  let count = 0;
  for await (const batch of table.streamRead({ filter, signal: stop.signal, read: { projection: cmd.select, filter, predicateFilter: true, withRowKind: true } })) {
    const kinds = batch.data.children[0].values as Int8Array;
    const rows: unknown[][] = [];
    for (let r = 0; r < batch.numRows && count < limit; r++, count++) rows.push([KINDS[kinds[r]], ...fields.map((f, i) => cellValue(batch.data.children[i + 1], r, f))]);
    if (rows.length > 0) out(render([kind, ...fields], rows, cmd.format));
    if (count >= limit) stop.abort();
  }
  return count;
}
