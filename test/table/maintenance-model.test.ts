// Randomized model test of table maintenance: random sequences of commits (upserts, PK deletes),
// full compactions, tags, snapshot expiry, rollbacks (to snapshots and tags, expired ones
// included), partition overwrites, truncates, partition drops and orphan-file cleanup on a PK
// table (deletion vectors off and on) and an append table, all through the public API. The
// model holds the exact rows every live snapshot and every tag must read; after every step every
// one of them is read back and every file they reference must exist.
// PAIMON_RT_MODEL_RUNS sets the runs per table kind, PAIMON_RT_MODEL_STEPS the longest sequence,
// PAIMON_RT_MODEL_SEED replays a seed, PAIMON_RT_MODEL_STATS=1 prints which paths the runs reached.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Snapshot } from "../../src/spec/snapshot.js";
import { loadTimeTravel, Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const RUNS = runs(Number(process.env.PAIMON_RT_MODEL_RUNS ?? 12));
const MAX_STEPS = Number(process.env.PAIMON_RT_MODEL_STEPS ?? 24);
const SEED = process.env.PAIMON_RT_MODEL_SEED === undefined ? undefined : Number(process.env.PAIMON_RT_MODEL_SEED);
/** Outcome counts (PAIMON_RT_MODEL_STATS=1 prints them): which paths the random runs reached. */
const stats = new Map<string, number>();
const count = (what: string, n = 1) => stats.set(what, (stats.get(what) ?? 0) + n);
afterAll(() => {
  if (process.env.PAIMON_RT_MODEL_STATS) console.log([...stats].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
});

interface Row {
  dt: string;
  id: number;
  v: string;
}
type Change = Row & { del: boolean };

const PARTITIONS = ["a", "b", "c"] as const;
const TAGS = ["t0", "t1", "t2"] as const;

type Op =
  | { kind: "write"; rows: Change[] }
  | { kind: "compact" }
  | { kind: "createTag"; name: string; snapshot: number | null }
  | { kind: "deleteTag"; pick: number }
  | { kind: "expire"; retainMin: number; extraMax: number; timeBound: boolean; maxDeletes?: number }
  | { kind: "rollback"; snapshot: number }
  | { kind: "rollbackTag"; pick: number }
  | { kind: "overwrite"; dt: string; rows: Array<{ id: number; v: string }> }
  | { kind: "truncate" }
  | { kind: "drop"; dt: string }
  | { kind: "orphans" };

const dtArb = fc.constantFrom(...PARTITIONS);
const tagArb = fc.constantFrom(...TAGS);
const changeArb: fc.Arbitrary<Change> = fc.record({ dt: dtArb, id: fc.integer({ min: 0, max: 5 }), v: fc.constantFrom("x", "y", "z"), del: fc.boolean() });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.array(changeArb, { minLength: 1, maxLength: 6 }).map((rows) => ({ kind: "write" as const, rows })) },
  { weight: 2, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("createTag" as const), name: tagArb, snapshot: fc.option(fc.nat(), { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("deleteTag" as const), pick: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("expire" as const), retainMin: fc.integer({ min: 1, max: 3 }), extraMax: fc.integer({ min: 0, max: 2 }), timeBound: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))), maxDeletes: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rollback" as const), snapshot: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("rollbackTag" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("overwrite" as const), dt: dtArb, rows: fc.array(fc.record({ id: fc.integer({ min: 0, max: 5 }), v: fc.constantFrom("o", "p") }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "truncate" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop" as const), dt: dtArb }) },
  { weight: 2, arbitrary: fc.constant({ kind: "orphans" as const }) },
);

const KINDS = {
  pk: { primaryKeys: ["dt", "id"], options: { bucket: "2" } },
  pk_dv: { primaryKeys: ["dt", "id"], options: { bucket: "2", "deletion-vectors.enabled": "true" } },
  append: { primaryKeys: [], options: { bucket: "-1" } },
  // commits expire snapshots themselves (Java's commit maintenance): at most 3 are kept
  pk_retained: { primaryKeys: ["dt", "id"], options: { bucket: "2", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "3" } },
} as const;
/** The snapshots every commit keeps (`snapshot.num-retained.max`; the others are within `snapshot.time-retained`), or null. */
const retainedByCommits = (kind: Kind): number | null => (kind === "pk_retained" ? 3 : null);
type Kind = keyof typeof KINDS;

/** A multiset of rows as sorted strings (the order a read returns is not part of the contract). */
type Rows = string[];
const rowKey = (r: Row) => `${r.dt}|${r.id}|${r.v}`;
const sorted = (rows: Row[]): Rows => rows.map(rowKey).sort();

/**
 * What a snapshot holds: `logical`, every committed change merged; `rows`, what a read returns.
 * They differ only in a deletion-vector PK table, whose reads skip level-0 files until a
 * compaction merges them: a commit's first snapshot (data, then a second one compacting it) may
 * read the rows before the commit. A snapshot is `dirty` when it holds such files; a commit on a
 * dirty snapshot that compacts only the buckets it writes leaves others unmerged, so its rows are
 * learned by reading (and must then never change) until a full compaction or truncate cleans up.
 */
interface Snap {
  rows: Rows;
  logical: Rows;
  dirty: boolean;
}
const EMPTY: Snap = { rows: [], logical: [], dirty: false };

/** The model: every live snapshot and every tag (name → tagged snapshot id and what it holds). */
interface Model {
  snapshots: Map<number, Snap>;
  tags: Map<string, { id: number; snap: Snap }>;
  /** The highest snapshot id ever committed. */
  maxEver: number;
}

/**
 * A snapshot id picked by `pick`: a live one, an expired one a tag holds, or (refused) one expired
 * untagged or never committed, or 0.
 */
function pickSnapshot(m: Model, pick: number): number {
  const tagged = [...m.tags.values()].map((t) => t.id).filter((id) => !m.snapshots.has(id));
  const expired = Array.from({ length: m.maxEver }, (_, i) => i + 1).find((id) => !m.snapshots.has(id) && !tagged.includes(id));
  const refused = [m.maxEver + 1, 0, ...(expired === undefined ? [] : [expired])];
  const candidates = [...m.snapshots.keys(), ...m.snapshots.keys(), ...tagged, ...tagged, -1];
  const picked = candidates[pick % candidates.length]!;
  return picked === -1 ? refused[Math.floor(pick / candidates.length) % refused.length]! : picked;
}

const latestId = (m: Model): number | null => (m.snapshots.size === 0 ? null : Math.max(...m.snapshots.keys()));
/** A tag name picked by `pick`: one of the model's tags, or (one pick in 2n + 1) one that does not exist. */
const pickTag = (m: Model, pick: number): string => [...m.tags.keys(), ...m.tags.keys(), "missing"][pick % (2 * m.tags.size + 1)]!;
const latestSnap = (m: Model): Snap => (m.snapshots.size === 0 ? EMPTY : m.snapshots.get(latestId(m)!)!);
const parse = (rows: Rows): Row[] =>
  rows.map((s) => {
    const [dt, id, v] = s.split("|");
    return { dt: dt!, id: Number(id), v: v! };
  });

/** The rows after `changes` (PK: upserts and deletes by key; append: every insert). */
function applyChanges(kind: Kind, before: Rows, changes: Change[]): Rows {
  if (kind === "append") return [...before, ...changes.filter((c) => !c.del).map(rowKey)].sort();
  const byKey = new Map(parse(before).map((r) => [`${r.dt}|${r.id}`, r]));
  for (const c of changes) {
    if (c.del) byKey.delete(`${c.dt}|${c.id}`);
    else byKey.set(`${c.dt}|${c.id}`, { dt: c.dt, id: c.id, v: c.v });
  }
  return sorted([...byKey.values()]);
}

function batch(rows: Row[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0]!,
    id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r.id)) }),
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0]!,
  });
}

async function readAll(table: Table, snapshotId?: number): Promise<Rows> {
  const plan = await table.newScan(snapshotId === undefined ? undefined : { snapshotId }).plan();
  const t = await table.newRead().toArrow(plan.splits);
  return t
    .toArray()
    .map((r) => {
      const j = r.toJSON() as { dt: string; id: bigint; v: string };
      return `${j.dt}|${Number(j.id)}|${j.v}`;
    })
    .sort();
}

/** The table as a reader configured with time-travel `options` (`scan.tag-name`, `scan.timestamp-millis`) sees it. */
function travel(table: Table, options: Record<string, string>): Promise<Table> {
  return loadTimeTravel(new Table(table.fileIO, table.identifier, table.location, { ...table.schema, options: { ...table.schema.options, ...options } }));
}

/** Every file snapshot (or tag) `s` references: manifest lists, manifests, index manifest and files, data files. */
async function referencedFiles(table: Table, s: Snapshot): Promise<string[]> {
  const store = table.manifestStore;
  const out: string[] = [];
  for (const list of [s.baseManifestList, s.deltaManifestList, s.changelogManifestList]) {
    if (!list) continue;
    out.push(table.paths.manifest(list));
    for (const m of await store.readManifestList(list)) out.push(table.paths.manifest(m.fileName));
  }
  if (s.indexManifest) {
    out.push(table.paths.manifest(s.indexManifest));
    for (const e of await store.readIndexManifest(s.indexManifest)) out.push(table.paths.indexFileOf(e.partition, e.bucket, e.indexFile));
  }
  for (const e of await store.liveEntries(s)) out.push(...table.paths.dataFilesOf(e.partition, e.bucket, e.file));
  return out;
}

async function missingFiles(table: Table, s: Snapshot): Promise<string[]> {
  const missing: string[] = [];
  let files: string[];
  try {
    files = await referencedFiles(table, s);
  } catch (e) {
    return [`(metadata of snapshot ${s.id} unreadable: ${(e as Error).message})`];
  }
  for (const f of files) if (!(await table.fileIO.exists(f))) missing.push(f.slice(table.location.length + 1));
  return missing;
}

/**
 * Everything the model says about the table, checked against it through the table object that
 * made the changes and, when given, through `reader`, opened before them and idle for some steps
 * (once it has found the latest snapshot, its caches must not serve what a rollback replaced).
 */
async function check(table: Table, reader: Table | null, model: Model, step: string): Promise<void> {
  if (reader !== null) {
    expect(await readAll(reader), `${step}: latest (reader)`).toEqual(latestSnap(model).rows);
    for (const [id, snap] of model.snapshots) expect(await readAll(reader, id), `${step}: snapshot ${id} (reader)`).toEqual(snap.rows);
  }
  // the latest first: a table object learns of a rollback by another (the second table object
  // of runOps) when it next looks for the latest snapshot (SnapshotManager.snapshot serves its
  // cached latest by id until then, as Java's caching catalog serves snapshots by path)
  expect(await readAll(table), `${step}: latest`).toEqual(latestSnap(model).rows);
  expect((await table.listSnapshots()).map((s) => s.id), `${step}: live snapshots`).toEqual([...model.snapshots.keys()].sort((a, b) => a - b));
  expect([...(await table.listTags())].sort(), `${step}: tags`).toEqual([...model.tags].map(([n, t]) => [n, t.id]).sort());
  // a cached snapshot of a rolled-back id must not be served
  for (const [id, snap] of model.snapshots) expect(await readAll(table, id), `${step}: snapshot ${id}`).toEqual(snap.rows);
  for (const [name, tag] of model.tags) expect(await readAll(await travel(table, { "scan.tag-name": name })), `${step}: tag ${name}`).toEqual(tag.snap.rows);
  // a time reads the newest live snapshot committed at or before it; expired untagged ids are gone
  const snapshots = await table.listSnapshots();
  for (const s of snapshots) {
    const newest = Math.max(...snapshots.filter((o) => o.timeMillis <= s.timeMillis).map((o) => o.id));
    expect(await readAll(await travel(table, { "scan.timestamp-millis": String(s.timeMillis) })), `${step}: time of snapshot ${s.id}`).toEqual(model.snapshots.get(newest)!.rows);
  }
  for (let id = 1; id <= model.maxEver; id++) if (!model.snapshots.has(id)) await expectCode(readAll(table, id), "NOT_FOUND");
  for (const id of model.snapshots.keys()) expect(await missingFiles(table, await table.snapshot(id)), `${step}: files of snapshot ${id}`).toEqual([]);
  for (const name of model.tags.keys()) expect(await missingFiles(table, (await table.snapshotManager.tryGetTag(name))!), `${step}: files of tag ${name}`).toEqual([]);
}

/**
 * Learns the snapshots a commit made on `before`: the last holds `after`; one in between (a
 * commit writing data then compacting it makes two) reads `after` too, or in a deletion-vector
 * table `dvIntermediate` (the visible rows without the new level-0 files). `cleans`: the commit
 * rewrites every file (full compaction, truncate), so nothing stays unmerged.
 */
async function learnCommit(table: Table, model: Model, kind: Kind, before: Snap, after: Rows, step: string, opts: { dvIntermediate?: Rows; cleans?: boolean } = {}): Promise<void> {
  const prev = latestId(model) ?? 0;
  const newest = (await table.latestSnapshot())?.id ?? 0;
  const listed = new Set((await table.listSnapshots()).map((s) => s.id));
  const retained = retainedByCommits(kind);
  for (let id = prev + 1; id <= newest; id++) {
    const last = id === newest;
    if (!listed.has(id)) {
      // expired by the commit itself: only possible for the table's retention
      expect(retained !== null && id <= newest - retained, `${step}: snapshot ${id} of the commit is missing`).toBe(true);
      continue;
    }
    model.maxEver = Math.max(model.maxEver, id);
    if (before.dirty && !(last && opts.cleans)) {
      model.snapshots.set(id, { rows: await readAll(table, id), logical: after, dirty: true });
    } else if (last) {
      model.snapshots.set(id, { rows: after, logical: after, dirty: false });
    } else {
      const rows = await readAll(table, id);
      expect(kind === "pk_dv" ? [after, opts.dvIntermediate ?? before.rows] : [after], `${step}: intermediate snapshot ${id}`).toContainEqual(rows);
      model.snapshots.set(id, { rows, logical: after, dirty: kind === "pk_dv" });
    }
  }
  // the commit's maintenance expires what the table's retention does not keep (Java TableCommitImpl.maintain)
  if (retained !== null && newest > prev) for (const id of [...model.snapshots.keys()]) if (id <= newest - retained) model.snapshots.delete(id);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function step(table: Table, model: Model, kind: Kind, op: Op, label: string): Promise<void> {
  const before = latestSnap(model);
  switch (op.kind) {
    case "write": {
      const rows = kind === "append" ? op.rows.filter((c) => !c.del) : op.rows;
      if (rows.length === 0) return;
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(batch(rows), kind === "append" ? {} : { rowKinds: rows.map((c) => (c.del ? RowKind.DELETE : RowKind.INSERT)) });
      await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
      return learnCommit(table, model, kind, before, applyChanges(kind, before.logical, rows), label);
    }
    case "compact": {
      const w = await table.newWrite({ commitUser: "u" });
      await w.compact({ full: true });
      await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
      return learnCommit(table, model, kind, before, before.logical, label, { cleans: true });
    }
    case "createTag": {
      // snapshot 0 picks the latest; others may be expired (then only a tag of it allows it) or never committed
      const pick = op.snapshot === null ? undefined : pickSnapshot(model, op.snapshot);
      const id = pick === undefined ? latestId(model) : pick;
      const snap = id === null ? undefined : (model.snapshots.get(id) ?? [...model.tags.values()].find((t) => t.id === id)?.snap);
      const create = table.createTag(op.name, pick);
      count(`createTag ${snap === undefined ? "missing" : model.snapshots.has(id!) ? "live" : "expired"}${model.tags.has(op.name) ? " exists" : ""}`);
      if (pick === 0) await expectCode(create, "INVALID_ARGUMENT");
      else if (snap === undefined) await expectCode(create, "NOT_FOUND");
      else if (model.tags.has(op.name)) await expectCode(create, "ALREADY_EXISTS");
      else {
        expect((await create).id, label).toBe(id);
        model.tags.set(op.name, { id: id!, snap });
      }
      return;
    }
    case "deleteTag": {
      const name = pickTag(model, op.pick);
      count(`deleteTag ${!model.tags.has(name) ? "missing" : model.snapshots.has(model.tags.get(name)!.id) ? "live" : "expired"}`);
      if (!model.tags.has(name)) return void (await expectCode(table.deleteTag(name), "NOT_FOUND"));
      await table.deleteTag(name);
      model.tags.delete(name);
      return;
    }
    case "expire": {
      const latest = latestId(model);
      await sleep(2); // every snapshot committed before "now"
      const retainMax = op.retainMin + op.extraMax;
      const expired = await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMin: op.retainMin, retainMax, olderThanMs: op.timeBound ? 3_600_000 : 0, maxDeletes: op.maxDeletes });
      // Java: snapshots beyond retainMax go; within it, those older than the retained time, never the newest retainMin; at most maxDeletes
      const keepFrom = latest === null ? 0 : latest - (op.timeBound ? retainMax : op.retainMin) + 1;
      const ids = [...model.snapshots.keys()].sort((a, b) => a - b).filter((id) => id < keepFrom).slice(0, op.maxDeletes);
      expect(expired, `${label}: expired count`).toBe(ids.length);
      count(`expire ${ids.length > 0 ? "some" : "none"}${[...model.tags.values()].some((t) => ids.includes(t.id)) ? " tagged" : ""}`);
      for (const id of ids) model.snapshots.delete(id);
      return;
    }
    case "rollback":
    case "rollbackTag": {
      let target: number | undefined;
      let snap: Snap | undefined;
      if (op.kind === "rollback") {
        target = pickSnapshot(model, op.snapshot);
        snap = model.snapshots.get(target) ?? [...model.tags.values()].find((t) => t.id === target)?.snap;
      } else {
        const tag = model.tags.get(pickTag(model, op.pick));
        target = tag?.id;
        snap = tag?.snap;
      }
      count(`${op.kind} ${snap === undefined ? "missing" : model.snapshots.has(target!) ? (target === latestId(model) ? "latest" : "live") : "expired"}${model.snapshots.get(target!)?.dirty ? " dirty" : ""}`);
      const roll = op.kind === "rollback" ? table.rollbackTo(target!) : table.rollbackToTag(pickTag(model, op.pick));
      if (snap === undefined) return void (await expectCode(roll, target === 0 ? "INVALID_ARGUMENT" : "NOT_FOUND"));
      await roll;
      if (!model.snapshots.has(target!)) model.snapshots.clear(); // restored from the tag: the only snapshot
      for (const id of [...model.snapshots.keys()]) if (id > target!) model.snapshots.delete(id);
      model.snapshots.set(target!, snap);
      for (const [name, t] of [...model.tags]) if (t.id > target!) model.tags.delete(name);
      return;
    }
    case "overwrite": {
      const rows = op.rows.map((r) => ({ dt: op.dt, ...r }));
      const w = await table.newWrite({ commitUser: "u", overwrite: true });
      await w.write(batch(rows));
      await table.newCommit({ commitUser: "u" }).overwrite(await w.prepareCommit(), { dt: op.dt });
      await w.close();
      const outside = (rs: Rows) => rs.filter((r) => !r.startsWith(`${op.dt}|`));
      const after = applyChanges(kind, outside(before.logical), rows.map((r) => ({ ...r, del: false })));
      return learnCommit(table, model, kind, before, after, label, { dvIntermediate: outside(before.rows) });
    }
    case "truncate":
      await table.truncate({ commitUser: "u" });
      return learnCommit(table, model, kind, before, [], label, { cleans: true });
    case "drop":
      await table.dropPartitions([{ dt: op.dt }], { commitUser: "u" });
      return learnCommit(table, model, kind, before, before.logical.filter((r) => !r.startsWith(`${op.dt}|`)), label);
    case "orphans": {
      // a file no snapshot references (a killed writer's) goes; the maintenance before left none of its own
      const stray = `manifest/manifest-stray-${label.length}-${Date.now()}-0`;
      await table.fileIO.writeFile(`${table.location}/${stray}`, new Uint8Array([1]));
      await sleep(2);
      expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted, label).toEqual([stray]);
      return;
    }
  }
}

let tableCount = 0;
async function newTable(kind: Kind): Promise<Table> {
  const catalog = await Catalog.open(tempDir("paimon-rt-maintenance-model-"));
  await catalog.createDatabase("db");
  const spec = KINDS[kind];
  return catalog.createTable(`db.t${tableCount++}`, {
    fields: [
      { name: "dt", type: "STRING NOT NULL" },
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
    ],
    partitionKeys: ["dt"],
    primaryKeys: [...spec.primaryKeys],
    options: { ...spec.options },
  });
}

/**
 * Runs `ops` on a new table of `kind`; an op marked `other` goes through a second table object
 * (another process), so the first one's caches (latest snapshot, commit-maintenance retention
 * state) meet changes they did not make.
 */
async function runOps(kind: Kind, ops: Array<{ op: Op; other: boolean }>): Promise<void> {
  const table = await newTable(kind);
  const other = await Table.open(table.location);
  const reader = await Table.open(table.location);
  const model: Model = { snapshots: new Map(), tags: new Map(), maxEver: 0 };
  for (const [i, { op, other: viaOther }] of ops.entries()) {
    const label = `step ${i}${viaOther ? " (other)" : ""} ${JSON.stringify(op)}`;
    await step(viaOther ? other : table, model, kind, op, label);
    await check(table, i % 3 === 2 ? reader : null, model, label);
  }
}

describe("table maintenance against a model", () => {
  for (const kind of Object.keys(KINDS) as Kind[]) {
    it(`${kind}: every live snapshot and tag reads its model rows after commits, compactions, tags, expiry, rollbacks, overwrites, truncates, drops and orphan cleanup`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ op: opArb, other: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }), { minLength: 10, maxLength: MAX_STEPS }), (ops) => runOps(kind, ops)),
        { numRuns: RUNS, seed: SEED },
      );
    }, 240_000);
  }
});
