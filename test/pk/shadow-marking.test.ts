import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type KeyColumn, keyColumnFromValues, keyValue } from "../../src/kernel/columns.js";
import { keyComparator, sortPermutationReference } from "../../src/kernel/reference.js";
import { shadowedRows } from "../../src/read/shadow-marking.js";
import { columnsOf, keyTableArb, take } from "../kernel/arbitraries.js";
import { runs } from "../support/fc-runs.js";

/** The model: the writer's previous lookup, a set of per-row key strings (Double.compare equality for floats). */
function keyString(cols: readonly KeyColumn[], row: number): string {
  let s = "";
  for (const c of cols) {
    const v = keyValue(c, row);
    if (v === null) s += "\u0001N";
    else if (v instanceof Uint8Array) s += `\u0001B${Array.from(v).join(",")}`;
    else s += `\u0001${typeof v === "number" && Object.is(v, -0) ? "-0" : String(v)}`;
  }
  return s;
}

function model(target: readonly KeyColumn[], lookup: readonly (readonly KeyColumn[])[]): number[] {
  const keys = new Set<string>();
  for (const run of lookup) for (let i = 0; i < run[0].length; i++) keys.add(keyString(run, i));
  const out: number[] = [];
  for (let i = 0; i < target[0].length; i++) if (keys.has(keyString(target, i))) out.push(i);
  return out;
}

/** Rows `rows` (ascending) of sorted `cols`, as new columns. */
const subset = (cols: readonly KeyColumn[], rows: number[]) => cols.map((c) => take(c, rows));

describe("shadowedRows (deletion-vector lookup)", () => {
  it("returns the target rows whose key is in a lookup run", () => {
    const target = [keyColumnFromValues("int64", [1n, 3n, 5n, 7n, 9n])];
    const lookup = [[keyColumnFromValues("int64", [0n, 3n, 4n])], [keyColumnFromValues("int64", [9n, 10n])]];
    expect(Array.from(shadowedRows(target, lookup))).toEqual([1, 4]);
    expect(Array.from(shadowedRows(target, []))).toEqual([]);
  });

  it("treats -0.0 and 0.0 as different keys, all NaNs as one, null as a key", () => {
    const target = [keyColumnFromValues("float64", [null, -0, 0, 1, NaN])];
    expect(Array.from(shadowedRows(target, [[keyColumnFromValues("float64", [0, Number("NaN")])]]))).toEqual([2, 4]);
    expect(Array.from(shadowedRows(target, [[keyColumnFromValues("float64", [null, -0])]]))).toEqual([0, 1]);
  });

  /** Splits sorted unique `sorted` values by role bits (1: target, 2: lookup) and checks the result against the model. */
  function checkRoles<T>(type: "int64" | "bytes", sorted: T[], roles: number[]): void {
    const target = [keyColumnFromValues(type, sorted.filter((_, i) => roles[i] & 1))];
    const lookup = [[keyColumnFromValues(type, sorted.filter((_, i) => roles[i] & 2))]];
    if (target[0].length > 0) expect(Array.from(shadowedRows(target, lookup))).toEqual(model(target, lookup));
  }
  const rolesArb = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 60, maxLength: 60 });

  it("compares 64-bit keys by their words: signs, the 2^32 boundary and extremes", () => {
    const valuesArb = fc.uniqueArray(fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -(2n ** 33n), max: 2n ** 33n })), { maxLength: 60 });
    fc.assert(
      fc.property(valuesArb, rolesArb, (values, roles) => checkRoles("int64", [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), roles)),
      { numRuns: runs(300) },
    );
  });

  it("compares strings after the prefix both sides share, including keys that are prefixes of others", () => {
    const suffixArb = fc.uniqueArray(fc.uint8Array({ maxLength: 4 }).map((b) => Array.from(b, (x) => String.fromCharCode(48 + (x % 4))).join("")), { maxLength: 60 });
    fc.assert(
      fc.property(fc.constantFrom("", "key-", "key-0000"), suffixArb, rolesArb, (prefix, suffixes, roles) => {
        const bytes = suffixes.map((s) => new TextEncoder().encode(prefix + s));
        checkRoles("bytes", bytes.sort((a, b) => Buffer.compare(a, b)), roles);
      }),
      { numRuns: runs(300) },
    );
  });

  it("matches the key-string model on random sorted key sets", () => {
    fc.assert(
      fc.property(
        keyTableArb(120).chain((table) =>
          fc.record({
            table: fc.constant(table),
            // per distinct key: 0 neither, 1 target only, 2 lookup only, 3 both
            roles: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: table.rows.length, maxLength: table.rows.length }),
            cuts: fc.array(fc.nat(), { maxLength: 4 }),
          }),
        ),
        ({ table, roles, cuts }) => {
          const all = columnsOf(table);
          const rows = all[0].length;
          // sort and keep one row per key (files hold unique sorted keys)
          const sortedCols = subset(all, Array.from(sortPermutationReference(all, new BigInt64Array(rows))));
          const cmp = keyComparator(sortedCols);
          const unique = Array.from({ length: rows }, (_, i) => i).filter((i) => i === 0 || cmp(i - 1, i) !== 0);
          const inTarget = unique.filter((_, j) => roles[j] === 1 || roles[j] === 3);
          const inLookup = unique.filter((_, j) => roles[j] === 2 || roles[j] === 3);
          if (inTarget.length === 0) return;
          const target = subset(sortedCols, inTarget);
          // the lookup arrives as consecutive sorted chunks
          const bounds = [0, ...cuts.map((c) => c % (inLookup.length + 1)).sort((a, b) => a - b), inLookup.length];
          const lookup = bounds.slice(1).map((end, i) => subset(sortedCols, inLookup.slice(bounds[i], end)));
          expect(Array.from(shadowedRows(target, lookup))).toEqual(model(target, lookup));
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
