// Roaring bitmaps backed by the kernel crate (wasm/src/bitmap.rs): `RoaringBitmap32` for
// deletion-vector positions and `OffsetSet64` for 64-bit offsets. Both serialize to the
// RoaringBitmap "portable" format (byte-identical to Java RoaringBitmap / CRoaring) and
// its 64-bit extension (Java `Roaring64NavigableMap.serializePortable`).
//
// The bitmaps live in wasm memory: call `dispose()` when done. A FinalizationRegistry
// frees forgotten ones eventually, but only explicit disposal bounds memory use.
import { PaimonError } from "../error.js";
import { KernelFrame, kernelExports, type KernelExports } from "./wasm.js";

/**
 * How `runOptimize` breaks the one tie where an array container and a run container
 * serialize to the same size (e.g. {1,2,3}): `"java"` keeps the array, like Java
 * RoaringBitmap (what Paimon writes); `"croaring"` converts to runs, like CRoaring
 * and roaring-wasm. Both readers accept either form.
 */
export type RunOptimizeTieRule = "java" | "croaring";

const U32_MAX = 0xffffffff;
const U64_MAX = (1n << 64n) - 1n;
const PAGE = 4096;

/** The GC fallback's part of a FinalizationRegistry (absent on some hosts, e.g. older workerd). */
interface Finalizer {
  register(target: object, handle: number, token: object): void;
  unregister(token: object): void;
}

const NO_FINALIZER: Finalizer = { register() {}, unregister() {} };

/**
 * Created on first use, not at module load: importing the package must not fail (or allocate) on
 * a host without FinalizationRegistry, where bitmaps are then freed only by `dispose()`.
 */
function lazyFinalizer(free: (handle: number) => void): () => Finalizer {
  let finalizer: Finalizer | undefined;
  return () =>
    (finalizer ??= typeof FinalizationRegistry === "function" ? new FinalizationRegistry<number>(free) : NO_FINALIZER);
}

function isU32(v: unknown): v is number {
  return typeof v === "number" && v >>> 0 === v;
}

function checkU32(v: unknown, what: string): number {
  if (!isU32(v)) throw new PaimonError("INVALID_ARGUMENT", `${what} must be an integer in [0, 2^32 - 1], got ${String(v)}`);
  return v;
}

function toU64(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v >= 0n && v <= U64_MAX ? v : undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return undefined;
}

function checkU64(v: unknown, what: string): bigint {
  const r = toU64(v);
  if (r === undefined) throw new PaimonError("INVALID_ARGUMENT", `${what} must be an integer in [0, 2^64 - 1], got ${String(v)}`);
  return r;
}

function disposedError(what: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", `${what} has been disposed`);
}

function corrupt(what: string): PaimonError {
  return new PaimonError("CORRUPT_FILE", `${what}: not a valid RoaringBitmap portable serialization`);
}

/** Input values as a validated Uint32Array (typed arrays pass through without copying). */
function u32Values(values: Uint32Array | ArrayLike<number> | Iterable<number>, what: string): Uint32Array {
  if (values instanceof Uint32Array) return values;
  const list: ArrayLike<number> = isArrayLike(values) ? values : Array.from(values);
  const out = new Uint32Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = checkU32(list[i], what);
  return out;
}

function isArrayLike<T>(v: ArrayLike<T> | Iterable<T>): v is ArrayLike<T> {
  return typeof (v as ArrayLike<T>).length === "number";
}

let adopting = 0;

/** How one kind of kernel bitmap is created and freed. */
interface HandleKind {
  readonly name: string;
  create(): number;
  free(handle: number): void;
  readonly registry: () => Finalizer;
}

const KIND32: HandleKind = {
  name: "RoaringBitmap32",
  create: () => kernelExports().pr_bitmap32_new(),
  free: (h) => kernelExports().pr_bitmap32_free(h),
  registry: lazyFinalizer((h) => kernelExports().pr_bitmap32_free(h)),
};

const KIND64: HandleKind = {
  name: "OffsetSet64",
  create: () => kernelExports().pr_bitmap64_new(),
  free: (h) => kernelExports().pr_bitmap64_free(h),
  registry: lazyFinalizer((h) => kernelExports().pr_bitmap64_free(h)),
};

/**
 * The lifecycle of a bitmap living in wasm memory: a handle taken over from a kernel call
 * (see `adopt`) or freshly created, freed by `dispose()` or, as a fallback, by GC.
 */
abstract class KernelBitmap {
  private handle: number;

  protected constructor(private readonly kind: HandleKind) {
    if (adopting !== 0) {
      this.handle = adopting;
      adopting = 0;
    } else {
      this.handle = kind.create();
    }
    kind.registry().register(this, this.handle, this);
  }

  /** @internal The kernel handle (throws once disposed). */
  kernelHandle(): number {
    if (this.handle === 0) throw disposedError(this.kind.name);
    return this.handle;
  }

  get isDisposed(): boolean {
    return this.handle === 0;
  }

  /** Frees the wasm memory; further use throws INVALID_ARGUMENT. Idempotent. */
  dispose(): void {
    if (this.handle === 0) return;
    this.kind.registry().unregister(this);
    this.kind.free(this.handle);
    this.handle = 0;
  }
}

/**
 * A set of 32-bit unsigned integers (deletion-vector row positions) as a Roaring bitmap
 * in wasm memory. The API follows roaring-wasm's `RoaringBitmap32` where it overlaps.
 */
export class RoaringBitmap32 extends KernelBitmap implements Iterable<number> {
  constructor(values?: Uint32Array | ArrayLike<number> | Iterable<number>) {
    super(KIND32);
    if (values !== undefined) {
      try {
        this.addMany(values);
      } catch (e) {
        this.dispose();
        throw e;
      }
    }
  }

  private static adopt(handle: number): RoaringBitmap32 {
    adopting = handle;
    return new RoaringBitmap32();
  }

  clone(): RoaringBitmap32 {
    return RoaringBitmap32.adopt(kernelExports().pr_bitmap32_clone(this.kernelHandle()));
  }

  get size(): number {
    return kernelExports().pr_bitmap32_cardinality(this.kernelHandle());
  }

  get isEmpty(): boolean {
    return this.size === 0;
  }

  /** Smallest value, or undefined when empty. */
  minimum(): number | undefined {
    const v = kernelExports().pr_bitmap32_min(this.kernelHandle());
    return v < 0 ? undefined : v;
  }

  /** Largest value, or undefined when empty. */
  maximum(): number | undefined {
    const v = kernelExports().pr_bitmap32_max(this.kernelHandle());
    return v < 0 ? undefined : v;
  }

  add(value: number): this {
    kernelExports().pr_bitmap32_add(this.kernelHandle(), checkU32(value, "value"));
    return this;
  }

  /** Adds `value`; returns false if it was already present. */
  tryAdd(value: number): boolean {
    return kernelExports().pr_bitmap32_add(this.kernelHandle(), checkU32(value, "value")) === 1;
  }

  /** Adds many values in any order (sorted input is fastest). */
  addMany(values: Uint32Array | ArrayLike<number> | Iterable<number>): this {
    const h = this.kernelHandle();
    const vals = u32Values(values, "value");
    if (vals.length === 0) return this;
    const f = new KernelFrame();
    const at = f.reserve(vals.byteLength);
    f.open().write(at, vals);
    f.k.pr_bitmap32_add_many(h, f.ptr(at), vals.length);
    return this;
  }

  /** Adds the integers in `[start, end)`; `end` may be 2^32. */
  addRange(start: number, end: number): this {
    const h = this.kernelHandle();
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > 2 ** 32) {
      throw new PaimonError("INVALID_ARGUMENT", `range [${start}, ${end}) must lie within [0, 2^32]`);
    }
    if (start < end) kernelExports().pr_bitmap32_add_range(h, start, end - 1);
    return this;
  }

  /** Removes `value`; returns whether it was present. */
  delete(value: number): boolean {
    const h = this.kernelHandle();
    return isU32(value) && kernelExports().pr_bitmap32_remove(h, value) === 1;
  }

  removeMany(values: Uint32Array | ArrayLike<number> | Iterable<number>): this {
    const h = this.kernelHandle();
    const vals = u32Values(values, "value");
    if (vals.length === 0) return this;
    const f = new KernelFrame();
    const at = f.reserve(vals.byteLength);
    f.open().write(at, vals);
    f.k.pr_bitmap32_remove_many(h, f.ptr(at), vals.length);
    return this;
  }

  has(value: number): boolean {
    const h = this.kernelHandle();
    return isU32(value) && kernelExports().pr_bitmap32_contains(h, value) === 1;
  }

  /** One byte per value: 1 if present, else 0 (values outside u32 are absent). */
  hasMany(values: Uint32Array | ArrayLike<number>): Uint8Array {
    const h = this.kernelHandle();
    let vals: Uint32Array;
    let invalid: number[] | undefined;
    if (values instanceof Uint32Array) {
      vals = values;
    } else {
      vals = new Uint32Array(values.length);
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (isU32(v)) vals[i] = v;
        else (invalid ??= []).push(i);
      }
    }
    const n = vals.length;
    const f = new KernelFrame();
    const inAt = f.reserve(n * 4);
    const outAt = f.reserve(n);
    f.open().write(inAt, vals);
    f.k.pr_bitmap32_contains_many(h, f.ptr(inAt), n, f.ptr(outAt));
    const out = f.u8(outAt, n).slice();
    if (invalid) for (const i of invalid) out[i] = 0;
    return out;
  }

  /** All values, ascending. */
  toArray(): Uint32Array {
    const h = this.kernelHandle();
    const n = this.size;
    const f = new KernelFrame();
    const at = f.reserve(n * 4);
    f.open();
    const got = f.k.pr_bitmap32_copy_from(h, 0, f.ptr(at), n);
    return f.u32(at, got).slice();
  }

  /** Ascending values (paged out of wasm memory, PAGE at a time). */
  *[Symbol.iterator](): Iterator<number> {
    let from = 0;
    for (;;) {
      const page = this.page(from, PAGE);
      for (let i = 0; i < page.length; i++) yield page[i];
      if (page.length < PAGE || page[page.length - 1] === U32_MAX) return;
      from = page[page.length - 1] + 1;
    }
  }

  /** Up to `limit` values `>= from`, ascending. */
  page(from: number, limit: number): Uint32Array {
    const h = this.kernelHandle();
    const f = new KernelFrame();
    const at = f.reserve(limit * 4);
    f.open();
    const got = f.k.pr_bitmap32_copy_from(h, checkU32(from, "from"), f.ptr(at), limit);
    return f.u32(at, got).slice();
  }

  orInPlace(other: RoaringBitmap32): this {
    kernelExports().pr_bitmap32_or_inplace(this.kernelHandle(), other.kernelHandle());
    return this;
  }

  andNotInPlace(other: RoaringBitmap32): this {
    kernelExports().pr_bitmap32_and_not_inplace(this.kernelHandle(), other.kernelHandle());
    return this;
  }

  andInPlace(other: RoaringBitmap32): this {
    kernelExports().pr_bitmap32_and_inplace(this.kernelHandle(), other.kernelHandle());
    return this;
  }

  /** A new bitmap holding `a ∪ b`. */
  static or(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32 {
    return RoaringBitmap32.adopt(kernelExports().pr_bitmap32_or(a.kernelHandle(), b.kernelHandle()));
  }

  /** A new bitmap holding the values of `a` not in `b`. */
  static andNot(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32 {
    return RoaringBitmap32.adopt(kernelExports().pr_bitmap32_and_not(a.kernelHandle(), b.kernelHandle()));
  }

  /** A new bitmap holding `a ∩ b`. */
  static and(a: RoaringBitmap32, b: RoaringBitmap32): RoaringBitmap32 {
    return RoaringBitmap32.adopt(kernelExports().pr_bitmap32_and(a.kernelHandle(), b.kernelHandle()));
  }

  /**
   * Converts containers to run containers where smaller (and back). Returns whether
   * any run container remains. See `RunOptimizeTieRule` for the default `"java"`.
   */
  runOptimize(tieRule: RunOptimizeTieRule = "java"): boolean {
    return kernelExports().pr_bitmap32_run_optimize(this.kernelHandle(), tieRule === "croaring" ? 1 : 0) === 1;
  }

  getSerializationSizeInBytes(): number {
    return kernelExports().pr_bitmap32_serialize_size(this.kernelHandle());
  }

  /** The portable serialization (does not run-optimize first; call `runOptimize()` for that). */
  serializePortable(): Uint8Array {
    const h = this.kernelHandle();
    const f = new KernelFrame();
    const size = f.k.pr_bitmap32_serialize_size(h);
    const at = f.reserve(size);
    f.open();
    const written = f.k.pr_bitmap32_serialize(h, f.ptr(at));
    return f.u8(at, written).slice();
  }

  /** Reads a portable serialization; CORRUPT_FILE unless `bytes` is exactly one valid bitmap. */
  static deserializePortable(bytes: Uint8Array): RoaringBitmap32 {
    const { bitmap, consumed } = RoaringBitmap32.deserializePrefix(bytes);
    if (consumed !== bytes.length) {
      bitmap.dispose();
      throw new PaimonError("CORRUPT_FILE", `RoaringBitmap: ${bytes.length - consumed} trailing bytes after the bitmap`);
    }
    return bitmap;
  }

  /** Reads the portable bitmap at the start of `bytes`; returns it and its length. */
  static deserializePrefix(bytes: Uint8Array): { bitmap: RoaringBitmap32; consumed: number } {
    const f = new KernelFrame();
    const inAt = f.reserve(bytes.length);
    const usedAt = f.reserve(4);
    f.open().write(inAt, bytes);
    const handle = f.k.pr_bitmap32_deserialize(f.ptr(inAt), bytes.length, f.ptr(usedAt));
    if (handle === 0) throw corrupt("RoaringBitmap");
    const consumed = f.u32(usedAt, 1)[0];
    return { bitmap: RoaringBitmap32.adopt(handle), consumed };
  }
}

/**
 * A set of unsigned 64-bit integers (offsets, 64-bit deletion-vector positions): a sorted
 * map from the high 32 bits to a 32-bit Roaring bitmap, like Java `Roaring64NavigableMap`.
 * Values go in as bigint (or safe non-negative numbers) and come out as bigint.
 */
export class OffsetSet64 extends KernelBitmap implements Iterable<bigint> {
  constructor(values?: BigUint64Array | BigInt64Array | ArrayLike<bigint | number> | Iterable<bigint | number>) {
    super(KIND64);
    if (values !== undefined) {
      try {
        this.addMany(values);
      } catch (e) {
        this.dispose();
        throw e;
      }
    }
  }

  private static adopt(handle: number): OffsetSet64 {
    adopting = handle;
    return new OffsetSet64();
  }

  clone(): OffsetSet64 {
    return OffsetSet64.adopt(kernelExports().pr_bitmap64_clone(this.kernelHandle()));
  }

  /** Number of values (exact below 2^53). */
  get size(): number {
    return kernelExports().pr_bitmap64_cardinality(this.kernelHandle());
  }

  get sizeBigInt(): bigint {
    return BigInt(this.size);
  }

  get isEmpty(): boolean {
    return this.size === 0;
  }

  private extreme(which: 0 | 1): bigint | undefined {
    const h = this.kernelHandle();
    const f = new KernelFrame();
    const at = f.reserve(8);
    f.open();
    return f.k.pr_bitmap64_extreme(h, which, f.ptr(at)) === 0 ? undefined : f.u64(at, 1)[0];
  }

  minimum(): bigint | undefined {
    return this.extreme(0);
  }

  maximum(): bigint | undefined {
    return this.extreme(1);
  }

  add(value: bigint | number): this {
    kernelExports().pr_bitmap64_add(this.kernelHandle(), checkU64(value, "value"));
    return this;
  }

  addMany(values: BigUint64Array | BigInt64Array | ArrayLike<bigint | number> | Iterable<bigint | number>): this {
    const h = this.kernelHandle();
    let vals: BigUint64Array | BigInt64Array;
    if (values instanceof BigUint64Array || values instanceof BigInt64Array) {
      vals = values;
    } else {
      const list = isArrayLike(values) ? values : Array.from(values);
      vals = new BigUint64Array(list.length);
      for (let i = 0; i < list.length; i++) vals[i] = checkU64(list[i], "value");
    }
    if (vals.length === 0) return this;
    const f = new KernelFrame();
    const at = f.reserve(vals.byteLength);
    f.open().write(at, vals);
    const signed = vals instanceof BigInt64Array ? 1 : 0;
    if (f.k.pr_bitmap64_add_many(h, f.ptr(at), vals.length, signed) !== 0) {
      throw new PaimonError("INVALID_ARGUMENT", "values must be non-negative");
    }
    return this;
  }

  delete(value: bigint | number): boolean {
    const h = this.kernelHandle();
    const v = toU64(value);
    return v !== undefined && kernelExports().pr_bitmap64_remove(h, v) === 1;
  }

  has(value: bigint | number): boolean {
    const h = this.kernelHandle();
    const v = toU64(value);
    return v !== undefined && kernelExports().pr_bitmap64_contains(h, v) === 1;
  }

  /** One byte per value: 1 if present, else 0. */
  hasMany(values: BigUint64Array | ArrayLike<bigint | number>): Uint8Array {
    const h = this.kernelHandle();
    let vals: BigUint64Array;
    let invalid: number[] | undefined;
    if (values instanceof BigUint64Array) {
      vals = values;
    } else {
      vals = new BigUint64Array(values.length);
      for (let i = 0; i < values.length; i++) {
        const v = toU64(values[i]);
        if (v === undefined) (invalid ??= []).push(i);
        else vals[i] = v;
      }
    }
    const n = vals.length;
    const f = new KernelFrame();
    const inAt = f.reserve(n * 8);
    const outAt = f.reserve(n);
    f.open().write(inAt, vals);
    f.k.pr_bitmap64_contains_many(h, f.ptr(inAt), n, f.ptr(outAt));
    const out = f.u8(outAt, n).slice();
    if (invalid) for (const i of invalid) out[i] = 0;
    return out;
  }

  /** Up to `limit` values `>= from`, ascending. */
  page(from: bigint | number, limit: number): BigUint64Array {
    const h = this.kernelHandle();
    const start = checkU64(from, "from");
    const f = new KernelFrame();
    const at = f.reserve(limit * 8);
    f.open();
    const got = f.k.pr_bitmap64_copy_from(h, start, f.ptr(at), limit);
    return f.u64(at, got).slice();
  }

  toBigUint64Array(): BigUint64Array {
    return this.page(0n, this.size);
  }

  *[Symbol.iterator](): Iterator<bigint> {
    let from = 0n;
    for (;;) {
      const page = this.page(from, PAGE);
      for (let i = 0; i < page.length; i++) yield page[i];
      if (page.length < PAGE || page[page.length - 1] === U64_MAX) return;
      from = page[page.length - 1] + 1n;
    }
  }

  orInPlace(other: OffsetSet64): this {
    kernelExports().pr_bitmap64_or_inplace(this.kernelHandle(), other.kernelHandle());
    return this;
  }

  andNotInPlace(other: OffsetSet64): this {
    kernelExports().pr_bitmap64_and_not_inplace(this.kernelHandle(), other.kernelHandle());
    return this;
  }

  andInPlace(other: OffsetSet64): this {
    kernelExports().pr_bitmap64_and_inplace(this.kernelHandle(), other.kernelHandle());
    return this;
  }

  /** A new set holding the union of `a` and `b`. */
  static union(a: OffsetSet64, b: OffsetSet64): OffsetSet64 {
    return a.clone().orInPlace(b);
  }

  static andNot(a: OffsetSet64, b: OffsetSet64): OffsetSet64 {
    return a.clone().andNotInPlace(b);
  }

  runOptimize(tieRule: RunOptimizeTieRule = "java"): boolean {
    return kernelExports().pr_bitmap64_run_optimize(this.kernelHandle(), tieRule === "croaring" ? 1 : 0) === 1;
  }

  /**
   * The 64-bit portable serialization: u64 LE bucket count, then per non-empty bucket a
   * u32 LE high key and a 32-bit portable bitmap (Java `Roaring64NavigableMap.serializePortable`).
   */
  serializePortable(): Uint8Array {
    return serialize64(this.kernelHandle(), 0);
  }

  /**
   * The same layout with every key from 0 to the largest present, empty buckets included,
   * as Iceberg / Paimon 64-bit deletion vectors write it.
   */
  serializeIcebergLayout(): Uint8Array {
    return serialize64(this.kernelHandle(), 1);
  }

  /** Reads either 64-bit layout; CORRUPT_FILE unless `bytes` is exactly one valid bitmap. */
  static deserializePortable(bytes: Uint8Array): OffsetSet64 {
    const { set, consumed } = OffsetSet64.deserializePrefix(bytes);
    if (consumed !== bytes.length) {
      set.dispose();
      throw new PaimonError("CORRUPT_FILE", `Roaring64 bitmap: ${bytes.length - consumed} trailing bytes after the bitmap`);
    }
    return set;
  }

  static deserializePrefix(bytes: Uint8Array): { set: OffsetSet64; consumed: number } {
    const f = new KernelFrame();
    const inAt = f.reserve(bytes.length);
    const usedAt = f.reserve(4);
    f.open().write(inAt, bytes);
    const handle = f.k.pr_bitmap64_deserialize(f.ptr(inAt), bytes.length, f.ptr(usedAt));
    if (handle === 0) throw corrupt("Roaring64 bitmap");
    const consumed = f.u32(usedAt, 1)[0];
    return { set: OffsetSet64.adopt(handle), consumed };
  }
}

function serialize64(h: number, iceberg: 0 | 1): Uint8Array {
  const k: KernelExports = kernelExports();
  const size = k.pr_bitmap64_serialize_size(h, iceberg);
  if (size > 0x7fffffff) {
    throw new PaimonError("INVALID_ARGUMENT", `64-bit bitmap serialization would take ${size} bytes (limit 2^31 - 1)`);
  }
  const f = new KernelFrame();
  const at = f.reserve(size);
  f.open();
  const written = f.k.pr_bitmap64_serialize(h, iceberg, f.ptr(at));
  return f.u8(at, written).slice();
}
