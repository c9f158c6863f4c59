/**
 * ORC bloom filters against models (no oracle; test/interop/orc-bloom-interop.test.ts compares
 * them with orc-core's bits): hashes equal to values orc-core computed (through the Java oracle's
 * `orc-hash`), orc-core's sizing, every value added tests "maybe" and sets exactly the bits of a
 * BigInt model of orc-core's addHash (fast-check), serialisation round trips; the writer's column
 * resolution and options; filtered reads of random files with bloom filters keep every matching
 * row at its position and skip row groups.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { loadOrcReader } from "../../src/format/file-formats.js";
import { murmur3Hash64, OrcBloomFilter, orcDoubleHash, orcLongHash } from "../../src/format/orc-bloom.js";
import { hiveDecimalString, OrcFileWriter } from "../../src/format/orc-data-write.js";
import { col, or, type Predicate } from "../../src/predicate/predicate.js";
import { parseDataType, type DataField } from "../../src/spec/types.js";
import { orcLayoutOptions } from "../../src/write/append-writer.js";
import { rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";
import { tempDirs } from "../support/temp-dirs.js";
import { ORC_FILE_LAYOUT, readOrcPositioned, writeOrcRows } from "./orc-files.js";

const tempDir = tempDirs("paimon-rt-orc-bloom-");
const signed = (v: bigint) => BigInt.asIntN(64, v);

/** A model of orc-core's addHash: the bit positions of a 64-bit hash, in BigInt arithmetic. */
function modelPositions(hash: bigint, numBits: number, k: number): number[] {
  const h1 = BigInt.asIntN(32, hash);
  const h2 = BigInt.asIntN(32, hash >> 32n);
  return Array.from({ length: k }, (_, j) => {
    let combined = BigInt.asIntN(32, h1 + BigInt(j + 1) * h2);
    if (combined < 0n) combined = -combined - 1n;
    return Number(combined % BigInt(numBits));
  });
}

/** Models of orc-core's hashes in BigInt arithmetic (Java's longs: wrapping, >> arithmetic). */
const M64 = (1n << 64n) - 1n;
const rotl64 = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M64;
const mix = (k: bigint) => (rotl64((k * 0x87c37b91114253d5n) & M64, 31n) * 0x4cf5ad432745937fn) & M64;

function modelMurmur3(bytes: Uint8Array): bigint {
  const n = bytes.length;
  let hash = 104729n;
  let at = 0;
  for (; at + 8 <= n; at += 8) {
    hash ^= mix(Buffer.from(bytes.subarray(at, at + 8)).readBigUInt64LE());
    hash = (rotl64(hash, 27n) * 5n + 0x52dce729n) & M64;
  }
  if (at < n) hash ^= mix(BigInt(`0x${Buffer.from(bytes.subarray(at)).reverse().toString("hex")}`));
  hash ^= BigInt(n);
  for (const m of [0xff51afd7ed558ccdn, 0xc4ceb9fe1a85ec53n, 1n]) hash = ((hash ^ (hash >> 33n)) * m) & M64;
  return hash;
}

function modelLongHash(value: bigint): bigint {
  const s = (x: bigint) => BigInt.asIntN(64, x);
  let key = s(value);
  key = s(~key + (key << 21n));
  key = key ^ (key >> 24n);
  key = s(key + (key << 3n) + (key << 8n));
  key = key ^ (key >> 14n);
  key = s(key + (key << 2n) + (key << 4n));
  key = key ^ (key >> 28n);
  return BigInt.asUintN(64, key + (key << 31n));
}

function modelDoubleBits(d: number): bigint {
  if (Number.isNaN(d)) return 0x7ff8000000000000n;
  const b = Buffer.alloc(8);
  b.writeDoubleBE(d);
  return b.readBigInt64BE();
}

function setBits(f: OrcBloomFilter): number[] {
  const out: number[] = [];
  for (let i = 0; i < f.numBits; i++) if (f.words[i >>> 5]! & (1 << (i & 31))) out.push(i);
  return out;
}

describe("ORC bloom filter", () => {
  it("hashes: orc-core's Murmur3.hash64 and getLongHash (values from the Java oracle's orc-hash)", () => {
    const bytes: Array<[string, bigint]> = [
      ["", 8404154273843829576n],
      ["61", -2460741455279943289n],
      ["616263646566676869", 3101789324417447593n],
      ["e282acf09f9880", 2995163859455265070n],
    ];
    for (const [hex, h] of bytes) expect(signed(murmur3Hash64(Buffer.from(hex, "hex"))), hex).toBe(h);
    const longs: Array<[bigint, bigint]> = [
      [0n, 0n],
      [-1n, 6614246905173314819n],
      [1704067200123n, 2729851870475622856n],
      [-9223372036854775808n, 4316648529147585864n],
    ];
    for (const [v, h] of longs) expect(signed(orcLongHash(v)), String(v)).toBe(h);
    const doubles: Array<[number, bigint]> = [
      [1.5, 4457999897849084360n],
      [NaN, 1428437071588918382n],
      [-0, 4316648529147585864n],
    ];
    for (const [v, h] of doubles) expect(signed(orcDoubleHash(v)), String(v)).toBe(h);
  });

  it("the hashes (64-bit arithmetic on 32-bit words) equal BigInt models of orc-core's; integers added as numbers, words or bigints set the same bits", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.double(), fc.maxSafeInteger(), (bytes, l, d, n) => {
        expect(murmur3Hash64(bytes)).toBe(modelMurmur3(bytes));
        expect(orcLongHash(l)).toBe(modelLongHash(l));
        expect(orcDoubleHash(d)).toBe(modelLongHash(modelDoubleBits(d)));
        const [a, b, c] = [0, 1, 2].map(() => OrcBloomFilter.forEntries(100, 0.05));
        a!.addSafeInteger(n);
        b!.addLong(BigInt(n));
        c!.addLongWords(Number(BigInt.asUintN(32, BigInt(n) >> 32n)), Number(BigInt.asUintN(32, BigInt(n))));
        expect(setBits(a!)).toEqual(setBits(b!));
        expect(setBits(c!)).toEqual(setBits(b!));
      }),
      { numRuns: 500 },
    );
  });

  it("sizing as orc-core's: bits rounded up to whole 64-bit words (a word more when whole), hash functions", () => {
    // (the sizes of Java's files in the interop test: stride 1000 at fpp 0.01, 0.05, 0.2)
    const sizes = [0.01, 0.05, 0.2].map((fpp) => OrcBloomFilter.forEntries(1000, fpp)).map((f) => [f.numBits, f.numHashFunctions]);
    expect(sizes).toEqual([[9600, 7], [6272, 4], [3392, 2]]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200000 }), fc.double({ min: 1e-6, max: 0.999, noNaN: true }), (n, fpp) => {
        const f = OrcBloomFilter.forEntries(n, fpp);
        const entries = Math.max(1, n);
        const nb = Math.trunc((-entries * Math.log(fpp)) / (Math.log(2) * Math.log(2)));
        expect(f.numBits).toBe((Math.floor(nb / 64) + 1) * 64);
        expect(f.numHashFunctions).toBe(Math.max(1, Math.round((f.numBits / entries) * Math.log(2))));
      }),
    );
  });

  it("every value added tests maybe; the bits set are exactly the model's; the bit set round trips", () => {
    const value = fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((b) => ({ kind: "bytes" as const, b })),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((l) => ({ kind: "long" as const, l })),
      fc.double().map((d) => ({ kind: "double" as const, d })),
    );
    type Value = { kind: "bytes"; b: Uint8Array } | { kind: "long"; l: bigint } | { kind: "double"; d: number };
    const hashOf = (v: Value) =>
      v.kind === "bytes" ? murmur3Hash64(v.b) : v.kind === "long" ? orcLongHash(v.l) : orcDoubleHash(v.d);
    fc.assert(
      fc.property(fc.array(value, { maxLength: 60 }), fc.integer({ min: 1, max: 3000 }), fc.constantFrom(0.01, 0.05, 0.3, 0.9), (values, n, fpp) => {
        const f = OrcBloomFilter.forEntries(n, fpp);
        const model = new Set<number>();
        for (const v of values) {
          if (v.kind === "bytes") f.addBytes(v.b);
          else if (v.kind === "long") f.addLong(v.l);
          else f.addDouble(v.d);
          for (const p of modelPositions(hashOf(v), f.numBits, f.numHashFunctions)) model.add(p);
        }
        for (const v of values) expect(f.testHash(hashOf(v))).toBe(true);
        expect(setBits(f)).toEqual([...model].sort((a, b) => a - b));
        const back = OrcBloomFilter.fromUtf8Bitset(f.utf8Bitset(), f.numHashFunctions)!;
        expect([back.numBits, back.numHashFunctions, setBits(back)]).toEqual([f.numBits, f.numHashFunctions, setBits(f)]);
      }),
      { numRuns: 200 },
    );
    expect(OrcBloomFilter.fromUtf8Bitset(new Uint8Array(12), 3)).toBeNull();
    expect(OrcBloomFilter.fromUtf8Bitset(new Uint8Array(16), 0)).toBeNull();
    expect(OrcBloomFilter.fromUtf8Bitset(new Uint8Array(16), 129)).toBeNull();
    expect(OrcBloomFilter.fromUtf8Bitset(new Uint8Array(16), 128)?.numBits).toBe(128);
  });

  it("decimals hash by HiveDecimal's string: trailing fraction zeros dropped", () => {
    expect([hiveDecimalString(12500n, 3), hiveDecimalString(-1001n, 3), hiveDecimalString(0n, 3), hiveDecimalString(5n, 2), hiveDecimalString(-50n, 2), hiveDecimalString(1200n, 0)]).toEqual(["12.5", "-1.001", "0", "0.05", "-0.5", "1200"]);
  });
});

const SPEC = [["id", "INT NOT NULL"], ["v", "BIGINT"], ["s", "STRING"], ["f", "DOUBLE"], ["r", "ROW<x INT, y STRING>"], ["arr", "ARRAY<INT>"]].map(([name, type]) => ({ name: name!, type: type! }));
const FIELDS: DataField[] = SPEC.map((f, i) => ({ id: i, name: f.name, type: parseDataType(f.type) }));

/** Values repeating across row groups (statistics keep every group): k of 1000 kinds of row. */
function row(id: number, seed: number): OracleRow {
  const k = (id * 7919 + seed) % 1000;
  const nullIf = <T>(every: number, v: T) => (k % every === 0 ? null : v);
  return { id, v: nullIf(13, String(BigInt((k % 50) - 25) * 1000003n)), s: nullIf(11, `s${k % 300}`), f: nullIf(17, ((k % 40) - 20) / 4), r: { x: k, y: `y${k % 7}` }, arr: nullIf(23, [id]) };
}

const writeFile = (rows: readonly OracleRow[], batch: number, options: ConstructorParameters<typeof OrcFileWriter>[1]) => writeOrcRows(SPEC, FIELDS, rows, batch, options);
const readPositioned = (bytes: Uint8Array, filter: Predicate | null) => readOrcPositioned(bytes, FIELDS, filter);

describe("ORC files with bloom filters", () => {
  it("orc.bloom.filter.columns resolves as orc-core: any case, struct paths, a column's nested columns, * for all, unknown names ignored; none without a row index", async () => {
    const orc = await loadOrcReader();
    const rows = Array.from({ length: 1500 }, (_, i) => row(i, 3));
    // ORC column ids: 0 root, 1 id, 2 v, 3 s, 4 f, 5 r, 6 r.x, 7 r.y, 8 arr, 9 arr's element
    const columnsOf = async (names: string | undefined, stride = 1000) => {
      const streams = await orc.readOrcBloomFilterStreams(await writeFile(rows, 500, { rowIndexStride: stride, bloomFilterColumns: names }));
      return streams.map((s) => [...new Set(s.map((x) => x.column))]);
    };
    expect(await columnsOf("ID, S ,r.Y,arr,nope,r.nope")).toEqual([[1, 3, 7, 8, 9]]);
    expect(await columnsOf("r")).toEqual([[5, 6, 7]]);
    expect(await columnsOf("*")).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]);
    expect(await columnsOf("")).toEqual([[]]);
    expect(await columnsOf(undefined)).toEqual([[]]);
    expect(await columnsOf("id,s", 0)).toEqual([[]]);
    // one BloomFilter per row group, UTF8_UTC; the original version adds BLOOM_FILTER streams of the same bits
    const utf8 = (await orc.readOrcBloomFilterStreams(await writeFile(rows, 500, { rowIndexStride: 1000, bloomFilterColumns: "s" })))[0]!;
    expect(utf8.map((s) => [s.column, s.kind, s.bloomEncoding])).toEqual([[3, 8, 1]]);
    const original = (await orc.readOrcBloomFilterStreams(await writeFile(rows, 500, { rowIndexStride: 1000, bloomFilterColumns: "s", bloomFilterVersion: "original" })))[0]!;
    expect(original.map((s) => [s.column, s.kind])).toEqual([[3, 7], [3, 8]]);
    expect(original[1]!.bytes).toEqual(utf8[0]!.bytes);
  });

  it("random files and eq / in filters: every matching row at its position, never another row's values; row groups are skipped", async () => {
    const orc = await loadOrcReader();
    const filters: Array<[string, (k: number) => Predicate, (r: OracleRow, k: number) => boolean]> = [
      ["s =", (k) => col("s").eq(`s${k % 300}`), (r, k) => r.s === `s${k % 300}`],
      ["v in", (k) => col("v").in([BigInt((k % 50) - 25) * 1000003n, 7n]), (r, k) => r.v === String(BigInt((k % 50) - 25) * 1000003n)],
      ["f = or s =", (k) => or(col("f").eq(((k % 40) - 20) / 4), col("s").eq("s7")), (r, k) => r.f === ((k % 40) - 20) / 4 || r.s === "s7"],
      ["id =", (k) => col("id").eq(k), (r, k) => r.id === k],
      ["s = absent", () => col("s").eq("s1x"), () => false],
    ];
    const before = { ...orc.orcReadCounters };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          ...ORC_FILE_LAYOUT,
          columns: fc.constantFrom("s,v,f,id", "*", "s", "v,f"),
          fpp: fc.constantFrom(0.01, 0.05, 0.5),
          filter: fc.integer({ min: 0, max: filters.length - 1 }),
          k: fc.integer({ min: 0, max: 5000 }),
        }),
        async (c) => {
          const rows = Array.from({ length: c.rows }, (_, i) => row(i, c.seed));
          const bytes = await writeFile(rows, c.batch, { compression: c.compression, stripeRowCount: c.stripeRows, rowIndexStride: c.stride, compressionChunkSize: 4096, bloomFilterColumns: c.columns, bloomFilterFpp: c.fpp });
          expect((await readPositioned(bytes, null)).map(([, r]) => r)).toEqual(rows);
          const [, predicate, test] = filters[c.filter]!;
          const read = await readPositioned(bytes, predicate(c.k));
          for (const [position, r] of read) expect(r).toEqual(rows[position]);
          const kept = new Set(read.map(([position]) => position));
          rows.forEach((r, i) => {
            if (test(r, c.k)) expect(kept.has(i)).toBe(true);
          });
        },
      ),
      { numRuns: 25 },
    );
    expect(orc.orcReadCounters.rowGroupsPruned - before.rowGroupsPruned).toBeGreaterThan(0);
    // a value within every row group's string range but in none: every group skipped by its bloom filter (by statistics none)
    const rows = Array.from({ length: 5000 }, (_, i) => row(i, 1));
    for (const columns of ["s", undefined]) {
      const bytes = await writeFile(rows, 700, { compression: "zstd", rowIndexStride: 1000, bloomFilterColumns: columns });
      const at = { ...orc.orcReadCounters };
      expect(await readPositioned(bytes, col("s").eq("s1x"))).toEqual(columns ? [] : rows.map((r, i) => [i, r]));
      expect([orc.orcReadCounters.rowGroupsPruned - at.rowGroupsPruned, orc.orcReadCounters.rowGroupsRead - at.rowGroupsRead], columns).toEqual(columns ? [5, 0] : [0, 5]);
    }
  }, 300_000);

  it("bloom filter options: Java's names and defaults; malformed ones are INVALID_ARGUMENT when a writer opens, and no data file is left", async () => {
    expect(orcLayoutOptions({ "orc.bloom.filter.columns": "a,b", "orc.bloom.filter.fpp": " 0.05 ", "orc.bloom.filter.write.version": "original" })).toMatchObject({ bloomFilterColumns: "a,b", bloomFilterFpp: 0.05, bloomFilterVersion: "original" });
    expect(orcLayoutOptions({ "orc.bloom.filter.fpp": "5e-2d" })).toMatchObject({ bloomFilterFpp: 0.05 });
    const bads: Array<Record<string, string>> = [{ "orc.bloom.filter.fpp": "1%" }, { "orc.bloom.filter.fpp": "0" }, { "orc.bloom.filter.fpp": "1.0" }, { "orc.bloom.filter.write.version": "UTF8" }, { "orc.bloom.filter.write.version": "v2" }];
    for (const bad of bads) {
      expect(() => orcLayoutOptions(bad), JSON.stringify(bad)).toThrow(PaimonError);
    }
    expect(() => new OrcFileWriter(FIELDS, { bloomFilterFpp: -0.5 })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => new OrcFileWriter(FIELDS, { bloomFilterVersion: "v3" as "utf8" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    for (const [name, options] of [["fpp", { "orc.bloom.filter.columns": "s", "orc.bloom.filter.fpp": "high" }], ["version", { "orc.bloom.filter.write.version": "new" }]] as const) {
      const table = await catalog.createTable(`db.${name}`, { fields: SPEC, options: { bucket: "-1", "file.format": "orc", ...options } });
      const write = await table.newWrite({ commitUser: "u" });
      await expect(write.write(rowsToBatch(SPEC, [row(1, 0)]))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      await write.close();
      await expect(fsp.readdir(path.join(warehouse, "db.db", name, "bucket-0"))).rejects.toMatchObject({ code: "ENOENT" });
    }
  });
});
