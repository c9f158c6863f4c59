// Footer statistics of a Parquet file (min, max, null count per leaf column, per row group and
// merged over the file) for pruning, read without decoding any data page. The footer's typed
// thrift tree keeps the raw min/max bytes, so values are exact (decimals and timestamps are
// converted here, not by a general-purpose metadata decoder).
//
// Value representation (same as the writer's stats): INT32 -> number, INT64 -> bigint,
// FLOAT/DOUBLE -> number, BOOLEAN -> boolean, BYTE_ARRAY (STRING) -> string, other BYTE_ARRAY /
// FIXED_LEN_BYTE_ARRAY -> Uint8Array, DECIMAL -> bigint unscaled, INT64 TIMESTAMP ->
// { millis: bigint, nanoOfMillisecond }. Missing or unusable bounds (NaN, INT96, deprecated
// byte-array min/max with undefined order) are null.

import type { DataField } from "../spec/types.js";
import { utf8Decoder } from "../spec/utf8.js";
import type { ColumnStats } from "./column-stats.js";
import { readFooter, type ParquetFooter } from "./footer.js";
import { toByteSource, type ParquetSource } from "./source.js";
import { type TStruct, getBytes, getList, getNumber, getStruct, getValue } from "./thrift.js";

export type { ParquetFooter } from "./footer.js";

export interface ParquetLeafStatistics extends ColumnStats {
  /** Dotted path of the leaf column, e.g. "a" or "s.x" or "l.list.element". */
  path: string;
  /** Index of the top-level column this leaf belongs to. */
  topLevel: number;
  /** Field id of the leaf schema element (undefined when absent). */
  fieldId: number | undefined;
}

export interface ParquetRowGroupStatistics {
  numRows: number;
  /** One entry per leaf column, in file order. */
  columns: ParquetLeafStatistics[];
}

export interface ParquetStatistics {
  numRows: number;
  rowGroups: ParquetRowGroupStatistics[];
  /** Merged over all row groups. */
  columns: ParquetLeafStatistics[];
}

/** Reads and validates the footer of a Parquet file (bytes or a random-access source). */
export async function readParquetFooter(source: ParquetSource, fileName?: string): Promise<ParquetFooter> {
  return readFooter(toByteSource(source, fileName));
}

/** Reads the footer and returns its statistics. */
export async function readParquetStatistics(source: ParquetSource, fileName?: string): Promise<ParquetStatistics> {
  return footerStatistics(await readParquetFooter(source, fileName));
}

interface LeafInfo {
  path: string;
  topLevel: number;
  fieldId: number | undefined;
  element: TStruct;
}

function leafInfos(footer: ParquetFooter): LeafInfo[] {
  const schema = getList(footer.raw, 2) as TStruct[];
  const out: LeafInfo[] = [];
  const walk = (i: number, prefix: string[], top: number): number => {
    const el = schema[i]!;
    const name = utf8Decoder.decode(getBytes(el, 4) ?? new Uint8Array(0));
    const children = getNumber(el, 5) ?? 0;
    if (children === 0) {
      out.push({ path: [...prefix, name].join("."), topLevel: top, fieldId: getNumber(el, 9), element: el });
      return i + 1;
    }
    let j = i + 1;
    for (let k = 0; k < children; k++) j = walk(j, [...prefix, name], top);
    return j;
  };
  for (const col of footer.columns) walk(col.schemaStart, [], col.index);
  return out;
}

// Parquet physical types.
const BOOLEAN = 0;
const INT32 = 1;
const INT64 = 2;
const INT96 = 3;
const FLOAT = 4;
const DOUBLE = 5;
const BYTE_ARRAY = 6;
const FIXED_LEN_BYTE_ARRAY = 7;
// Converted types.
const CT_UTF8 = 0;
const CT_DECIMAL = 5;
const CT_TIMESTAMP_MILLIS = 9;
const CT_TIMESTAMP_MICROS = 10;
const CT_ENUM = 4;
const CT_JSON = 19;

export interface Decoder {
  (bytes: Uint8Array): unknown;
  /** Deprecated min/max (fields 1, 2) use signed order and are unusable for byte arrays. */
  allowDeprecated: boolean;
}

/** Decoder of one leaf's min/max statistics bytes (schema element `el`) into stats values. */
export function decoderFor(el: TStruct): Decoder {
  const physical = getNumber(el, 1);
  const converted = getNumber(el, 6);
  const logical = getStruct(el, 10);
  const isDecimal = converted === CT_DECIMAL || (logical !== undefined && getValue(logical, 5) !== undefined);
  const isString =
    converted === CT_UTF8 || converted === CT_ENUM || converted === CT_JSON || (logical !== undefined && (getValue(logical, 1) !== undefined || getValue(logical, 4) !== undefined || getValue(logical, 12) !== undefined));
  let tsUnitNanos: bigint | undefined;
  const ts = logical ? getStruct(logical, 8) : undefined;
  if (ts) {
    const unit = getStruct(ts, 2);
    tsUnitNanos = unit && getValue(unit, 3) !== undefined ? 1n : unit && getValue(unit, 2) !== undefined ? 1000n : 1000000n;
  } else if (converted === CT_TIMESTAMP_MILLIS) tsUnitNanos = 1000000n;
  else if (converted === CT_TIMESTAMP_MICROS) tsUnitNanos = 1000n;

  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  let fn: (b: Uint8Array) => unknown;
  let allowDeprecated = true;
  switch (physical) {
    case BOOLEAN:
      fn = (b) => (b.length >= 1 ? b[0] !== 0 : null);
      break;
    case INT32:
      fn = (b) => (b.length === 4 ? (isDecimal ? BigInt(view(b).getInt32(0, true)) : view(b).getInt32(0, true)) : null);
      break;
    case INT64:
      fn = (b) => {
        if (b.length !== 8) return null;
        const v = view(b).getBigInt64(0, true);
        return tsUnitNanos !== undefined ? timestampOf(v * tsUnitNanos) : v;
      };
      break;
    case FLOAT:
    case DOUBLE:
      fn = (b) => {
        const v = b.length === 4 ? view(b).getFloat32(0, true) : b.length === 8 ? view(b).getFloat64(0, true) : NaN;
        return Number.isNaN(v) ? null : v;
      };
      break;
    case BYTE_ARRAY:
    case FIXED_LEN_BYTE_ARRAY:
      allowDeprecated = false;
      if (isDecimal) fn = (b) => (b.length === 0 ? null : bigEndianSigned(b));
      else if (isString) fn = (b) => utf8Decoder.decode(b);
      else fn = (b) => b.slice();
      break;
    case INT96:
    default:
      fn = () => null;
  }
  const d = fn as Decoder;
  d.allowDeprecated = allowDeprecated;
  return d;
}

function bigEndianSigned(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return BigInt.asIntN(b.length * 8, v);
}

function timestampOf(nanos: bigint): { millis: bigint; nanoOfMillisecond: number } {
  let millis = nanos / 1000000n;
  let rem = nanos % 1000000n;
  if (rem < 0n) {
    millis -= 1n;
    rem += 1000000n;
  }
  return { millis, nanoOfMillisecond: Number(rem) };
}

function chunkStats(cc: TStruct, decode: Decoder): ColumnStats {
  const md = getStruct(cc, 3);
  const st = md ? getStruct(md, 12) : undefined;
  if (!st) return { min: null, max: null, nullCount: null };
  const nc = getNumber(st, 3);
  let minB = getBytes(st, 6);
  let maxB = getBytes(st, 5);
  if ((!minB || !maxB) && decode.allowDeprecated) {
    minB = getBytes(st, 2);
    maxB = getBytes(st, 1);
  }
  let min = minB ? decode(minB) : null;
  let max = maxB ? decode(maxB) : null;
  if (min === null || max === null) min = max = null;
  // Parquet zero rule for floats: keep bounds valid for both signed zeros.
  if (typeof min === "number" && min === 0) min = -0;
  if (typeof max === "number" && max === 0) max = 0;
  return { min, max, nullCount: nc ?? null };
}

const enc = new TextEncoder();

/** Total order used to merge bounds (numbers, bigints, strings by UTF-8 bytes, bytes, timestamps, booleans). */
export function compareStatValues(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : Object.is(a, -0) && Object.is(b, 0) ? -1 : Object.is(a, 0) && Object.is(b, -0) ? 1 : 0;
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (typeof a === "string" && typeof b === "string") return compareBytes(enc.encode(a), enc.encode(b));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a && b && typeof a === "object" && typeof b === "object" && "millis" in a && "millis" in b) {
    const x = a as { millis: bigint; nanoOfMillisecond: number };
    const y = b as { millis: bigint; nanoOfMillisecond: number };
    if (x.millis !== y.millis) return x.millis < y.millis ? -1 : 1;
    return x.nanoOfMillisecond - y.nanoOfMillisecond;
  }
  throw new Error(`incomparable statistics values ${String(a)} and ${String(b)}`);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Statistics of every leaf column per row group and merged over the file. */
export function footerStatistics(footer: ParquetFooter): ParquetStatistics {
  const leaves = leafInfos(footer);
  const decoders = leaves.map((l) => decoderFor(l.element));
  const rgs = (getList(footer.raw, 4) ?? []) as TStruct[];
  const rowGroups: ParquetRowGroupStatistics[] = rgs.map((rg, r) => {
    const chunks = getList(rg, 1) as TStruct[];
    return {
      numRows: footer.rowGroups[r]!.numRows,
      columns: leaves.map((l, i) => ({ path: l.path, topLevel: l.topLevel, fieldId: l.fieldId, ...chunkStats(chunks[i]!, decoders[i]!) })),
    };
  });
  const columns: ParquetLeafStatistics[] = leaves.map((l, i) => {
    let min: unknown = null;
    let max: unknown = null;
    let nullCount: number | null = 0;
    let bounded = true;
    for (const rg of rowGroups) {
      const s = rg.columns[i]!;
      if (s.nullCount === null) nullCount = null;
      else if (nullCount !== null) nullCount += s.nullCount;
      if (s.min === null || s.max === null) {
        // No bounds: fine only when the chunk is known to hold nulls only.
        if (!(s.nullCount !== null && s.nullCount >= rg.numRows && l.path.indexOf(".") < 0)) bounded = false;
        continue;
      }
      if (min === null || compareStatValues(s.min, min) < 0) min = s.min;
      if (max === null || compareStatValues(s.max, max) > 0) max = s.max;
    }
    if (!bounded) min = max = null;
    return { path: l.path, topLevel: l.topLevel, fieldId: l.fieldId, min, max, nullCount };
  });
  return { numRows: footer.numRows, rowGroups, columns };
}

/**
 * File-level statistics aligned with `fields` (matched by field id when the file has ids, else
 * by name). Only primitive top-level columns have bounds; others (and missing columns) get
 * `{ min: null, max: null, nullCount: null }`.
 */
export function statisticsForFields(footer: ParquetFooter, stats: ParquetStatistics, fields: readonly DataField[]): ColumnStats[] {
  const byId = footer.columns.some((c) => c.fieldId !== undefined);
  return fields.map((f) => {
    const col = footer.columns.find((c) => (byId ? c.fieldId === f.id : c.name === f.name));
    if (!col || col.leafEnd - col.leafStart !== 1 || col.schemaEnd - col.schemaStart !== 1) return { min: null, max: null, nullCount: null };
    const s = stats.columns[col.leafStart]!;
    return { min: s.min, max: s.max, nullCount: s.nullCount };
  });
}
