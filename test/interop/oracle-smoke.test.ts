/**
 * Proves the oracle harness works: pypaimon writes -> pypaimon reads, time travel, the scripted
 * sample tables, and (when built) Java Paimon reading pypaimon's tables and vice versa.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { joinPath, readTextFile } from "../../src/fs/file-io.js";
import {
  type OracleSpec,
  createSampleTables,
  javaOracleUnavailable,
  pypaimonUnavailable,
  readTable,
  runPypaimon,
  sortRows,
  writeTable,
} from "./oracle/harness.js";

const noPython = pypaimonUnavailable();
const noJava = javaOracleUnavailable();
if (noPython) console.warn(`[oracle-smoke] skipping pypaimon tests: ${noPython}`);
if (noJava) console.warn(`[oracle-smoke] skipping Java Paimon tests: ${noJava}`);

const SLOW = 180_000;

const smallSpec: OracleSpec = {
  fields: [
    { name: "dt", type: "STRING" },
    { name: "id", type: "BIGINT NOT NULL" },
    { name: "name", type: "STRING" },
    { name: "price", type: "DECIMAL(10, 2)" },
    { name: "at", type: "TIMESTAMP(6)" },
    { name: "tags", type: "ARRAY<STRING>" },
  ],
  partitionKeys: ["dt"],
  options: { bucket: -1 },
  commits: [
    [
      { dt: "2024-05-01", id: "1", name: "apple", price: "1.20", at: "1714521600000001000", tags: ["red", "fruit"] },
      { dt: "2024-05-02", id: "2", name: "beet", price: "0.05", at: null, tags: [] },
    ],
    [{ dt: "2024-05-01", id: "3", name: null, price: "-99999999.99", at: "-1000", tags: null }],
  ],
};

let work: string;
beforeAll(async () => {
  work = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-oracle-"));
});
afterAll(async () => {
  if (work) await fsp.rm(work, { recursive: true, force: true });
});

describe.skipIf(noPython !== null)("pypaimon oracle", () => {
  it("reports its version", async () => {
    const v = JSON.parse(await runPypaimon(["version"]));
    expect(v.pypaimon).toMatch(/^\d+\.\d+/);
  }, SLOW);

  it("round-trips a small table: write -> read, and time travel", async () => {
    const wh = path.join(work, "wh-small");
    const snapshots = await writeTable("pypaimon", wh, "db.small", smallSpec);
    expect(snapshots).toEqual([1, 2]);
    const all = await readTable("pypaimon", wh, "db.small", { sort: true });
    const expected = sortRows((smallSpec.commits as Array<Array<Record<string, unknown>>>).flat());
    expect(sortRows(all)).toEqual(expected);
    const first = await readTable("pypaimon", wh, "db.small", { snapshot: 1 });
    expect(sortRows(first)).toEqual(sortRows(smallSpec.commits![0] as Array<Record<string, unknown>>));
  }, SLOW);

  it("creates the scripted sample tables, readable with the expected rows", async () => {
    const wh = path.join(work, "wh-samples");
    const names = await createSampleTables(wh);
    expect(names).toContain("samples.pk_two_buckets");
    expect(names).toContain("samples.append_all_types");
    const pk = await readTable("pypaimon", wh, "samples.pk_two_buckets", { sort: true });
    expect(sortRows(pk)).toEqual(
      sortRows([
        { dt: "a", id: "1", v: "one", amount: "1.0000" },
        { dt: "a", id: "2", v: "two v2", amount: "22.0000" },
        { dt: "b", id: "3", v: "three", amount: "-3.1250" },
        { dt: "b", id: "4", v: "four", amount: null },
      ]),
    );
    const all = await readTable("pypaimon", wh, "samples.append_all_types");
    expect(all).toHaveLength(3);
    const row1 = all.find((r) => r.id === "1")!;
    expect(row1).toMatchObject({ f32: 1.5, ltz6: "-1000", m: [["a", "9007199254740993"], ["b", null]], r: { x: 7, y: "seven" } });
    expect(all.find((r) => r.id === "9223372036854775807")).toMatchObject({ f32: "NaN", f64: "-Infinity", d: "1969-12-31" });

    // the layout is what paimon-format.md §1 describes, visible through our own LocalFileIO
    const io = new LocalFileIO();
    const table = joinPath(wh, "samples.db", "pk_two_buckets");
    const snaps = (await io.listStatus(joinPath(table, "snapshot"))).map((s) => s.name);
    expect(snaps).toEqual(expect.arrayContaining(["LATEST", "snapshot-1", "snapshot-2"]));
    expect((await readTextFile(io, joinPath(table, "snapshot", "LATEST"))).trim()).toBe("2");
    const snapshot2 = JSON.parse(await readTextFile(io, joinPath(table, "snapshot", "snapshot-2")));
    expect(snapshot2).toMatchObject({ id: 2, schemaId: 0 });
    const buckets = (await io.listStatus(joinPath(table, "dt=a"))).map((s) => s.name);
    expect(buckets.length).toBeGreaterThan(0);
    for (const b of buckets) expect(b).toMatch(/^bucket-[01]$/);
  }, SLOW);

  it("inspect lists snapshots and files", async () => {
    const wh = path.join(work, "wh-small");
    const info = JSON.parse(await runPypaimon(["inspect", wh, "db.small"]));
    expect(info.snapshots.map((s: { id: number }) => s.id)).toEqual([1, 2]);
    expect(info.partitionKeys).toEqual(["dt"]);
    expect(info.files.some((f: { path: string }) => f.path.startsWith("dt=2024-05-01/bucket-0/data-"))).toBe(true);
  }, SLOW);
});

describe.skipIf(noPython !== null || noJava !== null)("Java Paimon oracle", () => {
  it("reads pypaimon's sample tables exactly as pypaimon does", async () => {
    const wh = path.join(work, "wh-cross");
    const names = await createSampleTables(wh);
    for (const name of names) {
      const py = await readTable("pypaimon", wh, name, { sort: true });
      const java = await readTable("java", wh, name, { sort: true });
      expect(sortRows(java), name).toEqual(sortRows(py));
    }
  }, SLOW);

  it("writes deletes and deletion vectors that pypaimon reads", async () => {
    const wh = path.join(work, "wh-java");
    const names = await createSampleTables(wh, { java: true });
    expect(names).toContain("samples.pk_dv_deletes");
    const expected = [
      { id: "1", v: "a", ts: "1700000000123456000" },
      { id: "3", v: "c2", ts: "1000" },
    ];
    expect(sortRows(await readTable("java", wh, "samples.pk_dv_deletes"))).toEqual(expected);
    expect(sortRows(await readTable("pypaimon", wh, "samples.pk_dv_deletes"))).toEqual(expected);
  }, SLOW);
});
