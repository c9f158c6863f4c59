// rankBySequenceFields against a reference of Java's order (UserDefinedSeqComparator: the sequence
// fields one by one, nulls first in both sort orders, non-null values reversed when descending;
// then _SEQUENCE_NUMBER; then chunk and row): random chunks of INT, BIGINT, STRING, BOOLEAN,
// DECIMAL(20, 2) and DOUBLE (-0.0 equal to 0.0) fields with nulls and ties.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rankBySequenceFields } from "../../src/read/sequence-order.js";
import type { KvBatch } from "../../src/read/merge-functions.js";
import { valuesToData } from "../interop/convert.js";
import { runs } from "../support/fc-runs.js";

type Row = { i: number | null; b: string | null; s: string | null; t: boolean | null; d: string | null; f: number | null; seq: bigint };

const rowArb: fc.Arbitrary<Row> = fc.record({
  i: fc.option(fc.constantFrom(-2147483648, -1, 0, 1, 2147483647), { nil: null }),
  b: fc.option(fc.constantFrom("-9223372036854775808", "-1", "0", "9223372036854775807"), { nil: null }),
  s: fc.option(fc.constantFrom("", "a", "ab", "b", "é", "\u{1F600}"), { nil: null }),
  t: fc.option(fc.boolean(), { nil: null }),
  d: fc.option(fc.constantFrom("-99999999999999999.99", "-0.01", "0.00", "0.01", "12345678901234567.89"), { nil: null }),
  f: fc.option(fc.constantFrom(-0, 0, -1.5, 2.25, -Infinity), { nil: null }),
  seq: fc.bigInt({ min: 0n, max: 5n }),
});

const TYPES: Record<string, arrow.DataType> = { i: new arrow.Int32(), b: new arrow.Int64(), s: new arrow.Utf8(), t: new arrow.Bool(), d: new arrow.Decimal(2, 20, 128), f: new arrow.Float64() };
const NAMES = ["i", "b", "s", "t", "d", "f"] as const;

function batchOf(rows: readonly Row[]): KvBatch {
  const children = NAMES.map((n) => valuesToData(TYPES[n], rows.map((r) => r[n])));
  const schema = new arrow.Schema(NAMES.map((n) => new arrow.Field(n, TYPES[n], true)));
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, children });
  return { batch: new arrow.RecordBatch(schema, data), sequence: BigInt64Array.from(rows.map((r) => r.seq)), kinds: new Int8Array(rows.length) };
}

const utf8 = new TextEncoder();
function compareValue(name: (typeof NAMES)[number], x: unknown, y: unknown): number {
  switch (name) {
    case "s":
      return Buffer.compare(Buffer.from(utf8.encode(x as string)), Buffer.from(utf8.encode(y as string)));
    case "b":
      return BigInt(x as string) < BigInt(y as string) ? -1 : BigInt(x as string) > BigInt(y as string) ? 1 : 0;
    case "d": {
      const p = BigInt((x as string).replace(".", ""));
      const q = BigInt((y as string).replace(".", ""));
      return p < q ? -1 : p > q ? 1 : 0;
    }
    case "t":
      return Number(x) - Number(y);
    case "f": // Java's generated comparator: -0.0 equals 0.0
      return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
    default:
      return (x as number) - (y as number);
  }
}

describe("rankBySequenceFields", () => {
  it("orders rows as Java's sequence comparator, then _SEQUENCE_NUMBER, then chunk and row", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(rowArb, { maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(fc.constantFrom(0, 1, 2, 3, 4, 5), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(undefined, "ascending", "descending", "DESCENDING"),
        (chunks, columns, sortOrder) => {
          const batches = chunks.map(batchOf);
          const ranked = rankBySequenceFields(batches, columns, sortOrder);
          const descending = sortOrder?.toLowerCase() === "descending";
          const all = chunks.flatMap((rows, c) => rows.map((row, r) => ({ row, c, r, rank: ranked[c].sequence[r] })));
          const expected = [...all].sort((x, y) => {
            for (const col of columns) {
              const name = NAMES[col];
              const a = x.row[name];
              const b = y.row[name];
              if (a === null || b === null) {
                if (a === b) continue;
                return a === null ? -1 : 1;
              }
              const cmp = compareValue(name, a, b);
              if (cmp !== 0) return descending ? -cmp : cmp;
            }
            return x.row.seq < y.row.seq ? -1 : x.row.seq > y.row.seq ? 1 : x.c - y.c || x.r - y.r;
          });
          // ranks are 0..n-1 in exactly that order; batches and kinds are passed through
          expect(expected.map((x) => x.rank)).toEqual(expected.map((_, i) => BigInt(i)));
          ranked.forEach((k, c) => {
            expect(k.batch).toBe(batches[c].batch);
            expect(k.kinds).toBe(batches[c].kinds);
          });
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
