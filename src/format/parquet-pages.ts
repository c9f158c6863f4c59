// Parquet page-level work on whole column chunks, outside the decoder (the read side; the
// post-write pass over our own files is parquet-finish.ts, kept apart so query bundles omit it):
// - `verifyChunkChecksums`: checks the CRC-32 of every page whose header carries one (parquet-mr
//   writes them by default; parquet-format: CRC-32 of the page bytes as stored after the header).
// - `checkInt96Range`: refuses INT96 timestamps that Arrow's int64 nanoseconds cannot hold (Java
//   writes TIMESTAMP(9) from year 0001 to 9999; the decoder would wrap them silently).

import { decompress as zstdDecompress } from "fzstd";
import { PaimonError } from "../error.js";
import { crc32 } from "../kernel/deletion-vector.js";
import { snappyView } from "../kernel/snappy-decompress.js";
import { loadedFflate } from "../spec/fflate.js";
import { corrupt } from "./source.js";
import { type TStruct, getNumber, getStruct, getValue, parseStruct } from "./thrift.js";

/** "PAR1" read as a little-endian uint32. */
export const PARQUET_MAGIC = 0x31524150;
export const PHYSICAL_INT96 = 3;
export const PHYSICAL_FIXED_LEN_BYTE_ARRAY = 7;

// PageHeader field ids (parquet.thrift)
const PH_COMPRESSED_SIZE = 3;
export const PH_CRC = 4;

export interface PageHeaderAt {
  header: TStruct;
  /** Offset of the page body (right after the header). */
  bodyStart: number;
  bodyLength: number;
}

export function readPageHeader(buf: Uint8Array, at: number, end: number): PageHeaderAt {
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
    if (stored !== undefined) checkPageCrc(chunk.subarray(p.bodyStart, p.bodyStart + p.bodyLength), stored, undefined, fileName, where, page);
    at = p.bodyStart + p.bodyLength;
    page++;
  }
}

/**
 * Throws CORRUPT_FILE naming `fileName`, `where` and page `page` (its index in the chunk) when
 * the CRC-32 of the page's bytes `body` (`actual`, computed here when undefined) is not the
 * header's crc `stored`.
 */
export function checkPageCrc(body: Uint8Array, stored: number, actual: number | undefined, fileName: string, where: string, page: number): void {
  const crc = actual ?? crc32(body);
  if (crc !== stored >>> 0) throw corrupt(fileName, `${where}, page ${page}: page checksum mismatch (header crc ${hex(stored)}, page bytes ${hex(crc)})`);
}

export function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

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
      return snappyView()(body, size); // kernel memory, read before the next kernel call (the kernel is loaded: readLeafChunks)
    case 2:
      return loadedFflate().gunzipSync(body); // loaded by the caller (footer.ts readChunks)
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
