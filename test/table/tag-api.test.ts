// Creating, deleting and listing tags and rolling back to one (Java Paimon 1.4.2's
// `Table.createTag / deleteTag / rollbackTo(tagName)`, `TagManager`): the tag file is the
// snapshot's JSON (plus tagCreateTime / tagTimeRetained with a retention), errors change nothing,
// deleting a tag of an expired snapshot deletes exactly the files only it kept alive, and rolling
// back to a tag of an expired snapshot restores that snapshot.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { snapshotToJson, type Snapshot } from "../../src/spec/snapshot.js";
import type { Table } from "../../src/table/table.js";
import { appendIds } from "./helpers.js";
import { cleanupDirs, expectCode, tempDir } from "../realtime/helpers.js";
import { fileTree } from "../support/file-tree.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

let n = 0;
async function newTable(options: Record<string, string> = {}): Promise<Table> {
  const catalog = await Catalog.open(tempDir("paimon-rt-tag-api-"));
  await catalog.createDatabase("db");
  const name = `db.t${n++}`;
  const table = await catalog.createTable(name, { fields: [{ name: "id", type: "BIGINT" }], options });
  catalogs.set(table, { catalog, name });
  return table;
}
const catalogs = new Map<Table, { catalog: Catalog; name: string }>();
/** The table with scan.tag-name `tag` set (ALTER TABLE SET). */
async function atTag(table: Table, tag: string): Promise<Table> {
  const { catalog, name } = catalogs.get(table)!;
  return catalog.alterTable(name, [{ kind: "setOption", key: "scan.tag-name", value: tag }]);
}

const append = appendIds;

const ids = async (table: Table) => {
  const t = await table.newRead().toArrow((await table.newScan().plan()).splits);
  return t.toArray().map((r) => Number(r.toJSON().id)).sort((a, b) => a - b);
};

const tree = fileTree;
const names = (t: Map<string, string>) => [...t.keys()].sort();

/** The data, manifest list and manifest files snapshot `s` uses, relative to the table. */
async function filesOf(table: Table, s: Snapshot): Promise<Set<string>> {
  const out = new Set([`manifest/${s.baseManifestList}`, `manifest/${s.deltaManifestList}`]);
  for (const m of await table.manifestStore.dataManifests(s)) out.add(`manifest/${m.fileName}`);
  for (const e of await table.manifestStore.liveEntries(s)) out.add(`bucket-${e.bucket}/${e.file.fileName}`);
  return out;
}

/** Snapshots 1 ([1,2]), 2 (+[3]), 3 (overwrite: [10]) with tags t1 → 1, t2 → 2, then 1 and 2 expired. */
async function expiredTags(): Promise<{ table: Table; s1: Snapshot; s2: Snapshot; s3: Snapshot }> {
  const table = await newTable({ bucket: "-1" });
  await append(table, [1, 2]);
  await append(table, [3]);
  await append(table, [10], true);
  const [s1, s2, s3] = await Promise.all([1, 2, 3].map((i) => table.snapshot(i)));
  await table.createTag("t1", 1);
  await table.createTag("t2", 2);
  expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(2);
  return { table, s1: s1!, s2: s2!, s3: s3! };
}

describe("tag API", () => {
  it("creates (latest by default), lists and deletes tags; the file is the snapshot JSON Java writes", async () => {
    const table = await newTable();
    await append(table, [1]);
    await append(table, [2]);
    expect((await table.createTag("first", 1)).id).toBe(1);
    expect((await table.createTag("b-latest")).id).toBe(2);
    await table.createTag("a-latest");
    expect([...(await table.listTags())]).toEqual([["first", 1], ["a-latest", 2], ["b-latest", 2]]);
    expect(readFileSync(`${table.location}/tag/tag-first`, "utf8")).toBe(snapshotToJson(await table.snapshot(1)));
    await table.deleteTag("a-latest");
    expect([...(await table.listTags())]).toEqual([["first", 1], ["b-latest", 2]]);
    // the tag reads its snapshot
    const t = await table.atSnapshot(1);
    expect(await ids(t)).toEqual([1]);
  });

  it("with a retention writes Java's tagCreateTime (LocalDateTime array) and tagTimeRetained (seconds)", async () => {
    const table = await newTable({ "tag.default-time-retained": "1 d" });
    await append(table, [1]);
    await table.createTag("ttl", 1, { timeRetainedMs: 90_500 });
    await table.createTag("default", 1);
    const text = readFileSync(`${table.location}/tag/tag-ttl`, "utf8");
    const base = snapshotToJson(await table.snapshot(1));
    expect(text.startsWith(base.replace(/\n}\s*$/, ""))).toBe(true);
    expect(text).toMatch(/,\n {2}"tagCreateTime" : \[ \d{4}, \d+, \d+, \d+, \d+(, \d+)?(, \d+)? \],\n {2}"tagTimeRetained" : 90\.500000000\n}$/);
    expect(JSON.parse(readFileSync(`${table.location}/tag/tag-default`, "utf8")).tagTimeRetained).toBe(86400);
    expect([...(await table.listTags())]).toEqual([["default", 1], ["ttl", 1]]);
  });

  it("errors carry exact codes and change nothing", async () => {
    const empty = await newTable();
    await expectCode(empty.createTag("x"), "NOT_FOUND");
    const table = await newTable();
    await append(table, [1]);
    await table.createTag("t", 1);
    const before = tree(table.location);
    await expectCode(table.createTag("t", 1), "ALREADY_EXISTS");
    await expectCode(table.createTag("u", 7), "NOT_FOUND");
    await expectCode(table.createTag("u", 0), "INVALID_ARGUMENT");
    for (const bad of ["", " ", "..", "a/b", "a\\b"]) await expectCode(table.createTag(bad, 1), "INVALID_ARGUMENT");
    await expectCode(table.deleteTag("missing"), "NOT_FOUND");
    await expectCode(table.deleteTag("../snapshot/snapshot-1"), "INVALID_ARGUMENT");
    await expectCode(table.rollbackToTag("missing"), "NOT_FOUND");
    await expectCode(table.rollbackToTag("a/b"), "INVALID_ARGUMENT");
    expect(tree(table.location)).toEqual(before);
  });

  it("renameTag moves the tag file unchanged (retention too); the renamed tag reads its snapshot", async () => {
    const table = await newTable();
    await append(table, [1]);
    await append(table, [2]);
    await table.createTag("old", 1, { timeRetainedMs: 3_600_000 });
    const content = readFileSync(`${table.location}/tag/tag-old`, "utf8");
    await table.renameTag("old", "new");
    expect([...(await table.listTags())]).toEqual([["new", 1]]);
    expect(readFileSync(`${table.location}/tag/tag-new`, "utf8")).toBe(content);
    expect(await ids(await atTag(table, "new"))).toEqual([1]);
    // a tag of an expired snapshot keeps it readable under its new name
    await table.createTag("two", 2);
    expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(1);
    await table.renameTag("new", "first");
    expect([...(await table.listTags())]).toEqual([["first", 1], ["two", 2]]);
    expect(await ids(await atTag(table, "first"))).toEqual([1]);
  });

  it("replaceTag points the tag at another snapshot, with only the retention given (not tag.default-time-retained)", async () => {
    const table = await newTable({ "tag.default-time-retained": "1 d" });
    await append(table, [1]);
    await append(table, [2]);
    await append(table, [3]);
    await table.createTag("t", 1);
    expect(JSON.parse(readFileSync(`${table.location}/tag/tag-t`, "utf8")).tagTimeRetained).toBe(86400);
    expect((await table.replaceTag("t", 2)).id).toBe(2);
    expect(readFileSync(`${table.location}/tag/tag-t`, "utf8")).toBe(snapshotToJson(await table.snapshot(2)));
    expect(await ids(await atTag(table, "t"))).toEqual([1, 2]);
    expect((await table.replaceTag("t", undefined, { timeRetainedMs: 90_500 })).id).toBe(3);
    const text = readFileSync(`${table.location}/tag/tag-t`, "utf8");
    expect(text.startsWith(snapshotToJson(await table.snapshot(3)).replace(/\n}\s*$/, ""))).toBe(true);
    expect(text).toMatch(/"tagTimeRetained" : 90\.500000000\n}$/);
    expect([...(await table.listTags())]).toEqual([["t", 3]]);
    // an expired snapshot another tag holds can be tagged (Java findSnapshot)
    await table.createTag("keep", 1);
    expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(2);
    expect((await table.replaceTag("t", 1)).id).toBe(1);
    expect(await ids(await atTag(table, "t"))).toEqual([1]);
  });

  it("renameTag and replaceTag errors carry exact codes and change nothing", async () => {
    const empty = await newTable();
    await expectCode(empty.replaceTag("x"), "NOT_FOUND");
    const table = await newTable();
    await append(table, [1]);
    await table.createTag("a", 1);
    await table.createTag("b", 1);
    const before = tree(table.location);
    const rename = await expectCode(table.renameTag("missing", "c"), "NOT_FOUND");
    expect(rename.message).toBe(`renameTag of ${catalogs.get(table)!.name}: tag 'missing' does not exist (${table.location}/tag/tag-missing)`);
    expect((await expectCode(table.renameTag("a", "b"), "ALREADY_EXISTS")).message).toBe(`renameTag of ${catalogs.get(table)!.name}: tag 'b' already exists (${table.location}/tag/tag-b)`);
    for (const bad of ["", " ", "..", "a/b"]) {
      await expectCode(table.renameTag(bad, "c"), "INVALID_ARGUMENT");
      await expectCode(table.renameTag("a", bad), "INVALID_ARGUMENT");
      await expectCode(table.replaceTag(bad, 1), "INVALID_ARGUMENT");
    }
    expect((await expectCode(table.replaceTag("missing", 1), "NOT_FOUND")).message).toBe(`replaceTag of ${catalogs.get(table)!.name}: tag 'missing' does not exist (${table.location}/tag/tag-missing)`);
    await expectCode(table.replaceTag("a", 7), "NOT_FOUND");
    await expectCode(table.replaceTag("a", 0), "INVALID_ARGUMENT");
    await expectCode(table.replaceTag("a", 1, { timeRetainedMs: -1 }), "INVALID_ARGUMENT");
    expect(tree(table.location)).toEqual(before);
  });

  it("deleting a tag of an expired snapshot deletes exactly the files only it kept alive", async () => {
    const { table, s1, s2, s3 } = await expiredTags();
    const [f1, f2, f3] = await Promise.all([s1, s2, s3].map((s) => filesOf(table, s)));
    const before = tree(table.location);
    await table.deleteTag("t2");
    const gone = names(before).filter((p) => !tree(table.location).has(p));
    expect(gone).toEqual(["tag/tag-t2", ...[...f2].filter((p) => !f1.has(p) && !f3.has(p))].sort());
    expect(gone.some((p) => p.startsWith("bucket-"))).toBe(true); // the file of [3]
    expect([...(await table.listTags())]).toEqual([["t1", 1]]);
    // t1 still reads; deleting it too leaves only what snapshot 3 uses
    const t1 = await atTag(table, "t1");
    expect(await ids(t1)).toEqual([1, 2]);
    const before1 = tree(table.location);
    await table.deleteTag("t1");
    const gone1 = names(before1).filter((p) => !tree(table.location).has(p));
    expect(gone1).toEqual(["tag/tag-t1", ...[...f1].filter((p) => !f3.has(p))].sort());
    expect(await ids(table)).toEqual([10]);
  });

  it("deleting a tag of a retained snapshot, or one sharing its snapshot, deletes only the tag file", async () => {
    const { table } = await expiredTags();
    await table.createTag("t2b", 2);
    await table.createTag("t3", 3);
    for (const name of ["t2b", "t3"]) {
      const before = tree(table.location);
      await table.deleteTag(name);
      expect(names(before).filter((p) => !tree(table.location).has(p))).toEqual([`tag/tag-${name}`]);
    }
  });

  it("rolls back to a tag of a retained snapshot, and restores the expired snapshot of a tag", async () => {
    const retained = await newTable();
    await append(retained, [1]);
    await append(retained, [2]);
    await retained.createTag("one", 1);
    await retained.createTag("two", 2);
    await retained.rollbackToTag("one");
    expect((await retained.listSnapshots()).map((s) => s.id)).toEqual([1]);
    expect([...(await retained.listTags())]).toEqual([["one", 1]]);
    expect(await ids(retained)).toEqual([1]);

    const { table, s1, s2, s3 } = await expiredTags();
    const [f1, f2, f3] = await Promise.all([s1, s2, s3].map((s) => filesOf(table, s)));
    const before = tree(table.location);
    await table.rollbackToTag("t1");
    const after = tree(table.location);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([1]);
    expect(after.get("snapshot/snapshot-1")).toBe(Buffer.from(snapshotToJson(s1)).toString("base64"));
    expect(readFileSync(`${table.location}/snapshot/EARLIEST`, "utf8")).toBe("1");
    expect(readFileSync(`${table.location}/snapshot/LATEST`, "utf8")).toBe("1");
    expect([...(await table.listTags())]).toEqual([["t1", 1]]);
    expect(await ids(table)).toEqual([1, 2]);
    // every file of snapshots 2 and 3 that snapshot 1 does not use is gone; snapshot 1's stay
    for (const p of f1) expect(after.has(p)).toBe(true);
    const gone = names(before).filter((p) => !after.has(p));
    expect(gone).toEqual(["snapshot/snapshot-3", "tag/tag-t2", ...[...f2, ...f3].filter((p) => !f1.has(p))].filter((p, i, a) => a.indexOf(p) === i).sort());
    // the table commits on
    expect(await append(table, [4])).toBe(2);
    expect(await ids(table)).toEqual([1, 2, 4]);
  });

  it("rollbackTo(snapshotId) of an expired snapshot a tag holds rolls back to the tag (Java rollbackTo(long))", async () => {
    const { table } = await expiredTags();
    await table.rollbackTo(2);
    expect((await table.listSnapshots()).map((s) => s.id)).toEqual([2]);
    expect(await ids(table)).toEqual([1, 2, 3]);
    await expectCode(table.rollbackTo(1 + 5), "NOT_FOUND");
  });
});

describe("tag API against a model (fast-check)", () => {
  type Op =
    | { kind: "append"; n: number }
    | { kind: "overwrite"; n: number }
    | { kind: "tag" }
    | { kind: "expire"; keep: number }
    | { kind: "delete"; pick: number }
    | { kind: "rollback"; pick: number };
  // weighted so that tags of expired snapshots get deleted and rolled back to in most runs
  const op = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant("append" as const), n: fc.integer({ min: 1, max: 3 }) }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant("overwrite" as const), n: fc.integer({ min: 1, max: 2 }) }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant("tag" as const) }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant("expire" as const), keep: fc.constant(1) }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant("rollback" as const), pick: fc.nat() }), weight: 1 },
  );

  it("every tag and the latest snapshot read the model's rows, and the table holds exactly the files snapshots and tags use", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 20 }), async (ops: Op[]) => {
        const table = await newTable({ bucket: "-1" });
        let rows: number[] = [];
        let next = 0;
        const tags = new Map<string, { id: number; rows: number[] }>();
        let tagNo = 0;
        for (const o of ops) {
          const latest = (await table.listSnapshots()).at(-1);
          if (o.kind === "append" || o.kind === "overwrite") {
            const added = Array.from({ length: o.n }, () => next++);
            await append(table, added, o.kind === "overwrite");
            rows = o.kind === "overwrite" ? added : [...rows, ...added];
          } else if (o.kind === "tag") {
            if (latest === undefined) continue;
            const name = `t${tagNo++}`;
            await table.createTag(name);
            tags.set(name, { id: latest.id, rows: [...rows] });
          } else if (o.kind === "expire") {
            await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: o.keep, retainMin: 1, olderThanMs: 0 });
          } else {
            const names = [...tags.keys()];
            if (names.length === 0) continue;
            const name = names[o.pick % names.length]!;
            if (o.kind === "delete") {
              await table.deleteTag(name);
              tags.delete(name);
            } else {
              const target = tags.get(name)!;
              await table.rollbackToTag(name);
              rows = [...target.rows];
              for (const [n, t] of tags) if (t.id > target.id) tags.delete(n);
            }
          }
          // the model holds
          expect(Object.fromEntries(await table.listTags())).toEqual(Object.fromEntries([...tags].map(([n, t]) => [n, t.id])));
          for (const [name, t] of tags) expect({ name, rows: await ids(await atTag(table, name)) }).toEqual({ name, rows: t.rows.sort((a, b) => a - b) });
          expect(await ids(table)).toEqual([...rows].sort((a, b) => a - b));
          // exactly the files a snapshot or tag uses are in bucket-0/ and manifest/
          const used = new Set<string>();
          const users = [...(await table.listSnapshots()), ...(await Promise.all([...tags.keys()].map((n) => table.snapshotManager.tryGetTag(n))))];
          for (const s of users) for (const f of await filesOf(table, s!)) used.add(f);
          const onDisk = names(tree(table.location)).filter((p) => p.startsWith("bucket-") || p.startsWith("manifest/"));
          expect({ after: o, files: onDisk }).toEqual({ after: o, files: [...used].sort() });
        }
      }),
      { numRuns: runs(100) },
    );
  }, 240_000);
});
