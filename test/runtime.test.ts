import { describe, expect, it } from "vitest";

// .ci/run runs the suite under Deno and Bun with PAIMON_RT_EXPECT_RUNTIME set, so
// this proves the tests really execute inside that runtime, not in a Node child.
describe("runtime", () => {
  it("is the runtime CI asked for", () => {
    const g = globalThis as { Deno?: unknown; Bun?: unknown };
    const runtime = g.Deno !== undefined ? "deno" : g.Bun !== undefined ? "bun" : "node";
    expect(runtime).toBe(process.env.PAIMON_RT_EXPECT_RUNTIME ?? "node");
  });
});
