// Internal Paimon values of single cells of canonical Arrow columns (the layout of
// `readArrowField`), read straight from the buffers: what partition rows are built from.
import type * as arrow from "apache-arrow";
import type { DataType } from "../spec/types.js";
import { utf8Decoder } from "../spec/utf8.js";
import { isValidAt } from "./values.js";


/** The internal value (as `toBinaryRow` takes it) of `row` in `data` of Paimon type `type`. */
export function internalValue(data: arrow.Data, row: number, type: DataType): unknown {
  if (!isValidAt(data, row)) return null;
  const values = data.values as unknown as ArrayLike<number | bigint> & { [i: number]: number | bigint };
  switch (type.kind) {
    case "BOOLEAN": {
      const bit = data.offset + row;
      return ((data.values as Uint8Array)[bit >> 3] & (1 << (bit & 7))) !== 0;
    }
    case "CHAR":
    case "VARCHAR": {
      const o = data.valueOffsets as Int32Array;
      return utf8Decoder.decode((data.values as Uint8Array).subarray(o[row], o[row + 1]));
    }
    case "BINARY":
    case "VARBINARY": {
      const o = data.valueOffsets as Int32Array;
      return (data.values as Uint8Array).slice(o[row], o[row + 1]);
    }
    case "DECIMAL": {
      const w = data.values as unknown as Uint32Array;
      const i = row * 4;
      return BigInt.asIntN(128, (BigInt(w[i + 3]) << 96n) | (BigInt(w[i + 2]) << 64n) | (BigInt(w[i + 1]) << 32n) | BigInt(w[i]));
    }
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const unit = (data.type as unknown as { unit: number }).unit; // 0 s, 1 ms, 2 µs, 3 ns
      const v = values[row] as bigint;
      const perMilli = [0n, 1n, 1000n, 1000000n][unit];
      if (unit === 0) return { millis: v * 1000n, nanoOfMillisecond: 0 };
      const millis = v / perMilli - (v % perMilli < 0n ? 1n : 0n);
      return { millis, nanoOfMillisecond: Number((v - millis * perMilli) * (1000000n / perMilli)) };
    }
    default:
      return values[row];
  }
}
