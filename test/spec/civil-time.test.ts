import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { civilFromDays, daysFromCivil, formatIsoDate, formatIsoDateTime, parseIsoDate, parseIsoDateTime } from "../../src/spec/civil-time.js";
import { fromBinaryRow, toBinaryRow, toTimestamp } from "../../src/spec/binary-row.js";
import { col, normalizeLiteral, evaluateRow } from "../../src/predicate/index.js";
import { partitionValueString } from "../../src/table/paths.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { PaimonError } from "../../src/error.js";

const DAY = 86_400_000;
/** Reference: `Date.setUTCFullYear` takes the year literally (no 1900 rule for 0–99). */
function referenceEpochDay(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime() / DAY;
}

// Java: LocalDate.of(y, m, d).toEpochDay() (same as Python date.toordinal() - 719163)
const JAVA_EPOCH_DAYS: Array<[string, number]> = [
  ["0000-01-01", -719528],
  ["0001-01-01", -719162],
  ["0099-12-31", -683004],
  ["0100-01-01", -683003],
  ["0100-03-01", -682944], // 100 is not a leap year
  ["1899-12-31", -25568],
  ["1970-01-01", 0],
  ["2000-02-29", 11016],
  ["-0001-12-31", -719529],
  ["-0004-02-29", -720930],
  ["9999-12-31", 2932896],
  ["+10000-01-01", 2932897],
];

describe("civil time (issue 9 item 7: years 0000-0099 are not 1900-1999)", () => {
  it("epoch days of ISO dates match Java's LocalDate.toEpochDay, and format back as LocalDate.toString", () => {
    for (const [text, day] of JAVA_EPOCH_DAYS) {
      expect(parseIsoDate(text), text).toBe(day);
      expect(formatIsoDate(day), text).toBe(text);
    }
  });

  it("days-from-civil agrees with Date.setUTCFullYear and round-trips through civil-from-days", () => {
    fc.assert(
      fc.property(fc.integer({ min: -270_000, max: 270_000 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), (y, m, d) => {
        const day = daysFromCivil(y, m, d);
        expect(day).toBe(referenceEpochDay(y, m, d));
        expect(civilFromDays(day)).toEqual({ year: y, month: m, day: d });
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: -400_000_000, max: 400_000_000 }), (day) => {
        const { year, month, day: dom } = civilFromDays(day);
        expect(daysFromCivil(year, month, dom)).toBe(day);
        expect(parseIsoDate(formatIsoDate(day))).toBe(day);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects days that do not exist and malformed text", () => {
    for (const bad of ["2023-02-29", "1900-02-29", "0100-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "24-01-01", "2024-1-01", "2024-01-01x", ""])
      expect(parseIsoDate(bad), bad).toBeNull();
    expect(parseIsoDate("0000-02-29")).toBe(-719528 + 59); // year 0 is a leap year
    for (const bad of ["2024-01-01T24:00", "2024-01-01T10:60", "2024-01-01T10:00:60", "2024-02-30T00:00"]) expect(parseIsoDateTime(bad), bad).toBeNull();
  });

  it("date-times: millis + nano-of-millisecond, formatted as LocalDateTime.toString", () => {
    // Java: LocalDateTime.of(1, 1, 1, 0, 0).toInstant(UTC).toEpochMilli() = -62135596800000
    expect(parseIsoDateTime("0001-01-01T00:00:00")).toEqual({ millis: -62135596800000n, nanoOfMillisecond: 0 });
    expect(parseIsoDateTime("0099-12-31 23:59:59.123456789Z")).toEqual({ millis: -683004n * 86400000n + 86399123n, nanoOfMillisecond: 456789 });
    expect(parseIsoDateTime("0050-06-15")).toEqual({ millis: BigInt(referenceEpochDay(50, 6, 15) * DAY), nanoOfMillisecond: 0 });
    expect(formatIsoDateTime(-62135596800000n, 0)).toBe("0001-01-01T00:00");
    expect(formatIsoDateTime(-683004n * 86400000n + 86399123n, 456789)).toBe("0099-12-31T23:59:59.123456789");
    expect(formatIsoDateTime(-1n, 0)).toBe("1969-12-31T23:59:59.999");
    expect(formatIsoDateTime(-62167219200000n - 1000n, 1000)).toBe("-0001-12-31T23:59:59.000001");
    expect(formatIsoDateTime(253402300800000n, 0)).toBe("+10000-01-01T00:00");
  });

  it("BinaryRow encoding of DATE / TIMESTAMP partition values keeps years 0000-0099", () => {
    const types = [T.DATE(), T.TIMESTAMP(3), T.TIMESTAMP(9)];
    const row = toBinaryRow(["0050-03-01", "0001-01-01T00:00:00", "0099-12-31T23:59:59.123456789"], types);
    const [date, ts3, ts9] = fromBinaryRow(row, types);
    expect(date).toBe(referenceEpochDay(50, 3, 1));
    expect(ts3).toEqual({ millis: -62135596800000n, nanoOfMillisecond: 0 });
    expect(ts9).toEqual({ millis: -683004n * 86400000n + 86399123n, nanoOfMillisecond: 456789 });
    expect(toTimestamp("0000-01-01T00:00")).toEqual({ millis: -719528n * 86400000n, nanoOfMillisecond: 0 });
    expect(() => toBinaryRow(["2023-02-29"], [T.DATE()])).toThrow(PaimonError);
    // partition directory names (non-legacy): CAST(date AS STRING)
    expect(partitionValueString(referenceEpochDay(50, 3, 1), T.DATE(), false)).toBe("0050-03-01");
    expect(partitionValueString(-719529, T.DATE(), false)).toBe("-0001-12-31");
  });

  it("predicate literals: DATE and TIMESTAMP strings with years 0000-0099", () => {
    expect(normalizeLiteral("0050-03-01", T.DATE())).toBe(referenceEpochDay(50, 3, 1));
    expect(normalizeLiteral(" 0001-01-01 ", T.DATE())).toBe(-719162);
    expect(normalizeLiteral("0001-01-01T00:00:00", T.TIMESTAMP(6))).toEqual({ millis: -62135596800000n, nanoOfMillisecond: 0 });
    const fields = [T.FIELD(0, "d", T.DATE())];
    expect(evaluateRow(col("d").eq("0099-12-31"), { d: -683004 }, fields, { canonical: true })).toBe(true);
    expect(evaluateRow(col("d").lt("0100-01-01"), { d: referenceEpochDay(1999, 12, 31) }, fields, { canonical: true })).toBe(false);
  });
});
