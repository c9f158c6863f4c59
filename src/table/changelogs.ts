// Long-lived changelogs (Java ChangelogManager): with decoupled changelog retention an expired
// snapshot's JSON stays as `changelog/changelog-<id>` of its branch, and its changelog (or, with
// changelog-producer none, delta) files stay readable until the changelog expires. Used by snapshot
// expiry and streaming reads, both loaded lazily: only type imports here (the query bundle leaves
// it out).
import type { TableOptions } from "./options.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { SnapshotManager } from "./snapshot-manager.js";

/**
 * Whether changelogs outlive snapshots (Java `CoreOptions.changelogLifecycleDecoupled`): a
 * `changelog.num-retained.*` / `changelog.time-retained` above the snapshot retention given (by
 * default the table's).
 */
export function changelogDecoupled(o: TableOptions, retainMin = o.snapshotNumRetainedMin, retainMax = o.snapshotNumRetainedMax, timeRetained = o.snapshotTimeRetained): boolean {
  return o.int("changelog.num-retained.max", retainMax) > retainMax || o.int("changelog.num-retained.min", retainMin) > retainMin || (o.raw["changelog.time-retained"] !== undefined && o.duration("changelog.time-retained", "0 ms") > timeRetained);
}

/** Long-lived changelog `id` (the JSON of the snapshot it was), null when it does not exist. */
export function tryGetChangelog(snapshots: SnapshotManager, id: number): Promise<Snapshot | null> {
  return snapshots.tryGetAt(snapshots.paths.changelog(id));
}

/** Ids of the long-lived changelogs present, ascending (Java lists too: its hints are only hints). */
export function listChangelogIds(snapshots: SnapshotManager): Promise<number[]> {
  return snapshots.listSnapshotIds(snapshots.paths.changelogDir, "changelog-");
}
