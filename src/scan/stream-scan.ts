// Streaming reads, as Java Paimon 1.4.2's `DataTableStreamScan` plans them: a first plan chosen
// by `scan.mode` (Java's `StartingScanner`s: the full snapshot, or only the snapshot to continue
// from), then, call after call, the changes of each new snapshot (`FollowUpScanner`s: the delta
// files of APPEND snapshots for changelog-producer none, the changelog files of snapshots that have
// them otherwise; OVERWRITE snapshots with `streaming-read-overwrite` /
// `streaming-read-append-overwrite`). `checkpoint()` is the next snapshot to plan; with
// `consumer-id` the progress is kept in `consumer/consumer-<id>` (Java's ConsumerManager), which a
// new stream scan with the same id continues from and which snapshot expiry respects.
// Loaded lazily by `Table.newStreamScan` / `Table.streamRead` (query bundles leave it out).
// Its run-time imports of the query bundle's modules come from table.ts (`StreamScanDeps`), so
// bundlers split no shared module out of the query bundle for this lazily loaded chunk.
import type { PaimonError as PaimonErrorClass } from "../error.js";
import type { fromBinaryRow } from "../spec/binary-row.js";
import type { ManifestEntry } from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import { consumerPath, readConsumer, writeConsumer } from "../table/consumers.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { primaryKeyConfig } from "../table/primary-key.js";
import type { parseDuration } from "../table/options.js";
import { createdSince, resolveTimeTravel, timeTravelOf } from "../table/time-travel.js";
import { changelogDecoupled, listChangelogIds, tryGetChangelog } from "../table/changelogs.js";
import { streamingSplits, type IncrementalScanDeps } from "./incremental-scan.js";
import type { deletionFilesOf } from "./merge-tree-splits.js";
import type { DataSplit, Plan } from "./split.js";
import type { ScanOptions, TableScan } from "./table-scan.js";
import type { RecordBatch } from "apache-arrow";
import type { checkManifestFormatOption } from "../format/file-formats.js";
import type { checkReadOptions } from "../table/option-validation.js";
import type { ReadOptions, TableRead } from "../read/table-read.js";

/** The query bundle's modules this chunk uses, passed in by table.ts. */
export interface StreamScanDeps extends IncrementalScanDeps {
  readonly TableScan: typeof TableScan;
  readonly parseDuration: typeof parseDuration;
  readonly checkManifestFormatOption: typeof checkManifestFormatOption;
  readonly checkReadOptions: typeof checkReadOptions;
}

let D: StreamScanDeps;

/** Options of `Table.newStreamScan` / `Table.streamRead`: the pruning of `newScan` (API.md `ScanOptions`). */
export type StreamScanOptions = Pick<ScanOptions, "filter" | "partitions" | "buckets">;

/** What `StreamTableScan.plan()` returns. */
export interface StreamPlan extends Plan {
  /**
   * True once the stream has ended (`scan.bounded.watermark`: a snapshot with a larger watermark
   * was reached; Java's `EndOfScanException`); the plan has no splits and later plans end too.
   */
  readonly endOfScan: boolean;
}

/**
 * A first plan: the full snapshot to read, or the snapshot to continue from (Java's
 * `StartingScanner.Result`); `createdSince`: the latest snapshot's files created since then
 * (epoch ms), and the changes of later files (Java `FileCreationTimeStartingScanner`).
 */
type Start = { readonly full: Snapshot } | { readonly next: number } | { readonly createdSince: number } | null;

/**
 * A streaming scan (Java `StreamTableScan`): `plan()` returns the first plan, then the changes of
 * the next snapshot that has any, or an empty plan (`snapshotId` null) while there is none yet.
 * Splits are read with `table.newRead()`; with `withRowKind` a primary-key table's rows carry their
 * kinds (+I / -U / +U / -D), an append table's are +I.
 */
export class StreamTableScan {
  private nextSnapshotId: number | null = null;
  private fullPhaseEnd = false;
  private ended = false;
  private readonly consumerId: string | null;
  private readonly atLeastOnce: boolean;
  private readonly boundedWatermark: bigint | null;
  private readonly delayMs: number | null;
  /** The scan whose pruning (and full plans) this stream uses. */
  private readonly scan: TableScan;

  private constructor(
    private readonly table: FileStoreTable,
    private readonly options: StreamScanOptions,
  ) {
    const o = table.schema.options;
    const fail = (text: string) => new D.PaimonError("INVALID_ARGUMENT", `stream scan of table ${table.identifier}: ${text}`);
    const id = o["consumer-id"];
    if (id !== undefined) consumerPath(table.paths.metaRoot, id); // validated before any read
    this.consumerId = id ?? null;
    const mode = (o["consumer.mode"] ?? "exactly-once").toLowerCase();
    if (mode !== "exactly-once" && mode !== "at-least-once") throw fail(`consumer.mode=${o["consumer.mode"]} is not one of exactly-once, at-least-once`);
    this.atLeastOnce = mode === "at-least-once";
    const bound = o["scan.bounded.watermark"];
    if (bound !== undefined && !/^\s*[+-]?\d+\s*$/.test(bound)) throw fail(`scan.bounded.watermark=${bound} is not an integer`);
    this.boundedWatermark = bound === undefined ? null : BigInt(bound.trim());
    this.delayMs = o["streaming.read.snapshot.delay"] === undefined ? null : D.parseDuration(o["streaming.read.snapshot.delay"], "streaming.read.snapshot.delay");
    const unsupported = ["stream-scan-mode", "streaming-compact"].find((k) => o[k] !== undefined);
    if (unsupported !== undefined) throw new D.PaimonError("UNSUPPORTED", `stream scan of table ${table.identifier}: option ${unsupported}=${o[unsupported]} is not supported`);
    if (table.schema.primaryKeys.length > 0 && isTrue(o["streaming-read-overwrite"]) && ["lookup", "full-compaction"].includes(this.changelogProducer)) {
      // Java SchemaValidation: it would read the overwrite's changes twice
      throw fail(`Cannot set streaming-read-overwrite to true when changelog producer is full-compaction or lookup because it will read duplicated changes.`);
    }
    this.scan = new D.TableScan(table, options);
  }

  /**
   * A stream scan of `table` whose start is found now, as Java's starting scanners are made with
   * the scan (`latest-full` reads the snapshot latest now; `latest` follows the snapshot latest now,
   * or reads from snapshot 1 when the table has none yet; a consumer's progress is read now).
   */
  static async open(table: FileStoreTable, options: StreamScanOptions = {}, deps: StreamScanDeps): Promise<StreamTableScan> {
    D = deps;
    // as newScan checks them
    deps.checkManifestFormatOption(table.schema.options, table.identifier);
    deps.checkReadOptions(table.schema.options, table.identifier);
    if (table.pinnedSnapshotId !== null) throw new D.PaimonError("UNSUPPORTED", `table ${table.identifier} at snapshot ${table.pinnedSnapshotId} is a time-travel view; stream the table itself (scan.snapshot-id starts a stream at a snapshot)`);
    const scan = new StreamTableScan(table, options);
    scan.initial = await scan.start(false);
    return scan;
  }

  /** The start found when the scan was opened; null: none then (found again at the first plan). */
  private initial: Start = null;

  private get changelogProducer(): string {
    return (this.table.schema.options["changelog-producer"] ?? "none").toLowerCase();
  }

  /**
   * The next plan: the first call plans the start (`scan.mode`, or the consumer's saved progress),
   * later calls the changes of the next snapshot with changes to read; an empty plan (`snapshotId`
   * null, no splits) when there is no new snapshot yet. NOT_FOUND when the next snapshot has
   * expired (keep it with `consumer-id` or longer retention).
   */
  async plan(): Promise<StreamPlan> {
    if (this.atLeastOnce && this.nextSnapshotId !== null) await this.saveConsumer(this.nextSnapshotId); // the previous plan was consumed
    if (this.nextSnapshotId === null) return this.firstPlan();
    return this.nextPlan();
  }

  /** The next snapshot a plan reads (Java `checkpoint()`); null before the first plan found a snapshot. */
  checkpoint(): number | null {
    return this.nextSnapshotId;
  }

  /** Continues from snapshot `nextSnapshotId` (a `checkpoint()` value): the next plan reads its changes; null plans the start again. */
  restore(nextSnapshotId: number | null): void {
    if (nextSnapshotId !== null && !(Number.isSafeInteger(nextSnapshotId) && nextSnapshotId >= 1)) {
      throw new D.PaimonError("INVALID_ARGUMENT", `stream scan of table ${this.table.identifier}: restore needs a positive snapshot id, got ${nextSnapshotId}`);
    }
    this.nextSnapshotId = nextSnapshotId;
    this.fullPhaseEnd = false;
    this.ended = false;
  }

  /**
   * The plans up to `checkpoint()` value `nextSnapshot` are processed: with `consumer-id`, saved as
   * the consumer's progress (`consumer/consumer-<id>`, Java's JSON, replaced atomically), which keeps
   * that snapshot from expiring and where a new stream scan with the same id starts.
   */
  async notifyCheckpointComplete(nextSnapshot: number | null): Promise<void> {
    if (nextSnapshot === null) return;
    if (!Number.isSafeInteger(nextSnapshot) || nextSnapshot < 1) throw new D.PaimonError("INVALID_ARGUMENT", `stream scan of table ${this.table.identifier}: notifyCheckpointComplete needs a positive snapshot id, got ${nextSnapshot}`);
    // (written even when unchanged, as Java: the file's modification time keeps an idle consumer from consumer.expiration-time)
    await this.saveConsumer(nextSnapshot, true);
  }

  private async saveConsumer(nextSnapshot: number, always = false): Promise<void> {
    // (at-least-once saves before every plan: a poll that found nothing new writes nothing)
    if (this.consumerId === null || (nextSnapshot === this.saved && !always)) return;
    await writeConsumer(this.table.fileIO, this.table.paths.metaRoot, this.consumerId, nextSnapshot);
    this.saved = nextSnapshot;
  }

  /** The progress this scan saved last. */
  private saved: number | null = null;

  private async firstPlan(): Promise<StreamPlan> {
    const start = this.initial ?? (await this.start(true));
    const snapshots = this.table.snapshotManager;
    if (start === null) return plan(null, [], false);
    if ("createdSince" in start) {
      // the snapshot latest now, as Java's scanner reads it when it plans; later plans keep the filter
      this.created = createdSince(start.createdSince);
      const full = await new D.TableScan(this.table, { ...this.options, ...this.levels(), streaming: true }).plan();
      if (full.snapshotId === null) return plan(null, [], false);
      this.nextSnapshotId = full.snapshotId + 1;
      this.fullPhaseEnd = this.bounded(await snapshots.snapshot(full.snapshotId));
      return plan(full.snapshotId, full.splits, false);
    }
    if ("next" in start) {
      this.nextSnapshotId = start.next;
      const before = await snapshots.tryGetSnapshot(start.next - 1);
      this.fullPhaseEnd = before !== null && this.bounded(before);
      return plan(null, [], false);
    }
    const s = start.full;
    this.nextSnapshotId = s.id + 1;
    this.fullPhaseEnd = this.bounded(s);
    const full = await new D.TableScan(this.table, { ...this.options, ...this.levels(), snapshotId: s.id, streaming: true }).plan();
    return plan(s.id, full.splits, false);
  }

  /** The levels a full plan reads. Java: lookup changelogs come from compacting level 0 later, full-compaction ones from the top level. */
  private levels(): ScanOptions {
    const producer = this.changelogProducer;
    const pk = this.table.schema.primaryKeys.length > 0;
    return pk && producer === "lookup" ? { minLevel: 1 } : pk && producer === "full-compaction" ? { level: D.primaryKeyConfig(this.table.coreOptions).numLevels - 1 } : {};
  }

  /** Set by a start from file creation time: the files later plans keep. */
  private created: ((e: ManifestEntry) => boolean) | null = null;

  /**
   * Java `AbstractDataTableScan.createStartingScanner(true)` with the scanner's `scan`; `again`:
   * at a first plan, the scan having found no start when it was opened.
   */
  private async start(again: boolean): Promise<Start> {
    const t = this.table;
    const o = t.schema.options;
    const snapshots = t.snapshotManager;
    const fail = (text: string) => new D.PaimonError("INVALID_ARGUMENT", `stream scan of table ${t.identifier}: ${text}`);
    const earliest = await snapshots.earliestSnapshotId();
    // Java ContinuousFromSnapshotStartingScanner: with decoupled changelogs the earliest
    // long-lived changelog is where a stream can start
    const earliestChangelog = changelogDecoupled(t.coreOptions) ? ((await listChangelogIds(snapshots))[0] ?? null) : null;
    const earliestStart = earliestChangelog ?? earliest;
    if (this.consumerId !== null && !isTrue(o["consumer.ignore-progress"])) {
      const next = await readConsumer(t.fileIO, t.paths.metaRoot, this.consumerId);
      if (next !== null) return earliestStart === null ? null : { next: Math.max(next, earliestStart) };
    }
    const travel = timeTravelOf(t); // validates the scan.* options as a batch scan does
    const modeText = (o["scan.mode"] ?? o["log.scan"] ?? "default").toLowerCase();
    if (travel?.kind === "incremental") throw fail("Cannot read incremental in streaming mode.");
    if (travel?.kind === "tag") throw fail("Cannot scan from tag in streaming mode.");
    if (travel === null) {
      const latest = await snapshots.latestSnapshot();
      if (latest === null) return null;
      // latest: the changes after the latest snapshot (from the first when there was none at the start)
      return modeText === "latest" ? { next: again ? 1 : latest.id + 1 } : { full: latest };
    }
    if (travel.kind === "compacted") {
      const s = await resolveTimeTravel(snapshots, t.identifier, travel, false);
      return s === null ? null : { full: s };
    }
    if (travel.kind === "snapshot") {
      if (earliest === null) return null;
      return modeText === "from-snapshot-full" ? { full: await snapshots.snapshot(Math.max(travel.id, earliest)) } : { next: Math.max(travel.id, earliestStart!) };
    }
    if (travel.kind === "file-creation") return { createdSince: travel.millis };
    // from-timestamp: after the newest snapshot strictly earlier than the time (Java earlierThanTimeMills)
    // (Java TimeTravelUtil.earlierThanTimeMills: with decoupled changelogs over them too)
    const latestId = await snapshots.latestSnapshotId();
    // from-creation-timestamp (Java createCreationTimestampStartingScanner): from the first
    // snapshot at or after the time when there is one after an earlier one, else from file creation time
    const creation = travel.kind === "creation";
    if (latestId === null || earliest === null) return creation ? { createdSince: travel.millis } : null;
    const at = async (id: number) => (earliestChangelog !== null ? await tryGetChangelog(snapshots, id) : null) ?? (await snapshots.snapshot(id));
    const first = await at(earliestStart!);
    if (first.timeMillis >= travel.millis) return creation ? { createdSince: travel.millis } : { next: earliestStart! };
    let lo = earliestStart!;
    let hi = latestId;
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2);
      if ((await at(mid)).timeMillis < travel.millis) lo = mid;
      else hi = mid - 1;
    }
    return creation && lo === latestId ? { createdSince: travel.millis } : { next: lo + 1 };
  }

  private async nextPlan(): Promise<StreamPlan> {
    const t = this.table;
    const pk = t.schema.primaryKeys.length > 0;
    for (;;) {
      if (this.fullPhaseEnd || this.ended) return this.end();
      const id = this.nextSnapshotId!;
      const snapshot = await this.nextSnapshot(id);
      if (snapshot === null) return plan(null, [], false);
      if (this.bounded(snapshot)) return this.end();
      if (this.delayMs !== null && snapshot.timeMillis > Date.now() - this.delayMs) return plan(null, [], false);
      let splits: DataSplit[] | null = null;
      if (snapshot.commitKind === "OVERWRITE" && isTrue(t.schema.options[pk ? "streaming-read-overwrite" : "streaming-read-append-overwrite"])) {
        splits = pk ? await this.overwriteChanges(snapshot) : await this.files(snapshot, snapshot.deltaManifestList);
      } else if (this.changelogProducer === "none" ? snapshot.commitKind === "APPEND" : snapshot.changelogManifestList !== null) {
        // Java DeltaFollowUpScanner (COMPACT, OVERWRITE snapshots skipped) / ChangelogFollowUpScanner
        splits = await this.files(snapshot, this.changelogProducer === "none" ? snapshot.deltaManifestList : snapshot.changelogManifestList!);
      }
      this.nextSnapshotId = id + 1;
      if (splits !== null && splits.length > 0) return plan(snapshot.id, splits, false);
    }
  }

  private end(): StreamPlan {
    this.ended = true;
    return plan(null, [], true);
  }

  private bounded(s: Snapshot): boolean {
    return this.boundedWatermark !== null && s.watermark !== null && s.watermark > this.boundedWatermark;
  }

  /**
   * Java `NextSnapshotFetcher.getNextSnapshot` with its range check: null while snapshot `id` is
   * yet to come. With decoupled changelogs an expired snapshot is read from its long-lived changelog.
   */
  private async nextSnapshot(id: number): Promise<Snapshot | null> {
    const snapshots = this.table.snapshotManager;
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) return s;
    const decoupled = changelogDecoupled(this.table.coreOptions);
    const changelog = decoupled ? await tryGetChangelog(snapshots, id) : null;
    if (changelog !== null) return changelog;
    const earliest = await snapshots.earliestSnapshotId();
    const latest = await snapshots.latestSnapshotId();
    const name = this.table.identifier;
    if (earliest !== null && earliest > id && !decoupled) {
      throw new D.PaimonError(
        "NOT_FOUND",
        `stream scan of table ${name}: The snapshot with id ${id} has expired. You can: 1. increase the snapshot or changelog expiration time. 2. use consumer-id to ensure that unconsumed snapshots will not be expired.`,
      );
    }
    if ((earliest === null && id > 1) || (latest !== null && id > latest + 1)) {
      throw new D.PaimonError("INVALID_ARGUMENT", `stream scan of table ${name}: The next expected snapshot is too big! Most possible cause might be the table had been recreated.The next snapshot id is ${id}, while the latest snapshot id is ${latest}`);
    }
    return null;
  }

  /** The ADD files of manifest list `list` of `s`, pruned as the scan prunes, as streaming splits. */
  private async files(s: Snapshot, list: string): Promise<DataSplit[]> {
    return streamingSplits(this.table, (await this.entries(list)).filter((e) => e.kind === 0), s.id, D);
  }

  private async entries(list: string): Promise<ManifestEntry[]> {
    const store = this.table.manifestStore;
    const { keepManifest, keepEntry, keepFile } = this.scan.filters();
    // (primary-key files are pruned by partition and bucket only: Java filters their keys, not values)
    const pruned = this.table.schema.primaryKeys.length > 0 ? keepEntry : keepFile;
    const created = this.created;
    const keep = created === null ? pruned : (e: ManifestEntry) => pruned(e) && created(e);
    const manifests = (await store.readManifestList(list)).filter(keepManifest);
    return (await Promise.all(manifests.map((m) => store.readManifest(m.fileName)))).flat().filter(keep);
  }

  /**
   * Java `SnapshotReader.readChanges` of an OVERWRITE snapshot of a primary-key table: per
   * partition-bucket the files it deleted (read merged, row kinds reversed) and those it added
   * (read merged).
   */
  private async overwriteChanges(s: Snapshot): Promise<DataSplit[]> {
    const entries = await this.entries(s.deltaManifestList);
    const splits: DataSplit[] = [];
    for (const split of streamingSplits(this.table, entries, s.id, D)) {
      const of = (kind: number) => entries.filter((e) => e.bucket === split.bucket && e.partition.join(",") === split.partitionRow.join(",") && e.kind === kind).map((e) => e.file);
      splits.push({ ...split, files: of(0), diffBefore: { files: of(1) } });
    }
    return splits;
  }
}

function plan(snapshotId: number | null, splits: DataSplit[], endOfScan: boolean): StreamPlan {
  return { snapshotId, splits, endOfScan };
}

function isTrue(v: string | undefined): boolean {
  return (v ?? "").trim().toLowerCase() === "true";
}

/** Options of `Table.streamRead`. */
export interface StreamReadOptions extends StreamScanOptions {
  /** How long to wait before looking again when there is no new snapshot (default 1000 ms). */
  pollIntervalMs?: number;
  /** Stops the stream (the iteration ends; a pending wait is cut short). */
  signal?: AbortSignal;
  /** Read options of the batches (`projection`, `filter`, `batchSize`, …; `withRowKind` defaults to true). */
  read?: ReadOptions;
}

/**
 * Polls stream scan `scan` of `table` and yields the batches of each plan (read with `newRead`);
 * after each plan's batches, with `consumer-id`, the progress is saved (`notifyCheckpointComplete`).
 */
export async function* streamBatches(
  scan: StreamTableScan,
  newRead: (options: ReadOptions) => TableRead,
  options: StreamReadOptions = {},
): AsyncGenerator<RecordBatch, void, undefined> {
  const { signal, pollIntervalMs = 1000 } = options;
  if (!(Number.isFinite(pollIntervalMs) && pollIntervalMs >= 0)) throw new D.PaimonError("INVALID_ARGUMENT", `pollIntervalMs must be a non-negative number, got ${pollIntervalMs}`);
  const read = newRead({ withRowKind: true, ...options.read });
  const aborted = () => signal?.aborted === true;
  let notified = Date.now();
  while (!aborted()) {
    const p = await scan.plan();
    if (p.endOfScan) return;
    if (p.snapshotId === null && p.splits.length === 0) {
      // an idle stream refreshes its consumer now and then, as Flink's checkpoints do (consumer.expiration-time)
      if (Date.now() - notified >= IDLE_NOTIFY_MS && scan.checkpoint() !== null) {
        await scan.notifyCheckpointComplete(scan.checkpoint());
        notified = Date.now();
      }
      await sleep(pollIntervalMs, signal);
      continue;
    }
    const reader = await read.createReader(p.splits);
    try {
      for await (const b of reader) {
        yield b;
        if (aborted()) return;
      }
    } finally {
      await reader.close();
    }
    await scan.notifyCheckpointComplete(scan.checkpoint());
    notified = Date.now();
  }
}

/** How often an idle `streamRead` rewrites its consumer file (keeping it from `consumer.expiration-time`). */
const IDLE_NOTIFY_MS = 60_000;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
