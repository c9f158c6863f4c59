// `paimon-rt inspect <table>`: schema, snapshots and the live files per partition-bucket.
import { fromBinaryRow } from "../spec/binary-row.js";
import { typeToString } from "../spec/types.js";
import { Table } from "../table/table.js";
import { indexFileOf, partitionPath } from "../table/paths.js";
import type { DataFileMeta } from "../spec/manifest.js";

export async function inspectTable(location: string, log: (line: string) => void): Promise<void> {
  const table = await Table.open(location);
  const s = table.schema;
  log(`table ${table.identifier} at ${table.location}`);
  log(`schema ${s.id}:`);
  for (const f of s.fields) log(`  ${String(f.id).padStart(3)}  ${f.name}  ${typeToString(f.type)}${f.description ? `  -- ${f.description}` : ""}`);
  if (s.partitionKeys.length) log(`partition keys: ${s.partitionKeys.join(", ")}`);
  if (s.primaryKeys.length) log(`primary keys: ${s.primaryKeys.join(", ")}`);
  const options = Object.entries(s.options);
  if (options.length) log(`options: ${options.map(([k, v]) => `${k}=${v}`).join(", ")}`);
  const snapshots = await table.listSnapshots();
  log(`snapshots (${snapshots.length}):`);
  for (const snap of snapshots) {
    log(
      `  ${String(snap.id).padStart(4)}  ${snap.commitKind.padEnd(9)} ${new Date(snap.timeMillis).toISOString()}  schema ${snap.schemaId}  rows ${snap.totalRecordCount} (+${snap.deltaRecordCount})  user ${snap.commitUser}  id ${snap.commitIdentifier}`,
    );
  }
  const latest = snapshots[snapshots.length - 1];
  if (!latest) return;
  const entries = await table.manifestStore.liveEntries(latest);
  const types = table.partitionFields.map((f) => f.type);
  const groups = new Map<string, typeof entries>();
  for (const e of entries) {
    const dir = partitionPath(table.partitionFields, fromBinaryRow(e.partition.subarray(4), types), table.coreOptions.partitionDefaultName, table.coreOptions.partitionLegacyName);
    const key = `${dir}bucket-${e.bucket}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  log(`files of snapshot ${latest.id} (${entries.length}):`);
  for (const [key, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rows = group.reduce((n, e) => n + e.file.rowCount, 0n);
    const bytes = group.reduce((n, e) => n + e.file.fileSize, 0n);
    log(`  ${key}: ${group.length} file(s), ${rows} rows, ${bytes} bytes`);
    for (const e of group) log(`    ${e.file.fileName}  level ${e.file.level}  rows ${e.file.rowCount}  bytes ${e.file.fileSize}  seq ${e.file.minSequenceNumber}..${e.file.maxSequenceNumber}${fileIndexNote(e.file)}`);
  }
}

/** Where a data file's file index lives, if it has one. */
function fileIndexNote(file: DataFileMeta): string {
  if (file.embeddedIndex) return `  index embedded (${file.embeddedIndex.length} bytes)`;
  const extra = indexFileOf(file.extraFiles);
  return extra ? `  index ${extra}` : "";
}
