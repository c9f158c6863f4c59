// The file-index container (Java `FileIndexFormat`, version 1; format reference §9.1): one
// blob per data file holding every index of every indexed column. All integers big-endian.
//
//   int64 magic | int32 version = 1 | int32 headLength | int32 columnCount
//   per column: UTF name | int32 indexCount | per index: UTF type | int32 start | int32 length
//   int32 redundantLength = 0 | body (the index payloads; `start` is absolute in the blob)
import { PaimonError } from "../error.js";
import { ByteReader, ByteWriter, modifiedUtf8 } from "../spec/data-stream.js";

export const FILE_INDEX_MAGIC = 1493475289347502n;
export const FILE_INDEX_VERSION = 1;

/** One column's index payloads, index types in the order Java iterates them. */
export interface ColumnIndexes {
  readonly column: string;
  readonly indexes: ReadonlyArray<{ readonly type: string; readonly bytes: Uint8Array }>;
}

/**
 * Serializes the container; header and body list the columns and their indexes in the
 * order given (Java keeps its input map's iteration order in both).
 */
export function serializeFileIndex(columns: readonly ColumnIndexes[]): Uint8Array {
  let indexCount = 0;
  let namesLength = 0;
  for (const c of columns) {
    namesLength += 2 + modifiedUtf8(c.column).length;
    for (const index of c.indexes) namesLength += 2 + modifiedUtf8(index.type).length;
    indexCount += c.indexes.length;
  }
  // magic, version, head length, column count, 8 per index, 4 per column, redundant length
  const headLength = 8 + 4 + 4 + 4 + indexCount * 8 + columns.length * 4 + 4 + namesLength;
  const starts = new Map<string, number>();
  let offset = headLength;
  for (const c of columns) {
    for (const index of c.indexes) {
      starts.set(`${c.column}\u0000${index.type}`, offset);
      offset += index.bytes.length;
    }
  }
  const out = new ByteWriter().i64(FILE_INDEX_MAGIC).i32(FILE_INDEX_VERSION).i32(headLength).i32(columns.length);
  for (const c of columns) {
    out.utf(c.column).i32(c.indexes.length);
    for (const index of c.indexes) out.utf(index.type).i32(starts.get(`${c.column}\u0000${index.type}`)!).i32(index.bytes.length);
  }
  out.i32(0);
  for (const c of columns) for (const index of c.indexes) out.bytes(index.bytes);
  return out.toBytes();
}

/** Where one index payload lies in the blob. */
export interface IndexLocation {
  readonly start: number;
  readonly length: number;
}

/** Bytes of the container before the header's own fields (magic, version, head length). */
export const FILE_INDEX_PREAMBLE_BYTES = 16;

/** The parsed header: column → index type → payload location. */
export type FileIndexHeader = ReadonlyMap<string, ReadonlyMap<string, IndexLocation>>;

/**
 * Parses and validates the container header (CORRUPT_FILE when malformed). `blob` may be a prefix
 * holding at least the header of a container of `totalLength` bytes.
 */
export function readFileIndexHeader(blob: Uint8Array, totalLength = blob.length): FileIndexHeader {
  const r = new ByteReader(blob, "file index");
  if (r.i64() !== FILE_INDEX_MAGIC) throw r.corrupt("bad magic (not a Paimon file index)");
  const version = r.i32();
  if (version !== FILE_INDEX_VERSION) throw r.corrupt(`unsupported version ${version}`);
  const headLength = r.i32();
  if (headLength < 20 || headLength > blob.length) throw r.corrupt(`head length ${headLength} outside the blob`);
  const head = new ByteReader(blob, "file index header", r.pos, headLength);
  const columnCount = head.i32();
  if (columnCount < 0) throw head.corrupt(`negative column count ${columnCount}`);
  const header = new Map<string, Map<string, IndexLocation>>();
  for (let i = 0; i < columnCount; i++) {
    const column = head.utf();
    const indexCount = head.i32();
    if (indexCount < 0) throw head.corrupt(`negative index count for column ${column}`);
    const indexes = header.get(column) ?? new Map<string, IndexLocation>();
    header.set(column, indexes);
    for (let j = 0; j < indexCount; j++) {
      const type = head.utf();
      const start = head.i32();
      const length = head.i32();
      // start -1 marks an index without payload (nothing known about the column)
      if (start !== -1 && (start < 0 || length < 0 || start + length > totalLength))
        throw head.corrupt(`index ${type} of column ${column} at [${start}, ${start + length}) is outside ${totalLength} bytes`);
      indexes.set(type, { start, length });
    }
  }
  const redundant = head.i32();
  if (redundant < 0) throw head.corrupt(`negative redundant length ${redundant}`);
  return header;
}

/** The payload bytes of one index (a view into `blob`), or null for an empty index. */
export function indexPayload(blob: Uint8Array, location: IndexLocation): Uint8Array | null {
  if (location.start < 0) return null;
  if (location.start + location.length > blob.length) throw new PaimonError("CORRUPT_FILE", "file index payload outside the blob");
  return blob.subarray(location.start, location.start + location.length);
}
