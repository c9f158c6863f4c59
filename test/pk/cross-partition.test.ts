// Cross-partition upsert (bucket = -1, primary key without the partition field: Java KEY_DYNAMIC):
// a key lives in exactly one partition; the writer's key index (bootstrapped from the table) routes
// rows as Java's GlobalIndexAssigner and ExistingProcessor do.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { runs } from "../support/fc-runs.js";

let counter = 0;

async function createCrossTable(options: Record<string, string> = {}): Promise<Table> {
  const catalog = await Catalog.open(`memory://cross-${process.pid}-${counter++}-${Math.random().toString(36).slice(2)}`);
  await catalog.createDatabase("db");
  return catalog.createTable(`db.t${counter++}`, {
    fields: [
      { name: "dt", type: "STRING NOT NULL" },
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
      { name: "n", type: "INT" },
    ],
    partitionKeys: ["dt"],
    primaryKeys: ["id"],
    options: { bucket: "-1", ...options },
  });
}

interface R {
  dt: string;
  id: number;
  v: string | null;
  n: number | null;
}

function batch(rows: readonly R[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0]!,
    id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows.map((r) => BigInt(r.id))) }),
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0]!,
    n: arrow.vectorFromArray(rows.map((r) => r.n), new arrow.Int32()).data[0]!,
  });
}

async function write(table: Table, user: string, rows: readonly R[], kinds?: RowKind[], id = 1): Promise<number | null> {
  const w = await table.newWrite({ commitUser: user });
  await w.write(batch(rows), kinds ? { rowKinds: kinds } : {});
  const messages = await w.prepareCommit(id);
  await w.close();
  return table.newCommit({ commitUser: user }).commit(messages, id);
}

/** Every visible row, sorted by id, with the bucket it is read from. */
async function rowsOf(table: Table): Promise<Array<R & { bucket: number }>> {
  const out: Array<R & { bucket: number }> = [];
  for (const split of (await table.newScan().plan()).splits) {
    for (const row of (await table.newRead().toArrow([split])).toArray()) {
      const j = row.toJSON() as { dt: string; id: bigint; v: string | null; n: number | null };
      out.push({ dt: j.dt, id: Number(j.id), v: j.v, n: j.n, bucket: split.bucket });
    }
  }
  return out.sort((a, b) => a.id - b.id || a.dt.localeCompare(b.dt));
}

const strip = (rows: Array<R & { bucket: number }>) => rows.map(({ bucket: _b, ...r }) => r);

describe("cross-partition upsert", () => {
  it("moves a key to its new partition (deduplicate: the old partition's row is deleted)", async () => {
    const t = await createCrossTable();
    await write(t, "u", [{ dt: "a", id: 1, v: "x", n: 1 }, { dt: "a", id: 2, v: "y", n: 2 }, { dt: "b", id: 3, v: "z", n: 3 }]);
    await write(t, "u", [{ dt: "b", id: 1, v: "x2", n: 10 }, { dt: "c", id: 3, v: "z2", n: 30 }]);
    expect(strip(await rowsOf(t))).toEqual([
      { dt: "b", id: 1, v: "x2", n: 10 },
      { dt: "a", id: 2, v: "y", n: 2 },
      { dt: "c", id: 3, v: "z2", n: 30 },
    ]);
    // no HASH index files in this mode (Java writes none)
    const snap = await t.latestSnapshot();
    expect((await t.manifestStore.indexEntries(snap!)).length).toBe(0);
  });
});

type Engine = "deduplicate" | "partial-update" | "first-row";

interface Step {
  rows: Array<{ dt: string; id: number; v: string | null; n: number | null; kind: RowKind }>;
  /** Write with a fresh writer (bootstrapped from the table) rather than the previous one. */
  fresh: boolean;
  /** Split the rows into two write calls at this index. */
  split: number;
  compact: boolean;
}

/** The reference model: per key its one live row, in one partition. */
function applyModel(model: Map<number, R>, engine: Engine, row: Step["rows"][number], ignoreDelete: boolean): void {
  const old = model.get(row.id);
  if (engine === "deduplicate") {
    if ((row.kind === RowKind.DELETE || row.kind === RowKind.UPDATE_BEFORE) && ignoreDelete) return;
    if (row.kind === RowKind.DELETE || row.kind === RowKind.UPDATE_BEFORE) model.delete(row.id);
    else model.set(row.id, { dt: row.dt, id: row.id, v: row.v, n: row.n });
  } else if (engine === "first-row") {
    if (!old) model.set(row.id, { dt: row.dt, id: row.id, v: row.v, n: row.n });
  } else {
    // partial-update: the key stays in its first partition, non-null fields update it
    model.set(row.id, old ? { dt: old.dt, id: row.id, v: row.v ?? old.v, n: row.n ?? old.n } : { dt: row.dt, id: row.id, v: row.v, n: row.n });
  }
}

function stepsArb(engine: Engine): fc.Arbitrary<Step[]> {
  const kinds = engine === "deduplicate" ? fc.constantFrom(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE) : fc.constant(RowKind.INSERT);
  const row = fc.record({ dt: fc.constantFrom("a", "b", "c"), id: fc.integer({ min: 0, max: 9 }), v: fc.option(fc.constantFrom("p", "q", "r"), { nil: null }), n: fc.option(fc.integer({ min: 0, max: 99 }), { nil: null }), kind: kinds });
  return fc.array(fc.record({ rows: fc.array(row, { minLength: 1, maxLength: 12 }), fresh: fc.boolean(), split: fc.integer({ min: 0, max: 12 }), compact: fc.boolean() }), { minLength: 1, maxLength: 6 });
}

async function runModel(engine: Engine, steps: Step[], options: Record<string, string>): Promise<void> {
  const t = await createCrossTable({ "merge-engine": engine, "dynamic-bucket.target-row-num": "2", ...options });
  const model = new Map<number, R>();
  let w: Awaited<ReturnType<Table["newWrite"]>> | null = null;
  let id = 0;
  for (const step of steps) {
    if (w === null || step.fresh) {
      await w?.close();
      w = await t.newWrite({ commitUser: "u" });
    }
    const at = Math.min(step.split, step.rows.length);
    for (const part of [step.rows.slice(0, at), step.rows.slice(at)]) {
      if (part.length > 0) await w.write(batch(part), { rowKinds: part.map((r) => r.kind) });
    }
    for (const r of step.rows) applyModel(model, engine, r, options["ignore-delete"] === "true");
    if (step.compact) await w.compact({ full: true });
    id++;
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(id), id);
    const read = await rowsOf(t);
    const expected = [...model.values()].sort((a, b) => a.id - b.id);
    expect(strip(read)).toEqual(expected);
    // every key in exactly one partition-bucket
    expect(new Set(read.map((r) => r.id)).size).toBe(read.length);
  }
  await w?.close();
}

describe("cross-partition upsert: model", () => {
  for (const [engine, options] of [
    ["deduplicate", {}],
    ["deduplicate", { "deletion-vectors.enabled": "true" }],
    ["deduplicate", { "ignore-delete": "true" }],
    ["partial-update", {}],
    ["first-row", {}],
  ] as Array<[Engine, Record<string, string>]>) {
    it(`${engine} ${JSON.stringify(options)}: reads equal the model (each key live in one partition with its last value)`, async () => {
      await fc.assert(fc.asyncProperty(stepsArb(engine), (steps) => runModel(engine, steps, options)), { numRuns: runs(25) });
    }, 120_000);
  }
});

describe("cross-partition upsert: concurrent writers", () => {
  it("a commit conflicts when another writer committed overlapping keys to another partition-bucket since its index was loaded; nothing is published", async () => {
    const t = await createCrossTable();
    await write(t, "base", [{ dt: "a", id: 1, v: "x", n: 1 }, { dt: "a", id: 9, v: "x", n: 9 }]);
    const a = await t.newWrite({ commitUser: "A" });
    const b = await t.newWrite({ commitUser: "B" });
    const c = await t.newWrite({ commitUser: "C" });
    await a.write(batch([{ dt: "b", id: 5, v: "A", n: 5 }])); // all three load the index at snapshot 1
    await b.write(batch([{ dt: "c", id: 5, v: "B", n: 5 }]));
    await c.write(batch([{ dt: "c", id: 50, v: "C", n: 50 }, { dt: "c", id: 60, v: "C", n: 60 }]));
    expect(await t.newCommit({ commitUser: "A" }).commit(await a.prepareCommit(1), 1)).toBe(2);
    const err = await t.newCommit({ commitUser: "B" }).commit(await b.prepareCommit(1), 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaimonError);
    expect((err as PaimonError).code).toBe("COMMIT_CONFLICT");
    expect((err as PaimonError).message).toMatch(/cross-partition upsert: snapshot 2 of commit user A, committed after this writer loaded its key index, added .* whose keys overlap .* a key could end up in two partitions/);
    expect((await t.latestSnapshot())!.id).toBe(2);
    // keys 50..60 overlap none of A's (5..5): C commits
    expect(await t.newCommit({ commitUser: "C" }).commit(await c.prepareCommit(1), 1)).toBe(3);
    // A continues after its own commit (its own snapshots are not conflicts), C's snapshot does not overlap
    await a.write(batch([{ dt: "a", id: 5, v: "A2", n: 55 }]));
    const second = await a.prepareCommit(2);
    expect(await t.newCommit({ commitUser: "A" }).commit(second, 2)).toBe(4);
    // the writer's check state: snapshots 2..3 read once, kept as adding files (the next commit reads only newer ones)
    expect(second[0]!.crossPartitionBase).toEqual({ snapshot: 1, checkedTo: 3, adding: [{ id: 2, commitUser: "A" }, { id: 3, commitUser: "C" }] });
    expect(strip(await rowsOf(t))).toEqual([
      { dt: "a", id: 1, v: "x", n: 1 },
      { dt: "a", id: 5, v: "A2", n: 55 },
      { dt: "a", id: 9, v: "x", n: 9 },
      { dt: "c", id: 50, v: "C", n: 50 },
      { dt: "c", id: 60, v: "C", n: 60 },
    ]);
    for (const w of [a, b, c]) await w.close();
  });
});

describe("cross-partition upsert: options and table operations", () => {
  it("a primary key holding one of two partition fields moves its key between values of the other only", async () => {
    const catalog = await Catalog.open(`memory://cross-pk-part-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", {
      fields: [
        { name: "region", type: "STRING NOT NULL" },
        { name: "dt", type: "STRING NOT NULL" },
        { name: "id", type: "INT NOT NULL" },
        { name: "v", type: "STRING" },
      ],
      partitionKeys: ["region", "dt"],
      primaryKeys: ["region", "id"],
      options: { bucket: "-1" },
    });
    const rows = (rs: Array<[string, string, number, string]>) =>
      new arrow.RecordBatch({
        region: arrow.vectorFromArray(rs.map((r) => r[0]), new arrow.Utf8()).data[0]!,
        dt: arrow.vectorFromArray(rs.map((r) => r[1]), new arrow.Utf8()).data[0]!,
        id: arrow.vectorFromArray(rs.map((r) => r[2]), new arrow.Int32()).data[0]!,
        v: arrow.vectorFromArray(rs.map((r) => r[3]), new arrow.Utf8()).data[0]!,
      });
    for (const [i, rs] of ([[["r1", "a", 1, "x"], ["r2", "a", 1, "y"]], [["r1", "b", 1, "x2"]]] as Array<Array<[string, string, number, string]>>).entries()) {
      const w = await t.newWrite({ commitUser: "u" });
      await w.write(rows(rs));
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(i), i);
      await w.close();
    }
    const read = (await t.newRead().toArrow((await t.newScan().plan()).splits)).toArray().map((r) => r.toJSON());
    expect(read.sort((a, b) => String(a.region).localeCompare(String(b.region)))).toEqual([
      { region: "r1", dt: "b", id: 1, v: "x2" },
      { region: "r2", dt: "a", id: 1, v: "y" },
    ]);
  });

  it("ignore-delete: a DELETE changes nothing, not even the key's partition in the writer's index", async () => {
    const t = await createCrossTable({ "ignore-delete": "true" });
    const w = await t.newWrite({ commitUser: "u" });
    await w.write(batch([{ dt: "a", id: 1, v: "x", n: 1 }]));
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(1), 1);
    // Java's assigner would record the key in b for the ignored DELETE, and its writer would drop
    // the retractions (DELETE rows): the key would stay live in a and b
    await w.write(batch([{ dt: "b", id: 1, v: null, n: null }, { dt: "b", id: 1, v: "x2", n: 2 }, { dt: "c", id: 1, v: "x3", n: 3 }]), { rowKinds: [RowKind.DELETE, RowKind.INSERT, RowKind.INSERT] });
    await w.write(batch([{ dt: "a", id: 1, v: null, n: null }]), { rowKinds: [RowKind.DELETE] });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(2), 2);
    await w.close();
    expect(strip(await rowsOf(t))).toEqual([{ dt: "c", id: 1, v: "x3", n: 3 }]);
  });

  it("dropPartitions and truncate: the next writer's index holds only the keys left", async () => {
    const t = await createCrossTable({ "dynamic-bucket.target-row-num": "1" });
    await write(t, "u", [{ dt: "a", id: 1, v: "x", n: 1 }, { dt: "b", id: 2, v: "y", n: 2 }, { dt: "b", id: 3, v: "z", n: 3 }]);
    await t.newCommit({ commitUser: "u" }).dropPartitions([{ dt: "b" }]);
    await write(t, "u", [{ dt: "c", id: 2, v: "y2", n: 20 }, { dt: "c", id: 1, v: "x2", n: 10 }], undefined, 2);
    const rows = await rowsOf(t);
    expect(strip(rows)).toEqual([
      { dt: "c", id: 1, v: "x2", n: 10 },
      { dt: "c", id: 2, v: "y2", n: 20 },
    ]);
    // target 1 row a bucket: the two new keys of c take buckets 0 and 1 (Java's crosspartition BucketAssigner)
    expect(rows.map((r) => r.bucket)).toEqual([1, 0]);
    await t.newCommit({ commitUser: "u" }).truncate();
    await write(t, "u", [{ dt: "a", id: 2, v: "y3", n: 30 }], undefined, 3);
    expect(strip(await rowsOf(t))).toEqual([{ dt: "a", id: 2, v: "y3", n: 30 }]);
  });

  it("cross-partition-upsert.index-ttl: the bootstrap skips splits with no file created within it (the old row stays, as Java)", async () => {
    const t = await createCrossTable({ "cross-partition-upsert.index-ttl": "20 ms" });
    await write(t, "u", [{ dt: "a", id: 1, v: "x", n: 1 }]);
    await new Promise((r) => setTimeout(r, 50));
    await write(t, "u", [{ dt: "b", id: 1, v: "y", n: 2 }], undefined, 2);
    expect(strip(await rowsOf(t))).toEqual([
      { dt: "a", id: 1, v: "x", n: 1 },
      { dt: "b", id: 1, v: "y", n: 2 },
    ]);
    const bad = await createCrossTable({ "cross-partition-upsert.index-ttl": "soon" });
    const err = await (async () => bad.newWrite({ commitUser: "u" }))().catch((e: unknown) => e);
    expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
    expect((err as PaimonError).message).toMatch(/cross-partition-upsert.index-ttl/);
  });

  it("a write failing after routing (first-row refuses a DELETE) leaves the writer refusing further writes", async () => {
    const t = await createCrossTable({ "merge-engine": "first-row" });
    const w = await t.newWrite({ commitUser: "u" });
    const err = await w.write(batch([{ dt: "a", id: 1, v: "x", n: 1 }]), { rowKinds: [RowKind.DELETE] }).catch((e: unknown) => e);
    expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
    expect((err as PaimonError).message).toMatch(/cannot accept DELETE/);
    const again = await w.write(batch([{ dt: "b", id: 1, v: "y", n: 2 }])).catch((e: unknown) => e);
    expect((again as PaimonError).code).toBe("INVALID_ARGUMENT");
    expect((again as PaimonError).message).toMatch(/failed a write after routing it .* key index no longer matches the rows written/);
    await w.close();
    await write(t, "u", [{ dt: "b", id: 1, v: "y", n: 2 }]);
    expect(strip(await rowsOf(t))).toEqual([{ dt: "b", id: 1, v: "y", n: 2 }]);
  });

  it("refuses an explicit bucket, changing nothing", async () => {
    const t = await createCrossTable();
    const w = await t.newWrite({ commitUser: "u" });
    const err = await w.write(batch([{ dt: "a", id: 1, v: "x", n: 1 }]), { bucket: 0 }).catch((e: unknown) => e);
    expect((err as PaimonError).code).toBe("INVALID_ARGUMENT");
    expect((err as PaimonError).message).toMatch(/cross-partition upsert mode \(bucket = -1\) and assigns buckets itself; got bucket 0/);
    expect(await w.prepareCommit()).toEqual([]);
    await w.close();
  });
});
