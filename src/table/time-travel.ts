// Time travel from a table's options, as Java Paimon 1.4.2's batch scan does
// (`CoreOptions.startupMode`, `AbstractDataTableScan.createStartingScanner(false)`, checked as
// `SchemaValidation.validateStartupMode`): `scan.snapshot-id`, `scan.tag-name`,
// `scan.timestamp-millis`, `scan.timestamp` and `scan.mode` choose the snapshot a scan reads.
// Parsed when a table with such options is loaded (this module is imported only then, keeping it
// out of query bundles of other tables), refused at `newScan`, resolved when the scan plans (Java
// `StaticFromSnapshotStartingScanner`, `StaticFromTagStartingScanner`,
// `StaticFromTimestampStartingScanner`, `CompactedStartingScanner`, `FullCompactedStartingScanner`).
// It imports no other module of the library at run time (only types and the error class): a
// query bundle keeps it in a chunk of its own, splitting no shared chunk.
import { PaimonError } from "../error.js";
import type { ManifestEntry } from "../spec/manifest.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { TablePaths } from "./paths.js";
import type { SnapshotManager } from "./snapshot-manager.js";

/** Java `Long.MAX_VALUE`, the commit identifier of batch commits (spec/snapshot.ts `BATCH_COMMIT_IDENTIFIER`). */
const LONG_MAX = 0x7fffffffffffffffn;

/** What a batch scan reads instead of the latest snapshot. */
export type TimeTravel =
  | { readonly kind: "snapshot"; readonly id: number }
  | { readonly kind: "tag"; readonly name: string }
  | { readonly kind: "timestamp"; readonly millis: number; readonly key: string }
  /** The newest COMPACT snapshot (of a full compaction when `deltaCommits` is set), else the latest. */
  | { readonly kind: "compacted"; readonly deltaCommits: number | null }
  /**
   * `from-file-creation-time` (`scan.file-creation-time-millis`): the latest snapshot's files
   * created at or after `millis`; `from-creation-timestamp` (`scan.creation-time-millis`): the
   * first snapshot at or after `millis` when it lies within the snapshots, else the former.
   */
  | { readonly kind: "file-creation" | "creation"; readonly millis: number }
  /** Java's INCREMENTAL startup mode: the changes between two snapshots, tags or times (src/scan/incremental-scan.ts). */
  | Incremental;

/** `incremental-between-scan-mode` (Java `IncrementalBetweenScanMode`). */
export type IncrementalScanMode = "auto" | "delta" | "changelog" | "diff";

/**
 * An incremental batch scan: `incremental-between` (two snapshot ids or two tag names, start
 * exclusive) or `incremental-between-timestamp` (two epoch-millisecond or local timestamps).
 */
export interface Incremental {
  readonly kind: "incremental";
  readonly between: readonly [string, string] | null;
  readonly timestamps: readonly [number, number] | null;
  readonly scanMode: IncrementalScanMode;
  /** `incremental-between-tag-to-snapshot`: two tags read as the snapshot range between them, not their diff. */
  readonly tagToSnapshot: boolean;
}

const MODES = new Set(["default", "latest-full", "full", "latest", "compacted-full", "from-timestamp", "from-snapshot", "from-snapshot-full", "incremental", "from-creation-timestamp", "from-file-creation-time"]);
/** Options whose scans this library does not perform. */
const REFUSED = ["scan.version", "incremental-to-auto-tag"];
const INCREMENTAL_KEYS = ["incremental-between", "incremental-between-timestamp", "incremental-to-auto-tag"];
/**
 * The time travel the options of `t` ask of a batch scan, null for the latest snapshot;
 * UNSUPPORTED naming an option this library does not honour, INVALID_ARGUMENT for a bad value
 * or a combination Java refuses.
 */
export function timeTravelOf(t: { readonly identifier: string; readonly schema: { readonly options: Readonly<Record<string, string>> }; readonly paths: TablePaths }): TimeTravel | null {
  const o = t.schema.options;
  const table = t.identifier;
  const modeText = o["scan.mode"] ?? o["log.scan"];
  const millis = o["scan.timestamp-millis"] ?? o["log.scan.timestamp-millis"];
  const timestamp = o["scan.timestamp"];
  const id = o["scan.snapshot-id"];
  const tag = o["scan.tag-name"];
  const watermark = o["scan.watermark"];
  const fileCreation = o["scan.file-creation-time-millis"];
  const creation = o["scan.creation-time-millis"];
  const fail = (code: "UNSUPPORTED" | "INVALID_ARGUMENT", text: string) => new PaimonError(code, `scan of table ${table}: ${text}`);
  const set = (keys: Array<[string, string | undefined]>) => keys.filter(([, v]) => v !== undefined).map(([k]) => k);
  for (const key of REFUSED) if (o[key] !== undefined) throw fail("UNSUPPORTED", `option ${key}=${o[key]} is not supported`);
  const incremental = INCREMENTAL_KEYS.some((k) => o[k] !== undefined);
  if (modeText === undefined && millis === undefined && timestamp === undefined && id === undefined && tag === undefined && watermark === undefined && fileCreation === undefined && creation === undefined && !incremental) return null;
  let mode = (modeText ?? "default").toLowerCase();
  if (!MODES.has(mode)) throw fail("INVALID_ARGUMENT", `scan.mode=${modeText} is not one of ${[...MODES].join(", ")}`);
  // (Java CoreOptions.startupMode)
  if (mode === "default") {
    mode =
      millis !== undefined || timestamp !== undefined
        ? "from-timestamp"
        : id !== undefined || tag !== undefined || watermark !== undefined
          ? "from-snapshot"
          : fileCreation !== undefined
            ? "from-file-creation-time"
            : creation !== undefined
              ? "from-creation-timestamp"
              : incremental
                ? "incremental"
                : "latest-full";
  }
  const fc: [string, string | undefined] = ["scan.file-creation-time-millis", fileCreation];
  if (mode === "incremental") return incrementalOf(o, fail, set([["scan.timestamp-millis", millis], ["scan.timestamp", timestamp], ["scan.snapshot-id", id], ["scan.tag-name", tag], fc]));
  // Java SchemaValidation: a snapshot or timestamp mode takes no incremental option
  const strayIncremental = INCREMENTAL_KEYS.filter((k) => o[k] !== undefined);
  if (strayIncremental.length > 0) throw fail("INVALID_ARGUMENT", `${strayIncremental.join(", ")} cannot be set with scan.mode ${mode}`);
  // Java SchemaValidation.validateStartupMode: the options a mode reads, exactly one where it
  // takes one of several; the ones it does not read must be absent.
  const exactlyOne = (keys: Array<[string, string | undefined]>, absent: Array<[string, string | undefined]>) => {
    const present = set(keys);
    if (present.length !== 1) throw fail("INVALID_ARGUMENT", `scan.mode ${mode} needs exactly one of ${keys.map(([k]) => k).join(", ")}${present.length > 1 ? ` (${present.join(" and ")} are set)` : ""}`);
    const conflict = set(absent);
    if (conflict.length > 0) throw fail("INVALID_ARGUMENT", `${conflict.join(", ")} cannot be set with scan.mode ${mode} and ${present[0]}`);
    return present[0];
  };
  const ms: [string, string | undefined] = ["scan.timestamp-millis", millis];
  const ts: [string, string | undefined] = ["scan.timestamp", timestamp];
  const sid: [string, string | undefined] = ["scan.snapshot-id", id];
  const tg: [string, string | undefined] = ["scan.tag-name", tag];
  if (mode === "from-file-creation-time") {
    // (Java: scan.timestamp may be set alongside, and is ignored)
    const key = exactlyOne([fc], [sid, ms, tg]);
    return { kind: "file-creation", millis: long(fileCreation!, key, fail) };
  }
  if (mode === "from-timestamp") {
    const key = exactlyOne([ms, ts], [sid, tg, fc]);
    return { kind: "timestamp", millis: key === ms[0] ? long(millis!, key, fail) : localMillis(timestamp!, fail), key };
  }
  if (mode === "from-snapshot" || mode === "from-snapshot-full") {
    const key = mode === "from-snapshot" ? exactlyOne([sid, tg, ["scan.watermark", watermark]], [ms, ts, fc]) : exactlyOne([sid], [ms, ts, tg, fc]);
    if (key === "scan.watermark") throw fail("UNSUPPORTED", `option scan.watermark=${watermark} is not supported`);
    if (key === tg[0]) {
      t.paths.tag(tag!, `scan of table ${table}: scan.tag-name`); // the name stays one file of tag/
      return { kind: "tag", name: tag! };
    }
    const snapshotId = long(id!, key, fail);
    if (snapshotId < 1) throw fail("INVALID_ARGUMENT", `scan.snapshot-id=${id} is not a positive snapshot id`);
    return { kind: "snapshot", id: snapshotId };
  }
  const stray = set([ms, ts, sid, tg, fc]);
  if (stray.length > 0) throw fail("INVALID_ARGUMENT", `${stray.join(", ")} must not be set with scan.mode ${mode}`);
  if (mode === "from-creation-timestamp") {
    if (creation === undefined) throw fail("INVALID_ARGUMENT", `scan.creation-time-millis must be set with scan.mode ${mode}`);
    return { kind: "creation", millis: long(creation, "scan.creation-time-millis", fail) };
  }
  if (mode !== "compacted-full") return null; // latest-full, full, latest: the latest snapshot in a batch scan
  const deltaCommits = o["full-compaction.delta-commits"];
  if (deltaCommits === undefined && o["changelog-producer"]?.toLowerCase() !== "full-compaction") return { kind: "compacted", deltaCommits: null };
  const n = deltaCommits === undefined ? 1 : long(deltaCommits, "full-compaction.delta-commits", fail);
  if (n < 1) throw fail("INVALID_ARGUMENT", `full-compaction.delta-commits=${deltaCommits} is not positive`);
  return { kind: "compacted", deltaCommits: n };
}

const SCAN_MODES: ReadonlySet<string> = new Set(["auto", "delta", "changelog", "diff"]);

/**
 * Java's INCREMENTAL startup mode (`SchemaValidation.validateStartupMode`,
 * `CoreOptions.incrementalBetween`, `AbstractDataTableScan.createIncrementalStartingScanner`):
 * exactly one of `incremental-between` / `incremental-between-timestamp`, no snapshot or
 * timestamp option (`stray`).
 */
function incrementalOf(o: Readonly<Record<string, string>>, fail: (code: "UNSUPPORTED" | "INVALID_ARGUMENT", text: string) => Error, stray: string[]): Incremental {
  const present = INCREMENTAL_KEYS.filter((k) => o[k] !== undefined);
  if (present.length !== 1) throw fail("INVALID_ARGUMENT", `scan.mode incremental needs exactly one of ${INCREMENTAL_KEYS.join(", ")}${present.length > 1 ? ` (${present.join(" and ")} are set)` : ""}`);
  if (stray.length > 0) throw fail("INVALID_ARGUMENT", `${stray.join(", ")} cannot be set with ${present[0]}`);
  const modeText = o["incremental-between-scan-mode"] ?? "auto";
  const scanMode = modeText.trim().toLowerCase();
  if (!SCAN_MODES.has(scanMode)) throw fail("INVALID_ARGUMENT", `incremental-between-scan-mode=${modeText} is not one of ${[...SCAN_MODES].join(", ")}`);
  const tagToSnapshot = (o["incremental-between-tag-to-snapshot"] ?? "false").trim().toLowerCase() === "true";
  const key = present[0];
  const text = o[key];
  // (Java String.split: trailing empty parts dropped)
  const parts = text.split(",");
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  if (key === "incremental-between") {
    if (parts.length !== 2) throw fail("INVALID_ARGUMENT", `The incremental-between must specific start(exclusive) and end snapshot, for example, 'incremental-between'='5,10' means changes between snapshot 5 and snapshot 10. But is: ${text}`);
    return { kind: "incremental", between: [parts[0], parts[1]], timestamps: null, scanMode: scanMode as IncrementalScanMode, tagToSnapshot };
  }
  const bad = () => fail("INVALID_ARGUMENT", `The incremental-between-timestamp must specific start(exclusive) and end timestamp. But is: ${text}`);
  if (parts.length !== 2) throw bad();
  const asLong = (p: string) => (/^[+-]?\d+$/.test(p) && Number.isSafeInteger(Number(p)) ? Number(p) : null);
  let start = asLong(parts[0]);
  let end = asLong(parts[1]);
  if (start === null || end === null) {
    // both as local timestamps, as Java when either is not a long
    try {
      start = localMillis(parts[0], fail);
      end = localMillis(parts[1], fail);
    } catch {
      throw bad();
    }
  }
  return { kind: "incremental", between: null, timestamps: [start, end], scanMode: scanMode as IncrementalScanMode, tagToSnapshot };
}

/** A Java long option value within the safe integers. */
function long(text: string, key: string, fail: (code: "INVALID_ARGUMENT", text: string) => Error): number {
  const n = /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw fail("INVALID_ARGUMENT", `${key}=${text} is not an integer`);
  return n;
}

/**
 * `scan.timestamp` in the process's local time zone, to milliseconds (Java
 * `DateTimeUtils.parseTimestampData(text, 3, TimeZone.getDefault())`): `yyyy-MM-dd`, optionally
 * followed by ` HH:mm[:ss[.fraction]]` (or `T`).
 */
function localMillis(text: string, fail: (code: "INVALID_ARGUMENT", text: string) => Error): number {
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*$/.exec(text);
  const f = m?.slice(1, 7).map((v) => Number(v ?? 0)) ?? [];
  const date = new Date(2000, 0, 1);
  if (m) {
    date.setFullYear(f[0], f[1] - 1, f[2]);
    date.setHours(f[3], f[4], f[5], Number((m[7] ?? "0").padEnd(3, "0").slice(0, 3)));
  }
  // the fields must be a real date and time (no February 30, no hour 25)
  if (!m || date.getMonth() !== f[1] - 1 || date.getDate() !== f[2] || f[3] > 23 || f[4] > 59 || f[5] > 59) throw fail("INVALID_ARGUMENT", `scan.timestamp=${text} is not a timestamp like 2024-01-31 12:00:00`);
  return date.getTime();
}

/**
 * The snapshot `travel` reads: null only for a compacted-full scan of a table without
 * snapshots; NOT_FOUND for a snapshot or tag that does not exist and a timestamp before every
 * snapshot. `retainedOnly` (real-time scans): a tag whose snapshot has expired is NOT_FOUND too.
 */
export async function resolveTimeTravel(snapshots: SnapshotManager, table: string, travel: TimeTravel, retainedOnly: boolean): Promise<TravelSnapshot | null> {
  switch (travel.kind) {
    case "snapshot": {
      const s = await snapshots.tryGetSnapshot(travel.id);
      if (s === null) throw new PaimonError("NOT_FOUND", `scan of table ${table}: scan.snapshot-id ${travel.id} does not exist or has expired (${await snapshots.describeRetained()})`);
      return s;
    }
    case "tag": {
      const s = await snapshots.tryGetTag(travel.name);
      if (s === null) throw new PaimonError("NOT_FOUND", `scan of table ${table}: tag '${travel.name}' does not exist (${snapshots.paths.tag(travel.name)})`);
      if (retainedOnly && (await snapshots.tryGetSnapshot(s.id)) === null) {
        throw new PaimonError("NOT_FOUND", `real-time scan of table ${table}: snapshot ${s.id} of tag '${travel.name}' has expired; a real-time scan reads retained snapshots only (read the tag without the real-time context)`);
      }
      return s;
    }
    case "timestamp": {
      const found = await earlierOrEqualTimeMillis(snapshots, travel.millis);
      if (found === null) throw new PaimonError("NOT_FOUND", `scan of table ${table}: no snapshot is earlier than or equal to ${travel.key} (${new Date(travel.millis).toISOString()}, ${travel.millis} ms) (${await snapshots.describeRetained()})`);
      return found;
    }
    case "file-creation":
    case "creation":
      return creationStart(snapshots, travel);
    case "incremental":
      // (batch scans plan these in src/scan/incremental-scan.ts; a real-time union reads one snapshot)
      throw new PaimonError("UNSUPPORTED", `scan of table ${table}: incremental options are for batch scans (a real-time scan reads one snapshot)`);
    case "compacted": {
      // newest first, as Java `SnapshotManager.pickOrLatest`
      const ids = await snapshots.listSnapshotIds();
      for (let i = ids.length - 1; i >= 0; i--) {
        const s = await snapshots.tryGetSnapshot(ids[i]);
        if (s === null || s.commitKind !== "COMPACT") continue;
        const n = travel.deltaCommits;
        if (n === null || s.commitIdentifier % BigInt(n) === 0n || s.commitIdentifier === LONG_MAX) return s;
      }
      return snapshots.latestSnapshot();
    }
  }
}

/**
 * The snapshot a scan with time travel reads; for a creation-time scan of the latest snapshot
 * (Java `FileCreationTimeStartingScanner`) with `kept`: the files the scan keeps ({@link createdSince}).
 */
export type TravelSnapshot = Snapshot & { readonly kept?: (e: ManifestEntry) => boolean };

/**
 * The start of a creation-time scan (Java `createCreationTimestampStartingScanner`,
 * `FileCreationTimeStartingScanner`): the first snapshot at or after the time, or the latest
 * snapshot with the files created since then.
 */
async function creationStart(snapshots: SnapshotManager, travel: { readonly kind: "file-creation" | "creation"; readonly millis: number }): Promise<TravelSnapshot | null> {
  const from = travel.kind === "creation" ? await firstSnapshotSince(snapshots, travel.millis) : null;
  if (from !== null) return from;
  const latest = await snapshots.latestSnapshot();
  return latest && { ...latest, kept: createdSince(travel.millis) };
}

/**
 * Java `createCreationTimestampStartingScanner`: the snapshot after the newest one earlier than
 * `millis` (`TimeTravelUtil.earlierThanTimeMills`), null when every snapshot is at or after
 * `millis` or none is after it (then the latest snapshot's files are filtered by creation time).
 */
export async function firstSnapshotSince(snapshots: SnapshotManager, millis: number): Promise<Snapshot | null> {
  const before = await earlierOrEqualTimeMillis(snapshots, millis - 1); // (integer millis: earlier than `millis`)
  return before === null ? null : snapshots.tryGetSnapshot(before.id + 1);
}

/**
 * Keeps the entries of files created at or after `millis` (epoch ms), as Java's
 * `entry.file().creationTimeEpochMillis() >= startupMillis`: the file's `_CREATION_TIME` is the
 * writer's local wall clock, read in this process's time zone (Java: the JVM's). Files without a
 * creation time are kept.
 */
export function createdSince(millis: number): (e: ManifestEntry) => boolean {
  return (e) => e.file.creationTime === null || epochOfLocalWall(e.file.creationTime) >= millis;
}

/** Epoch millis of a local wall-clock time stored as UTC millis (Java `LocalDateTime.atZone(ZoneId.systemDefault())`). */
function epochOfLocalWall(wall: number): number {
  const guess = wall + new Date(wall).getTimezoneOffset() * 60_000;
  return wall + new Date(guess).getTimezoneOffset() * 60_000;
}

/** The newest snapshot at or before `millis`, null when none (Java `earlierOrEqualTimeMills`: binary search, times ascending with ids). */
export async function earlierOrEqualTimeMillis(snapshots: SnapshotManager, millis: number): Promise<Snapshot | null> {
  const ids = await snapshots.listSnapshotIds();
  let found: Snapshot | null = null;
  for (let lo = 0, hi = ids.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >> 1;
    const s = await snapshots.tryGetSnapshot(ids[mid]);
    if (s !== null && s.timeMillis <= millis) {
      found = s;
      lo = mid + 1;
    } else if (s === null) lo = mid + 1; // expired meanwhile: older ones are gone too
    else hi = mid - 1;
  }
  return found;
}
