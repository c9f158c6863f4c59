// Durable real-time progress (reference §1.6): a versioned JSON file `metadata/<uuid>.offsets`
// listing the exclusive committed end offset of every partition-bucket, referenced from the
// snapshot property `realtime.offsets`; plus RealtimeSnapshotOffsets for recovery.
import { PaimonError } from "../error.js";
import { joinPath, randomId, type FileIO } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { jsonBigInt, parseJson, type JsonValue } from "../spec/json.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { partitionValueString } from "../table/paths.js";
import type { Table } from "../table/table.js";
import { partitionBucketKey, REALTIME_OFFSETS_PROPERTY, type RealtimePartitionBucket } from "./types.js";

export const OFFSETS_VERSION = 1;

export interface OffsetEntry {
  partition: Record<string, string>;
  bucket: number;
  /** Exclusive committed end offset. */
  offset: bigint;
}

/** Committed progress of a table: partition-bucket key → entry. */
export type OffsetMap = Map<string, OffsetEntry>;

function corrupt(file: string, what: string): PaimonError {
  return new PaimonError("CORRUPT_FILE", `offsets file ${file}: ${what}`);
}

/** std::map<string,string> order: entries sorted by key, compared pairwise (key, then value). */
function comparePartitions(a: Record<string, string>, b: Record<string, string>): number {
  const ea = Object.entries(a).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const eb = Object.entries(b).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
    if (ea[i][0] !== eb[i][0]) return ea[i][0] < eb[i][0] ? -1 : 1;
    if (ea[i][1] !== eb[i][1]) return ea[i][1] < eb[i][1] ? -1 : 1;
  }
  return ea.length - eb.length;
}

export function sortedEntries(map: OffsetMap): OffsetEntry[] {
  return [...map.values()].sort((a, b) => comparePartitions(a.partition, b.partition) || a.bucket - b.bucket);
}

/** The offsets JSON (4-space indented, entries sorted by partition map then bucket). */
export function serializeOffsets(map: OffsetMap): string {
  const entries = sortedEntries(map);
  if (entries.length === 0) return `{\n    "version": ${OFFSETS_VERSION},\n    "offsets": []\n}`;
  const q = (s: string) => JSON.stringify(s);
  const lines = entries.map((e) => {
    const parts = Object.entries(e.partition).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    const partition = parts.length === 0 ? "{}" : `{\n                ${parts.map(([k, v]) => `${q(k)}: ${q(v)}`).join(",\n                ")}\n            }`;
    return `        {\n            "partition": ${partition},\n            "bucket": ${e.bucket},\n            "offset": ${e.offset.toString()}\n        }`;
  });
  return `{\n    "version": ${OFFSETS_VERSION},\n    "offsets": [\n${lines.join(",\n")}\n    ]\n}`;
}

/** Parses an offsets file; `partitionKeys` orders the keys of the returned map. */
export function parseOffsets(text: string, partitionKeys: readonly string[], file = "offsets file"): OffsetMap {
  const root = parseJson(text, file);
  if (root === null || typeof root !== "object" || Array.isArray(root)) throw corrupt(file, "value must be an object");
  const o = root as Record<string, JsonValue>;
  if (o.version === undefined) throw corrupt(file, "key version must exist");
  if (Number(o.version) !== OFFSETS_VERSION) throw corrupt(file, `unsupported offsets version ${String(o.version)}`);
  if (!Array.isArray(o.offsets)) throw corrupt(file, "offsets must be an array");
  const out: OffsetMap = new Map();
  for (const item of o.offsets) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw corrupt(file, "offset entry must be an object");
    const e = item as Record<string, JsonValue>;
    const p = e.partition;
    if (p === null || typeof p !== "object" || Array.isArray(p)) throw corrupt(file, "partition must be an object");
    const partition: Record<string, string> = {};
    for (const [k, v] of Object.entries(p)) {
      if (typeof v !== "string") throw corrupt(file, `partition value of ${k} must be a string`);
      partition[k] = v;
    }
    const bucket = typeof e.bucket === "number" || typeof e.bucket === "bigint" ? Number(e.bucket) : NaN;
    if (!Number.isInteger(bucket)) throw corrupt(file, "bucket must be an int");
    if (bucket < 0) throw corrupt(file, `invalid bucket ${bucket} in offsets`);
    const offset = jsonBigInt(e.offset, `${file}: offset`);
    if (offset === null) throw corrupt(file, "key offset must exist");
    if (offset < 0n) throw corrupt(file, `invalid offset ${offset} for bucket ${bucket}`);
    const key = partitionBucketKey(partitionKeys.length > 0 ? partitionKeys : Object.keys(partition), partition, bucket);
    if (out.has(key)) throw corrupt(file, `duplicate partition-bucket ${bucket} in offsets`);
    out.set(key, { partition, bucket, offset });
  }
  return out;
}

/** `<table>/metadata` */
export function metadataDir(table: Table): string {
  return joinPath(table.location, "metadata");
}

/** Writes a new offsets file; returns its full path (the snapshot property value). */
export async function writeOffsetsFile(io: FileIO, tableLocation: string, map: OffsetMap): Promise<string> {
  const path = joinPath(tableLocation, "metadata", `${randomId()}.offsets`);
  const ok = await io.writeFileAtomicNoReplace(path, serializeOffsets(map));
  if (!ok) throw new PaimonError("IO_ERROR", `offsets file ${path} already exists`);
  return path;
}

const cache = new Map<string, OffsetMap>();

/** The committed progress referenced by a snapshot (empty when it has none). */
export async function offsetsOfSnapshot(io: FileIO, tableLocation: string, partitionKeys: readonly string[], snapshot: Snapshot | null): Promise<OffsetMap> {
  const ref = snapshot?.properties?.[REALTIME_OFFSETS_PROPERTY];
  if (!ref) return new Map();
  const path = ref.includes("/") || ref.includes("\\") ? ref : joinPath(tableLocation, "metadata", ref);
  const cacheKey = `${path}|${partitionKeys.join(",")}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  let text: string;
  try {
    text = new TextDecoder().decode(await io.readFile(path));
  } catch (e) {
    if (e instanceof PaimonError && e.code === "NOT_FOUND") throw new PaimonError("CORRUPT_FILE", `snapshot ${snapshot!.id} references missing offsets file ${path}`, { cause: e });
    throw e;
  }
  const map = parseOffsets(text, partitionKeys, path);
  if (cache.size > 256) cache.clear();
  cache.set(cacheKey, map); // offsets files are immutable
  return map;
}

export function tableOffsetsOf(table: Table, snapshot: Snapshot | null): Promise<OffsetMap> {
  return offsetsOfSnapshot(table.fileIO, table.location, table.schema.partitionKeys, snapshot);
}

/** Logical partition strings of internal partition values (reference §1.6). */
export function partitionStrings(table: Table, fields: readonly DataField[], values: readonly unknown[]): Record<string, string> {
  const opts = table.coreOptions;
  const out: Record<string, string> = {};
  fields.forEach((f, i) => {
    out[f.name] = partitionValueString(values[i], f.type, opts.partitionLegacyName) ?? opts.partitionDefaultName;
  });
  return out;
}

/** Logical partition strings of a serialized partition BinaryRow. */
export function partitionStringsOfRow(table: Table, row: Uint8Array): Record<string, string> {
  const fields = table.partitionFields;
  const values = fromBinaryRow(
    row.subarray(4),
    fields.map((f) => f.type),
  );
  return partitionStrings(table, fields, values);
}

/** Recovery: the durable progress of committed snapshots. */
export class RealtimeSnapshotOffsets {
  /** Every partition-bucket's exclusive committed end offset in a snapshot (latest by default). */
  static async readAllOffsets(table: Table, snapshotId?: number): Promise<Array<{ partition: Record<string, string>; bucket: number; offset: bigint }>> {
    const snapshot = snapshotId === undefined ? await table.latestSnapshot() : await table.snapshot(snapshotId);
    return sortedEntries(await tableOffsetsOf(table, snapshot)).map((e) => ({ partition: { ...e.partition }, bucket: e.bucket, offset: e.offset }));
  }

  /** The exclusive committed end offset of one partition-bucket, or -1n when it has none. */
  static async readOffset(table: Table, snapshotId: number | undefined, target: RealtimePartitionBucket | { partition?: Record<string, unknown>; bucket: number }): Promise<bigint> {
    const snapshot = snapshotId === undefined ? await table.latestSnapshot() : await table.snapshot(snapshotId);
    const partition: Record<string, string> = {};
    for (const [k, v] of Object.entries(target.partition ?? {})) partition[k] = String(v);
    const map = await tableOffsetsOf(table, snapshot);
    return map.get(partitionBucketKey(table.schema.partitionKeys, partition, target.bucket))?.offset ?? -1n;
  }
}
