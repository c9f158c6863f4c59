/**
 * Avro data files written by Java Paimon 1.4.2 (`file.format=avro`, `file.format.per.level=0:avro`,
 * with each codec) read by paimon-rt exactly as Java reads them: every type Java writes in Avro
 * (nullable unions, decimals of each size, timestamps of each precision, maps with string and
 * other keys, nested rows and arrays), primary-key tables merged on read across Avro
 * level-0 and Parquet compacted files, deletion vectors on Avro files, filters and projections.
 * (Java 1.4.2 cannot write MULTISET columns in Avro: ClassCastException MultisetType → ArrayType.)
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { and, col } from "../../src/predicate/predicate.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, type OracleRow, pypaimonUnavailable, readTables, sortRows, writeTables } from "./oracle/harness.js";
import { rtCommitRows } from "./rt-commit.js";
import { ALL_TYPES, allTypesRow, dataFileNames, expectCorruptRead, expectJavaValueStats, nullRow, PK_FIELDS, pkCommits, type ReadOptions, tableRows } from "./data-file-rows.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping avro-data interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-avro-data-interop-");

/**
 * Rows with map entries in key order: Java reads an Avro map into a hash map (its entries come
 * back in hash order), paimon-rt in the order stored.
 */
function mapsSorted(rows: OracleRow[]): OracleRow[] {
  const byKey = (a: unknown, b: unknown) => (JSON.stringify((a as unknown[])[0]) < JSON.stringify((b as unknown[])[0]) ? -1 : 1);
  return rows.map((r) => {
    const out = { ...r };
    for (const k of ["ms", "mi"]) if (Array.isArray(out[k])) out[k] = [...(out[k] as unknown[])].sort(byKey);
    return out;
  });
}

describe.skipIf(!!noJava)("Avro data files written by Java Paimon", () => {
  let warehouse = "";
  let catalog: Catalog;
  const tables: Array<{ identifier: string; spec: Parameters<typeof writeTables>[2][number]["spec"] }> = [];
  for (const codec of ["zstd", "snappy", "deflate", "null"]) {
    const options: Record<string, string> = { bucket: "-1", "file.format": "avro" };
    if (codec === "zstd") options["file.compression"] = "zstd";
    else options["avro.codec"] = codec;
    tables.push({
      identifier: `db.types_${codec}`,
      spec: { fields: ALL_TYPES, options, commits: [Array.from({ length: 40 }, (_, i) => (i % 5 === 4 ? nullRow(i) : allTypesRow(i))), [allTypesRow(100), nullRow(101)]] },
    });
  }
  tables.push({ identifier: "db.pk_level0", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "2", "file.format.per.level": "0:avro" }, commits: pkCommits() } });
  tables.push({ identifier: "db.pk_avro", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "1", "file.format": "avro" }, commits: pkCommits() } });
  tables.push({ identifier: "db.pk_dv", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "1", "file.format": "avro", "deletion-vectors.enabled": "true" }, commits: pkCommits() } });
  tables.push({
    identifier: "db.append_compact",
    spec: { fields: PK_FIELDS, options: { bucket: "1", "bucket-key": "k", "file.format": "avro" }, commits: [[{ k: 1, v: "x", n: "1" }], [{ k: 2, v: "y", n: null }], { rows: [{ k: 3, v: null, n: "3" }], compact: true }, [{ k: 4, v: "w", n: "4" }]] },
  });

  beforeAll(async () => {
    warehouse = tempDir();
    await writeTables("java", warehouse, tables);
    catalog = await Catalog.open(warehouse);
  }, SLOW);

  const rtRows = (identifier: string, options: ReadOptions = {}) => tableRows(catalog, identifier, options);
  const dataFiles = (identifier: string) => dataFileNames(catalog, identifier);

  it("reads every type of file.format=avro tables with each codec exactly as Java does", async () => {
    const java = await readTables("java", tables.map((t) => ({ warehouse, identifier: t.identifier, sort: true })));
    for (const [i, t] of tables.entries()) {
      const expected = java[i];
      if (expected instanceof Error) throw expected;
      expect(expected.length).toBeGreaterThan(0);
      expect(mapsSorted(await rtRows(t.identifier)), t.identifier).toEqual(mapsSorted(sortRows(expected)));
    }
    // the files are Avro (and, per level, Parquet once compacted)
    expect((await dataFiles("db.types_zstd")).every((f) => f.endsWith(".avro"))).toBe(true);
    const perLevel = await dataFiles("db.pk_level0");
    expect(perLevel.some((f) => f.endsWith(".avro"))).toBe(true);
    expect(perLevel.some((f) => f.endsWith(".parquet"))).toBe(true);
  }, SLOW);

  it("exact values: nulls, decimals, timestamps of each precision, nested types", async () => {
    const rows = await rtRows("db.types_null");
    expect(rows.find((r) => r.id === 2)).toEqual({ ...Object.fromEntries(ALL_TYPES.map((f) => [f.name, null])), ...allTypesRow(2) });
    expect(rows.find((r) => r.id === 4)).toEqual({ ...Object.fromEntries(ALL_TYPES.map((f) => [f.name, null])), id: 4, vc: "null4" });
  }, SLOW);

  it("projections and exact filters on Avro files (append and primary-key)", async () => {
    const java = await readTables("java", [{ warehouse, identifier: "db.types_snappy", sort: true }, { warehouse, identifier: "db.pk_level0", sort: true }]);
    const all = java[0] as OracleRow[];
    const projected = await rtRows("db.types_snappy", { projection: ["r", "dec38", "id"], filter: col("i").gt(0), predicateFilter: true });
    expect(mapsSorted(projected)).toEqual(mapsSorted(sortRows(all.filter((r) => (r.i as number | null) !== null && (r.i as number) > 0).map((r) => ({ r: r.r, dec38: r.dec38, id: r.id })))));
    const pk = java[1] as OracleRow[];
    const keyFiltered = await rtRows("db.pk_level0", { filter: and(col("k").ge(3), col("k").le(7)), predicateFilter: true });
    expect(keyFiltered).toEqual(sortRows(pk.filter((r) => (r.k as number) >= 3 && (r.k as number) <= 7)));
    const nested = await rtRows("db.types_snappy", { projection: ["r.y", "id"] });
    expect(nested.length).toBe(all.length);
  }, SLOW);

  it("a malformed Avro data file is CORRUPT_FILE naming the file", async () => {
    const table = await catalog.getTable("db.types_deflate");
    const plan = await table.newScan().plan();
    const split = plan.splits[0]!;
    const file = split.files[0]!;
    const filePath = path.join(warehouse, "db.db", "types_deflate", "bucket-0", file.fileName);
    const broken = Buffer.from(await fsp.readFile(filePath));
    broken.fill(0x55, broken.length - 40, broken.length - 20); // inside the last block
    await expectCorruptRead(table, plan.splits, filePath, file.fileName, [broken]);
  }, SLOW);

  it("paimon-rt continues Java's Avro tables (PK with and without DVs: writes and full compaction in Avro; append compaction) and Java reads them", async () => {
    const more = [{ k: 3, v: "rt3", n: "300" }, { k: 25, _kind: "-D" }, { k: 40, v: "rt40", n: null }];
    for (const id of ["db.pk_avro", "db.pk_dv"]) {
      await rtCommitRows(await catalog.getTable(id), PK_FIELDS, more);
      await rtCommitRows(await catalog.getTable(id), PK_FIELDS, [{ k: 41, v: "rt41", n: "41" }], { compact: true });
      expect((await dataFiles(id)).every((f) => f.endsWith(".avro")), id).toBe(true);
    }
    await rtCommitRows(await catalog.getTable("db.append_compact"), PK_FIELDS, [{ k: 5, v: "rt", n: "5" }], { compact: true });
    expect((await dataFiles("db.append_compact")).every((f) => f.endsWith(".avro"))).toBe(true);
    const ids = ["db.pk_avro", "db.pk_dv", "db.append_compact"];
    const java = await readTables("java", ids.map((identifier) => ({ warehouse, identifier, sort: true })));
    for (const [i, id] of ids.entries()) {
      const expected = java[i];
      if (expected instanceof Error) throw expected;
      expect(await rtRows(id), id).toEqual(sortRows(expected));
      if (id !== "db.append_compact") {
        expect(expected.find((r) => r.k === 3), id).toEqual({ k: 3, v: "rt3", n: "300" });
        expect(expected.some((r) => r.k === 25 || r.k === 4 || r.k === 7), id).toBe(false);
        expect(expected.find((r) => r.k === 41), id).toEqual({ k: 41, v: "rt41", n: "41" });
      } else expect(expected.length).toBe(5);
    }
  }, SLOW);
});

describe.skipIf(!!noJava)("Avro data files written by paimon-rt", () => {
  it("file.format=avro append table (every type, each codec): Java reads the rows paimon-rt wrote and filters them", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    // (ids from 1: the expected rows are the input rows, which for id 0 would hold "-0" values)
    const rows = Array.from({ length: 30 }, (_, i) => (i % 7 === 6 ? nullRow(i + 1) : allTypesRow(i + 1)));
    const codecs: Array<[string, Record<string, string>]> = [
      ["zstd", {}],
      ["snappy", { "avro.codec": "snappy" }],
      ["deflate", { "file.compression": "deflate" }],
      ["null", { "avro.codec": "null" }],
    ];
    for (const [name, options] of codecs) {
      const table = await catalog.createTable(`db.rt_${name}`, { fields: ALL_TYPES, options: { bucket: "-1", "file.format": "avro", ...options } });
      await rtCommitRows(table, ALL_TYPES, rows);
      await rtCommitRows(await catalog.getTable(`db.rt_${name}`), ALL_TYPES, [allTypesRow(100), nullRow(101)]);
    }
    const java = await readTables("java", codecs.map(([name]) => ({ warehouse, identifier: `db.rt_${name}`, sort: true })));
    for (const [i, [name]] of codecs.entries()) {
      const files = await dataFileNames(catalog, `db.rt_${name}`);
      expect(files.length).toBe(2);
      expect(files.every((f) => f.endsWith(".avro")), name).toBe(true);
      const expected = java[i];
      if (expected instanceof Error) throw expected;
      expect(mapsSorted(expected), name).toEqual(mapsSorted(sortRows([...rows, allTypesRow(100), nullRow(101)].map((r) => ({ ...Object.fromEntries(ALL_TYPES.map((f) => [f.name, null])), ...r })))));
    }
    // the codec is the one asked for
    const head = async (name: string) => {
      const f = (await dataFileNames(catalog, `db.rt_${name}`))[0]!;
      return (await fsp.readFile(path.join(warehouse, "db.db", `rt_${name}`, "bucket-0", f))).toString("latin1");
    };
    expect(await head("zstd")).toContain("zstandard");
    expect(await head("snappy")).toContain("snappy");
    expect(await head("deflate")).toContain("deflate");
    // value stats as Java collects them: Java prunes by them
    const filtered = await readTables("java", [{ warehouse, identifier: "db.rt_zstd", filters: [["i", "<", -6900000]], sort: true, executeFilter: true }]);
    expect((filtered[0] as OracleRow[]).map((r) => r.id)).toEqual([100]);
  }, SLOW);

  it("file.format.per.level=0:avro primary-key table: paimon-rt writes level 0 in Avro, compacts into Parquet; Java reads it, and paimon-rt continues a Java table", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const options = { bucket: "1", "file.format.per.level": "0:avro" };
    await catalog.createTable("db.rt_pk", { fields: PK_FIELDS, primaryKeys: ["k"], options });
    await writeTables("java", warehouse, [{ identifier: "db.java_pk", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options, commits: pkCommits() } }]);
    for (const c of pkCommits()) {
      const rows = Array.isArray(c) ? c : c.rows;
      await rtCommitRows(await catalog.getTable("db.rt_pk"), PK_FIELDS, rows, { compact: !Array.isArray(c) && c.compact });
    }
    // continue the Java table: more rows in Avro at level 0, then a full compaction (Parquet)
    await rtCommitRows(await catalog.getTable("db.java_pk"), PK_FIELDS, [{ k: 8, v: "rt8", n: "8" }, { k: 9, _kind: "-D" }]);
    const perLevel = await dataFileNames(catalog, "db.java_pk");
    expect(perLevel.filter((f) => f.endsWith(".avro")).length).toBeGreaterThan(0);
    await rtCommitRows(await catalog.getTable("db.java_pk"), PK_FIELDS, [{ k: 10, v: "rt10", n: null }], { compact: true });
    expect((await dataFileNames(catalog, "db.java_pk")).every((f) => f.endsWith(".parquet"))).toBe(true);
    const rtFiles = await dataFileNames(catalog, "db.rt_pk");
    expect(rtFiles.some((f) => f.endsWith(".avro")) && rtFiles.some((f) => f.endsWith(".parquet"))).toBe(true);
    const java = await readTables("java", [{ warehouse, identifier: "db.rt_pk", sort: true }, { warehouse, identifier: "db.java_pk", sort: true }]);
    const expectedRt = java[0] as OracleRow[];
    expect(await tableRows(catalog, "db.rt_pk")).toEqual(sortRows(expectedRt));
    expect(expectedRt.find((r) => r.k === 6)).toEqual({ k: 6, v: "e6", n: "61" });
    expect(expectedRt.some((r) => r.k === 4 || r.k === 7)).toBe(false);
    const expectedJava = java[1] as OracleRow[];
    expect(await tableRows(catalog, "db.java_pk")).toEqual(sortRows(expectedJava));
    expect(expectedJava.find((r) => r.k === 10)).toEqual({ k: 10, v: "rt10", n: null });
    expect(expectedJava.some((r) => r.k === 9)).toBe(false);
    if (!noPython) {
      // pypaimon 2.1.0 reads Avro data files too
      const py = await readTables("pypaimon", [{ warehouse, identifier: "db.rt_pk", sort: true }]);
      if (py[0] instanceof Error) throw py[0];
      expect(sortRows(py[0]!)).toEqual(sortRows(expectedRt));
    }
  }, SLOW);
});

describe.skipIf(!!noJava)("Avro data file statistics", () => {
  it("the manifest's value stats (min, max, null counts) of an Avro file are Java's for the same rows", async () => {
    const warehouse = tempDir();
    // (not vacuous: Java keeps bounds and null counts for Avro files)
    const { java } = await expectJavaValueStats(warehouse, "avro");
    expect(java.min.replace(/0/g, "").length).toBeGreaterThan(100);
  }, SLOW);
});

describe.skipIf(!!noJava)("Java's postpone-bucket files (Avro KV files, sequence numbers -1)", () => {
  it("paimon-rt's postpone compaction reads Java's Avro postpone files into buckets; Java reads the result", async () => {
    const warehouse = tempDir();
    const commits = [
      [{ k: 1, v: "a", n: "1" }, { k: 2, v: "b", n: "2" }, { k: 3, v: "c", n: null }],
      [{ k: 2, v: "b2", n: "22" }, { k: 3, _kind: "-D" }, { k: 4, v: null, n: "4" }],
    ];
    await writeTables("java", warehouse, [{ identifier: "db.postpone", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "-2" }, commits } }]);
    const catalog = await Catalog.open(warehouse);
    const postponed = await fsp.readdir(path.join(warehouse, "db.db", "postpone", "bucket-postpone"));
    expect(postponed.filter((f) => f.endsWith(".avro")).length).toBe(2);
    await rtCommitRows(await catalog.getTable("db.postpone"), PK_FIELDS, [], { compact: true });
    const expected = [{ k: 1, v: "a", n: "1" }, { k: 2, v: "b2", n: "22" }, { k: 4, v: null, n: "4" }];
    expect(await tableRows(catalog, "db.postpone")).toEqual(sortRows(expected));
    const java = await readTables("java", [{ warehouse, identifier: "db.postpone", sort: true }]);
    expect(java[0]).toEqual(sortRows(expected));
  }, SLOW);
});

const noPython = pypaimonUnavailable();
