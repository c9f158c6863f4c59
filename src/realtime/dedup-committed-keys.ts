// Key state of an append-deduplicate partition-bucket rebuilt from its committed files (seed 000:
// "key indexes and DVs are process-local state rebuilt from committed files"): at the first use
// of a partition-bucket, after a refresh and on recovery. Rows hidden by committed deletion
// vectors are skipped; the rest enter the key index in offset order, so if committed files ever
// hold two live rows of a key (a foreign writer), the older one becomes a pending deletion.
import { columnValues } from "../arrow/values.js";
import { PaimonError } from "../error.js";
import type { RoaringBitmap32 } from "../kernel/bitmap.js";
import { gatherInt64, strictlyAscendingInt64 } from "../arrow/gather.js";
import { keyColumnFromArrow } from "../kernel/columns.js";
import { sortPermutation } from "../kernel/sort.js";
import { readParquetBatches } from "../format/parquet-reader.js";
import { fileIOSource } from "../format/source.js";
import type { OffsetFileSource } from "../read/offset-positions.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import { gatherIdentities, keyIdentities, type DedupKeyIndex } from "./dedup-key-index.js";

/** Committed deleted positions per data file (e.g. BucketDeletionVectors). */
export interface CommittedDeletions {
  get(dataFile: string): RoaringBitmap32 | undefined;
}

/**
 * Reads the key and offset columns (matched by field id, so a renamed key is found) of the
 * partition-bucket's live `files`, drops rows deleted by `deletions`, and upserts the rest into
 * `index` in offset order. Returns the number of live committed rows loaded.
 */
export async function loadCommittedKeys(
  source: OffsetFileSource,
  files: readonly DataFileMeta[],
  deletions: CommittedDeletions,
  keyField: DataField,
  offsetField: DataField,
  index: DedupKeyIndex,
): Promise<number> {
  const identityParts: BigUint64Array[] = [];
  /** 64-bit words per identity (keyIdentities). */
  const width = index.width;
  const offsetParts: BigInt64Array[] = [];
  let total = 0;
  for (const file of files) {
    if (!file.fileName.endsWith(".parquet")) {
      throw new PaimonError("UNSUPPORTED", `append deduplicate key lookup reads Parquet data files only (${file.fileName})`);
    }
    const fileFields = await source.fieldsOf(file.schemaId);
    const deleted = deletions.get(file.fileName);
    const path = source.pathOf(file);
    let position = 0;
    for await (const b of readParquetBatches(await fileIOSource(source.io, path, Number(file.fileSize)), { fields: [keyField, offsetField], fileFields, fileName: file.fileName })) {
      const n = b.numRows;
      const offsetData = b.data.children[1];
      if (offsetData.nullCount > 0) throw new PaimonError("CORRUPT_FILE", `data file ${file.fileName} has null ${offsetField.name} values`);
      const offsets = columnValues<BigInt64Array>(offsetData);
      const identities = keyIdentities(keyColumnFromArrow(b.data.children[0]));
      if (deleted && !deleted.isEmpty) {
        const keep = new Uint32Array(n);
        let kept = 0;
        for (let i = 0; i < n; i++) if (!deleted.has(position + i)) keep[kept++] = i;
        const rows = keep.subarray(0, kept);
        identityParts.push(gatherIdentities(identities, width, rows));
        offsetParts.push(BigInt64Array.from(rows, (i) => offsets[i]));
        total += kept;
      } else {
        identityParts.push(identities);
        offsetParts.push(offsets.slice());
        total += n;
      }
      position += n;
    }
  }
  if (total === 0) return 0;
  const identities = concat(identityParts, total * width, BigUint64Array);
  const offsets = concat(offsetParts, total, BigInt64Array);
  // Files are usually listed in offset order already, each ascending: then nothing is sorted.
  if (strictlyAscendingInt64(offsets)) index.upsert(identities, offsets);
  else {
    const order = sortPermutation([{ type: "int64", length: total, values: offsets }], new BigInt64Array(total));
    index.upsert(gatherIdentities(identities, width, order), gatherInt64([offsets], new Uint32Array(total), order));
  }
  return total;
}

function concat<T extends BigUint64Array | BigInt64Array>(parts: T[], total: number, Ctor: { new (n: number): T }): T {
  const out = new Ctor(total);
  let at = 0;
  for (const p of parts) {
    out.set(p as never, at);
    at += p.length;
  }
  return out;
}
