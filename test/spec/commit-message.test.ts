import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  COMMIT_MESSAGE_VERSION,
  CommitMessageSerializer,
  dataFileMetaArity,
  dataFileMetaFromRow,
  dataFileMetaToRow,
  deserializeCommitMessage,
  deserializeCommitMessageList,
  indexFileMetaToRow,
  isCommitMessageEmpty,
  makeCommitMessage,
  serializeCommitMessage,
  serializeCommitMessageList,
  type CommitMessageData,
} from "../../src/spec/commit-message.js";
import { EMPTY_ROW_SERIALIZED, serializeBinaryRow, toBinaryRow } from "../../src/spec/binary-row.js";
import { emptyStats, makeDataFileMeta, type DataFileMeta, type IndexFileMeta, type SimpleStats } from "../../src/spec/manifest.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { PaimonError } from "../../src/error.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));

// Java CommitMessageSerializer v14 output ("BinaryRow.EMPTY_ROW, bucket 3, checkFromSnapshot 7"),
// as captured in apache/paimon paimon-python/pypaimon/tests/commit_message_serializer_test.py
// and format reference §11.3.
const JAVA_EMPTY = b64("AAAADAAAAAAAAAAAAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAABw==");
const JAVA_INDEXED = b64(
  "AAAADAAAAAAAAAAAAAAAAAAAAAMBAAAABQAAAAAAAAAAAAAAAAAAAAEAAABAAHAAAAAAAABJAAAAAAAAgWluZGV4AACFCQAA" +
    "AAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAABw==",
);
const JAVA_RICH_INDEXED = b64(
  "AAAADAAAAAAAAAAAAAAAAAAAAAMBAAAABQAAAAAAAAAAAAAAAAAAAAEAAADgAAAAAAAAAABEVgAAAAAAgmluZGV4AACFCQAA" +
    "AAAAAAACAAAAAAAAAEgAAABAAAAACwAAAIgAAABIAAAAmAAAAAEAAAAAAAAAOAAAABAAAAAAAAAAAAAAAAwAAAAoAAAAAwAA" +
    "AAAAAAAMAAAAAAAAAAIAAAAAAAAAZGF0YS5wYXJxdWV0AAAAAGZpbGU6L2luZGV4AAAAAAAAAAAAAAAAAAoAAAAAAAAAFAAA" +
    "AAAAAAADAAAAAAAAABAAAAA4AAAAAQIAAAAAAIIDAAAAAAAAgQIAAAAAAAAAAQAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
    "AAAAAAABAAAAAAAAAAc=",
);

const SIMPLE_INDEX: IndexFileMeta = {
  indexType: "I",
  fileName: "index",
  fileSize: 9n,
  rowCount: 2n,
  dvRanges: null,
  externalPath: null,
  globalIndex: null,
};

const RICH_INDEX: IndexFileMeta = {
  indexType: "DV",
  fileName: "index",
  fileSize: 9n,
  rowCount: 2n,
  dvRanges: [{ dataFileName: "data.parquet", offset: 3, length: 12, cardinality: 2n }],
  externalPath: "file:/index",
  globalIndex: {
    rowRangeStart: 10n,
    rowRangeEnd: 20n,
    indexFieldId: 3,
    extraFieldIds: [1, 4],
    indexMeta: new Uint8Array([1, 2]),
    sourceMeta: new Uint8Array([3]),
  },
};

describe("Java-captured v14 goldens (§11.3)", () => {
  const empty = makeCommitMessage({ partition: EMPTY_ROW_SERIALIZED, bucket: 3, checkFromSnapshot: 7n });
  const indexed = makeCommitMessage({
    partition: EMPTY_ROW_SERIALIZED,
    bucket: 3,
    totalBuckets: 5,
    dataIncrement: { newIndexFiles: [SIMPLE_INDEX] },
    checkFromSnapshot: 7n,
  });
  const rich = makeCommitMessage({
    partition: EMPTY_ROW_SERIALIZED,
    bucket: 3,
    totalBuckets: 5,
    dataIncrement: { newIndexFiles: [RICH_INDEX] },
    checkFromSnapshot: 7n,
  });

  const cases: Array<[string, CommitMessageData, Uint8Array, number]> = [
    ["EMPTY", empty, JAVA_EMPTY, 70],
    ["INDEXED", indexed, JAVA_INDEXED, -1],
    ["RICH_INDEXED", rich, JAVA_RICH_INDEXED, 302],
  ];
  for (const [name, message, golden, size] of cases) {
    it(`${name}: serialize reproduces the Java bytes`, () => {
      if (size >= 0) expect(golden.length).toBe(size);
      expect(COMMIT_MESSAGE_VERSION).toBe(14);
      expect(hex(serializeCommitMessage(message))).toBe(hex(golden));
    });
    it(`${name}: deserialize(14) gives the message and re-serializes identically`, () => {
      const m = deserializeCommitMessage(14, golden);
      expect(m).toEqual(message);
      expect(m.checkFromSnapshot).toBe(7n);
      expect(hex(serializeCommitMessage(m))).toBe(hex(golden));
    });
  }

  it("decoded fields of INDEXED / RICH_INDEXED", () => {
    const m = deserializeCommitMessage(14, JAVA_INDEXED);
    expect(m.bucket).toBe(3);
    expect(m.totalBuckets).toBe(5);
    expect(m.dataIncrement.newIndexFiles[0]!.fileName).toBe("index");
    const r = deserializeCommitMessage(14, JAVA_RICH_INDEXED).dataIncrement.newIndexFiles[0]!;
    expect(r.dvRanges).toEqual(RICH_INDEX.dvRanges);
    expect(r.globalIndex).toEqual(RICH_INDEX.globalIndex);
    expect(r.externalPath).toBe("file:/index");
  });

  it("the same body read as v13 has 9 trailing bytes (the v14 trailer) -> CORRUPT_FILE", () => {
    expect(() => deserializeCommitMessage(13, JAVA_EMPTY)).toThrow(PaimonError);
    try {
      deserializeCommitMessage(13, JAVA_EMPTY);
    } catch (e) {
      expect((e as PaimonError).code).toBe("CORRUPT_FILE");
      expect((e as Error).message).toMatch(/9 trailing bytes/);
    }
    // v13 without the trailer parses
    const v13 = JAVA_EMPTY.subarray(0, JAVA_EMPTY.length - 9);
    const m = deserializeCommitMessage(13, v13);
    expect(m.checkFromSnapshot).toBeNull();
    expect(hex(serializeCommitMessage(m, 13))).toBe(hex(v13));
  });

  it("serializeList / deserializeList", () => {
    const list = serializeCommitMessageList([empty, indexed, rich]);
    expect(hex(list)).toBe("00000003" + hex(JAVA_EMPTY) + hex(JAVA_INDEXED) + hex(JAVA_RICH_INDEXED));
    expect(deserializeCommitMessageList(14, list)).toEqual([empty, indexed, rich]);
    expect(hex(serializeCommitMessageList([]))).toBe("00000000");
    expect(deserializeCommitMessageList(14, new Uint8Array(4))).toEqual([]);
  });

  it("CommitMessageSerializer object mirrors the API statics", () => {
    expect(CommitMessageSerializer.currentVersion()).toBe(14);
    expect(hex(CommitMessageSerializer.serialize(empty))).toBe(hex(JAVA_EMPTY));
    expect(CommitMessageSerializer.deserialize(14, JAVA_EMPTY)).toEqual(empty);
    expect(isCommitMessageEmpty(empty)).toBe(true);
    expect(isCommitMessageEmpty(indexed)).toBe(false);
  });
});

describe("bad bytes", () => {
  const expectCorrupt = (f: () => unknown, re?: RegExp): void => {
    let err: unknown;
    try {
      f();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaimonError);
    expect((err as PaimonError).code).toBe("CORRUPT_FILE");
    if (re) expect((err as Error).message).toMatch(re);
  };

  it("every truncation of the goldens is CORRUPT_FILE", () => {
    for (const g of [JAVA_EMPTY, JAVA_INDEXED, JAVA_RICH_INDEXED]) {
      for (let n = 0; n < g.length; n++) expectCorrupt(() => deserializeCommitMessage(14, g.subarray(0, n)));
    }
  });

  it("trailing bytes, bad booleans, negative sizes, broken rows", () => {
    expectCorrupt(() => deserializeCommitMessage(14, new Uint8Array([...JAVA_EMPTY, 0])), /trailing/);
    const badBool = JAVA_EMPTY.slice();
    badBool[20] = 2; // hasTotalBuckets
    expectCorrupt(() => deserializeCommitMessage(14, badBool), /boolean/);
    const negList = JAVA_EMPTY.slice();
    new DataView(negList.buffer).setInt32(21, -1, false);
    expectCorrupt(() => deserializeCommitMessage(14, negList), /negative list size/);
    const badPartition = JAVA_EMPTY.slice();
    new DataView(badPartition.buffer).setInt32(4, 5, false); // arity 5 in an 8-byte row
    expectCorrupt(() => deserializeCommitMessage(14, badPartition), /partition/);
    // IndexFileMeta row whose var-length slot points outside the row
    const badRow = JAVA_RICH_INDEXED.slice();
    const rowStart = 12 + 4 + 4 + 5 + 12 + 4 + 4;
    new DataView(badRow.buffer).setUint32(rowStart + 8 + 5 * 8 + 4, 0x7fff, true); // _EXTERNAL_PATH offset
    expectCorrupt(() => deserializeCommitMessage(14, badRow), /newIndexFiles\[0\]/);
    // a null non-nullable field
    const nullName = JAVA_INDEXED.slice();
    nullName[rowStart + 1] |= 0x02; // null bit of _FILE_NAME (field 1 -> bit 9)
    expectCorrupt(() => deserializeCommitMessage(14, nullName), /_FILE_NAME is null/);
  });

  it("unknown versions are UNSUPPORTED", () => {
    for (const v of [0, 15, 1.5]) {
      expect(() => deserializeCommitMessage(v, JAVA_EMPTY)).toThrow(expect.objectContaining({ code: "UNSUPPORTED" }));
    }
    expect(() => serializeCommitMessage(makeCommitMessage({ partition: EMPTY_ROW_SERIALIZED, bucket: 0 }), 9)).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED" }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Random messages
// ---------------------------------------------------------------------------------------------

const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const name = fc.oneof(fc.constantFrom("a", "data-0.parquet", "é✓"), fc.string({ maxLength: 20 }));
const bytes = fc.uint8Array({ maxLength: 20 });
const nullable = <V>(a: fc.Arbitrary<V>): fc.Arbitrary<V | null> => fc.option(a, { nil: null });

const serializedRow = fc.oneof(
  fc.constant(EMPTY_ROW_SERIALIZED),
  fc.tuple(fc.integer(), name).map(([i, s]) => serializeBinaryRow(toBinaryRow([i, s], [T.INT(), T.STRING()]), 2)),
  nullable(fc.string({ maxLength: 12 })).map((s) => serializeBinaryRow(toBinaryRow([s], [T.STRING()]), 1)),
);

const stats: fc.Arbitrary<SimpleStats> = fc.record({
  minValues: serializedRow,
  maxValues: serializedRow,
  nullCounts: nullable(fc.array(nullable(fc.bigInt({ min: 0n, max: 1000n })), { maxLength: 4 })),
});

const dataFile: fc.Arbitrary<DataFileMeta> = fc.record({
  fileName: name,
  fileSize: i64,
  rowCount: i64,
  minKey: serializedRow,
  maxKey: serializedRow,
  keyStats: stats,
  valueStats: stats,
  minSequenceNumber: i64,
  maxSequenceNumber: i64,
  schemaId: fc.integer({ min: 0, max: 2 ** 40 }),
  level: fc.integer({ min: 0, max: 10 }),
  extraFiles: fc.array(name, { maxLength: 3 }),
  creationTime: nullable(fc.integer({ min: -(2 ** 50), max: 2 ** 50 })),
  deleteRowCount: nullable(i64),
  embeddedIndex: nullable(bytes),
  fileSource: nullable(fc.constantFrom(0 as const, 1 as const)),
  valueStatsCols: nullable(fc.array(name, { maxLength: 3 })),
  externalPath: nullable(name),
  firstRowId: nullable(i64),
  writeCols: nullable(fc.array(name, { maxLength: 3 })),
  writeColsSequences: nullable(fc.array(i64, { maxLength: 3 })),
});

const indexFile: fc.Arbitrary<IndexFileMeta> = fc.record({
  indexType: fc.constantFrom("HASH", "DELETION_VECTORS", "btree"),
  fileName: name,
  fileSize: i64,
  rowCount: i64,
  dvRanges: nullable(
    fc.array(fc.record({ dataFileName: name, offset: i32, length: i32, cardinality: nullable(i64) }), { maxLength: 3 }),
  ),
  externalPath: nullable(name),
  globalIndex: nullable(
    fc.record({
      rowRangeStart: i64,
      rowRangeEnd: i64,
      indexFieldId: i32,
      extraFieldIds: nullable(fc.array(i32, { maxLength: 3 })),
      indexMeta: nullable(bytes),
      sourceMeta: nullable(bytes),
    }),
  ),
});

const files = fc.array(dataFile, { maxLength: 2 });
const indexes = fc.array(indexFile, { maxLength: 2 });

const message: fc.Arbitrary<CommitMessageData> = fc.record({
  partition: serializedRow,
  bucket: i32,
  totalBuckets: nullable(fc.integer({ min: 1, max: 1000 })),
  dataIncrement: fc.record({ newFiles: files, deletedFiles: files, changelogFiles: files, newIndexFiles: indexes, deletedIndexFiles: indexes }),
  compactIncrement: fc.record({ compactBefore: files, compactAfter: files, changelogFiles: files, newIndexFiles: indexes, deletedIndexFiles: indexes }),
  checkFromSnapshot: nullable(i64),
});

/** What a body of `version` can carry of `m` (fields older layouts do not have become null). */
function projectTo(m: CommitMessageData, version: number): CommitMessageData {
  const arity = dataFileMetaArity(version);
  const file = (f: DataFileMeta): DataFileMeta => ({
    ...f,
    fileSource: arity > 15 ? f.fileSource : null,
    valueStatsCols: arity > 16 ? f.valueStatsCols : null,
    externalPath: arity > 17 ? f.externalPath : null,
    firstRowId: arity > 18 ? f.firstRowId : null,
    writeCols: arity > 19 ? f.writeCols : null,
    writeColsSequences: arity > 20 ? f.writeColsSequences : null,
  });
  const index = (x: IndexFileMeta): IndexFileMeta => ({
    ...x,
    dvRanges: x.dvRanges && (version >= 5 ? x.dvRanges : x.dvRanges.map((d) => ({ ...d, cardinality: null }))),
    externalPath: version >= 9 ? x.externalPath : null,
    globalIndex: version >= 11 && x.globalIndex ? { ...x.globalIndex, sourceMeta: version >= 12 ? x.globalIndex.sourceMeta : null } : null,
  });
  const d = m.dataIncrement;
  const c = m.compactIncrement;
  return {
    partition: m.partition,
    bucket: m.bucket,
    totalBuckets: version >= 7 ? m.totalBuckets : null,
    dataIncrement: {
      newFiles: d.newFiles.map(file),
      deletedFiles: d.deletedFiles.map(file),
      changelogFiles: d.changelogFiles.map(file),
      newIndexFiles: d.newIndexFiles.map(index),
      deletedIndexFiles: d.deletedIndexFiles.map(index),
    },
    compactIncrement: {
      compactBefore: c.compactBefore.map(file),
      compactAfter: c.compactAfter.map(file),
      changelogFiles: c.changelogFiles.map(file),
      newIndexFiles: c.newIndexFiles.map(index),
      deletedIndexFiles: c.deletedIndexFiles.map(index),
    },
    checkFromSnapshot: version >= 14 ? m.checkFromSnapshot : null,
  };
}

/** A hand-built body in the pre-v10 layout (§11.1 / Java `deserialize` branch `version < 10`). */
function legacyBody(m: CommitMessageData, version: number, indexFiles: IndexFileMeta[], deletedIndexFiles: IndexFileMeta[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const int = (v: number): void => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, v, false);
    parts.push(b);
  };
  const rows = (list: Uint8Array[]): void => {
    int(list.length);
    for (const r of list) {
      int(r.length);
      parts.push(r);
    }
  };
  int(m.partition.length);
  parts.push(m.partition);
  int(m.bucket);
  if (version >= 7) {
    parts.push(new Uint8Array([m.totalBuckets === null ? 0 : 1]));
    if (m.totalBuckets !== null) int(m.totalBuckets);
  }
  const d = m.dataIncrement;
  const c = m.compactIncrement;
  for (const l of [d.newFiles, d.deletedFiles, d.changelogFiles, c.compactBefore, c.compactAfter, c.changelogFiles])
    rows(l.map((f) => dataFileMetaToRow(f, version)));
  rows(indexFiles.map((f) => indexFileMetaToRow(f, version)));
  if (version > 2) rows(deletedIndexFiles.map((f) => indexFileMetaToRow(f, version)));
  return new Uint8Array(Buffer.concat(parts));
}

describe("property: round trips", () => {
  it("serialize/deserialize at v14 is the identity; re-serialization is byte-identical", () => {
    fc.assert(
      fc.property(message, (m) => {
        const bytes = serializeCommitMessage(m);
        const back = deserializeCommitMessage(14, bytes);
        expect(back).toEqual(m);
        expect(hex(serializeCommitMessage(back))).toBe(hex(bytes));
      }),
      { numRuns: 200 },
    );
  });

  it("versions 10..13 keep what their layout can carry", () => {
    fc.assert(
      fc.property(message, fc.integer({ min: 10, max: 13 }), (m, version) => {
        const bytes = serializeCommitMessage(m, version);
        expect(deserializeCommitMessage(version, bytes)).toEqual(projectTo(m, version));
      }),
      { numRuns: 150 },
    );
  });

  it("lists", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 3 }), (ms) => {
        expect(deserializeCommitMessageList(14, serializeCommitMessageList(ms))).toEqual(ms);
      }),
      { numRuns: 50 },
    );
  });

  it("legacy layouts (v1..v9): file lists first, index files routed by compact-increment emptiness", () => {
    fc.assert(
      fc.property(message, fc.integer({ min: 1, max: 9 }), indexes, indexes, (m0, version, newIdx, delIdx) => {
        const m = projectTo(m0, version);
        const bytes = legacyBody(m, version, newIdx, delIdx);
        const back = deserializeCommitMessage(version, bytes);
        const c = m.compactIncrement;
        const compactEmpty = c.compactBefore.length + c.compactAfter.length + c.changelogFiles.length === 0;
        const proj = (l: IndexFileMeta[]): IndexFileMeta[] =>
          projectTo(makeCommitMessage({ partition: EMPTY_ROW_SERIALIZED, bucket: 0, dataIncrement: { newIndexFiles: l } }), version).dataIncrement
            .newIndexFiles;
        const expected = structuredClone(m);
        expected.dataIncrement.newIndexFiles = compactEmpty ? proj(newIdx) : [];
        expected.compactIncrement.newIndexFiles = compactEmpty ? [] : proj(newIdx);
        const deleted = version > 2 ? proj(delIdx) : [];
        const deletedToCompact = !compactEmpty;
        expected.dataIncrement.deletedIndexFiles = deletedToCompact ? [] : deleted;
        expected.compactIncrement.deletedIndexFiles = deletedToCompact ? deleted : [];
        expect(back).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});

describe("DataFileMeta rows", () => {
  it("a typical append file round-trips at every version's arity", () => {
    const f = makeDataFileMeta({
      fileName: "data-6f0b6c2e-0.parquet",
      fileSize: 1234n,
      rowCount: 10n,
      minSequenceNumber: 0n,
      maxSequenceNumber: 9n,
      schemaId: 0,
      valueStats: {
        minValues: serializeBinaryRow(toBinaryRow([1, "a"], [T.INT(), T.STRING()]), 2),
        maxValues: serializeBinaryRow(toBinaryRow([10, "zzzzzzzzzzzz"], [T.INT(), T.STRING()]), 2),
        nullCounts: [0n, 3n],
      },
      creationTime: 1715700000000,
      deleteRowCount: 0n,
      fileSource: 0,
    });
    for (let v = 1; v <= 14; v++) {
      const back = dataFileMetaFromRow(dataFileMetaToRow(f, v), v);
      expect(back.fileName).toBe(f.fileName);
      expect(back.valueStats).toEqual(f.valueStats);
      expect(back.creationTime).toBe(1715700000000);
      expect(back.fileSource).toBe(v >= 3 ? 0 : null);
    }
    // field layout: 21 fields -> 8 null-bit bytes + 21 slots; keyStats empty -> nested row
    const row = dataFileMetaToRow(f);
    expect(row.length % 8).toBe(0);
    expect(dataFileMetaArity(14)).toBe(21);
    expect(emptyStats().nullCounts).toEqual([]);
  });
});
