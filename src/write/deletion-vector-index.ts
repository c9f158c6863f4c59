// Deletion-vector index files of one partition-bucket (format reference §8.5), as Java's
// `BucketedDvMaintainer` (fixed-bucket tables: one index file per bucket, rewritten whole) and
// `AppendDeleteFileMaintainer` (unaware-bucket append tables: only the index files holding a
// changed vector are rewritten) maintain them: merge new deletions, drop the vectors of
// compacted files, and turn the result into index-file ADD / DELETE changes.
import { PaimonError } from "../error.js";
import { type FileIO, randomId } from "../fs/file-io.js";
import { OffsetSet64, RoaringBitmap32 } from "../kernel/bitmap.js";
import { deletionVectorLength, DELETION_VECTOR_INDEX_VERSION, serializeDeletionVector32, serializeDeletionVector64 } from "../kernel/deletion-vector.js";
import { DeletionVectorLoader } from "../read/kv-file-reader.js";
import { DELETION_VECTORS_INDEX } from "../scan/merge-tree-splits.js";
import type { DeletionVectorMeta, IndexFileMeta, IndexManifestEntry } from "../spec/manifest.js";
import type { TablePaths } from "../table/paths.js";

/** Where the table's index files live (per partition-bucket: {@link TablePaths.indexFile}) and how vectors are framed. */
export interface DeletionVectorIndexConfig {
  io: FileIO;
  paths: TablePaths;
  /** `deletion-vectors.bitmap64`: write 64-bit (Iceberg-compatible) vectors. */
  bitmap64: boolean;
}

/**
 * Writes `vectors` (data file name → deleted positions; empty ones skipped) as one index file
 * named `fileName` of the partition-bucket at `bucketDir`, in data-file-name order. Null when
 * no vector is left to write.
 */
export async function writeDeletionVectorIndex(config: DeletionVectorIndexConfig, bucketDir: string, vectors: Iterable<readonly [string, RoaringBitmap32]>, fileName: string): Promise<IndexFileMeta | null> {
  const parts: Uint8Array[] = [Uint8Array.of(DELETION_VECTOR_INDEX_VERSION)];
  let size = 1;
  const ranges: DeletionVectorMeta[] = [];
  for (const [name, bm] of [...vectors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (bm.isEmpty) continue;
    let bytes: Uint8Array;
    if (config.bitmap64) {
      const set = new OffsetSet64(bm.toArray());
      bytes = serializeDeletionVector64(set);
      set.dispose();
    } else bytes = serializeDeletionVector32(bm);
    ranges.push({ dataFileName: name, offset: size, length: deletionVectorLength(bytes), cardinality: BigInt(bm.size) });
    parts.push(bytes);
    size += bytes.length;
  }
  if (ranges.length === 0) return null;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  await config.io.writeFile(config.paths.indexFile({ fileName, externalPath: null }, bucketDir), out);
  return { indexType: DELETION_VECTORS_INDEX, fileName, fileSize: BigInt(size), rowCount: BigInt(ranges.length), dvRanges: ranges, externalPath: null, globalIndex: null };
}

/** The DELETION_VECTORS index files of one partition-bucket among `entries` (ADD entries of an index manifest). */
export function deletionVectorIndexFiles(entries: readonly IndexManifestEntry[], partition: Uint8Array, bucket: number): IndexFileMeta[] {
  const key = partition.join(",");
  return entries.filter((e) => e.kind === 0 && e.bucket === bucket && e.indexFile.indexType === DELETION_VECTORS_INDEX && e.partition.join(",") === key).map((e) => e.indexFile);
}

/** Index-file changes of one partition-bucket. */
export interface DeletionVectorIndexChanges {
  newIndexFiles: IndexFileMeta[];
  deletedIndexFiles: IndexFileMeta[];
}

/**
 * The deletion vectors of one partition-bucket, loaded from its index files, changed in memory
 * and persisted as index-file changes. `wholeBucket` (fixed-bucket tables): every change
 * rewrites the bucket's single index file, as Java's bucketed maintainer; otherwise only the
 * index files holding a changed vector are replaced (Java's unaware-bucket maintainer).
 */
export class BucketDeletionVectors {
  private readonly vectors = new Map<string, RoaringBitmap32>();
  /** Data file name → the index file its committed vector is in. */
  private readonly home = new Map<string, IndexFileMeta>();
  private readonly touched = new Set<IndexFileMeta>();
  private readonly changed = new Set<string>();

  private constructor(
    private readonly config: DeletionVectorIndexConfig,
    private readonly bucketDir: string,
    private readonly indexFiles: readonly IndexFileMeta[],
    private readonly wholeBucket: boolean,
  ) {}

  /** Loads every vector of `indexFiles` (the DELETION_VECTORS files of the partition-bucket at `bucketDir`). */
  static async load(config: DeletionVectorIndexConfig, bucketDir: string, indexFiles: readonly IndexFileMeta[], wholeBucket: boolean): Promise<BucketDeletionVectors> {
    const out = new BucketDeletionVectors(config, bucketDir, indexFiles, wholeBucket);
    const loader = new DeletionVectorLoader(config.io);
    for (const file of indexFiles) {
      const path = config.paths.indexFile(file, bucketDir);
      for (const r of file.dvRanges ?? []) {
        if (out.home.has(r.dataFileName)) {
          throw new PaimonError("CORRUPT_FILE", `data file ${r.dataFileName} has deletion vectors in two index files (${out.home.get(r.dataFileName)!.fileName}, ${file.fileName})`);
        }
        out.vectors.set(r.dataFileName, await loader.load({ path, offset: r.offset, length: r.length, cardinality: r.cardinality }));
        out.home.set(r.dataFileName, file);
      }
    }
    return out;
  }

  /** The deleted positions of `dataFile` (owned by this object), if any. */
  get(dataFile: string): RoaringBitmap32 | undefined {
    return this.vectors.get(dataFile);
  }

  /** Adds deleted positions of `dataFile`; returns how many of them were not deleted before. */
  merge(dataFile: string, positions: ArrayLike<number>): number {
    let bm = this.vectors.get(dataFile);
    if (!bm) this.vectors.set(dataFile, (bm = new RoaringBitmap32()));
    const before = bm.size;
    bm.addMany(positions instanceof Uint32Array ? positions : Uint32Array.from(positions));
    const added = bm.size - before;
    if (added > 0) this.touch(dataFile);
    return added;
  }

  /** Drops the vector of a data file that leaves the table (compaction input). */
  remove(dataFile: string): void {
    const bm = this.vectors.get(dataFile);
    if (!bm) return;
    bm.dispose();
    this.vectors.delete(dataFile);
    this.touch(dataFile);
  }

  private touch(dataFile: string): void {
    this.changed.add(dataFile);
    const home = this.home.get(dataFile);
    if (home) this.touched.add(home);
  }

  /**
   * Writes the changed state: a new index file with the vectors of every replaced index file
   * that remain plus the new ones, and DELETEs of the replaced files. Empty when nothing changed.
   */
  async persist(): Promise<DeletionVectorIndexChanges> {
    if (this.changed.size === 0) return { newIndexFiles: [], deletedIndexFiles: [] };
    const replaced = this.wholeBucket ? [...this.indexFiles] : [...this.touched];
    const replacedSet = new Set(replaced);
    const keep: Array<[string, RoaringBitmap32]> = [];
    for (const [name, bm] of this.vectors) {
      const home = this.home.get(name);
      if (home === undefined || replacedSet.has(home)) keep.push([name, bm]);
    }
    const written = await writeDeletionVectorIndex(this.config, this.bucketDir, keep, `index-${randomId()}-0`);
    return { newIndexFiles: written ? [written] : [], deletedIndexFiles: replaced };
  }

  /** Frees the bitmaps. */
  dispose(): void {
    for (const bm of this.vectors.values()) bm.dispose();
    this.vectors.clear();
  }
}
