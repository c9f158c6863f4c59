// TableCommit (API.md): commits CommitMessages as snapshots, overwrites partitions and
// expires old snapshots.
import { PaimonError } from "../error.js";
import { BATCH_COMMIT_IDENTIFIER } from "../spec/snapshot.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { CommitMessage } from "./commit-message.js";
import type { CommitMessageData } from "../spec/commit-message.js";
import type { ExpireOptions } from "./expire.js";
import type { FileStoreCommit, PartitionFilter } from "./file-store-commit.js";
import { fromBinaryRow, serializeBinaryRow, toBinaryRow } from "../spec/binary-row.js";
import type { RealtimeCommitProgress } from "../realtime/types.js";

// The commit machinery (and the real-time progress it records) is imported on first use:
// Table.newCommit is synchronous, and a query-only bundle must not carry this code.
const loadFileStoreCommit = () => import("./file-store-commit.js");
const loadOffsets = () => import("../realtime/offsets.js");

function identifierOf(id: bigint | number | undefined): bigint {
  if (id === undefined) return BATCH_COMMIT_IDENTIFIER;
  if (typeof id === "number" && !Number.isSafeInteger(id)) throw new PaimonError("INVALID_ARGUMENT", `commit identifier ${id} is not an integer`);
  return BigInt(id);
}

/** A set of partitions: as a filter over internal values (files) and over logical strings (progress). */
interface PartitionScope {
  filter: PartitionFilter;
  matches: (partition: Readonly<Record<string, string>>) => boolean;
}

export class TableCommit {
  private fileStoreCommit: FileStoreCommit | undefined;

  constructor(
    private readonly table: FileStoreTable,
    readonly commitUser: string,
  ) {
    if (typeof commitUser !== "string" || commitUser === "") throw new PaimonError("INVALID_ARGUMENT", "newCommit needs a non-empty commitUser");
  }

  /** The file-store commit of this user (one per TableCommit: it caches the user's latest commit). */
  private async commit_(): Promise<FileStoreCommit> {
    if (!this.fileStoreCommit) {
      const { FileStoreCommit } = await loadFileStoreCommit();
      this.fileStoreCommit ??= new FileStoreCommit(this.table.fileIO, this.table.location, this.table.schema, this.commitUser);
    }
    return this.fileStoreCommit;
  }

  private async check(messages: readonly CommitMessage[]): Promise<void> {
    if (!Array.isArray(messages)) throw new PaimonError("INVALID_ARGUMENT", "commit takes an array of CommitMessage");
    const { CommitMessage, validateMessageFiles } = await import("./commit-message.js");
    const arity = this.table.partitionFields.length;
    for (const m of messages) {
      if (!(m instanceof CommitMessage)) throw new PaimonError("INVALID_ARGUMENT", "commit takes CommitMessage objects (from prepareCommit or CommitMessage.deserialize)");
      const p = m.data.partition;
      const rowArity = p.length >= 4 ? new DataView(p.buffer, p.byteOffset, 4).getInt32(0) : -1;
      if (rowArity !== arity) throw new PaimonError("INVALID_ARGUMENT", `commit message of bucket ${m.bucket} has a partition of arity ${rowArity}; table ${this.table.identifier} has ${arity} partition keys`);
      validateMessageFiles(m.data, this.table.paths);
    }
  }

  /**
   * Commits the messages as one transaction of this commit user. Returns the new snapshot
   * id, or null when there was nothing to commit. As Java's `StreamTableCommit.commit`, the
   * identifier is not compared with earlier commits: use {@link filterAndCommit} to retry
   * commits that may have succeeded already. Committing messages whose files are already in
   * the table (the same messages twice) fails with COMMIT_CONFLICT and publishes nothing.
   */
  async commit(messages: CommitMessage[], commitIdentifier?: bigint | number): Promise<number | null> {
    await this.check(messages);
    return (await this.commit_()).commit(
      messages.map((m) => m.data),
      identifierOf(commitIdentifier),
    );
  }

  /**
   * Java's `StreamTableCommit.filterAndCommit`, the recovery path after a failure: skips every
   * identifier this commit user has already committed (identifier not greater than its latest
   * committed one) and commits the rest in increasing identifier order. The files of the
   * remaining messages must all still exist (NOT_FOUND otherwise, nothing committed). Returns
   * how many identifiers were committed.
   */
  async filterAndCommit(committables: ReadonlyMap<bigint | number, CommitMessage[]>): Promise<number> {
    if (!(committables instanceof Map)) throw new PaimonError("INVALID_ARGUMENT", "filterAndCommit takes a Map from commit identifier to CommitMessage[]");
    const byIdentifier = new Map<bigint, CommitMessageData[]>();
    for (const [id, messages] of committables) {
      await this.check(messages);
      const identifier = identifierOf(id);
      if (identifier === BATCH_COMMIT_IDENTIFIER || byIdentifier.has(identifier)) throw new PaimonError("INVALID_ARGUMENT", `filterAndCommit needs distinct streaming commit identifiers; got ${String(id)} twice or as the batch identifier`);
      byIdentifier.set(identifier, messages.map((m: CommitMessage) => m.data));
    }
    return (await this.commit_()).filterAndCommit(byIdentifier);
  }

  /**
   * Java's `TableCommit.abort`: deletes the data, changelog and index files of messages that
   * will not be committed (a commit gives up with COMMIT_CONFLICT but leaves the messages' files
   * to their owner, as Java does). Files that any snapshot of the table references are never
   * deleted, so aborting messages that were committed after all is harmless.
   */
  async abort(messages: CommitMessage[]): Promise<void> {
    await this.check(messages);
    await (await this.commit_()).abort(messages.map((m) => m.data));
  }

  /**
   * Real-time commit (src/realtime/commit.ts): publishes prepared files and their offset ranges
   * atomically; returns the snapshot id (also for an idempotent retry of covered ranges).
   */
  async commitWithProgress(progress: RealtimeCommitProgress[], commitIdentifier: bigint | number, watermark?: bigint | number | null): Promise<number> {
    const { commitWithProgress } = await import("../realtime/commit.js");
    return commitWithProgress(this.table, await this.commit_(), progress, commitIdentifier, watermark);
  }

  /**
   * Replaces data: the given partition (values of some or all partition keys), or, without
   * one, the partitions the messages write to (`dynamic-partition-overwrite`, default) or the
   * whole table. Real-time progress of the replaced partitions is reset (seed 000), and the
   * index files (deletion vectors) of the replaced partitions are removed. Write the messages
   * with an overwrite writer, `newWrite({ commitUser, overwrite: true })` (Java
   * `withOverwrite()`), which restores none of the table's files. In a deletion-vector table,
   * messages of an ordinary writer whose compaction rewrote the table's files or deletion
   * vectors (keys written again) are refused with UNSUPPORTED.
   */
  async overwrite(messages: CommitMessage[], partition?: Record<string, unknown>, commitIdentifier?: bigint | number): Promise<number | null> {
    await this.check(messages);
    const { partitionStringsOfRow } = await loadOffsets();
    const fields = this.table.partitionFields;
    let scope: PartitionScope | null = null;
    if (partition && Object.keys(partition).length > 0) {
      scope = this.partitionScope([partition], (await loadOffsets()).partitionStrings);
    } else if (fields.length > 0 && this.table.coreOptions.dynamicPartitionOverwrite) {
      const touched = new Set(messages.map((m) => m.data.partition.join(",")));
      const touchedStrings = new Set(messages.map((m) => JSON.stringify(fields.map((f) => partitionStringsOfRow(this.table, m.data.partition)[f.name]))));
      const types = fields.map((f) => f.type);
      scope = {
        filter: (p) => touched.has(serializeBinaryRow(toBinaryRow(fields.map((f) => p[f.name]), types), types.length).join(",")),
        matches: (p) => touchedStrings.has(JSON.stringify(fields.map((f) => p[f.name]))),
      };
    }
    return this.overwriteScope(messages, scope, identifierOf(commitIdentifier));
  }

  /**
   * Deletes every row (Java's `truncateTable`): one OVERWRITE snapshot without files, whose
   * real-time progress is empty. Returns its id.
   */
  async truncate(): Promise<number> {
    return (await this.overwriteScope([], null, BATCH_COMMIT_IDENTIFIER))!;
  }

  /**
   * Drops partitions (Java's `dropPartitions`): each spec gives values of some or all partition
   * keys; one OVERWRITE snapshot deletes the files of every matching partition and the real-time
   * progress of exactly those partitions. Returns its id.
   */
  async dropPartitions(partitions: Array<Record<string, unknown>>): Promise<number> {
    if (!Array.isArray(partitions) || partitions.length === 0) throw new PaimonError("INVALID_ARGUMENT", `dropPartitions of ${this.table.identifier} needs a non-empty list of partitions`);
    if (this.table.partitionFields.length === 0) throw new PaimonError("INVALID_ARGUMENT", `table ${this.table.identifier} has no partition keys; use truncate`);
    const { partitionStrings } = await loadOffsets();
    return (await this.overwriteScope([], this.partitionScope(partitions, partitionStrings), BATCH_COMMIT_IDENTIFIER))!;
  }

  /** The partitions matching any of `specs` (each: values of some or all partition keys). */
  private partitionScope(specs: ReadonlyArray<Record<string, unknown>>, partitionStrings: typeof import("../realtime/offsets.js").partitionStrings): PartitionScope {
    const fields = this.table.partitionFields;
    const opts = this.table.coreOptions;
    const parsed = specs.map((spec) => {
      if (spec === null || typeof spec !== "object" || Array.isArray(spec) || Object.keys(spec).length === 0) {
        throw new PaimonError("INVALID_ARGUMENT", `partition spec ${JSON.stringify(spec)} of table ${this.table.identifier} must name values of its partition keys [${fields.map((f) => f.name).join(", ")}]`);
      }
      const unknown = Object.keys(spec).filter((k) => !fields.some((f) => f.name === k));
      if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `unknown partition column(s) ${unknown.join(", ")} of table ${this.table.identifier}`);
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
        throw new PaimonError("INVALID_ARGUMENT", `partition spec ${JSON.stringify(spec)} of table ${this.table.identifier}: ${(e as Error).message}`);
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
  private async overwriteScope(messages: readonly CommitMessage[], scope: PartitionScope | null, identifier: bigint): Promise<number | null> {
    const { deleteUnpublishedOffsets, progressAfterOverwrite } = await loadOffsets();
    const commit = await this.commit_();
    const written: string[] = [];
    let id: number | null = null;
    try {
      id = await commit.overwrite(
        messages.map((m) => m.data),
        scope?.filter ?? null,
        identifier,
        { properties: progressAfterOverwrite(this.table, scope?.matches ?? null, written) },
      );
    } finally {
      await deleteUnpublishedOffsets(this.table, written, id);
    }
    return id;
  }

  /** Expires old snapshots and the files only they reference; returns how many expired. */
  async expireSnapshots(options: ExpireOptions = {}): Promise<number> {
    const { expireSnapshots } = await import("./expire.js");
    return expireSnapshots(this.table.fileIO, this.table.location, this.table.coreOptions, this.table.partitionFields, options);
  }
}
