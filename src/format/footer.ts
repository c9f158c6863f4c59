// Parquet footer: reading and validating it (one typed thrift parse, thrift.ts) before any byte
// reaches parquet-wasm, and building "pruned" in-memory Parquet files that contain only the
// selected top-level columns of the selected row groups, after checking the page checksums of
// every chunk fetched. Projected reads decode such a pruned file with parquet-wasm's synchronous
// reader, where a Rust panic is a catchable exception (its async reader turns panics and source
// errors into process-killing uncaught exceptions).

import { PaimonError } from "../error.js";
import { corrupt, type ByteSource } from "./source.js";
import { PARQUET_MAGIC, PHYSICAL_INT96, checkInt96Range, leafLevels, verifyChunkChecksums } from "./parquet-pages.js";
import { initKernels } from "../kernel/wasm.js";
import { loadFflate } from "../spec/fflate.js";
import { utf8Decoder } from "../spec/utf8.js";
import {
  T_I32,
  T_I64,
  T_LIST,
  type TList,
  type TStruct,
  type TValue,
  getBytes,
  getList,
  getNumber,
  getStruct,
  getValue,
  parseStruct,
  removeFields,
  serializeStruct,
  setField,
} from "./thrift.js";

const MAGIC = PARQUET_MAGIC;
const MAGIC_ENCRYPTED = 0x45524150; // "PARE"
const TAIL_READ = 64 * 1024;

export interface TopLevelColumn {
  /** Index among the root's children. */
  index: number;
  name: string;
  fieldId: number | undefined;
  /** Schema element range [schemaStart, schemaEnd) in the flattened schema list. */
  schemaStart: number;
  schemaEnd: number;
  /** Leaf (column chunk) range [leafStart, leafEnd). */
  leafStart: number;
  leafEnd: number;
}

export interface ChunkRange {
  start: number;
  length: number;
}

export interface ParquetFooter {
  name: string;
  size: number;
  metadataLength: number;
  numRows: number;
  /** Typed thrift tree of FileMetaData (schema, row groups, statistics, key/value metadata). */
  raw: TStruct;
  columns: TopLevelColumn[];
  leafCount: number;
  /** Per row group: row count and per leaf its byte range in the file. */
  rowGroups: Array<{ numRows: number; chunks: ChunkRange[] }>;
}

function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** Reads, parses and validates the footer. Throws CORRUPT_FILE (or IO_ERROR from the source). */
export async function readFooter(src: ByteSource): Promise<ParquetFooter> {
  const size = src.size;
  if (size < 12) throw corrupt(src.name, `file is too short (${size} bytes)`);
  const tailLen = Math.min(size, TAIL_READ);
  let tail = await src.read(size - tailLen, tailLen);
  const magic = u32(tail, tail.length - 4);
  if (magic === MAGIC_ENCRYPTED) throw new PaimonError("UNSUPPORTED", `Parquet file ${src.name} uses an encrypted footer`);
  if (magic !== MAGIC) throw corrupt(src.name, "missing PAR1 magic at the end (truncated or not a Parquet file)");
  const metadataLength = u32(tail, tail.length - 8);
  if (metadataLength + 12 > size) throw corrupt(src.name, `footer length ${metadataLength} exceeds the file size ${size}`);
  if (src.bytes && u32(src.bytes, 0) !== MAGIC) throw corrupt(src.name, "missing PAR1 magic at the start");
  if (metadataLength + 8 > tail.length) tail = await src.read(size - 8 - metadataLength, metadataLength + 8);
  const footerBytes = tail.subarray(tail.length - 8 - metadataLength);
  return parseFooter(src.name, size, footerBytes, metadataLength);
}

function parseFooter(name: string, size: number, footerBytes: Uint8Array, metadataLength: number): ParquetFooter {
  let raw: TStruct;
  try {
    const parsed = parseStruct(footerBytes, 0, metadataLength);
    raw = parsed.value;
  } catch (e) {
    if (e instanceof PaimonError) throw e;
    throw corrupt(name, `unreadable footer: ${String((e as Error)?.message ?? e)}`, e);
  }

  const schema = getList(raw, 2) as TStruct[] | undefined;
  if (!schema || schema.length === 0) throw corrupt(name, "footer has no schema");
  // Walk the flattened schema to find top-level subtrees and leaf ranges.
  const columns: TopLevelColumn[] = [];
  let pos = 1;
  let leaf = 0;
  const rootChildren = getNumber(schema[0]!, 5) ?? 0;
  const walk = (): void => {
    if (pos >= schema.length) throw corrupt(name, "schema ends early");
    const el = schema[pos++]!;
    const children = getNumber(el, 5);
    if (children === undefined || children === 0) {
      if (getNumber(el, 1) === undefined) throw corrupt(name, "schema leaf without a physical type");
      leaf++;
      return;
    }
    if (children < 0 || children > schema.length) throw corrupt(name, "invalid schema child count");
    for (let i = 0; i < children; i++) walk();
  };
  for (let c = 0; c < rootChildren; c++) {
    const start = pos;
    const leafStart = leaf;
    walk();
    const el = schema[start]!;
    const nameBytes = getBytes(el, 4);
    columns.push({
      index: c,
      name: nameBytes ? utf8Decoder.decode(nameBytes) : "",
      fieldId: getNumber(el, 9),
      schemaStart: start,
      schemaEnd: pos,
      leafStart,
      leafEnd: leaf,
    });
  }
  if (pos !== schema.length) throw corrupt(name, "schema has trailing elements");

  const dataEnd = size - 8 - metadataLength;
  const rowGroups: ParquetFooter["rowGroups"] = [];
  const rgs = (getList(raw, 4) ?? []) as TStruct[];
  let total = 0;
  for (let r = 0; r < rgs.length; r++) {
    const rg = rgs[r]!;
    const numRows = getNumber(rg, 3) ?? -1;
    if (!(numRows >= 0)) throw corrupt(name, `row group ${r} has an invalid row count`);
    const chunks = (getList(rg, 1) ?? []) as TStruct[];
    if (chunks.length !== leaf) throw corrupt(name, `row group ${r} has ${chunks.length} column chunks for ${leaf} columns`);
    const ranges: ChunkRange[] = chunks.map((cc, i) => {
      if (getBytes(cc, 1)) throw new PaimonError("UNSUPPORTED", `Parquet file ${name} references column data in another file`);
      const md = getStruct(cc, 3);
      if (!md) throw corrupt(name, `row group ${r} column ${i} has no metadata`);
      const range = chunkRange(md);
      if (!(range.start >= 4 && range.length >= 0 && range.start + range.length <= dataEnd)) {
        throw corrupt(name, `row group ${r} column ${i} lies outside the data area (offset ${range.start}, length ${range.length})`);
      }
      return range;
    });
    rowGroups.push({ numRows, chunks: ranges });
    total += numRows;
  }
  const numRows = getNumber(raw, 3) ?? total;
  if (numRows !== total) throw corrupt(name, `footer row count ${numRows} differs from the row groups' ${total}`);
  return { name, size, metadataLength, numRows, raw, columns, leafCount: leaf, rowGroups };
}

/** Dotted schema path of leaf `leaf` (for messages). */
/** "row group R, column a.b": a column chunk in error messages. */
export function chunkWhere(footer: ParquetFooter, rowGroup: number, leaf: number): string {
  return `row group ${rowGroup}, column ${leafPath(footer, rowGroup, leaf)}`;
}

function leafPath(footer: ParquetFooter, rowGroup: number, leaf: number): string {
  const md = columnMetaData(footer, rowGroup, leaf);
  const path = md && getList(md, 3); // path_in_schema
  return path ? path.map((p) => utf8Decoder.decode(p as Uint8Array)).join(".") : `#${leaf}`;
}

/** The ColumnMetaData of leaf `leaf` in row group `rowGroup` (thrift tree). */
export function columnMetaData(footer: ParquetFooter, rowGroup: number, leaf: number): TStruct | undefined {
  const group = (getList(footer.raw, 4) as TStruct[] | undefined)?.[rowGroup];
  const chunk = group && (getList(group, 1) as TStruct[] | undefined)?.[leaf];
  return chunk && getStruct(chunk, 3);
}

function chunkRange(md: TStruct): ChunkRange {
  const data = getNumber(md, 9) ?? -1;
  const dict = getNumber(md, 11);
  const start = dict !== undefined && dict > 0 && dict < data ? dict : data;
  return { start, length: getNumber(md, 7) ?? -1 };
}

function cloneStruct(s: TStruct): TStruct {
  return { fields: s.fields.map((f) => ({ ...f })) };
}

function shift(s: TStruct, id: number, delta: number): void {
  const v = getValue(s, id);
  if (typeof v === "bigint") setField(s, id, T_I64, v + BigInt(delta));
  else if (typeof v === "number") setField(s, id, T_I64, BigInt(v + delta));
}

/**
 * The complete bytes of column chunks `leaves` (leaf indices, ascending) of row group `r`,
 * fetched from `src` with adjacent ranges coalesced. Every page CRC present is verified (unless
 * `verify` is false: the caller checks each page itself, `checkPageCrc`) and INT96 chunks are
 * range-checked (CORRUPT_FILE / UNSUPPORTED naming the file and chunk).
 */
export async function readLeafChunks(src: ByteSource, footer: ParquetFooter, leaves: readonly number[], r: number, verify = true): Promise<Uint8Array[]> {
  const rawGroups = getList(footer.raw, 4) as TStruct[];
  let levels: ReturnType<typeof leafLevels> | undefined;
  const rg = footer.rowGroups[r]!;
  const ranges = leaves.map((l) => rg.chunks[l]!);
  const merged: ChunkRange[] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && last.start + last.length === range.start) last.length += range.length;
    else merged.push({ ...range });
  }
  const fetched = await Promise.all(merged.map((m) => src.read(m.start, m.length)));
  const meta = leaves.map((l) => getStruct((getList(rawGroups[r]!, 1) as TStruct[])[l]!, 3)!);
  // SNAPPY INT96 chunks are range-checked with the kernel's snappy, GZIP ones with fflate (each loaded now where it is not yet)
  if (meta.some((md) => getNumber(md, 1) === PHYSICAL_INT96 && getNumber(md, 4) === 1)) await initKernels();
  if (meta.some((md) => getNumber(md, 1) === PHYSICAL_INT96 && getNumber(md, 4) === 2)) await loadFflate();
  // Split merged reads back into per-leaf pieces.
  const out: Uint8Array[] = [];
  let mi = 0;
  let within = 0;
  ranges.forEach((range, j) => {
    while (within >= merged[mi]!.length) {
      mi++;
      within = 0;
    }
    const chunk = fetched[mi]!.subarray(within, within + range.length);
    const where = chunkWhere(footer, r, leaves[j]!);
    if (verify) verifyChunkChecksums(chunk, src.name, where);
    const md = meta[j]!;
    if (getNumber(md, 1) === PHYSICAL_INT96) checkInt96Range(chunk, getNumber(md, 4) ?? 0, (levels ??= leafLevels(getList(footer.raw, 2) as TStruct[]))[leaves[j]!]!, src.name, where);
    out.push(chunk);
    within += range.length;
  });
  return out;
}

/**
 * Some data pages of one flat column chunk (from its offset index): `ranges` are the byte
 * ranges of the dictionary page (`dictionaryLength` bytes, 0 when none) and then of the
 * selected data pages, which together hold `numRows` rows.
 */
export interface PageSubset {
  ranges: readonly ChunkRange[];
  dictionaryLength: number;
  numRows: number;
}

/**
 * Builds an in-memory Parquet file holding only top-level `columns` (indices, any order; file
 * order is kept) of row groups `rowGroups`. Chunk bytes are fetched from `src` (adjacent ranges
 * coalesced). The ARROW:schema hint is dropped; page indexes, bloom filters and sorting columns,
 * which refer to the original layout, are removed. With `pageSubset` (one flat column, one row
 * group) the chunk holds just those pages and the row group their rows.
 */
export async function buildPrunedFile(src: ByteSource, footer: ParquetFooter, columns: readonly number[], rowGroups: readonly number[], pageSubset?: PageSubset): Promise<Uint8Array> {
  if (pageSubset && (columns.length !== 1 || rowGroups.length !== 1)) throw new PaimonError("INVALID_ARGUMENT", "a page subset selects pages of one column chunk");
  const selected = [...new Set(columns)].sort((a, b) => a - b).map((i) => footer.columns[i]!);
  const leaves: number[] = [];
  for (const c of selected) for (let l = c.leafStart; l < c.leafEnd; l++) leaves.push(l);

  // Fetch chunk bytes (adjacent ranges coalesced); page CRCs and INT96 ranges are checked.
  const rawGroups = getList(footer.raw, 4) as TStruct[];
  const pieces: Uint8Array[][] = [];
  let dataLen = 0;
  for (const r of rowGroups) {
    if (pageSubset) {
      const parts = await Promise.all(pageSubset.ranges.map((m) => src.read(m.start, m.length)));
      const chunk = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
      let at = 0;
      for (const x of parts) {
        chunk.set(x, at);
        at += x.length;
      }
      pieces.push([chunk]);
      dataLen += chunk.length;
      continue;
    }
    const out = await readLeafChunks(src, footer, leaves, r);
    for (const c of out) dataLen += c.length;
    pieces.push(out);
  }

  // New footer.
  const schema = getList(footer.raw, 2) as TStruct[];
  const root = cloneStruct(schema[0]!);
  setField(root, 5, T_I32, selected.length);
  const newSchema: TValue[] = [root];
  for (const c of selected) for (let i = c.schemaStart; i < c.schemaEnd; i++) newSchema.push(schema[i]!);

  const newGroups: TValue[] = [];
  let cursor = 4;
  let totalRows = 0n;
  rowGroups.forEach((r, k) => {
    const rg = cloneStruct(rawGroups[r]!);
    const chunks = getList(rawGroups[r]!, 1) as TStruct[];
    const groupStart = cursor;
    const newChunks: TValue[] = leaves.map((l, j) => {
      const cc = cloneStruct(chunks[l]!);
      const md = cloneStruct(getStruct(cc, 3)!);
      const range = footer.rowGroups[r]!.chunks[l]!;
      const delta = cursor - range.start;
      shift(md, 9, delta);
      shift(md, 11, delta);
      removeFields(md, 10, 14, 15);
      if (pageSubset) {
        // the chunk is the dictionary page (if any) followed by the selected data pages
        setField(md, 5, T_I64, BigInt(pageSubset.numRows));
        setField(md, 7, T_I64, BigInt(pieces[k]![j]!.length));
        setField(md, 9, T_I64, BigInt(cursor + pageSubset.dictionaryLength));
        if (pageSubset.dictionaryLength > 0) setField(md, 11, T_I64, BigInt(cursor));
        else removeFields(md, 11);
        removeFields(md, 12, 13);
      }
      setField(cc, 3, 12, md);
      shift(cc, 2, delta);
      removeFields(cc, 4, 5, 6, 7);
      cursor += pieces[k]![j]!.length;
      return cc;
    });
    setField(rg, 1, T_LIST, { elemType: 12, items: newChunks } as TList);
    if (getValue(rg, 5) !== undefined) setField(rg, 5, T_I64, BigInt(groupStart));
    if (getValue(rg, 6) !== undefined) setField(rg, 6, T_I64, BigInt(cursor - groupStart));
    removeFields(rg, 4);
    if (pageSubset) setField(rg, 3, T_I64, BigInt(pageSubset.numRows));
    totalRows += BigInt(pageSubset ? pageSubset.numRows : footer.rowGroups[r]!.numRows);
    newGroups.push(rg);
  });

  const fm = cloneStruct(footer.raw);
  setField(fm, 2, T_LIST, { elemType: 12, items: newSchema } as TList);
  setField(fm, 3, T_I64, totalRows);
  setField(fm, 4, T_LIST, { elemType: 12, items: newGroups } as TList);
  const kv = getList(footer.raw, 5) as TStruct[] | undefined;
  if (kv) {
    const kept = kv.filter((e) => {
      const k = getBytes(e, 1);
      return !(k && new TextDecoder().decode(k) === "ARROW:schema");
    });
    setField(fm, 5, T_LIST, { elemType: 12, items: kept } as TList);
  }
  const orders = getList(footer.raw, 7);
  if (orders && orders.length === footer.leafCount) setField(fm, 7, T_LIST, { elemType: 12, items: leaves.map((l) => orders[l]!) } as TList);
  else removeFields(fm, 7);

  const footerBytes = serializeStruct(fm);
  const out = new Uint8Array(4 + dataLen + footerBytes.length + 8);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  let at = 4;
  for (const group of pieces)
    for (const p of group) {
      out.set(p, at);
      at += p.length;
    }
  out.set(footerBytes, at);
  at += footerBytes.length;
  view.setUint32(at, footerBytes.length, true);
  view.setUint32(at + 4, MAGIC, true);
  return out;
}
