// Skipping data files by their file indexes (`file-index.*`), as Java does: the scan tests the
// index embedded in a file's manifest entry; the reader also opens a standalone `<file>.index`
// before reading the file. Only a definite "no row can match" skips a file.
import { FILE_INDEX_PREAMBLE_BYTES, readFileIndexHeader, type FileIndexHeader } from "../fileindex/format.js";
import { fileIndexMayMatch } from "../fileindex/index.js";
import { LoadCache } from "../fs/load-cache.js";
import type { FileIO } from "../fs/file-io.js";
import { referencedFields, type Predicate } from "../predicate/predicate.js";
import type { DataFileMeta } from "../spec/manifest.js";
import { typesEqual, type DataField } from "../spec/types.js";
import { indexFileOf } from "../table/paths.js";

/** False when the index embedded in the file's manifest entry rules out `filter`. */
export function embeddedIndexMayMatch(file: DataFileMeta, filter: Predicate, fields: readonly DataField[]): boolean {
  return file.embeddedIndex === null || fileIndexMayMatch(file.embeddedIndex, filter, fields);
}

/**
 * False when the file's index, embedded or in `<dataFilePath>.index`, rules out `filter`. An
 * external index whose header lists none of the filter's columns is not read beyond its header
 * (cached: an append-deduplicate file's offset index is megabytes that a key filter never uses).
 */
export async function fileIndexMayMatchFile(io: FileIO, dataFilePath: string, file: DataFileMeta, filter: Predicate, fields: readonly DataField[]): Promise<boolean> {
  if (file.embeddedIndex === null) {
    const path = externalIndexPath(dataFilePath, file);
    if (path === null) return true;
    const header = await externalIndexHeader(io, path);
    if (!referencedFields(filter).some((column) => header.has(column))) return true;
  }
  const blob = await fileIndexBlob(io, dataFilePath, file);
  return blob === null || fileIndexMayMatch(blob, filter, fields);
}

/** The file's index blob: embedded in its manifest entry, or its `<dataFilePath>.index` extra file; null when it has none. */
export async function fileIndexBlob(io: FileIO, dataFilePath: string, file: DataFileMeta): Promise<Uint8Array | null> {
  if (file.embeddedIndex !== null) return file.embeddedIndex;
  const path = externalIndexPath(dataFilePath, file);
  return path === null ? null : io.readFile(path);
}

function externalIndexPath(dataFilePath: string, file: DataFileMeta): string | null {
  const name = indexFileOf(file.extraFiles);
  if (name === undefined) return null;
  return `${dataFilePath.slice(0, dataFilePath.lastIndexOf("/") + 1)}${name}`;
}

/** Headers of external index files (immutable) per FileIO, by path. */
const externalHeaders = new WeakMap<FileIO, LoadCache<FileIndexHeader>>();
const EXTERNAL_HEADERS_KEPT = 4096;
/** First read of an external index: most headers fit, else the rest of the header is read. */
const HEADER_PROBE_BYTES = 4096;

function externalIndexHeader(io: FileIO, path: string): Promise<FileIndexHeader> {
  let cache = externalHeaders.get(io);
  if (!cache) externalHeaders.set(io, (cache = new LoadCache(EXTERNAL_HEADERS_KEPT)));
  return cache.get(path, async () => {
    const size = await io.fileSize(path);
    let head = await io.readRange(path, 0, Math.min(size, HEADER_PROBE_BYTES));
    if (head.length >= FILE_INDEX_PREAMBLE_BYTES) {
      const headLength = new DataView(head.buffer, head.byteOffset, head.length).getInt32(12);
      if (headLength > head.length && headLength <= size) head = await io.readRange(path, 0, headLength);
    }
    return readFileIndexHeader(head, size);
  });
}

/**
 * Whether a file written with `fileFields` can be tested with `filter` over `fields`: every
 * column the filter names has the same id, name and type in both (the index names columns as
 * the file's schema did), so option-only schema changes keep indexes usable.
 */
export function indexColumnsMatch(filter: Predicate, fields: readonly DataField[], fileFields: readonly DataField[]): boolean {
  if (fields === fileFields) return true;
  return referencedFields(filter).every((name) => {
    const current = fields.find((f) => f.name === name);
    const old = current && fileFields.find((f) => f.id === current.id);
    return old !== undefined && old.name === name && typesEqual(old.type, current!.type);
  });
}
