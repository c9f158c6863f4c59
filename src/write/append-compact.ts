// Small-file compaction of append tables (Java `BucketedAppendCompactManager` /
// `AppendCompactTask`): consecutive (by sequence number) files of a bucket are rewritten into
// files of the target size. Full compaction rewrites every file of the bucket; otherwise the
// earliest run of at least `compaction.min.file-num` consecutive small files is rewritten.
// Output files keep the inputs' sequence range (row order of bucketed tables is preserved)
// and are marked `fileSource = COMPACT`.
import { CommitMessage } from "../commit/commit-message.js";
import { PaimonError } from "../error.js";
import { readParquetBatches } from "../format/parquet-reader.js";
import { fileIOSource } from "../format/source.js";
import { FileSchemas } from "../read/kv-file-reader.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { makeCommitMessage } from "../spec/commit-message.js";
import type { DataFileMeta, ManifestEntry } from "../spec/manifest.js";
import type { Table } from "../table/table.js";
import { partitionPath } from "../table/paths.js";
import { AppendBucketWriter } from "./append-writer.js";
import { compactTargets } from "./pk-write.js";

/** Files to rewrite: all (full), or the first run of >= minFiles consecutive small files. */
export function pickAppendCompaction(files: readonly DataFileMeta[], targetFileSize: number, full: boolean, minFiles: number, maxFiles: number): DataFileMeta[] {
  const sorted = [...files].sort((a, b) => (a.minSequenceNumber < b.minSequenceNumber ? -1 : a.minSequenceNumber > b.minSequenceNumber ? 1 : 0));
  if (full) return sorted.length > 1 || sorted.some((f) => (f.deleteRowCount ?? 0n) > 0n) ? sorted : [];
  let run: DataFileMeta[] = [];
  for (const f of sorted) {
    if (Number(f.fileSize) < targetFileSize) {
      run.push(f);
      if (run.length >= maxFiles) return run;
    } else {
      if (run.length >= minFiles) return run;
      run = [];
    }
  }
  return run.length >= minFiles ? run : [];
}

/** Compacts the matching buckets of an append table; returns the CommitMessages (compact increments). */
export async function compactAppendBuckets(table: Table, options: { partition?: Record<string, unknown>; bucket?: number; full?: boolean }): Promise<CommitMessage[]> {
  if (table.coreOptions.bool("deletion-vectors.enabled", false)) {
    throw new PaimonError("UNSUPPORTED", `compaction of append table ${table.identifier} with deletion vectors is not supported`);
  }
  const latest = await table.latestSnapshot();
  if (!latest) return [];
  const opts = table.coreOptions;
  const fields = table.partitionFields;
  const types = fields.map((f) => f.type);
  const targets = await compactTargets(table, options, []);
  const entries = await table.manifestStore.liveEntries(latest);
  const byBucket = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    const k = `${e.partition.join(",")}|${e.bucket}`;
    let g = byBucket.get(k);
    if (!g) byBucket.set(k, (g = []));
    g.push(e);
  }
  const schemas = new FileSchemas(table);
  const target = opts.targetFileSize(false);
  const out: CommitMessage[] = [];
  for (const group of byBucket.values()) {
    const first = group[0];
    const values = fromBinaryRow(first.partition.subarray(4), types);
    if (!targets.some((t) => t.bucket === first.bucket && JSON.stringify(t.values, big) === JSON.stringify(values, big))) continue;
    const picked = pickAppendCompaction(
      group.map((e) => e.file),
      target,
      options.full ?? true,
      opts.int("compaction.min.file-num", 5),
      opts.int("compaction.max.file-num", 50),
    );
    if (picked.length === 0) continue;
    const dir = table.paths.bucketDir(partitionPath(fields, values, opts.partitionDefaultName, opts.partitionLegacyName), first.bucket);
    const writer = new AppendBucketWriter(
      { io: table.fileIO, schema: table.schema, bucketDir: dir, fileCompression: opts.fileCompression, targetFileSize: target, dataFilePrefix: opts.dataFilePrefix, statsMode: opts.get("metadata.stats-mode") },
      picked[0].minSequenceNumber,
    );
    for (const f of picked) {
      const path = table.paths.dataFile(dir, f);
      const source = await fileIOSource(table.fileIO, path, Number(f.fileSize));
      const fileFields = await schemas.fieldsOf(f.schemaId);
      for await (const batch of readParquetBatches(source, { fields: table.schema.fields, mapBy: "id", fileFields, batchSize: 65536, fileName: path })) await writer.write(batch);
    }
    const after = (await writer.prepareCommit()).map((f): DataFileMeta => ({ ...f, fileSource: 1 }));
    out.push(
      new CommitMessage(
        makeCommitMessage({ partition: first.partition, bucket: first.bucket, totalBuckets: first.totalBuckets, compactIncrement: { compactBefore: picked, compactAfter: after } }),
        Object.fromEntries(fields.map((f, i) => [f.name, values[i]])),
      ),
    );
  }
  return out;
}

function big(_k: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v;
}
