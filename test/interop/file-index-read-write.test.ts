/**
 * Data-file indexes end to end: paimon-rt writes them (append, real-time prepare, primary-key
 * files) where Java Paimon 1.4.2 uses them to skip files, and both sides skip files by the
 * other's indexes without losing a matching row.
 *
 * Tables are built so that statistics cannot prune: every file holds ids spread over the whole
 * range (file k holds the ids ≡ k mod FILES), so only the index can rule a file out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { col, or, type Predicate } from "../../src/predicate/predicate.js";
import { RealtimeContext } from "../../src/realtime/index.js";
import type { ManifestEntry } from "../../src/spec/manifest.js";
import type { Table } from "../../src/table/table.js";
import { rowsToBatch, type FieldLike } from "./convert.js";
import { type OracleRow, javaOracleUnavailable, readTables, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[file-index-read-write] skipping: ${noJava}`);

const SLOW = 180_000;
const FILES = 4;
const PER_FILE = 50;
const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "name", type: "STRING" },
  { name: "kind", type: "INT" },
];
const OPTIONS = {
  bucket: "1",
  "bucket-key": "id",
  "file-index.bloom-filter.columns": "id,name",
  "file-index.bloom-filter.id.items": "60", // small: embedded in the manifest
  "file-index.bloom-filter.name.items": "60",
  "file-index.bitmap.columns": "kind",
};

/** Rows of file k: ids k, k+FILES, ... (so every file's min/max spans the whole range). */
function fileRows(k: number): OracleRow[] {
  return Array.from({ length: PER_FILE }, (_, j) => {
    const id = k + j * FILES;
    return { id: String(id), name: `n${id}`, kind: k };
  });
}

const allIds = Array.from({ length: FILES * PER_FILE }, (_, i) => i);
const ids = (rows: OracleRow[]): number[] => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

async function liveEntries(table: Table): Promise<ManifestEntry[]> {
  const snapshot = await table.snapshotManager.latestSnapshot();
  return table.manifestStore.liveEntries(snapshot!);
}

async function readIds(table: Table, filter?: Predicate, predicateFilter = false): Promise<number[]> {
  const plan = await table.newScan({ filter }).plan();
  const t = await table.newRead({ filter, predicateFilter }).toArrow(plan.splits);
  return Array.from(t.getChild("id")!.toArray() as BigInt64Array, Number).sort((a, b) => a - b);
}

describe.skipIf(!!noJava)("file indexes: paimon-rt and Java Paimon skip each other's files", () => {
  let warehouse = "";
  let catalog: Catalog;

  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-fidx-rw-"));
    catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    // paimon-rt: an append table, one commit per file
    const ours = await catalog.createTable("db.ours", { fields: FIELDS, options: OPTIONS });
    for (let k = 0; k < FILES; k++) {
      const w = await ours.newWrite({ commitUser: "rt" });
      await w.write(rowsToBatch(FIELDS, fileRows(k)), { bucket: 0 });
      await ours.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
      await w.close();
    }
    // paimon-rt: the default bloom size (1M items) goes to `<file>.index` files
    const big = await catalog.createTable("db.big", { fields: FIELDS, options: { bucket: "1", "bucket-key": "id", "file-index.bloom-filter.columns": "name" } });
    for (let k = 0; k < 2; k++) {
      const w = await big.newWrite({ commitUser: "rt" });
      await w.write(rowsToBatch(FIELDS, fileRows(k)), { bucket: 0 });
      await big.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
      await w.close();
    }
    // paimon-rt real-time mode: prepare writes the index too
    const rt = await catalog.createTable("db.rt", { fields: FIELDS, options: { ...OPTIONS, "realtime.enabled": "true" } });
    const ctx = await RealtimeContext.create();
    const rw = await rt.newWrite({ commitUser: "rt", realtime: ctx });
    for (let k = 0; k < FILES; k++) {
      const rows = fileRows(k).map((r, j) => ({ _REALTIME_OFFSET: String(k * PER_FILE + j), ...r }));
      await rw.write(rowsToBatch([{ name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" }, ...FIELDS], rows), { bucket: 0 });
      const s = await rt.newCommit({ commitUser: "rt" }).commitWithProgress(await rw.prepareCommitWithProgress(k + 1), k + 1);
      await rw.refreshCommittedSnapshot(s);
    }
    await rw.close();
    await ctx.close();
    // paimon-rt: a primary-key table with an index on a value column
    const pk = await catalog.createTable("db.pk", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "file-index.bloom-filter.columns": "name", "file-index.bloom-filter.name.items": "60" } });
    for (let k = 0; k < FILES; k++) {
      const w = await pk.newWrite({ commitUser: "rt" });
      await w.write(rowsToBatch(FIELDS, fileRows(k)));
      await pk.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
      await w.close();
    }
    // Java: the same append layout
    await writeTables("java", warehouse, [
      { identifier: "db.theirs", spec: { fields: FIELDS, options: OPTIONS, commits: Array.from({ length: FILES }, (_, k) => fileRows(k)) } },
    ]);
  }, SLOW);

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  it("paimon-rt stores small indexes in the manifest and large ones beside the data file", async () => {
    for (const name of ["ours", "rt", "pk"]) {
      const entries = await liveEntries(await catalog.getTable(`db.${name}`));
      expect(entries.length).toBe(FILES);
      for (const e of entries) {
        expect(e.file.embeddedIndex, name).not.toBeNull();
        expect(e.file.extraFiles).toEqual([]);
      }
    }
    const big = await catalog.getTable("db.big");
    for (const e of await liveEntries(big)) {
      expect(e.file.embeddedIndex).toBeNull();
      expect(e.file.extraFiles).toEqual([`${e.file.fileName}.index`]);
      const stat = await fsp.stat(path.join(big.location, "bucket-0", `${e.file.fileName}.index`));
      expect(stat.size).toBeGreaterThan(500_000); // a 1M-item bloom filter (fpp 0.1), as Java sizes it
    }
  });

  it("paimon-rt skips files by every index kind (scan: embedded; read: extra files), never losing a match", async () => {
    for (const name of ["ours", "rt", "theirs"]) {
      const table = await catalog.getTable(`db.${name}`);
      expect(await readIds(table)).toEqual(allIds);
      for (const id of [0, 7, 101, 198]) {
        const fileOf = id % FILES;
        const got = await readIds(table, col("id").eq(BigInt(id)));
        expect(got, `${name} id=${id}`).toContain(id);
        // the index rules out (nearly) every other file: at most one bloom false positive here
        expect(got.length, `${name} id=${id}`).toBeLessThanOrEqual(2 * PER_FILE);
        expect(got.filter((x) => x % FILES === fileOf).length).toBe(PER_FILE);
        expect(await readIds(table, col("id").eq(BigInt(id)), true)).toEqual([id]);
      }
      // bitmap: exactly the file of that kind
      expect(await readIds(table, col("kind").eq(2))).toEqual(allIds.filter((i) => i % FILES === 2));
      expect(await readIds(table, col("kind").eq(9))).toEqual([]);
      expect(await readIds(table, or(col("name").eq("n5"), col("kind").eq(3)))).toEqual(expect.arrayContaining([5, 3, 7]));
    }
    const big = await catalog.getTable("db.big");
    expect(await readIds(big, col("name").eq("n5"))).toEqual(fileRows(1).map((r) => Number(r.id)));
    await catalog.alterTable("db.ours", [{ kind: "setOption", key: "file-index.read.enabled", value: "false" }]);
    expect((await readIds(await catalog.getTable("db.ours"), col("kind").eq(2))).length).toBe(FILES * PER_FILE);
    await catalog.alterTable("db.ours", [{ kind: "removeOption", key: "file-index.read.enabled" }]);
  });

  it("Java uses paimon-rt's indexes to skip files and still returns every matching row", async () => {
    const requests = [];
    for (const name of ["ours", "rt", "pk"]) {
      requests.push({ warehouse, identifier: `db.${name}`, sort: true });
      for (const id of [0, 7, 101, 198]) requests.push({ warehouse, identifier: `db.${name}`, filterEq: [["name", `n${id}`]] as Array<[string, unknown]> });
      if (name !== "pk") requests.push({ warehouse, identifier: `db.${name}`, filterEq: [["kind", 1]] as Array<[string, unknown]> });
    }
    requests.push({ warehouse, identifier: "db.big", filterEq: [["name", "n5"]] as Array<[string, unknown]> });
    const results = await readTables("java", requests);
    let at = 0;
    for (const name of ["ours", "rt", "pk"]) {
      const full = results[at++];
      if (full instanceof Error) throw full;
      expect(ids(full), name).toEqual(allIds);
      for (const id of [0, 7, 101, 198]) {
        const rows = results[at++];
        if (rows instanceof Error) throw rows;
        expect(ids(rows), `${name} name=n${id}`).toContain(id);
        if (name !== "pk") expect(rows.length, `${name} name=n${id}`).toBeLessThan(FILES * PER_FILE); // files were skipped
      }
      if (name !== "pk") {
        const rows = results[at++];
        if (rows instanceof Error) throw rows;
        expect(ids(rows), `${name} kind=1`).toEqual(allIds.filter((i) => i % FILES === 1));
      }
    }
    const big = results[at++];
    if (big instanceof Error) throw big;
    expect(ids(big)).toEqual(fileRows(1).map((r) => Number(r.id)));
  }, SLOW);
});
