import { describe, expect, it } from "vitest";
import { runRealtimeDemo } from "../../src/cli/realtime-demo.js";

describe("real-time demo", () => {
  it("ingests, queries, checkpoints and verifies every row exactly once", async () => {
    const lines: string[] = [];
    const result = await runRealtimeDemo({ seconds: 3, log: (l) => lines.push(l), rowsPerSecond: 100_000, checkpointMs: 800, batchRows: 1024 });
    expect(result.mismatches).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.rowsWritten).toBeGreaterThan(0);
    expect(result.rowsOnDisk).toBe(result.rowsWritten);
    expect(result.snapshots).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.includes("before commit"))).toBe(true);
    expect(lines.some((l) => l.startsWith("  checkpoint"))).toBe(true);
    expect(lines[lines.length - 1]).toBe("OK: every row exactly once");
  }, 60_000);
});
