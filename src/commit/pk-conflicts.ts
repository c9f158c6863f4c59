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

/** COMMIT_CONFLICT when the commit deletes an index file the latest snapshot no longer has. */
export async function checkIndexConflicts(manifests: ManifestStore, latest: Snapshot, changes: readonly IndexManifestEntry[]): Promise<void> {
  const deletes = changes.filter((c) => c.kind === 1);
  if (deletes.length === 0) return;
  const live = new Set((await manifests.indexEntries(latest)).map((e) => `${e.partition.join(",")}|${e.bucket}|${e.indexFile.fileName}`));
  for (const d of deletes) {
    if (!live.has(`${d.partition.join(",")}|${d.bucket}|${d.indexFile.fileName}`)) {
      throw new PaimonError(
        "COMMIT_CONFLICT",
        `index file ${d.indexFile.fileName} (${d.indexFile.indexType}) of bucket ${d.bucket} was already replaced by snapshot ${latest.id} (concurrent compaction); give up committing`,
      );
    }
  }
}
