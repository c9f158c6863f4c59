/**
 * miniflare (workerd) for the worker suites, or null (the suite skips, saying why) when it is not
 * installed. CI sets PAIMON_RT_REQUIRE_HOSTS=1, so a missing miniflare fails there instead.
 */
export type MiniflareModule = typeof import("miniflare");

export async function loadMiniflare(suite: string): Promise<MiniflareModule | null> {
  try {
    return await import("miniflare");
  } catch (e) {
    const why = `miniflare is not installed (${(e as Error).message}); npm ci installs it`;
    if (process.env.PAIMON_RT_REQUIRE_HOSTS === "1") throw new Error(`${suite} suite required but ${why}`);
    console.warn(`${suite} suite skipped: ${why}`);
    return null;
  }
}
