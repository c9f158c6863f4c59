// Partition expiry as Java Paimon 1.4.2's commit runs it (`PartitionExpire`, its strategies
// `values-time` / `update-time` and `PartitionTimeExtractor`): partitions older than
// `partition.expiration-time` are dropped with one OVERWRITE snapshot per batch, through the same
// path as `TableCommit.dropPartitions` (real-time progress and index files of exactly those
// partitions go). Loaded only by tables that set `partition.expiration-time`.
import { PaimonError } from "../error.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import { BATCH_COMMIT_IDENTIFIER } from "../spec/snapshot.js";
import { parseDuration } from "../table/options.js";
import { daysFromCivil, daysInMonth, localWallMillis, MILLIS_PER_DAY } from "../spec/civil-time.js";
import { requireIntOption } from "../table/option-validation.js";
import { partitionValueString } from "../table/paths.js";
import type { FileStoreTable } from "../table/file-store-table.js";
import type { DataField } from "../spec/types.js";
import type { FileStoreCommit } from "./file-store-commit.js";
import { dropPartitions } from "./commit-operations.js";

export const PARTITION_EXPIRATION_TIME = "partition.expiration-time";
const CHECK_INTERVAL = "partition.expiration-check-interval";
const STRATEGY = "partition.expiration-strategy";
const MAX_NUM = "partition.expiration-max-num";
const BATCH_SIZE = "partition.expiration-batch-size";
const FORMATTER = "partition.timestamp-formatter";
const PATTERN = "partition.timestamp-pattern";

/** Options of {@link TableCommit.expirePartitions}; each overrides the table option named. */
export interface PartitionExpireOptions {
  /** Partitions older than this go: a duration ("7 d", "12 h") or milliseconds (default `partition.expiration-time`). */
  expirationTime?: string | number;
  /** `values-time` (the time in the partition values) or `update-time` (the newest file's creation); default `partition.expiration-strategy`. */
  strategy?: "values-time" | "update-time";
  /** Java `DateTimeFormatter` pattern of the partition time (default `partition.timestamp-formatter`). */
  timestampFormatter?: string;
  /** Where the time is in the partition values, such as `$dt $hour:00:00` (default `partition.timestamp-pattern`). */
  timestampPattern?: string;
  /** Drop at most this many partitions (default `partition.expiration-max-num`, 100). */
  maxExpires?: number;
}

interface ExpireConfig {
  expirationTime: number;
  checkInterval: number;
  updateTime: boolean;
  maxNum: number;
  batchSize: number;
  pattern: string | null;
  /** The compiled `partition.timestamp-formatter`, null for Java's default formatters. */
  formatter: Token[] | null;
}

const invalid = (key: string, value: string, why: string) => new PaimonError("INVALID_ARGUMENT", `option ${key}: '${value}' ${why}`);

/**
 * The partition-expiry options of a table (Java `CoreOptions`), checked: null when
 * `partition.expiration-time` is not set. INVALID_ARGUMENT naming the option for a bad value;
 * UNSUPPORTED for a formatter using pattern letters beyond numeric date and time fields.
 */
export function partitionExpireConfig(o: Readonly<Record<string, string>>, overrides: PartitionExpireOptions = {}): ExpireConfig | null {
  const strategy = overrides.strategy ?? o[STRATEGY] ?? "values-time";
  if (strategy !== "values-time" && strategy !== "update-time") throw invalid(STRATEGY, strategy, "is not values-time or update-time");
  const maxNum = overrides.maxExpires ?? (o[MAX_NUM] === undefined ? 100 : requireIntOption(MAX_NUM, o[MAX_NUM]));
  // Java's Stream.limit fails on a negative count and its dropPartitions on an empty list (0)
  if (!Number.isSafeInteger(maxNum) || maxNum < 1) throw invalid(MAX_NUM, String(maxNum), "must be a positive integer");
  const formatterText = overrides.timestampFormatter ?? o[FORMATTER];
  const formatter = formatterText === undefined ? null : compileFormatter(formatterText);
  const checkInterval = parseDuration(o[CHECK_INTERVAL] ?? "1 h", CHECK_INTERVAL);
  const expiration = overrides.expirationTime ?? o[PARTITION_EXPIRATION_TIME];
  if (expiration === undefined) return null;
  const expirationTime = typeof expiration === "number" ? expiration : parseDuration(expiration, PARTITION_EXPIRATION_TIME);
  if (!Number.isFinite(expirationTime) || expirationTime < 0) throw invalid(PARTITION_EXPIRATION_TIME, String(expiration), "is not a duration");
  return {
    expirationTime,
    checkInterval,
    updateTime: strategy === "update-time",
    maxNum,
    batchSize: o[BATCH_SIZE] === undefined ? maxNum : requireIntOption(BATCH_SIZE, o[BATCH_SIZE]),
    pattern: overrides.timestampPattern ?? o[PATTERN] ?? null,
    formatter,
  };
}

/** At create / alter: the partition-expiry options of `o` have valid values. */
export function validatePartitionExpireOptions(o: Readonly<Record<string, string>>): void {
  partitionExpireConfig(o);
}

/** Per table object: when its commits last checked for expired partitions (Java's per-committer `lastCheck`). */
const lastChecks = new WeakMap<object, number>();

/**
 * The partition expiry of Java's commit maintenance (`PartitionExpire.expire`): at most once per
 * `partition.expiration-check-interval` per table object (its first commit checks), so a commit
 * in between costs no file-system call (with `end-input.check-partition-expire`, a batch commit
 * always checks); not for `write-only` tables. Returns the dropped partitions, or null when it did not check.
 */
export async function expirePartitionsAfterCommit(table: FileStoreTable, commit: FileStoreCommit, identifier: bigint, now = Date.now()): Promise<Array<Record<string, string>> | null> {
  const config = partitionExpireConfig(table.coreOptions.raw);
  if (config === null || table.partitionFields.length === 0 || table.coreOptions.bool("write-only", false)) return null;
  const last = lastChecks.get(table);
  // end-input.check-partition-expire: a batch commit (the end of a bounded input) always checks
  const endInput = identifier === BATCH_COMMIT_IDENTIFIER && table.coreOptions.bool("end-input.check-partition-expire", false);
  if (config.checkInterval !== 0 && last !== undefined && now <= last + config.checkInterval && !endInput) return null;
  const expired = await expirePartitions(table, commit, config, identifier, now);
  lastChecks.set(table, now);
  return expired;
}

/** `TableCommit.expirePartitions`: checks now, with the table's options overridden by `options`. */
export async function expirePartitionsNow(table: FileStoreTable, commit: FileStoreCommit, options: PartitionExpireOptions, identifier: bigint, now = Date.now()): Promise<Array<Record<string, string>>> {
  if (options === null || typeof options !== "object") throw new PaimonError("INVALID_ARGUMENT", "expirePartitions takes an options object");
  const config = partitionExpireConfig(table.coreOptions.raw, options);
  if (config === null) throw new PaimonError("INVALID_ARGUMENT", `expirePartitions of ${table.identifier} needs an expirationTime (or the table option ${PARTITION_EXPIRATION_TIME})`);
  if (table.partitionFields.length === 0) throw new PaimonError("INVALID_ARGUMENT", `table ${table.identifier} has no partition keys`);
  return expirePartitions(table, commit, config, identifier, now);
}

/**
 * Java `PartitionExpire.doExpire`: the live partitions the strategy finds older than `now` minus
 * the expiration time (in the local wall clock, as Java's `LocalDateTime.now()`), ordered by
 * their values joined with ',', at most `maxNum`, dropped in batches of `batchSize`.
 */
async function expirePartitions(table: FileStoreTable, commit: FileStoreCommit, config: ExpireConfig, identifier: bigint, now: number): Promise<Array<Record<string, string>>> {
  const fields = table.partitionFields;
  const types = fields.map((f) => f.type);
  const keys = fields.map((f) => f.name);
  const defaultName = table.coreOptions.partitionDefaultName;
  const expireWall = localWallMillis(now) - config.expirationTime;
  // Java PartitionEntry: the newest creation time of each partition's files (local wall clock)
  const partitions = new Map<string, { row: Uint8Array; newest: number }>();
  for (const e of await commit.liveEntries()) {
    const key = e.partition.join(",");
    // a file without a creation time (Java fails on it) never makes its partition old
    const created = e.file.creationTime ?? Infinity;
    const p = partitions.get(key);
    if (p === undefined) partitions.set(key, { row: e.partition, newest: created });
    else p.newest = Math.max(p.newest, created);
  }
  const expired: Array<{ values: unknown[]; strings: string[]; joined: string }> = [];
  for (const { row, newest } of partitions.values()) {
    const values = fromBinaryRow(row.subarray(4), types);
    const texts = values.map((v, i) => partitionValueString(v, types[i], true));
    const time = config.updateTime ? newest : partitionTime(keys, javaValueTexts(values, types), config.pattern, config.formatter);
    if (time === null || !(expireWall > time)) continue;
    const strings = texts.map((t) => t ?? defaultName);
    expired.push({ values, strings, joined: strings.join(",") });
  }
  expired.sort((a, b) => (a.joined < b.joined ? -1 : a.joined > b.joined ? 1 : 0));
  const chosen = expired.slice(0, config.maxNum);
  const batch = config.batchSize > 0 && config.batchSize < chosen.length ? config.batchSize : chosen.length;
  for (let i = 0; i < chosen.length; i += batch) {
    const specs = chosen.slice(i, i + batch).map((p) => Object.fromEntries(keys.map((k, j) => [k, p.values[j]])));
    await dropPartitions(table, commit, specs, identifier);
  }
  return chosen.map((p) => Object.fromEntries(keys.map((k, j) => [k, p.strings[j]])));
}

/** Java's strategies and validator see the internal values' toString (a DATE is its day number, bytes are `[B@<hash>`). */
function javaValueTexts(values: readonly unknown[], types: ReadonlyArray<DataField["type"]>): Array<string | null> {
  return values.map((v, i) => {
    const text = partitionValueString(v, types[i], true);
    return text !== null && (types[i].kind === "BINARY" || types[i].kind === "VARBINARY") ? "[B@" : text;
  });
}

export const PARTITION_TIMESTAMP_FORMAT_STRICT = "partition.timestamp-format.strict";

/**
 * Java 1.4.2 `AbstractFileStoreWrite.PartitionTimestampValidator`: with
 * `partition.timestamp-format.strict` and a `partition.timestamp-formatter` or
 * `partition.timestamp-pattern`, a writer for a partition (a write or a compaction) whose values
 * give no time, as values-time partition expiry extracts it, is refused (INVALID_ARGUMENT, Java's
 * message): no partition that values-time expiry could never drop is written. Partition expiry
 * itself is the same either way (Java's strategies keep such a partition). Null when the table does not validate.
 */
export function partitionTimestampValidator(table: FileStoreTable): ((values: readonly unknown[]) => void) | null {
  const o = table.coreOptions;
  const fields = table.partitionFields;
  if (!o.bool(PARTITION_TIMESTAMP_FORMAT_STRICT, false) || fields.length === 0) return null;
  const formatterText = o.raw[FORMATTER];
  const pattern = o.raw[PATTERN] ?? null;
  if (formatterText === undefined && pattern === null) return null;
  const formatter = formatterText === undefined ? null : compileFormatter(formatterText);
  const keys = fields.map((f) => f.name);
  const types = fields.map((f) => f.type);
  return (values) => {
    const texts = javaValueTexts(values, types);
    // a null value: Java's extraction fails (NullPointerException) and so does the write
    if (partitionTime(keys, texts, pattern, formatter) !== null) return;
    const partition = keys.map((k, i) => `${k}=${texts[i] ?? "null"}`).join(", ");
    throw new PaimonError(
      "INVALID_ARGUMENT",
      `table ${table.identifier} (${PARTITION_TIMESTAMP_FORMAT_STRICT}): Partition ${partition} does not match the '${FORMATTER}' or '${PATTERN}' configuration. This might be caused by an incorrectly specified partition field. Please check your partition configuration.`,
    );
  };
}

// ---------------------------------------------------------------------------------------------
// PartitionTimeExtractor
// ---------------------------------------------------------------------------------------------

/**
 * Java `PartitionTimeExtractor.extract` (1.4.2): the partition time as local wall-clock
 * milliseconds (a `LocalDateTime` read as UTC), or null where Java's extraction fails
 * (`DateTimeParseException`, or a null value: the partition is kept). Without a pattern the
 * first value is the time; a pattern has each `$key` replaced by that key's value, in key order.
 */
export function partitionTime(keys: readonly string[], values: ReadonlyArray<string | null>, pattern: string | null, formatter: Token[] | null): number | null {
  let text: string;
  if (pattern === null) {
    if (values[0] === null) return null;
    text = values[0];
  } else {
    text = pattern;
    for (let i = 0; i < keys.length; i++) {
      const value = values[i];
      // Java's replaceAll: a null value throws; '$' and '\' in a value are replacement syntax
      if (value === null || /[$\\]/.test(value)) return null;
      text = text.split(`$${keys[i]}`).join(value);
    }
  }
  return formatter === null ? parseDefault(text) : parseWith(formatter, text);
}

const DEFAULT_TIMESTAMP = /^(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?$/;

/** Java's default formatters (`yyyy-MM-dd HH:mm:ss[.fraction]`, else `yyyy-MM-dd`), resolved leniently: out-of-range fields carry over. */
function parseDefault(text: string): number | null {
  const m = DEFAULT_TIMESTAMP.exec(text);
  if (m === null) return null;
  const n = (i: number) => Number(m[i] ?? 0);
  // LENIENT: LocalDate.of(y, 1, 1).plusMonths(M - 1).plusDays(d - 1), time overflowing into days
  const y = n(1) + Math.floor((n(2) - 1) / 12);
  const month = (((n(2) - 1) % 12) + 12) % 12;
  return wallMillis(y, month + 1, 1) + (n(3) - 1) * 86_400_000 + n(4) * 3_600_000 + n(5) * 60_000 + n(6) * 1000 + Math.floor(Number(((m[7] ?? "") + "000").slice(0, 3)));
}

/** Milliseconds of a proleptic Gregorian wall-clock date at midnight, counted from 1970-01-01. */
const wallMillis = (year: number, month: number, day: number): number => daysFromCivil(year, month, day) * MILLIS_PER_DAY;

type Field = "y" | "u" | "M" | "d" | "H" | "m" | "s";
/** A compiled formatter element: a literal, a number of `min..max` digits, a 2-digit year (base 2000) or a fraction of `width` digits. */
type Token = { lit: string } | { field: Field; min: number; max: number; reduced?: true } | { fraction: number };

/**
 * Java `DateTimeFormatter.ofPattern` for the numeric date and time fields (`y u M d H m s S`),
 * quoted text and literal characters; INVALID_ARGUMENT for what Java refuses, UNSUPPORTED for
 * other pattern letters (text months, am/pm, zones, optional sections).
 */
export function compileFormatter(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "'") {
      let j = i + 1;
      let lit = "";
      for (;;) {
        if (j >= pattern.length) throw invalid(FORMATTER, pattern, "has an unterminated quote");
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") (lit += "'"), (j += 2);
          else break;
        } else lit += pattern[j++];
      }
      tokens.push({ lit: j === i + 1 ? "'" : lit });
      i = j + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      if ("[]{}#".includes(c)) throw new PaimonError("UNSUPPORTED", `option ${FORMATTER}: '${pattern}': '${c}' is not supported`);
      tokens.push({ lit: c });
      i++;
      continue;
    }
    let n = 1;
    while (pattern[i + n] === c) n++;
    i += n;
    if (c === "y" || c === "u") {
      // yy: two digits from 2000; yyyy...: strictly that many digits (EXCEEDS_PAD without a sign)
      tokens.push(n === 2 ? { field: c, min: 2, max: 2, reduced: true } : { field: c, min: n, max: n >= 4 ? n : 19 });
    } else if (c === "M" || c === "d" || c === "H" || c === "m" || c === "s") {
      if (n > 2) {
        if (c === "M") throw new PaimonError("UNSUPPORTED", `option ${FORMATTER}: '${pattern}': month names are not supported`);
        throw invalid(FORMATTER, pattern, `has too many pattern letters: ${c.repeat(n)}`);
      }
      tokens.push({ field: c, min: n, max: n === 1 ? 19 : 2 });
    } else if (c === "S") {
      if (n > 9) throw invalid(FORMATTER, pattern, `has too many pattern letters: ${c.repeat(n)}`);
      tokens.push({ fraction: n });
    } else if ("GQqLwWEecFaBhKkAnNVvzOXxZpg".includes(c)) {
      throw new PaimonError("UNSUPPORTED", `option ${FORMATTER}: '${pattern}': pattern letter '${c}' is not supported`);
    } else {
      throw invalid(FORMATTER, pattern, `has an unknown pattern letter '${c}'`);
    }
  }
  return tokens;
}

const fixedWidth = (t: Token | undefined): number => (t === undefined || "lit" in t ? -1 : "fraction" in t ? t.fraction : t.min === t.max ? t.max : -1);

/**
 * Java `LocalDateTime.parse(text, ofPattern(f))`, falling back to `LocalDate.parse` at midnight,
 * both resolved SMART (a day past the month's end is its last day; 24:00 is the next midnight):
 * wall-clock milliseconds, or null where both throw.
 */
function parseWith(tokens: readonly Token[], text: string): number | null {
  const got: Partial<Record<Field | "S", number>> = {};
  let pos = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if ("lit" in t) {
      if (!text.startsWith(t.lit, pos)) return null;
      pos += t.lit.length;
      continue;
    }
    let run = 0;
    while (pos + run < text.length && text.charCodeAt(pos + run) >= 48 && text.charCodeAt(pos + run) <= 57) run++;
    if ("fraction" in t) {
      if (run < t.fraction) return null;
      got.S = Number(text.slice(pos, pos + t.fraction).padEnd(9, "0"));
      pos += t.fraction;
      continue;
    }
    // adjacent value parsing: a variable-width number leaves the digits of the fixed-width ones after it
    let reserve = 0;
    if (t.min !== t.max) for (let j = k + 1, w = fixedWidth(tokens[j]); w > 0; w = fixedWidth(tokens[++j])) reserve += w;
    const take = Math.min(t.max, run - reserve);
    if (take < t.min) return null;
    const value = Number(text.slice(pos, pos + take));
    if (got[t.field] !== undefined && got[t.field] !== value) return null;
    got[t.field] = t.reduced ? 2000 + value : value;
    pos += take;
  }
  if (pos !== text.length) return null;
  const year = got.u ?? (got.y === undefined || got.y < 1 ? undefined : got.y);
  const { M: month, d: day } = got;
  if (year === undefined || month === undefined || day === undefined || month < 1 || month > 12 || day < 1 || day > 31) return null;
  const date = wallMillis(year, month, Math.min(day, daysInMonth(year, month)));
  const { H: hour, m: minute, s: second, S: nano } = got;
  if (hour === undefined || (minute === undefined && (second !== undefined || nano !== undefined)) || (minute !== undefined && second === undefined && nano !== undefined)) return date;
  const [mi, s, ns] = [minute ?? 0, second ?? 0, nano ?? 0];
  if (mi > 59 || s > 59) return null;
  if (hour === 24 && mi === 0 && s === 0 && ns === 0) return date + 86_400_000;
  if (hour > 23) return null;
  return date + hour * 3_600_000 + mi * 60_000 + s * 1000 + Math.floor(ns / 1e6);
}
