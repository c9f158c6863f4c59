// Primary-key tables (format reference §7): the physical layout of their data files
// (`_KEY_<k>`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, value columns), the options that shape
// writing and merging, and Java's key order over serialized min/max keys.
import { PaimonError } from "../error.js";
import { BinaryRow, fromBinaryRow } from "../spec/binary-row.js";
import type { TableSchema } from "../spec/schema.js";
import { trimmedPrimaryKeys } from "../spec/schema.js";
import { type DataField, type DataType, SYSTEM_FIELD_ID_START } from "../spec/types.js";
import type { TableOptions } from "./options.js";
import { compareValues } from "./values.js";

/** `_KEY_<k>` field ids are `KEY_FIELD_ID_START + id(k)` (Java `SpecialFields`). */
export const KEY_FIELD_ID_START = SYSTEM_FIELD_ID_START;
export const KEY_FIELD_PREFIX = "_KEY_";
export const SEQUENCE_NUMBER_FIELD_ID = 2147483646;
export const VALUE_KIND_FIELD_ID = 2147483645;
export const SEQUENCE_NUMBER_FIELD: DataField = { id: SEQUENCE_NUMBER_FIELD_ID, name: "_SEQUENCE_NUMBER", type: { kind: "BIGINT", nullable: false } };
export const VALUE_KIND_FIELD: DataField = { id: VALUE_KIND_FIELD_ID, name: "_VALUE_KIND", type: { kind: "TINYINT", nullable: false } };

export type MergeEngine = "deduplicate" | "partial-update" | "aggregation" | "first-row";
export type ChangelogProducer = "none" | "input" | "lookup" | "full-compaction";

/** The trimmed primary-key fields (primary keys minus partition keys), in key order. */
export function keyFieldsOf(schema: TableSchema): DataField[] {
  return trimmedPrimaryKeys(schema).map((k) => schema.fields.find((f) => f.name === k)!);
}

/** The file schema of a PK data file (`KeyValue.createKeyValueFields`); thin mode omits `_KEY_*`. */
export function keyValueFileFields(schema: TableSchema, thinMode = false): DataField[] {
  const keys = thinMode
    ? []
    : keyFieldsOf(schema).map((f): DataField => ({ id: KEY_FIELD_ID_START + f.id, name: KEY_FIELD_PREFIX + f.name, type: f.type }));
  return [...keys, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...schema.fields];
}

/** What a PK table's options say about writing and merging. */
export interface PrimaryKeyConfig {
  mergeEngine: MergeEngine;
  deletionVectors: boolean;
  /** `deletion-vectors.merge-on-read`: batch reads keep level 0 and merge. */
  dvMergeOnRead: boolean;
  bitmap64: boolean;
  ignoreDelete: boolean;
  /** `ignore-update-before`: UPDATE_BEFORE rows are dropped at write (Java's RowKindFilter). */
  ignoreUpdateBefore: boolean;
  /** `sequence.field`: value columns ordering the records of a key before `_SEQUENCE_NUMBER` (Java `UserDefinedSeqComparator`). */
  sequenceFields: string[];
  /** `changelog-producer`: what writes the table's changelog files (Java `ChangelogProducer`). */
  changelogProducer: ChangelogProducer;
  /**
   * Java `LookupStrategy.needLookup` (first-row, `changelog-producer=lookup`, deletion vectors or
   * `force-lookup`): level 0 is compacted on every commit with each key's looked-up older row, and
   * partial-update / aggregation merges see a key's lowest positive level only (`LookupMergeFunction`).
   */
  needLookup: boolean;
  /** `changelog-producer.row-deduplicate`: lookup / full-compaction changelogs skip -U/+U pairs of equal values. */
  changelogRowDeduplicate: boolean;
  /** `changelog-producer.row-deduplicate-ignore-fields`: fields that equality ignores. */
  changelogRowDeduplicateIgnoreFields: string[];
  numSortedRunCompactionTrigger: number;
  numSortedRunStopTrigger: number;
  numLevels: number;
  maxLevel: number;
  writeBufferSize: number;
  thinMode: boolean;
  sizeRatio: number;
  maxSizeAmplificationPercent: number;
}

/** Configs by options object (immutable: a table's options are fixed per schema); reads and plans of a PK table ask for it on every query. */
const configs = new WeakMap<TableOptions, Readonly<PrimaryKeyConfig>>();

export function primaryKeyConfig(options: TableOptions): Readonly<PrimaryKeyConfig> {
  let config = configs.get(options);
  if (config === undefined) {
    config = parsePrimaryKeyConfig(options);
    Object.freeze(config.sequenceFields);
    Object.freeze(config.changelogRowDeduplicateIgnoreFields);
    configs.set(options, Object.freeze(config));
  }
  return config;
}

function parsePrimaryKeyConfig(options: TableOptions): PrimaryKeyConfig {
  const mergeEngine = (options.get("merge-engine") ?? "deduplicate").trim().toLowerCase() as MergeEngine;
  if (!["deduplicate", "partial-update", "aggregation", "first-row"].includes(mergeEngine)) {
    throw new PaimonError("INVALID_ARGUMENT", `unknown merge-engine '${options.get("merge-engine")}' (deduplicate, partial-update, aggregation, first-row)`);
  }
  const trigger = options.int("num-sorted-run.compaction-trigger", 5);
  const numLevels = options.int("num-levels", trigger + 1);
  const ignoreDelete = options.ignoreDelete;
  const seq = options.get("sequence.field");
  const changelogProducer = (options.get("changelog-producer") ?? "none").trim().toLowerCase() as ChangelogProducer;
  if (!["none", "input", "lookup", "full-compaction"].includes(changelogProducer)) {
    throw new PaimonError("INVALID_ARGUMENT", `unknown changelog-producer '${options.get("changelog-producer")}' (none, input, lookup, full-compaction)`);
  }
  const deletionVectors = options.bool("deletion-vectors.enabled", false);
  const list = (v: string | undefined) => (v ? v.split(",").map((x) => x.trim()).filter((x) => x !== "") : []);
  return {
    mergeEngine,
    deletionVectors,
    dvMergeOnRead: options.bool("deletion-vectors.merge-on-read", false),
    bitmap64: options.bool("deletion-vectors.bitmap64", false),
    ignoreDelete,
    ignoreUpdateBefore: options.bool("ignore-update-before", false),
    sequenceFields: list(seq),
    changelogProducer,
    needLookup: mergeEngine === "first-row" || changelogProducer === "lookup" || deletionVectors || options.bool("force-lookup", false),
    changelogRowDeduplicate: options.bool("changelog-producer.row-deduplicate", false),
    changelogRowDeduplicateIgnoreFields: list(options.get("changelog-producer.row-deduplicate-ignore-fields")),
    numSortedRunCompactionTrigger: trigger,
    numSortedRunStopTrigger: options.int("num-sorted-run.stop-trigger", trigger + 3),
    numLevels,
    maxLevel: numLevels - 1,
    writeBufferSize: options.memory("write-buffer-size", "256 mb"),
    thinMode: options.bool("data-file.thin-mode", false),
    sizeRatio: options.int("compaction.size-ratio", 1),
    maxSizeAmplificationPercent: options.int("compaction.max-size-amplification-percent", 200),
  };
}

/**
 * Java `BucketMode.KEY_DYNAMIC`: dynamic bucket (`bucket = -1`) with a primary key lacking a
 * partition field, so that a key may move between partitions (cross-partition upsert).
 */
export function isCrossPartitionUpsert(schema: TableSchema, bucket: number): boolean {
  return bucket === -1 && schema.primaryKeys.length > 0 && schema.partitionKeys.some((k) => !schema.primaryKeys.includes(k));
}

/** Throws a precise UNSUPPORTED error unless paimon-rt can write this PK table. */
export function checkPrimaryKeyWritable(identifier: string, schema: TableSchema, options: TableOptions): Readonly<PrimaryKeyConfig> {
  keyFieldsOf(schema); // INVALID_ARGUMENT when the key is only partition fields
  const config = primaryKeyConfig(options);
  const unsupported = (what: string) => new PaimonError("UNSUPPORTED", `writing primary-key table ${identifier}: ${what} is not supported`);
  const bucket = options.bucket;
  if (bucket === 0 || bucket < -2) throw unsupported(`bucket = ${bucket}`);
  // (the merge function's own options: checkMergeFunctionOptions, which the writer calls)
  checkChangelogProducer(identifier, schema, config, options, unsupported);
  // Java's force-lookup with full-compaction merges a full compaction's records through the lookup
  // merge function (a key's lowest positive level only) and compacts level 0 every commit:
  // paimon-rt's full-compaction rewriter merges every level
  if (options.bool("force-lookup", false) && config.changelogProducer === "full-compaction" && (config.mergeEngine === "partial-update" || config.mergeEngine === "aggregation")) {
    throw unsupported(`force-lookup=true with changelog-producer=full-compaction and merge-engine=${config.mergeEngine}`);
  }
  if (options.fileFormat !== "parquet" && options.fileFormat !== "avro" && options.fileFormat !== "orc") throw unsupported(`file.format=${options.fileFormat} (parquet, avro and orc only)`);
  if (config.numLevels < 2) throw new PaimonError("INVALID_ARGUMENT", `num-levels of ${identifier} must be >= 2, got ${config.numLevels}`);
  return config;
}

/**
 * The changelog producer of a PK table paimon-rt writes: Java's SchemaValidation refusals
 * (INVALID_ARGUMENT, its messages), UNSUPPORTED for what paimon-rt does not produce.
 */
function checkChangelogProducer(identifier: string, schema: TableSchema, config: PrimaryKeyConfig, options: TableOptions, unsupported: (what: string) => PaimonError): void {
  const producer = config.changelogProducer;
  if (producer === "none") return;
  if (config.mergeEngine === "first-row" && producer !== "lookup") {
    throw new PaimonError("INVALID_ARGUMENT", `${identifier}: Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine`);
  }
  if (config.deletionVectors && producer === "full-compaction") {
    throw new PaimonError("INVALID_ARGUMENT", `${identifier}: Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer now.`);
  }
  for (const f of config.changelogRowDeduplicateIgnoreFields) {
    if (!schema.fields.some((x) => x.name === f)) throw new PaimonError("INVALID_ARGUMENT", `${identifier}: changelog-producer.row-deduplicate-ignore-fields: field '${f}' is not in the table schema`);
  }
  const format = options.get("changelog-file.format");
  if (format !== undefined && format.trim().toLowerCase() !== "parquet") throw unsupported(`changelog-file.format=${format} (parquet only)`);
}

/** Java's key order: field by field, nulls first, ascending (`compareValues` on internal values). */
export function compareKeyValues(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? -1 : 1;
    }
    let c: number;
    if (typeof x === "number" && typeof y === "number" && (x !== x || y !== y)) c = x !== x ? (y !== y ? 0 : 1) : -1; // NaN last, as Double.compare
    else c = compareValues(x, y);
    if (c !== 0) return c;
  }
  return 0;
}

/** Decodes serialized key rows (minKey/maxKey) with a cache keyed by the bytes object. */
export class KeyDecoder {
  private readonly cache = new WeakMap<Uint8Array, unknown[]>();
  private readonly types: DataType[];

  constructor(keyFields: readonly DataField[]) {
    this.types = keyFields.map((f) => f.type);
  }

  decode(serialized: Uint8Array): unknown[] {
    let v = this.cache.get(serialized);
    if (!v) {
      v = fromBinaryRow(BinaryRow.fromSerialized(serialized), this.types);
      this.cache.set(serialized, v);
    }
    return v;
  }

  compare(a: Uint8Array, b: Uint8Array): number {
    return compareKeyValues(this.decode(a), this.decode(b));
  }
}
