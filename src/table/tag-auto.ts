// Tags the commit creates and expires, as Java Paimon 1.4.2's `TableCommitImpl.maintain` does
// through `TagAutoManager`: `tag.automatic-creation` = `process-time` / `watermark`
// (`TagAutoCreation`, `TagTimeExtractor`, `TagPeriodHandler`: one tag per period, named after the
// period, with `tag.num-retained-max` of them kept), `batch` (Flink's `TagBatchCreation` at the end
// of a batch write: a batch commit here), and expiry of tags past their `tagTimeRetained`
// (`TagTimeExpire`). Times are Java `LocalDateTime`s, held as "wall" milliseconds: the local
// date-time read as if it were UTC. Loaded only by tables that set these options.
import { PaimonError } from "../error.js";
import { daysFromCivil, daysInMonth, localWallMillis, MILLIS_PER_DAY } from "../spec/civil-time.js";
import type { Snapshot } from "../spec/snapshot.js";
import { requireIntOption } from "./option-validation.js";
import { parseDuration } from "./options.js";
import { createTagFile, deleteTag, type TagTarget } from "./tag-manager.js";
import { listTags, type Tag } from "./tags.js";

const MODE = "tag.automatic-creation";
const PERIOD = "tag.creation-period";
const PERIOD_DURATION = "tag.creation-period-duration";
const DELAY = "tag.creation-delay";
const FORMATTER = "tag.period-formatter";
const NUM_RETAINED_MAX = "tag.num-retained-max";
const TIME_EXPIRE_ENABLED = "tag.time-expire-enabled";
const AUTOMATIC_COMPLETION = "tag.automatic-completion";
const BATCH_CUSTOMIZED_NAME = "tag.batch.customized-name";
const PROCESS_TIME_ZONE = "sink.process-time-zone";
const WATERMARK_TIME_ZONE = "sink.watermark-time-zone";
const BATCH_WRITE_TAG_PREFIX = "batch-write-";
/** Java `Long.MIN_VALUE`: a snapshot without a watermark. */
const NO_WATERMARK = -(2n ** 63n);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Mode = "none" | "process-time" | "watermark" | "batch";

const invalid = (key: string, value: string, why: string) => new PaimonError("INVALID_ARGUMENT", `option ${key}: '${value}' ${why}`);

/** Java's enum options: the value matched case-insensitively (`OptionsUtils.convertToEnum`). */
function enumOption<T extends string>(raw: Readonly<Record<string, string>>, key: string, values: readonly T[], fallback: T): T {
  const text = raw[key];
  if (text === undefined) return fallback;
  const found = values.find((v) => v.toUpperCase() === text.toUpperCase());
  if (found === undefined) throw invalid(key, text, `is not one of ${values.join(", ")}`);
  return found;
}

function boolOption(raw: Readonly<Record<string, string>>, key: string, fallback: boolean): boolean {
  const text = raw[key];
  if (text === undefined) return fallback;
  const s = text.trim().toLowerCase();
  if (s !== "true" && s !== "false") throw invalid(key, text, "is not a boolean");
  return s === "true";
}

// ---------------------------------------------------------------- time zones and wall time

/** The offset (ms) of a zone from UTC at an instant. */
type Zone = (epochMs: number) => number;

const systemZone: Zone = (ms) => localWallMillis(ms) - ms;

/** Milliseconds of a proleptic Gregorian date-time read as UTC. */
function wallMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return daysFromCivil(year, month, day) * MILLIS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000;
}

/**
 * Java `ZoneId.of`: `Z` / `UTC` / `GMT` / `UT`, fixed offsets (`+08:00`, `GMT-8`, `UTC+05:30`) and
 * region ids (through Intl); INVALID_ARGUMENT naming `key` otherwise. Unset: the process's zone,
 * as Java's `ZoneId.systemDefault()`.
 */
export function zoneOption(key: string, id: string | undefined): Zone {
  if (id === undefined) return systemZone;
  if (/^(Z|UTC|GMT|UT)$/.test(id)) return () => 0;
  const fixed = /^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(id);
  if (fixed) {
    const [h, m, s] = [Number(fixed[2]), Number(fixed[3] ?? 0), Number(fixed[4] ?? 0)];
    if (h > 18 || m > 59 || s > 59) throw invalid(key, id, "is not a valid zone offset");
    const offset = (fixed[1] === "-" ? -1 : 1) * ((h * 60 + m) * 60 + s) * 1000;
    return () => offset;
  }
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", { timeZone: id, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", era: "short" });
  } catch {
    throw invalid(key, id, "is not a time zone id");
  }
  return (ms) => {
    const parts: Record<string, string> = {};
    for (const p of format.formatToParts(new Date(ms))) parts[p.type] = p.value;
    const year = parts.era === "BC" || parts.era === "B" ? 1 - Number(parts.year) : Number(parts.year);
    const wall = wallMillis(year, Number(parts.month), Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
    return wall - (ms - (((ms % 1000) + 1000) % 1000));
  };
}

const toWall = (zone: Zone, epochMs: number) => epochMs + zone(epochMs);

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** The fields of a wall time: [year, month, day, hour, minute]. */
function fieldsOf(wall: number): [number, number, number, number, number] {
  const d = new Date(wall);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
}

// ---------------------------------------------------------------- periods (TagPeriodHandler)

/** A Java `DateTimeFormatter` of `TagPeriodHandler` (STRICT, fixed-width numeric fields). */
interface PeriodFormat {
  /** Fields in order: y M d H m; `sep` after each field (`-`, ` ` or nothing). */
  readonly fields: ReadonlyArray<{ width: number; sep: string }>;
}

const DAY_FORMAT: PeriodFormat = { fields: [{ width: 4, sep: "-" }, { width: 2, sep: "-" }, { width: 2, sep: "" }] };
const DAY_FORMAT_WITHOUT_DASHES: PeriodFormat = { fields: [{ width: 4, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: "" }] };
const HOUR_FORMAT: PeriodFormat = { fields: [{ width: 4, sep: "-" }, { width: 2, sep: "-" }, { width: 2, sep: " " }, { width: 2, sep: "" }] };
const HOUR_FORMAT_WITHOUT_DASHES: PeriodFormat = { fields: [{ width: 4, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: " " }, { width: 2, sep: "" }] };
const HOUR_FORMAT_WITHOUT_DASHES_AND_SPACES: PeriodFormat = { fields: [{ width: 4, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: "" }] };
const MINUTE_FORMAT: PeriodFormat = { fields: [{ width: 4, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: "" }, { width: 2, sep: "" }] };

function formatWall(format: PeriodFormat, wall: number): string {
  const values = fieldsOf(wall);
  return format.fields.map((f, i) => pad(values[i]!, f.width) + f.sep).join("");
}

/** Java `LocalDateTime.parse(text, formatter)` (missing time fields are 0), or null where it throws. */
function parseWall(format: PeriodFormat, text: string): number | null {
  const pattern = new RegExp(`^${format.fields.map((f) => `([0-9]{${f.width}})${f.sep}`).join("")}$`);
  const m = pattern.exec(text);
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0] = m.slice(1).map(Number) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth(y!, mo!) || h > 23 || mi > 59) return null;
  return wallMillis(y!, mo!, d!, h, mi);
}

/** Java `TagPeriodHandler` of a table: the period, its tag names and which names are auto tags. */
export class TagPeriod {
  constructor(
    /** One period in milliseconds. */
    readonly periodMs: number,
    private readonly format: PeriodFormat,
    /** Daily periods parse only what precedes the first space (Java `DailyTagPeriodHandler.tagToTime`). */
    private readonly daily: boolean,
  ) {}

  /** The wall time a tag name stands for, or null when it is not an auto tag (`tagToTime` throws). */
  tagToTime(name: string): number | null {
    return parseWall(this.format, this.daily ? name.split(" ")[0]! : name);
  }

  isAutoTag(name: string): boolean {
    return this.tagToTime(name) !== null;
  }

  timeToTag(wall: number): string {
    return formatWall(this.format, wall);
  }

  /** The start of the period before the one holding `wall` (Java truncates toward zero). */
  normalizeToPreviousTag(wall: number): number {
    return Math.trunc(wall / this.periodMs) * this.periodMs - this.periodMs;
  }
}

/** Java `TagPeriodHandler.create`: `tag.creation-period-duration` wins over `tag.creation-period`. */
export function tagPeriod(raw: Readonly<Record<string, string>>): TagPeriod {
  const formatter = enumOption(raw, FORMATTER, ["with_dashes", "without_dashes", "without_dashes_and_spaces"] as const, "with_dashes");
  const period = enumOption(raw, PERIOD, ["daily", "hourly", "two-hours"] as const, "daily");
  const duration = raw[PERIOD_DURATION];
  if (duration !== undefined) return new TagPeriod(parseDuration(duration, PERIOD_DURATION), MINUTE_FORMAT, false);
  if (period === "daily") return new TagPeriod(DAY, formatter === "with_dashes" ? DAY_FORMAT : DAY_FORMAT_WITHOUT_DASHES, true);
  if (period === "hourly") return new TagPeriod(HOUR, formatter === "with_dashes" ? HOUR_FORMAT : formatter === "without_dashes" ? HOUR_FORMAT_WITHOUT_DASHES : HOUR_FORMAT_WITHOUT_DASHES_AND_SPACES, false);
  return new TagPeriod(2 * HOUR, HOUR_FORMAT, false);
}

// ---------------------------------------------------------------- configuration

/** The tag-creation and tag-expiry options of a table, checked (Java reads them at `newCommit`). */
export interface TagAutoConfig {
  readonly mode: Mode;
  /** The period (process-time / watermark only). */
  readonly period: TagPeriod | null;
  readonly delayMs: number;
  readonly numRetainedMax: number | null;
  readonly defaultTimeRetainedMs: number | null;
  readonly timeExpireEnabled: boolean;
  readonly automaticCompletion: boolean;
  readonly batchCustomizedName: string | null;
  readonly processZone: Zone;
  readonly watermarkZone: Zone;
}

/**
 * The table's tag options, as Java's `CoreOptions` reads them; INVALID_ARGUMENT naming the option
 * for a bad value, and for a `tag.creation-delay` not shorter than the period (Java
 * `validateDelay`).
 */
export function tagAutoConfig(raw: Readonly<Record<string, string>>): TagAutoConfig {
  const mode = enumOption(raw, MODE, ["none", "process-time", "watermark", "batch"] as const, "none");
  const delayMs = raw[DELAY] === undefined ? 0 : parseDuration(raw[DELAY], DELAY);
  const period = mode === "process-time" || mode === "watermark" ? tagPeriod(raw) : null;
  if (period !== null && !(period.periodMs > delayMs)) {
    const key = raw[PERIOD_DURATION] !== undefined ? PERIOD_DURATION : PERIOD;
    throw invalid(DELAY, raw[DELAY] ?? "0 ms", `must be shorter than one period of ${key} (${period.periodMs} ms)`);
  }
  const customized = raw[BATCH_CUSTOMIZED_NAME];
  return {
    mode,
    period,
    delayMs,
    numRetainedMax: raw[NUM_RETAINED_MAX] === undefined ? null : requireIntOption(NUM_RETAINED_MAX, raw[NUM_RETAINED_MAX]),
    defaultTimeRetainedMs: raw["tag.default-time-retained"] === undefined ? null : parseDuration(raw["tag.default-time-retained"], "tag.default-time-retained"),
    timeExpireEnabled: boolOption(raw, TIME_EXPIRE_ENABLED, true),
    automaticCompletion: boolOption(raw, AUTOMATIC_COMPLETION, false),
    batchCustomizedName: customized === undefined ? null : customized,
    processZone: zoneOption(PROCESS_TIME_ZONE, raw[PROCESS_TIME_ZONE]),
    watermarkZone: zoneOption(WATERMARK_TIME_ZONE, raw[WATERMARK_TIME_ZONE] ?? "UTC"),
  };
}

// ---------------------------------------------------------------- auto tags (TagAutoCreation)

/** Tags by snapshot id ascending, names in listing order (Java `TagManager.tags(filter)`). */
function bySnapshot(tags: readonly Tag[], filter: (name: string) => boolean): Array<{ snapshot: Snapshot; names: string[] }> {
  const out: Array<{ snapshot: Snapshot; names: string[] }> = [];
  for (const t of tags) {
    if (!filter(t.name)) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.snapshot.id === t.snapshot.id) last.names.push(t.name);
    else out.push({ snapshot: t.snapshot, names: [t.name] });
  }
  return out;
}

/** Java `checkAndGetOneAutoTag`: a snapshot holds at most one auto tag. */
function oneAutoTag(names: readonly string[], table: TagTarget): string {
  if (names.length !== 1) throw new PaimonError("CORRUPT_FILE", `${table.name}: there are more than 1 auto-created tags of the same snapshot: ${names.join(",")}`);
  return names[0]!;
}

/**
 * The auto tags of snapshot `snapshotId` when `name` is an auto-tag name of the table's period
 * (Java `validateNoAutoTag`), else null.
 */
export async function autoTagsOfSnapshot(table: TagTarget, name: string, snapshotId: number): Promise<string[] | null> {
  const period = tagPeriod(table.options.raw);
  if (!period.isAutoTag(name)) return null;
  return bySnapshot(await listTags(table.snapshots), (n) => period.isAutoTag(n)).find((g) => g.snapshot.id === snapshotId)?.names ?? [];
}

/**
 * Java's `TagAutoCreation` of one commit object: created when it first commits (Java: at
 * `newCommit`) from the newest auto tag, then after each commit it walks the snapshots not yet
 * considered and tags the first one of each new period — once the snapshot's time (its commit
 * time in `sink.process-time-zone`, or its watermark in `sink.watermark-time-zone`) minus
 * `tag.creation-delay` reaches the end of the period after the last tagged one — with the name of
 * the period before the snapshot's (or, with `tag.automatic-completion`, the next period of the
 * series), then keeps the newest `tag.num-retained-max` auto tags.
 */
export class TagAutoCreation {
  private constructor(
    private readonly table: TagTarget,
    private readonly config: TagAutoConfig,
    private readonly period: TagPeriod,
    private nextSnapshot: number,
    private nextTag: number | null,
  ) {}

  static async create(table: TagTarget, config: TagAutoConfig): Promise<TagAutoCreation> {
    const period = config.period!;
    const groups = bySnapshot(await listTags(table.snapshots), (n) => period.isAutoTag(n));
    const last = groups[groups.length - 1];
    if (last === undefined) return new TagAutoCreation(table, config, period, (await table.snapshots.earliestSnapshotId()) ?? 1, null);
    const time = period.tagToTime(oneAutoTag(last.names, table))!;
    return new TagAutoCreation(table, config, period, last.snapshot.id + 1, time + period.periodMs);
  }

  /** Java `TagAutoCreation.run`: every snapshot from the next one to the latest (skipping expired ones). */
  async run(now: Date): Promise<void> {
    const { snapshots } = this.table;
    for (;;) {
      const snapshot = await snapshots.tryGetSnapshot(this.nextSnapshot);
      if (snapshot !== null) {
        await this.tryToCreateTag(snapshot, now);
        this.nextSnapshot++;
      } else {
        const earliest = await snapshots.earliestSnapshotId();
        if (earliest === null || earliest <= this.nextSnapshot) break;
        this.nextSnapshot = earliest;
      }
    }
  }

  /** Java `TagTimeExtractor.extract`: null for a watermark-tagged table's snapshot without a watermark. */
  private timeOf(snapshot: Snapshot): number | null {
    if (this.config.mode === "process-time") return toWall(this.config.processZone, snapshot.timeMillis);
    if (snapshot.watermark === null || snapshot.watermark === NO_WATERMARK) return null;
    return toWall(this.config.watermarkZone, Number(snapshot.watermark));
  }

  private async tryToCreateTag(snapshot: Snapshot, now: Date): Promise<void> {
    const time = this.timeOf(snapshot);
    if (time === null) return;
    const { period } = this;
    if (this.nextTag !== null && time - this.config.delayMs < this.nextTag + period.periodMs) return;
    const thisTag = this.config.automaticCompletion && this.nextTag !== null ? this.nextTag : period.normalizeToPreviousTag(time);
    const name = period.timeToTag(thisTag);
    // as Java's createTag(ignoreIfExists): a tag of that name (of any snapshot) stays
    if (!(await this.table.snapshots.io.exists(this.table.snapshots.paths.tag(name)))) {
      const autoTags = await autoTagsOfSnapshot(this.table, name, snapshot.id);
      if (autoTags !== null && autoTags.length > 0) throw new PaimonError("ALREADY_EXISTS", `${this.table.name}: snapshot ${snapshot.id} is already auto-tagged with [${autoTags.join(", ")}]`);
      await createTagFile(this.table, name, snapshot, this.config.defaultTimeRetainedMs, now);
    }
    this.nextTag = thisTag + period.periodMs;
    const max = this.config.numRetainedMax;
    if (max === null) return;
    // only auto tags count; the oldest go
    const groups = bySnapshot(await listTags(this.table.snapshots), (n) => period.isAutoTag(n));
    for (const group of groups.slice(0, Math.max(0, groups.length - max))) await deleteIfExists(this.table, oneAutoTag(group.names, this.table));
  }
}

/** Java's `TagManager.deleteTag` only warns about a tag that is gone (another process deleted it). */
async function deleteIfExists(table: TagTarget, name: string): Promise<void> {
  await deleteTag(table, name).catch((e: unknown) => {
    if (!(e instanceof PaimonError && e.code === "NOT_FOUND")) throw e;
  });
}

// ---------------------------------------------------------------- batch tags (TagBatchCreation)

/**
 * Java's `TagBatchCreation.createTag` (Flink runs it when a batch write ends; here after a batch
 * commit): tag `batch-write-<yyyy-MM-dd>` of the latest snapshot's commit date in
 * `sink.process-time-zone` (or `tag.batch.customized-name`), replacing a tag of that name; then,
 * with `tag.num-retained-max`, the oldest tags of the table (any, not only these) go until that
 * many remain — whole snapshots' tags first, within the last snapshot the oldest files first.
 */
export async function createBatchTag(table: TagTarget, config: TagAutoConfig, now: Date): Promise<void> {
  const latest = await table.snapshots.latestSnapshot();
  if (latest === null) return;
  const [y, m, d] = fieldsOf(toWall(config.processZone, latest.timeMillis));
  const name = config.batchCustomizedName ?? `${BATCH_WRITE_TAG_PREFIX}${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
  try {
    await deleteIfExists(table, name);
    await createTagFile(table, name, latest, config.defaultTimeRetainedMs, now);
  } catch {
    // Java: leaves no half-made tag behind ("you can create this tag manually")
    await deleteIfExists(table, name).catch(() => undefined);
  }
  const max = config.numRetainedMax;
  if (max === null) return;
  const tags = await listTags(table.snapshots);
  let count = tags.length;
  for (const group of bySnapshot(tags, () => true)) {
    if (count <= max) break;
    if (count - group.names.length > max) {
      for (const name of group.names) await deleteIfExists(table, name);
      count -= group.names.length;
      continue;
    }
    const dir = table.snapshots.paths.tag(group.names[0]!).replace(/[^/\\]+$/, "");
    const times = new Map((await table.snapshots.io.listStatus(dir)).map((f) => [f.name, f.modificationTime]));
    const oldestFirst = [...group.names].sort((a, b) => (times.get(`tag-${a}`) ?? 0) - (times.get(`tag-${b}`) ?? 0));
    for (const name of oldestFirst) {
      if (count === max) break;
      await deleteIfExists(table, name);
      count--;
    }
  }
}

// ---------------------------------------------------------------- expiry by retention (TagTimeExpire)

/** Java `Tag.tagCreateTime` as Jackson writes a `LocalDateTime` (`[y, M, d, h, m(, s(, nanos))]` or ISO text): wall ms, null when absent. */
export function tagCreateTimeOf(value: unknown): number | null {
  if (Array.isArray(value) && value.length >= 5 && value.every((v) => typeof v === "number")) {
    const [y, mo, d, h, mi, s = 0, nanos = 0] = value as number[];
    return wallMillis(y!, mo!, d!, h!, mi!, s) + nanos / 1e6;
  }
  if (typeof value === "string") {
    const m = /^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(value);
    if (m) return wallMillis(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0)) + Number(`0.${m[7] ?? "0"}`) * 1000;
  }
  return null;
}

/**
 * Java's `TagTimeExpire.expire` after a commit: every tag whose `tagCreateTime` plus
 * `tagTimeRetained` is before now (local time, as Java's `LocalDateTime.now()`) is deleted with
 * the files only it kept (`deleteTag`); tags without a retention stay. Returns the expired names.
 */
export async function expireTagsByTime(table: TagTarget, now: Date): Promise<string[]> {
  const nowWall = toWall(systemZone, now.getTime());
  const expired: string[] = [];
  for (const tag of await listTags(table.snapshots)) {
    const text = await table.snapshots.io.readFile(tag.path).then((b) => new TextDecoder().decode(b), () => null);
    if (text === null) continue;
    const fields = JSON.parse(text) as { tagCreateTime?: unknown; tagTimeRetained?: unknown };
    const created = tagCreateTimeOf(fields.tagCreateTime);
    const retained = typeof fields.tagTimeRetained === "number" ? fields.tagTimeRetained * 1000 : null;
    if (created === null || retained === null || !(nowWall > created + retained)) continue;
    await deleteIfExists(table, tag.name);
    expired.push(tag.name);
  }
  return expired;
}

/**
 * What a commit object runs after each commit for the table's tag options (Java
 * `TableCommitImpl.maintain`'s tag part): auto tags of new snapshots (`process-time` /
 * `watermark`), expiry by retention unless `tag.time-expire-enabled` is false, then the batch
 * tag after a batch write (`batch`).
 */
export class TagMaintenance {
  private constructor(
    private readonly table: TagTarget,
    readonly config: TagAutoConfig,
    private readonly creation: TagAutoCreation | null,
  ) {}

  /** Checks the options (INVALID_ARGUMENT naming a bad one) and reads the auto-tag series. */
  static async create(table: TagTarget): Promise<TagMaintenance> {
    const config = tagAutoConfig(table.options.raw);
    const creation = config.period === null ? null : await TagAutoCreation.create(table, config);
    return new TagMaintenance(table, config, creation);
  }

  async afterCommit(batchWrite: boolean, now = new Date()): Promise<void> {
    await this.creation?.run(now);
    if (this.config.timeExpireEnabled) await expireTagsByTime(this.table, now);
    // Flink tags a batch write when it ends, after its commit's maintenance
    if (this.config.mode === "batch" && batchWrite) await createBatchTag(this.table, this.config, now);
  }
}
