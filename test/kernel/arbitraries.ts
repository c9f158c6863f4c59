// fast-check generators for key columns, sequences and sorted runs.
import fc from "fast-check";
import { type KeyColumn, type KeyColumnType, keyColumnFromValues, keyValue } from "../../src/kernel/columns.js";
import { sortPermutationReference } from "../../src/kernel/reference.js";
import type { SortedRun } from "../../src/kernel/merge.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Values for one column kind, biased towards duplicates and edge cases. */
export function valueArb(type: KeyColumnType): fc.Arbitrary<unknown> {
  switch (type) {
    case "bool":
      return fc.boolean();
    case "int8":
      return fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -128, max: 127 }));
    case "int16":
      return fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -32768, max: 32767 }));
    case "int32":
      return fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer(), fc.constantFrom(-(2 ** 31), 2 ** 31 - 1));
    case "float32":
      return fc.oneof(fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1.5, -1.5), fc.float());
    case "float64":
      return fc.oneof(fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1.5, -1.5), fc.double());
    case "bytes":
      return fc.oneof(
        fc.constantFrom("", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\0", "\u00e9", "\uffff"),
        fc.string({ maxLength: 12 }),
        fc.uint8Array({ maxLength: 16 }),
        fc.string({ minLength: 100, maxLength: 400 }),
      );
    case "decimal128":
      return fc.oneof(
        fc.bigInt({ min: -5n, max: 5n }),
        fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }),
        fc.constantFrom(-(2n ** 64n), 2n ** 64n, 2n ** 63n, -(2n ** 63n) - 1n),
      );
    default:
      return fc.oneof(fc.bigInt({ min: -5n, max: 5n }), fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), fc.constantFrom(INT64_MIN, INT64_MAX));
  }
}

export const ALL_TYPES: KeyColumnType[] = [
  "bool",
  "int8",
  "int16",
  "int32",
  "int64",
  "float32",
  "float64",
  "bytes",
  "timestamp_micros",
  "timestamp_nanos",
  "decimal128",
];

export interface KeyTable {
  types: KeyColumnType[];
  nullable: boolean[];
  rows: unknown[][];
}

/** A table of minRows..maxRows rows over 1..3 random key column kinds, some nullable. */
export function keyTableArb(maxRows = 300, types: KeyColumnType[] = ALL_TYPES, minRows = 0): fc.Arbitrary<KeyTable> {
  return fc
    .array(fc.tuple(fc.constantFrom(...types), fc.boolean()), { minLength: 1, maxLength: 3 })
    .chain((cols) =>
      fc.record({
        types: fc.constant(cols.map((c) => c[0])),
        nullable: fc.constant(cols.map((c) => c[1])),
        rows: fc.array(
          fc.tuple(...cols.map(([t, nullable]) => (nullable ? fc.option(valueArb(t), { freq: 4, nil: null }) : valueArb(t)))),
          { minLength: minRows, maxLength: maxRows },
        ),
      }),
    );
}

export function columnsOf(table: KeyTable, rows: unknown[][] = table.rows): KeyColumn[] {
  return table.types.map((t, c) => keyColumnFromValues(t, rows.map((r) => r[c])));
}

export const sequenceArb = (rows: number): fc.Arbitrary<BigInt64Array> =>
  fc.array(fc.oneof(fc.bigInt({ min: 0n, max: 3n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), {
    minLength: rows,
    maxLength: rows,
  }).map((s) => BigInt64Array.from(s));

/** Reorders a column by `perm` (via plain values). */
export function take(col: KeyColumn, perm: ArrayLike<number>): KeyColumn {
  const values = Array.from({ length: perm.length }, (_, i) => {
    const v = keyValue(col, perm[i]);
    return typeof v === "boolean" ? v : v;
  });
  return keyColumnFromValues(col.type, values);
}

/** 1..maxRuns runs over the same key kinds, each sorted by (key, sequence). */
export function sortedRunsArb(
  maxRuns = 6,
  maxRows = 120,
  types: KeyColumnType[] = ALL_TYPES,
  { maxColumns = 2, nullable = fc.boolean(), sequence = fc.bigInt({ min: 0n, max: 6n }) }: { maxColumns?: number; nullable?: fc.Arbitrary<boolean>; sequence?: fc.Arbitrary<bigint> } = {},
): fc.Arbitrary<SortedRun[]> {
  return fc
    .array(fc.tuple(fc.constantFrom(...types), nullable), { minLength: 1, maxLength: maxColumns })
    .chain((cols) => {
      const rowArb = fc.tuple(
        fc.tuple(...cols.map(([t, nullable]) => (nullable ? fc.option(valueArb(t), { freq: 4, nil: null }) : valueArb(t)))),
        sequence,
        fc.integer({ min: 0, max: 3 }),
      );
      return fc.array(fc.array(rowArb, { maxLength: maxRows }), { minLength: 1, maxLength: maxRuns }).map((runs) =>
        runs.map((rows) => {
          const keys = cols.map(([t], c) => keyColumnFromValues(t, rows.map((r) => r[0][c])));
          const sequence = BigInt64Array.from(rows.map((r) => r[1]));
          const perm = sortPermutationReference(keys, sequence);
          return {
            keys: keys.map((k) => take(k, perm)),
            sequence: BigInt64Array.from(perm, (p) => sequence[p]),
            rowKinds: Int8Array.from(perm, (p) => rows[p][2]),
          };
        }),
      );
    });
}
