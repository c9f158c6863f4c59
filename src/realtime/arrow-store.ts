// The default real-time store: Arrow batches kept as given, in write order, in a building
// segment and immutable sealed segments; immutable read views; optional spill of sealed
// segments to Arrow IPC (zstd) files; optional per-batch statistics for pruning. PK mode: each
// batch arrives numbered, in input order, and is sorted by key then sequence (an independent
// merge input) once, the first time a query, commit reader or spill needs it.
import type * as arrow from "apache-arrow";
import { concatBatches } from "../arrow/concat.js";
import { PaimonError } from "../error.js";
import { boundMayMatch, type StatsSet } from "../predicate/stats.js";
import { bindPredicate } from "../predicate/predicate.js";
import type { DataField } from "../spec/types.js";
import { computeBatchStats, statsBytes } from "./batch-stats.js";
import { sortPrimaryKeyBatch } from "./pk-batch.js";
import { deleteSpillFile, readSpillFile, writeSpillFile } from "./spill.js";
import type {
  RealtimeQueryContext,
  RealtimeReadView,
  RealtimeSegmentHandle,
  RealtimeStore,
  RealtimeStoreCreateRequest,
  RealtimeStoreDataUsage,
  RealtimeStoreFactory,
  RealtimeWriteBatch,
} from "./store.js";
import type { OffsetRange } from "./types.js";

/** Bytes of every buffer of an Arrow Data tree. */
export function dataBytes(data: arrow.Data): number {
  let n = 0;
  if (data.values) n += (data.values as ArrayBufferView).byteLength;
  if (data.valueOffsets) n += (data.valueOffsets as ArrayBufferView).byteLength;
  if (data.nullBitmap) n += data.nullBitmap.byteLength;
  if (data.typeIds) n += data.typeIds.byteLength;
  for (const c of data.children) n += dataBytes(c);
  if (data.dictionary) for (const d of data.dictionary.data) n += dataBytes(d);
  return n;
}

/** Batches below this many rows count as small; a run of COALESCE_RUN of them is merged into one. */
const SMALL_BATCH_ROWS = 1024;
const COALESCE_RUN = 32;

interface BatchMeta {
  /** First offset / exclusive end of the batch's offsets. */
  first: bigint;
  end: bigint;
  rows: number;
  stats: StatsSet | null;
}

interface StoredBatch extends BatchMeta {
  batch: arrow.RecordBatch;
  bytes: number;
  /**
   * PK: false until the batch is sorted by key then sequence (`settle`); its statistics are
   * computed then too. The sorted batch replaces `batch` (the same rows, so a view holding this
   * entry reads the same data) and `owner`'s byte counts are adjusted (null once coalesced
   * into another entry: only views taken before hold it, and the segment no longer counts it).
   */
  sorted: boolean;
  owner: Segment | null;
}

/** A spill file shared by the store and by views that captured it; deleted at refcount 0. */
class SpillFile {
  private refs = 1;
  constructor(
    readonly path: string,
    readonly sizeBytes: number,
  ) {}

  retain(): void {
    this.refs++;
  }

  async release(): Promise<void> {
    if (--this.refs === 0) await deleteSpillFile(this.path);
  }
}

type Representation =
  | { kind: "memory"; batches: StoredBatch[] }
  | { kind: "spill"; file: SpillFile; metas: BatchMeta[] };

class Segment implements RealtimeSegmentHandle {
  /** The building data; replaced (never changed in place) when small batches are coalesced. */
  batches: StoredBatch[] = [];
  /** Length of the trailing run of small batches in `batches`. */
  smallRun = 0;
  rep: Representation;
  rowCount = 0;
  /** Arrow bytes while in memory. */
  dataBytes = 0;
  statBytes = 0;
  frozen = false;

  constructor(readonly id: number) {
    this.rep = { kind: "memory", batches: this.batches };
  }

  get offsetRange(): OffsetRange {
    const b = this.rep.kind === "memory" ? this.rep.batches : this.rep.metas;
    return { begin: b[0].first, end: b[b.length - 1].end };
  }

  get memoryBytes(): number {
    return (this.rep.kind === "memory" ? this.dataBytes : 0) + this.statBytes;
  }
}

/** What a view captured of one segment: its representation at the time, and how many batches. */
interface ViewPart {
  rep: Representation;
  count: number;
}

class ArrowReadView implements RealtimeReadView {
  private released = false;
  constructor(
    readonly store: ArrowRealtimeStore,
    readonly parts: ViewPart[],
    readonly offsetRange: OffsetRange | null,
  ) {}

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    for (const p of this.parts) if (p.rep.kind === "spill") await p.rep.file.release();
  }

  get isReleased(): boolean {
    return this.released;
  }
}

export class ArrowRealtimeStore implements RealtimeStore {
  private building: Segment;
  private readonly sealed: Segment[] = [];
  private nextSegmentId = 0;
  private committedEnd = -1n;
  private lastEnd: bigint | null = null;
  private closed = false;
  private readonly statsFields: readonly DataField[] | null;

  /** PK: batches arrive in input order; this store sorts each once, when first needed. */
  readonly sortsPrimaryKeyBatches: boolean;

  constructor(readonly request: RealtimeStoreCreateRequest) {
    this.sortsPrimaryKeyBatches = request.mode === "PRIMARY_KEY";
    if (request.mode !== "APPEND_ONLY" && request.mode !== "PRIMARY_KEY" && request.mode !== "DEDUPLICATE") throw new PaimonError("UNSUPPORTED", `invalid real-time store mode ${request.mode} for the default Arrow store`);
    if (request.spillEnabled && !request.tempDirectory) throw new PaimonError("INVALID_ARGUMENT", "realtime.spill-enabled requires a non-empty temporary directory");
    this.building = new Segment(this.nextSegmentId++);
    this.statsFields = request.statisticsMode === "full" ? request.writeFields : null;
  }

  private checkOpen(): void {
    if (this.closed) throw new PaimonError("INVALID_ARGUMENT", `real-time store of ${this.request.description} is closed`);
  }

  write(input: RealtimeWriteBatch): void {
    this.checkOpen();
    const { batch, offsetRange } = input;
    // DEDUPLICATE: deletes store no row, but their offsets are progress (a delete-only prepare).
    if (batch.numRows === 0 && this.request.mode !== "DEDUPLICATE") return;
    if (offsetRange.begin >= offsetRange.end) throw new PaimonError("OFFSET_INVALID", `real-time offset range is invalid for ${this.request.description}`);
    if (this.lastEnd !== null && offsetRange.begin < this.lastEnd) throw new PaimonError("OFFSET_INVALID", `offset ranges must be ordered and non-overlapping in ${this.request.description}`);
    // PK: sorted (and its statistics computed) when first needed, see settle.
    const sorted = this.request.mode !== "PRIMARY_KEY";
    const stats = sorted && this.statsFields ? computeBatchStats(batch, this.statsFields) : null;
    const bytes = dataBytes(batch.data);
    const seg = this.building;
    seg.batches.push({ batch, first: offsetRange.begin, end: offsetRange.end, rows: batch.numRows, stats, bytes, sorted, owner: seg });
    seg.rowCount += batch.numRows;
    seg.dataBytes += bytes;
    if (stats) seg.statBytes += statsBytes(stats);
    this.lastEnd = offsetRange.end;
    seg.smallRun = batch.numRows < SMALL_BATCH_ROWS ? seg.smallRun + 1 : 0;
    if (seg.smallRun >= COALESCE_RUN) this.coalesceSmallRun(seg);
  }

  /**
   * Copies the trailing run of small batches into one batch, so that a stream of tiny writes
   * does not leave queries walking thousands of batches (PK: each key lookup probes every
   * stored batch; the concatenation is sorted when first needed, like a written batch).
   * Copy-on-write: views captured the old array and keep reading it.
   */
  private coalesceSmallRun(seg: Segment): void {
    const start = seg.batches.length - seg.smallRun;
    const run = seg.batches.slice(start);
    const batch = concatBatches(run.map((b) => b.batch));
    const rows = batch.numRows;
    const sorted = this.request.mode !== "PRIMARY_KEY";
    const stats = sorted && this.statsFields ? computeBatchStats(batch, this.statsFields) : null;
    const bytes = dataBytes(batch.data);
    for (const b of run) {
      seg.dataBytes -= b.bytes;
      if (b.stats) seg.statBytes -= statsBytes(b.stats);
      b.owner = null;
    }
    seg.dataBytes += bytes;
    if (stats) seg.statBytes += statsBytes(stats);
    seg.batches = [...seg.batches.slice(0, start), { batch, first: run[0].first, end: run[run.length - 1].end, rows, stats, bytes, sorted, owner: seg }];
    seg.rep = { kind: "memory", batches: seg.batches };
    seg.smallRun = rows < SMALL_BATCH_ROWS ? 1 : 0;
  }

  /**
   * PK: sorts a stored batch by key then sequence number, once (then computes its statistics),
   * replacing the entry's batch by the sorted one. Synchronous, so no read or write interleaves.
   */
  private settle(b: StoredBatch): void {
    if (b.sorted) return;
    const batch = sortPrimaryKeyBatch(b.batch, this.request.keyColumnIndexes);
    const stats = this.statsFields ? computeBatchStats(batch, this.statsFields) : null;
    const bytes = dataBytes(batch.data);
    const owner = b.owner;
    if (owner !== null) {
      owner.dataBytes += bytes - b.bytes;
      if (stats) owner.statBytes += statsBytes(stats);
    }
    b.batch = batch;
    b.stats = stats;
    b.bytes = bytes;
    b.sorted = true;
  }

  freeze(): RealtimeSegmentHandle | null {
    this.checkOpen();
    if (this.building.batches.length === 0) return null;
    const seg = this.building;
    seg.frozen = true;
    this.sealed.push(seg);
    this.building = new Segment(this.nextSegmentId++);
    return seg;
  }

  private segmentOf(handle: RealtimeSegmentHandle): Segment {
    const seg = handle as Segment;
    if (!(seg instanceof Segment) || !this.sealed.includes(seg)) throw new PaimonError("INVALID_ARGUMENT", `unknown or reclaimed real-time segment of ${this.request.description}`);
    return seg;
  }

  async spill(handle: RealtimeSegmentHandle): Promise<void> {
    const seg = this.segmentOf(handle);
    if (seg.rep.kind === "spill") return;
    const memory = seg.rep.batches;
    for (const b of memory) this.settle(b);
    const info = await writeSpillFile(
      this.request.tempDirectory,
      memory.map((b) => b.batch),
      this.request.spillCompression,
      this.request.spillZstdLevel,
    );
    if (!this.sealed.includes(seg) || this.closed) {
      // Reclaimed while spilling: nothing needs the file.
      await deleteSpillFile(info.path);
      return;
    }
    // Publish: new views read the file; old views keep the memory representation.
    seg.rep = { kind: "spill", file: new SpillFile(info.path, info.sizeBytes), metas: memory.map(({ first, end, rows, stats }) => ({ first, end, rows, stats })) };
    // The segment is frozen: nothing appends to `batches` again. Dropping them lets the Arrow
    // data go once the views still reading it are released.
    seg.batches = [];
  }

  async *createCommitReader(handle: RealtimeSegmentHandle): AsyncGenerator<arrow.RecordBatch> {
    const seg = this.segmentOf(handle);
    const rep = seg.rep;
    if (rep.kind === "memory") {
      for (const b of rep.batches) {
        this.settle(b);
        yield b.batch;
      }
      return;
    }
    rep.file.retain();
    try {
      for await (const { batch } of readSpillFile(rep.file.path)) yield batch;
    } finally {
      await rep.file.release();
    }
  }

  acquireReadView(): RealtimeReadView {
    this.checkOpen();
    const parts: ViewPart[] = [];
    const sealed = this.sealed;
    for (let i = 0; i <= sealed.length; i++) {
      const rep = (i < sealed.length ? sealed[i] : this.building).rep;
      const count = rep.kind === "memory" ? rep.batches.length : rep.metas.length;
      if (count === 0) continue;
      if (rep.kind === "spill") rep.file.retain();
      parts.push({ rep, count });
    }
    let range: OffsetRange | null = null;
    if (parts.length > 0) {
      const first = parts[0];
      const last = parts[parts.length - 1];
      const firstMeta = first.rep.kind === "memory" ? first.rep.batches[0] : first.rep.metas[0];
      const lastMeta = last.rep.kind === "memory" ? last.rep.batches[last.count - 1] : last.rep.metas[last.count - 1];
      range = { begin: firstMeta.first, end: lastMeta.end };
    }
    return new ArrowReadView(this, parts, range);
  }

  createQueryReader(view: RealtimeReadView, context: RealtimeQueryContext): arrow.RecordBatch[] | AsyncGenerator<arrow.RecordBatch> {
    if (!(view instanceof ArrowReadView) || view.store !== this) throw new PaimonError("INVALID_ARGUMENT", `read view does not belong to the store of ${this.request.description}`);
    if (view.isReleased) throw new PaimonError("INVALID_ARGUMENT", `read view of ${this.request.description} was released`);
    // (bound once: every stored batch's statistics are tested with it)
    const predicate = this.statsFields && context.predicate ? bindPredicate(context.predicate, this.statsFields) : null;
    const begin = context.offsetBegin;
    if (view.parts.every((p) => p.rep.kind === "memory")) {
      // (looped here, without the closures below: every key lookup takes this path)
      const out: arrow.RecordBatch[] = [];
      for (const part of view.parts) {
        const batches = (part.rep as { batches: StoredBatch[] }).batches;
        for (let i = 0; i < part.count; i++) {
          const b = batches[i];
          if (b.end <= begin) continue;
          this.settle(b);
          if (predicate === null || b.stats === null || boundMayMatch(predicate, b.stats)) out.push(b.batch);
        }
      }
      return out;
    }
    const keep = (m: BatchMeta): boolean => m.end > begin && (predicate === null || m.stats === null || boundMayMatch(predicate, m.stats));
    /** A stored batch the query needs, sorted first (PK): null when below the window or pruned. */
    const kept = (b: StoredBatch): arrow.RecordBatch | null => {
      if (b.end <= begin) return null;
      this.settle(b);
      return keep(b) ? b.batch : null;
    };
    return this.readParts(view.parts, keep, kept);
  }

  /** Batches of view parts; spill files are read chunk by chunk, skipping chunks without a kept batch. */
  private async *readParts(parts: readonly ViewPart[], keep: (m: BatchMeta) => boolean, kept: (b: StoredBatch) => arrow.RecordBatch | null): AsyncGenerator<arrow.RecordBatch> {
    for (const part of parts) {
      const rep = part.rep;
      if (rep.kind === "memory") {
        for (let i = 0; i < part.count; i++) {
          const b = kept(rep.batches[i]);
          if (b !== null) yield b;
        }
        continue;
      }
      // Batches past `count` were not in the segment when the view was taken (none: frozen).
      const wanted = (i: number) => i < part.count && keep(rep.metas[i]);
      for await (const { index, batch } of readSpillFile(rep.file.path, wanted)) if (wanted(index)) yield batch;
    }
  }

  async advanceCommittedOffset(end: bigint): Promise<void> {
    if (end <= this.committedEnd) return;
    this.committedEnd = end;
    while (this.sealed.length > 0) {
      const seg = this.sealed[0];
      if (seg.offsetRange.end > end) break;
      this.sealed.shift();
      if (seg.rep.kind === "spill") await seg.rep.file.release();
    }
  }

  getDataUsage(): RealtimeStoreDataUsage {
    let sealedBytes = 0;
    let sealedRows = 0;
    for (const s of this.sealed) {
      sealedBytes += s.memoryBytes;
      sealedRows += s.rowCount;
    }
    return {
      buildingMemoryBytes: this.building.memoryBytes,
      sealedMemoryBytes: sealedBytes,
      buildingRowCount: this.building.rowCount,
      sealedRowCount: sealedRows,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const segs = this.sealed.splice(0, this.sealed.length);
    for (const s of segs) if (s.rep.kind === "spill") await s.rep.file.release();
    this.building = new Segment(this.nextSegmentId++);
  }
}

/** The default factory: ArrowRealtimeStore for every mode. */
export class ArrowRealtimeStoreFactory implements RealtimeStoreFactory {
  create(request: RealtimeStoreCreateRequest): RealtimeStore {
    return new ArrowRealtimeStore(request);
  }
}
