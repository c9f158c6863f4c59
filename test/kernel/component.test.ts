// The kernels as a WebAssembly component (wasm/component, WIT in wasm/component/wit):
// `jco transpile` of the committed component must give exactly what the core module
// (through the library's own wrappers) gives on the same inputs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { transpile } from "@bytecodealliance/jco";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OffsetSet64, RoaringBitmap32 } from "../../src/kernel/bitmap.js";
import { type KeyColumn, keyColumnFromValues, keyValue } from "../../src/kernel/columns.js";
import { assignBuckets, fingerprintKeys, wangHash64Values, xxh64Values } from "../../src/kernel/hash.js";
import { mergeDeduplicate, type SortedRun } from "../../src/kernel/merge.js";
import { sortPermutation } from "../../src/kernel/sort.js";
import { columnsOf, keyTableArb, sequenceArb, sortedRunsArb } from "./arbitraries.js";

// The transpiled bindings' shapes (jco: variants as { tag, val }, records camelCase,
// option as undefined, result errors thrown as ComponentError with the error as payload).
type WitColumnValues = { tag: string; val: unknown };
interface WitKeyColumn {
  values: WitColumnValues;
  validity: Uint8Array | undefined;
  validityOffset: number;
}
interface WitBitmap<V, S> {
  addMany(values: V): void;
  containsMany(values: V): boolean[];
  cardinality(): bigint;
  toList(): V;
  orInplace(other: WitBitmap<V, S>): void;
  andInplace(other: WitBitmap<V, S>): void;
  andNotInplace(other: WitBitmap<V, S>): void;
  runOptimize(rule: "java" | "croaring"): boolean;
  serialize(...layout: S[]): Uint8Array;
}
interface WitKernels {
  sortPermutation(keys: WitKeyColumn[], sequence: BigInt64Array): Uint32Array;
  mergeDeduplicate(
    keys: WitKeyColumn[],
    runBounds: Uint32Array,
    sequence: BigInt64Array,
    rowKinds: Int8Array | undefined,
    dropDeletes: boolean,
  ): { run: Uint32Array; row: Uint32Array };
  fingerprintKeys(keys: WitKeyColumn[], seed: bigint): BigUint64Array;
  assignBuckets(keys: WitKeyColumn[], buckets: number): Int32Array;
  xxh64Values(offsets: Int32Array, data: Uint8Array, seed: bigint): BigUint64Array;
  wangHash64Values(values: BigInt64Array, mul: bigint, div: bigint): BigInt64Array;
  Bitmap32: {
    new (): WitBitmap<Uint32Array, never> & { removeMany(values: Uint32Array): void; addRange(min: number, max: number): void };
    deserialize(bytes: Uint8Array): [WitBitmap<Uint32Array, never>, number];
  };
  Bitmap64: {
    new (): WitBitmap<BigUint64Array, "navigable" | "iceberg">;
    deserialize(bytes: Uint8Array): [WitBitmap<BigUint64Array, "navigable" | "iceberg">, number];
  };
}

const WIT_TAGS: Record<KeyColumn["type"], string> = {
  bool: "boolean",
  int8: "int8",
  int16: "int16",
  int32: "int32",
  int64: "int64",
  float32: "float32",
  float64: "float64",
  bytes: "bytes",
  timestamp_micros: "timestamp-micros",
  timestamp_nanos: "timestamp-nanos",
  decimal128: "decimal128",
};

/** The WIT form of a key column: the same typed arrays, cut to its rows. */
function witColumn(col: KeyColumn): WitKeyColumn {
  const n = col.length;
  let val: unknown;
  if (col.type === "bytes") val = { offsets: col.offsets!.subarray(0, n + 1), data: col.data! };
  else if (col.type === "decimal128") val = (col.values as Uint32Array).subarray(0, n * 4);
  else val = col.values!.subarray(0, n);
  return { values: { tag: WIT_TAGS[col.type], val }, validity: col.validity ?? undefined, validityOffset: col.validityOffset ?? 0 };
}

/** Concatenated key columns, sequences, row kinds and bounds of sorted runs, as the WIT merge takes them. */
function witRuns(runs: SortedRun[]): { keys: WitKeyColumn[]; bounds: Uint32Array; sequence: BigInt64Array; kinds: Int8Array } {
  const rows = runs.reduce((n, r) => n + r.sequence.length, 0);
  const sequence = new BigInt64Array(rows);
  const kinds = new Int8Array(rows);
  const bounds = new Uint32Array(runs.length + 1);
  runs.forEach((r, i) => {
    sequence.set(r.sequence, bounds[i]);
    if (r.rowKinds) kinds.set(r.rowKinds, bounds[i]);
    bounds[i + 1] = bounds[i]! + r.sequence.length;
  });
  const keys = runs[0]!.keys.map((_, c) => {
    const parts = runs.map((r) => r.keys[c]!);
    const values = parts.flatMap((p) => Array.from({ length: p.length }, (_, row) => keyValue(p, row)));
    return witColumn(keyColumnFromValues(parts[0]!.type, values));
  });
  return { keys, bounds, sequence, kinds };
}

let kernels: WitKernels;
let outDir: string;

beforeAll(async () => {
  const component = readFileSync(new URL("../../wasm/pkg/paimon_rt_kernels.component.wasm", import.meta.url));
  const { files } = await transpile(component, { name: "kernels", instantiation: "sync", noTypescript: true, quiet: true });
  outDir = mkdtempSync(join(tmpdir(), "paimon-rt-jco-"));
  // only the JS: the core modules are handed over compiled, below
  writeFileSync(join(outDir, "kernels.js"), files["kernels.js"]!);
  const bindings = (await import(pathToFileURL(join(outDir, "kernels.js")).href)) as {
    instantiate(getCoreModule: (path: string) => WebAssembly.Module, imports: object): Record<string, unknown>;
  };
  const instance = bindings.instantiate((path) => new WebAssembly.Module(files[path] as Uint8Array<ArrayBuffer>), {});
  kernels = instance.kernels as WitKernels;
}, 60_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("kernel component (jco transpile) gives the core module's results", () => {
  it("sortPermutation", () => {
    fc.assert(
      fc.property(
        keyTableArb(200).chain((t) => fc.tuple(fc.constant(t), sequenceArb(t.rows.length))),
        ([table, sequence]) => {
          const keys = columnsOf(table);
          expect(Array.from(kernels.sortPermutation(keys.map(witColumn), sequence))).toEqual(Array.from(sortPermutation(keys, sequence)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("mergeDeduplicate, with and without dropping deletes", () => {
    fc.assert(
      fc.property(sortedRunsArb(), fc.boolean(), (runs, dropDeletes) => {
        const { keys, bounds, sequence, kinds } = witRuns(runs);
        const expected = mergeDeduplicate(runs, { dropDeletes });
        const actual = kernels.mergeDeduplicate(keys, bounds, sequence, kinds, dropDeletes);
        expect({ run: Array.from(actual.run), row: Array.from(actual.row) }).toEqual({ run: Array.from(expected.run), row: Array.from(expected.row) });
      }),
      { numRuns: 60 },
    );
  });

  it("fingerprintKeys and assignBuckets", () => {
    fc.assert(
      fc.property(keyTableArb(200, undefined, 1), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.integer({ min: 0, max: 1000 }), (table, seed, buckets) => {
        const keys = columnsOf(table);
        const wit = keys.map(witColumn);
        expect(Array.from(kernels.fingerprintKeys(wit, seed))).toEqual(Array.from(fingerprintKeys(keys, seed)));
        expect(Array.from(kernels.assignBuckets(wit, buckets))).toEqual(Array.from(assignBuckets(keys, buckets)));
      }),
      { numRuns: 60 },
    );
  });

  it("xxh64Values and wangHash64Values", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 50 }),
        fc.nat(3),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 50 }),
        fc.constantFrom([1n, 1n], [1000n, 1n], [1n, 1000n]),
        (values, skip, seed, longs, [mul, div]) => {
          // offsets need not start at 0: `skip` leading bytes belong to no value
          const offsets = new Int32Array(values.length + 1);
          offsets[0] = skip;
          values.forEach((v, i) => (offsets[i + 1] = offsets[i]! + v.length));
          const data = new Uint8Array(offsets[values.length]!);
          values.forEach((v, i) => data.set(v, offsets[i]));
          expect(Array.from(kernels.xxh64Values(offsets, data, seed))).toEqual(Array.from(xxh64Values(offsets, data, seed)));
          const input = BigInt64Array.from(longs);
          expect(Array.from(kernels.wangHash64Values(input, mul, div))).toEqual(Array.from(wangHash64Values(input, mul, div)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("32-bit roaring bitmaps: set operations, run-optimize and the portable format", () => {
    const valuesArb = fc.array(fc.oneof(fc.nat(70_000), fc.integer({ min: 0, max: 2 ** 32 - 1 })), { maxLength: 300 });
    fc.assert(
      fc.property(valuesArb, valuesArb, fc.nat(100_000), fc.nat(10_000), fc.constantFrom("java", "croaring") as fc.Arbitrary<"java" | "croaring">, (a, b, start, span, rule) => {
        const [ta, tb] = [new RoaringBitmap32(a), new RoaringBitmap32(b)];
        const [ca, cb] = [new kernels.Bitmap32(), new kernels.Bitmap32()];
        ca.addMany(Uint32Array.from(a));
        cb.addMany(Uint32Array.from(b));
        ta.addRange(start, start + span + 1);
        ca.addRange(start, start + span);
        ta.removeMany(b.slice(0, 10));
        ca.removeMany(Uint32Array.from(b.slice(0, 10)));
        expect(Array.from(ca.toList())).toEqual(Array.from(ta.toArray()));
        expect(ca.cardinality()).toBe(BigInt(ta.size));
        expect(ca.containsMany(Uint32Array.from(b)).map(Number)).toEqual(Array.from(ta.hasMany(Uint32Array.from(b))));
        ta.orInPlace(tb);
        ca.orInplace(cb);
        ta.andNotInPlace(new RoaringBitmap32(b.slice(0, 5)));
        const cut = new kernels.Bitmap32();
        cut.addMany(Uint32Array.from(b.slice(0, 5)));
        ca.andNotInplace(cut);
        expect(ca.runOptimize(rule)).toBe(ta.runOptimize(rule));
        const bytes = ta.serializePortable();
        expect(Array.from(ca.serialize())).toEqual(Array.from(bytes));
        const [read, consumed] = kernels.Bitmap32.deserialize(bytes);
        expect(consumed).toBe(bytes.length);
        read.andInplace(cb);
        ta.andInPlace(tb);
        expect(Array.from(read.toList())).toEqual(Array.from(ta.toArray()));
      }),
      { numRuns: 40 },
    );
  });

  it("64-bit roaring bitmaps: set operations and both serialized layouts", () => {
    // values below 2^36: the Iceberg layout writes one bitmap per high word up to the largest
    const valuesArb = fc.array(fc.oneof(fc.bigInt({ min: 0n, max: 70_000n }), fc.bigInt({ min: 0n, max: 2n ** 36n }), fc.bigInt({ min: 2n ** 32n - 5n, max: 2n ** 32n + 5n })), { maxLength: 200 });
    fc.assert(
      fc.property(valuesArb, valuesArb, (a, b) => {
        const [ta, tb] = [new OffsetSet64(a), new OffsetSet64(b)];
        const [ca, cb] = [new kernels.Bitmap64(), new kernels.Bitmap64()];
        ca.addMany(BigUint64Array.from(a));
        cb.addMany(BigUint64Array.from(b));
        ta.orInPlace(tb);
        ca.orInplace(cb);
        expect(Array.from(ca.toList())).toEqual(Array.from(ta));
        expect(ca.cardinality()).toBe(BigInt(ta.size));
        expect(ca.containsMany(BigUint64Array.from(b.concat(a))).map(Number)).toEqual(Array.from(ta.hasMany(BigUint64Array.from(b.concat(a)))));
        expect(ca.runOptimize("java")).toBe(ta.runOptimize("java"));
        expect(Array.from(ca.serialize("navigable"))).toEqual(Array.from(ta.serializePortable()));
        expect(Array.from(ca.serialize("iceberg"))).toEqual(Array.from(ta.serializeIcebergLayout()));
        const [read, consumed] = kernels.Bitmap64.deserialize(ta.serializePortable());
        expect(consumed).toBe(ta.serializePortable().length);
        read.andNotInplace(cb);
        ta.andNotInPlace(tb);
        expect(Array.from(read.toList())).toEqual(Array.from(ta));
      }),
      { numRuns: 40 },
    );
  });

  it("a bitmap combined with itself: or/and keep it, and-not empties it (as the core module's wrappers)", () => {
    const values = Uint32Array.of(1, 2, 70_000);
    const [t, c] = [new RoaringBitmap32(values), new kernels.Bitmap32()];
    c.addMany(values);
    t.orInPlace(t).andInPlace(t);
    c.orInplace(c);
    c.andInplace(c);
    expect(Array.from(c.toList())).toEqual([1, 2, 70_000]);
    expect(Array.from(c.toList())).toEqual(Array.from(t.toArray()));
    t.andNotInPlace(t);
    c.andNotInplace(c);
    expect(c.cardinality()).toBe(0n);
    expect(t.size).toBe(0);
    const big = new kernels.Bitmap64();
    big.addMany(BigUint64Array.of(5n, 2n ** 33n));
    big.orInplace(big);
    expect(Array.from(big.toList())).toEqual([5n, 2n ** 33n]);
    big.andNotInplace(big);
    expect(big.cardinality()).toBe(0n);
  });

  it("rejects bad input with an error naming it (the core module's callers validate in JS)", () => {
    const ints = { values: { tag: "int32", val: Int32Array.of(1, 2, 3) }, validity: undefined, validityOffset: 0 };
    expect(() => kernels.sortPermutation([ints], BigInt64Array.of(1n, 2n))).toThrow(
      expect.objectContaining({ payload: "key column 0 has 3 rows, expected 2" }),
    );
    const bytes = { values: { tag: "bytes", val: { offsets: Int32Array.of(0, 4, 2), data: new Uint8Array(4) } }, validity: undefined, validityOffset: 0 };
    expect(() => kernels.fingerprintKeys([bytes], 0n)).toThrow(expect.objectContaining({ payload: "key column 0: bytes offsets decrease at row 1" }));
    expect(() => kernels.wangHash64Values(BigInt64Array.of(1n), 1n, 0n)).toThrow(expect.objectContaining({ payload: "div must be positive" }));
    expect(() => kernels.Bitmap32.deserialize(Uint8Array.of(1, 2, 3))).toThrow(
      expect.objectContaining({ payload: expect.stringMatching(/^not a portable 32-bit roaring bitmap: /) }),
    );
  });
});
