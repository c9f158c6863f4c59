// Civil (proleptic Gregorian, UTC) dates and date-times without `Date`: epoch days from
// year/month/day and back (Howard Hinnant's days-from-civil algorithm), and parsing and
// formatting in the ISO forms Java's `LocalDate` / `LocalDateTime` use.
//
// Why not `Date`: `Date.UTC(y, …)` maps years 0–99 to 1900–1999, `toISOString()` writes years
// beyond 9999 as "+010000" and below 0 as "-000001" (not Java's "+10000" / "-0001"), and `Date`
// ends at ±8.64e15 ms. These functions are exact for every integer year JS numbers hold.

/** Milliseconds per day. */
export const MILLIS_PER_DAY = 86_400_000;
const MILLIS_PER_DAY_N = 86_400_000n;

/** A civil date: `year` (astronomical: 0 = 1 BC, negative before), `month` 1–12, `day` 1–31. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

const floorDiv = (a: number, b: number): number => Math.floor(a / b);

/**
 * The process's local wall clock at instant `epochMs`, read as if it were UTC (Java's
 * `LocalDateTime` of the JVM zone, as Paimon stores it in `_CREATION_TIME`, tag and partition times).
 */
export function localWallMillis(epochMs: number): number {
  return epochMs - new Date(epochMs).getTimezoneOffset() * 60_000;
}

/** Whether `year` is a leap year of the proleptic Gregorian calendar (as Java's `IsoChronology`). */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Days since 1970-01-01 of a civil date (no range check: month 1–12, day 1–31 expected). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floorDiv(y, 400);
  const yoe = y - era * 400; // [0, 399]
  const doy = floorDiv(153 * (month > 2 ? month - 3 : month + 9) + 2, 5) + day - 1; // [0, 365]
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy; // [0, 146096]
  return era * 146097 + doe - 719468;
}

/** The civil date of `epochDay` (days since 1970-01-01). */
export function civilFromDays(epochDay: number): CivilDate {
  const z = epochDay + 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097; // [0, 146096]
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365); // [0, 399]
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100)); // [0, 365]
  const mp = floorDiv(5 * doy + 2, 153); // [0, 11]
  const day = doy - floorDiv(153 * mp + 2, 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

// Year: 4 digits, or a sign and 4+ digits (Java's ISO form: "0099", "-0001", "+10000").
const DATE_PART = String.raw`([+-]?\d{4,})-(\d{2})-(\d{2})`;
const DATE_RE = new RegExp(`^${DATE_PART}$`);
const DATE_TIME_RE = new RegExp(String.raw`^${DATE_PART}(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z)?$`);

function epochDayOf(yearText: string, monthText: string, dayText: string): number | null {
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  if (!Number.isSafeInteger(year) || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return daysFromCivil(year, month, day);
}

/**
 * Epoch day of an ISO date "YYYY-MM-DD" (year may be signed / longer, as Java writes it), or
 * null when the text is not such a date or names a day that does not exist (2023-02-29).
 */
export function parseIsoDate(text: string): number | null {
  const m = DATE_RE.exec(text);
  return m ? epochDayOf(m[1]!, m[2]!, m[3]!) : null;
}

/**
 * A UTC date-time "YYYY-MM-DD[(T| )HH:MM[:SS[.fraction up to 9 digits]]][Z]" (a date alone is
 * midnight) as epoch millis + nano-of-millisecond, or null when malformed or out of range.
 */
export function parseIsoDateTime(text: string): { millis: bigint; nanoOfMillisecond: number } | null {
  const m = DATE_TIME_RE.exec(text);
  if (!m) return null;
  const day = epochDayOf(m[1]!, m[2]!, m[3]!);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  if (day === null || hour > 23 || minute > 59 || second > 59) return null;
  const fraction = (m[7] ?? "").padEnd(9, "0");
  const millisOfDay = ((hour * 60 + minute) * 60 + second) * 1000 + Number(fraction.slice(0, 3));
  return { millis: BigInt(day) * MILLIS_PER_DAY_N + BigInt(millisOfDay), nanoOfMillisecond: Number(fraction.slice(3)) };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** Java's `LocalDate.toString()` of a year: 4 digits ("0099"), "-0001" below 0, "+10000" above 9999. */
function yearString(year: number): string {
  if (year > 9999) return `+${year}`;
  return year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
}

/** Java's `LocalDate.ofEpochDay(epochDay).toString()`. */
export function formatIsoDate(epochDay: number): string {
  const { year, month, day } = civilFromDays(epochDay);
  return `${yearString(year)}-${pad(month)}-${pad(day)}`;
}

/**
 * Java's `LocalDateTime.toString()` of a timestamp given as epoch millis + nano-of-millisecond
 * (UTC wall clock): seconds only when non-zero (or with a fraction), the fraction in 3, 6 or 9
 * digits.
 */
export function formatIsoDateTime(millis: bigint, nanoOfMillisecond: number): string {
  let day = millis / MILLIS_PER_DAY_N;
  let millisOfDay = millis % MILLIS_PER_DAY_N;
  if (millisOfDay < 0n) {
    day -= 1n;
    millisOfDay += MILLIS_PER_DAY_N;
  }
  const ms = Number(millisOfDay);
  const secondOfDay = Math.floor(ms / 1000);
  const nanos = (ms % 1000) * 1_000_000 + nanoOfMillisecond;
  let text = `${formatIsoDate(Number(day))}T${pad(Math.floor(secondOfDay / 3600))}:${pad(Math.floor(secondOfDay / 60) % 60)}`;
  const seconds = secondOfDay % 60;
  if (seconds > 0 || nanos > 0) {
    text += `:${pad(seconds)}`;
    if (nanos > 0) {
      if (nanos % 1_000_000 === 0) text += `.${pad(nanos / 1_000_000, 3)}`;
      else if (nanos % 1000 === 0) text += `.${pad(nanos / 1000, 6)}`;
      else text += `.${pad(nanos, 9)}`;
    }
  }
  return text;
}
