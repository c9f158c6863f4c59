// Planning a batch read of a data-evolution table (`data-evolution.enabled`, Java 1.4.2
// `DataEvolutionFileStoreScan` and `DataEvolutionSplitGenerator`): the files of one
// partition-bucket are grouped by overlapping row-id ranges (a group is one range: a full-row file
// and the files that rewrote some of its columns); a filter prunes whole groups by their merged
// statistics (per column, the stats of the newest file holding it; unknown where that file keeps
// none, or held it in another type before a type change), never single files; the groups left
// are packed in row-id order into bins by size (Java `BinPacking.packForOrdered`), one split each.
// A lazily imported chunk (table-scan.ts): only types are imported from the query bundle, its
// functions come in as deps.
import type { PaimonError } from "../error.js";
import type { Predicate } from "../predicate/predicate.js";
import type { boundMayMatch, ColumnStats, StatsSet, valueStatsOf } from "../predicate/stats.js";
import type { groupByPartitionBucket, ManifestEntry } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { fileColumns, groupByRowIdRange, newestFirst, rowIdRange } from "../read/data-evolution.js";

/** `[PaimonError, boundMayMatch, valueStatsOf, groupByPartitionBucket]` of the query bundle (table-scan.ts passes them). */
export type DataEvolutionScanDeps = [typeof PaimonError, typeof boundMayMatch, typeof valueStatsOf, typeof groupByPartitionBucket];

/**
 * The entries of a data-evolution table's snapshot that a read plans, one list per split: the
 * files of one partition-bucket, whole row-id groups whose merged stats may match `filter` (the
 * scan's filter bound to the table's fields; null: all), packed in row-id order by size.
 */
export async function planDataEvolutionBins(table: FileStoreTable, entries: readonly ManifestEntry[], filter: Predicate | null, [PaimonError, boundMayMatch, valueStatsOf, groupByPartitionBucket]: DataEvolutionScanDeps): Promise<ManifestEntry[][]> {
  const schemas = new Map<number, readonly DataField[]>();
  const schemaFields = async (id: number): Promise<readonly DataField[]> => {
    let fields = schemas.get(id);
    if (fields === undefined) schemas.set(id, (fields = (await table.schemaManager.schema(id)).fields));
    return fields;
  };
  /** Java `DataEvolutionFileStoreScan.evolutionStats` (blob files left out, as Java's). */
  const mergedStats = async (group: readonly ManifestEntry[]): Promise<StatsSet> => {
    const files = newestFirst(group.map((e) => e.file).filter((f) => !f.fileName.endsWith(".blob")));
    const columns: Record<string, ColumnStats | undefined> = {};
    const decided = new Set<number>();
    for (const file of files) {
      const written = await schemaFields(Number(file.schemaId));
      const held = fileColumns(written, file);
      const stats = valueStatsOf(file, written).columns;
      for (const field of table.schema.fields) {
        const own = decided.has(field.id) ? undefined : held.find((f) => f.id === field.id);
        if (own === undefined) continue;
        decided.add(field.id);
        if (JSON.stringify(own.type) === JSON.stringify(field.type)) columns[field.name] = stats[own.name];
      }
    }
    return { rowCount: files.length > 0 ? files[0].rowCount : null, columns };
  };
  const { splitTargetSize, splitOpenFileCost } = table.coreOptions;
  // Java DataEvolutionSplitGenerator: a blob file weighs its size with blob.split-by-file-size
  // (default: not blob-as-descriptor), else the open-file cost
  const isTrue = (key: string): boolean | undefined => (table.schema.options[key] === undefined ? undefined : table.schema.options[key].trim().toLowerCase() === "true");
  const countBlobSize = isTrue("blob.split-by-file-size") ?? !isTrue("blob-as-descriptor");
  const weightOf = (e: ManifestEntry): number => (e.file.fileName.endsWith(".blob") && !countBlobSize ? splitOpenFileCost : Number(e.file.fileSize));
  const bins: ManifestEntry[][] = [];
  for (const list of groupByPartitionBucket(entries).values()) {
    let bin: ManifestEntry[] = [];
    let weight = 0;
    for (const group of groupByRowIdRange(list, (e) => rowIdRange(e.file, PaimonError))) {
      if (filter !== null && !boundMayMatch(filter, await mergedStats(group))) continue;
      // Java BinPacking.packForOrdered: a bin is closed when the next group would pass the target
      const w = Math.max(
        group.reduce((sum, e) => sum + weightOf(e), 0),
        splitOpenFileCost,
      );
      if (bin.length > 0 && weight + w > splitTargetSize) {
        bins.push(bin);
        bin = [];
        weight = 0;
      }
      bin.push(...group);
      weight += w;
    }
    if (bin.length > 0) bins.push(bin);
  }
  return bins;
}
