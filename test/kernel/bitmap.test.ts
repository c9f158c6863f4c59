// Roaring bitmaps of the kernel crate against reference models (JS Set / sorted arrays)
// and against roaring-wasm (an independent CRoaring build that interoperates with Java
// RoaringBitmap), which is the oracle for the portable bytes.
import fc from "fast-check";
import { RoaringBitmap32 as RW, roaringLibraryInitialize } from "roaring-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { OffsetSet64, RoaringBitmap32 } from "../../src/kernel/bitmap.js";
import {
  crc32,
  deletionVectorLength,
  deserializeDeletionVector,
  readDeletionVector,
  serializeDeletionVector32,
  serializeDeletionVector64,
} from "../../src/kernel/deletion-vector.js";

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s: string): Uint8Array => new Uint8Array(s.replace(/\s+/g, "").match(/../g)!.map((x) => parseInt(x, 16)));
const sorted = (s: Set<number>): number[] => Array.from(s).sort((a, b) => a - b);
const sortedBig = (s: Set<bigint>): bigint[] => Array.from(s).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Element-wise equality without deep-equal over huge arrays (reports the first difference). */
function expectSame<T>(actual: ArrayLike<T> | Iterable<T>, expected: ArrayLike<T>): void {
  const a = Array.from(actual as Iterable<T>);
  if (a.length === expected.length) {
    let i = 0;
    while (i < a.length && a[i] === expected[i]) i++;
    if (i === a.length) return;
    expect({ index: i, value: a[i] }).toEqual({ index: i, value: expected[i] });
  }
  expect(a.length).toBe(expected.length);
}

function expectCode(fn: () => unknown, code: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    expect((e as PaimonError).code).toBe(code);
    return;
  }
  throw new Error(`expected a PaimonError ${code}`);
}

beforeAll(async () => {
  await roaringLibraryInitialize();
});

// ---------------------------------------------------------------------------------------
// Operation sequences applied to our bitmap, roaring-wasm and a Set model.

type Op =
  | { kind: "add"; v: number }
  | { kind: "addMany"; vs: number[]; sort: boolean }
  | { kind: "dense"; key: number; n: number; seed: number }
  | { kind: "range"; start: number; len: number }
  | { kind: "delete"; v: number }
  | { kind: "deleteExisting"; frac: number }
  | { kind: "removeBlock"; key: number; start: number; n: number };

const keyArb = fc.constantFrom(0, 1, 2, 77, 0xffff);
const lowArb = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 1, 2, 0xfffe, 0xffff));
const valueArb = fc.oneof(
  { arbitrary: fc.tuple(keyArb, lowArb).map(([k, l]) => k * 65536 + l), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 0xffffffff }), weight: 1 },
  { arbitrary: fc.constantFrom(0, 0xffffffff, 65535, 65536, 0x7fffffff), weight: 1 },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("add" as const), v: valueArb }), weight: 4 },
  {
    arbitrary: fc.record({ kind: fc.constant("addMany" as const), vs: fc.array(valueArb, { maxLength: 300 }), sort: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("dense" as const),
      key: keyArb,
      n: fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 4000, max: 12000 })),
      seed: fc.integer({ min: 0, max: 65535 }),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("range" as const),
      start: valueArb,
      len: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 60000, max: 140000 })),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), v: valueArb }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("deleteExisting" as const), frac: fc.double({ min: 0, max: 1, noNaN: true }) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("removeBlock" as const),
      key: keyArb,
      start: fc.integer({ min: 0, max: 0xffff }),
      n: fc.integer({ min: 1, max: 9000 }),
    }),
    weight: 1,
  },
);

/** Materializes the values an op touches (shared by all three implementations). */
function denseValues(key: number, n: number, seed: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(key * 65536 + ((seed + i * 40503) & 0xffff)); // odd stride: distinct lows
  return out;
}

function blockValues(key: number, start: number, n: number): number[] {
  const out: number[] = [];
  for (let i = start; i < Math.min(start + n, 65536); i++) out.push(key * 65536 + i);
  return out;
}

function applyOps(ops: Op[]): { ours: RoaringBitmap32; rw: RW; model: Set<number> } {
  const ours = new RoaringBitmap32();
  const rw = new RW();
  const model = new Set<number>();
  for (const op of ops) {
    switch (op.kind) {
      case "add":
        ours.add(op.v);
        rw.add(op.v);
        model.add(op.v);
        break;
      case "addMany": {
        const vs = op.sort ? [...op.vs].sort((a, b) => a - b) : op.vs;
        ours.addMany(vs);
        rw.addMany(vs);
        for (const v of vs) model.add(v);
        break;
      }
      case "dense": {
        const vs = Uint32Array.from(denseValues(op.key, op.n, op.seed));
        ours.addMany(vs);
        rw.addMany(vs);
        for (const v of vs) model.add(v);
        break;
      }
      case "range": {
        const end = Math.min(op.start + op.len, 2 ** 32);
        ours.addRange(op.start, end);
        rw.addRange(op.start, end);
        for (let v = op.start; v < end; v++) model.add(v);
        break;
      }
      case "delete":
        expect(ours.delete(op.v)).toBe(model.has(op.v));
        rw.delete(op.v);
        model.delete(op.v);
        break;
      case "deleteExisting": {
        if (model.size === 0) break;
        let skip = Math.min(model.size - 1, Math.floor(op.frac * model.size));
        let v = 0;
        for (const x of model) {
          if (skip-- === 0) {
            v = x;
            break;
          }
        }
        expect(ours.delete(v)).toBe(true);
        rw.delete(v);
        model.delete(v);
        break;
      }
      case "removeBlock": {
        const vs = blockValues(op.key, op.start, op.n);
        ours.removeMany(vs);
        rw.removeMany(vs);
        for (const v of vs) model.delete(v);
        break;
      }
    }
  }
  return { ours, rw, model };
}

function checkAgainstModel(ours: RoaringBitmap32, model: Set<number>): void {
  const expected = sorted(model);
  expect(ours.size).toBe(expected.length);
  expectSame(ours.toArray(), expected);
  expect(ours.minimum()).toBe(expected[0]);
  expect(ours.maximum()).toBe(expected[expected.length - 1]);
}

const opsArb = fc.array(opArb, { minLength: 0, maxLength: 25 });

describe("RoaringBitmap32 (kernel crate)", () => {
  it("matches the Set model and roaring-wasm's portable bytes for random operation sequences", () => {
    fc.assert(
      fc.property(opsArb, fc.array(valueArb, { maxLength: 50 }), (ops, probes) => {
        const { ours, rw, model } = applyOps(ops);
        try {
          checkAgainstModel(ours, model);
          expectSame(ours, sorted(model));
          for (const p of probes) expect(ours.has(p)).toBe(model.has(p));
          const flags = ours.hasMany(Uint32Array.from(probes));
          expect(Array.from(flags)).toEqual(probes.map((p) => (model.has(p) ? 1 : 0)));
          // Same container kinds as CRoaring even before optimizing.
          expect(hex(ours.serializePortable())).toBe(hex(rw.serialize("portable")));
          ours.runOptimize("croaring");
          rw.runOptimize();
          const bytes = ours.serializePortable();
          expect(hex(bytes)).toBe(hex(rw.serialize("portable")));
          expect(ours.getSerializationSizeInBytes()).toBe(bytes.length);
          const back = RoaringBitmap32.deserializePortable(bytes);
          expectSame(back.toArray(), sorted(model));
          expect(hex(back.serializePortable())).toBe(hex(bytes));
          back.dispose();
          // Java's tie rule: readable by CRoaring, same set.
          ours.runOptimize("java");
          const javaBytes = ours.serializePortable();
          const viaRw = RW.deserialize("portable", javaBytes);
          expectSame(viaRw.toUint32Array(), sorted(model));
          viaRw.dispose();
          // And we read what CRoaring writes.
          const fromRw = RoaringBitmap32.deserializePortable(rw.serialize("portable"));
          expectSame(fromRw.toArray(), sorted(model));
          fromRw.dispose();
        } finally {
          ours.dispose();
          rw.dispose();
        }
      }),
      { numRuns: 150 },
    );
  });

  it("in-place or turns two bitmap containers that fill a key into a full run, like CRoaring", () => {
    // found by the property below (seed -2022437678): key 2 is a bitmap container on both sides
    const build = <T extends { addMany(v: Uint32Array): unknown; addRange(a: number, b: number): unknown }>(b: T, start: number, len: number): T => {
      b.addMany(Uint32Array.from([131072]));
      b.addRange(start, start + len);
      return b;
    };
    const a = build(new RoaringBitmap32(), 43961, 92640);
    const ra = build(new RW(), 43961, 92640);
    const b = build(new RoaringBitmap32(), 136601, 60007);
    const rb = build(new RW(), 136601, 60007);
    const staticOr = RoaringBitmap32.or(a, b);
    expect(hex(staticOr.serializePortable())).toBe(hex(RW.or(ra, rb).serialize("portable")));
    a.orInPlace(b);
    ra.orInPlace(rb);
    expect(hex(a.serializePortable())).toBe(hex(ra.serialize("portable")));
    expect(a.size).toBe(staticOr.size);
    for (const x of [a, b, staticOr]) x.dispose();
  });

  it("in-place or leaves a container that is already full as it is, like CRoaring", () => {
    // found by the property below (seed -688563050): key 1 of a is a full bitmap container,
    // key 1 of b a full run; roaring_bitmap_or_inplace skips a full container, the static or does not
    const buildA = <T extends { addMany(v: Uint32Array): unknown; addRange(a: number, b: number): unknown }>(x: T): T => {
      x.addMany(Uint32Array.from([131071]));
      x.addRange(65537, 65537 + 65534);
      x.addMany(Uint32Array.from([65536]));
      return x;
    };
    const buildB = <T extends { addRange(a: number, b: number): unknown }>(x: T): T => {
      x.addRange(65535, 65535 + 65537);
      return x;
    };
    const a = buildA(new RoaringBitmap32());
    const ra = buildA(new RW());
    const b = buildB(new RoaringBitmap32());
    const rb = buildB(new RW());
    const staticOr = RoaringBitmap32.or(a, b);
    expect(hex(staticOr.serializePortable())).toBe(hex(RW.or(ra, rb).serialize("portable")));
    a.orInPlace(b);
    ra.orInPlace(rb);
    expect(hex(a.serializePortable())).toBe(hex(ra.serialize("portable")));
    expect(a.size).toBe(65537);
    expect(staticOr.size).toBe(65537);
    for (const x of [a, b, staticOr]) x.dispose();
    ra.dispose();
    rb.dispose();
  });

  it("or / andNot / and match the model and roaring-wasm (static and in place)", () => {
    fc.assert(
      fc.property(opsArb, opsArb, (opsA, opsB) => {
        const a = applyOps(opsA);
        const b = applyOps(opsB);
        const cases: Array<[string, (x: Set<number>, y: Set<number>) => Set<number>]> = [
          ["or", (x, y) => new Set([...x, ...y])],
          ["andNot", (x, y) => new Set([...x].filter((v) => !y.has(v)))],
          ["and", (x, y) => new Set([...x].filter((v) => y.has(v)))],
        ];
        try {
          for (const [name, model] of cases) {
            const expected = model(a.model, b.model);
            const st =
              name === "or"
                ? RoaringBitmap32.or(a.ours, b.ours)
                : name === "andNot"
                  ? RoaringBitmap32.andNot(a.ours, b.ours)
                  : RoaringBitmap32.and(a.ours, b.ours);
            const rst = name === "or" ? RW.or(a.rw, b.rw) : name === "andNot" ? RW.andNot(a.rw, b.rw) : RW.and(a.rw, b.rw);
            checkAgainstModel(st, expected);
            expect(hex(st.serializePortable())).toBe(hex(rst.serialize("portable")));
            st.runOptimize("croaring");
            rst.runOptimize();
            expect(hex(st.serializePortable())).toBe(hex(rst.serialize("portable")));
            const ip = a.ours.clone();
            const rip = a.rw.clone();
            if (name === "or") {
              ip.orInPlace(b.ours);
              rip.orInPlace(b.rw);
            } else if (name === "andNot") {
              ip.andNotInPlace(b.ours);
              rip.andNotInPlace(b.rw);
            } else {
              ip.andInPlace(b.ours);
              rip.andInPlace(b.rw);
            }
            checkAgainstModel(ip, expected);
            expect(hex(ip.serializePortable())).toBe(hex(rip.serialize("portable")));
            for (const x of [st, ip]) x.dispose();
            for (const x of [rst, rip]) x.dispose();
          }
          // Operating with itself.
          const self = a.ours.clone();
          self.orInPlace(self);
          checkAgainstModel(self, a.model);
          self.andNotInPlace(self);
          expect(self.size).toBe(0);
          self.dispose();
        } finally {
          for (const x of [a, b]) {
            x.ours.dispose();
            x.rw.dispose();
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("handles empty bitmaps, 0 and 0xFFFFFFFF, and the full range", () => {
    const e = new RoaringBitmap32();
    expect(e.size).toBe(0);
    expect(e.isEmpty).toBe(true);
    expect(e.toArray().length).toBe(0);
    expect(Array.from(e)).toEqual([]);
    expect(e.minimum()).toBeUndefined();
    expect(hex(e.serializePortable())).toBe("3a30000000000000");
    expect(hex(e.serializePortable())).toBe(hex(new RW().serialize("portable")));
    expect(e.runOptimize()).toBe(false);
    expect(RoaringBitmap32.deserializePortable(e.serializePortable()).size).toBe(0);

    const b = new RoaringBitmap32([0xffffffff, 0]);
    expect(Array.from(b)).toEqual([0, 0xffffffff]);
    expect(b.has(0) && b.has(0xffffffff) && !b.has(1)).toBe(true);
    expect(b.has(-1) || b.has(2 ** 32) || b.has(1.5)).toBe(false);
    expect(b.delete(0xffffffff)).toBe(true);
    expect(b.delete(0xffffffff)).toBe(false);

    const full = new RoaringBitmap32().addRange(0, 2 ** 32);
    expect(full.size).toBe(2 ** 32);
    expect(full.has(123456789)).toBe(true);
    expect(full.page(0xfffffffe, 10)).toEqual(Uint32Array.of(0xfffffffe, 0xffffffff));
    const rfull = new RW();
    rfull.addRange(0, 2 ** 32);
    expect(hex(full.serializePortable())).toBe(hex(rfull.serialize("portable")));
    rfull.dispose();
    full.dispose();
  });

  it("switches container kinds: array -> bitmap -> run -> array", () => {
    const b = new RoaringBitmap32();
    const rw = new RW();
    const model = new Set<number>();
    const step = (f: (x: RoaringBitmap32, r: RW) => void, m: () => void) => {
      f(b, rw);
      m();
      expect(hex(b.serializePortable())).toBe(hex(rw.serialize("portable")));
      checkAgainstModel(b, model);
    };
    const evens = Array.from({ length: 5000 }, (_, i) => 70000 + 2 * i);
    step(
      (x, r) => {
        x.addMany(evens.slice(0, 4096));
        r.addMany(evens.slice(0, 4096));
      },
      () => evens.slice(0, 4096).forEach((v) => model.add(v)),
    ); // 4096: still an array
    step(
      (x, r) => {
        x.add(evens[4096]);
        r.add(evens[4096]);
      },
      () => model.add(evens[4096]),
    ); // 4097: bitmap
    step(
      (x, r) => {
        x.delete(evens[0]);
        r.delete(evens[0]);
      },
      () => model.delete(evens[0]),
    ); // back to 4096: array
    step(
      (x, r) => {
        x.addRange(65536, 131072);
        r.addRange(65536, 131072);
      },
      () => {
        for (let v = 65536; v < 131072; v++) model.add(v);
      },
    ); // full: run
    step(
      (x, r) => {
        x.removeMany(blockValues(1, 10, 65000));
        r.removeMany(blockValues(1, 10, 65000));
      },
      () => blockValues(1, 10, 65000).forEach((v) => model.delete(v)),
    ); // runs stay runs on removal (as in CRoaring)
    expect(b.runOptimize("croaring")).toBe(rw.runOptimize());
    expect(hex(b.serializePortable())).toBe(hex(rw.serialize("portable")));
    b.dispose();
    rw.dispose();
  });

  it("adds more values than roaring-wasm's addMany can take at once, sorted and unsorted", () => {
    const n = 2_000_000;
    const dense = new Uint32Array(n);
    for (let i = 0; i < n; i++) dense[i] = i * 3;
    const b = new RoaringBitmap32(dense);
    expect(b.size).toBe(n);
    expect(b.has(3 * 1234567) && !b.has(3 * 1234567 + 1)).toBe(true);
    const shuffled = dense.slice();
    let seed = 12345;
    for (let i = n - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    const c = new RoaringBitmap32(shuffled);
    expect(hex(c.serializePortable())).toBe(hex(b.serializePortable()));
    expectSame(c.toArray(), dense);
    b.dispose();
    c.dispose();
  });

  it("rejects invalid values and use after dispose", () => {
    const b = new RoaringBitmap32();
    expectCode(() => b.add(-1), "INVALID_ARGUMENT");
    expectCode(() => b.add(2 ** 32), "INVALID_ARGUMENT");
    expectCode(() => b.addMany([1, 2.5]), "INVALID_ARGUMENT");
    expectCode(() => b.addRange(-1, 5), "INVALID_ARGUMENT");
    expect(b.addRange(5, 5).size).toBe(0);
    expect(Array.from(b.hasMany([1, -1, 2 ** 40]))).toEqual([0, 0, 0]);
    b.dispose();
    b.dispose();
    expect(b.isDisposed).toBe(true);
    expectCode(() => b.add(1), "INVALID_ARGUMENT");
    expectCode(() => b.size, "INVALID_ARGUMENT");
  });

  it("deserializing truncated or garbage bytes gives CORRUPT_FILE, never a crash", () => {
    const samples: Uint8Array[] = [];
    for (const ops of fc.sample(opsArb, { numRuns: 12, seed: 7 })) {
      const { ours, rw } = applyOps(ops);
      samples.push(ours.serializePortable());
      ours.runOptimize();
      samples.push(ours.serializePortable());
      ours.dispose();
      rw.dispose();
    }
    const big = new RoaringBitmap32().addRange(10, 300000).addMany([1, 3, 5, 1 << 24]);
    big.runOptimize();
    samples.push(big.serializePortable());
    big.dispose();
    for (const bytes of samples) {
      for (let cut = 0; cut < bytes.length; cut += Math.max(1, Math.floor(bytes.length / 200))) {
        expectCode(() => RoaringBitmap32.deserializePortable(bytes.subarray(0, cut)), "CORRUPT_FILE");
      }
      const extra = new Uint8Array(bytes.length + 1);
      extra.set(bytes);
      expectCode(() => RoaringBitmap32.deserializePortable(extra), "CORRUPT_FILE");
    }
    const acceptOrCorrupt = (bytes: Uint8Array) => {
      let b: RoaringBitmap32 | undefined;
      try {
        b = RoaringBitmap32.deserializePortable(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code).toBe("CORRUPT_FILE");
        return;
      }
      // Anything accepted is a well-formed set (checked on the first million values).
      const values = b.page(0, 1_000_000);
      expect(values.length).toBe(Math.min(b.size, 1_000_000));
      let ascending = true;
      for (let i = 1; i < values.length; i++) ascending &&= values[i] > values[i - 1];
      expect(ascending).toBe(true);
      const again = RoaringBitmap32.deserializePortable(b.serializePortable());
      expect(again.size).toBe(b.size);
      again.dispose();
      b.dispose();
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (garbage) => {
        acceptOrCorrupt(garbage);
        const withCookie = new Uint8Array(garbage.length + 4);
        withCookie.set([0x3b, 0x30, garbage[0] ?? 0, 0]);
        withCookie.set(garbage, 4);
        acceptOrCorrupt(withCookie);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (bytes, edits) => {
          const g = bytes.slice();
          for (const [i, v] of edits) g[i % g.length] = v;
          acceptOrCorrupt(g);
        },
      ),
      { numRuns: 1000 },
    );
    // The instance survived all of it.
    const after = new RoaringBitmap32([1, 2, 3]);
    expect(after.size).toBe(3);
    after.dispose();
  });
});

// ---------------------------------------------------------------------------------------
// 64-bit

const highArb = fc.oneof(fc.constantFrom(0, 1, 2, 7, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff }));
const value64Arb = fc
  .tuple(highArb, fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 70000 }), fc.constantFrom(0, 0xffffffff)))
  .map(([h, l]) => (BigInt(h) << 32n) | BigInt(l));

type Op64 = { kind: "add"; v: bigint } | { kind: "addMany"; vs: bigint[]; signed: boolean } | { kind: "delete"; v: bigint };
const op64Arb: fc.Arbitrary<Op64> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("add" as const), v: value64Arb }), weight: 3 },
  {
    arbitrary: fc.record({ kind: fc.constant("addMany" as const), vs: fc.array(value64Arb, { maxLength: 300 }), signed: fc.boolean() }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), v: value64Arb }), weight: 1 },
);

function apply64(ops: Op64[]): { ours: OffsetSet64; model: Set<bigint> } {
  const ours = new OffsetSet64();
  const model = new Set<bigint>();
  for (const op of ops) {
    if (op.kind === "add") {
      ours.add(op.v);
      model.add(op.v);
    } else if (op.kind === "addMany") {
      const signedOk = op.signed && op.vs.every((v) => v < 1n << 63n);
      ours.addMany(signedOk ? BigInt64Array.from(op.vs) : BigUint64Array.from(op.vs));
      for (const v of op.vs) model.add(v);
    } else {
      expect(ours.delete(op.v)).toBe(model.has(op.v));
      model.delete(op.v);
    }
  }
  return { ours, model };
}

/** The 64-bit portable bytes assembled from roaring-wasm bitmaps per high key. */
function assemble64(model: Set<bigint>, iceberg: boolean): string {
  const byHigh = new Map<number, number[]>();
  for (const v of model) {
    const h = Number(v >> 32n);
    let lows = byHigh.get(h);
    if (!lows) byHigh.set(h, (lows = []));
    lows.push(Number(v & 0xffffffffn));
  }
  let keys = [...byHigh.keys()].sort((a, b) => a - b);
  if (iceberg && keys.length > 0) keys = Array.from({ length: keys[keys.length - 1] + 1 }, (_, i) => i);
  const u64 = new Uint8Array(8);
  new DataView(u64.buffer).setBigUint64(0, BigInt(keys.length), true);
  let out = hex(u64);
  for (const k of keys) {
    const key = new Uint8Array(4);
    new DataView(key.buffer).setUint32(0, k, true);
    const rw = new RW(byHigh.get(k) ?? []);
    rw.runOptimize();
    out += hex(key) + hex(rw.serialize("portable"));
    rw.dispose();
  }
  return out;
}

describe("OffsetSet64 (kernel crate)", () => {
  it("matches a Set<bigint> model and bytes assembled from roaring-wasm per high key", () => {
    fc.assert(
      fc.property(fc.array(op64Arb, { maxLength: 20 }), fc.array(value64Arb, { maxLength: 30 }), (ops, probes) => {
        const { ours, model } = apply64(ops);
        try {
          const expected = sortedBig(model);
          expect(ours.size).toBe(expected.length);
          expect(ours.sizeBigInt).toBe(BigInt(expected.length));
          expect(Array.from(ours)).toEqual(expected);
          expect(Array.from(ours.toBigUint64Array())).toEqual(expected);
          expect(ours.minimum()).toBe(expected[0]);
          expect(ours.maximum()).toBe(expected[expected.length - 1]);
          for (const p of probes) expect(ours.has(p)).toBe(model.has(p));
          expect(Array.from(ours.hasMany(BigUint64Array.from(probes)))).toEqual(probes.map((p) => (model.has(p) ? 1 : 0)));
          ours.runOptimize("croaring");
          const bytes = ours.serializePortable();
          expect(hex(bytes)).toBe(assemble64(model, false));
          const back = OffsetSet64.deserializePortable(bytes);
          expect(Array.from(back)).toEqual(expected);
          back.dispose();
          if (expected.length === 0 || expected[expected.length - 1] < 1n << 40n) {
            const ice = ours.serializeIcebergLayout();
            expect(hex(ice)).toBe(assemble64(model, true));
            const iceBack = OffsetSet64.deserializePortable(ice);
            expect(Array.from(iceBack)).toEqual(expected);
            iceBack.dispose();
          }
        } finally {
          ours.dispose();
        }
      }),
      { numRuns: 200 },
    );
  });

  it("union and andNot match the model", () => {
    fc.assert(
      fc.property(fc.array(op64Arb, { maxLength: 12 }), fc.array(op64Arb, { maxLength: 12 }), (opsA, opsB) => {
        const a = apply64(opsA);
        const b = apply64(opsB);
        const u = OffsetSet64.union(a.ours, b.ours);
        expect(Array.from(u)).toEqual(sortedBig(new Set([...a.model, ...b.model])));
        const d = OffsetSet64.andNot(a.ours, b.ours);
        expect(Array.from(d)).toEqual(sortedBig(new Set([...a.model].filter((v) => !b.model.has(v)))));
        const i = a.ours.clone().andInPlace(b.ours);
        expect(Array.from(i)).toEqual(sortedBig(new Set([...a.model].filter((v) => b.model.has(v)))));
        for (const x of [a.ours, b.ours, u, d, i]) x.dispose();
      }),
      { numRuns: 100 },
    );
  });

  it("iterates across pages and bucket boundaries, including 2^64 - 1", () => {
    const s = new OffsetSet64();
    const vals: bigint[] = [];
    for (let i = 0; i < 10000; i++) vals.push((1n << 32n) - 5000n + BigInt(i));
    vals.push((1n << 64n) - 1n, 0n);
    s.addMany(vals);
    expect(Array.from(s)).toEqual(sortedBig(new Set(vals)));
    expect(s.has((1n << 64n) - 1n)).toBe(true);
    expect(s.has(2n ** 64n) || s.has(-1n) || s.has(1.5)).toBe(false);
    expect(s.add(5).has(5)).toBe(true);
    expectCode(() => s.add(-1n), "INVALID_ARGUMENT");
    expectCode(() => s.add(2n ** 64n), "INVALID_ARGUMENT");
    expectCode(() => s.addMany(BigInt64Array.of(1n, -2n)), "INVALID_ARGUMENT");
    expect(s.has(1n)).toBe(false); // nothing was added by the rejected batch
    s.dispose();
    expectCode(() => s.size, "INVALID_ARGUMENT");
  });

  it("reads Java Roaring64NavigableMap.serializePortable bytes and rejects garbage", () => {
    // Keys 0, 1, 7 and Long.MAX_VALUE's high key, as the Java writer lays them out.
    const javaValues = [1n, 42n, (1n << 32n) + 3n, 7n * (1n << 32n) + 99n, (1n << 63n) - 1n];
    const bytes = unhex(assemble64(new Set(javaValues), false));
    const s = OffsetSet64.deserializePortable(bytes);
    expect(Array.from(s)).toEqual(javaValues);
    expect(hex(s.serializePortable())).toBe(hex(bytes));
    s.dispose();
    for (let cut = 0; cut < bytes.length; cut++) {
      expectCode(() => OffsetSet64.deserializePortable(bytes.subarray(0, cut)), "CORRUPT_FILE");
    }
    const hugeCount = new Uint8Array(16).fill(0xff);
    expectCode(() => OffsetSet64.deserializePortable(hugeCount), "CORRUPT_FILE");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (g) => {
        try {
          OffsetSet64.deserializePortable(g).dispose();
        } catch (e) {
          expect((e as PaimonError).code).toBe("CORRUPT_FILE");
        }
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------
// Deletion vectors (paimon-format §8)

describe("deletion vectors", () => {
  const DV32_135 = "0000001a 5e43f2d0 3a300000 01000000 0000 0200 10000000 0100 0300 0500 f39291eb";
  const DV64_135 = "00000026 d1d33964 0100000000000000 00000000 3a300000010000000000020010000000010003000500 5a9e5d39";

  it("reproduces the §8.4 32-bit vector and index file", () => {
    const bytes = serializeDeletionVector32(new RoaringBitmap32([5, 1, 3]));
    expect(hex(bytes)).toBe(hex(unhex(DV32_135)));
    expect(deletionVectorLength(bytes)).toBe(26);
    const file = new Uint8Array([1, ...bytes]);
    expect(file.length).toBe(35);
    const dv = readDeletionVector(file, 1, 26);
    expect(dv.format).toBe("bitmap32");
    expect(Array.from(dv.bitmap as RoaringBitmap32)).toEqual([1, 3, 5]);
    const direct = deserializeDeletionVector(unhex(DV32_135));
    expect(Array.from(direct.bitmap as RoaringBitmap32)).toEqual([1, 3, 5]);
    expect(crc32(unhex("5e43f2d03a300000010000000000020010000000010003000500"))).toBe(0xf39291eb);
  });

  it("reproduces the §8.4 64-bit vector", () => {
    const bytes = serializeDeletionVector64(new OffsetSet64([5n, 1n, 3n]));
    expect(hex(bytes)).toBe(hex(unhex(DV64_135)));
    expect(bytes.length).toBe(46);
    expect(deletionVectorLength(bytes)).toBe(46);
    const dv = readDeletionVector(new Uint8Array([1, ...bytes]), 1, 46);
    expect(dv.format).toBe("bitmap64");
    expect(Array.from(dv.bitmap as OffsetSet64)).toEqual([1n, 3n, 5n]);
  });

  it("writes empty buckets for missing keys in the 64-bit layout, and runs like Java", () => {
    const positions = new OffsetSet64([5n, (2n << 32n) + 1n]);
    const bytes = serializeDeletionVector64(positions);
    const expectedBody = assemble64(new Set([5n, (2n << 32n) + 1n]), true);
    expect(hex(bytes.subarray(8, bytes.length - 4))).toBe(expectedBody);
    const back = deserializeDeletionVector(bytes);
    expect(Array.from(back.bitmap as OffsetSet64)).toEqual([5n, (2n << 32n) + 1n]);
    // Java's tie rule: {1,2,3} stays an array container (CRoaring would use a run).
    const tie = serializeDeletionVector32(new RoaringBitmap32([1, 2, 3]));
    expect(hex(tie.subarray(8, 12))).toBe("3a300000");
    const runs = serializeDeletionVector32(new RoaringBitmap32().addRange(0, 1000));
    expect(hex(runs.subarray(8, 10))).toBe("3b30");
  });

  it("round-trips random position sets in both formats", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 200000 }), fc.integer({ min: 0, max: 0x7fffffff })), { maxLength: 500 }), (ps) => {
        const b = new RoaringBitmap32(ps);
        const dv = deserializeDeletionVector(serializeDeletionVector32(b));
        expect(Array.from(dv.bitmap as RoaringBitmap32)).toEqual(sorted(new Set(ps)));
        const s = new OffsetSet64(ps);
        const dv64 = deserializeDeletionVector(serializeDeletionVector64(s));
        expect(Array.from(dv64.bitmap as OffsetSet64)).toEqual(sorted(new Set(ps)).map(BigInt));
        for (const x of [b, s, dv.bitmap, dv64.bitmap]) x.dispose();
      }),
      { numRuns: 100 },
    );
  });

  it("rejects bad magic, lengths, CRC and out-of-range positions", () => {
    const good = unhex(DV32_135);
    const badMagic = good.slice();
    badMagic[4] ^= 1;
    expectCode(() => deserializeDeletionVector(badMagic), "CORRUPT_FILE");
    expectCode(() => deserializeDeletionVector(good.subarray(0, good.length - 1)), "CORRUPT_FILE");
    expectCode(() => deserializeDeletionVector(good.subarray(0, 7)), "CORRUPT_FILE");
    const badSize = good.slice();
    badSize[3] = 0x1b;
    expectCode(() => deserializeDeletionVector(badSize), "CORRUPT_FILE");
    const badCrc = good.slice();
    badCrc[good.length - 1] ^= 0xff;
    expectCode(() => deserializeDeletionVector(badCrc), "CORRUPT_FILE");
    expect(Array.from(deserializeDeletionVector(badCrc, { verifyCrc: false }).bitmap as RoaringBitmap32)).toEqual([1, 3, 5]);
    const badBitmap = good.slice();
    badBitmap[8] = 0x00; // cookie
    expectCode(() => deserializeDeletionVector(badBitmap, { verifyCrc: false }), "CORRUPT_FILE");
    const file = new Uint8Array([1, ...good]);
    expectCode(() => readDeletionVector(file, 1, 25), "CORRUPT_FILE");
    expectCode(() => readDeletionVector(file, 30, 26), "CORRUPT_FILE");
    const good64 = unhex(DV64_135);
    expectCode(() => readDeletionVector(good64, 0, 45), "CORRUPT_FILE");
    expectCode(() => deserializeDeletionVector(good64.subarray(0, 40)), "CORRUPT_FILE");
    expectCode(() => serializeDeletionVector32(new RoaringBitmap32([2 ** 31])), "INVALID_ARGUMENT");
    expectCode(() => serializeDeletionVector64(new OffsetSet64([1n << 63n])), "INVALID_ARGUMENT");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (g) => {
        try {
          deserializeDeletionVector(g).bitmap.dispose();
        } catch (e) {
          expect((e as PaimonError).code).toBe("CORRUPT_FILE");
        }
      }),
      { numRuns: 300 },
    );
  });
});
