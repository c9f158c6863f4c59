// `paimon-rt read <table> [--where …] [--select …] [--limit N] [--format table|json|csv] [--snapshot N]`
import { PaimonError } from "../error.js";
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
}

export async function readTableCommand(cmd: ReadCommand, out: (text: string) => void): Promise<number> {
  const latest = await Table.open(cmd.location);
  // --snapshot reads with that snapshot's schema, as Java and pypaimon time travel
  const table = cmd.snapshotId === undefined ? latest : await latest.atSnapshot(cmd.snapshotId);
  const filter = cmd.where ? parseWhere(cmd.where) : undefined;
  const plan = await table.newScan({ filter }).plan();
  const read = table.newRead({ projection: cmd.select, filter, predicateFilter: true });
  const fields = (cmd.select ?? table.schema.fields.map((f) => f.name)).map((n) => {
    const f = table.schema.fields.find((x) => x.name === n);
    if (!f) throw new PaimonError("INVALID_ARGUMENT", `unknown column ${n}`);
    return f;
  });
  const rows: unknown[][] = [];
  const limit = cmd.limit ?? Infinity;
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
  out(render(fields, rows, cmd.format));
  return rows.length;
}
