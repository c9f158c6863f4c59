// Skipping data files by their file indexes (`file-index.*`), as Java does: the scan tests the
// index embedded in a file's manifest entry; the reader also opens a standalone `<file>.index`
// before reading the file. Only a definite "no row can match" skips a file.
import { fileIndexMayMatch } from "../fileindex/index.js";
import type { FileIO } from "../fs/file-io.js";
import { referencedFields, type Predicate } from "../predicate/predicate.js";
import type { DataFileMeta } from "../spec/manifest.js";
import { typesEqual, type DataField } from "../spec/types.js";
import { indexFileOf } from "../table/paths.js";

/** False when the index embedded in the file's manifest entry rules out `filter`. */
export function embeddedIndexMayMatch(file: DataFileMeta, filter: Predicate, fields: readonly DataField[]): boolean {
  return file.embeddedIndex === null || fileIndexMayMatch(file.embeddedIndex, filter, fields);
}

/** False when the file's index, embedded or in `<dataFilePath>.index`, rules out `filter`. */
export async function fileIndexMayMatchFile(io: FileIO, dataFilePath: string, file: DataFileMeta, filter: Predicate, fields: readonly DataField[]): Promise<boolean> {
  const blob = await fileIndexBlob(io, dataFilePath, file);
  return blob === null || fileIndexMayMatch(blob, filter, fields);
}

/** The file's index blob: embedded in its manifest entry, or its `<dataFilePath>.index` extra file; null when it has none. */
export async function fileIndexBlob(io: FileIO, dataFilePath: string, file: DataFileMeta): Promise<Uint8Array | null> {
  if (file.embeddedIndex !== null) return file.embeddedIndex;
  const name = indexFileOf(file.extraFiles);
  if (name === undefined) return null;
  const dir = dataFilePath.slice(0, dataFilePath.lastIndexOf("/") + 1);
  return io.readFile(`${dir}${name}`);
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
