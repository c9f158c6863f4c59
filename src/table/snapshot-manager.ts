// Snapshot discovery and publication (format reference §3.1, §10.3): LATEST/EARLIEST
// hints are only hints; publication is an atomic no-replace write of snapshot-<id>.
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { fileExists, readTextFileIfExists } from "../fs/file-io.js";
import { parseSnapshotJson, type Snapshot, snapshotToJson } from "../spec/snapshot.js";
import { TablePaths } from "./paths.js";

const SNAPSHOT_PREFIX = "snapshot-";

export class SnapshotManager {
  readonly paths: TablePaths;
  /**
   * The snapshot `latestSnapshot()` returned last. Snapshot files never change and the latest
   * one is never expired, so while the hint still names it (and no next one exists) it is
   * reused: finding the latest snapshot then costs two small reads, as in Java.
   */
  private lastLatest: Snapshot | null = null;

  constructor(
    readonly io: FileIO,
    root: string,
  ) {
    this.paths = new TablePaths(root);
  }

  /** Drops the cached latest snapshot (after a rollback deleted it, its id may be reused). */
  forgetCachedLatest(): void {
    this.lastLatest = null;
  }

  /** Ids of all snapshot files present, ascending (non-numeric suffixes ignored, as Java master does). */
  async listSnapshotIds(): Promise<number[]> {
    const entries = await this.io.listStatus(this.paths.snapshotDir);
    const ids: number[] = [];
    for (const e of entries) {
      if (e.isDir || !e.name.startsWith(SNAPSHOT_PREFIX)) continue;
      const suffix = e.name.slice(SNAPSHOT_PREFIX.length);
      if (/^\d+$/.test(suffix)) ids.push(Number(suffix));
    }
    return ids.sort((a, b) => a - b);
  }

  private async readHint(name: "LATEST" | "EARLIEST"): Promise<number | null> {
    const text = await readTextFileIfExists(this.io, `${this.paths.snapshotDir}/${name}`);
    if (text === null || !/^\s*\d+\s*$/.test(text)) return null;
    return Number(text.trim());
  }

  /**
   * The LATEST hint when no snapshot follows the one it names (Java's `HintFileUtils.findLatest`:
   * one read and one probe, no listing), else null.
   */
  private async latestFromHint(): Promise<number | null> {
    const hint = await this.readHint("LATEST");
    if (hint === null || hint <= 0) return null;
    return (await fileExists(this.io, this.paths.snapshot(hint + 1))) ? null : hint;
  }

  private async latestListed(): Promise<number | null> {
    const ids = await this.listSnapshotIds();
    return ids.length === 0 ? null : ids[ids.length - 1];
  }

  /** The latest snapshot id, or null for a table without snapshots. */
  async latestSnapshotId(): Promise<number | null> {
    const hint = await this.latestFromHint();
    if (hint !== null && (this.lastLatest?.id === hint || (await fileExists(this.io, this.paths.snapshot(hint))))) return hint;
    return this.latestListed();
  }

  /** The earliest snapshot id still present, or null. */
  async earliestSnapshotId(): Promise<number | null> {
    const hint = await this.readHint("EARLIEST");
    if (hint !== null && (await fileExists(this.io, this.paths.snapshot(hint)))) {
      if (hint === 1 || !(await fileExists(this.io, this.paths.snapshot(hint - 1)))) return hint;
    }
    const ids = await this.listSnapshotIds();
    return ids.length === 0 ? null : ids[0];
  }

  /** Snapshot `id`; `NOT_FOUND` when it does not exist (never written, or expired). */
  async snapshot(id: number): Promise<Snapshot> {
    if (this.lastLatest?.id === id) return this.lastLatest; // immutable, and the latest is never expired
    const path = this.paths.snapshot(id);
    const text = await readTextFileIfExists(this.io, path);
    if (text === null) throw new PaimonError("NOT_FOUND", `snapshot ${id} does not exist (${path})`);
    return parseSnapshotJson(text, path);
  }

  async tryGetSnapshot(id: number): Promise<Snapshot | null> {
    const text = await readTextFileIfExists(this.io, this.paths.snapshot(id));
    return text === null ? null : parseSnapshotJson(text, this.paths.snapshot(id));
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    // One round after the hint: whether a snapshot follows the hinted one (a HEAD where the store
    // has one) and the hinted snapshot itself, fetched together rather than probe-then-read.
    // With a snapshot cached, its successor is probed together with the hint (the usual answer
    // of a repeated plan: the hint names it and no snapshot follows).
    const cached = this.lastLatest;
    const [hint, cachedHasNext] = cached ? await Promise.all([this.readHint("LATEST"), fileExists(this.io, this.paths.snapshot(cached.id + 1))]) : [await this.readHint("LATEST"), true];
    if (hint !== null && hint > 0) {
      if (cached?.id === hint && this.lastLatest === cached) {
        if (!cachedHasNext) return cached;
      } else if (this.lastLatest?.id === hint) {
        if (!(await fileExists(this.io, this.paths.snapshot(hint + 1)))) return this.lastLatest;
      } else {
        const [next, snapshot] = await Promise.all([fileExists(this.io, this.paths.snapshot(hint + 1)), this.tryGetSnapshot(hint)]);
        if (!next && snapshot !== null) return (this.lastLatest = snapshot);
      }
    }
    // The latest id can expire or advance between listing and reading: retry.
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = await this.latestListed();
      if (id === null) return null;
      if (this.lastLatest?.id === id) return this.lastLatest;
      const snapshot = await this.tryGetSnapshot(id);
      if (snapshot !== null) {
        this.lastLatest = snapshot;
        return snapshot;
      }
    }
    throw new PaimonError("IO_ERROR", `latest snapshot of ${this.paths.root} keeps disappearing`);
  }

  /** Every snapshot present, ascending by id. */
  async listSnapshots(): Promise<Snapshot[]> {
    const out: Snapshot[] = [];
    for (const id of await this.listSnapshotIds()) {
      const s = await this.tryGetSnapshot(id);
      if (s !== null) out.push(s);
    }
    return out;
  }

  /**
   * The newest snapshot committed by `commitUser`, walking back from the latest and
   * stopping at the first missing (expired) snapshot, like Java's `latestSnapshotOfUser`.
   */
  async latestSnapshotOfUser(commitUser: string): Promise<Snapshot | null> {
    const latest = await this.latestSnapshotId();
    if (latest === null) return null;
    for (let id = latest; id >= 1; id--) {
      const s = await this.tryGetSnapshot(id);
      if (s === null) return null;
      if (s.commitUser === commitUser) return s;
    }
    return null;
  }

  /**
   * Publishes `snapshot` as snapshot-<id> if no snapshot has that id yet: true when
   * published (the LATEST hint is then updated), false when another writer won the id.
   */
  async tryPublish(snapshot: Snapshot): Promise<boolean> {
    const published = await this.io.writeFileAtomicNoReplace(this.paths.snapshot(snapshot.id), snapshotToJson(snapshot));
    if (published) await this.writeHint("LATEST", snapshot.id);
    return published;
  }

  /** Overwrites a hint file; hints are advisory, so a failure here is ignored. */
  async writeHint(name: "LATEST" | "EARLIEST", id: number): Promise<void> {
    try {
      await this.io.writeFile(`${this.paths.snapshotDir}/${name}`, String(id));
    } catch {
      // Readers fall back to listing when a hint is stale or missing.
    }
  }
}
