// Snapshot files `snapshot/snapshot-<id>` (format reference §3): Java's field order,
// NON_NULL omission, version 3. Int64 values that can exceed 2^53 (commitIdentifier,
// watermark, record counts, sizes, nextRowId) are bigint; ids are numbers.

import { PaimonError } from "../error.js";
import { fileNameProblem } from "./file-names.js";
import { jsonBigInt, jsonInt, parseJson, toJacksonJson, type JsonValue } from "./json.js";

export const CURRENT_SNAPSHOT_VERSION = 3;

export type CommitKind = "APPEND" | "COMPACT" | "OVERWRITE" | "ANALYZE";
export const COMMIT_KINDS: readonly CommitKind[] = ["APPEND", "COMPACT", "OVERWRITE", "ANALYZE"];

/** Long.MAX_VALUE: the commit identifier of batch writes. */
export const BATCH_COMMIT_IDENTIFIER = 9223372036854775807n;

/** Snapshot property holding the full path of the real-time offsets file (`metadata/<uuid>.offsets`). */
export const REALTIME_OFFSETS_PROPERTY = "realtime.offsets";

export interface Snapshot {
  version: number;
  /** Random UUID (Paimon 2.0+), null when absent. */
  uuid: string | null;
  id: number;
  schemaId: number;
  baseManifestList: string;
  baseManifestListSize: bigint | null;
  deltaManifestList: string;
  deltaManifestListSize: bigint | null;
  changelogManifestList: string | null;
  changelogManifestListSize: bigint | null;
  indexManifest: string | null;
  commitUser: string;
  writerVersion: string | null;
  commitIdentifier: bigint;
  commitKind: CommitKind;
  timeMillis: number;
  /** Legacy (≤1.3) log-system offsets bucket -> offset; null when absent. */
  logOffsets: Record<string, bigint> | null;
  totalRecordCount: bigint;
  deltaRecordCount: bigint;
  changelogRecordCount: bigint | null;
  watermark: bigint | null;
  statistics: string | null;
  properties: Record<string, string> | null;
  nextRowId: bigint | null;
  operation: string | null;
  totalFileSize: bigint | null;
  totalDataFiles: bigint | null;
}

/** Inputs accept `bigint | number` for int64 fields and may omit nullable fields. */
export type SnapshotInput = {
  id: number;
  schemaId: number;
  baseManifestList: string;
  deltaManifestList: string;
  commitUser: string;
  commitIdentifier: bigint | number;
  commitKind: CommitKind;
  timeMillis: number;
  totalRecordCount: bigint | number;
  deltaRecordCount: bigint | number;
} & Partial<{
  version: number;
  uuid: string | null;
  baseManifestListSize: bigint | number | null;
  deltaManifestListSize: bigint | number | null;
  changelogManifestList: string | null;
  changelogManifestListSize: bigint | number | null;
  indexManifest: string | null;
  writerVersion: string | null;
  logOffsets: Record<string, bigint | number> | null;
  changelogRecordCount: bigint | number | null;
  watermark: bigint | number | null;
  statistics: string | null;
  properties: Record<string, string> | null;
  nextRowId: bigint | number | null;
  operation: string | null;
  totalFileSize: bigint | number | null;
  totalDataFiles: bigint | number | null;
}>;

function big(v: bigint | number | null | undefined): bigint | null {
  if (v === null || v === undefined) return null;
  return typeof v === "bigint" ? v : BigInt(v);
}

/** Normalizes input (numbers -> bigint, missing -> null). */
export function makeSnapshot(input: SnapshotInput): Snapshot {
  if (!COMMIT_KINDS.includes(input.commitKind)) throw new PaimonError("INVALID_ARGUMENT", `Unknown commit kind '${String(input.commitKind)}'`);
  let logOffsets: Record<string, bigint> | null = null;
  if (input.logOffsets) {
    logOffsets = {};
    for (const [k, v] of Object.entries(input.logOffsets)) logOffsets[k] = big(v)!;
  }
  return {
    version: input.version ?? CURRENT_SNAPSHOT_VERSION,
    uuid: input.uuid ?? null,
    id: input.id,
    schemaId: input.schemaId,
    baseManifestList: input.baseManifestList,
    baseManifestListSize: big(input.baseManifestListSize),
    deltaManifestList: input.deltaManifestList,
    deltaManifestListSize: big(input.deltaManifestListSize),
    changelogManifestList: input.changelogManifestList ?? null,
    changelogManifestListSize: big(input.changelogManifestListSize),
    indexManifest: input.indexManifest ?? null,
    commitUser: input.commitUser,
    writerVersion: input.writerVersion ?? null,
    commitIdentifier: big(input.commitIdentifier)!,
    commitKind: input.commitKind,
    timeMillis: input.timeMillis,
    logOffsets,
    totalRecordCount: big(input.totalRecordCount)!,
    deltaRecordCount: big(input.deltaRecordCount)!,
    changelogRecordCount: big(input.changelogRecordCount),
    watermark: big(input.watermark),
    statistics: input.statistics ?? null,
    properties: input.properties ?? null,
    nextRowId: big(input.nextRowId),
    operation: input.operation ?? null,
    totalFileSize: big(input.totalFileSize),
    totalDataFiles: big(input.totalDataFiles),
  };
}

const nn = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** Snapshot JSON as Java writes it (Jackson pretty printer, nulls omitted, empty properties omitted). */
export function snapshotToJson(snapshot: Snapshot | SnapshotInput): string {
  const s = makeSnapshot(snapshot);
  const props = s.properties && Object.keys(s.properties).length > 0 ? { ...s.properties } : undefined;
  const out: { [key: string]: JsonValue | undefined } = {
    version: s.version,
    uuid: nn(s.uuid),
    id: s.id,
    schemaId: s.schemaId,
    baseManifestList: s.baseManifestList,
    baseManifestListSize: nn(s.baseManifestListSize),
    deltaManifestList: s.deltaManifestList,
    deltaManifestListSize: nn(s.deltaManifestListSize),
    changelogManifestList: nn(s.changelogManifestList),
    changelogManifestListSize: nn(s.changelogManifestListSize),
    indexManifest: nn(s.indexManifest),
    commitUser: s.commitUser,
    writerVersion: nn(s.writerVersion),
    commitIdentifier: s.commitIdentifier,
    commitKind: s.commitKind,
    timeMillis: s.timeMillis,
    logOffsets: s.logOffsets ? { ...s.logOffsets } : undefined,
    totalRecordCount: s.totalRecordCount,
    deltaRecordCount: s.deltaRecordCount,
    changelogRecordCount: nn(s.changelogRecordCount),
    watermark: nn(s.watermark),
    statistics: nn(s.statistics),
    properties: props,
    nextRowId: nn(s.nextRowId),
    operation: nn(s.operation),
    totalFileSize: nn(s.totalFileSize),
    totalDataFiles: nn(s.totalDataFiles),
  };
  return toJacksonJson(out);
}

function str(v: JsonValue | undefined, what: string, required: true): string;
function str(v: JsonValue | undefined, what: string, required: false): string | null;
function str(v: JsonValue | undefined, what: string, required: boolean): string | null {
  if (v === undefined || v === null) {
    if (required) throw new PaimonError("CORRUPT_FILE", `${what} is missing`);
    return null;
  }
  if (typeof v !== "string") throw new PaimonError("CORRUPT_FILE", `${what} is not a string`);
  return v;
}

// Names of files in the table's manifest (or statistics) directory: one plain segment each.
function plainFileName(v: JsonValue | undefined, what: string, required: true): string;
function plainFileName(v: JsonValue | undefined, what: string, required: false): string | null;
function plainFileName(v: JsonValue | undefined, what: string, required: boolean): string | null {
  const name = required ? str(v, what, true) : str(v, what, false);
  const problem = name === null ? null : fileNameProblem(name);
  if (problem !== null) throw new PaimonError("CORRUPT_FILE", `${what} ${JSON.stringify(name)} ${problem}`);
  return name;
}

/**
 * Parses snapshot JSON written by any Java version or pypaimon (explicit nulls, unknown
 * keys, legacy `logOffsets`, nullable `totalRecordCount` ≤1.3 all accepted).
 * Throws CORRUPT_FILE naming `fileName`.
 */
export function parseSnapshotJson(text: string | Uint8Array, fileName = "snapshot file"): Snapshot {
  const strText = typeof text === "string" ? text : new TextDecoder().decode(text);
  const root = parseJson(strText, fileName);
  if (root === null || typeof root !== "object" || Array.isArray(root)) throw new PaimonError("CORRUPT_FILE", `${fileName} is not a JSON object`);
  const o = root as { [key: string]: JsonValue | undefined };
  const w = (k: string): string => `${fileName}: ${k}`;
  const required = (k: string): bigint => {
    const v = jsonBigInt(o[k], w(k));
    if (v === null) throw new PaimonError("CORRUPT_FILE", `${w(k)} is missing`);
    return v;
  };
  const requiredInt = (k: string): number => {
    const v = jsonInt(o[k], w(k));
    if (v === null) throw new PaimonError("CORRUPT_FILE", `${w(k)} is missing`);
    return v;
  };
  const kind = str(o.commitKind, w("commitKind"), true);
  if (!COMMIT_KINDS.includes(kind as CommitKind)) throw new PaimonError("CORRUPT_FILE", `${w("commitKind")} is unknown: ${kind}`);
  let logOffsets: Record<string, bigint> | null = null;
  if (o.logOffsets && typeof o.logOffsets === "object" && !Array.isArray(o.logOffsets)) {
    logOffsets = {};
    for (const [k, v] of Object.entries(o.logOffsets)) {
      const b = jsonBigInt(v, w(`logOffsets.${k}`));
      if (b !== null) logOffsets[k] = b;
    }
  }
  let properties: Record<string, string> | null = null;
  if (o.properties && typeof o.properties === "object" && !Array.isArray(o.properties)) {
    properties = {};
    for (const [k, v] of Object.entries(o.properties)) if (v !== null && v !== undefined) properties[k] = String(v);
  }
  return {
    version: jsonInt(o.version, w("version")) ?? 1,
    uuid: str(o.uuid, w("uuid"), false),
    id: requiredInt("id"),
    schemaId: requiredInt("schemaId"),
    baseManifestList: plainFileName(o.baseManifestList, w("baseManifestList"), true),
    baseManifestListSize: jsonBigInt(o.baseManifestListSize, w("baseManifestListSize")),
    deltaManifestList: plainFileName(o.deltaManifestList, w("deltaManifestList"), true),
    deltaManifestListSize: jsonBigInt(o.deltaManifestListSize, w("deltaManifestListSize")),
    changelogManifestList: plainFileName(o.changelogManifestList, w("changelogManifestList"), false),
    changelogManifestListSize: jsonBigInt(o.changelogManifestListSize, w("changelogManifestListSize")),
    indexManifest: plainFileName(o.indexManifest, w("indexManifest"), false),
    commitUser: str(o.commitUser, w("commitUser"), true),
    writerVersion: str(o.writerVersion, w("writerVersion"), false),
    commitIdentifier: required("commitIdentifier"),
    commitKind: kind as CommitKind,
    timeMillis: requiredInt("timeMillis"),
    logOffsets,
    totalRecordCount: jsonBigInt(o.totalRecordCount, w("totalRecordCount")) ?? 0n,
    deltaRecordCount: jsonBigInt(o.deltaRecordCount, w("deltaRecordCount")) ?? 0n,
    changelogRecordCount: jsonBigInt(o.changelogRecordCount, w("changelogRecordCount")),
    watermark: jsonBigInt(o.watermark, w("watermark")),
    statistics: plainFileName(o.statistics, w("statistics"), false),
    properties,
    nextRowId: jsonBigInt(o.nextRowId, w("nextRowId")),
    operation: str(o.operation, w("operation"), false),
    totalFileSize: jsonBigInt(o.totalFileSize, w("totalFileSize")),
    totalDataFiles: jsonBigInt(o.totalDataFiles, w("totalDataFiles")),
  };
}
