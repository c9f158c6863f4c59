// A focused Parquet decoder for flat columns of the common types, used by the reader
// (parquet-reader.ts) instead of parquet-wasm where it applies; loaded on first read by a dynamic
// import, so query bundles that never read Parquet do not carry it.
//
// Scope: a top-level leaf, REQUIRED or OPTIONAL (no repetition), of physical type BOOLEAN, INT32
// (plain or DATE), INT64 (plain or TIMESTAMP), FLOAT, DOUBLE or BYTE_ARRAY (STRING/UTF8 or plain
// binary); data pages v1 and v2; values PLAIN or dictionary-encoded (PLAIN_DICTIONARY /
// RLE_DICTIONARY); definition levels RLE/bit-packed; pages UNCOMPRESSED, ZSTD, or SNAPPY (by the
// kernel module, where it loads: src/kernel/snappy.ts); GZIP stays with parquet-wasm, whose Rust
// decompressor beats fflate on whole chunks.
// The output is the Arrow Data parquet-rs would produce for the column (same type, values and
// validity), built straight into typed arrays. Anything else — or any inconsistency in the
// pages — returns undefined and the caller decodes that column with parquet-wasm, which also
// reports corrupt data exactly as before. Page checksums: whole row groups fetch their chunks
// unverified and check each page as it is taken (`decodeChunks`; the page worker computes the
// CRC-32 of the pages it decompresses), selective reads get chunks verified when fetched
// (footer.ts `readLeafChunks`); a mismatch is the same CORRUPT_FILE either way.

import type * as arrow from "apache-arrow";
import type { concatData } from "../arrow/concat.js";
import type { recordBatch, sliceBatch } from "../arrow/record-batch.js";
import type { loadZstd } from "../spec/zstd.js";
import type { chunkWhere, readLeafChunks, PageSubset, ParquetFooter } from "./footer.js";
import type { checkPageCrc, readPageHeader } from "./parquet-pages.js";
import type { Plan } from "./parquet-reader.js";
import type { corrupt, ByteSource } from "./source.js";
import type { isServerRuntime } from "./wasm.js";
import type { KernelFrame } from "../kernel/wasm.js";
import type { TList, TStruct, TValue, getValue } from "./thrift.js";
import { BufferPool } from "./buffer-pool.js";

/**
 * The library functions this module uses, handed over by the reader (`bindFlatDecoder`) rather
 * than imported: a lazy chunk that imported them would make bundlers split the modules it shares
 * with the entry into extra chunks (measured: 13 → 18 chunks, +3.7 KB gzip for a query page;
 * importing apache-arrow alone: 15 chunks, +1.7 KB). Positional, so the entry carries no keys.
 */
export type FlatDeps = [
  arrow: [makeData: typeof arrow.makeData, Schema: typeof arrow.Schema, Field: typeof arrow.Field, Table: typeof arrow.Table, Bool: typeof arrow.Bool, Int8: typeof arrow.Int8, Int16: typeof arrow.Int16, Int32: typeof arrow.Int32, Int64: typeof arrow.Int64, DateDay: typeof arrow.DateDay, Timestamp: typeof arrow.Timestamp, Float32: typeof arrow.Float32, Float64: typeof arrow.Float64, Utf8: typeof arrow.Utf8, Binary: typeof arrow.Binary],
  readLeafChunks: typeof readLeafChunks,
  readPageHeader: typeof readPageHeader,
  loadZstd: typeof loadZstd,
  recordBatch: typeof recordBatch,
  sliceBatch: typeof sliceBatch,
  concatData: typeof concatData,
  corrupt: typeof corrupt,
  getValue: typeof getValue,
  isServerRuntime: typeof isServerRuntime,
  snappyView: () => Promise<HeapDecompressor | null>,
  pageDecompressor: (work: number) => Promise<PageDecompressor | undefined>,
  zstdHeapView: () => Promise<HeapDecompressor | null>,
  kernelFrame: () => KernelFrame | undefined,
  checkPageCrc: typeof checkPageCrc,
  chunkWhere: typeof chunkWhere,
];

interface Deps {
  arrow: Pick<typeof arrow, "makeData" | "Schema" | "Field" | "Table" | "Bool" | "Int8" | "Int16" | "Int32" | "Int64" | "DateDay" | "Timestamp" | "Float32" | "Float64" | "Utf8" | "Binary">;
  readLeafChunks: typeof readLeafChunks;
  readPageHeader: typeof readPageHeader;
  loadZstd: typeof loadZstd;
  recordBatch: typeof recordBatch;
  sliceBatch: typeof sliceBatch;
  concatData: typeof concatData;
  corrupt: typeof corrupt;
  getValue: typeof getValue;
  isServerRuntime: typeof isServerRuntime;
  /** Snappy decompression into reused kernel memory (src/kernel/snappy.ts `snappyHeapDecompressor`), or null where the kernel module does not load. */
  snappyView: () => Promise<HeapDecompressor | null>;
  /** The page worker's decompressor for a row group of `work` zstd and snappy page bytes, when one is to be used (server runtimes). */
  pageDecompressor: (work: number) => Promise<PageDecompressor | undefined>;
  /** zstd decompression into reused memory of the zstd module (the content valid until the next call into it), where there is one (Node). */
  zstdHeapView: () => Promise<HeapDecompressor | null>;
  /** A frame over the kernel module when it is loaded (it is prefetched at table open on server runtimes), else undefined. */
  kernelFrame: () => KernelFrame | undefined;
  checkPageCrc: typeof checkPageCrc;
  chunkWhere: typeof chunkWhere;
}

let D: Deps;

// thrift.ts's typed getters over the one getter handed over
function getNumber(s: TStruct, id: number): number | undefined {
  const v = D.getValue(s, id);
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;
}
function getStruct(s: TStruct, id: number): TStruct | undefined {
  const v: TValue | undefined = D.getValue(s, id);
  return v !== undefined && typeof v === "object" && "fields" in v ? v : undefined;
}
function getList(s: TStruct, id: number): TValue[] | undefined {
  const v = D.getValue(s, id);
  return v !== undefined && typeof v === "object" && "items" in v ? (v as TList).items : undefined;
}

/** Binds the library functions this module uses (see FlatDeps) and loads zstd; resolves to the module's API. */
export async function bindFlatDecoder(deps: FlatDeps): Promise<{ decodeRowGroup: typeof decodeRowGroup; decodeFlatColumns: typeof decodeFlatColumns; decodeFlatPages: typeof decodeFlatPages }> {
  const [[makeData, Schema, Field, Table, Bool, Int8, Int16, Int32, Int64, DateDay, Timestamp, Float32, Float64, Utf8, Binary], readLeafChunks, readPageHeader, loadZstd, recordBatch, sliceBatch, concatData, corrupt, getValue, isServerRuntime, snappyView, pageDecompressor, zstdHeapView, kernelFrame, checkPageCrc, chunkWhere] = deps;
  D = { arrow: { makeData, Schema, Field, Table, Bool, Int8, Int16, Int32, Int64, DateDay, Timestamp, Float32, Float64, Utf8, Binary }, readLeafChunks, readPageHeader, loadZstd, recordBatch, sliceBatch, concatData, corrupt, getValue, isServerRuntime, snappyView, pageDecompressor, zstdHeapView, kernelFrame, checkPageCrc, chunkWhere };
  await zstdNow();
  return { decodeRowGroup, decodeFlatColumns, decodeFlatPages };
}

// parquet.thrift enums
const BOOLEAN = 0;
const INT32 = 1;
const INT64 = 2;
const FLOAT = 4;
const DOUBLE = 5;
const BYTE_ARRAY = 6;
const ENC_PLAIN = 0;
const ENC_PLAIN_DICTIONARY = 2;
const ENC_RLE = 3;
const ENC_RLE_DICTIONARY = 8;
const UNCOMPRESSED = 0;
const SNAPPY = 1;
const ZSTD = 6;
// apache-arrow's enum values (Type, TimeUnit, Precision), fixed by the Arrow format
const TYPE_INT = 2;
const TYPE_FLOAT = 3;
const TYPE_DATE = 8;
const TIME_UNIT_MILLISECOND = 1;
const TIME_UNIT_MICROSECOND = 2;
const TIME_UNIT_NANOSECOND = 3;
const PRECISION_DOUBLE = 2;

/** Not decodable here: the caller falls back to parquet-wasm. */
class Unsupported extends Error {}
const fail = (why: string): never => {
  throw new Unsupported(why);
};

type Zstd = (body: Uint8Array, size: number) => Uint8Array;
/**
 * Decompression of a page body into `size` bytes of reused memory of a wasm module: the content
 * is valid until the next call into that module (decoded before it, nothing decoded keeps a view).
 */
export type HeapDecompressor = (body: Uint8Array, size: number) => Uint8Array;
let zstd: Promise<Zstd | null> | undefined;
/**
 * The zstd decompressor for the chunks decoded now, or null (they go to parquet-wasm). Node, Deno
 * and Bun load it from the installed package. Browsers and workers do not: a bundle that does not
 * serve zstd.wasm (esbuild copies no asset the code does not import) would abort its load with a
 * page error and never settle it.
 */
function zstdNow(): Promise<Zstd | null> {
  return D.isServerRuntime() ? zstdDecoder() : Promise.resolve(null);
}

/** The zstd decompressor of the library's zstd accessor (spec/zstd.ts), or null where it cannot load. */
function zstdDecoder(): Promise<Zstd | null> {
  zstd ??= D.loadZstd().then((z) => z?.decompress ?? null);
  return zstd;
}

let zstdView: Promise<HeapDecompressor | null> | undefined;
/**
 * zstd decompression into the zstd module's own memory, reused from call to call (no fresh buffer
 * and copy per page: a 1 M-row read decompresses 37.5 MB), or null where that is not available
 * (then `zstdNow`'s). Its content is valid until the next call into the module, so a page is
 * decoded right after it is decompressed and nothing decoded keeps a view of it.
 */
function zstdViewNow(): Promise<HeapDecompressor | null> {
  zstdView ??= D.isServerRuntime() ? D.zstdHeapView().catch(() => null) : Promise.resolve(null);
  return zstdView;
}

/** The Arrow type the decoder produces for a leaf schema element, or undefined when out of scope. */
function flatArrowType(element: TStruct): arrow.DataType | undefined {
  const physical = getNumber(element, 1);
  const converted = getNumber(element, 6);
  const logical = getStruct(element, 10);
  const logicalKind = logical?.fields[0]?.id;
  const logicalBody = logical?.fields[0]?.value as TStruct | undefined;
  const plainInt = (bits: number): boolean => {
    if (logicalKind === undefined) return converted === undefined || converted === (bits === 32 ? 17 : 18);
    return logicalKind === 10 && getNumber(logicalBody!, 1) === bits && D.getValue(logicalBody!, 2) === true;
  };
  switch (physical) {
    case BOOLEAN:
      return logical === undefined && converted === undefined ? new D.arrow.Bool() : undefined;
    case INT32:
      if (plainInt(32)) return new D.arrow.Int32();
      // TINYINT / SMALLINT: signed INTEGER(8|16) / INT_8 (15) / INT_16 (16), decoded as INT32 and narrowed
      for (const [bits, ct] of [[8, 15], [16, 16]] as const) {
        const logicalOk = logicalKind === undefined || (logicalKind === 10 && getNumber(logicalBody!, 1) === bits && D.getValue(logicalBody!, 2) === true);
        const convertedOk = converted === ct || (converted === undefined && logicalKind === 10);
        if (logicalOk && convertedOk) return bits === 8 ? new D.arrow.Int8() : new D.arrow.Int16();
      }
      if ((logicalKind === 6 || logicalKind === undefined) && (logicalKind === 6 || converted === 6) && (converted === undefined || converted === 6)) return new D.arrow.DateDay();
      return undefined;
    case INT64: {
      if (plainInt(64)) return new D.arrow.Int64();
      if (logicalKind !== 8) return undefined; // TIMESTAMP: MILLIS / MICROS / NANOS
      const unit = getStruct(logicalBody!, 2)?.fields[0]?.id;
      const utc = D.getValue(logicalBody!, 1) === true;
      const tz = utc ? "+00:00" : null;
      if (unit === 1) return new D.arrow.Timestamp(TIME_UNIT_MILLISECOND, tz);
      if (unit === 2) return new D.arrow.Timestamp(TIME_UNIT_MICROSECOND, tz);
      if (unit === 3) return new D.arrow.Timestamp(TIME_UNIT_NANOSECOND, tz);
      return undefined;
    }
    case FLOAT:
      return logical === undefined && converted === undefined ? new D.arrow.Float32() : undefined;
    case DOUBLE:
      return logical === undefined && converted === undefined ? new D.arrow.Float64() : undefined;
    case BYTE_ARRAY:
      if (logicalKind === 1 || (logicalKind === undefined && converted === 0)) return new D.arrow.Utf8();
      if (logical === undefined && converted === undefined) return new D.arrow.Binary();
      return undefined;
    default:
      return undefined;
  }
}

/**
 * Decodes row group `rowGroup` of the plan's columns: those in scope here, the others with
 * `decodeWasm` (parquet-wasm) as one batch; the table comes in `batchSize` slices. Undefined when
 * no column is in scope (the caller decodes them all with parquet-wasm).
 */
async function decodeRowGroup(
  p: Plan,
  rowGroup: number,
  decodeWasm: (p: Plan, fileColumns: readonly number[], rowGroup: number, batchSize: number) => Promise<arrow.Table | undefined>,
): Promise<arrow.Table | undefined> {
  const flat = await decodeFlatColumns(p.src, p.footer, p.fileColumns, rowGroup);
  const rest = p.fileColumns.filter((_, i) => !flat[i]);
  if (rest.length === p.fileColumns.length) return undefined;
  const rows = p.footer.rowGroups[rowGroup]!.numRows;
  const wasm = rest.length > 0 ? (await decodeWasm(p, rest, rowGroup, rows))! : undefined;
  if (wasm && wasm.numRows !== rows) throw D.corrupt(p.src.name, `row group ${rowGroup} decoded ${wasm.numRows} rows, footer says ${rows}`);
  const children = p.fileColumns.map((c, i) => {
    const done = flat[i];
    if (done) return done;
    const column = wasm!.getChildAt(rest.indexOf(c))!;
    return column.data.length === 1 ? column.data[0]! : D.concatData(column.data);
  });
  const schema = new D.arrow.Schema(children.map((d, i) => new D.arrow.Field(p.footer.columns[p.fileColumns[i]!]!.name, d.type, true)));
  const batch = D.recordBatch(schema, children, rows);
  const batches: arrow.RecordBatch[] = [];
  for (let at = 0; at < rows; at += p.batchSize) batches.push(D.sliceBatch(batch, at, Math.min(rows, at + p.batchSize)));
  return new D.arrow.Table(schema, batches);
}

/**
 * Decodes the column chunks of row group `r` of top-level file columns `fileColumns` that are
 * in scope: per column its Data (all rows of the row group), or undefined for the columns left
 * to parquet-wasm. The chunks are fetched (and their page checksums verified) only for the
 * columns in scope.
 */
async function decodeFlatColumns(src: ByteSource, footer: ParquetFooter, fileColumns: readonly number[], r: number): Promise<Array<arrow.Data | undefined>> {
  const out: Array<arrow.Data | undefined> = fileColumns.map(() => undefined);
  const picked: Array<{ i: number; leaf: number; col: FlatColumn }> = [];
  fileColumns.forEach((c, i) => {
    const col = flatColumn(footer, c, r, footer.rowGroups[r]!.numRows);
    if (col) picked.push({ i, leaf: footer.columns[c]!.leafStart, col });
  });
  const codecs = await codecsFor(picked.map((x) => x.col));
  const taken = codecs.snappy ? picked : picked.filter((x) => x.col.codec !== SNAPPY);
  if (taken.length === 0) return out;
  // page checksums are checked page by page as they are decoded (those of pages handed to the worker, there)
  const chunks = await D.readLeafChunks(src, footer, taken.map((x) => x.leaf), r, false);
  const checks = { name: src.name, where: taken.map((x) => D.chunkWhere(footer, r, x.leaf)) };
  const decoded = await decodeChunks(chunks, taken.map((x) => x.col), codecs, D.pageDecompressor, checks);
  taken.forEach((x, j) => {
    out[x.i] = decoded[j];
  });
  return out;
}

/**
 * Decodes top-level file column `c` of row group `r` (its pages `subset`, whole when undefined),
 * or returns undefined when the column or chunk is out of scope (the caller uses parquet-wasm).
 * Selective reads use it.
 */
async function decodeFlatPages(src: ByteSource, footer: ParquetFooter, c: number, r: number, subset: PageSubset | undefined): Promise<arrow.Data | undefined> {
  const col = flatColumn(footer, c, r, subset ? subset.numRows : footer.rowGroups[r]!.numRows);
  if (!col) return undefined;
  const codecs = await codecsFor([col]);
  if (col.codec === SNAPPY && !codecs.snappy) return undefined;
  let chunk: Uint8Array;
  if (subset) {
    const parts = await Promise.all(subset.ranges.map((m) => src.read(m.start, m.length)));
    chunk = parts.length === 1 ? parts[0]! : new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
    if (parts.length > 1) parts.reduce((at, x) => (chunk.set(x, at), at + x.length), 0);
  } else chunk = (await D.readLeafChunks(src, footer, [footer.columns[c]!.leafStart], r))[0]!;
  return (await decodeChunks([chunk], [col], codecs))[0];
}

/** File column `c` of row group `r` as the decoder takes it (`rows` rows), or undefined when out of scope. */
function flatColumn(footer: ParquetFooter, c: number, r: number, rows: number): FlatColumn | undefined {
  const column = footer.columns[c]!;
  if (column.schemaEnd - column.schemaStart !== 1) return undefined; // a group: nested
  const element = (getList(footer.raw, 2) as TStruct[])[column.schemaStart]!;
  const type = flatArrowType(element);
  const rawChunk = (getList((getList(footer.raw, 4) as TStruct[])[r]!, 1) as TStruct[])[column.leafStart]!;
  const meta = getStruct(rawChunk, 3)!;
  const codec = getNumber(meta, 4) ?? 0;
  // byte arrays of a whole PLAIN chunk take about its uncompressed size less a length per row
  const bytes = rows === footer.rowGroups[r]!.numRows ? (getNumber(meta, 6) ?? 0) - 4 * rows : 0;
  return type && (codec === UNCOMPRESSED || codec === SNAPPY || codec === ZSTD) ? { element, type, codec, rows, bytes } : undefined;
}

/** What the decoder needs of one column chunk. */
export interface FlatColumn {
  /** The leaf's schema element. */
  element: TStruct;
  /** Its Arrow type (`flatArrowType`). */
  type: arrow.DataType;
  /** CompressionCodec of the chunk. */
  codec: number;
  /** Rows of the row group. */
  rows: number;
  /** Expected bytes of byte-array values (a first capacity; 0: unknown). */
  bytes: number;
}

/** The decompressors of the chunks decoded together (`codecsFor`). */
interface Codecs {
  /** zstd into a fresh array (`zstdNow`), or null (the zstd chunks go to parquet-wasm). */
  zstd: Zstd | null;
  /** zstd into reused memory (`zstdViewNow`), or null (then `zstd`'s). */
  zstdView: HeapDecompressor | null;
  /** snappy into reused kernel memory, or null where the kernel module does not load (SNAPPY chunks are not taken). */
  snappy: HeapDecompressor | null;
}

/** The decompressors for chunks of `cols`, loaded for the codecs among them. */
async function codecsFor(cols: ReadonlyArray<{ codec: number }>): Promise<Codecs> {
  const zstd = cols.some((c) => c.codec === ZSTD) ? await zstdNow() : null;
  return {
    zstd,
    zstdView: zstd ? await zstdViewNow() : null,
    snappy: cols.some((c) => c.codec === SNAPPY) ? await D.snappyView().catch(() => null) : null,
  };
}

/**
 * Decompresses a zstd or snappy page body of `size` bytes on another thread, or returns undefined
 * when that thread has enough to do or does not take the codec: the content (undefined when the
 * body does not decompress) is a view of memory that is reused once `release()` is called, so
 * nothing decoded from it may keep a view of it.
 */
export type PageDecompressor = (data: Uint8Array, size: number, codec: number, crc: boolean) => { content: Promise<Uint8Array | undefined>; release(): void; busy(): boolean; crc(): number | undefined } | undefined;

/**
 * Decodes column chunks (their complete bytes) into Arrow Data, each undefined when it uses
 * something outside this decoder's scope or is inconsistent (the caller then uses parquet-wasm).
 * `codecs` is `await codecsFor(cols)`: zstd and snappy pages are decompressed into reused memory
 * where there is a decompressor for that (its content is decoded before the next call). With
 * `offload` (the page worker, for large reads on server runtimes), zstd and snappy pages after the
 * one being decoded are handed to the worker while it has room (a few pages' worth), the others
 * are decompressed here: at their turn, or ahead of it while the worker is still on the page this
 * thread is about to decode (instead of waiting idle: decoding takes this thread less time than
 * decompressing takes the worker), the worker's queue refilled between those pages. Either way
 * each page's content is the same bytes. A worker that fails rejects: the read fails with its
 * PaimonError (IO_ERROR), not with a fallback. With `checks` (the chunks were fetched without
 * their page checksums verified: `name` of the file, `where` each chunk is), each page's CRC is
 * checked before it is decoded (CORRUPT_FILE as `readLeafChunks` reports it), computed by the
 * worker for the pages it takes; a chunk left to parquet-wasm is fetched again, verified.
 */
async function decodeChunks(
  chunks: readonly Uint8Array[],
  cols: readonly FlatColumn[],
  codecs: Codecs,
  offload?: (work: number) => Promise<PageDecompressor | undefined>,
  checks?: { name: string; where: readonly string[] },
): Promise<Array<arrow.Data | undefined>> {
  /** The decompressor into reused memory for `codec`, or null (zstd: `codecs.zstd` then). */
  const inline = (codec: number): HeapDecompressor | null => (codec === SNAPPY ? codecs.snappy : codec === ZSTD ? codecs.zstdView : null);
  const units: Page[] = [];
  const parsed = chunks.map((chunk, j) => {
    try {
      const c = startChunk(cols[j]!);
      const codec = c.col.codec;
      const pages = chunkPages(chunk, c.maxDef, codec);
      if ((codec === ZSTD && codecs.zstd) || (codec === SNAPPY && codecs.snappy)) for (const page of pages) if (page.packed) page.unit = units.push(page) - 1;
      return { c, pages };
    } catch {
      return undefined;
    }
  });
  const decompressor = offload && units.length > 1 ? await offload(units.reduce((n, u) => n + Math.max(u.size, 0), 0)) : undefined;
  const handed: Array<ReturnType<PageDecompressor>> = [];
  /** Units decompressed here ahead of their turn (null: the body did not decompress). */
  const ahead: Array<Uint8Array | null | undefined> = [];
  let next = 0; // the next unit to hand over (or decompress ahead)
  const out: Array<arrow.Data | undefined> = [];
  for (const [j, x] of parsed.entries()) {
    let ok = x !== undefined;
    for (const page of x?.pages ?? []) {
      let fromWorker: Uint8Array | undefined | null = null; // null: not handed over
      let pending: ReturnType<PageDecompressor>;
      if (decompressor && page.unit >= 0) {
        pending = handed[page.unit];
        handed[page.unit] = undefined;
        // hand the worker the pages after this one while it has room; while it is still on this
        // page (and has no room), decompress the next page here and try again
        for (next = Math.max(next, page.unit + 1); next < units.length && next <= page.unit + MAX_PAGES_AHEAD; next++) {
          const u = units[next]!;
          const r = decompressor(u.data, u.size, u.codec, checks !== undefined && u.crc !== undefined && u.data === u.body);
          if (r) handed[next] = r;
          else if (pending?.busy()) {
            try {
              // kept until its turn: out of the module's memory into a spare buffer (reused once decoded)
              const view = inline(u.codec);
              ahead[next] = view ? spareCopy(view(u.data, u.size)) : codecs.zstd!(u.data, u.size);
            } catch {
              ahead[next] = null;
            }
          } else break;
        }
        if (pending) fromWorker = await pending.content; // a failing worker rejects: so does the read
      }
      const early = page.unit >= 0 ? ahead[page.unit] : undefined;
      if (early !== undefined) ahead[page.unit] = undefined;
      const view = inline(page.codec);
      let checking = false;
      try {
        if (!ok) continue;
        if (checks && page.crc !== undefined) {
          checking = true;
          D.checkPageCrc(page.body, page.crc, pending?.crc(), checks.name, checks.where[j]!, page.index);
          checking = false;
        }
        let content = page.data;
        let borrowed = true; // content in memory that is reused after this page
        if (early !== undefined) {
          content = early ?? fail("page body");
          borrowed = view !== null;
        } else if (fromWorker !== null) content = fromWorker ?? fail("page body");
        else if (page.packed && view) content = view(page.data, page.size);
        else borrowed = false;
        if (borrowed || early !== undefined) {
          if (content.length !== page.size) fail("page size mismatch");
        } else if (page.packed) content = decompress(page.codec, page.data, page.size, codecs.zstd);
        decodePage(x!.c, page, content, borrowed);
      } catch (e) {
        if (checking) throw e; // a page that is not what was written (CORRUPT_FILE)
        ok = false; // out of scope or inconsistent: parquet-wasm decodes the chunk (and reports corruption)
      } finally {
        pending?.release(); // the page is decoded: nothing decoded keeps a view of its content
        if (early && view) spares.give(early.buffer as ArrayBuffer);
      }
    }
    let data: arrow.Data | undefined;
    if (ok) {
      try {
        data = finishChunk(x!.c);
      } catch {
        data = undefined;
      }
    }
    out.push(data);
  }
  return out;
}

/**
 * Pages handed to the worker (or decompressed ahead) past the one being decoded, at most: each
 * holds its buffer until decoded, and a worker faster than the decoder (snappy) would otherwise
 * get every page of the row group, each in a buffer of its own (the pools keep 8).
 */
const MAX_PAGES_AHEAD = 6;

/** A page body of an UNCOMPRESSED or ZSTD chunk (`zstdFn`: a fresh array), `size` bytes. */
function decompress(codec: number, body: Uint8Array, size: number, zstdFn: Zstd | null): Uint8Array {
  let out: Uint8Array;
  switch (codec) {
    case UNCOMPRESSED:
      out = body;
      break;
    case ZSTD:
      out = zstdFn ? zstdFn(body, size) : fail("no zstd decoder");
      break;
    default:
      return fail(`codec ${codec}`);
  }
  if (out.length !== size) fail("page size mismatch");
  return out;
}

const NO_VALUES = new Uint8Array(0);

/**
 * Buffers for pages decompressed ahead of their turn, reused once those pages are decoded. A
 * kept buffer is at most 16 MiB (string pages of 1 M-row files reach a few MiB; larger pages are
 * rare one-offs), so the pool holds at most 128 MiB for the life of the process.
 */
const spares = new BufferPool(8, 16 * 1024 * 1024, 256 * 1024, 1);

/** `content` copied into a spare buffer (`spares.give` its buffer back once decoded). */
function spareCopy(content: Uint8Array): Uint8Array {
  const buffer = new Uint8Array(spares.take(content.length), 0, content.length);
  buffer.set(content);
  return buffer;
}

/** Output under construction: validity, fixed-width values (as bytes) or strings. */
class Builder {
  readonly rows: number;
  readonly width: number; // bytes per value; 0 = booleans (bits), -1 = byte arrays
  readonly valid: Uint8Array;
  nullCount = 0;
  at = 0; // rows written
  values: Uint8Array;
  offsets: Int32Array | undefined;
  bytesAt = 0;
  /** Whether some byte arrays were copied from PLAIN pages (else all came from the dictionary). */
  plainBytes = false;

  constructor(rows: number, width: number, bytes: number) {
    this.rows = rows;
    this.width = width;
    this.valid = new Uint8Array((rows + 7) >> 3);
    if (width > 0) this.values = NO_VALUES; // allocated by fixedValues(), unless a page's buffer is taken whole
    else if (width === 0) this.values = new Uint8Array((rows + 7) >> 3);
    else {
      this.offsets = new Int32Array(rows + 1);
      this.values = new Uint8Array(Math.min(0x7fffffff, Math.max(64, rows * 8, bytes)));
    }
  }

  /** The fixed-width values buffer (`rows * width` bytes), allocated on first use. */
  fixedValues(): Uint8Array {
    if (this.values === NO_VALUES) this.values = new Uint8Array(this.rows * this.width);
    return this.values;
  }

  reserveBytes(n: number): void {
    const need = this.bytesAt + n;
    if (need <= this.values.length) return;
    if (need > 0x7fffffff) fail("string data over 2 GiB");
    const next = new Uint8Array(Math.min(0x7fffffff, Math.max(need, this.values.length * 2)));
    next.set(this.values.subarray(0, this.bytesAt));
    this.values = next;
  }
}

/** Dictionary values: fixed-width bytes, or offsets + bytes of byte arrays. */
interface Dict {
  count: number;
  bytes: Uint8Array;
  /** Fixed-width values as aligned 32-bit words. */
  words?: Int32Array;
  /** Byte arrays: where each value starts in `bytes` (the page), 4-byte length prefixes between. */
  offsets?: Int32Array;
}

/** One page of a chunk, its header read. */
interface Page {
  header: TStruct;
  /** PageType: 0 data v1, 2 dictionary, 3 data v2. */
  type: number;
  /** Definition levels of a data page v2 (stored uncompressed before the values). */
  levels: Uint8Array | undefined;
  /** The bytes the codec compressed: the body, or a v2 page's values; as stored when `packed` is false. */
  data: Uint8Array;
  /** Whether `data` is compressed by the chunk's codec (all but v2 pages with is_compressed false). */
  packed: boolean;
  /** Uncompressed size of `data`. */
  size: number;
  /** CompressionCodec of its chunk. */
  codec: number;
  /** The page's bytes after its header, as stored (what its crc covers). */
  body: Uint8Array;
  /** The header's crc, if any. */
  crc: number | undefined;
  /** Its index in the chunk. */
  index: number;
  /** Index among the compressed pages of the chunks decoded together (`decodeChunks`), -1 for others. */
  unit: number;
}

/** The pages of one column chunk (its complete bytes, compressed by `codec`) of a leaf with `maxDef`. */
function chunkPages(chunk: Uint8Array, maxDef: number, codec: number): Page[] {
  const pages: Page[] = [];
  for (let at = 0; at < chunk.length; ) {
    const p = D.readPageHeader(chunk, at, chunk.length);
    at = p.bodyStart + p.bodyLength;
    const body = chunk.subarray(p.bodyStart, p.bodyStart + p.bodyLength);
    const type = getNumber(p.header, 1) ?? -1;
    const size = getNumber(p.header, 2) ?? -1;
    const crc = getNumber(p.header, 4);
    const index = pages.length;
    if (type !== 3) {
      pages.push({ header: p.header, type, levels: undefined, data: body, packed: true, size, codec, body, crc, index, unit: -1 });
      continue;
    }
    const h = getStruct(p.header, 8) ?? fail("data page v2 header");
    const defLen = getNumber(h, 5) ?? -1;
    const repLen = getNumber(h, 6) ?? -1;
    if (repLen !== 0 || defLen < 0 || defLen > body.length || (maxDef === 0 && defLen !== 0)) fail("levels");
    const levels = maxDef > 0 ? body.subarray(0, defLen) : undefined;
    pages.push({ header: p.header, type, levels, data: body.subarray(defLen), packed: D.getValue(h, 7) !== false, size: size - defLen, codec, body, crc, index, unit: -1 });
  }
  return pages;
}

/** A column chunk being decoded, page by page. */
interface ChunkDecode {
  col: FlatColumn;
  maxDef: number;
  b: Builder;
  dict: Dict | undefined;
}

function startChunk(col: FlatColumn): ChunkDecode {
  const repetition = getNumber(col.element, 3) ?? 0;
  if (repetition === 2) fail("repeated");
  const physical = getNumber(col.element, 1)!;
  const width = physical === BOOLEAN ? 0 : physical === BYTE_ARRAY ? -1 : physical === INT32 || physical === FLOAT ? 4 : 8;
  return { col, maxDef: repetition === 1 ? 1 : 0, b: new Builder(col.rows, width, col.bytes), dict: undefined };
}

/**
 * Decodes `page` of chunk `c`, its `data` uncompressed in `content`; `borrowed`: `content` is
 * memory that is reused after this call, so what the chunk keeps (a dictionary, values) is copied.
 */
function decodePage(c: ChunkDecode, page: Page, content: Uint8Array, borrowed: boolean): void {
  const b = c.b;
  const maxDef = c.maxDef;
  if (page.type === 2) {
    const h = getStruct(page.header, 7) ?? fail("dictionary page header");
    const enc = getNumber(h, 2);
    if (c.dict || (enc !== ENC_PLAIN && enc !== ENC_PLAIN_DICTIONARY)) fail("dictionary page");
    const count = getNumber(h, 1) ?? -1;
    c.dict = readDictionary(borrowed ? new Uint8Array(content) : content, count, b.width);
    return;
  }
  const values = content;
  let levels: Uint8Array | undefined;
  let pos = 0;
  let numValues: number;
  let encoding: number;
  if (page.type === 0) {
    const h = getStruct(page.header, 5) ?? fail("data page header");
    numValues = getNumber(h, 1) ?? -1;
    encoding = getNumber(h, 2) ?? -1;
    if (maxDef > 0) {
      if (getNumber(h, 3) !== ENC_RLE) fail("definition level encoding");
      const len = u32(values, 0);
      if (4 + len > values.length) fail("definition levels");
      levels = values.subarray(4, 4 + len);
      pos = 4 + len;
    }
  } else if (page.type === 3) {
    const h = getStruct(page.header, 8)!;
    numValues = getNumber(h, 1) ?? -1;
    encoding = getNumber(h, 4) ?? -1;
    levels = page.levels;
  } else {
    return fail(`page type ${page.type}`);
  }
  if (!(numValues >= 0) || b.at + numValues > b.rows) fail("row count");
  // validity of this page's rows (the bitmap is only consulted when the page has nulls)
  let nonNull = numValues;
  if (levels) {
    nonNull = readDefLevels(levels, numValues, b.valid, b.at);
    b.nullCount += numValues - nonNull;
  }
  const valid = nonNull < numValues ? b.valid : undefined;
  if (encoding === ENC_PLAIN) plainValues(b, values, pos, numValues, nonNull, valid, borrowed);
  else if (encoding === ENC_PLAIN_DICTIONARY || encoding === ENC_RLE_DICTIONARY) {
    if (!c.dict) fail("dictionary indices without a dictionary");
    dictValues(b, c.dict!, values, pos, numValues, nonNull, valid);
  } else fail(`encoding ${encoding}`);
  b.at += numValues;
}

function finishChunk(c: ChunkDecode): arrow.Data {
  if (c.b.at !== c.b.rows) fail("chunk row count differs from the row group's");
  return finish(c.b, c.col.type, c.dict);
}

function u32(buf: Uint8Array, at: number): number {
  if (at + 4 > buf.length) fail("truncated");
  return (buf[at]! | (buf[at + 1]! << 8) | (buf[at + 2]! << 16) | (buf[at + 3]! << 24)) >>> 0;
}

// Position after the last run header read by `runHeader`.
let cursor = 0;

/** Reads the ULEB128 header of an RLE / bit-packed hybrid run at buf[pos] (sets `cursor` past it). */
function runHeader(buf: Uint8Array, pos: number, end: number): number {
  let header = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end || shift > 28) fail("run header");
    const byte = buf[pos++]!;
    header += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  cursor = pos;
  return header;
}

/**
 * Decodes `count` values of the RLE / bit-packed hybrid in buf[pos, end) with `bitWidth` (≤ 24)
 * into `out`. Values past `count` in the last bit-packed group are padding.
 */
function readHybrid(buf: Uint8Array, pos: number, end: number, bitWidth: number, count: number, out: Int32Array): void {
  if (bitWidth > 24) fail("bit width");
  const mask = bitWidth === 0 ? 0 : (1 << bitWidth) - 1;
  const valueBytes = (bitWidth + 7) >> 3;
  let n = 0;
  while (n < count) {
    const header = runHeader(buf, pos, end);
    pos = cursor;
    if (header % 2 === 1) {
      const groups = Math.floor(header / 2);
      const bytes = groups * bitWidth;
      if (pos + bytes > end) fail("bit-packed run past the end");
      const take = Math.min(groups * 8, count - n);
      // whole 4-byte words while they lie inside buf, then byte by byte
      const last = buf.length - 4;
      let i = 0;
      let bit = pos * 8;
      for (; i < take && bit >> 3 <= last; i++, bit += bitWidth) {
        const q = bit >> 3;
        out[n + i] = ((buf[q]! | (buf[q + 1]! << 8) | (buf[q + 2]! << 16) | (buf[q + 3]! << 24)) >>> (bit & 7)) & mask;
      }
      for (; i < take; i++, bit += bitWidth) {
        let word = 0;
        for (let k = 0, q = bit >> 3; k < 4 && q + k < buf.length; k++) word |= buf[q + k]! << (8 * k);
        out[n + i] = (word >>> (bit & 7)) & mask;
      }
      n += take;
      pos += bytes;
    } else {
      const run = header / 2;
      if (pos + valueBytes > end) fail("run value past the end");
      let v = 0;
      for (let i = 0; i < valueBytes; i++) v |= buf[pos + i]! << (8 * i);
      pos += valueBytes;
      if (run === 0) fail("empty run");
      const take = Math.min(run, count - n);
      out.fill(v, n, n + take);
      n += take;
    }
  }
}

/** Set bits of each byte value. */
const POPCOUNT = new Uint8Array(256);
for (let v = 1; v < 256; v++) POPCOUNT[v] = (v & 1) + POPCOUNT[v >> 1]!;

/**
 * Definition levels (0/1, bit width 1) of `count` rows as validity bits from row `row` on;
 * returns how many rows are valid.
 */
function readDefLevels(buf: Uint8Array, count: number, valid: Uint8Array, row: number): number {
  const end = buf.length;
  let pos = 0;
  let n = 0;
  let nonNull = 0;
  while (n < count) {
    const header = runHeader(buf, pos, end);
    pos = cursor;
    if (header % 2 === 1) {
      const groups = Math.floor(header / 2);
      if (pos + groups > end) fail("bit-packed run past the end");
      const take = Math.min(groups * 8, count - n);
      let k = 0;
      if (((row + n) & 7) === 0) {
        // the run starts a byte of validity (as every run does on pages of a multiple of 8 rows):
        // its whole bytes are the validity bytes (bit i is row i in both), copied at once, and
        // counted a byte a step
        const whole = take >> 3;
        valid.set(buf.subarray(pos, pos + whole), (row + n) >> 3);
        for (let i = pos, stop = pos + whole; i < stop; i++) nonNull += POPCOUNT[buf[i]!]!;
        k = whole * 8;
      }
      for (; k < take; k += 8) {
        let byte = buf[pos + (k >> 3)]!;
        if (take - k < 8) byte &= (1 << (take - k)) - 1;
        if (byte === 0) continue;
        const r = row + n + k;
        const sh = r & 7;
        valid[r >> 3]! |= (byte << sh) & 0xff;
        if (sh !== 0) valid[(r >> 3) + 1]! |= byte >> (8 - sh);
        let c = byte - ((byte >> 1) & 0x55);
        c = (c & 0x33) + ((c >> 2) & 0x33);
        nonNull += (c + (c >> 4)) & 0x0f;
      }
      n += take;
      pos += groups;
    } else {
      const run = header / 2;
      if (pos >= end || run === 0) fail("run");
      const v = buf[pos++]!;
      if (v > 1) fail("definition level");
      const take = Math.min(run, count - n);
      if (v === 1) {
        setBits(valid, row + n, take);
        nonNull += take;
      }
      n += take;
    }
  }
  return nonNull;
}

function setBits(valid: Uint8Array, from: number, n: number): void {
  let r = from;
  const end = from + n;
  for (; r < end && (r & 7) !== 0; r++) valid[r >> 3]! |= 1 << (r & 7);
  if (end - r >= 8) {
    valid.fill(0xff, r >> 3, end >> 3);
    r = end & ~7;
  }
  for (; r < end; r++) valid[r >> 3]! |= 1 << (r & 7);
}

function readDictionary(page: Uint8Array, count: number, width: number): Dict {
  if (!(count >= 0)) fail("dictionary size");
  if (width > 0) {
    if (page.length !== count * width) fail("dictionary length");
    return { count, bytes: page, words: new Int32Array(new Uint8Array(page).buffer) };
  }
  if (width === 0) fail("boolean dictionary");
  // values stay in the page: value i is page[starts[i], starts[i + 1] - 4) (starts[count] = length + 4)
  const starts = new Int32Array(count + 1);
  let pos = 0;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > page.length) fail("dictionary value past the end");
    const len = (page[pos]! | (page[pos + 1]! << 8) | (page[pos + 2]! << 16) | (page[pos + 3]! << 24)) >>> 0;
    starts[i] = pos + 4;
    pos += 4 + len;
  }
  if (pos !== page.length) fail("dictionary values do not fill the page");
  starts[count] = pos + 4;
  return { count, bytes: page, offsets: starts };
}

/** PLAIN values: `nonNull` of them at values[pos..), spread over `numValues` rows by `valid` (undefined: no nulls). */
function plainValues(b: Builder, values: Uint8Array, pos: number, numValues: number, nonNull: number, valid: Uint8Array | undefined, borrowed: boolean): void {
  const width = b.width;
  const at = b.at;
  if (width > 0) {
    const bytes = nonNull * width;
    if (pos + bytes > values.length) fail("values past the page end");
    const src = values.subarray(pos, pos + bytes);
    if (!valid) {
      // One page holding every row of a column without nulls, decompressed into a buffer of
      // its own that holds exactly the values: the values themselves (no copy).
      if (!borrowed && b.values === NO_VALUES && numValues === b.rows && pos === 0 && values.byteOffset === 0 && values.byteLength === bytes && values.buffer.byteLength === bytes && values.buffer instanceof ArrayBuffer) {
        b.values = values;
        return;
      }
      b.fixedValues().set(src, b.at * width);
      return;
    }
    spreadValues(b.fixedValues(), width, at, numValues, nonNull, src, valid);
    return;
  }
  if (width === 0) {
    if (pos + ((nonNull + 7) >> 3) > values.length) fail("values past the page end");
    const out = b.values;
    for (let i = 0, k = 0; i < numValues; i++) {
      if (valid && ((valid[(at + i) >> 3]! >> ((at + i) & 7)) & 1) === 0) continue;
      if ((values[pos + (k >> 3)]! >> (k & 7)) & 1) out[(b.at + i) >> 3]! |= 1 << ((b.at + i) & 7);
      k++;
    }
    return;
  }
  plainByteArrays(b, values, pos, numValues, nonNull, valid);
}

/**
 * Spreads the `nonNull` values of `width` bytes in `src` over rows [at, at + numValues) of `fixed`
 * by the validity bits `valid`; null rows get zeros. The values go to the end of the rows' bytes
 * first (one copy), then each run of valid rows moves down to its rows (copyWithin: a run never
 * overtakes the values not moved yet, which lie past it), walking the null rows (few, by their set
 * bits) rather than every row: builtins do the copying, fast on a process's first read too (a
 * per-row loop runs in the interpreter until the JIT has compiled it). Bytes are moved as they
 * are: every value bit-exact, NaN payloads included.
 */
function spreadValues(fixed: Uint8Array, width: number, at: number, numValues: number, nonNull: number, src: Uint8Array, valid: Uint8Array): void {
  const base = at * width;
  const words = new Int32Array(fixed.buffer, fixed.byteOffset, fixed.length >> 2); // a builder's own buffer: aligned, width 4 or 8
  let from = base + (numValues - nonNull) * width; // the next value to move
  fixed.set(src, from);
  let row = 0; // the next row to fill (from `at`)
  const first = at >> 3;
  const last = (at + numValues - 1) >> 3;
  for (let j = first; j <= last; j++) {
    let nulls = ~valid[j]! & 0xff;
    if (j === first) nulls &= (0xff << (at & 7)) & 0xff;
    if (j === last) nulls &= 0xff >> (7 - ((at + numValues - 1) & 7));
    while (nulls !== 0) {
      const bit = nulls & -nulls;
      const r = j * 8 + 31 - Math.clz32(bit) - at; // a null row
      if (r > row) {
        const bytes = (r - row) * width;
        if (bytes > 64) fixed.copyWithin(base + row * width, from, from + bytes);
        else for (let q = (base + row * width) >> 2, f = from >> 2, end = f + (bytes >> 2); f < end; ) words[q++] = words[f++]!; // a short run: word by word (the values lie behind their rows)
        from += bytes;
      }
      const q = (base + r * width) >> 2;
      words[q] = 0;
      if (width === 8) words[q + 1] = 0;
      row = r + 1;
      nulls ^= bit;
    }
  }
  if (row < numValues) fixed.copyWithin(base + row * width, from, from + (numValues - row) * width);
}

/**
 * PLAIN byte arrays (4-byte length, bytes) of the page's valid rows: by the kernel module when it
 * is loaded (wasm/src/pages.rs; compiled code from a process's first page on, where this loop runs
 * in the interpreter until the JIT compiles it), else by the loop. Same offsets and bytes.
 */
function plainByteArrays(b: Builder, values: Uint8Array, pos: number, numValues: number, nonNull: number, valid: Uint8Array | undefined): void {
  b.plainBytes = true;
  const frame = numValues > 0 ? D.kernelFrame() : undefined;
  if (frame) return kernelByteArrays(frame, b, values.subarray(pos), numValues, valid);
  const offsets = b.offsets!;
  const end = values.length;
  b.reserveBytes(Math.max(0, end - pos - 4 * nonNull) + 4); // the page's bytes less a length per value
  const out = b.values;
  const from = new DataView(values.buffer, values.byteOffset, values.byteLength);
  const to = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let o = b.bytesAt;
  let r = b.at;
  for (const last = r + numValues; r < last; r++) {
    if (valid === undefined || ((valid[r >> 3]! >> (r & 7)) & 1) === 1) {
      if (pos + 4 > end) break;
      const len = from.getUint32(pos, true);
      pos += 4;
      if (len > end - pos) break;
      // short values as (unaligned) 32-bit words, up to 3 bytes past the value on both sides:
      // inside the page (else a byte copy) and the reserved output (the next value overwrites them)
      if (len > 32 || len + 4 > end - pos) out.set(values.subarray(pos, pos + len), o);
      else for (let j = 0; j < len; j += 4) to.setUint32(o + j, from.getUint32(pos + j, true), true);
      pos += len;
      o += len;
    }
    offsets[r + 1] = o;
  }
  if (r !== b.at + numValues) fail("value past the page end");
  b.bytesAt = o;
}

/**
 * plainByteArrays by the kernel: the page's values and validity bytes go into wasm memory, offsets
 * and bytes come out. A page already in wasm memory (decompressed there: snappy) is split where it
 * is, in place (its memory is reused after this page anyway).
 */
function kernelByteArrays(frame: KernelFrame, b: Builder, page: Uint8Array, numValues: number, valid: Uint8Array | undefined): void {
  const at = b.at;
  const bits = valid ? valid.subarray(at >> 3, ((at + numValues - 1) >> 3) + 1) : undefined;
  const inKernel = page.buffer === frame.k.memory.buffer;
  // taken before open(): memory grown for the frame detaches the page's view
  const length = page.length;
  const pagePtr = page.byteOffset;
  const data = frame.reserve(inKernel ? 0 : length);
  const offsets = frame.reserve(numValues * 4);
  const validity = frame.reserve(bits ? bits.length : 0);
  frame.open();
  if (!inKernel) frame.write(data, page);
  if (bits) frame.write(validity, bits);
  const ptr = inKernel ? pagePtr : frame.ptr(data);
  const n = frame.k.pr_plain_byte_arrays(ptr, length, numValues, bits ? frame.ptr(validity) : 0, at & 7, b.bytesAt, frame.ptr(offsets));
  if (n < 0) fail("value past the page end");
  b.reserveBytes(n);
  b.values.set(new Uint8Array(frame.k.memory.buffer, ptr, n), b.bytesAt);
  b.offsets!.set(frame.i32(offsets, numValues), at + 1);
  b.bytesAt += n;
}

let indexScratch = new Int32Array(0);

/** Dictionary-encoded values: bit width byte + hybrid indices of the `nonNull` values. */
function dictValues(b: Builder, dict: Dict, values: Uint8Array, pos: number, numValues: number, nonNull: number, valid: Uint8Array | undefined): void {
  if (pos >= values.length) {
    if (nonNull === 0) {
      if (b.width < 0) for (let i = 0; i < numValues; i++) b.offsets![b.at + i + 1] = b.bytesAt;
      return;
    }
    fail("indices missing");
  }
  const bitWidth = values[pos]!;
  const at = b.at;
  if (indexScratch.length < nonNull) indexScratch = new Int32Array(Math.max(nonNull, 1024));
  const idx = indexScratch;
  readHybrid(values, pos + 1, values.length, bitWidth, nonNull, idx);
  const count = dict.count;
  const width = b.width;
  if (width > 0) {
    const words = width >> 2;
    const d = dict.words!;
    const fixed = b.fixedValues();
    const out = new Int32Array(fixed.buffer, fixed.byteOffset + b.at * width, numValues * words);
    if (words === 2) {
      for (let i = 0, k = 0; i < numValues; i++) {
        if (valid && ((valid[(at + i) >> 3]! >> ((at + i) & 7)) & 1) === 0) continue;
        const v = idx[k++]!;
        if (v >= count) fail("dictionary index out of range");
        const j = v * 2;
        out[i * 2] = d[j]!;
        out[i * 2 + 1] = d[j + 1]!;
      }
    } else {
      for (let i = 0, k = 0; i < numValues; i++) {
        if (valid && ((valid[(at + i) >> 3]! >> ((at + i) & 7)) & 1) === 0) continue;
        const v = idx[k++]!;
        if (v >= count) fail("dictionary index out of range");
        out[i] = d[v]!;
      }
    }
    return;
  }
  const dOff = dict.offsets!;
  const dBytes = dict.bytes;
  let total = 0;
  for (let k = 0; k < nonNull; k++) {
    const v = idx[k]!;
    if (v >= count) fail("dictionary index out of range");
    total += dOff[v + 1]! - dOff[v]! - 4;
  }
  b.reserveBytes(total + 4);
  const out = b.values;
  const offsets = b.offsets!;
  const from = new DataView(dBytes.buffer, dBytes.byteOffset, dBytes.byteLength);
  const to = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const wordsEnd = dBytes.length - 4;
  let o = b.bytesAt;
  for (let i = 0, k = 0, r = b.at; i < numValues; i++, r++) {
    if (!valid || ((valid[r >> 3]! >> (r & 7)) & 1) === 1) {
      const v = idx[k++]!;
      const s = dOff[v]!;
      const len = dOff[v + 1]! - s - 4;
      // as in plainByteArrays: words while they stay inside the dictionary page and the reservation
      if (len > 32 || s + len > wordsEnd) out.set(dBytes.subarray(s, s + len), o);
      else for (let j = 0; j < len; j += 4) to.setUint32(o + j, from.getUint32(s + j, true), true);
      o += len;
    }
    offsets[r + 1] = o;
  }
  b.bytesAt = o;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The host's native ASCII check (node:buffer `isAscii`: Node, Bun, Deno), looked up without an
 * import so browser bundles stay free of `node:` modules; undefined elsewhere. Unlike the loop
 * below it costs the same on a process's first read as on later ones (no JIT warm-up).
 */
const nativeIsAscii = ((): ((bytes: Uint8Array) => boolean) | undefined => {
  try {
    const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const f = (host?.getBuiltinModule?.("node:buffer") as { isAscii?: unknown } | undefined)?.isAscii;
    return typeof f === "function" ? (f as (bytes: Uint8Array) => boolean) : undefined;
  } catch {
    return undefined;
  }
})();

/** Whether every byte of `bytes` (which starts its own buffer) is ASCII. */
function isAscii(bytes: Uint8Array): boolean {
  if (nativeIsAscii) return nativeIsAscii(bytes);
  // four bytes at a time
  const words = new Uint32Array(bytes.buffer, 0, bytes.length >> 2);
  let high = 0;
  for (let i = 0; i < words.length; i++) high |= words[i]!;
  for (let i = words.length * 4; i < bytes.length; i++) high |= bytes[i]!;
  return (high & 0x80808080) === 0;
}

/** Throws unless every value is valid UTF-8 (as parquet-rs checks). */
function checkUtf8(bytes: Uint8Array, offsets: Int32Array, rows: number): void {
  if (isAscii(bytes)) return;
  utf8.decode(bytes); // the whole buffer valid, and no value starts inside a character:
  for (let r = 0; r < rows; r++) {
    const s = offsets[r]!;
    if (s < offsets[r + 1]! && (bytes[s]! & 0xc0) === 0x80) fail("invalid UTF-8");
  }
}

/** Throws unless every value of a byte-array dictionary is valid UTF-8. */
function checkDictionaryUtf8(dict: Dict): void {
  const bytes = dict.bytes;
  const starts = dict.offsets!;
  for (let v = 0; v < dict.count; v++) {
    const s = starts[v]!;
    const e = starts[v + 1]! - 4;
    let high = 0;
    for (let i = s; i < e; i++) high |= bytes[i]!;
    if (high >= 0x80) utf8.decode(bytes.subarray(s, e));
  }
}

/** `dict`: the chunk's dictionary; when every value came from it, its values are checked instead of the output's bytes. */
function finish(b: Builder, type: arrow.DataType, dict: Dict | undefined): arrow.Data {
  const nullBitmap = b.nullCount > 0 ? b.valid : undefined;
  const length = b.rows;
  const nullCount = b.nullCount;
  if (b.width < 0) {
    const bytes = b.values.subarray(0, b.bytesAt);
    if (type instanceof D.arrow.Utf8) {
      if (b.plainBytes || !dict) checkUtf8(bytes, b.offsets!, length);
      else checkDictionaryUtf8(dict);
    }
    return D.arrow.makeData({ type: type as arrow.Utf8, length, nullCount, nullBitmap, valueOffsets: b.offsets!, data: bytes });
  }
  if (b.width === 0) return D.arrow.makeData({ type: type as arrow.Bool, length, nullCount, nullBitmap, data: b.values });
  const buf = b.fixedValues().buffer;
  switch (type.typeId) {
    case TYPE_INT: {
      const bits = (type as arrow.Int).bitWidth;
      if (bits === 64) return D.arrow.makeData({ type: type as arrow.Int64, length, nullCount, nullBitmap, data: new BigInt64Array(buf) });
      if (bits === 32) return D.arrow.makeData({ type: type as arrow.Int32, length, nullCount, nullBitmap, data: new Int32Array(buf) });
      // TINYINT / SMALLINT were decoded as INT32 words: narrowed in one typed-array copy
      const wide = new Int32Array(buf, 0, length);
      if (bits === 8) return D.arrow.makeData({ type: type as arrow.Int8, length, nullCount, nullBitmap, data: Int8Array.from(wide) });
      return D.arrow.makeData({ type: type as arrow.Int16, length, nullCount, nullBitmap, data: Int16Array.from(wide) });
    }
    case TYPE_FLOAT:
      return (type as arrow.Float).precision === PRECISION_DOUBLE
        ? D.arrow.makeData({ type: type as arrow.Float64, length, nullCount, nullBitmap, data: new Float64Array(buf) })
        : D.arrow.makeData({ type: type as arrow.Float32, length, nullCount, nullBitmap, data: new Float32Array(buf) });
    case TYPE_DATE:
      return D.arrow.makeData({ type: type as arrow.DateDay, length, nullCount, nullBitmap, data: new Int32Array(buf) });
    default:
      return D.arrow.makeData({ type: type as arrow.TimestampMicrosecond, length, nullCount, nullBitmap, data: new BigInt64Array(buf) });
  }
}
