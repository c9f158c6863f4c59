// Row tracking at commit (Java 1.4.2 `RowTrackingCommitUtils.assignRowTracking`, called by
// `FileStoreCommitImpl` when `row-tracking.enabled`): a new file written with sequence number 0
// (an unaware-bucket writer's first file) gets the new snapshot's id as its min and max sequence
// number, and every appended file without a first row id gets the next free row ids, in entry
// order; the snapshot's `nextRowId` is the first id left. Compacted files (fileSource COMPACT)
// keep theirs (their rows carry `_ROW_ID` / `_SEQUENCE_NUMBER` columns).
import { PaimonError } from "../error.js";
import type { ManifestEntry } from "../spec/manifest.js";
import { ROW_ID_FIELD } from "../table/primary-key.js";

/**
 * The entries of a commit to snapshot `snapshotId` with row ids assigned from `nextRowId` (the
 * latest snapshot's, 0 without one), and the snapshot's `nextRowId`. `entries` is not modified.
 */
export function assignRowTracking(snapshotId: number, nextRowId: bigint, entries: readonly ManifestEntry[]): { entries: ManifestEntry[]; nextRowId: bigint } {
  const seq = BigInt(snapshotId);
  let start = nextRowId;
  const out = entries.map((e): ManifestEntry => {
    let file = e.file.minSequenceNumber === 0n ? { ...e.file, minSequenceNumber: seq, maxSequenceNumber: seq } : e.file;
    if (file.fileSource === null) throw new PaimonError("CORRUPT_FILE", `data file ${file.fileName} of a row-tracking table has no file source`);
    if (file.fileSource === 0 && file.firstRowId === null && !(file.writeCols ?? []).includes(ROW_ID_FIELD.name)) {
      if (file.fileName.endsWith(".blob")) throw new PaimonError("UNSUPPORTED", `data file ${file.fileName}: blob files (data evolution) are not supported`);
      file = { ...file, firstRowId: start };
      start += file.rowCount;
    }
    return file === e.file ? e : { ...e, file };
  });
  return { entries: out, nextRowId: start };
}
