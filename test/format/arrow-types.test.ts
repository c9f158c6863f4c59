import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { convertData, makeNullData } from "../../src/format/arrow-types.js";

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
});
