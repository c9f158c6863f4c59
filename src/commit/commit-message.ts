// The public CommitMessage (API.md): one partition-bucket's file changes, serializable in
// Java Paimon's binary layout so commits can be coordinated across processes and engines.
import { fromBinaryRow } from "../spec/binary-row.js";
import {
  COMMIT_MESSAGE_VERSION,
  type CommitMessageData,
  deserializeCommitMessage,
  deserializeCommitMessageList,
  serializeCommitMessage,
  serializeCommitMessageList,
} from "../spec/commit-message.js";
import type { DataField } from "../spec/types.js";
import { PaimonError } from "../error.js";
import { fileNameProblem } from "../spec/file-names.js";
import type { TablePaths } from "../table/paths.js";

/** What a cross-partition upsert writer's messages carry for the commit's concurrent-writer check (one object per key index, shared by its messages). */
export interface CrossPartitionBase {
  /** The snapshot the key index was bootstrapped from (null: the table had none). */
  readonly snapshot: number | null;
  /** Filled by the checks: the snapshots after `snapshot` up to `checkedTo` were read, and `adding` are those of them that add data files (commit user, id). */
  checkedTo: number;
  readonly adding: Array<{ id: number; commitUser: string }>;
}

export class CommitMessage {
  /** The message as plain data (partition as a serialized BinaryRow). */
  readonly data: CommitMessageData;
  private decoded: Record<string, unknown> | null;
  /**
   * Messages of a cross-partition upsert writer: the snapshot its key index was bootstrapped
   * from, which `TableCommit.commit` checks concurrent commits against. In-process only: not
   * serialized (a deserialized message is not checked).
   */
  crossPartitionBase?: CrossPartitionBase;

  constructor(data: CommitMessageData, partition?: Record<string, unknown>) {
    this.data = data;
    this.decoded = partition ?? null;
  }

  /**
   * Partition values by key name. Known for messages a writer produced; for deserialized
   * messages call `withPartitionFields` (tables do this when committing) to decode them.
   */
  get partition(): Record<string, unknown> {
    return this.decoded ?? {};
  }

  get bucket(): number {
    return this.data.bucket;
  }

  /** Decodes the partition values with the table's partition fields. */
  withPartitionFields(fields: readonly DataField[]): CommitMessage {
    const values = fromBinaryRow(
      this.data.partition.subarray(4),
      fields.map((f) => f.type),
    );
    return new CommitMessage(this.data, Object.fromEntries(fields.map((f, i) => [f.name, values[i]])));
  }

  static currentVersion(): number {
    return COMMIT_MESSAGE_VERSION;
  }

  static serialize(message: CommitMessage): Uint8Array {
    return serializeCommitMessage(message.data);
  }

  static serializeList(messages: CommitMessage[]): Uint8Array {
    return serializeCommitMessageList(messages.map((m) => m.data));
  }

  static deserialize(version: number, bytes: Uint8Array): CommitMessage {
    return new CommitMessage(deserializeCommitMessage(version, bytes));
  }

  static deserializeList(version: number, bytes: Uint8Array): CommitMessage[] {
    return deserializeCommitMessageList(version, bytes).map((d) => new CommitMessage(d));
  }
}

/**
 * INVALID_ARGUMENT unless every file a message names is a plain file name and every external
 * path names its file inside a declared external path (TablePaths.checkExternalPath): a message may come from
 * another process (`deserialize`), and committing it makes reads open and expiry delete its files.
 */
export function validateMessageFiles(message: CommitMessageData, paths: TablePaths): void {
  const where = `commit message of bucket ${message.bucket}`;
  const requireName = (name: string, what: string) => {
    const problem = fileNameProblem(name);
    if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `${where}: ${what} ${JSON.stringify(name)} ${problem}`);
  };
  const d = message.dataIncrement;
  const c = message.compactIncrement;
  for (const f of [...d.newFiles, ...d.deletedFiles, ...d.changelogFiles, ...c.compactBefore, ...c.compactAfter, ...c.changelogFiles]) {
    requireName(f.fileName, "data file name");
    for (const extra of f.extraFiles) requireName(extra, `extra file name of ${f.fileName}`);
    paths.checkExternalPath(f, "INVALID_ARGUMENT", where);
  }
  for (const f of [...d.newIndexFiles, ...d.deletedIndexFiles, ...c.newIndexFiles, ...c.deletedIndexFiles]) {
    requireName(f.fileName, "index file name");
    paths.checkExternalPath(f, "INVALID_ARGUMENT", where);
  }
}
