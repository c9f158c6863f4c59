// Avro binary encoding and Object Container File writing (write-only: the query path imports
// src/spec/avro.ts, which reads). Codecs: null, deflate (fflate), snappy (snappyjs + CRC32
// trailer), zstandard (@bokuweb/zstd-wasm, with an uncompressed-block fallback).
import { deflateSync } from "fflate";
import snappy from "snappyjs";
import { PaimonError } from "../error.js";
import { crc32, MAGIC, META_SCHEMA, type AvroNode, type AvroType } from "./avro.js";
import { loadZstd } from "./zstd.js";

const TEXT = new TextEncoder();

/** Appends `value` encoded with `type` to `out` (a new writer by default). */
export function encodeAvro(type: AvroType, value: unknown, out: AvroWriter = new AvroWriter()): AvroWriter {
  encodeNode(type.node, value, out, "");
  return out;
}

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

  /** A long given as its two's-complement words (`hi` signed, `lo` the low 32 bits): no bigint made. */
  writeLongWords(lo: number, hi: number): void {
    const sign = hi >> 31;
    let nlo = ((lo << 1) ^ sign) >>> 0;
    let nhi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
    this.ensure(10);
    while (nhi !== 0 || nlo >= 0x80) {
      this.buf[this.length++] = (nlo & 0x7f) | 0x80;
      nlo = ((nlo >>> 7) | (nhi << 25)) >>> 0;
      nhi >>>= 7;
    }
    this.buf[this.length++] = nlo;
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

function typeError(path: string, expected: string, value: unknown): PaimonError {
  const shown = typeof value === "bigint" ? `${value}n` : value instanceof Uint8Array ? `Uint8Array(${value.length})` : JSON.stringify(value);
  return new PaimonError("INVALID_ARGUMENT", `Avro field '${path}' expects ${expected}, got ${shown}`);
}

function matches(node: AvroNode, v: unknown): boolean {
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

function encodeNode(node: AvroNode, v: unknown, out: AvroWriter, path: string): void {
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

/** Bytes of encoded records per block (Java DataFileWriter default sync interval). */
export const AVRO_SYNC_INTERVAL = 64000;

export interface ContainerWriteOptions {
  codec?: AvroCodec;
  /** zstd level (default 1, Paimon `file.compression.zstd-level`) or deflate level. */
  level?: number;
  /** Fixed sync marker (default random). */
  syncMarker?: Uint8Array;
  /** Extra metadata entries. */
  metadata?: Record<string, string>;
}

/**
 * An Avro object container file built block by block: the header at construction, then blocks of
 * already encoded records (`addBlock`), compressed with the codec. What record-at-a-time writers
 * (`writeContainer`) and column-wise data-file writers share.
 */
export class ContainerWriter {
  private readonly out = new AvroWriter();
  private readonly sync: Uint8Array;
  private readonly codec: AvroCodec;

  constructor(
    schema: unknown,
    private readonly options: ContainerWriteOptions = {},
  ) {
    this.codec = options.codec ?? "zstandard";
    this.sync = options.syncMarker ?? crypto.getRandomValues(new Uint8Array(16));
    if (this.sync.length !== 16) throw new PaimonError("INVALID_ARGUMENT", "Avro sync marker must be 16 bytes");
    this.out.writeRaw(MAGIC);
    const meta = new Map<string, Uint8Array>();
    meta.set("avro.schema", TEXT.encode(JSON.stringify(schema)));
    meta.set("avro.codec", TEXT.encode(this.codec));
    for (const [k, v] of Object.entries(options.metadata ?? {})) meta.set(k, TEXT.encode(v));
    encodeAvro(META_SCHEMA, meta, this.out);
    this.out.writeRaw(this.sync);
  }

  /** Appends a block of `count` records encoded in `data` (nothing for an empty block). */
  async addBlock(count: number, data: Uint8Array): Promise<void> {
    if (count === 0) return;
    const compressed = await compressBlock(this.codec, data, this.options.level);
    this.out.writeLong(count);
    this.out.writeLong(compressed.length);
    this.out.writeRaw(compressed);
    this.out.writeRaw(this.sync);
  }

  /** Bytes written so far (the header and the blocks added). */
  get length(): number {
    return this.out.length;
  }

  /** The file's bytes (a copy). */
  bytes(): Uint8Array {
    return this.out.bytes().slice();
  }
}

/** Writes an Avro object container file holding `records` (encoded with `type`). */
export async function writeContainer(type: AvroType, records: Iterable<unknown>, options: ContainerWriteOptions = {}): Promise<Uint8Array> {
  return (await writeRollingContainers(type, records, Number.POSITIVE_INFINITY, options))[0]!.bytes;
}

/** Java's `RollingFileWriter.CHECK_ROLLING_RECORD_CNT`: how often a rolling writer looks at its file's size. */
const ROLLING_CHECK_RECORDS = 1000;

/**
 * `records` in Avro container files of about `targetSize` bytes, as Java Paimon's
 * `RollingFileWriterImpl` over its Avro writer: at every 1000th record (counted over the whole
 * call) the current file closes when the bytes it has written (header and finished blocks, Java's
 * `out.getPos()`) reach `targetSize`. At least one file (empty without records); each with how
 * many records it holds, in order.
 */
export async function writeRollingContainers(type: AvroType, records: Iterable<unknown>, targetSize: number, options: ContainerWriteOptions = {}): Promise<Array<{ bytes: Uint8Array; count: number }>> {
  const files: Array<{ bytes: Uint8Array; count: number }> = [];
  let container = new ContainerWriter(type.schema, options);
  const block = new AvroWriter();
  let inBlock = 0;
  let inFile = 0;
  let total = 0;
  const finishBlock = async () => {
    await container.addBlock(inBlock, block.bytes());
    block.reset();
    inBlock = 0;
  };
  for (const r of records) {
    encodeAvro(type, r, block);
    inBlock++;
    inFile++;
    total++;
    if (block.length >= AVRO_SYNC_INTERVAL) await finishBlock();
    if (total % ROLLING_CHECK_RECORDS === 0 && container.length >= targetSize) {
      await finishBlock();
      files.push({ bytes: container.bytes(), count: inFile });
      container = new ContainerWriter(type.schema, options);
      inFile = 0;
    }
  }
  if (inFile > 0 || files.length === 0) {
    await finishBlock();
    files.push({ bytes: container.bytes(), count: inFile });
  }
  return files;
}
