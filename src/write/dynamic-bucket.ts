// Dynamic bucket mode (`bucket = -1` primary-key tables) for one writer, as Java Paimon's
// `HashBucketAssigner` / `PartitionIndex` with one assigner (numAssigners 1, assignId 0) and its
// `DynamicBucketIndexMaintainer`: every key hash (BinaryRow hash code of the trimmed primary key)
// of a partition lives in exactly one bucket, recorded in that bucket's HASH index file.
import { PaimonError } from "../error.js";
import { encodeHashIndex, HASH_INDEX } from "../spec/hash-index.js";
import type { IndexFileMeta } from "../spec/manifest.js";
import { IntTable } from "../kernel/int-table.js";
import { readHashIndex, rememberHashIndex } from "../commit/pk-conflicts.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { TableOptions } from "../table/options.js";

/** Java's bound on bucket ids of a dynamic-bucket partition (`Short.MAX_VALUE`: hash→bucket is an `Int2ShortHashMap`). */
const MAX_BUCKET_ID = 32766;

/** `dynamic-bucket.target-row-num` and `dynamic-bucket.max-buckets` (Java defaults 2 000 000 and -1 = unlimited). */
export interface DynamicBucketOptions {
  targetRowNum: number;
  maxBuckets: number;
}

export function dynamicBucketOptions(options: TableOptions, identifier: string): DynamicBucketOptions {
  const targetRowNum = options.int("dynamic-bucket.target-row-num", 2_000_000);
  const maxBuckets = options.int("dynamic-bucket.max-buckets", -1);
  if (!(targetRowNum >= 1)) throw new PaimonError("INVALID_ARGUMENT", `option dynamic-bucket.target-row-num of ${identifier} must be positive, got '${options.get("dynamic-bucket.target-row-num")}'`);
  if (maxBuckets !== -1 && !(maxBuckets >= 1 && maxBuckets <= MAX_BUCKET_ID + 1)) {
    throw new PaimonError("INVALID_ARGUMENT", `option dynamic-bucket.max-buckets of ${identifier} must be -1 (unlimited) or between 1 and ${MAX_BUCKET_ID + 1}, got '${options.get("dynamic-bucket.max-buckets")}'`);
  }
  return { targetRowNum, maxBuckets };
}

/** One bucket's HASH index as the writer maintains it (Java `DynamicBucketIndexMaintainer`). */
interface BucketHashes {
  hashes: IntTable;
  /** Hashes added since the last index file was written. */
  modified: boolean;
}

/** One partition's index (Java `PartitionIndex`). */
class PartitionIndex {
  readonly hash2Bucket: IntTable;
  /** Keys per bucket (Java counts the hashes of each index file, then each new key). */
  readonly counts = new Map<number, number>();
  /** Buckets not yet found full, ascending: Java's `HashMap<Integer, Long>` iterates small bucket ids in that order. */
  readonly nonFull: number[];
  /** Every bucket, in the order Java's `totalBucketArray` lists them (random picks past the bound). */
  readonly total: number[];
  readonly totalSet: Set<number>;
  /** Per bucket: the hashes of its index file in the snapshot the index was loaded from. */
  readonly restored: Map<number, Int32Array>;

  constructor(hash2Bucket: IntTable, restored: Map<number, Int32Array>) {
    this.hash2Bucket = hash2Bucket;
    this.restored = restored;
    for (const [bucket, hashes] of restored) this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + hashes.length);
    this.nonFull = [...this.counts.keys()].sort((a, b) => a - b);
    this.total = [...this.nonFull];
    this.totalSet = new Set(this.total);
  }
}

/**
 * The bucket assigner and hash-index maintainers of one writer. Partition indexes are loaded
 * from the table's latest snapshot when a partition is first written (an overwrite writer starts
 * every partition empty, as Java's `SimpleHashBucketAssigner`); index files are rewritten whole
 * per bucket when keys were added, and replace the bucket's previous file at commit.
 */
export class DynamicBucketIndex {
  private readonly partitions = new Map<string, PartitionIndex>();
  private readonly loading = new Map<string, Promise<PartitionIndex>>();
  private readonly buckets = new Map<string, BucketHashes>();
  /** Java's assigner-wide `maxBucketId`: the largest bucket it assigned, over all partitions. */
  private maxBucketId = 0;
  private fileCounter = 0;
  private readonly uuid: string;

  constructor(
    private readonly table: FileStoreTable,
    private readonly options: DynamicBucketOptions,
    private readonly startEmpty: boolean,
    uuid: string,
  ) {
    this.uuid = uuid;
  }

  /**
   * Buckets for `hashes`, row `i` of partition `partitionRows[groups[i]]`: assigned in row order,
   * as Java does record by record (its largest assigned bucket, which bounds new buckets under
   * `dynamic-bucket.max-buckets`, spans partitions).
   */
  async assign(partitionRows: readonly Uint8Array[], groups: Int32Array, hashes: Int32Array): Promise<Int32Array> {
    const indexes: PartitionIndex[] = [];
    for (const row of partitionRows) indexes.push(await this.partitionIndex(row));
    const out = new Int32Array(hashes.length);
    for (let i = 0; i < hashes.length; i++) out[i] = this.assignOne(indexes[groups[i]!]!, hashes[i]!);
    return out;
  }

  private assignOne(index: PartitionIndex, hash: number): number {
    const known = index.hash2Bucket.get(hash);
    if (known >= 0) return known;
    const { targetRowNum, maxBuckets } = this.options;
    // the first bucket below the target row number; full ones are dropped for good, as Java's iterator.remove
    while (index.nonFull.length > 0) {
      const bucket = index.nonFull[0]!;
      const count = index.counts.get(bucket)!;
      if (count < targetRowNum) {
        index.counts.set(bucket, count + 1);
        return this.assigned(index, hash, bucket);
      }
      index.nonFull.shift();
    }
    const globalMax = (maxBuckets === -1 ? MAX_BUCKET_ID + 1 : maxBuckets) - 1;
    if (index.total.length === 0 || this.maxBucketId < globalMax) {
      for (let b = 0; b <= globalMax; b++) {
        if (index.totalSet.has(b)) continue;
        index.counts.set(b, 1);
        insertSorted(index.nonFull, b);
        index.total.push(b);
        index.totalSet.add(b);
        return this.assigned(index, hash, b);
      }
      if (maxBuckets === -1) {
        throw new PaimonError("UNSUPPORTED", `dynamic bucket table ${this.table.identifier}: a partition has all ${MAX_BUCKET_ID + 1} buckets full; increase dynamic-bucket.target-row-num (${targetRowNum})`);
      }
    }
    // past the bucket bound: a random existing bucket, as Java's ListUtils.pickRandomly
    return this.assigned(index, hash, index.total[Math.floor(Math.random() * index.total.length)]!);
  }

  private assigned(index: PartitionIndex, hash: number, bucket: number): number {
    index.hash2Bucket.set(hash, bucket);
    if (bucket > this.maxBucketId) this.maxBucketId = bucket;
    return bucket;
  }

  private partitionIndex(partitionRow: Uint8Array): Promise<PartitionIndex> | PartitionIndex {
    const key = partitionRow.join(",");
    const loaded = this.partitions.get(key);
    if (loaded) return loaded;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(partitionRow).then((index) => {
        this.partitions.set(key, index);
        this.loading.delete(key);
        return index;
      });
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Java `PartitionIndex.loadIndex`: every HASH index file of the partition in the latest snapshot. */
  private async load(partitionRow: Uint8Array): Promise<PartitionIndex> {
    const restored = new Map<number, Int32Array>();
    const latest = this.startEmpty ? null : await this.table.latestSnapshot();
    if (latest) {
      const key = partitionRow.join(",");
      const entries = (await this.table.manifestStore.indexEntries(latest)).filter((e) => e.kind === 0 && e.indexFile.indexType === HASH_INDEX && e.partition.join(",") === key);
      for (const e of entries) {
        if (restored.has(e.bucket)) throw new PaimonError("CORRUPT_FILE", `bucket ${e.bucket} of ${this.table.identifier} has more than one HASH index file (${e.indexFile.fileName})`);
        restored.set(e.bucket, await readHashIndex(this.table.fileIO, this.table.paths, e));
      }
    }
    let total = 0;
    for (const h of restored.values()) total += h.length;
    const hash2Bucket = new IntTable(total);
    for (const [bucket, hashes] of restored) for (let i = 0; i < hashes.length; i++) hash2Bucket.set(hashes[i]!, bucket);
    return new PartitionIndex(hash2Bucket, restored);
  }

  /**
   * Records that rows with `hashes` reached the writer of (partition, bucket) (Java's
   * `notifyNewRecord`, deletes included): the bucket's index gains them. The partition must
   * have been assigned through {@link assign} first.
   */
  record(partitionRow: Uint8Array, bucket: number, hashes: ArrayLike<number>): void {
    const key = `${partitionRow.join(",")}|${bucket}`;
    let state = this.buckets.get(key);
    if (!state) {
      const restored = this.partitions.get(partitionRow.join(","))?.restored.get(bucket);
      const set = new IntTable(restored?.length ?? 0);
      if (restored) for (let i = 0; i < restored.length; i++) set.set(restored[i]!);
      this.buckets.set(key, (state = { hashes: set, modified: false }));
    }
    for (let i = 0; i < hashes.length; i++) if (state.hashes.set(hashes[i]!)) state.modified = true;
  }

  /** The new index file of (partition, bucket) when keys were added since the last call (Java `prepareCommit`), else null. */
  async prepareCommit(partitionRow: Uint8Array, bucket: number): Promise<IndexFileMeta | null> {
    const state = this.buckets.get(`${partitionRow.join(",")}|${bucket}`);
    if (!state?.modified) return null;
    const fileName = `index-${this.uuid}-${this.fileCounter++}`;
    const hashes = state.hashes.keyArray();
    const bytes = encodeHashIndex(hashes);
    const file: IndexFileMeta = { indexType: HASH_INDEX, fileName, fileSize: BigInt(bytes.length), rowCount: BigInt(state.hashes.size), dvRanges: null, externalPath: null, globalIndex: null };
    const path = this.table.paths.indexFileOf(partitionRow, bucket, file);
    await this.table.fileIO.writeFile(path, bytes);
    rememberHashIndex(this.table.fileIO, path, hashes);
    state.modified = false;
    return file;
  }
}

function insertSorted(list: number[], value: number): void {
  let i = list.length;
  while (i > 0 && list[i - 1]! > value) i--;
  list.splice(i, 0, value);
}
