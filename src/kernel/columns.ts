// Key columns: the plain-data form in which kernels take their inputs (typed arrays,
// Arrow layout), conversions from Apache Arrow, and their copy into wasm memory.
import { type Data, DataType, Type, TimeUnit, DateUnit, type Vector } from "apache-arrow";
import { PaimonError, requireArgument } from "../error.js";
import type { KernelFrame } from "./wasm.js";

/** Physical kinds of key column the kernels understand. */
export type KeyColumnType =
  | "bool" // one byte per value, 0 or 1
  | "int8"
  | "int16"
  | "int32" // INT, DATE (days), TIME (millis)
  | "int64" // BIGINT, TIMESTAMP(p <= 3) millis, compact DECIMAL unscaled
  | "float32"
  | "float64"
  | "bytes" // CHAR/VARCHAR/STRING (UTF-8), BINARY/VARBINARY/BYTES
  | "timestamp_micros" // TIMESTAMP(4..6)
  | "timestamp_nanos" // TIMESTAMP(7..9)
  | "decimal128"; // DECIMAL(p > 18): unscaled, 4 little-endian uint32 words per value

type FixedValues = Uint8Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Float32Array | Float64Array | Uint32Array;

/**
 * One key column over `length` rows, row 0 first. Fixed-width kinds use `values`;
 * `bytes` uses `offsets` (length + 1 entries, indexes into `data`; `offsets[0]` may be non-zero).
 * `validity` is an Arrow validity bitmap (bit set = valid) starting at bit
 * `validityOffset`, or null/absent when there are no nulls.
 */
export interface KeyColumn {
  readonly type: KeyColumnType;
  readonly length: number;
  readonly values?: FixedValues;
  readonly offsets?: Int32Array;
  readonly data?: Uint8Array;
  readonly validity?: Uint8Array | null;
  readonly validityOffset?: number;
}

/** A key value as plain JavaScript (the reference implementations work on these). */
export type KeyValue = boolean | number | bigint | Uint8Array | null;

export const TYPE_CODES: Record<KeyColumnType, number> = {
  bool: 1,
  int8: 2,
  int16: 3,
  int32: 4,
  int64: 5,
  float32: 6,
  float64: 7,
  bytes: 8,
  timestamp_micros: 9,
  timestamp_nanos: 10,
  decimal128: 11,
};

/** Bytes per value of each fixed-width kind. */
export const VALUE_WIDTH: Record<Exclude<KeyColumnType, "bytes">, number> = {
  bool: 1,
  int8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
  float32: 4,
  float64: 8,
  timestamp_micros: 8,
  timestamp_nanos: 8,
  decimal128: 16,
};

export function isNull(col: KeyColumn, row: number): boolean {
  if (!col.validity) return false;
  const bit = (col.validityOffset ?? 0) + row;
  return (col.validity[bit >> 3] & (1 << (bit & 7))) === 0;
}

/** Reads one value as plain JavaScript: bigint for 64/128-bit kinds, bytes as a subarray. */
export function keyValue(col: KeyColumn, row: number): KeyValue {
  if (isNull(col, row)) return null;
  switch (col.type) {
    case "bool":
      return (col.values as Uint8Array)[row] !== 0;
    case "bytes": {
      const offsets = col.offsets!;
      return col.data!.subarray(offsets[row], offsets[row + 1]);
    }
    case "decimal128": {
      const w = col.values as Uint32Array;
      const i = row * 4;
      const unsigned =
        (BigInt(w[i + 3]) << 96n) | (BigInt(w[i + 2]) << 64n) | (BigInt(w[i + 1]) << 32n) | BigInt(w[i]);
      return BigInt.asIntN(128, unsigned);
    }
    default:
      return (col.values as Exclude<FixedValues, Uint32Array>)[row];
  }
}

function validate(col: KeyColumn): void {
  requireArgument(col.length >= 0 && Number.isInteger(col.length), `key column length ${col.length} is invalid`);
  if (col.type === "bytes") {
    requireArgument(col.offsets && col.data, "bytes key column needs offsets and data");
    const offsets = col.offsets;
    requireArgument(offsets.length >= col.length + 1, "bytes key column has too few offsets");
    requireArgument(offsets[0] >= 0 && offsets[col.length] <= col.data.length, "bytes key column offsets point outside its data");
    for (let i = 0; i < col.length; i++) {
      if (offsets[i] > offsets[i + 1]) throw new PaimonError("INVALID_ARGUMENT", `bytes key column offsets decrease at row ${i}`);
    }
  } else {
    requireArgument(col.values, `${col.type} key column needs values`);
    requireArgument(TYPE_CODES[col.type] !== undefined, `unknown key column type ${String(col.type)}`);
    requireArgument(
      col.values.byteLength >= col.length * VALUE_WIDTH[col.type],
      `${col.type} key column has fewer values than its ${col.length} rows`,
    );
  }
  if (col.validity) {
    requireArgument(
      col.validity.length * 8 >= (col.validityOffset ?? 0) + col.length,
      "key column validity bitmap is shorter than the column",
    );
  }
}

/** Checks that `columns` is a non-empty list of valid columns of `rows` rows each. */
export function validateKeyColumns(columns: readonly KeyColumn[], rows: number): void {
  requireArgument(columns.length > 0, "at least one key column is required");
  for (const col of columns) {
    validate(col);
    requireArgument(col.length === rows, `key columns differ in length (${col.length} vs ${rows})`);
  }
}

const encoder = new TextEncoder();

/**
 * Builds a key column from plain values (tests, small inputs). `bytes` takes
 * strings (UTF-8 encoded) or Uint8Arrays; 64/128-bit kinds take bigints.
 */
export function keyColumnFromValues(type: KeyColumnType, input: ReadonlyArray<unknown>): KeyColumn {
  const length = input.length;
  const hasNull = input.some((v) => v === null || v === undefined);
  const validity = hasNull ? new Uint8Array((length + 7) >> 3) : null;
  if (validity) input.forEach((v, i) => v !== null && v !== undefined && (validity[i >> 3] |= 1 << (i & 7)));
  if (type === "bytes") {
    const parts = input.map((v) => (typeof v === "string" ? encoder.encode(v) : ((v as Uint8Array | null) ?? new Uint8Array(0))));
    const offsets = new Int32Array(length + 1);
    parts.forEach((p, i) => (offsets[i + 1] = offsets[i] + p.length));
    const data = new Uint8Array(offsets[length]);
    parts.forEach((p, i) => data.set(p, offsets[i]));
    return { type, length, offsets, data, validity };
  }
  let values: FixedValues;
  switch (type) {
    case "bool":
      values = Uint8Array.from(input, (v) => (v ? 1 : 0));
      break;
    case "int8":
      values = Int8Array.from(input, (v) => Number(v ?? 0));
      break;
    case "int16":
      values = Int16Array.from(input, (v) => Number(v ?? 0));
      break;
    case "int32":
      values = Int32Array.from(input, (v) => Number(v ?? 0));
      break;
    case "float32":
      values = Float32Array.from(input, (v) => Number(v ?? 0));
      break;
    case "float64":
      values = Float64Array.from(input, (v) => Number(v ?? 0));
      break;
    case "decimal128": {
      const words = new Uint32Array(length * 4);
      input.forEach((v, i) => {
        const u = BigInt.asUintN(128, BigInt((v as bigint | number | null) ?? 0));
        for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
      });
      values = words;
      break;
    }
    default:
      values = BigInt64Array.from(input, (v) => BigInt((v as bigint | number | null) ?? 0));
  }
  return { type, length, values, validity };
}

/**
 * Views one Arrow column (a `Data` or single-chunk `Vector`) as a key column,
 * without copying where the layouts agree. Decimals with precision <= 18 become
 * `int64` (Paimon's compact decimal); booleans are unpacked to one byte per value.
 */
export function keyColumnFromArrow(column: Data | Vector): KeyColumn {
  const data: Data = "data" in column && Array.isArray((column as Vector).data) ? single(column as Vector) : (column as Data);
  // Arrow JS slices value and offset buffers with the Data (row 0 is index 0); only
  // the validity bitmap and boolean values keep the bit offset `data.offset`.
  const { type, offset, length } = data;
  const validity = data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? data.nullBitmap : null;
  // (columns built as literals: an object spread of shared fields costs ~600 bytes in V8, and
  // every deduplicate write and key lookup views a key column)
  const values = data.values as FixedValues;
  const typeId = type.typeId;
  switch (typeId) {
    case Type.Bool: {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) {
        const bit = offset + i;
        out[i] = (values[bit >> 3] as number) & (1 << (bit & 7)) ? 1 : 0;
      }
      return fixedColumn("bool", length, validity, offset, out);
    }
    case Type.Int: {
      const t = type as DataType<Type.Int> & { bitWidth: number; isSigned: boolean };
      requireArgument(t.isSigned, `unsigned Arrow integer key columns are not Paimon types`);
      const kind = ({ 8: "int8", 16: "int16", 32: "int32", 64: "int64" } as const)[t.bitWidth as 8 | 16 | 32 | 64];
      return fixedColumn(kind, length, validity, offset, values.subarray(0, length));
    }
    case Type.Float: {
      const precision = (type as unknown as { precision: number }).precision;
      requireArgument(precision !== 0, "half-precision float key columns are not supported");
      return fixedColumn(precision === 1 ? "float32" : "float64", length, validity, offset, values.subarray(0, length));
    }
    case Type.Utf8:
    case Type.Binary:
      return { type: "bytes", length, validity, validityOffset: offset, offsets: (data.valueOffsets as Int32Array).subarray(0, length + 1), data: values as Uint8Array };
    case Type.Date: {
      const unit = (type as unknown as { unit: DateUnit }).unit;
      if (unit === DateUnit.DAY) return fixedColumn("int32", length, validity, offset, values.subarray(0, length));
      return fixedColumn("int64", length, validity, offset, int64View(values, length));
    }
    case Type.Time: {
      const t = type as unknown as { unit: TimeUnit; bitWidth: number };
      requireArgument(t.unit === TimeUnit.MILLISECOND && t.bitWidth === 32, "TIME key columns must be time32[ms]");
      return fixedColumn("int32", length, validity, offset, values.subarray(0, length));
    }
    case Type.Timestamp: {
      const unit = (type as unknown as { unit: TimeUnit }).unit;
      requireArgument(unit !== TimeUnit.SECOND, "timestamp[s] key columns are not supported; use milliseconds or finer");
      const kind = unit === TimeUnit.MILLISECOND ? "int64" : unit === TimeUnit.MICROSECOND ? "timestamp_micros" : "timestamp_nanos";
      return fixedColumn(kind, length, validity, offset, int64View(values, length));
    }
    case Type.Decimal: {
      const t = type as unknown as { precision: number; bitWidth: number };
      requireArgument(t.bitWidth === 128, "only 128-bit Arrow decimals are supported");
      const words = (values as unknown as Uint32Array).subarray(0, length * 4);
      if (t.precision > 18) return fixedColumn("decimal128", length, validity, offset, words);
      // Compact decimals fit in the low 64 bits (|unscaled| < 10^18).
      const compact = new BigInt64Array(length);
      const wide = new BigInt64Array(words.buffer, words.byteOffset, length * 2);
      for (let i = 0; i < length; i++) compact[i] = wide[i * 2];
      return fixedColumn("int64", length, validity, offset, compact);
    }
    default:
      throw new PaimonError("UNSUPPORTED", `Arrow type ${String(type)} cannot be a key column`);
  }
}

/** A key column of fixed-width values (see keyColumnFromArrow). */
function fixedColumn(type: KeyColumnType, length: number, validity: Uint8Array | null, validityOffset: number, values: FixedValues): KeyColumn {
  return { type, length, validity, validityOffset, values };
}

function single(vector: Vector): Data {
  requireArgument(vector.data.length === 1, `key column vectors must have one chunk, got ${vector.data.length}`);
  return vector.data[0];
}

function int64View(values: FixedValues, length: number): BigInt64Array {
  const v = values as unknown as BigInt64Array | Int32Array;
  if (v instanceof BigInt64Array) return v.subarray(0, length);
  // Older Arrow builds expose 64-bit values as pairs of int32.
  return new BigInt64Array(v.buffer, v.byteOffset, length);
}

/** Words per column descriptor (matches `DESCRIPTOR_WORDS` in wasm/src/columns.rs). */
const DESCRIPTOR_WORDS = 8;

/**
 * Plans the copy of key columns (one or more parts per column, concatenated) into a
 * kernel frame; `write()` fills it after `frame.open()` and returns the descriptors' offset.
 */
export class ColumnsLayout {
  private readonly descriptors: number;
  private readonly slots: Array<{ values: number; offsets: number; data: number; validity: number; rows: number; bytes: number; nulls: boolean }>;

  /** `parts[p][c]` is column c of part p; all parts share types and column count. */
  constructor(
    private readonly frame: KernelFrame,
    private readonly parts: ReadonlyArray<readonly KeyColumn[]>,
  ) {
    const columnCount = parts[0].length;
    for (const part of parts) {
      requireArgument(part.length === columnCount, "every run needs the same key columns");
      part.forEach((col, c) =>
        requireArgument(col.type === parts[0][c].type, `key column ${c} changes type between runs (${parts[0][c].type} vs ${col.type})`),
      );
    }
    this.descriptors = frame.reserve(columnCount * DESCRIPTOR_WORDS * 4);
    this.slots = parts[0].map((first, c) => {
      const rows = parts.reduce((n, part) => n + part[c].length, 0);
      const nulls = parts.some((part) => part[c].validity != null);
      if (first.type === "bytes") {
        const bytes = parts.reduce((n, part) => n + byteLength(part[c]), 0);
        return {
          rows,
          bytes,
          nulls,
          values: 0,
          offsets: frame.reserve((rows + 1) * 4),
          data: frame.reserve(bytes),
          validity: nulls ? frame.reserve((rows + 7) >> 3) : 0,
        };
      }
      return {
        rows,
        bytes: 0,
        nulls,
        values: frame.reserve(rows * VALUE_WIDTH[first.type]),
        offsets: 0,
        data: 0,
        validity: nulls ? frame.reserve((rows + 7) >> 3) : 0,
      };
    });
  }

  get columnCount(): number {
    return this.slots.length;
  }

  /** Copies every part into the (opened) frame and writes the descriptors. */
  write(): number {
    const f = this.frame;
    const desc = new Uint32Array(this.slots.length * DESCRIPTOR_WORDS);
    this.slots.forEach((slot, c) => {
      const type = this.parts[0][c].type;
      let row = 0;
      if (type === "bytes") {
        const offsets = f.i32(slot.offsets, slot.rows + 1);
        let dataAt = 0;
        for (const part of this.parts) {
          const col = part[c];
          const src = col.offsets!;
          const start = src[0];
          const len = byteLength(col);
          f.u8(slot.data + dataAt, len).set(col.data!.subarray(start, start + len));
          const shift = dataAt - start;
          for (let i = 0; i <= col.length; i++) offsets[row + i] = src[i] + shift;
          row += col.length;
          dataAt += len;
        }
      } else {
        const width = VALUE_WIDTH[type];
        for (const part of this.parts) {
          const col = part[c];
          const v = col.values!;
          f.u8(slot.values + row * width, col.length * width).set(new Uint8Array(v.buffer, v.byteOffset, col.length * width));
          row += col.length;
        }
      }
      if (slot.nulls) writeValidity(f.u8(slot.validity, (slot.rows + 7) >> 3), this.parts.map((p) => p[c]));
      const d = c * DESCRIPTOR_WORDS;
      desc[d] = TYPE_CODES[type];
      desc[d + 1] = slot.rows;
      desc[d + 2] = f.ptr(type === "bytes" ? slot.offsets : slot.values);
      desc[d + 3] = type === "bytes" ? f.ptr(slot.data) : 0;
      desc[d + 4] = slot.nulls ? f.ptr(slot.validity) : 0;
      desc[d + 5] = 0;
    });
    f.write(this.descriptors, desc);
    return f.ptr(this.descriptors);
  }
}

function byteLength(col: KeyColumn): number {
  const offsets = col.offsets!;
  return offsets[col.length] - offsets[0];
}

/** Concatenates the validity of several columns into one bitmap starting at bit 0. */
function writeValidity(out: Uint8Array, cols: readonly KeyColumn[]): void {
  out.fill(0);
  let row = 0;
  for (const col of cols) {
    const from = col.validityOffset ?? 0;
    if (!col.validity) {
      for (let i = 0; i < col.length; i++, row++) out[row >> 3] |= 1 << (row & 7);
    } else if (from % 8 === 0 && row % 8 === 0) {
      const bytes = (col.length + 7) >> 3;
      out.set(col.validity.subarray(from >> 3, (from >> 3) + bytes), row >> 3);
      row += col.length;
      // Clear bits copied past this column's end; the next column starts there.
      for (let b = row, end = (row + 7) & ~7; b < end; b++) out[b >> 3] &= ~(1 << (b & 7));
    } else {
      for (let i = 0; i < col.length; i++, row++) {
        const bit = from + i;
        if (col.validity[bit >> 3] & (1 << (bit & 7))) out[row >> 3] |= 1 << (row & 7);
      }
    }
  }
}
