/**
 * Iceberg compatibility metadata (`metadata.iceberg.*`, Java's IcebergCommitCallback) on local
 * tables, no oracle: what each commit leaves in `metadata/` (versions kept by
 * `previous-versions-max` / `delete-after-commit.enabled`, snapshots and manifest lists expired
 * by the table's snapshot retention, manifests merged by `compaction.*`), `hadoop-catalog`'s
 * directory, and the refusals (nothing written). Java parity and Iceberg readers:
 * test/interop/iceberg-compat-interop.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { jacksonPretty } from "../../src/commit/iceberg-compat.js";
import { PaimonError } from "../../src/error.js";
import { readContainer } from "../../src/spec/avro.js";
import type { Table } from "../../src/table/table.js";
import { tempDirs } from "../support/temp-dirs.js";

const tempDir = tempDirs("paimon-rt-iceberg-");
const FIELDS = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "dt", type: "STRING" },
];

async function table(wh: string, options: Record<string, string>, fields = FIELDS, name = "db.t"): Promise<Table> {
  const catalog = await Catalog.open(wh);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(name, { fields, partitionKeys: fields === FIELDS ? ["dt"] : [], options: { "metadata.iceberg.storage": "table-location", ...options } } as never);
}

async function append(t: Table, ids: number[], dt = "x"): Promise<number> {
  const w = await t.newWrite({ commitUser: "u" });
  await w.write(
    new arrow.RecordBatch({
      id: arrow.vectorFromArray(ids.map(BigInt), new arrow.Int64()).data[0]!,
      dt: arrow.vectorFromArray(ids.map(() => dt), new arrow.Utf8()).data[0]!,
    }),
  );
  const id = await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
  return id!;
}

const meta = (wh: string, dir = join(wh, "db.db", "t", "metadata")) => ({
  dir,
  json: () => readdirSync(dir).filter((f) => f.endsWith(".metadata.json")).sort(),
  lists: () => readdirSync(dir).filter((f) => f.startsWith("snap-")).length,
  manifests: () => readdirSync(dir).filter((f) => /-m\d+\.avro$/.test(f)).length,
  read: (v: number) => JSON.parse(readFileSync(join(dir, `v${v}.metadata.json`), "utf8")),
});

describe("Iceberg compatibility metadata", () => {
  it("each commit writes v<id>.metadata.json and version-hint.text; older versions go unless previous-versions-max keeps them", async () => {
    const wh = tempDir();
    const t = await table(wh, { "metadata.iceberg.previous-versions-max": "2" });
    for (let i = 1; i <= 4; i++) expect(await append(t, [i])).toBe(i);
    const m = meta(wh);
    expect(m.json()).toEqual(["v2.metadata.json", "v3.metadata.json", "v4.metadata.json"]);
    expect(readFileSync(join(m.dir, "version-hint.text"), "utf8")).toBe("4");
    const v4 = m.read(4);
    expect(v4["snapshots"].map((s: Record<string, unknown>) => [s["snapshot-id"], s["parent-snapshot-id"], s["sequence-number"], (s.summary as Record<string, string>).operation])).toEqual([
      [1, undefined, 1, "append"],
      [2, 1, 2, "append"],
      [3, 2, 3, "append"],
      [4, 3, 4, "append"],
    ]);
    expect([v4["last-sequence-number"], v4["current-snapshot-id"], v4["last-column-id"], v4["last-partition-id"]]).toEqual([4, 4, 1, 1000]);
    // append-only commits add one manifest each and reuse the earlier ones
    const list = readContainer(readFileSync(join(m.dir, String(v4.snapshots[3]["manifest-list"]).split("/").pop()!))).records as Array<Record<string, unknown>>;
    expect(list.map((r) => [r.sequence_number, r.added_files_count, r.added_rows_count])).toEqual([
      [1n, 1, 1n],
      [2n, 1, 1n],
      [3n, 1, 1n],
      [4n, 1, 1n],
    ]);

    const keepAll = tempDir();
    const t2 = await table(keepAll, { "metadata.iceberg.delete-after-commit.enabled": "false" });
    for (let i = 1; i <= 3; i++) await append(t2, [i]);
    expect(meta(keepAll).json()).toEqual(["v1.metadata.json", "v2.metadata.json", "v3.metadata.json"]);
  });

  it("snapshots past the table's retention leave the Iceberg metadata with their manifest lists (snapshot.num-retained.*)", async () => {
    const wh = tempDir();
    const t = await table(wh, { "snapshot.num-retained.min": "2", "snapshot.num-retained.max": "2" });
    for (let i = 1; i <= 5; i++) await append(t, [i]);
    const m = meta(wh);
    expect(m.read(5).snapshots.map((s: Record<string, number>) => s["snapshot-id"])).toEqual([4, 5]);
    expect(m.lists()).toBe(2);
    // manifests still listed by snapshot 5 stay (one per append)
    expect(m.manifests()).toBe(5);
  });

  it("many small manifests are merged (metadata.iceberg.compaction.*): older entries become EXISTING", async () => {
    const wh = tempDir();
    const t = await table(wh, { "metadata.iceberg.compaction.min.file-num": "3", "metadata.iceberg.compaction.max.file-num": "3" });
    for (let i = 1; i <= 3; i++) await append(t, [i]);
    const m = meta(wh);
    const v3 = m.read(3);
    const list = readContainer(readFileSync(join(m.dir, String(v3.snapshots[2]["manifest-list"]).split("/").pop()!))).records as Array<Record<string, unknown>>;
    expect(list.map((r) => [r.sequence_number, r.added_files_count, r.existing_files_count])).toEqual([[3n, 1, 2]]);
    const entries = readContainer(readFileSync(join(m.dir, String(list[0]!.manifest_path).split("/").pop()!))).records as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.status, e.sequence_number])).toEqual([
      [0, 1n],
      [0, 2n],
      [1, 3n],
    ]);
  });

  it("tags of retained snapshots become Iceberg tag refs at the next commit (Java's refs)", async () => {
    const wh = tempDir();
    const t = await table(wh, {});
    await append(t, [1]);
    await t.createTag("first", 1);
    await append(t, [2]);
    const text = readFileSync(join(meta(wh).dir, "v2.metadata.json"), "utf8");
    expect(text).toContain('"refs" : {\n    "first" : {\n      "snapshot-id" : 1,\n      "type" : "tag",\n      "max-ref-age-ms" : 9223372036854775807\n    }\n  }\n}');
    // the next commit reads that metadata back (the 64-bit age intact) and keeps the ref
    await append(t, [3]);
    expect(readFileSync(join(meta(wh).dir, "v3.metadata.json"), "utf8")).toContain('"max-ref-age-ms" : 9223372036854775807');
  });

  it("hadoop-catalog keeps the metadata under <warehouse>/iceberg/<db>/<table>/metadata", async () => {
    const wh = tempDir();
    const t = await table(wh, { "metadata.iceberg.storage": "hadoop-catalog" });
    await append(t, [1]);
    expect(existsSync(join(wh, "db.db", "t", "metadata"))).toBe(false);
    expect(meta(wh, join(wh, "iceberg", "db", "t", "metadata")).json()).toEqual(["v1.metadata.json"]);
    expect(meta(wh, join(wh, "iceberg", "db", "t", "metadata")).read(1).location).toBe(join(wh, "db.db", "t"));
  });

  it.each([
    [{ "metadata.iceberg.storage": "rest-catalog" }, FIELDS, "UNSUPPORTED", /Hive or REST catalog/],
    [{ "metadata.iceberg.storage": "glue" }, FIELDS, "INVALID_ARGUMENT", /unknown value/],
    [{ "metadata.iceberg.format-version": "4" }, FIELDS, "INVALID_ARGUMENT", /Only version 2 or version 3 is valid, but current version is 4/],
    [{ "metadata.iceberg.storage-location": "elsewhere" }, FIELDS, "INVALID_ARGUMENT", /storage-location=elsewhere/],
    [{ "deletion-vectors.enabled": "true" }, FIELDS, "UNSUPPORTED", /deletion vectors/],
    [{}, [{ name: "id", type: "BIGINT NOT NULL" }, { name: "dt", type: "STRING" }, { name: "t", type: "TIME" }], "UNSUPPORTED", /column 't' of type TIME has no Iceberg type/],
    [{}, [{ name: "id", type: "BIGINT NOT NULL" }, { name: "dt", type: "STRING" }, { name: "ts", type: "TIMESTAMP(9)" }], "UNSUPPORTED", /precision 3 to 6/],
  ])("refuses %j before anything is written", async (options, fields, code, message) => {
    const wh = tempDir();
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase("db", { ignoreIfExists: true });
    const t = await catalog.createTable("db.t", { fields, options: { "metadata.iceberg.storage": "table-location", ...options } } as never);
    // refused when the commit starts (even one with nothing to commit), before any snapshot
    const err = await t.newCommit({ commitUser: "u" }).commit([]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaimonError);
    expect([(err as PaimonError).code, (err as PaimonError).message]).toEqual([code, expect.stringMatching(message)]);
    expect(existsSync(join(wh, "db.db", "t", "snapshot", "snapshot-1"))).toBe(false);
    expect(existsSync(join(wh, "db.db", "t", "metadata"))).toBe(false);
  });

  it("tags the commit creates and expires reach the latest metadata at once (Java's tag callbacks): the batch tag, retention expiry", async () => {
    const wh = tempDir();
    const t = await table(wh, { "tag.automatic-creation": "batch" });
    const m = meta(wh);
    const refs = (v: number) => Object.fromEntries(Object.entries(m.read(v).refs as Record<string, { "snapshot-id": number }>).map(([k, r]) => [k, r["snapshot-id"]]));
    await append(t, [1]);
    const [name] = [...(await t.listTags()).keys()];
    expect(name).toMatch(/^batch-write-\d{4}-\d{2}-\d{2}$/);
    expect(refs(1)).toEqual({ [name!]: 1 });
    // the next batch commit of the day moves it (deleted, then created at the new snapshot)
    await append(t, [2]);
    expect(refs(2)).toEqual({ [name!]: 2 });
    expect(m.read(2)["last-sequence-number"]).toBe(2);

    const wh2 = tempDir();
    const t2 = await table(wh2, { "tag.default-time-retained": "1 d" }); // (a table whose commits expire tags)
    await append(t2, [1]);
    await t2.createTag("short", 1, { timeRetainedMs: 1 });
    const m2 = meta(wh2);
    expect(Object.keys(m2.read(1).refs)).toEqual(["short"]);
    await new Promise((r) => setTimeout(r, 5));
    // the commit's metadata lists "short" (the tags of its time); the expiry after it deletes the tag and its ref
    await append(t2, [2]);
    expect([...(await t2.listTags()).keys()]).toEqual([]);
    expect(m2.read(2).refs).toEqual({});
    await t2.createTag("again", 1);
    await t2.createTag("latest", 2);
    expect(Object.keys(m2.read(2).refs)).toEqual(["again", "latest"]);
    await t2.deleteTag("again");
    expect(Object.keys(m2.read(2).refs)).toEqual(["latest"]);
  });

  it("manifests roll at manifest.target-file-size, checked every 1000 entries (Java's rolling writer)", async () => {
    const wh = tempDir();
    const t = await table(wh, { "manifest.target-file-size": "1 b", "file.format": "avro" });
    const w = await t.newWrite({ commitUser: "u" });
    const n = 2001; // one file per partition
    await w.write(
      new arrow.RecordBatch({
        id: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(i)), new arrow.Int64()).data[0]!,
        dt: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `p${i}`), new arrow.Utf8()).data[0]!,
      }),
    );
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const m = meta(wh);
    const list = readContainer(readFileSync(join(m.dir, String(m.read(1).snapshots[0]["manifest-list"]).split("/").pop()!))).records as Array<Record<string, unknown>>;
    expect(list.map((x) => x.added_files_count)).toEqual([1000, 1000, 1]);
    const paths = new Set<string>();
    for (const x of list) {
      const entries = readContainer(readFileSync(join(m.dir, String(x.manifest_path).split("/").pop()!))).records as Array<{ data_file: { file_path: string } }>;
      expect(entries.length).toBe(x.added_files_count);
      for (const e of entries) paths.add(e.data_file.file_path);
    }
    expect(paths.size).toBe(n);
    // the default target (8 MB) keeps them in one
    const wh2 = tempDir();
    const t2 = await table(wh2, {});
    await append(t2, [1]);
    expect(meta(wh2).manifests()).toBe(1);
  }, 120_000);

  it("writes JSON as Jackson's default pretty printer does", () => {
    expect(jacksonPretty({ a: 1, b: [], c: {}, d: [1, "x"], e: { f: null, g: undefined }, h: [{ i: true }], big: 9223372036854775807n })).toBe(
      '{\n  "a" : 1,\n  "b" : [ ],\n  "c" : { },\n  "d" : [ 1, "x" ],\n  "e" : {\n    "f" : null\n  },\n  "h" : [ {\n    "i" : true\n  } ],\n  "big" : 9223372036854775807\n}',
    );
  });
});
