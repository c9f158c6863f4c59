// RealtimeContext: the process-local owner of one table's real-time stores (one per
// partition-bucket), shared by writers, scans and reads; tracks committed progress, pins read
// views behind opaque TTL tickets, reclaims memory on refresh, and becomes invalid after a
// terminal failure.
import { PaimonError } from "../error.js";
import { OffsetIndexCache } from "../read/offset-positions.js";
import { randomId } from "../fs/file-io.js";
import type { Predicate } from "../predicate/predicate.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { DedupEntryState } from "./dedup.js";
import { DedupLookupCache, dedupLookupOptions } from "./dedup-lookup.js";
import type { FrozenDeletedOffsets } from "./dedup-key-index.js";
import { Mutex } from "./mutex.js";
import { ArrowRealtimeStoreFactory } from "./arrow-store.js";
import { deletedPartitionBuckets, progressSourceOf, tableOffsetsOf, type OffsetMap } from "./offsets.js";
import type { RealtimeReadView, RealtimeSegmentHandle, RealtimeStore, RealtimeStoreCreateRequest, RealtimeStoreFactory } from "./store.js";
import { describePartitionBucket, type RealtimeMetrics } from "./types.js";

/** One partition-bucket's store and the framework's bookkeeping around it. */
export interface StoreEntry {
  readonly key: string;
  /** Logical partition strings. */
  readonly partition: Record<string, string>;
  /** Internal partition values by key name. */
  readonly partitionValues: Record<string, unknown>;
  readonly internalValues: unknown[];
  readonly partitionRow: Uint8Array;
  readonly bucket: number;
  readonly store: RealtimeStore;
  readonly description: string;
  /** The smallest offset the next write may use. */
  nextOffset: bigint;
  /** Committed end known to the context (memory covers offsets from here); null = nothing committed. */
  baseEnd: bigint | null;
  /** Snapshot `baseEnd` comes from. */
  baseSnapshotId: number | null;
  /** End of the last prepared range (progress continues from here). */
  preparedEnd: bigint | null;
  /** Sealed segments not yet written to table files, in order. */
  unprepared: RealtimeSegmentHandle[];
  /**
   * PRIMARY_KEY: the sequence number the next stored row gets (continues the bucket's committed
   * maximum; kept across writer hand-off); null until the first PK write.
   */
  nextSequence: bigint | null;
  /** DEDUPLICATE: the key index and pending deletions (set by the writer mode on first use). */
  dedup: DedupEntryState | null;
}

export interface EntryIdentity {
  key: string;
  partition: Record<string, string>;
  partitionValues: Record<string, unknown>;
  internalValues: unknown[];
  partitionRow: Uint8Array;
  bucket: number;
}

/** A read view (and DEDUPLICATE: the deletions frozen with it) plus a reference count (tickets and readers each hold one). */
export class PinnedView {
  private refs = 1;
  constructor(
    readonly entry: StoreEntry,
    readonly view: RealtimeReadView,
    private readonly deleted: FrozenDeletedOffsets | null = null,
  ) {}

  retain(): void {
    this.refs++;
  }

  async release(): Promise<void> {
    if (this.refs <= 0) return;
    if (--this.refs === 0) {
      this.deleted?.release?.();
      await this.view.release();
    }
  }
}

export interface Ticket {
  readonly id: string;
  readonly entry: StoreEntry;
  readonly pinned: PinnedView;
  readonly committedEnd: bigint;
  readonly memoryEnd: bigint;
  readonly expiresAt: number;
  readonly scanFilter: Predicate | null;
  /** DEDUPLICATE: the pending deleted offsets pinned with the view (applied to memory and disk rows). */
  readonly deleted: FrozenDeletedOffsets | null;
}

export class RealtimeContext {
  /** Creates a context; `factory` customises the stores (default: the Arrow store). */
  static async create(factory?: RealtimeStoreFactory): Promise<RealtimeContext> {
    if (factory === null) throw new PaimonError("INVALID_ARGUMENT", "real-time store factory is null");
    if (factory !== undefined && (typeof factory !== "object" || typeof factory.create !== "function")) {
      throw new PaimonError("INVALID_ARGUMENT", "a RealtimeStoreFactory needs a create(request) method");
    }
    return new RealtimeContext(factory ?? new ArrowRealtimeStoreFactory());
  }

  private readonly entries = new Map<string, StoreEntry>();
  private readonly pendingEntries = new Map<string, Promise<StoreEntry>>();
  private readonly tickets = new Map<string, Ticket>();
  private sweeper: ReturnType<typeof setInterval> | null = null;
  /**
   * Ticket ids: this context's random prefix and a counter (unique per context, never reused);
   * a UUID per plan cost a key lookup more than the rest of issuing its ticket.
   */
  private readonly ticketPrefix = `rt-${randomId()}-`;
  private ticketCounter = 0;
  private tableLocation: string | null = null;
  private schemaId: number | null = null;
  private invalidReason: string | null = null;
  /** Highest snapshot refreshed to (or seen when creating stores). */
  private lastRefreshedSnapshotId: number | null = null;
  private knownSnapshotId: number | null = null;
  /** Serialises seal / prepare / refresh / close across the writers of this context. */
  readonly lifecycle = new Mutex();
  /** DEDUPLICATE: decoded offset indexes of committed files, shared by every read of this context. */
  private offsetIndexes: OffsetIndexCache | null = null;
  private dedupLookups: DedupLookupCache | null = null;

  private constructor(readonly factory: RealtimeStoreFactory) {}

  /** Store accounting summed over every partition-bucket (exact at the time of the call). */
  getMetrics(): RealtimeMetrics {
    let bb = 0;
    let sb = 0;
    let br = 0;
    let sr = 0;
    for (const e of this.entries.values()) {
      const u = e.store.getDataUsage();
      bb += u.buildingMemoryBytes + (e.dedup?.memoryBytes ?? 0);
      sb += u.sealedMemoryBytes;
      br += u.buildingRowCount;
      sr += u.sealedRowCount;
    }
    return {
      realtimeBuildingMemoryBytes: bb,
      realtimeSealedMemoryBytes: sb,
      realtimeTotalMemoryBytes: bb + sb,
      realtimeBuildingRowCount: br,
      realtimeSealedRowCount: sr,
      realtimeTotalRowCount: br + sr,
    };
  }

  /** Why the context can no longer be used, or null while it is healthy. */
  get invalidatedReason(): string | null {
    return this.invalidReason;
  }

  /** Releases every store, ticket and spill file; the context cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.invalidReason === null) this.invalidReason = "the context was closed";
    this.offsetIndexes?.clear();
    this.dedupLookups?.clear();
    await this.releaseAll();
  }

  // ------------------------------------------------------------------------------------------
  // Framework internals (used by the real-time writer, scan, read and commit)

  /** CONTEXT_INVALIDATED when the context suffered a terminal failure. */
  checkValid(): void {
    if (this.invalidReason !== null) throw new PaimonError("CONTEXT_INVALIDATED", `real-time context cannot be reused: ${this.invalidReason}; recreate the RealtimeContext and replay from the committed offsets`);
  }

  /** Marks the context unusable (terminal failure); returns the CONTEXT_INVALIDATED error to throw. */
  invalidate(reason: string, cause?: unknown): PaimonError {
    if (this.invalidReason === null) this.invalidReason = reason;
    return new PaimonError("CONTEXT_INVALIDATED", `real-time context invalidated: ${reason}`, cause === undefined ? undefined : { cause });
  }

  /** Binds the context to one table (a context serves exactly one table and schema). */
  bind(table: FileStoreTable): void {
    this.checkValid();
    // real-time progress (`metadata/`, keyed by snapshot id) is the main branch's
    if (table.paths.branch !== "main") throw new PaimonError("UNSUPPORTED", `table ${table.identifier} is on branch ${table.paths.branch}: real-time contexts serve the main branch only`);
    if (this.tableLocation === null) {
      this.tableLocation = table.location;
      this.schemaId = table.schema.id;
      return;
    }
    if (this.tableLocation !== table.location) throw new PaimonError("INVALID_ARGUMENT", `this RealtimeContext serves table ${this.tableLocation}; use a separate context for ${table.location}`);
    if (this.schemaId !== table.schema.id) throw new PaimonError("INVALID_ARGUMENT", `table ${table.identifier} changed schema (${this.schemaId} -> ${table.schema.id}); recreate the RealtimeContext and writer and replay uncommitted input`);
  }

  /**
   * DEDUPLICATE reads: the context's cache of decoded exact offset indexes (data files are
   * immutable), bounded by the table's `lookup.cache-max-memory-size`.
   */
  offsetIndexCache(table: FileStoreTable): OffsetIndexCache {
    return (this.offsetIndexes ??= new OffsetIndexCache(table.coreOptions.lookupCacheMaxMemorySize));
  }

  /**
   * DEDUPLICATE writes: the context's cache of committed keys per data file (filters and key
   * tables), configured by the table's cache-page-size, lookup.cache-max-memory-size and
   * lookup.cache.high-priority-pool-ratio. Not store memory: the metrics leave it out.
   */
  dedupLookupCache(table: FileStoreTable): DedupLookupCache {
    return (this.dedupLookups ??= new DedupLookupCache(dedupLookupOptions(table.coreOptions)));
  }

  /** Bytes held by the deduplicate lookup cache (0 before the first deduplicate write). */
  get dedupLookupCacheBytes(): number {
    return this.dedupLookups?.memoryBytes ?? 0;
  }

  entry(key: string): StoreEntry | undefined {
    return this.entries.get(key);
  }

  allEntries(): StoreEntry[] {
    return [...this.entries.values()];
  }

  /** The entry of a partition-bucket, creating its store (and loading committed progress) on first use. */
  async getOrCreateEntry(table: FileStoreTable, id: EntryIdentity, request: (description: string) => RealtimeStoreCreateRequest): Promise<StoreEntry> {
    const existing = this.entries.get(id.key);
    if (existing) return existing;
    let pending = this.pendingEntries.get(id.key);
    if (!pending) {
      pending = (async () => {
        const latest = await table.latestSnapshot();
        const offsets: OffsetMap = await tableOffsetsOf(table, latest);
        this.checkValid();
        const description = `${table.identifier} ${describePartitionBucket(id.partition, id.bucket)}`;
        const store = await this.factory.create(request(description));
        const committed = offsets.get(id.key)?.offset ?? null;
        const entry: StoreEntry = {
          ...id,
          store,
          description,
          nextOffset: committed ?? 0n,
          baseEnd: committed,
          baseSnapshotId: latest?.id ?? null,
          preparedEnd: committed,
          unprepared: [],
          nextSequence: null,
          dedup: null,
        };
        if (latest && (this.knownSnapshotId === null || latest.id > this.knownSnapshotId)) this.knownSnapshotId = latest.id;
        this.entries.set(id.key, entry);
        return entry;
      })().finally(() => this.pendingEntries.delete(id.key));
      this.pendingEntries.set(id.key, pending);
    }
    return pending;
  }

  /**
   * Advances the context to a committed snapshot: loads its progress and reclaims fully covered
   * sealed segments. Refuses to move backwards; after an overwrite, rollback or dropped
   * partition the context is invalidated and must be recreated.
   */
  async refresh(table: FileStoreTable, snapshotId: number): Promise<void> {
    this.checkValid();
    this.bind(table);
    if (!Number.isSafeInteger(snapshotId) || snapshotId < 0) throw new PaimonError("INVALID_ARGUMENT", `real-time refresh snapshot id must not be negative: ${snapshotId}`);
    if (this.lastRefreshedSnapshotId !== null) {
      if (snapshotId === this.lastRefreshedSnapshotId) return;
      if (snapshotId < this.lastRefreshedSnapshotId) throw new PaimonError("INVALID_ARGUMENT", `real-time committed snapshot cannot move backwards (${this.lastRefreshedSnapshotId} -> ${snapshotId}) for ${table.identifier}`);
    }
    const snapshot = await table.snapshot(snapshotId);
    const from = Math.max(this.knownSnapshotId ?? snapshotId, this.lastRefreshedSnapshotId ?? 0);
    // An overwrite (truncate, partition drop, another engine's INSERT OVERWRITE) that deleted
    // committed files of an active partition-bucket invalidates the context; one that touched
    // only other partition-buckets, or only deletion vectors (Java commits DV-only changes as
    // OVERWRITE), does not.
    const source = progressSourceOf(table);
    for (let id = from + 1; id <= snapshotId && this.entries.size > 0; id++) {
      const s = await table.snapshotManager.tryGetSnapshot(id);
      if (s?.commitKind !== "OVERWRITE") continue;
      const deleted = await deletedPartitionBuckets(source, s);
      const hit = [...this.entries.values()].find((e) => deleted.has(e.key));
      if (hit) throw this.invalidate(`snapshot ${id} of ${table.identifier} overwrote ${hit.description} while the context held its real-time data; recreate the RealtimeContext`);
    }
    const offsets = await tableOffsetsOf(table, snapshot);
    // Check every active store before changing any.
    for (const e of this.entries.values()) {
      if (e.baseSnapshotId !== null && snapshotId < e.baseSnapshotId) continue; // older than what the store started from
      const end = offsets.get(e.key)?.offset ?? null;
      if (e.baseEnd !== null && end === null) throw this.invalidate(`snapshot ${snapshotId} removed active ${e.description}; recreate the RealtimeContext`);
      if (e.baseEnd !== null && end !== null && end < e.baseEnd) throw this.invalidate(`committed offset of ${e.description} moved backwards (${e.baseEnd} -> ${end}) in snapshot ${snapshotId}; recreate the RealtimeContext`);
    }
    for (const e of this.entries.values()) {
      if (e.baseSnapshotId !== null && snapshotId < e.baseSnapshotId) continue;
      const end = offsets.get(e.key)?.offset ?? null;
      e.baseSnapshotId = snapshotId;
      if (end === null) continue;
      e.baseEnd = end;
      if (end > e.nextOffset) e.nextOffset = end;
      if (e.preparedEnd === null || end > e.preparedEnd) e.preparedEnd = end;
      while (e.unprepared.length > 0 && e.unprepared[0].offsetRange.end <= end) e.unprepared.shift();
      try {
        await e.store.advanceCommittedOffset(end);
        e.dedup?.committedThrough(end);
      } catch (err) {
        throw this.invalidate(`reclaiming ${e.description} failed: ${(err as Error).message}`, err);
      }
    }
    this.lastRefreshedSnapshotId = snapshotId;
    if (this.knownSnapshotId === null || snapshotId > this.knownSnapshotId) this.knownSnapshotId = snapshotId;
  }

  // ------------------------------------------------------------------------------------------
  // Read-view tickets

  /** Pins a view behind a new ticket valid for `ttlMs`. The ticket owns the view's first reference. */
  issueTicket(entry: StoreEntry, view: RealtimeReadView, committedEnd: bigint, memoryEnd: bigint, ttlMs: number, scanFilter: Predicate | null, deleted: FrozenDeletedOffsets | null = null): Ticket {
    const ticket: Ticket = { id: this.ticketPrefix + String(++this.ticketCounter), entry, pinned: new PinnedView(entry, view, deleted), committedEnd, memoryEnd, expiresAt: Date.now() + ttlMs, scanFilter, deleted };
    this.tickets.set(ticket.id, ticket);
    this.startSweeper();
    return ticket;
  }

  /**
   * The live ticket, or TICKET_EXPIRED. An expired one is released on the way, with every other
   * expired ticket (their views go now, not at the sweeper's next tick).
   */
  async lookupTicket(id: string): Promise<Ticket> {
    const t = this.tickets.get(id);
    if (!t) throw new PaimonError("TICKET_EXPIRED", `real-time read-view ticket ${id} does not exist or has expired (or was consumed); plan again`);
    const now = Date.now();
    if (now > t.expiresAt) {
      await this.sweepExpired(now);
      throw new PaimonError("TICKET_EXPIRED", `real-time read-view ticket ${id} for ${t.entry.description} has expired; plan again`);
    }
    return t;
  }

  /**
   * Consumes tickets: the reader takes over their view references. The sweeper keeps running
   * until a sweep finds no ticket (it is unref'd): a plan + read per key lookup would otherwise
   * create and clear an interval timer every time.
   */
  consumeTickets(tickets: readonly Ticket[]): PinnedView[] {
    for (const t of tickets) this.tickets.delete(t.id);
    return tickets.map((t) => t.pinned);
  }

  /** Number of live tickets (for tests and diagnostics). */
  get liveTicketCount(): number {
    return this.tickets.size;
  }

  /** Releases expired tickets now. */
  async sweepExpired(now = Date.now()): Promise<void> {
    for (const [id, t] of [...this.tickets]) {
      // still ours to release: a sweep running beside this one, or a consumer, may have taken it meanwhile
      if (now > t.expiresAt && this.tickets.get(id) === t) {
        this.tickets.delete(id);
        await t.pinned.release();
      }
    }
    if (this.tickets.size === 0) this.stopSweeper();
  }

  private startSweeper(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(() => void this.sweepExpired().catch(() => undefined), 1000);
    // never keeps the process alive (Node, Bun: Timeout#unref; Deno: numeric ids, Deno.unrefTimer)
    if (typeof this.sweeper === "object") (this.sweeper as { unref?: () => void }).unref?.();
    else (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno?.unrefTimer?.(this.sweeper as unknown as number);
  }

  private stopSweeper(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  private async releaseAll(): Promise<void> {
    const tickets = [...this.tickets.values()];
    this.tickets.clear();
    this.stopSweeper();
    for (const t of tickets) await t.pinned.release().catch(() => undefined);
    for (const e of this.entries.values()) await Promise.resolve(e.store.close()).catch(() => undefined);
  }
}

