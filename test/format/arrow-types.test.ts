import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { convertData, int96Leaves, makeNullData } from "../../src/format/arrow-types.js";
import { parseDataType } from "../../src/spec/types.js";

describe("arrow-types", () => {
  it("makeNullData sizes Decimal128 and FixedSizeBinary value buffers per value", () => {
    const dec = makeNullData(new arrow.Decimal(2, 20, 128), 3);
    expect((dec.values as unknown as Uint32Array).length).toBe(12); // 4 words per value
    expect(dec.nullCount).toBe(3);
    const fsb = makeNullData(new arrow.FixedSizeBinary(5), 3);
    expect((fsb.values as Uint8Array).length).toBe(15);
    // and such a column survives an IPC round trip (what the Parquet writer does)
    const batch = new arrow.RecordBatch({ d: dec });
    const back = arrow.tableFromIPC(arrow.tableToIPC(new arrow.Table([batch])));
    expect(back.getChild("d")!.nullCount).toBe(3);
  });

  it("matches struct children by name with matchBy 'name', ignoring foreign field ids", () => {
    const meta = (id: number) => new Map([["PARQUET:field_id", String(id)]]);
    const from = new arrow.Struct([new arrow.Field("a", new arrow.Int64(), true, meta(0))]);
    const to = new arrow.Struct([new arrow.Field("a", new arrow.Int64(), true, meta(7))]);
    const child = arrow.makeData({ type: new arrow.Int64(), length: 2, nullCount: 0, data: BigInt64Array.from([5n, 6n]) });
    const data = arrow.makeData({ type: from, length: 2, nullCount: 0, children: [child] });
    const byName = convertData(data, to, "r", "name");
    expect(Array.from(byName.children[0]!.values as unknown as BigInt64Array)).toEqual([5n, 6n]);
    expect(byName.children[0]!.nullCount).toBe(0);
    // by id (file columns), a child whose id is absent is missing: nulls
    expect(convertData(data, to, "r").children[0]!.nullCount).toBe(2);
  });

  it("returns a primitive Data of an equal type as it is, and relabels one whose type parameters differ", () => {
    const ts = arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: 2, nullCount: 0, data: BigInt64Array.from([1n, 2n]) });
    // an equal type (another object): the same Data, no copy
    expect(convertData(ts, new arrow.TimestampMicrosecond(), "t")).toBe(ts);
    const s = arrow.vectorFromArray(["a", null, "bc"], new arrow.Utf8()).data[0]!;
    expect(convertData(s, new arrow.Utf8(), "s")).toBe(s);
    // a time zone only in the target: relabelled, same values
    const zoned = convertData(ts, new arrow.TimestampMicrosecond("UTC"), "t");
    expect(zoned).not.toBe(ts);
    expect((zoned.type as arrow.TimestampMicrosecond).timezone).toBe("UTC");
    expect(Array.from(zoned.values as unknown as BigInt64Array)).toEqual([1n, 2n]);
    // decimal precision differs: relabelled
    const dec = arrow.makeData({ type: new arrow.Decimal(2, 10, 128), length: 1, nullCount: 0, data: new Uint32Array([7, 0, 0, 0]) });
    const wider = convertData(dec, new arrow.Decimal(2, 20, 128), "d");
    expect(wider).not.toBe(dec);
    expect((wider.type as arrow.Decimal).precision).toBe(20);
    expect(Array.from(wider.values as unknown as Uint32Array)).toEqual([7, 0, 0, 0]);
  });
});

describe("int96Leaves", () => {
  it("numbers leaves as Parquet does: a VARIANT group has two, a MULTISET its count, nested types their leaves", () => {
    const fields = ["VARIANT", "TIMESTAMP(9)", "MULTISET<INT>", "ROW<a ARRAY<TIMESTAMP(7)>, b INT>", "TIMESTAMP(6)", "MAP<INT, TIMESTAMP(9) WITH LOCAL TIME ZONE>"].map((t, id) => ({ id, name: `f${id}`, type: parseDataType(t) }));
    // leaves: f0 value 0, metadata 1; f1 2; f2 key 3, count 4; f3.a 5, f3.b 6; f4 7; f5 key 8, value 9
    expect([...int96Leaves(fields)]).toEqual([2, 5, 9]);
  });
});
