// The checks of the append-deduplicate table setup (see dedup-table.ts), in a module of their own:
// loaded by the writers and, on load of a deduplicate table only, by catalogs. It imports no
// module of the query bundle but error.js and dedup-table.js: more would make bundlers split
// the query bundle's chunks further (measured +0.2 KB gzip for option-validation.js).
import { PaimonError } from "../error.js";
import type { TableSchema } from "../spec/schema.js";
import { DEDUPLICATE_KEY_FIELDS, type DeduplicateLayout, keyFieldNames, REALTIME_OFFSET_FIELD } from "./dedup-table.js";

/** Types that cannot be a deduplicate key: nested or not comparable by value. */
const NESTED_KINDS = new Set(["ARRAY", "MAP", "MULTISET", "ROW", "VARIANT", "BLOB"]);
/** Exact file indexes that can map offsets to row positions (Paimon's default plugins). */
const EXACT_INDEX_TYPES = ["bitmap", "bsi", "range-bitmap"] as const;

function columnsOf(options: Readonly<Record<string, string>>, key: string): string[] {
  return (options[key] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Null for tables that are not append-deduplicate tables; otherwise the key and offset fields,
 * after checking every requirement of the mode. INVALID_ARGUMENT (UNSUPPORTED for a
 * requirement paimon-rt cannot meet) naming `where` and what is missing.
 */
export function checkDeduplicateTable(schema: TableSchema, where: string): DeduplicateLayout | null {
  const o = schema.options;
  const names = keyFieldNames(o);
  if (names === null) return null;
  const fail = (message: string) => new PaimonError("INVALID_ARGUMENT", `append deduplicate table ${where}: ${message}`);
  if (schema.primaryKeys.length > 0) throw fail(`must not have a primary key (it has [${schema.primaryKeys.join(", ")}]); ${DEDUPLICATE_KEY_FIELDS} is for append tables`);
  if (names.length !== 1 || names[0] === "") throw fail(`${DEDUPLICATE_KEY_FIELDS} must name exactly one deduplicate key field, got '${o[DEDUPLICATE_KEY_FIELDS]}'`);
  const keyName = names[0];
  const keyField = schema.fields.find((f) => f.name === keyName);
  if (!keyField) throw fail(`deduplicate key field ${keyName} (${DEDUPLICATE_KEY_FIELDS}) does not exist`);
  if (keyName === REALTIME_OFFSET_FIELD) throw fail(`the offset field ${REALTIME_OFFSET_FIELD} cannot be used as the deduplicate key`);
  if (keyField.type.nullable) throw fail(`deduplicate key field ${keyName} must be non-null (NOT NULL)`);
  if (NESTED_KINDS.has(keyField.type.kind)) throw fail(`deduplicate key field ${keyName} must not be nested (it is ${keyField.type.kind})`);
  const offsetField = schema.fields.find((f) => f.name === REALTIME_OFFSET_FIELD);
  if (!offsetField) throw fail(`needs a column ${REALTIME_OFFSET_FIELD} BIGINT NOT NULL`);
  if (offsetField.type.kind !== "BIGINT" || offsetField.type.nullable) throw fail(`column ${REALTIME_OFFSET_FIELD} must be BIGINT NOT NULL`);
  if (schema.partitionKeys.includes(REALTIME_OFFSET_FIELD)) throw fail(`${REALTIME_OFFSET_FIELD} cannot be a partition key`);
  const bucket = Number(o["bucket"] ?? "-1");
  if (!(bucket > 0)) throw fail(`needs a fixed bucket count (bucket > 0), got bucket = ${o["bucket"] ?? "-1"}`);
  const bucketKey = columnsOf(o, "bucket-key");
  if (bucketKey.length === 0) throw fail(`needs bucket-key = ${keyName} (the bucket key must use only deduplicate key fields)`);
  const outside = bucketKey.filter((k) => k !== keyName);
  if (outside.length > 0) throw fail(`bucket-key [${bucketKey.join(", ")}] must use only the deduplicate key field ${keyName} (not ${outside.join(", ")})`);
  if ((o["deletion-vectors.enabled"] ?? "false").trim().toLowerCase() !== "true") throw fail(`needs deletion-vectors.enabled = true`);
  if ((o["deletion-vectors.bitmap64"] ?? "false").trim().toLowerCase() !== "false") throw fail(`needs deletion-vectors.bitmap64 = false (persisted deletion vectors must be 32-bit)`);
  if ((o["data-evolution.enabled"] ?? "").trim().toLowerCase() === "true") throw new PaimonError("UNSUPPORTED", `append deduplicate table ${where}: data-evolution.enabled is not supported in real-time mode`);
  const exact = EXACT_INDEX_TYPES.filter((t) => columnsOf(o, `file-index.${t}.columns`).includes(REALTIME_OFFSET_FIELD));
  if (!exact.includes("bitmap")) {
    if (exact.length > 0) {
      throw new PaimonError("UNSUPPORTED", `append deduplicate table ${where}: paimon-rt writes only bitmap exact file indexes; set file-index.bitmap.columns to include ${REALTIME_OFFSET_FIELD} (it has a ${exact.join("/")} index)`);
    }
    const bloom = columnsOf(o, "file-index.bloom-filter.columns").includes(REALTIME_OFFSET_FIELD) ? " (a bloom-filter index is approximate: insufficient)" : "";
    throw fail(`needs an exact offset index: file-index.bitmap.columns must include ${REALTIME_OFFSET_FIELD}${bloom}`);
  }
  return { keyField, offsetField };
}
