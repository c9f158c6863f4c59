// Randomized model test of the changelog producers (input, lookup with and without deletion
// vectors and with row-deduplicate, first-row lookup, full-compaction): random commits of all row
// kinds over colliding keys, some with full compactions, and the changelog files of every commit
// (read straight from the snapshots' changelog manifests) compared with a model of Java's rules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FileStoreTable } from "../../src/table/file-store-table.js";
import { readKvFile } from "../../src/read/kv-file-reader.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { createPkTable, keyOf, type Row, writeCommit } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

interface Commit {
  rows: Array<{ row: Row; rowKind: RowKind }>;
  full: boolean;
}

const rowArb = fc.record({
  dt: fc.constantFrom("p1", "p2"),
  id: fc.integer({ min: 0, max: 6 }).map(BigInt),
  name: fc.constantFrom("a", "b"),
  v: fc.constantFrom(null, "x", "y"),
  n: fc.constantFrom(null, 1, 2),
});

const commitArb = (kinds: RowKind[]): fc.Arbitrary<Commit> =>
  fc.record({ rows: fc.array(fc.record({ row: rowArb, rowKind: fc.constantFrom(...kinds) }), { maxLength: 20 }), full: fc.boolean() });

const ADDS = [RowKind.INSERT, RowKind.UPDATE_AFTER];
const AGG = { "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "last_non_null_value" };
const ALL = [RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE];
const isAdd = (k: number) => k === RowKind.INSERT || k === RowKind.UPDATE_AFTER;
const line = (kind: number, r: Row) => `${keyOf(r)}|${["+I", "-U", "+U", "-D"][kind]}|${r.v}|${r.n}`;

/** The changelog rows of the snapshots after `from` up to the latest, per key in file order, keys sorted. */
async function changelogOf(table: Table, from: number): Promise<string[]> {
  const t = table as unknown as FileStoreTable;
  const latest = (await t.latestSnapshot())?.id ?? 0;
  const lines: Array<[string, string]> = [];
  for (let id = from + 1; id <= latest; id++) {
    const s = await t.snapshot(id);
    for (const e of await t.manifestStore.changelogEntries(s)) {
      expect(e.file.fileName, "changelog file name").toMatch(/^changelog-[0-9a-f-]{36}-\d+\.parquet$/);
      for await (const c of readKvFile(t.fileIO, t.manifestStore.paths.dataFilesOf(e.partition, e.bucket, e.file)[0], e.file, t.schema.fields, { batchSize: 1 << 16 })) {
        const rows = c.batch.toArray().map((x) => x.toJSON() as unknown as Row);
        rows.forEach((r, i) => lines.push([keyOf(r), line(c.kinds[i], r)]));
      }
    }
  }
  // stable: a key's rows keep their order
  return lines.map((x, i) => [x, i] as const).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([x]) => x[1]);
}

type Producer = "input" | "lookup" | "first-row" | "full-compaction";
/** How a key's records merge: deduplicate, partial-update, aggregation (v last_non_null_value, n sum), deduplicate by sequence.field n. */
type Merge = "deduplicate" | "partial-update" | "aggregation" | "sequence";

/** The key's row after `records` (+I/+U only, except deduplicate) merge into `old`. */
function merged(merge: Merge, old: Row | undefined, records: Array<{ row: Row; rowKind: RowKind }>): Row | undefined {
  let state = old;
  for (const { row, rowKind } of records) {
    if (merge === "deduplicate") state = isAdd(rowKind) ? row : undefined;
    else if (merge === "partial-update") state = state ? { ...row, v: row.v ?? state.v, n: row.n ?? state.n } : row;
    else if (merge === "aggregation") state = state ? { ...row, v: row.v ?? state.v, n: row.n === null ? state.n : (state.n ?? 0) + row.n } : row;
    // a later record wins unless its n is lower (null lowest), as Java's UserDefinedSeqComparator
    else if (!state || (row.n ?? -Infinity) >= (state.n ?? -Infinity)) state = row;
  }
  return state;
}

/** Java's changelog of one commit, from the rows before (`state`) and, for full-compaction, the max-level rows (`top`). */
function expectedChangelog(producer: Producer, commit: Commit, state: Map<string, Row>, top: Map<string, Row>, dirty: Set<string>, rowDedup: boolean, merge: Merge): string[] {
  const out: string[] = [];
  const byKey = new Map<string, Array<{ row: Row; rowKind: RowKind }>>();
  for (const x of commit.rows) {
    const k = keyOf(x.row);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(x);
  }
  const change = (before: Row | undefined, after: Row | undefined, afterKind: RowKind) => {
    if (before === undefined) {
      if (after !== undefined && isAdd(afterKind)) out.push(line(RowKind.INSERT, after));
    } else if (after === undefined || !isAdd(afterKind)) out.push(line(RowKind.DELETE, before));
    else if (!(rowDedup && before.v === after.v && before.n === after.n)) out.push(line(RowKind.UPDATE_BEFORE, before), line(RowKind.UPDATE_AFTER, after));
  };
  const keys = [...byKey.keys()].sort();
  if (producer === "input") for (const k of keys) for (const x of byKey.get(k)!) out.push(line(x.rowKind, x.row));
  if (producer === "lookup") {
    for (const k of keys) {
      // (merge functions: the merged row, +I; deduplicate: the last record, with its kind)
      const last = byKey.get(k)!.at(-1)!;
      if (merge === "deduplicate") change(state.get(k), last.row, last.rowKind);
      else change(state.get(k), merged(merge, state.get(k), byKey.get(k)!), RowKind.INSERT);
    }
  }
  if (producer === "first-row") for (const k of keys) if (!state.has(k)) out.push(line(RowKind.INSERT, byKey.get(k)![0].row));
  // apply the commit
  for (const k of keys) {
    dirty.add(k);
    if (producer === "first-row") {
      if (!state.has(k)) state.set(k, byKey.get(k)![0].row);
      continue;
    }
    const row = merged(merge, state.get(k), byKey.get(k)!);
    if (row) state.set(k, row);
    else state.delete(k);
  }
  if (producer === "full-compaction" && commit.full) {
    for (const k of [...dirty].sort()) {
      const after = state.get(k);
      change(top.get(k), after, after ? RowKind.INSERT : RowKind.DELETE);
    }
    dirty.clear();
    top.clear();
    for (const [k, r] of state) top.set(k, r);
  }
  return out;
}

async function run(producer: Producer, options: Record<string, string>, commits: Commit[]): Promise<void> {
  const table = await createPkTable({ "changelog-producer": producer === "first-row" ? "lookup" : producer, ...(producer === "first-row" ? { "merge-engine": "first-row" } : {}), ...options });
  const state = new Map<string, Row>();
  const top = new Map<string, Row>();
  const dirty = new Set<string>();
  const rowDedup = options["changelog-producer.row-deduplicate"] === "true";
  let from = 0;
  for (const [i, c] of commits.entries()) {
    const merge: Merge = options["sequence.field"] ? "sequence" : ((options["merge-engine"] ?? "deduplicate") as Merge);
    const want = expectedChangelog(producer, c, state, top, dirty, rowDedup, merge);
    await writeCommit(table, "u", [{ rows: c.rows.map((x) => x.row), kinds: c.rows.map((x) => x.rowKind) }], { compact: c.full });
    const got = await changelogOf(table, from);
    // (the full-compaction expectation is per key over the whole table, sorted: compare sorted)
    expect(producer === "full-compaction" ? [...got].sort() : got, `commit ${i}`).toEqual(producer === "full-compaction" ? [...want].sort() : want);
    from = (await table.latestSnapshot())?.id ?? 0;
  }
}

describe("changelog producers against a model of Java's rules", () => {
  const cases: Array<[string, Producer, Record<string, string>, RowKind[]]> = [
    ["input", "input", {}, ALL],
    ["input with deletion vectors", "input", { "deletion-vectors.enabled": "true" }, ALL],
    ["lookup", "lookup", {}, ALL],
    ["lookup with deletion vectors", "lookup", { "deletion-vectors.enabled": "true" }, ALL],
    ["lookup, row-deduplicate", "lookup", { "changelog-producer.row-deduplicate": "true" }, ALL],
    ["lookup, several level-0 files per commit", "lookup", { "write-buffer-size": "1 kb", "num-sorted-run.compaction-trigger": "2" }, ALL],
    ["first-row lookup", "first-row", {}, [RowKind.INSERT, RowKind.UPDATE_AFTER]],
    ["full-compaction", "full-compaction", { "num-sorted-run.compaction-trigger": "100" }, ALL],
    ["full-compaction, partial-update", "full-compaction", { "merge-engine": "partial-update", "num-sorted-run.compaction-trigger": "100" }, [RowKind.INSERT, RowKind.UPDATE_AFTER]],
    ["lookup, partial-update", "lookup", { "merge-engine": "partial-update" }, ADDS],
    ["lookup, partial-update, several level-0 files per commit", "lookup", { "merge-engine": "partial-update", "write-buffer-size": "1 kb", "num-sorted-run.compaction-trigger": "2" }, ADDS],
    ["lookup, partial-update with deletion vectors", "lookup", { "merge-engine": "partial-update", "deletion-vectors.enabled": "true" }, ADDS],
    ["lookup, aggregation", "lookup", AGG, ADDS],
    ["lookup, aggregation, row-deduplicate", "lookup", { ...AGG, "changelog-producer.row-deduplicate": "true" }, ADDS],
    ["lookup, sequence.field", "lookup", { "sequence.field": "n" }, ADDS],
    ["lookup, sequence.field, several level-0 files per commit", "lookup", { "sequence.field": "n", "write-buffer-size": "1 kb", "num-sorted-run.compaction-trigger": "2" }, ADDS],
    ["lookup, sequence.field with deletion vectors", "lookup", { "sequence.field": "n", "deletion-vectors.enabled": "true" }, ADDS],
    ["full-compaction, sequence.field", "full-compaction", { "sequence.field": "n", "num-sorted-run.compaction-trigger": "100" }, ADDS],
  ];
  for (const [name, producer, options, kinds] of cases) {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(commitArb(kinds), { minLength: 1, maxLength: 6 }), (commits) => run(producer, options, commits)),
        { numRuns: runs(15) },
      );
    }, 120_000);
  }
});
