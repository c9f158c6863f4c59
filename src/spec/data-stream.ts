// Big-endian byte writer and reader in the shape of Java's DataOutputStream /
// DataInputStream, which file-index payloads and serialized commit messages are written with
// (little-endian on request, for formats that byte-reverse their values, as Roaring64Bitmap's).
// A read past the end (or any malformed structure) is a CORRUPT_FILE error naming what was
// being read.
import { PaimonError } from "../error.js";

/** A growable big-endian (or `littleEndian`) buffer (Java `DataOutputStream` over a `ByteArrayOutputStream`). */
export class ByteWriter {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  private pos = 0;

  constructor(private readonly littleEndian = false) {}

  get size(): number {
    return this.pos;
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + extra));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  /** Java `writeBoolean`: one byte, 1 or 0. */
  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }

  i16(v: number): this {
    this.ensure(2);
    this.view.setInt16(this.pos, v, this.littleEndian);
    this.pos += 2;
    return this;
  }

  i32(v: number): this {
    this.ensure(4);
    this.view.setInt32(this.pos, v, this.littleEndian);
    this.pos += 4;
    return this;
  }

  i64(v: bigint): this {
    this.ensure(8);
    this.view.setBigInt64(this.pos, BigInt.asIntN(64, v), this.littleEndian);
    this.pos += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** Java `writeUTF`: u16 length, then modified UTF-8. */
  utf(s: string): this {
    const encoded = modifiedUtf8(s);
    if (encoded.length > 0xffff) throw new PaimonError("INVALID_ARGUMENT", `name too long for Java writeUTF: ${s.slice(0, 40)}…`);
    return this.i16(encoded.length).bytes(encoded);
  }

  toBytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/** Java's modified UTF-8 (`DataOutput.writeUTF` body): NUL as C0 80, supplementary characters as two 3-byte surrogates. */
export function modifiedUtf8(s: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 1 && c <= 0x7f) out.push(c);
    else if (c <= 0x7ff) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Uint8Array.from(out);
}

/** A big-endian (or `littleEndian`) reader over a byte range (Java `DataInputStream`); `subject` names the structure in errors. */
export class ByteReader {
  private readonly view: DataView;
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    private readonly subject: string,
    start = 0,
    private readonly limit = bytes.length,
    private readonly littleEndian = false,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    if (start < 0 || limit > bytes.length || start > limit) throw this.corrupt(`range [${start}, ${limit}) outside ${bytes.length} bytes`);
  }

  /** The error for malformed bytes; readers of a structure may say more (where, what field). */
  corrupt(detail: string, cause?: unknown): PaimonError {
    return new PaimonError("CORRUPT_FILE", `${this.subject}: ${detail} at byte ${this.pos} of ${this.limit}`, cause === undefined ? undefined : { cause });
  }

  /** Bytes left before the limit. */
  get remaining(): number {
    return this.limit - this.pos;
  }

  private claim(n: number): number {
    const at = this.pos;
    if (n < 0 || at + n > this.limit) throw this.corrupt(`truncated: needs ${n} more bytes`);
    this.pos = at + n;
    return at;
  }

  u8(): number {
    return this.bytes[this.claim(1)]!;
  }

  i8(): number {
    return this.view.getInt8(this.claim(1));
  }

  i16(): number {
    return this.view.getInt16(this.claim(2), this.littleEndian);
  }

  i32(): number {
    return this.view.getInt32(this.claim(4), this.littleEndian);
  }

  i64(): bigint {
    return this.view.getBigInt64(this.claim(8), this.littleEndian);
  }

  bytesOf(n: number): Uint8Array {
    const at = this.claim(n);
    return this.bytes.subarray(at, at + n);
  }

  /** Java `readUTF` (modified UTF-8). */
  utf(): string {
    const n = this.view.getUint16(this.claim(2));
    const b = this.bytesOf(n);
    let s = "";
    for (let i = 0; i < b.length; ) {
      const c = b[i]!;
      if (c < 0x80) {
        s += String.fromCharCode(c);
        i += 1;
      } else if ((c & 0xe0) === 0xc0 && i + 1 < b.length) {
        s += String.fromCharCode(((c & 0x1f) << 6) | (b[i + 1]! & 0x3f));
        i += 2;
      } else if ((c & 0xf0) === 0xe0 && i + 2 < b.length) {
        s += String.fromCharCode(((c & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f));
        i += 3;
      } else throw this.corrupt("malformed modified UTF-8 name");
    }
    return s;
  }
}
