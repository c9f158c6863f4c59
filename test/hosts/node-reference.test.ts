// The Node read of the host fixture over HTTP: the reference the Chromium and workerd suites must
// match exactly, and a check that the fixture holds what those suites claim to exercise.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as edge from "../../src/edge.js";
import { startStaticServer, type StaticServer } from "../support/static-server.js";
import { EXPECTED } from "./expected.js";
import { writeHostFixture } from "./fixture.js";
// @ts-expect-error: plain JS module shared with the browser and worker bundles
import { runHostQueries } from "./queries.mjs";

let dir: string;
let server: StaticServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "paimon-rt-hosts-"));
  await writeHostFixture(join(dir, "wh"));
  server = await startStaticServer(dir);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("host fixture read from Node over HTTP", () => {
  it("returns the expected rows", async () => {
    const out = await runHostQueries(edge, `${server.base}/files/wh`);
    expect(out).toEqual(EXPECTED);
  });
});
