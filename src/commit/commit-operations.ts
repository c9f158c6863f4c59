// What TableCommit does, loaded on first use (table-commit.ts is the thin class Table.newCommit
// returns synchronously; a query-only bundle carries only that class, not this module).
import { PaimonError } from "../error.js";
import { BATCH_COMMIT_IDENTIFIER } from "../spec/snapshot.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { CommitMessage, type CrossPartitionBase, validateMessageFiles } from "./commit-message.js";
import { type CommitOptions, commitOutcomeUnknown, FileStoreCommit as FileStoreCommitClass, type FileStoreCommit, type PartitionFilter } from "./file-store-commit.js";
import { icebergRawFiles } from "./iceberg-compat.js";
import { checkCrossPartitionConflicts } from "./pk-conflicts.js";
import { fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import { deleteUnpublishedOffsets, partitionStrings, partitionStringsOfRow, progressAfterOverwrite } from "../realtime/offsets.js";

export { FileStoreCommit } from "./file-store-commit.js";

/** The file-store commit of `table` for `commitUser` (with the table's Iceberg raw-file planning, see iceberg-compat.ts). */
export function fileStoreCommitOf(table: FileStoreTable, commitUser: string): FileStoreCommit {
  return new FileStoreCommitClass(table.fileIO, table.location, table.schema, commitUser, icebergRawFiles(table));
}
export { BATCH_COMMIT_IDENTIFIER };

export function identifierOf(id: bigint | number | undefined): bigint {
  if (id === undefined) return BATCH_COMMIT_IDENTIFIER;
  if (typeof id === "number" && !Number.isSafeInteger(id)) throw new PaimonError("INVALID_ARGUMENT", `commit identifier ${id} is not an integer`);
  return BigInt(id);
}

/** A set of partitions: as a filter over internal values (files) and over logical strings (progress). */
interface PartitionScope {
  filter: PartitionFilter;
  matches: (partition: Readonly<Record<string, string>>) => boolean;
}

/** Messages must be CommitMessage objects of this table's partition arity whose file names are plain names. */
/**
 * The commit options of messages from cross-partition upsert writers (CommitMessage.crossPartitionBase):
 * the check that no other writer committed overlapping keys since the earliest base; none for other messages.
 */
export function crossPartitionCommitOptions(table: FileStoreTable, commitUser: string, messages: readonly CommitMessage[]): CommitOptions {
  let base: CrossPartitionBase | undefined;
  for (const m of messages) {
    const b = m.crossPartitionBase;
    if (b !== undefined && (base === undefined || (b.snapshot ?? 0) < (base.snapshot ?? 0))) base = b;
  }
  if (base === undefined) return {};
  const added = messages.flatMap((m) => m.data.dataIncrement.newFiles.map((file) => ({ partition: m.data.partition, bucket: m.data.bucket, file })));
  return { checkBeforePublish: (latest) => checkCrossPartitionConflicts(table.snapshotManager, table.manifestStore, table.schema, base, latest, commitUser, added) };
}

export function checkMessages(table: FileStoreTable, messages: readonly CommitMessage[]): void {
  if (!Array.isArray(messages)) throw new PaimonError("INVALID_ARGUMENT", "commit takes an array of CommitMessage");
  const arity = table.partitionFields.length;
  for (const m of messages) {
    if (!(m instanceof CommitMessage)) throw new PaimonError("INVALID_ARGUMENT", "commit takes CommitMessage objects (from prepareCommit or CommitMessage.deserialize)");
    const p = m.data.partition;
    const rowArity = p.length >= 4 ? new DataView(p.buffer, p.byteOffset, 4).getInt32(0) : -1;
    if (rowArity !== arity) throw new PaimonError("INVALID_ARGUMENT", `commit message of bucket ${m.bucket} has a partition of arity ${rowArity}; table ${table.identifier} has ${arity} partition keys`);
    validateMessageFiles(m.data, table.paths);
  }
}

/** `TableCommit.overwrite`: the scope from `partition`, or the partitions the messages touch (dynamic overwrite), or the whole table. */
export async function overwrite(table: FileStoreTable, commit: FileStoreCommit, messages: readonly CommitMessage[], partition: Record<string, unknown> | undefined, identifier: bigint): Promise<number | null> {
  checkMessages(table, messages);
  const fields = table.partitionFields;
  let scope: PartitionScope | null = null;
  if (partition && Object.keys(partition).length > 0) {
    scope = partitionScope(table, [partition]);
  } else if (fields.length > 0 && table.coreOptions.dynamicPartitionOverwrite) {
    const touched = new Set(messages.map((m) => m.data.partition.join(",")));
    const touchedStrings = new Set(messages.map((m) => JSON.stringify(fields.map((f) => partitionStringsOfRow(table, m.data.partition)[f.name]))));
    const types = fields.map((f) => f.type);
    scope = {
      filter: (p) => touched.has(serializeBinaryRow(toBinaryRow(fields.map((f) => p[f.name]), types), types.length).join(",")),
      matches: (p) => touchedStrings.has(JSON.stringify(fields.map((f) => p[f.name]))),
    };
  }
  return overwriteScope(table, commit, messages, scope, identifier);
}

/** `TableCommit.truncate`: one OVERWRITE snapshot without files and with empty real-time progress. */
export async function truncate(table: FileStoreTable, commit: FileStoreCommit): Promise<number> {
  return (await overwriteScope(table, commit, [], null, BATCH_COMMIT_IDENTIFIER))!;
}

/** `TableCommit.dropPartitions`: one OVERWRITE snapshot deleting the files and progress of the matching partitions. */
export async function dropPartitions(table: FileStoreTable, commit: FileStoreCommit, partitions: Array<Record<string, unknown>>, identifier = BATCH_COMMIT_IDENTIFIER): Promise<number> {
  if (!Array.isArray(partitions) || partitions.length === 0) throw new PaimonError("INVALID_ARGUMENT", `dropPartitions of ${table.identifier} needs a non-empty list of partitions`);
  if (table.partitionFields.length === 0) throw new PaimonError("INVALID_ARGUMENT", `table ${table.identifier} has no partition keys; use truncate`);
  return (await overwriteScope(table, commit, [], partitionScope(table, partitions), identifier))!;
}

/** The partitions matching any of `specs` (each: values of some or all partition keys). */
function partitionScope(table: FileStoreTable, specs: ReadonlyArray<Record<string, unknown>>): PartitionScope {
  const fields = table.partitionFields;
  const opts = table.coreOptions;
  const parsed = specs.map((spec) => {
    if (spec === null || typeof spec !== "object" || Array.isArray(spec) || Object.keys(spec).length === 0) {
      throw new PaimonError("INVALID_ARGUMENT", `partition spec ${JSON.stringify(spec)} of table ${table.identifier} must name values of its partition keys [${fields.map((f) => f.name).join(", ")}]`);
    }
    const unknown = Object.keys(spec).filter((k) => !fields.some((f) => f.name === k));
    if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `unknown partition column(s) ${unknown.join(", ")} of table ${table.identifier}`);
    // Compare in the internal representation: encode the spec like a row of those keys.
    const specFields = fields.filter((f) => f.name in spec);
    const types = specFields.map((f) => f.type);
    const key = (values: Record<string, unknown>) => toBinaryRow(specFields.map((f) => values[f.name]), types).join(",");
    let wanted: string;
    let internal: unknown[];
    try {
      const row = toBinaryRow(specFields.map((f) => spec[f.name]), types);
      wanted = row.join(",");
      internal = fromBinaryRow(row, types);
    } catch (e) {
      throw new PaimonError("INVALID_ARGUMENT", `partition spec ${JSON.stringify(spec)} of table ${table.identifier}: ${(e as Error).message}`);
    }
    const strings = partitionStrings(specFields, internal, opts.partitionDefaultName, opts.partitionLegacyName);
    return { key, wanted, strings };
  });
  return {
    filter: (p) => parsed.some((s) => s.key(p) === s.wanted),
    matches: (p) => parsed.some((s) => Object.entries(s.strings).every(([k, v]) => p[k] === v)),
  };
}

/** One OVERWRITE snapshot replacing `scope` (the whole table when null), with the real-time progress reset to match. */
async function overwriteScope(table: FileStoreTable, commit: FileStoreCommit, messages: readonly CommitMessage[], scope: PartitionScope | null, identifier: bigint): Promise<number | null> {
  const written: string[] = [];
  let id: number | null;
  try {
    id = await commit.overwrite(
      messages.map((m) => m.data),
      scope?.filter ?? null,
      identifier,
      { properties: progressAfterOverwrite(table, scope?.matches ?? null, written) },
    );
  } catch (e) {
    // an offsets file a possibly published snapshot references stays (as its manifests do)
    if (!commitOutcomeUnknown(e)) await deleteUnpublishedOffsets(table, written, null);
    throw e;
  }
  await deleteUnpublishedOffsets(table, written, id);
  return id;
}
