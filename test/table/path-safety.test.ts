// Nothing a table's options, commit messages or metadata files say may make the library write,
// read or delete outside the table directory (or a declared external path) — issue 9 items 5, 6.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { CommitMessage } from "../../src/commit/commit-message.js";
import { FileStoreCommit } from "../../src/commit/file-store-commit.js";
import { makeCommitMessage } from "../../src/spec/commit-message.js";
import type { IndexFileMeta } from "../../src/spec/manifest.js";
import { expireSnapshots } from "../../src/commit/expire.js";
import { fileNameProblem } from "../../src/spec/file-names.js";
import { decodeIndexManifestEntries, decodeManifestEntries, FILE_KIND_DELETE, type ManifestEntry } from "../../src/spec/manifest.js";
import { encodeIndexManifestEntries, encodeManifestEntries } from "../../src/spec/manifest-write.js";
import { RealtimeContext } from "../../src/realtime/index.js";
import { makeTable, rtBatch } from "../realtime/helpers.js";
import { failure } from "./helpers.js";
import { REALTIME_OFFSETS_PROPERTY } from "../../src/spec/snapshot.js";
import { isInsideDirectory, TablePaths } from "../../src/table/paths.js";
import type { Table } from "../../src/table/table.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `<base>/wh` is the warehouse; `<base>/victim.parquet` a file outside it that must survive. */
function sandbox(): { base: string; warehouse: string; victim: string } {
  const base = mkdtempSync(join(tmpdir(), "paimon-rt-paths-"));
  dirs.push(base);
  const victim = join(base, "victim.parquet");
  writeFileSync(victim, "precious");
  return { base, warehouse: join(base, "wh"), victim };
}

/** What lies next to the warehouse: only the warehouse and the victim, untouched. */
function expectOutsideUntouched(base: string, victim: string): void {
  expect(readdirSync(base).sort()).toEqual(["victim.parquet", "wh"]);
  expect(readFileSync(victim, "utf8")).toBe("precious");
}

const FIELDS = [
  { name: "id", type: "BIGINT" },
  { name: "s", type: "STRING" },
];

function batch(ids: number[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    s: arrow.vectorFromArray(ids.map((i) => `v${i}`), new arrow.Utf8()).data[0],
  });
}

async function newTable(warehouse: string, options: Record<string, string> = {}): Promise<{ catalog: Catalog; table: Table }> {
  const catalog = await Catalog.open(warehouse);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return { catalog, table: await catalog.createTable("db.t", { fields: FIELDS, options }) };
}

async function prepared(table: Table, ids: number[]): Promise<CommitMessage[]> {
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(batch(ids));
  const messages = await w.prepareCommit();
  await w.close();
  return messages;
}

const readIds = async (table: Table) => {
  const t = await table.newRead().toArrow((await table.newScan().plan()).splits);
  return Array.from(t.getChild("id")!.toArray() as BigInt64Array, Number).sort((a, b) => a - b);
};

/** Rewrites the manifest `name` of `table` with `edit` applied to its entries. */
async function editManifest(table: Table, name: string, edit: (entries: ManifestEntry[]) => void): Promise<string> {
  const path = table.paths.manifest(name);
  const entries = await decodeManifestEntries(readFileSync(path), path);
  edit(entries);
  writeFileSync(path, await encodeManifestEntries(entries, { compression: table.coreOptions.manifestCompression }));
  return path;
}

/** The data manifests of a snapshot's delta list. */
async function deltaManifests(table: Table, snapshotId: number): Promise<string[]> {
  const s = await table.snapshot(snapshotId);
  return (await table.manifestStore.readManifestList(s.deltaManifestList)).map((m) => m.fileName);
}

/** Puts an option into schema-0 of `table` behind the library's back, as another engine could. */
function setSchemaOption(table: Table, key: string, value: string): void {
  const schema = JSON.parse(readFileSync(table.paths.schema(0), "utf8"));
  schema.options[key] = value;
  writeFileSync(table.paths.schema(0), JSON.stringify(schema));
}

/** Snapshot 1 adds file A ([1, 2]); snapshot 2 overwrites it with B ([3]), deleting A. */
async function twoSnapshots(warehouse: string, options: Record<string, string> = {}) {
  const { catalog, table } = await newTable(warehouse, options);
  const commit = table.newCommit({ commitUser: "u" });
  await commit.commit(await prepared(table, [1, 2]));
  await commit.overwrite(await prepared(table, [3]));
  const fileA = join(table.location, "bucket-0", (await table.manifestStore.readManifest((await deltaManifests(table, 1))[0]))[0].file.fileName);
  return { catalog, table, fileA };
}

describe("plain file names", () => {
  it("accepts one path segment of at most 255 bytes and says what is wrong with anything else", () => {
    expect(fileNameProblem("data-5f1c-0.parquet")).toBeNull();
    expect(fileNameProblem("..data")).toBeNull();
    expect(fileNameProblem("x".repeat(255))).toBeNull();
    expect(fileNameProblem("")).toBe("is empty");
    expect(fileNameProblem(".")).toBe("is a relative directory reference");
    expect(fileNameProblem("..")).toBe("is a relative directory reference");
    expect(fileNameProblem("../../../../victim.parquet")).toBe("contains a path separator");
    expect(fileNameProblem("a\\b")).toBe("contains a path separator");
    expect(fileNameProblem("a\u0000b")).toBe("contains a NUL character");
    expect(fileNameProblem("x".repeat(256))).toBe("is 256 bytes long (at most 255)");
    expect(fileNameProblem("é".repeat(128))).toBe("is 256 bytes long (at most 255)");
    expect(fileNameProblem(7)).toBe("is not a string");
  });

  it("judges containment lexically, with file: URLs and OS paths alike", () => {
    expect(isInsideDirectory("/wh/db.db/t/bucket-0/f", "/wh/db.db/t")).toBe(true);
    expect(isInsideDirectory("/wh/db.db/t/bucket-0/../../../../victim", "/wh/db.db/t")).toBe(false);
    expect(isInsideDirectory("/wh/db.db/t", "/wh/db.db/t")).toBe(false);
    expect(isInsideDirectory("/wh/db.db/t2/f", "/wh/db.db/t")).toBe(false);
    expect(isInsideDirectory("file:/ext/bucket-0/f", "/ext")).toBe(true);
    expect(isInsideDirectory("file:///ext/a%20b/f", "file:/ext/a b")).toBe(true);
    expect(isInsideDirectory("file://otherhost/ext/f", "/ext")).toBe(false);
    expect(isInsideDirectory("memory://w/t/f", "memory://w/t")).toBe(true);
    expect(isInsideDirectory("memory://other/t/f", "memory://w/t")).toBe(false);
    expect(isInsideDirectory("s3://bucket/t/../x", "s3://bucket/t")).toBe(false);
    expect(isInsideDirectory("wh/t/f", "/wh/t")).toBe(false);
    expect(isInsideDirectory("../wh/t/f", "wh/t")).toBe(false);
    const paths = new TablePaths("/wh/db.db/t", { externalPaths: ["file:///ext"] });
    expect(paths.isInside("/ext/bucket-0/data-1.parquet")).toBe(true);
    expect(() => paths.checkDeletable("/etc/passwd", "snapshot-3")).toThrow(
      "refusing to delete /etc/passwd (named by snapshot-3): it is outside the table directory /wh/db.db/t or the external paths file:///ext",
    );
  });
});

describe("file-name options (item 5)", () => {
  it("data-file.prefix and changelog-file.prefix that leave the bucket directory are refused at create", async () => {
    const { base, warehouse, victim } = sandbox();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    let e = await failure(() => catalog.createTable("db.t", { fields: FIELDS, options: { "data-file.prefix": "../../../../escaped-" } }));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe('option data-file.prefix: "../../../../escaped-" contains a path separator; it must be part of a file name');
    e = await failure(() => catalog.createTable("db.t", { fields: FIELDS, options: { "changelog-file.prefix": "..\\x-" } }));
    expect(e.message).toBe('option changelog-file.prefix: "..\\\\x-" contains a path separator; it must be part of a file name');
    e = await failure(() => catalog.createTable("db.t", { fields: FIELDS, options: { "data-file.prefix": "p".repeat(200) } }));
    expect(e.message).toBe(`option data-file.prefix: "${"p".repeat(200)}" is 200 bytes long (at most 191, file names are limited to 255 bytes); it must be part of a file name`);
    e = await failure(() => catalog.createTable("db.t", { fields: FIELDS, options: { "data-file.path-directory": "../../elsewhere" } }));
    expect(e.message).toBe(`option data-file.path-directory: "../../elsewhere" must be a relative directory without '.' or '..' segments`);
    expect((await failure(() => catalog.getTable("db.t"))).code).toBe("NOT_FOUND");
    expectOutsideUntouched(base, victim);
  });

  it("is refused by alterTable, leaving the schema as it was", async () => {
    const { base, warehouse, victim } = sandbox();
    const { catalog } = await newTable(warehouse);
    const e = await failure(() => catalog.alterTable("db.t", [{ kind: "setOption", key: "data-file.prefix", value: "../../../../escaped-" }]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toContain("option data-file.prefix");
    const table = await catalog.getTable("db.t");
    expect(table.schema.id).toBe(0);
    expect(table.options["data-file.prefix"]).toBeUndefined();
    expectOutsideUntouched(base, victim);
  });

  it("is refused at write when another engine put it into the schema, and nothing lands outside", async () => {
    const { base, warehouse, victim } = sandbox();
    const { catalog, table } = await newTable(warehouse);
    setSchemaOption(table, "data-file.prefix", "../../../../escaped-");
    const reopened = await catalog.getTable("db.t");
    const e = await failure(() => reopened.newWrite({ commitUser: "u" }));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe('option data-file.prefix: "../../../../escaped-" contains a path separator; it must be part of a file name');
    expect(existsSync(join(table.location, "bucket-0"))).toBe(false);
    expectOutsideUntouched(base, victim);
  });
});

describe("file names in commit messages (item 6)", () => {
  /** A deserialized copy of `message` whose first new file is changed by `edit`. */
  function tampered(message: CommitMessage, edit: (file: CommitMessage["data"]["dataIncrement"]["newFiles"][number]) => void): CommitMessage {
    const copy = CommitMessage.deserialize(CommitMessage.currentVersion(), CommitMessage.serialize(message));
    edit(copy.data.dataIncrement.newFiles[0]);
    return CommitMessage.deserialize(CommitMessage.currentVersion(), CommitMessage.serialize(copy));
  }

  it("a data file name with path segments is INVALID_ARGUMENT and nothing is committed", async () => {
    const { base, warehouse, victim } = sandbox();
    const { table } = await newTable(warehouse);
    const [message] = await prepared(table, [1, 2]);
    const commit = table.newCommit({ commitUser: "u" });
    let e = await failure(() => commit.commit([tampered(message, (f) => (f.fileName = "../../../../victim.parquet"))]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe('commit message of bucket 0: data file name "../../../../victim.parquet" contains a path separator');
    e = await failure(() => commit.overwrite([tampered(message, (f) => (f.extraFiles = ["../x.index"]))]));
    expect(e.message).toBe(`commit message of bucket 0: extra file name of ${message.data.dataIncrement.newFiles[0].fileName} "../x.index" contains a path separator`);
    e = await failure(() => commit.commit([tampered(message, (f) => (f.externalPath = victim))]));
    expect(e.message).toBe(
      `commit message of bucket 0: external path ${JSON.stringify(victim)} of ${message.data.dataIncrement.newFiles[0].fileName} is not that file in a declared external path (data-file.external-paths is not set)`,
    );
    expect(await table.latestSnapshot()).toBeNull();
    // The untampered message still commits.
    expect(await commit.commit([message])).toBe(1);
    expect(await readIds(table)).toEqual([1, 2]);
    expectOutsideUntouched(base, victim);
  });

  it("an index file name with path segments is INVALID_ARGUMENT", async () => {
    const { warehouse } = sandbox();
    const { table } = await newTable(warehouse);
    const [message] = await prepared(table, [1]);
    message.data.dataIncrement.newIndexFiles.push({ indexType: "DELETION_VECTORS", fileName: "../../index-x", fileSize: 1n, rowCount: 0n, dvRanges: [], externalPath: null, globalIndex: null });
    const e = await failure(() => table.newCommit({ commitUser: "u" }).commit([message]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe('commit message of bucket 0: index file name "../../index-x" contains a path separator');
    expect(await table.latestSnapshot()).toBeNull();
  });
});

describe("file names in real-time commit progress (item 6)", () => {
  it("a progress whose message names a file outside the bucket is INVALID_ARGUMENT, and nothing is committed", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(rtBatch([0, 1]), { bucket: 0 });
    const [progress] = await w.prepareCommitWithProgress(1);
    const data = CommitMessage.deserialize(CommitMessage.currentVersion(), CommitMessage.serialize(progress.commitMessage)).data;
    data.dataIncrement.newFiles[0].fileName = "../../../../victim.parquet";
    const e = await failure(() => table.newCommit({ commitUser: "u" }).commitWithProgress([{ ...progress, commitMessage: new CommitMessage(data) }], 1));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe('commit message of bucket 0: data file name "../../../../victim.parquet" contains a path separator');
    expect(await table.latestSnapshot()).toBeNull();
    await w.close();
  });
});

describe("file names read from table metadata (item 6)", () => {
  it("a manifest entry naming ../../../../victim.parquet is CORRUPT_FILE on read, and expiry deletes nothing", async () => {
    const { base, warehouse, victim } = sandbox();
    const { catalog, table, fileA } = await twoSnapshots(warehouse);
    const [manifest] = await deltaManifests(table, 2);
    const manifestPath = await editManifest(table, manifest, (entries) => {
      const deleted = entries.find((e) => e.kind === FILE_KIND_DELETE)!;
      deleted.file.fileName = "../../../../victim.parquet";
    });
    const reopened = await catalog.getTable("db.t");
    let e = await failure(() => readIds(reopened));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toBe(`${manifestPath}: data file name "../../../../victim.parquet" contains a path separator`);
    e = await failure(() => expireSnapshots(reopened.fileIO, reopened.location, reopened.coreOptions, reopened.partitionFields, { retainMax: 1, retainMin: 1 }));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toBe(`${manifestPath}: data file name "../../../../victim.parquet" contains a path separator`);
    expect(existsSync(fileA)).toBe(true);
    expect(existsSync(reopened.paths.snapshot(1))).toBe(true);
    expectOutsideUntouched(base, victim);
  });

  it("an external path outside the declared ones is CORRUPT_FILE; inside a declared one it is read", async () => {
    const { base, warehouse, victim } = sandbox();
    const { catalog, table } = await newTable(warehouse);
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1, 2]));
    const [manifest] = await deltaManifests(table, 1);
    const manifestPath = await editManifest(table, manifest, (entries) => (entries[0].file.externalPath = victim));
    const e = await failure(async () => readIds(await catalog.getTable("db.t")));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain(`${manifestPath}: external path ${JSON.stringify(victim)} of data-`);
    expect(e.message).toContain("is not that file in a declared external path (data-file.external-paths is not set)");
    expectOutsideUntouched(base, victim);

    // A table that declares an external directory reads its files from there (file: URL form, as Java writes it).
    const external = join(base, "wh", "external");
    const { table: t2 } = await newTable(join(base, "wh", "second"), { "data-file.external-paths": pathToFileURL(external).href });
    await t2.newCommit({ commitUser: "u" }).commit(await prepared(t2, [7, 8]));
    const [m2] = await deltaManifests(t2, 1);
    let moved = "";
    await editManifest(t2, m2, (entries) => {
      const name = entries[0].file.fileName;
      mkdirSync(join(external, "bucket-0"), { recursive: true });
      renameSync(join(t2.location, "bucket-0", name), join(external, "bucket-0", name));
      moved = `file:${join(external, "bucket-0", name)}`;
      entries[0].file.externalPath = moved;
    });
    const reopened = await Catalog.open(join(base, "wh", "second")).then((c) => c.getTable("db.t"));
    expect(await readIds(reopened)).toEqual([7, 8]);
    expect(reopened.paths.dataFile("ignored", { fileName: "x", externalPath: moved })).toBe(moved);
  });

  it("an index manifest entry naming a file outside the index directory is CORRUPT_FILE naming the index manifest", async () => {
    const { warehouse } = sandbox();
    const { catalog, table } = await newTable(warehouse, { "deletion-vectors.enabled": "true" });
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1]));
    const [split] = (await table.newScan().plan()).splits;
    mkdirSync(table.paths.indexDir);
    writeFileSync(table.paths.index("index-a-0"), "\u0001");
    const newIndexFiles = [{ indexType: "DELETION_VECTORS", fileName: "index-a-0", fileSize: 1n, rowCount: 0n, dvRanges: [], externalPath: null, globalIndex: null }];
    await new FileStoreCommit(table.fileIO, table.location, table.schema, "dv").commit([makeCommitMessage({ partition: split.partitionRow, bucket: split.bucket, dataIncrement: { newIndexFiles } })], 1n);
    const indexManifest = (await table.snapshot(2)).indexManifest!;
    const path = table.paths.manifest(indexManifest);
    const entries = await decodeIndexManifestEntries(readFileSync(path), path);
    entries[0].indexFile.fileName = "../../../../victim.parquet";
    writeFileSync(path, await encodeIndexManifestEntries(entries, { compression: table.coreOptions.manifestCompression }));
    const e = await failure(async () => readIds(await catalog.getTable("db.t")));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toBe(`${path}: index file name "../../../../victim.parquet" contains a path separator`);
  });

  it("a snapshot naming a manifest list outside the manifest directory is CORRUPT_FILE naming the snapshot", async () => {
    const { warehouse } = sandbox();
    const { catalog, table } = await newTable(warehouse);
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1]));
    const path = table.paths.snapshot(1);
    const json = JSON.parse(readFileSync(path, "utf8"));
    json.baseManifestList = "../../../../victim.parquet";
    writeFileSync(path, JSON.stringify(json));
    const e = await failure(async () => (await catalog.getTable("db.t")).latestSnapshot());
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toBe(`${path}: baseManifestList "../../../../victim.parquet" contains a path separator`);
  });

  it("expiry checks every path before deleting any: a snapshot pointing outside stops it with nothing deleted", async () => {
    const { base, warehouse, victim } = sandbox();
    const { table, fileA } = await twoSnapshots(warehouse);
    // Snapshot 1 names the victim as its offsets file; snapshot 2 names one inside the table.
    const inside = join(table.location, "metadata", "keep.offsets");
    mkdirSync(join(table.location, "metadata"));
    writeFileSync(inside, "{}");
    for (const [id, offsets] of [[1, victim], [2, inside]] as const) {
      const path = table.paths.snapshot(id);
      const json = JSON.parse(readFileSync(path, "utf8"));
      json.properties = { [REALTIME_OFFSETS_PROPERTY]: offsets };
      writeFileSync(path, JSON.stringify(json));
    }
    const e = await failure(() => expireSnapshots(table.fileIO, table.location, table.coreOptions, table.partitionFields, { retainMax: 1, retainMin: 1 }));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toBe(`refusing to delete ${victim} (named by a snapshot expired from ${table.location}): it is outside the table directory ${table.location}`);
    // Not even the files that were safe to delete went: the data file of snapshot 1, its manifests, the snapshot.
    expect(existsSync(fileA)).toBe(true);
    expect(existsSync(table.paths.snapshot(1))).toBe(true);
    const s1 = JSON.parse(readFileSync(table.paths.snapshot(1), "utf8"));
    expect(existsSync(table.paths.manifest(s1.deltaManifestList))).toBe(true);
    expectOutsideUntouched(base, victim);
  });

  it("expiry still deletes what it should when every path is inside", async () => {
    const { base, warehouse, victim } = sandbox();
    const { table, fileA } = await twoSnapshots(warehouse);
    expect(await expireSnapshots(table.fileIO, table.location, table.coreOptions, table.partitionFields, { retainMax: 1, retainMin: 1 })).toBe(1);
    expect(existsSync(fileA)).toBe(false);
    expect(existsSync(table.paths.snapshot(1))).toBe(false);
    expect(await readIds(table)).toEqual([3]);
    expectOutsideUntouched(base, victim);
  });

  it("expiry deletes a replaced index file (by the path TablePaths gives it) and keeps the live one", async () => {
    const { base, warehouse, victim } = sandbox();
    const { table } = await newTable(warehouse, { "deletion-vectors.enabled": "true" });
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1, 2]));
    const [split] = (await table.newScan().plan()).splits;
    const indexFile = (fileName: string): IndexFileMeta => ({ indexType: "DELETION_VECTORS", fileName, fileSize: 1n, rowCount: 0n, dvRanges: [], externalPath: null, globalIndex: null });
    const [oldIndex, newIndex] = [indexFile("index-old-0"), indexFile("index-new-0")];
    mkdirSync(table.paths.indexDir);
    writeFileSync(table.paths.indexFile(oldIndex, ""), "\u0001");
    writeFileSync(table.paths.indexFile(newIndex, ""), "\u0001");
    const commit = new FileStoreCommit(table.fileIO, table.location, table.schema, "dv");
    const message = (increment: { newIndexFiles?: IndexFileMeta[]; deletedIndexFiles?: IndexFileMeta[] }) => makeCommitMessage({ partition: split.partitionRow, bucket: split.bucket, dataIncrement: increment });
    await commit.commit([message({ newIndexFiles: [oldIndex] })], 1n);
    await commit.commit([message({ newIndexFiles: [newIndex], deletedIndexFiles: [oldIndex] })], 2n);
    expect(await expireSnapshots(table.fileIO, table.location, table.coreOptions, table.partitionFields, { retainMax: 1, retainMin: 1 })).toBe(2);
    expect(existsSync(table.paths.indexFile(oldIndex, ""))).toBe(false);
    expect(existsSync(table.paths.indexFile(newIndex, ""))).toBe(true);
    expectOutsideUntouched(base, victim);
  });
});

// Audit h54: holes that the checks above let through, each with the input that got past them.
describe("external paths name their file inside a declared external directory (audit)", () => {
  const expire = (t: Table) => expireSnapshots(t.fileIO, t.location, t.coreOptions, t.partitionFields, { retainMax: 1, retainMin: 1 });

  it("a commit message whose external path names the table's own snapshot file is refused; abort deletes nothing", async () => {
    // Before: the path lay inside the table directory, so it passed, and abort deleted snapshot-1.
    const { base, warehouse, victim } = sandbox();
    const { table } = await newTable(warehouse);
    const commit = table.newCommit({ commitUser: "u" });
    await commit.commit(await prepared(table, [1, 2]));
    const [message] = await prepared(table, [3]);
    const copy = CommitMessage.deserialize(CommitMessage.currentVersion(), CommitMessage.serialize(message));
    copy.data.dataIncrement.newFiles[0].externalPath = table.paths.snapshot(1);
    copy.data.dataIncrement.newFiles[0].fileName = "snapshot-1";
    let e = await failure(() => commit.abort([copy]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`commit message of bucket 0: external path ${JSON.stringify(table.paths.snapshot(1))} of snapshot-1 is not that file in a declared external path (data-file.external-paths is not set)`);
    e = await failure(() => commit.commit([copy]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(existsSync(table.paths.snapshot(1))).toBe(true);
    expect((await table.latestSnapshot())!.id).toBe(1);
    expect(await readIds(table)).toEqual([1, 2]);
    expectOutsideUntouched(base, victim);
  });

  it("a manifest entry whose external path names the schema file is CORRUPT_FILE, and expiry deletes nothing", async () => {
    // Before: expiry deleted schema/schema-0 (inside the table, so "deletable"): the table was gone.
    const { base, warehouse, victim } = sandbox();
    const { catalog, table, fileA } = await twoSnapshots(warehouse);
    const schema0 = table.paths.schema(0);
    const [manifest] = await deltaManifests(table, 2);
    const manifestPath = await editManifest(table, manifest, (entries) => {
      const deleted = entries.find((x) => x.kind === FILE_KIND_DELETE)!;
      deleted.file.externalPath = schema0;
    });
    const reopened = await catalog.getTable("db.t");
    const e = await failure(() => expire(reopened));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toMatch(new RegExp(`^${manifestPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: external path ".*schema-0" of data-.* is not that file in a declared external path`));
    expect(existsSync(schema0)).toBe(true);
    expect(existsSync(fileA)).toBe(true);
    expect(existsSync(reopened.paths.snapshot(1))).toBe(true);
    expectOutsideUntouched(base, victim);
  });

  it("an external path inside a declared directory must end with the file's name", async () => {
    const { warehouse, base } = sandbox();
    const external = join(base, "wh", "external");
    const { table } = await newTable(warehouse, { "data-file.external-paths": pathToFileURL(external).href });
    const [message] = await prepared(table, [1]);
    message.data.dataIncrement.newFiles[0].externalPath = `file:${join(external, "bucket-0", "other.parquet")}`;
    const e = await failure(() => table.newCommit({ commitUser: "u" }).commit([message]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(
      `commit message of bucket 0: external path ${JSON.stringify(`file:${join(external, "bucket-0", "other.parquet")}`)} of ${message.data.dataIncrement.newFiles[0].fileName} is not that file in a declared external path (${pathToFileURL(external).href})`,
    );
    expect(await table.latestSnapshot()).toBeNull();
  });

  it("a declared directory that contains the table (file:///) declares nothing: expiry does not delete the victim", async () => {
    // Before: every path was "inside" file:///, so expiry deleted <base>/victim.parquet.
    const { base, warehouse, victim } = sandbox();
    const catalog = await Catalog.open(warehouse);
    // Another engine's schema says so (paimon-rt never writes there, so creating a table with it is not refused).
    const { table, fileA } = await twoSnapshots(warehouse);
    setSchemaOption(table, "data-file.external-paths", "file:///");
    const [manifest] = await deltaManifests(table, 2);
    await editManifest(table, manifest, (entries) => {
      const deleted = entries.find((x) => x.kind === FILE_KIND_DELETE)!;
      deleted.file.fileName = "victim.parquet";
      deleted.file.externalPath = victim;
    });
    const reopened = await catalog.getTable("db.t");
    expect(reopened.paths.externalPaths).toEqual([]);
    const e = await failure(() => expire(reopened));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain(`external path ${JSON.stringify(victim)} of victim.parquet is not that file in a declared external path (data-file.external-paths is not set)`);
    expect(existsSync(fileA)).toBe(true);
    expectOutsideUntouched(base, victim);
  });

  it("declared directories without a scheme or containing the table are ignored", () => {
    const paths = new TablePaths("/wh/db.db/t", { externalPaths: ["relative/ext", "/abs/ext", "file:///", "file:///wh/db.db/./t", "file:///wh/db.db/t", "s3://b/ext", "file:///wh/db.db/t/ext"] });
    expect(paths.externalPaths).toEqual(["s3://b/ext", "file:///wh/db.db/t/ext"]);
    // s3a: names the same bucket as s3: (before, s3a://b/t counted as outside the table s3://b/t)
    expect(new TablePaths("s3://b/t", { externalPaths: ["s3a://b/t", "s3a://b", "s3a://b/t/ext"] }).externalPaths).toEqual(["s3a://b/t/ext"]);
    expect(isInsideDirectory("s3a://b/t/snapshot/snapshot-1", "s3://b/t")).toBe(true);
  });

  it("a relative declared directory (another engine's schema) declares nothing: its files are CORRUPT_FILE, not read from the working directory", async () => {
    // Before: "ext/bucket-0/<name>" was inside the declared "ext" and was read relative to the process's working directory.
    const { warehouse } = sandbox();
    const { catalog, table } = await newTable(warehouse);
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1]));
    setSchemaOption(table, "data-file.external-paths", "ext");
    const [manifest] = await deltaManifests(table, 1);
    await editManifest(table, manifest, (entries) => (entries[0].file.externalPath = `ext/bucket-0/${entries[0].file.fileName}`));
    const e = await failure(async () => readIds(await catalog.getTable("db.t")));
    expect(e.code).toBe("CORRUPT_FILE");
    expect(e.message).toContain("is not that file in a declared external path (data-file.external-paths is not set)");
  });

  it("an external directory on another file system than the table is UNSUPPORTED, and expiry deletes nothing", async () => {
    // Before: the local FileIO took s3://bucket/ext/... for a relative path: <cwd>/s3:/bucket/ext/... was read and deleted.
    const { base, warehouse, victim } = sandbox();
    const { table, fileA } = await twoSnapshots(warehouse, { "data-file.external-paths": "s3://bucket/ext" });
    const [manifest] = await deltaManifests(table, 2);
    const manifestPath = await editManifest(table, manifest, (entries) => {
      const deleted = entries.find((x) => x.kind === FILE_KIND_DELETE)!;
      deleted.file.externalPath = `s3://bucket/ext/bucket-0/${deleted.file.fileName}`;
    });
    const reopened = await Catalog.open(warehouse).then((c) => c.getTable("db.t"));
    const e = await failure(() => expire(reopened));
    expect(e.code).toBe("UNSUPPORTED");
    expect(e.message).toMatch(new RegExp(`^${manifestPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: external path "s3://bucket/ext/bucket-0/data-.*" of data-.* is on another file system than the table`));
    expect(existsSync(fileA)).toBe(true);
    expectOutsideUntouched(base, victim);
  });

  it("orphan-file cleanup and abort read tables with external data files (they were CORRUPT_FILE)", async () => {
    const { base, warehouse } = sandbox();
    const external = join(base, "wh", "external");
    const { catalog, table } = await newTable(warehouse, { "data-file.external-paths": pathToFileURL(external).href });
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1, 2]));
    const [manifest] = await deltaManifests(table, 1);
    await editManifest(table, manifest, (entries) => {
      const name = entries[0].file.fileName;
      mkdirSync(join(external, "bucket-0"), { recursive: true });
      renameSync(join(table.location, "bucket-0", name), join(external, "bucket-0", name));
      entries[0].file.externalPath = `file:${join(external, "bucket-0", name)}`;
    });
    const reopened = await catalog.getTable("db.t");
    expect(await readIds(reopened)).toEqual([1, 2]);
    expect((await reopened.removeOrphanFiles({ olderThanMs: 0, dryRun: true })).deleted.filter((p) => !p.startsWith("bucket-0/"))).toEqual([]);
    const [stray] = await prepared(reopened, [9]);
    await reopened.newCommit({ commitUser: "u" }).abort([stray]);
    expect(await readIds(reopened)).toEqual([1, 2]);
  });
});

describe("snapshot and schema ids become file names (audit)", () => {
  it("a snapshot id that is not an integer is INVALID_ARGUMENT before any read", async () => {
    // Before: table.snapshot("1/../../../../../victim.parquet") read <base>/victim.parquet (CORRUPT_FILE quoting it).
    const { warehouse } = sandbox();
    const { table } = await newTable(warehouse);
    await table.newCommit({ commitUser: "u" }).commit(await prepared(table, [1]));
    const hostile = "1/../../../../../victim.parquet" as unknown as number;
    let e = await failure(() => table.snapshot(hostile));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe("snapshot-1/../../../../../victim.parquet: not a non-negative integer id");
    e = await failure(() => table.newScan({ snapshotId: hostile }).plan());
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect((await failure(() => table.snapshot(1.5))).code).toBe("INVALID_ARGUMENT");
    expect((await table.snapshot(1)).id).toBe(1);
  });
});
