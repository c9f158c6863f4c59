/**
 * Branches with Java Paimon 1.4.2: Java creates branches (`Table.createBranch`, from a tag and
 * empty) and writes to them (`db.t$branch_b`); paimon-rt reads them and continues them; Java reads
 * paimon-rt's branch commits; a branch paimon-rt creates from a tag is read identically by Java
 * and listed by it; paimon-rt's fast-forward of main is read by Java (rows and tags), and Java's
 * commits continue it. Skips with a printed reason when the Java oracle is not built.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "./convert.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, parseJsonLines, runBatch, sortRows } from "./oracle/harness.js";
import { fileTree } from "../support/file-tree.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping branch interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-branch-interop-");

const ID = "db.t";
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const rowsOf = (list: number[]): OracleRow[] => list.map((id) => ({ id, v: `v${id}` }));
const norm = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ id: Number(r.id), v: r.v ?? null })));

async function rtWrite(table: Table, list: number[]): Promise<number> {
  const w = await table.newWrite({ commitUser: "rt" } as never);
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: list.length, data: BigInt64Array.from(list, BigInt) }),
      v: arrow.vectorFromArray(list.map((i) => `v${i}`), new arrow.Utf8()).data[0],
    }),
  );
  const id = await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
  await w.close();
  return id!;
}

async function rtRead(table: Table): Promise<OracleRow[]> {
  return norm(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)));
}

/** Runs Java commands in one JVM (`write` specs given inline); each command's stdout. */
async function java(wh: string, commands: Array<string[] | { write: string; spec: object }>): Promise<string[]> {
  const args = commands.map((c, i) => {
    if (Array.isArray(c)) return c;
    const file = join(wh, `spec-${i}-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(c.spec));
    return ["write", wh, c.write, file];
  });
  return (await runBatch("java", args)).map((r) => {
    if (!r.ok && /unknown command (create-branch|branches|fast-forward)/.test(r.error)) throw new Error(`the Java oracle was built before its branch commands: run scripts/setup-oracles.sh --java-only (${r.error})`);
    return batchOutput(r);
  });
}
const javaRows = (out: string) => norm(parseJsonLines(out));

const tree = fileTree;

describe.skipIf(noJava !== null)("branches with Java", () => {
  it(
    "Java's branches are read and continued by paimon-rt, paimon-rt's branch commits, branch from a tag and fast-forward are read by Java",
    async () => {
      const wh = tempDir();
      const schema = { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], options: { bucket: 1, "bucket-key": "id" } };
      // Java: main snapshots 1, 2 and tag t1 → 1; branch jb from t1 with two commits; empty branch je with one
      await java(wh, [
        { write: ID, spec: { ...schema, commits: [rowsOf(range(0, 3)), rowsOf(range(3, 6))] } },
        ["create-tag", wh, ID, "t1", "1"],
        ["create-branch", wh, ID, "jb", "t1"],
        ["create-branch", wh, ID, "je"],
        ["create-branch", wh, ID, "jx", "t1"],
        ["create-branch", wh, ID, "jy"],
        { write: `${ID}$branch_jb`, spec: { commits: [rowsOf(range(100, 102)), rowsOf(range(102, 104))] } },
        { write: `${ID}$branch_je`, spec: { commits: [rowsOf([500])] } },
      ]);
      const catalog = await Catalog.open(wh);
      const main = await catalog.getTable(ID);
      expect(await main.listBranches()).toEqual(["jb", "je", "jx", "jy"]);
      // the same branches made by paimon-rt: the same files, byte for byte
      await main.createBranch("rx", "t1");
      await main.createBranch("ry");
      const branchDir = (b: string) => join(wh, "db.db", "t", "branch", `branch-${b}`);
      expect(tree(branchDir("rx"))).toEqual(tree(branchDir("jx")));
      expect(tree(branchDir("ry"))).toEqual(tree(branchDir("jy")));
      expect([...tree(branchDir("rx")).keys()].sort()).toEqual(["schema/schema-0", "snapshot/snapshot-1", "tag/tag-t1"]);
      await main.dropBranch("rx");
      await main.dropBranch("ry");
      const jb = await catalog.getTable(`${ID}$branch_jb`);
      expect((await jb.listSnapshots()).map((s) => s.id)).toEqual([1, 2, 3]);
      expect(await rtRead(jb)).toEqual(norm(rowsOf([...range(0, 3), ...range(100, 104)])));
      const je = await catalog.getTable(`${ID}$branch_je`);
      expect(await rtRead(je)).toEqual(norm(rowsOf([500])));
      // paimon-rt continues both branches and creates one from a tag of main
      expect(await rtWrite(jb, [200, 201])).toBe(4);
      expect(await rtWrite(je, [501])).toBe(2);
      await main.createTag("t2", 2);
      await main.createBranch("rb", "t2");
      const rb = await catalog.getTable(`${ID}$branch_rb`);
      expect(await rtWrite(rb, [300])).toBe(3);
      expect(await rtRead(main)).toEqual(norm(rowsOf(range(0, 6))));

      const [jbRows, jeRows, rbRows, rbAt2, branches, mainRows] = await java(wh, [
        ["read", wh, `${ID}$branch_jb`, "--sort"],
        ["read", wh, `${ID}$branch_je`, "--sort"],
        ["read", wh, `${ID}$branch_rb`, "--sort"],
        ["read", wh, `${ID}$branch_rb`, "--sort", "--snapshot", "2"],
        ["branches", wh, ID],
        ["read", wh, ID, "--sort"],
      ]);
      expect(javaRows(jbRows)).toEqual(await rtRead(jb));
      expect(javaRows(jbRows)).toEqual(norm(rowsOf([...range(0, 3), ...range(100, 104), 200, 201])));
      expect(javaRows(jeRows)).toEqual(norm(rowsOf([500, 501])));
      expect(javaRows(rbRows)).toEqual(await rtRead(rb));
      expect(javaRows(rbRows)).toEqual(norm(rowsOf([...range(0, 6), 300])));
      expect(javaRows(rbAt2)).toEqual(norm(rowsOf(range(0, 6))));
      expect(JSON.parse(branches)).toEqual(["jb", "je", "jx", "jy", "rb"]);
      expect(javaRows(mainRows)).toEqual(norm(rowsOf(range(0, 6))));

      // paimon-rt fast-forwards main to jb (snapshots 1..4, tag t1); main's snapshot 2 and tag t2 go
      await main.fastForward("jb");
      const ff = await catalog.getTable(ID);
      expect([...(await ff.listTags())]).toEqual([["t1", 1]]);
      const expected = norm(rowsOf([...range(0, 3), ...range(100, 104), 200, 201]));
      expect(await rtRead(ff)).toEqual(expected);
      // Java reads it and continues main; paimon-rt reads Java's commit
      const [ffRows, tags] = await java(wh, [["read", wh, ID, "--sort"], ["tags", wh, ID], { write: ID, spec: { commits: [rowsOf([900])] } }]);
      expect(javaRows(ffRows)).toEqual(expected);
      expect(JSON.parse(tags)).toEqual({ t1: 1 });
      const after = await catalog.getTable(ID);
      // Java's commit is snapshot 5 (its append-table compaction of the many small files may add a COMPACT one)
      expect((await after.snapshot(5)).commitKind).toBe("APPEND");
      expect(await rtRead(after)).toEqual(norm([...expected, ...rowsOf([900])]));
      // the branches Java and paimon-rt created still read as before
      expect(await rtRead(await catalog.getTable(`${ID}$branch_rb`))).toEqual(norm(rowsOf([...range(0, 6), 300])));
    },
    SLOW,
  );

  it(
    "a primary-key branch paimon-rt upserts into is read by Java, also after paimon-rt's expiry on main removed the files main no longer uses",
    async () => {
      const wh = tempDir();
      const PK = "db.pk";
      const schema = { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], primaryKeys: ["id"], options: { bucket: 1 } };
      await java(wh, [{ write: PK, spec: { ...schema, commits: [rowsOf(range(0, 4))] } }, ["create-tag", wh, PK, "t1", "1"], ["create-branch", wh, PK, "b", "t1"], ["delete-tag", wh, `${PK}$branch_b`, "t1"], ["delete-tag", wh, PK, "t1"]]);
      const catalog = await Catalog.open(wh);
      const b = await catalog.getTable(`${PK}$branch_b`);
      // upserts on the branch: key 1 changes, key 9 is new
      const w = await b.newWrite({ commitUser: "rt" });
      await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 2, data: BigInt64Array.from([1n, 9n]) }), v: arrow.vectorFromArray(["B1", "B9"], new arrow.Utf8()).data[0] }));
      expect(await b.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit())).toBe(2);
      await w.close();
      // main: an overwrite replaces every file of snapshot 1, then snapshot 1 expires
      const main = await catalog.getTable(PK);
      const o = await main.newWrite({ commitUser: "rt", overwrite: true });
      await o.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([100n]) }), v: arrow.vectorFromArray(["m"], new arrow.Utf8()).data[0] }));
      await main.newCommit({ commitUser: "rt" }).overwrite(await o.prepareCommit());
      await o.close();
      expect(await main.newCommit({ commitUser: "rt" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(1);
      const expected = norm([{ id: 0, v: "v0" }, { id: 1, v: "B1" }, { id: 2, v: "v2" }, { id: 3, v: "v3" }, { id: 9, v: "B9" }]);
      expect(await rtRead(b)).toEqual(expected);
      const [branchRows, mainRows] = await java(wh, [["read", wh, `${PK}$branch_b`, "--sort"], ["read", wh, PK, "--sort"]]);
      expect(javaRows(branchRows)).toEqual(expected);
      expect(javaRows(mainRows)).toEqual(norm([{ id: 100, v: "m" }]));
    },
    SLOW,
  );
});
