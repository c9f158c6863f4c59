// BLOB columns (src/format/blob-file.ts, src/read/blob-read.ts): the blob file format (index,
// entries, CRC, footer) against a model of Java's writer, descriptors, the bunching of rolled
// blob files, schema checks as Java's SchemaValidation, and the refused writes (nothing written).
// Reads of Java's tables: test/interop/blob-interop.test.ts.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { BLOB_MAGIC, blobEntryValue, blobIndexLength, parseBlobDescriptor, parseBlobIndex, serializeBlobDescriptor } from "../../src/format/blob-file.js";
import { blobBunch } from "../../src/read/blob-read.js";
import { crc32 } from "../../src/spec/avro.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
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

  it("refuse writes of BLOB columns with nothing written", async () => {
    const catalog = await Catalog.open(tempDir());
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields, options: OPTIONS });
    const w = await t.newWrite({ commitUser: "u" });
    const batch = new arrow.RecordBatch({ id: arrow.vectorFromArray([1], new arrow.Int32()).data[0], picture: arrow.vectorFromArray([Uint8Array.of(1)], new arrow.Binary()).data[0] });
    const e = await failure(() => w.write(batch));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "write on table db.t: writing BLOB columns (picture) is not supported (paimon-rt reads them; Java writes them to .blob files or as blob descriptors)"]);
    expect(await w.prepareCommit()).toEqual([]);
    await w.close();
  });
});
