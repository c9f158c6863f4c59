// Dynamic bucket mode (bucket = -1 primary-key tables) as Java's HashBucketAssigner /
// PartitionIndex / DynamicBucketIndexMaintainer: a randomized model over several commits
// (upserts, deletes, compaction, overwrite, new writers) with a reference assigner, plus the
// commit-side guarantees (index combining, concurrent writers, errors).
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { HASH_INDEX } from "../../src/spec/hash-index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind, type TableWrite } from "../../src/write/table-write.js";
import { bucketsOfKeys, hashIndexes, keyHashes } from "./dynamic-bucket-helpers.js";
import { createPkTable, keyOf, readRows, rng, type Row, sortRows, toBatch, writeCommit } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x));

/**
 * Java's assignment for one writer (HashBucketAssigner with one assigner): per partition, a known
 * hash keeps its bucket; else the lowest bucket below the target row number; else the lowest free
 * bucket id while the writer's largest assigned bucket is below the bound; else a random existing
 * bucket (`random`: the same sequence the table's writers draw from Math.random, stubbed).
 */
class ReferenceWriter {
  private readonly sessions = new Map<string, { hashes: Map<number, number>; counts: Map<number, number>; full: Set<number>; total: number[] }>();
  private maxBucketId = 0;

  constructor(
    private readonly committed: Map<string, Map<number, number>>,
    private readonly target: number,
    private readonly maxBuckets: number,
    private readonly startEmpty: boolean,
    private readonly random: () => number,
  ) {}

  assign(partition: string, hash: number): number {
    let s = this.sessions.get(partition);
    if (!s) {
      const hashes = new Map(this.startEmpty ? [] : this.committed.get(partition) ?? []);
      const counts = new Map<number, number>();
      for (const b of hashes.values()) counts.set(b, (counts.get(b) ?? 0) + 1);
      this.sessions.set(partition, (s = { hashes, counts, full: new Set(), total: [...counts.keys()].sort((x, y) => x - y) }));
    }
    const known = s.hashes.get(hash);
    if (known !== undefined) return known;
    for (const b of [...s.counts.keys()].sort((x, y) => x - y)) {
      if (s.full.has(b)) continue;
      if (s.counts.get(b)! < this.target) {
        s.counts.set(b, s.counts.get(b)! + 1);
        return this.assigned(s, hash, b);
      }
      s.full.add(b);
    }
    const globalMax = (this.maxBuckets === -1 ? 32767 : this.maxBuckets) - 1;
    if (s.counts.size === 0 || this.maxBucketId < globalMax) {
      for (let b = 0; b <= globalMax; b++) {
        if (s.counts.has(b)) continue;
        s.counts.set(b, 1);
        s.total.push(b);
        return this.assigned(s, hash, b);
      }
    }
    return this.assigned(s, hash, s.total[Math.floor(this.random() * s.total.length)]!);
  }

  private assigned(s: { hashes: Map<number, number> }, hash: number, bucket: number): number {
    s.hashes.set(hash, bucket);
    if (bucket > this.maxBucketId) this.maxBucketId = bucket;
    return bucket;
  }

  /** The writer's partitions after a commit, into `committed`. */
  commit(): void {
    for (const [p, s] of this.sessions) this.committed.set(p, new Map(s.hashes));
  }
}

type Op =
  | { kind: "write"; rows: Array<{ row: Row; rowKind: RowKind }> }
  | { kind: "compact"; full: boolean }
  | { kind: "commit"; newWriter: boolean }
  | { kind: "overwrite"; rows: Row[] };

const rowArb = fc.record({
  dt: fc.constantFrom("p1", "p2"),
  id: fc.integer({ min: 0, max: 14 }).map(BigInt),
  name: fc.constantFrom("a", "b"),
  v: fc.option(fc.string({ maxLength: 4 }), { nil: null }),
  n: fc.option(fc.integer({ min: -100, max: 100 }), { nil: null }),
});

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.record({ row: rowArb, rowKind: fc.constantFrom(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE) }), { minLength: 1, maxLength: 12 }).map((rows) => ({ kind: "write" as const, rows })) },
  { weight: 1, arbitrary: fc.boolean().map((full) => ({ kind: "compact" as const, full })) },
  { weight: 3, arbitrary: fc.boolean().map((newWriter) => ({ kind: "commit" as const, newWriter })) },
  { weight: 1, arbitrary: fc.array(rowArb, { minLength: 1, maxLength: 6 }).map((rows) => ({ kind: "overwrite" as const, rows })) },
);

interface Config {
  partitioned: boolean;
  target: number;
  maxBuckets: number;
}

async function runModel(config: Config, ops: Op[]): Promise<void> {
  const options: Record<string, string | number> = { bucket: -1, "dynamic-bucket.target-row-num": config.target, "num-sorted-run.compaction-trigger": 3, "write-buffer-size": "2 kb" };
  if (config.maxBuckets !== -1) options["dynamic-bucket.max-buckets"] = config.maxBuckets;
  const table = await createPkTable(options, { partitioned: config.partitioned });
  // past max-buckets Java (and paimon-rt) pick a random bucket: both draw from one seeded sequence
  const seed = Math.floor(Math.random() * 2 ** 31);
  const modelRandom = rng(seed);
  const stub = vi.spyOn(Math, "random").mockImplementation(rng(seed));
  const keyColumns = config.partitioned ? ["id", "name"] : ["dt", "id", "name"];
  const partitionOfRow = (r: Row) => (config.partitioned ? json([r.dt]) : "[]");
  const data = new Map<string, Row>();
  const committed = new Map<string, Map<number, number>>();
  let pending: Array<{ row: Row; rowKind: RowKind }> = [];
  let write: TableWrite = await table.newWrite({ commitUser: "u" });
  let ref = new ReferenceWriter(committed, config.target, config.maxBuckets, false, modelRandom);
  const assignAll = (w: ReferenceWriter, rows: readonly Row[]) => {
    const hashes = keyHashes(toBatch(rows), keyColumns);
    rows.forEach((r, i) => w.assign(partitionOfRow(r), hashes[i]!));
  };
  const check = async (step: string) => {
    expect(await readRows(table), step).toEqual(sortRows([...data.values()]));
    const index = await hashIndexes(table);
    ref.commit();
    // every index file holds exactly the hashes the reference assigned to its bucket
    const expected = new Map<string, number[]>();
    for (const [p, hashes] of committed) {
      for (const [h, b] of hashes) {
        const k = `${p}|${b}`;
        expected.set(k, [...(expected.get(k) ?? []), h]);
      }
    }
    for (const hs of expected.values()) hs.sort((a, b) => a - b);
    expect(new Map([...index].sort()), `${step}: HASH index files`).toEqual(new Map([...expected].sort()));
    // every visible key lives in exactly one bucket, the one of its hash
    const buckets = await bucketsOfKeys(table, ["dt", ...keyColumns.filter((c) => c !== "dt")]);
    const rows = [...data.values()];
    const hashes = rows.length > 0 ? keyHashes(toBatch(rows), keyColumns) : new Int32Array(0);
    rows.forEach((r, i) => {
      expect(buckets.get(json([r.dt, r.id, r.name])), `${step}: buckets of ${keyOf(r)}`).toEqual([committed.get(partitionOfRow(r))!.get(hashes[i]!)]);
    });
    if (config.maxBuckets !== -1) {
      for (const [p, hs] of committed) expect(new Set(hs.values()).size, `${step}: buckets of ${p}`).toBeLessThanOrEqual(config.maxBuckets);
    } else {
      for (const hs of index.values()) expect(hs.length).toBeLessThanOrEqual(config.target);
    }
  };
  let ident = 0;
  const commitPending = async (step: string) => {
    ident++;
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(ident), ident);
    for (const { row, rowKind } of pending) {
      if (rowKind === RowKind.DELETE) data.delete(keyOf(row));
      else data.set(keyOf(row), row);
    }
    pending = [];
    await check(step);
  };
  try {
    for (const [i, op] of [...ops, { kind: "commit", newWriter: false } as Op].entries()) {
      const step = `op ${i} (${op.kind})`;
      if (op.kind === "write") {
        await write.write(toBatch(op.rows.map((r) => r.row)), { rowKinds: op.rows.map((r) => r.rowKind) });
        assignAll(ref, op.rows.map((r) => r.row));
        pending.push(...op.rows);
      } else if (op.kind === "compact") {
        await write.compact({ full: op.full });
      } else if (op.kind === "commit") {
        await commitPending(step);
        if (op.newWriter) {
          await write.close();
          write = await table.newWrite({ commitUser: "u" });
          ref = new ReferenceWriter(committed, config.target, config.maxBuckets, false, modelRandom);
        }
      } else {
        await commitPending(`${step}: before`);
        await write.close();
        // an overwrite writer starts every partition empty; the partitions it writes are replaced
        const ow = await table.newWrite({ commitUser: "u", overwrite: true });
        await ow.write(toBatch(op.rows));
        ref = new ReferenceWriter(committed, config.target, config.maxBuckets, true, modelRandom);
        assignAll(ref, op.rows);
        ident++;
        await table.newCommit({ commitUser: "u" }).overwrite(await ow.prepareCommit(ident), undefined, ident);
        await ow.close();
        const touched = new Set(op.rows.map(partitionOfRow));
        for (const [k, r] of data) if (touched.has(partitionOfRow(r))) data.delete(k);
        for (const p of touched) committed.delete(p);
        for (const r of op.rows) data.set(keyOf(r), r);
        await check(step);
        write = await table.newWrite({ commitUser: "u" });
        ref = new ReferenceWriter(committed, config.target, config.maxBuckets, false, modelRandom);
      }
    }
  } finally {
    stub.mockRestore();
    await write.close();
  }
}

const r = (id: number, name: string, v: string | null = null, dt = "d1"): Row => ({ dt, id: BigInt(id), name, v, n: null });

describe("dynamic bucket mode: model", () => {
  const configs: Array<[string, Config]> = [
    ["partitioned, target 3", { partitioned: true, target: 3, maxBuckets: -1 }],
    ["unpartitioned, target 2", { partitioned: false, target: 2, maxBuckets: -1 }],
    ["partitioned, target 2, max-buckets 3", { partitioned: true, target: 2, maxBuckets: 3 }],
    ["unpartitioned, target 1, max-buckets 2", { partitioned: false, target: 1, maxBuckets: 2 }],
  ];
  for (const [name, config] of configs) {
    it(`${name}: reads, key buckets and HASH index files equal the model after every commit`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), (ops) => runModel(config, ops)),
        { numRuns: runs(Number(process.env.DYN_RUNS ?? 50)), seed: process.env.DYN_SEED ? Number(process.env.DYN_SEED) : undefined },
      );
    }, 240_000);
  }
});

describe("dynamic bucket mode", () => {
  it("assigns new keys to the lowest non-full bucket, then to new buckets; a known key keeps its bucket", async () => {
    const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 3 });
    await writeCommit(table, "u", [{ rows: [1, 2, 3, 4, 5, 6, 7].map((i) => r(i, "a", `x${i}`)) }]);
    await writeCommit(table, "u", [{ rows: [1, 2, 8, 9].map((i) => r(i, "a", `y${i}`)) }]);
    const buckets = await bucketsOfKeys(table, ["dt", "id", "name"]);
    expect(Object.fromEntries([...buckets].map(([k, b]) => [JSON.parse(k)[1], b]))).toEqual({
      "1": [0], "2": [0], "3": [0], "4": [1], "5": [1], "6": [1], "7": [2], "8": [2], "9": [2],
    });
    const plan = await table.newScan().plan();
    expect(plan.splits.map((s) => (s as { totalBuckets: number }).totalBuckets)).toEqual([-1, -1, -1]);
    const snap = (await table.latestSnapshot())!;
    expect(snap.commitKind).toBe("APPEND"); // a HASH index rides an APPEND snapshot, as Java
    const index = await hashIndexes(table);
    expect([...index.keys()].sort()).toEqual(['["d1"]|0', '["d1"]|1', '["d1"]|2']);
    expect([...index.values()].map((h) => h.length)).toEqual([3, 3, 3]);
    // the second commit rewrote only bucket 2's index (bucket 0 got known keys only)
    const entries = (await table.manifestStore.indexEntries(snap)).filter((e) => e.indexFile.indexType === HASH_INDEX);
    const first = (await table.manifestStore.indexEntries(await table.snapshotManager.snapshot(1))).filter((e) => e.indexFile.indexType === HASH_INDEX);
    const byBucket = (es: typeof entries) => Object.fromEntries(es.map((e) => [e.bucket, e.indexFile.fileName]));
    expect(byBucket(entries)[0]).toBe(byBucket(first)[0]);
    expect(byBucket(entries)[1]).toBe(byBucket(first)[1]);
    expect(byBucket(entries)[2]).not.toBe(byBucket(first)[2]);
    expect(entries.find((e) => e.bucket === 2)!.indexFile.rowCount).toBe(3n);
  });

  it("refuses an overwrite writer of a cross-partition upsert table and an explicit bucket, changing nothing", async () => {
    const catalogTable = await createPkTable({ bucket: -1 });
    const write = await catalogTable.newWrite({ commitUser: "u" });
    const err = await write.write(toBatch([r(1, "a")]), { bucket: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaimonError);
    expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
    expect((err as PaimonError).message).toMatch(/dynamic bucket mode \(bucket = -1\) and assigns buckets itself/);
    expect(await write.prepareCommit()).toEqual([]);
    await write.close();
    const { Catalog } = await import("../../src/catalog/catalog.js");
    const catalog = await Catalog.open(`memory://dyn-cross-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const cross = await catalog.createTable("db.cross", {
      fields: [
        { name: "dt", type: "STRING NOT NULL" },
        { name: "id", type: "BIGINT NOT NULL" },
      ],
      partitionKeys: ["dt"],
      primaryKeys: ["id"],
      options: { bucket: -1 },
    });
    const e2 = await (async () => cross.newWrite({ commitUser: "u", overwrite: true }))().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(PaimonError);
    expect((e2 as PaimonError).code).toBe("UNSUPPORTED");
    expect((e2 as PaimonError).message).toMatch(/overwrite writer of cross-partition upsert table db.cross \(bucket = -1, primary key without partition field\(s\) dt\) is not supported/);
    for (const [opt, value] of [["dynamic-bucket.target-row-num", "0"], ["dynamic-bucket.max-buckets", "0"]]) {
      const t = await createPkTable({ bucket: -1, [opt]: value });
      const e3 = await (async () => t.newWrite({ commitUser: "u" }))().catch((e: unknown) => e);
      expect((e3 as PaimonError).code, opt).toBe("INVALID_ARGUMENT");
      expect((e3 as PaimonError).message).toMatch(new RegExp(opt));
    }
  });

  it("a second writer from the same snapshot cannot commit keys the first one committed since (no key in two buckets)", async () => {
    const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 2 });
    await writeCommit(table, "u", [{ rows: [r(1, "a", "base"), r(2, "a", "base")] }]); // bucket 0 full
    const a = await table.newWrite({ commitUser: "a" });
    const b = await table.newWrite({ commitUser: "b" });
    await a.write(toBatch([r(3, "a", "A")])); // both load the index at snapshot 1: key 3 -> new bucket 1
    await b.write(toBatch([r(4, "a", "B"), r(5, "a", "B"), r(3, "a", "B")])); // 4, 5 -> bucket 1 (full), 3 -> bucket 2
    await table.newCommit({ commitUser: "a" }).commit(await a.prepareCommit(1), 1);
    const err = await table.newCommit({ commitUser: "b" }).commit(await b.prepareCommit(1), 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaimonError);
    expect((err as PaimonError).code).toBe("COMMIT_CONFLICT");
    expect((err as PaimonError).message).toMatch(/dynamic bucket index of bucket 1 .*another writer committed keys/);
    await a.close();
    await b.close();
    expect(await readRows(table)).toEqual([r(1, "a", "base"), r(2, "a", "base"), r(3, "a", "A")]);
    // a writer started after the commit sees key 3 in bucket 1
    await writeCommit(table, "c", [{ rows: [r(3, "a", "C"), r(6, "a", "C")] }]);
    const buckets = await bucketsOfKeys(table, ["dt", "id", "name"]);
    expect(Object.fromEntries([...buckets].map(([k, v]) => [JSON.parse(k)[1], v]))).toEqual({ "1": [0], "2": [0], "3": [1], "6": [1] });
  });

  it("truncate and dropPartitions drop the hash indexes of what they remove; rollback restores them", async () => {
    const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 2 });
    await writeCommit(table, "u", [{ rows: [r(1, "a"), r(2, "a"), r(3, "a"), r(1, "a", null, "d2")] }]);
    expect([...(await hashIndexes(table)).keys()].sort()).toEqual(['["d1"]|0', '["d1"]|1', '["d2"]|0']);
    await table.newCommit({ commitUser: "u" }).dropPartitions([{ dt: "d1" }]);
    expect([...(await hashIndexes(table)).keys()]).toEqual(['["d2"]|0']);
    // d1 starts over: its keys are new again
    await writeCommit(table, "u", [{ rows: [r(3, "a", "again")] }]);
    expect([...(await hashIndexes(table)).keys()].sort()).toEqual(['["d1"]|0', '["d2"]|0']);
    await table.newCommit({ commitUser: "u" }).truncate();
    expect((await hashIndexes(table)).size).toBe(0);
    await table.rollbackTo(1);
    expect([...(await hashIndexes(table)).keys()].sort()).toEqual(['["d1"]|0', '["d1"]|1', '["d2"]|0']);
    await writeCommit(table, "u", [{ rows: [r(3, "a", "after rollback"), r(9, "a")] }]);
    const buckets = await bucketsOfKeys(table, ["dt", "id", "name"]);
    expect(buckets.get(json(["d1", 3n, "a"]))).toEqual([1]);
    expect(buckets.get(json(["d1", 9n, "a"]))).toEqual([1]); // bucket 1 held one key of two
  });

  it("compaction keeps the hash index; serialized messages commit the HASH file; expiry deletes replaced HASH files, orphan removal keeps live ones", async () => {
    const { CommitMessage } = await import("../../src/commit/commit-message.js");
    const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 2 });
    const write = await table.newWrite({ commitUser: "u" });
    await write.write(toBatch([r(1, "a"), r(2, "a"), r(3, "a")]));
    const messages = await write.prepareCommit(1);
    const hashFiles = messages.flatMap((m) => m.data.dataIncrement.newIndexFiles).filter((f) => f.indexType === HASH_INDEX);
    expect(hashFiles.map((f) => f.rowCount)).toEqual([2n, 1n]);
    expect(messages.map((m) => m.data.totalBuckets)).toEqual([-1, -1]); // as Java's writers for bucket = -1
    const bytes = CommitMessage.serializeList(messages);
    await table.newCommit({ commitUser: "u" }).commit(CommitMessage.deserializeList(CommitMessage.currentVersion(), bytes), 1);
    const first = await hashIndexes(table);
    expect([...first.keys()]).toEqual(['["d1"]|0', '["d1"]|1']);
    await write.write(toBatch([r(1, "a", "u1"), r(4, "a")]));
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(2), 2);
    await write.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(3), 3);
    await write.close();
    const snaps = await table.listSnapshots();
    expect(snaps.at(-1)!.commitKind).toBe("COMPACT");
    const index = await hashIndexes(table);
    expect(index.get('["d1"]|1')).toHaveLength(2); // key 4 joined bucket 1; compaction left the index as it was
    expect(index.get('["d1"]|0')).toEqual(first.get('["d1"]|0'));
    const indexDir = async () => (await table.fileIO.listStatus(table.paths.indexDir)).map((f) => f.path.slice(f.path.lastIndexOf("/") + 1)).sort();
    const live = (await table.manifestStore.indexEntries(await table.latestSnapshot())).map((e) => e.indexFile.fileName).sort();
    expect(await indexDir()).toHaveLength(3); // bucket 1's first file, replaced, is still in snapshot 1
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted.filter((f) => f.startsWith("index/"))).toEqual([]);
    await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1 });
    expect(await indexDir()).toEqual(live);
    expect(await readRows(table)).toEqual([r(1, "a", "u1"), r(2, "a"), r(3, "a"), r(4, "a")]);
  });

  it("ignore-delete: a dropped DELETE row is assigned (Java's assigner sees it) but not indexed (the writer never does)", async () => {
    const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 1, "ignore-delete": "true" });
    await writeCommit(table, "u", [{ rows: [r(1, "a"), r(2, "a")], kinds: [RowKind.DELETE, RowKind.INSERT] }]);
    const [h1, h2] = keyHashes(toBatch([r(1, "a"), r(2, "a")]), ["id", "name"]);
    expect([...(await hashIndexes(table))]).toEqual([['["d1"]|1', [h2]]]);
    expect(await bucketsOfKeys(table, ["dt", "id", "name"])).toEqual(new Map([[json(["d1", 2n, "a"]), [1]]]));
    // a new writer: bucket 0 has no keys, so key 1 goes there
    await writeCommit(table, "u", [{ rows: [r(1, "a", "x")] }]);
    expect((await hashIndexes(table)).get('["d1"]|0')).toEqual([h1]);
  });

  it("a later writer and its commit read no HASH file this process wrote or read before (decoded files are cached per FileIO)", async () => {
    const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 2 });
    await writeCommit(table, "u", [{ rows: [r(1, "a"), r(2, "a"), r(3, "a"), r(4, "a"), r(5, "a")] }]);
    expect((await hashIndexes(table)).size).toBe(3);
    const io = table.fileIO;
    const readFile = io.readFile.bind(io);
    const hashReads: string[] = [];
    const spy = vi.spyOn(io, "readFile").mockImplementation((path: string) => {
      if (/\/index\/index-/.test(path)) hashReads.push(path);
      return readFile(path);
    });
    try {
      // a new writer loads the partition's three HASH files; the commit checks them and bucket 2's new file
      await writeCommit(table, "u", [{ rows: [r(6, "a"), r(7, "a")] }]);
    } finally {
      spy.mockRestore();
    }
    expect(hashReads).toEqual([]);
    // buckets 0 {1, 2}, 1 {3, 4}, 2 {5, 6}, 3 {7}
    expect([...(await hashIndexes(table)).values()].map((h) => h.length).sort()).toEqual([1, 2, 2, 2]);
    expect((await readRows(table)).map((row) => row.id)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  });

  it("a HASH index file that is not whole int32s, or disagrees with its row count, is CORRUPT_FILE at write", async () => {
    const table = await createPkTable({ bucket: -1 });
    await writeCommit(table, "u", [{ rows: [r(1, "a"), r(2, "a")] }]);
    const [entry] = (await table.manifestStore.indexEntries(await table.latestSnapshot())).filter((e) => e.indexFile.indexType === HASH_INDEX);
    const file = table.paths.index(entry!.indexFile.fileName);
    const bytes = await table.fileIO.readFile(file);
    for (const [bad, pattern] of [[bytes.subarray(0, 7), /has 7 bytes, not a multiple of 4/], [bytes.subarray(0, 4), /holds 1 hashes, its index manifest entry says 2/]] as const) {
      await table.fileIO.writeFile(file, bad);
      // read as another process would (a fresh FileIO: decoded HASH files are cached per FileIO,
      // and this process wrote the file, so its own FileIO answers from memory)
      const reopened = await (await Catalog.open(table.location.slice(0, table.location.lastIndexOf("/db.db/")))).getTable(table.identifier);
      expect(reopened.fileIO).not.toBe(table.fileIO);
      const write = await reopened.newWrite({ commitUser: "u" });
      const err = await write.write(toBatch([r(3, "a")])).catch((e: unknown) => e);
      expect((err as PaimonError).code).toBe("CORRUPT_FILE");
      expect((err as PaimonError).message).toMatch(pattern);
      expect(await write.prepareCommit()).toEqual([]);
      await write.close();
    }
  });

  it("two writers from one snapshot, committed in either order: the second commits or is a COMMIT_CONFLICT, never a key in two buckets", async () => {
    const keyArb = fc.record({ dt: fc.constantFrom("p1", "p2"), id: fc.integer({ min: 0, max: 9 }) });
    const rowsArb = fc.array(keyArb, { minLength: 1, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(fc.array(keyArb, { maxLength: 8 }), rowsArb, rowsArb, fc.boolean(), async (base, a, b, aFirst) => {
        const table = await createPkTable({ bucket: -1, "dynamic-bucket.target-row-num": 2 });
        const toRows = (keys: Array<{ dt: string; id: number }>, v: string) => keys.map((k) => r(k.id, "a", v, k.dt));
        const keys = new Set<string>();
        if (base.length > 0) await writeCommit(table, "base", [{ rows: toRows(base, "base") }]);
        for (const k of base) keys.add(json([k.dt, BigInt(k.id), "a"]));
        const wa = await table.newWrite({ commitUser: "a" });
        const wb = await table.newWrite({ commitUser: "b" });
        await wa.write(toBatch(toRows(a, "A")));
        await wb.write(toBatch(toRows(b, "B")));
        const outcomes: string[] = [];
        for (const [w, user, rows] of aFirst ? ([[wa, "a", a], [wb, "b", b]] as const) : ([[wb, "b", b], [wa, "a", a]] as const)) {
          const err = await table.newCommit({ commitUser: user }).commit(await w.prepareCommit(1), 1).catch((e: unknown) => e);
          if (typeof err === "number") {
            for (const k of rows) keys.add(json([k.dt, BigInt(k.id), "a"]));
            outcomes.push("ok");
          } else {
            expect((err as PaimonError).code).toBe("COMMIT_CONFLICT");
            outcomes.push("conflict");
          }
          await w.close();
        }
        expect(outcomes[0]).toBe("ok");
        const buckets = await bucketsOfKeys(table, ["dt", "id", "name"]);
        expect(new Set(buckets.keys())).toEqual(keys);
        const index = await hashIndexes(table);
        const homes = new Map<string, number>();
        for (const [k, hashes] of index) for (const h of hashes) {
          const where = `${k.slice(0, k.lastIndexOf("|"))}|${h}`;
          expect(homes.has(where), `hash ${h} in two buckets (${k})`).toBe(false);
          homes.set(where, Number(k.slice(k.lastIndexOf("|") + 1)));
        }
        for (const [key, bs] of buckets) {
          expect(bs, key).toHaveLength(1);
          const [dt, id] = JSON.parse(key) as [string, string];
          const [h] = keyHashes(toBatch([r(Number(id), "a", null, dt)]), ["id", "name"]);
          expect(homes.get(`${json([dt])}|${h}`), `${key} is indexed in its bucket`).toBe(bs[0]);
        }
      }),
      { numRuns: runs(40) },
    );
  }, 240_000);
});
