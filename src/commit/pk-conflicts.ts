// Extra conflict checks of commits to primary-key / deletion-vector tables (format reference
// §10.2): Java's `PrimaryKeyConflictDetection` (files of one level >= 1 of a bucket must not
// overlap after the commit), and index-file deletes that must still be live (two writers
// replacing the same deletion-vector index file would otherwise leave two files per bucket), and
// dynamic-bucket HASH indexes that a concurrent commit changed (a key in two buckets).
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { IntTable } from "../kernel/int-table.js";
import { bytesEqual } from "../spec/binary-row.js";
import { decodeHashIndex, HASH_INDEX } from "../spec/hash-index.js";
import type { DataFileMeta, IndexManifestEntry, ManifestEntry } from "../spec/manifest.js";
import type { SnapshotManager } from "../table/snapshot-manager.js";
import type { CrossPartitionBase } from "./commit-message.js";
import type { TablePaths } from "../table/paths.js";
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

/**
 * Decoded HASH index files by path, per FileIO, least recently used first out past
 * HASH_CACHE_BYTES: the files are immutable and uniquely named, and a writer's load and every
 * commit's conflict check read the same files of a partition again (without it a commit that adds
 * keys re-read every HASH file of the partition).
 */
const hashCaches = new WeakMap<FileIO, { files: Map<string, Int32Array>; bytes: number }>();
const HASH_CACHE_BYTES = 64 * 1024 * 1024;

function hashCacheOf(io: FileIO): { files: Map<string, Int32Array>; bytes: number } {
  let cache = hashCaches.get(io);
  if (!cache) hashCaches.set(io, (cache = { files: new Map(), bytes: 0 }));
  return cache;
}

/** Remembers the hashes of a HASH index file just written to `path` (the commit checks it next). */
export function rememberHashIndex(io: FileIO, path: string, hashes: Int32Array): void {
  const cache = hashCacheOf(io);
  const old = cache.files.get(path);
  if (old) {
    cache.files.delete(path);
    cache.bytes -= old.byteLength;
  }
  if (hashes.byteLength > HASH_CACHE_BYTES) return;
  cache.files.set(path, hashes);
  cache.bytes += hashes.byteLength;
  for (const [p, h] of cache.files) {
    if (cache.bytes <= HASH_CACHE_BYTES) break;
    cache.files.delete(p);
    cache.bytes -= h.byteLength;
  }
}

/** The hashes of one HASH index file of the table (`entry` names its partition-bucket); do not modify them (cached). */
export async function readHashIndex(io: FileIO, paths: TablePaths, entry: Pick<IndexManifestEntry, "partition" | "bucket" | "indexFile">): Promise<Int32Array> {
  const path = paths.indexFileOf(entry.partition, entry.bucket, entry.indexFile);
  const cache = hashCacheOf(io);
  const cached = cache.files.get(path);
  if (cached && BigInt(cached.length) === entry.indexFile.rowCount) {
    cache.files.delete(path);
    cache.files.set(path, cached);
    return cached;
  }
  const hashes = decodeHashIndex(await io.readFile(path), path);
  if (BigInt(hashes.length) !== entry.indexFile.rowCount) {
    throw new PaimonError("CORRUPT_FILE", `hash index file ${path} holds ${hashes.length} hashes, its index manifest entry says ${entry.indexFile.rowCount}`);
  }
  rememberHashIndex(io, path, hashes);
  return hashes;
}

/**
 * COMMIT_CONFLICT when a dynamic-bucket HASH index file the commit adds would lose keys or put a
 * key in two buckets: the bucket's file in `latest` (which the new one replaces) holds a hash the
 * new one lacks, or a hash new to the bucket is in another bucket's file of the partition. Both
 * mean another writer committed keys to the partition after this writer loaded its index (Java
 * assumes a single writer per partition and checks nothing; its replacing file would drop them).
 * Files `changes` delete (an overwrite's) are not compared.
 */
export async function checkHashIndexConflicts(io: FileIO, paths: TablePaths, latestIndex: readonly IndexManifestEntry[], latestId: number, changes: readonly IndexManifestEntry[]): Promise<void> {
  const adds = changes.filter((c) => c.kind === 0 && c.indexFile.indexType === HASH_INDEX);
  if (adds.length === 0) return;
  const fileKey = (e: IndexManifestEntry) => `${e.partition.join(",")}|${e.bucket}|${e.indexFile.fileName}`;
  const deleted = new Set(changes.filter((c) => c.kind === 1).map(fileKey));
  const partitions = new Set(adds.map((a) => a.partition.join(",")));
  const live = new Map<string, Map<number, IndexManifestEntry>>();
  for (const e of latestIndex) {
    const p = e.partition.join(",");
    if (e.kind !== 0 || e.indexFile.indexType !== HASH_INDEX || !partitions.has(p) || deleted.has(fileKey(e))) continue;
    let m = live.get(p);
    if (!m) live.set(p, (m = new Map()));
    m.set(e.bucket, e);
  }
  const conflict = (a: IndexManifestEntry, why: string) =>
    new PaimonError("COMMIT_CONFLICT", `dynamic bucket index of bucket ${a.bucket} (${a.indexFile.fileName}): ${why} in snapshot ${latestId} (another writer committed keys to the partition since this writer loaded its index); write again with a new writer, give up committing`);
  const cache = new Map<string, Int32Array>();
  const read = async (e: IndexManifestEntry) => {
    let h = cache.get(e.indexFile.fileName);
    if (!h) cache.set(e.indexFile.fileName, (h = await readHashIndex(io, paths, e)));
    return h;
  };
  for (const a of adds) {
    const buckets = live.get(a.partition.join(","));
    if (!buckets) continue;
    const mineHashes = await read(a);
    const mine = new IntTable(mineHashes.length);
    for (const h of mineHashes) mine.set(h);
    const previous = buckets.get(a.bucket);
    const before = new IntTable();
    if (previous && previous.indexFile.fileName !== a.indexFile.fileName) {
      for (const h of await read(previous)) {
        if (!mine.has(h)) throw conflict(a, `its previous file ${previous.indexFile.fileName} has key hash ${h}, which the new file lacks`);
        before.set(h);
      }
    }
    const added = new IntTable();
    for (const h of mineHashes) if (!before.has(h)) added.set(h);
    if (added.size === 0) continue;
    for (const [bucket, other] of buckets) {
      if (bucket === a.bucket) continue;
      for (const h of await read(other)) if (added.has(h)) throw conflict(a, `key hash ${h}, new to the bucket, is in bucket ${bucket} (${other.indexFile.fileName})`);
    }
  }
}

/**
 * Cross-partition upsert (Java KEY_DYNAMIC): COMMIT_CONFLICT when a commit of another commit user
 * after `base` (the snapshot the writer's key index was bootstrapped from) added a data file to
 * another partition-bucket whose key range overlaps a file this commit adds: that writer may have
 * put one of this commit's keys in another partition than this writer's index knew, and both
 * committing would leave the key live twice (Java assumes one writer and checks nothing).
 * Conservative: overlapping ranges conflict whether or not a key is shared. COMPACT snapshots
 * add no keys; a snapshot expired since `base` cannot be checked and conflicts.
 */
export async function checkCrossPartitionConflicts(
  snapshots: SnapshotManager,
  manifests: ManifestStore,
  schema: TableSchema,
  base: CrossPartitionBase,
  latest: Snapshot | null,
  commitUser: string,
  added: ReadonlyArray<{ partition: Uint8Array; bucket: number; file: DataFileMeta }>,
): Promise<void> {
  if (latest === null || added.length === 0) return;
  // snapshots read by earlier commits of the writer are not read again: only those adding files are kept
  for (let id = Math.max(base.checkedTo, base.snapshot ?? 0) + 1; id <= latest.id; id++) {
    const snapshot = await snapshots.tryGetSnapshot(id);
    if (snapshot === null) throw new PaimonError("COMMIT_CONFLICT", `cross-partition upsert: snapshot ${id}, committed after this writer loaded its key index at ${base.snapshot === null ? "an empty table" : `snapshot ${base.snapshot}`}, has expired and cannot be checked for keys in other partitions; write again with a new writer, give up committing`);
    if (snapshot.commitKind !== "COMPACT") base.adding.push({ id, commitUser: snapshot.commitUser });
    base.checkedTo = id;
  }
  const keys = new KeyDecoder(keyFieldsOf(schema));
  for (const { id, commitUser: user } of base.adding) {
    if (user === commitUser || id > latest.id) continue;
    const snapshot = await snapshots.tryGetSnapshot(id);
    if (snapshot === null) throw new PaimonError("COMMIT_CONFLICT", `cross-partition upsert: snapshot ${id} of commit user ${user}, committed after this writer loaded its key index, has expired and cannot be checked for keys in other partitions; write again with a new writer, give up committing`);
    for (const meta of await manifests.readManifestList(snapshot.deltaManifestList)) {
      for (const theirs of await manifests.readManifest(meta.fileName)) {
        if (theirs.kind !== 0) continue;
        for (const mine of added) {
          if (mine.bucket === theirs.bucket && bytesEqual(mine.partition, theirs.partition)) continue;
          if (keys.compare(mine.file.minKey, theirs.file.maxKey) <= 0 && keys.compare(theirs.file.minKey, mine.file.maxKey) <= 0) {
            throw new PaimonError(
              "COMMIT_CONFLICT",
              `cross-partition upsert: snapshot ${id} of commit user ${user}, committed after this writer loaded its key index, added ${theirs.file.fileName} (bucket ${theirs.bucket}) whose keys overlap ${mine.file.fileName} (bucket ${mine.bucket}) of another partition-bucket: a key could end up in two partitions; write again with a new writer, give up committing`,
            );
          }
        }
      }
    }
  }
}
