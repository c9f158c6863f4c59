import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default (cores - 1) is a single worker on 2-core machines, which then idles while
    // the interop tests wait for pypaimon, Java and the S3 server: two workers keep both busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
