// The writer of one partition-bucket of a primary-key table (Java `MergeTreeWriter` +
// `MergeTreeCompactManager`, format reference §7.3–7.4, §8.5):
//  * rows get sequence numbers continuing the bucket's latest snapshot, are buffered, and on
//    flush are sorted by (key, sequence) with the wasm sort kernel and deduplicated with the
//    merge kernel into level-0 files with unique sorted keys;
//  * the writer keeps the bucket's LSM levels; compaction (full, or universal compaction when
//    `num-sorted-run.compaction-trigger` is reached) merges sorted runs into a higher level;
//  * deletion-vector tables compact level 0 on every commit (Java's lookup compaction): keys of
//    the output are looked up in the higher levels and older rows are marked in the bucket's
//    deletion-vector index file, which is rewritten as a whole.
import * as arrow from "apache-arrow";
import { gatherBatches, gatherData, gatherInt64, gatherInt8 } from "../arrow/gather.js";
import { takeRows } from "../arrow/take.js";
import { nowSeconds, type RecordLevelExpire, recordLevelExpireOf } from "./record-level-expire.js";
import { PaimonError } from "../error.js";
import { randomId } from "../fs/file-io.js";
import { RoaringBitmap32 } from "../kernel/bitmap.js";
import { type KeyColumn, keyColumnFromArrow, keyValue } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import { mergeDeduplicate, type SortedRun } from "../kernel/merge.js";
import { DeletionVectorLoader, FileSchemas, type KvBatch, readKvFile } from "../read/kv-file-reader.js";
import { mergeKvBatches, withoutShadowedLevels } from "../read/merge-read.js";
import { rankBySequenceFields } from "../read/sequence-order.js";
import { foldRecords, type MergeFold, mergeFold } from "../read/merge-functions.js";
import { DELETION_VECTORS_INDEX, intervalPartition } from "../scan/merge-tree-splits.js";
import type { CompactIncrement, DataIncrement } from "../spec/commit-message.js";
import type { DataFileMeta, IndexFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import { KeyDecoder, keyFieldsOf, type PrimaryKeyConfig } from "../table/primary-key.js";
import { checkSequenceFields } from "./pk-write.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { type KvChunk, KvFileWriter, type KvFileWriterConfig } from "./kv-file-writer.js";
import { writeDeletionVectorIndex } from "./deletion-vector-index.js";
import { recordBatch } from "../arrow/record-batch.js";
import { concatBatches, concatTyped } from "../arrow/concat.js";
import { shadowedRows } from "../read/shadow-marking.js";
import { changelogRows, type ChangelogMode, type RowEqualiser, rowEqualiser } from "./changelog.js";

/** Rows per gathered chunk when writing merged output. */
const WRITE_CHUNK_ROWS = 64 * 1024;
/** Rows per batch when reading files for compaction. */
const COMPACT_READ_BATCH = 1 << 20;

export interface MergeTreeWriterOptions {
  table: FileStoreTable;
  partitionRow: Uint8Array;
  bucket: number;
  bucketDir: string;
  config: PrimaryKeyConfig;
  /** `write-only`: never compact (a dedicated job does). */
  writeOnly?: boolean;
  /**
   * Start empty: restore none of the bucket's files or deletion vectors, sequence numbers from 0
   * (Java `withIgnorePreviousFiles(true)`, used by overwrite writers).
   */
  ignorePreviousFiles?: boolean;
}

/** A sorted run of the LSM tree (Java `LevelSortedRun`). */
export interface LevelSortedRun {
  level: number;
  files: DataFileMeta[];
  size: number;
}

/** A compaction: the runs' files and the level to write to (Java `CompactUnit`). */
export interface CompactUnit {
  outputLevel: number;
  files: DataFileMeta[];
}

/**
 * One step of a compaction (Java `MergeTreeCompactTask`): files rewritten together into the
 * output level, or one file moved to it unchanged (`lookup`: its keys still mark older rows of
 * higher levels in deletion vectors).
 */
export type CompactStep = { kind: "rewrite"; files: DataFileMeta[] } | { kind: "upgrade"; file: DataFileMeta; lookup: boolean; changelog?: boolean };

/** Java `containsDeleteRecords`: DELETE rows, or an unknown count. */
function containsDeleteRecords(f: DataFileMeta): boolean {
  return f.deleteRowCount === null || f.deleteRowCount > 0n;
}

/** Rows looked up in higher levels, and the level of each batch's file. */
interface LookedUp {
  batches: KvBatch[];
  levels: number[];
}

/** What one `prepareIncrement` hands to the commit. */
export interface BucketIncrement {
  dataIncrement: Partial<DataIncrement>;
  compactIncrement: Partial<CompactIncrement>;
}

/** Java `UniversalCompaction.createUnit`. */
function createUnit(runs: readonly LevelSortedRun[], maxLevel: number, runCount: number): CompactUnit {
  let outputLevel: number;
  if (runCount === runs.length) outputLevel = maxLevel;
  else outputLevel = Math.max(0, runs[runCount].level - 1);
  if (outputLevel === 0) {
    // never output to level 0: extend to the next non-level-0 run
    for (let i = runCount; i < runs.length; i++) {
      const next = runs[i];
      runCount++;
      if (next.level !== 0) {
        outputLevel = next.level;
        break;
      }
    }
  }
  if (runCount === runs.length) outputLevel = maxLevel;
  return { outputLevel, files: runs.slice(0, runCount).flatMap((r) => r.files) };
}

type UniversalConfig = Pick<PrimaryKeyConfig, "maxLevel" | "numSortedRunCompactionTrigger" | "maxSizeAmplificationPercent" | "sizeRatio">;

/**
 * Java `UniversalCompaction.pickForSizeRatio`: the first `candidateCount` runs, extended by each
 * next run no larger than the candidates' size (+ `compaction.size-ratio` percent); a unit when
 * forced or more than one run was picked.
 */
function pickForSizeRatio(runs: readonly LevelSortedRun[], config: UniversalConfig, candidateCount: number, force: boolean): CompactUnit | null {
  let size = 0;
  for (let i = 0; i < candidateCount; i++) size += runs[i].size;
  for (let i = candidateCount; i < runs.length; i++) {
    const next = runs[i];
    if ((size * (100 + config.sizeRatio)) / 100 < next.size) break;
    size += next.size;
    candidateCount++;
  }
  return force || candidateCount > 1 ? createUnit(runs, config.maxLevel, candidateCount) : null;
}

/** Java `UniversalCompaction.pick` (size amplification, size ratio, run count). */
export function pickUniversal(runs: readonly LevelSortedRun[], config: UniversalConfig): CompactUnit | null {
  const { maxLevel, numSortedRunCompactionTrigger: trigger } = config;
  if (runs.length >= trigger && runs.length > 1) {
    // 1. size amplification
    let candidate = 0;
    for (let i = 0; i < runs.length - 1; i++) candidate += runs[i].size;
    const earliest = runs[runs.length - 1].size;
    if (candidate * 100 > config.maxSizeAmplificationPercent * earliest) return createUnit(runs, maxLevel, runs.length);
  }
  // 2. size ratio
  if (runs.length >= trigger) {
    const unit = pickForSizeRatio(runs, config, 1, false);
    if (unit) return unit;
  }
  // 3. run count
  if (runs.length > trigger) return pickForSizeRatio(runs, config, runs.length - trigger + 1, true);
  return null;
}

/**
 * Java `UniversalCompaction.forcePickL0` (the lookup compaction of deletion-vector and first-row
 * tables when `pickUniversal` picks nothing): the level-0 runs, extended by size ratio like any
 * pick (`extend`), so a small next run is merged with them rather than left below a new run.
 * Without `extend` only the level-0 runs: for deduplicate without sequence.field and first-row the
 * rows do not depend on which runs merge, and a level-0 file then moves up without a rewrite
 * (the DV write stays ~1.2x a plain write; Java's extension made it ~1.6x in `bench pk`).
 */
export function forcePickLevel0(runs: readonly LevelSortedRun[], config: UniversalConfig, extend = true): CompactUnit | null {
  let level0 = 0;
  while (level0 < runs.length && runs[level0].level === 0) level0++;
  if (level0 === 0) return null;
  return extend ? pickForSizeRatio(runs, config, level0, true) : createUnit(runs, config.maxLevel, level0);
}

function compareSeq(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A string identity of a key row (for lookups). */
function keyString(cols: readonly KeyColumn[], row: number): string {
  let s = "";
  for (const c of cols) {
    const v = keyValue(c, row);
    if (v === null) s += "\u0001N";
    else if (v instanceof Uint8Array) {
      s += "\u0001B";
      for (let i = 0; i < v.length; i++) s += String.fromCharCode(v[i]);
    } else s += `\u0001${typeof v === "number" && Object.is(v, -0) ? "-0" : String(v)}`;
  }
  return s;
}

/**
 * The rows of a written batch (table columns in table order, optionally followed by an int8
 * row-kind column) that reach a bucket writer, and their kinds: those `rowKindFilter` keeps;
 * INVALID_ARGUMENT for a DELETE / UPDATE_BEFORE row a first-row table, or a partial-update table
 * without sequence groups or remove-record-on-delete, cannot merge (Java's merge functions fail
 * on them). `fold`: the partial-update fold (null for other engines). `unfiltered`: keep every
 * row (a cross-partition upsert's retraction).
 */
export function keptRowsOf(batch: arrow.RecordBatch, table: FileStoreTable, config: PrimaryKeyConfig, fold: MergeFold | null, unfiltered = false): { data: arrow.RecordBatch; kinds: Int8Array } {
  const width = table.schema.fields.length;
  let kinds: Int8Array;
  let data = batch;
  if (batch.numCols > width) {
    const kindData = batch.data.children[width];
    kinds = (kindData.values as Int8Array).subarray(0, batch.numRows);
    const schema = new arrow.Schema(batch.schema.fields.slice(0, width));
    data = recordBatch(schema, batch.data.children.slice(0, width), batch.numRows);
  } else kinds = new Int8Array(batch.numRows);
  const kept = unfiltered ? null : rowKindFilter(config);
  if (kept) {
    let keep = 0;
    for (let i = 0; i < kinds.length; i++) if (kept(kinds[i])) keep++;
    if (keep < kinds.length) {
      const rows = new Uint32Array(keep);
      for (let i = 0, j = 0; i < kinds.length; i++) if (kept(kinds[i])) rows[j++] = i;
      data = takeRows(data, rows);
      kinds = Int8Array.from(rows, (r) => kinds[r]);
    }
  }
  const engine = config.mergeEngine;
  // partial-update merges retract rows only with sequence groups or remove-record-on-delete (Java fails the merge otherwise)
  if (engine === "first-row" || (engine === "partial-update" && !fold!.partialUpdate!.acceptsRetract)) {
    for (let i = 0; i < kinds.length; i++) {
      if (kinds[i] === 1 || kinds[i] === 3) {
        throw new PaimonError("INVALID_ARGUMENT", `merge-engine=${engine} of ${table.identifier} cannot accept DELETE/UPDATE_BEFORE rows (row ${i}); set ${engine}.ignore-delete=true to drop them${engine === "partial-update" ? ", partial-update.remove-record-on-delete=true to remove the row, or sequence groups to retract their fields" : ""}`);
      }
    }
  }
  return { data, kinds };
}

/**
 * Java's RowKindFilter: which row kinds reach the bucket writer (ignore-delete drops DELETE and
 * UPDATE_BEFORE rows, ignore-update-before UPDATE_BEFORE rows); null when all do.
 */
export function rowKindFilter(config: Pick<PrimaryKeyConfig, "ignoreDelete" | "ignoreUpdateBefore">): ((kind: number) => boolean) | null {
  const { ignoreDelete, ignoreUpdateBefore } = config;
  if (!ignoreDelete && !ignoreUpdateBefore) return null;
  return (kind) => kind !== 1 && (kind !== 3 || !ignoreDelete);
}

export class MergeTreeBucketWriter {
  private readonly keyFields: DataField[];
  private readonly keyColumns: number[];
  /** `sequence.field` columns (table order), empty without: merges order a key's records by them first. */
  private readonly seqColumns: number[];
  private readonly fileConfig: KvFileWriterConfig;
  private readonly keys: KeyDecoder;
  private readonly indexUuid = randomId();
  private indexCounter = 0;
  private buffer: KvChunk[] = [];
  private bufferedBytes = 0;
  /** Every live file of the bucket as this writer sees it (committed + pending). */
  private files: DataFileMeta[];
  private newFiles: DataFileMeta[] = [];
  /** Changelog files of this increment: of flushes (`input`), of compactions (`lookup`, `full-compaction`). */
  private newChangelog: DataFileMeta[] = [];
  private compactChangelog: DataFileMeta[] = [];
  private readonly changelogConfig: KvFileWriterConfig;
  private readonly equaliser: RowEqualiser | null;
  private compactBefore = new Map<string, DataFileMeta>();
  private compactAfter: DataFileMeta[] = [];
  /** Deletion vectors of live files (DV tables), and the committed index file holding them. */
  private readonly dvs = new Map<string, RoaringBitmap32>();
  private dvIndex: IndexFileMeta | null;
  private dvDirty = false;
  private readonly schemas: FileSchemas;
  /**
   * Key columns of every row of live files (deletion-vector lookups), by file name: data files
   * never change, so each is read once, as Java builds one lookup file per data file. Bounded
   * by `lookup.cache-max-memory-size` (Java's default, 256 mb); files beyond it are re-read.
   */
  private readonly keyCache = new Map<string, { chunks: KeyColumn[][]; bytes: number }>();
  private keyCacheBytes = 0;
  /** Rows of files looked up by partial-update / aggregation (deletion vectors ignored), within the keys' budget. */
  private readonly rowCache = new Map<string, { chunks: KvBatch[]; bytes: number }>();
  private readonly keyCacheLimit: number;
  /**
   * `lookup-compact=gentle`: level 0 is forced up only on every this-many-th compaction that picks
   * nothing else (Java's ForceUpLevel0Compaction counter, per bucket writer); null: every one.
   */
  private readonly lookupCompactInterval: number | null;
  private lookupCompactCount = 0;
  /** `record-level.expire-time`: compaction reads drop expired rows (Java's RecordLevelExpire); null without. */
  private readonly expire: RecordLevelExpire | null;

  private constructor(
    private readonly options: MergeTreeWriterOptions,
    restored: DataFileMeta[],
    dvIndex: IndexFileMeta | null,
    private nextSequence: bigint,
  ) {
    const table = options.table;
    const opts = table.coreOptions;
    this.keyFields = keyFieldsOf(table.schema);
    this.keyColumns = this.keyFields.map((k) => table.schema.fields.indexOf(k));
    this.keys = new KeyDecoder(this.keyFields);
    this.seqColumns = checkSequenceFields(table.identifier, table.schema, options.config, opts.get("sequence.field.sort-order")).map((f) => table.schema.fields.indexOf(f));
    this.files = restored;
    this.schemas = new FileSchemas(table);
    this.dvIndex = dvIndex;
    this.keyCacheLimit = opts.memory("lookup.cache-max-memory-size", "256 mb");
    this.lookupCompactInterval = lookupCompactInterval(opts.get("lookup-compact"), opts.get("lookup-compact.max-interval"), options.config.numSortedRunCompactionTrigger);
    this.fileConfig = {
      io: table.fileIO,
      schema: table.schema,
      bucketDir: options.bucketDir,
      fileCompression: opts.fileCompression,
      targetFileSize: opts.targetFileSize(true),
      dataFilePrefix: opts.dataFilePrefix,
      statsMode: opts.get("metadata.stats-mode"),
      thinMode: options.config.thinMode,
      rowGroupRows: rowGroupRowLimit(opts.int("parquet.block.row.count.limit", 1024 * 1024)),
    };
    // Java KeyValueFileWriterFactory: changelog files take the `changelog-file.*` options
    this.changelogConfig = {
      ...this.fileConfig,
      dataFilePrefix: opts.get("changelog-file.prefix") ?? "changelog-",
      fileCompression: opts.get("changelog-file.compression") ?? this.fileConfig.fileCompression,
      statsMode: opts.get("changelog-file.stats-mode") ?? this.fileConfig.statsMode,
    };
    const config = options.config;
    this.equaliser = config.changelogRowDeduplicate ? rowEqualiser(table.schema.fields, config.changelogRowDeduplicateIgnoreFields) : null;
    this.expire = recordLevelExpireOf(table.schema, opts);
  }

  /** A writer restored from the table's latest snapshot: live files, next sequence number, deletion vectors. */
  static async create(options: MergeTreeWriterOptions): Promise<MergeTreeBucketWriter> {
    const { table, partitionRow, bucket } = options;
    const latest = await table.latestSnapshot();
    const key = partitionRow.join(",");
    const files: DataFileMeta[] = [];
    let dvIndex: IndexFileMeta | null = null;
    if (latest && !options.ignorePreviousFiles) {
      const entries = await table.manifestStore.liveEntries(latest, undefined, (e) => e.bucket === bucket && e.partition.join(",") === key);
      for (const e of entries) files.push(e.file);
      if (options.config.deletionVectors) {
        const index = await table.manifestStore.indexEntries(latest);
        const mine = index.filter((e) => e.bucket === bucket && e.partition.join(",") === key && e.indexFile.indexType === DELETION_VECTORS_INDEX);
        if (mine.length > 1) throw new PaimonError("CORRUPT_FILE", `bucket ${bucket} of ${table.identifier} has ${mine.length} deletion-vector index files (expected one)`);
        dvIndex = mine[0]?.indexFile ?? null;
      }
    }
    let max = -1n;
    for (const f of files) if (f.maxSequenceNumber > max) max = f.maxSequenceNumber;
    const writer = new MergeTreeBucketWriter(options, files, dvIndex, max + 1n);
    if (dvIndex?.dvRanges) {
      const loader = new DeletionVectorLoader(table.fileIO);
      const path = table.paths.indexFile(dvIndex, options.bucketDir);
      for (const r of dvIndex.dvRanges) {
        writer.dvs.set(r.dataFileName, await loader.load({ path, offset: r.offset, length: r.length, cardinality: r.cardinality }));
      }
    }
    return writer;
  }

  get bufferedRows(): number {
    return this.buffer.reduce((n, c) => n + c.batch.numRows, 0);
  }

  /** The live files this writer knows (committed and pending). */
  get liveFiles(): readonly DataFileMeta[] {
    return this.files;
  }

  /**
   * Buffers a batch: table columns in table order (canonical layout), optionally followed by an
   * int8 row-kind column. `unfiltered`: the rows bypass `ignore-delete` / `ignore-update-before`
   * (a cross-partition upsert's retraction of a key's old row is the writer's, not the caller's).
   */
  async write(batch: arrow.RecordBatch, unfiltered = false): Promise<void> {
    const { data, kinds } = keptRowsOf(batch, this.options.table, this.options.config, this.fold, unfiltered);
    const n = data.numRows;
    if (n === 0) return;
    const sequence = sequenceRange(this.nextSequence, n);
    this.nextSequence += BigInt(n);
    this.buffer.push({ batch: data, sequence, kinds: Int8Array.from(kinds) });
    this.bufferedBytes += data.data.children.reduce((s, c) => s + c.byteLength, 0) + n * 9;
    if (this.bufferedBytes >= this.options.config.writeBufferSize) {
      await this.flush();
      // Java stalls writes at `num-sorted-run.stop-trigger` until compaction catches up.
      if (!this.options.writeOnly && this.sortedRuns().length > this.options.config.numSortedRunStopTrigger) await this.compact(false);
    }
  }

  /**
   * Buffers rows that already carry their sequence numbers and row kinds (the real-time PK
   * writer assigns them when the rows become queryable, so files keep the versions readers saw);
   * rows written later continue after the highest. FileStoreTable columns in table order.
   */
  async writeSequenced(chunk: KvChunk): Promise<void> {
    const n = chunk.batch.numRows;
    if (n === 0) return;
    let max = this.nextSequence - 1n;
    for (let i = 0; i < n; i++) if (chunk.sequence[i] > max) max = chunk.sequence[i];
    this.nextSequence = max + 1n;
    this.buffer.push(chunk);
    this.bufferedBytes += chunk.batch.data.children.reduce((s, c) => s + c.byteLength, 0) + n * 9;
    if (this.bufferedBytes >= this.options.config.writeBufferSize) await this.flush();
  }

  /** Sorts, deduplicates and writes the buffer as level-0 files. */
  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunks = this.buffer;
    this.buffer = [];
    this.bufferedBytes = 0;
    if (this.options.config.changelogProducer === "input") await this.writeInputChangelog(chunks);
    // Sort only the keys (+ sequence, kinds) of each chunk, merge those, then gather the
    // winners' full rows straight from the unsorted chunks.
    if (this.fold) {
      const files = await this.writeFolded(chunks, 0, 0, false, false, true);
      this.files.push(...files);
      this.newFiles.push(...files);
      return;
    }
    const perms: Uint32Array[] = [];
    // first-row keeps the lowest sequence number: order and merge by the negated sequence
    const firstRow = this.options.config.mergeEngine === "first-row";
    const ranked = this.ranked(chunks, true);
    const runs: SortedRun[] = chunks.map((c, i) => {
      const keys = this.keyColumns.map((k) => keyColumnFromArrow(c.batch.data.children[k]));
      const order = ranked ? ranked[i].sequence : firstRow ? c.sequence.map((x) => -x) : c.sequence;
      const perm = sortPermutation(keys, order);
      perms.push(perm);
      const zeros = new Uint32Array(perm.length);
      return {
        keys: this.keyColumns.map((k) => keyColumnFromArrow(gatherData([c.batch.data.children[k]], zeros, perm))),
        sequence: gatherInt64([order], zeros, perm),
        rowKinds: gatherInt8([c.kinds], zeros, perm),
      };
    });
    const merged = mergeDeduplicate(runs, { dropDeletes: false });
    const row = new Uint32Array(merged.row.length);
    for (let i = 0; i < row.length; i++) row[i] = perms[merged.run[i]][merged.row[i]];
    const files = await this.writeMerged(chunks, { part: merged.run, row }, 0, 0, false);
    this.files.push(...files);
    this.newFiles.push(...files);
  }

  /**
   * `changelog-producer=input` (Java `MergeTreeWriter.flushWriteBuffer`): every buffered record,
   * in the write buffer's order (key, then sequence), is written to level-0 changelog files.
   */
  private async writeInputChangelog(chunks: readonly KvChunk[]): Promise<void> {
    const all: KvChunk = chunks.length === 1 ? chunks[0] : {
      batch: concatBatches(chunks.map((c) => c.batch)),
      sequence: concatTyped(chunks.map((c) => c.sequence), (n) => new BigInt64Array(n)),
      kinds: concatTyped(chunks.map((c) => c.kinds), (n) => new Int8Array(n)),
    };
    const order = this.ranked([all], true)?.[0].sequence ?? all.sequence;
    const perm = sortPermutation(this.keyColumns.map((k) => keyColumnFromArrow(all.batch.data.children[k])), order);
    const writer = new KvFileWriter(this.changelogConfig, 0, 0);
    await writer.write({ batch: takeRows(all.batch, perm), sequence: BigInt64Array.from(perm, (r) => all.sequence[r]), kinds: Int8Array.from(perm, (r) => all.kinds[r]) });
    this.newChangelog.push(...(await writer.finish()));
  }

  /**
   * Java's changelog of a compaction step (`ChangelogMergeTreeRewriter`): `chunks` are the step's
   * input rows (file `levels`); for `lookup` the rows of the levels above `outputLevel` holding
   * their keys are looked up too. Writes the changelog files at `outputLevel`.
   */
  private async writeCompactionChangelog(
    chunks: KvBatch[],
    levels: number[],
    inputs: readonly DataFileMeta[],
    rest: readonly DataFileMeta[],
    outputLevel: number,
    merged?: KvBatch,
    found?: LookedUp,
  ): Promise<void> {
    if (chunks.length === 0) return;
    const config = this.options.config;
    const mode: ChangelogMode = config.changelogProducer === "full-compaction" ? "full-compaction" : config.mergeEngine === "first-row" ? "first-row" : "lookup";
    const sources = [...chunks];
    const sourceLevels = [...levels];
    if (merged) {
      sources.push(merged);
      sourceLevels.push(-1);
    }
    if (mode !== "full-compaction") {
      found ??= await this.lookupAbove(chunks, rest, inputs, outputLevel);
      sources.push(...found.batches);
      sourceLevels.push(...found.levels);
    }
    const rows = changelogRows(sources, sourceLevels, chunks.length, this.keyColumns, mode, config.maxLevel, this.equaliser, merged ? chunks.length : -1, this.ranked(sources));
    if (rows.part.length === 0) return;
    const batches = sources.map((c) => c.batch);
    const schema = new arrow.Schema(this.options.table.schema.fields.map((_, i) => batches[0].schema.fields[i]));
    const writer = new KvFileWriter(this.changelogConfig, outputLevel, 0);
    for (let at = 0; at < rows.part.length; at += WRITE_CHUNK_ROWS) {
      const end = Math.min(rows.part.length, at + WRITE_CHUNK_ROWS);
      const part = rows.part.subarray(at, end);
      const row = rows.row.subarray(at, end);
      await writer.write({ batch: gatherBatches(batches, part, row, schema, schema.fields.map((_, i) => i)), sequence: gatherInt64(sources.map((c) => c.sequence), part, row), kinds: rows.kinds.slice(at, end) });
    }
    this.compactChangelog.push(...(await writer.finish()));
  }

  /** Writes the merge winners (`merged`: rows of `chunks` in key order) at `level`; returns the new files. */
  private async writeMerged(
    chunks: KvBatch[],
    merged: { part: Uint32Array; row: Uint32Array },
    level: number,
    source: 0 | 1,
    dropDeletes: boolean,
    lookup?: KeyColumn[][],
    exclude?: Set<string>,
  ): Promise<DataFileMeta[]> {
    const writer = new KvFileWriter(this.fileConfig, level, source);
    const sources = chunks.map((c) => c.batch);
    const schema = new arrow.Schema(this.options.table.schema.fields.map((_, i) => sources[0].schema.fields[i]));
    const columns = schema.fields.map((_, i) => i);
    const total = merged.part.length;
    const seqs = chunks.map((c) => c.sequence);
    const kindArrays = chunks.map((c) => c.kinds);
    for (let at = 0; at < total; at += WRITE_CHUNK_ROWS) {
      let part = merged.part.subarray(at, Math.min(total, at + WRITE_CHUNK_ROWS));
      let row = merged.row.subarray(at, Math.min(total, at + WRITE_CHUNK_ROWS));
      if (lookup || exclude) {
        const keyData = this.keyColumns.map((k) => gatherBatches(sources, part, row, new arrow.Schema([sources[0].schema.fields[k]]), [k]).data.children[0]);
        const cols = keyData.map((d) => keyColumnFromArrow(d));
        // remember every winner's key, in key order (deleted ones too: they shadow older rows)
        if (lookup) lookup.push(cols);
        if (exclude) {
          // first-row: keys already present in higher levels keep their first row there
          const keep: number[] = [];
          for (let i = 0; i < part.length; i++) if (!exclude.has(keyString(cols, i))) keep.push(i);
          if (keep.length < part.length) {
            part = Uint32Array.from(keep, (i) => part[i]);
            row = Uint32Array.from(keep, (i) => row[i]);
          }
        }
      }
      if (dropDeletes) {
        let keep = 0;
        for (let i = 0; i < part.length; i++) {
          const k = chunks[part[i]].kinds[row[i]];
          if (k !== 1 && k !== 3) keep++;
        }
        if (keep < part.length) {
          const p2 = new Uint32Array(keep);
          const r2 = new Uint32Array(keep);
          for (let i = 0, j = 0; i < part.length; i++) {
            const k = chunks[part[i]].kinds[row[i]];
            if (k !== 1 && k !== 3) {
              p2[j] = part[i];
              r2[j++] = row[i];
            }
          }
          part = p2;
          row = r2;
        }
      }
      if (part.length === 0) continue;
      const batch = gatherBatches(sources, part, row, schema, columns);
      const sequence = gatherInt64(seqs, part, row);
      const kinds = gatherInt8(kindArrays, part, row);
      await writer.write({ batch, sequence, kinds });
    }
    return writer.finish();
  }

  /** Sorted runs: level-0 files newest first, then one run per non-empty level (Java `Levels.levelSortedRuns`). */
  sortedRuns(): LevelSortedRun[] {
    const runs: LevelSortedRun[] = [];
    const level0 = this.files.filter((f) => f.level === 0).sort((a, b) => compareSeq(b.maxSequenceNumber, a.maxSequenceNumber) || compareSeq(b.minSequenceNumber, a.minSequenceNumber));
    for (const f of level0) runs.push({ level: 0, files: [f], size: Number(f.fileSize) });
    for (let level = 1; level <= this.options.config.maxLevel; level++) {
      const files = this.files.filter((f) => f.level === level).sort((a, b) => this.keys.compare(a.minKey, b.minKey));
      if (files.length > 0) runs.push({ level, files, size: files.reduce((n, f) => n + Number(f.fileSize), 0) });
    }
    // files above max level (another writer's larger num-levels): treat as their own runs
    for (const f of this.files.filter((x) => x.level > this.options.config.maxLevel)) runs.push({ level: f.level, files: [f], size: Number(f.fileSize) });
    return runs;
  }

  /**
   * Compacts the bucket: `full` rewrites everything into one sorted run at the max level;
   * otherwise universal compaction runs if its triggers are met (deletion-vector tables also
   * always compact level 0). Buffered rows are flushed first.
   */
  async compact(full: boolean): Promise<void> {
    await this.flush();
    const runs = this.sortedRuns();
    if (runs.length === 0) return;
    const maxLevel = this.options.config.maxLevel;
    let unit: CompactUnit | null;
    if (full) {
      if (runs.length === 1 && runs[0].level === maxLevel) {
        // Java CompactStrategy.pickFullCompaction: one sorted run at the max level; only files
        // with deletion vectors (or DELETE rows) are rewritten, each on its own
        // (and, with record-level expiry, files whose minimum time is expired)
        const expired = await this.expiredFiles(runs[0].files);
        const stale = runs[0].files.filter((f) => (this.dvs.get(f.fileName)?.size ?? 0) > 0 || f.deleteRowCount !== 0n || expired.has(f.fileName));
        if (stale.length > 0) await this.rewrite({ outputLevel: maxLevel, files: stale }, true);
        return;
      }
      unit = { outputLevel: maxLevel, files: runs.flatMap((r) => r.files) };
    } else {
      unit = pickUniversal(runs, this.options.config);
      // lookup tables (DV, first-row, changelog-producer=lookup, force-lookup) always compact level 0 (Java's ForceUpLevel0Compaction)
      // which runs merge changes the rows of merge functions (a lone record is folded only in a
      // lookup merge) and of sequence.field (a retraction dropped at the max level): Java's pick
      if (!unit && this.options.config.needLookup && this.lookupCompactDue()) {
        const engine = this.options.config.mergeEngine;
        unit = forcePickLevel0(runs, this.options.config, engine === "partial-update" || engine === "aggregation" || this.seqColumns.length > 0);
      }
    }
    if (unit && unit.files.length > 0) await this.rewrite(unit);
  }

  /** Record-level expiry: the names of `files` whose minimum time is expired now (Java `isExpireFile`). */
  private async expiredFiles(files: readonly DataFileMeta[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (!this.expire) return out;
    const now = nowSeconds();
    for (const f of files) if (this.expire.isExpireFile(f, await this.schemas.fieldsOf(f.schemaId), now)) out.add(f.fileName);
    return out;
  }

  /** Java ForceUpLevel0Compaction: whether this forced level-0 pick happens (gentle mode counts them). */
  private lookupCompactDue(): boolean {
    if (this.lookupCompactInterval === null) return true;
    if (++this.lookupCompactCount < this.lookupCompactInterval) return false;
    this.lookupCompactCount = 0;
    return true;
  }

  /**
   * Java `MergeTreeCompactTask.doCompact`: what becomes of the files of `unit`. Overlapping
   * sections and small files (below `compactionFileSize`) are rewritten together; a file that
   * overlaps nothing and is large, or the only run left to rewrite, only changes its level
   * (`upgrade`) — unless the rewriter must rewrite it (see `upgradeStep`), or it holds
   * expired records (`expired`: Java's `containsExpiredRecords`).
   */
  planCompaction(unit: CompactUnit, expired: ReadonlySet<string> = new Set()): CompactStep[] {
    const steps: CompactStep[] = [];
    const maxLevel = this.options.config.maxLevel;
    // Java CoreOptions.compactionFileSize: 70% of the target file size
    const minFileSize = Math.floor(this.fileConfig.targetFileSize / 10) * 7;
    let candidate: DataFileMeta[][][] = [];
    const upgrade = (f: DataFileMeta): void => {
      if ((unit.outputLevel === maxLevel && containsDeleteRecords(f)) || expired.has(f.fileName)) steps.push({ kind: "rewrite", files: [f] });
      else if (f.level !== unit.outputLevel) steps.push(this.upgradeStep(f, unit.outputLevel));
    };
    const rewrite = (): void => {
      if (candidate.length === 1 && candidate[0].length === 1) candidate[0][0].forEach(upgrade);
      else if (candidate.length > 0) steps.push({ kind: "rewrite", files: candidate.flat(2) });
      candidate = [];
    };
    for (const section of intervalPartition(unit.files, this.keys)) {
      if (section.length > 1) {
        candidate.push(section);
        continue;
      }
      for (const f of section[0]) {
        if (Number(f.fileSize) < minFileSize) candidate.push([[f]]);
        else {
          rewrite();
          upgrade(f);
        }
      }
    }
    rewrite();
    return steps;
  }

  /**
   * `rewriter.upgrade` of one file: Java's `LookupMergeTreeCompactRewriter.upgradeStrategy` for
   * deletion-vector and first-row tables (a level-0 file is looked up in the higher levels, and
   * rewritten unless its rows can stay as they are), a level change for the others.
   */
  private upgradeStep(f: DataFileMeta, outputLevel: number): CompactStep {
    const { deletionVectors, mergeEngine, maxLevel, changelogProducer, needLookup } = this.options.config;
    // Java FullChangelogMergeTreeCompactRewriter: a file moved to the max level gives its changelog
    if (changelogProducer === "full-compaction") return { kind: "upgrade", file: f, lookup: false, changelog: outputLevel === maxLevel };
    const changelog = changelogProducer === "lookup";
    if (!needLookup) return { kind: "upgrade", file: f, lookup: false };
    if (f.level !== 0) return { kind: "upgrade", file: f, lookup: false };
    // deletion vectors drop deletes: a file holding DELETE rows is rewritten without them
    if (deletionVectors && containsDeleteRecords(f)) return { kind: "rewrite", files: [f] };
    // deduplicate keeps the latest row of a key, so rows merged with higher levels stay as they
    // are; not with sequence.field (an older row of a higher level may win)
    if (outputLevel === maxLevel || (mergeEngine === "deduplicate" && this.seqColumns.length === 0)) return { kind: "upgrade", file: f, lookup: deletionVectors, changelog };
    return { kind: "rewrite", files: [f] };
  }

  /** Compacts `unit`: as `planCompaction` decides, or (`eachFile`, Java's `FileRewriteCompactTask`) every file rewritten on its own. */
  private async rewrite(unit: CompactUnit, eachFile = false): Promise<void> {
    const table = this.options.table;
    const dv = this.options.config.deletionVectors;
    const nonEmptyHighest = this.files.reduce((m, f) => Math.max(m, f.level), -1);
    const dropDeletes = unit.outputLevel !== 0 && (unit.outputLevel >= nonEmptyHighest || dv);
    const unitNames = new Set(unit.files.map((f) => f.fileName));
    const rest = this.files.filter((f) => !unitNames.has(f.fileName));
    const firstRow = this.options.config.mergeEngine === "first-row";
    // Keys arriving from level 0 are looked up in the levels above the output (Java's lookup
    // compaction); rows of higher levels are already unique across levels.
    const lookup: KeyColumn[][] | undefined = dv && !firstRow && rest.length > 0 ? [] : undefined;
    const lookupFiles: DataFileMeta[] = [];
    let exclude: Set<string> | undefined;
    const before: DataFileMeta[] = [];
    const after: DataFileMeta[] = [];
    const rewritten: DataFileMeta[] = [];
    const steps: CompactStep[] = eachFile ? unit.files.map((f) => ({ kind: "rewrite", files: [f] })) : this.planCompaction(unit, await this.expiredFiles(unit.files));
    const now = nowSeconds();
    for (const step of steps) {
      if (step.kind === "upgrade") {
        if (step.changelog) {
          const rows: KvBatch[] = [];
          for await (const c of this.allRowsOf(step.file)) rows.push(c);
          // (lookup: the wrapper merges each record alone, Java's CHANGELOG_NO_REWRITE keeps the file as it is)
          const merged = this.fold && this.options.config.changelogProducer === "lookup" ? (foldRecords(rows, this.keyColumns, this.fold, true, this.ranked(rows)) ?? undefined) : undefined;
          await this.writeCompactionChangelog(rows, rows.map(() => step.file.level), [step.file], rest, unit.outputLevel, merged);
        }
        if (step.lookup && lookup) {
          lookup.push(...(await this.keyColumnsOf(step.file)));
          lookupFiles.push(step.file);
        }
        before.push(step.file);
        after.push({ ...step.file, level: unit.outputLevel });
        continue;
      }
      const fromLevel0 = step.files.some((f) => f.level === 0);
      if (firstRow && fromLevel0 && rest.length > 0) exclude ??= await this.keysOf(rest);
      const inputs = [...step.files].sort((a, b) => compareSeq(a.minSequenceNumber, b.minSequenceNumber));
      const chunks: KvBatch[] = [];
      const chunkLevels: number[] = [];
      for (const f of inputs) {
        const deleted = this.dvs.get(f.fileName) ?? null;
        const fileFields = await this.schemas.fieldsOf(f.schemaId);
        for await (const read of readKvFile(table.fileIO, this.pathOf(f), f, table.schema.fields, { batchSize: COMPACT_READ_BATCH, deleted, fileFields })) {
          // (Java's compaction reader drops expired records)
          const c = this.expire ? this.expire.filter(read, now) : read;
          if (c.batch.numRows === 0) continue;
          chunks.push(c);
          chunkLevels.push(f.level);
        }
      }
      // Java ChangelogMergeTreeRewriter.rewriteChangelog: lookup changelogs come of compactions
      // of level 0 (not to level 0), full-compaction ones of compactions to the max level
      const config = this.options.config;
      const producer = config.changelogProducer;
      const fullChangelog = producer === "full-compaction" && unit.outputLevel === config.maxLevel;
      // Java's LookupChangelogMergeFunctionWrapper merges each key of a step with level 0: its
      // level-0 records with its record of the lowest positive level, looked up above the output
      // when the step has none (without deletion vectors: the rows stay, the output shadows them)
      // (full-compaction tables merge without lookup, as Java's FullChangelogMergeTreeCompactRewriter)
      const lookupStep = config.needLookup && producer !== "full-compaction" && !firstRow && fromLevel0 && unit.outputLevel > 0;
      const found = lookupStep && !dv && (this.fold !== null || this.seqColumns.length > 0) ? await this.lookupAbove(chunks, rest, inputs, unit.outputLevel) : undefined;
      // (partial-update / aggregation: against the folded rows, once folded)
      if (!this.fold && ((producer === "lookup" && fromLevel0 && unit.outputLevel > 0) || fullChangelog)) {
        await this.writeCompactionChangelog(chunks, chunkLevels, inputs, rest, unit.outputLevel, undefined, found);
      }
      const stepLookup = fromLevel0 ? lookup : undefined;
      if (stepLookup) lookupFiles.push(...inputs);
      let outputs: DataFileMeta[] = [];
      if (this.fold) {
        // with deletion vectors the looked-up live rows are marked deleted (the merged row
        // replaces them); the merge function sees every key, even one with a single record
        let input = chunks;
        let onFolded: ((folded: KvBatch) => Promise<void>) | undefined;
        if (lookupStep) {
          const looked = dv ? (rest.length > 0 && chunks.length > 0 ? await this.lookupLiveRows(chunks, rest, inputs) : { batches: [], levels: [] }) : found!;
          input = withoutShadowedLevels([...looked.batches, ...chunks], [...looked.levels, ...chunkLevels], this.keyColumns);
          if (producer === "lookup") onFolded = (folded) => this.writeCompactionChangelog(chunks, chunkLevels, inputs, rest, unit.outputLevel, folded, looked);
        } else {
          // Java's ReducerMergeFunctionWrapper over LookupMergeFunction: a key's lowest positive level only
          if (config.needLookup && !dv) input = withoutShadowedLevels(chunks, chunkLevels, this.keyColumns);
          if (fullChangelog) onFolded = (folded) => this.writeCompactionChangelog(chunks, chunkLevels, inputs, rest, unit.outputLevel, folded);
        }
        outputs = await this.writeFolded(input, unit.outputLevel, 1, dropDeletes, lookupStep, false, onFolded);
      } else if (chunks.length > 0) {
        // sequence.field with lookup: the key's row of the levels above joins the merge (Java's
        // lookup merges it by the sequence field: the older row may win, and is then written
        // again; with deletion vectors its old position is deleted)
        let input = chunks;
        if (stepLookup && this.seqColumns.length > 0) input = [...(await this.lookupLiveRows(chunks, rest, inputs)).batches, ...chunks];
        else if (found) input = withoutShadowedLevels([...found.batches, ...chunks], [...found.levels, ...chunkLevels], this.keyColumns);
        const merged = mergeKvBatches(this.ranked(input) ?? input, this.keyColumns, { dropDeletes: false, firstRow });
        outputs = await this.writeMerged(input, merged, unit.outputLevel, 1, dropDeletes, stepLookup, fromLevel0 ? exclude : undefined);
      }
      before.push(...inputs);
      rewritten.push(...inputs);
      after.push(...outputs);
    }
    if (lookup && lookup.length > 0) await this.markShadowed(rest, lookup, lookupFiles);
    // bookkeeping (Java MergeTreeWriter.updateCompactResult): levels, DVs, pending increments
    const beforeNames = new Set(before.map((f) => f.fileName));
    this.files = [...this.files.filter((f) => !beforeNames.has(f.fileName)), ...after];
    this.pruneKeyCache();
    for (const f of rewritten) {
      const bm = this.dvs.get(f.fileName);
      if (bm) {
        this.dvs.delete(f.fileName);
        bm.dispose();
        this.dvDirty = true;
      }
    }
    const afterNames = new Set(after.map((f) => f.fileName));
    for (const f of before) {
      const pending = this.compactAfter.findIndex((x) => x.fileName === f.fileName && x.level === f.level);
      if (pending >= 0) {
        // an output of this increment compacted again: dropped, and deleted unless an upgrade
        // keeps its file (as the input or the output of one)
        this.compactAfter.splice(pending, 1);
        if (!this.compactBefore.has(f.fileName) && !afterNames.has(f.fileName)) await table.fileIO.delete(this.pathOf(f)).catch(() => false);
      } else this.compactBefore.set(f.fileName, f);
    }
    this.compactAfter.push(...after);
  }

  /** Key columns of the live rows of `f` (the keys an upgraded level-0 file brings up), in key order. */
  private async keyColumnsOf(f: DataFileMeta): Promise<KeyColumn[][]> {
    const deleted = this.dvs.get(f.fileName) ?? null;
    return deleted && deleted.size > 0 ? this.readKeyColumns(f, deleted) : this.allKeyColumnsOf(f);
  }

  /** Key columns of every row of `f` (deletion vector ignored), from the cache or read (and cached while it has room). */
  private async allKeyColumnsOf(f: DataFileMeta): Promise<KeyColumn[][]> {
    const cached = this.keyCache.get(f.fileName);
    if (cached) return cached.chunks;
    const chunks = await this.readKeyColumns(f, null);
    let bytes = 0;
    for (const chunk of chunks) for (const c of chunk) bytes += (c.values?.byteLength ?? 0) + (c.offsets?.byteLength ?? 0) + (c.data?.byteLength ?? 0);
    if (this.keyCacheBytes + bytes <= this.keyCacheLimit) {
      this.keyCache.set(f.fileName, { chunks, bytes });
      this.keyCacheBytes += bytes;
    }
    return chunks;
  }

  private async readKeyColumns(f: DataFileMeta, deleted: RoaringBitmap32 | null): Promise<KeyColumn[][]> {
    const out: KeyColumn[][] = [];
    const fileFields = await this.schemas.fieldsOf(f.schemaId);
    for await (const c of readKvFile(this.options.table.fileIO, this.pathOf(f), f, this.keyFields, { batchSize: COMPACT_READ_BATCH, deleted, fileFields })) {
      out.push(this.keyFields.map((_, i) => keyColumnFromArrow(c.batch.data.children[i])));
    }
    return out;
  }

  /** Drops cached keys of files no longer live. */
  private pruneKeyCache(): void {
    if (this.keyCache.size === 0 && this.rowCache.size === 0) return;
    const live = new Set(this.files.map((f) => f.fileName));
    for (const cache of [this.keyCache, this.rowCache]) {
      for (const [name, entry] of cache) {
        if (live.has(name)) continue;
        cache.delete(name);
        this.keyCacheBytes -= entry.bytes;
      }
    }
  }

  /** partial-update / aggregation: the field fold of the table's columns. */
  private get fold(): MergeFold | null {
    const engine = this.options.config.mergeEngine;
    if (engine !== "partial-update" && engine !== "aggregation") return null;
    const table = this.options.table;
    this.foldCache ??= mergeFold(table.identifier, engine, table.schema.fields, table.schema.primaryKeys, table.coreOptions);
    return this.foldCache;
  }

  private foldCache: MergeFold | undefined;

  /** partial-update / aggregation: folds the chunks per key and writes the result at `level` (without retract results when `dropDeletes`). */
  private async writeFolded(chunks: KvBatch[], level: number, source: 0 | 1, dropDeletes: boolean, mergeSingle = false, flush = false, onFolded?: (folded: KvBatch) => Promise<void>): Promise<DataFileMeta[]> {
    const folded = chunks.length > 0 ? foldRecords(chunks, this.keyColumns, this.fold!, mergeSingle, this.ranked(chunks, flush)) : null;
    if (folded && onFolded) await onFolded(folded);
    const writer = new KvFileWriter(this.fileConfig, level, source);
    if (!folded) return writer.finish();
    let rows: Uint32Array | null = null;
    if (dropDeletes) {
      const live: number[] = [];
      for (let i = 0; i < folded.kinds.length; i++) if (folded.kinds[i] !== 1 && folded.kinds[i] !== 3) live.push(i);
      if (live.length < folded.kinds.length) rows = Uint32Array.from(live);
    }
    const n = rows ? rows.length : folded.batch.numRows;
    for (let at = 0; at < n; at += WRITE_CHUNK_ROWS) {
      const end = Math.min(n, at + WRITE_CHUNK_ROWS);
      const take = rows ? rows.subarray(at, end) : Uint32Array.from({ length: end - at }, (_, i) => at + i);
      const whole = !rows && at === 0 && end === n;
      await writer.write({
        batch: whole ? folded.batch : takeRows(folded.batch, take),
        sequence: whole ? folded.sequence : BigInt64Array.from(take, (r) => folded.sequence[r]),
        kinds: whole ? folded.kinds : Int8Array.from(take, (r) => folded.kinds[r]),
      });
    }
    return writer.finish();
  }

  /**
   * `chunks` ranked by the sequence fields (see sequence-order.ts), or undefined without
   * sequence.field. `flush`: the write buffer's order, always ascending — Java 1.4.2's
   * `SortBufferWriteBuffer` sorts the sequence fields ascending whatever
   * `sequence.field.sort-order` says (only reads and compactions honour `descending`), and the
   * files must hold what Java would write.
   */
  private ranked(chunks: readonly KvBatch[], flush = false): KvBatch[] | undefined {
    return this.seqColumns.length > 0 ? rankBySequenceFields(chunks, this.seqColumns, flush ? undefined : this.options.table.coreOptions.get("sequence.field.sort-order")) : undefined;
  }

  /** Keys of the live rows of `files` (first-row lookup). */
  private async keysOf(files: readonly DataFileMeta[]): Promise<Set<string>> {
    const table = this.options.table;
    const out = new Set<string>();
    for (const f of files) {
      const fileFields = await this.schemas.fieldsOf(f.schemaId);
      const deleted = this.dvs.get(f.fileName) ?? null;
      for await (const c of readKvFile(table.fileIO, this.pathOf(f), f, this.keyFields, { batchSize: COMPACT_READ_BATCH, deleted, fileFields })) {
        const cols = this.keyFields.map((_, i) => keyColumnFromArrow(c.batch.data.children[i]));
        for (let i = 0; i < c.batch.numRows; i++) out.add(keyString(cols, i));
      }
    }
    return out;
  }

  /**
   * Lookup: marks rows of `targets` whose key is among `lookup` (the compaction output's keys,
   * sorted chunks) as deleted (deletion vectors). Only targets whose [minKey, maxKey] overlaps
   * the key range of one of the compaction `inputs` can hold such keys; the rest are not read.
   */
  private async markShadowed(targets: readonly DataFileMeta[], lookup: readonly KeyColumn[][], inputs: readonly DataFileMeta[]): Promise<void> {
    for (const f of targets) for (const rows of await this.shadowedPositions(f, lookup, inputs)) this.markDeleted(f, rows);
  }

  /**
   * Positions (deletion vector ignored) of the rows of `f` whose key is among `lookup`, as
   * non-empty ascending runs; none unless `f` overlaps one of `inputs`.
   */
  private async shadowedPositions(f: DataFileMeta, lookup: readonly KeyColumn[][], inputs: readonly DataFileMeta[]): Promise<Uint32Array[]> {
    if (!inputs.some((i) => this.keys.compare(i.minKey, f.maxKey) <= 0 && this.keys.compare(f.minKey, i.maxKey) <= 0)) return [];
    let position = 0;
    const marks: Uint32Array[] = [];
    // positions count every row of the file, so its keys are taken without its deletion vector
    for (const cols of await this.allKeyColumnsOf(f)) {
      const rows = shadowedRows(cols, lookup);
      for (let i = 0; i < rows.length; i++) rows[i] += position;
      if (rows.length > 0) marks.push(rows);
      position += cols[0]?.length ?? 0;
    }
    return marks;
  }

  private markDeleted(f: DataFileMeta, positions: Uint32Array): void {
    let bm = this.dvs.get(f.fileName);
    if (!bm) this.dvs.set(f.fileName, (bm = new RoaringBitmap32()));
    bm.addMany(positions);
    this.dvDirty = true;
  }

  /**
   * partial-update / aggregation lookup (Java `LookupLevels` with deletion vectors): the live rows
   * of `targets` (the levels above a compaction's output) with a key of `chunks` (sorted runs of
   * the compaction `inputs`), marked deleted: the merged result replaces them.
   */
  private async lookupLiveRows(chunks: readonly KvBatch[], targets: readonly DataFileMeta[], inputs: readonly DataFileMeta[], mark = true): Promise<LookedUp> {
    const levels: number[] = [];
    const keys = mergeKvBatches(chunks, this.keyColumns, { dropDeletes: false });
    const sources = chunks.map((c) => c.batch.data.children);
    const lookup = [this.keyColumns.map((k) => keyColumnFromArrow(gatherData(sources.map((s) => s[k]), keys.part, keys.row)))];
    const out: KvBatch[] = [];
    for (const f of targets) {
      const runs = await this.shadowedPositions(f, lookup, inputs);
      // (one run per key chunk of the file: usually one)
      let positions = runs.length === 1 ? runs[0] : Uint32Array.from(runs.flatMap((r) => Array.from(r)));
      const deleted = this.dvs.get(f.fileName);
      if (deleted && positions.length > 0) {
        const hit = deleted.hasMany(positions);
        positions = positions.filter((_, i) => !hit[i]);
      }
      if (positions.length === 0) continue;
      let position = 0;
      let next = 0;
      for await (const c of this.allRowsOf(f)) {
        const end = position + c.batch.numRows;
        let stop = next;
        while (stop < positions.length && positions[stop] < end) stop++;
        if (stop > next) {
          const take = positions.slice(next, stop).map((p) => p - position);
          out.push({ batch: takeRows(c.batch, take), sequence: BigInt64Array.from(take, (r) => c.sequence[r]), kinds: Int8Array.from(take, (r) => c.kinds[r]) });
          levels.push(f.level);
          next = stop;
        }
        position = end;
      }
      if (mark) this.markDeleted(f, positions);
    }
    return { batches: out, levels };
  }

  /**
   * The rows of the levels above `outputLevel` holding keys of `chunks`, unmarked (Java's
   * `LookupLevels.lookup(key, outputLevel + 1)`; all of them: the caller keeps the lowest level).
   */
  private async lookupAbove(chunks: readonly KvBatch[], rest: readonly DataFileMeta[], inputs: readonly DataFileMeta[], outputLevel: number): Promise<LookedUp> {
    const above = rest.filter((f) => f.level > outputLevel).sort((a, b) => a.level - b.level);
    return above.length > 0 && chunks.length > 0 ? this.lookupLiveRows(chunks, above, inputs, false) : { batches: [], levels: [] };
  }

  /**
   * Every row of `f` (deletion vector ignored: positions count them all), from the cache or read;
   * kept while the keys and rows of live files fit `lookup.cache-max-memory-size`, so a file
   * updated commit after commit is decoded once.
   */
  private async *allRowsOf(f: DataFileMeta): AsyncGenerator<KvBatch> {
    // record-level expiry is refused with lookups: only full-compaction changelogs read here,
    // through Java's expiring reader
    if (this.expire) {
      const now = nowSeconds();
      for await (const c of this.allRowsUnexpired(f)) {
        const kept = this.expire.filter(c, now);
        if (kept.batch.numRows > 0) yield kept;
      }
      return;
    }
    yield* this.allRowsUnexpired(f);
  }

  private async *allRowsUnexpired(f: DataFileMeta): AsyncGenerator<KvBatch> {
    const cached = this.rowCache.get(f.fileName);
    if (cached) {
      yield* cached.chunks;
      return;
    }
    const table = this.options.table;
    const fileFields = await this.schemas.fieldsOf(f.schemaId);
    let kept: KvBatch[] | null = [];
    let bytes = 0;
    for await (const c of readKvFile(table.fileIO, this.pathOf(f), f, table.schema.fields, { batchSize: COMPACT_READ_BATCH, fileFields })) {
      if (kept) {
        bytes += c.batch.data.children.reduce((n, d) => n + d.byteLength, 0) + c.sequence.byteLength + c.kinds.byteLength;
        if (this.keyCacheBytes + bytes <= this.keyCacheLimit) kept.push(c);
        else kept = null;
      }
      yield c;
    }
    if (kept) {
      this.rowCache.set(f.fileName, { chunks: kept, bytes });
      this.keyCacheBytes += bytes;
    }
  }

  private pathOf(f: DataFileMeta): string {
    return this.options.table.paths.dataFile(this.options.bucketDir, f);
  }

  /** Rewrites the bucket's deletion-vector index file (one file per bucket, §8.5). */
  private async writeDvIndex(): Promise<{ newIndexFiles: IndexFileMeta[]; deletedIndexFiles: IndexFileMeta[] }> {
    const table = this.options.table;
    const live = new Set(this.files.map((f) => f.fileName));
    const deletedIndexFiles = this.dvIndex ? [this.dvIndex] : [];
    const meta = await writeDeletionVectorIndex(
      { io: table.fileIO, paths: table.paths, bitmap64: this.options.config.bitmap64 },
      this.options.bucketDir,
      [...this.dvs].filter(([name]) => live.has(name)),
      `index-${this.indexUuid}-${this.indexCounter++}`,
    );
    this.dvIndex = meta;
    return { newIndexFiles: meta ? [meta] : [], deletedIndexFiles };
  }

  /** Flushes, compacts as the table requires, and hands over everything since the last call. */
  async prepareIncrement(): Promise<BucketIncrement> {
    await this.flush();
    if (!this.options.writeOnly) await this.compact(false);
    let index = { newIndexFiles: [] as IndexFileMeta[], deletedIndexFiles: [] as IndexFileMeta[] };
    if (this.dvDirty) index = await this.writeDvIndex();
    this.dvDirty = false;
    const out: BucketIncrement = {
      dataIncrement: { newFiles: this.newFiles, changelogFiles: this.newChangelog },
      compactIncrement: { compactBefore: [...this.compactBefore.values()], compactAfter: this.compactAfter, changelogFiles: this.compactChangelog, ...index },
    };
    this.newFiles = [];
    this.newChangelog = [];
    this.compactChangelog = [];
    this.compactBefore = new Map();
    this.compactAfter = [];
    return out;
  }

  /** Frees the deletion-vector bitmaps. */
  close(): void {
    for (const bm of this.dvs.values()) bm.dispose();
    this.dvs.clear();
    this.keyCache.clear();
    this.rowCache.clear();
    this.keyCacheBytes = 0;
    this.buffer = [];
  }
}

/**
 * `start, start + 1, …` (n values), or `start + rows[i]` when `rows` (a permutation of a batch
 * numbered in row order) is given; written as int32 words with integer carries.
 */
export function sequenceRange(start: bigint, n: number, rows?: Uint32Array): BigInt64Array {
  const out = new BigInt64Array(n);
  if (start < 0n || start + BigInt(n) >= 1n << 63n) {
    for (let i = 0; i < n; i++) out[i] = start + BigInt(rows ? rows[i] : i);
    return out;
  }
  const words = new Uint32Array(out.buffer);
  const lo = Number(start & 0xffffffffn);
  const hi = Number(start >> 32n);
  // lo + row < 2^33: at most one carry into the high word
  if (rows) {
    for (let i = 0; i < n; i++) {
      const v = lo + rows[i];
      words[i * 2] = v >>> 0;
      words[i * 2 + 1] = v > 0xffffffff ? hi + 1 : hi;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = lo + i;
      words[i * 2] = v >>> 0;
      words[i * 2 + 1] = v > 0xffffffff ? hi + 1 : hi;
    }
  }
  return out;
}

/**
 * Java `CoreOptions.lookupCompactMaxInterval` for `lookup-compact=gentle` (max of the compaction
 * trigger and `lookup-compact.max-interval`, default twice the trigger); null for `radical`.
 */
function lookupCompactInterval(mode: string | undefined, maxInterval: string | undefined, trigger: number): number | null {
  const m = (mode ?? "radical").trim().toLowerCase();
  if (m === "radical") return null;
  if (m !== "gentle") throw new PaimonError("INVALID_ARGUMENT", `Could not parse value '${mode}' for key 'lookup-compact' (radical, gentle).`);
  const n = maxInterval === undefined ? trigger * 2 : Number(maxInterval.trim());
  if (!Number.isInteger(n)) throw new PaimonError("INVALID_ARGUMENT", `Could not parse value '${maxInterval}' for key 'lookup-compact.max-interval'.`);
  return Math.max(trigger, n);
}

/** `parquet.block.row.count.limit` must be positive (the Parquet writer cannot cut empty row groups). */
function rowGroupRowLimit(limit: number): number {
  if (limit < 1) throw new PaimonError("INVALID_ARGUMENT", `option parquet.block.row.count.limit must be positive, got ${limit}`);
  return limit;
}
