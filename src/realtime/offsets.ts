// Durable real-time progress (reference §1.6): a versioned JSON file `metadata/<uuid>.offsets`
// listing the exclusive committed end offset of every partition-bucket, referenced from the
// snapshot property `realtime.offsets`; plus RealtimeSnapshotOffsets for recovery.
import { PaimonError } from "../error.js";
import { joinPath, randomId, type FileIO } from "../fs/file-io.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { FILE_KIND_DELETE } from "../spec/manifest.js";
import { parseJson, type JsonValue } from "../spec/json.js";
import { fileNameProblem } from "../spec/file-names.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import type { ManifestStore } from "../table/manifests.js";
import { partitionValueString } from "../table/paths.js";
import type { SnapshotManager } from "../table/snapshot-manager.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import { INT64_MAX, partitionBucketKey, REALTIME_OFFSETS_PROPERTY, type RealtimePartitionBucket } from "./types.js";

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

const INT32_MAX = 2147483647;

/** A JSON integer literal's value (parseJson gives safe integers as numbers, larger ones as bigints). */
function jsonInteger(v: JsonValue | undefined): bigint | null {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return null;
}

/**
 * Parses an offsets file; `partitionKeys` (the table's) orders the keys of the returned map and
 * every entry's partition must have exactly those keys (without it, each entry's own keys). Every
 * entry is checked (bucket an int32 >= 0, offset an int64 >= 0, partition an object of strings,
 * no duplicates): anything else is CORRUPT_FILE naming the file.
 */
export function parseOffsets(text: string, partitionKeys?: readonly string[], file = "offsets file"): OffsetMap {
  let root: JsonValue;
  try {
    root = parseJson(text, file);
  } catch (e) {
    throw corrupt(file, (e as Error).message);
  }
  if (root === null || typeof root !== "object" || Array.isArray(root)) throw corrupt(file, "value must be an object");
  const o = root as Record<string, JsonValue>;
  if (o.version === undefined) throw corrupt(file, "key version must exist");
  if (jsonInteger(o.version) !== BigInt(OFFSETS_VERSION)) throw corrupt(file, `unsupported offsets version ${String(o.version)}`);
  if (!Array.isArray(o.offsets)) throw corrupt(file, "offsets must be an array");
  const out: OffsetMap = new Map();
  for (const [i, item] of o.offsets.entries()) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw corrupt(file, `offset entry ${i} must be an object`);
    const e = item as Record<string, JsonValue>;
    const p = e.partition;
    if (p === null || typeof p !== "object" || Array.isArray(p)) throw corrupt(file, `partition of entry ${i} must be an object`);
    const partition: Record<string, string> = {};
    for (const [k, v] of Object.entries(p)) {
      if (typeof v !== "string") throw corrupt(file, `partition value of ${k} in entry ${i} must be a string`);
      partition[k] = v;
    }
    const keys = partitionKeys ?? Object.keys(partition);
    if (Object.keys(partition).length !== keys.length || keys.some((k) => !(k in partition))) {
      throw corrupt(file, `partition ${JSON.stringify(partition)} of entry ${i} does not match the table's partition keys [${keys.join(", ")}]`);
    }
    const bucket = jsonInteger(e.bucket);
    if (bucket === null) throw corrupt(file, `bucket of entry ${i} must be an int, got ${String(e.bucket)}`);
    if (bucket < 0n || bucket > BigInt(INT32_MAX)) throw corrupt(file, `invalid bucket ${bucket} in offsets (entry ${i})`);
    if (e.offset === undefined || e.offset === null) throw corrupt(file, `key offset of entry ${i} must exist`);
    const offset = jsonInteger(e.offset);
    if (offset === null) throw corrupt(file, `offset of entry ${i} must be an int64, got ${String(e.offset)}`);
    if (offset < 0n || offset > INT64_MAX) throw corrupt(file, `invalid offset ${offset} for bucket ${bucket} (entry ${i})`);
    const key = partitionBucketKey(keys, partition, Number(bucket));
    if (out.has(key)) throw corrupt(file, `duplicate partition-bucket ${bucket} in offsets`);
    out.set(key, { partition, bucket: Number(bucket), offset });
  }
  return out;
}

/** `<table>/metadata` */
export function metadataDir(table: FileStoreTable): string {
  return joinPath(table.location, "metadata");
}

/** Writes a new offsets file; returns its full path (the snapshot property value). */
export async function writeOffsetsFile(io: FileIO, tableLocation: string, map: OffsetMap): Promise<string> {
  const path = joinPath(tableLocation, "metadata", `${randomId()}.offsets`);
  const ok = await io.writeFileAtomicNoReplace(path, serializeOffsets(map));
  if (!ok) throw new PaimonError("IO_ERROR", `offsets file ${path} already exists`);
  return path;
}

/**
 * What resolving committed progress needs to know about a table: its files, snapshots,
 * manifests and how partition values are spelled (narrow on purpose: expiry has no FileStoreTable).
 */
export interface ProgressSource {
  readonly io: FileIO;
  readonly location: string;
  readonly partitionFields: readonly DataField[];
  readonly partitionDefaultName: string;
  readonly partitionLegacyName: boolean;
  readonly snapshots: SnapshotManager;
  readonly manifests: ManifestStore;
}

export function progressSourceOf(table: FileStoreTable): ProgressSource {
  return {
    io: table.fileIO,
    location: table.location,
    partitionFields: table.partitionFields,
    partitionDefaultName: table.coreOptions.partitionDefaultName,
    partitionLegacyName: table.coreOptions.partitionLegacyName,
    snapshots: table.snapshotManager,
    manifests: table.manifestStore,
  };
}

const PLAIN_FILE_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * The offsets file a snapshot's `realtime.offsets` property names, or null without the property.
 * The value is the full path paimon-cpp writes (`<table>/metadata/<name>`) or a bare file name;
 * anything that could point elsewhere (another directory, `..`, a backslash) is CORRUPT_FILE
 * naming the snapshot, so neither reads nor expiry ever touch a file outside `metadata/`.
 */
export function offsetsFileOf(tableLocation: string, snapshot: Snapshot): string | null {
  const ref = snapshot.properties?.[REALTIME_OFFSETS_PROPERTY];
  if (ref === undefined || ref === null) return null;
  const dir = joinPath(tableLocation, "metadata");
  const slash = ref.lastIndexOf("/");
  const name = slash < 0 ? ref : ref.slice(slash + 1);
  const bad = (why: string) =>
    new PaimonError("CORRUPT_FILE", `snapshot ${snapshot.id} of ${tableLocation}: property ${REALTIME_OFFSETS_PROPERTY} = ${JSON.stringify(ref)} ${why}`);
  if (!PLAIN_FILE_NAME.test(name) || fileNameProblem(name) !== null) throw bad("does not name a plain file");
  // paimon-cpp writes the full path; only the name is used, resolved in this table's metadata/, so a
  // renamed or copied table (or one opened through an equivalent location) keeps its progress,
  // and no property can make us read or delete anywhere else.
  if (slash >= 0 && !/(^|\/)metadata$/.test(ref.slice(0, slash))) throw bad("is not a file of a metadata directory");
  return joinPath(dir, name);
}

const fileCache = new Map<string, OffsetMap>();

/**
 * Reads and validates an offsets file. `<uuid>.offsets` files are immutable once written, so they
 * are cached by path; anchors have predictable names (a re-created table reuses them), so not.
 */
async function readOffsetsFile(src: ProgressSource, path: string, referencedBy: string, cacheable = true): Promise<OffsetMap> {
  const keys = src.partitionFields.map((f) => f.name);
  const cacheKey = `${path}|${keys.join(",")}`;
  const hit = cacheable ? fileCache.get(cacheKey) : undefined;
  if (hit) return hit;
  let text: string;
  try {
    text = new TextDecoder().decode(await src.io.readFile(path));
  } catch (e) {
    if (e instanceof PaimonError && e.code === "NOT_FOUND") throw new PaimonError("CORRUPT_FILE", `${referencedBy} references missing offsets file ${path}`, { cause: e });
    throw e;
  }
  const map = parseOffsets(text, keys, path);
  if (!cacheable) return map;
  if (fileCache.size > 256) fileCache.clear();
  fileCache.set(cacheKey, map);
  return map;
}

/** The progress a snapshot's own `realtime.offsets` property references (null without one). */
export async function ownOffsetsOf(src: ProgressSource, snapshot: Snapshot): Promise<OffsetMap | null> {
  const path = offsetsFileOf(src.location, snapshot);
  return path === null ? null : readOffsetsFile(src, path, `snapshot ${snapshot.id}`);
}

/** Partition-bucket keys of the data files a snapshot's delta deletes. */
export async function deletedPartitionBuckets(src: ProgressSource, snapshot: Snapshot): Promise<Set<string>> {
  const keys = src.partitionFields.map((f) => f.name);
  const types = src.partitionFields.map((f) => f.type);
  const out = new Set<string>();
  for (const meta of await src.manifests.readManifestList(snapshot.deltaManifestList)) {
    if (meta.numDeletedFiles === 0n) continue;
    for (const e of await src.manifests.readManifest(meta.fileName)) {
      if (e.kind !== FILE_KIND_DELETE) continue;
      const values = fromBinaryRow(e.partition.subarray(4), types);
      out.add(partitionBucketKey(keys, partitionStrings(src.partitionFields, values, src.partitionDefaultName, src.partitionLegacyName), e.bucket));
    }
  }
  return out;
}

/**
 * Progress carried past expired snapshots: `metadata/realtime-progress-<id>.json` (offsets-file
 * format) holds the effective progress at snapshot `id`, written by expiry when the earliest
 * retained snapshot, or an expiring tagged one, does not carry `realtime.offsets` itself. Rollback
 * deletes the anchors of the snapshots it removes, deleteTag that of its expired snapshot, and
 * orphan cleanup any anchor whose snapshot neither exists nor is tagged.
 */
export const PROGRESS_ANCHOR_PREFIX = "realtime-progress-";
/** A progress anchor's file name; group 1 is its snapshot id. */
export const PROGRESS_ANCHOR_NAME = /^realtime-progress-(\d+)\.json$/;

export function progressAnchorPath(tableLocation: string, snapshotId: number): string {
  return joinPath(tableLocation, "metadata", `${PROGRESS_ANCHOR_PREFIX}${snapshotId}.json`);
}

/** Snapshot ids of the progress anchors present, ascending. */
export async function listProgressAnchors(io: FileIO, tableLocation: string): Promise<number[]> {
  const ids: number[] = [];
  for (const f of await io.listStatus(joinPath(tableLocation, "metadata"))) {
    const m = PROGRESS_ANCHOR_NAME.exec(f.name);
    if (!f.isDir && m) ids.push(Number(m[1]));
  }
  return ids.sort((a, b) => a - b);
}

/** Effective progress by snapshot identity (snapshots are immutable; a re-used id after a rollback has other manifests). */
const resolved = new Map<string, OffsetMap>();
const identityOf = (src: ProgressSource, s: Snapshot) => `${src.location}|${s.id}|${s.baseManifestList}|${s.deltaManifestList}|${src.partitionFields.map((f) => f.name).join(",")}`;

/**
 * The effective committed progress at `snapshot`: the progress of the newest snapshot at or
 * before it that carries `realtime.offsets` (or of the progress anchor expiry left), because
 * Java Paimon and pypaimon commit without carrying the property forward. APPEND, COMPACT and
 * other snapshots without the property are transparent; an OVERWRITE without it (another
 * engine's overwrite) resets the partition-buckets whose data files it deleted. paimon-rt's own
 * overwrite, truncate and partition drop write an explicit map whenever they change progress
 * (progressAfterOverwrite), so this rule only decides for other engines' commits.
 */
export async function effectiveOffsets(src: ProgressSource, snapshot: Snapshot | null): Promise<OffsetMap> {
  if (snapshot === null) return new Map();
  const pending: Snapshot[] = []; // without the property and not resolved yet, newest first
  let base: OffsetMap | null = null;
  for (let s: Snapshot = snapshot; ; ) {
    const known = resolved.get(identityOf(src, s));
    if (known) {
      base = known;
      break;
    }
    const own = await ownOffsetsOf(src, s);
    if (own !== null) {
      remember(src, s, own);
      base = own;
      break;
    }
    if (pending.length === 0 && (await src.io.listStatus(joinPath(src.location, "metadata"))).length === 0) {
      // No offsets file or anchor exists: no snapshot has progress (and ordinary tables skip the walk).
      base = new Map();
      pending.push(s);
      break;
    }
    pending.push(s);
    const previous = s.id > 1 ? await src.snapshots.tryGetSnapshot(s.id - 1) : null;
    if (previous === null) {
      base = await anchorBase(src, s.id, snapshot.id);
      break;
    }
    s = previous;
  }
  let map = base;
  for (let i = pending.length - 1; i >= 0; i--) {
    const s = pending[i];
    if (s.commitKind === "OVERWRITE" && map.size > 0) {
      const reset = await deletedPartitionBuckets(src, s);
      if ([...reset].some((k) => map.has(k))) {
        map = new Map(map);
        for (const k of reset) map.delete(k);
      }
    }
    remember(src, s, map);
  }
  return map;
}

function remember(src: ProgressSource, s: Snapshot, map: OffsetMap): void {
  if (resolved.size > 4096) resolved.clear();
  resolved.set(identityOf(src, s), map);
}

/**
 * The oldest snapshot left is `bottom` and carries no progress: the newest anchor from `bottom`
 * to `top`, if any (one past `bottom` is left by an interrupted expiry). Older anchors belong to
 * tagged snapshots or to an earlier expiry: they describe progress before snapshots no longer
 * present, so none of them is this chain's base.
 */
async function anchorBase(src: ProgressSource, bottom: number, top: number): Promise<OffsetMap> {
  if (bottom <= 1) return new Map();
  const anchors = (await listProgressAnchors(src.io, src.location)).filter((id) => id >= bottom && id <= top);
  if (anchors.length === 0) return new Map();
  const id = anchors[anchors.length - 1];
  return readOffsetsFile(src, progressAnchorPath(src.location, id), `the progress anchor of snapshot ${id}`, false);
}

/**
 * The snapshot-properties hook of an overwrite, truncate or partition drop (seed 000: these reset
 * progress): the base snapshot's effective progress without the entries of the partitions
 * `overwritten` accepts (all when null), as a new offsets file (an empty one is a durable reset).
 * Unchanged progress keeps the base snapshot's own property; a table that never had progress
 * gets none. Paths written are pushed to `written` (the caller deletes the unpublished ones).
 */
export function progressAfterOverwrite(
  table: FileStoreTable,
  overwritten: ((partition: Readonly<Record<string, string>>) => boolean) | null,
  written: string[],
): (base: Snapshot | null) => Promise<Record<string, string>> {
  return async (base): Promise<Record<string, string>> => {
    const current = await tableOffsetsOf(table, base);
    const next: OffsetMap = new Map([...current].filter(([, e]) => overwritten !== null && !overwritten(e.partition)));
    const ownProperty = base !== null && offsetsFileOf(table.location, base) !== null;
    if (next.size === current.size && (ownProperty || current.size === 0)) return {};
    const path = await writeOffsetsFile(table.fileIO, table.location, next);
    written.push(path);
    return { [REALTIME_OFFSETS_PROPERTY]: path };
  };
}

/** Deletes the offsets files an operation wrote but did not publish in snapshot `published`. */
export async function deleteUnpublishedOffsets(table: FileStoreTable, written: readonly string[], published: number | null): Promise<void> {
  if (written.length === 0) return;
  const snapshot = published === null ? null : await table.snapshotManager.tryGetSnapshot(published);
  const kept = snapshot === null ? null : offsetsFileOf(table.location, snapshot);
  for (const p of written) if (p !== kept) await table.fileIO.delete(p).catch(() => false);
}

/** The effective progress of a table at a snapshot (see effectiveOffsets). */
export async function tableOffsetsOf(table: FileStoreTable, snapshot: Snapshot | null): Promise<OffsetMap> {
  const map = await effectiveOffsets(progressSourceOf(table), snapshot);
  if (snapshot !== null) bySnapshot.set(snapshot, { location: table.location, fields: table.partitionFields, map });
  return map;
}

/**
 * `tableOffsetsOf` answers by snapshot object (and the table location and partition fields they
 * were resolved for): a real-time plan of the cached latest snapshot finds its progress without
 * building the identity key, an object per call or a promise.
 */
const bySnapshot = new WeakMap<Snapshot, { readonly location: string; readonly fields: readonly DataField[]; readonly map: OffsetMap }>();

/** What `tableOffsetsOf(table, snapshot)` returned before for this snapshot object, else undefined. */
export function knownTableOffsets(table: FileStoreTable, snapshot: Snapshot | null): OffsetMap | undefined {
  if (snapshot === null) return undefined;
  const known = bySnapshot.get(snapshot);
  if (known === undefined || known.location !== table.location) return undefined;
  const fields = table.partitionFields;
  if (known.fields !== fields && (known.fields.length !== fields.length || known.fields.some((f, i) => f.name !== fields[i].name))) return undefined;
  return known.map;
}

/** Logical partition strings of internal partition values (reference §1.6). */
export function partitionStrings(fields: readonly DataField[], values: readonly unknown[], defaultName: string, legacyName: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  fields.forEach((f, i) => {
    out[f.name] = partitionValueString(values[i], f.type, legacyName) ?? defaultName;
  });
  return out;
}

/** Logical partition strings of a table's internal partition values. */
export function tablePartitionStrings(table: FileStoreTable, values: readonly unknown[]): Record<string, string> {
  return partitionStrings(table.partitionFields, values, table.coreOptions.partitionDefaultName, table.coreOptions.partitionLegacyName);
}

/** Logical partition strings of a serialized partition BinaryRow. */
export function partitionStringsOfRow(table: FileStoreTable, row: Uint8Array): Record<string, string> {
  const fields = table.partitionFields;
  const values = fromBinaryRow(
    row.subarray(4),
    fields.map((f) => f.type),
  );
  return tablePartitionStrings(table, values);
}

/**
 * Recovery: the durable progress of committed snapshots. A snapshot committed by another engine
 * (Java Paimon, pypaimon), which does not carry `realtime.offsets`, reports the progress of the
 * newest snapshot before it that does; another engine's overwrite resets the partition-buckets
 * whose files it deleted (see effectiveOffsets).
 */
export class RealtimeSnapshotOffsets {
  /** Every partition-bucket's exclusive committed end offset in a snapshot (latest by default). */
  static async readAllOffsets(table: FileStoreTable, snapshotId?: number): Promise<Array<{ partition: Record<string, string>; bucket: number; offset: bigint }>> {
    const snapshot = snapshotId === undefined ? await table.latestSnapshot() : await table.snapshot(snapshotId);
    return sortedEntries(await tableOffsetsOf(table, snapshot)).map((e) => ({ partition: { ...e.partition }, bucket: e.bucket, offset: e.offset }));
  }

  /** The exclusive committed end offset of one partition-bucket, or -1n when it has none. */
  static async readOffset(table: FileStoreTable, snapshotId: number | undefined, target: RealtimePartitionBucket | { partition?: Record<string, unknown>; bucket: number }): Promise<bigint> {
    const snapshot = snapshotId === undefined ? await table.latestSnapshot() : await table.snapshot(snapshotId);
    const partition: Record<string, string> = {};
    for (const [k, v] of Object.entries(target.partition ?? {})) partition[k] = String(v);
    const map = await tableOffsetsOf(table, snapshot);
    return map.get(partitionBucketKey(table.schema.partitionKeys, partition, target.bucket))?.offset ?? -1n;
  }
}
