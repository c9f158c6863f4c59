// Merge-on-read of primary-key splits (format reference §7.5–7.6): each section of overlapping
// files is read run by run and merged with the wasm k-way merge (highest sequence number wins,
// retract rows dropped; first-row keeps the lowest); sections of one file without retract rows
// and deletion-vector splits are read raw. Deletion vectors are applied per file. Value
// predicates are evaluated on merged rows only; the output has the table's logical columns
// (optionally with a leading `_VALUE_KIND`).
import * as arrow from "apache-arrow";
import { gatherBatches, gatherInt64, gatherInt8 } from "../arrow/gather.js";
import { takeRows } from "../arrow/take.js";
import { PaimonError } from "../error.js";
import { type KeyColumn, keyColumnFromArrow } from "../kernel/columns.js";
import { mergeDeduplicate, type SortedRun } from "../kernel/merge.js";
import type { RoaringBitmap32 } from "../kernel/bitmap.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import { type Predicate, splitPredicateByFields } from "../predicate/predicate.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import type { TableSchema } from "../spec/schema.js";
import type { DataSplit } from "../scan/split.js";
import { intervalPartition } from "../scan/merge-tree-splits.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { TableOptions } from "../table/options.js";
import { KeyDecoder, keyFieldsOf, primaryKeyConfig } from "../table/primary-key.js";
import type { MergeFold } from "./merge-functions.js";
import { type DeletionFile, DeletionVectorLoader, FileSchemas, type KvBatch, readKvFile } from "./kv-file-reader.js";
import { recordBatch, sliceBatch } from "../arrow/record-batch.js";
import { readArrowField } from "../format/arrow-types.js";
import { timestampLtzLegacy } from "../format/file-formats.js";
import { sortedKeyRange } from "./selective-read.js";
import { rankBySequenceFields } from "./sequence-order.js";
import { shadowedRows } from "./shadow-marking.js";

/** Rows read per batch when a whole section is merged in memory. */
const MERGE_READ_BATCH = 1 << 20;

export const ROW_KIND_FIELD_NAME = "_VALUE_KIND";

export interface PrimaryKeyReadOptions {
  /** Output (projected) fields. */
  fields: readonly DataField[];
  /** Output schema: the projected fields, with a leading int8 `_VALUE_KIND` when `withRowKind`. */
  schema: arrow.Schema;
  /** Bound predicate applied exactly to merged rows (null = none). */
  filter: Predicate | null;
  batchSize: number;
  withRowKind: boolean;
  /** Keep retract rows that win the merge, and retract results of folds (Java `forceKeepDelete`: `$audit_log`). */
  keepDeletes?: boolean;
}

/** Merges sorted chunks (each sorted by key with unique keys, oldest first): winners in key order. */
export function mergeKvBatches(
  chunks: readonly KvBatch[],
  keyColumns: readonly number[],
  options: { dropDeletes: boolean; firstRow?: boolean },
): { part: Uint32Array; row: Uint32Array } {
  if (chunks.length === 0) return { part: new Uint32Array(0), row: new Uint32Array(0) };
  const runs: SortedRun[] = chunks.map((c) => ({
    keys: keyColumns.map((k) => keyColumnFromArrow(c.batch.data.children[k])),
    sequence: options.firstRow ? c.sequence.map((s) => -s) : c.sequence,
    rowKinds: c.kinds,
  }));
  const r = mergeDeduplicate(runs, { dropDeletes: options.dropDeletes });
  return { part: r.run, row: r.row };
}

/**
 * Java's `PartialUpdateMergeFunction.Factory.adjustReadType`: the `wanted` fields with the
 * sequence fields of the sequence groups they are in (table order), so a projection merges as
 * the whole row does.
 */
function withSequenceGroups(schemaFields: readonly DataField[], wanted: ReadonlySet<DataField>, options: TableOptions): DataField[] {
  const names = new Set([...wanted].map((f) => f.name));
  const extra = new Set<string>();
  for (const g of options.sequenceGroups) {
    if ([...g.fields, ...g.sequenceFields].some((n) => names.has(n))) for (const s of g.sequenceFields) extra.add(s);
  }
  return schemaFields.filter((f) => wanted.has(f) || extra.has(f.name));
}

export class PrimaryKeySplitReader {
  /** The primary key without partition fields (internal). */
  readonly keyFields: DataField[];
  /** Names of `keyFields`: the primary key without partition fields. */
  readonly keyNames: readonly string[];
  private readonly readFields: DataField[];
  private readonly keyColumns: number[];
  private readonly outColumns: number[];
  private readonly firstRow: boolean;
  /** partial-update / aggregation: whether records of a key are folded (false for deduplicate and first-row) */
  private readonly folds: boolean;
  /** the field fold, created (and its module loaded) on the first section that needs one */
  private fold: Promise<{ fold: MergeFold; foldRecords: typeof import("./merge-functions.js").foldRecords }> | null = null;
  /** (created on the first file read: a key lookup answered from memory reads none) */
  private dvLoader: DeletionVectorLoader | null = null;
  private fileSchemas: FileSchemas | null = null;
  /** The key-column part of the filter: exact before the merge, so files are read selectively by it. */
  readonly keyFilter: Predicate | null;
  /** `sequence.field` columns (in `readFields`), empty without. */
  private readonly seqColumns: number[];
  /**
   * Lookup tables of partial-update / aggregation (`changelog-producer=lookup`, `force-lookup`,
   * deletion vectors): a key's record at its lowest positive level already holds the merge of
   * the levels below it (the lookup compaction that wrote it merged the looked-up row), so a merge
   * reads only that one with the level-0 records (Java `LookupMergeFunction`); folding them all
   * would count the lower ones twice.
   */
  private readonly nearestLevelOnly: boolean;

  constructor(
    private readonly table: FileStoreTable,
    private readonly options: PrimaryKeyReadOptions,
  ) {
    const schema = table.schema;
    const layout = keyLayoutOf(schema);
    this.keyFields = layout.keyFields;
    // Read in table order; output picks the projected ones. Every field in table order (an
    // unprojected read, e.g. every key lookup) reads all of them: the schema's own layout.
    const config = primaryKeyConfig(table.coreOptions);
    // sequence fields decide the merge: read even when not projected (dropped by finish)
    const seqFields = config.sequenceFields.map((n) => schema.fields.find((f) => f.name === n)!); // (createTable checked they exist)
    if (sameFields(options.fields, schema.fields)) {
      this.readFields = schema.fields;
      this.keyColumns = layout.keyColumns;
      this.outColumns = layout.allColumns;
    } else {
      const filterNames = new Set<string>();
      if (options.filter) collectFields(options.filter, filterNames);
      const wanted = new Set<DataField>([...options.fields, ...this.keyFields, ...seqFields, ...schema.fields.filter((f) => filterNames.has(f.name))]);
      // partial-update reads the sequence fields of the groups it reads (Java's adjustReadType)
      this.readFields = config.mergeEngine === "partial-update" ? withSequenceGroups(schema.fields, wanted, table.coreOptions) : schema.fields.filter((f) => wanted.has(f));
      this.keyColumns = this.keyFields.map((k) => this.readFields.indexOf(k));
      this.outColumns = options.fields.map((f) => this.readFields.indexOf(f));
    }
    this.seqColumns = seqFields.map((f) => this.readFields.indexOf(f));
    const engine = config.mergeEngine;
    this.firstRow = engine === "first-row";
    this.folds = engine === "partial-update" || engine === "aggregation";
    // Java wraps the merge function of lookup tables in LookupMergeFunction (for reads too)
    this.nearestLevelOnly = this.folds && config.needLookup;
    // (the key of data files and memory runs: partition fields are not in it, the scan pruned by them)
    this.keyNames = layout.keyNames;
    this.keyFilter = options.filter ? splitPredicateByFields(options.filter, this.keyNames).picked : null;
  }

  async *read(split: DataSplit): AsyncGenerator<arrow.RecordBatch> {
    if (split.streaming || split.diffBefore) {
      // incremental reads load their code when first used (query bundles leave it out)
      const deps = { Schema: arrow.Schema, Field: arrow.Field, Int8: arrow.Int8, recordBatch, takeRows, readArrowField, Reader: PrimaryKeySplitReader, rowKindField: ROW_KIND_FIELD_NAME };
      yield* (await import("./incremental-diff.js")).readIncremental(this, this.table, split, deps);
      return;
    }
    const dvOf = new Map<string, DeletionFile | null>();
    const deletionFiles = (split as DataSplit & { deletionFiles?: ReadonlyArray<DeletionFile | null> }).deletionFiles;
    split.files.forEach((f, i) => dvOf.set(f.fileName, deletionFiles?.[i] ?? null));
    if (split.rawConvertible) {
      for (const f of split.files) yield* this.readRaw(split, f, dvOf.get(f.fileName) ?? null);
      return;
    }
    const sections = intervalPartition(split.files, new KeyDecoder(this.keyFields));
    for (const runs of sections) {
      if (runs.length === 1 && runs[0].length === 1 && runs[0][0].deleteRowCount === 0n) {
        yield* this.readRaw(split, runs[0][0], dvOf.get(runs[0][0].fileName) ?? null);
        continue;
      }
      // Oldest data first: ties (never expected) go to the later run.
      const files = runs.flat().sort((a, b) => compareSequence(a.minSequenceNumber, b.minSequenceNumber));
      let chunks: KvBatch[] = [];
      const levels: number[] = [];
      for (const f of files) {
        for await (const c of this.readFile(split, f, dvOf.get(f.fileName) ?? null, MERGE_READ_BATCH, this.keyFilter)) {
          chunks.push(c);
          levels.push(f.level);
        }
      }
      if (this.nearestLevelOnly) chunks = withoutShadowedLevels(chunks, levels, this.keyColumns);
      // sequence.field: the merges order the records of a key by their rank in the user order
      const order = this.seqColumns.length > 0 ? rankBySequenceFields(chunks, this.seqColumns, this.table.coreOptions.get("sequence.field.sort-order")) : undefined;
      if (this.folds) {
        const { fold, foldRecords } = await (this.fold ??= this.loadFold());
        const folded = foldRecords(chunks, this.keyColumns, fold, false, order);
        if (!folded) continue;
        // drop retract results (a key whose only record is -U/-D, a removed row), as Java's
        // DropDeleteReader; `$audit_log` keeps them (Java forceKeepDelete)
        const live: number[] = [];
        for (let i = 0; i < folded.kinds.length; i++) if (this.options.keepDeletes || (folded.kinds[i] !== 1 && folded.kinds[i] !== 3)) live.push(i);
        this.lastSeq = null;
        for (let at = 0; at < live.length; at += this.options.batchSize) {
          const rows = Uint32Array.from(live.slice(at, at + this.options.batchSize));
          const out = this.finish(takeRows(folded.batch, rows), this.options.withRowKind ? Int8Array.from(rows, (r) => folded.kinds[r]) : null);
          if (out) yield out;
        }
        continue;
      }
      yield* this.emitMerged(chunks, order);
    }
  }

  /** The merge functions load with the first partial-update / aggregation merge (a page that only reads other tables never loads them). */
  private async loadFold() {
    const { checkMergeFunctionOptions, foldRecords, mergeFold } = await import("./merge-functions.js");
    const { identifier, schema, coreOptions } = this.table;
    const engine = primaryKeyConfig(coreOptions).mergeEngine as MergeFold["engine"];
    checkMergeFunctionOptions(identifier, engine, schema.fields, schema.primaryKeys, coreOptions);
    return { fold: mergeFold(identifier, engine, this.readFields, schema.primaryKeys, coreOptions, schema.fields), foldRecords };
  }

  /**
   * Incremental diff reads (src/read/incremental-diff.ts, unfiltered whole rows): set, the
   * sequence numbers of the rows of each batch `read` yields are in `lastSeq` when it is
   * yielded (null where unknown: after a partial-update / aggregation fold, or retract rows
   * dropped from a raw file).
   */
  trackSeq = false;
  lastSeq: BigInt64Array | null = null;

  /** Whether the output has the leading `_VALUE_KIND` column. */
  get withRowKind(): boolean {
    return this.options.withRowKind;
  }

  get batchSize(): number {
    return this.options.batchSize;
  }

  /** Fields read (table order): the projection, the primary key, and filter columns. */
  get readFieldList(): readonly DataField[] {
    return this.readFields;
  }

  /**
   * Reads one partition-bucket's files (deletion vectors applied, every level) merged by key
   * with `memory`: sorted runs in `readFieldList` layout, newer than the files (real-time union
   * reads, seed "Primary Key MOR"/"Primary Key DV"). The filter applies after the merge. (Not for
   * sequence.field tables, which the real-time layer refuses: memory is ordered by sequence number.)
   */
  async *readWithMemory(split: DataSplit, memory: readonly KvBatch[], keyFilter: Predicate | null = null): AsyncGenerator<arrow.RecordBatch> {
    const deletionFiles = (split as DataSplit & { deletionFiles?: ReadonlyArray<DeletionFile | null> }).deletionFiles;
    const files = split.files.map((f, i) => ({ f, df: deletionFiles?.[i] ?? null }));
    files.sort((a, b) => compareSequence(a.f.minSequenceNumber, b.f.minSequenceNumber));
    const chunks: KvBatch[] = [];
    // A predicate on key columns only holds for all versions of a key or for none: filtering
    // before the merge is exact, and a key lookup then merges a handful of rows.
    // Files are read selectively by the key filter; memory runs (sorted by key) are narrowed by
    // binary search on the first key column before the exact filter.
    // Real-time queries come back to the same committed files: their decoded chunks are cached.
    const ordered = !this.firstRow && this.sequenceOrdered(files.map((x) => x.f), memory);
    for (const { f, df } of files) {
      // Files in sequence order (see sequenceOrdered): each file's rows are ordered against the
      // others by its range, so `_SEQUENCE_NUMBER` is not decoded; without retract rows (and
      // without row kinds wanted) neither is `_VALUE_KIND`: every row is a live version.
      const noSystem = ordered && f.deleteRowCount === 0n && !this.options.withRowKind;
      for await (const c of this.readFile(split, f, df, MERGE_READ_BATCH, keyFilter, noSystem, true)) {
        if (noSystem) c.sequence.fill(f.maxSequenceNumber); // (zeros, allocated for this chunk)
        chunks.push(c);
      }
    }
    this.addMemory(chunks, memory, keyFilter);
    yield* this.emitMerged(chunks);
  }

  /**
   * `readWithMemory` of a split without committed files (a key lookup whose files the scan pruned
   * by key statistics), synchronously: the same merge of the memory runs, as an array.
   */
  readMemoryOnly(memory: readonly KvBatch[], keyFilter: Predicate | null): arrow.RecordBatch[] {
    const chunks: KvBatch[] = [];
    this.addMemory(chunks, memory, keyFilter);
    const out: arrow.RecordBatch[] = [];
    for (const b of this.emitMerged(chunks)) out.push(b);
    return out;
  }

  /** Memory runs (newest data, after the files' chunks) exactly filtered by the key filter. */
  private addMemory(chunks: KvBatch[], memory: readonly KvBatch[], keyFilter: Predicate | null): void {
    for (const m of memory) {
      const kept = keyFilter ? filterKvBatch(sliceKvBatch(m, sortedKeyRange(m.batch.data.children[this.keyColumns[0]!]!, this.keyFields[0]!.name, keyFilter)), keyFilter) : m;
      if (kept.batch.numRows > 0) chunks.push(kept);
    }
  }

  /**
   * Whether `files` (sorted by their first sequence number) hold disjoint sequence ranges, all
   * below every sequence number of the `memory` runs: then a row of a file is ordered against
   * any row of another file or of memory by its file's maximum sequence number alone (what a
   * real-time writer produces: each commit numbers on from the bucket's maximum, memory after
   * it). Deduplicate ties (two rows of one key in one file) still go to the later row, which
   * is the newer one in a file sorted by key then sequence.
   */
  private sequenceOrdered(files: readonly DataFileMeta[], memory: readonly KvBatch[]): boolean {
    if (this.folds || files.length === 0) return false;
    for (let i = 1; i < files.length; i++) if (files[i].minSequenceNumber <= files[i - 1].maxSequenceNumber) return false;
    const fileMax = files[files.length - 1].maxSequenceNumber;
    for (const m of memory) if (!allAboveInt64(m.sequence, fileMax)) return false;
    return true;
  }

  /** Merge winners of sorted chunks (oldest first), retract rows dropped, in batchSize batches; `order`: the chunks ranked by sequence.field. */
  private *emitMerged(chunks: readonly KvBatch[], order?: readonly KvBatch[]): Generator<arrow.RecordBatch> {
    const single = onlyRow(chunks);
    if (single !== null) {
      // one row in all (a key lookup's usual result): it is the winner, unless a retract row
      if ((single.kinds[0] === 1 || single.kinds[0] === 3) && !this.options.keepDeletes) return;
      this.lastSeq = single.sequence;
      const out = this.finish(single.batch, this.options.withRowKind ? single.kinds : null);
      if (out) yield out;
      return;
    }
    const merged = mergeKvBatches(order ?? chunks, this.keyColumns, { dropDeletes: this.options.keepDeletes !== true, firstRow: this.firstRow });
    const total = merged.part.length;
    if (total === 0) return;
    // one gather of all winners (per-call costs once, not per batch), then zero-copy slices
    const all = gatherBatches(
      chunks.map((c) => c.batch),
      merged.part,
      merged.row,
      chunks[0].batch.schema,
      this.readFields.map((_, i) => i),
    );
    let kinds: Int8Array | null = null;
    if (this.options.withRowKind) {
      kinds = new Int8Array(total);
      for (let i = 0; i < total; i++) kinds[i] = chunks[merged.part[i]].kinds[merged.row[i]];
    }
    const step = this.options.batchSize;
    for (let at = 0; at < total; at += step) {
      const end = Math.min(total, at + step);
      if (this.trackSeq) this.lastSeq = BigInt64Array.from(merged.part.subarray(at, end), (p, i) => chunks[p].sequence[merged.row[at + i]]);
      const out = this.finish(sliceBatch(all, at, end), kinds ? kinds.subarray(at, end) : null);
      if (out) yield out;
    }
  }

  /** `cached`: take decoded chunks from the table's chunk cache (always for key-filtered reads). (Internal.) */
  async *readFile(split: DataSplit, f: DataFileMeta, df: DeletionFile | null, batchSize: number, keyFilter: Predicate | null, withoutSystemColumns = false, cached = false): AsyncGenerator<KvBatch> {
    const path = this.table.paths.dataFile(split.bucketPath, f);
    let deleted: RoaringBitmap32 | null = null;
    if (df) deleted = await (this.dvLoader ??= new DeletionVectorLoader(this.table.fileIO)).load(df);
    try {
      const fileFields = await (this.fileSchemas ??= new FileSchemas(this.table)).fieldsOf(f.schemaId);
      yield* readKvFile(this.table.fileIO, path, f, this.readFields, {
        batchSize,
        deleted,
        fileFields,
        withoutSystemColumns,
        footers: this.table.footers,
        chunkCache: keyFilter || cached ? this.table.chunkCache : null,
        sortedBy: this.keyFields[0]!.name,
        keyFilter: keyFilter ? { predicate: keyFilter, tableFields: this.table.schema.fields } : null,
        timestampLtzLegacy: timestampLtzLegacy(this.table.schema.options),
      });
    } finally {
      deleted?.dispose();
    }
  }

  private async *readRaw(split: DataSplit, f: DataFileMeta, df: DeletionFile | null): AsyncGenerator<arrow.RecordBatch> {
    // A file known to hold no retract rows needs no system columns unless row kinds are wanted.
    const noSystem = f.deleteRowCount === 0n && !this.options.withRowKind;
    for await (const c of this.readFile(split, f, df, this.options.batchSize, this.keyFilter, noSystem)) {
      let batch = c.batch;
      let kinds: Int8Array = c.kinds;
      // A raw file holds no retract rows, unless its delete count was unknown: drop them anyway.
      let retract = 0;
      if (!this.options.keepDeletes) for (let i = 0; i < kinds.length; i++) if (kinds[i] === 1 || kinds[i] === 3) retract++;
      this.lastSeq = c.sequence;
      if (retract > 0) {
        const rows = new Uint32Array(kinds.length - retract);
        for (let i = 0, j = 0; i < kinds.length; i++) if (kinds[i] !== 1 && kinds[i] !== 3) rows[j++] = i;
        batch = takeRows(batch, rows);
        kinds = Int8Array.from(rows, (r) => c.kinds[r]);
        this.lastSeq = null; // (rare: a file without a delete count)
      }
      const out = this.finish(batch, this.options.withRowKind ? kinds : null);
      if (out) yield out;
    }
  }

  /** Applies the residual filter, projects, and prepends the row kind (batches in `readFieldList` layout). */
  finish(batch: arrow.RecordBatch, kinds: Int8Array | null): arrow.RecordBatch | null {
    if (batch.numRows === 0) return null;
    if (this.options.filter) {
      const rows = filterBatchIndices(this.options.filter, batch);
      if (rows.length === 0) return null;
      if (rows.length < batch.numRows) {
        batch = takeRows(batch, rows);
        if (kinds) kinds = Int8Array.from(rows, (r) => kinds![r]);
      }
    }
    const children = this.outColumns.map((c) => batch.data.children[c]);
    if (kinds) children.unshift(arrow.makeData({ type: new arrow.Int8(), length: batch.numRows, data: kinds }));
    const schema = this.options.schema;
    if (children.length !== schema.fields.length) throw new PaimonError("INVALID_ARGUMENT", `internal: ${children.length} columns for a ${schema.fields.length}-column schema`);
    return recordBatch(schema, children, batch.numRows);
  }
}

/**
 * `chunks` (sorted, unique keys within each; `levels[i]` the level of chunk i's file) without the
 * rows of a positive level whose key also occurs at a lower positive level: each key keeps its
 * level-0 records and its record of the lowest positive level (Java `LookupMergeFunction`).
 */
export function withoutShadowedLevels(chunks: readonly KvBatch[], levels: readonly number[], keyColumns: readonly number[]): KvBatch[] {
  const positive = [...new Set(levels.filter((l) => l > 0))].sort((a, b) => a - b);
  if (positive.length < 2) return [...chunks];
  const keysOf = (c: KvBatch) => keyColumns.map((k) => keyColumnFromArrow(c.batch.data.children[k]));
  const out = [...chunks];
  const above: KeyColumn[][] = [];
  for (const level of positive) {
    const at = levels.flatMap((l, i) => (l === level ? [i] : []));
    const keys = at.map((i) => keysOf(chunks[i]!));
    if (above.length > 0) {
      at.forEach((i, j) => {
        const shadowed = shadowedRows(keys[j]!, above);
        if (shadowed.length > 0) out[i] = withoutRows(chunks[i]!, shadowed);
      });
    }
    above.push(...keys);
  }
  return out;
}

/** `c` without the rows `drop` (ascending). */
function withoutRows(c: KvBatch, drop: Uint32Array): KvBatch {
  const n = c.batch.numRows;
  const keep = new Uint32Array(n - drop.length);
  for (let i = 0, d = 0, j = 0; i < n; i++) {
    if (d < drop.length && drop[d] === i) d++;
    else keep[j++] = i;
  }
  return { batch: takeRows(c.batch, keep), sequence: BigInt64Array.from(keep, (r) => c.sequence[r]!), kinds: Int8Array.from(keep, (r) => c.kinds[r]!) };
}

/** The chunk holding the only row of `chunks` (the others empty), or null when they hold none or several. */
function onlyRow(chunks: readonly KvBatch[]): KvBatch | null {
  let found: KvBatch | null = null;
  for (const c of chunks) {
    const n = c.batch.numRows;
    if (n === 0) continue;
    if (n > 1 || found !== null) return null;
    found = c;
  }
  return found;
}

/** The rows of a KV batch matching `predicate` (bound to the table's fields). */
function filterKvBatch(c: KvBatch, predicate: Predicate): KvBatch {
  const rows = filterBatchIndices(predicate, c.batch);
  if (rows.length === c.batch.numRows) return c;
  const zeros = new Uint32Array(rows.length);
  return { batch: takeRows(c.batch, rows), sequence: gatherInt64([c.sequence], zeros, rows), kinds: gatherInt8([c.kinds], zeros, rows) };
}

/** Rows `from..to` of a KV batch. */
function sliceKvBatch(c: KvBatch, [from, to]: readonly [number, number]): KvBatch {
  if (from === 0 && to === c.batch.numRows) return c;
  return { batch: sliceBatch(c.batch, from, to), sequence: c.sequence.subarray(from, to), kinds: c.kinds.subarray(from, to) };
}

/** Whether every value of `values` is greater than `bound` (compared as 32-bit word pairs: no BigInt per value). */
function allAboveInt64(values: BigInt64Array, bound: bigint): boolean {
  if (bound < -(1n << 63n)) return true;
  if (bound >= (1n << 63n) - 1n) return values.length === 0;
  const hi = Number(bound >> 32n);
  const lo = Number(bound & 0xffffffffn);
  const w = new Int32Array(values.buffer, values.byteOffset, 2 * values.length);
  for (let i = 0; i < values.length; i++) {
    const h = w[2 * i + 1];
    if (h < hi || (h === hi && w[2 * i] >>> 0 <= lo)) return false;
  }
  return true;
}

function compareSequence(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a PK reader of a schema's every field needs of its key, the same for every read: computed once per schema. */
interface KeyLayout {
  readonly keyFields: DataField[];
  readonly keyNames: readonly string[];
  /** Positions of the key fields and of every field in the schema's field list. */
  readonly keyColumns: number[];
  readonly allColumns: number[];
}

const keyLayouts = new WeakMap<TableSchema, KeyLayout>();

function keyLayoutOf(schema: TableSchema): KeyLayout {
  let layout = keyLayouts.get(schema);
  if (layout === undefined) {
    const keyFields = keyFieldsOf(schema);
    layout = {
      keyFields,
      keyNames: Object.freeze(keyFields.map((f) => f.name)),
      keyColumns: keyFields.map((k) => schema.fields.indexOf(k)),
      allColumns: schema.fields.map((_, i) => i),
    };
    keyLayouts.set(schema, layout);
  }
  return layout;
}

/** Whether `fields` are exactly `all` (the same objects, in order). */
function sameFields(fields: readonly DataField[], all: readonly DataField[]): boolean {
  if (fields.length !== all.length) return false;
  for (let i = 0; i < fields.length; i++) if (fields[i] !== all[i]) return false;
  return true;
}

function collectFields(p: Predicate, into: Set<string>): void {
  if (p.kind === "leaf") into.add(p.field);
  else for (const c of p.children) collectFields(c, into);
}

/** Reads PK splits (dispatch target of `TableRead`). */
export async function* readPrimaryKeySplits(table: FileStoreTable, splits: readonly DataSplit[], options: PrimaryKeyReadOptions): AsyncGenerator<arrow.RecordBatch> {
  const reader = new PrimaryKeySplitReader(table, options);
  for (const split of splits) yield* reader.read(split);
}
