// BLOB columns of data-evolution tables (Java 1.4.2 `DataEvolutionSplitRead` with blob files,
// `BlobFormatReader`, `ColumnarRow.getBlob`). A BLOB column is stored either
//  * in `.blob` files (the default): one file per column and row range, rolled by
//    `blob.target-file-size`, so one data file's rows may be spread over several blob files of
//    consecutive first row ids (Java `SpecialFieldBunch`); a rewrite of the column adds newer
//    files for the same rows, and the newest wins; or
//  * inline in the data file as serialized `BlobDescriptor`s (`blob-descriptor-field`), pointing
//    at bytes anywhere.
// Values are read per output batch, for the rows a filter keeps only, so a read holds at most one
// batch of blob bytes. `blob-as-descriptor=true` returns descriptors (for `.blob` files Java's:
// the file's path, the value's offset and length) and reads no value. A descriptor's bytes are
// read only when its URI lies inside the table directory: paimon-rt never follows a path out of
// the table (UNSUPPORTED naming the URI). Part of the lazily imported data-evolution chunk.
import type * as arrow from "apache-arrow";
import { binaryAt, isValidAt } from "../arrow/values.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { BLOB_FOOTER_LENGTH, type BlobDeps, blobEntryValue, blobIndexLength, type BlobFileIndex, parseBlobDescriptor, parseBlobIndex, serializeBlobDescriptor } from "../format/blob-file.js";

/** What the BLOB reads use of the query bundle (through the data-evolution chunk's deps). */
export interface BlobReadDeps extends BlobDeps {
  makeData: typeof arrow.makeData;
}

/** Java `BlobFileFormat.isBlobFile`. */
export const isBlobFile = (fileName: string): boolean => fileName.endsWith(".blob");

/** A BLOB column of one row range: its values for some rows of the range (positions from the range's first row). */
export interface BlobColumn {
  read(rows: readonly number[]): Promise<arrow.Data>;
}

/** Largest Arrow Binary column (int32 offsets). */
const MAX_BINARY_BYTES = 0x7fffffff;

/** A Binary column of `values` (null: a null row); UNSUPPORTED past 2 GiB (read with a smaller batch size). */
export function binaryData(D: BlobReadDeps, type: arrow.DataType, values: ReadonlyArray<Uint8Array | null>, what: string): arrow.Data {
  const total = values.reduce((sum, v) => sum + (v?.length ?? 0), 0);
  if (total > MAX_BINARY_BYTES) throw new D.PaimonError("UNSUPPORTED", `${what}: ${total} bytes of BLOB values in one batch exceed an Arrow Binary column's 2 GiB; read with a smaller batchSize`);
  const data = new Uint8Array(total);
  const valueOffsets = new Int32Array(values.length + 1);
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  let at = 0;
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else {
      nullBitmap[i >> 3] |= 1 << (i & 7);
      data.set(v, at);
      at += v.length;
    }
    valueOffsets[i + 1] = at;
  });
  return D.makeData({ type: type as arrow.Binary, length: values.length, nullCount, nullBitmap, valueOffsets, data });
}

/** `length` null rows of a Binary `type` (placeholders while a filter decides which rows' values to read). */
export function nullBinary(D: BlobReadDeps, type: arrow.DataType, length: number): arrow.Data {
  return binaryData(D, type, new Array<null>(length).fill(null), "");
}

/**
 * The blob files of one BLOB column for the rows `[from, from + rows)`, as Java's
 * `SpecialFieldBunch` takes them (`files` sorted by first row id, newest first): of files with the
 * same first row id the newest, files overlapping the ones taken skipped (older rewrites),
 * consecutive first row ids; CORRUPT_FILE naming the files when they do not cover exactly the rows.
 */
export function blobBunch(files: readonly DataFileMeta[], from: bigint, rows: bigint, what: string, D: Pick<BlobReadDeps, "PaimonError">): DataFileMeta[] {
  const sorted = files.slice().sort((a, b) => (a.firstRowId! !== b.firstRowId! ? (a.firstRowId! < b.firstRowId! ? -1 : 1) : a.maxSequenceNumber > b.maxSequenceNumber ? -1 : a.maxSequenceNumber < b.maxSequenceNumber ? 1 : 0));
  const taken: DataFileMeta[] = [];
  let next = from;
  const corrupt = (detail: string) => new D.PaimonError("CORRUPT_FILE", `${what}: blob files ${sorted.map((f) => f.fileName).join(", ")}: ${detail}`);
  for (const file of sorted) {
    const last = taken[taken.length - 1];
    if (last !== undefined && file.firstRowId! < next) {
      if (file.maxSequenceNumber >= last.maxSequenceNumber) throw corrupt("a blob file overlapping a newer one is not older");
      continue;
    }
    if (file.firstRowId !== next) throw corrupt(`first row ids are not continuous: expected ${next}, got ${file.firstRowId}`);
    taken.push(file);
    next = file.firstRowId + file.rowCount;
  }
  if (next !== from + rows) throw corrupt(`they hold rows ${from}..${next - 1n}, the data file ${from}..${from + rows - 1n}`);
  return taken;
}

/** Index of a blob file, from its tail (one read when the index is small). */
async function loadIndex(table: FileStoreTable, path: string, file: DataFileMeta, D: BlobReadDeps): Promise<BlobFileIndex> {
  const size = Number(file.fileSize);
  if (size < BLOB_FOOTER_LENGTH) throw new D.PaimonError("CORRUPT_FILE", `blob file ${path}: ${size} bytes, too short for its footer`);
  const tailLength = Math.min(size, 4096);
  const tail = await table.fileIO.readRange(path, size - tailLength, tailLength);
  const indexLength = blobIndexLength(tail.subarray(tailLength - BLOB_FOOTER_LENGTH), size, path, D);
  const start = size - BLOB_FOOTER_LENGTH - indexLength;
  const index = start >= size - tailLength ? tail.subarray(start - (size - tailLength), tailLength - BLOB_FOOTER_LENGTH) : await table.fileIO.readRange(path, start, indexLength);
  return parseBlobIndex(index, size, Number(file.rowCount), path, D);
}

/**
 * The column a bunch of blob files holds (`bunch` from {@link blobBunch}, in row order), of Arrow
 * `type`: values read (and checked) per batch, or with `asDescriptor` Java's descriptors of them.
 */
export async function blobFileColumn(D: BlobReadDeps, table: FileStoreTable, bucketDir: string, bunch: readonly DataFileMeta[], type: arrow.DataType, asDescriptor: boolean): Promise<BlobColumn> {
  const files = await Promise.all(
    bunch.map(async (file) => {
      const path = table.paths.dataFile(bucketDir, file);
      return { path, rows: Number(file.rowCount), index: await loadIndex(table, path, file, D) };
    }),
  );
  const starts: number[] = [];
  files.reduce((at, f) => (starts.push(at), at + f.rows), 0);
  return {
    async read(rows) {
      const values: Array<Uint8Array | null> = new Array(rows.length).fill(null);
      // runs of consecutive rows in one file: one range read each
      for (let i = 0; i < rows.length; ) {
        let k = starts.length - 1;
        while (starts[k] > rows[i]) k--;
        const { path, index } = files[k];
        const end = starts[k] + files[k].rows;
        let j = i + 1;
        while (j < rows.length && rows[j] === rows[j - 1] + 1 && rows[j] < end) j++;
        const positions = rows.slice(i, j).map((r) => r - starts[k]);
        const present = positions.filter((p) => index.offsets[p] >= 0);
        if (asDescriptor) {
          positions.forEach((p, n) => (values[i + n] = index.offsets[p] < 0 ? null : serializeBlobDescriptor(path, index.offsets[p], index.lengths[p])));
        } else if (present.length > 0) {
          const first = index.offsets[present[0]] - 4;
          const last = present[present.length - 1];
          const bytes = await table.fileIO.readRange(path, first, index.offsets[last] + index.lengths[last] + 12 - first);
          positions.forEach((p, n) => {
            const at = index.offsets[p] - 4 - first;
            if (index.offsets[p] >= 0) values[i + n] = blobEntryValue(bytes.subarray(at, at + index.lengths[p] + 16), starts[k] + p, path, D);
          });
        }
        i = j;
      }
      return binaryData(D, type, values, `blob files of table ${table.identifier}`);
    },
  };
}

/** `path` without a `file:` scheme (`file:/x`, `file:///x` → `/x`). */
const withoutFileScheme = (path: string): string => (path.startsWith("file://") ? path.slice(7) : path.startsWith("file:") ? path.slice(5) : path);

/**
 * The path to read a descriptor's URI at: inside the table directory (no `.`/`..` segment,
 * backslash or NUL), else UNSUPPORTED naming the URI — paimon-rt reads no file outside the table.
 */
export function descriptorPath(table: FileStoreTable, uri: string, what: string, D: Pick<BlobReadDeps, "PaimonError">): string {
  const root = table.paths.root.replace(/\/+$/, "");
  const plain = withoutFileScheme(uri);
  const base = withoutFileScheme(root);
  const rest = plain.startsWith(`${base}/`) ? plain.slice(base.length + 1) : null;
  if (rest === null || rest === "" || /[\\\u0000]/.test(rest) || rest.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw new D.PaimonError("UNSUPPORTED", `${what}: blob descriptor URI ${JSON.stringify(uri)} is outside table directory ${root}; paimon-rt reads no file outside the table (read with blob-as-descriptor=true for the descriptor)`);
  }
  return `${root}/${rest}`;
}

/**
 * A BLOB column stored inline as serialized descriptors (`inline`: the range's column): the
 * descriptors themselves with `asDescriptor`, else the bytes they point at inside the table.
 */
export function descriptorColumn(D: BlobReadDeps, table: FileStoreTable, column: string, inline: arrow.Data, asDescriptor: boolean): BlobColumn {
  const valid = (row: number): boolean => isValidAt(inline, row);
  const raw = (row: number): Uint8Array => binaryAt(inline, row);
  return {
    async read(rows) {
      const what = `table ${table.identifier} column ${column}`;
      const values = await Promise.all(
        rows.map(async (row) => {
          if (!valid(row)) return null;
          if (asDescriptor) return raw(row);
          const d = parseBlobDescriptor(raw(row), what, D);
          const path = descriptorPath(table, d.uri, what, D);
          const length = d.length >= 0 ? d.length : (await table.fileIO.fileSize(path)) - d.offset;
          return table.fileIO.readRange(path, d.offset, length);
        }),
      );
      return binaryData(D, inline.type, values, what);
    },
  };
}
