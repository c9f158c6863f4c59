// Extra conflict checks of commits to primary-key / deletion-vector tables (format reference
// §10.2): Java's `PrimaryKeyConflictDetection` (files of one level >= 1 of a bucket must not
// overlap after the commit), and index-file deletes that must still be live (two writers
// replacing the same deletion-vector index file would otherwise leave two files per bucket).
import { PaimonError } from "../error.js";
import type { IndexManifestEntry, ManifestEntry } from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { TableSchema } from "../spec/schema.js";
import type { ManifestStore } from "../table/manifests.js";
import { KeyDecoder, keyFieldsOf } from "../table/primary-key.js";

/** COMMIT_CONFLICT when two files of one (partition, bucket, level >= 1) overlap in key range. */
export function checkLsmConflicts(schema: TableSchema, live: Iterable<ManifestEntry>, latest: Snapshot): void {
  if (schema.primaryKeys.length === 0) return;
  const keys = new KeyDecoder(keyFieldsOf(schema));
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of live) {
    if (e.file.level < 1) continue;
    const k = `${e.partition.join(",")}|${e.bucket}|${e.file.level}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(e);
  }
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    g.sort((a, b) => keys.compare(a.file.minKey, b.file.minKey));
    for (let i = 1; i < g.length; i++) {
      const a = g[i - 1].file;
      const b = g[i].file;
      if (keys.compare(a.maxKey, b.minKey) >= 0) {
        throw new PaimonError(
          "COMMIT_CONFLICT",
          `LSM conflicts detected: files ${a.fileName} and ${b.fileName} of bucket ${g[i].bucket} overlap at level ${a.level} after the commit on snapshot ${latest.id} (concurrent compaction); give up committing`,
        );
      }
    }
  }
}

/**
 * COMMIT_CONFLICT when the commit deletes an index file the latest snapshot no longer has, or
 * removes a data file whose deletion vector in the latest snapshot sits in an index file the
 * commit keeps (Java's ConflictDetection pairs file and DV deletes): a concurrent commit added
 * that vector, and dropping the file would lose it while the vector outlives its file.
 */
export async function checkIndexConflicts(manifests: ManifestStore, latest: Snapshot, changes: readonly IndexManifestEntry[], entries: readonly ManifestEntry[] = []): Promise<void> {
  const deletes = changes.filter((c) => c.kind === 1);
  const removedFiles = entries.filter((e) => e.kind === 1);
  if (deletes.length === 0 && removedFiles.length === 0) return;
  const indexEntries = await manifests.indexEntries(latest);
  const live = new Set(indexEntries.map((e) => `${e.partition.join(",")}|${e.bucket}|${e.indexFile.fileName}`));
  for (const d of deletes) {
    if (!live.has(`${d.partition.join(",")}|${d.bucket}|${d.indexFile.fileName}`)) {
      throw new PaimonError(
        "COMMIT_CONFLICT",
        `index file ${d.indexFile.fileName} (${d.indexFile.indexType}) of bucket ${d.bucket} was already replaced by snapshot ${latest.id} (concurrent compaction); give up committing`,
      );
    }
  }
  if (removedFiles.length > 0) checkRemovedFilesTakeTheirVectors(indexEntries, deletes, removedFiles, latest);
}

function checkRemovedFilesTakeTheirVectors(indexEntries: readonly IndexManifestEntry[], deletes: readonly IndexManifestEntry[], removedFiles: readonly ManifestEntry[], latest: Snapshot): void {
  const vectorHome = new Map<string, string>();
  for (const e of indexEntries) {
    if (e.indexFile.indexType !== "DELETION_VECTORS") continue;
    for (const r of e.indexFile.dvRanges ?? []) vectorHome.set(`${e.partition.join(",")}|${e.bucket}|${r.dataFileName}`, e.indexFile.fileName);
  }
  if (vectorHome.size === 0) return;
  const deletedIndex = new Set(deletes.map((d) => `${d.partition.join(",")}|${d.bucket}|${d.indexFile.fileName}`));
  for (const f of removedFiles) {
    const where = `${f.partition.join(",")}|${f.bucket}`;
    const home = vectorHome.get(`${where}|${f.file.fileName}`);
    if (home === undefined || deletedIndex.has(`${where}|${home}`)) continue;
    throw new PaimonError(
      "COMMIT_CONFLICT",
      `file ${f.file.fileName} of bucket ${f.bucket} has a deletion vector in index file ${home} of snapshot ${latest.id} that the commit keeps (a concurrent commit deleted rows of it); give up committing`,
    );
  }
}
