// Test helpers: Arrow batches from canonical JS values, and an independent naive
// three-valued model of predicate evaluation (with a real NOT node).
import * as arrow from "apache-arrow";
import type { Timestamp } from "../../src/spec/binary-row.js";
import { toArrowType, type DataField, type DataType } from "../../src/spec/types.js";

const TEXT = new TextEncoder();

function validity(values: readonly unknown[]): { nullBitmap?: Uint8Array; nullCount: number } {
  const nulls = values.filter((v) => v === null).length;
  if (nulls === 0) return { nullCount: 0 };
  const bm = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) bm[i >> 3]! |= 1 << (i & 7);
  });
  return { nullBitmap: bm, nullCount: nulls };
}

function unitNs(type: DataType): bigint {
  const p = (type as { precision: number }).precision;
  return p === 0 ? 1_000_000_000n : p <= 3 ? 1_000_000n : p <= 6 ? 1_000n : 1n;
}

export function tsNanos(t: Timestamp): bigint {
  return t.millis * 1_000_000n + BigInt(t.nanoOfMillisecond);
}

/** Arrow Data (as `toArrowType(type)`) holding canonical values (null = null). */
export function columnData(type: DataType, values: readonly unknown[]): arrow.Data {
  const arrowType = toArrowType(type) as arrow.DataType;
  const length = values.length;
  const v = validity(values);
  const mk = (props: Record<string, unknown>): arrow.Data => arrow.makeData({ type: arrowType, length, ...v, ...props } as never);
  switch (type.kind) {
    case "BOOLEAN": {
      const bits = new Uint8Array(Math.ceil(length / 8));
      values.forEach((x, i) => {
        if (x === true) bits[i >> 3]! |= 1 << (i & 7);
      });
      return mk({ data: bits });
    }
    case "TINYINT":
      return mk({ data: Int8Array.from(values, (x) => (x as number) ?? 0) });
    case "SMALLINT":
      return mk({ data: Int16Array.from(values, (x) => (x as number) ?? 0) });
    case "INT":
    case "DATE":
    case "TIME":
      return mk({ data: Int32Array.from(values, (x) => (x as number) ?? 0) });
    case "BIGINT":
      return mk({ data: BigInt64Array.from(values, (x) => (x as bigint) ?? 0n) });
    case "FLOAT":
      return mk({ data: Float32Array.from(values, (x) => (x as number) ?? 0) });
    case "DOUBLE":
      return mk({ data: Float64Array.from(values, (x) => (x as number) ?? 0) });
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const u = unitNs(type);
      return mk({
        data: BigInt64Array.from(values, (x) => {
          if (x === null) return 0n;
          const ns = tsNanos(x as Timestamp);
          if (ns % u !== 0n) throw new Error(`timestamp ${ns}ns not representable at precision`);
          return ns / u;
        }),
      });
    }
    case "DECIMAL": {
      const words = new Uint32Array(length * 4);
      values.forEach((x, i) => {
        let u = BigInt.asUintN(128, (x as bigint) ?? 0n);
        for (let w = 0; w < 4; w++) {
          words[i * 4 + w] = Number(u & 0xffffffffn);
          u >>= 32n;
        }
      });
      return mk({ data: words });
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      const chunks = values.map((x) => (x === null ? new Uint8Array(0) : typeof x === "string" ? TEXT.encode(x) : (x as Uint8Array)));
      const offsets = new Int32Array(length + 1);
      chunks.forEach((c, i) => (offsets[i + 1] = offsets[i]! + c.length));
      const data = new Uint8Array(offsets[length]!);
      chunks.forEach((c, i) => data.set(c, offsets[i]!));
      return mk({ valueOffsets: offsets, data });
    }
    default:
      throw new Error(`columnData: unsupported ${type.kind}`);
  }
}

/** A RecordBatch with one column per field; rows[r][c] canonical values. */
export function makeBatch(fields: readonly DataField[], rows: readonly (readonly unknown[])[]): arrow.RecordBatch {
  const children = fields.map((f, c) => columnData(f.type, rows.map((r) => r[c] ?? null)));
  const schema = new arrow.Schema(fields.map((f, c) => new arrow.Field(f.name, children[c]!.type, true)));
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.RecordBatch(schema, struct);
}

// ---------------------------------------------------------------------------------------------
// Naive model
// ---------------------------------------------------------------------------------------------

export type ModelOp = "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "in" | "notIn" | "isNull" | "isNotNull" | "startsWith";
export type Model =
  | { kind: "leaf"; op: ModelOp; column: number; literals: unknown[] }
  | { kind: "and" | "or"; children: Model[] }
  | { kind: "not"; child: Model };

/** Three-valued truth: 1 TRUE, 0 FALSE, -1 UNKNOWN. */
export type Truth = 1 | 0 | -1;

function bytesCmp(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Independent value order: strings via their UTF-8 encoding, floats with NaN greatest and -0 == 0. */
export function modelCompare(type: DataType, a: unknown, b: unknown): number {
  switch (type.kind) {
    case "FLOAT":
    case "DOUBLE": {
      // Java Double.compare, transcribed: numeric order first, then doubleToLongBits (NaN
      // canonicalised) as signed longs, which puts -0.0 below 0.0 and NaN above everything.
      const x = a as number;
      const y = b as number;
      if (x < y) return -1;
      if (x > y) return 1;
      const bits = (v: number): bigint => {
        const view = new DataView(new ArrayBuffer(8));
        view.setFloat64(0, Number.isNaN(v) ? NaN : v);
        return view.getBigInt64(0);
      };
      const bx = bits(x);
      const by = bits(y);
      return bx === by ? 0 : bx < by ? -1 : 1;
    }
    case "CHAR":
    case "VARCHAR":
      return bytesCmp(TEXT.encode(a as string), TEXT.encode(b as string));
    case "BINARY":
    case "VARBINARY": {
      // Java CompareUtils.compare(byte[], byte[]): elements are signed bytes
      const x = new Int8Array((a as Uint8Array).buffer, (a as Uint8Array).byteOffset, (a as Uint8Array).length);
      const y = new Int8Array((b as Uint8Array).buffer, (b as Uint8Array).byteOffset, (b as Uint8Array).length);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    }
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const x = tsNanos(a as Timestamp);
      const y = tsNanos(b as Timestamp);
      return x === y ? 0 : x < y ? -1 : 1;
    }
    case "BOOLEAN":
      return Number(a) - Number(b);
    default: {
      const x = BigInt(a as number | bigint);
      const y = BigInt(b as number | bigint);
      return x === y ? 0 : x < y ? -1 : 1;
    }
  }
}

function startsWithModel(v: unknown, p: unknown): boolean {
  const a = typeof v === "string" ? TEXT.encode(v) : (v as Uint8Array);
  const b = typeof p === "string" ? TEXT.encode(p) : (p as Uint8Array);
  return a.length >= b.length && bytesCmp(a.subarray(0, b.length), b) === 0;
}

export function modelEval(m: Model, types: readonly DataType[], row: readonly unknown[]): Truth {
  switch (m.kind) {
    case "not": {
      const t = modelEval(m.child, types, row);
      return t === -1 ? -1 : t === 1 ? 0 : 1;
    }
    case "and": {
      let r: Truth = 1;
      for (const c of m.children) {
        const t = modelEval(c, types, row);
        if (t === 0) return 0;
        if (t === -1) r = -1;
      }
      return r;
    }
    case "or": {
      let r: Truth = 0;
      for (const c of m.children) {
        const t = modelEval(c, types, row);
        if (t === 1) return 1;
        if (t === -1) r = -1;
      }
      return r;
    }
    case "leaf": {
      const v = row[m.column];
      const type = types[m.column]!;
      if (m.op === "isNull") return v === null ? 1 : 0;
      if (m.op === "isNotNull") return v === null ? 0 : 1;
      if (v === null) return -1;
      if (m.op === "in" || m.op === "notIn") {
        let sawNull = false;
        for (const l of m.literals) {
          if (l === null) sawNull = true;
          else if (modelCompare(type, v, l) === 0) return m.op === "in" ? 1 : 0;
        }
        if (sawNull) return -1;
        return m.op === "in" ? 0 : 1;
      }
      if (m.op === "startsWith") return startsWithModel(v, m.literals[0]) ? 1 : 0;
      const c = modelCompare(type, v, m.literals[0]);
      const ok = { eq: c === 0, ne: c !== 0, lt: c < 0, le: c <= 0, gt: c > 0, ge: c >= 0 }[m.op];
      return ok ? 1 : 0;
    }
  }
}
