// Rollback to a retained snapshot (Java's `Table.rollbackTo(snapshotId)` / RollbackHelper): the
// snapshots after it are deleted newest first, so readers never see a gap, the LATEST hint names
// it, then the files only those snapshots referenced are deleted (data files they added that
// the target does not hold, their manifests, index and offsets files). Real-time progress needs
// no rewrite: the target's effective progress is the table's again.
import { collectMetadataFiles, deleteMetadataFiles } from "../commit/expire.js";
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { FILE_KIND_ADD } from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import type { ManifestStore } from "./manifests.js";
import type { TableOptions } from "./options.js";
import { partitionPath } from "./paths.js";
import type { SnapshotManager } from "./snapshot-manager.js";

export interface RollbackTarget {
  readonly io: FileIO;
  readonly location: string;
  readonly name: string;
  readonly snapshots: SnapshotManager;
  readonly manifests: ManifestStore;
  readonly partitionFields: readonly DataField[];
  readonly options: TableOptions;
}

/** Makes snapshot `snapshotId` the latest; NOT_FOUND (nothing changed) when it does not exist or has expired. */
export async function rollbackTo(table: RollbackTarget, snapshotId: number): Promise<void> {
  const { snapshots, manifests } = table;
  if (!Number.isSafeInteger(snapshotId) || snapshotId < 1) throw new PaimonError("INVALID_ARGUMENT", `rollbackTo of ${table.name}: snapshot id ${String(snapshotId)} is not a positive integer`);
  const target = await snapshots.tryGetSnapshot(snapshotId);
  if (target === null) {
    const earliest = await snapshots.earliestSnapshotId();
    const latest = await snapshots.latestSnapshotId();
    const retained = earliest === null || latest === null ? "the table has no snapshots" : `retained snapshots are ${earliest}..${latest}`;
    throw new PaimonError("NOT_FOUND", `cannot roll ${table.name} back to snapshot ${snapshotId}: it does not exist or has expired (${retained})`);
  }
  const removed: Snapshot[] = [];
  for (const id of (await snapshots.listSnapshotIds()).filter((i) => i > snapshotId).sort((a, b) => b - a)) {
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) removed.push(s);
  }
  for (const s of removed) await table.io.delete(snapshots.paths.snapshot(s.id));
  snapshots.forgetCachedLatest();
  await snapshots.writeHint("LATEST", snapshotId);
  if (removed.length === 0) return;

  // Data files added after the target that the target does not hold (a level upgrade re-adds a
  // file under its old name, so membership is by partition, bucket and name).
  const types = table.partitionFields.map((f) => f.type);
  const keyOf = (partition: Uint8Array, bucket: number, name: string) => `${partition.join(",")}|${bucket}|${name}`;
  const live = new Set((await manifests.liveEntries(target)).map((e) => keyOf(e.partition, e.bucket, e.file.fileName)));
  for (const s of removed) {
    for (const meta of await manifests.readManifestList(s.deltaManifestList).catch(() => [])) {
      for (const e of await manifests.readManifest(meta.fileName).catch(() => [])) {
        if (e.kind !== FILE_KIND_ADD || live.has(keyOf(e.partition, e.bucket, e.file.fileName))) continue;
        const part = partitionPath(table.partitionFields, fromBinaryRow(e.partition.subarray(4), types), table.options.partitionDefaultName, table.options.partitionLegacyName);
        await table.io.delete(manifests.paths.dataFile(part, e.bucket, e.file.fileName, e.file.externalPath)).catch(() => false);
        for (const extra of e.file.extraFiles) await table.io.delete(manifests.paths.dataFile(part, e.bucket, extra)).catch(() => false);
      }
    }
  }
  // Metadata: everything the removed snapshots reference that the target does not (files
  // created after the target; what older snapshots reference, the target references too).
  const keep = new Set<string>();
  await collectMetadataFiles(manifests, table.location, target, keep);
  const drop = new Set<string>();
  for (const s of removed) await collectMetadataFiles(manifests, table.location, s, drop);
  await deleteMetadataFiles(table.io, manifests, drop, keep);
}
