// Time travel from a table's options, as Java Paimon 1.4.2's batch scan does
// (`CoreOptions.startupMode`, `AbstractDataTableScan.createStartingScanner(false)`, checked as
// `SchemaValidation.validateStartupMode`): `scan.snapshot-id`, `scan.tag-name`,
// `scan.timestamp-millis`, `scan.timestamp` and `scan.mode` choose the snapshot a scan reads.
// Checked when a scan is created; resolved (src/table/time-travel-resolve.ts) when it plans.
import { PaimonError } from "../error.js";
import { checkTagName } from "./tags.js";

/** What a batch scan reads instead of the latest snapshot. */
export type TimeTravel =
  | { readonly kind: "snapshot"; readonly id: number }
  | { readonly kind: "tag"; readonly name: string }
  | { readonly kind: "timestamp"; readonly millis: number; readonly key: string }
  /** The newest COMPACT snapshot (of a full compaction when `deltaCommits` is set), else the latest. */
  | { readonly kind: "compacted"; readonly deltaCommits: number | null };

const MODES = new Set(["default", "latest-full", "full", "latest", "compacted-full", "from-timestamp", "from-snapshot", "from-snapshot-full"]);
/** Options whose scans this library does not perform (each chooses files or changes, not one snapshot). */
const REFUSED = ["scan.version", "scan.file-creation-time-millis", "scan.creation-time-millis", "incremental-between", "incremental-between-timestamp", "incremental-to-auto-tag"];
const cache = new WeakMap<object, TimeTravel | null>();

/**
 * The time travel `options` (a table's) ask of a batch scan, null for the latest snapshot;
 * UNSUPPORTED naming an option this library does not honour, INVALID_ARGUMENT for a bad value
 * or a combination Java refuses.
 */
export function timeTravelOf(options: Readonly<Record<string, string>>, table: string): TimeTravel | null {
  let travel = cache.get(options);
  if (travel === undefined) cache.set(options, (travel = parse(options, table)));
  return travel;
}

function parse(o: Readonly<Record<string, string>>, table: string): TimeTravel | null {
  const modeText = o["scan.mode"] ?? o["log.scan"];
  const millis = o["scan.timestamp-millis"] ?? o["log.scan.timestamp-millis"];
  const timestamp = o["scan.timestamp"];
  const id = o["scan.snapshot-id"];
  const tag = o["scan.tag-name"];
  const watermark = o["scan.watermark"];
  const fail = (code: "UNSUPPORTED" | "INVALID_ARGUMENT", text: string) => new PaimonError(code, `scan of table ${table}: ${text}`);
  for (const key of REFUSED) if (o[key] !== undefined) throw fail("UNSUPPORTED", `option ${key}=${o[key]} is not supported (batch scans of one snapshot only)`);
  if (modeText === undefined && millis === undefined && timestamp === undefined && id === undefined && tag === undefined && watermark === undefined) return null;
  let mode = (modeText ?? "default").toLowerCase();
  if (!MODES.has(mode)) {
    const known = ["from-creation-timestamp", "from-file-creation-time", "incremental"].includes(mode);
    throw fail(known ? "UNSUPPORTED" : "INVALID_ARGUMENT", `scan.mode=${modeText} is ${known ? "not supported" : `not one of ${[...MODES, "from-creation-timestamp", "from-file-creation-time", "incremental"].join(", ")}`}`);
  }
  if (mode === "default") mode = millis !== undefined || timestamp !== undefined ? "from-timestamp" : id !== undefined || tag !== undefined || watermark !== undefined ? "from-snapshot" : "latest-full";
  // Java SchemaValidation.validateStartupMode: the options a mode reads, exactly one where it
  // takes one of several; the ones it does not read must be absent.
  const set = (keys: Array<[string, string | undefined]>) => keys.filter(([, v]) => v !== undefined).map(([k]) => k);
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
  if (mode === "from-timestamp") {
    const key = exactlyOne([ms, ts], [sid, tg]);
    return { kind: "timestamp", millis: key === ms[0] ? long(millis!, key, fail) : localMillis(timestamp!, fail), key };
  }
  if (mode === "from-snapshot" || mode === "from-snapshot-full") {
    const key = mode === "from-snapshot" ? exactlyOne([sid, tg, ["scan.watermark", watermark]], [ms, ts]) : exactlyOne([sid], [ms, ts, tg]);
    if (key === "scan.watermark") throw fail("UNSUPPORTED", `option scan.watermark=${watermark} is not supported`);
    if (key === tg[0]) return { kind: "tag", name: checkTagName(tag!, `scan of table ${table}: scan.tag-name`) };
    const snapshotId = long(id!, key, fail);
    if (snapshotId < 1) throw fail("INVALID_ARGUMENT", `scan.snapshot-id=${id} is not a positive snapshot id`);
    return { kind: "snapshot", id: snapshotId };
  }
  const stray = set([ms, ts, sid, tg]);
  if (stray.length > 0) throw fail("INVALID_ARGUMENT", `${stray.join(", ")} must not be set with scan.mode ${mode}`);
  if (mode !== "compacted-full") return null; // latest-full, full, latest: the latest snapshot in a batch scan
  const deltaCommits = o["full-compaction.delta-commits"];
  if (deltaCommits === undefined && o["changelog-producer"]?.toLowerCase() !== "full-compaction") return { kind: "compacted", deltaCommits: null };
  const n = deltaCommits === undefined ? 1 : long(deltaCommits, "full-compaction.delta-commits", fail);
  if (n < 1) throw fail("INVALID_ARGUMENT", `full-compaction.delta-commits=${deltaCommits} is not positive`);
  return { kind: "compacted", deltaCommits: n };
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
