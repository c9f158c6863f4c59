// Batch reads of a table with `scan.fallback-branch` or `scan.primary-branch`, as Java Paimon
// 1.4.2's `FallbackReadFileStoreTable` (which `FileStoreTableFactory.create` wraps such a table
// in): the partitions of the first branch are read from it, the partitions only the second branch
// has from that one. With `scan.fallback-branch=b` the table's own branch comes first and b
// second; with `scan.primary-branch=b`, b first and the table's own branch second. A partition is
// "in" the first branch when its snapshot (time travel included) has a live file there matching
// the partition filter; the value filter does not decide it. Writes, stream scans and the other
// entry points stay on the table's own branch (Java delegates them to the wrapped table).
// Loaded lazily by table.ts for such tables only; its run-time deps come from table.ts.
import { PaimonError } from "../error.js";
import type { DataField, fieldToString as fieldToStringFn } from "../spec/types.js";
import type { Plan, Split } from "../scan/split.js";
import type { ScanOptions, TableScan } from "../scan/table-scan.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { TableSchema } from "../spec/schema.js";
import type { BatchReader, ReadOptions, TableRead } from "./table-read.js";
import type { RecordBatch } from "apache-arrow";
import type { recordBatch as recordBatchFn } from "../arrow/record-batch.js";
import type { FileIO } from "../fs/file-io.js";
import type { SchemaManager as SchemaManagerClass } from "../table/schema-manager.js";
import { earlierOrEqualTimeMillis } from "../table/time-travel.js";

/** A table of one branch with its scans and reads (the `Table` facade). */
export interface BranchTable extends FileStoreTable {
  newScan(options?: ScanOptions): TableScan;
  newRead(options?: ReadOptions): TableRead;
  copy(dynamicOptions: Readonly<Record<string, string | number | boolean>>): BranchTable;
}

/**
 * The query bundle's functions this chunk uses (spec/types.ts `fieldToString`, arrow/record-batch.ts
 * `recordBatch`), passed in by table.ts; like time-travel.ts it imports the error class only, and
 * the table's and its schema manager's classes come with the table.
 */
export interface BranchFallbackDeps {
  readonly fieldToString: typeof fieldToStringFn;
  readonly recordBatch: typeof recordBatchFn;
}

/** The facade's class: the other branch's table has no fallback of its own (Java `createWithoutFallbackBranch`). */
type TableClass = new (fileIO: FileIO, identifier: string, location: string, schema: TableSchema) => BranchTable;

/** Java `StringUtils.isNullOrWhitespaceOnly`. */
const blank = (v: string | undefined): boolean => v === undefined || v.trim() === "";

/**
 * Makes `table`'s batch scans and reads, and those of its copies, read two branches: the one its
 * `scan.fallback-branch` names (after its own) or its `scan.primary-branch` names (before its own;
 * the former wins, as in Java's factory). The other branch is opened on the side: a bad name
 * rejects the scan's plan, a missing branch leaves the table reading its own (Java logs it).
 * `Table.copy` keeps the other branch (a copy's options naming another change nothing, as Java's
 * `copy`) and hands it the copy's options.
 */
export function addBranchFallback(table: BranchTable, D: BranchFallbackDeps): void {
  const o = table.schema.options;
  if (blank(o["scan.fallback-branch"]) && blank(o["scan.primary-branch"])) return;
  const ownFirst = !blank(o["scan.fallback-branch"]);
  install(table, {}, D, (ownFirst ? o["scan.fallback-branch"] : o["scan.primary-branch"])!, ownFirst);
}

/** Of each table `addBranchFallback` installed on (and of their copies): its other branch, as it opens, and its own scans. */
const installed = new WeakMap<BranchTable, { other: Promise<{ table: BranchTable | null; ownFirst: boolean }>; ownScan: (options?: ScanOptions) => TableScan }>();

/** A table's other branch and which of the two comes first. */
export interface OtherBranch {
  readonly table: BranchTable;
  /** Whether the table's own branch comes first (`scan.fallback-branch`) or the other (`scan.primary-branch`). */
  readonly ownFirst: boolean;
}

/**
 * The other branch `table`'s batch scans read (as Java's `FallbackReadFileStoreTable.other()`),
 * for the system tables built on the table's scan (`$partitions`, `$files`): null without one (no
 * fallback option, a missing branch, a time-travel view of one snapshot). The row types are
 * checked as the scan checks them (INVALID_ARGUMENT with Java's message).
 */
export async function otherBranchOf(table: BranchTable, D: BranchFallbackDeps): Promise<OtherBranch | null> {
  const entry = installed.get(table);
  if (entry === undefined || table.pinnedSnapshotId !== null) return null;
  const b = await entry.other;
  if (b.table === null) return null;
  checkSameRowType(table, b.table, D);
  return { table: b.table, ownFirst: b.ownFirst };
}

/**
 * The plan of `table`'s batch scan over both branches with each branch's own scan options
 * (`optionsOf`), as Java's `FallbackReadFileStoreTable.newScan(scanCreator)`: `$ro` scans each
 * branch at its own highest level, and takes a partition from the first branch when that has files
 * there. Null when `table` reads its own branch only.
 */
export async function planBranches(table: BranchTable, optionsOf: (t: BranchTable) => ScanOptions, D: BranchFallbackDeps): Promise<Plan | null> {
  const entry = installed.get(table);
  const other = await otherBranchOf(table, D);
  if (entry === undefined || other === null) return null;
  return planBoth(table, other.table, other.ownFirst, () => entry.ownScan(optionsOf(table)).plan(), optionsOf, D);
}

function install(table: BranchTable, dynamicOptions: Readonly<Record<string, string>>, D: BranchFallbackDeps, name: string, ownFirst: boolean): void {
  const other = openOther(table, dynamicOptions, D, name).then((t) => ({ table: t, ownFirst }));
  other.catch(() => undefined); // (a rejection rejects the plan that awaits it, not the process)
  const newScan = table.newScan.bind(table);
  installed.set(table, { other, ownScan: newScan });
  table.newScan = (options) => {
    const scan = newScan(options);
    if (table.pinnedSnapshotId !== null) return scan; // (atSnapshot views read their own branch)
    const own = scan.plan.bind(scan);
    scan.plan = async () => {
      const b = await other;
      return b.table === null ? own() : planBoth(table, b.table, b.ownFirst, own, () => options ?? {}, D);
    };
    return scan;
  };
  const newRead = table.newRead.bind(table);
  table.newRead = (options) => {
    const read = newRead(options);
    const own = read.createReader.bind(read);
    read.createReader = async (splits) => {
      const b = await other;
      return b.table === null ? own(splits) : readBoth(read, b.table, own, options, splits, D);
    };
    return read;
  };
  const copy = table.copy.bind(table);
  table.copy = (options) => {
    const c = copy(options);
    install(c, { ...dynamicOptions, ...Object.fromEntries(Object.entries(options).map(([k, v]) => [k, String(v)])) }, D, name, ownFirst);
    return c;
  };
}

/**
 * Branch `name` as the other branch of `table`, opened with `dynamicOptions` (the `Table.copy`
 * options) rewritten as Java's `rewriteOtherOptions`: `bucket` dropped, `scan.snapshot-id` mapped
 * to the other branch's snapshot at or before that snapshot's time (its first when none). Null
 * when the branch does not exist.
 */
async function openOther(table: BranchTable, dynamicOptions: Readonly<Record<string, string>>, D: BranchFallbackDeps, name: string): Promise<BranchTable | null> {
  const schema = await new (table.schemaManager.constructor as typeof SchemaManagerClass)(table.fileIO, table.location, name).latest();
  if (schema === null) return null;
  const { bucket: _bucket, "scan.snapshot-id": snapshotId, ...dynamic } = dynamicOptions;
  const options: Record<string, string> = { ...schema.options, ...dynamic, branch: name };
  if (name === MAIN) delete options.branch;
  // (a copy parses the table's time-travel options)
  const t = new (table.constructor as TableClass)(table.fileIO, table.identifier, table.location, { ...schema, options });
  if (snapshotId === undefined || !/^\s*\d+\s*$/.test(snapshotId)) return t.copy({});
  const millis = (await table.snapshot(Number(snapshotId))).timeMillis;
  const at = await earlierOrEqualTimeMillis(t.snapshotManager, millis);
  return t.copy({ "scan.snapshot-id": String(at?.id ?? 1) });
}

const MAIN = "main";

/** Java `FallbackReadFileStoreTable.validateSchema`, plus the same column names (reads and filters address columns by name). */
function checkSameRowType(own: BranchTable, other: BranchTable, D: BranchFallbackDeps): void {
  const a = own.schema.fields;
  const b = other.schema.fields;
  const rowType = (s: TableSchema) => `ROW<${s.fields.map((f) => D.fieldToString(f)).join(", ")}>`;
  // (Java DataType.equalsIgnoreNullable: the types as SQL, the outer nullability aside)
  const sql = (f: DataField) => D.fieldToString({ ...f, name: "", description: undefined, type: { ...f.type, nullable: true } });
  if (a.length !== b.length || a.some((f, i) => sql(f) !== sql(b[i]))) {
    const ownName = own.coreOptions.branch;
    const otherName = other.coreOptions.branch;
    throw new PaimonError("INVALID_ARGUMENT", `Branch ${ownName} and ${otherName} does not have the same row type.\nRow type of branch ${ownName} is ${rowType(own.schema)}.\nRow type of branch ${otherName} is ${rowType(other.schema)}.`);
  }
  const renamed = a.findIndex((f, i) => f.name !== b[i].name);
  if (renamed >= 0) {
    throw new PaimonError("UNSUPPORTED", `scan of table ${own.identifier}: column ${renamed + 1} is '${a[renamed].name}' on branch ${own.coreOptions.branch} but '${b[renamed].name}' on branch ${other.coreOptions.branch}; reads of branches whose column names differ are not supported`);
  }
}

/**
 * Java `FallbackReadScan.plan`: the first branch's splits, then the second's of the partitions the
 * first does not have; each branch scanned with its `optionsOf` (Java's `scanCreator`).
 */
async function planBoth(own: BranchTable, other: BranchTable, ownFirst: boolean, ownPlan: () => Promise<Plan>, optionsOf: (t: BranchTable) => ScanOptions, D: BranchFallbackDeps): Promise<Plan> {
  checkSameRowType(own, other, D);
  for (const t of [own, other]) {
    const travel = await t.timeTravel;
    if (travel instanceof PaimonError) throw travel;
    if (travel?.kind === "incremental") throw new PaimonError("UNSUPPORTED", `scan of table ${own.identifier}: incremental options are not supported with ${ownFirst ? "scan.fallback-branch" : "scan.primary-branch"}`);
  }
  const otherPlan = () => other.newScan(optionsOf(other)).plan();
  const [first, second] = ownFirst ? [own, other] : [other, own];
  const firstPlan = await (ownFirst ? ownPlan() : otherPlan());
  // the first branch's partitions by the partition filter alone (Java newPartitionListingScan)
  const complete = new Set<string>();
  if (firstPlan.snapshotId !== null) {
    const snapshot = await first.snapshot(firstPlan.snapshotId);
    const { filter, partitions, level } = optionsOf(first);
    const { keepManifest, keepEntry } = first.newScan({ filter, partitions, level }).filters();
    for (const e of await first.manifestStore.liveEntries(snapshot, keepManifest, keepEntry)) complete.add(e.partition.join(","));
  }
  const secondPlan = await (ownFirst ? otherPlan() : ownPlan());
  const rest = secondPlan.splits.filter((s) => !complete.has(s.partitionRow.join(",")));
  const otherName = other.coreOptions.branch;
  const mark = (splits: readonly Split[], t: BranchTable) => (t === other ? splits.map((s) => ({ ...s, branch: otherName })) : splits);
  return { snapshotId: (ownFirst ? firstPlan : secondPlan).snapshotId, splits: [...mark(firstPlan.splits, first), ...mark(rest, second)] };
}

/** Reads `splits` in order, each run of one branch's splits by that branch's read, the batches under `read`'s schema. */
async function readBoth(read: TableRead, other: BranchTable, ownReader: (splits: readonly Split[]) => Promise<BatchReader>, options: ReadOptions | undefined, splits: readonly Split[], D: BranchFallbackDeps): Promise<BatchReader> {
  let otherRead: TableRead | null = null;
  const batches = async function* (): AsyncGenerator<RecordBatch, void, undefined> {
    for (let i = 0; i < splits.length; ) {
      const isOther = splits[i].branch !== undefined;
      let j = i + 1;
      while (j < splits.length && (splits[j].branch !== undefined) === isOther) j++;
      const run = splits.slice(i, j);
      i = j;
      const reader = isOther ? await (otherRead ??= other.newRead(options)).createReader(run) : await ownReader(run);
      try {
        if (!isOther) yield* reader;
        // the other branch's batches: the same columns, under the read's schema (nullability may differ, as Java allows)
        else for await (const b of reader) yield D.recordBatch(read.outputSchema, b.data.children, b.numRows);
      } finally {
        await reader.close();
      }
    }
  };
  const generator = batches();
  return {
    [Symbol.asyncIterator]: () => generator,
    close: async () => {
      await generator.return(undefined);
    },
  };
}
