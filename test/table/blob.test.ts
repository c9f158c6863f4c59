// BLOB columns (src/format/blob-file.ts, src/read/blob-read.ts): the blob file format (index,
// entries, CRC, footer) against a model of Java's writer, descriptors, the bunching of rolled
// blob files, schema checks as Java's SchemaValidation, and the refused writes (nothing written).
// Reads of Java's tables: test/interop/blob-interop.test.ts.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { col } from "../../src/predicate/predicate.js";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { BLOB_MAGIC, blobEntryValue, blobIndexLength, parseBlobDescriptor, parseBlobIndex, serializeBlobDescriptor } from "../../src/format/blob-file.js";
import { blobBunch } from "../../src/read/blob-read.js";
import { crc32 } from "../../src/spec/avro.js";
import { makeDataFileMeta, type DataFileMeta, type ManifestEntry } from "../../src/spec/manifest.js";
import { assignRowTracking } from "../../src/commit/row-tracking.js";
import { tempDirs } from "../support/temp-dirs.js";
import { failure } from "./helpers.js";

const D = { PaimonError, crc32 };
const tempDir = tempDirs("paimon-rt-blob-");

/** Java BlobFormatWriter + DeltaVarintCompressor, written from the spec (the model). */
function javaBlobFile(values: ReadonlyArray<Uint8Array | null>): Uint8Array {
  const parts: number[] = [];
  const lengths: bigint[] = [];
  for (const v of values) {
    if (v === null) {
      lengths.push(-1n);
      continue;
    }
    const entry = new Uint8Array(v.length + 12);
    const view = new DataView(entry.buffer);
    view.setInt32(0, BLOB_MAGIC, true);
    entry.set(v, 4);
    view.setBigInt64(4 + v.length, BigInt(v.length + 16), true);
    const crc = crc32(entry);
    parts.push(...entry, crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, crc >>> 24);
    lengths.push(BigInt(v.length + 16));
  }
  const index: number[] = [];
  lengths.forEach((l, i) => {
    let z = BigInt.asUintN(64, ((i === 0 ? l : l - lengths[i - 1]) << 1n) ^ ((i === 0 ? l : l - lengths[i - 1]) < 0n ? -1n : 0n));
    while (z >= 0x80n) {
      index.push(Number(z & 0x7fn) | 0x80);
      z >>= 7n;
    }
    index.push(Number(z));
  });
  const n = index.length;
  return Uint8Array.from([...parts, ...index, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24, 1]);
}

/** The values of a blob file, read with the module's functions. */
function readAll(file: Uint8Array, rows: number): Array<Uint8Array | null> {
  const indexLength = blobIndexLength(file.subarray(file.length - 5), file.length, "f.blob", D);
  const index = parseBlobIndex(file.subarray(file.length - 5 - indexLength, file.length - 5), file.length, rows, "f.blob", D);
  return index.offsets.map((o, i) => (o < 0 ? null : blobEntryValue(file.subarray(o - 4, o + index.lengths[i] + 12), i, "f.blob", D)));
}

const meta = (fileName: string, firstRowId: bigint, rowCount: bigint, maxSequenceNumber: bigint) => ({ fileName, firstRowId, rowCount, maxSequenceNumber }) as DataFileMeta;

describe("blob files", () => {
  it("reads back what Java's writer writes (random values, nulls, empty values)", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.uint8Array({ maxLength: 300 }), { nil: null }), { maxLength: 40 }), (values) => {
        expect(readAll(javaBlobFile(values), values.length)).toEqual(values);
      }),
    );
  });

  it("checks footer, index, entries: CORRUPT_FILE naming the file", () => {
    const values = [Uint8Array.of(1, 2, 3), null, new Uint8Array(200).fill(7)];
    const file = javaBlobFile(values);
    const error = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code).toBe("CORRUPT_FILE");
        return (e as PaimonError).message;
      }
      throw new Error("expected a failure");
    };
    expect(error(() => readAll(file, 2))).toBe("blob file f.blob: index holds 3 entries, the file's metadata 2 rows");
    const version = file.slice();
    version[version.length - 1] = 3;
    expect(error(() => readAll(version, 3))).toBe("blob file f.blob: unsupported version 3 (Java 1.4.2 writes 1)");
    const magic = file.slice();
    magic[0] ^= 1;
    expect(error(() => readAll(magic, 3))).toBe("blob file f.blob: entry of row 0: bad magic number");
    const value = file.slice();
    value[4 + 3 + 16 + 50] ^= 1;
    expect(error(() => readAll(value, 3))).toBe("blob file f.blob: entry of row 2: CRC32 mismatch");
    const truncated = Uint8Array.from([...file.subarray(0, 10), ...file.subarray(file.length - 8)]);
    expect(error(() => readAll(truncated, 3))).toMatch(/^blob file f\.blob: /);
    expect(error(() => blobIndexLength(Uint8Array.of(0xff, 0xff, 0, 0, 1), 100, "f.blob", D))).toBe("blob file f.blob: index length 65535 outside the file's 100 bytes");
  });

  it("serializes descriptors as Java's BlobDescriptor (version 2) and parses versions 1 and 2", () => {
    const bytes = serializeBlobDescriptor("/wh/db.db/t/bucket-0/data-1.blob", 4, 300);
    expect(Buffer.from(bytes.subarray(0, 13)).toString("hex")).toBe("02" + "43534544424f4c42" + "20000000");
    expect(parseBlobDescriptor(bytes, "x", D)).toEqual({ uri: "/wh/db.db/t/bucket-0/data-1.blob", offset: 4, length: 300 });
    const v1 = Uint8Array.from([1, ...bytes.subarray(9)]);
    expect(parseBlobDescriptor(v1, "x", D)).toEqual({ uri: "/wh/db.db/t/bucket-0/data-1.blob", offset: 4, length: 300 });
    const bad = bytes.slice();
    bad[3] ^= 1;
    expect(() => parseBlobDescriptor(bad, "column c", D)).toThrow("column c: not a serialized BlobDescriptor (missing magic header)");
  });

  it("bunches rolled blob files as Java's SpecialFieldBunch: newest of a first row id, older overlaps skipped, gaps refused", () => {
    const files = [meta("b.blob", 3n, 2n, 1n), meta("a.blob", 0n, 3n, 1n), meta("new.blob", 0n, 3n, 5n), meta("old.blob", 1n, 2n, 0n)];
    expect(blobBunch(files, 0n, 5n, "t", D).map((f) => f.fileName)).toEqual(["new.blob", "b.blob"]);
    expect(() => blobBunch([meta("a.blob", 0n, 2n, 1n), meta("c.blob", 3n, 2n, 1n)], 0n, 5n, "t", D)).toThrow("t: blob files a.blob, c.blob: first row ids are not continuous: expected 2, got 3");
    expect(() => blobBunch([meta("a.blob", 0n, 2n, 1n)], 0n, 5n, "t", D)).toThrow("t: blob files a.blob: they hold rows 0..1, the data file 0..4");
  });
});

describe("BLOB tables", () => {
  const fields = [
    { name: "id", type: "INT" },
    { name: "picture", type: "BLOB" },
  ];
  const OPTIONS = { "row-tracking.enabled": "true", "data-evolution.enabled": "true" };

  it("need data evolution and valid descriptor fields (Java SchemaValidation's messages)", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const cases: Array<[Parameters<Catalog["createTable"]>[1], string]> = [
      [{ fields }, "Data evolution config must enabled for table with BLOB type column."],
      [{ fields: [fields[1]], options: OPTIONS }, "Table with BLOB type column must have other normal columns."],
      [{ fields, options: { ...OPTIONS, "blob-descriptor-field": "id" } }, "Field 'id' in 'blob-descriptor-field' must be a BLOB field in table schema."],
      [{ fields, options: { ...OPTIONS, "blob-external-storage-field": "picture" } }, "Field 'picture' in 'blob-external-storage-field' must also be in 'blob-descriptor-field'."],
    ];
    for (const [schema, message] of cases) {
      const e = await failure(() => catalog.createTable("db.t", schema));
      expect([e.code, e.message.endsWith(message)]).toEqual(["INVALID_ARGUMENT", true]);
    }
  });

  const bin = (values: ReadonlyArray<Uint8Array | null>) => arrow.vectorFromArray(values, new arrow.Binary()).data[0];
  const ints = (values: number[]) => arrow.vectorFromArray(values, new arrow.Int32()).data[0];
  const bytes = (seed: number, n: number) => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) & 0xff);
  async function blobTable(options: Record<string, string> = {}, extraFields: Array<{ name: string; type: string }> = []) {
    const wh = tempDir();
    const catalog = await Catalog.open(wh);
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields: [...fields, ...extraFields], options: { ...OPTIONS, ...options } });
    return { wh, catalog, t, bucket: path.join(wh, "db.db", "t", "bucket-0") };
  }
  async function commit(t: Awaited<ReturnType<typeof blobTable>>["t"], batches: arrow.RecordBatch[]) {
    const w = await t.newWrite({ commitUser: "u" });
    for (const b of batches) await w.write(b);
    const c = t.newCommit({ commitUser: "u" });
    await c.commit(await w.prepareCommit());
    await w.close();
  }
  async function readRows(t: Awaited<ReturnType<typeof blobTable>>["t"], options: Parameters<typeof t.newRead>[0] = {}) {
    const out = await t.newRead(options).toArrow((await t.newScan().plan()).splits);
    return out.toArray().map((r) => Object.fromEntries(Object.entries(r.toJSON()).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v])));
  }
  const hex = (v: Uint8Array | null) => (v === null ? null : Buffer.from(v).toString("hex"));

  it("writes the normal file and rolled .blob files as Java does: same rows, file order, row ids, metadata", async () => {
    const { t, bucket } = await blobTable({ "blob.target-file-size": "2 kb" }, [{ name: "thumb", type: "BLOB" }]);
    const pictures = [bytes(1, 1), bytes(2, 1001), null, bytes(3, 3001), bytes(4, 4001)];
    const thumbs = [bytes(5, 10), null, bytes(6, 0), bytes(7, 10), bytes(8, 10)];
    await commit(t, [new arrow.RecordBatch({ id: ints([0, 1, 2]), picture: bin(pictures.slice(0, 3)), thumb: bin(thumbs.slice(0, 3)) }), new arrow.RecordBatch({ id: ints([3, 4]), picture: bin(pictures.slice(3)), thumb: bin(thumbs.slice(3)) })]);
    await commit(t, [new arrow.RecordBatch({ id: ints([5, 6]), picture: bin([bytes(9, 500), null]), thumb: bin([null, null]) })]);
    const snapshot = (await t.snapshotManager.latestSnapshot())!;
    expect(snapshot.nextRowId).toBe(7n);
    const files = (await t.manifestStore.liveEntries(snapshot)).map((e) => e.file);
    // Java's order and counters: the normal file, then each column's blob files (picture rolled after 3001 bytes took it past 2 kb)
    const name = (f: DataFileMeta) => f.fileName.replace(/^data-[0-9a-f-]{36}-/, "");
    expect(files.map((f) => [name(f), f.rowCount, f.firstRowId, f.minSequenceNumber, f.maxSequenceNumber, f.writeCols, f.valueStatsCols, f.fileSource])).toEqual([
      ["0.parquet", 5n, 0n, 1n, 1n, ["id"], null, 0],
      ["1.blob", 4n, 0n, 1n, 1n, ["picture"], [], 0],
      ["3.blob", 1n, 4n, 1n, 1n, ["picture"], [], 0],
      ["2.blob", 5n, 0n, 1n, 1n, ["thumb"], [], 0],
      ["0.parquet", 2n, 5n, 2n, 2n, ["id"], null, 0],
      ["1.blob", 2n, 5n, 2n, 2n, ["picture"], [], 0],
      ["2.blob", 2n, 5n, 2n, 2n, ["thumb"], [], 0],
    ]);
    expect(snapshot.totalRecordCount).toBe(21n); // (blob files' rows count, as Java's)
    // the blob files' bytes are what Java's writer writes for those values
    const blob = async (f: DataFileMeta) => new Uint8Array(await fsp.readFile(path.join(bucket, f.fileName)));
    expect(await blob(files[1])).toEqual(javaBlobFile(pictures.slice(0, 4)));
    expect(await blob(files[2])).toEqual(javaBlobFile(pictures.slice(4)));
    expect(await blob(files[3])).toEqual(javaBlobFile(thumbs));
    expect(files.map((f) => f.fileSize)).toEqual(await Promise.all(files.map(async (f) => BigInt((await fsp.stat(path.join(bucket, f.fileName))).size))));
    expect(await readRows(t)).toEqual([...pictures, bytes(9, 500), null].map((p, i) => ({ id: i, picture: hex(p), thumb: i < 5 ? hex(thumbs[i]) : null })));
    expect(await readRows(t, { batchSize: 2, projection: ["thumb", "id"] })).toEqual([...thumbs, null, null].map((v, i) => ({ thumb: hex(v), id: i })));
  });

  it("a sliced input batch writes its own rows to the blob files (Arrow JS slices the offsets with the Data)", async () => {
    const { t } = await blobTable();
    const values = [bytes(1, 10), bytes(2, 20), null, bytes(3, 30), bytes(4, 40)];
    await commit(t, [new arrow.RecordBatch({ id: ints([0, 1, 2, 3, 4]), picture: bin(values) }).slice(2)]);
    expect(await readRows(t)).toEqual(values.slice(2).map((p, i) => ({ id: i + 2, picture: hex(p) })));
  });

  it("a normal file that rolls (target-file-size) closes the blob files of its rows: each group keeps its row ids", async () => {
    const { t } = await blobTable({ "target-file-size": "1 b", "blob.target-file-size": "1 mb" });
    const values = [bytes(1, 10), null, bytes(2, 20), bytes(3, 30), bytes(4, 40)];
    // (LargeBinary input too)
    await commit(t, [new arrow.RecordBatch({ id: ints([0, 1]), picture: bin(values.slice(0, 2)) }), new arrow.RecordBatch({ id: ints([2, 3, 4]), picture: arrow.vectorFromArray(values.slice(2), new arrow.LargeBinary()).data[0] })]);
    const files = (await t.manifestStore.liveEntries((await t.snapshotManager.latestSnapshot())!)).map((e) => e.file);
    expect(files.map((f) => [f.fileName.replace(/^data-[0-9a-f-]{36}-/, ""), f.rowCount, f.firstRowId, f.minSequenceNumber, f.writeCols])).toEqual([
      ["0.parquet", 2n, 0n, 1n, ["id"]],
      ["1.blob", 2n, 0n, 1n, ["picture"]],
      ["2.parquet", 3n, 2n, 1n, ["id"]],
      ["3.blob", 3n, 2n, 1n, ["picture"]],
    ]);
    expect(await readRows(t, { batchSize: 2 })).toEqual(values.map((v, i) => ({ id: i, picture: hex(v) })));
  });

  it("row ids at commit as Java's RowTrackingCommitUtils: each blob file continues its column's rows from the normal file before it", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 6 }), fc.bigInt({ min: 0n, max: 1000n }), (groups, next) => {
        // per normal file of n rows, for each of two columns the blob files splitting its rows into pieces
        const entries: ManifestEntry[] = [];
        const expected: Array<bigint> = [];
        let start = next;
        for (const [n, cuts] of groups) {
          const file = (name: string, rows: number, column?: string) => ({ kind: 0, partition: new Uint8Array(0), bucket: 0, totalBuckets: -1, file: makeDataFileMeta({ fileName: name, fileSize: 1n, rowCount: BigInt(rows), minSequenceNumber: 0n, maxSequenceNumber: BigInt(rows - 1), schemaId: 0, fileSource: 0, writeCols: column ? [column] : ["id"] }) }) as ManifestEntry;
          entries.push(file("d.parquet", n));
          expected.push(start);
          for (const column of ["a", "b"]) {
            let at = start;
            let left = n;
            for (const cut of [...cuts, n]) {
              const rows = Math.min(cut, left);
              if (rows <= 0) break;
              entries.push(file(`${column}.blob`, rows, column));
              expected.push(at);
              at += BigInt(rows);
              left -= rows;
            }
          }
          start += BigInt(n);
        }
        const assigned = assignRowTracking(7, next, entries);
        expect(assigned.entries.map((e) => e.file.firstRowId)).toEqual(expected);
        expect(assigned.entries.every((e) => e.file.minSequenceNumber === 7n && e.file.maxSequenceNumber === 7n)).toBe(true);
        expect(assigned.nextRowId).toBe(start);
      }),
    );
  });

  it("descriptor fields: serialized BlobDescriptors stored inline as Java re-serializes them; a malformed one is INVALID_ARGUMENT with nothing written", async () => {
    const { t, bucket } = await blobTable({ "blob-descriptor-field": "picture" });
    const tableDir = path.dirname(bucket);
    await fsp.mkdir(path.join(tableDir, "assets"), { recursive: true });
    await fsp.writeFile(path.join(tableDir, "assets", "a.bin"), bytes(3, 300));
    const inside = serializeBlobDescriptor(path.join(tableDir, "assets", "a.bin"), 10, 100);
    const v1 = Uint8Array.from([1, ...inside.subarray(9)]); // version 1: stored as version 2
    const outside = serializeBlobDescriptor("/elsewhere/x.bin", 0, 4); // stored (Java does not check); reads refuse it
    const w = await t.newWrite({ commitUser: "u" });
    const bad = await failure(() => w.write(new arrow.RecordBatch({ id: ints([1, 2]), picture: bin([inside, Uint8Array.of(1, 2, 3)]) })));
    expect([bad.code, bad.message]).toEqual(["INVALID_ARGUMENT", "column picture of table db.t ('blob-descriptor-field'): row 1: not a serialized BlobDescriptor (truncated); a descriptor field holds serialized BlobDescriptors (Java: magic 'BLOBDESC')"]);
    expect(await w.prepareCommit()).toEqual([]);
    await w.write(new arrow.RecordBatch({ id: ints([1, 2, 3]), picture: bin([v1, null, outside]) }));
    const messages = await w.prepareCommit();
    await t.newCommit({ commitUser: "u" }).commit(messages);
    await w.close();
    expect((await fsp.readdir(bucket)).filter((f) => f.endsWith(".blob"))).toEqual([]);
    const files = (await t.manifestStore.liveEntries((await t.snapshotManager.latestSnapshot())!)).map((e) => e.file);
    expect(files.map((f) => f.writeCols)).toEqual([["id", "picture"]]);
    expect(await readRows(t.copy({ "blob-as-descriptor": "true" }))).toEqual([{ id: 1, picture: hex(inside) }, { id: 2, picture: null }, { id: 3, picture: hex(outside) }]);
    expect(await readRows(t, { filter: col("id").lt(3), predicateFilter: true })).toEqual([{ id: 1, picture: hex(bytes(3, 300).subarray(10, 110)) }, { id: 2, picture: null }]);
    expect((await failure(() => readRows(t))).code).toBe("UNSUPPORTED");
  });

  it("refuse external-storage fields, blob-as-descriptor writes, updates of .blob columns and bad input, with nothing written", async () => {
    const external = await blobTable({ "blob-descriptor-field": "picture", "blob-external-storage-field": "picture", "blob-external-storage-path": "/tmp/x" });
    const batch = new arrow.RecordBatch({ id: ints([1]), picture: bin([Uint8Array.of(1)]) });
    const e1 = await failure(async () => (await external.t.newWrite({ commitUser: "u" })).write(batch));
    expect([e1.code, e1.message]).toEqual(["UNSUPPORTED", "write on table db.t: BLOB columns in 'blob-external-storage-field' (picture) are not supported: Java writes their bytes to 'blob-external-storage-path', outside the table, and paimon-rt writes nothing outside the table"]);
    const { t, bucket } = await blobTable();
    const e2 = await failure(async () => (await t.copy({ "blob-as-descriptor": "true" }).newWrite({ commitUser: "u" })).write(batch));
    expect([e2.code, e2.message.startsWith("write on table db.t: writing with 'blob-as-descriptor' = 'true' is not supported")]).toEqual(["UNSUPPORTED", true]);
    const w = await t.newWrite({ commitUser: "u" });
    const e3 = await failure(() => w.write(new arrow.RecordBatch({ id: ints([1]), picture: arrow.vectorFromArray(["text"], new arrow.Utf8()).data[0] })));
    expect([e3.code, e3.message]).toEqual(["INVALID_ARGUMENT", "column picture of table db.t is BLOB: its values must be Arrow Binary, LargeBinary or FixedSizeBinary, got Utf8"]);
    expect(await w.prepareCommit()).toEqual([]);
    await w.write(batch);
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    const e4 = await failure(() => w.writeColumns(0n, new arrow.RecordBatch({ picture: bin([Uint8Array.of(2)]) })));
    expect([e4.code, e4.message]).toEqual(["UNSUPPORTED", "writeColumns on table db.t: updating BLOB columns stored in .blob files (picture) is not supported; paimon-rt updates other columns and 'blob-descriptor-field' columns"]);
    await w.writeColumns(0n, new arrow.RecordBatch({ id: ints([7]) }));
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    expect(await readRows(t)).toEqual([{ id: 7, picture: "01" }]);
    expect((await fsp.readdir(bucket)).length).toBe(3);
  });

  it("compact rewrites the normal files only, as Java's coordinator (compactBlob false); blob files kept and matched by row id", async () => {
    const { t } = await blobTable({ "blob.target-file-size": "1 kb", "compaction.min.file-num": "2" });
    const values = [0, 1, 2, 3, 4, 5].map((i) => (i === 2 ? null : bytes(i, 300 * i)));
    await commit(t, [new arrow.RecordBatch({ id: ints([0, 1, 2]), picture: bin(values.slice(0, 3)) })]);
    await commit(t, [new arrow.RecordBatch({ id: ints([3, 4, 5]), picture: bin(values.slice(3)) })]);
    const before = await readRows(t);
    const blobsBefore = (await t.manifestStore.liveEntries((await t.snapshotManager.latestSnapshot())!)).map((e) => e.file).filter((f) => f.fileName.endsWith(".blob"));
    const w = await t.newWrite({ commitUser: "u" });
    await w.compact();
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const snapshot = (await t.snapshotManager.latestSnapshot())!;
    expect(snapshot.commitKind).toBe("COMPACT");
    const files = (await t.manifestStore.liveEntries(snapshot)).map((e) => e.file);
    const normal = files.filter((f) => !f.fileName.endsWith(".blob"));
    expect(normal.map((f) => [f.rowCount, f.firstRowId, f.minSequenceNumber, f.maxSequenceNumber, f.writeCols, f.fileSource])).toEqual([[6n, 0n, 1n, 2n, ["id"], 0]]);
    expect(files.filter((f) => f.fileName.endsWith(".blob"))).toEqual(blobsBefore);
    expect(await readRows(t)).toEqual(before);
  });
});
