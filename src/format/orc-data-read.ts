// Reads ORC data files (Java Paimon's `file.format=orc`, the default before Paimon 1.0, and
// `file.format.per.level`) into Arrow record batches. A lazily imported chunk: query bundles that
// never meet an ORC data file do not carry it.
//
// The file's tail (postscript, footer: protobuf, decoded by the minimal reader below) names the
// stripes and the type tree Java's OrcTypeUtil made of the Paimon schema (columns by name; field
// ids in "paimon.id" attributes); each stripe's footer lists its streams and column encodings. A
// stripe is decoded column by column, only the read columns' streams decompressed (ORC's chunked
// framing over zstd, zlib, snappy, lz4 or none), into Arrow data over typed arrays. Children of
// a struct hold values only for the struct's non-null rows and list / map children only the
// entries of non-null rows, as ORC writes them; nulls are PRESENT bit streams. With a filter,
// stripes are skipped by their statistics and, where the file has a row index, row groups by
// theirs or, for eq / in filters, by their bloom filters (BLOOM_FILTER_UTF8): a range of kept
// groups is decoded from each stream's row index position (the values of a run before it decoded
// and dropped).
//
// Paimon's mapping (OrcTypeUtil, FieldWriterFactory): TINYINT byte, SMALLINT short, INT and TIME
// (millis) int, BIGINT long, CHAR char, VARCHAR(n) varchar, STRING string, BYTES binary, DECIMAL
// decimal (unscaled varint + scale, Hive normalised: trailing zeros dropped), DATE date,
// TIMESTAMP timestamp (wall-clock: seconds since 2015-01-01 + nanos), TIMESTAMP_LTZ timestamp
// with local time zone (instant; Paimon's default `orc.timestamp-ltz.legacy.type` writes the
// instant shifted by the writer's zone, recorded in each stripe footer: paimon-rt shifts back for
// UTC-like zones and refuses others), ARRAY list, MAP map, ROW struct.

// (only types are imported: the modules this chunk uses come from the query bundle through
// `OrcReadDeps`, as avro-data-read.ts does)
import type * as arrow from "apache-arrow";
import type { PaimonError } from "../error.js";
import type { loadedFflate } from "../spec/fflate.js";
import type { ZstdCodec } from "../spec/zstd.js";
import type { DataType } from "../spec/types.js";
import type { AvroDataReadOptions, AvroReadDeps } from "./avro-data-read.js";
import type { Predicate } from "../predicate/predicate.js";
import type { boundMayMatch, ColumnStats } from "../predicate/stats.js";
import { decodeBoolRle, decodeByteRle, decodeIntRleV1, decodeIntRleV2, Int64Words, Kind, OrcRleError } from "./orc-rle.js";
import { murmur3Hash64, OrcBloomFilter, orcDoubleHash, orcLongHash } from "./orc-bloom.js";

/** What the reader uses of the query bundle (file-formats.ts `readWholeDataFile` passes it). */
export interface OrcReadDeps extends Omit<AvroReadDeps, "AvroReader" | "checkBlockEnd" | "containerBlocks" | "headerCodec" | "readContainerHeader" | "fflateLoaded"> {
  loadedFflate: typeof loadedFflate;
  /** fzstd's decoder (frames the wasm module refuses or where it does not load). */
  zstdDecompress: (data: Uint8Array) => Uint8Array;
  snappyUncompress: (data: Uint8Array) => Uint8Array;
  boundMayMatch: typeof boundMayMatch;
}

let D: OrcReadDeps;

/** The reader bound to the query bundle's modules. */
export function bindOrcDataReader(deps: OrcReadDeps): typeof readOrcDataBatches {
  D = deps;
  return readOrcDataBatches;
}

/** What to read from an ORC data file: as from an Avro one (fields, the file's fields, batch size, file name), and how its TIMESTAMP_LTZ values were written. */
export interface OrcDataReadOptions extends AvroDataReadOptions {
  /**
   * The table's `orc.timestamp-ltz.legacy.type` (Java's default true: TIMESTAMP_LTZ values stored
   * shifted by the writer's time zone). Unknown (undefined): TIMESTAMP_LTZ columns written in a
   * zone other than UTC are UNSUPPORTED rather than read wrongly.
   */
  timestampLtzLegacy?: boolean;
  /**
   * A filter bound to the table's fields (`bindPredicate`), whose columns are among `fields`:
   * stripes whose statistics rule it out are skipped (not decoded, no batch). The caller still
   * filters the rows returned (this prunes only).
   */
  filter?: Predicate | null;
  /** Told the row count of each stripe skipped by `filter` (to keep row positions: deletion vectors). */
  onSkip?: (rows: number) => void;
}

/**
 * Stripes read and skipped by statistics, and row groups read and skipped by row indexes in the
 * stripes read (process-wide totals; tests and benchmarks read them).
 */
export const orcReadCounters = { stripesRead: 0, stripesPruned: 0, rowGroupsRead: 0, rowGroupsPruned: 0 };

function corrupt(what: string): PaimonError {
  return new D.PaimonError("CORRUPT_FILE", what);
}

// ---------------------------------------------------------------------------------------------
// Protobuf (the ORC tail and stripe footers): fields by number, varints as numbers
// ---------------------------------------------------------------------------------------------

class Proto {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }
  varint(): number {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw corrupt(`ORC metadata ends inside a varint at byte ${this.pos}`);
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return v;
      scale *= 128;
    }
    throw corrupt(`ORC metadata varint longer than 10 bytes`);
  }
  /** A varint at `at` (a field's value: `fields()` gives its start) as an exact bigint. */
  bigVarint(at: number): bigint {
    let v = 0n;
    for (let i = 0, shift = 0n; i < 10 && at + i < this.end; i++, shift += 7n) {
      const b = this.buf[at + i]!;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, v);
    }
    throw corrupt(`ORC metadata varint past its message`);
  }
  /** Each field of the message: its number, wire type, value (for length-delimited ones their length and a reader of their bytes) and where its value starts. */
  *fields(): Generator<{ field: number; wire: number; value: number; sub: Proto | null; at: number }> {
    while (this.pos < this.end) {
      const key = this.varint();
      const field = Math.floor(key / 8);
      const wire = key & 7;
      const at = this.pos;
      if (wire === 0) yield { field, wire, value: this.varint(), sub: null, at };
      else if (wire === 2) {
        const n = this.varint();
        if (this.pos + n > this.end) throw corrupt(`ORC metadata field ${field} of ${n} bytes past its message`);
        const sub = new Proto(this.buf, this.pos, this.pos + n);
        this.pos += n;
        yield { field, wire, value: n, sub, at: this.pos - n };
      } else if (wire === 1 || wire === 5) {
        this.pos += wire === 1 ? 8 : 4;
        if (this.pos > this.end) throw corrupt(`ORC metadata ends inside field ${field}`);
        if (wire === 1) yield { field, wire, value: 0, sub: null, at };
      } else throw corrupt(`ORC metadata wire type ${wire}`);
    }
  }
  string(): string {
    return new TextDecoder().decode(this.buf.subarray(this.pos, this.end));
  }
  /** A packed repeated varint field (or one unpacked value when `sub` is null). */
  static packed(f: { value: number; sub: Proto | null }, out: number[]): void {
    if (!f.sub) out.push(f.value);
    else while (f.sub.pos < f.sub.end) out.push(f.sub.varint());
  }
}

// ---------------------------------------------------------------------------------------------
// File tail
// ---------------------------------------------------------------------------------------------


const KIND_NAMES = ["boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary", "timestamp", "array", "map", "struct", "uniontype", "decimal", "date", "varchar", "char", "timestamp with local time zone"];

export interface OrcType {
  kind: number;
  subtypes: number[];
  fieldNames: string[];
  precision: number;
  scale: number;
}

export interface Stripe {
  offset: number;
  indexLength: number;
  dataLength: number;
  footerLength: number;
  rows: number;
}

export interface Tail {
  compression: number;
  blockSize: number;
  stripes: Stripe[];
  types: OrcType[];
  /** The metadata section (stripe statistics): [start, end) in the file. */
  metadata: [number, number];
  /** Rows per row group of the stripes' row indexes (0: no row index). */
  rowIndexStride: number;
}

/** ORC CompressionKind names by number. */
export const CODECS = ["none", "zlib", "snappy", "lzo", "lz4", "zstd"];

/** The postscript (uncompressed, at the end of the file: its length is the last byte). */
function readPostscript(bytes: Uint8Array): { compression: number; blockSize: number; footerLength: number; metadataLength: number; psStart: number } {
  const n = bytes.length;
  if (n < 4) throw corrupt(`not an ORC file (${n} bytes)`);
  const psLength = bytes[n - 1]!;
  if (psLength + 1 > n) throw corrupt(`ORC postscript of ${psLength} bytes in a file of ${n}`);
  const psStart = n - 1 - psLength;
  let footerLength = -1;
  let compression = 0;
  let blockSize = 256 * 1024;
  let metadataLength = 0;
  let magic = "";
  for (const f of new Proto(bytes, psStart, n - 1).fields()) {
    if (f.field === 1) footerLength = f.value;
    else if (f.field === 2) compression = f.value;
    else if (f.field === 3) blockSize = f.value;
    else if (f.field === 5) metadataLength = f.value;
    else if (f.field === 8000 && f.sub) magic = f.sub.string();
  }
  if (magic !== "ORC") throw corrupt(`not an ORC file (no ORC postscript magic)`);
  if (footerLength < 0 || footerLength + metadataLength > psStart) throw corrupt(`ORC footer of ${footerLength} bytes past the file start`);
  if (blockSize <= 0 || blockSize > 1 << 30) throw corrupt(`ORC compression block size ${blockSize}`);
  if (!(compression in CODECS) || compression === 3) throw new D.PaimonError("UNSUPPORTED", `ORC compression ${CODECS[compression] ?? compression}`);
  return { compression, blockSize, footerLength, metadataLength, psStart };
}

/** The tail of an ORC file: compression, stripes, type tree. CORRUPT_FILE for bytes that are not an ORC file. */
export async function readOrcTail(bytes: Uint8Array): Promise<Tail> {
  // the codecs not loaded with the module, before the (compressed) footer
  const { compression } = readPostscript(bytes);
  if (compression === 1) await D.loadFflate();
  if (compression === 5) zstd = await D.loadZstd();
  return readTail(bytes);
}

function readTail(bytes: Uint8Array): Tail {
  const { compression, blockSize, footerLength, metadataLength, psStart } = readPostscript(bytes);
  const tail: Tail = { compression, blockSize, stripes: [], types: [], metadata: [psStart - footerLength - metadataLength, psStart - footerLength], rowIndexStride: 0 };
  const footer = decompress(tail, bytes.subarray(psStart - footerLength, psStart), "footer");
  for (const f of new Proto(footer).fields()) {
    if (f.field === 3 && f.sub) {
      const s: Stripe = { offset: 0, indexLength: 0, dataLength: 0, footerLength: 0, rows: 0 };
      for (const g of f.sub.fields()) {
        if (g.field === 1) s.offset = g.value;
        else if (g.field === 2) s.indexLength = g.value;
        else if (g.field === 3) s.dataLength = g.value;
        else if (g.field === 4) s.footerLength = g.value;
        else if (g.field === 5) s.rows = g.value;
      }
      if (s.offset + s.indexLength + s.dataLength + s.footerLength > psStart) throw corrupt(`ORC stripe at ${s.offset} past the file's data`);
      tail.stripes.push(s);
    } else if (f.field === 4 && f.sub) {
      const t: OrcType = { kind: 0, subtypes: [], fieldNames: [], precision: 38, scale: 10 };
      for (const g of f.sub.fields()) {
        if (g.field === 1) t.kind = g.value;
        else if (g.field === 2) Proto.packed(g, t.subtypes);
        else if (g.field === 3 && g.sub) t.fieldNames.push(g.sub.string());
        else if (g.field === 5) t.precision = g.value;
        else if (g.field === 6) t.scale = g.value;
      }
      tail.types.push(t);
    } else if (f.field === 8 && f.wire === 0) tail.rowIndexStride = f.value;
  }
  const root = tail.types[0];
  if (!root || root.kind !== Kind.STRUCT) throw corrupt(`ORC file without a struct schema`);
  for (const t of tail.types) for (const s of t.subtypes) if (s >= tail.types.length || s <= 0) throw corrupt(`ORC type tree names type ${s} of ${tail.types.length}`);
  return tail;
}

// ---------------------------------------------------------------------------------------------
// Compression: ORC's chunks (3-byte little-endian header: length << 1 | original)
// ---------------------------------------------------------------------------------------------

let zstd: ZstdCodec | null = null;

/** `data` decompressed; `chunkStarts`, when given, told where each chunk starts (stored offset → offset in the result). */
function decompress(tail: Tail, data: Uint8Array, what: string, chunkStarts?: Map<number, number>): Uint8Array {
  if (tail.compression === 0) return data;
  const parts: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  while (pos < data.length) {
    if (pos + 3 > data.length) throw corrupt(`ORC ${what}: compression chunk header past the stream`);
    const header = data[pos]! | (data[pos + 1]! << 8) | (data[pos + 2]! << 16);
    chunkStarts?.set(pos, total);
    pos += 3;
    const length = header >>> 1;
    if (pos + length > data.length) throw corrupt(`ORC ${what}: compression chunk of ${length} bytes past the stream`);
    const chunk = data.subarray(pos, pos + length);
    pos += length;
    const out = header & 1 ? chunk : inflate(tail, chunk, what);
    parts.push(out);
    total += out.length;
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function inflate(tail: Tail, chunk: Uint8Array, what: string): Uint8Array {
  try {
    switch (tail.compression) {
      case 1:
        return D.loadedFflate().inflateSync(chunk);
      case 2:
        return D.snappyUncompress(chunk);
      case 4:
        return lz4Block(chunk, tail.blockSize);
      default: {
        if (zstd) {
          try {
            return zstd.decompress(chunk, tail.blockSize);
          } catch {
            // below: fzstd reports what the module refuses
          }
        }
        return D.zstdDecompress(chunk);
      }
    }
  } catch (e) {
    if (e instanceof D.PaimonError) throw e;
    throw corrupt(`ORC ${what}: cannot decompress a ${CODECS[tail.compression]} chunk: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** An LZ4 block (no frame: aircompressor's Lz4Compressor, as ORC writes) of at most `max` bytes. */
export function lz4Block(src: Uint8Array, max: number): Uint8Array {
  const out = new Uint8Array(max);
  let ip = 0;
  let op = 0;
  const bad = (): never => {
    throw new Error("malformed LZ4 block");
  };
  while (ip < src.length) {
    const token = src[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b;
      do {
        if (ip >= src.length) bad();
        b = src[ip++]!;
        lit += b;
      } while (b === 255);
    }
    if (ip + lit > src.length || op + lit > max) bad();
    out.set(src.subarray(ip, ip + lit), op);
    ip += lit;
    op += lit;
    if (ip >= src.length) break;
    if (ip + 2 > src.length) bad();
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    let len = token & 15;
    if (len === 15) {
      let b;
      do {
        if (ip >= src.length) bad();
        b = src[ip++]!;
        len += b;
      } while (b === 255);
    }
    len += 4;
    if (offset === 0 || offset > op || op + len > max) bad();
    for (let k = 0; k < len; k++, op++) out[op] = out[op - offset]!;
  }
  return out.subarray(0, op);
}

// ---------------------------------------------------------------------------------------------
// Stripes: streams by column and kind, column encodings
// ---------------------------------------------------------------------------------------------

const enum StreamKind {
  PRESENT = 0,
  DATA = 1,
  LENGTH = 2,
  DICTIONARY_DATA = 3,
  SECONDARY = 5,
}

/** Column encodings: DIRECT = 0, DICTIONARY = 1, DIRECT_V2 = 2, DICTIONARY_V2 = 3. */
interface StripeData {
  tail: Tail;
  bytes: Uint8Array;
  /** column → stream kind → [start, length] in the file. */
  streams: Map<number, Map<number, [number, number]>>;
  encodings: number[];
  dictionarySizes: number[];
  /** Per column its ColumnEncoding's bloomEncoding (0 ORIGINAL, also when absent; 1 UTF8_UTC). */
  bloomEncodings: number[];
  writerTimezone: string;
  /** `OrcDataReadOptions.timestampLtzLegacy`. */
  ltzLegacy: boolean | undefined;
  /** Decompressed streams (by `column:kind`) and where their chunks start, for reads of several row group ranges. */
  decompressed: Map<string, { bytes: Uint8Array; chunkStarts: Map<number, number> }>;
  /** Reading a range of row groups: per column and stream kind where the range starts (null: from the stripe's start). */
  seek: Map<number, Map<number, StreamStart>> | null;
}

/** Where a row group starts in a stream (a row index entry's positions): stored chunk offset (-1: uncompressed), offset in the chunk, values (bits) of its run before it. */
interface StreamStart {
  chunk: number;
  offset: number;
  skip: number;
}

function readStripe(tail: Tail, bytes: Uint8Array, s: Stripe, index: number, ltzLegacy: boolean | undefined): StripeData {
  const footerStart = s.offset + s.indexLength + s.dataLength;
  const footer = decompress(tail, bytes.subarray(footerStart, footerStart + s.footerLength), `stripe ${index} footer`);
  const streams = new Map<number, Map<number, [number, number]>>();
  const encodings: number[] = [];
  const dictionarySizes: number[] = [];
  const bloomEncodings: number[] = [];
  let writerTimezone = "";
  let at = s.offset;
  for (const f of new Proto(footer).fields()) {
    if (f.field === 1 && f.sub) {
      let kind = 0;
      let column = 0;
      let length = 0;
      for (const g of f.sub.fields()) {
        if (g.field === 1) kind = g.value;
        else if (g.field === 2) column = g.value;
        else if (g.field === 3) length = g.value;
      }
      if (at + length > footerStart) throw corrupt(`ORC stripe ${index}: stream of column ${column} past the stripe`);
      let byKind = streams.get(column);
      if (!byKind) streams.set(column, (byKind = new Map()));
      byKind.set(kind, [at, length]);
      at += length;
    } else if (f.field === 2 && f.sub) {
      let kind = 0;
      let size = 0;
      let bloomEncoding = 0;
      for (const g of f.sub.fields()) {
        if (g.field === 1) kind = g.value;
        else if (g.field === 2) size = g.value;
        else if (g.field === 3) bloomEncoding = g.value;
      }
      encodings.push(kind);
      dictionarySizes.push(size);
      bloomEncodings.push(bloomEncoding);
    } else if (f.field === 3 && f.sub) writerTimezone = f.sub.string();
  }
  return { tail, bytes, streams, encodings, dictionarySizes, bloomEncodings, writerTimezone, ltzLegacy, decompressed: new Map(), seek: null };
}

function stream(st: StripeData, column: number, kind: number): Uint8Array | null {
  const at = st.streams.get(column)?.get(kind);
  if (!at) return null;
  const what = `column ${column} stream ${kind}`;
  const start = st.seek?.get(column)?.get(kind);
  if (!start) return decompress(st.tail, st.bytes.subarray(at[0], at[0] + at[1]), what);
  // a row group range: the stream decompressed once per stripe, read from the group's start
  const key = `${column}:${kind}`;
  let whole = st.decompressed.get(key);
  if (!whole) {
    const chunkStarts = new Map<number, number>();
    whole = { bytes: decompress(st.tail, st.bytes.subarray(at[0], at[0] + at[1]), what, chunkStarts), chunkStarts };
    st.decompressed.set(key, whole);
  }
  const base = start.chunk < 0 ? 0 : (whole.chunkStarts.get(start.chunk) ?? (start.chunk === at[1] ? whole.bytes.length : -1));
  if (base < 0 || base + start.offset > whole.bytes.length) throw corrupt(`ORC ${what}: row index position ${start.chunk}/${start.offset} is no chunk of the stream`);
  return whole.bytes.subarray(base + start.offset);
}

/** Values (bits of a boolean stream) of the run a row group range starts in that precede it. */
function skipOf(st: StripeData, column: number, kind: number): number {
  return st.seek?.get(column)?.get(kind)?.skip ?? 0;
}

/** Bits of a boolean RLE stream from the stripe's or the row group range's start. */
function bools(st: StripeData, column: number, kind: number, s: Uint8Array, n: number): Uint8Array {
  if (!st.seek) return decodeBoolRle(s, n);
  const skip = skipOf(st, column, kind);
  return decodeBoolRle(s, skip + n, RUN_SLACK).subarray(skip);
}

/** Bytes of a byte RLE stream from the stripe's or the row group range's start. */
function byteValues(st: StripeData, column: number, kind: number, s: Uint8Array, n: number): Uint8Array {
  if (!st.seek) return decodeByteRle(s, n);
  const skip = skipOf(st, column, kind);
  return decodeByteRle(s, skip + n, new Uint8Array(skip + n + RUN_SLACK)).subarray(skip);
}

/** Room for the rest of a run past a row group range's values (runs are at most 512 values). */
const RUN_SLACK = 512;

function required(st: StripeData, column: number, kind: number, what: string): Uint8Array {
  const s = stream(st, column, kind);
  if (!s) throw corrupt(`ORC column ${what}: no ${["PRESENT", "DATA", "LENGTH", "DICTIONARY_DATA", "", "SECONDARY"][kind]} stream`);
  return s;
}

function ints(st: StripeData, column: number, kind: number, n: number, signed: boolean, what: string): Int64Words {
  const s = n === 0 ? new Uint8Array(0) : required(st, column, kind, what);
  const enc = st.encodings[column] ?? 0;
  const decode = enc === 0 || enc === 1 ? decodeIntRleV1 : decodeIntRleV2;
  if (!st.seek || n === 0) return decode(s, n, signed);
  const skip = skipOf(st, column, kind);
  const all = decode(s, skip + n, signed, new Int64Words(skip + n + RUN_SLACK));
  return skip === 0 ? all : new Int64Words(n, all.words.subarray(2 * skip, 2 * (skip + n)));
}

// ---------------------------------------------------------------------------------------------
// Columns → Arrow data
// ---------------------------------------------------------------------------------------------

/** A column of the read: its ORC type id, Paimon type and Arrow type, children for nested types. */
interface Plan {
  column: number;
  type: DataType;
  arrowType: arrow.DataType;
  what: string;
  children: Plan[];
}

function mismatch(t: OrcType, type: DataType, what: string): PaimonError {
  return corrupt(`column ${what}: ORC type ${KIND_NAMES[t.kind] ?? t.kind} does not hold ${D.typeToString(type)}`);
}

function plan(types: OrcType[], column: number, type: DataType, arrowType: arrow.DataType, what: string): Plan {
  const t = types[column]!;
  const expect = (...kinds: number[]) => {
    if (!kinds.includes(t.kind)) throw mismatch(t, type, what);
  };
  const children: Plan[] = [];
  switch (type.kind) {
    case "BOOLEAN":
      expect(Kind.BOOLEAN);
      break;
    case "TINYINT":
      expect(Kind.BYTE);
      break;
    case "SMALLINT":
      expect(Kind.SHORT);
      break;
    case "INT":
    case "TIME":
      expect(Kind.INT);
      break;
    case "BIGINT":
      expect(Kind.LONG);
      break;
    case "FLOAT":
      expect(Kind.FLOAT);
      break;
    case "DOUBLE":
      expect(Kind.DOUBLE);
      break;
    case "DATE":
      expect(Kind.DATE);
      break;
    case "CHAR":
    case "VARCHAR":
      expect(Kind.STRING, Kind.VARCHAR, Kind.CHAR);
      break;
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      expect(Kind.BINARY);
      break;
    case "DECIMAL":
      expect(Kind.DECIMAL);
      break;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      expect(Kind.TIMESTAMP, Kind.TIMESTAMP_INSTANT);
      break;
    case "ARRAY":
      expect(Kind.LIST);
      children.push(plan(types, t.subtypes[0]!, type.element, (arrowType as arrow.List).children[0]!.type, `${what}[]`));
      break;
    case "MAP":
    case "MULTISET": {
      // (Java writes MULTISET<E> as MAP<E, INT NOT NULL>: OrcFileFormat.refineDataType)
      expect(Kind.MAP);
      const entries = (arrowType as arrow.Map_).children[0]!.type as arrow.Struct;
      children.push(plan(types, t.subtypes[0]!, type.kind === "MAP" ? type.key : type.element, entries.children[0]!.type, `${what}.key`));
      children.push(plan(types, t.subtypes[1]!, type.kind === "MAP" ? type.value : { kind: "INT", nullable: false }, entries.children[1]!.type, `${what}.value`));
      break;
    }
    case "ROW": {
      expect(Kind.STRUCT);
      const fields = (arrowType as arrow.Struct).children;
      type.fields.forEach((f, i) => {
        const at = t.fieldNames.indexOf(f.name);
        if (at < 0) throw corrupt(`column ${what}: ORC struct has no field ${f.name}`);
        children.push(plan(types, t.subtypes[at]!, f.type, fields[i]!.type, `${what}.${f.name}`));
      });
      break;
    }
    default:
      throw new D.PaimonError("UNSUPPORTED", `column ${what}: ${D.typeToString(type)} in an ORC data file`);
  }
  return { column, type, arrowType, what, children };
}

/** The slots' validity: the parent's entries (`mask`, null: all) whose PRESENT bit is set. */
interface Validity {
  /** One byte per slot (1 valid), or null: all valid. */
  valid: Uint8Array | null;
  /** Valid slots: the values the column's streams hold. */
  count: number;
}

function validity(st: StripeData, p: Plan, slots: number, mask: Uint8Array | null): Validity {
  let entries = slots;
  if (mask) {
    entries = 0;
    for (let i = 0; i < slots; i++) entries += mask[i]!;
  }
  const present = entries > 0 ? stream(st, p.column, StreamKind.PRESENT) : null;
  if (!present) return { valid: entries < slots ? mask : null, count: entries };
  const bits = bools(st, p.column, StreamKind.PRESENT, present, entries);
  const valid = new Uint8Array(slots);
  let count = 0;
  for (let i = 0, j = 0; i < slots; i++) {
    if (mask && !mask[i]) continue;
    const v = bits[j++]!;
    valid[i] = v;
    count += v;
  }
  return { valid, count };
}

function bitmap(v: Validity, slots: number): Uint8Array | undefined {
  if (!v.valid) return undefined;
  const bits = new Uint8Array((slots + 7) >> 3);
  for (let i = 0; i < slots; i++) if (v.valid[i]) bits[i >> 3]! |= 1 << (i & 7);
  return bits;
}

function fixed(p: Plan, slots: number, v: Validity, values: ArrayBufferView): arrow.Data {
  return D.makeData({ type: p.arrowType as arrow.Int32, length: slots, nullCount: slots - v.count, nullBitmap: bitmap(v, slots), data: values as Int32Array });
}

/** Scatters `k` dense values (index j) to the valid slots (index i). */
function scatter(v: Validity, slots: number, put: (i: number, j: number) => void): void {
  if (!v.valid) {
    for (let i = 0; i < slots; i++) put(i, i);
    return;
  }
  for (let i = 0, j = 0; i < slots; i++) if (v.valid[i]) put(i, j++);
}

const EPOCH_2015 = 1420070400;

function decodeColumn(st: StripeData, p: Plan, slots: number, mask: Uint8Array | null): arrow.Data {
  const v = validity(st, p, slots, mask);
  const k = v.count;
  const col = p.column;
  const type = p.type;
  switch (type.kind) {
    case "BOOLEAN": {
      const bits = k > 0 ? bools(st, col, StreamKind.DATA, required(st, col, StreamKind.DATA, p.what), k) : new Uint8Array(0);
      const out = new Uint8Array((slots + 7) >> 3);
      scatter(v, slots, (i, j) => {
        if (bits[j]) out[i >> 3]! |= 1 << (i & 7);
      });
      return fixed(p, slots, v, out);
    }
    case "TINYINT": {
      const bytes = k > 0 ? byteValues(st, col, StreamKind.DATA, required(st, col, StreamKind.DATA, p.what), k) : new Uint8Array(0);
      const out = new Int8Array(slots);
      if (!v.valid) out.set(new Int8Array(bytes.buffer, bytes.byteOffset, k));
      else scatter(v, slots, (i, j) => (out[i] = (bytes[j]! << 24) >> 24));
      return fixed(p, slots, v, out);
    }
    case "SMALLINT":
    case "INT":
    case "TIME":
    case "DATE": {
      const w = ints(st, col, StreamKind.DATA, k, true, p.what);
      const out = type.kind === "SMALLINT" ? new Int16Array(slots) : new Int32Array(slots);
      const words = w.words;
      if (!v.valid) for (let i = 0; i < slots; i++) out[i] = words[2 * i]!;
      else scatter(v, slots, (i, j) => (out[i] = words[2 * j]!));
      return fixed(p, slots, v, out);
    }
    case "BIGINT": {
      const w = ints(st, col, StreamKind.DATA, k, true, p.what);
      if (!v.valid) return fixed(p, slots, v, new BigInt64Array(w.words.buffer, w.words.byteOffset, slots));
      const out = new Int32Array(slots * 2);
      scatter(v, slots, (i, j) => {
        out[2 * i] = w.words[2 * j]!;
        out[2 * i + 1] = w.words[2 * j + 1]!;
      });
      return fixed(p, slots, v, new BigInt64Array(out.buffer));
    }
    case "FLOAT":
    case "DOUBLE": {
      const size = type.kind === "FLOAT" ? 4 : 8;
      const data = k > 0 ? required(st, col, StreamKind.DATA, p.what) : new Uint8Array(0);
      if (data.length < k * size) throw corrupt(`ORC column ${p.what}: ${data.length} bytes of DATA for ${k} values`);
      const copy = data.slice(0, k * size); // aligned
      const dense = size === 4 ? new Float32Array(copy.buffer, 0, k) : new Float64Array(copy.buffer, 0, k);
      if (!v.valid) return fixed(p, slots, v, dense);
      const out = size === 4 ? new Float32Array(slots) : new Float64Array(slots);
      scatter(v, slots, (i, j) => (out[i] = dense[j]!));
      return fixed(p, slots, v, out);
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return decodeBytes(st, p, slots, v);
    case "DECIMAL":
      return decodeDecimal(st, p, slots, v);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return decodeTimestamp(st, p, slots, v);
    case "ARRAY":
    case "MAP":
    case "MULTISET": {
      const lengths = ints(st, col, StreamKind.LENGTH, k, false, p.what);
      const offsets = new Int32Array(slots + 1);
      let end = 0;
      let j = 0;
      for (let i = 0; i < slots; i++) {
        if (!v.valid || v.valid[i]) {
          const n = lengths.get(j++);
          if (n < 0 || end + n > 0x7fffffff) throw corrupt(`ORC column ${p.what}: length ${n}`);
          end += n;
        }
        offsets[i + 1] = end;
      }
      let child: arrow.Data;
      if (type.kind === "ARRAY") child = decodeColumn(st, p.children[0]!, end, null);
      else {
        const entries = (p.arrowType as arrow.Map_).children[0]!.type;
        const keys = decodeColumn(st, p.children[0]!, end, null);
        const values = decodeColumn(st, p.children[1]!, end, null);
        child = D.makeData({ type: entries as arrow.Struct, length: end, nullCount: 0, children: [keys, values] });
      }
      return D.makeData({ type: p.arrowType as arrow.List, length: slots, nullCount: slots - k, nullBitmap: bitmap(v, slots), valueOffsets: offsets, child });
    }
    case "ROW": {
      // the children hold values for this struct's valid slots only
      const children = p.children.map((c) => decodeColumn(st, c, slots, v.valid));
      return D.makeData({ type: p.arrowType as arrow.Struct, length: slots, nullCount: slots - k, nullBitmap: bitmap(v, slots), children });
    }
    default:
      throw new D.PaimonError("UNSUPPORTED", `column ${p.what}: ${D.typeToString(type)} in an ORC data file`);
  }
}

function decodeBytes(st: StripeData, p: Plan, slots: number, v: Validity): arrow.Data {
  const col = p.column;
  const k = v.count;
  const enc = st.encodings[col] ?? 0;
  const offsets = new Int32Array(slots + 1);
  let bytes: Uint8Array;
  if (k === 0) bytes = new Uint8Array(0);
  else if (enc === 1 || enc === 3) {
    // dictionary: entry lengths, entry bytes, per value an index
    const size = st.dictionarySizes[col] ?? 0;
    const lengths = ints(st, col, StreamKind.LENGTH, size, false, p.what);
    const dict = size > 0 ? required(st, col, StreamKind.DICTIONARY_DATA, p.what) : new Uint8Array(0);
    const starts = new Int32Array(size + 1);
    for (let e = 0; e < size; e++) {
      const n = lengths.get(e);
      starts[e + 1] = starts[e]! + n;
      if (n < 0 || starts[e + 1]! > dict.length) throw corrupt(`ORC column ${p.what}: dictionary entry ${e} past the dictionary`);
    }
    const indices = ints(st, col, StreamKind.DATA, k, false, p.what);
    let total = 0;
    for (let j = 0; j < k; j++) {
      const e = indices.get(j); // (checked here: the copy below reads the low word)
      if (e < 0 || e >= size) throw corrupt(`ORC column ${p.what}: dictionary index ${e} of ${size}`);
      total += starts[e + 1]! - starts[e]!;
    }
    bytes = new Uint8Array(total);
    let end = 0;
    let j = 0;
    for (let i = 0; i < slots; i++) {
      if (!v.valid || v.valid[i]) {
        // (a byte loop: dictionary entries are short, and a subarray per value is an object per row)
        const e = indices.low(j++);
        for (let b = starts[e]!, stop = starts[e + 1]!; b < stop; b++) bytes[end++] = dict[b]!;
      }
      offsets[i + 1] = end;
    }
  } else {
    const lengths = ints(st, col, StreamKind.LENGTH, k, false, p.what);
    const data = required(st, col, StreamKind.DATA, p.what);
    let end = 0;
    let j = 0;
    for (let i = 0; i < slots; i++) {
      if (!v.valid || v.valid[i]) {
        const n = lengths.get(j++);
        if (n < 0 || end + n > data.length) throw corrupt(`ORC column ${p.what}: value of ${n} bytes past the DATA stream`);
        end += n;
      }
      offsets[i + 1] = end;
    }
    bytes = data.subarray(0, end);
  }
  // ORC pads CHAR(n) values with spaces; Java's reader (CharTreeReader) trims them off
  if (st.tail.types[col]!.kind === Kind.CHAR) bytes = trimSpaces(offsets, bytes, slots);
  return D.makeData({ type: p.arrowType as arrow.Utf8, length: slots, nullCount: slots - k, nullBitmap: bitmap(v, slots), valueOffsets: offsets, data: bytes });
}

/** The values of `offsets`/`bytes` without trailing spaces (offsets rewritten in place). */
function trimSpaces(offsets: Int32Array, bytes: Uint8Array, slots: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let end = 0;
  let start = offsets[0]!;
  for (let i = 0; i < slots; i++) {
    const next = offsets[i + 1]!;
    let stop = next;
    while (stop > start && bytes[stop - 1] === 0x20) stop--;
    out.set(bytes.subarray(start, stop), end);
    end += stop - start;
    start = next;
    offsets[i + 1] = end;
  }
  return out.subarray(0, end);
}

const POW10: bigint[] = Array.from({ length: 39 }, (_, i) => 10n ** BigInt(i));

function decodeDecimal(st: StripeData, p: Plan, slots: number, v: Validity): arrow.Data {
  const col = p.column;
  const k = v.count;
  const target = (p.type as { scale: number }).scale;
  const scales = ints(st, col, StreamKind.SECONDARY, k, true, p.what);
  const data = k > 0 ? required(st, col, StreamKind.DATA, p.what) : new Uint8Array(0);
  const out = new Int32Array(slots * 4);
  let pos = 0;
  let j = 0;
  const put = (i: number, value: bigint) => {
    for (let w = 0; w < 4; w++) out[4 * i + w] = Number(BigInt.asIntN(32, value >> BigInt(32 * w)));
  };
  for (let i = 0; i < slots; i++) {
    if (v.valid && !v.valid[i]) continue;
    // an unbounded zigzag varint: number arithmetic up to 7 bytes
    let u = 0;
    let scale = 1;
    let b = 0x80;
    const start = pos;
    let n = 0;
    for (; n < 7 && b & 0x80; n++) {
      if (pos >= data.length) throw corrupt(`ORC column ${p.what}: DATA ends inside a decimal`);
      b = data[pos++]!;
      u += (b & 0x7f) * scale;
      scale *= 128;
    }
    const s = scales.get(j++);
    const shift = target - s;
    if (shift < 0 || shift > 38) throw corrupt(`ORC column ${p.what}: decimal scale ${s} for DECIMAL scale ${target}`);
    const unscaled = u % 2 === 1 ? -(u + 1) / 2 : u / 2;
    if ((b & 0x80) === 0 && shift <= 15 && Math.abs(unscaled) * 10 ** shift <= Number.MAX_SAFE_INTEGER) {
      let value = unscaled * 10 ** shift;
      const negative = value < 0;
      if (negative) value = -value;
      const lo = value % 4294967296;
      const hi = (value - lo) / 4294967296;
      if (!negative) {
        out[4 * i] = lo | 0;
        out[4 * i + 1] = hi | 0;
      } else {
        // two's complement over 128 bits
        const nlo = (4294967296 - lo) % 4294967296;
        const nhi = lo === 0 ? (4294967296 - hi) % 4294967296 : 4294967295 - hi;
        out[4 * i] = nlo | 0;
        out[4 * i + 1] = nhi | 0;
        out[4 * i + 2] = -1;
        out[4 * i + 3] = -1;
      }
      continue;
    }
    pos = start;
    let big = 0n;
    let sh = 0n;
    for (let m = 0; ; m++) {
      if (pos >= data.length || m > 19) throw corrupt(`ORC column ${p.what}: malformed decimal varint`);
      const c = data[pos++]!;
      big |= BigInt(c & 0x7f) << sh;
      sh += 7n;
      if ((c & 0x80) === 0) break;
    }
    put(i, ((big >> 1n) ^ -(big & 1n)) * POW10[shift]!);
  }
  return fixed(p, slots, v, new Uint32Array(out.buffer));
}

/** Zones whose offset is 0 at every instant (Paimon's legacy LTZ values need no shift back). */
const UTC_ZONES = new Set(["", "UTC", "GMT", "Z", "Etc/UTC", "Etc/GMT", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu", "GMT0", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich"]);

/**
 * Seconds since the epoch → the same plus the offset of time zone `zone` at that instant (its
 * wall clock read as UTC), through Intl; offsets cached per minute.
 */
function zoneShift(zone: string, what: string): (seconds: number) => number {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", era: "short", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
  } catch {
    throw new D.PaimonError("UNSUPPORTED", `column ${what}: TIMESTAMP_LTZ values written in time zone '${zone}', which this runtime does not know`);
  }
  const offsets = new Map<number, number>();
  const date = new Date(0);
  return (seconds) => {
    const minute = Math.floor(seconds / 60);
    let offset = offsets.get(minute);
    if (offset === undefined) {
      const parts: Record<string, string> = {};
      for (const part of format.formatToParts(new Date(minute * 60000))) parts[part.type] = part.value;
      const year = parts.era === "BC" || parts.era === "B" ? 1 - Number(parts.year) : Number(parts.year);
      date.setTime(0);
      date.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
      date.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
      offset = date.getTime() / 1000 - minute * 60;
      offsets.set(minute, offset);
    }
    return seconds + offset;
  };
}

function decodeTimestamp(st: StripeData, p: Plan, slots: number, v: Validity): arrow.Data {
  const col = p.column;
  const k = v.count;
  const precision = (p.type as { precision: number }).precision;
  // ORC TIMESTAMP (Paimon TIMESTAMP) seconds count from 2015-01-01 00:00 in the writer's zone and
  // hold the instant of the wall clock there: the instant plus the zone's offset at it is the wall
  // clock, as Java's reader (in any zone) returns it. ORC TIMESTAMP_INSTANT (TIMESTAMP_LTZ)
  // seconds count from 2015-01-01 UTC; Java's legacy LTZ values (Timestamp.valueOf of the UTC
  // wall clock in the writer's zone) are the instant stored plus the zone's offset at it, as
  // Java's reader (in that zone) reads them back.
  const zone = st.writerTimezone;
  let base = EPOCH_2015;
  let shift: ((seconds: number) => number) | null = null;
  if (!UTC_ZONES.has(zone)) {
    if (st.tail.types[col]!.kind === Kind.TIMESTAMP) {
      shift = zoneShift(zone, p.what);
      base = 2 * EPOCH_2015 - shift(EPOCH_2015); // 2015-01-01 00:00 there
    } else if (p.type.kind === "TIMESTAMP_LTZ") {
      if (st.ltzLegacy === undefined) throw new D.PaimonError("UNSUPPORTED", `column ${p.what}: TIMESTAMP_LTZ values written in time zone ${zone} read without the table's orc.timestamp-ltz.legacy.type`);
      if (st.ltzLegacy) shift = zoneShift(zone, p.what);
    }
  }
  const seconds = ints(st, col, StreamKind.DATA, k, true, p.what);
  const nanos = ints(st, col, StreamKind.SECONDARY, k, false, p.what);
  const out = new Int32Array(slots * 2);
  const out64 = new BigInt64Array(out.buffer);
  const unit = precision === 0 ? 0 : precision <= 3 ? 1 : precision <= 6 ? 2 : 3;
  let j = 0;
  for (let i = 0; i < slots; i++) {
    if (v.valid && !v.valid[i]) continue;
    const code = nanos.get(j);
    const zeros = code & 7;
    let ns = Math.floor(code / 8);
    if (zeros !== 0) ns *= 10 ** (zeros + 1);
    if (ns > 999999999) throw corrupt(`ORC column ${p.what}: nanos ${ns}`);
    let s = seconds.get(j++) + base;
    // Java's writer truncates the seconds of a negative time toward zero (ORC TimestampTreeReader)
    if (s < 0 && ns > 999999) s -= 1;
    if (shift) s = shift(s);
    let value: number;
    if (unit === 3) {
      out64[i] = BigInt(s) * 1000000000n + BigInt(ns);
      continue;
    } else if (unit === 2) value = s * 1e6 + Math.floor(ns / 1000);
    else if (unit === 1) value = s * 1e3 + Math.floor(ns / 1e6);
    else value = s;
    const hi = Math.floor(value / 4294967296);
    out[2 * i] = (value - hi * 4294967296) | 0;
    out[2 * i + 1] = hi | 0;
  }
  return fixed(p, slots, v, out64);
}

// ---------------------------------------------------------------------------------------------
// Statistics (the metadata section: per stripe, per column) and stripe pruning
// ---------------------------------------------------------------------------------------------

const zigzag = (v: bigint): bigint => (v >> 1n) ^ -(v & 1n);

type StatValue = bigint | number | string;
/** ColumnStatistics sub-messages (orc_proto.proto) by field: name, and per field name and encoding. */
const STATISTICS: Record<number, [string, Record<number, [string, "sint" | "uint" | "double" | "string"]>]> = {
  2: ["int", { 1: ["min", "sint"], 2: ["max", "sint"], 3: ["sum", "sint"] }],
  3: ["double", { 1: ["min", "double"], 2: ["max", "double"], 3: ["sum", "double"] }],
  4: ["string", { 1: ["min", "string"], 2: ["max", "string"], 3: ["sum", "sint"], 4: ["lowerBound", "string"], 5: ["upperBound", "string"] }],
  6: ["decimal", { 1: ["min", "string"], 2: ["max", "string"], 3: ["sum", "string"] }],
  7: ["date", { 1: ["min", "sint"], 2: ["max", "sint"] }],
  8: ["binary", { 1: ["sum", "sint"] }],
  9: ["timestamp", { 1: ["min", "sint"], 2: ["max", "sint"], 3: ["minUtc", "sint"], 4: ["maxUtc", "sint"], 5: ["minNanos", "uint"], 6: ["maxNanos", "uint"] }],
};

/** One column's ORC ColumnStatistics, decoded: numberOfValues, hasNull and the typed part present (integers as bigints). */
export interface OrcColumnStatistics {
  values?: number;
  hasNull?: boolean;
  [kind: string]: Record<string, StatValue> | number | boolean | undefined;
}

function decodeStatistics(p: Proto): OrcColumnStatistics {
  const out: OrcColumnStatistics = {};
  for (const f of p.fields()) {
    if (f.field === 1 && f.wire === 0) out.values = f.value;
    else if (f.field === 10 && f.wire === 0) out.hasNull = f.value !== 0;
    const spec = STATISTICS[f.field];
    if (!spec || !f.sub) continue;
    const part: Record<string, StatValue> = {};
    for (const g of f.sub.fields()) {
      const [name, enc] = spec[1][g.field] ?? [];
      if (!name) continue;
      if (enc === "string" && g.sub) part[name] = g.sub.string();
      else if (enc === "double" && g.wire === 1) part[name] = new DataView(f.sub.buf.buffer, f.sub.buf.byteOffset + g.at, 8).getFloat64(0, true);
      else if (enc === "sint" && g.wire === 0) part[name] = zigzag(f.sub.bigVarint(g.at));
      else if (enc === "uint" && g.wire === 0) part[name] = g.value;
    }
    out[spec[0]] = part;
  }
  return out;
}

/** The file statistics of an ORC file (its footer's, per ORC column id), decoded. */
export async function readOrcFileStatistics(bytes: Uint8Array): Promise<OrcColumnStatistics[]> {
  const tail = await readOrcTail(bytes);
  const { footerLength, psStart } = readPostscript(bytes);
  const out: OrcColumnStatistics[] = [];
  for (const f of new Proto(decompress(tail, bytes.subarray(psStart - footerLength, psStart), "footer")).fields()) if (f.field === 7 && f.sub) out.push(decodeStatistics(f.sub));
  return out;
}

/**
 * Per stripe the bloom filter streams of an ORC file (BLOOM_FILTER 7, BLOOM_FILTER_UTF8 8), in
 * stripe order, decompressed, with their columns' bloomEncoding.
 */
export async function readOrcBloomFilterStreams(bytes: Uint8Array): Promise<Array<Array<{ column: number; kind: number; bloomEncoding: number; bytes: Uint8Array }>>> {
  const tail = await readOrcTail(bytes);
  return tail.stripes.map((s, i) => {
    const st = readStripe(tail, bytes, s, i, undefined);
    const out: Array<{ column: number; kind: number; bloomEncoding: number; bytes: Uint8Array }> = [];
    for (const [column, byKind] of st.streams) {
      for (const [kind, at] of byKind) if (kind === 7 || kind === BLOOM_FILTER_UTF8) out.push({ column, kind, bloomEncoding: st.bloomEncodings[column] ?? 0, bytes: decompress(tail, bytes.subarray(at[0], at[0] + at[1]), `column ${column} bloom filter`) });
    }
    return out.sort((a, b) => a.column - b.column || a.kind - b.kind);
  });
}

/** Per stripe the column encodings of an ORC file (DIRECT 0, DICTIONARY 1, DIRECT_V2 2, DICTIONARY_V2 3), by ORC column id. */
export async function readOrcEncodings(bytes: Uint8Array): Promise<number[][]> {
  const tail = await readOrcTail(bytes);
  return tail.stripes.map((s, i) => readStripe(tail, bytes, s, i, undefined).encodings);
}

const INTEGER_KINDS = new Set(["TINYINT", "SMALLINT", "INT", "BIGINT"]);

/**
 * One column's ORC ColumnStatistics as predicate statistics of Paimon type `type` over `rows`
 * rows: the null count (rows − numberOfValues, for top-level columns) and min/max only where the
 * column's ORC kind and the type order values as the predicate does: integers, dates, floats
 * (IntegerStatistics, DateStatistics, DoubleStatistics) and VARCHAR/STRING (StringStatistics,
 * UTF-8 byte order; orc-core's lowerBound/upperBound stand in for min/max it truncated).
 */
function orcColumnStats(p: Proto, type: DataType, orcKind: number, rows: number): ColumnStats {
  const s = decodeStatistics(p);
  const k = type.kind;
  let part: Record<string, StatValue> | undefined;
  if (INTEGER_KINDS.has(k) && orcKind >= Kind.BYTE && orcKind <= Kind.LONG) part = s.int as typeof part;
  else if ((k === "FLOAT" || k === "DOUBLE") && (orcKind === Kind.FLOAT || orcKind === Kind.DOUBLE)) part = s.double as typeof part;
  else if (k === "VARCHAR" && (orcKind === Kind.STRING || orcKind === Kind.VARCHAR)) part = s.string as typeof part;
  else if (k === "DATE" && orcKind === Kind.DATE) part = s.date as typeof part;
  let min = part?.min ?? part?.lowerBound ?? null;
  let max = part?.max ?? part?.upperBound ?? null;
  // (integers decode as bigints: BIGINT's canonical value; the narrower kinds' and DATE's are numbers)
  if (typeof min === "bigint" && k !== "BIGINT") min = Number(min);
  if (typeof max === "bigint" && k !== "BIGINT") max = Number(max);
  return { min, max, nullCount: s.values === undefined ? null : rows - s.values };
}

/** Per stripe, per ORC column id, the ColumnStatistics message (the metadata section; [] when the file has none). */
function stripeStatistics(tail: Tail, bytes: Uint8Array): Proto[][] {
  const [start, end] = tail.metadata;
  if (end <= start) return [];
  const out: Proto[][] = [];
  for (const f of new Proto(decompress(tail, bytes.subarray(start, end), "metadata")).fields()) {
    if (f.field !== 1 || !f.sub) continue;
    const columns: Proto[] = [];
    for (const g of f.sub.fields()) if (g.field === 1 && g.sub) columns.push(g.sub);
    out.push(columns);
  }
  return out;
}

/** The read fields whose file column has the type read (no cast between statistics and predicate): name and plan. */
function statsColumns(options: OrcDataReadOptions, plans: (Plan | number | undefined)[]): Array<[string, Plan]> {
  const columns: Array<[string, Plan]> = [];
  options.fields.forEach((f, i) => {
    const pl = plans[i];
    if (typeof pl === "object" && D.typeToString(pl.type) === D.typeToString(f.type)) columns.push([f.name, pl]);
  });
  return columns;
}

/**
 * Per stripe whether `filter` may match its rows by the stripe's statistics (true where unknown:
 * no statistics, columns not in the file or of another type than read).
 */
function stripesMayMatch(tail: Tail, bytes: Uint8Array, filter: Predicate, columns: Array<[string, Plan]>): boolean[] {
  const all = stripeStatistics(tail, bytes);
  if (all.length !== tail.stripes.length) return tail.stripes.map(() => true);
  return tail.stripes.map((s, i) => {
    const stats: Record<string, ColumnStats> = {};
    for (const [name, pl] of columns) {
      const col = all[i]![pl.column];
      if (col) stats[name] = orcColumnStats(new Proto(col.buf, col.pos, col.end), pl.type, tail.types[pl.column]!.kind, s.rows);
    }
    return D.boundMayMatch(filter, { rowCount: s.rows, columns: stats });
  });
}

// ---------------------------------------------------------------------------------------------
// Row indexes: per row group of a stripe the start of each stream and the group's statistics
// ---------------------------------------------------------------------------------------------

const ROW_INDEX = 6;

/** One row group of a column's ROW_INDEX stream: its streams' positions and its statistics. */
interface RowIndexEntry {
  positions: number[];
  statistics: Proto | null;
}

/** A column's row index in stripe `st` (null without a ROW_INDEX stream). */
function rowIndexOf(st: StripeData, column: number): RowIndexEntry[] | null {
  const at = st.streams.get(column)?.get(ROW_INDEX);
  if (!at) return null;
  const entries: RowIndexEntry[] = [];
  for (const f of new Proto(decompress(st.tail, st.bytes.subarray(at[0], at[0] + at[1]), `column ${column} row index`)).fields()) {
    if (f.field !== 1 || !f.sub) continue;
    const entry: RowIndexEntry = { positions: [], statistics: null };
    for (const g of f.sub.fields()) {
      if (g.field === 1) Proto.packed(g, entry.positions);
      else if (g.field === 2 && g.sub) entry.statistics = g.sub;
    }
    entries.push(entry);
  }
  return entries;
}

/**
 * Where a row group starts in each stream of column `column` from its row index positions, in
 * the order orc-core's readers take them: PRESENT (when the stripe has one), then the streams of
 * the column's kind and encoding (DATA, LENGTH, SECONDARY; a dictionary column's entries are
 * not positioned). Compressed streams take two positions (chunk, offset in it), RLE streams one
 * more (values of the run before the group), boolean streams two more (bytes, bits).
 */
function streamStarts(st: StripeData, column: number, positions: readonly number[]): Map<number, StreamStart> {
  const out = new Map<number, StreamStart>();
  const compressed = st.tail.compression !== 0;
  let p = 0;
  const next = () => {
    if (p >= positions.length) throw corrupt(`ORC column ${column}: row index entry of ${positions.length} positions is too short`);
    return positions[p++]!;
  };
  // rle: 0 none, 1 integer / byte RLE, 2 boolean RLE
  const take = (kind: number, rle: 0 | 1 | 2) => {
    const chunk = compressed ? next() : -1;
    const offset = next();
    const skip = rle === 1 ? next() : rle === 2 ? next() * 8 + next() : 0;
    out.set(kind, { chunk, offset, skip });
  };
  if (st.streams.get(column)?.has(StreamKind.PRESENT)) take(StreamKind.PRESENT, 2);
  const enc = st.encodings[column] ?? 0;
  switch (st.tail.types[column]!.kind) {
    case Kind.BOOLEAN:
      take(StreamKind.DATA, 2);
      break;
    case Kind.BYTE:
    case Kind.SHORT:
    case Kind.INT:
    case Kind.LONG:
    case Kind.DATE:
      take(StreamKind.DATA, 1);
      break;
    case Kind.FLOAT:
    case Kind.DOUBLE:
      take(StreamKind.DATA, 0);
      break;
    case Kind.STRING:
    case Kind.VARCHAR:
    case Kind.CHAR:
      if (enc === 1 || enc === 3) take(StreamKind.DATA, 1);
      else {
        take(StreamKind.DATA, 0);
        take(StreamKind.LENGTH, 1);
      }
      break;
    case Kind.BINARY:
      take(StreamKind.DATA, 0);
      take(StreamKind.LENGTH, 1);
      break;
    case Kind.DECIMAL:
      take(StreamKind.DATA, 0);
      take(StreamKind.SECONDARY, 1);
      break;
    case Kind.TIMESTAMP:
    case Kind.TIMESTAMP_INSTANT:
      take(StreamKind.DATA, 1);
      take(StreamKind.SECONDARY, 1);
      break;
    case Kind.LIST:
    case Kind.MAP:
      take(StreamKind.LENGTH, 1);
      break;
  }
  return out;
}

/** The ORC columns a plan reads (its own and its children's). */
function orcColumnsOf(p: Plan, out: number[] = []): number[] {
  out.push(p.column);
  for (const c of p.children) orcColumnsOf(c, out);
  return out;
}

/**
 * The row groups of stripe `st` (`rows` rows) to read for `filter` by its row index: per group
 * whether the filter may match its statistics, and per read column its row index (to seek). Null
 * when the stripe cannot be read by row groups (no row index of a read or filter column).
 */
function rowGroupsOf(st: StripeData, rows: number, filter: Predicate, columns: Array<[string, Plan]>, plans: (Plan | number | undefined)[]): { mayMatch: boolean[]; indexes: Map<number, RowIndexEntry[]> } | null {
  const stride = st.tail.rowIndexStride;
  const groups = Math.ceil(rows / stride);
  const indexes = new Map<number, RowIndexEntry[]>();
  for (const pl of plans) {
    if (typeof pl !== "object") continue;
    for (const column of orcColumnsOf(pl)) {
      const index = rowIndexOf(st, column);
      if (!index || index.length !== groups) return null;
      indexes.set(column, index);
    }
  }
  const mayMatch = Array.from({ length: groups }, (_, g) => {
    const groupRows = Math.min(stride, rows - g * stride);
    const stats: Record<string, ColumnStats> = {};
    for (const [name, pl] of columns) {
      const entry = indexes.get(pl.column)![g]!;
      if (entry.statistics) stats[name] = orcColumnStats(new Proto(entry.statistics.buf, entry.statistics.pos, entry.statistics.end), pl.type, st.tail.types[pl.column]!.kind, groupRows);
    }
    return D.boundMayMatch(filter, { rowCount: groupRows, columns: stats });
  });
  // groups the statistics keep: dropped where the bloom filters of eq / in columns rule every value out
  if (mayMatch.some((m) => m)) {
    const blooms = bloomFiltersOf(st, groups, filter, columns);
    if (blooms.size > 0) for (let g = 0; g < groups; g++) if (mayMatch[g]) mayMatch[g] = bloomMayMatch(filter, g, blooms);
  }
  return { mayMatch, indexes };
}

// ---------------------------------------------------------------------------------------------
// Bloom filters: per row group of a column (BLOOM_FILTER_UTF8 streams, as orc-core 1.9 writes them)
// ---------------------------------------------------------------------------------------------

const BLOOM_FILTER_UTF8 = 8;

/** Per filter column (by name) its row groups' bloom filters and, per eq / in leaf on it, the hashes of its literals. */
type ColumnBlooms = Map<string, { filters: OrcBloomFilter[]; hashes: Map<Predicate, bigint[]> }>;

/**
 * The hash orc-core adds to a bloom filter for `value` of Paimon type `type` in a column of ORC
 * kind `orcKind` (null: values of this type are not tested: CHAR's padding, decimals, timestamps,
 * booleans). Integers, dates and TIME through getLongHash, floats by their double's bits (a FLOAT
 * value widened, as orc-core adds it), strings by their UTF-8 bytes, binary by its bytes.
 */
function bloomHashOf(type: DataType, orcKind: number, value: unknown): bigint | null {
  switch (type.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "TIME":
    case "BIGINT":
      return orcKind >= Kind.BYTE && orcKind <= Kind.LONG && (typeof value === "number" || typeof value === "bigint") ? orcLongHash(BigInt(value)) : null;
    case "DATE":
      return orcKind === Kind.DATE && typeof value === "number" ? orcLongHash(BigInt(value)) : null;
    case "FLOAT":
    case "DOUBLE":
      return (orcKind === Kind.FLOAT || orcKind === Kind.DOUBLE) && typeof value === "number" ? orcDoubleHash(value) : null;
    case "VARCHAR":
      return (orcKind === Kind.STRING || orcKind === Kind.VARCHAR) && typeof value === "string" ? murmur3Hash64(new TextEncoder().encode(value)) : null;
    case "BINARY":
    case "VARBINARY":
      return orcKind === Kind.BINARY && value instanceof Uint8Array ? murmur3Hash64(value) : null;
    default:
      return null;
  }
}

/** The eq / in leaves of `p`. */
function equalityLeaves(p: Predicate, out: Predicate[] = []): Predicate[] {
  if (p.kind === "leaf") {
    if (p.op === "eq" || p.op === "in") out.push(p);
  } else for (const c of p.children) equalityLeaves(c, out);
  return out;
}

/**
 * The bloom filters of stripe `st` (`groups` row groups) of the columns `filter` tests by eq / in
 * whose values they can rule out: BLOOM_FILTER_UTF8 streams of one filter per row group, in an
 * encoding orc-core reads (ORIGINAL or UTF8_UTC); other columns are not in the result.
 */
function bloomFiltersOf(st: StripeData, groups: number, filter: Predicate, columns: Array<[string, Plan]>): ColumnBlooms {
  const out: ColumnBlooms = new Map();
  for (const leaf of equalityLeaves(filter)) {
    if (leaf.kind !== "leaf") continue;
    const pl = columns.find(([name]) => name === leaf.field)?.[1];
    if (!pl) continue;
    const orcKind = st.tail.types[pl.column]!.kind;
    const hashes = leaf.literals.filter((v) => v !== null && v !== undefined).map((v) => bloomHashOf(pl.type, orcKind, v));
    if (hashes.some((h) => h === null)) continue;
    let entry = out.get(leaf.field);
    if (!entry) {
      const filters = bloomIndexOf(st, pl.column);
      if (!filters || filters.length !== groups) continue;
      out.set(leaf.field, (entry = { filters, hashes: new Map() }));
    }
    entry.hashes.set(leaf, hashes as bigint[]);
  }
  return out;
}

/** A column's BLOOM_FILTER_UTF8 stream: per row group its filter (null without one, in an encoding not read, or with a malformed filter). */
function bloomIndexOf(st: StripeData, column: number): OrcBloomFilter[] | null {
  const at = st.streams.get(column)?.get(BLOOM_FILTER_UTF8);
  if (!at || (st.bloomEncodings[column] ?? 0) > 1) return null;
  const filters: OrcBloomFilter[] = [];
  for (const f of new Proto(decompress(st.tail, st.bytes.subarray(at[0], at[0] + at[1]), `column ${column} bloom filter`)).fields()) {
    if (f.field !== 1 || !f.sub) continue;
    let functions = 0;
    let bits: Uint8Array | null = null;
    for (const g of f.sub.fields()) {
      if (g.field === 1 && g.wire === 0) functions = g.value;
      else if (g.field === 3 && g.sub) bits = g.sub.buf.subarray(g.sub.pos, g.sub.end);
    }
    const filter = bits && OrcBloomFilter.fromUtf8Bitset(bits, functions);
    if (!filter) return null;
    filters.push(filter);
  }
  return filters;
}

/** Whether `p` may match a row of row group `g` by the bloom filters (true where none tells: other operators, columns without filters). */
function bloomMayMatch(p: Predicate, g: number, blooms: ColumnBlooms): boolean {
  if (p.kind === "leaf") {
    const entry = blooms.get(p.field);
    const hashes = entry?.hashes.get(p);
    // (an in of nulls only: left to the row filter)
    if (!entry || !hashes || hashes.length === 0) return true;
    const filter = entry.filters[g]!;
    return hashes.some((h) => filter.testHash(h));
  }
  return p.kind === "and" ? p.children.every((c) => bloomMayMatch(c, g, blooms)) : p.children.some((c) => bloomMayMatch(c, g, blooms));
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/**
 * Streams an ORC data file's rows as Arrow record batches of the read fields (at most
 * `batchSize` rows each). CORRUPT_FILE naming the file for bytes that are not such a file.
 */
export async function* readOrcDataBatches(bytes: Uint8Array, options: OrcDataReadOptions): AsyncGenerator<arrow.RecordBatch> {
  const name = options.fileName;
  const named = (e: unknown): PaimonError => {
    if (e instanceof D.PaimonError) return e.message.startsWith(name) ? e : new D.PaimonError(e.code, `${name}: ${e.message}`, { cause: e });
    const message = e instanceof OrcRleError || e instanceof RangeError ? `malformed ORC data: ${e.message}` : `cannot read ORC data: ${(e as Error)?.message ?? String(e)}`;
    return new D.PaimonError("CORRUPT_FILE", `${name}: ${message}`, { cause: e });
  };
  let tail: Tail;
  let plans: (Plan | number | undefined)[];
  try {
    tail = await readOrcTail(bytes);
    plans = planColumns(tail, options);
  } catch (e) {
    throw named(e);
  }
  const casts = await D.columnCasts(options.fields, options.fileFields);
  const schema = new D.Schema(options.fields.map((f) => D.readArrowField(f)));
  const filterColumns = options.filter ? statsColumns(options, plans) : [];
  let mayMatch: boolean[] | null = null;
  try {
    if (options.filter) mayMatch = stripesMayMatch(tail, bytes, options.filter, filterColumns);
  } catch (e) {
    throw named(e);
  }
  /** The read fields of `slots` rows of a stripe (from its start, or where `st.seek` says). */
  const decode = (st: StripeData, slots: number): arrow.RecordBatch => {
    const decoded: arrow.Data[] = [];
    const children = options.fields.map((f, i) => {
      const field = schema.fields[i]!;
      const pl = plans[i];
      if (pl === undefined) return D.makeNullData(field.type, slots);
      decoded[i] = typeof pl === "number" ? decoded[pl]! : decodeColumn(st, pl, slots, null);
      return D.readAs(decoded[i], field.type, casts[i]!, `${f.name} of ${name}`);
    });
    return D.recordBatch(schema, children, slots);
  };
  const slices = function* (batch: arrow.RecordBatch, rows: number): Generator<arrow.RecordBatch> {
    if (rows <= options.batchSize) yield batch;
    else for (let at = 0; at < rows; at += options.batchSize) yield batch.slice(at, Math.min(rows, at + options.batchSize));
  };
  for (const [index, s] of tail.stripes.entries()) {
    if (s.rows === 0) continue;
    if (mayMatch && !mayMatch[index]) {
      orcReadCounters.stripesPruned++;
      options.onSkip?.(s.rows);
      continue;
    }
    orcReadCounters.stripesRead++;
    let st: StripeData;
    let groups: ReturnType<typeof rowGroupsOf> = null;
    try {
      st = readStripe(tail, bytes, s, index, options.timestampLtzLegacy);
      if (options.filter && tail.rowIndexStride > 0 && s.indexLength > 0) groups = rowGroupsOf(st, s.rows, options.filter, filterColumns, plans);
    } catch (e) {
      throw named(e);
    }
    if (!groups || groups.mayMatch.every((m) => m)) {
      if (groups) orcReadCounters.rowGroupsRead += groups.mayMatch.length;
      let batch: arrow.RecordBatch;
      try {
        batch = decode(st, s.rows);
      } catch (e) {
        throw named(e);
      }
      yield* slices(batch, s.rows);
      continue;
    }
    // row groups: runs of groups to read (seeking each stream to the run's first group) or skip
    const stride = tail.rowIndexStride;
    const { mayMatch: keep, indexes } = groups;
    for (let g = 0; g < keep.length; ) {
      let end = g + 1;
      while (end < keep.length && keep[end] === keep[g]) end++;
      const first = g * stride;
      const rows = Math.min(s.rows, end * stride) - first;
      if (!keep[g]) {
        orcReadCounters.rowGroupsPruned += end - g;
        options.onSkip?.(rows);
      } else {
        orcReadCounters.rowGroupsRead += end - g;
        let batch: arrow.RecordBatch;
        try {
          const seek = new Map<number, Map<number, StreamStart>>();
          for (const [column, entries] of indexes) seek.set(column, streamStarts(st, column, entries[g]!.positions));
          batch = decode({ ...st, seek }, rows);
        } catch (e) {
          throw named(e);
        }
        yield* slices(batch, rows);
      }
      g = end;
    }
  }
}

/** Per read field its column plan (undefined: not in the file, nulls; or the index of an earlier read field of the same column). */
function planColumns(tail: Tail, options: OrcDataReadOptions): (Plan | number | undefined)[] {
  const root = tail.types[0]!;
  const seen = new Map<number, number>();
  return options.fields.map((f, i) => {
    const fileField = options.fileFields ? options.fileFields.find((ff) => ff.id === f.id) : f;
    const at = fileField ? root.fieldNames.indexOf(fileField.name) : -1;
    if (!fileField || at < 0) return undefined;
    const earlier = seen.get(at);
    if (earlier !== undefined) return earlier;
    seen.set(at, i);
    return plan(tail.types, root.subtypes[at]!, fileField.type, D.toArrowType(fileField.type), fileField.name);
  });
}
