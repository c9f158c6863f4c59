// The snapshot a time travel of a table's options reads (Java `StaticFromSnapshotStartingScanner`,
// `StaticFromTagStartingScanner`, `StaticFromTimestampStartingScanner`, `CompactedStartingScanner`
// and `FullCompactedStartingScanner`); loaded only by scans of tables with such options.
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { BATCH_COMMIT_IDENTIFIER, type Snapshot } from "../spec/snapshot.js";
import type { SnapshotManager } from "./snapshot-manager.js";
import { readTag } from "./tags.js";
import type { TimeTravel } from "./time-travel.js";

/**
 * The snapshot `travel` reads: null only for a compacted-full scan of a table without
 * snapshots; NOT_FOUND for a snapshot or tag that does not exist and a timestamp before every
 * snapshot. `retainedOnly` (real-time scans): a tag whose snapshot has expired is NOT_FOUND too.
 */
export async function resolveTimeTravel(io: FileIO, snapshots: SnapshotManager, table: string, travel: TimeTravel, retainedOnly: boolean): Promise<Snapshot | null> {
  const root = snapshots.paths.root;
  switch (travel.kind) {
    case "snapshot": {
      const s = await snapshots.tryGetSnapshot(travel.id);
      if (s === null) throw new PaimonError("NOT_FOUND", `scan of table ${table}: scan.snapshot-id ${travel.id} does not exist or has expired (${await range(snapshots)})`);
      return s;
    }
    case "tag": {
      const s = await readTag(io, root, travel.name);
      if (retainedOnly && (await snapshots.tryGetSnapshot(s.id)) === null) {
        throw new PaimonError("NOT_FOUND", `real-time scan of table ${table}: snapshot ${s.id} of tag '${travel.name}' has expired; a real-time scan reads retained snapshots only (read the tag without the real-time context)`);
      }
      return s;
    }
    case "timestamp": {
      // the newest snapshot at or before the time (Java `earlierOrEqualTimeMills`: binary search, times ascending with ids)
      const ids = await snapshots.listSnapshotIds();
      let found: Snapshot | null = null;
      for (let lo = 0, hi = ids.length - 1; lo <= hi; ) {
        const mid = (lo + hi) >> 1;
        const s = await snapshots.tryGetSnapshot(ids[mid]);
        if (s !== null && s.timeMillis <= travel.millis) {
          found = s;
          lo = mid + 1;
        } else if (s === null) lo = mid + 1; // expired meanwhile: older ones are gone too
        else hi = mid - 1;
      }
      if (found === null) throw new PaimonError("NOT_FOUND", `scan of table ${table}: no snapshot is earlier than or equal to ${travel.key} (${new Date(travel.millis).toISOString()}, ${travel.millis} ms) (${await range(snapshots)})`);
      return found;
    }
    case "compacted": {
      // newest first, as Java `SnapshotManager.pickOrLatest`
      const ids = await snapshots.listSnapshotIds();
      for (let i = ids.length - 1; i >= 0; i--) {
        const s = await snapshots.tryGetSnapshot(ids[i]);
        if (s === null || s.commitKind !== "COMPACT") continue;
        const n = travel.deltaCommits;
        if (n === null || s.commitIdentifier % BigInt(n) === 0n || s.commitIdentifier === BATCH_COMMIT_IDENTIFIER) return s;
      }
      return snapshots.latestSnapshot();
    }
  }
}

async function range(snapshots: SnapshotManager): Promise<string> {
  const [earliest, latest] = [await snapshots.earliestSnapshotId(), await snapshots.latestSnapshotId()];
  return earliest === null || latest === null ? "the table has no snapshots" : `retained snapshots are ${earliest}..${latest}`;
}
