// sequence.field: Java's schema refusals (SchemaValidation.validateSequenceField), the sort order
// option, partial-update and aggregation folding in sequence-field order, and the types paimon-rt
// cannot order.
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";

let counter = 0;

async function catalog(): Promise<Catalog> {
  const c = await Catalog.open(`memory://seqfield-unit-${process.pid}-${counter++}`);
  await c.createDatabase("db", { ignoreIfExists: true });
  return c;
}

const FIELDS = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "INT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "BIGINT" },
  { name: "s1", type: "INT" },
  { name: "s2", type: "INT" },
];

interface Rec {
  dt: string;
  id: number;
  v: string | null;
  n: bigint | null;
  s1: number | null;
  s2: number | null;
}

function batch(rows: readonly Rec[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0],
    id: arrow.vectorFromArray(rows.map((r) => r.id), new arrow.Int32()).data[0],
    v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0],
    n: arrow.vectorFromArray(rows.map((r) => r.n), new arrow.Int64()).data[0],
    s1: arrow.vectorFromArray(rows.map((r) => r.s1), new arrow.Int32()).data[0],
    s2: arrow.vectorFromArray(rows.map((r) => r.s2), new arrow.Int32()).data[0],
  });
}

const rec = (id: number, v: string | null, n: bigint | null, s1: number | null, s2: number | null = null): Rec => ({ dt: "d", id, v, n, s1, s2 });

async function commitRows(table: Table, rows: Rec[], compact = false): Promise<void> {
  const w = await table.newWrite({ commitUser: "u" });
  try {
    await w.write(batch(rows));
    if (compact) await w.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  } finally {
    await w.close();
  }
}

async function read(table: Table, projection?: string[]): Promise<Record<string, unknown>[]> {
  const plan = await table.newScan().plan();
  return (await table.newRead({ projection }).toArrow(plan.splits))
    .toArray()
    .map((r) => r.toJSON() as Record<string, unknown>)
    .sort((a, b) => Number(a.id) - Number(b.id));
}

async function createError(options: Record<string, string>, extra: { partitionKeys?: string[]; primaryKeys?: string[] } = {}): Promise<PaimonError> {
  const c = await catalog();
  const err = await c.createTable("db.t", { fields: FIELDS, partitionKeys: extra.partitionKeys ?? [], primaryKeys: extra.primaryKeys ?? ["id"], options: { bucket: "1", ...options } }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PaimonError);
  // nothing was created
  await expect(c.getTable("db.t")).rejects.toMatchObject({ code: "NOT_FOUND" });
  return err as PaimonError;
}

describe("sequence.field", () => {
  it("createTable refuses what Java's SchemaValidation refuses, with its messages", async () => {
    const cases: Array<[Record<string, string>, string, { partitionKeys?: string[]; primaryKeys?: string[] }?]> = [
      [{ "sequence.field": "nope" }, "Sequence field: 'nope' can not be found in table schema."],
      [{ "sequence.field": ",s1" }, "Sequence field: '' can not be found in table schema."],
      [{ "sequence.field": "s1, s1" }, "Sequence field 's1' is defined repeatedly."],
      [{ "sequence.field": "s1", "merge-engine": "aggregation", "fields.s1.aggregate-function": "max" }, "Should not define aggregation on sequence field: 's1'."],
      [{ "sequence.field": "s1", "merge-engine": "first-row" }, "Do not support use sequence field on FIRST_ROW merge engine."],
      [{ "sequence.field": "s1" }, "You can not use sequence.field in cross partition update case (Primary key constraint '[id]' not include all partition fields '[dt]').", { partitionKeys: ["dt"], primaryKeys: ["id"] }],
    ];
    for (const [options, message, extra] of cases) {
      const err = await createError(options, extra);
      expect(err.code, message).toBe("INVALID_ARGUMENT");
      expect(err.message).toBe(message);
    }
  });

  it("a sequence.field.sort-order Java cannot parse: created and read while empty (as Java does), refused with INVALID_ARGUMENT at newWrite", async () => {
    const c = await catalog();
    const table = await c.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "sequence.field": "s1", "sequence.field.sort-order": "down" } });
    const message = "Could not parse value 'down' for key 'sequence.field.sort-order' (ascending, descending).";
    await expect(table.newWrite({ commitUser: "u" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message });
    expect((await table.newScan().plan()).splits).toEqual([]);
  });

  it("alterTable cannot drop the sequence field nor change sequence.field", async () => {
    const c = await catalog();
    await c.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "sequence.field": "s1" } });
    await expect(c.alterTable("db.t", [{ kind: "dropColumn", name: "s1" }])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "Sequence field: 's1' can not be found in table schema." });
    await expect(c.alterTable("db.t", [{ kind: "setOption", key: "sequence.field", value: "s2" }])).rejects.toMatchObject({ code: "UNSUPPORTED" });
    expect((await c.getTable("db.t")).schema.options["sequence.field"]).toBe("s1");
  });

  it("a sequence field of a type paimon-rt cannot order is UNSUPPORTED at newWrite (Java orders ARRAY / MAP / ROW; the kernels do not)", async () => {
    const c = await catalog();
    const table = await c.createTable("db.t", {
      fields: [
        { name: "id", type: "INT NOT NULL" },
        { name: "a", type: "ARRAY<INT>" },
      ],
      primaryKeys: ["id"],
      options: { bucket: "1", "sequence.field": "a" },
    });
    await expect(table.newWrite({ commitUser: "u" })).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("sequence.field a of type ARRAY") });
  });

  it("deduplicate: ascending and descending, nulls lowest in both, ties to the later write; projections without the field", async () => {
    for (const order of ["ascending", "descending"]) {
      const c = await catalog();
      const table = await c.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "sequence.field": "s1", "sequence.field.sort-order": order } });
      await commitRows(table, [rec(1, "a", null, 5), rec(2, "a", null, null), rec(3, "a", null, 1), rec(4, "a", null, 2)]);
      await commitRows(table, [rec(1, "b", null, 3), rec(2, "b", null, 0), rec(3, "b", null, null), rec(4, "b", null, 2)]);
      const expected = order === "ascending" ? ["a", "b", "a", "b"] : ["b", "b", "a", "b"];
      expect((await read(table, ["v"])).map((r) => r.v).sort()).toEqual([...expected].sort());
      expect((await read(table)).map((r) => r.v)).toEqual(expected);
      // the same after a full compaction, and in the files' sequence numbers: the winner keeps its own
      await commitRows(table, [], true);
      expect((await read(table)).map((r) => r.v)).toEqual(expected);
    }
  });

  it("descending: one write buffer reduces a key's records ascending first, as Java's SortBufferWriteBuffer does", async () => {
    const c = await catalog();
    const table = await c.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "sequence.field": "s1", "sequence.field.sort-order": "descending" } });
    // one buffer: 3 then 5 -> 5 is written (ascending); a later commit's 4 wins against it (descending)
    await commitRows(table, [rec(1, "three", null, 3), rec(1, "five", null, 5), rec(2, "five", null, 5), rec(2, "three", null, 3)]);
    expect((await read(table)).map((r) => r.v)).toEqual(["five", "five"]);
    await commitRows(table, [rec(1, "four", null, 4), rec(2, "six", null, 6)]);
    expect((await read(table)).map((r) => r.v)).toEqual(["four", "five"]);
    await commitRows(table, [], true);
    expect((await read(table)).map((r) => r.v)).toEqual(["four", "five"]);
  });

  it("partial-update folds in sequence-field order (the older write's fields are overwritten by the higher sequence)", async () => {
    const c = await catalog();
    const table = await c.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "merge-engine": "partial-update", "sequence.field": "s1" } });
    await commitRows(table, [rec(1, "high", null, 5)]);
    await commitRows(table, [rec(1, "low", 7n, 3)]);
    // 3 then 5: v from the later in order (high), n from the only non-null (7)
    expect(await read(table)).toEqual([{ ...rec(1, "high", 7n, 5) }]);
    await commitRows(table, [rec(1, "mid", null, 4)], true);
    expect(await read(table)).toEqual([{ ...rec(1, "high", 7n, 5) }]);
    expect(await read(table, ["n"])).toEqual([{ n: 7n }]);
  });

  it("aggregation: values fold in sequence-field order, the sequence fields keep their last value", async () => {
    const c = await catalog();
    const table = await c.createTable("db.t", {
      fields: FIELDS,
      primaryKeys: ["id"],
      options: { bucket: "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "first_value", "sequence.field": "s1,s2" },
    });
    await commitRows(table, [rec(1, "x", 1n, 2, 5)]);
    await commitRows(table, [rec(1, "y", 10n, 1, 9)]);
    await commitRows(table, [rec(1, "z", 100n, 2, null)]);
    // order: (1,9) y, (2,null) z, (2,5) x — nulls first: s2 is last_value of x = 5; first_value v = y
    expect(await read(table)).toEqual([{ ...rec(1, "y", 111n, 2, 5) }]);
    await commitRows(table, [rec(1, "w", 1000n, 3, null)], true);
    // (3,null) is last: s2 = null (last_value, not last_non_null_value)
    expect(await read(table)).toEqual([{ ...rec(1, "y", 1111n, 3, null) }]);
  });
});
