// TableCommit (API.md): commits CommitMessages as snapshots, overwrites partitions and
// expires old snapshots.
import { PaimonError } from "../error.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { CommitMessage } from "./commit-message.js";
import type { ExpireOptions } from "./expire.js";
import type { PartitionExpireOptions } from "./partition-expire.js";
import type { FileStoreCommit } from "./file-store-commit.js";
import type { RealtimeCommitProgress } from "../realtime/types.js";
import type { TagMaintenance } from "../table/tag-auto.js";

// Table.newCommit is synchronous, so this class is in every bundle that can open a table; what it
// does (validation, overwrite scopes, the commit protocol, real-time progress) is imported on
// first use from commit-operations.ts, so a query-only bundle carries no commit code.
const operations = () => import("./commit-operations.js");
/** Loaded only by tables with `partition.expiration-time` (and explicit expirePartitions). */
const partitionExpire = () => import("./partition-expire.js");
/** Loaded only by tables that create tags or give them a retention (`maintainsTags` below). */
const tagAuto = () => import("../table/tag-auto.js");

/**
 * The options that make a commit maintain tags (checked here, so that other tables do not load
 * tag-auto.ts): `tag.automatic-creation` other than `none`, or `tag.default-time-retained` (the
 * tags it gives a retention expire by time).
 */
function maintainsTags(options: Readonly<Record<string, string>>): boolean {
  const mode = options["tag.automatic-creation"];
  return (mode !== undefined && mode.toLowerCase() !== "none") || options["tag.default-time-retained"] !== undefined;
}

export class TableCommit {
  private fileStoreCommit: FileStoreCommit | undefined;
  /** The tags this commit object creates and expires (Java's `TagAutoManager` of a `TableCommitImpl`). */
  private tagMaintenance: TagMaintenance | undefined;

  constructor(
    private readonly table: FileStoreTable,
    readonly commitUser: string,
  ) {
    if (typeof commitUser !== "string" || commitUser === "") throw new PaimonError("INVALID_ARGUMENT", "newCommit needs a non-empty commitUser");
  }

  /** The file-store commit of this user (one per TableCommit: it caches the user's latest commit). */
  private async commit_(): Promise<FileStoreCommit> {
    if (!this.fileStoreCommit) {
      const { fileStoreCommitOf } = await operations();
      // as Java's newCommit: bad partition-expiry options fail before anything is committed
      if (this.expiresPartitions) (await partitionExpire()).partitionExpireConfig(this.table.coreOptions.raw);
      // as Java's newCommit (TagAutoManager.create): bad tag options fail here, and the auto-tag
      // series is read before this object's first commit; write-only tables make no tags
      if (maintainsTags(this.table.coreOptions.raw) && !this.table.coreOptions.bool("write-only", false)) {
        const { TagMaintenance } = await tagAuto();
        const t = this.table;
        this.tagMaintenance ??= await TagMaintenance.create({ name: t.identifier, snapshots: t.snapshotManager, manifests: t.manifestStore, options: t.coreOptions });
      }
      this.fileStoreCommit ??= fileStoreCommitOf(this.table, this.commitUser);
    }
    return this.fileStoreCommit;
  }

  /**
   * Commits the messages as one transaction of this commit user. Returns the new snapshot
   * id, or null when there was nothing to commit. As Java's `StreamTableCommit.commit`, the
   * identifier is not compared with earlier commits: use {@link filterAndCommit} to retry
   * commits that may have succeeded already. Committing messages whose files are already in
   * the table (the same messages twice) fails with COMMIT_CONFLICT and publishes nothing.
   */
  async commit(messages: CommitMessage[], commitIdentifier?: bigint | number): Promise<number | null> {
    const { checkMessages, crossPartitionCommitOptions, identifierOf, BATCH_COMMIT_IDENTIFIER } = await operations();
    checkMessages(this.table, messages);
    const identifier = identifierOf(commitIdentifier);
    const id = await (await this.commit_()).commit(
      messages.map((m) => m.data),
      identifier,
      crossPartitionCommitOptions(this.table, this.commitUser, messages),
    );
    return this.maintain(id, id, identifier, identifier === BATCH_COMMIT_IDENTIFIER);
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
    const { checkMessages, identifierOf, BATCH_COMMIT_IDENTIFIER } = await operations();
    const byIdentifier = new Map<bigint, CommitMessage["data"][]>();
    for (const [id, messages] of committables) {
      checkMessages(this.table, messages);
      const identifier = identifierOf(id);
      if (identifier === BATCH_COMMIT_IDENTIFIER || byIdentifier.has(identifier)) throw new PaimonError("INVALID_ARGUMENT", `filterAndCommit needs distinct streaming commit identifiers; got ${String(id)} twice or as the batch identifier`);
      byIdentifier.set(identifier, messages.map((m: CommitMessage) => m.data));
    }
    const committed = await (await this.commit_()).filterAndCommit(byIdentifier);
    // committed in increasing order after the skipped ones: the last is the greatest
    const last = [...byIdentifier.keys()].reduce((a, b) => (a > b ? a : b), 0n);
    return this.maintain(committed, committed > 0 ? undefined : null, last);
  }

  /**
   * Java's `TableCommit.abort`: deletes the data, changelog and index files of messages that
   * will not be committed (a commit gives up with COMMIT_CONFLICT but leaves the messages' files
   * to their owner, as Java does). Files that any snapshot of the table references are never
   * deleted, so aborting messages that were committed after all is harmless.
   */
  async abort(messages: CommitMessage[]): Promise<void> {
    const { checkMessages } = await operations();
    checkMessages(this.table, messages);
    await (await this.commit_()).abort(messages.map((m) => m.data));
  }

  /**
   * Real-time commit (src/realtime/commit.ts): publishes prepared files and their offset ranges
   * atomically; returns the snapshot id (also for an idempotent retry of covered ranges).
   */
  async commitWithProgress(progress: RealtimeCommitProgress[], commitIdentifier: bigint | number, watermark?: bigint | number | null): Promise<number> {
    const { commitWithProgress } = await import("../realtime/commit.js");
    const id = await commitWithProgress(this.table, await this.commit_(), progress, commitIdentifier, watermark);
    return this.maintain(id, id, BigInt(commitIdentifier));
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
    const { overwrite, identifierOf, BATCH_COMMIT_IDENTIFIER } = await operations();
    const identifier = identifierOf(commitIdentifier);
    const id = await overwrite(this.table, await this.commit_(), messages, partition, identifier);
    return this.maintain(id, id, identifier, identifier === BATCH_COMMIT_IDENTIFIER);
  }

  /**
   * Deletes every row (Java's `truncateTable`): one OVERWRITE snapshot without files, whose
   * real-time progress is empty. Returns its id.
   */
  async truncate(): Promise<number> {
    const { truncate, BATCH_COMMIT_IDENTIFIER } = await operations();
    const id = await truncate(this.table, await this.commit_());
    return this.maintain(id, id, BATCH_COMMIT_IDENTIFIER);
  }

  /**
   * Drops partitions (Java's `dropPartitions`): each spec gives values of some or all partition
   * keys; one OVERWRITE snapshot deletes the files of every matching partition and the real-time
   * progress of exactly those partitions. Returns its id.
   */
  async dropPartitions(partitions: Array<Record<string, unknown>>): Promise<number> {
    const { dropPartitions, BATCH_COMMIT_IDENTIFIER } = await operations();
    const id = await dropPartitions(this.table, await this.commit_(), partitions);
    return this.maintain(id, id, BATCH_COMMIT_IDENTIFIER);
  }

  /** The table sets `partition.expiration-time`: its commits drop expired partitions. */
  private get expiresPartitions(): boolean {
    return this.table.coreOptions.get("partition.expiration-time") !== undefined;
  }

  /**
   * What Java's commit does after every commit (`TableCommitImpl.maintain`) unless the table is
   * `write-only`: tags (`tag.automatic-creation`: auto tags of the new snapshots, or after a batch
   * write — `batchWrite`: commit / overwrite of the batch identifier — the batch tag Flink makes
   * when a batch job ends; tags past their `tagTimeRetained` go), partition expiry
   * (`partition.expiration-time`, at most once per
   * `partition.expiration-check-interval` per table object, the dropping snapshots carrying the
   * commit's `identifier`), then snapshot expiry by the table's retention options
   * (`snapshot.num-retained.*`, `snapshot.time-retained`, consumers). Best effort: the commit has
   * succeeded, so a failure leaves the partitions and snapshots for the next commit or an
   * explicit {@link expirePartitions} / {@link expireSnapshots}, which report it.
   */
  private async maintain<T>(result: T, latest: number | null | undefined, identifier: bigint, batchWrite = false): Promise<T> {
    if (latest === null) return result;
    await this.tagMaintenance?.afterCommit(batchWrite).catch(() => undefined);
    if (this.expiresPartitions) {
      const { expirePartitionsAfterCommit } = await partitionExpire();
      if ((await expirePartitionsAfterCommit(this.table, await this.commit_(), identifier).catch(() => null))?.length) latest = undefined;
    }
    const { expireAfterCommit } = await import("./expire.js");
    await expireAfterCommit(this.table.fileIO, this.table.location, this.table.coreOptions, this.table.partitionFields, this.table, latest).catch(() => 0);
    return result;
  }

  /**
   * Drops the partitions older than the expiration time now, as Java's `expire_partitions`
   * procedure (an extension beyond API.md): the table's `partition.*` expiry options, each
   * overridable by `options`, without the check interval. Partitions whose values do not parse
   * as a time (values-time) are kept. Returns the dropped partitions in Java's order (values
   * joined with ',' sorted), each as Java prints it: key to the internal value's string (a DATE
   * is its day number), the default partition name for null. The dropping snapshots (one per
   * `partition.expiration-batch-size`) are OVERWRITE commits of the batch identifier, resetting
   * the real-time progress of exactly those partitions, as {@link dropPartitions}.
   */
  async expirePartitions(options: PartitionExpireOptions = {}): Promise<Array<Record<string, string>>> {
    const { expirePartitionsNow } = await partitionExpire();
    const { BATCH_COMMIT_IDENTIFIER } = await operations();
    return expirePartitionsNow(this.table, await this.commit_(), options, BATCH_COMMIT_IDENTIFIER);
  }

  /** Expires old snapshots and the files only they reference; returns how many expired. */
  async expireSnapshots(options: ExpireOptions = {}): Promise<number> {
    const { expireSnapshots } = await import("./expire.js");
    return expireSnapshots(this.table.fileIO, this.table.location, this.table.coreOptions, this.table.partitionFields, options);
  }
}
