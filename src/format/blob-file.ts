// Paimon BLOB files (`.blob`, Java 1.4.2 `BlobFormatWriter` / `BlobFileMeta`, spec "File Format -
// BLOB"): the values of one BLOB column of a data-evolution table, one entry per row:
//
//   entry*  = int32 LE magic 1481511375 | value bytes | int64 LE entry length (value + 16) | uint32 LE CRC32
//             (the CRC covers magic, value and length; a null value has no entry)
//   index   = the entry lengths, -1 for null, delta-encoded zig-zag varints (Java `DeltaVarintCompressor`)
//   footer  = int32 LE index length | byte version 1
//
// And serialized `BlobDescriptor`s (what `blob-as-descriptor=true` returns, and what descriptor
// fields store inline): byte version 2 | int64 LE magic "BLOBDESC" | int32 LE uri length | uri
// UTF-8 | int64 LE offset | int64 LE length.
// Part of the lazily imported data-evolution chunk: only types are imported, the query bundle's
// functions come in as `BlobDeps`.
import type { PaimonError } from "../error.js";
import type { crc32 } from "../spec/avro.js";

/** What this module uses of the query bundle. */
export interface BlobDeps {
  PaimonError: typeof PaimonError;
  crc32: typeof crc32;
}

/** Java `BlobFormatWriter.MAGIC_NUMBER`. */
export const BLOB_MAGIC = 1481511375;
/** Magic, length and CRC around each value. */
const ENTRY_OVERHEAD = 16;
/** Java `BlobDescriptor.MAGIC` ("BLOBDESC") and `CURRENT_VERSION`. */
const DESCRIPTOR_MAGIC = 0x424c4f4244455343n;
const DESCRIPTOR_VERSION = 2;

/** Where each row's value lies in a blob file: `offsets[i]` of the value bytes (after the magic), -1 for null. */
export interface BlobFileIndex {
  readonly offsets: readonly number[];
  /** Value lengths (without the entry's 16 bytes), -1 for null. */
  readonly lengths: readonly number[];
}

/** Bytes of the footer (index length and version) at the end of a blob file. */
export const BLOB_FOOTER_LENGTH = 5;

/** The index length a blob file's last 5 bytes declare (CORRUPT_FILE naming `file` when the version is not 1). */
export function blobIndexLength(footer: Uint8Array, fileSize: number, file: string, D: BlobDeps): number {
  if (footer.length !== BLOB_FOOTER_LENGTH) throw new D.PaimonError("CORRUPT_FILE", `blob file ${file}: ${fileSize} bytes, too short for its footer`);
  const version = footer[4];
  if (version !== 1) throw new D.PaimonError("CORRUPT_FILE", `blob file ${file}: unsupported version ${version} (Java 1.4.2 writes 1)`);
  const length = new DataView(footer.buffer, footer.byteOffset, 4).getInt32(0, true);
  if (length < 0 || length > fileSize - BLOB_FOOTER_LENGTH) throw new D.PaimonError("CORRUPT_FILE", `blob file ${file}: index length ${length} outside the file's ${fileSize} bytes`);
  return length;
}

/**
 * The value positions of a blob file from its index bytes: checked to hold `rows` entries whose
 * lengths add up to the bytes before the index (CORRUPT_FILE naming `file` otherwise).
 */
export function parseBlobIndex(index: Uint8Array, fileSize: number, rows: number, file: string, D: BlobDeps): BlobFileIndex {
  const corrupt = (detail: string) => new D.PaimonError("CORRUPT_FILE", `blob file ${file}: ${detail}`);
  const offsets: number[] = [];
  const lengths: number[] = [];
  let previous = 0n;
  let offset = 0;
  for (let at = 0; at < index.length; ) {
    let raw = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= index.length) throw corrupt("index ends inside a varint");
      if (shift > 63n) throw corrupt("index varint longer than 64 bits");
      const b = index[at++]!;
      raw |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
    }
    raw = BigInt.asUintN(64, raw);
    const delta = (raw & 1n) === 0n ? raw >> 1n : ~(raw >> 1n);
    const length = BigInt.asIntN(64, previous + delta);
    previous = length;
    if (length === -1n) {
      offsets.push(-1);
      lengths.push(-1);
      continue;
    }
    if (length < BigInt(ENTRY_OVERHEAD) || length > BigInt(fileSize)) throw corrupt(`entry ${lengths.length} has length ${length}`);
    offsets.push(offset + 4);
    lengths.push(Number(length) - ENTRY_OVERHEAD);
    offset += Number(length);
  }
  if (lengths.length !== rows) throw corrupt(`index holds ${lengths.length} entries, the file's metadata ${rows} rows`);
  if (offset + index.length + BLOB_FOOTER_LENGTH !== fileSize) throw corrupt(`entries of ${offset} bytes and an index of ${index.length} do not make the file's ${fileSize} bytes`);
  return { offsets, lengths };
}

/**
 * The value of one entry, `entry` being its bytes from the magic to the CRC: checked (magic,
 * length, CRC32 as Java's writer computes it); CORRUPT_FILE naming `file` and the row otherwise.
 */
export function blobEntryValue(entry: Uint8Array, row: number, file: string, D: BlobDeps): Uint8Array {
  const view = new DataView(entry.buffer, entry.byteOffset, entry.byteLength);
  const end = entry.length - 12;
  const corrupt = (detail: string) => new D.PaimonError("CORRUPT_FILE", `blob file ${file}: entry of row ${row}: ${detail}`);
  if (end < 4 || view.getInt32(0, true) !== BLOB_MAGIC) throw corrupt("bad magic number");
  if (view.getBigInt64(end, true) !== BigInt(entry.length)) throw corrupt(`length ${view.getBigInt64(end, true)} differs from the index's ${entry.length}`);
  if (D.crc32(entry.subarray(0, end + 8)) !== view.getUint32(end + 8, true)) throw corrupt("CRC32 mismatch");
  return entry.subarray(4, end);
}

/** Java `BlobDescriptor.serialize` (version 2). */
export function serializeBlobDescriptor(uri: string, offset: number, length: number): Uint8Array {
  const uriBytes = new TextEncoder().encode(uri);
  const out = new Uint8Array(29 + uriBytes.length);
  const view = new DataView(out.buffer);
  out[0] = DESCRIPTOR_VERSION;
  view.setBigInt64(1, DESCRIPTOR_MAGIC, true);
  view.setInt32(9, uriBytes.length, true);
  out.set(uriBytes, 13);
  view.setBigInt64(13 + uriBytes.length, BigInt(offset), true);
  view.setBigInt64(21 + uriBytes.length, BigInt(length), true);
  return out;
}

/** A parsed `BlobDescriptor`. */
export interface BlobDescriptor {
  readonly uri: string;
  readonly offset: number;
  readonly length: number;
}

/** Java `BlobDescriptor.deserialize` (versions 1 and 2); CORRUPT_FILE naming `what` when malformed. */
export function parseBlobDescriptor(bytes: Uint8Array, what: string, D: BlobDeps): BlobDescriptor {
  const corrupt = (detail: string) => new D.PaimonError("CORRUPT_FILE", `${what}: not a serialized BlobDescriptor (${detail})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 1) throw corrupt("empty");
  const version = bytes[0]!;
  if (version < 1 || version > DESCRIPTOR_VERSION) throw corrupt(`version ${version}`);
  let at = 1;
  if (version > 1) {
    if (bytes.length < 9 || view.getBigInt64(1, true) !== DESCRIPTOR_MAGIC) throw corrupt("missing magic header");
    at = 9;
  }
  if (bytes.length < at + 4) throw corrupt("truncated");
  const uriLength = view.getInt32(at, true);
  if (uriLength < 0 || bytes.length !== at + 4 + uriLength + 16) throw corrupt(`uri length ${uriLength} in ${bytes.length} bytes`);
  const uri = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(at + 4, at + 4 + uriLength));
  const offset = view.getBigInt64(at + 4 + uriLength, true);
  const length = view.getBigInt64(at + 12 + uriLength, true);
  if (offset < 0n || offset > BigInt(Number.MAX_SAFE_INTEGER) || length < -1n || length > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(`offset ${offset}, length ${length}`);
  return { uri, offset: Number(offset), length: Number(length) };
}
