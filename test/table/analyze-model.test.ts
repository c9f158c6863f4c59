// Table.analyze() against a reference model (src/commit/analyze.ts): random upserts, deletes and
// compactions of a primary-key table, then the statistics analyze commits — merged record count
// and the column statistics — must be those of the model's live rows. And the statistics file
// format (src/spec/statistics.ts) reads back what it writes.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { parseStatistics, statisticsToJson, type ColStats, type Statistics } from "../../src/spec/statistics.js";
import { readStatistics } from "../../src/table/statistics.js";
import { rtCommitRows } from "../interop/rt-commit.js";
import { cleanupDirs, tempDir } from "../realtime/helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

const fields = [
  { name: "id", type: "INT NOT NULL" },
  { name: "v", type: "BIGINT" },
  { name: "s", type: "STRING" },
];

type Row = { id: number; v: string | null; s: string | null };
const rowArb: fc.Arbitrary<Row & { del: boolean }> = fc.record({
  id: fc.integer({ min: 0, max: 9 }),
  v: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), { nil: null }),
  s: fc.option(fc.string({ maxLength: 4, unit: "grapheme" }), { nil: null }),
  del: fc.boolean(),
});
const opArb = fc.record({ rows: fc.array(rowArb, { minLength: 1, maxLength: 6 }), compact: fc.boolean() });

describe("analyze() against a model", () => {
  it("counts, distinct values, nulls, min / max and byte lengths of the merged rows", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 4 }), async (ops) => {
        const catalog = await Catalog.open(tempDir("paimon-rt-analyze-model-"));
        await catalog.createDatabase("db");
        const t = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options: { bucket: "1" } });
        const live = new Map<number, Row>();
        for (const op of ops) {
          // (one version of a key per commit: the writer keeps the last of a batch as the model does)
          const rows = [...new Map(op.rows.map((r) => [r.id, r])).values()];
          await rtCommitRows(t, fields, rows.map(({ del, ...r }) => (del ? { _kind: "-D", ...r } : r)), { compact: op.compact });
          for (const { del, ...r } of rows) del ? live.delete(r.id) : live.set(r.id, r);
        }
        const id = await t.analyze({ commitUser: "u" });
        const stats = await readStatistics(t, (await t.snapshot(id!)).statistics!);
        const model = [...live.values()];
        expect(stats.mergedRecordCount).toBe(BigInt(model.length));
        const vs = model.map((r) => r.v).filter((v): v is string => v !== null).map(BigInt);
        const ss = model.map((r) => r.s).filter((s): s is string => s !== null);
        const bytes = ss.map((s) => Buffer.byteLength(s));
        const ids = model.map((r) => r.id);
        const minMax = <T>(xs: T[]) => (xs.length === 0 ? [null, null] : [String(xs.reduce((a, b) => (b < a ? b : a))), String(xs.reduce((a, b) => (b > a ? b : a)))]);
        const expected: Array<[string, ColStats]> = [
          ["id", { colId: 0, distinctCount: BigInt(new Set(ids).size), min: minMax(ids)[0], max: minMax(ids)[1], nullCount: 0n, avgLen: null, maxLen: null }],
          ["v", { colId: 1, distinctCount: BigInt(new Set(vs).size), min: minMax(vs)[0], max: minMax(vs)[1], nullCount: BigInt(model.length - vs.length), avgLen: null, maxLen: null }],
          [
            "s",
            {
              colId: 2,
              distinctCount: BigInt(new Set(ss).size),
              min: null,
              max: null,
              nullCount: BigInt(model.length - ss.length),
              avgLen: ss.length === 0 ? 0n : BigInt(Math.floor(bytes.reduce((a, b) => a + b, 0) / ss.length)),
              maxLen: BigInt(Math.max(0, ...bytes)),
            },
          ],
        ];
        expect([...stats.colStats!]).toEqual(expected);
      }),
      { numRuns: runs(12) },
    );
  }, 120_000);

  it("the statistics file reads back what it writes", () => {
    const big = fc.option(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), { nil: null });
    const colArb: fc.Arbitrary<ColStats> = fc.record({ colId: fc.nat(), distinctCount: big, min: fc.option(fc.string(), { nil: null }), max: fc.option(fc.string(), { nil: null }), nullCount: big, avgLen: big, maxLen: big });
    const statsArb: fc.Arbitrary<Statistics> = fc.record({
      snapshotId: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
      schemaId: fc.bigInt({ min: 0n, max: 100n }),
      mergedRecordCount: big,
      mergedRecordSize: big,
      colStats: fc.option(fc.array(fc.tuple(fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/), colArb), { maxLength: 4 }).map((e) => new Map(e)), { nil: null }),
    });
    fc.assert(
      fc.property(statsArb, (s) => {
        const text = statisticsToJson(s);
        expect(parseStatistics(text, "test")).toEqual(s);
        expect(statisticsToJson(parseStatistics(text, "test"))).toBe(text);
      }),
    );
    expect(() => parseStatistics('{"snapshotId": 1}', "f")).toThrow(/has no snapshotId \/ schemaId/);
    expect(() => parseStatistics('{"snapshotId": 1, "schemaId": 0, "colStats": {"a": {"colId": 0, "min": 5}}}', "f")).toThrow(/colStats\.a\.min is not a string/);
  });
});
