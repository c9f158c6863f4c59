// Rebuilding append-deduplicate key state from committed files: rows hidden by committed
// deletion vectors are skipped, duplicates among live committed rows keep the newest offset (the
// older one becomes a pending deletion), and a renamed key column is found by field id.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { commitRowDeletions } from "../../src/commit/append-deletions.js";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import { loadCommittedKeys } from "../../src/realtime/dedup-committed-keys.js";
import { DedupKeyIndex, keyIdentities } from "../../src/realtime/dedup-key-index.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import type { Table } from "../../src/table/table.js";
import { BucketDeletionVectors, deletionVectorIndexFiles } from "../../src/write/deletion-vector-index.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const int64 = (values: number[]) => arrow.makeData({ type: new arrow.Int64(), length: values.length, nullCount: 0, data: BigInt64Array.from(values.map(BigInt)) });
const strings = (values: string[]) => arrow.vectorFromArray(values, new arrow.Utf8()).data[0];

async function write(t: Table, keys: string[], offsets: number[]): Promise<void> {
  const w = await t.newWrite({ commitUser: "writer" });
  await w.write(new arrow.RecordBatch({ k: strings(keys), _REALTIME_OFFSET: int64(offsets) }));
  await t.newCommit({ commitUser: "writer" }).commit(await w.prepareCommit());
}

/** Key state of bucket 0 as loaded from the latest snapshot under `keyName`. */
async function load(t: Table, keyName: string): Promise<{ index: DedupKeyIndex; rows: number }> {
  const snapshot = await t.latestSnapshot();
  const files: DataFileMeta[] = (await t.manifestStore.liveEntries(snapshot!)).map((e) => e.file).sort((a, b) => Number(a.minSequenceNumber - b.minSequenceNumber));
  const config = { io: t.fileIO, paths: t.paths, manifests: t.manifestStore, bitmap64: false, fixedBucket: true };
  const partition = (await t.newScan().plan()).splits[0].partitionRow;
  const vectors = await BucketDeletionVectors.load(config, deletionVectorIndexFiles(await t.manifestStore.indexEntries(snapshot), partition, 0), true);
  try {
    const index = new DedupKeyIndex(2);
    const source = { io: t.fileIO, pathOf: (f: DataFileMeta) => t.paths.dataFile(t.paths.bucketDir("", 0), f), fieldsOf: async () => t.schema.fields };
    const field = (name: string) => t.schema.fields.find((f) => f.name === name)!;
    const rows = await loadCommittedKeys(source, files, vectors, field(keyName), field("_REALTIME_OFFSET"), index);
    return { index, rows };
  } finally {
    vectors.dispose();
  }
}

const fp = (key: string) => keyIdentities(keyColumnFromValues("bytes", [key])); // 128 bits: two words

describe("loadCommittedKeys", () => {
  it("skips rows deleted by committed vectors, keeps the newest offset per key, finds a renamed key by field id", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paimon-rt-dedup-keys-"));
    dirs.push(dir);
    const catalog = await Catalog.open(dir);
    await catalog.createDatabase("db");
    let t = await catalog.createTable("db.t", {
      fields: [
        { name: "k", type: "STRING NOT NULL" },
        { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
      ],
      options: { bucket: "1", "bucket-key": "k", "deletion-vectors.enabled": "true", "file-index.bitmap.columns": "_REALTIME_OFFSET" },
    });
    await write(t, ["a", "b", "c"], [0, 1, 2]);
    await write(t, ["b", "d"], [3, 4]); // "b" twice among live rows: offset 1 is superseded on load
    const first = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file).find((f) => f.rowCount === 3n)!;
    await commitRowDeletions(t, "deleter", [{ bucket: 0, fileName: first.fileName, positions: [0] }]); // row "a"

    t = await catalog.alterTable("db.t", [{ kind: "renameColumn", name: "k", newName: "key" }]);
    const { index, rows } = await load(t, "key");
    expect(rows).toBe(4);
    expect(index.keyCount).toBe(3);
    expect([fp("a"), fp("b"), fp("c"), fp("d")].map((f) => index.latestOffset(f))).toEqual([undefined, 3n, 2n, 4n]);
    expect([...index.freezeDeleted().offsets]).toEqual([1n]);
  });

  it("an empty bucket loads nothing", async () => {
    const index = new DedupKeyIndex();
    const source = { io: undefined as never, pathOf: () => "", fieldsOf: async () => [] };
    const field = { id: 0, name: "k", type: { kind: "STRING", nullable: false } } as never;
    expect(await loadCommittedKeys(source, [], { get: () => undefined }, field, field, index)).toBe(0);
    expect(index.keyCount).toBe(0);
  });
});
