// Java's number conversions where an option value or a cast must give what the JVM gives:
// Double.parseDouble's grammar and the saturating (int) of a double.

/** Java `Double.parseDouble` (surrounding blanks allowed; NaN, Infinity, a d/f suffix), or null when it throws. */
export function parseJavaDouble(s: string): number | null {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "");
  const m = /^([+-]?)(?:(NaN)|(Infinity)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?)$/.exec(t);
  if (!m) return null;
  if (m[2]) return NaN;
  const n = m[3] ? Infinity : Number(m[4]);
  return m[1] === "-" ? -n : n;
}

/** Java's `(int)` of a double: truncation, saturating at the int range, NaN → 0. */
export function javaDoubleToInt(v: number): number {
  if (v !== v) return 0;
  return Math.trunc(Math.min(Math.max(v, -2147483648), 2147483647));
}
