// The real-time lifecycle the randomized model tests drive (PK and append deduplicate): one event
// log per partition-bucket target, and the writer/context/commit bookkeeping of their operations
// (write with offset gaps, seal, prepare, commit of all or all-but-the-last outstanding prepares,
// refresh, crash + restart with replay from the committed offsets, final commit).
import fc from "fast-check";
import { RealtimeContext, type RealtimeCommitProgress, type TableWrite, type WriteTarget } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import type * as arrow from "apache-arrow";
import { RowKind } from "../../src/write/table-write.js";

export interface ModelEvent {
  offset: number;
  key: number;
  kind: number;
  /** Write order over the whole run (distinct values per event). */
  stamp: number;
}

export type ModelOp =
  | { kind: "write"; target: number; rows: Array<{ key: number; kind: number }>; gap: number }
  | { kind: "seal" }
  | { kind: "prepare" }
  | { kind: "commit"; dropLast: boolean }
  | { kind: "refresh" }
  | { kind: "compact" }
  | { kind: "restart" };

/** Operations over `targets` partition-buckets, keys 0..7, every row kind. */
export function modelOps(targets: number): fc.Arbitrary<ModelOp[]> {
  const row = fc.record({ key: fc.integer({ min: 0, max: 7 }), kind: fc.constantFrom(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE) });
  const op: fc.Arbitrary<ModelOp> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant("write" as const), target: fc.integer({ min: 0, max: targets - 1 }), rows: fc.array(row, { minLength: 1, maxLength: 8 }), gap: fc.integer({ min: 0, max: 2 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: "seal" as const }) },
    { weight: 2, arbitrary: fc.constant({ kind: "prepare" as const }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("commit" as const), dropLast: fc.boolean() }) },
    { weight: 1, arbitrary: fc.constant({ kind: "refresh" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
  );
  return fc.array(op, { minLength: 3, maxLength: 20 });
}

export const isRetract = (kind: number) => kind === RowKind.DELETE || kind === RowKind.UPDATE_BEFORE;

/** How a model test lays out its targets' batches. */
export interface ModelLayout {
  targets: number;
  batchOf(target: number, events: ModelEvent[]): arrow.RecordBatch;
  targetOf(target: number): WriteTarget;
  /** The target a committed progress entry belongs to. */
  targetOfProgress(p: RealtimeCommitProgress): number;
}

export class ModelDriver {
  readonly log: ModelEvent[][];
  readonly next: number[];
  readonly committedEnd: number[];
  ctx!: RealtimeContext;
  w!: TableWrite;
  private outstanding: RealtimeCommitProgress[][] = [];
  private identifier = 0;
  private stamp = 0;
  lastSnapshot: number | null = null;

  constructor(
    readonly table: Table,
    private readonly layout: ModelLayout,
    private readonly tempDirectory: string,
  ) {
    this.log = Array.from({ length: layout.targets }, () => []);
    this.next = new Array(layout.targets).fill(0);
    this.committedEnd = new Array(layout.targets).fill(0);
  }

  async start(): Promise<void> {
    this.ctx = await RealtimeContext.create();
    this.w = await this.table.newWrite({ commitUser: "u", realtime: this.ctx, tempDirectory: this.tempDirectory });
  }

  /** Runs one lifecycle operation; "compact" is the caller's (returns false for it). */
  async step(op: ModelOp): Promise<boolean> {
    switch (op.kind) {
      case "write": {
        const events = op.rows.map((r, i): ModelEvent => {
          const offset = this.next[op.target];
          this.next[op.target] += 1 + (i === 0 ? op.gap : 0);
          return { offset, key: r.key, kind: r.kind, stamp: this.stamp++ };
        });
        await this.writeEvents(op.target, events);
        this.log[op.target].push(...events);
        return true;
      }
      case "seal":
        await this.w.seal();
        return true;
      case "prepare": {
        const progress = await this.w.prepareCommitWithProgress(++this.identifier);
        if (progress.length > 0) this.outstanding.push(progress);
        return true;
      }
      case "commit": {
        if (this.outstanding.length === 0) return true;
        const take = op.dropLast && this.outstanding.length > 1 ? this.outstanding.length - 1 : this.outstanding.length;
        const chosen = this.outstanding.slice(0, take).flat();
        this.lastSnapshot = await this.table.newCommit({ commitUser: "u" }).commitWithProgress(chosen, ++this.identifier);
        this.outstanding = this.outstanding.slice(take);
        for (const p of chosen) {
          const t = this.layout.targetOfProgress(p);
          this.committedEnd[t] = Math.max(this.committedEnd[t], Number(p.offsetRange.end));
        }
        return true;
      }
      case "refresh":
        if (this.lastSnapshot !== null) await this.w.refreshCommittedSnapshot(this.lastSnapshot);
        return true;
      case "restart": {
        // crash: a new context; the input is replayed from the committed offsets
        await this.ctx.close();
        await this.start();
        this.outstanding = [];
        for (let t = 0; t < this.layout.targets; t++) {
          const replay = this.log[t].filter((e) => e.offset >= this.committedEnd[t]);
          if (replay.length > 0) await this.writeEvents(t, replay);
        }
        this.lastSnapshot = (await this.table.latestSnapshot())?.id ?? null;
        return true;
      }
      case "compact":
        return false;
    }
  }

  /** Prepares what is left, commits every outstanding prepare, refreshes and closes the writer. */
  async finish(): Promise<void> {
    const progress = [...this.outstanding.flat(), ...(await this.w.prepareCommitWithProgress(++this.identifier))];
    if (progress.length > 0) this.lastSnapshot = await this.table.newCommit({ commitUser: "u" }).commitWithProgress(progress, ++this.identifier);
    if (this.lastSnapshot !== null) await this.w.refreshCommittedSnapshot(this.lastSnapshot);
    await this.w.close();
  }

  private async writeEvents(target: number, events: ModelEvent[]): Promise<void> {
    await this.w.write(this.layout.batchOf(target, events), { ...this.layout.targetOf(target), rowKinds: events.map((e) => e.kind) });
  }
}
