// Names that become directories, and integer options, are checked up front with
// INVALID_ARGUMENT naming what is wrong — not left to fail as IO_ERROR (ENAMETOOLONG) or to be
// read as a different number than Java reads (issue 9 item 12).
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RealtimeContext } from "../../src/index.js";
import { parseJavaInt } from "../../src/table/option-validation.js";
import { TableOptions } from "../../src/table/options.js";
import { makeTable, rtBatch } from "../realtime/helpers.js";
import { failure } from "./helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function warehouse(): Promise<{ dir: string; catalog: Catalog }> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-names-"));
  dirs.push(dir);
  const catalog = await Catalog.open(dir);
  return { dir, catalog };
}

const FIELDS = [
  { name: "id", type: "BIGINT" },
  { name: "dt", type: "STRING" },
];

function batch(ids: number[], dt: string): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    dt: arrow.vectorFromArray(ids.map(() => dt), new arrow.Utf8()).data[0],
  });
}

describe("database and table names", () => {
  it("a 5,000-character table name is INVALID_ARGUMENT, and nothing is created", async () => {
    const { dir, catalog } = await warehouse();
    await catalog.createDatabase("db");
    const name = "t".repeat(5000);
    const e = await failure(() => catalog.createTable(`db.${name}`, { fields: FIELDS }));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`invalid table name "${name}": it is 5000 bytes of UTF-8, at most 255 (it names a directory)`);
    expect(readdirSync(join(dir, "db.db"))).toEqual([]);
  });

  it("names are limited in UTF-8 bytes: 255 for a table, 252 for a database (its directory ends in .db)", async () => {
    const { catalog } = await warehouse();
    const db = "d".repeat(252);
    await catalog.createDatabase(db);
    const e = await failure(() => catalog.createDatabase("d".repeat(253)));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`invalid database name "${"d".repeat(253)}": it is 253 bytes of UTF-8, at most 252 (it names a directory)`);
    const longest = "é".repeat(127) + "t"; // 255 bytes
    const table = await catalog.createTable(`${db}.${longest}`, { fields: FIELDS });
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(batch([1], "a"));
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    expect((await catalog.getTable(`${db}.${longest}`)).identifier).toBe(`${db}.${longest}`);
    const tooLong = "é".repeat(128);
    expect((await failure(() => catalog.createTable(`${db}.${tooLong}`, { fields: FIELDS }))).message).toBe(
      `invalid table name "${tooLong}": it is 256 bytes of UTF-8, at most 255 (it names a directory)`,
    );
  });

  it("names starting with '.' are refused", async () => {
    const { catalog } = await warehouse();
    expect((await failure(() => catalog.createDatabase(".hidden"))).message).toBe(`invalid database name ".hidden": it starts with '.'`);
    await catalog.createDatabase("db");
    expect((await failure(() => catalog.createTable("db..t", { fields: FIELDS }))).message).toBe(`invalid table name ".t": it starts with '.'`);
  });
});

describe("'$' in table names: Paimon's branch and system-table separator", () => {
  it("createTable refuses it (Java reads db.t$ro as a system table); getTable of a missing t$branch_b is NOT_FOUND, system tables have no real-time scan", async () => {
    const { dir, catalog } = await warehouse();
    await catalog.createDatabase("db");
    const e = await failure(() => catalog.createTable("db.x$ro", { fields: FIELDS }));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", `invalid table name "x$ro": '$' is Paimon's separator of branches and system tables (Java Paimon reads db.x$ro as the system table "ro" of table "x")`]);
    const b = await failure(() => catalog.createTable("db.x$branch_b", { fields: FIELDS }));
    expect(b.message).toBe(`invalid table name "x$branch_b": '$' is Paimon's separator of branches and system tables (Java Paimon reads db.x$branch_b as the branch "b" of table "x")`);
    expect(readdirSync(join(dir, "db.db"))).toEqual([]);

    await makeTable({ bucket: 1 }, { warehouse: dir, name: "t", primaryKeys: ["id"] }); // a real-time table t exists
    const g = await failure(() => catalog.getTable("db.t$branch_b"));
    expect([g.code, g.message]).toEqual(["NOT_FOUND", `switchToBranch of db.t: branch 'b' does not exist (${join(dir, "db.db/t/branch/branch-b")})`]);
    expect(await catalog.tableExists("db.t$branch_b")).toBe(false);
    // system tables open (src/catalog/system-tables.ts), but have no real-time scan or read
    for (const name of ["t$ro", "t$snapshots"]) {
      const system = await catalog.getTable(`db.${name}`);
      expect(system.identifier).toBe(`db.${name}`);
      expect((await failure(async () => system.newScan({ realtime: {} as never }))).code).toBe("UNSUPPORTED");
      expect((await failure(async () => system.newRead({ realtime: {} as never }))).code).toBe("UNSUPPORTED");
    }
    expect((await failure(() => catalog.getTable("db.u"))).code).toBe("NOT_FOUND");
  });

  it("a data table already named with '$' (made before names were checked) still opens", async () => {
    const { dir, catalog } = await warehouse();
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: FIELDS });
    const w = await table.newWrite({ commitUser: "u" });
    await w.write(batch([1, 2], "a"));
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    cpSync(join(dir, "db.db", "t"), join(dir, "db.db", "t$ro"), { recursive: true });
    const legacy = await catalog.getTable("db.t$ro");
    const rows = (await legacy.newRead().toArrow((await legacy.newScan().plan()).splits)).toArray().map((r) => Number(r.id));
    expect(rows.sort()).toEqual([1, 2]);
  });
});

describe("partition directory names", () => {
  it("a 300-character partition value is INVALID_ARGUMENT at write, before anything is written", async () => {
    const { catalog } = await warehouse();
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: FIELDS, partitionKeys: ["dt"] });
    const value = "v".repeat(300);
    const w = await table.newWrite({ commitUser: "u" });
    const e = await failure(() => w.write(batch([1, 2], value)));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`partition dt: directory name "dt=${"v".repeat(57)}…" is 303 bytes of UTF-8 after escaping (at most 255)`);
    // A batch mixing a good and a bad partition writes neither.
    const mixed = new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: 2, data: BigInt64Array.from([1n, 2n]) }),
      dt: arrow.vectorFromArray(["ok", value], new arrow.Utf8()).data[0],
    });
    expect((await failure(() => w.write(mixed))).code).toBe("INVALID_ARGUMENT");
    expect(await w.prepareCommit()).toEqual([]);
    await w.close();
    expect(readdirSync(table.location).sort()).toEqual(["schema"]);
  });

  it("the limit applies to the escaped name: 100 slashes are 300 bytes on disk", async () => {
    const { catalog } = await warehouse();
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: FIELDS, partitionKeys: ["dt"] });
    const w = await table.newWrite({ commitUser: "u" });
    const e = await failure(() => w.write(batch([1], "/".repeat(100))));
    expect(e.message).toBe(`partition dt: directory name "dt=${"%2F".repeat(19)}…" is 303 bytes of UTF-8 after escaping (at most 255)`);
    // 84 slashes (252 bytes + "dt=") fit exactly.
    await w.write(batch([1], "/".repeat(84)));
    await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    expect(existsSync(join(table.location, `dt=${"%2F".repeat(84)}`))).toBe(true);
  });

  it("the real-time writer refuses it too, and its context stays usable", async () => {
    const table = await makeTable({}, { partitioned: true });
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const value = "v".repeat(300);
    const e = await failure(() => w.write(rtBatch([0, 1], { dt: value }), { bucket: 0, partition: { dt: value } }));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe(`partition dt: directory name "dt=${"v".repeat(57)}…" is 303 bytes of UTF-8 after escaping (at most 255)`);
    await w.write(rtBatch([0, 1]), { bucket: 0, partition: { dt: "d1" } });
    const progress = await w.prepareCommitWithProgress(1);
    expect(progress.map((p) => p.partition)).toEqual([{ dt: "d1" }]);
    await table.newCommit({ commitUser: "u" }).commitWithProgress(progress, 1);
    await w.close();
  });
});

describe("integer options (Java Integer.parseInt)", () => {
  it("parses exactly what Integer.parseInt parses", () => {
    expect(parseJavaInt("42")).toBe(42);
    expect(parseJavaInt("+7")).toBe(7);
    expect(parseJavaInt("-0")).toBe(0);
    expect(parseJavaInt("007")).toBe(7);
    expect(parseJavaInt("2147483647")).toBe(2147483647);
    expect(parseJavaInt("-2147483648")).toBe(-2147483648);
    for (const bad of ["2147483648", "-2147483649", "1e3", "5.0", " 5", "5 ", "0x10", "", "+", "1_000", "Infinity", "NaN", "٣"]) expect(parseJavaInt(bad)).toBeNull();
  });

  it("bucket: 2**31, '1e3' and friends are refused at create, naming the option", async () => {
    const { catalog } = await warehouse();
    await catalog.createDatabase("db");
    for (const [bucket, text] of [[2 ** 31, "2147483648"], ["1e3", "1e3"], ["4.0", "4.0"], [" 4", " 4"], [1e21, "1e+21"]] as const) {
      const e = await failure(() => catalog.createTable("db.t", { fields: FIELDS, options: { bucket, "bucket-key": "id" } }));
      expect(e.code).toBe("INVALID_ARGUMENT");
      expect(e.message).toBe(`option bucket: '${text}' is not an integer (-2147483648..2147483647)`);
    }
    expect((await failure(() => catalog.getTable("db.t"))).code).toBe("NOT_FOUND");
    const table = await catalog.createTable("db.t", { fields: FIELDS, options: { bucket: "+4", "bucket-key": "id" } });
    expect(table.coreOptions.bucket).toBe(4);
  });

  it("other integer options are refused at create and alter", async () => {
    const { catalog } = await warehouse();
    await catalog.createDatabase("db");
    const e = await failure(() => catalog.createTable("db.t", { fields: FIELDS, options: { "commit.max-retries": "1e3" } }));
    expect(e.message).toBe(`option commit.max-retries: '1e3' is not an integer (-2147483648..2147483647)`);
    await catalog.createTable("db.t", { fields: FIELDS });
    const alter = await failure(() => catalog.alterTable("db.t", [{ kind: "setOption", key: "snapshot.num-retained.min", value: "3.5" }]));
    expect(alter.code).toBe("INVALID_ARGUMENT");
    expect(alter.message).toBe(`option snapshot.num-retained.min: '3.5' is not an integer (-2147483648..2147483647)`);
    expect((await catalog.getTable("db.t")).schema.id).toBe(0);
    // A value that slipped into a schema elsewhere is refused when used, not misread.
    expect(() => new TableOptions({ "read.batch-size": "1e3" }).readBatchSize).toThrow("option read.batch-size: '1e3' is not an integer (-2147483648..2147483647)");
  });
});
