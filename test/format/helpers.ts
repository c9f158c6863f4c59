// Test helpers: exact Arrow columns from JS values (makeData over typed arrays) and JS values
// back from Arrow columns, for the Paimon types of spec/types.ts.
import * as arrow from "apache-arrow";
import { type DataField, type DataType, DataTypes as T, notNull, toArrowType } from "../../src/spec/types.js";
import { getList, getNumber, getStruct, parseStruct, type TStruct } from "../../src/format/thrift.js";

const enc = new TextEncoder();

function validity(values: readonly unknown[]): { bitmap: Uint8Array; nullCount: number } {
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null || v === undefined) nullCount++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { bitmap, nullCount };
}

/** Arrow data of `type` (spec/types.ts mapping) holding `values` exactly. */
export function column(type: DataType, values: readonly unknown[]): arrow.Data {
  const t = toArrowType(type);
  const { bitmap, nullCount } = validity(values);
  const n = values.length;
  const nb = nullCount > 0 ? bitmap : undefined;
  switch (type.kind) {
    case "BOOLEAN": {
      const bits = new Uint8Array((n + 7) >> 3);
      values.forEach((v, i) => v && (bits[i >> 3]! |= 1 << (i & 7)));
      return arrow.makeData({ type: t as arrow.Bool, length: n, nullCount, nullBitmap: nb, data: bits });
    }
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME": {
      const A = type.kind === "TINYINT" ? Int8Array : type.kind === "SMALLINT" ? Int16Array : Int32Array;
      return arrow.makeData({ type: t as arrow.Int32, length: n, nullCount, nullBitmap: nb, data: A.from(values.map((v) => (v as number) ?? 0)) as Int32Array });
    }
    case "BIGINT":
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return arrow.makeData({ type: t as arrow.Int64, length: n, nullCount, nullBitmap: nb, data: BigInt64Array.from(values, (v) => (v as bigint) ?? 0n) });
    case "FLOAT":
      return arrow.makeData({ type: t as arrow.Float32, length: n, nullCount, nullBitmap: nb, data: Float32Array.from(values, (v) => (v as number) ?? 0) });
    case "DOUBLE":
      return arrow.makeData({ type: t as arrow.Float64, length: n, nullCount, nullBitmap: nb, data: Float64Array.from(values, (v) => (v as number) ?? 0) });
    case "DECIMAL": {
      const words = new Uint32Array(n * 4);
      values.forEach((v, i) => {
        let x = BigInt.asUintN(128, (v as bigint) ?? 0n);
        for (let k = 0; k < 4; k++) {
          words[i * 4 + k] = Number(x & 0xffffffffn);
          x >>= 32n;
        }
      });
      return arrow.makeData({ type: t as arrow.Decimal, length: n, nullCount, nullBitmap: nb, data: words });
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      const parts = values.map((v) => (v === null || v === undefined ? new Uint8Array(0) : typeof v === "string" ? enc.encode(v) : (v as Uint8Array)));
      const offsets = new Int32Array(n + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      const data = new Uint8Array(offsets[n]!);
      parts.forEach((p, i) => data.set(p, offsets[i]!));
      return arrow.makeData({ type: t as arrow.Utf8, length: n, nullCount, nullBitmap: nb, valueOffsets: offsets, data });
    }
    case "ARRAY": {
      const offsets = new Int32Array(n + 1);
      const flat: unknown[] = [];
      values.forEach((v, i) => {
        if (Array.isArray(v)) flat.push(...v);
        offsets[i + 1] = flat.length;
      });
      return arrow.makeData({ type: t as arrow.List, length: n, nullCount, nullBitmap: nb, valueOffsets: offsets, child: column(type.element, flat) });
    }
    case "MAP": {
      const offsets = new Int32Array(n + 1);
      const keys: unknown[] = [];
      const vals: unknown[] = [];
      values.forEach((v, i) => {
        if (v instanceof Map) for (const [k, x] of v) (keys.push(k), vals.push(x));
        offsets[i + 1] = keys.length;
      });
      const entriesType = (t as arrow.Map_).children[0]!.type as arrow.Struct;
      const entries = arrow.makeData({ type: entriesType, length: keys.length, nullCount: 0, children: [column(type.key, keys), column(type.value, vals)] });
      return arrow.makeData({ type: t as arrow.Map_, length: n, nullCount, nullBitmap: nb, valueOffsets: offsets, child: entries });
    }
    case "ROW": {
      const children = type.fields.map((f) => column(f.type, values.map((v) => (v == null ? null : (v as Record<string, unknown>)[f.name]))));
      return arrow.makeData({ type: t as arrow.Struct, length: n, nullCount, nullBitmap: nb, children });
    }
    default:
      throw new Error(`unsupported ${type.kind}`);
  }
}

/** A record batch with one column per field (values by field name). */
export function batch(fields: readonly DataField[], rows: Record<string, readonly unknown[]>): arrow.RecordBatch {
  const schema = new arrow.Schema(fields.map((f) => new arrow.Field(f.name, toArrowType(f.type), f.type.nullable)));
  const children = fields.map((f) => column(f.type, rows[f.name]!));
  const length = children[0]?.length ?? 0;
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children }));
}

function isValid(d: arrow.Data, i: number): boolean {
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0) return true;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3]! & (1 << (j & 7))) !== 0;
}

const dec = new TextDecoder("utf-8", { ignoreBOM: true });

/** JS values of `d` in the representation `column` takes. */
export function values(d: arrow.Data, type: DataType): unknown[] {
  const out: unknown[] = [];
  const cache = new Map<number, unknown[]>();
  const child = (k: number, t: DataType, data: arrow.Data): unknown[] => {
    let v = cache.get(k);
    if (!v) cache.set(k, (v = values(data, t)));
    return v;
  };
  for (let i = 0; i < d.length; i++) out.push(isValid(d, i) ? valueAt(d, i, type, child) : null);
  return out;
}

type ChildValues = (k: number, t: DataType, data: arrow.Data) => unknown[];

function valueAt(d: arrow.Data, i: number, type: DataType, child: ChildValues): unknown {
  switch (type.kind) {
    case "BOOLEAN": {
      const j = d.offset + i;
      return ((d.values as Uint8Array)[j >> 3]! & (1 << (j & 7))) !== 0;
    }
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
    case "FLOAT":
    case "DOUBLE":
      return (d.values as unknown as ArrayLike<number>)[i];
    case "BIGINT":
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return (d.values as unknown as BigInt64Array)[i];
    case "DECIMAL": {
      const w = d.values as unknown as Uint32Array;
      let x = 0n;
      for (let k = 3; k >= 0; k--) x = (x << 32n) | BigInt(w[i * 4 + k]!);
      return BigInt.asIntN(128, x);
    }
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      const o = d.valueOffsets as Int32Array;
      const b = (d.values as Uint8Array).subarray(o[i]!, o[i + 1]!);
      return type.kind === "CHAR" || type.kind === "VARCHAR" ? dec.decode(b) : b.slice();
    }
    case "ARRAY": {
      const o = d.valueOffsets as Int32Array;
      return child(0, type.element, d.children[0]!).slice(o[i]!, o[i + 1]!);
    }
    case "MAP": {
      const o = d.valueOffsets as Int32Array;
      const e = d.children[0]!;
      const ks = child(0, type.key, e.children[0]!).slice(o[i]!, o[i + 1]!);
      const vs = child(1, type.value, e.children[1]!).slice(o[i]!, o[i + 1]!);
      return new Map(ks.map((k, j) => [k, vs[j]]));
    }
    case "ROW": {
      const r: Record<string, unknown> = {};
      type.fields.forEach((f, k) => (r[f.name] = child(k, f.type, d.children[k]!)[i]));
      return r;
    }
    default:
      throw new Error(`unsupported ${type.kind}`);
  }
}

/** All values of column `name` of a table (over all batches). */
export function tableColumn(table: arrow.Table, name: string, type: DataType): unknown[] {
  const v = table.getChild(name);
  if (!v) throw new Error(`no column ${name}`);
  return v.data.flatMap((d) => values(d, type));
}

export interface Page {
  /** Header start, body start and body end in the file. */
  at: number;
  bodyStart: number;
  bodyEnd: number;
  header: TStruct;
}

export function footerOf(bytes: Uint8Array): TStruct {
  const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
  return parseStruct(bytes, bytes.length - 8 - len, bytes.length - 8).value;
}

/** Every page of every column chunk, walked independently of the code under test. */
export function pagesOf(bytes: Uint8Array): Page[] {
  const pages: Page[] = [];
  for (const rg of getList(footerOf(bytes), 4) as TStruct[]) {
    for (const cc of getList(rg, 1) as TStruct[]) {
      const md = getStruct(cc, 3)!;
      const dict = getNumber(md, 11);
      const start = dict !== undefined && dict > 0 ? Math.min(dict, getNumber(md, 9)!) : getNumber(md, 9)!;
      const end = start + getNumber(md, 7)!;
      for (let at = start; at < end; ) {
        const { value: header, end: bodyStart } = parseStruct(bytes, at, end);
        const bodyEnd = bodyStart + getNumber(header, 3)!;
        pages.push({ at, bodyStart, bodyEnd, header });
        at = bodyEnd;
      }
      if (pages[pages.length - 1]!.bodyEnd !== end) throw new Error(`pages do not end at the chunk end ${end}`);
    }
  }
  return pages;
}

/** One field of every flat type the focused Parquet decoder and encoder handle, nullable and NOT NULL. */
export const FLAT_FIELDS: readonly DataField[] = [
  T.FIELD(0, "b", T.BOOLEAN()),
  T.FIELD(1, "i", T.INT()),
  T.FIELD(2, "l", T.BIGINT()),
  T.FIELD(3, "f", T.FLOAT()),
  T.FIELD(4, "d", T.DOUBLE()),
  T.FIELD(5, "s", T.STRING()),
  T.FIELD(6, "y", T.BYTES()),
  T.FIELD(7, "dt", T.DATE()),
  T.FIELD(8, "ts3", T.TIMESTAMP(3)),
  T.FIELD(9, "ts6", T.TIMESTAMP(6)),
  T.FIELD(10, "ltz", T.TIMESTAMP_LTZ(6)),
  T.FIELD(11, "nn", notNull(T.BIGINT())),
  T.FIELD(12, "ns", notNull(T.STRING())),
];

/** Fields and values of a larger table for the page worker tests: ids, strings with nulls, doubles with nulls. */
export function workerTable(n: number): { fields: DataField[]; cols: { id: bigint[]; name: Array<string | null>; v: Array<number | null> } } {
  const fields = [T.FIELD(1, "id", notNull(T.BIGINT())), T.FIELD(2, "name", T.STRING()), T.FIELD(3, "v", T.DOUBLE())];
  const cols = {
    id: Array.from({ length: n }, (_, i) => BigInt(i) * 7919n),
    name: Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : `name-${(Math.imul(i, 2654435761) >>> 0).toString(16)}`)),
    v: Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : i * 0.25)),
  };
  return { fields, cols };
}

