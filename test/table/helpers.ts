// Shared helpers of the table tests.
import * as arrow from "apache-arrow";
import { expect } from "vitest";
import { FileStoreCommit } from "../../src/commit/file-store-commit.js";
import { PaimonError } from "../../src/error.js";
import { RoaringBitmap32 } from "../../src/kernel/bitmap.js";
import { deletionVectorLength, serializeDeletionVector32 } from "../../src/kernel/deletion-vector.js";
import { makeCommitMessage } from "../../src/spec/commit-message.js";
import type { Table } from "../../src/table/table.js";

/** The PaimonError `f` fails with; the test fails when `f` succeeds or throws anything else. */
export async function failure(f: () => Promise<unknown>): Promise<PaimonError> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    return e as PaimonError;
  }
  throw new Error("expected a failure");
}

/** The name of the index file {@link commitDeletionVector} writes. */
export const TEST_DV_INDEX = "index-test-dv-0";

/**
 * Deletes `positions` of the data file `dataFileName` in the partition-bucket of `split` the way
 * Java's DELETE on an append table commits it (§8): one deletion-vector index file
 * ({@link TEST_DV_INDEX}) holding one 32-bit vector, referenced by data file name from the index
 * manifest, committed by another user. Returns the committed snapshot id, the index file's path
 * and the serialized vector.
 */
export async function commitDeletionVector(
  table: Table,
  split: { partitionRow: Uint8Array; bucket: number },
  dataFileName: string,
  positions: number[],
): Promise<{ snapshotId: number; indexPath: string; dv: Uint8Array }> {
  const dv = serializeDeletionVector32(new RoaringBitmap32().addMany(positions));
  const indexBytes = new Uint8Array(1 + dv.length);
  indexBytes[0] = 1; // the index file's version byte
  indexBytes.set(dv, 1);
  const indexPath = table.paths.index(TEST_DV_INDEX);
  await table.fileIO.writeFile(indexPath, indexBytes);
  const snapshotId = await new FileStoreCommit(table.fileIO, table.location, table.schema, "deleter").commit(
    [
      makeCommitMessage({
        partition: split.partitionRow,
        bucket: split.bucket,
        dataIncrement: {
          newIndexFiles: [
            {
              indexType: "DELETION_VECTORS",
              fileName: TEST_DV_INDEX,
              fileSize: BigInt(indexBytes.length),
              rowCount: 1n,
              dvRanges: [{ dataFileName, offset: 1, length: deletionVectorLength(dv), cardinality: BigInt(positions.length) }],
              externalPath: null,
              globalIndex: null,
            },
          ],
        },
      }),
    ],
    1n,
  );
  return { snapshotId: snapshotId!, indexPath, dv };
}

/** Appends BIGINT column `id` = `ids` to `table` (overwriting every row when `overwrite`) as user "u"; returns the snapshot id. */
export async function appendIds(table: Table, ids: number[], overwrite = false): Promise<number> {
  const w = await table.newWrite({ commitUser: "u", overwrite } as never);
  await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids, BigInt) }) }));
  const c = table.newCommit({ commitUser: "u" });
  const id = overwrite ? await c.overwrite(await w.prepareCommit()) : await c.commit(await w.prepareCommit());
  await w.close();
  return id!;
}
