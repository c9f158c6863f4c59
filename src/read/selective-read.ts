// Selective reads of one Parquet data file under an exact filter: row groups whose footer
// statistics rule the filter out are skipped, pages ruled out by the column index are not
// decoded, and the filter columns are decoded first (late materialisation): the other
// projected columns are decoded only for the pages holding matching rows (offset index).
// Pages cut out of a column chunk are decoded by the flat decoder (format/parquet-flat.ts) when
// the column is in its scope, else put into an in-memory file that parquet-wasm decodes.
import * as arrow from "apache-arrow";
import { recordBatch } from "../arrow/record-batch.js";
import { takeData } from "../arrow/take.js";
import { concatData } from "../arrow/concat.js";
import { PaimonError } from "../error.js";
import { makeNullData } from "../format/arrow-types.js";
import { buildPrunedFile, columnMetaData, type PageSubset, type ParquetFooter } from "../format/footer.js";
import { getNumber } from "../format/thrift.js";
import { ChunkCache } from "../format/chunk-cache.js";
import { type ChunkPages, pageSubset, pagesNeedDictionary, readChunkPages } from "../format/page-index.js";
import { footerStatistics, type ParquetStatistics } from "../format/parquet-stats.js";
import { flatDecoder, plan, readAs } from "../format/parquet-reader.js";
import type { ColumnCast } from "../format/type-casts.js";
import { corrupt, type ByteSource } from "../format/source.js";
import { isWasmTrap, withParquetWasm } from "../format/wasm.js";
import type { RoaringBitmap32 } from "../kernel/bitmap.js";
import { filterBatchIndices } from "../predicate/evaluate.js";
import { bindPredicate, type BoundLeafPredicate, type Predicate, referencedFields } from "../predicate/predicate.js";
import { boundLeafMayMatch, type ColumnStats, mayMatch } from "../predicate/stats.js";
import type { DataField } from "../spec/types.js";

/** What selective reads skipped and decoded (process-wide totals; tests and benchmarks read them). */
export const selectiveReadCounters = { rowGroupsPruned: 0, rowGroupsRead: 0, chunkDecodes: 0, flatDecodes: 0, pagesDecoded: 0, pagesSkipped: 0, sortedNarrowings: 0 };

/** Kinds whose Parquet statistics values compare exactly as the predicate's values do. */
const STATS_KINDS = new Set(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "VARCHAR"]);

export interface SelectiveReadOptions {
  /** Fields to return (projection plus filter columns), in this order. */
  fields: readonly DataField[];
  /** The table's fields (the filter is bound against them). */
  tableFields: readonly DataField[];
  /** Fields of the schema the file was written with. */
  fileFields: readonly DataField[];
  /** Exact filter over `fields`. */
  filter: Predicate;
  /** Deleted row positions of the file. */
  deleted: RoaringBitmap32 | null;
  batchSize: number;
  footer: ParquetFooter;
  /** Decoded column chunks kept across reads (none when absent). */
  chunkCache?: ChunkCache | null;
  /**
   * A non-null integer column the rows are sorted by (a primary-key data file's first key
   * field): once its chunk is cached, the filter's bounds on it are found by binary search.
   */
  sortedBy?: string;
}

/** Rows of `fields` of the file that satisfy the filter, in file order. */
export async function* readSelective(src: ByteSource, o: SelectiveReadOptions): AsyncGenerator<arrow.RecordBatch> {
  const p = await plan(src, { fields: o.fields, mapBy: "id", fileFields: o.fileFields, footer: o.footer, fileName: src.name });
  const footer = p.footer;
  const fileColumnOf = o.fields.map((_, i) => (p.sourceIndex[i]! < 0 ? -1 : p.fileColumns[p.sourceIndex[i]!]!));
  const filter = bindPredicate(o.filter, o.tableFields);
  const filterNames = new Set(referencedFields(filter));
  const filterIdx = o.fields.map((f, i) => (filterNames.has(f.name) ? i : -1)).filter((i) => i >= 0);
  const otherIdx = o.fields.map((_, i) => i).filter((i) => !filterIdx.includes(i));
  // a filter column's statistics are usable when the file stored it with the same type kind and
  // its values read back unchanged (not cast: a shorter VARCHAR, another DECIMAL scale, a lower
  // TIMESTAMP precision change values, so bounds of the stored ones could prune matching rows)
  const usable = o.fields.map((f, i) => {
    if (p.casts[i]) return false;
    const col = fileColumnOf[i]!;
    const fileField = o.fileFields.find((x) => x.id === f.id);
    const c = col >= 0 ? footer.columns[col]! : undefined;
    return !!c && filterNames.has(f.name) && STATS_KINDS.has(f.type.kind) && fileField?.type.kind === f.type.kind && c.leafEnd - c.leafStart === 1 && c.schemaEnd - c.schemaStart === 1;
  });
  const stats = statisticsOf(footer);
  const sortedIdx = o.sortedBy === undefined ? -1 : o.fields.findIndex((f, i) => f.name === o.sortedBy && usable[i]);
  /** Whether filter column `i`'s bounds can be searched in its values. */
  const searchable = (i: number) => usable[i] && SEARCHABLE_KEY_KINDS.has(o.fields[i]!.type.kind);
  /** The rows of `data` (values of filter column `i`) the filter's bounds leave, when they ascend (or `i` is sortedBy). */
  const keyRange = (i: number, data: arrow.Data | undefined) => (data && (i === sortedIdx || ascendingIntegers(data)) ? sortedKeyRange(data, o.fields[i]!.name, filter) : null);
  let rowGroupStart = 0;
  for (let rg = 0; rg < footer.rowGroups.length; rowGroupStart += footer.rowGroups[rg]!.numRows, rg++) {
    const numRows = footer.rowGroups[rg]!.numRows;
    if (numRows === 0) continue;
    const columns: Record<string, ColumnStats | undefined> = {};
    o.fields.forEach((f, i) => {
      if (usable[i]) columns[f.name] = stats.rowGroups[rg]!.columns[footer.columns[fileColumnOf[i]!]!.leafStart]!;
    });
    if (!mayMatch(filter, { rowCount: numRows, columns }, o.tableFields)) {
      selectiveReadCounters.rowGroupsPruned++;
      continue;
    }
    selectiveReadCounters.rowGroupsRead++;
    const pagesOf = (col: number) => pageIndexOf(src, footer, rg, col);
    // candidate rows: the range a sorted filter column's bounds leave (below), and pages of the
    // filter columns whose column-index statistics may match (not walked when the sorted range
    // left a few rows already: a key lookup's one row)
    let sorted: Ranges | null = null;
    if (o.chunkCache) {
      // rows sorted by a filter column decoded whole before (declared: a primary-key file's first
      // key; found: an integer column whose cached chunk ascends, such as the keys of an append
      // table written in key order): the filter's bounds on it are a row range
      for (const i of sortedIdx >= 0 ? [sortedIdx] : filterIdx) {
        const range = searchable(i) && keyRange(i, o.chunkCache.get(chunkKey(src, rg, fileColumnOf[i]!, p.schema.fields[i]!, p.casts[i]!)));
        if (range) {
          sorted = sorted === null ? [range] : intersect(sorted, [range]);
          selectiveReadCounters.sortedNarrowings++;
        }
      }
    }
    let ranges: Ranges;
    if (sorted !== null && sorted.reduce((n, [lo, hi]) => n + hi - lo, 0) <= FEW_SORTED_ROWS) ranges = sorted;
    else {
      ranges = await candidateRanges(filter, o.fields, usable, fileColumnOf, numRows, pagesOf);
      if (sorted !== null) ranges = intersect(ranges, sorted);
    }
    // one candidate range (a page index or sorted key narrowed it): its rows are not listed
    let single = ranges.length === 1 ? ranges[0]! : null;
    const listed = single ? null : rowsOf(ranges);
    let candidateCount = single ? single[1] - single[0] : listed!.length;
    if (candidateCount === 0) continue;
    const candidateAt = (k: number): number => (single ? single[0] + k : listed![k]!);
    // the other columns' candidate pages are fetched while the filter columns are decoded
    // (not with a chunk cache: its chunks are often held decoded, and then never read)
    const other = o.chunkCache ? src : await prefetchPages(src, ranges, numRows, otherIdx.map((i) => fileColumnOf[i]!), pagesOf);
    const decodeAt = async (i: number, rows: Rows): Promise<arrow.Data> => {
      const col = fileColumnOf[i]!;
      const field = p.schema.fields[i]!;
      if (col < 0) return makeNullData(field.type, rows instanceof Uint32Array ? rows.length : rows[1] - rows[0]);
      return decodeColumnRows(filterIdx.includes(i) ? src : other, footer, rg, col, await pagesOf(col), rows, field, p.casts[i]!, o.chunkCache ?? null);
    };
    // the candidate rows of the filter columns (of one range: a slice of a cached chunk)
    let filterData = await Promise.all(filterIdx.map((i) => decodeAt(i, single ?? listed!)));
    if (single && sorted === null) {
      // one range of a filter column that ascends (an append table written in key order): the
      // filter's bounds on it narrow the candidates by binary search before the exact test, which
      // then tests the rows of a 1% range rather than every row of its pages
      const range = filterIdx.reduce<[number, number] | null>((r, i, k) => r ?? (searchable(i) ? keyRange(i, filterData[k]) : null), null);
      if (range) {
        const [from, to] = range;
        if (to - from < candidateCount) {
          single = [single[0] + from, single[0] + to];
          candidateCount = to - from;
          filterData = filterData.map((d) => d.slice(from, candidateCount));
          selectiveReadCounters.sortedNarrowings++;
          if (candidateCount === 0) continue;
        }
      }
    }
    const filterSchema = new arrow.Schema(filterIdx.map((i) => p.schema.fields[i]!));
    let selected = filterBatchIndices(filter, recordBatch(filterSchema, filterData, candidateCount));
    if (o.deleted && selected.length > 0) {
      const positions = new Uint32Array(selected.length);
      for (let k = 0; k < selected.length; k++) positions[k] = rowGroupStart + candidateAt(selected[k]!);
      const hit = o.deleted.hasMany(positions);
      selected = selected.filter((_, k) => !hit[k]);
    }
    if (selected.length === 0) continue;
    let rows: Rows;
    if (single && selected.length === candidateCount) rows = single; // every candidate of one range
    else {
      // a typed-array loop: Uint32Array.from with a map function took 1.6 ms for 10k rows
      rows = new Uint32Array(selected.length);
      for (let k = 0; k < selected.length; k++) rows[k] = candidateAt(selected[k]!);
    }
    const numSelected = selected.length;
    const children: arrow.Data[] = new Array(o.fields.length);
    filterIdx.forEach((i, k) => (children[i] = selected.length === candidateCount ? filterData[k]! : takeData(filterData[k]!, selected)));
    const others = await Promise.all(otherIdx.map((i) => decodeAt(i, rows)));
    otherIdx.forEach((i, k) => (children[i] = others[k]!));
    const batch = recordBatch(p.schema, children, numSelected);
    for (let at = 0; at < numSelected; at += o.batchSize) yield at === 0 && numSelected <= o.batchSize ? batch : batch.slice(at, Math.min(numSelected, at + o.batchSize));
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** 32-bit word views of BIGINT value buffers, kept per buffer (stored runs and cached chunks are probed by every lookup). */
const wordViews = new WeakMap<BigInt64Array, Int32Array>();

/** The [low, high] words of each value of `values` (little-endian), or null on a big-endian platform. */
function int64Words(values: BigInt64Array): Int32Array | null {
  if (!LITTLE_ENDIAN) return null;
  let words = wordViews.get(values);
  if (words === undefined) wordViews.set(values, (words = new Int32Array(values.buffer, values.byteOffset, values.length * 2)));
  return words;
}

let lastLiteral = 0n;
let lastHigh = 0;
let lastLow = 0;

/**
 * `sortedKeyRange`'s binary search over BIGINT keys by their words (high word signed, then low
 * word unsigned): reading a BigInt64Array element allocates a BigInt, and a key lookup probes
 * every stored run, so a boxed search made most of a lookup's garbage.
 */
function searchInt64Words(words: Int32Array, n: number, v: bigint, inclusive: boolean): number {
  if (v !== lastLiteral) {
    lastHigh = Number(v >> 32n);
    lastLow = Number(v & 0xffffffffn);
    lastLiteral = v;
  }
  return searchWords(words, n, lastHigh, lastLow, inclusive);
}

/**
 * `searchInt64Words` of the int64 whose high word (signed) is `vHigh` and low word (unsigned)
 * `vLow`. The first and last values are tested first: a value outside a sorted run's key range
 * (most runs of a key lookup: each stored batch is its own sorted run) takes two probes, not a
 * search.
 */
function searchWords(words: Int32Array, n: number, vHigh: number, vLow: number, inclusive: boolean): number {
  if (n === 0 || !wordsBelow(words, 0, vHigh, vLow, inclusive)) return 0;
  if (wordsBelow(words, n - 1, vHigh, vLow, inclusive)) return n;
  let lo = 1;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (wordsBelow(words, mid, vHigh, vLow, inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether int64 `i` of `words` is below (`inclusive`: at or below) the int64 (vHigh signed, vLow unsigned). */
function wordsBelow(words: Int32Array, i: number, vHigh: number, vLow: number, inclusive: boolean): boolean {
  const xHigh = words[2 * i + 1]!;
  const xLow = words[2 * i]! >>> 0;
  return xHigh < vHigh || (xHigh === vHigh && (xLow < vLow || (inclusive && xLow === vLow)));
}

/** The words of an int64 for `int64LowerBound`: [high word (signed), low word (unsigned)]. */
export function int64WordsOf(v: bigint): [number, number] {
  return [Number(BigInt.asIntN(32, v >> 32n)), Number(v & 0xffffffffn)];
}

/**
 * First index of `values` (ascending) whose value is not below the int64 `words`
 * (`int64WordsOf`), `inclusive`: not at or below it. Compares 32-bit words: reading a
 * BigInt64Array element boxes a BigInt, and the real-time reads bound the offsets of every
 * stored batch of every lookup this way.
 */
export function int64LowerBound(values: BigInt64Array, words: readonly [number, number], inclusive = false): number {
  const w = int64Words(values);
  // (the usual real-time case, a stored batch wholly inside the window: two probes, no search)
  if (w !== null) return searchWords(w, values.length, words[0], words[1], inclusive);
  return searchValues(values, values.length, (BigInt(words[0]) << 32n) | BigInt(words[1]), inclusive);
}

/** Integer key kinds whose Arrow values compare as the bound predicate's literals do. */
const SEARCHABLE_KEY_KINDS = new Set(["TINYINT", "SMALLINT", "INT", "BIGINT"]);
const RANGE_OPS = new Set(["eq", "lt", "le", "gt", "ge"]);

/**
 * The row range of `data` (a non-null key column sorted ascending) that can satisfy the
 * conjunctive bounds `filter` puts on `field` (`=`, `<`, `<=`, `>`, `>=`); every row when it
 * puts none or the column is not an integer. Binary search over the typed values: a key lookup
 * touches O(log n) rows of each sorted run.
 */
export function sortedKeyRange(data: arrow.Data, field: string, filter: Predicate, out: [number, number] = [0, 0]): [number, number] {
  // Allocation-free (given `out`, which it fills and returns): it runs for every stored run of every key lookup.
  const n = data.length;
  const children = filter.kind === "and" ? filter.children : null;
  let from = 0;
  let to = n;
  for (let i = 0, count = children === null ? 1 : children.length; i < count; i++) {
    const p = children === null ? filter : children[i]!;
    if (p.kind !== "leaf" || p.field !== field || p.type === undefined || !RANGE_OPS.has(p.op) || !SEARCHABLE_KEY_KINDS.has(p.type.kind)) continue;
    const v = p.literals[0] as number | bigint;
    if (p.op === "eq" || p.op === "ge") from = Math.max(from, searchSorted(data, v, false));
    if (p.op === "gt") from = Math.max(from, searchSorted(data, v, true));
    if (p.op === "eq" || p.op === "le") to = Math.min(to, searchSorted(data, v, true));
    if (p.op === "lt") to = Math.min(to, searchSorted(data, v, false));
  }
  out[0] = from;
  out[1] = Math.max(from, to);
  return out;
}

/** Whether cached chunks (immutable) are non-null integers in ascending order, found once per chunk. */
const ascendingChunks = new WeakMap<arrow.Data, boolean>();

function ascendingIntegers(data: arrow.Data): boolean {
  let known = ascendingChunks.get(data);
  if (known === undefined) ascendingChunks.set(data, (known = data.nullCount === 0 && nonDecreasing(data.values as unknown, data.length)));
  return known;
}

/** Whether the first `n` values ascend (ties allowed); false for values that are not signed integers. */
function nonDecreasing(values: unknown, n: number): boolean {
  if (values instanceof BigInt64Array) {
    const w = int64Words(values);
    if (w === null) return false;
    for (let i = 1; i < n; i++) {
      const h = w[2 * i + 1]!;
      const ph = w[2 * i - 1]!;
      if (h < ph || (h === ph && w[2 * i]! >>> 0 < w[2 * i - 2]! >>> 0)) return false;
    }
    return true;
  }
  if (!(values instanceof Int32Array || values instanceof Int16Array || values instanceof Int8Array)) return false;
  for (let i = 1; i < n; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}

/** First row of the sorted integer column `data` whose key is not below `v` (`inclusive`: not at or below it). */
function searchSorted(data: arrow.Data, v: number | bigint, inclusive: boolean): number {
  // bigint for BIGINT, number otherwise (as the literals); Arrow JS slices `values` with the Data
  const values = data.values as Int32Array | BigInt64Array;
  const n = data.length;
  const words = values instanceof BigInt64Array ? int64Words(values) : null;
  if (words !== null) return searchInt64Words(words, n, v as bigint, inclusive);
  return searchValues(values, n, v, inclusive);
}

/** First of the `n` ascending `values` not below `v` (`inclusive`: not at or below it). */
function searchValues(values: Int32Array | BigInt64Array, n: number, v: number | bigint, inclusive: boolean): number {
  // (first and last value first, as searchWords)
  if (n === 0 || !(values[0]! < v || (inclusive && values[0] === v))) return 0;
  const last = values[n - 1]!;
  if (last < v || (inclusive && last === v)) return n;
  let lo = 1;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = values[mid]!;
    if (x < v || (inclusive && x === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Footers are cached per table (Table.footers); their statistics and page indexes are kept with them.
const footerStats = new WeakMap<ParquetFooter, ParquetStatistics>();
const pageIndexes = new WeakMap<ParquetFooter, Map<string, Promise<ChunkPages | null>>>();

function statisticsOf(footer: ParquetFooter): ParquetStatistics {
  let s = footerStats.get(footer);
  if (!s) footerStats.set(footer, (s = footerStatistics(footer)));
  return s;
}

/** The page index (offset and column index) of one column chunk, read once per footer. */
function pageIndexOf(src: ByteSource, footer: ParquetFooter, rg: number, col: number): Promise<ChunkPages | null> {
  let byChunk = pageIndexes.get(footer);
  if (!byChunk) pageIndexes.set(footer, (byChunk = new Map()));
  const key = `${rg}:${col}`;
  let pages = byChunk.get(key);
  if (!pages) {
    pages = readChunkPages(src, footer, rg, col, true);
    byChunk.set(key, pages);
    pages.catch(() => byChunk!.delete(key)); // a failed read is retried next time
  }
  return pages;
}

/** Largest byte span of one column's candidate pages fetched ahead (prefetchPages). */
const PREFETCH_MAX_BYTES = 4 * 1024 * 1024;

/**
 * `src`, with the byte span of the pages of each of `columns` that hold rows of `ranges`
 * already being read: late materialisation decodes those columns after the filter, and the
 * fetch overlaps the filter columns' fetch and decode (one round trip less per selective read,
 * which matters most for object stores). Only when the page index cut the row group down (at
 * most a quarter of its rows) and a span is at most PREFETCH_MAX_BYTES; reads outside the
 * spans, and reads of a span whose fetch failed, go to `src` as before.
 */
async function prefetchPages(src: ByteSource, ranges: Ranges, numRows: number, columns: readonly number[], pagesOf: (col: number) => Promise<ChunkPages | null>): Promise<ByteSource> {
  if (src.bytes || ranges.length === 0) return src; // in memory: nothing to fetch
  const first = ranges[0]![0];
  const last = ranges[ranges.length - 1]![1];
  if ((last - first) * 4 > numRows) return src;
  const spans: Array<{ start: number; end: number; bytes: Promise<Uint8Array | null> }> = [];
  for (const col of columns) {
    const pages = col < 0 ? null : await pagesOf(col);
    if (!pages) continue;
    let a = 0;
    while (a + 1 < pages.offsets.length && pages.rowStarts[a + 1]! <= first) a++;
    let b = a;
    while (b + 1 < pages.offsets.length && pages.rowStarts[b + 1]! < last) b++;
    const start = pages.offsets[a]!;
    const end = pages.offsets[b]! + pages.sizes[b]!;
    if (end - start > PREFETCH_MAX_BYTES) continue;
    spans.push({ start, end, bytes: src.read(start, end - start).catch(() => null) });
  }
  if (spans.length === 0) return src;
  return {
    size: src.size,
    name: src.name,
    read: async (offset, length) => {
      const span = spans.find((x) => offset >= x.start && offset + length <= x.end);
      const bytes = span ? await span.bytes : null;
      return bytes ? bytes.subarray(offset - span!.start, offset - span!.start + length) : src.read(offset, length);
    },
  };
}

/** Candidate rows of a sorted filter column below which the page statistics are not consulted (the exact filter tests them). */
const FEW_SORTED_ROWS = 1024;

/** Sorted, disjoint [start, end) row ranges. */
type Ranges = Array<[number, number]>;

/** Ascending row-group rows: listed, or the [start, end) range of them. */
type Rows = Uint32Array | [number, number];

function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Ranges = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const lo = Math.max(a[i]![0], b[j]![0]);
    const hi = Math.min(a[i]![1], b[j]![1]);
    if (lo < hi) out.push([lo, hi]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

function union(parts: readonly Ranges[]): Ranges {
  const all = parts.flat().sort((x, y) => x[0] - y[0]);
  const out: Ranges = [];
  for (const [lo, hi] of all) {
    const last = out[out.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Ascending row-group row ranges that the page statistics cannot rule out (`filter` bound by `bindPredicate`). */
async function candidateRanges(
  filter: Predicate,
  fields: readonly DataField[],
  usable: readonly boolean[],
  fileColumnOf: readonly number[],
  numRows: number,
  pagesOf: (col: number) => Promise<ChunkPages | null>,
): Promise<Ranges> {
  // null = every row
  const walk = async (q: Predicate): Promise<Ranges | null> => {
    if (q.kind === "leaf") {
      const i = fields.findIndex((f) => f.name === q.field);
      if (i < 0 || !usable[i]) return null;
      const pages = await pagesOf(fileColumnOf[i]!);
      if (!pages?.stats) return null;
      // the filter is bound (readSelective): its leaves test page statistics directly
      const ranges: Ranges = [];
      const stats = pages.stats;
      for (let pg = 0; pg < stats.length; pg++) {
        const from = pages.rowStarts[pg]!;
        const to = pages.rowStarts[pg + 1]!;
        if (!boundLeafMayMatch(q as BoundLeafPredicate, stats[pg], to - from)) continue;
        const last = ranges[ranges.length - 1];
        if (last && last[1] === from) last[1] = to; // pages are in row order: merge adjacent ones
        else ranges.push([from, to]);
      }
      return ranges;
    }
    const parts = await Promise.all(q.children.map(walk));
    if (q.kind === "and") {
      const known = parts.filter((m): m is Ranges => m !== null);
      return known.length === 0 ? null : known.reduce(intersect);
    }
    return parts.some((m) => m === null) ? null : union(parts as Ranges[]);
  };
  return (await walk(filter)) ?? [[0, numRows]];
}

/** The rows of `ranges`, ascending. */
function rowsOf(ranges: Ranges): Uint32Array {
  const out = new Uint32Array(ranges.reduce((n, [lo, hi]) => n + hi - lo, 0));
  let j = 0;
  for (const [lo, hi] of ranges) for (let r = lo; r < hi; r++) out[j++] = r;
  return out;
}

/** Values of flat-or-nested file column `col` at row-group rows `rows`, as `field`'s type. */
async function decodeColumnRows(src: ByteSource, footer: ParquetFooter, rg: number, col: number, pages: ChunkPages | null, rows: Rows, field: arrow.Field, cast: ColumnCast | null, cache: ChunkCache | null): Promise<arrow.Data> {
  const pick = (whole: arrow.Data): arrow.Data => rowsOfData(whole, rows);
  const key = cache ? chunkKey(src, rg, col, field, cast) : "";
  if (cache) {
    const whole = cache.get(key);
    if (whole) return pick(whole);
    if (cache.admit(key, decodedSizeEstimate(footer, rg, col))) {
      const decoded = await decodeChunk(src, footer, rg, col, pages, undefined, field, cast);
      cache.put(key, decoded);
      return pick(decoded);
    }
  }
  let positions: Rows = rows;
  const pageCount = pages ? pages.offsets.length : 1;
  const selected: number[] = [];
  if (pages && !(rows instanceof Uint32Array)) {
    // a range: the pages it overlaps, and the range within them
    const [from, to] = rows;
    for (let pg = 0; pg < pageCount && pages.rowStarts[pg]! < to; pg++) if (pages.rowStarts[pg + 1]! > from) selected.push(pg);
    if (selected.length < pageCount) {
      const base = pages.rowStarts[selected[0]!]!;
      positions = [from - base, to - base];
    }
  } else if (pages) {
    const within = new Uint32Array(rows.length);
    let base = 0;
    let pg = -1;
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]!;
      while (r >= pages.rowStarts[pg + 1]!) {
        pg++;
        if (r < pages.rowStarts[pg + 1]! && r >= pages.rowStarts[pg]!) {
          if (selected.length > 0) base += pages.rowStarts[selected[selected.length - 1]! + 1]! - pages.rowStarts[selected[selected.length - 1]!]!;
          selected.push(pg);
        }
      }
      within[k] = base + r - pages.rowStarts[pg]!;
    }
    if (selected.length < pageCount) positions = within;
  }
  const subset = pages && selected.length < pageCount ? { selected, ranges: pageSubset(pages, selected, await pagesNeedDictionary(src, pages, selected)) } : undefined;
  // a chunk too large to keep whole: its pages are kept as decoded, per set of pages asked for
  const pageKey = cache && subset ? `${key}|${selected.join(",")}` : "";
  let data = pageKey ? cache!.get(pageKey) : undefined;
  if (data === undefined) {
    data = await decodeChunk(src, footer, rg, col, pages, subset, field, cast);
    if (pageKey && cache!.admit(pageKey, 8 * subset!.ranges.numRows + subset!.ranges.ranges.reduce((n, r) => n + r.length, 0))) cache!.put(pageKey, data);
  }
  return rowsOfData(data, positions);
}

/** Rows `rows` of `data`: itself when all, a zero-copy slice when contiguous. */
function rowsOfData(data: arrow.Data, rows: Rows): arrow.Data {
  if (!(rows instanceof Uint32Array)) return rows[1] - rows[0] === data.length ? data : data.slice(rows[0], rows[1] - rows[0]);
  if (rows.length === data.length) return data; // every row, in order
  if (rows.length > 0 && rows[rows.length - 1]! - rows[0]! === rows.length - 1) return data.slice(rows[0]!, rows.length);
  return takeData(data, rows);
}

/** The chunk cache key of file column `col` of row group `rg` decoded as `field` (through `cast`). */
function chunkKey(src: ByteSource, rg: number, col: number, field: arrow.Field, cast: ColumnCast | null): string {
  return ChunkCache.key(src.name, src.size, rg, col, field.type) + (cast ? `|${cast.key}` : "");
}

/** Decoded size of a column chunk, estimated from its metadata (8 bytes a row and leaf, plus the uncompressed pages). */
function decodedSizeEstimate(footer: ParquetFooter, rg: number, col: number): number {
  const c = footer.columns[col]!;
  let bytes = footer.rowGroups[rg]!.numRows * 8 * (c.leafEnd - c.leafStart);
  for (let leaf = c.leafStart; leaf < c.leafEnd; leaf++) {
    const md = columnMetaData(footer, rg, leaf);
    bytes += (md && getNumber(md, 6)) ?? 0; // total_uncompressed_size
  }
  return bytes;
}

/** Decodes column `col` of row group `rg`: its pages `subset` (all when undefined), as `field`'s type. */
async function decodeChunk(src: ByteSource, footer: ParquetFooter, rg: number, col: number, pages: ChunkPages | null, subset: { selected: readonly number[]; ranges: PageSubset } | undefined, field: arrow.Field, cast: ColumnCast | null): Promise<arrow.Data> {
  const pageCount = pages ? pages.offsets.length : 1;
  selectiveReadCounters.chunkDecodes++;
  selectiveReadCounters.pagesDecoded += subset ? subset.selected.length : pageCount;
  selectiveReadCounters.pagesSkipped += subset ? pageCount - subset.selected.length : 0;
  const total = subset ? subset.ranges.numRows : footer.rowGroups[rg]!.numRows;
  // flat columns straight from their pages; the rest through an in-memory file for parquet-wasm
  let data = await (await flatDecoder())?.decodeFlatPages(src, footer, col, rg, subset?.ranges);
  if (data) selectiveReadCounters.flatDecodes++;
  else try {
    const file = await buildPrunedFile(src, footer, [col], [rg], subset?.ranges);
    // one batch of exactly the chunk's rows (the decoder allocates batchSize up front)
    const ipc = await withParquetWasm((pw) => pw.readParquet(file, { batchSize: Math.max(1, total) }).intoIPCStream());
    const decoded = arrow.tableFromIPC(ipc);
    const chunks = decoded.batches.map((b) => b.data.children[0]!);
    data = chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? makeNullData(decoded.schema.fields[0]!.type, 0) : concatData(chunks);
  } catch (e) {
    if (e instanceof PaimonError) throw e;
    const detail = isWasmTrap(e) ? "the Parquet decoder aborted" : String((e as Error)?.message ?? e);
    throw corrupt(src.name, `row group ${rg}: ${detail}`, e);
  }
  data = readAs(data, field.type, cast, `${field.name} of ${src.name}`);
  if (data.length !== total) throw corrupt(src.name, `row group ${rg} column ${field.name} decoded ${data.length} rows, expected ${total}`);
  return data;
}
