import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import avsc from "avsc";
import {
  decodeIndexManifestEntries,
  decodeManifestEntries,
  decodeManifestFileMetas,
  makeDataFileMeta,
  MANIFEST_ENTRY_SCHEMA,
  type IndexManifestEntry,
  type ManifestEntry,
  type ManifestFileMeta,
} from "../../src/spec/manifest.js";
import { compileSchema, crc32, readContainer } from "../../src/spec/avro.js";
import { writeContainer, zstdStoredFrame } from "../../src/spec/avro-write.js";
import { encodeIndexManifestEntries, encodeManifestEntries, encodeManifestFileMetas } from "../../src/spec/manifest-write.js";
import { decompress } from "fzstd";
import { BinaryRow, serializeBinaryRow, toBinaryRow } from "../../src/spec/binary-row.js";
import { DataTypes as T } from "../../src/spec/types.js";

const FIX = new URL("./fixtures/pypaimon-2.1.0/", import.meta.url);
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(name, FIX)));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const partition = (dt: string): Uint8Array => serializeBinaryRow(toBinaryRow([dt], [T.STRING()]), 1);

/** fastavro's view of pypaimon's files (bytes as {hex}, longs as numbers). */
const expected = JSON.parse(readFileSync(new URL("expected.json", FIX), "utf8")) as Record<string, { codec: string; records: Array<Record<string, any>> }>;

function sampleEntries(): ManifestEntry[] {
  return [
    {
      kind: 0,
      partition: partition("20240514"),
      bucket: 1,
      totalBuckets: 2,
      file: makeDataFileMeta({
        fileName: "data-1.parquet",
        fileSize: 2904n,
        rowCount: 3n,
        minKey: serializeBinaryRow(toBinaryRow([1n], [T.BIGINT()]), 1),
        maxKey: serializeBinaryRow(toBinaryRow([9n], [T.BIGINT()]), 1),
        keyStats: { minValues: serializeBinaryRow(toBinaryRow([1n], [T.BIGINT()]), 1), maxValues: serializeBinaryRow(toBinaryRow([9n], [T.BIGINT()]), 1), nullCounts: [0n] },
        valueStats: { minValues: serializeBinaryRow(toBinaryRow([null], [T.STRING()]), 1), maxValues: serializeBinaryRow(toBinaryRow([null], [T.STRING()]), 1), nullCounts: [null] },
        minSequenceNumber: 0n,
        maxSequenceNumber: 9223372036854775807n,
        schemaId: 3,
        level: 5,
        extraFiles: ["data-1.parquet.index"],
        creationTime: 1715680000123,
        deleteRowCount: 1n,
        embeddedIndex: new Uint8Array([1, 2, 3]),
        fileSource: 1,
        valueStatsCols: ["name"],
        externalPath: "s3://b/x",
        firstRowId: 100n,
        writeCols: ["a", "b"],
        writeColsSequences: [1n, -2n],
      }),
    },
    {
      kind: 1,
      partition: serializeBinaryRow(toBinaryRow([], []), 0),
      bucket: -2,
      totalBuckets: -2,
      file: makeDataFileMeta({ fileName: "data-2.orc", fileSize: 1n, rowCount: 0n, minSequenceNumber: -1n, maxSequenceNumber: -1n, schemaId: 0 }),
    },
  ];
}

describe("manifest files written by pypaimon 2.1.0 (fastavro, zstandard)", () => {
  for (const [name, exp] of Object.entries(expected)) {
    it(`decodes ${name} like fastavro`, async () => {
      const { codec } = readContainer(fixture(name));
      expect(codec).toBe(exp.codec);
      if (name.startsWith("manifest-list")) {
        const metas = await decodeManifestFileMetas(fixture(name), name);
        expect(metas.length).toBe(exp.records.length);
        metas.forEach((m, i) => {
          const r = exp.records[i]!;
          expect(m.fileName).toBe(r._FILE_NAME);
          expect(m.fileSize).toBe(BigInt(r._FILE_SIZE));
          expect(m.numAddedFiles).toBe(BigInt(r._NUM_ADDED_FILES));
          expect(hex(m.partitionStats.minValues)).toBe(r._PARTITION_STATS._MIN_VALUES.hex);
          expect(m.minBucket).toBe(r._MIN_BUCKET ?? null);
        });
      } else {
        const entries = await decodeManifestEntries(fixture(name), name);
        expect(entries.length).toBe(exp.records.length);
        entries.forEach((e, i) => {
          const r = exp.records[i]!;
          expect(hex(e.partition)).toBe(r._PARTITION.hex);
          expect([e.kind, e.bucket, e.totalBuckets]).toEqual([r._KIND, r._BUCKET, r._TOTAL_BUCKETS]);
          const f = r._FILE;
          expect(e.file.fileName).toBe(f._FILE_NAME);
          expect(e.file.rowCount).toBe(BigInt(f._ROW_COUNT));
          expect(hex(e.file.minKey)).toBe(f._MIN_KEY.hex);
          expect(e.file.keyStats.nullCounts).toEqual(f._KEY_STATS._NULL_COUNTS.map((x: number | null) => (x === null ? null : BigInt(x))));
          expect(e.file.creationTime).toBe(f._CREATION_TIME.epochMillis);
          expect(e.file.fileSource).toBe(f._FILE_SOURCE);
          expect(e.file.valueStatsCols).toEqual(f._VALUE_STATS_COLS);
          expect(BinaryRow.fromSerialized(e.partition).getString(0)).toMatch(/^2024051[45]$/);
        });
      }
    });
  }

  for (const codec of ["null", "deflate", "snappy", "zstandard"]) {
    it(`reads fastavro's ${codec} codec`, async () => {
      const a = await decodeManifestEntries(fixture(`manifest-codec-${codec}`));
      const b = await decodeManifestEntries(fixture("manifest-14151ef7-31c0-4e69-8f9f-ec0ca7a3ce51-0"));
      expect(a).toEqual(b);
    });
  }
});

describe("round trips", () => {
  for (const compression of ["zstd", "snappy", "deflate", "none"]) {
    it(`manifest entries with ${compression}`, async () => {
      const entries = sampleEntries();
      const bytes = await encodeManifestEntries(entries, { compression });
      expect(await decodeManifestEntries(bytes)).toEqual(entries);
      expect(readContainer(bytes).codec).toBe({ zstd: "zstandard", snappy: "snappy", deflate: "deflate", none: "null" }[compression]);
    });
  }

  it("embeds Java's schema (record names, unions with null first and default null)", async () => {
    const bytes = await encodeManifestEntries([], { compression: "none" });
    const { schema, records } = readContainer(bytes);
    expect(records).toEqual([]);
    const s = schema as any;
    expect(s.name).toBe("record");
    expect(s.namespace).toBe("org.apache.paimon.avro.generated");
    const file = s.fields[5].type;
    expect(file.name).toBe("record__FILE");
    expect(file.fields.map((f: any) => f.name)).toEqual([
      "_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS", "_VALUE_STATS", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER",
      "_SCHEMA_ID", "_LEVEL", "_EXTRA_FILES", "_CREATION_TIME", "_DELETE_ROW_COUNT", "_EMBEDDED_FILE_INDEX", "_FILE_SOURCE", "_VALUE_STATS_COLS",
      "_EXTERNAL_PATH", "_FIRST_ROW_ID", "_WRITE_COLS", "_WRITE_COLS_SEQUENCES",
    ]);
    expect(file.fields[12]).toEqual({ name: "_CREATION_TIME", type: ["null", { type: "long", logicalType: "timestamp-millis" }], default: null });
    expect(file.fields[5].type.name).toBe("record__FILE__KEY_STATS");
  });

  it("is readable by avsc (independent Avro implementation, BigInt longs, timestamp-millis)", async () => {
    const entries = sampleEntries();
    const bytes = await encodeManifestEntries(entries, { compression: "deflate" });
    const LongType = avsc.types.LongType.__with({
      fromBuffer: (b: Buffer) => b.readBigInt64LE(),
      toBuffer: (n: bigint) => {
        const b = Buffer.alloc(8);
        b.writeBigInt64LE(n);
        return b;
      },
      fromJSON: BigInt,
      toJSON: Number,
      isValid: (n: unknown) => typeof n === "bigint",
      compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
    });
    const records: any[] = await new Promise((resolve, reject) => {
      const out: any[] = [];
      const decoder = new avsc.streams.BlockDecoder({ parseHook: (schema: any) => avsc.Type.forSchema(schema, { registry: { long: LongType } }) });
      decoder.on("data", (r: any) => out.push(r)).on("end", () => resolve(out)).on("error", reject);
      decoder.end(Buffer.from(bytes));
    });
    expect(records.length).toBe(2);
    expect(records[0]._FILE._MAX_SEQUENCE_NUMBER).toBe(9223372036854775807n);
    expect(BigInt(records[0]._FILE._CREATION_TIME)).toBe(1715680000123n);
    expect(records[0]._FILE._WRITE_COLS_SEQUENCES).toEqual([1n, -2n]);
    expect(records[1]._FILE._FILE_SOURCE).toBeNull();
    expect(Buffer.from(records[0]._PARTITION).toString("hex")).toBe(hex(entries[0]!.partition));
  });

  it("reads files written by avsc", async () => {
    const type = avsc.Type.forSchema(MANIFEST_ENTRY_SCHEMA as any, { wrapUnions: false });
    const rec = {
      _VERSION: 2, _KIND: 0, _PARTITION: Buffer.from(partition("x")), _BUCKET: 0, _TOTAL_BUCKETS: -1,
      _FILE: {
        _FILE_NAME: "f", _FILE_SIZE: 10, _ROW_COUNT: 1, _MIN_KEY: Buffer.alloc(12), _MAX_KEY: Buffer.alloc(12),
        _KEY_STATS: { _MIN_VALUES: Buffer.alloc(12), _MAX_VALUES: Buffer.alloc(12), _NULL_COUNTS: [] },
        _VALUE_STATS: { _MIN_VALUES: Buffer.alloc(12), _MAX_VALUES: Buffer.alloc(12), _NULL_COUNTS: null },
        _MIN_SEQUENCE_NUMBER: 0, _MAX_SEQUENCE_NUMBER: 0, _SCHEMA_ID: 0, _LEVEL: 0, _EXTRA_FILES: [], _CREATION_TIME: null,
        _DELETE_ROW_COUNT: 0, _EMBEDDED_FILE_INDEX: null, _FILE_SOURCE: 0, _VALUE_STATS_COLS: null, _EXTERNAL_PATH: null,
        _FIRST_ROW_ID: null, _WRITE_COLS: null, _WRITE_COLS_SEQUENCES: null,
      },
    };
    const bytes: Buffer = await new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const enc = new avsc.streams.BlockEncoder(type, { codec: "deflate" });
      enc.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks)));
      enc.end(rec);
    });
    const [e] = await decodeManifestEntries(new Uint8Array(bytes));
    expect(e!.file.fileSize).toBe(10n);
    expect(e!.file.valueStats.nullCounts).toBeNull();
    expect(e!.totalBuckets).toBe(-1);
  });

  it("manifest list", async () => {
    const metas: ManifestFileMeta[] = [
      { fileName: "manifest-a-0", fileSize: 2444n, numAddedFiles: 3n, numDeletedFiles: 0n, partitionStats: { minValues: partition("a"), maxValues: partition("b"), nullCounts: [0n] }, schemaId: 0, minBucket: 0, maxBucket: 1, minLevel: 0, maxLevel: 0, minRowId: null, maxRowId: null },
      { fileName: "manifest-a-1", fileSize: 1n, numAddedFiles: 0n, numDeletedFiles: 1n, partitionStats: { minValues: partition("a"), maxValues: partition("a"), nullCounts: null }, schemaId: 2, minBucket: null, maxBucket: null, minLevel: null, maxLevel: null, minRowId: 0n, maxRowId: 5n },
    ];
    expect(await decodeManifestFileMetas(await encodeManifestFileMetas(metas))).toEqual(metas);
    expect(await decodeManifestFileMetas(await encodeManifestFileMetas([]))).toEqual([]);
  });

  it("index manifest with deletion-vector ranges and global index meta", async () => {
    const entries: IndexManifestEntry[] = [
      { kind: 0, partition: partition("p"), bucket: 3, indexFile: { indexType: "DELETION_VECTORS", fileName: "index-u-0", fileSize: 35n, rowCount: 1n, dvRanges: [{ dataFileName: "data-1.parquet", offset: 1, length: 26, cardinality: 3n }, { dataFileName: "data-2.parquet", offset: 31, length: 22, cardinality: null }], externalPath: null, globalIndex: null } },
      { kind: 1, partition: partition("p"), bucket: 0, indexFile: { indexType: "btree", fileName: "index-u-1", fileSize: 9n, rowCount: 2n, dvRanges: null, externalPath: "file:/x", globalIndex: { rowRangeStart: 10n, rowRangeEnd: 20n, indexFieldId: 3, extraFieldIds: [1, 4], indexMeta: new Uint8Array([1, 2]), sourceMeta: null } } },
    ];
    const bytes = await encodeIndexManifestEntries(entries, { compression: "zstd" });
    expect(await decodeIndexManifestEntries(bytes)).toEqual(entries);
    const schema = readContainer(bytes).schema as any;
    expect(schema.fields[8].type[1].items[1].name).toBe("record__DELETIONS_VECTORS_RANGES");
  });
});

describe("older writers and bad bytes", () => {
  it("accepts a Paimon 0.8-style file (fewer fields, matched by name; absent nullable fields are null)", async () => {
    const old = JSON.parse(JSON.stringify(MANIFEST_ENTRY_SCHEMA));
    old.fields[5].type.fields = old.fields[5].type.fields.slice(0, 15); // up to _EMBEDDED_FILE_INDEX
    old.fields[5].type.fields.reverse(); // order must not matter
    const entry = sampleEntries()[1]!;
    const f = entry.file;
    const rec = {
      _VERSION: 2, _KIND: 1, _PARTITION: entry.partition, _BUCKET: 4, _TOTAL_BUCKETS: 8,
      _FILE: {
        _FILE_NAME: f.fileName, _FILE_SIZE: 1n, _ROW_COUNT: 0n, _MIN_KEY: f.minKey, _MAX_KEY: f.maxKey,
        _KEY_STATS: { _MIN_VALUES: f.minKey, _MAX_VALUES: f.maxKey, _NULL_COUNTS: [] },
        _VALUE_STATS: { _MIN_VALUES: f.minKey, _MAX_VALUES: f.maxKey, _NULL_COUNTS: [] },
        _MIN_SEQUENCE_NUMBER: 1n, _MAX_SEQUENCE_NUMBER: 2n, _SCHEMA_ID: 0n, _LEVEL: 0, _EXTRA_FILES: [], _CREATION_TIME: null,
        _DELETE_ROW_COUNT: 0n, _EMBEDDED_FILE_INDEX: null, _UNKNOWN_NEW_FIELD: 1,
      },
    };
    const bytes = await writeContainer(compileSchema(old), [rec], { codec: "snappy" });
    const [e] = await decodeManifestEntries(bytes);
    expect(e!.bucket).toBe(4);
    expect(e!.file.fileSource).toBeNull();
    expect(e!.file.valueStatsCols).toBeNull();
    expect(e!.file.writeColsSequences).toBeNull();
    expect(e!.file.deleteRowCount).toBe(0n);
  });

  it("rejects corrupt bytes and wrong versions with CORRUPT_FILE naming the file", async () => {
    const good = await encodeManifestEntries(sampleEntries(), { compression: "none" });
    await expect(decodeManifestEntries(new Uint8Array([1, 2, 3]), "manifest-x")).rejects.toMatchObject({ code: "CORRUPT_FILE", message: expect.stringContaining("manifest-x") });
    await expect(decodeManifestEntries(good.slice(0, good.length - 20), "manifest-y")).rejects.toMatchObject({ code: "CORRUPT_FILE" });
    const flipped = good.slice();
    flipped[flipped.length - 1]! ^= 0xff; // sync marker
    await expect(decodeManifestEntries(flipped)).rejects.toMatchObject({ code: "CORRUPT_FILE" });
    const list = await encodeIndexManifestEntries([]);
    await expect(decodeManifestFileMetas(await encodeManifestEntries(sampleEntries()), "manifest-z")).rejects.toMatchObject({ code: "CORRUPT_FILE" });
    expect(list.length).toBeGreaterThan(0);
  });

  it("stored-block zstd frames and CRC32", () => {
    const data = new Uint8Array(140000).map((_, i) => i % 251);
    expect(decompress(zstdStoredFrame(data))).toEqual(data);
    expect(crc32(new TextEncoder().encode("123456789")).toString(16)).toBe("cbf43926");
  });
});
