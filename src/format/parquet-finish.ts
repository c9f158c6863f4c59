// The one post-write pass over a file parquet-wasm wrote (write side only; parquet-pages.ts holds
// the page walking the read side shares). It re-emits every page header with its `crc` (parquet-rs
// writes none), turns marked FIXED_LEN_BYTE_ARRAY(12) leaves into INT96 (Java Paimon's layout for
// TIMESTAMP(7-9), which parquet-rs cannot write; PLAIN and dictionary encodings of both are the
// same 12 bytes a value), drops min/max bounds of leaves where they would mislead, and moves every
// offset the footer and offset indexes hold. Page bodies are copied as they are: nothing is
// decoded or recompressed.

import { crc32 } from "../kernel/deletion-vector.js";
import { corrupt } from "./source.js";
import { PARQUET_MAGIC, PHYSICAL_INT96, PHYSICAL_FIXED_LEN_BYTE_ARRAY, PH_CRC, readPageHeader } from "./parquet-pages.js";
import { T_BINARY, T_I32, T_I64, type TStruct, getBytes, getField, getList, getNumber, getStruct, getValue, parseStruct, removeFields, serializeStruct, setField } from "./thrift.js";

export interface FinishOptions {
  /** Leaf columns (depth-first Parquet order) written as FIXED_LEN_BYTE_ARRAY(12) that are INT96. */
  int96Leaves?: ReadonlySet<number>;
  /** Leaf columns whose min/max (chunk statistics and column index) must be dropped. */
  unboundedLeaves?: ReadonlySet<number>;
  /** Replacement for the `ARROW:schema` footer value (base64 IPC schema) when the file has one. */
  arrowSchema?: string;
  /** For error messages. */
  fileName?: string;
  /** Rows the file must hold (the footer's num_rows and the sum over its row groups), if known. */
  rowCount?: number;
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
 * A file given as consecutive pieces (as a streaming writer emits it), read without joining them:
 * a range inside one piece is a view of it; only a range across pieces is copied.
 */
class Pieces {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(private readonly pieces: readonly Uint8Array[]) {
    let at = 0;
    for (const p of pieces) {
      this.starts.push(at);
      at += p.length;
    }
    this.length = at;
  }

  /** Bytes [start, end) of the file. */
  range(start: number, end: number): Uint8Array {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= start) lo = mid;
      else hi = mid - 1;
    }
    const base = this.starts[lo]!;
    const piece = this.pieces[lo]!;
    if (end - base <= piece.length) return piece.subarray(start - base, end - base);
    const out = new Uint8Array(end - start);
    for (let i = lo, at = 0; at < out.length; i++) {
      const p = this.pieces[i]!;
      const from = i === lo ? start - base : 0;
      const n = Math.min(p.length - from, out.length - at);
      out.set(p.subarray(from, from + n), at);
      at += n;
    }
    return out;
  }
}

/**
 * The post-write pass (see the file comment) over `written`, a complete Parquet file as written by
 * parquet-wasm, whole or in consecutive pieces. Returns a new file; `input` is not modified.
 */
export function finishParquetFile(input: Uint8Array | readonly Uint8Array[], options: FinishOptions = {}): Uint8Array {
  const name = options.fileName ?? "parquet file";
  const int96 = options.int96Leaves ?? new Set<number>();
  const unbounded = options.unboundedLeaves ?? new Set<number>();
  const file = new Pieces(input instanceof Uint8Array ? [input] : input);
  const tailBytes = file.range(file.length - 8, file.length);
  const metadataLength = new DataView(tailBytes.buffer, tailBytes.byteOffset, 8).getUint32(0, true);
  const footerStart = file.length - 8 - metadataLength;
  const fm = parseStruct(file.range(footerStart, file.length - 8), 0, metadataLength).value;

  if (int96.size > 0) retypeInt96Schema(fm, int96, name);
  if (options.rowCount !== undefined) {
    const groups = (getList(fm, 4) ?? []) as TStruct[];
    const inGroups = groups.reduce((n, rg) => n + (getNumber(rg, 3) ?? 0), 0);
    if (getNumber(fm, 3) !== options.rowCount || inGroups !== options.rowCount)
      throw corrupt(name, `written file holds ${getNumber(fm, 3)} rows (${inGroups} in its row groups), expected ${options.rowCount}`);
  }

  const parts: Uint8Array[] = [file.range(0, 4)];
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
        parts.push(file.range(copied, start));
        written += start - copied;
      }
      const newStart = written;
      let growth = 0;
      const chunk = file.range(start, start + length); // positions in `chunk` are relative to `start`
      for (let rel = 0; rel < length; ) {
        const at = start + rel;
        const p = readPageHeader(chunk, rel, length);
        const body = chunk.subarray(p.bodyStart, p.bodyStart + p.bodyLength);
        setField(p.header, PH_CRC, T_I32, crc32(body) | 0);
        const header = serializeStruct(p.header);
        moves.set(at, { to: written, growth: header.length - (p.bodyStart - rel) });
        growth += header.length - (p.bodyStart - rel);
        parts.push(header, body);
        written += header.length + body.length;
        rel = p.bodyStart + p.bodyLength;
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
      parts.push(file.range(copied, ref.offset));
      written += ref.offset - copied;
    }
    const raw = file.range(ref.offset, ref.offset + ref.length);
    const bytes = ref.kind === "offset-index" ? movedOffsetIndex(raw, moves, name) : raw;
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

/** The offset index `raw` with every page location moved to its page's new place and size. */
function movedOffsetIndex(raw: Uint8Array, moves: ReadonlyMap<number, PageMove>, name: string): Uint8Array {
  const index = parseStruct(raw, 0, raw.length).value;
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

