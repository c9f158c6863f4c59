// The `.offset` sidecar (key → offset) of append-deduplicate data files in paimon-cpp's layout:
// exact bytes of a hand-computed example, key encodings of every supported type, ordering,
// lookups against a model (randomized), and CORRUPT_FILE / INVALID_ARGUMENT on bad input.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readArrowField } from "../../src/format/arrow-types.js";
import { encodeSidecarKey, KeyOffsetSidecar, KeyOffsetSidecarWriter, offsetSidecarOf } from "../../src/fileindex/key-offset-sidecar.js";
import { PaimonError } from "../../src/error.js";
import type { DataType } from "../../src/spec/types.js";

const BIGINT: DataType = { kind: "BIGINT", nullable: false };
const STRING: DataType = { kind: "VARCHAR", nullable: false, length: 2147483647 } as DataType;

const int64Data = (values: readonly bigint[]) => arrow.makeData({ type: new arrow.Int64(), length: values.length, nullCount: 0, data: BigInt64Array.from(values) });
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

function thrown(f: () => unknown): PaimonError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    return e as PaimonError;
  }
  throw new Error("expected a failure");
}

describe(".offset sidecar", () => {
  it("writes paimon-cpp's layout byte for byte (big-endian framing, little-endian key, keys in byte order)", () => {
    const w = new KeyOffsetSidecarWriter(BIGINT);
    w.add(int64Data([1n, 256n]), BigInt64Array.of(10n, 20n));
    expect(hex(w.serialize())).toBe(
      [
        "5041494d4f464653", // magic "PAIMOFFS"
        "00000001", // version
        "0000000000000002", // entries
        "00000009", "010001000000000000", "0000000000000014", // key 256 (bytes 01 00 01 …) sorts first; offset 20
        "00000009", "010100000000000000", "000000000000000a", // key 1; offset 10
      ].join(""),
    );
  });

  it("encodes keys of every type paimon-cpp's KeySerializer accepts", () => {
    const cases: Array<[DataType, unknown, string]> = [
      [{ kind: "BOOLEAN", nullable: false }, true, "0101"],
      [{ kind: "TINYINT", nullable: false }, -2, "01fe"],
      [{ kind: "SMALLINT", nullable: false }, 258, "010201"],
      [{ kind: "INT", nullable: false }, -1, "01ffffffff"],
      [{ kind: "DATE", nullable: false }, 19000, "01384a0000"],
      [BIGINT, 1n << 40n, "010000000000010000"],
      [{ kind: "FLOAT", nullable: false }, 1.5, "010000c03f"],
      [{ kind: "DOUBLE", nullable: false }, Number.NaN, "01000000000000f87f"], // canonical NaN
      [STRING, "é", "01c3a9"],
      [{ kind: "TIMESTAMP", nullable: false, precision: 3 } as DataType, { millis: 1000n, nanoOfMillisecond: 0 }, "01e803000000000000"],
      [{ kind: "TIMESTAMP", nullable: false, precision: 9 } as DataType, { millis: 1n, nanoOfMillisecond: 300 }, "010100000000000000ac02"],
      [{ kind: "DECIMAL", nullable: false, precision: 10, scale: 2 } as DataType, -5n, "01fbffffffffffffff"],
      [{ kind: "DECIMAL", nullable: false, precision: 30, scale: 2 } as DataType, 255n, "0100ff"],
      [{ kind: "DECIMAL", nullable: false, precision: 30, scale: 2 } as DataType, -129n, "01ff7f"],
      [BIGINT, null, "00"],
    ];
    for (const [type, value, expected] of cases) expect(hex(encodeSidecarKey(type, value)), `${type.kind} ${String(value)}`).toBe(expected);
    const e = thrown(() => new KeyOffsetSidecarWriter({ kind: "VARBINARY", nullable: false, length: 10 } as DataType));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "a .offset sidecar cannot hold keys of type VARBINARY(10) NOT NULL"]);
  });

  it("looks keys up like a map from the last batch's keys (randomized, string keys)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 40 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 20 }), (keys, probes) => {
        const w = new KeyOffsetSidecarWriter(STRING);
        const field = readArrowField({ id: 0, name: "k", type: STRING });
        w.add(arrow.vectorFromArray(keys, field.type).data[0], BigInt64Array.from(keys, (_, i) => BigInt(i * 3)));
        const sidecar = KeyOffsetSidecar.parse(w.serialize(), STRING, "f.offset");
        expect(sidecar.size).toBe(keys.length);
        const all = [...probes, ...keys.slice(0, 3)];
        const found = sidecar.lookup(arrow.vectorFromArray(all, field.type).data[0]);
        const expected = [...new Set(all.filter((p) => keys.includes(p)).map((p) => BigInt(keys.indexOf(p) * 3)))].sort((a, b) => (a < b ? -1 : 1));
        expect(Array.from(found.toBigUint64Array())).toEqual(expected);
        found.dispose();
        for (const p of probes) expect(sidecar.offsetOf(p)).toBe(keys.includes(p) ? BigInt(keys.indexOf(p) * 3) : undefined);
      }),
      { numRuns: 200 },
    );
  });

  it("encodes integer key columns from their buffers exactly as value by value (randomized, sliced columns)", () => {
    const types: Array<[DataType, fc.Arbitrary<number | bigint>, (v: Array<number | bigint>) => arrow.Data]> = [
      [BIGINT, fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (v) => int64Data(v as bigint[])],
      [{ kind: "INT", nullable: false }, fc.integer(), (v) => arrow.makeData({ type: new arrow.Int32(), length: v.length, nullCount: 0, data: Int32Array.from(v as number[]) })],
      [{ kind: "SMALLINT", nullable: false }, fc.integer({ min: -32768, max: 32767 }), (v) => arrow.makeData({ type: new arrow.Int16(), length: v.length, nullCount: 0, data: Int16Array.from(v as number[]) })],
    ];
    for (const [type, values, column] of types) {
      fc.assert(
        fc.property(fc.uniqueArray(values, { minLength: 2, maxLength: 30 }), fc.nat(), (keys, cut) => {
          const from = cut % (keys.length - 1);
          const sliced = column(keys).slice(from, keys.length - from);
          const w = new KeyOffsetSidecarWriter(type);
          w.add(sliced, BigInt64Array.from({ length: sliced.length }, (_, i) => BigInt(i)));
          const sidecar = KeyOffsetSidecar.parse(w.serialize(), type, "f.offset");
          keys.slice(from, from + sliced.length).forEach((k, i) => expect(sidecar.offsetOf(k)).toBe(BigInt(i)));
        }),
        { numRuns: 100 },
      );
    }
  });

  it("refuses duplicate keys, negative offsets and empty sidecars when writing", () => {
    // integer keys are checked when serialized (sorted once), others when added
    const w = new KeyOffsetSidecarWriter(BIGINT);
    w.add(int64Data([1n, 2n]), BigInt64Array.of(1n, 2n));
    w.add(int64Data([3n, 1n]), BigInt64Array.of(3n, 4n));
    expect(thrown(() => w.serialize()).message).toBe("deduplicate data file contains more than one offset for a key");
    const s = new KeyOffsetSidecarWriter(STRING);
    s.add(arrow.vectorFromArray(["a"], new arrow.Utf8()).data[0], BigInt64Array.of(0n));
    expect(thrown(() => s.add(arrow.vectorFromArray(["b", "a"], new arrow.Utf8()).data[0], BigInt64Array.of(1n, 2n))).message).toBe("deduplicate data file contains more than one offset for a key");
    expect(s.size).toBe(1); // the refused batch added nothing
    expect(thrown(() => new KeyOffsetSidecarWriter(BIGINT).add(int64Data([1n]), BigInt64Array.of(-1n))).message).toBe("real-time offset -1 must not be negative");
    expect(thrown(() => new KeyOffsetSidecarWriter(BIGINT).serialize()).message).toBe("cannot finish an empty .offset sidecar");
  });

  it("integer keys: batches with and without nulls give the bytes of one writer fed value by value", () => {
    const keys = [5n, -1n, 127n, 0n, -128n, 70000n];
    const offsets = BigInt64Array.from(keys.map((_, i) => BigInt(10 + i)));
    for (const [type, data] of [
      [BIGINT, int64Data(keys)],
      [{ kind: "INT", nullable: true } as DataType, arrow.makeData({ type: new arrow.Int32(), length: keys.length, nullCount: 0, data: Int32Array.from(keys.map(Number)) })],
      [{ kind: "SMALLINT", nullable: true } as DataType, arrow.makeData({ type: new arrow.Int16(), length: keys.length, nullCount: 0, data: Int16Array.from(keys.map((k) => Number(BigInt.asIntN(16, k)))) })],
      [{ kind: "TINYINT", nullable: true } as DataType, arrow.makeData({ type: new arrow.Int8(), length: keys.length, nullCount: 0, data: Int8Array.from(keys.map((k) => Number(BigInt.asIntN(8, k)))) })],
    ] as const) {
      const fast = new KeyOffsetSidecarWriter(type);
      fast.add(data.slice(0, 3), offsets.subarray(0, 3));
      fast.add(data.slice(3, 3), offsets.subarray(3));
      const expected = [...keys.keys()].map((i) => [hex(encodeSidecarKey(type, type.kind === "BIGINT" ? keys[i] : Number(data.values[i]))), offsets[i]] as const);
      expected.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const bytes = fast.serialize();
      const parsed = KeyOffsetSidecar.parse(bytes, type, "f.offset");
      expect([...parsed.entries()].map(([k, o]) => [hex(Uint8Array.from(k, (c) => c.charCodeAt(0))), o])).toEqual(expected);
      // a later batch with a null key moves the rows to the general path: same bytes plus the null key
      const mixed = new KeyOffsetSidecarWriter({ ...type, nullable: true } as DataType);
      mixed.add(data, offsets);
      const withNull = arrow.vectorFromArray([null], data.type as arrow.DataType).data[0];
      mixed.add(withNull, BigInt64Array.of(99n));
      const all = KeyOffsetSidecar.parse(mixed.serialize(), type, "f.offset");
      expect([...all.entries()].map(([k, o]) => [hex(Uint8Array.from(k, (c) => c.charCodeAt(0))), o])).toEqual([["00", 99n], ...expected]);
    }
  });

  it("refuses corrupt sidecars with CORRUPT_FILE naming the file", () => {
    const w = new KeyOffsetSidecarWriter(BIGINT);
    w.add(int64Data([7n]), BigInt64Array.of(70n));
    const good = w.serialize();
    const variant = (edit: (b: Uint8Array, v: DataView) => void, length = good.length) => {
      const b = new Uint8Array(length);
      b.set(good.subarray(0, Math.min(length, good.length)));
      edit(b, new DataView(b.buffer));
      return b;
    };
    const cases: Array<[Uint8Array, string]> = [
      [variant((b) => (b[0] = 0)), "unsupported .offset sidecar format"],
      [variant((_b, v) => v.setInt32(8, 2)), "unsupported .offset sidecar format"],
      [variant((_b, v) => v.setBigInt64(12, -1n)), "negative entry count in .offset sidecar"],
      [variant((_b, v) => v.setInt32(20, 0)), "invalid key size 0 in .offset sidecar"],
      [variant((_b, v) => v.setBigInt64(33, -3n)), "negative offset -3 in .offset sidecar"],
      [variant(() => {}, good.length + 1), "trailing bytes in .offset sidecar"],
      [variant(() => {}, good.length - 1), "truncated .offset sidecar"],
      [variant((_b, v) => v.setBigInt64(12, 2n)), "truncated .offset sidecar"],
    ];
    for (const [bytes, message] of cases) {
      const e = thrown(() => KeyOffsetSidecar.parse(bytes, BIGINT, "data-0.parquet.offset"));
      expect([e.code, e.message]).toEqual(["CORRUPT_FILE", `data-0.parquet.offset: ${message}`]);
    }
    expect(KeyOffsetSidecar.parse(good, BIGINT, "x").offsetOf(7n)).toBe(70n);
  });

  it("finds the sidecar among a data file's extra files", () => {
    expect(offsetSidecarOf("d.parquet", ["d.parquet.index", "d.parquet.offset"])).toBe("d.parquet.offset");
    expect(offsetSidecarOf("d.parquet", ["d.parquet.index"])).toBeUndefined();
    expect(thrown(() => offsetSidecarOf("d.parquet", ["a.offset", "b.offset"])).message).toBe("data file d.parquet lists 2 .offset sidecars");
  });
});
