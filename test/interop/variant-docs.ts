/**
 * Random JSON documents for the VARIANT interop tests (variant-interop.test.ts,
 * variant-shredded-write-interop.test.ts): number texts of every width, nested documents, object
 * documents for the shredding schema of those tests, and documents Java's schema inference takes.
 */
import fc from "fast-check";

/** JSON number texts Java parses as each number type: integers of each width and beyond, decimals, exponents. */
export const numberText = fc.oneof(
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.integer({ min: -40000, max: 40000 }).map(String),
  fc.tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.nat({ max: 40 })).map(([u, s]) => {
    const digits = (u < 0n ? -u : u).toString().padStart(s + 1, "0");
    return `${u < 0n ? "-" : ""}${s === 0 ? digits : `${digits.slice(0, digits.length - s)}.${digits.slice(digits.length - s)}`}`;
  }),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -330, max: 330 })).map(([m, e]) => `${m}e${e}`),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);
export const KEYS = ["a", "b", "c", "d", "e", "f", "é", "😀", "x y", ""];
export const docValue: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberText,
    fc.constantFrom("null", "true", "false"),
    fc.string({ unit: "grapheme", maxLength: 80 }).map((s) => JSON.stringify(s)),
    fc.array(tie("v"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
    fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie("v")), { maxLength: 6, selector: ([k]) => k }).map((fields) => `{${fields.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(", ")}}`),
  ),
})).v;

// object documents with the shredded keys holding values of the typed type or not
export const objectDoc = fc
  .record(
    {
      a: fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map(String), numberText, fc.constant('"text"')),
      b: fc.oneof(fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => JSON.stringify(s)), fc.constant("12")),
      c: fc.oneof(fc.array(fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), docValue), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`), fc.constant("null")),
      d: fc.oneof(fc.record({ x: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)), y: docValue }, { requiredKeys: [] }).map((o) => `{${Object.entries(o).map(([k, v]) => `"${k}":${v}`).join(",")}}`), fc.constant("[]")),
      e: fc.oneof(fc.tuple(fc.integer({ min: -99999999, max: 99999999 }), fc.nat({ max: 2 })).map(([u, s]) => (s === 0 ? String(u) : (u / 10 ** s).toFixed(s))), fc.constant("true")),
      other: docValue,
      f: fc.boolean().map(String),
    },
    { requiredKeys: [] },
  )
  .map((o) => `{${Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
// documents for Java's schema inference, which fails ("Decimal scale must be between 0 and the
// precision") on a decimal whose trailing zeros strip to a negative scale (1200.00 is 1.2E+3):
// integers, decimals ending in a non-zero digit, strings, arrays of integers, nested objects
export const inferDoc = fc
  .record(
    {
      a: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map(String),
      b: fc.oneof(fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => JSON.stringify(s)), fc.constant("12")),
      c: fc.array(fc.integer().map(String), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`),
      d: fc.record({ x: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x.toExponential()), y: fc.constantFrom('"y"', "true", "[1]") }, { requiredKeys: [] }).map((o) => `{${Object.entries(o).map(([k, v]) => `"${k}":${v}`).join(",")}}`),
      e: fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 9 })).map(([whole, tenth, last]) => `${whole}.${tenth}${last}`),
      f: fc.boolean().map(String),
      rare: fc.constant('"r"'),
    },
    { requiredKeys: ["a"] },
  )
  .map((o) => `{${Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);

/** The shredding shape (a Paimon ROW type's JSON) of `objectDoc`'s keys: values of other types stay in `value`. */
export const OBJECT_DOC_SHAPE = {
  type: "ROW",
  fields: [
    { id: 0, name: "a", type: "INT" },
    { id: 1, name: "b", type: "STRING" },
    { id: 2, name: "c", type: { type: "ARRAY", element: "BIGINT" } },
    { id: 3, name: "d", type: { type: "ROW", fields: [{ id: 0, name: "x", type: "DOUBLE" }] } },
    { id: 4, name: "e", type: "DECIMAL(10, 2)" },
    { id: 5, name: "f", type: "BOOLEAN" },
  ],
};
