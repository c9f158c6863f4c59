// Java's data layout options: `data-file.path-directory` (partition and bucket directories under
// `<table>/<dir>`) and `index-file-in-data-file-dir` (deletion-vector index files in their
// bucket directory instead of `index/`), honoured by writes, reads, expiry, rollback and orphan
// cleanup; bad directory values are refused, never resolved outside the table.
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { TableOptions } from "../../src/table/options.js";
import { TablePaths } from "../../src/table/paths.js";
import type { Table } from "../../src/table/table.js";
import { createPkTable, readRows, type Row, sortRows, writeCommit } from "../pk/helpers.js";
import { RowKind } from "../../src/write/table-write.js";
import { tempDirs } from "../support/temp-dirs.js";
import { RealtimeContext } from "../../src/index.js";
import { commitRealtime as rtCommit, compactFully, PK_MODES, pkTable, pkView, rtBatch } from "../realtime/helpers.js";
import { failure } from "./helpers.js";

const tempDir = tempDirs("paimon-rt-data-layout-");

/** A new table `db.t` in a fresh local warehouse. */
async function newTable(spec: Parameters<Catalog["createTable"]>[1]): Promise<{ catalog: Catalog; table: Table }> {
  const catalog = await Catalog.open(tempDir());
  await catalog.createDatabase("db");
  return { catalog, table: await catalog.createTable("db.t", spec) };
}

/** Every file under `dir`, relative, sorted (directories end with nothing: only files are listed). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath?: string; path?: string }>)
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path!, e.name).slice(dir.length + 1))
    .sort();
}

const r = (id: number, v: string, dt = "a"): Row => ({ dt, id: BigInt(id), name: "k", v, n: null });
const rows = (from: number, to: number, v: string, dt = "a") => Array.from({ length: to - from }, (_, i) => r(from + i, `${v}${from + i}`, dt));

describe("TablePaths layout", () => {
  it("puts bucket directories under data-file.path-directory and index files in them with index-file-in-data-file-dir", () => {
    const plain = new TablePaths("/wh/db.db/t");
    expect(plain.bucketDir("dt=a/", 3)).toBe("/wh/db.db/t/dt=a/bucket-3");
    expect(plain.indexFile({ fileName: "index-u-0", externalPath: null }, "/wh/db.db/t/dt=a/bucket-3")).toBe("/wh/db.db/t/index/index-u-0");
    const options = new TableOptions({ "data-file.path-directory": "data//files/", "index-file-in-data-file-dir": "true" });
    expect(options.dataFilePathDirectory).toBe("data/files");
    const paths = new TablePaths("/wh/db.db/t", options);
    expect(paths.dataRoot).toBe("/wh/db.db/t/data/files");
    expect(paths.bucketDir("dt=a/", 3)).toBe("/wh/db.db/t/data/files/dt=a/bucket-3");
    expect(paths.bucketDir("", -2)).toBe("/wh/db.db/t/data/files/bucket-postpone");
    expect(paths.indexFile({ fileName: "index-u-0", externalPath: null }, paths.bucketDir("dt=a/", 3))).toBe("/wh/db.db/t/data/files/dt=a/bucket-3/index-u-0");
    // an external path still wins, as in Java's IndexInDataFileDirPathFactory.toPath
    expect(paths.indexFile({ fileName: "index-u-0", externalPath: "s3://b/x/index-u-0" }, "/ignored")).toBe("s3://b/x/index-u-0");
    expect(paths.indexDir).toBe("/wh/db.db/t/index"); // global indexes stay in index/
  });

  it.each(["../elsewhere", "a/../../b", "/abs", "s3://bucket/x", "c:x", "", "/", "a/./b", "a\\b"])("refuses data-file.path-directory %j", (dir) => {
    const e = (() => {
      try {
        void new TableOptions({ "data-file.path-directory": dir }).dataFilePathDirectory;
      } catch (err) {
        return err as { code: string; message: string };
      }
      throw new Error("accepted");
    })();
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`option data-file.path-directory: ${JSON.stringify(dir)} must be a relative directory without '.' or '..' segments`);
  });
});

describe("data-file.path-directory", () => {
  it("append table: data files are written, read, compacted and expired under the directory", async () => {
    const { catalog, table: t } = await newTable({ fields: [{ name: "dt", type: "STRING" }, { name: "id", type: "BIGINT" }], partitionKeys: ["dt"], options: { "data-file.path-directory": "data", bucket: -1 } });
    const write = async (table: Table, ids: number[], dt: string) => {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(
        new arrow.RecordBatch({
          dt: arrow.vectorFromArray(ids.map(() => dt), new arrow.Utf8()).data[0],
          id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
        }),
      );
      await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    };
    await write(t, [1, 2], "a");
    await write(t, [3], "b");
    await write(t, [4], "a");
    const loc = t.location;
    const all = filesUnder(loc).filter((f) => !/^(snapshot|schema|manifest)\//.test(f));
    expect(all.map((f) => f.replace(/data-.*\.parquet$/, "data-*.parquet"))).toEqual(["data/dt=a/bucket-0/data-*.parquet", "data/dt=a/bucket-0/data-*.parquet", "data/dt=b/bucket-0/data-*.parquet"]);
    const ids = async (table: Table) => {
      const out = await table.newRead().toArrow((await table.newScan().plan()).splits);
      return Array.from(out.getChild("id")!.toArray() as BigInt64Array, Number).sort();
    };
    expect(await ids(await catalog.getTable("db.t"))).toEqual([1, 2, 3, 4]);
    // compaction rewrites dt=a's two files into one there; expiry deletes the replaced ones there
    const w = await t.newWrite({ commitUser: "u" });
    await w.compact({ full: true });
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    expect(await t.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1 })).toBe(3);
    expect(filesUnder(join(loc, "data", "dt=a", "bucket-0")).length).toBe(1);
    expect(filesUnder(join(loc, "data", "dt=b", "bucket-0")).length).toBe(1);
    expect(await ids(t)).toEqual([1, 2, 3, 4]);
    // orphan cleanup looks under data/ (it found nothing at the table root before)
    const stray = join(loc, "data", "dt=a", "bucket-0", "data-stray-0.parquet");
    writeFileSync(stray, "x");
    utimesSync(stray, new Date(86_400_000), new Date(86_400_000));
    const result = await t.removeOrphanFiles({ olderThanMs: 1000 });
    expect(result.deleted).toEqual(["data/dt=a/bucket-0/data-stray-0.parquet"]);
    expect(await ids(t)).toEqual([1, 2, 3, 4]);
  });

  it("a schema carrying a directory that leads out of the table is refused when the table loads", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const e0 = await failure(() => catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }], options: { "data-file.path-directory": "/tmp" } }));
    expect(e0.message).toBe(`option data-file.path-directory: "/tmp" must be a relative directory without '.' or '..' segments`);
    const t = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT" }] });
    const schema = JSON.parse(readFileSync(t.paths.schema(0), "utf8"));
    schema.options["data-file.path-directory"] = "../../../escaped";
    writeFileSync(t.paths.schema(0), JSON.stringify(schema));
    const e = await failure(() => catalog.getTable("db.t"));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`option data-file.path-directory: "../../../escaped" must be a relative directory without '.' or '..' segments`);
  });
});

describe("index-file-in-data-file-dir", () => {
  it("primary-key DV table: index files live in the bucket directory; reads, expiry, rollback and orphan cleanup find them there", async () => {
    const warehouse = tempDir();
    const t = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true", "index-file-in-data-file-dir": "true", "data-file.path-directory": "d" }, { warehouse });
    // a bottom file much larger than the next commit's: the lookup compaction (Java forcePickL0's
    // size ratio) leaves it in place and marks its updated rows in a deletion vector
    await writeCommit(t, "u", [{ rows: rows(0, 400, "a") }]);
    await writeCommit(t, "u", [{ rows: rows(60, 130, "b") }]);
    const bucket = join(t.location, "d", "dt=a", "bucket-0");
    const indexIn = () => filesUnder(bucket).filter((f) => f.startsWith("index-"));
    const [first] = indexIn();
    expect(indexIn().length).toBe(1);
    expect(existsSync(join(t.location, "index"))).toBe(false);
    expect(existsSync(join(t.location, "dt=a"))).toBe(false);
    const entries = await t.manifestStore.indexEntries(await t.latestSnapshot());
    expect(entries.map((e) => [e.indexFile.indexType, e.indexFile.fileName, e.indexFile.externalPath])).toEqual([["DELETION_VECTORS", first, null]]);
    const plan = await t.newScan().plan();
    expect(plan.splits.flatMap((s) => (s.kind === "data" ? (s.deletionFiles ?? []).filter((d) => d !== null).map((d) => [d!.path, Number(d!.cardinality)]) : []))).toEqual([[join(bucket, first), 70]]);
    const expected = sortRows([...rows(0, 60, "a"), ...rows(60, 130, "b"), ...rows(130, 400, "a")]);
    expect(await readRows(t)).toEqual(expected);
    // a third commit replaces the index file; expiry deletes the old one from the bucket directory
    await writeCommit(t, "u", [{ rows: rows(0, 10, "c") }]);
    const expected3 = sortRows([...rows(0, 10, "c"), ...rows(10, 60, "a"), ...rows(60, 130, "b"), ...rows(130, 400, "a")]);
    expect(await readRows(t)).toEqual(expected3);
    const [second] = indexIn().filter((f) => f !== first);
    expect(indexIn()).toEqual([first, second].sort());
    // rollback to snapshot 4 (each write commits, then compacts) deletes the index file the third write added (from the bucket directory)
    await t.rollbackTo(4);
    expect(indexIn()).toEqual([first]);
    expect(await readRows(t)).toEqual(expected);
    await writeCommit(t, "u", [{ rows: rows(0, 10, "c") }]);
    const [third] = indexIn().filter((f) => f !== first);
    expect((await t.latestSnapshot())!.id).toBe(6);
    expect(await t.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1 })).toBe(5);
    expect(indexIn()).toEqual([third]);
    expect(await readRows(t)).toEqual(expected3);
    // orphan cleanup keeps the live index file in the bucket directory and removes a stray one
    const stray = join(bucket, "index-stray-0");
    writeFileSync(stray, "x");
    for (const f of [stray, join(bucket, third)]) utimesSync(f, new Date(86_400_000), new Date(86_400_000));
    expect((await t.removeOrphanFiles({ olderThanMs: 1000 })).deleted).toEqual(["d/dt=a/bucket-0/index-stray-0"]);
    expect(indexIn()).toEqual([third]);
    expect(await readRows(t)).toEqual(expected3);
  });
});

describe("options that change what Java reads or writes are refused, not ignored", () => {
  async function tableWith(options: Record<string, string>, primaryKeys: string[] = []): Promise<Table> {
    const { catalog, table: t } = await newTable({ fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys, options: primaryKeys.length > 0 ? { bucket: "1" } : {} });
    // as a Java-created table carries them (some cannot be set through paimon-rt's createTable)
    const schema = JSON.parse(readFileSync(t.paths.schema(0), "utf8"));
    Object.assign(schema.options, options);
    writeFileSync(t.paths.schema(0), JSON.stringify(schema));
    return catalog.getTable("db.t");
  }

  it.each([
    [{ "chain-table.enabled": "true" }, "chain-table.enabled=true"],
  ])("reading a table with %o", async (options, what) => {
    const t = await tableWith(options);
    const e = await failure(async () => t.newScan());
    expect(e.code).toBe("UNSUPPORTED");
    expect(e.message).toBe(`table db.t: ${what} is not supported`);
  });

  it.each([
    [{ "record-level.expire-time": "1 d", "record-level.time-field": "id", "deletion-vectors.enabled": "true" }],
    [{ "record-level.expire-time": "1 d", "record-level.time-field": "id", "changelog-producer": "lookup" }],
    [{ "record-level.expire-time": "1 d", "record-level.time-field": "id", "merge-engine": "first-row" }],
  ])("writing a primary-key table with %o (record-level expiry with lookup compaction)", async (options) => {
    const t = await tableWith(options, ["id"]);
    const e = await failure(() => t.newWrite({ commitUser: "u" }));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "table db.t: record-level.expire-time with lookup compaction (deletion vectors, changelog-producer=lookup, first-row or force-lookup) is not supported"]);
    // reading such a table is a plain read (Java expires records in compaction only)
    expect((await t.newScan().plan()).splits).toEqual([]);
  });

  it("the defaults are accepted", async () => {
    const t = await tableWith({ "bucket-function.type": "default", "row-tracking.enabled": "false", "chain-table.enabled": "false", "data-evolution.enabled": "false" }, ["id"]);
    await (await t.newWrite({ commitUser: "u" })).close();
    expect((await t.newScan().plan()).splits).toEqual([]);
  });
});

describe("ignore-update-before", () => {
  it("drops UPDATE_BEFORE rows at write, as Java's RowKindFilter (was: applied as deletes)", async () => {
    const t = await createPkTable({ bucket: 1, "ignore-update-before": "true" }, { warehouse: tempDir() });
    await writeCommit(t, "u", [{ rows: rows(0, 4, "a") }]);
    // -U of key 1 without a +U: Java keeps key 1; -D of key 2 still deletes
    await writeCommit(t, "u", [{ rows: [r(1, "gone"), r(2, "gone"), r(3, "new")], kinds: [RowKind.UPDATE_BEFORE, RowKind.DELETE, RowKind.UPDATE_AFTER] }]);
    expect(await readRows(t)).toEqual(sortRows([r(0, "a0"), r(1, "a1"), r(3, "new")]));
    // with ignore-delete too, the DELETE is dropped as well
    const t2 = await createPkTable({ bucket: 1, "ignore-update-before": "true", "ignore-delete": "true" }, { warehouse: tempDir() });
    await writeCommit(t2, "u", [{ rows: rows(0, 4, "a") }]);
    await writeCommit(t2, "u", [{ rows: [r(1, "gone"), r(2, "gone")], kinds: [RowKind.UPDATE_BEFORE, RowKind.DELETE] }]);
    expect(await readRows(t2)).toEqual(sortRows(rows(0, 4, "a")));
  });
});

describe("real-time writers and the layout options", () => {
  it.each(PK_MODES)("$name: files go under data-file.path-directory, deletion vectors into the bucket directory", async ({ options }) => {
    const table = await pkTable({ ...options, "data-file.path-directory": "rt/data", "index-file-in-data-file-dir": true }, true);
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const target = { partition: { dt: "x" }, bucket: 0 };
    await w.write(rtBatch([0, 1, 2], { ids: [1, 2, 3], names: ["a", "b", "c"], dt: "x" }), target);
    await rtCommit(table, w, 1);
    await compactFully(table);
    await w.write(rtBatch([3, 4], { ids: [2, 3], names: ["B", null], dt: "x" }), { ...target, rowKinds: [RowKind.INSERT, RowKind.DELETE] });
    await rtCommit(table, w, 2);
    expect(await pkView(table, ctx)).toEqual([[1, "a"], [2, "B"]]);
    await w.close();
    await ctx.close();
    // a minor compaction of the level-0 file: PK DV marks the replaced rows in the max-level file
    const c = await table.newWrite({ commitUser: "compactor" });
    await c.compact({ full: false });
    await table.newCommit({ commitUser: "compactor" }).commit(await c.prepareCommit());
    await c.close();
    expect(await pkView(table)).toEqual([[1, "a"], [2, "B"]]);
    const index = (await table.manifestStore.indexEntries(await table.latestSnapshot())).map((e) => table.paths.indexFileOf(e.partition, e.bucket, e.indexFile));
    expect(index.length).toBe("deletion-vectors.enabled" in options ? 1 : 0);
    for (const p of index) expect(existsSync(p) && p.startsWith(join(table.location, "rt/data/dt=x/bucket-0/index-"))).toBe(true);
    const files = filesUnder(table.location).filter((f) => !/^(snapshot|schema|manifest|metadata)\//.test(f));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !f.startsWith("rt/data/dt=x/bucket-0/"))).toEqual([]);
    expect(existsSync(join(table.location, "index"))).toBe(false);
  });
});
