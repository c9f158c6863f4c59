// Parquet page indexes (format spec "PageIndex"): per column chunk, the offset index (byte range
// and first row of every data page) and the column index (min, max, null count per page). They
// let a selective read decode only the pages that hold the rows it needs.
import type { ColumnStats } from "./column-stats.js";
import type { ChunkRange, ParquetFooter, PageSubset } from "./footer.js";
import { decoderFor } from "./parquet-stats.js";
import { corrupt, type ByteSource } from "./source.js";
import { type TStruct, getList, getNumber, getStruct, parseStruct } from "./thrift.js";

/** The data pages of one column chunk and, with a column index, their statistics. */
export interface ChunkPages {
  /** Byte offset of every data page. */
  offsets: number[];
  /** Compressed size (with header) of every data page. */
  sizes: number[];
  /** First row (within the row group) of every data page, plus the row group's row count. */
  rowStarts: number[];
  /** Bytes before the first data page (the dictionary page), 0 when none. */
  dictionary: ChunkRange | null;
  /** Per page min/max/null count (values as footer statistics), or null without a column index. */
  stats: ColumnStats[] | null;
  /** Per page, once its header was read: whether it is dictionary-encoded. */
  dictionaryEncoded: Array<boolean | undefined>;
}

function chunkOf(footer: ParquetFooter, rowGroup: number, leaf: number): TStruct {
  const rgs = getList(footer.raw, 4) as TStruct[];
  return (getList(rgs[rowGroup]!, 1) as TStruct[])[leaf]!;
}

/**
 * Reads the page index of the chunk of flat top-level column `column` in `rowGroup`; null when
 * the file has no offset index for it. `withStats` also reads the column index (if present).
 */
export async function readChunkPages(src: ByteSource, footer: ParquetFooter, rowGroup: number, column: number, withStats: boolean): Promise<ChunkPages | null> {
  const col = footer.columns[column]!;
  if (col.leafEnd - col.leafStart !== 1 || col.schemaEnd - col.schemaStart !== 1) return null;
  const cc = chunkOf(footer, rowGroup, col.leafStart);
  const oiAt = getNumber(cc, 4);
  const oiLen = getNumber(cc, 5);
  if (oiAt === undefined || oiLen === undefined || oiAt <= 0 || oiLen <= 0 || oiAt + oiLen > src.size) return null;
  const numRows = footer.rowGroups[rowGroup]!.numRows;
  const chunk = footer.rowGroups[rowGroup]!.chunks[col.leafStart]!;
  const oi = parseStruct(await src.read(oiAt, oiLen)).value;
  const locations = (getList(oi, 1) ?? []) as TStruct[];
  const offsets: number[] = [];
  const sizes: number[] = [];
  const rowStarts: number[] = [];
  for (const loc of locations) {
    offsets.push(getNumber(loc, 1) ?? -1);
    sizes.push(getNumber(loc, 2) ?? -1);
    rowStarts.push(getNumber(loc, 3) ?? -1);
  }
  rowStarts.push(numRows);
  const chunkEnd = chunk.start + chunk.length;
  for (let i = 0; i < offsets.length; i++) {
    const ok = offsets[i]! >= chunk.start && sizes[i]! > 0 && offsets[i]! + sizes[i]! <= chunkEnd && rowStarts[i]! >= 0 && rowStarts[i]! < rowStarts[i + 1]!;
    if (!ok) throw corrupt(src.name, `row group ${rowGroup} column ${col.name}: offset index entry ${i} is invalid`);
  }
  if (offsets.length === 0 || rowStarts[0] !== 0) return null;
  const dictionary = offsets[0]! > chunk.start ? { start: chunk.start, length: offsets[0]! - chunk.start } : null;
  let stats: ColumnStats[] | null = null;
  const ciAt = getNumber(cc, 6);
  const ciLen = getNumber(cc, 7);
  if (withStats && ciAt !== undefined && ciLen !== undefined && ciAt > 0 && ciLen > 0 && ciAt + ciLen <= src.size) {
    const ci = parseStruct(await src.read(ciAt, ciLen)).value;
    const decode = decoderFor((getList(footer.raw, 2) as TStruct[])[col.schemaStart]!);
    const nullPages = (getList(ci, 1) ?? []) as boolean[];
    const mins = (getList(ci, 2) ?? []) as Uint8Array[];
    const maxs = (getList(ci, 3) ?? []) as Uint8Array[];
    const nullCounts = getList(ci, 5) as Array<number | bigint> | undefined;
    if (mins.length === offsets.length && maxs.length === offsets.length && nullPages.length === offsets.length) {
      stats = offsets.map((_, i) => {
        const nullCount = nullCounts ? Number(nullCounts[i]) : null;
        if (nullPages[i]) return { min: null, max: null, nullCount: rowStarts[i + 1]! - rowStarts[i]! };
        let min = decode(mins[i]!);
        let max = decode(maxs[i]!);
        if (min === null || max === null) min = max = null;
        // Parquet zero rule for floats: a zero bound covers both signed zeros
        if (typeof min === "number" && min === 0) min = -0;
        if (typeof max === "number" && max === 0) max = 0;
        return { min, max, nullCount };
      });
    }
  }
  return { offsets, sizes, rowStarts, dictionary, stats, dictionaryEncoded: [] };
}

// Parquet encodings that refer to the dictionary page.
const PLAIN_DICTIONARY = 2;
const RLE_DICTIONARY = 8;

/**
 * Whether any of data pages `selected` is dictionary-encoded (read from the page headers).
 * Writers fall back from dictionary to plain encoding once the dictionary is full, and pages
 * after that do not need the dictionary page, whose decoding can cost more than theirs.
 */
export async function pagesNeedDictionary(src: ByteSource, pages: ChunkPages, selected: readonly number[]): Promise<boolean> {
  if (!pages.dictionary) return false;
  for (const p of selected) {
    let known = pages.dictionaryEncoded[p];
    if (known === undefined) {
      const head = await src.read(pages.offsets[p]!, Math.min(pages.sizes[p]!, 256));
      try {
        const header = parseStruct(head).value;
        const v1 = getStruct(header, 5);
        const v2 = getStruct(header, 8);
        const encoding = v1 ? getNumber(v1, 2) : v2 ? getNumber(v2, 4) : undefined;
        known = encoding === undefined || encoding === PLAIN_DICTIONARY || encoding === RLE_DICTIONARY;
      } catch {
        known = true; // header longer than read (large statistics): keep the dictionary
      }
      pages.dictionaryEncoded[p] = known;
    }
    if (known) return true;
  }
  return false;
}

/** The page subset of `pages` holding pages `selected` (ascending page numbers), with the dictionary page if `dictionary`. */
export function pageSubset(pages: ChunkPages, selected: readonly number[], dictionary = true): PageSubset {
  const ranges: ChunkRange[] = pages.dictionary && dictionary ? [{ ...pages.dictionary }] : [];
  let numRows = 0;
  for (const p of selected) {
    const last = ranges[ranges.length - 1];
    const start = pages.offsets[p]!;
    if (last && last.start + last.length === start) last.length += pages.sizes[p]!;
    else ranges.push({ start, length: pages.sizes[p]! });
    numRows += pages.rowStarts[p + 1]! - pages.rowStarts[p]!;
  }
  return { ranges, dictionaryLength: dictionary ? (pages.dictionary?.length ?? 0) : 0, numRows };
}

