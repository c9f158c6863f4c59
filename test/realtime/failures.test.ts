// Terminal failures of the real-time write path (seed 000 "Recovery and Failure Handling": after
// a write/flush, seal, prepare, or terminal progress-commit failure, discard the writer and
// context and recover from the latest committed progress), in every real-time mode. Faults are
// injected through public SPIs only: a RealtimeStore (around the Arrow store) whose write or
// commit read throws, and a FileIO (Table.open with options.fileIO) whose writes of data,
// manifest, offsets or snapshot files throw. A failure leaves the table exactly as committed; a
// failed write or prepare invalidates the context; a new context replays from
// RealtimeSnapshotOffsets to exactly the expected rows (nothing lost, nothing twice).
import { afterAll, describe, expect, it } from "vitest";
import type * as arrow from "apache-arrow";
import { ArrowRealtimeStore, PaimonError, RealtimeContext, RealtimeSnapshotOffsets, Table } from "../../src/index.js";
import type { FileIO } from "../../src/fs/file-io.js";
import type { RealtimeSegmentHandle, RealtimeStoreCreateRequest, RealtimeWriteBatch } from "../../src/realtime/store.js";
import type { RealtimeCommitProgress } from "../../src/realtime/types.js";
import type { TableWrite } from "../../src/write/table-write.js";
import { listFilesUnder } from "../support/warehouses.js";
import { cleanupDirs, commitRealtime, expectCode, makeTable, PK_MODES, pkTable, range, readRows, rtBatch } from "./helpers.js";
import { dedupBatch, makeDedupTable } from "./dedup-helpers.js";

afterAll(cleanupDirs);

const B0 = { bucket: 0 };
/** The upstream input: A is committed first, B is in flight when the fault hits, C comes after. */
const A = range(0, 5);
const B = range(5, 10);
const C = range(10, 14);
const value = (offset: number) => `r${offset}`;

interface Mode {
  name: string;
  /** A fresh table of the mode (`extra`: more table options). */
  create(extra?: Record<string, string>): Promise<Table>;
  /** The key of the input row at `offset`: append rows never share one, the others upsert 3 keys. */
  key(offset: number): number;
  /** The input rows at these offsets in the mode's batch layout, value r<offset>. */
  batch(offsets: number[]): arrow.RecordBatch;
  /** [key, value] of the visible rows, sorted. */
  view(table: Table, ctx?: RealtimeContext): Promise<Array<[number, string]>>;
}

const sorted = (rows: Array<[number, string]>) => rows.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
const idValue = (column: string) => async (table: Table, ctx?: RealtimeContext) => sorted((await readRows(table, { ctx })).map((r) => [r.id as number, r[column] as string]));

const MODES: Mode[] = [
  {
    name: "append",
    create: (extra = {}) => makeTable(extra),
    key: (o) => o,
    batch: (offsets) => rtBatch(offsets, { names: offsets.map(value) }),
    view: idValue("name"),
  },
  ...PK_MODES.map(
    ({ name, options }): Mode => ({
      name,
      create: (extra = {}) => pkTable({ ...options, ...extra }),
      key: (o) => o % 3,
      batch: (offsets) => rtBatch(offsets, { ids: offsets.map((o) => o % 3), names: offsets.map(value) }),
      view: idValue("name"),
    }),
  ),
  {
    name: "append deduplicate",
    create: (extra = {}) => makeDedupTable(extra),
    key: (o) => o % 3,
    batch: (offsets) => dedupBatch(offsets.map((o) => [o % 3, o]), { values: offsets.map(value) }),
    view: async (table, ctx) => sorted((await readRows(table, { ctx })).map((r) => [Number(r.id), r.v as string])),
  },
];

/**
 * The committed rows, read through a fresh context: ordinary PK DV scans skip level-0 files until
 * a compaction, real-time reads merge them.
 */
async function committedView(mode: Mode, table: Table): Promise<Array<[number, string]>> {
  const ctx = await RealtimeContext.create();
  try {
    return await mode.view(table, ctx);
  } finally {
    await ctx.close();
  }
}

/** The rows the mode shows after the input at `offsets` (in order): the last row of each key. */
function expectedRows(mode: Mode, offsets: number[]): Array<[number, string]> {
  const byKey = new Map<number, string>();
  for (const o of offsets) byKey.set(mode.key(o), value(o));
  return sorted([...byKey]);
}

/** Faults of the store: its write throws, or its commit reader (what prepare reads) throws. */
interface StoreFaults {
  write: boolean;
  commitRead: boolean;
}

/** The Arrow store, failing on purpose where `faults` says. */
class FaultyStore extends ArrowRealtimeStore {
  constructor(
    request: RealtimeStoreCreateRequest,
    private readonly faults: StoreFaults,
  ) {
    super(request);
  }

  override write(input: RealtimeWriteBatch): void {
    if (this.faults.write) throw new PaimonError("IO_ERROR", `injected store write failure at offset ${input.offsetRange.begin}`);
    super.write(input);
  }

  override async *createCommitReader(handle: RealtimeSegmentHandle): AsyncGenerator<arrow.RecordBatch> {
    if (this.faults.commitRead) throw new PaimonError("IO_ERROR", `injected store read failure of segment [${handle.offsetRange.begin}, ${handle.offsetRange.end})`);
    yield* super.createCommitReader(handle);
  }
}

type WriteMethod = "writeFile" | "writeFileAtomicNoReplace";

/** One armed FileIO fault: the next write through `method` to a path matching `path` fails. */
interface IoFault {
  method: WriteMethod;
  path: RegExp;
  /** Write the file first, then fail anyway (the outcome is unknown to the caller, as a lost response). */
  afterWriting?: boolean;
  /** Then also fail the next read of that file (the caller cannot find out whether it landed). */
  failReadBack?: boolean;
}

/** A FileIO that fails the next write matching the armed fault (once), recording the path it failed. */
function faultyFileIO(io: FileIO): { fileIO: FileIO; arm(fault: IoFault): void; failed: string[] } {
  let armed: IoFault | null = null;
  let failRead: string | null = null;
  const failed: string[] = [];
  const fileIO = new Proxy(io, {
    get(target, key, receiver) {
      const member = Reflect.get(target, key, receiver);
      if (typeof member !== "function") return member;
      const call = (path: string, rest: unknown[]) => (member as (...a: unknown[]) => Promise<unknown>).call(target, path, ...rest);
      if (key === "readFile" || key === "readFileIfExists") {
        return async (path: string, ...rest: unknown[]) => {
          if (path === failRead) {
            failRead = null;
            throw new PaimonError("IO_ERROR", `injected failure reading ${path}`);
          }
          return call(path, rest);
        };
      }
      if (key !== "writeFile" && key !== "writeFileAtomicNoReplace") return member.bind(target);
      return async (path: string, ...rest: unknown[]) => {
        const fault = armed;
        if (fault && fault.method === key && fault.path.test(path)) {
          armed = null;
          failed.push(path);
          if (fault.afterWriting) await call(path, rest);
          if (fault.failReadBack) failRead = path;
          throw new PaimonError("IO_ERROR", `injected failure writing ${path}`);
        }
        return call(path, rest);
      };
    },
  });
  return { fileIO, arm: (fault) => void (armed = fault), failed };
}

/**
 * A table of the mode with input A committed (identifier 1) by a writer on a faulty view of it
 * (the same table through the faulty FileIO, with a context of faulty stores), ready to fail.
 */
async function setup(mode: Mode, extra: Record<string, string> = {}) {
  const table = await mode.create(extra);
  const io = faultyFileIO(table.fileIO);
  const faultyTable = await Table.open(table.location, { fileIO: io.fileIO });
  const storeFaults: StoreFaults = { write: false, commitRead: false };
  const ctx = await RealtimeContext.create({ create: (request: RealtimeStoreCreateRequest) => new FaultyStore(request, storeFaults) });
  const w = await faultyTable.newWrite({ commitUser: "u", realtime: ctx });
  await w.write(mode.batch(A), B0);
  const base = await commitRealtime(faultyTable, w, 1);
  await w.refreshCommittedSnapshot(base);
  return { table, faultyTable, io, storeFaults, ctx, w, base, files: await tableFiles(table) };
}

const tableFiles = (table: Table) => listFilesUnder(table.fileIO, table.location);

/** The table is exactly as committed after A: same snapshot, progress, rows and files. */
async function expectOnlyBaseCommitted(mode: Mode, table: Table, base: number, files: string[] | null): Promise<void> {
  expect((await table.latestSnapshot())!.id).toBe(base);
  expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 5n }]);
  expect(await committedView(mode, table)).toEqual(expectedRows(mode, A));
  if (files !== null) expect(await tableFiles(table)).toEqual(files);
}

/** Every later use of the writer or the context is CONTEXT_INVALIDATED; closing the writer releases it. */
async function expectInvalidated(mode: Mode, table: Table, ctx: RealtimeContext, w: TableWrite, reason: RegExp): Promise<void> {
  expect(ctx.invalidatedReason).toMatch(reason);
  await expectCode(w.write(mode.batch([20]), B0), "CONTEXT_INVALIDATED");
  await expectCode(w.seal(), "CONTEXT_INVALIDATED");
  await expectCode(w.prepareCommitWithProgress(5), "CONTEXT_INVALIDATED");
  await expectCode(w.refreshCommittedSnapshot(1), "CONTEXT_INVALIDATED");
  await expectCode(table.newWrite({ commitUser: "u", realtime: ctx }), "CONTEXT_INVALIDATED");
  await expectCode(() => table.newScan({ realtime: ctx }).plan(), "CONTEXT_INVALIDATED");
  await expectCode(() => table.newRead({ realtime: ctx }), "CONTEXT_INVALIDATED");
  await w.close();
  await ctx.close();
}

/**
 * Recovery as the seed describes it: a new context and writer, the committed offset from
 * RealtimeSnapshotOffsets, the input replayed from there (what is left of B, then C), committed
 * with a new identifier; the table then shows exactly the rows of A + B + C.
 */
async function recover(mode: Mode, table: Table, committedEnd: bigint): Promise<void> {
  const resume = await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: {}, bucket: 0 });
  expect(resume).toBe(committedEnd);
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "u", realtime: ctx });
  for (const chunk of [B, C]) {
    const replay = chunk.filter((o) => BigInt(o) >= resume);
    if (replay.length > 0) await w.write(mode.batch(replay), B0);
  }
  expect(await mode.view(table, ctx)).toEqual(expectedRows(mode, [...A, ...B, ...C]));
  const progress = await w.prepareCommitWithProgress(3);
  expect(progress.map((p) => [p.bucket, p.offsetRange])).toEqual([[0, { begin: resume, end: 14n }]]);
  const snapshot = await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 3);
  await w.refreshCommittedSnapshot(snapshot);
  await w.close();
  await ctx.close();
  expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 14n }]);
  expect(await committedView(mode, table)).toEqual(expectedRows(mode, [...A, ...B, ...C]));
}

/** The data files a progress commits (bucket-relative), for "nothing of it is referenced". */
const progressFiles = (progress: RealtimeCommitProgress[]) => progress.flatMap((p) => p.commitMessage.data.dataIncrement.newFiles.map((f) => f.fileName)).sort();

/** Data files the latest snapshot references (planned through a fresh context: PK DV scans otherwise skip level 0). */
async function referencedFiles(table: Table): Promise<string[]> {
  const ctx = await RealtimeContext.create();
  try {
    const plan = await table.newScan({ realtime: ctx }).plan();
    return plan.splits.flatMap((s) => (s.kind === "data" ? s.files.map((f) => f.fileName) : [])).sort();
  } finally {
    await ctx.close();
  }
}

const DATA_FILE = /\/bucket-0\/data-[^/]+$/;
const OFFSETS_FILE = /\/metadata\/[^/]+\.offsets$/;
const SNAPSHOT_FILE = /\/snapshot\/snapshot-\d+$/;
const MANIFEST_FILE = /\/manifest\/[^/]+$/;

const COMMIT_FAULTS: Array<{ what: string; fault: IoFault }> = [
  { what: "manifest", fault: { method: "writeFile", path: MANIFEST_FILE } },
  { what: "offsets file", fault: { method: "writeFileAtomicNoReplace", path: OFFSETS_FILE } },
  { what: "snapshot file", fault: { method: "writeFileAtomicNoReplace", path: SNAPSHOT_FILE } },
];

describe.each(MODES)("real-time failures: $name", (mode) => {
  it("(a) a store write that fails rejects with CONTEXT_INVALIDATED, commits nothing, and a new context replays from the committed offset", async () => {
    const { table, storeFaults, ctx, w, base, files } = await setup(mode);
    storeFaults.write = true;
    const err = await expectCode(w.write(mode.batch(B), B0), "CONTEXT_INVALIDATED");
    const cause = (err as Error & { cause?: PaimonError }).cause!;
    expect([cause.code, cause.message]).toEqual(["IO_ERROR", "injected store write failure at offset 5"]);
    storeFaults.write = false;
    await expectInvalidated(mode, table, ctx, w, /^write to .* bucket 0 failed: injected store write failure at offset 5$/);
    await expectOnlyBaseCommitted(mode, table, base, files);
    await recover(mode, table, 5n);
  });

  it.each([
    { what: "its store's commit reader", data: false },
    { what: "its data file write", data: true },
  ])("(b) a prepare whose $what fails rejects with CONTEXT_INVALIDATED, writes and commits nothing, and a new context replays from the committed offset", async ({ data }) => {
    const { table, faultyTable, io, storeFaults, ctx, w, base, files } = await setup(mode);
    await w.write(mode.batch(B), B0);
    if (data) io.arm({ method: "writeFile", path: DATA_FILE });
    else storeFaults.commitRead = true;
    const err = await expectCode(w.prepareCommitWithProgress(2), "CONTEXT_INVALIDATED");
    expect(io.failed).toHaveLength(data ? 1 : 0);
    const cause = (err as Error & { cause?: PaimonError }).cause!;
    expect([cause.code, cause.message]).toEqual(["IO_ERROR", data ? `injected failure writing ${io.failed[0]}` : "injected store read failure of segment [5, 10)"]);
    storeFaults.commitRead = false;
    await expectInvalidated(mode, faultyTable, ctx, w, /^prepare of .* bucket 0 failed: injected /);
    await expectOnlyBaseCommitted(mode, table, base, files);
    await recover(mode, table, 5n);
  });

  it.each(COMMIT_FAULTS)("(c) a commit whose $what write fails rejects with IO_ERROR, publishes nothing (no snapshot, no offsets, no manifest), and a new context replays from the committed offset", async ({ fault }) => {
    const { table, faultyTable, io, w, ctx, base, files } = await setup(mode);
    await w.write(mode.batch(B), B0);
    const progress = await w.prepareCommitWithProgress(2);
    expect(progress.map((p) => [p.bucket, p.offsetRange])).toEqual([[0, { begin: 5n, end: 10n }]]);
    const prepared = await tableFiles(table);
    io.arm(fault);
    const err = await expectCode(faultyTable.newCommit({ commitUser: "u" }).commitWithProgress(progress, 2), "IO_ERROR");
    expect(err.message).toBe(`injected failure writing ${io.failed[0]}`);
    expect(io.failed).toHaveLength(1);
    // The prepared files stay (the caller may retry with the retained progress); nothing else was left.
    expect(await tableFiles(table)).toEqual(prepared);
    expect(prepared.filter((f) => !files.includes(f)).every((f) => f.startsWith("bucket-0/"))).toBe(true);
    await expectOnlyBaseCommitted(mode, table, base, null);
    // The seed makes discarding the writer and context the caller's step (TableCommit has no context).
    await w.close();
    await ctx.close();
    await recover(mode, table, 5n);
    const referenced = await referencedFiles(table);
    expect(referenced).toHaveLength(2); // the file of A and the one of the replay
    expect(progressFiles(progress).filter((f) => referenced.includes(f))).toEqual([]);
  });

  it("(c) a commit whose snapshot write lands but reports a failure (a lost response) is published: it resolves, its manifests and offsets file stay, a new context resumes after it", async () => {
    const { table, faultyTable, io, w, ctx, base } = await setup(mode);
    await w.write(mode.batch(B), B0);
    const progress = await w.prepareCommitWithProgress(2);
    io.arm({ method: "writeFileAtomicNoReplace", path: SNAPSHOT_FILE, afterWriting: true });
    expect(await faultyTable.newCommit({ commitUser: "u" }).commitWithProgress(progress, 2)).toBe(base + 1);
    expect(io.failed).toEqual([`${table.location}/snapshot/snapshot-${base + 1}`]);
    await w.close();
    await ctx.close();
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 10n }]);
    expect(await committedView(mode, table)).toEqual(expectedRows(mode, [...A, ...B]));
    await recover(mode, table, 10n);
  });

  it("(c) a commit whose snapshot write lands but reports a failure that cannot be checked rejects with IO_ERROR and removes nothing the snapshot references", async () => {
    const { table, faultyTable, io, w, ctx, base } = await setup(mode);
    await w.write(mode.batch(B), B0);
    const progress = await w.prepareCommitWithProgress(2);
    const prepared = await tableFiles(table);
    io.arm({ method: "writeFileAtomicNoReplace", path: SNAPSHOT_FILE, afterWriting: true, failReadBack: true });
    const err = await expectCode(faultyTable.newCommit({ commitUser: "u" }).commitWithProgress(progress, 2), "IO_ERROR");
    expect(err.message).toBe(`injected failure writing ${table.location}/snapshot/snapshot-${base + 1}`);
    await w.close();
    await ctx.close();
    // The snapshot did land: its manifest lists, manifests and offsets file are all there.
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const written = (await tableFiles(table)).filter((f) => !prepared.includes(f)).map((f) => f.replace(uuid, "*"));
    const deletionVectors = mode.name === "append deduplicate" ? ["index/index-*-0", "manifest/index-manifest-*-3"] : [];
    expect(written).toEqual([...deletionVectors, "manifest/manifest-*-1", "manifest/manifest-list-*-0", "manifest/manifest-list-*-2", "metadata/*.offsets", `snapshot/snapshot-${base + 1}`]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 10n }]);
    expect(await committedView(mode, table)).toEqual(expectedRows(mode, [...A, ...B]));
    await recover(mode, table, 10n);
  });

  it("(c) a truncate whose snapshot write lands but reports a failure that cannot be checked rejects with IO_ERROR and keeps the offsets file the snapshot references", async () => {
    const { table, faultyTable, io, w, ctx, base } = await setup(mode);
    await w.close();
    await ctx.close();
    io.arm({ method: "writeFileAtomicNoReplace", path: SNAPSHOT_FILE, afterWriting: true, failReadBack: true });
    await expectCode(faultyTable.newCommit({ commitUser: "u" }).truncate(), "IO_ERROR");
    // The truncate landed: its progress (every partition-bucket reset) reads, and the table is empty.
    expect((await table.latestSnapshot())!.id).toBe(base + 1);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([]);
    expect(await committedView(mode, table)).toEqual([]);
  });

  it.each<{ retries: string; options: Record<string, string>; code: string }>([
    { retries: "default", options: {}, code: "PROGRESS_INVALID" },
    { retries: "none", options: { "commit.max-retries": "0" }, code: "COMMIT_CONFLICT" },
  ])("(c) a commit that loses to a concurrent commit of the same offsets (retries: $retries) rejects with $code, publishes nothing of its own, and a new context resumes after the other commit", async ({ options, code }) => {
    const { table, w, ctx, base } = await setup(mode, options);
    await w.write(mode.batch(B), B0);
    const progress = await w.prepareCommitWithProgress(2);
    // Another coordinator commits the same input first, right before this commit publishes.
    const rival = async () => {
      const rivalCtx = await RealtimeContext.create();
      const rw = await table.newWrite({ commitUser: "rival", realtime: rivalCtx });
      await rw.write(mode.batch(B), B0);
      await table.newCommit({ commitUser: "rival" }).commitWithProgress(await rw.prepareCommitWithProgress(1), 1);
      await rw.close();
      await rivalCtx.close();
    };
    const hooked = await Table.open(table.location, { fileIO: racing(table.fileIO, SNAPSHOT_FILE, rival) });
    await expectCode(hooked.newCommit({ commitUser: "u" }).commitWithProgress(progress, 2), code);
    await w.close();
    await ctx.close();
    const latest = (await table.latestSnapshot())!;
    expect([latest.id, latest.commitUser]).toEqual([base + 1, "rival"]);
    expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([{ partition: {}, bucket: 0, offset: 10n }]);
    expect(await committedView(mode, table)).toEqual(expectedRows(mode, [...A, ...B]));
    await recover(mode, table, 10n);
  });
});

/** A FileIO that runs `before` once, right before the first write through it to a path matching `path`. */
function racing(io: FileIO, path: RegExp, before: () => Promise<void>): FileIO {
  let pending: (() => Promise<void>) | null = before;
  return new Proxy(io, {
    get(target, key, receiver) {
      const member = Reflect.get(target, key, receiver);
      if (typeof member !== "function") return member;
      if (key !== "writeFileAtomicNoReplace") return member.bind(target);
      return async (p: string, ...rest: unknown[]) => {
        if (pending && path.test(p)) {
          const hook = pending;
          pending = null;
          await hook();
        }
        return (member as (...a: unknown[]) => Promise<unknown>).call(target, p, ...rest);
      };
    },
  });
}
