// Randomized model test of string primary keys and partition values over all of Unicode: keys whose UTF-16 order and
// UTF-8 byte order differ (U+E000–U+FFFF against surrogate pairs), a leading U+FEFF, NUL, empty
// strings. Upserts, deletes, compactions and commits are compared with a Map model after every
// commit; range filters with Java's order (BinaryString: unsigned UTF-8 bytes). Values are read
// from the Arrow buffers (apache-arrow's `get` drops a leading U+FEFF).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import { DataTypes as T } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { tableColumn } from "../format/helpers.js";
import { createPkTable, type Row, toBatch } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

const keyArb = fc.oneof(
  fc.constantFrom("", "\uFEFF", "\uFEFFa", "a", "\u0000", "a\u0000", "\uFFFF", "\uE000", "😀", "\u{10FFFF}", "é", "e"),
  // no lone surrogates (they have no UTF-8)
  fc.string({ unit: "binary", maxLength: 4 }).filter((s) => !/\p{Cs}/u.test(s)),
);

type Op = { kind: "write"; rows: Array<{ dt: string; name: string; v: number; del: boolean }> } | { kind: "commit"; compact: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.record({ dt: keyArb, name: keyArb, v: fc.integer({ min: 0, max: 99 }), del: fc.boolean() }), { minLength: 1, maxLength: 20 }).map((rows) => ({ kind: "write" as const, rows })) },
  { weight: 2, arbitrary: fc.boolean().map((compact) => ({ kind: "commit" as const, compact })) },
);

const utf8 = new TextEncoder();
function compareBytes(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

type Visible = [dt: string, name: string, v: string | null];
const byKey = (a: Visible, b: Visible) => compareBytes(a[0], b[0]) || compareBytes(a[1], b[1]);

async function visible(table: Table, filter?: Predicate): Promise<Visible[]> {
  const plan = await table.newScan({ filter }).plan();
  const t = await table.newRead({ filter, predicateFilter: true }).toArrow(plan.splits);
  const dts = tableColumn(t, "dt", T.STRING()) as string[];
  const names = tableColumn(t, "name", T.STRING()) as string[];
  const vs = tableColumn(t, "v", T.STRING()) as Array<string | null>;
  return names.map((n, i) => [dts[i]!, n, vs[i]!] as Visible).sort(byKey);
}

const row = (dt: string, name: string, v: number): Row => ({ dt, id: 1n, name, v: String(v), n: null });
const keyOf = (dt: string, name: string) => JSON.stringify([dt, name]);

describe("string primary keys over all of Unicode", () => {
  it("randomized: upserts, deletes, compactions and byte-order range filters match a Map model", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), keyArb, fc.constantFrom<Record<string, boolean>>({}, { "deletion-vectors.enabled": true }), async (ops, bound, options) => {
        const table = await createPkTable({ bucket: 1, ...options });
        const model = new Map<string, number>();
        let pending: Array<{ dt: string; name: string; v: number; del: boolean }> = [];
        const write = await table.newWrite({ commitUser: "u" });
        try {
          for (const [step, op] of [...ops, { kind: "commit", compact: false } as Op].entries()) {
            if (op.kind === "write") {
              await write.write(toBatch(op.rows.map((r) => row(r.dt, r.name, r.v))), { rowKinds: op.rows.map((r) => (r.del ? RowKind.DELETE : RowKind.INSERT)) });
              pending = pending.concat(op.rows);
              continue;
            }
            if (op.compact) await write.compact({ full: true });
            await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit());
            for (const r of pending) r.del ? model.delete(keyOf(r.dt, r.name)) : model.set(keyOf(r.dt, r.name), r.v);
            pending = [];
            const expected = [...model.entries()].map(([k, v]) => [...(JSON.parse(k) as [string, string]), String(v)] as Visible).sort(byKey);
            expect(await visible(table), `step ${step}`).toEqual(expected);
            expect(await visible(table, col("name").lt(bound)), `step ${step} name < bound`).toEqual(expected.filter(([, n]) => compareBytes(n, bound) < 0));
            expect(await visible(table, col("dt").eq(bound)), `step ${step} dt = bound`).toEqual(expected.filter(([d]) => d === bound));
            expect(await visible(table, col("name").eq(bound)), `step ${step} name = bound`).toEqual(expected.filter(([, n]) => n === bound));
          }
        } finally {
          await write.close();
        }
      }),
      { numRuns: runs(40) },
    );
  }, 120_000);
});
