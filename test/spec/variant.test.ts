/**
 * VARIANT encoding (src/spec/variant.ts) with exact bytes: the number types Java's
 * GenericVariant.fromJson chooses, object / array headers (sorted fields, id and offset widths,
 * large sizes), metadata dictionaries, toJson of every primitive type as Java prints it,
 * variantOf ≡ variantFromJson(JSON.stringify) on random JSON values, and refusals.
 * (Byte equality with Java itself: test/interop/variant-interop.test.ts.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { type Variant, VariantBuilder } from "../../src/spec/variant-encoding.js";
import { variantFromJson, variantOf, variantToJson, variantToValue } from "../../src/spec/variant.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const EMPTY_METADATA = "010000"; // version 1, offset size 1, no keys

function expectError(fn: () => unknown, code: string, text: string): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(PaimonError);
  expect((error as PaimonError).code).toBe(code);
  expect((error as PaimonError).message).toContain(text);
}

describe("variantFromJson: Java's bytes", () => {
  it.each([
    ["null", "00"],
    ["true", "04"],
    ["false", "08"],
    ["1", "0c01"],
    ["-0", "0c00"],
    ["-128", "0c80"],
    ["128", "108000"],
    ["-32769", "14ff7fffff"],
    ["2147483648", "180000008000000000"],
    ["9223372036854775807", "18ffffffffffffff7f"],
    // a fraction without exponent: DECIMAL (scale byte, little-endian unscaled)
    ["1.50", "200296000000"],
    ["-0.0", "200100000000"],
    // exponent or more than 38 digits: DOUBLE
    ["1e5", "1c00000000006af840"],
    ["123456789012345678901234567890123456789", "1c800558693a38d747"],
    ['"ab"', "096162"],
  ])("%s", (json, value) => {
    const v = variantFromJson(json);
    expect(hex(v.metadata)).toBe(EMPTY_METADATA);
    expect(hex(v.value)).toBe(value);
  });

  it("decimals of each width", () => {
    // 12345678905 × 10^-1: precision 11 > 9 → DECIMAL8
    expect(hex(variantFromJson("1234567890.5").value)).toBe("2401" + "391cdcdf02000000");
    // -(2^63 + 1): DECIMAL16, 16 bytes two's complement
    expect(hex(variantFromJson("-9223372036854775809").value)).toBe("2800" + "ffffffffffffff7fffffffffffffffff");
    // 38 digits with scale 38 still DECIMAL16; scale 39 is a double
    expect(variantFromJson(`0.${"1".repeat(38)}`).value[0]).toBe(0x28);
    expect(variantFromJson(`0.${"1".repeat(39)}`).value[0]).toBe(0x1c);
  });

  it("objects: fields sorted by key, ids in first-seen order, metadata keys unsorted", () => {
    const v = variantFromJson('{"b":1,"a":[true,false,null],"c":{"b":"x"}}');
    // keys b=0 a=1 c=2; header 0x02 (1-byte ids and offsets), 3 fields, ids of a,b,c = 1,0,2, offsets 2,0,11, end 18;
    // data in appended order: b's 1, a's array [true,false,null], c's object {"b":"x"}
    expect(hex(v.value)).toBe("02" + "03" + "010002" + "02000b12" + "0c01" + "030300010203040800" + "02010000020578");
    expect(hex(v.metadata)).toBe("0103000102036261" + "63");
    expect(Buffer.from(v.value).toString("base64")).toBe("AgMBAAICAAsSDAEDAwABAgMECAACAQAAAgV4"); // Java's bytes
  });

  it("long strings, large arrays and objects, wide offsets", () => {
    const long = "x".repeat(64);
    expect(hex(variantFromJson(JSON.stringify(long)).value)).toBe("4040000000" + "78".repeat(64));
    expect(hex(variantFromJson(JSON.stringify("y".repeat(63))).value)).toBe("fd" + "79".repeat(63));
    const big = variantFromJson(JSON.stringify(Array.from({ length: 300 }, (_, i) => i % 100)));
    // large flag (bit 4 of the array header), 4-byte size, 2-byte offsets (600 bytes of data)
    expect(hex(big.value.subarray(0, 5))).toBe("17" + "2c010000"); // 0x17 = array | (offset size 2 - 1) << 2 | large << 4
    const obj = variantFromJson(JSON.stringify(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${String(i).padStart(3, "0")}`, i]))));
    // object header: large, 2-byte ids (ids up to 299), 2-byte offsets
    expect(obj.value[0]).toBe(0x02 | (1 << 6) | (1 << 4) | (1 << 2));
    expect(variantToJson(obj)).toBe(JSON.stringify(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${String(i).padStart(3, "0")}`, i]))));
    // metadata with 2-byte offsets once the key bytes pass 255
    expect(obj.metadata[0]).toBe(0x41);
  });

  it("a lone surrogate is '?' in the bytes (Java's String.getBytes)", () => {
    expect(hex(variantFromJson('"\\ud800x"').value)).toBe("093f78");
  });

  it("refuses malformed JSON, trailing content and duplicate keys", () => {
    expectError(() => variantFromJson('{"a":1,"a":2}'), "INVALID_ARGUMENT", 'duplicate object key "a"');
    expectError(() => variantFromJson("[1,]"), "INVALID_ARGUMENT", "unexpected character at offset 3");
    expectError(() => variantFromJson("1 2"), "INVALID_ARGUMENT", "trailing content");
    expectError(() => variantFromJson("01"), "INVALID_ARGUMENT", "trailing content");
    expectError(() => variantFromJson('"a\nb"'), "INVALID_ARGUMENT", "malformed string");
    expectError(() => variantFromJson("{1:2}"), "INVALID_ARGUMENT", "expected a key");
    expectError(() => variantFromJson(""), "INVALID_ARGUMENT", "unexpected character at offset 0");
  });
});

describe("variantToJson: Java's text", () => {
  const built = (fill: (b: VariantBuilder) => void): Variant => {
    const b = new VariantBuilder();
    fill(b);
    return b.result();
  };
  it.each<[string, (b: VariantBuilder) => void, string]>([
    ["double in plain range", (b) => b.appendDouble(123.456), "123.456"],
    ["double integral", (b) => b.appendDouble(1e6), "1000000.0"],
    ["double large", (b) => b.appendDouble(1e7), "1.0E7"],
    ["double small", (b) => b.appendDouble(1.5e-7), "1.5E-7"],
    ["double at 1e-3", (b) => b.appendDouble(0.001), "0.001"],
    ["negative zero", (b) => b.appendDouble(-0), "-0.0"],
    ["NaN quoted", (b) => b.appendDouble(NaN), '"NaN"'],
    ["-Infinity quoted", (b) => b.appendDouble(-Infinity), '"-Infinity"'],
    ["float shortest", (b) => b.appendFloat(0.1), "0.1"],
    ["float large", (b) => b.appendFloat(3.4028234663852886e38), "3.4028235E38"],
    ["decimal trailing zeros stripped", (b) => b.appendDecimal(1500n, 3), "1.5"],
    ["decimal zero", (b) => b.appendDecimal(0n, 2), "0"],
    ["decimal negative small", (b) => b.appendDecimal(-5n, 4), "-0.0005"],
    ["decimal16", (b) => b.appendDecimal(-(10n ** 30n) - 1n, 2), "-10000000000000000000000000000.01"],
    ["date", (b) => b.appendDate(19723), '"2024-01-01"'],
    ["date before the epoch", (b) => b.appendDate(-1), '"1969-12-31"'],
    ["timestamp (UTC offset)", (b) => b.appendTimestamp(1_704_067_200_123_000n), '"2024-01-01 00:00:00.123+00:00"'],
    ["timestamp before the epoch", (b) => b.appendTimestamp(-1n), '"1969-12-31 23:59:59.999999+00:00"'],
    ["timestamp_ntz", (b) => b.appendTimestampNtz(1_704_067_261_000_000n), '"2024-01-01 00:01:01"'],
    ["binary base64", (b) => b.appendBinary(new Uint8Array([0, 1, 255])), '"AAH/"'],
    ["string escapes", (b) => b.appendString('a"\\\b\t\n\f\r\u0001\u001fé'), '"a\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001Fé"'],
  ])("%s", (_, fill, json) => {
    expect(variantToJson(built(fill))).toBe(json);
  });

  it("uuid (big-endian bytes)", () => {
    const value = new Uint8Array([0x50, ...Array.from({ length: 16 }, (_, i) => i * 17)]);
    expect(variantToJson({ value, metadata: new Uint8Array([1, 0, 0]) })).toBe('"00112233-4455-6677-8899-aabbccddeeff"');
  });

  it("malformed bytes are CORRUPT_FILE", () => {
    expectError(() => variantToJson({ value: new Uint8Array([0x0c]), metadata: new Uint8Array([1, 0, 0]) }), "CORRUPT_FILE", "Malformed VARIANT value");
    expectError(() => variantToJson({ value: new Uint8Array([0x00]), metadata: new Uint8Array([2, 0, 0]) }), "CORRUPT_FILE", "metadata version");
    // object naming key id 5 of an empty dictionary
    expectError(() => variantToJson({ value: new Uint8Array([0x02, 1, 5, 0, 1, 0]), metadata: new Uint8Array([1, 0, 0]) }), "CORRUPT_FILE", "key id 5 outside a dictionary of 0");
    expectError(() => variantToJson({ value: new Uint8Array([0x15 << 2]), metadata: new Uint8Array([1, 0, 0]) }), "UNSUPPORTED", "VARIANT primitive type 21");
  });
});

describe("variantOf and variantToValue", () => {
  it("JSON-like values give variantFromJson(JSON.stringify(value))'s bytes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const a = variantOf(value);
        const b = variantFromJson(JSON.stringify(value));
        expect(hex(a.value)).toBe(hex(b.value));
        expect(hex(a.metadata)).toBe(hex(b.metadata));
      }),
      { numRuns: 300 },
    );
  });

  it("toJson of fromJson parses back to the same JSON value (integers and doubles exact)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(JSON.parse(variantToJson(variantFromJson(text)))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it("bigints, Dates, Uint8Arrays and undefined properties", () => {
    expect(hex(variantOf(2n ** 40n).value)).toBe("180000000000010000");
    expect(hex(variantOf(10n ** 20n).value)).toBe("2800" + "000010632d5ec76b0500000000000000");
    expect(hex(variantOf(new Date(Date.UTC(2024, 0, 1))).value)).toBe("30" + "00202110d70d0600");
    expect(hex(variantOf(new Uint8Array([7, 8])).value)).toBe("3c020000000708");
    expect(hex(variantOf({ a: undefined, b: [undefined] }).value)).toBe(hex(variantFromJson('{"b":[null]}').value));
    expect(variantToValue(variantOf({ big: 2n ** 60n, small: 5, d: 1.25, s: "x", bin: new Uint8Array([1]), when: new Date(0), n: null }))).toEqual({
      big: 2n ** 60n,
      bin: new Uint8Array([1]),
      d: "1.25",
      n: null,
      s: "x",
      small: 5,
      when: "1970-01-01 00:00:00+00:00",
    });
  });

  it("refuses values JSON cannot hold", () => {
    expectError(() => variantOf(NaN), "INVALID_ARGUMENT", "non-finite number NaN");
    expectError(() => variantOf(() => 1), "INVALID_ARGUMENT", "a function is not a VARIANT value");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expectError(() => variantOf(cyclic), "INVALID_ARGUMENT", "cyclic value");
    expectError(() => variantOf(10n ** 40n), "INVALID_ARGUMENT", "more than 38 digits");
  });

  it("a __proto__ key is an ordinary field", () => {
    const v = variantFromJson('{"__proto__":1}');
    const value = variantToValue(v) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(variantToJson(v)).toBe('{"__proto__":1}');
  });
});
