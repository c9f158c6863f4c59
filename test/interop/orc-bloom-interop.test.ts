/**
 * ORC bloom filters (`orc.bloom.filter.columns`, `orc.bloom.filter.fpp`,
 * `orc.bloom.filter.write.version`): paimon-rt writes the bits orc-core 1.9 writes for the same
 * rows and options (the Java oracle's `orc-bloom` dumps each file's bloom filters as orc-core
 * reads them), its hash functions are orc-core's (`orc-hash`), Java reads paimon-rt's
 * bloom-filtered files and skips their row groups by them, and paimon-rt skips the row groups of
 * Java's files and its own by them: exact rows. Skips with a printed reason when
 * scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { loadOrcReader, readWholeDataFile } from "../../src/format/file-formats.js";
import { murmur3Hash64, orcDoubleHash, orcLongHash } from "../../src/format/orc-bloom.js";
import { bindPredicate, col, or, type Predicate } from "../../src/predicate/predicate.js";
import { arrowToRows } from "./convert.js";
import { ALL_TYPES, allTypesRow, dataFileNames, nullRow, tableRows } from "./data-file-rows.js";
import { javaOracleUnavailable, type OracleRow, readTables, runJavaOracle, sortRows, writeTables } from "./oracle/harness.js";
import { rtCommitRows } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping orc-bloom interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-orc-bloom-interop-");

const FIELDS = [...ALL_TYPES, { name: "ts9", type: "TIMESTAMP(9)" }, { name: "dec_small", type: "DECIMAL(10, 3)" }, { name: "grp", type: "INT" }];

/** allTypesRow with values every type holds for any id (SMALLINT, DECIMAL(5, 2), DECIMAL(18, 4) of id % 99 + 1), timestamps around 1970 and before, and a group number. */
function bloomRow(id: number): OracleRow {
  if (id % 97 === 5) return { ...nullRow(id), grp: Math.floor(id / 1000) };
  const small = allTypesRow((id % 99) + 1);
  const neg = id % 2 === 0 ? -1 : 1;
  const row: OracleRow = {
    ...allTypesRow(id),
    sm: small.sm,
    dec5: small.dec5,
    dec18: small.dec18,
    ts9: String(BigInt(neg) * 1704067200123456789n + BigInt(id) * 1000000007n),
    // (seconds between -1 and 0, whole values, trailing zeros: orc-core's timestamp and decimal hashing)
    ts6: String(BigInt(id % 7 - 3) * 400000123000n),
    dec_small: id % 4 === 0 ? "12.500" : id % 4 === 1 ? `${neg < 0 ? "-" : ""}${id}.001` : id % 4 === 2 ? `${id}.000` : "0.000",
    grp: Math.floor(id / 1000),
  };
  for (const [k, v] of Object.entries(row)) if (Object.is(v, -0)) row[k] = 0;
  return row;
}

const ROWS = 2600;
const rows = Array.from({ length: ROWS }, (_, i) => bloomRow(i + 1));
const nulls = Object.fromEntries(FIELDS.map((f) => [f.name, null]));
const model = sortRows(rows.map((r) => ({ ...nulls, ...r })));

/** Stripes of 2000 rows, row groups of 1000 (2 + 1 groups), 4 KiB chunks. */
const LAYOUT = { bucket: "-1", "file.format": "orc", "orc.stripe.row.count": "2000", "orc.row.index.stride": "1000", "orc.compress.size": "4096", "write.batch-size": "100" };

/** Bloom filter option sets: every column at the default fpp; named columns (any case, nested, unknown names) at 0.05, both versions, uncompressed. */
const VARIANTS: Array<[string, Record<string, string>]> = [
  ["all", { "orc.bloom.filter.columns": "*" }],
  ["named", { "orc.bloom.filter.columns": "ID, S,vc,c,by,l,t,sm,i,f,d,dt,tm,ts0,ts3,ts6,ts9,ltz3,ltz6,dec5,dec18,dec38,dec_small,r.y,arr,nope,ms.x", "orc.bloom.filter.fpp": "0.05", "file.compression": "none" }],
  ["original", { "orc.bloom.filter.columns": "id,s,l,d,ts3,dec38", "orc.bloom.filter.write.version": "original", "orc.bloom.filter.fpp": "0.2", "file.compression": "none" }],
];

interface BloomLine {
  stripe: number;
  column: number;
  group: number;
  kind: string;
  functions: number;
  bits: string;
}

async function bloomDump(file: string): Promise<BloomLine[]> {
  return (await runJavaOracle(["orc-bloom", file])).trim().split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as BloomLine);
}

describe.skipIf(!!noJava)("ORC bloom filters: paimon-rt's and orc-core's", () => {
  let warehouse = "";
  let catalog: Catalog;
  const fileOf = async (name: string) => {
    const files = await dataFileNames(catalog, `db.${name}`);
    expect(files.length).toBe(1);
    return path.join(warehouse, "db.db", name, "bucket-0", files[0]!);
  };

  beforeAll(async () => {
    warehouse = tempDir();
    await writeTables("java", warehouse, VARIANTS.map(([name, options]) => ({ identifier: `db.java_${name}`, spec: { fields: FIELDS, options: { ...LAYOUT, ...options }, commits: [rows] } })));
    catalog = await Catalog.open(warehouse);
    for (const [name, options] of VARIANTS) {
      const table = await catalog.createTable(`db.rt_${name}`, { fields: FIELDS, options: { ...LAYOUT, ...options } });
      await rtCommitRows(table, FIELDS, rows);
    }
  }, SLOW);

  it("orc-core's hash functions: Murmur3 64 of bytes, getLongHash of longs and doubles' bits", async () => {
    const hexes = ["", "61", "6162", "616263646566", "6162636465666768", "616263646566676869", "00ff80", "e282ac f09f9880 73747269 6e672d31 2d", "0102030405060708090a0b0c0d0e0f1011"].map((h) => h.replaceAll(" ", ""));
    const longs = ["0", "1", "-1", "42", "-42", "9223372036854775807", "-9223372036854775808", "1704067200123", "-19000", "4294967296"];
    const doubles = ["0.0", "-0.0", "1.5", "-1.25E10", "NaN", "Infinity", "3.4028234663852886E38", "1001.5"];
    const [bytesOut, longsOut, doublesOut] = await Promise.all([runJavaOracle(["orc-hash", "bytes", ...hexes]), runJavaOracle(["orc-hash", "long", ...longs]), runJavaOracle(["orc-hash", "double", ...doubles])]);
    const signed = (v: bigint) => BigInt.asIntN(64, v).toString();
    expect(hexes.map((h) => signed(murmur3Hash64(Buffer.from(h, "hex"))))).toEqual(bytesOut.trim().split("\n"));
    expect(longs.map((v) => signed(orcLongHash(BigInt(v))))).toEqual(longsOut.trim().split("\n"));
    expect(doubles.map((v) => signed(orcDoubleHash(Number(v))))).toEqual(doublesOut.trim().split("\n"));
  }, SLOW);

  it("paimon-rt writes the bloom filters orc-core writes for the same rows and options: every stream, column, row group and bit", async () => {
    for (const [name] of VARIANTS) {
      const java = await bloomDump(await fileOf(`java_${name}`));
      const rt = await bloomDump(await fileOf(`rt_${name}`));
      expect(java.length, name).toBeGreaterThan(0);
      expect(rt, name).toEqual(java);
      // byte-exact streams (decompressed): BLOOM_FILTER_UTF8, and BLOOM_FILTER for the original version; UTF8_UTC bloom encodings
      const orc = await loadOrcReader();
      const javaStreams = await orc.readOrcBloomFilterStreams(new Uint8Array(await fsp.readFile(await fileOf(`java_${name}`))));
      const rtStreams = await orc.readOrcBloomFilterStreams(new Uint8Array(await fsp.readFile(await fileOf(`rt_${name}`))));
      expect(rtStreams, name).toEqual(javaStreams);
      expect(javaStreams.flat().map((s) => s.kind).includes(7), name).toBe(name === "original");
      expect(javaStreams.flat().every((s) => s.bloomEncoding === 1), name).toBe(true);
    }
  }, SLOW);

  // rows 1..2600: stripes [1, 2000], [2001, 2600]; row groups [1, 1000], [1001, 2000], [2001, 2600].
  // Column statistics keep every group for these values (vc's string ranges, i / l / d of both
  // signs); the bloom filters keep only the groups holding them.
  const vOf = (id: number, k: "i" | "l" | "d") => bloomRow(id)[k];
  const groupRows = (...groups: number[]) => model.filter((r) => groups.includes(Math.min(2, Math.floor(((r.id as number) - 1) / 1000))));
  const CASES: Array<[string, Predicate, (r: OracleRow) => boolean, number[], Array<[string, "=", unknown]> | null]> = [
    ["vc = v1500", col("vc").eq("v1500"), (r) => r.vc === "v1500", [1], [["vc", "=", "v1500"]]],
    ["i = i(1501)", col("i").eq(vOf(1501, "i")), (r) => r.i === vOf(1501, "i"), [1], [["i", "=", vOf(1501, "i")]]],
    ["l in (l(10), l(2500))", col("l").in([BigInt(vOf(10, "l") as string), BigInt(vOf(2500, "l") as string)]), (r) => r.l === vOf(10, "l") || r.l === vOf(2500, "l"), [0, 2], null],
    ["d = d(2003) or vc = v7", or(col("d").eq(vOf(2003, "d")), col("vc").eq("v7")), (r) => r.d === vOf(2003, "d") || r.vc === "v7", [0, 2], null],
    ["vc = v1500x (no row)", col("vc").eq("v1500x"), () => false, [], [["vc", "=", "v1500x"]]],
    ["dt = 2024-12-31 (every group)", col("dt").eq("2024-12-31"), (r) => r.dt === "2024-12-31", [0, 1, 2], null],
  ];

  it("paimon-rt skips the row groups whose bloom filters rule out eq / in values, in Java's files and its own: exactly the kept groups' rows, exact filtered rows", async () => {
    const orc = await loadOrcReader();
    for (const table of ["java_all", "rt_all", "java_named", "rt_named"]) {
      const bytes = new Uint8Array(await fsp.readFile(await fileOf(table)));
      const fields = (await catalog.getTable(`db.${table}`)).schema.fields;
      for (const [what, filter, keep, groups] of CASES) {
        const before = { ...orc.orcReadCounters };
        const read: OracleRow[] = [];
        let skipped = 0;
        for await (const b of readWholeDataFile(Promise.resolve(bytes), { fields, batchSize: 700, fileName: "data-x.orc", filter: bindPredicate(filter, fields), onSkip: (n) => (skipped += n) })) read.push(...arrowToRows(b));
        expect(sortRows(read), `${table}: ${what}`).toEqual(groupRows(...groups));
        expect(skipped + read.length, `${table}: ${what}`).toBe(ROWS);
        expect(orc.orcReadCounters.rowGroupsPruned - before.rowGroupsPruned, `${table}: ${what}`).toBe(3 - groups.length);
        expect(await tableRows(catalog, `db.${table}`, { filter, predicateFilter: true }), `${table}: ${what}`).toEqual(model.filter(keep));
      }
    }
  }, SLOW);

  it("Java reads paimon-rt's bloom-filtered files: every row, and filtered reads skip the row groups Java skips in its own files (exactly the kept groups)", async () => {
    const javaCases = CASES.filter((c) => c[4] !== null);
    const requests = ["all", "named", "original"].flatMap((name) => [
      { warehouse, identifier: `db.rt_${name}`, sort: true },
      ...javaCases.flatMap(([, , , , filters]) => [
        { warehouse, identifier: `db.rt_${name}`, filters: filters!, sort: true },
        { warehouse, identifier: `db.java_${name}`, filters: filters!, sort: true },
        { warehouse, identifier: `db.rt_${name}`, filters: filters!, sort: true, executeFilter: true },
      ]),
    ]);
    const java = await readTables("java", requests);
    let at = 0;
    for (const name of ["all", "named", "original"]) {
      expect(java[at++], name).toEqual(model);
      for (const [what, , keep, groups] of javaCases) {
        const [fromRt, fromJava, exact] = [java[at++], java[at++], java[at++]];
        expect(fromRt, `${name}: ${what}`).toEqual(fromJava);
        // (the original variant has no bloom filter on vc and i: statistics only)
        if (name !== "original") expect(fromRt, `${name}: ${what}`).toEqual(groupRows(...groups));
        expect(exact, `${name}: ${what}`).toEqual(model.filter(keep));
      }
    }
  }, SLOW);
});
