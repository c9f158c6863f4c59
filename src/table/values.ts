// Ordering of internal JS values (as `fromBinaryRow` returns them) for statistics.

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

const encoder = new TextEncoder();

/**
 * Total order of two non-null internal values of the same type: numbers and bigints
 * numerically, strings and bytes as unsigned UTF-8 bytes (Paimon's order), timestamps by
 * (millis, nanos), booleans false < true.
 */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") {
    if (a === b) return 0;
    return compareBytes(encoder.encode(a), encoder.encode(b));
  }
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a !== null && typeof a === "object" && "millis" in a && b !== null && typeof b === "object" && "millis" in b) {
    const x = a as { millis: bigint; nanoOfMillisecond: number };
    const y = b as { millis: bigint; nanoOfMillisecond: number };
    if (x.millis !== y.millis) return x.millis < y.millis ? -1 : 1;
    return x.nanoOfMillisecond - y.nanoOfMillisecond;
  }
  throw new TypeError(`cannot compare ${typeof a} with ${typeof b}`);
}
