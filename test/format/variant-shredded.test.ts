/**
 * The shredded VARIANT rebuild (src/format/variant-shredded.ts) on hand-made Arrow groups: typed
 * object fields first in schema order then the rest of `value`, a missing field (both null)
 * left out, typed arrays and scalars, null rows; and malformed groups as CORRUPT_FILE naming the
 * column. (Java's own files and rebuilt bytes: test/interop/variant-interop.test.ts.)
 */
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { corrupt } from "../../src/format/source.js";
import { shreddedVariantCast } from "../../src/format/variant-shredded.js";
import { variantFromJson, variantToJson } from "../../src/spec/variant.js";
import { toArrowType } from "../../src/spec/types.js";

const VARIANT = toArrowType({ kind: "VARIANT", nullable: true }) as arrow.Struct;
const cast = shreddedVariantCast({ makeData: arrow.makeData, PaimonError, corrupt: (what, detail) => corrupt("f.parquet", `${what}: ${detail}`) }, VARIANT);
const field = (name: string, type: arrow.DataType, nullable = true) => new arrow.Field(name, type, nullable);
const bin = new arrow.Binary();

/** A top-level shredded group: metadata, value, typed_value<a: {value, typed_value INT}, c: {value, typed_value LIST<{value, typed_value BIGINT}>}>. */
const groupType = new arrow.Struct([
  field("metadata", bin, false),
  field("value", bin),
  field(
    "typed_value",
    new arrow.Struct([
      field("a", new arrow.Struct([field("value", bin), field("typed_value", new arrow.Int32())]), false),
      field("c", new arrow.Struct([field("value", bin), field("typed_value", new arrow.List(field("element", new arrow.Struct([field("value", bin), field("typed_value", new arrow.Int64())]))))]), false),
    ]),
  ),
]);

type Row = { metadata: Uint8Array; value: Uint8Array | null; typed_value: { a: { value: Uint8Array | null; typed_value: number | null }; c: { value: Uint8Array | null; typed_value: Array<{ value: Uint8Array | null; typed_value: bigint | null }> | null } } | null } | null;

function rebuild(rows: Row[]): Array<string | null> {
  const data = arrow.vectorFromArray(rows, groupType).data[0]!;
  const out = cast.apply(data, "column v");
  const vector = arrow.makeVector(out);
  return vector.toArray().map((r: { value: Uint8Array; metadata: Uint8Array } | null) => (r === null ? null : variantToJson({ value: r.value, metadata: r.metadata })));
}

describe("shredded VARIANT rebuild", () => {
  const file = variantFromJson('{"a":0,"b":"x","c":0,"z":[1]}'); // the file's metadata: keys a, b, c, z
  const rest = (json: string) => variantFromJson(json); // values of this test use their own metadata below
  it("typed fields, the rest of value, missing fields, arrays, scalars in value, nulls", () => {
    const metadata = file.metadata;
    // the leftover object {"b":"x"} and the scalar "str" encoded against the file's metadata
    const leftover = new Uint8Array([0x02, 1, 1, 0, 2, 0x05, 0x78]); // object: 1 field, id 1 (b), offsets 0,2; "x"
    const str = rest('"str"').value;
    const rows: Row[] = [
      { metadata, value: leftover, typed_value: { a: { value: null, typed_value: 7 }, c: { value: null, typed_value: [{ value: null, typed_value: 5n }, { value: rest('"y"').value, typed_value: null }] } } },
      { metadata, value: null, typed_value: { a: { value: rest("1.5").value, typed_value: null }, c: { value: null, typed_value: null } } },
      { metadata, value: str, typed_value: null },
      null,
    ];
    expect(rebuild(rows)).toEqual(['{"a":7,"b":"x","c":[5,"y"]}', '{"a":1.5}', '"str"', null]);
    // Java's rebuild: keys in rebuild order (a, c, then b from value)
    const data = arrow.vectorFromArray(rows, groupType).data[0]!;
    const first = arrow.makeVector(cast.apply(data, "column v")).get(0)!;
    expect(Buffer.from(first.metadata).toString("hex")).toBe("0103000102036163" + "62");
  });

  it("malformed groups are CORRUPT_FILE naming the file and column", () => {
    const metadata = file.metadata;
    const cases: Array<[Row, string]> = [
      [{ metadata, value: null, typed_value: null }, "shredded VARIANT value: neither value nor typed_value is set"],
      [{ metadata, value: rest("1").value, typed_value: { a: { value: null, typed_value: 1 }, c: { value: null, typed_value: null } } }, "the value beside shredded fields is not an object"],
      // value holds field "a" (id 0), which is shredded
      [{ metadata, value: new Uint8Array([0x02, 1, 0, 0, 2, 0x0c, 1]), typed_value: { a: { value: null, typed_value: 1 }, c: { value: null, typed_value: null } } }, "shredded field a also in value"],
      // value names key id 9 of a 4-key dictionary
      [{ metadata, value: new Uint8Array([0x02, 1, 9, 0, 2, 0x0c, 1]), typed_value: { a: { value: null, typed_value: null }, c: { value: null, typed_value: null } } }, "key id 9 outside a dictionary of 4"],
    ];
    for (const [row, message] of cases) {
      let error: unknown;
      try {
        rebuild([row]);
      } catch (e) {
        error = e;
      }
      expect(error, message).toBeInstanceOf(PaimonError);
      expect((error as PaimonError).code).toBe("CORRUPT_FILE");
      expect((error as PaimonError).message).toContain("Corrupt Parquet file f.parquet: column v");
      expect((error as PaimonError).message).toContain(message);
    }
  });
});
