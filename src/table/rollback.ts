// Rollback to a retained snapshot (Java's `Table.rollbackTo(snapshotId)`): the snapshots after
// it are deleted newest first, so readers never see a gap, then the LATEST hint names it.
// Real-time progress needs no rewrite: the target's effective progress is the table's again.
import { PaimonError } from "../error.js";
import type { SnapshotManager } from "./snapshot-manager.js";

/** Makes snapshot `snapshotId` the latest; NOT_FOUND (nothing changed) when it does not exist or has expired. */
export async function rollbackTo(snapshots: SnapshotManager, snapshotId: number, tableName: string): Promise<void> {
  if (!Number.isSafeInteger(snapshotId) || snapshotId < 1) throw new PaimonError("INVALID_ARGUMENT", `rollbackTo of ${tableName}: snapshot id ${String(snapshotId)} is not a positive integer`);
  const target = await snapshots.tryGetSnapshot(snapshotId);
  if (target === null) {
    const earliest = await snapshots.earliestSnapshotId();
    const latest = await snapshots.latestSnapshotId();
    const retained = earliest === null || latest === null ? "the table has no snapshots" : `retained snapshots are ${earliest}..${latest}`;
    throw new PaimonError("NOT_FOUND", `cannot roll ${tableName} back to snapshot ${snapshotId}: it does not exist or has expired (${retained})`);
  }
  const newer = (await snapshots.listSnapshotIds()).filter((id) => id > snapshotId).sort((a, b) => b - a);
  for (const id of newer) await snapshots.io.delete(snapshots.paths.snapshot(id));
  snapshots.forgetCachedLatest();
  await snapshots.writeHint("LATEST", snapshotId);
}
