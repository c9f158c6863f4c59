/**
 * REST catalog tables on S3 with data tokens: Java Paimon 1.4.2's RESTCatalogServer (the Java
 * oracle's `rest-server` on an `s3://` warehouse of the test S3 server, `data-token.enabled=true`)
 * vends per-table credentials set by the test (`GET …/tables/<t>/token`, Java `RESTTokenFileIO`);
 * `openRESTCatalog` is given no S3 keys and must read and write with the vended ones: the real keys
 * work, wrong ones fail with the S3 server's error, and a token expiring within an hour is fetched
 * again before the next request (Java's rule) while a longer one is kept; a vended endpoint and
 * session token are used (seen on the requests by a pass-through proxy). Java's RESTCatalog reads
 * what we wrote and we read what it wrote, row for row. Skips without the Java oracle or an S3 server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRESTCatalog } from "../../src/catalog/catalog.js";
import { DATA_TOKEN_REFRESH_MARGIN_MS, type RESTCatalog } from "../../src/catalog/rest-catalog.js";
import { S3_SKIP_MESSAGE, freshS3Root, s3TestBucket, testS3FileIO } from "../fs/s3-server.js";
import { codeOf, norm, rowsOf, rtRead, rtWrite } from "./rest-tables.js";
import { startJavaRESTServer, type JavaRESTServer } from "./oracle/rest-server.js";
import { startFaultProxy } from "../support/fault-proxy.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, parseJsonLines, runBatch } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const skip = noJava ?? (s3TestBucket === null ? S3_SKIP_MESSAGE : null);
if (skip) console.log(`skipping REST catalog on S3: ${skip}`);
const SLOW = 300_000;
const TOKEN = "rt-token";
const WAREHOUSE = "rt_s3_wh";
const tempDir = tempDirs("paimon-rt-rest-s3-");


/** The test S3 server's real keys, as a data token (Java's paimon-s3 option names). */
const realKeys = () => ({ "s3.access-key": process.env.AWS_ACCESS_KEY_ID!, "s3.secret-key": process.env.AWS_SECRET_ACCESS_KEY! });
const wrongKeys = { "s3.access-key": "vendedwrongkey", "s3.secret-key": "vendedwrongsecret" };
/** The S3 server's refusal of a snapshot probe (a GET of LATEST, or a HEAD, which has no error body). */
const forbidden = (dir: string) => new RegExp(`^IO_ERROR: (read|exists) ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^/]+: HTTP 403( InvalidAccessKeyId)?$`);
const inTwoHours = () => Date.now() + 2 * DATA_TOKEN_REFRESH_MARGIN_MS;

describe.skipIf(skip !== null)("REST catalog on S3 with data tokens from Java's RESTCatalogServer", () => {
  let server: JavaRESTServer;
  let root = "";
  let catalog: RESTCatalog;
  let javaWh = "";

  async function java(commands: Array<string[] | { write: string; spec: object }>): Promise<string[]> {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const args = commands.map((c, i) => {
      if (Array.isArray(c)) return c;
      const file = join(tempDir(), `spec-${i}.json`);
      writeFileSync(file, JSON.stringify(c.spec));
      return ["write", javaWh, c.write, file];
    });
    return (await runBatch("java", args)).map(batchOutput);
  }

  /** A catalog given the S3 endpoint but no keys: only the server's data tokens can sign. */
  const openCatalog = () =>
    openRESTCatalog({ uri: server.uri, warehouse: WAREHOUSE, token: TOKEN, s3: { endpoint: process.env.AWS_ENDPOINT_URL!, region: process.env.AWS_REGION ?? "us-east-1", maxRetries: 0 } });

  beforeAll(async () => {
    root = freshS3Root("rest");
    server = await startJavaRESTServer(`${root}/wh`, WAREHOUSE, TOKEN, { "data-token.enabled": "true" });
    javaWh = `rest:${server.uri}?warehouse=${WAREHOUSE}&token=${TOKEN}`;
    catalog = await openCatalog();
  }, SLOW);

  afterAll(async () => {
    await server?.close();
    if (root) await testS3FileIO().deleteDirectory(root);
  });

  it("Java writes a table on S3 through the server; we list it and read it with the vended keys", async () => {
    expect(catalog.catalogOptions["data-token.enabled"]).toBe("true");
    await server.setDataToken("jdb.t", inTwoHours(), realKeys());
    const [out] = await java([{ write: "jdb.t", spec: { fields: [{ name: "id", type: "INT" }, { name: "v", type: "STRING" }], partitionKeys: [], options: { bucket: "-1" }, commits: [rowsOf([7, 8]), rowsOf([9])] } }]);
    expect(JSON.parse(out.trim())).toEqual({ table: "jdb.t", snapshots: [1, 2] });
    expect(await catalog.listDatabases()).toEqual(["jdb"]);
    expect(await catalog.listTables("jdb")).toEqual(["t"]);
    const t = await catalog.getTable("jdb.t");
    expect(t.location).toBe(`${root}/wh/jdb.db/t`);
    expect(await rtRead(t)).toEqual(rowsOf([7, 8, 9]));
    expect(await rtRead(await t.atSnapshot(1))).toEqual(rowsOf([7, 8]));
  }, SLOW);

  it("wrong vended keys: the read fails with the S3 server's error (the catalog's own S3 options carry no keys)", async () => {
    await server.setDataToken("jdb.t", inTwoHours(), wrongKeys);
    const t = await (await openCatalog()).getTable("jdb.t");
    expect(await codeOf(rtRead(t))).toBe(`IO_ERROR: read ${root}/wh/jdb.db/t/snapshot/LATEST: HTTP 403 InvalidAccessKeyId`);
    await server.setDataToken("jdb.t", inTwoHours(), realKeys());
  }, SLOW);

  it("a token expiring within an hour is fetched again before each request; a longer one is kept", async () => {
    await catalog.createDatabase("rdb");
    // already expired: every request asks the server again, and gets the real keys
    await server.setDataToken("rdb.t", Date.now() - 1000, realKeys());
    const t = await catalog.createTable("rdb.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: "1" } });
    expect(t.location).toBe(`${root}/wh/rdb.db/t`);
    expect(await rtWrite(t, [1, 2, 3])).toBe(1);
    expect((await catalog.loadSnapshot("rdb.t"))?.recordCount).toBe(3n);
    expect(await rtRead(t)).toEqual(rowsOf([1, 2, 3]));
    // the server now vends wrong keys for two hours: the same table object fetches them (its token had expired)
    await server.setDataToken("rdb.t", inTwoHours(), wrongKeys);
    expect(await codeOf(rtRead(t))).toMatch(forbidden(`${root}/wh/rdb.db/t/snapshot/`));
    // and keeps them (two hours left): the server's real keys are not fetched by this table object
    await server.setDataToken("rdb.t", inTwoHours(), realKeys());
    expect(await codeOf(rtRead(t))).toMatch(forbidden(`${root}/wh/rdb.db/t/snapshot/`));
    // a freshly loaded table gets the current token
    const again = await catalog.getTable("rdb.t");
    expect(await rtRead(again)).toEqual(rowsOf([1, 2, 3]));
    expect(await rtWrite(again, [4])).toBe(2);
    // Java's RESTCatalog (its RESTTokenFileIO, the same vended keys) reads what we committed
    const [read] = await java([["read", javaWh, "rdb.t"]]);
    expect(norm(parseJsonLines(read))).toEqual(rowsOf([1, 2, 3, 4]));
  }, SLOW);

  it("a vended session token and endpoint are used: every S3 request goes to the vended endpoint, signed with the vended key and token; a refresh switches to the new ones", async () => {
    const seen: Array<{ key: string; token: string }> = [];
    const proxy = await startFaultProxy(process.env.AWS_ENDPOINT_URL!, {}, 1, ({ headers }) => {
      seen.push({ key: /Credential=([^/]+)\//.exec(String(headers.authorization))?.[1] ?? "", token: String(headers["x-amz-security-token"]) });
    });
    try {
      // (the test S3 server accepts a session token beside its keys without checking it: it issues none)
      const vended = (sessionToken: string) => ({ ...realKeys(), "s3.session.token": sessionToken, "s3.endpoint": proxy.endpoint });
      await server.setDataToken("rdb.t", Date.now() - 1000, vended("session-1"));
      const t = await catalog.getTable("rdb.t");
      expect(await rtRead(t)).toEqual(rowsOf([1, 2, 3, 4]));
      const key = process.env.AWS_ACCESS_KEY_ID!;
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen.map((s) => `${s.key} ${s.token}`))).toEqual(new Set([`${key} session-1`]));
      // expired: the next request fetches the token again, and signs with what the server vends now
      await server.setDataToken("rdb.t", inTwoHours(), vended("session-2"));
      const before = seen.length;
      expect(await rtWrite(t, [5])).toBe(3);
      expect(await rtRead(t)).toEqual(rowsOf([1, 2, 3, 4, 5]));
      expect(new Set(seen.slice(before).map((s) => `${s.key} ${s.token}`))).toEqual(new Set([`${key} session-2`]));
    } finally {
      await proxy.close();
      await server.setDataToken("rdb.t", inTwoHours(), realKeys());
    }
  }, SLOW);

  it("a token without S3 credentials is refused before any file is read", async () => {
    // (Java's test server vends such a token, akId / akSecret, for a table it was given none for)
    await server.setDataToken("rdb.u", inTwoHours(), { akId: "x", akSecret: "y" });
    const refusal = "UNSUPPORTED: the data token of rdb.u has no S3 credentials paimon-rt understands (keys: akId, akSecret)";
    expect(await codeOf(catalog.createTable("rdb.u", { fields: [{ name: "id", type: "BIGINT" }] }))).toBe(refusal);
    expect(await catalog.listTables("rdb")).toEqual(["t", "u"]);
    expect(await codeOf(catalog.getTable("rdb.u"))).toBe("UNSUPPORTED: the data token of rdb.u has no S3 credentials paimon-rt understands (keys: akId, akSecret)");
  }, SLOW);
});
