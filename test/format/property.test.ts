import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readParquet, writeParquet } from "../../src/format/index.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { batch, tableColumn } from "./helpers.js";

const F = T.FIELD;
const fields = [F(0, "i", T.BIGINT()), F(1, "s", T.STRING()), F(2, "d", T.DOUBLE())];
const enc = new TextEncoder();
const byteCmp = (a: string, b: string) => {
  const x = enc.encode(a);
  const y = enc.encode(b);
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
  return x.length - y.length;
};

describe("property: round trip and full-mode stats match a naive computation", () => {
  it("random rows", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            i: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
            s: fc.option(fc.string({ unit: "grapheme", maxLength: 20 })),
            d: fc.option(fc.double({ noNaN: true })),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        async (rows) => {
          const cols = { i: rows.map((r) => r.i), s: rows.map((r) => r.s), d: rows.map((r) => r.d) };
          const r = await writeParquet(fields, batch(fields, cols), { statsMode: "full", compression: "snappy" });
          const t = await readParquet(r.bytes, { fields });
          expect(tableColumn(t, "i", T.BIGINT())).toEqual(cols.i);
          expect(tableColumn(t, "s", T.STRING())).toEqual(cols.s);
          expect(tableColumn(t, "d", T.DOUBLE())).toEqual(cols.d);
          const is = cols.i.filter((v): v is bigint => v !== null);
          const ss = cols.s.filter((v): v is string => v !== null).sort(byteCmp);
          const ds = cols.d.filter((v): v is number => v !== null);
          expect(r.stats[0]).toMatchObject({
            nullCount: rows.length - is.length,
            min: is.length ? is.reduce((a, b) => (b < a ? b : a)) : null,
            max: is.length ? is.reduce((a, b) => (b > a ? b : a)) : null,
          });
          expect(r.stats[1]).toMatchObject({ nullCount: rows.length - ss.length, min: ss[0] ?? null, max: ss[ss.length - 1] ?? null });
          if (ds.length) {
            expect(r.stats[2]!.min === Math.min(...ds) || (Math.min(...ds) === 0 && Object.is(r.stats[2]!.min, -0))).toBe(true);
            expect(r.stats[2]!.max === Math.max(...ds)).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
