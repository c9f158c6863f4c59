// merge-engine=partial-update with sequence groups, aggregators in groups and delete handling, as
// Java 1.4.2's PartialUpdateMergeFunction: its own unit cases (PartialUpdateMergeFunctionTest,
// hand-checked against the Java source) on foldRecords, Java's Factory refusals, and tables
// written, merged on read and compacted by paimon-rt.
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { foldRecords, mergeFold } from "../../src/read/merge-functions.js";
import { TableOptions } from "../../src/table/options.js";
import type { DataField } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

type Cell = number | null;
const KIND = { "+I": 0, "-U": 1, "+U": 2, "-D": 3 } as const;
type Kind = keyof typeof KIND;

function intFields(n: number, notNull: number[] = []): DataField[] {
  return Array.from({ length: n }, (_, i) => ({ id: i, name: `f${i}`, type: { kind: "INT", nullable: !notNull.includes(i) } }) as DataField);
}

/** Java's merge function after `records` (in sequence order, key f0), as [values, kind, sequence]. */
function fold(options: Record<string, string>, records: Array<[Kind, ...Cell[]]>, fields = intFields(records[0].length - 1), read = fields): { row: Cell[]; kind: number; seq: bigint } {
  const f = mergeFold("db.t", "partial-update", read, ["f0"], new TableOptions(options), fields);
  const batch = rowsToBatch(
    read.map((fd) => ({ name: fd.name, type: "INT" })),
    records.map((r) => Object.fromEntries(read.map((fd) => [fd.name, r[1 + fields.indexOf(fd)]]))),
  );
  const out = foldRecords([{ batch, sequence: BigInt64Array.from(records, (_, i) => BigInt(i + 1)), kinds: Int8Array.from(records, (r) => KIND[r[0]]) }], [read.findIndex((x) => x.name === "f0")], f)!;
  expect(out.batch.numRows).toBe(1);
  return { row: read.map((_, c) => out.batch.getChildAt(c)!.get(0) as Cell), kind: out.kinds[0], seq: out.sequence[0] };
}

/** Replays Java's add/validate sequence: `steps` are records or expected rows (after the records before them). */
function replay(options: Record<string, string>, steps: Array<[Kind, ...Cell[]] | { expect: Cell[]; kind?: number }>, fields?: DataField[]): void {
  const records: Array<[Kind, ...Cell[]]> = [];
  for (const s of steps) {
    if (Array.isArray(s)) records.push(s);
    else {
      const r = fold(options, records, fields);
      expect(r.row, `after ${records.length} records`).toEqual(s.expect);
      if (s.kind !== undefined) expect(r.kind).toBe(s.kind);
    }
  }
}

const I = (...v: Cell[]): [Kind, ...Cell[]] => ["+I", ...v];
const D = (...v: Cell[]): [Kind, ...Cell[]] => ["-D", ...v];
const UB = (...v: Cell[]): [Kind, ...Cell[]] => ["-U", ...v];
const E = (...v: Cell[]) => ({ expect: v });

describe("partial-update merge function (Java PartialUpdateMergeFunctionTest cases)", () => {
  it("sequence groups: a group updates only from a not older sequence, nulls included; retraction nulls the group's fields", () => {
    const o = { "fields.f3.sequence-group": "f1,f2", "fields.f6.sequence-group": "f4,f5" };
    replay(o, [I(1, 1, 1, 1, 1, 1, 1), I(1, 2, 2, 2, 2, 2, null), E(1, 2, 2, 2, 1, 1, 1), I(1, 3, 3, 1, 3, 3, 3), E(1, 2, 2, 2, 3, 3, 3), D(1, 1, 1, 3, 1, 1, null), E(1, null, null, 3, 3, 3, 3), D(1, 1, 1, 3, 1, 1, 4), E(1, null, null, 3, null, null, 4), I(1, 4, 4, 4, 5, 5, 5), E(1, 4, 4, 4, 5, 5, 5), D(1, 1, 1, 6, 1, 1, 6), E(1, null, null, 6, null, null, 6)]);
    // the last record was a retraction: no insert after it is needed for the row to stay (+I)
    expect(fold(o, [I(1, 1, 1, 1, 1, 1, 1), D(1, 1, 1, 6, 1, 1, 6)]).kind).toBe(0);
    // only retractions: DELETE
    expect(fold(o, [D(1, 1, 1, 1, 1, 1, 1), D(1, 1, 1, 6, 1, 1, 6)]).kind).toBe(3);
  });

  it("partial-update.remove-record-on-sequence-group: a newer -D of that group removes the row (DELETE with the -D's values)", () => {
    const o = { "fields.f3.sequence-group": "f1,f2", "fields.f6.sequence-group": "f4,f5", "partial-update.remove-record-on-sequence-group": "f6" };
    replay(o, [I(1, 1, 1, 1, 1, 1, 1), I(1, 2, 2, 2, 2, 2, null), E(1, 2, 2, 2, 1, 1, 1), I(1, 3, 3, 1, 3, 3, 3), E(1, 2, 2, 2, 3, 3, 3), D(1, 1, 1, 3, 1, 1, null), { expect: [1, null, null, 3, 3, 3, 3], kind: 0 }, D(1, 1, 1, 3, 1, 1, 4), { expect: [1, 1, 1, 3, 1, 1, 4], kind: 3 }, I(1, 4, 4, 4, 5, 5, 5), { expect: [1, 4, 4, 4, 5, 5, 5], kind: 0 }, D(1, 1, 1, 6, 1, 1, 6), { expect: [1, 1, 1, 6, 1, 1, 6], kind: 3 }]);
  });

  it("several sequence fields per group (compared in order, nulls first; all set at once)", () => {
    const o = { "fields.f3,f4.sequence-group": "f1,f2", "fields.f7,f8.sequence-group": "f5,f6" };
    replay(o, [I(1, null, null, null, null, 1, 1, 1, 3), I(1, 2, 2, null, null, 2, 2, 1, 3), E(1, null, null, null, null, 2, 2, 1, 3)]);
    replay(o, [I(1, 1, 1, 1, 1, 1, 1, 1, 3), I(1, 2, 2, 2, 2, 2, 1, 1, null), E(1, 2, 2, 2, 2, 1, 1, 1, 3), I(1, 1, 3, 1, 3, 3, 3, 3, 2), E(1, 2, 2, 2, 2, 3, 3, 3, 2), D(1, 1, 1, 3, 3, 1, 1, null, null), E(1, null, null, 3, 3, 3, 3, 3, 2), D(1, 1, 1, 3, 1, 1, 1, 4, 4), E(1, null, null, 3, 3, null, null, 4, 4), I(1, 4, 4, 4, 4, 5, 5, 5, 5), E(1, 4, 4, 4, 4, 5, 5, 5, 5), D(1, 1, 1, 6, 1, 1, 1, 6, 1), E(1, null, null, 6, 1, null, null, 6, 1)]);
  });

  it("fields.default-aggregate-function=last_non_null_value inside groups", () => {
    replay({ "fields.f3.sequence-group": "f1,f2", "fields.f6.sequence-group": "f4,f5", "fields.default-aggregate-function": "last_non_null_value" }, [I(1, 1, 1, 1, 1, 1, 1), I(1, 2, 2, 2, 2, 2, null), E(1, 2, 2, 2, 1, 1, 1), I(1, 3, 3, 1, 3, 3, 3), E(1, 2, 2, 2, 3, 3, 3), I(1, 4, null, 4, 5, null, 5), E(1, 4, 2, 4, 5, 3, 5)]);
  });

  it("first_value / last_value in a group: an older record goes through aggReversed", () => {
    replay({ "fields.f1.sequence-group": "f2,f3", "fields.f2.aggregate-function": "first_value", "fields.f3.aggregate-function": "last_value" }, [I(1, 1, 1, 1), I(1, 2, 2, 2), E(1, 2, 1, 2), I(1, 0, 3, 3), E(1, 2, 3, 2)]);
    replay({ "fields.f1,f2.sequence-group": "f3,f4", "fields.f3.aggregate-function": "first_value", "fields.f4.aggregate-function": "last_value" }, [I(1, 1, 1, 1, 1), I(1, 2, 2, 2, 2), E(1, 2, 2, 1, 2), I(1, 0, 1, 3, 3), E(1, 2, 2, 3, 2)]);
  });

  it("sum / last_value / last_non_null_value in groups with retraction and ignore-retract", () => {
    const o = {
      "fields.f1.sequence-group": "f2,f3,f4",
      "fields.f7.sequence-group": "f6",
      "fields.f0.aggregate-function": "listagg",
      "fields.f2.aggregate-function": "sum",
      "fields.f4.aggregate-function": "last_value",
      "fields.f6.aggregate-function": "last_non_null_value",
      "fields.f4.ignore-retract": "true",
      "fields.f6.ignore-retract": "true",
    };
    replay(o, [I(1, 1, 1, 1, 1, 1, 1, 1), I(1, 2, 1, 2, 2, 2, 2, 0), E(1, 2, 2, 2, 2, 2, 1, 1), I(1, 1, 1, 1, 1, 1, 2, 0), E(1, 2, 3, 2, 2, 1, 1, 1), I(1, 1, -1, 1, 1, 2, 2, 0), I(1, 3, null, null, null, null, null, 2), E(1, 3, 2, null, null, 2, 1, 2), I(1, 3, 1, 1, 1, 1, 1, 3), E(1, 3, 3, 1, 1, 1, 1, 3), UB(1, 3, 2, 1, 1, 1, 1, 3), E(1, 3, 1, null, 1, 1, 1, 3), D(1, 3, 2, 1, 1, 1, 1, 3), E(1, 3, -1, null, 1, 1, 1, 3), D(1, 2, 2, 1, 1, 1, 1, 3), E(1, 3, -3, null, 1, 1, 1, 3)]);
  });

  it("several sequence fields with sum / first_value / last_value and retraction", () => {
    const o = {
      "fields.f1,f2.sequence-group": "f3,f4,f5",
      "fields.f7,f8.sequence-group": "f6",
      "fields.f0.aggregate-function": "listagg",
      "fields.f3.aggregate-function": "sum",
      "fields.f4.aggregate-function": "first_value",
      "fields.f5.aggregate-function": "last_value",
      "fields.f6.aggregate-function": "last_non_null_value",
      "fields.f4.ignore-retract": "true",
      "fields.f6.ignore-retract": "true",
    };
    replay(o, [I(1, 1, 1, 1, 1, 1, 1, 1, 1), I(1, 1, 2, 1, 2, 2, null, 2, 0), E(1, 1, 2, 2, 1, 2, 1, 2, 0), I(1, 1, 1, 1, 3, 1, 1, 2, 0), E(1, 1, 2, 3, 3, 2, 1, 2, 0), I(1, 1, 3, null, null, null, null, 4, 2), E(1, 1, 3, 3, 3, null, 1, 4, 2), I(1, 2, 3, 1, 1, 1, 1, 4, 3), E(1, 2, 3, 4, 3, 1, 1, 4, 3), UB(1, 2, 3, 2, 1, 2, 1, 4, 3), E(1, 2, 3, 2, 3, null, 1, 4, 3)]);
  });

  it("partial-update.remove-record-on-delete: a -D replaces the row and the result is DELETE with the -D's sequence; -U is skipped", () => {
    const o = { "partial-update.remove-record-on-delete": "true" };
    const r = fold(o, [I(1, 1, 1, 1, 1), D(1, 1, 1, 1, 1)]);
    expect([r.kind, r.seq]).toEqual([3, 2n]);
    replay(o, [I(1, 3, 5, 7), D(1, 2, 2, null), { expect: [1, 2, 2, null], kind: 3 }, I(1, 4, 9, null), { expect: [1, 4, 9, null], kind: 0 }], intFields(4, [0, 1]));
    // Java: "Field 1 can not be null" for a null in a NOT NULL column
    expect(() => fold(o, [I(1, 3, 5, 7), I(1, null, 9, null)], intFields(4, [0, 1]))).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("Field 1 can not be null") }));
    const u = fold(o, [I(1, 1, 1), UB(1, 5, 5)]);
    expect([u.row, u.kind, u.seq]).toEqual([[1, 1, 1], 0, 2n]);
  });

  it("ignore-delete: retractions are skipped, but the first record seeds the row even when it is one", () => {
    const r = fold({ "ignore-delete": "true" }, [D(1, 5, 5), I(1, null, 7)]);
    expect([r.row, r.kind, r.seq]).toEqual([[1, 5, 7], 0, 2n]);
    const only = fold({ "partial-update.ignore-delete": "true" }, [D(1, 5, 5), D(1, 6, 6)]);
    expect([only.row, only.kind, only.seq]).toEqual([[1, 5, 5], 3, 0n]);
  });

  it("without sequence groups or remove-record-on-delete a retraction fails the merge (one record alone passes)", () => {
    expect(() => fold({}, [I(1, 1), D(1, 1)])).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("By default, Partial update can not accept delete records") }));
    expect(fold({}, [D(1, 1)])).toEqual({ row: [1, 1], kind: 3, seq: 1n });
  });

  it("a projection reads the sequence fields of its groups (Java adjustReadType)", () => {
    const fields = intFields(8);
    const o = { "fields.f4.sequence-group": "f1,f3", "fields.f5.sequence-group": "f7" };
    const read = [0, 1, 3, 4].map((i) => fields[i]); // f0, f1, f3 + sequence field f4
    const records: Array<[Kind, ...Cell[]]> = [I(1, 1, 0, 1, 1, 0, 0, 0), I(1, null, 0, 1, 2, 0, 0, 0)];
    const r = fold(o, records, fields, read);
    expect(r.row).toEqual([1, null, 1, 2]);
  });
});

describe("partial-update options refused as Java's Factory refuses them (INVALID_ARGUMENT)", () => {
  const fields = intFields(8);
  const cases: Array<[Record<string, string>, string]> = [
    [{ "fields.f3.sequence-group": "f1,f2,f9" }, "Field f9 can not be found in table schema"],
    [{ "fields.f2,f9.sequence-group": "f1" }, "Field f9 can not be found in table schema"],
    [{ "fields.f3.sequence-group": "f1,f2", "fields.f4.sequence-group": "f1,f2" }, "is defined repeatedly by multiple groups"],
    [{ "fields.f3,f4.sequence-group": "f1,f2", "fields.f5,f6.sequence-group": "f1,f2" }, "is defined repeatedly by multiple groups"],
    [{ "fields.f3.sequence-group": "f1", "fields.f4.sequence-group": "f3" }, "Field f3 is defined repeatedly by multiple groups"],
    [{ "fields.f1.aggregate-function": "sum" }, "Must use sequence group for aggregation functions but not found for field f1."],
    [{ "fields.f3.sequence-group": "f1", "fields.default-aggregate-function": "sum" }, "Must use sequence group for aggregation functions but not found for field f2."],
    [{ "ignore-delete": "true", "partial-update.remove-record-on-delete": "true" }, "ignore-delete and partial-update.remove-record-on-delete have conflicting behavior"],
    [{ "fields.f3.sequence-group": "f1", "partial-update.ignore-delete": "true", "partial-update.remove-record-on-sequence-group": "f3" }, "ignore-delete and partial-update.remove-record-on-sequence-group have conflicting behavior"],
    [{ "fields.f3.sequence-group": "f1", "partial-update.remove-record-on-delete": "true" }, "sequence-group and partial-update.remove-record-on-delete have conflicting behavior"],
    [{ "fields.f3.sequence-group": "f1", "partial-update.remove-record-on-sequence-group": "f1" }, "field 'f1' defined in 'partial-update.remove-record-on-sequence-group' option must be part of sequence groups"],
    [{ "fields.f3.sequence-group": "f1", "fields.f1.aggregate-function": "sum", "fields.f2.aggregate-function": "max" }, "Must use sequence group for aggregation functions but not found for field f2."],
  ];
  for (const [options, message] of cases) {
    it(`${JSON.stringify(options)}: ${message}`, () => {
      expect(() => mergeFold("db.t", "partial-update", fields, ["f0"], new TableOptions(options))).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining(message) }));
    });
  }
  it("a write refuses them and writes nothing; a read refuses them", async () => {
    const catalog = await Catalog.open(`memory://pu-refuse-${process.pid}`);
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT NOT NULL" }, { name: "a", type: "INT" }], primaryKeys: ["id"], options: { bucket: "1", "merge-engine": "partial-update", "fields.s.sequence-group": "a" } });
    const refused = { code: "INVALID_ARGUMENT", message: expect.stringContaining("Field s can not be found in table schema") };
    await expect(t.newWrite({ commitUser: "u" })).rejects.toMatchObject(refused);
    await expect(t.newScan().plan()).resolves.toMatchObject({ splits: [] });
    expect(await t.latestSnapshot()).toBeNull();
  });
});

describe("partial-update tables with sequence groups (write, merge on read, projection)", () => {
  const FIELDS: FieldLike[] = [
    { name: "id", type: "INT NOT NULL" },
    { name: "a", type: "STRING" },
    { name: "ts", type: "BIGINT" },
    { name: "b", type: "INT" },
    { name: "ts2", type: "BIGINT" },
  ];
  async function commit(t: Table, rows: OracleRow[], kinds?: number[]): Promise<void> {
    const w = await t.newWrite({ commitUser: "u" });
    await w.write(rowsToBatch(FIELDS, rows), kinds ? { rowKinds: kinds } : undefined);
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(0), 0);
    await w.close();
  }
  it("a projection without the sequence field merges as the whole row does (Java adjustReadType)", async () => {
    const catalog = await Catalog.open(`memory://pu-proj-${process.pid}`);
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "merge-engine": "partial-update", "fields.ts.sequence-group": "a", "fields.ts2.sequence-group": "b", "num-sorted-run.compaction-trigger": "50" } });
    await commit(t, [{ id: 1, a: "new", ts: "5", b: 1, ts2: "1" }]);
    await commit(t, [{ id: 1, a: "old", ts: "3", b: 2, ts2: "2" }]); // a: older group sequence, kept; b: newer, taken
    await commit(t, [{ id: 1, a: null, ts: null, b: null, ts2: "3" }], [3]); // -D of group ts2 only: b retracted
    const plan = await t.newScan().plan();
    expect(arrowToRows(await t.newRead().toArrow(plan.splits))).toEqual([{ id: 1, a: "new", ts: "5", b: null, ts2: "3" }]);
    expect(arrowToRows(await t.newRead({ projection: ["a"] }).toArrow(plan.splits))).toEqual([{ a: "new" }]);
    expect(arrowToRows(await t.newRead({ projection: ["b", "id"] }).toArrow(plan.splits))).toEqual([{ b: null, id: 1 }]);
  });
});
