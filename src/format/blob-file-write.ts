// Writes Paimon BLOB files (`.blob`) as Java 1.4.2's `BlobFormatWriter` does (layout in
// src/format/blob-file.ts): per value an entry of magic, bytes, int64 LE entry length and the
// CRC32 of those; a null value has no entry and length -1 in the index (Java
// `DeltaVarintCompressor`: deltas of the lengths, zig-zag, varints); then the index length and
// version 1. Write path only (the reader's module stays in the lazy data-evolution chunk).
import { crc32 } from "../spec/avro.js";
import { BLOB_MAGIC } from "./blob-file.js";

/** Bytes around each value: magic (4), length (8), CRC32 (4). */
const ENTRY_OVERHEAD = 16;

/** Java `DeltaVarintCompressor.compress`: each value minus the previous one (the first as is), zig-zag encoded, as LEB128 varints. */
export function deltaVarints(values: readonly bigint[]): Uint8Array {
  const out: number[] = [];
  let previous = 0n;
  for (const v of values) {
    const delta = BigInt.asIntN(64, v - previous);
    previous = v;
    let z = BigInt.asUintN(64, (delta << 1n) ^ (delta >> 63n));
    while (z >= 0x80n) {
      out.push(Number(z & 0x7fn) | 0x80);
      z >>= 7n;
    }
    out.push(Number(z));
  }
  return Uint8Array.from(out);
}

/** One blob file being written: values added in row order, the file's bytes from `finish`. */
export class BlobFileWriter {
  private readonly entries: Uint8Array[] = [];
  private readonly lengths: bigint[] = [];
  /** Bytes of the entries so far (Java's `out.getPos()`, which `blob.target-file-size` is checked against after every value). */
  position = 0;

  get rowCount(): number {
    return this.lengths.length;
  }

  /** Appends one row's value (null: a null row). */
  add(value: Uint8Array | null): void {
    if (value === null) {
      this.lengths.push(-1n);
      return;
    }
    const entry = new Uint8Array(value.length + ENTRY_OVERHEAD);
    const view = new DataView(entry.buffer);
    view.setInt32(0, BLOB_MAGIC, true);
    entry.set(value, 4);
    view.setBigInt64(4 + value.length, BigInt(entry.length), true);
    view.setUint32(entry.length - 4, crc32(entry.subarray(0, entry.length - 4)), true);
    this.entries.push(entry);
    this.lengths.push(BigInt(entry.length));
    this.position += entry.length;
  }

  /** The whole file: entries, index, index length, version. */
  finish(): Uint8Array {
    const index = deltaVarints(this.lengths);
    const out = new Uint8Array(this.position + index.length + 5);
    let at = 0;
    for (const e of this.entries) {
      out.set(e, at);
      at += e.length;
    }
    out.set(index, at);
    at += index.length;
    new DataView(out.buffer).setInt32(at, index.length, true);
    out[at + 4] = 1;
    return out;
  }
}
