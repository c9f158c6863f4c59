// Avro binary encoding and Object Container Files, self-contained and runtime-neutral
// (no Node modules): longs are bigint (full int64 range), records are plain objects,
// unions decode to the branch value (Paimon only uses ["null", T]), bytes are Uint8Array.
// Codecs: null, deflate (fflate), snappy (snappyjs + CRC32 trailer), zstandard (fzstd to
// decode any frame; @bokuweb/zstd-wasm to encode, with an uncompressed-block fallback).
// Spec: https://avro.apache.org/docs/1.11.1/specification/ (binary encoding, containers).

import { deflateSync, inflateSync } from "fflate";
import { decompress as zstdDecompress } from "fzstd";
import { loadZstd } from "./zstd.js";
import snappy from "snappyjs";
import { PaimonError } from "../error.js";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export type AvroSchema =
  | string
  | AvroSchema[]
  | { type: string; [key: string]: unknown };

type Node =
  | { t: "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string" }
  | { t: "record"; name: string; fields: Array<{ name: string; node: Node }> }
  | { t: "array"; items: Node }
  | { t: "map"; values: Node }
  | { t: "union"; branches: Node[] }
  | { t: "enum"; name: string; symbols: string[] }
  | { t: "fixed"; name: string; size: number };

const PRIMITIVES = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);

function schemaError(message: string): PaimonError {
  return new PaimonError("CORRUPT_FILE", `Invalid Avro schema: ${message}`);
}

/** Resolves a JSON Avro schema (named references, namespaces) into a tree. */
function compile(schema: unknown, names: Map<string, Node>, namespace: string | undefined): Node {
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
  const register = (node: Node & { name: string }): string | undefined => {
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
      const node: Node = { t: "record", name: String(o.name), fields: [] };
      const ns = register(node);
      if (!Array.isArray(o.fields)) throw schemaError(`record ${String(o.name)} without fields`);
      for (const f of o.fields as Array<Record<string, unknown>>) node.fields.push({ name: String(f.name), node: compile(f.type, names, ns) });
      return node;
    }
    case "enum": {
      const node: Node = { t: "enum", name: String(o.name), symbols: (o.symbols as string[]) ?? [] };
      register(node);
      return node;
    }
    case "fixed": {
      const node: Node = { t: "fixed", name: String(o.name), size: Number(o.size) };
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

/** A compiled schema that encodes/decodes plain JS values. */
export class AvroType {
  constructor(
    readonly schema: AvroSchema,
    /** @internal */ readonly node: Node,
  ) {}

  encode(value: unknown, out: AvroWriter = new AvroWriter()): AvroWriter {
    encodeNode(this.node, value, out, "");
    return out;
  }

  decode(reader: AvroReader): unknown {
    return decodeNode(this.node, reader);
  }
}

// ---------------------------------------------------------------------------------------------
// Binary encoding
// ---------------------------------------------------------------------------------------------

const TEXT = new TextEncoder();
const UTF8 = new TextDecoder();

export class AvroWriter {
  private buf = new Uint8Array(1024);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.length + n, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  reset(): void {
    this.length = 0;
  }

  writeLong(v: bigint | number): void {
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= -0x40000000 && v < 0x40000000) {
      this.writeInt(v);
      return;
    }
    let n = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
    this.ensure(10);
    while (n >= 0x80n) {
      this.buf[this.length++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.buf[this.length++] = Number(n);
  }

  writeInt(v: number): void {
    let n = ((v << 1) ^ (v >> 31)) >>> 0;
    this.ensure(5);
    while (n >= 0x80) {
      this.buf[this.length++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.length++] = n;
  }

  writeFloat(v: number): void {
    this.ensure(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
  }

  writeDouble(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  writeRaw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  writeBytes(bytes: Uint8Array): void {
    this.writeLong(bytes.length);
    this.writeRaw(bytes);
  }

  writeString(s: string): void {
    this.writeBytes(TEXT.encode(s));
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

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
    const s = UTF8.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
}

function typeError(path: string, expected: string, value: unknown): PaimonError {
  const shown = typeof value === "bigint" ? `${value}n` : value instanceof Uint8Array ? `Uint8Array(${value.length})` : JSON.stringify(value);
  return new PaimonError("INVALID_ARGUMENT", `Avro field '${path}' expects ${expected}, got ${shown}`);
}

function matches(node: Node, v: unknown): boolean {
  switch (node.t) {
    case "null":
      return v === null || v === undefined;
    case "boolean":
      return typeof v === "boolean";
    case "int":
      return typeof v === "number" && Number.isInteger(v);
    case "long":
      return typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));
    case "float":
    case "double":
      return typeof v === "number";
    case "bytes":
    case "fixed":
      return v instanceof Uint8Array;
    case "string":
    case "enum":
      return typeof v === "string";
    case "array":
      return Array.isArray(v);
    case "map":
      return v instanceof Map || (v !== null && typeof v === "object" && !Array.isArray(v));
    case "record":
      return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);
    case "union":
      return node.branches.some((b) => matches(b, v));
  }
}

function encodeNode(node: Node, v: unknown, out: AvroWriter, path: string): void {
  switch (node.t) {
    case "null":
      if (v !== null && v !== undefined) throw typeError(path, "null", v);
      return;
    case "boolean":
      if (typeof v !== "boolean") throw typeError(path, "boolean", v);
      out.writeRaw(new Uint8Array([v ? 1 : 0]));
      return;
    case "int":
      if (typeof v !== "number" || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw typeError(path, "int", v);
      out.writeInt(v);
      return;
    case "long":
      if (typeof v === "bigint") {
        if (BigInt.asIntN(64, v) !== v) throw typeError(path, "long", v);
        out.writeLong(v);
      } else if (typeof v === "number" && Number.isSafeInteger(v)) out.writeLong(v);
      else throw typeError(path, "long", v);
      return;
    case "float":
      if (typeof v !== "number") throw typeError(path, "float", v);
      out.writeFloat(v);
      return;
    case "double":
      if (typeof v !== "number") throw typeError(path, "double", v);
      out.writeDouble(v);
      return;
    case "bytes":
      if (!(v instanceof Uint8Array)) throw typeError(path, "bytes", v);
      out.writeBytes(v);
      return;
    case "fixed":
      if (!(v instanceof Uint8Array) || v.length !== node.size) throw typeError(path, `fixed(${node.size})`, v);
      out.writeRaw(v);
      return;
    case "string":
      if (typeof v !== "string") throw typeError(path, "string", v);
      out.writeString(v);
      return;
    case "enum": {
      const i = typeof v === "string" ? node.symbols.indexOf(v) : -1;
      if (i < 0) throw typeError(path, `one of ${node.symbols.join("|")}`, v);
      out.writeInt(i);
      return;
    }
    case "array": {
      if (!Array.isArray(v)) throw typeError(path, "array", v);
      if (v.length > 0) {
        out.writeLong(v.length);
        for (let i = 0; i < v.length; i++) encodeNode(node.items, v[i], out, `${path}[${i}]`);
      }
      out.writeInt(0);
      return;
    }
    case "map": {
      const entries = v instanceof Map ? [...v.entries()] : v !== null && typeof v === "object" ? Object.entries(v) : null;
      if (!entries) throw typeError(path, "map", v);
      if (entries.length > 0) {
        out.writeLong(entries.length);
        for (const [k, x] of entries) {
          out.writeString(String(k));
          encodeNode(node.values, x, out, `${path}.${String(k)}`);
        }
      }
      out.writeInt(0);
      return;
    }
    case "record": {
      if (v === null || typeof v !== "object") throw typeError(path, `record ${node.name}`, v);
      const o = v as Record<string, unknown>;
      for (const f of node.fields) encodeNode(f.node, o[f.name], out, path ? `${path}.${f.name}` : f.name);
      return;
    }
    case "union": {
      const i = node.branches.findIndex((b) => matches(b, v));
      if (i < 0) throw typeError(path, "a union branch", v);
      out.writeInt(i);
      encodeNode(node.branches[i]!, v, out, path);
      return;
    }
  }
}

function decodeNode(node: Node, r: AvroReader): unknown {
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
export type AvroCodec = "null" | "deflate" | "snappy" | "zstandard";

/** Maps Paimon compression option values to Avro codec names. */
export function avroCodecOf(compression: string | undefined | null): AvroCodec {
  const c = (compression ?? "zstd").toLowerCase();
  switch (c) {
    case "zstd":
    case "zstandard":
      return "zstandard";
    case "snappy":
      return "snappy";
    case "deflate":
    case "gzip":
    case "zlib":
      return "deflate";
    case "null":
    case "none":
    case "uncompressed":
      return "null";
    default:
      throw new PaimonError("UNSUPPORTED", `Unsupported manifest compression '${compression}' (supported: zstd, snappy, deflate, none)`);
  }
}

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

/** A valid zstd frame made of raw (stored) blocks: no compression, decodable by every zstd reader. */
export function zstdStoredFrame(data: Uint8Array): Uint8Array {
  const MAX_BLOCK = 128 * 1024;
  const nBlocks = Math.max(1, Math.ceil(data.length / MAX_BLOCK));
  const out = new Uint8Array(4 + 1 + 8 + nBlocks * 3 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  out[4] = 0b11100000; // FCS flag = 3 (8 bytes), single segment, no checksum, no dict
  view.setBigUint64(5, BigInt(data.length), true);
  let p = 13;
  for (let b = 0; b < nBlocks; b++) {
    const start = b * MAX_BLOCK;
    const size = Math.min(MAX_BLOCK, data.length - start);
    const last = b === nBlocks - 1 ? 1 : 0;
    const header = last | (0 << 1) | (size << 3); // block type 0 = raw
    out[p] = header & 0xff;
    out[p + 1] = (header >>> 8) & 0xff;
    out[p + 2] = (header >>> 16) & 0xff;
    p += 3;
    out.set(data.subarray(start, start + size), p);
    p += size;
  }
  return out;
}

async function compressBlock(codec: AvroCodec, data: Uint8Array, level: number | undefined): Promise<Uint8Array> {
  switch (codec) {
    case "null":
      return data;
    case "deflate":
      return deflateSync(data, { level: (level ?? 6) as 6 });
    case "snappy": {
      const c = snappy.compress(data);
      const out = new Uint8Array(c.length + 4);
      out.set(c, 0);
      new DataView(out.buffer).setUint32(c.length, crc32(data), false);
      return out;
    }
    case "zstandard": {
      const z = await loadZstd();
      return z ? z.compress(data, level ?? 1) : zstdStoredFrame(data);
    }
  }
}

function decompressBlock(codec: string, data: Uint8Array): Uint8Array {
  switch (codec) {
    case "null":
      return data;
    case "deflate":
      return inflateSync(data);
    case "snappy": {
      if (data.length < 4) throw new PaimonError("CORRUPT_FILE", "Snappy block without CRC");
      const body = data.subarray(0, data.length - 4);
      const out = snappy.uncompress(body);
      const expected = new DataView(data.buffer, data.byteOffset + data.length - 4, 4).getUint32(0, false);
      if (crc32(out) !== expected) throw new PaimonError("CORRUPT_FILE", "Snappy block CRC mismatch");
      return out;
    }
    case "zstandard":
      return zstdDecompress(data);
    default:
      throw new PaimonError("UNSUPPORTED", `Unsupported Avro codec '${codec}'`);
  }
}

// ---------------------------------------------------------------------------------------------
// Object container files
// ---------------------------------------------------------------------------------------------

const MAGIC = new Uint8Array([0x4f, 0x62, 0x6a, 0x01]); // "Obj" 1
const META_SCHEMA = compileSchema({ type: "map", values: "bytes" });
const SYNC_INTERVAL = 64000; // Java DataFileWriter default

export interface ContainerWriteOptions {
  codec?: AvroCodec;
  /** zstd level (default 1, Paimon `file.compression.zstd-level`) or deflate level. */
  level?: number;
  /** Fixed sync marker (default random). */
  syncMarker?: Uint8Array;
  /** Extra metadata entries. */
  metadata?: Record<string, string>;
}

/** Writes an Avro object container file holding `records` (encoded with `type`). */
export async function writeContainer(type: AvroType, records: Iterable<unknown>, options: ContainerWriteOptions = {}): Promise<Uint8Array> {
  const codec = options.codec ?? "zstandard";
  const sync = options.syncMarker ?? crypto.getRandomValues(new Uint8Array(16));
  if (sync.length !== 16) throw new PaimonError("INVALID_ARGUMENT", "Avro sync marker must be 16 bytes");
  const out = new AvroWriter();
  out.writeRaw(MAGIC);
  const meta = new Map<string, Uint8Array>();
  meta.set("avro.schema", TEXT.encode(JSON.stringify(type.schema)));
  meta.set("avro.codec", TEXT.encode(codec));
  for (const [k, v] of Object.entries(options.metadata ?? {})) meta.set(k, TEXT.encode(v));
  META_SCHEMA.encode(meta, out);
  out.writeRaw(sync);
  const block = new AvroWriter();
  let count = 0;
  const flush = async (): Promise<void> => {
    if (count === 0) return;
    const data = await compressBlock(codec, block.bytes(), options.level);
    out.writeLong(count);
    out.writeLong(data.length);
    out.writeRaw(data);
    out.writeRaw(sync);
    block.reset();
    count = 0;
  };
  for (const r of records) {
    type.encode(r, block);
    count++;
    if (block.length >= SYNC_INTERVAL) await flush();
  }
  await flush();
  return out.bytes().slice();
}

export interface ContainerContents {
  /** The writer schema embedded in the file. */
  schema: AvroSchema;
  codec: string;
  metadata: Map<string, Uint8Array>;
  records: unknown[];
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

function readContainerUnchecked(bytes: Uint8Array): ContainerContents {
  if (bytes.length < 4 || !MAGIC.every((b, i) => bytes[i] === b)) throw new PaimonError("CORRUPT_FILE", "not an Avro object container file (bad magic)");
  const r = new AvroReader(bytes, 4);
  const metadata = META_SCHEMA.decode(r) as Map<string, Uint8Array>;
  const schemaBytes = metadata.get("avro.schema");
  if (!schemaBytes) throw new PaimonError("CORRUPT_FILE", "Avro file without avro.schema");
  let schema: AvroSchema;
  try {
    schema = JSON.parse(UTF8.decode(schemaBytes)) as AvroSchema;
  } catch (e) {
    throw new PaimonError("CORRUPT_FILE", `Avro schema is not JSON: ${(e as Error).message}`);
  }
  const codecBytes = metadata.get("avro.codec");
  const codec = codecBytes ? UTF8.decode(codecBytes) : "null";
  const type = compileSchema(schema);
  const sync = r.readFixed(16);
  const records: unknown[] = [];
  while (r.pos < bytes.length) {
    const count = r.readLength();
    const size = r.readLength();
    if (count < 0 || size < 0 || r.pos + size + 16 > bytes.length) throw new PaimonError("CORRUPT_FILE", `truncated Avro block at byte ${r.pos}`);
    const raw = bytes.subarray(r.pos, r.pos + size);
    r.pos += size;
    const data = decompressBlock(codec, raw);
    const br = new AvroReader(data);
    for (let i = 0; i < count; i++) records.push(type.decode(br));
    if (br.pos !== data.length) throw new PaimonError("CORRUPT_FILE", `Avro block has ${data.length - br.pos} trailing bytes`);
    const marker = r.readFixed(16);
    if (!marker.every((b, i) => b === sync[i])) throw new PaimonError("CORRUPT_FILE", "Avro sync marker mismatch");
  }
  return { schema, codec, metadata, records };
}
