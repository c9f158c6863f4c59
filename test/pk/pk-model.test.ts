// Randomized model test: upserts / deletes / compactions / commits on primary-key tables,
// compared after every commit with an in-memory Map model (merge-on-read and
// deletion-vector tables, writers reused across commits or recreated).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { and, col } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { RowKind, type TableWrite } from "../../src/write/table-write.js";
import { createPkTable, keyOf, readRows, type Row, sortRows, toBatch } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

type Op =
  | { kind: "write"; rows: Array<{ row: Row; rowKind: RowKind }> }
  | { kind: "compact"; full: boolean; bucket?: number }
  | { kind: "commit"; newWriter: boolean };

const rowArb = fc.record({
  dt: fc.constantFrom("p1", "p2"),
  id: fc.integer({ min: -3, max: 12 }).map(BigInt),
  name: fc.constantFrom("a", "b", "ç"),
  v: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
  n: fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null }),
});

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.record({ row: rowArb, rowKind: fc.constantFrom(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE) }), { minLength: 1, maxLength: 25 }).map((rows) => ({ kind: "write" as const, rows })) },
  { weight: 1, arbitrary: fc.record({ full: fc.boolean(), bucket: fc.option(fc.constantFrom(0, 1), { nil: undefined }) }).map((c) => ({ kind: "compact" as const, ...c })) },
  { weight: 3, arbitrary: fc.boolean().map((newWriter) => ({ kind: "commit" as const, newWriter })) },
);

function apply(model: Map<string, Row>, rows: Array<{ row: Row; rowKind: RowKind }>, engine: string): void {
  const firstRow = engine === "first-row";
  for (const { row, rowKind } of rows) {
    const retract = rowKind === RowKind.DELETE || rowKind === RowKind.UPDATE_BEFORE;
    if (engine === "partial-update") {
      // partial-update with partial-update.ignore-delete: later non-null fields win
      const old = model.get(keyOf(row));
      if (!retract) model.set(keyOf(row), old ? { ...row, v: row.v ?? old.v, n: row.n ?? old.n } : row);
    } else if (firstRow) {
      // first-row with first-row.ignore-delete: retract rows are dropped, the first insert wins
      if (!retract && !model.has(keyOf(row))) model.set(keyOf(row), row);
    } else if (retract) model.delete(keyOf(row));
    else model.set(keyOf(row), row);
  }
}

async function check(table: Table, model: Map<string, Row>, step: string): Promise<void> {
  const expected = sortRows([...model.values()]);
  expect(await readRows(table), step).toEqual(expected);
  // projection without key columns, value filter after the merge, key filter pushed down
  const plan = await table.newScan({ filter: col("id").ge(2n) }).plan();
  const rows = (await table.newRead({ projection: ["n", "v"], filter: and(col("id").ge(2n), col("n").isNotNull()), predicateFilter: true }).toArrow(plan.splits)).toArray().map((r) => r.toJSON());
  const exp = expected.filter((r) => r.id >= 2n && r.n !== null).map((r) => ({ n: r.n, v: r.v }));
  const ord = (x: { n: number | null; v: string | null }) => `${x.n}|${x.v}`;
  expect(rows.map(ord).sort(), `${step} (projected + filtered)`).toEqual(exp.map(ord).sort());
}

async function runOps(options: Record<string, string | number>, ops: Op[]): Promise<void> {
  const { __unpartitioned, ...tableOptions } = options;
  const engine = String(tableOptions["merge-engine"] ?? "deduplicate");
  const table = await createPkTable(tableOptions, { partitioned: __unpartitioned === undefined });
  const model = new Map<string, Row>();
  let pending: Array<{ row: Row; rowKind: RowKind }> = [];
  let write: TableWrite = await table.newWrite({ commitUser: "u" });
  let ident = 0;
  try {
    for (const [i, op] of [...ops, { kind: "commit", newWriter: false } as Op].entries()) {
      if (op.kind === "write") {
        await write.write(toBatch(op.rows.map((r) => r.row)), { rowKinds: op.rows.map((r) => r.rowKind) });
        pending.push(...op.rows);
      } else if (op.kind === "compact") {
        await write.compact({ full: op.full, bucket: op.bucket });
      } else {
        ident++;
        await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(ident), ident);
        apply(model, pending, engine);
        pending = [];
        await check(table, model, `after op ${i} (commit ${ident})`);
        if (op.newWriter) {
          await write.close();
          write = await table.newWrite({ commitUser: "u" });
        }
      }
    }
  } finally {
    await write.close();
  }
}

const OPTIONS = {
  mor: { "num-sorted-run.compaction-trigger": 3, "write-buffer-size": "2 kb", "target-file-size": "2 kb" },
  dv: { "deletion-vectors.enabled": "true", "num-sorted-run.compaction-trigger": 3, "write-buffer-size": "2 kb", "target-file-size": "2 kb" },
  dv64: { "deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true", "num-sorted-run.compaction-trigger": 4, "write-buffer-size": "1 kb" },
  one_bucket_small_files: { bucket: 1, "num-sorted-run.compaction-trigger": 2, "target-file-size": "1 kb" },
  unpartitioned: { __unpartitioned: "true", bucket: 3, "num-sorted-run.compaction-trigger": 4 },
  partial_update: { "merge-engine": "partial-update", "partial-update.ignore-delete": "true", "num-sorted-run.compaction-trigger": 3, "write-buffer-size": "2 kb" },
  first_row: { "merge-engine": "first-row", "first-row.ignore-delete": "true", "num-sorted-run.compaction-trigger": 3, "write-buffer-size": "2 kb" },
};

describe("primary-key model test", () => {
  for (const [name, options] of Object.entries(OPTIONS)) {
    it(`${name}: reads equal the model after every commit`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 24 }), (ops) => runOps(options, ops)),
        { numRuns: runs(name === "mor" ? 120 : 60) },
      );
    }, 240_000);
  }
});
