// How the file indexes see column values: Arrow chunks as kernel key columns, and the
// "index key" Java derives from a value (timestamps become millis for precision <= 3 and
// micros above, as `FastHash` and `BitmapFileIndex.getValueMapper` do).
import { type Data, type Vector, Type, TimeUnit } from "apache-arrow";
import { keyColumnFromArrow, type KeyColumn } from "../kernel/columns.js";
import type { Timestamp } from "../spec/binary-row.js";
import type { DataType } from "../spec/types.js";

/** Nanoseconds per Arrow time unit. */
const UNIT_NANOS: Record<TimeUnit, bigint> = {
  [TimeUnit.SECOND]: 1_000_000_000n,
  [TimeUnit.MILLISECOND]: 1_000_000n,
  [TimeUnit.MICROSECOND]: 1_000n,
  [TimeUnit.NANOSECOND]: 1n,
};

/** One Arrow chunk as a key column, plus the factor turning its raw 64-bit timestamps into index keys. */
export interface IndexedChunk {
  readonly column: KeyColumn;
  /** Timestamp columns: key = floor(raw * mul / div); 1 / 1 otherwise. */
  readonly mul: bigint;
  readonly div: bigint;
}

/** Nanoseconds per index-key unit of a timestamp type: millis for p <= 3, micros above. */
function keyUnitNanos(type: DataType): bigint {
  return "precision" in type && type.precision <= 3 ? 1_000_000n : 1_000n;
}

/** The chunks of an Arrow column of `type` as key columns (no copies where layouts agree). */
export function indexedChunks(vector: Vector, type: DataType): IndexedChunk[] {
  return vector.data.map((data) => indexedChunk(data, type));
}

function indexedChunk(data: Data, type: DataType): IndexedChunk {
  if (data.type.typeId !== Type.Timestamp) return { column: keyColumnFromArrow(data), mul: 1n, div: 1n };
  const unit = (data.type as unknown as { unit: TimeUnit }).unit;
  const column: KeyColumn =
    unit === TimeUnit.SECOND
      ? {
          // keyColumnFromArrow refuses seconds (a kernel key column has no such kind); the raw
          // values are plain int64 here and scaled below
          type: "int64",
          length: data.length,
          values: int64Values(data),
          validity: data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? data.nullBitmap : null,
          validityOffset: data.offset,
        }
      : keyColumnFromArrow(data);
  const from = UNIT_NANOS[unit];
  const to = keyUnitNanos(type);
  return from >= to ? { column, mul: from / to, div: 1n } : { column, mul: 1n, div: to / from };
}

function int64Values(data: Data): BigInt64Array {
  const v = data.values as unknown as BigInt64Array | Int32Array;
  if (v instanceof BigInt64Array) return v.subarray(0, data.length);
  return new BigInt64Array(v.buffer, v.byteOffset, data.length);
}

/**
 * The index keys (millis or micros) a canonical timestamp literal of `type` can match: none
 * when the literal has digits below the key unit that no value of a p <= 6 column has; for
 * TIMESTAMP(7..9), whose keys are truncated, the truncated key.
 */
export function timestampLiteralKeys(ts: Timestamp, type: DataType): bigint[] {
  const precision = "precision" in type ? type.precision : 9;
  if (keyUnitNanos(type) === 1_000_000n) return ts.nanoOfMillisecond === 0 ? [ts.millis] : [];
  if (precision <= 6 && ts.nanoOfMillisecond % 1000 !== 0) return [];
  return [ts.millis * 1000n + BigInt(Math.floor(ts.nanoOfMillisecond / 1000))];
}

/** Java `Float.floatToIntBits` (NaN canonical). */
export function floatToIntBits(v: number): number {
  if (v !== v) return 0x7fc00000;
  F32[0] = v;
  return I32[0]!;
}

/** Java `Double.doubleToLongBits` (NaN canonical). */
export function doubleToLongBits(v: number): bigint {
  if (v !== v) return 0x7ff8000000000000n;
  F64[0] = v;
  return I64[0]!;
}

const F32 = new Float32Array(1);
const I32 = new Int32Array(F32.buffer);
const F64 = new Float64Array(1);
const I64 = new BigInt64Array(F64.buffer);
