import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../src/catalog/catalog.js";
import { inspectTable } from "../src/cli/inspect.js";
import { main } from "../src/cli/main.js";
import { readTableCommand } from "../src/cli/read.js";
import { usage } from "../src/cli/usage.js";
import { parseWhere } from "../src/cli/where.js";
import { PaimonError } from "../src/error.js";
import { predicateToString } from "../src/predicate/predicate.js";
import { parseDataType, toArrowType } from "../src/spec/types.js";

const dir = mkdtempSync(join(tmpdir(), "paimon-rt-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sampleTable(): Promise<string> {
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  const table = await catalog.createTable("db.people", {
    fields: [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "name", type: "STRING" },
      { name: "born", type: "DATE" },
      { name: "score", type: "DECIMAL(5, 2)" },
    ],
    partitionKeys: ["born"],
    options: { "file-index.bloom-filter.columns": "name", "file-index.bloom-filter.name.items": 10 },
  });
  const w = await table.newWrite({ commitUser: "cli" });
  const score = new Uint32Array(12);
  [12345, 0, 4294967295].forEach((v, i) => (score[i * 4] = v));
  [0, 0, 4294967295].forEach((v, i) => {
    for (let k = 1; k < 4; k++) score[i * 4 + k] = v;
  });
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: 3, data: BigInt64Array.from([1n, 2n, 9007199254740993n]) }),
      name: arrow.vectorFromArray(["ann, jr", "bob", null], new arrow.Utf8()).data[0],
      born: arrow.makeData({ type: new arrow.DateDay(), length: 3, data: Int32Array.from([0, 19000, 19000]) }),
      score: arrow.makeData({ type: new arrow.Decimal(2, 5, 128), length: 3, data: score }),
    }),
  );
  await table.newCommit({ commitUser: "cli" }).commit(await w.prepareCommit());
  return table.location;
}

describe("paimon-rt read / inspect", () => {
  it("reads with --where, --select, --limit in every format", async () => {
    const location = await sampleTable();
    let out = "";
    await readTableCommand({ location, format: "json", where: "born >= '2022-01-01' AND (name IS NULL OR name LIKE 'b%')" }, (t) => (out = t));
    expect(out.split("\n").map((l) => JSON.parse(l)).sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
      { id: 2, name: "bob", born: "2022-01-08", score: "0.00" },
      { id: "9007199254740993", name: null, born: "2022-01-08", score: "-0.01" },
    ]);
    await readTableCommand({ location, format: "csv", select: ["name", "id"], where: "id = 1" }, (t) => (out = t));
    expect(out).toBe('name,id\n"ann, jr",1');
    await readTableCommand({ location, format: "table", where: "id IN (1, 2)", limit: 1, select: ["id"] }, (t) => (out = t));
    expect(out.split("\n").length).toBe(3);
  });

  it("renders nested columns from the buffers: strings keep a leading U+FEFF, dates as ISO text, big integers as text, nulls at every level", async () => {
    const catalog = await Catalog.open(dir);
    await catalog.createDatabase("db", { ignoreIfExists: true });
    const types = { r: "ROW<s STRING, d DATE>", a: "ARRAY<STRING>", m: "MAP<STRING, BIGINT>" };
    const table = await catalog.createTable("db.nested", { fields: [{ name: "id", type: "INT NOT NULL" }, ...Object.entries(types).map(([name, type]) => ({ name, type }))] });
    const arrowType = (t: string) => toArrowType(parseDataType(t));
    const w = await table.newWrite({ commitUser: "cli" });
    await w.write(
      new arrow.RecordBatch({
        id: arrow.makeData({ type: new arrow.Int32(), length: 2, data: Int32Array.of(1, 2) }),
        r: arrow.vectorFromArray([{ s: "\uFEFFx", d: Date.UTC(2024, 4, 14) }, null], arrowType(types.r)).data[0]!,
        a: arrow.vectorFromArray([["\uFEFFa", null, "b"], []], arrowType(types.a)).data[0]!,
        m: arrow.vectorFromArray([new Map([["\uFEFFk", 9007199254740993n]]), null], arrowType(types.m)).data[0]!,
      }),
    );
    await table.newCommit({ commitUser: "cli" }).commit(await w.prepareCommit());
    let out = "";
    await readTableCommand({ location: table.location, format: "json" }, (t) => (out = t));
    expect(out.split("\n").map((l) => JSON.parse(l)).sort((x, y) => x.id - y.id)).toEqual([
      { id: 1, r: { s: "\uFEFFx", d: "2024-05-14" }, a: ["\uFEFFa", null, "b"], m: { "\uFEFFk": "9007199254740993" } },
      { id: 2, r: null, a: [], m: null },
    ]);
  });

  it("inspects schema, snapshots and files", async () => {
    const lines: string[] = [];
    await inspectTable(join(dir, "db.db", "people"), (l) => lines.push(l));
    expect(lines[0]).toBe(`table db.people at ${join(dir, "db.db", "people")}`);
    expect(lines).toContain("    0  id  BIGINT NOT NULL");
    expect(lines).toContain("partition keys: born");
    expect(lines.some((l) => /^ {5}1 {2}APPEND/.test(l))).toBe(true);
    expect(lines.filter((l) => /^ {2}born=\d+\/bucket-0: 1 file\(s\)/.test(l)).length).toBe(2);
    expect(lines.filter((l) => /^ {4}data-.*\.parquet .* index embedded \(\d+ bytes\)$/.test(l)).length).toBe(2);
  });

  it("parses filters and rejects malformed ones", () => {
    expect(predicateToString(parseWhere("a = 1 AND NOT (b < 2.5 OR c IS NOT NULL) AND d NOT IN ('x', 'y''z')"))).toMatch(/a/);
    for (const bad of ["a =", "a == 1", "(a = 1", "a LIKE '%x'", "a = 'open"]) {
      expect(() => parseWhere(bad)).toThrow(PaimonError);
    }
  });

  it("reports a missing table as NOT_FOUND", async () => {
    await expect(readTableCommand({ location: join(dir, "nope"), format: "json" }, () => {})).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("paimon-rt help and usage errors", () => {
  async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }
  // Every command and option main.ts handles, so a new one cannot be left out of the help.
  const mainSource = readFileSync(new URL("../src/cli/main.ts", import.meta.url), "utf8");
  const parsedOptions = [...mainSource.matchAll(/\(rest, "(--[a-z-]+)"/g)].map((m) => m[1]);
  const handledCommands = [...mainSource.matchAll(/^ {4}case "([a-z-]+)":/gm)].map((m) => m[1]);

  it("--help, -h and help print every command with its options and exit 0", async () => {
    expect(handledCommands).toEqual(expect.arrayContaining(["inspect", "read", "serve", "demo", "kernel-demo", "version"]));
    expect(parsedOptions).toEqual(expect.arrayContaining(["--where", "--select", "--limit", "--format", "--snapshot", "--port", "--host", "--warehouse", "--seconds", "--rows", "--buckets", "--batch"]));
    for (const flag of ["--help", "-h", "help"]) {
      const { code, out, err } = await run(flag);
      expect(code).toBe(0);
      expect(err).toBe("");
      expect(out).toBe(usage());
      const lines = out.split("\n");
      expect(lines[0]).toBe("usage: paimon-rt <command> [arguments] [options]");
      for (const command of ["inspect <table-path>", "read <table-path> [options]", "serve <warehouse> [options]", "demo [options]", "kernel-demo [options]", "version"]) {
        expect(lines).toContain(`  ${command}`);
      }
      for (const option of parsedOptions) expect(lines.some((l) => l.startsWith(`      ${option} `)), option).toBe(true);
      for (const command of handledCommands) expect(lines.some((l) => l === `  ${command}` || l.startsWith(`  ${command} `)), command).toBe(true);
      expect(lines.filter((l) => l.length > 80)).toEqual([]);
    }
  });

  it("<command> --help and help <command> print that command's usage and exit 0", async () => {
    const read = await run("read", "--help");
    expect(read).toEqual({ code: 0, out: expect.stringMatching(/^usage: paimon-rt read <table-path> \[options\]\n/), err: "" });
    for (const option of ["--where", "--select", "--limit", "--format", "--snapshot"]) expect(read.out).toContain(`\n  ${option} `);
    expect(read.out).not.toContain("--seconds");
    expect(await run("demo", "-h")).toEqual(await run("help", "demo"));
    expect((await run("help", "demo")).out).toContain("\n  --warehouse DIR   warehouse directory (default ./paimon-rt-warehouse)");
    // --help wins over a missing argument: nothing runs
    expect((await run("inspect", "--help")).code).toBe(0);
  });

  it("an unknown or missing command prints the usage on stderr and exits 2", async () => {
    expect(await run("bogus")).toEqual({ code: 2, out: "", err: `paimon-rt: unknown command: bogus\n${usage()}` });
    expect(await run("help", "bogus")).toEqual({ code: 2, out: "", err: `paimon-rt: unknown command: bogus\n${usage()}` });
    expect(await run()).toEqual({ code: 2, out: "", err: `paimon-rt: no command given\n${usage()}` });
  });
});

describe("paimon-rt create-tag / replace-tag / rename-tag / delete-tag / list-tags", () => {
  async function run(...args: string[]): Promise<{ code: number; out: string[] }> {
    const out: string[] = [];
    const code = await main(args, { out: (l) => out.push(l), err: (l) => out.push(l) });
    return { code, out };
  }

  it("creates, lists and deletes tags; bad arguments are INVALID_ARGUMENT, a missing tag NOT_FOUND", async () => {
    const catalog = await Catalog.open(dir);
    await catalog.createDatabase("db", { ignoreIfExists: true });
    const table = await catalog.createTable("db.tagged", { fields: [{ name: "id", type: "BIGINT" }] });
    const w = await table.newWrite({ commitUser: "cli" });
    await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([1n]) }) }));
    await table.newCommit({ commitUser: "cli" }).commit(await w.prepareCommit());
    const location = table.location;
    expect(await run("create-tag", location, "first", "--snapshot", "1")).toEqual({ code: 0, out: [`created tag first of snapshot 1 of ${location}`] });
    expect((await run("create-tag", location, "kept", "--time-retained", "2 h")).code).toBe(0);
    expect(JSON.parse(readFileSync(join(location, "tag", "tag-kept"), "utf8")).tagTimeRetained).toBe(7200);
    expect(await run("list-tags", location)).toEqual({ code: 0, out: ["first\t1", "kept\t1"] });
    expect(await run("delete-tag", location, "first")).toEqual({ code: 0, out: [`deleted tag first of ${location}`] });
    expect(await run("list-tags", location)).toEqual({ code: 0, out: ["kept\t1"] });
    await expect(run("create-tag", location, "kept")).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
    await expect(run("delete-tag", location, "first")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(run("create-tag", location, "x", "--snapshot", "0")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("create-tag", location, "x", "--bogus", "1")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("create-tag", location)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("delete-tag", location, "a", "b")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("list-tags")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(await run("list-tags", location)).toEqual({ code: 0, out: ["kept\t1"] });

    // replace-tag and rename-tag, as Java's replace_tag / rename_tag procedures
    const w2 = await table.newWrite({ commitUser: "cli" });
    await w2.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([2n]) }) }));
    expect(await table.newCommit({ commitUser: "cli" }).commit(await w2.prepareCommit())).toBe(2);
    expect(await run("replace-tag", location, "kept")).toEqual({ code: 0, out: [`replaced tag kept with snapshot 2 of ${location}`] });
    expect(JSON.parse(readFileSync(join(location, "tag", "tag-kept"), "utf8")).tagTimeRetained).toBeUndefined();
    expect(await run("replace-tag", location, "kept", "--snapshot", "1", "--time-retained", "1 h")).toEqual({ code: 0, out: [`replaced tag kept with snapshot 1 of ${location}`] });
    expect(JSON.parse(readFileSync(join(location, "tag", "tag-kept"), "utf8")).tagTimeRetained).toBe(3600);
    expect(await run("rename-tag", location, "kept", "renamed")).toEqual({ code: 0, out: [`renamed tag kept to renamed of ${location}`] });
    expect(await run("list-tags", location)).toEqual({ code: 0, out: ["renamed\t1"] });
    await expect(run("replace-tag", location, "kept")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(run("rename-tag", location, "kept", "x")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(run("replace-tag", location, "renamed", "--snapshot", "x")).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "replace-tag: --snapshot needs a positive number, got x" });
    await expect(run("rename-tag", location, "renamed")).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "rename-tag needs the new tag name" });
    await expect(run("rename-tag", location, "renamed", "a", "b")).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "rename-tag: unexpected argument b" });
    expect(await run("list-tags", location)).toEqual({ code: 0, out: ["renamed\t1"] });
  });
});

describe("paimon-rt create-branch / drop-branch / fast-forward / list-branches", () => {
  async function run(...args: string[]): Promise<{ code: number; out: string[] }> {
    const out: string[] = [];
    const code = await main(args, { out: (l) => out.push(l), err: (l) => out.push(l) });
    return { code, out };
  }

  it("creates, lists, fast-forwards to and drops branches; bad arguments are INVALID_ARGUMENT", async () => {
    const catalog = await Catalog.open(dir);
    await catalog.createDatabase("db", { ignoreIfExists: true });
    const table = await catalog.createTable("db.branched", { fields: [{ name: "id", type: "BIGINT" }] });
    const w = await table.newWrite({ commitUser: "cli" });
    await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([1n]) }) }));
    await table.newCommit({ commitUser: "cli" }).commit(await w.prepareCommit());
    await table.createTag("t1", 1);
    const location = table.location;
    expect(await run("create-branch", location, "b", "--tag", "t1")).toEqual({ code: 0, out: [`created branch b from tag t1 of ${location}`] });
    expect(await run("create-branch", location, "e")).toEqual({ code: 0, out: [`created branch e of ${location}`] });
    expect(await run("list-branches", location)).toEqual({ code: 0, out: ["b", "e"] });
    const b = await catalog.getTable("db.branched$branch_b");
    const w2 = await b.newWrite({ commitUser: "cli" });
    await w2.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([2n]) }) }));
    expect(await b.newCommit({ commitUser: "cli" }).commit(await w2.prepareCommit())).toBe(2);
    expect(await run("fast-forward", location, "b")).toEqual({ code: 0, out: [`fast-forwarded ${location} to branch b`] });
    expect((await (await catalog.getTable("db.branched")).latestSnapshot())!.id).toBe(2);
    expect(await run("drop-branch", location, "e")).toEqual({ code: 0, out: [`dropped branch e of ${location}`] });
    expect(await run("list-branches", location)).toEqual({ code: 0, out: ["b"] });
    await expect(run("create-branch", location, "b")).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
    await expect(run("drop-branch", location, "e")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(run("create-branch", location, "123")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("create-branch", location, "x", "--tag")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("create-branch", location, "x", "--bogus", "1")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("fast-forward", location)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(run("list-branches", location, "x")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(await run("list-branches", location)).toEqual({ code: 0, out: ["b"] });
  });
});
