/**
 * ORC data files written by Java Paimon 1.4.2 (`file.format=orc`, `file.format.per.level=0:orc`)
 * read by paimon-rt exactly as Java reads them, and ORC files paimon-rt writes read by Java: every type Java writes in ORC (with nulls,
 * decimals of each size, timestamps of precisions 0..9, nested rows, arrays and maps), each
 * compression (zstd, zlib, snappy, lz4, none), small stripes (several per file) and enough rows
 * for every integer RLE v2 sub-encoding and for dictionary and direct strings, ORC 0.11 files
 * (`orc.write.format`: integer RLE v1); schema evolution by field id; primary-key tables
 * merged on read across ORC and Parquet levels, deletion vectors on ORC files, projections and
 * filters; CORRUPT_FILE for damaged files. Skips with a printed reason when
 * scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { loadOrcReader, readWholeDataFile } from "../../src/format/file-formats.js";
import { arrowToRows } from "./convert.js";
import { rtCommitRows } from "./rt-commit.js";
import { and, bindPredicate, col, type Predicate } from "../../src/predicate/predicate.js";
import { tempDirs } from "../support/temp-dirs.js";
import { ALL_TYPES, allTypesRow, dataFileNames, expectCorruptRead, expectJavaValueStats, nullRow, onlyFileStats, PK_FIELDS, pkCommits, type ReadOptions, tableRows } from "./data-file-rows.js";
import { javaOracleUnavailable, type OracleRow, pypaimonUnavailable, readTables, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping orc-data interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-orc-data-interop-");

/** ALL_TYPES and what ORC holds beyond Avro: nanosecond timestamps, RLE-friendly columns, dictionary strings. */
const ORC_TYPES = [
  ...ALL_TYPES,
  { name: "ts9", type: "TIMESTAMP(9)" },
  { name: "ltz9", type: "TIMESTAMP_LTZ(9)" },
  { name: "ts0b", type: "TIMESTAMP(0)" },
  { name: "seq", type: "BIGINT" },
  { name: "patched", type: "BIGINT" },
  { name: "rep", type: "INT" },
  { name: "dict", type: "STRING" },
  { name: "long_s", type: "STRING" },
  { name: "dec_small", type: "DECIMAL(10, 3)" },
  // (Java writes MULTISET<E> in ORC as MAP<E, INT NOT NULL>; it cannot in Avro)
  { name: "mset", type: "MULTISET<STRING>" },
];

const ROWS = 2500;

function orcRow(id: number): OracleRow {
  const base = id % 97 === 5 ? nullRow(id) : allTypesRow(id);
  const neg = id % 2 === 0 ? -1 : 1;
  return {
    ...base,
    ts9: id % 11 === 3 ? null : String(BigInt(neg) * 1704067200123456789n + BigInt(id)),
    ltz9: String(1704067200123456789n - BigInt(id) * 1000000007n),
    // a second between -1 and 0 and others before 1970: Java's ORC writer truncates their seconds
    ts0b: String(BigInt(id % 5 - 2) * 1000000000n),
    // delta runs (monotonic), short repeats, patched base (a few outliers among small values), 64-bit values
    seq: String(1000000 + id * 3),
    patched: String(id % 61 === 0 ? 9007199254740993n * BigInt(id % 3 === 0 ? -1 : 1) : BigInt(id % 13)),
    rep: Math.floor(id / 7) % 3 === 0 ? 42 : id % 17 === 0 ? null : id * 1000,
    dict: `d${id % 6}`,
    long_s: id % 3 === 0 ? null : `${"long string ".repeat(20)}${id}`,
    dec_small: id % 4 === 0 ? "12.500" : `${neg < 0 ? "-" : ""}${id}.001`,
    mset: id % 9 === 0 ? null : [[`m${id % 4}`, 1 + (id % 3)]],
  };
}

const ORC_OPTIONS = {
  bucket: "-1",
  "file.format": "orc",
  // small stripes: several per file
  "orc.stripe.row.count": "400",
  "write.batch-size": "100",
};

const COMPRESSIONS = ["zstd", "zlib", "snappy", "lz4", "none"];

/** Rows of the Java tables with row indexes: 2 stripes of 3 row groups. */
const INDEXED_ROWS = 6000;

describe.skipIf(!!noJava)("ORC data files written by Java Paimon", () => {
  let warehouse = "";
  let catalog: Catalog;
  const tables: Array<{ identifier: string; spec: Parameters<typeof writeTables>[2][number]["spec"] }> = [];
  for (const compression of COMPRESSIONS) {
    tables.push({
      identifier: `db.types_${compression}`,
      spec: { fields: ORC_TYPES, options: { ...ORC_OPTIONS, "file.compression": compression }, commits: [Array.from({ length: ROWS }, (_, i) => orcRow(i)), [orcRow(ROWS), { ...nullRow(ROWS + 1), seq: "1" }]] },
    });
  }
  // ORC 0.11 files: integer RLE v1, DIRECT and DICTIONARY (v1) encodings
  tables.push({ identifier: "db.types_v011", spec: { fields: ORC_TYPES, options: { ...ORC_OPTIONS, "orc.write.format": "0.11" }, commits: [Array.from({ length: 600 }, (_, i) => orcRow(i))] } });
  // stripes of 3000 rows with row indexes of 1000-row groups, 4 KiB compression chunks
  for (const compression of ["zstd", "none"]) {
    const options = { ...ORC_OPTIONS, "orc.stripe.row.count": "3000", "orc.row.index.stride": "1000", "orc.compress.size": "4096", "file.compression": compression };
    tables.push({ identifier: `db.indexed_${compression}`, spec: { fields: ORC_TYPES, options, commits: [Array.from({ length: INDEXED_ROWS }, (_, i) => orcRow(i))] } });
  }
  tables.push({ identifier: "db.pk_level0", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "2", "file.format.per.level": "0:orc" }, commits: pkCommits() } });
  tables.push({ identifier: "db.pk_orc", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "1", "file.format": "orc" }, commits: pkCommits() } });
  tables.push({ identifier: "db.pk_dv", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "1", "file.format": "orc", "deletion-vectors.enabled": "true" }, commits: pkCommits() } });

  beforeAll(async () => {
    warehouse = tempDir();
    await writeTables("java", warehouse, tables);
    catalog = await Catalog.open(warehouse);
  }, SLOW);

  const rtRows = (identifier: string, options: ReadOptions = {}) => tableRows(catalog, identifier, options);
  const dataFiles = (identifier: string) => dataFileNames(catalog, identifier);

  /** The bytes of the table's largest data file. */
  async function largestFile(identifier: string): Promise<Buffer> {
    const table = await catalog.getTable(identifier);
    const files = (await table.newScan().plan()).splits.flatMap((s) => s.files);
    const file = files.reduce((a, b) => (b.rowCount > a.rowCount ? b : a));
    return fsp.readFile(path.join(warehouse, "db.db", identifier.split(".")[1]!, "bucket-0", file.fileName));
  }

  it("reads every type of file.format=orc tables with each compression exactly as Java does", async () => {
    const java = await readTables("java", tables.map((t) => ({ warehouse, identifier: t.identifier, sort: true })));
    for (const [i, t] of tables.entries()) {
      const expected = java[i];
      if (expected instanceof Error) throw expected;
      expect(expected.length).toBeGreaterThan(0);
      expect(await rtRows(t.identifier), t.identifier).toEqual(sortRows(expected));
    }
    expect((await dataFiles("db.types_zstd")).every((f) => f.endsWith(".orc"))).toBe(true);
    const perLevel = await dataFiles("db.pk_level0");
    expect(perLevel.some((f) => f.endsWith(".orc"))).toBe(true);
    expect(perLevel.some((f) => f.endsWith(".parquet"))).toBe(true);
  }, SLOW);

  it("the files are ORC with the compression asked for and several stripes", async () => {
    const orc = await loadOrcReader();
    for (const compression of COMPRESSIONS) {
      const tail = await orc.readOrcTail(await largestFile(`db.types_${compression}`));
      expect(orc.CODECS[tail.compression], compression).toBe(compression);
      expect(tail.stripes.length, compression).toBeGreaterThan(3);
    }
  }, SLOW);

  it("exact values: nulls, decimals, timestamps of each precision, nested types", async () => {
    const rows = await rtRows("db.types_none");
    const nulls = Object.fromEntries(ORC_TYPES.map((f) => [f.name, null]));
    expect(rows.find((r) => r.id === 2)).toEqual({ ...nulls, ...orcRow(2) });
    expect(rows.find((r) => r.id === 5)).toEqual({ ...nulls, ...orcRow(5) });
    expect(rows.find((r) => r.id === 5)!.dec38).toBe(null);
    expect(rows.length).toBe(ROWS + 2);
  }, SLOW);

  it("projections and exact filters on ORC files (append and primary-key)", async () => {
    const java = await readTables("java", [{ warehouse, identifier: "db.types_snappy", sort: true }, { warehouse, identifier: "db.pk_level0", sort: true }]);
    const all = java[0] as OracleRow[];
    const projected = await rtRows("db.types_snappy", { projection: ["r", "dec38", "id", "dict"], filter: col("i").gt(0), predicateFilter: true });
    expect(projected).toEqual(sortRows(all.filter((r) => (r.i as number | null) !== null && (r.i as number) > 0).map((r) => ({ r: r.r, dec38: r.dec38, id: r.id, dict: r.dict }))));
    const pk = java[1] as OracleRow[];
    const keyFiltered = await rtRows("db.pk_level0", { filter: and(col("k").ge(3), col("k").le(7)), predicateFilter: true });
    expect(keyFiltered).toEqual(sortRows(pk.filter((r) => (r.k as number) >= 3 && (r.k as number) <= 7)));
    const nested = await rtRows("db.types_snappy", { projection: ["r.y", "id"] });
    expect(nested.length).toBe(all.length);
    expect(nested.find((r) => r.id === 3)).toEqual({ id: 3, "r.y": "y3" });
  }, SLOW);

  it("exact filters skip the stripes whose statistics rule them out (integers, floats, strings)", async () => {
    const orc = await loadOrcReader();
    const java = (await readTables("java", [{ warehouse, identifier: "db.types_none", sort: true }]))[0] as OracleRow[];
    const cases: Array<[Predicate, (r: OracleRow) => boolean]> = [
      [and(col("seq").ge(1000000n + 3n * 1000n), col("seq").lt(1000000n + 3n * 1025n)), (r) => BigInt(r.seq as string) >= 1000000n + 3000n && BigInt(r.seq as string) < 1000000n + 3075n],
      [col("f").lt(9), (r) => r.f !== null && (r.f as number) < 9],
      [col("vc").gt("v9"), (r) => (r.vc as string) > "v9"],
    ];
    for (const [c, [filter, keep]] of cases.entries()) {
      const before = { ...orc.orcReadCounters };
      const rows = await rtRows("db.types_none", { projection: ["id", "seq"], filter, predicateFilter: true });
      expect(rows, `case ${c}`).toEqual(sortRows(java.filter(keep).map((r) => ({ id: r.id, seq: r.seq }))));
      expect(orc.orcReadCounters.stripesPruned - before.stripesPruned, `case ${c}`).toBeGreaterThan(0);
    }
    // a 1% range read decodes only the stripe(s) holding it
    const before = { ...orc.orcReadCounters };
    await rtRows("db.types_none", { filter: and(col("id").ge(1000), col("id").lt(1025)), predicateFilter: true });
    expect(orc.orcReadCounters.stripesRead - before.stripesRead).toBeLessThanOrEqual(2);
    expect(orc.orcReadCounters.stripesPruned - before.stripesPruned).toBeGreaterThan(3);
  }, SLOW);

  it("exact filters skip row groups by Java's row indexes (runs crossing group starts, compressed and not); a pruned read returns the rows Java's pruned read returns", async () => {
    const orc = await loadOrcReader();
    const seq = (id: number) => 1000000n + 3n * BigInt(id);
    // ids 0..5999 ascend: stripes [0, 3000), [3000, 6000), row groups of 1000
    type JavaFilters = NonNullable<Parameters<typeof readTables>[1][number]["filters"]>;
    const cases: Array<[Predicate, (r: OracleRow) => boolean, number, JavaFilters]> = [
      [and(col("seq").ge(seq(4200)), col("seq").lt(seq(4300))), (r) => BigInt(r.seq as string) >= seq(4200) && BigInt(r.seq as string) < seq(4300), 2, [["seq", ">=", Number(seq(4200))], ["seq", "<", Number(seq(4300))]]],
      [col("id").lt(1500), (r) => (r.id as number) < 1500, 1, [["id", "<", 1500]]],
      // (floats prune by lt / le only: a NaN row may satisfy the others)
      [col("f").lt(999.5), (r) => r.f !== null && (r.f as number) < 999.5, 2, [["f", "<", 999.5]]],
    ];
    for (const compression of ["zstd", "none"]) {
      const identifier = `db.indexed_${compression}`;
      const bytes = new Uint8Array(await largestFile(identifier));
      const tail = await orc.readOrcTail(bytes);
      expect([tail.rowIndexStride, tail.stripes.map((s) => s.rows)], compression).toEqual([1000, [3000, 3000]]);
      const java = await readTables("java", [
        { warehouse, identifier, sort: true },
        ...cases.map(([, , , filters]) => ({ warehouse, identifier, sort: true, filters })),
      ]);
      const all = java[0] as OracleRow[];
      const table = await catalog.getTable(identifier);
      for (const [c, [filter, keep, groupsPruned]] of cases.entries()) {
        const before = { ...orc.orcReadCounters };
        const rows = await rtRows(identifier, { filter, predicateFilter: true });
        expect(rows, `${compression} case ${c}`).toEqual(sortRows(all.filter(keep)));
        expect(orc.orcReadCounters.rowGroupsPruned - before.rowGroupsPruned, `${compression} case ${c}`).toBe(groupsPruned);
        expect(orc.orcReadCounters.stripesPruned - before.stripesPruned, `${compression} case ${c}`).toBe(1);
        // the file read with the filter but without row filtering: the rows of the row groups kept,
        // as Java's reader returns them (its search argument over the same row index)
        let skipped = 0;
        const read: OracleRow[] = [];
        const bound = bindPredicate(filter, table.schema.fields);
        for await (const b of readWholeDataFile(Promise.resolve(bytes), { fields: table.schema.fields, batchSize: 700, fileName: "data-x.orc", filter: bound, onSkip: (n) => (skipped += n) })) read.push(...arrowToRows(b));
        expect(sortRows(read), `${compression} case ${c}`).toEqual(java[c + 1]);
        expect(skipped + read.length).toBe(INDEXED_ROWS);
        expect(read.length % 1000, `${compression} case ${c}`).toBe(0);
      }
    }
  }, SLOW);

  it("a pruned stripe's rows are reported to onSkip (row positions for deletion vectors)", async () => {
    const table = await catalog.getTable("db.types_none");
    const bytes = new Uint8Array(await largestFile("db.types_none"));
    const tail = await (await loadOrcReader()).readOrcTail(bytes);
    const total = tail.stripes.reduce((n, s) => n + s.rows, 0);
    let skipped = 0;
    let read = 0;
    const fields = table.schema.fields.filter((f) => f.name === "id");
    const filter = bindPredicate(col("id").ge(2000), table.schema.fields);
    for await (const b of readWholeDataFile(Promise.resolve(bytes), { fields, batchSize: 1000, fileName: "data-x.orc", filter, onSkip: (n) => (skipped += n) })) read += b.numRows;
    expect(skipped).toBeGreaterThan(0);
    expect(skipped + read).toBe(total);
    // the stripes skipped are exactly those before the first holding id 2000 (ids ascend)
    expect(skipped).toBe(tail.stripes.slice(0, tail.stripes.findIndex((_, i) => tail.stripes.slice(0, i + 1).reduce((n, s) => n + s.rows, 0) > 2000)).reduce((n, s) => n + s.rows, 0));
  }, SLOW);

  it("schema evolution: columns by field id under new names, added columns null, widened types cast; batches of the batch size", async () => {
    const table = await catalog.getTable("db.types_none");
    const fileFields = table.schema.fields;
    const byName = (n: string) => fileFields.find((f) => f.name === n)!;
    const fields = [
      { ...byName("dec38"), name: "dec38_new" },
      { ...byName("i"), name: "i_long", type: { kind: "BIGINT" as const, nullable: true } },
      { id: 999, name: "added", type: { kind: "INT" as const, nullable: true } },
      { ...byName("id"), name: "key" },
      { ...byName("dict"), name: "dict2" },
    ];
    const bytes = await largestFile("db.types_none");
    const batches = [];
    for await (const b of readWholeDataFile(Promise.resolve(new Uint8Array(bytes)), { fields, fileFields, batchSize: 300, fileName: "data-x.orc" })) batches.push(b);
    expect(batches.length).toBeGreaterThan(3);
    expect(batches.every((b) => b.numRows <= 300)).toBe(true);
    const rows = batches.flatMap((b) => arrowToRows(b));
    const original = new Map((await rtRows("db.types_none")).map((r) => [r.id, r]));
    expect(rows.length).toBeGreaterThan(1000);
    for (const r of rows) {
      const o = original.get(r.key)!;
      expect(r).toEqual({ dec38_new: o.dec38, i_long: o.i === null ? null : String(o.i), added: null, key: o.id, dict2: o.dict });
    }
  }, SLOW);

  it("a damaged ORC data file is CORRUPT_FILE naming the file; nothing else changes", async () => {
    const table = await catalog.getTable("db.types_zlib");
    const plan = await table.newScan().plan();
    const file = plan.splits[0]!.files[0]!;
    const filePath = path.join(warehouse, "db.db", "types_zlib", "bucket-0", file.fileName);
    const bytes = await fsp.readFile(filePath);
    const damaged = [
      bytes.subarray(0, bytes.length - 30), // truncated: no postscript
      Buffer.concat([bytes.subarray(0, 3000), Buffer.alloc(200, 0x55), bytes.subarray(3200)]), // inside the stripes
      Buffer.alloc(0),
    ];
    await expectCorruptRead(table, plan.splits, filePath, file.fileName, damaged);
    expect((await rtRows("db.types_zlib")).length).toBe(ROWS + 2);
  }, SLOW);

  it("randomly flipped bytes: rows or CORRUPT_FILE naming the file, no crash or hang", async () => {
    const table = await catalog.getTable("db.types_zlib");
    const bytes = new Uint8Array(await largestFile("db.types_zlib"));
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const outcomes = { rows: 0, corrupt: 0 };
    for (let trial = 0; trial < 60; trial++) {
      const broken = bytes.slice();
      for (let k = 0; k < 1 + (trial % 4); k++) broken[random(broken.length)] ^= 1 << random(8);
      try {
        for await (const b of readWholeDataFile(Promise.resolve(broken), { fields: table.schema.fields, batchSize: 1000, fileName: "data-fuzz.orc" })) void b;
        outcomes.rows++;
      } catch (e) {
        expect(e, `trial ${trial}`).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code, `trial ${trial}: ${(e as Error).message}`).toBe("CORRUPT_FILE");
        expect((e as PaimonError).message).toContain("data-fuzz.orc");
        outcomes.corrupt++;
      }
    }
    expect(outcomes.corrupt).toBeGreaterThan(10);
  }, SLOW);
});

describe.skipIf(!!noJava)("ORC timestamps written by Java in other time zones", () => {
  const FIELDS = [
    { name: "id", type: "INT" },
    { name: "ts3", type: "TIMESTAMP(3)" },
    { name: "ts9", type: "TIMESTAMP(9)" },
    { name: "ltz3", type: "TIMESTAMP_LTZ(3)" },
    { name: "ltz6", type: "TIMESTAMP_LTZ(6)" },
  ];
  // before 1970, winter and summer time, a wall clock in New York's spring-forward gap, 1950
  // (not before 1901: local mean time offsets differ between the JVM's and ICU's zone data)
  const MOMENTS = [-618105600000000000n, -1704067200123456789n, 1704067200123456789n, 1720000000987654321n, 1710037800000000000n, 1000n];
  const rows = MOMENTS.map((m, id) => ({ id, ts3: String((m / 1000000n) * 1000000n), ts9: String(m), ltz3: String((m / 1000000n) * 1000000n), ltz6: String((m / 1000n) * 1000n) }));

  it("TIMESTAMP (wall clock, DST included) and TIMESTAMP_LTZ (legacy: shifted by the writer's zone, and not) read as Java reads them in that zone", async () => {
    const warehouse = tempDir();
    const zones = ["Asia/Shanghai", "America/New_York"];
    const tables: Array<{ identifier: string; spec: { fields: typeof FIELDS; options: Record<string, string>; commits: (typeof rows)[] } }> = zones.flatMap((_, z) => [
      { identifier: `db.legacy_${z}`, spec: { fields: FIELDS, options: { bucket: "-1", "file.format": "orc" } as Record<string, string>, commits: [rows] } },
      { identifier: `db.instant_${z}`, spec: { fields: FIELDS, options: { bucket: "-1", "file.format": "orc", "orc.timestamp-ltz.legacy.type": "false" }, commits: [rows] } },
    ]);
    const java: Array<OracleRow[] | Error> = [];
    try {
      for (const [z, zone] of zones.entries()) {
        process.env.PAIMON_RT_ORACLE_JAVA_TZ = zone;
        const mine = tables.slice(2 * z, 2 * z + 2);
        await writeTables("java", warehouse, mine);
        java.push(...(await readTables("java", mine.map((t) => ({ warehouse, identifier: t.identifier, sort: true })))));
      }
    } finally {
      delete process.env.PAIMON_RT_ORACLE_JAVA_TZ;
    }
    const catalog = await Catalog.open(warehouse);
    for (const [i, t] of tables.entries()) {
      const expected = java[i];
      if (expected instanceof Error) throw expected;
      expect(await tableRows(catalog, t.identifier), t.identifier).toEqual(sortRows(expected));
    }
    // Java's rows are the input (but for the wall clock in New York's gap, which Java moves by an hour)
    expect(java[0]).toEqual(sortRows(rows));
    expect((java[2] as OracleRow[]).find((r) => r.id === 4)!.ltz3).toBe(String(1710037800000000000n + 3600000000000n));
    // (not vacuous: the legacy files hold shifted instants, which paimon-rt shifts back)
    const table = await catalog.getTable("db.legacy_0");
    const bytes = await fsp.readFile(path.join(warehouse, "db.db", "legacy_0", "bucket-0", (await dataFileNames(catalog, "db.legacy_0"))[0]!));
    const raw = [];
    for await (const b of readWholeDataFile(Promise.resolve(new Uint8Array(bytes)), { fields: table.schema.fields, batchSize: 100, fileName: "data-x.orc", timestampLtzLegacy: false })) raw.push(...arrowToRows(b));
    expect(raw.find((r) => r.id === 2)!.ltz3).toBe(String(1704067200123000000n - 8n * 3600n * 1000000000n));
    // without the table's option, a shifted column is refused rather than read wrongly
    const unknown = readWholeDataFile(Promise.resolve(new Uint8Array(bytes)), { fields: table.schema.fields, batchSize: 100, fileName: "data-x.orc" });
    await expect(unknown.next()).rejects.toMatchObject({ code: "UNSUPPORTED" });
  }, SLOW);
});

describe.skipIf(!!noJava)("ORC data files written by paimon-rt", () => {
  it("file.format=orc append tables (every type, each compression): Java reads exactly the rows paimon-rt wrote and filters them", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    // (ids from 1: the expected rows are the input rows, which for id 0 would hold "-0" values)
    // (ids up to 100: SMALLINT values of allTypesRow fit)
    const rows = Array.from({ length: 100 }, (_, i) => orcRow(i + 1));
    for (const compression of COMPRESSIONS) {
      const table = await catalog.createTable(`db.rt_${compression}`, { fields: ORC_TYPES, options: { bucket: "-1", "file.format": "orc", "file.compression": compression } });
      await rtCommitRows(table, ORC_TYPES, rows.slice(0, 70));
      await rtCommitRows(await catalog.getTable(`db.rt_${compression}`), ORC_TYPES, rows.slice(70));
    }
    const java = await readTables("java", COMPRESSIONS.map((c) => ({ warehouse, identifier: `db.rt_${c}`, sort: true })));
    const nulls = Object.fromEntries(ORC_TYPES.map((f) => [f.name, null]));
    const expected = sortRows(rows.map((r) => ({ ...nulls, ...r })));
    const orc = await loadOrcReader();
    for (const [i, compression] of COMPRESSIONS.entries()) {
      const files = await dataFileNames(catalog, `db.rt_${compression}`);
      expect(files.length).toBe(2);
      expect(files.every((f) => f.endsWith(".orc")), compression).toBe(true);
      const fromJava = java[i];
      if (fromJava instanceof Error) throw fromJava;
      expect(fromJava, compression).toEqual(expected);
      expect(await tableRows(catalog, `db.rt_${compression}`), compression).toEqual(expected);
      const bytes = new Uint8Array(await fsp.readFile(path.join(warehouse, "db.db", `rt_${compression}`, "bucket-0", files[0]!)));
      const tail = await orc.readOrcTail(bytes);
      expect(orc.CODECS[tail.compression], compression).toBe(compression);
      // Java read dictionary strings (6 distinct of 70: DICTIONARY_V2) and direct ones
      const column = (name: string) => tail.types[0]!.subtypes[tail.types[0]!.fieldNames.indexOf(name)]!;
      const encodings = (await orc.readOrcEncodings(bytes))[0]!;
      expect([encodings[column("dict")], encodings[column("long_s")]], compression).toEqual([3, 2]);
    }
    // value stats: Java prunes files by them and filters the rows
    const filtered = await readTables("java", [{ warehouse, identifier: "db.rt_zstd", filters: [["seq", ">=", 1000000 + 3 * 80]], sort: true, executeFilter: true }]);
    expect((filtered[0] as OracleRow[]).map((r) => r.id as number).sort((a, b) => a - b)).toEqual(rows.filter((r) => Number(r.seq) >= 1000000 + 3 * 80).map((r) => r.id));
  }, SLOW);

  it("primary-key tables in ORC (all levels, level 0 only, with deletion vectors): paimon-rt writes and compacts, Java reads the result; paimon-rt continues Java's tables", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const variants: Array<[string, Record<string, string>]> = [
      ["pk_orc", { bucket: "1", "file.format": "orc" }],
      ["pk_level0", { bucket: "1", "file.format.per.level": "0:orc" }],
      ["pk_dv", { bucket: "1", "file.format": "orc", "deletion-vectors.enabled": "true" }],
    ];
    await writeTables("java", warehouse, variants.map(([name, options]) => ({ identifier: `db.java_${name}`, spec: { fields: PK_FIELDS, primaryKeys: ["k"], options, commits: pkCommits() } })));
    for (const [name, options] of variants) {
      await catalog.createTable(`db.rt_${name}`, { fields: PK_FIELDS, primaryKeys: ["k"], options });
      for (const c of pkCommits()) {
        const rows = Array.isArray(c) ? c : c.rows;
        await rtCommitRows(await catalog.getTable(`db.rt_${name}`), PK_FIELDS, rows, { compact: !Array.isArray(c) && c.compact });
      }
      await rtCommitRows(await catalog.getTable(`db.java_${name}`), PK_FIELDS, [{ k: 8, v: "rt8", n: "8" }, { k: 9, _kind: "-D" }]);
      await rtCommitRows(await catalog.getTable(`db.java_${name}`), PK_FIELDS, [{ k: 10, v: "rt10", n: null }], { compact: true });
    }
    const ids = variants.flatMap(([name]) => [`db.rt_${name}`, `db.java_${name}`]);
    const java = await readTables("java", ids.map((identifier) => ({ warehouse, identifier, sort: true })));
    for (const [i, id] of ids.entries()) {
      const expected = java[i];
      if (expected instanceof Error) throw expected;
      expect(await tableRows(catalog, id), id).toEqual(sortRows(expected));
      expect(expected.find((r) => r.k === 6), id).toEqual({ k: 6, v: "e6", n: "61" });
      expect(expected.some((r) => r.k === 4 || r.k === 7), id).toBe(false);
      if (id.startsWith("db.java_")) {
        expect(expected.find((r) => r.k === 10), id).toEqual({ k: 10, v: "rt10", n: null });
        expect(expected.some((r) => r.k === 9), id).toBe(false);
      }
    }
    expect((await dataFileNames(catalog, "db.rt_pk_orc")).every((f) => f.endsWith(".orc"))).toBe(true);
    if (!pypaimonUnavailable()) {
      // pypaimon 2.1.0 reads paimon-rt's ORC files too
      const py = await readTables("pypaimon", [{ warehouse, identifier: "db.rt_pk_orc", sort: true }]);
      if (py[0] instanceof Error) throw py[0];
      expect(sortRows(py[0]!)).toEqual(sortRows(java[0] as OracleRow[]));
    }
  }, SLOW);

  it("string statistics of values over 1024 bytes: truncated lower and upper bounds as orc-core writes them", async () => {
    const warehouse = tempDir();
    const fields = [{ name: "id", type: "INT NOT NULL" }, { name: "mixed", type: "STRING" }, { name: "long", type: "STRING" }];
    const rows = [
      { id: 1, mixed: "a", long: `${"é".repeat(600)}z${"q".repeat(10)}` },
      { id: 2, mixed: `${"€".repeat(400)}😀tail`, long: `${"b".repeat(1100)}` },
      { id: 3, mixed: null, long: `${"b".repeat(1023)}€€` },
    ];
    const options = { bucket: "1", "bucket-key": "id", "file.format": "orc" };
    await writeTables("java", warehouse, [{ identifier: "db.java_long", spec: { fields, options, commits: [rows] } }]);
    const catalog = await Catalog.open(warehouse);
    await rtCommitRows(await catalog.createTable("db.rt_long", { fields, options }), fields, rows);
    const orc = await loadOrcReader();
    const fileStats = async (identifier: string) => {
      const table = await catalog.getTable(identifier);
      const file = (await table.newScan().plan()).splits[0]!.files[0]!;
      return orc.readOrcFileStatistics(new Uint8Array(await fsp.readFile(path.join(warehouse, "db.db", identifier.split(".")[1]!, "bucket-0", file.fileName))));
    };
    const java = await fileStats("db.java_long");
    expect(java[2]!.string).toHaveProperty("upperBound");
    expect(java[3]!.string).toHaveProperty("lowerBound");
    expect(await fileStats("db.rt_long")).toEqual(java);
  }, SLOW);

  it("the manifest's value stats (min, max, null counts) of an ORC file are Java's for the same rows", async () => {
    const warehouse = tempDir();
    const { catalog } = await expectJavaValueStats(warehouse, "orc");
    // the ORC file statistics (footer; orc-core's for Java's file): those paimon-rt writes equal Java's
    const orc = await loadOrcReader();
    const fileStats = async (identifier: string) => {
      const table = await catalog.getTable(identifier);
      const file = (await table.newScan().plan()).splits[0]!.files[0]!;
      return orc.readOrcFileStatistics(new Uint8Array(await fsp.readFile(path.join(warehouse, "db.db", identifier.split(".")[1]!, "bucket-0", file.fileName))));
    };
    const [javaOrc, rtOrc] = [await fileStats("db.java_stats"), await fileStats("db.rt_stats")];
    expect(rtOrc.length).toBe(javaOrc.length);
    // (not written by paimon-rt yet: boolean bucket counts, decimal and timestamp min/max)
    const NOT_WRITTEN = ["bucket", "decimal", "timestamp"];
    const JSONish = (o: object) => JSON.parse(JSON.stringify(o, (_, v) => (typeof v === "bigint" ? `${v}n` : v)));
    for (const [i, java] of javaOrc.entries()) {
      const expected = Object.fromEntries(Object.entries(java).filter(([k]) => !NOT_WRITTEN.includes(k)));
      expect(JSONish(rtOrc[i]!), `column ${i}`).toEqual(JSONish(expected));
    }
    expect(javaOrc.filter((s) => s.int || s.string || s.double || s.date).length).toBeGreaterThan(10);
    // a primary-key table's level-0 file (stats modes per field as Java's ORC factories)
    const pkOptions = { bucket: "1", "file.format": "orc", "metadata.stats-mode": "truncate(4)" };
    const pkRows = [{ k: 2, v: "a long value", n: "5" }, { k: 1, v: null, n: null }, { k: 3, v: "zz", n: "-7" }];
    await writeTables("java", warehouse, [{ identifier: "db.java_pk_stats", spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: pkOptions, commits: [pkRows] } }]);
    await rtCommitRows(await catalog.createTable("db.rt_pk_stats", { fields: PK_FIELDS, primaryKeys: ["k"], options: pkOptions }), PK_FIELDS, pkRows);
    const javaPk = await onlyFileStats(catalog, "db.java_pk_stats");
    expect(await onlyFileStats(catalog, "db.rt_pk_stats")).toEqual(javaPk);
  }, SLOW);
});

/** orcRow with SMALLINT and DECIMAL values that fit for any id (paimon-rt checks them): those of id % 99 + 1. */
function rtOrcRow(id: number): OracleRow {
  if (id % 97 === 5) return orcRow(id);
  const small = allTypesRow((id % 99) + 1);
  const row: OracleRow = { ...orcRow(id), sm: small.sm, dec5: small.dec5, dec18: small.dec18 };
  // (no -0: the values read back are 0)
  for (const [k, v] of Object.entries(row)) if (Object.is(v, -0)) row[k] = 0;
  return row;
}

describe.skipIf(!!noJava)("ORC stripes and row indexes written by paimon-rt", () => {
  // 3200 rows: stripes of 1200 rows (row count) or of ~64 KiB (stripe size), row groups of 1000
  // rows, 4 KiB compression chunks (several per stream: positions name chunks)
  const ROWS_RT = 3200;
  const rows = Array.from({ length: ROWS_RT }, (_, i) => rtOrcRow(i + 1));
  const nulls = Object.fromEntries(ORC_TYPES.map((f) => [f.name, null]));
  const model = sortRows(rows.map((r) => ({ ...nulls, ...r })));
  const layouts: Array<[string, Record<string, string>]> = [
    ["rows_zstd", { "orc.stripe.row.count": "1200", "orc.row.index.stride": "1000", "orc.compress.size": "4096" }],
    ["rows_none", { "orc.stripe.row.count": "1200", "orc.row.index.stride": "1000", "file.compression": "none" }],
    ["size_snappy", { "orc.stripe.size": "65536", "orc.row.index.stride": "1000", "orc.compress.size": "4096", "file.compression": "snappy" }],
    ["noindex_zlib", { "orc.stripe.row.count": "1200", "orc.create.index": "false", "file.compression": "zlib" }],
  ];
  let warehouse = "";
  let catalog: Catalog;
  const fileOf = async (name: string) => {
    const files = await dataFileNames(catalog, `db.${name}`);
    expect(files.length).toBe(1);
    return new Uint8Array(await fsp.readFile(path.join(warehouse, "db.db", name, "bucket-0", files[0]!)));
  };

  beforeAll(async () => {
    warehouse = tempDir();
    catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    for (const [name, options] of layouts) {
      const table = await catalog.createTable(`db.${name}`, { fields: ORC_TYPES, options: { bucket: "-1", "file.format": "orc", ...options } });
      await rtCommitRows(table, ORC_TYPES, rows);
    }
  }, SLOW);

  it("files of several stripes (row count or size) with row indexes: Java reads every row exactly, and so does paimon-rt", async () => {
    const orc = await loadOrcReader();
    const java = await readTables("java", layouts.map(([name]) => ({ warehouse, identifier: `db.${name}`, sort: true })));
    for (const [i, [name]] of layouts.entries()) {
      const fromJava = java[i];
      if (fromJava instanceof Error) throw fromJava;
      expect(fromJava, name).toEqual(model);
      expect(await tableRows(catalog, `db.${name}`), name).toEqual(model);
      const tail = await orc.readOrcTail(await fileOf(name));
      if (name.startsWith("size")) expect(tail.stripes.length, name).toBeGreaterThan(2);
      else expect(tail.stripes.map((s) => s.rows), name).toEqual([1200, 1200, 800]);
      expect(tail.rowIndexStride, name).toBe(name.startsWith("noindex") ? 0 : 1000);
      expect(tail.stripes.every((s) => (s.indexLength > 0) === !name.startsWith("noindex")), name).toBe(true);
    }
  }, SLOW);

  it("Java skips row groups by paimon-rt's row index: a filtered read without row filtering returns exactly the kept row groups, every column exact", async () => {
    // ids 1..3200 ascend; stripes [1, 1200], [1201, 2400], [2401, 3200], row groups [1, 1000],
    // [1001, 1200], [1201, 2200], [2201, 2400], [2401, 3200]: id >= 2300 keeps the last two (without
    // the row index Java would return all of stripe 2)
    const requests = layouts.map(([name]) => ({ warehouse, identifier: `db.${name}`, filters: [["id", ">=", 2300]] as Array<[string, ">=", unknown]>, sort: true }));
    const java = await readTables("java", requests);
    const fromRows = (first: number) => model.filter((r) => (r.id as number) >= first);
    expect(java[0], "rows_zstd").toEqual(fromRows(2201));
    expect(java[1], "rows_none").toEqual(fromRows(2201));
    // stripes by size: a suffix of whole row groups, some skipped
    const bySize = java[2] as OracleRow[];
    const first = bySize[0]!.id as number;
    expect(first).toBeGreaterThan(1);
    expect(first).toBeLessThanOrEqual(2300);
    expect(bySize).toEqual(fromRows(first));
    // (without a row index orc-core applies no search argument at all: every row comes back)
    expect(java[3], "noindex_zlib").toEqual(model);
    // integer, float and string filters on the row groups' statistics; with row filtering exactly the matching rows
    const more = await readTables("java", [
      { warehouse, identifier: "db.rows_zstd", filters: [["seq", "<", 1000000 + 3 * 900]], sort: true },
      { warehouse, identifier: "db.rows_zstd", filters: [["f", ">", 2300.5]], sort: true },
      { warehouse, identifier: "db.rows_zstd", filters: [["vc", "=", "v3150"]], sort: true, executeFilter: true },
    ]);
    expect(more[0]).toEqual(model.filter((r) => (r.id as number) <= 1000));
    expect(more[1]).toEqual(fromRows(2201));
    expect(more[2]).toEqual(model.filter((r) => r.vc === "v3150"));
    // paimon-rt prunes its own files the same way: the file read with the filter but without row
    // filtering returns exactly Java's rows (with a row index); with row filtering exactly the matching rows
    const orc = await loadOrcReader();
    for (const [i, [name]] of layouts.entries()) {
      const table = await catalog.getTable(`db.${name}`);
      const filter = col("id").ge(2300);
      const before = { ...orc.orcReadCounters };
      const read: OracleRow[] = [];
      let skipped = 0;
      for await (const b of readWholeDataFile(Promise.resolve(await fileOf(name)), { fields: table.schema.fields, batchSize: 500, fileName: "data-x.orc", filter: bindPredicate(filter, table.schema.fields), onSkip: (n) => (skipped += n) })) read.push(...arrowToRows(b));
      // (without a row index paimon-rt still skips stripes by their statistics; Java does not)
      expect(sortRows(read), name).toEqual(name.startsWith("noindex") ? fromRows(1201) : java[i]);
      expect(skipped + read.length, name).toBe(ROWS_RT);
      if (name.startsWith("rows")) expect([orc.orcReadCounters.stripesPruned - before.stripesPruned, orc.orcReadCounters.rowGroupsPruned - before.rowGroupsPruned], name).toEqual([1, 1]);
      expect(await tableRows(catalog, `db.${name}`, { filter, predicateFilter: true }), name).toEqual(fromRows(2300));
    }
  }, SLOW);
});
