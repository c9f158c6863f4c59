// Avro binary decoding and Object Container File reading, self-contained and runtime-neutral
// (no Node modules): longs are bigint (full int64 range), records are plain objects,
// unions decode to the branch value (Paimon only uses ["null", T]), bytes are Uint8Array.
// Codecs: null, deflate (fflate, loaded on demand: decodeContainer), snappy (snappyjs + CRC32 trailer), zstandard (the zstd module
// once loaded, for frames that declare their size; else fzstd, any frame). Encoding and writing
// are in avro-write.ts (write-only, left out of query bundles).
// Spec: https://avro.apache.org/docs/1.11.1/specification/ (binary encoding, containers).

import { decompress as zstdDecompress } from "fzstd";
import { SnappyDecompressor } from "snappyjs/snappy_decompressor.js";
import { PaimonError } from "../error.js";
import { fflateLoaded, loadedFflate, loadFflate } from "./fflate.js";
import { declaredContentSize, loadedZstd } from "./zstd.js";
import { utf8Decoder } from "./utf8.js";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export type AvroSchema =
  | string
  | AvroSchema[]
  | { type: string; [key: string]: unknown };

export type AvroNode =
  | { t: "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string" }
  | { t: "record"; name: string; fields: Array<{ name: string; node: AvroNode }> }
  | { t: "array"; items: AvroNode }
  | { t: "map"; values: AvroNode }
  | { t: "union"; branches: AvroNode[] }
  | { t: "enum"; name: string; symbols: string[] }
  | { t: "fixed"; name: string; size: number };

const PRIMITIVES = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);

function schemaError(message: string): PaimonError {
  return new PaimonError("CORRUPT_FILE", `Invalid Avro schema: ${message}`);
}

/** Resolves a JSON Avro schema (named references, namespaces) into a tree. */
function compile(schema: unknown, names: Map<string, AvroNode>, namespace: string | undefined): AvroNode {
  if (typeof schema === "string") {
    if (PRIMITIVES.has(schema)) return { t: schema as "int" };
    const full = schema.includes(".") || !namespace ? schema : `${namespace}.${schema}`;
    const n = names.get(full) ?? names.get(schema);
    if (!n) throw schemaError(`unknown type '${schema}'`);
    return n;
  }
  if (Array.isArray(schema)) return { t: "union", branches: schema.map((s) => compile(s, names, namespace)) };
  if (schema === null || typeof schema !== "object") throw schemaError(JSON.stringify(schema));
  const o = schema as Record<string, unknown>;
  const type = o.type;
  if (typeof type !== "string") return compile(type, names, namespace);
  const register = (node: AvroNode & { name: string }): string | undefined => {
    const name = String(o.name);
    const ns = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : typeof o.namespace === "string" ? o.namespace : namespace;
    const full = name.includes(".") || !ns ? name : `${ns}.${name}`;
    names.set(full, node);
    if (!names.has(name)) names.set(name, node);
    return ns || undefined;
  };
  switch (type) {
    case "record":
    case "error": {
      const node: AvroNode = { t: "record", name: String(o.name), fields: [] };
      const ns = register(node);
      if (!Array.isArray(o.fields)) throw schemaError(`record ${String(o.name)} without fields`);
      for (const f of o.fields as Array<Record<string, unknown>>) node.fields.push({ name: String(f.name), node: compile(f.type, names, ns) });
      return node;
    }
    case "enum": {
      const node: AvroNode = { t: "enum", name: String(o.name), symbols: (o.symbols as string[]) ?? [] };
      register(node);
      return node;
    }
    case "fixed": {
      const node: AvroNode = { t: "fixed", name: String(o.name), size: Number(o.size) };
      register(node);
      return node;
    }
    case "array":
      return { t: "array", items: compile(o.items, names, namespace) };
    case "map":
      return { t: "map", values: compile(o.values, names, namespace) };
    default:
      if (PRIMITIVES.has(type)) return { t: type as "int" }; // logical types are annotations only
      return compile(type, names, namespace);
  }
}

export function compileSchema(schema: AvroSchema): AvroType {
  return new AvroType(schema, compile(schema, new Map(), undefined));
}

/** A compiled schema that decodes plain JS values (avro-write.ts `encodeAvro` encodes them). */
export class AvroType {
  constructor(
    readonly schema: AvroSchema,
    /** @internal */ readonly node: AvroNode,
  ) {}

  decode(reader: AvroReader): unknown {
    return decodeNode(this.node, reader);
  }
}

// ---------------------------------------------------------------------------------------------
// Binary decoding
// ---------------------------------------------------------------------------------------------

export class AvroReader {
  pos: number;
  private readonly view: DataView;

  constructor(
    readonly buf: Uint8Array,
    pos = 0,
    readonly end = buf.length,
  ) {
    this.pos = pos;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private eof(): never {
    throw new PaimonError("CORRUPT_FILE", `Unexpected end of Avro data at byte ${this.pos}`);
  }

  readLong(): bigint {
    let shift = 0n;
    let n = 0n;
    for (let i = 0; ; i++) {
      if (this.pos >= this.end || i >= 10) this.eof();
      const b = this.buf[this.pos++]!;
      n |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
    }
    n = BigInt.asUintN(64, n);
    return BigInt.asIntN(64, (n >> 1n) ^ -(n & 1n));
  }

  /** A long that must be a safe JS number (counts and lengths). */
  readLength(): number {
    // fast path for small values
    let n = 0;
    let shift = 0;
    const start = this.pos;
    for (let i = 0; i < 4; i++) {
      if (this.pos >= this.end) this.eof();
      const b = this.buf[this.pos++]!;
      n |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return (n >>> 1) ^ -(n & 1);
      shift += 7;
    }
    this.pos = start;
    const v = this.readLong();
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new PaimonError("CORRUPT_FILE", `Avro length ${v} is too large`);
    return Number(v);
  }

  readInt(): number {
    let n = 0;
    let shift = 0;
    for (let i = 0; ; i++) {
      if (this.pos >= this.end || i >= 5) this.eof();
      const b = this.buf[this.pos++]!;
      n |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
    }
    return (n >>> 1) ^ -(n & 1);
  }

  readFloat(): number {
    if (this.pos + 4 > this.end) this.eof();
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  readDouble(): number {
    if (this.pos + 8 > this.end) this.eof();
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  readFixed(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.end) this.eof();
    const v = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  readBytes(): Uint8Array {
    return this.readFixed(this.readLength());
  }

  readString(): string {
    const n = this.readLength();
    if (n < 0 || this.pos + n > this.end) this.eof();
    const s = utf8Decoder.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
}

function decodeNode(node: AvroNode, r: AvroReader): unknown {
  switch (node.t) {
    case "null":
      return null;
    case "boolean": {
      const b = r.readFixed(1)[0];
      return b !== 0;
    }
    case "int":
      return r.readInt();
    case "long":
      return r.readLong();
    case "float":
      return r.readFloat();
    case "double":
      return r.readDouble();
    case "bytes":
      return r.readBytes();
    case "fixed":
      return r.readFixed(node.size);
    case "string":
      return r.readString();
    case "enum": {
      const i = r.readInt();
      const s = node.symbols[i];
      if (s === undefined) throw new PaimonError("CORRUPT_FILE", `Avro enum index ${i} out of range`);
      return s;
    }
    case "array": {
      const out: unknown[] = [];
      for (;;) {
        let n = r.readLength();
        if (n === 0) return out;
        if (n < 0) {
          n = -n;
          r.readLength(); // block byte size
        }
        for (let i = 0; i < n; i++) out.push(decodeNode(node.items, r));
      }
    }
    case "map": {
      const out = new Map<string, unknown>();
      for (;;) {
        let n = r.readLength();
        if (n === 0) return out;
        if (n < 0) {
          n = -n;
          r.readLength();
        }
        for (let i = 0; i < n; i++) {
          const k = r.readString();
          out.set(k, decodeNode(node.values, r));
        }
      }
    }
    case "record": {
      const o: Record<string, unknown> = {};
      for (const f of node.fields) o[f.name] = decodeNode(f.node, r);
      return o;
    }
    case "union": {
      const i = r.readInt();
      const b = node.branches[i];
      if (!b) throw new PaimonError("CORRUPT_FILE", `Avro union branch ${i} out of range`);
      return decodeNode(b, r);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Codecs
// ---------------------------------------------------------------------------------------------

/** Avro codec names (Paimon `manifest.compression`: zstd → "zstandard"). */

let CRC_TABLE: Int32Array | null = null;
/** CRC-32 (IEEE, java.util.zip.CRC32) of `data` as an unsigned number. */
export function crc32(data: Uint8Array): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c;
    }
  }
  let crc = -1;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** A raw snappy block's content (snappyjs's decompressor only: its compressor is write-side). */
export function snappyUncompress(body: Uint8Array): Uint8Array {
  const decompressor = new SnappyDecompressor(body);
  const length = decompressor.readUncompressedLength();
  if (length < 0) throw new PaimonError("CORRUPT_FILE", "Invalid snappy block length");
  const out = new Uint8Array(length);
  if (!decompressor.uncompressToBuffer(out)) throw new PaimonError("CORRUPT_FILE", "Invalid snappy block");
  return out;
}

/** Largest declared block size the zstd module decompresses for Avro (manifests' blocks are far smaller). */
const MAX_WASM_AVRO_BLOCK = 64 << 20;

function decompressBlock(codec: string, data: Uint8Array): Uint8Array {
  switch (codec) {
    case "null":
      return data;
    case "deflate":
      return loadedFflate().inflateSync(data);
    case "snappy": {
      if (data.length < 4) throw new PaimonError("CORRUPT_FILE", "Snappy block without CRC");
      const body = data.subarray(0, data.length - 4);
      const out = snappyUncompress(body);
      const expected = new DataView(data.buffer, data.byteOffset + data.length - 4, 4).getUint32(0, false);
      if (crc32(out) !== expected) throw new PaimonError("CORRUPT_FILE", "Snappy block CRC mismatch");
      return out;
    }
    case "zstandard": {
      // by the zstd module where it is loaded (already compiled for the data files: a process's
      // first plan skips fzstd's cold JS) and the frame declares its size; fzstd otherwise, and
      // for what the module refuses (fzstd reports it)
      // (a manifest block is small: a larger declared size, maybe a corrupt header, is left to fzstd
      // rather than growing the shared wasm memory, which never shrinks)
      const size = declaredContentSize(data);
      const wasm = size === undefined || size > MAX_WASM_AVRO_BLOCK ? undefined : loadedZstd();
      if (wasm) {
        try {
          return wasm.decompress(data, size!);
        } catch {
          // below
        }
      }
      return zstdDecompress(data);
    }
    default:
      throw new PaimonError("UNSUPPORTED", `Unsupported Avro codec '${codec}'`);
  }
}

// ---------------------------------------------------------------------------------------------
// Object container files
// ---------------------------------------------------------------------------------------------

export const MAGIC = new Uint8Array([0x4f, 0x62, 0x6a, 0x01]); // "Obj" 1
export const META_SCHEMA = compileSchema({ type: "map", values: "bytes" });

export interface ContainerContents {
  /** The writer schema embedded in the file. */
  schema: AvroSchema;
  codec: string;
  metadata: Map<string, Uint8Array>;
  records: unknown[];
}

/**
 * {@link readContainer}, loading fflate first when the container's codec is `deflate` (the only
 * codec not loaded with the module). What the readers of Paimon's Avro files call.
 */
export async function decodeContainer(bytes: Uint8Array, fileName = "Avro file"): Promise<ContainerContents> {
  if (!fflateLoaded() && headerCodec(bytes) === "deflate") await loadFflate();
  return readContainer(bytes, fileName);
}

/** The `avro.codec` of a container's header, or undefined when the header cannot be read (readContainer reports why). */
export function headerCodec(bytes: Uint8Array): string | undefined {
  try {
    const codec = (META_SCHEMA.decode(new AvroReader(bytes, 4)) as Map<string, Uint8Array>).get("avro.codec");
    return codec && utf8Decoder.decode(codec);
  } catch {
    return undefined;
  }
}

/** Reads an Avro object container file with its embedded (writer) schema. CORRUPT_FILE on bad bytes. */
export function readContainer(bytes: Uint8Array, fileName = "Avro file"): ContainerContents {
  try {
    return readContainerUnchecked(bytes);
  } catch (e) {
    if (e instanceof PaimonError && (e.code === "CORRUPT_FILE" || e.code === "UNSUPPORTED"))
      throw new PaimonError(e.code, `${fileName}: ${e.message}`, { cause: e });
    throw new PaimonError("CORRUPT_FILE", `${fileName}: cannot read Avro container: ${(e as Error).message}`, { cause: e });
  }
}

/** A container's header: its writer schema (JSON and compiled), codec, metadata, and where its blocks start. */
export interface ContainerHeader {
  schema: AvroSchema;
  type: AvroType;
  codec: string;
  metadata: Map<string, Uint8Array>;
  sync: Uint8Array;
  /** Byte offset of the first block. */
  blocks: number;
}

/** Parses a container's header (CORRUPT_FILE without the file name: callers add it). */
export function readContainerHeader(bytes: Uint8Array): ContainerHeader {
  if (bytes.length < 4 || !MAGIC.every((b, i) => bytes[i] === b)) throw new PaimonError("CORRUPT_FILE", "not an Avro object container file (bad magic)");
  const r = new AvroReader(bytes, 4);
  const metadata = META_SCHEMA.decode(r) as Map<string, Uint8Array>;
  const schemaBytes = metadata.get("avro.schema");
  if (!schemaBytes) throw new PaimonError("CORRUPT_FILE", "Avro file without avro.schema");
  let schema: AvroSchema;
  try {
    schema = JSON.parse(utf8Decoder.decode(schemaBytes)) as AvroSchema;
  } catch (e) {
    throw new PaimonError("CORRUPT_FILE", `Avro schema is not JSON: ${(e as Error).message}`);
  }
  const codecBytes = metadata.get("avro.codec");
  const codec = codecBytes ? utf8Decoder.decode(codecBytes) : "null";
  const type = compileSchema(schema);
  const sync = r.readFixed(16);
  return { schema, type, codec, metadata, sync, blocks: r.pos };
}

/**
 * The blocks of a container after its header: record count and decompressed bytes of each, with
 * sync markers checked (CORRUPT_FILE without the file name). A caller that decodes a block must
 * check it consumed all of it ({@link checkBlockEnd}).
 */
export function* containerBlocks(bytes: Uint8Array, header: ContainerHeader): Generator<{ count: number; data: Uint8Array }> {
  const r = new AvroReader(bytes, header.blocks);
  while (r.pos < bytes.length) {
    const count = r.readLength();
    const size = r.readLength();
    if (count < 0 || size < 0 || r.pos + size + 16 > bytes.length) throw new PaimonError("CORRUPT_FILE", `truncated Avro block at byte ${r.pos}`);
    const raw = bytes.subarray(r.pos, r.pos + size);
    r.pos += size;
    const marker = r.readFixed(16);
    if (!marker.every((b, i) => b === header.sync[i])) throw new PaimonError("CORRUPT_FILE", "Avro sync marker mismatch");
    yield { count, data: decompressBlock(header.codec, raw) };
  }
}

/** CORRUPT_FILE when a decoded block left bytes over (its records do not match the schema). */
export function checkBlockEnd(reader: AvroReader, data: Uint8Array): void {
  if (reader.pos !== data.length) throw new PaimonError("CORRUPT_FILE", `Avro block has ${data.length - reader.pos} trailing bytes`);
}

function readContainerUnchecked(bytes: Uint8Array): ContainerContents {
  const header = readContainerHeader(bytes);
  const records: unknown[] = [];
  for (const { count, data } of containerBlocks(bytes, header)) {
    const br = new AvroReader(data);
    for (let i = 0; i < count; i++) records.push(header.type.decode(br));
    checkBlockEnd(br, data);
  }
  return { schema: header.schema, codec: header.codec, metadata: header.metadata, records };
}
