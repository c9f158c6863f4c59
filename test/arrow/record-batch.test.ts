// Fast RecordBatch assembly and concatenation (src/arrow) against apache-arrow's own results.
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { concatBatches, concatData } from "../../src/arrow/concat.js";
import { gatherBatches } from "../../src/arrow/gather.js";
import { takeRows } from "../../src/arrow/take.js";
import { recordBatch, selectColumns, sliceBatch } from "../../src/arrow/record-batch.js";
import { parseDataType, type DataField } from "../../src/spec/types.js";
import { batch, column, values } from "../format/helpers.js";

const FIELDS: DataField[] = [
  { id: 0, name: "i", type: parseDataType("BIGINT") },
  { id: 1, name: "s", type: parseDataType("STRING") },
  { id: 2, name: "b", type: parseDataType("BOOLEAN") },
  { id: 3, name: "d", type: parseDataType("DECIMAL(20, 3)") },
  { id: 4, name: "f", type: parseDataType("FLOAT") },
  { id: 5, name: "t", type: parseDataType("TINYINT") },
  { id: 6, name: "bin", type: parseDataType("BYTES") },
  { id: 7, name: "a", type: parseDataType("ARRAY<INT>") },
  { id: 8, name: "r", type: parseDataType("ROW<x INT, y STRING>") },
];

const row = fc.record({
  i: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
  s: fc.option(fc.string({ maxLength: 40 })), // > 32 bytes: the bulk copy of long values
  b: fc.option(fc.boolean()),
  d: fc.option(fc.bigInt({ min: -(10n ** 19n), max: 10n ** 19n })),
  f: fc.option(fc.integer({ min: -1000, max: 1000 })),
  t: fc.option(fc.integer({ min: -128, max: 127 })),
  bin: fc.option(fc.uint8Array({ maxLength: 6 })),
  a: fc.option(fc.array(fc.option(fc.integer()), { maxLength: 3 })),
  r: fc.option(fc.record({ x: fc.option(fc.integer()), y: fc.option(fc.string({ maxLength: 4 })) })),
});

type Row = Record<string, unknown>;

function batchOf(rows: readonly Row[]): arrow.RecordBatch {
  const cols: Record<string, unknown[]> = {};
  for (const f of FIELDS) cols[f.name] = rows.map((r) => (r as Record<string, unknown>)[f.name]);
  return batch(FIELDS, cols);
}

function rowsOf(b: arrow.RecordBatch): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  FIELDS.forEach((f, i) => (out[f.name] = values(b.data.children[i], f.type)));
  return out;
}

describe("recordBatch", () => {
  it("builds the same batch as the RecordBatch constructor, usable everywhere a RecordBatch is", () => {
    const ref = batchOf([
      { i: 1n, s: "a", b: true, d: 5n, f: 1, t: 1, bin: new Uint8Array([1]), a: [1, null], r: { x: 1, y: "p" } },
      { i: null, s: null, b: null, d: null, f: null, t: null, bin: null, a: null, r: null },
    ]);
    const fast = recordBatch(ref.schema, ref.data.children, ref.numRows);
    expect(fast).toBeInstanceOf(arrow.RecordBatch);
    expect(arrow.RecordBatch.isRecordBatch(fast)).toBe(true);
    expect(fast.numRows).toBe(2);
    expect(fast.numCols).toBe(FIELDS.length);
    expect(fast.schema).toBe(ref.schema);
    expect(fast.metadata).toBeInstanceOf(Map);
    expect(fast.nullCount).toBe(0);
    expect(rowsOf(fast)).toEqual(rowsOf(ref));
    expect(String(fast.toArray())).toBe(String(ref.toArray()));
    expect(Object.keys(fast).sort()).toEqual(Object.keys(new arrow.RecordBatch(ref.schema, ref.data)).sort());
    // Arrow's own consumers accept it: Table, IPC round trip, slice, select.
    const table = new arrow.Table([fast, fast]);
    expect(table.numRows).toBe(4);
    const back = arrow.tableFromIPC(arrow.tableToIPC(table, "stream"));
    expect(rowsOf(back.batches[0])).toEqual(rowsOf(fast));
    expect(back.numRows).toBe(4);
    expect(rowsOf(fast.slice(1, 2))).toEqual(rowsOf(ref.slice(1, 2)));
    expect(fast.select(["s"]).numCols).toBe(1);
    // one Struct type per schema object
    expect(recordBatch(ref.schema, ref.data.children, 2).data.type).toBe(fast.data.type);
  });

  it("refuses columns of another length or count", () => {
    const ref = batchOf([{ i: 1n, s: "a", b: true, d: 5n, f: 1, t: 1, bin: null, a: null, r: null }]);
    expect(() => recordBatch(ref.schema, ref.data.children, 2)).toThrow(/column i has 1 rows, expected 2/);
    expect(() => recordBatch(ref.schema, ref.data.children.slice(1), 1)).toThrow(/8 columns for 9 fields/);
  });

  it("slices and selects without copying", () => {
    const ref = batchOf(Array.from({ length: 10 }, (_, k) => ({ i: BigInt(k), s: `v${k}`, b: k % 2 === 0, d: BigInt(k), f: k, t: k, bin: null, a: [k], r: { x: k, y: null } })));
    const s = sliceBatch(ref, 3, 7);
    expect(s.numRows).toBe(4);
    expect(rowsOf(s)).toEqual(rowsOf(ref.slice(3, 7)));
    expect((s.data.children[0].values as BigInt64Array).buffer).toBe((ref.data.children[0].values as BigInt64Array).buffer);
    expect(sliceBatch(ref, 0, 10)).toBe(ref);
    const schema = new arrow.Schema([ref.schema.fields[1], ref.schema.fields[0]]);
    const sel = selectColumns(s, schema, [1, 0]);
    expect(sel.schema).toBe(schema);
    expect(values(sel.data.children[0], FIELDS[1].type)).toEqual(["v3", "v4", "v5", "v6"]);
    expect(values(sel.data.children[1], FIELDS[0].type)).toEqual([3n, 4n, 5n, 6n]);
  });
});

describe("concatBatches", () => {
  it("equals the concatenation of the rows, for every type, nulls and sliced inputs (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ rows: fc.array(row, { minLength: 1, maxLength: 12 }), from: fc.nat(4), cut: fc.nat(4) }), { minLength: 1, maxLength: 6 }),
        (parts) => {
          const inputs = parts.map(({ rows, from, cut }) => {
            const b = batchOf(rows);
            const begin = Math.min(from, rows.length - 1);
            const end = Math.max(begin + 1, rows.length - cut);
            return sliceBatch(b, begin, end);
          });
          const out = concatBatches(inputs);
          expect(out.numRows).toBe(inputs.reduce((n, b) => n + b.numRows, 0));
          const expected: Record<string, unknown[]> = {};
          for (const f of FIELDS) expected[f.name] = inputs.flatMap((b) => rowsOf(b)[f.name]);
          expect(rowsOf(out)).toEqual(expected);
          FIELDS.forEach((f, i) => expect(out.data.children[i].nullCount).toBe(expected[f.name].filter((v) => v === null).length));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("returns a single input as is and handles NULL-typed columns", () => {
    const one = batchOf([{ i: 1n, s: "a", b: true, d: 5n, f: 1, t: 1, bin: null, a: null, r: null }]);
    expect(concatBatches([one])).toBe(one);
    const nulls = concatData([arrow.makeData({ type: new arrow.Null(), length: 2 }), arrow.makeData({ type: new arrow.Null(), length: 3 })]);
    expect(nulls.length).toBe(5);
    const ints = concatData([column(parseDataType("INT"), [1, null]), column(parseDataType("INT"), [3])]);
    expect(values(ints, parseDataType("INT"))).toEqual([1, null, 3]);
  });
});

describe("gatherBatches", () => {
  it("picks row[i] of source part[i] for every type, nested ones included (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(row, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }).chain((sources) =>
          fc.tuple(
            fc.constant(sources),
            fc.array(
              fc.nat(sources.length - 1).chain((p) => fc.tuple(fc.constant(p), fc.nat(sources[p].length - 1))),
              { maxLength: 20 },
            ),
          ),
        ),
        ([sources, picks]) => {
          const batches = sources.map((rows) => sliceBatch(batchOf([...rows, rows[0]]), 0, rows.length));
          const part = Uint32Array.from(picks, ([p]) => p);
          const rowIdx = Uint32Array.from(picks, ([, r]) => r);
          const out = gatherBatches(batches, part, rowIdx, batches[0].schema, FIELDS.map((_, i) => i));
          const expected: Record<string, unknown[]> = {};
          for (const f of FIELDS) expected[f.name] = picks.map(([p, r]) => rowsOf(batches[p])[f.name][r]);
          expect(rowsOf(out)).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("gatherBatches of several sources", () => {
  const schema = new arrow.Schema([new arrow.Field("i", new arrow.Int64()), new arrow.Field("d", new arrow.Float64()), new arrow.Field("s", new arrow.Utf8())]);
  const source = (bits: bigint[], strings: string[]): arrow.RecordBatch => {
    const ints = arrow.makeData({ type: new arrow.Int64(), length: bits.length, data: BigInt64Array.from(bits) });
    const doubles = arrow.makeData({ type: new arrow.Float64(), length: bits.length, data: new Float64Array(BigInt64Array.from(bits).buffer) });
    const strs = arrow.vectorFromArray(strings, new arrow.Utf8()).data[0];
    return recordBatch(schema, [ints, doubles, strs], bits.length);
  };

  it("copies 64-bit values bit for bit and short strings ending at their buffers' ends", () => {
    const bits = [0x7ff0000000000001n, -0x000fffffffffffffn, 0x7ff8000000000001n, -1n, -(2n ** 63n), 2n ** 63n - 1n, 0n];
    // strings of 0..9 bytes, the last of each source ending at the end of its bytes
    const a = source(bits.slice(0, 4), ["", "abcdefgh", "xyz", "abcdefghi"]);
    const b = source(bits.slice(4), ["1234567", "é", "12345678"]);
    const part = Uint32Array.from([1, 0, 1, 0, 0, 1, 0, 1]);
    const row = Uint32Array.from([2, 3, 0, 1, 0, 1, 2, 2]);
    const out = gatherBatches([a, b], part, row, schema, [0, 1, 2]);
    const expected = Array.from(part, (p, i) => (p === 0 ? bits.slice(0, 4) : bits.slice(4))[row[i]]);
    expect(new BigInt64Array((out.getChild("i")!.data[0].values as BigInt64Array).slice().buffer)).toEqual(BigInt64Array.from(expected));
    expect(new BigInt64Array((out.getChild("d")!.data[0].values as Float64Array).slice().buffer)).toEqual(BigInt64Array.from(expected));
    const strings = [
      ["", "abcdefgh", "xyz", "abcdefghi"],
      ["1234567", "é", "12345678"],
    ];
    expect(out.getChild("s")!.toArray()).toEqual(Array.from(part, (p, i) => strings[p][row[i]]));
    const s = out.getChild("s")!.data[0];
    expect(s.values.length).toBe(s.valueOffsets[s.length]);
  });
});

describe("takeRows", () => {
  it("picks rows by index from one (sliced) batch for every type, repeats included (property)", () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 2, maxLength: 40 }).chain((rows) =>
          fc.tuple(fc.constant(rows), fc.nat(rows.length - 1), fc.array(fc.nat(1000), { maxLength: 60 }), fc.boolean()),
        ),
        ([rows, from, picks, asManyAsSource]) => {
          // sliced: validity bitmaps and boolean values keep a bit offset, other buffers do not
          const source = sliceBatch(batchOf(rows), from, rows.length);
          // as many rows as the source (the one-pass string copy), with repeats that may not fit it
          const taken = asManyAsSource ? Array.from({ length: source.numRows }, (_, i) => picks[i] ?? i) : picks;
          const indices = Uint32Array.from(taken, (p) => p % source.numRows);
          const out = takeRows(source, indices);
          const all = rowsOf(source);
          const expected: Record<string, unknown[]> = {};
          for (const f of FIELDS) expected[f.name] = Array.from(indices, (r) => all[f.name][r]);
          expect(out.numRows).toBe(indices.length);
          expect(rowsOf(out)).toEqual(expected);
          FIELDS.forEach((f, i) => expect(out.data.children[i].nullCount).toBe(expected[f.name].filter((v) => v === null).length));
          for (const name of ["s", "bin"]) {
            const d = out.data.children[FIELDS.findIndex((f) => f.name === name)];
            expect(d.values.length).toBe(d.valueOffsets[d.length]); // exactly the taken bytes, no slack
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("copies 64-bit values bit for bit, NaN payloads and extremes included", () => {
    const bits = [0x7ff0000000000001n, -0x000fffffffffffffn, 0x7ff8000000000001n, -1n, -(2n ** 63n), 2n ** 63n - 1n, 0n];
    const ints = column(parseDataType("BIGINT"), bits);
    const doubles = arrow.makeData({ type: new arrow.Float64(), length: bits.length, data: new Float64Array(BigInt64Array.from(bits).buffer) });
    const order = Uint32Array.from([6, 5, 4, 3, 2, 1, 0, 0]);
    const schema = new arrow.Schema([new arrow.Field("i", new arrow.Int64()), new arrow.Field("d", new arrow.Float64())]);
    const out = takeRows(recordBatch(schema, [ints, doubles], bits.length), order);
    const expected = Array.from(order, (r) => bits[r]);
    expect(Array.from(out.data.children[0].values as BigInt64Array)).toEqual(expected);
    expect(Array.from(new BigInt64Array((out.data.children[1].values as Float64Array).buffer))).toEqual(expected);
  });
});
