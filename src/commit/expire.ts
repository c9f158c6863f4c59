// Snapshot expiration (Java SnapshotDeletion/ExpireSnapshotsImpl, simplified to what a
// single warehouse needs): drop old snapshots and every file only they reference.
import { FILE_KIND_DELETE } from "../spec/manifest.js";
import { REALTIME_OFFSETS_PROPERTY, type Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { ManifestStore } from "../table/manifests.js";
import { TableOptions } from "../table/options.js";
import { partitionPath, TablePaths } from "../table/paths.js";
import { PaimonError } from "../error.js";
import { SnapshotManager } from "../table/snapshot-manager.js";
import { type FileIO, joinPath } from "../fs/file-io.js";

export interface ExpireOptions {
  /** Keep at most this many snapshots (default `snapshot.num-retained.max`). */
  retainMax?: number;
  /** Always keep at least this many (default `snapshot.num-retained.min`). */
  retainMin?: number;
  /** Expire snapshots older than this many ms, beyond `retainMin` (default `snapshot.time-retained`). */
  olderThanMs?: number;
}

/** A missing metadata file (already deleted by an earlier, interrupted expiry) references nothing; anything else fails expiry. */
function missingAsEmpty(error: unknown): never[] {
  if (error instanceof PaimonError && error.code === "NOT_FOUND") return [];
  throw error;
}

/** Expires snapshots per `options`; returns how many snapshot files were removed. */
export async function expireSnapshots(
  io: FileIO,
  root: string,
  tableOptions: TableOptions,
  partitionFields: readonly DataField[],
  options: ExpireOptions = {},
  now = Date.now(),
): Promise<number> {
  const snapshots = new SnapshotManager(io, root);
  const paths = new TablePaths(root, tableOptions.externalPaths);
  const manifests = new ManifestStore(io, paths, partitionFields, tableOptions.manifestCompression);
  const ids = await snapshots.listSnapshotIds();
  if (ids.length === 0) return 0;
  const retainMin = Math.max(1, options.retainMin ?? tableOptions.snapshotNumRetainedMin);
  const retainMax = Math.max(retainMin, options.retainMax ?? tableOptions.snapshotNumRetainedMax);
  const olderThan = now - (options.olderThanMs ?? tableOptions.snapshotTimeRetained);
  // Expire the oldest snapshots: all beyond retainMax, and older ones beyond retainMin.
  let end = Math.max(0, ids.length - retainMax);
  for (let i = end; i < ids.length - retainMin; i++) {
    const s = await snapshots.tryGetSnapshot(ids[i]);
    if (s === null || s.timeMillis >= olderThan) break;
    end = i + 1;
  }
  if (end === 0) return 0;
  const expired = ids.slice(0, end);
  const retained: Snapshot[] = [];
  for (const id of ids.slice(end)) {
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) retained.push(s);
  }
  const firstRetained = retained[0];

  // Data files deleted by the deltas up to the first retained snapshot are referenced by no retained one.
  const dataToDelete: string[] = [];
  const types = partitionFields.map((f) => f.type);
  for (const id of [...expired.slice(1), firstRetained.id]) {
    const s = id === firstRetained.id ? firstRetained : await snapshots.tryGetSnapshot(id);
    if (s === null) continue;
    for (const meta of await manifests.readManifestList(s.deltaManifestList)) {
      for (const e of await manifests.readManifest(meta.fileName)) {
        if (e.kind !== FILE_KIND_DELETE) continue;
        const part = partitionPath(partitionFields, fromBinaryRow(e.partition.subarray(4), types), tableOptions.partitionDefaultName, tableOptions.partitionLegacyName);
        const bucketDir = paths.bucketDir(part, e.bucket);
        dataToDelete.push(paths.dataFile(bucketDir, e.file));
        for (const extra of e.file.extraFiles) dataToDelete.push(paths.extraFile(bucketDir, e.file, extra));
      }
    }
  }

  // Metadata files referenced by any retained snapshot stay.
  const keep = new Set<string>();
  const referenced = async (s: Snapshot, into: Set<string>) => {
    for (const list of [s.baseManifestList, s.deltaManifestList, s.changelogManifestList]) {
      if (!list) continue;
      into.add(list);
      for (const m of await manifests.readManifestList(list).catch(missingAsEmpty)) into.add(m.fileName);
    }
    if (s.indexManifest) {
      into.add(s.indexManifest);
      for (const e of await manifests.readIndexManifest(s.indexManifest).catch(missingAsEmpty)) into.add(`path:${paths.indexFile(e.indexFile)}`);
    }
    const offsets = s.properties?.[REALTIME_OFFSETS_PROPERTY];
    // The value is a full path (as paimon-cpp writes it); accept a bare file name too.
    if (offsets) into.add(`path:${offsets.includes("/") ? offsets : joinPath(root, "metadata", offsets)}`);
  };
  for (const s of retained) await referenced(s, keep);
  const drop = new Set<string>();
  for (const id of expired) {
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) await referenced(s, drop);
  }

  const metadataToDelete = [...drop]
    .filter((name) => !keep.has(name))
    .map((name) => (name.startsWith("path:") ? name.slice(5) : paths.manifest(name)));
  // Every deletion is checked before the first one: metadata naming a path outside the table
  // (corrupt or hostile) stops expiry with nothing deleted.
  for (const path of [...dataToDelete, ...metadataToDelete]) paths.checkDeletable(path, `a snapshot expired from ${root}`);
  await Promise.all(dataToDelete.map((p) => io.delete(p).catch(() => false)));
  for (const path of metadataToDelete) await io.delete(path).catch(() => false);
  for (const id of expired) await io.delete(snapshots.paths.snapshot(id)).catch(() => false);
  await snapshots.writeHint("EARLIEST", firstRetained.id);
  return expired.length;
}
