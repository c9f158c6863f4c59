// Planning a batch read of a data-evolution table (`data-evolution.enabled`, Java 1.4.2
// `DataEvolutionFileStoreScan` and `DataEvolutionSplitGenerator`): the files of one
// partition-bucket are grouped by overlapping row-id ranges (a group is one range: a full-row file
// and the files that rewrote some of its columns); a filter prunes whole groups by their merged
// statistics (per column, the stats of the newest file holding it, unknown where that file keeps
// none), never single files; groups are packed in row-id order into splits by size. A lazily
// imported chunk: only types are imported, the query bundle's functions come in through the deps.
import type { PaimonError } from "../error.js";
import type { Predicate } from "../predicate/predicate.js";
import type { boundMayMatch, ColumnStats, valueStatsOf } from "../predicate/stats.js";
import type { DataFileMeta, ManifestEntry } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";

/** What the plan uses of the query bundle (table-scan.ts passes it). */
export interface DataEvolutionScanDeps {
  PaimonError: typeof PaimonError;
  boundMayMatch: typeof boundMayMatch;
  valueStatsOf: typeof valueStatsOf;
}

/** The row ids a file holds, [from, to] (Java `DataFileMeta.nonNullRowIdRange`). */
export function rowIdRange(deps: Pick<DataEvolutionScanDeps, "PaimonError">, file: DataFileMeta): [bigint, bigint] {
  if (file.firstRowId === null) throw new deps.PaimonError("CORRUPT_FILE", `data file ${file.fileName} of a data-evolution table has no first row id`);
  return [file.firstRowId, file.firstRowId + file.rowCount - 1n];
}

/**
 * Java `RangeHelper.mergeOverlappingRanges`: items grouped by overlapping row-id ranges, groups in
 * range order, each group in input order.
 */
export function groupByRowIdRange<T>(items: readonly T[], range: (item: T) => [bigint, bigint]): T[][] {
  const indexed = items.map((item, index) => ({ item, index, range: range(item) }));
  indexed.sort((a, b) => (a.range[0] !== b.range[0] ? (a.range[0] < b.range[0] ? -1 : 1) : a.range[1] < b.range[1] ? -1 : a.range[1] > b.range[1] ? 1 : 0));
  const groups: Array<typeof indexed> = [];
  let end = -1n;
  for (const x of indexed) {
    if (groups.length > 0 && x.range[0] <= end) {
      groups[groups.length - 1].push(x);
      if (x.range[1] > end) end = x.range[1];
    } else {
      groups.push([x]);
      end = x.range[1];
    }
  }
  return groups.map((g) => g.sort((a, b) => a.index - b.index).map((x) => x.item));
}

/** The files of a group, newest (highest max sequence number) first: the order in which files win a column. */
export function newestFirst<T extends { maxSequenceNumber: bigint }>(files: readonly T[]): T[] {
  return files.slice().sort((a, b) => (a.maxSequenceNumber > b.maxSequenceNumber ? -1 : a.maxSequenceNumber < b.maxSequenceNumber ? 1 : 0));
}

/** Java `TableSchema.project(writeCols)`: the fields of the file's schema that it holds (all without write columns). */
export function fileColumns(schemaFields: readonly DataField[], file: DataFileMeta): DataField[] {
  if (file.writeCols === null) return schemaFields.slice();
  const byName = new Map(schemaFields.map((f) => [f.name, f]));
  return file.writeCols.map((n) => byName.get(n)).filter((f): f is DataField => f !== undefined);
}

/**
 * The entries of a data-evolution table's snapshot that a read plans, as splits' file lists: one
 * list per split, files of one partition-bucket grouped by row-id range (each group newest first),
 * groups whose merged stats rule `filter` out dropped. `.blob` files are UNSUPPORTED.
 */
export async function planDataEvolutionSplits(deps: DataEvolutionScanDeps, table: FileStoreTable, entries: readonly ManifestEntry[], filter: Predicate | null): Promise<ManifestEntry[][]> {
  const byBucket = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    if (e.file.fileName.endsWith(".blob")) throw new deps.PaimonError("UNSUPPORTED", `table ${table.identifier}: data file ${e.file.fileName}: blob files (BLOB columns of data-evolution tables) are not supported`);
    const key = `${e.partition.join(",")}|${e.bucket}`;
    let list = byBucket.get(key);
    if (!list) byBucket.set(key, (list = []));
    list.push(e);
  }
  const schemas = new Map<number, readonly DataField[]>();
  const schemaFields = async (id: number): Promise<readonly DataField[]> => {
    let fields = schemas.get(id);
    if (fields === undefined) schemas.set(id, (fields = (await table.schemaManager.schema(id)).fields));
    return fields;
  };
  const options = table.coreOptions;
  const out: ManifestEntry[][] = [];
  for (const list of byBucket.values()) {
    const groups = groupByRowIdRange(list, (e) => rowIdRange(deps, e.file));
    const kept: ManifestEntry[][] = [];
    for (const group of groups) if (filter === null || deps.boundMayMatch(filter, await mergedStats(deps, table.schema.fields, group, schemaFields))) kept.push(group);
    // Java BinPacking.packForOrdered: groups in order, a bin closed when the next group would pass the target
    let bin: ManifestEntry[] = [];
    let weight = 0;
    for (const group of kept) {
      const w = Math.max(
        group.reduce((sum, e) => sum + Number(e.file.fileSize), 0),
        options.splitOpenFileCost,
      );
      if (bin.length > 0 && weight + w > options.splitTargetSize) {
        out.push(bin);
        bin = [];
        weight = 0;
      }
      bin.push(...group);
      weight += w;
    }
    if (bin.length > 0) out.push(bin);
  }
  return out;
}

/**
 * Java `DataEvolutionFileStoreScan.evolutionStats`: a group's stats, the row count of its newest
 * file, each column's from the newest file holding it (unknown where that file keeps no stats of
 * it, or holds it in another type since a type change).
 */
async function mergedStats(deps: DataEvolutionScanDeps, fields: readonly DataField[], group: readonly ManifestEntry[], schemaFields: (id: number) => Promise<readonly DataField[]>) {
  const files = newestFirst(group.map((e) => e.file));
  const columns: Record<string, ColumnStats | undefined> = {};
  const decided = new Set<number>();
  for (const file of files) {
    const written = await schemaFields(Number(file.schemaId));
    const held = fileColumns(written, file);
    const stats = deps.valueStatsOf(file, written).columns;
    for (const field of fields) {
      if (decided.has(field.id)) continue;
      const own = held.find((f) => f.id === field.id);
      if (own === undefined) continue;
      decided.add(field.id);
      if (JSON.stringify(own.type) === JSON.stringify(field.type)) columns[field.name] = stats[own.name];
    }
  }
  return { rowCount: files[0].rowCount, columns };
}
