/**
 * The REST catalog client (`openRESTCatalog`, src/catalog/rest-catalog.ts) against Java Paimon
 * 1.4.2's own REST server (`RESTCatalogServer` from paimon-core's tests jar, started by the Java
 * oracle's `rest-server` command), with Java's `RESTCatalog` (the oracle's `rest:` warehouses) on
 * the same server: each reads what the other created and committed, row for row; our commits go
 * through the server's `commit` endpoint (the server's snapshot view and statistics see them);
 * databases, tables, renames, schema changes, tags and branches through the REST API; errors
 * mapped to our codes. Skips with a printed reason when the Java oracle is not built.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRESTCatalog } from "../../src/catalog/catalog.js";
import type { RESTCatalog } from "../../src/catalog/rest-catalog.js";
import { codeOf, norm, rowsOf, rtRead, rtWrite } from "./rest-tables.js";
import { tempDirs } from "../support/temp-dirs.js";
import { startJavaRESTServer, type JavaRESTServer } from "./oracle/rest-server.js";
import { batchOutput, javaOracleUnavailable, parseJsonLines, runBatch } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping REST catalog interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-rest-interop-");
const TOKEN = "rt-token";
const WAREHOUSE = "rt_wh";


describe.skipIf(noJava !== null)("REST catalog against Java's RESTCatalogServer", () => {
  let server: JavaRESTServer;
  let uri = "";
  let data = "";
  let catalog: RESTCatalog;
  /** Java's RESTCatalog on the same server (a `warehouse` argument of the oracle). */
  let javaWh = "";

  /** Runs Java commands in one JVM (`write` specs given inline); each command's stdout. */
  async function java(commands: Array<string[] | { write: string; spec: object }>): Promise<string[]> {
    const { writeFileSync } = await import("node:fs");
    const args = commands.map((c, i) => {
      if (Array.isArray(c)) return c;
      const file = join(tempDir(), `spec-${i}.json`);
      writeFileSync(file, JSON.stringify(c.spec));
      return ["write", javaWh, c.write, file];
    });
    return (await runBatch("java", args)).map(batchOutput);
  }

  beforeAll(async () => {
    data = join(tempDir(), "data");
    server = await startJavaRESTServer(data, WAREHOUSE, TOKEN);
    uri = server.uri;
    javaWh = `rest:${uri}?warehouse=${WAREHOUSE}&token=${TOKEN}`;
    catalog = await openRESTCatalog({ uri, warehouse: WAREHOUSE, "token.provider": "bear", token: TOKEN });
  }, SLOW);

  afterAll(() => server?.close());

  it("reads the server's config: prefix and headers", () => {
    expect(catalog.catalogOptions.prefix).toBe("paimon");
    expect(catalog.catalogOptions["header.x-oracle"]).toBe("paimon-java");
    expect(catalog.catalogOptions.warehouse).toBe(WAREHOUSE);
  });

  it("databases: create, list, exists, drop; errors mapped to our codes", async () => {
    await catalog.createDatabase("d1");
    expect(await codeOf(catalog.createDatabase("d1"))).toBe("ALREADY_EXISTS: REST catalog POST " + uri + "v1/paimon/databases: HTTP 409: Database d1 already exists.");
    await catalog.createDatabase("d1", { ignoreIfExists: true });
    expect((await catalog.listDatabases()).includes("d1")).toBe(true);
    expect(await catalog.databaseExists("d1")).toBe(true);
    expect(await catalog.databaseExists("nope")).toBe(false);
    expect(await codeOf(catalog.listTables("nope"))).toBe(`NOT_FOUND: REST catalog GET ${uri}v1/paimon/databases/nope/tables: HTTP 404: Database nope does not exist.`);
    await catalog.dropDatabase("d1");
    expect(await catalog.databaseExists("d1")).toBe(false);
    expect(await codeOf(catalog.dropDatabase("d1"))).toMatch(/^NOT_FOUND: /);
    await catalog.dropDatabase("d1", { ignoreIfNotExists: true });
    expect(await codeOf(catalog.createDatabase("../x"))).toMatch(/^INVALID_ARGUMENT: invalid database name/);
  });

  it("refuses a wrong token and another warehouse with a clear error", async () => {
    expect(await codeOf(openRESTCatalog({ uri, warehouse: WAREHOUSE, "token.provider": "bear", token: "wrong" }))).toBe(
      `IO_ERROR: REST catalog GET ${uri.replace(/\/$/, "")}/v1/config?warehouse=${WAREHOUSE}: not authorized (check token)`,
    );
    expect(await codeOf(openRESTCatalog({ uri, warehouse: WAREHOUSE, "token.provider": "dlf", token: TOKEN }))).toBe(
      'UNSUPPORTED: REST catalog token.provider "dlf" is not supported (only "bear": a static bearer token)',
    );
    expect(await codeOf(openRESTCatalog({ uri: "file:///x", warehouse: WAREHOUSE }))).toMatch(/^INVALID_ARGUMENT: REST catalog option uri must be an http\(s\) URL/);
  });

  it("ours creates and commits through the server; Java's RESTCatalog reads it, commits more, and we read that", async () => {
    await catalog.createDatabase("db", { ignoreIfExists: true });
    const table = await catalog.createTable("db.pk", { fields: [{ name: "id", type: "BIGINT" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "2" } });
    expect(table.location).toBe(join(data, "db.db", "pk"));
    expect(await rtWrite(table, [1, 2, 3])).toBe(1);
    // the server's snapshot view and statistics saw the commit (it went through its commit endpoint)
    const view = await catalog.loadSnapshot("db.pk");
    expect(view?.snapshot.id).toBe(1);
    expect(view?.snapshot.commitUser).toBe("rt");
    expect(view?.recordCount).toBe(3n);
    expect(view?.fileCount).toBe(2n);
    // Java's RESTCatalog: reads ours, writes more (upserting id 3)
    const [read1, write2, read2] = await java([
      ["read", javaWh, "db.pk"],
      { write: "db.pk", spec: { commits: [rowsOf([3, 4]).map((r) => ({ ...r, v: `j${r.id}` }))] } },
      ["read", javaWh, "db.pk"],
    ]);
    expect(norm(parseJsonLines(read1))).toEqual(rowsOf([1, 2, 3]));
    expect(JSON.parse(write2.trim())).toEqual({ table: "db.pk", snapshots: [2] });
    const expected = [...rowsOf([1, 2]), { id: 3, v: "j3" }, { id: 4, v: "j4" }];
    expect(norm(parseJsonLines(read2))).toEqual(expected);
    expect(await rtRead(await catalog.getTable("db.pk"))).toEqual(expected);
    expect((await catalog.loadSnapshot("db.pk"))?.snapshot.id).toBe(2);
    // and ours continues after Java's
    expect(await rtWrite(await catalog.getTable("db.pk"), [5])).toBe(3);
    expect(norm(parseJsonLines((await java([["read", javaWh, "db.pk"]]))[0]))).toEqual([...expected, { id: 5, v: "v5" }]);
  }, SLOW);

  it("Java creates and writes a table; we list, load and read it", async () => {
    const [out] = await java([{ write: "jdb.t", spec: { fields: [{ name: "id", type: "INT" }, { name: "v", type: "STRING" }], partitionKeys: [], options: { bucket: "-1" }, commits: [rowsOf([7, 8]), rowsOf([9])] } }]);
    expect(JSON.parse(out.trim())).toEqual({ table: "jdb.t", snapshots: [1, 2] });
    expect(await catalog.listDatabases()).toContain("jdb");
    expect(await catalog.listTables("jdb")).toEqual(["t"]);
    const t = await catalog.getTable("jdb.t");
    expect(t.schema.fields.map((f) => f.name)).toEqual(["id", "v"]);
    expect(await rtRead(t)).toEqual(rowsOf([7, 8, 9]));
    // system tables and time travel work on REST tables as on any table
    expect((await catalog.getTable("jdb.t$snapshots")).identifier).toBe("jdb.t$snapshots");
    expect(await rtRead(await t.atSnapshot(1))).toEqual(rowsOf([7, 8]));
  }, SLOW);

  it("alters, renames and drops tables on the server; Java sees the changes", async () => {
    await catalog.createDatabase("adb", { ignoreIfExists: true });
    const t = await catalog.createTable("adb.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "v", type: "STRING" }] });
    await rtWrite(t, [1]);
    const altered = await catalog.alterTable("adb.t", [
      { kind: "addColumn", name: "w", type: "INT", after: "id" },
      { kind: "setOption", key: "snapshot.num-retained.max", value: "20" },
    ]);
    expect(altered.schema.id).toBe(1);
    expect(altered.schema.fields.map((f) => f.name)).toEqual(["id", "w", "v"]);
    expect(altered.options["snapshot.num-retained.max"]).toBe("20");
    expect(await codeOf(catalog.alterTable("adb.t", [{ kind: "dropColumn", name: "nope" }]))).toMatch(/^(INVALID_ARGUMENT|NOT_FOUND): /);
    // Java's mock server drops the connection on this one (min 10 > max 7 fails inside its error handler): no answer
    const impatient = await openRESTCatalog({ uri, warehouse: WAREHOUSE, token: TOKEN, requestTimeoutMs: 3000 });
    expect(await codeOf(impatient.alterTable("adb.t", [{ kind: "setOption", key: "snapshot.num-retained.max", value: "7" }]))).toBe(
      `IO_ERROR: REST catalog request POST ${uri}v1/paimon/databases/adb/tables/t failed: no answer within 3000 ms`,
    );
    await catalog.renameTable("adb.t", "adb.u");
    expect(await catalog.listTables("adb")).toEqual(["u"]);
    expect(await codeOf(catalog.getTable("adb.t"))).toBe(`NOT_FOUND: REST catalog GET ${uri}v1/paimon/databases/adb/tables/t: HTTP 404: Table adb.t does not exist.`);
    // both clients load the renamed table from the path the server returns (Java's mock server keeps
    // the old path in its metadata after moving the directory, so both read what is there: the same)
    const renamed = await catalog.getTable("adb.u");
    expect(renamed.schema.fields.map((f) => f.name)).toEqual(["id", "w", "v"]);
    expect(norm(parseJsonLines((await java([["read", javaWh, "adb.u"]]))[0]))).toEqual(await rtRead(renamed));
    expect(await codeOf(catalog.dropDatabase("adb"))).toBe("INVALID_ARGUMENT: database adb is not empty (tables: u); drop with cascade");
    await catalog.dropTable("adb.u");
    expect(await catalog.listTables("adb")).toEqual([]);
    expect(await codeOf(catalog.dropTable("adb.u"))).toMatch(/^NOT_FOUND: /);
    await catalog.dropTable("adb.u", { ignoreIfNotExists: true });
    expect(await codeOf(catalog.createTable("adb.x$y", { fields: [{ name: "id", type: "INT" }] }))).toMatch(/^INVALID_ARGUMENT: invalid table name "x\$y"/);
  }, SLOW);

  it("tags and branches through the server; our branch commits go through its commit endpoint; Java reads them", async () => {
    await catalog.createDatabase("vdb", { ignoreIfExists: true });
    const t = await catalog.createTable("vdb.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "v", type: "STRING" }] });
    await rtWrite(t, [1, 2]);
    await catalog.createTag("vdb.t", "t1", 1);
    expect(await catalog.listTags("vdb.t")).toEqual(["t1"]);
    expect((await catalog.getTag("vdb.t", "t1")).snapshot.id).toBe(1);
    expect(await codeOf(catalog.createTag("vdb.t", "t1", 1))).toMatch(/^ALREADY_EXISTS: /);
    await catalog.createBranch("vdb.t", "b1", "t1");
    expect(await catalog.listBranches("vdb.t")).toEqual(["b1"]);
    const branch = await catalog.getTable("vdb.t$branch_b1");
    expect(await rtRead(branch)).toEqual(rowsOf([1, 2]));
    expect(await rtWrite(branch, [3])).toBe(2);
    await rtWrite(t, [10]);
    const [tags, readBranch, readMain] = await java([
      ["tags", javaWh, "vdb.t"],
      ["read", javaWh, "vdb.t$branch_b1"],
      ["read", javaWh, "vdb.t"],
    ]);
    expect(JSON.parse(tags.trim())).toEqual({ t1: 1 });
    expect(norm(parseJsonLines(readBranch))).toEqual(rowsOf([1, 2, 3]));
    expect(norm(parseJsonLines(readMain))).toEqual(norm(rowsOf([1, 2, 10])));
    await catalog.deleteTag("vdb.t", "t1");
    expect(await catalog.listTags("vdb.t")).toEqual([]);
    await catalog.dropBranch("vdb.t", "b1");
    expect(await catalog.listBranches("vdb.t")).toEqual([]);
    await catalog.dropDatabase("vdb", { cascade: true });
    expect(await catalog.databaseExists("vdb")).toBe(false);
    expect(await codeOf(catalog.getTable("vdb.t"))).toMatch(/^NOT_FOUND: /);
  }, SLOW);

  it("refuses a table path outside the allowed roots before reading any file", async () => {
    const fenced = await openRESTCatalog({ uri, warehouse: WAREHOUSE, token: TOKEN, tableRoots: [join(data, "elsewhere")] });
    expect(await codeOf(fenced.getTable("jdb.t"))).toBe(
      `IO_ERROR: REST catalog returned an invalid response: table jdb.t: path ${JSON.stringify(join(data, "jdb.db", "t"))} lies outside the allowed table roots (${join(data, "elsewhere")})`,
    );
    const allowed = await openRESTCatalog({ uri, warehouse: WAREHOUSE, token: TOKEN, tableRoots: [data] });
    expect(await rtRead(await allowed.getTable("jdb.t"))).toEqual(rowsOf([7, 8, 9]));
    expect(existsSync(join(data, "elsewhere"))).toBe(false);
  }, SLOW);
});
