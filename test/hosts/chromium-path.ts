import { existsSync } from "node:fs";

/**
 * The Chromium the host suites drive: $PAIMON_RT_CHROMIUM, else Debian's package; null (the
 * suite skips, saying why) when there is none. CI installs Chromium and sets
 * PAIMON_RT_REQUIRE_HOSTS=1, so a missing browser fails there instead of skipping.
 */
export function chromiumFor(suite: string): string | null {
  const candidates = [process.env.PAIMON_RT_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  const found = candidates.find((p): p is string => typeof p === "string" && p !== "" && existsSync(p)) ?? null;
  if (found === null) {
    const why = "no chromium executable (apt-get install chromium, or set PAIMON_RT_CHROMIUM)";
    if (process.env.PAIMON_RT_REQUIRE_HOSTS === "1") throw new Error(`${suite} suite required but ${why}`);
    console.warn(`${suite} suite skipped: ${why}`);
  }
  return found;
}
