// Parquet page-level work on whole column chunks, outside the decoder:
// - `verifyChunkChecksums`: checks the CRC-32 of every page whose header carries one (parquet-mr
//   writes them by default; parquet-format: CRC-32 of the page bytes as stored after the header).
// - `checkInt96Range`: refuses INT96 timestamps that Arrow's int64 nanoseconds cannot hold (Java
//   writes TIMESTAMP(9) from year 0001 to 9999; the decoder would wrap them silently).
// - `finishParquetFile`: the one post-write pass over a file parquet-wasm wrote. It re-emits every
//   page header with its `crc` (parquet-rs writes none), turns marked FIXED_LEN_BYTE_ARRAY(12)
//   leaves into INT96 (Java Paimon's layout for TIMESTAMP(7-9), which parquet-rs cannot write;
//   PLAIN and dictionary encodings of both are the same 12 bytes a value), drops min/max bounds of
//   leaves where they would mislead, and moves every offset the footer and offset indexes hold.
//   Page bodies are copied as they are: nothing is decoded or recompressed.

import { gunzipSync } from "fflate";
import { decompress as zstdDecompress } from "fzstd";
import snappy from "snappyjs";
import { PaimonError } from "../error.js";
import { crc32 } from "../kernel/deletion-vector.js";
import { corrupt } from "./source.js";
import {
  T_BINARY,
  T_I32,
  T_I64,
  type TStruct,
  getBytes,
  getField,
  getList,
  getNumber,
  getStruct,
  getValue,
  parseStruct,
  removeFields,
  serializeStruct,
  setField,
} from "./thrift.js";

/** "PAR1" read as a little-endian uint32. */
export const PARQUET_MAGIC = 0x31524150;
export const PHYSICAL_INT96 = 3;
const PHYSICAL_FIXED_LEN_BYTE_ARRAY = 7;

// PageHeader field ids (parquet.thrift)
const PH_COMPRESSED_SIZE = 3;
const PH_CRC = 4;

interface PageHeaderAt {
  header: TStruct;
  /** Offset of the page body (right after the header). */
  bodyStart: number;
  bodyLength: number;
}

function readPageHeader(buf: Uint8Array, at: number, end: number): PageHeaderAt {
  const { value: header, end: bodyStart } = parseStruct(buf, at, end);
  const bodyLength = getNumber(header, PH_COMPRESSED_SIZE) ?? -1;
  if (!(bodyLength >= 0) || bodyStart + bodyLength > end) throw new Error(`page at byte ${at} of the chunk claims ${bodyLength} bytes, past the chunk's end`);
  return { header, bodyStart, bodyLength };
}

/**
 * Verifies the CRC-32 of every page of one column chunk (`chunk`: its complete bytes) whose
 * header has a `crc`. A mismatch, or pages that do not tile the chunk exactly, throws
 * CORRUPT_FILE naming `fileName`, `where` (row group and column) and the page.
 */
export function verifyChunkChecksums(chunk: Uint8Array, fileName: string, where: string): void {
  let at = 0;
  let page = 0;
  while (at < chunk.length) {
    let p: PageHeaderAt;
    try {
      p = readPageHeader(chunk, at, chunk.length);
    } catch (e) {
      throw corrupt(fileName, `${where}, page ${page}: unreadable page header (${String((e as Error)?.message ?? e)})`, e);
    }
    const stored = getNumber(p.header, PH_CRC);
    if (stored !== undefined) {
      const actual = crc32(chunk.subarray(p.bodyStart, p.bodyStart + p.bodyLength));
      if (actual !== stored >>> 0)
        throw corrupt(fileName, `${where}, page ${page}: page checksum mismatch (header crc ${hex(stored)}, page bytes ${hex(actual)})`);
    }
    at = p.bodyStart + p.bodyLength;
    page++;
  }
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

export interface FinishOptions {
  /** Leaf columns (depth-first Parquet order) written as FIXED_LEN_BYTE_ARRAY(12) that are INT96. */
  int96Leaves?: ReadonlySet<number>;
  /** Leaf columns whose min/max (chunk statistics and column index) must be dropped. */
  unboundedLeaves?: ReadonlySet<number>;
  /** Replacement for the `ARROW:schema` footer value (base64 IPC schema) when the file has one. */
  arrowSchema?: string;
  /** For error messages. */
  fileName?: string;
}

/** Old page start -> new page start and how many bytes its header grew. */
interface PageMove {
  to: number;
  growth: number;
}

/** Index structures after the row groups: offset indexes (rewritten), column indexes and bloom filters (copied). */
interface IndexRef {
  offset: number;
  length: number;
  kind: "offset-index" | "column-index" | "bloom";
  /** The struct holding the offset/length fields and their ids. */
  owner: TStruct;
  offsetField: number;
  lengthField: number;
}

/**
 * The post-write pass (see the file comment) over `file`, a complete Parquet file as written by
 * parquet-wasm. Returns a new file; `file` is not modified.
 */
export function finishParquetFile(file: Uint8Array, options: FinishOptions = {}): Uint8Array {
  const name = options.fileName ?? "parquet file";
  const int96 = options.int96Leaves ?? new Set<number>();
  const unbounded = options.unboundedLeaves ?? new Set<number>();
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const metadataLength = view.getUint32(file.length - 8, true);
  const footerStart = file.length - 8 - metadataLength;
  const fm = parseStruct(file, footerStart, file.length - 8).value;

  if (int96.size > 0) retypeInt96Schema(fm, int96, name);

  const parts: Uint8Array[] = [file.subarray(0, 4)];
  let written = 4;
  let copied = 4; // old-file position up to which bytes are accounted for
  const moves = new Map<number, PageMove>();
  const indexRefs: IndexRef[] = [];

  const rowGroups = (getList(fm, 4) ?? []) as TStruct[];
  for (const rg of rowGroups) {
    const chunks = (getList(rg, 1) ?? []) as TStruct[];
    let groupStart = -1;
    let groupCompressed = 0;
    let groupGrowth = 0;
    chunks.forEach((cc, leaf) => {
      const md = getStruct(cc, 3);
      if (!md) throw corrupt(name, `written column chunk ${leaf} has no metadata`);
      const dataOffset = getNumber(md, 9) ?? -1;
      const dictOffset = getNumber(md, 11);
      const start = dictOffset !== undefined && dictOffset > 0 && dictOffset < dataOffset ? dictOffset : dataOffset;
      const length = getNumber(md, 7) ?? -1;
      if (start < copied || start + length > footerStart) throw corrupt(name, `written column chunk ${leaf} is out of order or out of range`);
      if (start > copied) {
        parts.push(file.subarray(copied, start));
        written += start - copied;
      }
      const newStart = written;
      let growth = 0;
      for (let at = start; at < start + length; ) {
        const p = readPageHeader(file, at, start + length);
        const body = file.subarray(p.bodyStart, p.bodyStart + p.bodyLength);
        setField(p.header, PH_CRC, T_I32, crc32(body) | 0);
        const header = serializeStruct(p.header);
        moves.set(at, { to: written, growth: header.length - (p.bodyStart - at) });
        growth += header.length - (p.bodyStart - at);
        parts.push(header, body);
        written += header.length + body.length;
        at = p.bodyStart + p.bodyLength;
      }
      copied = start + length;
      const chunkEnd = written;
      const moved = (old: number): number => {
        if (old === start + length) return chunkEnd;
        const m = moves.get(old);
        if (!m) throw corrupt(name, `written column chunk ${leaf} points at byte ${old}, which starts no page`);
        return m.to;
      };
      setField(md, 9, T_I64, BigInt(moved(dataOffset)));
      if (dictOffset !== undefined) setField(md, 11, T_I64, BigInt(dictOffset > 0 ? moved(dictOffset) : dictOffset));
      const indexPage = getNumber(md, 10);
      if (indexPage !== undefined) setField(md, 10, T_I64, BigInt(moved(indexPage)));
      setField(md, 7, T_I64, BigInt(chunkEnd - newStart));
      const uncompressed = getNumber(md, 6);
      if (uncompressed !== undefined) setField(md, 6, T_I64, BigInt(uncompressed + growth));
      const fileOffset = getNumber(cc, 2);
      // Deprecated and set differently by writers: a page start or the chunk's end moves with it.
      if (fileOffset !== undefined && (moves.has(fileOffset) || fileOffset === start + length)) setField(cc, 2, T_I64, BigInt(moved(fileOffset)));
      if (int96.has(leaf)) setField(md, 1, T_I32, PHYSICAL_INT96);
      if (int96.has(leaf) || unbounded.has(leaf)) {
        const st = getStruct(md, 12);
        if (st) removeFields(st, 1, 2, 5, 6, 7, 8); // max, min (deprecated and current), exactness flags
        removeFields(cc, 6, 7); // column index: page-level min/max
      }
      collectIndexRefs(cc, md, indexRefs);
      if (groupStart < 0) groupStart = newStart;
      groupCompressed += chunkEnd - newStart;
      groupGrowth += growth;
    });
    if (getValue(rg, 5) !== undefined && groupStart >= 0) setField(rg, 5, T_I64, BigInt(groupStart));
    if (getValue(rg, 6) !== undefined) setField(rg, 6, T_I64, BigInt(groupCompressed));
    const total = getNumber(rg, 2);
    if (total !== undefined) setField(rg, 2, T_I64, BigInt(total + groupGrowth));
  }

  // Index structures between the last chunk and the footer, in file order.
  indexRefs.sort((a, b) => a.offset - b.offset);
  for (const ref of indexRefs) {
    if (ref.offset < copied || ref.offset + ref.length > footerStart) throw corrupt(name, `written ${ref.kind} at byte ${ref.offset} overlaps other data`);
    if (ref.offset > copied) {
      parts.push(file.subarray(copied, ref.offset));
      written += ref.offset - copied;
    }
    const bytes = ref.kind === "offset-index" ? movedOffsetIndex(file, ref, moves, name) : file.subarray(ref.offset, ref.offset + ref.length);
    setField(ref.owner, ref.offsetField, T_I64, BigInt(written));
    setField(ref.owner, ref.lengthField, T_I32, bytes.length);
    parts.push(bytes);
    written += bytes.length;
    copied = ref.offset + ref.length;
  }
  // Unreferenced bytes (column indexes of leaves whose bounds were dropped) are carried over when
  // they lie between referenced structures, and dropped after the last one.

  if (options.arrowSchema !== undefined) replaceArrowSchema(fm, options.arrowSchema);
  const footer = serializeStruct(fm);
  const tail = new Uint8Array(8);
  new DataView(tail.buffer).setUint32(0, footer.length, true);
  new DataView(tail.buffer).setUint32(4, PARQUET_MAGIC, true);
  parts.push(footer, tail);

  const out = new Uint8Array(written + footer.length + 8);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function collectIndexRefs(cc: TStruct, md: TStruct, out: IndexRef[]): void {
  const add = (kind: IndexRef["kind"], owner: TStruct, offsetField: number, lengthField: number): void => {
    const offset = getNumber(owner, offsetField);
    const length = getNumber(owner, lengthField);
    if (offset === undefined) return;
    if (length === undefined) {
      // A bloom filter without its length (older writers): it cannot be moved safely; drop the reference.
      removeFields(owner, offsetField);
      return;
    }
    out.push({ offset, length, kind, owner, offsetField, lengthField });
  };
  add("offset-index", cc, 4, 5);
  add("column-index", cc, 6, 7);
  add("bloom", md, 14, 15);
}

/** The offset index at `ref` with every page location moved to its page's new place and size. */
function movedOffsetIndex(file: Uint8Array, ref: IndexRef, moves: ReadonlyMap<number, PageMove>, name: string): Uint8Array {
  const index = parseStruct(file, ref.offset, ref.offset + ref.length).value;
  for (const loc of (getList(index, 1) ?? []) as TStruct[]) {
    const offset = getNumber(loc, 1) ?? -1;
    const m = moves.get(offset);
    if (!m) throw corrupt(name, `written offset index points at byte ${offset}, which starts no page`);
    setField(loc, 1, T_I64, BigInt(m.to));
    setField(loc, 2, T_I32, (getNumber(loc, 2) ?? 0) + m.growth);
  }
  return serializeStruct(index);
}

/** Schema elements of the `int96` leaves: FIXED_LEN_BYTE_ARRAY(12) -> INT96 (no length, no annotation). */
function retypeInt96Schema(fm: TStruct, int96: ReadonlySet<number>, name: string): void {
  let leaf = 0;
  for (const el of (getList(fm, 2) ?? []) as TStruct[]) {
    const children = getNumber(el, 5);
    if (children !== undefined && children > 0) continue;
    if (getField(el, 1) === undefined) continue; // the root of a schema without columns
    if (int96.has(leaf)) {
      if (getNumber(el, 1) !== PHYSICAL_FIXED_LEN_BYTE_ARRAY || getNumber(el, 2) !== 12) throw corrupt(name, `leaf ${leaf} is not FIXED_LEN_BYTE_ARRAY(12) and cannot become INT96`);
      setField(el, 1, T_I32, PHYSICAL_INT96);
      removeFields(el, 2, 6, 10);
    }
    leaf++;
  }
}

function replaceArrowSchema(fm: TStruct, value: string): void {
  const kv = (getList(fm, 5) ?? []) as TStruct[];
  const encoded = new TextEncoder().encode(value);
  const entry = kv.find((e) => {
    const k = getBytes(e, 1);
    return k !== undefined && new TextDecoder().decode(k) === "ARROW:schema";
  });
  if (entry) setField(entry, 2, T_BINARY, encoded);
}

// ---------------------------------------------------------------------------------------------
// INT96 range
// ---------------------------------------------------------------------------------------------

/** Maximum repetition and definition level of every leaf (depth-first), from the flattened schema. */
export function leafLevels(schema: readonly TStruct[]): Array<{ maxRep: number; maxDef: number }> {
  const out: Array<{ maxRep: number; maxDef: number }> = [];
  let pos = 1;
  const walk = (rep: number, def: number): void => {
    const el = schema[pos++];
    if (!el) throw new Error("schema ends early");
    const repetition = getNumber(el, 3) ?? 0; // REQUIRED, OPTIONAL, REPEATED
    const r = rep + (repetition === 2 ? 1 : 0);
    const d = def + (repetition === 0 ? 0 : 1);
    const children = getNumber(el, 5) ?? 0;
    if (children === 0) out.push({ maxRep: r, maxDef: d });
    else for (let i = 0; i < children; i++) walk(r, d);
  };
  const rootChildren = getNumber(schema[0]!, 5) ?? 0;
  for (let i = 0; i < rootChildren; i++) walk(0, 0);
  return out;
}

const JULIAN_DAY_OF_EPOCH = 2440588;
const NANOS_PER_DAY = 86_400_000_000_000;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function decompressPage(codec: number, body: Uint8Array, size: number): Uint8Array | undefined {
  switch (codec) {
    case 0:
      return body;
    case 1:
      return snappy.uncompress(body) as Uint8Array;
    case 2:
      return gunzipSync(body);
    case 6:
      return zstdDecompress(body, new Uint8Array(size));
    default:
      return undefined; // LZO, BROTLI, LZ4: not checked (no decoder here)
  }
}

/**
 * Throws UNSUPPORTED when an INT96 column chunk (PLAIN values and dictionary pages; dictionary
 * indices need no check) holds a timestamp outside int64 nanoseconds since 1970 (1677-09-21 to
 * 2262-04-11), which parquet-rs would wrap into a wrong value without an error.
 * `codec` is the chunk's CompressionCodec; levels are the leaf's maxima (`leafLevels`).
 */
export function checkInt96Range(chunk: Uint8Array, codec: number, levels: { maxRep: number; maxDef: number }, fileName: string, where: string): void {
  for (let at = 0; at < chunk.length; ) {
    const p = readPageHeader(chunk, at, chunk.length);
    at = p.bodyStart + p.bodyLength;
    const body = chunk.subarray(p.bodyStart, p.bodyStart + p.bodyLength);
    const type = getNumber(p.header, 1);
    const uncompressed = getNumber(p.header, 2) ?? 0;
    let values: Uint8Array | undefined;
    try {
      if (type === 2) values = decompressPage(codec, body, uncompressed); // dictionary page: PLAIN values
      else if (type === 0) {
        const h = getStruct(p.header, 5);
        if (!h || getNumber(h, 2) !== 0) continue; // not PLAIN
        const page = decompressPage(codec, body, uncompressed);
        if (!page) continue;
        let off = 0;
        const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
        if (levels.maxRep > 0) off += 4 + view.getUint32(off, true);
        if (levels.maxDef > 0) off += 4 + view.getUint32(off, true);
        values = page.subarray(off);
      } else if (type === 3) {
        const h = getStruct(p.header, 8);
        if (!h || getNumber(h, 4) !== 0) continue;
        const levelBytes = (getNumber(h, 5) ?? 0) + (getNumber(h, 6) ?? 0);
        const rest = body.subarray(levelBytes);
        values = getValue(h, 7) === false ? rest : decompressPage(codec, rest, uncompressed - levelBytes);
      }
    } catch (e) {
      throw corrupt(fileName, `${where}: undecodable INT96 page (${String((e as Error)?.message ?? e)})`, e);
    }
    if (values) checkInt96Values(values, fileName, where);
  }
}

function checkInt96Values(values: Uint8Array, fileName: string, where: string): void {
  const view = new DataView(values.buffer, values.byteOffset, values.byteLength);
  for (let i = 0; i + 12 <= values.length; i += 12) {
    const days = view.getInt32(i + 8, true) - JULIAN_DAY_OF_EPOCH;
    const nanos = view.getUint32(i, true) + view.getInt32(i + 4, true) * 2 ** 32;
    // Fast path: |days| <= 106750 and |nanos of day| <= one day cannot leave int64.
    if (Math.abs(days) <= 106_750 && Math.abs(nanos) <= NANOS_PER_DAY) continue;
    const exact = BigInt(days) * BigInt(NANOS_PER_DAY) + view.getBigInt64(i, true);
    if (exact < INT64_MIN || exact > INT64_MAX)
      throw new PaimonError(
        "UNSUPPORTED",
        `Parquet file ${fileName}, ${where}: INT96 timestamp on Julian day ${days + JULIAN_DAY_OF_EPOCH} is outside what TIMESTAMP(7-9) holds in Arrow (int64 nanoseconds, 1677-09-21 to 2262-04-11)`,
      );
  }
}
