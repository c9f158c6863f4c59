import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { PAIMON_RT_VERSION } from "../../src/spec/version.js";

it("the version written into snapshots and Parquet footers is package.json's", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  expect(PAIMON_RT_VERSION).toBe(pkg.version);
});
