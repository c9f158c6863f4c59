/**
 * Conversion between the oracles' lossless JSON value encoding (oracle/README.md, "Value
 * encoding") and Apache Arrow, so that rows written or read by paimon-rt compare exactly with
 * the rows pypaimon and Java Paimon write or read.
 *
 *  - `rowsToBatch(fields, rows)`: oracle-style JSON rows -> an Arrow RecordBatch in the canonical
 *    Arrow layout of the Paimon types (`toArrowType`), built with `makeData` over typed arrays
 *    (no lossy Arrow builders: int64, decimals and nanosecond timestamps stay exact).
 *  - `arrowToRows(table)`: paimon-rt's read output -> JSON rows in the oracle encoding, read
 *    straight from the Arrow buffers (offsets of sliced data honoured).
 *
 * Encoding (both directions): BIGINT -> decimal string; FLOAT/DOUBLE -> number (FLOAT widened
 * to double), "NaN"/"Infinity"/"-Infinity" strings; DECIMAL(p,s) -> plain string with exactly s
 * fraction digits; strings -> string; binary -> base64; DATE -> "YYYY-MM-DD"; TIME -> millis
 * of day; TIMESTAMP / TIMESTAMP_LTZ -> decimal string of epoch nanoseconds; ARRAY -> array;
 * MAP / MULTISET -> [[key, value], ...]; ROW -> object.
 */
import * as arrow from "apache-arrow";
import { type DataType, parseDataType, toArrowType } from "../../src/spec/types.js";
import type { OracleRow } from "./oracle/harness.js";
import type { Table } from "../../src/table/table.js";

export interface FieldLike {
  name: string;
  type: string | DataType;
}

const T = arrow.Type;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function typeOf(t: string | DataType): DataType {
  return typeof t === "string" ? parseDataType(t) : t;
}

// ---------------------------------------------------------------------------------------------
// JSON -> Arrow
// ---------------------------------------------------------------------------------------------

/** Arrow field of a spec field (canonical Arrow type of the Paimon type). */
export function arrowFieldOf(field: FieldLike): arrow.Field {
  const type = typeOf(field.type);
  return new arrow.Field(field.name, toArrowType(type), type.nullable);
}

/** A RecordBatch with one column per field, from oracle-encoded rows (missing keys are null). */
export function rowsToBatch(fields: readonly FieldLike[], rows: readonly OracleRow[]): arrow.RecordBatch {
  const arrowFields = fields.map(arrowFieldOf);
  for (const r of rows) {
    for (const k of Object.keys(r)) {
      if (k !== "_kind" && !fields.some((f) => f.name === k)) throw new Error(`row has unknown column ${k}: ${JSON.stringify(r)}`);
    }
  }
  const children = arrowFields.map((f) => valuesToData(f.type, rows.map((r) => r[f.name] ?? null), f.name));
  const schema = new arrow.Schema(arrowFields);
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children }));
}

function validity(values: readonly unknown[]): { nullCount: number; nullBitmap: Uint8Array | undefined } {
  let nullCount = 0;
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v === null || v === undefined) nullCount++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  });
  return { nullCount, nullBitmap: nullCount === 0 ? undefined : bitmap };
}

function toNumber(v: unknown, what: string): number {
  if (typeof v === "number") return v;
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  if (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v))) return Number(v);
  throw new Error(`${what}: expected a number, got ${JSON.stringify(v)}`);
}

function toBigInt(v: unknown, what: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  throw new Error(`${what}: expected an integer, got ${JSON.stringify(v)}`);
}

/** "-12.30" -> unscaled -1230n at scale 2 (exactly `scale` fraction digits allowed or fewer). */
export function parseDecimal(text: string, scale: number, what = "decimal"): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new Error(`${what}: bad decimal ${JSON.stringify(text)}`);
  const frac = m[3] ?? "";
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new Error(`${what}: ${text} has more than ${scale} fraction digits`);
  const digits = (m[2] || "0") + frac.slice(0, scale).padEnd(scale, "0");
  const unscaled = BigInt(digits);
  return m[1] === "-" ? -unscaled : unscaled;
}

/** Unscaled value at `scale` -> plain decimal string with exactly `scale` fraction digits. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale === 0) return (neg ? "-" : "") + digits;
  digits = digits.padStart(scale + 1, "0");
  return `${neg ? "-" : ""}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

// Days since 1970-01-01 <-> proleptic Gregorian civil date (H. Hinnant's algorithms; any year).
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): string {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const yy = y < 0 ? `-${String(-y).padStart(4, "0")}` : y > 9999 ? `+${y}` : String(y).padStart(4, "0");
  return `${yy}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

export function parseDate(v: unknown, what = "date"): number {
  if (typeof v === "number") return v;
  const m = typeof v === "string" ? /^([+-]?\d{4,})-(\d{2})-(\d{2})$/.exec(v) : null;
  if (!m) throw new Error(`${what}: bad date ${JSON.stringify(v)}`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

const UNIT_NANOS: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1_000_000_000n,
  [arrow.TimeUnit.MILLISECOND]: 1_000_000n,
  [arrow.TimeUnit.MICROSECOND]: 1_000n,
  [arrow.TimeUnit.NANOSECOND]: 1n,
};

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function offsetsOf(lengths: number[]): Int32Array {
  const o = new Int32Array(lengths.length + 1);
  for (let i = 0; i < lengths.length; i++) o[i + 1] = o[i] + lengths[i];
  return o;
}

/** Arrow Data of `type` holding the oracle-encoded `values` (null/undefined = null). */
export function valuesToData(type: arrow.DataType, values: readonly unknown[], what = "column"): arrow.Data {
  const n = values.length;
  const { nullCount, nullBitmap } = validity(values);
  const at = (i: number) => `${what}[${i}]`;
  switch (type.typeId) {
    case T.Bool: {
      const bits = new Uint8Array((n + 7) >> 3);
      values.forEach((v, i) => {
        if (v === null || v === undefined) return;
        if (typeof v !== "boolean") throw new Error(`${at(i)}: expected boolean, got ${JSON.stringify(v)}`);
        if (v) bits[i >> 3] |= 1 << (i & 7);
      });
      return arrow.makeData({ type: type as arrow.Bool, length: n, nullCount, nullBitmap, data: bits });
    }
    case T.Int: {
      const it = type as arrow.Int;
      if (it.bitWidth === 64) {
        const out = new BigInt64Array(n);
        values.forEach((v, i) => v != null && (out[i] = BigInt.asIntN(64, toBigInt(v, at(i)))));
        return arrow.makeData({ type: it, length: n, nullCount, nullBitmap, data: out as unknown as Int32Array });
      }
      const Ctor = it.bitWidth === 8 ? Int8Array : it.bitWidth === 16 ? Int16Array : Int32Array;
      const out = new Ctor(n);
      values.forEach((v, i) => {
        if (v == null) return;
        const x = toNumber(v, at(i));
        if (!Number.isInteger(x)) throw new Error(`${at(i)}: expected an integer, got ${JSON.stringify(v)}`);
        out[i] = x;
        if (out[i] !== x) throw new Error(`${at(i)}: ${x} out of range for ${String(type)}`);
      });
      return arrow.makeData({ type: it, length: n, nullCount, nullBitmap, data: out as Int32Array });
    }
    case T.Float: {
      const ft = type as arrow.Float;
      const out = ft.precision === arrow.Precision.DOUBLE ? new Float64Array(n) : new Float32Array(n);
      values.forEach((v, i) => v != null && (out[i] = toNumber(v, at(i))));
      return arrow.makeData({ type: ft as arrow.Float64, length: n, nullCount, nullBitmap, data: out as Float64Array });
    }
    case T.Decimal: {
      const dt = type as arrow.Decimal;
      if (dt.bitWidth !== 128) throw new Error(`${what}: only Decimal128 is supported`);
      const words = new Uint32Array(n * 4);
      values.forEach((v, i) => {
        if (v == null) return;
        let x = parseDecimal(String(v), dt.scale, at(i));
        if ((x < 0n ? -x : x).toString().length > dt.precision) throw new Error(`${at(i)}: ${v} does not fit DECIMAL(${dt.precision}, ${dt.scale})`);
        x = BigInt.asUintN(128, x);
        for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((x >> BigInt(32 * w)) & 0xffffffffn);
      });
      return arrow.makeData({ type: dt, length: n, nullCount, nullBitmap, data: words });
    }
    case T.Utf8:
    case T.Binary: {
      const parts = values.map((v, i) => {
        if (v == null) return new Uint8Array(0);
        if (typeof v !== "string") throw new Error(`${at(i)}: expected a string, got ${JSON.stringify(v)}`);
        return type.typeId === T.Utf8 ? encoder.encode(v) : Uint8Array.from(Buffer.from(v, "base64"));
      });
      const valueOffsets = offsetsOf(parts.map((p) => p.length));
      const data = new Uint8Array(valueOffsets[n]);
      parts.forEach((p, i) => data.set(p, valueOffsets[i]));
      return arrow.makeData({ type: type as arrow.Utf8, length: n, nullCount, nullBitmap, valueOffsets, data });
    }
    case T.FixedSizeBinary: {
      const w = (type as arrow.FixedSizeBinary).byteWidth;
      const data = new Uint8Array(n * w);
      values.forEach((v, i) => {
        if (v == null) return;
        const b = Buffer.from(String(v), "base64");
        if (b.length !== w) throw new Error(`${at(i)}: expected ${w} bytes, got ${b.length}`);
        data.set(b, i * w);
      });
      return arrow.makeData({ type: type as arrow.FixedSizeBinary, length: n, nullCount, nullBitmap, data });
    }
    case T.Date: {
      const dt = type as arrow.Date_;
      if (dt.unit === arrow.DateUnit.DAY) {
        const out = new Int32Array(n);
        values.forEach((v, i) => v != null && (out[i] = parseDate(v, at(i))));
        return arrow.makeData({ type: dt as arrow.DateDay, length: n, nullCount, nullBitmap, data: out });
      }
      const out = new BigInt64Array(n);
      values.forEach((v, i) => v != null && (out[i] = BigInt(parseDate(v, at(i))) * 86_400_000n));
      return arrow.makeData({ type: dt as arrow.DateMillisecond, length: n, nullCount, nullBitmap, data: out as unknown as Int32Array });
    }
    case T.Time: {
      const tt = type as arrow.Time;
      const perMs = { [arrow.TimeUnit.SECOND]: 0, [arrow.TimeUnit.MILLISECOND]: 1, [arrow.TimeUnit.MICROSECOND]: 1000, [arrow.TimeUnit.NANOSECOND]: 1_000_000 }[tt.unit]!;
      if (tt.bitWidth === 32) {
        const out = new Int32Array(n);
        values.forEach((v, i) => {
          if (v == null) return;
          const ms = toNumber(v, at(i));
          out[i] = perMs === 0 ? Math.floor(ms / 1000) : ms;
        });
        return arrow.makeData({ type: tt as arrow.TimeMillisecond, length: n, nullCount, nullBitmap, data: out });
      }
      const out = new BigInt64Array(n);
      values.forEach((v, i) => v != null && (out[i] = BigInt(toNumber(v, at(i))) * BigInt(perMs)));
      return arrow.makeData({ type: tt as arrow.TimeMicrosecond, length: n, nullCount, nullBitmap, data: out as unknown as Int32Array });
    }
    case T.Timestamp: {
      const ts = type as arrow.Timestamp;
      const per = UNIT_NANOS[ts.unit]!;
      const out = new BigInt64Array(n);
      values.forEach((v, i) => {
        if (v == null) return;
        const nanos = toBigInt(v, at(i));
        if (nanos % per !== 0n) throw new Error(`${at(i)}: ${v} ns is not a whole number of ${arrow.TimeUnit[ts.unit]}`);
        out[i] = nanos / per;
      });
      return arrow.makeData({ type: ts as arrow.TimestampNanosecond, length: n, nullCount, nullBitmap, data: out as unknown as Int32Array });
    }
    case T.List: {
      const child = (type as arrow.List).children[0]!;
      const lists = values.map((v, i) => {
        if (v == null) return [];
        if (!Array.isArray(v)) throw new Error(`${at(i)}: expected an array, got ${JSON.stringify(v)}`);
        return v as unknown[];
      });
      const valueOffsets = offsetsOf(lists.map((l) => l.length));
      const childData = valuesToData(child.type, lists.flat(), `${what}[]`);
      return arrow.makeData({ type: type as arrow.List, length: n, nullCount, nullBitmap, valueOffsets, child: childData });
    }
    case T.Map: {
      const entriesField = (type as arrow.Map_).children[0]!;
      const [kf, vf] = (entriesField.type as arrow.Struct).children;
      const maps = values.map((v, i) => {
        if (v == null) return [];
        if (!Array.isArray(v) || v.some((p) => !Array.isArray(p) || p.length !== 2)) throw new Error(`${at(i)}: expected [[key, value], ...], got ${JSON.stringify(v)}`);
        return v as Array<[unknown, unknown]>;
      });
      const valueOffsets = offsetsOf(maps.map((m) => m.length));
      const pairs = maps.flat();
      const keys = valuesToData(kf!.type, pairs.map((p) => p[0]), `${what}.key`);
      const vals = valuesToData(vf!.type, pairs.map((p) => p[1]), `${what}.value`);
      const entries = arrow.makeData({ type: entriesField.type as arrow.Struct, length: pairs.length, nullCount: 0, children: [keys, vals] });
      return arrow.makeData({ type: type as arrow.Map_, length: n, nullCount, nullBitmap, valueOffsets, child: entries });
    }
    case T.Struct: {
      const fields = (type as arrow.Struct).children;
      const objs = values.map((v, i) => {
        if (v == null) return {};
        if (typeof v !== "object" || Array.isArray(v)) throw new Error(`${at(i)}: expected an object, got ${JSON.stringify(v)}`);
        return v as Record<string, unknown>;
      });
      const children = fields.map((f) => valuesToData(f.type, objs.map((o) => o[f.name] ?? null), `${what}.${f.name}`));
      return arrow.makeData({ type: type as arrow.Struct, length: n, nullCount, nullBitmap, children });
    }
    default:
      throw new Error(`${what}: unsupported Arrow type ${String(type)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Arrow -> JSON
// ---------------------------------------------------------------------------------------------

function isValid(data: arrow.Data, i: number): boolean {
  if (!data.nullBitmap || data.nullBitmap.length === 0 || data.nullCount === 0) return true;
  const bit = data.offset + i;
  return (data.nullBitmap[bit >> 3] & (1 << (bit & 7))) !== 0;
}

function floatJson(x: number): number | string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return x;
}

function int64Values(data: arrow.Data): BigInt64Array {
  const v = data.values as unknown as BigInt64Array | Int32Array;
  if (v instanceof BigInt64Array) return v;
  return new BigInt64Array(v.buffer, v.byteOffset, v.length >> 1);
}

/** The oracle-encoded values of every row of `data`. */
export function dataToValues(data: arrow.Data): unknown[] {
  const n = data.length;
  const type = data.type;
  const out: unknown[] = new Array(n);
  const each = (f: (i: number) => unknown) => {
    for (let i = 0; i < n; i++) out[i] = isValid(data, i) ? f(i) : null;
    return out;
  };
  switch (type.typeId) {
    case T.Null:
      return out.fill(null);
    case T.Bool: {
      const bits = data.values as Uint8Array;
      return each((i) => {
        const b = data.offset + i;
        return (bits[b >> 3] & (1 << (b & 7))) !== 0;
      });
    }
    case T.Int: {
      const it = type as arrow.Int;
      if (it.bitWidth === 64) {
        const v = int64Values(data);
        return each((i) => (it.isSigned ? v[i] : BigInt.asUintN(64, v[i])).toString());
      }
      const v = data.values as unknown as ArrayLike<number>;
      return each((i) => v[i]);
    }
    case T.Float: {
      const v = data.values as unknown as ArrayLike<number>;
      if ((type as arrow.Float).precision === arrow.Precision.HALF) throw new Error("half floats are not supported");
      return each((i) => floatJson(v[i]));
    }
    case T.Decimal: {
      const dt = type as arrow.Decimal;
      const words = dt.bitWidth / 32;
      const w = data.values as unknown as Uint32Array;
      return each((i) => {
        let x = 0n;
        for (let k = words - 1; k >= 0; k--) x = (x << 32n) | BigInt(w[i * words + k]);
        return formatDecimal(BigInt.asIntN(dt.bitWidth, x), dt.scale);
      });
    }
    case T.Utf8:
    case T.LargeUtf8:
    case T.Binary:
    case T.LargeBinary: {
      const o = data.valueOffsets as unknown as ArrayLike<number | bigint>;
      const bytes = data.values as Uint8Array;
      const text = type.typeId === T.Utf8 || type.typeId === T.LargeUtf8;
      return each((i) => {
        const s = bytes.subarray(Number(o[i]), Number(o[i + 1]));
        return text ? decoder.decode(s) : Buffer.from(s).toString("base64");
      });
    }
    case T.FixedSizeBinary: {
      const w = (type as arrow.FixedSizeBinary).byteWidth;
      const bytes = data.values as Uint8Array;
      return each((i) => Buffer.from(bytes.subarray(i * w, (i + 1) * w)).toString("base64"));
    }
    case T.Date: {
      if ((type as arrow.Date_).unit === arrow.DateUnit.DAY) {
        const v = data.values as unknown as Int32Array;
        return each((i) => civilFromDays(v[i]));
      }
      const v = int64Values(data);
      return each((i) => civilFromDays(Number(floorDiv(v[i], 86_400_000n))));
    }
    case T.Time: {
      const tt = type as arrow.Time;
      if (tt.bitWidth === 32) {
        const v = data.values as unknown as Int32Array;
        return each((i) => (tt.unit === arrow.TimeUnit.SECOND ? v[i] * 1000 : v[i]));
      }
      const v = int64Values(data);
      const div = tt.unit === arrow.TimeUnit.MICROSECOND ? 1000n : 1_000_000n;
      return each((i) => Number(floorDiv(v[i], div)));
    }
    case T.Timestamp: {
      const per = UNIT_NANOS[(type as arrow.Timestamp).unit]!;
      const v = int64Values(data);
      return each((i) => (v[i] * per).toString());
    }
    case T.List:
    case T.Map: {
      const o = data.valueOffsets as Int32Array;
      const child = data.children[0]!;
      const childValues = type.typeId === T.Map ? pairsOf(child) : dataToValues(child);
      return each((i) => childValues.slice(o[i], o[i + 1]));
    }
    case T.FixedSizeList: {
      const size = (type as arrow.FixedSizeList).listSize;
      const childValues = dataToValues(data.children[0]!);
      return each((i) => childValues.slice((data.offset + i) * size, (data.offset + i + 1) * size));
    }
    case T.Struct: {
      const fields = (type as arrow.Struct).children;
      const cols = data.children.map((c) => dataToValues(c));
      return each((i) => Object.fromEntries(fields.map((f, k) => [f.name, cols[k][i]])));
    }
    case T.Dictionary: {
      const dict = dataToValues(data.dictionary!.data[0]!);
      const idx = data.values as unknown as ArrayLike<number | bigint>;
      return each((i) => dict[Number(idx[i])]);
    }
    default:
      throw new Error(`cannot encode Arrow type ${String(type)}`);
  }
}

/** Map entries (a struct of key, value) -> [key, value] pairs. */
function pairsOf(entries: arrow.Data): unknown[] {
  const keys = dataToValues(entries.children[0]!);
  const vals = dataToValues(entries.children[1]!);
  return keys.map((k, i) => [k, vals[i]]);
}

/** Rows of an Arrow Table / RecordBatch(es) in the oracle JSON encoding (keys in column order). */
export function arrowToRows(input: arrow.Table | arrow.RecordBatch | readonly arrow.RecordBatch[]): OracleRow[] {
  const batches = input instanceof arrow.Table ? input.batches : input instanceof arrow.RecordBatch ? [input] : input;
  const rows: OracleRow[] = [];
  for (const b of batches) {
    const names = b.schema.fields.map((f) => f.name);
    const cols = b.data.children.map((c) => dataToValues(c));
    for (let i = 0; i < b.numRows; i++) {
      const r: OracleRow = {};
      names.forEach((name, k) => (r[name] = cols[k][i]));
      rows.push(r);
    }
  }
  return rows;
}

/** A spec row with its row kind (`_kind`: +I, -U, +U, -D), as the Java oracle's write takes it. */
export type KindRow = OracleRow & { _kind: string };

/** One paimon-rt commit of `rows` (with their kinds) into `table`, with a full compaction when `compact`. */
export async function commitKindRows(table: Table, fields: readonly FieldLike[], rows: readonly KindRow[], compact: boolean): Promise<void> {
  const write = await table.newWrite({ commitUser: "rt" });
  try {
    if (rows.length > 0) await write.write(rowsToBatch(fields, rows.map(({ _kind, ...r }) => r)), { rowKinds: rows.map((r) => ["+I", "-U", "+U", "-D"].indexOf(r._kind)) });
    if (compact) await write.compact({ full: true });
    await table.newCommit({ commitUser: "rt" }).commit(await write.prepareCommit());
  } finally {
    await write.close();
  }
}
