// numRuns for a fast-check property, scaled by PAIMON_RT_FC_SCALE (default 1) so that
// `npm run soak -- --scale 10` runs ten times as many cases of the properties sized with it.
// fast-check's fc.configureGlobal cannot do this: a test's own numRuns takes precedence.

/** `n` fast-check runs, multiplied by the PAIMON_RT_FC_SCALE environment variable when set. */
export function runs(n: number): number {
  const scale = Number(process.env.PAIMON_RT_FC_SCALE ?? 1);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`PAIMON_RT_FC_SCALE must be a positive number, got ${process.env.PAIMON_RT_FC_SCALE}`);
  return Math.max(1, Math.round(n * scale));
}
