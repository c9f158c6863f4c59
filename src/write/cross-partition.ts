// Cross-partition upsert (Java `BucketMode.KEY_DYNAMIC`: `bucket = -1`, a primary key without
// every partition field) for one writer, as Java Paimon's `GlobalIndexAssigner` with one assigner:
// a key → (partition, bucket) index bootstrapped from the table's latest snapshot (Java
// `IndexBootstrap`: the live keys of every partition-bucket, merged, all levels), Java's
// crosspartition `BucketAssigner` for keys new to the table, and its `ExistingProcessor` for a key
// arriving in another partition than the one it lives in. No HASH index files are written (Java
// writes none in this mode); the index lives in this writer's memory only.
import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import type { KeyColumn } from "../kernel/columns.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
import { fingerprintKeys } from "../kernel/hash.js";
import { takeColumn } from "../arrow/gather.js";
import type { CrossPartitionBase } from "../commit/commit-message.js";
import { RowKind } from "../spec/row-kind.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { MergeEngine } from "../table/primary-key.js";
import { planPrimaryKeySplits } from "../scan/merge-tree-splits.js";
import { TableRead } from "../read/table-read.js";

const EMPTY = -1;
const INITIAL_CAPACITY = 1024;
/** Seed of the second 64-bit fingerprint of a key identity (any value other than the first's 0). */
const SECOND_SEED = 0x9e3779b97f4a7c15n;

/** What the writer does with each routed row (one entry per output row, in input order). */
export interface CrossPartitionRoute {
  count: number;
  /** Input row each output row copies. */
  source: Uint32Array;
  /** Partition id (CrossPartitionIndex.partitionRow / partitionColumns) of each output row. */
  partition: Int32Array;
  bucket: Int32Array;
  /** Row kind of each output row: the input row's, or DELETE for a retraction. */
  kind: Int8Array;
  /** 1 for a retraction of a key's row in its old partition (deduplicate), which ignore-delete must not drop. */
  retraction: Uint8Array;
}

/** One known partition: its serialized row, internal values and one-row Arrow columns (the table's partition fields). */
interface KnownPartition {
  row: Uint8Array;
  values: unknown[];
  columns: arrow.Data[];
  /** Keys per bucket (Java `BucketAssigner`'s TreeMap), buckets ascending in `order`. */
  counts: Map<number, number>;
  order: number[];
}

/**
 * Key → (partition, bucket) of every live key, over typed arrays: a key's identity is 128 bits
 * (two XXH64 fingerprints of its key columns under different seeds, `fingerprintKeys`), so a
 * false match between two distinct keys (which would route one key to the other's partition) has
 * probability about n²/2^129 for n keys. 24 bytes a slot, at most half the slots used.
 */
export class CrossPartitionIndex {
  private capacity = INITIAL_CAPACITY;
  private mask = INITIAL_CAPACITY - 1;
  private ids = new Uint32Array(INITIAL_CAPACITY * 4);
  private parts = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  private buckets = new Int32Array(INITIAL_CAPACITY);
  private size = 0;
  private readonly partitions: KnownPartition[] = [];
  private readonly partitionIds = new Map<string, number>();
  /** What this writer's messages carry for the commit's concurrent-writer check (CommitMessage.crossPartitionBase). */
  readonly commitBase: CrossPartitionBase;

  /**
   * @param baseSnapshot the snapshot bootstrapped from (null: the table had none), which a
   * commit of this writer's messages checks concurrent commits against.
   */
  private constructor(
    private readonly targetRowNum: number,
    private readonly engine: MergeEngine,
    baseSnapshot: number | null,
  ) {
    this.commitBase = { snapshot: baseSnapshot, checkedTo: baseSnapshot ?? 0, adding: [] };
  }

  /** Keys held. */
  get keyCount(): number {
    return this.size;
  }

  /** Bytes of the key table (the partition list is extra and small). */
  get memoryBytes(): number {
    return this.capacity * 24;
  }

  /**
   * Java `IndexBootstrap`: the live keys of the table's latest snapshot, every partition and
   * bucket, all levels merged (deletion-vector tables' level 0 included), only the primary key
   * and the partition columns read. Without `startEmpty`; with it (none yet) the
   * index starts empty. `indexTtlMillis` (`cross-partition-upsert.index-ttl`) skips splits none
   * of whose files was created within it, as Java.
   */
  static async bootstrap(table: FileStoreTable, engine: MergeEngine, targetRowNum: number, indexTtlMillis: number | null): Promise<CrossPartitionIndex> {
    const schema = table.schema;
    const partitionFields = table.partitionFields;
    const latest = await table.latestSnapshot();
    const index = new CrossPartitionIndex(targetRowNum, engine, latest?.id ?? null);
    if (latest === null) return index;
    let splits = await planPrimaryKeySplits(table, latest, await table.manifestStore.liveEntries(latest), undefined, { realtimeUnion: true });
    if (indexTtlMillis !== null) {
      const now = Date.now();
      splits = splits.filter((s) => s.files.some((f) => f.creationTime !== null && now <= f.creationTime + indexTtlMillis));
    }
    // the whole primary key (Java's RowPartitionAllPrimaryKeyExtractor): a key field that is also a partition field keeps the key in its value of it
    const keyNames = schema.primaryKeys;
    const projection = [...keyNames, ...partitionFields.map((f) => f.name).filter((k) => !keyNames.includes(k))];
    const partitionAt = partitionFields.map((f) => projection.indexOf(f.name));
    const read = new TableRead(table, { projection });
    for (const split of splits) {
      let partition = -1;
      const reader = await read.createReader([split]);
      try {
        for await (const batch of reader) {
          if (batch.numRows === 0) continue;
          if (partition < 0) {
            const first = Uint32Array.of(0);
            partition = index.partitionId(split.partitionRow, partitionFields.map((f) => split.partition[f.name]), () => partitionAt.map((j) => takeColumn(batch.data.children[j]!, first)));
          }
          const keys = keyNames.map((_, j) => keyColumnFromArrow(batch.data.children[j]!));
          index.bootstrapKeys(keys, batch.numRows, partition, split.bucket);
        }
      } finally {
        await reader.close();
      }
    }
    return index;
  }

  /** The id of a partition (serialized row `row`), known from now on; `columns` gives its one-row Arrow columns when new. */
  partitionId(row: Uint8Array, values: unknown[], columns: () => arrow.Data[]): number {
    const key = row.join(",");
    let id = this.partitionIds.get(key);
    if (id === undefined) {
      id = this.partitions.length;
      this.partitions.push({ row, values, columns: columns(), counts: new Map(), order: [] });
      this.partitionIds.set(key, id);
    }
    return id;
  }

  partitionRow(id: number): Uint8Array {
    return this.partitions[id]!.row;
  }

  partitionValues(id: number): unknown[] {
    return this.partitions[id]!.values;
  }

  /** One-row Arrow columns of the partition fields of partition `id`. */
  partitionColumns(id: number): readonly arrow.Data[] {
    return this.partitions[id]!.columns;
  }

  private bootstrapKeys(keys: readonly KeyColumn[], rows: number, partition: number, bucket: number): void {
    const [a, b] = identities(keys);
    const p = this.partitions[partition]!;
    for (let i = 0; i < rows; i++) {
      const slot = this.slot(a, b, i);
      if (this.parts[slot] !== EMPTY) {
        // Java's bulk load fails the same way ("your data contains duplicates")
        throw new PaimonError("CORRUPT_FILE", `cross-partition upsert table: a key is live in two partition-buckets (bucket ${this.buckets[slot]} and ${bucket}); the table was written by concurrent writers, which this mode does not support`);
      }
      this.put(slot, a, b, i, partition, bucket);
      countBucket(p, bucket, 1);
    }
  }

  /**
   * Routes `rows` input rows (Java `GlobalIndexAssigner.processInput`, row by row): row i has
   * the key columns `keys`, partition id `rowPartition[i]` and kind `kinds[i]`; rows `skip`
   * rejects (ignore-delete) are not routed at all (Java's assigner routes them and its writer
   * drops them, leaving its index pointing at a partition the key is not in). A key new to the table gets a bucket of its
   * partition; a key living in its partition goes to its bucket; a key living in another
   * partition goes by the merge engine: deduplicate retracts it there (a DELETE of the new
   * row's values in the old partition-bucket) and inserts it as new, partial-update and
   * aggregation write the row into the old partition-bucket (the key stays), first-row drops it.
   * A retraction is marked so that ignore-delete keeps it (Java's writer drops it too, leaving the
   * key live in both partitions).
   */
  route(keys: readonly KeyColumn[], rowPartition: Int32Array, kinds: Int8Array, skip: ((kind: number) => boolean) | null): CrossPartitionRoute {
    const n = rowPartition.length;
    const [a, b] = identities(keys);
    let cap = n + 16;
    const make = (count: number): CrossPartitionRoute => ({ count, source: new Uint32Array(cap), partition: new Int32Array(cap), bucket: new Int32Array(cap), kind: new Int8Array(cap), retraction: new Uint8Array(cap) });
    let out = make(0);
    const emit = (row: number, partition: number, bucket: number, kind: number, retraction = 0) => {
      if (out.count === cap) {
        cap *= 2;
        const grown = make(out.count);
        grown.source.set(out.source);
        grown.partition.set(out.partition);
        grown.bucket.set(out.bucket);
        grown.kind.set(out.kind);
        grown.retraction.set(out.retraction);
        out = grown;
      }
      const c = out.count++;
      out.source[c] = row;
      out.partition[c] = partition;
      out.bucket[c] = bucket;
      out.kind[c] = kind;
      out.retraction[c] = retraction;
    };
    for (let i = 0; i < n; i++) {
      if (skip !== null && !skip(kinds[i]!)) continue;
      const partition = rowPartition[i]!;
      let slot = this.slot(a, b, i);
      const previous = this.parts[slot]!;
      if (previous === partition) {
        emit(i, partition, this.buckets[slot]!, kinds[i]!);
        continue;
      }
      if (previous !== EMPTY) {
        const previousBucket = this.buckets[slot]!;
        if (this.engine === "first-row") continue; // SkipNewExistingProcessor
        if (this.engine !== "deduplicate") {
          emit(i, previous, previousBucket, kinds[i]!); // UseOldExistingProcessor
          continue;
        }
        emit(i, previous, previousBucket, RowKind.DELETE, 1); // DeleteExistingProcessor
        countBucket(this.partitions[previous]!, previousBucket, -1);
      }
      const bucket = this.assignBucket(this.partitions[partition]!);
      if (previous === EMPTY) slot = this.put(slot, a, b, i, partition, bucket);
      else {
        this.parts[slot] = partition;
        this.buckets[slot] = bucket;
      }
      emit(i, partition, bucket, kinds[i]!);
    }
    return out;
  }

  /** Java crosspartition `BucketAssigner.assignBucket` with one assigner: the smallest bucket below the target, else the smallest unused. */
  private assignBucket(p: KnownPartition): number {
    for (const bucket of p.order) {
      const count = p.counts.get(bucket)!;
      if (count < this.targetRowNum) {
        p.counts.set(bucket, count + 1);
        return bucket;
      }
    }
    let bucket = 0;
    while (p.counts.has(bucket)) bucket++;
    countBucket(p, bucket, 1);
    return bucket;
  }

  private slot(a: Uint32Array, b: Uint32Array, i: number): number {
    const w0 = a[2 * i]!;
    const w1 = a[2 * i + 1]!;
    const w2 = b[2 * i]!;
    const w3 = b[2 * i + 1]!;
    let s = (w0 ^ Math.imul(w1, 0x9e3779b9)) & this.mask;
    const ids = this.ids;
    while (this.parts[s] !== EMPTY && !(ids[4 * s] === w0 && ids[4 * s + 1] === w1 && ids[4 * s + 2] === w2 && ids[4 * s + 3] === w3)) s = (s + 1) & this.mask;
    return s;
  }

  /** Stores a new key at `slot` (its empty slot); the slot it ends in (the table may grow). */
  private put(slot: number, a: Uint32Array, b: Uint32Array, i: number, partition: number, bucket: number): number {
    if ((this.size + 1) * 2 > this.capacity) {
      this.grow();
      slot = this.slot(a, b, i);
    }
    this.ids[4 * slot] = a[2 * i]!;
    this.ids[4 * slot + 1] = a[2 * i + 1]!;
    this.ids[4 * slot + 2] = b[2 * i]!;
    this.ids[4 * slot + 3] = b[2 * i + 1]!;
    this.parts[slot] = partition;
    this.buckets[slot] = bucket;
    this.size++;
    return slot;
  }

  private grow(): void {
    const { ids, parts, buckets, capacity } = this;
    this.capacity = capacity * 2;
    this.mask = this.capacity - 1;
    this.ids = new Uint32Array(this.capacity * 4);
    this.parts = new Int32Array(this.capacity).fill(EMPTY);
    this.buckets = new Int32Array(this.capacity);
    for (let s = 0; s < capacity; s++) {
      if (parts[s] === EMPTY) continue;
      let t = (ids[4 * s]! ^ Math.imul(ids[4 * s + 1]!, 0x9e3779b9)) & this.mask;
      while (this.parts[t] !== EMPTY) t = (t + 1) & this.mask;
      this.ids.set(ids.subarray(4 * s, 4 * s + 4), 4 * t);
      this.parts[t] = parts[s]!;
      this.buckets[t] = buckets[s]!;
    }
  }
}

/** The two 64-bit fingerprints of each row's key, as 32-bit word pairs. */
function identities(keys: readonly KeyColumn[]): [Uint32Array, Uint32Array] {
  const first = fingerprintKeys(keys);
  const second = fingerprintKeys(keys, SECOND_SEED);
  return [new Uint32Array(first.buffer, first.byteOffset, 2 * first.length), new Uint32Array(second.buffer, second.byteOffset, 2 * second.length)];
}

function countBucket(p: KnownPartition, bucket: number, delta: number): void {
  const count = p.counts.get(bucket);
  if (count === undefined) {
    let i = p.order.length;
    while (i > 0 && p.order[i - 1]! > bucket) i--;
    p.order.splice(i, 0, bucket);
  }
  p.counts.set(bucket, Math.max(0, (count ?? 0) + delta));
}
