// Byte sources for Parquet files: whole files in memory, or random-access sources (object
// stores, HTTP range reads, FileIO) that return exactly the requested range.

import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";

/** A random-access byte source: `read` must return exactly `length` bytes from `offset`. */
export interface RandomAccessSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Used in error messages. */
  readonly name?: string;
}

export type ParquetSource = Uint8Array | ArrayBuffer | RandomAccessSource;

/** Normalized source used internally. */
export interface ByteSource {
  readonly size: number;
  readonly name: string;
  /** Whole content when it is in memory (enables zero-copy slicing). */
  readonly bytes?: Uint8Array;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export function toByteSource(source: ParquetSource, name?: string): ByteSource {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
    return {
      size: bytes.length,
      name: name ?? "<in-memory parquet>",
      bytes,
      read: async (offset, length) => bytes.subarray(offset, offset + length),
    };
  }
  if (!source || typeof source.read !== "function" || !Number.isFinite(source.size)) {
    throw new PaimonError("INVALID_ARGUMENT", "Parquet source must be bytes or { size, read(offset, length) }");
  }
  const label = name ?? source.name ?? "<parquet source>";
  return {
    size: source.size,
    name: label,
    read: async (offset, length) => {
      let out: Uint8Array;
      try {
        out = await source.read(offset, length);
      } catch (e) {
        if (e instanceof PaimonError) throw e;
        throw new PaimonError("IO_ERROR", `Reading ${length} bytes at ${offset} of ${label} failed: ${String((e as Error)?.message ?? e)}`, { cause: e });
      }
      if (!(out instanceof Uint8Array) || out.length !== length) {
        throw new PaimonError("IO_ERROR", `Short read of ${label}: wanted ${length} bytes at ${offset}, got ${out?.length ?? 0}`);
      }
      return out;
    },
  };
}

/** A random-access source over a file of a `FileIO` (size looked up when not given). */
export async function fileIOSource(io: FileIO, path: string, size?: number): Promise<RandomAccessSource> {
  const fileSize = size ?? (await io.fileSize(path));
  // The footer is read first, as one block from the end; on a small file that block holds the
  // column chunks too, which are then sliced from it instead of fetched again (a round trip over HTTP).
  let block: { offset: number; bytes: Uint8Array } | null = null;
  return {
    size: fileSize,
    name: path,
    read: async (offset, length) => {
      if (block !== null && offset >= block.offset && offset + length <= block.offset + block.bytes.length) {
        return block.bytes.subarray(offset - block.offset, offset - block.offset + length);
      }
      try {
        const bytes = await io.readRange(path, offset, length);
        if (block === null || bytes.length > block.bytes.length) block = { offset, bytes };
        return bytes;
      } catch (e) {
        // A file shorter than its recorded size was truncated: that is corruption, not an I/O hiccup.
        if (size !== undefined && e instanceof PaimonError && e.code === "IO_ERROR") {
          const actual = await io.fileSize(path).catch(() => -1);
          if (actual >= 0 && actual !== size) throw corrupt(path, `the file has ${actual} bytes but its metadata records ${size}`, e);
        }
        throw e;
      }
    },
  };
}

export function corrupt(name: string, detail: string, cause?: unknown): PaimonError {
  return new PaimonError("CORRUPT_FILE", `Corrupt Parquet file ${name}: ${detail}`, cause === undefined ? undefined : { cause });
}
