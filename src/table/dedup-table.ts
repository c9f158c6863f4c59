// The table setup of the real-time append-deduplicate mode (seed 000 "Append deduplicate",
// "Mode-specific Setup", "Schema Changes"): an append table whose `realtime.deduplicate-key-fields`
// names one non-null scalar key, with a persisted `_REALTIME_OFFSET BIGINT NOT NULL` column, fixed
// buckets keyed by the deduplicate key, 32-bit deletion vectors and an exact bitmap file index on
// the offset. Checked when such a table is created, altered and loaded; each error names what is
// missing.
import type { DataField } from "../spec/types.js";

export const DEDUPLICATE_KEY_FIELDS = "realtime.deduplicate-key-fields";
/** The persisted offset column of an append-deduplicate table. */
export const REALTIME_OFFSET_FIELD = "_REALTIME_OFFSET";

/** The key field names `realtime.deduplicate-key-fields` lists (trimmed, empty entries kept for the check). */
export function keyFieldNames(options: Readonly<Record<string, string>>): string[] | null {
  const raw = options[DEDUPLICATE_KEY_FIELDS];
  if (raw === undefined || raw.trim() === "") return null;
  return raw.split(",").map((s) => s.trim());
}

/** True when the options select the append-deduplicate mode. */
export function isDeduplicateTable(options: Readonly<Record<string, string>>): boolean {
  return keyFieldNames(options) !== null;
}

/** The deduplicate key field and the offset field of a checked deduplicate schema. */
export interface DeduplicateLayout {
  keyField: DataField;
  offsetField: DataField;
}
