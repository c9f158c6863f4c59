// Row tracking at commit (Java 1.4.2 `RowTrackingCommitUtils.assignRowTracking`, called by
// `FileStoreCommitImpl` when `row-tracking.enabled`): a new file written with sequence number 0
// (an unaware-bucket writer's first file) gets the new snapshot's id as its min and max sequence
// number, and every appended file without a first row id gets the next free row ids, in entry
// order; the snapshot's `nextRowId` is the first id left. Compacted files (fileSource COMPACT)
// keep theirs (their rows carry `_ROW_ID` / `_SEQUENCE_NUMBER` columns). A blob file (`.blob`,
// BLOB columns) holds rows of the normal file before it: it gets the first row id after the
// previous blob file of its column (`_WRITE_COLS`) since that normal file, from the normal
// file's first row id, and takes no new ids.
import { PaimonError } from "../error.js";
import type { ManifestEntry } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import { SEQUENCE_NUMBER_FIELD } from "../table/primary-key.js";

/** Java `SpecialFields.ROW_ID`: a row-tracking table's row id (`$row_tracking`, columns of compacted files). */
export const ROW_ID_FIELD: DataField = { id: 2147483642, name: "_ROW_ID", type: { kind: "BIGINT", nullable: false } };
/**
 * Java `SpecialFields.rowTypeWithRowTracking`: `fields` then `_ROW_ID` and `_SEQUENCE_NUMBER`
 * (nullable: as files are read, where files not compacted lack them); INVALID_ARGUMENT, Java's
 * message, when a column already has one of those names.
 */
export function withRowTrackingFields(fields: readonly DataField[], nullable: boolean): DataField[] {
  const clash = fields.find((f) => f.name === ROW_ID_FIELD.name || f.name === SEQUENCE_NUMBER_FIELD.name);
  if (clash) throw new PaimonError("INVALID_ARGUMENT", `Row tracking field name '${clash.name}' conflicts with existing field names.`);
  return [...fields, ...[ROW_ID_FIELD, SEQUENCE_NUMBER_FIELD].map((f) => ({ ...f, type: { ...f.type, nullable } }))];
}

/**
 * The entries of a commit to snapshot `snapshotId` with row ids assigned from `nextRowId` (the
 * latest snapshot's, 0 without one), and the snapshot's `nextRowId`. `entries` is not modified.
 */
export function assignRowTracking(snapshotId: number, nextRowId: bigint, entries: readonly ManifestEntry[]): { entries: ManifestEntry[]; nextRowId: bigint } {
  const seq = BigInt(snapshotId);
  let start = nextRowId;
  let blobStartDefault = nextRowId;
  const blobStarts = new Map<string, bigint>();
  const out = entries.map((e): ManifestEntry => {
    let file = e.file.minSequenceNumber === 0n ? { ...e.file, minSequenceNumber: seq, maxSequenceNumber: seq } : e.file;
    if (file.fileSource === null) throw new PaimonError("CORRUPT_FILE", `data file ${file.fileName} of a row-tracking table has no file source`);
    if (file.fileSource === 0 && file.firstRowId === null && !(file.writeCols ?? []).includes(ROW_ID_FIELD.name)) {
      if (file.fileName.endsWith(".blob")) {
        const column = file.writeCols?.[0];
        if (column === undefined) throw new PaimonError("CORRUPT_FILE", `blob file ${file.fileName} names no column (_WRITE_COLS)`);
        const blobStart = blobStarts.get(column) ?? blobStartDefault;
        if (blobStart >= start) throw new PaimonError("CORRUPT_FILE", `blob file ${file.fileName}: no rows of a data file before it for its rows (from row id ${blobStart})`);
        file = { ...file, firstRowId: blobStart };
        blobStarts.set(column, blobStart + file.rowCount);
      } else {
        file = { ...file, firstRowId: start };
        blobStartDefault = start;
        blobStarts.clear();
        start += file.rowCount;
      }
    }
    return file === e.file ? e : { ...e, file };
  });
  return { entries: out, nextRowId: start };
}
