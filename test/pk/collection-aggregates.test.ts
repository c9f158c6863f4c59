// merge_map, nested_update / nested_partial_update, merge_map_with_keytime and collect distinct
// (Java's FieldMergeMapAgg, FieldNestedUpdateAgg, …): a per-key model with a literal replica of
// java.util.HashMap (bucket lists, resize splits, treeify-resizes) over several commits, read
// merge-on-read and after a full compaction; and the exact refusals. Orders against Java itself:
// test/interop/collection-aggregates-interop.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { toBinaryRow } from "../../src/spec/binary-row.js";
import { hashBytesByWords } from "../../src/spec/murmur.js";
import { DataTypes } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import type { FieldLike } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";
import { commitRows, readRowsById } from "../support/pk-commits.js";
import { runs } from "../support/fc-runs.js";

let n = 0;
async function table(options: Record<string, string>, fields: FieldLike[]): Promise<Table> {
  const catalog = await Catalog.open(`memory://collection-agg-${process.pid}-${n++}`);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.t${n++}`, { fields: fields as Array<{ name: string; type: string }>, primaryKeys: ["id"], options: { bucket: "1", "merge-engine": "aggregation", ...options } });
}

const commit = commitRows;
const read = readRowsById;

/** java.util.HashMap as its source has it: buckets of nodes, `put` appends, resizes split buckets in order. */
class HashMapModel<V> {
  private table: Array<Array<{ hash: number; key: string; value: V }>> = [];
  private size = 0;
  private threshold = 0;

  put(key: string, h: number, value: V): void {
    if (this.table.length === 0) this.resize();
    const hash = h ^ (h >>> 16);
    const bin = this.table[hash & (this.table.length - 1)]!;
    const node = bin.find((e) => e.key === key);
    if (node) {
      node.value = value;
      return;
    }
    bin.push({ hash, key, value });
    if (bin.length > 8) {
      if (this.table.length < 64) this.resize();
      else throw new Error("tree bin");
    }
    if (++this.size > this.threshold) this.resize();
  }

  has(key: string): boolean {
    return this.table.some((bin) => bin.some((e) => e.key === key));
  }

  remove(key: string): void {
    for (const bin of this.table) {
      const at = bin.findIndex((e) => e.key === key);
      if (at >= 0) {
        bin.splice(at, 1);
        this.size--;
      }
    }
  }

  values(): V[] {
    return this.table.flatMap((bin) => bin.map((e) => e.value));
  }

  private resize(): void {
    const old = this.table;
    const cap = old.length === 0 ? 16 : old.length * 2;
    this.threshold = cap * 0.75;
    this.table = Array.from({ length: cap }, () => []);
    for (const bin of old) for (const e of bin) this.table[e.hash & (cap - 1)]!.push(e);
  }
}

const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "mm", type: "MAP<INT, STRING>" },
  { name: "nu", type: "ARRAY<ROW<k INT, v STRING>>" },
  { name: "cd", type: "ARRAY<INT>" },
];
const OPTIONS = {
  "fields.mm.aggregate-function": "merge_map",
  "fields.nu.aggregate-function": "nested_update",
  "fields.nu.nested-key": "k",
  "fields.cd.aggregate-function": "collect",
  "fields.cd.distinct": "true",
};

type Entry = [number, string | null];
type Nested = { k: number | null; v: string | null } | null;
interface Rec {
  retract: boolean;
  mm: Entry[] | null;
  nu: Nested[] | null;
  cd: Array<number | null> | null;
}

const keyHash = (k: number | null) => hashBytesByWords(toBinaryRow([k], [DataTypes.INT()]));
const nestedKey = (r: NonNullable<Nested>) => String(r.k);

/** Java's agg / retract of the three columns. */
const model = {
  mm(acc: Entry[] | null, input: Entry[] | null, retract: boolean): Entry[] | null {
    if (retract) {
      if (acc === null) return null;
      if (input === null || input.length === 0) return acc;
      const gone = new Set(input.map((e) => e[0]));
      const m = new HashMapModel<Entry>();
      for (const e of acc) if (!gone.has(e[0])) m.put(String(e[0]), e[0], e);
      return m.values();
    }
    if (acc === null || input === null) return acc ?? input;
    const m = new HashMapModel<Entry>();
    for (const e of [...acc, ...input]) m.put(String(e[0]), e[0], e);
    return m.values();
  },
  nu(acc: Nested[] | null, input: Nested[] | null, retract: boolean): Nested[] | null {
    if (acc === null || input === null) return retract ? acc : (acc ?? input);
    const m = new HashMapModel<Nested>();
    const rows = retract ? acc.filter((r) => r !== null) : [...acc, ...input].filter((r) => r !== null);
    for (const r of rows) m.put(nestedKey(r!), keyHash(r!.k), r);
    if (retract) for (const r of input) if (r !== null) m.remove(nestedKey(r));
    return m.values();
  },
  cd(acc: Array<number | null> | null, input: Array<number | null> | null, retract: boolean): Array<number | null> | null {
    if (retract) {
      if (acc === null) return null;
      if (input === null || input.length === 0) return acc;
      const left = [...input];
      return acc.filter((e) => {
        const at = left.indexOf(e);
        if (at < 0) return true;
        left.splice(at, 1);
        return false;
      });
    }
    if (acc === null && input === null) return null;
    const m = new HashMapModel<number | null>();
    for (const e of [...(acc ?? []), ...(input ?? [])]) if (!m.has(String(e))) m.put(String(e), e ?? 0, e);
    return m.values();
  },
};

/** One key's records folded as AggregateMergeFunction does (a single record passes unchanged; null when the result is a retraction). */
function foldKey(records: Rec[]): OracleRow | null {
  if (records.length === 1) return records[0]!.retract ? null : { id: "1", mm: records[0]!.mm, nu: records[0]!.nu, cd: records[0]!.cd };
  let mm: Entry[] | null = null;
  let nu: Nested[] | null = null;
  let cd: Array<number | null> | null = null;
  for (const r of records) {
    mm = model.mm(mm, r.mm, r.retract);
    nu = model.nu(nu, r.nu, r.retract);
    cd = model.cd(cd, r.cd, r.retract);
  }
  return { id: "1", mm, nu, cd };
}

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 5 });
const smallKey = fc.oneof(fc.integer({ min: -3, max: 40 }), fc.integer({ min: 0, max: 5 }).map((i) => i * 64));
const recArb: fc.Arbitrary<Rec> = fc.record({
  retract: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
  mm: maybe(fc.array(fc.tuple(smallKey, maybe(fc.constantFrom("a", "b", "long value string"))), { maxLength: 24 })),
  nu: maybe(fc.array(maybe(fc.record({ k: maybe(smallKey), v: maybe(fc.constantFrom("x", "y")) })), { maxLength: 24 })),
  cd: maybe(fc.array(maybe(smallKey), { maxLength: 24 })),
});

describe("collection aggregate functions (merge-engine=aggregation)", () => {
  it("merge_map, keyed nested_update and collect distinct match a java.util.HashMap model, merge-on-read and compacted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(recArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: -1, max: 4 }), async (records, compactAt) => {
        // a key whose first record is a retraction: Java's write buffer keeps the lone -U; later merges retract from null
        const t = await table(OPTIONS, FIELDS);
        for (const [i, r] of records.entries()) await commit(t, FIELDS, [{ id: "1", mm: r.mm, nu: r.nu, cd: r.cd }], [r.retract ? 1 : 0], i === compactAt);
        // a full compaction of a lone retraction drops it (Java's ReducerMergeFunctionWrapper passes
        // the single record unchanged; compaction to the max level drops non-add rows)
        const expected = compactAt === 0 && records[0]!.retract ? (records.length > 1 ? foldKey(records.slice(1)) : null) : foldKey(records);
        expect(await read(t)).toEqual(expected === null ? [] : [expected]);
        await commit(t, FIELDS, [], undefined, true);
        expect(await read(t)).toEqual(expected === null ? [] : [expected]);
      }),
      {
        numRuns: runs(30),
        // the CI run of 2026-12-05 06:56 drew this: the first commit's lone -U is compacted away
        examples: [
          [
            [
              { retract: true, mm: null, nu: null, cd: null },
              { retract: true, mm: null, nu: null, cd: null },
            ],
            0,
          ],
          [
            [
              { retract: true, mm: [[1, "a"]], nu: null, cd: [2] },
              { retract: false, mm: [[3, "b"]], nu: [{ k: 1, v: "x" }], cd: [2, 2] },
            ],
            0,
          ],
        ],
      },
    );
  }, 300_000);

  it("nested_partial_update merges non-null fields per nested key; merge_map_with_keytime keeps the latest ts string, a null value removes", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "np", type: "ARRAY<ROW<k INT, a INT, b STRING>>" },
      { name: "mk", type: "MAP<STRING, ROW<v INT, at STRING, note STRING>>" },
    ];
    const options = { "fields.np.aggregate-function": "nested_partial_update", "fields.np.nested-key": "k", "fields.mk.aggregate-function": "merge_map_with_keytime", "fields.mk.ts-field": "at" };
    for (const compact of [false, true]) {
      const t = await table(options, fields);
      const v = (x: number, at: string | null) => ({ v: x, at, note: null });
      await commit(t, fields, [{ id: "1", np: [{ k: 1, a: 1, b: null }, null, { k: 2, a: null, b: "two" }], mk: [["p", v(1, "2024")], ["q", v(2, null)], ["r", v(3, "b")]] }]);
      await commit(t, fields, [{ id: "1", np: [{ k: 2, a: 20, b: null }, { k: 1, a: null, b: "one" }, { k: 3, a: 3, b: "three" }], mk: [["p", v(10, "2023")], ["q", v(20, "x")], ["r", null], ["s", v(4, null)], ["t", v(5, "")]] }]);
      await commit(t, fields, [{ id: "1", np: [{ k: 1, a: 100, b: null }], mk: [["p", v(11, "2025")]] }], undefined, compact);
      expect(await read(t)).toEqual([
        {
          id: "1",
          // (Java's HashMap orders: the nested keys' BinaryRow hashes, the BinaryString hashes)
          np: [
            { k: 3, a: 3, b: "three" },
            { k: 2, a: 20, b: "two" },
            { k: 1, a: 100, b: "one" },
          ],
          mk: [
            ["q", v(20, "x")],
            ["t", v(5, "")],
            ["p", v(11, "2025")],
          ],
        },
      ]);
    }
  });

  it("unkeyed nested_update: count-limit stops adding rows, a retraction removes every equal row", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "nn", type: "ARRAY<ROW<k INT, v DOUBLE>>" },
    ];
    const t = await table({ "fields.nn.aggregate-function": "nested_update", "fields.nn.count-limit": "4" }, fields);
    const r = (k: number, v: number | null) => ({ k, v });
    await commit(t, fields, [{ id: "1", nn: [r(1, 1.5), null, r(1, 1.5)] }]);
    await commit(t, fields, [{ id: "1", nn: [r(2, null), r(3, 3), r(4, 4)] }]);
    expect(await read(t)).toEqual([{ id: "1", nn: [r(1, 1.5), r(1, 1.5), r(2, null)] }]);
    await commit(t, fields, [{ id: "1", nn: [r(1, 1.5), r(9, 9)] }], [1]);
    expect(await read(t)).toEqual([{ id: "1", nn: [r(2, null)] }]);
    await commit(t, fields, [{ id: "1", nn: [r(5, 5), r(6, 6), r(7, 7), r(8, 8)] }], undefined, true);
    expect(await read(t)).toEqual([{ id: "1", nn: [r(2, null), r(5, 5), r(6, 6), r(7, 7)] }]);
  });

  it("refuses what Java refuses or orders by identity hash, with precise errors", async () => {
    const cases: Array<[FieldLike, Record<string, string>, string, string]> = [
      [{ name: "c", type: "ARRAY<INT>" }, { "fields.c.aggregate-function": "nested_update" }, "INVALID_ARGUMENT", "Data type for nested table column must be 'Array<Row>' but was 'ARRAY<INT>'."],
      [{ name: "c", type: "ARRAY<ROW<k INT>>" }, { "fields.c.aggregate-function": "nested_partial_update" }, "INVALID_ARGUMENT", "nested_partial_update needs fields.c.nested-key"],
      [{ name: "c", type: "ARRAY<ROW<k INT>>" }, { "fields.c.aggregate-function": "nested_update", "fields.c.nested-key": "x" }, "INVALID_ARGUMENT", "nested key x is not a field of ROW<`k` INT>"],
      [{ name: "c", type: "ARRAY<ROW<k ARRAY<INT>>>" }, { "fields.c.aggregate-function": "nested_update", "fields.c.nested-key": "k" }, "UNSUPPORTED", "nested key k of type ARRAY is not supported"],
      [{ name: "c", type: "INT" }, { "fields.c.aggregate-function": "merge_map" }, "INVALID_ARGUMENT", "Data type for merge map column must be 'MAP' but was 'INT'"],
      [{ name: "c", type: "MAP<BYTES, INT>" }, { "fields.c.aggregate-function": "merge_map" }, "UNSUPPORTED", "merge_map with map keys of type VARBINARY is not supported (Java orders them by the JVM's identity hash)"],
      [{ name: "c", type: "MAP<INT, INT>" }, { "fields.c.aggregate-function": "merge_map_with_keytime" }, "INVALID_ARGUMENT", "Value type of MAP for field 'c' must be ROW but was 'INT'"],
      [{ name: "c", type: "MAP<INT, ROW<a INT>>" }, { "fields.c.aggregate-function": "merge_map_with_keytime" }, "INVALID_ARGUMENT", "ROW type for field 'c' must have at least 2 fields, but found 1"],
      [{ name: "c", type: "MAP<INT, ROW<a INT, b INT>>" }, { "fields.c.aggregate-function": "merge_map_with_keytime" }, "INVALID_ARGUMENT", "merge_map_with_keytime timestamp field b must be a string"],
      [{ name: "c", type: "MAP<INT, ROW<a INT, b STRING>>" }, { "fields.c.aggregate-function": "merge_map_with_keytime", "fields.c.ts-field": "z" }, "INVALID_ARGUMENT", "Timestamp field 'z' not found in ROW type for field 'c'. Available fields: [a, b]"],
      [{ name: "c", type: "ARRAY<BYTES>" }, { "fields.c.aggregate-function": "collect", "fields.c.distinct": "true" }, "UNSUPPORTED", "collect with distinct of VARBINARY elements is not supported"],
      [{ name: "c", type: "ARRAY<ARRAY<INT>>" }, { "fields.c.aggregate-function": "collect", "fields.c.distinct": "true" }, "UNSUPPORTED", "collect with distinct of ARRAY elements is not supported"],
      [{ name: "c", type: "ARRAY<ROW<a INT>>" }, { "merge-engine": "partial-update", "fields.c.aggregate-function": "nested_update", "fields.x.sequence-group": "c" }, "UNSUPPORTED", "aggregate function nested_update is supported with merge-engine=aggregation only"],
    ];
    for (const [field, options, code, message] of cases) {
      const fields: FieldLike[] = [{ name: "id", type: "BIGINT NOT NULL" }, field, ...(options["merge-engine"] ? [{ name: "x", type: "INT" }] : [])];
      const err = await table(options, fields)
        .then((t) => commit(t, fields, [{ id: "1", c: null }]))
        .catch((e: unknown) => e);
      expect(err, message).toMatchObject({ code, message: expect.stringContaining(message) });
    }
  });

  it("refuses retractions where Java's aggregator has none, unless ignore-retract; refuses a HashMap bucket turned into a tree", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "np", type: "ARRAY<ROW<k INT, a INT>>" },
    ];
    const t = await table({ "fields.np.aggregate-function": "nested_partial_update", "fields.np.nested-key": "k" }, fields);
    await commit(t, fields, [{ id: "1", np: [{ k: 1, a: 1 }] }]);
    await commit(t, fields, [{ id: "1", np: [{ k: 1, a: 1 }] }], [3]);
    await expect(read(t)).rejects.toMatchObject({
      code: "UNSUPPORTED",
      message: expect.stringContaining("Aggregate function 'nested_partial_update' (column np) does not support retraction"),
    });
    const ignoring = await table({ "fields.np.aggregate-function": "nested_partial_update", "fields.np.nested-key": "k", "fields.np.ignore-retract": "true" }, fields);
    await commit(ignoring, fields, [{ id: "1", np: [{ k: 1, a: 1 }] }]);
    await commit(ignoring, fields, [{ id: "1", np: [{ k: 1, a: 1 }] }], [1]);
    expect(await read(ignoring)).toEqual([{ id: "1", np: [{ k: 1, a: 1 }] }]);

    // keys 0, 1024, …: one bucket up to 1024 slots; the 11th meets a 64-slot table, where Java makes
    // a tree bin, whose list starts at the tree's root (Java's order: test/interop/java-hashmap-interop.test.ts)
    const maps: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "m", type: "MAP<INT, INT>" },
    ];
    const tree = await table({ "fields.m.aggregate-function": "merge_map" }, maps);
    await commit(tree, maps, [{ id: "1", m: Array.from({ length: 6 }, (_, i) => [i * 1024, i]) }]);
    await commit(tree, maps, [{ id: "1", m: Array.from({ length: 6 }, (_, i) => [(i + 6) * 1024, i]) }]);
    const keys = [3072, 0, 1024, 2048, 4096, 5120, 6144, 7168, 8192, 9216, 10240, 11264];
    expect(await read(tree)).toEqual([{ id: "1", m: keys.map((k) => [k, k / 1024 % 6]) }]);
  });
});
