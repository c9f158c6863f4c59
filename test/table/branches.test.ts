// Branches as Java Paimon 1.4.2's FileSystemBranchManager lays them out: `branch/branch-<name>/
// {snapshot,schema,tag}` with data files and manifests shared in the table directory; reads,
// writes, commits, time travel and system tables on `t$branch_<name>`; createBranch (empty, or
// from a tag), dropBranch, fastForward; bad names and missing / existing branches refused with
// nothing changed; expiry, tag deletion and orphan cleanup keep what another branch uses.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { appendIds } from "./helpers.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";
import { fileTree } from "../support/file-tree.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

let n = 0;
async function newTable(options: Record<string, string> = {}): Promise<{ catalog: Catalog; name: string; table: Table; root: string }> {
  const wh = tempDir("paimon-rt-branches-");
  const catalog = await Catalog.open(wh);
  await catalog.createDatabase("db");
  const name = `db.t${n++}`;
  const table = await catalog.createTable(name, { fields: [{ name: "id", type: "BIGINT" }], options: { bucket: "-1", ...options } });
  return { catalog, name, table, root: table.location };
}

const ids = async (table: Table): Promise<number[]> => {
  const t = await table.newRead().toArrow((await table.newScan().plan()).splits);
  return t.toArray().map((r) => Number(r.toJSON().id)).sort((a, b) => a - b);
};

const tree = fileTree;
const filesUnder = (root: string, dir: string) => [...tree(join(root, dir)).keys()].sort();
const read = (root: string, path: string) => readFileSync(join(root, path), "utf8");

describe("branch layout and management (Java FileSystemBranchManager)", () => {
  it("createBranch copies the latest schema into branch/branch-<name>/schema and nothing else", async () => {
    const { catalog, name, table, root } = await newTable();
    await appendIds(table, [1, 2]);
    await catalog.alterTable(name, [{ kind: "setOption", key: "snapshot.num-retained.min", value: "5" }]);
    const t = await catalog.getTable(name);
    await t.createBranch("b");
    expect(filesUnder(root, "branch")).toEqual(["branch-b/schema/schema-0", "branch-b/schema/schema-1"]);
    expect(read(root, "branch/branch-b/schema/schema-1")).toBe(read(root, "schema/schema-1"));
    expect(read(root, "branch/branch-b/schema/schema-0")).toBe(read(root, "schema/schema-0"));
    expect(await t.listBranches()).toEqual(["b"]);
    // an empty branch: no snapshot, reads nothing
    const b = await catalog.getTable(`${name}$branch_b`);
    expect(b.coreOptions.branch).toBe("b");
    expect(await b.latestSnapshot()).toBeNull();
    expect(await ids(b)).toEqual([]);
  });

  it("createBranch from a tag copies the tag, its snapshot and the schemas up to its schema", async () => {
    const { catalog, name, table, root } = await newTable();
    await appendIds(table, [1]);
    await appendIds(table, [2]);
    await table.createTag("t2", 2);
    await catalog.alterTable(name, [{ kind: "setOption", key: "x.y", value: "1" }]); // schema 1: newer than the tag's
    await appendIds(await catalog.getTable(name), [3]);
    await table.createBranch("bt", "t2");
    expect(filesUnder(root, "branch")).toEqual(["branch-bt/schema/schema-0", "branch-bt/snapshot/snapshot-2", "branch-bt/tag/tag-t2"]);
    expect(read(root, "branch/branch-bt/snapshot/snapshot-2")).toBe(read(root, "snapshot/snapshot-2"));
    expect(read(root, "branch/branch-bt/tag/tag-t2")).toBe(read(root, "tag/tag-t2"));
    const b = await catalog.getTable(`${name}$branch_bt`);
    expect(await ids(b)).toEqual([1, 2]);
    expect([...(await b.listTags())]).toEqual([["t2", 2]]);
    // the branch continues the tagged snapshot's ids; data files stay in the table's bucket directories
    expect(await appendIds(b, [10])).toBe(3);
    expect(filesUnder(root, "branch/branch-bt/snapshot")).toEqual(["LATEST", "snapshot-2", "snapshot-3"]);
    expect(filesUnder(root, "branch").some((f) => f.includes("bucket-") || f.includes("manifest/"))).toBe(false);
    expect(await ids(b)).toEqual([1, 2, 10]);
    expect(await ids(await catalog.getTable(name))).toEqual([1, 2, 3]);
    expect(read(root, "snapshot/LATEST")).toBe("3");
  });

  it("refuses bad names, existing and missing branches and tags with nothing changed", async () => {
    const { catalog, name, table, root } = await newTable();
    await appendIds(table, [1]);
    await table.createTag("t", 1);
    await table.createBranch("b");
    const before = tree(root);
    for (const bad of ["main", "", "  ", "123", "a/b", "a$b", "a\\b", "x\u0001", "x".repeat(250)]) {
      await expectCode(table.createBranch(bad), "INVALID_ARGUMENT");
      await expectCode(table.createBranch(bad, "t"), "INVALID_ARGUMENT");
      await expectCode(table.dropBranch(bad), "INVALID_ARGUMENT");
      await expectCode(table.fastForward(bad), "INVALID_ARGUMENT");
    }
    await expectCode(catalog.getTable(`${name}$branch_123`), "INVALID_ARGUMENT");
    await expectCode(table.switchToBranch("../x"), "INVALID_ARGUMENT");
    await expectCode(table.createBranch("b"), "ALREADY_EXISTS");
    await expectCode(table.createBranch("b", "t"), "ALREADY_EXISTS");
    await expectCode(table.createBranch("c", "nope"), "NOT_FOUND");
    await expectCode(table.dropBranch("nope"), "NOT_FOUND");
    await expectCode(table.fastForward("nope"), "NOT_FOUND");
    await expectCode(table.fastForward("b"), "NOT_FOUND"); // no snapshot on b
    await expectCode(catalog.getTable(`${name}$branch_nope`), "NOT_FOUND");
    await expectCode(table.switchToBranch("nope"), "NOT_FOUND");
    expect(() => table.copy({ branch: "b" })).toThrow(/switchToBranch/);
    const b = await table.switchToBranch("b");
    await expectCode(b.fastForward("b"), "INVALID_ARGUMENT");
    await expectCode(b.dropBranch("b"), "INVALID_ARGUMENT");
    await expectCode(b.newWrite({ commitUser: "u", realtime: {} } as never), "UNSUPPORTED");
    await expectCode(catalog.dropTable(`${name}$branch_b`), "INVALID_ARGUMENT");
    await expectCode((await catalog.getTable(`${name}$snapshots`)).switchToBranch("b"), "UNSUPPORTED");
    expect(tree(root)).toEqual(before);
    // main and blank name the table itself
    expect(await table.switchToBranch("main")).toBe(table);
    expect((await b.switchToBranch("")).coreOptions.branch).toBe("main");
    expect(await ids(await catalog.getTable(`${name}$branch_main`))).toEqual([1]);
  });

  it("dropBranch deletes the branch directory only; removeOrphanFiles then removes the files only it used", async () => {
    const { table, root } = await newTable();
    await appendIds(table, [1]);
    await table.createBranch("b");
    const b = await table.switchToBranch("b");
    await appendIds(b, [7]);
    const dataBefore = filesUnder(root, "bucket-0");
    expect(dataBefore.length).toBe(2);
    // orphan cleanup walks every branch: nothing of b's is an orphan, but leftovers of its atomic writes are
    writeFileSync(join(root, "branch/branch-b/snapshot/.snapshot-9.0b1c.tmp"), "x");
    writeFileSync(join(root, "branch/branch-b/schema/.schema-3.77aa.tmp"), "x");
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual(["branch/branch-b/schema/.schema-3.77aa.tmp", "branch/branch-b/snapshot/.snapshot-9.0b1c.tmp"]);
    // a branch without schema (half created, damaged) stops it, as Java's validBranches
    mkdirSync(join(root, "branch/branch-broken"));
    await expectCode(table.removeOrphanFiles({ olderThanMs: 0 }), "CORRUPT_FILE");
    rmSync(join(root, "branch/branch-broken"), { recursive: true });
    expect(await ids(b)).toEqual([7]);
    await table.dropBranch("b");
    expect(existsSync(join(root, "branch/branch-b"))).toBe(false);
    expect(filesUnder(root, "bucket-0")).toEqual(dataBefore); // as Java: data files stay
    const removed = (await table.removeOrphanFiles({ olderThanMs: 0 })).deleted;
    expect(removed.filter((f) => f.startsWith("bucket-0/")).length).toBe(1);
    expect(removed.filter((f) => f.startsWith("manifest/")).length).toBeGreaterThan(0);
    expect(await ids(table)).toEqual([1]);
    expect(await table.listBranches()).toEqual([]);
  });

  it("fastForward: main takes the branch's snapshots, schemas and tags; main's newer ones go", async () => {
    const { catalog, name, table, root } = await newTable();
    await appendIds(table, [1]);
    await appendIds(table, [2]);
    await table.createTag("t2", 2);
    await table.createBranch("b", "t2");
    const b = await catalog.getTable(`${name}$branch_b`);
    await appendIds(b, [20]);
    await appendIds(b, [21]);
    await catalog.alterTable(`${name}$branch_b`, [{ kind: "setOption", key: "x.y", value: "b" }]);
    await (await catalog.getTable(`${name}$branch_b`)).createTag("tb", 4);
    // main diverges: snapshot 3, tag t3, schema 1
    await appendIds(table, [3]);
    await table.createTag("t3", 3);
    await catalog.alterTable(name, [{ kind: "setOption", key: "x.y", value: "main" }]);
    await table.fastForward("b");
    for (const f of ["snapshot/snapshot-2", "snapshot/snapshot-3", "snapshot/snapshot-4", "schema/schema-1", "tag/tag-t2", "tag/tag-tb"]) expect(read(root, f)).toBe(read(root, `branch/branch-b/${f}`));
    expect(existsSync(join(root, "tag/tag-t3"))).toBe(false);
    const main = await catalog.getTable(name);
    expect(main.schema.options["x.y"]).toBe("b");
    expect((await main.latestSnapshot())!.id).toBe(4);
    expect(await ids(main)).toEqual([1, 2, 20, 21]);
    expect([...(await main.listTags())]).toEqual([["t2", 2], ["tb", 4]]);
    expect(await appendIds(main, [5])).toBe(5);
    expect(await ids(main)).toEqual([1, 2, 5, 20, 21]);
    expect(await ids(b)).toEqual([1, 2, 20, 21]);
  });

  it("time travel, incremental reads and system tables on a branch", async () => {
    const { catalog, name, table } = await newTable();
    await appendIds(table, [1]);
    await table.createTag("t1", 1);
    await table.createBranch("b", "t1");
    const b = await catalog.getTable(`${name}$branch_b`);
    await appendIds(b, [2]);
    await appendIds(b, [3]);
    await appendIds(table, [100]);
    expect(await ids(await b.atSnapshot(2))).toEqual([1, 2]);
    expect((await b.atSnapshot(2)).coreOptions.branch).toBe("b");
    expect(await ids(b.copy({ "scan.snapshot-id": 2 }))).toEqual([1, 2]);
    expect(await ids(b.copy({ "incremental-between": "1,3" }))).toEqual([2, 3]);
    expect(await ids(b.copy({ "scan.tag-name": "t1" }))).toEqual([1]);
    const snaps = await catalog.getTable(`${name}$branch_b$snapshots`);
    const rows = (await snaps.newRead().toArrow((await snaps.newScan().plan()).splits)).toArray().map((r) => Number(r.toJSON().snapshot_id));
    expect(rows).toEqual([1, 2, 3]);
    const branches = await catalog.getTable(`${name}$branches`);
    expect((await branches.newRead().toArrow((await branches.newScan().plan()).splits)).toArray().map((r) => r.toJSON().branch_name)).toEqual(["b"]);
    expect(await ids(await catalog.getTable(name))).toEqual([1, 100]);
    expect(await catalog.tableExists(`${name}$branch_b`)).toBe(true);
    expect(await catalog.tableExists(`${name}$branch_nope`)).toBe(false);
    expect(await catalog.tableExists(`${name}$branch_123`)).toBe(false);
    expect(await catalog.tableExists(`${name}$branch_b$snapshots`)).toBe(true);
    expect(await catalog.tableExists(`${name}$branch_nope$snapshots`)).toBe(false);
    // rollback on the branch: the branch's newer snapshot and the files only it used go, main stays
    await b.rollbackTo(2);
    expect(await ids(await catalog.getTable(`${name}$branch_b`))).toEqual([1, 2]);
    expect((await b.listSnapshots()).map((s) => s.id)).toEqual([1, 2]);
    expect(await ids(await catalog.getTable(name))).toEqual([1, 100]);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([1, 2]);
  });
});

describe("primary-key tables on a branch", () => {
  async function upsert(table: Table, rows: Array<[number, string]>): Promise<number> {
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(
      new arrow.RecordBatch({
        id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r[0])) }),
        v: arrow.vectorFromArray(rows.map((r) => r[1]), new arrow.Utf8()).data[0],
      }),
    );
    const id = await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    return id!;
  }
  const rowsOf = async (table: Table) => (await table.newRead().toArrow((await table.newScan().plan()).splits)).toArray().map((r) => [Number(r.toJSON().id), r.toJSON().v]).sort((a, b) => (a[0] as number) - (b[0] as number));

  it("upserts on main and on a branch from a tag diverge; the branch's writer continues the tagged files' sequence numbers", async () => {
    const catalog = await Catalog.open(tempDir("paimon-rt-branches-pk-"));
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.pk", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "1" } });
    await upsert(table, [[1, "a"], [2, "b"], [3, "c"]]);
    await table.createTag("t", 1);
    await table.createBranch("b", "t");
    const b = await catalog.getTable("db.pk$branch_b");
    await upsert(b, [[2, "B"], [4, "D"]]);
    await upsert(table, [[3, "C"]]);
    expect(await rowsOf(b)).toEqual([[1, "a"], [2, "B"], [3, "c"], [4, "D"]]);
    expect(await rowsOf(await catalog.getTable("db.pk"))).toEqual([[1, "a"], [2, "b"], [3, "C"]]);
    // sequence numbers 0-2 from the tagged snapshot, 3-4 written on the branch
    const live = await b.manifestStore.liveEntries((await b.latestSnapshot())!);
    expect(live.map((e) => [e.file.minSequenceNumber, e.file.maxSequenceNumber]).sort((x, y) => Number(x[0]! - y[0]!))).toEqual([[0n, 2n], [3n, 4n]]);
  });
});

describe("files shared between branches survive expiry and tag deletion", () => {
  it("main's expiry and deleteTag keep the files a branch created from a deleted tag still reads", async () => {
    const { catalog, name, table, root } = await newTable({ "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1", "snapshot.time-retained": "1 ms" });
    await appendIds(table, [1, 2]);
    await table.createTag("t1", 1);
    await table.createBranch("b", "t1");
    const b = await catalog.getTable(`${name}$branch_b`);
    await b.deleteTag("t1"); // the branch's copy of the tag is gone too
    await table.deleteTag("t1");
    await appendIds(table, [10], true); // main deletes every file of snapshot 1, then expires it
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([2]);
    expect(await ids(b)).toEqual([1, 2]);
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
    // the branch's own expiry keeps main's files too
    await appendIds(b, [3], true);
    expect(await ids(b)).toEqual([3]);
    expect(await ids(table)).toEqual([10]);
    expect(existsSync(join(root, "branch/branch-b/snapshot/snapshot-1"))).toBe(false);
  });

  it("a branch's expiry keeps a file main added after its earliest snapshot and still names in a retained snapshot", async () => {
    const { catalog, name, table } = await newTable({ "write-only": "true" });
    await appendIds(table, [1]);
    await appendIds(table, [2]); // main snapshot 2 adds the file the branch inherits
    await table.createTag("t2", 2);
    await table.createBranch("b", "t2");
    await appendIds(table, [9], true); // main's snapshot 3 deletes it; snapshots 1 and 2 still name it
    const b = await catalog.getTable(`${name}$branch_b`);
    await b.deleteTag("t2");
    await table.deleteTag("t2");
    await appendIds(b, [5], true);
    expect(await b.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(1);
    expect(await ids(b)).toEqual([5]);
    expect(await ids(await table.atSnapshot(2))).toEqual([1, 2]);
    expect(await ids(table)).toEqual([9]);
  });

  it("random writes, overwrites, expiries and tag deletions on main and a branch: both read their model", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("append" as const), on: fc.constantFrom("main", "b"), ids: fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ kind: fc.constant("overwrite" as const), on: fc.constantFrom("main", "b"), ids: fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 2 }) }),
      fc.record({ kind: fc.constant("expire" as const), on: fc.constantFrom("main", "b"), keep: fc.integer({ min: 1, max: 2 }) }),
      fc.record({ kind: fc.constant("deleteTag" as const), on: fc.constantFrom("main", "b") }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 3 }), fc.array(op, { minLength: 1, maxLength: 7 }), async (first, ops) => {
        const { catalog, name, table } = await newTable({ "write-only": "true" });
        await appendIds(table, first);
        await table.createTag("base", 1);
        await table.createBranch("b", "base");
        const handles: Record<string, Table> = { main: table, b: await catalog.getTable(`${name}$branch_b`) };
        const model: Record<string, number[]> = { main: [...first], b: [...first] };
        for (const o of ops) {
          const t = handles[o.on]!;
          if (o.kind === "append") {
            await appendIds(t, o.ids);
            model[o.on]!.push(...o.ids);
          } else if (o.kind === "overwrite") {
            await appendIds(t, o.ids, true);
            model[o.on] = [...o.ids];
          } else if (o.kind === "expire") {
            await t.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: o.keep, retainMin: 1, olderThanMs: 0 });
          } else if ((await t.listTags()).has("base")) {
            await t.deleteTag("base");
          }
          expect(await ids(handles.main!)).toEqual([...model.main!].sort((a, c) => a - c));
          expect(await ids(handles.b!)).toEqual([...model.b!].sort((a, c) => a - c));
        }
      }),
      { numRuns: runs(25) },
    );
  }, 120_000);
});
