// Snapshot discovery and publication (format reference §3.1, §10.3): LATEST/EARLIEST
// hints are only hints; publication is an atomic no-replace write of snapshot-<id>.
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { probeFileExists, probeTextFileIfExists, readTextFileIfExists } from "../fs/file-io.js";
import { bytesEqual } from "../spec/binary-row.js";
import { parseSnapshotJson, type Snapshot, snapshotToJson } from "../spec/snapshot.js";
import { TablePaths } from "./paths.js";

const SNAPSHOT_PREFIX = "snapshot-";

export class SnapshotManager {
  readonly paths: TablePaths;
  /**
   * The snapshot `latestSnapshot()` returned last, and the text of its file. While the hint still
   * names it, no next one exists and its file still holds that text, it is reused: finding the
   * latest snapshot then costs three small reads, as in Java (the hint, the successor probe and
   * the snapshot file, together; synchronous where the file system offers it, see
   * `FileIO.readFileIfExistsSync`), and no parse. The file is compared because another process
   * may roll back and commit again, reusing the id with another snapshot. The object is replaced
   * whenever another snapshot becomes the latest, so caches of what was planned from a snapshot
   * may key on its identity.
   */
  private lastLatest: Snapshot | null = null;
  private lastLatestText: string | null = null;
  /**
   * For the synchronous check of the cached snapshot (see `latestSnapshot`): the paths of its
   * file and of its successor, and the file's bytes, made once per cached snapshot rather than
   * per plan (a plan of an unchanged table then allocates only what reading the file does).
   */
  private lastLatestProbe: { readonly path: string; readonly nextPath: string; bytes: Uint8Array } | null = null;

  constructor(
    readonly io: FileIO,
    root: string,
    /** The branch whose snapshots these are (`branch/branch-<name>/snapshot`), `main` by default. */
    branch?: string,
  ) {
    this.paths = new TablePaths(root, { branch });
  }

  /** Drops the cached latest snapshot (after a rollback deleted it, its id may be reused). */
  forgetCachedLatest(): void {
    this.lastLatest = null;
    this.lastLatestText = null;
    this.lastLatestProbe = null;
  }

  /**
   * Ids of all snapshot files present, ascending (non-numeric suffixes ignored, as Java master
   * does); with `dir` and `prefix`, of the long-lived changelogs (`listChangelogIds`).
   */
  async listSnapshotIds(dir = this.paths.snapshotDir, prefix = SNAPSHOT_PREFIX): Promise<number[]> {
    const entries = await this.io.listStatus(dir);
    const ids: number[] = [];
    for (const e of entries) {
      if (e.isDir || !e.name.startsWith(prefix)) continue;
      const suffix = e.name.slice(prefix.length);
      if (/^\d+$/.test(suffix)) ids.push(Number(suffix));
    }
    return ids.sort((a, b) => a - b);
  }

  private async readHint(name: "LATEST" | "EARLIEST"): Promise<number | null> {
    // Hints and the probes below are answered synchronously where the file system can: finding
    // the latest snapshot is part of every plan, and a thread-pool round trip costs more than it.
    const text = await probeTextFileIfExists(this.io, `${this.paths.snapshotDir}/${name}`);
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
    return (await probeFileExists(this.io, this.paths.snapshot(hint + 1))) ? null : hint;
  }

  private async latestListed(): Promise<number | null> {
    const ids = await this.listSnapshotIds();
    return ids.length === 0 ? null : ids[ids.length - 1];
  }

  /** The latest snapshot id, or null for a table without snapshots. */
  async latestSnapshotId(): Promise<number | null> {
    const hint = await this.latestFromHint();
    if (hint !== null && (this.lastLatest?.id === hint || (await probeFileExists(this.io, this.paths.snapshot(hint))))) return hint;
    return this.latestListed();
  }

  /** The earliest snapshot id still present, or null. */
  async earliestSnapshotId(): Promise<number | null> {
    const hint = await this.readHint("EARLIEST");
    if (hint !== null && (await probeFileExists(this.io, this.paths.snapshot(hint)))) {
      if (hint === 1 || !(await probeFileExists(this.io, this.paths.snapshot(hint - 1)))) return hint;
    }
    const ids = await this.listSnapshotIds();
    return ids.length === 0 ? null : ids[0];
  }

  /** Snapshot `id` when it is the cached latest snapshot (what `snapshot(id)` then returns), else undefined. */
  cachedSnapshot(id: number): Snapshot | undefined {
    const cached = this.lastLatest;
    return cached !== null && cached.id === id ? cached : undefined;
  }

  /** Snapshot `id`; `NOT_FOUND` when it does not exist (never written, or expired). */
  async snapshot(id: number): Promise<Snapshot> {
    // Snapshot files are immutable and the latest is never expired. A rollback elsewhere that
    // reuses the id is noticed by the next `latestSnapshot()`, which replaces this object (Java's
    // caching catalog likewise serves snapshots by path until it learns otherwise).
    const cached = this.cachedSnapshot(id);
    if (cached !== undefined) return cached;
    const path = this.paths.snapshot(id);
    const text = await readTextFileIfExists(this.io, path);
    if (text === null) throw new PaimonError("NOT_FOUND", `snapshot ${id} does not exist (${path})`);
    return parseSnapshotJson(text, path);
  }

  /** For messages: "retained snapshots are <earliest>..<latest>", or that the table has none. */
  async describeRetained(): Promise<string> {
    const [earliest, latest] = [await this.earliestSnapshotId(), await this.latestSnapshotId()];
    return earliest === null || latest === null ? "the table has no snapshots" : `retained snapshots are ${earliest}..${latest}`;
  }

  /** The snapshot tag `name` holds (tag files are snapshot JSON plus tag fields), null without the tag. */
  tryGetTag(name: string): Promise<Snapshot | null> {
    return this.tryGetAt(this.paths.tag(name));
  }

  /** The snapshot JSON at `path` (a tag's, a long-lived changelog's), null when the file does not exist. */
  async tryGetAt(path: string): Promise<Snapshot | null> {
    const text = await readTextFileIfExists(this.io, path);
    return text === null ? null : parseSnapshotJson(text, path);
  }

  async tryGetSnapshot(id: number): Promise<Snapshot | null> {
    return (await this.readWithText(id))?.snapshot ?? null;
  }

  /** Snapshot `id` and the text of its file (null when it does not exist). */
  private async readWithText(id: number): Promise<{ snapshot: Snapshot; text: string } | null> {
    const text = await readTextFileIfExists(this.io, this.paths.snapshot(id));
    return text === null ? null : { snapshot: parseSnapshotJson(text, this.paths.snapshot(id)), text };
  }

  private remember(read: { snapshot: Snapshot; text: string }): Snapshot {
    this.lastLatest = read.snapshot;
    this.lastLatestText = read.text;
    this.lastLatestProbe = null;
    return read.snapshot;
  }

  /**
   * The cached snapshot when, read synchronously, no snapshot follows it and its file still holds
   * the bytes it was parsed from; `undefined` when that cannot be answered so (no cached
   * snapshot, an asynchronous file system) or the answer is no (the cache is then dropped if the
   * file changed: rolled back, and maybe the id reused).
   */
  private cachedLatestIfUnchangedSync(): Snapshot | undefined {
    const cached = this.lastLatest;
    const io = this.io;
    if (cached === null || !io.readFileIfExistsSync || !io.fileExistsSync) return undefined;
    let probe = this.lastLatestProbe;
    if (probe === null) {
      const path = this.paths.snapshot(cached.id);
      this.lastLatestProbe = probe = { path, nextPath: this.paths.snapshot(cached.id + 1), bytes: new TextEncoder().encode(this.lastLatestText!) };
    }
    const hasNext = io.fileExistsSync(probe.nextPath);
    const bytes = io.readFileIfExistsSync(probe.path);
    // the bytes of the text it was parsed from; else (a BOM, invalid UTF-8) compared as text
    let unchanged = bytes !== null && bytesEqual(bytes, probe.bytes);
    if (!unchanged && bytes !== null && new TextDecoder().decode(bytes) === this.lastLatestText) {
      unchanged = true;
      probe.bytes = bytes;
    }
    if (unchanged && !hasNext) return cached;
    if (!unchanged && this.lastLatest === cached) this.forgetCachedLatest();
    return undefined;
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    // With a snapshot cached: the hint, whether a snapshot follows the cached one, and the cached
    // one's file, read together (the usual answer of a repeated plan: unchanged).
    const cached = this.lastLatest;
    const cachedText = this.lastLatestText;
    let hint: number | null;
    if (cached !== null && this.io.readFileIfExistsSync && this.io.fileExistsSync) {
      // Answered synchronously (local disk, memory): no round trips to save by reading the hint
      // along. The cached snapshot is still the latest when its file is unchanged and no
      // snapshot follows it (snapshots are published atomically and consecutively, and expiry
      // never removes the latest), whatever the hint says; else read on as below.
      const unchanged = this.cachedLatestIfUnchangedSync();
      if (unchanged !== undefined) return unchanged;
      hint = await this.readHint("LATEST");
    } else if (cached !== null) {
      let hasNext: boolean;
      let text: string | null;
      [hint, hasNext, text] = await Promise.all([this.readHint("LATEST"), probeFileExists(this.io, this.paths.snapshot(cached.id + 1)), probeTextFileIfExists(this.io, this.paths.snapshot(cached.id))]);
      if (text !== cachedText) {
        if (this.lastLatest === cached) this.forgetCachedLatest(); // rolled back (and maybe the id reused)
      } else if (hint === cached.id && !hasNext) {
        return cached;
      }
    } else {
      hint = await this.readHint("LATEST");
    }
    // One round after the hint: whether a snapshot follows the hinted one (a HEAD where the store
    // has one) and the hinted snapshot itself, fetched together rather than probe-then-read.
    if (hint !== null && hint > 0) {
      const [next, read] = await Promise.all([probeFileExists(this.io, this.paths.snapshot(hint + 1)), this.readWithText(hint)]);
      if (!next && read !== null) return this.remember(read);
    }
    // The latest id can expire or advance between listing and reading: retry.
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = await this.latestListed();
      if (id === null) return null;
      const read = await this.readWithText(id);
      if (read !== null) return this.remember(read);
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

  /**
   * After a `tryPublish` that failed: whether snapshot-<id> holds exactly `snapshot` (the write
   * landed although its caller was told otherwise, e.g. a lost response; the LATEST hint is then
   * updated). False when the file is missing or another writer's. Throws when it cannot be read.
   */
  async publishedDespiteFailure(snapshot: Snapshot): Promise<boolean> {
    const text = await readTextFileIfExists(this.io, this.paths.snapshot(snapshot.id));
    if (text !== snapshotToJson(snapshot)) return false;
    await this.writeHint("LATEST", snapshot.id);
    return true;
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

