// Java's record-level expiry of primary-key tables (paimon-core io/RecordLevelExpire):
// `record-level.expire-time` + `record-level.time-field`. Compaction reads drop the rows whose
// time field (INT seconds, BIGINT seconds or milliseconds, TIMESTAMP / TIMESTAMP_LTZ) is older
// than the expire time; files whose minimum time (value stats) is expired are rewritten rather
// than upgraded, and picked by a full compaction of a single max-level run. Reads never filter.
import { takeRows } from "../arrow/take.js";
import { internalValue } from "../arrow/row-values.js";
import { PaimonError } from "../error.js";
import { valueStatsOf } from "../predicate/stats.js";
import type { KvBatch } from "../read/merge-functions.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { TableSchema } from "../spec/schema.js";
import { type DataField, typeToString } from "../spec/types.js";
import type { TableOptions } from "../table/options.js";

/** The record-level expiry of a primary-key table's compactions. */
export interface RecordLevelExpire {
  /** `c` without the rows expired at `nowSeconds` (rows with a null time are kept); `c` itself when none is. */
  filter(c: KvBatch, nowSeconds: number): KvBatch;
  /** Java `isExpireFile`: the file's minimum time (its value stats, by field id in `fileFields`) is expired at `nowSeconds`. */
  isExpireFile(file: DataFileMeta, fileFields: readonly DataField[], nowSeconds: number): boolean;
}

/** Java's `System.currentTimeMillis() / 1000`. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The table's record-level expiry (null without `record-level.expire-time`), with Java's
 * checks (RecordLevelExpire.create): the time field is set, exists and is INT, BIGINT or a
 * timestamp.
 */
export function recordLevelExpireOf(schema: TableSchema, options: TableOptions): RecordLevelExpire | null {
  if (schema.primaryKeys.length === 0 || options.get("record-level.expire-time") === undefined) return null;
  // (Duration.getSeconds(): whole seconds)
  const expireSeconds = Math.floor(options.duration("record-level.expire-time", "0 s") / 1000);
  const name = options.get("record-level.time-field");
  if (name === undefined) throw new PaimonError("INVALID_ARGUMENT", "You should set time field for record-level expire.");
  const index = schema.fields.findIndex((f) => f.name === name);
  if (index < 0) throw new PaimonError("INVALID_ARGUMENT", `Can not find time field ${name} for record level expire.`);
  const field = schema.fields[index]!;
  const kind = field.type.kind;
  if (kind !== "INT" && kind !== "BIGINT" && kind !== "TIMESTAMP" && kind !== "TIMESTAMP_LTZ") {
    throw new PaimonError("INVALID_ARGUMENT", `The record level time field type should be one of INT, BIGINT, or TIMESTAMP, but field type is ${typeToString(field.type)}.`);
  }
  return {
    filter(c, now) {
      const column = c.batch.data.children[index]!;
      let keep: number[] | null = null;
      for (let r = 0; r < c.batch.numRows; r++) {
        const t = toSeconds(internalValue(column, r, field.type));
        const expired = t !== null && now > t + expireSeconds;
        if (expired && keep === null) keep = Array.from({ length: r }, (_, i) => i);
        else if (!expired && keep !== null) keep.push(r);
      }
      if (keep === null) return c;
      const rows = Uint32Array.from(keep);
      return { batch: takeRows(c.batch, rows), sequence: BigInt64Array.from(rows, (r) => c.sequence[r]!), kinds: Int8Array.from(rows, (r) => c.kinds[r]!) };
    },
    isExpireFile(file, fileFields, now) {
      const fileField = fileFields.find((f) => f.id === field.id);
      if (!fileField || fileField.type.kind !== kind) return false;
      const min = toSeconds(valueStatsOf(file, fileFields).columns[fileField.name]?.min ?? null);
      return min !== null && now - expireSeconds > min;
    },
  };
}

/** Java's `createFieldGetterAndConvertToSecond`: INT as seconds, BIGINT ≥ 10^12 as milliseconds, timestamps' milliseconds / 1000 (truncated). */
function toSeconds(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v >= 1_000_000_000_000n ? v / 1000n : v);
  const millis = (v as { millis: bigint | number }).millis;
  return Number(BigInt(millis) / 1000n);
}
