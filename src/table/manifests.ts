// Reading and writing a table's manifest lists, manifests and index manifests, and
// resolving a snapshot's live file set (format reference §4.5–§4.7).
import type { FileIO } from "../fs/file-io.js";
import { randomId } from "../fs/file-io.js";
import { fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import {
  decodeIndexManifestEntries,
  decodeManifestEntries,
  decodeManifestFileMetas,
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
  type IndexManifestEntry,
  type ManifestEntry,
  type ManifestFileMeta,
  type SimpleStats,
} from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { TablePaths } from "./paths.js";
import { fileNameProblem } from "../spec/file-names.js";
import { PaimonError } from "../error.js";
import { compareValues } from "./values.js";
import { LoadCache } from "../fs/load-cache.js";

/** The encoders are write-only: loaded on the first write, so a query-only bundle leaves them (and the Avro writer) out. */
function manifestEncoders(): Promise<typeof import("../spec/manifest-write.js")> {
  return import("../spec/manifest-write.js");
}

function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/**
 * Identity of a data file within a table, whatever its level (Java `containsDataFile`:
 * partition, bucket, file name): a level upgrade re-adds a file under its old name.
 */
export function dataFileKey(partition: Uint8Array, bucket: number, fileName: string): string {
  return `${partition.join(",")}|${bucket}|${fileName}`;
}

/** Java's `FileEntry.Identifier`: what makes two manifest entries refer to the same file. */
export function entryIdentifier(e: ManifestEntry): string {
  return `${hex(e.partition)}|${e.bucket}|${e.file.level}|${e.file.fileName}|${e.file.extraFiles.join(",")}|${e.file.externalPath ?? ""}`;
}

/**
 * Applies entries in order (`FileEntry.mergeEntries`): ADD inserts, DELETE removes a
 * present file. Returns the live ADD entries and the DELETEs whose file was absent.
 */
export function mergeEntries(entries: Iterable<ManifestEntry>, into: Map<string, ManifestEntry> = new Map()): { live: Map<string, ManifestEntry>; unmatchedDeletes: ManifestEntry[] } {
  const unmatchedDeletes: ManifestEntry[] = [];
  for (const e of entries) {
    const id = entryIdentifier(e);
    if (e.kind === FILE_KIND_ADD) into.set(id, e);
    else if (!into.delete(id)) unmatchedDeletes.push(e);
  }
  return { live: into, unmatchedDeletes };
}

/** Statistics over serialized partition rows (min, max, null count per partition field). */
export function partitionStats(partitions: readonly Uint8Array[], fields: readonly DataField[]): SimpleStats {
  const types = fields.map((f) => f.type);
  const min: unknown[] = types.map(() => null);
  const max: unknown[] = types.map(() => null);
  const nulls = types.map(() => 0n);
  for (const p of partitions) {
    const values = fromBinaryRow(p.subarray(4), types);
    values.forEach((v, i) => {
      if (v === null) nulls[i]++;
      else {
        if (min[i] === null || compareValues(v, min[i]) < 0) min[i] = v;
        if (max[i] === null || compareValues(v, max[i]) > 0) max[i] = v;
      }
    });
  }
  return {
    minValues: serializeBinaryRow(toBinaryRow(min, types), types.length),
    maxValues: serializeBinaryRow(toBinaryRow(max, types), types.length),
    nullCounts: nulls,
  };
}

/** CORRUPT_FILE naming `source` unless `name` (read from `source`) is a plain file name. */
export function requirePlainName(name: string, what: string, source: string): void {
  const problem = fileNameProblem(name);
  if (problem !== null) throw new PaimonError("CORRUPT_FILE", `${source}: ${what} ${JSON.stringify(name)} ${problem}`);
}

/** Decoded manifest files a store keeps (least recently used dropped first). */
const MANIFEST_CACHE_FILES = 256;

/** Manifest files of one table, named `<prefix>-<uuid>-<n>` with one uuid per instance. */
export class ManifestStore {
  readonly paths: TablePaths;
  private readonly uuid = randomId();
  private counter = 0;

  /**
   * @param root the table directory, or its {@link TablePaths} when the table declares external
   *   paths (data files there are accepted in manifests, anywhere else they are CORRUPT_FILE)
   */
  constructor(
    readonly io: FileIO,
    root: string | TablePaths,
    readonly partitionFields: readonly DataField[],
    readonly compression: string = "zstd",
  ) {
    this.paths = typeof root === "string" ? new TablePaths(root) : root;
  }

  private nextName(prefix: string): string {
    return `${prefix}-${this.uuid}-${this.counter++}`;
  }

  // Manifest files never change once written, so decoded contents are kept by name: a
  // commit's overwrite and conflict check, each new bucket writer's sequence restore and
  // repeated scans then decode each file once per store.
  private readonly decoded = new LoadCache<readonly unknown[]>(MANIFEST_CACHE_FILES);

  private async read<T>(name: string, decode: (bytes: Uint8Array, path: string) => Promise<T[]>, check: (item: T, path: string) => void): Promise<T[]> {
    const problem = fileNameProblem(name);
    if (problem !== null) throw new PaimonError("CORRUPT_FILE", `manifest file name ${JSON.stringify(name)} ${problem}`);
    const path = this.paths.manifest(name);
    const load = async () => {
      const items = await decode(await this.io.readFile(path), path);
      for (const item of items) check(item, path);
      return items;
    };
    const items = (await this.decoded.get(name, load)) as readonly T[];
    return items.slice();
  }

  readManifestList(name: string): Promise<ManifestFileMeta[]> {
    return this.read(name, decodeManifestFileMetas, (m, path) => requirePlainName(m.fileName, "manifest file name", path));
  }

  readManifest(name: string): Promise<ManifestEntry[]> {
    return this.read(name, decodeManifestEntries, (e, path) => {
      requirePlainName(e.file.fileName, "data file name", path);
      for (const extra of e.file.extraFiles) requirePlainName(extra, `extra file name of ${e.file.fileName}`, path);
      this.paths.checkExternalPath(e.file, "CORRUPT_FILE", path);
    });
  }

  readIndexManifest(name: string): Promise<IndexManifestEntry[]> {
    return this.read(name, decodeIndexManifestEntries, (e, path) => {
      requirePlainName(e.indexFile.fileName, "index file name", path);
      this.paths.checkExternalPath(e.indexFile, "CORRUPT_FILE", path);
    });
  }

  /** Data manifests of a snapshot: base list then delta list (§4.5). */
  async dataManifests(snapshot: Snapshot): Promise<ManifestFileMeta[]> {
    const [base, delta] = await Promise.all([this.readManifestList(snapshot.baseManifestList), this.readManifestList(snapshot.deltaManifestList)]);
    return [...base, ...delta];
  }

  /**
   * The live files of a snapshot, optionally reading only manifests that `keepManifest`
   * accepts (partition pruning on manifest statistics) and entries `keepEntry` accepts.
   */
  async liveEntries(
    snapshot: Snapshot,
    keepManifest: (m: ManifestFileMeta) => boolean = () => true,
    keepEntry: (e: ManifestEntry) => boolean = () => true,
  ): Promise<ManifestEntry[]> {
    const manifests = (await this.dataManifests(snapshot)).filter(keepManifest);
    const contents = await Promise.all(manifests.map((m) => this.readManifest(m.fileName)));
    const { live } = mergeEntries(contents.flatMap((entries) => entries.filter(keepEntry)));
    return [...live.values()];
  }

  /** The snapshot whose complete live file list `allLiveEntries` returned last, and that list. */
  private lastLive: { snapshot: Snapshot; entries: Promise<readonly ManifestEntry[]> } | null = null;

  /**
   * Every live entry of `snapshot` (read-only), kept for the snapshot object asked for last:
   * continuous real-time queries plan the same latest snapshot again and again, and the snapshot
   * manager hands out a new object whenever another snapshot becomes the latest (an explicit
   * snapshot id read again, or a rolled-back id reused, is another object and is read again).
   */
  allLiveEntries(snapshot: Snapshot): Promise<readonly ManifestEntry[]> {
    const last = this.lastLive;
    if (last !== null && last.snapshot === snapshot) return last.entries;
    const entries = this.liveEntries(snapshot);
    this.lastLive = { snapshot, entries };
    entries.catch(() => {
      if (this.lastLive?.entries === entries) this.lastLive = null; // a failed read is retried next time
    });
    return entries;
  }

  /** The entries of a snapshot's delta manifest list: the files it added and deleted. */
  async deltaEntries(snapshot: Snapshot): Promise<ManifestEntry[]> {
    const metas = await this.readManifestList(snapshot.deltaManifestList);
    return (await Promise.all(metas.map((m) => this.readManifest(m.fileName)))).flat();
  }

  /** The changelog files a snapshot added (its changelog manifest list; none without one). */
  async changelogEntries(snapshot: Snapshot): Promise<ManifestEntry[]> {
    if (!snapshot.changelogManifestList) return [];
    const metas = await this.readManifestList(snapshot.changelogManifestList);
    return (await Promise.all(metas.map((m) => this.readManifest(m.fileName)))).flat();
  }

  async indexEntries(snapshot: Snapshot | null): Promise<IndexManifestEntry[]> {
    if (!snapshot?.indexManifest) return [];
    return this.readIndexManifest(snapshot.indexManifest);
  }

  /** Writes entries as one manifest file and returns its ManifestFileMeta. */
  async writeManifest(entries: readonly ManifestEntry[], schemaId: number): Promise<ManifestFileMeta> {
    const fileName = this.nextName("manifest");
    const { encodeManifestEntries } = await manifestEncoders();
    const bytes = await encodeManifestEntries(entries, { compression: this.compression });
    await this.io.writeFile(this.paths.manifest(fileName), bytes);
    let minBucket = Infinity;
    let maxBucket = -Infinity;
    let minLevel = Infinity;
    let maxLevel = -Infinity;
    for (const e of entries) {
      minBucket = Math.min(minBucket, e.bucket);
      maxBucket = Math.max(maxBucket, e.bucket);
      minLevel = Math.min(minLevel, e.file.level);
      maxLevel = Math.max(maxLevel, e.file.level);
    }
    const empty = entries.length === 0;
    return {
      fileName,
      fileSize: BigInt(bytes.length),
      numAddedFiles: BigInt(entries.filter((e) => e.kind === FILE_KIND_ADD).length),
      numDeletedFiles: BigInt(entries.filter((e) => e.kind === FILE_KIND_DELETE).length),
      partitionStats: partitionStats(
        entries.map((e) => e.partition),
        this.partitionFields,
      ),
      schemaId,
      minBucket: empty ? null : minBucket,
      maxBucket: empty ? null : maxBucket,
      minLevel: empty ? null : minLevel,
      maxLevel: empty ? null : maxLevel,
      minRowId: null,
      maxRowId: null,
    };
  }

  /** Writes a manifest list; returns its file name and size. */
  async writeManifestList(metas: readonly ManifestFileMeta[]): Promise<{ name: string; size: bigint }> {
    const name = this.nextName("manifest-list");
    const { encodeManifestFileMetas } = await manifestEncoders();
    const bytes = await encodeManifestFileMetas(metas, { compression: this.compression });
    await this.io.writeFile(this.paths.manifest(name), bytes);
    return { name, size: BigInt(bytes.length) };
  }

  async writeIndexManifest(entries: readonly IndexManifestEntry[]): Promise<string> {
    const name = this.nextName("index-manifest");
    const { encodeIndexManifestEntries } = await manifestEncoders();
    await this.io.writeFile(this.paths.manifest(name), await encodeIndexManifestEntries(entries, { compression: this.compression }));
    return name;
  }

  /** Removes files this store wrote for an attempt that was not published. */
  async deleteQuietly(names: readonly string[]): Promise<void> {
    await Promise.all(names.map((n) => this.io.delete(this.paths.manifest(n)).catch(() => false)));
  }
}
